// Element building without HTML strings: text goes in as text nodes, attributes through
// setAttribute (never event-handler attributes), icons as SVG elements.

const SVG_NS = 'http://www.w3.org/2000/svg';

/**
 * h('button', {class: 'x', 'aria-label': 'y', onclick: fn}, 'text', child) — `on*` keys are
 * listeners (addEventListener), `false`/`null`/`undefined` attributes are skipped, strings
 * among the children become text nodes.
 */
export function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  if (attrs) {
    for (const [k, v] of Object.entries(attrs)) {
      if (v === false || v === null || v === undefined) continue;
      if (k.startsWith('on') && typeof v === 'function') el.addEventListener(k.slice(2), v);
      else if (k === 'text') el.textContent = v;
      else el.setAttribute(k, v === true ? '' : String(v));
    }
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    if (Array.isArray(c)) append(el, c);
    else if (c instanceof Node) el.appendChild(c);
    else el.appendChild(document.createTextNode(String(c)));
  }
}

/** Icon paths on a 24×24 grid, drawn with a stroke (1.75 px, round caps). */
const ICONS = {
  back: ['M15 5l-7 7 7 7'],
  down: ['M6 9l6 6 6-6'],
  close: ['M6 6l12 12', 'M18 6L6 18'],
  info: ['M12 17v-6', 'M12 7.5v.01', 'M12 21a9 9 0 100-18 9 9 0 000 18z'],
  branch: ['M6 3v12', 'M18 9a3 3 0 100-6 3 3 0 000 6z', 'M6 21a3 3 0 100-6 3 3 0 000 6z', 'M18 9a9 9 0 01-9 9'],
  pencil: ['M4 20h4L19 9a2.8 2.8 0 00-4-4L4 16v4z', 'M13.5 6.5l4 4'],
  check: ['M5 12.5l4.5 4.5L19 7'],
  lock: ['M7 11V8a5 5 0 0110 0v3', 'M5 11h14v10H5z'],
  keyboard: ['M3 6h18v12H3z', 'M7 10h.01', 'M11 10h.01', 'M15 10h.01', 'M8 14h8'],
  bell: ['M6 16V11a6 6 0 0112 0v5l2 2H4l2-2z', 'M10 21h4'],
  sent: ['M4 12l16-8-6 16-3-7-7-1z'],
  copy: ['M9 9h11v11H9z', 'M5 15H4V4h11v1'],
};

export function icon(name) {
  const svg = document.createElementNS(SVG_NS, 'svg');
  svg.setAttribute('viewBox', '0 0 24 24');
  svg.setAttribute('aria-hidden', 'true');
  svg.setAttribute('class', 'icon');
  for (const d of ICONS[name] || []) {
    const p = document.createElementNS(SVG_NS, 'path');
    p.setAttribute('d', d);
    svg.appendChild(p);
  }
  return svg;
}

let uid = 0;
/** A page-unique id with a readable prefix. */
export function nextId(prefix) {
  uid += 1;
  return `${prefix}-${uid}`;
}

/** Shows or hides an element (the `hidden` attribute; CSS keeps it hidden). */
export function show(el, on) {
  el.hidden = !on;
}

/** A label's "(Recommended)" / "(推荐)" suffix (ASCII or full-width parentheses). */
const RECOMMENDED = /\s*[(（]\s*(recommended|推荐)\s*[)）]\s*$/i;

/** {label, recommended}: the label to display and whether it carries the badge. */
export function displayLabel(label, recommended) {
  const m = RECOMMENDED.exec(label);
  if (m) return { label: label.slice(0, m.index), recommended: true };
  return { label, recommended: recommended === true };
}

/** "3 min", "2 h" … from milliseconds, with the given translator. */
export function duration(ms, t) {
  const min = Math.floor(ms / 60000);
  if (min < 1) return t('time.now');
  if (min < 60) return t('time.min', { n: min });
  const hours = Math.floor(min / 60);
  if (hours < 48) return t('time.hour', { n: hours });
  return t('time.day', { n: Math.floor(hours / 24) });
}

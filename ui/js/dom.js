// Element building without HTML strings: text goes in as text nodes, attributes through
// setAttribute (never event-handler attributes), icons as SVG elements.
//
// Text is shown as it reads: a control, bidirectional-override or zero-width character in
// agent text (which could reorder a label or make two options look the same) becomes a
// visible marker such as ⟨U+202E⟩, in text nodes and in the attributes a person reads. Data
// (values, data-* keys, what is sent back) keeps the raw text. askd-tui strips the same set.
import { t } from './i18n.js';

/** Controls, bidi controls, zero-width and other invisible format characters. */
const HIDDEN_CHAR = /[\0-\x08\x0B\x0C\x0E-\x1F\x7F-\x9F\xAD\u034F\u061C\u17B4\u17B5\u180E\u200B-\u200F\u202A-\u202E\u2060-\u206F\u3164\uFEFF\uFFA0\uFFF9-\uFFFB\u{1BCA0}-\u{1BCA3}\u{1D173}-\u{1D17A}\u{E0000}-\u{E007F}]/u;
/** Left as they are: a ZWJ inside an emoji sequence, a joiner after a letter of a script that
 * needs it (Arabic, Indic), the tag sequences of the three subdivision flags. */
const KEEP = /(?<=[\p{Extended_Pictographic}\p{Emoji_Modifier}]\uFE0F?)\u200D(?=\p{Extended_Pictographic})|(?<=[\p{scx=Arab}\p{scx=Syrc}\p{scx=Nkoo}\p{scx=Deva}\p{scx=Beng}\p{scx=Guru}\p{scx=Gujr}\p{scx=Orya}\p{scx=Taml}\p{scx=Telu}\p{scx=Knda}\p{scx=Mlym}\p{scx=Sinh}])[\u200C\u200D]|\u{1F3F4}\u{E0067}\u{E0062}(?:\u{E0065}\u{E006E}\u{E0067}|\u{E0073}\u{E0063}\u{E0074}|\u{E0077}\u{E006C}\u{E0073})\u{E007F}/u;
/** Group 1 is a character to reveal. */
const HIDDEN = new RegExp(`${KEEP.source}|(${HIDDEN_CHAR.source})`, 'gu');

/** "U+202E" for a character. */
function code(c) {
  return `U+${c.codePointAt(0).toString(16).toUpperCase().padStart(4, '0')}`;
}

/** `s` with each hidden character replaced by ⟨U+XXXX⟩ (for attributes and the page title). */
export function revealText(s) {
  s = String(s);
  if (!HIDDEN_CHAR.test(s)) return s;
  return s.replace(HIDDEN, (m, c) => (c ? `⟨${code(c)}⟩` : m));
}

/** A title as text without Markdown marks (`**db**` → db); snake_case and code spans stay. */
export function plainText(s) {
  s = String(s ?? '');
  // Quadratic at worst: past 1,000 characters the rest stays as it is.
  if (s.length > 1000) return plainText(s.slice(0, 1000)) + s.slice(1000);
  if (!/[*_`~[\\#>!<+-]|^\s*\d+[.)]\s/.test(s)) return s;
  return s.split(/(`+)([^`]|[^`][^]*?[^`])\1(?!`)/).map((part, i) => {
    if (i % 3 === 1) return '';
    if (i % 3 === 2) return part.replace(/^ (.*) $/, '$1');
    return part
      .replace(/\\([!-/:-@[-`{-~])/g, (m, c) => String.fromCodePoint(0xF0000 + c.charCodeAt(0)))
      .replace(/^[ \t]{0,3}(?:#{1,6}[ \t]+|>[ \t]?|[-*+][ \t]+|\d{1,9}[.)][ \t]+)/gm, '')
      .replace(/!?\[([^\]]*)\]\([^)\s]*(?:\s+"[^"]*")?\)/g, '$1')
      .replace(/<((?:https?|mailto):[^>\s]+)>/g, '$1')
      .replace(/(\*\*|__)(?=\S)([^]*?\S)\1/g, (m, d, x, o, all) => (d === '__' && (/\w/.test(all[o - 1] || '') || /\w/.test(all[o + m.length] || '')) ? m : x))
      .replace(/~~(?=\S)([^]*?\S)~~/g, '$1')
      .replace(/(^|[^\w*])\*(?=[^\s*])([^*]*?[^\s*])\*(?![\w*])/g, '$1$2')
      .replace(/(^|[^\w_])_(?=[^\s_])([^_]*?[^\s_])_(?![\w_])/g, '$1$2')
      .replace(/[\u{F0021}-\u{F007E}]/gu, (c) => String.fromCharCode(c.codePointAt(0) - 0xF0000));
  }).join('');
}

/** A text node of `s`, or a fragment where each hidden character is a marked ⟨U+XXXX⟩ span. */
export function textNode(s) {
  s = String(s);
  if (!HIDDEN_CHAR.test(s)) return document.createTextNode(s);
  const frag = document.createDocumentFragment();
  let last = 0;
  for (const m of s.matchAll(HIDDEN)) {
    if (!m[1]) continue;
    if (m.index > last) frag.appendChild(document.createTextNode(s.slice(last, m.index)));
    const c = code(m[1]);
    const mark = document.createElement('span');
    mark.className = 'hidden-char';
    mark.title = t('text.hidden', { code: c });
    mark.textContent = `⟨${c}⟩`;
    frag.appendChild(mark);
    last = m.index + m[0].length;
  }
  if (last < s.length) frag.appendChild(document.createTextNode(s.slice(last)));
  return frag;
}

/** Replaces el's children with the text `s` (hidden characters revealed). */
export function setText(el, s) {
  el.replaceChildren(textNode(s ?? ''));
}

/** Attributes a person reads (or hears): hidden characters are revealed there too. */
const READ_ATTRS = new Set(['title', 'aria-label', 'aria-description', 'placeholder', 'alt', 'data-tip']);

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
      else if (k === 'text') setText(el, v);
      else if (READ_ATTRS.has(k)) el.setAttribute(k, v === true ? '' : revealText(v));
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
    else el.appendChild(textNode(c));
  }
}

/** Icon paths on a 24×24 grid, drawn with a stroke (1.75 px, round caps). */
const ICONS = {
  back: ['M15 5l-7 7 7 7'],
  down: ['M6 9l6 6 6-6'],
  close: ['M6 6l12 12', 'M18 6L6 18'],
  ban: ['M12 21a9 9 0 100-18 9 9 0 000 18z', 'M5.7 5.7l12.6 12.6'],
  info: ['M12 17v-6', 'M12 7.5v.01', 'M12 21a9 9 0 100-18 9 9 0 000 18z'],
  branch: ['M6 3v12', 'M18 9a3 3 0 100-6 3 3 0 000 6z', 'M6 21a3 3 0 100-6 3 3 0 000 6z', 'M18 9a9 9 0 01-9 9'],
  pencil: ['M4 20h4L19 9a2.8 2.8 0 00-4-4L4 16v4z', 'M13.5 6.5l4 4'],
  check: ['M5 12.5l4.5 4.5L19 7'],
  lock: ['M7 11V8a5 5 0 0110 0v3', 'M5 11h14v10H5z'],
  keyboard: ['M3 6h18v12H3z', 'M7 10h.01', 'M11 10h.01', 'M15 10h.01', 'M8 14h8'],
  bell: ['M6 16V11a6 6 0 0112 0v5l2 2H4l2-2z', 'M10 21h4'],
  phone: ['M7 3h10v18H7z', 'M11 18h2'],
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

/**
 * "Asked earlier in this session; you answered: …" (alignment.md §5.7) for a question of an
 * ask view that repeats a decision already settled in its session, or null. Labels are
 * agent text: the notice is plain text.
 */
export function repeatNotice(view, questionId) {
  const r = view && view.repeats && view.repeats[questionId];
  if (!r) return null;
  const parts = [...(r.chosen || [])];
  if (r.custom) parts.push(`“${r.custom}”`);
  const el = document.createElement('p');
  el.className = 'repeat-notice';
  el.setAttribute('role', 'note');
  setText(el, t('repeat.notice', { labels: parts.join(', ') || '—' }));
  return el;
}

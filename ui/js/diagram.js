// Diagrams: askd renders the Mermaid source to SVG on the server; the page shows it only as
// <img> (an image never runs script). The URL names the source's SHA-256, the theme and the
// ask (where the server finds the source). A failure shows the source as text. The inline
// image is a preview: clicking it opens the diagram at its natural size in a dialog that
// scrolls and zooms (Esc closes). The URL comes from api.js: the page's is the daemon's
// address; the MCP App's (ui/app/api.js) is a data: URL of the SVG askd_app carries.
import { h, icon } from './dom.js';
import { diagramUrl } from './api.js';
import { t } from './i18n.js';
import { isDark, onThemeChange } from './theme.js';

export function theme() {
  return isDark() ? 'dark' : 'light';
}

async function sha256(text) {
  const bytes = new TextEncoder().encode(text);
  const digest = await crypto.subtle.digest('SHA-256', bytes);
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, '0')).join('');
}

function failed(container, source) {
  container.replaceChildren(
    h('p', { class: 'diagram-error' }, t('diagram.error')),
    h('pre', { class: 'diagram-source' }, h('code', null, source)),
  );
}

/** Fills container with the rendered diagram (loading text first, the source on failure). */
export async function showDiagram(container, source, askId) {
  container.replaceChildren(h('p', { class: 'muted' }, t('diagram.loading')));
  let hash;
  try {
    hash = await sha256(source);
  } catch {
    failed(container, source);
    return;
  }
  const load = async () => {
    let src;
    try {
      src = await diagramUrl(askId, hash, theme());
    } catch {
      failed(container, source);
      return;
    }
    const img = new Image();
    img.className = 'diagram';
    img.alt = t('diagram.alt');
    img.decoding = 'async';
    img.addEventListener('load', () => container.replaceChildren(h('button', {
      type: 'button', class: 'diagram-open', 'aria-label': t('diagram.open'), 'data-tip': t('diagram.open'),
      onclick: (e) => { e.stopPropagation(); openDiagram(img.src); },
    }, img)));
    img.addEventListener('error', () => {
      // desk-f: a host whose frame CSP allows no image at all (the MCP Inspector's, for an
      // app that lists no resource domain) refuses even a data: URL; the same SVG, checked
      // again here, is then drawn inline.
      const svg = src.startsWith('data:') ? inlineSvg(src) : null;
      if (!svg) {
        failed(container, source);
        return;
      }
      container.replaceChildren(h('button', {
        type: 'button', class: 'diagram-open', 'aria-label': t('diagram.open'), 'data-tip': t('diagram.open'),
        onclick: (e) => { e.stopPropagation(); openDiagram(src); },
      }, svg));
    });
    img.src = src;
  };
  load();
  const stop = onThemeChange(() => {
    if (container.isConnected) load();
    else stop();
  });
}

const ZOOMS = [0.5, 0.75, 1, 1.5, 2, 3];

/** The SVG of a data: URL as an inline element (class `diagram`), or null. The daemon
 * rebuilt it from an allow-list; here scripts, foreign content and event handlers are
 * dropped once more, and links keep only in-document targets. */
function inlineSvg(src, cls = 'diagram') {
  const text = decodeURIComponent(src.slice(src.indexOf(',') + 1));
  const doc = new DOMParser().parseFromString(text, 'image/svg+xml');
  const root = doc.documentElement;
  if (!root || root.localName !== 'svg' || doc.getElementsByTagName('parsererror').length) return null;
  for (const el of [root, ...root.querySelectorAll('*')]) {
    if (/^(script|foreignobject|iframe|object|embed|image|animate|set)$/i.test(el.localName)) {
      el.remove();
      continue;
    }
    for (const a of [...el.attributes]) {
      if (/^on/i.test(a.name) || (/href$/i.test(a.name) && !a.value.startsWith('#'))) el.removeAttribute(a.name);
    }
  }
  const svg = document.importNode(root, true);
  svg.setAttribute('class', cls);
  svg.setAttribute('role', 'img');
  svg.setAttribute('aria-label', t('diagram.alt'));
  return svg;
}

/**
 * A diagram's real size: the server's SVG is `width="100%"` with a `viewBox`, so an <img>
 * alone knows only its shape. The same file is read as text for its root's viewBox (only
 * four numbers are taken from it); null when it cannot be read.
 */
async function svgSize(src) {
  try {
    const text = src.startsWith('data:')
      ? decodeURIComponent(src.slice(src.indexOf(',') + 1))
      : await (await fetch(src, { credentials: 'same-origin' })).text();
    const m = /<svg\b[^>]*?\sviewBox="([^"]*)"/.exec(text);
    const box = m ? m[1].trim().split(/[\s,]+/).map(Number) : [];
    if (box.length === 4 && box[2] > 0 && box[3] > 0) return { w: box[2], h: box[3] };
  } catch {
    // Fall back to the image's own size.
  }
  return null;
}

/** The diagram at its real size in a modal dialog: scrolls both ways, − / 100% / + zoom. */
export function openDiagram(src) {
  let img = h('img', { class: 'diagram-full', alt: t('diagram.alt'), src });
  let zoom = 2; // index of 1 (the real size)
  let size = null;
  const level = h('span', { class: 'zoom-level', 'aria-live': 'polite' }, '100%');
  const apply = () => {
    const f = ZOOMS[zoom];
    const w = size ? size.w : img.naturalWidth;
    if (w) img.style.width = `${Math.round(w * f * 10) / 10}px`;
    level.textContent = `${Math.round(f * 100)}%`;
    out.disabled = zoom === 0;
    inn.disabled = zoom === ZOOMS.length - 1;
  };
  const step = (d) => () => { zoom = Math.min(ZOOMS.length - 1, Math.max(0, zoom + d)); apply(); };
  const out = h('button', { type: 'button', class: 'btn small', 'aria-label': t('diagram.zoomOut'), onclick: step(-1) }, '−');
  const inn = h('button', { type: 'button', class: 'btn small', 'aria-label': t('diagram.zoomIn'), onclick: step(1) }, '+');
  const close = h('button', { type: 'button', class: 'tool', 'aria-label': t('diagram.close'), onclick: () => dialog.close() }, icon('close'));
  const dialog = h('dialog', { class: 'dialog diagram-dialog', 'aria-label': t('diagram.alt') },
    h('div', { class: 'dialog-head' }, h('div', { class: 'zoom-tools' }, out, level, inn), close),
    h('div', { class: 'diagram-scroll' }, img));
  img.addEventListener('load', apply);
  img.addEventListener('error', () => {
    const svg = src.startsWith('data:') ? inlineSvg(src, 'diagram-full') : null;
    if (!svg) return;
    img.replaceWith(svg);
    img = svg;
    apply();
  });
  dialog.addEventListener('close', () => dialog.remove());
  document.body.appendChild(dialog);
  dialog.showModal();
  apply();
  close.focus();
  svgSize(src).then((s) => {
    size = s;
    dialog.dataset.ready = '';
    apply();
  });
  return dialog;
}

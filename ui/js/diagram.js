// Diagrams: askd renders the Mermaid source to SVG on the server; the page shows it only as
// <img> (an image never runs script). The URL names the source's SHA-256, the theme and the
// ask (where the server finds the source). A failure shows the source as text.
import { h } from './dom.js';
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
  const load = () => {
    const img = new Image();
    img.className = 'diagram';
    img.alt = t('diagram.alt');
    img.decoding = 'async';
    img.addEventListener('load', () => container.replaceChildren(img));
    img.addEventListener('error', () => failed(container, source));
    img.src = `/api/diagrams/${hash}.svg?theme=${theme()}&ask=${encodeURIComponent(askId)}`;
  };
  load();
  const stop = onThemeChange(() => {
    if (container.isConnected) load();
    else stop();
  });
}

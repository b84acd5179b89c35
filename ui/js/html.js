// THE ONE HTML SINK of askd's web UI. Every other module inserts text with textContent or
// builds elements with dom.js; only this function turns a string into markup. Its text goes
// through dom.js's textNode like all agent text (hidden characters shown as ⟨U+XXXX⟩).
//
// Why this is safe:
// 1. Its only input is the `rendered` member of GET /api/asks/{id}: Markdown that askd
//    rendered and sanitised on the server (pulldown-cmark with raw HTML shown as text, then
//    an ammonia allow-list: no script, no event handler, no style, no image, http/https/mailto
//    links only). Callers pass `view.rendered.…` and nothing else — never agent source text.
// 2. Defence in depth, the string is parsed with DOMParser into an inert document (nothing
//    in it loads or runs), then copied node by node through the same allow-list of tags and
//    attributes the server uses. Anything else is dropped (an unknown element keeps its text).
// 3. The page's CSP (script-src 'self', no inline script or style) would block an inline
//    handler or script even if both layers failed.

import { revealText, textNode } from './dom.js';

const TAGS = new Set([
  'P', 'BR', 'HR', 'H1', 'H2', 'H3', 'H4', 'H5', 'H6', 'STRONG', 'EM', 'DEL', 'CODE', 'PRE',
  'BLOCKQUOTE', 'UL', 'OL', 'LI', 'A', 'TABLE', 'THEAD', 'TBODY', 'TR', 'TH', 'TD',
]);
const DROP_WITH_CONTENT = new Set([
  'SCRIPT', 'STYLE', 'IFRAME', 'OBJECT', 'EMBED', 'SVG', 'MATH', 'NOSCRIPT', 'TEMPLATE',
  'TEXTAREA', 'TITLE', 'XMP', 'NOEMBED', 'NOFRAMES',
]);
const SAFE_URL = /^(https?:|mailto:)/i;

function copy(from, to) {
  for (const node of from.childNodes) {
    if (node.nodeType === Node.TEXT_NODE) {
      to.appendChild(textNode(node.nodeValue));
      continue;
    }
    if (node.nodeType !== Node.ELEMENT_NODE) continue;
    const tag = node.tagName.toUpperCase();
    if (DROP_WITH_CONTENT.has(tag)) continue;
    if (!TAGS.has(tag)) {
      copy(node, to);
      continue;
    }
    const el = document.createElement(tag);
    if (tag === 'A') {
      const href = node.getAttribute('href') || '';
      if (SAFE_URL.test(href.trim())) {
        el.setAttribute('href', href.trim());
        el.setAttribute('target', '_blank');
        el.setAttribute('rel', 'noreferrer noopener');
      }
      const title = node.getAttribute('title');
      if (title) el.setAttribute('title', revealText(title));
    } else if (tag === 'OL') {
      const start = node.getAttribute('start');
      if (start && /^\d{1,9}$/.test(start)) el.setAttribute('start', start);
    } else if (tag === 'CODE') {
      const cls = node.getAttribute('class');
      if (cls && /^language-[\w+#.-]{1,40}$/.test(cls)) el.setAttribute('class', cls);
    } else if (tag === 'TABLE' || tag === 'PRE') {
      // A table or a code block scrolls inside itself (app.css): it takes keyboard focus, so
      // the arrow keys scroll it too.
      el.setAttribute('tabindex', '0');
    }
    copy(node, el);
    to.appendChild(el);
  }
}

/** Replaces el's children with the server-sanitised HTML `html` (see the comment above). */
export function setSanitizedHtml(el, html) {
  el.replaceChildren();
  if (typeof html !== 'string' || html === '') return;
  const doc = new DOMParser().parseFromString(html, 'text/html');
  const frag = document.createDocumentFragment();
  copy(doc.body, frag);
  el.appendChild(frag);
}

// What the session page and the drift card share (alignment.md §6–§7): their strings and
// styles, the baseline's fields, timestamps and the drift reason's label.
import { h, icon } from './dom.js';
import { lang, t, addStrings } from './i18n.js';
import enStrings from '../i18n/align-en.js';
import zhStrings from '../i18n/align-zh-CN.js';

addStrings(enStrings, zhStrings);

let styles = null;
/** Loads css/align.css once (the inbox does not need it); resolves when it applies. */
export function alignStyles() {
  // The MCP App inlines css/align.css (crates/askd-mcp/src/app_html.rs): nothing to load.
  if (!styles && document.querySelector('style[data-askd-css~="align"]')) styles = Promise.resolve();
  if (!styles) {
    styles = new Promise((resolve) => {
      // Beside this module, under the same versioned prefix (long-lived caching).
      const link = h('link', { rel: 'stylesheet', href: new URL('../css/align.css', import.meta.url).href });
      link.addEventListener('load', () => resolve());
      link.addEventListener('error', () => resolve());
      document.head.appendChild(link);
    });
  }
  return styles;
}

export const FIELDS = ['goal', 'explicit_constraints', 'must_preserve', 'allowed_scope', 'user_decisions'];

const PROTECTED = new Set(['explicit_constraints', 'must_preserve']);

/** A timestamp in the chrome's language, or an em dash. */
export function when(at) {
  if (!at) return '—';
  const d = new Date(at);
  if (Number.isNaN(d.getTime())) return String(at);
  return d.toLocaleString(lang() === 'zh-CN' ? 'zh-CN' : 'en', {
    year: 'numeric', month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit',
  });
}

/**
 * A drift's reason label in the page's language, as the daemon serves it with every drift
 * (`reason_label: {en, "zh-CN"}`, the core's labels); without one, the reason token itself.
 */
export function reasonLabel(drift) {
  const labels = (drift && drift.reason_label) || {};
  return labels[lang()] || labels.en || String((drift && drift.reason) || '');
}

/** One baseline field's items as a list (goal is a single item). */
function items(baseline, field) {
  if (!baseline) return [];
  const v = baseline[field];
  if (field === 'goal') return v ? [v] : [];
  return Array.isArray(v) ? v : [];
}

/** The five baseline fields as a definition list, protected items marked. */
export function baselineFields(baseline, { all = false } = {}) {
  const list = h('dl', { class: 'bl-fields' });
  for (const field of FIELDS) {
    const values = items(baseline, field);
    if (!values.length && !all) continue;
    list.append(h('dt', { class: 'bl-name' }, t(`baseline.${field}`)));
    const dd = h('dd', { class: 'bl-value', 'data-field': field });
    if (!values.length) dd.append(h('span', { class: 'muted' }, '—'));
    else if (field === 'goal') dd.append(h('p', { class: 'bl-goal' }, values[0]));
    else {
      dd.append(h('ul', { class: 'bl-items' }, values.map((v) => h('li', {
        class: PROTECTED.has(field) ? 'bl-item protected' : 'bl-item',
      }, PROTECTED.has(field) ? h('span', {
        class: 'protect-mark', 'data-tip': t('drift.protected.hint'),
        'aria-label': t('drift.protected'), role: 'img',
      }, icon('lock')) : null, h('span', { class: 'bl-text' }, v),
      PROTECTED.has(field) ? h('span', { class: 'sr-only' }, ` (${t('drift.protected')})`) : null))));
    }
    list.append(dd);
  }
  return list;
}

// The question builder's progress card (survey.md §12.18): one card per draft in `building` or
// `reopened`, inside its session's group in the inbox, live through `draft.updated`. Collapsing
// leaves a one-line strip; the collapse is remembered per slug with {revision, status} and any
// change of either re-expands the card. On launch the card goes and the ask (the wizard) stays.
import { api } from './api.js';
import { h, icon } from './dom.js';
import { t } from './i18n.js';

const SHOWN = new Set(['building', 'reopened']);
const STORE = 'askd.builder.collapsed';

function readCollapsed() {
  try {
    return JSON.parse(localStorage.getItem(STORE) || '{}') || {};
  } catch {
    return {};
  }
}

function writeCollapsed(map) {
  try {
    localStorage.setItem(STORE, JSON.stringify(map));
  } catch {
    // Private mode or a full store: the collapse lasts for this page only.
  }
}

/** The bar's percentage: min(100, round(complete / questions × 100)). */
export function percent(progress) {
  const q = (progress && progress.questions) || 0;
  const c = (progress && progress.complete) || 0;
  return q > 0 ? Math.min(100, Math.round((c / q) * 100)) : 0;
}

export class Builder {
  /** sessions: the inbox's session map (filled for draft-only sessions); onChange: re-render. */
  constructor({ sessions, onChange }) {
    this.sessionMap = sessions;
    this.onChange = onChange;
    this.drafts = new Map(); // slug → {session, slug, title, status, revision, updatedAt, progress, file, …}
    this.collapsed = readCollapsed();
    this.onFrame = (e) => {
      try {
        this.apply(JSON.parse(e.data));
      } catch {
        // A malformed frame is ignored; the next load corrects the state.
      }
    };
  }

  /** Listens to `draft.updated` on the page's event stream. */
  mount(live) {
    this.source = live && live.source;
    if (this.source) this.source.addEventListener('draft.updated', this.onFrame);
  }

  unmount() {
    if (this.source) this.source.removeEventListener('draft.updated', this.onFrame);
    this.source = null;
  }

  /** The manifest (and the sessions, for groups that hold only a draft); never rejects. */
  async load() {
    try {
      const m = await api('GET', '/api/drafts');
      for (const [slug, d] of Object.entries((m && m.drafts) || {})) this.apply({ ...d, slug }, true);
      if (this.missingSession()) {
        const s = await api('GET', '/api/sessions').catch(() => null);
        for (const x of (s && s.sessions) || []) {
          if (!this.sessionMap.has(x.id)) this.sessionMap.set(x.id, { client: x.client, workspace: x.workspace });
        }
      }
    } catch {
      // The inbox reports network trouble itself; the cards keep their last state.
    }
  }

  missingSession() {
    return [...this.drafts.values()].some((d) => SHOWN.has(d.status) && d.session && !this.sessionMap.has(d.session));
  }

  /** Applies a manifest entry or an event frame idempotently: an older frame never rolls back. */
  apply(d, quiet = false) {
    if (!d || typeof d.slug !== 'string') return;
    const held = this.drafts.get(d.slug);
    if (held) {
      const older = (Date.parse(d.updatedAt) || 0) < (Date.parse(held.updatedAt) || 0)
        || (typeof d.revision === 'number' && d.revision < held.revision);
      if (older) return;
    }
    const next = { ...(held || {}), ...d };
    if (!next.session && held) next.session = held.session;
    this.drafts.set(d.slug, next);
    if (!quiet) {
      if (this.missingSession()) this.load().then(() => this.onChange());
      this.onChange();
    }
  }

  /** Sessions that have at least one card. */
  sessions() {
    const out = [];
    for (const d of this.drafts.values()) {
      if (SHOWN.has(d.status) && d.session && !out.includes(d.session)) out.push(d.session);
    }
    return out;
  }

  isCollapsed(d) {
    const c = this.collapsed[d.slug];
    return !!c && c.revision === d.revision && c.status === d.status;
  }

  toggle(d) {
    if (this.isCollapsed(d)) delete this.collapsed[d.slug];
    else this.collapsed[d.slug] = { revision: d.revision, status: d.status };
    writeCollapsed(this.collapsed);
    this.onChange();
    const again = document.querySelector(`.builder-card[data-slug="${CSS.escape(d.slug)}"] .builder-toggle`);
    if (again) again.focus();
  }

  /** The cards of one session (an empty array when it has none). */
  cards(session) {
    const list = [...this.drafts.values()]
      .filter((d) => d.session === session && SHOWN.has(d.status))
      .sort((a, b) => (Date.parse(b.updatedAt) || 0) - (Date.parse(a.updatedAt) || 0));
    return list.map((d) => this.card(d));
  }

  card(d) {
    const collapsed = this.isCollapsed(d);
    const pct = percent(d.progress);
    const p = d.progress || {};
    const q = p.questions || 0;
    const c = p.complete || 0;
    const m = p.missingFields || 0;
    const counts = t('builder.progress', { c, q }) + (m > 0 ? ` · ${t('builder.missing', { m })}` : '');
    const title = d.title || t('builder.untitled');
    const bar = () => {
      const fill = h('div', { class: 'bar-fill' });
      fill.style.width = `${pct}%`; // CSSOM: the page's CSP forbids style attributes.
      return h('div', {
        class: 'bar builder-bar', role: 'progressbar', 'aria-valuemin': '0', 'aria-valuemax': '100',
        'aria-valuenow': String(pct), 'aria-label': counts,
      }, fill);
    };
    const head = h('div', { class: 'builder-head' },
      h('span', { class: 'builder-eyebrow' }, t('builder.eyebrow')),
      h('span', { class: 'builder-title', text: title }),
      h('span', { class: `chip builder-status status-${d.status}` }, t(`builder.status.${d.status}`)),
      collapsed ? h('span', { class: 'builder-pct' }, `${pct}%`) : null,
      h('span', { class: 'builder-rev' }, t('builder.revision', { r: d.revision ?? 0 })),
      h('button', {
        type: 'button', class: 'tool builder-toggle', 'aria-expanded': collapsed ? 'false' : 'true',
        'aria-label': collapsed ? t('builder.expand') : t('builder.collapse'),
        'data-tip': collapsed ? t('builder.expand') : t('builder.collapse'),
        onclick: () => this.toggle(d),
      }, icon('down')));
    return h('div', {
      class: `builder-card${collapsed ? ' collapsed' : ''}`, 'data-slug': d.slug,
      'data-status': d.status, 'data-revision': String(d.revision ?? 0),
    },
    head,
    collapsed ? h('div', { class: 'builder-strip-bar' }, bar()) : h('div', { class: 'builder-body' },
      bar(),
      h('div', { class: 'builder-counts' }, counts),
      d.file ? h('div', { class: 'builder-file', text: d.file }) : null));
  }
}

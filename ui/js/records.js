// The Records page (`/records`, loaded only there): every settled ask with its answers, who
// asked (client, workspace), where it was answered (surface) and when; filters by session,
// kind, dates and text, all applied by the daemon (`GET /api/records`), 50 per page with
// "Load more" (the `next` cursor); Export JSON downloads the whole filtered list. The filters
// are the page's query (`/records?kind=drift&q=…`), so Back and a reload keep them. A drift's
// record shows its decision and note. Agent text is text: titles without Markdown marks,
// answers through the settled pages' answer list.
import { api } from './api.js';
import { h, plainText, nextId } from './dom.js';
import { t, addStrings } from './i18n.js';
import { answerList, surveyResult, questionsResult } from './questions.js';
import { decisionLines, driftState } from './drift.js';
import enStrings from '../i18n/records-en.js';
import zhStrings from '../i18n/records-zh-CN.js';

addStrings(enStrings, zhStrings);

export const PAGE = 50;
const KINDS = ['survey', 'questions', 'review', 'drift'];
const DAY = /^\d{4}-\d{2}-\d{2}$/;

/** The title a record shows: the survey's title, else its first question, else its kind. */
export function recordTitle(r) {
  const rec = r.record || {};
  const spec = rec.spec || {};
  const first = Array.isArray(spec.questions) ? spec.questions[0] : null;
  const text = rec.title || spec.title || (first && (first.question || first.prompt)) || '';
  return plainText(text).trim() || (r.kind === 'drift' ? t('drift.badge') : t(`kind.${r.kind}`));
}

/** One answer of a kind without its own list (review, drift): its members as short text. */
function plainAnswer(a, i) {
  if (!a || typeof a !== 'object') return { id: String(i), prompt: String(a ?? ''), picks: [] };
  const parts = [];
  for (const [k, v] of Object.entries(a)) {
    if (k === 'id' || v === null || v === undefined || v === '') continue;
    const s = Array.isArray(v) ? v.map((x) => (typeof x === 'object' ? JSON.stringify(x) : String(x))).join(', ')
      : typeof v === 'object' ? JSON.stringify(v) : String(v);
    parts.push({ label: `${k}: ${s}` });
  }
  return { id: String(a.id ?? i), prompt: String(a.id ?? i + 1), picks: parts };
}

/** A record's answers as answer-list items. */
export function recordItems(r) {
  const rec = r.record || {};
  if (!Array.isArray(rec.answers)) return [];
  const result = { answers: rec.answers, skipped: rec.skipped || [], path: rec.path };
  try {
    if (r.kind === 'survey' && rec.spec && rec.spec.questions) return surveyResult(rec.spec, {}, result);
    if (r.kind === 'questions' && rec.spec && Array.isArray(rec.spec.questions)) return questionsResult(rec.spec.questions, {}, result);
  } catch {
    // An unexpected shape falls back to the plain list.
  }
  return rec.answers.map(plainAnswer);
}

function localDay(value, next) {
  // A date input's day, at local midnight, as the instant the daemon compares.
  const d = new Date(`${value}T00:00:00`);
  if (Number.isNaN(d.getTime())) return null;
  if (next) d.setDate(d.getDate() + 1);
  return d.toISOString();
}

export class RecordsPage {
  constructor(root, ctx) {
    this.root = root;
    this.ctx = ctx;
    this.records = [];
    this.next = null;
    this.gen = 0;
  }

  async mount() {
    document.title = `${t('records.title')} · askd`;
    this.build();
    let sessions = [];
    try {
      sessions = (await api('GET', '/api/sessions')).sessions || [];
    } catch {
      // The list still works without the session names.
    }
    for (const s of sessions) {
      const label = [s.client, s.workspace, s.id.slice(0, 8)].filter(Boolean).join(' · ');
      this.session.appendChild(h('option', { value: s.id }, label));
    }
    this.restore(new URLSearchParams(location.search));
    await this.load(false);
  }

  unmount() {
    this.gen += 1;
    clearTimeout(this.typing);
  }

  field(label, input) {
    const id = nextId('rec');
    input.id = id;
    return h('div', { class: 'rec-field' }, h('label', { for: id }, label), input);
  }

  build() {
    this.session = h('select', { class: 'rec-session', name: 'session' },
      h('option', { value: '' }, t('records.session.all')));
    this.kind = h('select', { class: 'rec-kind', name: 'kind' },
      h('option', { value: '' }, t('records.kind.all')),
      KINDS.map((k) => h('option', { value: k }, t(`kind.${k}`))));
    this.from = h('input', { type: 'date', class: 'rec-from', name: 'from' });
    this.to = h('input', { type: 'date', class: 'rec-to', name: 'to' });
    this.text = h('input', { type: 'search', class: 'rec-text', name: 'q', placeholder: t('records.search.placeholder') });
    for (const el of [this.session, this.kind, this.from, this.to]) el.addEventListener('change', () => this.load(false));
    this.text.addEventListener('input', () => {
      clearTimeout(this.typing);
      this.typing = setTimeout(() => this.load(false), 250);
    });
    this.exportBtn = h('button', { type: 'button', class: 'btn rec-export', onclick: () => this.exportJson() }, t('records.export'));
    this.moreBtn = h('button', { type: 'button', class: 'btn rec-more', hidden: true, onclick: () => this.load(true) }, t('records.more'));
    this.status = h('p', { class: 'muted rec-status', role: 'status', 'aria-live': 'polite' });
    this.alert = h('div', { class: 'alert', role: 'alert' });
    this.list = h('ol', { class: 'rec-list' });
    this.root.replaceChildren(h('div', { class: 'records' },
      h('header', { class: 'inbox-head rec-head' },
        h('a', { href: '/', class: 'btn ghost', 'data-nav': '' }, t('back.inbox')),
        h('h1', { class: 'inbox-title' }, t('records.title'))),
      h('p', { class: 'muted' }, t('records.intro')),
      h('form', { class: 'rec-filters', role: 'search', onsubmit: (e) => { e.preventDefault(); this.load(false); } },
        this.field(t('records.session'), this.session),
        this.field(t('records.kind'), this.kind),
        this.field(t('records.from'), this.from),
        this.field(t('records.to'), this.to),
        this.field(t('records.search'), this.text),
        h('div', { class: 'rec-field rec-actions' }, this.exportBtn)),
      this.alert, this.status, this.list, this.moreBtn));
  }

  /** Sets the filters from the page's query (`session`, `kind`, `from`, `to`, `q`). */
  restore(params) {
    const session = params.get('session');
    if (session) {
      // A session the list does not name (ended long ago) still filters, under its id.
      if (![...this.session.options].some((o) => o.value === session)) this.session.appendChild(h('option', { value: session }, session));
      this.session.value = session;
    }
    const kind = params.get('kind');
    if (KINDS.includes(kind)) this.kind.value = kind;
    for (const [name, input] of [['from', this.from], ['to', this.to]]) {
      const day = params.get(name);
      if (day && DAY.test(day)) input.value = day;
    }
    this.text.value = params.get('q') || '';
  }

  /** The filters as the page's own query, replacing this history entry (Back leaves Records). */
  remember() {
    const q = new URLSearchParams();
    for (const [name, value] of [['session', this.session.value], ['kind', this.kind.value], ['from', this.from.value], ['to', this.to.value], ['q', this.text.value.trim()]]) {
      if (value) q.set(name, value);
    }
    const url = `${location.pathname}${q.toString() ? `?${q}` : ''}`;
    if (url !== `${location.pathname}${location.search}`) history.replaceState(history.state, '', url);
  }

  /** The query of the filters (without limit and cursor). */
  query() {
    const q = new URLSearchParams();
    if (this.session.value) q.set('session', this.session.value);
    if (this.kind.value) q.set('kind', this.kind.value);
    const since = this.from.value && localDay(this.from.value, false);
    const until = this.to.value && localDay(this.to.value, true);
    if (since) q.set('since', since);
    if (until) q.set('until', until);
    if (this.text.value.trim()) q.set('q', this.text.value.trim());
    return q;
  }

  async load(more) {
    const gen = ++this.gen;
    if (!more) this.remember();
    const q = this.query();
    q.set('limit', String(PAGE));
    if (more && this.next) q.set('after', this.next);
    this.alert.textContent = '';
    let page;
    try {
      page = await api('GET', `/api/records?${q}`);
    } catch (e) {
      if (gen !== this.gen) return;
      this.alert.textContent = e.status === 0 ? t('error.network') : e.message;
      return;
    }
    if (gen !== this.gen) return;
    if (!more) {
      this.records = [];
      this.list.replaceChildren();
    }
    this.records.push(...page.records);
    this.next = page.next || null;
    for (const r of page.records) this.list.appendChild(this.row(r));
    this.moreBtn.hidden = !this.next;
    this.status.textContent = this.records.length
      ? t(this.next ? 'records.countMore' : 'records.count', { n: this.records.length })
      : t('records.none');
  }

  row(r) {
    const rec = r.record || {};
    const when = new Date(r.settled_at);
    const meta = [
      t(`kind.${r.kind}`), t(`outcome.${r.outcome}`),
      [rec.client, rec.workspace].filter(Boolean).join(' · '),
      rec.surface ? t('records.surface', { surface: rec.surface }) : null,
      rec.answered_by && rec.answered_by.name ? t('who.answeredBy', { name: rec.answered_by.name }) : null,
      rec.defaulted ? t('records.defaulted') : null,
      // Snooze (issue 35): the human had put the ask off.
      rec.deferred_until ? t('records.putOff', { t: new Date(rec.deferred_until).toLocaleString() }) : null,
      Array.isArray(rec.escalated) && rec.escalated.length ? t('records.escalated', { to: rec.escalated.map((e) => e.to).join(' → ') }) : null,
      // Approvals (issue 35): every member's vote, and how it settled.
      Array.isArray(rec.votes) && rec.approvals ? t(rec.approvals.decided_by === 'rejection' ? 'records.rejected' : 'records.votes', {
        n: rec.votes.length, required: rec.approvals.required,
        names: rec.votes.map((v) => (v.answered_by && v.answered_by.name) || '?').join(', '),
      }) : null,
    ].filter(Boolean).join(' · ');
    const items = recordItems(r);
    return h('li', { class: `rec card outcome-${r.outcome}`, 'data-ask-id': r.ask_id, 'data-kind': r.kind },
      h('div', { class: 'rec-top' },
        h('h2', { class: 'rec-title' }, recordTitle(r)),
        h('a', { href: `/a/${encodeURIComponent(r.ask_id)}`, class: 'btn ghost small', 'data-nav': '' }, t('records.open'))),
      h('p', { class: 'rec-meta' }, meta, ' · ',
        h('time', { datetime: r.settled_at, title: r.settled_at }, Number.isNaN(when.getTime()) ? r.settled_at : when.toLocaleString())),
      r.kind === 'drift' ? this.driftDecision(rec)
        : items.length ? answerList(items) : h('p', { class: 'answer-none' }, t('records.answers.none', { outcome: t(`outcome.${r.outcome}`) })));
  }

  /** A drift's record: the change it asked for, the decision (or how it closed) and the note. */
  driftDecision(rec) {
    const res = rec.result || {};
    const state = res.outcome && res.outcome !== 'decided' ? res.outcome : driftState(rec.outcome);
    return h('div', { class: 'rec-drift' },
      res.required_change ? h('p', { class: 'rec-drift-change' }, h('span', { class: 'muted' }, t('drift.required')), ' ', res.required_change) : null,
      decisionLines(res, state));
  }

  /** Downloads every record the filters select (all pages), as JSON. */
  async exportJson() {
    const q = this.query();
    q.set('limit', '500');
    const all = [];
    this.exportBtn.disabled = true;
    this.status.textContent = t('records.exporting');
    try {
      for (let after = null; ;) {
        if (after) q.set('after', after);
        const page = await api('GET', `/api/records?${q}`);
        all.push(...page.records);
        if (!page.next) break;
        after = page.next;
      }
    } catch (e) {
      this.alert.textContent = e.status === 0 ? t('error.network') : e.message;
      return;
    } finally {
      this.exportBtn.disabled = false;
      this.status.textContent = this.records.length
        ? t(this.next ? 'records.countMore' : 'records.count', { n: this.records.length })
        : t('records.none');
    }
    const blob = new Blob([JSON.stringify({ records: all }, null, 2)], { type: 'application/json' });
    const url = URL.createObjectURL(blob);
    const a = h('a', { href: url, download: `askd-records-${new Date().toISOString().slice(0, 10)}.json`, hidden: true });
    document.body.appendChild(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 1000);
  }
}

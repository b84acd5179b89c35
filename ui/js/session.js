// The session page (`/sessions/{id}`, alignment.md §7): a session's alignment state — header
// and lineage, the status strip, the mode switch, questions, checks, the baseline with its
// revision history, the drift log and the connections — from GET
// /api/sessions/{id}/alignment (full detail), live through the event stream.
//
// Every piece of agent text (questions, labels, baseline items, drift descriptions) is
// inserted as text. Stale data never lands: a view belongs to one session id, it is dropped
// on navigation (`gone`), and each response is applied only if it is the latest request of
// that view and names the same session.
import { api, ask as askApi } from './api.js';
import { setSanitizedHtml } from './html.js';
import { h, icon, setText, plainText } from './dom.js';
import { t } from './i18n.js';
import { FIELDS, alignStyles, baselineFields, reasonLabel, when } from './align.js';

const MODES = ['auto', 'manual', 'off'];
/** Alignment event kinds pushed on /api/events (alignment.md §4.4). */
const ALIGNMENT_KINDS = [
  'alignment.mode_set', 'alignment.checked', 'alignment.baseline_recorded',
  'alignment.baseline_refused', 'alignment.drift_reported', 'alignment.drift_decided',
  'alignment.drift_closed', 'session.started', 'session.attached',
];

/** Server-sanitised HTML into `el`, or the source as text when there is none. */
function sanitized(el, html, text) {
  if (html) setSanitizedHtml(el, html);
  else setText(el, text || '');
  return el;
}

/** Lower case, whitespace collapsed, trailing punctuation removed (the repeat marker rule). */
function normalizeQuestion(q) {
  return String(q || '').toLowerCase().replace(/\s+/g, ' ').trim().replace(/[\s\p{P}]+$/u, '');
}

export class SessionPage {
  constructor(root, id, ctx) {
    this.root = root;
    this.id = id;
    this.ctx = ctx;
    this.data = null;
    this.failed = null;
    this.seq = 0;
    this.gone = false;
    this.busy = false;
    this.modeError = '';
    this.onFrame = (e) => this.frame(e);
    this.onOpen = () => {
      // A reconnect: the stream replays from Last-Event-ID, but the page re-reads the state.
      if (this.lost) this.load();
      this.lost = false;
    };
    this.onError = () => {
      this.lost = true;
    };
  }

  async mount() {
    document.title = `${t('session.title')} ${this.id} · askd`;
    await alignStyles();
    if (this.gone) return;
    this.build();
    this.unsubscribe = this.ctx.live.subscribe((e) => this.event(e));
    this.source = this.ctx.live.source || null;
    if (this.source) {
      for (const k of ALIGNMENT_KINDS) this.source.addEventListener(k, this.onFrame);
      this.source.addEventListener('open', this.onOpen);
      this.source.addEventListener('error', this.onError);
    }
    await this.load();
  }

  unmount() {
    this.gone = true;
    this.dropCard();
    if (this.unsubscribe) this.unsubscribe();
    if (this.source) {
      for (const k of ALIGNMENT_KINDS) this.source.removeEventListener(k, this.onFrame);
      this.source.removeEventListener('open', this.onOpen);
      this.source.removeEventListener('error', this.onError);
    }
    this.source = null;
  }

  /** Reads the full state; only the latest request of a live view is applied. */
  async load() {
    if (this.gone || !this.id) return;
    this.seq += 1;
    const seq = this.seq;
    try {
      const d = await api('GET', `/api/sessions/${encodeURIComponent(this.id)}/alignment`);
      if (this.gone || seq !== this.seq || !d || !d.session || d.session.id !== this.id) return;
      this.keepOlder(d, this.data);
      this.data = d;
      this.failed = null;
    } catch (e) {
      if (this.gone || seq !== this.seq) return;
      this.failed = e;
    }
    this.render();
  }

  /** Ask events of this session, and polls while the stream is down. */
  event({ kind, data }) {
    if (this.gone) return;
    if (kind === 'poll') {
      this.load();
      return;
    }
    if (data && data.session === this.id && (kind === 'ask.created' || kind === 'ask.settled')) this.load();
  }

  /** Alignment events straight off the EventSource, filtered to this session. */
  frame(e) {
    if (this.gone) return;
    let data = null;
    try {
      data = JSON.parse(e.data);
    } catch {
      return;
    }
    if (data && data.session === this.id) this.load();
  }

  build() {
    this.pill = h('span', { class: 'pill mode-pill', role: 'status', 'aria-live': 'polite' }, t('session.pill.loading'));
    this.posture = h('span', { class: 'pill posture-pill', hidden: true });
    this.counts = h('span', { class: 'strip-counts muted' });
    this.alert = h('p', { class: 'alert session-alert', role: 'alert' });
    this.banner = h('div', { class: 'pending-banner', role: 'status', hidden: true });
    this.modeButtons = new Map();
    for (const m of [...MODES, 'default']) {
      const b = h('button', {
        type: 'button', class: 'mode-btn', 'data-mode': m, 'aria-pressed': 'false', disabled: true,
        onclick: () => this.setMode(m),
      }, m === 'default' ? t('session.switch.default', { mode: '…' }) : t(`session.mode.${m}`));
      this.modeButtons.set(m, b);
    }
    this.modeAlert = h('p', { class: 'mode-error', role: 'alert' });
    this.body = h('div', { class: 'session-body' });
    this.idText = h('code', { class: 'session-id' }, this.id);
    this.copyBtn = h('button', {
      type: 'button', class: 'tool copy-id', 'aria-label': t('session.copy'), 'data-tip': t('session.copy'),
      onclick: () => this.copy(),
    }, icon('copy'));
    this.meta = h('dl', { class: 'session-meta' });
    this.root.replaceChildren(h('div', { class: 'session-page' },
      h('nav', { class: 'session-nav' },
        h('a', { href: '/', class: 'btn ghost small', 'data-nav': '' }, icon('back'), t('back.inbox'))),
      h('section', { class: 'card session-card', 'aria-labelledby': 'session-heading' },
        h('header', { class: 'session-header' },
          h('div', { class: 'eyebrow' }, t('session.title')),
          h('h1', { class: 'session-heading', id: 'session-heading' }, this.idText, this.copyBtn),
          this.meta),
        h('div', { class: 'status-strip' }, this.pill, this.posture, this.counts),
        h('div', { class: 'mode-switch' },
          h('div', { class: 'segmented', role: 'group', 'aria-label': t('session.switch') }, [...this.modeButtons.values()]),
          h('p', { class: 'mode-note muted' }, t('session.switch.note')),
          this.modeAlert)),
      this.banner, this.alert, this.body));
  }

  async copy() {
    try {
      await navigator.clipboard.writeText(this.id);
    } catch {
      const r = document.createRange();
      r.selectNodeContents(this.idText);
      const sel = getSelection();
      sel.removeAllRanges();
      sel.addRange(r);
      return;
    }
    this.copyBtn.setAttribute('data-tip', t('session.copied'));
    this.copyBtn.classList.add('ok');
    setTimeout(() => {
      this.copyBtn.setAttribute('data-tip', t('session.copy'));
      this.copyBtn.classList.remove('ok');
    }, 1500);
  }

  async setMode(mode) {
    if (this.busy || !this.data || this.gone) return;
    this.busy = true;
    this.modeError = '';
    this.renderSwitch();
    // A read in flight now carries the old mode: it is superseded by the re-read below.
    this.seq += 1;
    try {
      await api('PUT', `/api/sessions/${encodeURIComponent(this.id)}/alignment/mode`, { mode });
      this.busy = false;
      if (this.gone) return;
      await this.load();
    } catch (e) {
      this.busy = false;
      if (this.gone) return;
      const problem = e.body && Array.isArray(e.body.errors) && e.body.errors[0];
      const message = e.status === 0 ? t('error.network') : (problem && problem.message) || e.message;
      this.modeError = t('session.switch.error', { message });
      this.renderSwitch();
    }
  }

  render() {
    if (this.gone) return;
    const d = this.data;
    if (!d) {
      this.pill.textContent = this.failed ? t('session.pill.unknown') : t('session.pill.loading');
      this.pill.className = `pill mode-pill${this.failed ? ' unknown' : ''}`;
      this.alert.textContent = this.failed
        ? (this.failed.status === 404 ? t('session.notFound') : t('session.loadError')) : '';
      this.renderSwitch();
      return;
    }
    // A failed re-read keeps the last good state on screen, with the error beside it.
    this.alert.textContent = this.failed ? t('session.loadError') : '';
    this.renderMeta(d);
    this.renderStrip(d);
    this.renderSwitch();
    this.renderBanner(d);
    this.body.replaceChildren(
      this.questions(d), this.checks(d), this.baseline(d), this.driftLog(d), this.connections(d));
  }

  renderMeta(d) {
    const s = d.session || {};
    const lineage = s.origin === 'fork' && s.parent
      ? [t('session.lineage.fork', { id: '\u0000', seq: s.fork_at ?? '?' })
        .split('\u0000').map((part, i) => (i === 0 ? part : [
          h('a', { href: `/sessions/${encodeURIComponent(s.parent)}`, 'data-nav': '', class: 'mono' }, s.parent), part]))]
      : t('session.lineage.new');
    const row = (key, value) => [h('dt', null, t(key)), h('dd', null, value)];
    this.meta.replaceChildren(
      ...row('session.meta.client', s.client || t('session.unknownValue')),
      ...row('session.meta.transport', s.transport || t('session.unknownValue')),
      ...row('session.meta.started', when(s.started_at)),
      ...row('session.meta.activity', when(s.last_activity_at)),
      ...row('session.meta.lineage', lineage));
  }

  renderStrip(d) {
    const m = d.mode || {};
    this.pill.className = `pill mode-pill mode-${m.effective}`;
    this.pill.textContent = '';
    this.pill.append(
      h('span', { class: 'pill-main' }, t('session.mode.label', { mode: t(`session.mode.${m.effective}`) })),
      h('span', { class: 'pill-source' }, t(`session.source.${m.source}`)));
    this.posture.hidden = false;
    this.posture.className = `pill posture-pill posture-${d.posture}`;
    this.posture.replaceChildren(h('span', { class: 'dot', 'aria-hidden': 'true' }), t(`session.posture.${d.posture}`));
    this.counts.textContent = t('session.counts', {
      r: d.rounds ?? 0, c: (d.manual_checks && d.manual_checks.count) ?? 0, d: (d.drifts || []).length,
    });
  }

  renderSwitch() {
    const d = this.data;
    const m = (d && d.mode) || null;
    const override = m ? m.session_override : null;
    for (const [mode, b] of this.modeButtons) {
      if (mode === 'default') {
        b.textContent = t('session.switch.default', {
          mode: m ? t(`session.mode.${m.configured}`) : '…',
        });
        b.setAttribute('aria-pressed', String(!!m && !override));
        b.disabled = !m || this.busy || !override;
      } else {
        b.setAttribute('aria-pressed', String(!!m && override === mode));
        b.disabled = !m || this.busy;
      }
    }
    this.modeAlert.textContent = this.modeError;
  }

  renderBanner(d) {
    const open = d.drift && d.drift.open;
    if (d.posture === 'drift-pending' && open) {
      const parts = [t('session.banner.drift', { id: open.drift_id, reason: reasonLabel(open) })];
      if (open.ask_id) {
        parts.push(' ', h('a', { href: `/a/${encodeURIComponent(open.ask_id)}`, 'data-nav': '', class: 'banner-link' }, t('drift.open')));
      }
      this.banner.className = 'pending-banner drift';
      this.banner.replaceChildren(icon('info'), h('span', null, parts));
      this.banner.hidden = false;
    } else if (d.posture === 'baseline-update-pending') {
      const queue = (d.drift && d.drift.pending_updates) || [];
      const clauses = queue.map((q) => (q.decision === 'revise' && q.choice
        ? t('session.banner.chose', { choice: q.choice }) : t('session.banner.approved'))).join('; ');
      this.banner.className = 'pending-banner update';
      this.banner.replaceChildren(icon('info'), h('span', null, t('session.banner.update', {
        ids: queue.map((q) => q.drift_id).join(', '), clauses,
      })));
      this.banner.hidden = false;
    } else {
      this.banner.hidden = true;
      this.banner.replaceChildren();
    }
  }

  section(key, id, ...children) {
    return h('section', { class: 'card session-section', 'aria-labelledby': `sec-${id}`, 'data-section': id },
      h('h2', { class: 'sec-title', id: `sec-${id}` }, t(key)), ...children);
  }

  /**
   * The view lists the newest page of settled decisions (`settled_decisions_page`: from, to,
   * total); older pages are read on demand. Once older ones were read, a re-read keeps them
   * and the previous page's, up to where the new page starts.
   */
  keepOlder(d, prev) {
    const page = d.settled_decisions_page || { from: 0 };
    const o = this.older;
    const prevPage = prev && prev.settled_decisions_page;
    if (!o || !prevPage || o.items.length === 0 || prev.session.id !== d.session.id) {
      this.older = { from: page.from, to: page.from, items: [] };
      return;
    }
    const items = [...o.items, ...(prev.settled_decisions || [])];
    const to = o.from + items.length;
    this.older = to < page.from
      ? { from: page.from, to: page.from, items: [] }
      : { from: o.from, to: page.from, items: items.slice(0, page.from - o.from) };
  }

  async showOlder() {
    const o = this.older;
    if (!o || o.from === 0 || this.loadingOlder) return;
    this.loadingOlder = true;
    try {
      const r = await api('GET', `/api/sessions/${encodeURIComponent(this.id)}/alignment/decisions?before=${o.from}&limit=50`);
      if (this.gone || this.older !== o) return;
      const items = r.settled_decisions || [];
      this.older = { from: o.from - items.length, to: o.to, items: [...items, ...o.items] };
      this.failed = null;
    } catch (e) {
      this.failed = e;
    } finally {
      this.loadingOlder = false;
    }
    this.render();
  }

  questions(d) {
    const list = [...(this.older ? this.older.items : []), ...(d.settled_decisions || [])];
    const first = this.older ? this.older.from : 0;
    if (!list.length) {
      return this.section('session.questions', 'questions',
        h('p', { class: 'sec-sub muted' }, t('session.rounds', { n: d.rounds || 0 })),
        h('p', { class: 'empty-line' }, t('session.questions.empty')));
    }
    // The decisions of one ask (consecutive in the list) form one group: when it settled and
    // by which tool are said once, for all its questions.
    const groups = [];
    for (const q of list) {
      const last = groups[groups.length - 1];
      if (last && last[0].ask_id === q.ask_id) last.push(q);
      else groups.push([q]);
    }
    // A phone stacks each group as a card: an answer names its column there (css/align.css).
    const label = (key) => h('span', { class: 'cell-label' }, `${t(key)} `);
    const seen = new Set();
    const groupRows = (g) => g.map((q, i) => {
      const key = normalizeQuestion(q.question);
      const repeat = seen.has(key);
      seen.add(key);
      const chosen = q.chosen || [];
      const span = g.length > 1 ? String(g.length) : null;
      return h('tr', { 'data-ask-id': q.ask_id },
        i === 0 ? [
          h('td', { class: 'when', rowspan: span }, h('a', { href: `/a/${encodeURIComponent(q.ask_id)}`, 'data-nav': '' }, when(q.settled_at)),
            q.answered_by ? h('span', { class: 'muted answered-by' }, ` · ${t('who.answeredBy', { name: q.answered_by })}`) : null),
          h('td', { class: 'mono small tool-name', rowspan: span }, q.tool)] : null,
        h('td', { class: 'question' }, plainText(q.question), repeat ? [' ', h('span', { class: 'chip warn repeat', 'data-tip': t('session.repeat.hint') }, t('session.repeat'))] : null),
        h('td', { class: `picked${chosen.length ? '' : ' none'}` }, label('session.col.chosen'),
          chosen.length ? h('ul', { class: 'chosen' }, chosen.map((c) => h('li', null, c))) : '—'),
        h('td', { class: `typed${q.custom ? '' : ' none'}` }, label('session.col.custom'), q.custom ? h('span', { class: 'custom' }, q.custom) : '—'));
    });
    const more = first > 0
      ? h('p', { class: 'older' }, h('button', { type: 'button', class: 'btn', 'data-action': 'older', onclick: () => this.showOlder() },
        t('session.older', { n: first })))
      : null;
    return this.section('session.questions', 'questions',
      h('p', { class: 'sec-sub muted' }, t('session.rounds', { n: d.rounds || 0 })),
      more,
      h('div', { class: 'table-wrap' }, h('table', { class: 'data-table q-table' },
        h('thead', null, h('tr', null, ['time', 'tool', 'question', 'chosen', 'custom'].map((c) => h('th', { scope: 'col', class: `col-${c}` }, t(`session.col.${c}`))))),
        groups.map((g) => h('tbody', { class: 'ask-group' }, groupRows(g))))));
  }

  checks(d) {
    const mc = d.manual_checks || { count: 0 };
    const list = d.checks || [];
    return this.section('session.checks', 'checks',
      h('p', { class: 'sec-sub' }, t('session.checks.count', { n: mc.count || 0 }),
        mc.last_at ? h('span', { class: 'muted' }, ` · ${t('session.checks.last', { at: when(mc.last_at) })}`) : null),
      list.length ? h('ul', { class: 'plain-list' }, [...list].reverse().map((c) => h('li', null,
        h('span', { class: 'muted nowrap' }, when(c.at)), ' · ',
        h('span', { class: 'chip' }, t(c.via === 'prompt' ? 'session.check.prompt' : 'session.check.tool')),
        c.note ? h('span', { class: 'check-note' }, ` “${c.note}”`) : null)))
        : h('p', { class: 'empty-line' }, t('session.checks.empty')));
  }

  baseline(d) {
    const b = d.baseline;
    const current = b
      ? h('div', { class: 'bl-card', 'data-revision': String(b.revision) },
        h('div', { class: 'bl-head' }, t('session.baseline.current', { r: b.revision, at: when(b.recorded_at) })),
        baselineFields(b, { all: true }))
      : h('p', { class: 'empty-line' }, t('session.baseline.none'));
    const entries = [
      ...(d.baseline_history || []).map((r) => ({ at: r.recorded_at, kind: 'revision', r })),
      ...(d.refusals || []).map((r) => ({ at: r.at, kind: 'refusal', r })),
    ];
    // Newest first; a refusal recorded at the same time as a revision follows its order.
    entries.sort((x, y) => String(y.at).localeCompare(String(x.at)));
    const history = entries.length
      ? h('div', { class: 'history' },
        h('h3', { class: 'sub-title' }, t('session.history')),
        h('ol', { class: 'history-list' }, entries.map((e) => (e.kind === 'revision' ? this.revision(e.r) : this.refusal(e.r)))))
      : null;
    return this.section('session.baseline', 'baseline', current, history);
  }

  revision(r) {
    const changes = (r.changes && typeof r.changes === 'object') ? r.changes : {};
    const diff = h('dl', { class: 'diff' });
    for (const field of FIELDS) {
      const c = changes[field];
      if (!c) continue;
      diff.append(h('dt', null, t(`baseline.${field}`)));
      const dd = h('dd', null);
      if (field === 'goal') {
        if (c.from) dd.append(h('div', { class: 'diff-line del' }, h('span', { class: 'diff-sign', 'aria-label': t('session.diff.removed') }, '−'), h('del', null, c.from)));
        if (c.to) dd.append(h('div', { class: 'diff-line add' }, h('span', { class: 'diff-sign', 'aria-label': t('session.diff.added') }, '+'), h('ins', null, c.to)));
      } else {
        for (const v of c.removed || []) dd.append(h('div', { class: 'diff-line del' }, h('span', { class: 'diff-sign', 'aria-label': t('session.diff.removed') }, '−'), h('del', null, v)));
        for (const v of c.added || []) dd.append(h('div', { class: 'diff-line add' }, h('span', { class: 'diff-sign', 'aria-label': t('session.diff.added') }, '+'), h('ins', null, v)));
      }
      diff.append(dd);
    }
    const first = r.revision === 1;
    const extras = [];
    if ((r.applied || []).length) extras.push(h('p', { class: 'hist-line' }, t('session.history.applied', { ids: r.applied.join(', ') })));
    if ((r.dropped || []).length) {
      extras.push(h('p', { class: 'hist-line' }, t('session.history.dropped', { items: r.dropped.join('; ') }),
        (r.authorised_by || []).length ? ` — ${t('session.history.authorised', { ids: r.authorised_by.join(', ') })}` : ''));
    }
    return h('li', { class: 'hist-entry', 'data-revision': String(r.revision) },
      h('div', { class: 'hist-head' },
        h('strong', null, t('session.history.revision', { r: r.revision })),
        h('span', { class: 'muted' }, when(r.recorded_at)),
        (r.warnings || []).map((w) => h('span', { class: 'chip warn flag', 'data-warning': w }, icon('info'), t(`session.warning.${w}`)))),
      diff.childElementCount ? diff : h('p', { class: 'muted hist-line' }, first ? t('session.history.first') : t('session.history.noChange')),
      extras);
  }

  refusal(r) {
    const dropped = Array.isArray(r.dropped) ? r.dropped : [];
    return h('li', { class: 'hist-entry refused' },
      h('div', { class: 'hist-head' },
        h('span', { class: 'chip danger flag' }, icon('close'), t('session.history.refused', { items: dropped.join('; ') })),
        h('span', { class: 'muted' }, when(r.at))));
  }

  driftLog(d) {
    const list = [...(d.drifts || [])].reverse();
    const live = list.filter((x) => x.state === 'open' && x.ask_id && !x.inherited).map((x) => x.ask_id);
    if (this.cardAsk && !live.includes(this.cardAsk)) this.dropCard();
    const pending = new Set(((d.drift && d.drift.pending_updates) || []).map((p) => p.drift_id));
    if (!list.length) return this.section('session.drifts', 'drifts', h('p', { class: 'empty-line' }, t('session.drifts.empty')));
    return this.section('session.drifts', 'drifts', h('ol', { class: 'drift-log' }, list.map((x) => {
      const decision = [];
      if (x.state === 'decided') {
        const what = x.decision === 'revise'
          ? t('drift.decision.revise', { choice: x.choice || '' })
          : t(`drift.decision.${x.decision}`);
        decision.push(h('p', { class: 'drift-decision' }, h('strong', null, what),
          x.choice_source ? h('span', { class: 'muted' }, ` (${t(`drift.source.${x.choice_source}`)})`) : null));
        if (x.note) decision.push(h('p', { class: 'drift-note' }, t('drift.noteShown', { note: x.note })));
        decision.push(h('p', { class: 'muted small' }, t('drift.decidedBy', { who: x.decided_by || 'human', at: when(x.decided_at) })));
      }
      let applied = null;
      if (x.applied_in_revision) applied = h('span', { class: 'chip ok' }, t('session.drift.applied', { r: x.applied_in_revision }));
      else if (pending.has(x.drift_id)) applied = h('span', { class: 'chip warn' }, t('session.drift.pending'));
      const options = Array.isArray(x.options) ? x.options : [];
      // Decidable right here, the drift is shown by its card (below): the entry keeps its head.
      // Its list of options steps aside once the card shows them as directions (css/align.css).
      const carded = x.state === 'open' && x.ask_id && !x.inherited;
      return h('li', { class: `drift-entry state-${x.state}`, id: `drift-${x.drift_id}`, 'data-drift-id': x.drift_id },
        h('div', { class: 'hist-head' },
          h('strong', { class: 'mono' }, x.drift_id),
          h('span', { class: 'chip' }, reasonLabel(x)),
          h('span', { class: `chip drift-state state-${x.state}` }, t(`drift.state.${x.state}`)),
          applied,
          x.inherited ? h('span', { class: 'chip' }, t('session.drift.inherited')) : null,
          h('span', { class: 'muted' }, t('session.drift.reported', { at: when(x.reported_at) }))),
        carded ? null : sanitized(h('div', { class: 'drift-desc prose' }), x.description_html, x.description),
        x.required_change && !carded ? h('div', { class: 'drift-req' }, h('span', { class: 'muted' }, `${t('drift.required')} `),
          sanitized(h('div', { class: 'prose' }), x.required_change_html, x.required_change)) : null,
        options.length ? h('div', { class: 'drift-options' },
          h('div', { class: 'muted small' }, t('session.drift.options')),
          h('ol', null, options.map((o) => h('li', null, h('span', { class: 'opt-label' }, o.label || ''),
            o.description ? sanitized(h('div', { class: 'muted prose opt-desc' }), o.description_html, o.description) : null)))) : null,
        decision,
        x.state === 'open' && x.ask_id ? h('a', { class: `btn small${carded ? '' : ' primary'}`, href: `/a/${encodeURIComponent(x.ask_id)}`, 'data-nav': '' }, t('drift.open')) : null,
        carded ? this.openCard(x.ask_id) : null);
    })));
  }

  /**
   * The open drift's decision card, decidable right here (§7). The same host element is
   * reused across re-renders while the drift stays open, so a pick or a note in progress
   * survives the page's live reloads.
   */
  openCard(askId) {
    if (this.cardAsk === askId && this.cardHost) return this.cardHost;
    this.dropCard();
    this.cardAsk = askId;
    const host = h('div', { class: 'drift-host' });
    this.cardHost = host;
    (async () => {
      const [{ DriftCard }, view] = await Promise.all([import('./drift.js'), askApi.view(askId)]);
      if (this.gone || this.cardHost !== host) return;
      this.driftCard = new DriftCard(host, view, { ...this.ctx, embedded: true });
      await this.driftCard.mount();
    })().catch(() => {
      // The link to the card stays.
    });
    return host;
  }

  dropCard() {
    if (this.driftCard) this.driftCard.unmount();
    this.driftCard = null;
    this.cardAsk = null;
    this.cardHost = null;
  }

  connections(d) {
    const list = d.connections || [];
    if (!list.length) return this.section('session.connections', 'connections', h('p', { class: 'empty-line' }, t('session.connections.empty')));
    // On a phone the table scrolls inside its box, which takes keyboard focus for that.
    return this.section('session.connections', 'connections', h('div', { class: 'table-wrap', tabindex: '0' }, h('table', { class: 'data-table' },
      h('thead', null, h('tr', null, ['client', 'transport', 'first', 'last'].map((c) => h('th', { scope: 'col' }, t(`session.col.${c}`))))),
      h('tbody', null, list.map((c) => h('tr', null,
        h('td', null, c.client || '—'), h('td', null, c.transport || '—'),
        h('td', { class: 'nowrap' }, when(c.first_seen)), h('td', { class: 'nowrap' }, when(c.last_seen))))))));
  }
}

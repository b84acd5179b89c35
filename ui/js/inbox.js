// The inbox (`/`): every pending ask across sessions, grouped by session (client, workspace,
// waiting time), live through the event stream; recently settled asks below. A new ask raises
// a browser notification (when permitted) and the pending count shows in the tab title.
// desk-d: filters by session and kind (the page's query, kept for this tab), and a checkbox
// per waiting ask for bulk actions: Put away (this browser sets them aside under "Put away",
// still open and answerable; Bring back undoes it) and Cancel (one `cancel` call per ask, after
// a confirmation that says how many).
import { api, ask as askApi, me } from './api.js';
import { h, icon, duration, plainText } from './dom.js';
import { DRAFT_KEY, hasCopy } from './autosave.js';
import { t, tn, lang, setLang, saveUserLanguage, addStrings } from './i18n.js';
import { Builder } from './builder.js';
import { deadlineChip, tickChips } from './deadline.js';
import { snoozeChip, snoozedUntil } from './snooze.js';

/** desk-d: the strings of the inbox's filters and bulk actions, loaded with it only (a test checks the keys). */
export const INBOX_STRINGS = {
  en: {
    'inbox.filter.session': 'Session',
    'inbox.filter.session.all': 'All sessions',
    'inbox.filter.kind': 'Kind',
    'inbox.filter.kind.all': 'All kinds',
    'inbox.filtered': 'Showing {n} of {total}.',
    'inbox.filtered.none': 'No waiting ask matches these filters.',
    'inbox.filtered.clear': 'Clear filters',
    'inbox.selectAll': 'Select all',
    'inbox.select': 'Select: {title}',
    'inbox.selected': '{n} selected',
    'inbox.actions': 'Actions on the selected asks',
    'inbox.putAway': 'Put away',
    'inbox.putAway.hint': 'Set the selected asks aside in this browser. They stay open and answerable under “Put away”; nothing is sent.',
    'inbox.putAway.title': 'Put away',
    'inbox.putAway.done': 'Put away {n} asks. They stay open under “Put away”.',
    'inbox.putAway.done.one': 'Put away 1 ask. It stays open under “Put away”.',
    'inbox.bringBack': 'Bring back',
    'inbox.bringBack.done': 'Brought back {n} asks.',
    'inbox.bringBack.done.one': 'Brought back 1 ask.',
    'inbox.cancel': 'Cancel…',
    'inbox.cancel.hint': 'End the selected asks unanswered; each agent is told you cancelled.',
    'inbox.cancel.confirm': 'Cancel {n} asks? Each agent is told you cancelled it. This cannot be undone.',
    'inbox.cancel.confirm.one': 'Cancel 1 ask? Its agent is told you cancelled it. This cannot be undone.',
    'inbox.cancel.yes': 'Cancel {n} asks',
    'inbox.cancel.yes.one': 'Cancel 1 ask',
    'inbox.cancel.no': 'Keep them',
    'inbox.cancel.no.one': 'Keep it',
    'inbox.cancel.progress': 'Cancelling {i} of {n}…',
    'inbox.cancel.done': 'Cancelled {n} asks.',
    'inbox.cancel.done.one': 'Cancelled 1 ask.',
    'inbox.cancel.already': '{n} had already settled.',
    'inbox.cancel.already.one': '1 had already settled.',
    'inbox.cancel.failed': '{n} could not be cancelled:',
    'inbox.cancel.failed.one': '1 could not be cancelled:',
    'inbox.cancel.more': 'and {n} more',
  },
  zh: {
    'inbox.filter.session': '会话',
    'inbox.filter.session.all': '全部会话',
    'inbox.filter.kind': '类型',
    'inbox.filter.kind.all': '全部类型',
    'inbox.filtered': '显示 {n} / {total} 个。',
    'inbox.filtered.none': '没有符合筛选条件的待回答请求。',
    'inbox.filtered.clear': '清除筛选',
    'inbox.selectAll': '全选',
    'inbox.select': '选择：{title}',
    'inbox.selected': '已选 {n} 个',
    'inbox.actions': '对所选请求的操作',
    'inbox.putAway': '收起',
    'inbox.putAway.hint': '在本浏览器中把所选请求放到一边。它们仍然开放、可以回答，列在“已收起”下；不会发送任何内容。',
    'inbox.putAway.title': '已收起',
    'inbox.putAway.done': '已收起 {n} 个请求，它们仍在“已收起”下保持开放。',
    'inbox.putAway.done.one': '已收起 1 个请求，它仍在“已收起”下保持开放。',
    'inbox.bringBack': '移回',
    'inbox.bringBack.done': '已移回 {n} 个请求。',
    'inbox.bringBack.done.one': '已移回 1 个请求。',
    'inbox.cancel': '取消…',
    'inbox.cancel.hint': '不作答并结束所选请求；每个 agent 都会被告知你已取消。',
    'inbox.cancel.confirm': '取消 {n} 个请求？每个 agent 都会被告知你已取消。此操作无法撤销。',
    'inbox.cancel.confirm.one': '取消 1 个请求？它的 agent 会被告知你已取消。此操作无法撤销。',
    'inbox.cancel.yes': '取消 {n} 个请求',
    'inbox.cancel.yes.one': '取消 1 个请求',
    'inbox.cancel.no': '保留',
    'inbox.cancel.no.one': '保留',
    'inbox.cancel.progress': '正在取消第 {i} / {n} 个…',
    'inbox.cancel.done': '已取消 {n} 个请求。',
    'inbox.cancel.done.one': '已取消 1 个请求。',
    'inbox.cancel.already': '{n} 个已经结束。',
    'inbox.cancel.already.one': '1 个已经结束。',
    'inbox.cancel.failed': '{n} 个未能取消：',
    'inbox.cancel.failed.one': '1 个未能取消：',
    'inbox.cancel.more': '还有 {n} 个',
  },
};
addStrings(INBOX_STRINGS.en, INBOX_STRINGS.zh);

const SETTLED_SHOWN = 20;
const KINDS = ['survey', 'questions', 'review', 'drift'];
const AWAY_KEY = 'askd.inbox.away';
const FILTER_KEY = 'askd.inbox.filter';
const NAMES_SHOWN = 8;

function readStore(store, key, fallback) {
  try {
    return JSON.parse(store.getItem(key) || 'null') ?? fallback;
  } catch {
    return fallback;
  }
}

function writeStore(store, key, value) {
  try {
    store.setItem(key, JSON.stringify(value));
  } catch {
    // Storage may be disabled; the choice then lasts for this page only.
  }
}

/** "waiting 3 min" ("waiting 40 s" under a minute). */
function waiting(ms) {
  const sec = Math.max(0, Math.floor(ms / 1000));
  return t('inbox.waiting', { t: sec < 60 ? t('time.sec', { n: sec }) : duration(ms, t) });
}

/** desk-b: a waiting time that keeps counting (Inbox.tick rewrites it from `since`). */
function waitingSpan(cls, since, now) {
  return h('span', { class: `${cls} wait-live`, 'data-since': String(since) }, waiting(now - since));
}

/** desk-c: drops this browser's draft copies of asks no longer pending (a Set of ids). */
function sweepCopies(pending) {
  try {
    const keys = Array.from({ length: localStorage.length }, (_, i) => localStorage.key(i));
    for (const k of keys) if (k && k.startsWith(DRAFT_KEY) && !pending.has(k.slice(DRAFT_KEY.length))) localStorage.removeItem(k);
  } catch { /* no storage */ }
}

export class Inbox {
  constructor(root, ctx) {
    this.root = root;
    this.ctx = ctx;
    this.pending = [];
    this.settled = [];
    this.sessions = new Map();
    this.loaded = false;
    this.builder = new Builder({ sessions: this.sessions, onChange: () => this.render() });
    this.selected = new Set();
    this.away = new Set(readStore(localStorage, AWAY_KEY, []));
    this.filter = this.readFilter();
  }

  /** The filters: the page's query when it has one, else this tab's last ones. */
  readFilter() {
    const q = new URLSearchParams(location.search);
    const kept = q.has('session') || q.has('kind') ? { session: q.get('session'), kind: q.get('kind') } : readStore(sessionStorage, FILTER_KEY, {});
    return { session: typeof kept.session === 'string' ? kept.session : '', kind: KINDS.includes(kept.kind) ? kept.kind : '' };
  }

  setFilter(change) {
    Object.assign(this.filter, change);
    this.keepFilter();
    this.render();
  }

  /** The filters into this tab's storage and the page's query (replacing the history entry). */
  keepFilter() {
    writeStore(sessionStorage, FILTER_KEY, this.filter);
    const q = new URLSearchParams();
    if (this.filter.session) q.set('session', this.filter.session);
    if (this.filter.kind) q.set('kind', this.filter.kind);
    const url = q.toString() ? `/?${q}` : '/';
    if (location.pathname === '/' && `/${location.search}` !== url) history.replaceState(history.state, '', url);
  }

  shows(a) {
    return (!this.filter.session || a.session_id === this.filter.session) && (!this.filter.kind || a.kind === this.filter.kind);
  }

  async mount() {
    this.build();
    this.keepFilter();
    await this.load();
    this.unsubscribe = this.ctx.live.subscribe((e) => this.event(e));
    this.builder.mount(this.ctx.live);
    this.ticker = setInterval(() => this.render(), 30000);
    this.waitTicker = setInterval(() => this.tick(), 5000);
    this.onKey = (e) => this.key(e);
    document.addEventListener('keydown', this.onKey);
    this.onVisible = () => {
      if (document.visibilityState === 'visible') this.load();
    };
    document.addEventListener('visibilitychange', this.onVisible);
  }

  unmount() {
    if (this.unsubscribe) this.unsubscribe();
    this.builder.unmount();
    clearInterval(this.ticker);
    clearInterval(this.waitTicker);
    document.removeEventListener('keydown', this.onKey);
    clearTimeout(this.reloadTimer);
    clearTimeout(this.backTimer);
    document.removeEventListener('visibilitychange', this.onVisible);
  }

  async load() {
    try {
      const [p, s] = await Promise.all([
        askApi.list('state=pending&limit=500'),
        askApi.list(`state=settled&limit=${SETTLED_SHOWN}`),
        this.builder.load(),
      ]);
      this.pending = p.asks || [];
      this.settled = s.asks || [];
      // Asks put away that are no longer waiting leave the list this browser keeps.
      if (this.pending.length < 500) {
        const open = new Set(this.pending.map((a) => a.id));
        const kept = [...this.away].filter((id) => open.has(id));
        if (kept.length !== this.away.size) this.saveAway(new Set(kept));
      }
      // This browser's copies of drafts for asks that settled or went away.
      if (this.pending.length < 500) sweepCopies(new Set(this.pending.map((a) => a.id)));
      for (const a of [...this.pending, ...this.settled]) {
        this.sessions.set(a.session_id, { client: a.client, workspace: a.workspace });
      }
      this.loaded = true;
      this.render();
    } catch (e) {
      this.status.textContent = e.status === 0 ? t('error.network') : e.message;
    }
  }

  /** A reload shortly after a burst of events, for the fields events do not carry. */
  reloadSoon() {
    clearTimeout(this.reloadTimer);
    this.reloadTimer = setTimeout(() => this.load(), 250);
  }

  event({ kind, data }) {
    if (kind === 'poll') {
      this.load();
      return;
    }
    if (!data || !data.ask_id) return;
    if (kind === 'ask.created') {
      if (!this.pending.some((a) => a.id === data.ask_id)) {
        const s = this.sessions.get(data.session) || {};
        this.pending.unshift({
          id: data.ask_id, kind: data.kind, session_id: data.session, title: data.title,
          created_at: data.createdAt, client: s.client, workspace: s.workspace, banked: 0,
          awaited: true, state: 'pending', url: `/a/${data.ask_id}`,
        });
        this.render();
        this.notify(data, s);
      }
      this.reloadSoon();
    } else if (kind === 'ask.settled') {
      const i = this.pending.findIndex((a) => a.id === data.ask_id);
      if (i >= 0) {
        const [a] = this.pending.splice(i, 1);
        this.settled.unshift({ ...a, state: 'settled', outcome: data.outcome, settled_at: data.settledAt });
        this.settled = this.settled.slice(0, SETTLED_SHOWN);
        this.render();
      }
      this.reloadSoon();
    } else if (kind === 'ask.deferred') {
      // Put off (here, or on another device): listed apart until it is back.
      const a = this.pending.find((x) => x.id === data.ask_id);
      if (a) {
        a.deferred_until = data.deferred_until;
        this.render();
      }
    } else if (kind === 'ask.voted') {
      // A member voted (approvals): "2 of 3 approvals".
      const a = this.pending.find((x) => x.id === data.ask_id);
      if (a && a.approvals) {
        const name = data.by && data.by.name;
        const voters = (a.approvals.voters || []).filter((n) => n !== name);
        a.approvals = { ...a.approvals, votes: data.votes, voters: name ? [...voters, name] : voters };
        this.render();
      }
    } else if (kind === 'ask.escalated') {
      // Nobody answered by the deadline: offered on (team mode).
      const a = this.pending.find((x) => x.id === data.ask_id);
      if (a) {
        a.escalated_to = data.to;
        a.expires_at = null;
        this.render();
      }
    } else if (kind === 'ask.deadline') {
      // A person moved the deadline (here, or on another device).
      const a = this.pending.find((x) => x.id === data.ask_id);
      if (a) {
        a.expires_at = data.expires_at;
        this.render();
      }
    } else if (kind === 'ask.claimed') {
      // Team mode: who is on it, live on every member's inbox.
      const a = this.pending.find((x) => x.id === data.ask_id);
      if (a) {
        a.claim = data.claim || null;
        this.render();
      }
    } else if (kind === 'ask.autosaved') {
      // A survey shown as not started may have a draft now: look again.
      if (this.drafts && this.drafts.get(data.ask_id) === false) {
        this.drafts.delete(data.ask_id);
        this.render();
      }
    } else if (kind === 'ask.banked') {
      const a = this.pending.find((x) => x.id === data.ask_id);
      if (a) {
        a.banked = (data.banked || []).length;
        this.render();
      }
    }
  }

  notify(data, session) {
    if (typeof Notification === 'undefined' || Notification.permission !== 'granted') return;
    if (document.visibilityState === 'visible' && document.hasFocus()) return;
    try {
      const n = new Notification(t('inbox.notification', { client: session.client || data.session }), {
        body: plainText(data.title || t(`kind.${data.kind}`)), tag: data.ask_id,
      });
      n.onclick = () => {
        window.focus();
        this.ctx.navigate(`/a/${data.ask_id}`);
      };
    } catch {
      // Some browsers only allow notifications from a service worker; the title count remains.
    }
  }

  build() {
    this.list = h('div', { class: 'inbox-list' });
    this.status = h('p', { class: 'alert', role: 'alert' });
    this.buildBar();
    const tools = h('div', { class: 'head-tools' });
    if (typeof Notification !== 'undefined' && Notification.permission === 'default') {
      const b = h('button', {
        type: 'button', class: 'btn ghost', 'data-tip': t('inbox.notify.hint'),
        onclick: async () => {
          await Notification.requestPermission();
          b.remove();
        },
      }, icon('bell'), t('inbox.notify'));
      tools.appendChild(b);
    }
    tools.appendChild(h('button', {
      type: 'button', class: 'btn ghost', 'data-tip': t('lang.switch.hint'),
      onclick: () => {
        const next = lang() === 'zh-CN' ? 'en' : 'zh-CN';
        saveUserLanguage(next);
        setLang(next).then(() => {
          this.unmount();
          this.mount();
        });
      },
    }, t('lang.switch')));
    me().then((who) => {
      if (who.kind === 'device') tools.prepend(h('span', { class: 'who-chip', 'data-tip': t('who.device.hint') }, icon('phone'), t('who.device', { name: who.name })));
      if (who.kind === 'member') tools.prepend(h('span', { class: 'who-chip who-member', 'data-tip': t('who.member.hint') }, t('who.member', { name: who.name })));
      this.who = who;
      this.render();
    });
    tools.appendChild(h('a', { href: '/records', class: 'btn ghost inbox-records', 'data-nav': '' }, t('records.link')));
    tools.appendChild(h('a', { href: '/settings', class: 'btn ghost inbox-settings', 'data-nav': '' }, t('settings.title')));
    this.root.replaceChildren(h('div', { class: 'inbox' },
      h('header', { class: 'inbox-head' },
        h('div', { class: 'brand' }, h('span', { class: 'brand-mark', 'aria-hidden': 'true' }), 'askd'),
        h('h1', { class: 'inbox-title' }, t('inbox.title')), tools),
      this.status, this.bar, this.notice, this.list, h('p', { class: 'kbd-hint inbox-keys' }, t('inbox.keys'))));
  }

  /** The bar above the list: select all, the two filters, and the actions on the selection. */
  buildBar() {
    this.allBox = h('input', { type: 'checkbox', class: 'inbox-all-box' });
    this.allBox.addEventListener('change', () => {
      const ids = this.shownIds();
      if (this.allBox.checked) for (const id of ids) this.selected.add(id);
      else for (const id of ids) this.selected.delete(id);
      this.paintPicks();
    });
    this.sessionSel = h('select', { class: 'inbox-session', 'aria-label': t('inbox.filter.session') });
    this.sessionSel.addEventListener('change', () => this.setFilter({ session: this.sessionSel.value }));
    this.kindSel = h('select', { class: 'inbox-kind', 'aria-label': t('inbox.filter.kind') },
      h('option', { value: '' }, t('inbox.filter.kind.all')),
      KINDS.map((k) => h('option', { value: k }, k === 'drift' ? t('drift.badge') : t(`kind.${k}`))));
    this.kindSel.value = this.filter.kind;
    this.kindSel.addEventListener('change', () => this.setFilter({ kind: this.kindSel.value }));
    this.pickCount = h('span', { class: 'inbox-picked', 'aria-live': 'polite' });
    this.awayBtn = h('button', { type: 'button', class: 'btn small inbox-put-away', 'data-tip': t('inbox.putAway.hint'), onclick: () => this.putAwaySelected(true) }, icon('down'), t('inbox.putAway'));
    this.backBtn = h('button', { type: 'button', class: 'btn small inbox-bring-back', onclick: () => this.putAwaySelected(false) }, t('inbox.bringBack'));
    this.cancelBtn = h('button', { type: 'button', class: 'btn small danger inbox-cancel', 'data-tip': t('inbox.cancel.hint'), onclick: () => this.cancelSelected() }, t('inbox.cancel'));
    this.actions = h('div', { class: 'inbox-actions', role: 'group', 'aria-label': t('inbox.actions'), hidden: true },
      this.pickCount, this.awayBtn, this.backBtn, this.cancelBtn);
    this.bar = h('div', { class: 'inbox-bar', hidden: true },
      h('label', { class: 'inbox-all' }, this.allBox, h('span', null, t('inbox.selectAll'))),
      this.sessionSel, this.kindSel, h('span', { class: 'rv-spacer' }), this.actions);
    this.notice = h('p', { class: 'inbox-notice', role: 'status', hidden: true });
  }

  /** The session filter's choices: every session with an ask here (and the one chosen). */
  fillSessions() {
    const ids = [...new Set([...this.pending, ...this.settled].map((a) => a.session_id))];
    if (this.filter.session && !ids.includes(this.filter.session)) ids.push(this.filter.session);
    const key = ids.join(' ');
    if (this.sessionKey !== key) {
      this.sessionKey = key;
      this.sessionSel.replaceChildren(h('option', { value: '' }, t('inbox.filter.session.all')), ...ids.map((id) => {
        const s = this.sessions.get(id) || {};
        return h('option', { value: id }, [s.client, s.workspace].filter(Boolean).join(' · ') || id);
      }));
    }
    this.sessionSel.value = this.filter.session;
  }

  /** The ids of the waiting asks the filters show (put away or not). */
  shownIds() {
    return this.pending.filter((a) => this.shows(a)).map((a) => a.id);
  }

  /** The selection's checkboxes, select-all and the actions, without rebuilding the list. */
  paintPicks() {
    const open = new Set(this.pending.map((a) => a.id));
    for (const id of [...this.selected]) if (!open.has(id)) this.selected.delete(id);
    for (const box of this.list.querySelectorAll('.ask-pick-box')) {
      const id = box.closest('[data-ask-id]').getAttribute('data-ask-id');
      box.checked = this.selected.has(id);
      box.closest('.ask-row').classList.toggle('picked', box.checked);
    }
    const ids = this.shownIds();
    const n = ids.filter((id) => this.selected.has(id)).length;
    this.allBox.checked = n > 0 && n === ids.length;
    this.allBox.indeterminate = n > 0 && n < ids.length;
    const picked = [...this.selected];
    this.actions.hidden = picked.length === 0;
    this.pickCount.textContent = picked.length ? t('inbox.selected', { n: picked.length }) : '';
    this.awayBtn.hidden = !picked.some((id) => !this.away.has(id));
    this.backBtn.hidden = !picked.some((id) => this.away.has(id));
  }

  pick(id, on) {
    if (on) this.selected.add(id);
    else this.selected.delete(id);
    this.lastPick = id;
    this.paintPicks();
  }

  saveAway(set) {
    this.away = set;
    writeStore(localStorage, AWAY_KEY, [...set]);
  }

  /** Puts the selected asks away (or brings them back): they stay open; nothing is sent. */
  putAwaySelected(away) {
    const ids = [...this.selected].filter((id) => this.away.has(id) !== away);
    if (!ids.length) return;
    const next = new Set(this.away);
    for (const id of ids) {
      if (away) next.add(id);
      else next.delete(id);
      this.selected.delete(id);
    }
    this.saveAway(next);
    this.say(away ? tn('inbox.putAway.done', ids.length, { n: ids.length }) : tn('inbox.bringBack.done', ids.length, { n: ids.length }));
    this.render();
  }

  /** Cancels the selected asks after a confirmation naming how many: one call per ask. */
  async cancelSelected() {
    const asks = this.pending.filter((a) => this.selected.has(a.id));
    const n = asks.length;
    if (!n || this.cancelling) return;
    const names = h('ul', { class: 'inbox-cancel-list' },
      asks.slice(0, NAMES_SHOWN).map((a) => h('li', null, this.titleOf(a))),
      n > NAMES_SHOWN ? h('li', { class: 'muted' }, t('inbox.cancel.more', { n: n - NAMES_SHOWN })) : null);
    // The dialog module loads when first needed: the inbox itself stays light.
    const { confirmDialog } = await import('./dialog.js');
    const ok = await confirmDialog(tn('inbox.cancel.confirm', n, { n }), {
      body: h('div', { class: 'inbox-cancel-body' }, names),
      yes: tn('inbox.cancel.yes', n, { n }), no: tn('inbox.cancel.no', n), danger: true,
    });
    if (!ok) return;
    this.cancelling = true;
    this.cancelBtn.disabled = true;
    let done = 0;
    let already = 0;
    const failed = [];
    for (const a of asks) {
      this.say(t('inbox.cancel.progress', { i: done + already + failed.length + 1, n }));
      try {
        await askApi.cancel(a.id);
        done += 1;
      } catch (e) {
        if (e.status === 409) already += 1;
        else failed.push(`${this.titleOf(a)}: ${e.status === 0 ? t('error.network') : e.message}`);
      }
      this.selected.delete(a.id);
    }
    this.cancelling = false;
    this.cancelBtn.disabled = false;
    const parts = [tn('inbox.cancel.done', done, { n: done })];
    if (already) parts.push(tn('inbox.cancel.already', already, { n: already }));
    this.say(parts.join(' '));
    this.status.textContent = failed.length ? `${tn('inbox.cancel.failed', failed.length, { n: failed.length })} ${failed.join(' · ')}` : '';
    await this.load();
  }

  say(text) {
    this.notice.textContent = text;
    this.notice.hidden = !text;
  }

  render() {
    if (!this.loaded) return;
    const now = Date.now();
    // Put off by the human (snooze): listed apart, and back by themselves at their time.
    const snoozed = this.pending.filter((a) => snoozedUntil(a, now));
    clearTimeout(this.backTimer);
    if (snoozed.length) {
      const next = Math.min(...snoozed.map((a) => snoozedUntil(a, now)));
      this.backTimer = setTimeout(() => this.render(), Math.min(next - now + 50, 2 ** 31 - 1));
    }
    const active = this.pending.filter((a) => !this.away.has(a.id) && !snoozedUntil(a, now));
    const n = active.length;
    document.title = n ? `(${n}) askd` : 'askd';
    const shown = active.filter((a) => this.shows(a));
    const filtered = !!(this.filter.session || this.filter.kind);
    const parts = [];
    parts.push(h('h2', { class: 'section-title' }, t('inbox.pending'),
      h('span', { class: 'count', 'aria-hidden': n ? null : 'true' }, n ? String(n) : '')));
    if (!n) {
      parts.push(h('div', { class: 'empty' },
        h('p', { class: 'empty-title' }, t('inbox.empty')),
        h('p', { class: 'muted' }, t('inbox.emptyHint'))));
    } else if (filtered) {
      parts.push(h('p', { class: 'inbox-filtered' },
        shown.length ? t('inbox.filtered', { n: shown.length, total: n }) : t('inbox.filtered.none'), ' ',
        h('button', { type: 'button', class: 'btn small ghost inbox-clear', onclick: () => this.setFilter({ session: '', kind: '' }) }, t('inbox.filtered.clear'))));
    }
    // Group by session, sessions ordered by their newest ask.
    const groups = new Map();
    for (const a of shown) {
      if (!groups.has(a.session_id)) groups.set(a.session_id, []);
      groups.get(a.session_id).push(a);
    }
    if (!this.filter.kind || this.filter.kind === 'survey') {
      for (const session of this.builder.sessions()) {
        if (!groups.has(session) && (!this.filter.session || session === this.filter.session)) groups.set(session, []);
      }
    }
    for (const [session, asks] of groups) {
      const s = this.sessions.get(session) || {};
      const client = (asks[0] && asks[0].client) || s.client || session;
      const workspace = (asks[0] && asks[0].workspace) || s.workspace;
      const oldest = Math.min(...asks.map((a) => Date.parse(a.created_at) || now));
      parts.push(h('section', { class: 'card session', 'aria-label': client },
        h('header', { class: 'session-head' },
          h('span', { class: 'session-client' }, client),
          h('span', { class: 'session-ws' }, workspace || t('inbox.noWorkspace')),
          asks.length ? waitingSpan('session-wait', oldest, now) : null,
          h('a', { class: 'session-page-link', href: `/sessions/${encodeURIComponent(session)}`, 'data-nav': '' }, t('session.link'))),
        this.builder.cards(session),
        asks.length ? h('ul', { class: 'ask-list' }, asks.map((a) => this.pendingRow(a, now))) : null));
    }
    const later = snoozed.filter((a) => this.shows(a));
    if (later.length) {
      parts.push(h('h2', { class: 'section-title' }, t('inbox.snoozed.title'), h('span', { class: 'count muted-count' }, String(later.length))));
      parts.push(h('section', { class: 'card snoozed-list', 'aria-label': t('inbox.snoozed.title') },
        h('ul', { class: 'ask-list' }, later.map((a) => this.pendingRow(a, now)))));
    }
    const away = this.pending.filter((a) => this.away.has(a.id) && !snoozedUntil(a, now) && this.shows(a));
    if (away.length) {
      parts.push(h('h2', { class: 'section-title' }, t('inbox.putAway.title'), h('span', { class: 'count muted-count' }, String(away.length))));
      parts.push(h('section', { class: 'card away-list', 'aria-label': t('inbox.putAway.title') },
        h('ul', { class: 'ask-list' }, away.map((a) => this.pendingRow(a, now)))));
    }
    const settled = this.settled.filter((a) => this.shows(a));
    if (settled.length) {
      parts.push(h('h2', { class: 'section-title' }, t('inbox.settled')));
      parts.push(h('section', { class: 'card settled-list' },
        h('ul', { class: 'ask-list' }, settled.map((a) => this.settledRow(a, now)))));
    }
    // Keep keyboard focus on the same ask (its link or its checkbox) across re-renders.
    const el = document.activeElement;
    const focused = el && el.closest && el.closest('[data-ask-id]');
    const focusId = focused && this.list.contains(focused) ? focused.getAttribute('data-ask-id') : null;
    const focusSel = el && el.classList && el.classList.contains('ask-pick-box') ? '.ask-pick-box' : '.ask-link';
    this.list.replaceChildren(...parts);
    this.bar.hidden = !this.pending.length && !filtered;
    this.fillSessions();
    this.kindSel.value = this.filter.kind;
    this.paintPicks();
    if (focusId) {
      const again = this.list.querySelector(`[data-ask-id="${CSS.escape(focusId)}"] ${focusSel}`);
      if (again) again.focus();
    }
  }

  /** desk-b: every waiting time counts on without a re-render. */
  tick() {
    const now = Date.now();
    for (const el of this.list.querySelectorAll('.wait-live')) {
      el.textContent = waiting(now - Number(el.getAttribute('data-since')));
    }
    tickChips(this.list, now);
  }

  /** desk-b: j / k move the focus down / up the list of asks (Enter then opens the focused one). */
  key(e) {
    if (e.defaultPrevented || e.altKey || e.ctrlKey || e.metaKey || document.querySelector('dialog[open]')) return;
    const target = e.target;
    if (target && target.matches && target.matches('input, textarea, select, [contenteditable]')) return;
    if (e.key === 'x') {
      // desk-d: x selects (or unselects) the focused ask.
      const row = target && target.closest && target.closest('.ask-row');
      const box = row && row.querySelector('.ask-pick-box');
      if (!box) return;
      e.preventDefault();
      this.pick(row.getAttribute('data-ask-id'), !box.checked);
      return;
    }
    if (e.key !== 'j' && e.key !== 'k') return;
    const links = [...this.list.querySelectorAll('.ask-row .ask-link')];
    if (!links.length) return;
    e.preventDefault();
    const at = links.indexOf(document.activeElement);
    const next = at < 0 ? (e.key === 'j' ? 0 : links.length - 1)
      : Math.max(0, Math.min(links.length - 1, at + (e.key === 'j' ? 1 : -1)));
    links[next].focus();
    links[next].scrollIntoView({ block: 'nearest' });
  }

  /** An ask without a title (a questions ask from before titles were stored): its first question (a drift: its description) stands in. */
  titleOf(a) {
    if (a.title) return plainText(a.title);
    if (a.kind !== 'questions' && a.kind !== 'drift') return t(`kind.${a.kind}`);
    if (!this.titles) this.titles = new Map();
    const fallback = a.kind === 'drift' ? t('drift.badge') : t('kind.questions');
    if (this.titles.has(a.id)) return this.titles.get(a.id) || fallback;
    this.titles.set(a.id, null);
    askApi.view(a.id).then((v) => {
      const q = v.drift ? { question: v.drift.description } : v.spec && v.spec.questions && v.spec.questions[0];
      if (q && q.question) {
        const text = plainText(q.question);
        this.titles.set(a.id, text.length > 140 ? `${text.slice(0, 140)}…` : text);
        this.render();
      }
    }, () => {});
    return fallback;
  }

  pendingRow(a, now) {
    const since = Date.parse(a.created_at) || now;
    const box = h('input', { type: 'checkbox', class: 'ask-pick-box', 'aria-label': t('inbox.select', { title: this.titleOf(a) }) });
    box.addEventListener('click', (e) => {
      // Shift+click selects the run of asks from the last one picked.
      const ids = [...this.list.querySelectorAll('.ask-pick-box')].map((b) => b.closest('[data-ask-id]').getAttribute('data-ask-id'));
      const from = ids.indexOf(this.lastPick);
      const to = ids.indexOf(a.id);
      if (e.shiftKey && from >= 0 && to >= 0) {
        for (const id of ids.slice(Math.min(from, to), Math.max(from, to) + 1)) this.selected.add(id);
        this.paintPicks();
        this.lastPick = a.id;
      } else {
        this.pick(a.id, box.checked);
      }
    });
    return h('li', { class: `ask-row pending-row${this.away.has(a.id) ? ' away-row' : ''}`, 'data-ask-id': a.id },
      h('label', { class: 'ask-pick' }, box),
      h('a', { class: 'ask-link', href: `/a/${a.id}`, 'data-nav': '' },
        h('span', { class: 'ask-main' },
          h('span', { class: 'ask-title' }, this.titleOf(a)),
          h('span', { class: 'ask-meta' },
            h('span', { class: `chip kind-chip${a.kind === 'drift' ? ' drift-badge' : ''}` }, a.kind === 'drift' ? t('drift.badge') : t(`kind.${a.kind}`)),
            a.banked ? h('span', { class: 'chip' }, t('inbox.bankedCount', { n: a.banked })) : null,
            a.awaited === false ? h('span', { class: 'chip warn' }, t('inbox.notAwaited')) : null,
            a.claim && a.claim.name ? h('span', { class: 'chip claim-chip', 'data-claim': a.claim.id }, this.mine(a) ? t('claim.mine') : t('claim.onIt', { name: a.claim.name })) : null,
            deadlineChip(a, now),
            a.escalated_to ? h('span', { class: 'chip warn escalated-chip' }, this.offeredToMe(a) ? t('escalated.you') : t('escalated.chip', { to: a.escalated_to })) : null,
            a.approvals ? h('span', { class: 'chip approvals-chip' }, t('approvals.count', { n: a.approvals.votes, required: a.approvals.required }),
              this.votedByMe(a) ? ` · ${t('approvals.you')}` : '') : null,
            snoozeChip(a, now),
            waitingSpan('muted', since, now))),
        h('span', { class: 'btn small' }, a.kind === 'survey' ? this.surveyAction(a) : t('nav.open'))),
      this.who && this.who.kind === 'member' ? this.claimButton(a) : null);
  }

  /** desk-c: "Resume survey" only when there is something to resume (a banked answer, a
   * draft the ask's view shows or this browser keeps), else "Start survey". */
  surveyAction(a) {
    if (!this.drafts) this.drafts = new Map();
    if (a.banked || hasCopy(a.id)) return t('nav.resume');
    if (!this.drafts.has(a.id)) {
      this.drafts.set(a.id, false);
      askApi.view(a.id).then((v) => {
        const s = v.autosave || {};
        const begun = (typeof s.position === 'string' && s.position !== 'intro')
          || Object.values(s.answers || {}).some((x) => x && ((x.selected || []).length || (x.custom || '').trim() || x.skipped));
        if (begun) {
          this.drafts.set(a.id, true);
          this.render();
        }
      }, () => {});
    }
    return t(this.drafts.get(a.id) ? 'nav.resume' : 'nav.start');
  }

  /** This member has voted on the ask (approvals, issue 35). */
  votedByMe(a) {
    return !!(this.who && this.who.kind === 'member' && (a.approvals.voters || []).includes(this.who.name));
  }

  /** Escalated to this member by name, or to everyone (issue 35). */
  offeredToMe(a) {
    const to = (a.escalated_to || '').toLowerCase();
    return !!(this.who && this.who.kind === 'member' && (to === 'everyone' || to === String(this.who.name || '').toLowerCase()));
  }

  mine(a) {
    return !!(this.who && a.claim && a.claim.id === this.who.id);
  }

  /** Team mode: a member says they are on an ask (others can still answer: settle-once decides). */
  claimButton(a) {
    const mine = this.mine(a);
    return h('button', {
      type: 'button', class: 'btn ghost small claim-btn', 'data-tip': t('claim.hint'),
      onclick: async (e) => {
        e.preventDefault();
        try {
          const r = await api(mine ? 'DELETE' : 'POST', `/api/asks/${encodeURIComponent(a.id)}/claim`);
          a.claim = r.claim || null;
          this.render();
        } catch (err) {
          this.status.textContent = (err && err.message) || String(err);
        }
      },
    }, mine ? t('claim.release') : t('claim.take'));
  }

  settledRow(a, now) {
    const ms = now - (Date.parse(a.settled_at) || now);
    const ago = ms < 60000 ? t('time.now') : t('inbox.ago', { t: duration(ms, t) });
    return h('li', { class: 'ask-row settled-row', 'data-ask-id': a.id },
      h('a', { class: 'ask-link', href: `/a/${a.id}`, 'data-nav': '' },
        h('span', { class: 'ask-main' },
          h('span', { class: 'ask-title' }, this.titleOf(a)),
          h('span', { class: 'ask-meta' },
            h('span', { class: `chip outcome outcome-${a.outcome}` }, t(`outcome.${a.outcome}`)),
            h('span', { class: 'muted' }, [a.client, ago].filter(Boolean).join(' · '))))));
  }
}

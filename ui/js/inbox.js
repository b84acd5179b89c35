// The inbox (`/`): every pending ask across sessions, grouped by session (client, workspace,
// waiting time), live through the event stream; recently settled asks below. A new ask raises
// a browser notification (when permitted) and the pending count shows in the tab title.
import { api, ask as askApi, me } from './api.js';
import { h, icon, duration, plainText, DRAFT_KEY } from './dom.js';
import { t, lang, setLang, saveUserLanguage } from './i18n.js';
import { Builder } from './builder.js';

const SETTLED_SHOWN = 20;

/** "waiting 3 min" ("waiting 40 s" under a minute). */
function waiting(ms) {
  const sec = Math.max(0, Math.floor(ms / 1000));
  return t('inbox.waiting', { t: sec < 60 ? t('time.sec', { n: sec }) : duration(ms, t) });
}

/** desk-b: a waiting time that keeps counting (Inbox.tick rewrites it from `since`). */
function waitingSpan(cls, since, now) {
  return h('span', { class: `${cls} wait-live`, 'data-since': String(since) }, waiting(now - since));
}

/** desk-c: this browser keeps an unsaved draft of the ask (dom.js's Autosave). */
function hasCopy(id) {
  try {
    return localStorage.getItem(DRAFT_KEY + id) !== null;
  } catch {
    return false;
  }
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
  }

  async mount() {
    this.build();
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
      this.status, this.list, h('p', { class: 'kbd-hint inbox-keys' }, t('inbox.keys'))));
  }

  render() {
    if (!this.loaded) return;
    const n = this.pending.length;
    document.title = n ? `(${n}) askd` : 'askd';
    const now = Date.now();
    const parts = [];
    parts.push(h('h2', { class: 'section-title' }, t('inbox.pending'),
      h('span', { class: 'count', 'aria-hidden': n ? null : 'true' }, n ? String(n) : '')));
    if (!n) {
      parts.push(h('div', { class: 'empty' },
        h('p', { class: 'empty-title' }, t('inbox.empty')),
        h('p', { class: 'muted' }, t('inbox.emptyHint'))));
    }
    // Group by session, sessions ordered by their newest ask.
    const groups = new Map();
    for (const a of this.pending) {
      if (!groups.has(a.session_id)) groups.set(a.session_id, []);
      groups.get(a.session_id).push(a);
    }
    for (const session of this.builder.sessions()) if (!groups.has(session)) groups.set(session, []);
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
    if (this.settled.length) {
      parts.push(h('h2', { class: 'section-title' }, t('inbox.settled')));
      parts.push(h('section', { class: 'card settled-list' },
        h('ul', { class: 'ask-list' }, this.settled.map((a) => this.settledRow(a, now)))));
    }
    // Keep keyboard focus on the same ask across re-renders.
    const focused = document.activeElement && document.activeElement.closest
      && document.activeElement.closest('[data-ask-id]');
    const focusId = focused && this.list.contains(focused) ? focused.getAttribute('data-ask-id') : null;
    this.list.replaceChildren(...parts);
    if (focusId) {
      const again = this.list.querySelector(`[data-ask-id="${CSS.escape(focusId)}"] .ask-link`);
      if (again) again.focus();
    }
  }

  /** desk-b: every waiting time counts on without a re-render. */
  tick() {
    const now = Date.now();
    for (const el of this.list.querySelectorAll('.wait-live')) {
      el.textContent = waiting(now - Number(el.getAttribute('data-since')));
    }
  }

  /** desk-b: j / k move the focus down / up the list of asks (Enter then opens the focused one). */
  key(e) {
    if (e.defaultPrevented || e.altKey || e.ctrlKey || e.metaKey || document.querySelector('dialog[open]')) return;
    const target = e.target;
    if (target && target.matches && target.matches('input, textarea, select, [contenteditable]')) return;
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
    return h('li', { class: 'ask-row', 'data-ask-id': a.id },
      h('a', { class: 'ask-link', href: `/a/${a.id}`, 'data-nav': '' },
        h('span', { class: 'ask-main' },
          h('span', { class: 'ask-title' }, this.titleOf(a)),
          h('span', { class: 'ask-meta' },
            h('span', { class: `chip kind-chip${a.kind === 'drift' ? ' drift-badge' : ''}` }, a.kind === 'drift' ? t('drift.badge') : t(`kind.${a.kind}`)),
            a.banked ? h('span', { class: 'chip' }, t('inbox.bankedCount', { n: a.banked })) : null,
            a.awaited === false ? h('span', { class: 'chip warn' }, t('inbox.notAwaited')) : null,
            a.claim && a.claim.name ? h('span', { class: 'chip claim-chip', 'data-claim': a.claim.id }, this.mine(a) ? t('claim.mine') : t('claim.onIt', { name: a.claim.name })) : null,
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

// An ask's deadline (issue 35), above the ask's own view: how long until it stops waiting,
// what happens then (the agent's default applied, or the ask closed), and a button that
// gives it more time; once it expired, that nobody answered. Agent text (a default's labels)
// is inserted as text. The inbox shows the same countdown as a chip (`deadlineChip`).
import { api } from './api.js';
import { h, duration } from './dom.js';
import { t } from './i18n.js';

/** How much a person's "more time" adds: an hour. */
export const EXTEND_S = 3600;

/** "4 min" / "42 s" until `at` (ms since the epoch), from `now`. */
export function left(at, now) {
  const ms = Math.max(0, at - now);
  return ms < 60000 ? t('time.sec', { n: Math.ceil(ms / 1000) }) : duration(ms, t);
}

/** The inbox's chip for a pending ask with a deadline: "closes in 4 min" (warn under 10 min). */
export function deadlineChip(a, now) {
  const at = Date.parse(a.expires_at || '');
  if (!at) return null;
  const soon = at - now < 10 * 60000;
  return h('span', { class: `chip deadline-chip deadline-live${soon ? ' warn' : ''}`, 'data-at': String(at) },
    t('deadline.chip', { t: left(at, now) }));
}

/** Rewrites every live countdown under `root` (the inbox ticks it). */
export function tickChips(root, now) {
  for (const el of root.querySelectorAll('.deadline-live')) {
    el.textContent = t('deadline.chip', { t: left(Number(el.getAttribute('data-at')), now) });
  }
}

/** What the default says, in a line: "q: No; langs: Rust, Go". */
function defaultLine(d) {
  const answers = (d && d.default && d.default.answers) || [];
  return answers.map((a) => `${a.id}: ${(a.selected || [a.verdict]).filter(Boolean).join(', ')}`).join('; ');
}

export default class DeadlineBar {
  /** `extend: false` (the MCP App): the countdown without "One more hour" — moving a
   * deadline is the people's, on askd's page. */
  constructor(el, live, { extend = true } = {}) {
    this.el = el;
    this.live = live;
    this.extend = extend;
    this.timer = null;
    this.unsubscribe = null;
  }

  /** Shows the deadline of the ask `view` (GET /api/asks/{id}), or nothing when it has none. */
  show(view) {
    this.hide();
    this.view = view;
    const expired = view.state === 'settled' && view.outcome === 'expired';
    const escalated = view.state === 'pending' && Array.isArray(view.escalated) && view.escalated.length;
    if (!(view.deadline && view.state === 'pending') && !expired && !escalated) return;
    this.unsubscribe = this.live.subscribe(({ kind, data }) => {
      if (!data || data.ask_id !== view.ask_id) return;
      if (kind === 'ask.deadline') {
        this.view.deadline = { ...this.view.deadline, expires_at: data.expires_at };
        this.paint();
      } else if (kind === 'ask.escalated') {
        this.view.deadline = null;
        this.view.escalated = [...(this.view.escalated || []), { to: data.to, escalated_at: data.escalated_at }];
        this.paint();
      } else if (kind === 'ask.settled') {
        this.view.state = 'settled';
        this.view.outcome = data.outcome;
        if (data.outcome !== 'expired') {
          this.paint();
          return;
        }
        // Whether a default was applied is in the settled ask's result.
        api('GET', `/api/asks/${encodeURIComponent(view.ask_id)}`).then((v) => {
          this.view.result = v.result;
          this.paint();
        }, () => this.paint());
      }
    });
    this.paint();
    this.timer = setInterval(() => this.tick(), 1000);
  }

  hide() {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    if (this.unsubscribe) this.unsubscribe();
    this.unsubscribe = null;
    this.el.hidden = true;
    this.el.replaceChildren();
  }

  paint() {
    const v = this.view;
    this.el.hidden = false;
    if (v.state === 'settled') {
      if (v.outcome !== 'expired') {
        this.hide();
        return;
      }
      const defaulted = v.result && v.result.defaulted;
      this.el.replaceChildren(h('p', { class: 'deadline-text', role: 'status' },
        defaulted ? t('deadline.expiredDefault') : t('deadline.expiredClosed')));
      if (this.timer) clearInterval(this.timer);
      return;
    }
    if (!v.deadline) {
      // Escalated (team mode): the deadline is spent and the ask was offered on.
      const last = v.escalated[v.escalated.length - 1] || {};
      this.count = null;
      this.el.replaceChildren(h('p', { class: 'deadline-text', role: 'status' },
        t('escalated.bar', { to: last.to || 'everyone' })));
      return;
    }
    const d = v.deadline;
    const then = d.then === 'default' ? t('deadline.thenDefault', { d: defaultLine(d) })
      : d.then === 'escalate' ? t('deadline.thenEscalate', { to: d.to || 'everyone' })
        : t('deadline.thenClose');
    this.count = h('strong', { class: 'deadline-left' });
    const more = h('button', { type: 'button', class: 'btn ghost small deadline-extend' }, t('deadline.extend'));
    more.addEventListener('click', async () => {
      more.disabled = true;
      try {
        const r = await api('POST', `/api/asks/${encodeURIComponent(v.ask_id)}/deadline`, { extend_s: EXTEND_S });
        v.deadline = { ...d, expires_at: r.expires_at };
        this.paint();
      } catch {
        more.disabled = false;
      }
    });
    this.el.replaceChildren(h('p', { class: 'deadline-text', role: 'status' },
      t('deadline.closesIn'), ' ', this.count, ' — ', then), this.extend ? more : null);
    this.tick();
  }

  tick() {
    if (!this.count || !this.view.deadline) return;
    this.count.textContent = left(Date.parse(this.view.deadline.expires_at), Date.now());
  }
}

// Snooze (issue 35): "Ask me later" above a pending ask (choices before its deadline only);
// once put off, until when. The inbox lists put-off asks apart (`snoozedUntil`).
import { api } from './api.js';
import { h } from './dom.js';
import { t } from './i18n.js';

/** When `a` (an ask summary or view) comes back, in ms since the epoch, while it is put off. */
export function snoozedUntil(a, now) {
  const at = Date.parse((a && a.deferred_until) || '');
  return at && at > now ? at : 0;
}

/** "15:40" today, else "Fri 09:00": when a put-off ask is back, in the reader's time. */
export function clock(at, now) {
  const d = new Date(at);
  const sameDay = new Date(now).toDateString() === d.toDateString();
  const opts = sameDay ? { hour: '2-digit', minute: '2-digit' } : { weekday: 'short', hour: '2-digit', minute: '2-digit' };
  return d.toLocaleString(document.documentElement.lang || undefined, opts);
}

/** The inbox's chip for a put-off ask: "back at 15:40". */
export function snoozeChip(a, now) {
  const at = snoozedUntil(a, now);
  return at ? h('span', { class: 'chip snooze-chip' }, t('snooze.chip', { t: clock(at, now) })) : null;
}

/** The choices, as seconds from `now`: an hour, four hours, tomorrow at 09:00 local time. */
function choices(now) {
  const morning = new Date(now);
  morning.setDate(morning.getDate() + 1);
  morning.setHours(9, 0, 0, 0);
  return [
    { key: 'snooze.hour', s: 3600 },
    { key: 'snooze.hours', s: 4 * 3600 },
    { key: 'snooze.morning', s: Math.round((morning.getTime() - now) / 1000) },
  ];
}

export class SnoozeBar {
  constructor(el, live) {
    this.el = el;
    this.live = live;
    this.unsubscribe = null;
  }

  /** Shows the control for the pending ask `view` (GET /api/asks/{id}); nothing once settled. */
  show(view) {
    this.hide();
    if (view.state !== 'pending') return;
    this.view = view;
    this.unsubscribe = this.live.subscribe(({ kind, data }) => {
      if (!data || data.ask_id !== view.ask_id) return;
      if (kind === 'ask.deferred') {
        this.view.deferred_until = data.deferred_until;
        this.paint();
      } else if (kind === 'ask.deadline') {
        this.view.deadline = { ...(this.view.deadline || {}), expires_at: data.expires_at };
        this.paint();
      } else if (kind === 'ask.settled') {
        this.hide();
      }
    });
    this.paint();
  }

  hide() {
    if (this.unsubscribe) this.unsubscribe();
    this.unsubscribe = null;
    if (this.back) clearTimeout(this.back);
    this.back = null;
    this.el.hidden = true;
    this.el.replaceChildren();
  }

  paint() {
    const v = this.view;
    const now = Date.now();
    this.el.hidden = false;
    if (this.back) clearTimeout(this.back);
    const until = snoozedUntil(v, now);
    if (until) {
      this.el.classList.add('snoozed');
      this.el.replaceChildren(h('p', { class: 'snooze-text', role: 'status' },
        t('snooze.until', { t: clock(until, now) })));
      // Back by itself when the time comes.
      this.back = setTimeout(() => this.paint(), Math.min(until - now + 50, 2 ** 31 - 1));
      return;
    }
    this.el.classList.remove('snoozed');
    const deadline = Date.parse((v.deadline && v.deadline.expires_at) || '') || Infinity;
    const open = choices(now).filter((c) => now + c.s * 1000 < deadline);
    if (!open.length) {
      this.hide();
      return;
    }
    const status = h('span', { class: 'snooze-error', role: 'alert' });
    const menu = h('details', { class: 'snooze-menu' },
      h('summary', { class: 'btn ghost small' }, t('snooze.later')),
      h('div', { class: 'snooze-choices', role: 'group', 'aria-label': t('snooze.later') },
        open.map((c) => {
          const b = h('button', { type: 'button', class: 'btn ghost small snooze-choice', 'data-s': String(c.s) }, t(c.key));
          b.addEventListener('click', async () => {
            for (const x of menu.querySelectorAll('button')) x.disabled = true;
            try {
              const r = await api('POST', `/api/asks/${encodeURIComponent(v.ask_id)}/snooze`, { for_s: c.s });
              v.deferred_until = r.deferred_until;
              this.paint();
            } catch (e) {
              status.textContent = e.message || String(e);
              for (const x of menu.querySelectorAll('button')) x.disabled = false;
            }
          });
          return b;
        })));
    this.el.replaceChildren(h('span', { class: 'snooze-hint muted' }, t('snooze.hint')), menu, status);
  }
}

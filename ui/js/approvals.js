// More than one approver (issue 35, team mode): above an ask that needs N members' answers,
// how many are in and whose ("1 of 2 approvals — alice"), whether this member voted (sending
// again changes the vote), and the rule (any rejection rejects at once). Loaded only for such
// an ask. Names are inserted as text.
import { h } from './dom.js';
import { t, addStrings } from './i18n.js';
import { api, me } from './api.js';

// Beside this module, under the same versioned prefix, once.
document.head.appendChild(h('link', { rel: 'stylesheet', href: new URL('../css/approvals.css', import.meta.url).href }));

addStrings({
  'approvals.from': 'Needs {required} members’ answers, from {from}.',
  'approvals.any': 'any member',
  'approvals.by': 'In: {names}.',
  'approvals.none': 'No vote yet.',
  'approvals.rule': 'Each answer is a vote; any rejection settles it at once.',
  'approvals.mine': 'Your vote is in — sending again changes it, until it settles.',
  'approvals.rejects': '{name} (rejects)',
  'approvals.settled': 'Settled by {n} of {required} approvals: {names}.',
}, {
  'approvals.from': '需要 {required} 位成员回答，来自：{from}。',
  'approvals.any': '任一成员',
  'approvals.by': '已投：{names}。',
  'approvals.none': '尚无投票。',
  'approvals.rule': '每个回答都是一票；任何一票否决会立即结束。',
  'approvals.mine': '你已投票——在结束前再次提交会修改你的票。',
  'approvals.rejects': '{name}（否决）',
  'approvals.settled': '由 {n} / {required} 票决定：{names}。',
});

function names(votes) {
  return votes.map((v) => {
    const name = (v.answered_by && v.answered_by.name) || '?';
    return v.rejects ? t('approvals.rejects', { name }) : name;
  }).join(', ');
}

export default class ApprovalsBar {
  constructor(el, live) {
    this.el = el;
    this.live = live;
    this.unsubscribe = null;
    this.who = null;
    // A view's vote that did not settle the ask (`{voted, approvals}` from the submit).
    this.onVoted = (e) => {
      if (this.view && e.detail && e.detail.approvals) this.paint(e.detail.approvals);
    };
    window.addEventListener('askd:voted', this.onVoted);
  }

  async show(view) {
    this.hide();
    if (!view.approvals) return;
    this.view = view;
    this.who = await me();
    this.unsubscribe = this.live.subscribe(({ kind, data }) => {
      if (!data || data.ask_id !== view.ask_id) return;
      if (kind === 'ask.voted' || kind === 'ask.settled') {
        api('GET', `/api/asks/${encodeURIComponent(view.ask_id)}`).then((v) => {
          if (!this.view || this.view.ask_id !== view.ask_id) return;
          this.view = v;
          this.paint(v.approvals || (v.result && v.result.approvals && { ...v.result.approvals, votes: v.result.votes }));
        }, () => {});
      }
    });
    this.paint(view.approvals);
  }

  hide() {
    if (this.unsubscribe) this.unsubscribe();
    this.unsubscribe = null;
    this.view = null;
    this.el.hidden = true;
    this.el.replaceChildren();
  }

  paint(ap) {
    if (!ap) return;
    const votes = Array.isArray(ap.votes) ? ap.votes : [];
    const settled = this.view && this.view.state === 'settled';
    const from = Array.isArray(ap.from) ? ap.from.join(', ') : t('approvals.any');
    const mine = this.who && this.who.kind === 'member'
      && votes.some((v) => v.answered_by && v.answered_by.id === this.who.id);
    this.el.hidden = false;
    this.el.replaceChildren(
      h('p', { class: 'approvals-count', role: 'status' },
        h('strong', {}, t('approvals.count', { n: votes.length, required: ap.required })), ' · ',
        settled ? t('approvals.settled', { n: votes.length, required: ap.required, names: names(votes) })
          : votes.length ? t('approvals.by', { names: names(votes) }) : t('approvals.none')),
      settled ? null : h('p', { class: 'approvals-rule' }, t('approvals.from', { required: ap.required, from }), ' ', t('approvals.rule')),
      mine && !settled ? h('p', { class: 'approvals-mine' }, t('approvals.mine')) : null);
  }
}

// The drift decision card (alignment.md §6): an ask of kind `drift`. The agent's description,
// required change and option descriptions arrive as server-sanitised HTML (`*_html`) and go
// through html.js only; labels, baseline items and ids are inserted as text. The decision
// comes from the action the human used — askd's fixed buttons — never from label text.
//
// Picking and sending are two steps: a fixed action (or a direction) is picked explicitly,
// then "Send decision" or Enter sends it. There is no default action, so Enter alone sends
// nothing. Keys: A approve, K keep, 1–4 select a direction, O another direction, Esc not now
// (with a confirmation), Ctrl+Enter sends from a text field.
//
// Alone on its page (`/a/{id}`) the card takes the page's keys. Embedded in another page (the
// session page, `ctx.embedded`) a key acts only while focus is inside the card, and a decision
// sent by keyboard (Enter, Ctrl+Enter, or a key press on "Send decision") asks first, with
// "No" focused: stray keystrokes on that page never decide a drift.
import { ask as askApi } from './api.js';
import { h, icon, nextId, setText } from './dom.js';
import { setSanitizedHtml } from './html.js';
import { t } from './i18n.js';
import { confirmDialog } from './dialog.js';
import { hideTooltip, tooltipOpen } from './tooltip.js';
import { alignStyles, baselineFields, reasonLabel, when } from './align.js';

const ACTIONS = ['approve', 'reject', 'option', 'other'];
const ACTION_LABEL = { approve: 'drift.approve', reject: 'drift.reject', option: 'drift.option', other: 'drift.other' };

/** Unicode scalar values after trimming (alignment.md §0). */
function chars(s) {
  return [...String(s || '').trim()].length;
}

/** The problem list of an API error: `errors: [{path, message}]` or `error: {path, message}`. */
function problems(e) {
  const b = (e && e.body) || {};
  if (Array.isArray(b.errors) && b.errors.length) return b.errors;
  if (b.error && typeof b.error === 'object') return [b.error];
  return [{ path: '', message: (typeof b.error === 'string' && b.error) || b.message || e.message }];
}

/** A settled drift's state from its ask's outcome (when the drift itself does not say). */
export function driftState(outcome) {
  return ({ answered: 'decided', cancelled: 'dismissed', aborted: 'withdrawn', superseded: 'superseded' })[outcome] || 'decided';
}

/**
 * A settled drift's decision as lines: the verdict (or how it closed without one) and the
 * human's note. `dec` is {decision, choice, choice_source, note} (the card's or the record's).
 */
export function decisionLines(dec, state) {
  if (!dec || !dec.decision) return [h('p', { class: 'drift-verdict' }, h('strong', null, t(`drift.state.${state}`)))];
  const lines = [h('p', { class: 'drift-verdict' }, h('strong', null, dec.decision === 'revise'
    ? t('drift.decision.revise', { choice: dec.choice || '' }) : t(`drift.decision.${dec.decision}`)),
  dec.choice_source ? h('span', { class: 'muted' }, ` (${t(`drift.source.${dec.choice_source}`)})`) : null)];
  if (dec.note) lines.push(h('p', { class: 'drift-note' }, t('drift.noteShown', { note: dec.note })));
  return lines;
}

export class DriftCard {
  constructor(root, view, ctx) {
    this.root = root;
    this.ctx = ctx;
    this.embedded = !!(ctx && ctx.embedded);
    this.setView(view);
    this.action = null;
    this.option = null;
    this.busy = false;
    this.gone = false;
    this.onKey = (e) => this.key(e);
  }

  setView(view) {
    this.view = view;
    this.id = view.ask_id;
    this.drift = view.drift || {};
    /** The longest note or own-choice text the daemon takes (`text_max` of the view). */
    this.textMax = Number(this.drift.text_max) || Infinity;
    this.options = Array.isArray(this.drift.options) ? this.drift.options : [];
  }

  /** Open: the ask is pending and the drift undecided. */
  get open() {
    return this.view.state === 'pending' && (this.drift.state || 'open') === 'open';
  }

  async mount() {
    await alignStyles();
    if (this.gone) return;
    this.render();
    document.addEventListener('keydown', this.onKey);
    this.unsubscribe = this.ctx.live.subscribe(({ kind, data }) => {
      if (this.gone) return;
      if (kind === 'poll') this.reload();
      else if (kind === 'ask.settled' && data && data.ask_id === this.id && !this.busy) this.reload();
    });
  }

  unmount() {
    this.gone = true;
    document.removeEventListener('keydown', this.onKey);
    if (this.unsubscribe) this.unsubscribe();
  }

  async reload(notice) {
    try {
      const v = await askApi.view(this.id);
      if (this.gone || v.ask_id !== this.id) return;
      const wasOpen = this.open;
      this.setView(v);
      if (wasOpen && this.open) return; // nothing changed for the card
      this.notice = notice || null;
      this.render();
    } catch {
      // The next event or poll tries again.
    }
  }

  render() {
    hideTooltip();
    const titleId = nextId('drift');
    const d = this.drift;
    const session = (d.session && d.session.id) || this.view.session;
    const client = (d.session && d.session.client) || this.view.client;
    const head = h('header', { class: 'card-head drift-head' },
      h('div', { class: 'head-main' },
        h(this.embedded ? 'h3' : 'h1', { class: 'drift-title', id: titleId },
          h('span', { class: 'chip drift-badge' }, icon('branch'), t('drift.badge')),
          h('span', { class: 'drift-reason' }, reasonLabel(d))),
        // Embedded in the session page, the origin is the page itself.
        this.embedded ? null : h('div', { class: 'eyebrow drift-origin' },
          client ? h('span', { class: 'drift-client' }, client) : null,
          client && session ? ' · ' : null,
          session ? h('a', {
            href: `/sessions/${encodeURIComponent(session)}`, 'data-nav': '', class: 'session-link',
            'data-tip': t('drift.session.hint'),
          }, t('drift.session', { id: session })) : null)),
      h('div', { class: 'head-tools' },
        h('span', { class: 'mono muted small' }, d.drift_id || '')));
    // Embedded, the card is the session log's entry for this drift: its description there.
    const change = h('div', { class: `prose drift-description${this.embedded ? ' drift-desc' : ''}` });
    setSanitizedHtml(change, d.description_html || '');
    let required = null;
    if (d.required_change_html || d.required_change) {
      const body = h('div', { class: 'prose' });
      setSanitizedHtml(body, d.required_change_html || '');
      required = h('div', { class: 'drift-required' }, h('strong', null, t('drift.required')), body);
    }
    const baseline = d.baseline;
    // Folded on a phone, so the decision is on the first screen; open where there is room.
    const panel = h('details', { class: 'drift-baseline', open: !matchMedia('(max-width: 560px)').matches },
      h('summary', null, baseline && baseline.revision
        ? t('drift.baseline.revision', { r: baseline.revision }) : t('drift.baseline')),
      baseline && baseline.revision ? baselineFields(baseline) : h('p', { class: 'muted' }, t('drift.baseline.none')));
    // Embedded, the session page shows the baseline in its own section.
    const sections = [
      h('h2', { class: 'sub-title' }, t('drift.change')), change, required, this.embedded ? null : panel,
    ];
    this.radios = [];
    if (this.options.length) sections.push(this.directions());
    const body = h('div', { class: 'drift-body' }, sections);
    // Embedded, the card takes focus on a click anywhere in it, so its keys can be used.
    this.card = h('section', {
      class: `card drift-card${this.open ? '' : ' settled-drift'}`, 'aria-labelledby': titleId, 'data-state': d.state || 'open',
      tabindex: this.embedded ? '-1' : null,
    }, head, body, this.open ? this.controls() : this.outcome());
    this.root.replaceChildren(...[this.card, this.open ? h('p', { class: 'kbd-hint' }, t(this.embedded ? 'drift.keys.embedded' : 'drift.keys', { dir: this.directionKeys() })) : null].filter(Boolean));
    if (this.open) this.refresh();
  }

  directions() {
    const legendId = nextId('dirs');
    const name = nextId('dir');
    const rows = this.options.map((o, i) => {
      const input = h('input', {
        type: 'radio', name, value: String(i), class: 'dir-input', disabled: !this.open,
        'aria-describedby': o.description_html || o.description ? `${name}-d${i}` : null,
      });
      input.checked = this.open ? this.option === i : this.drift.decision && this.drift.decision.option_index === i;
      input.addEventListener('change', () => {
        if (input.checked) this.selectOption(i);
      });
      this.radios.push(input);
      let desc = null;
      if (o.description_html || o.description) {
        desc = h('div', { class: 'prose dir-desc', id: `${name}-d${i}` });
        if (o.description_html) setSanitizedHtml(desc, o.description_html);
        else setText(desc, o.description);
      }
      return h('label', { class: 'dir-row', 'data-index': String(i) },
        input, h('span', { class: 'key', 'aria-hidden': 'true' }, String(i + 1)),
        h('span', { class: 'dir-body' }, h('span', { class: 'dir-label' }, o.label || ''), desc));
    });
    return h('fieldset', { class: 'drift-directions', 'aria-labelledby': legendId },
      h('legend', { class: 'sub-title', id: legendId }, t('drift.directions')),
      h('div', { role: 'radiogroup', 'aria-labelledby': legendId, class: 'dir-list' }, rows));
  }

  controls() {
    this.buttons = {};
    const button = (action, hint) => {
      const b = h('button', {
        type: 'button', class: `btn drift-action act-${action}`, 'data-action': action, 'aria-pressed': 'false',
        'data-tip': t(hint), onclick: () => this.pick(action),
      }, t(ACTION_LABEL[action]));
      this.buttons[action] = b;
      return b;
    };
    const dismiss = h('button', {
      type: 'button', class: 'btn ghost drift-action act-dismiss', 'data-action': 'dismiss',
      'data-tip': t('drift.dismiss.hint'), onclick: () => this.dismiss(),
    }, t('drift.dismiss'));
    this.buttons.dismiss = dismiss;
    const otherId = nextId('other');
    const noteId = nextId('note');
    this.otherInput = h('textarea', {
      id: otherId, class: 'drift-text', rows: '2', ...(Number.isFinite(this.textMax) ? { maxlength: String(this.textMax) } : {}), required: true,
      placeholder: t('drift.otherPlaceholder'), 'aria-describedby': `${otherId}-count ${otherId}-err`,
    });
    this.otherCount = h('span', { class: 'counter', id: `${otherId}-count` });
    this.otherError = h('p', { class: 'field-error', id: `${otherId}-err`, role: 'alert' });
    this.otherInput.addEventListener('input', () => {
      this.otherError.textContent = '';
      this.refresh();
    });
    this.otherBox = h('div', { class: 'drift-field drift-other', hidden: this.action !== 'other' },
      h('label', { for: otherId, class: 'field-label' }, t('drift.otherLabel')), this.otherInput,
      h('div', { class: 'field-foot' }, this.otherError, this.otherCount));
    this.noteInput = h('textarea', {
      id: noteId, class: 'drift-text', rows: '2', ...(Number.isFinite(this.textMax) ? { maxlength: String(this.textMax) } : {}),
      placeholder: t('drift.notePlaceholder'), 'aria-describedby': `${noteId}-count ${noteId}-err`,
    });
    this.noteCount = h('span', { class: 'counter', id: `${noteId}-count` });
    this.noteError = h('p', { class: 'field-error', id: `${noteId}-err`, role: 'alert' });
    this.noteInput.addEventListener('input', () => {
      this.noteError.textContent = '';
      this.refresh();
    });
    this.alert = h('div', { class: 'alert', role: 'alert' });
    this.picked = h('span', { class: 'progress-text drift-picked', 'aria-live': 'polite' });
    this.sendBtn = h('button', {
      type: 'button', class: 'seg primary drift-send', 'data-tip': t('drift.send.hint'),
      // detail 0: activated from the keyboard, not by a pointer.
      onclick: (e) => this.send(e.detail === 0),
    }, h('span', { class: 'seg-label' }, t('drift.send')));
    return h('div', { class: 'drift-decide' },
      h('div', { class: 'drift-actions', role: 'group', 'aria-label': t('drift.actions') },
        ACTIONS.map((a) => button(a, `drift.${a}.hint`)), h('span', { class: 'rv-spacer' }), dismiss),
      this.otherBox,
      h('div', { class: 'drift-field drift-note' },
        h('label', { for: noteId, class: 'field-label' }, t('drift.note')), this.noteInput,
        h('div', { class: 'field-foot' }, this.noteError, this.noteCount)),
      this.alert,
      h('div', { class: 'toolbar' }, h('div', { class: 'tb-left' }, this.picked), h('div', { class: 'tb-right' }, this.sendBtn)));
  }

  /** The read-only decision of a settled card. */
  outcome() {
    const d = this.drift;
    const dec = d.decision;
    const state = d.state && d.state !== 'open' ? d.state : driftState(this.view.outcome);
    const lines = decisionLines(dec, state);
    const at = dec && dec.decision ? dec.decided_at : this.view.settledAt;
    if (at) lines.push(h('p', { class: 'muted small' }, when(at)));
    const session = (d.session && d.session.id) || this.view.session;
    return h('div', { class: `drift-outcome state-${state}`, role: 'status' },
      h('div', { class: 'drift-outcome-head' }, h('span', { class: `chip drift-state state-${state}` }, t(`drift.state.${state}`)),
        this.notice ? h('span', { class: 'muted' }, this.notice) : null),
      lines,
      h('div', { class: 'crash-actions' },
        h('a', { href: '/', class: 'btn', 'data-nav': '' }, t('back.inbox')),
        session ? h('a', { href: `/sessions/${encodeURIComponent(session)}`, class: 'btn', 'data-nav': '' }, t('session.link')) : null));
  }

  selectOption(i, viaKey) {
    if (!this.open || this.busy || i < 0 || i >= this.options.length) return;
    this.option = i;
    if (this.radios[i]) {
      this.radios[i].checked = true;
      if (viaKey) this.radios[i].focus();
    }
    // Choosing a direction is the pick of "Use this direction", unless another action was
    // picked explicitly.
    if (this.action === null || this.action === 'option') this.action = 'option';
    this.alert.textContent = '';
    this.refresh();
  }

  pick(action) {
    if (!this.open || this.busy) return;
    if (action === 'option' && this.option === null) return;
    this.action = action;
    this.alert.textContent = '';
    this.refresh();
    if (action === 'other') this.otherInput.focus();
  }

  refresh() {
    if (!this.buttons) return;
    for (const a of ACTIONS) {
      this.buttons[a].setAttribute('aria-pressed', String(this.action === a));
      this.buttons[a].disabled = this.busy || (a === 'option' && this.option === null);
    }
    this.buttons.dismiss.disabled = this.busy;
    this.otherBox.hidden = this.action !== 'other';
    this.otherCount.textContent = t('drift.count', { n: chars(this.otherInput.value), max: this.textMax });
    this.noteCount.textContent = t('drift.count', { n: chars(this.noteInput.value), max: this.textMax });
    this.picked.textContent = this.action ? t('drift.picked', { action: t(ACTION_LABEL[this.action]) }) : '';
    this.sendBtn.disabled = this.busy || !this.action;
    this.sendBtn.setAttribute('aria-disabled', String(!this.action));
    for (const r of this.radios) r.disabled = this.busy;
  }

  /** The request body for the picked action, or null after showing what is missing. */
  body() {
    const note = this.noteInput.value.trim();
    if (chars(note) > this.textMax) {
      this.noteError.textContent = t('drift.tooLong', { max: this.textMax });
      return null;
    }
    const withNote = (b) => (note ? { ...b, note } : b);
    switch (this.action) {
      case 'approve':
      case 'reject':
        return withNote({ action: this.action });
      case 'option':
        if (this.option === null) {
          this.alert.textContent = t('drift.pickOption');
          return null;
        }
        return withNote({ action: 'option', option: this.option });
      case 'other': {
        const text = this.otherInput.value.trim();
        const n = chars(text);
        if (n < 1 || n > this.textMax) {
          this.otherError.textContent = t(n ? 'drift.tooLong' : 'drift.otherRequired', { max: this.textMax });
          this.otherInput.focus();
          return null;
        }
        return withNote({ action: 'other', text });
      }
      default:
        this.alert.textContent = t('drift.pickFirst');
        return null;
    }
  }

  /** Sends the picked action; `byKey` on an embedded card asks first. */
  async send(byKey) {
    if (!this.open || this.busy) return;
    const body = this.body();
    if (!body) return;
    if (byKey && this.embedded) {
      const text = t('drift.keySend.confirm', { action: t(ACTION_LABEL[this.action]) });
      if (!(await confirmDialog(text, { focusNo: true }))) return;
      if (!this.open || this.busy || this.gone) return;
    }
    await this.post(body);
  }

  async dismiss() {
    if (!this.open || this.busy) return;
    if (!(await confirmDialog(t('drift.dismiss.confirm')))) return;
    await this.post({ action: 'dismiss' });
  }

  async post(body) {
    this.busy = true;
    this.refresh();
    try {
      const r = await askApi.submit(this.id, body);
      this.busy = false;
      // A member's vote on a card that needs more (approvals): it stays open.
      if (r && r.voted) {
        window.dispatchEvent(new CustomEvent('askd:voted', { detail: r }));
        this.refresh();
        return;
      }
      await this.reload();
      if (!this.gone && this.open) {
        // The answer was taken but the view is not settled yet: show what was sent.
        this.view = { ...this.view, state: 'settled' };
        this.render();
      }
    } catch (e) {
      this.busy = false;
      if (this.gone) return;
      if (e.status === 409) {
        await this.reload(t('drift.already'));
        return;
      }
      if (e.status === 0) {
        this.alert.textContent = t('error.network');
      } else {
        const general = [];
        for (const p of problems(e)) {
          if (p.path === 'text') this.otherError.textContent = p.message;
          else if (p.path === 'note') this.noteError.textContent = p.message;
          else general.push(p.message);
        }
        this.alert.textContent = general.join(' ');
      }
      this.refresh();
    }
  }

  /** desk-b: "1–3 direction · " for the options this card has (none: no digit keys). */
  directionKeys() {
    const n = Math.min(this.options.length, 4);
    return n ? `${t('drift.keys.dir', { keys: n === 1 ? '1' : `1–${n}` })} · ` : '';
  }

  key(e) {
    if (!this.open || this.gone || e.defaultPrevented || document.querySelector('dialog[open]')) return;
    const target = e.target;
    // Embedded, the page's other keys are not the card's: only keys typed inside it count.
    if (this.embedded && !(target instanceof Node && this.root.contains(target))) return;
    const typing = target && target.matches && target.matches('textarea, input[type="text"]');
    if (e.key === 'Escape') {
      if (tooltipOpen()) {
        hideTooltip();
        return;
      }
      e.preventDefault();
      if (typing) target.blur();
      else this.dismiss();
      return;
    }
    if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) {
      e.preventDefault();
      if (this.action) this.send(true);
      else this.alert.textContent = t('drift.pickFirst');
      return;
    }
    if (typing || e.altKey || e.ctrlKey || e.metaKey || e.isComposing) return;
    if (e.key === 'Enter') {
      // Enter on a button, link or summary activates it; elsewhere it sends a picked action.
      if (target && target.closest && target.closest('button, a, summary')) return;
      e.preventDefault();
      if (this.action) this.send(true);
      else this.alert.textContent = t('drift.pickFirst');
      return;
    }
    const k = e.key.toLowerCase();
    if (k === 'a' || k === 'k') {
      e.preventDefault();
      this.pick(k === 'a' ? 'approve' : 'reject');
    } else if (k === 'o') {
      e.preventDefault();
      this.pick('other');
    } else if (/^[1-4]$/.test(k) && Number(k) <= this.options.length) {
      e.preventDefault();
      this.selectOption(Number(k) - 1, true);
    }
  }
}

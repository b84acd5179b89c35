// The survey wizard (survey.md §12): one question per page over the live path, which only
// the server computes (POST /api/asks/{id}/path — there is no second path engine here).
// Progress is durable: every change autosaves (debounced 500 ms, flushed when the page is
// hidden and before any action); banked answers are locked; other tabs stay consistent
// through the event stream.
import { ask as askApi } from './api.js';
import { h, icon, nextId, show, displayLabel, setText, plainText, repeatNotice } from './dom.js';
import { Autosave } from './autosave.js';
import { setSanitizedHtml } from './html.js';
import { t } from './i18n.js';
import { optionRows, closePanel } from './rows.js';
import { confirmDialog, toggleHelp, optionKeyFor, chooseKeys } from './dialog.js';
import { hideTooltip, tooltipOpen } from './tooltip.js';

function blank(s) {
  return typeof s !== 'string' || s.trim() === '';
}

function substantive(a) {
  return !!a && ((a.selected && a.selected.length > 0) || !blank(a.custom));
}

function explicitSkip(a) {
  return !!a && a.skipped === true && !substantive(a);
}

function emptyAnswer() {
  return { selected: [], custom: '', skipped: false, justifications: {} };
}

/** A clean local answer from an autosave entry. */
function fromSaved(a) {
  const out = emptyAnswer();
  if (!a || typeof a !== 'object') return out;
  if (Array.isArray(a.selected)) out.selected = a.selected.filter((k) => typeof k === 'string');
  if (typeof a.custom === 'string') out.custom = a.custom;
  out.skipped = a.skipped === true;
  if (a.justifications && typeof a.justifications === 'object') {
    for (const [k, v] of Object.entries(a.justifications)) if (typeof v === 'string') out.justifications[k] = v;
  }
  return out;
}

export class Wizard {
  /** ctx: {live, navigate(path), onCrash(error)} */
  constructor(root, view, ctx) {
    this.root = root;
    this.ctx = ctx;
    this.id = view.ask_id;
    this.answers = {};
    this.banked = new Map();
    this.path = [];
    this.position = 'intro';
    this.quickMode = false;
    // desk-b: free text typed in this tab (question id → text) and another tab's differing text.
    this.typed = new Map();
    this.conflicts = new Map();
    this.remoteRevision = 0;
    this.filled = 0;
    this.busy = false;
    this.pathSeq = 0;
    this.pathPromise = Promise.resolve();
    this.settled = false;
    this.onKey = (e) => this.guard(() => this.key(e));
    this.draft = new Autosave({
      id: this.id,
      snapshot: () => this.snapshot(),
      send: (body, keepalive) => askApi.autosave(this.id, body, keepalive),
      onSaved: () => {
        if (this.remoteRevision > this.draft.revision && !this.draft.dirty) this.reload();
      },
      onFailed: (e) => {
        if (e.status === 409) this.reload();
      },
      onVisible: () => this.guard(() => this.reload()),
    });
    this.adopt(this.draft.restore(view), true);
    // Restored text counts as typed here (desk-b's conflicts).
    if (this.draft.restored) {
      for (const [id, a] of Object.entries(this.answers)) if (!blank(a.custom)) this.typed.set(id, a.custom);
    }
  }

  // ------------------------------------------------------------------ lifecycle

  async mount() {
    await this.computePath();
    this.restorePosition();
    this.build();
    this.renderPage(false);
    document.addEventListener('keydown', this.onKey);
    this.draft.start();
    this.unsubscribe = this.ctx.live.subscribe((e) => this.guard(() => this.event(e)));
    if (this.view.state !== 'pending') this.showSettled(this.view.outcome, false);
  }

  unmount() {
    this.draft.stop();
    document.removeEventListener('keydown', this.onKey);
    if (this.unsubscribe) this.unsubscribe();
    closePanel();
  }

  guard(fn) {
    try {
      const r = fn();
      if (r && typeof r.catch === 'function') r.catch((e) => this.ctx.onCrash(e));
    } catch (e) {
      this.ctx.onCrash(e);
    }
  }

  /** Takes the server's view: spec, banked answers, and (first load or adoption) the autosave. */
  adopt(view, withAutosave) {
    this.view = view;
    this.spec = view.spec;
    this.rendered = view.rendered || { questions: {} };
    this.banked = new Map((view.banked || []).map((b) => [b.id, b]));
    if (withAutosave) {
      const save = view.autosave || {};
      this.answers = {};
      for (const [id, a] of Object.entries(save.answers || {})) {
        if (this.spec.questions[id]) this.answers[id] = fromSaved(a);
      }
      this.savedPosition = typeof save.position === 'string' ? save.position : null;
      this.quickMode = save.quickMode === true;
      this.draft.adopted(view.autosaveRevision);
    }
  }

  restorePosition() {
    const p = this.savedPosition;
    if (!p || p === 'intro') {
      this.position = 'intro';
      return;
    }
    if (this.path.includes(p)) {
      this.position = p;
      return;
    }
    const open = this.path.find((id) => !this.isAnswered(id) && !explicitSkip(this.answer(id)));
    this.position = open || this.path[this.path.length - 1] || 'intro';
  }

  // ------------------------------------------------------------------ answers and path

  question(id) {
    return this.spec.questions[id];
  }

  /** The effective answer: the banked entry when banked, else the local one. */
  answer(id) {
    const b = this.banked.get(id);
    if (b) return { selected: b.selected || [], custom: b.custom || '', skipped: b.skipped === true, justifications: b.justifications || {} };
    return this.answers[id];
  }

  local(id) {
    if (!this.answers[id]) this.answers[id] = emptyAnswer();
    return this.answers[id];
  }

  isAnswered(id) {
    return substantive(this.answer(id));
  }

  hasAnyAnswer() {
    return Object.entries(this.answers).some(([id, a]) => !this.banked.has(id) && (substantive(a) || explicitSkip(a)));
  }

  answerCount() {
    return Object.entries(this.answers).filter(([id, a]) => !this.banked.has(id) && (substantive(a) || explicitSkip(a))).length;
  }

  pathAnswers() {
    const out = {};
    for (const [id, a] of Object.entries(this.answers)) {
      out[id] = { selected: a.selected, custom: a.custom, skipped: a.skipped };
    }
    return out;
  }

  /** Asks the server for the path of the current answers; only the latest reply counts. */
  computePath() {
    const seq = ++this.pathSeq;
    const p = askApi.path(this.id, this.pathAnswers()).then((r) => {
      if (seq !== this.pathSeq) return;
      this.pathAt = seq;
      this.path = Array.isArray(r.path) ? r.path : [];
      if (this.position !== 'intro' && !this.path.includes(this.position)) {
        const i = Math.min(this.pageIndex, this.path.length - 1);
        this.position = i >= 0 ? this.path[i] : 'intro';
        if (this.built) this.renderPage(true);
      }
    });
    this.pathPromise = p.catch((e) => this.showError(e));
    return this.pathPromise;
  }

  async pathReady() {
    let seq;
    do {
      seq = this.pathSeq;
      await this.pathPromise;
    } while (seq !== this.pathSeq);
  }

  get pageIndex() {
    return this.position === 'intro' ? -1 : this.path.indexOf(this.position);
  }

  changed({ path = true } = {}) {
    this.clearError();
    this.draft.changed();
    if (path) {
      this.computePath().then(() => this.refresh());
    }
    this.refresh();
  }

  choose(id, key) {
    if (this.banked.has(id) || this.busy) return;
    const q = this.question(id);
    const a = this.local(id);
    if (q.multiSelect) {
      if (a.selected.includes(key)) {
        a.selected = a.selected.filter((k) => k !== key);
        delete a.justifications[key];
      } else {
        a.selected = [...a.selected, key];
      }
    } else {
      a.selected = [key];
      a.custom = '';
      const keep = a.justifications[key];
      a.justifications = keep ? { [key]: keep } : {};
      if (this.customInput) this.customInput.value = '';
    }
    a.skipped = false;
    this.changed();
  }

  typeCustom(id, text) {
    if (this.banked.has(id)) return;
    const q = this.question(id);
    const a = this.local(id);
    a.custom = text;
    this.typed.set(id, text);
    a.skipped = false;
    const hadSelection = !q.multiSelect && a.selected.length > 0;
    if (!q.multiSelect) {
      a.selected = [];
      a.justifications = {};
    }
    // Custom text routes like no answer (§6.3), so only a cleared selection moves the path.
    this.changed({ path: hadSelection });
  }

  justify(id, key, text) {
    if (this.banked.has(id)) return;
    const a = this.local(id);
    if (!a.selected.includes(key)) return;
    if (text) a.justifications[key] = text;
    else delete a.justifications[key];
    this.changed({ path: false });
  }

  // ------------------------------------------------------------------ autosave

  snapshot() {
    const answers = {};
    for (const [id, a] of Object.entries(this.answers)) {
      if (this.banked.has(id)) continue;
      const j = {};
      for (const k of a.selected) if (a.justifications[k]) j[k] = a.justifications[k];
      answers[id] = { selected: a.selected, custom: a.custom, skipped: a.skipped, justifications: j };
    }
    return { v: 1, position: this.position, quickMode: this.quickMode, answers };
  }

  /** Saves now when anything changed (on hide, before actions). */
  flush(keepalive) {
    return this.draft.flush(keepalive);
  }

  // ------------------------------------------------------------------ live updates

  event({ kind, data }) {
    if (this.settled) return;
    if (kind === 'poll') {
      this.reload();
      return;
    }
    if (!data || data.ask_id !== this.id) return;
    if (kind === 'ask.settled') {
      // While this view's own settling action is in flight, its reply decides what to show.
      if (!this.busy) this.showSettled(data.outcome, false);
    } else if (kind === 'ask.banked') {
      this.applyBanked(data.banked || []);
    } else if (kind === 'ask.autosaved') {
      if ((data.revision || 0) <= this.draft.revision) return;
      this.remoteRevision = Math.max(this.remoteRevision, data.revision || 0);
      if (!this.draft.dirty && !this.draft.saving) this.reload();
      else this.checkConflicts();
    }
  }

  applyBanked(list) {
    const wasBanked = this.position !== 'intro' && this.banked.has(this.position);
    this.banked = new Map(list.map((b) => [b.id, b]));
    const isBanked = this.position !== 'intro' && this.banked.has(this.position);
    if (wasBanked !== isBanked) this.renderPage(false);
    this.refresh();
  }

  /** Re-reads the ask; adopts a newer autosave from another view unless this one has edits. */
  async reload() {
    if (this.settled || this.reloading) return;
    this.reloading = true;
    try {
      const view = await askApi.view(this.id);
      if (view.state !== 'pending') {
        this.showSettled(view.outcome, false);
        return;
      }
      const newer = (view.autosaveRevision || 0) > this.draft.revision && !this.draft.dirty && !this.draft.saving;
      const before = JSON.stringify([this.snapshot(), [...this.banked.keys()]]);
      const clash = newer ? this.findConflicts(view) : new Map();
      this.adopt(view, newer);
      // desk-b: this tab's own text stays on screen beside the other tab's, never replaced silently.
      for (const [id, c] of clash) {
        this.answers[id] = structuredClone(c.answer);
        this.conflicts.set(id, c);
      }
      if (clash.size) this.renderPage(false);
      if (newer) {
        if (this.savedPosition) {
          this.position = this.savedPosition;
        }
        await this.computePath();
        if (this.position !== 'intro' && !this.path.includes(this.position)) this.restorePosition();
      }
      const after = JSON.stringify([this.snapshot(), [...this.banked.keys()]]);
      if (before !== after) this.renderPage(false);
      this.refresh();
    } catch (e) {
      if (e.status === 404) this.showSettled('aborted', false);
    } finally {
      this.reloading = false;
    }
  }

  // ------------------------------------------------------------------ the card

  build() {
    const title = plainText(this.spec.title || t('title.default'));
    const eyebrow = [this.view.client, this.view.workspace].filter(Boolean).join(' · ');
    this.titleId = nextId('title');
    const btn = (cls, label, hint, iconName, onclick) => h('button', {
      type: 'button', class: cls, 'aria-label': label, 'data-tip': hint,
      onclick: () => this.guard(onclick),
    }, icon(iconName));
    this.headTools = h('div', { class: 'head-tools' },
      btn('tool', t('help.open'), t('help.open.hint'), 'keyboard', () => toggleHelp()),
      btn('tool', t('nav.putAway'), t('nav.putAway.hint'), 'down', () => this.putAway()),
      // Not an ×: closing the page is Put away; cancelling ends the ask, so it asks first.
      btn('tool', t('nav.cancel'), t('nav.cancel.hint'), 'ban', () => this.cancel()));
    this.bar = h('div', { class: 'bar-fill' });
    this.progressBar = h('div', {
      class: 'bar', role: 'progressbar', 'aria-valuemin': '0', 'aria-label': t('progress.label'),
    }, this.bar);
    this.bankChip = h('span', { class: 'chip bank-chip', hidden: true }, icon('lock'), h('span'));
    this.page = h('div', { class: 'page' });
    this.alert = h('div', { class: 'alert', role: 'alert' });
    this.backBtn = this.segment('nav.prev', () => this.back(), { icon: 'back', iconOnly: true });
    this.progressText = h('span', { class: 'progress-text', 'aria-live': 'polite' });
    this.skipBtn = this.segment('action.skip', () => this.skip());
    this.bankBtn = this.segment('action.bank', () => this.bank());
    this.quickBtn = this.segment('action.quick', () => this.openQuick());
    this.rerollBtn = this.segment('action.reroll', () => this.preflight('reroll'));
    this.pushBtn = this.segment('action.push', () => this.preflight('push'));
    this.discussBtn = this.segment('action.discuss', () => this.preflight('discuss'));
    this.primaryBtn = this.segment('action.next', () => this.primary(), { primary: true });
    this.footer = h('div', { class: 'toolbar', role: 'toolbar', 'aria-label': title },
      h('div', { class: 'tb-left' }, this.backBtn, this.progressText),
      h('div', { class: 'tb-right' }, this.skipBtn, this.bankBtn, this.quickBtn,
        this.rerollBtn, this.pushBtn, this.discussBtn, this.primaryBtn));
    this.card = h('section', { class: 'card wizard', 'aria-labelledby': this.titleId },
      h('header', { class: 'card-head' },
        h('div', { class: 'head-main' },
          eyebrow ? h('div', { class: 'eyebrow' }, eyebrow) : null,
          h('div', { class: 'card-title', id: this.titleId }, title)),
        this.bankChip, this.headTools),
      this.progressBar, this.page, this.alert, this.footer);
    this.keyHint = h('p', { class: 'kbd-hint' });
    this.root.replaceChildren(this.card, this.keyHint);
    this.built = true;
  }

  segment(key, onclick, { primary = false, icon: iconName = null, iconOnly = false } = {}) {
    const label = h('span', { class: 'seg-label' }, t(key));
    const b = h('button', {
      type: 'button', class: `seg${primary ? ' primary' : ''}${iconOnly ? ' icon-only' : ''}`,
      'aria-label': t(key), 'data-tip': t(`${key}.hint`),
      onclick: () => this.guard(onclick),
    }, iconName ? icon(iconName) : null, iconOnly ? null : label);
    b.dataset.key = key;
    return b;
  }

  setSegment(b, key) {
    if (b.dataset.key === key) return;
    b.dataset.key = key;
    const label = b.querySelector('.seg-label');
    if (label) label.textContent = t(key);
    b.setAttribute('aria-label', t(key));
    b.setAttribute('data-tip', t(`${key}.hint`));
  }

  /** Builds the current page; focus moves to its heading when `focus`. */
  renderPage(focus) {
    closePanel();
    hideTooltip();
    this.rows = null;
    this.customInput = null;
    let heading;
    if (this.position === 'intro' && this.quickMode && this.spec.quick && this.spec.quick.length) {
      heading = this.renderQuick();
    } else if (this.position === 'intro') {
      heading = this.renderIntro();
    } else {
      heading = this.renderQuestion(this.position);
      this.renderConflict();
    }
    this.card.dataset.position = this.position === 'intro' && this.quickMode ? 'quick' : this.position;
    this.card.classList.toggle('at-intro', this.position === 'intro' && !this.quickMode);
    this.renderKeyHint();
    this.refresh();
    if (focus && heading) heading.focus({ preventScroll: false });
  }

  /**
   * desk-b: the questions whose saved text (another tab's, in `view`) differs from the text
   * this tab typed and still shows: id → {mine, theirs, remote (their whole answer), answer
   * (this tab's whole answer)}.
   */
  findConflicts(view) {
    const found = new Map();
    if ((view.autosaveRevision || 0) <= this.draft.revision) return found;
    const saved = (view.autosave && view.autosave.answers) || {};
    for (const [id, mine] of this.typed) {
      const current = this.answers[id] ? this.answers[id].custom || '' : '';
      if (current !== mine || blank(mine) || this.banked.has(id)) continue;
      const remote = Object.hasOwn(saved, id) ? saved[id] : null;
      const theirs = remote && typeof remote.custom === 'string' ? remote.custom : '';
      if (theirs !== mine) found.set(id, { mine, theirs, remote, answer: structuredClone(this.answers[id]) });
    }
    return found;
  }

  /** desk-b: another tab saved while this one has unsaved edits: look, without adopting. */
  async checkConflicts() {
    let view;
    try {
      view = await askApi.view(this.id);
    } catch {
      return;
    }
    if (this.settled || view.state !== 'pending') return;
    const clash = this.findConflicts(view);
    for (const [id, c] of clash) this.conflicts.set(id, c);
    if (clash.has(this.position)) this.renderPage(false);
  }

  /** desk-b: "Changed in another tab: <their text> — Keep mine / Use theirs" on its question. */
  renderConflict() {
    const id = this.position;
    const c = this.conflicts.get(id);
    if (!c) return;
    const done = (answer) => {
      this.conflicts.delete(id);
      if (answer === null) delete this.answers[id];
      else this.answers[id] = answer;
      this.changed();
      this.renderPage(false);
    };
    const keep = h('button', { type: 'button', class: 'btn small conflict-keep keep-live' }, t('conflict.keep'));
    const theirs = h('button', { type: 'button', class: 'btn small conflict-theirs keep-live' }, t('conflict.theirs'));
    keep.addEventListener('click', () => this.guard(() => done(structuredClone(c.answer))));
    theirs.addEventListener('click', () => this.guard(() => {
      this.typed.delete(id);
      done(c.remote ? fromSaved(c.remote) : null);
    }));
    this.page.appendChild(h('div', { class: 'conflict', role: 'alert' },
      h('p', { class: 'conflict-title' }, t('conflict.title')),
      h('p', { class: 'conflict-text' }, blank(c.theirs) ? t('conflict.empty') : c.theirs),
      h('div', { class: 'conflict-actions' }, keep, theirs)));
  }

  /** desk-b: the hint under the card names the keys that work on this page, and only those. */
  renderKeyHint() {
    const parts = [];
    const keys = this.rows ? this.rows.keys() : [];
    if (this.position === 'intro' && this.rows) {
      parts.push(t('hint.focus', { keys: chooseKeys('abcdef'.slice(0, keys.length).split('')) }), t('hint.pick'), t('hint.back'));
    } else if (this.position === 'intro') {
      parts.push(t('hint.start'));
    } else {
      if (keys.length) parts.push(t('hint.choose', { keys: chooseKeys(keys) }));
      parts.push(t('hint.next'), t('hint.back'));
    }
    parts.push(t('hint.help'));
    this.keyHint.textContent = parts.join(' · ');
  }

  renderIntro() {
    const heading = h('h1', { class: 'prompt intro-title', tabindex: '-1' }, plainText(this.spec.title || t('title.default')));
    const body = h('div', { class: 'prose intro' });
    if (this.rendered.intro) setSanitizedHtml(body, this.rendered.intro);
    // replaceChildren writes a null as the text "null": a survey without an intro has none.
    this.page.replaceChildren(heading, ...(this.rendered.intro ? [body] : []));
    this.page.className = 'page page-intro';
    return heading;
  }

  renderQuick() {
    const headingId = nextId('quick');
    const heading = h('h1', { class: 'prompt', id: headingId, tabindex: '-1' }, t('quick.title'));
    const rq = this.rendered.quick || {};
    const items = this.spec.quick.slice(0, 6).map((tpl, i) => {
      const d = displayLabel(tpl.label, tpl.recommended);
      return {
        key: tpl.key, badge: 'abcdef'[i], label: d.label, recommended: d.recommended,
        description: tpl.description, insightHtml: rq[tpl.key] && rq[tpl.key].insight,
        sources: tpl.sources, diagram: tpl.diagram,
      };
    });
    this.rows = optionRows({
      labelledBy: headingId, multi: false, locked: false, askId: this.id, items,
      isSelected: () => false, canJustify: false,
      onChoose: (key) => this.guard(() => this.pickTemplate(key)),
    });
    this.page.replaceChildren(heading, h('p', { class: 'subtitle' }, t('quick.subtitle')), this.rows.el);
    this.page.className = 'page page-quick';
    return heading;
  }

  renderQuestion(id) {
    const q = this.question(id);
    const r = this.rendered.questions[id] || {};
    const banked = this.banked.has(id);
    const promptId = nextId('prompt');
    const heading = h('div', { class: 'prompt prose', id: promptId, role: 'heading', 'aria-level': '1', tabindex: '-1' });
    setSanitizedHtml(heading, r.prompt || '');
    if (!r.prompt) setText(heading, q.prompt);
    const top = h('div', { class: 'q-top' },
      q.header ? h('span', { class: 'chip header-chip' }, q.header) : null,
      banked ? h('span', { class: 'chip locked-chip' }, icon('lock'), t('bank.locked')) : null);
    const detail = r.detail ? h('div', { class: 'prose detail' }) : null;
    if (detail) setSanitizedHtml(detail, r.detail);
    const parts = [top, heading, repeatNotice(this.view, id), detail];
    if (q.options && q.options.length) {
      const ro = r.options || {};
      const items = q.options.map((o) => {
        const d = displayLabel(o.label, o.recommended);
        return {
          key: o.key, badge: o.key, label: d.label, recommended: d.recommended,
          description: o.description, insightHtml: ro[o.key] && ro[o.key].insight,
          sources: o.sources, diagram: o.diagram,
        };
      });
      this.rows = optionRows({
        labelledBy: promptId, multi: !!q.multiSelect, locked: banked, askId: this.id, items,
        isSelected: (key) => { const a = this.answer(id); return !!a && a.selected.includes(key); },
        why: (key) => { const a = this.answer(id); return a && a.justifications ? a.justifications[key] : ''; },
        canJustify: !banked,
        onChoose: (key) => this.guard(() => this.choose(id, key)),
        onJustify: (key, text) => this.guard(() => this.justify(id, key, text)),
        onEnterSelected: () => this.guard(() => this.primary()),
      });
      parts.push(this.rows.el);
    }
    const a0 = this.answer(id);
    if (q.allowCustom !== false && !(banked && blank(a0 && a0.custom))) {
      const a = a0;
      const input = h('textarea', {
        class: 'custom-input', rows: '1', placeholder: t('custom.placeholder'),
        'aria-label': t('custom.label'),
      });
      input.value = (a && a.custom) || '';
      input.disabled = banked;
      input.addEventListener('input', () => {
        this.grow(input);
        this.guard(() => this.typeCustom(id, input.value));
      });
      input.addEventListener('keydown', (e) => {
        if (e.key === 'Enter' && !e.shiftKey && !e.isComposing && e.keyCode !== 229) {
          e.preventDefault();
          this.guard(() => this.primary());
        }
      });
      this.customInput = input;
      parts.push(h('div', { class: `custom-row${q.options && q.options.length ? '' : ' only'}` }, input));
      requestAnimationFrame(() => this.grow(input));
    }
    this.page.replaceChildren(...parts.filter(Boolean));
    this.page.className = 'page page-question';
    return heading;
  }

  grow(input) {
    input.style.height = 'auto';
    input.style.height = `${input.scrollHeight}px`;
  }

  /** Updates everything that follows the answers: rows, footer, progress, chip. */
  refresh() {
    if (!this.built || this.settled) return;
    if (this.rows) this.rows.update();
    const intro = this.position === 'intro';
    const quick = intro && this.quickMode && !!(this.spec.quick && this.spec.quick.length);
    const n = this.path.length;
    // desk-c: where you are and about how much is left on the path known so far (answers
    // reroute); the bar only grows, each answer filling its share of what is left.
    const left = n - 1 - this.pageIndex;
    const place = intro ? '' : t(left > 0 ? 'progress.text' : 'progress.last', { i: this.pageIndex + 1, left });
    this.progressText.textContent = place;
    show(this.progressText, !intro);
    // Only against the path of the current answers (not one still being computed).
    if (this.pathAt === this.pathSeq) {
      const done = this.path.filter((id) => this.banked.has(id) || this.isAnswered(id) || explicitSkip(this.answer(id))).length;
      const gained = done - (this.doneBefore ?? done);
      if (gained > 0) this.filled += (1 - this.filled) * (gained / (n - done + gained));
      this.filled = Math.max(this.filled, n ? done / n : 0);
      this.doneBefore = done;
    }
    const pct = Math.round(this.filled * 100);
    this.bar.style.width = `${pct}%`;
    this.progressBar.setAttribute('aria-valuemax', '100');
    this.progressBar.setAttribute('aria-valuenow', String(pct));
    this.progressBar.setAttribute('aria-valuetext', place || `${pct}%`);
    this.progressBar.classList.toggle('invisible', intro);
    const bankedCount = this.banked.size;
    show(this.bankChip, bankedCount > 0 && !intro);
    this.bankChip.lastChild.textContent = t('bank.count', { n: bankedCount });

    this.backBtn.disabled = intro && !quick;
    this.setSegment(this.backBtn, quick ? 'quick.leave' : 'nav.prev');
    const q = intro ? null : this.question(this.position);
    const banked = !intro && this.banked.has(this.position);
    const last = !intro && this.pageIndex === n - 1;
    show(this.skipBtn, !intro && q.skippable !== false && !banked);
    show(this.bankBtn, !intro && !last && !banked);
    this.bankBtn.disabled = this.busy || !(!intro && this.isAnswered(this.position));
    const hasQuick = !!(this.spec.quick && this.spec.quick.length);
    const closed = bankedCount > 0 || this.view.preflightOpen === false;
    for (const b of [this.quickBtn, this.rerollBtn, this.pushBtn, this.discussBtn]) {
      show(b, intro && !quick && (b !== this.quickBtn || hasQuick));
      b.disabled = this.busy || closed;
      b.setAttribute('data-tip', closed ? t('preflight.closed') : t(`${b.dataset.key}.hint`));
    }
    show(this.primaryBtn, !quick);
    this.setSegment(this.primaryBtn, intro ? 'action.start' : last ? 'action.submit' : 'action.next');
    this.primaryBtn.disabled = this.busy;
    const unanswered = !intro && !this.isAnswered(this.position) && !banked;
    if (unanswered) this.primaryBtn.setAttribute('aria-disabled', 'true');
    else this.primaryBtn.removeAttribute('aria-disabled');
  }

  showError(e) {
    if (!this.alert) return;
    const text = typeof e === 'string' ? e : e && e.status === 0 ? t('error.network') : (e && e.message) || String(e);
    this.alert.textContent = text;
    show(this.alert, true);
  }

  clearError() {
    if (this.alert) this.alert.textContent = '';
  }

  // ------------------------------------------------------------------ navigation and actions

  /** Runs `p` with `btn` busy at once (a click that waits for askd is never dead); moves wait. */
  async waitOn(p, btn = this.primaryBtn) {
    this.waiting = (this.waiting || 0) + 1;
    btn.setAttribute('aria-busy', 'true');
    try {
      return await p;
    } finally {
      this.waiting -= 1;
      btn.removeAttribute('aria-busy');
    }
  }

  async primary() {
    if (this.busy || this.settled || this.waiting) return;
    if (this.position === 'intro') return this.start();
    await this.waitOn(this.pathReady());
    const id = this.position;
    if (!this.isAnswered(id) && !this.banked.has(id)) {
      this.showError(t('error.unanswered'));
      return;
    }
    if (this.pageIndex === this.path.length - 1) return this.submit();
    this.go(this.path[this.pageIndex + 1]);
  }

  async start() {
    await this.waitOn(this.pathReady());
    if (this.path.length) this.go(this.path[0]);
  }

  go(position) {
    this.clearError();
    this.position = position;
    this.draft.changed();
    this.renderPage(true);
  }

  async back() {
    if (this.position === 'intro') {
      if (this.quickMode) {
        this.quickMode = false;
        this.draft.changed();
        this.renderPage(true);
      }
      return;
    }
    if (this.waiting) return;
    await this.waitOn(this.pathReady(), this.backBtn);
    const i = this.pageIndex;
    this.go(i <= 0 ? 'intro' : this.path[i - 1]);
  }

  async skip() {
    const id = this.position;
    if (this.busy || this.waiting || id === 'intro' || this.banked.has(id) || this.question(id).skippable === false) return;
    this.answers[id] = { selected: [], custom: '', skipped: true, justifications: {} };
    if (this.customInput) this.customInput.value = '';
    this.changed();
    await this.waitOn(this.pathReady(), this.skipBtn);
    const i = this.path.indexOf(id);
    if (i === this.path.length - 1) return this.submit();
    this.go(this.path[i + 1]);
  }

  /** The bank entry (or submit entry) of one question, from its local answer. */
  entry(id) {
    const a = this.answers[id] || emptyAnswer();
    if (substantive(a)) {
      const e = { id, selected: [...a.selected] };
      if (!blank(a.custom)) e.custom = a.custom.trim();
      const j = {};
      for (const k of a.selected) if (!blank(a.justifications[k])) j[k] = a.justifications[k].trim();
      if (Object.keys(j).length) e.justifications = j;
      return e;
    }
    if (explicitSkip(a)) return { id, selected: [], skipped: true };
    return { id, selected: [] };
  }

  bankedEntry(id) {
    const b = this.banked.get(id);
    const e = { id, selected: [...(b.selected || [])] };
    if (!blank(b.custom)) e.custom = b.custom;
    if (b.skipped === true) e.skipped = true;
    return e;
  }

  async bank() {
    const id = this.position;
    if (this.busy || this.waiting || id === 'intro' || this.banked.has(id) || !this.isAnswered(id)) return;
    await this.waitOn(this.pathReady(), this.bankBtn);
    const upTo = this.path.indexOf(id);
    const ids = this.path.slice(0, upTo + 1).filter((q) => !this.banked.has(q)
      && (substantive(this.answers[q]) || explicitSkip(this.answers[q])));
    const entries = ids.map((q) => this.entry(q));
    await this.waitOn(this.flush(false), this.bankBtn);
    // Advance at once; the questions lock when askd acknowledges.
    if (upTo < this.path.length - 1) this.go(this.path[upTo + 1]);
    try {
      // A submit waits for this bank: the server settles only against the banked answers
      // it validated, and a bank landing in between would make it refuse (409 conflict).
      this.bankInFlight = askApi.bank(this.id, entries);
      await this.bankInFlight;
      for (const e of entries) {
        if (!this.banked.has(e.id)) this.banked.set(e.id, { ...e, bankedAt: new Date().toISOString() });
      }
      this.refresh();
    } catch (e) {
      this.showError(e);
    }
  }

  async submit() {
    if (this.busy) return;
    await this.waitOn((async () => {
      if (this.bankInFlight) await this.bankInFlight.catch(() => {});
      await this.pathReady();
    })());
    const entries = this.path.map((id) => (this.banked.has(id) ? this.bankedEntry(id) : this.entry(id)));
    // The review step: every answer on the path, each editable, before anything is sent.
    // Banked answers' why shows there too (the submit needs only their keys).
    const shown = entries.map((e) => (this.banked.has(e.id) ? { ...e, justifications: this.banked.get(e.id).justifications } : e));
    const { recap } = await this.waitOn(import('./recap.js'));
    const choice = await recap(this.spec, this.rendered, shown, this.banked);
    if (!choice || this.settled) return;
    if (choice.edit) {
      this.go(choice.edit);
      return;
    }
    await this.send(() => askApi.submit(this.id, { answers: entries }), 'answered');
  }

  /** Runs one settling action with the primary button disabled; shows its failure inline. */
  async send(call, outcome) {
    this.busy = true;
    this.refresh();
    try {
      await this.waitOn((async () => {
        await this.flush(false);
        await call();
      })());
      this.showSettled(outcome, true);
    } catch (e) {
      if (e.status === 409 && e.code === 'not-pending') {
        await this.reload();
      } else {
        this.showError(e);
      }
    } finally {
      this.busy = false;
      this.refresh();
    }
  }

  openQuick() {
    if (this.banked.size > 0) return;
    this.quickMode = true;
    this.draft.changed();
    this.renderPage(true);
  }

  /** A quick template (its preview and submit live in questions.js, loaded when needed). */
  async pickTemplate(key) {
    if (this.busy || this.banked.size > 0) return;
    await (await import('./questions.js')).pickTemplate(this, key);
  }


  /** Reroll, Push and Discuss settle the ask: each asks first, answers or not. */
  async preflight(action) {
    if (this.busy || this.banked.size > 0) return;
    const label = t(`action.${action}`);
    const text = this.hasAnyAnswer()
      ? t('preflight.confirm', { action: label, n: this.answerCount() })
      : t('preflight.confirmEnd', { action: label });
    if (!(await confirmDialog(text, { yes: t('preflight.yes', { action: label }), focusNo: true }))) return;
    await this.send(() => askApi.preflight(this.id, action), action);
  }

  /** Cancelling ends the ask for good: it always asks first, "Keep answering" focused. */
  async cancel() {
    if (this.busy || this.settled) return;
    if (!(await confirmDialog(t('cancel.confirm'), { yes: t('cancel.yes'), focusNo: true }))) return;
    await this.send(() => askApi.cancel(this.id), 'cancelled');
  }

  /** Leaves at once: the draft is kept in this browser until askd has it. */
  putAway() {
    this.flush(false);
    this.ctx.navigate('/');
  }

  showSettled(outcome, mine) {
    if (this.settled) return;
    this.settled = true;
    this.draft.settle();
    closePanel();
    hideTooltip();
    // The settled card (who settled it, what was sent) comes from questions.js, loaded now.
    import('./questions.js').then((m) => {
      if (this.card && !this.card.isConnected) return;
      m.settledCard(this.root, outcome, mine, plainText(this.spec.title || t('title.default')),
        () => (this.view.result ? Promise.resolve(this.view) : askApi.view(this.id)),
        (r) => m.surveyResult(this.spec, this.rendered, r));
    }, (e) => this.ctx.onCrash(e));
  }


  // ------------------------------------------------------------------ keyboard

  key(e) {
    if (this.settled || e.defaultPrevented) return;
    if (document.querySelector('dialog[open]')) return;
    const target = e.target;
    const typing = target && target.matches && target.matches('input, textarea, select, [contenteditable]');
    if (e.key === 'Escape') {
      if (this.rows && this.rows.closeJustify(true)) return e.preventDefault();
      if (closePanel()) return e.preventDefault();
      if (tooltipOpen()) {
        hideTooltip();
        e.preventDefault();
      }
      return;
    }
    if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) {
      e.preventDefault();
      this.primary();
      return;
    }
    if (typing || e.altKey || e.ctrlKey || e.metaKey) return;
    const onControl = target && target.closest && target.closest('button, a, .row-hit');
    if (e.key === 'Enter') {
      if (onControl) return;
      e.preventDefault();
      this.primary();
      return;
    }
    if (e.key === 'ArrowLeft' || e.key === 'Backspace') {
      if (this.position === 'intro' && !this.quickMode) return;
      e.preventDefault();
      this.back();
      return;
    }
    if (e.key.length !== 1) return;
    const focused = this.rows ? this.rows.focusedKey() : null;
    // Option keys first (exactly as the spec spells them), then digits by position.
    if (this.rows) {
      const keys = this.rows.keys();
      // On the quick page the badges are a–f, whatever the templates' own keys.
      let key = this.position === 'intro' && /^[a-f]$/.test(e.key) ? keys['abcdef'.indexOf(e.key)] ?? null : null;
      if (!key) key = optionKeyFor(keys, e.key);
      if (key) {
        e.preventDefault();
        // Choosing by key leaves focus where it is, so Enter then continues; in quick mode the
        // key only focuses the template (picking one submits, so it takes Enter or Space).
        if (this.position === 'intro') this.rows.focusKey(key);
        else this.choose(this.position, key);
        return;
      }
    }
    const intro = this.position === 'intro';
    const actions = {
      S: () => this.skip(),
      B: () => this.bank(),
      X: () => this.cancel(),
      H: () => toggleHelp(),
      '?': () => focused && this.rows.toggle(focused, 'insight'),
      G: () => focused && this.rows.toggle(focused, 'diagram'),
      W: () => focused && this.rows.openJustify(focused),
      Q: () => intro && !this.quickBtn.hidden && !this.quickBtn.disabled && this.openQuick(),
      R: () => intro && !this.rerollBtn.disabled && this.preflight('reroll'),
      P: () => intro && !this.pushBtn.disabled && this.preflight('push'),
      D: () => intro && !this.discussBtn.disabled && this.preflight('discuss'),
    };
    const act = actions[e.key];
    if (act) {
      e.preventDefault();
      act();
    }
  }
}

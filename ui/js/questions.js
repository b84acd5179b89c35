// The ask_user_question card (platform.md §4.1): 1–4 flat questions on one card, built from
// the wizard's row component. The answer is {answers: [{id, selected: [labels], custom?}]};
// a single-select question takes one label or custom text. Progress autosaves like the
// wizard's, and a settle elsewhere closes the card, showing the stored answers.
//
// It also holds the read-only answers list (answerList and friends) that the wizard imports
// lazily for its settled page and a quick template's preview: a module the daemon already
// serves, loaded only when needed, so the wizard's first load stays under its budget.
import { ask as askApi } from './api.js';
import { h, icon, nextId, displayLabel, setText, repeatNotice } from './dom.js';
import { Autosave } from './autosave.js';
import { setSanitizedHtml } from './html.js';
import { t, addStrings } from './i18n.js';
import { optionRows, closePanel } from './rows.js';
import { confirmDialog, toggleHelp, QUESTIONS_SHORTCUTS, chooseKeys } from './dialog.js';
import { hideTooltip } from './tooltip.js';

/** The strings of the read-only answers, added to both tables (the wizard loads this module
 * only when it needs them, so they stay out of its first load). Same keys in both. */
export const ANSWER_STRINGS = {
  en: {
    'quick.preview': 'Submit “{name}”? It fills in these answers and ends the survey:',
    'quick.submit': 'Submit these answers',
    'quick.back': 'Back to the templates',
    'answers.label': 'Answers',
    'answers.title': 'Your answers',
    'answers.skipped': 'Skipped',
    'answers.none': 'No answer',
    'settled.answered': 'Answered {where} {by}',
    'settled.cancelled': 'Cancelled {where} {by}',
    'settled.other': 'Ended {by}',
    'settled.when': '{what} — {when}.',
    'settled.brief': '{what}.',
    'settled.by': 'by {name}',
    'settled.byAgent': 'by the agent ({name})',
    'settled.where.page': 'in the browser',
    'settled.where.card': 'in the browser',
    'settled.where.panel': 'in the browser',
    'settled.where.terminal': 'in the terminal',
    'settled.where.cli': 'on the command line',
    'settled.where.client-form': 'in the agent’s own form',
    'settled.where.app': 'in the agent’s app view',
    'settled.where.import': 'from an imported file',
  },
  zh: {
    'quick.preview': '提交“{name}”？它会填写以下答案并结束问卷：',
    'quick.submit': '提交这些答案',
    'quick.back': '返回模板列表',
    'answers.label': '答案',
    'answers.title': '你的答案',
    'answers.skipped': '已跳过',
    'answers.none': '未作答',
    'settled.answered': '{by}{where}回答',
    'settled.cancelled': '{by}{where}取消',
    'settled.other': '{by}结束',
    'settled.when': '{what}于 {when}。',
    'settled.brief': '{what}。',
    'settled.by': '由 {name} ',
    'settled.byAgent': '由 agent（{name}）',
    'settled.where.page': '在浏览器中',
    'settled.where.card': '在浏览器中',
    'settled.where.panel': '在浏览器中',
    'settled.where.terminal': '在终端中',
    'settled.where.cli': '在命令行中',
    'settled.where.client-form': '在 agent 自带的表单中',
    'settled.where.app': '在 agent 的应用视图中',
    'settled.where.import': '通过导入的文件',
  },
};
addStrings(ANSWER_STRINGS.en, ANSWER_STRINGS.zh);

export class QuestionsCard {
  constructor(root, view, ctx) {
    this.root = root;
    this.ctx = ctx;
    this.id = view.ask_id;
    this.draft = new Autosave({
      id: this.id,
      snapshot: () => ({ v: 1, answers: this.answers }),
      send: (body, keepalive) => askApi.autosave(this.id, body, keepalive),
    });
    view = this.draft.restore(view);
    this.view = view;
    this.questions = (view.spec && view.spec.questions) || [];
    this.answers = {};
    const saved = (view.autosave && view.autosave.answers) || {};
    for (const q of this.questions) {
      const a = saved[q.id] || {};
      this.answers[q.id] = {
        selected: Array.isArray(a.selected) ? a.selected.filter((l) => typeof l === 'string') : [],
        custom: typeof a.custom === 'string' ? a.custom : '',
      };
    }
    // desk-b: free text typed in this tab, by question id (another tab's save never replaces it silently).
    this.typed = new Map();
    if (this.draft.restored) {
      for (const [id, a] of Object.entries(this.answers)) if (a.custom.trim()) this.typed.set(id, a.custom);
    }
    this.busy = false;
    this.settled = false;
    this.lists = [];
    this.onKey = (e) => this.key(e);
  }

  mount() {
    this.build();
    document.addEventListener('keydown', this.onKey);
    this.draft.start();
    this.unsubscribe = this.ctx.live.subscribe(({ kind, data }) => {
      if (kind === 'poll') this.poll();
      else if (kind === 'ask.autosaved' && data && data.ask_id === this.id && (data.revision || 0) > this.draft.revision) this.remoteSave();
      else if (kind === 'ask.settled' && data && data.ask_id === this.id && !this.busy) this.showSettled(data.outcome, false);
    });
    if (this.view.state !== 'pending') this.showSettled(this.view.outcome, false);
  }

  unmount() {
    this.draft.stop();
    document.removeEventListener('keydown', this.onKey);
    if (this.unsubscribe) this.unsubscribe();
    closePanel();
  }

  async poll() {
    try {
      const v = await askApi.view(this.id);
      if (v.state !== 'pending') this.showSettled(v.outcome, false);
    } catch {
      // The next poll or event tries again.
    }
  }

  build() {
    const titleId = nextId('title');
    const eyebrow = [this.view.client, this.view.workspace].filter(Boolean).join(' · ');
    const rendered = (this.view.rendered && this.view.rendered.questions) || {};
    const sections = this.questions.map((q, qi) => {
      const promptId = nextId('q');
      const r = rendered[q.id] || {};
      const prompt = h('div', { class: 'prompt prose', id: promptId, role: 'heading', 'aria-level': '2', tabindex: '-1' });
      setSanitizedHtml(prompt, r.question || '');
      const detail = r.detail ? h('div', { class: 'prose detail' }) : null;
      if (detail) setSanitizedHtml(detail, r.detail);
      const labels = (q.options || []).map((o) => o.label);
      let rows = null;
      if (labels.length) {
        rows = optionRows({
          labelledBy: promptId, multi: !!q.multi_select, locked: false, askId: this.id,
          items: q.options.map((o, i) => {
            const d = displayLabel(o.label, false);
            return { key: o.label, badge: String(i + 1), label: d.label, recommended: d.recommended, description: o.description };
          }),
          isSelected: (label) => this.answers[q.id].selected.includes(label),
          canJustify: false,
          onChoose: (label) => this.choose(q, label),
          onEnterSelected: () => this.submit(),
        });
        this.lists.push(rows);
      }
      const input = h('textarea', {
        class: 'custom-input', rows: '1', placeholder: t('custom.placeholder'), 'aria-label': t('custom.label'),
      });
      input.value = this.answers[q.id].custom;
      input.addEventListener('input', () => {
        input.style.height = 'auto';
        input.style.height = `${input.scrollHeight}px`;
        const a = this.answers[q.id];
        a.custom = input.value;
        this.typed.set(q.id, input.value);
        if (!q.multi_select) a.selected = [];
        this.changed();
      });
      input.addEventListener('keydown', (e) => {
        if (e.key === 'Enter' && !e.shiftKey && !e.isComposing && e.keyCode !== 229) {
          e.preventDefault();
          this.submit();
        }
      });
      const section = h('div', { class: 'flat-question', 'data-qid': q.id },
        h('div', { class: 'q-top' },
          this.questions.length > 1 ? h('span', { class: 'chip count-chip' }, `${qi + 1} / ${this.questions.length}`) : null,
          q.header ? h('span', { class: 'chip header-chip' }, q.header) : null),
        prompt, repeatNotice(this.view, q.id), detail, rows ? rows.el : null,
        h('div', { class: `custom-row${rows ? '' : ' only'}` }, input));
      section.rows = rows;
      section.input = input;
      return section;
    });
    this.sections = sections;
    this.alert = h('div', { class: 'alert', role: 'alert' });
    this.submitBtn = h('button', {
      type: 'button', class: 'seg primary', 'aria-label': t('questions.submit'), 'data-tip': t('questions.submit.hint'),
      onclick: () => this.submit(),
    }, h('span', { class: 'seg-label' }, t('questions.submit')));
    const cancel = h('button', {
      type: 'button', class: 'seg', 'aria-label': t('questions.cancel'), 'data-tip': t('questions.cancel.hint'),
      onclick: () => this.cancel(),
    }, h('span', { class: 'seg-label' }, t('questions.cancel')));
    const tool = (label, hint, name, fn) => h('button', { type: 'button', class: 'tool', 'aria-label': label, 'data-tip': hint, onclick: fn }, icon(name));
    this.card = h('section', { class: 'card flat', 'aria-labelledby': titleId },
      h('header', { class: 'card-head' },
        h('div', { class: 'head-main' },
          eyebrow ? h('div', { class: 'eyebrow' }, eyebrow) : null,
          h('div', { class: 'card-title', id: titleId }, t('questions.title'))),
        h('div', { class: 'head-tools' },
          tool(t('help.open'), t('help.open.hint'), 'keyboard', () => toggleHelp(QUESTIONS_SHORTCUTS)),
          tool(t('nav.putAway'), t('nav.putAway.hint'), 'down', () => { this.draft.save(false); this.ctx.navigate('/'); }))),
      h('div', { class: 'page page-flat' }, sections),
      this.alert,
      h('div', { class: 'toolbar', role: 'toolbar', 'aria-label': t('questions.title') },
        h('div', { class: 'tb-left' }),
        h('div', { class: 'tb-right' }, cancel, this.submitBtn)));
    // desk-b: the keys this page reads — digits by position (the badges), Enter, Shift+H.
    const most = Math.max(0, ...sections.map((s) => (s.rows ? s.rows.keys().length : 0)));
    const hint = [most ? t('hint.choose', { keys: chooseKeys(Array.from({ length: most }, (_, i) => String(i + 1))) }) : null,
      t('hint.submit'), t('hint.help')].filter(Boolean).join(' · ');
    this.root.replaceChildren(this.card, h('p', { class: 'kbd-hint' }, hint));
    for (const s of sections) requestAnimationFrame(() => {
      s.input.style.height = 'auto';
      s.input.style.height = `${s.input.scrollHeight}px`;
    });
    const first = sections[0] && sections[0].querySelector('.prompt');
    if (first) first.focus();
  }

  choose(q, label) {
    if (this.busy || this.settled) return;
    const a = this.answers[q.id];
    if (q.multi_select) {
      a.selected = a.selected.includes(label) ? a.selected.filter((l) => l !== label) : [...a.selected, label];
    } else {
      a.selected = [label];
      a.custom = '';
      const s = this.sections.find((x) => x.getAttribute('data-qid') === q.id);
      if (s) s.input.value = '';
    }
    this.changed();
  }

  changed() {
    this.alert.textContent = '';
    for (const l of this.lists) l.update();
    this.draft.changed();
  }

  /**
   * desk-b: another tab (or view) saved. A text this tab typed and still shows stays, with the
   * other text beside it — "Changed in another tab: … — Keep mine / Use theirs"; every other
   * answer follows the save unless this tab has unsaved edits.
   */
  async remoteSave() {
    let v;
    try {
      v = await askApi.view(this.id);
    } catch {
      return;
    }
    if (this.settled || v.state !== 'pending' || (v.autosaveRevision || 0) <= this.draft.revision) return;
    this.draft.adopted(v.autosaveRevision);
    const saved = (v.autosave && v.autosave.answers) || {};
    const clean = !this.draft.dirty;
    for (const q of this.questions) {
      const r = saved[q.id] || {};
      const remote = {
        selected: Array.isArray(r.selected) ? r.selected.filter((l) => typeof l === 'string') : [],
        custom: typeof r.custom === 'string' ? r.custom : '',
      };
      const a = this.answers[q.id];
      const section = this.sections.find((x) => x.getAttribute('data-qid') === q.id);
      if (this.typed.get(q.id) === a.custom && a.custom.trim()) {
        if (remote.custom !== a.custom) this.showConflict(q, section, remote);
      } else if (clean) {
        this.answers[q.id] = remote;
        if (section) section.input.value = remote.custom;
      }
    }
    for (const l of this.lists) l.update();
  }

  showConflict(q, section, remote) {
    if (!section) return;
    const old = section.querySelector('.conflict');
    if (old) old.remove();
    const box = h('div', { class: 'conflict', role: 'alert' },
      h('p', { class: 'conflict-title' }, t('conflict.title')),
      h('p', { class: 'conflict-text' }, remote.custom.trim() ? remote.custom : t('conflict.empty')));
    const keep = h('button', { type: 'button', class: 'btn small conflict-keep keep-live', onclick: () => {
      box.remove();
      this.changed();
    } }, t('conflict.keep'));
    const theirs = h('button', { type: 'button', class: 'btn small conflict-theirs keep-live', onclick: () => {
      box.remove();
      this.typed.delete(q.id);
      this.answers[q.id] = { selected: [...remote.selected], custom: remote.custom };
      section.input.value = remote.custom;
      this.changed();
    } }, t('conflict.theirs'));
    box.appendChild(h('div', { class: 'conflict-actions' }, keep, theirs));
    section.appendChild(box);
  }

  async submit() {
    if (this.busy || this.settled) return;
    const answers = this.questions.map((q) => {
      const a = this.answers[q.id];
      const e = { id: q.id, selected: [...a.selected] };
      if (a.custom.trim()) e.custom = a.custom.trim();
      return e;
    });
    if (!answers.some((a) => a.selected.length || a.custom)) {
      this.alert.textContent = t('questions.unanswered');
      return;
    }
    await this.send(() => askApi.submit(this.id, { answers }), 'answered');
  }

  async cancel() {
    if (this.busy || this.settled) return;
    if (!(await confirmDialog(t('questions.cancel.confirm')))) return;
    await this.send(() => askApi.cancel(this.id), 'cancelled');
  }

  async send(call, outcome) {
    this.busy = true;
    this.submitBtn.disabled = true;
    try {
      await this.draft.flush(false);
      const r = await call();
      // A member's vote on an ask that needs more (approvals): it stays open.
      if (r && r.voted) {
        window.dispatchEvent(new CustomEvent('askd:voted', { detail: r }));
        return;
      }
      this.showSettled(outcome, true);
    } catch (e) {
      if (e.status === 409) this.poll();
      else this.alert.textContent = e.status === 0 ? t('error.network') : e.message;
    } finally {
      this.busy = false;
      this.submitBtn.disabled = false;
    }
  }

  showSettled(outcome, mine) {
    if (this.settled) return;
    this.settled = true;
    this.draft.settle();
    closePanel();
    hideTooltip();
    settledCard(this.root, outcome, mine, null, () => (this.view.result ? Promise.resolve(this.view) : askApi.view(this.id)),
      (r) => questionsResult(this.questions, (this.view.rendered || {}).questions || {}, r));
  }


  /** Digits choose in the question that holds focus (else the first); Ctrl+Enter submits. */
  key(e) {
    if (this.settled || e.defaultPrevented || document.querySelector('dialog[open]')) return;
    if (e.key === 'Escape') {
      if (closePanel()) e.preventDefault();
      return;
    }
    if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) {
      e.preventDefault();
      this.submit();
      return;
    }
    const target = e.target;
    if (target && target.matches && target.matches('input, textarea')) return;
    if (e.altKey || e.ctrlKey || e.metaKey) return;
    if (e.key === 'H') {
      toggleHelp(QUESTIONS_SHORTCUTS);
      return;
    }
    if (e.key === 'Enter' && !(target && target.closest && target.closest('button, a, .row-hit'))) {
      e.preventDefault();
      this.submit();
      return;
    }
    if (!/^[1-9]$/.test(e.key)) return;
    const section = (target && target.closest && target.closest('.flat-question')) || this.sections[0];
    if (!section || !section.rows) return;
    const keys = section.rows.keys();
    const label = keys[Number(e.key) - 1];
    if (label === undefined) return;
    e.preventDefault();
    const q = this.questions.find((x) => x.id === section.getAttribute('data-qid'));
    this.choose(q, label);
  }
}

// ---------------------------------------------------------------- settled elsewhere (desk-c)

/** The places an ask can be settled from (`result.surface`) that this page can name. */
const SURFACES = new Set(['page', 'card', 'panel', 'terminal', 'cli', 'client-form', 'app', 'import']);

/**
 * "Answered in the terminal by Bo — 2 Dec 2026, 14:47." for an ask this page did not settle:
 * from its view's `result.surface`, `result.answered_by` and `settledAt`; the generic line
 * when the view says none of it. `brief` (a page that shows where and when itself): who
 * settled it, or nothing when nobody is named.
 */
export function settledNote(view, outcome, { brief = false } = {}) {
  const r = (view && view.result) || {};
  const at = view ? Date.parse(view.settledAt) : NaN;
  const tidy = (s) => s.replace(/\s+/g, ' ').replace(/\s+([.。,，—])/g, (m, c) => (c === '—' ? ' —' : c)).trim();
  const by = r.answered_by && r.answered_by.name
    ? t(r.answered_by.kind === 'agent' ? 'settled.byAgent' : 'settled.by', { name: r.answered_by.name }) : '';
  if (brief && !by) return '';
  const where = SURFACES.has(r.surface) && !brief ? t(`settled.where.${r.surface}`) : '';
  const what = t(`settled.${outcome === 'answered' || outcome === 'cancelled' ? outcome : 'other'}`, { where, by });
  if (brief) return tidy(t('settled.brief', { what }));
  if (Number.isNaN(at)) return t('settled.elsewhere');
  const when = new Date(at).toLocaleString(document.documentElement.lang || undefined, { dateStyle: 'medium', timeStyle: 'short' });
  return tidy(t('settled.when', { what, when }));
}

// ---------------------------------------------------------------- read-only answers

/** items: [{id, html?, prompt, picks: [{key?, label, why?}], custom?, skipped?}] */
export function answerList(items) {
  return h('ol', { class: 'answer-list', 'aria-label': t('answers.label') }, items.map((it) => {
    const q = h('div', { class: 'answer-q prose' });
    if (it.html) setSanitizedHtml(q, it.html);
    else setText(q, it.prompt);
    const picks = it.picks.map((p) => h('li', { class: 'answer-pick', 'data-key': p.key },
      p.key ? [h('span', { class: 'answer-key' }, p.key), ' '] : null,
      h('span', { class: 'answer-label' }, p.label),
      p.why ? h('span', { class: 'answer-why' }, ` — ${p.why}`) : null));
    const custom = (typeof it.custom !== 'string' || !it.custom.trim()) ? null : h('p', { class: 'answer-custom' }, it.custom);
    return h('li', { class: 'answer-item', 'data-qid': it.id }, q,
      picks.length ? h('ul', { class: 'answer-picks' }, picks) : null, custom,
      picks.length || custom ? null : h('p', { class: 'answer-none' }, t(it.skipped ? 'answers.skipped' : 'answers.none')));
  }));
}

/** Survey answers ({id, keys, custom, skipped, justifications}) with their prompts and labels. */
export function surveyItems(spec, rendered, answers) {
  return answers.map((a) => {
    const q = spec.questions[a.id] || {};
    const byKey = new Map((q.options || []).map((o) => [o.key, o]));
    const why = a.justifications || {};
    return {
      id: a.id, html: ((rendered.questions || {})[a.id] || {}).prompt, prompt: q.prompt || a.id,
      picks: (a.keys || []).map((k) => ({ key: k, label: byKey.has(k) ? displayLabel(byKey.get(k).label, byKey.get(k).recommended).label : k, why: why[k] })),
      custom: a.custom, skipped: a.skipped,
    };
  });
}

/** A settled survey's result as items, in path order. */
export function surveyResult(spec, rendered, r) {
  const skipped = new Set(r.skipped || []);
  const byId = new Map(r.answers.map((a) => [a.id, a]));
  const ids = (r.path || [...byId.keys()]).filter((id) => byId.has(id) || skipped.has(id));
  return surveyItems(spec, rendered, ids.map((id) => {
    const a = byId.get(id) || {};
    return { id, skipped: skipped.has(id), keys: (a.selected || []).map((s) => (s && s.key) || s), custom: a.custom, justifications: a.justifications };
  }));
}

/** A settled questions ask's result as items, in the card's order. */
export function questionsResult(questions, rendered, r) {
  const skipped = new Set(r.skipped || []);
  const byId = new Map(r.answers.map((a) => [a.id, a]));
  return questions.filter((q) => byId.has(q.id) || skipped.has(q.id)).map((q) => {
    const a = byId.get(q.id) || {};
    return {
      id: q.id, html: (rendered[q.id] || {}).question, prompt: q.question || q.id, skipped: skipped.has(q.id),
      picks: (a.selected || []).map((l) => ({ label: displayLabel(String(l), false).label })), custom: a.custom,
    };
  });
}

/**
 * The settled card of a survey or a questions ask, in `root`: the outcome, then (read from the
 * ask's view, `load()`, whoever settled it, wherever) who settled it, where and when unless
 * it was this page, and what was sent (`items(result)`). `title` goes under the line.
 */
export function settledCard(root, outcome, mine, title, load, items) {
  const key = outcome || 'answered';
  const heading = h('h1', { class: 'prompt', tabindex: '-1', id: nextId('settled') },
    mine && key === 'answered' ? t('sent') : t(`outcome.${key}`));
  const note = h('p', { class: 'muted settled-note' }, mine ? t('sent.detail') : '');
  const card = h('section', { class: `card settled outcome-${key}`, 'aria-labelledby': heading.id },
    h('div', { class: 'settled-body' },
      h('div', { class: 'settled-icon' }, icon(key === 'answered' || mine ? 'sent' : 'close')),
      heading, note, title ? h('p', { class: 'muted small' }, title) : null,
      h('a', { href: '/', class: 'btn', 'data-nav': '' }, t('back.inbox'))));
  root.replaceChildren(card);
  heading.focus();
  load().then((v) => {
    if (!mine) setText(note, settledNote(v, v.outcome || outcome));
    if (v.result && v.result.answers) showAnswers(card, items(v.result));
  }, () => {
    if (!mine) setText(note, t('settled.elsewhere'));
  });
}

/** Appends "Your answers" to a settled card. */
export function showAnswers(card, items) {
  if (!items.length || !card.isConnected) return;
  card.appendChild(h('div', { class: 'settled-answers' },
    h('h2', { class: 'answers-title' }, t('answers.title')), answerList(items)));
}

/** The wizard `w` picked quick template `key`: its answers, checked with askd's path, shown
 * (asking first over answers given) and, once confirmed, submitted. */
export async function pickTemplate(w, key) {
  const tpl = (w.spec.quick || []).find((q) => q.key === key);
  if (!tpl) return;
  const answers = {};
  for (const [id, qa] of Object.entries(tpl.answers || {})) {
    if (!w.question(id)) continue;
    answers[id] = { selected: Array.isArray(qa.selected) ? qa.selected : [], custom: typeof qa.custom === 'string' ? qa.custom.trim() : '', skipped: false };
  }
  const given = (a) => !!a && (a.selected.length > 0 || a.custom !== '');
  if (!Object.values(answers).some(given)) {
    w.showError(t('error.quickEmpty'));
    return;
  }
  if (w.hasAnyAnswer() && !(await confirmDialog(t('quick.confirm', { n: w.answerCount() })))) return;
  let path;
  try {
    path = (await askApi.path(w.id, answers)).path || [];
  } catch (e) {
    w.showError(e);
    return;
  }
  const entries = path.map((id) => {
    const a = answers[id];
    if (!given(a)) return { id, selected: [] };
    return a.custom ? { id, selected: [...a.selected], custom: a.custom } : { id, selected: [...a.selected] };
  });
  // A template submits and ends the survey: show what it fills in, and ask first.
  const name = displayLabel(tpl.label, tpl.recommended).label;
  if (!(await confirmTemplate(name, surveyItems(w.spec, w.rendered,
    entries.map((e) => ({ id: e.id, keys: e.selected, custom: e.custom })))))) return;
  await w.send(() => askApi.submit(w.id, { answers: entries, quick: key }), 'answered');
}

/** A quick template's preview: what it fills in; resolves true when the human submits it. */
export function confirmTemplate(name, items) {
  return confirmDialog(t('quick.preview', { name }), {
    body: answerList(items), yes: t('quick.submit'), no: t('quick.back'), focusNo: true,
  });
}

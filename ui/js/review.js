// The batch review (review.md §5): one item → the one-question card, two or more → the
// one-screen panel (sections, bulk buttons, per-item verdicts and notes, one submit, the file
// menu with export and Import answers); an offline review → the offline view (counts, export,
// import, cancel; never the items). Drafts autosave as {answers: {id: {verdict, note}}}; a
// choice verdict is its values joined with ","; another tab's autosave shows here live. A
// settled review shows the read-only result (verdicts, notes, counts). Agent text goes in as
// text only; `rendered.items.{id}.detail` through html.js.
import { api, ask as askApi } from './api.js';
import { h, icon, nextId, plainText } from './dom.js';
import { Autosave } from './autosave.js';
import { setSanitizedHtml } from './html.js';
import { t, tn, addStrings } from './i18n.js';
import { confirmDialog } from './dialog.js';
import { hideTooltip } from './tooltip.js';
/**
 * The review panel's strings, English and Chinese, loaded with it only (not with every page's
 * table); the same keys in both (a test checks). `key.one` is the form for 1 (i18n.js tn).
 */
export const REVIEW_STRINGS = {
  en: {
    'review.pass': 'Pass',
    'review.fail': 'Fail',
    'review.pending': 'Pending',
    'review.yes': 'Yes',
    'review.no': 'No',
    'review.op': 'Action',
    'review.expect': 'Expected',
    'review.allPass': 'All pass',
    'review.allPending': 'All pending',
    'review.progress': '{filled} of {total} filled',
    'review.counts': '{pass} pass · {fail} fail · {pending} pending',
    'review.export': 'Export {format}',
    'review.csvHint': 'A long review: use sections and All pass, then mark the exceptions — or export it to CSV and fill it in a spreadsheet.',
    'review.addNote': 'Add note',
    'review.note': 'Note',
    'review.answer': 'Answer',
    'review.detail': 'Details',
    'review.untitled': '(no section)',
    'review.submit': 'Submit',
    'review.cancel': 'Cancel review',
    'review.skip': 'Skip',
    'review.cancelConfirm': 'Cancel this review? The agent receives no verdicts at all.',
    'review.blankTitle': 'These items are blank:',
    'review.blankSingle': 'Submit without an answer? The agent receives this item as unfilled, not as a pass.',
    'review.blankBody': 'Blank items are returned to the agent as unfilled, never as a pass.',
    'review.more': 'and {k} more',
    'review.anyway': 'Submit anyway',
    'review.keep': 'Keep reviewing',
    'review.failTitle': '{k} items marked Fail would become Pass',
    'review.passAllFailed': 'Pass all, including failed',
    'review.passRest': 'Pass the rest, keep Fail',
    'review.bulkCancel': 'Cancel',
    'review.undo': 'Undo',
    'review.undone': 'Undone',
    'review.bulkDone': 'Changed {k} items',
    'review.keys': 'Keyboard shortcuts',
    'review.keysList': 'j/k or ↓/↑ move between rows · 1/2/3 choose a verdict (choice: n-th option; scale: the value) · ←/→ step a value · x clear · n note · Esc back to the row · Ctrl+Enter submit · Ctrl+Z undo a bulk action · / search · ? this list',
    'review.keysShort': 'j/k move · 1–3 verdict · x clear · n note · Ctrl+Enter submit · ? keys',
    'review.exportTo': 'Export',
    'review.import': 'Import answers',
    'review.importRow': 'Row {row} · {field}',
    'review.importRowOnly': 'Row {row}',
    'review.importItem': 'Item {n} · {field}',
    'review.importItemOnly': 'Item {n}',
    'review.importProblems': '{name} was not imported: {n} problems. Nothing was saved.',
    'review.importFix': 'Fix these cells in the file and import it again.',
    'review.importUnreadable': 'The file could not be read.',
    'review.importBlank': '{k} items are blank and will be returned as unfilled, never as a pass: {ids}',
    'review.importConfirm': 'Import {name} and settle this review?',
    'review.importGo': 'Import and settle',
    'review.settledOn': 'Settled in the {surface}',
    'review.surface.card': 'card',
    'review.surface.panel': 'panel',
    'review.surface.terminal': 'terminal',
    'review.surface.import': 'imported file',
    'review.noVerdicts': 'No verdicts for any of the {total} items.',
    'review.yesNo': '{yes} yes · {no} no',
    'review.resultList': 'Verdicts',
    'review.blankItem': 'Blank — not a pass',
    'review.exportRecord': 'Record',
    'review.offlineIntro': 'This review is answered through a file: export it, fill in the verdict and note columns, then import it here.',
    'review.offlineTotal': '{n} items',
    'review.byType': 'Items by type',
    'review.bySection': 'Sections',
    'review.type.confirm': 'checks (pass / fail / pending)',
    'review.type.bool': 'yes / no',
    'review.type.choice': 'choices',
    'review.type.scale': 'ratings',
    'review.type.text': 'written answers',
    'review.offlineStep1': '1. Export',
    'review.offlineStep2': '2. Import the filled file',
    'review.offlineImportHint': 'A CSV or JSON file exported from this review. It is checked first; nothing settles while it has problems.',
    'review.failTitle.one': '1 item marked Fail would become Pass',
    'review.bulkDone.one': 'Changed 1 item',
    'review.importBlank.one': '1 item is blank and will be returned as unfilled, never as a pass: {ids}',
    'review.importProblems.one': '{name} was not imported: 1 problem. Nothing was saved.',
    'review.offlineTotal.one': '1 item',
    'review.noVerdicts.one': 'No verdict for the one item.',
    'review.show': 'Show',
    'review.show.all': 'All items',
    'review.show.unfilled': 'Unfilled only',
    'review.show.fail': 'Failed only',
    'review.show.pending': 'Pending only',
    'review.show.pass': 'Passed only',
    'review.search': 'Search items',
    'review.jump': 'Jump to group',
    'review.jump.pick': 'Jump to group…',
    'review.tools': 'More',
    'review.tools.hint': 'Bulk verdicts, jump to a group, export and import',
    'review.shown': '{n} of {total} shown',
    'review.noMatch': 'No item matches the search or the filter.',
    'review.showAll': 'Show all items',
  },
  zh: {
    'review.pass': '通过',
    'review.fail': '不通过',
    'review.pending': '待定',
    'review.yes': '是',
    'review.no': '否',
    'review.op': '操作',
    'review.expect': '预期',
    'review.allPass': '全通过',
    'review.allPending': '全待定',
    'review.progress': '已填 {filled} / {total}',
    'review.counts': '通过 {pass} · 不通过 {fail} · 待定 {pending}',
    'review.export': '导出 {format}',
    'review.csvHint': '条目较多：先按分组使用“全通过”，再标出例外；也可以导出 CSV 在表格中填写。',
    'review.addNote': '添加备注',
    'review.note': '备注',
    'review.answer': '回答',
    'review.detail': '详情',
    'review.untitled': '（未分组）',
    'review.submit': '提交',
    'review.cancel': '取消批阅',
    'review.skip': '跳过',
    'review.cancelConfirm': '取消这份批阅？代理将收不到任何结论。',
    'review.blankTitle': '以下条目未填：',
    'review.blankSingle': '不作答就提交？代理会收到“未填”，而不是通过。',
    'review.blankBody': '未填的条目会作为“未填”交给代理，绝不算通过。',
    'review.more': '还有 {k} 条',
    'review.anyway': '仍然提交',
    'review.keep': '继续批阅',
    'review.failTitle': '{k} 条已标为不通过的条目会变为通过',
    'review.passAllFailed': '全部通过（包括不通过的）',
    'review.passRest': '其余通过，保留不通过',
    'review.bulkCancel': '取消',
    'review.undo': '撤销',
    'review.undone': '已撤销',
    'review.bulkDone': '已批量修改 {k} 条',
    'review.keys': '快捷键',
    'review.keysList': 'j/k 或 ↓/↑ 在条目间移动 · 1/2/3 选择结论（选择题：第 n 个选项；评分：对应数值）· ←/→ 切换数值 · x 清除 · n 备注 · Esc 回到条目 · Ctrl+Enter 提交 · Ctrl+Z 撤销批量操作 · / 搜索 · ? 本列表',
    'review.keysShort': 'j/k 移动 · 1–3 结论 · x 清除 · n 备注 · Ctrl+Enter 提交 · ? 快捷键',
    'review.exportTo': '导出',
    'review.import': '导入答案',
    'review.importRow': '第 {row} 行 · {field}',
    'review.importRowOnly': '第 {row} 行',
    'review.importItem': '第 {n} 条 · {field}',
    'review.importItemOnly': '第 {n} 条',
    'review.importProblems': '{name} 未导入：{n} 个问题，没有保存任何内容。',
    'review.importFix': '请在文件中修正这些单元格后重新导入。',
    'review.importUnreadable': '无法读取该文件。',
    'review.importBlank': '{k} 条未填，将作为未填返回，绝不视为通过：{ids}',
    'review.importConfirm': '导入 {name} 并结束此批阅？',
    'review.importGo': '导入并结束',
    'review.settledOn': '结束于{surface}',
    'review.surface.card': '卡片',
    'review.surface.panel': '面板',
    'review.surface.terminal': '终端',
    'review.surface.import': '导入的文件',
    'review.noVerdicts': '{total} 条均无结论。',
    'review.yesNo': '是 {yes} · 否 {no}',
    'review.resultList': '结论',
    'review.blankItem': '未填：不代表通过',
    'review.exportRecord': '记录',
    'review.offlineIntro': '此批阅通过文件作答：导出后填写结论和备注列，再在此导入。',
    'review.offlineTotal': '共 {n} 条',
    'review.byType': '按类型',
    'review.bySection': '分组',
    'review.type.confirm': '检查项（通过 / 不通过 / 待定）',
    'review.type.bool': '是 / 否',
    'review.type.choice': '选择',
    'review.type.scale': '评分',
    'review.type.text': '文本回答',
    'review.offlineStep1': '1. 导出',
    'review.offlineStep2': '2. 导入填好的文件',
    'review.offlineImportHint': '从此批阅导出的 CSV 或 JSON 文件。会先检查；有问题时不会结束批阅。',
    'review.failTitle.one': '1 条已标为不通过的条目会变为通过',
    'review.bulkDone.one': '已批量修改 1 条',
    'review.importBlank.one': '1 条未填，将作为未填返回，绝不视为通过：{ids}',
    'review.importProblems.one': '{name} 未导入：1 个问题，没有保存任何内容。',
    'review.offlineTotal.one': '共 1 条',
    'review.noVerdicts.one': '这 1 条没有任何结论。',
    'review.show': '显示',
    'review.show.all': '全部条目',
    'review.show.unfilled': '只看未填',
    'review.show.fail': '只看不通过',
    'review.show.pending': '只看待定',
    'review.show.pass': '只看通过',
    'review.search': '搜索条目',
    'review.jump': '跳转到分组',
    'review.jump.pick': '跳转到分组…',
    'review.tools': '更多',
    'review.tools.hint': '批量结论、跳转到分组、导出和导入',
    'review.shown': '显示 {n} / {total} 条',
    'review.noMatch': '没有符合搜索或筛选条件的条目。',
    'review.showAll': '显示全部条目',
  },
};
addStrings(REVIEW_STRINGS.en, REVIEW_STRINGS.zh);

const LIST_MAX = 20;
const SYNC_DELAY_MS = 80;
const SEARCH_DELAY_MS = 120;
/** A panel of more items than this takes the page's width (a wider column, denser rows). */
const WIDE_AT = 20;
const TYPES = ['confirm', 'bool', 'choice', 'scale', 'text'];
const VERDICT_FILTERS = ['fail', 'pending', 'pass'];

/** Where an import problem points, for people: "Row 3 · verdict", "Item 2 · note". */
function problemPlace(path) {
  let m = /^rows\[(\d+)\](?:\.(\w+))?/.exec(path || '');
  if (m) return m[2] ? t('review.importRow', { row: m[1], field: m[2] }) : t('review.importRowOnly', { row: m[1] });
  m = /^items\[(\d+)\](?:\.(\w+))?/.exec(path || '');
  if (m) return m[2] ? t('review.importItem', { n: Number(m[1]) + 1, field: m[2] }) : t('review.importItemOnly', { n: Number(m[1]) + 1 });
  return path || '';
}

/**
 * The verdicts an item offers as segmented buttons, [[value, label key, text]], in the order
 * the daemon serves them (`review.verdicts`: the core's rule per item type — pass/fail/pending,
 * yes/no, a choice's options, a scale's min..max — so this page keeps no copy of it).
 */
function choicesOf(item, served) {
  const values = Array.isArray(served) ? served.map(String) : [];
  if (item.type === 'confirm' || item.type === 'bool') return values.map((v) => [v, `review.${v}`]);
  if (item.type === 'choice') {
    const text = new Map((item.options || []).map((o) => [String(o.v), o.t]));
    return values.map((v) => [v, null, text.get(v)]);
  }
  return values.map((v) => [v, null]);
}

const MARK = { pass: 'check', fail: 'close', pending: 'info' };

/**
 * A three-way confirmation as an alertdialog; resolves to the chosen value or null. A button
 * is [value, label, style]: style `primary` (the safe choice, focused) or `danger`.
 */
function choiceDialog(title, body, buttons) {
  return new Promise((resolve) => {
    const prev = document.activeElement;
    const titleId = nextId('dlg');
    const dialog = h('dialog', { class: 'dialog rv-dialog', role: 'alertdialog', 'aria-labelledby': titleId },
      h('p', { class: 'dialog-text', id: titleId }, title),
      body,
      h('div', { class: 'dialog-actions' }, buttons.map(([value, label, style]) =>
        h('button', { type: 'button', class: `btn${style ? ` ${style === true ? 'primary' : style}` : ''}`, value, onclick: () => done(value) }, label))));
    const done = (v) => {
      dialog.close();
      dialog.remove();
      if (prev && prev.focus) prev.focus();
      resolve(v);
    };
    dialog.addEventListener('cancel', (e) => {
      e.preventDefault();
      done(null);
    });
    document.body.appendChild(dialog);
    dialog.showModal();
    const primary = dialog.querySelector('.btn.primary');
    if (primary) primary.focus();
  });
}

export class ReviewPanel {
  constructor(root, view, ctx) {
    this.root = root;
    this.ctx = ctx;
    this.id = view.ask_id;
    this.ownRevisions = new Set();
    this.draft = new Autosave({
      id: this.id,
      snapshot: () => ({ answers: this.answers }),
      send: (body, keepalive) => askApi.autosave(this.id, body, keepalive),
      onSaved: (r) => {
        if (r && r.revision !== undefined) this.ownRevisions.add(r.revision);
      },
    });
    view = this.draft.restore(view);
    this.view = view;
    this.items = (view.spec && view.spec.items) || [];
    this.meta = view.review || {};
    this.single = this.items.length === 1;
    this.byId = new Map(this.items.map((it) => [it.id, it]));
    const saved = (view.autosave && view.autosave.answers) || {};
    this.answers = {};
    for (const it of this.items) {
      const a = saved[it.id] || {};
      this.answers[it.id] = {
        verdict: typeof a.verdict === 'string' ? a.verdict : '',
        note: typeof a.note === 'string' ? a.note : '',
      };
    }
    this.rows = new Map();
    this.sections = [];
    this.busy = false;
    this.settled = false;
    this.undo = null;
    // desk-b: notes typed in this tab, by item id (another tab's save never replaces one silently).
    this.typedNotes = new Map();
    if (this.draft.restored) {
      for (const [id, a] of Object.entries(this.answers)) if (a.note.trim()) this.typedNotes.set(id, a.note);
    }
    this.onKey = (e) => this.key(e);
  }

  mount() {
    if (this.view.state !== 'pending') {
      this.settled = true;
      this.renderSettled(this.view.outcome, false, this.view);
      return;
    }
    if (this.meta.offline) {
      this.buildOffline();
    } else {
      this.build();
      document.addEventListener('keydown', this.onKey);
      this.draft.start();
    }
    this.unsubscribe = this.ctx.live.subscribe(({ kind, data }) => {
      if (kind === 'poll') this.poll();
      else if (!data || data.ask_id !== this.id) return;
      else if (kind === 'ask.settled' && !this.busy) this.showSettled(data.outcome, false);
      else if (kind === 'ask.autosaved' && !this.ownRevisions.has(data.revision)) this.syncSoon();
    });
  }

  unmount() {
    this.draft.stop();
    clearTimeout(this.syncTimer);
    clearTimeout(this.searchTimer);
    this.root.classList.remove('app-wide');
    document.removeEventListener('keydown', this.onKey);
    if (this.unsubscribe) this.unsubscribe();
  }

  async poll() {
    try {
      const v = await askApi.view(this.id);
      if (v.state !== 'pending') this.showSettled(v.outcome, false, v);
      else this.applyRemote(v);
    } catch {
      // The next poll or event tries again.
    }
  }

  /** Another view of this review autosaved: fetch its draft shortly (events come in bursts). */
  syncSoon() {
    clearTimeout(this.syncTimer);
    this.syncTimer = setTimeout(() => this.poll(), SYNC_DELAY_MS);
  }

  /**
   * Shows another view's autosaved draft. Local edits not yet saved win (this view's next
   * save is the newer one); the note being typed in is left alone.
   */
  applyRemote(v) {
    if (this.settled || this.busy || this.meta.offline || !this.panel) return;
    const saved = (v.autosave && v.autosave.answers) || {};
    // desk-b: a note typed here that another view's save changed stays, with theirs beside it.
    const kept = new Set();
    if (!this.ownRevisions.has(v.autosaveRevision)) {
      for (const it of this.items) {
        const cur = this.answers[it.id];
        const theirs = saved[it.id] && typeof saved[it.id].note === 'string' ? saved[it.id].note : '';
        if (this.typedNotes.get(it.id) === cur.note && cur.note.trim() && theirs !== cur.note) {
          this.showNoteConflict(it, theirs);
          kept.add(it.id);
        }
      }
    }
    if (this.draft.dirty) return;
    this.draft.adopted(v.autosaveRevision);
    let any = false;
    for (const it of this.items) {
      const a = saved[it.id] || {};
      const cur = this.answers[it.id];
      const verdict = typeof a.verdict === 'string' ? a.verdict : '';
      const row = this.rows.get(it.id);
      const typing = row && document.activeElement === row.noteBox;
      const note = typing || kept.has(it.id) ? cur.note : (typeof a.note === 'string' ? a.note : '');
      if (verdict === cur.verdict && note === cur.note) continue;
      cur.verdict = verdict;
      cur.note = note;
      any = true;
      if (row) {
        if (row.noteBox.value !== note) {
          row.noteBox.value = note;
          this.grow(row.noteBox);
        }
        if (note && it.type !== 'text') {
          row.noteWrap.hidden = false;
          if (row.noteBtn) row.noteBtn.hidden = true;
        }
      }
      this.paint(it);
    }
    if (any) {
      this.undo = null;
      this.hideNotice();
      this.applyFilter();
      this.refreshCounts();
    }
  }

  /** desk-b: "Changed in another tab: <their note> — Keep mine / Use theirs" under the row. */
  showNoteConflict(it, theirs) {
    const row = this.rows.get(it.id);
    if (!row) return;
    const old = row.el.querySelector('.conflict');
    if (old) old.remove();
    const box = h('div', { class: 'conflict', role: 'alert' },
      h('p', { class: 'conflict-title' }, t('conflict.title')),
      h('p', { class: 'conflict-text' }, theirs.trim() ? theirs : t('conflict.empty')));
    const keep = h('button', { type: 'button', class: 'btn small conflict-keep keep-live', onclick: () => {
      box.remove();
      this.changed(it);
    } }, t('conflict.keep'));
    const use = h('button', { type: 'button', class: 'btn small conflict-theirs keep-live', onclick: () => {
      box.remove();
      this.typedNotes.delete(it.id);
      this.answers[it.id].note = theirs;
      row.noteBox.value = theirs;
      this.grow(row.noteBox);
      this.changed(it);
    } }, t('conflict.theirs'));
    box.appendChild(h('div', { class: 'conflict-actions' }, keep, use));
    row.el.appendChild(box);
  }

  filled(it) {
    const a = this.answers[it.id];
    return it.type === 'text' ? a.note.trim() !== '' : a.verdict !== '';
  }

  // ---- building -------------------------------------------------------------------------

  build() {
    const titleId = nextId('title');
    const hasConfirm = this.items.some((it) => it.type === 'confirm');
    this.progress = h('span', { class: 'rv-progress', 'aria-live': 'polite' });
    this.alert = h('div', { class: 'alert', role: 'alert' });
    this.notice = h('div', { class: 'rv-notice', role: 'status', hidden: true });
    const tool = (label, name, fn) => h('button', { type: 'button', class: 'tool', 'aria-label': label, 'data-tip': label, onclick: fn }, icon(name));
    const exportsList = Array.isArray(this.meta.exports) ? this.meta.exports : [];
    const exportLinks = exportsList.map((url) => {
      const fmt = (/format=(\w+)/.exec(url) || [])[1] || 'file';
      return h('a', { class: 'btn small rv-export', href: url, download: '', 'data-format': fmt,
        'aria-label': t('review.export', { format: fmt.toUpperCase() }) }, fmt.toUpperCase());
    });
    const head = h('header', { class: 'card-head rv-head' },
      h('div', { class: 'head-main' },
        h('div', { class: 'eyebrow' }, [this.view.client, this.view.workspace].filter(Boolean).join(' · ') || t('kind.review')),
        h('div', { class: 'card-title', id: titleId }, plainText(this.view.title || (this.view.spec && this.view.spec.title) || t('kind.review'))),
        h('div', { class: 'rv-meta' }, this.progress)),
      h('div', { class: 'head-tools' },
        tool(t('review.keys'), 'keyboard', () => this.showKeys()),
        tool(t('nav.putAway'), 'down', () => { this.draft.save(false); this.ctx.navigate('/'); })));
    const hint = !this.single && this.meta.csvHint ? h('p', { class: 'rv-hint' }, t('review.csvHint'), ' ',
      exportLinks.length ? h('a', { href: exportsList.find((u) => /csv/.test(u)) || exportsList[0], download: '', class: 'rv-hint-link' }, t('review.export', { format: 'CSV' })) : null) : null;

    const body = h('div', { class: 'rv-body' });
    let current = null;
    let lastKey;
    for (const it of this.items) {
      const key = it.group || it.header || '';
      if (!current || key !== lastKey) {
        current = this.section(key, !!it.group);
        body.appendChild(current.el);
        this.sections.push(current);
        lastKey = key;
      }
      const row = this.row(it, !!it.group);
      current.items.push(it);
      current.list.appendChild(row);
    }
    for (const s of this.sections) {
      if (!this.single && s.items.some((it) => it.type === 'confirm')) s.tools.prepend(this.bulkButtons(s.items));
    }
    const bar = this.single ? null : this.findBar(hasConfirm, exportLinks);
    this.noMatch = h('div', { class: 'rv-nomatch', role: 'status', hidden: true },
      h('p', null, t('review.noMatch')),
      h('button', { type: 'button', class: 'btn small rv-show-all', onclick: () => this.clearFilter(true) }, t('review.showAll')));
    body.prepend(this.noMatch);

    this.submitBtn = h('button', { type: 'button', class: 'btn primary rv-submit', onclick: () => this.submit() }, t('review.submit'));
    const cancel = h('button', { type: 'button', class: 'btn rv-cancel', onclick: () => this.cancel() }, t('review.cancel'));
    const skip = this.single ? h('button', { type: 'button', class: 'btn rv-skip', onclick: () => this.submit(true) }, t('review.skip')) : null;
    this.footCounts = h('span', { class: 'rv-foot-counts muted' });
    const foot = h('div', { class: 'rv-foot' }, this.footCounts, h('span', { class: 'rv-spacer' }), cancel, skip, this.submitBtn);

    const wide = !this.single && this.items.length > WIDE_AT;
    this.panel = h('form', {
      class: `card rv ${this.single ? 'rv-card' : 'rv-panel'}${wide ? ' rv-wide' : ''}${this.items.length > (this.meta.virtualThreshold ?? 500) ? ' rv-virtual' : ''}`,
      'aria-labelledby': titleId, novalidate: true, onsubmit: (e) => e.preventDefault(),
    }, h('div', { class: 'rv-sticky' }, head, bar), hint, this.importBox, body, this.notice, this.alert, foot);
    this.root.replaceChildren(this.panel, h('p', { class: 'kbd-hint' }, t('review.keysShort')));
    // A large batch takes the page's width (the column of #app), until the panel goes.
    if (wide) this.root.classList.add('app-wide');
    this.refreshCounts();
    const first = this.rows.get(this.items[0] && this.items[0].id);
    if (first) first.el.focus({ preventScroll: true });
  }

  /**
   * The panel's bar: search, the status filter and (on a phone) the More toggle first; then
   * the bulk buttons, the jump to a group, export and import (behind More on a phone).
   */
  findBar(hasConfirm, exportLinks) {
    this.search = h('input', {
      type: 'search', class: 'rv-search', maxlength: '200', enterkeyhint: 'search',
      'aria-label': t('review.search'), placeholder: t('review.search'),
    });
    this.search.addEventListener('input', () => {
      clearTimeout(this.searchTimer);
      this.searchTimer = setTimeout(() => this.applyFilter(), SEARCH_DELAY_MS);
    });
    this.search.addEventListener('keydown', (e) => {
      if (e.key !== 'Enter' || e.isComposing) return;
      e.preventDefault();
      clearTimeout(this.searchTimer);
      this.applyFilter();
      const first = this.visibleRows()[0];
      if (first) first.el.focus();
    });
    const shows = ['all', 'unfilled', ...(hasConfirm ? VERDICT_FILTERS : [])];
    this.showSel = h('select', { class: 'rv-show', 'aria-label': t('review.show') },
      shows.map((v) => h('option', { value: v }, t(`review.show.${v}`))));
    this.showSel.addEventListener('change', () => this.applyFilter());
    this.shown = h('span', { class: 'rv-shown', 'aria-live': 'polite', hidden: true });
    const toolsId = nextId('tools');
    const more = h('button', {
      type: 'button', class: 'btn small rv-more', 'aria-expanded': 'false', 'aria-controls': toolsId,
      'data-tip': t('review.tools.hint'),
    }, t('review.tools'), icon('down'));
    more.addEventListener('click', () => {
      const open = !this.panel.classList.contains('rv-tools-open');
      this.panel.classList.toggle('rv-tools-open', open);
      more.setAttribute('aria-expanded', String(open));
    });
    let jump = null;
    if (this.sections.length > 1) {
      jump = h('select', { class: 'rv-jump', 'aria-label': t('review.jump') },
        h('option', { value: '' }, t('review.jump.pick')),
        this.sections.map((sec, i) => h('option', { value: String(i) }, `${sec.key || t('review.untitled')} (${sec.items.length})`)));
      jump.addEventListener('change', () => {
        const i = jump.value;
        jump.value = '';
        if (i !== '') this.jumpTo(Number(i));
      });
    }
    return h('div', { class: 'rv-bar' },
      h('div', { class: 'rv-find', role: 'search' }, this.search, this.showSel, more, this.shown),
      h('div', { class: 'rv-tools', id: toolsId },
        hasConfirm ? this.bulkButtons(this.items) : null,
        jump,
        h('span', { class: 'rv-spacer' }),
        exportLinks.length ? h('span', { class: 'rv-exports', role: 'group', 'aria-label': t('review.exportTo') },
          h('span', { class: 'rv-exports-label' }, t('review.exportTo')), exportLinks) : null,
        this.importControl()));
  }

  // ---- finding: the status filter, the search, the jump to a group -----------------------

  /** The words searched for, lower-case, and the status shown; null when everything shows. */
  currentFilter() {
    if (!this.showSel) return null;
    const show = this.showSel.value;
    const words = this.search.value.trim().toLowerCase().split(/\s+/).filter(Boolean);
    return show === 'all' && !words.length ? null : { show, words };
  }

  /** An item's searchable text: its id, titles, lines, options and details (cached), and its note. */
  haystack(it) {
    if (!this.hay) this.hay = new Map();
    let text = this.hay.get(it.id);
    if (text === undefined) {
      const parts = [it.id, it.title, it.label, it.op, it.expect, it.boolDesc, it.group, it.header, it.detail,
        ...(it.options || []).map((o) => o && o.t)];
      text = parts.filter((p) => typeof p === 'string' || typeof p === 'number').join('\n').toLowerCase();
      this.hay.set(it.id, text);
    }
    return `${text}\n${this.answers[it.id].note.toLowerCase()}`;
  }

  matches(it, f) {
    if (!f) return true;
    if (f.show === 'unfilled' && this.filled(it)) return false;
    if (VERDICT_FILTERS.includes(f.show) && (it.type !== 'confirm' || this.answers[it.id].verdict !== f.show)) return false;
    if (f.words.length) {
      const hay = this.haystack(it);
      if (!f.words.every((w) => hay.includes(w))) return false;
    }
    return true;
  }

  /** Shows the rows (and sections) the filter keeps, with "n of total shown". */
  applyFilter() {
    if (!this.showSel) return;
    const f = this.currentFilter();
    this.filter = f;
    let shown = 0;
    for (const s of this.sections) {
      let n = 0;
      for (const it of s.items) {
        const on = this.matches(it, f);
        const el = this.rows.get(it.id).el;
        if (el.hidden === on) el.hidden = !on;
        if (on) n += 1;
      }
      if (s.el.hidden !== (n === 0)) s.el.hidden = n === 0;
      shown += n;
    }
    this.panel.classList.toggle('rv-filtered', !!f);
    this.shown.hidden = !f;
    this.shown.textContent = f ? t('review.shown', { n: shown, total: this.items.length }) : '';
    this.noMatch.hidden = shown > 0;
  }

  /**
   * After one item changed under a filter: its row leaves the list when it no longer matches
   * (never while its note is being typed), and the focus moves on to the next row shown.
   */
  refilter(it) {
    if (!this.filter) return;
    const row = this.rows.get(it.id);
    const on = this.matches(it, this.filter);
    if (row.el.hidden === !on) return;
    const typing = row.el.contains(document.activeElement) && document.activeElement.matches('textarea');
    if (!on && typing) return;
    const focused = row.el.contains(document.activeElement);
    const next = focused && !on ? this.nextShown(it) : null;
    row.el.hidden = !on;
    this.applyFilter();
    if (next) next.el.focus({ preventScroll: false });
    else if (focused && !on) this.search.focus();
  }

  /** The first row shown after (else before) `it`'s, in the review's order. */
  nextShown(it) {
    const i = this.items.indexOf(it);
    const shown = (x) => {
      const r = this.rows.get(x.id);
      return r && !r.el.hidden ? r : null;
    };
    for (let j = i + 1; j < this.items.length; j++) if (shown(this.items[j])) return shown(this.items[j]);
    for (let j = i - 1; j >= 0; j--) if (shown(this.items[j])) return shown(this.items[j]);
    return null;
  }

  clearFilter(focus) {
    this.search.value = '';
    this.showSel.value = 'all';
    this.applyFilter();
    if (focus) this.search.focus();
  }

  /** Scrolls a section's head under the sticky bar, opens it and focuses its first row shown. */
  jumpTo(i) {
    const sec = this.sections[i];
    if (!sec) return;
    if (sec.el.hidden) this.clearFilter(false);
    if (sec.list.hidden) sec.toggle.click();
    const sticky = this.panel.querySelector('.rv-sticky');
    const place = () => {
      const offset = sticky && getComputedStyle(sticky).position === 'sticky' ? sticky.getBoundingClientRect().height : 0;
      window.scrollTo({ top: Math.max(0, sec.el.getBoundingClientRect().top + window.scrollY - offset - 4) });
    };
    place();
    // Rows the browser skipped (content-visibility) take their real height once shown: again.
    requestAnimationFrame(place);
    const first = sec.items.map((it) => this.rows.get(it.id)).find((r) => !r.el.hidden);
    if (first) first.el.focus({ preventScroll: true });
  }

  section(key, byGroup) {
    const headId = nextId('sec');
    const count = h('span', { class: 'rv-sec-count', 'aria-live': 'polite' });
    const list = h('div', { class: 'rv-list' });
    const tools = h('div', { class: 'rv-sec-tools' });
    const toggle = h('button', { type: 'button', class: 'rv-sec-toggle', 'aria-expanded': 'true', id: headId },
      icon('down'), h('span', { class: 'rv-sec-name' }, key || (this.single ? '' : t('review.untitled'))), count);
    const el = h('section', { class: `rv-section${key ? '' : ' untitled'}`, role: 'group', 'aria-labelledby': headId },
      this.single ? null : h('div', { class: 'rv-sec-head' }, toggle, tools), list);
    toggle.addEventListener('click', () => {
      const open = toggle.getAttribute('aria-expanded') !== 'true';
      toggle.setAttribute('aria-expanded', String(open));
      list.hidden = !open;
    });
    return { el, list, count, tools, toggle, items: [], byGroup, key };
  }

  bulkButtons(scope) {
    return h('span', { class: 'rv-bulk' },
      h('button', { type: 'button', class: 'btn small rv-all-pass', onclick: () => this.bulk(scope, 'pass') }, icon('check'), t('review.allPass')),
      h('button', { type: 'button', class: 'btn small rv-all-pending', onclick: () => this.bulk(scope, 'pending') }, icon('info'), t('review.allPending')));
  }

  row(it, byGroup) {
    const headingId = nextId('item');
    const a = this.answers[it.id];
    const rendered = (this.view.rendered && this.view.rendered.items && this.view.rendered.items[it.id]) || {};
    const lines = [];
    if (it.op) lines.push(h('div', { class: 'rv-line' }, h('span', { class: 'rv-cap' }, t('review.op')), h('span', { class: 'rv-text' }, it.op)));
    if (it.expect) lines.push(h('div', { class: 'rv-line' }, h('span', { class: 'rv-cap' }, t('review.expect')), h('span', { class: 'rv-text' }, it.expect)));
    if (it.boolDesc) lines.push(h('div', { class: 'rv-caption muted' }, it.boolDesc));
    let detail = null;
    if (rendered.detail) {
      const prose = h('div', { class: 'prose detail rv-detail-body', hidden: true });
      setSanitizedHtml(prose, rendered.detail);
      const btn = h('button', { type: 'button', class: 'link rv-detail-toggle', 'aria-expanded': 'false' }, t('review.detail'));
      btn.addEventListener('click', () => {
        prose.hidden = !prose.hidden;
        btn.setAttribute('aria-expanded', String(!prose.hidden));
      });
      detail = h('div', { class: 'rv-detail' }, btn, prose);
    }
    const buttons = [];
    let controls;
    if (it.type === 'text') {
      controls = null;
    } else {
      const multi = it.type === 'choice' && it.multiSelect;
      controls = h('div', { class: `rv-controls rv-${it.type}`, role: multi ? 'group' : 'radiogroup', 'aria-labelledby': headingId });
      for (const [value, key, text] of choicesOf(it, (this.meta.verdicts || {})[it.id])) {
        const b = h('button', {
          type: 'button', class: `rv-opt${MARK[value] ? ` v-${value}` : ''}`, role: multi ? 'checkbox' : 'radio',
          'aria-checked': 'false', 'data-v': value, tabindex: '-1',
        }, MARK[value] ? icon(MARK[value]) : null, h('span', null, key ? t(key) : (text ?? value)));
        b.addEventListener('click', () => this.pick(it, value));
        buttons.push(b);
        controls.appendChild(b);
      }
    }
    const noteBox = h('textarea', {
      class: 'rv-note-input', rows: it.type === 'text' ? '3' : '2', maxlength: '4000',
      'aria-label': it.type === 'text' ? t('review.answer') : t('review.note'),
      placeholder: it.type === 'text' ? t('review.answer') : t('review.note'),
    });
    noteBox.value = a.note;
    noteBox.addEventListener('input', () => {
      a.note = noteBox.value;
      this.typedNotes.set(it.id, noteBox.value);
      this.grow(noteBox);
      this.changed(it);
    });
    noteBox.addEventListener('blur', () => this.draft.save(false));
    const noteWrap = h('div', { class: 'rv-note', hidden: it.type !== 'text' && !a.note }, noteBox);
    const noteBtn = it.type === 'text' ? null : h('button', { type: 'button', class: 'link rv-add-note', hidden: !!a.note, onclick: () => this.openNote(it) }, t('review.addNote'));
    const el = h('div', { class: `rv-row t-${it.type}`, 'data-id': it.id, tabindex: '0', 'aria-labelledby': headingId },
      h('div', { class: 'rv-row-head' },
        h('span', { class: 'rv-id' }, it.id),
        h('span', { class: 'rv-title', id: headingId, role: 'heading', 'aria-level': '3' }, it.title || ''),
        byGroup && it.header ? h('span', { class: 'chip header-chip' }, it.header) : null,
        this.single && it.group ? h('span', { class: 'chip header-chip' }, it.group) : null),
      lines, detail, controls, noteBtn, noteWrap);
    const row = { el, buttons, noteBox, noteWrap, noteBtn, item: it };
    this.rows.set(it.id, row);
    this.paint(it);
    return el;
  }

  grow(box) {
    box.style.height = 'auto';
    box.style.height = `${box.scrollHeight}px`;
  }

  openNote(it) {
    const row = this.rows.get(it.id);
    row.noteWrap.hidden = false;
    if (row.noteBtn) row.noteBtn.hidden = true;
    row.noteBox.focus();
  }

  /** Paints one row's controls from its answer (only that row: a 500-item panel stays fast). */
  paint(it) {
    const row = this.rows.get(it.id);
    if (!row) return;
    const v = this.answers[it.id].verdict;
    const chosen = it.type === 'choice' ? new Set(v ? v.split(',') : []) : new Set([v]);
    let tabSet = false;
    for (const b of row.buttons) {
      const on = chosen.has(b.getAttribute('data-v'));
      b.setAttribute('aria-checked', String(on));
      b.tabIndex = on && !tabSet ? 0 : -1;
      if (on) tabSet = true;
    }
    if (!tabSet && row.buttons[0]) row.buttons[0].tabIndex = 0;
    row.el.classList.toggle('filled', this.filled(it));
    row.el.setAttribute('data-verdict', it.type === 'confirm' ? v : '');
  }

  // ---- changes --------------------------------------------------------------------------

  pick(it, value) {
    if (this.busy || this.settled) return;
    const a = this.answers[it.id];
    if (it.type === 'choice' && it.multiSelect) {
      const set = new Set(a.verdict ? a.verdict.split(',') : []);
      if (set.has(value)) set.delete(value);
      else set.add(value);
      a.verdict = it.options.map((o) => String(o.v)).filter((x) => set.has(x)).join(',');
    } else {
      a.verdict = a.verdict === value ? '' : value;
    }
    this.undo = null;
    this.hideNotice();
    this.changed(it);
  }

  changed(it) {
    this.alert.textContent = '';
    if (it) {
      this.paint(it);
      this.refilter(it);
    } else {
      this.applyFilter();
    }
    this.refreshCounts();
    this.draft.changed();
  }

  refreshCounts() {
    let filled = 0;
    const c = { pass: 0, fail: 0, pending: 0 };
    let confirms = 0;
    for (const it of this.items) {
      if (this.filled(it)) filled += 1;
      if (it.type === 'confirm') {
        confirms += 1;
        const v = this.answers[it.id].verdict;
        if (v in c) c[v] += 1;
      }
    }
    const total = this.items.length;
    let text = t('review.progress', { filled, total });
    if (confirms) text += ` · ${t('review.counts', c)}`;
    this.progress.textContent = text;
    this.footCounts.textContent = text;
    for (const s of this.sections) {
      s.count.textContent = `${s.items.filter((it) => this.filled(it)).length}/${s.items.length}`;
    }
  }

  async bulk(scope, verdict) {
    if (this.busy || this.settled) return;
    let targets = scope.filter((it) => it.type === 'confirm');
    if (verdict === 'pass') {
      const failed = targets.filter((it) => this.answers[it.id].verdict === 'fail');
      if (failed.length) {
        // The safe choice (keep every Fail) is the blue, focused one; passing them is marked.
        const choice = await choiceDialog(tn('review.failTitle', failed.length, { k: failed.length }), null, [
          ['cancel', t('review.bulkCancel')],
          ['all', t('review.passAllFailed'), 'danger'],
          ['rest', t('review.passRest'), 'primary'],
        ]);
        if (!choice || choice === 'cancel') return;
        if (choice === 'rest') targets = targets.filter((it) => this.answers[it.id].verdict !== 'fail');
      }
    }
    const before = targets.map((it) => [it, this.answers[it.id].verdict]);
    for (const it of targets) {
      this.answers[it.id].verdict = verdict;
      this.paint(it);
    }
    this.changed(null);
    this.undo = before;
    this.showNotice(tn('review.bulkDone', targets.length, { k: targets.length }), true);
  }

  undoBulk() {
    if (!this.undo) return;
    for (const [it, v] of this.undo) {
      this.answers[it.id].verdict = v;
      this.paint(it);
    }
    this.undo = null;
    this.changed(null);
    this.showNotice(t('review.undone'), false);
  }

  showNotice(text, withUndo) {
    this.notice.replaceChildren(h('span', null, text),
      withUndo ? h('button', { type: 'button', class: 'btn small rv-undo', onclick: () => this.undoBulk() }, t('review.undo')) : null);
    this.notice.hidden = false;
  }

  hideNotice() {
    this.notice.hidden = true;
  }

  // ---- submit / cancel ------------------------------------------------------------------

  async submit(skip = false) {
    if (this.busy || this.settled) return;
    const blank = skip ? [] : this.items.filter((it) => !this.filled(it));
    if (blank.length) {
      const list = h('ul', { class: 'rv-blank-list' },
        blank.slice(0, LIST_MAX).map((it) => h('li', null, h('span', { class: 'rv-id' }, it.id), ' ', it.title || '')),
        blank.length > LIST_MAX ? h('li', { class: 'muted' }, t('review.more', { k: blank.length - LIST_MAX })) : null);
      const body = h('div', { class: 'rv-blank' }, list, h('p', { class: 'muted' }, t('review.blankBody')));
      const choice = await choiceDialog(this.single ? t('review.blankSingle') : t('review.blankTitle'), body, [
        ['keep', t('review.keep')],
        ['send', t('review.anyway'), true],
      ]);
      if (choice !== 'send') {
        if (choice === 'keep') {
          const row = this.rows.get(blank[0].id);
          if (row) {
            row.el.scrollIntoView({ block: 'center' });
            row.el.focus();
          }
        }
        return;
      }
    }
    const answers = this.items.map((it) => {
      const a = this.answers[it.id];
      const e = { id: it.id };
      if (skip) return e;
      if (it.type !== 'text' && a.verdict) e.verdict = a.verdict;
      if (a.note.trim()) e.note = a.note.trim();
      return e;
    });
    await this.send(() => askApi.submit(this.id, { answers, surface: this.single ? 'card' : 'panel' }), 'answered');
  }

  async cancel() {
    if (this.busy || this.settled) return;
    if (!(await confirmDialog(t('review.cancelConfirm')))) return;
    await this.send(() => askApi.cancel(this.id), 'cancelled');
  }

  async send(call, outcome) {
    this.busy = true;
    if (this.submitBtn) this.submitBtn.disabled = true;
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
      if (this.submitBtn) this.submitBtn.disabled = false;
    }
  }

  showSettled(outcome, mine, view) {
    if (this.settled) return;
    this.settled = true;
    this.draft.settle();
    clearTimeout(this.syncTimer);
    hideTooltip();
    this.renderSettled(outcome, mine, view);
    if (!view) {
      askApi.view(this.id).then((v) => {
        if (this.root.querySelector('.rv-result-pending')) this.renderSettled(v.outcome || outcome, mine, v);
      }, () => {});
    }
  }

  /**
   * The read-only settled view: the outcome, where and when it settled, the counts and every
   * item's verdict and note (review.md §6.3), with the exports as a record. `view` is the
   * ask as the daemon shows it (its `result`); without it, the outcome alone until it comes.
   */
  renderSettled(outcome, mine, view) {
    this.root.classList.remove('app-wide');
    const result = view && view.result;
    const key = outcome || 'answered';
    const heading = h('h1', { class: 'prompt', tabindex: '-1' },
      mine && key === 'answered' ? t('sent') : t(`outcome.${key}`));
    const back = h('a', { href: '/', class: 'btn', 'data-nav': '' }, t('back.inbox'));
    const head = h('div', { class: 'settled-body' },
      h('div', { class: 'settled-icon' }, icon(key === 'answered' || mine ? 'sent' : 'close')),
      heading,
      mine ? h('p', { class: 'muted settled-note' }, t('sent.detail')) : null,
      back);
    // desk-c: settled elsewhere, the line names who settled it (the result says where and when).
    if (!mine && result) {
      import('./questions.js').then((m) => {
        const note = m.settledNote(view, key, { brief: true });
        if (note && back.isConnected) back.before(h('p', { class: 'muted settled-note' }, note));
      }, () => {});
    }
    const card = h('section', { class: `card settled rv-settled outcome-${key}${result ? '' : ' rv-result-pending'}` }, head);
    if (result) card.appendChild(this.resultView(result, view));
    this.root.replaceChildren(card);
    heading.focus();
  }

  resultView(result, view) {
    const items = Array.isArray(result.items) ? result.items : [];
    const s = result.summary || {};
    const meta = [];
    if (result.surface) meta.push(t('review.settledOn', { surface: t(`review.surface.${result.surface}`) }));
    if (view && view.settledAt) meta.push(new Date(view.settledAt).toLocaleString(document.documentElement.lang || undefined));
    const exportsList = (view && view.review && Array.isArray(view.review.exports)) ? view.review.exports : [];
    const exportLinks = exportsList.map((url) => {
      const fmt = (/format=(\w+)/.exec(url) || [])[1] || 'file';
      return h('a', { class: 'btn small rv-export', href: url, download: '', 'data-format': fmt,
        'aria-label': t('review.export', { format: fmt.toUpperCase() }) }, fmt.toUpperCase());
    });
    const out = h('div', { class: 'rv-result' },
      meta.length ? h('p', { class: 'muted rv-result-meta' }, meta.join(' · ')) : null);
    if (result.cancelled) {
      out.appendChild(h('p', { class: 'rv-result-none' }, tn('review.noVerdicts', s.total ?? this.items.length, { total: s.total ?? this.items.length })));
    } else {
      let counts = t('review.progress', { filled: s.filled ?? 0, total: s.total ?? items.length });
      if (items.some((it) => it.type === 'confirm')) counts += ` · ${t('review.counts', { pass: s.pass ?? 0, fail: s.fail ?? 0, pending: s.pending ?? 0 })}`;
      if (items.some((it) => it.type === 'bool')) counts += ` · ${t('review.yesNo', { yes: s.yes ?? 0, no: s.no ?? 0 })}`;
      out.appendChild(h('p', { class: 'rv-result-counts' }, counts));
      out.appendChild(h('ol', { class: 'rv-result-list', 'aria-label': t('review.resultList') }, items.map((it) => {
        const verdict = it.filled && it.type !== 'text'
          ? h('span', { class: `rv-res-verdict v-${it.verdict}` }, MARK[it.verdict] ? icon(MARK[it.verdict]) : null, it.verdict_label || it.verdict)
          : (it.filled ? null : h('span', { class: 'rv-res-verdict blank' }, t('review.blankItem')));
        return h('li', { class: `rv-res-row${it.filled ? ' filled' : ''}`, 'data-id': it.id, 'data-verdict': it.verdict || '' },
          h('div', { class: 'rv-row-head' },
            h('span', { class: 'rv-id' }, it.id),
            h('span', { class: 'rv-title' }, it.title || ''),
            verdict),
          it.note ? h('p', { class: 'rv-res-note' },
            h('span', { class: 'rv-cap' }, it.type === 'text' ? t('review.answer') : t('review.note')), ' ',
            h('span', { class: 'rv-text' }, it.note)) : null);
      })));
    }
    if (exportLinks.length) {
      out.appendChild(h('p', { class: 'rv-exports', role: 'group', 'aria-label': t('review.exportTo') },
        h('span', { class: 'rv-exports-label' }, t('review.exportRecord')), exportLinks));
    }
    return out;
  }

  // ---- import (§8.3) and the offline view (§5.5) ------------------------------------------

  /** The Import answers button of the file menu, with its hidden file input. */
  importControl() {
    if (!this.importBox) this.importBox = h('div', { class: 'rv-import-problems', role: 'alert', hidden: true });
    const input = h('input', { type: 'file', class: 'rv-import-file', accept: '.csv,.json,text/csv,application/json', hidden: true, tabindex: '-1' });
    input.addEventListener('change', () => {
      const file = input.files && input.files[0];
      input.value = '';
      if (file) this.importFile(file);
    });
    const btn = h('button', { type: 'button', class: 'btn small rv-import', onclick: () => input.click() }, t('review.import'));
    return h('span', { class: 'rv-import-wrap' }, btn, input);
  }

  showImportProblems(name, errors) {
    const box = this.importBox;
    if (!box) return;
    if (!errors || !errors.length) {
      box.hidden = true;
      box.replaceChildren();
      return;
    }
    box.replaceChildren(
      h('p', { class: 'rv-import-title' }, tn('review.importProblems', errors.length, { n: errors.length, name })),
      h('ul', { class: 'rv-import-list' }, errors.map((p) => h('li', { class: 'rv-import-problem', 'data-path': p.path || '' },
        h('span', { class: 'rv-imp-where' }, problemPlace(p.path)),
        h('span', { class: 'rv-imp-msg' }, p.message || p.code || '')))),
      h('p', { class: 'muted' }, t('review.importFix')));
    box.hidden = false;
    box.scrollIntoView({ block: 'nearest' });
  }

  /** Validates the file (a dry run), confirms with its counts, then imports and settles. */
  async importFile(file) {
    if (this.busy || this.settled) return;
    let content;
    try {
      content = await file.text();
    } catch {
      this.showImportProblems(file.name, [{ path: '', message: t('review.importUnreadable') }]);
      return;
    }
    const format = /\.json$/i.test(file.name) || (!/\.csv$/i.test(file.name) && /^\s*\{/.test(content)) ? 'json' : 'csv';
    const path = `/api/asks/${encodeURIComponent(this.id)}/import`;
    this.showImportProblems(file.name, []);
    this.alert.textContent = '';
    let preview;
    try {
      preview = await api('POST', path, { format, content, dry_run: true });
    } catch (e) {
      this.importFailed(file.name, e);
      return;
    }
    const unfilled = Array.isArray(preview.unfilled) ? preview.unfilled : [];
    const body = h('div', { class: 'rv-import-preview' },
      h('p', { class: 'rv-import-counts' }, preview.counts || ''),
      unfilled.length ? h('p', { class: 'muted' }, tn('review.importBlank', unfilled.length, { k: unfilled.length, ids: unfilled.slice(0, LIST_MAX).join(', ') + (unfilled.length > LIST_MAX ? ' …' : '') })) : null);
    const choice = await choiceDialog(t('review.importConfirm', { name: file.name }), body, [
      ['keep', t('review.bulkCancel')],
      ['import', t('review.importGo'), true],
    ]);
    if (choice !== 'import' || this.settled) return;
    this.busy = true;
    try {
      await api('POST', path, { format, content });
      this.busy = false;
      this.showSettled('answered', true);
    } catch (e) {
      this.busy = false;
      this.importFailed(file.name, e);
    }
  }

  importFailed(name, e) {
    if (e.status === 409) {
      this.poll();
      return;
    }
    const errors = e.body && Array.isArray(e.body.errors) ? e.body.errors : null;
    if (errors && errors.length) this.showImportProblems(name, errors);
    else this.alert.textContent = e.status === 0 ? t('error.network') : e.message;
  }

  /** The offline view (§5.5): title, counts by type and section, export, import, cancel. */
  buildOffline() {
    const titleId = nextId('title');
    const byType = TYPES.map((ty) => [ty, this.items.filter((it) => it.type === ty).length]).filter(([, n]) => n > 0);
    const sections = [];
    let last;
    for (const it of this.items) {
      const key = it.group || it.header || '';
      if (!sections.length || key !== last) sections.push({ key, n: 0 });
      sections[sections.length - 1].n += 1;
      last = key;
    }
    const exportsList = Array.isArray(this.meta.exports) ? this.meta.exports : [];
    const exportLinks = exportsList.map((url) => {
      const fmt = (/format=(\w+)/.exec(url) || [])[1] || 'file';
      return h('a', { class: 'btn rv-export', href: url, download: '', 'data-format': fmt,
        'aria-label': t('review.export', { format: fmt.toUpperCase() }) }, fmt.toUpperCase());
    });
    this.alert = h('div', { class: 'alert', role: 'alert' });
    const importer = this.importControl();
    const cancel = h('button', { type: 'button', class: 'btn rv-cancel', onclick: () => this.cancel() }, t('review.cancel'));
    this.panel = h('section', { class: 'card rv rv-offline', 'aria-labelledby': titleId },
      h('header', { class: 'card-head rv-head' },
        h('div', { class: 'head-main' },
          h('div', { class: 'eyebrow' }, [this.view.client, this.view.workspace].filter(Boolean).join(' · ') || t('kind.review')),
          h('div', { class: 'card-title', id: titleId }, plainText(this.view.title || (this.view.spec && this.view.spec.title) || t('kind.review'))))),
      h('div', { class: 'rv-offline-body' },
        h('p', { class: 'rv-offline-intro' }, t('review.offlineIntro')),
        h('p', { class: 'rv-offline-total' }, tn('review.offlineTotal', this.items.length, { n: this.items.length })),
        h('ul', { class: 'rv-offline-types', 'aria-label': t('review.byType') },
          byType.map(([ty, n]) => h('li', { 'data-type': ty }, h('span', { class: 'rv-offline-n' }, String(n)), ' ', t(`review.type.${ty}`)))),
        h('h2', { class: 'rv-offline-h' }, t('review.bySection')),
        h('ul', { class: 'rv-offline-sections' },
          sections.map((sec) => h('li', null, sec.key || t('review.untitled'), ' ', h('span', { class: 'muted' }, `(${sec.n})`)))),
        h('div', { class: 'rv-offline-step' },
          h('h2', { class: 'rv-offline-h' }, t('review.offlineStep1')),
          h('div', { class: 'rv-exports', role: 'group', 'aria-label': t('review.exportTo') }, exportLinks)),
        h('div', { class: 'rv-offline-step' },
          h('h2', { class: 'rv-offline-h' }, t('review.offlineStep2')),
          h('p', { class: 'muted' }, t('review.offlineImportHint')),
          importer),
        this.importBox),
      this.alert,
      h('div', { class: 'rv-foot' }, h('span', { class: 'rv-spacer' }), cancel));
    this.root.replaceChildren(this.panel);
  }

  showKeys() {
    choiceDialog(t('review.keys'), h('p', { class: 'rv-keys' }, t('review.keysList')), [['ok', t('help.close'), true]]);
  }

  // ---- keyboard (§5.6) ------------------------------------------------------------------

  rowOf(el) {
    const r = el && el.closest && el.closest('.rv-row');
    return r ? this.rows.get(r.getAttribute('data-id')) : null;
  }

  visibleRows() {
    return [...this.rows.values()].filter((r) => r.el.offsetParent !== null || this.rows.size === 1);
  }

  move(from, step) {
    const rows = this.visibleRows();
    let i = from ? rows.indexOf(from) : -1;
    i = Math.max(0, Math.min(rows.length - 1, i + step));
    const r = rows[i];
    if (r) {
      r.el.focus({ preventScroll: true });
      r.el.scrollIntoView({ block: 'nearest' });
    }
  }

  key(e) {
    if (this.settled || e.defaultPrevented || document.querySelector('dialog[open]')) return;
    if (!this.panel || !this.panel.isConnected) return;
    const target = e.target;
    if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) {
      e.preventDefault();
      this.submit();
      return;
    }
    const inField = target && target.matches && target.matches('input:not([type="checkbox"]):not([type="radio"]), textarea, select');
    const row = this.rowOf(target);
    if (inField) {
      if (e.key === 'Escape' && row) {
        e.preventDefault();
        row.el.focus();
      }
      return;
    }
    if ((e.ctrlKey || e.metaKey) && (e.key === 'z' || e.key === 'Z')) {
      if (this.undo) {
        e.preventDefault();
        this.undoBulk();
      }
      return;
    }
    if (e.altKey || e.ctrlKey || e.metaKey) return;
    if (e.key === '?') {
      e.preventDefault();
      this.showKeys();
      return;
    }
    if (e.key === '/' && this.search) {
      e.preventDefault();
      this.search.focus();
      return;
    }
    if (e.key === 'j' || e.key === 'ArrowDown') {
      e.preventDefault();
      this.move(row, 1);
      return;
    }
    if (e.key === 'k' || e.key === 'ArrowUp') {
      e.preventDefault();
      this.move(row, -1);
      return;
    }
    const r = row || (this.single ? this.rows.get(this.items[0].id) : null);
    if (!r) return;
    const it = r.item;
    if (e.key === 'x') {
      e.preventDefault();
      if (this.answers[it.id].verdict) {
        this.answers[it.id].verdict = '';
        this.changed(it);
      }
      return;
    }
    if (e.key === 'n') {
      e.preventDefault();
      this.openNote(it);
      return;
    }
    if (/^[0-9]$/.test(e.key) || e.key === '-') {
      const values = r.buttons.map((b) => b.getAttribute('data-v'));
      let value;
      if (it.type === 'scale') value = values.includes(e.key) ? e.key : undefined;
      else if (/^[1-9]$/.test(e.key)) value = values[Number(e.key) - 1];
      if (value === undefined) return;
      e.preventDefault();
      this.pick(it, value);
      return;
    }
    if ((e.key === 'ArrowLeft' || e.key === 'ArrowRight') && (it.type === 'scale' || (it.type === 'choice' && !it.multiSelect) || it.type === 'confirm' || it.type === 'bool')) {
      e.preventDefault();
      const values = r.buttons.map((b) => b.getAttribute('data-v'));
      const cur = values.indexOf(this.answers[it.id].verdict);
      const step = e.key === 'ArrowRight' ? 1 : -1;
      const next = cur < 0 ? (step > 0 ? 0 : values.length - 1) : Math.max(0, Math.min(values.length - 1, cur + step));
      if (values[next] !== this.answers[it.id].verdict) this.pick(it, values[next]);
      const b = r.buttons[next];
      if (b && target && target.classList && target.classList.contains('rv-opt')) b.focus();
    }
  }
}

// Option rows (survey.md §12.4–§12.7): edge-to-edge rows with hairline dividers, used by the
// wizard's questions, its quick templates and the ask_user_question card. A row is a radio
// or checkbox; its `?`, diagram and pencil buttons sit beside it (never inside it), and the
// disclosure panel and the justify input open under it. At most one panel is open on the
// page (an accordion across every list), and only on click or Enter/Space — never on hover.
import { h, icon, nextId, show } from './dom.js';
import { setSanitizedHtml } from './html.js';
import { t } from './i18n.js';

/** The one open disclosure on the page: {rows, key, mode} or null. */
let openPanel = null;

/** Closes the open disclosure; true when one was open. */
export function closePanel() {
  if (!openPanel) return false;
  const { rows, key } = openPanel;
  openPanel = null;
  rows.renderPanel(key, null);
  return true;
}

/**
 * opts: {labelledBy, multi, locked, askId, items: [{key, badge, label, description,
 * recommended, insightHtml, sources, diagram}], isSelected(key), why(key), canJustify,
 * onChoose(key), onJustify(key, text), onEnterSelected()}
 */
export function optionRows(opts) {
  const list = h('div', {
    class: 'rows',
    role: opts.multi ? 'group' : 'radiogroup',
    'aria-labelledby': opts.labelledBy,
  });
  const rows = new Map();
  let justifyKey = null;
  const api = {
    el: list,
    update,
    renderPanel,
    closeJustify,
    openJustify,
    toggle,
    focusKey,
    focusedKey,
    keys: () => opts.items.map((i) => i.key),
  };

  for (const item of opts.items) {
    const panelId = nextId('panel');
    const hit = h('div', {
      class: 'row-hit',
      role: opts.multi ? 'checkbox' : 'radio',
      tabindex: '0',
      'aria-checked': 'false',
      'data-key': item.key,
    });
    const mark = opts.multi
      ? h('span', { class: 'box', 'aria-hidden': 'true' }, icon('check'))
      : h('span', { class: 'key', 'aria-hidden': 'true' }, item.badge ?? item.key);
    const labelText = h('span', { class: 'label-text' }, item.label);
    const title = h('span', { class: 'row-label' }, labelText,
      item.recommended ? h('span', { class: 'badge rec' }, t('option.recommended')) : null);
    const body = h('span', { class: 'row-body' }, title,
      item.description ? h('span', { class: 'row-desc' }, item.description) : null);
    hit.append(mark, body);

    const tools = h('div', { class: 'row-tools' });
    let infoBtn = null;
    let diagramBtn = null;
    if (item.insightHtml || (item.sources && item.sources.length)) {
      infoBtn = h('button', {
        type: 'button', class: 'tool', 'aria-expanded': 'false', 'aria-controls': panelId,
        'aria-label': t('insight.expand'), 'data-tip': t('insight.expand.hint'),
        onclick: (e) => { e.stopPropagation(); toggle(item.key, 'insight'); },
      }, icon('info'));
      tools.appendChild(infoBtn);
    }
    if (item.diagram) {
      diagramBtn = h('button', {
        type: 'button', class: 'tool', 'aria-expanded': 'false', 'aria-controls': panelId,
        'aria-label': t('diagram.view'), 'data-tip': t('diagram.view.hint'),
        onclick: (e) => { e.stopPropagation(); toggle(item.key, 'diagram'); },
      }, icon('branch'));
      tools.appendChild(diagramBtn);
    }
    const pencil = h('button', {
      type: 'button', class: 'tool pencil', 'aria-label': t('justify.add'),
      'data-tip': t('justify.add.hint'), hidden: true,
      onclick: (e) => { e.stopPropagation(); openJustify(item.key); },
    }, icon('pencil'));
    tools.appendChild(pencil);

    const whyLine = h('button', {
      type: 'button', class: 'why-line', hidden: true,
      onclick: () => openJustify(item.key),
    });
    const input = h('input', {
      type: 'text', class: 'justify-input', maxlength: '500',
      placeholder: t('justify.placeholder'), 'aria-label': t('justify.add'),
    });
    const save = h('button', {
      type: 'button', class: 'tool ok', 'aria-label': t('justify.save'),
      'data-tip': t('justify.save'), onclick: () => commitJustify(item.key),
    }, icon('check'));
    const justify = h('div', { class: 'justify', hidden: true }, input, save);
    input.addEventListener('keydown', (e) => {
      e.stopPropagation();
      if (e.key === 'Enter' && !e.isComposing && e.keyCode !== 229) {
        e.preventDefault();
        commitJustify(item.key);
      } else if (e.key === 'Escape') {
        e.preventDefault();
        closeJustify(true);
      }
    });
    const panel = h('div', { class: 'panel', id: panelId, hidden: true });
    const row = h('div', { class: 'row', 'data-key': item.key },
      hit, tools, whyLine, justify, panel);

    hit.addEventListener('click', () => {
      if (!opts.locked) opts.onChoose(item.key);
    });
    hit.addEventListener('keydown', (e) => {
      if (e.altKey || e.ctrlKey || e.metaKey) return;
      if (e.key === ' ' || e.key === 'Enter') {
        e.preventDefault();
        e.stopPropagation();
        if (opts.locked) return;
        if (e.key === 'Enter' && !opts.multi && opts.isSelected(item.key) && opts.onEnterSelected) {
          opts.onEnterSelected();
        } else {
          opts.onChoose(item.key);
        }
      } else if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
        e.preventDefault();
        e.stopPropagation();
        const keys = api.keys();
        const i = keys.indexOf(item.key) + (e.key === 'ArrowDown' ? 1 : -1);
        if (i >= 0 && i < keys.length) focusKey(keys[i]);
      }
    });
    rows.set(item.key, { item, row, hit, infoBtn, diagramBtn, pencil, whyLine, justify, input, panel });
    list.appendChild(row);
  }

  function update() {
    for (const [key, r] of rows) {
      const on = opts.isSelected(key);
      r.hit.setAttribute('aria-checked', on ? 'true' : 'false');
      r.row.classList.toggle('selected', on);
      if (opts.locked) r.hit.setAttribute('aria-disabled', 'true');
      else r.hit.removeAttribute('aria-disabled');
      show(r.pencil, on && opts.canJustify && !opts.locked);
      const why = opts.why ? opts.why(key) : '';
      show(r.whyLine, !!why && justifyKey !== key);
      r.whyLine.replaceChildren(h('span', { class: 'why-label' }, t('justify.line')), ' ', why || '');
      r.whyLine.disabled = !!opts.locked || !opts.canJustify;
      if (!on && justifyKey === key) closeJustify(false);
    }
  }

  function openJustify(key) {
    const r = rows.get(key);
    if (!r || opts.locked || !opts.canJustify || !opts.isSelected(key)) return;
    if (justifyKey && justifyKey !== key) closeJustify(false);
    justifyKey = key;
    r.input.value = (opts.why && opts.why(key)) || '';
    show(r.justify, true);
    show(r.whyLine, false);
    r.input.focus();
  }

  function commitJustify(key) {
    const r = rows.get(key);
    if (!r) return;
    opts.onJustify(key, r.input.value.trim().slice(0, 500));
    closeJustify(true);
  }

  /** Closes the open justify input without saving; true when one was open. */
  function closeJustify(refocus) {
    if (!justifyKey) return false;
    const r = rows.get(justifyKey);
    justifyKey = null;
    if (r) {
      show(r.justify, false);
      if (refocus) r.hit.focus();
    }
    update();
    return true;
  }

  function toggle(key, mode) {
    const r = rows.get(key);
    if (!r || (mode === 'insight' && !r.infoBtn) || (mode === 'diagram' && !r.diagramBtn)) return;
    const same = openPanel && openPanel.rows === api && openPanel.key === key && openPanel.mode === mode;
    closePanel();
    if (same) return;
    openPanel = { rows: api, key, mode };
    renderPanel(key, mode);
  }

  function renderPanel(key, mode) {
    const r = rows.get(key);
    if (!r) return;
    r.panel.classList.toggle('diagram-mode', mode === 'diagram');
    if (r.infoBtn) {
      const on = mode === 'insight';
      r.infoBtn.setAttribute('aria-expanded', String(on));
      r.infoBtn.setAttribute('aria-label', t(on ? 'insight.collapse' : 'insight.expand'));
      r.infoBtn.classList.toggle('active', on);
    }
    if (r.diagramBtn) {
      const on = mode === 'diagram';
      r.diagramBtn.setAttribute('aria-expanded', String(on));
      r.diagramBtn.setAttribute('aria-label', t(on ? 'diagram.hide' : 'diagram.view'));
      r.diagramBtn.classList.toggle('active', on);
    }
    if (!mode) {
      r.panel.replaceChildren();
      show(r.panel, false);
      return;
    }
    const body = h('div', { class: 'panel-body' });
    if (mode === 'insight') {
      if (r.item.insightHtml) {
        const insight = h('div', { class: 'prose insight' });
        setSanitizedHtml(insight, r.item.insightHtml);
        body.appendChild(insight);
      }
      if (r.item.sources && r.item.sources.length) {
        body.appendChild(h('div', { class: 'sources-title' }, t('sources.title')));
        body.appendChild(h('ul', { class: 'sources' }, r.item.sources.map((s) => h('li', null,
          /^https?:\/\//i.test(s)
            ? h('a', { href: s, target: '_blank', rel: 'noreferrer noopener' }, s)
            : s))));
      }
    } else {
      // Loaded when a diagram is first shown (desk-c: the wizard's first load stays light).
      import('./diagram.js').then((m) => m.showDiagram(body, r.item.diagram, opts.askId));
    }
    r.panel.replaceChildren(body);
    show(r.panel, true);
  }

  function focusKey(key) {
    const r = rows.get(key);
    if (r) r.hit.focus();
  }

  function focusedKey() {
    const el = document.activeElement;
    const row = el && el.closest && el.closest('.row');
    if (!row || !list.contains(row)) return null;
    return row.getAttribute('data-key');
  }

  update();
  return api;
}

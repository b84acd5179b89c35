// The survey's review step before its final submit: every answer on the path, each with an
// Edit button back to its question (banked answers are locked and say so), then Submit.
// Loaded by the wizard only when the human reaches the end, so the wizard's page stays light.
import { h, plainText } from './dom.js';
import { t } from './i18n.js';
import { answerList, surveyItems } from './questions.js';

/**
 * Shows the answers (`entries` as the wizard would submit them) in a modal dialog. Resolves
 * `{ submit: true }`, `{ edit: id }` or `null` (Keep editing, Esc).
 */
export function recap(spec, rendered, entries, banked) {
  const items = surveyItems(spec, rendered, entries.map((e) => ({
    id: e.id, keys: e.selected, custom: e.custom, skipped: e.skipped, justifications: e.justifications,
  })));
  return new Promise((resolve) => {
    const list = answerList(items);
    const submit = h('button', { type: 'button', class: 'btn primary', value: 'yes' }, t('recap.submit'));
    const back = h('button', { type: 'button', class: 'btn', value: 'no' }, t('recap.back'));
    const dialog = h('dialog', { class: 'dialog wide recap', 'aria-labelledby': 'recap-title' },
      h('h2', { class: 'dialog-text recap-title', id: 'recap-title' }, t('recap.title')),
      h('p', { class: 'muted recap-hint' }, t('recap.hint')),
      list,
      h('div', { class: 'dialog-actions' }, back, submit));
    let result = null;
    for (const item of list.querySelectorAll('.answer-item')) {
      const id = item.dataset.qid;
      const q = (spec.questions || {})[id] || {};
      item.prepend(h('div', { class: 'recap-tools' }, banked.has(id)
        ? h('span', { class: 'chip locked-chip' }, t('recap.locked'))
        : h('button', {
          type: 'button', class: 'btn small recap-edit', 'data-qid': id,
          'aria-label': t('recap.editLabel', { q: plainText(q.prompt || id) }),
          onclick: () => { result = { edit: id }; dialog.close(); },
        }, t('recap.edit'))));
    }
    submit.addEventListener('click', () => { result = { submit: true }; dialog.close(); });
    back.addEventListener('click', () => dialog.close());
    dialog.addEventListener('close', () => {
      dialog.remove();
      resolve(result);
    });
    document.body.appendChild(dialog);
    dialog.showModal();
    submit.focus();
  });
}

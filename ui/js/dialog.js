// Confirmations and the shortcut list, as in-page <dialog>s (never window.confirm).
import { h, icon } from './dom.js';
import { t } from './i18n.js';

/**
 * Resolves true when the human confirms; `focusNo` focuses "No" (a repeated key cancels).
 * `body` is shown under the question (built with h(), so agent text stays text); `yes` and
 * `no` relabel the buttons.
 */
export function confirmDialog(text, { focusNo = false, body = null, yes: yesLabel = null, no: noLabel = null } = {}) {
  return new Promise((resolve) => {
    const yes = h('button', { type: 'button', class: 'btn primary', value: 'yes' }, yesLabel || t('confirm.yes'));
    const no = h('button', { type: 'button', class: 'btn', value: 'no' }, noLabel || t('confirm.no'));
    const dialog = h('dialog', { class: `dialog${body ? ' wide' : ''}`, 'aria-label': text },
      h('p', { class: 'dialog-text' }, text),
      body,
      h('div', { class: 'dialog-actions' }, no, yes));
    const done = (ok) => {
      dialog.close();
      dialog.remove();
      resolve(ok);
    };
    yes.addEventListener('click', () => done(true));
    no.addEventListener('click', () => done(false));
    dialog.addEventListener('cancel', (e) => {
      e.preventDefault();
      done(false);
    });
    document.body.appendChild(dialog);
    dialog.showModal();
    (focusNo ? no : yes).focus();
  });
}

const SHORTCUTS = [
  ['a–z 1–9', 'help.choose'],
  ['↑ ↓', 'help.move'],
  ['Enter', 'help.primary'],
  ['← ⌫', 'help.back'],
  ['S', 'help.skip'],
  ['B', 'help.bank'],
  ['?', 'help.details'],
  ['G', 'help.diagram'],
  ['W', 'help.why'],
  ['Q R P D', 'help.intro'],
  ['X', 'help.cancel'],
  ['Esc', 'help.escape'],
  ['H', 'help.help'],
];

let helpOpen = null;

export function toggleHelp() {
  if (helpOpen) {
    helpOpen.close();
    return;
  }
  const close = h('button', { type: 'button', class: 'tool', 'aria-label': t('help.close'),
    onclick: () => dialog.close() }, icon('close'));
  const dialog = h('dialog', { class: 'dialog help', 'aria-labelledby': 'help-title' },
    h('div', { class: 'dialog-head' }, h('h2', { id: 'help-title' }, t('help.title')), close),
    h('dl', { class: 'shortcuts' }, SHORTCUTS.map(([keys, label]) => [
      h('dt', null, keys.split(' ').map((k) => h('kbd', null, k))),
      h('dd', null, t(label)),
    ])));
  dialog.addEventListener('close', () => {
    dialog.remove();
    helpOpen = null;
  });
  document.body.appendChild(dialog);
  helpOpen = dialog;
  dialog.showModal();
  close.focus();
}

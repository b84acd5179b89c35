// Confirmations and the shortcut list, as in-page <dialog>s (never window.confirm).
import { h, icon } from './dom.js';
import { t } from './i18n.js';

/**
 * Resolves true when the human confirms; `focusNo` focuses "No" (a repeated key cancels).
 * `body` is shown under the question (built with h(), so agent text stays text); `yes` and
 * `no` relabel the buttons. `danger`: "Yes" destroys something, so it is styled as such and
 * "No" is the blue (primary) one, focused.
 */
export function confirmDialog(text, { focusNo = false, body = null, yes: yesLabel = null, no: noLabel = null, danger = false } = {}) {
  return new Promise((resolve) => {
    const yes = h('button', { type: 'button', class: `btn ${danger ? 'danger' : 'primary'}`, value: 'yes' }, yesLabel || t('confirm.yes'));
    const no = h('button', { type: 'button', class: `btn${danger ? ' primary' : ''}`, value: 'no' }, noLabel || t('confirm.no'));
    if (danger) focusNo = true;
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

// The survey wizard's keys, exactly as its key handler reads them: lower-case letters and
// digits belong to the options, every command is Shift+letter or a symbol (never an option key).
export const WIZARD_SHORTCUTS = [
  ['a–z 0–9', 'help.choose'],
  ['1–9', 'help.position'],
  ['↑ ↓', 'help.move'],
  ['Enter', 'help.primary'],
  ['← ⌫', 'help.back'],
  ['Shift+S', 'help.skip'],
  ['Shift+B', 'help.bank'],
  ['?', 'help.details'],
  ['Shift+G', 'help.diagram'],
  ['Shift+W', 'help.why'],
  ['Shift+Q Shift+R Shift+P Shift+D', 'help.intro'],
  ['Shift+X', 'help.cancel'],
  ['Esc', 'help.escape'],
  ['Shift+H', 'help.help'],
];

/** The flat questions page's keys (questions.js). */
export const QUESTIONS_SHORTCUTS = [
  ['1–9', 'help.questions.choose'],
  ['↑ ↓', 'help.move'],
  ['Enter', 'help.questions.submit'],
  ['Ctrl+Enter', 'help.questions.submit'],
  ['Esc', 'help.escape'],
  ['Shift+H', 'help.help'],
];

/**
 * The option key a plain key press chooses, or null: the option whose key is that character
 * (an upper-case letter never chooses: Shift+letter is a command), else a digit 1–9 by
 * position. `keys` are the options' keys in order.
 */
export function optionKeyFor(keys, pressed) {
  if (pressed.length !== 1 || /^[A-Z]$/.test(pressed)) return null;
  if (keys.includes(pressed)) return pressed;
  const folded = keys.find((k) => k.length === 1 && k.toLowerCase() === pressed);
  if (folded !== undefined) return folded;
  if (/^[1-9]$/.test(pressed) && Number(pressed) <= keys.length) return keys[Number(pressed) - 1];
  return null;
}

/** How the keys that choose read in a hint: "a–e / 1–5", "1–3", "a c x / 1–3". */
export function chooseKeys(keys) {
  const n = Math.min(keys.length, 9);
  if (!n) return '';
  const positions = n === 1 ? '1' : `1–${n}`;
  const typed = keys.filter((k) => k.length === 1).map((k) => k.toLowerCase());
  if (typed.length !== keys.length || typed.join('') === '123456789'.slice(0, typed.length)) return positions;
  const run = typed.every((k, i) => i === 0 || k.charCodeAt(0) === typed[i - 1].charCodeAt(0) + 1);
  const shown = run && typed.length > 2 ? `${typed[0]}–${typed[typed.length - 1]}` : typed.join(' ');
  return `${shown} / ${positions}`;
}

let helpOpen = null;

/** Opens (or closes) the list of `rows` ([keys, label key]); the wizard's by default. */
export function toggleHelp(rows = WIZARD_SHORTCUTS) {
  if (helpOpen) {
    helpOpen();
    return;
  }
  // Closed and removed at once, whichever way it closes: a dialog only closed keeps focus on
  // its close button until the browser's next focus fix-up, so a key pressed right after Esc
  // (Enter on the survey's intro) would land on that button and do nothing.
  const shut = () => {
    helpOpen = null;
    if (dialog.open) dialog.close();
    dialog.remove();
  };
  const close = h('button', { type: 'button', class: 'tool', 'aria-label': t('help.close'),
    onclick: () => shut() }, icon('close'));
  const dialog = h('dialog', { class: 'dialog help', 'aria-labelledby': 'help-title' },
    h('div', { class: 'dialog-head' }, h('h2', { id: 'help-title' }, t('help.title')), close),
    h('dl', { class: 'shortcuts' }, rows.map(([keys, label]) => [
      h('dt', null, keys.split(' ').map((k) => h('kbd', null, k))),
      h('dd', null, t(label)),
    ])));
  dialog.addEventListener('cancel', (e) => {
    e.preventDefault();
    shut();
  });
  dialog.addEventListener('close', () => {
    if (helpOpen === shut) shut();
  });
  document.body.appendChild(dialog);
  helpOpen = shut;
  dialog.showModal();
  close.focus();
}

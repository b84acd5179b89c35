// Delayed tooltips (survey.md §12.12): any element with data-tip shows its text after
// 500 ms of hover or keyboard focus, linked with aria-describedby; Escape, leaving or
// pressing dismisses it. Tooltips explain what a button does; they never show option content.

const DELAY_MS = 500;
let tip = null;
let timer = null;
let owner = null;

function element() {
  if (!tip) {
    tip = document.createElement('div');
    tip.id = 'askd-tooltip';
    tip.className = 'tooltip';
    tip.setAttribute('role', 'tooltip');
    tip.hidden = true;
    document.body.appendChild(tip);
  }
  return tip;
}

function place(target) {
  const el = element();
  const r = target.getBoundingClientRect();
  el.style.left = '0px';
  el.style.top = '0px';
  const w = el.offsetWidth;
  const hgt = el.offsetHeight;
  let left = Math.min(Math.max(8, r.left + r.width / 2 - w / 2), window.innerWidth - w - 8);
  let top = r.bottom + 8;
  if (top + hgt > window.innerHeight - 8) top = r.top - hgt - 8;
  el.style.left = `${Math.round(left)}px`;
  el.style.top = `${Math.round(Math.max(8, top))}px`;
}

function showFor(target) {
  const text = target.getAttribute('data-tip');
  if (!text || !target.isConnected) return;
  const el = element();
  el.textContent = text;
  el.hidden = false;
  place(target);
  owner = target;
  target.setAttribute('aria-describedby', el.id);
}

export function hideTooltip() {
  clearTimeout(timer);
  timer = null;
  if (owner) owner.removeAttribute('aria-describedby');
  owner = null;
  if (tip) tip.hidden = true;
}

/** True when a tooltip is showing (Escape closes it before anything else of lower rank). */
export function tooltipOpen() {
  return !!(tip && !tip.hidden);
}

function schedule(target) {
  hideTooltip();
  timer = setTimeout(() => showFor(target), DELAY_MS);
}

export function installTooltips() {
  document.addEventListener('mouseover', (e) => {
    const target = e.target.closest && e.target.closest('[data-tip]');
    if (target && target !== owner && !target.contains(e.relatedTarget)) schedule(target);
  });
  document.addEventListener('mouseout', (e) => {
    const target = e.target.closest && e.target.closest('[data-tip]');
    if (target && !target.contains(e.relatedTarget)) hideTooltip();
  });
  document.addEventListener('focusin', (e) => {
    const target = e.target.closest && e.target.closest('[data-tip]');
    if (target && target.matches(':focus-visible')) schedule(target);
  });
  document.addEventListener('focusout', () => hideTooltip());
  document.addEventListener('pointerdown', () => hideTooltip(), true);
  window.addEventListener('scroll', () => hideTooltip(), true);
}

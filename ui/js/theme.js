// The colour theme (review.md §5.7): the system's (prefers-color-scheme) unless the user
// picked Light or Dark in Settings. The choice is kept in this browser and pinned on <html>
// as data-theme; the CSS resolves every colour with light-dark() from it.

const KEY = 'askd.theme';
export const THEMES = ['system', 'light', 'dark'];
const system = window.matchMedia ? window.matchMedia('(prefers-color-scheme: dark)') : null;

/** The saved choice: `system`, `light` or `dark`. */
export function savedTheme() {
  try {
    const v = localStorage.getItem(KEY);
    return THEMES.includes(v) ? v : 'system';
  } catch {
    return 'system';
  }
}

/** Whether the page shows the dark theme now. */
export function isDark() {
  const v = savedTheme();
  return v === 'system' ? Boolean(system && system.matches) : v === 'dark';
}

export function applyTheme() {
  const v = savedTheme();
  if (v === 'system') delete document.documentElement.dataset.theme;
  else document.documentElement.dataset.theme = v;
}

/** Saves and applies a choice; listeners of `askd-theme` (diagrams) follow. */
export function saveTheme(v) {
  try {
    if (v === 'system') localStorage.removeItem(KEY);
    else localStorage.setItem(KEY, v);
  } catch {
    // Storage may be unavailable: the choice lasts for this page only.
  }
  applyTheme();
  window.dispatchEvent(new Event('askd-theme'));
}

/** Calls `fn` whenever the shown theme may have changed (system switch, Settings, another tab). */
export function onThemeChange(fn) {
  const listener = () => fn();
  if (system) system.addEventListener('change', listener);
  window.addEventListener('askd-theme', listener);
  return () => {
    if (system) system.removeEventListener('change', listener);
    window.removeEventListener('askd-theme', listener);
  };
}

// Another tab's choice applies here too.
window.addEventListener('storage', (e) => {
  if (e.key === KEY || e.key === null) {
    applyTheme();
    window.dispatchEvent(new Event('askd-theme'));
  }
});

applyTheme();

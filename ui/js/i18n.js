// The chrome's language (platform.md §7, survey.md §12.14): on an ask's page the ask's
// language; elsewhere the user's setting, then the first matching browser language (any zh*
// tag is Simplified Chinese), then English. A key missing from a table falls back to English.
import en from '../i18n/en.js';
import zh from '../i18n/zh-CN.js';

const TABLES = { en, 'zh-CN': zh };
const SETTING = 'askd.lang';
let current = 'en';

export function setLang(lang) {
  current = TABLES[lang] ? lang : 'en';
  document.documentElement.lang = current;
  return current;
}

export function lang() {
  return current;
}

/** A page module's own strings, added to both tables. */
export function addStrings(e, z) {
  Object.assign(en, e, { ...en });
  Object.assign(zh, z, { ...zh });
}

export function t(key, vars) {
  let s = TABLES[current][key] ?? en[key] ?? key;
  if (vars) for (const [k, v] of Object.entries(vars)) s = s.split(`{${k}}`).join(String(v));
  return s;
}

const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;

export function hasCjk(s) {
  return typeof s === 'string' && CJK.test(s);
}

/** The ask's language: zh-CN when its title, or at least half its prompts, contain CJK. */
export function askLanguage(view) {
  if (view.kind === 'drift' && view.drift) return hasCjk(view.drift.description) ? 'zh-CN' : 'en';
  const spec = view.spec || {};
  const title = view.title ?? spec.title;
  if (hasCjk(title)) return 'zh-CN';
  let prompts = [];
  if (view.kind === 'survey' && spec.questions) {
    prompts = Object.values(spec.questions).map((q) => q && q.prompt);
  } else if (Array.isArray(spec.questions)) {
    prompts = spec.questions.map((q) => q && q.question);
  }
  if (prompts.length === 0) return 'en';
  const cjk = prompts.filter(hasCjk).length;
  return cjk * 2 >= prompts.length ? 'zh-CN' : 'en';
}

/** The user's setting, else the first browser language askd has, else English. */
export function userLanguage() {
  let stored = null;
  try {
    stored = localStorage.getItem(SETTING);
  } catch {
    stored = null;
  }
  if (stored && TABLES[stored]) return stored;
  for (const tag of navigator.languages || [navigator.language || '']) {
    if (/^zh\b/i.test(tag)) return 'zh-CN';
    if (/^en\b/i.test(tag)) return 'en';
  }
  return 'en';
}

export function saveUserLanguage(l) {
  try {
    localStorage.setItem(SETTING, l);
  } catch {
    // Storage may be disabled; the choice then lasts for this page only.
  }
}

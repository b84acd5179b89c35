// The chrome's language. The Settings choice wins (`askd.lang` in this browser): English,
// 中文, System (the first matching browser language, any zh* tag is Simplified Chinese, else
// English) or Follow the ask — the default — where an ask's page takes the ask's language
// (platform.md §7: a review's `lang`, else CJK in the title or half the prompts) and every
// other page the browser's. Only the one table in use is loaded (a dynamic import), so a
// key missing from it shows as the key: the tables' key parity is a browser test.
const LOADERS = {
  en: () => import('../i18n/en.js'),
  'zh-CN': () => import('../i18n/zh-CN.js'),
};
const SETTING = 'askd.lang';
/** The Settings choices, in the order Settings shows them. */
export const CHOICES = ['ask', 'system', 'en', 'zh-CN'];
const loaded = {};
const extra = { en: {}, 'zh-CN': {} };
let current = 'en';
let table = {};

/** Loads `lang`'s table (once) and makes it the chrome's language; resolves to the language. */
export async function setLang(lang) {
  const next = LOADERS[lang] ? lang : 'en';
  if (!loaded[next]) loaded[next] = LOADERS[next]().then((m) => m.default);
  const got = await loaded[next];
  current = next;
  table = got;
  document.documentElement.lang = current;
  return current;
}

export function lang() {
  return current;
}

/** A page module's own strings (both languages; they are small), kept beside the tables. */
export function addStrings(e, z) {
  Object.assign(extra.en, e);
  Object.assign(extra['zh-CN'], z);
}

export function t(key, vars) {
  let s = table[key] ?? extra[current][key] ?? extra.en[key] ?? key;
  if (vars) for (const [k, v] of Object.entries(vars)) s = s.split(`{${k}}`).join(String(v));
  return s;
}

/**
 * A string about `count` things: the key's plural form for the chrome's language (`key.one`
 * in English for 1) when a table has it, else `key` itself (Chinese has one form).
 */
export function tn(key, count, vars) {
  let form = 'other';
  try {
    form = new Intl.PluralRules(current).select(count);
  } catch {
    // Without Intl the plain key is used.
  }
  const k = `${key}.${form}`;
  const has = table[k] !== undefined || extra[current][k] !== undefined;
  return t(has ? k : key, vars);
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

/** The Settings choice in this browser: one of CHOICES, `ask` when none was saved. */
export function languageChoice() {
  let stored = null;
  try {
    stored = localStorage.getItem(SETTING);
  } catch {
    stored = null;
  }
  return CHOICES.includes(stored) ? stored : 'ask';
}

/** The first browser language askd has, else English. */
export function browserLanguage() {
  for (const tag of navigator.languages || [navigator.language || '']) {
    if (/^zh\b/i.test(tag)) return 'zh-CN';
    if (/^en\b/i.test(tag)) return 'en';
  }
  return 'en';
}

/** The language of a page that is not an ask's: the chosen one, else the browser's. */
export function userLanguage() {
  const c = languageChoice();
  return LOADERS[c] ? c : browserLanguage();
}

/** The language of an ask's page: the ask's (`askLang`) only when Settings follows the ask. */
export function pageLanguage(askLang) {
  return languageChoice() === 'ask' ? askLang : userLanguage();
}

export function saveUserLanguage(l) {
  try {
    localStorage.setItem(SETTING, l);
  } catch {
    // Storage may be disabled; the choice then lasts for this page only.
  }
}

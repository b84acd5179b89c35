// Issue 18 part B, in a real Chromium: the language rule (Settings wins; the ask's language
// only under "Follow the ask"; one string table loaded), the shortcut keys and their labels,
// the inbox's keyboard and waiting times, the reconnecting state, two tabs on one text.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startDaemon, launchBrowser, openContext, branchingSurvey, sleep } from './helpers.mjs';

let daemon;
let browser;

before(async () => {
  daemon = await startDaemon();
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await daemon?.stop();
});

/** The string tables the page loaded, by file name. */
async function tablesLoaded(page) {
  return page.evaluate(() => performance.getEntriesByType('resource')
    .map((e) => new URL(e.name).pathname)
    .filter((p) => /^\/assets\/i18n\/(en|zh-CN)\.js$/.test(p))
    .map((p) => p.split('/').pop()).sort());
}

// ------------------------------------------------------------------ language

test('language: Settings English wins over two CJK characters in an English title', async () => {
  const id = await daemon.createSurvey(branchingSurvey({ title: 'Release plan 发布' }));
  const { context, page, problems } = await openContext(browser, daemon, { locale: 'en-US' });
  await page.waitForSelector('.inbox-title');
  await page.evaluate(() => localStorage.setItem('askd.lang', 'en'));
  await page.goto(`${daemon.url}/a/${id}`);
  await page.waitForSelector('.card.wizard');
  assert.equal(await page.getAttribute('html', 'lang'), 'en');
  assert.equal(await page.textContent('.seg.primary .seg-label'), 'Start');
  assert.deepEqual(await tablesLoaded(page), ['en.js'], 'one table, not both');
  // Settings offers the four choices, English selected.
  await page.goto(`${daemon.url}/settings`);
  await page.waitForSelector('.st-lang');
  assert.deepEqual(await page.$$eval('.st-lang option', (os) => os.map((o) => o.value)), ['ask', 'system', 'en', 'zh-CN']);
  assert.equal(await page.inputValue('.st-lang'), 'en');
  // 中文 in Settings: the same English ask now has Chinese chrome.
  await page.selectOption('.st-lang', 'zh-CN');
  await page.waitForFunction(() => document.documentElement.lang === 'zh-CN');
  await page.goto(`${daemon.url}/a/${id}`);
  await page.waitForSelector('.card.wizard');
  assert.equal(await page.textContent('.seg.primary .seg-label'), '开始');
  assert.deepEqual(await tablesLoaded(page), ['zh-CN.js']);
  // System: the browser's language (en-US) even on this ask.
  await page.evaluate(() => localStorage.setItem('askd.lang', 'system'));
  await page.reload();
  await page.waitForSelector('.card.wizard');
  assert.equal(await page.getAttribute('html', 'lang'), 'en');
  assert.deepEqual(problems, []);
  await context.close();
});

test('language: under "Follow the ask" (the default) the ask decides, and only its table loads', async () => {
  const id = await daemon.createSurvey(branchingSurvey({ title: '发布计划 Release' }));
  const { context, page, problems } = await openContext(browser, daemon, { locale: 'en-US' });
  await page.waitForSelector('.inbox-title');
  assert.equal(await page.textContent('.inbox-title'), 'Inbox');
  await page.goto(`${daemon.url}/a/${id}`);
  await page.waitForSelector('.card.wizard');
  assert.equal(await page.getAttribute('html', 'lang'), 'zh-CN');
  assert.equal(await page.textContent('.seg.primary .seg-label'), '开始');
  assert.deepEqual(await tablesLoaded(page), ['zh-CN.js']);
  await page.goto(`${daemon.url}/settings`);
  await page.waitForSelector('.st-lang');
  assert.equal(await page.inputValue('.st-lang'), 'ask');
  assert.equal(await page.textContent('.st-lang option[value="ask"]'), 'Follow the ask');
  assert.deepEqual(problems, []);
  await context.close();
});

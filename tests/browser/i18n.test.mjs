// The chrome's two string tables (survey.md §12.14, platform.md §7): the same keys in both,
// and the language chosen from the ask, then the browser, with English as the fallback.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startDaemon, launchBrowser, openContext, branchingSurvey, screenshotPath } from './helpers.mjs';
import en from '../../ui/i18n/en.js';
import zh from '../../ui/i18n/zh-CN.js';

test('the English and Chinese tables have the same keys, every value non-empty', () => {
  assert.deepEqual(Object.keys(zh).sort(), Object.keys(en).sort());
  for (const [k, v] of [...Object.entries(en), ...Object.entries(zh)]) {
    assert.equal(typeof v, 'string', k);
    assert.notEqual(v.trim(), '', k);
  }
  // Placeholders match key by key.
  for (const k of Object.keys(en)) {
    const vars = (s) => (s.match(/\{\w+\}/g) || []).sort();
    assert.deepEqual(vars(zh[k]), vars(en[k]), k);
  }
  // The spec's fixed strings.
  assert.equal(zh['bank.count'], '已暂存 {n}');
  assert.equal(zh['action.submit'], '提交问卷');
  assert.equal(en['bank.locked'], 'Banked · locked');
});

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

function chineseSurvey() {
  return {
    title: '发布范围',
    intro: '三个决定，大约两分钟。',
    entry: 'scope',
    questions: {
      scope: {
        prompt: '2.0 版本选哪个方向？', header: '范围',
        options: [
          { key: 'a', label: '发布公开 API（推荐）', description: '冻结 API 并发布文档。', insight: '**承诺**——合作方可以依赖它。' },
          { key: 'b', label: '先重构核心' }, { key: 'c', label: '拆成两次发布' },
          { key: 'd', label: '只修 bug' }, { key: 'e', label: '推迟一个季度' },
        ],
      },
    },
  };
}

test('a Chinese survey gets Chinese chrome, whatever the browser language', async () => {
  const id = await daemon.createSurvey(chineseSurvey());
  const { context, page, problems } = await openContext(browser, daemon, { locale: 'en-US' });
  await page.goto(`${daemon.url}/a/${id}`);
  await page.waitForSelector('.card.wizard');
  assert.equal(await page.getAttribute('html', 'lang'), 'zh-CN');
  assert.equal(await page.textContent('.seg.primary .seg-label'), '开始');
  assert.equal(await page.textContent('.seg[data-key="action.reroll"] .seg-label'), '重掷');
  await page.click('.seg.primary');
  await page.waitForSelector('.card.wizard[data-position="scope"]');
  assert.equal(await page.textContent('.row[data-key="a"] .badge.rec'), '推荐');
  assert.equal(await page.textContent('.row[data-key="a"] .label-text'), '发布公开 API');
  assert.equal(await page.getAttribute('.custom-input', 'placeholder'), '输入你的答案');
  assert.equal(await page.textContent('.seg.primary .seg-label'), '提交问卷');
  await page.click('.row[data-key="a"] .row-hit');
  assert.equal(await page.getAttribute('.row[data-key="a"] .pencil', 'aria-label'), '写下理由');
  await page.click('.row[data-key="a"] .tool[aria-label="查看详情"]');
  await page.screenshot({ path: screenshotPath('light-zh-question'), fullPage: true });
  await page.keyboard.press('Shift+H');
  await page.waitForSelector('dialog[open] .shortcuts');
  await page.screenshot({ path: screenshotPath('light-zh-shortcuts') });
  await page.keyboard.press('Escape');
  assert.deepEqual(problems, []);
  await context.close();
});

test('an English survey gets English chrome in a Chinese browser; the inbox follows the browser', async () => {
  const id = await daemon.createSurvey(branchingSurvey());
  const { context, page, problems } = await openContext(browser, daemon, { locale: 'zh-CN' });
  await page.waitForSelector('.inbox-title');
  assert.equal(await page.textContent('.inbox-title'), '收件箱');
  await page.goto(`${daemon.url}/a/${id}`);
  await page.waitForSelector('.card.wizard');
  assert.equal(await page.getAttribute('html', 'lang'), 'en');
  assert.equal(await page.textContent('.seg.primary .seg-label'), 'Start');
  assert.deepEqual(problems, []);
  await context.close();
});

test('any other browser language falls back to English', async () => {
  const { context, page, problems } = await openContext(browser, daemon, { locale: 'fr-FR' });
  await page.waitForSelector('.inbox-title');
  assert.equal(await page.textContent('.inbox-title'), 'Inbox');
  assert.deepEqual(problems, []);
  await context.close();
});

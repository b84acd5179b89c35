// Snooze (issue 35) in the page: "Ask me later" puts a pending ask off (only to times before
// its deadline); the page then says until when and that it can still be answered; the inbox
// lists it apart with "back at …", and moves it back by itself when the time comes; Records
// say an answered ask had been put off.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startDaemon, launchBrowser, openContext, screenshotPath } from './helpers.mjs';

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

async function ask(question, extra = {}) {
  const r = await daemon.api('POST', '/api/asks', {
    kind: 'questions',
    args: { questions: [{ id: 'db', question, options: [{ label: 'SQLite' }, { label: 'PostgreSQL' }] }], ...extra },
  });
  assert.equal(r.status, 201, JSON.stringify(r.body));
  return r.body.ask_id;
}

test('ask me later puts the ask off, the page says until when, and the inbox lists it apart', async () => {
  const id = await ask('Which database, later today?');
  const { context, page, problems } = await openContext(browser, daemon);
  await page.goto(`${daemon.url}/a/${id}`);
  await page.waitForSelector('.card.flat');
  await page.click('.snooze-menu > summary');
  const choices = page.locator('.snooze-choice');
  assert.equal(await choices.count(), 3);
  assert.deepEqual(await choices.allTextContents(), ['In an hour', 'In 4 hours', 'Tomorrow morning']);
  await page.screenshot({ path: screenshotPath('snooze-menu') });
  const t0 = Date.now();
  await page.click('.snooze-choice[data-s="3600"]');
  await page.waitForSelector('.snooze-bar.snoozed');
  assert.match(await page.textContent('.snooze-bar'), /You put this off until .*you can still answer now/);
  await page.screenshot({ path: screenshotPath('snooze-put-off') });
  const view = await daemon.view(id);
  const back = Date.parse(view.deferred_until);
  assert.ok(Math.abs(back - (t0 + 3600000)) < 60000, view.deferred_until);
  assert.equal(view.state, 'pending');
  // The inbox: among the put-off asks, not the waiting ones.
  await page.goto(`${daemon.url}/`);
  const row = page.locator(`.snoozed-list [data-ask-id="${id}"]`);
  await row.waitFor();
  assert.match(await row.locator('.snooze-chip').textContent(), /^back at /);
  assert.equal(await page.locator(`.session [data-ask-id="${id}"]`).count(), 0);
  assert.doesNotMatch(await page.title(), /\(\d+\)/);
  await page.screenshot({ path: screenshotPath('snooze-inbox') });
  // It can still be answered now.
  await row.locator('.ask-link').click();
  await page.waitForSelector('.snooze-bar.snoozed');
  await page.click('text=SQLite');
  await page.click('.seg.primary');
  await page.waitForSelector('.snooze-bar', { state: 'hidden' });
  const settled = await daemon.view(id);
  assert.equal(settled.state, 'settled');
  assert.equal(settled.result.answers[0].selected[0], 'SQLite');
  // Records say it had been put off.
  await page.goto(`${daemon.url}/records`);
  const rec = page.locator(`.rec[data-ask-id="${id}"] .rec-meta`);
  await rec.waitFor();
  assert.match(await rec.textContent(), /put off until /);
  assert.deepEqual(problems, []);
  await context.close();
});

test('a put-off ask comes back to the inbox by itself, and the menu offers only times before the deadline', async () => {
  const id = await ask('Which database, in a moment?');
  const r = await daemon.api('POST', `/api/asks/${id}/snooze`, { for_s: 2 });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  const { context, page, problems } = await openContext(browser, daemon);
  await page.goto(`${daemon.url}/`);
  await page.locator(`.snoozed-list [data-ask-id="${id}"]`).waitFor();
  // Back among the waiting asks at its time, without a reload.
  await page.locator(`.session [data-ask-id="${id}"]`).waitFor({ timeout: 10000 });
  assert.equal(await page.locator(`.snoozed-list [data-ask-id="${id}"]`).count(), 0);
  // Put off from another device: the open inbox hears it (ask.deferred) and lists it apart.
  const again = await daemon.api('POST', `/api/asks/${id}/snooze`, { for_s: 600 });
  assert.equal(again.status, 200, JSON.stringify(again.body));
  await page.locator(`.snoozed-list [data-ask-id="${id}"]`).waitFor({ timeout: 10000 });
  // Two hours before its deadline: an hour is offered, four hours and tomorrow are not.
  const soon = await ask('Which database, before the meeting?', { deadline: { in_s: 7200 } });
  await page.goto(`${daemon.url}/a/${soon}`);
  await page.waitForSelector('.snooze-menu');
  await page.click('.snooze-menu > summary');
  assert.deepEqual(await page.locator('.snooze-choice').allTextContents(), ['In an hour']);
  assert.deepEqual(problems, []);
  await context.close();
});

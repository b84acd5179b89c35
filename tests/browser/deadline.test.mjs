// Deadlines (issue 35) in the page: the inbox counts down, the ask says when it stops
// waiting and what happens then (the agent's default, shown as text), a person gives it an
// hour more; when nobody answers, the page says the default was applied, not the person's.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startDaemon, launchBrowser, openContext } from './helpers.mjs';

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

async function withDeadline(question, deadline) {
  const r = await daemon.api('POST', '/api/asks', {
    kind: 'questions',
    args: { questions: [{ id: 'db', question, options: [{ label: 'SQLite' }, { label: '<b>PostgreSQL</b>' }] }], deadline },
  });
  assert.equal(r.status, 201, JSON.stringify(r.body));
  return r.body.ask_id;
}

test('a deadline counts down in the inbox and on the ask, and one more hour moves it', async () => {
  const id = await withDeadline('Which database, before lunch?', { in_s: 1800, default: { db: '<b>PostgreSQL</b>' } });
  const { context, page, problems } = await openContext(browser, daemon);
  await page.goto(`${daemon.url}/`);
  const chip = page.locator(`[data-ask-id="${id}"] .deadline-chip`);
  await chip.waitFor();
  assert.match(await chip.textContent(), /closes in 30 min|closes in 29 min/);
  await page.goto(`${daemon.url}/a/${id}`);
  await page.waitForSelector('.card.flat');
  const bar = page.locator('.deadline-bar');
  await bar.waitFor();
  const text = await bar.textContent();
  assert.match(text, /This ask stops waiting in/);
  // The default's label is agent text: shown as text, never as markup.
  assert.match(text, /db: <b>PostgreSQL<\/b>/);
  assert.equal(await page.locator('.deadline-bar b').count(), 0);
  assert.match(await page.textContent('.deadline-left'), /^(29|30) min$/);
  const before = (await daemon.view(id)).deadline.expires_at;
  await page.click('.deadline-extend');
  // The page counts from the new deadline: an hour and a half is shown in hours.
  await page.waitForSelector('.deadline-left:has-text("1 h")');
  const after = (await daemon.view(id)).deadline.expires_at;
  assert.ok(Date.parse(after) - Date.parse(before) >= 3599000, `${before} → ${after}`);
  assert.deepEqual(problems, []);
  await context.close();
});

test('when nobody answers, the page says the default was applied and it was not the person', async () => {
  const id = await withDeadline('Which database, in two seconds?', { in_s: 2, default: { db: 'SQLite' } });
  const { context, page, problems } = await openContext(browser, daemon);
  await page.goto(`${daemon.url}/a/${id}`);
  await page.waitForSelector('.deadline-bar .deadline-left');
  await page.waitForSelector('.deadline-bar:has-text("Nobody answered by the deadline")', { timeout: 15000 });
  assert.match(await page.textContent('.deadline-bar'), /default was applied, marked as not your answer/);
  const view = await daemon.view(id);
  assert.equal(view.outcome, 'expired');
  assert.equal(view.result.defaulted, true);
  // Opened afterwards, the settled ask says the same.
  await page.reload();
  await page.waitForSelector('.deadline-bar:has-text("Nobody answered by the deadline")');
  assert.deepEqual(problems, []);
  await context.close();
});

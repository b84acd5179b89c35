// The ask_user_question card (platform.md §4.1): 1–4 flat questions on one card; the answer
// is {answers: [{id, selected: [labels], custom?}]}.
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

test('flat questions: single, multi, free text; labels travel as sent', async () => {
  const id = await daemon.createQuestions([
    { id: 'db', question: 'Which **database**?', header: 'Storage', detail: 'Both are supported.',
      options: [{ label: 'SQLite (Recommended)', description: 'Embedded, zero setup.' }, { label: 'PostgreSQL', description: 'For teams.' }] },
    { id: 'langs', question: 'Which languages?', multi_select: true,
      options: [{ label: 'Rust' }, { label: 'Go' }, { label: 'Python' }] },
    { id: 'name', question: 'Project name?' },
  ]);
  const { context, page, problems } = await openContext(browser, daemon);
  await page.goto(`${daemon.url}/a/${id}`);
  await page.waitForSelector('.card.flat');
  assert.equal(await page.locator('.flat-question').count(), 3);
  assert.equal(await page.textContent('.flat-question[data-qid="db"] .prompt strong'), 'database');
  assert.equal(await page.textContent('.flat-question[data-qid="db"] .row-hit >> nth=0 >> .label-text'), 'SQLite');
  assert.equal(await page.isVisible('.flat-question[data-qid="db"] .badge.rec'), true);
  assert.equal(await page.getAttribute('.flat-question[data-qid="langs"] .rows', 'role'), 'group');
  // Submitting nothing is refused in the page.
  await page.click('.seg.primary');
  await page.waitForSelector('.alert:has-text("Answer at least one question first.")');
  await page.click('.flat-question[data-qid="db"] .row-hit >> nth=0');
  // Digits choose in the question that holds focus.
  await page.focus('.flat-question[data-qid="langs"] .prompt');
  await page.keyboard.press('1');
  await page.keyboard.press('3');
  await page.fill('.flat-question[data-qid="name"] .custom-input', 'askd');
  await page.press('.flat-question[data-qid="name"] .custom-input', 'Enter');
  await page.waitForSelector('.card.settled:has-text("Sent to the agent")');
  const result = await daemon.result(id);
  assert.equal(result.outcome, 'answered');
  assert.deepEqual(result.answers, [
    { id: 'db', selected: ['SQLite (Recommended)'] },
    { id: 'langs', selected: ['Rust', 'Python'] },
    { id: 'name', selected: [], custom: 'askd' },
  ]);
  assert.deepEqual(problems, []);
  await context.close();
});

test('flat questions autosave across a reload and can be dismissed', async () => {
  const id = await daemon.createQuestions([
    { id: 'go', question: 'Go ahead?', options: [{ label: 'Yes' }, { label: 'No' }] },
  ]);
  const { context, page, problems } = await openContext(browser, daemon);
  await page.goto(`${daemon.url}/a/${id}`);
  await page.waitForSelector('.card.flat');
  await page.click('.row-hit >> nth=1');
  await page.waitForTimeout(800);
  await page.reload();
  await page.waitForSelector('.card.flat');
  assert.equal(await page.getAttribute('.row-hit >> nth=1', 'aria-checked'), 'true');
  await page.click('.seg:has-text("Dismiss")');
  await page.click('dialog[open] button[value="yes"]');
  await page.waitForSelector('.card.settled');
  assert.equal((await daemon.view(id)).outcome, 'cancelled');
  assert.deepEqual(problems, []);
  await context.close();
});

test('a question already settled in the session shows "asked earlier" with the answer; other sessions do not', async () => {
  const session = (await daemon.api('POST', '/api/sessions', { client: 'repeat-test' })).body.session.id;
  const question = [{ id: 'form', question: 'Where should the first version run?',
    options: [{ label: 'Local web app' }, { label: 'Desktop app' }] }];
  const first = await daemon.createQuestions(question, session);
  const r = await daemon.api('POST', `/api/asks/${first}/submit`, { answers: [{ id: 'form', selected: ['Local web app'] }] });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  // The same question again (case and trailing punctuation aside), in the same session.
  const again = await daemon.createQuestions([{ ...question[0], id: 'where', question: 'where should the first version run' }], session);
  const { context, page, problems } = await openContext(browser, daemon);
  await page.goto(`${daemon.url}/a/${again}`);
  await page.waitForSelector('.card.flat');
  assert.equal(await page.textContent('.flat-question[data-qid="where"] .repeat-notice'),
    'Asked earlier in this session; you answered: Local web app');
  // Another session asking the same has no notice.
  const other = (await daemon.api('POST', '/api/sessions', { client: 'repeat-other' })).body.session.id;
  const elsewhere = await daemon.createQuestions(question, other);
  await page.goto(`${daemon.url}/a/${elsewhere}`);
  await page.waitForSelector('.card.flat');
  assert.equal(await page.locator('.repeat-notice').count(), 0);
  assert.deepEqual(problems, []);
  await context.close();
});

test('a submit whose saving was not confirmed is repeated with its key and gets the saved answer', async () => {
  // Issue 32: the daemon saved the answer, but the page heard 503 outcome-unknown (askd lost
  // its database while committing). The page repeats the submit with the same
  // Idempotency-Key, and the daemon answers the repeat with what it saved, not a 409.
  const id = await daemon.createQuestions([
    { id: 'go', question: 'Ship it?', options: [{ label: 'Yes' }, { label: 'No' }] },
  ]);
  const { context, page, problems } = await openContext(browser, daemon);
  const keys = [];
  await page.route('**/api/asks/*/submit', async (route) => {
    keys.push(route.request().headers()['idempotency-key']);
    const saved = await route.fetch();
    if (keys.length === 1) {
      assert.equal(saved.status(), 200);
      await route.fulfill({
        status: 503,
        contentType: 'application/json',
        body: JSON.stringify({ ok: false, error: 'outcome-unknown', code: 'outcome-unknown', message: 'askd lost its database connection while saving this' }),
      });
    } else {
      await route.fulfill({ response: saved });
    }
  });
  await page.goto(`${daemon.url}/a/${id}`);
  await page.waitForSelector('.card.flat');
  await page.click('.flat-question[data-qid="go"] .row-hit >> nth=0');
  await page.click('.seg.primary');
  await page.waitForSelector('.card.settled:has-text("Sent to the agent")', { timeout: 15000 });
  assert.equal(keys.length, 2, 'sent, then repeated once');
  assert.match(keys[0], /^[0-9a-f]{32}$/);
  assert.equal(keys[1], keys[0], 'the repeat carries the same key');
  const result = await daemon.result(id);
  assert.equal(result.outcome, 'answered');
  assert.deepEqual(result.answers, [{ id: 'go', selected: ['Yes'] }]);
  // The refused 503 is expected; nothing else went wrong on the page.
  assert.deepEqual(problems.filter((p) => !/503/.test(p)), []);
  await context.close();
});

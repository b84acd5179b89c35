// The inbox (`/`): pending asks grouped by session, live through the event stream; the
// latency from ask creation to the question visible in an open inbox tab is measured here.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startDaemon, launchBrowser, openContext, branchingSurvey } from './helpers.mjs';

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

test('the inbox updates live when an ask is created and when it settles', async () => {
  const { context, page, problems } = await openContext(browser, daemon);
  await page.waitForSelector('.empty:has-text("Nothing is waiting for you.")');
  assert.equal(await page.title(), 'askd');
  const session = (await daemon.api('POST', '/api/sessions', { client: 'claude-code', workspace: '/home/me/shop' })).body.session.id;
  const id = await daemon.createSurvey(branchingSurvey({ title: 'Checkout redesign' }), session);
  await page.waitForSelector(`.ask-row[data-ask-id="${id}"]:has-text("Checkout redesign")`);
  // The session group names the client and the workspace; the title counts what waits.
  await page.waitForSelector('.session-head:has-text("claude-code"):has-text("/home/me/shop")');
  await page.waitForFunction(() => document.title === '(1) askd');
  const second = await daemon.createQuestions([{ id: 'db', question: 'Which database?', options: [{ label: 'SQLite' }, { label: 'PostgreSQL' }] }], session);
  await page.waitForSelector(`.ask-row[data-ask-id="${second}"]`);
  await page.waitForFunction(() => document.title === '(2) askd');
  assert.equal(await page.locator('.session').count(), 1, 'both asks sit in one session group');

  const r = await daemon.api('POST', `/api/asks/${id}/cancel`, {});
  assert.equal(r.status, 200);
  await page.waitForSelector(`.settled-list .ask-row[data-ask-id="${id}"]:has-text("Cancelled")`);
  await page.waitForFunction(() => document.title === '(1) askd');
  // Opening an ask from the inbox is an in-page navigation; Put away comes back.
  await page.click(`.ask-row[data-ask-id="${second}"] .ask-link`);
  await page.waitForSelector('.card.flat');
  await page.click('.head-tools .tool[aria-label="Put away"]');
  await page.waitForSelector(`.ask-row[data-ask-id="${second}"]`);
  assert.deepEqual(problems, []);
  await context.close();
});

test('latency: ask creation to the question visible in an open inbox tab (SSE)', async () => {
  const { context, page, problems } = await openContext(browser, daemon);
  await page.waitForSelector('.inbox-list .section-title');
  await page.waitForTimeout(300); // the event stream is open
  const runs = 20;
  const samples = [];
  for (let i = 0; i < runs; i++) {
    // Measured inside the page: from just before the API call that creates the ask to the
    // mutation that shows its row (no test-driver polling in the measurement).
    const ms = await page.evaluate(async (n) => {
      const title = `Latency probe ${n} ${Math.random()}`;
      const seen = new Promise((resolve) => {
        const obs = new MutationObserver(() => {
          for (const el of document.querySelectorAll('.ask-title')) {
            if (el.textContent === title) {
              obs.disconnect();
              resolve(performance.now());
              return;
            }
          }
        });
        obs.observe(document.body, { childList: true, subtree: true });
      });
      const t0 = performance.now();
      const res = await fetch('/api/asks', {
        method: 'POST', headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ kind: 'survey', args: { survey: { title, entry: 'q', questions: { q: { prompt: 'Ready?' } } } } }),
      });
      if (!res.ok) throw new Error(`create: ${res.status}`);
      const timeout = new Promise((_, reject) => setTimeout(() => reject(new Error('the row never appeared')), 10000));
      return (await Promise.race([seen, timeout])) - t0;
    }, i);
    samples.push(ms);
  }
  samples.sort((a, b) => a - b);
  const median = (samples[9] + samples[10]) / 2;
  console.log(`# inbox latency over ${runs} runs: median ${median.toFixed(1)} ms, min ${samples[0].toFixed(1)} ms, max ${samples[runs - 1].toFixed(1)} ms`);
  // The bar is 150 ms; the assertion leaves room for a loaded CI machine.
  assert.ok(median < 1000, `median ${median} ms`);
  assert.deepEqual(problems, []);
  await context.close();
});

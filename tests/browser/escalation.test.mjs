// Escalation (issue 35, team mode) in the page: before the deadline the ask says it will be
// offered to a member; at the deadline it is, live; the member's inbox says "offered to you";
// Records keep the chain once it is answered.
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

test('an ask nobody answered is offered to the member it names, on the page and in their inbox', async () => {
  const bo = await daemon.api('POST', '/api/members', { name: 'Bo' });
  assert.equal(bo.status, 201, JSON.stringify(bo.body));
  const r = await daemon.api('POST', '/api/asks', {
    kind: 'questions',
    args: {
      questions: [{ id: 'db', question: 'Which database, or Bo decides?', options: [{ label: 'SQLite' }, { label: 'PostgreSQL' }] }],
      deadline: { in_s: 3, then: 'escalate', to: 'Bo' },
    },
  });
  assert.equal(r.status, 201, JSON.stringify(r.body));
  const id = r.body.ask_id;
  const { context, page, problems } = await openContext(browser, daemon);
  await page.goto(`${daemon.url}/a/${id}`);
  await page.waitForSelector('.deadline-bar:has-text("then it is offered to Bo")');
  // At the deadline, live: offered on, still waiting.
  await page.waitForSelector('.deadline-bar:has-text("so this was offered to Bo")', { timeout: 15000 });
  assert.equal((await daemon.view(id)).state, 'pending');
  await page.goto(`${daemon.url}/`);
  assert.equal(await page.locator(`[data-ask-id="${id}"] .escalated-chip`).textContent(), 'offered to Bo');
  // Bo's own browser: offered to him.
  const boContext = await browser.newContext({ viewport: { width: 900, height: 900 } });
  const boPage = await boContext.newPage();
  const token = new URL(bo.body.loginUrl).pathname.split('/').pop();
  await boPage.goto(`${daemon.url}/login/${token}`);
  const chip = boPage.locator(`[data-ask-id="${id}"] .escalated-chip`);
  await chip.waitFor();
  assert.equal(await chip.textContent(), 'offered to you');
  await boContext.close();
  // Answered: Records keep the chain.
  const sub = await daemon.api('POST', `/api/asks/${id}/submit`, { answers: [{ id: 'db', selected: ['SQLite'] }] });
  assert.equal(sub.status, 200, JSON.stringify(sub.body));
  await page.goto(`${daemon.url}/records`);
  const rec = page.locator(`.rec[data-ask-id="${id}"] .rec-meta`);
  await rec.waitFor();
  assert.match(await rec.textContent(), /offered to Bo at the deadline/);
  assert.deepEqual(problems, []);
  await context.close();
});

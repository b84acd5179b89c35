// More than one approver (issue 35, team mode) in two real browsers: two members, each signed
// in through their own login link in a browser of their own. The first member's answer is a
// vote ("1 of 2 approvals", the page stays open to change it); the second's completes the
// quorum and settles the ask, live in the first browser too; the agent gets both votes;
// Records say who approved.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startDaemon, launchBrowser, openContext, screenshotPath } from './helpers.mjs';

let daemon;
let browsers = [];

before(async () => {
  daemon = await startDaemon();
  browsers = [await launchBrowser(), await launchBrowser()];
});

after(async () => {
  for (const b of browsers) await b?.close();
  await daemon?.stop();
});

/** A member's own browser, signed in through their login link. */
async function memberPage(browser, member) {
  const context = await browser.newContext({ viewport: { width: 900, height: 900 }, reducedMotion: 'reduce' });
  const page = await context.newPage();
  const problems = [];
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  page.on('dialog', (d) => { problems.push(`dialog: ${d.message()}`); d.dismiss().catch(() => {}); });
  const token = new URL(member.loginUrl).pathname.split('/').pop();
  await page.goto(`${daemon.url}/login/${token}`);
  return { context, page, problems };
}

test('a quorum of two is reached by two members in two browsers', async () => {
  const ann = await daemon.api('POST', '/api/members', { name: 'Ann' });
  const ben = await daemon.api('POST', '/api/members', { name: 'Ben' });
  assert.equal(ann.status, 201, JSON.stringify(ann.body));
  assert.equal(ben.status, 201, JSON.stringify(ben.body));
  const r = await daemon.api('POST', '/api/asks', {
    kind: 'questions',
    args: {
      questions: [{ id: 'db', question: 'Which database do we ship with?', options: [{ label: 'SQLite' }, { label: 'PostgreSQL' }] }],
      approvals: { required: 2, from: ['Ann', 'Ben'] },
    },
  });
  assert.equal(r.status, 201, JSON.stringify(r.body));
  const id = r.body.ask_id;

  // Ann votes: one of two, and the page stays open.
  const a = await memberPage(browsers[0], ann.body);
  await a.page.goto(`${daemon.url}/a/${id}`);
  await a.page.waitForSelector('.approvals-bar:has-text("0 of 2 approvals")');
  assert.match(await a.page.textContent('.approvals-bar'), /from Ann, Ben/);
  await a.page.click('.flat-question[data-qid="db"] .row-hit >> nth=0');
  await a.page.click('.seg.primary');
  await a.page.waitForSelector('.approvals-bar:has-text("1 of 2 approvals")');
  await a.page.waitForSelector('.approvals-mine:has-text("Your vote is in")');
  assert.equal(await a.page.locator('.card.settled').count(), 0);
  assert.equal((await daemon.view(id)).state, 'pending');
  await a.page.screenshot({ path: screenshotPath('approvals-one-of-two') });

  // Ben sees the count in his inbox, opens the ask and completes the quorum.
  const b = await memberPage(browsers[1], ben.body);
  const chip = b.page.locator(`[data-ask-id="${id}"] .approvals-chip`);
  await chip.waitFor();
  assert.equal(await chip.textContent(), '1 of 2 approvals');
  await b.page.goto(`${daemon.url}/a/${id}`);
  await b.page.waitForSelector('.approvals-bar:has-text("In: Ann.")');
  await b.page.click('.flat-question[data-qid="db"] .row-hit >> nth=0');
  await b.page.click('.seg.primary');
  await b.page.waitForSelector('.card.settled');
  // Live in Ann's browser: settled by both votes.
  await a.page.waitForSelector('.approvals-bar:has-text("Settled by 2 of 2 approvals: Ann, Ben.")');

  // The agent gets both votes, agreed.
  const result = await daemon.result(id);
  assert.equal(result.outcome, 'answered');
  assert.deepEqual(result.votes.map((v) => v.answered_by.name), ['Ann', 'Ben']);
  assert.equal(result.approvals.decided_by, 'quorum');
  assert.equal(result.approvals.agreed, true);
  assert.match(result.handling, /^APPROVALS: 2 of 2 required members answered \(Ann, Ben\) and agree\./);

  // Records (the install's page) say who approved.
  const { context, page, problems } = await openContext(browsers[0], daemon);
  await page.goto(`${daemon.url}/records`);
  const rec = page.locator(`.rec[data-ask-id="${id}"] .rec-meta`);
  await rec.waitFor();
  assert.match(await rec.textContent(), /2 of 2 approvals: Ann, Ben/);
  assert.deepEqual([...a.problems, ...b.problems, ...problems], []);
  for (const c of [a.context, b.context, context]) await c.close();
});

test('a drift card with approvals: one member approves and it stays open; the other keeps the baseline and it is decided', async () => {
  const cy = await daemon.api('POST', '/api/members', { name: 'Cy' });
  const di = await daemon.api('POST', '/api/members', { name: 'Di' });
  const s = await daemon.api('POST', '/api/sessions', { client: 'claude-code', workspace: '/home/me/tasks' });
  const sid = s.body.session.id;
  const r = await daemon.api('POST', `/api/sessions/${sid}/alignment/report_drift`, {
    args: {
      reason: 'architecture-shift',
      description: 'Sharing lists needs a sync server.',
      approvals: { required: 2, from: ['Cy', 'Di'] },
    },
  });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  const id = r.body.ask_id;
  assert.ok(id, JSON.stringify(r.body));
  const action = (page, a) => page.locator(`.drift-action[data-action="${a}"]`);

  const c = await memberPage(browsers[0], cy.body);
  await c.page.goto(`${daemon.url}/a/${id}`);
  await c.page.waitForSelector('.approvals-bar:has-text("0 of 2 approvals")');
  await action(c.page, 'approve').click();
  await c.page.click('.drift-send');
  await c.page.waitForSelector('.approvals-bar:has-text("1 of 2 approvals")');
  assert.equal(await c.page.locator('.drift-card.settled-drift').count(), 0);
  assert.equal((await daemon.view(id)).state, 'pending');

  const d = await memberPage(browsers[1], di.body);
  await d.page.goto(`${daemon.url}/a/${id}`);
  await d.page.waitForSelector('.approvals-bar:has-text("In: Cy.")');
  await action(d.page, 'reject').click();
  await d.page.click('.drift-send');
  await d.page.waitForSelector('.drift-card.settled-drift');
  await c.page.waitForSelector('.approvals-bar:has-text("Settled by 2 of 2 approvals: Cy, Di (rejects).")');
  const result = await daemon.result(id);
  assert.equal(result.decision, 'reject');
  assert.equal(result.approvals.decided_by, 'rejection');
  assert.deepEqual([...c.problems, ...d.problems], []);
  for (const x of [c.context, d.context]) await x.close();
});

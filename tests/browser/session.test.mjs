// The session page (alignment.md §7) on a real daemon: header, status strip, the mode switch,
// questions with repeats, checks, the baseline with its history and refusals, connections,
// live updates through the event stream, the stale-response guard, links from the inbox and
// from an ask, agent text kept as text, and screenshots in light and dark.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startDaemon, launchBrowser, openContext, screenshotPath } from './helpers.mjs';

import en from '../../ui/i18n/en.js';
import zh from '../../ui/i18n/zh-CN.js';
import alignEn from '../../ui/i18n/align-en.js';
import alignZh from '../../ui/i18n/align-zh-CN.js';

let daemon;
let browser;

test('the session page\'s and drift card\'s strings: the same keys in English and Chinese, none shadowed', () => {
  assert.deepEqual(Object.keys(alignZh).sort(), Object.keys(alignEn).sort());
  for (const [k, v] of [...Object.entries(alignEn), ...Object.entries(alignZh)]) {
    assert.equal(typeof v, 'string', k);
    assert.notEqual(v.trim(), '', k);
  }
  const vars = (s) => (s.match(/\{\w+\}/g) || []).sort();
  for (const k of Object.keys(alignEn)) assert.deepEqual(vars(alignZh[k]), vars(alignEn[k]), k);
  // A key of the main tables would win over these, silently.
  for (const k of Object.keys(alignEn)) assert.equal(k in en || k in zh, false, k);
  // The fixed action labels of alignment.md §6 (and their Chinese counterparts of §5.6).
  assert.deepEqual(['approve', 'reject', 'option', 'other', 'dismiss'].map((a) => alignEn[`drift.${a}`]),
    ['Approve this change', 'Keep the current baseline', 'Use this direction', 'Another direction…', 'Not now']);
  assert.deepEqual(['approve', 'reject', 'option', 'other', 'dismiss'].map((a) => alignZh[`drift.${a}`]),
    ['批准此变更', '保持当前基线', '采用此方向', '其他方向…', '暂不']);
  assert.equal(en['drift.badge'], 'Requirement drift');
});

before(async () => {
  daemon = await startDaemon();
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await daemon?.stop();
});

const HOSTILE = '<img src=x onerror="window.pwned=1"><b>bold</b>';

async function session(client = 'claude-code', workspace = '/home/me/shop') {
  const r = await daemon.api('POST', '/api/sessions', { client, workspace });
  assert.equal(r.status, 200);
  return r.body.session.id;
}

async function answered(sid, question, label) {
  const id = await daemon.createQuestions([{ id: 'q', question, options: [{ label }, { label: 'Other thing' }] }], sid);
  const r = await daemon.api('POST', `/api/asks/${id}/submit`, { answers: [{ id: 'q', selected: [label] }] });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return id;
}

async function op(sid, name, body) {
  const r = await daemon.api('POST', `/api/sessions/${sid}/alignment/${name}`, body);
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body;
}

/** A session with two answered rounds (one a repeat), a check, two revisions and a refusal. */
async function populated(client) {
  const sid = await session(client);
  const first = await answered(sid, 'Where should the first version run?', 'Local web app');
  const repeat = await answered(sid, 'where should the first  version run', `Desktop ${HOSTILE}`);
  await op(sid, 'check', { via: 'prompt', note: 'scope first' });
  await op(sid, 'baseline', { args: { goal: `A task manager ${HOSTILE}`, explicit_constraints: ['No accounts'], must_preserve: ['Works offline'], allowed_scope: ['Web'] } });
  const refused = await op(sid, 'baseline', { args: { explicit_constraints: [] } });
  assert.equal(refused.error.code, 'protected_constraint');
  await op(sid, 'baseline', { args: { goal: 'A task manager for teams', allowed_scope: ['Web', 'Mobile'] } });
  return { sid, first, repeat };
}

async function alignment(sid) {
  return (await daemon.api('GET', `/api/sessions/${sid}/alignment`)).body;
}

test('the session page shows mode, rounds, decisions, checks, the baseline with its history and connections', async () => {
  const { sid, first, repeat } = await populated('claude-code');
  const { context, page, problems } = await openContext(browser, daemon);
  await page.goto(`${daemon.url}/sessions/${sid}`);
  await page.waitForSelector('.mode-pill.mode-auto');
  // Header.
  assert.equal(await page.textContent('.session-id'), sid);
  assert.equal(await page.getAttribute('.copy-id', 'aria-label'), 'Copy the session id');
  const meta = await page.textContent('.session-meta');
  assert.match(meta, /Client\s*claude-code/);
  assert.match(meta, /Lineage\s*new/);
  // Status strip: mode with its source, posture as text (and colour), counts.
  assert.equal(await page.textContent('.mode-pill .pill-main'), 'Mode: Auto');
  assert.equal(await page.textContent('.mode-pill .pill-source'), 'configured default');
  assert.equal(await page.textContent('.posture-pill'), 'Aligned');
  assert.equal(await page.getAttribute('.posture-pill', 'class'), 'pill posture-pill posture-aligned');
  assert.equal(await page.textContent('.strip-counts'), '2 rounds · 1 checks · 0 drifts');
  assert.equal(await page.isHidden('.pending-banner'), true);
  // Questions: one row per settled decision, linked to its ask, the repeat marked.
  const rows = page.locator('[data-section="questions"] tbody tr');
  assert.equal(await rows.count(), 2);
  assert.equal(await rows.nth(0).getAttribute('data-ask-id'), first);
  assert.equal(await rows.nth(0).locator('a').getAttribute('href'), `/a/${first}`);
  assert.equal(await rows.nth(0).locator('.repeat').count(), 0);
  assert.equal(await rows.nth(1).locator('.repeat').textContent(), 'Repeat');
  assert.equal(await rows.nth(1).locator('.chosen li').textContent(), `Desktop ${HOSTILE}`);
  assert.equal(await page.textContent('[data-section="questions"] .sec-sub'), '2 question rounds answered');
  // Checks, with where each came from.
  assert.match(await page.textContent('[data-section="checks"]'), /1 manual checks.*align prompt \(you\).*“scope first”/s);
  // Baseline: the current revision with all five fields and protected items marked.
  assert.equal(await page.getAttribute('.bl-card', 'data-revision'), '2');
  assert.equal(await page.locator('.bl-card dt').count(), 5);
  assert.equal(await page.locator('.bl-card .bl-item.protected').count(), 2);
  assert.equal(await page.locator('.bl-card .protect-mark[aria-label="protected"]').count(), 2);
  // History newest first: revision 2 (with both warnings), the refusal, revision 1.
  const entries = page.locator('.history-list > li');
  assert.equal(await entries.count(), 3);
  assert.equal(await entries.nth(0).getAttribute('data-revision'), '2');
  assert.deepEqual(await entries.nth(0).locator('.flag').evaluateAll((els) => els.map((e) => e.getAttribute('data-warning'))),
    ['unratified-goal-change', 'unratified-scope-expansion']);
  assert.equal(await entries.nth(0).locator('.diff-line.del').first().textContent(), `−A task manager ${HOSTILE}`);
  assert.deepEqual(await entries.nth(0).locator('.diff-line.add').allTextContents(), ['+A task manager for teams', '+Mobile']);
  assert.equal(await entries.nth(1).getAttribute('class'), 'hist-entry refused');
  assert.match(await entries.nth(1).textContent(), /Refused: would have dropped No accounts/);
  assert.equal(await entries.nth(2).getAttribute('data-revision'), '1');
  // Drift log and connections.
  assert.equal(await page.textContent('[data-section="drifts"] .empty-line'), 'No drift reported in this session.');
  assert.equal(await page.textContent('[data-section="connections"] tbody td >> nth=0'), 'claude-code');
  // Agent text stays text: nothing of it became markup or ran.
  assert.equal(await page.locator('.session-page img, .session-page b').count(), 0);
  assert.equal(await page.evaluate(() => window.pwned), undefined);
  // The question links to its ask; the ask page links back.
  await page.click(`[data-section="questions"] tr[data-ask-id="${repeat}"] a`);
  await page.waitForURL(`**/a/${repeat}`);
  await page.waitForSelector('.card.settled');
  await page.click('.ask-session-link a');
  await page.waitForURL(`**/sessions/${sid}`);
  await page.waitForSelector('.mode-pill.mode-auto');
  assert.deepEqual(problems, []);
  await context.close();
});

test('the mode switch round-trips: aria-pressed, "Use default" disabled without an override, errors keep the state', async () => {
  const sid = await session('codex', null);
  const { context, page, problems } = await openContext(browser, daemon);
  await page.goto(`${daemon.url}/sessions/${sid}`);
  await page.waitForSelector('.mode-pill.mode-auto');
  const btn = (m) => page.locator(`.mode-btn[data-mode="${m}"]`);
  assert.equal(await page.getAttribute('.segmented', 'aria-label'), 'Alignment mode for this session');
  assert.equal(await btn('default').textContent(), 'Use default (Auto)');
  assert.equal(await btn('default').getAttribute('aria-pressed'), 'true');
  assert.equal(await btn('default').isDisabled(), true);
  for (const m of ['auto', 'manual', 'off']) assert.equal(await btn(m).getAttribute('aria-pressed'), 'false');
  assert.equal(await page.textContent('.mode-note'), "Takes effect at the agent's next askd call. The agent will be told.");

  // While the request is in flight every control is disabled.
  let release;
  const held = new Promise((r) => { release = r; });
  let seen;
  const seenPut = new Promise((r) => { seen = r; });
  await page.route(`**/api/sessions/${sid}/alignment/mode`, async (route) => {
    seen();
    await held;
    await route.continue();
  });
  await btn('manual').click();
  await seenPut;
  for (const m of ['auto', 'manual', 'off', 'default']) assert.equal(await btn(m).isDisabled(), true, m);
  release();
  await page.waitForSelector('.mode-btn[data-mode="manual"][aria-pressed="true"]');
  await page.unroute(`**/api/sessions/${sid}/alignment/mode`);
  assert.equal(await btn('default').getAttribute('aria-pressed'), 'false');
  assert.equal(await btn('default').isDisabled(), false);
  assert.equal(await page.textContent('.mode-pill .pill-main'), 'Mode: Manual');
  assert.equal(await page.textContent('.mode-pill .pill-source'), 'set for this session');
  let v = await alignment(sid);
  assert.equal(v.mode.session_override, 'manual');
  assert.equal(v.mode.set_by, 'human');

  // A refused request shows inline and keeps the previous state.
  await page.route(`**/api/sessions/${sid}/alignment/mode`, (route) => route.fulfill({
    status: 422, contentType: 'application/json',
    body: JSON.stringify({ ok: false, code: 'invalid-request', error: 'mode must be one of …', errors: [{ path: 'mode', code: 'invalid_mode', message: 'mode must be one of "auto", "manual", "off" or "default"' }] }),
  }));
  await btn('off').click();
  await page.waitForSelector('.mode-error:not(:empty)');
  assert.match(await page.textContent('.mode-error'), /^The mode was not changed: mode must be one of/);
  assert.equal(await btn('manual').getAttribute('aria-pressed'), 'true');
  assert.equal(await btn('off').getAttribute('aria-pressed'), 'false');
  assert.equal(await btn('off').isDisabled(), false);
  assert.equal((await alignment(sid)).mode.session_override, 'manual');
  await page.unroute(`**/api/sessions/${sid}/alignment/mode`);

  // "Use default" clears the override.
  await btn('default').click();
  await page.waitForSelector('.mode-btn[data-mode="default"][aria-pressed="true"]:disabled');
  assert.equal(await page.textContent('.mode-error'), '');
  assert.equal(await btn('manual').getAttribute('aria-pressed'), 'false');
  v = await alignment(sid);
  assert.equal(v.mode.session_override, null);
  assert.equal(v.mode.source, 'config');
  assert.deepEqual(problems.filter((p) => !/status of 422/.test(p)), []);
  await context.close();
});

test('live: alignment events and settled asks of this session update the page; other sessions do not', async () => {
  const sid = await session('live-client');
  const other = await session('someone-else');
  const { context, page, problems } = await openContext(browser, daemon);
  await page.goto(`${daemon.url}/sessions/${sid}`);
  await page.waitForSelector('.mode-pill.mode-auto');
  assert.equal(await page.textContent('.strip-counts'), '0 rounds · 0 checks · 0 drifts');
  assert.equal(await page.textContent('.posture-pill'), 'No baseline yet');
  // Count the page's reads: events of another session cause none.
  let reads = 0;
  page.on('request', (r) => {
    if (r.url().endsWith(`/api/sessions/${sid}/alignment`)) reads += 1;
  });
  await daemon.api('PUT', `/api/sessions/${other}/alignment/mode`, { mode: 'off' });
  // The agent switches this session's mode (the POST route, as the MCP layer does).
  await op(sid, 'mode', { mode: 'off', actor: 'agent' });
  await page.waitForSelector('.mode-pill.mode-off');
  assert.equal(reads, 1);
  await answered(sid, 'Who is it for?', 'Me');
  await page.waitForFunction(() => document.querySelector('.strip-counts').textContent.startsWith('1 rounds'));
  assert.equal(await page.locator('[data-section="questions"] tbody tr').count(), 1);
  await op(sid, 'baseline', { args: { goal: 'Personal task list' } });
  await page.waitForSelector('.posture-pill.posture-aligned');
  assert.equal(await page.getAttribute('.bl-card', 'data-revision'), '1');
  assert.deepEqual(problems, []);
  await context.close();
});

test('navigating A → B → C never shows A\'s or B\'s late data on C\'s page; no id, no request', async () => {
  const a = await session('client-A');
  const b = await session('client-B');
  const c = await session('client-C');
  await daemon.api('PUT', `/api/sessions/${a}/alignment/mode`, { mode: 'off' });
  await daemon.api('PUT', `/api/sessions/${b}/alignment/mode`, { mode: 'manual' });
  const { context, page, problems } = await openContext(browser, daemon);
  await page.waitForSelector('.inbox-title');
  // Hold A's and B's reads until C's page has rendered.
  const heldRoutes = [];
  let gotBoth;
  const both = new Promise((r) => { gotBoth = r; });
  await page.route(/\/api\/sessions\/[^/]+\/alignment$/, async (route) => {
    const url = route.request().url();
    if (url.includes(a) || url.includes(b)) {
      heldRoutes.push(route);
      if (heldRoutes.length === 2) gotBoth();
      return;
    }
    await route.continue();
  });
  const go = (id) => page.evaluate((path) => {
    history.pushState(null, '', path);
    dispatchEvent(new PopStateEvent('popstate'));
  }, `/sessions/${id}`);
  await go(a);
  await page.waitForSelector(`.session-id:text("${a}")`);
  await go(b);
  await page.waitForSelector(`.session-id:text("${b}")`);
  await both;
  await go(c);
  await page.waitForSelector('.mode-pill.mode-auto');
  // Now A's and B's answers arrive, late. Anything of A or B that shows, even for a moment,
  // is recorded.
  await page.evaluate(() => {
    window.staleSeen = [];
    new MutationObserver(() => {
      const text = document.getElementById('app').textContent;
      if (/client-A|client-B/.test(text)) window.staleSeen.push(text.slice(0, 120));
    }).observe(document.getElementById('app'), { subtree: true, childList: true, characterData: true });
  });
  const finished = heldRoutes.map((r) => page.waitForEvent('requestfinished', (req) => req === r.request()));
  for (const r of heldRoutes) await r.continue();
  await Promise.all(finished);
  // A later change on C still lands, after the late answers were processed.
  await daemon.api('PUT', `/api/sessions/${c}/alignment/mode`, { mode: 'manual' });
  await page.waitForSelector('.mode-pill.mode-manual');
  assert.equal(await page.textContent('.session-id'), c);
  assert.match(await page.textContent('.session-meta'), /client-C/);
  assert.doesNotMatch(await page.textContent('.session-page'), /client-A|client-B/);
  assert.deepEqual(await page.evaluate(() => window.staleSeen), []);
  assert.equal(await page.locator('.mode-btn[data-mode="manual"][aria-pressed="true"]').count(), 1);
  await page.unroute(/\/api\/sessions\/[^/]+\/alignment$/);

  // "/sessions/" has no id: it is not a session page and asks for no session.
  const asked = [];
  page.on('request', (r) => { if (r.url().includes('/api/sessions')) asked.push(r.url()); });
  await page.evaluate(() => {
    history.pushState(null, '', '/sessions/');
    dispatchEvent(new PopStateEvent('popstate'));
  });
  await page.waitForSelector('.inbox-title');
  assert.deepEqual(asked, []);
  const bare = await page.goto(`${daemon.url}/sessions/`);
  assert.equal(bare.status(), 404);
  assert.deepEqual(asked, []);
  // An unknown session: "Unknown", never a mode.
  await page.goto(`${daemon.url}/sessions/no-such-session`);
  await page.waitForSelector('.mode-pill.unknown');
  assert.equal(await page.textContent('.mode-pill'), 'Unknown');
  assert.equal(await page.textContent('.session-alert'), 'There is no such session.');
  for (const m of ['auto', 'manual', 'off', 'default']) assert.equal(await page.locator(`.mode-btn[data-mode="${m}"]`).isDisabled(), true);
  assert.deepEqual(problems.filter((p) => !/status of 404/.test(p)), []);
  await context.close();
});

test('lineage of a fork links to its parent; every bound connection is listed', async () => {
  const parent = await session('parent-client');
  await daemon.api('POST', '/api/sessions', { id: parent, client: 'subagent', transport: 'stdio', attach: true });
  const child = (await daemon.api('POST', '/api/sessions', { client: 'fork-client', fork: { session: parent, at: 1 } })).body.session.id;
  const { context, page, problems } = await openContext(browser, daemon);
  await page.goto(`${daemon.url}/sessions/${parent}`);
  await page.waitForSelector('.mode-pill.mode-auto');
  assert.match(await page.textContent('.session-meta'), /Transport\s*http/);
  assert.deepEqual(await page.locator('[data-section="connections"] tbody tr').evaluateAll((rows) => rows.map((r) => [...r.cells].slice(0, 2).map((c) => c.textContent))),
    [['parent-client', 'http'], ['subagent', 'stdio']]);
  await page.goto(`${daemon.url}/sessions/${child}`);
  await page.waitForSelector('.mode-pill.mode-auto');
  assert.match(await page.textContent('.session-meta'), new RegExp(`Lineage\\s*forked from ${parent} at event 1`));
  await page.click(`.session-meta a[href="/sessions/${parent}"]`);
  await page.waitForSelector(`.session-id:text("${parent}")`);
  await page.waitForSelector('[data-section="connections"]');
  assert.deepEqual(problems, []);
  await context.close();
});

test('a long session lists its newest 50 decisions and pages to older ones on demand', async () => {
  const sid = await session('long-session');
  for (let i = 0; i < 56; i += 1) await answered(sid, `Decision number ${i}?`, 'Yes');
  const { context, page, problems } = await openContext(browser, daemon);
  await page.goto(`${daemon.url}/sessions/${sid}`);
  await page.waitForSelector('[data-section="questions"] tbody tr');
  const rows = () => page.locator('[data-section="questions"] tbody tr td:nth-child(3)').allTextContents();
  let shown = await rows();
  assert.equal(shown.length, 50);
  assert.equal(shown[0], 'Decision number 6?');
  assert.equal(shown[49], 'Decision number 55?');
  assert.equal(await page.textContent('[data-action="older"]'), 'Show older (6 more)');
  await page.click('[data-action="older"]');
  await page.waitForFunction(() => document.querySelectorAll('[data-section="questions"] tbody tr').length === 56);
  shown = await rows();
  assert.equal(shown[0], 'Decision number 0?');
  assert.equal(shown[55], 'Decision number 55?');
  assert.equal(await page.locator('[data-action="older"]').count(), 0);
  // A decision settled meanwhile joins the list without dropping the older ones read.
  await answered(sid, 'Decision number 56?', 'Yes');
  await page.waitForFunction(() => document.querySelectorAll('[data-section="questions"] tbody tr').length === 57);
  shown = await rows();
  assert.equal(shown[0], 'Decision number 0?');
  assert.equal(shown[56], 'Decision number 56?');
  assert.deepEqual(problems, []);
  await context.close();
});

test('the inbox links each session group to its session page', async () => {
  const sid = await session('inbox-client', '/tmp/inbox-ws');
  const id = await daemon.createQuestions([{ id: 'q', question: 'Pending one?', options: [{ label: 'Yes' }, { label: 'No' }] }], sid);
  const { context, page, problems } = await openContext(browser, daemon);
  await page.waitForSelector(`.ask-row[data-ask-id="${id}"]`);
  const group = page.locator('.card.session', { has: page.locator(`.ask-row[data-ask-id="${id}"]`) });
  assert.equal(await group.locator('.session-page-link').getAttribute('href'), `/sessions/${sid}`);
  await group.locator('.session-page-link').click();
  await page.waitForURL(`**/sessions/${sid}`);
  await page.waitForSelector('.mode-pill.mode-auto');
  assert.match(await page.textContent('.session-meta'), /inbox-client/);
  assert.deepEqual(problems, []);
  await context.close();
});

for (const scheme of ['light', 'dark']) {
  test(`screenshot (${scheme}): the session page`, async () => {
    const { sid } = await populated(`screens-${scheme}`);
    await daemon.api('PUT', `/api/sessions/${sid}/alignment/mode`, { mode: 'manual' });
    const { context, page, problems } = await openContext(browser, daemon, { colorScheme: scheme, viewport: { width: 900, height: 900 } });
    await page.goto(`${daemon.url}/sessions/${sid}`);
    await page.waitForSelector('.mode-pill.mode-manual');
    await page.screenshot({ path: screenshotPath(`${scheme}-session`), fullPage: true });
    assert.deepEqual(problems, []);
    await context.close();
  });
}

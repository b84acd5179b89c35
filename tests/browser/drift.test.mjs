// The drift decision card (alignment.md §6) against the real drift backend: layout, each
// decision kind (approve, keep, an offered direction, a typed direction, not now) checked
// through the API, the keyboard path, a settled card, agent text kept as text, the inbox
// badge, the session page's drift log and banners, and screenshots in light and dark.
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

const OPTIONS = [
  { label: 'Use export files', description: 'CSV and JSON **exports** instead of a sync server.' },
  { label: 'Sync through WebDAV', description: 'The user brings a server.' },
  { label: 'Drop sharing for now' },
];

async function session(client = 'claude-code') {
  const r = await daemon.api('POST', '/api/sessions', { client, workspace: '/home/me/tasks' });
  assert.equal(r.status, 200);
  return r.body.session.id;
}

async function baseline(sid, args) {
  const r = await daemon.api('POST', `/api/sessions/${sid}/alignment/baseline`, { args });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  assert.equal(r.body.error, undefined, JSON.stringify(r.body));
  return r.body;
}

/** Reports a drift (the non-waiting half of report_drift) and returns {ask_id, drift_id}. */
async function drift(sid, args = {}) {
  const r = await daemon.api('POST', `/api/sessions/${sid}/alignment/report_drift`, {
    args: {
      reason: 'architecture-shift',
      description: 'Sharing lists needs a **sync server**, which the baseline rules out.',
      required_change: 'Drop "No server component" from the explicit constraints.',
      options: OPTIONS,
      ...args,
    },
  });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  assert.ok(r.body.ask_id, JSON.stringify(r.body));
  return r.body;
}

async function withBaseline(client) {
  const sid = await session(client);
  await baseline(sid, {
    goal: 'A personal task manager in the browser',
    explicit_constraints: ['No server component'],
    must_preserve: ['Works offline'],
    allowed_scope: ['Web UI'],
  });
  return sid;
}

async function view(id) {
  return (await daemon.api('GET', `/api/asks/${id}`)).body;
}

async function open(id, opts) {
  const { context, page, problems } = await openContext(browser, daemon, opts);
  await page.goto(`${daemon.url}/a/${id}`);
  await page.waitForSelector('.drift-card');
  return { context, page, problems };
}

const action = (page, a) => page.locator(`.drift-action[data-action="${a}"]`);

test('the card shows header, change, baseline, directions and the fixed actions; nothing is preselected', async () => {
  const sid = await withBaseline('claude-code');
  const d = await drift(sid);
  const { context, page, problems } = await open(d.ask_id);
  // Header: badge, reason label, client, session link.
  assert.equal(await page.textContent('.drift-badge'), 'Requirement drift');
  assert.equal(await page.textContent('.drift-reason'), 'Architecture shift');
  assert.equal(await page.textContent('.drift-client'), 'claude-code');
  assert.equal(await page.getAttribute('.drift-origin .session-link', 'href'), `/sessions/${sid}`);
  // What would change: sanitised markdown, then the required change.
  assert.equal(await page.textContent('.drift-description strong'), 'sync server');
  assert.match(await page.textContent('.drift-required'), /^Required change to the baseline:\s*Drop "No server component"/);
  // The current baseline, open by default, protected items marked.
  assert.equal(await page.getAttribute('.drift-baseline', 'open'), '');
  assert.equal(await page.textContent('.drift-baseline summary'), 'Current baseline · revision 1');
  assert.equal(await page.locator('.drift-baseline .bl-item.protected').count(), 2);
  assert.equal(await page.locator('.drift-baseline dt').count(), 4, 'only the non-empty fields');
  // Directions: a labelled radio group in the agent's order, nothing selected.
  assert.equal(await page.textContent('.drift-directions legend'), 'Choose a direction');
  assert.equal(await page.getAttribute('.dir-list', 'role'), 'radiogroup');
  assert.deepEqual(await page.locator('.dir-label').allTextContents(), OPTIONS.map((o) => o.label));
  assert.equal(await page.textContent('.dir-row[data-index="0"] .dir-desc strong'), 'exports');
  assert.equal(await page.locator('.dir-input:checked').count(), 0);
  // Fixed actions in their own row; "Use this direction" only while a direction is selected.
  assert.deepEqual(await page.locator('.drift-actions .drift-action').allTextContents(),
    ['Approve this change', 'Keep the current baseline', 'Use this direction', 'Another direction…', 'Not now']);
  assert.equal(await page.getAttribute('.drift-actions', 'role'), 'group');
  assert.equal(await action(page, 'option').isDisabled(), true);
  assert.match(await action(page, 'dismiss').getAttribute('data-tip'), /agent will be told not to make the change/);
  assert.equal(await page.locator('.drift-action[aria-pressed="true"]').count(), 0);
  assert.equal(await page.isDisabled('.drift-send'), true);
  assert.equal(await page.isHidden('.drift-other'), true);
  // Labelled fields.
  assert.equal(await page.textContent(`label[for="${await page.getAttribute('.drift-note textarea', 'id')}"]`), 'Note for the agent (optional)');
  await page.click('.dir-row[data-index="1"]');
  assert.equal(await action(page, 'option').isDisabled(), false);
  assert.equal(await action(page, 'option').getAttribute('aria-pressed'), 'true');
  // The ask page links to the session page.
  assert.equal(await page.getAttribute('.ask-session-link a', 'href'), `/sessions/${sid}`);
  assert.equal((await view(d.ask_id)).state, 'pending', 'nothing is sent by looking');
  assert.deepEqual(problems, []);
  await context.close();
});

test('a session without a baseline says so; a drift without options has no directions', async () => {
  const sid = await session('codex');
  const d = await drift(sid, { reason: 'scope-expansion', options: undefined, required_change: undefined });
  const { context, page, problems } = await open(d.ask_id);
  assert.equal(await page.textContent('.drift-reason'), 'Scope expansion');
  assert.equal(await page.textContent('.drift-baseline p'), 'No baseline recorded yet');
  assert.equal(await page.locator('.drift-directions').count(), 0);
  assert.equal(await page.locator('.drift-required').count(), 0);
  assert.equal(await action(page, 'option').isDisabled(), true);
  assert.deepEqual(problems, []);
  await context.close();
});

test('approve with a note: the decision reaches the API and the card turns read-only', async () => {
  const sid = await withBaseline('c-approve');
  const d = await drift(sid);
  const { context, page, problems } = await open(d.ask_id);
  await action(page, 'approve').click();
  assert.equal(await action(page, 'approve').getAttribute('aria-pressed'), 'true');
  assert.equal(await page.textContent('.drift-picked'), 'Decision: Approve this change');
  await page.fill('.drift-note textarea', 'CSV is enough for now');
  await page.click('.drift-send');
  await page.waitForSelector('.drift-card.settled-drift');
  assert.equal(await page.textContent('.drift-verdict'), 'Approved the change');
  assert.equal(await page.textContent('.drift-outcome .drift-note'), 'Note: CSV is enough for now');
  assert.equal(await page.locator('.drift-action').count(), 0);
  assert.equal(await page.evaluate(() => [...document.getElementById('app').childNodes].every((n) => n.nodeType === Node.ELEMENT_NODE)), true);
  const v = await view(d.ask_id);
  assert.equal(v.outcome, 'answered');
  assert.equal(v.drift.state, 'decided');
  assert.equal(v.drift.decision.decision, 'approve');
  assert.equal(v.drift.decision.note, 'CSV is enough for now');
  assert.deepEqual(problems, []);
  await context.close();
});

test('keep the current baseline', async () => {
  const sid = await withBaseline('c-reject');
  const d = await drift(sid);
  const { context, page, problems } = await open(d.ask_id);
  await action(page, 'reject').click();
  await page.click('.drift-send');
  await page.waitForSelector('.drift-card.settled-drift');
  assert.equal(await page.textContent('.drift-verdict'), 'Kept the current baseline');
  const v = await view(d.ask_id);
  assert.equal(v.drift.decision.decision, 'reject');
  assert.equal(v.drift.decision.note, null);
  const s = (await daemon.api('GET', `/api/sessions/${sid}/alignment`)).body;
  assert.equal(s.posture, 'aligned');
  assert.deepEqual(problems, []);
  await context.close();
});

test('use an offered direction: decided by index, never by label text', async () => {
  const sid = await withBaseline('c-option');
  const d = await drift(sid);
  const { context, page, problems } = await open(d.ask_id);
  await page.click('.dir-row[data-index="2"]');
  await page.click('.dir-row[data-index="1"]');
  await action(page, 'option').click();
  await page.fill('.drift-note textarea', 'Users already have Nextcloud');
  await page.click('.drift-send');
  await page.waitForSelector('.drift-card.settled-drift');
  assert.equal(await page.textContent('.drift-verdict'), 'Redirected: “Sync through WebDAV” (one of the offered directions)');
  assert.equal(await page.locator('.dir-input:checked').count(), 1);
  assert.equal(await page.getAttribute('.dir-input:checked', 'value'), '1');
  const v = await view(d.ask_id);
  assert.deepEqual(
    { ...v.drift.decision, decided_at: undefined, decided_by: undefined },
    { decision: 'revise', choice: 'Sync through WebDAV', choice_source: 'option', option_index: 1, note: 'Users already have Nextcloud', decided_at: undefined, decided_by: undefined },
  );
  const s = (await daemon.api('GET', `/api/sessions/${sid}/alignment`)).body;
  assert.equal(s.posture, 'baseline-update-pending');
  assert.deepEqual(problems, []);
  await context.close();
});

test('another direction: a required typed text, refused inline while blank', async () => {
  const sid = await withBaseline('c-other');
  const d = await drift(sid);
  const { context, page, problems } = await open(d.ask_id);
  await action(page, 'other').click();
  assert.equal(await page.isVisible('.drift-other textarea'), true);
  assert.equal(await page.evaluate(() => document.activeElement.closest('.drift-other') !== null), true);
  assert.equal(await page.getAttribute('.drift-other textarea', 'maxlength'), '2000');
  await page.fill('.drift-other textarea', '   ');
  await page.click('.drift-send');
  assert.equal(await page.textContent('.drift-other .field-error'), 'Type the direction first (1 to 2000 characters).');
  assert.equal((await view(d.ask_id)).state, 'pending');
  await page.fill('.drift-other textarea', 'Share read-only links from a static export');
  assert.equal(await page.textContent('.drift-other .counter'), '42 / 2000');
  // A field the daemon refuses (422) is shown beside that field, and nothing is settled.
  await page.route(`**/api/asks/${d.ask_id}/submit`, (route) => route.fulfill({
    status: 422, contentType: 'application/json',
    body: JSON.stringify({ ok: false, code: 'invalid-answer', error: 'text is too long', errors: [{ path: 'text', code: 'too_long', message: 'text is 2001 characters; at most 2000 are allowed' }] }),
  }));
  await page.click('.drift-send');
  await page.waitForSelector('.drift-other .field-error:has-text("at most 2000 are allowed")');
  assert.equal(await page.isDisabled('.drift-send'), false);
  await page.unroute(`**/api/asks/${d.ask_id}/submit`);
  await page.click('.drift-send');
  await page.waitForSelector('.drift-card.settled-drift');
  const v = await view(d.ask_id);
  assert.equal(v.drift.decision.decision, 'revise');
  assert.equal(v.drift.decision.choice_source, 'typed');
  assert.equal(v.drift.decision.choice, 'Share read-only links from a static export');
  assert.equal(v.drift.decision.option_index, null);
  assert.match(await page.textContent('.drift-verdict'), /Share read-only links from a static export.*a direction you typed/);
  assert.deepEqual(problems.filter((p) => !/status of 422/.test(p)), []);
  await context.close();
});

test('not now: confirmed, then the card is dismissed without a decision', async () => {
  const sid = await withBaseline('c-dismiss');
  const d = await drift(sid);
  const { context, page, problems } = await open(d.ask_id);
  await action(page, 'dismiss').click();
  await page.waitForSelector('dialog[open]');
  assert.match(await page.textContent('dialog[open] .dialog-text'), /without a decision/);
  await page.click('dialog[open] button[value="no"]');
  assert.equal((await view(d.ask_id)).state, 'pending');
  await action(page, 'dismiss').click();
  await page.click('dialog[open] button[value="yes"]');
  await page.waitForSelector('.drift-card.settled-drift');
  assert.equal(await page.textContent('.drift-verdict'), 'Closed without a decision');
  const v = await view(d.ask_id);
  assert.equal(v.outcome, 'cancelled');
  assert.equal(v.drift.state, 'dismissed');
  assert.equal(v.drift.decision, null);
  assert.deepEqual(problems, []);
  await context.close();
});

test('keyboard: Enter sends nothing before a pick; A, K, 1–4, O, Ctrl+Enter and Esc', async () => {
  const sid = await withBaseline('c-keys');
  // 1–4 select a direction; Enter then sends it.
  let d = await drift(sid);
  let { context, page, problems } = await open(d.ask_id);
  await page.keyboard.press('Enter');
  assert.equal(await page.textContent('.drift-decide .alert'), 'Pick a decision first: approve, keep, a direction, or another direction.');
  assert.equal((await view(d.ask_id)).state, 'pending');
  await page.keyboard.press('a');
  assert.equal(await action(page, 'approve').getAttribute('aria-pressed'), 'true');
  await page.keyboard.press('k');
  assert.equal(await action(page, 'reject').getAttribute('aria-pressed'), 'true');
  assert.equal(await action(page, 'approve').getAttribute('aria-pressed'), 'false');
  await page.keyboard.press('3');
  assert.equal(await page.getAttribute('.dir-input:checked', 'value'), '2');
  // An explicit pick is not overridden by selecting a direction.
  assert.equal(await action(page, 'reject').getAttribute('aria-pressed'), 'true');
  await page.keyboard.press('Enter');
  await page.waitForSelector('.drift-card.settled-drift');
  assert.equal((await view(d.ask_id)).drift.decision.decision, 'reject');
  await context.close();

  d = await drift(sid);
  ({ context, page, problems } = await open(d.ask_id));
  await page.keyboard.press('2');
  assert.equal(await action(page, 'option').getAttribute('aria-pressed'), 'true');
  await page.keyboard.press('Enter');
  await page.waitForSelector('.drift-card.settled-drift');
  let v = await view(d.ask_id);
  assert.equal(v.drift.decision.option_index, 1);
  assert.equal(v.drift.decision.choice, 'Sync through WebDAV');
  await context.close();

  // O opens the typed direction; Ctrl+Enter sends from inside it.
  d = await drift(sid);
  ({ context, page, problems } = await open(d.ask_id));
  await page.keyboard.press('o');
  assert.equal(await page.evaluate(() => document.activeElement.matches('.drift-other textarea')), true);
  await page.keyboard.type('Keep it local; export a share file');
  assert.equal(await page.inputValue('.drift-other textarea'), 'Keep it local; export a share file');
  await page.keyboard.press('Control+Enter');
  await page.waitForSelector('.drift-card.settled-drift');
  v = await view(d.ask_id);
  assert.equal(v.drift.decision.choice, 'Keep it local; export a share file');
  assert.equal(v.drift.decision.choice_source, 'typed');
  await context.close();

  // Esc asks first; confirming dismisses.
  d = await drift(sid);
  ({ context, page, problems } = await open(d.ask_id));
  await page.keyboard.press('Escape');
  await page.waitForSelector('dialog[open]');
  await page.keyboard.press('Escape');
  await page.waitForSelector('dialog[open]', { state: 'detached' });
  assert.equal((await view(d.ask_id)).state, 'pending');
  await page.keyboard.press('Escape');
  await page.waitForSelector('dialog[open]');
  await page.click('dialog[open] button[value="yes"]');
  await page.waitForSelector('.drift-card.settled-drift');
  assert.equal((await view(d.ask_id)).drift.state, 'dismissed');
  assert.deepEqual(problems, []);
  await context.close();
});

test('a decision made elsewhere: the open card turns read-only live; a late answer gets the decision that stands', async () => {
  const sid = await withBaseline('c-elsewhere');
  let d = await drift(sid);
  let { context, page, problems } = await open(d.ask_id);
  let r = await daemon.api('POST', `/api/asks/${d.ask_id}/submit`, { action: 'reject', note: 'decided in the terminal' });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  await page.waitForSelector('.drift-card.settled-drift');
  assert.equal(await page.textContent('.drift-verdict'), 'Kept the current baseline');
  assert.equal(await page.textContent('.drift-outcome .drift-note'), 'Note: decided in the terminal');
  assert.deepEqual(problems, []);
  await context.close();

  // With the live stream cut, the answer meets 409 and the card shows what stands.
  d = await drift(sid);
  const cut = await browser.newContext();
  await cut.route('**/api/events', (route) => route.abort());
  const page2 = await cut.newPage();
  await page2.goto(`${daemon.url}/?token=${daemon.token}`);
  await page2.goto(`${daemon.url}/a/${d.ask_id}`);
  await page2.waitForSelector('.drift-card');
  r = await daemon.api('POST', `/api/asks/${d.ask_id}/submit`, { action: 'approve' });
  assert.equal(r.status, 200);
  await page2.locator('.drift-action[data-action="reject"]').click();
  await page2.click('.drift-send');
  await page2.waitForSelector('.drift-card.settled-drift');
  assert.equal(await page2.textContent('.drift-verdict'), 'Approved the change');
  assert.match(await page2.textContent('.drift-outcome-head'), /This drift was already decided elsewhere\./);
  assert.equal((await view(d.ask_id)).drift.decision.decision, 'approve');
  await cut.close();
});

test('HTML-looking agent text stays text: labels as text, markdown sanitised', async () => {
  const sid = await session('c-xss');
  const d = await drift(sid, {
    description: 'Adds <img src=x onerror="window.pwned=1"> and <script>window.pwned=2</script> to the **page**',
    required_change: '<b>bold</b> [link](javascript:alert(1))',
    options: [
      { label: '<img src=x onerror="window.pwned=3">', description: '<i>italic</i>' },
      { label: '<b>not bold</b>' },
    ],
  });
  const { context, page, problems } = await open(d.ask_id);
  assert.deepEqual(await page.locator('.dir-label').allTextContents(), ['<img src=x onerror="window.pwned=3">', '<b>not bold</b>']);
  assert.equal(await page.locator('.drift-card img, .drift-card script, .drift-card b, .drift-card i').count(), 0);
  assert.match(await page.textContent('.drift-description'), /<img src=x onerror="window.pwned=1">/);
  assert.equal(await page.textContent('.drift-description strong'), 'page');
  assert.equal(await page.locator('.drift-required a[href^="javascript"]').count(), 0);
  // Chosen and shown read-only, still text.
  await page.keyboard.press('1');
  await page.keyboard.press('Enter');
  await page.waitForSelector('.drift-card.settled-drift');
  assert.match(await page.textContent('.drift-verdict'), /<img src=x onerror="window.pwned=3">/);
  assert.equal(await page.locator('.drift-card img').count(), 0);
  // The session page's drift log shows the same text as text.
  await page.goto(`${daemon.url}/sessions/${sid}`);
  await page.waitForSelector('.drift-entry');
  assert.match(await page.textContent('.drift-entry .drift-desc'), /<img src=x onerror/);
  assert.equal(await page.locator('.session-page img, .session-page script').count(), 0);
  assert.equal(await page.evaluate(() => window.pwned), undefined);
  assert.deepEqual(problems, []);
  await context.close();
});

test('the inbox shows a drift card with its badge; the card is in Chinese when the description is', async () => {
  const sid = await session('inbox-drift');
  const d = await drift(sid, { description: '分享列表需要同步服务器，这与基线冲突。', options: undefined, required_change: undefined });
  const { context, page, problems } = await openContext(browser, daemon);
  const row = page.locator(`.ask-row[data-ask-id="${d.ask_id}"]`);
  await row.waitFor();
  assert.equal(await row.locator('.drift-badge').textContent(), 'Requirement drift');
  await page.waitForFunction((id) => document.querySelector(`.ask-row[data-ask-id="${id}"] .ask-title`).textContent.startsWith('分享列表'), d.ask_id);
  await row.locator('.ask-link').click();
  await page.waitForSelector('.drift-card');
  assert.equal(await page.textContent('.drift-badge'), '需求偏移');
  assert.deepEqual(await page.locator('.drift-actions .drift-action').allTextContents(), ['批准此变更', '保持当前基线', '采用此方向', '其他方向…', '暂不']);
  assert.deepEqual(problems, []);
  await context.close();
});

test('the session page: drift log, the pending banners, the decision and the revision that applied it', async () => {
  const sid = await withBaseline('c-log');
  const d = await drift(sid);
  const { context, page, problems } = await openContext(browser, daemon);
  await page.goto(`${daemon.url}/sessions/${sid}`);
  await page.waitForSelector('.posture-pill.posture-drift-pending');
  assert.equal(await page.textContent('.posture-pill'), 'Drift pending');
  assert.match(await page.textContent('.pending-banner'), new RegExp(`Waiting on you: drift ${d.drift_id} \\(Architecture shift\\) is undecided\\. The agent must not make that change\\.`));
  const entry = page.locator(`.drift-entry[data-drift-id="${d.drift_id}"]`);
  assert.equal(await entry.locator('.drift-state').textContent(), 'Open');
  assert.deepEqual(await entry.locator('.drift-options .opt-label').allTextContents(), OPTIONS.map((o) => o.label));
  // The open drift links to its live card, which can be decided from there.
  await entry.locator(`a[href="/a/${d.ask_id}"]`).click();
  // (The session page shows the card too; wait for the card's own page.)
  await page.waitForURL(`**/a/${d.ask_id}`);
  await page.waitForSelector('.drift-card:not(.drift-host .drift-card)');
  await page.keyboard.press('1');
  await page.fill('.drift-note textarea', 'exports are enough');
  await page.click('.drift-send');
  await page.waitForSelector('.drift-card.settled-drift');
  await page.click('.drift-outcome a[href^="/sessions/"]');
  await page.waitForSelector('.posture-pill.posture-baseline-update-pending');
  assert.match(await page.textContent('.pending-banner'), new RegExp(`Baseline update pending \\(${d.drift_id}\\): you chose “Use export files”\\. The agent must call establish_baseline`));
  assert.match(await entry.textContent(), /Redirected: “Use export files”.*Note: exports are enough.*by human/s);
  assert.equal(await entry.locator('.chip.warn').textContent(), 'pending update');
  // The agent records the revision; the page follows live.
  await baseline(sid, { explicit_constraints: [], must_preserve: ['Works offline'], user_decisions: ['Sharing through export files'] });
  await page.waitForSelector('.posture-pill.posture-aligned');
  assert.equal(await page.isHidden('.pending-banner'), true);
  assert.equal(await entry.locator('.chip.ok').textContent(), 'Applied in revision 2');
  const rev2 = page.locator('.hist-entry[data-revision="2"]');
  assert.match(await rev2.textContent(), new RegExp(`Applied: ${d.drift_id}`));
  assert.match(await rev2.textContent(), new RegExp(`Dropped: No server component — authorised by ${d.drift_id}`));
  assert.equal(await page.textContent('.strip-counts'), '0 rounds · 0 checks · 1 drifts');
  assert.deepEqual(problems, []);
  await context.close();
});

test('the session page: the open drift is decided right there; a live reload keeps a note in progress', async () => {
  const sid = await withBaseline('c-inline');
  const d = await drift(sid);
  const { context, page, problems } = await openContext(browser, daemon);
  await page.goto(`${daemon.url}/sessions/${sid}`);
  const entry = page.locator(`.drift-entry[data-drift-id="${d.drift_id}"]`);
  // The log renders the description's markdown (sanitised), not its source.
  await entry.locator('.drift-desc strong').waitFor();
  assert.equal(await entry.locator('.drift-desc strong').textContent(), 'sync server');
  assert.doesNotMatch(await entry.locator('.drift-desc').textContent(), /\*\*/);
  await entry.locator('.drift-host .drift-card').waitFor();
  await entry.locator('.drift-host .drift-note textarea').fill('not in this version');
  // An event for this session reloads the page's state; the card and its note stay.
  const r = await daemon.api('POST', `/api/sessions/${sid}/alignment/check`, { via: 'tool' });
  assert.equal(r.status, 200);
  await page.waitForSelector('.strip-counts:has-text("1 checks")');
  assert.equal(await entry.locator('.drift-host .drift-note textarea').inputValue(), 'not in this version');
  await entry.locator('.drift-host .drift-action[data-action="reject"]').click();
  await entry.locator('.drift-host .drift-send').click();
  await page.waitForSelector('.posture-pill.posture-aligned');
  // The page's live reload drops the card once the drift is decided.
  await page.waitForFunction(() => !document.querySelector('.drift-host'));
  assert.equal(await entry.locator('.hist-head .drift-state').textContent(), 'Decided');
  const v = await view(d.ask_id);
  assert.equal(v.drift.decision.decision, 'reject');
  assert.equal(v.drift.decision.note, 'not in this version');
  assert.deepEqual(problems, []);
  await context.close();
});

for (const scheme of ['light', 'dark']) {
  test(`screenshots (${scheme}): the drift card, open and decided, and the session page with a drift`, async () => {
    const sid = await withBaseline(`screens-${scheme}`);
    const d = await drift(sid);
    const { context, page, problems } = await open(d.ask_id, { colorScheme: scheme, viewport: { width: 900, height: 900 } });
    await page.click('.dir-row[data-index="0"]');
    await page.fill('.drift-note textarea', 'CSV is enough for the first version');
    await page.screenshot({ path: screenshotPath(`${scheme}-drift-card`), fullPage: true });
    await page.click('.drift-send');
    await page.waitForSelector('.drift-card.settled-drift');
    await page.screenshot({ path: screenshotPath(`${scheme}-drift-decided`), fullPage: true });
    await drift(sid, { reason: 'scope-expansion', description: 'Add a mobile app as well.', options: undefined, required_change: undefined });
    await page.goto(`${daemon.url}/sessions/${sid}`);
    await page.waitForSelector('.posture-pill.posture-drift-pending');
    await page.screenshot({ path: screenshotPath(`${scheme}-session-drift`), fullPage: true });
    assert.deepEqual(problems, []);
    await context.close();
  });
}

// The human's desk, part D (issue 30, items 5, 9 and 11): Records shows a drift's decision
// and note; the review panel at scale (the page's width for a large batch, a status filter, a
// search, a jump to a group, a phone's first item near the top, plurals, a safe blue button);
// the inbox's density, its filters and bulk actions, and the Records filters in the URL.
// Real daemon, real headless Chromium, fixtures through the daemon's API.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startDaemon, launchBrowser, openContext, branchingSurvey, screenshotPath } from './helpers.mjs';

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

const DESKTOP = { width: 1280, height: 800 };
const PHONE = { width: 390, height: 844 };

async function session(d, client, workspace) {
  const r = await d.api('POST', '/api/sessions', { client, workspace });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body.session.id;
}

/** A drift card reported in a session with a baseline (the non-waiting half of report_drift). */
async function driftCard(sid, args = {}) {
  const r = await daemon.api('POST', `/api/sessions/${sid}/alignment/report_drift`, {
    args: {
      reason: 'architecture-shift',
      description: 'Sharing lists needs a **sync server**, which the baseline rules out.',
      required_change: 'Drop "No server component" from the explicit constraints.',
      options: [{ label: 'Use export files' }, { label: 'Sync through WebDAV' }],
      ...args,
    },
  });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  assert.ok(r.body.ask_id, JSON.stringify(r.body));
  return r.body.ask_id;
}

// ---------------------------------------------------------------- 5. a drift's record

test('desk_d_5_records_show_a_drift_decision_and_note', async () => {
  const sid = await session(daemon, 'claude-code', '/home/me/tasks');
  const b = await daemon.api('POST', `/api/sessions/${sid}/alignment/baseline`, { args: {
    goal: 'A personal task manager in the browser', explicit_constraints: ['No server component'],
  } });
  assert.equal(b.status, 200, JSON.stringify(b.body));
  // One decided through the card's own route (a direction and a note), one closed without one.
  const decided = await driftCard(sid);
  const s = await daemon.api('POST', `/api/asks/${decided}/submit`, { action: 'option', option: 1, note: 'Users already have Nextcloud' });
  assert.equal(s.status, 200, JSON.stringify(s.body));
  const dismissed = await driftCard(sid, { reason: 'scope-expansion', description: 'A mobile app too.', required_change: undefined, options: undefined });
  assert.equal((await daemon.api('POST', `/api/asks/${dismissed}/cancel`, {})).status, 200);
  // What the record really holds: the decision sits in its `result`, there are no `answers`.
  const recs = (await daemon.api('GET', '/api/records?kind=drift')).body.records;
  const rec = recs.find((r) => r.ask_id === decided).record;
  assert.equal(rec.answers, undefined);
  assert.equal(rec.result.decision, 'revise');
  assert.equal(rec.result.note, 'Users already have Nextcloud');

  for (const scheme of ['light', 'dark']) {
    const { context, page, problems } = await openContext(browser, daemon, { viewport: DESKTOP, colorScheme: scheme });
    await page.goto(`${daemon.url}/records?kind=drift`);
    await page.waitForSelector(`.rec[data-ask-id="${decided}"]`);
    const row = page.locator(`.rec[data-ask-id="${decided}"]`);
    assert.equal(await row.locator('.answer-none').count(), 0, 'not "No answers (settled as Answered)"');
    assert.equal(await row.locator('.rec-title').textContent(), 'Requirement drift');
    assert.equal(await row.locator('.drift-verdict').textContent(), 'Redirected: “Sync through WebDAV” (one of the offered directions)');
    assert.equal(await row.locator('.drift-note').textContent(), 'Note: Users already have Nextcloud');
    assert.match(await row.locator('.rec-drift-change').textContent(), /Required change to the baseline: Drop "No server component"/);
    const other = page.locator(`.rec[data-ask-id="${dismissed}"]`);
    assert.equal(await other.locator('.drift-verdict').textContent(), 'Closed without a decision');
    assert.equal(await other.locator('.answer-none').count(), 0);
    await page.screenshot({ path: screenshotPath(`desk-d-5-records-drift-${scheme}`) });
    assert.deepEqual(problems, []);
    await context.close();
  }
  // In Chinese too.
  const { context, page, problems } = await openContext(browser, daemon, { viewport: PHONE, locale: 'zh-CN' });
  await page.goto(`${daemon.url}/records?kind=drift`);
  await page.waitForSelector(`.rec[data-ask-id="${decided}"] .drift-verdict`);
  assert.match(await page.textContent(`.rec[data-ask-id="${decided}"] .drift-verdict`), /Sync through WebDAV/);
  assert.doesNotMatch(await page.textContent(`.rec[data-ask-id="${decided}"]`), /没有回答/);
  await page.screenshot({ path: screenshotPath('desk-d-5-records-drift-zh-phone') });
  assert.deepEqual(problems, []);
  await context.close();
});

// ---------------------------------------------------------------- 11. Records filters in the URL

test('desk_d_11_records_filters_live_in_the_url_back_and_reload_keep_them', async () => {
  const sid = await session(daemon, 'codex', '/home/me/url-filters');
  const ids = [];
  for (const q of ['Which zebra store?', 'Which zebra index?', 'Which cache?']) {
    const id = await daemon.createQuestions([{ id: 'q', question: q, options: [{ label: 'A' }, { label: 'B' }] }], sid);
    assert.equal((await daemon.api('POST', `/api/asks/${id}/submit`, { answers: [{ id: 'q', selected: ['A'] }] })).status, 200);
    ids.push(id);
  }
  const { context, page, problems } = await openContext(browser, daemon, { viewport: DESKTOP });
  await page.waitForSelector('.inbox-title');
  await page.click('.inbox-head a[href="/records"]');
  await page.waitForSelector('.rec-list .rec');
  await page.selectOption('.rec-session', sid);
  await page.selectOption('.rec-kind', 'questions');
  await page.fill('.rec-text', 'zebra');
  const day = (d) => `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
  await page.fill('.rec-from', day(new Date()));
  await page.waitForFunction(() => document.querySelectorAll('.rec-list .rec').length === 2 && /q=zebra/.test(location.search));
  const url = new URL(page.url());
  assert.equal(url.pathname, '/records');
  assert.deepEqual(Object.fromEntries(url.searchParams), { session: sid, kind: 'questions', from: day(new Date()), q: 'zebra' });
  const shown = () => page.$$eval('.rec-list .rec', (els) => els.map((el) => el.dataset.askId).sort());
  const want = [ids[0], ids[1]].sort();
  const restored = async () => {
    await page.waitForFunction(() => document.querySelectorAll('.rec-list .rec').length === 2);
    assert.equal(await page.inputValue('.rec-session'), sid);
    assert.equal(await page.inputValue('.rec-kind'), 'questions');
    assert.equal(await page.inputValue('.rec-text'), 'zebra');
    assert.equal(await page.inputValue('.rec-from'), day(new Date()));
    assert.deepEqual(await shown(), want);
  };
  // Open a record, then Back: the same filters and the same list.
  await page.click(`.rec[data-ask-id="${ids[0]}"] a.btn`);
  await page.waitForSelector('.card.settled');
  await page.goBack();
  await page.waitForSelector('.rec-list');
  await restored();
  // A reload keeps them too.
  await page.reload();
  await page.waitForSelector('.rec-list');
  await restored();
  // Clearing a filter takes it out of the URL; Back from Records returns to the inbox.
  await page.fill('.rec-text', '');
  await page.waitForFunction(() => !/q=/.test(location.search));
  await page.goBack();
  await page.waitForSelector('.inbox-title');
  assert.deepEqual(problems, []);
  await context.close();
});

// ---------------------------------------------------------------- 9. review at scale

/** A daemon of its own that takes 500-item reviews, and such a review: 10 groups of 50. */
async function bigReview() {
  process.env.ASKD_BATCH_REVIEW_MAX_ITEMS = '500';
  const big = await startDaemon();
  delete process.env.ASKD_BATCH_REVIEW_MAX_ITEMS;
  const items = [];
  for (let i = 1; i <= 500; i++) {
    const group = `Area ${Math.ceil(i / 50)}`;
    if (i % 10 === 7) items.push({ id: i, type: 'bool', label: `Flag ${i}`, group });
    else items.push({ id: i, title: `Check number ${i}`, group, expect: i === 321 ? 'The zeppelin lands' : 'Works' });
  }
  const r = await big.api('POST', '/api/asks', { kind: 'review', args: { title: 'Huge review', items } });
  assert.equal(r.status, 201, JSON.stringify(r.body));
  return { big, id: r.body.ask_id };
}

const row = (id) => `.rv-row[data-id="${id}"]`;

/** Picks what the review's status filter shows; the time from the change to the next frame, in ms. */
const showTimed = (page, value) => page.evaluate((v) => new Promise((resolve) => {
  const sel = document.querySelector('.rv-show');
  const t = performance.now();
  sel.value = v;
  sel.dispatchEvent(new Event('change'));
  requestAnimationFrame(() => setTimeout(() => resolve(performance.now() - t), 0));
}), value);
const shownRows = (page) => page.$$eval('.rv-row', (els) => els.filter((el) => el.offsetParent !== null).map((el) => el.dataset.id));

test('desk_d_9_a_500_item_review_on_a_desktop_wide_column_filter_search_jump', async () => {
  const { big, id } = await bigReview();
  try {
    const { context, page, problems } = await openContext(browser, big, { viewport: DESKTOP });
    await page.goto(`${big.url}/a/${id}`);
    await page.waitForSelector(row('500'), { state: 'attached' });
    // The page's width, not a 720 px column; rows put the verdicts beside the text.
    const width = await page.$eval('form.rv', (el) => el.getBoundingClientRect().width);
    const rowH = await page.$eval(row('1'), (el) => el.getBoundingClientRect().height);
    console.log(`# desktop review: panel ${Math.round(width)} px wide, a row ${Math.round(rowH)} px high`);
    assert.ok(width >= 1000, `panel ${width} px wide`);
    assert.ok(rowH <= 90, `row ${rowH} px high`);
    // Three fails, one pending; then "Failed only".
    for (const n of ['12', '250', '499']) await page.click(`${row(n)} .rv-opt[data-v="fail"]`);
    await page.click(`${row('13')} .rv-opt[data-v="pending"]`);
    const filterMs = await showTimed(page, 'fail');
    console.log(`# 500 items: the "Failed only" filter toggle takes ${filterMs.toFixed(1)} ms to the next frame`);
    assert.deepEqual(await shownRows(page), ['12', '250', '499']);
    assert.equal(await page.textContent('.rv-shown'), '3 of 500 shown');
    assert.equal(await page.locator('.rv-section:visible').count(), 3, 'sections without a shown row are hidden');
    await page.screenshot({ path: screenshotPath('desk-d-9-review-failed-only') });
    // Passing one of them takes it out of the list and the focus moves on to the next one shown.
    await page.focus(row('250'));
    await page.keyboard.press('1');
    assert.deepEqual(await shownRows(page), ['12', '499']);
    assert.equal(await page.evaluate(() => document.activeElement.dataset.id), '499');
    await page.selectOption('.rv-show', 'pending');
    assert.deepEqual(await shownRows(page), ['13']);
    await page.selectOption('.rv-show', 'unfilled');
    assert.equal((await shownRows(page)).length, 496);
    const backMs = await showTimed(page, 'all');
    console.log(`# 500 items: back to "All items" takes ${backMs.toFixed(1)} ms to the next frame`);
    assert.equal((await shownRows(page)).length, 500);
    assert.equal(await page.isHidden('.rv-shown'), true);
    // The search: titles, lines and notes; "/" focuses it; keys typed there are text.
    await page.focus(row('1'));
    await page.keyboard.press('/');
    assert.equal(await page.evaluate(() => document.activeElement.classList.contains('rv-search')), true);
    await page.keyboard.type('zeppelin');
    await page.waitForFunction(() => document.querySelector('.rv-shown').textContent === '1 of 500 shown');
    assert.deepEqual(await shownRows(page), ['321']);
    await page.keyboard.press('Enter');
    assert.equal(await page.evaluate(() => document.activeElement.dataset.id), '321');
    await page.fill('.rv-search', 'flag 147');
    await page.waitForSelector(`${row('321')}:not(:visible)`, { state: 'attached' });
    await page.waitForSelector(`${row('147')}:visible`);
    assert.deepEqual(await shownRows(page), ['147']);
    await page.fill('.rv-search', 'nothing like this');
    await page.waitForSelector('.rv-nomatch:visible');
    await page.click('.rv-show-all');
    assert.equal((await shownRows(page)).length, 500);
    assert.equal(await page.inputValue('.rv-search'), '');
    // Jump to a group: its head lands under the sticky bar, its first row takes the focus.
    const groups = await page.$$eval('.rv-jump option', (els) => els.map((o) => o.textContent));
    assert.equal(groups.length, 11);
    assert.equal(groups[7], 'Area 7 (50)');
    await page.selectOption('.rv-jump', '6');
    await page.waitForTimeout(100);
    const jump = await page.evaluate(() => {
      const sec = document.querySelectorAll('.rv-section')[6];
      return { top: sec.getBoundingClientRect().top, sticky: document.querySelector('.rv-sticky').getBoundingClientRect().bottom, focus: document.activeElement.dataset.id, pick: document.querySelector('.rv-jump').value };
    });
    assert.equal(jump.focus, '301');
    assert.ok(jump.top >= jump.sticky - 2 && jump.top <= jump.sticky + 60, `section top ${jump.top}, sticky bar ends ${jump.sticky}`);
    assert.equal(jump.pick, '', 'the control is ready for the next jump');
    await page.screenshot({ path: screenshotPath('desk-d-9-review-jump') });
    // "1 item" (not "1 items"); the blue, focused button of the dialog is the safe one.
    await page.click('.rv-section >> nth=0 >> .rv-all-pass');
    await page.waitForSelector('dialog[open][role="alertdialog"]');
    assert.equal(await page.textContent('dialog[open] .dialog-text'), '1 item marked Fail would become Pass');
    assert.equal(await page.getAttribute('dialog[open] .btn.primary', 'value'), 'rest');
    assert.equal(await page.evaluate(() => document.activeElement.value), 'rest');
    assert.equal(await page.locator('dialog[open] .btn.danger').getAttribute('value'), 'all');
    const colors = await page.evaluate(() => {
      const c = (sel) => getComputedStyle(document.querySelector(sel)).backgroundColor;
      return { primary: c('dialog[open] .btn.primary'), danger: getComputedStyle(document.querySelector('dialog[open] .btn.danger')).color };
    });
    assert.notEqual(colors.primary, colors.danger);
    await page.screenshot({ path: screenshotPath('desk-d-9-review-fail-dialog') });
    await page.keyboard.press('Enter');
    assert.equal(await page.getAttribute(`${row('12')} .rv-opt[data-v="fail"]`, 'aria-checked'), 'true', 'Enter keeps the fail');
    assert.match(await page.textContent('.rv-notice'), /^Changed 44 items/);
    assert.deepEqual(problems, []);
    await context.close();
  } finally {
    await big.stop();
  }
});

test('desk_d_9_a_500_item_review_on_a_phone_shows_the_first_item_near_the_top', async () => {
  const { big, id } = await bigReview();
  try {
    for (const scheme of ['light', 'dark']) {
      const { context, page, problems } = await openContext(browser, big, { viewport: PHONE, colorScheme: scheme });
      await page.goto(`${big.url}/a/${id}`);
      await page.waitForSelector(row('1'));
      const y = await page.$eval(row('1'), (el) => el.getBoundingClientRect().top + window.scrollY);
      console.log(`# phone review (${scheme}): the first item starts at y = ${Math.round(y)} px`);
      assert.ok(y <= 300, `the first item starts at ${y} px`);
      // Search and the status filter are on screen; the rest is behind More.
      assert.equal(await page.isVisible('.rv-search'), true);
      assert.equal(await page.isVisible('.rv-show'), true);
      assert.equal(await page.isVisible('.rv-bar .rv-all-pass'), false);
      assert.equal(await page.isVisible('.rv-hint'), false);
      await page.screenshot({ path: screenshotPath(`desk-d-9-review-phone-${scheme}`) });
      await page.click('.rv-more');
      assert.equal(await page.getAttribute('.rv-more', 'aria-expanded'), 'true');
      assert.equal(await page.isVisible('.rv-bar .rv-all-pass'), true);
      assert.equal(await page.isVisible('.rv-jump'), true);
      assert.equal(await page.isVisible('.rv-hint'), true);
      // Every control of the bar is a whole tap target, and nothing scrolls sideways.
      const small = await page.$$eval('.rv-bar button, .rv-bar select, .rv-bar input:not([type="file"]), .rv-bar a', (els) => els
        .filter((el) => el.getBoundingClientRect().width > 0)
        .filter((el) => el.getBoundingClientRect().height < 43.5).map((el) => el.className));
      assert.deepEqual(small, []);
      assert.ok(await page.evaluate(() => document.documentElement.scrollWidth) <= PHONE.width);
      await page.screenshot({ path: screenshotPath(`desk-d-9-review-phone-more-${scheme}`) });
      assert.deepEqual(problems, []);
      await context.close();
    }
  } finally {
    await big.stop();
  }
});

test('desk_d_9_plurals_in_english_and_chinese', async () => {
  const create = async (args) => {
    const r = await daemon.api('POST', '/api/asks', { kind: 'review', args });
    assert.equal(r.status, 201, JSON.stringify(r.body));
    return r.body.ask_id;
  };
  const en = await create({ title: 'Two checks', items: [{ id: 'a', title: 'Copy works' }, { id: 'b', title: 'Paste works' }] });
  const zh = await create({ title: '两项检查', items: [{ id: 'a', title: '复制可用' }, { id: 'b', title: '粘贴可用' }] });
  const { context, page, problems } = await openContext(browser, daemon, { viewport: DESKTOP });
  for (const [id, title, done] of [[en, '1 item marked Fail would become Pass', 'Changed 1 item'], [zh, '1 条已标为不通过的条目会变为通过', '已批量修改 1 条']]) {
    await page.goto(`${daemon.url}/a/${id}`);
    await page.waitForSelector('form.rv-panel');
    await page.click(`${row('a')} .rv-opt[data-v="fail"]`);
    await page.click(`${row('b')} .rv-opt[data-v="pass"]`);
    await page.click('.rv-bar .rv-all-pass');
    await page.waitForSelector('dialog[open][role="alertdialog"]');
    assert.equal(await page.textContent('dialog[open] .dialog-text'), title);
    await page.click('dialog[open] button[value="rest"]');
    assert.match(await page.textContent('.rv-notice'), new RegExp(`^${done}`));
  }
  assert.deepEqual(problems, []);
  await context.close();
});

// ---------------------------------------------------------------- 11. the inbox

test('desk_d_11_inbox_dense_rows_filters_by_session_and_kind_and_bulk_put_away_and_cancel', async () => {
  const d = await startDaemon();
  try {
    const s1 = await session(d, 'claude-code', '/home/me/shop');
    const s2 = await session(d, 'codex', '/home/me/blog');
    const surveys = [];
    for (let i = 0; i < 3; i++) surveys.push(await d.createSurvey(branchingSurvey({ title: `Checkout step ${i}` }), s1));
    const q1 = await d.createQuestions([{ id: 'db', question: 'Which database?', options: [{ label: 'SQLite' }, { label: 'PostgreSQL' }] }], s1);
    const q2 = await d.createQuestions([{ id: 'theme', question: 'Which blog theme?', options: [{ label: 'Light' }, { label: 'Dark' }] }], s2);
    const rv = (await d.api('POST', '/api/asks', { kind: 'review', session: s2, args: { title: 'Post checklist', items: [{ id: 'a', title: 'Links work' }, { id: 'b', title: 'Images load' }] } })).body.ask_id;
    const all = [...surveys, q1, q2, rv];

    // Row heights, desktop and phone.
    const heights = {};
    for (const [name, viewport] of [['desktop', DESKTOP], ['phone', PHONE]]) {
      const { context, page, problems } = await openContext(browser, d, { viewport });
      await page.waitForSelector(`.ask-row[data-ask-id="${rv}"]`);
      const hs = await page.$$eval('.session .ask-row', (els) => els.map((el) => el.getBoundingClientRect().height));
      heights[name] = Math.max(...hs);
      await page.screenshot({ path: screenshotPath(`desk-d-11-inbox-${name}`) });
      assert.deepEqual(problems, []);
      await context.close();
    }
    console.log(`# inbox rows: at most ${Math.round(heights.desktop)} px on a desktop, ${Math.round(heights.phone)} px on a phone (80 px each before)`);
    assert.ok(heights.desktop <= 56, `desktop row ${heights.desktop} px`);
    assert.ok(heights.phone <= 68, `phone row ${heights.phone} px`);

    const { context, page, problems } = await openContext(browser, d, { viewport: DESKTOP });
    await page.waitForSelector(`.ask-row[data-ask-id="${rv}"]`);
    const rows = () => page.$$eval('.session .ask-row', (els) => els.map((el) => el.dataset.askId));
    // Filters: by session, then by kind; both in the URL; the tab keeps them.
    await page.selectOption('.inbox-session', s2);
    await page.waitForFunction(() => document.querySelectorAll('.session .ask-row').length === 2);
    assert.deepEqual((await rows()).sort(), [q2, rv].sort());
    assert.equal(new URL(page.url()).searchParams.get('session'), s2);
    assert.equal(await page.textContent('.inbox-filtered'), 'Showing 2 of 6. Clear filters');
    await page.selectOption('.inbox-kind', 'review');
    await page.waitForFunction(() => document.querySelectorAll('.session .ask-row').length === 1);
    assert.deepEqual(await rows(), [rv]);
    await page.selectOption('.inbox-session', '');
    await page.selectOption('.inbox-kind', 'survey');
    await page.waitForFunction(() => document.querySelectorAll('.session .ask-row').length === 3);
    assert.deepEqual((await rows()).sort(), [...surveys].sort());
    assert.equal(new URL(page.url()).search, '?kind=survey');
    await page.click(`.ask-row[data-ask-id="${surveys[0]}"] .ask-link`);
    await page.waitForSelector('.card.wizard');
    await page.click('.head-tools .tool[aria-label="Put away"]');
    await page.waitForSelector('.inbox-title');
    assert.equal(await page.inputValue('.inbox-kind'), 'survey', 'coming back keeps the filter');
    assert.equal((await rows()).length, 3);
    await page.click('.inbox-clear');
    await page.waitForFunction(() => document.querySelectorAll('.session .ask-row').length === 6);
    assert.equal(new URL(page.url()).search, '');

    // Select: a checkbox per ask, shift+click for a run, x on the focused row, select all.
    assert.equal(await page.isHidden('.inbox-actions'), true);
    await page.check(`.ask-row[data-ask-id="${surveys[0]}"] .ask-pick-box`);
    await page.click(`.ask-row[data-ask-id="${surveys[2]}"] .ask-pick-box`, { modifiers: ['Shift'] });
    assert.equal(await page.textContent('.inbox-picked'), '3 selected');
    assert.equal(await page.evaluate(() => document.querySelector('.inbox-all-box').indeterminate), true);
    await page.focus(`.ask-row[data-ask-id="${q1}"] .ask-link`);
    await page.keyboard.press('x');
    assert.equal(await page.textContent('.inbox-picked'), '4 selected');
    await page.keyboard.press('x');
    assert.equal(await page.textContent('.inbox-picked'), '3 selected');
    // Put away: out of the list (and the count), still open, under "Put away"; Bring back.
    await page.click('.inbox-put-away');
    await page.waitForSelector('.away-list');
    assert.equal(await page.locator('.session .ask-row').count(), 3);
    assert.equal(await page.locator('.away-list .ask-row').count(), 3);
    assert.equal(await page.title(), '(3) askd');
    assert.equal(await page.textContent('.inbox-notice'), 'Put away 3 asks. They stay open under “Put away”.');
    for (const id of surveys) assert.equal((await d.view(id)).state, 'pending', 'put away sends nothing');
    await page.screenshot({ path: screenshotPath('desk-d-11-inbox-put-away') });
    await page.reload();
    await page.waitForSelector('.away-list');
    assert.equal(await page.locator('.away-list .ask-row').count(), 3, 'this browser remembers');
    await page.check(`.away-list .ask-row[data-ask-id="${surveys[1]}"] .ask-pick-box`);
    assert.equal(await page.isVisible('.inbox-put-away'), false);
    await page.click('.inbox-bring-back');
    await page.waitForFunction((id) => document.querySelector(`.session .ask-row[data-ask-id="${id}"]`), surveys[1]);
    assert.equal(await page.textContent('.inbox-notice'), 'Brought back 1 ask.');
    // Cancel: a confirmation naming how many, its safe choice blue and focused.
    await page.check(`.ask-row[data-ask-id="${q2}"] .ask-pick-box`);
    await page.check(`.ask-row[data-ask-id="${rv}"] .ask-pick-box`);
    await page.click('.inbox-cancel');
    await page.waitForSelector('dialog[open]');
    assert.equal(await page.textContent('dialog[open] .dialog-text'), 'Cancel 2 asks? Each agent is told you cancelled it. This cannot be undone.');
    assert.deepEqual(await page.$$eval('dialog[open] .inbox-cancel-list li', (els) => els.map((el) => el.textContent)), ['Post checklist', 'Which blog theme?'], 'newest first, as listed');
    assert.equal(await page.textContent('dialog[open] .btn.danger'), 'Cancel 2 asks');
    assert.equal(await page.textContent('dialog[open] .btn.primary'), 'Keep them');
    assert.equal(await page.evaluate(() => document.activeElement.textContent), 'Keep them');
    await page.screenshot({ path: screenshotPath('desk-d-11-inbox-cancel-dialog') });
    await page.keyboard.press('Escape');
    assert.equal((await d.view(q2)).state, 'pending');
    await page.click('.inbox-cancel');
    await page.click('dialog[open] .btn.danger');
    await page.waitForSelector('.inbox-notice:has-text("Cancelled 2 asks.")');
    for (const id of [q2, rv]) assert.equal((await d.view(id)).outcome, 'cancelled');
    await page.waitForFunction(() => document.querySelectorAll('.session .ask-row').length === 2);
    assert.equal(await page.isHidden('.inbox-actions'), true);
    // One ask: the singular.
    await page.check(`.ask-row[data-ask-id="${q1}"] .ask-pick-box`);
    await page.click('.inbox-cancel');
    assert.equal(await page.textContent('dialog[open] .dialog-text'), 'Cancel 1 ask? Its agent is told you cancelled it. This cannot be undone.');
    await page.click('dialog[open] .btn.primary');
    assert.equal((await d.view(q1)).state, 'pending');
    assert.deepEqual(problems, []);
    await context.close();

    // A phone: the bar's controls are whole tap targets and the rows stay one column.
    const phone = await openContext(browser, d, { viewport: PHONE, colorScheme: 'dark' });
    await phone.page.waitForSelector(`.ask-row[data-ask-id="${q1}"]`);
    await phone.page.check(`.ask-row[data-ask-id="${q1}"] .ask-pick-box`);
    const small = await phone.page.$$eval('.inbox-bar button, .inbox-bar select, .inbox-all, .ask-pick', (els) => els
      .filter((el) => el.getBoundingClientRect().width > 0 && el.getBoundingClientRect().height < 43.5).map((el) => el.className));
    assert.deepEqual(small, []);
    assert.ok(await phone.page.evaluate(() => document.documentElement.scrollWidth) <= PHONE.width);
    await phone.page.screenshot({ path: screenshotPath('desk-d-11-inbox-phone-dark-selected') });
    assert.deepEqual(phone.problems, []);
    await phone.context.close();
  } finally {
    await d.stop();
  }
});

test('desk_d_strings_in_both_languages_with_the_same_placeholders', async () => {
  // The review panel's and the inbox's own tables (loaded with those modules only).
  const { context, page, problems } = await openContext(browser, daemon);
  const tables = await page.evaluate(async () => ({
    review: (await import('/assets/js/review.js')).REVIEW_STRINGS,
    inbox: (await import('/assets/js/inbox.js')).INBOX_STRINGS,
  }));
  const en = await import('../../ui/i18n/en.js');
  for (const [name, { en: e, zh }] of Object.entries(tables)) {
    assert.deepEqual(Object.keys(zh).sort(), Object.keys(e).sort(), name);
    for (const k of Object.keys(e)) {
      assert.notEqual(zh[k].trim(), '', k);
      assert.deepEqual((zh[k].match(/\{\w+\}/g) || []).sort(), (e[k].match(/\{\w+\}/g) || []).sort(), k);
      assert.equal(k in en.default, false, `${k} is in one table only`);
    }
  }
  // Every English string about a count has its form for 1, and it is singular.
  const all = { ...tables.review.en, ...tables.inbox.en };
  for (const k of ['review.failTitle', 'review.bulkDone', 'review.importBlank', 'review.offlineTotal', 'review.importProblems', 'inbox.cancel.confirm', 'inbox.cancel.yes', 'inbox.cancel.done', 'inbox.putAway.done', 'inbox.bringBack.done']) {
    assert.ok(all[`${k}.one`], `${k}.one`);
    assert.doesNotMatch(all[`${k}.one`], /\b1 (items|asks|problems)\b/, k);
  }
  assert.deepEqual(problems, []);
  await context.close();
});

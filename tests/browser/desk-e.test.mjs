// Issue 30, items 3, 6 (the Settings half), 7 and 12, in real Chromium through the real
// daemon: a long question header wraps (no horizontal scroll at 390 px, nothing cut on a
// desktop); Settings → Pair a phone warns when the link names a loopback address; the session
// page's Questions on a phone and a desktop (every column readable, tool names whole, rows
// grouped by ask, an open drift shown once); the drift card on a phone (the baseline folded
// so Approve is on the first screen, the session link readable).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startDaemon, launchBrowser, openContext, screenshotPath, seedDesk, branchingSurvey } from './helpers.mjs';

const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1280, height: 800 };

let daemon;
let browser;
let desk;

before(async () => {
  daemon = await startDaemon();
  browser = await launchBrowser();
  desk = Object.fromEntries((await seedDesk(daemon)).map((p) => [p.name, p]));
});

after(async () => {
  await browser?.close();
  await daemon?.stop();
});

/** The document's width beyond the viewport (0: no horizontal scroll). */
const overflowX = (page) => page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);

/** Whether each element matching `sel` shows all its text: not clipped, inside the viewport. */
const wholeOnScreen = (page, sel) => page.locator(sel).evaluateAll((els) => els.map((el) => {
  const r = el.getBoundingClientRect();
  const clipped = el.scrollWidth > el.clientWidth + 1 || el.scrollHeight > el.clientHeight + 1;
  return { text: el.textContent.slice(-12), clipped, left: Math.round(r.left), right: Math.round(r.right), vw: innerWidth };
}).filter((x) => x.clipped || x.left < 0 || x.right > x.vw));

// ---------------------------------------------------------------- 3. a long question header

for (const [kind, header] of [['words', `${'Deployment target region '.repeat(8)}`.slice(0, 200).trim()], ['one token', `${'x'.repeat(197)}END`]]) {
  test(`item 3: a 200-character header (${kind}) wraps in the wizard (and a 40-character one in the questions card), phone and desktop`, async () => {
    assert.ok(header.length >= 199 && header.length <= 200);
    const survey = branchingSurvey();
    survey.questions.q1.header = header;
    const sid = await daemon.createSurvey(survey);
    // The questions tool keeps AskUserQuestion's limit of 40 characters.
    const flat = await daemon.createQuestions([
      { id: 'db', header: header.slice(0, 40), question: 'Which database?', options: [{ label: 'SQLite' }, { label: 'PostgreSQL' }] },
    ]);
    for (const [device, viewport] of [['phone', PHONE], ['desktop', DESKTOP]]) {
      const { context, page, problems } = await openContext(browser, daemon, { viewport });
      await page.goto(`${daemon.url}/a/${sid}`);
      await page.waitForSelector('.card.wizard');
      if (await page.getAttribute('.card.wizard', 'data-position') === 'intro') await page.click('.seg.primary');
      await page.waitForSelector('.card.wizard[data-position="q1"] .header-chip');
      assert.equal(await overflowX(page), 0, `${device} wizard: no horizontal scroll`);
      assert.deepEqual(await wholeOnScreen(page, '.header-chip'), [], `${device} wizard: the header is whole`);
      assert.equal(await page.textContent('.header-chip'), header);
      await page.screenshot({ path: screenshotPath(`desk-e-header-wizard-${kind.replace(' ', '-')}-${device}`) });
      await page.goto(`${daemon.url}/a/${flat}`);
      await page.waitForSelector('.card.flat .header-chip');
      assert.equal(await overflowX(page), 0, `${device} questions: no horizontal scroll`);
      assert.deepEqual(await wholeOnScreen(page, '.header-chip'), [], `${device} questions: the headers are whole`);
      await page.screenshot({ path: screenshotPath(`desk-e-header-questions-${kind.replace(' ', '-')}-${device}`) });
      assert.deepEqual(problems, []);
      await context.close();
    }
  });
}

// ---------------------------------------------------------------- 6. pairing on loopback

test('item 6: Settings → Pair a phone warns that a phone cannot reach a loopback link, and says what to do', async () => {
  for (const [lang, locale, pattern] of [['en', 'en-US', /loopback address \(127\.0\.0\.1\), which a phone cannot reach.*publicUrl.*--listen 0\.0\.0\.0:\d+/s], ['zh-CN', 'zh-CN', /回环地址（127\.0\.0\.1）.*手机无法访问.*publicUrl.*--listen 0\.0\.0\.0:\d+/s]]) {
    for (const [device, viewport] of [['phone', PHONE], ['desktop', DESKTOP]]) {
      const { context, page, problems } = await openContext(browser, daemon, { viewport, locale });
      await page.goto(`${daemon.url}/settings`);
      await page.waitForSelector('.st-pair-btn');
      await page.click('.st-pair-btn');
      await page.waitForSelector('img.st-qr');
      const warning = page.locator('.st-pair-warning');
      assert.equal(await warning.isVisible(), true, `${lang} ${device}: the warning shows`);
      assert.match(await warning.textContent(), pattern, `${lang} ${device}`);
      // It is said before the code, where the eye lands first, and announced.
      assert.equal(await page.evaluate(() => {
        const w = document.querySelector('.st-pair-warning');
        return !!(w.compareDocumentPosition(document.querySelector('img.st-qr')) & Node.DOCUMENT_POSITION_FOLLOWING);
      }), true);
      assert.equal(await warning.getAttribute('role'), 'alert');
      assert.equal(await overflowX(page), 0, `${device}: no horizontal scroll`);
      await warning.scrollIntoViewIfNeeded();
      await page.screenshot({ path: screenshotPath(`desk-e-pair-loopback-${lang}-${device}`) });
      assert.deepEqual(problems, []);
      await context.close();
    }
  }
});

test('item 6: with publicUrl set, the pairing link names it and no warning shows', async () => {
  const remote = await startDaemon({ env: { ASKD_PUBLIC_URL: 'https://askd.example' } });
  try {
    const { context, page, problems } = await openContext(browser, remote, { viewport: DESKTOP });
    await page.goto(`${remote.url}/settings`);
    await page.click('.st-pair-btn');
    await page.waitForSelector('.st-pair-url');
    assert.match(await page.textContent('.st-pair-url'), /^https:\/\/askd\.example\/pair\//);
    assert.equal(await page.locator('.st-pair-warning').count(), 0);
    assert.deepEqual(problems, []);
    await context.close();
  } finally {
    await remote.stop();
  }
});

// ---------------------------------------------------------------- 7. the session page

test('item 7: the session page on a phone shows every column of Questions, grouped by ask', async () => {
  const { context, page, problems } = await openContext(browser, daemon, { viewport: PHONE });
  await page.goto(`${daemon.url}${desk.session.path}`);
  await page.waitForSelector(desk.session.ready);
  const q = page.locator('[data-section="questions"]');
  // Grouped by ask: one group per ask (the survey's three decisions, the questions card's two).
  assert.deepEqual(await q.locator('tbody').evaluateAll((groups) => groups.map((g) => g.rows.length)), [3, 2]);
  assert.deepEqual(await q.locator('tbody').evaluateAll((groups) => groups.map((g) => new Set([...g.rows].map((r) => r.dataset.askId)).size)), [1, 1]);
  assert.equal(await overflowX(page), 0, 'no horizontal scroll');
  // What matters of each decision is on screen, inside the phone's width: when and by which
  // tool (once per ask), the question, what was chosen or typed.
  const texts = ['Which direction fits the release?', 'Ship the public API', 'REST endpoints', 'Migration guide',
    'Which database, answered?', 'PostgreSQL', 'tiny-service', 'ask_survey', 'ask_user_question'];
  for (const text of texts) {
    const el = q.getByText(text, { exact: true }).first();
    assert.equal(await el.isVisible(), true, `${text} visible`);
    const box = await el.boundingBox();
    assert.ok(box.x >= 0 && box.x + box.width <= PHONE.width + 0.5, `${text} inside the screen: ${JSON.stringify(box)}`);
  }
  // Each answer says what it is (the column's name stands beside it).
  assert.match(await q.locator('tbody tr').nth(1).innerText(), /Free text\s*REST endpoints/);
  assert.deepEqual(await wholeOnScreen(page, '[data-section="questions"] td.tool-name'), []);
  await q.scrollIntoViewIfNeeded();
  await page.screenshot({ path: screenshotPath('desk-e-session-questions-phone'), fullPage: true });
  assert.deepEqual(problems, []);
  await context.close();
});

test('item 7: on a desktop, tool names stay whole and the rows of one ask read as one group', async () => {
  const { context, page, problems } = await openContext(browser, daemon, { viewport: DESKTOP });
  await page.goto(`${daemon.url}${desk.session.path}`);
  await page.waitForSelector(desk.session.ready);
  // One line each: the name is never broken inside a word.
  const lines = await page.locator('[data-section="questions"] td').evaluateAll((cells) => cells.filter((c) => /^ask_/.test(c.textContent)).map((c) => {
    const r = document.createRange();
    r.selectNodeContents(c);
    return [c.textContent, new Set([...r.getClientRects()].map((x) => Math.round(x.top))).size];
  }));
  assert.deepEqual(lines, [['ask_survey', 1], ['ask_user_question', 1]], 'each ask names its tool once, on one line');
  // The time links once per ask, to that ask.
  const links = await page.locator('[data-section="questions"] tbody').evaluateAll((groups) => groups.map((g) => g.querySelectorAll('a[href^="/a/"]').length));
  assert.deepEqual(links, [1, 1]);
  await page.screenshot({ path: screenshotPath('desk-e-session-questions-desktop'), fullPage: true });
  assert.deepEqual(problems, []);
  await context.close();
});

test('item 7: an open drift is shown once on the session page (its log entry and its card do not repeat each other)', async () => {
  for (const [device, viewport] of [['phone', PHONE], ['desktop', DESKTOP]]) {
    const { context, page, problems } = await openContext(browser, daemon, { viewport });
    await page.goto(`${daemon.url}${desk.session.path}`);
    await page.waitForSelector('.drift-host .drift-card .drift-send');
    const shown = (text) => page.locator('[data-section="drifts"]').getByText(text).evaluateAll((els) => els.filter((e) => e.checkVisibility()).length);
    assert.equal(await shown('sync server'), 1, `${device}: the description once`);
    assert.equal(await shown('Drop "No server component" from the explicit constraints.'), 1, `${device}: the required change once`);
    assert.equal(await shown('Use export files'), 1, `${device}: each option once`);
    assert.equal(await shown('CSV and JSON exports.'), 1, `${device}: each option's description once`);
    // The Baseline section above shows the baseline; the embedded card does not repeat it.
    assert.equal(await page.locator('.drift-host .drift-baseline').count(), 0);
    // The card still decides: its directions and actions are there.
    assert.equal(await page.locator('.drift-host .dir-row').count(), 2);
    await page.locator('.drift-host').scrollIntoViewIfNeeded();
    await page.screenshot({ path: screenshotPath(`desk-e-session-drift-${device}`) });
    assert.deepEqual(problems, []);
    await context.close();
  }
});

// ---------------------------------------------------------------- 12. the drift card on a phone

test('item 12: the drift card on a phone folds the baseline, so Approve is on the first screen; the session link reads whole', async () => {
  const { context, page, problems } = await openContext(browser, daemon, { viewport: PHONE });
  await page.goto(`${daemon.url}${desk.drift.path}`);
  await page.waitForSelector('.drift-card .drift-send');
  assert.equal(await page.getAttribute('.drift-baseline', 'open'), null, 'the baseline is folded');
  const approve = await page.locator('.drift-action[data-action="approve"]').boundingBox();
  assert.ok(approve.y + approve.height <= PHONE.height, `Approve within the first screen: bottom at ${approve.y + approve.height}`);
  // The session link shows the session's id in full (it wraps rather than being cut).
  const sid = desk.session.path.split('/').pop();
  assert.equal(await page.textContent('.drift-origin .session-link'), `Session ${sid}`);
  assert.deepEqual(await wholeOnScreen(page, '.drift-origin'), []);
  assert.deepEqual(await wholeOnScreen(page, '.drift-origin .session-link'), []);
  assert.equal(await overflowX(page), 0);
  await page.screenshot({ path: screenshotPath('desk-e-drift-phone') });
  // Unfolded on demand.
  await page.click('.drift-baseline summary');
  assert.equal(await page.getAttribute('.drift-baseline', 'open'), '');
  assert.equal(await page.locator('.drift-baseline .bl-item.protected').first().isVisible(), true);
  assert.deepEqual(problems, []);
  await context.close();
  // A desktop keeps it open (there is room).
  const wide = await openContext(browser, daemon, { viewport: DESKTOP });
  await wide.page.goto(`${daemon.url}${desk.drift.path}`);
  await wide.page.waitForSelector('.drift-card .drift-send');
  assert.equal(await wide.page.getAttribute('.drift-baseline', 'open'), '');
  assert.deepEqual(wide.problems, []);
  await wide.context.close();
});

// Screenshots of the UI in light and dark (into target/screenshots/, for people to look at)
// and the page weight: HTML + JS + CSS a page loads, diagrams excluded, under 150 KB.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { startDaemon, launchBrowser, openContext, branchingSurvey, screenshotPath, seedDesk, ROOT } from './helpers.mjs';

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

for (const scheme of ['light', 'dark']) {
  test(`screenshots (${scheme}): intro, question with insight and diagram, bank chip, inbox`, async () => {
    const session = (await daemon.api('POST', '/api/sessions', { client: 'claude-code', workspace: '/home/me/shop' })).body.session.id;
    const id = await daemon.createSurvey(branchingSurvey({ title: `Release plan (${scheme})` }), session);
    await daemon.createQuestions([{ id: 'db', question: 'Which database?', options: [{ label: 'SQLite' }, { label: 'PostgreSQL' }] }]);
    const { context, page, problems } = await openContext(browser, daemon, { colorScheme: scheme, viewport: { width: 900, height: 760 } });
    await page.waitForSelector(`.ask-row[data-ask-id="${id}"]`);
    await page.screenshot({ path: screenshotPath(`${scheme}-inbox`), fullPage: true });
    await page.click(`.ask-row[data-ask-id="${id}"] .ask-link`);
    await page.waitForSelector('.card.wizard[data-position="intro"]');
    await page.screenshot({ path: screenshotPath(`${scheme}-intro`), fullPage: true });
    await page.click('.seg.primary');
    await page.waitForSelector('.card.wizard[data-position="q1"]');
    await page.click('.row[data-key="a"] .row-hit');
    await page.click('.row[data-key="a"] .tool[aria-label="Show details"]');
    await page.screenshot({ path: screenshotPath(`${scheme}-question-insight`), fullPage: true });
    await page.click('.row[data-key="a"] .tool[aria-label="Show diagram"]');
    await page.waitForSelector('.panel img.diagram');
    await page.waitForFunction(() => document.querySelector('.panel img.diagram')?.complete);
    await page.screenshot({ path: screenshotPath(`${scheme}-question-diagram`), fullPage: true });
    // A tooltip after 500 ms of hover.
    await page.hover('.seg[data-key="action.bank"]');
    await page.waitForSelector('.tooltip:not([hidden])');
    await page.click('.row[data-key="a"] .pencil');
    await page.fill('.row[data-key="a"] .justify-input', 'Partners are blocked on it.');
    await page.press('.row[data-key="a"] .justify-input', 'Enter');
    await page.click('.seg[data-key="action.bank"]');
    await page.waitForSelector('.bank-chip:has-text("1 banked")');
    await page.click('.seg[data-key="nav.prev"]');
    await page.waitForSelector('.locked-chip');
    await page.screenshot({ path: screenshotPath(`${scheme}-bank-chip`), fullPage: true });
    assert.deepEqual(problems, []);
    await context.close();
  });
}

// Every page of the desk on a desktop (1280×800) and a phone (390×844), light and dark:
// target/screenshots/page-<name>-<desktop|phone>-<scheme>.png, for people to look at.
test('screenshots of every page: desktop and phone, light and dark', async () => {
  const pages = await seedDesk(daemon);
  for (const scheme of ['light', 'dark']) {
    for (const [device, viewport] of [['desktop', { width: 1280, height: 800 }], ['phone', { width: 390, height: 844 }]]) {
      const { context, page, problems } = await openContext(browser, daemon, { colorScheme: scheme, viewport });
      for (const p of pages) {
        await page.goto(`${daemon.url}${p.path}`);
        await page.waitForSelector(p.ready);
        if (p.prepare) await p.prepare(page);
        await page.waitForTimeout(80);
        // The first screen as the person sees it (full page for the long ones too).
        await page.screenshot({ path: screenshotPath(`page-${p.name}-${device}-${scheme}`), fullPage: !/wizard|dialog/.test(p.name) });
      }
      assert.deepEqual(problems, []);
      await context.close();
    }
  }
});

// The budget: 170 KB decoded (it was 150 KB until issue 30's autosave, signed-out states,
// review at scale and accessibility fixes added about 16 KB to the wizard's first load; the
// next saving is app.css split by view — the review, inbox and session rules, ~20 KB, load
// only on their pages) and 56 KB on the wire (gzip), what a slow link actually waits for.
const DECODED_KB = 170;
const WIRE_KB = 56;

test('page weight: HTML + JS + CSS each page loads, under 170 KB (56 KB compressed)', async () => {
  let total = 0;
  const walk = (dir) => {
    for (const name of readdirSync(dir)) {
      const p = join(dir, name);
      if (statSync(p).isDirectory()) walk(p);
      else if (/\.(html|js|css)$/.test(name)) total += statSync(p).size;
    }
  };
  walk(join(ROOT, 'ui'));
  // What a page actually transfers on load (uncompressed bodies, diagrams excluded), from
  // the browser: the inbox, and a survey's wizard. Kind-specific modules (the review panel)
  // load only on their own page.
  // One load measures both: the decoded bodies (the budget) and what went over the wire
  // (the daemon gzips the UI's files by Accept-Encoding).
  const weigh = async (path, ready) => {
    // A fresh context: an empty cache, so every resource the page needs shows up.
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${daemon.url}${path}?token=${daemon.token}`);
    await page.waitForSelector(ready);
    const sizes = await page.evaluate(() => [...performance.getEntriesByType('resource')
      .filter((e) => /\/assets\//.test(e.name) && !/\.svg/.test(e.name)),
    performance.getEntriesByType('navigation')[0]]
      .reduce(([d, w], e) => [d + e.decodedBodySize, w + e.encodedBodySize], [0, 0]));
    // Every file comes from the versioned prefix (kept for a year; a new askd, new URLs).
    const unversioned = await page.evaluate(() => performance.getEntriesByType('resource')
      .map((e) => new URL(e.name).pathname)
      .filter((p) => p.startsWith('/assets/') && !p.startsWith('/assets/v/')));
    assert.deepEqual(unversioned, [], path);
    await context.close();
    return sizes;
  };
  const [inbox, inboxGz] = await weigh('/', '.inbox-title');
  const id = await daemon.createSurvey(branchingSurvey({ title: 'Weight' }));
  const [wizard, wizardGz] = await weigh(`/a/${id}`, '.card.wizard');
  console.log(`# page weight: inbox ${(inbox / 1024).toFixed(1)} KB, survey wizard ${(wizard / 1024).toFixed(1)} KB; ui/ holds ${(total / 1024).toFixed(1)} KB in all`);
  assert.ok(inbox < DECODED_KB * 1024, `inbox loads ${inbox} bytes`);
  assert.ok(wizard < DECODED_KB * 1024, `wizard loads ${wizard} bytes`);
  console.log(`# page weight compressed: inbox ${(inboxGz / 1024).toFixed(1)} KB, survey wizard ${(wizardGz / 1024).toFixed(1)} KB`);
  assert.ok(inboxGz * 2 < inbox, `the inbox goes compressed: ${inboxGz} of ${inbox} bytes`);
  assert.ok(wizardGz * 2 < wizard, `the wizard goes compressed: ${wizardGz} of ${wizard} bytes`);
  assert.ok(inboxGz < WIRE_KB * 1024 && wizardGz < WIRE_KB * 1024, `on the wire: inbox ${inboxGz}, wizard ${wizardGz} bytes`);
});

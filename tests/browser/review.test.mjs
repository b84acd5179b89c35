// The batch review's web surfaces (review.md §5): the one-question card, the one-screen panel
// (sections, bulk buttons, keyboard, notes, autosave, the blank-items confirmation) and a
// 500-item panel's responsiveness.
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

async function createReview(args) {
  const r = await daemon.api('POST', '/api/asks', { kind: 'review', args });
  if (r.status !== 201 && r.status !== 200) throw new Error(`create: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body.ask_id;
}

function twelveItems(title) {
  return {
    title,
    items: [
      { id: 'c1', title: 'Copy button copies the full path', group: 'Copy', detail: 'Try **both** panes.' },
      { id: 'c2', title: 'Copy keeps line breaks', group: 'Copy' },
      { id: 'c3', op: 'Copy an empty file', group: 'Copy' },
      { id: 'c4', title: 'Copy toast disappears', group: 'Copy', header: 'UX' },
      { id: 'd1', title: 'Download keeps the file name', group: 'Download', op: 'Click Download', expect: 'Original name' },
      { id: 'd2', title: 'Download of a large file', group: 'Download' },
      { id: 'd3', title: 'Download resumes', group: 'Download' },
      { id: 'g1', type: 'bool', label: 'Keep the gateway resident', boolDesc: 'Accept', group: 'Other' },
      { id: 'g2', type: 'choice', label: 'Connection mode', group: 'Other',
        options: [{ v: 'A', t: 'Direct 18080' }, { v: 'B', t: 'Via subagent' }] },
      { id: 'g3', type: 'choice', label: 'Platforms', multiSelect: true, group: 'Other',
        options: [{ v: 'linux', t: 'Linux' }, { v: 'mac', t: 'macOS' }, { v: 'win', t: 'Windows' }] },
      { id: 'g4', type: 'scale', label: 'Overall rating', min: 1, max: 5, group: 'Other' },
      { id: 'g5', type: 'text', label: 'Anything that looked off', group: 'Other' },
    ],
  };
}

const row = (id) => `.rv-row[data-id="${id}"]`;

test('a grouped 12-item review: bulk buttons, keyboard, notes, result', async () => {
  const id = await createReview(twelveItems('Acceptance: copy / download'));
  const { context, page, problems } = await openContext(browser, daemon);
  await page.goto(`${daemon.url}/a/${id}`);
  await page.waitForSelector('form.rv-panel');
  assert.equal(await page.locator('.rv-row').count(), 12);
  assert.equal(await page.locator('.rv-section').count(), 3);
  assert.equal(await page.textContent(`${row('c1')} .rv-detail-body strong`), 'both');
  assert.equal(await page.textContent(`${row('c3')} .rv-title`), 'Copy an empty file');
  assert.equal(await page.getAttribute(`${row('c1')} .rv-controls`, 'role'), 'radiogroup');
  assert.equal(await page.getAttribute(`${row('g3')} .rv-opt >> nth=0`, 'role'), 'checkbox');
  // Global All pass, then fail one, then the section's All pass asks first; keep the fail.
  await page.click('.rv-bar .rv-all-pass');
  assert.equal(await page.textContent('.rv-progress'), '7 of 12 filled · 7 pass · 0 fail · 0 pending');
  await page.click(`${row('c2')} .rv-opt[data-v="fail"]`);
  await page.click('.rv-section >> nth=0 >> .rv-all-pass');
  await page.waitForSelector('dialog[open][role="alertdialog"]:has-text("1 items marked Fail would become Pass")');
  await page.click('dialog[open] button[value="rest"]');
  assert.equal(await page.getAttribute(`${row('c2')} .rv-opt[data-v="fail"]`, 'aria-checked'), 'true');
  // All pending on the Download section, then undo it with Ctrl+Z.
  await page.click('.rv-section >> nth=1 >> .rv-all-pending');
  assert.equal(await page.getAttribute(`${row('d1')} .rv-opt[data-v="pending"]`, 'aria-checked'), 'true');
  await page.focus(row('d1'));
  await page.keyboard.press('Control+z');
  assert.equal(await page.getAttribute(`${row('d1')} .rv-opt[data-v="pass"]`, 'aria-checked'), 'true');
  // Keyboard: 3 → pending on d3; j moves to g1; 1 → yes; j, 2 → option B; j, 1 3 → linux + win;
  // j, 4 → scale 4; x clears and 4 again.
  await page.focus(row('d3'));
  await page.keyboard.press('3');
  await page.keyboard.press('j');
  await page.keyboard.press('1');
  await page.keyboard.press('j');
  await page.keyboard.press('2');
  await page.keyboard.press('j');
  await page.keyboard.press('1');
  await page.keyboard.press('3');
  await page.keyboard.press('j');
  await page.keyboard.press('4');
  await page.keyboard.press('x');
  assert.equal(await page.getAttribute(`${row('g4')} .rv-opt[data-v="4"]`, 'aria-checked'), 'false');
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('ArrowRight');
  assert.equal(await page.getAttribute(`${row('g4')} .rv-opt[data-v="3"]`, 'aria-checked'), 'true');
  await page.keyboard.press('4');
  // n opens the note; typing types (a digit is text there); Esc returns to the row.
  await page.focus(row('c2'));
  await page.keyboard.press('n');
  await page.keyboard.type('Loses the 2nd line');
  await page.keyboard.press('Escape');
  assert.equal(await page.evaluate(() => document.activeElement.getAttribute('data-id')), 'c2');
  await page.fill(`${row('g5')} .rv-note-input`, 'The toast overlaps the footer');
  // Undo is gone after a later change; clicking the chosen verdict again clears it.
  await page.click(`${row('c4')} .rv-opt[data-v="pass"]`);
  assert.equal(await page.getAttribute(row('c4'), 'data-verdict'), '');
  // Submit: the blank item is listed; Keep reviewing jumps to it.
  await page.keyboard.press('Control+Enter');
  await page.waitForSelector('dialog[open] .rv-blank-list li:has-text("Copy toast disappears")');
  assert.equal(await page.locator('dialog[open] .rv-blank-list li').count(), 1);
  await page.click('dialog[open] button[value="keep"]');
  assert.equal(await page.evaluate(() => document.activeElement.getAttribute('data-id')), 'c4');
  await page.screenshot({ path: screenshotPath('light-review-panel'), fullPage: true });
  await page.click('.rv-submit');
  await page.click('dialog[open] button[value="send"]');
  await page.waitForSelector('.card.settled:has-text("Sent to the agent")');
  const result = await daemon.result(id);
  assert.equal(result.outcome, 'answered');
  assert.equal(result.surface, 'panel');
  const got = Object.fromEntries(result.items.map((i) => [i.id, [i.verdict, i.note, i.filled]]));
  assert.deepEqual(got, {
    c1: ['pass', '', true], c2: ['fail', 'Loses the 2nd line', true], c3: ['pass', '', true], c4: ['', '', false],
    d1: ['pass', '', true], d2: ['pass', '', true], d3: ['pending', '', true],
    g1: ['yes', '', true], g2: ['B', '', true], g3: ['linux,win', '', true], g4: ['4', '', true],
    g5: ['', 'The toast overlaps the footer', true],
  });
  assert.deepEqual(result.items.find((i) => i.id === 'g3').selected, ['linux', 'win']);
  assert.deepEqual(result.summary, { total: 12, filled: 11, unfilled: 1, pass: 4, fail: 1, pending: 1, yes: 1, no: 0 });
  assert.deepEqual(problems, []);
  await context.close();
});

test('a reload mid-review restores every verdict and note', async () => {
  const id = await createReview(twelveItems('Reload check'));
  const { context, page, problems } = await openContext(browser, daemon);
  await page.goto(`${daemon.url}/a/${id}`);
  await page.waitForSelector('form.rv-panel');
  await page.click(`${row('c1')} .rv-opt[data-v="fail"]`);
  await page.click(`${row('c2')} .rv-opt[data-v="pending"]`);
  await page.click(`${row('g1')} .rv-opt[data-v="no"]`);
  await page.click(`${row('g2')} .rv-opt[data-v="A"]`);
  await page.click(`${row('g3')} .rv-opt[data-v="mac"]`);
  await page.click(`${row('g3')} .rv-opt[data-v="win"]`);
  await page.click(`${row('g4')} .rv-opt[data-v="2"]`);
  await page.click(`${row('d1')} .rv-add-note`);
  await page.keyboard.type('Name has a suffix');
  await page.fill(`${row('g5')} .rv-note-input`, 'Fine');
  await page.waitForTimeout(900);
  await page.reload();
  await page.waitForSelector('form.rv-panel');
  const checked = async (id, v) => page.getAttribute(`${row(id)} .rv-opt[data-v="${v}"]`, 'aria-checked');
  assert.equal(await checked('c1', 'fail'), 'true');
  assert.equal(await checked('c2', 'pending'), 'true');
  assert.equal(await checked('g1', 'no'), 'true');
  assert.equal(await checked('g2', 'A'), 'true');
  assert.equal(await checked('g3', 'mac'), 'true');
  assert.equal(await checked('g3', 'win'), 'true');
  assert.equal(await checked('g3', 'linux'), 'false');
  assert.equal(await checked('g4', '2'), 'true');
  assert.equal(await page.inputValue(`${row('d1')} .rv-note-input`), 'Name has a suffix');
  assert.equal(await page.isVisible(`${row('d1')} .rv-note-input`), true);
  assert.equal(await page.inputValue(`${row('g5')} .rv-note-input`), 'Fine');
  assert.equal(await page.textContent('.rv-progress'), '7 of 12 filled · 0 pass · 1 fail · 1 pending');
  // Cancel review settles it with no verdicts.
  await page.click('.rv-cancel');
  await page.click('dialog[open] button[value="yes"]');
  await page.waitForSelector('.card.settled');
  const result = await daemon.result(id);
  assert.equal(result.outcome, 'cancelled');
  assert.deepEqual(result.items, []);
  assert.deepEqual(problems, []);
  await context.close();
});

test('a one-item review is a card; a blank submit asks first', async () => {
  const id = await createReview({ title: 'One thing', items: [{ id: 'only', op: 'Restart askd', expect: 'No white screen' }] });
  const { context, page, problems } = await openContext(browser, daemon);
  await page.goto(`${daemon.url}/a/${id}`);
  await page.waitForSelector('form.rv-card');
  assert.equal(await page.locator('.rv-bar').count(), 0);
  await page.click('.rv-submit');
  await page.waitForSelector('dialog[open]:has-text("Submit without an answer?")');
  await page.click('dialog[open] button[value="keep"]');
  await page.keyboard.press('1');
  await page.keyboard.press('Control+Enter');
  await page.waitForSelector('.card.settled');
  const result = await daemon.result(id);
  assert.equal(result.surface, 'card');
  assert.equal(result.items[0].verdict, 'pass');
  assert.deepEqual(problems, []);
  await context.close();
});

for (const threshold of [500, 100]) {
  test(`a 500-item review stays responsive (virtualThreshold ${threshold})`, async () => {
    // A daemon of its own: maxItems 500 (the ceiling) and the given virtualThreshold.
    process.env.ASKD_BATCH_REVIEW_MAX_ITEMS = '500';
    process.env.ASKD_BATCH_REVIEW_VIRTUAL_THRESHOLD = String(threshold);
    const big = await startDaemon();
    delete process.env.ASKD_BATCH_REVIEW_MAX_ITEMS;
    delete process.env.ASKD_BATCH_REVIEW_VIRTUAL_THRESHOLD;
    try {
      const items = [];
      for (let i = 1; i <= 500; i++) {
        const kind = i % 10;
        const group = `Area ${Math.ceil(i / 50)}`;
        if (kind === 7) items.push({ id: i, type: 'bool', label: `Flag ${i}`, group });
        else if (kind === 8) items.push({ id: i, type: 'scale', label: `Rating ${i}`, group });
        else items.push({ id: i, title: `Check number ${i}`, group, expect: 'Works' });
      }
      const r = await big.api('POST', '/api/asks', { kind: 'review', args: { title: 'Huge review', items } });
      assert.equal(r.status, 201, JSON.stringify(r.body));
      const id = r.body.ask_id;
      const { context, page, problems } = await openContext(browser, big);
      const t0 = Date.now();
      await page.goto(`${big.url}/a/${id}`);
      await page.waitForSelector(row('500'), { state: 'attached' });
      const renderMs = Date.now() - t0;
      assert.equal(await page.locator('.rv-row').count(), 500);
      assert.equal(await page.isVisible('.rv-hint'), true);
      const virtual = await page.evaluate(() => document.querySelector('form.rv').classList.contains('rv-virtual'));
      assert.equal(virtual, threshold < 500);
      if (virtual) {
        assert.equal(await page.evaluate(() => getComputedStyle(document.querySelector('.rv-row')).contentVisibility), 'auto');
      }
      // Toggle a verdict and wait for the paint: in-page timing, click to the next frame.
      const frame = (selector) => page.evaluate((sel) => new Promise((resolve) => {
        const t = performance.now();
        document.querySelector(sel).click();
        requestAnimationFrame(() => setTimeout(() => resolve(performance.now() - t), 0));
      }), selector);
      const toggleMs = await frame('.rv-row[data-id="250"] .rv-opt[data-v="fail"]');
      const bulkMs = await frame('.rv-bar .rv-all-pending');
      console.log(`# 500 items, virtualThreshold ${threshold}: load+render ${renderMs} ms, toggle ${toggleMs.toFixed(1)} ms, global All pending ${bulkMs.toFixed(1)} ms`);
      assert.equal(await page.getAttribute(row('251'), 'data-verdict'), 'pending');
      assert.ok(renderMs < 5000, `render ${renderMs} ms`);
      assert.ok(toggleMs < 150, `toggle ${toggleMs} ms`);
      // Keyboard still reaches the last row.
      await page.focus(row('499'));
      await page.keyboard.press('j');
      await page.keyboard.press('2');
      assert.equal(await page.getAttribute(row('500'), 'data-verdict'), 'fail');
      assert.deepEqual(problems, []);
      await context.close();
    } finally {
      await big.stop();
    }
  });
}

for (const scheme of ['light', 'dark']) {
  test(`review screenshots (${scheme})`, async () => {
    const id = await createReview(twelveItems(`Acceptance (${scheme})`));
    const zh = await createReview({ title: `验收清单 ${scheme}`, items: [
      { id: 1, title: '复制按钮复制完整路径', group: '复制' },
      { id: 2, type: 'bool', label: '保留网关常驻', boolDesc: '接受', group: '其他' },
    ] });
    const { context, page, problems } = await openContext(browser, daemon, { colorScheme: scheme, viewport: { width: 900, height: 1000 } });
    await page.goto(`${daemon.url}/a/${id}`);
    await page.waitForSelector('form.rv-panel');
    await page.click('.rv-section >> nth=0 >> .rv-all-pass');
    await page.click(`${row('c2')} .rv-opt[data-v="fail"]`);
    await page.click(`${row('c2')} .rv-add-note`);
    await page.keyboard.type('Second line is lost');
    await page.click(`${row('d1')} .rv-opt[data-v="pending"]`);
    await page.click(`${row('g3')} .rv-opt[data-v="mac"]`);
    await page.click(`${row('g4')} .rv-opt[data-v="4"]`);
    await page.click(`${row('c1')} .rv-detail-toggle`);
    await page.screenshot({ path: screenshotPath(`${scheme}-review`), fullPage: true });
    await page.goto(`${daemon.url}/a/${zh}`);
    await page.waitForSelector('form.rv-panel');
    assert.equal(await page.textContent(`${row('1')} .rv-opt[data-v="pass"]`), '通过');
    await page.screenshot({ path: screenshotPath(`${scheme}-review-zh`), fullPage: true });
    assert.deepEqual(problems, []);
    await context.close();
  });
}

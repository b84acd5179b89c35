// The batch review's web surfaces (review.md §5): the one-question card, the one-screen panel
// (sections, bulk buttons, keyboard, notes, autosave, the blank-items confirmation), a
// 500-item panel's responsiveness, the export → fill → import round trip from the file menu,
// the read-only settled view, two tabs kept in sync, and the offline view.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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
  await page.waitForSelector('dialog[open][role="alertdialog"]:has-text("1 item marked Fail would become Pass")');
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

// ---- export → fill → import, the offline view, the settled view, two tabs ------------------

/** RFC 4180 rows of a CSV text (BOM dropped). */
function parseCsv(text) {
  const s = text.replace(/^\uFEFF/, '');
  const rows = [];
  let row = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (quoted) {
      if (c === '"' && s[i + 1] === '"') { cell += '"'; i++; }
      else if (c === '"') quoted = false;
      else cell += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') { row.push(cell); cell = ''; }
    else if (c === '\r' && s[i + 1] === '\n') { row.push(cell); rows.push(row); row = []; cell = ''; i++; }
    else cell += c;
  }
  if (cell !== '' || row.length) { row.push(cell); rows.push(row); }
  return rows;
}

function toCsv(rows) {
  const q = (v) => (/[",\r\n]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v);
  return `\uFEFF${rows.map((r) => r.map(q).join(',')).join('\r\n')}\r\n`;
}

/** The CSV with `verdict`/`note` filled from answers {id: [verdict, note]}. */
function fillCsv(text, answers) {
  const rows = parseCsv(text);
  const head = rows[0];
  const [iId, iV, iN] = ['id', 'verdict', 'note'].map((c) => head.indexOf(c));
  for (const r of rows.slice(1)) {
    const a = answers[r[iId]];
    if (a) [r[iV], r[iN]] = a;
  }
  return toCsv(rows);
}

async function openSession(client) {
  const r = await daemon.api('POST', '/api/sessions', { client, workspace: null });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body.session.id;
}

async function createIn(session, args) {
  const r = await daemon.api('POST', '/api/asks', { kind: 'review', args, session });
  assert.equal(r.status, 201, JSON.stringify(r.body));
  return r.body.ask_id;
}

function tmpFile(name, text) {
  const dir = mkdtempSync(join(tmpdir(), 'askd-sheet-'));
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

test('export CSV → fill → import from the panel settles with the result the panel gives', async () => {
  // The same review twice, in two sessions (an identical call in one session re-attaches).
  const args = twelveItems('Round trip');
  const viaFile = await createIn(await openSession('sheet-client'), args);
  const viaPanel = await createIn(await openSession('panel-client'), args);
  const { context, page, problems } = await openContext(browser, daemon);

  // 1. The sheet: exported from the panel's file menu.
  await page.goto(`${daemon.url}/a/${viaFile}`);
  await page.waitForSelector('form.rv-panel');
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('.rv-bar .rv-export[data-format="csv"]')]);
  assert.equal(download.suggestedFilename(), `${viaFile}.csv`);
  const exported = readFileSync(await download.path(), 'utf8');
  assert.deepEqual(parseCsv(exported)[0], ['id', 'group', 'header', 'type', 'title', 'op', 'expect', 'boolDesc', 'detail', 'allowed', 'verdict', 'note']);
  const answers = {
    c1: ['pass', ''], c2: ['Fail', 'Copies only the "name", not the path'], c3: ['pending', ''],
    d1: ['pass', 'Checked twice'], d2: ['pass', ''], d3: ['fail', ''],
    g1: ['yes', ''], g2: ['Via subagent', ''], g3: ['linux; Windows', ''], g4: ['4', ''],
    g5: ['', 'The icon flickers\non hover, twice'],
  };
  // 2. A sheet with mistakes: every problem is shown with its row and field; nothing settles.
  const bad = fillCsv(exported, { ...answers, c1: ['maybe', ''], g4: ['9', ''], g5: ['yes', 'x'] });
  await page.setInputFiles('.rv-bar .rv-import-file', tmpFile('filled.csv', bad));
  await page.waitForSelector('.rv-import-problems:not([hidden]) .rv-import-problem');
  const shown = await page.$$eval('.rv-import-problem', (els) => els.map((e) => [e.getAttribute('data-path'),
    e.querySelector('.rv-imp-where').textContent, e.querySelector('.rv-imp-msg').textContent]));
  assert.deepEqual(shown.map(([p, w]) => [p, w]), [
    ['rows[2].verdict', 'Row 2 · verdict'],
    ['rows[12].verdict', 'Row 12 · verdict'],
    ['rows[13].verdict', 'Row 13 · verdict'],
  ]);
  assert.match(shown[0][2], /"c1"/);
  assert.match(shown[0][2], /maybe/);
  assert.match(shown[1][2], /from 1 to 5/);
  assert.match(await page.textContent('.rv-import-title'), /filled\.csv was not imported: 3 problems/);
  assert.equal((await daemon.view(viaFile)).state, 'pending');
  // 3. The corrected sheet: a preview with the counts, then Import and settle.
  await page.setInputFiles('.rv-bar .rv-import-file', tmpFile('filled.csv', fillCsv(exported, answers)));
  await page.waitForSelector('dialog[open] .rv-import-counts');
  assert.equal(await page.textContent('dialog[open] .rv-import-counts'),
    '12 items · 11 filled · 1 unfilled · 3 pass · 2 fail · 1 pending · 1 yes · 0 no');
  assert.match(await page.textContent('dialog[open] .rv-import-preview'), /1 item is blank.*c4/);
  await page.click('dialog[open] button[value="import"]');
  await page.waitForSelector('.rv-settled .rv-result-list');
  assert.equal(await page.isHidden('.rv-import-problems'), true);
  const fromFile = await daemon.result(viaFile);
  assert.equal(fromFile.surface, 'import');

  // 4. The twin, answered by clicking in the panel.
  await page.goto(`${daemon.url}/a/${viaPanel}`);
  await page.waitForSelector('form.rv-panel');
  const click = (id, v) => page.click(`${row(id)} .rv-opt[data-v="${v}"]`);
  const note = async (id, text) => {
    if (await page.isVisible(`${row(id)} .rv-add-note`)) await page.click(`${row(id)} .rv-add-note`);
    await page.fill(`${row(id)} .rv-note-input`, text);
  };
  await click('c1', 'pass');
  await click('c2', 'fail');
  await note('c2', 'Copies only the "name", not the path');
  await click('c3', 'pending');
  await click('d1', 'pass');
  await note('d1', 'Checked twice');
  await click('d2', 'pass');
  await click('d3', 'fail');
  await click('g1', 'yes');
  await click('g2', 'B');
  await click('g3', 'linux');
  await click('g3', 'win');
  await click('g4', '4');
  await note('g5', 'The icon flickers\non hover, twice');
  await page.click('.rv-submit');
  await page.click('dialog[open] button[value="send"]');
  await page.waitForSelector('.rv-settled .rv-result-list');
  const fromPanel = await daemon.result(viaPanel);
  assert.equal(fromPanel.surface, 'panel');
  // Everything but the ask id and the surface is the same.
  assert.deepEqual(fromFile.items, fromPanel.items);
  assert.deepEqual(fromFile.summary, fromPanel.summary);
  assert.equal(fromFile.report_text, fromPanel.report_text);
  assert.deepEqual(fromFile.summary, { total: 12, filled: 11, unfilled: 1, pass: 3, fail: 2, pending: 1, yes: 1, no: 0 });
  assert.equal(fromFile.items.find((i) => i.id === 'c4').filled, false);
  assert.deepEqual(problems, []);
  await context.close();
});

test('a settled review opens read-only: verdicts, notes and counts, no controls', async () => {
  const id = await createReview(twelveItems('Read-only view'));
  const r = await daemon.api('POST', `/api/asks/${id}/submit`, { surface: 'panel', answers: [
    { id: 'c1', verdict: 'pass' }, { id: 'c2', verdict: 'fail', note: 'Second <b>line</b> lost' },
    { id: 'g1', verdict: 'no' }, { id: 'g3', selected: ['mac'] }, { id: 'g5', note: 'All good' },
  ] });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  const { context, page, problems } = await openContext(browser, daemon);
  await page.goto(`${daemon.url}/a/${id}`);
  await page.waitForSelector('.rv-settled .rv-result-list');
  assert.equal(await page.textContent('.rv-settled h1'), 'Answered');
  assert.equal(await page.textContent('.rv-result-counts'), '5 of 12 filled · 1 pass · 1 fail · 0 pending · 0 yes · 1 no');
  assert.match(await page.textContent('.rv-result-meta'), /Settled in the panel/);
  const res = (id) => `.rv-res-row[data-id="${id}"]`;
  assert.equal(await page.locator('.rv-res-row').count(), 12);
  assert.equal(await page.textContent(`${res('c1')} .rv-res-verdict`), 'Pass');
  assert.equal(await page.textContent(`${res('c2')} .rv-res-verdict`), 'Fail');
  // Agent and reviewer text is text: the note's markup shows as typed.
  assert.equal(await page.textContent(`${res('c2')} .rv-res-note .rv-text`), 'Second <b>line</b> lost');
  assert.equal(await page.locator(`${res('c2')} b`).count(), 0);
  assert.equal(await page.textContent(`${res('g3')} .rv-res-verdict`), 'macOS');
  assert.equal(await page.textContent(`${res('c3')} .rv-res-verdict`), 'Blank — not a pass');
  assert.equal(await page.textContent(`${res('g5')} .rv-res-note .rv-text`), 'All good');
  // No controls of any kind.
  assert.equal(await page.locator('.rv-opt, textarea, .rv-submit, .rv-cancel, .rv-import').count(), 0);
  assert.equal(await page.locator('.rv-result .rv-export').count(), 3);
  // A cancelled review says there are no verdicts.
  const gone = await createReview(twelveItems('Read-only cancelled'));
  await daemon.api('POST', `/api/asks/${gone}/cancel`, {});
  await page.goto(`${daemon.url}/a/${gone}`);
  await page.waitForSelector('.rv-settled .rv-result-none');
  assert.equal(await page.textContent('.rv-result-none'), 'No verdicts for any of the 12 items.');
  assert.deepEqual(problems, []);
  await context.close();
});

test('two tabs of one review: an autosave shows in the other; a settle turns it read-only', async () => {
  const id = await createReview(twelveItems('Two tabs'));
  const { context, page: a, problems } = await openContext(browser, daemon);
  const b = await context.newPage();
  await a.goto(`${daemon.url}/a/${id}`);
  await b.goto(`${daemon.url}/a/${id}`);
  await a.waitForSelector('form.rv-panel');
  await b.waitForSelector('form.rv-panel');
  // Tab A: a verdict, a bulk action and a note; tab B shows them without a reload.
  await a.click(`${row('c1')} .rv-opt[data-v="fail"]`);
  await a.click('.rv-section >> nth=1 >> .rv-all-pending');
  await a.click(`${row('c1')} .rv-add-note`);
  await a.keyboard.type('Seen in tab A');
  await a.locator(`${row('c1')} .rv-note-input`).blur();
  await b.waitForFunction(() => {
    const box = document.querySelector('.rv-row[data-id="c1"] .rv-note-input');
    return box && box.value === 'Seen in tab A';
  });
  assert.equal(await b.getAttribute(`${row('c1')} .rv-opt[data-v="fail"]`, 'aria-checked'), 'true');
  assert.equal(await b.getAttribute(`${row('d2')} .rv-opt[data-v="pending"]`, 'aria-checked'), 'true');
  assert.equal(await b.isVisible(`${row('c1')} .rv-note-input`), true);
  assert.equal(await b.textContent('.rv-progress'), '4 of 12 filled · 0 pass · 1 fail · 3 pending');
  // Tab B answers back; tab A follows.
  await b.click(`${row('g1')} .rv-opt[data-v="yes"]`);
  await a.waitForSelector(`${row('g1')} .rv-opt[data-v="yes"][aria-checked="true"]`);
  // Tab B submits; tab A becomes the read-only settled view with B's verdicts.
  await b.click('.rv-submit');
  await b.click('dialog[open] button[value="send"]');
  await b.waitForSelector('.rv-settled:has-text("Sent to the agent")');
  await a.waitForSelector('.rv-settled .rv-result-list');
  assert.equal(await a.textContent('.rv-settled h1'), 'Answered');
  assert.equal(await a.textContent(`.rv-res-row[data-id="c1"] .rv-res-verdict`), 'Fail');
  assert.equal(await a.textContent(`.rv-res-row[data-id="c1"] .rv-res-note .rv-text`), 'Seen in tab A');
  assert.equal(await a.textContent(`.rv-res-row[data-id="g1"] .rv-res-verdict`), 'Yes');
  assert.equal(await a.locator('.rv-opt').count(), 0);
  const result = await daemon.result(id);
  assert.deepEqual(result.summary, { total: 12, filled: 5, unfilled: 7, pass: 0, fail: 1, pending: 3, yes: 1, no: 0 });
  assert.deepEqual(problems, []);
  await context.close();
});

test('an offline review shows counts, export, import and cancel, never the items', async () => {
  const items = [];
  for (let i = 1; i <= 120; i++) {
    items.push(i % 4 === 0
      ? { id: `b${i}`, type: 'bool', label: `Keep flag ${i}`, group: i <= 60 ? 'Flags' : 'Later' }
      : { id: `c${i}`, title: `Check ${i}`, group: i <= 60 ? 'Flags' : 'Later' });
  }
  const id = await createReview({ title: 'Offline sheet', offline: true, items });
  const { context, page, problems } = await openContext(browser, daemon);
  await page.goto(`${daemon.url}/a/${id}`);
  await page.waitForSelector('.rv-offline');
  assert.equal(await page.locator('.rv-row').count(), 0);
  assert.equal(await page.textContent('.rv-offline-total'), '120 items');
  assert.deepEqual(await page.$$eval('.rv-offline-types li', (els) => els.map((e) => e.textContent)),
    ['90 checks (pass / fail / pending)', '30 yes / no']);
  assert.deepEqual(await page.$$eval('.rv-offline-sections li', (els) => els.map((e) => e.textContent)),
    ['Flags (60)', 'Later (60)']);
  assert.deepEqual(await page.$$eval('.rv-offline .rv-export', (els) => els.map((e) => e.getAttribute('data-format'))),
    ['csv', 'html', 'json']);
  // Import a JSON answers file: a wrong one first (another review's), then the right one.
  const exported = (await daemon.api('GET', `/api/asks/${id}/export?format=json`)).body;
  const wrong = { ...exported, ask_id: 'someone-else' };
  await page.setInputFiles('.rv-offline .rv-import-file', tmpFile('answers.json', JSON.stringify(wrong)));
  await page.waitForSelector('.rv-import-problems:not([hidden]) .rv-import-problem');
  assert.match(await page.textContent('.rv-import-problem'), /ask_id/);
  for (const it of exported.items) it.verdict = it.type === 'bool' ? 'no' : 'pass';
  exported.items[0].note = 'First one';
  await page.setInputFiles('.rv-offline .rv-import-file', tmpFile('answers.json', JSON.stringify(exported)));
  await page.waitForSelector('dialog[open] .rv-import-counts');
  await page.click('dialog[open] button[value="import"]');
  await page.waitForSelector('.rv-settled .rv-result-list');
  const result = await daemon.result(id);
  assert.equal(result.surface, 'import');
  assert.deepEqual(result.summary, { total: 120, filled: 120, unfilled: 0, pass: 90, fail: 0, pending: 0, yes: 0, no: 30 });
  assert.equal(result.items[0].note, 'First one');
  // Cancel review is offered on a pending offline review.
  const other = await createReview({ title: 'Offline to cancel', offline: true, items: items.slice(0, 3) });
  await page.goto(`${daemon.url}/a/${other}`);
  await page.waitForSelector('.rv-offline');
  await page.click('.rv-offline .rv-cancel');
  await page.click('dialog[open] button[value="yes"]');
  await page.waitForSelector('.rv-settled .rv-result-none');
  assert.equal((await daemon.result(other)).outcome, 'cancelled');
  assert.deepEqual(problems, []);
  await context.close();
});

// Issue 18 part B, in a real Chromium: the language rule (Settings wins; the ask's language
// only under "Follow the ask"; one string table loaded), the shortcut keys and their labels,
// the inbox's keyboard and waiting times, the reconnecting state, two tabs on one text.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { startDaemon, launchBrowser, openContext, branchingSurvey, sleep, BINARY } from './helpers.mjs';

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

/** The string tables the page loaded, by file name. */
async function tablesLoaded(page) {
  return page.evaluate(() => performance.getEntriesByType('resource')
    .map((e) => new URL(e.name).pathname)
    .filter((p) => /^\/assets\/(v\/[0-9a-f]+\/)?i18n\/(en|zh-CN)\.js$/.test(p))
    .map((p) => p.split('/').pop()).sort());
}

// ------------------------------------------------------------------ language

test('language: Settings English wins over two CJK characters in an English title', async () => {
  const id = await daemon.createSurvey(branchingSurvey({ title: 'Release plan 发布' }));
  const { context, page, problems } = await openContext(browser, daemon, { locale: 'en-US' });
  await page.waitForSelector('.inbox-title');
  await page.evaluate(() => localStorage.setItem('askd.lang', 'en'));
  await page.goto(`${daemon.url}/a/${id}`);
  await page.waitForSelector('.card.wizard');
  assert.equal(await page.getAttribute('html', 'lang'), 'en');
  assert.equal(await page.textContent('.seg.primary .seg-label'), 'Start');
  assert.deepEqual(await tablesLoaded(page), ['en.js'], 'one table, not both');
  // Settings offers the four choices, English selected.
  await page.goto(`${daemon.url}/settings`);
  await page.waitForSelector('.st-lang');
  assert.deepEqual(await page.$$eval('.st-lang option', (os) => os.map((o) => o.value)), ['ask', 'system', 'en', 'zh-CN']);
  assert.equal(await page.inputValue('.st-lang'), 'en');
  // 中文 in Settings: the same English ask now has Chinese chrome.
  await page.selectOption('.st-lang', 'zh-CN');
  await page.waitForFunction(() => document.documentElement.lang === 'zh-CN');
  await page.goto(`${daemon.url}/a/${id}`);
  await page.waitForSelector('.card.wizard');
  assert.equal(await page.textContent('.seg.primary .seg-label'), '开始');
  assert.deepEqual(await tablesLoaded(page), ['zh-CN.js']);
  // System: the browser's language (en-US) even on this ask.
  await page.evaluate(() => localStorage.setItem('askd.lang', 'system'));
  await page.reload();
  await page.waitForSelector('.card.wizard');
  assert.equal(await page.getAttribute('html', 'lang'), 'en');
  assert.deepEqual(problems, []);
  await context.close();
});

test('language: under "Follow the ask" (the default) the ask decides, and only its table loads', async () => {
  const id = await daemon.createSurvey(branchingSurvey({ title: '发布计划 Release' }));
  const { context, page, problems } = await openContext(browser, daemon, { locale: 'en-US' });
  await page.waitForSelector('.inbox-title');
  assert.equal(await page.textContent('.inbox-title'), 'Inbox');
  await page.goto(`${daemon.url}/a/${id}`);
  await page.waitForSelector('.card.wizard');
  assert.equal(await page.getAttribute('html', 'lang'), 'zh-CN');
  assert.equal(await page.textContent('.seg.primary .seg-label'), '开始');
  assert.deepEqual(await tablesLoaded(page), ['zh-CN.js']);
  await page.goto(`${daemon.url}/settings`);
  await page.waitForSelector('.st-lang');
  assert.equal(await page.inputValue('.st-lang'), 'ask');
  assert.equal(await page.textContent('.st-lang option[value="ask"]'), 'Follow the ask');
  assert.deepEqual(problems, []);
  await context.close();
});

// ------------------------------------------------------------------ shortcut keys

async function helpKeys(page) {
  await page.keyboard.press('Shift+H');
  await page.waitForSelector('dialog[open] .shortcuts');
  const keys = await page.$$eval('dialog[open] .shortcuts dt', (dts) => dts.map((d) => d.textContent));
  await page.keyboard.press('Escape');
  await page.waitForSelector('dialog[open]', { state: 'detached' });
  return keys;
}

test('shortcuts: the wizard does what its help and its hint say, and b picks option b', async () => {
  const id = await daemon.createSurvey(branchingSurvey());
  const { context, page, problems } = await openContext(browser, daemon);
  await page.goto(`${daemon.url}/a/${id}`);
  await page.waitForSelector('.card.wizard[data-position="intro"]');
  assert.equal(await page.textContent('.kbd-hint'), 'Enter start · Shift+H shortcuts');
  const keys = await helpKeys(page);
  for (const k of ['Shift+S', 'Shift+B', 'Shift+X', 'Shift+W', 'Shift+G', 'Shift+H']) assert.ok(keys.includes(k), `${k} in ${keys}`);
  assert.ok(!keys.some((k) => /^[A-Z]$/.test(k)), `no bare capital letters: ${keys}`);
  await page.keyboard.press('Enter');
  await page.waitForSelector('.card.wizard[data-position="q1"]');
  assert.equal(await page.textContent('.kbd-hint'), 'a–e / 1–5 choose · Enter next · ← back · Shift+H shortcuts');
  // A lower-case letter is the option's key: b picks b (never Bank), 3 picks the third.
  await page.keyboard.press('b');
  await page.waitForSelector('.row[data-key="b"] .row-hit[aria-checked="true"]');
  assert.equal(await page.isVisible('.bank-chip'), false);
  await page.keyboard.press('3');
  await page.waitForSelector('.row[data-key="c"] .row-hit[aria-checked="true"]');
  // Lower-case s is no option here and no command: nothing moves.
  await page.keyboard.press('s');
  await sleep(200);
  assert.equal(await page.getAttribute('.card.wizard', 'data-position'), 'q1');
  // ? and Shift+G on the focused option; Shift+W its why.
  await page.focus('.row[data-key="a"] .row-hit');
  await page.keyboard.press('?');
  await page.waitForSelector('.row[data-key="a"] .panel:not([hidden])');
  await page.keyboard.press('Escape');
  await page.keyboard.press('Shift+G');
  await page.waitForSelector('.row[data-key="a"] .panel:not([hidden])');
  await page.keyboard.press('Escape');
  await page.keyboard.press('a');
  await page.keyboard.press('Shift+W');
  await page.waitForSelector('.row[data-key="a"] .justify-input');
  await page.keyboard.press('Escape');
  // Shift+S skips to the next question; ← comes back.
  await page.keyboard.press('Shift+S');
  await page.waitForSelector('.card.wizard[data-position="q3"]');
  assert.equal(await page.textContent('.kbd-hint'), 'a–e / 1–5 choose · Enter next · ← back · Shift+H shortcuts');
  await page.keyboard.press('ArrowLeft');
  await page.waitForSelector('.card.wizard[data-position="q1"]');
  await page.keyboard.press('a');
  // Shift+B banks the answer.
  await page.keyboard.press('Shift+B');
  await page.waitForSelector('.bank-chip:not([hidden])');
  // Shift+X asks before it cancels.
  await page.keyboard.press('Shift+X');
  await page.waitForSelector('dialog[open]');
  await page.keyboard.press('Escape');
  assert.equal((await daemon.view(id)).state, 'pending');
  assert.deepEqual(problems, []);
  await context.close();
});

test('shortcuts: a closed shortcut list keeps no focus, so the next key reaches the page', async () => {
  const id = await daemon.createSurvey(branchingSurvey());
  const { context, page, problems } = await openContext(browser, daemon);
  await page.goto(`${daemon.url}/a/${id}`);
  await page.waitForSelector('.card.wizard[data-position="intro"]');
  await page.keyboard.press('Shift+H');
  await page.waitForSelector('dialog[open] .shortcuts');
  // Closed by its button, then asked in the same task: nothing inside the dialog may still
  // hold focus (a key pressed at once would land there and be lost).
  const stale = await page.evaluate(() => {
    document.querySelector('dialog.help .tool').click();
    const a = document.activeElement;
    return Boolean(a && a.closest && a.closest('dialog'));
  });
  assert.equal(stale, false);
  assert.equal(await page.$('dialog.help'), null);
  await page.keyboard.press('Enter');
  await page.waitForSelector('.card.wizard[data-position="q1"]');
  assert.deepEqual(problems, []);
  await context.close();
});

test('shortcuts: the questions page lists only its own keys, and they work', async () => {
  const id = await daemon.createQuestions([
    { id: 'db', question: 'Which database?', header: 'DB', options: [{ label: 'SQLite' }, { label: 'Postgres' }, { label: 'MySQL' }] },
    { id: 'name', question: 'Which name?', header: 'Name', options: [{ label: 'askd' }, { label: 'ask' }] },
  ]);
  const { context, page, problems } = await openContext(browser, daemon);
  await page.goto(`${daemon.url}/a/${id}`);
  await page.waitForSelector('.card.flat');
  assert.equal(await page.textContent('.kbd-hint'), '1–3 choose · Enter submit · Shift+H shortcuts');
  const keys = await helpKeys(page);
  assert.deepEqual(keys, ['1–9', '↑↓', 'Enter', 'Ctrl+Enter', 'Esc', 'Shift+H']);
  await page.keyboard.press('2');
  await page.waitForSelector('.flat-question >> nth=0 >> .row-hit[aria-checked="true"] >> text=Postgres');
  await page.keyboard.press('Enter');
  await page.waitForSelector('.card.settled');
  assert.deepEqual((await daemon.result(id)).answers[0], { id: 'db', selected: ['Postgres'] });
  assert.deepEqual(problems, []);
  await context.close();
});

// ------------------------------------------------------------------ inbox

test('inbox: j / k move a visible focus through the asks, Enter opens; each row counts its wait', async () => {
  const first = await daemon.createSurvey(branchingSurvey({ title: 'Inbox keys one' }));
  const second = await daemon.createSurvey(branchingSurvey({ title: 'Inbox keys two' }));
  const { context, page, problems } = await openContext(browser, daemon);
  await page.waitForSelector(`[data-ask-id="${second}"]`);
  const focusedId = () => page.evaluate(() => document.activeElement.closest('[data-ask-id]')?.getAttribute('data-ask-id') ?? null);
  const ids = await page.$$eval('.ask-row .ask-link', (as) => as.map((a) => a.closest('[data-ask-id]').getAttribute('data-ask-id')));
  assert.ok(ids.includes(first) && ids.includes(second));
  await page.keyboard.press('j');
  assert.equal(await focusedId(), ids[0]);
  await page.keyboard.press('j');
  assert.equal(await focusedId(), ids[1]);
  // The focus is visible: the row is marked (not the browser default only).
  const bg = await page.$eval(`[data-ask-id="${ids[1]}"]`, (el) => getComputedStyle(el).backgroundColor);
  const plain = await page.$eval(`[data-ask-id="${ids[0]}"]`, (el) => getComputedStyle(el).backgroundColor);
  assert.notEqual(bg, plain);
  await page.keyboard.press('k');
  assert.equal(await focusedId(), ids[0]);
  // The waiting time, from the ask's created time, counts on: seconds, then minutes.
  const row = `[data-ask-id="${ids[0]}"] .wait-live`;
  assert.match(await page.textContent(row), /^waiting \d+ s$/);
  await page.evaluate(() => {
    for (const el of document.querySelectorAll('.wait-live')) el.setAttribute('data-since', String(Date.now() - 3 * 60000 - 5000));
  });
  await page.waitForFunction((sel) => document.querySelector(sel).textContent === 'waiting 3 min', row, { timeout: 8000 });
  assert.equal(await page.textContent('.inbox-keys'), 'j/k move · x select · Enter open');
  await page.keyboard.press('Enter');
  await page.waitForSelector('.card.wizard');
  assert.equal(new URL(page.url()).pathname, `/a/${ids[0]}`);
  assert.deepEqual(problems, []);
  await context.close();
});

test('inbox: the waiting time in Chinese', async () => {
  await daemon.createSurvey(branchingSurvey({ title: 'Inbox zh' }));
  const { context, page, problems } = await openContext(browser, daemon, { locale: 'zh-CN' });
  await page.waitForSelector('.ask-row .wait-live');
  assert.match(await page.textContent('.ask-row .wait-live'), /^已等待 \d+ 秒$/);
  assert.equal(await page.textContent('.inbox-keys'), 'j/k 移动 · x 选择 · 回车 打开');
  assert.deepEqual(problems, []);
  await context.close();
});

// ------------------------------------------------------------------ a daemon that stops answering

/** Chromium's console lines for requests that found no daemon: expected while it is down. */
const offlineNoise = (p) => /ERR_CONNECTION_REFUSED|ERR_EMPTY_RESPONSE|ERR_CONNECTION_RESET|net::ERR_/.test(p);

test('reconnecting: the daemon is killed under live pages, clicks wait, and it comes back on the same port', async () => {
  const d = await startDaemon();
  const port = new URL(d.url).port;
  let again = null;
  try {
    const id = await d.createQuestions([
      { id: 'db', question: 'Which database?', header: 'DB', options: [{ label: 'SQLite' }, { label: 'Postgres' }] },
    ]);
    const { context, page, problems } = await openContext(browser, d);
    const inbox = await context.newPage();
    await inbox.goto(`${d.url}/`);
    await inbox.waitForSelector(`[data-ask-id="${id}"]`);
    await page.goto(`${d.url}/a/${id}`);
    await page.waitForSelector('.card.flat');
    const exited = new Promise((r) => d.child.once('exit', r));
    d.child.kill('SIGKILL');
    await exited;
    await page.waitForSelector('.live-banner.reconnecting', { timeout: 15000 });
    assert.match(await page.textContent('.live-banner'), /askd is not answering — reconnecting…/);
    await inbox.waitForSelector('.live-banner.reconnecting', { timeout: 15000 });
    // A click is never dead: the submit waits, and the banner says so.
    await page.click('.flat-question .row-hit >> nth=1');
    await page.click('.seg.primary');
    await page.waitForFunction(() => /Actions waiting: [1-9]/.test(document.querySelector('.live-banner').textContent), null, { timeout: 10000 });
    assert.equal(await page.isVisible('.card.settled'), false);
    // The same data directory, the same port: the token and the cookie still hold.
    again = spawn(BINARY, ['serve', '--listen', `127.0.0.1:${port}`], {
      env: { ...process.env, ASKD_HOME: d.home, ASKD_LOG: 'warn' }, stdio: ['ignore', 'ignore', 'pipe'],
    });
    await page.waitForSelector('.live-banner', { state: 'hidden', timeout: 20000 });
    await page.waitForSelector('.card.settled', { timeout: 20000 });
    assert.deepEqual((await d.result(id)).answers, [{ id: 'db', selected: ['Postgres'] }]);
    // The inbox refreshed its state: the settled ask left the pending list, a new one shows.
    await inbox.waitForSelector('.live-banner', { state: 'hidden', timeout: 20000 });
    const next = await d.createSurvey(branchingSurvey({ title: 'After the restart' }));
    await inbox.waitForSelector(`.ask-row[data-ask-id="${next}"]`, { timeout: 25000 });
    assert.deepEqual(problems.filter((p) => !offlineNoise(p)), []);
    await context.close();
  } finally {
    if (again) {
      again.kill('SIGTERM');
      await new Promise((r) => { again.once('exit', r); setTimeout(r, 3000); });
    }
    rmSync(d.home, { recursive: true, force: true });
  }
});

// ------------------------------------------------------------------ two tabs, one text

test('two tabs: another tab\'s text is shown beside mine — Keep mine / Use theirs — never lost silently', async () => {
  const id = await daemon.createSurvey({
    title: 'Two tabs', entry: 'plan',
    questions: { plan: { prompt: 'Describe the plan', next: 'when' }, when: { prompt: 'When does it ship?' } },
  });
  const { context, page: a, problems } = await openContext(browser, daemon);
  const b = await context.newPage();
  await a.goto(`${daemon.url}/a/${id}`);
  await a.waitForSelector('.card.wizard[data-position="intro"]');
  await a.click('.seg.primary');
  await a.waitForSelector('.card.wizard[data-position="plan"] .custom-input');
  // Tab B opens where A is (the autosaved position).
  for (let i = 0; i < 100 && (await daemon.view(id)).autosave?.position !== 'plan'; i++) await sleep(100);
  await b.goto(`${daemon.url}/a/${id}`);
  await b.waitForSelector('.card.wizard[data-position="plan"] .custom-input');
  const saved = async () => ((await daemon.view(id)).autosave?.answers?.plan?.custom);
  const until = async (fn, want) => {
    for (let i = 0; i < 100; i++) {
      if ((await fn()) === want) return;
      await sleep(100);
    }
    assert.equal(await fn(), want);
  };
  await a.fill('.custom-input', 'Alpha plan');
  await until(saved, 'Alpha plan');
  // Tab B typed nothing: it follows A live.
  await b.waitForFunction(() => document.querySelector('.custom-input').value === 'Alpha plan');
  assert.equal(await b.isVisible('.conflict'), false);
  await b.fill('.custom-input', 'Beta plan');
  await until(saved, 'Beta plan');
  // Tab A typed "Alpha plan": it keeps it on screen and shows B's text beside it.
  await a.waitForSelector('.conflict');
  assert.equal(await a.textContent('.conflict .conflict-title'), 'Changed in another tab:');
  assert.equal(await a.textContent('.conflict .conflict-text'), 'Beta plan');
  assert.equal(await a.inputValue('.custom-input'), 'Alpha plan');
  // Keep mine: A's text is saved again, and now B sees A's.
  await a.click('.conflict-keep');
  await until(saved, 'Alpha plan');
  assert.equal(await a.isVisible('.conflict'), false);
  await b.waitForSelector('.conflict');
  assert.equal(await b.textContent('.conflict .conflict-text'), 'Alpha plan');
  assert.equal(await b.inputValue('.custom-input'), 'Beta plan');
  // Use theirs: B takes A's text; nothing is pending anywhere.
  await b.click('.conflict-theirs');
  assert.equal(await b.inputValue('.custom-input'), 'Alpha plan');
  assert.equal(await b.isVisible('.conflict'), false);
  await sleep(1500);
  assert.equal(await saved(), 'Alpha plan');
  assert.equal(await a.isVisible('.conflict'), false);
  assert.deepEqual(problems, []);
  await context.close();
});

test('two tabs of one questions card: the other tab\'s text shows beside mine, either can be kept', async () => {
  const id = await daemon.createQuestions([{ id: 'why', question: 'Why this release?', header: 'Why' }]);
  const { context, page: a, problems } = await openContext(browser, daemon);
  const b = await context.newPage();
  for (const p of [a, b]) {
    await p.goto(`${daemon.url}/a/${id}`);
    await p.waitForSelector('.card.flat .custom-input');
  }
  const saved = async () => ((await daemon.view(id)).autosave?.answers?.why?.custom);
  const until = async (want) => {
    for (let i = 0; i < 100 && (await saved()) !== want; i++) await sleep(100);
    assert.equal(await saved(), want);
  };
  await a.fill('.custom-input', 'Users asked');
  await until('Users asked');
  await b.waitForFunction(() => document.querySelector('.custom-input').value === 'Users asked');
  await b.fill('.custom-input', 'Ops asked');
  await until('Ops asked');
  await a.waitForSelector('.conflict');
  assert.equal(await a.textContent('.conflict .conflict-text'), 'Ops asked');
  assert.equal(await a.inputValue('.custom-input'), 'Users asked');
  await a.click('.conflict-theirs');
  assert.equal(await a.inputValue('.custom-input'), 'Ops asked');
  assert.equal(await a.isVisible('.conflict'), false);
  await sleep(1200);
  assert.equal(await saved(), 'Ops asked');
  assert.equal(await b.isVisible('.conflict'), false);
  assert.deepEqual(problems, []);
  await context.close();
});

test('two tabs of one review: a note typed here stays when the other tab saves another — Keep mine / Use theirs', async () => {
  const r = await daemon.api('POST', '/api/asks', { kind: 'review', args: { title: 'Two tabs review', items: [
    { id: 'c1', title: 'Copy button copies the full path' }, { id: 'g5', type: 'text', label: 'Anything off' }] } });
  const id = r.body.ask_id;
  const { context, page: a, problems } = await openContext(browser, daemon);
  const b = await context.newPage();
  for (const p of [a, b]) {
    await p.goto(`${daemon.url}/a/${id}`);
    await p.waitForSelector('form.rv-panel');
  }
  const note = '.rv-row[data-id="g5"] .rv-note-input';
  const saved = async () => ((await daemon.view(id)).autosave?.answers?.g5?.note);
  const until = async (want) => {
    for (let i = 0; i < 100 && (await saved()) !== want; i++) await sleep(100);
    assert.equal(await saved(), want);
  };
  await a.fill(note, 'Scrollbar flickers');
  await a.locator(note).blur();
  await until('Scrollbar flickers');
  await b.waitForFunction((sel) => document.querySelector(sel).value === 'Scrollbar flickers', note);
  await b.fill(note, 'Nothing off');
  await b.locator(note).blur();
  await until('Nothing off');
  await a.waitForSelector('.rv-row[data-id="g5"] .conflict');
  assert.equal(await a.textContent('.rv-row[data-id="g5"] .conflict-text'), 'Nothing off');
  assert.equal(await a.inputValue(note), 'Scrollbar flickers');
  await a.click('.rv-row[data-id="g5"] .conflict-keep');
  await until('Scrollbar flickers');
  await b.waitForSelector('.rv-row[data-id="g5"] .conflict');
  assert.equal(await b.textContent('.rv-row[data-id="g5"] .conflict-text'), 'Scrollbar flickers');
  await b.click('.rv-row[data-id="g5"] .conflict-theirs');
  assert.equal(await b.inputValue(note), 'Scrollbar flickers');
  await sleep(1200);
  assert.equal(await saved(), 'Scrollbar flickers');
  assert.equal(await a.isVisible('.conflict'), false);
  assert.deepEqual(problems, []);
  await context.close();
});

// Issue 30 part C, in a real Chromium through the real daemon: text typed just before a
// reload or a tab close is never lost (a keepalive save on the way out, a copy in this
// browser until askd has it, restored on the next load — one autosave module for the wizard,
// the questions card and the review panel), the review step shows banked answers' why, and
// honest progress and feedback (a progress text and bar that never go back, a busy control
// at once and the banner in ~2 s on a frozen daemon, "Resume survey" only with something to
// resume, who settled an ask and when).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { startDaemon, launchBrowser, openContext, branchingSurvey, sleep, passReviewStep, screenshotPath } from './helpers.mjs';

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

/** Console lines of requests this test made fail on purpose (a blocked route, a frozen daemon). */
const noise = (p) => /net::ERR_|Failed to load resource/.test(p);

let titles = 0;
/** A survey of two free-text questions (a distinct title each: an identical spec re-attaches). */
function textSurvey(title = `Plan ${++titles}`) {
  return {
    title, entry: 'plan',
    questions: { plan: { prompt: 'Describe the plan', next: 'when' }, when: { prompt: 'When does it ship?' } },
  };
}

/** Polls `fn` until it returns `want` (deep-equal), or fails with its last value. */
async function until(fn, want, ms = 10000) {
  const end = Date.now() + ms;
  let got;
  do {
    got = await fn();
    try {
      assert.deepEqual(got, want);
      return;
    } catch {
      await sleep(100);
    }
  } while (Date.now() < end);
  assert.deepEqual(got, want);
}

const copyOf = (page, id) => page.evaluate((k) => localStorage.getItem(k), `askd.draft.${id}`);
const savedText = async (id) => (await daemon.view(id)).autosave?.answers?.plan?.custom;

/** Opens a text survey at its first question once askd has that position saved. */
async function atPlan(page, id, base = daemon.url) {
  await page.goto(`${base}/a/${id}`);
  await page.waitForSelector('.card.wizard[data-position="intro"]');
  await page.click('.seg.primary');
  await page.waitForSelector('.card.wizard[data-position="plan"] .custom-input');
  await until(async () => (await daemon.view(id)).autosave?.position, 'plan');
}

// ------------------------------------------------------------------ item 2: text never lost

test('item 2: text typed just before a reload or a tab close on an 8× throttled CPU is there after it, and askd gets it', async () => {
  const { context, page: first, problems } = await openContext(browser, daemon);
  let page = first;
  const lost = [];
  for (let i = 0; i < 9; i++) {
    const close = i >= 6; // six reloads, then three tab closes
    const id = await daemon.createSurvey(textSurvey());
    await atPlan(page, id);
    const cdp = await context.newCDPSession(page);
    await cdp.send('Emulation.setCPUThrottlingRate', { rate: 8 });
    const text = `Plan ${i}: ship the API first, then the docs`;
    await page.focus('.custom-input');
    // A pause mid-sentence (its debounced save goes out), the rest, then at once away.
    await page.keyboard.type(text.slice(0, 20));
    await sleep(520 + 40 * i);
    await page.keyboard.type(text.slice(20));
    if (close) {
      await page.close();
      page = await context.newPage();
      await page.goto(`${daemon.url}/a/${id}`);
    } else {
      await page.reload();
    }
    await page.waitForSelector('.card.wizard');
    await cdp.send('Emulation.setCPUThrottlingRate', { rate: 1 }).catch(() => {});
    const shown = await page.$eval('.card.wizard', (card) => [card.dataset.position, card.querySelector('.custom-input')?.value ?? null]);
    if (shown[0] !== 'plan' || shown[1] !== text) lost.push(`${close ? 'close' : 'reload'} ${i}: the page shows ${JSON.stringify(shown)}`);
    // Whatever the page kept reaches askd, and this browser's copy goes once askd has it.
    await until(() => savedText(id), text).catch(async () => lost.push(`${close ? 'close' : 'reload'} ${i}: askd has ${JSON.stringify(await savedText(id))}`));
    await until(() => copyOf(page, id), null).catch(() => lost.push(`${i}: the copy stays after askd has it`));
  }
  assert.deepEqual(lost, []);
  assert.deepEqual(problems.filter((p) => !noise(p)), []);
  await context.close();
});

/**
 * The daemon behind a pass-through HTTP proxy that can drop every draft save on the floor,
 * keepalive ones included (the browser sends those even past the page's end, and no
 * DevTools interception sees them): `{url, token, block(on), close()}`, usable as `daemon`.
 */
async function dropProxy(target) {
  const up = new URL(target.url);
  let blocked = false;
  const server = http.createServer((req, res) => {
    if (blocked && /\/(draft|autosave)$/.test(req.url.split('?')[0])) {
      req.resume();
      res.destroy();
      return;
    }
    const headers = { ...req.headers, host: up.host };
    if (headers.origin) headers.origin = up.origin;
    if (headers.referer) headers.referer = headers.referer.replace(/^http:\/\/[^/]+/, up.origin);
    const fwd = http.request({ host: up.hostname, port: up.port, path: req.url, method: req.method, headers }, (r) => {
      res.writeHead(r.statusCode, r.headers);
      r.pipe(res);
    });
    fwd.on('error', () => res.destroy());
    req.pipe(fwd);
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    token: target.token,
    block(on) {
      blocked = on;
    },
    close() {
      server.closeAllConnections();
      return new Promise((r) => server.close(r));
    },
  };
}

test('item 2: a wizard answer whose saves never reached askd is kept in this browser, restored on reload, then saved', async () => {
  const id = await daemon.createSurvey(textSurvey());
  const via = await dropProxy(daemon);
  const { context, page, problems } = await openContext(browser, via);
  await atPlan(page, id, via.url);
  via.block(true);
  await page.fill('.custom-input', 'Typed while askd could not be reached');
  await sleep(900); // past the 500 ms debounce: that save is dropped too
  assert.notEqual(await copyOf(page, id), null, 'a copy is kept while askd does not have it');
  await page.reload();
  await page.waitForSelector('.card.wizard[data-position="plan"] .custom-input');
  assert.equal(await page.inputValue('.custom-input'), 'Typed while askd could not be reached');
  assert.equal(await savedText(id), undefined, 'askd never got it: the page restored its own copy');
  via.block(false);
  // The restored text is saved (tried again after the dropped save), then the copy goes.
  await until(() => savedText(id), 'Typed while askd could not be reached');
  await until(() => copyOf(page, id), null);
  assert.deepEqual(problems.filter((p) => !noise(p)), []);
  await context.close();
  await via.close();
});

test('item 2: a kept copy belongs to who typed it: another sign-in in the same browser never sees it', async () => {
  const id = await daemon.createSurvey(textSurvey());
  const via = await dropProxy(daemon);
  const { context, page, problems } = await openContext(browser, via);
  await atPlan(page, id, via.url);
  via.block(true);
  await page.fill('.custom-input', 'Only mine to see');
  await sleep(900);
  const copy = JSON.parse(await copyOf(page, id));
  assert.equal(copy.who, 'install:', 'the copy names the principal that wrote it');
  // The same browser profile, now someone else's copy (a member signed in before): the page
  // of the install's token neither restores it nor drops it.
  await page.evaluate(([k, v]) => localStorage.setItem(k, v), [`askd.draft.${id}`, JSON.stringify({ ...copy, who: 'member:m-1' })]);
  await page.reload();
  await page.waitForSelector('.card.wizard[data-position="plan"] .custom-input');
  assert.equal(await page.inputValue('.custom-input'), '', 'another principal\'s text is not shown');
  assert.equal(JSON.parse(await copyOf(page, id)).who, 'member:m-1', 'and not thrown away');
  via.block(false);
  assert.deepEqual(problems.filter((p) => !noise(p)), []);
  await context.close();
  await via.close();
});

test('item 2: the questions card and the review panel keep and restore unsaved text the same way', async () => {
  const q = await daemon.createQuestions([{ id: 'why', question: 'Why this release?', header: 'Why' }]);
  const r = (await daemon.api('POST', '/api/asks', { kind: 'review', args: { title: 'Kept notes', items: [
    { id: 'c1', title: 'Copy button copies the full path' }, { id: 'g5', type: 'text', title: 'Anything off?' }] } })).body.ask_id;
  const via = await dropProxy(daemon);
  const { context, page, problems } = await openContext(browser, via);
  const cases = [
    [q, '.card.flat .custom-input', async () => (await daemon.view(q)).autosave?.answers?.why?.custom],
    [r, '.rv-row[data-id="g5"] .rv-note-input', async () => (await daemon.view(r)).autosave?.answers?.g5?.note],
  ];
  for (const [id, input, saved] of cases) {
    await page.goto(`${via.url}/a/${id}`);
    await page.waitForSelector(input);
    via.block(true);
    await page.fill(input, `Kept for ${id}`);
    await sleep(900);
    await page.reload();
    await page.waitForSelector(input);
    assert.equal(await page.inputValue(input), `Kept for ${id}`);
    assert.equal(await saved(), undefined, 'askd never got it');
    via.block(false);
    await until(saved, `Kept for ${id}`);
    await until(() => copyOf(page, id), null);
  }
  assert.deepEqual(problems.filter((p) => !noise(p)), []);
  await context.close();
  await via.close();
});

test('item 2: a kept copy is never restored into a settled ask, nor over a newer draft saved elsewhere', async () => {
  const settled = await daemon.createSurvey(textSurvey());
  const newer = await daemon.createSurvey(textSurvey());
  const via = await dropProxy(daemon);
  const { context, page, problems } = await openContext(browser, via);
  for (const id of [settled, newer]) {
    await atPlan(page, id, via.url);
    via.block(true);
    await page.fill('.custom-input', `Kept only here ${id}`);
    await sleep(900);
    assert.notEqual(await copyOf(page, id), null);
    await page.goto('about:blank');
    await sleep(1000); // the keepalive save on the way out is dropped too
    via.block(false);
  }
  assert.equal(await savedText(settled), undefined);
  // One settles (cancelled elsewhere), the other gets a newer draft from another device.
  assert.equal((await daemon.api('POST', `/api/asks/${settled}/cancel`, {})).status, 200);
  assert.equal((await daemon.api('PUT', `/api/asks/${newer}/draft`, {
    v: 1, position: 'plan', answers: { plan: { selected: [], custom: 'Typed on the phone', skipped: false, justifications: {} } },
  })).status, 200);
  await page.goto(`${via.url}/a/${settled}`);
  await page.waitForSelector('.card.settled');
  assert.equal(await page.locator('text=Kept only here').count(), 0);
  assert.equal(await copyOf(page, settled), null, 'the settled ask\'s copy is gone');
  await sleep(800);
  assert.equal(await savedText(settled), undefined, 'nothing was saved into it');
  await page.goto(`${via.url}/a/${newer}`);
  await page.waitForSelector('.card.wizard[data-position="plan"] .custom-input');
  assert.equal(await page.inputValue('.custom-input'), 'Typed on the phone');
  assert.equal(await copyOf(page, newer), null);
  await sleep(800);
  assert.equal(await savedText(newer), 'Typed on the phone');
  assert.deepEqual(problems.filter((p) => !noise(p)), []);
  await context.close();
  await via.close();
});

// ------------------------------------------------------------------ item 4: the review step's why

test('item 4: the review step shows a banked answer\'s why, as the sent page does', async () => {
  const id = await daemon.createSurvey(branchingSurvey());
  const { context, page, problems } = await openContext(browser, daemon, { viewport: { width: 1280, height: 800 } });
  await page.goto(`${daemon.url}/a/${id}`);
  await page.click('.seg.primary');
  await page.waitForSelector('.card.wizard[data-position="q1"]');
  await page.click('.row[data-key="a"] .row-hit');
  await page.click('.row[data-key="a"] .pencil');
  await page.fill('.row[data-key="a"] .justify-input', 'Partners are blocked on it.');
  await page.press('.row[data-key="a"] .justify-input', 'Enter');
  await page.click('.seg[data-key="action.bank"]');
  await page.waitForSelector('.card.wizard[data-position="q2a"]');
  await page.waitForSelector('.bank-chip:has-text("1 banked")');
  await page.fill('.custom-input', 'REST endpoints');
  await page.click('.seg.primary');
  await page.waitForSelector('.card.wizard[data-position="q3"]');
  await page.click('.row[data-key="c"] .row-hit');
  await page.click('.row[data-key="c"] .pencil');
  await page.fill('.row[data-key="c"] .justify-input', 'Users upgrade by hand.');
  await page.press('.row[data-key="c"] .justify-input', 'Enter');
  await page.waitForFunction(() => document.querySelector('.seg.primary')?.dataset.key === 'action.submit');
  await page.click('.seg.primary');
  await page.waitForSelector('dialog[open].recap');
  const why = (q) => page.textContent(`dialog[open].recap .answer-item[data-qid="${q}"] .answer-why`).catch(() => null);
  assert.equal(await why('q1'), ' — Partners are blocked on it.', 'the banked answer\'s why');
  assert.equal(await why('q3'), ' — Users upgrade by hand.');
  await page.screenshot({ path: screenshotPath('desk-c-review-step-why') });
  await passReviewStep(page);
  await page.waitForSelector('.card.settled .answer-list');
  // The sent page shows the same why, and the agent got it.
  assert.equal(await page.textContent('.card.settled .answer-item[data-qid="q1"] .answer-why'), ' — Partners are blocked on it.');
  const result = await daemon.result(id);
  assert.deepEqual(result.answers.find((a) => a.id === 'q1').justifications, { a: 'Partners are blocked on it.' });
  assert.deepEqual(problems, []);
  await context.close();
});

// ------------------------------------------------------------------ item 10: honest progress

test('item 10: the progress text says where you are and about how much is left; the bar never goes back', async () => {
  const id = await daemon.createSurvey(branchingSurvey());
  const { context, page, problems } = await openContext(browser, daemon, { viewport: { width: 1280, height: 800 } });
  const misses = [];
  const seen = [];
  const step = async (label, text) => {
    if (text !== null) {
      await page.waitForFunction((t) => document.querySelector('.progress-text')?.textContent === t, text, { timeout: 3000 })
        .catch(async () => misses.push(`${label}: the text reads ${JSON.stringify(await page.textContent('.progress-text'))}, not ${JSON.stringify(text)}`));
    }
    await sleep(150);
    const now = Number(await page.getAttribute('.bar', 'aria-valuenow'));
    const last = seen.length ? seen[seen.length - 1][1] : 0;
    if (now < last) misses.push(`${label}: the bar went back from ${last} to ${now}`);
    seen.push([label, now]);
  };
  await page.goto(`${daemon.url}/a/${id}`);
  await page.waitForSelector('.card.wizard[data-position="intro"]');
  if (await page.isVisible('.progress-text')) misses.push(`intro: a count before any answer: ${await page.textContent('.progress-text')}`);
  await page.click('.seg.primary');
  await page.waitForSelector('.card.wizard[data-position="q1"]');
  await step('q1', 'Question 1 · about 1 more');
  await page.click('.row[data-key="a"] .row-hit');
  await step('q1 answered', 'Question 1 · about 2 more');
  await page.click('.seg.primary');
  await page.fill('.custom-input', 'REST endpoints');
  await step('q2a answered', 'Question 2 · about 1 more');
  await page.click('.seg.primary');
  await page.waitForSelector('.card.wizard[data-position="q3"]');
  await step('q3', 'Question 3 · the last so far');
  await page.screenshot({ path: screenshotPath('desk-c-progress-last-so-far') });
  // Two options fan out: the path grows from 3 to 7 questions; the bar stays where it was.
  await page.click('.row[data-key="b"] .row-hit');
  await page.click('.row[data-key="a"] .row-hit');
  await step('q3 fans out', 'Question 3 · about 4 more');
  for (const [q, next] of [['x', 'Question 4 · about 3 more'], ['x2', 'Question 5 · about 2 more'], ['y', 'Question 6 · about 1 more']]) {
    await page.click('.seg.primary');
    await page.waitForSelector(`.card.wizard[data-position="${q}"]`);
    await step(q, next);
    await page.fill('.custom-input', `answer to ${q}`);
    await step(`${q} answered`, null);
  }
  await page.click('.seg.primary');
  await page.waitForSelector('.card.wizard[data-position="z"]');
  await step('z', 'Question 7 · the last so far');
  if (Number(await page.getAttribute('.bar', 'aria-valuenow')) >= 100) misses.push('z: the bar is full before the last answer');
  await page.fill('.custom-input', 'p99 under 200 ms');
  await step('z answered', null);
  if (Number(await page.getAttribute('.bar', 'aria-valuenow')) !== 100) misses.push(`z answered: the bar is at ${await page.getAttribute('.bar', 'aria-valuenow')}, not full`);
  // The bar's name for assistive technology is the same honest text.
  if (await page.getAttribute('.bar', 'aria-valuetext') !== 'Question 7 · the last so far') misses.push(`aria-valuetext: ${await page.getAttribute('.bar', 'aria-valuetext')}`);
  assert.deepEqual(misses, [], JSON.stringify(seen));
  assert.deepEqual(problems, []);
  await context.close();
});

test('item 10: the progress fits the phone\'s toolbar, in English and Chinese', async () => {
  for (const [locale, title, want] of [['en-US', 'Phone progress', 'Question 3 · about 4 more'], ['zh-CN', '手机进度', '第 3 题 · 约还有 4 题']]) {
    const id = await daemon.createSurvey(branchingSurvey({ title }));
    const { context, page, problems } = await openContext(browser, daemon, { viewport: { width: 390, height: 844 }, locale });
    await page.goto(`${daemon.url}/a/${id}`);
    await page.click('.seg.primary');
    await page.waitForSelector('.card.wizard[data-position="q1"]');
    await page.click('.row[data-key="a"] .row-hit');
    await page.click('.seg.primary');
    await page.fill('.custom-input', 'REST');
    await page.click('.seg.primary');
    await page.waitForSelector('.card.wizard[data-position="q3"]');
    await page.click('.row[data-key="b"] .row-hit');
    await page.click('.row[data-key="a"] .row-hit');
    await page.waitForFunction((t) => document.querySelector('.progress-text')?.textContent === t, want);
    const fit = await page.$eval('.card.wizard > .toolbar', (bar) => {
      const r = bar.getBoundingClientRect();
      return [...bar.querySelectorAll('.progress-text, .seg:not([hidden])')].every((el) => {
        const b = el.getBoundingClientRect();
        return b.left >= r.left - 1 && b.right <= r.right + 1 && el.scrollWidth <= el.clientWidth + 1;
      });
    });
    assert.ok(fit, `${locale}: the toolbar's text and buttons stay inside it`);
    await page.screenshot({ path: screenshotPath(`desk-c-progress-phone-${locale}`) });
    assert.deepEqual(problems, []);
    await context.close();
  }
});

// ------------------------------------------------------------------ item 10: a frozen daemon

test('item 10: on a frozen daemon Next is busy at once and the banner comes in about 2 s; it goes on when askd is back', async () => {
  const d = await startDaemon();
  const pid = d.child.pid;
  let frozen = false;
  try {
    const id = await d.createSurvey(branchingSurvey());
    const { context, page, problems } = await openContext(browser, d, { viewport: { width: 1280, height: 800 } });
    await page.goto(`${d.url}/a/${id}`);
    await page.click('.seg.primary');
    await page.waitForSelector('.card.wizard[data-position="q1"]');
    await sleep(300);
    process.kill(pid, 'SIGSTOP');
    frozen = true;
    // The choice asks askd for the path, which does not come; Next waits for it.
    await page.click('.row[data-key="a"] .row-hit');
    const misses = [];
    const started = Date.now();
    const [sync, busy] = await page.evaluate(() => {
      const b = document.querySelector('.seg.primary');
      b.click();
      return [b.getAttribute('aria-busy'), getComputedStyle(b, '::after').content];
    });
    if (sync !== 'true') misses.push(`Next is not busy at once (aria-busy ${sync})`);
    if (!busy || busy === 'none') misses.push('Next shows nothing while it waits');
    await page.screenshot({ path: screenshotPath('desk-c-frozen-busy') });
    await page.waitForSelector('.live-banner.reconnecting', { timeout: 12000 });
    const bannerAfter = Date.now() - started;
    if (bannerAfter > 3000) misses.push(`the banner came after ${bannerAfter} ms`);
    assert.match(await page.textContent('.live-banner'), /askd is not answering — reconnecting…/);
    await page.screenshot({ path: screenshotPath('desk-c-frozen-banner') });
    assert.equal(await page.getAttribute('.card.wizard', 'data-position'), 'q1', 'nothing moved while askd was silent');
    process.kill(pid, 'SIGCONT');
    frozen = false;
    // The click was not lost: the walk goes on, the banner goes.
    await page.waitForSelector('.card.wizard[data-position="q2a"]', { timeout: 15000 });
    await page.waitForSelector('.live-banner', { state: 'hidden', timeout: 15000 });
    assert.equal(await page.getAttribute('.seg.primary', 'aria-busy'), null);
    assert.deepEqual(misses, []);
    assert.deepEqual(problems.filter((p) => !noise(p)), []);
    await context.close();
  } finally {
    if (frozen) process.kill(pid, 'SIGCONT');
    await d.stop();
  }
});

// ------------------------------------------------------------------ item 10: "Resume survey"

test('item 10: the inbox says "Resume survey" only for a survey with something to resume', async () => {
  const fresh = await daemon.createSurvey(branchingSurvey({ title: 'Never opened' }));
  const drafted = await daemon.createSurvey(branchingSurvey({ title: 'With a draft' }));
  const banked = await daemon.createSurvey(branchingSurvey({ title: 'With a banked answer' }));
  const later = await daemon.createSurvey(branchingSurvey({ title: 'Drafted while the inbox is open' }));
  assert.equal((await daemon.api('PUT', `/api/asks/${drafted}/draft`, {
    v: 1, position: 'q1', answers: { q1: { selected: ['b'], custom: '', skipped: false, justifications: {} } },
  })).status, 200);
  assert.equal((await daemon.api('POST', `/api/asks/${banked}/bank`, { answers: [{ id: 'q1', selected: ['d'] }] })).status, 200);
  for (const [locale, start, resume] of [['en-US', 'Start survey', 'Resume survey'], ['zh-CN', '开始作答', '继续作答']]) {
    const { context, page, problems } = await openContext(browser, daemon, { locale, viewport: { width: 1280, height: 800 } });
    await page.waitForSelector(`.ask-row[data-ask-id="${fresh}"]`);
    const label = (id) => page.textContent(`.ask-row[data-ask-id="${id}"] .btn.small`);
    await until(() => label(drafted), resume);
    assert.equal(await label(banked), resume);
    assert.equal(await label(fresh), start);
    if (locale === 'en-US') {
      assert.equal(await label(later), start);
      // A draft saved elsewhere while the inbox is open turns it into "Resume survey".
      await daemon.api('PUT', `/api/asks/${later}/draft`, { v: 1, position: 'q1', answers: {} });
      await until(() => label(later), resume);
      await page.screenshot({ path: screenshotPath('desk-c-inbox-start-resume') });
    }
    assert.deepEqual(problems, []);
    await context.close();
  }
});

// ------------------------------------------------------------------ item 10: who settled it, and when

test('item 10: an ask opened after it settled says who settled it, where and when', async () => {
  const bot = await daemon.api('POST', '/api/members', { name: 'ci-bot', agent: true });
  assert.equal(bot.status, 201, JSON.stringify(bot.body));
  const asAgent = (path, body) => fetch(`${daemon.url}${path}`, {
    method: 'POST', headers: { Authorization: `Bearer ${bot.body.token}`, 'Content-Type': 'application/json' }, body: JSON.stringify(body),
  }).then((r) => assert.equal(r.status, 200));
  const questions = await daemon.createQuestions([{ id: 'db', question: 'Which database?', options: [{ label: 'SQLite' }, { label: 'PostgreSQL' }] }]);
  await asAgent(`/api/asks/${questions}/submit`, { answers: [{ id: 'db', selected: ['SQLite'] }], surface: 'client-form' });
  const survey = await daemon.createSurvey(branchingSurvey({ title: 'Answered on another page' }));
  assert.equal((await daemon.api('POST', `/api/asks/${survey}/submit`, { answers: [{ id: 'q1', selected: ['d'] }] })).status, 200);
  const cancelled = await daemon.createSurvey(branchingSurvey({ title: 'Cancelled by the bot' }));
  await asAgent(`/api/asks/${cancelled}/cancel`, {});
  const review = (await daemon.api('POST', '/api/asks', { kind: 'review', args: { title: 'Bot review', items: [
    { id: 'a', title: 'Docs complete' }, { id: 'b', title: 'Tests pass' }] } })).body.ask_id;
  await asAgent(`/api/asks/${review}/submit`, { answers: [{ id: 'a', verdict: 'pass' }, { id: 'b', verdict: 'pass' }], surface: 'panel' });
  const zh = await daemon.createQuestions([{ id: 'db', question: '用哪个数据库？', options: [{ label: 'SQLite' }, { label: 'PostgreSQL' }] }]);
  assert.equal((await daemon.api('POST', `/api/asks/${zh}/submit`, { answers: [{ id: 'db', selected: ['PostgreSQL'] }], surface: 'cli' })).status, 200);

  const when = async (page, id, lang) => {
    const at = (await daemon.view(id)).settledAt;
    return page.evaluate(([a, l]) => new Date(a).toLocaleString(l, { dateStyle: 'medium', timeStyle: 'short' }), [at, lang]);
  };
  for (const [scheme, viewport] of [['light', { width: 1280, height: 800 }], ['dark', { width: 390, height: 844 }]]) {
    const { context, page, problems } = await openContext(browser, daemon, { colorScheme: scheme, viewport });
    const note = async (id) => {
      await page.goto(`${daemon.url}/a/${id}`);
      await page.waitForSelector('.card.settled .settled-note');
      await page.waitForFunction(() => document.querySelector('.settled-note').textContent !== '');
      return page.textContent('.settled-note');
    };
    assert.equal(await note(questions), `Answered in the agent’s own form by the agent (ci-bot) — ${await when(page, questions, 'en')}.`);
    await page.waitForSelector('.card.settled .answer-list');
    await page.screenshot({ path: screenshotPath(`desk-c-settled-who-${scheme}`) });
    assert.equal(await note(survey), `Answered in the browser — ${await when(page, survey, 'en')}.`);
    assert.equal(await note(cancelled), `Cancelled by the agent (ci-bot) — ${await when(page, cancelled, 'en')}.`);
    // A review's result already says where and when: the line names who.
    assert.equal(await note(review), 'Answered by the agent (ci-bot).');
    assert.match(await page.textContent('.rv-result-meta'), /Settled in the panel/);
    assert.equal(await note(zh), `在命令行中回答于 ${await when(page, zh, 'zh-CN')}。`);
    assert.equal(await page.locator('text=settled in another window').count(), 0);
    assert.deepEqual(problems, []);
    await context.close();
  }
  // A page open while the agent settles it learns who did it too.
  const live = await daemon.createQuestions([{ id: 'name', question: 'Project name?' }]);
  const { context, page, problems } = await openContext(browser, daemon);
  await page.goto(`${daemon.url}/a/${live}`);
  await page.waitForSelector('.card.flat');
  await asAgent(`/api/asks/${live}/submit`, { answers: [{ id: 'name', selected: [], custom: 'tiny' }], surface: 'client-form' });
  await page.waitForFunction(() => /^Answered in the agent’s own form by the agent \(ci-bot\) — .+\.$/.test(document.querySelector('.settled-note')?.textContent || ''));
  assert.deepEqual(problems, []);
  await context.close();
});

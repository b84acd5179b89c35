// The human's desk, part A (issue 18): the survey's review step, the Records page, diagrams
// at full size, and every page laid out for a desktop and a phone (no page-wide scroll with
// hostile tokens, compact sticky bars, tap targets). Real daemon, real headless Chromium.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { startDaemon, launchBrowser, openContext, branchingSurvey, screenshotPath, seedDesk, unbroken } from './helpers.mjs';

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
const state = async (id) => (await daemon.view(id)).state;

async function openAsk(id, opts) {
  const { context, page, problems } = await openContext(browser, daemon, opts);
  await page.goto(`${daemon.url}/a/${id}`);
  await page.waitForSelector('.card.wizard, .card.flat, .card.settled');
  return { context, page, problems };
}

// ---------------------------------------------------------------- 3. the review step

test('desk_a_3_a_survey_shows_every_answer_on_its_path_before_it_submits', async () => {
  const id = await daemon.createSurvey(branchingSurvey({ title: 'Desk A review step' }));
  const { context, page, problems } = await openAsk(id);
  await page.click('.seg.primary');
  await page.waitForSelector('.card.wizard[data-position="q1"]');
  await page.click('.row[data-key="a"] .row-hit');
  await page.click('.seg.primary');
  await page.waitForSelector('.card.wizard[data-position="q2a"]');
  await page.fill('.custom-input', 'GraphQL <b>first</b>');
  await page.click('.seg.primary');
  await page.waitForSelector('.card.wizard[data-position="q3"]');
  await page.click('.row[data-key="c"] .row-hit');
  await page.waitForFunction(() => document.querySelector('.seg.primary')?.dataset.key === 'action.submit');
  // Submit opens the review step; nothing is sent yet.
  await page.click('.seg.primary');
  await page.waitForSelector('dialog[open].recap');
  assert.equal(await state(id), 'pending');
  const rows = await page.$$eval('dialog[open].recap .answer-item', (els) => els.map((el) => ({
    id: el.dataset.qid, text: el.textContent, edit: !!el.querySelector('.recap-edit'),
  })));
  assert.deepEqual(rows.map((r) => r.id), ['q1', 'q2a', 'q3'], 'every answer on the path, in order');
  assert.match(rows[0].text, /Which direction fits the release\?[^]*Ship the public API/);
  assert.match(rows[1].text, /GraphQL <b>first<\/b>/, 'typed text stays text');
  assert.equal(await page.locator('dialog[open].recap b').count(), 0);
  assert.match(rows[2].text, /Migration guide/);
  assert.ok(rows.every((r) => r.edit), 'each answer has an Edit');
  assert.equal(await page.evaluate(() => document.activeElement?.value), 'yes', 'Submit is focused');
  await page.screenshot({ path: screenshotPath('desk-a-3-review-step') });
  // Edit goes back to that question, answers kept.
  await page.click('dialog[open].recap .recap-edit[data-qid="q2a"]');
  await page.waitForSelector('dialog[open]', { state: 'detached' });
  await page.waitForSelector('.card.wizard[data-position="q2a"]');
  assert.equal(await page.inputValue('.custom-input'), 'GraphQL <b>first</b>');
  await page.fill('.custom-input', 'REST endpoints');
  await page.click('.seg.primary');
  await page.waitForSelector('.card.wizard[data-position="q3"]');
  // Keep editing (and Esc) close the step and keep the survey open.
  await page.click('.seg.primary');
  await page.click('dialog[open].recap button[value="no"]');
  await page.waitForSelector('dialog[open]', { state: 'detached' });
  await page.keyboard.press('Enter');
  await page.waitForSelector('dialog[open].recap');
  await page.keyboard.press('Escape');
  await page.waitForSelector('dialog[open]', { state: 'detached' });
  assert.equal(await state(id), 'pending');
  // Enter on the last question, then Enter on Submit: sent, with the edited answer.
  await page.keyboard.press('Enter');
  await page.waitForSelector('dialog[open].recap .answer-item[data-qid="q2a"]:has-text("REST endpoints")');
  await page.keyboard.press('Enter');
  await page.waitForSelector('.card.settled:has-text("Sent to the agent")');
  const result = await daemon.result(id);
  assert.equal(result.outcome, 'answered');
  assert.deepEqual(result.path, ['q1', 'q2a', 'q3']);
  assert.equal(result.answers.find((a) => a.id === 'q2a').custom, 'REST endpoints');
  assert.deepEqual(problems, []);
  await context.close();
});

test('desk_a_3_banked_answers_show_locked_in_the_review_step', async () => {
  const s = branchingSurvey({ title: 'Desk A banked' });
  const id = await daemon.createSurvey(s);
  const { context, page, problems } = await openAsk(id);
  await page.click('.seg.primary');
  await page.click('.row[data-key="b"] .row-hit');
  await page.click('.seg[data-key="action.bank"]');
  await page.waitForSelector('.card.wizard[data-position="q2b"]');
  await page.waitForSelector('.bank-chip:has-text("1 banked")');
  await page.fill('.custom-input', 'The parser');
  await page.click('.seg.primary');
  await page.click('.row[data-key="e"] .row-hit');
  await page.click('.seg.primary');
  await page.waitForSelector('dialog[open].recap');
  assert.equal(await page.locator('dialog[open].recap .answer-item[data-qid="q1"] .recap-edit').count(), 0);
  assert.equal(await page.locator('dialog[open].recap .answer-item[data-qid="q1"] .locked-chip').count(), 1);
  assert.equal(await page.locator('dialog[open].recap .answer-item[data-qid="q2b"] .recap-edit').count(), 1);
  await page.click('dialog[open].recap button[value="yes"]');
  await page.waitForSelector('.card.settled');
  assert.deepEqual((await daemon.result(id)).path, ['q1', 'q2b', 'q3']);
  assert.deepEqual(problems, []);
  await context.close();
});

// ---------------------------------------------------------------- 4. the Records page

async function answeredQuestions(session, question, pick, custom) {
  const id = await daemon.createQuestions([{ id: 'q', question, options: [{ label: 'SQLite' }, { label: 'PostgreSQL <img src=x>' }] }], session);
  const r = await daemon.api('POST', `/api/asks/${id}/submit`, { answers: [{ id: 'q', selected: [pick], ...(custom ? { custom } : {}) }] });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return id;
}

test('desk_a_4_records_page_lists_filters_pages_and_exports', async () => {
  const s1 = (await daemon.api('POST', '/api/sessions', { client: 'claude-code', workspace: '/home/me/records-one' })).body.session.id;
  const s2 = (await daemon.api('POST', '/api/sessions', { client: 'codex', workspace: '/home/me/records-two' })).body.session.id;
  // 55 questions in s1 (more than one page), one survey and one odd question in s2 (other
  // tests of this file settle asks too: the totals count from what was there before).
  const before = (await daemon.api('GET', '/api/records')).body.records.length;
  const many = [];
  for (let i = 0; i < 55; i++) many.push(await answeredQuestions(s1, `Which **store** ${i}?`, 'SQLite'));
  const odd = await answeredQuestions(s2, 'Which engine for the zebra index?', 'PostgreSQL <img src=x>');
  const survey = await daemon.createSurvey(branchingSurvey({ title: 'Records **survey**' }), s2);
  const r = await daemon.api('POST', `/api/asks/${survey}/submit`, { answers: [{ id: 'q1', selected: ['d'] }] });
  assert.equal(r.status, 200, JSON.stringify(r.body));

  const { context, page, problems } = await openContext(browser, daemon, { viewport: DESKTOP });
  await page.waitForSelector('.inbox-title');
  await page.click('.inbox-head a[href="/records"]');
  await page.waitForSelector('.rec-list .rec');
  assert.equal(new URL(page.url()).pathname, '/records');
  assert.equal(await page.title(), 'Records · askd');
  // Newest first, 50 per page, with who / where / when and the answers.
  const ids = () => page.$$eval('.rec-list .rec', (els) => els.map((el) => el.dataset.askId));
  let shown = await ids();
  assert.equal(shown.length, 50);
  assert.equal(shown[0], survey);
  assert.equal(shown[1], odd);
  const first = page.locator(`.rec[data-ask-id="${survey}"]`);
  assert.equal(await first.locator('.rec-title').textContent(), 'Records survey', 'a title without Markdown marks');
  assert.match(await first.locator('.rec-meta').textContent(), /Survey · Answered · codex · \/home\/me\/records-two/);
  assert.ok(await first.locator('.rec-meta time').getAttribute('datetime'));
  assert.match(await first.locator('.answer-item[data-qid="q1"]').textContent(), /Cut scope to bug fixes only/);
  const oddRow = page.locator(`.rec[data-ask-id="${odd}"]`);
  assert.match(await oddRow.locator('.rec-meta').textContent(), /answered in page/);
  assert.equal(await oddRow.locator('.answer-label').textContent(), 'PostgreSQL <img src=x>');
  assert.equal(await page.locator('.rec-list img, .rec-list script').count(), 0, 'agent and human text is text');
  // Load more: the next page from the cursor, nothing twice.
  await page.click('.rec-more');
  const total = before + 57;
  await page.waitForFunction((n) => document.querySelectorAll('.rec-list .rec').length === Math.min(n, 100), total);
  shown = await ids();
  assert.equal(new Set(shown).size, Math.min(total, 100), 'nothing twice');
  assert.equal(await page.locator('.rec-more').isHidden(), total <= 100);
  // Filters: kind, session, text (the daemon's search), dates.
  await page.selectOption('.rec-session', s2);
  await page.waitForFunction(() => document.querySelectorAll('.rec-list .rec').length === 2);
  assert.deepEqual(await ids(), [survey, odd]);
  await page.selectOption('.rec-kind', 'survey');
  await page.waitForFunction(() => document.querySelectorAll('.rec-list .rec').length === 1);
  assert.deepEqual(await ids(), [survey]);
  await page.selectOption('.rec-kind', 'questions');
  await page.waitForFunction((id) => document.querySelectorAll('.rec-list .rec').length === 1 && document.querySelector('.rec').dataset.askId === id, odd);
  await page.selectOption('.rec-kind', '');
  await page.selectOption('.rec-session', '');
  await page.fill('.rec-text', 'ZEBRA');
  await page.waitForFunction(() => document.querySelectorAll('.rec-list .rec').length === 1);
  assert.deepEqual(await ids(), [odd]);
  await page.fill('.rec-text', 'Which **store** 42?');
  await page.waitForFunction((id) => document.querySelectorAll('.rec-list .rec').length === 1 && document.querySelector('.rec').dataset.askId === id, many[42]);
  await page.fill('.rec-text', '');
  const day = (d) => `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
  const today = new Date();
  const tomorrow = new Date(Date.now() + 86400000);
  await page.fill('.rec-from', day(tomorrow));
  await page.waitForSelector('.rec-status:has-text("No records match")');
  assert.equal((await ids()).length, 0);
  await page.fill('.rec-from', day(today));
  await page.fill('.rec-to', day(today));
  await page.waitForFunction(() => document.querySelectorAll('.rec-list .rec').length === 50);
  await page.fill('.rec-from', '');
  await page.fill('.rec-to', '');
  // Export: the whole filtered list (every page), as JSON.
  await page.selectOption('.rec-session', s1);
  await page.waitForFunction(() => document.querySelectorAll('.rec-list .rec').length === 50);
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('.rec-export')]);
  assert.match(download.suggestedFilename(), /^askd-records-\d{4}-\d{2}-\d{2}\.json$/);
  const exported = JSON.parse(readFileSync(await download.path(), 'utf8'));
  assert.equal(exported.records.length, 55, 'all 55 of the session, not just the first page');
  assert.deepEqual(new Set(exported.records.map((x) => x.ask_id)), new Set(many));
  assert.ok(exported.records.every((x) => x.record && x.record.answers), 'records with their answers');
  await page.screenshot({ path: screenshotPath('desk-a-4-records'), fullPage: false });
  // A malformed filter gets the daemon's clear message, not a broken page.
  const bad = await daemon.api('GET', '/api/records?since=soon');
  assert.equal(bad.status, 422);
  assert.match(bad.body.errors[0].message, /since must be a date/);
  assert.deepEqual(problems, []);
  await context.close();
});

// ---------------------------------------------------------------- 7. diagrams at full size

test('desk_a_7_a_diagram_opens_full_size_and_zooms', async () => {
  const s = branchingSurvey({ title: 'Desk A diagram' });
  // A tall diagram: shown inline it is a sliver.
  s.questions.q1.options[0].diagram = `flowchart TD\n${Array.from({ length: 14 }, (_, i) => `  N${i}[Step ${i}] --> N${i + 1}[Step ${i + 1}]`).join('\n')}`;
  const id = await daemon.createSurvey(s);
  const { context, page, problems } = await openAsk(id, { viewport: DESKTOP });
  await page.click('.seg.primary');
  await page.click('.row[data-key="a"] .tool[aria-label="Show diagram"]');
  await page.waitForSelector('.panel img.diagram');
  await page.waitForFunction(() => document.querySelector('.panel img.diagram')?.complete);
  // The server's SVG says its real size in its viewBox.
  const src = await page.getAttribute('.panel img.diagram', 'src');
  const svg = await page.evaluate(async (u) => (await fetch(u)).text(), src);
  const [, , vw, vh] = /viewBox="([^"]+)"/.exec(svg)[1].split(/[\s,]+/).map(Number);
  const inline = await page.$eval('.panel img.diagram', (img) => img.getBoundingClientRect().toJSON());
  assert.ok(inline.height < vh / 4, `the inline preview is a sliver (${inline.width}×${inline.height} of ${vw}×${vh})`);
  await page.click('.panel .diagram-open');
  await page.waitForSelector('dialog[open][data-ready].diagram-dialog img.diagram-full');
  await page.waitForFunction(() => document.querySelector('dialog[open] img.diagram-full')?.complete);
  const full = await page.$eval('dialog[open] img.diagram-full', (img) => img.getBoundingClientRect().toJSON());
  assert.ok(Math.abs(full.width - vw) <= 1 && Math.abs(full.height - vh) <= 2, `real size: ${full.width}×${full.height} vs ${vw}×${vh}`);
  assert.equal(await page.textContent('dialog[open] .zoom-level'), '100%');
  // The view scrolls inside itself (a tall diagram), never the page.
  const scroll = await page.$eval('dialog[open] .diagram-scroll', (el) => ({ sh: el.scrollHeight, ch: el.clientHeight, oy: getComputedStyle(el).overflowY }));
  assert.equal(scroll.oy, 'auto');
  assert.ok(scroll.sh > scroll.ch, 'the tall diagram scrolls in the dialog');
  await page.click('dialog[open] button[aria-label="Zoom in"]');
  assert.equal(await page.textContent('dialog[open] .zoom-level'), '150%');
  const zoomed = await page.$eval('dialog[open] img.diagram-full', (img) => img.getBoundingClientRect().width);
  assert.ok(Math.abs(zoomed - vw * 1.5) <= 1, `150%: ${zoomed}`);
  await page.click('dialog[open] button[aria-label="Zoom out"]');
  await page.click('dialog[open] button[aria-label="Zoom out"]');
  assert.equal(await page.textContent('dialog[open] .zoom-level'), '75%');
  await page.screenshot({ path: screenshotPath('desk-a-7-diagram-full') });
  // Esc closes it and leaves the survey where it was.
  await page.keyboard.press('Escape');
  await page.waitForSelector('dialog.diagram-dialog', { state: 'detached' });
  await page.waitForSelector('.card.wizard[data-position="q1"] .panel img.diagram');
  assert.equal(await state(id), 'pending');
  assert.deepEqual(problems, []);
  await context.close();
});

// ---------------------------------------------------------------- 5 and 6. every page, two screens

const limit = (max) => (s) => `${s} ${unbroken(Math.min(3000, max) - s.length - 1)}`;
let hostile;
let plain;

async function eachPage(pages, viewport, fn) {
  const { context, page, problems } = await openContext(browser, daemon, { viewport });
  for (const p of pages) {
    await page.goto(`${daemon.url}${p.path}`);
    await page.waitForSelector(p.ready);
    if (p.prepare) await p.prepare(page);
    await page.waitForTimeout(60);
    await fn(page, p);
  }
  assert.deepEqual(problems, []);
  await context.close();
}

test('desk_a_5_no_page_scrolls_sideways_with_a_3000_character_token_in_every_agent_field', async () => {
  hostile = hostile || await seedDesk(daemon, (s, max = 3000) => limit(max)(s));
  for (const viewport of [DESKTOP, PHONE]) {
    const failures = [];
    await eachPage(hostile, viewport, async (page, p) => {
      const m = await page.evaluate(() => {
        const clipped = [];
        for (const el of document.body.querySelectorAll('*')) {
          if (el.closest('dialog:not([open]), [hidden]') || /^(INPUT|TEXTAREA|SELECT|OPTION|svg|path)$/i.test(el.tagName)) continue;
          const cs = getComputedStyle(el);
          // A visually hidden label (1 px, clipped on purpose) is not content.
          if (cs.overflowX === 'auto' || cs.overflowX === 'scroll' || cs.textOverflow === 'ellipsis' || el.clientWidth <= 1) continue;
          if (el.scrollWidth > el.clientWidth + 1) clipped.push(`${el.tagName.toLowerCase()}.${[...el.classList].join('.')} ${el.scrollWidth}>${el.clientWidth}`);
        }
        return { doc: document.documentElement.scrollWidth, vw: window.innerWidth, clipped: clipped.slice(0, 5) };
      });
      await page.screenshot({ path: screenshotPath(`desk-a-5-${p.name}-${viewport.width}`) });
      if (m.doc > m.vw) failures.push(`${p.name} at ${viewport.width}: scrollWidth ${m.doc} > ${m.vw}`);
      if (m.clipped.length) failures.push(`${p.name} at ${viewport.width}: ${m.clipped.join(', ')}`);
    });
    assert.deepEqual(failures, []);
  }
});

test('desk_a_6_phone_tap_targets_sticky_bars_and_one_column', async () => {
  plain = plain || await seedDesk(daemon);
  const failures = [];
  await eachPage(plain, PHONE, async (page, p) => {
    // Every visible control is at least 44 px high (inline links inside prose excepted).
    const small = await page.evaluate(() => {
      const out = [];
      for (const el of document.querySelectorAll('button, a[href], input, select, textarea, [role="button"], [role="radio"], [role="checkbox"]')) {
        if (el.closest('.prose, .answer-list, .tooltip, dialog:not([open])')) continue;
        const r = el.getBoundingClientRect();
        if (!r.width || !r.height || getComputedStyle(el).visibility === 'hidden') continue;
        let box = r;
        // A checkbox or radio counts with the label around it.
        if (el.matches('input[type="checkbox"], input[type="radio"]')) box = (el.closest('label') || el).getBoundingClientRect();
        if (box.height < 43.5) out.push(`${el.tagName.toLowerCase()}.${[...el.classList].join('.')}[${(el.getAttribute('aria-label') || el.textContent || '').trim().slice(0, 20)}] ${Math.round(box.height)}px`);
      }
      return out;
    });
    if (small.length) failures.push(`${p.name}: ${small.slice(0, 8).join(', ')}${small.length > 8 ? ` (+${small.length - 8})` : ''}`);
    // One column: no page-wide horizontal scroll.
    const sw = await page.evaluate(() => document.documentElement.scrollWidth);
    if (sw > PHONE.width) failures.push(`${p.name}: scrollWidth ${sw}`);
    if (p.name === 'wizard-question' || p.name === 'wizard-intro') {
      // The wizard's primary action is on the first screen, without scrolling.
      await page.evaluate(() => window.scrollTo(0, 0));
      const b = await page.$eval('.card.wizard .seg.primary', (el) => el.getBoundingClientRect().toJSON());
      if (b.bottom > PHONE.height || b.top < 0 || b.left < 0 || b.right > PHONE.width) failures.push(`${p.name}: Next at ${Math.round(b.top)}–${Math.round(b.bottom)} (x ${Math.round(b.left)}–${Math.round(b.right)}) is off the first screen`);
    }
    if (p.name === 'review') {
      // The sticky head and foot together cover at most a fifth of the screen.
      await page.evaluate(() => window.scrollTo(0, 400));
      await page.waitForTimeout(50);
      const cover = await page.evaluate(() => ['.rv-sticky', '.rv-foot'].reduce((n, s) => {
        const el = document.querySelector(s);
        const r = el.getBoundingClientRect();
        const top = Math.max(0, r.top);
        const bottom = Math.min(window.innerHeight, r.bottom);
        return n + Math.max(0, bottom - top);
      }, 0));
      if (cover > PHONE.height * 0.2) failures.push(`review: sticky bars cover ${Math.round(cover)} px (${Math.round((cover / PHONE.height) * 100)}%)`);
    }
    if (p.name === 'inbox') {
      // The header is one tidy block: every item inside the screen, at most two rows.
      const head = await page.$eval('.inbox-head', (el) => ({ h: el.getBoundingClientRect().height, right: Math.max(...[...el.querySelectorAll('*')].map((c) => c.getBoundingClientRect().right)) }));
      if (head.right > PHONE.width) failures.push(`inbox: header reaches ${Math.round(head.right)} px`);
      if (head.h > 110) failures.push(`inbox: header is ${Math.round(head.h)} px high`);
    }
    if (p.name === 'session') {
      // Tables scroll inside themselves or stack; the cards never grow past the screen.
      const wide = await page.$$eval('.card', (els) => els.filter((el) => el.getBoundingClientRect().right > window.innerWidth + 1).length);
      if (wide) failures.push(`session: ${wide} card(s) wider than the screen`);
    }
  });
  assert.deepEqual(failures, []);
});

test('desk_a_records_strings_have_the_same_keys_in_english_and_chinese', async () => {
  const en = (await import('../../ui/i18n/records-en.js')).default;
  const zh = (await import('../../ui/i18n/records-zh-CN.js')).default;
  assert.deepEqual(Object.keys(zh).sort(), Object.keys(en).sort());
  for (const k of Object.keys(en)) {
    assert.deepEqual((zh[k].match(/\{\w+\}/g) || []).sort(), (en[k].match(/\{\w+\}/g) || []).sort(), k);
  }
});

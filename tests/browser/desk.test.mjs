// The human's desk (issue 18): no one click settles an ask without a way back, settled pages
// show what was answered, titles read as plain text, long tokens wrap, and the small print
// has enough contrast. Everything runs against the real daemon and headless Chromium.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startDaemon, launchBrowser, openContext, branchingSurvey, screenshotPath, passReviewStep } from './helpers.mjs';

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

async function openAsk(id, opts) {
  const { context, page, problems } = await openContext(browser, daemon, opts);
  await page.goto(`${daemon.url}/a/${id}`);
  await page.waitForSelector('.card.wizard, .card.flat, .card.review, .card.settled');
  return { context, page, problems };
}

const state = async (id) => (await daemon.view(id)).state;

/** Answers the open confirmation with No (or Escape) and checks the ask is still pending. */
async function refuse(page, id, how) {
  await page.waitForSelector('dialog[open] .dialog-text');
  if (how === 'escape') await page.keyboard.press('Escape');
  else await page.click('dialog[open] button[value="no"]');
  await page.waitForSelector('dialog[open]', { state: 'detached' });
  await page.waitForTimeout(150);
  assert.equal(await state(id), 'pending', 'refusing the confirmation leaves the ask open');
  assert.equal(await page.locator('.card.settled').count(), 0);
}

// ---------------------------------------------------------------- 1. no one-click settle

test('desk_1_cancel_is_not_an_x_and_asks_first', async () => {
  const id = await daemon.createSurvey(branchingSurvey({ title: 'Desk 1 cancel' }));
  const { context, page, problems } = await openAsk(id);
  await page.waitForSelector('.card.wizard[data-position="intro"]');
  // No head tool draws the × ("close"): closing the page is Put away, which keeps the ask.
  const crosses = await page.$$eval('.head-tools .tool path', (ps) => ps.filter((p) => p.getAttribute('d') === 'M6 6l12 12').length);
  assert.equal(crosses, 0, 'no × in the card head');
  const cancel = '.head-tools .tool[aria-label="Cancel the survey…"]';
  // With nothing answered, cancelling still asks; "Keep answering" is focused, so a repeated
  // Enter does not end the survey.
  await page.click(cancel);
  await page.waitForSelector('dialog[open] .dialog-text');
  assert.match(await page.textContent('dialog[open] .dialog-text'), /cannot be undone/);
  assert.equal(await page.evaluate(() => document.activeElement?.value), 'no');
  await refuse(page, id, 'no');
  // The X shortcut asks the same; Escape refuses.
  await page.keyboard.press('Shift+X');
  await refuse(page, id, 'escape');
  // Confirming cancels.
  await page.click(cancel);
  await page.click('dialog[open] button[value="yes"]');
  await page.waitForSelector('.card.settled.outcome-cancelled');
  assert.equal((await daemon.result(id)).outcome, 'cancelled');
  assert.deepEqual(problems, []);
  await context.close();
});

test('desk_1_reroll_push_discuss_ask_before_ending_the_survey', async () => {
  for (const action of ['reroll', 'push', 'discuss']) {
    const id = await daemon.createSurvey(branchingSurvey({ title: `Desk 1 ${action}` }));
    const { context, page, problems } = await openAsk(id);
    await page.waitForSelector('.card.wizard[data-position="intro"]');
    // No answers at all: the action still asks first.
    await page.click(`.seg[data-key="action.${action}"]`);
    await page.waitForSelector('dialog[open] .dialog-text');
    assert.match(await page.textContent('dialog[open] .dialog-text'), /ends the survey/);
    await refuse(page, id, 'no');
    // The shortcut letter asks too.
    await page.keyboard.press(`Shift+${action[0].toUpperCase()}`);
    await refuse(page, id, 'escape');
    await page.click(`.seg[data-key="action.${action}"]`);
    await page.click('dialog[open] button[value="yes"]');
    await page.waitForSelector(`.card.settled.outcome-${action}`);
    assert.equal((await daemon.result(id)).outcome, action);
    assert.deepEqual(problems, []);
    await context.close();
  }
});

test('desk_1_quick_template_shows_its_answers_and_asks_before_submitting', async () => {
  const id = await daemon.createSurvey(branchingSurvey({ title: 'Desk 1 quick' }));
  const { context, page, problems } = await openAsk(id);
  await page.click('.seg[data-key="action.quick"]');
  await page.waitForSelector('.card.wizard[data-position="quick"]');
  await page.click('.row[data-key="a"] .row-hit');
  // The preview lists what the template fills in, question by question, before anything is sent.
  await page.waitForSelector('dialog[open] .answer-list');
  assert.match(await page.textContent('dialog[open] .dialog-text'), /Public API first/);
  const rows = await page.$$eval('dialog[open] .answer-item', (els) => els.map((el) => [el.dataset.qid, el.textContent]));
  assert.deepEqual(rows.map((r) => r[0]), ['q1', 'q2a', 'q3']);
  assert.match(rows[0][1], /Which direction fits the release\?[^]*Ship the public API/);
  assert.match(rows[1][1], /REST endpoints/);
  assert.match(rows[2][1], /Migration guide/);
  await page.screenshot({ path: screenshotPath('desk-1-quick-preview') });
  assert.equal(await page.evaluate(() => document.activeElement?.value), 'no', 'Back is focused');
  await refuse(page, id, 'no');
  await page.waitForSelector('.card.wizard[data-position="quick"]');
  // Confirming submits exactly that.
  await page.click('.row[data-key="a"] .row-hit');
  await page.click('dialog[open] button[value="yes"]');
  await page.waitForSelector('.card.settled');
  const result = await daemon.result(id);
  assert.equal(result.outcome, 'answered');
  assert.deepEqual(result.path, ['q1', 'q2a', 'q3']);
  assert.deepEqual(problems, []);
  await context.close();
});

// ---------------------------------------------------------------- 2. settled pages show the answers

test('desk_2_settled_survey_shows_the_answers_to_anyone_who_opens_it', async () => {
  const id = await daemon.createSurvey(branchingSurvey({ title: 'Desk 2 survey' }));
  // Answered through the API (another window, the terminal UI): the page reads the stored result.
  const r = await daemon.api('POST', `/api/asks/${id}/submit`, { answers: [
    { id: 'q1', selected: ['a'], justifications: { a: 'Partners <b>wait</b>.' } },
    { id: 'q2a', selected: [], custom: 'REST endpoints' },
    { id: 'q3', selected: ['c', 'd'] },
  ] });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  const { context, page, problems } = await openAsk(id);
  await page.waitForSelector('.card.settled .answer-list');
  const result = (await daemon.view(id)).result;
  const rows = await page.$$eval('.settled-answers .answer-item', (els) => els.map((el) => ({
    id: el.dataset.qid,
    picks: [...el.querySelectorAll('.answer-pick .answer-label')].map((x) => x.textContent),
    why: [...el.querySelectorAll('.answer-why')].map((x) => x.textContent),
    custom: el.querySelector('.answer-custom')?.textContent ?? null,
  })));
  assert.deepEqual(rows.map((x) => x.id), result.path);
  for (const a of result.answers) {
    const row = rows.find((x) => x.id === a.id);
    assert.deepEqual(row.picks, a.selected.map((s) => s.label));
    assert.equal(row.custom, a.custom ?? null);
  }
  assert.deepEqual(rows[0].why, [' — Partners <b>wait</b>.'], 'a reason is text, not markup');
  assert.equal(await page.locator('.settled-answers b').count(), 0);
  await page.screenshot({ path: screenshotPath('desk-2-settled-survey'), fullPage: true });

  // The person who answered sees the same, right after sending.
  const mine = await daemon.createSurvey(branchingSurvey({ title: 'Desk 2 mine' }));
  await page.goto(`${daemon.url}/a/${mine}`);
  await page.waitForSelector('.card.wizard[data-position="intro"]');
  await page.click('.seg.primary');
  await page.click('.row[data-key="d"] .row-hit');
  await page.waitForFunction(() => document.querySelector('.seg.primary .seg-label')?.textContent === 'Submit survey');
  await page.click('.seg.primary');
  await passReviewStep(page);
  await page.waitForSelector('.card.settled:has-text("Sent to the agent") .answer-item[data-qid="q1"]:has-text("Cut scope to bug fixes only")');
  assert.deepEqual(problems, []);
  await context.close();
});

test('desk_2_settled_questions_show_the_answers', async () => {
  const id = await daemon.createQuestions([
    { id: 'db', question: 'Which **database**?', options: [{ label: 'SQLite (Recommended)' }, { label: 'PostgreSQL' }] },
    { id: 'name', question: 'Project name?' },
    { id: 'langs', question: 'Which languages?', multi_select: true, options: [{ label: 'Rust' }, { label: 'Go' }] },
  ]);
  const r = await daemon.api('POST', `/api/asks/${id}/submit`, { answers: [
    { id: 'db', selected: ['PostgreSQL'] }, { id: 'name', selected: [], custom: 'tiny-<i>service</i>' },
    { id: 'langs', selected: ['Rust', 'Go'] },
  ] });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  const { context, page, problems } = await openAsk(id);
  await page.waitForSelector('.card.settled .answer-list');
  const result = (await daemon.view(id)).result;
  const rows = await page.$$eval('.settled-answers .answer-item', (els) => els.map((el) => ({
    id: el.dataset.qid,
    q: el.querySelector('.answer-q').textContent,
    picks: [...el.querySelectorAll('.answer-label')].map((x) => x.textContent),
    custom: el.querySelector('.answer-custom')?.textContent ?? null,
  })));
  assert.deepEqual(rows.map((x) => x.id), result.answers.map((a) => a.id));
  for (const a of result.answers) {
    const row = rows.find((x) => x.id === a.id);
    assert.deepEqual(row.picks, a.selected);
    assert.equal(row.custom, a.custom ?? null);
  }
  assert.equal(rows[0].q.trim(), 'Which database?', 'the prompt is the rendered Markdown');
  assert.equal(await page.locator('.settled-answers i').count(), 0, 'typed text is text');
  // The person who answers on the card sees it too.
  const mine = await daemon.createQuestions([{ id: 'go', question: 'Go ahead?', options: [{ label: 'Yes' }, { label: 'No' }] }]);
  await page.goto(`${daemon.url}/a/${mine}`);
  await page.waitForSelector('.card.flat');
  await page.click('.row-hit >> nth=1');
  await page.click('.seg.primary');
  await page.waitForSelector('.card.settled:has-text("Sent to the agent") .answer-item[data-qid="go"] .answer-label:has-text("No")');
  assert.deepEqual(problems, []);
  await context.close();
});

test('desk_2_answer_strings_have_the_same_keys_in_english_and_chinese', async () => {
  const { context, page } = await openContext(browser, daemon);
  const tables = await page.evaluate(async () => (await import('/assets/js/questions.js')).ANSWER_STRINGS);
  assert.deepEqual(Object.keys(tables.zh).sort(), Object.keys(tables.en).sort());
  for (const k of Object.keys(tables.en)) {
    assert.notEqual(tables.zh[k].trim(), '', k);
    assert.deepEqual((tables.zh[k].match(/\{\w+\}/g) || []).sort(), (tables.en[k].match(/\{\w+\}/g) || []).sort(), k);
  }
  await context.close();
});

// ---------------------------------------------------------------- 3. titles without Markdown marks

test('desk_3_titles_are_plain_text_without_markdown_marks', async () => {
  const sid = (await daemon.api('POST', '/api/sessions', { client: 'claude-code', workspace: '/home/me/desk3' })).body.session.id;
  const survey = await daemon.createSurvey(branchingSurvey({ title: 'Ship the **database** _now_ (`max_items`)' }), sid);
  const questions = await daemon.createQuestions([
    { id: 'db', question: 'Which **database** for [the shop](https://example.com/shop)? Keep snake_case_name.', options: [{ label: 'SQLite' }, { label: 'PostgreSQL' }] },
  ], sid);
  const { context, page, problems } = await openContext(browser, daemon);
  // The inbox.
  const title = (id) => page.textContent(`.ask-row[data-ask-id="${id}"] .ask-title`);
  await page.waitForSelector(`.ask-row[data-ask-id="${survey}"]`);
  await page.waitForFunction((id) => !/Questions/.test(document.querySelector(`.ask-row[data-ask-id="${id}"] .ask-title`)?.textContent || 'Questions'), questions);
  assert.equal(await title(survey), 'Ship the database now (max_items)');
  assert.equal(await title(questions), 'Which database for the shop? Keep snake_case_name.');
  // The ask page: the tab title and the card's title.
  await page.goto(`${daemon.url}/a/${survey}`);
  await page.waitForSelector('.card.wizard[data-position="intro"]');
  assert.equal(await page.title(), 'Ship the database now (max_items) · askd');
  assert.equal(await page.textContent('.card-title'), 'Ship the database now (max_items)');
  assert.equal(await page.textContent('.intro-title'), 'Ship the database now (max_items)');
  await page.goto(`${daemon.url}/a/${questions}`);
  await page.waitForSelector('.card.flat');
  assert.equal(await page.title(), 'Which database for the shop? Keep snake_case_name. · askd');
  // The session page's settled questions.
  const r = await daemon.api('POST', `/api/asks/${questions}/submit`, { answers: [{ id: 'db', selected: ['SQLite'] }] });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  await page.goto(`${daemon.url}/sessions/${sid}`);
  await page.waitForSelector(`[data-section="questions"] tr[data-ask-id="${questions}"]`);
  assert.equal(await page.textContent(`[data-section="questions"] tr[data-ask-id="${questions}"] td >> nth=2`),
    'Which database for the shop? Keep snake_case_name.');
  assert.deepEqual(problems, []);
  await context.close();
});

// ---------------------------------------------------------------- 4. long tokens wrap

const TOKEN = 'x'.repeat(2990) + 'TOKENEND';
const wide = (n) => `${'a'.repeat(n - 3)}END`;
const TABLE = `| ${Array.from({ length: 12 }, (_, i) => `column_${i}_header`).join(' | ')} |\n|${' --- |'.repeat(12)}\n| ${Array.from({ length: 12 }, () => 'cell').join(' | ')} |`;

/** No page-level horizontal scroll at 1280×800 and 390×844 (each viewport one context). */
async function fits(url, ready, label, prepare) {
  for (const viewport of [{ width: 1280, height: 800 }, { width: 390, height: 844 }]) {
    const { context, page, problems } = await openContext(browser, daemon, { viewport });
    await page.goto(url);
    await page.waitForSelector(ready);
    if (prepare) await prepare(page);
    await page.waitForTimeout(100);
    const m = await page.evaluate(() => {
      // Clipped overflow counts too (a card with overflow: hidden hides it from the page's
      // scrollWidth): any box whose content is wider than it, unless it scrolls by design
      // (overflow-x auto/scroll, such as a table) or ellipsises on purpose.
      const clipped = [];
      for (const el of document.body.querySelectorAll('*')) {
        if (el.closest('dialog:not([open]), [hidden]') || /^(INPUT|TEXTAREA|SELECT|svg|path)$/i.test(el.tagName)) continue;
        const cs = getComputedStyle(el);
        if (cs.overflowX === 'auto' || cs.overflowX === 'scroll' || cs.textOverflow === 'ellipsis' || el.clientWidth === 0) continue;
        if (el.scrollWidth > el.clientWidth + 1) clipped.push(`${el.tagName.toLowerCase()}.${[...el.classList].join('.')} ${el.scrollWidth}>${el.clientWidth}`);
      }
      return { doc: document.documentElement.scrollWidth, body: document.body.scrollWidth, vw: window.innerWidth, clipped };
    });
    await page.screenshot({ path: screenshotPath(`desk-4-${label}-${viewport.width}`) });
    assert.ok(m.doc <= m.vw && m.body <= m.vw, `${label} at ${viewport.width}px: scrollWidth ${m.doc}/${m.body} > ${m.vw}`);
    assert.deepEqual(m.clipped, [], `${label} at ${viewport.width}px: content wider than its box`);
    assert.deepEqual(problems, []);
    await context.close();
  }
}

test('desk_4_long_tokens_wrap_in_review_survey_and_questions', async () => {
  // A review item: the token in its detail, with a wide table.
  const rv = await daemon.api('POST', '/api/asks', { kind: 'review', args: { title: 'Desk 4 review', items: [
    { id: 'a', title: wide(120), detail: `${TOKEN}\n\n${TABLE}`, group: 'G' },
    { id: 'b', title: 'Second item', detail: 'short' },
  ] } });
  assert.equal(rv.status, 201, JSON.stringify(rv.body));
  await fits(`${daemon.url}/a/${rv.body.ask_id}`, 'form.rv-panel', 'review', async (page) => {
    await page.click('.rv-row[data-id="a"] .rv-detail-toggle');
    await page.waitForSelector('.rv-row[data-id="a"] :text("TOKENEND")');
  });

  // A survey: the token in the prompt, the detail and an option's insight; option label and
  // description at their longest.
  const s = branchingSurvey({ title: 'Desk 4 survey' });
  s.questions.q1.prompt = `Pick ${TOKEN}`;
  s.questions.q1.detail = `${TOKEN}\n\n${TABLE}`;
  s.questions.q1.options[0].label = wide(200);
  s.questions.q1.options[0].description = wide(400);
  s.questions.q1.options[0].insight = wide(1500);
  const survey = await daemon.createSurvey(s);
  await fits(`${daemon.url}/a/${survey}`, '.card.wizard', 'survey', async (page) => {
    // The second viewport resumes where the first left off (the position autosaves).
    if (await page.getAttribute('.card.wizard', 'data-position') === 'intro') await page.click('.seg.primary');
    await page.waitForSelector('.card.wizard[data-position="q1"]');
    await page.click('.row[data-key="a"] .tool[aria-label="Show details"]');
    await page.waitForSelector('.row[data-key="a"] .panel:not([hidden])');
  });

  // Flat questions: the token in the question and the detail; a label at its longest.
  const q = await daemon.createQuestions([
    { id: 'q', question: `Which ${TOKEN}?`, detail: TOKEN, options: [{ label: wide(200), description: wide(400) }, { label: 'b' }] },
  ]);
  await fits(`${daemon.url}/a/${q}`, '.card.flat', 'questions');

  // The settled page with a long typed answer.
  const r = await daemon.api('POST', `/api/asks/${q}/submit`, { answers: [{ id: 'q', selected: [], custom: TOKEN }] });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  await fits(`${daemon.url}/a/${q}`, '.card.settled .answer-list', 'questions-settled');
});

// ---------------------------------------------------------------- 5. contrast of the small print

/** WCAG contrast of an element's text against the first opaque background behind it. */
function contrastOf(page, selector) {
  return page.$eval(selector, (el) => {
    const rgb = (s) => (s.match(/[\d.]+/g) || []).map(Number);
    const lum = ([r, g, b]) => {
      const c = [r, g, b].map((v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; });
      return 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2];
    };
    const fg = rgb(getComputedStyle(el).color);
    let bg = null;
    for (let n = el; n && !bg; n = n.parentElement) {
      const c = rgb(getComputedStyle(n).backgroundColor);
      if (c.length >= 3 && (c.length === 3 || c[3] === 1)) bg = c;
    }
    bg = bg || [255, 255, 255];
    // A translucent text colour is blended over its background first.
    const a = fg.length === 4 ? fg[3] : 1;
    const mixed = [0, 1, 2].map((i) => fg[i] * a + bg[i] * (1 - a));
    const [l1, l2] = [lum(mixed), lum(bg)].sort((x, y) => y - x);
    return { ratio: (l1 + 0.05) / (l2 + 0.05), fg: getComputedStyle(el).color, bg: `rgb(${bg.join(', ')})` };
  });
}

test('desk_5_who_is_asking_and_keyboard_hints_have_at_least_4_5_to_1', async () => {
  const sid = (await daemon.api('POST', '/api/sessions', { client: 'claude-code', workspace: '/home/me/desk5' })).body.session.id;
  const survey = await daemon.createSurvey(branchingSurvey({ title: 'Desk 5' }), sid);
  const questions = await daemon.createQuestions([{ id: 'q', question: 'Desk 5?', options: [{ label: 'Yes' }, { label: 'No' }] }], sid);
  for (const colorScheme of ['light', 'dark']) {
    const { context, page, problems } = await openContext(browser, daemon, { colorScheme });
    for (const [id, ready] of [[survey, '.card.wizard'], [questions, '.card.flat']]) {
      await page.goto(`${daemon.url}/a/${id}`);
      await page.waitForSelector(ready);
      assert.match(await page.textContent('.eyebrow'), /claude-code · \/home\/me\/desk5/);
      for (const sel of ['.eyebrow', '.kbd-hint']) {
        const c = await contrastOf(page, sel);
        assert.ok(c.ratio >= 4.5, `${sel} on ${ready} (${colorScheme}): ${c.ratio.toFixed(2)}:1 (${c.fg} on ${c.bg})`);
      }
    }
    await page.screenshot({ path: screenshotPath(`desk-5-${colorScheme}`) });
    assert.deepEqual(problems, []);
    await context.close();
  }
});

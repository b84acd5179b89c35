// Hardening of the web UI (issue 12): look-alike agent text (item 7) and stray keystrokes on
// the session page (item 14), each against the real daemon and Chromium, with the outcome
// read back through the API.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startDaemon, launchBrowser, openContext } from './helpers.mjs';

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

const RLO = '\u202E';
const ZWSP = '\u200B';
/** Characters that must never reach the page's visible text as they are. */
const INVISIBLE = /[\u061C\u200B-\u200F\u202A-\u202E\u2060-\u2069\uFEFF]/;

// Two pairs that read the same when the characters act: an override that reverses the
// letters back into "Keep the backups", and a zero-width space inside a label.
const KEEP = 'Keep the backups';
const KEEP_LOOKALIKE = `${RLO}spukcab eht peeK`;
const DELETE = 'Delete the staging data';
const DELETE_LOOKALIKE = `Delete the${ZWSP} staging data`;

async function session(client) {
  const r = await daemon.api('POST', '/api/sessions', { client, workspace: '/home/me/tasks' });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body.session.id;
}

async function reportDrift(sid, args = {}) {
  const r = await daemon.api('POST', `/api/sessions/${sid}/alignment/report_drift`, {
    args: {
      reason: 'architecture-shift',
      description: 'Sharing lists needs a **sync server**, which the baseline rules out.',
      options: [{ label: 'Use export files' }, { label: 'Sync through WebDAV' }],
      ...args,
    },
  });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  assert.ok(r.body.ask_id, JSON.stringify(r.body));
  return r.body;
}

async function view(id) {
  return (await daemon.api('GET', `/api/asks/${id}`)).body;
}

/** Width in CSS pixels of each element matching `selector`. */
async function widths(page, selector) {
  return page.locator(selector).evaluateAll((els) => els.map((e) => e.getBoundingClientRect().width));
}

test('hardening 7: bidi and zero-width characters are shown visibly', async () => {
  const id = await daemon.createQuestions([{
    id: 'q', question: `What happens to the ${RLO}atad gnigats? Pick two`, multi_select: true,
    options: [KEEP, KEEP_LOOKALIKE, DELETE, DELETE_LOOKALIKE].map((label) => ({ label })),
  }]);
  const { context, page, problems } = await openContext(browser, daemon);
  await page.goto(`${daemon.url}/a/${id}`);
  await page.waitForSelector('.card.flat');
  const labels = page.locator('.flat-question .row-hit .label-text');
  assert.equal(await labels.count(), 4);
  const texts = await labels.allTextContents();
  // No label's text holds the characters as they are; each shows as a marked code instead.
  for (const s of texts) assert.doesNotMatch(s, INVISIBLE, JSON.stringify(s));
  assert.deepEqual(texts, [KEEP, '⟨U+202E⟩spukcab eht peeK', DELETE, 'Delete the⟨U+200B⟩ staging data']);
  const marks = page.locator('.flat-question .label-text .hidden-char');
  assert.deepEqual(await marks.allTextContents(), ['⟨U+202E⟩', '⟨U+200B⟩']);
  assert.match(await marks.nth(0).getAttribute('title'), /invisible character \(U\+202E\)/);
  // The look-alikes take visibly different room on the page (the characters are zero-width
  // or reorder the same letters when they act).
  const [keep, keepLike, del, delLike] = await widths(page, '.flat-question .row-hit .label-text');
  assert.ok(keepLike - keep > 8, `"${KEEP}" ${keep}px vs its look-alike ${keepLike}px`);
  assert.ok(delLike - del > 8, `"${DELETE}" ${del}px vs its look-alike ${delLike}px`);
  // The server-rendered markdown (the prompt) and the page title get the same treatment.
  const prompt = await page.textContent('.flat-question .prompt');
  assert.doesNotMatch(prompt, INVISIBLE);
  assert.match(prompt, /the ⟨U\+202E⟩atad gnigats\?/);
  assert.equal(await page.locator('.flat-question .prompt .hidden-char').count(), 1);
  assert.doesNotMatch(await page.title(), INVISIBLE);
  assert.match(await page.title(), /⟨U\+202E⟩/);
  // What goes back to the agent is the raw label, as the agent wrote it.
  await labels.nth(1).click();
  await labels.nth(3).click();
  await page.click('.seg.primary');
  await page.waitForSelector('.card.settled:has-text("Sent to the agent")');
  const result = await daemon.result(id);
  assert.equal(result.outcome, 'answered');
  assert.deepEqual(result.answers, [{ id: 'q', selected: [KEEP_LOOKALIKE, DELETE_LOOKALIKE] }]);

  // The drift card: a direction's label (text) and the description (sanitised markdown).
  const sid = await session('hardening-7');
  const d = await reportDrift(sid, {
    description: `Adds a **sync** step${ZWSP} to the ${RLO}revres`,
    options: [{ label: KEEP }, { label: KEEP_LOOKALIKE }],
  });
  await page.goto(`${daemon.url}/a/${d.ask_id}`);
  await page.waitForSelector('.drift-card');
  assert.deepEqual(await page.locator('.dir-label').allTextContents(), [KEEP, '⟨U+202E⟩spukcab eht peeK']);
  const desc = await page.textContent('.drift-description');
  assert.doesNotMatch(desc, INVISIBLE);
  assert.match(desc, /step⟨U\+200B⟩ to the ⟨U\+202E⟩revres/);
  assert.equal(await page.textContent('.drift-description strong'), 'sync');
  await page.click('.dir-row[data-index="1"]');
  await page.click('.drift-send');
  await page.waitForSelector('.drift-card.settled-drift');
  const v = await view(d.ask_id);
  assert.equal(v.drift.decision.option_index, 1);
  assert.equal(v.drift.decision.choice, KEEP_LOOKALIKE);
  assert.doesNotMatch(await page.textContent('.drift-verdict'), INVISIBLE);
  // The session page's drift log shows the options the same way.
  await page.goto(`${daemon.url}/sessions/${sid}`);
  await page.waitForSelector('.drift-entry .opt-label');
  assert.deepEqual(await page.locator('.drift-entry .opt-label').allTextContents(), [KEEP, '⟨U+202E⟩spukcab eht peeK']);
  assert.deepEqual(problems, []);
  await context.close();
});

test('hardening 14: on the session page a decision key acts only when the card has focus, and a key decision asks first', async () => {
  const sid = await session('hardening-14');
  const d = await reportDrift(sid);
  const { context, page, problems } = await openContext(browser, daemon);
  await page.goto(`${daemon.url}/sessions/${sid}`);
  const card = page.locator('.drift-host .drift-card');
  await card.waitFor();
  const approve = card.locator('.drift-action[data-action="approve"]');
  // Focus elsewhere on the page: A, Enter, 1, K, O and Esc do nothing to the card.
  await page.evaluate(() => document.activeElement && document.activeElement.blur());
  assert.equal(await page.evaluate(() => document.activeElement === document.body), true);
  for (const k of ['a', 'Enter', '1', 'k', 'o', 'Control+Enter', 'Escape']) await page.keyboard.press(k);
  assert.equal((await view(d.ask_id)).state, 'pending', 'keys typed outside the card decided the drift');
  assert.equal(await approve.getAttribute('aria-pressed'), 'false');
  assert.equal(await card.locator('.drift-action[aria-pressed="true"]').count(), 0);
  assert.equal(await card.locator('.dir-input:checked').count(), 0);
  assert.equal(await page.locator('dialog[open]').count(), 0);
  // The same from a control of the page outside the card.
  await page.focus('.mode-btn[data-mode="manual"]');
  await page.keyboard.press('a');
  await page.keyboard.press('k');
  assert.equal(await card.locator('.drift-action[aria-pressed="true"]').count(), 0);
  assert.equal((await view(d.ask_id)).state, 'pending');

  // With the card focused (a click in it), A picks; Enter asks first, with "No" focused so a
  // repeated Enter cancels.
  await card.locator('.drift-description').click();
  assert.equal(await page.evaluate(() => !!document.activeElement.closest('.drift-host .drift-card')), true);
  await page.keyboard.press('a');
  assert.equal(await approve.getAttribute('aria-pressed'), 'true');
  await page.keyboard.press('Enter');
  await page.waitForSelector('dialog[open]');
  assert.equal(await page.textContent('dialog[open] .dialog-text'), 'Send “Approve this change” to the agent now?');
  assert.equal(await page.evaluate(() => document.activeElement.value), 'no');
  await page.keyboard.press('Enter');
  await page.waitForSelector('dialog[open]', { state: 'detached' });
  assert.equal((await view(d.ask_id)).state, 'pending');
  // The Send button pressed from the keyboard asks too.
  await card.locator('.drift-send').focus();
  await page.keyboard.press('Enter');
  await page.waitForSelector('dialog[open]');
  await page.click('dialog[open] button[value="no"]');
  assert.equal((await view(d.ask_id)).state, 'pending');
  // Confirmed, the decision is sent.
  await card.locator('.drift-description').click();
  await page.keyboard.press('Enter');
  await page.waitForSelector('dialog[open]');
  await page.click('dialog[open] button[value="yes"]');
  await page.waitForFunction(() => !document.querySelector('.drift-host'));
  const v = await view(d.ask_id);
  assert.equal(v.drift.state, 'decided');
  assert.equal(v.drift.decision.decision, 'approve');

  // On the card's own page the keys act as before: no focus needed, no confirmation.
  const d2 = await reportDrift(sid);
  await page.goto(`${daemon.url}/a/${d2.ask_id}`);
  await page.waitForSelector('.drift-card');
  await page.evaluate(() => document.activeElement && document.activeElement.blur());
  await page.keyboard.press('k');
  await page.keyboard.press('Enter');
  await page.waitForSelector('.drift-card.settled-drift');
  assert.equal((await view(d2.ask_id)).drift.decision.decision, 'reject');
  assert.deepEqual(problems, []);
  await context.close();
});

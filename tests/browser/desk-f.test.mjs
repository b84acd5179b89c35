// Issue 30 §1, the client half: a page that is open when its sign-in goes away — a paired
// phone revoked in Settings, a member removed, the install's cookie gone — stops showing
// asks, stops reconnecting (no more requests), and shows a card that says what happened and
// what to do, in English and zh-CN; never the raw code (`device-revoked`) and never the
// "askd is not answering — reconnecting…" banner.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startDaemon, launchBrowser, screenshotPath, sleep } from './helpers.mjs';

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

const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1280, height: 800 };
const RAW_CODES = /device-revoked|unknown-device|member-revoked|unknown-member|unauthorized|HTTP 401/;

/** A context whose page problems (page errors, console errors other than the refusals) and
 * requests to the daemon are recorded. */
async function context(opts) {
  const ctx = await browser.newContext({ reducedMotion: 'reduce', ...opts });
  const problems = [];
  const requests = [];
  ctx.on('page', (page) => {
    page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
    page.on('console', (m) => {
      if (m.type() === 'error' && !/status of (401|404|409)/.test(m.text())) problems.push(`console: ${m.text()}`);
    });
    page.on('request', (r) => requests.push(new URL(r.url()).pathname));
  });
  return { ctx, problems, requests };
}

/** The signed-out card is up, the asks and the banner are gone, nothing raw shows, and the
 * page sends nothing more for `quiet` ms (no probe, no stream, no poll). */
async function assertSignedOut(page, requests, kind, title) {
  await page.waitForSelector(`.card.signed-out[data-signed-out="${kind}"]`, { timeout: 15000 });
  assert.equal(await page.locator('.card.signed-out h1').textContent(), title);
  assert.equal(await page.locator('.ask-list, .ask-row, .card.flat, .wizard').count(), 0, 'no ask is shown');
  assert.equal(await page.locator('.live-banner').isVisible(), false, 'no reconnecting banner');
  const text = await page.locator('body').innerText();
  assert.doesNotMatch(text, RAW_CODES);
  assert.equal(await page.locator('.card.signed-out button').count(), 1, 'a Reload button');
  const before = requests.length;
  await sleep(7000);
  assert.deepEqual(requests.slice(before), [], 'no request after signing out (no reconnecting)');
}

test('an open inbox on a phone that is revoked: the phone card, in English, no reconnecting', async () => {
  await daemon.createQuestions([{ id: 'db', question: 'Which database?', options: [{ label: 'SQLite' }, { label: 'PostgreSQL' }] }]);
  const pair = await daemon.api('POST', '/api/pair', {});
  for (const colorScheme of ['light', 'dark']) {
    const { ctx, problems, requests } = await context({ viewport: PHONE, isMobile: true, hasTouch: true, colorScheme });
    const page = await ctx.newPage();
    const code = colorScheme === 'light' ? pair.body.url : (await daemon.api('POST', '/api/pair', {})).body.url;
    await page.goto(code);
    await page.fill('#name', `Phone ${colorScheme}`);
    await page.click('button[type="submit"]');
    await page.waitForURL(`${daemon.url}/`);
    await page.waitForSelector('.ask-list');
    const devices = (await daemon.api('GET', '/api/devices')).body.devices;
    const mine = devices.find((d) => d.name === `Phone ${colorScheme}`);
    assert.equal((await daemon.api('DELETE', `/api/devices/${mine.id}`)).status, 204);
    await assertSignedOut(page, requests, 'device', 'This phone is not paired with askd any more');
    assert.match(await page.locator('.card.signed-out').innerText(), /askd pair/);
    await page.screenshot({ path: screenshotPath(`desk-f-revoked-phone-${colorScheme}`) });
    // A reload is the server's page for the revoked phone (not JSON).
    const again = await page.reload();
    assert.equal(again.status(), 401);
    assert.match(await page.textContent('h1'), /This phone is not paired with askd/);
    assert.deepEqual(problems, []);
    await ctx.close();
  }
});

test('an open ask of a member who is removed: the login card, in Chinese', async () => {
  const id = await daemon.createQuestions([{ id: 'lang', question: 'Which language?', options: [{ label: 'Rust' }, { label: 'Go' }] }]);
  const bo = await daemon.api('POST', '/api/members', { name: 'Bo' });
  assert.equal(bo.status, 201);
  const { ctx, problems, requests } = await context({ viewport: DESKTOP, locale: 'zh-CN' });
  // Routing turns the browser's cache off, so the Chinese table is not in it: once the
  // member is removed the daemon refuses that file too (CI once found the card missing
  // when the inbox's copy had not been cached), and the card must not need it.
  await ctx.route('**/i18n/**', (r) => r.continue());
  const page = await ctx.newPage();
  await page.goto(bo.body.loginUrl);
  await page.goto(`${daemon.url}/a/${id}`);
  await page.waitForSelector('.card.flat');
  assert.equal((await daemon.api('DELETE', `/api/members/${bo.body.member.id}`)).status, 204);
  await assertSignedOut(page, requests, 'member', '此登录已失效');
  assert.match(await page.locator('.card.signed-out').innerText(), /askd members add/);
  assert.equal(await page.evaluate(() => document.documentElement.lang), 'zh-CN');
  await page.screenshot({ path: screenshotPath('desk-f-removed-member-zh') });
  assert.deepEqual(problems, []);
  await ctx.close();
});

test('an open inbox whose sign-in cookie is gone: the signed-out card, and it stays on every view', async () => {
  const { ctx, problems, requests } = await context({ viewport: DESKTOP, colorScheme: 'dark' });
  const page = await ctx.newPage();
  await page.goto(`${daemon.url}/?token=${daemon.token}`);
  await page.waitForSelector('.ask-list');
  await ctx.clearCookies();
  await assertSignedOut(page, requests, 'expired', 'You are signed out of askd');
  assert.match(await page.locator('.card.signed-out').innerText(), /\?token=/);
  await page.screenshot({ path: screenshotPath('desk-f-signed-out-desktop-dark') });
  // Moving within the page (history) shows the same card, not a half-loaded view.
  await page.evaluate(() => { history.pushState(null, '', '/settings'); dispatchEvent(new PopStateEvent('popstate')); });
  await page.waitForSelector('.card.signed-out[data-signed-out="expired"]');
  assert.equal(await page.locator('.st-section, .settings').count(), 0);
  assert.deepEqual(problems, []);
  await ctx.close();
});

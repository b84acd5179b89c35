// Pairing a phone (issue 19): in Chromium with a phone viewport (390×844), the one-time
// pairing link gives the browser a device token (cookie askd_device) that answers an ask and
// cannot open Settings or its API; the Settings page (with the install's token) lists the
// device and revokes it, after which the phone gets 401 at once; a spent code does not work
// twice. The Settings page shows the pairing QR code as an image the daemon renders.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startDaemon, launchBrowser, openContext, screenshotPath } from './helpers.mjs';
import notifyEn from '../../ui/i18n/notify-en.js';
import notifyZh from '../../ui/i18n/notify-zh-CN.js';

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

test('a paired phone answers an ask, cannot open Settings, and is refused once revoked', async () => {
  const pair = await daemon.api('POST', '/api/pair', {});
  assert.equal(pair.status, 200);
  assert.match(pair.body.url, /\/pair\/[0-9a-f]{32}$/);
  assert.ok(!pair.body.url.includes(daemon.token));
  const id = await daemon.createQuestions([
    { id: 'db', question: 'Which **database**?', options: [{ label: 'SQLite' }, { label: 'PostgreSQL' }] },
  ]);

  const phone = await browser.newContext({ viewport: PHONE, isMobile: true, hasTouch: true, reducedMotion: 'reduce',
    userAgent: 'Mozilla/5.0 (iPhone; CPU iPhone OS 18_0 like Mac OS X) Mobile' });
  const page = await phone.newPage();
  // Without pairing, nothing opens.
  assert.equal((await page.goto(`${daemon.url}/a/${id}`)).status(), 401);
  await page.goto(pair.body.url);
  await page.fill('#name', 'Test phone');
  await page.click('button[type="submit"]');
  await page.waitForURL(`${daemon.url}/`);
  const cookies = await phone.cookies();
  const device = cookies.find((c) => c.name === 'askd_device');
  assert.ok(device && device.httpOnly, 'an HttpOnly device cookie');
  assert.ok(!cookies.some((c) => c.name === 'askd_token'), 'never the install token');
  assert.notEqual(device.value, daemon.token);

  // Its inbox says which device it is and offers no link it may not follow.
  await page.waitForSelector('.who-chip');
  assert.equal(await page.textContent('.who-chip'), 'This phone: Test phone');
  await page.waitForSelector('.ask-list');
  for (const sel of ['.inbox-settings', '.inbox-records', '.session-page-link']) {
    assert.equal(await page.locator(sel).first().isVisible().catch(() => false), false, `${sel} hidden`);
  }
  const who = await page.evaluate(async () => (await fetch('/api/me')).json());
  assert.equal(who.kind, 'device');
  assert.equal(who.name, 'Test phone');
  assert.deepEqual(who.may, { settings: false, records: false, sessions: false });

  // It answers.
  await page.goto(`${daemon.url}/a/${id}`);
  await page.waitForSelector('.card.flat');
  await page.click('.flat-question[data-qid="db"] .row-hit >> nth=0');
  await page.click('.seg.primary');
  await page.waitForSelector('.card.settled');
  await page.screenshot({ path: screenshotPath('pair-phone-answered') });
  const result = await daemon.result(id);
  assert.equal(result.outcome, 'answered');
  assert.deepEqual(result.answers, [{ id: 'db', selected: ['SQLite'] }]);

  // It cannot open Settings, the settings API, the devices or pairing.
  assert.equal((await page.goto(`${daemon.url}/settings`)).status(), 403);
  const scoped = await page.evaluate(async () => {
    const get = async (m, p) => (await fetch(p, { method: m, headers: { 'Content-Type': 'application/json' }, body: m === 'GET' ? undefined : '{}' })).status;
    return [await get('GET', '/api/settings'), await get('PUT', '/api/settings'), await get('GET', '/api/devices'), await get('POST', '/api/pair'), await get('GET', '/api/asks')];
  });
  assert.deepEqual(scoped, [403, 403, 403, 403, 200]);

  // The spent code does not pair a second browser.
  const other = await browser.newContext({ viewport: PHONE });
  const op = await other.newPage();
  assert.equal((await op.goto(pair.body.url)).status(), 404);
  await other.close();

  // Settings (the install's token) lists it with its last use, and revokes it.
  const { context, page: desk, problems } = await openContext(browser, daemon);
  await desk.goto(`${daemon.url}/settings`);
  await desk.waitForSelector('.st-device');
  assert.match(await desk.textContent('.st-device'), /Test phone/);
  assert.match(await desk.textContent('.st-device'), /last used/);
  // Pair a phone: the QR code is an image the daemon rendered.
  await desk.click('.st-pair-btn');
  await desk.waitForSelector('img.st-qr');
  // The QR code image loads (it is the daemon's SVG; a broken image never gets a width).
  await desk.waitForFunction(() => {
    const img = document.querySelector('img.st-qr');
    return img && img.complete && img.naturalWidth > 0;
  });
  assert.match(await desk.textContent('.st-pair-url'), /\/pair\/[0-9a-f]{32}$/);
  await desk.screenshot({ path: screenshotPath('settings-devices'), fullPage: true });
  await desk.click('.st-device .st-revoke');
  await desk.waitForSelector('.st-device', { state: 'detached' });
  assert.deepEqual(problems, []);
  await context.close();

  // Revoked: refused at once.
  const again = await page.goto(`${daemon.url}/a/${id}`);
  assert.equal(again.status(), 401);
  // A page that says what happened and what to do, not the API's JSON.
  assert.match(await page.textContent('h1'), /This phone is not paired with askd/);
  assert.match(await page.textContent('main'), /askd pair/);
  await phone.close();
});

test('the Notifications and Devices strings: the same keys in English and Chinese', () => {
  assert.deepEqual(Object.keys(notifyZh).sort(), Object.keys(notifyEn).sort());
});

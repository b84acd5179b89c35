// The Settings page's Notifications section (issue 19: "everything configurable in Settings"):
// in real Chromium, a webhook is added and the quiet hours are set on a running daemon; a bad
// value is refused naming the key; the save applies at once (a new ask reaches the webhook
// receiver on loopback, no restart); the saved webhook is then listed by host only (its URL
// never comes back to the page); a removed webhook sends nothing more; Reset returns a key to
// the configuration. A notification's link opened from another site reaches the ask although
// the install's cookie is SameSite=Strict.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { startDaemon, launchBrowser, openContext, screenshotPath, sleep } from './helpers.mjs';

let daemon;
let browser;
let receiver;
let hits = [];

before(async () => {
  receiver = createServer((req, res) => {
    if (req.method === 'GET' && req.url.startsWith('/link?to=')) {
      // A page on another site (localhost, not 127.0.0.1) with a link to an ask, as a chat
      // app or a mail would show it.
      const to = decodeURIComponent(req.url.slice('/link?to='.length));
      res.writeHead(200, { 'Content-Type': 'text/html' }).end(`<!doctype html><a id="go" href="${to}">Open in askd</a>`);
      return;
    }
    let body = '';
    req.on('data', (d) => { body += d; });
    req.on('end', () => {
      hits.push({ path: req.url, headers: req.headers, body });
      res.writeHead(200).end('ok');
    });
  });
  await new Promise((r) => receiver.listen(0, '127.0.0.1', r));
  daemon = await startDaemon();
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await daemon?.stop();
  receiver?.close();
});

const row = (key) => `.st-notify .st-row[data-key="${key}"]`;

async function waitFor(pred, ms = 10000) {
  const until = Date.now() + ms;
  while (!pred() && Date.now() < until) await sleep(50);
  return pred();
}

test('notifications are edited on the Settings page and apply at once', async () => {
  const hookUrl = `http://127.0.0.1:${receiver.address().port}/topic/askd-secret`;
  const { context, page, problems } = await openContext(browser, daemon);
  await page.goto(`${daemon.url}/settings`);
  await page.waitForSelector('.st-notify-form');
  assert.equal(await page.inputValue(`${row('after')} input`), '10m');
  assert.equal(await page.inputValue(`${row('quietHours')} input`), '');
  assert.equal(await page.textContent(`${row('after')} .st-layer`), 'Built-in default');
  assert.equal(await page.locator('.st-hook').count(), 0);

  // A bad quiet-hours span and a new ntfy webhook: the span is refused, named, nothing saved.
  await page.fill(`${row('quietHours')} input`, '25:00-07:00');
  await page.click('.st-hook-add');
  await page.fill('.st-hook-name', 'phone');
  await page.selectOption('.st-hook-format', 'ntfy');
  await page.fill('.st-hook-url', hookUrl);
  const sent = [];
  page.on('request', (r) => {
    if (r.url().endsWith('/api/notify') && r.method() === 'PUT') sent.push(JSON.parse(r.postData()));
  });
  await page.click('.st-notify-save');
  await page.waitForSelector(`${row('quietHours')} .st-error:not(:empty)`);
  assert.match(await page.textContent(`${row('quietHours')} .st-error`), /\[notify\] quietHours = "25:00-07:00" is not a quiet-hours span/);
  let v = (await daemon.api('GET', '/api/notify')).body;
  assert.ok(v.settings.every((s) => s.layer === 'default'), JSON.stringify(v.settings));

  // Fixed: saved, listed by host only, in effect at once.
  await page.fill(`${row('quietHours')} input`, '');
  await page.click('.st-notify-save');
  await page.waitForSelector('.st-notify .st-status:has-text("Saved")');
  assert.deepEqual(sent[1], { webhook: [{ name: 'phone', format: 'ntfy', url: hookUrl }] });
  assert.equal(await page.locator('.st-hook-url').count(), 0, 'a saved webhook shows no URL field');
  const target = await page.textContent('.st-hook[data-hook="phone"] .st-hook-target');
  assert.equal(target, `http://127.0.0.1:${receiver.address().port}/…`);
  assert.ok(!(await page.content()).includes('askd-secret'), 'the URL never comes back to the page');
  assert.match(await page.textContent(`${row('webhook')} .st-layer`), /^Saved here/);
  assert.ok(await page.isVisible('.st-sink[data-sink="phone"]'));

  const id = await daemon.createQuestions([{ id: 'friday', question: 'Deploy on Friday?', options: [{ label: 'Yes' }, { label: 'No' }] }]);
  assert.ok(await waitFor(() => hits.some((x) => x.body.includes(id))), 'the new ask reached the webhook');
  const hit = hits.find((x) => x.body.includes(id));
  assert.equal(hit.path, '/topic/askd-secret');
  assert.match(hit.headers.title, /^askd: /);
  assert.ok(!hit.body.includes(daemon.token) && !JSON.stringify(hit.headers).includes(daemon.token));

  // The reminder time: saved alone (the kept webhook is not sent again).
  await page.fill(`${row('after')} input`, '2h');
  await page.click('.st-notify-save');
  await page.waitForSelector(`${row('after')} .st-layer:has-text("Saved here")`);
  assert.deepEqual(sent[2], { after: '2h' });
  await page.screenshot({ path: screenshotPath('settings-notify'), fullPage: true });

  // After a reload: the saved values; Remove the webhook and save — nothing more is sent.
  await page.reload();
  await page.waitForSelector('.st-hook[data-hook="phone"]');
  assert.equal(await page.inputValue(`${row('after')} input`), '2h');
  await page.click('.st-hook[data-hook="phone"] .st-hook-remove');
  await page.click('.st-notify-save');
  await page.waitForSelector('.st-notify .st-status:has-text("Saved")');
  assert.deepEqual(sent.at(-1), { webhook: [] });
  assert.equal(await page.locator('.st-sink').count(), 0);
  const before = hits.length;
  await daemon.createQuestions([{ id: 'monday', question: 'And on Monday?', options: [{ label: 'Yes' }, { label: 'No' }] }]);
  await sleep(800);
  assert.equal(hits.length, before, 'a removed webhook gets nothing');

  // Reset: back to the configuration (the built-in 10m, no webhook list saved).
  await page.click(`${row('after')} .st-reset`);
  await page.waitForSelector(`${row('after')} .st-layer:has-text("Built-in default")`);
  assert.equal(await page.inputValue(`${row('after')} input`), '10m');
  v = (await daemon.api('GET', '/api/notify')).body;
  assert.equal(v.settings.find((s) => s.key === 'after').layer, 'default');
  assert.deepEqual(problems, []);
  await context.close();
});

test("a notification's link, opened from another site, opens the ask in a signed-in browser", async () => {
  const id = await daemon.createQuestions([{ id: 'link', question: 'Opened from a chat?', options: [{ label: 'Yes' }, { label: 'No' }] }]);
  const { context, page } = await openContext(browser, daemon);
  await page.waitForSelector('.inbox, .ask-list, main');
  // The chat page is on localhost, the daemon on 127.0.0.1: another site.
  const link = `${daemon.url}/a/${id}`;
  await page.goto(`http://localhost:${receiver.address().port}/link?to=${encodeURIComponent(link)}`);
  await page.click('#go');
  await page.waitForSelector('text=Opened from a chat?', { timeout: 10000 });
  assert.equal(page.url(), link);
  // Without the cookie at all the same navigation stays a 401 (no loop, no data).
  const fresh = await browser.newContext();
  const other = await fresh.newPage();
  await other.goto(`http://localhost:${receiver.address().port}/link?to=${encodeURIComponent(link)}`);
  const [resp] = await Promise.all([other.waitForNavigation(), other.click('#go')]);
  await sleep(500);
  const final = await other.evaluate(() => document.body.innerText);
  assert.ok(!final.includes('Opened from a chat?'), final);
  assert.ok(resp.status() === 401, String(resp.status()));
  await fresh.close();
  await context.close();
});

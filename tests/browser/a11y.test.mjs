// An accessibility audit of every page (issue 30, item 8): axe-core (node_modules, pinned in
// package.json) runs in real Chromium over each page of the desk — the inbox with asks, a
// survey's intro, question and review step, the questions card, a review panel, a drift card,
// settled pages, the session page, Records, Settings with its pairing QR code — and over the
// daemon's own pages (the pairing page, the refusals, the sign-in link that no longer works),
// on a desktop (1280×800) and a phone (390×844), light and dark. No violation of impact
// serious or critical is allowed. The pages come from `seedDesk` and are walked whole (no
// selector of a page's inner markup), so a page that changes stays audited.
//
// The page's CSP forbids inline scripts (script-src 'self'), so axe's source is evaluated
// through the DevTools protocol (page.evaluate), which the CSP does not govern; the page
// itself is not changed.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startDaemon, launchBrowser, openContext, seedDesk, ROOT } from './helpers.mjs';

const AXE = readFileSync(join(ROOT, 'node_modules', 'axe-core', 'axe.min.js'), 'utf8');
const DEVICES = [['desktop', { width: 1280, height: 800 }], ['phone', { width: 390, height: 844 }]];
const SCHEMES = ['light', 'dark'];
const BLOCKING = new Set(['serious', 'critical']);

let daemon;
let browser;
let pages;

before(async () => {
  daemon = await startDaemon();
  browser = await launchBrowser();
  pages = await seedDesk(daemon);
});

after(async () => {
  await browser?.close();
  await daemon?.stop();
});

/** axe's violations on the page as it is now: [{id, impact, help, nodes: [target + why]}]. */
async function audit(page) {
  if (!(await page.evaluate(() => typeof window.axe === 'object'))) await page.evaluate(AXE);
  return page.evaluate(async () => {
    const r = await window.axe.run(document, { resultTypes: ['violations'] });
    return r.violations.map((v) => ({
      id: v.id, impact: v.impact, help: v.help,
      nodes: v.nodes.map((n) => `${n.target.join(' ')}: ${(n.failureSummary || '').split('\n').slice(1, 2).join('').trim()}`),
    }));
  });
}

/** One line per violation, for the test output and the assertion message. */
function describe(where, violations) {
  return violations.map((v) => `${where} [${v.impact}] ${v.id} (${v.help}) × ${v.nodes.length}: ${v.nodes.slice(0, 3).join(' | ')}`);
}

const audited = [];
const found = [];

/** Audits the page now shown as `name` and records what it found. */
async function check(page, name) {
  const v = await audit(page);
  audited.push(name);
  found.push(...describe(name, v));
  return v.filter((x) => BLOCKING.has(x.impact));
}

for (const scheme of SCHEMES) {
  for (const [device, viewport] of DEVICES) {
    test(`axe: every page of the desk, ${device} ${scheme} — no serious or critical violation`, async () => {
      const { context, page, problems } = await openContext(browser, daemon, { colorScheme: scheme, viewport });
      const blocking = [];
      for (const p of pages) {
        await page.goto(`${daemon.url}${p.path}`);
        await page.waitForSelector(p.ready);
        if (p.prepare) await p.prepare(page);
        await page.waitForTimeout(80);
        blocking.push(...describe(`${p.name} ${device} ${scheme}`, await check(page, `${p.name} ${device} ${scheme}`)));
      }
      // Settings with a pairing link and its QR code shown.
      await page.goto(`${daemon.url}/settings`);
      await page.waitForSelector('.st-lang');
      await page.click('.st-pair-btn');
      await page.waitForSelector('img.st-qr');
      blocking.push(...describe(`settings-pairing ${device} ${scheme}`, await check(page, `settings-pairing ${device} ${scheme}`)));
      assert.deepEqual(problems, []);
      await context.close();
      assert.deepEqual(blocking, []);
    });
  }
}

test('axe: the daemon\'s own pages (pairing, refusals, sign-in), desktop and phone, light and dark', async () => {
  const blocking = [];
  for (const scheme of SCHEMES) {
    for (const [device, viewport] of DEVICES) {
      const context = await browser.newContext({ colorScheme: scheme, viewport, reducedMotion: 'reduce' });
      const page = await context.newPage();
      const code = (await daemon.api('POST', '/api/pair', {})).body.url;
      const visits = [
        ['pairing', code, 200],
        ['pairing-spent', `${daemon.url}/pair/${'0'.repeat(32)}`, 404],
        ['refused-no-token', `${daemon.url}/`, 401],
        ['sign-in-invalid', `${daemon.url}/login/${'0'.repeat(32)}`, null],
      ];
      for (const [name, url, status] of visits) {
        const res = await page.goto(url);
        if (status !== null) assert.equal(res.status(), status, name);
        const where = `${name} ${device} ${scheme}`;
        blocking.push(...describe(where, await check(page, where)));
      }
      // A paired device's refusal: Settings is not open to it.
      await page.goto(code);
      await page.fill('#name', 'Audit phone');
      await page.click('button[type="submit"]');
      await page.waitForURL(`${daemon.url}/`);
      assert.equal((await page.goto(`${daemon.url}/settings`)).status(), 403);
      blocking.push(...describe(`refused-device ${device} ${scheme}`, await check(page, `refused-device ${device} ${scheme}`)));
      await context.close();
    }
  }
  assert.deepEqual(blocking, []);
});

test('axe: the list of pages audited and every violation found', () => {
  console.log(`# a11y: ${audited.length} pages audited:\n#   ${audited.join('\n#   ')}`);
  console.log(`# a11y: ${found.length} violations (every impact):${found.length ? `\n#   ${found.join('\n#   ')}` : ' none'}`);
  assert.ok(audited.length >= 4 * (pages.length + 1) + 4 * 5, `${audited.length} pages audited`);
});

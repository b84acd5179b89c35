// The pages the daemon writes itself, and its status strings, in real Chromium (issue 30
// §6 and §13): the pairing page a phone opens first is styled like askd (phone 390×844,
// light and dark, English and Chinese) and so are the refusal pages; the Settings page in
// Chinese words the desktop-notification state in Chinese, not the daemon's English line.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
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

const PHONE = { width: 390, height: 844 };

async function phone(colorScheme, locale) {
  return browser.newContext({ viewport: PHONE, isMobile: true, hasTouch: true, reducedMotion: 'reduce', colorScheme, locale,
    userAgent: 'Mozilla/5.0 (iPhone; CPU iPhone OS 18_0 like Mac OS X) Mobile' });
}

/** What the page's layout says about being styled: sizes and colours as computed. */
function layout(page) {
  return page.evaluate(() => {
    const button = document.querySelector('button');
    const input = document.querySelector('input[type="text"]');
    const main = document.querySelector('main');
    const css = (el, p) => (el ? getComputedStyle(el)[p] : null);
    return {
      scrollWidth: document.documentElement.scrollWidth,
      bodyBg: css(document.body, 'backgroundColor'),
      mainBg: css(main, 'backgroundColor'),
      mainRadius: css(main, 'borderTopLeftRadius'),
      buttonBg: css(button, 'backgroundColor'),
      buttonHeight: button ? button.getBoundingClientRect().height : 0,
      inputWidth: input ? input.getBoundingClientRect().width : 0,
      inputHeight: input ? input.getBoundingClientRect().height : 0,
      lang: document.documentElement.lang,
      h1: document.querySelector('h1')?.textContent,
    };
  });
}

for (const [scheme, locale] of [['light', 'en-US'], ['dark', 'zh-CN']]) {
  test(`the pairing page is styled on a phone (${scheme}, ${locale})`, async () => {
    const pair = await daemon.api('POST', '/api/pair', {});
    assert.equal(pair.status, 200);
    const context = await phone(scheme, locale);
    const page = await context.newPage();
    const problems = [];
    page.on('console', (m) => { if (m.type() === 'error') problems.push(m.text()); });
    page.on('response', (r) => { if (r.status() >= 400) problems.push(`${r.status()} ${new URL(r.url()).pathname}`); });
    assert.equal((await page.goto(pair.body.url)).status(), 200);
    const l = await layout(page);
    await page.screenshot({ path: screenshotPath(`pair-page-phone-${scheme}-${locale}`), fullPage: true });
    assert.deepEqual(problems, [], 'the stylesheet loads under the CSP, without a token');
    assert.ok(l.scrollWidth <= PHONE.width, `no horizontal scroll: ${l.scrollWidth}`);
    // The accent button, not the browser's grey default; a touch-sized input and button.
    assert.equal(l.buttonBg, scheme === 'light' ? 'rgb(47, 91, 211)' : 'rgb(123, 156, 245)', JSON.stringify(l));
    assert.ok(l.buttonHeight >= 44, `button height ${l.buttonHeight}`);
    assert.ok(l.inputHeight >= 44 && l.inputWidth >= 300, `input ${l.inputWidth}×${l.inputHeight}`);
    assert.notEqual(l.bodyBg, l.mainBg, 'the content sits on a card');
    assert.notEqual(l.mainRadius, '0px');
    if (locale === 'zh-CN') {
      assert.equal(l.lang, 'zh-CN');
      assert.equal(l.h1, '将这台设备与 askd 配对');
      assert.equal(await page.inputValue('#name'), '手机');
    } else {
      assert.equal(l.h1, 'Pair this device with askd');
    }
    // Pairing still works from the styled page.
    await page.click('button[type="submit"]');
    await page.waitForURL(`${daemon.url}/`);
    await context.close();
  });
}

test('a refusal page is styled and in the browser\'s language (phone, dark, Chinese)', async () => {
  const context = await phone('dark', 'zh-CN');
  const page = await context.newPage();
  assert.equal((await page.goto(`${daemon.url}/`)).status(), 401);
  const l = await layout(page);
  await page.screenshot({ path: screenshotPath('refusal-signin-phone-dark-zh'), fullPage: true });
  assert.equal(l.h1, '请先登录 askd');
  assert.equal(l.bodyBg, 'rgb(15, 17, 21)', 'the dark background');
  assert.ok(l.scrollWidth <= PHONE.width);
  await context.close();
});

test('Settings in Chinese words the desktop-notification state in Chinese', async () => {
  const state = (await daemon.api('GET', '/api/notify')).body.desktop.state;
  assert.ok(['off', 'dbus', 'osascript', 'no-session'].includes(state), state);
  const { context, page, problems } = await openContext(browser, daemon, { locale: 'zh-CN' });
  await page.goto(`${daemon.url}/settings`);
  await page.waitForSelector('.st-desktop-why');
  const why = (await page.textContent('.st-desktop-why')).trim();
  await page.locator('.st-row[data-key="desktop"]').screenshot({ path: screenshotPath('settings-desktop-state-zh') });
  assert.match(why, /[\u4e00-\u9fff]/, `Chinese: ${why}`);
  assert.doesNotMatch(why, /\b(inactive|off|on): /, `not the daemon's English line: ${why}`);
  assert.deepEqual(problems, []);
  await context.close();
});

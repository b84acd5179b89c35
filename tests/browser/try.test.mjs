// `askd try` (the README's "run it" command): starts a daemon, asks the example survey,
// prints its tokenised URL, and prints the agent's result once the page is answered.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BINARY, launchBrowser } from './helpers.mjs';

test('askd try: starts the daemon, the example survey is answered in the browser, the result is printed', async () => {
  const home = mkdtempSync(join(tmpdir(), 'askd-try-'));
  const env = { ...process.env, ASKD_HOME: home, ASKD_LOG: 'warn', ASKD_NO_BROWSER: '1' };
  delete env.DISPLAY;
  const child = spawn(BINARY, ['try', '--listen', '127.0.0.1:0'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => { stdout += d; });
  const url = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no URL printed: ${stderr}`)), 20000);
    child.stderr.on('data', (d) => {
      stderr += d;
      const m = /(http:\/\/127\.0\.0\.1:\d+\/a\/[^\s?]+\?token=[0-9a-f]+)/.exec(stderr);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    });
  });
  const browser = await launchBrowser();
  try {
    const page = await browser.newPage();
    await page.goto(url);
    // The token left the address bar; the cookie carries it.
    assert.doesNotMatch(page.url(), /token=/);
    await page.waitForSelector('.card.wizard[data-position="intro"]');
    assert.match(await page.textContent('.intro-title'), /Try askd/);
    await page.click('.seg.primary');
    await page.click('.row[data-key="a"] .tool[aria-label="Show diagram"]');
    await page.waitForSelector('.panel img.diagram');
    await page.click('.seg[data-key="nav.prev"]');
    await page.click('.seg[data-key="action.quick"]');
    await page.click('.row[data-key="a"] .row-hit');
    // The template's preview asks before it submits (issue 18).
    await page.click('dialog[open] button[value="yes"]');
    await page.waitForSelector('.card.settled');
    const code = await exited;
    assert.equal(code, 0, stderr);
    const result = JSON.parse(stdout);
    assert.equal(result.outcome, 'answered');
    assert.deepEqual(result.path, ['shape', 'storage', 'checks', 'name']);
    assert.equal(result.answers.at(-1).custom, 'tiny-service');
  } finally {
    await browser.close();
    child.kill('SIGKILL');
    try {
      const { pid } = JSON.parse(readFileSync(join(home, 'daemon.json'), 'utf8'));
      process.kill(pid, 'SIGTERM');
    } catch {
      // No daemon.json: the daemon already stopped.
    }
    await new Promise((r) => setTimeout(r, 300));
    rmSync(home, { recursive: true, force: true });
  }
});

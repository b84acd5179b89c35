// Shared helpers of the browser tests: a real `askd serve` (the debug binary, built before
// the tests run) on 127.0.0.1:0 with a fresh ASKD_HOME, its JSON API, and the system
// Chromium driven by playwright-core (no browser is ever downloaded).
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, existsSync, mkdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { chromium } from 'playwright-core';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
// Cargo's target directory (CARGO_TARGET_DIR when set, as cargo itself reads it).
const TARGET = process.env.CARGO_TARGET_DIR || join(ROOT, 'target');
export const SCREENSHOTS = join(TARGET, 'screenshots');
export const BINARY = process.env.ASKD_BIN || join(TARGET, 'debug', 'askd');
const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';

export async function startDaemon() {
  if (!existsSync(BINARY)) throw new Error(`${BINARY} is missing: run cargo build --locked -p askd first`);
  const home = mkdtempSync(join(tmpdir(), 'askd-browser-'));
  const child = spawn(BINARY, ['serve', '--listen', '127.0.0.1:0'], {
    env: { ...process.env, ASKD_HOME: home, ASKD_LOG: 'warn' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (d) => { stderr += d; });
  const info = join(home, 'daemon.json');
  for (let i = 0; i < 200 && !existsSync(info); i++) await sleep(50);
  if (!existsSync(info)) {
    child.kill('SIGKILL');
    throw new Error(`askd serve did not start: ${stderr}`);
  }
  let url;
  for (let i = 0; i < 50 && !url; i++) {
    try {
      url = JSON.parse(readFileSync(info, 'utf8')).url;
    } catch {
      await sleep(20);
    }
  }
  const token = readFileSync(join(home, 'token'), 'utf8').trim();
  const daemon = {
    url, token, home, child,
    async api(method, path, body) {
      const res = await fetch(url + path, {
        method,
        headers: { Authorization: `Bearer ${token}`, ...(body !== undefined ? { 'Content-Type': 'application/json' } : {}) },
        body: body !== undefined ? JSON.stringify(body) : undefined,
      });
      const text = await res.text();
      let json = null;
      try { json = JSON.parse(text); } catch { json = text; }
      return { status: res.status, body: json };
    },
    async createSurvey(survey, session) {
      const r = await daemon.api('POST', '/api/asks', { kind: 'survey', args: { survey }, ...(session ? { session } : {}) });
      if (r.status !== 201 && r.status !== 200) throw new Error(`create: ${r.status} ${JSON.stringify(r.body)}`);
      return r.body.ask_id;
    },
    async createQuestions(questions, session) {
      const r = await daemon.api('POST', '/api/asks', { kind: 'questions', args: { questions }, ...(session ? { session } : {}) });
      if (r.status !== 201 && r.status !== 200) throw new Error(`create: ${r.status} ${JSON.stringify(r.body)}`);
      return r.body.ask_id;
    },
    async view(id) {
      return (await daemon.api('GET', `/api/asks/${id}`)).body;
    },
    async result(id) {
      return (await daemon.api('GET', `/api/asks/${id}/wait?timeout_s=5`)).body;
    },
    async stop() {
      child.kill('SIGTERM');
      await new Promise((r) => { child.once('exit', r); setTimeout(r, 3000); });
      rmSync(home, { recursive: true, force: true });
    },
  };
  return daemon;
}

export async function launchBrowser() {
  // playwright-core gives the browser a fresh temporary --user-data-dir and --headless itself.
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}

/**
 * A fresh browser context logged in through the tokenised URL (which sets the cookie), with
 * guards: any JS dialog, page error, CSP violation or request to a foreign host is recorded
 * in `problems` (tests assert it stays empty).
 */
export async function openContext(browser, daemon, { colorScheme = 'light', locale = 'en-US', viewport = { width: 900, height: 900 } } = {}) {
  const context = await browser.newContext({ colorScheme, locale, viewport, reducedMotion: 'reduce' });
  const problems = [];
  const origin = new URL(daemon.url).host;
  context.on('page', (page) => watch(page, problems, origin));
  const page = await context.newPage();
  await page.goto(`${daemon.url}/?token=${daemon.token}`);
  return { context, page, problems };
}

function watch(page, problems, host) {
  page.on('dialog', (d) => { problems.push(`dialog: ${d.type()} ${d.message()}`); d.dismiss().catch(() => {}); });
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error' && !/Failed to load resource: the server responded with a status of (404|409|422)/.test(m.text())) {
      problems.push(`console: ${m.text()}`);
    }
  });
  page.on('request', (r) => {
    const u = new URL(r.url());
    if (u.protocol === 'data:' || u.protocol === 'blob:' || u.protocol === 'about:') return;
    if (u.host !== host) problems.push(`foreign request: ${r.url()}`);
  });
}

export async function newPage(context, problems, daemon) {
  const page = await context.newPage();
  return page;
}

export function screenshotPath(name) {
  mkdirSync(SCREENSHOTS, { recursive: true });
  return join(SCREENSHOTS, `${name}.png`);
}

/** The example branching survey of the tests (graph G of survey.md §6.5, with content). */
let surveys = 0;

export function branchingSurvey(extra = {}) {
  const opt = (key, label, more = {}) => ({ key, label, ...more });
  surveys += 1;
  return {
    // A distinct title per ask: an identical spec in the same session re-attaches.
    title: `Release plan ${surveys}`,
    intro: 'Pick the **shape** of the next release.\n\nAbout a minute.',
    entry: 'q1',
    questions: {
      q1: {
        header: 'Scope', prompt: 'Which direction fits the release?', next: 'q3',
        options: [
          opt('a', 'Ship the public API', { next: 'q2a', description: 'Freeze the API and publish docs.', recommended: true,
            insight: '**Promise** — partners can build on it.\n\n**Price** — every change is now a breaking change.',
            sources: ['https://example.com/api-guide', 'docs/api/v2.md'],
            diagram: 'flowchart LR\n  A[Freeze API] --> B[Publish docs]\n  B --> C{Partners build}\n  C -->|feedback| D[2.1]' }),
          opt('b', 'Rework the core first', { next: 'q2b', description: 'Pay down the debt before promising anything.' }),
          opt('c', 'Split the release in two'),
          opt('d', 'Cut scope to bug fixes only', { next: null }),
          opt('e', 'Delay the release a quarter'),
        ],
      },
      q2a: { prompt: 'Which API surface is frozen first?', next: 'q3' },
      q2b: { prompt: 'Which core module is reworked first?', next: 'q3' },
      q3: {
        prompt: 'What must be true before shipping?', multiSelect: true,
        options: [
          opt('a', 'Docs complete', { next: 'x' }),
          opt('b', 'Load test passed', { next: ['y', 'z'] }),
          opt('c', 'Migration guide'), opt('d', 'Security review'), opt('e', 'Beta feedback closed'),
        ],
      },
      x: { prompt: 'Who writes the docs?', next: 'x2' },
      x2: { prompt: 'When are the docs reviewed?' },
      y: { prompt: 'Which load profile?' },
      z: { prompt: 'Which latency budget?', skippable: false },
    },
    quick: [
      { key: 'a', label: 'Public API first (Recommended)', description: 'The usual path.',
        insight: 'Ships the API with docs and a migration guide.',
        answers: { q1: { selected: ['a'] }, q2a: { custom: 'REST endpoints' }, q3: { selected: ['c'] } } },
      { key: 'b', label: 'Bug fixes only', answers: { q1: { selected: ['d'] } } },
    ],
    ...extra,
  };
}

export { sleep };

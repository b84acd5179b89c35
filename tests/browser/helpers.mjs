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

export async function startDaemon({ env = {} } = {}) {
  if (!existsSync(BINARY)) throw new Error(`${BINARY} is missing: run cargo build --locked -p askd first`);
  const home = mkdtempSync(join(tmpdir(), 'askd-browser-'));
  const child = spawn(BINARY, ['serve', '--listen', '127.0.0.1:0'], {
    env: { ...process.env, ASKD_HOME: home, ASKD_LOG: 'warn', ...env },
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

/** The survey's review step (issue 18): waits for it and sends with its Submit. */
export async function passReviewStep(page) {
  await page.waitForSelector('dialog[open].recap');
  await page.click('dialog[open].recap button[value="yes"]');
}

export { sleep };

/** `n` characters without a break point (ends in END so a test can find the tail). */
export const unbroken = (n) => `${'x'.repeat(Math.max(0, n - 3))}END`;

/**
 * One of every page of the desk, seeded through the API: the inbox, a survey's intro and
 * question, its review step, a questions card, a review, a drift card, settled survey and
 * questions pages, a session page, Settings and Records. `text(s, max)` gives each agent
 * field its content (the field's plain text, or a long token up to the field's limit).
 * Returns `[{name, path, ready, prepare?}]`; `prepare(page)` brings the page to its state.
 */
export async function seedDesk(daemon, text = (s) => s) {
  const ok = (r, what) => {
    if (r.status !== 200 && r.status !== 201) throw new Error(`${what}: ${r.status} ${JSON.stringify(r.body)}`);
    return r.body;
  };
  const sid = ok(await daemon.api('POST', '/api/sessions', {
    client: text('claude-code', 256), workspace: text('/home/me/shop', 3000),
  }), 'session').session.id;
  ok(await daemon.api('POST', `/api/sessions/${sid}/alignment/baseline`, { args: {
    goal: text('A personal task manager in the browser', 1000),
    explicit_constraints: [text('No server component', 500)],
    must_preserve: [text('Works offline', 500)],
    allowed_scope: [text('Web UI', 500)],
  } }), 'baseline');
  const survey = (title) => {
    const s = branchingSurvey({ title: text(title, 200) });
    s.intro = text(s.intro, 3000);
    s.questions.q1.prompt = text(s.questions.q1.prompt, 3000);
    s.questions.q1.detail = text('Each direction changes what ships in the release.', 3000);
    for (const o of s.questions.q1.options) {
      o.label = text(o.label, 200);
      if (o.description) o.description = text(o.description, 400);
      if (o.insight) o.insight = text(o.insight, 1500);
    }
    return s;
  };
  const pending = await daemon.createSurvey(survey('Release plan'), sid);
  const toReview = await daemon.createSurvey(survey('Release scope, short'), sid);
  const settled = await daemon.createSurvey(survey('Release plan, answered'), sid);
  ok(await daemon.api('POST', `/api/asks/${settled}/submit`, { answers: [
    { id: 'q1', selected: ['a'], justifications: { a: text('Partners are blocked on it.', 500) } },
    { id: 'q2a', selected: [], custom: text('REST endpoints', 2000) },
    { id: 'q3', selected: ['c', 'd'] },
  ] }), 'submit survey');
  const questions = (q) => [
    { id: 'db', question: text(q, 3000), detail: text('SQLite keeps it one file.', 3000),
      options: [{ label: text('SQLite (Recommended)', 200), description: text('One file, no server.', 400) }, { label: 'PostgreSQL' }] },
    { id: 'name', question: text('Project name?', 3000) },
  ];
  const flat = await daemon.createQuestions(questions('Which **database**?'), sid);
  const flatSettled = await daemon.createQuestions(questions('Which database, answered?'), sid);
  ok(await daemon.api('POST', `/api/asks/${flatSettled}/submit`, { answers: [
    { id: 'db', selected: ['PostgreSQL'] }, { id: 'name', selected: [], custom: text('tiny-service', 2000) },
  ] }), 'submit questions');
  const table = `| ${Array.from({ length: 12 }, (_, i) => `column_${i}_header`).join(' | ')} |\n|${' --- |'.repeat(12)}\n| ${Array.from({ length: 12 }, () => 'cell').join(' | ')} |`;
  const review = ok(await daemon.api('POST', '/api/asks', { kind: 'review', session: sid, args: { title: text('Release checklist', 200), items: [
    { id: 'a', title: text('Docs are complete', 200), detail: `${text('The API guide covers every endpoint.', 3000)}\n\n${table}`, group: text('Docs', 80) },
    { id: 'b', type: 'choice', title: text('Which channel?', 200), options: [{ v: 'stable', t: text('Stable', 200) }, { v: 'beta', t: 'Beta' }] },
    { id: 'c', type: 'text', title: text('Anything else?', 200) },
  ] } }), 'review').ask_id;
  const drift = ok(await daemon.api('POST', `/api/sessions/${sid}/alignment/report_drift`, { args: {
    reason: 'architecture-shift',
    description: text('Sharing lists needs a **sync server**, which the baseline rules out.', 2000),
    required_change: text('Drop "No server component" from the explicit constraints.', 2000),
    options: [{ label: text('Use export files', 80), description: text('CSV and JSON exports.', 500) }, { label: 'Sync through WebDAV' }],
  } }), 'drift').ask_id;
  const toIntro = async (page) => {
    if (await page.getAttribute('.card.wizard', 'data-position') !== 'intro') await page.click('.seg[data-key="nav.prev"]');
  };
  return [
    { name: 'inbox', path: '/', ready: `.ask-row[data-ask-id="${pending}"]` },
    { name: 'wizard-intro', path: `/a/${pending}`, ready: '.card.wizard', prepare: toIntro },
    { name: 'wizard-question', path: `/a/${pending}`, ready: '.card.wizard', prepare: async (page) => {
      if (await page.getAttribute('.card.wizard', 'data-position') === 'intro') await page.click('.seg.primary');
      await page.waitForSelector('.card.wizard[data-position="q1"]');
      await page.click('.row[data-key="a"] .tool[aria-label="Show details"]');
      await page.waitForSelector('.row[data-key="a"] .panel:not([hidden])');
    } },
    { name: 'wizard-review-step', path: `/a/${toReview}`, ready: '.card.wizard', prepare: async (page) => {
      if (await page.getAttribute('.card.wizard', 'data-position') === 'intro') await page.click('.seg.primary');
      await page.waitForSelector('.card.wizard[data-position="q1"]');
      if (await page.getAttribute('.row[data-key="d"] .row-hit', 'aria-checked') !== 'true') await page.click('.row[data-key="d"] .row-hit');
      await page.waitForFunction(() => document.querySelector('.seg.primary')?.dataset.key === 'action.submit');
      await page.click('.seg.primary');
      await page.waitForSelector('dialog[open].recap');
    } },
    { name: 'survey-settled', path: `/a/${settled}`, ready: '.card.settled .answer-list' },
    { name: 'questions', path: `/a/${flat}`, ready: '.card.flat' },
    { name: 'questions-settled', path: `/a/${flatSettled}`, ready: '.card.settled .answer-list' },
    { name: 'review', path: `/a/${review}`, ready: 'form.rv-panel', prepare: async (page) => {
      await page.click('.rv-row[data-id="a"] .rv-detail-toggle');
      await page.waitForSelector('.rv-row[data-id="a"] .rv-detail-body:not([hidden])');
    } },
    { name: 'drift', path: `/a/${drift}`, ready: '.drift-card' },
    { name: 'session', path: `/sessions/${sid}`, ready: '[data-section="questions"]' },
    { name: 'settings', path: '/settings', ready: '.st-lang' },
    { name: 'records', path: '/records', ready: '.rec-list .rec' },
  ];
}

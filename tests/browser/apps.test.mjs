// Every ask as an MCP App (issue 20), in real Chromium: the official TypeScript SDK client
// (@modelcontextprotocol/sdk) drives `askd mcp` as a child process, declaring the MCP Apps
// extension; a host page built on the extension's own host bridge (@modelcontextprotocol/
// ext-apps/app-bridge, bundled by esbuild from node_modules and served from loopback)
// renders the ui:// resource in a sandboxed frame and forwards the app's tools/call to that
// client (playwright exposeFunction). Each kind — a survey, a questions card, a review, a
// drift card — is answered inside the frame; the agent's await_answer gets the result a
// page answer gives, with `surface: "app"`. Screenshots light and dark.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { readFileSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { startDaemon, launchBrowser, screenshotPath, BINARY, ROOT } from './helpers.mjs';

const HERE = dirname(fileURLToPath(import.meta.url));
const MIME = 'text/html;profile=mcp-app';
const URI = 'ui://askd/ask.html';

let daemon;
let browser;
let client;
let host;
let hostUrl;
let html;
let modelTools;

async function bridgeBundle() {
  const r = await build({
    stdin: { contents: "export { AppBridge, PostMessageTransport } from '@modelcontextprotocol/ext-apps/app-bridge';", resolveDir: ROOT, loader: 'js' },
    bundle: true, format: 'esm', platform: 'browser', write: false, logLevel: 'silent',
  });
  return r.outputFiles[0].text;
}

before(async () => {
  daemon = await startDaemon();
  browser = await launchBrowser();
  const transport = new StdioClientTransport({
    command: BINARY,
    args: ['mcp'],
    env: { ASKD_HOME: daemon.home, ASKD_NO_BROWSER: '1', PATH: process.env.PATH || '/usr/bin:/bin' },
    stderr: 'pipe',
  });
  client = new Client({ name: 'askd-apps-test-host', version: '1.0.0' }, {
    capabilities: { extensions: { 'io.modelcontextprotocol/ui': { mimeTypes: [MIME] } } },
  });
  await client.connect(transport);
  const { tools } = await client.listTools();
  // What the host shows the model: every tool but the app-only ones.
  modelTools = tools.filter((t) => !(t._meta?.ui?.visibility || ['model', 'app']).every((v) => v === 'app'));
  assert.ok(tools.some((t) => t.name === 'askd_app'), 'the app-only tool is listed for an Apps host');
  assert.ok(!modelTools.some((t) => t.name === 'askd_app'), 'the model does not see askd_app');
  const read = await client.readResource({ uri: URI });
  assert.equal(read.contents[0].mimeType, MIME);
  html = read.contents[0].text;
  const bundle = await bridgeBundle();
  const page = readFileSync(join(HERE, 'apps-host', 'host.html'), 'utf8');
  host = createServer((req, res) => {
    if (req.url === '/bridge.js') {
      res.writeHead(200, { 'Content-Type': 'text/javascript' });
      res.end(bundle);
    } else if (req.url.startsWith('/host.html')) {
      res.writeHead(200, { 'Content-Type': 'text/html' });
      res.end(page);
    } else {
      res.writeHead(404).end();
    }
  });
  await new Promise((r) => host.listen(0, '127.0.0.1', r));
  hostUrl = `http://127.0.0.1:${host.address().port}`;
});

after(async () => {
  await client?.close().catch(() => {});
  await browser?.close();
  host?.close();
  await daemon?.stop();
});

/** A host page in `theme`, with guards: page errors, console errors, requests off loopback.
 * The app's tools/call go to `via` (the asking connection unless another is given). */
async function hostPage(theme, via = client) {
  const context = await browser.newContext({ colorScheme: theme, viewport: { width: 900, height: 900 }, reducedMotion: 'reduce' });
  const page = await context.newPage();
  const problems = [];
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  page.on('console', (m) => { if (m.type() === 'error') problems.push(`console: ${m.text()}`); });
  page.on('request', (r) => {
    const u = new URL(r.url());
    if (['data:', 'about:', 'blob:'].includes(u.protocol)) return;
    if (u.origin !== hostUrl) problems.push(`request off the host: ${r.url()}`);
  });
  const calls = [];
  await page.exposeFunction('hostCallTool', async (params) => {
    calls.push(params);
    const r = await via.callTool(params);
    const status = r.structuredContent?.status;
    if (r.isError || status >= 400) problems.push(`askd_app ${params.arguments?.method} ${params.arguments?.path}: ${JSON.stringify(r.structuredContent)}`);
    return r;
  });
  await page.goto(`${hostUrl}/host.html`);
  return { context, page, problems, calls };
}

/** Calls an ask tool as the model would; the result comes back at once (pending). */
async function askTool(name, args) {
  assert.ok(modelTools.some((t) => t.name === name && t._meta?.ui?.resourceUri === URI), `${name} links the app`);
  const started = Date.now();
  const result = await client.callTool({ name, arguments: args });
  assert.ok(Date.now() - started < 10000, 'the ask tool returns at once for an Apps host');
  assert.equal(result.structuredContent.outcome, 'pending', JSON.stringify(result.structuredContent));
  return result;
}

async function render(page, input, result, theme, csp) {
  await page.evaluate((a) => window.mountApp(a), { html, input, result: JSON.parse(JSON.stringify(result)), theme, csp });
  return page.frameLocator('iframe');
}

async function awaitAnswer(askId) {
  const r = await client.callTool({ name: 'await_answer', arguments: { ask_id: askId, timeout_s: 20 } });
  return r.structuredContent;
}

async function shots(page, name) {
  await page.waitForTimeout(300);
  await page.screenshot({ path: screenshotPath(`apps-${name}-light`), fullPage: true });
  await page.evaluate(() => window.setTheme('dark'));
  await page.waitForTimeout(300);
  const dark = await page.frameLocator('iframe').locator('html').evaluate((el) => el.dataset.theme);
  assert.equal(dark, 'dark', 'the app follows the host context');
  await page.screenshot({ path: screenshotPath(`apps-${name}-dark`), fullPage: true });
  await page.evaluate(() => window.setTheme('light'));
}

/** The result keys a page answer gives (the same ask answered through the daemon's API as
 * the page submits it), for comparing shapes. */
async function settled(app, page, problems, name, selector = '.card.settled, .settled-body') {
  try {
    await app.locator(selector).first().waitFor({ timeout: 10000 });
  } catch (e) {
    await page.screenshot({ path: screenshotPath(`apps-${name}-failed`), fullPage: true });
    throw new Error(`${name} did not settle in the app: ${e.message}\n${problems.join('\n')}`);
  }
}

function shape(r) {
  return Object.keys(r).filter((k) => !['alignment', 'guidance', 'surface'].includes(k)).sort();
}

test('a questions card is answered inside the app', async () => {
  const questions = [
    { id: 'db', header: 'Database', question: 'Which **database** should we use?', options: [{ label: 'SQLite (Recommended)' }, { label: 'Postgres' }] },
  ];
  const result = await askTool('ask_user_question', { questions });
  const id = result.structuredContent.ask_id;
  const { context, page, problems, calls } = await hostPage('light');
  const app = await render(page, { questions }, result, 'light');
  await app.locator('.card.flat').waitFor();
  // Agent text is sanitised markdown, inserted as text.
  assert.equal(await app.locator('.flat-question[data-qid="db"] .prompt strong').textContent(), 'database');
  await shots(page, 'questions');
  await app.locator('.flat-question[data-qid="db"] .row-hit >> nth=1').click();
  await app.locator('.seg.primary').click();
  await app.locator('.card.settled').waitFor();
  const got = await awaitAnswer(id);
  assert.equal(got.outcome, 'answered');
  assert.equal(got.surface, 'app');
  assert.deepEqual(got.answers, [{ id: 'db', selected: ['Postgres'] }]);
  // The page's answer to the same card: the same result but for the surface.
  const twin = await daemon.createQuestions(questions.map((q) => ({ ...q, question: `${q.question} (page)` })));
  await daemon.api('POST', `/api/asks/${twin}/submit`, { answers: [{ id: 'db', selected: ['Postgres'] }] });
  const pageResult = await daemon.result(twin);
  assert.deepEqual(shape(got), shape(pageResult));
  assert.equal(pageResult.surface, 'page');
  assert.ok(calls.every((c) => c.name === 'askd_app'), 'the app reaches askd only through askd_app');
  assert.deepEqual(problems, []);
  await context.close();
});

test('a survey is walked and submitted inside the app', async () => {
  const survey = {
    title: 'Release plan (app)',
    intro: 'Pick the **shape** of the next release.',
    entry: 'q1',
    questions: {
      q1: { header: 'Scope', prompt: 'Which direction fits the release?', next: 'q2',
        options: [{ key: 'a', label: 'Ship the public API', recommended: true }, { key: 'b', label: 'Rework the core first' },
          { key: 'c', label: 'Split the release in two' }, { key: 'd', label: 'Cut scope to bug fixes' }, { key: 'e', label: 'Delay a quarter' }] },
      q2: { prompt: 'Who writes the docs?' },
    },
  };
  const result = await askTool('ask_survey', { survey });
  const id = result.structuredContent.ask_id;
  const { context, page, problems } = await hostPage('light');
  const app = await render(page, { survey }, result, 'light');
  await settled(app, page, problems, 'survey-start', '.seg.primary');
  await shots(page, 'survey-intro');
  await app.locator('.seg.primary').click();
  await settled(app, page, problems, 'survey-q1', '.row[data-key="a"] .row-hit');
  await shots(page, 'survey');
  await app.locator('.row[data-key="b"] .row-hit').click();
  await app.locator('.seg.primary').click();
  await app.locator('.custom-input').waitFor();
  await app.locator('.custom-input').fill('The team');
  await app.locator('.seg.primary').click();
  await app.locator('dialog[open].recap').waitFor();
  await page.screenshot({ path: screenshotPath('apps-survey-recap-light'), fullPage: true });
  await app.locator('dialog[open].recap button[value="yes"]').click();
  await app.locator('.card.settled').waitFor();
  const got = await awaitAnswer(id);
  assert.equal(got.outcome, 'answered', JSON.stringify(got));
  assert.equal(got.surface, 'app');
  assert.deepEqual(got.path, ['q1', 'q2']);
  assert.deepEqual(got.answers.map((a) => a.id), ['q1', 'q2']);
  // The page's submit of the same survey: the same shape (the page names no surface).
  const twin = await daemon.createSurvey({ ...survey, title: 'Release plan (page)' });
  await daemon.api('POST', `/api/asks/${twin}/bank`, { answers: [{ id: 'q1', selected: ['b'] }, { id: 'q2', selected: [], custom: 'The team' }] });
  const sub = await daemon.api('POST', `/api/asks/${twin}/submit`, { answers: [{ id: 'q1', selected: ['b'] }, { id: 'q2', selected: [], custom: 'The team' }] });
  assert.equal(sub.status, 200, JSON.stringify(sub.body));
  const pageResult = await daemon.result(twin);
  assert.deepEqual(shape(got), shape(pageResult));
  assert.deepEqual(got.answers, pageResult.answers);
  assert.deepEqual(problems, []);
  await context.close();
});

test('a review is answered inside the app', async () => {
  const review = { title: 'Release checklist (app)', items: [
    { id: 'build', title: 'Run cargo build --release' },
    { id: 'tag', type: 'bool', title: 'Tag the release today' },
  ] };
  const result = await askTool('batch_review', review);
  const id = result.structuredContent.ask_id;
  const { context, page, problems } = await hostPage('light');
  const app = await render(page, review, result, 'light');
  await app.locator('.rv-submit').waitFor();
  // Daemon links (exports, the inbox) have no place in the host's frame.
  assert.equal(await app.locator('.rv-export:visible, a[data-nav]:visible').count(), 0);
  await shots(page, 'review');
  await app.locator('.rv-opt[data-v="pass"]').first().click();
  await app.locator('.rv-opt[data-v="yes"]').first().click();
  await app.locator('.rv-submit').click();
  await settled(app, page, problems, 'review', '.card.settled, .settled-body, [class*="settled"]');
  await page.screenshot({ path: screenshotPath('apps-review-settled-light'), fullPage: true });
  const got = await awaitAnswer(id);
  assert.equal(got.surface, 'app', JSON.stringify(got));
  assert.deepEqual(got.items.map((i) => [i.id, i.verdict]), [['build', 'pass'], ['tag', 'yes']]);
  const twin = await daemon.api('POST', '/api/asks', { kind: 'review', args: { ...review, title: 'Release checklist (page)' } });
  const tid = twin.body.ask_id;
  await daemon.api('POST', `/api/asks/${tid}/submit`, { answers: [{ id: 'build', verdict: 'pass' }, { id: 'tag', verdict: 'yes' }], surface: 'card' });
  const pageResult = await daemon.result(tid);
  assert.deepEqual(shape(got), shape(pageResult));
  assert.deepEqual(problems, []);
  await context.close();
});

test('a drift card is decided inside the app', async () => {
  const drift = { reason: 'scope-expansion', description: 'The export needs a **PDF** renderer',
    options: [{ label: 'Skip PDF', description: 'CSV only for now' }, { label: 'Add a renderer' }] };
  const result = await askTool('report_drift', drift);
  const id = result.structuredContent.ask_id;
  assert.ok(id, JSON.stringify(result.structuredContent));
  const { context, page, problems } = await hostPage('light');
  const app = await render(page, drift, result, 'light');
  await app.locator('.drift-send').waitFor();
  await shots(page, 'drift');
  await app.locator('.dir-row[data-index="0"]').click();
  await app.locator('.drift-send').click();
  await settled(app, page, problems, 'drift', '.drift-outcome-head');
  await page.screenshot({ path: screenshotPath('apps-drift-settled-light'), fullPage: true });
  const got = await awaitAnswer(id);
  assert.equal(got.surface, 'app', JSON.stringify(got));
  assert.equal(got.outcome, 'decided', JSON.stringify(got));
  assert.equal(got.choice, 'Skip PDF');
  assert.equal(got.choice_source, 'option');
  assert.deepEqual(problems, []);
  await context.close();
});

test('a Chinese ask speaks Chinese in the app; dismissing it inside the app cancels', async () => {
  const questions = [
    { id: 'db', header: '数据库', question: '我们应该用哪个数据库？', options: [{ label: 'SQLite（推荐）' }, { label: 'Postgres' }] },
  ];
  const result = await askTool('ask_user_question', { questions });
  const id = result.structuredContent.ask_id;
  const { context, page, problems } = await hostPage('dark');
  const app = await render(page, { questions }, result, 'dark');
  await app.locator('.card.flat').waitFor();
  assert.equal((await app.locator('.seg.primary').textContent()).trim(), '发送答案');
  assert.equal(await app.locator('html').getAttribute('lang'), 'zh-CN');
  await page.screenshot({ path: screenshotPath('apps-questions-zh-dark'), fullPage: true });
  await app.locator('.seg:has-text("忽略"), .seg:not(.primary)').first().click();
  await app.locator('dialog[open] button[value="yes"]').click();
  await settled(app, page, problems, 'questions-zh');
  const r = await client.callTool({ name: 'await_answer', arguments: { ask_id: id, timeout_s: 20 } });
  assert.equal(r.isError, true, JSON.stringify(r.structuredContent));
  assert.equal(r.structuredContent.error.code, 'ASK_CANCELLED');
  assert.deepEqual(problems, []);
  await context.close();
});

test('a survey without an intro opens on its title alone', async () => {
  const opts = ['Ship it', 'Hold it', 'Split it', 'Shrink it', 'Delay it'].map((label, i) => ({ key: 'abcde'[i], label }));
  const survey = { title: 'No intro (app)', entry: 'q1', questions: { q1: { prompt: 'What now?', options: opts } } };
  const result = await askTool('ask_survey', { survey });
  const { context, page, problems } = await hostPage('light');
  const app = await render(page, { survey }, result, 'light');
  await app.locator('.intro-title').waitFor();
  const text = await app.locator('.intro-title').evaluate((el) => el.parentElement.textContent);
  assert.equal(text.trim(), 'No intro (app)');
  assert.deepEqual(problems, []);
  await context.close();
});

// Issue 27: askd_app acts only on an ask the conversation asked — the connection that asked
// it, or with the handle askd signed for it. The ask tool's result carries that handle in
// `_meta["askd/app"]`; the host bridge hands the whole result to the frame, and the app
// sends the handle with every call, so a connection that did not ask (a host reconnected:
// here a second `askd mcp` with the same clientInfo name) is served — and without the
// handle it is refused.
test("the app sends askd's handle: another connection serves its calls, none without it", async () => {
  const questions = [{ id: 'go', question: 'Ship on **Friday**?', options: [{ label: 'Yes' }, { label: 'No' }] }];
  const result = await askTool('ask_user_question', { questions });
  const id = result.structuredContent.ask_id;
  assert.equal(result._meta?.['askd/app']?.ask_id, id, JSON.stringify(result._meta));
  assert.equal(typeof result._meta['askd/app'].handle, 'string');
  const other = new Client({ name: 'askd-apps-test-host', version: '1.0.0' }, {
    capabilities: { extensions: { 'io.modelcontextprotocol/ui': { mimeTypes: [MIME] } } },
  });
  await other.connect(new StdioClientTransport({
    command: BINARY,
    args: ['mcp'],
    env: { ASKD_HOME: daemon.home, ASKD_NO_BROWSER: '1', PATH: process.env.PATH || '/usr/bin:/bin' },
    stderr: 'pipe',
  }));
  try {
    const bare = await other.callTool({ name: 'askd_app', arguments: { method: 'GET', path: `/api/asks/${id}` } });
    assert.equal(bare.isError, true, JSON.stringify(bare.structuredContent));
    assert.equal(bare.structuredContent.error.code, 'APP_ENDPOINT_REFUSED');
    const { context, page, problems, calls } = await hostPage('light', other);
    const app = await render(page, { questions }, result, 'light');
    await app.locator('.card.flat').waitFor();
    await app.locator('.flat-question[data-qid="go"] .row-hit >> nth=1').click();
    await app.locator('.seg.primary').click();
    await settled(app, page, problems, 'questions-handle', '.card.settled');
    assert.ok(calls.length >= 2, `the app called askd: ${calls.length}`);
    for (const c of calls) {
      assert.equal(c.name, 'askd_app');
      assert.equal(c.arguments.handle, result._meta['askd/app'].handle, `${c.arguments.method} ${c.arguments.path} carries the handle`);
    }
    const got = await awaitAnswer(id);
    assert.equal(got.surface, 'app');
    assert.deepEqual(got.answers, [{ id: 'go', selected: ['No'] }]);
    assert.deepEqual(problems, []);
    await context.close();
  } finally {
    await other.close().catch(() => {});
  }
});

// Issue 30 §14. (a) An option's diagram shows inside the frame as on the page: the frame
// has no network, so the SVG the daemon rendered (and sanitised) comes through askd_app
// and is shown as an image from a data: URL (an image never runs script). A host whose
// frame allows no image at all (the MCP Inspector 2.12's policy for an app listing no
// resource domain: img-src 'none') gets the same SVG drawn inline, checked once more.
const STRICT_CSP = "default-src 'none'; connect-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src 'none'; font-src 'none'; media-src 'none'; frame-src 'none'; base-uri 'self'; form-action 'none'; object-src 'none'; worker-src 'none'";
test('an option diagram shows inside the app, inline and at full size', async () => {
  const tall = `flowchart TD\n${Array.from({ length: 6 }, (_, i) => `  N${i}[Step ${i}] --> N${i + 1}[Step ${i + 1}]`).join('\n')}`;
  const survey = { title: 'Diagram (app)', entry: 'q1', questions: { q1: { prompt: 'Which pipeline?', options: [
    { key: 'a', label: 'Staged', diagram: tall }, { key: 'b', label: 'Direct' }, { key: 'c', label: 'Batch' }, { key: 'd', label: 'Stream' }, { key: 'e', label: 'Manual' },
  ] } } };
  for (const [theme, strict] of [['light', false], ['dark', false], ['light', true]]) {
    const result = await askTool('ask_survey', { survey: { ...survey, title: `Diagram (app, ${theme}${strict ? ', strict host' : ''})` } });
    const { context, page, problems, calls } = await hostPage(theme);
    const app = await render(page, { survey }, result, theme, strict ? STRICT_CSP : undefined);
    await app.locator('.intro-title').waitFor();
    await app.locator('.seg.primary').click();
    await app.locator('.row[data-key="a"] .tool[aria-label="Show diagram"]').click();
    if (strict) {
      await app.locator('.panel svg.diagram').waitFor();
      const box = await app.locator('.panel svg.diagram').evaluate((el) => el.getBoundingClientRect().toJSON());
      assert.ok(box.width > 20 && box.height > 20, `drawn inline: ${JSON.stringify(box)}`);
      assert.equal(await app.locator('.panel svg.diagram script, .panel svg.diagram foreignObject').count(), 0);
    } else {
      await app.locator('.panel img.diagram').waitFor();
      await page.waitForFunction(() => {
        const img = document.querySelector('iframe').contentDocument?.querySelector('.panel img.diagram');
        return img ? img.complete : null;
      }).catch(() => {});
      const img = await app.locator('.panel img.diagram').evaluate((el) => ({ src: el.src.slice(0, 30), w: el.naturalWidth, h: el.naturalHeight }));
      assert.match(img.src, /^data:image\/svg\+xml/);
      assert.ok(img.w > 0 && img.h > 0, `the diagram loaded: ${JSON.stringify(img)}`);
    }
    assert.equal(await app.locator('.diagram-error').count(), 0, 'not the source-as-text fallback');
    const diagramCalls = calls.filter((c) => c.arguments.path.startsWith('/api/diagrams/'));
    assert.ok(diagramCalls.length >= 1, 'the SVG came through askd_app');
    assert.equal(diagramCalls[0].arguments.handle, result._meta['askd/app'].handle);
    await page.waitForTimeout(300);
    await page.screenshot({ path: screenshotPath(`apps-diagram-${theme}${strict ? '-strict-host' : ''}`), fullPage: true });
    // Full size in the dialog, as on the page.
    await app.locator('.panel .diagram-open').click();
    await app.locator('dialog[open].diagram-dialog .diagram-full').waitFor();
    assert.equal(await app.locator('dialog[open] .zoom-level').textContent(), '100%');
    await app.locator('dialog[open] button[aria-label="Zoom in"]').click();
    assert.equal(await app.locator('dialog[open] .zoom-level').textContent(), '150%');
    await app.locator('dialog[open] button[aria-label="Close the diagram"]').click();
    await app.locator('dialog.diagram-dialog').waitFor({ state: 'detached' });
    // Under the strict host the refused image is its CSP at work, which it reports.
    assert.deepEqual(problems.filter((p) => !(strict && /Content Security Policy/.test(p))), []);
    await context.close();
  }
});

// (b) Put away in the frame does what it does on the page, as far as a frame can: the
// draft is kept (saved through askd_app), the ask stays pending, and the frame folds to
// one line with "Pick up again", which brings the card back with the draft.
test('Put away inside the app keeps the draft, folds the frame, and picks up again', async () => {
  const questions = [{ id: 'db', question: 'Which database (put away)?', options: [{ label: 'SQLite' }, { label: 'Postgres' }] }];
  const result = await askTool('ask_user_question', { questions });
  const id = result.structuredContent.ask_id;
  const { context, page, problems } = await hostPage('light');
  const app = await render(page, { questions }, result, 'light');
  await app.locator('.card.flat').waitFor();
  await app.locator('.flat-question[data-qid="db"] .row-hit >> nth=1').click();
  const tall = await page.locator('iframe').evaluate((f) => f.getBoundingClientRect().height);
  await app.locator('.card.flat button[aria-label="Put away"]').click();
  await app.locator('.app-put-away').waitFor();
  assert.match(await app.locator('.app-put-away').textContent(), /Put away — the answers so far are kept/);
  await page.waitForFunction((h) => document.querySelector('iframe').getBoundingClientRect().height < h - 40, tall);
  await page.screenshot({ path: screenshotPath('apps-put-away-light'), fullPage: true });
  // The draft is the daemon's; the ask is still pending.
  let view;
  for (let i = 0; i < 20; i++) {
    view = await daemon.view(id);
    if (view.autosave) break;
    await page.waitForTimeout(100);
  }
  assert.equal(view.state, 'pending');
  assert.ok(view.autosave, 'the draft was saved');
  await app.locator('.app-put-away button').click();
  await app.locator('.card.flat').waitFor();
  await app.locator('.flat-question[data-qid="db"] .row-hit[aria-checked="true"]').waitFor();
  assert.equal(await app.locator('.flat-question[data-qid="db"] .row-hit[aria-checked="true"] .label-text').textContent(), 'Postgres', 'the draft is back');
  await app.locator('.seg.primary').click();
  await app.locator('.card.settled').waitFor();
  const got = await awaitAnswer(id);
  assert.deepEqual(got.answers, [{ id: 'db', selected: ['Postgres'] }]);
  assert.deepEqual(problems, []);
  await context.close();
});

// (c) The frame is told instead of polling: askd_app's watch waits (at most 25 s, in
// askd's adapter) until the ask changes and is re-issued in a loop; while nothing happens
// the frame reads nothing, and an ask settled elsewhere shows settled within about a second.
test('the app is told when the ask settles elsewhere, and does not poll meanwhile', async () => {
  const questions = [{ id: 'go', question: 'Ship it (watched)?', options: [{ label: 'Yes' }, { label: 'No' }] }];
  const result = await askTool('ask_user_question', { questions });
  const id = result.structuredContent.ask_id;
  const { context, page, problems, calls } = await hostPage('light');
  const app = await render(page, { questions }, result, 'light');
  await app.locator('.card.flat').waitFor();
  await page.waitForTimeout(1000);
  const before = calls.length;
  await page.waitForTimeout(11000);
  const idle = calls.slice(before).map((c) => `${c.arguments.method} ${c.arguments.path}`);
  assert.ok(!idle.some((c) => c === `GET /api/asks/${id}`), `no view read while nothing changes: ${idle.join(', ')}`);
  assert.ok(idle.length <= 1, `at most one watch re-issued in 11 s: ${idle.join(', ')}`);
  assert.ok(calls.some((c) => c.arguments.path === `/api/asks/${id}/watch`), 'the app watches');
  // Answered elsewhere (the page's API): the frame shows it settled at once.
  const started = Date.now();
  const sub = await daemon.api('POST', `/api/asks/${id}/submit`, { answers: [{ id: 'go', selected: ['Yes'] }] });
  assert.equal(sub.status, 200, JSON.stringify(sub.body));
  await app.locator('.card.settled').waitFor({ timeout: 10000 });
  const took = Date.now() - started;
  assert.ok(took < 3000, `settled in the frame ${took} ms after the answer elsewhere`);
  // Settled: the watch loop ends.
  await page.waitForTimeout(2500);
  const after = calls.length;
  await page.waitForTimeout(3000);
  assert.equal(calls.length, after, 'no call once the ask is settled');
  assert.deepEqual(problems, []);
  await context.close();
});

// Issue 35: the app shows an ask's deadline as the page does — the countdown and what happens
// then — without "One more hour" (a person moves a deadline on askd's page), and says so when
// nobody answered in time.
test('the app counts down to a deadline and says when the default was applied', async () => {
  const questions = [{ id: 'go', question: 'Ship it before the train?', options: [{ label: 'Yes' }, { label: 'No' }] }];
  const result = await askTool('ask_user_question', { questions, deadline: { in_s: 4, default: { go: 'No' } } });
  assert.ok(result.structuredContent.expires_at, JSON.stringify(result.structuredContent));
  const { context, page, problems } = await hostPage('light');
  const app = await render(page, { questions }, result, 'light');
  await app.locator('.card.flat').waitFor();
  await app.locator('.deadline-bar .deadline-left').waitFor();
  assert.match(await app.locator('.deadline-bar').textContent(), /This ask stops waiting in .*go: No/);
  assert.equal(await app.locator('.deadline-extend').count(), 0);
  await app.locator('.deadline-bar:has-text("Nobody answered by the deadline")').waitFor({ timeout: 20000 });
  const got = await awaitAnswer(result.structuredContent.ask_id);
  assert.equal(got.outcome, 'expired');
  assert.equal(got.defaulted, true);
  assert.deepEqual(problems, []);
  await context.close();
});

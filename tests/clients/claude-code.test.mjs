// Claude Code 2.1.332 headless (`claude -p`) driving `askd mcp` end to end, in both protocol
// eras (default 2026-07-28 and MCP_PROTOCOL_NEGOTIATION=legacy). The model is a stand-in
// Messages API server of ours (standin/anthropic.mjs) scripted to load the askd tool with
// ToolSearch, call it, and end with a text quoting the tool result; the stand-in records every
// request, so each test asserts what the model was shown. The human answers through askd's API.
// The server entry and the --allowedTools list are read from docs/integrations.md.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync, readdirSync, readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { startAnthropic, scripted, toolResults } from './standin/anthropic.mjs';
import {
  ROOT, CLIENTS, BIN_DIR, tempDir, daemonOf, pendingAsk, humanSubmit, humanCancel, humanOutcome, killDaemon, cleanup, run,
  QUESTIONS, QUESTIONS_ANSWER, INVALID_QUESTIONS, REVIEW, REVIEW_ANSWER, surveyArgs, SURVEY_ANSWER,
} from './standin/harness.mjs';

const CLAUDE = join(CLIENTS, 'node_modules', '.bin', 'claude');
const T = (name) => `mcp__askd__${name}`;

/**
 * The Claude Code section of docs/integrations.md: its `.mcp.json` block (used verbatim as
 * the --mcp-config file) and the `--allowedTools` list of its headless command line.
 */
export function documented() {
  const doc = readFileSync(join(ROOT, 'docs', 'integrations.md'), 'utf8');
  const section = doc.split(/^## /m).find((s) => s.startsWith('Claude Code\n'));
  assert.ok(section, 'docs/integrations.md has a "## Claude Code" section');
  const block = section.match(/```json\n([\s\S]*?)```/);
  assert.ok(block, 'the Claude Code section prints a JSON block');
  const allowed = section.match(/--allowedTools ([\w,]+)/);
  assert.ok(allowed, 'the Claude Code section prints a headless command line with --allowedTools');
  return { config: JSON.parse(block[1]), allowedTools: allowed[1] };
}

/**
 * One headless Claude Code run: `steps` script the stand-in model, `human(askdHome)` runs
 * alongside (answering through the API). Returns what the model was shown and what askd saw.
 */
async function claude({ era, tools, steps, human, askdEnv = {}, env = {}, timeoutMs = 90000 }) {
  const home = tempDir('askd-cc-home-');
  const askdHome = tempDir('askd-cc-data-');
  const model = await startAnthropic(scripted(steps));
  const config = join(home, 'mcp.json');
  const doc = documented();
  for (const t of tools) assert.ok(doc.allowedTools.split(',').includes(T(t)), `the documented --allowedTools names ${T(t)}`);
  // The documented server entry; only a scenario's own maxWait is added to its env.
  doc.config.mcpServers.askd.env = { ...doc.config.mcpServers.askd.env, ...askdEnv };
  writeFileSync(config, JSON.stringify(doc.config));
  try {
    const humanDone = human ? human(askdHome).catch((e) => e) : Promise.resolve();
    const res = await run(CLAUDE, ['-p', 'Use askd to ask the user, then report the answer.',
      '--mcp-config', config, '--strict-mcp-config', '--allowedTools', doc.allowedTools], {
      cwd: home,
      timeoutMs,
      env: {
        PATH: `${BIN_DIR}:${process.env.PATH}`,
        HOME: home,
        CLAUDE_CONFIG_DIR: join(home, '.claude'),
        ANTHROPIC_BASE_URL: model.url,
        ANTHROPIC_API_KEY: 'sk-ant-standin',
        DISABLE_AUTOUPDATER: '1',
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
        DISABLE_TELEMETRY: '1',
        // The adapter inherits Claude Code's environment (docs/integrations.md).
        ASKD_HOME: askdHome,
        ASKD_LISTEN: '127.0.0.1:0',
        ASKD_NO_BROWSER: '1',
        ...(era === 'legacy' ? { MCP_PROTOCOL_NEGOTIATION: 'legacy' } : {}),
        ...env,
      },
    });
    assert.notEqual(res.code, null, `the client ran: ${res.stderr}`);
    await humanOutcome(humanDone, () => JSON.stringify(toolResults(model.requests.at(-1)?.body)));
    const main = model.requests.filter((r) => (r.body?.tools || []).some((t) => t.name === 'ToolSearch'));
    const shown = toolResults(main.at(-1)?.body);
    let sessions = [];
    if (existsSync(join(askdHome, 'daemon.json'))) {
      const d = await daemonOf(askdHome);
      sessions = (await d.api('GET', '/api/sessions')).body.sessions || [];
    }
    return { ...res, requests: main, shown, sessions, serverStderr: serverStderr(home), mcpLog: mcpLog(home) };
  } finally {
    await model.close();
    await killDaemon(askdHome);
    cleanup(home, askdHome);
  }
}

/** Claude Code's per-server log ($HOME/.cache/claude-cli-nodejs/<project>/mcp-logs-askd/). */
function mcpLog(home) {
  const base = join(home, '.cache', 'claude-cli-nodejs');
  const lines = [];
  if (!existsSync(base)) return lines;
  for (const project of readdirSync(base)) {
    const dir = join(base, project, 'mcp-logs-askd');
    if (!existsSync(dir)) continue;
    for (const f of readdirSync(dir)) {
      for (const l of readFileSync(join(dir, f), 'utf8').split('\n')) if (l.trim()) lines.push(JSON.parse(l));
    }
  }
  return lines;
}

/** What the adapter wrote on stderr, as Claude Code logged it ("Server stderr: …"). */
function serverStderr(home) {
  return mcpLog(home).map((l) => l.error || '').filter((e) => e.startsWith('Server stderr:')).join('');
}

function json(text) {
  try { return JSON.parse(text); } catch { return undefined; }
}

/** The scripted model: load `tools`, call `name` with `args`, then quote what it was shown. */
function callSteps(name, args, loads = [name]) {
  return [
    { tool: { name: 'ToolSearch', input: { query: `select:${loads.map(T).join(',')}` } } },
    { tool: { name: T(name), input: args } },
    (results) => ({ text: `The tool returned: ${results.at(-1).text}` }),
  ];
}

function assertQuoted(r) {
  assert.equal(r.code, 0, `claude exited ${r.code}: ${r.stderr}`);
  assert.ok(r.stdout.includes(r.shown.at(-1).text.slice(0, 200)), `the final text quotes the tool result: ${r.stdout}`);
}

for (const era of ['modern', 'legacy']) {
  describe(`Claude Code 2.1.332, ${era === 'modern' ? 'protocol 2026-07-28 (default)' : 'MCP_PROTOCOL_NEGOTIATION=legacy'}`, () => {
    let first;

    test('ask_user_question: the model is shown the answers', async () => {
      const r = first = await claude({
        era, tools: ['ask_user_question'], steps: callSteps('ask_user_question', QUESTIONS),
        human: async (h) => { const { daemon, ask } = await pendingAsk(h, { kind: 'questions' }); await humanSubmit(daemon, ask.id, QUESTIONS_ANSWER); },
      });
      assert.equal(r.shown.length, 2, `ToolSearch and the askd call: ${JSON.stringify(r.shown)}`);
      const shown = r.shown.at(-1);
      assert.equal(shown.is_error, false, shown.text);
      const result = json(shown.text);
      assert.ok(result, `the model sees the structured result as JSON: ${shown.text}`);
      assert.equal(result.outcome, 'answered');
      assert.deepEqual(result.answers.find((a) => a.id === 'db').selected, ['Postgres (Recommended)']);
      assertQuoted(r);
    });

    test(`Claude Code spoke protocol ${era === 'modern' ? '2026-07-28' : '2025-11-25 (initialize)'} to askd`, () => {
      assert.ok(first, 'the ask_user_question run happened');
      const connected = first.mcpLog.map((l) => l.debug || '').find((d) => d.startsWith('Connection established'));
      assert.ok(connected, JSON.stringify(first.mcpLog));
      const version = JSON.parse(connected.slice(connected.indexOf('{'))).negotiatedProtocolVersion;
      assert.equal(version, era === 'modern' ? '2026-07-28' : '2025-11-25', connected);
    });

    test('the session askd records is labelled claude-code', () => {
      assert.ok(first, 'the ask_user_question run happened');
      assert.deepEqual(first.sessions.map((s) => s.client), ['claude-code'], JSON.stringify(first.sessions));
    });

    test("the adapter's stderr is quiet on success", () => {
      assert.ok(first, 'the ask_user_question run happened');
      assert.ok(first.mcpLog.length > 0, 'Claude Code logged the askd connection');
      assert.equal(first.serverStderr, '', 'nothing on the adapter stderr');
    });

    test('ask_survey (release-scope fixture): the model is shown the decisions along the path', async () => {
      const r = await claude({
        era, tools: ['ask_survey'], steps: callSteps('ask_survey', surveyArgs()),
        human: async (h) => { const { daemon, ask } = await pendingAsk(h, { kind: 'survey' }); await humanSubmit(daemon, ask.id, SURVEY_ANSWER); },
      });
      const shown = r.shown.at(-1);
      assert.equal(shown.is_error, false, shown.text);
      const result = json(shown.text);
      assert.ok(result, shown.text);
      assert.equal(result.outcome, 'answered', shown.text);
      assert.match(shown.text, /REST endpoints first/);
      assert.match(shown.text, /Ship the public API/);
      assertQuoted(r);
    });

    test('batch_review: the model is shown every verdict', async () => {
      const r = await claude({
        era, tools: ['batch_review'], steps: callSteps('batch_review', REVIEW),
        human: async (h) => { const { daemon, ask } = await pendingAsk(h, { kind: 'review' }); await humanSubmit(daemon, ask.id, REVIEW_ANSWER); },
      });
      const shown = r.shown.at(-1);
      assert.equal(shown.is_error, false, shown.text);
      const result = json(shown.text);
      assert.ok(result, shown.text);
      assert.equal(result.outcome, 'answered');
      assert.deepEqual(result.items.map((i) => [i.id, i.verdict]), [['r1', 'pass'], ['r2', 'fail']]);
      assert.equal(result.summary.fail, 1);
      assertQuoted(r);
    });

    let invalid;
    test('an invalid call: the model is shown what is wrong, where, and how to fix it', async () => {
      const r = invalid = await claude({ era, tools: ['ask_user_question'], steps: callSteps('ask_user_question', INVALID_QUESTIONS) });
      const shown = r.shown.at(-1);
      assert.equal(shown.is_error, true, shown.text);
      assert.match(shown.text, /questions\[1\]\.id/, `the path of the problem: ${shown.text}`);
      assert.match(shown.text, /unique/, `how to fix it: ${shown.text}`);
      const envelope = json(shown.text.slice(shown.text.indexOf('\n{') + 1))?.error;
      assert.ok(envelope, `the JSON envelope follows the readable text: ${shown.text}`);
      assert.ok(envelope.errors?.some((e) => e.path === 'questions[1].id' && e.code), shown.text);
      assertQuoted(r);
    });

    // askd keeps each tool's own error text as the readable first block (the originals' texts
    // are pinned by their specs); the machine code reaches the model in the envelope after it.
    test('an invalid call: the readable text comes first, then the machine code', () => {
      assert.ok(invalid, 'the invalid-call run happened');
      const shown = invalid.shown.at(-1);
      const at = shown.text.indexOf('\n{');
      assert.ok(at > 0, `readable text before the JSON: ${shown.text}`);
      assert.ok(!shown.text.slice(0, at).trim().startsWith('{'), shown.text);
      const code = json(shown.text.slice(at + 1))?.error?.code;
      assert.match(code || '', /^[A-Z_a-z-]+$/, `the machine code: ${shown.text}`);
    });

    test("a human who answers after the client's limit: pending handle, then await_answer gets the answer", async () => {
      let pendingSeen = false;
      const steps = [
        { tool: { name: 'ToolSearch', input: { query: `select:${T('ask_user_question')},${T('await_answer')}` } } },
        { tool: { name: T('ask_user_question'), input: QUESTIONS } },
        async (results) => {
          const handle = json(results.at(-1).text);
          if (handle?.outcome !== 'pending') return { text: `No pending handle: ${results.at(-1).text}` };
          pendingSeen = true;
          // The human answers only now, after the client's limit has passed for the first call.
          const h = await pendingAsk(askdHome, { kind: 'questions', timeoutMs: 5000 });
          await humanSubmit(h.daemon, handle.ask_id, QUESTIONS_ANSWER);
          return { tool: { name: T('await_answer'), input: { ask_id: handle.ask_id } } };
        },
        (results) => ({ text: `The tool returned: ${results.at(-1).text}` }),
      ];
      let askdHome;
      const r = await claude({
        era, tools: ['ask_user_question', 'await_answer'], steps,
        askdEnv: { ASKD_MAX_WAIT: '3' }, env: { MCP_TOOL_TIMEOUT: '8000' },
        human: async (h) => { askdHome = h; },
      });
      const first = r.shown[1];
      assert.ok(first, `the askd call returned: ${JSON.stringify(r.shown)}`);
      const handle = json(first.text);
      assert.equal(handle?.outcome, 'pending', `the model is shown the pending handle, not a bare timeout: ${first.text}`);
      assert.match(handle.ask_id, /\S/);
      assert.match(handle.instruction, /await_answer/);
      assert.ok(pendingSeen);
      const last = r.shown.at(-1);
      assert.equal(r.shown.length, 3, JSON.stringify(r.shown));
      assert.equal(last.is_error, false, last.text);
      const result = json(last.text);
      assert.equal(result?.outcome, 'answered', last.text);
      assert.deepEqual(result.answers.find((a) => a.id === 'db').selected, ['Postgres (Recommended)']);
      assertQuoted(r);
    });

    // CLAUDE_CODE_MCP_APPS_HOST=1: Claude Code declares the MCP Apps extension, so askd's ask
    // tool returns the pending handle at once (the host renders the app from it) and the model
    // goes on with await_answer, which gets the human's answer (given here through the API).
    test('as an MCP Apps host: the ask returns its handle at once, await_answer the answer', async () => {
      let askdHome;
      let handleAt = null;
      const started = Date.now();
      const steps = [
        { tool: { name: 'ToolSearch', input: { query: `select:${T('ask_user_question')},${T('await_answer')}` } } },
        { tool: { name: T('ask_user_question'), input: QUESTIONS } },
        async (results) => {
          handleAt = Date.now() - started;
          const handle = json(results.at(-1).text);
          if (handle?.outcome !== 'pending') return { text: `No pending handle: ${results.at(-1).text}` };
          const h = await pendingAsk(askdHome, { kind: 'questions', timeoutMs: 5000 });
          await humanSubmit(h.daemon, handle.ask_id, QUESTIONS_ANSWER);
          return { tool: { name: T('await_answer'), input: { ask_id: handle.ask_id } } };
        },
        (results) => ({ text: `The tool returned: ${results.at(-1).text}` }),
      ];
      const r = await claude({
        era, tools: ['ask_user_question', 'await_answer'], steps,
        env: { CLAUDE_CODE_MCP_APPS_HOST: '1' },
        human: async (h) => { askdHome = h; },
      });
      const handle = json(r.shown[1]?.text ?? '');
      assert.equal(handle?.outcome, 'pending', `the handle at once: ${JSON.stringify(r.shown)}`);
      assert.ok(handleAt !== null && handleAt < 60000, `returned before any wait budget: ${handleAt} ms`);
      const result = json(r.shown.at(-1).text);
      assert.equal(result?.outcome, 'answered', r.shown.at(-1).text);
      assert.deepEqual(result.answers.find((a) => a.id === 'db').selected, ['Postgres (Recommended)']);
      assertQuoted(r);
    });

    test('a cancel: the human dismisses the ask and the model is told so', async () => {
      const r = await claude({
        era, tools: ['ask_user_question'], steps: callSteps('ask_user_question', QUESTIONS),
        human: async (h) => { const { daemon, ask } = await pendingAsk(h, { kind: 'questions' }); await humanCancel(daemon, ask.id); },
      });
      const shown = r.shown.at(-1);
      assert.match(shown.text, /cancel/i, shown.text);
      assert.doesNotMatch(shown.text, /Postgres \(Recommended\)"\s*\]/, 'no answer is invented');
      // Either a result with outcome "cancelled" or an error result whose envelope says so.
      const result = json(shown.text) ?? json(shown.text.slice(shown.text.indexOf('\n{') + 1));
      assert.ok(result?.outcome === 'cancelled' || /cancel/i.test(result?.error?.code ?? ''), shown.text);
      assertQuoted(r);
    });
  });
}

/** The documented `claude mcp add --transport http …` line of docs/integrations.md, as argv. */
function documentedHttpAdd() {
  const doc = readFileSync(join(ROOT, 'docs', 'integrations.md'), 'utf8');
  const m = doc.match(/claude mcp add --transport http askd (\S+) \\\n\s+--header "Authorization: Bearer \$\(cat ([^)]+)\)"/);
  assert.ok(m, 'docs/integrations.md prints `claude mcp add --transport http askd <url> --header …`');
  return { url: m[1], tokenFile: m[2] };
}

// Issue 28 §6: over HTTP, configured exactly as the docs say, one run is one askd session (a
// 2026-07-28 retry of an `input_required` round used to open a second, empty one).
for (const era of ['modern', 'legacy']) {
  test(`Claude Code 2.1.332 over HTTP (claude mcp add --transport http), ${era}: one askd session per run`, async () => {
    const { spawn } = await import('node:child_process');
    const home = tempDir('askd-cc-http-home-');
    const askdHome = tempDir('askd-cc-http-data-');
    const serve = spawn(join(BIN_DIR, 'askd'), ['serve'], {
      env: { ...process.env, ASKD_HOME: askdHome, ASKD_LISTEN: '127.0.0.1:0', ASKD_NO_BROWSER: '1' }, stdio: 'ignore',
    });
    const model = await startAnthropic(scripted(callSteps('ask_user_question', QUESTIONS)));
    try {
      const d = await daemonOf(askdHome);
      const doc = documentedHttpAdd();
      assert.equal(doc.url, 'http://127.0.0.1:7391/mcp');
      const url = `${d.url}/mcp`;
      const env = {
        PATH: `${BIN_DIR}:${process.env.PATH}`, HOME: home, CLAUDE_CONFIG_DIR: join(home, '.claude'),
        ANTHROPIC_BASE_URL: model.url, ANTHROPIC_API_KEY: 'sk-ant-standin', DISABLE_AUTOUPDATER: '1',
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1', DISABLE_TELEMETRY: '1',
        ...(era === 'legacy' ? { MCP_PROTOCOL_NEGOTIATION: 'legacy' } : {}),
      };
      const add = await run(CLAUDE, ['mcp', 'add', '--transport', 'http', 'askd', url, '--header', `Authorization: Bearer ${d.token}`], { cwd: home, env, timeoutMs: 30000 });
      assert.equal(add.code, 0, `claude mcp add: ${add.stdout}${add.stderr}`);
      const human = (async () => { const { daemon, ask } = await pendingAsk(askdHome, { kind: 'questions' }); await humanSubmit(daemon, ask.id, QUESTIONS_ANSWER); })().catch((e) => e);
      const r = await run(CLAUDE, ['-p', 'Use askd to ask the user, then report the answer.', '--allowedTools', T('ask_user_question')], { cwd: home, env, timeoutMs: 90000 });
      await humanOutcome(human, () => r.stdout);
      assert.equal(r.code, 0, `claude exited ${r.code}: ${r.stderr}`);
      const main = model.requests.filter((q) => (q.body?.tools || []).some((t) => t.name === 'ToolSearch'));
      const shown = toolResults(main.at(-1)?.body).at(-1);
      assert.equal(json(shown?.text)?.outcome, 'answered', shown?.text);
      const sessions = (await d.api('GET', '/api/sessions')).body.sessions || [];
      assert.deepEqual(sessions.map((s) => s.client), ['claude-code'], JSON.stringify(sessions));
      const asks = (await d.api('GET', '/api/asks?state=all')).body.asks || [];
      assert.deepEqual(asks.map((a) => a.session_id), [sessions[0].id], 'the ask is in that session');
    } finally {
      await model.close();
      await killDaemon(askdHome);
      serve.kill();
      cleanup(home, askdHome);
    }
  });
}

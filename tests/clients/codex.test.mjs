// Codex CLI 0.171.0 headless (`codex exec --json`) driving `askd mcp` end to end, with the
// `[mcp_servers.askd]` block exactly as docs/integrations.md prints it and no approval
// setting. The model is a stand-in Responses API provider of ours (standin/responses.mjs),
// scripted to call the askd tool and end with a text quoting the tool output; the stand-in
// records every request, so each test asserts what the model was shown. The human answers
// through askd's API.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync, readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { startResponses, scripted, callOutputs } from './standin/responses.mjs';
import {
  ROOT, CLIENTS, BIN_DIR, tempDir, daemonOf, pendingAsk, humanSubmit, humanCancel, humanOutcome, killDaemon, cleanup, run,
  QUESTIONS, QUESTIONS_ANSWER, INVALID_QUESTIONS, REVIEW, REVIEW_ANSWER, surveyArgs, SURVEY_ANSWER, codexBlock,
} from './standin/harness.mjs';

const CODEX = join(CLIENTS, 'node_modules', '.bin', 'codex');
// Codex shows MCP tools to the model as functions in the namespace `mcp__<server>`.
const NS = 'mcp__askd';

/** The `[mcp_servers.askd]` block of docs/integrations.md's Codex section, verbatim. */
export const documentedBlock = codexBlock;

/** The documented block with its two numbers replaced (the "after the limit" scenario). */
function withLimits(block, toolTimeoutSec, maxWait) {
  const out = block.replace(/^tool_timeout_sec = \d+$/m, `tool_timeout_sec = ${toolTimeoutSec}`)
    .replace(/ASKD_MAX_WAIT = "\d+"/, `ASKD_MAX_WAIT = "${maxWait}"`);
  assert.match(out, new RegExp(`^tool_timeout_sec = ${toolTimeoutSec}$`, 'm'));
  assert.match(out, new RegExp(`ASKD_MAX_WAIT = "${maxWait}"`));
  return out;
}

/**
 * One `codex exec` run: `steps` script the stand-in model, `human(askdHome)` runs alongside.
 * The test's data directory reaches the adapter the documented way: through `env_vars`.
 */
async function codex({ steps, human, block = documentedBlock(), timeoutMs = 90000 }) {
  const home = tempDir('askd-codex-home-');
  const askdHome = tempDir('askd-codex-data-');
  const model = await startResponses(scripted(steps));
  // Only the provider is test-specific; the askd block is the documentation's.
  writeFileSync(join(home, 'config.toml'), `model = "standin"
model_provider = "standin"

[model_providers.standin]
name = "Stand-in model of the askd tests"
base_url = "${model.url}/v1"
wire_api = "responses"

${block}`);
  try {
    const humanDone = human ? human(askdHome).catch((e) => e) : Promise.resolve();
    const res = await run(CODEX, ['exec', '--json', '--skip-git-repo-check', 'Use askd to ask the user, then report the answer.'], {
      cwd: home,
      timeoutMs,
      env: {
        PATH: `${BIN_DIR}:${process.env.PATH}`,
        HOME: home,
        CODEX_HOME: home,
        ASKD_HOME: askdHome,
        ASKD_LISTEN: '127.0.0.1:0',
        ASKD_NO_BROWSER: '1',
        // Codex logs each line of a server's stderr at info ("MCP server stderr (askd): …").
        RUST_LOG: 'codex_rmcp_client=info',
      },
    });
    assert.notEqual(res.code, null, `the client ran: ${res.stderr}`);
    await humanOutcome(humanDone, () => JSON.stringify(callOutputs(model.requests.at(-1)?.body)));
    const events = res.stdout.split('\n').filter((l) => l.trim()).map((l) => { try { return JSON.parse(l); } catch { return { raw: l }; } });
    const calls = events.filter((e) => e.type === 'item.completed' && e.item?.type === 'mcp_tool_call').map((e) => e.item);
    const final = events.filter((e) => e.type === 'item.completed' && e.item?.type === 'agent_message').map((e) => e.item.text).at(-1) ?? '';
    const shown = callOutputs(model.requests.at(-1)?.body);
    let sessions = [];
    if (existsSync(join(askdHome, 'daemon.json'))) {
      const d = await daemonOf(askdHome);
      sessions = (await d.api('GET', '/api/sessions')).body.sessions || [];
    }
    const serverStderr = res.stderr.split('\n').filter((l) => /MCP server stderr \(askd\)/.test(l)).join('\n');
    return { ...res, requests: model.requests, events, calls, final, shown, sessions, serverStderr };
  } finally {
    await model.close();
    await killDaemon(askdHome);
    cleanup(home, askdHome);
  }
}

/** The JSON the model was shown: Codex prefixes a tool output with "Wall time: …\nOutput:\n". */
function shownJson(text) {
  const i = text.indexOf('{');
  try { return JSON.parse(text.slice(i)); } catch { return undefined; }
}

function callSteps(name, args) {
  return [
    { tool: { namespace: NS, name, input: args } },
    (results) => ({ text: `The tool returned: ${results.at(-1).text}` }),
  ];
}

/** The call ran (no approval refusal) and the final message quotes what the model was shown. */
function assertRanAndQuoted(r, tool) {
  assert.equal(r.code, 0, `codex exited ${r.code}: ${r.stderr}`);
  const call = r.calls.find((c) => c.tool === tool);
  assert.ok(call, `codex called askd's ${tool}: ${r.stdout}`);
  assert.doesNotMatch(r.shown.at(-1)?.text ?? '', /requires approval/, 'no approval setting is needed');
  assert.ok(r.final.includes(r.shown.at(-1).text.slice(0, 200)), `the final message quotes the tool output: ${r.final}`);
  return call;
}

describe('Codex 0.171.0, the documented [mcp_servers.askd] block', () => {
  let first;

  test('ask_user_question: the model is shown the answers', async () => {
    const r = first = await codex({
      steps: callSteps('ask_user_question', QUESTIONS),
      human: async (h) => { const { daemon, ask } = await pendingAsk(h, { kind: 'questions' }); await humanSubmit(daemon, ask.id, QUESTIONS_ANSWER); },
    });
    assertRanAndQuoted(r, 'ask_user_question');
    const result = shownJson(r.shown.at(-1).text);
    assert.equal(result?.outcome, 'answered', r.shown.at(-1).text);
    assert.deepEqual(result.answers.find((a) => a.id === 'db').selected, ['Postgres (Recommended)']);
  });

  test('the model is offered the askd tools as the namespace mcp__askd', () => {
    assert.ok(first, 'the ask_user_question run happened');
    const ns = (first.requests[0]?.body?.tools || []).find((t) => t.type === 'namespace' && t.name === NS);
    assert.ok(ns, 'a namespace tool mcp__askd');
    const names = ns.tools.map((t) => t.name);
    for (const t of ['ask_user_question', 'ask_survey', 'batch_review', 'await_answer']) assert.ok(names.includes(t), `${t} in ${names}`);
  });

  test('the session askd records is labelled with the Codex client name', () => {
    assert.ok(first, 'the ask_user_question run happened');
    assert.equal(first.sessions.length, 1, JSON.stringify(first.sessions));
    assert.match(first.sessions[0].client, /codex/, JSON.stringify(first.sessions));
  });

  test("the adapter's stderr is quiet on success", () => {
    assert.ok(first, 'the ask_user_question run happened');
    assert.equal(first.serverStderr, '', 'nothing on the adapter stderr');
  });

  test('ask_survey (release-scope fixture): the model is shown the decisions along the path', async () => {
    const r = await codex({
      steps: callSteps('ask_survey', surveyArgs()),
      human: async (h) => { const { daemon, ask } = await pendingAsk(h, { kind: 'survey' }); await humanSubmit(daemon, ask.id, SURVEY_ANSWER); },
    });
    assertRanAndQuoted(r, 'ask_survey');
    const text = r.shown.at(-1).text;
    assert.equal(shownJson(text)?.outcome, 'answered', text);
    assert.match(text, /REST endpoints first/);
    assert.match(text, /Ship the public API/);
  });

  test('batch_review: the model is shown every verdict', async () => {
    const r = await codex({
      steps: callSteps('batch_review', REVIEW),
      human: async (h) => { const { daemon, ask } = await pendingAsk(h, { kind: 'review' }); await humanSubmit(daemon, ask.id, REVIEW_ANSWER); },
    });
    assertRanAndQuoted(r, 'batch_review');
    const result = shownJson(r.shown.at(-1).text);
    assert.equal(result?.outcome, 'answered', r.shown.at(-1).text);
    assert.deepEqual(result.items.map((i) => [i.id, i.verdict]), [['r1', 'pass'], ['r2', 'fail']]);
    assert.equal(result.summary.fail, 1);
  });

  test('an invalid call: the model is shown the code, the path and how to fix it', async () => {
    const r = await codex({ steps: callSteps('ask_user_question', INVALID_QUESTIONS) });
    const call = assertRanAndQuoted(r, 'ask_user_question');
    assert.equal(call.status, 'failed', 'Codex marks the call as failed (isError)');
    // Codex shows the model only the JSON of an error result: it must carry everything.
    const text = r.shown.at(-1).text;
    const envelope = shownJson(text)?.error;
    assert.ok(envelope, `the error envelope: ${text}`);
    assert.match(envelope.code, /\S/);
    assert.ok(envelope.errors?.some((e) => e.path === 'questions[1].id'), `the path of the problem: ${text}`);
    assert.match(text, /unique/, `how to fix it: ${text}`);
  });

  test("a human who answers after the client's limit: pending handle, then await_answer gets the answer", async () => {
    let askdHome;
    const steps = [
      { tool: { namespace: NS, name: 'ask_user_question', input: QUESTIONS } },
      async (results) => {
        const handle = shownJson(results.at(-1).text);
        if (handle?.outcome !== 'pending') return { text: `No pending handle: ${results.at(-1).text}` };
        // The human answers only now, after the first call has come back.
        const h = await pendingAsk(askdHome, { kind: 'questions', timeoutMs: 5000 });
        await humanSubmit(h.daemon, handle.ask_id, QUESTIONS_ANSWER);
        return { tool: { namespace: NS, name: 'await_answer', input: { ask_id: handle.ask_id } } };
      },
      (results) => ({ text: `The tool returned: ${results.at(-1).text}` }),
    ];
    // Codex's limit 8 s, askd's maxWait 3 s: the documented block with its two numbers changed.
    const r = await codex({ steps, block: withLimits(documentedBlock(), 8, 3), human: async (h) => { askdHome = h; } });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.shown.length, 2, JSON.stringify(r.shown));
    const handle = shownJson(r.shown[0].text);
    assert.equal(handle?.outcome, 'pending', `the model is shown the pending handle, not a timeout: ${r.shown[0].text}`);
    assert.match(handle.instruction, /await_answer/);
    const result = shownJson(r.shown[1].text);
    assert.equal(result?.outcome, 'answered', r.shown[1].text);
    assert.deepEqual(result.answers.find((a) => a.id === 'db').selected, ['Postgres (Recommended)']);
    assert.deepEqual(r.calls.map((c) => c.tool), ['ask_user_question', 'await_answer']);
    assert.ok(r.final.includes(r.shown[1].text.slice(0, 200)), r.final);
  });

  test('a cancel: the human dismisses the ask and the model is told so', async () => {
    const r = await codex({
      steps: callSteps('ask_user_question', QUESTIONS),
      human: async (h) => { const { daemon, ask } = await pendingAsk(h, { kind: 'questions' }); await humanCancel(daemon, ask.id); },
    });
    assertRanAndQuoted(r, 'ask_user_question');
    const text = r.shown.at(-1).text;
    const result = shownJson(text);
    assert.ok(result?.outcome === 'cancelled' || /cancel/i.test(result?.error?.code ?? ''), text);
    assert.equal(result.answers, undefined, 'no answer is invented');
  });
});

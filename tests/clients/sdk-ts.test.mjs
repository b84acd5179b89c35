// askd driven by the official TypeScript SDK client (@modelcontextprotocol/sdk 1.32.2), over
// stdio (`askd mcp`, which starts the daemon detached) and over streamable HTTP (the
// daemon's /mcp with the bearer token). Every schema must compile under ajv strict mode,
// every result must pass the SDK's own outputSchema check in callTool (it throws otherwise)
// and ajv strict validation; the human answers through askd's HTTP API.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import Ajv from 'ajv';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  requireBinary, freshHome, workspaceOf, serverEnv, connectDaemon, startDaemon, stopDaemonOf, sleep,
  questionArgs, QUESTION_ANSWER, surveyArgs, SURVEY_ANSWERS, reviewArgs, REVIEW_ANSWERS,
  INVALID_QUESTION_ARGS, INVALID_PATH, texts, jsonText, compileStrict, strictErrors,
} from './lib.mjs';

const HERE = dirname(fileURLToPath(import.meta.url));
const CLIENT_INFO = { name: 'askd-sdk-test', version: '1.0.0' };
// The client's own limit for the "human answers after the limit" scenario; askd's budget
// (ASKD_MAX_WAIT=2 or timeout_s=2) sits below it.
const CLIENT_LIMIT_MS = 8000;
const ASK_TOOLS = ['ask_user_question', 'ask_survey', 'batch_review'];

/** A connected SDK client over stdio: `askd mcp` with the environment passed explicitly. */
async function stdioSession(home, extraEnv = {}) {
  const transport = new StdioClientTransport({
    command: 'askd', // found through PATH, whose first entry is the binary's directory
    args: ['mcp'],
    env: serverEnv(home, extraEnv),
    cwd: workspaceOf(home), // the session's workspace: askd writes survey records under its .askd/
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr.on('data', (d) => { stderr += d; });
  const client = new Client(CLIENT_INFO);
  await client.connect(transport);
  return { client, stderr: () => stderr, close: () => client.close() };
}

/** A connected SDK client over streamable HTTP to the daemon's /mcp. */
async function httpSession(daemon) {
  const transport = new StreamableHTTPClientTransport(new URL(`${daemon.url}/mcp`), {
    requestInit: { headers: { Authorization: `Bearer ${daemon.token}` } },
  });
  const client = new Client(CLIENT_INFO);
  await client.connect(transport);
  return {
    client,
    stderr: () => '',
    async close() {
      await transport.terminateSession().catch(() => {});
      await client.close();
    },
  };
}

const TRANSPORTS = {
  stdio: {
    async open() {
      const home = freshHome('askd-sdk-stdio-');
      const session = await stdioSession(home);
      const daemon = await connectDaemon(home); // the daemon the adapter started detached
      return { home, daemon, session, openShort: () => stdioSession(home, { ASKD_MAX_WAIT: '2' }), shortArgs: {} };
    },
  },
  http: {
    async open() {
      const daemon = await startDaemon({ home: freshHome('askd-sdk-http-') });
      const session = await httpSession(daemon);
      return { home: daemon.home, daemon, session, openShort: null, shortArgs: { timeout_s: 2 } };
    },
  },
};

for (const [name, transport] of Object.entries(TRANSPORTS)) {
  describe(`TypeScript SDK over ${name}`, () => {
    let env; // {home, daemon, session, openShort, shortArgs}
    let client;
    let tools = new Map();

    before(async () => {
      requireBinary();
      env = await transport.open();
      client = env.session.client;
      const listed = await client.listTools(); // also arms callTool's outputSchema check
      tools = new Map(listed.tools.map((t) => [t.name, t]));
    });

    after(async () => {
      await env?.session.close().catch(() => {});
      if (env) await (env.daemon.child ? env.daemon.stop() : stopDaemonOf(env.home));
    });

    /**
     * Every result: callTool already ran the SDK's own check (it throws on a mismatch);
     * here the structuredContent is validated again with ajv strict against the declared
     * outputSchema. A schema strict mode refuses is reported by the schema test; the
     * content is then checked with a lenient ajv so this scenario's own verdict stands.
     */
    function validated(tool, result) {
      const schema = tools.get(tool)?.outputSchema;
      if (result.structuredContent !== undefined && schema) {
        let errors;
        try {
          errors = strictErrors(schema, result.structuredContent);
        } catch {
          const v = new Ajv({ strict: false, allErrors: true }).compile(schema);
          errors = v(result.structuredContent) ? null : new Ajv().errorsText(v.errors);
        }
        assert.equal(errors, null, `${tool}: structuredContent does not match its outputSchema: ${errors}\n${JSON.stringify(result.structuredContent)}`);
      }
      return result;
    }

    async function call(tool, args, options) {
      return validated(tool, await client.callTool({ name: tool, arguments: args }, undefined, options));
    }

    /** Starts a call, lets the human act on the ask it creates, returns the call's result. */
    async function answered(tool, kind, args, human) {
      const before = (await env.daemon.asks('pending')).map((a) => a.id);
      const pending = call(tool, args);
      pending.catch(() => {});
      const ask = await env.daemon.waitForPending({ kind, except: before });
      await human(ask);
      return { ask, result: await pending };
    }

    test('tools/list: every inputSchema and outputSchema compiles under ajv strict mode', () => {
      for (const t of [...ASK_TOOLS, 'await_answer']) assert.ok(tools.has(t), `tool ${t} is listed`);
      const problems = [];
      for (const t of tools.values()) {
        for (const which of ['inputSchema', 'outputSchema']) {
          if (!t[which]) continue;
          try { compileStrict(t[which]); } catch (e) { problems.push(`${t.name}.${which}: ${e.message}`); }
        }
      }
      assert.deepEqual(problems, [], `schemas ajv strict mode refuses:\n${problems.join('\n')}`);
    });

    test('tools/list: every tool is annotated (title; the ask tools neither destructive nor open-world)', () => {
      const problems = [];
      for (const t of tools.values()) {
        const a = t.annotations || {};
        if (!a.title && !t.title) problems.push(`${t.name}: no title`);
      }
      for (const name of ASK_TOOLS) {
        const a = tools.get(name)?.annotations || {};
        for (const [hint, want] of [['destructiveHint', false], ['openWorldHint', false], ['idempotentHint', true]]) {
          if (a[hint] !== want) problems.push(`${name}: ${hint} is ${a[hint]}, want ${want}`);
        }
      }
      // await_answer only waits: read-only, or at least neither destructive nor open-world.
      const w = tools.get('await_answer')?.annotations || {};
      if (w.readOnlyHint !== true && !(w.destructiveHint === false && w.openWorldHint === false)) {
        problems.push(`await_answer: ${JSON.stringify(w)} is neither read-only nor non-destructive and closed-world`);
      }
      assert.deepEqual(problems, []);
    });

    test('ask_user_question: the human answers in the API, the call returns the answer', async () => {
      const { ask, result } = await answered('ask_user_question', 'questions', questionArgs(`Database (${name})?`),
        (a) => env.daemon.submit(a.id, QUESTION_ANSWER));
      assert.notEqual(result.isError, true, JSON.stringify(result));
      const s = result.structuredContent;
      assert.equal(s.outcome, 'answered');
      assert.equal(s.ask_id, ask.id);
      assert.deepEqual(s.answers.map((x) => [x.id, x.selected]), [['db', ['PostgreSQL (Recommended)']]]);
      // A client that shows only text gets the same JSON.
      assert.deepEqual(jsonText(result).answers, s.answers);
      // The session is labelled with the client's name.
      assert.equal(ask.client, CLIENT_INFO.name);
    });

    test('ask_survey: the release-scope fixture, answered along scope → api → ship', async () => {
      const args = surveyArgs();
      args.survey.title = `Release scope (${name})`;
      const { ask, result } = await answered('ask_survey', 'survey', args, (a) => env.daemon.submit(a.id, SURVEY_ANSWERS));
      assert.notEqual(result.isError, true, JSON.stringify(result));
      const s = result.structuredContent;
      assert.equal(s.outcome, 'answered');
      assert.equal(s.ask_id, ask.id);
      assert.deepEqual(s.path, ['scope', 'api', 'ship']);
      const byId = Object.fromEntries(s.answers.map((x) => [x.id, x]));
      assert.equal(byId.api.custom, 'REST endpoints first');
      assert.deepEqual(byId.scope.selected.map((o) => o.key), ['a']);
      assert.equal(byId.scope.justifications.a, 'partners are blocked');
      assert.deepEqual(byId.ship.selected.map((o) => o.label), ['Docs complete', 'Migration guide']);
    });

    test('batch_review: four items get their verdicts and notes', async () => {
      const { ask, result } = await answered('batch_review', 'review', reviewArgs(`Release checklist (${name})`),
        (a) => env.daemon.submit(a.id, REVIEW_ANSWERS));
      assert.notEqual(result.isError, true, JSON.stringify(result));
      const s = result.structuredContent;
      assert.equal(s.outcome, 'answered');
      assert.equal(s.ask_id, ask.id);
      assert.deepEqual(s.items.map((i) => [i.id, i.verdict, i.filled]),
        [['c1', 'pass', true], ['c2', 'fail', true], ['b1', 'yes', true], ['n1', '', true]]);
      assert.equal(s.items[1].note, 'the name loses its extension');
      assert.equal(s.items[3].note, 'the toast overlaps the footer');
      assert.deepEqual([s.summary.total, s.summary.pass, s.summary.fail, s.summary.yes], [4, 1, 1, 1]);
    });

    test('an invalid call is an error result naming the path and the fix, never an exception', async () => {
      const result = await call('ask_user_question', INVALID_QUESTION_ARGS); // must not throw
      assert.equal(result.isError, true);
      // askd's choice (clients.md §2.2): error results keep the envelope as structuredContent
      // and every output schema admits it, so the SDK's own validation accepts it (above,
      // callTool did not throw) and so does ajv strict (checked by call()).
      assert.ok(result.structuredContent?.error, `the envelope: ${JSON.stringify(result)}`);
      const [first] = texts(result);
      assert.ok(first.includes(INVALID_PATH), `the first block names the path: ${first}`);
      assert.match(first, /2 to 12/, `says how to fix it: ${first}`);
      const envelope = jsonText(result);
      assert.ok(envelope?.error, `a text block holds the JSON envelope: ${JSON.stringify(result.content)}`);
      assert.equal(typeof envelope.error.code, 'string');
      assert.equal(typeof envelope.error.message, 'string');
      assert.ok(envelope.error.errors.some((e) => e.path === INVALID_PATH && e.code && e.message), JSON.stringify(envelope));
      // Nothing was shown to the human.
      assert.deepEqual((await env.daemon.asks('all')).filter((a) => a.title === 'Which database?'), []);
    });

    test('the human answers after the limit: pending handle, then await_answer returns the answer', async () => {
      const short = env.openShort ? await env.openShort() : null; // stdio: ASKD_MAX_WAIT=2
      const c = short ? short.client : client;
      try {
        if (short) await c.listTools();
        const args = { ...questionArgs(`Late answer (${name})?`), ...env.shortArgs };
        const t0 = Date.now();
        const first = validated('ask_user_question', await c.callTool({ name: 'ask_user_question', arguments: args }, undefined, { timeout: CLIENT_LIMIT_MS }));
        assert.ok(Date.now() - t0 < CLIENT_LIMIT_MS, 'returned before the client limit');
        assert.notEqual(first.isError, true, JSON.stringify(first));
        const handle = first.structuredContent;
        assert.equal(handle.outcome, 'pending');
        assert.match(handle.ask_id, /\S/);
        assert.match(handle.instruction, /await_answer/);
        await sleep(500); // the human is slow
        await env.daemon.submit(handle.ask_id, QUESTION_ANSWER);
        const later = validated('await_answer', await c.callTool({ name: 'await_answer', arguments: { ask_id: handle.ask_id } }, undefined, { timeout: CLIENT_LIMIT_MS }));
        assert.notEqual(later.isError, true, JSON.stringify(later));
        assert.equal(later.structuredContent.outcome, 'answered');
        assert.equal(later.structuredContent.ask_id, handle.ask_id);
        assert.deepEqual(later.structuredContent.answers.map((x) => x.selected), [['PostgreSQL (Recommended)']]);
      } finally {
        await short?.close();
      }
    });

    test('the human answers after the limit: an identical repeat call returns the undelivered answer', async () => {
      const short = env.openShort ? await env.openShort() : null;
      const c = short ? short.client : client;
      try {
        if (short) await c.listTools();
        const args = { ...questionArgs(`Repeat after the limit (${name})?`), ...env.shortArgs };
        const pendingBefore = (await env.daemon.asks('pending')).map((a) => a.id);
        const first = validated('ask_user_question', await c.callTool({ name: 'ask_user_question', arguments: args }, undefined, { timeout: CLIENT_LIMIT_MS }));
        assert.equal(first.structuredContent?.outcome, 'pending', JSON.stringify(first));
        const id = first.structuredContent.ask_id;
        await env.daemon.submit(id, QUESTION_ANSWER);
        const again = validated('ask_user_question', await c.callTool({ name: 'ask_user_question', arguments: args }, undefined, { timeout: CLIENT_LIMIT_MS }));
        assert.notEqual(again.isError, true, JSON.stringify(again));
        assert.equal(again.structuredContent.outcome, 'answered', JSON.stringify(again.structuredContent));
        assert.equal(again.structuredContent.ask_id, id, 'the same ask, not a new one');
        assert.deepEqual((await env.daemon.asks('pending')).map((a) => a.id).filter((x) => !pendingBefore.includes(x)), [],
          'no new ask was created');
      } finally {
        await short?.close();
      }
    });

    test('the human cancels: the result says cancelled, as a result, not an exception', async () => {
      const { result } = await answered('ask_user_question', 'questions', questionArgs(`Cancel me (${name})?`),
        (a) => env.daemon.cancel(a.id));
      const all = texts(result).join('\n');
      assert.match(all, /cancel/i, all);
      const s = result.structuredContent ?? jsonText(result);
      const said = s?.outcome === 'cancelled' || /cancel/i.test(s?.error?.code || '');
      assert.ok(said, `the result says cancelled: ${JSON.stringify(result)}`);
      if (result.isError) assert.ok(result.structuredContent?.error?.code, 'an error result carries the envelope, with its code');
    });

    test('the human cancels a review: outcome cancelled, no verdicts', async () => {
      const { result } = await answered('batch_review', 'review', reviewArgs(`Cancelled checklist (${name})`),
        (a) => env.daemon.cancel(a.id));
      assert.notEqual(result.isError, true, JSON.stringify(result));
      assert.equal(result.structuredContent.outcome, 'cancelled');
      assert.equal(result.structuredContent.cancelled, true);
      assert.deepEqual(result.structuredContent.items, []);
    });

    test('a client-side abort (AbortSignal) leaves the ask pending; await_answer collects it', async () => {
      const before = (await env.daemon.asks('pending')).map((a) => a.id);
      const controller = new AbortController();
      const call = client.callTool({ name: 'ask_user_question', arguments: questionArgs(`Abort me (${name})?`) }, undefined, { signal: controller.signal });
      const ask = await env.daemon.waitForPending({ kind: 'questions', except: before });
      controller.abort('the user pressed Esc');
      await assert.rejects(call);
      // The ask stays answerable and is no longer marked as awaited.
      let view;
      for (let i = 0; i < 100; i++) {
        view = await env.daemon.view(ask.id);
        if (view.awaited === false) break;
        await sleep(100);
      }
      assert.equal(view.state, 'pending');
      assert.equal(view.awaited, false, 'the cancelled call no longer counts as waiting');
      await env.daemon.submit(ask.id, QUESTION_ANSWER);
      const got = await call2('await_answer', { ask_id: ask.id });
      assert.equal(got.structuredContent.outcome, 'answered');
      assert.deepEqual(got.structuredContent.answers.map((x) => x.selected), [['PostgreSQL (Recommended)']]);
    });

    async function call2(tool, args) {
      const r = await call(tool, args, { timeout: CLIENT_LIMIT_MS });
      assert.notEqual(r.isError, true, JSON.stringify(r));
      return r;
    }

    if (name === 'stdio') {
      test('the adapter keeps stderr quiet when all is well', () => {
        assert.equal(env.session.stderr(), '', 'nothing on the adapter\'s stderr');
      });
    }
  });
}

test('the context a model is shown for askd fits 24,000 characters (tests/clients/context.mjs)', () => {
  requireBinary();
  const run = spawnSync(process.execPath, [join(HERE, 'context.mjs'), '--json'], { encoding: 'utf8', timeout: 60000 });
  const out = run.stdout.trim().split('\n').pop();
  let figure;
  try { figure = JSON.parse(out); } catch { assert.fail(`context.mjs printed no figure: ${run.stdout}\n${run.stderr}`); }
  assert.ok(figure.total > 1000, `a plausible figure: ${figure.total}`);
  assert.ok(figure.total <= figure.budget, `the model is shown ${figure.total} characters for askd, over the budget of ${figure.budget}`);
  assert.equal(run.status, 0, run.stderr);
});

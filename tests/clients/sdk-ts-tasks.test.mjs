// Issue 33: askd's asks as MCP Tasks, driven by the official TypeScript SDK's experimental
// tasks API (@modelcontextprotocol/sdk 1.32.2: `client.experimental.tasks`, the 2025-11-25
// Tasks of that SDK), over stdio (`askd mcp`) and streamable HTTP (the daemon's /mcp). A
// task-augmented call returns a task at once; the SDK polls it; the human answers through
// askd's HTTP API; the result arrives. A second client (a new adapter process, a new HTTP
// session) fetches the result of a task the first made and does not list it; a task is
// cancelled; over stdio the daemon is SIGKILLed while a task works and the task survives.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import {
  requireBinary, freshHome, workspaceOf, serverEnv, connectDaemon, startDaemon, stopDaemonOf, sleep,
  questionArgs, QUESTION_ANSWER,
} from './lib.mjs';

const CLIENT_INFO = { name: 'askd-tasks-test', version: '1.0.0' };

async function stdioClient(home) {
  const transport = new StdioClientTransport({
    command: 'askd', args: ['mcp'], env: serverEnv(home), cwd: workspaceOf(home), stderr: 'pipe',
  });
  const client = new Client(CLIENT_INFO);
  await client.connect(transport);
  return client;
}

async function httpClient(daemon) {
  const transport = new StreamableHTTPClientTransport(new URL(`${daemon.url}/mcp`), {
    requestInit: { headers: { Authorization: `Bearer ${daemon.token}` } },
  });
  const client = new Client(CLIENT_INFO);
  await client.connect(transport);
  return client;
}

const TRANSPORTS = {
  stdio: {
    async open() {
      const home = freshHome('askd-tasks-stdio-');
      const client = await stdioClient(home);
      await client.listTools();
      const daemon = await connectDaemon(home);
      return { home, daemon, client, another: () => stdioClient(home) };
    },
  },
  http: {
    async open() {
      const daemon = await startDaemon({ home: freshHome('askd-tasks-http-') });
      const client = await httpClient(daemon);
      await client.listTools();
      return { home: daemon.home, daemon, client, another: () => httpClient(daemon) };
    },
  },
};

/** Starts `ask_user_question` as a task; resolves with the task id the stream announced, and
 *  with a promise of the stream's final message. */
async function startTask(client, question) {
  const stream = client.experimental.tasks.callToolStream(
    { name: 'ask_user_question', arguments: questionArgs(question) },
    CallToolResultSchema,
    { task: { ttl: 600000 }, timeout: 60000 },
  );
  const first = await stream.next();
  assert.equal(first.value?.type, 'taskCreated', JSON.stringify(first.value));
  const task = first.value.task;
  const last = (async () => {
    let final = null;
    for await (const message of stream) if (message.type === 'result' || message.type === 'error') final = message;
    return final;
  })();
  last.catch(() => {});
  return { task, last };
}

for (const [name, transport] of Object.entries(TRANSPORTS)) {
  describe(`TypeScript SDK tasks over ${name}`, () => {
    let env;
    const others = [];

    before(async () => {
      requireBinary();
      env = await transport.open();
    });

    after(async () => {
      for (const c of others) await c.close().catch(() => {});
      await env?.client.close().catch(() => {});
      if (env) await (env.daemon.child ? env.daemon.stop() : stopDaemonOf(env.home));
    });

    test('the server declares tasks and every ask tool is task-capable', async () => {
      const caps = env.client.getServerCapabilities();
      assert.ok(caps.tasks?.requests?.tools?.call, JSON.stringify(caps));
      assert.ok(caps.tasks?.list && caps.tasks?.cancel, JSON.stringify(caps));
      const { tools } = await env.client.listTools();
      for (const t of ['ask_user_question', 'ask_survey', 'batch_review', 'report_drift']) {
        assert.equal(tools.find((x) => x.name === t)?.execution?.taskSupport, 'optional', t);
      }
      assert.equal(tools.find((x) => x.name === 'await_answer')?.execution, undefined);
    });

    test('a task is polled, the human answers on the page, the result arrives; another client fetches it', async () => {
      const { task, last } = await startTask(env.client, `Database as a task (${name})?`);
      assert.equal(task.status, 'working');
      assert.equal(task.ttl, null);
      const ask = await env.daemon.view(task.taskId);
      assert.equal(ask.state, 'pending', 'the task is the ask');
      assert.equal((await env.client.experimental.tasks.getTask(task.taskId)).status, 'working');
      await env.daemon.submit(task.taskId, QUESTION_ANSWER);
      const final = await last;
      assert.equal(final.type, 'result', JSON.stringify(final));
      assert.equal(final.result.structuredContent.outcome, 'answered');
      assert.deepEqual(final.result.structuredContent.answers[0].selected, ['PostgreSQL (Recommended)']);

      // Another client (a new adapter process / HTTP session) fetches the task and its result,
      // and its own list holds only its own tasks.
      const other = await env.another();
      others.push(other);
      assert.equal((await other.experimental.tasks.getTask(task.taskId)).status, 'completed');
      const result = await other.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema);
      assert.equal(result.structuredContent.ask_id, task.taskId);
      const mine = await env.client.experimental.tasks.listTasks();
      assert.ok(mine.tasks.some((t) => t.taskId === task.taskId), JSON.stringify(mine));
      const theirs = await other.experimental.tasks.listTasks();
      assert.ok(!theirs.tasks.some((t) => t.taskId === task.taskId), JSON.stringify(theirs));
    });

    test('cancelling a task withdraws its ask', async () => {
      const { task, last } = await startTask(env.client, `Cancel me (${name})?`);
      const cancelled = await env.client.experimental.tasks.cancelTask(task.taskId);
      assert.equal(cancelled.status, 'cancelled');
      assert.equal((await env.daemon.view(task.taskId)).outcome, 'aborted');
      const final = await last;
      assert.equal(final.type, 'error', JSON.stringify(final));
    });

    if (name === 'stdio') {
      test('the daemon SIGKILLed while a task works: the task survives, the answer arrives', async () => {
        const { task } = await startTask(env.client, 'Survive a crash?');
        process.kill(env.daemon.pid, 'SIGKILL');
        await sleep(300);
        // The adapter finds (starts) the daemon again on its next request.
        assert.equal((await env.client.experimental.tasks.getTask(task.taskId)).status, 'working');
        const daemon = await connectDaemon(env.home);
        env.daemon = daemon;
        await daemon.submit(task.taskId, QUESTION_ANSWER);
        const result = await env.client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema);
        assert.equal(result.structuredContent.outcome, 'answered');
      });
    }
  });
}

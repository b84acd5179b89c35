// Answering in the client (clients.md §3) through the official TypeScript SDK client
// (@modelcontextprotocol/sdk 1.32.2) over stdio (`askd mcp`): the client declares form and
// URL elicitation and registers an elicitation/create handler, which answers, declines or
// dismisses as each test says — or stays open while the page (askd's HTTP API) answers, in
// which case askd withdraws the request (the handler's abort signal fires).
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import {
  requireBinary, freshHome, workspaceOf, serverEnv, connectDaemon, startDaemon, stopDaemonOf, sleep,
  questionArgs, reviewArgs,
} from './lib.mjs';

/** A session whose forms arrive on `next()`: `{params, reply(result), aborted}`. */
async function elicitingSession(home, capabilities = { elicitation: { form: {}, url: {} } }, daemon = null) {
  const transport = daemon
    ? new StreamableHTTPClientTransport(new URL(`${daemon.url}/mcp`), {
      requestInit: { headers: { Authorization: `Bearer ${daemon.token}` } },
    })
    : new StdioClientTransport({
      command: 'askd', args: ['mcp'], env: serverEnv(home), cwd: workspaceOf(home), stderr: 'pipe',
    });
  const client = new Client({ name: 'askd-sdk-elicit', version: '1.0.0' }, { capabilities });
  const queue = [];
  const waiters = [];
  client.setRequestHandler(ElicitRequestSchema, (request, extra) => new Promise((resolve, reject) => {
    const form = { params: request.params, reply: resolve, aborted: false };
    form.withdrawn = new Promise((r) => extra.signal.addEventListener('abort', () => {
      form.aborted = true; r(); reject(new Error('withdrawn'));
    }));
    const w = waiters.shift();
    if (w) w(form); else queue.push(form);
  }));
  await client.connect(transport);
  return {
    client,
    next: () => (queue.length ? Promise.resolve(queue.shift()) : new Promise((r) => waiters.push(r))),
    close: () => client.close(),
  };
}

describe('TypeScript SDK: form elicitation', { timeout: 120000 }, () => {
  let home;
  let session;
  let daemon;
  before(async () => {
    requireBinary();
    home = freshHome('askd-sdk-elicit-');
    session = await elicitingSession(home);
  });
  after(async () => {
    await session?.close();
    await stopDaemonOf(home);
  });

  test('answered in the form: the normal result with surface client-form; the inbox shows it, then settled', async () => {
    const call = session.client.callTool({ name: 'ask_user_question', arguments: questionArgs('Which database, form?') });
    const form = await session.next();
    daemon = await connectDaemon(home);
    assert.equal(form.params.mode, 'form');
    assert.match(form.params.message, /\[Storage\] Which database, form\?/);
    assert.match(form.params.message, /The team runs it already|\/a\//);
    const db = form.params.requestedSchema.properties.db;
    assert.deepEqual(db.oneOf.map((o) => o.const), ['PostgreSQL (Recommended)', 'SQLite']);
    assert.match(db.description, /One file, no server\./);
    const pending = await daemon.waitForPending({ kind: 'questions' });
    assert.ok(form.params.message.includes(pending.url ?? `/a/${pending.id}`), form.params.message);
    form.reply({ action: 'accept', content: { db: 'SQLite' } });
    const r = await call;
    assert.notEqual(r.isError, true, JSON.stringify(r));
    assert.equal(r.structuredContent.outcome, 'answered');
    assert.equal(r.structuredContent.surface, 'client-form');
    assert.deepEqual(r.structuredContent.answers, [{ id: 'db', selected: ['SQLite'] }]);
    const settled = (await daemon.asks('all')).find((a) => a.id === pending.id);
    assert.equal(settled.state, 'settled');
  });

  test('declined after a human pause: the ask settles cancelled', async () => {
    const call = session.client.callTool({ name: 'ask_user_question', arguments: questionArgs('Decline me?') });
    const form = await session.next();
    const pending = await daemon.waitForPending({ kind: 'questions' });
    await sleep(1300);
    form.reply({ action: 'decline' });
    const r = await call;
    assert.equal(r.isError, true, JSON.stringify(r));
    const view = await daemon.view(pending.id);
    assert.equal(view.outcome, 'cancelled');
  });

  test('dismissed (cancel): stays pending, the call keeps waiting, the page answers', async () => {
    const call = session.client.callTool({ name: 'ask_user_question', arguments: questionArgs('Dismiss me?') });
    const form = await session.next();
    const pending = await daemon.waitForPending({ kind: 'questions' });
    form.reply({ action: 'cancel' });
    await sleep(500);
    assert.equal((await daemon.view(pending.id)).state, 'pending');
    await daemon.submit(pending.id, { answers: [{ id: 'db', selected: ['SQLite'] }] });
    const r = await call;
    assert.equal(r.structuredContent.surface, 'page');
  });

  test('answered in the page while the form is open: the form is withdrawn, the agent gets the page answer', async () => {
    const call = session.client.callTool({ name: 'ask_user_question', arguments: questionArgs('Race me?') });
    const form = await session.next();
    const pending = await daemon.waitForPending({ kind: 'questions' });
    await daemon.submit(pending.id, { answers: [{ id: 'db', selected: ['PostgreSQL (Recommended)'] }] });
    const r = await call;
    assert.equal(r.structuredContent.surface, 'page');
    assert.deepEqual(r.structuredContent.answers, [{ id: 'db', selected: ['PostgreSQL (Recommended)'] }]);
    await Promise.race([form.withdrawn, sleep(10000)]);
    assert.equal(form.aborted, true, 'askd sent notifications/cancelled for the form');
  });

  test('a review of at most 10 items is one form, answered with surface client-form', async () => {
    const args = reviewArgs();
    const call = session.client.callTool({ name: 'batch_review', arguments: args });
    const form = await session.next();
    assert.equal(form.params.mode, 'form');
    const props = form.params.requestedSchema.properties;
    const content = {};
    for (const [k, p] of Object.entries(props)) {
      if (k.endsWith('_note')) continue;
      if (p.oneOf) content[k] = p.oneOf[0].const;
      else if (p.type === 'integer') content[k] = p.minimum;
      else if (p.type === 'array') content[k] = [p.items.anyOf[0].const];
      else content[k] = 'fine';
    }
    await sleep(50);
    form.reply({ action: 'accept', content });
    const r = await call;
    assert.notEqual(r.isError, true, JSON.stringify(r));
    assert.equal(r.structuredContent.surface, 'client-form');
    assert.equal(r.structuredContent.summary.unfilled, 0, JSON.stringify(r.structuredContent.summary));
  });
});

describe('TypeScript SDK over /mcp (streamable HTTP): form elicitation', { timeout: 120000 }, () => {
  let daemon;
  let session;
  before(async () => {
    requireBinary();
    daemon = await startDaemon();
    session = await elicitingSession(null, undefined, daemon);
  });
  after(async () => {
    await session?.close();
    await daemon?.stop();
  });

  test('answered in the form over /mcp: surface client-form', async () => {
    const call = session.client.callTool({ name: 'ask_user_question', arguments: questionArgs('Over HTTP?') });
    const form = await session.next();
    assert.equal(form.params.mode, 'form');
    const pending = await daemon.waitForPending({ kind: 'questions' });
    assert.ok(form.params.message.includes(`/a/${pending.id}`), form.params.message);
    form.reply({ action: 'accept', content: { db: 'SQLite' } });
    const r = await call;
    assert.equal(r.structuredContent.surface, 'client-form', JSON.stringify(r));
    assert.equal((await daemon.view(pending.id)).state, 'settled');
  });

  test('answered in the page while the form is open over /mcp: withdrawn, surface page', async () => {
    const call = session.client.callTool({ name: 'ask_user_question', arguments: questionArgs('Over HTTP, page wins?') });
    const form = await session.next();
    const pending = await daemon.waitForPending({ kind: 'questions' });
    await daemon.submit(pending.id, { answers: [{ id: 'db', selected: ['SQLite'] }] });
    const r = await call;
    assert.equal(r.structuredContent.surface, 'page');
    await Promise.race([form.withdrawn, sleep(10000)]);
    assert.equal(form.aborted, true, 'askd sent notifications/cancelled for the form');
  });

  test('a large review over /mcp goes as the plain page URL (no token in a link)', async () => {
    const items = [];
    for (let i = 1; i <= 11; i++) items.push({ id: `c${i}`, title: `Check ${i}` });
    const call = session.client.callTool({ name: 'batch_review', arguments: { title: 'Big review', items } });
    const form = await session.next();
    assert.equal(form.params.mode, 'url');
    const pending = await daemon.waitForPending({ kind: 'review' });
    assert.equal(form.params.url, `${daemon.url}/a/${pending.id}`);
    form.reply({ action: 'accept' });
    await sleep(300);
    assert.equal((await daemon.view(pending.id)).state, 'pending');
    await daemon.submit(pending.id, { answers: [{ id: 'c1', verdict: 'pass' }], surface: 'panel' });
    const r = await call;
    assert.equal(r.structuredContent.surface, 'panel');
  });
});

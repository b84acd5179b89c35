// Issue 35: an ask with a deadline, through the official TypeScript SDK (1.32.2) over stdio.
// Nobody answers; at the deadline the agent's default is applied, and the result the SDK
// hands the agent — validated by callTool against the tool's outputSchema — says so:
// outcome "expired", defaulted, and a handling text that names it the agent's default.
// And "ask me later": the person puts the ask off while callTool waits; the call comes back
// at once, pending, with deferred_until and when to come back. And approvals (team mode):
// two members vote, the call returns once the quorum is in, with every vote in its result.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { requireBinary, freshHome, workspaceOf, serverEnv, stopDaemonOf, questionArgs, jsonText, connectDaemon } from './lib.mjs';

let home;
let client;

after(async () => {
  await client?.close().catch(() => {});
  if (home) await stopDaemonOf(home);
});

test('a deadline with a default settles by itself and the agent is told it was its default', async () => {
  requireBinary();
  home = freshHome('askd-deadline-');
  const transport = new StdioClientTransport({
    command: 'askd', args: ['mcp'], env: serverEnv(home), cwd: workspaceOf(home), stderr: 'pipe',
  });
  client = new Client({ name: 'askd-deadline-test', version: '1.0.0' });
  await client.connect(transport);
  const { tools } = await client.listTools();
  assert.equal(tools.find((t) => t.name === 'ask_user_question').inputSchema.properties.deadline.type, 'object');
  const args = { ...questionArgs('Which database, if nobody says?'), deadline: { in_s: 2, default: { db: 'SQLite' } } };
  const result = await client.callTool({ name: 'ask_user_question', arguments: args }, undefined, { timeout: 30000 });
  assert.notEqual(result.isError, true, JSON.stringify(result));
  const s = result.structuredContent;
  assert.equal(s.outcome, 'expired');
  assert.equal(s.defaulted, true);
  assert.deepEqual(s.answers.map((a) => [a.id, a.selected]), [['db', ['SQLite']]]);
  assert.match(s.handling, /default YOU named, not the human's choice/);
  // A client that shows the model only text gets the same.
  assert.equal(jsonText(result).outcome, 'expired');
});

test('a person puts the ask off while callTool waits: the agent gets deferred_until at once', async () => {
  const args = { ...questionArgs('Which database, or later?'), timeout_s: 120 };
  const daemon = await connectDaemon(home);
  const waiting = client.callTool({ name: 'ask_user_question', arguments: args }, undefined, { timeout: 130000 });
  const ask = await daemon.waitForPending({ kind: 'questions' });
  const started = Date.now();
  const r = await daemon.api('POST', `/api/asks/${ask.id}/snooze`, { for_s: 3600 });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  const result = await waiting;
  assert.ok(Date.now() - started < 20000, 'the call came back at once');
  assert.notEqual(result.isError, true, JSON.stringify(result));
  const s = result.structuredContent;
  assert.equal(s.outcome, 'pending');
  assert.equal(s.deferred_until, r.body.deferred_until);
  assert.match(s.instruction, /call await_answer with this ask_id after/);
  assert.equal(jsonText(result).deferred_until, r.body.deferred_until);
});

/** A member's submit, with their login cookie (what their browser sends). */
async function vote(daemon, member, id, body) {
  const token = new URL(member.loginUrl).pathname.split('/').pop();
  const r = await fetch(`${daemon.url}/api/asks/${id}/submit`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', cookie: `askd_member=${token}`, origin: daemon.url },
    body: JSON.stringify(body),
  });
  return { status: r.status, body: await r.json() };
}

test('two members approve while callTool waits: the agent gets both votes', async () => {
  const daemon = await connectDaemon(home);
  const members = [];
  for (const name of ['Ann', 'Ben']) {
    const m = await daemon.api('POST', '/api/members', { name });
    assert.equal(m.status, 201, JSON.stringify(m.body));
    members.push(m.body);
  }
  const { tools } = await client.listTools();
  assert.equal(tools.find((t) => t.name === 'ask_user_question').inputSchema.properties.approvals.type, 'object');
  const args = { ...questionArgs('Which database, both of you?'), approvals: { required: 2, from: ['Ann', 'Ben'] }, timeout_s: 120 };
  const before = (await daemon.asks('pending')).map((a) => a.id);
  const waiting = client.callTool({ name: 'ask_user_question', arguments: args }, undefined, { timeout: 130000 });
  const ask = await daemon.waitForPending({ kind: 'questions', except: before });
  assert.deepEqual(ask.approvals, { required: 2, votes: 0, voters: [] });
  const answer = { answers: [{ id: 'db', selected: ['SQLite'] }] };
  const first = await vote(daemon, members[0], ask.id, answer);
  assert.equal(first.status, 200, JSON.stringify(first.body));
  assert.equal(first.body.outcome, 'pending');
  const second = await vote(daemon, members[1], ask.id, { answers: [{ id: 'db', selected: ['PostgreSQL (Recommended)'] }] });
  assert.equal(second.status, 200, JSON.stringify(second.body));
  const result = await waiting;
  assert.notEqual(result.isError, true, JSON.stringify(result));
  const s = result.structuredContent;
  assert.equal(s.outcome, 'answered');
  assert.deepEqual(s.votes.map((v) => [v.answered_by.name, v.answer.answers[0].selected[0]]), [['Ann', 'SQLite'], ['Ben', 'PostgreSQL (Recommended)']]);
  assert.equal(s.approvals.agreed, false);
  assert.match(s.handling, /DISAGREE/);
  // A client that shows the model only text gets the same.
  assert.equal(jsonText(result).votes.length, 2);
});

// Team mode in a real browser: three `askd serve` daemons on one PostgreSQL (a throwaway
// cluster, or ASKD_TEST_DATABASE_URL's server). An agent asks through daemon A's /mcp (the
// official TypeScript SDK, blocking in tools/call); member Bo, signed in with his login link
// on daemon B, sees Ana's claim live and answers in B's page; the agent's call on A wakes
// with the answer naming Bo, and C's records show it.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, existsSync, rmSync, chmodSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startDaemon, launchBrowser, SCREENSHOTS } from './helpers.mjs';

function freePort() {
  return new Promise((resolve) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => { const { port } = s.address(); s.close(() => resolve(port)); });
  });
}

/** A throwaway cluster (initdb + pg_ctl, as the postgres user when run as root): {url, stop}. */
async function cluster() {
  if (process.env.ASKD_TEST_DATABASE_URL) return { url: process.env.ASKD_TEST_DATABASE_URL, stop() {} };
  const root = '/usr/lib/postgresql';
  const version = existsSync(root) && readdirSync(root).sort((a, b) => Number(a) - Number(b)).pop();
  const bin = version && join(root, version, 'bin');
  if (!bin || !existsSync(join(bin, 'initdb'))) throw new Error('no PostgreSQL binaries (scripts/test installs them)');
  const dir = mkdtempSync(join(tmpdir(), 'askd-pg-'));
  chmodSync(dir, 0o777);
  const asRoot = process.getuid && process.getuid() === 0;
  const run = (cmd, args) => {
    const r = asRoot
      ? spawnSync('runuser', ['-u', 'postgres', '--', join(bin, cmd), ...args], { encoding: 'utf8' })
      : spawnSync(join(bin, cmd), args, { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`${cmd}: ${r.stderr || r.stdout}`);
  };
  const data = join(dir, 'data');
  run('initdb', ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync']);
  const port = await freePort();
  run('pg_ctl', ['-D', data, '-l', join(dir, 'log'), '-w', '-o', `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off`, 'start']);
  run('createdb', ['-h', '127.0.0.1', '-p', String(port), '-U', 'postgres', 'askd']);
  return {
    url: `postgres://postgres@127.0.0.1:${port}/askd`,
    stop() {
      try { run('pg_ctl', ['-D', data, '-m', 'immediate', 'stop']); } catch { /* already down */ }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

let pg;
let daemons = [];
let browser;
before(async () => {
  pg = await cluster();
  for (let i = 0; i < 3; i++) daemons.push(await startDaemon({ env: { ASKD_DATABASE_URL: pg.url } }));
  browser = await launchBrowser();
});
after(async () => {
  if (browser) await browser.close();
  for (const d of daemons) await d.stop();
  if (pg) pg.stop();
});

/** A member's browser: their login link opened (on whichever daemon), then the inbox. */
async function memberPage(loginUrl, daemon) {
  const context = await browser.newContext({ viewport: { width: 900, height: 900 }, reducedMotion: 'reduce' });
  const problems = [];
  const page = await context.newPage();
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  const token = new URL(loginUrl).pathname.split('/').pop();
  await page.goto(`${daemon.url}/login/${token}`);
  return { context, page, problems };
}

test('an ask through daemon A is claimed and answered by members on B, and wakes the agent on A', async () => {
  const [a, b, c] = daemons;
  // Members are added through A and known to B (one database).
  const ana = await a.api('POST', '/api/members', { name: 'Ana' });
  const bo = await a.api('POST', '/api/members', { name: 'Bo' });
  assert.equal(ana.status, 201, JSON.stringify(ana.body));
  assert.equal(bo.status, 201, JSON.stringify(bo.body));

  const transport = new StreamableHTTPClientTransport(new URL(`${a.url}/mcp`), {
    requestInit: { headers: { Authorization: `Bearer ${a.token}` } },
  });
  const agent = new Client({ name: 'askd-team-agent', version: '1.0.0' });
  await agent.connect(transport);
  const call = agent.callTool({
    name: 'ask_user_question',
    arguments: { questions: [{ id: 'db', question: 'Which database backs team mode?',
      options: [{ label: 'PostgreSQL' }, { label: 'SQLite' }] }], timeout_s: 120 },
  }, undefined, { timeout: 120000 });

  // The ask reaches B's inbox; Ana (on B) says she is on it.
  let asks = [];
  for (let i = 0; i < 100 && !asks.length; i++) {
    asks = (await b.api('GET', '/api/asks')).body.asks.filter((x) => x.kind === 'questions');
    if (!asks.length) await new Promise((r) => setTimeout(r, 50));
  }
  assert.equal(asks.length, 1, 'the ask made on A is in B\'s inbox');
  const id = asks[0].id;

  const boTab = await memberPage(bo.body.loginUrl, b);
  await boTab.page.waitForSelector('.who-chip:has-text("Signed in as Bo")');
  await boTab.page.waitForSelector(`[data-ask-id="${id}"]`);
  assert.equal(await boTab.page.isVisible('.inbox-settings'), false, 'a member does not open Settings');
  assert.equal(await boTab.page.isVisible('.inbox-records'), true);
  const anaTab = await memberPage(ana.body.loginUrl, b);
  await anaTab.page.click(`[data-ask-id="${id}"] .claim-btn`);
  await anaTab.page.waitForSelector(`[data-ask-id="${id}"] .claim-chip:has-text("You are on it")`);
  // Bo sees the claim live (B's event stream), and answers anyway: settle-once decides.
  await boTab.page.waitForSelector(`[data-ask-id="${id}"] .claim-chip:has-text("Ana is on it")`);
  await boTab.page.screenshot({ path: join(SCREENSHOTS, 'team-claimed.png') });
  await boTab.page.click(`[data-ask-id="${id}"] .ask-link`);
  await boTab.page.waitForSelector('.card.flat');
  await boTab.page.click('.flat-question[data-qid="db"] .row-hit >> nth=0');
  await boTab.page.click('.seg.primary');
  await boTab.page.waitForSelector('.card.settled');

  // The agent's call on A wakes with Bo's answer.
  const result = await call;
  assert.ok(!result.isError, JSON.stringify(result));
  const sc = result.structuredContent;
  assert.equal(sc.outcome, 'answered', JSON.stringify(sc));
  assert.deepEqual(sc.answers, [{ id: 'db', selected: ['PostgreSQL'] }]);
  assert.equal(sc.answered_by.name, 'Bo');
  // C's records name Bo too.
  const records = (await c.api('GET', '/api/records')).body.records;
  const rec = records.find((r) => r.ask_id === id);
  assert.ok(rec, JSON.stringify(records));
  assert.equal(rec.record.answered_by.name, 'Bo');
  assert.deepEqual(boTab.problems, []);
  assert.deepEqual(anaTab.problems, []);
  await agent.close();
  await boTab.context.close();
  await anaTab.context.close();
});

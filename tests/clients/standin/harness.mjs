// What the agent-client tests (Claude Code, Codex) share: a fresh ASKD_HOME, the daemon the
// adapter starts there (read from daemon.json), the human answering through askd's API, and
// a real client process run to its end. Real askd, real client; only the model is a stand-in.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, existsSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';

export const CLIENTS = join(dirname(fileURLToPath(import.meta.url)), '..');
export const ROOT = join(CLIENTS, '..', '..');
export const BINARY = process.env.ASKD_BIN || join(process.env.CARGO_TARGET_DIR || join(ROOT, 'target'), 'debug', 'askd');
export const BIN_DIR = dirname(BINARY);
export const FIXTURE_SURVEY = join(ROOT, 'crates', 'askd-daemon', 'tests', 'fixtures', 'release-scope.json');

export function tempDir(prefix) {
  return mkdtempSync(join(tmpdir(), prefix));
}

/** The daemon the adapter started in `home`, once daemon.json and the token are there. */
export async function daemonOf(home, { timeoutMs = 30000 } = {}) {
  const info = join(home, 'daemon.json');
  const end = Date.now() + timeoutMs;
  let d = null;
  while (Date.now() < end) {
    try {
      d = JSON.parse(readFileSync(info, 'utf8'));
      if (d.url && existsSync(join(home, 'token'))) break;
    } catch { /* not written yet */ }
    d = null;
    await sleep(50);
  }
  if (!d) throw new Error(`no daemon started in ${home}`);
  const token = readFileSync(join(home, 'token'), 'utf8').trim();
  return { ...d, token, api: (method, path, body) => api(d.url, token, method, path, body) };
}

export async function api(url, token, method, path, body) {
  const res = await fetch(url + path, {
    method,
    headers: { Authorization: `Bearer ${token}`, ...(body !== undefined ? { 'Content-Type': 'application/json' } : {}) },
    body: body !== undefined ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  let json;
  try { json = JSON.parse(text); } catch { json = text; }
  return { status: res.status, body: json };
}

/** The first pending ask (optionally of `kind`) in `home`'s daemon, waiting for it to appear. */
export async function pendingAsk(home, { kind, timeoutMs = 60000 } = {}) {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    if (!existsSync(home)) throw new Error(`${home} was removed: the run ended with no pending ask`);
    if (existsSync(join(home, 'daemon.json'))) {
      try {
        const d = await daemonOf(home, { timeoutMs: 2000 });
        const r = await d.api('GET', `/api/asks?state=pending${kind ? `&kind=${kind}` : ''}`);
        const ask = r.body?.asks?.[0];
        if (ask) return { daemon: d, ask };
      } catch { /* starting */ }
    }
    await sleep(100);
  }
  throw new Error(`no pending ask appeared in ${home}`);
}

/** The human's side: submit or cancel the ask, through the API, as the web page does. */
export async function humanSubmit(daemon, id, body) {
  const r = await daemon.api('POST', `/api/asks/${id}/submit`, body);
  if (r.status !== 200) throw new Error(`submit ${id}: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body;
}

export async function humanCancel(daemon, id) {
  const r = await daemon.api('POST', `/api/asks/${id}/cancel`, {});
  if (r.status !== 200) throw new Error(`cancel ${id}: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body;
}

/** Stops the daemon the adapter started detached in `home` (its pid is in daemon.json). */
export async function killDaemon(home) {
  let pid;
  try { pid = JSON.parse(readFileSync(join(home, 'daemon.json'), 'utf8')).pid; } catch { return; }
  if (!pid) return;
  try { process.kill(pid, 'SIGTERM'); } catch { return; }
  for (let i = 0; i < 60; i++) {
    try { process.kill(pid, 0); } catch { return; }
    await sleep(50);
  }
  try { process.kill(pid, 'SIGKILL'); } catch { /* gone */ }
}

/**
 * Ends a tmux session and waits (up to 5 s) until every process of its pane is gone, so the
 * client is not still writing its config directory when the test removes it.
 */
export async function killTmux(session) {
  const panes = spawnSync('tmux', ['list-panes', '-s', '-t', session, '-F', '#{pane_pid}'], { encoding: 'utf8' });
  const pids = (panes.stdout || '').split('\n').map(Number).filter(Boolean);
  const tree = new Set(pids);
  // The pane's descendants too (the client's own children: askd mcp, shells).
  for (let grew = true; grew;) {
    grew = false;
    const ps = spawnSync('ps', ['-eo', 'pid=,ppid='], { encoding: 'utf8' }).stdout || '';
    for (const line of ps.split('\n')) {
      const [pid, ppid] = line.trim().split(/\s+/).map(Number);
      if (pid && tree.has(ppid) && !tree.has(pid)) { tree.add(pid); grew = true; }
    }
  }
  spawnSync('tmux', ['kill-session', '-t', session]);
  const alive = (pid) => { try { process.kill(pid, 0); return true; } catch { return false; } };
  for (let i = 0; i < 100 && [...tree].some(alive); i++) await sleep(50);
  for (const pid of tree) if (alive(pid)) { try { process.kill(pid, 'SIGKILL'); } catch { /* gone */ } }
}

export function cleanup(...dirs) {
  // A client killed a moment ago may still be flushing its config directory: retry for a few
  // seconds, and never turn a finished test into a failure over a leftover temporary file.
  for (const d of dirs) {
    try {
      rmSync(d, { recursive: true, force: true, maxRetries: 30, retryDelay: 200 });
    } catch (e) {
      console.error(`# cleanup: left ${d} behind (${e.code ?? e.message})`);
    }
  }
}

/** The human's outcome once the client has exited: an error if it is not done within `graceMs`. */
export async function humanOutcome(done, shown = () => '', graceMs = 3000) {
  let timer;
  const late = new Promise((r) => { timer = setTimeout(() => r(new Error(`the human never saw a pending ask; the model was shown ${shown()}`)), graceMs); });
  const out = await Promise.race([done, late]);
  clearTimeout(timer);
  if (out instanceof Error) throw out;
}

/** Runs a client process to its end (killed after `timeoutMs`): {code, signal, stdout, stderr, ms}. */
export function run(cmd, args, { env, cwd, timeoutMs = 90000 }) {
  const t0 = Date.now();
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { env, cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => { stdout += d; });
    child.stderr.on('data', (d) => { stderr += d; });
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    // A client that cannot be started is a result too (code null, the error in stderr).
    child.on('error', (e) => {
      clearTimeout(timer);
      resolve({ code: null, signal: null, stdout, stderr: `${stderr}${e.message}`, ms: Date.now() - t0 });
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr, ms: Date.now() - t0 });
    });
  });
}

/** The scenario data both agent-client tests use. */
export const QUESTIONS = {
  questions: [{ id: 'db', question: 'Which database should the service use?', header: 'Storage',
    options: [{ label: 'Postgres (Recommended)', description: 'One server, SQL.' }, { label: 'SQLite' }] }],
};
export const QUESTIONS_ANSWER = { answers: [{ id: 'db', selected: ['Postgres (Recommended)'] }] };
// Two questions with one id: valid JSON for the schema, rejected by askd with a path.
export const INVALID_QUESTIONS = {
  questions: [
    { id: 'q', question: 'First?', options: [{ label: 'A' }, { label: 'B' }] },
    { id: 'q', question: 'Second?', options: [{ label: 'C' }, { label: 'D' }] },
  ],
};
export const REVIEW = {
  title: 'Release checklist',
  items: [
    { id: 'r1', title: 'Login works on the staging server' },
    { id: 'r2', title: 'Export keeps the file name' },
  ],
};
export const REVIEW_ANSWER = { answers: [{ id: 'r1', verdict: 'pass' }, { id: 'r2', verdict: 'fail', note: 'name lost' }] };
export function surveyArgs() {
  return JSON.parse(readFileSync(FIXTURE_SURVEY, 'utf8'));
}
// The path scope=a → api → ship of the fixture (crates/askd-daemon/tests/common full_answers()).
export const SURVEY_ANSWER = { answers: [
  { id: 'scope', selected: ['a'], justifications: { a: 'partners are blocked' } },
  { id: 'api', selected: [], custom: 'REST endpoints first' },
  { id: 'ship', selected: ['a', 'c'] },
] };

/** The `[mcp_servers.askd]` block of the Codex section of docs/integrations.md, verbatim. */
export function codexBlock() {
  const doc = readFileSync(join(ROOT, 'docs', 'integrations.md'), 'utf8');
  const section = doc.split(/^## /m).find((s) => s.startsWith('Codex\n'));
  if (!section) throw new Error('docs/integrations.md has no "## Codex" section');
  const m = section.match(/```toml\n([\s\S]*?)```/);
  if (!m || !/^\[mcp_servers\.askd\]$/m.test(m[1])) throw new Error('the Codex section prints no [mcp_servers.askd] toml block');
  return m[1];
}

/** docs/integrations.md's Claude Code server entry and headless `--allowedTools`. */
export function claudeDocumented() {
  const doc = readFileSync(join(ROOT, 'docs', 'integrations.md'), 'utf8');
  const section = doc.split(/^## /m).find((s) => s.startsWith('Claude Code\n'));
  if (!section) throw new Error('docs/integrations.md has no "## Claude Code" section');
  return {
    config: JSON.parse(section.match(/```json\n([\s\S]*?)```/)[1]),
    allowedTools: section.match(/--allowedTools ([\w,]+)/)[1],
  };
}

/**
 * The shell command that runs real Claude Code interactively (for tmux) in `home`, with the
 * documented server entry, the stand-in model at `modelUrl`, askd's data in `askdHome`, and
 * a first run's dialogs (onboarding, this folder's trust, the API key) answered in advance.
 * `era: 'legacy'` negotiates 2025-11-25 instead of 2026-07-28.
 */
export function claudeInteractive({ home, askdHome, modelUrl, era, prompt }) {
  const doc = claudeDocumented();
  const config = join(home, 'mcp.json');
  writeFileSync(config, JSON.stringify(doc.config));
  const key = 'sk-ant-standin-0123456789abcdefghij';
  mkdirSync(join(home, '.claude'), { recursive: true });
  writeFileSync(join(home, '.claude', '.claude.json'), JSON.stringify({
    hasCompletedOnboarding: true,
    theme: 'dark',
    customApiKeyResponses: { approved: [key.slice(-20)], rejected: [] },
    projects: { [home]: { hasTrustDialogAccepted: true, allowedTools: [] } },
  }));
  const env = {
    PATH: `${BIN_DIR}:${process.env.PATH}`, HOME: home, CLAUDE_CONFIG_DIR: join(home, '.claude'),
    ANTHROPIC_BASE_URL: modelUrl, ANTHROPIC_API_KEY: key, TERM: 'xterm-256color',
    DISABLE_AUTOUPDATER: '1', CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1', DISABLE_TELEMETRY: '1',
    ASKD_HOME: askdHome, ASKD_LISTEN: '127.0.0.1:0', ASKD_NO_BROWSER: '1',
    ...(era === 'legacy' ? { MCP_PROTOCOL_NEGOTIATION: 'legacy' } : {}),
  };
  const claude = join(CLIENTS, 'node_modules', '.bin', 'claude');
  const cmd = [claude, '--mcp-config', config, '--strict-mcp-config', '--allowedTools', doc.allowedTools, '--',
    JSON.stringify(prompt)].join(' ');
  const envArgs = Object.entries(env).map(([k, v]) => `${k}=${JSON.stringify(v)}`).join(' ');
  return `env ${envArgs} ${cmd}`;
}

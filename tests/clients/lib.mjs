// Shared helpers of the real-client tests (tests/clients): a fresh data directory per test,
// a real `askd serve` on 127.0.0.1:0 (or the one an `askd mcp` adapter started detached),
// the human's side through askd's HTTP API (docs/api.md), the fixtures every client is
// driven with, and ajv in strict mode. No part of askd is mocked.
import { spawn } from 'node:child_process';
import { api } from './standin/harness.mjs';
import { mkdtempSync, mkdirSync, readFileSync, existsSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import Ajv from 'ajv';
import Ajv2020 from 'ajv/dist/2020.js';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
// Cargo's target directory (CARGO_TARGET_DIR when set, as cargo itself reads it).
export const TARGET = process.env.CARGO_TARGET_DIR || join(ROOT, 'target');
export const BINARY = process.env.ASKD_BIN || join(TARGET, 'debug', 'askd');
export const BIN_DIR = dirname(BINARY);
export const FIXTURES = join(ROOT, 'crates', 'askd-daemon', 'tests', 'fixtures');

export function requireBinary() {
  if (!existsSync(BINARY)) throw new Error(`${BINARY} is missing: run cargo build --locked -p askd first (or set ASKD_BIN)`);
}

/** A fresh, empty ASKD_HOME. */
export function freshHome(prefix = 'askd-clients-') {
  return mkdtempSync(join(tmpdir(), prefix));
}

/** A workspace directory inside `home`, for the adapter's cwd (askd writes .askd/ there). */
export function workspaceOf(home) {
  const dir = join(home, 'workspace');
  mkdirSync(dir, { recursive: true });
  return dir;
}

/**
 * The environment an MCP client must hand `askd mcp`: its data directory, no browser, a
 * daemon it starts on a free port, and PATH with the binary's directory first (for clients
 * that spawn `askd` by name). Clients pass only a whitelist of their own environment, so
 * these must be given explicitly.
 */
export function serverEnv(home, extra = {}) {
  return {
    ASKD_HOME: home,
    ASKD_NO_BROWSER: '1',
    ASKD_LISTEN: '127.0.0.1:0',
    PATH: `${BIN_DIR}:${process.env.PATH || '/usr/bin:/bin'}`,
    ...extra,
  };
}

function readJson(path) {
  try { return JSON.parse(readFileSync(path, 'utf8')); } catch { return null; }
}

/** The daemon of `home` (the one in its daemon.json), once it has written its URL and token. */
export async function connectDaemon(home, { timeoutMs = 15000, child = null } = {}) {
  const info = join(home, 'daemon.json');
  const deadline = Date.now() + timeoutMs;
  let meta = null;
  while (Date.now() < deadline) {
    meta = readJson(info);
    if (meta?.url && existsSync(join(home, 'token'))) break;
    meta = null;
    await sleep(25);
  }
  if (!meta) throw new Error(`no daemon wrote ${info} within ${timeoutMs} ms`);
  const token = readFileSync(join(home, 'token'), 'utf8').trim();
  return daemonHandle(home, meta.url, token, meta.pid, child);
}

/** `askd serve --listen 127.0.0.1:0` with a fresh (or the given) ASKD_HOME. */
export async function startDaemon({ home = freshHome(), env = {} } = {}) {
  requireBinary();
  const child = spawn(BINARY, ['serve', '--listen', '127.0.0.1:0'], {
    env: { ...process.env, ASKD_HOME: home, ASKD_NO_BROWSER: '1', ASKD_LOG: 'warn', ...env },
    cwd: workspaceOf(home),
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (d) => { stderr += d; });
  try {
    return await connectDaemon(home, { child });
  } catch (e) {
    child.kill('SIGKILL');
    throw new Error(`askd serve did not start: ${e.message}\n${stderr}`);
  }
}

function alive(pid) {
  try { process.kill(pid, 0); return true; } catch { return false; }
}

/**
 * Stops the daemon of `home` — whoever started it (a test, or an adapter that started
 * `askd serve` detached: its pid is in daemon.json) — and removes the directory.
 */
export async function stopDaemonOf(home, { keep = false } = {}) {
  const meta = readJson(join(home, 'daemon.json'));
  const pid = meta?.pid;
  if (pid && alive(pid)) {
    try { process.kill(pid, 'SIGTERM'); } catch { /* gone */ }
    for (let i = 0; i < 60 && alive(pid); i++) await sleep(50);
    if (alive(pid)) { try { process.kill(pid, 'SIGKILL'); } catch { /* gone */ } }
  }
  if (!keep) rmSync(home, { recursive: true, force: true });
}

function daemonHandle(home, url, token, pid, child) {
  const daemon = {
    url, token, home, pid, child,
    api: (method, path, body) => api(url, token, method, path, body),
    async asks(state = 'pending') {
      const r = await daemon.api('GET', `/api/asks?state=${state}`);
      if (r.status !== 200) throw new Error(`GET /api/asks: ${r.status} ${JSON.stringify(r.body)}`);
      return r.body.asks;
    },
    /** Waits until a pending ask (of `kind`, not in `except`) exists and returns it. */
    async waitForPending({ kind, except = [], timeoutMs = 15000 } = {}) {
      const deadline = Date.now() + timeoutMs;
      while (Date.now() < deadline) {
        const found = (await daemon.asks('pending')).find((a) => (!kind || a.kind === kind) && !except.includes(a.id));
        if (found) return found;
        await sleep(50);
      }
      throw new Error(`no pending ${kind || ''} ask appeared within ${timeoutMs} ms`);
    },
    async view(id) {
      return (await daemon.api('GET', `/api/asks/${id}`)).body;
    },
    /** The human answers (POST /api/asks/{id}/submit); throws unless it settled. */
    async submit(id, body) {
      const r = await daemon.api('POST', `/api/asks/${id}/submit`, body);
      if (r.status !== 200) throw new Error(`submit ${id}: ${r.status} ${JSON.stringify(r.body)}`);
      return r.body;
    },
    /** The human cancels (dismisses) the ask. */
    async cancel(id) {
      const r = await daemon.api('POST', `/api/asks/${id}/cancel`, {});
      if (r.status !== 200) throw new Error(`cancel ${id}: ${r.status} ${JSON.stringify(r.body)}`);
      return r.body;
    },
    async stop() {
      if (child) {
        child.kill('SIGTERM');
        await new Promise((r) => { if (child.exitCode !== null) r(); child.once('exit', r); setTimeout(r, 3000); });
      }
      await stopDaemonOf(home);
    },
  };
  return daemon;
}

// ---------------------------------------------------------------------------------------
// What every client is asked, and how the human answers.

/** ask_user_question arguments: one single-choice question. */
export function questionArgs(question = 'Which database should the service use?') {
  return {
    questions: [{
      id: 'db', header: 'Storage', question,
      options: [
        { label: 'PostgreSQL (Recommended)', description: 'The team runs it already.' },
        { label: 'SQLite', description: 'One file, no server.' },
      ],
    }],
  };
}
export const QUESTION_ANSWER = { answers: [{ id: 'db', selected: ['PostgreSQL (Recommended)'] }] };

/** ask_survey arguments: the release-scope fixture of the daemon's tests. */
export function surveyArgs() {
  return JSON.parse(readFileSync(join(FIXTURES, 'release-scope.json'), 'utf8'));
}
/** Answers along the path scope=a → api → ship (crates/askd-daemon/tests/common full_answers()). */
export const SURVEY_ANSWERS = {
  answers: [
    { id: 'scope', selected: ['a'], justifications: { a: 'partners are blocked' } },
    { id: 'api', selected: [], custom: 'REST endpoints first' },
    { id: 'ship', selected: ['a', 'c'] },
  ],
};

/** batch_review arguments: a few items of different types. */
export function reviewArgs(title = 'Release checklist') {
  return {
    title,
    items: [
      { id: 'c1', title: 'Copy button copies the full path', group: 'Copy', op: 'Click Copy', expect: 'The full path is on the clipboard' },
      { id: 'c2', title: 'Download keeps the file name', group: 'Copy' },
      { id: 'b1', type: 'bool', title: 'Keep the gateway resident', boolDesc: 'Accept' },
      { id: 'n1', type: 'text', title: 'Anything that looked off' },
    ],
  };
}
export const REVIEW_ANSWERS = {
  answers: [
    { id: 'c1', verdict: 'pass' },
    { id: 'c2', verdict: 'fail', note: 'the name loses its extension' },
    { id: 'b1', verdict: 'yes' },
    { id: 'n1', note: 'the toast overlaps the footer' },
  ],
};

/**
 * An invalid ask_user_question call as a model makes it: a question with a single option
 * (2-12 are required). The error must name `questions[0].options`.
 */
export const INVALID_QUESTION_ARGS = {
  questions: [{ id: 'db', question: 'Which database?', options: [{ label: 'PostgreSQL' }] }],
};
export const INVALID_PATH = 'questions[0].options';

// ---------------------------------------------------------------------------------------
// Reading results the way a client does.

/** The text blocks of a tool result. */
export function texts(result) {
  return (result?.content || []).filter((c) => c.type === 'text').map((c) => c.text);
}

/** The first text block that parses as a JSON object, or null. */
export function jsonText(result) {
  for (const t of texts(result)) {
    try {
      const v = JSON.parse(t);
      if (v && typeof v === 'object') return v;
    } catch { /* not JSON */ }
  }
  return null;
}

/** What a model reads of a successful result: structuredContent, else the JSON text. */
export function payload(result) {
  return result?.structuredContent ?? jsonText(result);
}

// ---------------------------------------------------------------------------------------
// ajv strict mode, as a client that validates askd's schemas compiles them.

/**
 * A strict ajv for the dialect the schema declares (draft 2020-12 when `$schema` says so,
 * else ajv's default draft-07), without allowUnionTypes. Throws what ajv throws.
 */
export function compileStrict(schema) {
  const is2020 = typeof schema?.$schema === 'string' && schema.$schema.includes('2020-12');
  const ajv = is2020 ? new Ajv2020({ strict: true, allErrors: true }) : new Ajv({ strict: true, allErrors: true });
  return ajv.compile(schema);
}

/** Validates `value` against `schema` in strict mode; returns null or the errors as text. */
export function strictErrors(schema, value) {
  const validate = compileStrict(schema);
  if (validate(value)) return null;
  return validate.errors.map((e) => `${e.instancePath || '/'} ${e.message} ${JSON.stringify(e.params)}`).join('; ');
}

export { sleep };

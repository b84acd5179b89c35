// Real Codex CLI 0.171.0, interactive (its TUI) in a pseudo-terminal (tmux), answering askd's
// forms by keystrokes (issue 28 §1). Codex's TUI shows form fields in name order, renders no
// array or number field, sends a form only from its last field and does nothing on Enter in
// an empty text field, so askd gives Codex stepwise forms (crates/askd-mcp/src/stepwise.rs):
// choices only, then the text a choice asked for. The model is the stand-in Responses API
// server (standin/responses.mjs), scripted to call one askd tool; the human is this script,
// reading the terminal (`tmux capture-pane`) and typing (`tmux send-keys`). The
// `[mcp_servers.askd]` block is the one docs/integrations.md prints.
//
// Run: ASKD_BIN=$PWD/target/debug/askd node --test tests/clients/codex-tui.test.mjs
// Needs tmux (skipped without it); no network (the model is on loopback). ASKD_PTY_VERBOSE=1
// prints every screen acted on.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startResponses, scripted, callOutputs } from './standin/responses.mjs';
import { CLIENTS, BIN_DIR, tempDir, daemonOf, killDaemon, killTmux, cleanup, QUESTIONS, surveyArgs, codexBlock, pendingAsk, humanSubmit } from './standin/harness.mjs';

const CODEX = join(CLIENTS, 'node_modules', '.bin', 'codex');
const NS = 'mcp__askd';
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const tmux = (...args) => spawnSync('tmux', args, { encoding: 'utf8' });
const HAS_TMUX = spawnSync('tmux', ['-V']).status === 0;
const log = (s) => { if (process.env.ASKD_PTY_VERBOSE) console.log(s); };

/** The JSON the model was shown: Codex prefixes a tool output with "Wall time: …\nOutput:\n". */
function shownJson(text) {
  const i = text.indexOf('{');
  try { return JSON.parse(text.slice(i)); } catch { return undefined; }
}

/**
 * One interactive Codex run in tmux: the model calls `tool` with `args`; `human(keys)` answers
 * the forms with `keys.press(key, nextScreen)`. Returns what the model was shown and askd's
 * stored view of the ask.
 */
async function codexTui(tool, args, human) {
  const session = `askd-codex-tui-${process.pid}-${tool}`;
  const home = tempDir('askd-codex-tui-home-');
  const askdHome = tempDir('askd-codex-tui-data-');
  const model = await startResponses(scripted([
    { tool: { namespace: NS, name: tool, input: args } },
    (results) => ({ text: `The tool returned: ${results.at(-1).text}` }),
  ]));
  // Only the provider and this folder's trust are test-specific; the askd block is the docs'.
  writeFileSync(join(home, 'config.toml'), `model = "standin"
model_provider = "standin"

[model_providers.standin]
name = "Stand-in model of the askd tests"
base_url = "${model.url}/v1"
wire_api = "responses"

[projects."${home}"]
trust_level = "trusted"

${codexBlock()}`);
  const env = {
    PATH: `${BIN_DIR}:${process.env.PATH}`, HOME: home, CODEX_HOME: home, TERM: 'xterm-256color',
    OPENAI_API_KEY: 'sk-standin', ASKD_HOME: askdHome, ASKD_LISTEN: '127.0.0.1:0', ASKD_NO_BROWSER: '1',
  };
  const envArgs = Object.entries(env).map(([k, v]) => `${k}=${JSON.stringify(v)}`).join(' ');
  const screen = () => tmux('capture-pane', '-p', '-t', session).stdout || '';
  async function until(what, ok, timeoutMs = 60000) {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      const s = screen();
      if (ok(s)) return s;
      await sleep(200);
    }
    throw new Error(`timed out waiting for ${what}; the screen:\n${screen()}`);
  }
  const keys = {
    /** Presses `key` (`T:text` types text), then waits until the screen matches `next`. */
    async press(key, next) {
      const before = screen();
      if (key.startsWith('T:')) tmux('send-keys', '-t', session, '-l', key.slice(2));
      else tmux('send-keys', '-t', session, key);
      const s = await until(`${next} after ${key}`, (s) => s !== before && next.test(s), 30000);
      log(`--- after ${key}:\n` + s.split('\n').filter((l) => l.trim()).slice(-14).join('\n'));
      return s;
    },
    until,
  };
  try {
    tmux('new-session', '-d', '-s', session, '-x', '160', '-y', '50', '-c', home,
      `env ${envArgs} ${CODEX} ${JSON.stringify('Use askd to ask the user, then report the answer.')}`);
    const form = await until('the first askd form', (s) => /Field 1\//.test(s), 90000);
    log('--- the form, as Codex shows it:\n' + form);
    await human(keys, form, askdHome);
    await until('the tool result', (s) => /tool returned/i.test(s), 60000);
    const shown = shownJson(callOutputs(model.requests.at(-1)?.body).at(-1)?.text ?? '');
    const d = await daemonOf(askdHome);
    const asks = (await d.api('GET', '/api/asks?state=all')).body.asks;
    const view = (await d.api('GET', `/api/asks/${asks[0].id}`)).body;
    return { shown, view, form };
  } finally {
    await killTmux(session);
    await model.close();
    await killDaemon(askdHome);
    cleanup(home, askdHome);
  }
}

const skip = !HAS_TMUX && 'tmux is not installed';

test('Codex TUI: ask_user_question answered by choosing an option alone', { skip, timeout: 180000 }, async () => {
  const r = await codexTui('ask_user_question', QUESTIONS, async (keys, form) => {
    assert.match(form, /Postgres \(Recommended\)/);
    assert.match(form, /Other — type it next/);
    assert.match(form, /\/a\//, 'the page link is on the form');
    await keys.press('Enter', /tool returned|Called askd/);
  });
  assert.equal(r.shown?.outcome, 'answered', JSON.stringify(r.shown));
  assert.equal(r.shown.surface, 'client-form');
  assert.deepEqual(r.shown.answers, [{ id: 'db', selected: ['Postgres (Recommended)'] }]);
  assert.equal(r.view.result.surface, 'client-form');
});

test('Codex TUI: ask_user_question answered with free text ("Other", then the text form)', { skip, timeout: 180000 }, async () => {
  const r = await codexTui('ask_user_question', QUESTIONS, async (keys) => {
    await keys.press('3', /Type what you chose to write/);
    await keys.press('T:MariaDB', /MariaDB/);
    await keys.press('Enter', /tool returned|Called askd/);
  });
  assert.equal(r.shown?.outcome, 'answered', JSON.stringify(r.shown));
  assert.deepEqual(r.shown.answers, [{ id: 'db', selected: [], custom: 'MariaDB' }]);
  assert.equal(r.shown.surface, 'client-form');
});

test('Codex TUI: a 3-question survey (single choice, free text, multi-select) answered by keys', { skip, timeout: 240000 }, async () => {
  const r = await codexTui('ask_survey', surveyArgs(), async (keys, form) => {
    assert.match(form, /Question 1 of/);
    // scope: the first option ("Ship the public API"), then the path goes to `api`.
    await keys.press('Enter', /Which API surface is frozen first\?/);
    // api (free text, skippable): choose to write, then type it.
    await keys.press('Enter', /Type what you chose to write/);
    await keys.press('T:REST endpoints first', /REST endpoints first/);
    await keys.press('Enter', /What must be true before shipping\?/);
    // ship (multi-select): one No/Yes field per option; 2 = Yes, 1 = No.
    await keys.press('2', /Field 2\//);
    await keys.press('1', /Field 3\//);
    await keys.press('2', /Field 4\//);
    await keys.press('1', /Field 5\//);
    await keys.press('1', /Field 6\//);
    await keys.press('1', /tool returned|Called askd/);
  });
  assert.equal(r.shown?.outcome, 'answered', JSON.stringify(r.shown));
  assert.equal(r.view.state, 'settled');
  assert.equal(r.view.result.surface, 'client-form');
  assert.deepEqual(r.view.result.path, ['scope', 'api', 'ship']);
  const byId = Object.fromEntries(r.shown.answers.map((a) => [a.id, a]));
  assert.deepEqual(byId.scope.selected.map((o) => o.key), ['a'], JSON.stringify(r.shown));
  assert.equal(byId.api.custom, 'REST endpoints first');
  assert.deepEqual(byId.ship.selected.map((o) => o.key), ['a', 'c']);
});

test('Codex TUI: a 3-item review answered by keys, one note typed', { skip, timeout: 180000 }, async () => {
  const review = {
    title: 'Release checklist',
    items: [
      { id: 'r1', title: 'Login works on the staging server' },
      { id: 'r2', title: 'Export keeps the file name' },
      { id: 'r3', title: 'Search finds archived items' },
    ],
  };
  const r = await codexTui('batch_review', review, async (keys, form) => {
    assert.match(form, /1\. Login works/);
    await keys.press('1', /Field 2\//); // r1: Pass
    await keys.press('Enter', /Field 3\//); // r1: no note (the default)
    await keys.press('2', /Field 4\//); // r2: Fail
    await keys.press('2', /Field 5\//); // r2: add a note
    await keys.press('3', /Field 6\//); // r3: Pending
    await keys.press('Enter', /Type what you chose to write/); // r3: no note; sends
    await keys.press('T:name lost', /name lost/);
    await keys.press('Enter', /tool returned|Called askd/);
  });
  assert.equal(r.shown?.outcome, 'answered', JSON.stringify(r.shown));
  assert.deepEqual(r.shown.items.map((i) => [i.id, i.verdict, i.note || '']),
    [['r1', 'pass', ''], ['r2', 'fail', 'name lost'], ['r3', 'pending', '']]);
  assert.equal(r.view.result.surface, 'client-form');
});

test('Codex TUI: the page answers while the form is open — the form closes and the answer returns', { skip, timeout: 180000 }, async (t) => {
  let waited;
  const r = await codexTui('ask_user_question', QUESTIONS, async (keys, form, askdHome) => {
    const { daemon, ask } = await pendingAsk(askdHome, { kind: 'questions' });
    const t0 = Date.now();
    await humanSubmit(daemon, ask.id, { answers: [{ id: 'db', selected: ['SQLite'] }] });
    const s = await keys.until('the tool result', (s) => /tool returned/i.test(s), 15000);
    waited = Date.now() - t0;
    assert.doesNotMatch(s, /Field 1\//, 'askd withdrew the form (notifications/cancelled)');
  });
  t.diagnostic(`Codex TUI: the agent waited ${waited} ms after the page answer`);
  assert.equal(r.shown?.surface, 'page', JSON.stringify(r.shown));
  assert.deepEqual(r.shown.answers, [{ id: 'db', selected: ['SQLite'] }]);
  assert.ok(waited < 5000, `${waited} ms`);
});

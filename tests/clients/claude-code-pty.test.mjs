// Real Claude Code 2.1.332, interactive, in a pseudo-terminal (tmux), answering an askd form
// by keystrokes (clients.md §3, issue 15). The model is the stand-in Messages API server
// (standin/anthropic.mjs), scripted to load ask_user_question with ToolSearch and call it;
// the human is this script, reading the terminal (`tmux capture-pane`) and typing
// (`tmux send-keys`). It logs each screen it acted on (ASKD_PTY_VERBOSE=1) and asserts what
// the model was shown and what askd recorded. Claude Code speaks 2026-07-28 here, so the
// form arrives through askd's `input_required` round trip ("Fulfilling input required by
// 'tools/call' (round 1)"); MCP_PROTOCOL_NEGOTIATION=legacy runs the same keys over
// elicitation/create.
//
// Run: ASKD_BIN=$PWD/target/debug/askd node --test tests/clients/claude-code-pty.test.mjs
// Needs tmux (skipped without it); no network (the model is on loopback).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { startAnthropic, scripted, toolResults } from './standin/anthropic.mjs';
import { tempDir, daemonOf, killDaemon, killTmux, cleanup, QUESTIONS, claudeInteractive } from './standin/harness.mjs';

const T = (name) => `mcp__askd__${name}`;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const tmux = (...args) => spawnSync('tmux', args, { encoding: 'utf8' });

const HAS_TMUX = spawnSync('tmux', ['-V']).status === 0;
const log = (s) => { if (process.env.ASKD_PTY_VERBOSE) console.log(s); };

for (const era of ['modern', 'legacy']) {
  test(`Claude Code interactive (${era}): the askd form appears in the terminal and keystrokes answer it`, { skip: !HAS_TMUX && 'tmux is not installed', timeout: 180000 }, async () => {
    const SESSION = `askd-pty-${process.pid}-${era}`;
    const screen = () => tmux('capture-pane', '-p', '-t', SESSION).stdout || '';
    async function until(what, ok, timeoutMs = 60000) {
      const deadline = Date.now() + timeoutMs;
      while (Date.now() < deadline) {
        const s = screen();
        if (ok(s)) return s;
        await sleep(250);
      }
      throw new Error(`timed out waiting for ${what}; the screen:\n${screen()}`);
    }
  const home = tempDir('askd-pty-home-');
  const askdHome = tempDir('askd-pty-data-');
  const model = await startAnthropic(scripted([
    { tool: { name: 'ToolSearch', input: { query: `select:${T('ask_user_question')}` } } },
    { tool: { name: T('ask_user_question'), input: QUESTIONS } },
    (results) => ({ text: `The tool returned: ${results.at(-1).text}` }),
  ]));
  const command = claudeInteractive({ home, askdHome, modelUrl: model.url, era,
    prompt: 'Use askd to ask the user which database to use, then report the answer.' });
  try {
    tmux('new-session', '-d', '-s', SESSION, '-x', '160', '-y', '50', '-c', home, command);
    const form = await until('the askd form', (s) => /Which database/.test(s) && /Postgres/.test(s), 90000);
    log('--- the form, as Claude Code shows it:\n' + form);
    // The keys a human presses: → opens the Storage choice, Enter picks its highlighted first
    // option and moves to "Other"; ↓ to Accept, Enter submits.
    const keys = (process.env.ASKD_PTY_KEYS || 'Right Enter Down Enter').split(' ');
    for (const k of keys) {
      tmux('send-keys', '-t', SESSION, k);
      await sleep(700);
      log(`--- after ${k}:\n` + screen().split('\n').filter((l) => l.trim()).slice(-12).join('\n'));
    }
    const done = await until('the tool result', (s) => /tool returned/i.test(s), 60000);
    log('--- the end:\n' + done.split('\n').filter((l) => l.trim()).slice(-15).join('\n'));
    assert.ok(done, 'the model quoted the tool result');
    const shown = toolResults(model.requests.at(-1)?.body).at(-1);
    assert.equal(JSON.parse(shown.text).surface, 'client-form', `the model was shown the form answer: ${shown.text}`);
    const d = await daemonOf(askdHome);
    const asks = (await d.api('GET', '/api/asks?state=all')).body.asks;
    const view = (await d.api('GET', `/api/asks/${asks[0].id}`)).body;
    log('--- askd: ' + JSON.stringify({ state: view.state, outcome: view.outcome, result: view.result }));
    assert.equal(view.state, 'settled');
    assert.equal(view.result.surface, 'client-form');
    assert.deepEqual(view.result.answers, [{ id: 'db', selected: ['Postgres (Recommended)'] }]);
    assert.match(form, /The agent asks you \(answer here, or on the page — answered there\? Esc here goes on\)/);
  } finally {
    await killTmux(SESSION);
    await model.close();
    await killDaemon(askdHome);
    cleanup(home, askdHome);
  }
  });
}

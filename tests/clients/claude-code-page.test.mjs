// Real Claude Code 2.1.332, interactive in tmux: the human answers on askd's page while the
// agent's call is open (issue 28 §2), in each protocol era, and the test measures how long
// the agent waits after the page answer. The model is the stand-in Messages API server.
// - legacy (2025-11-25, elicitation/create): askd withdraws the form
//   (notifications/cancelled) and the call returns at once.
// - 2026-07-28 with the form open: the protocol gives the server no way to take a form
//   back, so the form says how to go on ("answered there? Esc here goes on"); Esc returns
//   the page's answer.
// - 2026-07-28 with the desk open (a person's live event stream, as an open inbox holds):
//   the page goes first (askd_mcp::server::DESK_FIRST), no form is sent, and the page
//   answer returns at once.
// Each figure is printed (`# … ms`) for the note.
//
// Run: ASKD_BIN=$PWD/target/debug/askd node --test tests/clients/claude-code-page.test.mjs
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { startAnthropic, scripted, toolResults } from './standin/anthropic.mjs';
import { tempDir, daemonOf, killDaemon, killTmux, cleanup, QUESTIONS, pendingAsk, humanSubmit, claudeInteractive } from './standin/harness.mjs';

const T = (name) => `mcp__askd__${name}`;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const tmux = (...args) => spawnSync('tmux', args, { encoding: 'utf8' });
const HAS_TMUX = spawnSync('tmux', ['-V']).status === 0;

/** One interactive run: the human answers on the page 2 s after the ask appears. */
async function pageAnswer(era, { desk }) {
  const SESSION = `askd-page-${process.pid}-${era}-${desk ? 'desk' : 'form'}`;
  const screen = () => tmux('capture-pane', '-p', '-t', SESSION).stdout || '';
  const home = tempDir('askd-page-home-');
  const askdHome = tempDir('askd-page-data-');
  let stream = null;
  const model = await startAnthropic(scripted([
    { tool: { name: 'ToolSearch', input: { query: `select:${T('ask_user_question')}` } } },
    async () => {
      if (desk) {
        // The person's inbox is open: its live event stream, as the page holds it.
        const d = await daemonOf(askdHome);
        stream = new AbortController();
        const res = await fetch(`${d.url}/api/events`, { headers: { Authorization: `Bearer ${d.token}` }, signal: stream.signal });
        (async () => { try { for await (const _ of res.body) { /* keep it open */ } } catch { /* closed */ } })();
      }
      return { tool: { name: T('ask_user_question'), input: QUESTIONS } };
    },
    (results) => ({ text: `The tool returned: ${results.at(-1).text}` }),
  ]));
  const command = claudeInteractive({ home, askdHome, modelUrl: model.url, era,
    prompt: 'Use askd to ask the user which database to use, then report the answer.' });
  const returned = () => /tool returned/i.test(screen());
  async function within(ms) {
    const end = Date.now() + ms;
    while (Date.now() < end) { if (returned()) return true; await sleep(100); }
    return returned();
  }
  try {
    tmux('new-session', '-d', '-s', SESSION, '-x', '160', '-y', '50', '-c', home, command);
    const { daemon, ask } = await pendingAsk(askdHome, { kind: 'questions', timeoutMs: 90000 });
    await sleep(2000);
    const formShown = /Which database/.test(screen());
    const t = Date.now();
    await humanSubmit(daemon, ask.id, { answers: [{ id: 'db', selected: ['SQLite'] }] });
    let waited = null;
    let keys = 'none';
    if (await within(8000)) {
      waited = Date.now() - t;
    } else {
      assert.match(screen(), /answered there\? Esc here goes on/, 'the open form says how to go on');
      keys = 'Esc';
      const k = Date.now();
      tmux('send-keys', '-t', SESSION, 'Escape');
      assert.ok(await within(20000), `Esc went on: ${screen()}`);
      waited = { untilEsc: Date.now() - t, afterEsc: Date.now() - k };
    }
    const shown = JSON.parse(toolResults(model.requests.at(-1)?.body).at(-1).text);
    assert.equal(shown.outcome, 'answered', JSON.stringify(shown));
    assert.equal(shown.surface, 'page');
    assert.deepEqual(shown.answers, [{ id: 'db', selected: ['SQLite'] }]);
    return { formShown, waited, keys };
  } finally {
    stream?.abort();
    await killTmux(SESSION);
    await model.close();
    await killDaemon(askdHome);
    cleanup(home, askdHome);
  }
}

const skip = !HAS_TMUX && 'tmux is not installed';

test('Claude Code interactive (legacy): a page answer withdraws the form and returns at once', { skip, timeout: 180000 }, async (t) => {
  const r = await pageAnswer('legacy', { desk: false });
  t.diagnostic(`legacy: form shown ${r.formShown}, the agent waited ${JSON.stringify(r.waited)} ms after the page answer (keys: ${r.keys})`);
  assert.equal(r.keys, 'none');
  assert.ok(r.waited < 5000, JSON.stringify(r));
});

test('Claude Code interactive (2026-07-28), form open: the form says Esc goes on, and Esc returns the page answer', { skip, timeout: 180000 }, async (t) => {
  const r = await pageAnswer('modern', { desk: false });
  t.diagnostic(`modern, form open: the agent waited ${JSON.stringify(r.waited)} ms after the page answer (keys: ${r.keys})`);
  assert.equal(r.formShown, true);
  assert.equal(r.keys, 'Esc', 'the protocol lets no server take the form back');
  assert.ok(r.waited.afterEsc < 5000, JSON.stringify(r));
});

test('Claude Code interactive (2026-07-28), desk open: no form, the page answer returns at once', { skip, timeout: 180000 }, async (t) => {
  const r = await pageAnswer('modern', { desk: true });
  t.diagnostic(`modern, desk open: form shown ${r.formShown}, the agent waited ${JSON.stringify(r.waited)} ms after the page answer (keys: ${r.keys})`);
  assert.equal(r.formShown, false, 'the page goes first while the desk is open');
  assert.equal(r.keys, 'none');
  assert.ok(r.waited < 5000, JSON.stringify(r));
});

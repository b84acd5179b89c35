// The question builder's progress card (survey.md §12.18): a draft being built shows in its
// session's group in the inbox, updates live through `draft.updated`, collapses to a strip
// that re-expands on a revision change, and gives way to the ask on launch.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startDaemon, launchBrowser, openContext, screenshotPath } from './helpers.mjs';

let daemon;
let browser;
let workspace;

before(async () => {
  daemon = await startDaemon();
  browser = await launchBrowser();
  workspace = mkdtempSync(join(tmpdir(), 'askd-builder-ws-'));
});

after(async () => {
  await browser?.close();
  await daemon?.stop();
  if (workspace) rmSync(workspace, { recursive: true, force: true });
});

const keys5 = () => ['a', 'b', 'c', 'd', 'e'].map((key) => ({ key }));

/** policy branches to window on a and b, ends on e, else goes to comms (builder_mcp.rs). */
const skeleton = () => ({
  entry: 'policy',
  questions: {
    policy: {
      options: [{ key: 'a', next: 'window' }, { key: 'b', next: 'window' }, { key: 'c' }, { key: 'd' },
        { key: 'e', next: null }],
      next: 'comms',
    },
    window: { prompt: 'TODO: window length', options: keys5(), next: 'comms' },
    comms: { options: keys5() },
  },
});

const options = (topic) => ['a', 'b', 'c', 'd', 'e'].map((key, i) => ({
  key,
  label: `${topic} stance ${i + 1}`,
  description: `The ${topic} follows stance number ${i + 1}.`,
  insight: `- **Promise** — ${topic} ${i + 1} is proven at Stripe.\n- **Price** — It costs ${i + 1} weeks.\n- **Present** — \`api/v${i + 1}/\` has 14 endpoints.`,
  sources: [i === 0 ? 'docs/api/v2.md' : 'Vendor handbook'],
}));

test('the builder card appears, follows the draft live, collapses, and gives way to the ask', async () => {
  const { context, page, problems } = await openContext(browser, daemon);
  await page.waitForSelector('.inbox-list .section-title');
  await page.waitForTimeout(300); // the event stream is open
  const session = (await daemon.api('POST', '/api/sessions', { client: 'claude-code', workspace })).body.session.id;
  const set = async (args) => {
    const r = await daemon.api('POST', '/api/drafts/set', { session, args });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    return r.body;
  };

  // begin: a card in the session's group (the session has no ask yet).
  const begun = await set({ op: 'begin', title: 'API Deprecation Survey', survey: skeleton() });
  const slug = begun.slug;
  const card = `.session .builder-card[data-slug="${slug}"]`;
  await page.waitForSelector(`${card}:has-text("API Deprecation Survey")`);
  await page.waitForSelector('.session-head:has-text("claude-code")');
  const missing0 = begun.completeness.totals.missingFields;
  assert.equal(await page.textContent(`${card} .builder-counts`), `0/3 questions complete · ${missing0} required fields missing`);
  assert.equal(await page.textContent(`${card} .builder-rev`), 'rev 0');
  assert.equal(await page.textContent(`${card} .builder-status`), 'building');
  assert.equal(await page.getAttribute(`${card} .builder-bar`, 'aria-valuenow'), '0');

  // patch: progress moves live (a patch keeps the revision).
  const p1 = await set({ op: 'patch', questions: { policy: { prompt: 'Which deprecation policy fits the public API?', header: 'Policy', options: options('policy') } } });
  assert.deepEqual(p1.completeness.totals, { questions: 3, complete: 1, missingFields: 42 });
  await page.waitForSelector(`${card} .builder-counts:text-is("1/3 questions complete · 42 required fields missing")`);
  assert.equal(await page.getAttribute(`${card} .builder-bar`, 'aria-valuenow'), '33');
  assert.equal(await page.textContent(`${card} .builder-rev`), 'rev 0');
  assert.match(await page.textContent(`${card} .builder-file`), /survey-drafts/);
  await page.screenshot({ path: screenshotPath('builder-card-light'), fullPage: true });

  // Collapse: a one-line strip, remembered across a reload.
  await page.click(`${card} .builder-toggle`);
  await page.waitForSelector(`${card}.collapsed`);
  assert.equal(await page.locator(`${card} .builder-body`).count(), 0);
  assert.equal(await page.getAttribute(`${card} .builder-toggle`, 'aria-expanded'), 'false');
  assert.equal(await page.textContent(`${card} .builder-pct`), '33%');
  await page.screenshot({ path: screenshotPath('builder-card-collapsed-light'), fullPage: true });
  await page.reload();
  await page.waitForSelector(`${card}.collapsed`);
  await page.waitForTimeout(300); // the event stream is open again

  // A patch (same revision, same status) keeps the strip, which still follows the progress.
  await set({ op: 'patch', questions: { window: { prompt: 'How long do deprecated endpoints keep working?', options: options('window') } } });
  await page.waitForSelector(`${card}.collapsed .builder-pct:text-is("67%")`);

  // A structure edit bumps the revision: the card re-expands.
  const s1 = await set({ op: 'structure', survey: skeleton() });
  assert.equal(s1.revision, 1);
  await page.waitForSelector(`${card}:not(.collapsed) .builder-rev:text-is("rev 1")`);
  assert.equal(await page.getAttribute(`${card} .builder-toggle`, 'aria-expanded'), 'true');

  // Complete: the missing part goes.
  const done = await set({ op: 'patch', intro: 'Three decisions about retiring API v1. About three minutes.',
    questions: {
      // The structure edit carried the skeleton's own window prompt back in.
      window: { prompt: 'How long do deprecated endpoints keep working?' },
      comms: { prompt: 'How are users told about a deprecation?', options: options('comms') },
    } });
  assert.equal(done.completeness.ready, true, JSON.stringify(done));
  await page.waitForSelector(`${card} .builder-counts:text-is("3/3 questions complete")`);
  assert.equal(await page.getAttribute(`${card} .builder-bar`, 'aria-valuenow'), '100');

  // Launch: the card goes, the ask takes its place in the same group.
  const l = await daemon.api('POST', '/api/drafts/launch', { session, args: { slug } });
  assert.equal(l.status, 201, JSON.stringify(l.body));
  await page.waitForSelector(`.session .ask-row[data-ask-id="${l.body.ask_id}"]:has-text("API Deprecation Survey")`);
  await page.waitForSelector(card, { state: 'detached' });
  assert.equal(await page.locator('.builder-card').count(), 0);
  assert.deepEqual(problems, []);
  await context.close();
});

test('a discarded draft loses its card; an agent title is text, never markup', async () => {
  const { context, page, problems } = await openContext(browser, daemon);
  await page.waitForSelector('.inbox-list .section-title');
  await page.waitForTimeout(300);
  const session = (await daemon.api('POST', '/api/sessions', { client: 'codex', workspace })).body.session.id;
  const title = '<img src=x onerror=alert(1)> Cache policy';
  const r = await daemon.api('POST', '/api/drafts/set', { session, args: { op: 'begin', title, survey: skeleton() } });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  const card = `.builder-card[data-slug="${r.body.slug}"]`;
  await page.waitForSelector(card);
  assert.equal(await page.textContent(`${card} .builder-title`), title);
  assert.equal(await page.locator(`${card} img`).count(), 0);
  const d = await daemon.api('POST', '/api/drafts/set', { session, args: { op: 'discard' } });
  assert.equal(d.status, 200, JSON.stringify(d.body));
  await page.waitForSelector(card, { state: 'detached' });
  assert.deepEqual(problems, []);
  await context.close();
});

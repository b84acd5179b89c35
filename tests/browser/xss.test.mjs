// Agent text is untrusted (platform.md §5): a hostile payload in every agent-text field stays
// inert in the page — no dialog, no script, no request to a foreign host — and shows as text.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startDaemon, launchBrowser, openContext } from './helpers.mjs';

let daemon;
let browser;

before(async () => {
  daemon = await startDaemon();
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await daemon?.stop();
});

/** One payload per field, each a different attack, all marking window.__pwned when they run. */
const P = [
  '<img src=x onerror="window.__pwned=1;alert(1)">',
  '<script>window.__pwned=1;alert(2)</script>',
  '"><svg onload="window.__pwned=1;alert(3)">',
  '<iframe src="https://evil.example/frame"></iframe>',
  '![pixel](https://evil.example/pixel.png)',
  '[click me](javascript:window.__pwned=1)',
  '<a href="https://evil.example/x" onmouseover="window.__pwned=1">hover</a>',
  '<style>@import url(https://evil.example/x.css);</style>',
  '<object data="https://evil.example/x.swf"></object>',
  '<link rel=stylesheet href=https://evil.example/y.css>',
  '<math><mtext><table><mglyph><style><img src=x onerror="window.__pwned=1"></style></mglyph></table></mtext></math>',
  '<base href="https://evil.example/">',
];
const p = (i, label) => `${label} ${P[i % P.length]}`;

const hostileDiagram = 'flowchart TD\n  A["<img src=x onerror=window.__pwned=1>"] --> B["<script>alert(1)</script>"]\n  click A "javascript:alert(1)"\n  click B "https://evil.example/click"\n  C["<a href=https://evil.example>x</a>"] --> A';

function hostileSurvey() {
  const options = (q) => [0, 1, 2, 3, 4].map((i) => ({
    key: String.fromCharCode(97 + i),
    label: p(i, `${q} label`),
    description: p(i + 1, `${q} description`),
    insight: p(i + 2, `${q} insight`),
    sources: [p(i + 3, 'source'), 'https://evil.example/source', 'javascript:window.__pwned=1'],
    diagram: hostileDiagram,
  }));
  return {
    title: p(0, 'Title'),
    intro: p(1, 'Intro'),
    entry: 'q1',
    questions: {
      q1: { header: p(2, 'Header'), prompt: p(3, 'Prompt'), detail: p(4, 'Detail'), options: options('q1'), next: 'q2' },
      q2: { header: p(5, 'Header2'), prompt: p(6, 'Prompt2'), detail: p(7, 'Detail2'), multiSelect: true, options: options('q2') },
    },
    quick: [{
      key: 'a', label: p(8, 'Quick label'), description: p(9, 'Quick description'), insight: p(10, 'Quick insight'),
      sources: ['https://evil.example/q'], diagram: hostileDiagram, answers: { q1: { selected: ['a'] }, q2: { selected: ['b'] } },
    }],
  };
}

async function assertInert(page, problems, what) {
  assert.equal(await page.evaluate(() => window.__pwned), undefined, `${what}: a payload ran`);
  assert.deepEqual(problems, [], `${what}: dialog, error or foreign request`);
  // Nothing the agent wrote became an element the UI does not make itself.
  const bad = await page.evaluate(() => [...document.querySelectorAll(
    'script:not([src^="/assets/"]), iframe, object, embed, img:not(.diagram), style, link:not([href^="/assets/"]), base, math, [onerror], [onload], [onmouseover]',
  )].map((e) => e.outerHTML.slice(0, 80)));
  assert.deepEqual(bad, [], `${what}: foreign elements`);
  const links = await page.evaluate(() => [...document.querySelectorAll('a[href]')].map((a) => a.getAttribute('href')));
  for (const href of links) assert.match(href, /^(\/|https?:|mailto:)/, `${what}: link ${href}`);
}

test('hostile text in every survey field stays inert in the inbox and the wizard', async () => {
  const session = (await daemon.api('POST', '/api/sessions', { client: p(0, 'client'), workspace: p(1, '/ws') })).body.session.id;
  const id = await daemon.createSurvey(hostileSurvey(), session);
  const { context, page, problems } = await openContext(browser, daemon);
  await page.waitForSelector(`.ask-row[data-ask-id="${id}"]`);
  assert.match(await page.textContent(`.ask-row[data-ask-id="${id}"] .ask-title`), /<img src=x onerror=/);
  await assertInert(page, problems, 'inbox');

  await page.click(`.ask-row[data-ask-id="${id}"] .ask-link`);
  await page.waitForSelector('.card.wizard[data-position="intro"]');
  assert.match(await page.textContent('.intro-title'), /Title <img src=x onerror=/);
  // Quick view: open every disclosure.
  await page.click('.seg[data-key="action.quick"]');
  await page.waitForSelector('.card.wizard[data-position="quick"]');
  await page.click('.row[data-key="a"] .tool[aria-controls]');
  await page.click('.row[data-key="a"] .tool[aria-label="Show diagram"]');
  await page.waitForSelector('.panel img.diagram, .panel .diagram-source');
  await assertInert(page, problems, 'quick view');
  await page.click('.seg[data-key="quick.leave"]');
  await page.click('.seg.primary');
  const spec = (await daemon.view(id)).spec;
  for (const q of ['q1', 'q2']) {
    await page.waitForSelector(`.card.wizard[data-position="${q}"]`);
    assert.equal(await page.textContent('.header-chip'), spec.questions[q].header, 'the header is plain text');
    for (const key of ['a', 'b', 'c', 'd', 'e']) {
      await page.click(`.row[data-key="${key}"] .tool[aria-label="Show details"]`);
      await page.waitForSelector(`.row[data-key="${key}"] .panel:not([hidden])`);
      await assertInert(page, problems, `${q} insight ${key}`);
      await page.click(`.row[data-key="${key}"] .tool[aria-label="Show diagram"]`);
      await page.waitForSelector(`.row[data-key="${key}"] .panel img.diagram, .row[data-key="${key}"] .panel .diagram-source`);
      // The label is text: the payload is visible, not parsed.
      assert.match(await page.textContent(`.row[data-key="${key}"] .label-text`), /label /);
    }
    await page.hover('.row[data-key="a"] .row-hit');
    await page.waitForTimeout(100);
    await assertInert(page, problems, `${q} with every panel opened`);
    await page.click('.row[data-key="a"] .row-hit');
    await page.click('.row[data-key="a"] .pencil');
    await page.fill('.row[data-key="a"] .justify-input', '<img src=x onerror="window.__pwned=1">');
    await page.press('.row[data-key="a"] .justify-input', 'Enter');
    await page.fill('.custom-input', '<script>window.__pwned=1</script>');
    await page.click('.seg.primary');
  }
  // The review step shows every prompt, label, reason and typed answer: still inert.
  await page.waitForSelector('dialog[open].recap');
  await assertInert(page, problems, 'the review step');
  await page.click('dialog[open].recap button[value="yes"]');
  await page.waitForSelector('.card.settled');
  await assertInert(page, problems, 'after submit');
  // The diagram SVG the server served holds no script, handler, link or foreign reference.
  const survey = spec;
  const crypto = await import('node:crypto');
  const hash = crypto.createHash('sha256').update(survey.questions.q1.options[0].diagram).digest('hex');
  for (const theme of ['light', 'dark']) {
    const res = await fetch(`${daemon.url}/api/diagrams/${hash}.svg?theme=${theme}&ask=${id}`, { headers: { Authorization: `Bearer ${daemon.token}` } });
    assert.equal(res.status, 200);
    const svg = (await res.text()).toLowerCase();
    for (const needle of ['<script', 'onerror', 'onclick', 'javascript:', 'evil.example', '<a ', 'foreignobject', '<img']) {
      assert.ok(!svg.includes(needle), `${theme} SVG contains ${needle}`);
    }
  }
  await context.close();
});

test('hostile text in every ask_user_question field stays inert', async () => {
  const id = await daemon.createQuestions([
    { id: 'q1', question: p(0, 'Q1'), header: p(1, 'H1').slice(0, 40), detail: p(2, 'D1'),
      options: [{ label: p(3, 'L1'), description: p(4, 'Desc1') }, { label: p(5, 'L2'), description: p(6, 'Desc2') }] },
    { id: 'q2', question: p(7, 'Q2'), multi_select: true,
      options: [{ label: p(8, 'L3') }, { label: p(9, 'L4') }, { label: p(10, 'L5') }] },
  ]);
  const { context, page, problems } = await openContext(browser, daemon);
  await page.goto(`${daemon.url}/a/${id}`);
  await page.waitForSelector('.card.flat');
  await assertInert(page, problems, 'questions card');
  await page.click('.flat-question[data-qid="q1"] .row-hit >> nth=0');
  await page.fill('.flat-question[data-qid="q2"] .custom-input', '<img src=x onerror="window.__pwned=1">');
  await page.click('.seg.primary');
  await page.waitForSelector('.card.settled');
  await assertInert(page, problems, 'questions after submit');
  const result = await daemon.result(id);
  assert.equal(result.answers[1].custom, '<img src=x onerror="window.__pwned=1">');
  await context.close();
});

// askd's MCP App (issue 20): the ask the host's tool result names, drawn by the page's own
// views (wizard, review panel, question card, drift card) inside the host's frame. The
// handshake is MCP Apps 2026-01-26: `ui/initialize` → `ui/notifications/initialized`; the
// ask id comes with `ui/notifications/tool-result`, with askd's signed handle for it
// (`_meta["askd/app"]`), which every askd_app call then carries; light/dark follows the host context
// (`ui/notifications/host-context-changed`); the frame's height goes out as
// `ui/notifications/size-changed`.
import { ask as askApi, grant, request, notify, onNotification, watch } from './api.js';
import { h, icon } from '../js/dom.js';
import { t, setLang, askLanguage, pageLanguage } from '../js/i18n.js';
import '../js/theme.js';
import { installTooltips } from '../js/tooltip.js';
import { Wizard } from '../js/wizard.js';
import { QuestionsCard } from '../js/questions.js';
import { ReviewPanel } from '../js/review.js';
import { DriftCard } from '../js/drift.js';
import DeadlineBar from '../js/deadline.js';

const VIEWS = { survey: Wizard, questions: QuestionsCard, review: ReviewPanel, drift: DriftCard };
// After a failed watch (the host or askd did not answer), the next one waits this long.
const RETRY_MS = 5000;
const app = document.getElementById('app');
let view = null;
let shown = null;

// The page's live stream is the daemon's; an Apps host forwards no server notification into
// the frame, so the app is told by askd_app's watch instead: one call that returns when the
// ask changes (settled, claimed, edited elsewhere) or after at most 25 s, re-issued in a
// loop while the ask is pending. A change makes every view reload (`poll`).
class Live {
  constructor() {
    this.listeners = new Set();
    this.id = null;
  }

  /** Watches ask `id` (a newer call replaces the loop; null stops it). */
  async follow(id) {
    this.id = id;
    let since = null;
    while (this.id === id && id) {
      let r;
      try {
        r = await watch(id, since);
      } catch {
        await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
        continue;
      }
      if (this.id !== id) return;
      if (since && r.changed) for (const fn of [...this.listeners]) fn({ kind: 'poll', data: null });
      since = r.version;
      if (r.state !== 'pending') return;
    }
  }

  subscribe(fn) {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }
}
const live = new Live();
// An ask's deadline (issue 35), above the view: the countdown and what happens then; a
// change the watch reports reads the view again (the deadline moved, the ask expired).
const deadlineEl = h('div', { class: 'deadline-bar', hidden: true });
app.before(deadlineEl);
const deadlineBar = new DeadlineBar(deadlineEl, live, { extend: false });
live.subscribe(({ kind }) => {
  const id = shown;
  if (kind !== 'poll' || !id || !view) return;
  askApi.view(id).then((v) => {
    if (id === shown && view) deadlineBar.show(v);
  }, () => {});
});

function applyContext(ctx) {
  if (!ctx) return;
  if (ctx.theme === 'light' || ctx.theme === 'dark') {
    document.documentElement.dataset.theme = ctx.theme;
    window.dispatchEvent(new Event('askd-theme'));
  }
}

function message(text) {
  app.replaceChildren(h('section', { class: 'card settled' }, h('div', { class: 'settled-body' }, h('p', { class: 'prompt' }, text))));
}

function crash(e) {
  const detail = (e && (e.stack || e.message)) || String(e);
  app.replaceChildren(h('section', { class: 'card crash', role: 'alert' },
    h('div', { class: 'settled-body' }, h('h1', { class: 'prompt' }, t('crash.title')),
      h('pre', { class: 'crash-detail' }, detail.split('\n').slice(0, 6).join('\n')))));
}

// Put away (the views' navigate('/')): on the page it keeps the draft and goes back to the
// inbox; the frame has no inbox, so the draft is kept (the view saved it through askd_app)
// and the frame folds to one line that picks the ask up again. The ask stays pending.
function putAway() {
  const id = shown;
  if (view && view.unmount) view.unmount();
  view = null;
  deadlineBar.hide();
  live.follow(null);
  delete document.body.dataset.askdApp;
  app.replaceChildren(h('section', { class: 'card app-put-away', role: 'status' },
    h('div', { class: 'app-put-away-body' },
      icon('down'),
      h('div', { class: 'app-put-away-text' },
        h('p', { class: 'app-put-away-title' }, t('app.putAway.title')),
        h('p', { class: 'muted' }, t('app.putAway.body'))),
      h('button', { type: 'button', class: 'btn primary', onclick: () => { shown = null; show(id); } }, t('app.putAway.resume')))));
}

async function show(id) {
  if (!id || id === shown) return;
  shown = id;
  if (view && view.unmount) view.unmount();
  view = null;
  deadlineBar.hide();
  live.follow(id);
  try {
    const data = await askApi.view(id);
    await setLang(pageLanguage(data.kind === 'review' && data.review ? data.review.lang : askLanguage(data)));
    const View = VIEWS[data.kind];
    if (!View) {
      message(t('error.unsupported'));
      return;
    }
    document.title = `${t(`kind.${data.kind}`)} · askd`;
    view = new View(app, data, { live, navigate: putAway, onCrash: crash });
    await view.mount();
    deadlineBar.show(data);
    document.body.dataset.askdApp = data.kind;
  } catch (e) {
    crash(e);
  }
}

/** The ask a tool result names: its `ask_id` (pending handle or result), or its error's. */
function askOf(result) {
  const sc = result && result.structuredContent;
  if (!sc) return null;
  return sc.ask_id || (sc.error && sc.error.ask_id) || null;
}

/** The handle askd signed for the result's ask (`_meta["askd/app"]`), if it gave one. */
function handleOf(result, id) {
  const app = result && result._meta && result._meta['askd/app'];
  return app && app.ask_id === id && typeof app.handle === 'string' ? app.handle : null;
}

onNotification('ui/notifications/tool-result', (params) => {
  const id = askOf(params);
  grant(id, handleOf(params, id));
  show(id);
});
onNotification('ui/notifications/host-context-changed', applyContext);
onNotification('ui/notifications/tool-input', () => {});

let lastHeight = 0;
function sendSize() {
  const height = Math.ceil(document.documentElement.getBoundingClientRect().height);
  if (height === lastHeight) return;
  lastHeight = height;
  notify('ui/notifications/size-changed', { width: Math.ceil(window.innerWidth), height });
}

async function start() {
  installTooltips();
  await setLang(/^zh/i.test(navigator.language || '') ? 'zh-CN' : 'en');
  message('…');
  const init = await request('ui/initialize', {
    appInfo: { name: 'askd', version: '1' },
    appCapabilities: {},
    protocolVersion: '2026-01-26',
  });
  applyContext(init && init.hostContext);
  notify('ui/notifications/initialized', {});
  new ResizeObserver(sendSize).observe(document.body);
  sendSize();
}

start().catch(crash);

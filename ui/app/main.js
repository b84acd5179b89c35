// askd's MCP App (issue 20): the ask the host's tool result names, drawn by the page's own
// views (wizard, review panel, question card, drift card) inside the host's frame. The
// handshake is MCP Apps 2026-01-26: `ui/initialize` → `ui/notifications/initialized`; the
// ask id comes with `ui/notifications/tool-result`, with askd's signed handle for it
// (`_meta["askd/app"]`), which every askd_app call then carries; light/dark follows the host context
// (`ui/notifications/host-context-changed`); the frame's height goes out as
// `ui/notifications/size-changed`.
import { ask as askApi, grant, request, notify, onNotification } from './api.js';
import { h } from '../js/dom.js';
import { t, setLang, askLanguage, pageLanguage } from '../js/i18n.js';
import '../js/theme.js';
import { installTooltips } from '../js/tooltip.js';
import { Wizard } from '../js/wizard.js';
import { QuestionsCard } from '../js/questions.js';
import { ReviewPanel } from '../js/review.js';
import { DriftCard } from '../js/drift.js';

const VIEWS = { survey: Wizard, questions: QuestionsCard, review: ReviewPanel, drift: DriftCard };
const POLL_MS = 5000;
const app = document.getElementById('app');
let view = null;
let shown = null;

// The page's live stream is the daemon's; here the views are told to reload every few
// seconds (`poll`), so an ask settled elsewhere (inbox, terminal) shows settled.
class Live {
  constructor() {
    this.listeners = new Set();
    setInterval(() => {
      for (const fn of [...this.listeners]) fn({ kind: 'poll', data: null });
    }, POLL_MS);
  }

  subscribe(fn) {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }
}
const live = new Live();

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

async function show(id) {
  if (!id || id === shown) return;
  shown = id;
  if (view && view.unmount) view.unmount();
  view = null;
  try {
    const data = await askApi.view(id);
    await setLang(pageLanguage(data.kind === 'review' && data.review ? data.review.lang : askLanguage(data)));
    const View = VIEWS[data.kind];
    if (!View) {
      message(t('error.unsupported'));
      return;
    }
    document.title = `${t(`kind.${data.kind}`)} · askd`;
    view = new View(app, data, { live, navigate: () => {}, onCrash: crash });
    await view.mount();
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

// askd's web UI: one page for the inbox (`/`) and each ask (`/a/{id}`), plain ES modules, no
// build step. Links marked data-nav switch views without reloading; the event stream is
// shared by both views. A render failure shows a crash card; the rest keeps working.
import { ask as askApi, onReachability, me, onSignedOut, signedOutCode } from './api.js';
import { h, icon, revealText, plainText } from './dom.js';
import { setDraftOwner } from './autosave.js';
import { t, setLang, askLanguage, userLanguage, pageLanguage } from './i18n.js';
import { Live } from './events.js';
import { SnoozeBar } from './snooze.js';
import './theme.js';
import { installTooltips, hideTooltip } from './tooltip.js';

const app = document.getElementById('app');
const live = new Live();
const banner = h('div', { class: 'live-banner', role: 'status', hidden: true });
document.body.prepend(banner);
// desk-b: one banner for both troubles — the daemon not answering at all (reconnecting, and
// the calls that wait for it), or only the live stream interrupted (polling).
let reach = { online: true, queued: 0 };
let streamOk = true;
function showBanner() {
  if (signedOutCode()) {
    banner.hidden = true;
    document.body.classList.remove('offline');
    return;
  }
  const down = !reach.online;
  banner.classList.toggle('reconnecting', down);
  document.body.classList.toggle('offline', down);
  banner.textContent = down
    ? [t('live.reconnecting'), reach.queued ? t('live.queued', { n: reach.queued }) : t('live.willRefresh')].join(' ')
    : t('live.offline');
  banner.hidden = !down && streamOk;
}
live.onHealth = (ok) => {
  streamOk = ok;
  showBanner();
};
onReachability((r) => {
  reach = r;
  showBanner();
});
// A paired phone may answer only: the page hides the links it may not follow (CSS keys on
// html[data-who="device"]).
me().then((who) => {
  setDraftOwner(who);
  if (!signedOutCode()) document.documentElement.dataset.who = who.kind;
});
let view = null;
// An ask's link to its session page, outside the view's root (views re-render it).
const sessionLink = h('nav', { class: 'ask-session-link', hidden: true });
app.after(sessionLink);
// Bars above an ask's view (issue 35; the views re-render only their own root), each
// module loaded only for an ask that needs it: a deadline (or had one), approvals.
function lazyBar(cls, file, needs) {
  const el = h('div', { class: cls, hidden: true });
  app.before(el);
  return { on: null, hide() { this.on?.hide(); },
    async show(d, current) {
      if (!needs(d) && !this.on) return;
      this.on ||= new (await import(file)).default(el, live);
      if (current()) await this.on.show(d);
    } };
}
const deadlineBar = lazyBar('deadline-bar', './deadline.js', (d) => d.deadline || d.outcome === 'expired' || d.escalated?.length);
const approvalsBar = lazyBar('approvals-bar', './approvals.js', (d) => d.approvals);
// "Ask me later" (issue 35), under the deadline.
const snoozeEl = h('div', { class: 'snooze-bar', hidden: true });
app.before(snoozeEl);
const snoozeBar = new SnoozeBar(snoozeEl, live);
let routes = 0; // a route that awaited while the human moved on does not mount

function dropView() {
  if (view && view.unmount) {
    try {
      view.unmount();
    } catch {
      // Already broken; the card replacing it is what matters.
    }
  }
  view = null;
  deadlineBar.hide();
  approvalsBar.hide();
}

function crash(error, retry) {
  dropView();
  const message = (error && (error.stack || error.message)) || String(error);
  app.replaceChildren(h('section', { class: 'card crash', role: 'alert' },
    h('div', { class: 'settled-body' },
      h('div', { class: 'settled-icon' }, icon('close')),
      h('h1', { class: 'prompt' }, t('crash.title')),
      h('p', { class: 'muted' }, t('crash.body')),
      h('pre', { class: 'crash-detail' }, message.split('\n').slice(0, 6).join('\n')),
      h('div', { class: 'crash-actions' },
        h('button', { type: 'button', class: 'btn primary', onclick: retry }, t('crash.retry')),
        h('a', { href: '/', class: 'btn', 'data-nav': '' }, t('back.inbox'))))));
}

// desk-f: this browser was signed out while a page was open (a revoked phone, a removed
// login, an expired sign-in): the asks go, the stream stays closed, and a card says what
// happened and what to do. Every later route shows the same card. Its strings live here, in
// both languages, and not in the tables: once signed out, the daemon refuses this browser
// the UI's files too (platform §5: a wrong token gets 401 on the assets), so the table of a
// language the page has not loaded yet cannot be fetched any more.
const SIGNED_OUT = { 'device-revoked': 'device', 'unknown-device': 'device', 'member-revoked': 'member', 'unknown-member': 'member' };
const SIGNED_OUT_TEXT = {
  en: {
    'device.title': 'This phone is not paired with askd any more',
    'device.what': 'It was revoked in askd’s Settings (or askd no longer knows it), so it cannot see or answer asks.',
    'device.todo': 'To use it again: on the computer running askd, run “askd pair” (or open Settings → Pair a phone) and open the new link on this phone.',
    'member.title': 'This login no longer works',
    'member.what': 'Whoever runs askd removed it (or it belongs to another install), so this browser cannot see or answer asks.',
    'member.todo': 'Ask whoever runs askd for a new login link (askd members add NAME) and open it in this browser.',
    'expired.title': 'You are signed out of askd',
    'expired.what': 'This browser’s sign-in ended (its cookie expired or was cleared, or askd’s token changed), so the asks are hidden.',
    'expired.todo': 'On the computer running askd, open the link askd printed (…/?token=…) again. A team member opens their login link; a phone is paired again with “askd pair”.',
    'reload': 'Reload',
  },
  'zh-CN': {
    'device.title': '这部手机已不再与 askd 配对',
    'device.what': '它已在 askd 的设置中被撤销（或 askd 已不认识它），因此无法查看或回答请求。',
    'device.todo': '要重新使用：在运行 askd 的电脑上执行“askd pair”（或打开 设置 → 配对手机），然后在这部手机上打开新链接。',
    'member.title': '此登录已失效',
    'member.what': '运行 askd 的人已将其移除（或它属于另一个安装），因此此浏览器无法查看或回答请求。',
    'member.todo': '请向运行 askd 的人索取新的登录链接（askd members add 名字），并在此浏览器中打开。',
    'expired.title': '你已退出 askd',
    'expired.what': '此浏览器的登录已结束（cookie 已过期或被清除，或 askd 的令牌已更换），因此请求已隐藏。',
    'expired.todo': '在运行 askd 的电脑上重新打开 askd 打印的链接（…/?token=…）。团队成员打开自己的登录链接；手机用“askd pair”重新配对。',
    'reload': '重新加载',
  },
};

async function showSignedOut(code) {
  hideTooltip();
  dropView();
  const gen = ++routes;
  sessionLink.hidden = true;
  deadlineBar.hide();
  approvalsBar.hide();
  snoozeBar.hide();
  showBanner();
  document.documentElement.dataset.who = 'signed-out';
  const want = userLanguage();
  try {
    await setLang(want);
  } catch {
    // The table could not be fetched (see above): the card has its own strings.
  }
  if (gen !== routes) return;
  const lang = SIGNED_OUT_TEXT[want] ? want : 'en';
  const s = (key) => SIGNED_OUT_TEXT[lang][key];
  document.documentElement.lang = lang;
  const kind = SIGNED_OUT[code] || 'expired';
  document.title = `${s(`${kind}.title`)} · askd`;
  app.replaceChildren(h('section', { class: 'card settled signed-out', role: 'alert', 'data-signed-out': kind },
    h('div', { class: 'settled-body' },
      h('div', { class: 'settled-icon' }, icon(kind === 'device' ? 'phone' : 'lock')),
      h('h1', { class: 'prompt' }, s(`${kind}.title`)),
      h('p', { class: 'muted' }, s(`${kind}.what`)),
      h('p', { class: 'signed-out-todo' }, s(`${kind}.todo`)),
      h('button', { type: 'button', class: 'btn primary', onclick: () => location.reload() }, s('reload')))));
}
onSignedOut(showSignedOut);

async function route() {
  if (signedOutCode()) {
    showSignedOut(signedOutCode());
    return;
  }
  hideTooltip();
  dropView();
  const gen = ++routes;
  sessionLink.hidden = true;
  const m = /^\/a\/([^/]+)\/?$/.exec(location.pathname);
  const sm = /^\/sessions\/([^/]+)\/?$/.exec(location.pathname);
  const ctx = { live, navigate, onCrash: (e) => crash(e, route) };
  try {
    if (/^\/settings\/?$/.test(location.pathname)) {
      await setLang(userLanguage());
      view = new (await import('./settings.js')).SettingsPage(app, ctx);
      await view.mount();
      return;
    }
    if (/^\/records\/?$/.test(location.pathname)) {
      await setLang(userLanguage());
      const { RecordsPage } = await import('./records.js');
      if (gen !== routes) return;
      view = new RecordsPage(app, ctx);
      await view.mount();
      return;
    }
    if (sm) {
      await setLang(userLanguage());
      const { SessionPage } = await import('./session.js');
      if (gen !== routes) return;
      view = new SessionPage(app, decodeURIComponent(sm[1]), ctx);
      await view.mount();
      return;
    }
    if (!m) {
      await setLang(userLanguage());
      document.title = 'askd';
      // The inbox (and its builder cards) loads only on its own page, like each kind's module.
      const [{ Inbox }] = await Promise.all([import('./inbox.js'), me().then(setDraftOwner)]);
      if (gen !== routes) return;
      view = new Inbox(app, ctx);
      await view.mount();
      return;
    }
    const id = decodeURIComponent(m[1]);
    let data;
    try {
      // Who is signed in is known before a view restores this browser's copy of a draft.
      [data] = await Promise.all([askApi.view(id), me().then(setDraftOwner)]);
    } catch (e) {
      if (gen !== routes) return;
      await setLang(userLanguage());
      if (gen !== routes) return;
      app.replaceChildren(h('section', { class: 'card settled' }, h('div', { class: 'settled-body' },
        h('h1', { class: 'prompt' }, e.status === 404 ? t('error.notFound') : t('error.network')),
        h('a', { href: '/', class: 'btn', 'data-nav': '' }, t('back.inbox')))));
      return;
    }
    if (gen !== routes) return;
    await setLang(pageLanguage(data.kind === 'review' && data.review ? data.review.lang : askLanguage(data)));
    if (gen !== routes) return;
    if (data.session) {
      sessionLink.replaceChildren(h('a', { href: `/sessions/${encodeURIComponent(data.session)}`, 'data-nav': '', class: 'btn ghost small' }, t('session.link')));
      sessionLink.hidden = false;
    }
    document.title = `${revealText(plainText(data.title || t(`kind.${data.kind}`)))} · askd`;
    // Each kind's module loads only on its own page, so the inbox stays light.
    const kinds = {
      survey: async () => (await import('./wizard.js')).Wizard,
      questions: async () => (await import('./questions.js')).QuestionsCard,
      review: async () => (await import('./review.js')).ReviewPanel,
      drift: async () => (await import('./drift.js')).DriftCard,
    };
    if (Object.hasOwn(kinds, data.kind)) {
      const View = await kinds[data.kind]();
      if (gen !== routes) return;
      view = new View(app, data, ctx);
    } else {
      app.replaceChildren(h('section', { class: 'card settled' }, h('div', { class: 'settled-body' },
        h('h1', { class: 'prompt' }, t('error.unsupported')),
        h('a', { href: '/', class: 'btn', 'data-nav': '' }, t('back.inbox')))));
      return;
    }
    await view.mount();
    if (gen === routes) {
      snoozeBar.show(data);
      const shown = gen;
      await deadlineBar.show(data, () => shown === routes);
      await approvalsBar.show(data, () => shown === routes);
    }
  } catch (e) {
    crash(e, route);
  }
}

function navigate(path) {
  if (path !== location.pathname) history.pushState(null, '', path);
  route();
}

document.addEventListener('click', (e) => {
  const a = e.target.closest && e.target.closest('a[data-nav]');
  if (!a || e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
  e.preventDefault();
  navigate(a.getAttribute('href'));
});
window.addEventListener('popstate', route);
installTooltips();
route();

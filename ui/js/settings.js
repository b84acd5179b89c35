// The Settings page (`/settings`, review.md §7.3, platform.md §7): the page language (kept in
// this browser) and the "Batch review" keys maxItems, virtualThreshold and maxBodyBytes (kept
// in askd's store; the config file is never written). Each key shows its effective value, the
// layer it comes from and its hard range; Save sends only the keys changed here, Reset removes
// a saved value so the configuration applies again. Values take effect without a restart.
// Below them: Notifications (notify-settings.js: the [notify] keys and webhooks, saved with
// PUT /api/notify and applied at once, with each sink's deliveries and last error) and Devices (paired phones with
// their last use and Revoke; "Pair a phone" shows a one-time link and its QR code, an SVG the
// daemon renders, as an <img>).
import { api } from './api.js';
import { h, icon, nextId } from './dom.js';
import { t, setLang, saveUserLanguage, languageChoice, userLanguage, addStrings } from './i18n.js';
import notifyEn from '../i18n/notify-en.js';
import notifyZh from '../i18n/notify-zh-CN.js';
import { THEMES, savedTheme, saveTheme } from './theme.js';
import { NotifyForm, when } from './notify-settings.js';

addStrings(notifyEn, notifyZh);

// desk-b: the ask's language applies only under "Follow the ask" (the default).
const LANGS = [['ask', null], ['system', null], ['en', 'English'], ['zh-CN', '简体中文']];

function mib(n) {
  const v = n / (1024 * 1024);
  return Number.isInteger(v) ? String(v) : v.toFixed(2).replace(/\.?0+$/, '');
}

/**
 * A pairing link that names a loopback address (askd listens on 127.0.0.1 by default and no
 * publicUrl is set) cannot be opened from a phone: say so, and what to do (as `askd pair` does).
 */
function loopbackWarning(link) {
  let url;
  try {
    url = new URL(link);
  } catch {
    return null;
  }
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (!(host === 'localhost' || host.endsWith('.localhost') || host === '::1' || /^127\./.test(host))) return null;
  const port = url.port || (url.protocol === 'https:' ? '443' : '80');
  return h('div', { class: 'st-pair-warning', role: 'alert' }, icon('info'),
    h('div', { class: 'st-pair-warning-body' },
      h('p', { class: 'st-pair-warning-title' }, t('notify.pairLoopback', { host })),
      h('p', null, t('notify.pairLoopbackFix')),
      // Each word stays whole (a line breaks between them, never after a flag's dashes).
      h('p', null, h('code', { class: 'st-cmd' }, `askd serve --listen 0.0.0.0:${port} --allowed-hosts <name>.local --public-url http://<name>.local:${port}`
        .split(' ').flatMap((w, i) => [i ? ' ' : null, h('span', null, w)])))));
}

export class SettingsPage {
  constructor(root, ctx) {
    this.root = root;
    this.ctx = ctx;
    this.keys = [];
    this.fields = new Map();
    this.notifyForm = new NotifyForm((v) => {
      this.notify = v;
      this.render();
      this.notifyForm.status.textContent = t('notify.saved');
    });
  }

  async mount() {
    document.title = `${t('settings.title')} · askd`;
    this.status = h('p', { class: 'st-status', role: 'status', 'aria-live': 'polite' });
    this.alert = h('div', { class: 'alert', role: 'alert' });
    this.unsubscribe = this.ctx.live.subscribe(({ kind }) => {
      if ((kind === 'settings.updated' || kind === 'poll') && !this.dirty()) this.load();
    });
    await this.load();
  }

  unmount() {
    if (this.unsubscribe) this.unsubscribe();
  }

  async load() {
    try {
      const [v, notify, devices] = await Promise.all([
        api('GET', '/api/settings'),
        api('GET', '/api/notify').catch(() => null),
        api('GET', '/api/devices').catch(() => null),
      ]);
      this.keys = v.settings || [];
      this.elicitation = v.elicitation || null;
      this.notify = notify;
      this.devices = (devices && devices.devices) || [];
      this.render();
    } catch (e) {
      this.render();
      this.alert.textContent = e.status === 0 ? t('error.network') : e.message;
    }
  }

  /** Whether any input differs from the value in effect. */
  dirty() {
    return this.keys.some((k) => {
      const f = this.fields.get(k.key);
      return f && f.input.value.trim() !== String(k.value);
    }) || (this.notify && this.notifyForm.dirty());
  }

  render() {
    this.fields = new Map();
    const langId = nextId('st');
    const select = h('select', { id: langId, class: 'st-lang' },
      LANGS.map(([v, label]) => {
        const o = h('option', { value: v }, label || t(`settings.lang.${v}`));
        if (v === languageChoice()) o.selected = true;
        return o;
      }));
    select.addEventListener('change', () => {
      saveUserLanguage(select.value);
      setLang(userLanguage()).then(() => {
        document.title = `${t('settings.title')} · askd`;
        this.render();
      });
    });
    const themeId = nextId('st');
    const themeSelect = h('select', { id: themeId, class: 'st-theme' },
      THEMES.map((v) => {
        const o = h('option', { value: v }, t(`settings.theme.${v}`));
        if (v === savedTheme()) o.selected = true;
        return o;
      }));
    themeSelect.addEventListener('change', () => saveTheme(themeSelect.value));
    const rows = this.keys.map((k) => this.row(k));
    this.saveBtn = h('button', { type: 'submit', class: 'btn primary st-save' }, t('settings.save'));
    const form = h('form', { class: 'st-form', novalidate: true },
      h('h2', { class: 'st-section' }, t('settings.review')),
      h('p', { class: 'muted st-intro' }, t('settings.reviewIntro')),
      rows,
      h('div', { class: 'st-actions' }, this.status, h('span', { class: 'rv-spacer' }), this.saveBtn));
    form.addEventListener('submit', (e) => {
      e.preventDefault();
      this.save();
    });
    this.root.replaceChildren(h('section', { class: 'card st', 'aria-labelledby': 'st-title' },
      h('header', { class: 'card-head' },
        h('div', { class: 'head-main' },
          h('div', { class: 'eyebrow' }, 'askd'),
          h('h1', { class: 'card-title', id: 'st-title' }, t('settings.title'))),
        h('div', { class: 'head-tools' },
          h('a', { href: '/', class: 'btn ghost', 'data-nav': '' }, icon('back'), t('back.inbox')))),
      h('div', { class: 'st-body' },
        h('div', { class: 'st-row st-first' },
          h('label', { for: langId, class: 'st-label' }, t('settings.language')),
          select,
          h('p', { class: 'muted st-hint' }, t('settings.languageHint'))),
        h('div', { class: 'st-row' },
          h('label', { for: themeId, class: 'st-label' }, t('settings.theme')),
          themeSelect,
          h('p', { class: 'muted st-hint' }, t('settings.themeHint'))),
        form,
        this.elicitationRow(),
        this.notifySection(),
        this.devicesSection()),
      this.alert));
  }

  // `elicitation` (clients.md §3): saved on change; every adapter reads it before each ask.
  elicitationRow() {
    const e = this.elicitation;
    if (!e) return null;
    const id = nextId('st');
    let from;
    if (e.layer === 'saved') from = t('settings.layer.saved', { config: e.config });
    else if (e.layer === 'config') from = t('settings.layer.config', { source: (e.source && e.source.source) || 'askd.toml' });
    else from = t('settings.layer.default');
    const select = h('select', { id, class: 'st-elicitation-select', name: 'elicitation' },
      ['auto', 'form', 'url', 'off'].map((v) => {
        const o = h('option', { value: v }, t(`settings.elicitation.${v}`));
        if (v === e.value) o.selected = true;
        return o;
      }));
    select.addEventListener('change', () => this.send({ elicitation: select.value }));
    const reset = e.layer === 'saved'
      ? h('button', { type: 'button', class: 'btn small st-reset st-elicitation-reset', onclick: () => this.send({ elicitation: null }) }, t('settings.reset'))
      : null;
    return h('div', { class: 'st-row st-elicitation', 'data-key': 'elicitation' },
      h('label', { for: id, class: 'st-label' }, t('settings.elicitation'), ' ', h('code', null, 'elicitation')),
      h('div', { class: 'st-control' }, select, reset),
      h('p', { class: 'muted st-hint' }, t('settings.elicitationHint')),
      h('p', { class: 'muted st-meta' }, h('span', { class: `st-layer layer-${e.layer} st-elicitation-layer` }, from)));
  }

  notifySection() {
    return this.notify ? this.notifyForm.render(this.notify) : null;
  }

  devicesSection() {
    const list = this.devices.map((d) => h('li', { class: 'st-device', 'data-device': d.id },
      h('strong', null, d.name), ' ', h('span', { class: 'muted' }, t('notify.deviceUsed', { at: when(d.lastUsedAt), created: when(d.createdAt) })), ' ',
      h('button', { type: 'button', class: 'btn small st-revoke', onclick: () => this.revoke(d.id) }, t('notify.revoke'))));
    this.pairBox = h('div', { class: 'st-pair', 'aria-live': 'polite' });
    return h('section', { class: 'st-devices', 'aria-labelledby': 'st-devices-title' },
      h('h2', { class: 'st-section', id: 'st-devices-title' }, t('notify.devices')),
      h('p', { class: 'muted st-intro' }, t('notify.devicesIntro')),
      list.length ? h('ul', { class: 'plain-list st-device-list' }, list) : h('p', { class: 'muted' }, t('notify.noDevices')),
      h('button', { type: 'button', class: 'btn st-pair-btn', onclick: () => this.pair() }, t('notify.pair')),
      this.pairBox);
  }

  async pair() {
    try {
      const p = await api('POST', '/api/pair', {});
      this.pairBox.replaceChildren(
        loopbackWarning(p.url),
        h('img', { class: 'st-qr', src: p.qr, alt: t('notify.qrAlt'), width: '240', height: '240' }),
        h('p', null, t('notify.pairHint', { minutes: Math.round(p.expiresInSeconds / 60) })),
        h('p', null, h('code', { class: 'st-pair-url' }, p.url)));
    } catch (e) {
      this.alert.textContent = e.status === 0 ? t('error.network') : e.message;
    }
  }

  async revoke(id) {
    try {
      await api('DELETE', `/api/devices/${encodeURIComponent(id)}`);
      await this.load();
      this.status.textContent = t('notify.revoked');
    } catch (e) {
      this.alert.textContent = e.status === 0 ? t('error.network') : e.message;
    }
  }

  row(k) {
    const id = nextId('st');
    const errId = nextId('st');
    const input = h('input', {
      id, type: 'number', inputmode: 'numeric', class: 'st-input', name: k.key, 'data-key': k.key,
      min: String(k.min), max: String(k.max), step: '1', value: String(k.value), 'aria-describedby': errId,
    });
    const error = h('p', { class: 'st-error', id: errId, role: 'alert' });
    const human = h('span', { class: 'muted st-human' });
    const refreshHuman = () => {
      const n = Number(input.value);
      human.textContent = k.unit === 'bytes' && Number.isFinite(n) && n > 0 ? `= ${t('settings.mib', { n: mib(n) })}` : '';
    };
    input.addEventListener('input', () => {
      error.textContent = '';
      input.removeAttribute('aria-invalid');
      refreshHuman();
    });
    refreshHuman();
    let layer;
    if (k.layer === 'saved') layer = t('settings.layer.saved', { config: k.config });
    else if (k.layer === 'config') layer = t('settings.layer.config', { source: (k.source && k.source.source) || 'askd.toml' });
    else layer = t('settings.layer.default');
    const reset = k.layer === 'saved'
      ? h('button', { type: 'button', class: 'btn small st-reset', onclick: () => this.send({ [k.key]: null }) }, t('settings.reset'))
      : null;
    this.fields.set(k.key, { input, error, def: k });
    return h('div', { class: 'st-row', 'data-key': k.key },
      h('label', { for: id, class: 'st-label' }, t(`settings.${k.key}`), ' ', h('code', null, k.key)),
      h('div', { class: 'st-control' }, input, human, reset),
      h('p', { class: 'muted st-hint' }, t(`settings.${k.key}.hint`)),
      h('p', { class: 'muted st-meta' },
        h('span', { class: 'st-range' }, t('settings.range', { default: k.default, min: k.min, max: k.max })),
        ' · ',
        h('span', { class: `st-layer layer-${k.layer}` }, layer)),
      error);
  }

  async save() {
    const body = {};
    let bad = false;
    for (const k of this.keys) {
      const f = this.fields.get(k.key);
      const raw = f.input.value.trim();
      if (raw === String(k.value)) continue;
      const n = Number(raw);
      if (raw === '' || !Number.isInteger(n) || n < k.min || n > k.max) {
        f.error.textContent = t('settings.invalid', { key: k.key, min: k.min, max: k.max });
        f.input.setAttribute('aria-invalid', 'true');
        if (!bad) f.input.focus();
        bad = true;
        continue;
      }
      body[k.key] = n;
    }
    if (bad) return;
    if (Object.keys(body).length === 0) {
      this.status.textContent = t('settings.unchanged');
      return;
    }
    await this.send(body);
  }

  async send(body) {
    this.alert.textContent = '';
    this.saveBtn.disabled = true;
    try {
      const v = await api('PUT', '/api/settings', body);
      this.keys = v.settings || [];
      this.elicitation = v.elicitation || this.elicitation;
      this.render();
      this.status.textContent = t('elicitation' in body ? 'settings.elicitation.saved' : 'settings.saved');
    } catch (e) {
      this.saveBtn.disabled = false;
      const errors = (e.body && e.body.errors) || [];
      let shown = false;
      for (const p of errors) {
        const f = this.fields.get(p.path);
        if (f) {
          f.error.textContent = p.message;
          f.input.setAttribute('aria-invalid', 'true');
          shown = true;
        }
      }
      if (!shown) this.alert.textContent = e.status === 0 ? t('error.network') : e.message;
    }
  }
}

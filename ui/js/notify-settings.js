// The Settings page's Notifications section: the [notify] keys (first reminder after, then
// every, quiet hours, desktop) and the webhooks, saved with PUT /api/notify over the
// configuration and applied by the running daemon at once; each key shows the layer it comes
// from and a saved one can be reset. Webhook URLs may carry a secret: the daemon never sends
// one back, so a kept webhook is listed by name, format and host, and sent back without a URL
// (the daemon keeps its URL); only a webhook added here is typed in full. Below: each sink's
// deliveries and last error, and where the links point (publicUrl, config only).
import { api } from './api.js';
import { h, nextId } from './dom.js';
import { t, lang } from './i18n.js';

const FORMATS = ['json', 'ntfy', 'slack'];
const TEXT_KEYS = ['after', 'remindEvery', 'quietHours'];

/** A stored time in the page's language. */
export function when(iso) {
  const d = iso ? new Date(iso) : null;
  return d && !Number.isNaN(d.getTime()) ? d.toLocaleString(lang()) : (iso || '');
}

export class NotifyForm {
  /** `onSaved(view)` gets the daemon's answer after a save or a reset. */
  constructor(onSaved) {
    this.onSaved = onSaved;
    this.fields = new Map();
    this.hooks = [];
    this.view = null;
    // Kept across renders: a re-read after a save (the event stream) keeps "Saved".
    this.alert = h('p', { class: 'st-error st-notify-error', role: 'alert' });
    this.status = h('p', { class: 'st-status', role: 'status', 'aria-live': 'polite' });
  }

  setting(key) {
    return ((this.view && this.view.settings) || []).find((s) => s.key === key);
  }

  /** The webhook list as saved: every kept entry by name and format, every new one with url. */
  hookBody() {
    return this.hooks.filter((x) => !x.removed).map((x) => {
      const entry = { name: x.name.value.trim(), format: x.format.value };
      if (x.url) entry.url = x.url.value.trim();
      return entry;
    });
  }

  hooksChanged() {
    const kept = ((this.view && this.view.webhooks) || []).map((w) => ({ name: w.name, format: w.format }));
    return JSON.stringify(this.hookBody()) !== JSON.stringify(kept);
  }

  /** The members that differ from the values in effect. */
  changes() {
    const body = {};
    for (const key of TEXT_KEYS) {
      const f = this.fields.get(key);
      const s = this.setting(key);
      if (!f || !s) continue;
      let v = f.input.value.trim();
      if (key === 'quietHours' && v === '') v = 'off';
      if (v !== String(s.value)) body[key] = v;
    }
    const d = this.fields.get('desktop');
    const ds = this.setting('desktop');
    if (d && ds && d.input.checked !== ds.value) body.desktop = d.input.checked;
    if (this.hooksChanged()) body.webhook = this.hookBody();
    return body;
  }

  dirty() {
    return Object.keys(this.changes()).length > 0;
  }

  layerLine(s) {
    if (!s) return null;
    let text;
    if (s.layer === 'saved') {
      const config = Array.isArray(s.config) ? t('notify.hooksCount', { n: s.config.length }) : String(s.config);
      text = t('settings.layer.saved', { config });
    } else if (s.layer === 'config') text = t('settings.layer.config', { source: (s.source && s.source.source) || 'askd.toml' });
    else text = t('settings.layer.default');
    const reset = s.layer === 'saved'
      ? h('button', { type: 'button', class: 'btn small st-reset', 'data-reset': s.key, onclick: () => this.send({ [s.key]: null }) }, t('settings.reset'))
      : null;
    return h('p', { class: 'muted st-meta' }, h('span', { class: `st-layer layer-${s.layer}` }, text), reset ? ' ' : null, reset);
  }

  textRow(key, placeholder) {
    const s = this.setting(key);
    if (!s) return null;
    const id = nextId('st');
    const errId = nextId('st');
    const value = key === 'quietHours' && s.value === 'off' ? '' : String(s.value);
    const input = h('input', {
      id, type: 'text', class: 'st-input st-notify-input', name: key, 'data-key': key, value,
      placeholder, autocomplete: 'off', spellcheck: 'false', 'aria-describedby': errId,
    });
    const error = h('p', { class: 'st-error', id: errId, role: 'alert' });
    input.addEventListener('input', () => {
      error.textContent = '';
      input.removeAttribute('aria-invalid');
    });
    this.fields.set(key, { input, error });
    return h('div', { class: 'st-row', 'data-key': key },
      h('label', { for: id, class: 'st-label' }, t(`notify.${key}`), ' ', h('code', null, key)),
      h('div', { class: 'st-control' }, input),
      h('p', { class: 'muted st-hint' }, t(`notify.${key}.hint`)),
      this.layerLine(s),
      error);
  }

  desktopRow() {
    const s = this.setting('desktop');
    if (!s) return null;
    const id = nextId('st');
    const errId = nextId('st');
    const input = h('input', { id, type: 'checkbox', name: 'desktop', 'data-key': 'desktop', 'aria-describedby': errId });
    input.checked = s.value === true;
    const error = h('p', { class: 'st-error', id: errId, role: 'alert' });
    this.fields.set('desktop', { input, error });
    // The daemon names the state (`desktop.state`); the page words it in its language, and
    // falls back to the daemon's English line for a state it does not know.
    const d = this.view.desktop;
    const known = d && d.state ? t(`notify.desktop.state.${d.state}`) : '';
    const why = d ? (known && known !== `notify.desktop.state.${d.state}` ? known : d.why) : '';
    return h('div', { class: 'st-row', 'data-key': 'desktop' },
      h('label', { for: id, class: 'st-label st-check' }, input, t('notify.desktop'), ' ', h('code', null, 'desktop')),
      h('p', { class: 'muted st-hint st-desktop-why' }, why),
      this.layerLine(s),
      error);
  }

  hookRow(w, isNew) {
    const x = { removed: false };
    x.name = h('input', { type: 'text', class: 'st-input st-hook-name', value: w.name || '', 'aria-label': t('notify.hookName'), autocomplete: 'off', spellcheck: 'false' });
    x.format = h('select', { class: 'st-theme st-hook-format', 'aria-label': t('notify.hookFormat') },
      FORMATS.map((f) => {
        const o = h('option', { value: f }, t(`notify.format.${f}`));
        if (f === (w.format || 'json')) o.selected = true;
        return o;
      }));
    x.error = h('p', { class: 'st-error', role: 'alert' });
    const where = isNew
      ? (x.url = h('input', { type: 'url', class: 'st-input st-hook-url', placeholder: 'https://…', 'aria-label': t('notify.hookUrl'), autocomplete: 'off', spellcheck: 'false' }))
      : h('span', { class: 'muted st-hook-target' }, w.target, w.member ? ` · ${t('notify.hookMember', { name: w.member })}` : '');
    const remove = h('button', { type: 'button', class: 'btn small st-hook-remove' }, t('notify.hookRemove'));
    x.row = h('li', { class: 'st-hook', 'data-hook': w.name || '' },
      h('div', { class: 'st-control' }, x.name, x.format, where, remove), x.error);
    remove.addEventListener('click', () => {
      x.removed = true;
      x.row.remove();
    });
    this.hooks.push(x);
    return x.row;
  }

  sinksList() {
    const sinks = (this.view.sinks || []).map((x) => h('li', { class: 'st-sink', 'data-sink': x.name },
      h('strong', null, x.name), ' ', h('span', { class: 'muted' }, `${x.format || x.kind} · ${x.target}`), ' · ',
      h('span', { class: 'st-sent' }, t('notify.sent', { n: x.sent })),
      x.errors ? h('span', { class: 'st-error st-sink-error' }, ' · ', t('notify.lastError', { n: x.errors, error: x.lastError || '', at: when(x.lastErrorAt) })) : null,
      x.dropped ? h('span', { class: 'st-error st-sink-dropped' }, ' · ', t('notify.dropped', { n: x.dropped })) : null));
    return sinks.length ? h('ul', { class: 'plain-list st-sinks' }, sinks) : h('p', { class: 'muted' }, t('notify.noSinks'));
  }

  /** The section for the daemon's `GET /api/notify` answer `view`. */
  render(view) {
    this.view = view;
    this.fields = new Map();
    this.hooks = [];
    this.saveBtn = h('button', { type: 'submit', class: 'btn primary st-notify-save' }, t('notify.save'));
    const hookList = h('ul', { class: 'plain-list st-hooks' }, (view.webhooks || []).map((w) => this.hookRow(w, false)));
    const add = h('button', { type: 'button', class: 'btn small st-hook-add' }, t('notify.hookAdd'));
    add.addEventListener('click', () => {
      const row = this.hookRow({ name: '', format: 'json' }, true);
      hookList.append(row);
      row.querySelector('input').focus();
    });
    const hooks = this.setting('webhook');
    const hooksError = h('p', { class: 'st-error', role: 'alert' });
    this.fields.set('webhook', { error: hooksError });
    const form = h('form', { class: 'st-form st-notify-form', novalidate: true },
      this.textRow('after', '10m'),
      this.textRow('remindEvery', '0'),
      this.textRow('quietHours', '22:00-07:00'),
      this.desktopRow(),
      h('div', { class: 'st-row', 'data-key': 'webhook' },
        h('span', { class: 'st-label' }, t('notify.webhooks'), ' ', h('code', null, '[[notify.webhook]]')),
        h('p', { class: 'muted st-hint' }, t('notify.webhooks.hint')),
        hookList, h('div', null, add),
        this.layerLine(hooks),
        hooksError),
      h('div', { class: 'st-actions' }, this.status, h('span', { class: 'rv-spacer' }), this.saveBtn),
      this.alert);
    form.addEventListener('submit', (e) => {
      e.preventDefault();
      this.save();
    });
    const links = view.publicUrl || t('notify.publicUrlUnset', { url: view.linkBase });
    return h('section', { class: 'st-notify', 'aria-labelledby': 'st-notify-title' },
      h('h2', { class: 'st-section', id: 'st-notify-title' }, t('notify.title')),
      h('p', { class: 'muted st-intro' }, t('notify.intro')),
      form,
      h('div', { class: 'st-kv' }, h('span', { class: 'st-label' }, t('notify.publicUrl')), ' ', h('span', { class: 'st-value' }, links)),
      this.sinksList());
  }

  async save() {
    const body = this.changes();
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
      const v = await api('PUT', '/api/notify', body);
      this.onSaved(v);
    } catch (e) {
      this.saveBtn.disabled = false;
      const errors = (e.body && e.body.errors) || [];
      const kept = this.hooks.filter((x) => !x.removed);
      let shown = false;
      for (const p of errors) {
        const path = String(p.path || '');
        const m = /^webhook\/(\d+)/.exec(path);
        const f = m ? kept[Number(m[1])] : this.fields.get(path);
        const error = f ? f.error : null;
        if (error) {
          error.textContent = p.message;
          if (f.input) f.input.setAttribute('aria-invalid', 'true');
          shown = true;
        }
      }
      if (!shown) this.alert.textContent = e.status === 0 ? t('error.network') : e.message;
    }
  }
}

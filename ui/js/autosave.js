// The ask pages' one autosave life cycle (the survey wizard, the questions card, the review
// panel): this browser's copy, the debounced save to askd, the keepalive save when the page
// hides, and adopting another view's newer draft.

// A change goes at once to this browser's copy (localStorage), to askd after `delay`, with
// keepalive when the page hides or goes; the copy stays until askd has it all or the ask
// settles, and a load restores it when newer than askd's draft.
export const DRAFT_KEY = 'askd.draft.';

// Whose copies these are: who this browser is signed in as (`GET /api/me`, set by app.js
// before an ask's page opens). A copy is restored only for the same principal, so people who
// share one browser profile (a member's login after another's, a phone re-paired) never see
// each other's unsent text; a copy of someone else's stays until its ask settles.
let owner = null;
export function setDraftOwner(who) {
  owner = who && who.kind ? `${who.kind}:${who.id || ''}` : null;
}

function readCopy(id) {
  try {
    const e = JSON.parse(localStorage.getItem(DRAFT_KEY + id));
    return e && e.v === 1 && e.body && typeof e.body === 'object' && e.who === owner ? e : null;
  } catch {
    return null; // no storage (the MCP App's sandboxed frame) or no copy
  }
}

/** This browser keeps an unsaved draft of the ask, written by whoever is signed in now. */
export function hasCopy(id) {
  return readCopy(id) !== null;
}

function dropCopy(id) {
  try {
    localStorage.removeItem(DRAFT_KEY + id);
  } catch { /* no storage */ }
}

/** A draft as one comparable string: keys sorted, no top-level format version. */
function canonical(body) {
  const norm = (x) => (Array.isArray(x) ? x.map(norm) : x && typeof x === 'object'
    ? Object.fromEntries(Object.keys(x).sort().map((k) => [k, norm(x[k])])) : x);
  const { v, ...top } = body && typeof body === 'object' ? body : {};
  return JSON.stringify(norm(top));
}

function hash(s) {
  let x = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) x = Math.imul(x ^ s.charCodeAt(i), 0x01000193);
  return (x >>> 0).toString(16);
}

export class Autosave {
  /** {id, snapshot() → body, send(body, keepalive) → Promise<{revision}>, delay?, onSaved?(reply),
   * onFailed?(error), onVisible?()}; `revision`: askd's newest draft this page holds. */
  constructor({ id, snapshot, send, delay = 500, onSaved, onFailed, onVisible }) {
    const none = () => {};
    Object.assign(this, { id, snapshot, send, delay, onSaved: onSaved || none, onFailed: onFailed || none, onVisible: onVisible || none });
    this.changes = this.savedChanges = this.revision = 0;
    this.saving = this.timer = null;
    this.settled = this.restored = this.stopped = false;
    this.keptAt = -1;
    this.retryMs = 2000;
    this.inFlight = new Set();
    this.tab = Math.random().toString(36).slice(2);
    this.onHide = () => (document.visibilityState === 'hidden' ? this.save(true) : this.onVisible());
    this.onPageHide = () => this.save(true);
  }

  /** The view, with this browser's copy as its draft when newer (then `restored`; a settled
   * ask's copy is dropped). Call first. */
  restore(view) {
    this.revision = view.autosaveRevision || 0;
    const copy = readCopy(this.id);
    if (!copy) return view;
    const theirs = canonical(view.autosave);
    if (view.state !== 'pending' || canonical(copy.body) === theirs
      || (this.revision > copy.base && !(copy.sent || []).includes(hash(theirs)))) {
      dropCopy(this.id);
      return view;
    }
    this.changes = 1;
    this.restored = true;
    this.writeCopy(copy.body);
    return { ...view, autosave: copy.body };
  }

  start() {
    document.addEventListener('visibilitychange', this.onHide);
    window.addEventListener('pagehide', this.onPageHide);
    if (this.dirty) this.schedule();
  }

  stop() {
    this.stopped = true;
    document.removeEventListener('visibilitychange', this.onHide);
    window.removeEventListener('pagehide', this.onPageHide);
    return this.save(true);
  }

  get dirty() {
    return this.changes !== this.savedChanges;
  }

  changed() {
    if (this.settled) return;
    this.changes += 1;
    this.writeCopy();
    this.schedule();
  }

  schedule(ms = this.delay) {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.save(false), ms);
  }

  /** The page took askd's draft at `revision` (another view's save). */
  adopted(revision) {
    this.revision = Math.max(this.revision, revision || 0);
  }

  /** Saves when anything changed; keepalive (the page is going) sends at once, even beside a
   * save in flight. A save askd never answered (or a 5xx) is tried again, 2 s, 4 s … 30 s on. */
  async save(keepalive) {
    clearTimeout(this.timer);
    this.timer = null;
    if (this.settled || !this.dirty) return this.saving;
    if (this.saving && (!keepalive || this.keptAt === this.changes)) {
      await this.saving.catch(() => {});
      return keepalive ? undefined : this.save(false);
    }
    const upTo = this.changes;
    const body = this.snapshot();
    const text = canonical(body);
    const sent = hash(text);
    if (keepalive) this.keptAt = upTo;
    this.inFlight.add(sent);
    // A keepalive body is capped (64 KiB in flight): a larger one goes as it is, the copy covers it.
    const p = this.send(body, keepalive && new TextEncoder().encode(text).length < 60000);
    this.saving = p;
    let reply;
    let error = null;
    try {
      reply = await p;
    } catch (e) {
      error = e;
    }
    this.inFlight.delete(sent);
    if (this.saving === p) this.saving = null;
    if (this.settled) return;
    if (error) {
      if (!keepalive && !this.stopped && !this.timer && (!error.status || error.status >= 500)) {
        this.schedule(this.retryMs);
        this.retryMs = Math.min(this.retryMs * 2, 30000);
      }
      this.onFailed(error);
      return;
    }
    this.retryMs = 2000;
    this.revision = Math.max(this.revision, (reply && reply.revision) || 0);
    this.savedChanges = Math.max(this.savedChanges, upTo);
    const copy = readCopy(this.id);
    if (this.dirty) this.writeCopy();
    else if (!copy || copy.tab === this.tab) dropCopy(this.id);
    this.onSaved(reply);
  }

  /** Saves when anything changed (before an action); resolves when nothing is in flight. */
  flush(keepalive) {
    return this.dirty && !this.settled ? this.save(keepalive) : this.saving || Promise.resolve();
  }

  /** The ask settled: nothing more is saved, and this browser's copy goes. */
  settle() {
    this.settled = true;
    clearTimeout(this.timer);
    dropCopy(this.id);
  }

  writeCopy(body = this.snapshot()) {
    try {
      localStorage.setItem(DRAFT_KEY + this.id, JSON.stringify({ v: 1, who: owner, tab: this.tab, base: this.revision, sent: [...this.inFlight], body }));
    } catch { /* storage full or blocked: askd's copy is the only one */ }
  }
}

// The daemon's JSON API (docs/api.md). The browser authenticates with the HttpOnly cookie
// set when the tokenised URL was opened; every call is same-origin.

export class ApiError extends Error {
  constructor(status, body) {
    const message = (body && (body.error || body.message)) || `HTTP ${status}`;
    super(message);
    this.status = status;
    this.code = body && body.code;
    this.body = body;
  }
}

// desk-b: reachability. A call that gets no answer (a network error, or nothing within
// CALL_TIMEOUT_MS) marks the daemon unreachable; a probe of /api/health then retries, 1 s
// apart, until it answers. While unreachable, a call waits (it is queued, and the banner says
// so) and is sent when the daemon is back; a call whose request failed is sent once more
// then. Watchers (the banner, the event stream) hear every change. While reachable, a probe
// every PROBE_MS notices a daemon that stopped answering without closing its connections.
const CALL_TIMEOUT_MS = 20000;
const PROBE_TIMEOUT_MS = 4000;
const PROBE_MS = 5000;
const RETRY_MS = 1000;
// desk-c: a call unanswered after SLOW_MS checks /api/health at once: a frozen daemon shows in ~2 s.
const SLOW_MS = 1000;
const QUICK_PROBE_MS = 1200;
let online = true;
let queued = 0;
let backWaiters = [];
let probeTimer = null;
let probing = false;
const watchers = new Set();
// desk-f: a 401 with one of these codes means this browser's sign-in is gone (the phone was
// revoked, the login removed, the cookie expired or was cleared): the daemon is answering,
// so this is not "unreachable". The page is told once (onSignedOut), probing stops, and
// every later call is refused here without being sent.
const SIGN_IN_CODES = new Set(['unauthorized', 'device-revoked', 'unknown-device', 'member-revoked', 'unknown-member']);
let signedOut = null;
const signOutWatchers = new Set();

/** fn(code) once, when a call or probe finds this browser signed out; returns unsubscribe. */
export function onSignedOut(fn) {
  signOutWatchers.add(fn);
  return () => signOutWatchers.delete(fn);
}

/** The code of the 401 that signed this page out, or null. */
export function signedOutCode() {
  return signedOut;
}

function signOut(status, body) {
  if (status !== 401 || signedOut || !body || !SIGN_IN_CODES.has(body.code)) return;
  signedOut = body.code;
  clearTimeout(probeTimer);
  for (const fn of [...signOutWatchers]) fn(signedOut);
}

/** fn({online, queued}) on every change of reachability or of the queued calls; returns unsubscribe. */
export function onReachability(fn) {
  watchers.add(fn);
  return () => watchers.delete(fn);
}

export function reachable() {
  return online;
}

function tell() {
  for (const fn of [...watchers]) fn({ online, queued });
}

function setOnline(ok) {
  if (ok === online) return;
  online = ok;
  if (ok) {
    const w = backWaiters;
    backWaiters = [];
    for (const resolve of w) resolve();
  }
  tell();
  schedule(ok ? PROBE_MS : RETRY_MS);
}

function back() {
  return online ? Promise.resolve() : new Promise((resolve) => backWaiters.push(resolve));
}

async function probe() {
  if (probing) return;
  probing = true;
  let ok = false;
  try {
    const res = await fetch('/api/health', { credentials: 'same-origin', cache: 'no-store', signal: AbortSignal.timeout(PROBE_TIMEOUT_MS) });
    ok = res.ok || res.status === 401;
    if (res.status === 401) signOut(401, await res.json().catch(() => null));
  } catch {
    ok = false;
  }
  probing = false;
  if (signedOut) {
    // Answering, but not to this browser: the calls waiting for it are sent (and refused).
    if (!online) setOnline(true);
    return;
  }
  if (ok !== online) setOnline(ok);
  else schedule(ok ? PROBE_MS : RETRY_MS);
}

function schedule(ms) {
  clearTimeout(probeTimer);
  if (signedOut) return;
  if (typeof document !== 'undefined' && document.visibilityState === 'hidden' && online) return;
  probeTimer = setTimeout(probe, ms);
}

/** A call is slow: is askd answering at all? (Only marks it unreachable; the probes see it back.) */
async function quickProbe() {
  if (!online) return;
  try {
    const res = await fetch('/api/health', { credentials: 'same-origin', cache: 'no-store', signal: AbortSignal.timeout(QUICK_PROBE_MS) });
    if (res.ok) return;
  } catch {
    // No answer in time.
  }
  setOnline(false);
}

/** Something (the event stream's error) suggests the daemon went away: check now. */
export function checkReachable() {
  clearTimeout(probeTimer);
  probe();
}

if (typeof document !== 'undefined') {
  document.addEventListener('visibilitychange', () => {
    if (document.visibilityState === 'visible') checkReachable();
  });
  schedule(PROBE_MS);
}

async function send(path, init, keepalive) {
  const slow = setTimeout(quickProbe, SLOW_MS);
  try {
    return await fetch(path, keepalive ? init : { ...init, signal: AbortSignal.timeout(CALL_TIMEOUT_MS) });
  } catch (e) {
    return { failed: e };
  } finally {
    clearTimeout(slow);
  }
}

/** How long to wait before repeating a submit whose saving was not confirmed, and how often. */
const UNKNOWN_RETRY_MS = 1000;
const UNKNOWN_RETRIES = 5;

/** Calls the API; resolves to the JSON body, rejects with ApiError (status 0: no answer).
 * With an `idempotencyKey`, a 503 `outcome-unknown` (askd lost its database while saving:
 * it may be saved) is repeated with the same key a few times: the repeat is safe, and
 * answers with what was saved. */
export async function api(method, path, body, { keepalive = false, idempotencyKey } = {}) {
  for (let retry = 0; ; retry++) {
    try {
      return await call(method, path, body, keepalive, idempotencyKey);
    } catch (e) {
      const unknown = e instanceof ApiError && e.status === 503 && e.body && e.body.code === 'outcome-unknown';
      if (!idempotencyKey || !unknown || retry >= UNKNOWN_RETRIES) throw e;
      await new Promise((r) => setTimeout(r, UNKNOWN_RETRY_MS));
    }
  }
}

async function call(method, path, body, keepalive, idempotencyKey) {
  const init = { method, headers: { Accept: 'application/json' }, credentials: 'same-origin', keepalive };
  if (idempotencyKey) init.headers['Idempotency-Key'] = idempotencyKey;
  if (body !== undefined) {
    init.headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  if (signedOut) throw new ApiError(401, { code: signedOut, error: signedOut });
  let res;
  for (let attempt = 0; ; attempt++) {
    if (!online && !keepalive) {
      queued += 1;
      tell();
      await back();
      queued -= 1;
      tell();
    }
    res = await send(path, init, keepalive);
    if (!res.failed) break;
    setOnline(false);
    if (keepalive || attempt > 0) throw new ApiError(0, { error: String(res.failed && res.failed.message) });
  }
  let json = null;
  try {
    json = await res.json();
  } catch {
    json = null;
  }
  if (!res.ok) {
    signOut(res.status, json);
    throw new ApiError(res.status, json);
  }
  return json;
}

/** A submit's idempotency key: the same for as long as the same answers are sent for the
 * same ask again (a repeat after a lost or unconfirmed answer), a new one when they change. */
const submitKeys = new Map();
function submitKey(id, body) {
  const text = JSON.stringify(body);
  const known = submitKeys.get(id);
  if (known && known.text === text) return known.key;
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  const key = Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
  submitKeys.set(id, { text, key });
  return key;
}

let meOnce = null;

/** Who this browser is signed in as (`GET /api/me`, read once): `{kind: "install"|"device",
 * name?, may: {settings, records, sessions}}`. On a failure, the install (the page then
 * meets the daemon's own 403 if it is wrong). */
export function me() {
  meOnce ||= api('GET', '/api/me').catch(() => ({ kind: 'install', may: { settings: true, records: true, sessions: true } }));
  return meOnce;
}

/** The image URL of a diagram of ask `askId` (its source's SHA-256 `hash`), in `theme`. */
export async function diagramUrl(askId, hash, theme) {
  return `/api/diagrams/${hash}.svg?theme=${theme}&ask=${encodeURIComponent(askId)}`;
}

export const ask = {
  view: (id) => api('GET', `/api/asks/${encodeURIComponent(id)}`),
  path: (id, answers) => api('POST', `/api/asks/${encodeURIComponent(id)}/path`, { answers }),
  bank: (id, answers) => api('POST', `/api/asks/${encodeURIComponent(id)}/bank`, { answers }),
  submit: (id, body) =>
    api('POST', `/api/asks/${encodeURIComponent(id)}/submit`, body, { idempotencyKey: submitKey(id, body) }),
  cancel: (id) => api('POST', `/api/asks/${encodeURIComponent(id)}/cancel`, {}),
  preflight: (id, action) => api('POST', `/api/asks/${encodeURIComponent(id)}/preflight`, { action }),
  autosave: (id, body, keepalive) =>
    api('PUT', `/api/asks/${encodeURIComponent(id)}/autosave`, body, { keepalive }),
  list: (query) => api('GET', `/api/asks?${query}`),
};

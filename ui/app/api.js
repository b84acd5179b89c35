// The MCP App's stand-in for ui/js/api.js (issue 20): the same exports, so wizard.js,
// review.js, questions.js and drift.js run unchanged inside the host's frame. The frame has
// no network: every call goes to the host over postMessage (JSON-RPC 2.0, MCP Apps
// 2026-01-26) as `tools/call` of askd's app-only tool `askd_app`, which reaches exactly the
// ask endpoints this file's `ask` names and answers `{status, body}` as the daemon did. Each
// call carries the ask's handle — askd's signature over the ask, from the ask tool's result
// (`_meta["askd/app"]`, see `grant`) — without which askd_app refuses an ask its connection
// did not ask (a stateless request, a restarted adapter).

export class ApiError extends Error {
  constructor(status, body) {
    const message = (body && (body.error || body.message)) || `HTTP ${status}`;
    super(message);
    this.status = status;
    this.code = body && body.code;
    this.body = body;
  }
}

// The host bridge: requests we send (by id), requests the host sends, notifications.
let lastId = 0;
const waiting = new Map();
const listeners = new Map();

function post(message) {
  window.parent.postMessage(message, '*');
}

/** Sends a JSON-RPC request to the host; resolves to its result, rejects with its error. */
export function request(method, params) {
  const id = ++lastId;
  post({ jsonrpc: '2.0', id, method, params });
  return new Promise((resolve, reject) => waiting.set(id, { resolve, reject }));
}

/** Sends a JSON-RPC notification to the host. */
export function notify(method, params) {
  post({ jsonrpc: '2.0', method, params: params || {} });
}

/** fn(params) on every notification `method` from the host. */
export function onNotification(method, fn) {
  listeners.set(method, fn);
}

// What the host may ask of the app: to tear down (nothing to keep), and ping.
const ANSWERS = {
  'ui/resource-teardown': () => ({}),
  ping: () => ({}),
};

window.addEventListener('message', (e) => {
  if (e.source !== window.parent) return;
  const m = e.data;
  if (!m || typeof m !== 'object' || m.jsonrpc !== '2.0') return;
  if (m.method === undefined && m.id !== undefined) {
    const w = waiting.get(m.id);
    if (!w) return;
    waiting.delete(m.id);
    if (m.error) w.reject(new Error(m.error.message || 'the host refused the request'));
    else w.resolve(m.result);
  } else if (typeof m.method === 'string' && m.id !== undefined) {
    const answer = ANSWERS[m.method];
    if (answer) post({ jsonrpc: '2.0', id: m.id, result: answer(m.params) });
    else post({ jsonrpc: '2.0', id: m.id, error: { code: -32601, message: `askd's app has no method ${m.method}` } });
  } else if (typeof m.method === 'string') {
    const fn = listeners.get(m.method);
    if (fn) fn(m.params || {});
  }
});

export const APP_TOOL = 'askd_app';

// The handle of each ask this frame was given (ask id → handle).
const handles = new Map();

/** Remembers the handle askd gave for ask `id` (from the tool result's `_meta["askd/app"]`). */
export function grant(id, handle) {
  if (typeof id === 'string' && typeof handle === 'string' && handle) handles.set(id, handle);
}

/** Calls an ask endpoint through the host; resolves to the JSON body, rejects with ApiError
 * (status 0: the host or askd gave no answer). `id` names the ask whose handle goes along. */
export async function api(method, path, body, id) {
  const args = body === undefined ? { method, path } : { method, path, body };
  const handle = id === undefined ? undefined : handles.get(id);
  if (handle) args.handle = handle;
  let r;
  try {
    r = await request('tools/call', { name: APP_TOOL, arguments: args });
  } catch (e) {
    throw new ApiError(0, { error: String(e && e.message) });
  }
  const sc = (r && r.structuredContent) || {};
  if (r && r.isError) {
    const err = sc.error || {};
    throw new ApiError(0, { error: err.message || 'askd refused the call', code: err.code });
  }
  if (typeof sc.status !== 'number') throw new ApiError(0, { error: 'askd gave no answer' });
  if (sc.status >= 400) throw new ApiError(sc.status, sc.body);
  return sc.body;
}

// Reachability is the host's business: the app never queues.
export function onReachability() {
  return () => {};
}

export function reachable() {
  return true;
}

export function checkReachable() {}

/** The app answers as the install (the host connected the agent that asked). */
export function me() {
  return Promise.resolve({ kind: 'install', may: { settings: false, records: false, sessions: false } });
}

/** A diagram of ask `askId` as a data: URL of the SVG askd_app carries (the daemon rendered
 * and sanitised it as the page gets it; an image never runs script). */
export async function diagramUrl(askId, hash, theme) {
  const svg = await api('GET', `/api/diagrams/${hash}.svg?theme=${theme}&ask=${encodeURIComponent(askId)}`, undefined, askId);
  if (typeof svg !== 'string' || !/^\s*<svg[\s>]/.test(svg)) throw new ApiError(0, { error: 'askd gave no diagram' });
  return `data:image/svg+xml;charset=utf-8,${encodeURIComponent(svg)}`;
}

/** Waits (at most 25 s, in askd's adapter) until ask `id`'s view is no longer `since`:
 * `{changed, version, state}`; without `since`, the current version at once. */
export function watch(id, since) {
  return api('POST', `/api/asks/${encodeURIComponent(id)}/watch`, since ? { since } : {}, id);
}

export const ask = {
  view: (id) => api('GET', `/api/asks/${encodeURIComponent(id)}`, undefined, id),
  path: (id, answers) => api('POST', `/api/asks/${encodeURIComponent(id)}/path`, { answers }, id),
  bank: (id, answers) => api('POST', `/api/asks/${encodeURIComponent(id)}/bank`, { answers }, id),
  submit: (id, body) => api('POST', `/api/asks/${encodeURIComponent(id)}/submit`, body, id),
  cancel: (id) => api('POST', `/api/asks/${encodeURIComponent(id)}/cancel`, {}, id),
  preflight: (id, action) => api('POST', `/api/asks/${encodeURIComponent(id)}/preflight`, { action }, id),
  autosave: (id, body) => api('PUT', `/api/asks/${encodeURIComponent(id)}/draft`, body, id),
  list: () => Promise.reject(new ApiError(403, { error: "the app shows one ask; the inbox is askd's page" })),
};

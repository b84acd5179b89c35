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

/** Calls the API; resolves to the JSON body, rejects with ApiError (status 0: no answer). */
export async function api(method, path, body, { keepalive = false } = {}) {
  const init = { method, headers: { Accept: 'application/json' }, credentials: 'same-origin', keepalive };
  if (body !== undefined) {
    init.headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  let res;
  try {
    res = await fetch(path, init);
  } catch (e) {
    throw new ApiError(0, { error: String(e && e.message) });
  }
  let json = null;
  try {
    json = await res.json();
  } catch {
    json = null;
  }
  if (!res.ok) throw new ApiError(res.status, json);
  return json;
}

export const ask = {
  view: (id) => api('GET', `/api/asks/${encodeURIComponent(id)}`),
  path: (id, answers) => api('POST', `/api/asks/${encodeURIComponent(id)}/path`, { answers }),
  bank: (id, answers) => api('POST', `/api/asks/${encodeURIComponent(id)}/bank`, { answers }),
  submit: (id, body) => api('POST', `/api/asks/${encodeURIComponent(id)}/submit`, body),
  cancel: (id) => api('POST', `/api/asks/${encodeURIComponent(id)}/cancel`, {}),
  preflight: (id, action) => api('POST', `/api/asks/${encodeURIComponent(id)}/preflight`, { action }),
  autosave: (id, body, keepalive) =>
    api('PUT', `/api/asks/${encodeURIComponent(id)}/draft`, body, { keepalive }),
  list: (query) => api('GET', `/api/asks?${query}`),
};

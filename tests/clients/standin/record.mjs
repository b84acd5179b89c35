// What every stand-in model server does first with a request: read its body, parse it as
// JSON when it is, and record it (method, URL, headers, body) for the test to assert on.
// ASKD_STANDIN_DUMP=<file> also appends each request as one JSON line (to read the shapes a
// client sends). Test code.
import { appendFileSync } from 'node:fs';

/** Reads and records `req`; returns its body as JSON, or null when it is not JSON. */
export async function record(req, requests) {
  let body = '';
  for await (const chunk of req) body += chunk;
  let json = null;
  try { json = JSON.parse(body); } catch { /* not JSON */ }
  requests.push({ method: req.method, url: req.url, headers: req.headers, body: json ?? body });
  if (process.env.ASKD_STANDIN_DUMP) appendFileSync(process.env.ASKD_STANDIN_DUMP, `${JSON.stringify(requests.at(-1))}\n`);
  return json;
}

/** Starts `server` on a free loopback port: {url, requests, close}. */
export async function serve(server, requests) {
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address();
  return { url: `http://127.0.0.1:${port}`, requests, close: () => new Promise((r) => { server.closeAllConnections?.(); server.close(r); }) };
}

#!/usr/bin/env node
// Memory after load (issue 32): opens N event streams to a running `askd serve`, closes them,
// and prints its VmRSS idle, with the streams open, and 5 s after closing (two cycles).
// Usage: node scripts/sse-memory.mjs <ASKD_HOME> <daemon pid> [N=2000]
import { readFileSync } from 'node:fs';
const [home, pid, n = '2000'] = process.argv.slice(2);
const info = JSON.parse(readFileSync(`${home}/daemon.json`, 'utf8'));
const token = readFileSync(`${home}/token`, 'utf8').trim();
const rss = () => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) / 1024;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const out = { idle: rss() };
for (let cycle = 0; cycle < 2; cycle++) {
  const ctrls = [];
  await Promise.all(Array.from({ length: Number(n) }, async () => {
    const c = new AbortController();
    ctrls.push(c);
    const r = await fetch(`${info.url}/api/events`, { headers: { Authorization: `Bearer ${token}` }, signal: c.signal });
    const reader = r.body.getReader();
    reader.read().catch(() => {});
  }));
  await sleep(1000);
  out[`open${cycle}`] = rss();
  ctrls.forEach((c) => c.abort());
  await sleep(5000);
  out[`closed${cycle}`] = rss();
}
console.log(JSON.stringify(out));

// The live event stream (/api/events): one EventSource per page, reconnecting by itself
// with Last-Event-ID (the daemon replays what was missed). While it is unhealthy (or the
// browser has no EventSource) the page polls every 20 s instead (survey.md §12.16).
// desk-b: a stream error asks api.js to check the daemon at once; when the daemon is back
// after being unreachable, a closed stream is opened again and every listener gets a
// {kind: 'poll'}, so each page reloads its state.
// desk-f: when this browser is signed out (a revoked phone, a removed login, an expired
// sign-in), the stream is closed for good: no reconnecting, no polling.
import { onReachability, checkReachable, onSignedOut } from './api.js';

const KINDS = ['ask.created', 'ask.banked', 'ask.autosaved', 'ask.settled', 'ask.claimed', 'ask.deadline', 'ask.deferred', 'ask.escalated', 'ask.voted', 'settings.updated'];
const POLL_MS = 20000;

export class Live {
  constructor() {
    this.listeners = new Set();
    this.healthy = false;
    this.pollTimer = null;
    this.onHealth = () => {};
    onSignedOut(() => this.close());
    if (typeof EventSource === 'undefined') {
      this.startPolling();
      return;
    }
    this.open();
    let wasOnline = true;
    onReachability(({ online }) => {
      if (this.closed || online === wasOnline) return;
      wasOnline = online;
      if (!online) return;
      if (this.source.readyState === EventSource.CLOSED) this.open();
      for (const fn of [...this.listeners]) fn({ kind: 'poll', data: null });
    });
    // Until the stream opens, the page is fed by its own initial fetch.
    this.pollTimer = setTimeout(() => {
      if (!this.healthy) this.startPolling();
    }, 3000);
  }

  open() {
    if (this.source) this.source.close();
    this.source = new EventSource('/api/events');
    this.source.onopen = () => this.setHealthy(true);
    this.source.onerror = () => {
      this.setHealthy(false);
      checkReachable();
    };
    for (const kind of KINDS) {
      this.source.addEventListener(kind, (e) => {
        let data = null;
        try {
          data = JSON.parse(e.data);
        } catch {
          return;
        }
        for (const fn of [...this.listeners]) fn({ kind, data });
      });
    }
  }

  /** Closes the stream and stops polling for good (this browser was signed out). */
  close() {
    this.closed = true;
    if (this.source) this.source.close();
    this.stopPolling();
  }

  setHealthy(ok) {
    if (this.closed || ok === this.healthy) return;
    this.healthy = ok;
    if (ok) this.stopPolling();
    else this.startPolling();
    this.onHealth(ok);
  }

  startPolling() {
    this.stopPolling();
    if (this.closed) return;
    this.pollTimer = setInterval(() => {
      for (const fn of [...this.listeners]) fn({ kind: 'poll', data: null });
    }, POLL_MS);
  }

  stopPolling() {
    clearTimeout(this.pollTimer);
    clearInterval(this.pollTimer);
    this.pollTimer = null;
  }

  /** fn({kind, data}) for every event, and {kind: 'poll'} while polling; returns unsubscribe. */
  subscribe(fn) {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }
}

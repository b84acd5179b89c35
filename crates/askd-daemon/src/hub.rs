//! In-memory fan-out: live events for SSE listeners and wake-ups for waiters.
//!
//! The store's event log is the truth; the hub only carries what was just committed to
//! whoever is listening now. A listener that falls behind re-reads from the store.
//!
//! In team mode (several daemons on one PostgreSQL database) the hub also carries what
//! other daemons committed: the daemon's follower (`crate::follow`) reads them from the store
//! in seq order and hands them to [`Hub::publish_followed`], which skips the daemon's own
//! (already published by [`Hub::publish`]). While the follower is cut off from the database
//! the hub is [stale](Hub::stale) and the HTTP layer answers 503.

use askd_core::EventKind;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use askd_store::Event;
use tokio::sync::{Notify, broadcast};

/// Capacity of the live event channel; a slower listener re-reads from the store.
const EVENT_BUFFER: usize = 1024;

pub struct Hub {
    events: broadcast::Sender<Event>,
    /// One notifier per ask that somebody is waiting on; removed when the ask settles.
    waiters: Mutex<HashMap<String, Arc<Notify>>>,
    /// Team mode's bookkeeping (`None` for a daemon alone on its database).
    follow: Mutex<Option<Followed>>,
    /// Why the hub is not current (the follower lost the database), or `None`.
    stale: Mutex<Option<String>>,
}

/// What the follower has published and what the daemon published itself ahead of it.
#[derive(Default)]
struct Followed {
    /// The seq of the last event the follower has handed over.
    cursor: i64,
    /// The daemon's own events above `cursor`, published already.
    own: std::collections::BTreeSet<i64>,
}

impl Default for Hub {
    fn default() -> Self {
        Hub {
            events: broadcast::channel(EVENT_BUFFER).0,
            waiters: Mutex::new(HashMap::new()),
            follow: Mutex::new(None),
            stale: Mutex::new(None),
        }
    }
}

impl Hub {
    /// Publishes committed events and wakes the waiters of asks they settle.
    pub fn publish(&self, events: impl IntoIterator<Item = Event>) {
        for e in events {
            self.wake_for(&e);
            {
                let mut f = self.follow.lock().unwrap_or_else(|p| p.into_inner());
                if let Some(f) = f.as_mut() {
                    if e.seq <= f.cursor {
                        // The follower read it from the store first and published it.
                        continue;
                    }
                    f.own.insert(e.seq);
                }
            }
            // No receivers is fine: nobody is listening.
            let _ = self.events.send(e);
        }
    }

    /// Team mode: from now on [`Hub::publish_followed`] hands over every committed event
    /// after `cursor`, whoever committed it.
    pub fn start_following(&self, cursor: i64) {
        *self.follow.lock().unwrap_or_else(|p| p.into_inner()) = Some(Followed {
            cursor,
            own: Default::default(),
        });
    }

    /// Publishes events read from the store in seq order (the follower's), skipping those
    /// this daemon published itself; wakes the waiters of asks they settle.
    pub fn publish_followed(&self, events: impl IntoIterator<Item = Event>) {
        for e in events {
            {
                let mut f = self.follow.lock().unwrap_or_else(|p| p.into_inner());
                let Some(f) = f.as_mut() else { return };
                if e.seq <= f.cursor {
                    continue;
                }
                f.cursor = e.seq;
                let cursor = f.cursor;
                let own = f.own.remove(&e.seq);
                // Anything of ours below the cursor was published and is past.
                f.own.retain(|s| *s > cursor);
                if own {
                    continue;
                }
            }
            self.wake_for(&e);
            let _ = self.events.send(e);
        }
    }

    /// The follower's cursor (team mode), or `None`.
    pub fn followed_to(&self) -> Option<i64> {
        self.follow
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .as_ref()
            .map(|f| f.cursor)
    }

    /// Marks the hub stale (`Some(why)`) or current again (`None`).
    pub fn set_stale(&self, why: Option<String>) {
        *self.stale.lock().unwrap_or_else(|p| p.into_inner()) = why;
    }

    /// Why the hub is not current, when it is not: the HTTP layer answers 503 meanwhile.
    pub fn stale(&self) -> Option<String> {
        self.stale.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }

    fn wake_for(&self, e: &Event) {
        // A settle ends a wait; a snooze ends a wait that would hand back the pending handle.
        if (e.kind == EventKind::AskSettled || e.kind == EventKind::AskDeferred)
            && let Some(id) = e.payload.get("ask_id").and_then(|v| v.as_str())
        {
            self.wake(id);
        }
    }

    pub fn subscribe(&self) -> broadcast::Receiver<Event> {
        self.events.subscribe()
    }

    /// Registers a waiter on an ask; call `notified()` + `enable()` on [`Waiter::notify`]
    /// before checking the store, so a settle between the check and the wait is never
    /// missed. Dropping the waiter unregisters it (the last one removes the ask's entry).
    pub fn waiter(&self, ask_id: &str) -> Waiter<'_> {
        let mut w = self.waiters.lock().unwrap_or_else(|p| p.into_inner());
        let notify = w.entry(ask_id.to_string()).or_default().clone();
        Waiter {
            hub: self,
            ask_id: ask_id.to_string(),
            notify: Some(notify),
        }
    }

    /// Drops one waiter's handle; removes the ask's entry when no other waiter holds it.
    /// Clones and drops of registered handles both happen under the lock, so the count is
    /// exact.
    fn release(&self, ask_id: &str, notify: Arc<Notify>) {
        let mut w = self.waiters.lock().unwrap_or_else(|p| p.into_inner());
        let ours = w.get(ask_id).is_some_and(|n| Arc::ptr_eq(n, &notify));
        drop(notify);
        if ours && w.get(ask_id).is_some_and(|n| Arc::strong_count(n) == 1) {
            w.remove(ask_id);
        }
    }

    fn wake(&self, ask_id: &str) {
        let n = self
            .waiters
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .remove(ask_id);
        if let Some(n) = n {
            n.notify_waiters();
        }
    }

    /// Whether a wait on `ask_id` is registered right now.
    pub fn is_waited(&self, ask_id: &str) -> bool {
        self.waiters
            .lock()
            .map(|w| w.contains_key(ask_id))
            .unwrap_or(false)
    }

    /// How many asks have waiters registered right now (for health).
    pub fn waiting(&self) -> usize {
        self.waiters.lock().map(|w| w.len()).unwrap_or(0)
    }
}

/// One registered waiter (see [`Hub::waiter`]).
pub struct Waiter<'a> {
    hub: &'a Hub,
    ask_id: String,
    notify: Option<Arc<Notify>>,
}

impl Waiter<'_> {
    pub fn notify(&self) -> &Notify {
        self.notify.as_deref().expect("present until drop")
    }
}

impl Drop for Waiter<'_> {
    fn drop(&mut self) {
        if let Some(n) = self.notify.take() {
            self.hub.release(&self.ask_id, n);
        }
    }
}

//! In-memory fan-out: live events for SSE listeners and wake-ups for waiters.
//!
//! The store's event log is the truth; the hub only carries what was just committed to
//! whoever is listening now. A listener that falls behind re-reads from the store.

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
}

impl Default for Hub {
    fn default() -> Self {
        Hub {
            events: broadcast::channel(EVENT_BUFFER).0,
            waiters: Mutex::new(HashMap::new()),
        }
    }
}

impl Hub {
    /// Publishes committed events and wakes the waiters of asks they settle.
    pub fn publish(&self, events: impl IntoIterator<Item = Event>) {
        for e in events {
            if e.kind == "ask.settled"
                && let Some(id) = e.payload.get("ask_id").and_then(|v| v.as_str())
            {
                self.wake(id);
            }
            // No receivers is fine: nobody is listening.
            let _ = self.events.send(e);
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

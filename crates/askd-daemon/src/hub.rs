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

    /// The notifier for an ask; register (`notified()` + `enable()`) before checking the
    /// store, so a settle between the check and the wait is never missed.
    pub fn notifier(&self, ask_id: &str) -> Arc<Notify> {
        let mut w = self.waiters.lock().unwrap_or_else(|p| p.into_inner());
        w.entry(ask_id.to_string()).or_default().clone()
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

    /// How many asks have waiters registered (for health).
    pub fn waiting(&self) -> usize {
        self.waiters.lock().map(|w| w.len()).unwrap_or(0)
    }
}

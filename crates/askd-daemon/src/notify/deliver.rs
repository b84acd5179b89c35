//! Delivery: every sink has its own queue and its own worker, so a failing or hanging sink
//! delays only its own messages.
//!
//! - The dispatcher ([`dispatch`]) takes each message off the notifier's queue and hands it
//!   to the queue of every sink in the settings in effect at that moment (a webhook is known
//!   by [`super::sink_id`], the desktop by `desktop`). A full sink queue drops the message
//!   for that sink only, counted in its status (`dropped`).
//! - A sink's worker ([`sink_worker`]) runs at most [`SINK_IN_FLIGHT`] attempts at once,
//!   each one request with its timeout. A failed attempt does not sleep in its slot: its
//!   retry is scheduled at [`super::RETRY_DELAYS`] and the slot goes to the next message.
//!   After the last retry the message counts as `failed`.
//! - A sink removed from the settings stops: its worker ends once the dispatcher drops its
//!   queue, and an attempt due for a sink that is gone is not made.

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::sync::Arc;

use tokio::sync::{mpsc, watch};
use tokio::task::JoinSet;
use tokio::time::Instant;

use super::{Message, NotifyPlan, Status, send, sink_id};

/// Messages one sink may hold (waiting, in flight or waiting for a retry); beyond this a
/// new message is dropped for that sink and counted.
pub(super) const SINK_QUEUE: usize = 128;
/// Attempts in flight at once to one sink: a hanging sink holds only its own.
pub(super) const SINK_IN_FLIGHT: usize = 4;

/// One sink of a plan.
enum Sink<'a> {
    Webhook(&'a crate::config::WebhookConfig),
    Desktop,
}

impl NotifyPlan {
    /// The ids of every sink, the webhooks in order, then the desktop.
    fn sink_ids(&self) -> Vec<String> {
        let mut ids: Vec<String> = self.webhooks.iter().map(sink_id).collect();
        if self.desktop() {
            ids.push("desktop".into());
        }
        ids
    }

    /// How a sink is named in the log (never its URL, which may be a secret).
    fn sink_label(&self, id: &str) -> String {
        match self.sink(id) {
            Some(Sink::Webhook(w)) => format!("webhook {:?}", w.name),
            Some(Sink::Desktop) | None => "desktop".to_string(),
        }
    }

    /// Whether sink `id` takes `m`: the install's sinks take every message; a member's own
    /// webhook only what is offered to that member (or to everyone).
    fn takes(&self, id: &str, m: &Message) -> bool {
        let Some(Sink::Webhook(w)) = self.sink(id) else {
            return true;
        };
        match (&w.member, &m.audience) {
            (None, _) => true,
            (Some(_), None) => false,
            (Some(member), Some(to)) => {
                to.eq_ignore_ascii_case(member)
                    || to.eq_ignore_ascii_case(askd_core::deadline::EVERYONE)
            }
        }
    }

    fn sink(&self, id: &str) -> Option<Sink<'_>> {
        if id == "desktop" {
            return self.desktop().then_some(Sink::Desktop);
        }
        self.webhooks
            .iter()
            .find(|w| sink_id(w) == id)
            .map(Sink::Webhook)
    }
}

/// Drains the notifier's queue into the sinks' queues (see the module documentation).
pub(super) async fn dispatch(
    mut rx: mpsc::Receiver<Message>,
    plan: watch::Receiver<Arc<NotifyPlan>>,
    status: Arc<Status>,
) {
    let client = send::client();
    let mut queues: HashMap<String, mpsc::Sender<Arc<Message>>> = HashMap::new();
    while let Some(m) = rx.recv().await {
        let m = Arc::new(m);
        let ids = plan.borrow().sink_ids();
        // A sink no longer in the settings: dropping its queue ends its worker.
        queues.retain(|id, _| ids.contains(id));
        for id in ids {
            if !plan.borrow().takes(&id, &m) {
                continue;
            }
            let queue = queues.entry(id.clone()).or_insert_with(|| {
                let (tx, rx) = mpsc::channel(SINK_QUEUE);
                let worker = Worker {
                    label: plan.borrow().sink_label(&id),
                    id: id.clone(),
                    plan: plan.clone(),
                    status: status.clone(),
                    client: client.clone(),
                };
                tokio::spawn(worker.run(rx));
                tx
            });
            if queue.try_send(m.clone()).is_err() {
                let sink = plan.borrow().sink_label(&id);
                tracing::warn!(%sink, "a sink's notification queue is full: a message was dropped");
                status.with(&id, |s| s.dropped += 1);
            }
        }
    }
}

/// One sink's deliveries.
struct Worker {
    /// The sink's status id ([`sink_id`]).
    id: String,
    /// Its name in the log.
    label: String,
    plan: watch::Receiver<Arc<NotifyPlan>>,
    status: Arc<Status>,
    client: reqwest::Client,
}

/// A message to send, and which attempt this is (0 for the first).
type Attempt = (Arc<Message>, usize);

impl Worker {
    async fn run(self, mut rx: mpsc::Receiver<Arc<Message>>) {
        let mut ready: VecDeque<Attempt> = VecDeque::new();
        let mut flying: JoinSet<(Attempt, Result<(), String>)> = JoinSet::new();
        // Retries by due time (with a counter, so two due at once are both kept).
        let mut later: BTreeMap<(Instant, u64), Attempt> = BTreeMap::new();
        let mut counter = 0u64;
        let mut open = true;
        loop {
            while flying.len() < SINK_IN_FLIGHT
                && let Some(attempt) = ready.pop_front()
            {
                let plan = self.plan.borrow().clone();
                if plan.sink(&self.id).is_none() {
                    // Removed from the settings: nothing more goes to it.
                    return;
                }
                let (id, client) = (self.id.clone(), self.client.clone());
                flying.spawn(async move {
                    let result = match plan.sink(&id) {
                        Some(Sink::Webhook(hook)) => {
                            send::webhook_once(&client, hook, &attempt.0).await
                        }
                        Some(Sink::Desktop) => super::desktop_once(&plan, &attempt.0).await,
                        None => Err("the sink was removed".to_string()),
                    };
                    (attempt, result)
                });
            }
            let held = ready.len() + flying.len() + later.len();
            if !open && held == 0 {
                return;
            }
            let due = later.first_key_value().map(|((at, _), _)| *at);
            tokio::select! {
                m = rx.recv(), if open && held < SINK_QUEUE => match m {
                    Some(m) => ready.push_back((m, 0)),
                    None => open = false,
                },
                Some(done) = flying.join_next(), if !flying.is_empty() => {
                    let Ok(((m, attempt), result)) = done else { continue };
                    if let Some(wait) = self.settle(attempt, result) {
                        counter += 1;
                        later.insert((Instant::now() + wait, counter), (m, attempt + 1));
                    }
                }
                _ = tokio::time::sleep_until(due.unwrap_or_else(Instant::now)), if due.is_some() => {
                    let now = Instant::now();
                    while let Some(entry) = later.first_entry() {
                        if entry.key().0 > now {
                            break;
                        }
                        ready.push_back(entry.remove());
                    }
                }
            }
        }
    }

    /// Counts an attempt's outcome; the wait before the next attempt when there is one.
    fn settle(&self, attempt: usize, result: Result<(), String>) -> Option<std::time::Duration> {
        match result {
            Ok(()) => {
                self.status.with(&self.id, |s| {
                    s.sent += 1;
                    s.last_sent_at = Some(askd_store::now());
                });
                None
            }
            Err(e) => {
                tracing::warn!(sink = %self.label, attempt, error = %e, "notification not delivered");
                self.status.with(&self.id, |s| {
                    s.errors += 1;
                    s.last_error = Some(e);
                    s.last_error_at = Some(askd_store::now());
                });
                let wait = self.plan.borrow().retry.get(attempt).copied();
                if wait.is_none() {
                    self.status.with(&self.id, |s| s.failed += 1);
                }
                wait
            }
        }
    }
}

//! The notifier (`[notify]`): a message for every new ask and reminders for asks still
//! pending, to webhooks (generic JSON, ntfy, Slack-compatible) and the desktop.
//!
//! One task ([`run`]) follows the hub's committed events (`ask.created`, `ask.settled`)
//! and keeps a schedule of the pending asks in memory; it hands messages to a bounded queue
//! that a dispatcher drains into one bounded queue per sink, each with its own worker
//! (attempts with a timeout, retries scheduled at [`RETRY_DELAYS`], never slept in a slot:
//! [`deliver`]), so a failing or hanging sink delays only itself. Nothing here is on an
//! ask's path: the hub's broadcast never waits for a listener, and a full queue drops the
//! message (counted).
//!
//! **Reminders** are due at `created + after + k · remindEvery` (k = 0, 1, …; only k = 0
//! when `remindEvery` is 0), a pure function of the ask's stored creation time. The
//! schedule is not stored: after a restart, a pending ask whose reminder came due while no
//! daemon ran — or ran before the restart — gets at most **one** catch-up reminder shortly
//! after start, then follows its schedule. So a restart may repeat one reminder per
//! pending ask, never more; no "new ask" message is sent for asks that existed before.
//!
//! An ask already settled when the notifier reads it (answered within milliseconds) gets no
//! message at all: the human is not needed any more.
//!
//! **Quiet hours** defer: a message due inside them waits for their end, and the end sends
//! one message per ask (its "new ask" message if it was held, else one reminder); an ask
//! settled meanwhile gets none. The wall clock says when they end (a machine that slept
//! wakes late on the monotonic clock the wake-ups use).
//!
//! **Failures** are kept in memory per sink ([`SinkStatus`]: counts, last error and its
//! time), shown by `GET /api/notify` (the Settings page, `askd doctor`). Error texts never
//! contain a webhook's URL, which may be a secret; neither does the API (scheme and host
//! only).

use askd_core::EventKind;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use askd_store::{AskFilter, AskState, Event, Store};
use serde::Serialize;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use tokio::sync::{broadcast, mpsc, watch};
use tokio::time::Instant;

use crate::config::{NotifyConfig, QuietHours, WebhookConfig};

mod deliver;
mod live;
mod message;
mod send;

pub use live::NotifySettings;

pub use message::{Message, MessageKind, TITLE_MAX, plain_title};

/// Waits between the attempts of one delivery (so at most four attempts).
pub const RETRY_DELAYS: [Duration; 3] = [
    Duration::from_secs(1),
    Duration::from_secs(4),
    Duration::from_secs(16),
];
/// Messages waiting for the dispatcher; beyond this they are dropped (and counted).
const QUEUE: usize = 256;
/// A catch-up reminder after start waits this long (the daemon settles in first).
const CATCH_UP: Duration = Duration::from_secs(1);

/// What one sink has done since the daemon started.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SinkStatus {
    /// Which sink of the plan this is ([`sink_id`]: name, format and the URL's hash); not
    /// shown.
    #[serde(skip)]
    id: String,
    pub name: String,
    /// `webhook` or `desktop`.
    pub kind: &'static str,
    /// A webhook's format.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub format: Option<&'static str>,
    /// Where it goes, without secrets: a webhook's `scheme://host[:port]/…`, or the bus.
    pub target: String,
    /// Messages delivered.
    pub sent: u64,
    /// Messages given up after every retry.
    pub failed: u64,
    /// Failed attempts (retries included).
    pub errors: u64,
    /// Messages not queued for this sink because its queue was full (a sink that fails or
    /// hangs holds at most [`deliver::SINK_QUEUE`]; the other sinks are not affected).
    pub dropped: u64,
    pub last_sent_at: Option<String>,
    pub last_error: Option<String>,
    pub last_error_at: Option<String>,
}

/// Everything the notifier was told to do, from the daemon's settings.
#[derive(Debug, Clone)]
pub struct NotifyPlan {
    /// The base of the ask links: `publicUrl`, else the daemon's own URL.
    pub base_url: String,
    pub after: Option<Duration>,
    pub every: Option<Duration>,
    /// A reminder this long before a deadline ([`closing_at`]).
    pub before_deadline: Option<Duration>,
    pub quiet: Option<QuietHours>,
    pub webhooks: Vec<WebhookConfig>,
    /// The session bus when desktop notifications are on and a bus is there.
    pub dbus: Option<String>,
    /// macOS desktop notifications (`osascript`).
    pub macos: bool,
    pub retry: Vec<Duration>,
}

impl NotifyPlan {
    pub fn new(cfg: &NotifyConfig, base_url: &str, dbus: Option<&str>) -> Self {
        NotifyPlan {
            base_url: base_url.trim_end_matches('/').to_string(),
            after: cfg.after.duration(),
            every: cfg.remind_every.duration(),
            before_deadline: cfg.before_deadline.duration(),
            quiet: cfg.quiet_hours,
            webhooks: cfg.webhook.clone(),
            dbus: dbus.filter(|_| cfg.desktop).map(str::to_string),
            macos: cfg.desktop && cfg!(target_os = "macos"),
            retry: RETRY_DELAYS.to_vec(),
        }
    }

    fn desktop(&self) -> bool {
        self.dbus.is_some() || self.macos
    }

    /// Whether there is anywhere to send to.
    pub fn has_sinks(&self) -> bool {
        !self.webhooks.is_empty() || self.desktop()
    }
}

/// The notifier's state others read: the sinks' status, deferred and dropped counts, and
/// the settings in effect (replaced when they are saved from the Settings page).
#[derive(Debug)]
pub struct Status {
    sinks: Mutex<Vec<SinkStatus>>,
    deferred: AtomicU64,
    dropped: AtomicU64,
    view: Mutex<Value>,
}

/// A webhook URL without its secrets: scheme, host and port, `/…` when there is a path.
pub use crate::config::webhook_target as redact;

/// Why desktop notifications are on or off: a state the Settings page words in its own
/// language ([`Desktop::code`]), and the English line beside it ([`Desktop::why`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Desktop {
    /// `[notify] desktop = false`.
    Off,
    /// On, through the session D-Bus.
    DBus,
    /// On, through `osascript` (macOS).
    Osascript,
    /// On in the settings, but the daemon started with no desktop session.
    NoSession,
}

impl Desktop {
    pub fn of(cfg: &NotifyConfig, dbus: Option<&str>) -> Desktop {
        if !cfg.desktop {
            Desktop::Off
        } else if dbus.is_some() {
            Desktop::DBus
        } else if cfg!(target_os = "macos") {
            Desktop::Osascript
        } else {
            Desktop::NoSession
        }
    }

    /// The state's name in `GET /api/notify` (`desktop.state`).
    pub fn code(self) -> &'static str {
        match self {
            Desktop::Off => "off",
            Desktop::DBus => "dbus",
            Desktop::Osascript => "osascript",
            Desktop::NoSession => "no-session",
        }
    }

    pub fn why(self) -> &'static str {
        match self {
            Desktop::Off => "off: [notify] desktop = false",
            Desktop::DBus => "on: the session D-Bus (DBUS_SESSION_BUS_ADDRESS)",
            Desktop::Osascript => "on: osascript (macOS)",
            Desktop::NoSession => {
                "inactive: no desktop session (DBUS_SESSION_BUS_ADDRESS is not set when the daemon starts)"
            }
        }
    }
}

/// A fresh status line for every sink of `plan`: the webhooks in order, then the desktop.
fn sinks_of(plan: &NotifyPlan) -> Vec<SinkStatus> {
    let fresh = |id: String, name: String, kind, format, target: String| SinkStatus {
        id,
        name,
        kind,
        format,
        target,
        sent: 0,
        failed: 0,
        errors: 0,
        dropped: 0,
        last_sent_at: None,
        last_error: None,
        last_error_at: None,
    };
    let mut sinks: Vec<SinkStatus> = plan
        .webhooks
        .iter()
        .map(|w| {
            fresh(
                sink_id(w),
                w.name.clone(),
                "webhook",
                Some(w.format.as_str()),
                redact(&w.url),
            )
        })
        .collect();
    if plan.desktop() {
        let target = if plan.dbus.is_some() {
            "the session D-Bus (org.freedesktop.Notifications)"
        } else {
            "osascript (macOS)"
        };
        sinks.push(fresh(
            "desktop".to_string(),
            "desktop".to_string(),
            "desktop",
            None,
            target.to_string(),
        ));
    }
    sinks
}

/// What identifies a webhook's status line: a sink saved again unchanged keeps its counts.
fn sink_id(w: &WebhookConfig) -> String {
    // The URL's hash, not the URL: the status (and its `Debug`) holds no secret.
    let url = Sha256::digest(w.url.as_bytes());
    let url: String = url.iter().map(|b| format!("{b:02x}")).collect();
    format!("webhook\n{}\n{}\n{url}", w.name, w.format.as_str())
}

fn view_of(
    plan: &NotifyPlan,
    cfg: &NotifyConfig,
    public_url: Option<&str>,
    desktop: Desktop,
) -> Value {
    json!({
        "publicUrl": public_url,
        "linkBase": plan.base_url,
        "after": cfg.after,
        "remindEvery": cfg.remind_every,
        "quietHours": cfg.quiet_hours,
        "desktop": {
            "enabled": cfg.desktop,
            "active": plan.desktop(),
            "state": desktop.code(),
            "why": desktop.why(),
        },
        "retryDelaysSeconds": plan.retry.iter().map(Duration::as_secs).collect::<Vec<_>>(),
    })
}

impl Status {
    pub fn new(
        plan: &NotifyPlan,
        cfg: &NotifyConfig,
        public_url: Option<&str>,
        desktop: Desktop,
    ) -> Self {
        Status {
            sinks: Mutex::new(sinks_of(plan)),
            deferred: AtomicU64::new(0),
            dropped: AtomicU64::new(0),
            view: Mutex::new(view_of(plan, cfg, public_url, desktop)),
        }
    }

    /// The settings changed: the sinks of `plan` replace the old ones (a sink that is still
    /// there, unchanged, keeps its counts and last error).
    pub fn reconfigure(
        &self,
        plan: &NotifyPlan,
        cfg: &NotifyConfig,
        public_url: Option<&str>,
        desktop: Desktop,
    ) {
        {
            let mut sinks = self.sinks.lock().unwrap_or_else(|p| p.into_inner());
            let old = std::mem::take(&mut *sinks);
            *sinks = sinks_of(plan)
                .into_iter()
                .map(|new| old.iter().find(|o| o.id == new.id).cloned().unwrap_or(new))
                .collect();
        }
        *self.view.lock().unwrap_or_else(|p| p.into_inner()) =
            view_of(plan, cfg, public_url, desktop);
    }

    /// Updates the status line of the sink `id` (none when it was removed meanwhile).
    fn with(&self, id: &str, f: impl FnOnce(&mut SinkStatus)) {
        let mut s = self.sinks.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(s) = s.iter_mut().find(|s| s.id == id) {
            f(s);
        }
    }

    /// A snapshot of every sink.
    pub fn sinks(&self) -> Vec<SinkStatus> {
        self.sinks.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }

    /// The body of `GET /api/notify`: the settings in effect and every sink's status.
    pub fn view(&self) -> Value {
        let mut v = self.view.lock().unwrap_or_else(|p| p.into_inner()).clone();
        v["sinks"] = json!(self.sinks());
        v["deferred"] = json!(self.deferred.load(Ordering::Relaxed));
        v["dropped"] = json!(self.dropped.load(Ordering::Relaxed));
        v
    }
}

/// What the schedule keeps of a pending ask.
struct Tracked {
    title: Option<String>,
    who: String,
    kind: String,
    created_at: String,
    /// When the ask was created, on this clock.
    origin: Instant,
    /// The index of the next reminder.
    k: u32,
    /// When it is due; `None`: no more reminders.
    due: Option<Instant>,
    /// Its deadline, when it has one (issue 35).
    expires_at: Option<String>,
    /// When the "closes soon" reminder is due ([`closing_at`]); `None`: none (any more).
    closing: Option<Instant>,
    /// While the human has put the ask off (snooze): when it is back, and the "back in
    /// your inbox" message goes. Reminders wait meanwhile.
    back: Option<Instant>,
}

impl Tracked {
    /// A pending ask as the store lists it, before [`Scheduler::track`] schedules it.
    fn new(a: &askd_store::AskSummary, origin: Instant) -> Self {
        Tracked {
            title: a.title.clone(),
            who: a.client.clone(),
            kind: a.kind.clone(),
            created_at: a.created_at.clone(),
            origin,
            k: 0,
            due: None,
            expires_at: a.expires_at.clone(),
            closing: None,
            back: a.deferred_until.as_deref().and_then(wall_instant),
        }
    }
}

struct Scheduler {
    plan: Arc<NotifyPlan>,
    /// Team mode: the notifier's cursor ([`NOTIFIER_CURSOR`]) is kept in the database.
    team: bool,
    /// The cursor's next value, not written yet, and when it was last written: it is
    /// written at most every [`CURSOR_EVERY`] (a write of the team's database per new ask
    /// would queue behind every ask's own), so a takeover may announce again the asks of
    /// the holder's last moment — never lose one.
    cursor: (Option<i64>, Instant),
    tracked: HashMap<String, Tracked>,
    /// Messages held back by quiet hours, with when they go.
    deferred: Vec<(Instant, Message)>,
    tx: mpsc::Sender<Message>,
    status: Arc<Status>,
}

impl Scheduler {
    /// New settings: every pending ask's next reminder follows the new times (one that is
    /// now past goes out at once, once), and deferred messages face the new quiet hours.
    /// Returns whether the pending asks must be read again: the plan has a sink now and had
    /// none (asks are not followed while there is nowhere to send).
    fn reconfigure(&mut self, plan: Arc<NotifyPlan>) -> bool {
        let had = self.plan.has_sinks();
        self.plan = plan;
        if !self.plan.has_sinks() {
            self.tracked.clear();
            self.deferred.clear();
            self.status.deferred.store(0, Ordering::Relaxed);
            return false;
        }
        let now = Instant::now();
        let plan = self.plan.clone();
        for t in self.tracked.values_mut() {
            t.due = due_at(&plan, t.origin, t.k).map(|d| d.max(now));
            t.closing = closing_at(&plan, &t.created_at, t.expires_at.as_deref());
        }
        let held: Vec<Message> = std::mem::take(&mut self.deferred)
            .into_iter()
            .map(|(_, m)| m)
            .collect();
        if self.quiet_left().is_some() {
            for m in held {
                self.emit(m);
            }
        } else {
            for m in one_per_ask(held) {
                self.send(m);
            }
        }
        self.count_deferred();
        !had
    }

    /// The `k`-th reminder's time.
    fn due_at(&self, origin: Instant, k: u32) -> Option<Instant> {
        due_at(&self.plan, origin, k)
    }

    fn message(&self, kind: MessageKind, id: &str, t: &Tracked) -> Message {
        let mut m = Message::new(
            kind,
            id,
            t.title.as_deref(),
            &t.who,
            &t.kind,
            &self.plan.base_url,
            &t.created_at,
        );
        m.expires_at = t.expires_at.clone();
        m
    }

    /// Starts following a pending ask. `fresh`: it was just created (a "new ask" message);
    /// otherwise it was there at start, and a reminder already due comes once, soon.
    fn track(&mut self, id: String, summary: Tracked, fresh: bool) {
        if self.tracked.contains_key(&id) {
            return;
        }
        let mut t = summary;
        let now = Instant::now();
        t.due = self.due_at(t.origin, 0);
        t.closing = closing_at(&self.plan, &t.created_at, t.expires_at.as_deref());
        if !fresh && t.due.is_some_and(|d| d <= now) {
            // Reminders missed while no daemon followed this ask: one now, then the schedule.
            let mut k = 0;
            while self.due_at(t.origin, k + 1).is_some_and(|d| d <= now) {
                k += 1;
            }
            t.k = k;
            t.due = Some(now + CATCH_UP);
        }
        if fresh {
            let m = self.message(MessageKind::New, &id, &t);
            self.emit(m);
        }
        self.tracked.insert(id, t);
    }

    /// How long quiet hours still last by the wall clock, or `None` outside them.
    fn quiet_left(&self) -> Option<Duration> {
        let q = self.plan.quiet?;
        let now = chrono::Local::now();
        use chrono::Timelike;
        let minute = (now.hour() * 60 + now.minute()) as u16;
        let left = q.minutes_left(minute);
        (left > 0).then(|| Duration::from_secs(u64::from(left) * 60 - u64::from(now.second())))
    }

    /// Sends now, or defers to the end of quiet hours. Outside them, whatever they held goes
    /// out with it, one message per ask ([`one_per_ask`]): the wall clock decides that quiet
    /// hours are over, not only the wake-up set when the message was deferred (a machine
    /// that slept through the night wakes late on its monotonic clock).
    fn emit(&mut self, m: Message) {
        if let Some(left) = self.quiet_left() {
            let at = Instant::now() + left;
            let dup = m.kind == MessageKind::Reminder
                && self
                    .deferred
                    .iter()
                    .any(|(_, d)| d.ask_id == m.ask_id && d.kind == m.kind);
            if !dup {
                self.deferred.push((at, m));
            }
            self.count_deferred();
            return;
        }
        let mut batch: Vec<Message> = std::mem::take(&mut self.deferred)
            .into_iter()
            .map(|(_, d)| d)
            .collect();
        self.count_deferred();
        batch.push(m);
        for m in one_per_ask(batch) {
            self.send(m);
        }
    }

    fn count_deferred(&self) {
        self.status
            .deferred
            .store(self.deferred.len() as u64, Ordering::Relaxed);
    }

    fn send(&self, m: Message) {
        if self.tx.try_send(m).is_err() {
            self.status.dropped.fetch_add(1, Ordering::Relaxed);
            tracing::warn!("the notification queue is full: a message was dropped");
        }
    }

    fn forget(&mut self, id: &str) {
        self.tracked.remove(id);
        self.deferred.retain(|(_, m)| m.ask_id != id);
        self.count_deferred();
    }

    fn next_wake(&self) -> Option<Instant> {
        let due = self
            .tracked
            .values()
            .flat_map(|t| [t.due, t.closing, t.back])
            .flatten();
        let deferred = self.deferred.iter().map(|(at, _)| *at);
        let cursor = self.cursor.0.map(|_| self.cursor.1 + CURSOR_EVERY);
        due.chain(deferred).chain(cursor).min()
    }

    /// Notes that the events up to `seq` were handled; written now when the last write is
    /// [`CURSOR_EVERY`] old, else at the next tick after that.
    async fn handled(&mut self, store: &dyn Store, seq: i64) {
        self.cursor.0 = Some(self.cursor.0.map_or(seq, |c| c.max(seq)));
        if self.cursor.1.elapsed() >= CURSOR_EVERY {
            self.flush_cursor(store).await;
        }
    }

    /// Writes the cursor's pending value, if any.
    async fn flush_cursor(&mut self, store: &dyn Store) {
        if let Some(seq) = self.cursor.0.take() {
            self.advance(store, seq).await;
            self.cursor.1 = Instant::now();
        }
    }

    /// Re-reads the pending asks: follows the ones not followed yet, forgets the rest.
    /// `takeover` (team mode, this daemon just became the notifier): the asks created after
    /// the team's cursor were not announced by the daemon before it, so they are announced
    /// now; the older ones get reminders only.
    async fn resync(&mut self, store: &dyn Store, at_start: bool, takeover: bool) {
        if !self.plan.has_sinks() {
            return;
        }
        let cursor = if self.team && takeover {
            store.cursor(NOTIFIER_CURSOR).await.ok().flatten()
        } else {
            None
        };
        let filter = AskFilter {
            state: Some(AskState::Pending),
            ..AskFilter::default()
        };
        let pending = match store.asks(&filter).await {
            Ok(p) => p,
            Err(e) => {
                tracing::error!(error = %e, "notifier: cannot list the pending asks");
                return;
            }
        };
        let ids: Vec<String> = pending.iter().map(|a| a.id.clone()).collect();
        // Read after the pending asks, so every one of them created after the cursor is seen.
        let (unannounced, read_to) = match cursor {
            Some(c) => created_after(store, c).await,
            None => (Vec::new(), None),
        };
        let gone: Vec<String> = self
            .tracked
            .keys()
            .filter(|id| !ids.contains(id))
            .cloned()
            .collect();
        for id in gone {
            self.forget(&id);
        }
        for a in pending {
            let t = Tracked::new(&a, origin_of(&a.created_at));
            // Asks missed while the event stream lagged are new to the human too, and so
            // are the ones no notifier announced before this one took over.
            let fresh = !at_start || unannounced.contains(&a.id);
            self.track(a.id, t, fresh);
        }
        if self.team {
            let to = match read_to {
                Some(seq) => Some(seq),
                None => store.last_event().await.ok(),
            };
            if let Some(seq) = to {
                self.advance(store, seq).await;
            }
        }
    }

    /// Records in the team's cursor that the events up to `seq` were handled.
    async fn advance(&self, store: &dyn Store, seq: i64) {
        if let Err(e) = store.advance_cursor(NOTIFIER_CURSOR, seq).await {
            tracing::warn!(error = %e, "notifier: cannot record how far it announced");
        }
    }

    async fn on_event(&mut self, store: &dyn Store, e: Event) {
        // Nowhere to send: nothing to follow (a sink added later reads the pending asks).
        if !self.plan.has_sinks() {
            return;
        }
        let Some(id) = e.payload.get("ask_id").and_then(Value::as_str) else {
            return;
        };
        match EventKind::parse(&e.kind) {
            Some(EventKind::AskCreated) => match store.ask(id).await {
                Ok(Some(a)) if a.state == AskState::Pending => {
                    let t = Tracked {
                        title: a.title,
                        who: a.client,
                        kind: a.kind,
                        origin: Instant::now(),
                        created_at: a.created_at,
                        k: 0,
                        due: None,
                        expires_at: a.expires_at,
                        closing: None,
                        back: None,
                    };
                    self.track(a.id, t, true);
                    if self.team {
                        self.handled(store, e.seq).await;
                    }
                }
                Ok(_) => {}
                Err(err) => tracing::error!(error = %err, "notifier: cannot read a new ask"),
            },
            Some(EventKind::AskSettled) => {
                // An ask nobody answered by its deadline is worth a word: the agent went on
                // with its default (or without an answer). Any other settle needs none.
                let expired = e.payload.get("outcome") == Some(&json!(askd_core::Outcome::Expired));
                let t = self.tracked.remove(id);
                self.forget(id);
                if let (true, Some(t)) = (expired, t) {
                    let m = self.message(MessageKind::Expired, id, &t);
                    self.emit(m);
                }
            }
            Some(EventKind::AskDeadline) => {
                let plan = self.plan.clone();
                if let Some(t) = self.tracked.get_mut(id) {
                    t.expires_at = e.payload["expires_at"].as_str().map(str::to_string);
                    t.closing = closing_at(&plan, &t.created_at, t.expires_at.as_deref());
                }
            }
            Some(EventKind::AskEscalated) => {
                if let Some(t) = self.tracked.get_mut(id) {
                    // The deadline is gone: no "closes soon" any more.
                    t.expires_at = None;
                    t.closing = None;
                }
                if let Some(t) = self.tracked.get(id) {
                    let mut m = self.message(MessageKind::Escalated, id, t);
                    m.audience = e.payload["to"].as_str().map(str::to_string);
                    self.emit(m);
                }
            }
            Some(EventKind::AskDeferred) => {
                if let Some(t) = self.tracked.get_mut(id) {
                    t.back = e.payload["deferred_until"].as_str().and_then(wall_instant);
                }
            }
            _ => {}
        }
    }

    /// Sends what is due: reminders (of asks still pending) and deferred messages.
    async fn on_tick(&mut self, store: &dyn Store) {
        if self.cursor.1.elapsed() >= CURSOR_EVERY {
            self.flush_cursor(store).await;
        }
        let now = Instant::now();
        let due: Vec<String> = self
            .tracked
            .iter()
            .filter(|(_, t)| t.due.is_some_and(|d| d <= now))
            .map(|(id, _)| id.clone())
            .collect();
        self.deadlines_and_snoozes(store, now).await;
        for id in due {
            if !still_pending(store, &id).await {
                self.forget(&id);
                continue;
            }
            let Some(t) = self.tracked.get(&id) else {
                continue;
            };
            // Put off by the human: no reminder until it is back (its "back" message is one).
            let quiet = t.back.is_some();
            let m = self.message(MessageKind::Reminder, &id, t);
            let origin = t.origin;
            let mut k = t.k + 1;
            // Never a burst: skip the times already past (a suspended machine, quiet hours).
            while self.due_at(origin, k).is_some_and(|d| d <= now) {
                k += 1;
            }
            let next = self.due_at(origin, k);
            if let Some(t) = self.tracked.get_mut(&id) {
                t.k = k;
                t.due = next;
            }
            if !quiet {
                self.emit(m);
            }
        }
        // Quiet hours are over by the wall clock: what they held goes, one message per ask.
        let ready: Vec<Message> = match self.quiet_left() {
            Some(left) => {
                // Still quiet (the wake-up came early): wait for the end as it is now.
                for (at, _) in &mut self.deferred {
                    *at = (*at).max(now + left);
                }
                Vec::new()
            }
            None => std::mem::take(&mut self.deferred)
                .into_iter()
                .map(|(_, m)| m)
                .collect(),
        };
        self.count_deferred();
        for m in one_per_ask(ready) {
            if still_pending(store, &m.ask_id).await {
                self.send(m);
            }
        }
    }
}

impl Scheduler {
    /// Sends the due "closes soon" reminders (of asks still pending, before their
    /// deadline) and "back in your inbox" messages (snoozes that ended).
    async fn deadlines_and_snoozes(&mut self, store: &dyn Store, now: Instant) {
        let due: Vec<(String, MessageKind)> = self
            .tracked
            .iter()
            .flat_map(|(id, t)| {
                let closing = t
                    .closing
                    .filter(|d| *d <= now)
                    .map(|_| MessageKind::Closing);
                let back = t.back.filter(|d| *d <= now).map(|_| MessageKind::Back);
                [closing, back]
                    .into_iter()
                    .flatten()
                    .map(|k| (id.clone(), k))
            })
            .collect();
        for (id, kind) in due {
            let Some(t) = self.tracked.get_mut(&id) else {
                continue;
            };
            match kind {
                MessageKind::Closing => t.closing = None,
                _ => t.back = None,
            }
            let open = t
                .expires_at
                .as_deref()
                .is_none_or(|at| at > askd_store::now().as_str());
            if kind == MessageKind::Closing && !open {
                continue;
            }
            if !still_pending(store, &id).await {
                self.forget(&id);
                continue;
            }
            if let Some(t) = self.tracked.get(&id) {
                let m = self.message(kind, &id, t);
                self.emit(m);
            }
        }
    }
}

/// When the "closes soon" reminder of an ask created at `created_at` with the deadline
/// `expires_at` is due: `beforeDeadline` before the deadline, when the deadline was at
/// least twice that far from the ask's creation (a two-minute deadline gets no reminder a
/// minute in); already past but before the deadline (a restart, a deadline moved nearer):
/// shortly, once. `None`: no reminder.
fn closing_at(plan: &NotifyPlan, created_at: &str, expires_at: Option<&str>) -> Option<Instant> {
    let lead = plan.before_deadline?;
    let parse = |t: &str| {
        chrono::DateTime::parse_from_rfc3339(t)
            .ok()
            .map(|t| t.with_timezone(&chrono::Utc))
    };
    let expires = parse(expires_at?)?;
    let span = (expires - parse(created_at)?).to_std().ok()?;
    if span < lead * 2 {
        return None;
    }
    let lead = chrono::Duration::from_std(lead).ok()?;
    let now = chrono::Utc::now();
    if expires <= now {
        return None;
    }
    let at = expires - lead;
    if at <= now {
        return Some(Instant::now() + CATCH_UP);
    }
    instant_of(at)
}

/// A stored wall-clock time (RFC 3339) on this process's clock; `None` when it has passed
/// or cannot be read.
fn wall_instant(at: &str) -> Option<Instant> {
    let t = chrono::DateTime::parse_from_rfc3339(at).ok()?;
    instant_of(t.with_timezone(&chrono::Utc))
}

/// A wall-clock time still to come, on this process's clock.
fn instant_of(t: chrono::DateTime<chrono::Utc>) -> Option<Instant> {
    let ahead = (t - chrono::Utc::now()).to_std().ok()?;
    Some(Instant::now() + ahead)
}

/// What the end of quiet hours sends for a batch of messages: one per ask, in the batch's
/// order — its "new ask" message when the batch holds one (a reminder beside it says nothing
/// more), else its latest reminder.
fn one_per_ask(batch: Vec<Message>) -> Vec<Message> {
    let mut out: Vec<Message> = Vec::new();
    for m in batch {
        match out.iter_mut().find(|o| o.ask_id == m.ask_id) {
            None => out.push(m),
            // The expiry (or an escalation) says the last word about its ask.
            Some(o) if matches!(m.kind, MessageKind::Expired | MessageKind::Escalated) => *o = m,
            Some(o) if o.kind == MessageKind::New => {}
            Some(o) => *o = m,
        }
    }
    out
}

/// The team's cursor of the notifier: the last event its holder handled.
pub const NOTIFIER_CURSOR: &str = "notifier";
/// The notifier's cursor is written at most this often.
const CURSOR_EVERY: Duration = Duration::from_secs(1);

/// The asks created after event `after` (their `ask.created` events, read to the end), and
/// the last seq read.
async fn created_after(store: &dyn Store, mut after: i64) -> (Vec<String>, Option<i64>) {
    const PAGE: u32 = 1_000;
    let mut ids = Vec::new();
    let mut last = None;
    loop {
        let page = match store.events_after(after, PAGE).await {
            Ok(p) => p,
            Err(e) => {
                tracing::warn!(error = %e, "notifier: cannot read the events after its cursor");
                return (ids, None);
            }
        };
        let full = page.len() == PAGE as usize;
        for e in page {
            if e.kind == EventKind::AskCreated
                && let Some(id) = e.payload.get("ask_id").and_then(Value::as_str)
            {
                ids.push(id.to_string());
            }
            after = e.seq;
            last = Some(e.seq);
        }
        if !full {
            return (ids, last);
        }
    }
}

/// The `k`-th reminder's time under `plan`: `after`, then every `remindEvery`.
fn due_at(plan: &NotifyPlan, origin: Instant, k: u32) -> Option<Instant> {
    let after = plan.after?;
    match (k, plan.every) {
        (0, _) => Some(origin + after),
        (_, None) => None,
        (k, Some(every)) => Some(origin + after + every * k),
    }
}

async fn still_pending(store: &dyn Store, id: &str) -> bool {
    matches!(store.ask(id).await, Ok(Some(a)) if a.state == AskState::Pending)
}

/// The instant an ask was created (its stored RFC 3339 time), on this process's clock.
fn origin_of(created_at: &str) -> Instant {
    let now = Instant::now();
    let age = chrono::DateTime::parse_from_rfc3339(created_at)
        .ok()
        .and_then(|t| {
            (chrono::Utc::now() - t.with_timezone(&chrono::Utc))
                .to_std()
                .ok()
        })
        .unwrap_or_default();
    now.checked_sub(age).unwrap_or(now)
}

/// The notifier: follows `events` (subscribed before the daemon accepts requests) until
/// `stop`, with the settings `plan` holds (saved from the Settings page without a restart).
/// With no sink it follows nothing (no read per new ask); when the first sink is saved it
/// reads the pending asks, as at start: reminders for them, no "new ask" message.
pub async fn run(
    store: Arc<dyn Store>,
    mut events: broadcast::Receiver<Event>,
    mut plan: watch::Receiver<Arc<NotifyPlan>>,
    status: Arc<Status>,
    mut stop: watch::Receiver<bool>,
    team: bool,
) {
    let (tx, rx) = mpsc::channel(QUEUE);
    tokio::spawn(deliver::dispatch(rx, plan.clone(), status.clone()));
    let first = plan.borrow_and_update().clone();
    let mut s = Scheduler {
        plan: first,
        team,
        // The first write is not held back.
        cursor: (
            None,
            Instant::now()
                .checked_sub(CURSOR_EVERY)
                .unwrap_or_else(Instant::now),
        ),
        tracked: HashMap::new(),
        deferred: Vec::new(),
        tx,
        status,
    };
    s.resync(store.as_ref(), true, team).await;
    loop {
        let wake = s.next_wake();
        tokio::select! {
            _ = async { stop.wait_for(|v| *v).await.is_ok() } => {
                s.flush_cursor(store.as_ref()).await;
                return;
            }
            ev = events.recv() => match ev {
                Ok(e) => s.on_event(store.as_ref(), e).await,
                Err(broadcast::error::RecvError::Lagged(_)) => s.resync(store.as_ref(), false, false).await,
                Err(broadcast::error::RecvError::Closed) => return,
            },
            changed = plan.changed() => match changed {
                Ok(()) => {
                    let p = plan.borrow_and_update().clone();
                    if s.reconfigure(p) {
                        // Asks pending when the first sink came: reminders, no "new ask".
                        s.resync(store.as_ref(), true, false).await;
                    }
                }
                Err(_) => return,
            },
            _ = tokio::time::sleep_until(wake.unwrap_or_else(Instant::now)), if wake.is_some() => {
                s.on_tick(store.as_ref()).await;
            }
        }
    }
}

async fn desktop_once(plan: &NotifyPlan, m: &Message) -> Result<(), String> {
    if let Some(bus) = &plan.dbus {
        return send::desktop_once(bus, m).await;
    }
    #[cfg(target_os = "macos")]
    if plan.macos {
        return send::macos_once(m).await;
    }
    Err("no desktop session".to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(kind: MessageKind, ask: &str) -> Message {
        Message::new(
            kind,
            ask,
            Some("t"),
            "who",
            "survey",
            "http://x",
            "2026-12-03T00:00:00Z",
        )
    }

    #[test]
    fn the_end_of_quiet_hours_sends_one_message_per_ask() {
        use MessageKind::{New, Reminder};
        let out = one_per_ask(vec![
            m(Reminder, "a"),
            m(New, "b"),
            m(New, "a"),
            m(Reminder, "b"),
            m(Reminder, "c"),
            m(Reminder, "c"),
        ]);
        let got: Vec<(MessageKind, &str)> =
            out.iter().map(|m| (m.kind, m.ask_id.as_str())).collect();
        assert_eq!(got, [(New, "a"), (New, "b"), (Reminder, "c")]);
    }
}

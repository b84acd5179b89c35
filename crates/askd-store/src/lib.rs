//! askd's durable store: sessions, asks, banked answers, autosaves, settled records and the
//! event log behind one interface, [`Store`].
//!
//! # Layout
//! - [`model`] — the plain data the store takes and returns.
//! - `shared` — the store's logic, written once for both backends: every store trait but
//!   [`LockStore`] and [`Upkeep`] as a blanket impl over a backend's `Backend` (where its
//!   jobs run: SQLite's writer task, a PostgreSQL transaction under the write lock).
//! - `lists` — the list reads (asks, records, events), written once with each dialect's
//!   hints.
//! - `db` — the per-dialect layer: one connection of either backend, its binds and rows,
//!   and the few statements that differ (`db::sqlite`: SQLite's stored-once members and
//!   interned texts; `db::pg`: the event append with its notification).
//! - [`sqlite`] — the embedded SQLite backend (WAL, `synchronous=FULL`, foreign keys,
//!   embedded migrations run at open; one writer task group-commits).
//! - [`pg`] — the PostgreSQL backend (team mode: several daemons on one database; writes
//!   serialised by an advisory lock so events commit in seq order, each event notified on
//!   `askd_events`).
//! - [`conformance`] (feature `conformance`) — the behaviour every backend must show, as one
//!   suite of async checks a backend's tests call unchanged; [`pg_test`] (same feature) gives
//!   tests a PostgreSQL server and a fresh database each.
//!
//! # Invariants
//! - Only this crate knows SQL. Callers see [`Store`] and the [`model`] types.
//! - Write-ahead: every mutation is committed (fsynced) before its method returns.
//! - Settle once: [`AskStore::settle`] is a compare-and-set on the pending state; the loser gets
//!   [`StoreError::NotPending`], and nothing changes.
//! - Every mutation appends its event(s) in the same transaction, so the event log replays
//!   exactly what happened, in commit order. The one write without an event is an alignment
//!   checkpoint ([`AlignmentStore::save_alignment_checkpoint`]): derived data, not history.
//! - The store knows nothing about survey rules: callers validate with `askd-core` first and
//!   pass JSON the store keeps verbatim.
//! - The store holds no domain rules: which settles deliver their result as they settle
//!   ([`Settlement::delivered`]) and which creates return an undelivered result
//!   ([`NewAsk::return_undelivered`]) are the caller's decisions; it knows no outcome or kind
//!   names.
//! - Each rule is written once: the backends differ only in where a job runs, their
//!   migrations and machinery, and the statements `db` keeps per dialect.

mod cursors;
mod db;
mod lists;
pub mod model;
pub mod pg;
mod shared;
pub mod sqlite;

#[cfg(feature = "conformance")]
pub mod conformance;
#[cfg(feature = "conformance")]
pub mod pg_test;

pub use cursors::CursorStore;
pub use model::*;
pub use pg::{PgEvents, PgStore};
pub use sqlite::SqliteStore;

/// The current instant as RFC 3339 UTC with milliseconds: askd's timestamp format.
pub fn now() -> String {
    time_text(chrono::Utc::now())
}

/// A time as the store keeps it: UTC, RFC 3339 with milliseconds (so it sorts as text).
pub fn time_text(t: chrono::DateTime<chrono::Utc>) -> String {
    t.to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

use async_trait::async_trait;
use serde_json::Value;

/// Why a store operation failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StoreError {
    /// No ask (or session) with that id.
    NotFound,
    /// The ask has already settled.
    NotPending,
    /// A concurrent write got there first (e.g. the same question banked twice).
    Conflict(String),
    /// The session named by a new ask does not exist.
    UnknownSession(String),
    /// The disk (or the volume's quota) is full: nothing was written. Reads still work.
    /// SQLite's `SQLITE_FULL` and the OS's `ENOSPC` land here; the message is the backend's.
    StorageFull(String),
    /// The database cannot be reached right now (PostgreSQL: the connection was refused or
    /// cut, the server is shutting down or restarting, the pool timed out): nothing was
    /// written by this call; trying again later may succeed. SQLite never returns it.
    Unavailable(String),
    /// The connection was lost while the write's `COMMIT` ran (PostgreSQL): the database
    /// may or may not have saved it. Repeating the write is safe (a repeated settle finds
    /// the ask settled; the daemon answers an identical repeat with the saved result).
    CommitUnknown(String),
    /// The backend failed (I/O, corruption, …). The message never holds a secret.
    Backend(String),
}

impl std::fmt::Display for StoreError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StoreError::NotFound => f.write_str("not found"),
            StoreError::NotPending => f.write_str("the ask is no longer pending"),
            StoreError::Conflict(m) => write!(f, "conflict: {m}"),
            StoreError::UnknownSession(s) => write!(f, "unknown session {s:?}"),
            StoreError::StorageFull(m) => write!(f, "the disk is full: {m}"),
            StoreError::Unavailable(m) => write!(f, "the database is unavailable: {m}"),
            StoreError::CommitUnknown(m) => write!(
                f,
                "the database connection was lost while the write committed, so it may have been saved: {m}"
            ),
            StoreError::Backend(m) => write!(f, "store backend error: {m}"),
        }
    }
}

impl std::error::Error for StoreError {}

/// The error a write gets when its transaction rolled back for another write's failure.
pub(crate) fn rolled_back() -> StoreError {
    StoreError::Backend("the write's transaction was rolled back; nothing was saved".into())
}

pub type StoreResult<T> = Result<T, StoreError>;

/// A lock held across daemons ([`LockStore::hold`]): released when dropped.
#[async_trait]
pub trait Held: Send + Sync {
    /// Whether the lock is still held: `false` once the connection that holds it is gone
    /// (a database restart ends the session and its locks) — the holder must stop acting
    /// as the holder and contend for the lock again. A probe of the database; keep it rare.
    async fn alive(&mut self) -> bool {
        true
    }
}

/// The one store interface, as the union of its concerns. Both backends (SQLite, PostgreSQL
/// for team mode) implement every part and pass [`conformance`]; any type that implements
/// them all is a `Store`, so callers keep one `Arc<dyn Store>` and import the part whose
/// methods they call.
pub trait Store:
    SessionStore
    + AskStore
    + EventStore
    + SettingsStore
    + AlignmentStore
    + DraftStore
    + LockStore
    + CursorStore
    + Upkeep
    + 'static
{
}

impl<T> Store for T where
    T: SessionStore
        + AskStore
        + EventStore
        + SettingsStore
        + AlignmentStore
        + DraftStore
        + LockStore
        + CursorStore
        + Upkeep
        + 'static
{
}

/// Sessions: an agent's connection, continued by id.
#[async_trait]
pub trait SessionStore: Send + Sync {
    /// Creates a session, or returns the existing one when `id` names one (an agent
    /// continuing an earlier session).
    async fn open_session(&self, session: NewSession) -> StoreResult<Session>;

    async fn session(&self, id: &str) -> StoreResult<Option<Session>>;

    async fn sessions(&self) -> StoreResult<Vec<Session>>;
}

/// Asks: create (with re-attach and supersession), bank, autosave, claim, settle once, delivery,
/// and the settled records.
#[async_trait]
pub trait AskStore: Send + Sync {
    /// Creates a pending ask, atomically with its `ask.created` event, its seeded banked
    /// answers and autosave, and the supersession of the ask it replaces (when that one is
    /// still pending in the same session). When the session already has a pending ask of
    /// the same kind with the same `payload_key`, nothing is created and that ask is
    /// returned with `created: false` (re-attach).
    async fn create_ask(&self, ask: NewAsk) -> StoreResult<Created> {
        self.create_ask_with(ask, &[]).await
    }

    /// [`AskStore::create_ask`], with `follow` session events appended after `ask.created` in
    /// the same transaction (a drift card and its `alignment.drift_reported`). On re-attach
    /// nothing is written, `follow` included.
    async fn create_ask_with(&self, ask: NewAsk, follow: &[FollowEvent]) -> StoreResult<Created>;

    async fn ask(&self, id: &str) -> StoreResult<Option<Ask>>;

    async fn asks(&self, filter: &AskFilter) -> StoreResult<Vec<AskSummary>>;

    /// `(id, kind, payload)` of each of these asks that exists, in any order: what a reader
    /// of many asks' questions (the alignment fold) needs, without their results or banked
    /// entries, in a query per few hundred ids instead of one per ask.
    async fn ask_payloads(&self, ids: &[String]) -> StoreResult<Vec<(String, String, Value)>>;

    /// Counts asks by state, for health and doctor.
    async fn count_asks(&self, state: Option<AskState>) -> StoreResult<u64>;

    /// Commits banked answers (write-ahead) and emits `ask.banked`. A question already
    /// banked is a [`StoreError::Conflict`]: callers filter identical re-banks first.
    async fn bank(&self, ask_id: &str, entries: &[NewBanked]) -> StoreResult<Banked>;

    /// Replaces the ask's autosave (last writer wins), bumps its revision and emits
    /// `ask.autosaved`.
    async fn autosave(&self, ask_id: &str, autosave: &serde_json::Value) -> StoreResult<Autosaved>;

    /// Sets who is on a pending ask (team mode's claim: `{id, name, at}` of a member), or
    /// clears it with `None`, and emits `ask.claimed` `{ask_id, claim}`. The last claim
    /// wins; a settled ask is [`StoreError::NotPending`].
    async fn claim(&self, ask_id: &str, claim: Option<&serde_json::Value>) -> StoreResult<Event>;

    /// Settles a pending ask exactly once, writing its record and `ask.settled` in the same
    /// transaction.
    async fn settle(&self, ask_id: &str, settlement: &Settlement) -> StoreResult<Event> {
        let mut events = self.settle_with(ask_id, settlement, &[]).await?;
        Ok(events.remove(0))
    }

    /// [`AskStore::settle`], with `follow` session events appended after `ask.settled` in the
    /// same transaction (a drift decision with its card's settle). Returns `ask.settled`
    /// first, then the follow events.
    async fn settle_with(
        &self,
        ask_id: &str,
        settlement: &Settlement,
        follow: &[FollowEvent],
    ) -> StoreResult<Vec<Event>>;

    /// Records that an agent call got the settled ask's result (clients.md §2.5); `false`
    /// when it was already delivered or the ask is not settled. Until then, an identical
    /// create in the same session returns this ask instead of a new one.
    async fn mark_delivered(&self, ask_id: &str) -> StoreResult<bool>;

    /// Marks whether an agent is still waiting on the ask (an MCP cancellation clears it).
    async fn set_awaited(&self, ask_id: &str, awaited: bool) -> StoreResult<()>;

    /// Moves a pending ask's deadline to `expires_at` and emits `ask.deadline` `{ask_id,
    /// expires_at}` (issue 35). An ask without a deadline is [`StoreError::Conflict`], a
    /// settled one [`StoreError::NotPending`].
    async fn set_expiry(&self, ask_id: &str, expires_at: &str) -> StoreResult<Event>;

    /// Puts a pending ask off until `until` (snooze, issue 35) and emits `ask.deferred`
    /// `{ask_id, deferred_until}`. A settled ask is [`StoreError::NotPending`].
    async fn defer(&self, ask_id: &str, until: &str) -> StoreResult<Event>;

    /// Escalates a pending ask whose deadline is still `expires_at` (issue 35): clears the
    /// deadline, stores `deadline` (its escalation chain) and emits `ask.escalated` `{ask_id,
    /// to, escalated_at}`. `None` when the ask is settled or its deadline moved meanwhile —
    /// another daemon escalated it, or a person gave it more time.
    async fn escalate(
        &self,
        ask_id: &str,
        expires_at: &str,
        deadline: &Value,
        to: &str,
    ) -> StoreResult<Option<Event>>;

    /// Records a member's `vote` (`{answered_by, voted_at, rejects, answer}`) on a pending ask
    /// with approvals (issue 35), replacing that member's earlier vote, and emits `ask.voted`.
    /// When the votes decide ([`askd_core::approvals::decides`]: a rejection, or the quorum),
    /// settles with `decide` — every vote put in its result and record — and the `follow`
    /// events, in the same transaction. An ask without approvals is [`StoreError::Conflict`],
    /// a settled one [`StoreError::NotPending`].
    async fn vote(
        &self,
        ask_id: &str,
        vote: &Value,
        decide: &Settlement,
        follow: &[FollowEvent],
    ) -> StoreResult<Voted>;

    /// The pending asks that have a deadline, soonest first, at most `limit`: `(id,
    /// expires_at)` (the `asks_expiring` index).
    async fn expiring(&self, limit: u32) -> StoreResult<Vec<(String, String)>>;

    /// Settled records, newest first.
    async fn records(&self, filter: &RecordFilter) -> StoreResult<Vec<Record>>;
}

/// The event log: every mutation's events, in commit order, and the session events that
/// belong to no ask.
#[async_trait]
pub trait EventStore: Send + Sync {
    /// Appends one session event that belongs to no ask (the alignment events of
    /// `alignment.md` §4.4): `payload` gets `session` set to `session_id`. An unknown session
    /// is [`StoreError::UnknownSession`], and nothing is written.
    async fn append_session_event(
        &self,
        session_id: &str,
        kind: &str,
        payload: Value,
    ) -> StoreResult<Event>;

    /// Events with a sequence number above `after`, oldest first, at most `limit`.
    async fn events_after(&self, after: i64, limit: u32) -> StoreResult<Vec<Event>>;

    /// One session's events — those whose payload names it in `session` — oldest first.
    async fn session_events(&self, session_id: &str) -> StoreResult<Vec<Event>>;

    /// One session's events with a sequence number above `after`, oldest first, at most
    /// `limit` (the events a fold resumed from a checkpoint at `after` still has to apply, a
    /// bounded batch at a time).
    async fn session_events_after(
        &self,
        session_id: &str,
        after: i64,
        limit: u32,
    ) -> StoreResult<Vec<Event>>;

    /// One session's events other than its asks' (`ask.*`): its alignment and connection
    /// log, oldest first, without reading the ask events.
    async fn session_log(&self, session_id: &str) -> StoreResult<Vec<Event>>;

    /// The highest event sequence number (0 when there is none).
    async fn last_event(&self) -> StoreResult<i64>;
}

/// The saved settings (`review.md` §7.3).
#[async_trait]
pub trait SettingsStore: Send + Sync {
    /// The saved settings (`review.md` §7.3): key → JSON value, only the keys a user saved.
    async fn settings(&self) -> StoreResult<serde_json::Map<String, Value>>;

    /// Saves `set` (insert or replace) and removes `remove` in one transaction, with one
    /// `settings.updated` event `{set: [keys], removed: [keys]}`; returns the event.
    async fn save_settings(
        &self,
        set: &serde_json::Map<String, Value>,
        remove: &[String],
    ) -> StoreResult<Event>;
}

/// Alignment checkpoints and their kept decisions (derived data: not history).
#[async_trait]
pub trait AlignmentStore: Send + Sync {
    /// The session's alignment checkpoint, if one was saved. Checkpoints are derived data:
    /// a missing or older one only means more events to fold.
    async fn alignment_checkpoint(
        &self,
        session_id: &str,
    ) -> StoreResult<Option<AlignmentCheckpoint>>;

    /// Saves the session's checkpoint and its decisions in one transaction, unless the stored
    /// checkpoint is at the same or a later seq (then nothing changes and it returns `false`).
    /// `decisions` are the checkpoint's decisions from the first one's `idx` on, in order:
    /// the kept decisions at that `idx` or after are replaced by them (when `decisions` is
    /// empty, those at `checkpoint.decisions` or after are removed). No event is appended: a
    /// checkpoint is not history. An unknown session is [`StoreError::UnknownSession`].
    async fn save_alignment_checkpoint(
        &self,
        session_id: &str,
        checkpoint: &AlignmentCheckpoint,
        decisions: &[CheckpointDecision],
    ) -> StoreResult<bool>;

    /// The session's kept decisions with `from <= idx < below`, in order (a page of them:
    /// the cost is the page's, not the session's).
    async fn alignment_decisions(
        &self,
        session_id: &str,
        from: u64,
        below: u64,
    ) -> StoreResult<Vec<Value>>;

    /// The first kept decision (lowest `idx` below `below`) with this `key` that is not of
    /// the ask `not_ask`.
    async fn alignment_decision(
        &self,
        session_id: &str,
        key: &str,
        not_ask: &str,
        below: u64,
    ) -> StoreResult<Option<Value>>;
}

/// Builder drafts: their manifest rows, each session's active draft, and the launch.
#[async_trait]
pub trait DraftStore: Send + Sync {
    /// The manifest row of a builder draft.
    async fn draft(&self, slug: &str) -> StoreResult<Option<Draft>>;

    /// The draft whose latest launch is `ask_id`.
    async fn draft_by_ask(&self, ask_id: &str) -> StoreResult<Option<Draft>>;

    /// Every draft (of one session when given), most recently updated first.
    async fn drafts(&self, session_id: Option<&str>) -> StoreResult<Vec<Draft>>;

    /// The active draft of every session, as `(session, slug)`, ordered by session.
    async fn active_drafts(&self) -> StoreResult<Vec<(String, String)>>;

    /// The session's active draft.
    async fn active_draft(&self, session_id: &str) -> StoreResult<Option<String>>;

    /// Writes a draft's manifest row, its pointer change and its `draft.updated` event in
    /// one transaction; returns the event.
    async fn save_draft(&self, save: DraftSave) -> StoreResult<Option<Event>>;

    /// Creates a survey ask exactly as [`AskStore::create_ask`] does (re-attach, supersession,
    /// seeding) and, in the same transaction, links the draft to it: the row is written with
    /// status `launched` and the ask's id, and `draft.updated` (`event`, with `askId` set to
    /// that id) is appended after the ask's events.
    async fn launch_draft(&self, ask: NewAsk, draft: Draft, event: Value) -> StoreResult<Created>;
}

/// Locks held across daemons on one database.
#[async_trait]
pub trait LockStore: Send + Sync {
    /// Holds the lock named `key` for every process on this database until the returned
    /// guard drops, waiting for it when another holds it. A backend one daemon owns
    /// (SQLite: the data directory's lock admits one daemon, whose own in-process locks
    /// serialise it) holds nothing and returns `None`; PostgreSQL takes an advisory lock, so
    /// daemons sharing the database serialise what one daemon serialises in process (a
    /// session's alignment writes, a review's settle with its persist file).
    async fn hold(&self, key: &str) -> StoreResult<Option<Box<dyn Held>>> {
        let _ = key;
        Ok(None)
    }
}

/// The store's own upkeep: flushing and closing.
#[async_trait]
pub trait Upkeep: Send + Sync {
    /// Flushes the write-ahead log into the main database file (graceful shutdown).
    async fn checkpoint(&self) -> StoreResult<()>;

    /// Closes every connection.
    async fn close(&self);
}

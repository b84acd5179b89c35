//! The PostgreSQL backend (team mode, issue 17): several daemons on one database.
//!
//! The same behaviour as [`crate::sqlite`], decided by PostgreSQL rather than by a process:
//! - **Write-ahead.** Each write is one transaction; a method returns after `COMMIT`
//!   (PostgreSQL's default `synchronous_commit = on`: the commit is on disk).
//! - **Writes in commit order.** Every writing transaction first takes one
//!   transaction-level advisory lock ([`WRITE_LOCK`], `pg_advisory_xact_lock`), held until it
//!   commits or rolls back. An event's `seq` comes from an identity (a sequence) at insert,
//!   and a sequence value is handed out before its transaction commits: without the lock two
//!   transactions could commit out of seq order and a reader paging `events_after(seq)` could
//!   step over a lower seq that commits later. Under the lock seqs are assigned in commit
//!   order (a rolled-back write leaves a gap, never a late arrival). The price is the one
//!   SQLite pays anyway: writes are serialised, across every daemon on the database; reads
//!   are not. Taking the lock first, before any row lock, also means two writers never wait
//!   on each other in opposite orders (no deadlock).
//! - **Settle once.** `UPDATE asks … WHERE id = $1 AND state = 'pending'` in the settling
//!   transaction: a compare-and-set in the database, so two daemons racing settle once.
//!   Drafts' manifest writes and alignment checkpoints are compare-and-set in SQL too.
//! - **Every event is published.** Each event insert is followed, in its transaction, by
//!   `pg_notify('askd_events', '<seq>')` ([`CHANNEL`]); PostgreSQL delivers notifications at
//!   commit, in commit order, and drops those of a rolled-back transaction. [`PgEvents`]
//!   listens on the channel (a daemon feeds its hub from it).
//!
//! Migrations (`migrations/postgres/*.sql`) are embedded and applied at open under another
//! advisory lock ([`MIGRATE_LOCK`]), so daemons starting together migrate once; the applied
//! count is kept in `askd_schema`.

use std::time::Duration;

use async_trait::async_trait;
use serde_json::{Value, json};
use sqlx::postgres::{PgConnectOptions, PgConnection, PgListener, PgPool, PgPoolOptions, PgRow};
use sqlx::{Connection, Postgres, Row, Transaction};

use crate::model::*;
use crate::{
    AlignmentStore, AskStore, DraftStore, EventStore, LockStore, SessionStore, SettingsStore,
    StoreError, StoreResult, Upkeep, now,
};

/// The migrations, embedded, applied in order at open.
const MIGRATIONS: &[&str] = &[
    include_str!("../migrations/postgres/0001_init.sql"),
    include_str!("../migrations/postgres/0002_claims.sql"),
];

/// The advisory lock key every writing transaction takes (`askd` in ASCII, then `w`).
pub const WRITE_LOCK: i64 = 0x6173_6b64_0077;
/// The advisory lock key the migrations run under.
pub const MIGRATE_LOCK: i64 = 0x6173_6b64_006d;
/// The notification channel: one notification per committed event, its payload the seq.
pub const CHANNEL: &str = "askd_events";

pub struct PgStore {
    pool: PgPool,
    options: PgConnectOptions,
}

fn backend(e: sqlx::Error) -> StoreError {
    if is_full(&e) {
        StoreError::StorageFull(e.to_string())
    } else if is_unavailable(&e) {
        StoreError::Unavailable(e.to_string())
    } else {
        StoreError::Backend(e.to_string())
    }
}

/// The connection, not the statement, failed: I/O, the pool, TLS, or the server's SQLSTATE
/// classes 08 (connection exception) and 57P01–57P03 (shutting down, crashed, starting up).
fn is_unavailable(e: &sqlx::Error) -> bool {
    match e {
        sqlx::Error::Io(_)
        | sqlx::Error::Tls(_)
        | sqlx::Error::PoolTimedOut
        | sqlx::Error::PoolClosed
        | sqlx::Error::WorkerCrashed => true,
        sqlx::Error::Database(d) => d
            .code()
            .is_some_and(|c| c.starts_with("08") || matches!(&*c, "57P01" | "57P02" | "57P03")),
        _ => false,
    }
}

/// SQLSTATE 53100 `disk_full` (and 53xxx's out-of-space kin: `53200` out of memory is not
/// here; `53400` configuration limit is not either), or an OS `ENOSPC` on the client side.
fn is_full(e: &sqlx::Error) -> bool {
    match e {
        sqlx::Error::Database(d) => d.code().as_deref() == Some("53100"),
        sqlx::Error::Io(io) => io.kind() == std::io::ErrorKind::StorageFull,
        _ => false,
    }
}

fn is_unique(e: &sqlx::Error) -> bool {
    matches!(e, sqlx::Error::Database(db) if db.is_unique_violation())
}

fn to_text(v: &Value) -> String {
    v.to_string()
}

fn parse_json(text: &str) -> StoreResult<Value> {
    serde_json::from_str(text).map_err(|e| StoreError::Backend(format!("stored JSON: {e}")))
}

impl PgStore {
    /// The number of embedded migrations: the `askd_schema` version a store opened by this
    /// code has.
    pub const SCHEMA_VERSION: i64 = MIGRATIONS.len() as i64;

    /// Connects to `url` (`postgres://user:pass@host:port/db`) and runs pending migrations.
    pub async fn open(url: &str) -> StoreResult<Self> {
        // The URL may hold a password: no message repeats it.
        let options: PgConnectOptions = url
            .parse()
            .map_err(|e: sqlx::Error| StoreError::Backend(format!("invalid database URL: {e}")))?;
        let options = options.application_name("askd");
        let mut conn = PgConnection::connect_with(&options)
            .await
            .map_err(backend)?;
        migrate(&mut conn).await?;
        conn.close().await.map_err(backend)?;
        let pool = PgPoolOptions::new()
            // Room for the held locks (`hold`) beside the reads and writes.
            .max_connections(16)
            .acquire_timeout(Duration::from_secs(10))
            .connect_with(options.clone())
            .await
            .map_err(backend)?;
        Ok(PgStore { pool, options })
    }

    /// The applied migration count (`askd_schema`), for tests and `askd doctor`.
    pub async fn schema_version(&self) -> StoreResult<i64> {
        sqlx::query_scalar("SELECT version FROM askd_schema")
            .fetch_one(&self.pool)
            .await
            .map_err(backend)
    }

    /// A listener on [`CHANNEL`] over its own connection (see [`PgEvents`]).
    pub async fn listen(&self) -> StoreResult<PgEvents> {
        PgEvents::connect(&self.options).await
    }

    /// Begins a writing transaction: the write lock first (see the module's doc).
    async fn begin_write(&self) -> StoreResult<Transaction<'static, Postgres>> {
        let mut tx = self.pool.begin().await.map_err(backend)?;
        sqlx::query("SELECT pg_advisory_xact_lock($1)")
            .bind(WRITE_LOCK)
            .execute(&mut *tx)
            .await
            .map_err(backend)?;
        Ok(tx)
    }

    /// A read-only transaction on one snapshot (an ask and its banked rows read together).
    async fn begin_snapshot(&self) -> StoreResult<Transaction<'static, Postgres>> {
        let mut tx = self.pool.begin().await.map_err(backend)?;
        sqlx::query("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
            .execute(&mut *tx)
            .await
            .map_err(backend)?;
        Ok(tx)
    }
}

/// A held advisory lock ([`LockStore::hold`]): its connection, unlocked and given back to the
/// pool on drop (closed instead when that cannot run, which releases the lock too).
struct PgHeld {
    conn: Option<sqlx::pool::PoolConnection<Postgres>>,
}

/// How long [`crate::Held::alive`]'s probe of the lock's connection may take.
const HELD_PROBE: Duration = Duration::from_secs(2);

#[async_trait]
impl crate::Held for PgHeld {
    /// `SELECT 1` on the connection holding the advisory lock: a session lock lives as long
    /// as its session, so an answer means it is still held. A dead connection is closed,
    /// not returned to the pool.
    async fn alive(&mut self) -> bool {
        let Some(conn) = self.conn.as_mut() else {
            return false;
        };
        let probe = sqlx::query("SELECT 1").execute(&mut **conn);
        if matches!(tokio::time::timeout(HELD_PROBE, probe).await, Ok(Ok(_))) {
            return true;
        }
        if let Some(mut conn) = self.conn.take() {
            conn.close_on_drop();
        }
        false
    }
}

impl Drop for PgHeld {
    fn drop(&mut self) {
        let Some(mut conn) = self.conn.take() else {
            return;
        };
        match tokio::runtime::Handle::try_current() {
            Ok(rt) => {
                rt.spawn(async move {
                    let unlocked = sqlx::query("SELECT pg_advisory_unlock_all()")
                        .execute(&mut *conn)
                        .await;
                    if unlocked.is_err() {
                        conn.close_on_drop();
                    }
                });
            }
            Err(_) => conn.close_on_drop(),
        }
    }
}

async fn commit(tx: Transaction<'static, Postgres>) -> StoreResult<()> {
    tx.commit().await.map_err(backend)
}

/// Events committed on the database, by any daemon, as their seqs arrive on [`CHANNEL`].
///
/// The seqs are hints: a reader reads the events themselves from the store by seq
/// ([`EventStore::events_after`]), which also covers what a lost connection missed.
pub struct PgEvents {
    options: PgConnectOptions,
    listener: Option<PgListener>,
}

impl PgEvents {
    async fn connect(options: &PgConnectOptions) -> StoreResult<Self> {
        let mut events = PgEvents {
            options: options.clone(),
            listener: None,
        };
        events.reconnect().await?;
        Ok(events)
    }

    /// The next notified seq. An error means the connection was lost (notifications sent
    /// meanwhile are gone): call [`PgEvents::reconnect`] until it succeeds, then re-read from
    /// the store what came after the last event read.
    pub async fn next(&mut self) -> StoreResult<i64> {
        let lost = || StoreError::Backend("the notification connection was lost".into());
        let listener = self.listener.as_mut().ok_or_else(lost)?;
        loop {
            match listener.try_recv().await {
                Ok(Some(n)) => {
                    if let Ok(seq) = n.payload().parse::<i64>() {
                        return Ok(seq);
                    }
                }
                // `None` is sqlx's "connection lost"; an error (the server's "terminating
                // connection due to administrator command" on a restart) loses it too.
                Ok(None) => {
                    self.listener = None;
                    return Err(lost());
                }
                Err(e) => {
                    self.listener = None;
                    return Err(backend(e));
                }
            }
        }
    }

    /// A new connection, listening: `Ok` once notifications flow again.
    pub async fn reconnect(&mut self) -> StoreResult<()> {
        self.listener = None;
        // PgListener takes its connection from a pool of one; its own silent reconnect is off,
        // so every loss is reported and the reader re-reads what it missed.
        let pool = PgPoolOptions::new()
            .max_connections(1)
            .acquire_timeout(Duration::from_secs(5))
            .connect_lazy_with(self.options.clone());
        let mut listener = PgListener::connect_with(&pool).await.map_err(backend)?;
        listener.ignore_pool_close_event(true);
        listener.eager_reconnect(false);
        listener.listen(CHANNEL).await.map_err(backend)?;
        self.listener = Some(listener);
        Ok(())
    }
}

async fn migrate(conn: &mut PgConnection) -> StoreResult<()> {
    let mut tx = conn.begin().await.map_err(backend)?;
    sqlx::query("SELECT pg_advisory_xact_lock($1)")
        .bind(MIGRATE_LOCK)
        .execute(&mut *tx)
        .await
        .map_err(backend)?;
    sqlx::raw_sql(
        "CREATE TABLE IF NOT EXISTS askd_schema (version BIGINT NOT NULL);
         INSERT INTO askd_schema (version) SELECT 0 WHERE NOT EXISTS (SELECT 1 FROM askd_schema);",
    )
    .execute(&mut *tx)
    .await
    .map_err(backend)?;
    let version: i64 = sqlx::query_scalar("SELECT version FROM askd_schema")
        .fetch_one(&mut *tx)
        .await
        .map_err(backend)?;
    if version > MIGRATIONS.len() as i64 {
        return Err(StoreError::Backend(format!(
            "the database's schema is version {version}, newer than this askd knows ({}): upgrade askd",
            MIGRATIONS.len()
        )));
    }
    for (i, sql) in MIGRATIONS.iter().enumerate().skip(version.max(0) as usize) {
        sqlx::raw_sql(sqlx::AssertSqlSafe(*sql))
            .execute(&mut *tx)
            .await
            .map_err(backend)?;
        sqlx::query("UPDATE askd_schema SET version = $1")
            .bind(i as i64 + 1)
            .execute(&mut *tx)
            .await
            .map_err(backend)?;
    }
    tx.commit().await.map_err(backend)
}

fn event_from_row(r: &PgRow) -> StoreResult<Event> {
    let payload: String = r.try_get("payload").map_err(backend)?;
    Ok(Event {
        seq: r.try_get("seq").map_err(backend)?,
        kind: r.try_get("kind").map_err(backend)?,
        payload: parse_json(&payload)?,
        created_at: r.try_get("created_at").map_err(backend)?,
    })
}

const EVENT_COLUMNS: &str = "seq, kind, payload, created_at";

/// Appends one event and its notification (delivered at commit).
async fn append_event(
    tx: &mut PgConnection,
    kind: &str,
    ask_id: Option<&str>,
    payload: Value,
    at: &str,
) -> StoreResult<Event> {
    let seq: i64 = sqlx::query_scalar(
        "INSERT INTO events (kind, ask_id, payload, created_at, session_id) VALUES ($1, $2, $3, $4, $5)
         RETURNING seq",
    )
    .bind(kind)
    .bind(ask_id)
    .bind(to_text(&payload))
    .bind(at)
    .bind(payload.get("session").and_then(Value::as_str))
    .fetch_one(&mut *tx)
    .await
    .map_err(backend)?;
    sqlx::query("SELECT pg_notify($1, $2)")
        .bind(CHANNEL)
        .bind(seq.to_string())
        .execute(&mut *tx)
        .await
        .map_err(backend)?;
    Ok(Event {
        seq,
        kind: kind.to_string(),
        payload,
        created_at: at.to_string(),
    })
}

const ASK_COLUMNS: &str = "a.id, a.session_id, a.kind, a.title, a.state, a.outcome, a.payload, a.fingerprint, a.created_at, a.settled_at, a.awaited, a.autosave, a.autosave_revision, a.autosave_saved_at, a.result, a.delivered_at, a.claim, s.client, s.workspace";

fn ask_from_row(row: &PgRow, banked: Vec<BankedEntry>) -> StoreResult<Ask> {
    let get = |e: sqlx::Error| backend(e);
    let state: String = row.try_get("state").map_err(get)?;
    let payload: String = row.try_get("payload").map_err(get)?;
    let autosave: Option<String> = row.try_get("autosave").map_err(get)?;
    let result: Option<String> = row.try_get("result").map_err(get)?;
    Ok(Ask {
        id: row.try_get("id").map_err(get)?,
        session_id: row.try_get("session_id").map_err(get)?,
        kind: row.try_get("kind").map_err(get)?,
        title: row.try_get("title").map_err(get)?,
        state: AskState::parse(&state)
            .ok_or_else(|| StoreError::Backend(format!("unknown ask state {state:?}")))?,
        outcome: row.try_get("outcome").map_err(get)?,
        payload: parse_json(&payload)?,
        fingerprint: row.try_get("fingerprint").map_err(get)?,
        created_at: row.try_get("created_at").map_err(get)?,
        settled_at: row.try_get("settled_at").map_err(get)?,
        awaited: row.try_get("awaited").map_err(get)?,
        banked,
        autosave: autosave.as_deref().map(parse_json).transpose()?,
        autosave_revision: row.try_get("autosave_revision").map_err(get)?,
        autosave_saved_at: row.try_get("autosave_saved_at").map_err(get)?,
        result: result.as_deref().map(parse_json).transpose()?,
        delivered_at: row.try_get("delivered_at").map_err(get)?,
        claim: row
            .try_get::<Option<String>, _>("claim")
            .map_err(get)?
            .as_deref()
            .map(parse_json)
            .transpose()?,
        client: row.try_get("client").map_err(get)?,
        workspace: row.try_get("workspace").map_err(get)?,
    })
}

async fn load_banked(conn: &mut PgConnection, ask_id: &str) -> StoreResult<Vec<BankedEntry>> {
    let rows = sqlx::query(
        "SELECT question_id, entry, banked_at FROM banked WHERE ask_id = $1 ORDER BY seq",
    )
    .bind(ask_id)
    .fetch_all(&mut *conn)
    .await
    .map_err(backend)?;
    rows.iter()
        .map(|r| {
            let entry: String = r.try_get("entry").map_err(backend)?;
            Ok(BankedEntry {
                question_id: r.try_get("question_id").map_err(backend)?,
                entry: parse_json(&entry)?,
                banked_at: r.try_get("banked_at").map_err(backend)?,
            })
        })
        .collect()
}

async fn load_ask(conn: &mut PgConnection, id: &str) -> StoreResult<Option<Ask>> {
    let sql = format!(
        "SELECT {ASK_COLUMNS} FROM asks a JOIN sessions s ON s.id = a.session_id WHERE a.id = $1"
    );
    let row = sqlx::query(sqlx::AssertSqlSafe(sql))
        .bind(id)
        .fetch_optional(&mut *conn)
        .await
        .map_err(backend)?;
    let Some(row) = row else { return Ok(None) };
    let banked = load_banked(&mut *conn, id).await?;
    ask_from_row(&row, banked).map(Some)
}

/// Inserts banked rows after the ask's current last one. The first conflicting question is
/// a [`StoreError::Conflict`]; the caller's transaction then rolls back, the others with it.
async fn insert_banked(
    tx: &mut PgConnection,
    ask_id: &str,
    entries: &[NewBanked],
    at: &str,
) -> StoreResult<()> {
    let start: i64 =
        sqlx::query_scalar("SELECT COALESCE(MAX(seq), 0)::BIGINT FROM banked WHERE ask_id = $1")
            .bind(ask_id)
            .fetch_one(&mut *tx)
            .await
            .map_err(backend)?;
    for (i, e) in entries.iter().enumerate() {
        let result = sqlx::query(
            "INSERT INTO banked (ask_id, seq, question_id, entry, banked_at) VALUES ($1, $2, $3, $4, $5)",
        )
        .bind(ask_id)
        .bind(start + 1 + i as i64)
        .bind(&e.question_id)
        .bind(to_text(&e.entry))
        .bind(at)
        .execute(&mut *tx)
        .await;
        if let Err(err) = result {
            if is_unique(&err) {
                return Err(StoreError::Conflict(format!(
                    "question {:?} is already banked",
                    e.question_id
                )));
            }
            return Err(backend(err));
        }
    }
    Ok(())
}

/// Settles inside a transaction: compare-and-set on the pending state, the record and the
/// `ask.settled` event.
async fn settle_in(tx: &mut PgConnection, ask_id: &str, s: &Settlement) -> StoreResult<Event> {
    let at = s.settled_at.as_str();
    if let Some(expected) = s.expect_banked {
        let banked: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM banked WHERE ask_id = $1")
            .bind(ask_id)
            .fetch_one(&mut *tx)
            .await
            .map_err(backend)?;
        if banked != expected as i64 {
            return Err(StoreError::Conflict(format!(
                "the ask's banked answers changed ({expected} expected, {banked} now) — reload it and try again"
            )));
        }
    }
    let row = sqlx::query(
        "UPDATE asks SET state = 'settled', outcome = $2, settled_at = $3, result = $4, awaited = FALSE,
             delivered_at = CASE WHEN $5 THEN $3 END
         WHERE id = $1 AND state = 'pending'
         RETURNING session_id, kind, created_at",
    )
    .bind(ask_id)
    .bind(&s.outcome)
    .bind(at)
    .bind(to_text(&s.result))
    .bind(s.delivered)
    .fetch_optional(&mut *tx)
    .await
    .map_err(backend)?;
    let Some(row) = row else {
        let exists: Option<i32> = sqlx::query_scalar("SELECT 1 FROM asks WHERE id = $1")
            .bind(ask_id)
            .fetch_optional(&mut *tx)
            .await
            .map_err(backend)?;
        return Err(if exists.is_some() {
            StoreError::NotPending
        } else {
            StoreError::NotFound
        });
    };
    let session_id: String = row.try_get("session_id").map_err(backend)?;
    let kind: String = row.try_get("kind").map_err(backend)?;
    let created_at: String = row.try_get("created_at").map_err(backend)?;
    sqlx::query(
        "INSERT INTO records (ask_id, session_id, kind, outcome, created_at, settled_at, record)
         VALUES ($1, $2, $3, $4, $5, $6, $7)",
    )
    .bind(ask_id)
    .bind(&session_id)
    .bind(&kind)
    .bind(&s.outcome)
    .bind(&created_at)
    .bind(at)
    .bind(to_text(&s.record))
    .execute(&mut *tx)
    .await
    .map_err(backend)?;
    let mut payload = json!({"ask_id": ask_id, "kind": kind, "session": session_id, "outcome": s.outcome, "settledAt": at});
    for member in ["answers", "path", "skipped", "answered_by"] {
        if let Some(v) = s.result.get(member) {
            payload[member] = v.clone();
        }
    }
    append_event(tx, "ask.settled", Some(ask_id), payload, at).await
}

/// One [`FollowEvent`] of `ask_id`, in its session.
async fn append_follow(
    tx: &mut PgConnection,
    f: &FollowEvent,
    ask_id: &str,
    session: &str,
    at: &str,
) -> StoreResult<Event> {
    let mut payload = f.payload.clone();
    if let Some(map) = payload.as_object_mut() {
        map.insert("session".into(), Value::String(session.to_string()));
    } else {
        payload = json!({"session": session, "data": payload});
    }
    append_event(tx, &f.kind, Some(ask_id), payload, at).await
}

async fn require_pending(tx: &mut PgConnection, ask_id: &str) -> StoreResult<()> {
    let state: Option<String> = sqlx::query_scalar("SELECT state FROM asks WHERE id = $1")
        .bind(ask_id)
        .fetch_optional(&mut *tx)
        .await
        .map_err(backend)?;
    match state.as_deref() {
        None => Err(StoreError::NotFound),
        Some("pending") => Ok(()),
        Some(_) => Err(StoreError::NotPending),
    }
}

async fn session_exists(tx: &mut PgConnection, id: &str) -> StoreResult<bool> {
    let found: Option<i32> = sqlx::query_scalar("SELECT 1 FROM sessions WHERE id = $1")
        .bind(id)
        .fetch_optional(&mut *tx)
        .await
        .map_err(backend)?;
    Ok(found.is_some())
}

/// Creates an ask inside a transaction (or re-attaches to an identical pending one): the
/// body of [`AskStore::create_ask`], shared with [`DraftStore::launch_draft`].
async fn create_in(tx: &mut PgConnection, a: NewAsk) -> StoreResult<Created> {
    if !session_exists(tx, &a.session_id).await? {
        return Err(StoreError::UnknownSession(a.session_id));
    }
    // An identical ask of this session whose result no agent call has returned yet
    // (clients.md §2.5), as in SQLite.
    let undelivered: Option<String> = if a.return_undelivered {
        sqlx::query_scalar(
            "SELECT id FROM asks WHERE session_id = $1 AND kind = $2 AND payload_key = $3
                   AND state = 'settled' AND delivered_at IS NULL
                 ORDER BY created_at, n LIMIT 1",
        )
        .bind(&a.session_id)
        .bind(&a.kind)
        .bind(&a.payload_key)
        .fetch_optional(&mut *tx)
        .await
        .map_err(backend)?
    } else {
        None
    };
    let existing: Option<String> = match undelivered {
        Some(id) => Some(id),
        None => sqlx::query_scalar(
            "SELECT id FROM asks WHERE session_id = $1 AND kind = $2 AND payload_key = $3 AND state = 'pending'
             ORDER BY created_at, n LIMIT 1",
        )
        .bind(&a.session_id)
        .bind(&a.kind)
        .bind(&a.payload_key)
        .fetch_optional(&mut *tx)
        .await
        .map_err(backend)?,
    };
    if let Some(id) = existing {
        let ask = load_ask(tx, &id).await?.ok_or(StoreError::NotFound)?;
        return Ok(Created {
            ask,
            created: false,
            events: Vec::new(),
        });
    }
    let at = now();
    let mut events = Vec::new();
    sqlx::query(
        "INSERT INTO asks (id, session_id, kind, title, state, payload, payload_key, fingerprint, created_at, awaited)
         VALUES ($1, $2, $3, $4, 'pending', $5, $6, $7, $8, TRUE)",
    )
    .bind(&a.id)
    .bind(&a.session_id)
    .bind(&a.kind)
    .bind(&a.title)
    .bind(to_text(&a.payload))
    .bind(&a.payload_key)
    .bind(&a.fingerprint)
    .bind(&at)
    .execute(&mut *tx)
    .await
    .map_err(|e| {
        if is_unique(&e) {
            StoreError::Conflict(format!("ask id {:?} already exists", a.id))
        } else {
            backend(e)
        }
    })?;
    if let Some(sup) = &a.replaces {
        // Only a pending ask of the same session is superseded.
        let same_session: Option<i32> = sqlx::query_scalar(
            "SELECT 1 FROM asks WHERE id = $1 AND session_id = $2 AND state = 'pending'",
        )
        .bind(&sup.ask_id)
        .bind(&a.session_id)
        .fetch_optional(&mut *tx)
        .await
        .map_err(backend)?;
        if same_session.is_some() {
            events.push(settle_in(tx, &sup.ask_id, &sup.settlement).await?);
        }
    }
    if !a.seed_banked.is_empty() {
        insert_banked(tx, &a.id, &a.seed_banked, &at).await?;
    }
    if let Some(autosave) = &a.seed_autosave {
        sqlx::query(
            "UPDATE asks SET autosave = $2, autosave_revision = 1, autosave_saved_at = $3 WHERE id = $1",
        )
        .bind(&a.id)
        .bind(to_text(autosave))
        .bind(&at)
        .execute(&mut *tx)
        .await
        .map_err(backend)?;
    }
    let mut payload =
        json!({"ask_id": a.id, "kind": a.kind, "session": a.session_id, "createdAt": at});
    if let Some(t) = &a.title {
        payload["title"] = json!(t);
    }
    events.push(append_event(tx, "ask.created", Some(&a.id), payload, &at).await?);
    let ask = load_ask(tx, &a.id).await?.ok_or(StoreError::NotFound)?;
    Ok(Created {
        ask,
        created: true,
        events,
    })
}

/// `AskStore::asks`'s query for a filter and its text binds (the limit is bound last, `NULL` =
/// no limit): as SQLite's `asks_sql`, only the filters present are in the WHERE, newest first
/// with the insert order `n` breaking ties (SQLite's rowid).
fn asks_sql(f: &AskFilter) -> (String, Vec<String>) {
    let mut sql = String::from(
        "SELECT a.id, a.session_id, s.client, s.workspace, a.kind, a.title, a.state, a.outcome,
                a.created_at, a.settled_at, a.awaited, a.claim,
                (SELECT COUNT(*) FROM banked b WHERE b.ask_id = a.id) AS banked
         FROM asks a JOIN sessions s ON s.id = a.session_id",
    );
    let mut terms = Vec::new();
    let mut binds = Vec::new();
    if let Some(state) = f.state {
        binds.push(state.as_str().to_string());
        terms.push(format!("a.state = ${}", binds.len()));
    }
    if let Some(session) = &f.session_id {
        binds.push(session.clone());
        terms.push(format!("a.session_id = ${}", binds.len()));
    }
    if let Some(kind) = &f.kind {
        binds.push(kind.clone());
        terms.push(format!("a.kind = ${}", binds.len()));
    }
    finish_list(&mut sql, &terms, "a.created_at DESC, a.n DESC", binds.len());
    (sql, binds)
}

/// `AskStore::records`'s query, as SQLite's `records_sql`: newest first, `since`/`until` on
/// `settled_at`, the `after` cursor a row-value bound `(settled_at, n) < (…)`, the text an
/// escaped `ILIKE` over the record (under the "C" collation `ILIKE` folds ASCII only, as
/// SQLite's `LIKE`; the record is stored whole here, shared members included).
fn records_sql(f: &RecordFilter) -> (String, Vec<String>) {
    let mut sql = String::from(
        "SELECT r.ask_id, r.session_id, r.kind, r.outcome, r.created_at, r.settled_at, r.record
         FROM records r",
    );
    let mut terms = Vec::new();
    let mut binds = Vec::new();
    fn bind(binds: &mut Vec<String>, v: &str) -> usize {
        binds.push(v.to_string());
        binds.len()
    }
    let compared: [(&Option<String>, &str); 5] = [
        (&f.kind, "r.kind ="),
        (&f.session_id, "r.session_id ="),
        (&f.outcome, "r.outcome ="),
        (&f.since, "r.settled_at >="),
        (&f.until, "r.settled_at <"),
    ];
    for (value, term) in compared {
        if let Some(v) = value {
            let n = bind(&mut binds, v);
            terms.push(format!("{term} ${n}"));
        }
    }
    if let Some(after) = &f.after {
        let n = bind(&mut binds, after);
        terms.push(format!(
            "(r.settled_at, r.n) < (SELECT c.settled_at, c.n FROM records c WHERE c.ask_id = ${n})"
        ));
    }
    if let Some(text) = &f.text {
        let mut pattern = String::from("%");
        for c in text.chars() {
            if matches!(c, '%' | '_' | '\\') {
                pattern.push('\\');
            }
            pattern.push(c);
        }
        pattern.push('%');
        let n = bind(&mut binds, &pattern);
        terms.push(format!("(r.record COLLATE \"C\") ILIKE ${n} ESCAPE '\\'"));
    }
    finish_list(&mut sql, &terms, "r.settled_at DESC, r.n DESC", binds.len());
    (sql, binds)
}

fn finish_list(sql: &mut String, terms: &[String], order: &str, binds: usize) {
    if !terms.is_empty() {
        sql.push_str(" WHERE ");
        sql.push_str(&terms.join(" AND "));
    }
    sql.push_str(&format!(" ORDER BY {order} LIMIT ${}", binds + 1));
}

const DRAFT_COLUMNS: &str = "slug, session_id, title, status, file, workspace, created_at, updated_at, revision, ready, progress_questions, progress_complete, progress_missing, grounding, ask_id";

fn draft_from_row(r: &PgRow) -> StoreResult<Draft> {
    Ok(Draft {
        slug: r.try_get("slug").map_err(backend)?,
        session_id: r.try_get("session_id").map_err(backend)?,
        title: r.try_get("title").map_err(backend)?,
        status: r.try_get("status").map_err(backend)?,
        file: r.try_get("file").map_err(backend)?,
        workspace: r.try_get("workspace").map_err(backend)?,
        created_at: r.try_get("created_at").map_err(backend)?,
        updated_at: r.try_get("updated_at").map_err(backend)?,
        revision: r.try_get("revision").map_err(backend)?,
        ready: r.try_get("ready").map_err(backend)?,
        progress: DraftProgress {
            questions: r.try_get("progress_questions").map_err(backend)?,
            complete: r.try_get("progress_complete").map_err(backend)?,
            missing_fields: r.try_get("progress_missing").map_err(backend)?,
        },
        grounding: r.try_get("grounding").map_err(backend)?,
        ask_id: r.try_get("ask_id").map_err(backend)?,
    })
}

async fn load_draft(tx: &mut PgConnection, slug: &str) -> StoreResult<Option<Draft>> {
    let sql = format!("SELECT {DRAFT_COLUMNS} FROM drafts WHERE slug = $1");
    let row = sqlx::query(sqlx::AssertSqlSafe(sql))
        .bind(slug)
        .fetch_optional(&mut *tx)
        .await
        .map_err(backend)?;
    row.as_ref().map(draft_from_row).transpose()
}

/// Writes a draft row (insert or replace), its pointer change and its event.
async fn save_draft_in(
    tx: &mut PgConnection,
    d: &Draft,
    active: &ActivePointer,
    event: Option<Value>,
) -> StoreResult<Option<Event>> {
    sqlx::query(
        "INSERT INTO drafts (slug, session_id, title, status, file, workspace, created_at, updated_at,
                             revision, ready, progress_questions, progress_complete, progress_missing,
                             grounding, ask_id)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)
         ON CONFLICT (slug) DO UPDATE SET
             session_id = excluded.session_id, title = excluded.title, status = excluded.status,
             file = excluded.file, workspace = excluded.workspace, created_at = excluded.created_at,
             updated_at = excluded.updated_at, revision = excluded.revision, ready = excluded.ready,
             progress_questions = excluded.progress_questions,
             progress_complete = excluded.progress_complete,
             progress_missing = excluded.progress_missing, grounding = excluded.grounding,
             ask_id = excluded.ask_id",
    )
    .bind(&d.slug)
    .bind(&d.session_id)
    .bind(&d.title)
    .bind(&d.status)
    .bind(&d.file)
    .bind(&d.workspace)
    .bind(&d.created_at)
    .bind(&d.updated_at)
    .bind(d.revision)
    .bind(d.ready)
    .bind(d.progress.questions)
    .bind(d.progress.complete)
    .bind(d.progress.missing_fields)
    .bind(&d.grounding)
    .bind(&d.ask_id)
    .execute(&mut *tx)
    .await
    .map_err(|e| match &e {
        sqlx::Error::Database(db) if db.is_foreign_key_violation() => StoreError::NotFound,
        _ => backend(e),
    })?;
    match active {
        ActivePointer::Keep => {}
        ActivePointer::Set(session) => {
            sqlx::query(
                "INSERT INTO draft_active (session_id, slug) VALUES ($1, $2)
                 ON CONFLICT (session_id) DO UPDATE SET slug = excluded.slug",
            )
            .bind(session)
            .bind(&d.slug)
            .execute(&mut *tx)
            .await
            .map_err(backend)?;
        }
        ActivePointer::ClearAll => {
            sqlx::query("DELETE FROM draft_active WHERE slug = $1")
                .bind(&d.slug)
                .execute(&mut *tx)
                .await
                .map_err(backend)?;
        }
    }
    match event {
        None => Ok(None),
        Some(payload) => append_event(
            tx,
            "draft.updated",
            d.ask_id.as_deref(),
            payload,
            &d.updated_at,
        )
        .await
        .map(Some),
    }
}

/// Runs a list query built by [`asks_sql`] or [`records_sql`]: its text binds in order, then
/// the `LIMIT` (`NULL`: none).
async fn fetch_filtered(
    pool: &PgPool,
    sql: String,
    binds: Vec<String>,
    limit: Option<u32>,
) -> StoreResult<Vec<PgRow>> {
    let mut query = sqlx::query(sqlx::AssertSqlSafe(sql));
    for b in binds {
        query = query.bind(b);
    }
    query
        .bind(limit.map(i64::from))
        .fetch_all(pool)
        .await
        .map_err(backend)
}

fn session_from_row(r: &PgRow) -> StoreResult<Session> {
    Ok(Session {
        id: r.try_get("id").map_err(backend)?,
        client: r.try_get("client").map_err(backend)?,
        workspace: r.try_get("workspace").map_err(backend)?,
        created_at: r.try_get("created_at").map_err(backend)?,
    })
}

/// A new session id: time-ordered, and unique across daemons on one database (the random
/// part; SQLite's single process needs only its pid).
fn new_id() -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or_default();
    let mut bytes = [0u8; 6];
    let random = match getrandom::fill(&mut bytes) {
        Ok(()) => bytes.iter().map(|b| format!("{b:02x}")).collect::<String>(),
        Err(_) => format!("{:x}", std::process::id()),
    };
    format!("s-{nanos:x}-{random}")
}

fn events_from(rows: &[PgRow]) -> StoreResult<Vec<Event>> {
    rows.iter().map(event_from_row).collect()
}

#[async_trait]
impl SessionStore for PgStore {
    async fn open_session(&self, s: NewSession) -> StoreResult<Session> {
        let mut tx = self.begin_write().await?;
        if let Some(id) = &s.id {
            let row =
                sqlx::query("SELECT id, client, workspace, created_at FROM sessions WHERE id = $1")
                    .bind(id)
                    .fetch_optional(&mut *tx)
                    .await
                    .map_err(backend)?;
            if let Some(row) = row {
                return session_from_row(&row);
            }
        }
        let session = Session {
            id: s.id.unwrap_or_else(new_id),
            client: s.client,
            workspace: s.workspace,
            created_at: now(),
        };
        sqlx::query(
            "INSERT INTO sessions (id, client, workspace, created_at) VALUES ($1, $2, $3, $4)",
        )
        .bind(&session.id)
        .bind(&session.client)
        .bind(&session.workspace)
        .bind(&session.created_at)
        .execute(&mut *tx)
        .await
        .map_err(backend)?;
        commit(tx).await?;
        Ok(session)
    }

    async fn session(&self, id: &str) -> StoreResult<Option<Session>> {
        let row =
            sqlx::query("SELECT id, client, workspace, created_at FROM sessions WHERE id = $1")
                .bind(id)
                .fetch_optional(&self.pool)
                .await
                .map_err(backend)?;
        row.as_ref().map(session_from_row).transpose()
    }

    async fn sessions(&self) -> StoreResult<Vec<Session>> {
        let rows = sqlx::query(
            "SELECT id, client, workspace, created_at FROM sessions ORDER BY created_at DESC, id DESC",
        )
        .fetch_all(&self.pool)
        .await
        .map_err(backend)?;
        rows.iter().map(session_from_row).collect()
    }
}

#[async_trait]
impl AskStore for PgStore {
    async fn create_ask_with(&self, a: NewAsk, follow: &[FollowEvent]) -> StoreResult<Created> {
        let mut tx = self.begin_write().await?;
        let mut created = create_in(&mut tx, a).await?;
        if created.created {
            let (id, session, at) = (
                created.ask.id.clone(),
                created.ask.session_id.clone(),
                created.ask.created_at.clone(),
            );
            for f in follow {
                created
                    .events
                    .push(append_follow(&mut tx, f, &id, &session, &at).await?);
            }
        }
        commit(tx).await?;
        Ok(created)
    }

    async fn ask(&self, id: &str) -> StoreResult<Option<Ask>> {
        let mut tx = self.begin_snapshot().await?;
        let ask = load_ask(&mut tx, id).await?;
        commit(tx).await?;
        Ok(ask)
    }

    async fn ask_payloads(&self, ids: &[String]) -> StoreResult<Vec<(String, String, Value)>> {
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        let rows = sqlx::query("SELECT id, kind, payload FROM asks WHERE id = ANY($1)")
            .bind(ids)
            .fetch_all(&self.pool)
            .await
            .map_err(backend)?;
        rows.iter()
            .map(|r| {
                let payload: String = r.try_get("payload").map_err(backend)?;
                Ok((
                    r.try_get("id").map_err(backend)?,
                    r.try_get("kind").map_err(backend)?,
                    parse_json(&payload)?,
                ))
            })
            .collect()
    }

    async fn asks(&self, f: &AskFilter) -> StoreResult<Vec<AskSummary>> {
        let (sql, binds) = asks_sql(f);
        let rows = fetch_filtered(&self.pool, sql, binds, f.limit).await?;
        rows.iter()
            .map(|r| {
                let state: String = r.try_get("state").map_err(backend)?;
                Ok(AskSummary {
                    id: r.try_get("id").map_err(backend)?,
                    session_id: r.try_get("session_id").map_err(backend)?,
                    client: r.try_get("client").map_err(backend)?,
                    workspace: r.try_get("workspace").map_err(backend)?,
                    kind: r.try_get("kind").map_err(backend)?,
                    title: r.try_get("title").map_err(backend)?,
                    state: AskState::parse(&state).unwrap_or(AskState::Pending),
                    outcome: r.try_get("outcome").map_err(backend)?,
                    created_at: r.try_get("created_at").map_err(backend)?,
                    settled_at: r.try_get("settled_at").map_err(backend)?,
                    awaited: r.try_get("awaited").map_err(backend)?,
                    banked: r.try_get::<i64, _>("banked").map_err(backend)?.max(0) as u64,
                    claim: r
                        .try_get::<Option<String>, _>("claim")
                        .map_err(backend)?
                        .as_deref()
                        .map(parse_json)
                        .transpose()?,
                })
            })
            .collect()
    }

    async fn count_asks(&self, state: Option<AskState>) -> StoreResult<u64> {
        let n: i64 = match state {
            Some(state) => {
                sqlx::query_scalar("SELECT COUNT(*) FROM asks WHERE state = $1")
                    .bind(state.as_str())
                    .fetch_one(&self.pool)
                    .await
            }
            None => {
                sqlx::query_scalar("SELECT COUNT(*) FROM asks")
                    .fetch_one(&self.pool)
                    .await
            }
        }
        .map_err(backend)?;
        Ok(n.max(0) as u64)
    }

    async fn bank(&self, ask_id: &str, entries: &[NewBanked]) -> StoreResult<Banked> {
        let mut tx = self.begin_write().await?;
        require_pending(&mut tx, ask_id).await?;
        let at = now();
        insert_banked(&mut tx, ask_id, entries, &at).await?;
        let all = load_banked(&mut tx, ask_id).await?;
        let list: Vec<Value> = all
            .iter()
            .map(|b| {
                let mut e = b.entry.clone();
                if let Some(o) = e.as_object_mut() {
                    o.insert("bankedAt".into(), json!(b.banked_at));
                }
                e
            })
            .collect();
        let event = append_event(
            &mut tx,
            "ask.banked",
            Some(ask_id),
            json!({"ask_id": ask_id, "banked": list}),
            &at,
        )
        .await?;
        commit(tx).await?;
        Ok(Banked {
            total: all.len(),
            event,
        })
    }

    async fn autosave(&self, ask_id: &str, autosave: &Value) -> StoreResult<Autosaved> {
        let mut tx = self.begin_write().await?;
        require_pending(&mut tx, ask_id).await?;
        let at = now();
        let revision: i64 = sqlx::query_scalar(
            "UPDATE asks SET autosave = $2, autosave_revision = autosave_revision + 1, autosave_saved_at = $3
             WHERE id = $1 RETURNING autosave_revision",
        )
        .bind(ask_id)
        .bind(to_text(autosave))
        .bind(&at)
        .fetch_one(&mut *tx)
        .await
        .map_err(backend)?;
        let event = append_event(
            &mut tx,
            "ask.autosaved",
            Some(ask_id),
            json!({"ask_id": ask_id, "revision": revision, "savedAt": at}),
            &at,
        )
        .await?;
        commit(tx).await?;
        Ok(Autosaved {
            revision,
            saved_at: at,
            event,
        })
    }

    async fn claim(&self, ask_id: &str, claim: Option<&Value>) -> StoreResult<Event> {
        let mut tx = self.begin_write().await?;
        require_pending(&mut tx, ask_id).await?;
        sqlx::query("UPDATE asks SET claim = $2 WHERE id = $1")
            .bind(ask_id)
            .bind(claim.map(to_text))
            .execute(&mut *tx)
            .await
            .map_err(backend)?;
        let at = now();
        let event = append_event(
            &mut tx,
            "ask.claimed",
            Some(ask_id),
            json!({"ask_id": ask_id, "claim": claim}),
            &at,
        )
        .await?;
        commit(tx).await?;
        Ok(event)
    }

    async fn settle_with(
        &self,
        ask_id: &str,
        s: &Settlement,
        follow: &[FollowEvent],
    ) -> StoreResult<Vec<Event>> {
        let mut tx = self.begin_write().await?;
        let settled = settle_in(&mut tx, ask_id, s).await?;
        let session = settled.payload["session"]
            .as_str()
            .unwrap_or_default()
            .to_string();
        let mut events = vec![settled];
        for f in follow {
            events.push(append_follow(&mut tx, f, ask_id, &session, &s.settled_at).await?);
        }
        commit(tx).await?;
        Ok(events)
    }

    async fn mark_delivered(&self, ask_id: &str) -> StoreResult<bool> {
        let mut tx = self.begin_write().await?;
        let changed = sqlx::query(
            "UPDATE asks SET delivered_at = $2
             WHERE id = $1 AND state = 'settled' AND delivered_at IS NULL",
        )
        .bind(ask_id)
        .bind(now())
        .execute(&mut *tx)
        .await
        .map_err(backend)?
        .rows_affected();
        commit(tx).await?;
        Ok(changed > 0)
    }

    async fn set_awaited(&self, ask_id: &str, awaited: bool) -> StoreResult<()> {
        let mut tx = self.begin_write().await?;
        let found: Option<i32> = sqlx::query_scalar("SELECT 1 FROM asks WHERE id = $1")
            .bind(ask_id)
            .fetch_optional(&mut *tx)
            .await
            .map_err(backend)?;
        if found.is_none() {
            return Err(StoreError::NotFound);
        }
        sqlx::query("UPDATE asks SET awaited = $2 WHERE id = $1 AND state = 'pending'")
            .bind(ask_id)
            .bind(awaited)
            .execute(&mut *tx)
            .await
            .map_err(backend)?;
        commit(tx).await
    }

    async fn records(&self, f: &RecordFilter) -> StoreResult<Vec<Record>> {
        let (sql, binds) = records_sql(f);
        let rows = fetch_filtered(&self.pool, sql, binds, f.limit).await?;
        rows.iter()
            .map(|r| {
                let record: String = r.try_get("record").map_err(backend)?;
                Ok(Record {
                    ask_id: r.try_get("ask_id").map_err(backend)?,
                    session_id: r.try_get("session_id").map_err(backend)?,
                    kind: r.try_get("kind").map_err(backend)?,
                    outcome: r.try_get("outcome").map_err(backend)?,
                    created_at: r.try_get("created_at").map_err(backend)?,
                    settled_at: r.try_get("settled_at").map_err(backend)?,
                    record: parse_json(&record)?,
                })
            })
            .collect()
    }
}

#[async_trait]
impl EventStore for PgStore {
    async fn append_session_event(
        &self,
        session_id: &str,
        kind: &str,
        payload: Value,
    ) -> StoreResult<Event> {
        let mut tx = self.begin_write().await?;
        if !session_exists(&mut tx, session_id).await? {
            return Err(StoreError::UnknownSession(session_id.to_string()));
        }
        let mut payload = payload;
        if let Some(map) = payload.as_object_mut() {
            map.insert("session".into(), Value::String(session_id.to_string()));
        } else {
            payload = json!({"session": session_id, "data": payload});
        }
        let event = append_event(&mut tx, kind, None, payload, &now()).await?;
        commit(tx).await?;
        Ok(event)
    }

    async fn events_after(&self, after: i64, limit: u32) -> StoreResult<Vec<Event>> {
        let rows = sqlx::query(sqlx::AssertSqlSafe(format!(
            "SELECT {EVENT_COLUMNS} FROM events WHERE seq > $1 ORDER BY seq LIMIT $2"
        )))
        .bind(after)
        .bind(i64::from(limit))
        .fetch_all(&self.pool)
        .await
        .map_err(backend)?;
        events_from(&rows)
    }

    async fn session_events(&self, session_id: &str) -> StoreResult<Vec<Event>> {
        let rows = sqlx::query(sqlx::AssertSqlSafe(format!(
            "SELECT {EVENT_COLUMNS} FROM events WHERE session_id = $1 ORDER BY seq"
        )))
        .bind(session_id)
        .fetch_all(&self.pool)
        .await
        .map_err(backend)?;
        events_from(&rows)
    }

    async fn session_events_after(
        &self,
        session_id: &str,
        after: i64,
        limit: u32,
    ) -> StoreResult<Vec<Event>> {
        let rows = sqlx::query(sqlx::AssertSqlSafe(format!(
            "SELECT {EVENT_COLUMNS} FROM events WHERE session_id = $1 AND seq > $2 ORDER BY seq LIMIT $3"
        )))
        .bind(session_id)
        .bind(after)
        .bind(i64::from(limit))
        .fetch_all(&self.pool)
        .await
        .map_err(backend)?;
        events_from(&rows)
    }

    async fn session_log(&self, session_id: &str) -> StoreResult<Vec<Event>> {
        // The partial index `events_session_log` (the WHERE repeats its terms).
        let rows = sqlx::query(sqlx::AssertSqlSafe(format!(
            "SELECT {EVENT_COLUMNS} FROM events
             WHERE session_id = $1 AND session_id IS NOT NULL AND kind NOT LIKE 'ask.%' ORDER BY seq"
        )))
        .bind(session_id)
        .fetch_all(&self.pool)
        .await
        .map_err(backend)?;
        events_from(&rows)
    }

    async fn last_event(&self) -> StoreResult<i64> {
        sqlx::query_scalar("SELECT COALESCE(MAX(seq), 0)::BIGINT FROM events")
            .fetch_one(&self.pool)
            .await
            .map_err(backend)
    }
}

#[async_trait]
impl SettingsStore for PgStore {
    async fn settings(&self) -> StoreResult<serde_json::Map<String, Value>> {
        let rows = sqlx::query("SELECT key, value FROM settings ORDER BY key")
            .fetch_all(&self.pool)
            .await
            .map_err(backend)?;
        let mut out = serde_json::Map::new();
        for r in &rows {
            let key: String = r.try_get("key").map_err(backend)?;
            let value: String = r.try_get("value").map_err(backend)?;
            out.insert(key, parse_json(&value)?);
        }
        Ok(out)
    }

    async fn save_settings(
        &self,
        set: &serde_json::Map<String, Value>,
        remove: &[String],
    ) -> StoreResult<Event> {
        let mut tx = self.begin_write().await?;
        let at = now();
        for (key, value) in set {
            sqlx::query(
                "INSERT INTO settings (key, value, updated_at) VALUES ($1, $2, $3)
                 ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at",
            )
            .bind(key)
            .bind(to_text(value))
            .bind(&at)
            .execute(&mut *tx)
            .await
            .map_err(backend)?;
        }
        for key in remove {
            sqlx::query("DELETE FROM settings WHERE key = $1")
                .bind(key)
                .execute(&mut *tx)
                .await
                .map_err(backend)?;
        }
        let payload = json!({
            "set": set.keys().collect::<Vec<_>>(),
            "removed": remove,
        });
        let event = append_event(&mut tx, "settings.updated", None, payload, &at).await?;
        commit(tx).await?;
        Ok(event)
    }
}

#[async_trait]
impl AlignmentStore for PgStore {
    async fn alignment_checkpoint(
        &self,
        session_id: &str,
    ) -> StoreResult<Option<AlignmentCheckpoint>> {
        let row = sqlx::query(
            "SELECT last_seq, decisions, state FROM alignment_checkpoints WHERE session_id = $1",
        )
        .bind(session_id)
        .fetch_optional(&self.pool)
        .await
        .map_err(backend)?;
        let Some(r) = row else { return Ok(None) };
        let state: String = r.try_get("state").map_err(backend)?;
        let decisions: i64 = r.try_get("decisions").map_err(backend)?;
        Ok(Some(AlignmentCheckpoint {
            last_seq: r.try_get("last_seq").map_err(backend)?,
            state: parse_json(&state)?,
            decisions: decisions.max(0) as u64,
        }))
    }

    async fn save_alignment_checkpoint(
        &self,
        session_id: &str,
        checkpoint: &AlignmentCheckpoint,
        decisions: &[CheckpointDecision],
    ) -> StoreResult<bool> {
        let count = checkpoint.decisions as i64;
        let mut tx = self.begin_write().await?;
        if !session_exists(&mut tx, session_id).await? {
            return Err(StoreError::UnknownSession(session_id.to_string()));
        }
        // Compare-and-set on the seq, in SQL: of two daemons saving, the later seq stays.
        let saved = sqlx::query(
            "INSERT INTO alignment_checkpoints (session_id, last_seq, decisions, state, updated_at)
             VALUES ($1, $2, $3, $4, $5)
             ON CONFLICT (session_id) DO UPDATE SET last_seq = excluded.last_seq,
                 decisions = excluded.decisions, state = excluded.state,
                 updated_at = excluded.updated_at
             WHERE excluded.last_seq > alignment_checkpoints.last_seq",
        )
        .bind(session_id)
        .bind(checkpoint.last_seq)
        .bind(count)
        .bind(to_text(&checkpoint.state))
        .bind(now())
        .execute(&mut *tx)
        .await
        .map_err(backend)?
        .rows_affected()
            > 0;
        if saved {
            let from = decisions.first().map_or(count, |d| d.idx as i64);
            sqlx::query("DELETE FROM alignment_decisions WHERE session_id = $1 AND idx >= $2")
                .bind(session_id)
                .bind(from)
                .execute(&mut *tx)
                .await
                .map_err(backend)?;
            for d in decisions {
                sqlx::query(
                    "INSERT INTO alignment_decisions (session_id, idx, key, ask_id, decision)
                     VALUES ($1, $2, $3, $4, $5)",
                )
                .bind(session_id)
                .bind(d.idx as i64)
                .bind(&d.key)
                .bind(&d.ask_id)
                .bind(to_text(&d.decision))
                .execute(&mut *tx)
                .await
                .map_err(backend)?;
            }
        }
        commit(tx).await?;
        Ok(saved)
    }

    async fn alignment_decisions(
        &self,
        session_id: &str,
        from: u64,
        below: u64,
    ) -> StoreResult<Vec<Value>> {
        let rows = sqlx::query(
            "SELECT decision FROM alignment_decisions
             WHERE session_id = $1 AND idx >= $2 AND idx < $3 ORDER BY idx",
        )
        .bind(session_id)
        .bind(from as i64)
        .bind(below as i64)
        .fetch_all(&self.pool)
        .await
        .map_err(backend)?;
        rows.iter()
            .map(|r| parse_json(&r.try_get::<String, _>("decision").map_err(backend)?))
            .collect()
    }

    async fn alignment_decision(
        &self,
        session_id: &str,
        key: &str,
        not_ask: &str,
        below: u64,
    ) -> StoreResult<Option<Value>> {
        let row: Option<String> = sqlx::query_scalar(
            "SELECT decision FROM alignment_decisions
             WHERE session_id = $1 AND key = $2 AND idx < $3 AND ask_id <> $4
             ORDER BY idx LIMIT 1",
        )
        .bind(session_id)
        .bind(key)
        .bind(below as i64)
        .bind(not_ask)
        .fetch_optional(&self.pool)
        .await
        .map_err(backend)?;
        row.as_deref().map(parse_json).transpose()
    }
}

#[async_trait]
impl DraftStore for PgStore {
    async fn draft(&self, slug: &str) -> StoreResult<Option<Draft>> {
        let mut conn = self.pool.acquire().await.map_err(backend)?;
        load_draft(&mut conn, slug).await
    }

    async fn draft_by_ask(&self, ask_id: &str) -> StoreResult<Option<Draft>> {
        let sql = format!(
            "SELECT {DRAFT_COLUMNS} FROM drafts WHERE ask_id = $1 ORDER BY updated_at DESC LIMIT 1"
        );
        let row = sqlx::query(sqlx::AssertSqlSafe(sql))
            .bind(ask_id)
            .fetch_optional(&self.pool)
            .await
            .map_err(backend)?;
        row.as_ref().map(draft_from_row).transpose()
    }

    async fn drafts(&self, session_id: Option<&str>) -> StoreResult<Vec<Draft>> {
        let sql = format!(
            "SELECT {DRAFT_COLUMNS} FROM drafts WHERE ($1::text IS NULL OR session_id = $1)
             ORDER BY updated_at DESC, n DESC"
        );
        let rows = sqlx::query(sqlx::AssertSqlSafe(sql))
            .bind(session_id)
            .fetch_all(&self.pool)
            .await
            .map_err(backend)?;
        rows.iter().map(draft_from_row).collect()
    }

    async fn active_drafts(&self) -> StoreResult<Vec<(String, String)>> {
        let rows = sqlx::query("SELECT session_id, slug FROM draft_active ORDER BY session_id")
            .fetch_all(&self.pool)
            .await
            .map_err(backend)?;
        rows.iter()
            .map(|r| {
                Ok((
                    r.try_get("session_id").map_err(backend)?,
                    r.try_get("slug").map_err(backend)?,
                ))
            })
            .collect()
    }

    async fn active_draft(&self, session_id: &str) -> StoreResult<Option<String>> {
        sqlx::query_scalar("SELECT slug FROM draft_active WHERE session_id = $1")
            .bind(session_id)
            .fetch_optional(&self.pool)
            .await
            .map_err(backend)
    }

    async fn save_draft(&self, save: DraftSave) -> StoreResult<Option<Event>> {
        let mut tx = self.begin_write().await?;
        if let Some((status, ask_id)) = &save.expect {
            // Under the write lock: no other daemon writes the row between this read and
            // the write below.
            let current = load_draft(&mut tx, &save.draft.slug).await?;
            let matches = current
                .as_ref()
                .is_some_and(|c| &c.status == status && &c.ask_id == ask_id);
            if !matches {
                return Err(StoreError::Conflict(format!(
                    "draft {:?} changed: expected status {status:?}",
                    save.draft.slug
                )));
            }
        }
        let event = save_draft_in(&mut tx, &save.draft, &save.active, save.event).await?;
        commit(tx).await?;
        Ok(event)
    }

    async fn launch_draft(&self, ask: NewAsk, draft: Draft, event: Value) -> StoreResult<Created> {
        let mut tx = self.begin_write().await?;
        let mut created = create_in(&mut tx, ask).await?;
        let mut draft = draft;
        draft.status = "launched".into();
        draft.ask_id = Some(created.ask.id.clone());
        let mut event = event;
        if let Some(o) = event.as_object_mut() {
            o.insert("status".into(), json!("launched"));
            o.insert("askId".into(), json!(created.ask.id));
        }
        if let Some(e) = save_draft_in(&mut tx, &draft, &ActivePointer::Keep, Some(event)).await? {
            created.events.push(e);
        }
        commit(tx).await?;
        Ok(created)
    }
}

#[async_trait]
impl LockStore for PgStore {
    /// A session-level advisory lock in the two-key space (`hashtext('askd')`,
    /// `hashtext(key)`: apart from [`WRITE_LOCK`]'s one-key space) on a pooled connection
    /// kept for the guard's life. A dying daemon's locks go with its connections.
    ///
    /// The wait runs in a task of its own: a caller that gives up (a request whose client
    /// left) drops only the receiving end, and the task releases the lock it then gets —
    /// a cancelled `pg_advisory_lock` would otherwise still be granted on the server and
    /// stay held by a pooled connection.
    async fn hold(&self, key: &str) -> StoreResult<Option<Box<dyn crate::Held>>> {
        let pool = self.pool.clone();
        let key = key.to_string();
        let (tx, rx) = tokio::sync::oneshot::channel();
        tokio::spawn(async move {
            let held = async {
                let mut conn = pool.acquire().await.map_err(backend)?;
                sqlx::query("SELECT pg_advisory_lock(hashtext('askd'), hashtext($1))")
                    .bind(&key)
                    .execute(&mut *conn)
                    .await
                    .map_err(backend)?;
                Ok(PgHeld { conn: Some(conn) })
            }
            .await;
            // Nobody waits any more: the guard drops here, which unlocks.
            let _ = tx.send(held);
        });
        let held = rx
            .await
            .map_err(|_| StoreError::Backend("the lock task stopped".into()))??;
        Ok(Some(Box::new(held)))
    }
}

#[async_trait]
impl Upkeep for PgStore {
    /// Nothing to flush: PostgreSQL's commit is durable and its checkpoints are its own.
    async fn checkpoint(&self) -> StoreResult<()> {
        Ok(())
    }

    async fn close(&self) {
        self.pool.close().await;
    }
}

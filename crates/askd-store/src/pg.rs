//! The PostgreSQL backend (team mode, issue 17): several daemons on one database.
//!
//! The same behaviour as [`crate::sqlite`], decided by PostgreSQL rather than by a process:
//! - **Write-ahead.** A method returns after its transaction's `COMMIT` (PostgreSQL's
//!   default `synchronous_commit = on`: the commit is on disk).
//! - **Group commit.** A daemon's writes go through one writer task ([`crate::db::group`],
//!   as SQLite's): the writes queued while the last transaction committed run in one
//!   transaction, a savepoint each (a failing write rolls back alone), under one lock and
//!   one flush. The team's writes are still serialised on the lock below, but per batch, not
//!   per write, so daemons under load share its cost instead of queueing on it one by one.
//!   A commit whose outcome is unknown (the connection lost during `COMMIT`) is reported as
//!   [`StoreError::CommitUnknown`], never as a failure.
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
use serde_json::Value;
use sqlx::postgres::{PgConnectOptions, PgConnection, PgListener, PgPool, PgPoolOptions};
use sqlx::{ConnectOptions, Connection, Postgres, Row, Transaction};

use tokio::sync::mpsc;

use crate::db::group::{self, Queued};
use crate::db::{BoxFuture, Db, Job, parse_json};
use crate::shared::Backend;

pub use crate::db::pg::CHANNEL;
use crate::db::pg::backend;
use crate::{LockStore, StoreError, StoreResult, Upkeep, rolled_back};

/// The migrations, embedded, applied in order at open.
const MIGRATIONS: &[&str] = &[
    include_str!("../migrations/postgres/0001_init.sql"),
    include_str!("../migrations/postgres/0002_claims.sql"),
    include_str!("../migrations/postgres/0003_cursors.sql"),
    include_str!("../migrations/postgres/0004_submission.sql"),
    include_str!("../migrations/postgres/0005_deadlines.sql"),
    include_str!("../migrations/postgres/0006_snooze.sql"),
    include_str!("../migrations/postgres/0007_approvals.sql"),
];

/// The advisory lock key every writing transaction takes (`askd` in ASCII, then `w`).
pub const WRITE_LOCK: i64 = 0x6173_6b64_0077;
/// The advisory lock key the migrations run under.
pub const MIGRATE_LOCK: i64 = 0x6173_6b64_006d;
/// How a writing transaction begins: one round trip, the write lock taken first (see the
/// module's doc; the key is [`WRITE_LOCK`]).
const BEGIN_WRITE: &str = "BEGIN; SELECT pg_advisory_xact_lock(107148350849143)";
const _: () = assert!(WRITE_LOCK == 107_148_350_849_143);

pub struct PgStore {
    pool: PgPool,
    options: PgConnectOptions,
    writer: mpsc::Sender<Queued>,
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
        // A held lock waits as long as its holder lives (the notifier's standbys wait for
        // hours): not a slow statement worth sqlx's warning.
        let options = options
            .application_name("askd")
            .log_slow_statements(log::LevelFilter::Debug, Duration::from_secs(1));
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
        let (writer, queue) = mpsc::channel(1024);
        tokio::spawn(write_batches(pool.clone(), queue));
        Ok(PgStore {
            pool,
            options,
            writer,
        })
    }

    /// The applied migration count (`askd_schema`), for tests and `askd doctor`.
    pub async fn schema_version(&self) -> StoreResult<i64> {
        sqlx::query_scalar("SELECT version FROM askd_schema")
            .fetch_one(&self.pool)
            .await
            .map_err(backend)
    }

    /// The plans (`EXPLAIN`, one line per node) of a create's two lookups of an identical
    /// ask, undelivered then pending, for the tests that pin them to their partial indexes.
    pub async fn reattach_plans(&self) -> StoreResult<Vec<String>> {
        let mut plans = Vec::new();
        for undelivered in [true, false] {
            let sql = crate::db::dollars(&crate::lists::reattach_sql(
                crate::db::Dialect::Postgres,
                undelivered,
            ));
            let rows: Vec<String> =
                sqlx::query_scalar(sqlx::AssertSqlSafe(format!("EXPLAIN {sql}")))
                    .bind("s")
                    .bind("questions")
                    .bind("k")
                    .fetch_all(&self.pool)
                    .await
                    .map_err(backend)?;
            plans.push(rows.join(" | "));
        }
        Ok(plans)
    }

    /// A listener on [`CHANNEL`] over its own connection (see [`PgEvents`]).
    pub async fn listen(&self) -> StoreResult<PgEvents> {
        PgEvents::connect(&self.options).await
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

/// The writer task (see the module's doc): each batch one transaction under the write lock.
async fn write_batches(pool: PgPool, mut queue: mpsc::Receiver<Queued>) {
    while let Some(first) = queue.recv().await {
        let (batch, _) = group::gather(first, &mut queue, Ok);
        let mut tx = match pool.begin_with(BEGIN_WRITE).await {
            Ok(tx) => tx,
            Err(e) => {
                let e = backend(e);
                for job in batch {
                    job.refuse(e.clone());
                }
                continue;
            }
        };
        let (commit, replies) = group::run(Db::Pg(&mut tx), batch).await;
        let outcome = if commit {
            tx.commit().await.map_err(commit_failed)
        } else {
            let _ = tx.rollback().await;
            Err(rolled_back())
        };
        for reply in replies {
            reply(outcome.clone());
        }
    }
}

/// A failed `COMMIT`: a refusal by the server rolled the transaction back; a connection
/// lost while it ran leaves the outcome unknown (the server may have committed).
fn commit_failed(e: sqlx::Error) -> StoreError {
    match backend(e) {
        StoreError::Unavailable(m) => StoreError::CommitUnknown(m),
        other => other,
    }
}

/// Events committed on the database, by any daemon, as their seqs arrive on [`CHANNEL`].
///
/// The seqs are hints: a reader reads the events themselves from the store by seq
/// ([`crate::EventStore::events_after`]), which also covers what a lost connection missed.
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

impl Backend for PgStore {
    fn write<T: Send + 'static>(&self, job: Job<T>) -> BoxFuture<'_, StoreResult<T>> {
        Box::pin(async move {
            let (queued, result) = group::queue(job);
            self.writer
                .send(queued)
                .await
                .map_err(|_| StoreError::Backend("the store is closed".into()))?;
            group::outcome(result).await
        })
    }

    fn read<T: Send + 'static>(&self, job: Job<T>) -> BoxFuture<'_, StoreResult<T>> {
        Box::pin(async move {
            let mut conn = self.pool.acquire().await.map_err(backend)?;
            job(Db::Pg(&mut conn)).await
        })
    }

    fn snapshot<T: Send + 'static>(&self, job: Job<T>) -> BoxFuture<'_, StoreResult<T>> {
        Box::pin(async move {
            let mut tx = self.begin_snapshot().await?;
            let out = job(Db::Pg(&mut tx)).await?;
            commit(tx).await?;
            Ok(out)
        })
    }

    fn new_session_id(&self) -> String {
        new_id()
    }

    fn ask_payloads<'a>(
        &'a self,
        ids: &'a [String],
    ) -> BoxFuture<'a, StoreResult<Vec<(String, String, Value)>>> {
        Box::pin(async move {
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
        })
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

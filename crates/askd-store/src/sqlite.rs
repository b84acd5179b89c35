//! The embedded SQLite backend.
//!
//! Writes go through one writer task that owns the only writing connection (SQLite
//! serialises writers anyway). It **group-commits** ([`crate::db::group`]): the writes
//! queued meanwhile run in one transaction, a savepoint each, committed with one fsync under
//! `synchronous=FULL` before any of them is acknowledged. Reads use a small pool of readers,
//! which WAL lets run beside the writer.
//!
//! Lists are index walks (migration 6): each list query's WHERE names only the filters
//! given, so one index serves each combination in the list's order and `LIMIT` stops the
//! walk (`tests::list_plans_use_an_index` checks every plan). Each thing is stored once: a
//! record's and an ask's own events' members that are the ask's (its payload, its result's
//! answers, its ids and times) are kept as `null` with a `shared` bit and put back on read
//! (`pack` / `unpack`), and a result's long texts are kept once in `texts`; every read
//! returns the JSON that was written. Rows written before migration 6 keep their copies
//! (`shared = 0`), so an upgrade does not rewrite history: it is instant at any size.

use std::path::Path;
use std::str::FromStr;
use std::time::Duration;

use async_trait::async_trait;
use serde_json::Value;
use sqlx::sqlite::{
    SqliteConnectOptions, SqliteConnection, SqliteJournalMode, SqlitePool, SqlitePoolOptions,
    SqliteSynchronous,
};
use sqlx::{Connection, Row};
use tokio::sync::{mpsc, oneshot};

use crate::db::group::{self, Queued};
use crate::db::sqlite::backend;
use crate::db::{BoxFuture, Db, Job, parse_json};
use crate::shared::Backend;
use crate::{LockStore, StoreError, StoreResult, Upkeep, rolled_back};

/// Migrations, embedded in the binary, applied in order at open. `PRAGMA user_version`
/// records how many have run.
const MIGRATIONS: &[&str] = &[
    include_str!("../migrations/sqlite/0001_init.sql"),
    include_str!("../migrations/sqlite/0002_drafts.sql"),
    include_str!("../migrations/sqlite/0003_event_sessions.sql"),
    include_str!("../migrations/sqlite/0004_settings.sql"),
    include_str!("../migrations/sqlite/0005_delivery.sql"),
    include_str!("../migrations/sqlite/0006_lists_and_sharing.sql"),
    include_str!("../migrations/sqlite/0007_alignment_checkpoints.sql"),
    include_str!("../migrations/sqlite/0008_claims.sql"),
    include_str!("../migrations/sqlite/0009_cursors.sql"),
    include_str!("../migrations/sqlite/0010_submission.sql"),
    include_str!("../migrations/sqlite/0011_deadlines.sql"),
    include_str!("../migrations/sqlite/0012_snooze.sql"),
    include_str!("../migrations/sqlite/0013_approvals.sql"),
];

/// SQLite settings as read back from a connection.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pragmas {
    pub journal_mode: String,
    /// 2 = FULL.
    pub synchronous: i64,
    pub foreign_keys: bool,
    /// How many embedded migrations have run.
    pub user_version: i64,
}

enum Work {
    Write(Queued),
    /// Outside any transaction: `PRAGMA wal_checkpoint(TRUNCATE)`.
    Checkpoint(oneshot::Sender<StoreResult<()>>),
    Close(oneshot::Sender<()>),
}

pub struct SqliteStore {
    writer: mpsc::Sender<Work>,
    read: SqlitePool,
}

impl SqliteStore {
    /// The schema version a store opened by this code has (`PRAGMA user_version`): how many
    /// embedded migrations exist.
    pub const SCHEMA_VERSION: i64 = MIGRATIONS.len() as i64;

    /// Opens (creating when missing) the database file and runs pending migrations.
    pub async fn open(path: &Path) -> StoreResult<Self> {
        let options = SqliteConnectOptions::from_str("sqlite:")
            .map_err(backend)?
            .filename(path)
            .create_if_missing(true)
            .journal_mode(SqliteJournalMode::Wal)
            .synchronous(SqliteSynchronous::Full)
            .foreign_keys(true)
            .busy_timeout(Duration::from_secs(10));
        let mut conn = SqliteConnection::connect_with(&options)
            .await
            .map_err(backend)?;
        migrate(&mut conn).await?;
        let read = SqlitePoolOptions::new()
            .max_connections(4)
            .acquire_timeout(Duration::from_secs(60))
            .connect_with(options)
            .await
            .map_err(backend)?;
        let (tx, rx) = mpsc::channel(1024);
        tokio::spawn(writer(conn, rx));
        Ok(SqliteStore { writer: tx, read })
    }

    /// Runs `job` as one write (group-committed), acknowledged only after its transaction
    /// commits.
    async fn submit<T: Send + 'static>(&self, job: Job<T>) -> StoreResult<T> {
        let (queued, result) = group::queue(job);
        self.writer
            .send(Work::Write(queued))
            .await
            .map_err(|_| StoreError::Backend("the store is closed".into()))?;
        group::outcome(result).await
    }

    /// The pragmas in force on the writer connection (for tests and `askd doctor`).
    /// `EXPLAIN QUERY PLAN` of one statement (its parameters unbound), one line per step:
    /// for the tests that pin which index a query uses.
    pub async fn explain_plan(&self, sql: &str) -> StoreResult<Vec<String>> {
        let rows = sqlx::query(sqlx::AssertSqlSafe(format!("EXPLAIN QUERY PLAN {sql}")))
            .fetch_all(&self.read)
            .await
            .map_err(backend)?;
        rows.iter()
            .map(|r| r.try_get::<String, _>("detail").map_err(backend))
            .collect()
    }

    pub async fn pragmas(&self) -> StoreResult<Pragmas> {
        self.submit(crate::db::job(|db| {
            Box::pin(async move {
                let Db::Sqlite(conn) = db else {
                    return Err(StoreError::Backend("not a SQLite connection".into()));
                };
                let journal_mode: String = sqlx::query_scalar("PRAGMA journal_mode")
                    .fetch_one(&mut *conn)
                    .await
                    .map_err(backend)?;
                let synchronous: i64 = sqlx::query_scalar("PRAGMA synchronous")
                    .fetch_one(&mut *conn)
                    .await
                    .map_err(backend)?;
                let foreign_keys: i64 = sqlx::query_scalar("PRAGMA foreign_keys")
                    .fetch_one(&mut *conn)
                    .await
                    .map_err(backend)?;
                let user_version: i64 = sqlx::query_scalar("PRAGMA user_version")
                    .fetch_one(&mut *conn)
                    .await
                    .map_err(backend)?;
                Ok(Pragmas {
                    journal_mode,
                    synchronous,
                    foreign_keys: foreign_keys != 0,
                    user_version,
                })
            })
        }))
        .await
    }
}

async fn exec(conn: &mut SqliteConnection, sql: &'static str) -> StoreResult<()> {
    sqlx::raw_sql(sql)
        .execute(&mut *conn)
        .await
        .map(|_| ())
        .map_err(backend)
}

/// The writer task: takes whatever writes are queued, runs them in one transaction with a
/// savepoint each, commits once, then acknowledges each.
async fn writer(mut conn: SqliteConnection, mut rx: mpsc::Receiver<Work>) {
    let mut pending: Option<Work> = None;
    loop {
        let work = match pending.take() {
            Some(w) => w,
            None => match rx.recv().await {
                Some(w) => w,
                None => break,
            },
        };
        match work {
            Work::Checkpoint(reply) => {
                let r = exec(&mut conn, "PRAGMA wal_checkpoint(TRUNCATE)").await;
                let _ = reply.send(r);
            }
            Work::Close(reply) => {
                let _ = conn.close().await;
                let _ = reply.send(());
                return;
            }
            Work::Write(first) => {
                let (batch, next) = group::gather(first, &mut rx, |w| match w {
                    Work::Write(j) => Ok(j),
                    other => Err(other),
                });
                pending = next;
                if let Err(e) = exec(&mut conn, "BEGIN IMMEDIATE").await {
                    for job in batch {
                        job.refuse(e.clone());
                    }
                    continue;
                }
                let (commit, replies) = group::run(Db::Sqlite(&mut conn), batch).await;
                let outcome = if commit {
                    let committed = exec(&mut conn, "COMMIT").await;
                    if committed.is_err() {
                        let _ = exec(&mut conn, "ROLLBACK").await;
                    }
                    committed
                } else {
                    let _ = exec(&mut conn, "ROLLBACK").await;
                    Err(rolled_back())
                };
                for reply in replies {
                    reply(outcome.clone());
                }
            }
        }
    }
    let _ = conn.close().await;
}

async fn migrate(conn: &mut SqliteConnection) -> StoreResult<()> {
    let version: i64 = sqlx::query_scalar("PRAGMA user_version")
        .fetch_one(&mut *conn)
        .await
        .map_err(backend)?;
    for (i, sql) in MIGRATIONS.iter().enumerate().skip(version.max(0) as usize) {
        let mut tx = conn.begin().await.map_err(backend)?;
        sqlx::raw_sql(sqlx::AssertSqlSafe(*sql))
            .execute(&mut *tx)
            .await
            .map_err(backend)?;
        sqlx::raw_sql(sqlx::AssertSqlSafe(format!(
            "PRAGMA user_version = {}",
            i + 1
        )))
        .execute(&mut *tx)
        .await
        .map_err(backend)?;
        tx.commit().await.map_err(backend)?;
    }
    Ok(())
}

fn new_id() -> String {
    // Time-ordered and unguessable enough for a local id; the daemon supplies ask ids.
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or_default();
    format!("s-{nanos:x}-{:x}", std::process::id())
}

impl Backend for SqliteStore {
    fn write<T: Send + 'static>(&self, job: Job<T>) -> BoxFuture<'_, StoreResult<T>> {
        Box::pin(self.submit(job))
    }

    fn read<T: Send + 'static>(&self, job: Job<T>) -> BoxFuture<'_, StoreResult<T>> {
        Box::pin(async move {
            let mut conn = self.read.acquire().await.map_err(backend)?;
            job(Db::Sqlite(&mut conn)).await
        })
    }

    fn snapshot<T: Send + 'static>(&self, job: Job<T>) -> BoxFuture<'_, StoreResult<T>> {
        Box::pin(async move {
            let mut conn = self.read.acquire().await.map_err(backend)?;
            let mut tx = sqlx::Connection::begin(&mut *conn).await.map_err(backend)?;
            let out = job(Db::Sqlite(&mut tx)).await?;
            tx.commit().await.map_err(backend)?;
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
            let mut out = Vec::with_capacity(ids.len());
            // Plan: SEARCH asks USING INDEX sqlite_autoindex_asks_1 (id=?), once per id listed.
            for chunk in ids.chunks(500) {
                let marks = vec!["?"; chunk.len()].join(", ");
                let sql = format!("SELECT id, kind, payload FROM asks WHERE id IN ({marks})");
                // One text per list length: not kept among the connection's prepared statements.
                let mut q = sqlx::query(sqlx::AssertSqlSafe(sql)).persistent(false);
                for id in chunk {
                    q = q.bind(id);
                }
                for r in q.fetch_all(&self.read).await.map_err(backend)? {
                    let payload: String = r.try_get("payload").map_err(backend)?;
                    out.push((
                        r.try_get("id").map_err(backend)?,
                        r.try_get("kind").map_err(backend)?,
                        parse_json(&payload)?,
                    ));
                }
            }
            Ok(out)
        })
    }
}

/// One daemon owns a SQLite store (the data directory's lock): nothing to hold across
/// processes.
impl LockStore for SqliteStore {}

#[async_trait]
impl Upkeep for SqliteStore {
    async fn checkpoint(&self) -> StoreResult<()> {
        let (reply, done) = oneshot::channel();
        self.writer
            .send(Work::Checkpoint(reply))
            .await
            .map_err(|_| StoreError::Backend("the store is closed".into()))?;
        done.await
            .map_err(|_| StoreError::Backend("the store's writer stopped".into()))?
    }

    async fn close(&self) {
        self.read.close().await;
        let (reply, done) = oneshot::channel();
        if self.writer.send(Work::Close(reply)).await.is_ok() {
            let _ = done.await;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::db::Dialect;
    use crate::lists::{asks_sql, events_after_sql, records_sql, session_events_sql};
    use crate::model::*;

    /// `EXPLAIN QUERY PLAN` of `sql` with its binds, one line per plan step.
    async fn plan(
        store: &SqliteStore,
        sql: &str,
        binds: &[String],
        last: Option<i64>,
    ) -> Vec<String> {
        let mut q = sqlx::query(sqlx::AssertSqlSafe(format!("EXPLAIN QUERY PLAN {sql}")));
        for b in binds {
            q = q.bind(b.clone());
        }
        if let Some(n) = last {
            q = q.bind(n);
        }
        let rows = q.fetch_all(&store.read).await.unwrap();
        rows.iter()
            .map(|r| r.try_get::<String, _>("detail").unwrap())
            .collect()
    }

    /// No step reads a whole table without an index, and no step sorts.
    fn assert_indexed(what: &str, plan: &[String]) {
        for line in plan {
            let full_scan = line.starts_with("SCAN")
                && !line.contains("USING INDEX")
                && !line.contains("USING COVERING INDEX");
            assert!(
                !full_scan && !line.contains("TEMP B-TREE"),
                "{what}: {plan:#?}"
            );
        }
    }

    async fn store() -> (SqliteStore, tempfile::TempDir) {
        let dir = tempfile::tempdir().unwrap();
        let store = SqliteStore::open(&dir.path().join("askd.db"))
            .await
            .unwrap();
        (store, dir)
    }

    /// Every list the UI and the API ask is an index walk in the list's order. Before
    /// migration 6 the pending list was `SCAN a` + `USE TEMP B-TREE FOR ORDER BY` (every
    /// stored ask read and sorted to return the newest 100) and the pending count
    /// `SCAN asks USING COVERING INDEX asks_by_session` (every ask counted).
    #[tokio::test]
    async fn list_plans_use_an_index() {
        let (store, _dir) = store().await;
        let states = [None, Some(AskState::Pending), Some(AskState::Settled)];
        for state in states {
            for session in [None, Some("s1".to_string())] {
                for kind in [None, Some("questions".to_string())] {
                    let f = AskFilter {
                        state,
                        session_id: session.clone(),
                        kind: kind.clone(),
                        limit: Some(100),
                    };
                    let (sql, binds) = asks_sql(&f, Dialect::Sqlite);
                    let p = plan(&store, &sql, &binds, Some(100)).await;
                    assert_indexed(&format!("asks {f:?}"), &p);
                    let index = match (state.is_some(), session.is_some(), kind.is_some()) {
                        (false, false, false) => "asks_by_time",
                        (true, false, false) => "asks_by_state",
                        (_, false, true) if state.is_none() => "asks_by_kind_time",
                        (true, false, true) => "asks_by_kind",
                        (false, true, _) => "asks_by_session_time",
                        (true, true, _) => "asks_by_session",
                        _ => unreachable!(),
                    };
                    assert!(
                        p.iter().any(|l| l.contains(&format!("INDEX {index} "))
                            || l.ends_with(&format!("INDEX {index}"))),
                        "asks {f:?} uses {index}: {p:#?}"
                    );
                }
            }
        }
        for kind in [None, Some("survey".to_string())] {
            for session in [None, Some("s1".to_string())] {
                for outcome in [None, Some("answered".to_string())] {
                    // The Records page's filters (dates, text, the next page's cursor)
                    // narrow the same walk: each adds no scan and no sort.
                    let page = RecordFilter {
                        since: Some("2026-01-01".into()),
                        until: Some("2026-02-01".into()),
                        text: Some("postgres".into()),
                        after: Some("A".into()),
                        ..RecordFilter::default()
                    };
                    let extras = [RecordFilter::default(), page];
                    for extra in extras {
                        let f = RecordFilter {
                            kind: kind.clone(),
                            session_id: session.clone(),
                            outcome: outcome.clone(),
                            ..extra
                        };
                        let (sql, binds) = records_sql(&f, Dialect::Sqlite);
                        let p = plan(&store, &sql, &binds, Some(-1)).await;
                        assert_indexed(&format!("records {f:?}"), &p);
                        let index = match (kind.is_some(), session.is_some()) {
                            (_, true) => "records_by_session",
                            (true, false) => "records_by_kind",
                            (false, false) => "records_by_time",
                        };
                        assert!(p[0].contains(index), "records {f:?} walks {index}: {p:#?}");
                        if f.since.is_some() {
                            assert!(
                                p[0].contains("settled_at>? AND settled_at<?")
                                    || p[0].contains("settled_at>?"),
                                "records {f:?} bounds the walk: {p:#?}"
                            );
                        }
                    }
                }
            }
        }
        let p = plan(
            &store,
            "SELECT COUNT(*) FROM asks WHERE state = ?1",
            &["pending".into()],
            None,
        )
        .await;
        assert_indexed("count pending", &p);
        assert!(p[0].contains("asks_by_state (state=?)"), "{p:#?}");
        let p = plan(
            &store,
            &session_events_sql(Dialect::Sqlite),
            &["s1".into()],
            None,
        )
        .await;
        assert_indexed("session_events", &p);
        assert!(p[0].contains("events_by_session (session_id=?)"), "{p:#?}");
        let p = plan(&store, &events_after_sql(Dialect::Sqlite), &[], None).await;
        assert_indexed("events_after", &p);
        assert!(p[0].contains("INTEGER PRIMARY KEY (rowid>?)"), "{p:#?}");
    }
}

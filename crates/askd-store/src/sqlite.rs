//! The embedded SQLite backend.
//!
//! Writes go through one writer task that owns the only writing connection (SQLite
//! serialises writers anyway). It **group-commits**: when several writes are queued, it runs
//! them in one transaction, each inside its own savepoint (a failing write rolls back alone),
//! and commits — one fsync under `synchronous=FULL` — before any of them is acknowledged.
//! A lone write is a transaction of one, so latency is unchanged and durability is the
//! same: nothing is acknowledged before it is on disk. Reads use a small pool of readers,
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

use std::future::Future;
use std::path::Path;
use std::pin::Pin;
use std::str::FromStr;
use std::time::Duration;

use async_trait::async_trait;
use serde_json::{Value, json};
use sqlx::sqlite::{
    SqliteConnectOptions, SqliteConnection, SqliteJournalMode, SqlitePool, SqlitePoolOptions,
    SqliteRow, SqliteSynchronous,
};
use sqlx::{Connection, Row, Sqlite};
use tokio::sync::{mpsc, oneshot};

use crate::model::*;
use crate::{
    AlignmentStore, AskStore, DraftStore, EventStore, LockStore, SessionStore, SettingsStore,
    StoreError, StoreResult, Upkeep, now,
};

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
];

/// Most writes one group commit takes.
const MAX_BATCH: usize = 128;

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

type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;
/// Delivers a write's outcome once its transaction has committed (or failed to).
type Reply = Box<dyn FnOnce(StoreResult<()>) + Send>;
/// One write: runs on the writer connection inside its savepoint; says whether it succeeded.
type Job = Box<dyn for<'c> FnOnce(&'c mut SqliteConnection) -> BoxFuture<'c, (bool, Reply)> + Send>;

enum Work {
    Write(Job),
    /// Outside any transaction: `PRAGMA wal_checkpoint(TRUNCATE)`.
    Checkpoint(oneshot::Sender<StoreResult<()>>),
    Close(oneshot::Sender<()>),
}

pub struct SqliteStore {
    writer: mpsc::Sender<Work>,
    read: SqlitePool,
}

fn backend(e: sqlx::Error) -> StoreError {
    if is_full(&e) {
        StoreError::StorageFull(e.to_string())
    } else {
        StoreError::Backend(e.to_string())
    }
}

/// `SQLITE_FULL` (13, the primary code of its extended codes), `SQLITE_IOERR_SHMSIZE` (4874:
/// SQLite could not allocate the `-shm` index of a WAL database — on opening, after a clean
/// stop removed it, when the disk is full) or an OS `ENOSPC`.
fn is_full(e: &sqlx::Error) -> bool {
    const SQLITE_FULL: i32 = 13;
    const SQLITE_IOERR_SHMSIZE: i32 = 10 | (19 << 8);
    match e {
        sqlx::Error::Database(d) => d
            .code()
            .and_then(|c| c.parse::<i32>().ok())
            .is_some_and(|c| c & 0xff == SQLITE_FULL || c == SQLITE_IOERR_SHMSIZE),
        sqlx::Error::Io(io) => io.kind() == std::io::ErrorKind::StorageFull,
        _ => false,
    }
}

/// A JSON value's text as stored (member order kept: two values are the same stored JSON
/// exactly when their texts are equal — `Value`'s `==` ignores member order).
fn to_text(v: &Value) -> String {
    v.to_string()
}

fn parse_json(text: &str) -> StoreResult<Value> {
    serde_json::from_str(text).map_err(|e| StoreError::Backend(format!("stored JSON: {e}")))
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

    /// Runs `f` as one write, acknowledged only after its transaction commits.
    async fn write<T, F>(&self, f: F) -> StoreResult<T>
    where
        T: Send + 'static,
        F: for<'c> FnOnce(&'c mut SqliteConnection) -> BoxFuture<'c, StoreResult<T>>
            + Send
            + 'static,
    {
        let (done, result) = oneshot::channel();
        let job: Job = Box::new(move |conn| {
            Box::pin(async move {
                let r = f(conn).await;
                let ok = r.is_ok();
                // A write that failed reports its own error (a full disk, a conflict) even
                // when the batch's commit failed too.
                let reply: Reply = Box::new(move |commit| {
                    let _ = done.send(r.and_then(|v| commit.map(|()| v)));
                });
                (ok, reply)
            })
        });
        self.writer
            .send(Work::Write(job))
            .await
            .map_err(|_| StoreError::Backend("the store is closed".into()))?;
        result
            .await
            .map_err(|_| StoreError::Backend("the store's writer stopped".into()))?
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
        self.write(|conn| {
            Box::pin(async move {
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
        })
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
                let mut batch = vec![first];
                while batch.len() < MAX_BATCH {
                    match rx.try_recv() {
                        Ok(Work::Write(j)) => batch.push(j),
                        Ok(other) => {
                            pending = Some(other);
                            break;
                        }
                        Err(_) => break,
                    }
                }
                let mut replies = Vec::with_capacity(batch.len());
                if let Err(e) = exec(&mut conn, "BEGIN IMMEDIATE").await {
                    // Run nothing: dropping the batch fails every write in it.
                    eprintln!("askd-store: cannot begin a write transaction: {e}");
                    drop(batch);
                    continue;
                }
                for job in batch {
                    let _ = exec(&mut conn, "SAVEPOINT w").await;
                    let (ok, reply) = job(&mut conn).await;
                    if ok {
                        let _ = exec(&mut conn, "RELEASE w").await;
                    } else {
                        let _ = exec(&mut conn, "ROLLBACK TO w").await;
                        let _ = exec(&mut conn, "RELEASE w").await;
                    }
                    replies.push(reply);
                }
                let committed = exec(&mut conn, "COMMIT").await;
                if committed.is_err() {
                    let _ = exec(&mut conn, "ROLLBACK").await;
                }
                for reply in replies {
                    reply(committed.clone());
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

/// Reads an event row of [`event_select`]: the payload with its shared members put back.
fn event_from_row(r: &SqliteRow) -> StoreResult<Event> {
    let payload: String = r.try_get("payload").map_err(backend)?;
    let shared: i64 = r.try_get("shared").map_err(backend)?;
    let owner = OwnerRow::read(r, shared, false)?;
    Ok(Event {
        seq: r.try_get("seq").map_err(backend)?,
        kind: r.try_get("kind").map_err(backend)?,
        payload: unpack(parse_json(&payload)?, shared, &owner.owner())?,
        created_at: r.try_get("created_at").map_err(backend)?,
    })
}

/// What an event read selects: the row, and its ask's columns when members of the payload
/// are the ask's (`shared`, see [`pack`]). The LEFT JOIN keeps the events the outer loop,
/// so `ORDER BY e.seq` is the table's (or `events_by_session`'s) order.
fn event_select() -> String {
    format!(
        "SELECT e.seq, e.kind, e.payload, e.created_at, e.shared, {OWNER_COLUMNS}
         FROM events e LEFT JOIN asks a ON e.shared != 0 AND a.id = e.ask_id"
    )
}

/// `EventStore::events_after`'s query.
fn events_after_sql() -> String {
    format!(
        "{} WHERE e.seq > ?1 ORDER BY e.seq LIMIT ?2",
        event_select()
    )
}

/// `EventStore::session_events`'s query (the partial index `events_by_session`: `session_id = ?`
/// implies `session_id IS NOT NULL`).
fn session_events_sql() -> String {
    format!("{} WHERE e.session_id = ?1 ORDER BY e.seq", event_select())
}

/// Members of a record or an event payload that are stored once, on the ask they belong
/// to: such a member is kept as `null` in place (so it keeps its position) and its bit is set
/// in the row's `shared`; a read puts the ask's value back. A member is shared only when its
/// JSON text is exactly its source's, and every source is written once and never changed
/// (the payload, id, session, kind, title and creation time at create; the outcome, the
/// settle time and the result at the one settle), so a read returns what was written.
const SHARES: [(i64, &str, Source); 12] = [
    (1, "spec", Source::Payload),
    (2, "answers", Source::Result("answers")),
    (4, "skipped", Source::Result("skipped")),
    (8, "path", Source::Result("path")),
    (16, "askId", Source::Column("id")),
    (32, "ask_id", Source::Column("id")),
    (64, "session", Source::Column("session_id")),
    (128, "kind", Source::Column("kind")),
    (256, "outcome", Source::Column("outcome")),
    (512, "createdAt", Source::Column("created_at")),
    (1024, "settledAt", Source::Column("settled_at")),
    (2048, "title", Source::Column("title")),
];

/// The members of a record that may be the ask's own.
const RECORD_SHARES: &[&str] = &[
    "spec",
    "answers",
    "skipped",
    "askId",
    "session",
    "kind",
    "outcome",
    "createdAt",
    "settledAt",
];
/// The members of `ask.settled` that may be the ask's own.
const SETTLED_SHARES: &[&str] = &[
    "answers",
    "path",
    "skipped",
    "ask_id",
    "session",
    "kind",
    "outcome",
    "settledAt",
];
/// The members of `ask.created` that may be the ask's own.
const CREATED_SHARES: &[&str] = &["ask_id", "session", "kind", "createdAt", "title"];

#[derive(Clone, Copy)]
enum Source {
    /// The ask's payload.
    Payload,
    /// A member of the ask's result.
    Result(&'static str),
    /// A text column of the ask's row.
    Column(&'static str),
}

/// The ask a record or an event belongs to, as far as its shared members need it.
#[derive(Default)]
struct Owner<'a> {
    /// The payload's JSON text as stored.
    payload: Option<&'a str>,
    result: Option<&'a Value>,
    id: Option<&'a str>,
    session_id: Option<&'a str>,
    kind: Option<&'a str>,
    title: Option<&'a str>,
    outcome: Option<&'a str>,
    created_at: Option<&'a str>,
    settled_at: Option<&'a str>,
}

impl Owner<'_> {
    fn column(&self, name: &str) -> Option<&str> {
        match name {
            "id" => self.id,
            "session_id" => self.session_id,
            "kind" => self.kind,
            "title" => self.title,
            "outcome" => self.outcome,
            "created_at" => self.created_at,
            "settled_at" => self.settled_at,
            _ => None,
        }
    }
}

/// The owning ask's columns as a read joins them (`o_*`), parsed where they are JSON.
struct OwnerRow {
    payload: Option<String>,
    result: Option<Value>,
    columns: [Option<String>; 7],
}

impl OwnerRow {
    /// Reads the `o_*` columns of a row; `bits` says which are needed.
    fn read(r: &SqliteRow, bits: i64, with_payload: bool) -> StoreResult<OwnerRow> {
        let get = |c: &str| -> StoreResult<Option<String>> { r.try_get(c).map_err(backend) };
        let mut columns: [Option<String>; 7] = Default::default();
        if bits != 0 {
            for (i, c) in [
                "o_id",
                "o_session",
                "o_kind",
                "o_title",
                "o_outcome",
                "o_created",
                "o_settled",
            ]
            .iter()
            .enumerate()
            {
                columns[i] = get(c)?;
            }
        }
        let payload = if with_payload && bits & 1 != 0 {
            get("o_payload")?
        } else {
            None
        };
        let result = if bits & (2 | 4 | 8) != 0 {
            get("o_result")?.as_deref().map(parse_json).transpose()?
        } else {
            None
        };
        Ok(OwnerRow {
            payload,
            result,
            columns,
        })
    }

    fn owner(&self) -> Owner<'_> {
        let c = |i: usize| self.columns[i].as_deref();
        Owner {
            payload: self.payload.as_deref(),
            result: self.result.as_ref(),
            id: c(0),
            session_id: c(1),
            kind: c(2),
            title: c(3),
            outcome: c(4),
            created_at: c(5),
            settled_at: c(6),
        }
    }
}

/// The owning ask's columns a read of records or events joins (the `a` of the query).
const OWNER_COLUMNS: &str = "a.id AS o_id, a.session_id AS o_session, a.kind AS o_kind, a.title AS o_title,
     a.outcome AS o_outcome, a.created_at AS o_created, a.settled_at AS o_settled, a.result AS o_result";

/// Replaces the members of `value` named in `members` that equal their source in `owner`
/// with `null`; returns the bits.
fn pack(value: &mut Value, members: &[&str], owner: &Owner<'_>) -> i64 {
    let Some(map) = value.as_object_mut() else {
        return 0;
    };
    let mut bits = 0;
    for (bit, member, source) in SHARES {
        if !members.contains(&member) {
            continue;
        }
        let Some(v) = map.get_mut(member) else {
            continue;
        };
        let same = match source {
            Source::Payload => !v.is_null() && owner.payload.is_some_and(|p| to_text(v) == p),
            Source::Result(m) => owner
                .result
                .and_then(|r| r.get(m))
                .is_some_and(|r| !r.is_null() && to_text(r) == to_text(v)),
            Source::Column(c) => v.as_str().is_some() && v.as_str() == owner.column(c),
        };
        if same {
            *v = Value::Null;
            bits |= bit;
        }
    }
    bits
}

/// Puts the shared members back (the inverse of [`pack`]).
fn unpack(mut value: Value, bits: i64, owner: &Owner<'_>) -> StoreResult<Value> {
    if bits == 0 {
        return Ok(value);
    }
    let missing = || StoreError::Backend("a shared member's ask is missing".into());
    let Some(map) = value.as_object_mut() else {
        return Err(missing());
    };
    for (bit, member, source) in SHARES {
        if bits & bit == 0 {
            continue;
        }
        let v = match source {
            Source::Payload => parse_json(owner.payload.ok_or_else(missing)?)?,
            Source::Result(m) => owner
                .result
                .and_then(|r| r.get(m))
                .cloned()
                .ok_or_else(missing)?,
            Source::Column(c) => Value::String(owner.column(c).ok_or_else(missing)?.to_string()),
        };
        map.insert(member.to_string(), v);
    }
    Ok(value)
}

async fn append_event(
    tx: &mut SqliteConnection,
    kind: &str,
    ask_id: Option<&str>,
    payload: Value,
    at: &str,
) -> StoreResult<Event> {
    append_event_shared(tx, kind, ask_id, payload, at, None).await
}

/// [`append_event`], storing the payload's `members` that are its ask's (`owner`) once (see
/// [`pack`]); the returned event has the whole payload.
async fn append_event_shared(
    tx: &mut SqliteConnection,
    kind: &str,
    ask_id: Option<&str>,
    payload: Value,
    at: &str,
    shares: Option<(&[&str], &Owner<'_>)>,
) -> StoreResult<Event> {
    let (stored, shared) = match shares {
        Some((members, owner)) => {
            let mut packed = payload.clone();
            let bits = pack(&mut packed, members, owner);
            (to_text(&packed), bits)
        }
        None => (to_text(&payload), 0),
    };
    let seq: i64 = sqlx::query_scalar(
        "INSERT INTO events (kind, ask_id, payload, created_at, session_id, shared) VALUES (?1, ?2, ?3, ?4, ?5, ?6) RETURNING seq",
    )
    .bind(kind)
    .bind(ask_id)
    .bind(stored)
    .bind(at)
    .bind(payload.get("session").and_then(Value::as_str))
    .bind(shared)
    .fetch_one(&mut *tx)
    .await
    .map_err(backend)?;
    Ok(Event {
        seq,
        kind: kind.to_string(),
        payload,
        created_at: at.to_string(),
    })
}

const ASK_COLUMNS: &str = "a.id, a.session_id, a.kind, a.title, a.state, a.outcome, a.payload, a.fingerprint, a.created_at, a.settled_at, a.awaited, a.autosave, a.autosave_revision, a.autosave_saved_at, a.result, a.delivered_at, a.claim, s.client, s.workspace,
    CASE WHEN a.result_texts IS NOT NULL THEN (SELECT json_group_object(j.key, t.text) FROM json_each(a.result_texts) j JOIN texts t ON t.id = j.value) END AS result_text_values";

fn ask_from_row(row: &SqliteRow, banked: Vec<BankedEntry>) -> StoreResult<Ask> {
    let get = |e: sqlx::Error| backend(e);
    let state: String = row.try_get("state").map_err(get)?;
    let payload: String = row.try_get("payload").map_err(get)?;
    let autosave: Option<String> = row.try_get("autosave").map_err(get)?;
    let result: Option<String> = row.try_get("result").map_err(get)?;
    let texts: Option<String> = row.try_get("result_text_values").map_err(get)?;
    let mut result = result.as_deref().map(parse_json).transpose()?;
    // The long texts kept once (`texts`) go back in their places.
    if let (Some(Value::Object(r)), Some(texts)) = (&mut result, texts)
        && let Value::Object(texts) = parse_json(&texts)?
    {
        for (member, text) in texts {
            r.insert(member, text);
        }
    }
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
        awaited: row.try_get::<i64, _>("awaited").map_err(get)? != 0,
        banked,
        autosave: autosave.as_deref().map(parse_json).transpose()?,
        autosave_revision: row.try_get("autosave_revision").map_err(get)?,
        autosave_saved_at: row.try_get("autosave_saved_at").map_err(get)?,
        result,
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

async fn load_banked<'e, E>(exec: E, ask_id: &str) -> StoreResult<Vec<BankedEntry>>
where
    E: sqlx::Executor<'e, Database = Sqlite>,
{
    let rows = sqlx::query(
        "SELECT question_id, entry, banked_at FROM banked WHERE ask_id = ?1 ORDER BY seq",
    )
    .bind(ask_id)
    .fetch_all(exec)
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

async fn load_ask(conn: &mut sqlx::SqliteConnection, id: &str) -> StoreResult<Option<Ask>> {
    let sql = format!(
        "SELECT {ASK_COLUMNS} FROM asks a JOIN sessions s ON s.id = a.session_id WHERE a.id = ?1"
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

/// Inserts banked rows after the ask's current last one; returns them as stored.
async fn insert_banked(
    tx: &mut SqliteConnection,
    ask_id: &str,
    entries: &[NewBanked],
    at: &str,
) -> StoreResult<()> {
    let start: i64 =
        sqlx::query_scalar("SELECT COALESCE(MAX(seq), 0) FROM banked WHERE ask_id = ?1")
            .bind(ask_id)
            .fetch_one(&mut *tx)
            .await
            .map_err(backend)?;
    for (i, e) in entries.iter().enumerate() {
        let result = sqlx::query(
            "INSERT INTO banked (ask_id, seq, question_id, entry, banked_at) VALUES (?1, ?2, ?3, ?4, ?5)",
        )
        .bind(ask_id)
        .bind(start + 1 + i as i64)
        .bind(&e.question_id)
        .bind(to_text(&e.entry))
        .bind(at)
        .execute(&mut *tx)
        .await;
        if let Err(err) = result {
            if let sqlx::Error::Database(db) = &err
                && db.is_unique_violation()
            {
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
async fn settle_in(tx: &mut SqliteConnection, ask_id: &str, s: &Settlement) -> StoreResult<Event> {
    let at = s.settled_at.as_str();
    if let Some(expected) = s.expect_banked {
        let banked: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM banked WHERE ask_id = ?1")
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
    // A lost compare-and-set rolls the interned texts back with the write's savepoint.
    let mut result = s.result.clone();
    let texts = intern_texts(tx, &mut result).await?;
    let row = sqlx::query(
        "UPDATE asks SET state = 'settled', outcome = ?2, settled_at = ?3, result = ?4, awaited = 0,
             delivered_at = CASE WHEN ?6 THEN ?3 END,
             result_texts = ?5
         WHERE id = ?1 AND state = 'pending'
         RETURNING session_id, kind, created_at, payload",
    )
    .bind(ask_id)
    .bind(&s.outcome)
    .bind(at)
    .bind(to_text(&result))
    .bind(texts)
    .bind(s.delivered)
    .fetch_optional(&mut *tx)
    .await
    .map_err(backend)?;
    let Some(row) = row else {
        let exists: Option<i64> = sqlx::query_scalar("SELECT 1 FROM asks WHERE id = ?1")
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
    let ask_payload: String = row.try_get("payload").map_err(backend)?;
    let owner = Owner {
        payload: Some(&ask_payload),
        result: Some(&s.result),
        id: Some(ask_id),
        session_id: Some(&session_id),
        kind: Some(&kind),
        title: None,
        outcome: Some(&s.outcome),
        created_at: Some(&created_at),
        settled_at: Some(at),
    };
    let mut record = s.record.clone();
    let shared = pack(&mut record, RECORD_SHARES, &owner);
    sqlx::query(
        "INSERT INTO records (ask_id, session_id, kind, outcome, created_at, settled_at, record, shared)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
    )
    .bind(ask_id)
    .bind(&session_id)
    .bind(&kind)
    .bind(&s.outcome)
    .bind(&created_at)
    .bind(at)
    .bind(to_text(&record))
    .bind(shared)
    .execute(&mut *tx)
    .await
    .map_err(backend)?;
    let mut payload = json!({"ask_id": ask_id, "kind": kind, "session": session_id, "outcome": s.outcome, "settledAt": at});
    for member in ["answers", "path", "skipped", "answered_by"] {
        if let Some(v) = s.result.get(member) {
            payload[member] = v.clone();
        }
    }
    append_event_shared(
        tx,
        "ask.settled",
        Some(ask_id),
        payload,
        at,
        Some((SETTLED_SHARES, &owner)),
    )
    .await
}

/// A result's top-level string members this long or longer are kept once, in `texts`.
const TEXT_MIN: usize = 64;

/// Moves `result`'s long top-level strings (not the members a record or an event shares)
/// into `texts`, leaving `null` in their place; returns `result_texts` (member → text id),
/// or `None` when there is none.
async fn intern_texts(
    tx: &mut SqliteConnection,
    result: &mut Value,
) -> StoreResult<Option<String>> {
    let Some(map) = result.as_object_mut() else {
        return Ok(None);
    };
    let mut ids = serde_json::Map::new();
    for (member, v) in map.iter_mut() {
        let Some(text) = v.as_str() else { continue };
        let shared = SHARES
            .iter()
            .any(|(_, m, source)| *m == member.as_str() && matches!(source, Source::Result(_)));
        if text.len() < TEXT_MIN || shared {
            continue;
        }
        sqlx::query("INSERT OR IGNORE INTO texts (text) VALUES (?1)")
            .bind(text)
            .execute(&mut *tx)
            .await
            .map_err(backend)?;
        let id: i64 = sqlx::query_scalar("SELECT id FROM texts WHERE text = ?1")
            .bind(text)
            .fetch_one(&mut *tx)
            .await
            .map_err(backend)?;
        ids.insert(member.clone(), json!(id));
        *v = Value::Null;
    }
    Ok((!ids.is_empty()).then(|| Value::Object(ids).to_string()))
}

/// One [`FollowEvent`] of `ask_id`, in its session.
async fn append_follow(
    tx: &mut SqliteConnection,
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

async fn require_pending(tx: &mut SqliteConnection, ask_id: &str) -> StoreResult<()> {
    let state: Option<String> = sqlx::query_scalar("SELECT state FROM asks WHERE id = ?1")
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

/// Creates an ask inside a transaction (or re-attaches to an identical pending one): the
/// body of [`AskStore::create_ask`], shared with [`DraftStore::launch_draft`].
async fn create_in(tx: &mut SqliteConnection, a: NewAsk) -> StoreResult<Created> {
    let session: Option<i64> = sqlx::query_scalar("SELECT 1 FROM sessions WHERE id = ?1")
        .bind(&a.session_id)
        .fetch_optional(&mut *tx)
        .await
        .map_err(backend)?;
    if session.is_none() {
        return Err(StoreError::UnknownSession(a.session_id));
    }
    // An identical ask of this session whose result no agent call has returned yet: the
    // repeat call gets that result (clients.md §2.5). A settle the caller marked delivered
    // (`Settlement::delivered`) is never returned.
    let undelivered: Option<String> = if a.return_undelivered {
        sqlx::query_scalar(
            "SELECT id FROM asks WHERE session_id = ?1 AND kind = ?2 AND payload_key = ?3
               AND state = 'settled' AND delivered_at IS NULL
             ORDER BY created_at LIMIT 1",
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
    // Re-attach: an identical pending ask of this session.
    let existing: Option<String> = match undelivered {
        Some(id) => Some(id),
        None => sqlx::query_scalar(
            "SELECT id FROM asks WHERE session_id = ?1 AND kind = ?2 AND payload_key = ?3 AND state = 'pending'
             ORDER BY created_at LIMIT 1",
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
         VALUES (?1, ?2, ?3, ?4, 'pending', ?5, ?6, ?7, ?8, 1)",
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
    .map_err(|e| match &e {
        sqlx::Error::Database(db) if db.is_unique_violation() => {
            StoreError::Conflict(format!("ask id {:?} already exists", a.id))
        }
        _ => backend(e),
    })?;
    if let Some(sup) = &a.replaces {
        // Only a pending ask of the same session is superseded.
        let same_session: Option<i64> = sqlx::query_scalar(
            "SELECT 1 FROM asks WHERE id = ?1 AND session_id = ?2 AND state = 'pending'",
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
            "UPDATE asks SET autosave = ?2, autosave_revision = 1, autosave_saved_at = ?3 WHERE id = ?1",
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
    let owner = Owner {
        id: Some(&a.id),
        session_id: Some(&a.session_id),
        kind: Some(&a.kind),
        title: a.title.as_deref(),
        created_at: Some(&at),
        ..Owner::default()
    };
    events.push(
        append_event_shared(
            tx,
            "ask.created",
            Some(&a.id),
            payload,
            &at,
            Some((CREATED_SHARES, &owner)),
        )
        .await?,
    );
    let ask = load_ask(tx, &a.id).await?.ok_or(StoreError::NotFound)?;
    Ok(Created {
        ask,
        created: true,
        events,
    })
}

/// `AskStore::asks`'s query for a filter and its text binds (the limit is bound last): only the
/// filters present are in the WHERE, so one index of migration 6 serves each combination,
/// in `created_at DESC, rowid DESC` order, and `LIMIT` stops the walk:
/// state → `asks_by_state`, session → `asks_by_session_time`, session + state →
/// `asks_by_session`, kind → `asks_by_kind_time`, kind + state → `asks_by_kind`, none →
/// `asks_by_time`. With a session, the kind is a filter on the session's entries (`+a.kind`
/// keeps the planner on the session's index: a session is smaller than a kind).
/// `tests::list_plans_use_an_index` checks every plan.
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
        terms.push(format!("a.state = ?{}", binds.len()));
    }
    if let Some(session) = &f.session_id {
        binds.push(session.clone());
        terms.push(format!("a.session_id = ?{}", binds.len()));
    }
    if let Some(kind) = &f.kind {
        binds.push(kind.clone());
        let column = if f.session_id.is_some() {
            "+a.kind"
        } else {
            "a.kind"
        };
        terms.push(format!("{column} = ?{}", binds.len()));
    }
    finish_list(
        &mut sql,
        &terms,
        "a.created_at DESC, a.rowid DESC",
        binds.len(),
    );
    (sql, binds)
}

/// `AskStore::records`'s query: newest first by `records_by_time`, `records_by_kind` or
/// `records_by_session` (the session's index when both are given; the outcome and the text
/// are filters), with the ask's payload and result joined for the shared members (the LEFT
/// JOIN keeps the records the outer loop, in index order). `since`/`until` bound the index
/// walk on `settled_at`; the `after` cursor is a row-value bound `(settled_at, rowid) < …` on
/// the same index, so a page deep in 100k records starts where the last one stopped.
fn records_sql(f: &RecordFilter) -> (String, Vec<String>) {
    let mut sql = format!(
        "SELECT r.ask_id, r.session_id, r.kind, r.outcome, r.created_at, r.settled_at, r.record,
                r.shared, a.payload AS o_payload, {OWNER_COLUMNS}
         FROM records r LEFT JOIN asks a ON r.shared != 0 AND a.id = r.ask_id"
    );
    let mut terms = Vec::new();
    let mut binds = Vec::new();
    // The number of the parameter `v` is bound to.
    fn bind(binds: &mut Vec<String>, v: &str) -> usize {
        binds.push(v.to_string());
        binds.len()
    }
    // The kind's index only when no session is given (the session's is better).
    let kind = if f.session_id.is_some() {
        "+r.kind ="
    } else {
        "r.kind ="
    };
    let compared: [(&Option<String>, &str); 5] = [
        (&f.kind, kind),
        (&f.session_id, "r.session_id ="),
        (&f.outcome, "+r.outcome ="),
        (&f.since, "r.settled_at >="),
        (&f.until, "r.settled_at <"),
    ];
    for (value, term) in compared {
        if let Some(v) = value {
            let n = bind(&mut binds, v);
            terms.push(format!("{term} ?{n}"));
        }
    }
    if let Some(after) = &f.after {
        let n = bind(&mut binds, after);
        terms.push(format!(
            "(r.settled_at, r.rowid) < (SELECT c.settled_at, c.rowid FROM records c WHERE c.ask_id = ?{n})"
        ));
    }
    if let Some(text) = &f.text {
        // LIKE is ASCII case-insensitive and, unlike `instr(lower(…))`, copies nothing: a
        // text no record holds walks 100k records in about 0.4 s (measured, release SQLite).
        let mut pattern = String::from("%");
        for c in text.chars() {
            if matches!(c, '%' | '_' | '\\') {
                pattern.push('\\');
            }
            pattern.push(c);
        }
        pattern.push('%');
        let n = bind(&mut binds, &pattern);
        // The members kept once live in the ask's row: search them there too.
        terms.push(format!(
            "(r.record LIKE ?{n} ESCAPE '\\' OR a.title LIKE ?{n} ESCAPE '\\'
              OR a.payload LIKE ?{n} ESCAPE '\\' OR a.result LIKE ?{n} ESCAPE '\\')"
        ));
    }
    finish_list(
        &mut sql,
        &terms,
        "r.settled_at DESC, r.rowid DESC",
        binds.len(),
    );
    (sql, binds)
}

/// A list query's tail: the WHERE of the filters given (none → no WHERE, so the ordering
/// index is walked), the order, and the limit bound after the filters' values.
fn finish_list(sql: &mut String, terms: &[String], order: &str, binds: usize) {
    if !terms.is_empty() {
        sql.push_str(" WHERE ");
        sql.push_str(&terms.join(" AND "));
    }
    sql.push_str(&format!(" ORDER BY {order} LIMIT ?{}", binds + 1));
}

const DRAFT_COLUMNS: &str = "slug, session_id, title, status, file, workspace, created_at, updated_at, revision, ready, progress_questions, progress_complete, progress_missing, grounding, ask_id";

fn draft_from_row(r: &SqliteRow) -> StoreResult<Draft> {
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
        ready: r.try_get::<i64, _>("ready").map_err(backend)? != 0,
        progress: DraftProgress {
            questions: r.try_get("progress_questions").map_err(backend)?,
            complete: r.try_get("progress_complete").map_err(backend)?,
            missing_fields: r.try_get("progress_missing").map_err(backend)?,
        },
        grounding: r.try_get("grounding").map_err(backend)?,
        ask_id: r.try_get("ask_id").map_err(backend)?,
    })
}

async fn load_draft(tx: &mut SqliteConnection, slug: &str) -> StoreResult<Option<Draft>> {
    let sql = format!("SELECT {DRAFT_COLUMNS} FROM drafts WHERE slug = ?1");
    let row = sqlx::query(sqlx::AssertSqlSafe(sql))
        .bind(slug)
        .fetch_optional(&mut *tx)
        .await
        .map_err(backend)?;
    row.as_ref().map(draft_from_row).transpose()
}

/// Writes a draft row (insert or replace), its pointer change and its event.
async fn save_draft_in(
    tx: &mut SqliteConnection,
    d: &Draft,
    active: &ActivePointer,
    event: Option<Value>,
) -> StoreResult<Option<Event>> {
    sqlx::query(
        "INSERT INTO drafts (slug, session_id, title, status, file, workspace, created_at, updated_at,
                             revision, ready, progress_questions, progress_complete, progress_missing,
                             grounding, ask_id)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15)
         ON CONFLICT(slug) DO UPDATE SET
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
    .bind(i64::from(d.ready))
    .bind(d.progress.questions)
    .bind(d.progress.complete)
    .bind(d.progress.missing_fields)
    .bind(&d.grounding)
    .bind(&d.ask_id)
    .execute(&mut *tx)
    .await
    .map_err(|e| match &e {
        sqlx::Error::Database(db) if db.is_foreign_key_violation() => {
            StoreError::NotFound
        }
        _ => backend(e),
    })?;
    match active {
        ActivePointer::Keep => {}
        ActivePointer::Set(session) => {
            sqlx::query(
                "INSERT INTO draft_active (session_id, slug) VALUES (?1, ?2)
                 ON CONFLICT(session_id) DO UPDATE SET slug = excluded.slug",
            )
            .bind(session)
            .bind(&d.slug)
            .execute(&mut *tx)
            .await
            .map_err(backend)?;
        }
        ActivePointer::ClearAll => {
            sqlx::query("DELETE FROM draft_active WHERE slug = ?1")
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

fn session_from_row(r: &SqliteRow) -> StoreResult<Session> {
    Ok(Session {
        id: r.try_get("id").map_err(backend)?,
        client: r.try_get("client").map_err(backend)?,
        workspace: r.try_get("workspace").map_err(backend)?,
        created_at: r.try_get("created_at").map_err(backend)?,
    })
}

fn new_id() -> String {
    // Time-ordered and unguessable enough for a local id; the daemon supplies ask ids.
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or_default();
    format!("s-{nanos:x}-{:x}", std::process::id())
}

#[async_trait]
impl SessionStore for SqliteStore {
    async fn open_session(&self, s: NewSession) -> StoreResult<Session> {
        self.write(move |tx| {
            Box::pin(async move {
                if let Some(id) = &s.id {
                    let row = sqlx::query(
                        "SELECT id, client, workspace, created_at FROM sessions WHERE id = ?1",
                    )
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
            "INSERT INTO sessions (id, client, workspace, created_at) VALUES (?1, ?2, ?3, ?4)",
        )
        .bind(&session.id)
        .bind(&session.client)
        .bind(&session.workspace)
        .bind(&session.created_at)
        .execute(&mut *tx)
        .await
        .map_err(backend)?;
                Ok(session)
            })
        })
        .await
    }

    async fn session(&self, id: &str) -> StoreResult<Option<Session>> {
        let row =
            sqlx::query("SELECT id, client, workspace, created_at FROM sessions WHERE id = ?1")
                .bind(id)
                .fetch_optional(&self.read)
                .await
                .map_err(backend)?;
        row.as_ref().map(session_from_row).transpose()
    }

    async fn sessions(&self) -> StoreResult<Vec<Session>> {
        let rows = sqlx::query(
            "SELECT id, client, workspace, created_at FROM sessions ORDER BY created_at DESC, id DESC",
        )
        .fetch_all(&self.read)
        .await
        .map_err(backend)?;
        rows.iter().map(session_from_row).collect()
    }
}

#[async_trait]
impl AskStore for SqliteStore {
    async fn create_ask_with(&self, a: NewAsk, follow: &[FollowEvent]) -> StoreResult<Created> {
        let follow = follow.to_vec();
        self.write(move |tx| {
            Box::pin(async move {
                let mut created = create_in(tx, a).await?;
                if created.created {
                    let (id, session, at) = (
                        created.ask.id.clone(),
                        created.ask.session_id.clone(),
                        created.ask.created_at.clone(),
                    );
                    for f in &follow {
                        created
                            .events
                            .push(append_follow(tx, f, &id, &session, &at).await?);
                    }
                }
                Ok(created)
            })
        })
        .await
    }

    async fn ask(&self, id: &str) -> StoreResult<Option<Ask>> {
        let mut conn = self.read.acquire().await.map_err(backend)?;
        // One read transaction, so the ask and its banked rows are one snapshot.
        let mut tx = sqlx::Connection::begin(&mut *conn).await.map_err(backend)?;
        let ask = load_ask(&mut tx, id).await?;
        tx.commit().await.map_err(backend)?;
        Ok(ask)
    }

    async fn ask_payloads(&self, ids: &[String]) -> StoreResult<Vec<(String, String, Value)>> {
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
    }

    async fn asks(&self, f: &AskFilter) -> StoreResult<Vec<AskSummary>> {
        let (sql, binds) = asks_sql(f);
        let mut query = sqlx::query(sqlx::AssertSqlSafe(sql));
        for b in binds {
            query = query.bind(b);
        }
        let rows = query
            .bind(f.limit.map(i64::from).unwrap_or(-1))
            .fetch_all(&self.read)
            .await
            .map_err(backend)?;
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
                    awaited: r.try_get::<i64, _>("awaited").map_err(backend)? != 0,
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
        // By state: `asks_by_state` counts only that state's entries (the health check's
        // pending count no longer scans every ask).
        let n: i64 = match state {
            Some(state) => {
                sqlx::query_scalar("SELECT COUNT(*) FROM asks WHERE state = ?1")
                    .bind(state.as_str())
                    .fetch_one(&self.read)
                    .await
            }
            None => {
                sqlx::query_scalar("SELECT COUNT(*) FROM asks")
                    .fetch_one(&self.read)
                    .await
            }
        }
        .map_err(backend)?;
        Ok(n.max(0) as u64)
    }

    async fn bank(&self, ask_id: &str, entries: &[NewBanked]) -> StoreResult<Banked> {
        let ask_id = ask_id.to_string();
        let entries = entries.to_vec();
        self.write(move |tx| {
            Box::pin(async move {
                let ask_id = ask_id.as_str();
                let entries = entries.as_slice();
                require_pending(tx, ask_id).await?;
                let at = now();
                insert_banked(tx, ask_id, entries, &at).await?;
                let all = load_banked(&mut *tx, ask_id).await?;
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
                    tx,
                    "ask.banked",
                    Some(ask_id),
                    json!({"ask_id": ask_id, "banked": list}),
                    &at,
                )
                .await?;
                Ok(Banked {
                    total: all.len(),
                    event,
                })
            })
        })
        .await
    }

    async fn autosave(&self, ask_id: &str, autosave: &Value) -> StoreResult<Autosaved> {
        let ask_id = ask_id.to_string();
        let autosave = autosave.clone();
        self.write(move |tx| Box::pin(async move {
        let ask_id = ask_id.as_str();
        let autosave = &autosave;
        require_pending(tx, ask_id).await?;
        let at = now();
        let revision: i64 = sqlx::query_scalar(
            "UPDATE asks SET autosave = ?2, autosave_revision = autosave_revision + 1, autosave_saved_at = ?3
             WHERE id = ?1 RETURNING autosave_revision",
        )
        .bind(ask_id)
        .bind(to_text(autosave))
        .bind(&at)
        .fetch_one(&mut *tx)
        .await
        .map_err(backend)?;
        let event = append_event(
            tx,
            "ask.autosaved",
            Some(ask_id),
            json!({"ask_id": ask_id, "revision": revision, "savedAt": at}),
            &at,
        )
        .await?;
        Ok(Autosaved {
            revision,
            saved_at: at,
            event,
        })
        }))
        .await
    }

    async fn claim(&self, ask_id: &str, claim: Option<&Value>) -> StoreResult<Event> {
        let ask_id = ask_id.to_string();
        let claim = claim.cloned();
        self.write(move |tx| {
            Box::pin(async move {
                require_pending(tx, &ask_id).await?;
                sqlx::query("UPDATE asks SET claim = ?2 WHERE id = ?1")
                    .bind(&ask_id)
                    .bind(claim.as_ref().map(to_text))
                    .execute(&mut *tx)
                    .await
                    .map_err(backend)?;
                let at = now();
                append_event(
                    tx,
                    "ask.claimed",
                    Some(&ask_id),
                    json!({"ask_id": ask_id, "claim": claim}),
                    &at,
                )
                .await
            })
        })
        .await
    }

    async fn settle_with(
        &self,
        ask_id: &str,
        s: &Settlement,
        follow: &[FollowEvent],
    ) -> StoreResult<Vec<Event>> {
        let ask_id = ask_id.to_string();
        let s = s.clone();
        let follow = follow.to_vec();
        self.write(move |tx| {
            Box::pin(async move {
                let settled = settle_in(tx, &ask_id, &s).await?;
                let session = settled.payload["session"]
                    .as_str()
                    .unwrap_or_default()
                    .to_string();
                let mut events = vec![settled];
                for f in &follow {
                    events.push(append_follow(tx, f, &ask_id, &session, &s.settled_at).await?);
                }
                Ok(events)
            })
        })
        .await
    }

    async fn mark_delivered(&self, ask_id: &str) -> StoreResult<bool> {
        let ask_id = ask_id.to_string();
        self.write(move |tx| {
            Box::pin(async move {
                let changed = sqlx::query(
                    "UPDATE asks SET delivered_at = ?2
                     WHERE id = ?1 AND state = 'settled' AND delivered_at IS NULL",
                )
                .bind(&ask_id)
                .bind(now())
                .execute(&mut *tx)
                .await
                .map_err(backend)?
                .rows_affected();
                Ok(changed > 0)
            })
        })
        .await
    }

    async fn set_awaited(&self, ask_id: &str, awaited: bool) -> StoreResult<()> {
        let ask_id = ask_id.to_string();
        self.write(move |tx| {
            Box::pin(async move {
                let found: Option<i64> = sqlx::query_scalar("SELECT 1 FROM asks WHERE id = ?1")
                    .bind(&ask_id)
                    .fetch_optional(&mut *tx)
                    .await
                    .map_err(backend)?;
                if found.is_none() {
                    return Err(StoreError::NotFound);
                }
                sqlx::query("UPDATE asks SET awaited = ?2 WHERE id = ?1 AND state = 'pending'")
                    .bind(&ask_id)
                    .bind(i64::from(awaited))
                    .execute(&mut *tx)
                    .await
                    .map_err(backend)?;
                Ok(())
            })
        })
        .await
    }

    async fn records(&self, f: &RecordFilter) -> StoreResult<Vec<Record>> {
        let (sql, binds) = records_sql(f);
        let mut query = sqlx::query(sqlx::AssertSqlSafe(sql));
        for b in binds {
            query = query.bind(b);
        }
        let rows = query
            .bind(f.limit.map(i64::from).unwrap_or(-1))
            .fetch_all(&self.read)
            .await
            .map_err(backend)?;
        rows.iter()
            .map(|r| {
                let record: String = r.try_get("record").map_err(backend)?;
                let shared: i64 = r.try_get("shared").map_err(backend)?;
                let owner = OwnerRow::read(r, shared, true)?;
                let record = unpack(parse_json(&record)?, shared, &owner.owner())?;
                Ok(Record {
                    ask_id: r.try_get("ask_id").map_err(backend)?,
                    session_id: r.try_get("session_id").map_err(backend)?,
                    kind: r.try_get("kind").map_err(backend)?,
                    outcome: r.try_get("outcome").map_err(backend)?,
                    created_at: r.try_get("created_at").map_err(backend)?,
                    settled_at: r.try_get("settled_at").map_err(backend)?,
                    record,
                })
            })
            .collect()
    }
}

#[async_trait]
impl EventStore for SqliteStore {
    async fn events_after(&self, after: i64, limit: u32) -> StoreResult<Vec<Event>> {
        let rows = sqlx::query(sqlx::AssertSqlSafe(events_after_sql()))
            .bind(after)
            .bind(i64::from(limit))
            .fetch_all(&self.read)
            .await
            .map_err(backend)?;
        rows.iter().map(event_from_row).collect()
    }

    async fn append_session_event(
        &self,
        session_id: &str,
        kind: &str,
        payload: Value,
    ) -> StoreResult<Event> {
        let (session_id, kind) = (session_id.to_string(), kind.to_string());
        self.write(move |tx| {
            Box::pin(async move {
                let exists: Option<i64> =
                    sqlx::query_scalar("SELECT 1 FROM sessions WHERE id = ?1")
                        .bind(&session_id)
                        .fetch_optional(&mut *tx)
                        .await
                        .map_err(backend)?;
                if exists.is_none() {
                    return Err(StoreError::UnknownSession(session_id));
                }
                let mut payload = payload;
                if let Some(map) = payload.as_object_mut() {
                    map.insert("session".into(), Value::String(session_id.clone()));
                } else {
                    payload = serde_json::json!({"session": session_id, "data": payload});
                }
                append_event(tx, &kind, None, payload, &now()).await
            })
        })
        .await
    }

    async fn session_events(&self, session_id: &str) -> StoreResult<Vec<Event>> {
        let rows = sqlx::query(sqlx::AssertSqlSafe(session_events_sql()))
            .bind(session_id)
            .fetch_all(&self.read)
            .await
            .map_err(backend)?;
        rows.iter().map(event_from_row).collect()
    }

    async fn session_events_after(
        &self,
        session_id: &str,
        after: i64,
        limit: u32,
    ) -> StoreResult<Vec<Event>> {
        // Plan: SEARCH events USING INDEX events_by_session (session_id=? AND seq>?) — the
        // rows after the checkpoint only, already in seq order, the walk stopped by LIMIT.
        let rows = sqlx::query(sqlx::AssertSqlSafe(format!(
            "{} WHERE e.session_id = ?1 AND e.seq > ?2 ORDER BY e.seq LIMIT ?3",
            event_select()
        )))
        .bind(session_id)
        .bind(after)
        .bind(i64::from(limit))
        .fetch_all(&self.read)
        .await
        .map_err(backend)?;
        rows.iter().map(event_from_row).collect()
    }

    async fn session_log(&self, session_id: &str) -> StoreResult<Vec<Event>> {
        // Plan: SEARCH events USING INDEX events_session_log (session_id=?) — the partial
        // index holds only the events that are not an ask's (the WHERE repeats its terms).
        let rows = sqlx::query(sqlx::AssertSqlSafe(format!(
            "SELECT e.seq, e.kind, e.payload, e.created_at, e.shared, {OWNER_COLUMNS}
             FROM events e INDEXED BY events_session_log
             LEFT JOIN asks a ON e.shared != 0 AND a.id = e.ask_id
             WHERE e.session_id = ?1 AND e.kind NOT LIKE 'ask.%' ORDER BY e.seq"
        )))
        .bind(session_id)
        .fetch_all(&self.read)
        .await
        .map_err(backend)?;
        rows.iter().map(event_from_row).collect()
    }

    async fn last_event(&self) -> StoreResult<i64> {
        sqlx::query_scalar("SELECT COALESCE(MAX(seq), 0) FROM events")
            .fetch_one(&self.read)
            .await
            .map_err(backend)
    }
}

#[async_trait]
impl SettingsStore for SqliteStore {
    async fn settings(&self) -> StoreResult<serde_json::Map<String, Value>> {
        let rows = sqlx::query("SELECT key, value FROM settings ORDER BY key")
            .fetch_all(&self.read)
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
        let (set, remove) = (set.clone(), remove.to_vec());
        self.write(move |tx| {
            Box::pin(async move {
                let at = now();
                for (key, value) in &set {
                    sqlx::query(
                        "INSERT INTO settings (key, value, updated_at) VALUES (?1, ?2, ?3)
                         ON CONFLICT(key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at",
                    )
                    .bind(key)
                    .bind(to_text(value))
                    .bind(&at)
                    .execute(&mut *tx)
                    .await
                    .map_err(backend)?;
                }
                for key in &remove {
                    sqlx::query("DELETE FROM settings WHERE key = ?1")
                        .bind(key)
                        .execute(&mut *tx)
                        .await
                        .map_err(backend)?;
                }
                let payload = serde_json::json!({
                    "set": set.keys().collect::<Vec<_>>(),
                    "removed": remove,
                });
                append_event(tx, "settings.updated", None, payload, &at).await
            })
        })
        .await
    }
}

#[async_trait]
impl AlignmentStore for SqliteStore {
    async fn alignment_checkpoint(
        &self,
        session_id: &str,
    ) -> StoreResult<Option<AlignmentCheckpoint>> {
        // Plan: SEARCH alignment_checkpoints USING INDEX sqlite_autoindex_… (session_id=?).
        let row = sqlx::query(
            "SELECT last_seq, decisions, state FROM alignment_checkpoints WHERE session_id = ?1",
        )
        .bind(session_id)
        .fetch_optional(&self.read)
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
        let session_id = session_id.to_string();
        let (last_seq, count, state) = (
            checkpoint.last_seq,
            checkpoint.decisions as i64,
            to_text(&checkpoint.state),
        );
        let decisions: Vec<(i64, String, String, String)> = decisions
            .iter()
            .map(|d| {
                (
                    d.idx as i64,
                    d.key.clone(),
                    d.ask_id.clone(),
                    to_text(&d.decision),
                )
            })
            .collect();
        self.write(move |tx| {
            Box::pin(async move {
                let exists: Option<i64> =
                    sqlx::query_scalar("SELECT 1 FROM sessions WHERE id = ?1")
                        .bind(&session_id)
                        .fetch_optional(&mut *tx)
                        .await
                        .map_err(backend)?;
                if exists.is_none() {
                    return Err(StoreError::UnknownSession(session_id));
                }
                let saved = sqlx::query(
                    "INSERT INTO alignment_checkpoints (session_id, last_seq, decisions, state, updated_at)
                     VALUES (?1, ?2, ?3, ?4, ?5)
                     ON CONFLICT(session_id) DO UPDATE SET last_seq = excluded.last_seq,
                         decisions = excluded.decisions, state = excluded.state,
                         updated_at = excluded.updated_at
                     WHERE excluded.last_seq > alignment_checkpoints.last_seq",
                )
                .bind(&session_id)
                .bind(last_seq)
                .bind(count)
                .bind(&state)
                .bind(now())
                .execute(&mut *tx)
                .await
                .map_err(backend)?
                .rows_affected()
                    > 0;
                if saved {
                    let from = decisions.first().map_or(count, |d| d.0);
                    sqlx::query("DELETE FROM alignment_decisions WHERE session_id = ?1 AND idx >= ?2")
                        .bind(&session_id)
                        .bind(from)
                        .execute(&mut *tx)
                        .await
                        .map_err(backend)?;
                    for (idx, key, ask_id, decision) in &decisions {
                        sqlx::query(
                            "INSERT INTO alignment_decisions (session_id, idx, key, ask_id, decision)
                             VALUES (?1, ?2, ?3, ?4, ?5)",
                        )
                        .bind(&session_id)
                        .bind(idx)
                        .bind(key)
                        .bind(ask_id)
                        .bind(decision)
                        .execute(&mut *tx)
                        .await
                        .map_err(backend)?;
                    }
                }
                Ok(saved)
            })
        })
        .await
    }

    async fn alignment_decisions(
        &self,
        session_id: &str,
        from: u64,
        below: u64,
    ) -> StoreResult<Vec<Value>> {
        // Plan: SEARCH alignment_decisions USING PRIMARY KEY (session_id=? AND idx>? AND idx<?).
        let rows = sqlx::query(
            "SELECT decision FROM alignment_decisions
             WHERE session_id = ?1 AND idx >= ?2 AND idx < ?3 ORDER BY idx",
        )
        .bind(session_id)
        .bind(from as i64)
        .bind(below as i64)
        .fetch_all(&self.read)
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
        // Plan: SEARCH alignment_decisions USING INDEX alignment_decisions_by_key
        // (session_id=? AND key=? AND idx<?): the first row of the key, however long the
        // session. Without statistics SQLite would pick the primary key for the ORDER BY and
        // walk the whole session, hence INDEXED BY.
        let row: Option<String> = sqlx::query_scalar(
            "SELECT decision FROM alignment_decisions INDEXED BY alignment_decisions_by_key
             WHERE session_id = ?1 AND key = ?2 AND idx < ?3 AND ask_id <> ?4
             ORDER BY idx LIMIT 1",
        )
        .bind(session_id)
        .bind(key)
        .bind(below as i64)
        .bind(not_ask)
        .fetch_optional(&self.read)
        .await
        .map_err(backend)?;
        row.as_deref().map(parse_json).transpose()
    }
}

#[async_trait]
impl DraftStore for SqliteStore {
    async fn draft(&self, slug: &str) -> StoreResult<Option<Draft>> {
        let mut conn = self.read.acquire().await.map_err(backend)?;
        load_draft(&mut conn, slug).await
    }

    async fn draft_by_ask(&self, ask_id: &str) -> StoreResult<Option<Draft>> {
        let sql = format!(
            "SELECT {DRAFT_COLUMNS} FROM drafts WHERE ask_id = ?1 ORDER BY updated_at DESC LIMIT 1"
        );
        let row = sqlx::query(sqlx::AssertSqlSafe(sql))
            .bind(ask_id)
            .fetch_optional(&self.read)
            .await
            .map_err(backend)?;
        row.as_ref().map(draft_from_row).transpose()
    }

    async fn drafts(&self, session_id: Option<&str>) -> StoreResult<Vec<Draft>> {
        let sql = format!(
            "SELECT {DRAFT_COLUMNS} FROM drafts WHERE (?1 IS NULL OR session_id = ?1)
             ORDER BY updated_at DESC, rowid DESC"
        );
        let rows = sqlx::query(sqlx::AssertSqlSafe(sql))
            .bind(session_id)
            .fetch_all(&self.read)
            .await
            .map_err(backend)?;
        rows.iter().map(draft_from_row).collect()
    }

    async fn active_drafts(&self) -> StoreResult<Vec<(String, String)>> {
        let rows = sqlx::query("SELECT session_id, slug FROM draft_active ORDER BY session_id")
            .fetch_all(&self.read)
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
        sqlx::query_scalar("SELECT slug FROM draft_active WHERE session_id = ?1")
            .bind(session_id)
            .fetch_optional(&self.read)
            .await
            .map_err(backend)
    }

    async fn save_draft(&self, save: DraftSave) -> StoreResult<Option<Event>> {
        self.write(move |tx| {
            Box::pin(async move {
                if let Some((status, ask_id)) = &save.expect {
                    let current = load_draft(tx, &save.draft.slug).await?;
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
                save_draft_in(tx, &save.draft, &save.active, save.event).await
            })
        })
        .await
    }

    async fn launch_draft(&self, ask: NewAsk, draft: Draft, event: Value) -> StoreResult<Created> {
        self.write(move |tx| {
            Box::pin(async move {
                let mut created = create_in(tx, ask).await?;
                let mut draft = draft;
                draft.status = "launched".into();
                draft.ask_id = Some(created.ask.id.clone());
                let mut event = event;
                if let Some(o) = event.as_object_mut() {
                    o.insert("status".into(), json!("launched"));
                    o.insert("askId".into(), json!(created.ask.id));
                }
                if let Some(e) =
                    save_draft_in(tx, &draft, &ActivePointer::Keep, Some(event)).await?
                {
                    created.events.push(e);
                }
                Ok(created)
            })
        })
        .await
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
                    let (sql, binds) = asks_sql(&f);
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
                        let (sql, binds) = records_sql(&f);
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
        let p = plan(&store, &session_events_sql(), &["s1".into()], None).await;
        assert_indexed("session_events", &p);
        assert!(p[0].contains("events_by_session (session_id=?)"), "{p:#?}");
        let p = plan(&store, &events_after_sql(), &[], None).await;
        assert_indexed("events_after", &p);
        assert!(p[0].contains("INTEGER PRIMARY KEY (rowid>?)"), "{p:#?}");
    }
}

//! The per-dialect layer under [`crate::shared`]: one connection of either backend ([`Db`]),
//! the values a statement binds ([`Arg`]), the rows it reads ([`Row`]), and the few places
//! where SQLite and PostgreSQL differ (placeholders, a tie-breaking column, how an event is
//! appended and a settle's result and record are stored).
//!
//! Shared SQL is written once in SQLite's `?N` placeholders; [`Db::Pg`] rewrites them to
//! `$N`. Nothing here decides what the store does: that is [`crate::shared`]'s.

use std::borrow::Cow;
use std::future::Future;
use std::pin::Pin;

use serde_json::Value;
use sqlx::postgres::{PgConnection, PgRow};
use sqlx::sqlite::{SqliteConnection, SqliteRow};
use sqlx::{Decode, Postgres, Row as _, Sqlite, Type};

use crate::model::{Event, Settlement};
use crate::{StoreError, StoreResult};

pub(crate) mod group;
pub(crate) mod pg;
pub(crate) mod sqlite;

pub(crate) type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// One unit of store work over a connection (a write's transaction, or a read), boxed so a
/// backend can run it where its machinery says (SQLite's writer task, a PostgreSQL
/// transaction under the write lock).
pub(crate) type Job<T> = Box<dyn for<'c> FnOnce(Db<'c>) -> BoxFuture<'c, StoreResult<T>> + Send>;

/// Boxes a job (the closure's higher-ranked signature is inferred from this bound).
pub(crate) fn job<T, F>(f: F) -> Job<T>
where
    F: for<'c> FnOnce(Db<'c>) -> BoxFuture<'c, StoreResult<T>> + Send + 'static,
{
    Box::new(f)
}

/// A connection of one backend, inside whatever transaction its caller began.
pub(crate) enum Db<'c> {
    Sqlite(&'c mut SqliteConnection),
    Pg(&'c mut PgConnection),
}

/// A value a statement binds.
pub(crate) enum Arg<'a> {
    Str(Option<&'a str>),
    String(Option<String>),
    Int(i64),
    OptInt(Option<i64>),
    Bool(bool),
}

impl<'a> From<&'a str> for Arg<'a> {
    fn from(v: &'a str) -> Self {
        Arg::Str(Some(v))
    }
}
impl<'a> From<&'a String> for Arg<'a> {
    fn from(v: &'a String) -> Self {
        Arg::Str(Some(v))
    }
}
impl<'a> From<Option<&'a str>> for Arg<'a> {
    fn from(v: Option<&'a str>) -> Self {
        Arg::Str(v)
    }
}
impl<'a> From<&'a Option<String>> for Arg<'a> {
    fn from(v: &'a Option<String>) -> Self {
        Arg::Str(v.as_deref())
    }
}
impl From<String> for Arg<'_> {
    fn from(v: String) -> Self {
        Arg::String(Some(v))
    }
}
impl From<Option<String>> for Arg<'_> {
    fn from(v: Option<String>) -> Self {
        Arg::String(v)
    }
}
impl From<i64> for Arg<'_> {
    fn from(v: i64) -> Self {
        Arg::Int(v)
    }
}
impl From<bool> for Arg<'_> {
    fn from(v: bool) -> Self {
        Arg::Bool(v)
    }
}

/// `args![a, b, …]`: the binds of a statement, in placeholder order.
macro_rules! args {
    ($($v:expr),* $(,)?) => { &[$($crate::db::Arg::from($v)),*][..] };
}
pub(crate) use args;

/// Members of an event or a record that are its ask's own (SQLite keeps them once, on the
/// ask: [`sqlite`]'s `pack`). The members of a record that may be the ask's own.
pub(crate) const RECORD_SHARES: &[&str] = &[
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
pub(crate) const SETTLED_SHARES: &[&str] = &[
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
pub(crate) const CREATED_SHARES: &[&str] = &["ask_id", "session", "kind", "createdAt", "title"];

/// The ask a record or an event belongs to, as far as its shared members need it.
#[derive(Default)]
pub(crate) struct Owner<'a> {
    /// The payload's JSON text as stored.
    pub payload: Option<&'a str>,
    pub result: Option<&'a Value>,
    pub id: Option<&'a str>,
    pub session_id: Option<&'a str>,
    pub kind: Option<&'a str>,
    pub title: Option<&'a str>,
    pub outcome: Option<&'a str>,
    pub created_at: Option<&'a str>,
    pub settled_at: Option<&'a str>,
}

impl Owner<'_> {
    pub fn column(&self, name: &str) -> Option<&str> {
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

/// A row either backend read.
pub(crate) enum Row {
    Sqlite(SqliteRow),
    Pg(PgRow),
}

impl Row {
    /// A column as a Rust type both backends decode (text, `i64`, options of them).
    pub fn get<T>(&self, column: &str) -> StoreResult<T>
    where
        T: for<'r> Decode<'r, Sqlite>
            + Type<Sqlite>
            + for<'r> Decode<'r, Postgres>
            + Type<Postgres>,
    {
        match self {
            Row::Sqlite(r) => r.try_get(column).map_err(sqlite::backend),
            Row::Pg(r) => r.try_get(column).map_err(pg::backend),
        }
    }

    /// A flag: SQLite's `INTEGER` 0/1, PostgreSQL's `BOOLEAN`.
    pub fn flag(&self, column: &str) -> StoreResult<bool> {
        match self {
            Row::Sqlite(r) => Ok(r.try_get::<i64, _>(column).map_err(sqlite::backend)? != 0),
            Row::Pg(r) => r.try_get(column).map_err(pg::backend),
        }
    }

    /// A JSON text column, parsed.
    pub fn json(&self, column: &str) -> StoreResult<Value> {
        parse_json(&self.get::<String>(column)?)
    }

    /// A nullable JSON text column, parsed.
    pub fn opt_json(&self, column: &str) -> StoreResult<Option<Value>> {
        self.get::<Option<String>>(column)?
            .as_deref()
            .map(parse_json)
            .transpose()
    }

    /// A JSON column whose members may be the ask's own: SQLite keeps those once (its
    /// `shared` bits, the joined `o_*` columns; `with_payload`: `o_payload` too) and puts
    /// them back here; PostgreSQL stores the JSON whole.
    pub fn stored_json(&self, column: &str, with_payload: bool) -> StoreResult<Value> {
        match self {
            Row::Sqlite(r) => sqlite::unpacked(r, column, with_payload),
            Row::Pg(_) => self.json(column),
        }
    }

    /// SQLite's row, for what only SQLite stores (shared members, interned texts).
    pub fn sqlite(&self) -> Option<&SqliteRow> {
        match self {
            Row::Sqlite(r) => Some(r),
            Row::Pg(_) => None,
        }
    }
}

/// A JSON value's text as stored (member order kept: two values are the same stored JSON
/// exactly when their texts are equal — `Value`'s `==` ignores member order).
pub(crate) fn to_text(v: &Value) -> String {
    v.to_string()
}

pub(crate) fn parse_json(text: &str) -> StoreResult<Value> {
    serde_json::from_str(text).map_err(|e| StoreError::Backend(format!("stored JSON: {e}")))
}

/// `?N` → `$N` (PostgreSQL's placeholders). Shared SQL has no `?` but its placeholders.
pub(crate) fn dollars(sql: &str) -> String {
    let mut out = String::with_capacity(sql.len());
    let mut chars = sql.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '?' && chars.peek().is_some_and(char::is_ascii_digit) {
            out.push('$');
        } else {
            out.push(c);
        }
    }
    out
}

macro_rules! bind_all {
    ($query:expr, $args:expr) => {{
        let mut q = $query;
        for a in $args {
            q = match a {
                Arg::Str(v) => q.bind(*v),
                Arg::String(v) => q.bind(v.as_deref()),
                Arg::Int(v) => q.bind(*v),
                Arg::OptInt(v) => q.bind(*v),
                Arg::Bool(v) => q.bind(*v),
            };
        }
        q
    }};
}

/// Which SQL a [`Db`] speaks, for building a statement before running it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Dialect {
    Sqlite,
    Postgres,
}

impl Dialect {
    /// The column that orders rows by insertion (SQLite's `rowid`, PostgreSQL's identity
    /// `n`).
    pub fn insert_order(self) -> &'static str {
        match self {
            Dialect::Sqlite => "rowid",
            Dialect::Postgres => "n",
        }
    }

    /// The order of identical asks, oldest first (PostgreSQL breaks a tie of `created_at`
    /// by insertion). On PostgreSQL an expression, never an index's order, so the planner
    /// picks the lookup's partial index by its WHERE and sorts the few rows it finds.
    pub fn identical_order(self) -> &'static str {
        match self {
            Dialect::Sqlite => "created_at",
            Dialect::Postgres => "created_at || '', n + 0",
        }
    }

    /// SQLite's `INDEXED BY index` (its planner has no statistics); nothing on PostgreSQL.
    pub fn indexed_by(self, index: &str) -> String {
        match self {
            Dialect::Sqlite => format!(" INDEXED BY {index}"),
            Dialect::Postgres => String::new(),
        }
    }

    /// A column kept off the index choice (SQLite's unary `+`): a filter on the walk of
    /// another index.
    pub fn unindexed(self, column: &str) -> String {
        match self {
            Dialect::Sqlite => format!("+{column}"),
            Dialect::Postgres => column.to_string(),
        }
    }

    /// A list's `LIMIT` bind: none is SQLite's `-1`, PostgreSQL's `NULL`.
    pub fn limit(self, limit: Option<u32>) -> Arg<'static> {
        match self {
            Dialect::Sqlite => Arg::Int(limit.map(i64::from).unwrap_or(-1)),
            Dialect::Postgres => Arg::OptInt(limit.map(i64::from)),
        }
    }

    /// What a records list selects: SQLite joins the ask for the members kept once (the
    /// LEFT JOIN keeps the records the outer loop, in index order).
    pub fn records_select(self) -> String {
        match self {
            Dialect::Sqlite => format!(
                "SELECT r.ask_id, r.session_id, r.kind, r.outcome, r.created_at, r.settled_at, r.record,
                        r.shared, a.payload AS o_payload, {}
                 FROM records r LEFT JOIN asks a ON r.shared != 0 AND a.id = r.ask_id",
                sqlite::OWNER_COLUMNS
            ),
            Dialect::Postgres => "SELECT r.ask_id, r.session_id, r.kind, r.outcome, r.created_at, r.settled_at, r.record
                 FROM records r"
                .to_string(),
        }
    }

    /// The records list's text filter on parameter `n` (an escaped pattern). SQLite: `LIKE`
    /// (ASCII case-insensitive, and unlike `instr(lower(…))` it copies nothing: a text no
    /// record holds walks 100k records in about 0.4 s, release SQLite) over the record and
    /// the ask's columns that hold its members kept once. PostgreSQL: `ILIKE` under the "C"
    /// collation (ASCII folding only, as SQLite's `LIKE`) over the record, stored whole.
    pub fn record_text_term(self, n: usize) -> String {
        match self {
            Dialect::Sqlite => format!(
                "(r.record LIKE ?{n} ESCAPE '\\' OR a.title LIKE ?{n} ESCAPE '\\'
                  OR a.payload LIKE ?{n} ESCAPE '\\' OR a.result LIKE ?{n} ESCAPE '\\')"
            ),
            Dialect::Postgres => format!("(r.record COLLATE \"C\") ILIKE ?{n} ESCAPE '\\'"),
        }
    }

    /// What an event read selects (`e`), with SQLite's `INDEXED BY` when given. SQLite joins
    /// the ask when members of the payload are its own (`shared`); the LEFT JOIN keeps the
    /// events the outer loop, so `ORDER BY e.seq` is the table's (or the index's) order.
    pub fn event_select(self, indexed: Option<&str>) -> String {
        match self {
            Dialect::Sqlite => format!(
                "SELECT e.seq, e.kind, e.payload, e.created_at, e.shared, {}
                 FROM events e{} LEFT JOIN asks a ON e.shared != 0 AND a.id = e.ask_id",
                sqlite::OWNER_COLUMNS,
                indexed.map(|i| self.indexed_by(i)).unwrap_or_default()
            ),
            Dialect::Postgres => {
                "SELECT e.seq, e.kind, e.payload, e.created_at FROM events e".into()
            }
        }
    }
}

impl Db<'_> {
    /// The same connection, borrowed again (for a job run inside a batch).
    pub fn reborrow(&mut self) -> Db<'_> {
        match self {
            Db::Sqlite(c) => Db::Sqlite(c),
            Db::Pg(c) => Db::Pg(c),
        }
    }

    /// Runs fixed SQL, several statements allowed, in one round trip (no binds).
    pub async fn raw(&mut self, sql: &'static str) -> StoreResult<()> {
        let r = match self {
            Db::Sqlite(c) => sqlx::raw_sql(sql).execute(&mut **c).await.map(|_| ()),
            Db::Pg(c) => sqlx::raw_sql(sql).execute(&mut **c).await.map(|_| ()),
        };
        r.map_err(|e| self.fail(e))
    }

    pub fn dialect(&self) -> Dialect {
        match self {
            Db::Sqlite(_) => Dialect::Sqlite,
            Db::Pg(_) => Dialect::Postgres,
        }
    }

    /// The error of a failed statement, as this backend reports it.
    pub fn fail(&self, e: sqlx::Error) -> StoreError {
        match self {
            Db::Sqlite(_) => sqlite::backend(e),
            Db::Pg(_) => pg::backend(e),
        }
    }

    fn text<'s>(&self, sql: &'s str) -> Cow<'s, str> {
        match self {
            Db::Sqlite(_) => Cow::Borrowed(sql),
            Db::Pg(_) => Cow::Owned(dollars(sql)),
        }
    }

    /// Runs a statement; the rows it changed. The error is sqlx's, for callers that tell a
    /// constraint violation from a failure ([`Db::fail`] maps the rest).
    pub async fn try_execute(&mut self, sql: &str, args: &[Arg<'_>]) -> Result<u64, sqlx::Error> {
        let text = self.text(sql).into_owned();
        match self {
            Db::Sqlite(c) => {
                let q = bind_all!(sqlx::query(sqlx::AssertSqlSafe(text)), args);
                Ok(q.execute(&mut **c).await?.rows_affected())
            }
            Db::Pg(c) => {
                let q = bind_all!(sqlx::query(sqlx::AssertSqlSafe(text)), args);
                Ok(q.execute(&mut **c).await?.rows_affected())
            }
        }
    }

    /// Runs a statement; the rows it changed.
    pub async fn execute(&mut self, sql: &str, args: &[Arg<'_>]) -> StoreResult<u64> {
        let r = self.try_execute(sql, args).await;
        r.map_err(|e| self.fail(e))
    }

    /// Every row a query returns.
    pub async fn fetch_all(&mut self, sql: &str, args: &[Arg<'_>]) -> StoreResult<Vec<Row>> {
        let text = self.text(sql).into_owned();
        match self {
            Db::Sqlite(c) => {
                let q = bind_all!(sqlx::query(sqlx::AssertSqlSafe(text)), args);
                let rows = q.fetch_all(&mut **c).await.map_err(sqlite::backend)?;
                Ok(rows.into_iter().map(Row::Sqlite).collect())
            }
            Db::Pg(c) => {
                let q = bind_all!(sqlx::query(sqlx::AssertSqlSafe(text)), args);
                let rows = q.fetch_all(&mut **c).await.map_err(pg::backend)?;
                Ok(rows.into_iter().map(Row::Pg).collect())
            }
        }
    }

    /// The first row a query returns, if any.
    pub async fn fetch_optional(
        &mut self,
        sql: &str,
        args: &[Arg<'_>],
    ) -> StoreResult<Option<Row>> {
        let text = self.text(sql).into_owned();
        match self {
            Db::Sqlite(c) => {
                let q = bind_all!(sqlx::query(sqlx::AssertSqlSafe(text)), args);
                let row = q.fetch_optional(&mut **c).await.map_err(sqlite::backend)?;
                Ok(row.map(Row::Sqlite))
            }
            Db::Pg(c) => {
                let q = bind_all!(sqlx::query(sqlx::AssertSqlSafe(text)), args);
                let row = q.fetch_optional(&mut **c).await.map_err(pg::backend)?;
                Ok(row.map(Row::Pg))
            }
        }
    }

    /// The one row a query returns.
    pub async fn fetch_one(&mut self, sql: &str, args: &[Arg<'_>]) -> StoreResult<Row> {
        self.fetch_optional(sql, args)
            .await?
            .ok_or_else(|| StoreError::Backend("a query returned no row".into()))
    }

    /// Whether a query returns a row.
    pub async fn exists(&mut self, sql: &str, args: &[Arg<'_>]) -> StoreResult<bool> {
        Ok(self.fetch_optional(sql, args).await?.is_some())
    }

    /// The columns an ask is read with (SQLite's include its interned texts).
    pub fn ask_columns(&self) -> &'static str {
        match self {
            Db::Sqlite(_) => sqlite::ASK_COLUMNS,
            Db::Pg(_) => pg::ASK_COLUMNS,
        }
    }

    /// The settle's compare-and-set: the ask, still pending, becomes settled with the
    /// settlement's outcome, time, result and delivery; returns its `session_id`, `kind`,
    /// `created_at` and `payload`, or `None` when it was not pending (or does not exist).
    /// SQLite keeps the result's long texts once (`texts`); a lost compare-and-set rolls
    /// them back with the write's savepoint.
    pub async fn settle_row(&mut self, ask_id: &str, s: &Settlement) -> StoreResult<Option<Row>> {
        match self {
            Db::Sqlite(c) => {
                let mut result = s.result.clone();
                let texts = sqlite::intern_texts(c, &mut result).await?;
                self.fetch_optional(
                    "UPDATE asks SET state = 'settled', outcome = ?2, settled_at = ?3, result = ?4, awaited = 0,
                         delivered_at = CASE WHEN ?6 THEN ?3 END,
                         result_texts = ?5, submission = ?7
                     WHERE id = ?1 AND state = 'pending'
                     RETURNING session_id, kind, created_at, payload",
                    args![ask_id, &s.outcome, &s.settled_at, to_text(&result), texts, s.delivered, &s.submission],
                )
                .await
            }
            Db::Pg(_) => {
                self.fetch_optional(
                    "UPDATE asks SET state = 'settled', outcome = ?2, settled_at = ?3, result = ?4, awaited = FALSE,
                         delivered_at = CASE WHEN ?5 THEN ?3 END, submission = ?6
                     WHERE id = ?1 AND state = 'pending'
                     RETURNING session_id, kind, created_at, payload",
                    args![ask_id, &s.outcome, &s.settled_at, to_text(&s.result), s.delivered, &s.submission],
                )
                .await
            }
        }
    }

    /// A settle's record (SQLite: the members that are the ask's own kept once).
    pub async fn insert_record(&mut self, s: &Settlement, owner: &Owner<'_>) -> StoreResult<()> {
        let (ask_id, session_id, kind, created_at) =
            (owner.id, owner.session_id, owner.kind, owner.created_at);
        match self {
            Db::Sqlite(_) => {
                let mut record = s.record.clone();
                let shared = sqlite::pack(&mut record, RECORD_SHARES, owner);
                self.execute(
                    "INSERT INTO records (ask_id, session_id, kind, outcome, created_at, settled_at, record, shared)
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
                    args![ask_id, session_id, kind, &s.outcome, created_at, &s.settled_at, to_text(&record), shared],
                )
                .await?;
            }
            Db::Pg(_) => {
                self.execute(
                    "INSERT INTO records (ask_id, session_id, kind, outcome, created_at, settled_at, record)
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
                    args![ask_id, session_id, kind, &s.outcome, created_at, &s.settled_at, to_text(&s.record)],
                )
                .await?;
            }
        }
        Ok(())
    }

    /// Appends one event (SQLite: the payload's `shares` members that are the owner's kept
    /// once; PostgreSQL: stored whole, and notified on its channel at commit).
    pub async fn append_event(
        &mut self,
        kind: &str,
        ask_id: Option<&str>,
        payload: Value,
        at: &str,
        shares: Option<(&[&str], &Owner<'_>)>,
    ) -> StoreResult<Event> {
        match self {
            Db::Sqlite(c) => {
                sqlite::append_event_shared(c, kind, ask_id, payload, at, shares).await
            }
            Db::Pg(c) => pg::append_event(c, kind, ask_id, payload, at).await,
        }
    }
}

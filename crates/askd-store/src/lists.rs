//! The list reads, written once: asks, records and events, each query built with only the
//! filters given (so one index serves each combination in the list's order and `LIMIT`
//! stops the walk), with the dialect's hints ([`Dialect`]).
//!
//! SQLite's plans are pinned by `sqlite::tests::list_plans_use_an_index`: state →
//! `asks_by_state`, session → `asks_by_session_time`, session + state → `asks_by_session`,
//! kind → `asks_by_kind_time`, kind + state → `asks_by_kind`, none → `asks_by_time`; records
//! by `records_by_time`, `records_by_kind` or `records_by_session`.

use crate::StoreResult;
use crate::db::{Arg, Db, Dialect, Row, args};
use crate::model::*;

/// `AskStore::asks`'s query for a filter and its text binds (the limit is bound last). With
/// a session, the kind is a filter on the session's entries (SQLite's `+a.kind` keeps the
/// planner on the session's index: a session is smaller than a kind).
pub(crate) fn asks_sql(f: &AskFilter, d: Dialect) -> (String, Vec<String>) {
    let mut sql = String::from(
        "SELECT a.id, a.session_id, s.client, s.workspace, a.kind, a.title, a.state, a.outcome,
                a.created_at, a.settled_at, a.awaited, a.claim, a.expires_at, a.deferred_until, a.deadline, a.approvals,
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
            d.unindexed("a.kind")
        } else {
            "a.kind".into()
        };
        terms.push(format!("{column} = ?{}", binds.len()));
    }
    let order = format!("a.created_at DESC, a.{} DESC", d.insert_order());
    finish_list(&mut sql, &terms, &order, binds.len());
    (sql, binds)
}

/// `AskStore::records`'s query: newest first by `records_by_time`, `records_by_kind` or
/// `records_by_session` (the session's index when both are given; the outcome and the text
/// are filters). `since`/`until` bound the index walk on `settled_at`; the `after` cursor is
/// a row-value bound `(settled_at, rowid) < …` (PostgreSQL: `n`) on the same index, so a page
/// deep in 100k records starts where the last one stopped. SQLite joins the ask for the
/// members kept once, and searches them there too.
pub(crate) fn records_sql(f: &RecordFilter, d: Dialect) -> (String, Vec<String>) {
    let mut sql = d.records_select();
    let mut terms = Vec::new();
    let mut binds = Vec::new();
    // The number of the parameter `v` is bound to.
    fn bind(binds: &mut Vec<String>, v: &str) -> usize {
        binds.push(v.to_string());
        binds.len()
    }
    // The kind's index only when no session is given (the session's is better).
    let kind = if f.session_id.is_some() {
        d.unindexed("r.kind")
    } else {
        "r.kind".into()
    };
    let outcome = d.unindexed("r.outcome");
    let compared: [(&Option<String>, &str, &str); 5] = [
        (&f.kind, &kind, "="),
        (&f.session_id, "r.session_id", "="),
        (&f.outcome, &outcome, "="),
        (&f.since, "r.settled_at", ">="),
        (&f.until, "r.settled_at", "<"),
    ];
    for (value, column, op) in compared {
        if let Some(v) = value {
            let n = bind(&mut binds, v);
            terms.push(format!("{column} {op} ?{n}"));
        }
    }
    let ord = d.insert_order();
    if let Some(after) = &f.after {
        let n = bind(&mut binds, after);
        terms.push(format!(
            "(r.settled_at, r.{ord}) < (SELECT c.settled_at, c.{ord} FROM records c WHERE c.ask_id = ?{n})"
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
        terms.push(d.record_text_term(n));
    }
    finish_list(
        &mut sql,
        &terms,
        &format!("r.settled_at DESC, r.{ord} DESC"),
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

/// The lookup of an identical ask of a session (`?1` session, `?2` kind, `?3` payload key):
/// settled and undelivered, or pending. Each has its partial index (`asks_undelivered`,
/// `asks_reattach`); the order is [`Dialect::identical_order`], which keeps PostgreSQL's
/// planner off an index walk in `created_at` order (before its first `ANALYZE` it chose
/// `asks_by_kind` and filtered every settled ask of the kind: 2.4 ms at 2,400 asks, growing).
pub(crate) fn reattach_sql(d: Dialect, undelivered: bool) -> String {
    let state = if undelivered {
        "state = 'settled' AND delivered_at IS NULL"
    } else {
        "state = 'pending'"
    };
    format!(
        "SELECT id FROM asks WHERE session_id = ?1 AND kind = ?2 AND payload_key = ?3 AND {state}
         ORDER BY {} LIMIT 1",
        d.identical_order()
    )
}

/// `EventStore::events_after`'s query.
pub(crate) fn events_after_sql(d: Dialect) -> String {
    format!(
        "{} WHERE e.seq > ?1 ORDER BY e.seq LIMIT ?2",
        d.event_select(None)
    )
}

/// `EventStore::session_events`'s query (the partial index `events_by_session`:
/// `session_id = ?` implies `session_id IS NOT NULL`).
pub(crate) fn session_events_sql(d: Dialect) -> String {
    format!(
        "{} WHERE e.session_id = ?1 ORDER BY e.seq",
        d.event_select(None)
    )
}

/// `EventStore::session_events_after`'s query: the rows after the checkpoint only (SQLite:
/// SEARCH events USING INDEX events_by_session (session_id=? AND seq>?)), already in seq
/// order, the walk stopped by LIMIT.
pub(crate) fn session_events_after_sql(d: Dialect) -> String {
    format!(
        "{} WHERE e.session_id = ?1 AND e.seq > ?2 ORDER BY e.seq LIMIT ?3",
        d.event_select(None)
    )
}

/// `EventStore::session_log`'s query: the partial index `events_session_log` holds only the
/// events that are not an ask's (the WHERE repeats its terms; SQLite is told to use it).
pub(crate) fn session_log_sql(d: Dialect) -> String {
    format!(
        "{} WHERE e.session_id = ?1 AND e.session_id IS NOT NULL AND e.kind NOT LIKE 'ask.%'
         ORDER BY e.seq",
        d.event_select(Some("events_session_log"))
    )
}

fn summary_from_row(r: &Row) -> StoreResult<AskSummary> {
    let state: String = r.get("state")?;
    Ok(AskSummary {
        id: r.get("id")?,
        session_id: r.get("session_id")?,
        client: r.get("client")?,
        workspace: r.get("workspace")?,
        kind: r.get("kind")?,
        title: r.get("title")?,
        state: AskState::parse(&state).unwrap_or(AskState::Pending),
        outcome: r.get("outcome")?,
        created_at: r.get("created_at")?,
        settled_at: r.get("settled_at")?,
        awaited: r.flag("awaited")?,
        banked: r.get::<i64>("banked")?.max(0) as u64,
        claim: r.opt_json("claim")?,
        expires_at: r.get("expires_at")?,
        deferred_until: r.get("deferred_until")?,
        escalated_to: r.opt_json("deadline")?.and_then(|d: serde_json::Value| {
            d["escalated"].as_array()?.last()?["to"]
                .as_str()
                .map(str::to_string)
        }),
        approvals: r.opt_json("approvals")?.map(|a: serde_json::Value| {
            let voters: Vec<&serde_json::Value> = a["votes"]
                .as_array()
                .map(|v| v.iter().map(|v| &v["answered_by"]["name"]).collect())
                .unwrap_or_default();
            serde_json::json!({"required": a["required"], "votes": voters.len(), "voters": voters})
        }),
    })
}

fn record_from_row(r: &Row) -> StoreResult<Record> {
    Ok(Record {
        ask_id: r.get("ask_id")?,
        session_id: r.get("session_id")?,
        kind: r.get("kind")?,
        outcome: r.get("outcome")?,
        created_at: r.get("created_at")?,
        settled_at: r.get("settled_at")?,
        record: r.stored_json("record", true)?,
    })
}

fn event_from_row(r: &Row) -> StoreResult<Event> {
    Ok(Event {
        seq: r.get("seq")?,
        kind: r.get("kind")?,
        payload: r.stored_json("payload", false)?,
        created_at: r.get("created_at")?,
    })
}

/// Runs a list query: its text binds in order, then the limit.
async fn fetch_list(
    db: &mut Db<'_>,
    sql: &str,
    binds: &[String],
    limit: Option<u32>,
) -> StoreResult<Vec<Row>> {
    let mut args: Vec<Arg<'_>> = binds.iter().map(Arg::from).collect();
    args.push(db.dialect().limit(limit));
    db.fetch_all(sql, &args).await
}

pub(crate) async fn asks(db: &mut Db<'_>, f: &AskFilter) -> StoreResult<Vec<AskSummary>> {
    let (sql, binds) = asks_sql(f, db.dialect());
    let rows = fetch_list(db, &sql, &binds, f.limit).await?;
    rows.iter().map(summary_from_row).collect()
}

pub(crate) async fn records(db: &mut Db<'_>, f: &RecordFilter) -> StoreResult<Vec<Record>> {
    let (sql, binds) = records_sql(f, db.dialect());
    let rows = fetch_list(db, &sql, &binds, f.limit).await?;
    rows.iter().map(record_from_row).collect()
}

pub(crate) async fn events_after(
    db: &mut Db<'_>,
    after: i64,
    limit: u32,
) -> StoreResult<Vec<Event>> {
    let sql = events_after_sql(db.dialect());
    let rows = db.fetch_all(&sql, args![after, i64::from(limit)]).await?;
    rows.iter().map(event_from_row).collect()
}

pub(crate) async fn session_events(db: &mut Db<'_>, session_id: &str) -> StoreResult<Vec<Event>> {
    let sql = session_events_sql(db.dialect());
    let rows = db.fetch_all(&sql, args![session_id]).await?;
    rows.iter().map(event_from_row).collect()
}

pub(crate) async fn session_events_after(
    db: &mut Db<'_>,
    session_id: &str,
    after: i64,
    limit: u32,
) -> StoreResult<Vec<Event>> {
    let sql = session_events_after_sql(db.dialect());
    let rows = db
        .fetch_all(&sql, args![session_id, after, i64::from(limit)])
        .await?;
    rows.iter().map(event_from_row).collect()
}

pub(crate) async fn session_log(db: &mut Db<'_>, session_id: &str) -> StoreResult<Vec<Event>> {
    let sql = session_log_sql(db.dialect());
    let rows = db.fetch_all(&sql, args![session_id]).await?;
    rows.iter().map(event_from_row).collect()
}

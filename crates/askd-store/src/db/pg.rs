//! PostgreSQL's part of the per-dialect layer: how a failure is classified (a connection
//! lost is `Unavailable`), and the event append with its notification.

use serde_json::Value;
use sqlx::postgres::{PgConnection, PgDatabaseError};

use super::to_text;
use crate::model::Event;
use crate::{StoreError, StoreResult};

pub(crate) fn backend(e: sqlx::Error) -> StoreError {
    let text = describe(&e);
    if is_full(&e) {
        StoreError::StorageFull(text)
    } else if is_unavailable(&e) {
        StoreError::Unavailable(text)
    } else {
        StoreError::Backend(text)
    }
}

/// A failure in words: PostgreSQL's message with its SQLSTATE, detail and hint (sqlx's
/// own text ends with the server's C source line, "at line 334", which tells a user
/// nothing); other failures as sqlx words them.
fn describe(e: &sqlx::Error) -> String {
    let Some(pg) = e
        .as_database_error()
        .and_then(|d| d.try_downcast_ref::<PgDatabaseError>())
    else {
        return e.to_string();
    };
    let mut text = format!("PostgreSQL: {} (SQLSTATE {})", pg.message(), pg.code());
    for (label, part) in [("detail", pg.detail()), ("hint", pg.hint())] {
        if let Some(part) = part {
            text.push_str(&format!("; {label}: {part}"));
        }
    }
    text
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

/// Appends one event and its notification (delivered at commit).
pub(crate) async fn append_event(
    tx: &mut PgConnection,
    kind: &str,
    ask_id: Option<&str>,
    payload: Value,
    at: &str,
) -> StoreResult<Event> {
    // The insert and its notification in one statement (one round trip under the write
    // lock).
    let seq: i64 = sqlx::query_scalar(
        "WITH e AS (
             INSERT INTO events (kind, ask_id, payload, created_at, session_id)
             VALUES ($1, $2, $3, $4, $5) RETURNING seq
         )
         SELECT seq, pg_notify($6, seq::text) FROM e",
    )
    .bind(kind)
    .bind(ask_id)
    .bind(to_text(&payload))
    .bind(at)
    .bind(payload.get("session").and_then(Value::as_str))
    .bind(CHANNEL)
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

pub(crate) const ASK_COLUMNS: &str = "a.id, a.session_id, a.kind, a.title, a.state, a.outcome, a.payload, a.fingerprint, a.created_at, a.settled_at, a.awaited, a.autosave, a.autosave_revision, a.autosave_saved_at, a.result, a.delivered_at, a.claim, a.submission, a.expires_at, a.deadline, a.deferred_until, a.approvals, s.client, s.workspace";

/// The notification channel: one notification per committed event, its payload the seq.
pub const CHANNEL: &str = "askd_events";

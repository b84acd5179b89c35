//! PostgreSQL's part of the per-dialect layer: how a failure is classified (a connection
//! lost is `Unavailable`), and the event append with its notification.

use serde_json::Value;
use sqlx::postgres::PgConnection;

use super::to_text;
use crate::model::Event;
use crate::{StoreError, StoreResult};

pub(crate) fn backend(e: sqlx::Error) -> StoreError {
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

/// Appends one event and its notification (delivered at commit).
pub(crate) async fn append_event(
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

pub(crate) const ASK_COLUMNS: &str = "a.id, a.session_id, a.kind, a.title, a.state, a.outcome, a.payload, a.fingerprint, a.created_at, a.settled_at, a.awaited, a.autosave, a.autosave_revision, a.autosave_saved_at, a.result, a.delivered_at, a.claim, s.client, s.workspace";

/// The notification channel: one notification per committed event, its payload the seq.
pub const CHANNEL: &str = "askd_events";

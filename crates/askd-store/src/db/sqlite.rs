//! SQLite's part of the per-dialect layer: how a failure is classified, and how SQLite
//! stores each thing once — the members of a record or an event that are its ask's own
//! (`pack` / `unpack`, the `shared` bits) and a result's long texts (`texts`).

use serde_json::{Value, json};
use sqlx::Row;
use sqlx::sqlite::{SqliteConnection, SqliteRow};

use super::{Owner, parse_json, to_text};
use crate::model::Event;
use crate::{StoreError, StoreResult};

pub(crate) fn backend(e: sqlx::Error) -> StoreError {
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

#[derive(Clone, Copy)]
enum Source {
    /// The ask's payload.
    Payload,
    /// A member of the ask's result.
    Result(&'static str),
    /// A text column of the ask's row.
    Column(&'static str),
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
pub(crate) const OWNER_COLUMNS: &str = "a.id AS o_id, a.session_id AS o_session, a.kind AS o_kind, a.title AS o_title,
     a.outcome AS o_outcome, a.created_at AS o_created, a.settled_at AS o_settled, a.result AS o_result";

/// A JSON column of a row whose members may be the ask's own, with them put back (the
/// inverse of [`pack`], reading the row's `shared` bits and its joined `o_*` columns).
pub(crate) fn unpacked(r: &SqliteRow, column: &str, with_payload: bool) -> StoreResult<Value> {
    let text: String = r.try_get(column).map_err(backend)?;
    let shared: i64 = r.try_get("shared").map_err(backend)?;
    let owner = OwnerRow::read(r, shared, with_payload)?;
    unpack(parse_json(&text)?, shared, &owner.owner())
}

/// Replaces the members of `value` named in `members` that equal their source in `owner`
/// with `null`; returns the bits.
pub(crate) fn pack(value: &mut Value, members: &[&str], owner: &Owner<'_>) -> i64 {
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

/// Appends one event, storing the payload's `members` that are its ask's (`owner`) once
/// (see [`pack`]); the returned event has the whole payload.
pub(crate) async fn append_event_shared(
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

pub(crate) const ASK_COLUMNS: &str = "a.id, a.session_id, a.kind, a.title, a.state, a.outcome, a.payload, a.fingerprint, a.created_at, a.settled_at, a.awaited, a.autosave, a.autosave_revision, a.autosave_saved_at, a.result, a.delivered_at, a.claim, a.submission, a.expires_at, a.deadline, a.deferred_until, a.approvals, s.client, s.workspace,
    CASE WHEN a.result_texts IS NOT NULL THEN (SELECT json_group_object(j.key, t.text) FROM json_each(a.result_texts) j JOIN texts t ON t.id = j.value) END AS result_text_values";

/// A result's top-level string members this long or longer are kept once, in `texts`.
const TEXT_MIN: usize = 64;

/// Moves `result`'s long top-level strings (not the members a record or an event shares)
/// into `texts`, leaving `null` in their place; returns `result_texts` (member → text id),
/// or `None` when there is none.
pub(crate) async fn intern_texts(
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

//! The store's logic, written once over [`crate::db`]: create (re-attach, supersession,
//! seeding), settle once, bank, autosave, claim, delivery, sessions, settings, alignment
//! checkpoints and drafts; the list reads are [`crate::lists`]'s. A backend implements
//! [`Backend`] — where a job runs (SQLite's writer task; a PostgreSQL transaction under the
//! write lock) and `ask_payloads`, whose strategy is its own — and gets every store trait but
//! its locks and upkeep from the blanket impls here.

use askd_core::EventKind;
use async_trait::async_trait;
use serde_json::{Value, json};

use crate::db::{
    BoxFuture, CREATED_SHARES, Db, Job, Owner, Row, SETTLED_SHARES, args, job, to_text,
};
use crate::lists;
use crate::model::*;
use crate::{
    AlignmentStore, AskStore, EventStore, SessionStore, SettingsStore, StoreError, StoreResult, now,
};

/// What a backend supplies beneath the shared logic.
pub(crate) trait Backend: Send + Sync + 'static {
    /// Runs a write, acknowledged only after its transaction commits.
    fn write<T: Send + 'static>(&self, job: Job<T>) -> BoxFuture<'_, StoreResult<T>>;
    /// Runs a read on a connection of its own.
    fn read<T: Send + 'static>(&self, job: Job<T>) -> BoxFuture<'_, StoreResult<T>>;
    /// Runs a read inside one read transaction (one snapshot).
    fn snapshot<T: Send + 'static>(&self, job: Job<T>) -> BoxFuture<'_, StoreResult<T>>;
    /// A new session id.
    fn new_session_id(&self) -> String;

    /// `(id, kind, payload)` of each of these asks (SQLite: `IN` lists of a few hundred;
    /// PostgreSQL: one `ANY` array).
    fn ask_payloads<'a>(
        &'a self,
        ids: &'a [String],
    ) -> BoxFuture<'a, StoreResult<Vec<(String, String, Value)>>>;
}

// ---- sessions ----------------------------------------------------------------------------

const SESSION_COLUMNS: &str = "id, client, workspace, created_at";

fn session_from_row(r: &Row) -> StoreResult<Session> {
    Ok(Session {
        id: r.get("id")?,
        client: r.get("client")?,
        workspace: r.get("workspace")?,
        created_at: r.get("created_at")?,
    })
}

async fn open_session(db: &mut Db<'_>, s: NewSession, id: String) -> StoreResult<Session> {
    if let Some(id) = &s.id {
        let sql = format!("SELECT {SESSION_COLUMNS} FROM sessions WHERE id = ?1");
        if let Some(row) = db.fetch_optional(&sql, args![id]).await? {
            return session_from_row(&row);
        }
    }
    let session = Session {
        id: s.id.unwrap_or(id),
        client: s.client,
        workspace: s.workspace,
        created_at: now(),
    };
    db.execute(
        "INSERT INTO sessions (id, client, workspace, created_at) VALUES (?1, ?2, ?3, ?4)",
        args![
            &session.id,
            &session.client,
            &session.workspace,
            &session.created_at
        ],
    )
    .await?;
    Ok(session)
}

async fn session_exists(db: &mut Db<'_>, id: &str) -> StoreResult<bool> {
    db.exists("SELECT 1 FROM sessions WHERE id = ?1", args![id])
        .await
}

// ---- asks --------------------------------------------------------------------------------

pub(crate) fn ask_from_row(row: &Row, banked: Vec<BankedEntry>) -> StoreResult<Ask> {
    let state: String = row.get("state")?;
    let mut result = row.opt_json("result")?;
    // SQLite: the long texts kept once (`texts`) go back in their places.
    if row.sqlite().is_some()
        && let (Some(Value::Object(r)), Some(texts)) =
            (&mut result, row.opt_json("result_text_values")?)
        && let Value::Object(texts) = texts
    {
        for (member, text) in texts {
            r.insert(member, text);
        }
    }
    Ok(Ask {
        id: row.get("id")?,
        session_id: row.get("session_id")?,
        kind: row.get("kind")?,
        title: row.get("title")?,
        state: AskState::parse(&state)
            .ok_or_else(|| StoreError::Backend(format!("unknown ask state {state:?}")))?,
        outcome: row.get("outcome")?,
        payload: row.json("payload")?,
        fingerprint: row.get("fingerprint")?,
        created_at: row.get("created_at")?,
        settled_at: row.get("settled_at")?,
        awaited: row.flag("awaited")?,
        banked,
        autosave: row.opt_json("autosave")?,
        autosave_revision: row.get("autosave_revision")?,
        autosave_saved_at: row.get("autosave_saved_at")?,
        result,
        delivered_at: row.get("delivered_at")?,
        claim: row.opt_json("claim")?,
        submission: row.get("submission")?,
        expires_at: row.get("expires_at")?,
        deadline: row.opt_json("deadline")?,
        deferred_until: row.get("deferred_until")?,
        approvals: row.opt_json("approvals")?,
        client: row.get("client")?,
        workspace: row.get("workspace")?,
    })
}

async fn load_banked(db: &mut Db<'_>, ask_id: &str) -> StoreResult<Vec<BankedEntry>> {
    let rows = db
        .fetch_all(
            "SELECT question_id, entry, banked_at FROM banked WHERE ask_id = ?1 ORDER BY seq",
            args![ask_id],
        )
        .await?;
    rows.iter()
        .map(|r| {
            Ok(BankedEntry {
                question_id: r.get("question_id")?,
                entry: r.json("entry")?,
                banked_at: r.get("banked_at")?,
            })
        })
        .collect()
}

async fn load_ask(db: &mut Db<'_>, id: &str) -> StoreResult<Option<Ask>> {
    let sql = format!(
        "SELECT {} FROM asks a JOIN sessions s ON s.id = a.session_id WHERE a.id = ?1",
        db.ask_columns()
    );
    let Some(row) = db.fetch_optional(&sql, args![id]).await? else {
        return Ok(None);
    };
    let banked = load_banked(db, id).await?;
    ask_from_row(&row, banked).map(Some)
}

/// Inserts banked rows after the ask's current last one. The first conflicting question is
/// a [`StoreError::Conflict`]; the caller's transaction (or savepoint) then rolls back.
async fn insert_banked(
    db: &mut Db<'_>,
    ask_id: &str,
    entries: &[NewBanked],
    at: &str,
) -> StoreResult<()> {
    let start: i64 = db
        .fetch_one(
            "SELECT CAST(COALESCE(MAX(seq), 0) AS BIGINT) AS n FROM banked WHERE ask_id = ?1",
            args![ask_id],
        )
        .await?
        .get("n")?;
    for (i, e) in entries.iter().enumerate() {
        let inserted = db
            .try_execute(
                "INSERT INTO banked (ask_id, seq, question_id, entry, banked_at) VALUES (?1, ?2, ?3, ?4, ?5)",
                args![ask_id, start + 1 + i as i64, &e.question_id, to_text(&e.entry), at],
            )
            .await;
        match inserted {
            Ok(_) => {}
            Err(sqlx::Error::Database(d)) if d.is_unique_violation() => {
                return Err(StoreError::Conflict(format!(
                    "question {:?} is already banked",
                    e.question_id
                )));
            }
            Err(err) => return Err(db.fail(err)),
        }
    }
    Ok(())
}

async fn require_pending(db: &mut Db<'_>, ask_id: &str) -> StoreResult<()> {
    let row = db
        .fetch_optional("SELECT state FROM asks WHERE id = ?1", args![ask_id])
        .await?;
    let state: Option<String> = row.map(|r| r.get("state")).transpose()?;
    match state.as_deref() {
        None => Err(StoreError::NotFound),
        Some("pending") => Ok(()),
        Some(_) => Err(StoreError::NotPending),
    }
}

/// Settles inside a transaction: compare-and-set on the pending state, the record and the
/// `ask.settled` event.
pub(crate) async fn settle_in(db: &mut Db<'_>, ask_id: &str, s: &Settlement) -> StoreResult<Event> {
    let at = s.settled_at.as_str();
    if let Some(expected) = s.expect_banked {
        let banked: i64 = db
            .fetch_one(
                "SELECT COUNT(*) AS n FROM banked WHERE ask_id = ?1",
                args![ask_id],
            )
            .await?
            .get("n")?;
        if banked != expected as i64 {
            return Err(StoreError::Conflict(format!(
                "the ask's banked answers changed ({expected} expected, {banked} now) — reload it and try again"
            )));
        }
    }
    let Some(row) = db.settle_row(ask_id, s).await? else {
        let exists = db
            .exists("SELECT 1 FROM asks WHERE id = ?1", args![ask_id])
            .await?;
        return Err(if exists {
            StoreError::NotPending
        } else {
            StoreError::NotFound
        });
    };
    let session_id: String = row.get("session_id")?;
    let kind: String = row.get("kind")?;
    let created_at: String = row.get("created_at")?;
    let ask_payload: String = row.get("payload")?;
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
    db.insert_record(s, &owner).await?;
    let mut payload = json!({"ask_id": ask_id, "kind": kind, "session": session_id, "outcome": s.outcome, "settledAt": at});
    for member in ["answers", "path", "skipped", "answered_by"] {
        if let Some(v) = s.result.get(member) {
            payload[member] = v.clone();
        }
    }
    db.append_event(
        EventKind::AskSettled.as_str(),
        Some(ask_id),
        payload,
        at,
        Some((SETTLED_SHARES, &owner)),
    )
    .await
}

/// One [`FollowEvent`] of `ask_id`, in its session.
async fn append_follow(
    db: &mut Db<'_>,
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
    db.append_event(&f.kind, Some(ask_id), payload, at, None)
        .await
}

/// Creates an ask inside a transaction (or re-attaches to an identical pending one): the
/// body of [`AskStore::create_ask`], shared with [`DraftStore::launch_draft`].
pub(crate) async fn create_in(db: &mut Db<'_>, a: NewAsk) -> StoreResult<Created> {
    // The session's client and workspace, which the new ask is read with.
    let Some(session) = db
        .fetch_optional(
            "SELECT client, workspace FROM sessions WHERE id = ?1",
            args![&a.session_id],
        )
        .await?
    else {
        return Err(StoreError::UnknownSession(a.session_id));
    };
    // An identical ask of this session whose result no agent call has returned yet: the
    // repeat call gets that result (clients.md §2.5). A settle the caller marked delivered
    // (`Settlement::delivered`) is never returned.
    let mut existing = None;
    if a.return_undelivered {
        let sql = lists::reattach_sql(db.dialect(), true);
        existing = db
            .fetch_optional(&sql, args![&a.session_id, &a.kind, &a.payload_key])
            .await?;
    }
    // Re-attach: an identical pending ask of this session.
    if existing.is_none() {
        let sql = lists::reattach_sql(db.dialect(), false);
        existing = db
            .fetch_optional(&sql, args![&a.session_id, &a.kind, &a.payload_key])
            .await?;
    }
    if let Some(row) = existing {
        let id: String = row.get("id")?;
        let ask = load_ask(db, &id).await?.ok_or(StoreError::NotFound)?;
        return Ok(Created {
            ask,
            created: false,
            events: Vec::new(),
        });
    }
    let at = now();
    let mut events = Vec::new();
    let inserted = db
        .try_execute(
            "INSERT INTO asks (id, session_id, kind, title, state, payload, payload_key, fingerprint, created_at, awaited, expires_at, deadline, approvals)
             VALUES (?1, ?2, ?3, ?4, 'pending', ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)",
            args![
                &a.id,
                &a.session_id,
                &a.kind,
                &a.title,
                to_text(&a.payload),
                &a.payload_key,
                &a.fingerprint,
                &at,
                true,
                a.expiry.as_ref().map(|e| e.expires_at.clone()),
                a.expiry.as_ref().map(|e| to_text(&e.deadline)),
                a.approvals.as_ref().map(to_text)
            ],
        )
        .await;
    match inserted {
        Ok(_) => {}
        Err(sqlx::Error::Database(d)) if d.is_unique_violation() => {
            return Err(StoreError::Conflict(format!(
                "ask id {:?} already exists",
                a.id
            )));
        }
        Err(e) => return Err(db.fail(e)),
    }
    if let Some(sup) = &a.replaces {
        // Only a pending ask of the same session is superseded.
        let same_session = db
            .exists(
                "SELECT 1 FROM asks WHERE id = ?1 AND session_id = ?2 AND state = 'pending'",
                args![&sup.ask_id, &a.session_id],
            )
            .await?;
        if same_session {
            events.push(settle_in(db, &sup.ask_id, &sup.settlement).await?);
        }
    }
    if !a.seed_banked.is_empty() {
        insert_banked(db, &a.id, &a.seed_banked, &at).await?;
    }
    if let Some(autosave) = &a.seed_autosave {
        db.execute(
            "UPDATE asks SET autosave = ?2, autosave_revision = 1, autosave_saved_at = ?3 WHERE id = ?1",
            args![&a.id, to_text(autosave), &at],
        )
        .await?;
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
        db.append_event(
            EventKind::AskCreated.as_str(),
            Some(&a.id),
            payload,
            &at,
            Some((CREATED_SHARES, &owner)),
        )
        .await?,
    );
    // A plain new ask is what was just inserted: no second read under the write lock (a
    // seeded one is read back, with its banked answers and autosave).
    let ask = if a.seed_banked.is_empty() && a.seed_autosave.is_none() {
        a.pending(at, session.get("client")?, session.get("workspace")?)
    } else {
        load_ask(db, &a.id).await?.ok_or(StoreError::NotFound)?
    };
    Ok(Created {
        ask,
        created: true,
        events,
    })
}

async fn create_with(db: &mut Db<'_>, a: NewAsk, follow: &[FollowEvent]) -> StoreResult<Created> {
    let mut created = create_in(db, a).await?;
    if created.created {
        let (id, session, at) = (
            created.ask.id.clone(),
            created.ask.session_id.clone(),
            created.ask.created_at.clone(),
        );
        for f in follow {
            created
                .events
                .push(append_follow(db, f, &id, &session, &at).await?);
        }
    }
    Ok(created)
}

async fn bank(db: &mut Db<'_>, ask_id: &str, entries: &[NewBanked]) -> StoreResult<Banked> {
    require_pending(db, ask_id).await?;
    let at = now();
    insert_banked(db, ask_id, entries, &at).await?;
    let all = load_banked(db, ask_id).await?;
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
    let event = db
        .append_event(
            EventKind::AskBanked.as_str(),
            Some(ask_id),
            json!({"ask_id": ask_id, "banked": list}),
            &at,
            None,
        )
        .await?;
    Ok(Banked {
        total: all.len(),
        event,
    })
}

async fn autosave(db: &mut Db<'_>, ask_id: &str, autosave: &Value) -> StoreResult<Autosaved> {
    require_pending(db, ask_id).await?;
    let at = now();
    let revision: i64 = db
        .fetch_one(
            "UPDATE asks SET autosave = ?2, autosave_revision = autosave_revision + 1, autosave_saved_at = ?3
             WHERE id = ?1 RETURNING autosave_revision",
            args![ask_id, to_text(autosave), &at],
        )
        .await?
        .get("autosave_revision")?;
    let event = db
        .append_event(
            EventKind::AskAutosaved.as_str(),
            Some(ask_id),
            json!({"ask_id": ask_id, "revision": revision, "savedAt": at}),
            &at,
            None,
        )
        .await?;
    Ok(Autosaved {
        revision,
        saved_at: at,
        event,
    })
}

async fn claim(db: &mut Db<'_>, ask_id: &str, claim: Option<&Value>) -> StoreResult<Event> {
    require_pending(db, ask_id).await?;
    db.execute(
        "UPDATE asks SET claim = ?2 WHERE id = ?1",
        args![ask_id, claim.map(to_text)],
    )
    .await?;
    let at = now();
    db.append_event(
        EventKind::AskClaimed.as_str(),
        Some(ask_id),
        json!({"ask_id": ask_id, "claim": claim}),
        &at,
        None,
    )
    .await
}

async fn settle_with(
    db: &mut Db<'_>,
    ask_id: &str,
    s: &Settlement,
    follow: &[FollowEvent],
) -> StoreResult<Vec<Event>> {
    let settled = settle_in(db, ask_id, s).await?;
    let session = settled.payload["session"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    let mut events = vec![settled];
    for f in follow {
        events.push(append_follow(db, f, ask_id, &session, &s.settled_at).await?);
    }
    Ok(events)
}

async fn mark_delivered(db: &mut Db<'_>, ask_id: &str) -> StoreResult<bool> {
    let changed = db
        .execute(
            "UPDATE asks SET delivered_at = ?2
             WHERE id = ?1 AND state = 'settled' AND delivered_at IS NULL",
            args![ask_id, now()],
        )
        .await?;
    Ok(changed > 0)
}

async fn set_expiry(db: &mut Db<'_>, ask_id: &str, expires_at: &str) -> StoreResult<Event> {
    require_pending(db, ask_id).await?;
    let changed = db
        .execute(
            "UPDATE asks SET expires_at = ?2 WHERE id = ?1 AND expires_at IS NOT NULL",
            args![ask_id, expires_at],
        )
        .await?;
    if changed == 0 {
        return Err(StoreError::Conflict(format!(
            "ask {ask_id} has no deadline to move"
        )));
    }
    db.append_event(
        EventKind::AskDeadline.as_str(),
        Some(ask_id),
        json!({"ask_id": ask_id, "expires_at": expires_at}),
        &now(),
        None,
    )
    .await
}

async fn defer(db: &mut Db<'_>, ask_id: &str, until: &str) -> StoreResult<Event> {
    require_pending(db, ask_id).await?;
    db.execute(
        "UPDATE asks SET deferred_until = ?2 WHERE id = ?1",
        args![ask_id, until],
    )
    .await?;
    db.append_event(
        EventKind::AskDeferred.as_str(),
        Some(ask_id),
        json!({"ask_id": ask_id, "deferred_until": until}),
        &now(),
        None,
    )
    .await
}

async fn escalate(
    db: &mut Db<'_>,
    ask_id: &str,
    expires_at: &str,
    deadline: &Value,
    to: &str,
) -> StoreResult<Option<Event>> {
    let changed = db
        .execute(
            "UPDATE asks SET expires_at = NULL, deadline = ?3
             WHERE id = ?1 AND state = 'pending' AND expires_at = ?2",
            args![ask_id, expires_at, to_text(deadline)],
        )
        .await?;
    if changed == 0 {
        return Ok(None);
    }
    let at = now();
    db.append_event(
        EventKind::AskEscalated.as_str(),
        Some(ask_id),
        json!({"ask_id": ask_id, "to": to, "escalated_at": at}),
        &at,
        None,
    )
    .await
    .map(Some)
}

async fn expiring(db: &mut Db<'_>, limit: u32) -> StoreResult<Vec<(String, String)>> {
    let rows = db
        .fetch_all(
            "SELECT id, expires_at FROM asks
             WHERE state = 'pending' AND expires_at IS NOT NULL
             ORDER BY expires_at LIMIT ?1",
            args![i64::from(limit)],
        )
        .await?;
    rows.iter()
        .map(|r| Ok((r.get("id")?, r.get("expires_at")?)))
        .collect()
}

async fn set_awaited(db: &mut Db<'_>, ask_id: &str, awaited: bool) -> StoreResult<()> {
    if !db
        .exists("SELECT 1 FROM asks WHERE id = ?1", args![ask_id])
        .await?
    {
        return Err(StoreError::NotFound);
    }
    db.execute(
        "UPDATE asks SET awaited = ?2 WHERE id = ?1 AND state = 'pending'",
        args![ask_id, awaited],
    )
    .await?;
    Ok(())
}

async fn count_asks(db: &mut Db<'_>, state: Option<AskState>) -> StoreResult<u64> {
    // By state: `asks_by_state` counts only that state's entries.
    let row = match state {
        Some(state) => {
            db.fetch_one(
                "SELECT COUNT(*) AS n FROM asks WHERE state = ?1",
                args![state.as_str()],
            )
            .await?
        }
        None => db.fetch_one("SELECT COUNT(*) AS n FROM asks", &[]).await?,
    };
    Ok(row.get::<i64>("n")?.max(0) as u64)
}

// ---- events and settings -----------------------------------------------------------------

async fn append_session_event(
    db: &mut Db<'_>,
    session_id: &str,
    kind: &str,
    payload: Value,
) -> StoreResult<Event> {
    if !session_exists(db, session_id).await? {
        return Err(StoreError::UnknownSession(session_id.to_string()));
    }
    let mut payload = payload;
    if let Some(map) = payload.as_object_mut() {
        map.insert("session".into(), Value::String(session_id.to_string()));
    } else {
        payload = json!({"session": session_id, "data": payload});
    }
    db.append_event(kind, None, payload, &now(), None).await
}

async fn last_event(db: &mut Db<'_>) -> StoreResult<i64> {
    db.fetch_one(
        "SELECT CAST(COALESCE(MAX(seq), 0) AS BIGINT) AS n FROM events",
        &[],
    )
    .await?
    .get("n")
}

async fn settings(db: &mut Db<'_>) -> StoreResult<serde_json::Map<String, Value>> {
    let rows = db
        .fetch_all("SELECT key, value FROM settings ORDER BY key", &[])
        .await?;
    let mut out = serde_json::Map::new();
    for r in &rows {
        out.insert(r.get("key")?, r.json("value")?);
    }
    Ok(out)
}

async fn save_settings(
    db: &mut Db<'_>,
    set: &serde_json::Map<String, Value>,
    remove: &[String],
) -> StoreResult<Event> {
    let at = now();
    for (key, value) in set {
        db.execute(
            "INSERT INTO settings (key, value, updated_at) VALUES (?1, ?2, ?3)
             ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at",
            args![key, to_text(value), &at],
        )
        .await?;
    }
    for key in remove {
        db.execute("DELETE FROM settings WHERE key = ?1", args![key])
            .await?;
    }
    let payload = json!({
        "set": set.keys().collect::<Vec<_>>(),
        "removed": remove,
    });
    db.append_event(
        EventKind::SettingsUpdated.as_str(),
        None,
        payload,
        &at,
        None,
    )
    .await
}

// ---- alignment checkpoints ---------------------------------------------------------------

async fn alignment_checkpoint(
    db: &mut Db<'_>,
    session_id: &str,
) -> StoreResult<Option<AlignmentCheckpoint>> {
    // SQLite's plan: SEARCH alignment_checkpoints USING INDEX sqlite_autoindex_… (session_id=?).
    let row = db
        .fetch_optional(
            "SELECT last_seq, decisions, state FROM alignment_checkpoints WHERE session_id = ?1",
            args![session_id],
        )
        .await?;
    let Some(r) = row else { return Ok(None) };
    let decisions: i64 = r.get("decisions")?;
    Ok(Some(AlignmentCheckpoint {
        last_seq: r.get("last_seq")?,
        state: r.json("state")?,
        decisions: decisions.max(0) as u64,
    }))
}

async fn save_alignment_checkpoint(
    db: &mut Db<'_>,
    session_id: &str,
    checkpoint: &AlignmentCheckpoint,
    decisions: &[CheckpointDecision],
) -> StoreResult<bool> {
    let count = checkpoint.decisions as i64;
    if !session_exists(db, session_id).await? {
        return Err(StoreError::UnknownSession(session_id.to_string()));
    }
    // Compare-and-set on the seq, in SQL: of two daemons saving, the later seq stays.
    let saved = db
        .execute(
            "INSERT INTO alignment_checkpoints (session_id, last_seq, decisions, state, updated_at)
             VALUES (?1, ?2, ?3, ?4, ?5)
             ON CONFLICT (session_id) DO UPDATE SET last_seq = excluded.last_seq,
                 decisions = excluded.decisions, state = excluded.state,
                 updated_at = excluded.updated_at
             WHERE excluded.last_seq > alignment_checkpoints.last_seq",
            args![
                session_id,
                checkpoint.last_seq,
                count,
                to_text(&checkpoint.state),
                now()
            ],
        )
        .await?
        > 0;
    if saved {
        let from = decisions.first().map_or(count, |d| d.idx as i64);
        db.execute(
            "DELETE FROM alignment_decisions WHERE session_id = ?1 AND idx >= ?2",
            args![session_id, from],
        )
        .await?;
        for d in decisions {
            db.execute(
                "INSERT INTO alignment_decisions (session_id, idx, key, ask_id, decision)
                 VALUES (?1, ?2, ?3, ?4, ?5)",
                args![
                    session_id,
                    d.idx as i64,
                    &d.key,
                    &d.ask_id,
                    to_text(&d.decision)
                ],
            )
            .await?;
        }
    }
    Ok(saved)
}

async fn alignment_decisions(
    db: &mut Db<'_>,
    session_id: &str,
    from: u64,
    below: u64,
) -> StoreResult<Vec<Value>> {
    // SQLite's plan: SEARCH alignment_decisions USING PRIMARY KEY (session_id=? AND idx>? AND
    // idx<?).
    let rows = db
        .fetch_all(
            "SELECT decision FROM alignment_decisions
             WHERE session_id = ?1 AND idx >= ?2 AND idx < ?3 ORDER BY idx",
            args![session_id, from as i64, below as i64],
        )
        .await?;
    rows.iter().map(|r| r.json("decision")).collect()
}

async fn alignment_decision(
    db: &mut Db<'_>,
    session_id: &str,
    key: &str,
    not_ask: &str,
    below: u64,
) -> StoreResult<Option<Value>> {
    // SQLite's plan: SEARCH alignment_decisions USING INDEX alignment_decisions_by_key
    // (session_id=? AND key=? AND idx<?): the first row of the key, however long the
    // session. Without statistics SQLite would pick the primary key for the ORDER BY and
    // walk the whole session, hence INDEXED BY (`Db::indexed_by`).
    let sql = format!(
        "SELECT decision FROM alignment_decisions{}
         WHERE session_id = ?1 AND key = ?2 AND idx < ?3 AND ask_id <> ?4
         ORDER BY idx LIMIT 1",
        db.dialect().indexed_by("alignment_decisions_by_key")
    );
    let row = db
        .fetch_optional(&sql, args![session_id, key, below as i64, not_ask])
        .await?;
    row.map(|r| r.json("decision")).transpose()
}

// ---- the store traits, once for every backend --------------------------------------------

/// Runs `$body` as a job of the backend (`write`, `read` or `snapshot`): the method has
/// cloned its borrowed arguments first, so the job owns what it reads.
macro_rules! run {
    ($how:ident, $self:ident, |$db:ident| $body:expr) => {
        $self
            .$how(job(move |mut $db| Box::pin(async move { $body.await })))
            .await
    };
}

/// The drafts (the question builder's), and their launch.
mod drafts;
mod votes;

#[async_trait]
impl<B: Backend> SessionStore for B {
    async fn open_session(&self, s: NewSession) -> StoreResult<Session> {
        let id = self.new_session_id();
        run!(write, self, |db| open_session(&mut db, s, id))
    }

    async fn session(&self, id: &str) -> StoreResult<Option<Session>> {
        let id = id.to_string();
        run!(read, self, |db| async move {
            let sql = format!("SELECT {SESSION_COLUMNS} FROM sessions WHERE id = ?1");
            let row = db.fetch_optional(&sql, args![&id]).await?;
            row.as_ref().map(session_from_row).transpose()
        })
    }

    async fn sessions(&self) -> StoreResult<Vec<Session>> {
        run!(read, self, |db| async move {
            let sql =
                format!("SELECT {SESSION_COLUMNS} FROM sessions ORDER BY created_at DESC, id DESC");
            let rows = db.fetch_all(&sql, &[]).await?;
            rows.iter().map(session_from_row).collect()
        })
    }
}

#[async_trait]
impl<B: Backend> AskStore for B {
    async fn create_ask_with(&self, a: NewAsk, follow: &[FollowEvent]) -> StoreResult<Created> {
        let follow = follow.to_vec();
        run!(write, self, |db| create_with(&mut db, a, &follow))
    }

    async fn ask(&self, id: &str) -> StoreResult<Option<Ask>> {
        // One read transaction, so the ask and its banked rows are one snapshot.
        let id = id.to_string();
        run!(snapshot, self, |db| load_ask(&mut db, &id))
    }

    async fn asks(&self, f: &AskFilter) -> StoreResult<Vec<AskSummary>> {
        let f = f.clone();
        run!(read, self, |db| lists::asks(&mut db, &f))
    }

    async fn ask_payloads(&self, ids: &[String]) -> StoreResult<Vec<(String, String, Value)>> {
        Backend::ask_payloads(self, ids).await
    }

    async fn count_asks(&self, state: Option<AskState>) -> StoreResult<u64> {
        run!(read, self, |db| count_asks(&mut db, state))
    }

    async fn bank(&self, ask_id: &str, entries: &[NewBanked]) -> StoreResult<Banked> {
        let (ask_id, entries) = (ask_id.to_string(), entries.to_vec());
        run!(write, self, |db| bank(&mut db, &ask_id, &entries))
    }

    async fn autosave(&self, ask_id: &str, value: &Value) -> StoreResult<Autosaved> {
        let (ask_id, value) = (ask_id.to_string(), value.clone());
        run!(write, self, |db| autosave(&mut db, &ask_id, &value))
    }

    async fn claim(&self, ask_id: &str, value: Option<&Value>) -> StoreResult<Event> {
        let (ask_id, value) = (ask_id.to_string(), value.cloned());
        run!(write, self, |db| claim(&mut db, &ask_id, value.as_ref()))
    }

    async fn settle_with(
        &self,
        ask_id: &str,
        s: &Settlement,
        follow: &[FollowEvent],
    ) -> StoreResult<Vec<Event>> {
        let (ask_id, s, follow) = (ask_id.to_string(), s.clone(), follow.to_vec());
        run!(write, self, |db| settle_with(&mut db, &ask_id, &s, &follow))
    }

    async fn mark_delivered(&self, ask_id: &str) -> StoreResult<bool> {
        let ask_id = ask_id.to_string();
        run!(write, self, |db| mark_delivered(&mut db, &ask_id))
    }

    async fn set_awaited(&self, ask_id: &str, awaited: bool) -> StoreResult<()> {
        let ask_id = ask_id.to_string();
        run!(write, self, |db| set_awaited(&mut db, &ask_id, awaited))
    }

    async fn set_expiry(&self, ask_id: &str, expires_at: &str) -> StoreResult<Event> {
        let (ask_id, expires_at) = (ask_id.to_string(), expires_at.to_string());
        run!(write, self, |db| set_expiry(&mut db, &ask_id, &expires_at))
    }

    async fn escalate(
        &self,
        ask_id: &str,
        expires_at: &str,
        deadline: &Value,
        to: &str,
    ) -> StoreResult<Option<Event>> {
        let (ask_id, expires_at, deadline, to) = (
            ask_id.to_string(),
            expires_at.to_string(),
            deadline.clone(),
            to.to_string(),
        );
        run!(write, self, |db| escalate(
            &mut db,
            &ask_id,
            &expires_at,
            &deadline,
            &to
        ))
    }

    async fn defer(&self, ask_id: &str, until: &str) -> StoreResult<Event> {
        let (ask_id, until) = (ask_id.to_string(), until.to_string());
        run!(write, self, |db| defer(&mut db, &ask_id, &until))
    }

    async fn vote(
        &self,
        ask_id: &str,
        vote: &Value,
        decide: &Settlement,
        follow: &[FollowEvent],
    ) -> StoreResult<Voted> {
        let (ask_id, v, decide, follow) = (
            ask_id.to_string(),
            vote.clone(),
            decide.clone(),
            follow.to_vec(),
        );
        run!(write, self, |db| votes::cast_vote(
            &mut db, &ask_id, &v, &decide, &follow
        ))
    }

    async fn expiring(&self, limit: u32) -> StoreResult<Vec<(String, String)>> {
        run!(read, self, |db| expiring(&mut db, limit))
    }

    async fn records(&self, f: &RecordFilter) -> StoreResult<Vec<Record>> {
        let f = f.clone();
        run!(read, self, |db| lists::records(&mut db, &f))
    }
}

#[async_trait]
impl<B: Backend> EventStore for B {
    async fn append_session_event(
        &self,
        session_id: &str,
        kind: &str,
        payload: Value,
    ) -> StoreResult<Event> {
        let (session_id, kind) = (session_id.to_string(), kind.to_string());
        run!(write, self, |db| append_session_event(
            &mut db,
            &session_id,
            &kind,
            payload
        ))
    }

    async fn events_after(&self, after: i64, limit: u32) -> StoreResult<Vec<Event>> {
        run!(read, self, |db| lists::events_after(&mut db, after, limit))
    }

    async fn session_events(&self, session_id: &str) -> StoreResult<Vec<Event>> {
        let session_id = session_id.to_string();
        run!(read, self, |db| lists::session_events(&mut db, &session_id))
    }

    async fn session_events_after(
        &self,
        session_id: &str,
        after: i64,
        limit: u32,
    ) -> StoreResult<Vec<Event>> {
        let session_id = session_id.to_string();
        run!(read, self, |db| lists::session_events_after(
            &mut db,
            &session_id,
            after,
            limit
        ))
    }

    async fn session_log(&self, session_id: &str) -> StoreResult<Vec<Event>> {
        let session_id = session_id.to_string();
        run!(read, self, |db| lists::session_log(&mut db, &session_id))
    }

    async fn last_event(&self) -> StoreResult<i64> {
        run!(read, self, |db| last_event(&mut db))
    }
}

#[async_trait]
impl<B: Backend> SettingsStore for B {
    async fn settings(&self) -> StoreResult<serde_json::Map<String, Value>> {
        run!(read, self, |db| settings(&mut db))
    }

    async fn save_settings(
        &self,
        set: &serde_json::Map<String, Value>,
        remove: &[String],
    ) -> StoreResult<Event> {
        let (set, remove) = (set.clone(), remove.to_vec());
        run!(write, self, |db| save_settings(&mut db, &set, &remove))
    }
}

#[async_trait]
impl<B: Backend> AlignmentStore for B {
    async fn alignment_checkpoint(
        &self,
        session_id: &str,
    ) -> StoreResult<Option<AlignmentCheckpoint>> {
        let session_id = session_id.to_string();
        run!(read, self, |db| alignment_checkpoint(&mut db, &session_id))
    }

    async fn save_alignment_checkpoint(
        &self,
        session_id: &str,
        checkpoint: &AlignmentCheckpoint,
        decisions: &[CheckpointDecision],
    ) -> StoreResult<bool> {
        let (session_id, checkpoint, decisions) = (
            session_id.to_string(),
            checkpoint.clone(),
            decisions.to_vec(),
        );
        run!(write, self, |db| save_alignment_checkpoint(
            &mut db,
            &session_id,
            &checkpoint,
            &decisions
        ))
    }

    async fn alignment_decisions(
        &self,
        session_id: &str,
        from: u64,
        below: u64,
    ) -> StoreResult<Vec<Value>> {
        let session_id = session_id.to_string();
        run!(read, self, |db| alignment_decisions(
            &mut db,
            &session_id,
            from,
            below
        ))
    }

    async fn alignment_decision(
        &self,
        session_id: &str,
        key: &str,
        not_ask: &str,
        below: u64,
    ) -> StoreResult<Option<Value>> {
        let (session_id, key, not_ask) =
            (session_id.to_string(), key.to_string(), not_ask.to_string());
        run!(read, self, |db| alignment_decision(
            &mut db,
            &session_id,
            &key,
            &not_ask,
            below
        ))
    }
}

//! The question builder's drafts, written once over [`crate::db`] like the rest of the
//! store ([`super`]): save with compare-and-set and the active pointer, read, and launch
//! (the draft linked to the survey ask it becomes, in one transaction).

use askd_core::EventKind;
use async_trait::async_trait;
use serde_json::{Value, json};

use super::{Backend, create_in};
use crate::db::{Db, Row, args, job};
use crate::model::*;
use crate::{DraftStore, StoreError, StoreResult};

// ---- drafts ------------------------------------------------------------------------------

const DRAFT_COLUMNS: &str = "slug, session_id, title, status, file, workspace, created_at, updated_at, revision, ready, progress_questions, progress_complete, progress_missing, grounding, ask_id";

fn draft_from_row(r: &Row) -> StoreResult<Draft> {
    Ok(Draft {
        slug: r.get("slug")?,
        session_id: r.get("session_id")?,
        title: r.get("title")?,
        status: r.get("status")?,
        file: r.get("file")?,
        workspace: r.get("workspace")?,
        created_at: r.get("created_at")?,
        updated_at: r.get("updated_at")?,
        revision: r.get("revision")?,
        ready: r.flag("ready")?,
        progress: DraftProgress {
            questions: r.get("progress_questions")?,
            complete: r.get("progress_complete")?,
            missing_fields: r.get("progress_missing")?,
        },
        grounding: r.get("grounding")?,
        ask_id: r.get("ask_id")?,
    })
}

async fn load_draft(db: &mut Db<'_>, slug: &str) -> StoreResult<Option<Draft>> {
    let sql = format!("SELECT {DRAFT_COLUMNS} FROM drafts WHERE slug = ?1");
    let row = db.fetch_optional(&sql, args![slug]).await?;
    row.as_ref().map(draft_from_row).transpose()
}

/// Writes a draft row (insert or replace), its pointer change and its event.
async fn save_draft_in(
    db: &mut Db<'_>,
    d: &Draft,
    active: &ActivePointer,
    event: Option<Value>,
) -> StoreResult<Option<Event>> {
    let written = db
        .try_execute(
            "INSERT INTO drafts (slug, session_id, title, status, file, workspace, created_at, updated_at,
                                 revision, ready, progress_questions, progress_complete, progress_missing,
                                 grounding, ask_id)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15)
             ON CONFLICT (slug) DO UPDATE SET
                 session_id = excluded.session_id, title = excluded.title, status = excluded.status,
                 file = excluded.file, workspace = excluded.workspace, created_at = excluded.created_at,
                 updated_at = excluded.updated_at, revision = excluded.revision, ready = excluded.ready,
                 progress_questions = excluded.progress_questions,
                 progress_complete = excluded.progress_complete,
                 progress_missing = excluded.progress_missing, grounding = excluded.grounding,
                 ask_id = excluded.ask_id",
            args![
                &d.slug,
                &d.session_id,
                &d.title,
                &d.status,
                &d.file,
                &d.workspace,
                &d.created_at,
                &d.updated_at,
                d.revision,
                d.ready,
                d.progress.questions,
                d.progress.complete,
                d.progress.missing_fields,
                &d.grounding,
                &d.ask_id
            ],
        )
        .await;
    match written {
        Ok(_) => {}
        Err(sqlx::Error::Database(e)) if e.is_foreign_key_violation() => {
            return Err(StoreError::NotFound);
        }
        Err(e) => return Err(db.fail(e)),
    }
    match active {
        ActivePointer::Keep => {}
        ActivePointer::Set(session) => {
            db.execute(
                "INSERT INTO draft_active (session_id, slug) VALUES (?1, ?2)
                 ON CONFLICT (session_id) DO UPDATE SET slug = excluded.slug",
                args![session, &d.slug],
            )
            .await?;
        }
        ActivePointer::ClearAll => {
            db.execute("DELETE FROM draft_active WHERE slug = ?1", args![&d.slug])
                .await?;
        }
    }
    match event {
        None => Ok(None),
        Some(payload) => db
            .append_event(
                EventKind::DraftUpdated.as_str(),
                d.ask_id.as_deref(),
                payload,
                &d.updated_at,
                None,
            )
            .await
            .map(Some),
    }
}

async fn save_draft(db: &mut Db<'_>, save: DraftSave) -> StoreResult<Option<Event>> {
    if let Some((status, ask_id)) = &save.expect {
        // Inside the write (SQLite's writer, PostgreSQL's write lock): no other write lands
        // on the row between this read and the write below.
        let current = load_draft(db, &save.draft.slug).await?;
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
    save_draft_in(db, &save.draft, &save.active, save.event).await
}

async fn launch_draft(
    db: &mut Db<'_>,
    ask: NewAsk,
    draft: Draft,
    event: Value,
) -> StoreResult<Created> {
    let mut created = create_in(db, ask).await?;
    let mut draft = draft;
    draft.status = "launched".into();
    draft.ask_id = Some(created.ask.id.clone());
    let mut event = event;
    if let Some(o) = event.as_object_mut() {
        o.insert("status".into(), json!("launched"));
        o.insert("askId".into(), json!(created.ask.id));
    }
    if let Some(e) = save_draft_in(db, &draft, &ActivePointer::Keep, Some(event)).await? {
        created.events.push(e);
    }
    Ok(created)
}

async fn drafts(db: &mut Db<'_>, session_id: Option<&str>) -> StoreResult<Vec<Draft>> {
    let sql = format!(
        "SELECT {DRAFT_COLUMNS} FROM drafts WHERE (CAST(?1 AS TEXT) IS NULL OR session_id = ?1)
         ORDER BY updated_at DESC, {} DESC",
        db.dialect().insert_order()
    );
    let rows = db.fetch_all(&sql, args![session_id]).await?;
    rows.iter().map(draft_from_row).collect()
}

#[async_trait]
impl<B: Backend> DraftStore for B {
    async fn draft(&self, slug: &str) -> StoreResult<Option<Draft>> {
        let slug = slug.to_string();
        run!(read, self, |db| load_draft(&mut db, &slug))
    }

    async fn draft_by_ask(&self, ask_id: &str) -> StoreResult<Option<Draft>> {
        let ask_id = ask_id.to_string();
        run!(read, self, |db| async move {
            let sql = format!(
                "SELECT {DRAFT_COLUMNS} FROM drafts WHERE ask_id = ?1 ORDER BY updated_at DESC LIMIT 1"
            );
            let row = db.fetch_optional(&sql, args![&ask_id]).await?;
            row.as_ref().map(draft_from_row).transpose()
        })
    }

    async fn drafts(&self, session_id: Option<&str>) -> StoreResult<Vec<Draft>> {
        let session_id = session_id.map(str::to_string);
        run!(read, self, |db| drafts(&mut db, session_id.as_deref()))
    }

    async fn active_drafts(&self) -> StoreResult<Vec<(String, String)>> {
        run!(read, self, |db| async move {
            let rows = db
                .fetch_all(
                    "SELECT session_id, slug FROM draft_active ORDER BY session_id",
                    &[],
                )
                .await?;
            rows.iter()
                .map(|r| Ok((r.get("session_id")?, r.get("slug")?)))
                .collect()
        })
    }

    async fn active_draft(&self, session_id: &str) -> StoreResult<Option<String>> {
        let session_id = session_id.to_string();
        run!(read, self, |db| async move {
            let row = db
                .fetch_optional(
                    "SELECT slug FROM draft_active WHERE session_id = ?1",
                    args![&session_id],
                )
                .await?;
            row.map(|r| r.get("slug")).transpose()
        })
    }

    async fn save_draft(&self, save: DraftSave) -> StoreResult<Option<Event>> {
        run!(write, self, |db| save_draft(&mut db, save))
    }

    async fn launch_draft(&self, ask: NewAsk, draft: Draft, event: Value) -> StoreResult<Created> {
        run!(write, self, |db| launch_draft(&mut db, ask, draft, event))
    }
}

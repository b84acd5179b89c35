//! The ask service: every operation on an ask, kind by kind, between the HTTP handlers and
//! the store. Validation is the core's; durability is the store's; this module decides
//! which rule applies and shapes what goes back.
//!
//! Data flows one way: request → core validation → store (write-ahead) → hub (fan-out) →
//! response. Nothing here reaches back into the HTTP layer.

use std::time::Duration;

use askd_core::Problem;
use askd_core::json::Json;
use askd_core::questions::{self, QuestionsSpec};
use askd_core::survey::answers::{AnswerEntry, validate_bank, validate_submit};
use askd_core::survey::path::{self, Graph, PathAnswer};
use askd_core::survey::result::{self as shapes, Preflight};
use askd_core::survey::{SurveySpec, autosave, resolve, validate};
use askd_store::{
    Ask, AskState, NewAsk, NewBanked, NewSession, Session, Settlement, StoreError, Supersede,
};
use axum::http::StatusCode;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use crate::Daemon;
use crate::error::{ApiError, ApiResult};

/// The ask kinds this daemon knows.
pub const KINDS: &[&str] = &["survey", "questions", "review"];

/// A request to create an ask.
pub struct CreateAsk<'a> {
    pub kind: &'a str,
    pub session_id: Option<&'a str>,
    /// The tool arguments (`{"survey": …}` for a survey, `{"questions": […]}` for questions);
    /// a survey's arguments may also be raw text (lenient resolution).
    pub args: Json<'a>,
    /// `replaces` given beside the arguments (the arguments may carry it too).
    pub replaces: Option<&'a str>,
    /// An agent's call: an identical ask whose result is undelivered is returned instead of
    /// a new one (clients.md §2.5).
    pub return_undelivered: bool,
}

/// The outcome of a create: the ask, and whether it is new or re-attached.
pub struct CreatedAsk {
    pub ask: Ask,
    pub created: bool,
}

fn sha256_hex(text: &str) -> String {
    Sha256::digest(text.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

fn survey_spec(ask: &Ask) -> ApiResult<SurveySpec> {
    serde_json::from_value(ask.payload.clone()).map_err(|e| {
        ApiError::internal(format!(
            "stored survey spec of {} is unreadable: {e}",
            ask.id
        ))
    })
}

fn questions_spec(ask: &Ask) -> ApiResult<QuestionsSpec> {
    serde_json::from_value(ask.payload.clone()).map_err(|e| {
        ApiError::internal(format!(
            "stored questions of {} are unreadable: {e}",
            ask.id
        ))
    })
}

fn banked_entries(ask: &Ask) -> ApiResult<Vec<AnswerEntry>> {
    ask.banked
        .iter()
        .map(|b| {
            serde_json::from_value(b.entry.clone()).map_err(|e| {
                ApiError::internal(format!(
                    "stored banked answer of {} is unreadable: {e}",
                    ask.id
                ))
            })
        })
        .collect()
}

fn invalid_answers(problems: Vec<Problem>) -> ApiError {
    ApiError::invalid("invalid-answers", None, problems)
}

/// Where a questions answer came from (`clients.md` §3): the body's `surface`, `page` when
/// absent. The result and the record carry it.
const QUESTIONS_SURFACES: [&str; 3] = ["page", "terminal", "client-form"];

fn questions_surface(body: &Json<'_>) -> ApiResult<&'static str> {
    let got = body.as_object().and_then(|o| o.get_present("surface"));
    let Some(got) = got else {
        return Ok("page");
    };
    if let Some(s) = got.as_str()
        && let Some(known) = QUESTIONS_SURFACES.iter().find(|k| **k == s)
    {
        return Ok(known);
    }
    let shown = match got.as_str() {
        Some(s) => format!("{s:?}"),
        None => got.kind().to_string(),
    };
    Err(invalid_answers(vec![Problem::new(
        "surface",
        "surface_unknown",
        format!(
            "surface must be one of page, terminal, client-form (got {shown}) — or omit it for page"
        ),
    )]))
}

fn require_pending(ask: &Ask) -> ApiResult<()> {
    if ask.state == AskState::Pending {
        Ok(())
    } else {
        Err(ApiError::not_pending(&ask.id))
    }
}

fn wrong_kind(ask: &Ask, action: &str) -> ApiError {
    ApiError::new(
        StatusCode::UNPROCESSABLE_ENTITY,
        "unsupported-action",
        format!(
            "{action} applies to survey asks; ask {} is of kind {:?}",
            ask.id, ask.kind
        ),
    )
}

/// The tool-error code of a cancelled or aborted ask of this kind.
fn error_code(kind: &str, outcome: &str) -> &'static str {
    match (kind, outcome) {
        ("survey", "cancelled") => "SURVEY_CANCELLED",
        ("survey", _) => "SURVEY_ABORTED",
        (_, "cancelled") => "ASK_CANCELLED",
        _ => "ASK_ABORTED",
    }
}

fn error_message(kind: &str, outcome: &str) -> &'static str {
    match (kind, outcome) {
        ("survey", "cancelled") => shapes::CANCELLED_MESSAGE,
        ("survey", _) => shapes::ABORTED_MESSAGE,
        (_, "cancelled") => "the user cancelled the question",
        _ => "ask_user_question was aborted before the user answered",
    }
}

/// The instruction of a pending handle for a non-survey ask.
const PENDING_QUESTIONS: &str = "The user has not answered yet, and nothing is lost. Call await_answer with this ask_id to keep waiting. Do not answer on the user's behalf.";

impl Daemon {
    pub fn ask_url(&self, ask_id: &str) -> String {
        format!("{}/a/{ask_id}", self.base_url)
    }

    pub async fn open_session(&self, s: NewSession) -> ApiResult<Session> {
        self.store
            .open_session(s)
            .await
            .map_err(|e| ApiError::store(e, "-"))
    }

    /// The session an API call without one uses.
    async fn default_session(&self) -> ApiResult<String> {
        let s = self
            .open_session(NewSession {
                id: Some("http".into()),
                client: "http".into(),
                workspace: None,
            })
            .await?;
        Ok(s.id)
    }

    pub async fn load(&self, ask_id: &str) -> ApiResult<Ask> {
        self.store
            .ask(ask_id)
            .await
            .map_err(|e| ApiError::store(e, ask_id))?
            .ok_or_else(|| ApiError::not_found(&format!("ask {ask_id}")))
    }

    /// Validates and stores a new ask, or re-attaches to an identical pending one.
    pub async fn create(&self, req: CreateAsk<'_>) -> ApiResult<CreatedAsk> {
        let session_id = match req.session_id {
            Some(s) => s.to_string(),
            None => self.default_session().await?,
        };
        let mut new = match req.kind {
            "survey" => self.new_survey(&session_id, req.args, req.replaces).await?,
            "review" => self.new_review(&session_id, &req.args).await?,
            "questions" => {
                let spec = questions::validate(&req.args).map_err(|p| {
                    ApiError::invalid("QUESTIONS_BAD_SPEC", Some("invalid questions"), p)
                })?;
                let payload =
                    serde_json::to_value(&spec).map_err(|e| ApiError::internal(e.to_string()))?;
                // The first question names the ask in lists (the inbox, `askd asks list`, the
                // terminal UI): ask_user_question has no title of its own.
                let title = spec.questions.first().map(|q| {
                    let text = q.question.split_whitespace().collect::<Vec<_>>().join(" ");
                    match text.char_indices().nth(140) {
                        Some((cut, _)) => format!("{}…", &text[..cut]),
                        None => text,
                    }
                });
                NewAsk {
                    id: uuid::Uuid::now_v7().to_string(),
                    session_id: session_id.clone(),
                    kind: "questions".into(),
                    title,
                    payload_key: sha256_hex(&payload.to_string()),
                    payload,
                    fingerprint: None,
                    replaces: None,
                    seed_banked: Vec::new(),
                    seed_autosave: None,
                    return_undelivered: false,
                }
            }
            other => {
                return Err(ApiError::new(
                    StatusCode::UNPROCESSABLE_ENTITY,
                    "unknown-kind",
                    format!(
                        "kind {other:?} is not an ask kind — use one of: {}",
                        KINDS.join(", ")
                    ),
                ));
            }
        };
        new.return_undelivered = req.return_undelivered;
        let superseded = new
            .replaces
            .as_ref()
            .map(|s| (s.ask_id.clone(), s.settlement.clone()));
        let created = self
            .store
            .create_ask(new)
            .await
            .map_err(|e| ApiError::store(e, "-"))?;
        let settled_old = created.events.iter().any(|e| e.kind == "ask.settled");
        let mut events = created.events;
        if let (true, Some((old_id, _))) = (settled_old, &superseded) {
            // A superseded ask that a draft launched reopens that draft (survey.md §10.3).
            events.extend(self.draft_on_settle(old_id, "superseded").await);
        }
        self.hub.publish(events);
        if let (true, Some((old_id, settlement))) = (settled_old, superseded)
            && let Ok(old) = self.load(&old_id).await
        {
            self.workspace_copy(&old, &settlement).await;
        }
        Ok(CreatedAsk {
            ask: created.ask,
            created: created.created,
        })
    }

    /// Validates a survey's or questions' arguments exactly as [`Self::create`] would, and
    /// writes nothing (no session, no ask): the MCP layer checks a connection's first ask
    /// before it records the connection's session (`alignment.md` §4.1).
    pub fn check(&self, kind: &str, args: Json<'_>) -> ApiResult<()> {
        match kind {
            "survey" => {
                let resolved = resolve::resolve(args).map_err(|p| {
                    ApiError::invalid("SURVEY_BAD_SPEC", Some("invalid survey argument"), vec![p])
                })?;
                validate(&resolved.survey).map_err(|p| {
                    ApiError::invalid("SURVEY_BAD_SPEC", Some("invalid survey spec"), p)
                })?;
            }
            "questions" => {
                questions::validate(&args).map_err(|p| {
                    ApiError::invalid("QUESTIONS_BAD_SPEC", Some("invalid questions"), p)
                })?;
            }
            other => {
                return Err(ApiError::new(
                    StatusCode::UNPROCESSABLE_ENTITY,
                    "unknown-kind",
                    format!("kind {other:?} has no argument check — use survey or questions"),
                ));
            }
        }
        Ok(())
    }

    pub(crate) async fn new_survey(
        &self,
        session_id: &str,
        args: Json<'_>,
        replaces: Option<&str>,
    ) -> ApiResult<NewAsk> {
        let resolved = resolve::resolve(args).map_err(|p| {
            ApiError::invalid("SURVEY_BAD_SPEC", Some("invalid survey argument"), vec![p])
        })?;
        let spec = validate(&resolved.survey)
            .map_err(|p| ApiError::invalid("SURVEY_BAD_SPEC", Some("invalid survey spec"), p))?;
        let payload = serde_json::to_value(&spec).map_err(|e| ApiError::internal(e.to_string()))?;
        let fingerprint = shapes::fingerprint(&spec);
        let mut new = NewAsk {
            id: uuid::Uuid::now_v7().to_string(),
            session_id: session_id.to_string(),
            kind: "survey".into(),
            title: spec.title.clone(),
            payload_key: sha256_hex(&payload.to_string()),
            payload,
            fingerprint: Some(fingerprint.clone()),
            replaces: None,
            seed_banked: Vec::new(),
            seed_autosave: None,
            return_undelivered: false,
        };
        let Some(old_id) = replaces.or(resolved.replaces()) else {
            return Ok(new);
        };
        let old = self.load(old_id).await?;
        if old.session_id != session_id || old.kind != "survey" {
            return Err(ApiError::new(
                StatusCode::UNPROCESSABLE_ENTITY,
                "replaces-foreign",
                format!(
                    "replaces names ask {old_id}, which is not a survey of this session — pass the ask_id of a survey this session asked"
                ),
            ));
        }
        // Seeding (§9.4): same fingerprint, from a pending, cancelled or aborted ask.
        let seedable = old.fingerprint.as_deref() == Some(fingerprint.as_str())
            && (old.state == AskState::Pending
                || matches!(old.outcome.as_deref(), Some("cancelled" | "aborted")));
        if seedable {
            let mut kept: Vec<AnswerEntry> = Vec::new();
            for e in banked_entries(&old)? {
                let body = json!({"answers": [e]});
                let text = body.to_string();
                if let Ok(parsed) = askd_core::json::parse(&text)
                    && let Ok(mut fresh) = validate_bank(&spec, &kept, &parsed)
                {
                    kept.append(&mut fresh);
                }
            }
            if let Some(a) = &old.autosave {
                let ids: Vec<&str> = kept.iter().map(|e| e.id.as_str()).collect();
                new.seed_autosave = autosave::sanitize(&spec, &ids, &Json::from_value(a)).ok();
            }
            new.seed_banked = kept
                .into_iter()
                .map(|e| NewBanked {
                    question_id: e.id.clone(),
                    entry: json!(e),
                })
                .collect();
        }
        if old.state == AskState::Pending {
            let old_spec = survey_spec(&old)?;
            let settled_at = askd_store::now();
            let result = json!(shapes::superseded(&old_spec, &old.id));
            new.replaces = Some(Supersede {
                ask_id: old.id.clone(),
                settlement: Settlement {
                    outcome: "superseded".into(),
                    record: self.survey_record(&old, &old_spec, "superseded", &settled_at, None),
                    result,
                    settled_at,
                    expect_banked: None,
                },
            });
        }
        Ok(new)
    }

    /// §11.1: the full record of a survey ask.
    fn survey_record(
        &self,
        ask: &Ask,
        spec: &SurveySpec,
        outcome: &str,
        settled_at: &str,
        submission: Option<&askd_core::survey::answers::Submission>,
    ) -> Value {
        let mut r = json!({
            "v": 1,
            "surveyId": ask.id,
            "session": ask.session_id,
            "workspace": ask.workspace,
            "client": ask.client,
            "outcome": outcome,
            "createdAt": ask.created_at,
            "settledAt": settled_at,
        });
        if let Some(t) = &spec.title {
            r["title"] = json!(t);
        }
        if let Some(q) = submission.and_then(|s| s.quick.as_ref()) {
            r["quickTemplate"] = json!(q);
        }
        r["spec"] = ask.payload.clone();
        if !ask.banked.is_empty() {
            r["banked"] = Value::Array(
                ask.banked
                    .iter()
                    .map(|b| {
                        let mut e = b.entry.clone();
                        e["bankedAt"] = json!(b.banked_at);
                        e
                    })
                    .collect(),
            );
        }
        match submission {
            Some(s) => {
                r["answers"] = json!(s.answers);
                r["path"] = json!(s.path);
                r["skipped"] = json!(s.skipped);
            }
            None => r["autosave"] = ask.autosave.clone().unwrap_or(Value::Null),
        }
        r
    }

    /// The record of a non-survey ask.
    fn generic_record(
        &self,
        ask: &Ask,
        outcome: &str,
        settled_at: &str,
        answers: Option<&Value>,
    ) -> Value {
        let mut r = json!({
            "v": 1,
            "askId": ask.id,
            "kind": ask.kind,
            "session": ask.session_id,
            "workspace": ask.workspace,
            "client": ask.client,
            "outcome": outcome,
            "createdAt": ask.created_at,
            "settledAt": settled_at,
            "spec": ask.payload,
        });
        match answers {
            Some(result) => {
                r["answers"] = result["answers"].clone();
                r["skipped"] = result["skipped"].clone();
                if let Some(surface) = result.get("surface") {
                    r["surface"] = surface.clone();
                }
            }
            None => r["autosave"] = ask.autosave.clone().unwrap_or(Value::Null),
        }
        r
    }

    async fn settle(&self, ask: &Ask, settlement: Settlement) -> ApiResult<Value> {
        let event = self
            .store
            .settle(&ask.id, &settlement)
            .await
            .map_err(|e| ApiError::store(e, &ask.id))?;
        // The draft this survey was launched from follows the settle (survey.md §10.3),
        // before the waiter wakes, so the agent never sees a stale draft status.
        let drafts = if ask.kind == "survey" {
            self.draft_on_settle(&ask.id, &settlement.outcome).await
        } else {
            Vec::new()
        };
        self.hub.publish(std::iter::once(event).chain(drafts));
        if ask.kind == "survey" {
            self.workspace_copy(ask, &settlement).await;
        }
        Ok(settlement.result)
    }

    /// §11.3: after the settle commits, a copy of a survey's record goes to
    /// `<workspace>/.askd/surveys/` (when the session has a workspace and `workspaceRecords`
    /// is on). Written atomically; a failure is logged and never affects the settle.
    async fn workspace_copy(&self, ask: &Ask, settlement: &Settlement) {
        let Some(workspace) = ask
            .workspace
            .clone()
            .filter(|_| self.settings.workspace_records)
        else {
            return;
        };
        let name = askd_core::survey::records::workspace_file_name(
            &settlement.settled_at,
            ask.title.as_deref(),
            &ask.id,
        );
        let mut record = settlement.record.clone();
        record["workspaceRecord"] = json!(true);
        let ask_id = ask.id.clone();
        let written =
            tokio::task::spawn_blocking(move || -> std::io::Result<std::path::PathBuf> {
                let dir = std::path::Path::new(&workspace)
                    .join(".askd")
                    .join("surveys");
                std::fs::create_dir_all(&dir)?;
                let path = dir.join(&name);
                let text = serde_json::to_string_pretty(&record).unwrap_or_default() + "\n";
                crate::atomic::write(&path, text.as_bytes(), 0o666)?;
                Ok(path)
            })
            .await;
        match written {
            Ok(Ok(path)) => {
                tracing::debug!(ask = %ask_id, path = %path.display(), "workspace record written")
            }
            Ok(Err(e)) => {
                tracing::warn!(ask = %ask_id, error = %e, "cannot write the workspace record")
            }
            Err(e) => tracing::warn!(ask = %ask_id, error = %e, "workspace record task failed"),
        }
    }

    /// `POST /api/asks/{id}/bank` (§7.5): validated, committed, then acknowledged.
    pub async fn bank(&self, ask_id: &str, body: &Json<'_>) -> ApiResult<usize> {
        let ask = self.load(ask_id).await?;
        require_pending(&ask)?;
        if ask.kind != "survey" {
            return Err(wrong_kind(&ask, "bank"));
        }
        let spec = survey_spec(&ask)?;
        let banked = banked_entries(&ask)?;
        let fresh = validate_bank(&spec, &banked, body).map_err(invalid_answers)?;
        if fresh.is_empty() {
            return Ok(banked.len());
        }
        let rows: Vec<NewBanked> = fresh
            .iter()
            .map(|e| NewBanked {
                question_id: e.id.clone(),
                entry: json!(e),
            })
            .collect();
        let done = self.store.bank(ask_id, &rows).await.map_err(|e| match e {
            StoreError::Conflict(_) => ApiError::invalid(
                "invalid-answers",
                None,
                vec![Problem::new(
                    "answers",
                    "banked_conflict",
                    "another bank of the same question landed first — reload the ask and bank again",
                )],
            ),
            e => ApiError::store(e, ask_id),
        })?;
        self.hub.publish([done.event]);
        Ok(done.total)
    }

    /// `PUT /api/asks/{id}/draft` (§9.3): sanitised, never rejected unless not an object.
    pub async fn autosave(&self, ask_id: &str, body: &Json<'_>) -> ApiResult<(i64, String)> {
        let ask = self.load(ask_id).await?;
        require_pending(&ask)?;
        let clean = match ask.kind.as_str() {
            "survey" => {
                let spec = survey_spec(&ask)?;
                let ids: Vec<&str> = ask.banked.iter().map(|b| b.question_id.as_str()).collect();
                autosave::sanitize(&spec, &ids, body).map_err(|p| {
                    ApiError::new(
                        StatusCode::UNPROCESSABLE_ENTITY,
                        "invalid-autosave",
                        p.message,
                    )
                })?
            }
            "review" => crate::review::clean_draft(&ask, body)?,
            _ => {
                if body.as_object().is_none() {
                    return Err(ApiError::new(
                        StatusCode::UNPROCESSABLE_ENTITY,
                        "invalid-autosave",
                        format!("the autosave must be a JSON object, got {}", body.kind()),
                    ));
                }
                body.to_value()
            }
        };
        let saved = self
            .store
            .autosave(ask_id, &clean)
            .await
            .map_err(|e| ApiError::store(e, ask_id))?;
        self.hub.publish([saved.event]);
        Ok((saved.revision, saved.saved_at))
    }

    /// `POST /api/asks/{id}/submit`: validated against the recomputed path, settled once.
    pub async fn submit(&self, ask_id: &str, body: &Json<'_>) -> ApiResult<Value> {
        let ask = self.load(ask_id).await?;
        if ask.kind == "review" {
            return self.review_submit(ask_id, body).await;
        }
        if ask.kind == "drift" {
            return self.drift_submit(ask, body).await;
        }
        require_pending(&ask)?;
        let settled_at = askd_store::now();
        let settlement = match ask.kind.as_str() {
            "survey" => {
                let spec = survey_spec(&ask)?;
                let banked = banked_entries(&ask)?;
                let sub = validate_submit(&spec, &banked, body).map_err(invalid_answers)?;
                Settlement {
                    outcome: "answered".into(),
                    result: json!(shapes::answered(&spec, &ask.id, &sub)),
                    record: self.survey_record(&ask, &spec, "answered", &settled_at, Some(&sub)),
                    settled_at,
                    // Validated against these banked answers: a bank landing in between
                    // must not be contradicted by the settled result.
                    expect_banked: Some(ask.banked.len()),
                }
            }
            _ => {
                let spec = questions_spec(&ask)?;
                let answers = questions::validate_answers(&spec, body).map_err(invalid_answers)?;
                let surface = questions_surface(body)?;
                let mut result = questions::answered_result(&spec, &ask.id, &answers);
                result["surface"] = json!(surface);
                Settlement {
                    outcome: "answered".into(),
                    record: self.generic_record(&ask, "answered", &settled_at, Some(&result)),
                    result,
                    settled_at,
                    expect_banked: None,
                }
            }
        };
        self.settle(&ask, settlement).await
    }

    /// The human dismissed the ask.
    pub async fn cancel(&self, ask_id: &str) -> ApiResult<Value> {
        self.end(ask_id, "cancelled", None).await
    }

    /// The agent or an operator withdrew the ask. A settled ask returns its result unchanged.
    pub async fn withdraw(&self, ask_id: &str, reason: Option<&str>) -> ApiResult<Value> {
        let ask = self.load(ask_id).await?;
        if ask.state == AskState::Settled {
            return Ok(ask.result.unwrap_or(Value::Null));
        }
        match self.end(ask_id, "aborted", reason).await {
            // Lost a race with another settle: return whatever won.
            Err(e) if e.code == "not-pending" => {
                Ok(self.load(ask_id).await?.result.unwrap_or(Value::Null))
            }
            other => other,
        }
    }

    async fn end(&self, ask_id: &str, outcome: &str, reason: Option<&str>) -> ApiResult<Value> {
        let ask = self.load(ask_id).await?;
        if ask.kind == "review" {
            return self.review_end(ask_id, outcome, reason).await;
        }
        if ask.kind == "drift" {
            return self.drift_end(ask, outcome).await;
        }
        require_pending(&ask)?;
        let settled_at = askd_store::now();
        let mut error = json!({
            "code": error_code(&ask.kind, outcome),
            "message": error_message(&ask.kind, outcome),
            "ask_id": ask.id,
        });
        if let Some(r) = reason.filter(|r| !r.trim().is_empty()) {
            error["reason"] = json!(r);
        }
        let result = json!({"outcome": outcome, "ask_id": ask.id, "error": error});
        let mut record = match ask.kind.as_str() {
            "survey" => {
                let spec = survey_spec(&ask)?;
                self.survey_record(&ask, &spec, outcome, &settled_at, None)
            }
            _ => self.generic_record(&ask, outcome, &settled_at, None),
        };
        if let Some(r) = reason {
            record["reason"] = json!(r);
        }
        let settlement = Settlement {
            outcome: outcome.into(),
            result,
            record,
            settled_at,
            expect_banked: None,
        };
        self.settle(&ask, settlement).await
    }

    /// Reroll, Push or Discuss (§8.5): only before the first bank.
    pub async fn preflight(&self, ask_id: &str, action: &str) -> ApiResult<Value> {
        let ask = self.load(ask_id).await?;
        let Some(action) = Preflight::parse(action) else {
            return Err(ApiError::new(
                StatusCode::UNPROCESSABLE_ENTITY,
                "unknown-action",
                format!("pre-flight action {action:?} is not one of reroll, push, discuss"),
            ));
        };
        require_pending(&ask)?;
        if ask.kind != "survey" {
            return Err(wrong_kind(&ask, "pre-flight"));
        }
        if !ask.banked.is_empty() {
            return Err(ApiError::new(
                StatusCode::CONFLICT,
                "preflight-closed",
                format!(
                    "pre-flight actions are closed: {} answer(s) are already banked",
                    ask.banked.len()
                ),
            ));
        }
        let spec = survey_spec(&ask)?;
        let settled_at = askd_store::now();
        let settlement = Settlement {
            outcome: action.as_str().into(),
            result: json!(shapes::preflight(&spec, &ask.id, action)),
            record: self.survey_record(&ask, &spec, action.as_str(), &settled_at, None),
            settled_at,
            // Pre-flight is closed by the first bank, even one that lands right now.
            expect_banked: Some(0),
        };
        self.settle(&ask, settlement).await
    }

    /// Waits up to `timeout` (None: until settled) and returns the result, or the pending
    /// handle when the budget runs out first.
    pub async fn wait(&self, ask_id: &str, timeout: Option<Duration>) -> ApiResult<Value> {
        let deadline = timeout.map(|t| tokio::time::Instant::now() + t);
        loop {
            let waiter = self.hub.waiter(ask_id);
            let notified = waiter.notify().notified();
            tokio::pin!(notified);
            notified.as_mut().enable();
            let ask = self.load(ask_id).await?;
            if ask.state == AskState::Settled {
                return Ok(self.deliver(ask).await);
            }
            match deadline {
                Some(d) => {
                    if tokio::time::timeout_at(d, notified).await.is_err() {
                        // The budget is spent: answer from the store as it is now, not
                        // from the snapshot read before sleeping (a settle this daemon
                        // was not told about — another process's — is returned too).
                        let ask = self.load(ask_id).await?;
                        if ask.state == AskState::Settled {
                            return Ok(self.deliver(ask).await);
                        }
                        return self.pending_handle(&ask);
                    }
                }
                None => notified.await,
            }
        }
    }

    /// A settled ask's result, handed to the agent call that waited for it: from now on it
    /// is delivered, so an identical repeat call creates a new ask (clients.md §2.5).
    async fn deliver(&self, ask: Ask) -> Value {
        if ask.delivered_at.is_none()
            && let Err(e) = self.store.mark_delivered(&ask.id).await
        {
            tracing::warn!(ask = %ask.id, error = %e, "could not record the result's delivery");
        }
        ask.result.unwrap_or(Value::Null)
    }

    pub fn pending_handle(&self, ask: &Ask) -> ApiResult<Value> {
        let url = self.ask_url(&ask.id);
        Ok(match ask.kind.as_str() {
            "survey" => json!(shapes::pending(&survey_spec(ask)?, &ask.id, &url)),
            "review" => self.review_pending(ask),
            "drift" => self.drift_pending(ask),
            _ => {
                json!({"outcome": "pending", "ask_id": ask.id, "url": url, "instruction": PENDING_QUESTIONS})
            }
        })
    }

    /// The path for a map of answers `{id: {selected, custom?, skipped?}}`.
    pub fn path(&self, ask: &Ask, body: &Json<'_>) -> ApiResult<Vec<String>> {
        if ask.kind != "survey" {
            return Err(wrong_kind(ask, "path"));
        }
        let spec = survey_spec(ask)?;
        let mut answers: indexmap::IndexMap<String, PathAnswer> = indexmap::IndexMap::new();
        if let Some(map) = body
            .as_object()
            .and_then(|o| o.get("answers"))
            .and_then(Json::as_object)
        {
            for (id, a) in map.iter() {
                let Some(a) = a.as_object() else { continue };
                let selected = a
                    .get("selected")
                    .and_then(Json::as_array)
                    .unwrap_or(&[])
                    .iter()
                    .filter_map(Json::as_str)
                    .map(str::to_string)
                    .collect();
                answers.insert(
                    id.to_string(),
                    PathAnswer {
                        selected,
                        custom: a.get("custom").and_then(Json::as_str).map(str::to_string),
                        skipped: a.get("skipped").and_then(Json::as_bool).unwrap_or(false),
                    },
                );
            }
        }
        // Banked answers are locked: they route the path whatever the body says.
        for b in banked_entries(ask)? {
            answers.insert(
                b.id.clone(),
                PathAnswer {
                    selected: b.selected,
                    custom: b.custom,
                    skipped: b.skipped,
                },
            );
        }
        let graph = Graph::from_spec(&spec);
        Ok(path::compute(&graph, &answers)
            .into_iter()
            .map(str::to_string)
            .collect())
    }

    /// The ask as the UI reads it (§12.16), with Markdown rendered beside the source.
    pub fn view(&self, ask: &Ask) -> ApiResult<Value> {
        let mut v = json!({
            "ask_id": ask.id,
            "kind": ask.kind,
            "session": ask.session_id,
            "client": ask.client,
            "workspace": ask.workspace,
            "state": ask.state,
            "createdAt": ask.created_at,
            "url": self.ask_url(&ask.id),
            "awaited": ask.awaited,
            "spec": ask.payload,
            "banked": ask.banked.iter().map(|b| {
                let mut e = b.entry.clone();
                e["bankedAt"] = json!(b.banked_at);
                e
            }).collect::<Vec<_>>(),
            "autosave": ask.autosave,
            "autosaveRevision": ask.autosave_revision,
            "preflightOpen": ask.kind == "survey" && ask.state == AskState::Pending && ask.banked.is_empty(),
        });
        if let Some(t) = &ask.title {
            v["title"] = json!(t);
        }
        v["rendered"] = match ask.kind.as_str() {
            "survey" => crate::render::survey(&survey_spec(ask)?),
            "review" | "drift" => Value::Null,
            _ => crate::render::questions(&questions_spec(ask)?),
        };
        if ask.kind == "review" {
            self.review_view(ask, &mut v)?;
        }
        if ask.state == AskState::Settled {
            v["outcome"] = json!(ask.outcome);
            v["settledAt"] = json!(ask.settled_at);
            v["result"] = ask.result.clone().unwrap_or(Value::Null);
        }
        Ok(v)
    }
}

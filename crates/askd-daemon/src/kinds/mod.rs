//! The rooms: one module per ask kind, behind [`AskKind`]. Each room holds what its kind
//! does at every step — create, bank, autosave, submit, end (cancel, withdraw), the view,
//! the pending handle and the record — and this module dispatches each operation on the
//! ask's kind. The life cycle the kinds share (load, commit a settle, wait, deliver) is
//! [`crate::asks`].
//!
//! # Layout
//! - [`survey`] — `ask_survey`: create with `replaces`, bank, pre-flight, the path, the
//!   record and its workspace copy.
//! - [`drafts`] — the survey builder (`survey_draft_*`): draft files, the manifest, launch
//!   and the settle transitions of a launched draft.
//! - [`questions`] — `ask_user_question`.
//! - [`review`] — `batch_review`: create, the locked settle with `persist`, export, import.
//! - [`drift`] — drift cards: `report_drift`, the card's answer, its view.

pub mod drafts;
pub mod drift;
pub mod questions;
pub mod review;
pub mod survey;

use askd_core::{EventKind, Outcome};
use std::time::Duration;

use askd_core::AskKind;
use askd_core::json::Json;
use askd_core::survey::result::Preflight;
use askd_store::{Ask, AskState, Settlement};
use axum::http::StatusCode;
use serde_json::{Value, json};

use crate::asks::{Waited, require_pending};
use crate::daemon::Daemon;
use crate::error::{ApiError, ApiResult};

/// A request to create an ask.
pub struct CreateAsk<'a> {
    /// The requested kind, as the caller named it (checked here: one of
    /// [`AskKind::CREATABLE`]).
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

/// The kind of a stored ask (the store keeps the string; an unknown one is an internal
/// error, never a guess).
pub fn kind_of(ask: &Ask) -> ApiResult<AskKind> {
    AskKind::parse(&ask.kind)
        .map_err(|e| ApiError::internal(format!("ask {} has a stored kind that {e}", ask.id)))
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

/// 422 `unknown-kind` for a kind an agent cannot create.
fn unknown_kind(other: &str) -> ApiError {
    let kinds: Vec<&str> = AskKind::CREATABLE.iter().map(|k| k.as_str()).collect();
    ApiError::new(
        StatusCode::UNPROCESSABLE_ENTITY,
        "unknown-kind",
        format!(
            "kind {other:?} is not an ask kind — use one of: {}",
            kinds.join(", ")
        ),
    )
}

impl Daemon {
    /// Validates and stores a new ask, or re-attaches to an identical pending one.
    pub async fn create(&self, req: CreateAsk<'_>) -> ApiResult<CreatedAsk> {
        let session_id = match req.session_id {
            Some(s) => s.to_string(),
            None => self.default_session().await?,
        };
        let kind = AskKind::parse(req.kind).map_err(|_| unknown_kind(req.kind))?;
        let mut new = match kind {
            AskKind::Survey => self.new_survey(&session_id, req.args, req.replaces).await?,
            AskKind::Review => self.new_review(&session_id, &req.args).await?,
            AskKind::Questions => questions::new_ask(&session_id, &req.args)?,
            AskKind::Drift => return Err(unknown_kind(req.kind)),
        };
        new.return_undelivered = req.return_undelivered && crate::asks::returns_undelivered(kind);
        let superseded = new
            .replaces
            .as_ref()
            .map(|s| (s.ask_id.clone(), s.settlement.clone()));
        let created = self
            .store
            .create_ask(new)
            .await
            .map_err(|e| ApiError::store(e, "-"))?;
        let settled_old = created
            .events
            .iter()
            .any(|e| e.kind == EventKind::AskSettled);
        let mut events = created.events;
        if let (true, Some((old_id, _))) = (settled_old, &superseded) {
            // A superseded ask that a draft launched reopens that draft (survey.md §10.3).
            events.extend(
                self.draft_on_settle(old_id, Outcome::Superseded.as_str())
                    .await,
            );
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
        match AskKind::parse(kind) {
            Ok(AskKind::Survey) => survey::check(args),
            Ok(AskKind::Questions) => questions::check(&args),
            Ok(AskKind::Review | AskKind::Drift) | Err(_) => Err(ApiError::new(
                StatusCode::UNPROCESSABLE_ENTITY,
                "unknown-kind",
                format!("kind {kind:?} has no argument check — use survey or questions"),
            )),
        }
    }

    /// `POST /api/asks/{id}/bank` (§7.5): validated, committed, then acknowledged.
    pub async fn bank(&self, ask_id: &str, body: &Json<'_>) -> ApiResult<usize> {
        let ask = self.load(ask_id).await?;
        require_pending(&ask)?;
        match kind_of(&ask)? {
            AskKind::Survey => self.survey_bank(&ask, body).await,
            _ => Err(wrong_kind(&ask, "bank")),
        }
    }

    /// `PUT /api/asks/{id}/draft` (§9.3): sanitised, never rejected unless not an object.
    pub async fn autosave(&self, ask_id: &str, body: &Json<'_>) -> ApiResult<(i64, String)> {
        let ask = self.load(ask_id).await?;
        require_pending(&ask)?;
        let clean = match kind_of(&ask)? {
            AskKind::Survey => survey::clean_autosave(&ask, body)?,
            AskKind::Review => review::clean_draft(&ask, body)?,
            AskKind::Questions | AskKind::Drift => {
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
        let kind = kind_of(&ask)?;
        match kind {
            AskKind::Review => return self.review_submit(ask_id, body).await,
            AskKind::Drift => return self.drift_submit(ask, body).await,
            AskKind::Survey | AskKind::Questions => {}
        }
        require_pending(&ask)?;
        let settlement = match kind {
            AskKind::Survey => self.survey_submit(&ask, body)?,
            _ => questions::submit(&ask, body)?,
        };
        self.settle(kind, &ask, settlement).await
    }

    /// The human dismissed the ask.
    pub async fn cancel(&self, ask_id: &str) -> ApiResult<Value> {
        self.end(ask_id, Outcome::Cancelled, None).await
    }

    /// The agent or an operator withdrew the ask. A settled ask returns its result unchanged.
    pub async fn withdraw(&self, ask_id: &str, reason: Option<&str>) -> ApiResult<Value> {
        let ask = self.load(ask_id).await?;
        if ask.state == AskState::Settled {
            return Ok(ask.result.unwrap_or(Value::Null));
        }
        match self.end(ask_id, Outcome::Aborted, reason).await {
            // Lost a race with another settle: return whatever won.
            Err(e) if e.code == "not-pending" => {
                Ok(self.load(ask_id).await?.result.unwrap_or(Value::Null))
            }
            other => other,
        }
    }

    /// Cancel or withdraw, kind by kind.
    async fn end(&self, ask_id: &str, outcome: Outcome, reason: Option<&str>) -> ApiResult<Value> {
        let ask = self.load(ask_id).await?;
        let kind = kind_of(&ask)?;
        match kind {
            AskKind::Review => return self.review_end(ask_id, outcome, reason).await,
            AskKind::Drift => return self.drift_end(ask, outcome).await,
            AskKind::Survey | AskKind::Questions => {}
        }
        require_pending(&ask)?;
        let settled_at = askd_store::now();
        let (code, message) = match kind {
            AskKind::Survey => (survey::error_code(outcome), survey::error_message(outcome)),
            _ => (
                questions::error_code(outcome),
                questions::error_message(outcome),
            ),
        };
        let mut error = json!({
            "code": code,
            "message": message,
            "ask_id": ask.id,
        });
        if let Some(r) = reason.filter(|r| !r.trim().is_empty()) {
            error["reason"] = json!(r);
        }
        let result = json!({"outcome": outcome, "ask_id": ask.id, "error": error});
        let mut record = match kind {
            AskKind::Survey => {
                let spec = survey::spec(&ask)?;
                survey::survey_record(&ask, &spec, outcome.as_str(), &settled_at, None)
            }
            _ => askd_core::record::ask_record(
                &crate::asks::recorded(&ask, None),
                kind,
                outcome.as_str(),
                &settled_at,
                None,
            ),
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
            delivered: outcome.delivered_on_settle(),
        };
        self.settle(kind, &ask, settlement).await
    }

    /// Commits a survey's or questions' settlement and publishes it (a survey's draft and
    /// workspace copy follow it).
    async fn settle(
        &self,
        kind: AskKind,
        ask: &Ask,
        mut settlement: Settlement,
    ) -> ApiResult<Value> {
        if kind == AskKind::Survey {
            return self.survey_settle(ask, settlement).await;
        }
        let events = self
            .commit_settle(&ask.id, &mut settlement, &[])
            .await
            .map_err(|e| ApiError::store(e, &ask.id))?;
        self.hub.publish(events);
        Ok(settlement.result)
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
        if kind_of(&ask)? != AskKind::Survey {
            return Err(wrong_kind(&ask, "pre-flight"));
        }
        let settlement = self.survey_preflight(&ask, action)?;
        self.survey_settle(&ask, settlement).await
    }

    /// Waits up to `timeout` (None: until settled) and returns the result, or the pending
    /// handle when the budget runs out first.
    pub async fn wait(&self, ask_id: &str, timeout: Option<Duration>) -> ApiResult<Value> {
        match self.wait_settled(ask_id, timeout).await? {
            Waited::Settled(result) => Ok(result),
            Waited::Pending(ask) => self.pending_handle(&ask),
        }
    }

    /// What a waiting agent gets while the ask is pending, kind by kind.
    pub fn pending_handle(&self, ask: &Ask) -> ApiResult<Value> {
        let url = self.ask_url(&ask.id);
        Ok(match kind_of(ask)? {
            AskKind::Survey => json!(askd_core::survey::result::pending(
                &survey::spec(ask)?,
                &ask.id,
                &url
            )),
            AskKind::Review => self.review_pending(ask),
            AskKind::Drift => self.drift_pending(ask),
            AskKind::Questions => questions::pending(ask, &url),
        })
    }

    /// The path for a map of answers `{id: {selected, custom?, skipped?}}` (surveys only).
    pub fn path(&self, ask: &Ask, body: &Json<'_>) -> ApiResult<Vec<String>> {
        if kind_of(ask)? != AskKind::Survey {
            return Err(wrong_kind(ask, "path"));
        }
        survey::path(ask, body)
    }

    /// The ask as the UI reads it (§12.16), with Markdown rendered beside the source.
    pub fn view(&self, ask: &Ask) -> ApiResult<Value> {
        let kind = kind_of(ask)?;
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
            "claim": ask.claim,
            "spec": ask.payload,
            "banked": ask.banked.iter().map(|b| {
                let mut e = b.entry.clone();
                e["bankedAt"] = json!(b.banked_at);
                e
            }).collect::<Vec<_>>(),
            "autosave": ask.autosave,
            "autosaveRevision": ask.autosave_revision,
            "preflightOpen": kind == AskKind::Survey && ask.state == AskState::Pending && ask.banked.is_empty(),
        });
        if let Some(t) = &ask.title {
            v["title"] = json!(t);
        }
        v["rendered"] = match kind {
            AskKind::Survey => crate::render::survey(&survey::spec(ask)?),
            AskKind::Review | AskKind::Drift => Value::Null,
            AskKind::Questions => crate::render::questions(&questions::spec(ask)?),
        };
        if kind == AskKind::Review {
            self.review_view(ask, &mut v)?;
        }
        if ask.state == AskState::Settled {
            v["outcome"] = json!(ask.outcome);
            v["settledAt"] = json!(ask.settled_at);
            v["result"] = ask.result.clone().unwrap_or(Value::Null);
        }
        Ok(v)
    }

    /// `GET /api/asks/{id}`: [`Self::view`] plus what needs the session's alignment — a
    /// drift card's `drift` member, a question ask's `repeats`.
    pub async fn show(&self, ask: &Ask) -> ApiResult<Value> {
        let mut view = self.view(ask)?;
        match kind_of(ask)? {
            AskKind::Drift => self.drift_view(ask, &mut view).await?,
            AskKind::Questions | AskKind::Survey => {
                view["repeats"] = self
                    .alignment()
                    .repeats(ask, self.settings.alignment_mode)
                    .await?;
            }
            AskKind::Review => {}
        }
        Ok(view)
    }
}

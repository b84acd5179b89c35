//! The survey room (`ask_survey`, `survey.md`): create (lenient resolution, validation,
//! `replaces` with seeding and supersede), bank, autosave, submit, pre-flight, the branch
//! path, the pending handle, the record (§11.1) and its workspace copy (§11.3). The
//! question builder that launches surveys is [`super::drafts`].

use askd_core::AskKind;
use askd_core::Outcome;
use askd_core::Problem;
use askd_core::json::Json;
use askd_core::record::RecordedBank;
use askd_core::survey::answers::{AnswerEntry, Submission, validate_bank, validate_submit};
use askd_core::survey::path::{self, Graph, PathAnswer};
use askd_core::survey::result::{self as shapes, Preflight};
use askd_core::survey::{SurveySpec, autosave, resolve, validate};
use askd_store::{Ask, AskState, Event, NewAsk, NewBanked, Settlement, StoreError, Supersede};
use axum::http::StatusCode;
use serde_json::{Value, json};

use super::{CreateAsk, Room, commit, ended};
use crate::asks::{invalid_answers, recorded, require_pending, sha256_hex};
use crate::daemon::Daemon;
use crate::error::{ApiError, ApiResult};

/// The stored normal form of a survey ask.
pub fn spec(ask: &Ask) -> ApiResult<SurveySpec> {
    serde_json::from_value(ask.payload.clone()).map_err(|e| {
        ApiError::internal(format!(
            "stored survey spec of {} is unreadable: {e}",
            ask.id
        ))
    })
}

/// The banked answers of a survey ask, as the core reads them.
pub fn banked_entries(ask: &Ask) -> ApiResult<Vec<AnswerEntry>> {
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

/// The tool-error code of a cancelled or aborted survey.
fn error_code(outcome: Outcome) -> &'static str {
    match outcome {
        Outcome::Cancelled => "SURVEY_CANCELLED",
        _ => "SURVEY_ABORTED",
    }
}

fn error_message(outcome: Outcome) -> &'static str {
    match outcome {
        Outcome::Cancelled => shapes::CANCELLED_MESSAGE,
        _ => shapes::ABORTED_MESSAGE,
    }
}

fn bad_argument(p: Problem) -> ApiError {
    ApiError::invalid("SURVEY_BAD_SPEC", Some("invalid survey argument"), vec![p])
}

fn bad_spec(p: Vec<Problem>) -> ApiError {
    ApiError::invalid("SURVEY_BAD_SPEC", Some("invalid survey spec"), p)
}

/// The survey room.
pub struct Survey;

impl Room for Survey {
    const KIND: AskKind = AskKind::Survey;

    /// Validates survey arguments into the ask to create; with `replaces`, seeds it from
    /// the old ask (§9.4) and supersedes the old one when it is still pending.
    async fn admit(&self, d: &Daemon, session_id: &str, req: &CreateAsk<'_>) -> ApiResult<NewAsk> {
        let resolved = resolve::resolve(req.args.clone()).map_err(bad_argument)?;
        let spec = validate(&resolved.survey).map_err(bad_spec)?;
        let payload = serde_json::to_value(&spec).map_err(|e| ApiError::internal(e.to_string()))?;
        let fingerprint = shapes::fingerprint(&spec);
        let mut new = NewAsk {
            id: uuid::Uuid::now_v7().to_string(),
            session_id: session_id.to_string(),
            kind: AskKind::Survey.as_str().into(),
            title: spec.title.clone(),
            payload_key: sha256_hex(&payload.to_string()),
            payload,
            fingerprint: Some(fingerprint.clone()),
            replaces: None,
            seed_banked: Vec::new(),
            seed_autosave: None,
            return_undelivered: false,
            expiry: None,
            approvals: None,
        };
        let Some(old_id) = req.replaces.or(resolved.replaces()) else {
            return Ok(new);
        };
        let old = d.load(old_id).await?;
        if old.session_id != session_id || old.kind != AskKind::Survey.as_str() {
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
                || matches!(
                    old.outcome.as_deref().and_then(Outcome::parse),
                    Some(Outcome::Cancelled | Outcome::Aborted)
                ));
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
            let old_spec = self::spec(&old)?;
            let settled_at = askd_store::now();
            let result = json!(shapes::superseded(&old_spec, &old.id));
            new.replaces = Some(Supersede {
                ask_id: old.id.clone(),
                settlement: Settlement {
                    outcome: Outcome::Superseded.into(),
                    record: survey_record(
                        &old,
                        &old_spec,
                        Outcome::Superseded.as_str(),
                        &settled_at,
                        None,
                    ),
                    result,
                    settled_at,
                    expect_banked: None,
                    submission: None,
                    delivered: Outcome::Superseded.delivered_on_settle(),
                },
            });
        }
        Ok(new)
    }

    /// Validates survey arguments exactly as a create would, writing nothing.
    fn check(&self, args: Json<'_>) -> ApiResult<()> {
        let resolved = resolve::resolve(args).map_err(bad_argument)?;
        validate(&resolved.survey).map_err(bad_spec)?;
        Ok(())
    }

    /// `POST /api/asks/{id}/bank` (§7.5) on a pending survey: validated, committed, then
    /// acknowledged. Returns the number of banked answers.
    async fn bank(&self, d: &Daemon, ask: &Ask, body: &Json<'_>) -> ApiResult<usize> {
        let spec = spec(ask)?;
        let banked = banked_entries(ask)?;
        let fresh = validate_bank(&spec, &banked, body).map_err(invalid_answers)?;
        if fresh.is_empty() {
            return Ok(banked.len());
        }
        // Each banked answer names who gave it (a member, a device, an agent's form).
        let by = crate::fence::answered_by();
        let rows: Vec<NewBanked> = fresh
            .iter()
            .map(|e| {
                let mut entry = json!(e);
                if let (Some(m), Some(o)) = (&by, entry.as_object_mut()) {
                    o.insert("answered_by".into(), m.clone());
                }
                NewBanked {
                    question_id: e.id.clone(),
                    entry,
                }
            })
            .collect();
        let done = d.store.bank(&ask.id, &rows).await.map_err(|e| match e {
            StoreError::Conflict(_) => ApiError::invalid(
                "invalid-answers",
                None,
                vec![Problem::new(
                    "answers",
                    "banked_conflict",
                    "another bank of the same question landed first — reload the ask and bank again",
                )],
            ),
            e => ApiError::store(e, &ask.id),
        })?;
        d.hub.publish([done.event]);
        Ok(done.total)
    }

    /// The sanitised autosave of a survey (§9.3).
    fn autosave(&self, ask: &Ask, body: &Json<'_>) -> ApiResult<Value> {
        let spec = spec(ask)?;
        let ids: Vec<&str> = ask.banked.iter().map(|b| b.question_id.as_str()).collect();
        autosave::sanitize(&spec, &ids, body).map_err(|p| {
            ApiError::new(
                StatusCode::UNPROCESSABLE_ENTITY,
                "invalid-autosave",
                p.message,
            )
        })
    }

    /// Validated against the recomputed path, settled once.
    async fn submit(&self, d: &Daemon, ask: Ask, body: &Json<'_>) -> ApiResult<Value> {
        require_pending(&ask)?;
        let settlement = answered(&ask, body)?;
        commit(self, d, &ask, settlement).await
    }

    async fn end(
        &self,
        d: &Daemon,
        ask: Ask,
        outcome: Outcome,
        reason: Option<&str>,
    ) -> ApiResult<Value> {
        require_pending(&ask)?;
        let settled_at = askd_store::now();
        let record = survey_record(&ask, &spec(&ask)?, outcome.as_str(), &settled_at, None);
        let words = (error_code(outcome), error_message(outcome));
        let settlement = ended(&ask, outcome, reason, words, record, settled_at);
        commit(self, d, &ask, settlement).await
    }

    fn pending(&self, d: &Daemon, ask: &Ask) -> ApiResult<Value> {
        Ok(json!(shapes::pending(
            &spec(ask)?,
            &ask.id,
            &d.ask_url(&ask.id)
        )))
    }

    fn view(&self, _: &Daemon, ask: &Ask, v: &mut Value) -> ApiResult<()> {
        v["rendered"] = crate::render::survey(&spec(ask)?);
        Ok(())
    }

    async fn show(&self, d: &Daemon, ask: &Ask, v: &mut Value) -> ApiResult<()> {
        d.repeats(ask, v).await
    }

    /// The draft the survey was launched from follows the settle (survey.md §10.3) before
    /// the waiter wakes, so the agent never sees a stale draft status.
    async fn settled(&self, d: &Daemon, ask: &Ask, settlement: &Settlement) -> Vec<Event> {
        d.builder().on_settle(&ask.id, &settlement.outcome).await
    }

    /// §11.3: after the settle commits, a copy of a survey's record goes to
    /// `<workspace>/.askd/surveys/` (when the session has a workspace and `workspaceRecords`
    /// is on). Written atomically; a failure is logged and never affects the settle.
    async fn published(&self, d: &Daemon, ask: &Ask, settlement: &Settlement) {
        workspace_copy(d, ask, settlement).await;
    }
}

impl Survey {
    /// Reroll, Push or Discuss (§8.5) on a pending survey: only before the first bank.
    pub(crate) async fn preflight(
        &self,
        d: &Daemon,
        ask: Ask,
        action: Preflight,
    ) -> ApiResult<Value> {
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
        let spec = spec(&ask)?;
        let settled_at = askd_store::now();
        let settlement = Settlement {
            outcome: action.as_str().into(),
            result: json!(shapes::preflight(&spec, &ask.id, action)),
            record: survey_record(&ask, &spec, action.as_str(), &settled_at, None),
            settled_at,
            // Pre-flight is closed by the first bank, even one that lands right now.
            expect_banked: Some(0),
            submission: None,
            delivered: action.outcome().delivered_on_settle(),
        };
        commit(self, d, &ask, settlement).await
    }
}

/// The settlement of a submitted survey, validated against the recomputed path; the result
/// carries `surface` (`page` unless the body names `terminal`, `cli`, `client-form` or `app`).
fn answered(ask: &Ask, body: &Json<'_>) -> ApiResult<Settlement> {
    let settled_at = askd_store::now();
    let spec = spec(ask)?;
    let banked = banked_entries(ask)?;
    let sub = validate_submit(&spec, &banked, body).map_err(invalid_answers)?;
    let mut result = json!(shapes::answered(&spec, &ask.id, &sub));
    // Where the answer came from (`clients.md` §3), as for questions: the body's `surface`
    // (a survey walked in the client's forms says `client-form`, the terminal `terminal`),
    // `page` when it names none.
    result["surface"] = json!(super::questions::surface(body)?);
    Ok(Settlement {
        outcome: Outcome::Answered.into(),
        result,
        record: survey_record(
            ask,
            &spec,
            Outcome::Answered.as_str(),
            &settled_at,
            Some(&sub),
        ),
        settled_at,
        // Validated against these banked answers: a bank landing in between
        // must not be contradicted by the settled result.
        expect_banked: Some(ask.banked.len()),
        submission: None,
        delivered: Outcome::Answered.delivered_on_settle(),
    })
}

/// The workspace copy of a settled survey's record ([`Survey::published`]).
async fn workspace_copy(d: &Daemon, ask: &Ask, settlement: &Settlement) {
    let Some(workspace) = ask
        .workspace
        .clone()
        .filter(|_| d.settings.workspace_records)
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
    let written = tokio::task::spawn_blocking(move || -> std::io::Result<std::path::PathBuf> {
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

/// The path for a map of answers `{id: {selected, custom?, skipped?}}`; banked answers are
/// locked and route the path whatever the body says.
pub fn path(ask: &Ask, body: &Json<'_>) -> ApiResult<Vec<String>> {
    let spec = spec(ask)?;
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

/// §11.1: the full record of a survey ask.
pub fn survey_record(
    ask: &Ask,
    spec: &SurveySpec,
    outcome: &str,
    settled_at: &str,
    submission: Option<&Submission>,
) -> Value {
    let banked: Vec<RecordedBank<'_>> = ask
        .banked
        .iter()
        .map(|b| RecordedBank {
            entry: &b.entry,
            banked_at: &b.banked_at,
        })
        .collect();
    askd_core::survey::records::survey_record(
        &recorded(ask, spec.title.as_deref()),
        &banked,
        outcome,
        settled_at,
        submission,
    )
}

//! The questions room (`ask_user_question`, flat questions): create, submit (with the
//! answer's `surface`), the pending handle and the record.

use askd_core::AskKind;
use askd_core::Outcome;
use askd_core::Problem;
use askd_core::json::Json;
use askd_core::questions::{self, QuestionsSpec};
use askd_core::record::ask_record;
use askd_store::{Ask, NewAsk, Settlement};
use serde_json::{Value, json};

use super::{CreateAsk, Room, commit, ended, object_autosave};
use crate::asks::{invalid_answers, recorded, require_pending, sha256_hex};
use crate::daemon::Daemon;
use crate::error::{ApiError, ApiResult};

/// The instruction of a pending handle for a questions ask.
pub const PENDING_QUESTIONS: &str = "The user has not answered yet, and nothing is lost. Call await_answer with this ask_id to keep waiting. Do not answer on the user's behalf.";

/// Where a questions answer came from (`clients.md` §3): the body's `surface`, `page` when
/// absent. The result and the record carry it.
const QUESTIONS_SURFACES: [&str; 5] = ["page", "terminal", "client-form", "app", "cli"];

/// The stored normal form of a questions ask.
pub fn spec(ask: &Ask) -> ApiResult<QuestionsSpec> {
    serde_json::from_value(ask.payload.clone()).map_err(|e| {
        ApiError::internal(format!(
            "stored questions of {} are unreadable: {e}",
            ask.id
        ))
    })
}

/// The body's `surface` (`page` when absent), or 422 naming the field; drift cards read it
/// the same way.
pub(crate) fn surface(body: &Json<'_>) -> ApiResult<&'static str> {
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
            "surface must be one of page, terminal, client-form, app, cli (got {shown}) — or omit it for page"
        ),
    )]))
}

/// The tool-error code of a cancelled or aborted questions ask.
fn error_code(outcome: Outcome) -> &'static str {
    match outcome {
        Outcome::Cancelled => "ASK_CANCELLED",
        _ => "ASK_ABORTED",
    }
}

fn error_message(outcome: Outcome) -> &'static str {
    match outcome {
        Outcome::Cancelled => "the user cancelled the question",
        _ => "ask_user_question was aborted before the user answered",
    }
}

fn bad_spec(p: Vec<Problem>) -> ApiError {
    ApiError::invalid("QUESTIONS_BAD_SPEC", Some("invalid questions"), p)
}

/// The questions room.
pub struct Questions;

impl Room for Questions {
    const KIND: AskKind = AskKind::Questions;

    /// Validates questions arguments into the ask to create.
    async fn admit(&self, _: &Daemon, session_id: &str, req: &CreateAsk<'_>) -> ApiResult<NewAsk> {
        let spec = questions::validate(&req.args).map_err(bad_spec)?;
        let payload = serde_json::to_value(&spec).map_err(|e| ApiError::internal(e.to_string()))?;
        // The first question names the ask in lists (the inbox, `askd asks list`, the
        // terminal UI): ask_user_question has no title of its own.
        let title = questions::list_title(&spec);
        Ok(NewAsk {
            id: uuid::Uuid::now_v7().to_string(),
            session_id: session_id.to_string(),
            kind: AskKind::Questions.as_str().into(),
            title,
            payload_key: sha256_hex(&payload.to_string()),
            payload,
            fingerprint: None,
            replaces: None,
            seed_banked: Vec::new(),
            seed_autosave: None,
            return_undelivered: false,
            expiry: None,
            approvals: None,
        })
    }

    /// Validates questions arguments exactly as a create would, writing nothing.
    fn check(&self, args: Json<'_>) -> ApiResult<()> {
        questions::validate(&args).map_err(bad_spec)?;
        Ok(())
    }

    fn autosave(&self, _: &Ask, body: &Json<'_>) -> ApiResult<Value> {
        object_autosave(body)
    }

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
        let record = ask_record(
            &recorded(&ask, None),
            AskKind::Questions,
            outcome.as_str(),
            &settled_at,
            None,
        );
        let words = (error_code(outcome), error_message(outcome));
        let settlement = ended(&ask, outcome, reason, words, record, settled_at);
        commit(self, d, &ask, settlement).await
    }

    fn pending(&self, d: &Daemon, ask: &Ask) -> ApiResult<Value> {
        Ok(json!({
            "outcome": "pending", "ask_id": ask.id, "url": d.ask_url(&ask.id),
            "instruction": PENDING_QUESTIONS,
        }))
    }

    fn view(&self, _: &Daemon, ask: &Ask, v: &mut Value) -> ApiResult<()> {
        v["rendered"] = crate::render::questions(&spec(ask)?);
        Ok(())
    }

    async fn show(&self, d: &Daemon, ask: &Ask, v: &mut Value) -> ApiResult<()> {
        d.repeats(ask, v).await
    }
}

/// The settlement of submitted answers.
fn answered(ask: &Ask, body: &Json<'_>) -> ApiResult<Settlement> {
    let settled_at = askd_store::now();
    let spec = spec(ask)?;
    let answers = questions::validate_answers(&spec, body).map_err(invalid_answers)?;
    let surface = surface(body)?;
    let mut result = questions::answered_result(&spec, &ask.id, &answers);
    result["surface"] = json!(surface);
    Ok(Settlement {
        outcome: Outcome::Answered.into(),
        record: ask_record(
            &recorded(ask, None),
            AskKind::Questions,
            Outcome::Answered.as_str(),
            &settled_at,
            Some(&result),
        ),
        result,
        settled_at,
        expect_banked: None,
        submission: None,
        delivered: Outcome::Answered.delivered_on_settle(),
    })
}

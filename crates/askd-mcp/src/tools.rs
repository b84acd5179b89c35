//! The tools askd offers: names (part of the contract), descriptions, and precise input and
//! output schemas.

use std::sync::Arc;

use rmcp::model::{JsonObject, Tool, ToolAnnotations};
use serde_json::{Value, json};

pub const ASK_SURVEY: &str = "ask_survey";
pub const ASK_USER_QUESTION: &str = "ask_user_question";
pub const AWAIT_ANSWER: &str = "await_answer";
pub const SURVEY_RECORDS: &str = "survey_records";
pub const WITHDRAW_ASK: &str = "withdraw_ask";
pub const BATCH_REVIEW: &str = "batch_review";

const ASK_SURVEY_DESCRIPTION: &str = "Put a branching survey in front of the user and wait for their structured decision. Use it for 4+ questions, whenever an answer changes what is asked next, or when options need more than one sentence to choose well (for 1-3 flat confirmations use ask_user_question). The survey is a graph: `entry` names the first question; each option's `next` (an id, a list of ids, or null = branch ends) decides what follows; a question-level `next` applies to options without one. The bar: an intro that orients (what is decided, why now, how long); self-contained prompts; at least 5 genuinely distinct stance options per question (never filler — make it free-text instead); every option's `insight` as three Markdown rows **Promise** / **Price** / **Present**, each one checkable sentence; `sources` on every option; branching wherever an answer changes what matters; the user's language, short ASCII ids and keys; quick templates last, as whole-survey stances that answer exactly the questions their own branch reaches. Call survey_records first and never re-ask what a record already answered. Invalid specs come back with every problem and its path: fix them all in one retry. The call waits for the user; when it returns `outcome: pending`, call await_answer with the ask_id — never answer for the user. On `answered`, follow `handling`: mirror the user's stance in one line first, trace each decision to its answer, never re-ask, honour justifications. Reroll / Push / Discuss outcomes carry an `instruction` to follow.";

const ASK_USER_QUESTION_DESCRIPTION: &str = "Ask the user 1-4 quick, flat questions (no branching) and wait for the answers; for 1-3 confirmations or choices. Each question: a unique `id` (echoed back), the `question` (Markdown), an optional short `header` chip, optional `detail`, and 2-12 `options` ({label, description?}) — omit options for a free-text question; a free-text \"other\" row is always offered. Set `multi_select: true` to allow several labels. A label ending in \"(Recommended)\" shows a badge. The result is `{outcome: \"answered\", answers: [{id, selected: [labels], custom?}], skipped: [ids], handling}`; when it is `outcome: pending`, call await_answer with the ask_id. For 4+ questions or answers that change what comes next, use ask_survey.";

const AWAIT_ANSWER_DESCRIPTION: &str = "Re-attach to a pending ask (an ask_survey or ask_user_question call that returned `outcome: pending`, was cut off by a client timeout, or ran before a restart) and wait for the user again. Returns exactly what the original call would have returned: the answers, another pending handle if the user is still working (call again), or the cancelled/aborted error. Once settled, repeated calls return the same result. Never answer on the user's behalf.";

const SURVEY_RECORDS_DESCRIPTION: &str = "Read the user's recent settled surveys: what they decided, with dates. Call it BEFORE authoring a survey, cite past answers with their dates, never re-ask what a record already answers, and treat older records as possibly stale. `query` filters by a case-insensitive substring over titles, prompts, selected labels, custom texts and justifications; `limit` 1-25 (default 8); `includeUnanswered` adds cancelled, aborted, pre-flight and superseded surveys with their banked answers (`partial: true`).";

const WITHDRAW_ASK_DESCRIPTION: &str = "Take back an ask this session created that the user no longer needs to answer (the question became moot). It settles as aborted, leaves the inbox, and stays in the records. Withdrawing a settled ask returns its result unchanged.";

const BATCH_REVIEW_DESCRIPTION: &str = "Hand the human a checklist in one call and wait for one verdict and an optional note per item, all on one screen (1 item: a card; 2+: a panel). Use it when the human must give several independent, same-shaped decisions at once: a checklist to verify, acceptance items (op + expect), review findings to triage, a list of renames or deletions to confirm, options to rate. For one to three flat questions use ask_user_question; when later questions depend on earlier answers use ask_survey. Build it well: one heading per item (title); the action and its expected result in op and expect, long context in detail (Markdown), never in the heading; related items sorted into groups (a large review is only workable in sections); no padding with things you can decide yourself, and never re-ask what the human already decided. Types: confirm (pass / fail / pending; the default), bool (yes / no; boolDesc says what Yes means), choice (options [{v, t}], multiSelect), text (a written answer, returned in note), scale (min..max, default 1..5). At most maxItems items (100 by default): for more, split into batches by group, or pass offline: true to have it reviewed as a spreadsheet (askd review export / import). persist writes a copy of the result to a file inside your workspace (.md gets report_text, anything else JSON); the result says persisted or persist_error. Subagents may call it directly. An invalid call comes back with every problem as {path, code, message} and nothing was shown: fix them all in one retry. Reading the result: only filled verdicts are decisions. A blank item (filled: false) is NEVER an approval: report it and follow it up. pending is not a pass either. fail items and their notes are the work to do next. cancelled: true means there are no verdicts at all: ask again. Call batch_review once per batch; if it returns outcome: pending, resume with await_answer(ask_id); if a call was cut off before it returned an ask id, repeating the identical call re-attaches to the same review — never send a changed copy of a batch that is still pending. report_text is ready to paste into your reply; act on items and summary.";

fn object(v: Value) -> Arc<JsonObject> {
    match v {
        Value::Object(m) => Arc::new(m),
        _ => Arc::new(JsonObject::new()),
    }
}

/// The members every waiting tool's result may carry.
fn result_schema(outcomes: &[&str], extra: Value) -> Value {
    let mut props = json!({
        "outcome": {"type": "string", "enum": outcomes},
        "ask_id": {"type": "string", "description": "The durable id of the ask."},
        "url": {"type": "string", "description": "The ask's page in askd's web UI (pending handles)."},
        "title": {"type": "string"},
        "instruction": {"type": "string", "description": "What to do next (pending, pre-flight and superseded outcomes)."},
        "handling": {"type": "string", "description": "How to treat the answers (answered)."},
        "skipped": {"type": "array", "items": {"type": "string"}, "description": "Question ids asked but left without an answer."}
    });
    if let (Some(p), Value::Object(e)) = (props.as_object_mut(), extra) {
        p.extend(e);
    }
    json!({"type": "object", "properties": props, "required": ["outcome", "ask_id"]})
}

fn survey_answers() -> Value {
    json!({
        "path": {"type": "array", "items": {"type": "string"}, "description": "The questions the user was asked, in order."},
        "answers": {"type": "array", "items": {
            "type": "object",
            "properties": {
                "id": {"type": "string"},
                "selected": {"type": "array", "items": {"type": "object",
                    "properties": {"key": {"type": "string"}, "label": {"type": "string"}},
                    "required": ["key", "label"]}},
                "custom": {"type": "string"},
                "justifications": {"type": "object", "additionalProperties": {"type": "string"}}
            },
            "required": ["id", "selected"]
        }},
        "draft": {"type": "string"},
        "draftReopened": {"type": "boolean"},
        "alignment": {"type": "object"}
    })
}

fn question_answers() -> Value {
    json!({
        "answers": {"type": "array", "items": {
            "type": "object",
            "properties": {
                "id": {"type": "string"},
                "selected": {"type": "array", "items": {"type": "string"}, "description": "Option labels as sent."},
                "custom": {"type": "string"}
            },
            "required": ["id", "selected"]
        }}
    })
}

/// The members of a `batch_review` result (`review.md` §4.1).
fn review_result() -> Value {
    json!({
        "cancelled": {"type": "boolean", "description": "true exactly when the review settled without verdicts (cancelled or aborted): items is then empty — ask again."},
        "surface": {"type": "string", "enum": ["card", "panel", "terminal", "import"]},
        "items": {"type": "array", "description": "One entry per item, in input order; empty when cancelled.", "items": {
            "type": "object",
            "properties": {
                "id": {"type": "string"},
                "title": {"type": "string"},
                "type": {"type": "string", "enum": ["confirm", "bool", "choice", "text", "scale"]},
                "verdict": {"type": "string", "description": "Machine value: pass/fail/pending, yes/no, option values joined with ',', the number; \"\" when blank and always for text."},
                "verdict_label": {"type": "string"},
                "note": {"type": "string", "description": "The reviewer's note; for a text item, the answer."},
                "filled": {"type": "boolean", "description": "false = blank: never an approval, follow it up."},
                "selected": {"type": "array", "items": {"type": "string"}, "description": "Choice items only."}
            },
            "required": ["id", "title", "type", "verdict", "verdict_label", "note", "filled"]
        }},
        "summary": {"type": "object", "properties": {
            "total": {"type": "integer"}, "filled": {"type": "integer"}, "unfilled": {"type": "integer"},
            "pass": {"type": "integer"}, "fail": {"type": "integer"}, "pending": {"type": "integer"},
            "yes": {"type": "integer"}, "no": {"type": "integer"}
        }, "required": ["total", "filled", "unfilled", "pass", "fail", "pending", "yes", "no"]},
        "report_text": {"type": "string", "description": "A report in the review's language, ready to paste; act on items and summary."},
        "persisted": {"type": "string", "description": "Absolute path of the persist file written."},
        "persist_error": {"type": "string", "description": "Why the persist file was not written; the answers are unaffected."}
    })
}

fn batch_review() -> Tool {
    let mut t = Tool::new(
        BATCH_REVIEW,
        BATCH_REVIEW_DESCRIPTION,
        object(askd_core::review::model::args_schema()),
    );
    t.title = Some("Ask the user for a verdict on each item of a checklist".into());
    t.output_schema = Some(object(result_schema(
        &["answered", "cancelled", "aborted", "pending"],
        review_result(),
    )));
    t
}

fn ask_survey() -> Tool {
    let mut t = Tool::new(
        ASK_SURVEY,
        ASK_SURVEY_DESCRIPTION,
        object(askd_core::survey::model::args_schema()),
    );
    t.title = Some("Ask the user a branching survey".into());
    t.output_schema = Some(object(result_schema(
        &[
            "answered",
            "reroll",
            "push",
            "discuss",
            "superseded",
            "pending",
        ],
        survey_answers(),
    )));
    t
}

fn ask_user_question() -> Tool {
    let mut t = Tool::new(
        ASK_USER_QUESTION,
        ASK_USER_QUESTION_DESCRIPTION,
        object(askd_core::questions::args_schema()),
    );
    t.title = Some("Ask the user 1-4 quick questions".into());
    t.output_schema = Some(object(result_schema(
        &["answered", "pending"],
        question_answers(),
    )));
    t
}

fn await_answer() -> Tool {
    let mut extra = survey_answers();
    if let (Some(o), Value::Object(review)) = (extra.as_object_mut(), review_result()) {
        o.extend(review);
    }
    if let Some(o) = extra.as_object_mut() {
        // Survey answers carry {key,label} objects, flat questions carry labels.
        o.insert(
            "answers".into(),
            json!({"type": "array", "items": {"type": "object"}}),
        );
    }
    let mut t = Tool::new(
        AWAIT_ANSWER,
        AWAIT_ANSWER_DESCRIPTION,
        object(json!({
            "type": "object",
            "properties": {
                "ask_id": {"type": "string", "description": "The ask_id of a pending handle or an earlier call."},
                "timeout_s": {"type": "number", "minimum": 0, "description": "This call's wait budget in seconds; the shorter of it and askd's maxWait applies."}
            },
            "required": ["ask_id"]
        })),
    );
    t.title = Some("Wait again for a pending ask".into());
    t.output_schema = Some(object(result_schema(
        &[
            "answered",
            "reroll",
            "push",
            "discuss",
            "superseded",
            "pending",
            "cancelled",
            "aborted",
        ],
        extra,
    )));
    t
}

fn survey_records() -> Tool {
    let mut t = Tool::new(
        SURVEY_RECORDS,
        SURVEY_RECORDS_DESCRIPTION,
        object(json!({
            "type": "object",
            "properties": {
                "query": {"type": "string", "description": "Case-insensitive substring to match."},
                "limit": {"type": "number", "description": "1-25, default 8."},
                "includeUnanswered": {"type": "boolean", "description": "Also return cancelled, aborted, pre-flight and superseded surveys."}
            }
        })),
    );
    t.title = Some("Read past survey decisions".into());
    t.output_schema = Some(object(json!({
        "type": "object",
        "properties": {
            "count": {"type": "integer", "description": "How many records matched."},
            "records": {"type": "array", "items": {"type": "object", "properties": {
                "surveyId": {"type": "string"},
                "settledAt": {"type": "string"},
                "outcome": {"type": "string"},
                "title": {"type": "string"},
                "answers": {"type": "array", "items": {"type": "object"}},
                "skipped": {"type": "array", "items": {"type": "string"}},
                "partial": {"type": "boolean"}
            }}}
        },
        "required": ["count", "records"]
    })));
    t.annotations = Some(ToolAnnotations::default().read_only(true));
    t
}

fn withdraw_ask() -> Tool {
    let mut t = Tool::new(
        WITHDRAW_ASK,
        WITHDRAW_ASK_DESCRIPTION,
        object(json!({
            "type": "object",
            "properties": {
                "ask_id": {"type": "string"},
                "reason": {"type": "string", "description": "Why, recorded with the ask."}
            },
            "required": ["ask_id"]
        })),
    );
    t.title = Some("Withdraw an ask".into());
    t.output_schema = Some(object(json!({
        "type": "object",
        "properties": {
            "outcome": {"type": "string"},
            "ask_id": {"type": "string"}
        },
        "required": ["outcome", "ask_id"]
    })));
    t
}

/// Every tool, in the order they are listed.
pub fn all() -> Vec<Tool> {
    vec![
        ask_survey(),
        ask_user_question(),
        await_answer(),
        survey_records(),
        withdraw_ask(),
        batch_review(),
    ]
}

//! The tools askd offers: names (part of the contract), descriptions, and precise input and
//! output schemas.

use askd_core::Outcome;
use askd_core::vocab::outcome::PENDING;
use askd_core::vocab::{Word, draft::DraftStatus};
use std::sync::Arc;

use askd_core::alignment::{CHECK_NOTE_MAX, baseline, drift};
use rmcp::model::{JsonObject, Tool, ToolAnnotations};
use serde_json::{Value, json};

pub const ASK_SURVEY: &str = "ask_survey";
pub const ASK_USER_QUESTION: &str = "ask_user_question";
pub const AWAIT_ANSWER: &str = "await_answer";
pub const SURVEY_RECORDS: &str = "survey_records";
pub const WITHDRAW_ASK: &str = "withdraw_ask";
pub const BATCH_REVIEW: &str = "batch_review";
pub const SURVEY_DRAFT_SET: &str = "survey_draft_set";
pub const SURVEY_DRAFT_GET: &str = "survey_draft_get";
pub const SURVEY_DRAFT_LAUNCH: &str = "survey_draft_launch";

const ASK_SURVEY_DESCRIPTION: &str = "Show the user a branching survey and wait for their decision: for 4+ questions or answers that change what is asked next (1-3 flat questions: ask_user_question; 10+ or research-backed: survey_draft_set). Load the rich-questions-authoring prompt before authoring. `entry` is the first question; an option's `next` (id, ids, or null = branch ends) decides what follows, else the question's `next`. The bar: an orienting intro, self-contained prompts, 5+ genuinely distinct options, insights as rows **Promise** / **Price** / **Present**, sources on every option, the user's language, quick templates last. Call survey_records first. An invalid spec returns every problem with its path: fix all in one retry. On `outcome: pending` call await_answer with the ask_id, never answer for the user; on `answered` follow `handling`; Reroll / Push / Discuss carry an `instruction`.";

const ASK_USER_QUESTION_DESCRIPTION: &str = "Ask the user 1-4 quick, flat questions (no branching) and wait. Give 2-12 `options` or none for free text (a free-text row is always offered); `multi_select: true` allows several; a label ending in \"(Recommended)\" gets a badge. Result: `{outcome: \"answered\", answers: [{id, selected: [labels], custom?}], skipped, handling}`; on `outcome: pending` call await_answer with the ask_id. For 4+ questions or branching, use ask_survey.";

const AWAIT_ANSWER_DESCRIPTION: &str = "Re-attach to a pending ask (it returned `outcome: pending`, was cut off by a client timeout, or ran before a restart) and wait again. Returns what the original call would have: the answers, another pending handle (call again), or the cancelled/aborted error. Never answer for the user.";

const SURVEY_RECORDS_DESCRIPTION: &str = "Read the user's recent settled surveys: what they decided, with dates. Call it BEFORE authoring a survey, cite dates, never re-ask what a record answers, and treat old records as possibly stale. `query` matches titles, prompts, labels, custom texts and justifications.";

const WITHDRAW_ASK_DESCRIPTION: &str = "Take back an ask of this session that became moot. It settles as aborted and stays in the records; a settled ask's result comes back unchanged.";

const BATCH_REVIEW_DESCRIPTION: &str = "Hand the human a checklist and wait for one verdict and optional note per item, on one screen: for several independent, same-shaped decisions (items to verify, op + expect acceptance items, findings to triage); 1-3 flat questions: ask_user_question; dependent ones: ask_survey. One heading per item (title), context in detail, related items in a group; no padding. Types: confirm (pass/fail/pending), bool, choice (options), text (answer in note), scale. At most maxItems (100 by default): split by group or pass offline: true. Only filled verdicts are decisions: a blank item (filled: false) is NEVER an approval, pending is no pass; cancelled: true means no verdicts: ask again. On outcome: pending resume with await_answer; an identical repeat re-attaches.";

const SURVEY_DRAFT_SET_DESCRIPTION: &str = "Grow a large survey as a draft file (<workspace>/.askd/survey-drafts/<slug>.json) a few questions at a time, for 10+ questions or research-backed work. Load the rich-questions-authoring prompt first; research 9-12 comparable systems and write it down. op=begin locks the skeleton in `survey` (every id, 5+ option keys each, the `next` wiring; `TODO:` stubs allowed); op=patch fills prose for at most 3 `questions` per call, plus `intro` and, last, `quick`; op=structure replaces the graph while under structureQuestionCap; op=discard / reopen. `file`: a workspace JSON file holding these parameters. Results carry the checklist (`completeness`): patch until survey_draft_get is clean, then survey_draft_launch.";

const SURVEY_DRAFT_GET_DESCRIPTION: &str = "The builder's checklist for a draft (default: the active one): missing fields per question (`TODO:` stubs, descriptions, insights, sources), survey-level and grounding gaps (standard mode: one source per question is a path or URL), validation of the file as edited. Fix with survey_draft_set, then launch.";

const SURVEY_DRAFT_LAUNCH_DESCRIPTION: &str = "Show a finished builder draft to the user and wait, like ask_survey. Refused, with the exact list, while the file is invalid (SURVEY_DRAFT_BAD_SPEC: op=structure), incomplete (SURVEY_DRAFT_INCOMPLETE) or ungrounded (SURVEY_DRAFT_UNGROUNDED): fix with op=patch. On `answered` follow `handling`; reroll / push / discuss / superseded reopen the draft: follow the `instruction` and revise it, never a new ask_survey; on `pending` call await_answer.";

/// `schema` without its `description` and `title` annotations: what a model needs to fill a
/// field is its name, type, limits and enums, plus the few descriptions [`describe`] puts
/// back (`clients.md` §2.8). Maps of schemas keep their member names.
fn undescribed(schema: &Value) -> Value {
    match schema {
        Value::Array(a) => Value::Array(a.iter().map(undescribed).collect()),
        Value::Object(o) => Value::Object(
            o.iter()
                .filter(|(k, _)| !matches!(k.as_str(), "description" | "title"))
                .map(|(k, v)| {
                    let v = match k.as_str() {
                        "properties" | "$defs" | "patternProperties" => Value::Object(
                            v.as_object()
                                .map(|m| {
                                    m.iter().map(|(n, s)| (n.clone(), undescribed(s))).collect()
                                })
                                .unwrap_or_default(),
                        ),
                        "enum" | "const" | "default" | "examples" | "required" => v.clone(),
                        _ => undescribed(v),
                    };
                    (k.clone(), v)
                })
                .collect(),
        ),
        other => other.clone(),
    }
}

/// Sets the description of the subschema at `pointer` (a JSON pointer), when there is one.
fn describe(schema: &mut Value, pointer: &str, text: &str) {
    if let Some(Value::Object(o)) = schema.pointer_mut(pointer) {
        o.insert("description".into(), json!(text));
    }
}

/// `ask_survey`'s arguments as listed: the declared schema, every member, limit and required
/// list kept, with only the descriptions a model needs to fill it.
fn ask_survey_schema() -> Value {
    let mut s = undescribed(&askd_core::survey::model::args_schema());
    let q = "/properties/survey/properties/questions";
    let option = format!("{q}/additionalProperties/properties/options/items/properties");
    describe(&mut s, &format!("{option}/diagram"), "Mermaid source.");
    describe(
        &mut s,
        "/properties/survey/properties/quick/items/properties/answers",
        "Question id -> {selected: keys, custom?}: exactly the questions its branch reaches.",
    );
    describe(
        &mut s,
        "/properties/replaces",
        "The ask_id of the survey this one revises.",
    );
    // schemars wraps the optional `next` as anyOf [Next, null]; Next admits null already.
    let next = json!({"anyOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}}, {"type": "null"}]});
    let question = format!("{q}/additionalProperties/properties");
    for at in [format!("{question}/next"), format!("{option}/next")] {
        if let Some(n) = s.pointer_mut(&at) {
            *n = next.clone();
        }
    }
    s["properties"]["deadline"] = askd_core::deadline::survey_schema();
    s
}

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
        "skipped": {"type": "array", "items": {"type": "string"}, "description": "Question ids asked but left without an answer."},
        "answered_by": answered_by(),
        "expires_at": {"type": "string", "description": "When a pending ask stops waiting (its deadline)."},
        "deferred_until": {"type": "string", "description": "Pending: the human put the ask off until then; do other work and call await_answer after it."},
        "escalated": {"type": "array", "items": {"type": "object"}, "description": "Team mode: nobody answered by the deadline, so the ask was offered to these ({to, escalated_at})."},
        "expired_at": {"type": "string"},
        "defaulted": {"type": "boolean", "description": "expired: your deadline default was applied, not the human's answer."}
    });
    if let (Some(p), Value::Object(e)) = (props.as_object_mut(), extra) {
        p.extend(e);
    }
    json!({"type": "object", "properties": props, "required": ["outcome", "ask_id"]})
}

/// Team mode: the member who gave the answer (absent for a single user).
fn answered_by() -> Value {
    json!({"type": "object", "description": "Team mode: the member who answered.",
        "properties": {"id": {"type": "string"}, "name": {"type": "string"}}})
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
        "alignment": {"type": "object"},
        "surface": {"type": "string", "enum": ["page", "terminal", "cli", "client-form", "app"], "description": "Where the human answered."}
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
        }},
        "surface": {"type": "string", "enum": ["page", "terminal", "cli", "client-form", "app"], "description": "Where the human answered."}
    })
}

/// The members of a `batch_review` result (`review.md` §4.1).
fn review_result() -> Value {
    json!({
        "cancelled": {"type": "boolean", "description": "true exactly when the review settled without verdicts (cancelled or aborted): items is then empty — ask again."},
        "surface": {"type": "string", "enum": ["card", "panel", "terminal", "cli", "import", "client-form", "app"]},
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

/// `batch_review`'s arguments as listed: every member, limit and enum, with the field-level
/// rules a model needs (which type uses which field).
fn batch_review_schema() -> Value {
    let mut s = undescribed(&askd_core::review::model::args_schema());
    let item = "/properties/items/items/properties";
    for (member, text) in [
        ("id", "Unique; A-Z a-z 0-9 . _ : - or an integer."),
        ("title", "One line (or label; confirm may use op)."),
        ("op", "confirm: the action under review."),
        ("expect", "confirm: the expected outcome."),
        ("boolDesc", "bool: what Yes means."),
        (
            "options",
            "choice (required): v a unique value without , or ;",
        ),
        ("max", "scale: at most 20 steps above min."),
    ] {
        describe(&mut s, &format!("{item}/{member}"), text);
    }
    describe(
        &mut s,
        "/properties/persist",
        "A workspace file for the result: .md gets report_text, else JSON.",
    );
    s
}

fn batch_review() -> Tool {
    let mut t = Tool::new(
        BATCH_REVIEW,
        BATCH_REVIEW_DESCRIPTION,
        object(batch_review_schema()),
    );
    t.title = Some("Ask the user for a verdict on each item of a checklist".into());
    t.output_schema = Some(object(result_schema(
        &[
            Outcome::Answered.as_str(),
            Outcome::Cancelled.as_str(),
            Outcome::Aborted.as_str(),
            Outcome::Expired.as_str(),
            PENDING,
        ],
        review_result(),
    )));
    t
}

/// A builder draft's statuses (`survey.md` §10.3), as its schemas list them.
const DRAFT_STATUSES: &[DraftStatus] = DraftStatus::ALL;

/// Every outcome a survey result can carry (`survey.md` §8.9).
const SURVEY_OUTCOMES: &[&str] = &[
    Outcome::Answered.as_str(),
    Outcome::Reroll.as_str(),
    Outcome::Push.as_str(),
    Outcome::Discuss.as_str(),
    Outcome::Superseded.as_str(),
    Outcome::Expired.as_str(),
    PENDING,
];

fn ask_survey() -> Tool {
    let mut t = Tool::new(
        ASK_SURVEY,
        ASK_SURVEY_DESCRIPTION,
        object(ask_survey_schema()),
    );
    t.title = Some("Ask the user a branching survey".into());
    t.output_schema = Some(object(result_schema(SURVEY_OUTCOMES, survey_answers())));
    t
}

fn ask_user_question() -> Tool {
    let mut t = Tool::new(
        ASK_USER_QUESTION,
        ASK_USER_QUESTION_DESCRIPTION,
        object({
            let mut s = undescribed(&askd_core::questions::args_schema());
            // The one field whose shape is not in the description.
            s["properties"]["deadline"] = askd_core::deadline::schema();
            s["properties"]["approvals"] = askd_core::approvals::schema();
            s
        }),
    );
    t.title = Some("Ask the user 1-4 quick questions".into());
    t.output_schema = Some(object(result_schema(
        &[
            Outcome::Answered.as_str(),
            Outcome::Expired.as_str(),
            PENDING,
        ],
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
        // A review's surface (card, panel, …) or a question's (page, client-form, …).
        o.insert(
            "surface".into(),
            json!({"type": "string", "enum": ["page", "terminal", "cli", "client-form", "card", "panel", "import", "app"]}),
        );
    }
    // A drift card's result (report_drift, re-attached here).
    if let (Some(o), Value::Object(drift)) = (extra.as_object_mut(), drift_result()) {
        o.extend(drift);
    }
    let mut t = Tool::new(
        AWAIT_ANSWER,
        AWAIT_ANSWER_DESCRIPTION,
        object(json!({
            "type": "object",
            "properties": {
                "ask_id": {"type": "string"},
                "timeout_s": {"type": "number", "minimum": 0, "description": "This call's wait budget in seconds."}
            },
            "required": ["ask_id"]
        })),
    );
    t.title = Some("Wait again for a pending ask".into());
    t.output_schema = Some(object(result_schema(
        &[
            Outcome::Answered.as_str(),
            Outcome::Reroll.as_str(),
            Outcome::Push.as_str(),
            Outcome::Discuss.as_str(),
            Outcome::Superseded.as_str(),
            PENDING,
            Outcome::Cancelled.as_str(),
            Outcome::Aborted.as_str(),
            "decided",
            "dismissed",
            Outcome::Withdrawn.as_str(),
            Outcome::Expired.as_str(),
        ],
        extra,
    )));
    t
}

/// The members of a `report_drift` result besides `outcome`, `ask_id`, `url` and
/// `instruction` (`alignment.md` §5.6).
fn drift_result() -> Value {
    json!({
        "session": {"type": "string"},
        "drift_id": {"type": "string"},
        "decision": {"type": ["string", "null"], "enum": ["approve", "reject", "revise", null]},
        "choice": {"type": ["string", "null"]},
        "choice_source": {"type": ["string", "null"], "enum": ["option", "typed", null]},
        "note": {"type": ["string", "null"]},
        "required_change": {"type": ["string", "null"]},
        "posture": {"type": "string"},
        "guidance": {"type": "array", "items": {"type": "string"}}
    })
}

fn survey_records() -> Tool {
    let mut t = Tool::new(
        SURVEY_RECORDS,
        SURVEY_RECORDS_DESCRIPTION,
        object(json!({
            "type": "object",
            "properties": {
                "query": {"type": "string", "description": "A case-insensitive substring."},
                "limit": {"type": "number", "description": "1-25, default 8."},
                "includeUnanswered": {"type": "boolean", "description": "Add cancelled, aborted, pre-flight and superseded ones."}
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

/// The `survey` member of the builder's arguments: `ask_survey`'s survey with every field
/// optional, or the same as JSON text. Its shape is stated, not repeated: the daemon validates
/// it fully and returns every problem with its path (`clients.md` §2.8).
fn draft_survey_schema() -> Value {
    json!({
        "anyOf": [{"type": "object"}, {"type": "string"}],
        "description": "begin, structure: the shape of ask_survey's `survey` {entry, questions, title?, intro?, quick?}, every field optional (prompts and labels may be `TODO:` stubs), or the same as JSON text."
    })
}

fn completeness_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "ready": {"type": "boolean"},
            "totals": {"type": "object", "properties": {
                "questions": {"type": "integer"}, "complete": {"type": "integer"},
                "missingFields": {"type": "integer"}
            }, "required": ["questions", "complete", "missingFields"]},
            "incomplete": {"type": "array", "items": gap_schema()},
            "surveyLevel": {"type": "array", "items": {"type": "string"}}
        },
        "required": ["ready", "totals", "incomplete", "surveyLevel"]
    })
}

fn gap_schema() -> Value {
    json!({"type": "object", "properties": {
        "id": {"type": "string"},
        "missing": {"type": "array", "items": {"type": "string"}}
    }, "required": ["id", "missing"]})
}

fn survey_draft_set() -> Tool {
    let mut t = Tool::new(
        SURVEY_DRAFT_SET,
        SURVEY_DRAFT_SET_DESCRIPTION,
        object(json!({
            "type": "object",
            "properties": {
                "op": {"type": "string", "enum": ["begin", "patch", "structure", "discard", "reopen"]},
                "slug": {"type": "string", "description": "Default: the active draft."},
                "title": {"type": "string", "description": "The survey title (begin: default \"Draft survey\")."},
                "grounding": {"type": "string", "enum": ["standard", "internal"], "description": "internal: about the project itself (no path-or-URL check)."},
                "survey": draft_survey_schema(),
                "questions": {"type": "object", "maxProperties": 3,
                    "additionalProperties": {"type": "object", "properties": {"options": {"type": "array", "items": {"type": "object"}}}},
                    "description": "patch: question id -> prose: prompt, header, detail, multiSelect, allowCustom, skippable, options [{key, label, description, insight, diagram, sources, recommended}] merged by key (else by index); null deletes; `next` stays."},
                "intro": {"type": ["string", "null"]},
                "quick": {"type": ["array", "null"], "items": {"type": "object"}, "description": "patch: ask_survey's `quick` templates, authored last."},
                "file": {"type": "string"}
            },
            "required": ["op"]
        })),
    );
    t.title = Some("Build a large survey step by step".into());
    t.output_schema = Some(object(json!({
        "type": "object",
        "properties": {
            "op": {"type": "string"},
            "slug": {"type": "string"},
            "title": {"type": "string"},
            "status": {"type": "string", "enum": DRAFT_STATUSES},
            "revision": {"type": "integer"},
            "grounding": {"type": "object", "properties": {
                "mode": {"type": "string", "enum": ["standard", "internal"]},
                "ready": {"type": "boolean"}
            }},
            "active": {"type": "boolean", "description": "Whether this is now the session's active draft."},
            "file": {"type": "string", "description": "The draft file: workspace-relative, or absolute without a workspace."},
            "completeness": completeness_schema()
        },
        "required": ["op", "slug", "status"]
    })));
    t
}

fn survey_draft_get() -> Tool {
    let mut t = Tool::new(
        SURVEY_DRAFT_GET,
        SURVEY_DRAFT_GET_DESCRIPTION,
        object(json!({
            "type": "object",
            "properties": {
                "slug": {"type": "string", "description": "Default: the active draft."}
            }
        })),
    );
    t.title = Some("Check a survey draft against the launch gate".into());
    t.output_schema = Some(object(json!({
        "type": "object",
        "properties": {
            "slug": {"type": "string"},
            "title": {"type": "string"},
            "status": {"type": "string", "enum": DRAFT_STATUSES},
            "revision": {"type": "integer"},
            "active": {"type": "boolean"},
            "file": {"type": "string"},
            "updatedAt": {"type": "string"},
            "askId": {"type": "string", "description": "The survey ask of the latest launch."},
            "completeness": completeness_schema(),
            "grounding": {"type": "object", "properties": {
                "ready": {"type": "boolean"},
                "mode": {"type": "string", "enum": ["standard", "internal"]},
                "gaps": {"type": "array", "items": gap_schema()}
            }, "required": ["ready", "mode", "gaps"]},
            "validation": {"type": "object", "properties": {
                "ok": {"type": "boolean"},
                "errors": {"type": "array", "items": {"type": "object"}}
            }, "required": ["ok", "errors"]}
        },
        "required": ["slug", "status", "completeness", "grounding", "validation"]
    })));
    t
}

fn survey_draft_launch() -> Tool {
    let mut t = Tool::new(
        SURVEY_DRAFT_LAUNCH,
        SURVEY_DRAFT_LAUNCH_DESCRIPTION,
        object(json!({
            "type": "object",
            "properties": {
                "slug": {"type": "string", "description": "Default: the active draft."},
                "timeout_s": {"type": "number", "minimum": 0}
            }
        })),
    );
    t.title = Some("Launch a finished survey draft".into());
    t.output_schema = Some(object(result_schema(SURVEY_OUTCOMES, survey_answers())));
    t
}

/// Every tool, in the order they are listed.
pub const ALIGN: &str = "align";
pub const ALIGNMENT_STATUS: &str = "alignment_status";
pub const SET_ALIGNMENT_MODE: &str = "set_alignment_mode";
pub const ESTABLISH_BASELINE: &str = "establish_baseline";
pub const REPORT_DRIFT: &str = "report_drift";

const ESTABLISH_BASELINE_DESCRIPTION: &str = "Record or revise the requirement baseline silently (no question): goal, explicit constraints, must-preserve behaviour, allowed scope, settled decisions. Call it before the first substantive change when the request states a constraint or limits scope (\"don't change X\", \"only X\"; trivial requests: never), after the greenfield gate questions, and after the human approves or chooses a direction on a drift, before the next substantive step (it applies pending updates). Given fields replace their value; others stay unless replace is true. Never drop or weaken an explicit constraint or must-preserve item except to apply the human's decision (askd refuses it): report_drift first.";

fn string_list() -> Value {
    json!({"type": "array", "maxItems": baseline::LIST_MAX_ITEMS, "items": {"type": "string", "minLength": 1, "maxLength": baseline::ITEM_MAX}})
}

fn establish_baseline_tool() -> Tool {
    let mut t = Tool::new(
        ESTABLISH_BASELINE,
        ESTABLISH_BASELINE_DESCRIPTION,
        object(json!({
            "type": "object",
            "properties": {
                "session": selector(),
                "goal": {"type": "string", "minLength": 1, "maxLength": baseline::GOAL_MAX},
                "explicit_constraints": string_list(),
                "must_preserve": string_list(),
                "allowed_scope": string_list(),
                "user_decisions": string_list(),
                "replace": {"type": "boolean", "default": false},
                "applies": {"type": "array", "items": {"type": "string"}, "description": "Drift ids from the pending-update queue; omitted = all."}
            },
            "additionalProperties": false
        })),
    );
    t.title = Some("Record the requirement baseline".into());
    t.output_schema = Some(object(json!({
        "type": "object",
        "properties": {
            "session": {"type": "string"},
            "revision": {"type": "integer"},
            "unchanged": {"type": "boolean"},
            "baseline": {"type": ["object", "null"]},
            "changes": {"type": "object"},
            "applied": {"type": "array", "items": {"type": "string"}},
            "dropped": {"type": "array", "items": {"type": "string"}},
            "authorised_by": {"type": "array", "items": {"type": "string"}},
            "warnings": {"type": "array", "items": {"type": "string"}},
            "posture": {"type": "string"},
            "instruction": {"type": "string"},
            "guidance": {"type": "array", "items": {"type": "string"}}
        },
        "required": ["session", "revision", "unchanged", "posture"]
    })));
    t
}

const REPORT_DRIFT_DESCRIPTION: &str = "Report an action that would materially change the requirement baseline BEFORE taking it: the human gets a drift card, you get their decision. reason: scope-expansion (a focused task grows into broad rework), constraint-conflict (breaks a constraint or must-preserve item), behaviour-change (unauthorised visible behaviour, default or compatibility change), architecture-shift (cloud, backend, auth, several users, sync, persistence, public API, schema, migration), invalidated-assumption (a finding forces a new direction), user-direction-change (the human changes direction mid-task: report before any clarifying question). A genuine choice gets 2-4 options. Never on a schedule, nor for the established stack, small internal designs, in-scope bug fixes or needed tests. Approve or a chosen option: record it with establish_baseline before the next substantive step; baseline kept or no decision: do not make the change; never re-ask a settled decision. Re-attach with await_answer or {\"resume\": \"<drift_id>\"}.";

fn report_drift_tool() -> Tool {
    let mut t = Tool::new(
        REPORT_DRIFT,
        REPORT_DRIFT_DESCRIPTION,
        object(json!({
            "type": "object",
            "properties": {
                "session": selector(),
                "reason": {"type": "string", "enum": drift::REASONS.iter().map(|(token, _, _)| *token).collect::<Vec<_>>()},
                "description": {"type": "string", "minLength": 1, "maxLength": drift::TEXT_MAX, "description": "The action and why it changes direction."},
                "required_change": {"type": "string", "minLength": 1, "maxLength": drift::TEXT_MAX, "description": "How the baseline would have to change."},
                "options": {
                    "type": "array", "minItems": drift::OPTIONS_MIN, "maxItems": drift::OPTIONS_MAX,
                    "description": "For a genuine choice: directions to pick from; distinct labels, not approve / reject.",
                    "items": {
                        "type": "object",
                        "properties": {
                            "label": {"type": "string", "minLength": 1, "maxLength": drift::LABEL_MAX},
                            "description": {"type": "string", "maxLength": drift::OPTION_DESCRIPTION_MAX}
                        },
                        "required": ["label"],
                        "additionalProperties": false
                    }
                },
                "approvals": askd_core::approvals::schema(),
                "resume": {"type": "string", "description": "A drift id (d1…) to re-attach to; only session and timeout_s may accompany it."},
                "timeout_s": {"type": "number", "minimum": 0}
            },
            "additionalProperties": false
        })),
    );
    t.title = Some("Report a requirement drift".into());
    let mut schema = result_schema(
        &[
            "decided",
            PENDING,
            "dismissed",
            Outcome::Withdrawn.as_str(),
            Outcome::Superseded.as_str(),
        ],
        drift_result(),
    );
    schema["required"] = json!([
        "session",
        "drift_id",
        "ask_id",
        "outcome",
        "decision",
        "posture",
        "instruction"
    ]);
    t.output_schema = Some(object(schema));
    t
}

const ALIGN_DESCRIPTION: &str = "Run the requirements-alignment check: askd records it and returns the session's report (mode, rounds, decisions, baseline, drift, posture) and an instruction. Call it when the human asks for a check; it never blocks anything.";
const ALIGNMENT_STATUS_DESCRIPTION: &str = "Read this session's alignment state as askd recorded it: mode, rounds, settled decisions, checks, baseline, drift, posture, guidance. Read-only. Never ask a settled decision again.";
const SET_ALIGNMENT_MODE_DESCRIPTION: &str = "Change this session's alignment mode: auto, manual, off, or default (clears the session override). Call it only when the human asks for a mode change.";
const AUTO_NOTE_QUESTION: &str = " Alignment: a direction question goes one per call, with 2 or 3 options, the recommendation first; never ask a decision that askd has reported as settled.";
const AUTO_NOTE_SURVEY: &str =
    " Alignment: never re-ask decisions that askd has reported as settled.";

/// The optional session selector (`alignment.md` §4.2): continue a session by id.
fn selector() -> Value {
    json!({"type": "string", "minLength": 1, "maxLength": 64, "description": "An askd session id to continue."})
}

fn align_tool() -> Tool {
    let mut t = Tool::new(
        ALIGN,
        ALIGN_DESCRIPTION,
        object(json!({
            "type": "object",
            "properties": {
                "session": selector(),
                "note": {"type": "string", "minLength": 1, "maxLength": CHECK_NOTE_MAX, "description": "The focus of this check."}
            },
            "additionalProperties": false
        })),
    );
    t.title = Some("Check requirements alignment".into());
    t.output_schema = Some(object(json!({
        "type": "object",
        "properties": {
            "session": {"type": "string"},
            "check": {"type": "object"},
            "status": {"type": "object"},
            "report": {"type": "string"},
            "instruction": {"type": "string"}
        },
        "required": ["session", "check", "status", "report", "instruction"]
    })));
    t
}

fn alignment_status_tool() -> Tool {
    let mut t = Tool::new(
        ALIGNMENT_STATUS,
        ALIGNMENT_STATUS_DESCRIPTION,
        object(json!({
            "type": "object",
            "properties": {
                "session": selector(),
                "detail": {"type": "string", "enum": ["summary", "full"]},
                "before": {"type": "integer", "minimum": 0, "description": "Page to older settled decisions: settled_decisions_page.before of the previous result."}
            },
            "additionalProperties": false
        })),
    );
    t.title = Some("Alignment status".into());
    t.output_schema = Some(object(json!({
        "type": "object",
        "properties": {
            "session": {"type": "object"},
            "mode": {"type": "object"},
            "rounds": {"type": "integer"},
            "settled_decisions": {"type": "array"},
            "settled_decisions_page": {"type": "object", "properties": {
                "total": {"type": "integer"},
                "from": {"type": "integer"},
                "to": {"type": "integer"},
                "before": {"type": ["integer", "null"]}
            }},
            "manual_checks": {"type": "object"},
            "baseline": {"type": ["object", "null"]},
            "drift": {"type": "object"},
            "posture": {"type": "string"},
            "guidance": {"type": "array", "items": {"type": "string"}}
        },
        "required": ["session", "mode", "rounds", "settled_decisions", "posture", "guidance"]
    })));
    t
}

fn set_alignment_mode_tool() -> Tool {
    let mut t = Tool::new(
        SET_ALIGNMENT_MODE,
        SET_ALIGNMENT_MODE_DESCRIPTION,
        object(json!({
            "type": "object",
            "properties": {
                "session": selector(),
                "mode": {"type": "string", "enum": ["auto", "manual", "off", "default"]}
            },
            "required": ["mode"],
            "additionalProperties": false
        })),
    );
    t.title = Some("Set the alignment mode".into());
    t.output_schema = Some(object(json!({
        "type": "object",
        "properties": {
            "session": {"type": "string"},
            "changed": {"type": "boolean"},
            "mode": {"type": "object"},
            "notice": {"type": ["string", "null"]},
            "policy": {"type": ["string", "null"]}
        },
        "required": ["session", "changed", "mode"]
    })));
    t
}

/// The tools listed for a session in `mode` (`alignment.md` §5.1, §2.5): in `auto`, the
/// question tools carry the alignment note; `off` lists only `set_alignment_mode` of the
/// alignment tools.
pub fn listed(mode: askd_core::alignment::Mode) -> Vec<Tool> {
    use askd_core::alignment::Mode;
    let mut tools = unfinished();
    if mode == Mode::Auto {
        for t in &mut tools {
            let note = match t.name.as_ref() {
                ASK_USER_QUESTION => AUTO_NOTE_QUESTION,
                ASK_SURVEY => AUTO_NOTE_SURVEY,
                _ => continue,
            };
            let description = format!("{}{note}", t.description.as_deref().unwrap_or_default());
            t.description = Some(description.into());
        }
    }
    if mode != Mode::Off {
        let mut baseline = establish_baseline_tool();
        let mut drift = report_drift_tool();
        if mode == Mode::Manual {
            for t in [&mut baseline, &mut drift] {
                let description = format!(
                    "{} Use after an align check or when the human asks.",
                    t.description.as_deref().unwrap_or_default()
                );
                t.description = Some(description.into());
            }
        }
        tools.push(align_tool());
        tools.push(alignment_status_tool());
        tools.push(baseline);
        tools.push(drift);
    }
    tools.push(set_alignment_mode_tool());
    tools.into_iter().map(finish).collect()
}

/// Every tool's name (but the MCP App's own, `crate::apps::APP_TOOL`), in the order
/// [`listed`] gives them in `auto` mode, the mode that lists them all.
pub fn names() -> Vec<String> {
    listed(askd_core::alignment::Mode::Auto)
        .into_iter()
        .map(|t| t.name.to_string())
        .collect()
}

/// Whether `name` is an alignment tool that `mode` does not list.
pub fn alignment_off(name: &str, mode: askd_core::alignment::Mode) -> bool {
    mode == askd_core::alignment::Mode::Off
        && matches!(
            name,
            ALIGN | ALIGNMENT_STATUS | ESTABLISH_BASELINE | REPORT_DRIFT
        )
}

/// Every non-alignment tool, as listed.
pub fn all() -> Vec<Tool> {
    unfinished().into_iter().map(finish).collect()
}

fn unfinished() -> Vec<Tool> {
    vec![
        ask_survey(),
        survey_draft_set(),
        survey_draft_get(),
        survey_draft_launch(),
        ask_user_question(),
        await_answer(),
        survey_records(),
        withdraw_ask(),
        batch_review(),
    ]
}

/// What is true of each tool, for clients that decide by it (`clients.md` §2.1): Codex's
/// `codex exec` runs a tool without an approval prompt only when it is read-only, or neither
/// destructive nor open-world. No askd tool reaches beyond askd (`openWorldHint: false`), and
/// none destroys anything: an ask's record always stays.
fn annotations(name: &str, title: Option<String>) -> ToolAnnotations {
    let a = match title {
        Some(t) => ToolAnnotations::with_title(t),
        None => ToolAnnotations::new(),
    }
    .open_world(false);
    match name {
        SURVEY_DRAFT_GET | SURVEY_RECORDS | AWAIT_ANSWER | ALIGNMENT_STATUS => a.read_only(true),
        // Identical repeats re-attach to the same ask (or return its result).
        ASK_SURVEY | ASK_USER_QUESTION | BATCH_REVIEW | REPORT_DRIFT => {
            a.read_only(false).destructive(false).idempotent(true)
        }
        // Withdrawing again, or setting the same mode or baseline again, changes nothing.
        WITHDRAW_ASK | SET_ALIGNMENT_MODE | ESTABLISH_BASELINE => {
            a.read_only(false).destructive(false).idempotent(true)
        }
        _ => a.read_only(false).destructive(false).idempotent(false),
    }
}

/// A tool as clients receive it: annotations, and schemas in the strict subset every client
/// compiles, the output schema admitting the error envelope (`clients.md` §2.1–§2.3).
fn finish(mut t: Tool) -> Tool {
    t.annotations = Some(annotations(&t.name, t.title.clone()));
    t.input_schema = object(crate::strict::strict(&Value::Object(
        (*t.input_schema).clone(),
    )));
    if let Some(out) = &t.output_schema {
        let result = Value::Object((**out).clone());
        t.output_schema = Some(object(crate::strict::strict(
            &crate::strict::admitting_errors(&result),
        )));
    }
    t
}

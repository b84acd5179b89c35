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
pub const SURVEY_DRAFT_SET: &str = "survey_draft_set";
pub const SURVEY_DRAFT_GET: &str = "survey_draft_get";
pub const SURVEY_DRAFT_LAUNCH: &str = "survey_draft_launch";

const ASK_SURVEY_DESCRIPTION: &str = "Put a branching survey in front of the user and wait for their structured decision. Use it for 4+ questions, whenever an answer changes what is asked next, or when options need more than one sentence to choose well (for 1-3 flat confirmations use ask_user_question; for 10+ questions or research-backed work, grow the survey with survey_draft_set instead of one giant call). The survey is a graph: `entry` names the first question; each option's `next` (an id, a list of ids, or null = branch ends) decides what follows; a question-level `next` applies to options without one. The bar: an intro that orients (what is decided, why now, how long); self-contained prompts; at least 5 genuinely distinct stance options per question (never filler — make it free-text instead); every option's `insight` as three Markdown rows **Promise** / **Price** / **Present**, each one checkable sentence; `sources` on every option; branching wherever an answer changes what matters; the user's language, short ASCII ids and keys; quick templates last, as whole-survey stances that answer exactly the questions their own branch reaches. Call survey_records first and never re-ask what a record already answered. Invalid specs come back with every problem and its path: fix them all in one retry. The call waits for the user; when it returns `outcome: pending`, call await_answer with the ask_id — never answer for the user. On `answered`, follow `handling`: mirror the user's stance in one line first, trace each decision to its answer, never re-ask, honour justifications. Reroll / Push / Discuss outcomes carry an `instruction` to follow.";

const ASK_USER_QUESTION_DESCRIPTION: &str = "Ask the user 1-4 quick, flat questions (no branching) and wait for the answers; for 1-3 confirmations or choices. Each question: a unique `id` (echoed back), the `question` (Markdown), an optional short `header` chip, optional `detail`, and 2-12 `options` ({label, description?}) — omit options for a free-text question; a free-text \"other\" row is always offered. Set `multi_select: true` to allow several labels. A label ending in \"(Recommended)\" shows a badge. The result is `{outcome: \"answered\", answers: [{id, selected: [labels], custom?}], skipped: [ids], handling}`; when it is `outcome: pending`, call await_answer with the ask_id. For 4+ questions or answers that change what comes next, use ask_survey.";

const AWAIT_ANSWER_DESCRIPTION: &str = "Re-attach to a pending ask (an ask_survey or ask_user_question call that returned `outcome: pending`, was cut off by a client timeout, or ran before a restart) and wait for the user again. Returns exactly what the original call would have returned: the answers, another pending handle if the user is still working (call again), or the cancelled/aborted error. Once settled, repeated calls return the same result. Never answer on the user's behalf.";

const SURVEY_RECORDS_DESCRIPTION: &str = "Read the user's recent settled surveys: what they decided, with dates. Call it BEFORE authoring a survey, cite past answers with their dates, never re-ask what a record already answers, and treat older records as possibly stale. `query` filters by a case-insensitive substring over titles, prompts, selected labels, custom texts and justifications; `limit` 1-25 (default 8); `includeUnanswered` adds cancelled, aborted, pre-flight and superseded surveys with their banked answers (`partial: true`).";

const WITHDRAW_ASK_DESCRIPTION: &str = "Take back an ask this session created that the user no longer needs to answer (the question became moot). It settles as aborted, leaves the inbox, and stays in the records. Withdrawing a settled ask returns its result unchanged.";

const BATCH_REVIEW_DESCRIPTION: &str = "Hand the human a checklist in one call and wait for one verdict and an optional note per item, all on one screen (1 item: a card; 2+: a panel). Use it when the human must give several independent, same-shaped decisions at once: a checklist to verify, acceptance items (op + expect), review findings to triage, a list of renames or deletions to confirm, options to rate. For one to three flat questions use ask_user_question; when later questions depend on earlier answers use ask_survey. Build it well: one heading per item (title); the action and its expected result in op and expect, long context in detail (Markdown), never in the heading; related items sorted into groups (a large review is only workable in sections); no padding with things you can decide yourself, and never re-ask what the human already decided. Types: confirm (pass / fail / pending; the default), bool (yes / no; boolDesc says what Yes means), choice (options [{v, t}], multiSelect), text (a written answer, returned in note), scale (min..max, default 1..5). At most maxItems items (100 by default): for more, split into batches by group, or pass offline: true to have it reviewed as a spreadsheet (askd review export / import). persist writes a copy of the result to a file inside your workspace (.md gets report_text, anything else JSON); the result says persisted or persist_error. Subagents may call it directly. An invalid call comes back with every problem as {path, code, message} and nothing was shown: fix them all in one retry. Reading the result: only filled verdicts are decisions. A blank item (filled: false) is NEVER an approval: report it and follow it up. pending is not a pass either. fail items and their notes are the work to do next. cancelled: true means there are no verdicts at all: ask again. Call batch_review once per batch; if it returns outcome: pending, resume with await_answer(ask_id); if a call was cut off before it returned an ask id, repeating the identical call re-attaches to the same review — never send a changed copy of a batch that is still pending. report_text is ready to paste into your reply; act on items and summary.";

const SURVEY_DRAFT_SET_DESCRIPTION: &str = "Grow a large, research-grounded survey as a draft file (<workspace>/.askd/survey-drafts/<slug>.json, git-diffable, kept as reference) a few questions at a time instead of one giant ask_survey payload: use it for 10+ questions or research-backed work. The loop: research 9-12 comparable systems first and write the findings down (.docs/research/, .docs/digest/, .docs/research/rips/, .refs/); op=begin locks a full-frame skeleton (every id, at least 5 option keys per question, the `next` wiring; prompts and labels may be `TODO:` stubs); op=patch fleshes out at most 3 questions per call, prose only (prompt, header, detail, option label / description / insight / diagram / sources / recommended; options merge by `key`, or by index when no entry has one; `null` deletes a field; a changed `next` is refused — rewire with op=structure), and also sets the draft-level `intro` and `quick` (quick templates last, coverage-checked at once); op=structure replaces the whole graph (rewire, add or remove questions and options) while the incoming graph has fewer questions than structureQuestionCap, carrying prose over by question id and option key, and bumps the revision; op=discard abandons a draft (the file stays); op=reopen brings one back. For large payloads pass file=: a workspace JSON file whose members are these parameters (inline arguments win). The bar: self-contained prompts; at least 5 genuinely distinct stance options; every insight as three rows **Promise** / **Price** / **Present**; sources on every option, and one per question naming a file path or URL; the user's language, short ASCII ids and keys. Every result carries the checklist (`completeness`); repeat research → patch → survey_draft_get until it is clean, then survey_draft_launch.";

const SURVEY_DRAFT_GET_DESCRIPTION: &str = "The builder's checklist for a draft (default: this session's active draft; an explicit slug also finds discarded drafts): per question, every missing required field (`TODO:` stubs, missing descriptions, insights and sources), survey-level gaps, totals, the grounding gaps (every option needs a source; in standard mode one option per question must cite where its comparison target lives, as a file path or URL), and validation of the current file, hand edits included. It is the launch gate made visible: fix every entry with survey_draft_set op=patch (or op=structure for the graph), then call survey_draft_launch.";

const SURVEY_DRAFT_LAUNCH_DESCRIPTION: &str = "Put a finished builder draft in front of the user as the survey wizard and wait, exactly like ask_survey. Nothing is shown while the file fails validation (SURVEY_DRAFT_BAD_SPEC: fix with survey_draft_set op=structure), has any `TODO:` stub or missing required field (SURVEY_DRAFT_INCOMPLETE, with the exact list), or misses sources (SURVEY_DRAFT_UNGROUNDED); fix them with op=patch and relaunch. A draft already launched re-attaches to its pending survey. Results are ask_survey's plus `draft`: on `answered` follow `handling` (mirror the user's stance in one line first, trace each decision, never re-ask, honour justifications); reroll / push / discuss / superseded reopen the draft (`draftReopened: true`): follow the `instruction` and revise the same draft through the builder loop, never one-shot a new ask_survey; on `pending` call await_answer with the ask_id and never answer for the user.";

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

/// Every outcome a survey result can carry (`survey.md` §8.9).
const SURVEY_OUTCOMES: &[&str] = &[
    "answered",
    "reroll",
    "push",
    "discuss",
    "superseded",
    "pending",
];

fn ask_survey() -> Tool {
    let mut t = Tool::new(
        ASK_SURVEY,
        ASK_SURVEY_DESCRIPTION,
        object(askd_core::survey::model::args_schema()),
    );
    t.title = Some("Ask the user a branching survey".into());
    t.output_schema = Some(object(result_schema(SURVEY_OUTCOMES, survey_answers())));
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
            "decided",
            "dismissed",
            "withdrawn",
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

/// The `survey` member of the builder's arguments: `ask_survey`'s survey schema, with the
/// prompt and option labels optional (begin and structure stub them in), or the same as
/// JSON text.
fn draft_survey_schema() -> Value {
    let mut survey = askd_core::survey::model::args_schema()["properties"]["survey"].clone();
    let question = &mut survey["properties"]["questions"]["additionalProperties"];
    if let Some(r) = question["required"].as_array_mut() {
        r.retain(|m| m != "prompt");
    }
    if let Some(r) = question["properties"]["options"]["items"]["required"].as_array_mut() {
        r.retain(|m| m != "label");
    }
    survey["description"] = json!(
        "The graph {entry, questions, title?, intro?, quick?} (begin, structure); prompts and labels may be omitted or `TODO:` stubs. May be sent as JSON text."
    );
    json!({"anyOf": [survey, {"type": "string", "description": "The survey as JSON text."}]})
}

/// A question patch: prose fields only; `null` deletes.
fn question_patch_schema() -> Value {
    let option = json!({
        "type": "object",
        "description": "Merged onto the stored option with the same key, or by index when no entry has a key; an unknown key appends.",
        "properties": {
            "key": {"type": "string"},
            "label": {"type": ["string", "null"]},
            "description": {"type": ["string", "null"]},
            "insight": {"type": ["string", "null"], "description": "Three Markdown rows: **Promise** / **Price** / **Present**."},
            "diagram": {"type": ["string", "null"]},
            "sources": {"type": ["array", "null"], "items": {"type": "string"}, "description": "Replaces the whole list."},
            "recommended": {"type": ["boolean", "null"]},
            "next": {"description": "Accepted only when equal to the stored value (rewire with op=structure)."}
        }
    });
    json!({
        "type": "object",
        "properties": {
            "prompt": {"type": ["string", "null"]},
            "header": {"type": ["string", "null"]},
            "detail": {"type": ["string", "null"]},
            "multiSelect": {"type": ["boolean", "null"]},
            "allowCustom": {"type": ["boolean", "null"]},
            "skippable": {"type": ["boolean", "null"]},
            "options": {"type": "array", "items": option},
            "next": {"description": "Accepted only when equal to the stored value (rewire with op=structure)."}
        }
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
    let quick =
        askd_core::survey::model::args_schema()["properties"]["survey"]["properties"]["quick"]
            .clone();
    let mut t = Tool::new(
        SURVEY_DRAFT_SET,
        SURVEY_DRAFT_SET_DESCRIPTION,
        object(json!({
            "type": "object",
            "properties": {
                "op": {"type": "string", "enum": ["begin", "patch", "structure", "discard", "reopen"]},
                "slug": {"type": "string", "description": "Which draft (patch, structure, discard, reopen). Default: this session's active draft."},
                "title": {"type": "string", "description": "The draft title, which is also the survey title. Begin defaults it to \"Draft survey\"; later ops rename without changing the slug."},
                "grounding": {"type": "string", "enum": ["standard", "internal"], "description": "internal (surveys about the project's own internals) skips the file-path-or-URL comparison check. Default standard."},
                "survey": draft_survey_schema(),
                "questions": {"type": "object", "maxProperties": 3, "additionalProperties": question_patch_schema(),
                    "description": "patch: question id -> prose patch, at most 3 per call."},
                "intro": {"type": ["string", "null"], "description": "patch: replaces (or with null deletes) the intro."},
                "quick": {"anyOf": [quick, {"type": "null"}], "description": "patch: replaces (or with null deletes) the quick templates; author them last."},
                "file": {"type": "string", "description": "A JSON file inside the workspace whose members are used as these parameters (inline arguments win)."}
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
            "status": {"type": "string", "enum": ["building", "launched", "answered", "reopened", "discarded"]},
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
                "slug": {"type": "string", "description": "Which draft. Default: this session's active draft."}
            }
        })),
    );
    t.title = Some("Check a survey draft against the launch gate".into());
    t.output_schema = Some(object(json!({
        "type": "object",
        "properties": {
            "slug": {"type": "string"},
            "title": {"type": "string"},
            "status": {"type": "string", "enum": ["building", "launched", "answered", "reopened", "discarded"]},
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
                "slug": {"type": "string", "description": "Which draft. Default: this session's active draft."},
                "timeout_s": {"type": "number", "minimum": 0, "description": "This call's wait budget in seconds; the shorter of it and askd's maxWait applies."}
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

const ESTABLISH_BASELINE_DESCRIPTION: &str = "Record or revise the requirement baseline silently (no question, no card): goal, explicit_constraints, must_preserve, allowed_scope, user_decisions. Call it before the first substantive change when the request states a constraint or limits scope (\"don't change X\", \"only X\", \"no backend changes\"), after the greenfield gate questions are answered, and after the human approves or redirects a drift (it applies pending updates). Given fields replace their value; omitted fields are kept unless replace is true. askd refuses to drop a protected item (explicit constraint or must-preserve) unless a human decision is applied: report such a change with report_drift first.";

fn string_list() -> Value {
    json!({"type": "array", "maxItems": 32, "items": {"type": "string", "minLength": 1, "maxLength": 500}})
}

fn establish_baseline_tool() -> Tool {
    let mut t = Tool::new(
        ESTABLISH_BASELINE,
        ESTABLISH_BASELINE_DESCRIPTION,
        object(json!({
            "type": "object",
            "properties": {
                "session": selector(),
                "goal": {"type": "string", "minLength": 1, "maxLength": 1000},
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

const REPORT_DRIFT_DESCRIPTION: &str = "Stop and report an action that would materially change the requirement baseline, BEFORE taking it (never as a summary afterwards): askd shows the human a drift decision card and returns their decision. reason is one of scope-expansion (a focused task grows into broad rework), constraint-conflict (it breaks an explicit constraint or must-preserve item), behaviour-change (unauthorised change to user-visible behaviour, a default or compatibility), architecture-shift (local to cloud, a backend, auth, several users, sync, persistence, public API, schema, migration), invalidated-assumption (something learned forces a new direction), user-direction-change (the human changes direction mid-task: report it before any clarifying question). For a genuine choice pass 2 to 4 options. Follow the decision: approve or a chosen direction → record it with establish_baseline before the next substantive step; reject → do not make the change; dismissed or pending → do not make the change. If the wait ends first (outcome pending), re-attach with await_answer on ask_id or report_drift {\"resume\": \"<drift_id>\"}; an identical report re-attaches too.";

fn report_drift_tool() -> Tool {
    let mut t = Tool::new(
        REPORT_DRIFT,
        REPORT_DRIFT_DESCRIPTION,
        object(json!({
            "type": "object",
            "properties": {
                "session": selector(),
                "reason": {"type": "string", "enum": ["scope-expansion", "constraint-conflict", "behaviour-change", "architecture-shift", "invalidated-assumption", "user-direction-change"]},
                "description": {"type": "string", "minLength": 1, "maxLength": 2000, "description": "What the action is and why it changes direction."},
                "required_change": {"type": "string", "minLength": 1, "maxLength": 2000, "description": "How the baseline would have to change."},
                "options": {
                    "type": "array", "minItems": 2, "maxItems": 4,
                    "description": "Alternative directions for the human to choose from, in your order. Labels must be distinct and must not be the card's own actions (approve, reject, …).",
                    "items": {
                        "type": "object",
                        "properties": {
                            "label": {"type": "string", "minLength": 1, "maxLength": 80},
                            "description": {"type": "string", "maxLength": 500}
                        },
                        "required": ["label"],
                        "additionalProperties": false
                    }
                },
                "resume": {"type": "string", "description": "A drift id (d1, d2, …): re-attach to that drift instead of reporting a new one. With resume, give no other field except session and timeout_s."},
                "timeout_s": {"type": "number", "minimum": 0, "description": "This call's wait budget in seconds."}
            },
            "additionalProperties": false
        })),
    );
    t.title = Some("Report a requirement drift".into());
    let mut schema = result_schema(
        &["decided", "pending", "dismissed", "withdrawn", "superseded"],
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

const ALIGN_DESCRIPTION: &str = "Run the requirements-alignment check (alignment.md): askd records the check, then returns its durable session report (mode, question rounds, settled decisions, manual checks, baseline, drift, posture) and a compact instruction. Call it when the human asks you to check alignment. It never blocks anything and never takes over the workflow.";
const ALIGNMENT_STATUS_DESCRIPTION: &str = "Read this session's alignment state as askd recorded it: mode, question rounds, settled decisions (question and chosen labels), manual checks, baseline, drift and posture, plus the guidance lines (the no-repeat guard). Read-only. Never ask a settled decision again.";
const SET_ALIGNMENT_MODE_DESCRIPTION: &str = "Change this session's alignment mode: auto, manual, off, or default (clears the session override). Call it only when the human asks for a mode change.";
const AUTO_NOTE_QUESTION: &str = " Alignment: for direction questions ask one question per call, give 2 or 3 options with the recommendation first, and never ask a decision that askd has reported as settled.";
const AUTO_NOTE_SURVEY: &str =
    " Alignment: never re-ask decisions that askd has reported as settled.";

/// The optional session selector (`alignment.md` §4.2): continue a session by id.
fn selector() -> Value {
    json!({"type": "string", "minLength": 1, "maxLength": 64, "description": "An askd session id to run in (continue). Omit for this connection's session."})
}

fn align_tool() -> Tool {
    let mut t = Tool::new(
        ALIGN,
        ALIGN_DESCRIPTION,
        object(json!({
            "type": "object",
            "properties": {
                "session": selector(),
                "note": {"type": "string", "minLength": 1, "maxLength": 500, "description": "The focus of this check."}
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

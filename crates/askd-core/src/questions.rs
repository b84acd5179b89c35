//! The flat `ask_user_question` tool (`platform.md` §4.1): its model and normal form, argument
//! validation, answer validation and the `answered` result.
//!
//! Everything here is a pure function of its arguments and never panics; agent and human input
//! only ever produce [`Problem`]s. Errors use the format of `survey.md` §4.1: they accumulate,
//! each has a `path` relative to the validated value (`questions[1].options[0].label`), a
//! stable snake_case `code` and a `message` that starts with its own location and names the
//! fix.
//!
//! # Rules chosen where `platform.md` is silent
//!
//! - **Order.** Argument errors come in this order: `questions`, then each question in index
//!   order (`id`, `question`, `header`, `detail`, `options` and each option in index order,
//!   `multi_select`), then `timeout_s`, then `replaces`. A count error (`questions_too_many`,
//!   `options_too_few`…) does not stop the item checks.
//! - **Required strings** (`id`, `question`, `label`) get one `*_missing` code whether the member
//!   is absent, `null`, of another type or blank (as `survey.md` Q3/O3 do); the message names what
//!   arrived. **Optional members** of the wrong type get `*_type` codes. A missing `questions` is
//!   `questions_missing`; `questions` of another type is `questions_type`.
//! - **Null means absent** on every optional member (`header`, `detail`, `options`,
//!   `description`, `multi_select`, `multiSelect`, `timeout_s`, `replaces`, `custom`).
//! - **Blank optional text** (`header`, `detail`, `description`) is dropped from the normal form,
//!   like an absent member: an empty chip or description shows nothing useful.
//! - **Text is kept as sent**: no escape repair (`survey.md` §5) and no trimming, except that
//!   every real line break in `header` (CRLF, LF or a lone CR) becomes one space, as in
//!   `survey.md` §5.2's one-line fields. Length limits are checked before that replacement.
//! - **Labels** are unique within a question after trimming and after removing the recommended
//!   suffix ([`split_recommended`]), because the page shows that text: `"Keep"` and
//!   `"Keep (Recommended)"` would look the same. A label that is only the suffix is
//!   `label_missing`.
//! - **`multi_select` / `multiSelect`.** Either spelling is accepted. Both present and equal is
//!   fine; both present and different is `multi_select_conflict` at `questions[‹i›]`. A
//!   free-text question keeps its flag as sent (it has no effect there).
//! - **`timeout_s`** must be a non-negative whole number of seconds (`timeout_s_type`); it is not
//!   part of the spec.
//! - **Unknown members** are ignored at every level (no near-miss check as in `survey.md`
//!   §4.10), except `replaces` at the root, refused with `replaces_not_accepted`.
//! - **Quoted values** in messages are shown as sent, but cut to 80 characters with `…`, and a
//!   non-string value is named by its kind (`an array`), so a hostile payload cannot blow up a
//!   message.
//!
//! # Answers
//!
//! The body is `{"answers": [{"id", "selected": [labels], "custom"?}]}`, checked with the entry
//! rules of `survey.md` §7.2 adapted to labels (codes below at [`validate_answers`]).
//! `selected` is mandatory even when `[]`; `custom` may be `null` (absent). The free-text row is
//! always offered, so custom text is allowed on every question, but a single-select question
//! takes **either** one label **or** custom text (`single_select_mixed`, survey A12). A question
//! without an entry, or with a hollow one, is skipped. A submission in which nothing at all was
//! picked or written fails with `no_substance` at `answers`. Unknown entry members (`skipped`,
//! `justifications`) are ignored.

use crate::survey::repair::breaks_to_spaces;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::json::{Json, Object};
use crate::problem::{PathBuf, Problem, exceeds, is_blank};

/// Questions per call: at least 1 …
pub const MIN_QUESTIONS: usize = 1;
/// … and at most 4.
pub const MAX_QUESTIONS: usize = 4;
/// Options per question when there are any (`[]` or no `options` means free text).
pub const MIN_OPTIONS: usize = 2;
/// At most this many options per question.
pub const MAX_OPTIONS: usize = 12;
/// Characters in a question id.
pub const MAX_ID: usize = 64;
/// Characters in a question text.
pub const MAX_QUESTION: usize = 4000;
/// Characters in a header chip.
pub const MAX_HEADER: usize = 40;
/// Characters in a detail text.
pub const MAX_DETAIL: usize = 8000;
/// Characters in an option label.
pub const MAX_LABEL: usize = 200;
/// Characters in an option description.
pub const MAX_DESCRIPTION: usize = 400;
/// Characters in custom answer text, measured after trimming.
pub const MAX_CUSTOM: usize = 8000;
/// The most characters of a questions ask's list title, before the `…`.
pub const TITLE_MAX: usize = 140;

/// Characters of a quoted value shown in a message before it is cut with `…`.
const QUOTE_LIMIT: usize = 80;

/// How the agent treats an `answered` result (the intent of `survey.md` §8.4, for flat
/// questions). Always sent in English.
pub const HANDLING: &str = "Open your next turn by mirroring the user's choices back in one \
line — what they picked, over what, and why where they wrote it — before acting on these \
answers. Trace every decision you make to the answer that settled it. Never re-ask anything \
these questions already answered; ask only what is new. Custom text is the user's own words \
and their stated intent: honour what they wrote, and if you must depart from it, say so and \
why before acting. A skipped question is left open, not agreed to: do not read it as consent \
to any option.";

// ---------------------------------------------------------------------------------------------
// Model
// ---------------------------------------------------------------------------------------------

/// The validated, normal-form arguments of one `ask_user_question` call.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, JsonSchema)]
pub struct QuestionsSpec {
    /// The questions, in the order they are shown.
    pub questions: Vec<FlatQuestion>,
}

/// One flat question.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, JsonSchema)]
#[schemars(inline)]
pub struct FlatQuestion {
    /// Short id, unique within the call; echoed in the answer.
    #[schemars(length(min = 1, max = 64))]
    pub id: String,
    /// The question itself (markdown).
    #[schemars(length(min = 1, max = 4000))]
    pub question: String,
    /// Optional short chip shown above the question, one line.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(max = 40))]
    pub header: Option<String>,
    /// Optional context shown under the question (markdown).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(max = 8000))]
    pub detail: Option<String>,
    /// 2–12 options with unique labels; omit or send [] for a free-text question.
    /// End a label with "(Recommended)" to mark it. A free-text row is always offered too.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schemars(length(max = 12))]
    pub options: Vec<FlatOption>,
    /// Whether several options may be selected (default false; `multiSelect` is accepted too).
    #[serde(default, alias = "multiSelect")]
    pub multi_select: bool,
}

/// One option of a flat question.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, JsonSchema)]
#[schemars(inline)]
pub struct FlatOption {
    /// The option's label, unique within the question; returned in `selected` as sent.
    #[schemars(length(min = 1, max = 200))]
    pub label: String,
    /// Optional one-sentence description shown under the label.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(max = 400))]
    pub description: Option<String>,
}

impl FlatQuestion {
    /// A question without options: answered with custom text only.
    pub fn is_free_text(&self) -> bool {
        self.options.is_empty()
    }
}

/// Ask the user 1–4 quick questions (1–3 is best) and wait for the answers.
///
/// The declared `inputSchema` of `ask_user_question`, from [`args_schema`].
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, JsonSchema)]
#[schemars(
    description = "Ask the user 1–4 quick questions (1–3 is best) and wait for the answers."
)]
pub struct QuestionsArgs {
    /// 1–4 questions, shown together.
    #[schemars(length(min = 1, max = 4))]
    pub questions: Vec<FlatQuestion>,
    /// Optional wait budget for this call, in seconds.
    /// When it runs out the call returns a pending handle; resume with await_answer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout_s: Option<u64>,
}

/// The JSON Schema of the `ask_user_question` arguments (nested shapes inlined, so clients that
/// do not follow `$ref` still show every field).
pub fn args_schema() -> Value {
    schemars::schema_for!(QuestionsArgs).to_value()
}

/// One clean answer entry.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, JsonSchema)]
pub struct QuestionsAnswer {
    /// The question id.
    pub id: String,
    /// Selected option labels, as sent, in submitted order.
    pub selected: Vec<String>,
    /// The trimmed custom text; present only when non-empty.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub custom: Option<String>,
}

impl QuestionsAnswer {
    /// Something was picked or written.
    pub fn is_substantive(&self) -> bool {
        !self.selected.is_empty() || self.custom.is_some()
    }
}

/// A validated submission: clean entries in submission order.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, JsonSchema)]
pub struct QuestionsAnswers {
    pub answers: Vec<QuestionsAnswer>,
}

/// Splits a trailing "(Recommended)" / "(推荐)" marker (ASCII case-insensitive, whitespace
/// before it allowed) off a label: the text the page shows, trimmed, and whether it was marked.
pub fn split_recommended(label: &str) -> (&str, bool) {
    let trimmed = label.trim();
    for suffix in ["(recommended)", "(推荐)"] {
        if trimmed.len() >= suffix.len() {
            let cut = trimmed.len() - suffix.len();
            if trimmed.is_char_boundary(cut) && trimmed[cut..].eq_ignore_ascii_case(suffix) {
                return (trimmed[..cut].trim_end(), true);
            }
        }
    }
    (trimmed, false)
}

// ---------------------------------------------------------------------------------------------
// Argument validation
// ---------------------------------------------------------------------------------------------

/// The title that names a questions ask in lists (the inbox, `askd asks list`, the terminal
/// UI): `ask_user_question` has no title of its own, so it is the first question's text,
/// whitespace collapsed, cut after [`TITLE_MAX`] characters with `…`.
pub fn list_title(spec: &QuestionsSpec) -> Option<String> {
    spec.questions.first().map(|q| {
        let text = q.question.split_whitespace().collect::<Vec<_>>().join(" ");
        match text.char_indices().nth(TITLE_MAX) {
            Some((cut, _)) => format!("{}…", &text[..cut]),
            None => text,
        }
    })
}

/// Validates `ask_user_question` arguments and builds the normal form.
///
/// Codes: `args_not_object`, `questions_missing`, `questions_type`, `questions_empty`,
/// `questions_too_many`, `question_type`, `id_missing`, `id_too_long`, `id_duplicate`,
/// `question_missing`, `question_too_long`, `header_type`, `header_too_long`, `detail_type`,
/// `detail_too_long`, `options_type`, `options_too_few`, `options_too_many`, `option_type`,
/// `label_missing`, `label_too_long`, `label_duplicate`, `description_type`,
/// `description_too_long`, `multi_select_type`, `multi_select_conflict`, `timeout_s_type`,
/// `replaces_not_accepted`.
pub fn validate(args: &Json) -> Result<QuestionsSpec, Vec<Problem>> {
    let Some(root) = args.as_object() else {
        return Err(vec![Problem::new(
            "",
            "args_not_object",
            format!(
                "the ask_user_question arguments must be a JSON object, got {} — the payload was \
                 likely malformed or cut off. Re-send an object {{\"questions\": [{{\"id\", \
                 \"question\", \"options\"?}}]}}.",
                args.kind()
            ),
        )]);
    };
    let mut problems = Vec::new();
    let at = PathBuf::root().field("questions");
    let mut questions = Vec::new();

    match root.get_present("questions") {
        None => problems.push(Problem::new(
            at.as_str(),
            "questions_missing",
            "questions is missing — send \"questions\": an array of 1 to 4 question objects \
             {\"id\", \"question\", \"options\"?}",
        )),
        Some(Json::Array(items)) => {
            if items.is_empty() {
                problems.push(Problem::new(
                    at.as_str(),
                    "questions_empty",
                    "questions must contain at least one question",
                ));
            } else if items.len() > MAX_QUESTIONS {
                problems.push(Problem::new(
                    at.as_str(),
                    "questions_too_many",
                    format!(
                        "questions has {} questions (limit {MAX_QUESTIONS}) — ask the most \
                         important ones now and the rest after these answers, or use ask_survey \
                         for a longer interview",
                        items.len()
                    ),
                ));
            }
            let mut seen_ids: Vec<(&str, usize)> = Vec::new();
            for (i, item) in items.iter().enumerate() {
                if let Some(q) = check_question(&at.index(i), i, item, &mut seen_ids, &mut problems)
                {
                    questions.push(q);
                }
            }
        }
        Some(other) => problems.push(Problem::new(
            at.as_str(),
            "questions_type",
            format!(
                "questions must be an array of 1 to 4 question objects, got {}",
                other.kind()
            ),
        )),
    }

    if let Some(t) = root.get_present("timeout_s")
        && !is_whole_seconds(t)
    {
        problems.push(Problem::new(
            "timeout_s",
            "timeout_s_type",
            format!(
                "timeout_s must be a non-negative whole number of seconds, got {} — omit it to \
                 wait with the server's default budget",
                describe(t)
            ),
        ));
    }

    if root.get_present("replaces").is_some() {
        problems.push(Problem::new(
            "replaces",
            "replaces_not_accepted",
            "replaces is accepted by ask_survey only — drop it; to take back an earlier \
             ask_user_question, call withdraw_ask with its ask_id",
        ));
    }

    if problems.is_empty() {
        Ok(QuestionsSpec { questions })
    } else {
        Err(problems)
    }
}

fn is_whole_seconds(v: &Json) -> bool {
    match v {
        Json::Number(n) => {
            n.as_u64().is_some()
                || n.as_f64()
                    .is_some_and(|f| f.is_finite() && f >= 0.0 && f.fract() == 0.0)
        }
        _ => false,
    }
}

/// Checks one question; returns its normal form when this question itself is clean.
fn check_question<'s>(
    at: &PathBuf,
    i: usize,
    item: &'s Json,
    seen_ids: &mut Vec<(&'s str, usize)>,
    problems: &mut Vec<Problem>,
) -> Option<FlatQuestion> {
    let Some(obj) = item.as_object() else {
        problems.push(Problem::new(
            at.as_str(),
            "question_type",
            format!(
                "{at} must be an object {{\"id\", \"question\", \"options\"?}}, got {}",
                item.kind()
            ),
        ));
        return None;
    };
    let before = problems.len();

    // id
    let id_at = at.field("id");
    let id = required_text(
        obj,
        "id",
        &id_at,
        "id_missing",
        "a short unique id such as \"scope\"",
        problems,
    );
    if let Some(id) = id {
        if exceeds(id, MAX_ID) {
            problems.push(Problem::new(
                id_at.as_str(),
                "id_too_long",
                format!("{id_at} exceeds {MAX_ID} characters — use a short id such as \"scope\""),
            ));
        }
        if let Some((_, first)) = seen_ids.iter().find(|(seen, _)| *seen == id) {
            problems.push(Problem::new(
                id_at.as_str(),
                "id_duplicate",
                format!(
                    "{id_at} {} repeats questions[{first}].id — ids must be unique within the call",
                    quote(id)
                ),
            ));
        } else {
            seen_ids.push((id, i));
        }
    }

    // question
    let q_at = at.field("question");
    let question = required_text(
        obj,
        "question",
        &q_at,
        "question_missing",
        "the question to ask (markdown)",
        problems,
    );
    if let Some(text) = question
        && exceeds(text, MAX_QUESTION)
    {
        problems.push(Problem::new(
            q_at.as_str(),
            "question_too_long",
            format!(
                "{q_at} exceeds {MAX_QUESTION} characters — keep the question short and move \
                 context into detail"
            ),
        ));
    }

    // header
    let header = optional_text(
        obj,
        "header",
        at,
        MAX_HEADER,
        "header_type",
        "header_too_long",
        "a short one-line chip",
        problems,
    )
    .map(breaks_to_spaces);

    // detail
    let detail = optional_text(
        obj,
        "detail",
        at,
        MAX_DETAIL,
        "detail_type",
        "detail_too_long",
        "markdown context",
        problems,
    )
    .map(str::to_owned);

    // options
    let options = check_options(at, obj, problems);

    // multi_select / multiSelect
    let multi_select = check_multi_select(at, obj, problems);

    if problems.len() > before {
        return None;
    }
    Some(FlatQuestion {
        id: id?.to_owned(),
        question: question?.to_owned(),
        header,
        detail,
        options,
        multi_select,
    })
}

/// A required non-blank string member; pushes `code` when it is anything else.
fn required_text<'s>(
    obj: &'s Object,
    name: &str,
    at: &PathBuf,
    code: &'static str,
    what: &str,
    problems: &mut Vec<Problem>,
) -> Option<&'s str> {
    let got = match obj.get(name) {
        Some(Json::String(s)) if !is_blank(s) => return Some(s),
        Some(Json::String(_)) => "a blank string",
        Some(other) => other.kind(),
        None => "nothing",
    };
    problems.push(Problem::new(
        at.as_str(),
        code,
        format!("{at} must be a non-empty string ({what}), got {got}"),
    ));
    None
}

/// An optional string member (`null` = absent, blank = absent in the normal form).
#[allow(clippy::too_many_arguments)]
fn optional_text<'s>(
    obj: &'s Object,
    name: &str,
    parent: &PathBuf,
    limit: usize,
    type_code: &'static str,
    long_code: &'static str,
    what: &str,
    problems: &mut Vec<Problem>,
) -> Option<&'s str> {
    let value = obj.get_present(name)?;
    let at = parent.field(name);
    let Some(s) = value.as_str() else {
        problems.push(Problem::new(
            at.as_str(),
            type_code,
            format!(
                "{at} must be a string ({what}), got {} — or omit it",
                value.kind()
            ),
        ));
        return None;
    };
    if exceeds(s, limit) {
        problems.push(Problem::new(
            at.as_str(),
            long_code,
            format!("{at} exceeds {limit} characters — shorten it"),
        ));
        return None;
    }
    (!is_blank(s)).then_some(s)
}

fn check_options(at: &PathBuf, obj: &Object, problems: &mut Vec<Problem>) -> Vec<FlatOption> {
    let opts_at = at.field("options");
    let items = match obj.get_present("options") {
        None => return Vec::new(),
        Some(Json::Array(items)) => items,
        Some(other) => {
            problems.push(Problem::new(
                opts_at.as_str(),
                "options_type",
                format!(
                    "{opts_at} must be an array of 2 to 12 objects {{\"label\", \
                     \"description\"?}}, got {} — or omit it for a free-text question",
                    other.kind()
                ),
            ));
            return Vec::new();
        }
    };
    if items.is_empty() {
        return Vec::new();
    }
    if items.len() < MIN_OPTIONS {
        problems.push(Problem::new(
            opts_at.as_str(),
            "options_too_few",
            format!(
                "{opts_at} has {} option — give {MIN_OPTIONS} to {MAX_OPTIONS} options, or omit \
                 options (or send []) to make it a free-text question; a free-text row is always \
                 offered besides the options",
                items.len()
            ),
        ));
    } else if items.len() > MAX_OPTIONS {
        problems.push(Problem::new(
            opts_at.as_str(),
            "options_too_many",
            format!(
                "{opts_at} has {} options (limit {MAX_OPTIONS}) — keep the distinct choices, \
                 merge the rest, or use ask_survey",
                items.len()
            ),
        ));
    }
    let mut options = Vec::with_capacity(items.len().min(MAX_OPTIONS));
    // (shown label, index) of earlier options, for the uniqueness rule.
    let mut seen: Vec<(&str, usize)> = Vec::new();
    for (j, item) in items.iter().enumerate() {
        let o_at = opts_at.index(j);
        let Some(o) = item.as_object() else {
            problems.push(Problem::new(
                o_at.as_str(),
                "option_type",
                format!(
                    "{o_at} must be an object {{\"label\", \"description\"?}}, got {}",
                    item.kind()
                ),
            ));
            continue;
        };
        let l_at = o_at.field("label");
        let label = required_text(
            o,
            "label",
            &l_at,
            "label_missing",
            "the option's text",
            problems,
        );
        let mut label_ok = label.is_some();
        if let Some(label) = label {
            let (shown, _) = split_recommended(label);
            if exceeds(label, MAX_LABEL) {
                label_ok = false;
                problems.push(Problem::new(
                    l_at.as_str(),
                    "label_too_long",
                    format!(
                        "{l_at} exceeds {MAX_LABEL} characters — keep the label short and move \
                         the rest into description"
                    ),
                ));
            }
            if shown.is_empty() {
                label_ok = false;
                problems.push(Problem::new(
                    l_at.as_str(),
                    "label_missing",
                    format!(
                        "{l_at} must have text before its recommended marker, got {}",
                        quote(label)
                    ),
                ));
            } else if let Some((_, first)) = seen.iter().find(|(s, _)| *s == shown) {
                label_ok = false;
                problems.push(Problem::new(
                    l_at.as_str(),
                    "label_duplicate",
                    format!(
                        "{l_at} {} repeats {opts_at}[{first}].label — labels must be unique \
                         within a question (the recommended marker does not count)",
                        quote(label)
                    ),
                ));
            } else {
                seen.push((shown, j));
            }
        }
        let description = optional_text(
            o,
            "description",
            &o_at,
            MAX_DESCRIPTION,
            "description_type",
            "description_too_long",
            "one sentence",
            problems,
        );
        if label_ok && let Some(label) = label {
            options.push(FlatOption {
                label: label.to_owned(),
                description: description.map(str::to_owned),
            });
        }
    }
    options
}

fn check_multi_select(at: &PathBuf, obj: &Object, problems: &mut Vec<Problem>) -> bool {
    let mut flags = [None, None];
    for (slot, name) in flags.iter_mut().zip(["multi_select", "multiSelect"]) {
        let Some(v) = obj.get_present(name) else {
            continue;
        };
        match v.as_bool() {
            Some(b) => *slot = Some(b),
            None => {
                let f_at = at.field(name);
                problems.push(Problem::new(
                    f_at.as_str(),
                    "multi_select_type",
                    format!("{f_at} must be a boolean (true or false), got {}", v.kind()),
                ));
            }
        }
    }
    match flags {
        [Some(a), Some(b)] if a != b => {
            problems.push(Problem::new(
                at.as_str(),
                "multi_select_conflict",
                format!("{at} sets multi_select: {a} and multiSelect: {b} — send only one of them"),
            ));
            false
        }
        [Some(a), _] | [None, Some(a)] => a,
        [None, None] => false,
    }
}

// ---------------------------------------------------------------------------------------------
// Answer validation
// ---------------------------------------------------------------------------------------------

/// Validates a submission `{"answers": [{"id", "selected": [labels], "custom"?}]}` against a
/// normal-form spec. Paths are relative to the body (`answers[2].selected[0]`).
///
/// Codes, in rule order per entry: `answers_type` (stop), `answer_type`,
/// `answer_unknown_question`, `answer_duplicate_question`, `selected_type`,
/// `selected_duplicate`, `selected_unknown_label` (one per label), `custom_type`,
/// `custom_too_long`, `single_select_multiple`, `single_select_mixed`; then, when the entries are
/// clean, `no_substance`.
pub fn validate_answers(
    spec: &QuestionsSpec,
    body: &Json,
) -> Result<QuestionsAnswers, Vec<Problem>> {
    let at = PathBuf::root().field("answers");
    let entries = match body.as_object().map(|o| o.get("answers")) {
        Some(Some(Json::Array(entries))) => entries,
        Some(got) => {
            return Err(vec![Problem::new(
                at.as_str(),
                "answers_type",
                format!(
                    "answers must be an array of {{\"id\", \"selected\": [labels], \
                     \"custom\"?}} entries, got {}",
                    got.map_or("nothing", Json::kind)
                ),
            )]);
        }
        None => {
            return Err(vec![Problem::new(
                at.as_str(),
                "answers_type",
                format!(
                    "answers must be an array inside an object body {{\"answers\": [...]}}, \
                     got a body that is {}",
                    body.kind()
                ),
            )]);
        }
    };

    let mut problems = Vec::new();
    let mut clean = Vec::new();
    let mut seen: Vec<&str> = Vec::new();
    for (i, entry) in entries.iter().enumerate() {
        let e_at = at.index(i);
        let Some(obj) = entry.as_object() else {
            problems.push(Problem::new(
                e_at.as_str(),
                "answer_type",
                format!(
                    "{e_at} must be an object {{\"id\", \"selected\", \"custom\"?}}, got {}",
                    entry.kind()
                ),
            ));
            continue;
        };
        if let Some(a) = check_entry(spec, &e_at, obj, &mut seen, &mut problems) {
            clean.push(a);
        }
    }

    if problems.is_empty() && !clean.iter().any(QuestionsAnswer::is_substantive) {
        problems.push(Problem::new(
            at.as_str(),
            "no_substance",
            "answers carries no selections — nothing was picked or written. Pick an option or \
             type an answer for at least one question and submit again, or dismiss the ask to \
             cancel it.",
        ));
    }
    if problems.is_empty() {
        Ok(QuestionsAnswers { answers: clean })
    } else {
        Err(problems)
    }
}

fn check_entry<'s>(
    spec: &QuestionsSpec,
    e_at: &PathBuf,
    obj: &'s Object,
    seen: &mut Vec<&'s str>,
    problems: &mut Vec<Problem>,
) -> Option<QuestionsAnswer> {
    // A3: id names a question.
    let id_at = e_at.field("id");
    let question = entry_question(spec, &id_at, obj, problems)?;
    let id = question.id.as_str();

    // A4: one entry per question.
    if seen.contains(&id) {
        problems.push(Problem::new(
            id_at.as_str(),
            "answer_duplicate_question",
            format!(
                "{id_at} repeats question {} — send one entry per question",
                quote(id)
            ),
        ));
        return None;
    }
    // `seen` borrows from the body; the id string there equals `id`.
    if let Some(Json::String(s)) = obj.get("id") {
        seen.push(s.as_ref());
    }

    // A5: selected is an array of strings; A6: no label twice.
    let s_at = e_at.field("selected");
    let labels = entry_labels(id, &s_at, obj, problems)?;

    // A7: every label is an option of the question.
    let mut entry_ok = labels_are_options(question, &s_at, &labels, problems);

    // A8, A9: custom is a string of at most 8000 characters after trimming.
    let c_at = e_at.field("custom");
    let custom = entry_custom(&c_at, obj, problems)?;

    // A11, A12: single-select takes one label, or custom text, not both.
    if !single_select_fits(question, e_at, &s_at, &labels, custom.is_some(), problems) {
        entry_ok = false;
    }

    entry_ok.then(|| QuestionsAnswer {
        id: id.to_owned(),
        selected: labels.iter().map(|s| (*s).to_owned()).collect(),
        custom,
    })
}

/// A3: the question the entry's `id` names.
fn entry_question<'q>(
    spec: &'q QuestionsSpec,
    id_at: &PathBuf,
    obj: &Object,
    problems: &mut Vec<Problem>,
) -> Option<&'q FlatQuestion> {
    match obj.get("id") {
        Some(Json::String(id)) => match spec.questions.iter().find(|q| q.id == id.as_ref()) {
            Some(q) => Some(q),
            None => {
                problems.push(Problem::new(
                    id_at.as_str(),
                    "answer_unknown_question",
                    format!(
                        "{id_at} {} names no question — the ids are {}",
                        quote(id),
                        roster(spec)
                    ),
                ));
                None
            }
        },
        got => {
            problems.push(Problem::new(
                id_at.as_str(),
                "answer_unknown_question",
                format!(
                    "{id_at} must be a question id string, got {} — the ids are {}",
                    got.map_or("nothing", Json::kind),
                    roster(spec)
                ),
            ));
            None
        }
    }
}

/// A5, A6: the entry's `selected`, an array of distinct label strings.
fn entry_labels<'s>(
    id: &str,
    s_at: &PathBuf,
    obj: &'s Object,
    problems: &mut Vec<Problem>,
) -> Option<Vec<&'s str>> {
    let labels: Vec<&str> = match obj.get("selected") {
        Some(Json::Array(items)) if items.iter().all(|v| v.as_str().is_some()) => {
            items.iter().filter_map(Json::as_str).collect()
        }
        got => {
            let got = match got {
                Some(Json::Array(_)) => "an array with a non-string entry",
                Some(v) => v.kind(),
                None => "nothing",
            };
            problems.push(Problem::new(
                s_at.as_str(),
                "selected_type",
                format!(
                    "{s_at} must be an array of option labels of {} (send [] for none), got {got}",
                    quote(id)
                ),
            ));
            return None;
        }
    };

    // A6: no label twice.
    for (j, label) in labels.iter().enumerate() {
        if labels[..j].contains(label) {
            problems.push(Problem::new(
                s_at.as_str(),
                "selected_duplicate",
                format!(
                    "{s_at} repeats label {} — list each option once",
                    quote(label)
                ),
            ));
            return None;
        }
    }

    Some(labels)
}

/// A7: whether every label is an option of the question (one problem per one that is not).
fn labels_are_options(
    question: &FlatQuestion,
    s_at: &PathBuf,
    labels: &[&str],
    problems: &mut Vec<Problem>,
) -> bool {
    let id = question.id.as_str();
    let mut entry_ok = true;
    for (j, label) in labels.iter().enumerate() {
        if !question.options.iter().any(|o| o.label == *label) {
            entry_ok = false;
            let hint = if question.is_free_text() {
                format!(
                    "question {} is free-text and has no options: send selected: [] and the text \
                     in custom",
                    quote(id)
                )
            } else {
                format!(
                    "send labels exactly as in the question {}: {}",
                    quote(id),
                    label_roster(question)
                )
            };
            problems.push(Problem::new(
                s_at.index(j).as_str(),
                "selected_unknown_label",
                format!(
                    "{} {} is not an option label — {hint}",
                    s_at.index(j),
                    quote(label)
                ),
            ));
        }
    }
    entry_ok
}

/// A8, A9: the entry's trimmed `custom` text (`Some(None)` when absent or blank; `None` after
/// a problem).
fn entry_custom(
    c_at: &PathBuf,
    obj: &Object,
    problems: &mut Vec<Problem>,
) -> Option<Option<String>> {
    match obj.get_present("custom") {
        None => Some(None),
        Some(Json::String(s)) => {
            let t = s.trim();
            if exceeds(t, MAX_CUSTOM) {
                problems.push(Problem::new(
                    c_at.as_str(),
                    "custom_too_long",
                    format!("{c_at} exceeds {MAX_CUSTOM} characters — shorten the text"),
                ));
                return None;
            }
            Some((!t.is_empty()).then(|| t.to_owned()))
        }
        Some(other) => {
            problems.push(Problem::new(
                c_at.as_str(),
                "custom_type",
                format!(
                    "{c_at} must be a string (the free text), got {} — or omit it",
                    other.kind()
                ),
            ));
            None
        }
    }
}

/// A11, A12: whether a single-select entry takes one label, or custom text, not both.
fn single_select_fits(
    question: &FlatQuestion,
    e_at: &PathBuf,
    s_at: &PathBuf,
    labels: &[&str],
    has_custom: bool,
    problems: &mut Vec<Problem>,
) -> bool {
    let id = question.id.as_str();
    if question.multi_select {
        return true;
    }
    if labels.len() > 1 {
        problems.push(Problem::new(
            s_at.as_str(),
            "single_select_multiple",
            format!(
                "{s_at} selects {} options on single-select question {} — select at most one",
                labels.len(),
                quote(id)
            ),
        ));
        false
    } else if !labels.is_empty() && has_custom {
        problems.push(Problem::new(
            e_at.as_str(),
            "single_select_mixed",
            format!(
                "{e_at} combines an option with custom text on single-select question {} — \
                     send either one label or the custom text",
                quote(id)
            ),
        ));
        false
    } else {
        true
    }
}

// ---------------------------------------------------------------------------------------------
// Result
// ---------------------------------------------------------------------------------------------

/// The `answered` result: `{outcome, ask_id, answers, skipped, handling}`.
///
/// `answers` lists, in question order, every question with a substantive answer
/// (`{id, selected, custom?}`, labels as sent); `skipped` lists, in question order, every other
/// question (no entry, or a hollow one). Entries for ids that are not in `spec` are ignored.
pub fn answered_result(spec: &QuestionsSpec, ask_id: &str, answers: &QuestionsAnswers) -> Value {
    let mut listed = Vec::new();
    let mut skipped = Vec::new();
    for q in &spec.questions {
        match answers
            .answers
            .iter()
            .find(|a| a.id == q.id && a.is_substantive())
        {
            Some(a) => {
                let mut entry = Map::new();
                entry.insert("id".into(), Value::String(a.id.clone()));
                entry.insert(
                    "selected".into(),
                    Value::Array(a.selected.iter().cloned().map(Value::String).collect()),
                );
                if let Some(c) = &a.custom {
                    entry.insert("custom".into(), Value::String(c.clone()));
                }
                listed.push(Value::Object(entry));
            }
            None => skipped.push(Value::String(q.id.clone())),
        }
    }
    let mut out = Map::new();
    out.insert(
        "outcome".into(),
        Value::from(crate::Outcome::Answered.as_str()),
    );
    out.insert("ask_id".into(), Value::from(ask_id));
    out.insert("answers".into(), Value::Array(listed));
    out.insert("skipped".into(), Value::Array(skipped));
    out.insert("handling".into(), Value::from(HANDLING));
    Value::Object(out)
}

// ---------------------------------------------------------------------------------------------
// Message helpers
// ---------------------------------------------------------------------------------------------

/// `"text"` as sent (no escaping), cut to [`QUOTE_LIMIT`] characters with `…`.
fn quote(s: &str) -> String {
    crate::problem::quote(s, QUOTE_LIMIT)
}

/// A value for a message: "the string …", a number, or the kind of anything else.
pub(crate) fn describe(v: &Json) -> String {
    crate::problem::describe(v, QUOTE_LIMIT, QUOTE_LIMIT, "the string ")
}

fn roster(spec: &QuestionsSpec) -> String {
    join_quoted(spec.questions.iter().map(|q| q.id.as_str()))
}

fn label_roster(q: &FlatQuestion) -> String {
    join_quoted(q.options.iter().map(|o| o.label.as_str()))
}

fn join_quoted<'s>(items: impl Iterator<Item = &'s str>) -> String {
    let mut out = String::new();
    for (i, s) in items.enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        out.push_str(&quote(s));
    }
    if out.is_empty() {
        out.push_str("(none)");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_list_title_is_the_first_question_collapsed_and_cut() {
        let spec = |q: &str| -> QuestionsSpec {
            serde_json::from_value(serde_json::json!({"questions": [{"id": "q", "question": q}]}))
                .unwrap()
        };
        assert_eq!(
            list_title(&spec("  Which\n  path?  ")).as_deref(),
            Some("Which path?")
        );
        let long = list_title(&spec(&"é".repeat(200))).unwrap();
        assert_eq!(long.chars().count(), TITLE_MAX + 1);
        assert!(long.ends_with('…'));
        assert_eq!(list_title(&QuestionsSpec { questions: vec![] }), None);
    }

    #[test]
    fn one_line_replaces_every_break_by_one_space() {
        assert_eq!(breaks_to_spaces("a\r\nb\nc\rd\n\ne"), "a b c d  e");
    }

    #[test]
    fn recommended_suffix_is_split_case_insensitively() {
        assert_eq!(
            split_recommended("Keep it (Recommended)"),
            ("Keep it", true)
        );
        assert_eq!(
            split_recommended("Keep it (recommended) "),
            ("Keep it", true)
        );
        assert_eq!(
            split_recommended("保留（默认）(推荐)"),
            ("保留（默认）", true)
        );
        assert_eq!(split_recommended("Keep"), ("Keep", false));
        assert_eq!(split_recommended("é(推荐"), ("é(推荐", false));
    }

    #[test]
    fn quote_cuts_long_values_on_a_char_boundary() {
        let long = "é".repeat(100);
        let q = quote(&long);
        assert!(q.ends_with("…\""));
        assert_eq!(q.chars().count(), QUOTE_LIMIT + 3);
    }

    #[test]
    fn whole_seconds() {
        let ok = |t: &str| is_whole_seconds(&crate::json::parse(t).unwrap());
        assert!(ok("30"));
        assert!(ok("30.0"));
        assert!(!ok("-1"));
        assert!(!ok("1.5"));
        assert!(!ok("\"30\""));
    }
}

//! The flat `ask_user_question` tool (`platform.md` §4.1): its model and normal form (here),
//! argument validation ([`validate()`], in `validate`), answer validation and the `answered`
//! result ([`validate_answers`], [`answered_result`], in `answers`).
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

mod answers;
mod validate;

pub use answers::{answered_result, validate_answers};
pub use validate::validate;

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
    /// When the ask stops waiting, and what happens then ([`crate::deadline`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "deadline_schema")]
    pub deadline: Option<serde_json::Value>,
    /// More than one approver, team mode ([`crate::approvals`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "approvals_schema")]
    pub approvals: Option<serde_json::Value>,
}

fn approvals_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::Schema::try_from(crate::approvals::schema()).unwrap_or_default()
}

fn deadline_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::Schema::try_from(crate::deadline::schema()).unwrap_or_default()
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
    use super::validate::is_whole_seconds;
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

//! The survey spec in its normal form (`survey.md` §2, §2.7).
//!
//! These types are what askd keeps after validation: unknown fields dropped, `null` dropped
//! except on `next`, escape repair applied, member order preserved. They are also the
//! declared parameter schema of `ask_survey` (§2.9): the doc comments and limits below are
//! what a client that renders schemas shows.

use indexmap::IndexMap;
use schemars::JsonSchema;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// A branching survey: a directed graph of questions, entered at `entry`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SurveySpec {
    /// Survey title (non-blank when present). The UI shows "Survey" when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(min = 1, max = 300))]
    pub title: Option<String>,
    /// Markdown shown on the intro page. Orient the user: what is decided and why.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(max = 8000))]
    pub intro: Option<String>,
    /// The id of the first question.
    #[schemars(length(min = 1))]
    pub entry: String,
    /// Question id -> question. 1 to 150 questions; ids are the member names.
    #[schemars(extend("minProperties" = 1, "maxProperties" = 150))]
    pub questions: IndexMap<String, Question>,
    /// Up to six whole-survey answer maps the user can apply with one click.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(max = 6))]
    pub quick: Option<Vec<QuickTemplate>>,
}

/// One node of the survey graph.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Question {
    /// The question itself (Markdown), self-contained.
    #[schemars(length(min = 1, max = 4000))]
    pub prompt: String,
    /// A short chip shown above the prompt (one line).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(max = 200))]
    pub header: Option<String>,
    /// Extra context under the prompt (Markdown).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(max = 8000))]
    pub detail: Option<String>,
    /// Several options may be selected (checkboxes). Default false.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub multi_select: Option<bool>,
    /// Show the free-text row and accept custom text. Default true.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub allow_custom: Option<bool>,
    /// Show Skip and accept an empty answer. Default true.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub skippable: Option<bool>,
    /// 5 to 40 options; omit for a free-text-only question.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(min = 5, max = 40))]
    pub options: Option<Vec<SurveyOption>>,
    /// Question-level follow-up: an id, a list of ids, or null (no follow-up).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "present_next"
    )]
    pub next: Option<Next>,
}

/// One selectable answer of a question.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SurveyOption {
    /// Unique within the question; by convention a, b, c…
    #[schemars(length(min = 1))]
    pub key: String,
    /// A trailing "(recommended)" or "(推荐)" marks the option as recommended.
    #[schemars(length(min = 1, max = 200))]
    pub label: String,
    /// One sentence, always visible under the label.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(max = 400))]
    pub description: Option<String>,
    /// Markdown behind the `?` disclosure: the promise, the price, the present.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(max = 1500))]
    pub insight: Option<String>,
    /// Mermaid source, rendered by askd and shown behind the diagram disclosure.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(max = 1200))]
    pub diagram: Option<String>,
    /// Up to 8 sources (≤ 500 characters each); URLs starting with http become links.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(max = 8), inner(length(min = 1, max = 500)))]
    pub sources: Option<Vec<String>>,
    /// Shows a "Recommended" badge. Options are never reordered.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recommended: Option<bool>,
    /// Option-level edge: an id, a list of ids, or null (the branch ends). Absent: the
    /// question-level `next` applies.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "present_next"
    )]
    pub next: Option<Next>,
}

/// A whole-survey answer map applied with one click.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct QuickTemplate {
    /// Unique across templates; by convention a to f.
    #[schemars(length(min = 1))]
    pub key: String,
    #[schemars(length(min = 1, max = 200))]
    pub label: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(max = 400))]
    pub description: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(max = 1500))]
    pub insight: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(max = 1200))]
    pub diagram: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(max = 8), inner(length(min = 1, max = 500)))]
    pub sources: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recommended: Option<bool>,
    /// Question id -> answer. Must answer every question its own branch reaches, and
    /// nothing else.
    pub answers: IndexMap<String, QuickAnswer>,
}

/// One answer inside a quick template.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct QuickAnswer {
    /// Option keys; at most one on a single-select question.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub selected: Option<Vec<String>>,
    /// Custom text; not combined with a selection on a single-select question.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub custom: Option<String>,
}

/// A `next` value as sent: `null`, one id, or a list of ids (§6.2).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Next {
    /// `null`: no follow-up (question) or the branch ends (option).
    End,
    One(String),
    Many(Vec<String>),
}

impl Next {
    /// The normalized target list of §6.2: `""` and `null` give nothing.
    pub fn targets(&self) -> impl Iterator<Item = &str> {
        let slice: &[String] = match self {
            Next::End => &[],
            Next::One(s) => std::slice::from_ref(s),
            Next::Many(v) => v,
        };
        slice.iter().map(String::as_str).filter(|s| !s.is_empty())
    }
}

impl Serialize for Next {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Next::End => s.serialize_none(),
            Next::One(id) => s.serialize_str(id),
            Next::Many(ids) => ids.serialize(s),
        }
    }
}

impl<'de> Deserialize<'de> for Next {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Raw {
            One(String),
            Many(Vec<String>),
        }
        Ok(match Option::<Raw>::deserialize(d)? {
            None => Next::End,
            Some(Raw::One(s)) => Next::One(s),
            Some(Raw::Many(v)) => Next::Many(v),
        })
    }
}

/// A present `next` member, even `null`, is `Some`; only an absent one is `None`.
fn present_next<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Next>, D::Error> {
    Next::deserialize(d).map(Some)
}

impl JsonSchema for Next {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Next".into()
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "description": "A question id, a list of ids (each followed depth-first, in order), or null.",
            "anyOf": [
                { "type": "string" },
                { "type": "array", "items": { "type": "string" } },
                { "type": "null" }
            ]
        })
    }
}

impl SurveySpec {
    pub fn question(&self, id: &str) -> Option<&Question> {
        self.questions.get(id)
    }
}

impl Question {
    pub fn is_multi(&self) -> bool {
        self.multi_select.unwrap_or(false)
    }
    pub fn allows_custom(&self) -> bool {
        self.allow_custom.unwrap_or(true)
    }
    pub fn is_skippable(&self) -> bool {
        self.skippable.unwrap_or(true)
    }
    pub fn options(&self) -> &[SurveyOption] {
        self.options.as_deref().unwrap_or(&[])
    }
    pub fn option(&self, key: &str) -> Option<&SurveyOption> {
        self.options().iter().find(|o| o.key == key)
    }
}

/// Arguments of ask_survey: a branching survey put in front of the user; the call waits for
/// their answers.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct AskSurveyArgs {
    /// The survey spec.
    pub survey: SurveySpec,
    /// The ask_id of this session's survey that this one revises: it settles as
    /// superseded and the user's banked work carries over when the questions match.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replaces: Option<String>,
    /// This call's wait budget in seconds; the shorter of it and askd's maxWait applies.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout_s: Option<u64>,
}

/// The JSON Schema of the `ask_survey` arguments, with every nested shape attached.
/// Nested shapes are inlined (no `$ref`), for clients that do not follow references.
pub fn args_schema() -> serde_json::Value {
    let generator = schemars::generate::SchemaSettings::draft2020_12()
        .with(|s| s.inline_subschemas = true)
        .into_generator();
    serde_json::to_value(generator.into_root_schema_for::<AskSurveyArgs>()).unwrap_or_default()
}

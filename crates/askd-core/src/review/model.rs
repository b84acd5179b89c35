//! The normal form of a review (`review.md` §2.5), its limits, the labels of both languages
//! (§2.6) and the declared JSON Schema of the `batch_review` arguments.

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::hash::FastMap;

/// Items of an interactive review when the caller passes no cap (`maxItems` default).
pub const DEFAULT_MAX_ITEMS: usize = 100;
/// Items of an offline review: a fixed ceiling.
pub const OFFLINE_MAX_ITEMS: usize = 10_000;
/// Characters of the review title.
pub const MAX_TITLE: usize = 200;
/// Characters of an item heading (`title` / `label`).
pub const MAX_HEADING: usize = 500;
/// Characters of `group` and `header`.
pub const MAX_GROUP: usize = 80;
pub const MAX_HEADER: usize = 80;
/// Characters of `detail`.
pub const MAX_DETAIL: usize = 8_000;
/// Characters of `op` and `expect`.
pub const MAX_OP: usize = 2_000;
pub const MAX_EXPECT: usize = 2_000;
/// Characters of `boolDesc`.
pub const MAX_BOOL_DESC: usize = 200;
/// Options of a choice item.
pub const MIN_OPTIONS: usize = 2;
pub const MAX_OPTIONS: usize = 20;
/// Characters of an option value and an option text.
pub const MAX_VALUE: usize = 64;
pub const MAX_OPTION_TEXT: usize = 200;
/// Characters of an item id.
pub const MAX_ID: usize = 64;
/// The largest integer id (2^53 − 1).
pub const MAX_INT_ID: u64 = 9_007_199_254_740_991;
/// Bounds of a scale's `min` and `max`, and the widest span.
pub const SCALE_BOUND: i64 = 1_000;
pub const MAX_SPAN: i64 = 20;
/// Characters of a note or text answer.
pub const MAX_NOTE: usize = 4_000;
/// Characters of `persist`.
pub const MAX_PERSIST: usize = 1_024;
/// Problems reported before the list ends with `too_many_errors`.
pub const MAX_PROBLEMS: usize = 100;

/// The five item types.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[serde(rename_all = "lowercase")]
pub enum ItemType {
    Confirm,
    Bool,
    Choice,
    Text,
    Scale,
}

impl ItemType {
    pub const ALL: [ItemType; 5] = [
        ItemType::Confirm,
        ItemType::Bool,
        ItemType::Choice,
        ItemType::Text,
        ItemType::Scale,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            ItemType::Confirm => "confirm",
            ItemType::Bool => "bool",
            ItemType::Choice => "choice",
            ItemType::Text => "text",
            ItemType::Scale => "scale",
        }
    }

    pub fn parse(s: &str) -> Option<ItemType> {
        ItemType::ALL.into_iter().find(|t| t.as_str() == s)
    }

    /// The fixed verdicts of this type, in the order every surface offers them (none for
    /// choice, text and scale, whose verdicts are the item's own).
    pub fn verdicts(self) -> &'static [&'static str] {
        use crate::vocab::verdict::{CONFIRM, YES_NO};
        match self {
            ItemType::Confirm => CONFIRM,
            ItemType::Bool => YES_NO,
            _ => &[],
        }
    }
}

/// The review's language (§2.6): the core's one [`Lang`], re-exported here.
pub use crate::Lang;

/// The review's labels in each language.
impl Lang {
    /// The confirm verdict labels: Pass / Fail / Pending.
    pub fn confirm_label(self, verdict: &str) -> &'static str {
        match (self, verdict) {
            (Lang::En, "pass") => "Pass",
            (Lang::En, "fail") => "Fail",
            (Lang::En, "pending") => "Pending",
            (Lang::Zh, "pass") => "通过",
            (Lang::Zh, "fail") => "不通过",
            (Lang::Zh, "pending") => "待定",
            _ => "",
        }
    }

    /// The bool verdict labels: Yes / No.
    pub fn bool_label(self, verdict: &str) -> &'static str {
        match (self, verdict) {
            (Lang::En, "yes") => "Yes",
            (Lang::En, "no") => "No",
            (Lang::Zh, "yes") => "是",
            (Lang::Zh, "no") => "否",
            _ => "",
        }
    }

    /// How several option texts are joined in a label: `, ` or `、`.
    pub fn join(self) -> &'static str {
        match self {
            Lang::En => ", ",
            Lang::Zh => "、",
        }
    }
}

/// Where a review was settled (§5.1).
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Surface {
    Card,
    Panel,
    Terminal,
    Import,
    /// A form inside the agent's client (MCP form elicitation, `clients.md` §3).
    #[serde(rename = "client-form")]
    ClientForm,
    /// askd's MCP App inside the agent's client (issue 20).
    App,
    /// The command line (`askd asks answer`).
    Cli,
}

impl Surface {
    pub fn as_str(self) -> &'static str {
        match self {
            Surface::Card => "card",
            Surface::Panel => "panel",
            Surface::Terminal => "terminal",
            Surface::Import => "import",
            Surface::ClientForm => "client-form",
            Surface::App => "app",
            Surface::Cli => "cli",
        }
    }

    /// The surfaces a submit may name (import has its own route).
    pub fn parse_submit(s: &str) -> Option<Surface> {
        match s {
            "card" => Some(Surface::Card),
            "panel" => Some(Surface::Panel),
            "terminal" => Some(Surface::Terminal),
            "client-form" => Some(Surface::ClientForm),
            "app" => Some(Surface::App),
            "cli" => Some(Surface::Cli),
            _ => None,
        }
    }
}

/// One option of a choice item.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
pub struct ReviewOption {
    /// The machine value (integers become decimal strings).
    pub v: String,
    /// The text shown.
    pub t: String,
}

/// One normalised item.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
pub struct ReviewItem {
    pub id: String,
    #[serde(rename = "type")]
    pub kind: ItemType,
    /// The heading: `title`, else `label`, else (confirm) `op`.
    pub title: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub group: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub header: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
    /// confirm: the action (absent when it served as the heading).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub op: Option<String>,
    /// confirm: the expected outcome.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expect: Option<String>,
    /// bool: what a Yes means.
    #[serde(rename = "boolDesc", default, skip_serializing_if = "Option::is_none")]
    pub bool_desc: Option<String>,
    /// choice: 2–20 options.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub options: Vec<ReviewOption>,
    /// choice: several options allowed (always present on a choice item).
    #[serde(
        rename = "multiSelect",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub multi_select: Option<bool>,
    /// scale: the bounds (always present on a scale item).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max: Option<i64>,
}

impl ReviewItem {
    pub fn is_multi(&self) -> bool {
        self.multi_select.unwrap_or(false)
    }

    /// The scale bounds (defaults 1 and 5).
    pub fn bounds(&self) -> (i64, i64) {
        (self.min.unwrap_or(1), self.max.unwrap_or(5))
    }

    /// The verdicts this item offers, in the order every surface shows them and digits pick
    /// them: a confirm's pass / fail / pending, a bool's yes / no, a choice's option values,
    /// a scale's `min..=max`; none for text (its answer is the note). Served with the view
    /// (`review.verdicts`), so the panel and the terminal UI keep no copy of the rule.
    pub fn verdict_values(&self) -> Vec<String> {
        match self.kind {
            ItemType::Confirm | ItemType::Bool => {
                self.kind.verdicts().iter().map(|v| v.to_string()).collect()
            }
            ItemType::Choice => self.options.iter().map(|o| o.v.clone()).collect(),
            ItemType::Scale => {
                let (min, max) = self.bounds();
                (min..=max).map(|v| v.to_string()).collect()
            }
            ItemType::Text => Vec::new(),
        }
    }

    /// The panel's section key: `group`, else `header`.
    pub fn section_key(&self) -> Option<&str> {
        self.group.as_deref().or(self.header.as_deref())
    }

    pub fn option(&self, v: &str) -> Option<&ReviewOption> {
        self.options.iter().find(|o| o.v == v)
    }
}

/// The normal form of one `batch_review` call: what askd stores, renders, exports and reports.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
pub struct ReviewSpec {
    pub title: String,
    pub lang: Lang,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub offline: bool,
    /// The path as the agent gave it (trimmed); resolved against the workspace when written.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub persist: Option<String>,
    pub items: Vec<ReviewItem>,
}

impl ReviewSpec {
    /// One item by id: a scan, for a single lookup. Code that looks up many ids (an import,
    /// a fold) builds [`ReviewSpec::index`] once instead.
    pub fn item(&self, id: &str) -> Option<&ReviewItem> {
        self.items.iter().find(|i| i.id == id)
    }

    /// Every item by id (ids are unique in a normal form), built in one pass.
    pub fn index(&self) -> FastMap<&str, &ReviewItem> {
        let mut index = FastMap::with_capacity_and_hasher(self.items.len(), Default::default());
        for item in &self.items {
            index.entry(item.id.as_str()).or_insert(item);
        }
        index
    }

    pub fn has_type(&self, t: ItemType) -> bool {
        self.items.iter().any(|i| i.kind == t)
    }

    /// The surface a review is answered on when no surface says otherwise: `import` for an
    /// offline review, `card` for one item, `panel` for more.
    pub fn default_surface(&self) -> Surface {
        if self.offline {
            Surface::Import
        } else if self.items.len() == 1 {
            Surface::Card
        } else {
            Surface::Panel
        }
    }
}

/// The declared `inputSchema` of `batch_review`. The item cap is configuration
/// (`maxItems`), so it is stated in the description rather than as `maxItems`.
pub fn args_schema() -> Value {
    let single = |max: usize, desc: &str| json!({"type": "string", "minLength": 1, "maxLength": max, "description": desc});
    json!({
        "type": "object",
        "description": "A checklist for the human: one verdict and an optional note per item, on one screen.",
        "properties": {
            "title": single(MAX_TITLE, "The review's name: one line, shown in the inbox, the panel and the first line of report_text."),
            "items": {
                "type": "array",
                "minItems": 1,
                "description": format!("1..maxItems items (askd's maxItems setting, {DEFAULT_MAX_ITEMS} by default); order is kept everywhere. Sort related items into groups. With offline: true up to {OFFLINE_MAX_ITEMS}."),
                "items": {
                    "type": "object",
                    "properties": {
                        "id": {"type": ["string", "integer"], "description": "A-Z a-z 0-9 . _ : - (1-64) or a non-negative integer; unique. Assigned 1..N when absent."},
                        "type": {"type": "string", "enum": ["confirm", "bool", "choice", "text", "scale"], "default": "confirm", "description": "confirm: Pass/Fail/Pending; bool: Yes/No; choice: options; text: a written answer; scale: min..max."},
                        "title": single(MAX_HEADING, "The item's heading, one line. title or label is required (a confirm item may use op instead)."),
                        "label": single(MAX_HEADING, "Synonym of title."),
                        "group": {"type": "string", "maxLength": MAX_GROUP, "description": "Section of the panel and the export."},
                        "header": {"type": "string", "maxLength": MAX_HEADER, "description": "Short tag shown as a chip; the section key when group is absent."},
                        "detail": {"type": "string", "maxLength": MAX_DETAIL, "description": "Supporting context (Markdown), collapsed by default."},
                        "op": {"type": "string", "maxLength": MAX_OP, "description": "confirm only: the action to perform or the change under review."},
                        "expect": {"type": "string", "maxLength": MAX_EXPECT, "description": "confirm only: the expected outcome."},
                        "boolDesc": {"type": "string", "maxLength": MAX_BOOL_DESC, "description": "bool only: what a Yes means."},
                        "options": {
                            "type": "array", "minItems": MIN_OPTIONS, "maxItems": MAX_OPTIONS,
                            "description": "choice only (required): {v: machine value, t: text shown}.",
                            "items": {
                                "type": "object",
                                "properties": {
                                    "v": {"type": ["string", "integer"], "description": "1-64 characters, no , ; 、 ， ； and no surrounding spaces; unique."},
                                    "t": single(MAX_OPTION_TEXT, "The text shown.")
                                },
                                "required": ["v", "t"],
                                "additionalProperties": false
                            }
                        },
                        "multiSelect": {"type": "boolean", "default": false, "description": "choice only: allow several options."},
                        "min": {"type": "integer", "minimum": -SCALE_BOUND, "maximum": SCALE_BOUND, "default": 1, "description": "scale only."},
                        "max": {"type": "integer", "minimum": -SCALE_BOUND, "maximum": SCALE_BOUND, "default": 5, "description": "scale only: greater than min, at most 20 steps."}
                    },
                    "additionalProperties": false
                }
            },
            "lang": {"type": "string", "enum": ["en", "zh-CN", "zh"], "description": "Language of the labels and report_text; inferred from the text when absent."},
            "persist": {"type": "string", "minLength": 1, "maxLength": MAX_PERSIST, "description": "A file inside the workspace for a copy of the result: .md gets report_text, anything else JSON."},
            "offline": {"type": "boolean", "default": false, "description": "Reviewed as a spreadsheet or offline page through askd review export / import instead of the panel."},
            "timeout_s": {"type": "number", "minimum": 0, "description": "This call's wait budget in seconds; when it runs out the call returns a pending handle — resume with await_answer."},
            "deadline": crate::deadline::schema(),
            "approvals": crate::approvals::schema()
        },
        "required": ["title", "items"],
        "additionalProperties": false
    })
}

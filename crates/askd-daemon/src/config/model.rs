//! The effective configuration: [`Config`], its tables and enums, the resolved language.

use super::*;

pub use askd_core::alignment::Mode;

/// `language`: the language of the MCP server instructions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub enum Language {
    #[default]
    #[serde(rename = "auto")]
    Auto,
    #[serde(rename = "en")]
    En,
    #[serde(rename = "zh-CN")]
    ZhCn,
}

impl Language {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Auto => "auto",
            Self::En => "en",
            Self::ZhCn => "zh-CN",
        }
    }

    pub(super) fn parse(s: &str) -> Option<Self> {
        match s {
            "auto" => Some(Self::Auto),
            "en" => Some(Self::En),
            "zh-CN" => Some(Self::ZhCn),
            _ => None,
        }
    }
}

/// `elicitation` (`clients.md` §3): whether askd puts an ask in front of the human inside
/// their client — `auto` (a form when the ask fits one), `form`, `url`, or `off`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Elicitation {
    #[default]
    Auto,
    Form,
    Url,
    Off,
}

impl Elicitation {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Auto => "auto",
            Self::Form => "form",
            Self::Url => "url",
            Self::Off => "off",
        }
    }

    pub(super) fn parse(s: &str) -> Option<Self> {
        match s {
            "auto" => Some(Self::Auto),
            "form" => Some(Self::Form),
            "url" => Some(Self::Url),
            "off" => Some(Self::Off),
            _ => None,
        }
    }
}

/// `[survey]` (survey.md).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SurveyConfig {
    /// Exclusive cap for `survey_draft_set op=structure`; 1..=151, default 40.
    pub structure_question_cap: u32,
    /// Write a copy of each settled survey record into `<workspace>/.askd/surveys/`.
    pub workspace_records: bool,
}

impl Default for SurveyConfig {
    fn default() -> Self {
        Self {
            structure_question_cap: DEFAULT_STRUCTURE_QUESTION_CAP,
            workspace_records: true,
        }
    }
}

/// `[batch_review]` (review.md §7.2). `maxBodyBytes` is the top-level key.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct BatchReviewConfig {
    /// 1..=500, default 100.
    pub max_items: u32,
    /// 50..=2000, default 500.
    pub virtual_threshold: u32,
    /// Config file only; default false.
    pub allow_external_persist: bool,
}

impl Default for BatchReviewConfig {
    fn default() -> Self {
        Self {
            max_items: DEFAULT_MAX_ITEMS,
            virtual_threshold: DEFAULT_VIRTUAL_THRESHOLD,
            allow_external_persist: false,
        }
    }
}

/// `[alignment]` (alignment.md §3.3).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AlignmentConfig {
    /// The core's alignment mode (`auto`, `manual`, `off`); default `auto`.
    pub mode: Mode,
    /// Replaces the built-in policy text; `None` = built-in. Non-blank, at most 32 KiB.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub section: Option<String>,
}

impl Default for AlignmentConfig {
    fn default() -> Self {
        Self {
            mode: Mode::Auto,
            section: None,
        }
    }
}

/// The effective configuration. Serialises (camelCase keys, tables nested) to a valid
/// `askd.toml`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Config {
    pub listen: SocketAddr,
    /// Seconds; `None` = a waiting call blocks until settled.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_wait: Option<u64>,
    pub max_body_bytes: u64,
    pub language: Language,
    /// Host names accepted besides the loopback names (lowercase, no port).
    pub allowed_hosts: Vec<String>,
    /// Seconds with nothing pending before the daemon exits; 0 = never.
    pub idle_exit: u64,
    /// Answering in the client (`clients.md` §3).
    pub elicitation: Elicitation,
    pub survey: SurveyConfig,
    #[serde(rename = "batch_review")]
    pub batch_review: BatchReviewConfig,
    pub alignment: AlignmentConfig,
}

impl Default for Config {
    fn default() -> Self {
        Self {
            listen: DEFAULT_LISTEN,
            max_wait: None,
            max_body_bytes: DEFAULT_MAX_BODY_BYTES,
            language: Language::Auto,
            allowed_hosts: Vec::new(),
            idle_exit: 0,
            elicitation: Elicitation::Auto,
            survey: SurveyConfig::default(),
            batch_review: BatchReviewConfig::default(),
            alignment: AlignmentConfig::default(),
        }
    }
}

impl Config {
    /// `maxWait` as a duration (`None` = unlimited).
    pub fn max_wait_duration(&self) -> Option<Duration> {
        self.max_wait.map(Duration::from_secs)
    }

    /// `idleExit` as a duration (`None` = never exit).
    pub fn idle_exit_duration(&self) -> Option<Duration> {
        (self.idle_exit > 0).then(|| Duration::from_secs(self.idle_exit))
    }

    /// "en" or "zh-CN" for this config's `language` (see [`resolve_language`]).
    pub fn resolved_language(&self, env: &Env) -> &'static str {
        resolve_language(self.language, env)
    }
}

/// "en" or "zh-CN". `auto` reads the first non-empty of `LC_ALL`, `LC_MESSAGES`, `LANG` and
/// picks Chinese when it starts with `zh` (any case); English otherwise or when none is set.
pub fn resolve_language(config_language: Language, env: &Env) -> &'static str {
    match config_language {
        Language::En => "en",
        Language::ZhCn => "zh-CN",
        Language::Auto => {
            let first = ["LC_ALL", "LC_MESSAGES", "LANG"]
                .iter()
                .filter_map(|var| env.get(*var))
                .find(|v| !v.is_empty());
            match first {
                Some(v) if v.get(..2).is_some_and(|p| p.eq_ignore_ascii_case("zh")) => "zh-CN",
                _ => "en",
            }
        }
    }
}

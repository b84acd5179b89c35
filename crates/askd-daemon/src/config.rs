//! askd's configuration (platform.md §9): the `askd.toml` file, `ASKD_*` environment
//! variables and `--*` flags, merged flag > env > file > built-in default, with the same
//! validation whatever the source; plus the data directory and the files it holds.
//!
//! Resolution is a pure function ([`load`]) over an explicit env map, flag list and file
//! text; [`load_from_process`] is the thin wrapper that reads the real ones.

use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::ops::RangeInclusive;
use std::path::Path;
use std::time::Duration;

use serde::Serialize;

/// The environment as a plain map (name → value).
pub type Env = HashMap<String, String>;

/// The documented default bind address (platform.md §1).
pub const DEFAULT_LISTEN: SocketAddr =
    SocketAddr::new(IpAddr::V4(Ipv4Addr::new(127, 0, 0, 1)), 7391);

/// `maxWait` in seconds (absent = unlimited).
pub const MAX_WAIT_RANGE: RangeInclusive<u64> = 1..=86_400;
/// `maxBodyBytes` (review.md §7.2: 1 KiB – 128 MiB).
pub const MAX_BODY_BYTES_RANGE: RangeInclusive<u64> = 1_024..=134_217_728;
pub const DEFAULT_MAX_BODY_BYTES: u64 = 64 * 1024 * 1024;
/// `idleExit` in seconds (0 = never).
pub const IDLE_EXIT_RANGE: RangeInclusive<u64> = 0..=2_592_000;
/// `[survey] structureQuestionCap` (survey.md §10.4).
pub const STRUCTURE_QUESTION_CAP_RANGE: RangeInclusive<u64> = 1..=151;
pub const DEFAULT_STRUCTURE_QUESTION_CAP: u32 = 40;
/// `[batch_review] maxItems` (review.md §7.2).
pub const MAX_ITEMS_RANGE: RangeInclusive<u64> = 1..=500;
pub const DEFAULT_MAX_ITEMS: u32 = 100;
/// `[batch_review] virtualThreshold` (review.md §7.2).
pub const VIRTUAL_THRESHOLD_RANGE: RangeInclusive<u64> = 50..=2_000;
pub const DEFAULT_VIRTUAL_THRESHOLD: u32 = 500;
/// `[alignment] section` limit in bytes (alignment.md §3.3: 32 KiB).
pub const SECTION_MAX_BYTES: usize = 32 * 1024;
/// Longest accepted entry of `allowedHosts` (a DNS name).
const HOST_MAX_LEN: usize = 253;

// ---------------------------------------------------------------------------------------
// Errors
// ---------------------------------------------------------------------------------------

/// A configuration problem. The message is one line and names the source (file path and
/// key, env var, or flag) and the allowed values or range.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigError {
    message: String,
}

impl ConfigError {
    fn new(message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
        }
    }

    pub fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for ConfigError {}

// ---------------------------------------------------------------------------------------
// Paths
// ---------------------------------------------------------------------------------------

// The data directory and the config file are found the way every client finds them
// (`askd-client`): re-exported here so the configuration's callers keep one import.
pub use askd_client::paths::{ASKD_HOME_VAR, CONFIG_FILE_NAME, Paths, PathsError};

impl From<PathsError> for ConfigError {
    fn from(e: PathsError) -> Self {
        ConfigError::new(e.message())
    }
}

// ---------------------------------------------------------------------------------------
// Config
// ---------------------------------------------------------------------------------------

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

    fn parse(s: &str) -> Option<Self> {
        match s {
            "auto" => Some(Self::Auto),
            "en" => Some(Self::En),
            "zh-CN" => Some(Self::ZhCn),
            _ => None,
        }
    }
}

/// `[alignment] mode`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum AlignmentMode {
    #[default]
    Auto,
    Manual,
    Off,
}

impl AlignmentMode {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Auto => "auto",
            Self::Manual => "manual",
            Self::Off => "off",
        }
    }

    fn parse(s: &str) -> Option<Self> {
        match s {
            "auto" => Some(Self::Auto),
            "manual" => Some(Self::Manual),
            "off" => Some(Self::Off),
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

    fn parse(s: &str) -> Option<Self> {
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
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AlignmentConfig {
    pub mode: AlignmentMode,
    /// Replaces the built-in policy text; `None` = built-in. Non-blank, at most 32 KiB.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub section: Option<String>,
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

// ---------------------------------------------------------------------------------------
// Origins
// ---------------------------------------------------------------------------------------

/// Where a key's effective value came from: the built-in default, the config file, an env
/// variable or a flag (the lower layers of `review.md` §7.3, which saved settings override).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Origin {
    /// `file`, `env` or `flag` (a key missing from [`Origins`] is at its default).
    pub layer: &'static str,
    /// The file path, the env variable's name or the flag (`--max-wait`).
    pub source: String,
}

/// Origins of the keys not at their default, by qualified name (`maxWait`,
/// `batch_review.maxItems`).
pub type Origins = BTreeMap<String, Origin>;

/// The qualified name of a key: `name` at the top level, `table.name` in a table.
fn qualified(def: &KeyDef) -> String {
    match def.table {
        Some(t) => format!("{t}.{}", def.name),
        None => def.name.to_string(),
    }
}

// ---------------------------------------------------------------------------------------
// Key table
// ---------------------------------------------------------------------------------------

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Key {
    Listen,
    MaxWait,
    MaxBodyBytes,
    Language,
    AllowedHosts,
    IdleExit,
    Elicitation,
    StructureQuestionCap,
    WorkspaceRecords,
    MaxItems,
    VirtualThreshold,
    AllowExternalPersist,
    Mode,
    Section,
}

#[derive(Debug, Clone, Copy)]
enum Kind {
    Addr,
    Int {
        min: u64,
        max: u64,
        hint: &'static str,
    },
    Bool,
    Language,
    Mode,
    Elicitation,
    Hosts,
    Section,
}

struct KeyDef {
    key: Key,
    table: Option<&'static str>,
    name: &'static str,
    env: &'static str,
    flag: &'static str,
    kind: Kind,
    /// Settable only in the config file (review.md §7.2: `allowExternalPersist`).
    file_only: bool,
}

const TABLES: [&str; 3] = ["survey", "batch_review", "alignment"];

const fn int(range: &RangeInclusive<u64>, hint: &'static str) -> Kind {
    Kind::Int {
        min: *range.start(),
        max: *range.end(),
        hint,
    }
}

const KEYS: &[KeyDef] = &[
    KeyDef {
        key: Key::Listen,
        table: None,
        name: "listen",
        env: "ASKD_LISTEN",
        flag: "listen",
        kind: Kind::Addr,
        file_only: false,
    },
    KeyDef {
        key: Key::MaxWait,
        table: None,
        name: "maxWait",
        env: "ASKD_MAX_WAIT",
        flag: "max-wait",
        kind: int(&MAX_WAIT_RANGE, " seconds (leave it unset for no limit)"),
        file_only: false,
    },
    KeyDef {
        key: Key::MaxBodyBytes,
        table: None,
        name: "maxBodyBytes",
        env: "ASKD_MAX_BODY_BYTES",
        flag: "max-body-bytes",
        kind: int(&MAX_BODY_BYTES_RANGE, " bytes"),
        file_only: false,
    },
    KeyDef {
        key: Key::Language,
        table: None,
        name: "language",
        env: "ASKD_LANGUAGE",
        flag: "language",
        kind: Kind::Language,
        file_only: false,
    },
    KeyDef {
        key: Key::AllowedHosts,
        table: None,
        name: "allowedHosts",
        env: "ASKD_ALLOWED_HOSTS",
        flag: "allowed-hosts",
        kind: Kind::Hosts,
        file_only: false,
    },
    KeyDef {
        key: Key::IdleExit,
        table: None,
        name: "idleExit",
        env: "ASKD_IDLE_EXIT",
        flag: "idle-exit",
        kind: int(&IDLE_EXIT_RANGE, " seconds (0 = never)"),
        file_only: false,
    },
    KeyDef {
        key: Key::Elicitation,
        table: None,
        name: "elicitation",
        env: "ASKD_ELICITATION",
        flag: "elicitation",
        kind: Kind::Elicitation,
        file_only: false,
    },
    KeyDef {
        key: Key::StructureQuestionCap,
        table: Some("survey"),
        name: "structureQuestionCap",
        env: "ASKD_SURVEY_STRUCTURE_QUESTION_CAP",
        flag: "survey-structure-question-cap",
        kind: int(&STRUCTURE_QUESTION_CAP_RANGE, ""),
        file_only: false,
    },
    KeyDef {
        key: Key::WorkspaceRecords,
        table: Some("survey"),
        name: "workspaceRecords",
        env: "ASKD_SURVEY_WORKSPACE_RECORDS",
        flag: "survey-workspace-records",
        kind: Kind::Bool,
        file_only: false,
    },
    KeyDef {
        key: Key::MaxItems,
        table: Some("batch_review"),
        name: "maxItems",
        env: "ASKD_BATCH_REVIEW_MAX_ITEMS",
        flag: "batch-review-max-items",
        kind: int(&MAX_ITEMS_RANGE, ""),
        file_only: false,
    },
    KeyDef {
        key: Key::VirtualThreshold,
        table: Some("batch_review"),
        name: "virtualThreshold",
        env: "ASKD_BATCH_REVIEW_VIRTUAL_THRESHOLD",
        flag: "batch-review-virtual-threshold",
        kind: int(&VIRTUAL_THRESHOLD_RANGE, ""),
        file_only: false,
    },
    KeyDef {
        key: Key::AllowExternalPersist,
        table: Some("batch_review"),
        name: "allowExternalPersist",
        env: "ASKD_BATCH_REVIEW_ALLOW_EXTERNAL_PERSIST",
        flag: "batch-review-allow-external-persist",
        kind: Kind::Bool,
        file_only: true,
    },
    KeyDef {
        key: Key::Mode,
        table: Some("alignment"),
        name: "mode",
        env: "ASKD_ALIGNMENT_MODE",
        flag: "alignment-mode",
        kind: Kind::Mode,
        file_only: false,
    },
    KeyDef {
        key: Key::Section,
        table: Some("alignment"),
        name: "section",
        env: "ASKD_ALIGNMENT_SECTION",
        flag: "alignment-section",
        kind: Kind::Section,
        file_only: false,
    },
];

/// Every config flag's long name without the leading `--` (e.g. `max-wait`), for clap.
/// `allowExternalPersist` is config-file only and has none.
pub fn flag_names() -> Vec<&'static str> {
    KEYS.iter()
        .filter(|d| !d.file_only)
        .map(|d| d.flag)
        .collect()
}

/// Every config env var name (e.g. `ASKD_MAX_WAIT`), for `askd doctor`.
pub fn env_names() -> Vec<&'static str> {
    KEYS.iter()
        .filter(|d| !d.file_only)
        .map(|d| d.env)
        .collect()
}

fn keys_in(table: Option<&str>) -> impl Iterator<Item = &'static KeyDef> + '_ {
    KEYS.iter().filter(move |d| d.table == table)
}

fn allowed_keys(table: Option<&str>) -> String {
    keys_in(table)
        .map(|d| d.name)
        .collect::<Vec<_>>()
        .join(", ")
}

fn did_you_mean<'a>(got: &str, candidates: impl Iterator<Item = &'a str>) -> String {
    let norm = |s: &str| s.replace(['_', '-'], "").to_ascii_lowercase();
    let got = norm(got);
    candidates
        .into_iter()
        .find(|c| norm(c) == got)
        .map(|c| format!(" (did you mean \"{c}\"?)"))
        .unwrap_or_default()
}

// ---------------------------------------------------------------------------------------
// Parsing and validation (shared by every source)
// ---------------------------------------------------------------------------------------

enum Val {
    Addr(SocketAddr),
    Int(u64),
    Bool(bool),
    Lang(Language),
    Mode(AlignmentMode),
    Elicit(Elicitation),
    Hosts(Vec<String>),
    Text(String),
}

/// One value as a source gave it.
enum Raw<'a> {
    Toml(&'a toml::Value),
    Text(&'a str),
}

/// Where a value came from.
#[derive(Clone, Copy)]
enum Src<'a> {
    File(&'a Path),
    Env,
    Flag,
}

impl Src<'_> {
    fn origin(self, def: &KeyDef) -> Origin {
        match self {
            Src::File(path) => Origin {
                layer: "file",
                source: path.display().to_string(),
            },
            Src::Env => Origin {
                layer: "env",
                source: def.env.to_string(),
            },
            Src::Flag => Origin {
                layer: "flag",
                source: format!("--{}", def.flag),
            },
        }
    }

    /// Short name of the setting in this source: `askd.toml: [t] key`, `ASKD_X`, `--x`.
    fn name(self, def: &KeyDef) -> String {
        match self {
            Src::File(path) => match def.table {
                Some(t) => format!("{}: [{t}] {}", path.display(), def.name),
                None => format!("{}: {}", path.display(), def.name),
            },
            Src::Env => def.env.to_string(),
            Src::Flag => format!("--{}", def.flag),
        }
    }

    /// The setting with its value, as written in this source.
    fn label(self, def: &KeyDef, raw: &Raw<'_>) -> String {
        let name = self.name(def);
        if matches!(def.kind, Kind::Section) {
            return name;
        }
        match (self, raw) {
            (Src::File(_), Raw::Toml(v)) => format!("{name} = {}", show_toml(v)),
            (_, Raw::Text(s)) => format!("{name}={s:?}"),
            (_, Raw::Toml(v)) => format!("{name}={}", show_toml(v)),
        }
    }
}

fn show_toml(v: &toml::Value) -> String {
    let s = v.to_string();
    let s = s.replace('\n', " ");
    if s.chars().count() > 80 {
        format!("{}…", s.chars().take(80).collect::<String>())
    } else {
        s
    }
}

fn expected(kind: Kind) -> &'static str {
    match kind {
        Kind::Addr => "a socket address string such as \"127.0.0.1:7391\"",
        Kind::Int { .. } => "an integer",
        Kind::Bool => "a boolean (true or false)",
        Kind::Language | Kind::Mode | Kind::Elicitation | Kind::Section => "a string",
        Kind::Hosts => "an array of host-name strings",
    }
}

fn parse_value(def: &KeyDef, src: Src<'_>, raw: Raw<'_>) -> Result<Val, ConfigError> {
    let label = || src.label(def, &raw);
    let wrong_type = |found: &str| {
        ConfigError::new(format!(
            "{} has the wrong type — expected {}, found {found}",
            label(),
            expected(def.kind)
        ))
    };
    match def.kind {
        Kind::Addr => {
            let s = match raw {
                Raw::Toml(toml::Value::String(s)) => s.as_str(),
                Raw::Toml(v) => return Err(wrong_type(v.type_str())),
                Raw::Text(s) => s,
            };
            s.parse::<SocketAddr>().map(Val::Addr).map_err(|_| {
                ConfigError::new(format!(
                    "{} is not a socket address — use IP:port, e.g. 127.0.0.1:7391 or [::1]:7391",
                    label()
                ))
            })
        }
        Kind::Int { min, max, hint } => {
            let out_of_range = || {
                ConfigError::new(format!(
                    "{} is out of range — allowed {min}..={max}{hint}",
                    label()
                ))
            };
            let n: i128 = match raw {
                Raw::Toml(toml::Value::Integer(n)) => i128::from(*n),
                Raw::Toml(v) => return Err(wrong_type(v.type_str())),
                Raw::Text(s) => match s.parse::<i128>() {
                    Ok(n) => n,
                    // All digits but too long for i128: certainly out of range.
                    Err(_) if !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()) => {
                        return Err(out_of_range());
                    }
                    Err(_) => {
                        return Err(ConfigError::new(format!(
                            "{} is not an integer — allowed {min}..={max}{hint}",
                            label()
                        )));
                    }
                },
            };
            if n < i128::from(min) || n > i128::from(max) {
                return Err(out_of_range());
            }
            Ok(Val::Int(n as u64))
        }
        Kind::Bool => match raw {
            Raw::Toml(toml::Value::Boolean(b)) => Ok(Val::Bool(*b)),
            Raw::Toml(v) => Err(wrong_type(v.type_str())),
            Raw::Text("true") => Ok(Val::Bool(true)),
            Raw::Text("false") => Ok(Val::Bool(false)),
            Raw::Text(_) => Err(ConfigError::new(format!(
                "{} is not allowed — use true or false",
                label()
            ))),
        },
        Kind::Language => {
            let s = match raw {
                Raw::Toml(toml::Value::String(s)) => s.as_str(),
                Raw::Toml(v) => return Err(wrong_type(v.type_str())),
                Raw::Text(s) => s,
            };
            Language::parse(s).map(Val::Lang).ok_or_else(|| {
                ConfigError::new(format!(
                    "{} is not allowed — use auto, en or zh-CN",
                    label()
                ))
            })
        }
        Kind::Mode => {
            let s = match raw {
                Raw::Toml(toml::Value::String(s)) => s.as_str(),
                Raw::Toml(v) => {
                    return Err(ConfigError::new(format!(
                        "{} is not allowed — mode must be one of \"auto\", \"manual\" or \"off\" (a lowercase string), found {}",
                        label(),
                        v.type_str()
                    )));
                }
                Raw::Text(s) => s,
            };
            AlignmentMode::parse(s).map(Val::Mode).ok_or_else(|| {
                ConfigError::new(format!(
                    "{} is not allowed — mode must be one of \"auto\", \"manual\" or \"off\" (lowercase)",
                    label()
                ))
            })
        }
        Kind::Elicitation => {
            let s = match raw {
                Raw::Toml(toml::Value::String(s)) => s.as_str(),
                Raw::Toml(v) => {
                    return Err(ConfigError::new(format!(
                        "{} is not allowed — elicitation must be one of \"auto\", \"form\", \"url\" or \"off\" (a lowercase string), found {}",
                        label(),
                        v.type_str()
                    )));
                }
                Raw::Text(s) => s,
            };
            Elicitation::parse(s).map(Val::Elicit).ok_or_else(|| {
                ConfigError::new(format!(
                    "{} is not allowed — elicitation must be one of \"auto\", \"form\", \"url\" or \"off\" (lowercase)",
                    label()
                ))
            })
        }
        Kind::Section => {
            let s = match raw {
                Raw::Toml(toml::Value::String(s)) => s.as_str(),
                Raw::Toml(v) => {
                    return Err(ConfigError::new(format!(
                        "{} has the wrong type — section must be a string, found {}",
                        label(),
                        v.type_str()
                    )));
                }
                Raw::Text(s) => s,
            };
            if s.trim().is_empty() {
                return Err(ConfigError::new(format!(
                    "{} is empty or only whitespace — section must contain text when it is given",
                    label()
                )));
            }
            if s.len() > SECTION_MAX_BYTES {
                return Err(ConfigError::new(format!(
                    "{} is {} bytes — section must be at most {SECTION_MAX_BYTES} bytes (32 KiB)",
                    label(),
                    s.len()
                )));
            }
            Ok(Val::Text(s.to_string()))
        }
        Kind::Hosts => {
            let items: Vec<&str> = match raw {
                Raw::Toml(toml::Value::Array(items)) => {
                    let mut out = Vec::with_capacity(items.len());
                    for (i, item) in items.iter().enumerate() {
                        match item {
                            toml::Value::String(s) => out.push(s.as_str()),
                            other => {
                                return Err(ConfigError::new(format!(
                                    "{}: item {i} ({}) has the wrong type — expected a host-name string, found {}",
                                    label(),
                                    show_toml(other),
                                    other.type_str()
                                )));
                            }
                        }
                    }
                    out
                }
                Raw::Toml(v) => return Err(wrong_type(v.type_str())),
                Raw::Text(s) => s
                    .split(',')
                    .map(str::trim)
                    .filter(|s| !s.is_empty())
                    .collect(),
            };
            let mut hosts: Vec<String> = Vec::with_capacity(items.len());
            for item in items {
                let host = normalize_host(item).ok_or_else(|| {
                    ConfigError::new(format!(
                        "{} has an invalid host name {item:?} — allowed: DNS names or IP addresses without a port (letters, digits, '.', '-', '_'; IPv6 in brackets), at most {HOST_MAX_LEN} characters",
                        label()
                    ))
                })?;
                if !hosts.contains(&host) {
                    hosts.push(host);
                }
            }
            Ok(Val::Hosts(hosts))
        }
    }
}

/// A Host allow-list entry: lowercase, no port; bare IPv6 gets brackets (as in a Host header).
fn normalize_host(s: &str) -> Option<String> {
    let s = s.trim();
    if s.is_empty() || s.len() > HOST_MAX_LEN {
        return None;
    }
    if let Some(inner) = s.strip_prefix('[').and_then(|r| r.strip_suffix(']')) {
        return inner.parse::<Ipv6Addr>().ok().map(|ip| format!("[{ip}]"));
    }
    if let Ok(ip) = s.parse::<Ipv6Addr>() {
        return Some(format!("[{ip}]"));
    }
    let ok = s
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'-' | b'_'));
    ok.then(|| s.to_ascii_lowercase())
}

fn set(cfg: &mut Config, key: Key, val: Val) {
    match (key, val) {
        (Key::Listen, Val::Addr(a)) => cfg.listen = a,
        (Key::MaxWait, Val::Int(n)) => cfg.max_wait = Some(n),
        (Key::MaxBodyBytes, Val::Int(n)) => cfg.max_body_bytes = n,
        (Key::Language, Val::Lang(l)) => cfg.language = l,
        (Key::AllowedHosts, Val::Hosts(h)) => cfg.allowed_hosts = h,
        (Key::IdleExit, Val::Int(n)) => cfg.idle_exit = n,
        (Key::Elicitation, Val::Elicit(e)) => cfg.elicitation = e,
        // The ranges of these keys fit in u32.
        (Key::StructureQuestionCap, Val::Int(n)) => cfg.survey.structure_question_cap = n as u32,
        (Key::WorkspaceRecords, Val::Bool(b)) => cfg.survey.workspace_records = b,
        (Key::MaxItems, Val::Int(n)) => cfg.batch_review.max_items = n as u32,
        (Key::VirtualThreshold, Val::Int(n)) => cfg.batch_review.virtual_threshold = n as u32,
        (Key::AllowExternalPersist, Val::Bool(b)) => cfg.batch_review.allow_external_persist = b,
        (Key::Mode, Val::Mode(m)) => cfg.alignment.mode = m,
        (Key::Section, Val::Text(s)) => cfg.alignment.section = Some(s),
        (key, _) => unreachable!("value kind does not match key {key:?}"),
    }
}

// ---------------------------------------------------------------------------------------
// Loading
// ---------------------------------------------------------------------------------------

/// State carried through the layers for the cross-key check.
struct Loader {
    cfg: Config,
    /// Which source set each key last (flags beat env beat the file).
    origins: Origins,
    /// Which source set `listen` (for the non-loopback message).
    listen_from: String,
}

impl Loader {
    fn apply(&mut self, def: &KeyDef, src: Src<'_>, raw: Raw<'_>) -> Result<(), ConfigError> {
        let val = parse_value(def, src, raw)?;
        if def.key == Key::Listen {
            self.listen_from = src.name(def);
        }
        self.origins.insert(qualified(def), src.origin(def));
        set(&mut self.cfg, def.key, val);
        Ok(())
    }

    fn apply_file(&mut self, path: &Path, text: &str) -> Result<(), ConfigError> {
        let table: toml::Table = toml::from_str(text).map_err(|e| toml_error(path, text, &e))?;
        let src = Src::File(path);
        for (key, value) in &table {
            if let Some(def) = keys_in(None).find(|d| d.name == key) {
                self.apply(def, src, Raw::Toml(value))?;
            } else if let Some(tname) = TABLES.iter().copied().find(|t| t == key) {
                let Some(inner) = value.as_table() else {
                    return Err(ConfigError::new(format!(
                        "{}: {key} has the wrong type — expected a table [{key}] with keys {}, found {}",
                        path.display(),
                        allowed_keys(Some(tname)),
                        value.type_str()
                    )));
                };
                for (k, v) in inner {
                    let Some(def) = keys_in(Some(tname)).find(|d| d.name == k) else {
                        return Err(ConfigError::new(format!(
                            "{}: [{tname}] has unknown key {k:?}{} — allowed keys in [{tname}]: {}",
                            path.display(),
                            did_you_mean(k, keys_in(Some(tname)).map(|d| d.name)),
                            allowed_keys(Some(tname))
                        )));
                    };
                    self.apply(def, src, Raw::Toml(v))?;
                }
            } else {
                let what = if value.is_table() {
                    format!("table [{key}]")
                } else {
                    format!("key {key:?}")
                };
                return Err(ConfigError::new(format!(
                    "{}: unknown {what}{} — allowed top-level keys: {}; tables: {}",
                    path.display(),
                    did_you_mean(
                        key,
                        keys_in(None).map(|d| d.name).chain(TABLES.iter().copied())
                    ),
                    allowed_keys(None),
                    TABLES.map(|t| format!("[{t}]")).join(", ")
                )));
            }
        }
        Ok(())
    }

    fn apply_env(&mut self, env: &Env) -> Result<(), ConfigError> {
        // Names under a table's prefix are reserved for config keys: refuse typos there.
        // (Other ASKD_* names, such as ASKD_HOME, are not config keys and are left alone.)
        let mut names: Vec<&String> = env.keys().collect();
        names.sort();
        for name in names {
            if let Some(def) = KEYS.iter().find(|d| d.env == name) {
                if def.file_only {
                    return Err(file_only_error(def, name));
                }
                continue;
            }
            for table in TABLES {
                let prefix = format!("ASKD_{}_", table.to_ascii_uppercase());
                if name.starts_with(&prefix) {
                    let allowed: Vec<&str> = keys_in(Some(table))
                        .filter(|d| !d.file_only)
                        .map(|d| d.env)
                        .collect();
                    return Err(ConfigError::new(format!(
                        "{name} is not a config variable — allowed for [{table}]: {}",
                        allowed.join(", ")
                    )));
                }
            }
        }
        for def in KEYS.iter().filter(|d| !d.file_only) {
            // An empty variable counts as unset.
            if let Some(value) = env.get(def.env).filter(|v| !v.is_empty()) {
                self.apply(def, Src::Env, Raw::Text(value))?;
            }
        }
        Ok(())
    }

    fn apply_flags(&mut self, flags: &[(String, String)]) -> Result<(), ConfigError> {
        let mut hosts: Option<Vec<String>> = None;
        for (name, value) in flags {
            let bare = name.strip_prefix("--").unwrap_or(name);
            let Some(def) = KEYS.iter().find(|d| d.flag == bare) else {
                return Err(ConfigError::new(format!(
                    "--{bare} is not a config flag{} — allowed: {}",
                    did_you_mean(bare, flag_names().into_iter()),
                    flag_names()
                        .iter()
                        .map(|f| format!("--{f}"))
                        .collect::<Vec<_>>()
                        .join(", ")
                )));
            };
            if def.file_only {
                return Err(file_only_error(def, &format!("--{bare}")));
            }
            // A repeated --allowed-hosts adds to the list; any other repeated flag: last wins.
            if def.key == Key::AllowedHosts {
                let Val::Hosts(more) = parse_value(def, Src::Flag, Raw::Text(value))? else {
                    unreachable!("allowed-hosts parses to hosts")
                };
                let list = hosts.get_or_insert_with(Vec::new);
                for h in more {
                    if !list.contains(&h) {
                        list.push(h);
                    }
                }
            } else {
                self.apply(def, Src::Flag, Raw::Text(value))?;
            }
        }
        if let Some(hosts) = hosts {
            if let Some(def) = KEYS.iter().find(|d| d.key == Key::AllowedHosts) {
                self.origins.insert(qualified(def), Src::Flag.origin(def));
            }
            self.cfg.allowed_hosts = hosts;
        }
        Ok(())
    }

    fn check(&self) -> Result<(), ConfigError> {
        let ip = self.cfg.listen.ip().to_canonical();
        if !ip.is_loopback() && self.cfg.allowed_hosts.is_empty() {
            return Err(ConfigError::new(format!(
                "listen = {} ({}) is not a loopback address, so allowedHosts must name the Host names clients use — set allowedHosts (askd.toml allowedHosts = [\"askd.example\"], ASKD_ALLOWED_HOSTS or --allowed-hosts) or bind a loopback address such as 127.0.0.1:7391",
                self.cfg.listen, self.listen_from
            )));
        }
        Ok(())
    }
}

fn file_only_error(def: &KeyDef, used: &str) -> ConfigError {
    let table = def.table.map(|t| format!("[{t}] ")).unwrap_or_default();
    ConfigError::new(format!(
        "{used} is not allowed — {table}{} can be set only in {CONFIG_FILE_NAME}",
        def.name
    ))
}

fn toml_error(path: &Path, text: &str, e: &toml::de::Error) -> ConfigError {
    let at = e
        .span()
        .map(|span| {
            let start = span.start.min(text.len());
            let before = text.get(..start).unwrap_or(text);
            let line = before.matches('\n').count() + 1;
            let col = before.rsplit('\n').next().unwrap_or("").chars().count() + 1;
            format!(" at line {line}, column {col}")
        })
        .unwrap_or_default();
    ConfigError::new(format!(
        "{}: not valid TOML{at}: {}",
        path.display(),
        e.message().trim_end().replace('\n', "; ")
    ))
}

/// Resolves the configuration: built-in defaults, then the file (`file_text`, `None` when
/// the file does not exist), then `env`, then `flags` (`(name, value)` pairs; the name with
/// or without its leading `--`). Every source is validated, even when a higher one
/// overrides it. Pure: reads nothing but its arguments.
pub fn load(
    paths: &Paths,
    file_text: Option<&str>,
    env: &Env,
    flags: &[(String, String)],
) -> Result<Config, ConfigError> {
    load_with_origins(paths, file_text, env, flags).map(|(cfg, _)| cfg)
}

/// [`load`], also telling where each key not at its default came from.
pub fn load_with_origins(
    paths: &Paths,
    file_text: Option<&str>,
    env: &Env,
    flags: &[(String, String)],
) -> Result<(Config, Origins), ConfigError> {
    let mut loader = Loader {
        cfg: Config::default(),
        origins: Origins::new(),
        listen_from: "default".to_string(),
    };
    if let Some(text) = file_text {
        loader.apply_file(&paths.config_file, text)?;
    }
    loader.apply_env(env)?;
    loader.apply_flags(flags)?;
    loader.check()?;
    Ok((loader.cfg, loader.origins))
}

/// The process environment (entries that are not valid UTF-8 are skipped).
pub fn process_env() -> Env {
    askd_client::paths::process_env()
}

/// Reads the real environment and config file and resolves the configuration.
pub fn load_from_process(flags: &[(String, String)]) -> Result<(Paths, Config), ConfigError> {
    load_from_process_with_origins(flags).map(|(paths, cfg, _)| (paths, cfg))
}

/// [`load_from_process`] with the [`Origins`] of the keys.
pub fn load_from_process_with_origins(
    flags: &[(String, String)],
) -> Result<(Paths, Config, Origins), ConfigError> {
    let env = process_env();
    let paths = Paths::from_process()?;
    let text = match std::fs::read(&paths.config_file) {
        Ok(bytes) => Some(String::from_utf8(bytes).map_err(|_| {
            ConfigError::new(format!(
                "{}: not valid TOML: the file is not UTF-8",
                paths.config_file.display()
            ))
        })?),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => {
            return Err(ConfigError::new(format!(
                "{}: cannot read the config file: {e}",
                paths.config_file.display()
            )));
        }
    };
    let (config, origins) = load_with_origins(&paths, text.as_deref(), &env, flags)?;
    Ok((paths, config, origins))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn paths() -> Paths {
        Paths::in_home("/h")
    }

    fn env(pairs: &[(&str, &str)]) -> Env {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    fn flags(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    fn from_file(text: &str) -> Result<Config, ConfigError> {
        load(&paths(), Some(text), &Env::new(), &[])
    }

    fn from_env(pairs: &[(&str, &str)]) -> Result<Config, ConfigError> {
        load(&paths(), None, &env(pairs), &[])
    }

    fn from_flags(pairs: &[(&str, &str)]) -> Result<Config, ConfigError> {
        load(&paths(), None, &Env::new(), &flags(pairs))
    }

    fn err(r: Result<Config, ConfigError>) -> String {
        r.expect_err("expected a config error")
            .message()
            .to_string()
    }

    fn contains_all(msg: &str, parts: &[&str]) {
        for p in parts {
            assert!(msg.contains(p), "{msg:?} should contain {p:?}");
        }
    }

    /// The file snippet that sets `def` to `value` (a TOML literal).
    fn file_setting(def: &KeyDef, value: &str) -> String {
        match def.table {
            Some(t) => format!("[{t}]\n{} = {value}\n", def.name),
            None => format!("{} = {value}\n", def.name),
        }
    }

    fn def(name: &str) -> &'static KeyDef {
        KEYS.iter().find(|d| d.name == name).unwrap()
    }

    #[test]
    fn defaults() {
        let cfg = load(&paths(), None, &Env::new(), &[]).unwrap();
        assert_eq!(cfg, Config::default());
        assert_eq!(cfg.listen.to_string(), "127.0.0.1:7391");
        assert_eq!(cfg.max_wait, None);
        assert_eq!(cfg.max_wait_duration(), None);
        assert_eq!(cfg.max_body_bytes, 67_108_864);
        assert_eq!(cfg.language, Language::Auto);
        assert!(cfg.allowed_hosts.is_empty());
        assert_eq!(cfg.idle_exit, 0);
        assert_eq!(cfg.idle_exit_duration(), None);
        assert_eq!(cfg.survey.structure_question_cap, 40);
        assert!(cfg.survey.workspace_records);
        assert_eq!(cfg.batch_review.max_items, 100);
        assert_eq!(cfg.batch_review.virtual_threshold, 500);
        assert!(!cfg.batch_review.allow_external_persist);
        assert_eq!(cfg.alignment.mode, AlignmentMode::Auto);
        assert_eq!(cfg.alignment.section, None);
        // An empty file is the defaults too.
        assert_eq!(from_file("").unwrap(), Config::default());
    }

    #[test]
    fn names_follow_the_platform_rule() {
        fn snake_upper(s: &str) -> String {
            let mut out = String::new();
            for c in s.chars() {
                if c.is_ascii_uppercase() {
                    out.push('_');
                }
                out.push(c.to_ascii_uppercase());
            }
            out
        }
        for d in KEYS {
            let key = snake_upper(d.name);
            let env = match d.table {
                Some(t) => format!("ASKD_{}_{key}", t.to_ascii_uppercase()),
                None => format!("ASKD_{key}"),
            };
            assert_eq!(d.env, env);
            let kebab = key.to_ascii_lowercase().replace('_', "-");
            let flag = match d.table {
                Some(t) => format!("{}-{kebab}", t.replace('_', "-")),
                None => kebab,
            };
            assert_eq!(d.flag, flag);
        }
        assert_eq!(def("maxWait").env, "ASKD_MAX_WAIT");
        assert_eq!(def("maxWait").flag, "max-wait");
        assert_eq!(def("maxItems").env, "ASKD_BATCH_REVIEW_MAX_ITEMS");
        assert_eq!(def("maxItems").flag, "batch-review-max-items");
        let flags = flag_names();
        assert_eq!(flags.len(), KEYS.len() - 1);
        assert!(flags.contains(&"max-wait") && flags.contains(&"alignment-section"));
        assert!(!flags.contains(&"batch-review-allow-external-persist"));
        assert_eq!(env_names().len(), flags.len());
    }

    /// (key, TOML literal, env/flag text, check on the result)
    type Case = (
        &'static str,
        &'static str,
        &'static str,
        fn(&Config) -> bool,
    );

    const SETTINGS: &[Case] = &[
        ("listen", "\"127.0.0.2:8000\"", "127.0.0.2:8000", |c| {
            c.listen.to_string() == "127.0.0.2:8000"
        }),
        ("maxWait", "50", "50", |c| c.max_wait == Some(50)),
        ("maxBodyBytes", "2048", "2048", |c| c.max_body_bytes == 2048),
        ("language", "\"zh-CN\"", "zh-CN", |c| {
            c.language == Language::ZhCn
        }),
        (
            "allowedHosts",
            "[\"A.example\", \"b.example\"]",
            "A.example, b.example",
            |c| c.allowed_hosts == ["a.example", "b.example"],
        ),
        ("idleExit", "600", "600", |c| c.idle_exit == 600),
        ("elicitation", "\"form\"", "form", |c| {
            c.elicitation == Elicitation::Form
        }),
        ("structureQuestionCap", "7", "7", |c| {
            c.survey.structure_question_cap == 7
        }),
        ("workspaceRecords", "false", "false", |c| {
            !c.survey.workspace_records
        }),
        ("maxItems", "250", "250", |c| {
            c.batch_review.max_items == 250
        }),
        ("virtualThreshold", "60", "60", |c| {
            c.batch_review.virtual_threshold == 60
        }),
        ("mode", "\"manual\"", "manual", |c| {
            c.alignment.mode == AlignmentMode::Manual
        }),
        ("section", "\"Our policy.\"", "Our policy.", |c| {
            c.alignment.section.as_deref() == Some("Our policy.")
        }),
    ];

    #[test]
    fn every_key_from_the_file() {
        for (name, lit, _, check) in SETTINGS {
            let cfg = from_file(&file_setting(def(name), lit)).unwrap();
            assert!(check(&cfg), "{name} from file: {cfg:?}");
        }
        let cfg = from_file("[batch_review]\nallowExternalPersist = true\n").unwrap();
        assert!(cfg.batch_review.allow_external_persist);
        // Dotted keys are the same thing.
        assert_eq!(
            from_file("batch_review.maxItems = 3")
                .unwrap()
                .batch_review
                .max_items,
            3
        );
    }

    #[test]
    fn every_key_from_env() {
        for (name, _, text, check) in SETTINGS {
            let cfg = from_env(&[(def(name).env, text)]).unwrap();
            assert!(check(&cfg), "{name} from env: {cfg:?}");
        }
    }

    #[test]
    fn every_key_from_a_flag() {
        for (name, _, text, check) in SETTINGS {
            let flag = def(name).flag;
            let cfg = from_flags(&[(flag, text)]).unwrap();
            assert!(check(&cfg), "{name} from flag: {cfg:?}");
            // The leading "--" is optional.
            let cfg = from_flags(&[(&format!("--{flag}"), text)]).unwrap();
            assert!(check(&cfg), "--{name} from flag: {cfg:?}");
        }
    }

    #[test]
    fn precedence_flag_env_file_default() {
        let file = "maxWait = 10\n[batch_review]\nmaxItems = 10\n";
        let p = paths();
        let e = env(&[
            ("ASKD_MAX_WAIT", "20"),
            ("ASKD_BATCH_REVIEW_MAX_ITEMS", "20"),
        ]);
        let f = flags(&[("max-wait", "30")]);
        let cfg = load(&p, Some(file), &Env::new(), &[]).unwrap();
        assert_eq!((cfg.max_wait, cfg.batch_review.max_items), (Some(10), 10));
        let cfg = load(&p, Some(file), &e, &[]).unwrap();
        assert_eq!((cfg.max_wait, cfg.batch_review.max_items), (Some(20), 20));
        let cfg = load(&p, Some(file), &e, &f).unwrap();
        assert_eq!((cfg.max_wait, cfg.batch_review.max_items), (Some(30), 20));
        // Untouched keys keep their default.
        assert_eq!(cfg.batch_review.virtual_threshold, 500);
        // A repeated scalar flag: the last wins.
        let cfg = from_flags(&[("max-wait", "5"), ("max-wait", "6")]).unwrap();
        assert_eq!(cfg.max_wait, Some(6));
        // An empty env var counts as unset.
        let cfg = load(&p, Some(file), &env(&[("ASKD_MAX_WAIT", "")]), &[]).unwrap();
        assert_eq!(cfg.max_wait, Some(10));
    }

    #[test]
    fn every_source_is_validated_even_when_overridden() {
        let m = err(load(
            &paths(),
            Some("maxWait = 0"),
            &Env::new(),
            &flags(&[("max-wait", "5")]),
        ));
        contains_all(
            &m,
            &["/h/askd.toml: maxWait = 0 is out of range", "1..=86400"],
        );
        let m = err(load(
            &paths(),
            None,
            &env(&[("ASKD_MAX_WAIT", "0")]),
            &flags(&[("max-wait", "5")]),
        ));
        contains_all(
            &m,
            &["ASKD_MAX_WAIT=\"0\" is out of range — allowed 1..=86400"],
        );
    }

    /// Every integer key at both limits, and one past each, from all three sources.
    #[test]
    fn range_edges() {
        let ranges: &[(&str, u64, u64)] = &[
            ("maxWait", 1, 86_400),
            ("maxBodyBytes", 1_024, 134_217_728),
            ("idleExit", 0, 2_592_000),
            ("structureQuestionCap", 1, 151),
            ("maxItems", 1, 500),
            ("virtualThreshold", 50, 2_000),
        ];
        for &(name, min, max) in ranges {
            let d = def(name);
            let allowed = format!("allowed {min}..={max}");
            for n in [min, max] {
                from_file(&file_setting(d, &n.to_string())).unwrap();
                from_env(&[(d.env, &n.to_string())]).unwrap();
                from_flags(&[(d.flag, &n.to_string())]).unwrap();
            }
            let mut outside = vec![(max + 1).to_string()];
            outside.push(if min == 0 {
                "-1".to_string()
            } else {
                (min - 1).to_string()
            });
            for n in &outside {
                let m = err(from_file(&file_setting(d, n)));
                let key = match d.table {
                    Some(t) => format!("/h/askd.toml: [{t}] {name} = {n} is out of range"),
                    None => format!("/h/askd.toml: {name} = {n} is out of range"),
                };
                contains_all(&m, &[&key, &allowed]);
                let m = err(from_env(&[(d.env, n)]));
                contains_all(
                    &m,
                    &[&format!("{}=\"{n}\" is out of range", d.env), &allowed],
                );
                let m = err(from_flags(&[(d.flag, n)]));
                contains_all(
                    &m,
                    &[&format!("--{}=\"{n}\" is out of range", d.flag), &allowed],
                );
            }
        }
        // The exact message shape.
        assert_eq!(
            err(from_file("[batch_review]\nmaxItems = 0")),
            "/h/askd.toml: [batch_review] maxItems = 0 is out of range — allowed 1..=500"
        );
        // Huge numbers are out of range, not a crash.
        let m = err(from_env(&[(
            "ASKD_MAX_BODY_BYTES",
            "99999999999999999999999999999999999999999",
        )]));
        contains_all(&m, &["out of range", "1024..=134217728"]);
    }

    #[test]
    fn origins_name_the_winning_source() {
        let (cfg, origins) = load_with_origins(
            &paths(),
            Some("maxBodyBytes = 4096\n[batch_review]\nmaxItems = 7\nvirtualThreshold = 60\n"),
            &env(&[("ASKD_BATCH_REVIEW_MAX_ITEMS", "8")]),
            &flags(&[("batch-review-virtual-threshold", "70")]),
        )
        .unwrap();
        assert_eq!(cfg.batch_review.max_items, 8);
        assert_eq!(cfg.batch_review.virtual_threshold, 70);
        let at = |k: &str| {
            let o = &origins[k];
            (o.layer, o.source.as_str())
        };
        assert_eq!(at("maxBodyBytes"), ("file", "/h/askd.toml"));
        assert_eq!(
            at("batch_review.maxItems"),
            ("env", "ASKD_BATCH_REVIEW_MAX_ITEMS")
        );
        assert_eq!(
            at("batch_review.virtualThreshold"),
            ("flag", "--batch-review-virtual-threshold")
        );
        assert!(!origins.contains_key("maxWait"), "defaults have no origin");
        let (_, origins) = load_with_origins(
            &paths(),
            None,
            &Env::new(),
            &flags(&[("allowed-hosts", "a.b")]),
        )
        .unwrap();
        assert_eq!(origins["allowedHosts"].layer, "flag");
    }

    #[test]
    fn section_limits() {
        let exact = "x".repeat(SECTION_MAX_BYTES);
        let cfg = from_env(&[("ASKD_ALIGNMENT_SECTION", &exact)]).unwrap();
        assert_eq!(cfg.alignment.section.unwrap().len(), SECTION_MAX_BYTES);
        let over = "x".repeat(SECTION_MAX_BYTES + 1);
        let m = err(from_file(&format!("[alignment]\nsection = \"{over}\"")));
        contains_all(&m, &["[alignment] section", "32768 bytes", "32 KiB"]);
        assert!(m.len() < 300, "the section text is not echoed");
        let m = err(from_flags(&[("alignment-section", &"y".repeat(40 * 1024))]));
        contains_all(&m, &["--alignment-section", "32768"]);
        let m = err(from_file("[alignment]\nsection = \"  \"\n"));
        contains_all(&m, &["[alignment] section", "must contain text"]);
        let m = err(from_env(&[("ASKD_ALIGNMENT_SECTION", " \n ")]));
        contains_all(&m, &["ASKD_ALIGNMENT_SECTION", "must contain text"]);
        let m = err(from_file("[alignment]\nsection = 3\n"));
        contains_all(&m, &["section must be a string", "integer"]);
    }

    #[test]
    fn elicitation_setting_refuses_unknown_values_naming_the_choices() {
        assert_eq!(Config::default().elicitation, Elicitation::Auto);
        let m = err(from_env(&[("ASKD_ELICITATION", "forms")]));
        contains_all(
            &m,
            &[
                "ASKD_ELICITATION=\"forms\"",
                "\"auto\", \"form\", \"url\" or \"off\"",
            ],
        );
        let m = err(from_file("elicitation = true"));
        contains_all(&m, &["elicitation = true", "a lowercase string", "boolean"]);
        assert_eq!(
            from_env(&[("ASKD_ELICITATION", "off")])
                .unwrap()
                .elicitation,
            Elicitation::Off
        );
    }

    #[test]
    fn enumerated_values() {
        assert_eq!(
            err(from_env(&[("ASKD_LANGUAGE", "fr")])),
            "ASKD_LANGUAGE=\"fr\" is not allowed — use auto, en or zh-CN"
        );
        let m = err(from_file("language = \"zh-cn\""));
        contains_all(
            &m,
            &["/h/askd.toml: language = \"zh-cn\"", "auto, en or zh-CN"],
        );
        for (lit, label) in [("\"Auto\"", "mode = \"Auto\""), ("3", "mode = 3")] {
            let m = err(from_file(&format!("[alignment]\nmode = {lit}")));
            contains_all(&m, &[label, "\"auto\"", "\"manual\"", "\"off\""]);
        }
        let m = err(from_flags(&[("alignment-mode", "banana")]));
        contains_all(
            &m,
            &[
                "--alignment-mode=\"banana\"",
                "\"auto\", \"manual\" or \"off\"",
            ],
        );
        for mode in ["auto", "manual", "off"] {
            let cfg = from_env(&[("ASKD_ALIGNMENT_MODE", mode)]).unwrap();
            assert_eq!(cfg.alignment.mode.as_str(), mode);
        }
        for lang in ["auto", "en", "zh-CN"] {
            assert_eq!(
                from_flags(&[("language", lang)]).unwrap().language.as_str(),
                lang
            );
        }
        let m = err(from_env(&[("ASKD_SURVEY_WORKSPACE_RECORDS", "yes")]));
        contains_all(
            &m,
            &["ASKD_SURVEY_WORKSPACE_RECORDS=\"yes\"", "true or false"],
        );
        assert!(
            !from_env(&[("ASKD_SURVEY_WORKSPACE_RECORDS", "false")])
                .unwrap()
                .survey
                .workspace_records
        );
    }

    #[test]
    fn unknown_top_level_key() {
        let m = err(from_file("maxwait = 5"));
        assert!(
            m.starts_with("/h/askd.toml: unknown key \"maxwait\""),
            "{m}"
        );
        contains_all(
            &m,
            &[
                "did you mean \"maxWait\"",
                "allowed top-level keys: listen, maxWait, maxBodyBytes, language, allowedHosts, idleExit, elicitation",
                "[survey], [batch_review], [alignment]",
            ],
        );
    }

    #[test]
    fn unknown_key_in_a_table() {
        let m = err(from_file("[alignment]\nmodes = \"auto\""));
        contains_all(
            &m,
            &[
                "[alignment] has unknown key \"modes\"",
                "allowed keys in [alignment]: mode, section",
            ],
        );
        let m = err(from_file("[batch_review]\nmax_items = 5"));
        contains_all(
            &m,
            &[
                "\"max_items\"",
                "did you mean \"maxItems\"",
                "maxItems, virtualThreshold, allowExternalPersist",
            ],
        );
        let m = err(from_file("[survey]\ncap = 5"));
        contains_all(&m, &["structureQuestionCap, workspaceRecords"]);
        // maxBodyBytes lives at the top level, not in [batch_review].
        let m = err(from_file("[batch_review]\nmaxBodyBytes = 2048"));
        contains_all(&m, &["unknown key \"maxBodyBytes\""]);
    }

    #[test]
    fn unknown_table() {
        let m = err(from_file("[review]\nmaxItems = 5"));
        contains_all(
            &m,
            &[
                "unknown table [review]",
                "allowed top-level keys: listen",
                "tables: [survey], [batch_review], [alignment]",
            ],
        );
        let m = err(from_file("batch_review = 5"));
        contains_all(
            &m,
            &[
                "batch_review has the wrong type",
                "expected a table",
                "maxItems",
            ],
        );
    }

    #[test]
    fn unknown_env_and_flags() {
        // Unrelated ASKD_* variables are not config keys and are ignored.
        from_env(&[("ASKD_HOME", "/x"), ("ASKD_TOKEN", "t")]).unwrap();
        // Names under a table prefix are reserved.
        let m = err(from_env(&[("ASKD_BATCH_REVIEW_MAXITEMS", "5")]));
        contains_all(
            &m,
            &["ASKD_BATCH_REVIEW_MAXITEMS", "ASKD_BATCH_REVIEW_MAX_ITEMS"],
        );
        let m = err(from_flags(&[("--maxwait", "5")]));
        contains_all(
            &m,
            &[
                "--maxwait is not a config flag",
                "did you mean \"max-wait\"",
                "--max-wait",
                "--listen",
            ],
        );
        // allowExternalPersist is config-file only.
        let m = err(from_env(&[(
            "ASKD_BATCH_REVIEW_ALLOW_EXTERNAL_PERSIST",
            "true",
        )]));
        contains_all(&m, &["allowExternalPersist can be set only in askd.toml"]);
        let m = err(from_flags(&[(
            "batch-review-allow-external-persist",
            "true",
        )]));
        contains_all(
            &m,
            &["--batch-review-allow-external-persist", "only in askd.toml"],
        );
    }

    #[test]
    fn bad_toml_reports_line_and_column() {
        let m = err(from_file("listen = \"127.0.0.1:7391\"\nmaxWait = = 3\n"));
        contains_all(
            &m,
            &["/h/askd.toml: not valid TOML at line 2, column", ": "],
        );
        assert!(!m.contains('\n'), "one line: {m}");
        let m = err(from_file("maxWait = 1\nmaxWait = 2\n"));
        contains_all(&m, &["not valid TOML at line 2"]);
    }

    #[test]
    fn type_errors_name_the_expected_type() {
        let cases = [
            (
                "maxWait = \"5\"",
                "maxWait = \"5\" has the wrong type — expected an integer, found string",
            ),
            ("maxBodyBytes = 1.5", "expected an integer, found float"),
            ("listen = 7391", "expected a socket address string"),
            ("language = true", "expected a string, found boolean"),
            (
                "allowedHosts = \"a.example\"",
                "expected an array of host-name strings, found string",
            ),
            (
                "allowedHosts = [\"a\", 3]",
                "item 1 (3) has the wrong type — expected a host-name string, found integer",
            ),
            (
                "[survey]\nworkspaceRecords = \"yes\"",
                "expected a boolean (true or false), found string",
            ),
            (
                "[batch_review]\nallowExternalPersist = 1",
                "expected a boolean",
            ),
        ];
        for (file, want) in cases {
            let m = err(from_file(file));
            contains_all(&m, &["/h/askd.toml: ", want]);
        }
        let m = err(from_env(&[("ASKD_IDLE_EXIT", "10m")]));
        contains_all(
            &m,
            &[
                "ASKD_IDLE_EXIT=\"10m\" is not an integer",
                "0..=2592000 seconds",
            ],
        );
        let m = err(from_flags(&[("listen", "localhost:7391")]));
        contains_all(&m, &["--listen=\"localhost:7391\" is not a socket address"]);
    }

    #[test]
    fn non_loopback_listen_needs_allowed_hosts() {
        let m = err(from_file("listen = \"0.0.0.0:7391\""));
        contains_all(
            &m,
            &[
                "listen = 0.0.0.0:7391",
                "/h/askd.toml: listen",
                "allowedHosts",
            ],
        );
        let m = err(from_env(&[("ASKD_LISTEN", "192.168.1.5:7391")]));
        contains_all(&m, &["ASKD_LISTEN", "allowedHosts"]);
        let cfg = load(
            &paths(),
            Some("listen = \"0.0.0.0:7391\"\nallowedHosts = [\"desk.example\"]"),
            &Env::new(),
            &[],
        )
        .unwrap();
        assert_eq!(cfg.allowed_hosts, ["desk.example"]);
        let cfg = from_flags(&[
            ("listen", "[::]:80"),
            ("allowed-hosts", "a.example"),
            ("allowed-hosts", "b.example,A.EXAMPLE"),
        ])
        .unwrap();
        assert_eq!(cfg.allowed_hosts, ["a.example", "b.example"]);
        // Loopback binds (v4, v6, v4-mapped) need nothing.
        for addr in [
            "127.0.0.1:1",
            "127.9.9.9:0",
            "[::1]:7391",
            "[::ffff:127.0.0.1]:7391",
        ] {
            from_flags(&[("listen", addr)]).unwrap();
        }
    }

    #[test]
    fn allowed_hosts_entries() {
        let cfg = from_env(&[(
            "ASKD_ALLOWED_HOSTS",
            "Desk.Example, 10.0.0.2, ::1, [fe80::1],,",
        )])
        .unwrap();
        assert_eq!(
            cfg.allowed_hosts,
            ["desk.example", "10.0.0.2", "[::1]", "[fe80::1]"]
        );
        for bad in ["desk.example:7391", "a b", "http://x", "[zz]"] {
            let m = err(from_file(&format!("allowedHosts = [{bad:?}]")));
            contains_all(&m, &["allowedHosts", "invalid host name", "without a port"]);
        }
    }

    #[test]
    fn language_resolution_order() {
        let auto = Language::Auto;
        assert_eq!(resolve_language(auto, &Env::new()), "en");
        assert_eq!(
            resolve_language(auto, &env(&[("LANG", "zh_CN.UTF-8")])),
            "zh-CN"
        );
        assert_eq!(
            resolve_language(auto, &env(&[("LANG", "en_US.UTF-8")])),
            "en"
        );
        assert_eq!(
            resolve_language(auto, &env(&[("LC_MESSAGES", "zh_TW"), ("LANG", "en_US")])),
            "zh-CN"
        );
        assert_eq!(
            resolve_language(auto, &env(&[("LC_ALL", "C"), ("LC_MESSAGES", "zh_CN")])),
            "en"
        );
        // Empty values are skipped.
        assert_eq!(
            resolve_language(
                auto,
                &env(&[("LC_ALL", ""), ("LC_MESSAGES", ""), ("LANG", "zh")])
            ),
            "zh-CN"
        );
        assert_eq!(
            resolve_language(auto, &env(&[("LC_ALL", "zh_CN"), ("LANG", "en_US")])),
            "zh-CN"
        );
        // An explicit language ignores the locale.
        let zh = env(&[("LC_ALL", "zh_CN.UTF-8")]);
        assert_eq!(resolve_language(Language::En, &zh), "en");
        assert_eq!(resolve_language(Language::ZhCn, &Env::new()), "zh-CN");
        let cfg = from_flags(&[("language", "en")]).unwrap();
        assert_eq!(cfg.resolved_language(&zh), "en");
    }

    #[test]
    fn paths_resolution() {
        let p = Paths::resolve(
            &env(&[("ASKD_HOME", "/iso")]),
            Some("/data".into()),
            Some("/conf".into()),
        )
        .unwrap();
        assert_eq!(p.data_dir, Path::new("/iso"));
        assert_eq!(p.config_file, Path::new("/iso/askd.toml"));
        let p = Paths::resolve(&Env::new(), Some("/data".into()), Some("/conf".into())).unwrap();
        assert_eq!(p.data_dir, Path::new("/data/askd"));
        assert_eq!(p.config_file, Path::new("/conf/askd/askd.toml"));
        assert_eq!(p.db_file(), Path::new("/data/askd/askd.db"));
        assert_eq!(p.token_file(), Path::new("/data/askd/token"));
        assert_eq!(p.daemon_json(), Path::new("/data/askd/daemon.json"));
        assert_eq!(p.start_lock(), Path::new("/data/askd/start.lock"));
        // An empty ASKD_HOME counts as unset.
        let p = Paths::resolve(
            &env(&[("ASKD_HOME", "")]),
            Some("/d".into()),
            Some("/c".into()),
        )
        .unwrap();
        assert_eq!(p.data_dir, Path::new("/d/askd"));
        let e = Paths::resolve(&Env::new(), None, Some("/c".into())).unwrap_err();
        contains_all(e.message(), &["ASKD_HOME"]);
        // Errors name the configured file path.
        let p = Paths::in_home("/somewhere/else");
        let m = err(load(&p, Some("bogus = 1"), &Env::new(), &[]));
        assert!(m.starts_with("/somewhere/else/askd.toml: "), "{m}");
    }

    #[test]
    fn serializes_to_a_valid_config_file() {
        let cfg = load(
            &paths(),
            Some(
                "listen = \"0.0.0.0:9000\"\nallowedHosts = [\"desk.example\"]\nmaxWait = 45\n\
                 [batch_review]\nallowExternalPersist = true\n[alignment]\nmode = \"off\"\nsection = \"P\"\n",
            ),
            &Env::new(),
            &[],
        )
        .unwrap();
        let text = toml::to_string(&cfg).unwrap();
        for key in [
            "listen = \"0.0.0.0:9000\"",
            "maxWait = 45",
            "maxBodyBytes = 67108864",
            "[batch_review]",
            "maxItems = 100",
            "[alignment]",
            "mode = \"off\"",
            "language = \"auto\"",
        ] {
            assert!(text.contains(key), "{key} in {text}");
        }
        assert_eq!(from_file(&text).unwrap(), cfg);
        let json = serde_json::to_value(Config::default()).unwrap();
        assert_eq!(json["batch_review"]["virtualThreshold"], 500);
        assert_eq!(json["survey"]["structureQuestionCap"], 40);
        assert_eq!(json["language"], "auto");
        assert!(json.get("maxWait").is_none());
        let defaults = toml::to_string(&Config::default()).unwrap();
        assert_eq!(from_file(&defaults).unwrap(), Config::default());
    }
}

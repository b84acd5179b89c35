//! The key table: every configuration key with its table, env var, flag and kind, and
//! where each key's value came from ([`Origins`]).

use super::*;

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
pub(super) fn qualified(def: &KeyDef) -> String {
    match def.table {
        Some(t) => format!("{t}.{}", def.name),
        None => def.name.to_string(),
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Key {
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
    PublicUrl,
    DatabaseUrl,
    DatabaseWait,
    AsksDeadline,
    After,
    RemindEvery,
    BeforeDeadline,
    QuietHours,
    Desktop,
    Webhook,
}

#[derive(Debug, Clone, Copy)]
pub(super) enum Kind {
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
    /// An absolute http(s) URL (`publicUrl`).
    Url,
    /// A `postgres://` URL (`databaseUrl`); it may carry a password, so no message shows it.
    DatabaseUrl,
    /// `90s`, `10m`, `2h` or seconds ([`Span`]).
    Span,
    /// `HH:MM-HH:MM` ([`QuietHours`]).
    Quiet,
    /// `[[notify.webhook]]` tables; as text, `FORMAT=URL` entries separated by spaces.
    Webhooks,
}

pub(super) struct KeyDef {
    pub(super) key: Key,
    pub(super) table: Option<&'static str>,
    pub(super) name: &'static str,
    pub(super) env: &'static str,
    pub(super) flag: &'static str,
    pub(super) kind: Kind,
    /// Settable only in the config file (review.md §7.2: `allowExternalPersist`).
    pub(super) file_only: bool,
    /// One line for `--help`, the man page and the example `askd.toml`.
    pub(super) help: &'static str,
    /// The default, as people read it.
    pub(super) default: &'static str,
}

pub(super) const TABLES: [&str; 5] = ["survey", "batch_review", "alignment", "notify", "asks"];

pub(super) const fn int(range: &RangeInclusive<u64>, hint: &'static str) -> Kind {
    Kind::Int {
        min: *range.start(),
        max: *range.end(),
        hint,
    }
}

pub(super) const KEYS: &[KeyDef] = &[
    KeyDef {
        key: Key::Listen,
        table: None,
        name: "listen",
        env: "ASKD_LISTEN",
        flag: "listen",
        kind: Kind::Addr,
        file_only: false,
        help: "The address the daemon listens on (a non-loopback address needs allowedHosts).",
        default: "127.0.0.1:7391",
    },
    KeyDef {
        key: Key::MaxWait,
        table: None,
        name: "maxWait",
        env: "ASKD_MAX_WAIT",
        flag: "max-wait",
        kind: int(&MAX_WAIT_RANGE, " seconds (leave it unset for no limit)"),
        file_only: false,
        help: "How long one waiting MCP call may block before it returns the pending handle, in seconds (1..86400).",
        default: "unset: wait until answered",
    },
    KeyDef {
        key: Key::MaxBodyBytes,
        table: None,
        name: "maxBodyBytes",
        env: "ASKD_MAX_BODY_BYTES",
        flag: "max-body-bytes",
        kind: int(&MAX_BODY_BYTES_RANGE, " bytes"),
        file_only: false,
        help: "The largest request body the daemon accepts, in bytes (1024..134217728).",
        default: "67108864",
    },
    KeyDef {
        key: Key::Language,
        table: None,
        name: "language",
        env: "ASKD_LANGUAGE",
        flag: "language",
        kind: Kind::Language,
        file_only: false,
        help: "The language of askd's own texts: auto, en or zh-CN.",
        default: "auto",
    },
    KeyDef {
        key: Key::AllowedHosts,
        table: None,
        name: "allowedHosts",
        env: "ASKD_ALLOWED_HOSTS",
        flag: "allowed-hosts",
        kind: Kind::Hosts,
        file_only: false,
        help: "Host names the daemon answers besides loopback (comma-separated as a flag or env).",
        default: "none",
    },
    KeyDef {
        key: Key::IdleExit,
        table: None,
        name: "idleExit",
        env: "ASKD_IDLE_EXIT",
        flag: "idle-exit",
        kind: int(&IDLE_EXIT_RANGE, " seconds (0 = never)"),
        file_only: false,
        help: "Stop the daemon after this many idle seconds (0 = never).",
        default: "0",
    },
    KeyDef {
        key: Key::Elicitation,
        table: None,
        name: "elicitation",
        env: "ASKD_ELICITATION",
        flag: "elicitation",
        kind: Kind::Elicitation,
        file_only: false,
        help: "Ask in the agent client's own form when it can: auto, form, url or off.",
        default: "auto",
    },
    KeyDef {
        key: Key::StructureQuestionCap,
        table: Some("survey"),
        name: "structureQuestionCap",
        env: "ASKD_SURVEY_STRUCTURE_QUESTION_CAP",
        flag: "survey-structure-question-cap",
        kind: int(&STRUCTURE_QUESTION_CAP_RANGE, ""),
        file_only: false,
        help: "The question builder's cap on questions per survey (1..151).",
        default: "40",
    },
    KeyDef {
        key: Key::WorkspaceRecords,
        table: Some("survey"),
        name: "workspaceRecords",
        env: "ASKD_SURVEY_WORKSPACE_RECORDS",
        flag: "survey-workspace-records",
        kind: Kind::Bool,
        file_only: false,
        help: "Copy each settled survey's record into the agent's workspace: true or false.",
        default: "true",
    },
    KeyDef {
        key: Key::MaxItems,
        table: Some("batch_review"),
        name: "maxItems",
        env: "ASKD_BATCH_REVIEW_MAX_ITEMS",
        flag: "batch-review-max-items",
        kind: int(&MAX_ITEMS_RANGE, ""),
        file_only: false,
        help: "The most items one batch review may have (1..500).",
        default: "100",
    },
    KeyDef {
        key: Key::VirtualThreshold,
        table: Some("batch_review"),
        name: "virtualThreshold",
        env: "ASKD_BATCH_REVIEW_VIRTUAL_THRESHOLD",
        flag: "batch-review-virtual-threshold",
        kind: int(&VIRTUAL_THRESHOLD_RANGE, ""),
        file_only: false,
        help: "From this many items a review list is drawn lazily (50..2000).",
        default: "500",
    },
    KeyDef {
        key: Key::AllowExternalPersist,
        table: Some("batch_review"),
        name: "allowExternalPersist",
        env: "ASKD_BATCH_REVIEW_ALLOW_EXTERNAL_PERSIST",
        flag: "batch-review-allow-external-persist",
        kind: Kind::Bool,
        file_only: true,
        help: "Let a review's persist path leave the workspace (config file only).",
        default: "false",
    },
    KeyDef {
        key: Key::Mode,
        table: Some("alignment"),
        name: "mode",
        env: "ASKD_ALIGNMENT_MODE",
        flag: "alignment-mode",
        kind: Kind::Mode,
        file_only: false,
        help: "Requirements alignment: auto, manual or off.",
        default: "auto",
    },
    KeyDef {
        key: Key::Section,
        table: Some("alignment"),
        name: "section",
        env: "ASKD_ALIGNMENT_SECTION",
        flag: "alignment-section",
        kind: Kind::Section,
        file_only: false,
        help: "The alignment policy text given to agents instead of the built-in one.",
        default: "built-in",
    },
    KeyDef {
        key: Key::PublicUrl,
        table: None,
        name: "publicUrl",
        env: "ASKD_PUBLIC_URL",
        flag: "public-url",
        kind: Kind::Url,
        file_only: false,
        help: "The address people reach the daemon at (a tunnel or proxy); links use it.",
        default: "unset: the daemon's address",
    },
    KeyDef {
        key: Key::DatabaseUrl,
        table: None,
        name: "databaseUrl",
        env: "ASKD_DATABASE_URL",
        flag: "database-url",
        kind: Kind::DatabaseUrl,
        file_only: false,
        help: "Team mode: a postgres:// URL shared by several daemons.",
        default: "unset: askd.db (SQLite) in the data directory",
    },
    KeyDef {
        key: Key::DatabaseWait,
        table: None,
        name: "databaseWait",
        env: "ASKD_DATABASE_WAIT",
        flag: "database-wait",
        kind: Kind::Span,
        file_only: false,
        help: "Team mode: how long a starting daemon waits for an unreachable database (0 = exit at once).",
        default: "60s",
    },
    KeyDef {
        key: Key::AsksDeadline,
        table: Some("asks"),
        name: "deadline",
        env: "ASKD_ASKS_DEADLINE",
        flag: "asks-deadline",
        kind: Kind::Span,
        file_only: false,
        help: "An ask without a deadline of its own closes unanswered after this, e.g. 8h (0 = waits until answered).",
        default: "0",
    },
    KeyDef {
        key: Key::After,
        table: Some("notify"),
        name: "after",
        env: "ASKD_NOTIFY_AFTER",
        flag: "notify-after",
        kind: Kind::Span,
        file_only: false,
        help: "The first reminder for a waiting ask after 90s, 10m, 2h… (0 = no reminders).",
        default: "10m",
    },
    KeyDef {
        key: Key::RemindEvery,
        table: Some("notify"),
        name: "remindEvery",
        env: "ASKD_NOTIFY_REMIND_EVERY",
        flag: "notify-remind-every",
        kind: Kind::Span,
        file_only: false,
        help: "Remind again this often while an ask waits (0 = one reminder only).",
        default: "0",
    },
    KeyDef {
        key: Key::BeforeDeadline,
        table: Some("notify"),
        name: "beforeDeadline",
        env: "ASKD_NOTIFY_BEFORE_DEADLINE",
        flag: "notify-before-deadline",
        kind: Kind::Span,
        file_only: false,
        help: "Remind this long before an ask's deadline, when the deadline was at least twice as far (0 = no such reminder).",
        default: "10m",
    },
    KeyDef {
        key: Key::QuietHours,
        table: Some("notify"),
        name: "quietHours",
        env: "ASKD_NOTIFY_QUIET_HOURS",
        flag: "notify-quiet-hours",
        kind: Kind::Quiet,
        file_only: false,
        help: "Local hours when no message is sent, HH:MM-HH:MM (messages wait for the end).",
        default: "unset",
    },
    KeyDef {
        key: Key::Desktop,
        table: Some("notify"),
        name: "desktop",
        env: "ASKD_NOTIFY_DESKTOP",
        flag: "notify-desktop",
        kind: Kind::Bool,
        file_only: false,
        help: "Desktop notifications (D-Bus on Linux, osascript on macOS): true or false.",
        default: "true",
    },
    KeyDef {
        key: Key::Webhook,
        table: Some("notify"),
        name: "webhook",
        env: "ASKD_NOTIFY_WEBHOOK",
        flag: "notify-webhook",
        kind: Kind::Webhooks,
        file_only: false,
        help: "Webhooks for notifications, FORMAT=URL separated by spaces (json, ntfy, slack).",
        default: "none",
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

/// One configuration key as the command line documents it (`--help`, the man page).
#[derive(Debug, Clone)]
pub struct KeyDoc {
    /// The qualified name in `askd.toml` (`maxWait`, `notify.after`).
    pub key: String,
    /// The table, `None` at the top level.
    pub table: Option<&'static str>,
    /// The name inside its table.
    pub name: &'static str,
    /// The flag without `--`; `None` for a key settable only in the file.
    pub flag: Option<&'static str>,
    pub env: &'static str,
    pub help: &'static str,
    pub default: &'static str,
}

/// Every configuration key, in the key table's order, with its description and default.
pub fn key_docs() -> Vec<KeyDoc> {
    KEYS.iter()
        .map(|d| KeyDoc {
            key: qualified(d),
            table: d.table,
            name: d.name,
            flag: (!d.file_only).then_some(d.flag),
            env: d.env,
            help: d.help,
            default: d.default,
        })
        .collect()
}

/// Every config env var name (e.g. `ASKD_MAX_WAIT`), for `askd doctor`.
pub fn env_names() -> Vec<&'static str> {
    KEYS.iter()
        .filter(|d| !d.file_only)
        .map(|d| d.env)
        .collect()
}

pub(super) fn keys_in(table: Option<&str>) -> impl Iterator<Item = &'static KeyDef> + '_ {
    KEYS.iter().filter(move |d| d.table == table)
}

pub(super) fn allowed_keys(table: Option<&str>) -> String {
    keys_in(table)
        .map(|d| d.name)
        .collect::<Vec<_>>()
        .join(", ")
}

pub(super) fn did_you_mean<'a>(got: &str, candidates: impl Iterator<Item = &'a str>) -> String {
    let norm = |s: &str| s.replace(['_', '-'], "").to_ascii_lowercase();
    let got = norm(got);
    candidates
        .into_iter()
        .find(|c| norm(c) == got)
        .map(|c| format!(" (did you mean \"{c}\"?)"))
        .unwrap_or_default()
}

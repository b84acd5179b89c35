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

    pub fn parse(s: &str) -> Option<Self> {
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

/// A span of time in whole seconds, written `90s`, `10m`, `2h` (or a bare number of
/// seconds); `0` turns the feature it times off. Serialises in the largest exact unit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Span(pub u64);

impl Span {
    pub fn duration(self) -> Option<Duration> {
        (self.0 > 0).then(|| Duration::from_secs(self.0))
    }

    /// `s`, `m` or `h` after a whole number (or digits only: seconds).
    pub(super) fn parse(s: &str) -> Option<Self> {
        let s = s.trim();
        let (digits, unit) = match s.char_indices().find(|(_, c)| !c.is_ascii_digit()) {
            Some((i, _)) => s.split_at(i),
            None => (s, "s"),
        };
        if digits.is_empty() || digits.len() > 9 {
            return None;
        }
        let n: u64 = digits.parse().ok()?;
        let mul = match unit {
            "s" => 1,
            "m" => 60,
            "h" => 3600,
            _ => return None,
        };
        Some(Span(n * mul))
    }
}

impl fmt::Display for Span {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            n if n > 0 && n % 3600 == 0 => write!(f, "{}h", n / 3600),
            n if n > 0 && n % 60 == 0 => write!(f, "{}m", n / 60),
            n => write!(f, "{n}s"),
        }
    }
}

impl Serialize for Span {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

/// `[notify] quietHours`: `"HH:MM-HH:MM"` in the daemon's local time, 24-hour clock; the
/// span may cross midnight (`"22:00-07:00"`). Messages due inside it wait for its end.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct QuietHours {
    /// Minutes after local midnight.
    pub start: u16,
    pub end: u16,
}

impl QuietHours {
    pub(super) fn parse(s: &str) -> Option<Self> {
        let (a, b) = s.trim().split_once('-')?;
        let hm = |t: &str| -> Option<u16> {
            let (h, m) = t.trim().split_once(':')?;
            if h.is_empty() || h.len() > 2 || m.len() != 2 {
                return None;
            }
            let (h, m): (u16, u16) = (h.parse().ok()?, m.parse().ok()?);
            (h < 24 && m < 60).then_some(h * 60 + m)
        };
        let (start, end) = (hm(a)?, hm(b)?);
        (start != end).then_some(QuietHours { start, end })
    }

    /// Whether `minute` (after local midnight) is inside the quiet span.
    pub fn contains(self, minute: u16) -> bool {
        if self.start < self.end {
            (self.start..self.end).contains(&minute)
        } else {
            minute >= self.start || minute < self.end
        }
    }

    /// Minutes from `minute` until the span ends (0 outside it).
    pub fn minutes_left(self, minute: u16) -> u16 {
        if !self.contains(minute) {
            return 0;
        }
        (self.end + 24 * 60 - minute) % (24 * 60)
    }
}

impl fmt::Display for QuietHours {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{:02}:{:02}-{:02}:{:02}",
            self.start / 60,
            self.start % 60,
            self.end / 60,
            self.end % 60
        )
    }
}

impl Serialize for QuietHours {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

/// A webhook's message format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum WebhookFormat {
    /// `{"event", "ask": {id, title, kind, who, url, createdAt}, "text"}`.
    #[default]
    Json,
    /// ntfy: the text as the body, `Title` and `Click` headers.
    Ntfy,
    /// A Slack-compatible incoming webhook: `{"text": …}`.
    Slack,
}

impl WebhookFormat {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Json => "json",
            Self::Ntfy => "ntfy",
            Self::Slack => "slack",
        }
    }

    pub(super) fn parse(s: &str) -> Option<Self> {
        match s {
            "json" => Some(Self::Json),
            "ntfy" => Some(Self::Ntfy),
            "slack" => Some(Self::Slack),
            _ => None,
        }
    }
}

/// One `[[notify.webhook]]`. Its `Debug` shows the URL as [`webhook_target`] (scheme and
/// host): the rest may be a secret.
#[derive(Clone, PartialEq, Eq, Serialize)]
pub struct WebhookConfig {
    /// Shown in Settings and `askd doctor`; defaults to `<format>-<n>` (1-based).
    pub name: String,
    /// An absolute http or https URL. It may carry a secret (a Slack hook, an ntfy topic):
    /// the Settings page and `askd doctor` show only its scheme and host.
    pub url: String,
    pub format: WebhookFormat,
    /// Team mode: a member's own webhook, which gets only what is offered to that member
    /// (an escalated ask, issue 35); `None`: the install's, which gets every message.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub member: Option<String>,
}

impl std::fmt::Debug for WebhookConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let WebhookConfig {
            name,
            url,
            format,
            member,
        } = self;
        f.debug_struct("WebhookConfig")
            .field("name", name)
            .field("url", &webhook_target(url))
            .field("format", format)
            .field("member", member)
            .finish()
    }
}

/// A webhook URL without its secrets: scheme, host and port, `/…` when there is a path or
/// a query (a Slack hook's path, an ntfy topic). What Settings, `askd doctor`, the
/// notifier's status and `Debug` show.
pub fn webhook_target(url: &str) -> String {
    match url::Url::parse(url) {
        Ok(u) => {
            let port = u.port().map(|p| format!(":{p}")).unwrap_or_default();
            let rest = if u.path() == "/" && u.query().is_none() {
                ""
            } else {
                "/…"
            };
            format!(
                "{}://{}{port}{rest}",
                u.scheme(),
                u.host_str().unwrap_or("")
            )
        }
        Err(_) => "(invalid URL)".to_string(),
    }
}

/// `[notify]`: messages about new and waiting asks.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct NotifyConfig {
    /// The first reminder of a pending ask comes this long after it was created; `0` = no
    /// reminders. Default `10m`.
    pub after: Span,
    /// Later reminders, this far apart; `0` = only the first. Default `0`.
    pub remind_every: Span,
    /// A reminder this long before an ask's deadline (issue 35), when the deadline was at
    /// least twice as far when it was set; `0` = none. Default `10m`.
    pub before_deadline: Span,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub quiet_hours: Option<QuietHours>,
    /// Desktop notifications (freedesktop D-Bus, when a session bus is there; macOS
    /// `osascript`). Default true.
    pub desktop: bool,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub webhook: Vec<WebhookConfig>,
}

impl Default for NotifyConfig {
    fn default() -> Self {
        Self {
            after: Span(600),
            remind_every: Span(0),
            before_deadline: Span(600),
            quiet_hours: None,
            desktop: true,
            webhook: Vec::new(),
        }
    }
}

/// `databaseWait` by default: a minute of retries while the database comes up.
pub const DEFAULT_DATABASE_WAIT: u64 = 60;

/// The effective configuration. Serialises (camelCase keys, tables nested) to a valid
/// `askd.toml`. Neither that nor `Debug` shows a secret: `databaseUrl` with its password
/// hidden ([`redact_url`]), each webhook as its scheme and host ([`webhook_target`]).
#[derive(Clone, PartialEq, Eq, Serialize)]
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
    /// The address people reach this daemon at (a tunnel, a LAN name), without a trailing
    /// slash: links in notifications and the pairing link use it; `None` = the bound address.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub public_url: Option<String>,
    /// `databaseUrl`: the PostgreSQL database of a team (several daemons on one database);
    /// `None` = the data directory's SQLite file. Serialised with its password hidden.
    #[serde(
        skip_serializing_if = "Option::is_none",
        serialize_with = "serialize_redacted_url"
    )]
    pub database_url: Option<String>,
    /// `databaseWait`: how long a starting daemon retries an unreachable database (team
    /// mode); 0 = it exits at once.
    pub database_wait: Span,
    pub survey: SurveyConfig,
    #[serde(rename = "batch_review")]
    pub batch_review: BatchReviewConfig,
    pub alignment: AlignmentConfig,
    pub notify: NotifyConfig,
    pub asks: AsksConfig,
}

/// `[asks]`: what every ask gets unless it says otherwise (issue 35).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AsksConfig {
    /// `deadline`: an ask without a deadline of its own closes unanswered after this long;
    /// 0 = it waits until answered.
    pub deadline: Span,
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
            public_url: None,
            database_url: None,
            database_wait: Span(DEFAULT_DATABASE_WAIT),
            survey: SurveyConfig::default(),
            batch_review: BatchReviewConfig::default(),
            alignment: AlignmentConfig::default(),
            notify: NotifyConfig::default(),
            asks: AsksConfig::default(),
        }
    }
}

impl std::fmt::Debug for Config {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Every field named, so a new one cannot be forgotten here.
        let Config {
            listen,
            max_wait,
            max_body_bytes,
            language,
            allowed_hosts,
            idle_exit,
            elicitation,
            public_url,
            database_url,
            database_wait,
            survey,
            batch_review,
            alignment,
            notify,
            asks,
        } = self;
        f.debug_struct("Config")
            .field("listen", listen)
            .field("max_wait", max_wait)
            .field("max_body_bytes", max_body_bytes)
            .field("language", language)
            .field("allowed_hosts", allowed_hosts)
            .field("idle_exit", idle_exit)
            .field("elicitation", elicitation)
            .field("public_url", public_url)
            .field("database_url", &database_url.as_deref().map(redact_url))
            .field("database_wait", database_wait)
            .field("survey", survey)
            .field("batch_review", batch_review)
            .field("alignment", alignment)
            .field("notify", notify)
            .field("asks", asks)
            .finish()
    }
}

/// A URL with its password replaced by `***` (a config dump never shows it).
fn serialize_redacted_url<S: serde::Serializer>(
    url: &Option<String>,
    s: S,
) -> Result<S::Ok, S::Error> {
    match url {
        Some(u) => s.serialize_str(&redact_url(u)),
        None => s.serialize_none(),
    }
}

/// `url` with its password (if any) replaced by `***`, for messages and dumps: the one in
/// the user part, and a `password` or `sslpassword` query parameter (PostgreSQL takes
/// both).
pub fn redact_url(url: &str) -> String {
    match url::Url::parse(url) {
        Ok(mut u) => {
            if u.password().is_some() {
                let _ = u.set_password(Some("***"));
            }
            let secret = |k: &str| {
                k.eq_ignore_ascii_case("password") || k.eq_ignore_ascii_case("sslpassword")
            };
            if u.query_pairs().any(|(k, _)| secret(&k)) {
                let pairs: Vec<(String, String)> = u
                    .query_pairs()
                    .map(|(k, v)| {
                        let v = if secret(&k) {
                            "***".to_string()
                        } else {
                            v.into_owned()
                        };
                        (k.into_owned(), v)
                    })
                    .collect();
                u.query_pairs_mut().clear().extend_pairs(pairs);
            }
            u.to_string()
        }
        Err(_) => "<not a URL>".to_string(),
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

//! Parsing and validation of one value, shared by every source (file, env, flag).

use super::*;

pub(super) enum Val {
    Addr(SocketAddr),
    Int(u64),
    Bool(bool),
    Lang(Language),
    Mode(Mode),
    Elicit(Elicitation),
    Hosts(Vec<String>),
    Text(String),
    Url(String),
    Span(Span),
    Quiet(Option<QuietHours>),
    Webhooks(Vec<WebhookConfig>),
}

/// One value as a source gave it.
#[derive(Clone, Copy)]
pub(super) enum Raw<'a> {
    Toml(&'a toml::Value),
    Text(&'a str),
}

/// Where a value came from.
#[derive(Clone, Copy)]
pub(super) enum Src<'a> {
    File(&'a Path),
    Env,
    Flag,
    /// Saved from the Settings page (`crate::settings`).
    Saved,
}

impl Src<'_> {
    pub(super) fn origin(self, def: &KeyDef) -> Origin {
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
            Src::Saved => Origin {
                layer: "saved",
                source: "the Settings page".to_string(),
            },
        }
    }

    /// Short name of the setting in this source: `askd.toml: [t] key`, `ASKD_X`, `--x`.
    pub(super) fn name(self, def: &KeyDef) -> String {
        match self {
            Src::File(path) => match def.table {
                Some(t) => format!("{}: [{t}] {}", path.display(), def.name),
                None => format!("{}: {}", path.display(), def.name),
            },
            Src::Env => def.env.to_string(),
            Src::Flag => format!("--{}", def.flag),
            Src::Saved => match def.table {
                Some(t) => format!("[{t}] {}", def.name),
                None => def.name.to_string(),
            },
        }
    }

    /// The setting with its value, as written in this source.
    pub(super) fn label(self, def: &KeyDef, raw: &Raw<'_>) -> String {
        let name = self.name(def);
        // A section is long; webhook and database URLs may carry secrets: name the key only.
        if matches!(def.kind, Kind::Section | Kind::Webhooks | Kind::DatabaseUrl) {
            return name;
        }
        match (self, raw) {
            (Src::File(_) | Src::Saved, Raw::Toml(v)) => format!("{name} = {}", show_toml(v)),
            (_, Raw::Text(s)) => format!("{name}={s:?}"),
            (_, Raw::Toml(v)) => format!("{name}={}", show_toml(v)),
        }
    }
}

pub(super) fn show_toml(v: &toml::Value) -> String {
    let s = v.to_string();
    let s = s.replace('\n', " ");
    if s.chars().count() > 80 {
        format!("{}…", s.chars().take(80).collect::<String>())
    } else {
        s
    }
}

pub(super) fn expected(kind: Kind) -> &'static str {
    match kind {
        Kind::Addr => "a socket address string such as \"127.0.0.1:7391\"",
        Kind::Int { .. } => "an integer",
        Kind::Bool => "a boolean (true or false)",
        Kind::Language | Kind::Mode | Kind::Elicitation | Kind::Section => "a string",
        Kind::Hosts => "an array of host-name strings",
        Kind::Url => "a URL string such as \"https://askd.example.ts.net\"",
        Kind::DatabaseUrl => "a URL string such as \"postgres://askd@db.example/askd\"",
        Kind::Span => "a string such as \"90s\", \"10m\" or \"2h\" (or an integer of seconds)",
        Kind::Quiet => "a string \"HH:MM-HH:MM\" such as \"22:00-07:00\"",
        Kind::Webhooks => "an array of tables [[notify.webhook]] with url and format",
    }
}

pub(super) fn parse_value(def: &KeyDef, src: Src<'_>, raw: Raw<'_>) -> Result<Val, ConfigError> {
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
        Kind::Int { min, max, hint } => parse_int(min, max, hint, raw, &label, &wrong_type),
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
        Kind::Mode => parse_mode(raw, &label),
        Kind::Elicitation => parse_elicitation(raw, &label),
        Kind::Section => parse_section(raw, &label),
        Kind::Url => {
            let s = match raw {
                Raw::Toml(toml::Value::String(s)) => s.as_str(),
                Raw::Toml(v) => return Err(wrong_type(v.type_str())),
                Raw::Text(s) => s,
            };
            check_url(s, false)
                .map(Val::Url)
                .map_err(|why| ConfigError::new(format!("{} {why}", label())))
        }
        Kind::DatabaseUrl => {
            let s = match raw {
                Raw::Toml(toml::Value::String(s)) => s.as_str(),
                Raw::Toml(v) => return Err(wrong_type(v.type_str())),
                Raw::Text(s) => s,
            };
            check_database_url(s)
                .map(Val::Url)
                .map_err(|why| ConfigError::new(format!("{} {why}", label())))
        }
        Kind::Span => parse_span(raw, &label, &wrong_type),
        Kind::Quiet => parse_quiet(raw, &label, &wrong_type),
        Kind::Webhooks => parse_webhooks(&label(), raw).map(Val::Webhooks),
        Kind::Hosts => parse_hosts(raw, &label, &wrong_type),
    }
}

/// [`Kind::Int`]: an integer within `min..=max` (`hint` explains the range).
fn parse_int(
    min: u64,
    max: u64,
    hint: &str,
    raw: Raw<'_>,
    label: &dyn Fn() -> String,
    wrong_type: &dyn Fn(&str) -> ConfigError,
) -> Result<Val, ConfigError> {
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

/// [`Kind::Mode`]: `auto`, `manual` or `off`.
fn parse_mode(raw: Raw<'_>, label: &dyn Fn() -> String) -> Result<Val, ConfigError> {
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
    Mode::parse(s).map(Val::Mode).ok_or_else(|| {
        ConfigError::new(format!(
            "{} is not allowed — mode must be one of \"auto\", \"manual\" or \"off\" (lowercase)",
            label()
        ))
    })
}

/// [`Kind::Elicitation`]: `auto`, `form`, `url` or `off`.
fn parse_elicitation(raw: Raw<'_>, label: &dyn Fn() -> String) -> Result<Val, ConfigError> {
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

/// [`Kind::Section`]: non-blank text of at most [`SECTION_MAX_BYTES`].
fn parse_section(raw: Raw<'_>, label: &dyn Fn() -> String) -> Result<Val, ConfigError> {
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

/// [`Kind::Span`]: a duration such as `"90s"`, or an integer of seconds.
fn parse_span(
    raw: Raw<'_>,
    label: &dyn Fn() -> String,
    wrong_type: &dyn Fn(&str) -> ConfigError,
) -> Result<Val, ConfigError> {
    let parsed = match raw {
        Raw::Toml(toml::Value::String(s)) => Span::parse(s),
        Raw::Toml(toml::Value::Integer(n)) if (0..=999_999_999).contains(n) => {
            Some(Span(*n as u64))
        }
        Raw::Toml(toml::Value::Integer(_)) => None,
        Raw::Toml(v) => return Err(wrong_type(v.type_str())),
        Raw::Text(s) => Span::parse(s),
    };
    parsed.map(Val::Span).ok_or_else(|| {
        ConfigError::new(format!(
            "{} is not a duration — write a whole number with s, m or h (\"90s\", \"10m\", \"2h\"), or 0 to turn it off",
            label()
        ))
    })
}

/// [`Kind::Quiet`]: `"HH:MM-HH:MM"`, or `"off"`.
fn parse_quiet(
    raw: Raw<'_>,
    label: &dyn Fn() -> String,
    wrong_type: &dyn Fn(&str) -> ConfigError,
) -> Result<Val, ConfigError> {
    let s = match raw {
        Raw::Toml(toml::Value::String(s)) => s.as_str(),
        Raw::Toml(v) => return Err(wrong_type(v.type_str())),
        Raw::Text(s) => s,
    };
    if s.trim() == "off" {
        return Ok(Val::Quiet(None));
    }
    QuietHours::parse(s).map(|q| Val::Quiet(Some(q))).ok_or_else(|| {
        ConfigError::new(format!(
            "{} is not a quiet-hours span — write \"HH:MM-HH:MM\" in local 24-hour time, e.g. \"22:00-07:00\" (start and end differ), or \"off\"",
            label()
        ))
    })
}

/// [`Kind::Hosts`]: host names (a TOML array, or comma-separated text), normalised and
/// deduplicated in order.
fn parse_hosts(
    raw: Raw<'_>,
    label: &dyn Fn() -> String,
    wrong_type: &dyn Fn(&str) -> ConfigError,
) -> Result<Val, ConfigError> {
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

/// An absolute `http`/`https` URL without credentials, query or fragment (for a webhook,
/// `query_ok`: its query may carry a key). The trailing `/` of `publicUrl` is dropped.
pub(super) fn check_url(s: &str, query_ok: bool) -> Result<String, String> {
    let s = s.trim();
    let u = url::Url::parse(s).map_err(|e| {
        format!("is not a URL ({e}) — write an absolute http:// or https:// URL such as https://askd.example.ts.net")
    })?;
    if !matches!(u.scheme(), "http" | "https") || u.host_str().is_none() {
        return Err(format!(
            "is not allowed — only http:// and https:// URLs with a host (got scheme {:?})",
            u.scheme()
        ));
    }
    if !u.username().is_empty() || u.password().is_some() {
        return Err("must not carry a user name or password".to_string());
    }
    if u.fragment().is_some() || (!query_ok && u.query().is_some()) {
        return Err("must not have a query (?…) or fragment (#…)".to_string());
    }
    Ok(if query_ok {
        s.to_string()
    } else {
        s.trim_end_matches('/').to_string()
    })
}

/// A PostgreSQL connection URL: `postgres://` or `postgresql://` with a host (user, password,
/// port, database and query parameters such as `sslmode` as PostgreSQL takes them). The
/// messages never repeat the URL: it may hold a password.
pub(super) fn check_database_url(s: &str) -> Result<String, String> {
    let s = s.trim();
    let u = url::Url::parse(s).map_err(|e| {
        format!("is not a URL ({e}) — write a PostgreSQL URL such as postgres://askd:PASSWORD@db.example:5432/askd")
    })?;
    if !matches!(u.scheme(), "postgres" | "postgresql") {
        return Err(format!(
            "is not a PostgreSQL URL (scheme {:?}) — write postgres://USER:PASSWORD@HOST:PORT/DATABASE, or leave databaseUrl unset for the local SQLite database",
            u.scheme()
        ));
    }
    if u.host_str().is_none_or(str::is_empty) {
        return Err("has no host — write postgres://USER:PASSWORD@HOST:PORT/DATABASE".to_string());
    }
    Ok(s.to_string())
}

/// A webhook's `member`: a member's name, 1 to 40 characters.
fn member_of(m: Option<&str>) -> Result<Option<String>, String> {
    match m.map(str::trim) {
        None => Ok(None),
        Some(m) if !m.is_empty() && m.chars().count() <= crate::members::NAME_MAX => {
            Ok(Some(m.to_string()))
        }
        Some(_) => Err("member must be a member's name, 1 to 40 characters".to_string()),
    }
}

/// `[[notify.webhook]]` tables (`url`, `format`, `name`, `member`), or as text `FORMAT=URL`
/// entries separated by whitespace (`ntfy=https://ntfy.sh/topic slack=https://hooks…`;
/// `json@bob=URL` is member bob's own).
fn parse_webhooks(label: &str, raw: Raw<'_>) -> Result<Vec<WebhookConfig>, ConfigError> {
    const FORMATS: &str = "json, ntfy or slack";
    let mut out: Vec<WebhookConfig> = Vec::new();
    let default_name = |format: WebhookFormat, out: &Vec<WebhookConfig>| {
        let n = out.iter().filter(|w| w.format == format).count() + 1;
        format!("{}-{n}", format.as_str())
    };
    match raw {
        Raw::Toml(toml::Value::Array(items)) => {
            for (i, item) in items.iter().enumerate() {
                let Some(t) = item.as_table() else {
                    return Err(ConfigError::new(format!(
                        "{label}: entry {i} has the wrong type — expected a table [[notify.webhook]] with url = \"https://…\" and format = \"json\" | \"ntfy\" | \"slack\", found {}",
                        item.type_str()
                    )));
                };
                for k in t.keys() {
                    if !matches!(k.as_str(), "url" | "format" | "name" | "member") {
                        return Err(ConfigError::new(format!(
                            "{label}: entry {i} has unknown key {k:?} — allowed keys in [[notify.webhook]]: url, format, name, member"
                        )));
                    }
                }
                let text = |k: &str| -> Result<Option<&str>, ConfigError> {
                    match t.get(k) {
                        None => Ok(None),
                        Some(toml::Value::String(s)) => Ok(Some(s.as_str())),
                        Some(v) => Err(ConfigError::new(format!(
                            "{label}: entry {i} {k} has the wrong type — expected a string, found {}",
                            v.type_str()
                        ))),
                    }
                };
                let Some(url) = text("url")? else {
                    return Err(ConfigError::new(format!(
                        "{label}: entry {i} has no url — add url = \"https://…\" (the webhook's address)"
                    )));
                };
                let url = check_url(url, true)
                    .map_err(|why| ConfigError::new(format!("{label}: entry {i} url {why}")))?;
                let format = match text("format")? {
                    None => WebhookFormat::Json,
                    Some(f) => WebhookFormat::parse(f).ok_or_else(|| {
                        ConfigError::new(format!(
                            "{label}: entry {i} format {f:?} is not allowed — use {FORMATS}"
                        ))
                    })?,
                };
                let name = match text("name")? {
                    Some(n) if !n.trim().is_empty() && n.chars().count() <= 64 => {
                        n.trim().to_string()
                    }
                    Some(_) => {
                        return Err(ConfigError::new(format!(
                            "{label}: entry {i} name must be 1 to 64 characters"
                        )));
                    }
                    None => default_name(format, &out),
                };
                if out.iter().any(|w| w.name == name) {
                    return Err(ConfigError::new(format!(
                        "{label}: entry {i} repeats the name {name:?} — give each webhook its own name"
                    )));
                }
                let member = member_of(text("member")?)
                    .map_err(|why| ConfigError::new(format!("{label}: entry {i} {why}")))?;
                out.push(WebhookConfig {
                    name,
                    url,
                    format,
                    member,
                });
            }
        }
        Raw::Toml(v) => {
            return Err(ConfigError::new(format!(
                "{label} has the wrong type — expected an array of tables [[notify.webhook]], found {}",
                v.type_str()
            )));
        }
        Raw::Text(s) => {
            for entry in s.split_whitespace() {
                let Some((f, url)) = entry.split_once('=') else {
                    return Err(ConfigError::new(format!(
                        "{label}: {entry:?} is not FORMAT=URL — write entries such as ntfy=https://ntfy.sh/my-topic, separated by spaces; formats: {FORMATS}"
                    )));
                };
                let (f, member) = match f.split_once('@') {
                    Some((f, m)) => (f, Some(m)),
                    None => (f, None),
                };
                let format = WebhookFormat::parse(f).ok_or_else(|| {
                    ConfigError::new(format!(
                        "{label}: format {f:?} is not allowed — use {FORMATS} (FORMAT=URL)"
                    ))
                })?;
                let url = check_url(url, true)
                    .map_err(|why| ConfigError::new(format!("{label}: {url:?} {why}")))?;
                let member = member_of(member)
                    .map_err(|why| ConfigError::new(format!("{label}: {entry:?}: {why}")))?;
                let name = default_name(format, &out);
                out.push(WebhookConfig {
                    name,
                    url,
                    format,
                    member,
                });
            }
        }
    }
    Ok(out)
}

/// A Host allow-list entry: lowercase, no port; bare IPv6 gets brackets (as in a Host header).
pub(super) fn normalize_host(s: &str) -> Option<String> {
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

pub(super) fn set(cfg: &mut Config, key: Key, val: Val) {
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
        (Key::PublicUrl, Val::Url(u)) => cfg.public_url = Some(u),
        (Key::DatabaseUrl, Val::Url(u)) => cfg.database_url = Some(u),
        (Key::DatabaseWait, Val::Span(d)) => cfg.database_wait = d,
        (Key::AsksDeadline, Val::Span(d)) => cfg.asks.deadline = d,
        (Key::After, Val::Span(d)) => cfg.notify.after = d,
        (Key::RemindEvery, Val::Span(d)) => cfg.notify.remind_every = d,
        (Key::BeforeDeadline, Val::Span(d)) => cfg.notify.before_deadline = d,
        (Key::QuietHours, Val::Quiet(q)) => cfg.notify.quiet_hours = q,
        (Key::Desktop, Val::Bool(b)) => cfg.notify.desktop = b,
        (Key::Webhook, Val::Webhooks(w)) => cfg.notify.webhook = w,
        (key, _) => unreachable!("value kind does not match key {key:?}"),
    }
}

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
}

/// One value as a source gave it.
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
        }
    }

    /// The setting with its value, as written in this source.
    pub(super) fn label(self, def: &KeyDef, raw: &Raw<'_>) -> String {
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
            Mode::parse(s).map(Val::Mode).ok_or_else(|| {
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
        (key, _) => unreachable!("value kind does not match key {key:?}"),
    }
}

//! Loading: built-in defaults, then the file, env and flags, with the cross-key check.

use super::*;

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

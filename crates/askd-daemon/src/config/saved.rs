//! The `[notify]` keys saved from the Settings page: the layer above the configuration
//! (`review.md` §7.3), checked by the same validation as every other source
//! ([`parse_value`]), so a saved `after = "ten"` gets the message a config file would.

use super::*;
use serde_json::{Map, Value};

/// The `[notify]` keys the Settings page edits, by their names in `askd.toml`. Saved under
/// `notify.<name>` in the store's settings map. (`publicUrl` is not among them: it is part of
/// the fence — the origin requests may come from — a decision for the config file.)
pub const NOTIFY_SAVED: [&str; 5] = ["after", "remindEvery", "quietHours", "desktop", "webhook"];

/// A saved or submitted value that is not valid: the key's name (as in `askd.toml`) and
/// the same message a config file with that value would get.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SavedProblem {
    pub key: &'static str,
    pub message: String,
}

fn notify_def(name: &str) -> Option<&'static KeyDef> {
    keys_in(Some("notify")).find(|d| d.name == name)
}

/// `base` with every valid value of `values` applied: a map keyed by the names of
/// [`NOTIFY_SAVED`] (a `PUT` body) when `prefix` is empty, or the store's settings map
/// (`notify.after`, …) with `prefix = "notify."`. A `null` or missing key keeps `base`'s
/// value; a wrong one keeps it too and is reported.
pub fn notify_with_saved(
    base: &NotifyConfig,
    values: &Map<String, Value>,
    prefix: &str,
) -> (NotifyConfig, Vec<SavedProblem>) {
    let mut cfg = Config {
        notify: base.clone(),
        ..Config::default()
    };
    let mut problems = Vec::new();
    for name in NOTIFY_SAVED {
        let Some(def) = notify_def(name) else {
            continue;
        };
        let Some(v) = values
            .get(&format!("{prefix}{name}"))
            .filter(|v| !v.is_null())
        else {
            continue;
        };
        let parsed = toml::Value::try_from(v)
            .map_err(|_| {
                ConfigError::new(format!(
                    "[notify] {name} has the wrong type — expected {}",
                    expected(def.kind)
                ))
            })
            .and_then(|t| parse_value(def, Src::Saved, Raw::Toml(&t)));
        match parsed {
            Ok(val) => set(&mut cfg, def.key, val),
            Err(e) => problems.push(SavedProblem {
                key: def.name,
                message: e.to_string(),
            }),
        }
    }
    (cfg.notify, problems)
}

/// One `[notify]` key's value in `cfg`, as JSON the way the Settings page shows and sends it
/// (spans and quiet hours as text, `"off"` for no quiet hours; webhooks by name and
/// format only — a URL may carry a secret, so it is never sent back).
pub fn notify_value(cfg: &NotifyConfig, name: &str) -> Value {
    match name {
        "after" => Value::String(cfg.after.to_string()),
        "remindEvery" => Value::String(cfg.remind_every.to_string()),
        "quietHours" => Value::String(
            cfg.quiet_hours
                .map(|q| q.to_string())
                .unwrap_or_else(|| "off".to_string()),
        ),
        "desktop" => Value::Bool(cfg.desktop),
        "webhook" => Value::Array(
            cfg.webhook
                .iter()
                .map(|w| {
                    let mut v = serde_json::json!({"name": w.name, "format": w.format.as_str()});
                    if let Some(m) = &w.member {
                        v["member"] = serde_json::json!(m);
                    }
                    v
                })
                .collect(),
        ),
        _ => Value::Null,
    }
}

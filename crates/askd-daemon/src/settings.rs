//! Saved settings (`review.md` §7.3): the web UI's Settings page, section "Batch review".
//!
//! Three keys — `maxItems`, `virtualThreshold` (`[batch_review]`) and `maxBodyBytes` (top
//! level) — take their effective value from three layers, lowest first: the built-in
//! default; the configuration (`askd.toml`, env, flags, resolved at start by
//! [`crate::config`]); the values saved from the Settings page, kept in the store. The config
//! file is never written. A save stores only the keys the page sends (the ones the user
//! changed); a `null` removes the saved value (Reset) so the lower layers apply again.
//! Saved values take effect at once, without a restart: they live in [`LiveLimits`], which every
//! reader of these three values goes through. The routes are in `crate::http::settings`.
//!
//! # Routes
//! - `GET /api/settings` — every key with its effective value, default, hard range, the
//!   layer it comes from, the configuration's value and the saved value.
//! - `PUT /api/settings` `{maxItems?: int|null, virtualThreshold?: int|null,
//!   maxBodyBytes?: int|null}` — validates every member (422 with `{path, code, message}`
//!   naming the key and its range; nothing is saved when one is wrong), saves, applies, and
//!   answers like `GET`.

use std::ops::RangeInclusive;
use std::sync::atomic::{AtomicUsize, Ordering};

use askd_core::Problem;
use askd_core::json::Json;
use askd_store::Store;
use serde_json::{Map, Value, json};

use crate::config::{
    DEFAULT_MAX_BODY_BYTES, DEFAULT_MAX_ITEMS, DEFAULT_VIRTUAL_THRESHOLD, MAX_BODY_BYTES_RANGE,
    MAX_ITEMS_RANGE, Origins, VIRTUAL_THRESHOLD_RANGE,
};
use crate::error::{ApiError, ApiResult};
use crate::hub::Hub;
use crate::locks::Locks;

/// One key the Settings page offers.
struct Def {
    /// The name in the API and the page (camelCase, as in `askd.toml`).
    name: &'static str,
    /// Its table in `askd.toml` (`None`: top level).
    table: Option<&'static str>,
    default: u64,
    range: RangeInclusive<u64>,
    /// Shown after the value (`bytes`), or none.
    unit: Option<&'static str>,
}

impl Def {
    /// The qualified name: the key of the saved value and of [`crate::config::Origins`].
    fn qualified(&self) -> String {
        match self.table {
            Some(t) => format!("{t}.{}", self.name),
            None => self.name.to_string(),
        }
    }
}

const KEYS: [Def; 3] = [
    Def {
        name: "maxItems",
        table: Some("batch_review"),
        default: DEFAULT_MAX_ITEMS as u64,
        range: MAX_ITEMS_RANGE,
        unit: None,
    },
    Def {
        name: "virtualThreshold",
        table: Some("batch_review"),
        default: DEFAULT_VIRTUAL_THRESHOLD as u64,
        range: VIRTUAL_THRESHOLD_RANGE,
        unit: None,
    },
    Def {
        name: "maxBodyBytes",
        table: None,
        default: DEFAULT_MAX_BODY_BYTES,
        range: MAX_BODY_BYTES_RANGE,
        unit: Some("bytes"),
    },
];

/// The saved `elicitation` (`clients.md` §3): every `askd mcp` and `/mcp` reads it before
/// it plans an ask's request, so a save applies to the next ask of every connected agent.
pub const ELICITATION: &str = "elicitation";

/// The saved `elicitation`, when one is saved and valid.
pub fn saved_elicitation(saved: &Map<String, Value>) -> Option<crate::config::Elicitation> {
    saved
        .get(ELICITATION)
        .and_then(Value::as_str)
        .and_then(crate::config::Elicitation::parse)
}

/// Keys of `askd.toml` that exist but are not on the Settings page, with why.
fn not_offered(name: &str) -> Option<&'static str> {
    match name {
        "allowExternalPersist" => Some(
            "allowExternalPersist can be set only in askd.toml ([batch_review]): widening where agents may write files is a decision for the config file",
        ),
        "listen"
        | "maxWait"
        | "language"
        | "allowedHosts"
        | "idleExit"
        | "structureQuestionCap"
        | "workspaceRecords"
        | "mode"
        | "section"
        | "publicUrl" => {
            Some("is not on the Settings page; set it in askd.toml, an ASKD_* variable or a flag")
        }
        "after" | "remindEvery" | "quietHours" | "desktop" | "webhook" | "webhooks" => Some(
            "is a [notify] setting: save it with PUT /api/notify (the Settings page's Notifications section)",
        ),
        _ => None,
    }
}

/// The effective values of the three live keys, held by the daemon. Readers call
/// `Daemon::max_items`, `Daemon::virtual_threshold` and `Daemon::max_body_bytes`.
#[derive(Debug)]
pub struct LiveLimits {
    values: [AtomicUsize; 3],
    /// The configuration's values (the layers below the saved settings).
    base: [u64; 3],
}

impl LiveLimits {
    /// The configuration's values of the three keys.
    pub fn new(max_items: usize, virtual_threshold: usize, max_body_bytes: usize) -> Self {
        let base = [
            max_items as u64,
            virtual_threshold as u64,
            max_body_bytes as u64,
        ];
        LiveLimits {
            values: base.map(|v| AtomicUsize::new(to_usize(v))),
            base,
        }
    }

    fn get(&self, i: usize) -> usize {
        self.values[i].load(Ordering::Relaxed)
    }

    /// Sets each key to its saved value, else the configuration's.
    fn apply(&self, saved: &Map<String, Value>) {
        for (i, def) in KEYS.iter().enumerate() {
            let v = saved_value(def, saved).unwrap_or(self.base[i]);
            self.values[i].store(to_usize(v), Ordering::Relaxed);
        }
    }
}

fn to_usize(v: u64) -> usize {
    usize::try_from(v).unwrap_or(usize::MAX)
}

/// A saved value that is still valid (a stored value outside today's range is ignored).
fn saved_value(def: &Def, saved: &Map<String, Value>) -> Option<u64> {
    saved
        .get(&def.qualified())
        .and_then(Value::as_u64)
        .filter(|v| def.range.contains(v))
}

impl LiveLimits {
    /// `[batch_review] maxItems` in effect.
    pub fn max_items(&self) -> usize {
        self.get(0)
    }

    /// `[batch_review] virtualThreshold` in effect.
    pub fn virtual_threshold(&self) -> usize {
        self.get(1)
    }

    /// `maxBodyBytes` in effect.
    pub fn max_body_bytes(&self) -> usize {
        self.get(2)
    }

    /// Applies the saved settings from the store (at start). A store failure keeps the
    /// configuration's values and is logged.
    pub async fn load(&self, store: &dyn Store) {
        match store.settings().await {
            Ok(saved) => {
                for def in &KEYS {
                    if saved.contains_key(&def.qualified()) && saved_value(def, &saved).is_none() {
                        tracing::warn!(
                            key = def.name,
                            "ignoring a saved setting outside its range {}..={}",
                            def.range.start(),
                            def.range.end()
                        );
                    }
                }
                self.apply(&saved);
            }
            Err(e) => tracing::error!(error = %e, "cannot read the saved settings"),
        }
    }

    /// The body of `GET /api/settings`.
    pub async fn view(&self, store: &dyn Store, origins: &Origins) -> ApiResult<Value> {
        let saved = store
            .settings()
            .await
            .map_err(|e| ApiError::store(e, "-"))?;
        let mut out = Vec::new();
        for (i, def) in KEYS.iter().enumerate() {
            let q = def.qualified();
            let saved_v = saved_value(def, &saved);
            let origin = origins.get(&q);
            let (layer, source) = match (saved_v, origin) {
                (Some(_), _) => ("saved", None),
                (None, Some(o)) => ("config", Some(o)),
                (None, None) => ("default", None),
            };
            out.push(json!({
                "key": def.name,
                "table": def.table,
                "value": self.get(i),
                "default": def.default,
                "min": def.range.start(),
                "max": def.range.end(),
                "unit": def.unit,
                "layer": layer,
                "source": source.map(|o| json!({"layer": o.layer, "source": o.source})),
                "config": self.base[i],
                "saved": saved_v,
            }));
        }
        Ok(json!({ "settings": out }))
    }

    /// `PUT /api/settings`: validates every member, then saves and applies them all (one
    /// save at a time, under [`Locks::settings_save`]).
    pub async fn save(
        &self,
        store: &dyn Store,
        hub: &Hub,
        locks: &Locks,
        origins: &Origins,
        body: &Json<'_>,
    ) -> ApiResult<Value> {
        let obj = body.as_object().expect("checked by JsonBody::object");
        let mut problems = Vec::new();
        let mut set = Map::new();
        let mut remove = Vec::new();
        for (name, value) in obj.iter() {
            // `elicitation` (clients.md §3): text, read by every adapter before each ask.
            if name == ELICITATION {
                match value {
                    Json::Null => remove.push(ELICITATION.to_string()),
                    Json::String(s) if crate::config::Elicitation::parse(s).is_some() => {
                        set.insert(ELICITATION.to_string(), json!(s.as_ref()));
                    }
                    other => problems.push(Problem::new(
                        name,
                        "invalid_value",
                        format!(
                            "elicitation must be one of \"auto\", \"form\", \"url\" or \"off\", or null to reset it (got {other})"
                        ),
                    )),
                }
                continue;
            }
            let Some(def) = KEYS.iter().find(|d| d.name == name) else {
                let message = match not_offered(name) {
                    Some(why) if why.starts_with(name) => why.to_string(),
                    Some(why) => format!("{name} {why}"),
                    None => {
                        let near = KEYS
                            .iter()
                            .find(|d| d.name.eq_ignore_ascii_case(&name.replace(['_', '-'], "")))
                            .map(|d| format!(" (did you mean \"{}\"?)", d.name))
                            .unwrap_or_default();
                        format!(
                            "{name} is not a setting{near}; the Settings page offers maxItems, virtualThreshold, maxBodyBytes and elicitation"
                        )
                    }
                };
                problems.push(Problem::new(name, "unknown_field", message));
                continue;
            };
            let (lo, hi) = (*def.range.start(), *def.range.end());
            let range = || match def.unit {
                Some(u) => format!("{lo} and {hi} {u}"),
                None => format!("{lo} and {hi}"),
            };
            match value {
                Json::Null => remove.push(def.qualified()),
                Json::Number(n) => match n.as_u64() {
                    Some(v) if def.range.contains(&v) => {
                        set.insert(def.qualified(), json!(v));
                    }
                    Some(_) => problems.push(Problem::new(
                        name,
                        "out_of_range",
                        format!("{name} must be between {} (got {n})", range()),
                    )),
                    None if n.as_i64().is_some() || !n.to_string().contains(['.', 'e', 'E']) => {
                        problems.push(Problem::new(
                            name,
                            "out_of_range",
                            format!("{name} must be between {} (got {n})", range()),
                        ))
                    }
                    None => problems.push(Problem::new(
                        name,
                        "not_integer",
                        format!(
                            "{name} must be a whole number between {} (got {n})",
                            range()
                        ),
                    )),
                },
                other => problems.push(Problem::new(
                    name,
                    "wrong_type",
                    format!(
                        "{name} must be a whole number between {}, or null to reset it (got {})",
                        range(),
                        other.kind()
                    ),
                )),
            }
        }
        if !problems.is_empty() {
            return Err(ApiError::invalid("invalid-settings", None, problems));
        }
        if !set.is_empty() || !remove.is_empty() {
            // One save at a time, so the values applied last are the ones saved last.
            let _one = locks.settings_save().await;
            save_and_apply(store, hub, &set, &remove, |saved| self.apply(saved)).await?;
        }
        self.view(store, origins).await
    }
}

/// Saves `set` and removes `remove` in the store's saved settings, hands every saved value
/// as it is now to `apply`, then announces the save (`settings.updated`: a page that re-reads
/// on it sees the applied values) and returns the saved values. The caller holds
/// [`Locks::settings_save`]. Shared with `crate::notify`.
pub(crate) async fn save_and_apply(
    store: &dyn Store,
    hub: &Hub,
    set: &Map<String, Value>,
    remove: &[String],
    apply: impl FnOnce(&Map<String, Value>),
) -> ApiResult<Map<String, Value>> {
    let event = store
        .save_settings(set, remove)
        .await
        .map_err(|e| ApiError::store(e, "-"))?;
    let saved = store
        .settings()
        .await
        .map_err(|e| ApiError::store(e, "-"))?;
    apply(&saved);
    hub.publish([event]);
    Ok(saved)
}

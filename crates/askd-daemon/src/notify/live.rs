//! The notifier's settings in effect: the configuration's `[notify]` (file, env, flags) with
//! the values saved from the Settings page on top (`review.md` §7.3's layers, as for the
//! batch-review keys in `crate::settings`). A save takes effect at once: the new [`NotifyPlan`]
//! goes to the running notifier over a `watch` channel, and the sinks' status lines follow.
//!
//! # Routes (`crate::http::devices`)
//! - `GET /api/notify` — the settings in effect, each key's layer and configured value, the
//!   webhooks (name, format, scheme and host only) and every sink's status.
//! - `PUT /api/notify` `{after?, remindEvery?, quietHours?, desktop?, webhook?}` — each
//!   key as in `askd.toml` (`"10m"`, `"22:00-07:00"` or `"off"`, `true`, an array of
//!   `{name, format, url}`), `null` to reset it to the configuration. A webhook entry without
//!   `url` keeps the URL of the webhook of that name in effect, so the page never needs to
//!   hold a URL it was not given (URLs may carry secrets and are never sent back). Every
//!   member is checked by the config's own validation; one wrong member saves nothing (422
//!   naming the key).

use std::sync::{Arc, Mutex};

use askd_core::Problem;
use askd_core::json::Json;
use askd_store::Store;
use serde_json::{Map, Value, json};
use tokio::sync::watch;

use super::{Desktop, NotifyPlan, Status, redact};
use crate::config::{NOTIFY_SAVED, NotifyConfig, Origins, notify_value, notify_with_saved};
use crate::error::{ApiError, ApiResult};
use crate::hub::Hub;
use crate::locks::Locks;

/// The prefix of the `[notify]` keys in the store's settings map.
const PREFIX: &str = "notify.";

/// The `[notify]` settings in effect and the channel the notifier follows.
#[derive(Debug)]
pub struct NotifySettings {
    /// The configuration's `[notify]`: the layers below the saved values.
    base: NotifyConfig,
    public_url: Option<String>,
    link_base: String,
    dbus: Option<String>,
    effective: Mutex<NotifyConfig>,
    plan: watch::Sender<Arc<NotifyPlan>>,
    status: Arc<Status>,
}

impl NotifySettings {
    /// The configuration's values; [`NotifySettings::load`] applies the saved ones.
    pub fn new(
        base: &NotifyConfig,
        public_url: Option<&str>,
        link_base: &str,
        dbus: Option<&str>,
    ) -> Self {
        let plan = NotifyPlan::new(base, link_base, dbus);
        let status = Arc::new(Status::new(
            &plan,
            base,
            public_url,
            Desktop::of(base, dbus),
        ));
        NotifySettings {
            base: base.clone(),
            public_url: public_url.map(str::to_string),
            link_base: link_base.to_string(),
            dbus: dbus.map(str::to_string),
            effective: Mutex::new(base.clone()),
            plan: watch::Sender::new(Arc::new(plan)),
            status,
        }
    }

    /// The plan in effect, and every later one.
    pub fn subscribe(&self) -> watch::Receiver<Arc<NotifyPlan>> {
        self.plan.subscribe()
    }

    pub fn status(&self) -> &Arc<Status> {
        &self.status
    }

    /// The `[notify]` settings in effect.
    pub fn effective(&self) -> NotifyConfig {
        self.effective
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    fn apply(&self, cfg: NotifyConfig) {
        let plan = NotifyPlan::new(&cfg, &self.link_base, self.dbus.as_deref());
        self.status.reconfigure(
            &plan,
            &cfg,
            self.public_url.as_deref(),
            Desktop::of(&cfg, self.dbus.as_deref()),
        );
        *self.effective.lock().unwrap_or_else(|p| p.into_inner()) = cfg;
        self.plan.send_replace(Arc::new(plan));
    }

    /// Applies the saved values (at start). A saved value that is no longer valid is
    /// ignored and logged; a store failure keeps the configuration's values.
    pub async fn load(&self, store: &dyn Store) {
        match store.settings().await {
            Ok(saved) => {
                let (cfg, problems) = notify_with_saved(&self.base, &saved, PREFIX);
                for p in problems {
                    tracing::warn!(
                        key = p.key,
                        "ignoring a saved [notify] setting: {}",
                        p.message
                    );
                }
                self.apply(cfg);
            }
            Err(e) => tracing::error!(error = %e, "cannot read the saved [notify] settings"),
        }
    }

    /// The body of `GET /api/notify`.
    pub async fn view(&self, store: &dyn Store, origins: &Origins) -> ApiResult<Value> {
        let saved = store
            .settings()
            .await
            .map_err(|e| ApiError::store(e, "-"))?;
        Ok(self.view_with(&saved, origins))
    }

    fn view_with(&self, saved: &Map<String, Value>, origins: &Origins) -> Value {
        let effective = self.effective();
        let (_, bad) = notify_with_saved(&self.base, saved, PREFIX);
        let keys: Vec<Value> = NOTIFY_SAVED
            .iter()
            .map(|name| {
                let q = format!("{PREFIX}{name}");
                let is_saved = saved.get(&q).is_some_and(|v| !v.is_null())
                    && !bad.iter().any(|p| p.key == *name);
                let origin = origins.get(&q);
                let layer = match (is_saved, origin) {
                    (true, _) => "saved",
                    (false, Some(_)) => "config",
                    (false, None) => "default",
                };
                json!({
                    "key": name,
                    "value": notify_value(&effective, name),
                    "layer": layer,
                    "source": origin.filter(|_| !is_saved).map(|o| json!({"layer": o.layer, "source": o.source})),
                    "config": notify_value(&self.base, name),
                })
            })
            .collect();
        let mut v = self.status.view();
        v["settings"] = Value::Array(keys);
        v["webhooks"] = effective
            .webhook
            .iter()
            .map(|w| {
                let mut v =
                    json!({"name": w.name, "format": w.format.as_str(), "target": redact(&w.url)});
                if let Some(m) = &w.member {
                    // A member's own webhook (escalations offered to them; issue 35).
                    v["member"] = json!(m);
                }
                v
            })
            .collect();
        v
    }

    /// `PUT /api/notify`: checks every member, then saves and applies them all (one save of
    /// settings at a time, under [`Locks::settings_save`]).
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
        let mut values = Map::new();
        for (name, value) in obj.iter() {
            if !NOTIFY_SAVED.contains(&name) {
                let near = NOTIFY_SAVED
                    .iter()
                    .find(|k| {
                        k.eq_ignore_ascii_case(&name.replace(['_', '-'], ""))
                            || (name == "webhooks" && **k == "webhook")
                    })
                    .map(|k| format!(" (did you mean \"{k}\"?)"))
                    .unwrap_or_default();
                problems.push(Problem::new(
                    name,
                    "unknown_field",
                    format!(
                        "{name} is not a [notify] setting{near}; the Settings page edits {}",
                        NOTIFY_SAVED.join(", ")
                    ),
                ));
                continue;
            }
            values.insert(name.to_string(), value.to_value());
        }
        let _one = locks.settings_save().await;
        if let Some(hooks) = values.get_mut("webhook") {
            keep_urls(hooks, &self.effective(), &mut problems);
        }
        let (_, bad) = notify_with_saved(&self.base, &values, "");
        problems.extend(
            bad.into_iter()
                .map(|p| Problem::new(p.key, "invalid_value", p.message)),
        );
        if !problems.is_empty() {
            return Err(ApiError::invalid("invalid-settings", None, problems));
        }
        if !values.is_empty() {
            let mut set = Map::new();
            let mut remove = Vec::new();
            for (name, v) in values {
                if v.is_null() {
                    remove.push(format!("{PREFIX}{name}"));
                } else {
                    set.insert(format!("{PREFIX}{name}"), v);
                }
            }
            let saved = crate::settings::save_and_apply(store, hub, &set, &remove, |saved| {
                self.apply(notify_with_saved(&self.base, saved, PREFIX).0)
            })
            .await?;
            return Ok(self.view_with(&saved, origins));
        }
        drop(_one);
        self.view(store, origins).await
    }
}

/// A webhook entry sent without `url` keeps the URL (and the `member`, which the Settings page
/// does not edit) of the webhook of its name in effect.
fn keep_urls(hooks: &mut Value, effective: &NotifyConfig, problems: &mut Vec<Problem>) {
    let Some(items) = hooks.as_array_mut() else {
        return;
    };
    for (i, item) in items.iter_mut().enumerate() {
        let Some(entry) = item.as_object_mut() else {
            continue;
        };
        if entry.contains_key("url") {
            continue;
        }
        let name = entry.get("name").and_then(Value::as_str).unwrap_or("");
        match effective.webhook.iter().find(|w| w.name == name) {
            Some(w) => {
                entry.insert("url".to_string(), Value::String(w.url.clone()));
                if let (Some(m), false) = (&w.member, entry.contains_key("member")) {
                    entry.insert("member".to_string(), Value::String(m.clone()));
                }
            }
            None => problems.push(Problem::new(
                format!("webhook/{i}/url"),
                "missing",
                format!(
                    "webhook entry {i} has no url and no webhook named {name:?} is in effect — give its url (\"https://…\")"
                ),
            )),
        }
    }
}

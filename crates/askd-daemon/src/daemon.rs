//! The daemon's state: [`Daemon`], one per running daemon (several may run in one process,
//! as the tests do), and its [`Settings`], derived from the configuration in one step.
//!
//! Everything a daemon keeps between requests lives here — the store, the hub, the live
//! settings, the locks ([`crate::locks`]), the memo of ask payloads the alignment fold reads
//! and the rendered diagrams — and nothing in a process-wide static.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use askd_core::alignment::{Lang, Mode};
use askd_core::json::Json;
use askd_store::Store;
use serde_json::Value;

use crate::alignment::{Alignment, AskMemo};
use crate::config::{Config, Env, NotifyConfig, Origins, Paths};
use crate::devices::Devices;
use crate::diagram;
use crate::error::ApiResult;
use crate::hub::Hub;
use crate::locks::Locks;
use crate::notify;
use crate::settings::LiveLimits;

/// What `askd serve` runs with: the configuration as the daemon uses it, derived from
/// [`Config`] by [`Settings::from_config`] (the one place a configuration key becomes a
/// setting). `max_items`, `virtual_threshold` and `max_body_bytes` are the values at start;
/// the Settings page may change them since — read them through [`Daemon::max_items`], ….
/// Its `Debug` shows no secret: `database_url` with its password hidden, webhooks as their
/// scheme and host (as `Config`'s).
#[derive(Clone)]
pub struct Settings {
    /// The address to bind (`127.0.0.1:0` picks a free port).
    pub listen: SocketAddr,
    /// The data directory: the store, the token, `daemon.json`, and builder drafts of
    /// sessions without a workspace.
    pub data_dir: PathBuf,
    /// The shortest of this and a call's `timeout_s` bounds a wait; `None` = unbounded.
    pub max_wait: Option<Duration>,
    pub max_body_bytes: usize,
    /// Host names allowed besides the loopback names.
    pub allowed_hosts: Vec<String>,
    /// The resolved `language` (`auto` already decided): the MCP instructions served at
    /// `/mcp` and agent-facing alignment texts.
    pub language: Lang,
    /// `[survey] workspaceRecords`: copy settled survey records into the workspace.
    pub workspace_records: bool,
    /// `[batch_review] maxItems`: the most items of an interactive review.
    pub max_items: usize,
    /// `[batch_review] virtualThreshold`: above this many items the panel uses
    /// `content-visibility: auto` (served to the UI, used by the HTML export).
    pub virtual_threshold: usize,
    /// `[batch_review] allowExternalPersist`: `persist` may write outside the workspace.
    pub allow_external_persist: bool,
    /// `[survey] structureQuestionCap`: `survey_draft_set op=structure` is refused when the
    /// incoming graph has at least this many questions (exclusive cap, 1..=151).
    pub structure_question_cap: usize,
    /// Exit after this long with nothing pending and no request; `None` = never.
    pub idle_exit: Option<Duration>,
    /// `[alignment] mode` and `section`: the MCP sessions at `/mcp` follow them.
    pub alignment_mode: Mode,
    pub alignment_section: Option<String>,
    /// `elicitation` (`clients.md` §3) in this daemon's configuration: `/mcp` uses it, and
    /// the Settings page shows it under a saved value (which every adapter reads per ask).
    pub elicitation: crate::config::Elicitation,
    /// Where the configuration's keys came from (file, env, flag), for the Settings page.
    pub origins: Origins,
    /// `publicUrl`: the base of the links in notifications and of the pairing link.
    pub public_url: Option<String>,
    /// `databaseUrl`: the team's PostgreSQL database; `None` = the data directory's SQLite.
    pub database_url: Option<String>,
    /// `databaseWait`: how long the start retries an unreachable database (team mode).
    pub database_wait: std::time::Duration,
    /// `[notify]`: reminders, quiet hours, desktop notifications, webhooks.
    pub notify: NotifyConfig,
    /// `[asks] deadline`: how long an ask without a deadline of its own waits before it
    /// closes unanswered; `None` = until answered (issue 35).
    pub asks_deadline: Option<std::time::Duration>,
    /// `DBUS_SESSION_BUS_ADDRESS` at start: where desktop notifications go (none: no
    /// desktop session, so none are sent).
    pub dbus_address: Option<String>,
}

impl std::fmt::Debug for Settings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Every field named, so a new one cannot be forgotten here.
        let Settings {
            listen,
            data_dir,
            max_wait,
            max_body_bytes,
            allowed_hosts,
            language,
            workspace_records,
            max_items,
            virtual_threshold,
            allow_external_persist,
            structure_question_cap,
            idle_exit,
            alignment_mode,
            alignment_section,
            elicitation,
            origins,
            public_url,
            database_url,
            database_wait,
            notify,
            asks_deadline,
            dbus_address,
        } = self;
        f.debug_struct("Settings")
            .field("listen", listen)
            .field("data_dir", data_dir)
            .field("max_wait", max_wait)
            .field("max_body_bytes", max_body_bytes)
            .field("allowed_hosts", allowed_hosts)
            .field("language", language)
            .field("workspace_records", workspace_records)
            .field("max_items", max_items)
            .field("virtual_threshold", virtual_threshold)
            .field("allow_external_persist", allow_external_persist)
            .field("structure_question_cap", structure_question_cap)
            .field("idle_exit", idle_exit)
            .field("alignment_mode", alignment_mode)
            .field("alignment_section", alignment_section)
            .field("elicitation", elicitation)
            .field("origins", origins)
            .field("public_url", public_url)
            .field(
                "database_url",
                &database_url.as_deref().map(crate::config::redact_url),
            )
            .field("database_wait", database_wait)
            .field("notify", notify)
            .field("asks_deadline", asks_deadline)
            .field("dbus_address", dbus_address)
            .finish()
    }
}

impl Settings {
    /// The settings of `config` for the data directory of `paths`; `origins` tell where the
    /// keys came from and `env` decides `language = "auto"`.
    pub fn from_config(config: &Config, paths: &Paths, origins: &Origins, env: &Env) -> Self {
        Settings {
            listen: config.listen,
            data_dir: paths.data_dir.clone(),
            max_wait: config.max_wait_duration(),
            max_body_bytes: usize::try_from(config.max_body_bytes).unwrap_or(usize::MAX),
            allowed_hosts: config.allowed_hosts.clone(),
            language: Lang::parse(config.resolved_language(env)),
            workspace_records: config.survey.workspace_records,
            max_items: config.batch_review.max_items as usize,
            virtual_threshold: config.batch_review.virtual_threshold as usize,
            allow_external_persist: config.batch_review.allow_external_persist,
            structure_question_cap: config.survey.structure_question_cap as usize,
            idle_exit: config.idle_exit_duration(),
            alignment_mode: config.alignment.mode,
            elicitation: config.elicitation,
            alignment_section: config.alignment.section.clone(),
            origins: origins.clone(),
            public_url: config.public_url.clone(),
            database_url: config.database_url.clone(),
            database_wait: std::time::Duration::from_secs(config.database_wait.0),
            notify: config.notify.clone(),
            asks_deadline: (config.asks.deadline.0 > 0)
                .then(|| std::time::Duration::from_secs(config.asks.deadline.0)),
            dbus_address: env
                .get("DBUS_SESSION_BUS_ADDRESS")
                .filter(|a| !a.is_empty())
                .cloned(),
        }
    }

    /// `en` or `zh-CN`: the resolved language as the MCP layer names it.
    pub fn language_tag(&self) -> &'static str {
        match self.language {
            Lang::En => "en",
            Lang::Zh => "zh-CN",
        }
    }
}

/// The built-in defaults (every key at its default, English, no data directory yet).
impl Default for Settings {
    fn default() -> Self {
        Settings::from_config(
            &Config::default(),
            &Paths::in_home(PathBuf::new()),
            &Origins::new(),
            &Env::new(),
        )
    }
}

/// The daemon's shared state: one per running daemon.
pub struct Daemon {
    pub store: Arc<dyn Store>,
    pub hub: Hub,
    /// The configuration at start. `max_items`, `virtual_threshold` and `max_body_bytes`
    /// may have changed since: read them through `Daemon::max_items()`, ….
    pub settings: Settings,
    live: LiveLimits,
    /// `http://127.0.0.1:PORT`.
    pub base_url: String,
    pub token: String,
    pub started: Instant,
    /// Milliseconds since `started` of the last request (for idle exit).
    last_activity: AtomicU64,
    /// Every lock besides the store's.
    pub locks: Locks,
    /// What the alignment fold needs of each ask, read from the store once.
    asks: AskMemo,
    /// Permits for the alignment checkpoints being saved in the background.
    checkpoint_saves: Arc<tokio::sync::Semaphore>,
    /// Rendered diagrams, by source hash and theme.
    pub diagrams: diagram::Cache,
    /// The `[notify]` settings in effect (config and Settings page), the plan the notifier
    /// follows, and its sinks' status for `GET /api/notify`.
    pub notify: notify::NotifySettings,
    /// Paired devices and pairing codes.
    pub devices: Devices,
    /// Team members (`crate::members`).
    pub members: crate::members::Members,
    /// Bumped whenever members or devices change (a revoke here, or another daemon's save
    /// read by `crate::follow`): open responses of a revoked principal end
    /// (`crate::access::until_revoked`).
    pub revocations: tokio::sync::watch::Sender<u64>,
    /// When members and devices were last re-read for an unknown token (team mode:
    /// `crate::access::reread`), one re-read at a time.
    pub(crate) reread: tokio::sync::Mutex<Option<Instant>>,
    /// The live event streams people have open here (an inbox, an ask page, the terminal
    /// UI; not agents): `GET /api/health`'s `desk`. The adapter reads it to tell whether the
    /// human is at the desk (`askd_mcp`'s page-first wait for 2026-07-28 clients).
    pub desk: Arc<std::sync::atomic::AtomicUsize>,
}

impl Daemon {
    pub fn new(store: Arc<dyn Store>, settings: Settings, base_url: String, token: String) -> Self {
        let link_base = settings.public_url.as_deref().unwrap_or(&base_url);
        let notify = notify::NotifySettings::new(
            &settings.notify,
            settings.public_url.as_deref(),
            link_base,
            settings.dbus_address.as_deref(),
        );
        Daemon {
            store,
            hub: Hub::default(),
            live: LiveLimits::new(
                settings.max_items,
                settings.virtual_threshold,
                settings.max_body_bytes,
            ),
            settings,
            base_url,
            token,
            started: Instant::now(),
            last_activity: AtomicU64::new(0),
            locks: Locks::default(),
            asks: AskMemo::default(),
            checkpoint_saves: Arc::new(tokio::sync::Semaphore::new(
                crate::alignment::BACKGROUND_SAVES,
            )),
            diagrams: diagram::Cache::default(),
            notify,
            devices: Devices::default(),
            members: crate::members::Members::default(),
            revocations: tokio::sync::watch::Sender::new(0),
            reread: tokio::sync::Mutex::new(None),
            desk: Arc::default(),
        }
    }

    /// Members or devices changed: every open response checks whether its principal is
    /// still valid.
    pub fn people_changed(&self) {
        self.revocations.send_modify(|n| *n = n.wrapping_add(1));
    }

    /// Where people reach this daemon: `publicUrl` when set, else its own URL.
    pub fn link_base(&self) -> &str {
        self.settings
            .public_url
            .as_deref()
            .unwrap_or(&self.base_url)
    }

    pub fn touch(&self) {
        let now = self.started.elapsed().as_millis() as u64;
        self.last_activity.store(now, Ordering::Relaxed);
    }

    /// Time since the last request.
    pub fn idle_for(&self) -> Duration {
        let last = Duration::from_millis(self.last_activity.load(Ordering::Relaxed));
        self.started.elapsed().saturating_sub(last)
    }

    /// The page of an ask, as results and notifications give it: under `publicUrl` when it
    /// is set (the address people reach the daemon at), else the daemon's own URL.
    pub fn ask_url(&self, ask_id: &str) -> String {
        format!("{}/a/{ask_id}", self.link_base().trim_end_matches('/'))
    }

    /// A session's alignment, read from this daemon's store.
    pub fn alignment(&self) -> Alignment<'_> {
        Alignment::of_daemon(&self.store, &self.asks, &self.locks, &self.checkpoint_saves)
    }

    /// `[batch_review] maxItems` in effect.
    pub fn max_items(&self) -> usize {
        self.live.max_items()
    }

    /// `[batch_review] virtualThreshold` in effect.
    pub fn virtual_threshold(&self) -> usize {
        self.live.virtual_threshold()
    }

    /// `maxBodyBytes` in effect.
    pub fn max_body_bytes(&self) -> usize {
        self.live.max_body_bytes()
    }

    /// Applies the saved settings from the store (at start). A store failure keeps the
    /// configuration's values and is logged.
    pub async fn load_saved_settings(&self) {
        self.live.load(self.store.as_ref()).await;
        self.notify.load(self.store.as_ref()).await;
    }

    /// The body of `GET /api/settings`.
    pub async fn settings_view(&self) -> ApiResult<Value> {
        let mut v = self
            .live
            .view(self.store.as_ref(), &self.settings.origins)
            .await?;
        // `elicitation`: a saved value applies to every adapter's next ask, over each one's
        // configuration; `config` is this daemon's (an adapter may have its own).
        let saved = self
            .store
            .settings()
            .await
            .map_err(|e| crate::error::ApiError::store(e, "-"))?;
        let saved = crate::settings::saved_elicitation(&saved);
        let origin = self.settings.origins.get("elicitation");
        let layer = match (saved, origin) {
            (Some(_), _) => "saved",
            (None, Some(_)) => "config",
            (None, None) => "default",
        };
        v["elicitation"] = serde_json::json!({
            "value": saved.unwrap_or(self.settings.elicitation).as_str(),
            "layer": layer,
            "source": origin.filter(|_| saved.is_none()).map(|o| serde_json::json!({"layer": o.layer, "source": o.source})),
            "config": self.settings.elicitation.as_str(),
            "saved": saved.map(|e| e.as_str()),
        });
        Ok(v)
    }

    /// `PUT /api/settings`: validates every member, then saves and applies them all.
    pub async fn save_settings(&self, body: &Json<'_>) -> ApiResult<Value> {
        self.live
            .save(
                self.store.as_ref(),
                &self.hub,
                &self.locks,
                &self.settings.origins,
                body,
            )
            .await?;
        self.settings_view().await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 27 item 7: `Debug` of the configuration and of everything made from it (the
    /// daemon's settings, the notifier's plan, status and live settings) shows no secret — the
    /// database's password (in the user part or as a query parameter) nor a webhook's path or
    /// query — as the serialised form hides the password.
    #[test]
    fn access_7_debug_redacts_secrets() {
        let file = "databaseUrl = \"postgresql://askd:pw-s3cret@db.example:5432/askd?sslmode=require&sslpassword=ssl-s3cret\"\n\
                    [[notify.webhook]]\nname = \"team\"\nurl = \"https://hooks.slack.com/services/T0/B0/hook-s3cret\"\nformat = \"slack\"\n\
                    [[notify.webhook]]\nurl = \"https://ntfy.sh/topic-s3cret?auth=query-s3cret\"\nformat = \"ntfy\"\n";
        let paths = Paths::in_home("/h");
        let cfg = crate::config::load(&paths, Some(file), &Env::new(), &[]).unwrap();
        let settings = Settings::from_config(&cfg, &paths, &Origins::new(), &Env::new());
        let plan = crate::notify::NotifyPlan::new(&cfg.notify, "http://127.0.0.1:7391", None);
        let status =
            crate::notify::Status::new(&plan, &cfg.notify, None, crate::notify::Desktop::Off);
        let live =
            crate::notify::NotifySettings::new(&cfg.notify, None, "http://127.0.0.1:7391", None);
        let dumps = [
            ("Config", format!("{cfg:?}")),
            ("Config (pretty)", format!("{cfg:#?}")),
            ("Settings", format!("{settings:?}")),
            ("NotifyConfig", format!("{:?}", cfg.notify)),
            ("WebhookConfig", format!("{:?}", cfg.notify.webhook[0])),
            ("NotifyPlan", format!("{plan:?}")),
            ("Status", format!("{status:?}")),
            ("NotifySettings", format!("{live:?}")),
        ];
        for (what, dump) in &dumps {
            assert!(!dump.contains("s3cret"), "{what}: {dump}");
        }
        // What stays: enough to tell which database and which hooks.
        for (what, dump) in &dumps[..3] {
            assert!(
                dump.contains(
                    "postgresql://askd:***@db.example:5432/askd?sslmode=require&sslpassword=***"
                ),
                "{what}: {dump}"
            );
        }
        for (what, dump) in &dumps {
            if *what != "Status" {
                assert!(dump.contains("https://hooks.slack.com/…"), "{what}: {dump}");
            }
        }
        assert!(dumps[2].1.contains("https://ntfy.sh/…"), "{}", dumps[2].1);
        // The serialised form hides the query's password too.
        let toml = toml::to_string(&cfg).unwrap();
        assert!(
            !toml.contains("pw-s3cret") && !toml.contains("ssl-s3cret"),
            "{toml}"
        );
        assert_eq!(
            crate::config::redact_url("postgres://u@h/d?password=x&application_name=askd"),
            "postgres://u@h/d?password=***&application_name=askd"
        );
    }
}

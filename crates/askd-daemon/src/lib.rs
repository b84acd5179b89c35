//! `askd serve`: the one authority that stores asks, settles them exactly once, and serves
//! the JSON API and live events that the web UI, the MCP adapter, the terminal UI and
//! scripts use.
//!
//! # Layout
//! - [`config`] — `askd.toml`, env and flags; the data directory's paths (`Paths`, from
//!   `askd-client`, re-exported).
//! - [`server`] — start-up (token, `daemon.json`), serving, graceful shutdown, idle exit;
//!   [`server::start_with`] / [`server::serve_with`] mount extra routes behind the fence
//!   ([`router_with`]: the binary mounts `/mcp` there).
//! - [`fence`] — the security fence every request passes first.
//! - [`api`] — the JSON API routes and Server-Sent Events.
//! - [`service`] — the operations on asks: core validation, store, fan-out, result shapes.
//! - [`hub`] — live event fan-out and waiter wake-ups.
//! - [`render`] — Markdown to sanitised HTML, served beside the source.
//! - [`review`] — asks of kind `review` (`batch_review`): create, settle, persist, export,
//!   import.
//! - [`drafts`] — the question builder: draft files, the manifest, `survey_draft_set`,
//!   `survey_draft_get`, `survey_draft_launch` and the settle transitions.
//! - [`session_page`] — the session page's alignment routes (full status, the mode switch).
//! - [`settings`] — saved settings (the Settings page): `maxItems`, `virtualThreshold` and
//!   `maxBodyBytes` in effect, changed without a restart.
//! - [`ui`] — the web UI's files (`ui/`), embedded in release builds.
//! - [`diagram`] — Mermaid to sanitised SVG, rendered on the server and cached.
//! - [`error`] — the one JSON error shape.
//!
//! # Invariants
//! - Write-ahead: a handler answers only after the store committed its change.
//! - Settle once: every settle goes through the store's compare-and-set.
//! - The fence runs before routing, method and body checks, on every route.
//! - Only this crate knows HTTP; only `askd-store` knows SQL; only the core validates.
//! - It knows nothing of MCP (no `askd-mcp`, no `rmcp`): the binary mounts `/mcp`.

pub mod alignment;
pub mod api;
pub mod atomic;
pub mod config;
pub mod diagram;
pub mod drafts;
pub mod drift;
pub mod error;
pub mod fence;
pub mod hub;
pub mod render;
pub mod reserve;
pub mod review;
pub mod server;
pub mod service;
pub mod session_page;
pub mod settings;
pub mod ui;

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use askd_store::Store;
use axum::Router;
use axum::http::StatusCode;
use axum::response::IntoResponse;
use axum::routing::get;

pub use hub::Hub;

/// The daemon settings the request path needs (derived from the configuration).
#[derive(Debug, Clone)]
pub struct Settings {
    /// The shortest of this and a call's `timeout_s` bounds a wait; `None` = unbounded.
    pub max_wait: Option<Duration>,
    pub max_body_bytes: usize,
    /// Host names allowed besides the loopback names.
    pub allowed_hosts: Vec<String>,
    /// `en` or `zh-CN`: the language of the MCP instructions served at `/mcp`.
    pub language: &'static str,
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
    /// The data directory: builder drafts of sessions without a workspace go below it.
    pub data_dir: std::path::PathBuf,
    /// `[alignment] mode` and `section`: the MCP sessions at `/mcp` follow them.
    pub alignment_mode: askd_core::alignment::Mode,
    pub alignment_section: Option<String>,
    /// Where the configuration's keys came from (file, env, flag), for the Settings page.
    pub origins: config::Origins,
}

/// The daemon's shared state: one per process.
pub struct Daemon {
    pub store: Arc<dyn Store>,
    pub hub: Hub,
    /// The configuration at start. `max_items`, `virtual_threshold` and `max_body_bytes`
    /// may have changed since: read them through [`settings`] (`Daemon::max_items()`, …).
    pub settings: Settings,
    live: settings::Live,
    /// `http://127.0.0.1:PORT`.
    pub base_url: String,
    pub token: String,
    pub started: Instant,
    /// Milliseconds since `started` of the last request (for idle exit).
    last_activity: AtomicU64,
}

impl Daemon {
    pub fn new(store: Arc<dyn Store>, settings: Settings, base_url: String, token: String) -> Self {
        Daemon {
            store,
            hub: Hub::default(),
            live: settings::Live::new(&settings),
            settings,
            base_url,
            token,
            started: Instant::now(),
            last_activity: AtomicU64::new(0),
        }
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
}

/// The whole HTTP surface of the daemon alone, behind the fence.
pub fn router(daemon: Arc<Daemon>) -> Router {
    router_with(daemon, Router::new())
}

/// The daemon's HTTP surface with `extra` routes mounted beside its own, all behind the
/// fence (which runs first on every route, the extra ones included). The binary mounts
/// `/mcp` this way: the daemon itself knows nothing of MCP.
pub fn router_with(daemon: Arc<Daemon>, extra: Router<Arc<Daemon>>) -> Router {
    Router::new()
        .merge(api::routes())
        .merge(extra)
        .route("/", get(ui::page))
        .route("/a/{id}", get(ui::page))
        .route("/settings", get(ui::page))
        .route("/sessions/{id}", get(ui::page))
        .route("/assets/{*path}", get(ui::asset))
        .route("/api/diagrams/{file}", get(diagram::diagram))
        .fallback(not_found)
        .layer(axum::middleware::from_fn_with_state(
            daemon.clone(),
            fence::fence,
        ))
        .layer(axum::middleware::map_response(ui::svg_csp))
        .with_state(daemon)
}

async fn not_found() -> impl IntoResponse {
    error::ApiError::new(StatusCode::NOT_FOUND, "not-found", "no such route")
}

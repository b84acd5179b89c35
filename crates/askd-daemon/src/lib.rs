//! `askd serve`: the one authority that stores asks, settles them exactly once, and serves
//! the JSON API and live events that the web UI, the MCP adapter, the terminal UI and
//! scripts use.
//!
//! # Layout
//! Top-level modules import one another in one direction only (no loop), from the HTTP
//! surface down to the leaves (edges are `crate::<module>` references):
//! `http` → `kinds` → `asks` / `session_page` → `daemon` → `alignment` /
//! `settings` / `diagram` / `config` / `notify` / `devices` → `locks` / `hub` / `error` /
//! `render` / `atomic` / `pages`.
//! `server` starts a [`Daemon`] and serves [`router`] / [`router_with`], which this file
//! composes from [`http::routes`] and the caller's extra routes (the binary mounts `/mcp`
//! there); `fence` sits beside `http` and reads only the daemon.
//!
//! - [`server`] — start-up (token, `daemon.json`), serving, graceful shutdown, idle exit;
//!   [`server::start_with`] / [`server::serve_with`] mount extra routes behind the fence.
//! - [`http`] — the HTTP layer: extractors (`JsonBody`: 415 → 413 → 400), handlers by
//!   resource, and [`http::routes`], the one place the router is assembled.
//! - [`fence`] — the security fence every request passes first.
//! - [`kinds`] — the rooms: one module per ask kind (survey and its builder, questions,
//!   review, drift) behind [`askd_core::AskKind`], and the dispatch on the kind.
//! - [`asks`] — the ask life cycle every kind shares: load, commit a settle, wait, deliver.
//! - [`session_page`] — the session page's full view and mode switch, and the alignment
//!   operations with their fan-out.
//! - [`daemon`] — [`Daemon`], the state of one daemon (no process-wide statics), and
//!   [`Settings`], derived from the configuration in one step.
//! - [`alignment`] — a session's alignment events read from the store and folded by the
//!   core; the status view, `align`, the mode, `establish_baseline`, sessions.
//! - [`locks`] — every lock besides the store's: session, draft, draft begin, review
//!   settle, settings save.
//! - [`settings`] — saved settings (the Settings page): `maxItems`, `virtualThreshold` and
//!   `maxBodyBytes` in effect, changed without a restart.
//! - [`hub`] — live event fan-out and waiter wake-ups.
//! - [`keeper`] — a session's alignment checkpoint kept up from the hub while nobody reads it.
//! - [`follow`] — team mode: other daemons' events (PostgreSQL `LISTEN`) into the hub, in
//!   commit order; the hub is stale (503) while the database is out of reach.
//! - [`notify`] — the notifier: new-ask messages and reminders to webhooks and the
//!   desktop, with quiet hours, retries and per-sink status (started by [`server`]).
//! - [`devices`] — paired devices (answering-only tokens, stored hashed) and pairing codes.
//! - [`config`] — `askd.toml`, env and flags; the data directory's paths (`Paths`, from
//!   `askd-client`, re-exported).
//! - [`render`] — Markdown to sanitised HTML, served beside the source.
//! - [`diagram`] — Mermaid to sanitised SVG, rendered on the server; the cache type.
//! - [`pages`] — the pages the daemon writes itself (refusals, pairing, a member's login
//!   confirm): one look (`/page.css`), English or Chinese by `Accept-Language`.
//! - [`ui`] — the web UI's files (`ui/`), embedded in release builds.
//! - [`atomic`], [`reserve`] — the one atomic file write; the start-up disk reserve.
//! - [`error`] — the one JSON error shape.
//!
//! # Invariants
//! - Write-ahead: a handler answers only after the store committed its change.
//! - Settle once: every settle goes through the store's compare-and-set.
//! - The fence runs before routing, method and body checks, on every route.
//! - Only this crate knows HTTP; only `askd-store` knows SQL; only the core validates.
//! - No process-wide mutable state: two daemons in one process share nothing.
//! - It knows nothing of MCP (no `askd-mcp`, no `rmcp`): the binary mounts `/mcp`.

pub mod access;
pub mod alignment;
pub mod asks;
pub mod atomic;
pub mod config;
pub mod daemon;
pub mod deadlines;
pub mod devices;
pub mod diagram;
pub mod error;
pub mod fence;
pub mod follow;
pub mod http;
pub mod hub;
pub mod keeper;
pub mod kinds;
pub mod locks;
pub mod members;
pub mod names;
pub mod notify;
pub mod pages;
pub mod render;
pub mod reserve;
pub mod server;
pub mod session_page;
pub mod settings;
pub mod ui;

use std::sync::Arc;

use axum::Router;

pub use daemon::{Daemon, Settings};
pub use hub::Hub;

/// The whole HTTP surface of the daemon alone, behind the fence.
pub fn router(daemon: Arc<Daemon>) -> Router {
    router_with(daemon, http::routes::Routes::new())
}

/// The daemon's HTTP surface with `extra` routes mounted beside its own, all behind the
/// fence (which runs first on every route, the extra ones included). The binary mounts
/// `/mcp` this way: the daemon itself knows nothing of MCP.
pub fn router_with(daemon: Arc<Daemon>, extra: http::routes::Routes) -> Router {
    http::routes::fenced(http::routes::routes().merge(extra), daemon)
}

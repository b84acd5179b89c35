//! `askd tui`: answers pending asks in the terminal — questions, surveys, reviews and drift
//! cards — as a client of the daemon's HTTP API, exactly like the web UI. It never touches
//! the store: the daemon is the single source of truth, so an ask started in a browser can
//! be finished here and the other way round.
//!
//! # Layout
//!
//! - [`app`]: the pure state machine. [`App`] takes key events ([`App::key`]) and API replies
//!   ([`App::reply`]), hands back the [`Request`]s to send, and draws itself into any ratatui
//!   [`Frame`](ratatui::Frame). No I/O: tests drive it with key events and a `TestBackend`.
//! - [`api`]: the requests the App asks for and the replies it gets, plus [`Http`], which
//!   sends them to the daemon with the install's token on `askd-client`'s client. Drift
//!   reason labels come from the daemon's views (`reason_label`): no `askd-core` here.
//! - [`text`]: agent text made safe for a terminal (no control characters ever reach it).
//! - [`i18n`]: the fixed labels in English and Simplified Chinese.
//! - [`run`]: the event loop — the terminal, the key reader, the HTTP calls, the poll.

pub mod api;
pub mod app;
pub mod i18n;
pub mod run;
pub mod text;

mod screens;

pub use api::{Http, Method, Purpose, Reply, Request};
pub use app::App;
pub use i18n::Lang;
pub use run::run;

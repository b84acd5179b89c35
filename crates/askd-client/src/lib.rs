//! askd-client: how a client finds askd's daemon and talks to its JSON API. The MCP
//! adapter (`askd-mcp`'s `HttpBackend`), the terminal UI (`askd-tui`) and the CLI use it;
//! the daemon uses it only for the shared file formats and paths (it writes the
//! `daemon.json` and the token that clients read). A small leaf: it depends on no askd
//! crate.
//!
//! # Layout
//! - [`paths`] — where askd keeps its data and reads its config ([`Paths`]: `ASKD_HOME` or
//!   the platform directories), and the files in the data directory (`token`,
//!   `daemon.json`, `askd.db`, `daemon.lock`, `start.lock`, `signing.key`).
//! - [`files`] — the shared file formats: `daemon.json` ([`DaemonInfo`]) and the token, as
//!   the daemon writes them and clients read them; the install's signing key
//!   (`signing.key`, [`load_or_create_signing_key`]).
//! - [`start`] — finding a daemon that answers its health check, or starting `askd serve`
//!   detached under the `start.lock` file lock (so two clients never start two daemons);
//!   or a remote daemon's URL and agent token ([`remote`], team mode).
//! - [`http`] — [`Client`], the one HTTP client of the JSON API: base URL and token,
//!   [`Reply`], the typed calls that several clients share, and [`ApiError`], the daemon's
//!   error body parsed in one place.
//! - [`encode`] — [`seg`], the one URL encoder (path segments and query values).
//!
//! # Invariants
//! - No askd crate below it: not the daemon, the store, the MCP surface or the core.
//! - Nothing here prints to stdout (it belongs to MCP stdio); diagnostics go to `tracing`.

pub mod encode;
pub mod files;
pub mod http;
pub mod paths;
pub mod start;

pub use encode::seg;
pub use files::{DaemonInfo, load_or_create_signing_key, read_daemon_info, read_token};
pub use http::{ApiError, Client, Reply};
pub use paths::{
    Paths, PathsError, daemon_json_path, data_lock_path, database_path, signing_key_path,
    start_lock_path, token_path,
};
pub use start::{answering, ensure_daemon, remote};

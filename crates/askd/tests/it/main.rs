//! `askd`'s integration tests, in one test binary (one link instead of one per file):
//! each file below is a module; helpers shared between them are in `common*`.

mod access;
mod access_mcp;
mod alignment_mcp;
mod apps;
mod builder_mcp;
mod cli;
mod cli_people;
mod clients_mcp;
/// The daemon's own test helpers, starting the daemon as `askd serve` composes it.
#[path = "../../../askd-daemon/tests/it/common/mod.rs"]
mod common_daemon;
mod common_mcp;
mod config_refusals;
mod context_budget;
mod crash;
mod docs;
mod doctor;
mod elicitation;
mod hardening;
mod mcp;
mod mcp_http_hardening;
mod mcp_stdio_hardening;
mod remote_mcp;
mod result_shapes;
mod review_cli;
mod review_mcp;
mod team;
mod tidy;
mod tidy_size;

/// `/mcp`, mounted beside the daemon's routes by the daemon tests' helpers (`common_daemon`).
const MOUNT: fn(&std::sync::Arc<askd_daemon::Daemon>) -> askd_daemon::http::routes::Routes =
    askd::mcp_http::mount;

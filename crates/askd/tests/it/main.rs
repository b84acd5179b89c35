//! `askd`'s integration tests, in one test binary (one link instead of one per file):
//! each file below is a module; helpers shared between them are in `common*`.

mod access;
mod access_mcp;
mod alignment_mcp;
mod approvals;
mod apps;
mod builder_mcp;
mod cli;
mod cli_people;
mod clients_mcp;
mod common_daemon;
mod common_mcp;
mod config_refusals;
mod context_budget;
mod crash;
mod deadlines;
mod docs;
mod doctor;
mod elicitation;
mod escalation;
mod hardening;
mod mcp;
mod mcp_http_hardening;
mod mcp_stdio_hardening;
mod remote_mcp;
mod result_shapes;
mod review_cli;
mod review_mcp;
mod snooze;
mod tasks_mcp;
mod team;
mod tidy;
mod tidy_size;

//! `askd`'s integration tests, in one test binary (one link instead of one per file):
//! each file below is a module; helpers shared between them are in `common*`.

mod alignment_mcp;
mod builder_mcp;
mod cli;
mod clients_mcp;
mod common_mcp;
mod config_refusals;
mod context_budget;
mod crash;
mod doctor;
mod elicitation;
mod hardening;
mod mcp;
mod mcp_stdio_hardening;
mod review_cli;
mod review_mcp;

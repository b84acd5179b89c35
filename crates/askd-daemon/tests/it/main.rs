//! `askd-daemon`'s integration tests, in one test binary (one link instead of one per file):
//! each file below is a module; helpers shared between them are in `common*`.

mod common;
mod hardening_http;
mod hardening_review;
mod http;
mod mcp_http_hardening;
mod review_http;
mod session_page_http;
mod settings_http;

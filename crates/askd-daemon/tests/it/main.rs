//! `askd-daemon`'s integration tests, in one test binary (one link instead of one per file):
//! each file below is a module; helpers shared between them are in `common*`.

mod access_http;
mod common;
mod devices_http;
mod hardening_http;
mod hardening_review;
mod http;
mod members_http;
mod notify_http;
mod records_http;
mod review_http;
mod session_page_http;
mod settings_http;
mod ui_http;

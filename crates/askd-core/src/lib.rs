//! askd's pure core: the models, validation and engines behind every ask.
//!
//! # Layout
//! - [`json`] — a borrowed, order-preserving JSON tree that all validation runs on.
//! - [`problem`] — `{path, code, message}` problems and the path grammar.
//! - [`survey`] — the `ask_survey` engine: spec model and normal form, argument resolution,
//!   validation, escape repair, the path engine, answer validation and result shapes.
//! - [`questions`] — the flat `ask_user_question` model on the same machinery.
//!
//! # Invariants
//! - No I/O, no async, no clocks, no randomness: every function is a pure function of its
//!   arguments, so the daemon, the CLI, benchmarks and fuzzers drive it alike.
//! - No panic on any input: agent and human input only ever produce [`problem::Problem`]s.

pub mod json;
pub mod problem;
pub mod questions;
pub mod survey;

pub use problem::Problem;

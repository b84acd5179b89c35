//! askd's pure core: the models, validation and engines behind every ask.
//!
//! # Layout
//! - [`alignment`] — requirements alignment: the per-session state folded from events, the
//!   alignment tail (no-repeat guard), the policy text, the `align` check's note limit,
//!   `establish_baseline`'s fields and rules, `report_drift`'s limits and reasons.
//! - [`deadline`] — an ask's `deadline` (issue 35): when it stops waiting, and whether the
//!   agent's default is applied or the ask closed; the default as the submit body it stands for.
//! - [`vocab`] — the typed vocabulary: [`AskKind`], [`Outcome`], [`EventKind`], [`AlignOp`],
//!   [`Actor`] and the review verdicts, each stored and sent as the same strings as always;
//!   the tidy test keeps those strings' literals in this module.
//! - [`json`] — a borrowed, order-preserving JSON tree that all validation runs on.
//! - [`lang`] — [`Lang`], the one language enum (English, Simplified Chinese) with the
//!   lenient setting parser and the strict argument parser.
//! - [`hash`] — fast, randomly seeded hash sets and maps.
//! - [`problem`] — `{path, code, message}` problems and the path grammar.
//! - [`survey`] — the `ask_survey` engine: spec model and normal form, argument resolution,
//!   validation, escape repair, the path engine, answer validation, result shapes, the
//!   settled record and `survey_records`, and the question builder (`survey::draft`).
//! - [`questions`] — the flat `ask_user_question` model on the same machinery, a questions
//!   ask's list title.
//! - [`record`] — the record of a settled ask: what it is built from (plain data) and, for
//!   every kind without a shape of its own, the shape ([`record::ask_record`]).
//! - [`review`] — the `batch_review` engine: item model, validation, the fold to verdicts,
//!   `report_text`, drafts, export and import.
//! - [`wait`] — `timeout_s`, a waiting call's budget, checked for the MCP tools that wait.
//!
//! # Invariants
//! - No I/O, no async, no clocks, no randomness: every function is a pure function of its
//!   arguments, so the daemon, the CLI, benchmarks and fuzzers drive it alike.
//! - No panic on any input: agent and human input only ever produce [`problem::Problem`]s.

pub mod alignment;
pub mod approvals;
pub mod deadline;
pub mod html;
pub mod json;
pub mod lang;

/// Hash sets and maps with a fast, per-instance randomly seeded hasher (foldhash): quicker
/// than SipHash on the short keys validation hashes, and still resistant to crafted
/// collisions in agent input.
pub mod hash {
    pub type FastSet<T> = std::collections::HashSet<T, foldhash::fast::RandomState>;
    pub type FastMap<K, V> = std::collections::HashMap<K, V, foldhash::fast::RandomState>;
    pub type FastIndexMap<K, V> = indexmap::IndexMap<K, V, foldhash::fast::RandomState>;
}
pub mod problem;
pub mod questions;
pub mod record;
pub mod review;
pub mod survey;
pub mod vocab;
pub mod wait;

/// The kinds of ask, at their old path (the type lives in [`vocab::kind`]).
pub use vocab::kind;

pub use lang::Lang;
pub use problem::Problem;
pub use vocab::{Actor, AlignOp, AskKind, EventKind, Outcome, Word};

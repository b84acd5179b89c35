//! The question builder's rules (`survey.md` §10), pure: the draft file model (§10.2), the
//! edits of `survey_draft_set` (§10.4: stub-in, patch, structure), the checklist of
//! `survey_draft_get` (§10.5), the launch gate (§10.6) and the builder's error codes and
//! messages (§10.7).
//!
//! Everything works on `serde_json::Value` (member order preserved), because a draft is
//! half-written by definition: stubs, hand edits and missing fields must all be readable.
//! File I/O, locks, the manifest and the ask itself are the daemon's.
//!
//! One file per concept:
//! - `error` — the builder's error codes ([`codes`]) and [`DraftError`] (§10.7).
//! - `file` — the draft file model: [`DraftFile`], [`Status`], [`Grounding`], where drafts
//!   live, slugs (§10.2–§10.3).
//! - `args` — [`Op`] and the `survey_draft_set` argument parsers.
//! - `edit` — what every edit shares: [`stub_in`], [`check`], [`Edited`], [`begin`],
//!   [`Target`], [`launched_refusal`] (§10.4).
//! - `patch` — `op=patch`: prose only, merge by key or index (§10.4).
//! - `structure` — `op=structure`: the exclusive cap and prose carry-over (§10.4).
//! - `checklist` — the stub rule, [`completeness`], [`grounding`], [`validation`],
//!   [`launchable`] (§10.5).
//! - `launch` — the launch gate and the launched result (§10.6).

mod args;
mod checklist;
mod edit;
mod error;
mod file;
mod launch;
mod patch;
mod structure;

pub use args::{Op, parse_grounding, parse_op, parse_slug, parse_title};
pub use checklist::{
    COMPARISON_GAP, Completeness, Gap, GroundingReport, Totals, completeness, grounding, is_marked,
    is_stub, launchable, validation,
};
pub use edit::{Edited, Target, begin, check, launched_refusal, stub_in};
pub use error::{DraftError, codes};
pub use file::{
    DEFAULT_TITLE, DraftFile, FALLBACK_DIR, FILE_VERSION, Grounding, SLUG_FALLBACK, Status,
    WORKSPACE_DIR, base_slug, free_slug, is_slug,
};
pub use launch::{LaunchState, launch_gate, launch_result, launch_state, reopened_note};
pub use patch::{PATCH_MAX_QUESTIONS, patch};
pub use structure::{STRUCTURE_CAP_DEFAULT, STRUCTURE_CAP_MAX, STRUCTURE_CAP_MIN, structure};

/// Fixtures shared by the concept modules' unit tests.
#[cfg(test)]
mod test_support {
    use super::*;
    use serde_json::{Map, Value, json};

    pub fn args(v: Value) -> Map<String, Value> {
        match v {
            Value::Object(m) => m,
            _ => panic!("not an object"),
        }
    }

    pub fn keys5() -> Value {
        json!([{"key": "a"}, {"key": "b"}, {"key": "c"}, {"key": "d"}, {"key": "e"}])
    }

    /// A two-question skeleton: q1 branches to q2 on `a`, keys only.
    pub fn skeleton() -> Value {
        json!({"entry": "q1", "questions": {
            "q1": {"options": [{"key": "a", "next": "q2"}, {"key": "b"}, {"key": "c"}, {"key": "d"}, {"key": "e", "next": null}]},
            "q2": {"prompt": "TODO: stance", "options": keys5()}
        }})
    }

    pub fn target<'a>(slug: &'a str) -> Target<'a> {
        Target {
            slug,
            title: "Draft survey",
            status: Status::Building,
            ask_id: None,
            cap: 40,
        }
    }

    pub fn full_option(key: &str, source: &str) -> Value {
        json!({"key": key, "label": format!("Option {key}"), "description": "One sentence.",
               "insight": "- **Promise** — a.\n- **Price** — b.\n- **Present** — c.",
               "sources": [source]})
    }

    pub fn full_question(prompt: &str) -> Value {
        json!({"prompt": prompt, "options": [
            full_option("a", "docs/a.md"), full_option("b", "Vendor page"), full_option("c", "x"),
            full_option("d", "y"), full_option("e", "z")]})
    }

    pub fn begun() -> Value {
        begin(&args(
            json!({"title": "API Deprecation Survey", "survey": skeleton()}),
        ))
        .unwrap()
        .survey
    }
}

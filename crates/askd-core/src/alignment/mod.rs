//! Requirements alignment (`alignment.md`): the per-session state folded from askd's events,
//! the alignment tail (the no-repeat guard and friends, §5.8) and the built-in policy text
//! (§2), in English and Simplified Chinese.
//!
//! # Layout
//! - [`baseline`] — `establish_baseline`: its fields ([`baseline::FIELDS`]), validation,
//!   merge, diff, the protected-item guard.
//! - [`drift`] — `report_drift`: its fields, limits and reasons, validation, the re-attach
//!   key, the card's answer, the result and its instruction (§5.6, §6).
//! - [`fold`] — the event model the fold reads ([`AlignEvent`]) and the folded
//!   [`AlignmentState`] (§4.5, §4.6).
//! - [`checkpoint`] — a resumable fold ([`Checkpoint`]): the state after a prefix of the
//!   events, stored so a read folds only the events after it; the settled decisions are kept
//!   beside it, one by one.
//! - [`tail`] — the tail lines T1–T7 and the repeat marker (§5.7, §5.8).
//! - [`status`] — the bounded status an agent reads (under 8 KB, paged by a cursor).
//! - [`session`] — the ceilings of a session's labels (client, workspace, id).
//! - [`policy`] — the static policy text for `auto` mode (§2), the `align` check
//!   instruction (§2.4) and its focus note ([`CHECK_NOTE_MAX`], [`check_note`]).
//!
//! The language type is the core's one [`Lang`], re-exported here.
//!
//! # Invariants
//! - Pure: the state is a function of the event slice; no clocks, no I/O.
//! - The fold ignores unknown kinds and unknown fields (§4.4), and never panics on malformed
//!   data: a malformed event is skipped.

pub mod baseline;
pub mod checkpoint;
pub mod drift;
pub mod fold;
pub mod policy;
pub mod session;
pub mod status;
pub mod tail;

pub use checkpoint::{CHECKPOINT_VERSION, Checkpoint};
pub use fold::{
    AlignEvent, AlignmentState, Baseline, Connection, Drift, Mode, SettledDecision, fold,
};
pub use policy::{CHECK_NOTE_MAX, check_instruction, check_note, policy_text};
pub use tail::{Lang, TailContext, mode_notice, normalize_question, repeat_of, tail_lines};

#[cfg(test)]
mod scenarios;

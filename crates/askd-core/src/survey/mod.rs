//! The `ask_survey` engine (`survey.md` §2–§8).
//!
//! Data flows one way: raw arguments → [`resolve`] → [`validate`] (normal form, with
//! [`repair`]) → stored → answers → [`answers`] (entry rules, bank and submit stages, using
//! [`path`]) → [`result`] shapes → the settled [`records`].
//!
//! # Layout
//! - [`model`] — the normal form (`SurveySpec`, `Question`, …) and the input schema.
//! - [`resolve`] — lenient argument resolution (§3).
//! - [`validate`](mod@validate) — every rule of §4, the normal form, cycle detection.
//! - [`repair`] — escape repair (§5).
//! - [`path`] — the one path engine (§6).
//! - [`answers`] — entry rules, bank and submit stages (§7).
//! - [`autosave`] — the autosave of a survey ask (§9.3) and its sanitiser.
//! - [`result`] — result shapes, messages and the fingerprint (§8, §9.4).
//! - [`records`] — the record a settled survey leaves ([`records::survey_record`], §11.1),
//!   `survey_records` (§11.2) and workspace record names (§11.3).
//! - [`draft`] — the question builder (§10), one file per concept: `error`, `file`, `args`,
//!   `edit`, `patch`, `structure`, `checklist`, `launch`.

pub mod answers;
pub mod autosave;
pub mod draft;
pub mod model;
pub mod path;
pub mod records;
pub mod repair;
pub mod resolve;
pub mod result;
pub mod validate;

pub use model::{
    AskSurveyArgs, Next, Question, QuickAnswer, QuickTemplate, SurveyOption, SurveySpec,
};
pub use validate::validate;

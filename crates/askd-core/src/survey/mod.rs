//! The `ask_survey` engine (`survey.md` §2–§8).
//!
//! Data flows one way: raw arguments → [`resolve`] → [`validate`] (normal form, with
//! [`repair`]) → stored → answers → [`answers`] (entry rules, bank and submit stages, using
//! [`path`]) → [`result`] shapes.

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

//! The builder's error codes and its refusal type (`survey.md` §10.7).

use crate::problem::Problem;

/// The builder's error codes (§10.7).
pub mod codes {
    pub const MISSING: &str = "SURVEY_DRAFT_MISSING";
    pub const BAD_OP: &str = "SURVEY_DRAFT_BAD_OP";
    pub const BAD_FILE: &str = "SURVEY_DRAFT_BAD_FILE";
    pub const BAD_SPEC: &str = "SURVEY_DRAFT_BAD_SPEC";
    pub const INCOMPLETE: &str = "SURVEY_DRAFT_INCOMPLETE";
    pub const UNGROUNDED: &str = "SURVEY_DRAFT_UNGROUNDED";
    pub const STATE: &str = "SURVEY_DRAFT_STATE";
}

/// A refused builder operation: one of [`codes`], the message the agent reads, and the
/// §4 problems when the survey failed validation.
#[derive(Debug, Clone, PartialEq)]
pub struct DraftError {
    pub code: &'static str,
    pub message: String,
    pub errors: Vec<Problem>,
}

impl DraftError {
    pub fn new(code: &'static str, message: impl Into<String>) -> Self {
        DraftError {
            code,
            message: message.into(),
            errors: Vec::new(),
        }
    }

    pub(super) fn bad_op(message: impl Into<String>) -> Self {
        DraftError::new(codes::BAD_OP, message)
    }
}

impl std::fmt::Display for DraftError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.code, self.message)
    }
}

impl std::error::Error for DraftError {}

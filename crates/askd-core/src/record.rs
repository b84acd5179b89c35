//! What the record of a settled ask is built from (`survey.md` §11.1): plain data taken
//! from the stored ask, so the shapes live in the core and the store stays a store. The
//! shapes themselves sit with their kind: [`crate::survey::records::survey_record`] and
//! [`crate::questions::record`].

use serde_json::Value;

/// What a record takes from its stored ask: plain data, no store types.
#[derive(Debug, Clone, Copy)]
pub struct RecordedAsk<'a> {
    pub ask_id: &'a str,
    pub session: &'a str,
    pub workspace: Option<&'a str>,
    pub client: &'a str,
    pub created_at: &'a str,
    /// The stored normal form, recorded verbatim as `spec`.
    pub spec: &'a Value,
    /// The ask's title, when it has one (a survey record carries it).
    pub title: Option<&'a str>,
    /// The last autosave, recorded when the ask settles without a submission.
    pub autosave: Option<&'a Value>,
}

/// One banked answer as a record carries it: the entry and when it was banked.
#[derive(Debug, Clone, Copy)]
pub struct RecordedBank<'a> {
    pub entry: &'a Value,
    pub banked_at: &'a str,
}

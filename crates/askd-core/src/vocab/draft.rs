//! The question builder's draft statuses (`survey.md` §10.3). `answered` is spelled like the
//! ask outcome but is the draft's own word: its launched ask was answered.

use super::words;

words! {
    /// A builder draft's status.
    pub enum DraftStatus {
        Building => "building",
        Launched => "launched",
        Answered => "answered",
        Reopened => "reopened",
        Discarded => "discarded",
    }
}

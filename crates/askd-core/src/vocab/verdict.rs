//! The fixed verdicts of a review's confirm and bool items (`review.md` §2).

use super::words;

words! {
    /// A confirm item's verdict.
    pub enum Confirm {
        Pass => "pass",
        Fail => "fail",
        Pending => "pending",
    }
}

words! {
    /// A bool item's verdict.
    pub enum YesNo {
        Yes => "yes",
        No => "no",
    }
}

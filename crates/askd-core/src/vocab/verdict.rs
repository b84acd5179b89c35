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

/// A confirm item's verdicts, in the order every surface offers them.
pub const CONFIRM: &[&str] = &[
    Confirm::Pass.as_str(),
    Confirm::Fail.as_str(),
    Confirm::Pending.as_str(),
];

/// A bool item's verdicts, in order.
pub const YES_NO: &[&str] = &[YesNo::Yes.as_str(), YesNo::No.as_str()];

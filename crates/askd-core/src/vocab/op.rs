//! The alignment operations of `POST /api/sessions/{id}/alignment/{op}` (`alignment.md` §5).

use super::words;

words! {
    /// An alignment operation the daemon runs for a session.
    pub enum AlignOp {
        /// `alignment_status` (§5.3).
        Status => "status",
        /// `set_alignment_mode` (§5.4).
        Mode => "mode",
        /// `align`: record a check and report (§5.2).
        Check => "check",
        /// `establish_baseline` (§5.5).
        Baseline => "baseline",
        /// `report_drift`'s non-waiting half (§5.6).
        ReportDrift => "report_drift",
    }
}

//! The kinds of event askd appends (platform §6): one table, stored as the same strings.

use super::words;

words! {
    /// The kind of a stored event. Readers meet only these; an unknown stored kind (a
    /// newer daemon's) is skipped by every fold rather than misread.
    pub enum EventKind {
        /// An ask was created (`{ask_id, kind, tool?, questions?}` for a session's fold).
        AskCreated => "ask.created",
        /// An ask settled, exactly once (`{ask_id, outcome, …}`).
        AskSettled => "ask.settled",
        /// Someone is answering an ask (a claim set, replaced or cleared).
        AskClaimed => "ask.claimed",
        /// Answers were banked (surveys).
        AskBanked => "ask.banked",
        /// Unbanked answers were autosaved.
        AskAutosaved => "ask.autosaved",
        /// A pending ask's deadline moved (`{ask_id, expires_at}`: a person extended it).
        AskDeadline => "ask.deadline",
        /// The human put a pending ask off (`{ask_id, deferred_until}`: "ask me again in …").
        AskDeferred => "ask.deferred",
        /// Nobody answered by the deadline and the ask was offered on (`{ask_id, to,
        /// escalated_at}`: a member's name or `everyone`; team mode).
        AskEscalated => "ask.escalated",
        /// A member voted on an ask that needs more than one approver (`{ask_id, by, votes,
        /// required}`; team mode). The settle a deciding vote makes follows it.
        AskVoted => "ask.voted",
        /// A reminder about a waiting ask went out (notifications only; never stored).
        AskReminder => "ask.reminder",
        /// A session began (new, continued, forked).
        SessionStarted => "session.started",
        /// A connection attached to a session.
        SessionAttached => "session.attached",
        /// The question builder's draft changed.
        DraftUpdated => "draft.updated",
        /// The daemon's settings changed.
        SettingsUpdated => "settings.updated",
        /// An alignment check ran (`align`).
        AlignmentChecked => "alignment.checked",
        /// The session's mode override changed.
        AlignmentModeSet => "alignment.mode_set",
        /// A baseline revision was recorded.
        AlignmentBaselineRecorded => "alignment.baseline_recorded",
        /// A baseline revision was refused (it dropped protected items).
        AlignmentBaselineRefused => "alignment.baseline_refused",
        /// A drift was reported.
        AlignmentDriftReported => "alignment.drift_reported",
        /// The human decided a drift.
        AlignmentDriftDecided => "alignment.drift_decided",
        /// A drift card closed without a decision (withdrawn, superseded).
        AlignmentDriftClosed => "alignment.drift_closed",
    }
}

impl EventKind {
    /// An event a session's alignment fold reads (`alignment.md` §3): its asks' lives, the
    /// session's own events and every alignment event.
    pub fn folded_by_alignment(self) -> bool {
        matches!(self, EventKind::AskCreated | EventKind::AskSettled)
            || self.as_str().starts_with("alignment.")
            || self.as_str().starts_with("session.")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vocab::Word;

    #[test]
    fn event_kinds_round_trip_and_are_distinct() {
        let mut seen = std::collections::BTreeSet::new();
        for k in EventKind::ALL {
            assert!(seen.insert(k.as_str()), "{k} twice");
            assert_eq!(EventKind::parse(k.as_str()), Some(*k));
            assert_eq!(serde_json::to_value(k).unwrap(), k.as_str());
        }
        assert_eq!(EventKind::parse("alignment.future_thing"), None);
        assert!(EventKind::AlignmentDriftClosed.folded_by_alignment());
        assert!(!EventKind::AskBanked.folded_by_alignment());
    }
}

//! A checkpoint of the fold: a session's [`AlignmentState`] after some prefix of its events,
//! in a form that can be stored and resumed, so a read folds only the events after it.
//!
//! The state's serde form is the fork snapshot (§4.3), which leaves out what is not copied to
//! a fork (lineage, connections, the live asks, the count of folded events); a checkpoint
//! keeps all of it. It keeps the settled decisions *out*: they are the one part that grows
//! with every answered ask, so they are stored beside the checkpoint one by one, in order
//! (`settled` says how many precede the checkpoint), and a reader loads only those it needs
//! (all of them for a status, the ones asking the same question for a repeat hint).
//!
//! Invariant: `Checkpoint::of(&fold(events), 0).resume()` with the decisions put back, then
//! the later events applied, equals the fold of all the events.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::fold::{AlignmentState, Connection, LiveAsk};

/// The checkpoint format. A checkpoint of another version is not resumed (the session is
/// folded from its first event again): bump it whenever the fold's result changes.
pub const CHECKPOINT_VERSION: u32 = 1;

/// A resumable fold (see the module documentation).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Checkpoint {
    pub version: u32,
    /// The state's snapshot members, with no settled decisions.
    pub state: AlignmentState,
    /// How many settled decisions the state had: they are kept beside the checkpoint.
    pub settled: usize,
    pub origin: Option<String>,
    pub parent: Option<String>,
    pub fork_at: Option<i64>,
    pub started_at: Option<String>,
    pub connections: Vec<Connection>,
    pub last_activity: Option<String>,
    pub last_seq: u32,
    asks: BTreeMap<String, LiveAsk>,
}

impl Checkpoint {
    /// The checkpoint of `state` whose `settled` holds the decisions after the first
    /// `settled_before` ones (those already kept beside an earlier checkpoint; 0 when `state`
    /// holds them all).
    pub fn of(state: &AlignmentState, settled_before: usize) -> Checkpoint {
        let mut snapshot = AlignmentState {
            settled: Vec::new(),
            ..state.clone()
        };
        let asks = std::mem::take(&mut snapshot.asks).into_iter().collect();
        Checkpoint {
            version: CHECKPOINT_VERSION,
            settled: settled_before + state.settled.len(),
            origin: snapshot.origin.take(),
            parent: snapshot.parent.take(),
            fork_at: snapshot.fork_at.take(),
            started_at: snapshot.started_at.take(),
            connections: std::mem::take(&mut snapshot.connections),
            last_activity: snapshot.last_activity.take(),
            last_seq: std::mem::take(&mut snapshot.last_seq),
            state: snapshot,
            asks,
        }
    }

    /// The state to fold on from, with no settled decisions, and how many decisions precede
    /// it (to be put in front of the ones the later events add). `None` for a checkpoint of
    /// another [`CHECKPOINT_VERSION`].
    pub fn resume(self) -> Option<(AlignmentState, usize)> {
        if self.version != CHECKPOINT_VERSION {
            return None;
        }
        let mut s = self.state;
        s.settled.clear();
        s.origin = self.origin;
        s.parent = self.parent;
        s.fork_at = self.fork_at;
        s.started_at = self.started_at;
        s.connections = self.connections;
        s.last_activity = self.last_activity;
        s.last_seq = self.last_seq;
        s.asks = self.asks.into_iter().collect();
        Some((s, self.settled))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::alignment::fold::{AlignEvent, fold};
    use serde_json::json;

    fn ev(seq: i64, kind: &str, data: serde_json::Value) -> AlignEvent {
        AlignEvent {
            seq,
            at: format!("2026-12-01T00:00:{seq:02}Z"),
            kind: crate::EventKind::parse(kind),
            actor: crate::Actor::Agent,
            data,
        }
    }

    #[test]
    fn another_version_is_not_resumed() {
        let mut cp = Checkpoint::of(&AlignmentState::default(), 0);
        assert!(cp.clone().resume().is_some());
        cp.version += 1;
        assert!(cp.resume().is_none());
    }

    #[test]
    fn a_live_ask_and_the_lineage_survive_the_round_trip() {
        let events = [
            ev(
                1,
                "session.started",
                json!({"origin": "new", "client": "c"}),
            ),
            ev(
                2,
                "ask.created",
                json!({"ask_id": "a", "kind": "questions", "questions": [{"id": "q", "question": "Q?"}]}),
            ),
        ];
        let cut = fold(&events);
        let text = serde_json::to_string(&Checkpoint::of(&cut, 0)).unwrap();
        let (mut s, held) = serde_json::from_str::<Checkpoint>(&text)
            .unwrap()
            .resume()
            .unwrap();
        assert_eq!((s.clone(), held), (cut, 0));
        let settled = ev(
            3,
            "ask.settled",
            json!({"ask_id": "a", "outcome": "answered", "answers": [{"id": "q", "selected": ["A"]}]}),
        );
        s.apply(&settled);
        let mut all = events.to_vec();
        all.push(settled);
        assert_eq!(s, fold(&all));
        assert_eq!(s.settled[0].question, "Q?");
    }
}

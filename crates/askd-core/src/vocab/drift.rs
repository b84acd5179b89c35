//! A drift's state in the alignment fold (`alignment.md` §4.5). `withdrawn` and `superseded`
//! are spelled like the card ask's outcomes: the drift closed because its card did.

use super::words;

words! {
    /// Where a reported drift stands.
    pub enum DriftState {
        /// Waiting for the human.
        Open => "open",
        /// The human decided (approve, reject, revise, other).
        Decided => "decided",
        /// The human closed the card without deciding.
        Dismissed => "dismissed",
        /// The agent withdrew the card.
        Withdrawn => "withdrawn",
        /// A newer report replaced it.
        Superseded => "superseded",
    }
}

//! How an ask ended (platform §2): the one outcome vocabulary of every kind.

use super::words;

words! {
    /// The outcome a settled ask carries. `pending` is not an outcome: it is the state of an
    /// ask that has none yet (and the `outcome` of a re-attach handle, [`PENDING`]).
    pub enum Outcome {
        /// The human answered.
        Answered => "answered",
        /// The human declined.
        Cancelled => "cancelled",
        /// The agent or an operator withdrew it (`withdraw_ask`, `POST …/withdraw`).
        Aborted => "aborted",
        /// A newer ask replaced it (a survey's `replaces`, a new drift report).
        Superseded => "superseded",
        /// A drift card the agent withdrew (`report_drift` with `resume`; `alignment.md` §5.6).
        Withdrawn => "withdrawn",
        /// Survey pre-flight: ask again with other questions.
        Reroll => "reroll",
        /// Survey pre-flight: go on without asking.
        Push => "push",
        /// Survey pre-flight: talk it through first.
        Discuss => "discuss",
        /// Nobody answered by the ask's deadline: the agent's default was applied (marked
        /// `defaulted`), or the ask was closed unanswered (issue 35).
        Expired => "expired",
    }
}

/// The `outcome` of the pending handle a waiting call returns (platform §2, re-attach).
pub const PENDING: &str = "pending";

impl Outcome {
    /// Whether the result is delivered as the ask settles: the agent ended the ask itself
    /// (withdraw) or replaced it, so no later call owes it the result, and an identical
    /// call afterwards asks anew instead of collecting it (`clients.md` §2.5).
    pub fn delivered_on_settle(self) -> bool {
        matches!(
            self,
            Outcome::Aborted | Outcome::Superseded | Outcome::Withdrawn
        )
    }

    /// A survey pre-flight outcome (`survey.md` §9).
    pub fn is_preflight(self) -> bool {
        matches!(self, Outcome::Reroll | Outcome::Push | Outcome::Discuss)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vocab::Word;

    #[test]
    fn outcomes_keep_their_spellings() {
        let names: Vec<&str> = Outcome::ALL.iter().map(|o| o.as_str()).collect();
        assert_eq!(
            names,
            [
                "answered",
                "cancelled",
                "aborted",
                "superseded",
                "withdrawn",
                "reroll",
                "push",
                "discuss",
                "expired"
            ]
        );
        for o in Outcome::ALL {
            assert_eq!(serde_json::to_value(o).unwrap(), o.as_str());
            assert_eq!(
                serde_json::from_value::<Outcome>(o.as_str().into()).unwrap(),
                *o
            );
        }
        let e = serde_json::from_value::<Outcome>("done".into()).unwrap_err();
        assert!(
            e.to_string()
                .contains("\"done\" is not one of answered, cancelled"),
            "{e}"
        );
    }

    #[test]
    fn only_agent_ended_outcomes_are_delivered_as_they_settle() {
        let delivered: Vec<Outcome> = Outcome::ALL
            .iter()
            .copied()
            .filter(|o| o.delivered_on_settle())
            .collect();
        assert_eq!(
            delivered,
            [Outcome::Aborted, Outcome::Superseded, Outcome::Withdrawn]
        );
    }
}

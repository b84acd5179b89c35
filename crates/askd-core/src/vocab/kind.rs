//! The kinds of ask askd knows: one enum, stored and served as the same strings.

use std::fmt;

use serde::{Deserialize, Serialize};

/// The kind of an ask. The store keeps it as [`AskKind::as_str`]; the API and MCP layers
/// send and receive the same strings.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum AskKind {
    /// `ask_survey` (`survey.md`).
    Survey,
    /// `ask_user_question` (flat questions).
    Questions,
    /// `batch_review` (`review.md`).
    Review,
    /// A drift card (`alignment.md` §5.6), created by `report_drift`.
    Drift,
}

/// A stored or requested kind that is not one of [`AskKind::ALL`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownKind(pub String);

impl fmt::Display for UnknownKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{:?} is not an ask kind (known: survey, questions, review, drift)",
            self.0
        )
    }
}

impl std::error::Error for UnknownKind {}

impl AskKind {
    /// Every kind, in a fixed order.
    pub const ALL: [AskKind; 4] = [
        AskKind::Survey,
        AskKind::Questions,
        AskKind::Review,
        AskKind::Drift,
    ];

    /// The kinds an agent creates through the common create call (a drift card is created
    /// by `report_drift` only).
    pub const CREATABLE: [AskKind; 3] = [AskKind::Survey, AskKind::Questions, AskKind::Review];

    /// The stored and served name.
    pub fn as_str(self) -> &'static str {
        match self {
            AskKind::Survey => "survey",
            AskKind::Questions => "questions",
            AskKind::Review => "review",
            AskKind::Drift => "drift",
        }
    }

    /// Parses a stored or requested name; anything else is an [`UnknownKind`].
    pub fn parse(s: &str) -> Result<AskKind, UnknownKind> {
        AskKind::ALL
            .into_iter()
            .find(|k| k.as_str() == s)
            .ok_or_else(|| UnknownKind(s.to_string()))
    }

    /// The MCP tool that creates asks of this kind (`report_drift` for a drift card).
    pub fn tool(self) -> &'static str {
        match self {
            AskKind::Survey => "ask_survey",
            AskKind::Questions => "ask_user_question",
            AskKind::Review => "batch_review",
            AskKind::Drift => "report_drift",
        }
    }
}

impl super::Word for AskKind {
    const ALL: &'static [Self] = &AskKind::ALL;
    fn as_str(self) -> &'static str {
        AskKind::as_str(self)
    }
}

impl fmt::Display for AskKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for AskKind {
    type Err = UnknownKind;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        AskKind::parse(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_round_trip_through_their_stored_names_and_serde() {
        for k in AskKind::ALL {
            assert_eq!(AskKind::parse(k.as_str()), Ok(k));
            assert_eq!(serde_json::to_value(k).unwrap(), k.as_str());
            assert_eq!(
                serde_json::from_value::<AskKind>(serde_json::json!(k.as_str())).unwrap(),
                k
            );
        }
        let e = AskKind::parse("poll").unwrap_err();
        assert_eq!(
            e.to_string(),
            "\"poll\" is not an ask kind (known: survey, questions, review, drift)"
        );
        assert!(AskKind::parse("Survey").is_err(), "names are exact");
    }
}

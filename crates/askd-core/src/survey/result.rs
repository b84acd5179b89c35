//! Result shapes returned to the agent (`survey.md` §8): `answered` with `handling`, the
//! pre-flight outcomes, `superseded`, `pending`, and the texts of `cancelled` / `aborted`.

use indexmap::IndexMap;
use serde::Serialize;
use sha2::{Digest, Sha256};

use super::answers::Submission;
use super::model::SurveySpec;
use crate::Outcome;

/// §8.4, sent in English whatever the survey's language.
pub const HANDLING: &str = "Open your next turn by mirroring the user's stance back in one line — what they chose, over what, and why — before acting on these answers. Trace every decision you make to the answer that settled it. Never re-ask anything this survey already answered; ask only what is new. Justifications are the user's stated intent: honour them, and if you must depart from one, say so and why before acting.";

/// §8.5 Reroll.
pub const REROLL: &str = "The user pressed \"Reroll\" before starting: they want the same survey — same topic, structure and intent — rewritten cleaner and escalated. Fix every quality-bar gap (thin insights, vague or overlapping options, a missing branch dimension, an intro that does not orient), make every prompt self-contained, and never shrink the option count, the branching or the insight depth. Write plainly, without jargon, in the user's language. Re-issue without asking: a small survey through ask_survey, a large one back through the builder (survey_draft_set op=structure or op=patch, then survey_draft_get, then survey_draft_launch).";

/// §8.5 Push.
pub const PUSH: &str = "The user pressed \"Push\": they want research-driven depth. Study at least 12 comparable systems or implementations and record each one's approach, its tradeoff and what it got right. Write the findings down: a digest in .docs/digest/<topic>.md, deeper notes in .docs/research/, UI and API traces in .docs/research/rips/, downloaded source in .refs/. Then re-author the survey at at least twice the depth (question count or branch depth, e.g. 10 → 20+), with evidence-cited insights and sources and new branch dimensions, and re-issue it without asking, through the builder (survey_draft_set, survey_draft_get, survey_draft_launch).";

/// §8.5 Discuss.
pub const DISCUSS: &str = "The user pressed \"Discuss\": they do not want the form yet. Do not call ask_survey again right away. Hold a normal conversation with them, converge on the direction together, and offer a survey again only once the direction has settled.";

/// §8.6.
pub const SUPERSEDED: &str = "This survey was superseded by a newer survey that named it in `replaces`. Treat this one as cancelled and continue with the newer survey's result; do not re-issue it unless the user asks. Its banked answers stay in its record.";

/// §8.7.
pub const PENDING: &str = "The user has not finished this survey yet, and nothing is lost: their answers, banked answers and position are saved. Call await_answer with this ask_id to keep waiting. Do not answer on the user's behalf. To replace this survey with a revised one, pass this ask_id as `replaces` so the user's banked work carries over.";

/// §8.8 messages (kept for compatibility).
pub const CANCELLED_MESSAGE: &str = "the user cancelled the survey";
pub const ABORTED_MESSAGE: &str = "ask_survey was aborted before the user answered";

/// A pre-flight action the human can take on the intro page.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Preflight {
    Reroll,
    Push,
    Discuss,
}

impl Preflight {
    /// The action an outcome names, if it is a pre-flight one.
    pub fn of(outcome: Outcome) -> Option<Self> {
        match outcome {
            Outcome::Reroll => Some(Preflight::Reroll),
            Outcome::Push => Some(Preflight::Push),
            Outcome::Discuss => Some(Preflight::Discuss),
            _ => None,
        }
    }
    /// The outcome the ask settles with.
    pub fn outcome(self) -> Outcome {
        match self {
            Preflight::Reroll => Outcome::Reroll,
            Preflight::Push => Outcome::Push,
            Preflight::Discuss => Outcome::Discuss,
        }
    }
    pub fn parse(s: &str) -> Option<Self> {
        Outcome::parse(s).and_then(Preflight::of)
    }
    pub fn as_str(self) -> &'static str {
        self.outcome().as_str()
    }
    pub fn instruction(self) -> &'static str {
        match self {
            Preflight::Reroll => REROLL,
            Preflight::Push => PUSH,
            Preflight::Discuss => DISCUSS,
        }
    }
}

/// One selected option in an answered result: key and the verbatim normal-form label.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SelectedOption {
    pub key: String,
    pub label: String,
}

/// One answer in an answered result (§8.3).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ResultAnswer {
    pub id: String,
    pub selected: Vec<SelectedOption>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub custom: Option<String>,
    #[serde(skip_serializing_if = "IndexMap::is_empty")]
    pub justifications: IndexMap<String, String>,
}

/// The `answered` result (§8.3).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Answered {
    pub outcome: Outcome,
    pub ask_id: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    pub path: Vec<String>,
    pub answers: Vec<ResultAnswer>,
    pub skipped: Vec<String>,
    pub handling: &'static str,
}

/// Shapes a validated submission into the `answered` result.
pub fn answered(spec: &SurveySpec, ask_id: &str, sub: &Submission) -> Answered {
    let answers = sub
        .answers
        .iter()
        .map(|e| {
            let q = spec.question(&e.id);
            ResultAnswer {
                id: e.id.clone(),
                selected: e
                    .selected
                    .iter()
                    .map(|k| SelectedOption {
                        key: k.clone(),
                        label: q
                            .and_then(|q| q.option(k))
                            .map(|o| o.label.clone())
                            .unwrap_or_else(|| k.clone()),
                    })
                    .collect(),
                custom: e.custom.clone(),
                justifications: e.justifications.clone(),
            }
        })
        .collect();
    Answered {
        outcome: Outcome::Answered,
        ask_id: ask_id.to_string(),
        title: spec.title.clone(),
        path: sub.path.clone(),
        answers,
        skipped: sub.skipped.clone(),
        handling: HANDLING,
    }
}

/// `{outcome, ask_id, title?, instruction}`: pre-flight (§8.5) and superseded (§8.6).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Redirected {
    pub outcome: Outcome,
    pub ask_id: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    pub instruction: &'static str,
}

pub fn preflight(spec: &SurveySpec, ask_id: &str, action: Preflight) -> Redirected {
    Redirected {
        outcome: action.outcome(),
        ask_id: ask_id.to_string(),
        title: spec.title.clone(),
        instruction: action.instruction(),
    }
}

pub fn superseded(spec: &SurveySpec, ask_id: &str) -> Redirected {
    Redirected {
        outcome: Outcome::Superseded,
        ask_id: ask_id.to_string(),
        title: spec.title.clone(),
        instruction: SUPERSEDED,
    }
}

/// The durable handle of §8.7.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Pending {
    pub outcome: &'static str,
    pub ask_id: String,
    pub url: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    pub instruction: &'static str,
}

pub fn pending(spec: &SurveySpec, ask_id: &str, url: &str) -> Pending {
    Pending {
        outcome: "pending",
        ask_id: ask_id.to_string(),
        url: url.to_string(),
        title: spec.title.clone(),
        instruction: PENDING,
    }
}

/// The survey fingerprint of §9.4: SHA-256 (lower-case hex) of `entry`, then one
/// `id:first 120 characters of its prompt` part per question, ids sorted by code point,
/// joined with `|`.
pub fn fingerprint(spec: &SurveySpec) -> String {
    let mut ids: Vec<&String> = spec.questions.keys().collect();
    // Byte order of UTF-8 equals code-point order.
    ids.sort();
    let mut text = spec.entry.clone();
    for id in ids {
        let prompt: String = spec.questions[id].prompt.chars().take(120).collect();
        text.push('|');
        text.push_str(id);
        text.push(':');
        text.push_str(&prompt);
    }
    let digest = Sha256::digest(text.as_bytes());
    digest.iter().map(|b| format!("{b:02x}")).collect()
}

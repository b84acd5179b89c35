//! Deadlines (issue 35): an ask may say when it stops waiting and what happens then.
//!
//! `deadline: {in_s | at, then?, default?}` beside an ask's arguments (`ask_user_question`,
//! `batch_review`, `ask_survey`):
//! - `in_s` — seconds from now (> 0, at most [`MAX_S`]); or `at` — an RFC 3339 time (the
//!   daemon reads it: this crate has no clock). Exactly one.
//! - `then` — `default` (apply `default`), `cancel` (close the ask unanswered) or
//!   `escalate` (team mode: offer it to `to`, a member's name or `everyone`, and wait on);
//!   `default` when `default` is given, else `cancel`.
//! - `default` — what the agent chose in advance, by id: for questions an option label (or
//!   several, for a multi-select question) per question id; for a review a verdict per item
//!   id. A survey's deadline can only cancel (its path depends on its answers).
//!
//! An applied default is never a human's answer: the daemon settles the ask `expired`,
//! marks the result `defaulted`, and says so in words ([`HANDLING_DEFAULTED`]).

use serde_json::{Value, json};

use crate::AskKind;
use crate::json::Json;
use crate::problem::Problem;

/// The argument's name.
pub const FIELD: &str = "deadline";

/// The longest deadline, in seconds: 30 days.
pub const MAX_S: f64 = 30.0 * 24.0 * 3600.0;

/// What happens at the deadline.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Then {
    /// The agent's `default` is applied, marked as such.
    Default,
    /// The ask is closed unanswered.
    Cancel,
    /// Team mode: the ask is offered to [`Deadline::to`] (notified) and waits on.
    Escalate,
}

/// `to` that offers an escalated ask to every member.
pub const EVERYONE: &str = "everyone";

/// When a deadline falls: seconds from the ask's creation, or a time the agent named.
#[derive(Debug, Clone, PartialEq)]
pub enum When {
    In(f64),
    At(String),
}

/// A validated deadline.
#[derive(Debug, Clone, PartialEq)]
pub struct Deadline {
    pub when: When,
    pub then: Then,
    /// The submit body the default stands for (`{"answers": […]}`), for [`Then::Default`].
    pub default: Option<Value>,
    /// Whom an escalation offers the ask to (a member's name, or [`EVERYONE`]), for
    /// [`Then::Escalate`]; the daemon checks the name.
    pub to: Option<String>,
}

/// A survey's `deadline` (it takes no default: its path depends on its answers), as
/// `ask_survey` declares it.
pub fn survey_schema() -> Value {
    json!({
        "type": "object",
        "description": "Close the survey at {in_s | at: RFC 3339} (expired)."
    })
}

/// The `deadline` argument's schema, as the ask tools declare it (one short description:
/// the validation messages carry the rest).
pub fn schema() -> Value {
    json!({
        "type": "object",
        "description": "Stop waiting at {in_s | at: RFC 3339}: apply default {id: label | verdict} (marked expired), else close; then: escalate + to: member | everyone (team)."
    })
}

/// What the agent is told of a default applied at the deadline.
pub const HANDLING_DEFAULTED: &str = "Nobody answered by the deadline: askd applied the default YOU named, not the human's choice. Tell the user which default was applied, treat it as provisional, and let them revisit it.";

/// What the agent is told of an ask closed at its deadline.
pub const HANDLING_CLOSED: &str = "Nobody answered by the deadline, so askd closed the ask unanswered. Go on without these answers, or ask again later; do not read silence as consent.";

/// The instruction of a pending handle whose ask the human put off until `until` (snooze):
/// the agent goes on with other work, and is told when to come back.
pub fn snoozed_instruction(until: &str) -> String {
    format!(
        "The human asked to be asked again at {until} (UTC), so the ask stays open and askd brings it back to them then. Do not wait and do not ask again: go on with work that does not need this answer, and call await_answer with this ask_id after {until}. Until they answer, nothing here is decided."
    )
}

fn problem(path: &str, code: &'static str, message: String) -> Problem {
    Problem::new(path, code, message)
}

/// The `deadline` of an ask's arguments, if any, for an ask of `kind`.
pub fn parse(args: &Json, kind: AskKind) -> Result<Option<Deadline>, Vec<Problem>> {
    let Some(d) = args.as_object().and_then(|o| o.get_present(FIELD)) else {
        return Ok(None);
    };
    let Some(o) = d.as_object() else {
        return Err(vec![problem(
            FIELD,
            "deadline_type",
            format!(
                "deadline must be an object {{in_s | at, then?, default?}}, got {} — e.g. {{\"in_s\": 3600, \"default\": {{…}}}}",
                d.kind()
            ),
        )]);
    };
    let mut problems = Vec::new();
    for key in o.keys() {
        if !["in_s", "at", "then", "default", "to"].contains(&key) {
            problems.push(problem(
                &format!("deadline.{key}"),
                "unknown_field",
                format!("unknown field {key:?}; deadline takes in_s or at, then, default, to"),
            ));
        }
    }
    let when = match (o.get_present("in_s"), o.get_present("at")) {
        (Some(_), Some(_)) => {
            problems.push(problem(
                FIELD,
                "deadline_when",
                "give deadline.in_s or deadline.at, not both".into(),
            ));
            None
        }
        (None, None) => {
            problems.push(problem(
                FIELD,
                "deadline_when",
                "deadline needs in_s (seconds from now) or at (an RFC 3339 time)".into(),
            ));
            None
        }
        (Some(Json::Number(n)), None) => match n.as_f64() {
            Some(s) if s.is_finite() && s > 0.0 && s <= MAX_S => Some(When::In(s)),
            _ => {
                problems.push(problem(
                    "deadline.in_s",
                    "deadline_range",
                    format!("deadline.in_s must be more than 0 and at most {MAX_S} seconds (30 days), got {n}"),
                ));
                None
            }
        },
        (Some(other), None) => {
            problems.push(problem(
                "deadline.in_s",
                "deadline_type",
                format!(
                    "deadline.in_s must be a number of seconds, got {}",
                    other.kind()
                ),
            ));
            None
        }
        (None, Some(at)) => match at.as_str() {
            Some(s) if !s.trim().is_empty() => Some(When::At(s.trim().to_string())),
            _ => {
                problems.push(problem(
                    "deadline.at",
                    "deadline_type",
                    "deadline.at must be an RFC 3339 time such as \"2026-12-24T09:00:00Z\"".into(),
                ));
                None
            }
        },
    };
    let given = o.get_present("default");
    let then = match o.get_present("then").map(|t| t.as_str()) {
        None => {
            if given.is_some() {
                Then::Default
            } else {
                Then::Cancel
            }
        }
        Some(Some("default")) => Then::Default,
        Some(Some("cancel")) => Then::Cancel,
        Some(Some("escalate")) => Then::Escalate,
        Some(_) => {
            problems.push(problem(
                "deadline.then",
                "deadline_then",
                "deadline.then must be \"default\" (apply deadline.default), \"cancel\" (close the ask unanswered) or \"escalate\" (offer it to deadline.to)".into(),
            ));
            Then::Cancel
        }
    };
    let to = escalation_target(then, o.get_present("to"), kind, &mut problems);
    let default = match (then, given) {
        (Then::Escalate, Some(_)) => {
            problems.push(problem(
                "deadline.default",
                "deadline_default",
                "an escalation offers the ask to a person and waits: drop deadline.default, or set then to \"default\"".into(),
            ));
            None
        }
        (Then::Escalate, None) => None,
        (Then::Cancel, Some(_)) => {
            problems.push(problem(
                "deadline.default",
                "deadline_default",
                "deadline.default is applied only with then \"default\" — drop it, or set then to \"default\"".into(),
            ));
            None
        }
        (Then::Cancel, None) => None,
        (Then::Default, None) => {
            problems.push(problem(
                "deadline.default",
                "deadline_default",
                "deadline.then \"default\" needs deadline.default: what to apply, by id".into(),
            ));
            None
        }
        (Then::Default, Some(g)) => default_body(g, kind, &mut problems),
    };
    if !problems.is_empty() {
        return Err(problems);
    }
    Ok(when.map(|when| Deadline {
        when,
        then,
        default,
        to,
    }))
}

/// `deadline.to`: a name (1 to 40 characters) with `then: "escalate"`, nothing otherwise.
fn escalation_target(
    then: Then,
    to: Option<&Json>,
    kind: AskKind,
    problems: &mut Vec<Problem>,
) -> Option<String> {
    let at = "deadline.to";
    match (then, to) {
        (Then::Escalate, _) if kind == AskKind::Survey => {
            problems.push(problem(
                "deadline.then",
                "deadline_then",
                "a survey's deadline can only cancel — use then \"cancel\"".into(),
            ));
            None
        }
        (Then::Escalate, Some(Json::String(name)))
            if !name.trim().is_empty() && name.trim().chars().count() <= 40 =>
        {
            Some(name.trim().to_string())
        }
        (Then::Escalate, _) => {
            problems.push(problem(
                at,
                "deadline_to",
                format!("deadline.then \"escalate\" needs deadline.to: a team member's name, or \"{EVERYONE}\""),
            ));
            None
        }
        (_, Some(_)) => {
            problems.push(problem(
                at,
                "deadline_to",
                "deadline.to is used only with then \"escalate\" — drop it, or set then to \"escalate\"".into(),
            ));
            None
        }
        (_, None) => None,
    }
}

/// The submit body a `default` stands for: `{"answers": [{id, selected}]}` for questions,
/// `{"answers": [{id, verdict}]}` for a review. The daemon validates it against the ask as
/// a submit would, before anything is stored.
fn default_body(given: &Json, kind: AskKind, problems: &mut Vec<Problem>) -> Option<Value> {
    let at = "deadline.default";
    if kind == AskKind::Survey {
        problems.push(problem(
            at,
            "deadline_default",
            "a survey's deadline can only cancel (its path depends on its answers) — drop deadline.default".into(),
        ));
        return None;
    }
    let Some(map) = given.as_object().filter(|m| !m.is_empty()) else {
        problems.push(problem(
            at,
            "deadline_default",
            match kind {
                AskKind::Review => "deadline.default must be an object of verdicts by item id, e.g. {\"c1\": \"pass\"}".into(),
                _ => "deadline.default must be an object of option labels by question id, e.g. {\"db\": \"SQLite\"}".into(),
            },
        ));
        return None;
    };
    let mut answers = Vec::new();
    for (id, v) in map.iter() {
        let path = format!("{at}.{id}");
        match (kind, v) {
            (AskKind::Review, Json::String(verdict)) => {
                answers.push(json!({"id": id, "verdict": verdict.as_ref()}));
            }
            (AskKind::Questions, Json::String(label)) => {
                answers.push(json!({"id": id, "selected": [label.as_ref()]}));
            }
            (AskKind::Questions, Json::Array(labels))
                if !labels.is_empty() && labels.iter().all(|l| l.as_str().is_some()) =>
            {
                let labels: Vec<&str> = labels.iter().filter_map(Json::as_str).collect();
                answers.push(json!({"id": id, "selected": labels}));
            }
            _ => problems.push(problem(
                &path,
                "deadline_default",
                match kind {
                    AskKind::Review => format!("{path} must be a verdict (a string)"),
                    _ => format!("{path} must be an option label, or a list of labels for a multi-select question"),
                },
            )),
        }
    }
    Some(json!({"answers": answers}))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parsed(v: Value, kind: AskKind) -> Result<Option<Deadline>, Vec<Problem>> {
        parse(&Json::from_value(&v), kind)
    }

    #[test]
    fn a_default_becomes_the_submit_body_and_then_defaults_to_it() {
        let d = parsed(
            json!({"deadline": {"in_s": 2, "default": {"db": "SQLite", "langs": ["Rust", "Go"]}}}),
            AskKind::Questions,
        )
        .unwrap()
        .unwrap();
        assert_eq!(d.when, When::In(2.0));
        assert_eq!(d.then, Then::Default);
        assert_eq!(
            d.default.unwrap(),
            json!({"answers": [{"id": "db", "selected": ["SQLite"]},
                               {"id": "langs", "selected": ["Rust", "Go"]}]})
        );
        let r = parsed(
            json!({"deadline": {"at": "2026-12-24T09:00:00Z", "default": {"c1": "pass"}}}),
            AskKind::Review,
        )
        .unwrap()
        .unwrap();
        assert_eq!(
            r.default.unwrap(),
            json!({"answers": [{"id": "c1", "verdict": "pass"}]})
        );
        let c = parsed(json!({"deadline": {"in_s": 60}}), AskKind::Survey)
            .unwrap()
            .unwrap();
        assert_eq!((c.then, c.default), (Then::Cancel, None));
        assert_eq!(parsed(json!({}), AskKind::Survey).unwrap(), None);
    }

    #[test]
    fn every_mistake_names_its_field() {
        let paths = |v: Value, kind| -> Vec<String> {
            parsed(v, kind)
                .unwrap_err()
                .into_iter()
                .map(|p| p.path)
                .collect()
        };
        assert_eq!(
            paths(json!({"deadline": 5}), AskKind::Questions),
            ["deadline"]
        );
        assert_eq!(
            paths(json!({"deadline": {"in_s": 0}}), AskKind::Questions),
            ["deadline.in_s"]
        );
        assert_eq!(
            paths(
                json!({"deadline": {"in_s": 5, "at": "x"}}),
                AskKind::Questions
            ),
            ["deadline"]
        );
        assert_eq!(
            paths(
                json!({"deadline": {"in_s": 5, "then": "default"}}),
                AskKind::Questions
            ),
            ["deadline.default"]
        );
        assert_eq!(
            paths(
                json!({"deadline": {"in_s": 5, "then": "later"}}),
                AskKind::Questions
            ),
            ["deadline.then"]
        );
        assert_eq!(
            paths(
                json!({"deadline": {"in_s": 5, "default": {"db": 3}}}),
                AskKind::Questions
            ),
            ["deadline.default.db"]
        );
        assert_eq!(
            paths(
                json!({"deadline": {"in_s": 5, "default": {"q": "a"}}}),
                AskKind::Survey
            ),
            ["deadline.default"]
        );
        assert_eq!(
            paths(
                json!({"deadline": {"in_s": 5, "soon": true}}),
                AskKind::Questions
            ),
            ["deadline.soon"]
        );
    }
}

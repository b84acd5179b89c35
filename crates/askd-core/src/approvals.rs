//! More than one approver (issue 35, team mode): `approvals: {required, from?}` beside the
//! arguments of `ask_user_question`, `batch_review` and `report_drift`.
//!
//! - `required` — how many members must answer, 1 to [`MAX_REQUIRED`];
//! - `from` — the members who may (a list of names) or [`ANY`] member (the default); a list
//!   holds at least `required` names.
//!
//! Each member's answer is a **vote**, kept with who gave it (`answered_by`) and when; a
//! member may change their vote until the ask settles. **How it settles — any rejection
//! rejects:** a vote that rejects ([`rejects`]: a review with a failed confirm item, a drift
//! card's "keep the current baseline") settles
//! the ask at once with that vote; otherwise the ask settles when `required` members have
//! voted, with the vote that completed the quorum. The agent gets every vote (`votes`) and
//! `approvals: {required, from, decided_by, agreed}` — `agreed` says whether every vote gave
//! the same answers ([`settled`]). A deadline, a cancel or a withdrawal ends the ask as
//! always, with the votes so far.
//!
//! The daemon checks the names against its members and who may vote; the store keeps the
//! votes with the ask and settles in the vote's own transaction.

use serde_json::{Map, Value, json};

use crate::AskKind;
use crate::json::Json;
use crate::problem::Problem;

/// The argument's name.
pub const FIELD: &str = "approvals";

/// `from` that lets any member vote.
pub const ANY: &str = "any";

/// The most votes an ask may require.
pub const MAX_REQUIRED: u64 = 20;

/// Validated approvals.
#[derive(Debug, Clone, PartialEq)]
pub struct Approvals {
    pub required: u32,
    /// The members who may vote; `None` for any member.
    pub from: Option<Vec<String>>,
}

impl Approvals {
    /// As the store keeps it, before any vote: `{required, from, votes: []}`.
    pub fn to_value(&self) -> Value {
        json!({
            "required": self.required,
            "from": self.from.as_ref().map_or(json!(ANY), |f| json!(f)),
            "votes": [],
        })
    }

    /// Whether the member `name` may vote.
    pub fn admits(&self, name: &str) -> bool {
        self.from
            .as_ref()
            .is_none_or(|f| f.iter().any(|n| n.eq_ignore_ascii_case(name)))
    }

    /// Reads the stored form back.
    pub fn from_value(v: &Value) -> Option<Approvals> {
        let required = u32::try_from(v.get("required")?.as_u64()?).ok()?;
        let from = match v.get("from") {
            Some(Value::Array(names)) => Some(
                names
                    .iter()
                    .filter_map(|n| n.as_str().map(str::to_string))
                    .collect(),
            ),
            _ => None,
        };
        Some(Approvals { required, from })
    }
}

/// The argument's schema, as the tools declare it.
pub fn schema() -> Value {
    json!({
        "type": "object",
        "description": "Team votes: {required: N, from: [names] | \"any\"}; one rejection settles."
    })
}

fn problem(path: &str, code: &'static str, message: String) -> Problem {
    Problem::new(path, code, message)
}

/// The `approvals` of an ask's arguments, if any, for an ask of `kind`.
pub fn parse(args: &Json, kind: AskKind) -> Result<Option<Approvals>, Vec<Problem>> {
    let Some(a) = args.as_object().and_then(|o| o.get_present(FIELD)) else {
        return Ok(None);
    };
    if !matches!(kind, AskKind::Questions | AskKind::Review | AskKind::Drift) {
        return Err(vec![problem(
            FIELD,
            "approvals_kind",
            "approvals apply to ask_user_question, batch_review and report_drift; a survey has one respondent — omit approvals".into(),
        )]);
    }
    let Some(o) = a.as_object() else {
        return Err(vec![problem(
            FIELD,
            "approvals_type",
            format!(
                "approvals must be an object {{required, from?}}, got {} — e.g. {{\"required\": 2, \"from\": \"any\"}}",
                a.kind()
            ),
        )]);
    };
    let mut problems = Vec::new();
    for key in o.keys() {
        if !["required", "from"].contains(&key) {
            problems.push(problem(
                &format!("approvals.{key}"),
                "unknown_field",
                format!("unknown field {key:?}; approvals takes required and from"),
            ));
        }
    }
    let required = match o.get_present("required") {
        Some(Json::Number(n)) if n.as_u64().is_some_and(|n| (1..=MAX_REQUIRED).contains(&n)) => {
            n.as_u64().map(|n| n as u32)
        }
        got => {
            let shown = got.map_or("nothing".to_string(), |g| match g {
                Json::Number(n) => n.to_string(),
                other => other.kind().to_string(),
            });
            problems.push(problem(
                "approvals.required",
                "approvals_required",
                format!(
                    "approvals.required must be a whole number of votes from 1 to {MAX_REQUIRED}, got {shown}"
                ),
            ));
            None
        }
    };
    let from = match o.get_present("from") {
        None => None,
        Some(Json::String(s)) if s.trim().eq_ignore_ascii_case(ANY) => None,
        Some(Json::Array(names)) => {
            let mut seen: Vec<String> = Vec::new();
            for (i, n) in names.iter().enumerate() {
                match n.as_str().map(str::trim).filter(|n| !n.is_empty()) {
                    Some(n) if seen.iter().any(|s| s.eq_ignore_ascii_case(n)) => {
                        problems.push(problem(
                            &format!("approvals.from[{i}]"),
                            "approvals_from",
                            format!("approvals.from names {n:?} twice"),
                        ))
                    }
                    Some(n) => seen.push(n.to_string()),
                    None => problems.push(problem(
                        &format!("approvals.from[{i}]"),
                        "approvals_from",
                        format!("approvals.from[{i}] must be a member's name"),
                    )),
                }
            }
            if names.is_empty() {
                problems.push(problem(
                    "approvals.from",
                    "approvals_from",
                    "approvals.from is empty: name the members, or use \"any\"".into(),
                ));
            }
            Some(seen)
        }
        Some(other) => {
            problems.push(problem(
                "approvals.from",
                "approvals_from",
                format!(
                    "approvals.from must be a list of member names or \"any\", got {}",
                    other.kind()
                ),
            ));
            None
        }
    };
    if let (Some(r), Some(f)) = (required, &from)
        && !f.is_empty()
        && (r as usize) > f.len()
    {
        problems.push(problem(
            "approvals.required",
            "approvals_required",
            format!(
                "approvals.required is {r} but approvals.from names only {} {}: lower required or name more",
                f.len(),
                if f.len() == 1 { "member" } else { "members" }
            ),
        ));
    }
    match (problems.is_empty(), required) {
        (true, Some(required)) => Ok(Some(Approvals { required, from })),
        _ => Err(problems),
    }
}

/// Whether an answer, as the kind's result, rejects: a review with a failed confirm item, a
/// drift decided `reject` (the baseline kept).
/// Questions have no rejection: every answer counts toward the quorum.
pub fn rejects(kind: AskKind, result: &Value) -> bool {
    match kind {
        AskKind::Review => result["summary"]["fail"].as_u64().is_some_and(|n| n > 0),
        AskKind::Drift => result["decision"] == "reject",
        _ => false,
    }
}

/// The members of a result that are bookkeeping, not the answer (left out of a vote).
const NOT_THE_ANSWER: [&str; 7] = [
    "ask_id",
    "outcome",
    "handling",
    "instruction",
    "answered_by",
    "votes",
    "approvals",
];

/// One vote as it is kept: who, when, whether it rejects, and the answer (the kind's result
/// without its bookkeeping).
pub fn vote(kind: AskKind, result: &Value, answered_by: &Value, at: &str) -> Value {
    let mut answer = result.as_object().cloned().unwrap_or_default();
    for k in NOT_THE_ANSWER {
        answer.remove(k);
    }
    json!({
        "answered_by": answered_by,
        "voted_at": at,
        "rejects": rejects(kind, result),
        "answer": answer,
    })
}

/// The voter of a kept vote (its `answered_by.id`).
pub fn voter(vote: &Value) -> &str {
    vote["answered_by"]["id"].as_str().unwrap_or_default()
}

fn name(vote: &Value) -> &str {
    vote["answered_by"]["name"].as_str().unwrap_or("?")
}

/// `votes` with `vote` in it: a member's new vote replaces their earlier one.
pub fn with_vote(votes: &[Value], vote: Value) -> Vec<Value> {
    let mut out: Vec<Value> = votes
        .iter()
        .filter(|v| voter(v) != voter(&vote))
        .cloned()
        .collect();
    out.push(vote);
    out
}

/// Whether `votes` settle the ask: the last one rejects, or `required` are in.
pub fn decides(votes: &[Value], required: u32) -> bool {
    votes.last().is_some_and(|v| v["rejects"] == true) || votes.len() >= required as usize
}

/// Whether every vote gave the same answer (where it was given from — `surface` — and the
/// review's report aside).
pub fn agreed(votes: &[Value]) -> bool {
    let core = |v: &Value| {
        let mut a = v["answer"].as_object().cloned().unwrap_or_default();
        a.remove("surface");
        a.remove("report_text");
        a
    };
    votes.windows(2).all(|w| core(&w[0]) == core(&w[1]))
}

/// The `approvals` member of a result or a view: the stored form with `decided_by` (when
/// `decided`) and `agreed`.
pub fn summary(stored: &Value, decided: bool) -> Value {
    let votes = stored["votes"].as_array().map(Vec::as_slice).unwrap_or(&[]);
    let mut out = Map::new();
    out.insert("required".into(), stored["required"].clone());
    out.insert("from".into(), stored["from"].clone());
    out.insert("votes".into(), json!(votes.len()));
    if decided {
        let by = if votes.last().is_some_and(|v| v["rejects"] == true) {
            "rejection"
        } else {
            "quorum"
        };
        out.insert("decided_by".into(), json!(by));
    }
    out.insert("agreed".into(), json!(agreed(votes)));
    Value::Object(out)
}

/// Puts the votes into a settle's result and record: `votes`, `approvals` ([`summary`]), and
/// in the result's `handling`, what the votes mean in words.
pub fn settled(stored: &Value, decided: bool, result: &mut Value, record: &mut Value) {
    let votes = stored["votes"].clone();
    let summary = summary(stored, decided);
    let words = words(stored, &summary);
    for r in [&mut *result, &mut *record] {
        if let Some(o) = r.as_object_mut() {
            o.insert("votes".into(), votes.clone());
            o.insert("approvals".into(), summary.clone());
        }
    }
    if let Some(o) = result.as_object_mut() {
        let handling = match o.get("handling").and_then(Value::as_str) {
            Some(h) => format!("{words} {h}"),
            None => words,
        };
        o.insert("handling".into(), json!(handling));
    }
}

fn names(votes: &[Value]) -> String {
    votes.iter().map(name).collect::<Vec<_>>().join(", ")
}

/// What the votes mean, for the agent.
fn words(stored: &Value, summary: &Value) -> String {
    let votes = stored["votes"].as_array().map(Vec::as_slice).unwrap_or(&[]);
    let required = stored["required"].as_u64().unwrap_or(1);
    let n = votes.len();
    match summary["decided_by"].as_str() {
        Some("rejection") => format!(
            "APPROVALS: {} rejected, which settles it (any rejection rejects); {n} of {required} votes were in. The answer is that vote; every vote is in votes.",
            votes.last().map_or("?", name)
        ),
        Some(_) if summary["agreed"] == true => format!(
            "APPROVALS: {n} of {required} required members answered ({}) and agree.",
            names(votes)
        ),
        Some(_) => format!(
            "APPROVALS: {n} of {required} required members answered ({}) but DISAGREE: the answer above is {}'s, the vote that completed the quorum. Read every vote in votes before acting.",
            names(votes),
            votes.last().map_or("?", name)
        ),
        None => format!(
            "APPROVALS: the ask ended with {n} of {required} votes in{}; every vote is in votes.",
            if n > 0 {
                format!(" ({})", names(votes))
            } else {
                String::new()
            }
        ),
    }
}

/// The instruction of a pending handle with votes in.
pub fn pending_instruction(stored: &Value) -> String {
    let votes = stored["votes"].as_array().map(Vec::as_slice).unwrap_or(&[]);
    let required = stored["required"].as_u64().unwrap_or(1);
    let by = if votes.is_empty() {
        String::new()
    } else {
        format!(" ({})", names(votes))
    };
    format!(
        "{} of {required} approvals are in{by}. The ask settles when {required} members have answered, or at once when one rejects. Call await_answer with this ask_id to keep waiting; nothing is decided yet.",
        votes.len()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parsed(v: Value, kind: AskKind) -> Result<Option<Approvals>, Vec<Problem>> {
        parse(&Json::from_value(&v), kind)
    }

    fn paths(v: Value) -> Vec<String> {
        parsed(v, AskKind::Questions)
            .unwrap_err()
            .into_iter()
            .map(|p| p.path)
            .collect()
    }

    #[test]
    fn approvals_name_how_many_and_from_whom() {
        let a = parsed(
            json!({"approvals": {"required": 2, "from": ["alice", "Bob"]}}),
            AskKind::Questions,
        )
        .unwrap()
        .unwrap();
        assert_eq!(a.required, 2);
        assert!(a.admits("bob") && !a.admits("carol"));
        let any = parsed(json!({"approvals": {"required": 3}}), AskKind::Review)
            .unwrap()
            .unwrap();
        assert!(any.from.is_none() && any.admits("carol"));
        assert_eq!(Approvals::from_value(&a.to_value()), Some(a));
        assert_eq!(parsed(json!({}), AskKind::Questions).unwrap(), None);
    }

    #[test]
    fn bad_approvals_name_the_field() {
        assert_eq!(paths(json!({"approvals": 2})), ["approvals"]);
        assert_eq!(
            paths(json!({"approvals": {"required": 0}})),
            ["approvals.required"]
        );
        assert_eq!(
            paths(json!({"approvals": {"required": 3, "from": ["a", "b"]}})),
            ["approvals.required"]
        );
        assert_eq!(
            paths(json!({"approvals": {"required": 1, "from": ["a", "A"]}})),
            ["approvals.from[1]"]
        );
        assert_eq!(
            paths(json!({"approvals": {"required": 1, "who": 1}})),
            ["approvals.who"]
        );
        let survey = parsed(json!({"approvals": {"required": 2}}), AskKind::Survey);
        assert_eq!(survey.unwrap_err()[0].code, "approvals_kind");
    }

    fn a_vote(id: &str, fail: u64) -> Value {
        let result = json!({"ask_id": "a", "outcome": "answered", "summary": {"fail": fail}, "items": [{"id": "x", "verdict": if fail > 0 {"fail"} else {"pass"}}]});
        vote(
            AskKind::Review,
            &result,
            &json!({"kind": "member", "id": id, "name": id}),
            "t",
        )
    }

    #[test]
    fn a_rejection_settles_at_once_and_a_quorum_otherwise() {
        let one = with_vote(&[], a_vote("alice", 0));
        assert!(!decides(&one, 2));
        let again = with_vote(&one, a_vote("alice", 0));
        assert_eq!(again.len(), 1, "a member's new vote replaces the old");
        let two = with_vote(&again, a_vote("bob", 0));
        assert!(decides(&two, 2) && agreed(&two));
        let rejected = with_vote(&one, a_vote("bob", 1));
        assert!(decides(&rejected, 3) && !agreed(&rejected));
        let stored = json!({"required": 3, "from": "any", "votes": rejected});
        let (mut result, mut record) = (json!({"handling": "h"}), json!({}));
        settled(&stored, true, &mut result, &mut record);
        assert_eq!(result["approvals"]["decided_by"], "rejection");
        assert_eq!(record["votes"].as_array().unwrap().len(), 2);
        assert!(
            result["handling"]
                .as_str()
                .unwrap()
                .starts_with("APPROVALS: bob rejected")
        );
    }
}

//! `survey_draft_launch` (`survey.md` §10.6): the status step, the gate (valid, complete,
//! grounded), and the launched ask's result shape.

use serde_json::{Value, json};

use super::checklist::{Gap, completeness, grounding};
use super::error::{DraftError, codes};
use super::file::{Grounding, Status};
use crate::json::Json;
use crate::problem::join_messages;
use crate::survey::model::SurveySpec;
use crate::survey::validate::validate;
use crate::vocab::{Outcome, outcome::PENDING};

/// What step 2 of the gate decided from the draft's status.
#[derive(Debug, Clone, PartialEq)]
pub enum LaunchState {
    /// `launched` with a pending ask: wait on it again.
    Attach,
    /// `building` or `reopened`: run the gate.
    Gate,
}

/// Step 2 (status). `launched` attaches only when the ask is still pending (`pending`);
/// the daemon applies a missed settle transition before asking.
pub fn launch_state(
    status: Status,
    slug: &str,
    ask_id: Option<&str>,
    pending: bool,
) -> Result<LaunchState, DraftError> {
    match status {
        Status::Launched if pending => Ok(LaunchState::Attach),
        Status::Launched | Status::Building | Status::Reopened => Ok(LaunchState::Gate),
        Status::Answered => Err(DraftError::new(
            codes::STATE,
            format!(
                "survey_draft_launch refused — draft \"{slug}\" was already answered (ask {}); patch it to launch a revised version",
                ask_id.unwrap_or("unknown")
            ),
        )),
        Status::Discarded => Err(DraftError::new(
            codes::STATE,
            format!(
                "survey_draft_launch refused — draft \"{slug}\" is discarded; patch it to revive it, or begin a new draft"
            ),
        )),
    }
}

fn gap_lines(gaps: &[Gap]) -> String {
    let mut out = String::new();
    for g in gaps {
        out.push_str(&format!("\n- {}: {}", g.id, g.missing.join(", ")));
    }
    out
}

/// Steps 3–5: valid, complete, grounded. Success gives the normal form to ask.
pub fn launch_gate(survey: &Value, mode: Grounding) -> Result<SurveySpec, DraftError> {
    let spec = validate(&Json::from_value(survey)).map_err(|problems| DraftError {
        code: codes::BAD_SPEC,
        message: format!(
            "survey_draft_launch blocked — fix the structure first (op=structure): {}",
            join_messages(&problems)
        ),
        errors: problems,
    })?;
    let c = completeness(survey);
    if !c.ready {
        let mut message = String::from(
            "survey_draft_launch blocked — required fields still missing. Fix them with survey_draft_set op=patch, then relaunch:",
        );
        message.push_str(&gap_lines(&c.incomplete));
        if !c.survey_level.is_empty() {
            message.push_str(&format!("\n- survey: {}", c.survey_level.join(", ")));
        }
        return Err(DraftError::new(codes::INCOMPLETE, message));
    }
    let g = grounding(survey, mode);
    if !g.ready {
        let mut message = String::from(
            "survey_draft_launch blocked by the grounding bar — every option needs a source, and one option per question must cite where its comparison target lives (file path or URL). Fix with survey_draft_set op=patch, then relaunch:",
        );
        message.push_str(&gap_lines(&g.gaps));
        return Err(DraftError::new(codes::UNGROUNDED, message));
    }
    Ok(spec)
}

/// The builder note appended to a pre-flight or superseded instruction of a launched
/// draft (§10.6).
pub fn reopened_note(slug: &str) -> String {
    format!(
        " This survey was launched from the builder draft \"{slug}\", which is now reopened: when you revise it, re-enter the builder loop for this slug (survey_draft_set op=patch, or op=structure while the graph is under the cap, then survey_draft_get, then survey_draft_launch) rather than one-shot a new ask_survey."
    )
}

/// Shapes a launched ask's result for `survey_draft_launch` (§10.6 results): `answered`
/// and `pending` gain `draft`; pre-flight and superseded gain `draft`, `draftReopened` and
/// the builder note; cancelled and aborted errors gain `draft` and `draftReopened`.
pub fn launch_result(mut result: Value, slug: &str) -> Value {
    let Some(o) = result.as_object_mut() else {
        return result;
    };
    let outcome = o
        .get("outcome")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string();
    let settled = Outcome::parse(&outcome);
    match settled {
        Some(Outcome::Answered) => {
            o.insert("draft".into(), json!(slug));
        }
        None if outcome == PENDING => {
            o.insert("draft".into(), json!(slug));
        }
        Some(o2) if o2.is_preflight() || o2 == Outcome::Superseded => {
            if let Some(Value::String(i)) = o.get_mut("instruction") {
                i.push_str(&reopened_note(slug));
            }
            o.insert("draft".into(), json!(slug));
            o.insert("draftReopened".into(), json!(true));
        }
        _ => {
            if let Some(e) = o.get_mut("error").and_then(Value::as_object_mut) {
                e.insert("draft".into(), json!(slug));
                e.insert("draftReopened".into(), json!(true));
            } else {
                o.insert("draft".into(), json!(slug));
            }
        }
    }
    result
}
#[cfg(test)]
mod tests {
    use super::*;
    use crate::survey::draft::test_support::*;
    use crate::survey::draft::{COMPARISON_GAP, launchable};

    // --- launch gate -------------------------------------------------------------------

    #[test]
    fn the_gate_runs_valid_complete_grounded_in_order() {
        // Invalid: a dangling reference.
        let bad = json!({"entry": "nope", "questions": {"q": full_question("Q?")}});
        let e = launch_gate(&bad, Grounding::Standard).unwrap_err();
        assert_eq!(e.code, codes::BAD_SPEC);
        assert!(
            e.message.starts_with(
                "survey_draft_launch blocked — fix the structure first (op=structure): "
            )
        );
        // Incomplete: a stub and a survey-level mark.
        let mut q = full_question("TODO: ask");
        q["options"][1]["insight"] = json!("TODO: write");
        let s = json!({"title": "T", "intro": "TODO", "entry": "q", "questions": {"q": q}});
        let e = launch_gate(&s, Grounding::Standard).unwrap_err();
        assert_eq!(e.code, codes::INCOMPLETE);
        assert_eq!(
            e.message,
            "survey_draft_launch blocked — required fields still missing. Fix them with survey_draft_set op=patch, then relaunch:\n- q: prompt, options[1].insight\n- survey: intro"
        );
        // Ungrounded: complete, but nothing cites a location.
        let mut q = full_question("Q?");
        q["options"][0]["sources"] = json!(["Vendor"]);
        let s = json!({"entry": "q", "questions": {"q": q}});
        let e = launch_gate(&s, Grounding::Standard).unwrap_err();
        assert_eq!(e.code, codes::UNGROUNDED);
        assert_eq!(
            e.message,
            format!(
                "survey_draft_launch blocked by the grounding bar — every option needs a source, and one option per question must cite where its comparison target lives (file path or URL). Fix with survey_draft_set op=patch, then relaunch:\n- q: {COMPARISON_GAP}"
            )
        );
        assert!(launch_gate(&s, Grounding::Internal).is_ok());
        assert!(launchable(&s, Grounding::Internal));
        assert!(!launchable(&s, Grounding::Standard));
    }

    #[test]
    fn launch_states() {
        assert_eq!(
            launch_state(Status::Launched, "s", Some("A"), true).unwrap(),
            LaunchState::Attach
        );
        assert_eq!(
            launch_state(Status::Reopened, "s", Some("A"), false).unwrap(),
            LaunchState::Gate
        );
        let e = launch_state(Status::Answered, "s", Some("A"), false).unwrap_err();
        assert_eq!(e.code, codes::STATE);
        assert_eq!(
            e.message,
            "survey_draft_launch refused — draft \"s\" was already answered (ask A); patch it to launch a revised version"
        );
        let e = launch_state(Status::Discarded, "s", None, false).unwrap_err();
        assert_eq!(
            e.message,
            "survey_draft_launch refused — draft \"s\" is discarded; patch it to revive it, or begin a new draft"
        );
    }

    #[test]
    fn launch_results_carry_the_draft() {
        let r = launch_result(json!({"outcome": "answered", "ask_id": "A"}), "s");
        assert_eq!(r["draft"], "s");
        assert!(r.get("draftReopened").is_none());
        let r = launch_result(
            json!({"outcome": "reroll", "ask_id": "A", "instruction": "Reroll it."}),
            "s",
        );
        assert_eq!(r["draftReopened"], true);
        assert!(
            r["instruction"]
                .as_str()
                .unwrap()
                .starts_with("Reroll it. This survey was launched from the builder draft \"s\"")
        );
        let r = launch_result(
            json!({"outcome": "cancelled", "ask_id": "A", "error": {"code": "SURVEY_CANCELLED"}}),
            "s",
        );
        assert_eq!(r["error"]["draft"], "s");
        assert_eq!(r["error"]["draftReopened"], true);
        let r = launch_result(json!({"outcome": "pending", "ask_id": "A"}), "s");
        assert_eq!(r["draft"], "s");
        assert_eq!(Status::after_settle("answered"), Status::Answered);
        assert_eq!(Status::after_settle("push"), Status::Reopened);
        assert_eq!(Status::after_settle("aborted"), Status::Reopened);
    }
}

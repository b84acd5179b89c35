//! The checklist of `survey_draft_get` (`survey.md` §10.5): the stub rule, completeness,
//! grounding, validation, and whether the launch gate would pass.

use serde::Serialize;
use serde_json::Value;

use super::file::Grounding;
use crate::json::Json;
use crate::problem::{Problem, is_blank};
use crate::survey::validate::validate;

/// Whether text starts with the `TODO` marker: after leading whitespace, `TODO` followed by
/// `:`, whitespace or the end (case-sensitive).
pub fn is_marked(s: &str) -> bool {
    let Some(rest) = s.trim_start().strip_prefix("TODO") else {
        return false;
    };
    match rest.chars().next() {
        None => true,
        Some(c) => c == ':' || c.is_whitespace(),
    }
}

/// The stub rule: not a string, blank, or marked.
pub fn is_stub(v: Option<&Value>) -> bool {
    match v {
        Some(Value::String(s)) => is_blank(s) || is_marked(s),
        _ => true,
    }
}

/// An optional field counts only when it is present, non-blank and marked.
fn optional_marked(v: Option<&Value>) -> bool {
    matches!(v, Some(Value::String(s)) if !is_blank(s) && is_marked(s))
}

fn has_source(o: &Value) -> bool {
    o.get("sources")
        .and_then(Value::as_array)
        .is_some_and(|s| s.iter().any(|x| x.as_str().is_some_and(|x| !is_blank(x))))
}

/// One question's gaps.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Gap {
    pub id: String,
    pub missing: Vec<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Totals {
    pub questions: usize,
    pub complete: usize,
    pub missing_fields: usize,
}

/// The required-field checklist.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Completeness {
    pub ready: bool,
    pub totals: Totals,
    pub incomplete: Vec<Gap>,
    pub survey_level: Vec<String>,
}

fn questions_of(survey: &Value) -> impl Iterator<Item = (&String, &Value)> {
    survey
        .get("questions")
        .and_then(Value::as_object)
        .into_iter()
        .flat_map(|q| q.iter())
}

fn options_of(q: &Value) -> &[Value] {
    q.get("options")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or(&[])
}

/// §10.5 completeness, over whatever the file holds.
pub fn completeness(survey: &Value) -> Completeness {
    let mut incomplete = Vec::new();
    let mut questions = 0;
    let mut missing_fields = 0;
    for (id, q) in questions_of(survey) {
        questions += 1;
        let mut missing = Vec::new();
        if is_stub(q.get("prompt")) {
            missing.push("prompt".to_string());
        }
        let options = options_of(q);
        if options.is_empty() {
            missing.push("options: none declared".to_string());
        }
        for (i, o) in options.iter().enumerate() {
            for f in ["label", "description", "insight"] {
                if is_stub(o.get(f)) {
                    missing.push(format!("options[{i}].{f}"));
                }
            }
            if !has_source(o) {
                missing.push(format!("options[{i}].sources"));
            }
        }
        for f in ["header", "detail"] {
            if optional_marked(q.get(f)) {
                missing.push(f.to_string());
            }
        }
        for (i, o) in options.iter().enumerate() {
            if optional_marked(o.get("diagram")) {
                missing.push(format!("options[{i}].diagram"));
            }
        }
        if !missing.is_empty() {
            missing_fields += missing.len();
            incomplete.push(Gap {
                id: id.clone(),
                missing,
            });
        }
    }
    let mut survey_level = Vec::new();
    for f in ["title", "intro"] {
        if optional_marked(survey.get(f)) {
            survey_level.push(f.to_string());
        }
    }
    if let Some(quick) = survey.get("quick").and_then(Value::as_array) {
        for (t, tpl) in quick.iter().enumerate() {
            if is_stub(tpl.get("label")) {
                survey_level.push(format!("quick[{t}].label"));
            }
            for f in ["description", "insight"] {
                if optional_marked(tpl.get(f)) {
                    survey_level.push(format!("quick[{t}].{f}"));
                }
            }
        }
    }
    missing_fields += survey_level.len();
    let complete = questions - incomplete.len();
    Completeness {
        ready: questions > 0 && incomplete.is_empty() && survey_level.is_empty(),
        totals: Totals {
            questions,
            complete,
            missing_fields,
        },
        incomplete,
        survey_level,
    }
}

/// The grounding check of §10.5.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct GroundingReport {
    pub ready: bool,
    pub mode: Grounding,
    pub gaps: Vec<Gap>,
}

/// The gap text of a question whose options cite no path or URL (standard mode).
pub const COMPARISON_GAP: &str =
    "comparison: no option cites a file path or URL — name where the comparison target lives";

pub fn grounding(survey: &Value, mode: Grounding) -> GroundingReport {
    let mut gaps = Vec::new();
    for (id, q) in questions_of(survey) {
        let options = options_of(q);
        let mut missing = Vec::new();
        for (i, o) in options.iter().enumerate() {
            if !has_source(o) {
                missing.push(format!("options[{i}].sources"));
            }
        }
        let cites_location = options.iter().any(|o| {
            o.get("sources").and_then(Value::as_array).is_some_and(|s| {
                s.iter()
                    .filter_map(Value::as_str)
                    .any(|x| x.contains(['/', '\\']))
            })
        });
        if mode == Grounding::Standard && !options.is_empty() && !cites_location {
            missing.push(COMPARISON_GAP.to_string());
        }
        if !missing.is_empty() {
            gaps.push(Gap {
                id: id.clone(),
                missing,
            });
        }
    }
    GroundingReport {
        ready: gaps.is_empty(),
        mode,
        gaps,
    }
}

/// §4 on the current file: `{ok, errors}`.
pub fn validation(survey: &Value) -> (bool, Vec<Problem>) {
    match validate(&Json::from_value(survey)) {
        Ok(_) => (true, Vec::new()),
        Err(p) => (false, p),
    }
}

/// The manifest's `ready`: the launch gate would pass (valid, complete, grounded).
pub fn launchable(survey: &Value, mode: Grounding) -> bool {
    validation(survey).0 && completeness(survey).ready && grounding(survey, mode).ready
}
#[cfg(test)]
mod tests {
    use super::*;
    use crate::survey::draft::begin;
    use crate::survey::draft::test_support::*;
    use serde_json::json;

    // --- checklist ---------------------------------------------------------------------

    #[test]
    fn the_stub_rule() {
        for stub in ["TODO: stance", "TODO", "  TODO x", "", "   "] {
            assert!(is_stub(Some(&json!(stub))), "{stub:?}");
        }
        for fine in ["TODOs for Q3?", "Todo: x", "Do TODO: later"] {
            assert!(!is_stub(Some(&json!(fine))), "{fine:?}");
        }
        assert!(is_stub(None));
        assert!(is_stub(Some(&json!(3))));
    }

    #[test]
    fn a_fresh_skeleton_of_one_question_misses_21_fields() {
        let s = begin(&args(json!({"survey": {"entry": "q1", "questions": {
            "q1": {"options": keys5()}}}})))
        .unwrap()
        .survey;
        let c = completeness(&s);
        assert_eq!(
            c.totals,
            Totals {
                questions: 1,
                complete: 0,
                missing_fields: 21
            }
        );
        assert!(!c.ready);
        assert_eq!(
            &c.incomplete[0].missing[..5],
            [
                "prompt",
                "options[0].label",
                "options[0].description",
                "options[0].insight",
                "options[0].sources"
            ]
        );
    }

    #[test]
    fn completeness_orders_optional_marks_and_survey_level() {
        let mut q = full_question("Fine?");
        q["header"] = json!("TODO: chip");
        q["detail"] = json!("Real detail");
        q["options"][3]["diagram"] = json!("TODO");
        let s = json!({"title": "TODO: name", "intro": "TODO: write", "entry": "q",
            "questions": {"q": q, "free": {"prompt": "Say?"}},
            "quick": [{"key": "a", "label": "TODO: x", "description": "TODO: y", "insight": "ok", "answers": {}}]});
        let c = completeness(&s);
        assert_eq!(
            c.incomplete,
            vec![
                Gap {
                    id: "q".into(),
                    missing: vec!["header".into(), "options[3].diagram".into()]
                },
                Gap {
                    id: "free".into(),
                    missing: vec!["options: none declared".into()]
                }
            ]
        );
        assert_eq!(
            c.survey_level,
            ["title", "intro", "quick[0].label", "quick[0].description"]
        );
        assert_eq!(c.totals.missing_fields, 7);
        assert_eq!(c.totals.complete, 0);
        let done = completeness(&json!({"entry": "q", "questions": {"q": full_question("Fine?")}}));
        assert!(done.ready);
        assert_eq!(done.totals.complete, 1);
        assert!(!completeness(&json!({"entry": "q", "questions": {}})).ready);
    }

    #[test]
    fn grounding_standard_and_internal() {
        let mut q = full_question("Q?");
        for o in q["options"].as_array_mut().unwrap() {
            o["sources"] = json!(["Vendor handbook"]);
        }
        q["options"][4]["sources"] = json!(["  "]);
        let s = json!({"entry": "q", "questions": {"q": q}});
        let g = grounding(&s, Grounding::Standard);
        assert!(!g.ready);
        assert_eq!(
            g.gaps[0].missing,
            ["options[4].sources".to_string(), COMPARISON_GAP.to_string()]
        );
        let g = grounding(&s, Grounding::Internal);
        assert_eq!(g.gaps[0].missing, ["options[4].sources"]);
        let ok = json!({"entry": "q", "questions": {"q": full_question("Q?")}});
        assert!(grounding(&ok, Grounding::Standard).ready);
        let mut win = full_question("Q?");
        win["options"][0]["sources"] = json!(["C:\\repo\\file.rs"]);
        for i in 1..5 {
            win["options"][i]["sources"] = json!(["name"]);
        }
        assert!(
            grounding(
                &json!({"entry": "q", "questions": {"q": win}}),
                Grounding::Standard
            )
            .ready
        );
    }
}

//! What every edit shares (`survey.md` §10.4): stub-in, the full validation, the edited
//! result, `op=begin`, the stored draft an edit targets, and the launched refusal.

use serde_json::{Map, Value, json};

use super::args::{Op, parse_title, survey_arg};
use super::error::{DraftError, codes};
use super::file::{DEFAULT_TITLE, Status};
use crate::json::Json;
use crate::problem::{is_blank, join_messages};
use crate::survey::validate::validate;

/// Stub-in (§10.4 step 3), in place: `null` fields go (except `next`) at the survey,
/// question and option levels; a missing or blank prompt becomes `TODO: prompt for ‹id›`,
/// a missing or blank option label `TODO: label ‹i+1›`; an absent survey title becomes
/// `draft_title`.
pub fn stub_in(survey: &mut Value, draft_title: &str) {
    let Some(s) = survey.as_object_mut() else {
        return;
    };
    s.retain(|k, v| k == "next" || !v.is_null());
    if !s.contains_key("title") {
        s.insert("title".into(), json!(draft_title));
    }
    let Some(questions) = s.get_mut("questions").and_then(Value::as_object_mut) else {
        return;
    };
    for (id, q) in questions.iter_mut() {
        let Some(q) = q.as_object_mut() else { continue };
        q.retain(|k, v| k == "next" || !v.is_null());
        let blank = match q.get("prompt") {
            None => true,
            Some(Value::String(p)) => is_blank(p),
            Some(_) => false,
        };
        if blank {
            q.insert("prompt".into(), json!(format!("TODO: prompt for {id}")));
        }
        let Some(options) = q.get_mut("options").and_then(Value::as_array_mut) else {
            continue;
        };
        for (i, o) in options.iter_mut().enumerate() {
            let Some(o) = o.as_object_mut() else { continue };
            o.retain(|k, v| k == "next" || !v.is_null());
            let blank = match o.get("label") {
                None => true,
                Some(Value::String(l)) => is_blank(l),
                Some(_) => false,
            };
            if blank {
                o.insert("label".into(), json!(format!("TODO: label {}", i + 1)));
            }
        }
    }
}

/// §10.4 step 4: the full §4 validation; success gives the normal form to store.
pub fn check(survey: &Value, op: Op) -> Result<Value, DraftError> {
    match validate(&Json::from_value(survey)) {
        Ok(spec) => Ok(serde_json::to_value(&spec).unwrap_or(Value::Null)),
        Err(problems) => Err(DraftError {
            code: codes::BAD_SPEC,
            message: format!(
                "survey_draft_set {} failed: invalid draft structure: {} (nothing was written — fix the reported fields and re-send)",
                op.as_str(),
                join_messages(&problems)
            ),
            errors: problems,
        }),
    }
}

/// What an edit produced: the survey to store (normal form) and the draft title, which is
/// the survey's title.
#[derive(Debug, Clone, PartialEq)]
pub struct Edited {
    pub survey: Value,
    pub title: String,
}

pub(super) fn finish(mut survey: Value, draft_title: &str, op: Op) -> Result<Edited, DraftError> {
    stub_in(&mut survey, draft_title);
    let survey = check(&survey, op)?;
    let title = survey
        .get("title")
        .and_then(Value::as_str)
        .unwrap_or(draft_title)
        .to_string();
    Ok(Edited { survey, title })
}

/// `op=begin`: the skeleton, stubbed in and validated. The title is the `title` argument,
/// else the survey's own, else [`DEFAULT_TITLE`]; a `title` argument also titles the survey.
pub fn begin(args: &Map<String, Value>) -> Result<Edited, DraftError> {
    let mut survey = survey_arg(args, Op::Begin)?;
    let title = match parse_title(args)? {
        Some(t) => {
            survey.insert("title".into(), json!(t));
            t
        }
        None => survey
            .get("title")
            .and_then(Value::as_str)
            .filter(|t| !is_blank(t))
            .unwrap_or(DEFAULT_TITLE)
            .to_string(),
    };
    finish(Value::Object(survey), &title, Op::Begin)
}

/// What a patch or structure edit needs to know about the stored draft.
#[derive(Debug, Clone, Copy)]
pub struct Target<'a> {
    pub slug: &'a str,
    pub title: &'a str,
    pub status: Status,
    pub ask_id: Option<&'a str>,
    /// `structureQuestionCap`.
    pub cap: usize,
}

/// The refusal of an edit or discard of a launched draft (§10.7).
pub fn launched_refusal(slug: &str, ask_id: Option<&str>) -> DraftError {
    DraftError::new(
        codes::STATE,
        format!(
            "draft \"{slug}\" is launched and waiting for the user (ask {}) — wait for the result with await_answer before editing or discarding it",
            ask_id.unwrap_or("unknown")
        ),
    )
}

pub(super) fn question_count(survey: &Value) -> usize {
    survey
        .get("questions")
        .and_then(Value::as_object)
        .map_or(0, Map::len)
}

/// Overwrites `target`'s members with `patch`'s, except `skip`; `null` deletes.
pub(super) fn overwrite(
    target: &mut Map<String, Value>,
    patch: &Map<String, Value>,
    skip: &[&str],
) {
    for (k, v) in patch {
        if skip.contains(&k.as_str()) {
            continue;
        }
        if v.is_null() {
            target.shift_remove(k);
        } else {
            target.insert(k.clone(), v.clone());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::survey::draft::test_support::*;

    // --- stub-in and begin -------------------------------------------------------------

    #[test]
    fn stub_in_fills_prompts_labels_and_title_and_drops_nulls_except_next() {
        let mut s = json!({"intro": null, "entry": "q1", "questions": {
            "q1": {"prompt": "  ", "header": null, "next": null,
                   "options": [{"key": "a", "label": "", "description": null, "next": null}, {"key": "b"}]}
        }});
        stub_in(&mut s, "My draft");
        assert_eq!(
            s,
            json!({"entry": "q1", "questions": {
                "q1": {"prompt": "TODO: prompt for q1", "next": null,
                       "options": [{"key": "a", "label": "TODO: label 1", "next": null},
                                   {"key": "b", "label": "TODO: label 2"}]}
            }, "title": "My draft"})
        );
        // A present title is kept.
        let mut t = json!({"title": "Own", "entry": "q", "questions": {}});
        stub_in(&mut t, "Draft");
        assert_eq!(t["title"], "Own");
    }

    #[test]
    fn begin_stubs_validates_and_titles() {
        let e = begin(&args(
            json!({"survey": skeleton(), "title": "API Deprecation Survey"}),
        ))
        .unwrap();
        assert_eq!(e.title, "API Deprecation Survey");
        assert_eq!(e.survey["title"], "API Deprecation Survey");
        assert_eq!(e.survey["questions"]["q1"]["prompt"], "TODO: prompt for q1");
        assert_eq!(
            e.survey["questions"]["q1"]["options"][4]["next"],
            Value::Null
        );
        assert!(
            e.survey["questions"]["q1"]["options"][4]
                .as_object()
                .unwrap()
                .contains_key("next"),
            "next: null is kept as written"
        );
        // Default title.
        let d = begin(&args(json!({"survey": skeleton()}))).unwrap();
        assert_eq!(d.title, DEFAULT_TITLE);
        // The survey as JSON text (§3 step 5).
        let text = begin(&args(json!({"survey": skeleton().to_string()}))).unwrap();
        assert_eq!(text.survey, d.survey);
    }

    #[test]
    fn begin_requires_a_survey_and_validates_in_full() {
        let e = begin(&args(json!({"title": "x"}))).unwrap_err();
        assert_eq!(e.code, codes::BAD_OP);
        assert_eq!(
            e.message,
            "survey_draft_set op=begin requires survey {entry, questions}"
        );
        // Fewer than five options fails §4.
        let e = begin(&args(json!({"survey": {"entry": "q1", "questions": {
            "q1": {"options": [{"key": "a"}]}}}})))
        .unwrap_err();
        assert_eq!(e.code, codes::BAD_SPEC);
        assert!(
            e.message
                .starts_with("survey_draft_set begin failed: invalid draft structure: ")
        );
        assert!(
            e.message
                .ends_with("(nothing was written — fix the reported fields and re-send)")
        );
        assert!(!e.errors.is_empty());
    }
}

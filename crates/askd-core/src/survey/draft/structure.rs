//! `op=structure` (`survey.md` §10.4): the whole graph replaced under the exclusive cap,
//! with prose carried over by question id and option key.

use serde_json::{Map, Value, json};

use super::args::{Op, parse_title, survey_arg};
use super::edit::{Edited, Target, finish, launched_refusal};
use super::error::DraftError;
use super::file::Status;

/// `structureQuestionCap`: default and bounds (§10.4). The cap is exclusive.
pub const STRUCTURE_CAP_DEFAULT: usize = 40;
pub const STRUCTURE_CAP_MIN: usize = 1;
pub const STRUCTURE_CAP_MAX: usize = 151;
/// Question fields a patch overwrites and structure carries over.
const QUESTION_PROSE: &[&str] = &[
    "prompt",
    "header",
    "detail",
    "multiSelect",
    "allowCustom",
    "skippable",
];
/// Option fields structure carries over.
const OPTION_PROSE: &[&str] = &[
    "label",
    "description",
    "insight",
    "diagram",
    "sources",
    "recommended",
];

/// `op=structure`: the whole graph replaced under the exclusive cap, with prose carried
/// over by question id and option key; `intro` and `quick` kept when absent.
pub fn structure(
    stored: &Value,
    args: &Map<String, Value>,
    t: Target,
) -> Result<Edited, DraftError> {
    let incoming = survey_arg(args, Op::Structure)?;
    let n = incoming
        .get("questions")
        .and_then(Value::as_object)
        .map_or(0, Map::len);
    if n >= t.cap {
        return Err(DraftError::bad_op(format!(
            "structure refused: the incoming graph has {n} questions and the cap is {} (drafts freeze for structure edits at the cap) — content patches continue to work",
            t.cap
        )));
    }
    if t.status == Status::Launched {
        return Err(launched_refusal(t.slug, t.ask_id));
    }
    let title = parse_title(args)?;
    let mut survey = incoming;
    for member in ["title", "intro", "quick"] {
        if !survey.contains_key(member)
            && let Some(v) = stored.get(member)
        {
            survey.insert(member.into(), v.clone());
        }
    }
    if let Some(title) = &title {
        survey.insert("title".into(), json!(title));
    }
    let stored_questions = stored.get("questions").and_then(Value::as_object);
    if let (Some(qs), Some(old_qs)) = (
        survey.get_mut("questions").and_then(Value::as_object_mut),
        stored_questions,
    ) {
        for (id, q) in qs.iter_mut() {
            let (Some(q), Some(old)) =
                (q.as_object_mut(), old_qs.get(id).and_then(Value::as_object))
            else {
                continue;
            };
            carry(q, old, QUESTION_PROSE);
            let old_options = old.get("options").and_then(Value::as_array);
            let (Some(options), Some(old_options)) = (
                q.get_mut("options").and_then(Value::as_array_mut),
                old_options,
            ) else {
                continue;
            };
            for o in options.iter_mut().filter_map(Value::as_object_mut) {
                let Some(key) = o.get("key").filter(|k| k.is_string()) else {
                    continue;
                };
                if let Some(old_o) = old_options
                    .iter()
                    .filter_map(Value::as_object)
                    .find(|old_o| old_o.get("key") == Some(key))
                {
                    carry(o, old_o, OPTION_PROSE);
                }
            }
        }
    }
    let draft_title = title.as_deref().unwrap_or(t.title);
    finish(Value::Object(survey), draft_title, Op::Structure)
}

/// Copies `fields` the incoming object omits (absent, not `null`) from the stored one.
fn carry(into: &mut Map<String, Value>, from: &Map<String, Value>, fields: &[&str]) {
    for f in fields {
        if !into.contains_key(*f)
            && let Some(v) = from.get(*f)
        {
            into.insert((*f).to_string(), v.clone());
        }
    }
}
#[cfg(test)]
mod tests {
    use super::*;
    use crate::survey::draft::test_support::*;
    use crate::survey::draft::{codes, patch};

    // --- structure ---------------------------------------------------------------------

    #[test]
    fn structure_replaces_the_graph_and_carries_prose_over() {
        let mut stored = begun();
        stored["intro"] = json!("Kept intro");
        stored["questions"]["q2"]["prompt"] = json!("Stored prompt");
        stored["questions"]["q2"]["options"][1]["insight"] = json!("Stored insight");
        let e = structure(
            &stored,
            &args(json!({"survey": {"entry": "q2", "questions": {
                "q2": {"options": [{"key": "b"}, {"key": "a", "label": "New label"},
                                   {"key": "c"}, {"key": "d"}, {"key": "x", "next": "q3"}]},
                "q3": {"header": null, "options": keys5()}
            }}})),
            target("api"),
        )
        .unwrap();
        let s = &e.survey;
        assert_eq!(s["entry"], "q2");
        assert_eq!(s["intro"], "Kept intro");
        assert_eq!(s["title"], "API Deprecation Survey");
        let ids: Vec<&String> = s["questions"].as_object().unwrap().keys().collect();
        assert_eq!(ids, ["q2", "q3"]);
        let q2 = &s["questions"]["q2"];
        assert_eq!(q2["prompt"], "Stored prompt");
        assert_eq!(q2["options"][0]["key"], "b");
        assert_eq!(q2["options"][0]["insight"], "Stored insight");
        assert_eq!(q2["options"][1]["label"], "New label");
        assert_eq!(q2["options"][4]["next"], "q3");
        assert_eq!(s["questions"]["q3"]["prompt"], "TODO: prompt for q3");
    }

    #[test]
    fn structure_cap_is_exclusive_and_launched_refuses() {
        let stored = begun();
        let two = json!({"survey": skeleton()});
        let e = structure(
            &stored,
            &args(two.clone()),
            Target {
                cap: 2,
                ..target("api")
            },
        )
        .unwrap_err();
        assert_eq!(e.code, codes::BAD_OP);
        assert_eq!(
            e.message,
            "structure refused: the incoming graph has 2 questions and the cap is 2 (drafts freeze for structure edits at the cap) — content patches continue to work"
        );
        structure(
            &stored,
            &args(two.clone()),
            Target {
                cap: 3,
                ..target("api")
            },
        )
        .unwrap();
        let e = structure(
            &stored,
            &args(two),
            Target {
                status: Status::Launched,
                ..target("api")
            },
        )
        .unwrap_err();
        assert_eq!(e.code, codes::STATE);
        let e = structure(&stored, &args(json!({})), target("api")).unwrap_err();
        assert_eq!(
            e.message,
            "survey_draft_set op=structure requires survey {entry, questions}"
        );
    }

    #[test]
    fn structure_replaces_or_deletes_intro_and_revalidates_kept_quick() {
        let stored = patch(
            &begun(),
            &args(json!({"quick": [{"key": "a", "label": "All",
                "answers": {"q1": {"selected": ["a"]}, "q2": {"selected": ["b"]}}}],
                "intro": "Old"})),
            target("api"),
        )
        .unwrap()
        .survey;
        let e = structure(
            &stored,
            &args(
                json!({"survey": {"intro": null, "entry": "q1", "questions": {
                "q1": {"options": keys5()}}}}),
            ),
            target("api"),
        )
        .unwrap_err();
        // The kept quick template now answers q2, which no longer exists.
        assert_eq!(e.code, codes::BAD_SPEC);
        let ok = structure(
            &stored,
            &args(
                json!({"survey": {"intro": null, "quick": null, "entry": "q1", "questions": {
                "q1": {"options": keys5()}}}}),
            ),
            target("api"),
        )
        .unwrap();
        assert!(ok.survey.get("intro").is_none() && ok.survey.get("quick").is_none());
    }
}

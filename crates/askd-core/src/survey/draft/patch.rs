//! `op=patch` (`survey.md` §10.4): prose only, merged by question id and option key or
//! index; the refusals in their order.

use serde_json::{Map, Value, json};

use super::args::{Op, kind, parse_title};
use super::edit::{Edited, Target, finish, launched_refusal, overwrite, question_count};
use super::error::DraftError;
use super::file::Status;

/// Questions per `op=patch` call (§2.6).
pub const PATCH_MAX_QUESTIONS: usize = 3;

/// `op=patch` (prose only): the refusals in the order of §10.4, then the merge by key or
/// index, stub-in and validation.
pub fn patch(stored: &Value, args: &Map<String, Value>, t: Target) -> Result<Edited, DraftError> {
    // 1. Nothing to do.
    if !["questions", "intro", "quick", "title", "grounding"]
        .iter()
        .any(|k| args.contains_key(*k))
    {
        return Err(DraftError::bad_op(
            "patch carries nothing — provide questions, intro, and/or quick",
        ));
    }
    // 2. At most three questions.
    let questions = match args.get("questions") {
        None | Some(Value::Null) => None,
        Some(Value::Object(q)) => Some(q),
        Some(other) => {
            return Err(DraftError::bad_op(format!(
                "questions must be an object of question id → question patch, got {}",
                kind(other)
            )));
        }
    };
    if let Some(q) = questions
        && q.len() > PATCH_MAX_QUESTIONS
    {
        return Err(DraftError::bad_op(format!(
            "patch carries {} questions — at most {PATCH_MAX_QUESTIONS} per call (keep each payload small)",
            q.len()
        )));
    }
    // 3–4. intro and quick types.
    let intro = args.get("intro");
    if intro.is_some_and(|v| !v.is_null() && !v.is_string()) {
        return Err(DraftError::bad_op(
            "intro must be a string (markdown first page)",
        ));
    }
    let quick = args.get("quick");
    if quick.is_some_and(|v| !v.is_null() && !v.is_array()) {
        return Err(DraftError::bad_op(
            "quick must be an array of template objects (same shape as ask_survey quick)",
        ));
    }
    let title = parse_title(args)?;
    // 5. State.
    if t.status == Status::Launched {
        return Err(launched_refusal(t.slug, t.ask_id));
    }
    let mut survey = stored.clone();
    if !survey.is_object() {
        survey = json!({});
    }
    let s = survey.as_object_mut().expect("an object");
    // 6. Known ids only.
    let stored_questions = stored.get("questions").and_then(Value::as_object);
    if let Some(q) = questions {
        for id in q.keys() {
            if !stored_questions.is_some_and(|sq| sq.contains_key(id)) {
                return Err(DraftError::bad_op(format!(
                    "patch names question \"{id}\" which does not exist in draft \"{}\" — add it via the structure op",
                    t.slug
                )));
            }
        }
    }
    let frozen = question_count(stored) >= t.cap;
    let rewire = |place: String| {
        let mut m = format!(
            "patch is prose-only — \"{place}.next\" would rewire the graph; rewire with op=structure"
        );
        if frozen {
            m.push_str(&format!(
                " (structure edits are frozen: the draft has {} questions and the cap is {} — content patches still work)",
                question_count(stored),
                t.cap
            ));
        }
        DraftError::bad_op(m)
    };
    if let Some(q) = questions {
        for (id, p) in q {
            let Some(p) = p.as_object() else {
                return Err(DraftError::bad_op(format!(
                    "patch for \"{id}\" must be an object of question fields, got {}",
                    kind(p)
                )));
            };
            let Some(target) = s
                .get_mut("questions")
                .and_then(Value::as_object_mut)
                .and_then(|qs| qs.get_mut(id))
                .and_then(Value::as_object_mut)
            else {
                return Err(DraftError::bad_op(format!(
                    "patch names question \"{id}\" which is not an object in draft \"{}\" — fix it via the structure op",
                    t.slug
                )));
            };
            if let Some(next) = p.get("next")
                && target.get("next") != Some(next)
            {
                return Err(rewire(id.clone()));
            }
            overwrite(target, p, &["next", "options"]);
            match p.get("options") {
                None => {}
                Some(Value::Null) => {
                    return Err(DraftError::bad_op(format!(
                        "patch for \"{id}\": options cannot be deleted by a patch — remove options with op=structure"
                    )));
                }
                Some(Value::Array(entries)) => merge_options(id, target, entries, &rewire)?,
                Some(other) => {
                    return Err(DraftError::bad_op(format!(
                        "patch for \"{id}\": options must be an array of option objects, got {}",
                        kind(other)
                    )));
                }
            }
        }
    }
    match intro {
        Some(Value::Null) => {
            s.shift_remove("intro");
        }
        Some(v) => {
            s.insert("intro".into(), v.clone());
        }
        None => {}
    }
    match quick {
        Some(Value::Null) => {
            s.shift_remove("quick");
        }
        Some(v) => {
            s.insert("quick".into(), v.clone());
        }
        None => {}
    }
    if let Some(title) = &title {
        s.insert("title".into(), json!(title));
    }
    let draft_title = title.as_deref().unwrap_or(t.title);
    finish(survey, draft_title, Op::Patch)
}

/// The option merge of a patch: by key when every entry has one, by index when none has.
fn merge_options(
    id: &str,
    question: &mut Map<String, Value>,
    entries: &[Value],
    rewire: &dyn Fn(String) -> DraftError,
) -> Result<(), DraftError> {
    let mut objects = Vec::with_capacity(entries.len());
    for (i, e) in entries.iter().enumerate() {
        match e.as_object() {
            Some(o) => objects.push(o),
            None => {
                return Err(DraftError::bad_op(format!(
                    "patch for \"{id}\": options[{i}] must be an object"
                )));
            }
        }
    }
    let keyed = objects
        .iter()
        .filter(|o| o.get("key").is_some_and(|k| !k.is_null()))
        .count();
    if keyed != 0 && keyed != objects.len() {
        return Err(DraftError::bad_op(format!(
            "patch for \"{id}\" mixes keyed and keyless option entries — give every entry its key"
        )));
    }
    let mut list: Vec<Value> = question
        .get("options")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    for (i, entry) in objects.into_iter().enumerate() {
        let at = if keyed > 0 {
            let key = &entry["key"];
            list.iter().position(|o| o.get("key") == Some(key))
        } else {
            (i < list.len()).then_some(i)
        };
        match at {
            Some(at) => {
                let slot = &mut list[at];
                if !slot.is_object() {
                    *slot = json!({});
                }
                let target = slot.as_object_mut().expect("an object");
                if let Some(next) = entry.get("next")
                    && target.get("next") != Some(next)
                {
                    return Err(rewire(format!("{id}.options[{at}]")));
                }
                overwrite(target, entry, &["next", "key"]);
            }
            None => {
                if entry.contains_key("next") {
                    return Err(rewire(format!("{id}.options[{}]", list.len())));
                }
                let mut fresh = Map::new();
                overwrite(&mut fresh, entry, &[]);
                list.push(Value::Object(fresh));
            }
        }
    }
    question.insert("options".into(), Value::Array(list));
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::survey::draft::codes;
    use crate::survey::draft::test_support::*;

    // --- patch -------------------------------------------------------------------------

    #[test]
    fn patch_refusals_in_order() {
        let stored = begun();
        let t = target("api");
        let msg = |a: Value| patch(&stored, &args(a), t).unwrap_err();
        let e = msg(json!({"op": "patch"}));
        assert_eq!(
            e.message,
            "patch carries nothing — provide questions, intro, and/or quick"
        );
        let e = msg(json!({"questions": {"q1": {}, "q2": {}, "q3": {}, "q4": {}}}));
        assert_eq!(
            e.message,
            "patch carries 4 questions — at most 3 per call (keep each payload small)"
        );
        assert_eq!(
            msg(json!({"intro": 3})).message,
            "intro must be a string (markdown first page)"
        );
        assert_eq!(
            msg(json!({"quick": {}})).message,
            "quick must be an array of template objects (same shape as ask_survey quick)"
        );
        let launched = Target {
            status: Status::Launched,
            ask_id: Some("A1"),
            ..t
        };
        let e = patch(&stored, &args(json!({"intro": "x"})), launched).unwrap_err();
        assert_eq!(e.code, codes::STATE);
        assert_eq!(
            e.message,
            "draft \"api\" is launched and waiting for the user (ask A1) — wait for the result with await_answer before editing or discarding it"
        );
        let e = msg(json!({"questions": {"q9": {"prompt": "x"}}}));
        assert_eq!(
            e.message,
            "patch names question \"q9\" which does not exist in draft \"api\" — add it via the structure op"
        );
        // Every refusal is BAD_OP except the state.
        assert_eq!(msg(json!({"quick": 1})).code, codes::BAD_OP);
    }

    #[test]
    fn patch_merges_by_key_wherever_the_option_sits_and_appends_unknown_keys() {
        let stored = begun();
        let e = patch(
            &stored,
            &args(
                json!({"questions": {"q1": {"prompt": "Which path?", "options": [
                    {"key": "c", "label": "Third", "sources": ["a/b.md"]},
                    {"key": "a", "description": "First one."},
                    {"key": "f", "label": "Sixth"}
                ]}}}),
            ),
            target("api"),
        )
        .unwrap();
        let q1 = &e.survey["questions"]["q1"];
        assert_eq!(q1["prompt"], "Which path?");
        assert_eq!(q1["options"][2]["label"], "Third");
        assert_eq!(q1["options"][2]["sources"], json!(["a/b.md"]));
        assert_eq!(q1["options"][0]["description"], "First one.");
        assert_eq!(q1["options"][0]["next"], "q2", "wiring untouched");
        assert_eq!(q1["options"][5]["key"], "f");
        assert_eq!(q1["options"][5]["label"], "Sixth");
        assert_eq!(q1["options"].as_array().unwrap().len(), 6);
    }

    #[test]
    fn patch_merges_by_index_over_the_longer_list() {
        let stored = begun();
        let e = patch(
            &stored,
            &args(json!({"questions": {"q2": {"options": [
                {"label": "Zero"}, {"label": "One", "insight": "x"}
            ]}}})),
            target("api"),
        )
        .unwrap();
        let opts = e.survey["questions"]["q2"]["options"].as_array().unwrap();
        assert_eq!(opts.len(), 5, "a shorter patch leaves the tail");
        assert_eq!(opts[0]["label"], "Zero");
        assert_eq!(opts[0]["key"], "a");
        assert_eq!(opts[1]["insight"], "x");
        assert_eq!(opts[4]["label"], "TODO: label 5");
    }

    #[test]
    fn patch_null_deletes_and_sources_replace() {
        let mut stored = begun();
        stored["questions"]["q2"]["header"] = json!("Chip");
        stored["questions"]["q2"]["options"][0]["sources"] = json!(["one", "two"]);
        stored["questions"]["q2"]["options"][0]["description"] = json!("Desc.");
        stored["intro"] = json!("Old intro");
        let e = patch(
            &stored,
            &args(
                json!({"intro": null, "questions": {"q2": {"header": null, "prompt": null,
                "options": [{"key": "a", "sources": ["three"], "description": null}]}}}),
            ),
            target("api"),
        )
        .unwrap();
        let q2 = &e.survey["questions"]["q2"];
        assert!(q2.get("header").is_none());
        assert_eq!(
            q2["prompt"], "TODO: prompt for q2",
            "a deleted prompt is stubbed"
        );
        assert_eq!(q2["options"][0]["sources"], json!(["three"]));
        assert!(q2["options"][0].get("description").is_none());
        assert!(e.survey.get("intro").is_none());
    }

    #[test]
    fn patch_keeps_an_equal_next_and_refuses_a_rewire() {
        let stored = begun();
        // Equal values are no-ops, including `next: null` as written.
        patch(
            &stored,
            &args(json!({"questions": {"q1": {"options": [
                {"key": "a", "next": "q2"}, {"key": "e", "next": null}]}}})),
            target("api"),
        )
        .unwrap();
        let e = patch(
            &stored,
            &args(json!({"questions": {"q1": {"options": [{"key": "b", "next": "q2"}]}}})),
            target("api"),
        )
        .unwrap_err();
        assert_eq!(e.code, codes::BAD_OP);
        assert_eq!(
            e.message,
            "patch is prose-only — \"q1.options[1].next\" would rewire the graph; rewire with op=structure"
        );
        let e = patch(
            &stored,
            &args(json!({"questions": {"q2": {"next": "q1"}}})),
            target("api"),
        )
        .unwrap_err();
        assert!(
            e.message.contains("\"q2.next\" would rewire"),
            "{}",
            e.message
        );
        // An appended option must not carry a next.
        let e = patch(
            &stored,
            &args(json!({"questions": {"q1": {"options": [{"key": "z", "next": null}]}}})),
            target("api"),
        )
        .unwrap_err();
        assert!(
            e.message.contains("\"q1.options[5].next\""),
            "{}",
            e.message
        );
        // At the cap the message says structure is frozen.
        let frozen = Target {
            cap: 2,
            ..target("api")
        };
        let e = patch(
            &stored,
            &args(json!({"questions": {"q2": {"next": "q1"}}})),
            frozen,
        )
        .unwrap_err();
        assert!(e.message.ends_with(
            " (structure edits are frozen: the draft has 2 questions and the cap is 2 — content patches still work)"
        ), "{}", e.message);
    }

    #[test]
    fn patch_refuses_mixed_and_non_object_option_entries() {
        let stored = begun();
        let e = patch(
            &stored,
            &args(json!({"questions": {"q2": {"options": [{"key": "a"}, {"label": "x"}]}}})),
            target("api"),
        )
        .unwrap_err();
        assert_eq!(
            e.message,
            "patch for \"q2\" mixes keyed and keyless option entries — give every entry its key"
        );
        let e = patch(
            &stored,
            &args(json!({"questions": {"q2": {"options": [{"key": "a"}, 3]}}})),
            target("api"),
        )
        .unwrap_err();
        assert_eq!(e.message, "patch for \"q2\": options[1] must be an object");
    }

    #[test]
    fn patch_sets_intro_quick_title_and_checks_quick_coverage_at_once() {
        let stored = begun();
        let e = patch(
            &stored,
            &args(json!({"title": "Renamed", "intro": "Why now."})),
            target("api"),
        )
        .unwrap();
        assert_eq!(e.title, "Renamed");
        assert_eq!(e.survey["title"], "Renamed");
        assert_eq!(e.survey["intro"], "Why now.");
        // A template that misses a reached question fails coverage now, not at launch.
        let e = patch(
            &stored,
            &args(json!({"quick": [{"key": "a", "label": "All in",
                "answers": {"q1": {"selected": ["a"]}}}]})),
            target("api"),
        )
        .unwrap_err();
        assert_eq!(e.code, codes::BAD_SPEC);
        let ok = patch(
            &stored,
            &args(json!({"quick": [{"key": "a", "label": "All in",
                "answers": {"q1": {"selected": ["a"]}, "q2": {"selected": ["b"]}}}]})),
            target("api"),
        )
        .unwrap();
        assert_eq!(ok.survey["quick"][0]["key"], "a");
        let gone = patch(&ok.survey, &args(json!({"quick": null})), target("api")).unwrap();
        assert!(gone.survey.get("quick").is_none());
    }
}

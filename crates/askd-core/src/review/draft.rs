//! The draft (autosave) of a review: the reviewer's unsubmitted verdicts and notes, saved by
//! every surface (`review.md` §5.1). Sanitised against the review, never rejected unless the
//! body is not an object; a draft never settles anything.
//!
//! Body (and stored form): `{"v": 1, "answers": {"<id>": {"verdict": "…", "note": "…"}}}`.
//! `answers` may also be an array of `{id, verdict?, selected?, note?}` entries (the submit
//! shape). Kept: known ids only; a verdict the item accepts, canonicalised (labels become
//! machine values; a choice's `selected` becomes its joined verdict), else dropped; a note
//! cut to 4 000 characters and kept untrimmed (the reviewer may still be typing). Entries
//! with neither are dropped. Everything else is dropped.

use serde_json::{Map, Value, json};

use crate::json::Json;
use crate::problem::Problem;

use super::answers::{id_of, parse_selection, parse_verdict};
use super::model::{ItemType, MAX_NOTE, ReviewSpec};

/// Sanitises a draft body (see the module documentation).
pub fn sanitize(spec: &ReviewSpec, body: &Json) -> Result<Value, Problem> {
    let Some(o) = body.as_object() else {
        return Err(Problem::new(
            "",
            "invalid-autosave",
            format!(
                "the review draft must be a JSON object {{v, answers: {{id: {{verdict, note}}}}}}, got {}",
                body.kind()
            ),
        ));
    };
    let mut entries: Vec<(String, &Json)> = Vec::new();
    match o.get("answers") {
        Some(Json::Object(map)) => {
            for (id, e) in map.iter() {
                entries.push((id.to_string(), e));
            }
        }
        Some(Json::Array(list)) => {
            for e in list {
                if let Some(id) = e.as_object().and_then(|x| x.get("id")).and_then(id_of) {
                    entries.push((id, e));
                }
            }
        }
        _ => {}
    }
    let mut answers = Map::new();
    for (id, e) in entries {
        let (Some(item), Some(e)) = (spec.item(&id), e.as_object()) else {
            continue;
        };
        if answers.contains_key(&item.id) {
            continue;
        }
        let mut verdict = String::new();
        if item.kind == ItemType::Choice
            && let Some(sel) = e.get("selected").and_then(Json::as_array)
        {
            let tokens: Vec<String> = sel.iter().filter_map(id_of).collect();
            if let Ok(v) = parse_selection(item, tokens.iter().map(String::as_str)) {
                verdict = v.join(",");
            }
        }
        if verdict.is_empty() {
            let raw = match e.get("verdict") {
                Some(Json::String(s)) => s.to_string(),
                Some(Json::Number(n)) => n.to_string(),
                _ => String::new(),
            };
            if let Ok((v, _)) = parse_verdict(item, &raw) {
                verdict = v;
            }
        }
        let note: String = e
            .get("note")
            .and_then(Json::as_str)
            .unwrap_or("")
            .chars()
            .take(MAX_NOTE)
            .collect();
        if verdict.is_empty() && note.is_empty() {
            continue;
        }
        answers.insert(item.id.clone(), json!({"verdict": verdict, "note": note}));
    }
    Ok(json!({"v": 1, "answers": Value::Object(answers)}))
}

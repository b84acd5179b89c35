//! The autosave of a survey ask (`survey.md` §9.3): the human's unbanked progress and
//! wizard position, sanitised against the spec — never rejected, except when the body is
//! not an object.

use crate::hash::FastSet;

use serde_json::{Map, Value, json};

use super::model::SurveySpec;
use super::validate::limits;
use crate::json::Json;
use crate::problem::Problem;

/// Sanitises an autosave body. `banked` lists the ids already banked: their entries are
/// ignored, because the bank wins.
pub fn sanitize(spec: &SurveySpec, banked: &[&str], body: &Json) -> Result<Value, Problem> {
    let Some(o) = body.as_object() else {
        return Err(Problem::new(
            "",
            "invalid-autosave",
            format!(
                "the autosave must be a JSON object {{v, position, quickMode, answers}}, got {}",
                body.kind()
            ),
        ));
    };
    let mut out = Map::new();
    out.insert("v".into(), json!(1));
    if let Some(p) = o.get("position").and_then(Json::as_str)
        && (p == "intro" || spec.questions.contains_key(p))
    {
        out.insert("position".into(), json!(p));
    }
    out.insert(
        "quickMode".into(),
        json!(o.get("quickMode").and_then(Json::as_bool).unwrap_or(false)),
    );
    let banked: FastSet<&str> = banked.iter().copied().collect();
    let mut answers = Map::new();
    if let Some(entries) = o.get("answers").and_then(Json::as_object) {
        for (id, entry) in entries.iter() {
            let (Some(q), Some(e)) = (spec.questions.get(id), entry.as_object()) else {
                continue;
            };
            if banked.contains(id) {
                continue;
            }
            let mut selected: Vec<&str> = Vec::new();
            for k in e
                .get("selected")
                .and_then(Json::as_array)
                .unwrap_or(&[])
                .iter()
                .filter_map(Json::as_str)
            {
                if q.option(k).is_some() && !selected.contains(&k) {
                    selected.push(k);
                }
            }
            let custom: String = e
                .get("custom")
                .and_then(Json::as_str)
                .unwrap_or("")
                .chars()
                .take(limits::CUSTOM)
                .collect();
            let mut a = Map::new();
            a.insert("selected".into(), json!(selected));
            a.insert("custom".into(), json!(custom));
            a.insert(
                "skipped".into(),
                json!(e.get("skipped").and_then(Json::as_bool).unwrap_or(false)),
            );
            let mut js = Map::new();
            if let Some(given) = e.get("justifications").and_then(Json::as_object) {
                for (k, v) in given.iter() {
                    if let Some(text) = v.as_str()
                        && selected.contains(&k)
                    {
                        let cut: String = text.chars().take(limits::JUSTIFICATION).collect();
                        js.insert(k.to_string(), json!(cut));
                    }
                }
            }
            if !js.is_empty() {
                a.insert("justifications".into(), Value::Object(js));
            }
            answers.insert(id.to_string(), Value::Object(a));
        }
    }
    out.insert("answers".into(), Value::Object(answers));
    Ok(Value::Object(out))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json;

    fn spec() -> SurveySpec {
        let text = r#"{"entry":"q1","questions":{
            "q1":{"prompt":"P","options":[{"key":"a","label":"A"},{"key":"b","label":"B"},{"key":"c","label":"C"},{"key":"d","label":"D"},{"key":"e","label":"E"}]},
            "q2":{"prompt":"Q"}}}"#;
        crate::survey::validate(&json::parse(text).unwrap()).unwrap()
    }

    #[test]
    fn autosave_sanitises_never_rejects() {
        let text = format!(
            r#"{{"v":7,"position":"q2","quickMode":true,"extra":1,"answers":{{
                "q1":{{"selected":["a","zz","a","b"],"custom":"{}","skipped":false,
                       "justifications":{{"a":"{}","c":"not selected","b":5}}}},
                "nope":{{"selected":["a"]}},
                "q2":"not an object"}}}}"#,
            "x".repeat(9000),
            "y".repeat(600)
        );
        let body = json::parse(&text).unwrap();
        let v = sanitize(&spec(), &[], &body).unwrap();
        assert_eq!(v["v"], 1);
        assert_eq!(v["position"], "q2");
        assert_eq!(v["quickMode"], true);
        assert!(v.get("extra").is_none());
        let q1 = &v["answers"]["q1"];
        assert_eq!(q1["selected"], json!(["a", "b"]));
        assert_eq!(q1["custom"].as_str().unwrap().chars().count(), 8000);
        assert_eq!(
            q1["justifications"]["a"].as_str().unwrap().chars().count(),
            500
        );
        assert!(q1["justifications"].get("c").is_none());
        assert!(q1["justifications"].get("b").is_none());
        assert!(v["answers"].get("nope").is_none());
        assert!(v["answers"].get("q2").is_none());
    }

    #[test]
    fn autosave_ignores_banked_ids_and_unknown_positions() {
        let body = json::parse(
            r#"{"position":"zz","answers":{"q1":{"selected":["a"]},"q2":{"custom":"t"}}}"#,
        )
        .unwrap();
        let v = sanitize(&spec(), &["q1"], &body).unwrap();
        assert!(v.get("position").is_none());
        assert!(v["answers"].get("q1").is_none());
        assert_eq!(v["answers"]["q2"]["custom"], "t");
    }

    #[test]
    fn autosave_that_is_not_an_object_is_refused() {
        let err = sanitize(&spec(), &[], &json::parse("[1]").unwrap()).unwrap_err();
        assert_eq!(err.code, "invalid-autosave");
    }
}

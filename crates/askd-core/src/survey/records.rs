//! Survey records: the record a survey ask leaves when it settles (`survey.md` §11.1,
//! [`survey_record`]), and `survey_records` (§11.2), read-only memory for the agent shaped
//! from those records.

use crate::Outcome;
use serde_json::{Map, Value, json};

pub use crate::record::{RecordedAsk, RecordedBank};

/// §11.1: the full record of a survey ask settled with `outcome` at `settled_at`. Members in
/// order: `v`, `surveyId`, `session`, `workspace`, `client`, `outcome`, `createdAt`,
/// `settledAt`, `title`?, `quickTemplate`?, `spec`, `banked`? (each entry with its
/// `bankedAt`), then `answers`, `path`, `skipped` for a submission, else `autosave`.
pub fn survey_record(
    ask: &RecordedAsk<'_>,
    banked: &[RecordedBank<'_>],
    outcome: &str,
    settled_at: &str,
    submission: Option<&super::answers::Submission>,
) -> Value {
    let mut r = json!({
        "v": 1,
        "surveyId": ask.ask_id,
        "session": ask.session,
        "workspace": ask.workspace,
        "client": ask.client,
        "outcome": outcome,
        "createdAt": ask.created_at,
        "settledAt": settled_at,
    });
    if let Some(t) = ask.title {
        r["title"] = json!(t);
    }
    if let Some(q) = submission.and_then(|s| s.quick.as_ref()) {
        r["quickTemplate"] = json!(q);
    }
    r["spec"] = ask.spec.clone();
    if !banked.is_empty() {
        r["banked"] = Value::Array(
            banked
                .iter()
                .map(|b| {
                    let mut e = b.entry.clone();
                    e["bankedAt"] = json!(b.banked_at);
                    e
                })
                .collect(),
        );
    }
    match submission {
        Some(s) => {
            r["answers"] = json!(s.answers);
            r["path"] = json!(s.path);
            r["skipped"] = json!(s.skipped);
        }
        None => r["autosave"] = ask.autosave.cloned().unwrap_or(Value::Null),
    }
    r
}

/// The slug rule of §10.2: lower-case, runs outside `[a-z0-9]` become `-`, trimmed, cut to
/// 48 characters, trimmed again; `fallback` when nothing remains.
pub fn slug(title: &str, fallback: &str) -> String {
    let lower = title.to_lowercase();
    let mut out = String::with_capacity(lower.len());
    for c in lower.chars() {
        if c.is_ascii_lowercase() || c.is_ascii_digit() {
            out.push(c);
        } else if !out.ends_with('-') {
            out.push('-');
        }
    }
    let cut: String = out.trim_matches('-').chars().take(48).collect();
    let cut = cut.trim_end_matches('-');
    if cut.is_empty() {
        fallback.to_string()
    } else {
        cut.to_string()
    }
}

/// The file name of a workspace record copy (§11.3):
/// `<YYYYMMDD>-<HHMM>-<slug>-<first 8 characters of ask_id>.json`, the time being the
/// settle time in UTC (`settled_at` is RFC 3339 UTC).
pub fn workspace_file_name(settled_at: &str, title: Option<&str>, ask_id: &str) -> String {
    let d: String = settled_at
        .chars()
        .filter(char::is_ascii_digit)
        .take(12)
        .collect();
    let (date, time) = if d.len() == 12 {
        (&d[..8], &d[8..12])
    } else {
        ("00000000", "0000")
    };
    let id: String = ask_id.chars().take(8).collect();
    format!(
        "{date}-{time}-{}-{id}.json",
        slug(title.unwrap_or(""), "survey")
    )
}

/// The default and bounds of `limit`.
pub const LIMIT_DEFAULT: usize = 8;
pub const LIMIT_MAX: usize = 25;

/// `limit` as §11.2 reads it: a non-number gives the default; otherwise truncated toward
/// zero and clamped to 1..=25.
pub fn clamp_limit(limit: Option<&Value>) -> usize {
    match limit.and_then(Value::as_f64) {
        Some(n) if n.is_finite() => (n.trunc().clamp(1.0, LIMIT_MAX as f64)) as usize,
        _ => LIMIT_DEFAULT,
    }
}

/// Filters, sorts and shapes `records` (survey records in §11.1 form, any order).
pub fn query(
    records: &[Value],
    query: Option<&str>,
    limit: usize,
    include_unanswered: bool,
) -> Value {
    let mut kept: Vec<&Value> = records
        .iter()
        .filter(|r| include_unanswered || r["outcome"] == Outcome::Answered.as_str())
        .collect();
    // Newest first; records without a timestamp last.
    kept.sort_by(|a, b| {
        let ta = a["settledAt"].as_str();
        let tb = b["settledAt"].as_str();
        match (ta, tb) {
            (Some(x), Some(y)) => y.cmp(x),
            (Some(_), None) => std::cmp::Ordering::Less,
            (None, Some(_)) => std::cmp::Ordering::Greater,
            (None, None) => std::cmp::Ordering::Equal,
        }
    });
    let needle = query.map(str::to_lowercase).filter(|q| !q.is_empty());
    let shaped: Vec<Value> = kept
        .into_iter()
        .map(shape)
        .filter(|(_, hay)| needle.as_ref().is_none_or(|n| hay.contains(n.as_str())))
        .map(|(v, _)| v)
        .collect();
    json!({"count": shaped.len(), "records": shaped.into_iter().take(limit).collect::<Vec<_>>()})
}

/// One returned record and its lower-cased search haystack.
fn shape(r: &Value) -> (Value, String) {
    let spec = &r["spec"];
    let answered = r["outcome"] == Outcome::Answered.as_str();
    let entries: &[Value] = if answered {
        r["answers"].as_array().map(Vec::as_slice).unwrap_or(&[])
    } else {
        r["banked"].as_array().map(Vec::as_slice).unwrap_or(&[])
    };
    let mut hay = String::new();
    if let Some(t) = r["title"].as_str() {
        hay.push_str(t);
        hay.push('\n');
    }
    let answers: Vec<Value> = entries
        .iter()
        .map(|e| {
            let id = e["id"].as_str().unwrap_or_default();
            let q = &spec["questions"][id];
            let prompt = q["prompt"].as_str().unwrap_or(id);
            let labels: Vec<String> = e["selected"]
                .as_array()
                .map(Vec::as_slice)
                .unwrap_or(&[])
                .iter()
                .filter_map(Value::as_str)
                .map(|k| {
                    q["options"]
                        .as_array()
                        .and_then(|opts| opts.iter().find(|o| o["key"] == k))
                        .and_then(|o| o["label"].as_str())
                        .unwrap_or(k)
                        .to_string()
                })
                .collect();
            for part in std::iter::once(prompt).chain(labels.iter().map(String::as_str)) {
                hay.push_str(part);
                hay.push('\n');
            }
            let mut out = Map::new();
            out.insert("id".into(), json!(id));
            out.insert("prompt".into(), json!(prompt));
            out.insert("selected".into(), json!(labels));
            if let Some(c) = e["custom"].as_str() {
                hay.push_str(c);
                hay.push('\n');
                out.insert("custom".into(), json!(c));
            }
            if let Some(js) = e["justifications"].as_object()
                && !js.is_empty()
            {
                for v in js.values().filter_map(Value::as_str) {
                    hay.push_str(v);
                    hay.push('\n');
                }
                out.insert("justifications".into(), Value::Object(js.clone()));
            }
            Value::Object(out)
        })
        .collect();
    let mut v = json!({
        "surveyId": r["surveyId"],
        "settledAt": r["settledAt"],
        "outcome": r["outcome"],
    });
    if let Some(t) = r["title"].as_str() {
        v["title"] = json!(t);
    }
    v["answers"] = json!(answers);
    v["skipped"] = if answered {
        r["skipped"].clone()
    } else {
        json!([])
    };
    if !answered {
        v["partial"] = json!(true);
    }
    (v, hay.to_lowercase())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_survey_record_has_its_members_in_order() {
        let spec = json!({"entry": "q"});
        let entry = json!({"id": "q", "selected": ["a"]});
        let ask = RecordedAsk {
            ask_id: "A",
            session: "s",
            workspace: None,
            client: "c",
            created_at: "t0",
            spec: &spec,
            title: Some("T"),
            autosave: None,
        };
        let banked = [RecordedBank {
            entry: &entry,
            banked_at: "t1",
        }];
        let r = survey_record(&ask, &banked, "cancelled", "t2", None);
        let keys: Vec<&str> = r.as_object().unwrap().keys().map(String::as_str).collect();
        assert_eq!(
            keys,
            [
                "v",
                "surveyId",
                "session",
                "workspace",
                "client",
                "outcome",
                "createdAt",
                "settledAt",
                "title",
                "spec",
                "banked",
                "autosave"
            ]
        );
        assert_eq!(r["workspace"], Value::Null);
        assert_eq!(r["banked"][0]["bankedAt"], "t1");
        assert_eq!(r["autosave"], Value::Null);
        let sub = super::super::answers::Submission {
            path: vec!["q".into()],
            answers: Vec::new(),
            skipped: Vec::new(),
            quick: Some("k".into()),
        };
        let r = survey_record(&ask, &[], "answered", "t2", Some(&sub));
        assert_eq!(r["quickTemplate"], "k");
        assert_eq!(r["path"], json!(["q"]));
        assert!(r.get("banked").is_none() && r.get("autosave").is_none());
    }

    fn record(id: &str, at: Option<&str>, outcome: &str, title: &str) -> Value {
        let mut r = json!({
            "v": 1, "surveyId": id, "outcome": outcome, "title": title,
            "spec": {"entry": "q1", "questions": {"q1": {"prompt": "Which database?",
                "options": [{"key": "a", "label": "PostgreSQL"}, {"key": "b", "label": "SQLite"}]}}},
            "answers": [{"id": "q1", "selected": ["b"], "justifications": {"b": "Local first"}}],
            "banked": [{"id": "q1", "selected": ["a"], "bankedAt": "x"}],
            "path": ["q1"], "skipped": []
        });
        if let Some(t) = at {
            r["settledAt"] = json!(t);
        }
        r
    }

    #[test]
    fn slug_follows_the_rule() {
        assert_eq!(
            slug("Question Builder — design lock!", "draft"),
            "question-builder-design-lock"
        );
        assert_eq!(slug("   ", "draft"), "draft");
        assert_eq!(slug("全部中文", "survey"), "survey");
        let long = slug(&format!("{}b", "a-".repeat(30)), "x");
        assert!(long.len() <= 48 && !long.ends_with('-'), "{long}");
    }

    #[test]
    fn workspace_file_name_matches_the_pattern() {
        let n = workspace_file_name(
            "2026-11-29T22:52:31.123Z",
            Some("Release scope"),
            "0193a6f2-7c1e-7b8a-9d41-3f0c2b1e5a77",
        );
        assert_eq!(n, "20261129-2252-release-scope-0193a6f2.json");
        assert_eq!(
            workspace_file_name("2026-11-29T22:52:31Z", None, "abc"),
            "20261129-2252-survey-abc.json"
        );
    }

    #[test]
    fn records_limit_clamps_and_truncates() {
        assert_eq!(clamp_limit(None), 8);
        assert_eq!(clamp_limit(Some(&json!("5"))), 8);
        assert_eq!(clamp_limit(Some(&json!(0))), 1);
        assert_eq!(clamp_limit(Some(&json!(3.9))), 3);
        assert_eq!(clamp_limit(Some(&json!(99))), 25);
    }

    #[test]
    fn records_answered_only_newest_first_undated_last() {
        let rs = vec![
            record("old", Some("2026-01-01T00:00:00Z"), "answered", "Old"),
            record("none", None, "answered", "Undated"),
            record("new", Some("2026-02-01T00:00:00Z"), "answered", "New"),
            record("gone", Some("2026-03-01T00:00:00Z"), "cancelled", "Gone"),
        ];
        let v = query(&rs, None, 8, false);
        let ids: Vec<&str> = v["records"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["surveyId"].as_str().unwrap())
            .collect();
        assert_eq!(ids, ["new", "old", "none"]);
        assert_eq!(v["count"], 3);
        assert_eq!(v["records"][0]["answers"][0]["selected"], json!(["SQLite"]));
        assert_eq!(v["records"][0]["answers"][0]["prompt"], "Which database?");
        let all = query(&rs, None, 2, true);
        assert_eq!(all["count"], 4);
        assert_eq!(all["records"].as_array().unwrap().len(), 2);
        assert_eq!(all["records"][0]["partial"], true);
        assert_eq!(
            all["records"][0]["answers"][0]["selected"],
            json!(["PostgreSQL"])
        );
    }

    #[test]
    fn records_query_matches_case_insensitively_over_the_haystack() {
        let rs = vec![record(
            "a",
            Some("2026-01-01T00:00:00Z"),
            "answered",
            "Storage",
        )];
        assert_eq!(query(&rs, Some("sqlite"), 8, false)["count"], 1);
        assert_eq!(query(&rs, Some("LOCAL FIRST"), 8, false)["count"], 1);
        assert_eq!(query(&rs, Some("storage"), 8, false)["count"], 1);
        assert_eq!(query(&rs, Some("mysql"), 8, false)["count"], 0);
    }
}

//! What the record of a settled ask is built from (`survey.md` §11.1): plain data taken
//! from the stored ask, so the shapes live in the core and the store stays a store. The
//! survey's record is [`crate::survey::records::survey_record`]; every other kind's, settled
//! without its own shape (a questions ask, or any ask cancelled, withdrawn or ended), is
//! [`ask_record`].

use serde_json::Value;

use crate::AskKind;

/// What a record takes from its stored ask: plain data, no store types.
#[derive(Debug, Clone, Copy)]
pub struct RecordedAsk<'a> {
    pub ask_id: &'a str,
    pub session: &'a str,
    pub workspace: Option<&'a str>,
    pub client: &'a str,
    pub created_at: &'a str,
    /// The stored normal form, recorded verbatim as `spec`.
    pub spec: &'a Value,
    /// The ask's title, when it has one (a survey record carries it).
    pub title: Option<&'a str>,
    /// The last autosave, recorded when the ask settles without a submission.
    pub autosave: Option<&'a Value>,
}

/// One banked answer as a record carries it: the entry and when it was banked.
#[derive(Debug, Clone, Copy)]
pub struct RecordedBank<'a> {
    pub entry: &'a Value,
    pub banked_at: &'a str,
}

/// The record of a settled ask of `kind` (the counterpart of `survey.md` §11.1): `v`,
/// `askId`, `kind`, `session`, `workspace`, `client`, `outcome`, `createdAt`, `settledAt`,
/// `spec`, then from the `answered` result its `answers`, `skipped` and `surface` (when
/// present), or without one the last `autosave`.
pub fn ask_record(
    ask: &RecordedAsk<'_>,
    kind: AskKind,
    outcome: &str,
    settled_at: &str,
    answered: Option<&Value>,
) -> Value {
    let mut r = serde_json::json!({
        "v": 1,
        "askId": ask.ask_id,
        "kind": kind.as_str(),
        "session": ask.session,
        "workspace": ask.workspace,
        "client": ask.client,
        "outcome": outcome,
        "createdAt": ask.created_at,
        "settledAt": settled_at,
        "spec": ask.spec,
    });
    match answered {
        Some(result) => {
            r["answers"] = result["answers"].clone();
            r["skipped"] = result["skipped"].clone();
            if let Some(surface) = result.get("surface") {
                r["surface"] = surface.clone();
            }
        }
        None => r["autosave"] = ask.autosave.cloned().unwrap_or(Value::Null),
    }
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_ask_record_has_its_members_in_order() {
        let spec = serde_json::json!({"questions": []});
        let ask = RecordedAsk {
            ask_id: "A",
            session: "s",
            workspace: Some("/w"),
            client: "c",
            created_at: "t0",
            spec: &spec,
            title: None,
            autosave: None,
        };
        let result = serde_json::json!({"answers": [1], "skipped": [], "surface": "page"});
        let r = ask_record(&ask, AskKind::Questions, "answered", "t1", Some(&result));
        let keys: Vec<&str> = r.as_object().unwrap().keys().map(String::as_str).collect();
        assert_eq!(
            keys,
            [
                "v",
                "askId",
                "kind",
                "session",
                "workspace",
                "client",
                "outcome",
                "createdAt",
                "settledAt",
                "spec",
                "answers",
                "skipped",
                "surface"
            ]
        );
        let r = ask_record(&ask, AskKind::Drift, "cancelled", "t1", None);
        assert_eq!(r["autosave"], Value::Null);
        assert_eq!(r["kind"], "drift");
        assert!(r.get("answers").is_none());
    }
}

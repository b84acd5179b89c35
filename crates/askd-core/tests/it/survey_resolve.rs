//! `survey.md` §3.2–§3.3: argument resolution, one test per step, asserting the code, the
//! path (`""` for steps 1, 2 and 4, `survey` for steps 5 and 6), the full message and its
//! anchor phrases.

use std::borrow::Cow;

use askd_core::Problem;
use askd_core::json::{self, Json};
use askd_core::survey::resolve::{Resolved, resolve, resolve_text};
use serde_json::{Value, json};

const SMALLER_TAIL: &str = "— the signature of a payload cut off by the model's output-token limit. Re-send a SMALLER survey: trim prompt/insight/description strings, cut options to five, drop the quick templates, or split the survey into two consecutive calls (or build it with survey_draft_set). Never resend the identical payload — the failure was size, not content.";

const SURVEY_MISSING: &str = "ask_survey received no \"survey\" field — the arguments were empty, malformed, or truncated before delivery (malformed tool-call JSON can arrive as raw text and an empty payload as {}), so nothing could be validated. Re-send a SMALLER payload — trim long strings, cut options to five, drop the quick templates — or split the survey into two consecutive calls. Never resend the identical payload.";

fn spec() -> Value {
    json!({ "entry": "q1", "questions": { "q1": { "prompt": "Why?" } } })
}

fn from(v: &Value) -> Result<Resolved<'_>, Problem> {
    resolve(Json::from_value(v))
}

#[track_caller]
fn fails(r: Result<Resolved<'_>, Problem>) -> Problem {
    match r {
        Ok(ok) => panic!("expected a resolution error, got {ok:?}"),
        Err(p) => {
            assert_eq!(p.nearest, None);
            assert_eq!(p.cycle, None);
            p
        }
    }
}

#[track_caller]
fn survey_of(r: Result<Resolved<'_>, Problem>) -> Value {
    match r {
        Ok(ok) => {
            assert!(matches!(ok.survey, Json::Object(_)));
            ok.survey.to_value()
        }
        Err(p) => panic!("expected success, got {p:?}"),
    }
}

/// serde_json's own description of why `text` does not parse (line and column included).
fn parser_message(text: &str) -> String {
    json::parse(text).unwrap_err().to_string()
}

#[test]
fn resolve_step1_raw_text_is_parsed() {
    let text = serde_json::to_string(&json!({ "survey": spec() })).unwrap();
    assert_eq!(survey_of(resolve_text(&text)), spec());
    // The same through `resolve` with a string value.
    assert_eq!(
        survey_of(resolve(Json::String(Cow::Borrowed(&text)))),
        spec()
    );
}

/// Step 1 failure: `args_unparseable` at `""`, with the parser's message and the number of
/// characters (Unicode scalar values, not bytes) that arrived.
#[test]
fn resolve_step1_args_unparseable() {
    let text = r#"{"survey":{"title":"Ré😀","entry":"q1","questions":{"q1":{"prompt":"Wh"#;
    let p = fails(resolve_text(text));
    let n = text.chars().count();
    assert_ne!(n, text.len(), "the fixture must tell characters from bytes");
    assert_eq!(p.path, "");
    assert_eq!(p.code, "args_unparseable");
    let parser = parser_message(text);
    assert!(parser.contains("line 1 column"), "{parser}");
    assert_eq!(
        p.message,
        format!(
            "The ask_survey arguments arrived as raw text, but the text failed to parse as JSON ({parser}; {n} characters arrived) {SMALLER_TAIL}"
        )
    );
    for anchor in ["failed to parse as JSON", "cut off", "SMALLER"] {
        assert!(p.message.contains(anchor), "{anchor}");
    }
    // Empty text arrives as 0 characters.
    let p = fails(resolve_text(""));
    assert_eq!(p.code, "args_unparseable");
    assert!(
        p.message
            .contains("; 0 characters arrived) — the signature")
    );
}

#[test]
fn resolve_step2_args_not_object() {
    for (text, kind) in [
        ("null", "null"),
        ("12", "a number"),
        ("[1, 2]", "an array"),
        ("\"{}\"", "a string"),
        ("true", "a boolean"),
    ] {
        let p = fails(resolve_text(text));
        assert_eq!(p.path, "");
        assert_eq!(p.code, "args_not_object");
        assert_eq!(
            p.message,
            format!(
                "the ask_survey arguments must be a JSON object, got {kind} — the emitted payload was likely truncated mid-JSON. Re-send a SMALLER survey (trim long strings, cut options to five, drop the quick templates) or split it into two consecutive calls. Never resend the identical payload."
            )
        );
    }
    // Anchors: "got null", "got a number".
    assert!(fails(resolve_text("null")).message.contains("got null"));
    assert!(fails(from(&json!(3))).message.contains("got a number"));
}

/// Step 3: `survey` absent or `null`, and the arguments carry `entry` and `questions`: the
/// whole arguments object is the survey.
#[test]
fn resolve_step3_bare_spec_without_wrapper() {
    let got = survey_of(from(&spec()));
    assert_eq!(got["entry"], json!("q1"));
    assert_eq!(got["questions"], spec()["questions"]);
    let with_null = {
        let mut v = spec();
        v["survey"] = Value::Null;
        v["title"] = json!("Bare");
        v
    };
    let got = survey_of(from(&with_null));
    assert_eq!(got["title"], json!("Bare"));
    assert_eq!(got["questions"], spec()["questions"]);
    // As raw text too (step 1 then step 3).
    let got = survey_of(resolve_text(r#"{"entry":"q1","questions":{}}"#));
    assert_eq!(got, json!({ "entry": "q1", "questions": {} }));
    // Continues at step 6 and succeeds whatever the members hold: validation judges them.
    let got = survey_of(from(&json!({ "entry": 5, "questions": "x" })));
    assert_eq!(got, json!({ "entry": 5, "questions": "x" }));
}

/// Step 3 needs both members; otherwise step 4.
#[test]
fn resolve_step3_needs_entry_and_questions() {
    for v in [
        json!({ "entry": "q1" }),
        json!({ "questions": {} }),
        json!({ "survey": null, "questions": {} }),
    ] {
        assert_eq!(fails(from(&v)).code, "survey_missing");
    }
}

#[test]
fn resolve_step4_survey_missing() {
    for v in [
        json!({}),
        json!({ "survey": null }),
        json!({ "replaces": "ask-1" }),
    ] {
        let p = fails(from(&v));
        assert_eq!(p.path, "");
        assert_eq!(p.code, "survey_missing");
        assert_eq!(p.message, SURVEY_MISSING);
        assert!(p.message.contains("no \"survey\" field"));
        assert!(p.message.contains("SMALLER"));
    }
    assert_eq!(fails(resolve_text("{}")).message, SURVEY_MISSING);
}

/// Step 5: a `survey` string is parsed once and replaced by the object.
#[test]
fn resolve_step5_survey_text_is_parsed() {
    let text = serde_json::to_string(&spec()).unwrap();
    assert_eq!(survey_of(from(&json!({ "survey": text }))), spec());
    // Through raw text (step 1, then step 5).
    let raw = serde_json::to_string(&json!({ "survey": text, "timeout_s": 5 })).unwrap();
    assert_eq!(survey_of(resolve_text(&raw)), spec());
}

#[test]
fn resolve_step5_survey_text_unparseable() {
    let text = r#"{"entry":"q1","questions":{"q1":{"prompt":"Pourquoi é"#;
    let p = fails(from(&json!({ "survey": text })));
    assert_eq!(p.path, "survey");
    assert_eq!(p.code, "survey_text_unparseable");
    let n = text.chars().count();
    assert_ne!(n, text.len());
    assert_eq!(
        p.message,
        format!(
            "The \"survey\" field arrived as a JSON text string, but the text failed to parse as JSON ({}; {n} characters arrived) {SMALLER_TAIL}",
            parser_message(text)
        )
    );
    for anchor in ["failed to parse as JSON", "SMALLER"] {
        assert!(p.message.contains(anchor), "{anchor}");
    }
}

/// Parsed once only: a doubly encoded survey is a string after one parse.
#[test]
fn resolve_step5_survey_text_not_object() {
    let double = serde_json::to_string(&serde_json::to_string(&spec()).unwrap()).unwrap();
    for (text, kind) in [
        ("[1, 2]", "an array"),
        (double.as_str(), "a string"),
        ("null", "null"),
        ("4", "a number"),
        ("false", "a boolean"),
    ] {
        let p = fails(from(&json!({ "survey": text })));
        assert_eq!(p.path, "survey");
        assert_eq!(p.code, "survey_text_not_object");
        assert_eq!(
            p.message,
            format!(
                "the \"survey\" text parsed but is not a JSON object — got {kind}; re-send the survey as a proper object"
            )
        );
    }
    assert!(
        fails(from(&json!({ "survey": "[]" })))
            .message
            .contains("not a JSON object — got an array")
    );
}

#[test]
fn resolve_step6_survey_not_object() {
    for (v, kind) in [
        (json!([spec()]), "an array"),
        (json!(7), "a number"),
        (json!(true), "a boolean"),
    ] {
        let p = fails(from(&json!({ "survey": v })));
        assert_eq!(p.path, "survey");
        assert_eq!(p.code, "survey_not_object");
        assert_eq!(
            p.message,
            format!("\"survey\" must be an object — got {kind}")
        );
    }
    assert!(
        fails(from(&json!({ "survey": [] })))
            .message
            .contains("\"survey\" must be an object — got an array")
    );
}

/// Step 7: an object `survey` is returned unchanged (nothing dropped, nothing reordered),
/// and the other root members are kept beside it.
#[test]
fn resolve_step7_object_returned_unchanged() {
    let survey = json!({ "zeta": 1, "entry": "q1", "questions": { "b": {}, "10": {}, "2": {} },
                         "Entry": null, "survey": "inner" });
    let args = json!({ "survey": survey, "replaces": "ask-9", "timeout_s": 30, "other": [] });
    let r = from(&args).unwrap();
    let got = r.survey.to_value();
    assert_eq!(got, survey);
    let keys: Vec<_> = r.survey.as_object().unwrap().keys().collect();
    assert_eq!(keys, ["zeta", "entry", "questions", "Entry", "survey"]);
    assert_eq!(r.replaces(), Some("ask-9"));
    // Borrowed input stays borrowed: the same tree, not a copy.
    let text = r#"{"survey":{"entry":"q1","questions":{"q1":{"prompt":"P"}}}}"#;
    let r = resolve_text(text).unwrap();
    let entry = r.survey.as_object().unwrap().get("entry").unwrap();
    assert!(matches!(entry, Json::String(Cow::Borrowed(_))));
}

/// A resolution error is exactly one problem; the first failing step wins.
#[test]
fn resolve_steps_apply_in_order() {
    // Step 3 applies only when `survey` is absent or null: a present one goes to step 5.
    let p = fails(from(
        &json!({ "survey": "{", "entry": "q1", "questions": {} }),
    ));
    assert_eq!(p.code, "survey_text_unparseable");
    // Step 5 before step 6: a string survey is never reported as "must be an object".
    assert_eq!(
        fails(from(&json!({ "survey": "7" }))).code,
        "survey_text_not_object"
    );
}

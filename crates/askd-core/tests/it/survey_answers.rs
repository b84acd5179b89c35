//! Answer validation (`survey.md` §7) and result shapes (§8.3–§8.8), plus the survey
//! fingerprint (§9.4). Specs and request bodies are fixtures under `tests/fixtures/answers/`.
//!
//! Most tests run against `rules.json`, whose paths are:
//! - default (single unanswered, `a` or `b`): single, multi, nocustom, text
//! - single = `c` (`next: null`): single
//! - single = `d`: single, must, multi, nocustom, text (`must` sets `skippable: false`)
//! - single = `e`: single, side, multi, nocustom, text

use askd_core::Problem;
use askd_core::json::{self, Json};
use askd_core::survey::answers::{
    AnswerEntry, Submission, entry_rules, validate_bank, validate_submit,
};
use askd_core::survey::result::{
    ABORTED_MESSAGE, CANCELLED_MESSAGE, DISCUSS, HANDLING, PENDING, PUSH, Preflight, REROLL,
    SUPERSEDED, answered, fingerprint, pending, preflight, superseded,
};
use askd_core::survey::{SurveySpec, validate};
use indexmap::IndexMap;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

// ---------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------

fn fixture(name: &str) -> String {
    crate::kit::fixture_text("answers", name)
}

fn fixture_json(name: &str) -> Value {
    crate::kit::fixture_json("answers", name)
}

fn spec_from(v: &Value) -> SurveySpec {
    validate(&Json::from_value(v)).unwrap_or_else(|e| panic!("valid spec expected: {e:#?}"))
}

fn spec(name: &str) -> SurveySpec {
    let text = fixture(name);
    let v = json::parse(&text).unwrap();
    validate(&v).unwrap_or_else(|e| panic!("{name} must be a valid spec: {e:#?}"))
}

fn rules() -> SurveySpec {
    spec("rules.json")
}

fn entries(spec: &SurveySpec, body: &Value) -> Result<Vec<AnswerEntry>, Vec<Problem>> {
    entry_rules(spec, &Json::from_value(body))
}

fn submit(
    spec: &SurveySpec,
    banked: &[AnswerEntry],
    body: &Value,
) -> Result<Submission, Vec<Problem>> {
    validate_submit(spec, banked, &Json::from_value(body))
}

fn bank(
    spec: &SurveySpec,
    banked: &[AnswerEntry],
    body: &Value,
) -> Result<Vec<AnswerEntry>, Vec<Problem>> {
    validate_bank(spec, banked, &Json::from_value(body))
}

/// Banks `body` on an ask with nothing banked yet and returns the committed entries.
fn banked(spec: &SurveySpec, body: Value) -> Vec<AnswerEntry> {
    bank(spec, &[], &body).unwrap_or_else(|e| panic!("bank must pass: {e:#?}"))
}

/// `(path, code, message)` of every problem, in order.
fn triples(problems: &[Problem]) -> Vec<(String, String, String)> {
    problems
        .iter()
        .map(|p| (p.path.clone(), p.code.to_string(), p.message.clone()))
        .collect()
}

fn t(path: &str, code: &str, message: &str) -> (String, String, String) {
    (path.into(), code.into(), message.into())
}

fn expect_err<T: std::fmt::Debug>(r: Result<T, Vec<Problem>>) -> Vec<(String, String, String)> {
    triples(&r.expect_err("a failure was expected"))
}

fn ids(v: &[AnswerEntry]) -> Vec<&str> {
    v.iter().map(|e| e.id.as_str()).collect()
}

fn strs(v: &[String]) -> Vec<&str> {
    v.iter().map(String::as_str).collect()
}

const NO_SUBSTANCE: &str = "the submission carries no selections — nothing was picked, skipped, or written. Pick options (or skip questions explicitly) and submit again. A quick template must actually contain answers.";

fn banked_conflict(path: &str, id: &str) -> (String, String, String) {
    t(
        path,
        "banked_conflict",
        &format!(
            "answer for \"{id}\" conflicts with its banked (locked) answer — banked answers cannot be changed"
        ),
    )
}

fn off_path(path: &str, id: &str) -> (String, String, String) {
    t(
        path,
        "off_path",
        &format!("answers include \"{id}\" which the branch path does not reach"),
    )
}

fn not_skippable_omit(id: &str) -> (String, String, String) {
    t(
        "answers",
        "not_skippable",
        &format!(
            "answers omit \"{id}\", which is on the branch path and is not skippable — answer it"
        ),
    )
}

fn not_skippable_entry(path: &str, id: &str) -> (String, String, String) {
    t(
        path,
        "not_skippable",
        &format!(
            "answers for \"{id}\": the question is not skippable — select an option or type an answer"
        ),
    )
}

// ---------------------------------------------------------------------------------------------
// §7.2 entry rules: one test per rule, cases from entry_rules.json
// ---------------------------------------------------------------------------------------------

/// Runs every case of `rule` from `entry_rules.json` through `entry_rules`, `validate_submit`
/// and `validate_bank`: all three must fail with exactly the listed problems.
fn check_rule(rule: &str) {
    let all = fixture_json("entry_rules.json");
    let cases = all[rule]
        .as_array()
        .unwrap_or_else(|| panic!("no cases for {rule}"));
    assert!(!cases.is_empty());
    let s = rules();
    for (n, case) in cases.iter().enumerate() {
        let expected: Vec<(String, String, String)> = case["errors"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| {
                let e = e.as_array().unwrap();
                t(
                    e[0].as_str().unwrap(),
                    e[1].as_str().unwrap(),
                    e[2].as_str().unwrap(),
                )
            })
            .collect();
        let body = &case["body"];
        assert_eq!(
            expect_err(entries(&s, body)),
            expected,
            "{rule} case {n}: entry_rules"
        );
        assert_eq!(
            expect_err(submit(&s, &[], body)),
            expected,
            "{rule} case {n}: submit"
        );
        assert_eq!(
            expect_err(bank(&s, &[], body)),
            expected,
            "{rule} case {n}: bank"
        );
    }
}

#[test]
fn a01_answers_not_an_array_stops() {
    check_rule("A1");
}

#[test]
fn a02_entry_not_an_object_skips_the_entry() {
    check_rule("A2");
}

#[test]
fn a03_unknown_question_id_skips_the_entry() {
    check_rule("A3");
    // An absent id is not a question id either (how it is shown is not specified).
    let e = entries(&rules(), &json!({"answers": [{"selected": ["a"]}]})).unwrap_err();
    assert_eq!(e.len(), 1);
    assert_eq!(
        (e[0].path.as_str(), e[0].code),
        ("answers[0].id", "answer_unknown_question")
    );
}

#[test]
fn a04_repeated_question_skips_the_entry() {
    check_rule("A4");
}

#[test]
fn a05_selected_not_an_array_of_strings_skips_the_entry() {
    check_rule("A5");
    // `selected` is mandatory even when empty: `[]` passes.
    assert!(
        entries(
            &rules(),
            &json!({"answers": [{"id": "text", "selected": []}]})
        )
        .is_ok()
    );
}

#[test]
fn a06_repeated_key_skips_the_entry() {
    check_rule("A6");
}

#[test]
fn a07_unknown_key_one_error_per_key_without_skipping() {
    check_rule("A7");
}

#[test]
fn a08_custom_not_a_string_skips_the_entry() {
    check_rule("A8");
    // `null` counts as absent.
    let ok = entries(
        &rules(),
        &json!({"answers": [{"id": "text", "selected": [], "custom": null}]}),
    )
    .unwrap();
    assert_eq!(ok[0].custom, None);
}

#[test]
fn a09_custom_over_8000_characters_after_trimming() {
    let s = rules();
    let long = "é".repeat(8001);
    let body = json!({"answers": [{"id": "text", "selected": [], "custom": long}]});
    let expected = vec![t(
        "answers[0].custom",
        "custom_too_long",
        "answers for \"text\": custom exceeds 8000 characters",
    )];
    assert_eq!(expect_err(entries(&s, &body)), expected);
    assert_eq!(expect_err(submit(&s, &[], &body)), expected);
    assert_eq!(expect_err(bank(&s, &[], &body)), expected);
    // Exactly 8000 scalar values (each two bytes in UTF-8), padded with whitespace, passes.
    let edge = format!("  \n{}\t ", "é".repeat(8000));
    let ok = entries(
        &s,
        &json!({"answers": [{"id": "text", "selected": [], "custom": edge}]}),
    )
    .unwrap();
    assert_eq!(ok[0].custom.as_ref().unwrap().chars().count(), 8000);
    // 8000 astral characters are 8000 scalar values too (not 16000 UTF-16 units).
    let astral = "😀".repeat(8000);
    assert!(
        entries(
            &s,
            &json!({"answers": [{"id": "text", "selected": [], "custom": astral}]})
        )
        .is_ok()
    );
}

#[test]
fn a10_custom_on_allow_custom_false() {
    check_rule("A10");
    // Blank custom text is no custom text: allowed.
    let ok = entries(
        &rules(),
        &json!({"answers": [{"id": "nocustom", "selected": ["a"], "custom": "  \n "}]}),
    )
    .unwrap();
    assert_eq!(ok[0].custom, None);
}

#[test]
fn a11_single_select_with_several_keys() {
    check_rule("A11");
    // A multi-select question takes several keys.
    assert!(
        entries(
            &rules(),
            &json!({"answers": [{"id": "multi", "selected": ["a", "b", "c"]}]})
        )
        .is_ok()
    );
}

#[test]
fn a12_single_select_mixing_keys_and_custom() {
    check_rule("A12");
    let s = rules();
    // Blank custom text does not mix.
    assert!(
        entries(
            &s,
            &json!({"answers": [{"id": "single", "selected": ["a"], "custom": "  "}]})
        )
        .is_ok()
    );
    // A multi-select question may mix.
    assert!(
        entries(
            &s,
            &json!({"answers": [{"id": "multi", "selected": ["a"], "custom": "and text"}]})
        )
        .is_ok()
    );
}

#[test]
fn a13_skipped_not_a_boolean() {
    check_rule("A13");
    // `null` counts as absent.
    let ok = entries(
        &rules(),
        &json!({"answers": [{"id": "text", "selected": [], "skipped": null}]}),
    )
    .unwrap();
    assert!(!ok[0].skipped);
}

#[test]
fn a14_justifications_not_an_object() {
    check_rule("A14");
    // `null` counts as absent.
    assert!(
        entries(
            &rules(),
            &json!({"answers": [{"id": "multi", "selected": ["a"], "justifications": null}]})
        )
        .is_ok()
    );
}

#[test]
fn a15_justification_for_an_unselected_key() {
    check_rule("A15");
}

#[test]
fn a16_justification_not_a_string() {
    check_rule("A16");
}

#[test]
fn a17_blank_justification_is_dropped_silently() {
    let s = rules();
    let body = json!({"answers": [{"id": "multi", "selected": ["a", "b", "c"],
        "justifications": {"a": "   ", "b": "", "c": " \t\n "}}]});
    let clean = entries(&s, &body).unwrap();
    assert!(clean[0].justifications.is_empty());
    // Omitted from the clean entry when nothing is kept.
    let v = serde_json::to_value(&clean[0]).unwrap();
    assert!(v.get("justifications").is_none(), "{v}");
    assert!(submit(&s, &[], &body).is_ok());
    assert!(bank(&s, &[], &body).is_ok());
}

#[test]
fn a18_justification_over_500_characters_after_trimming() {
    let s = rules();
    let long = "ж".repeat(501);
    let body = json!({"answers": [{"id": "multi", "selected": ["a", "b"],
        "justifications": {"a": long, "b": "fine"}}]});
    let expected = vec![t(
        "answers[0].justifications.a",
        "justification_too_long",
        "answers for \"multi\": justification for \"a\" exceeds 500 characters",
    )];
    assert_eq!(expect_err(entries(&s, &body)), expected);
    assert_eq!(expect_err(submit(&s, &[], &body)), expected);
    assert_eq!(expect_err(bank(&s, &[], &body)), expected);
    // 500 characters padded with whitespace pass, and are stored trimmed.
    let edge = format!("   {}  ", "ж".repeat(500));
    let clean = entries(
        &s,
        &json!({"answers": [{"id": "multi", "selected": ["a"], "justifications": {"a": edge}}]}),
    )
    .unwrap();
    assert_eq!(clean[0].justifications["a"], "ж".repeat(500));
}

#[test]
fn entry_rules_run_per_entry_in_submission_order_and_accumulate() {
    let s = rules();
    let body = json!({"answers": [
        {"id": "multi", "selected": ["zz"]},
        7,
        {"id": "ghost", "selected": []},
        {"id": "single", "selected": ["a", "b"], "custom": "x"},
        {"id": "text", "selected": [], "custom": "fine"}
    ]});
    assert_eq!(
        expect_err(entries(&s, &body)),
        vec![
            t(
                "answers[0].selected[0]",
                "selected_unknown_key",
                "answers for \"multi\": key \"zz\" is not an option"
            ),
            t(
                "answers[1]",
                "answer_type",
                "answers entries must be objects"
            ),
            t(
                "answers[2].id",
                "answer_unknown_question",
                "answers id \"ghost\" names no question"
            ),
            t(
                "answers[3].selected",
                "single_select_multiple",
                "answers for \"single\" selects 2 options on a single-select question"
            ),
            t(
                "answers[3]",
                "single_select_mixed",
                "answers for \"single\" combines options with custom text on a single-select question"
            ),
        ]
    );
}

#[test]
fn ids_and_keys_appear_in_messages_exactly_as_sent() {
    let text = r#"{"entry":"a \"b\"","questions":{"a \"b\"":{"prompt":"p","multiSelect":true,
        "options":[{"key":"k\"1","label":"l"},{"key":"2","label":"l"},{"key":"3","label":"l"},
                   {"key":"4","label":"l"},{"key":"5","label":"l"}]}}}"#;
    let s = validate(&json::parse(text).unwrap()).unwrap();
    let body = json!({"answers": [{"id": "a \"b\"", "selected": ["k\"1", "x y"],
        "justifications": {"q.r": "why"}}]});
    assert_eq!(
        expect_err(entries(&s, &body)),
        vec![
            t(
                "answers[0].selected[1]",
                "selected_unknown_key",
                "answers for \"a \"b\"\": key \"x y\" is not an option"
            ),
            t(
                "answers[0].justifications[\"q.r\"]",
                "justification_unselected_key",
                "answers for \"a \"b\"\": justification names key \"q.r\" which is not a selected option"
            ),
        ]
    );
}

// ---------------------------------------------------------------------------------------------
// §7.3 the clean entry
// ---------------------------------------------------------------------------------------------

#[test]
fn clean_entry_keeps_submitted_key_order() {
    let clean = entries(
        &rules(),
        &json!({"answers": [{"id": "multi", "selected": ["e", "a", "c"]}]}),
    )
    .unwrap();
    assert_eq!(clean[0].selected, ["e", "a", "c"]);
}

#[test]
fn clean_entry_keeps_entry_order() {
    let clean = entries(
        &rules(),
        &json!({"answers": [
            {"id": "text", "selected": [], "custom": "t"},
            {"id": "single", "selected": ["a"]},
            {"id": "multi", "selected": ["b"]}
        ]}),
    )
    .unwrap();
    assert_eq!(ids(&clean), ["text", "single", "multi"]);
}

#[test]
fn clean_entry_custom_is_trimmed_and_present_only_when_non_empty() {
    let clean = entries(
        &rules(),
        &json!({"answers": [
            {"id": "text", "selected": [], "custom": " \u{3000} both ends \n\t"},
            {"id": "multi", "selected": ["a"], "custom": " \n "},
            {"id": "single", "selected": ["a"], "custom": ""}
        ]}),
    )
    .unwrap();
    assert_eq!(clean[0].custom.as_deref(), Some("both ends"));
    assert_eq!(clean[1].custom, None);
    assert_eq!(clean[2].custom, None);
    let v = serde_json::to_value(&clean[1]).unwrap();
    assert!(v.get("custom").is_none(), "{v}");
}

#[test]
fn clean_entry_carries_skipped_only_on_hollow_entries() {
    let clean = entries(
        &rules(),
        &json!({"answers": [
            {"id": "text", "selected": [], "skipped": true},
            {"id": "multi", "selected": ["a"], "skipped": true},
            {"id": "single", "selected": [], "custom": "text", "skipped": true},
            {"id": "nocustom", "selected": [], "custom": "   ", "skipped": true},
            {"id": "side", "selected": [], "skipped": false}
        ]}),
    )
    .unwrap();
    let flags: Vec<bool> = clean.iter().map(|e| e.skipped).collect();
    assert_eq!(flags, [true, false, false, true, false]);
    assert!(clean[0].is_explicit_skip() && clean[3].is_explicit_skip());
    assert!(!clean[4].is_explicit_skip() && !clean[4].is_substantive());
}

#[test]
fn clean_entry_justifications_trimmed_blank_dropped_order_kept() {
    let clean = entries(
        &rules(),
        &json!({"answers": [{"id": "multi", "selected": ["a", "b", "c"],
            "justifications": {"c": "  third  ", "a": "", "b": "\tsecond\n"}}]}),
    )
    .unwrap();
    let j: Vec<(&str, &str)> = clean[0]
        .justifications
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect();
    assert_eq!(j, [("c", "third"), ("b", "second")]);
}

#[test]
fn clean_entry_shape() {
    let clean = entries(
        &rules(),
        &json!({"answers": [
            {"id": "multi", "selected": ["b", "a"], "custom": " x ", "skipped": false,
             "justifications": {"a": " why "}, "extra": "ignored"},
            {"id": "text", "selected": [], "skipped": true}
        ]}),
    )
    .unwrap();
    assert_eq!(
        serde_json::to_string(&clean).unwrap(),
        r#"[{"id":"multi","selected":["b","a"],"custom":"x","justifications":{"a":"why"}},{"id":"text","selected":[],"skipped":true}]"#
    );
}

// ---------------------------------------------------------------------------------------------
// §7.4 final submit
// ---------------------------------------------------------------------------------------------

#[test]
fn submit_entry_rule_failures_are_returned_all_and_alone() {
    let s = rules();
    // Two entry-rule failures plus what would be off_path and not_skippable later: only the
    // entry-rule failures come back.
    let body = json!({"answers": [
        {"id": "single", "selected": ["d"]},
        {"id": "side", "selected": [], "custom": "off the path"},
        {"id": "multi", "selected": ["zz"]},
        {"id": "text", "selected": [], "custom": 3}
    ]});
    assert_eq!(
        expect_err(submit(&s, &[], &body)),
        vec![
            t(
                "answers[2].selected[0]",
                "selected_unknown_key",
                "answers for \"multi\": key \"zz\" is not an option"
            ),
            t(
                "answers[3].custom",
                "custom_type",
                "answers for \"text\": custom must be a string"
            ),
        ]
    );
}

#[test]
fn submit_without_substance_fails_with_one_error() {
    let s = rules();
    for body in [
        json!({"answers": []}),
        json!({"answers": [{"id": "single", "selected": []}]}),
        json!({"answers": [
            {"id": "single", "selected": [], "custom": "   ", "skipped": false},
            {"id": "multi", "selected": []},
            {"id": "side", "selected": [], "custom": ""}
        ]}),
    ] {
        assert_eq!(
            expect_err(submit(&s, &[], &body)),
            vec![t("answers", "no_substance", NO_SUBSTANCE)],
            "{body}"
        );
    }
    assert!(NO_SUBSTANCE.contains("carries no selections"));
}

#[test]
fn submit_of_only_explicit_skips_is_accepted() {
    let s = rules();
    let sub = submit(
        &s,
        &[],
        &json!({"answers": [{"id": "single", "selected": [], "skipped": true}]}),
    )
    .unwrap();
    assert_eq!(sub.path, ["single", "multi", "nocustom", "text"]);
    assert!(sub.answers.is_empty());
    assert_eq!(sub.skipped, ["single", "multi", "nocustom", "text"]);
}

#[test]
fn submit_skippable_path_question_missing_counts_as_skipped() {
    let s = rules();
    let sub = submit(
        &s,
        &[],
        &json!({"answers": [
            {"id": "nocustom", "selected": ["b"]},
            {"id": "single", "selected": ["e"]}
        ]}),
    )
    .unwrap();
    assert_eq!(sub.path, ["single", "side", "multi", "nocustom", "text"]);
    assert_eq!(ids(&sub.answers), ["single", "nocustom"]);
    assert_eq!(sub.skipped, ["side", "multi", "text"]);
}

#[test]
fn submit_answers_in_path_order_hollow_and_skips_in_skipped() {
    let s = rules();
    let sub = submit(
        &s,
        &[],
        &json!({"answers": [
            {"id": "text", "selected": [], "custom": " last "},
            {"id": "multi", "selected": [], "skipped": true},
            {"id": "nocustom", "selected": [], "custom": "  "},
            {"id": "single", "selected": ["b"], "justifications": {"b": " because "}}
        ]}),
    )
    .unwrap();
    assert_eq!(sub.path, ["single", "multi", "nocustom", "text"]);
    assert_eq!(ids(&sub.answers), ["single", "text"]);
    assert_eq!(sub.answers[0].justifications["b"], "because");
    assert_eq!(sub.answers[1].custom.as_deref(), Some("last"));
    assert_eq!(sub.skipped, ["multi", "nocustom"]);
}

#[test]
fn submit_ignores_a_client_path() {
    let s = rules();
    let sub = submit(
        &s,
        &[],
        &json!({"path": ["single", "side"], "answers": [{"id": "single", "selected": ["c"]}]}),
    )
    .unwrap();
    assert_eq!(sub.path, ["single"]);
}

#[test]
fn submit_banked_missing_is_a_conflict_at_answers() {
    let s = rules();
    let b = banked(
        &s,
        json!({"answers": [{"id": "single", "selected": ["a"]}, {"id": "multi", "selected": ["b"]}]}),
    );
    let body = json!({"answers": [{"id": "single", "selected": ["a"]}]});
    assert_eq!(
        expect_err(submit(&s, &b, &body)),
        vec![banked_conflict("answers", "multi")]
    );
}

#[test]
fn submit_banked_different_is_a_conflict_at_the_entry() {
    let s = rules();
    let b = banked(
        &s,
        json!({"answers": [
            {"id": "single", "selected": ["a"]},
            {"id": "multi", "selected": ["a", "b"]},
            {"id": "nocustom", "selected": ["c"]},
            {"id": "text", "selected": [], "custom": "banked text"}
        ]}),
    );
    // Entries listed in another order; errors come in bank order, at each entry's index.
    let body = json!({"answers": [
        {"id": "text", "selected": [], "custom": "changed text"},
        {"id": "nocustom", "selected": ["c"]},
        {"id": "multi", "selected": ["a"]},
        {"id": "single", "selected": ["b"]}
    ]});
    assert_eq!(
        expect_err(submit(&s, &b, &body)),
        vec![
            banked_conflict("answers[3]", "single"),
            banked_conflict("answers[2]", "multi"),
            banked_conflict("answers[0]", "text"),
        ]
    );
}

#[test]
fn submit_banked_comparison_is_a_set_and_trimmed_custom() {
    let s = rules();
    let b = banked(
        &s,
        json!({"answers": [
            {"id": "multi", "selected": ["c", "a"], "custom": "note"},
            {"id": "text", "selected": [], "custom": "  spaced  "}
        ]}),
    );
    let sub = submit(
        &s,
        &b,
        &json!({"answers": [
            {"id": "multi", "selected": ["a", "c"], "custom": "  note\n"},
            {"id": "text", "selected": [], "custom": "spaced"}
        ]}),
    )
    .unwrap();
    // The banked entry is the one used: its key order, not the resubmitted one.
    assert_eq!(sub.answers[0].selected, ["c", "a"]);
    // Custom text absent in the bank and blank in the submit compare equal ("absent counts
    // as empty").
    let b = banked(
        &s,
        json!({"answers": [{"id": "single", "selected": ["a"]}]}),
    );
    assert!(
        submit(
            &s,
            &b,
            &json!({"answers": [{"id": "single", "selected": ["a"], "custom": "  "}]})
        )
        .is_ok()
    );
    // But extra custom text is a change of decision.
    let b = banked(&s, json!({"answers": [{"id": "multi", "selected": ["a"]}]}));
    assert_eq!(
        expect_err(submit(
            &s,
            &b,
            &json!({"answers": [{"id": "multi", "selected": ["a"], "custom": "more"}]})
        )),
        vec![banked_conflict("answers[0]", "multi")]
    );
}

#[test]
fn submit_justifications_are_not_compared_and_the_banked_ones_are_kept() {
    let s = rules();
    let b = banked(
        &s,
        json!({"answers": [
            {"id": "single", "selected": ["a"], "justifications": {"a": " banked why "}},
            {"id": "multi", "selected": ["b"]}
        ]}),
    );
    let sub = submit(
        &s,
        &b,
        &json!({"answers": [
            {"id": "single", "selected": ["a"], "justifications": {"a": "a different why"}},
            {"id": "multi", "selected": ["b"], "justifications": {"b": "new why"}}
        ]}),
    )
    .unwrap();
    assert_eq!(sub.answers[0].justifications["a"], "banked why");
    // The banked entry had none: the submitted one is ignored.
    assert!(sub.answers[1].justifications.is_empty());
}

#[test]
fn submit_banked_explicit_skip_accepts_a_hollow_entry_with_or_without_the_flag() {
    let s = rules();
    let b = banked(
        &s,
        json!({"answers": [{"id": "single", "selected": [], "skipped": true}]}),
    );
    for entry in [
        json!({"id": "single", "selected": [], "skipped": true}),
        json!({"id": "single", "selected": []}),
        json!({"id": "single", "selected": [], "custom": "  ", "skipped": false}),
    ] {
        let body = json!({"answers": [entry, {"id": "multi", "selected": ["a"]}]});
        let sub = submit(&s, &b, &body).unwrap_or_else(|e| panic!("{body}: {e:#?}"));
        assert_eq!(sub.skipped, ["single", "nocustom", "text"]);
    }
    // Answering a banked skip changes the decision.
    assert_eq!(
        expect_err(submit(
            &s,
            &b,
            &json!({"answers": [{"id": "single", "selected": ["a"]}]})
        )),
        vec![banked_conflict("answers[0]", "single")]
    );
    // Omitting it entirely is a conflict at `answers`.
    assert_eq!(
        expect_err(submit(
            &s,
            &b,
            &json!({"answers": [{"id": "multi", "selected": ["a"]}]})
        )),
        vec![banked_conflict("answers", "single")]
    );
}

#[test]
fn submit_off_path_entries() {
    let s = rules();
    let body = json!({"answers": [
        {"id": "single", "selected": ["a"]},
        {"id": "side", "selected": [], "custom": "not reached"},
        {"id": "must", "selected": ["a"]},
        {"id": "text", "selected": [], "skipped": true}
    ]});
    assert_eq!(
        expect_err(submit(&s, &[], &body)),
        vec![
            off_path("answers[1]", "side"),
            off_path("answers[2]", "must")
        ]
    );
    // single = c ends the survey: everything else is off the path, even explicit skips.
    let body = json!({"answers": [
        {"id": "multi", "selected": [], "skipped": true},
        {"id": "single", "selected": ["c"]}
    ]});
    assert_eq!(
        expect_err(submit(&s, &[], &body)),
        vec![off_path("answers[0]", "multi")]
    );
}

#[test]
fn submit_not_skippable_missing_entry() {
    let s = rules();
    let body = json!({"answers": [{"id": "single", "selected": ["d"]}]});
    assert_eq!(
        expect_err(submit(&s, &[], &body)),
        vec![not_skippable_omit("must")]
    );
}

#[test]
fn submit_not_skippable_hollow_or_skipped_entry() {
    let s = rules();
    for must in [
        json!({"id": "must", "selected": []}),
        json!({"id": "must", "selected": [], "skipped": true}),
        json!({"id": "must", "selected": [], "custom": " \n "}),
    ] {
        let body = json!({"answers": [{"id": "single", "selected": ["d"]}, must]});
        assert_eq!(
            expect_err(submit(&s, &[], &body)),
            vec![not_skippable_entry("answers[1]", "must")],
            "{body}"
        );
    }
    // Custom text answers it.
    let body = json!({"answers": [{"id": "single", "selected": ["d"]},
        {"id": "must", "selected": [], "custom": "my own"}]});
    assert!(submit(&s, &[], &body).is_ok());
    // Off the path, a non-skippable question may be missing.
    assert!(
        submit(
            &s,
            &[],
            &json!({"answers": [{"id": "single", "selected": ["a"]}]})
        )
        .is_ok()
    );
}

#[test]
fn submit_consistency_checks_accumulate_in_order() {
    let s = rules();
    let b = banked(&s, json!({"answers": [{"id": "multi", "selected": ["a"]}]}));
    let body = json!({"answers": [
        {"id": "single", "selected": ["d"]},
        {"id": "side", "selected": [], "custom": "off"},
        {"id": "multi", "selected": ["b"]}
    ]});
    assert_eq!(
        expect_err(submit(&s, &b, &body)),
        vec![
            banked_conflict("answers[2]", "multi"),
            off_path("answers[1]", "side"),
            not_skippable_omit("must"),
        ]
    );
}

// ---------------------------------------------------------------------------------------------
// §7.5 bank
// ---------------------------------------------------------------------------------------------

#[test]
fn bank_empty() {
    let s = rules();
    assert_eq!(
        expect_err(bank(&s, &[], &json!({"answers": []}))),
        vec![t("answers", "bank_empty", "bank carries no answers")]
    );
    // Entry rules come first.
    assert_eq!(
        expect_err(bank(&s, &[], &json!({"answers": {}}))),
        vec![t("answers", "answers_type", "answers must be an array")]
    );
}

#[test]
fn bank_hollow_entry() {
    let s = rules();
    let body = json!({"answers": [
        {"id": "single", "selected": ["a"]},
        {"id": "multi", "selected": []},
        {"id": "nocustom", "selected": [], "custom": "  ", "skipped": false}
    ]});
    let msg = |id: &str| {
        format!(
            "bank entries must carry a selection, custom text, or an explicit skip — \"{id}\" carries none"
        )
    };
    assert_eq!(
        expect_err(bank(&s, &[], &body)),
        vec![
            t("answers[1]", "bank_hollow", &msg("multi")),
            t("answers[2]", "bank_hollow", &msg("nocustom")),
        ]
    );
}

#[test]
fn bank_explicit_skip_of_a_non_skippable_question() {
    let s = rules();
    let body = json!({"answers": [
        {"id": "single", "selected": ["d"]},
        {"id": "must", "selected": [], "skipped": true}
    ]});
    assert_eq!(
        expect_err(bank(&s, &[], &body)),
        vec![not_skippable_entry("answers[1]", "must")]
    );
    // An explicit skip of a skippable question banks.
    let ok = bank(
        &s,
        &[],
        &json!({"answers": [{"id": "single", "selected": [], "skipped": true}]}),
    )
    .unwrap();
    assert!(ok[0].is_explicit_skip());
}

#[test]
fn bank_returns_the_clean_new_entries_in_request_order() {
    let s = rules();
    let got = banked(
        &s,
        json!({"answers": [
            {"id": "multi", "selected": ["c", "a"], "justifications": {"a": " why "}},
            {"id": "single", "selected": ["b"]}
        ]}),
    );
    assert_eq!(ids(&got), ["multi", "single"]);
    assert_eq!(got[0].selected, ["c", "a"]);
    assert_eq!(got[0].justifications["a"], "why");
}

#[test]
fn bank_identical_rebank_is_a_no_op_and_not_returned() {
    let s = rules();
    let b = banked(
        &s,
        json!({"answers": [
            {"id": "single", "selected": ["a"], "justifications": {"a": "first"}},
            {"id": "multi", "selected": ["a", "b"]},
            {"id": "nocustom", "selected": [], "skipped": true}
        ]}),
    );
    // Same decisions (key order, blank custom text and justifications are not part of it),
    // plus one new entry.
    let got = bank(
        &s,
        &b,
        &json!({"answers": [
            {"id": "single", "selected": ["a"], "justifications": {"a": "other"}},
            {"id": "multi", "selected": ["b", "a"], "custom": "  "},
            {"id": "nocustom", "selected": [], "custom": " ", "skipped": true},
            {"id": "text", "selected": [], "custom": "new"}
        ]}),
    )
    .unwrap();
    assert_eq!(ids(&got), ["text"]);
    // Only identical entries: nothing to commit.
    let got = bank(
        &s,
        &b,
        &json!({"answers": [{"id": "multi", "selected": ["b", "a"]}]}),
    )
    .unwrap();
    assert!(got.is_empty());
    // Stage 2 runs before the lock: re-banking a banked skip as a hollow entry without the
    // flag is not an explicit skip, so it is `bank_hollow` (on submit it would be accepted).
    assert_eq!(
        expect_err(bank(
            &s,
            &b,
            &json!({"answers": [{"id": "nocustom", "selected": []}]})
        )),
        vec![t(
            "answers[0]",
            "bank_hollow",
            "bank entries must carry a selection, custom text, or an explicit skip — \"nocustom\" carries none"
        )]
    );
}

#[test]
fn bank_changed_rebank_is_a_conflict() {
    let s = rules();
    let b = banked(
        &s,
        json!({"answers": [
            {"id": "single", "selected": ["a"]},
            {"id": "multi", "selected": ["a", "b"]},
            {"id": "text", "selected": [], "skipped": true}
        ]}),
    );
    let body = json!({"answers": [
        {"id": "text", "selected": [], "custom": "now answered"},
        {"id": "multi", "selected": ["a"]},
        {"id": "single", "selected": ["b"]}
    ]});
    assert_eq!(
        expect_err(bank(&s, &b, &body)),
        vec![
            banked_conflict("answers[0]", "text"),
            banked_conflict("answers[1]", "multi"),
            banked_conflict("answers[2]", "single"),
        ]
    );
}

#[test]
fn bank_off_path_against_banked_and_new_entries() {
    let s = rules();
    // Against the already banked answers: single = a does not reach side.
    let b = banked(
        &s,
        json!({"answers": [{"id": "single", "selected": ["a"]}]}),
    );
    assert_eq!(
        expect_err(bank(
            &s,
            &b,
            &json!({"answers": [{"id": "side", "selected": [], "custom": "x"}]})
        )),
        vec![off_path("answers[0]", "side")]
    );
    // A banked single = e reaches side.
    let b = banked(
        &s,
        json!({"answers": [{"id": "single", "selected": ["e"]}]}),
    );
    assert!(
        bank(
            &s,
            &b,
            &json!({"answers": [{"id": "side", "selected": [], "custom": "x"}]})
        )
        .is_ok()
    );
    // New entries route too: single = e and side in one bank, in any order.
    assert!(
        bank(
            &s,
            &[],
            &json!({"answers": [
                {"id": "side", "selected": [], "custom": "x"},
                {"id": "single", "selected": ["e"]}
            ]})
        )
        .is_ok()
    );
    // With nothing banked and single unanswered, side is off the path.
    assert_eq!(
        expect_err(bank(
            &s,
            &[],
            &json!({"answers": [{"id": "side", "selected": [], "custom": "x"}]})
        )),
        vec![off_path("answers[0]", "side")]
    );
}

/// A new entry that re-routes the path so that an already banked id falls off it. The spec
/// names no path for a banked id that is not in the request; code and message are checked.
#[test]
fn bank_off_path_of_an_already_banked_id() {
    let s = rules();
    let b = banked(
        &s,
        json!({"answers": [{"id": "text", "selected": [], "custom": "t"}]}),
    );
    let e = bank(
        &s,
        &b,
        &json!({"answers": [{"id": "single", "selected": ["c"]}]}),
    )
    .unwrap_err();
    assert_eq!(e.len(), 1);
    assert_eq!(e[0].code, "off_path");
    assert_eq!(
        e[0].message,
        "answers include \"text\" which the branch path does not reach"
    );
}

// ---------------------------------------------------------------------------------------------
// §7.6 what the server enforces: one test per row, on bank and on submit
// ---------------------------------------------------------------------------------------------

/// Both surfaces must refuse `body` with a problem of `code`.
fn refused_by_both(s: &SurveySpec, banked: &[AnswerEntry], body: Value, code: &str) {
    for (surface, r) in [
        ("submit", submit(s, banked, &body).map(|_| ())),
        ("bank", bank(s, banked, &body).map(|_| ())),
    ] {
        let e = r.expect_err(&format!("{surface} must refuse {body}"));
        assert!(
            e.iter().any(|p| p.code == code),
            "{surface}: expected {code} in {e:#?}"
        );
    }
}

#[test]
fn enforced_option_keys_exist_and_single_select_is_single() {
    let s = rules();
    refused_by_both(
        &s,
        &[],
        json!({"answers": [{"id": "single", "selected": ["f"]}]}),
        "selected_unknown_key",
    );
    refused_by_both(
        &s,
        &[],
        json!({"answers": [{"id": "single", "selected": ["a", "b"]}]}),
        "single_select_multiple",
    );
    refused_by_both(
        &s,
        &[],
        json!({"answers": [{"id": "single", "selected": ["a"], "custom": "x"}]}),
        "single_select_mixed",
    );
}

#[test]
fn enforced_justifications_only_for_selected_keys_and_at_most_500() {
    let s = rules();
    refused_by_both(
        &s,
        &[],
        json!({"answers": [{"id": "multi", "selected": ["a"], "justifications": {"b": "x"}}]}),
        "justification_unselected_key",
    );
    refused_by_both(
        &s,
        &[],
        json!({"answers": [{"id": "multi", "selected": ["a"], "justifications": {"a": "x".repeat(501)}}]}),
        "justification_too_long",
    );
}

#[test]
fn enforced_allow_custom_false_means_no_custom_text() {
    let s = rules();
    refused_by_both(
        &s,
        &[],
        json!({"answers": [{"id": "nocustom", "selected": [], "custom": "typed"}]}),
        "custom_not_allowed",
    );
}

#[test]
fn enforced_skippable_false_must_be_answered_on_the_path() {
    let s = rules();
    // Submit: missing or hollow.
    let e = submit(
        &s,
        &[],
        &json!({"answers": [{"id": "single", "selected": ["d"]}]}),
    )
    .unwrap_err();
    assert_eq!(e[0].code, "not_skippable");
    // Bank: an explicit skip.
    let e = bank(
        &s,
        &[],
        &json!({"answers": [{"id": "single", "selected": ["d"]}, {"id": "must", "selected": [], "skipped": true}]}),
    )
    .unwrap_err();
    assert_eq!(e[0].code, "not_skippable");
    // And the enforcement is what lets the wizard hide Skip: skippable questions may be
    // skipped.
    assert!(
        submit(
            &s,
            &[],
            &json!({"answers": [{"id": "multi", "selected": [], "skipped": true}]})
        )
        .is_ok()
    );
}

#[test]
fn enforced_every_answer_lies_on_the_recomputed_path() {
    let s = rules();
    refused_by_both(
        &s,
        &[],
        json!({"path": ["single", "side"], "answers": [
            {"id": "single", "selected": ["a"]},
            {"id": "side", "selected": [], "custom": "x"}
        ]}),
        "off_path",
    );
}

#[test]
fn enforced_banked_answers_never_change() {
    let s = rules();
    let b = banked(
        &s,
        json!({"answers": [{"id": "single", "selected": ["a"]}]}),
    );
    refused_by_both(
        &s,
        &b,
        json!({"answers": [{"id": "single", "selected": ["b"]}]}),
        "banked_conflict",
    );
}

#[test]
fn enforced_a_submission_carries_some_substance() {
    let s = rules();
    let e = submit(
        &s,
        &[],
        &json!({"answers": [{"id": "single", "selected": []}]}),
    )
    .unwrap_err();
    assert_eq!(e[0].code, "no_substance");
    let e = bank(
        &s,
        &[],
        &json!({"answers": [{"id": "single", "selected": []}]}),
    )
    .unwrap_err();
    assert_eq!(e[0].code, "bank_hollow");
}

// ---------------------------------------------------------------------------------------------
// §8.3 answered
// ---------------------------------------------------------------------------------------------

const ASK: &str = "0193a6f2-7c1e-7b8a-9d41-3f0c2b1e5a77";

#[test]
fn answered_shape_is_exact() {
    let s = spec("release.json");
    let sub = submit(&s, &[], &fixture_json("release_submit.json")).unwrap();
    let result = answered(&s, ASK, &sub);
    let expected = fixture_json("release_answered.json");
    // Member order matters too: compare the JSON text.
    assert_eq!(
        serde_json::to_string(&result).unwrap(),
        serde_json::to_string(&expected).unwrap()
    );
}

#[test]
fn answered_labels_are_verbatim_including_recommended_suffixes() {
    let s = spec("release.json");
    let sub = submit(
        &s,
        &[],
        &json!({"answers": [{"id": "scope", "selected": ["e"]}, {"id": "ship", "selected": [], "skipped": true}]}),
    )
    .unwrap();
    let v = serde_json::to_value(answered(&s, ASK, &sub)).unwrap();
    assert_eq!(v["path"], json!(["scope", "ship"]));
    assert_eq!(
        v["answers"],
        json!([{"id": "scope", "selected": [{"key": "e", "label": "Delay the release a quarter (推荐)"}]}])
    );
    assert_eq!(v["skipped"], json!(["ship"]));
}

#[test]
fn answered_omits_title_when_the_spec_has_none_and_always_has_handling() {
    let s = rules();
    let sub = submit(
        &s,
        &[],
        &json!({"answers": [{"id": "single", "selected": ["c"]}]}),
    )
    .unwrap();
    let v = serde_json::to_value(answered(&s, "id-1", &sub)).unwrap();
    assert_eq!(
        v,
        json!({
            "outcome": "answered",
            "ask_id": "id-1",
            "path": ["single"],
            "answers": [{"id": "single", "selected": [{"key": "c", "label": "End the survey here"}]}],
            "skipped": [],
            "handling": HANDLING
        })
    );
    assert!(v.get("title").is_none());
    // Handling is present even when every answer is a skip.
    let sub = submit(
        &s,
        &[],
        &json!({"answers": [{"id": "single", "selected": [], "skipped": true}]}),
    )
    .unwrap();
    let v = serde_json::to_value(answered(&s, "id-1", &sub)).unwrap();
    assert_eq!(v["answers"], json!([]));
    assert_eq!(v["skipped"], json!(["single", "multi", "nocustom", "text"]));
    assert_eq!(v["handling"], json!(HANDLING));
}

#[test]
fn answered_labels_come_from_the_normal_form() {
    // A real line break in a label becomes a space in the normal form (§5.2); the result
    // shows the stored label, not what the agent sent.
    let mut v = fixture_json("rules.json");
    v["questions"]["multi"]["options"][1]["label"] = json!("Two\nlines (recommended)");
    let s = spec_from(&v);
    let sub = submit(
        &s,
        &[],
        &json!({"answers": [{"id": "multi", "selected": ["b"]}]}),
    )
    .unwrap();
    let r = serde_json::to_value(answered(&s, "x", &sub)).unwrap();
    assert_eq!(
        r["answers"][0]["selected"],
        json!([{"key": "b", "label": "Two lines (recommended)"}])
    );
}

#[test]
fn answered_custom_and_justifications_only_when_present() {
    let s = rules();
    let sub = submit(
        &s,
        &[],
        &json!({"answers": [
            {"id": "single", "selected": ["a"], "justifications": {"a": "  "}},
            {"id": "multi", "selected": ["b", "a"], "custom": "both", "justifications": {"a": "A!"}},
            {"id": "text", "selected": [], "custom": "free"}
        ]}),
    )
    .unwrap();
    let v = serde_json::to_value(answered(&s, "x", &sub)).unwrap();
    assert_eq!(
        serde_json::to_string(&v["answers"]).unwrap(),
        serde_json::to_string(&json!([
            {"id": "single", "selected": [{"key": "a", "label": "Stay on the main line"}]},
            {"id": "multi", "selected": [{"key": "b", "label": "Multi b"}, {"key": "a", "label": "Multi a"}],
             "custom": "both", "justifications": {"a": "A!"}},
            {"id": "text", "selected": [], "custom": "free"}
        ]))
        .unwrap()
    );
    assert_eq!(v["skipped"], json!(["nocustom"]));
}

#[test]
fn answered_uses_banked_entries_for_banked_questions() {
    let s = spec("release.json");
    let b = banked(
        &s,
        json!({"answers": [
            {"id": "scope", "selected": ["a"], "justifications": {"a": "Banked reason."}},
            {"id": "ship", "selected": ["d", "b"]}
        ]}),
    );
    let sub = submit(
        &s,
        &b,
        &json!({"answers": [
            {"id": "scope", "selected": ["a"], "justifications": {"a": "Resubmitted reason."}},
            {"id": "api", "selected": [], "custom": "gRPC"},
            {"id": "ship", "selected": ["b", "d"], "justifications": {"b": "ignored"}}
        ]}),
    )
    .unwrap();
    let v = serde_json::to_value(answered(&s, ASK, &sub)).unwrap();
    assert_eq!(
        v["answers"],
        json!([
            {"id": "scope", "selected": [{"key": "a", "label": "Ship the public API (recommended)"}],
             "justifications": {"a": "Banked reason."}},
            {"id": "api", "selected": [], "custom": "gRPC"},
            {"id": "ship", "selected": [{"key": "d", "label": "Security review"}, {"key": "b", "label": "Load test passed"}]}
        ])
    );
    assert_eq!(v["title"], json!("Release scope"));
}

#[test]
fn answered_shape_is_the_same_for_a_walk_and_a_quick_template() {
    let s = spec("release.json");
    let walk = json!({"answers": [
        {"id": "scope", "selected": ["a"]},
        {"id": "api", "selected": [], "custom": "REST endpoints"},
        {"id": "ship", "selected": ["a", "c"]}
    ]});
    let mut quick = walk.clone();
    quick["quick"] = json!("a");
    let a = answered(&s, ASK, &submit(&s, &[], &walk).unwrap());
    let q = answered(&s, ASK, &submit(&s, &[], &quick).unwrap());
    assert_eq!(
        serde_json::to_string(&a).unwrap(),
        serde_json::to_string(&q).unwrap()
    );
}

// ---------------------------------------------------------------------------------------------
// §8.4–§8.8 handling, pre-flight, superseded, pending, cancelled / aborted
// ---------------------------------------------------------------------------------------------

#[test]
fn handling_is_the_spec_text() {
    let expected = fixture_json("release_answered.json");
    assert_eq!(expected["handling"], json!(HANDLING));
    for phrase in [
        "mirroring the user's stance",
        "Trace every decision",
        "Never re-ask",
        "Justifications are the user's stated intent",
    ] {
        assert!(HANDLING.contains(phrase), "{phrase}");
    }
}

#[test]
fn preflight_results_carry_their_instruction() {
    let s = spec("release.json");
    for (action, outcome, name, text) in [
        (Preflight::Reroll, "reroll", "Reroll", REROLL),
        (Preflight::Push, "push", "Push", PUSH),
        (Preflight::Discuss, "discuss", "Discuss", DISCUSS),
    ] {
        assert!(text.contains(name), "{name}");
        assert_eq!(action.instruction(), text);
        let r = preflight(&s, ASK, action);
        assert_eq!(
            serde_json::to_string(&r).unwrap(),
            serde_json::to_string(&json!({
                "outcome": outcome, "ask_id": ASK, "title": "Release scope", "instruction": text
            }))
            .unwrap()
        );
        // No title without a spec title.
        let r = serde_json::to_value(preflight(&rules(), "a", action)).unwrap();
        assert_eq!(
            r,
            json!({"outcome": outcome, "ask_id": "a", "instruction": text})
        );
        assert_eq!(Preflight::parse(outcome), Some(action));
    }
    assert_eq!(Preflight::parse("Reroll"), None);
}

#[test]
fn preflight_instructions_carry_their_intent() {
    let lower = |s: &str| s.to_lowercase();
    // Reroll: same survey, cleaner and escalated, never shrink, re-issue without asking.
    for p in [
        "same survey",
        "escalated",
        "never shrink",
        "self-contained",
        "without asking",
        "ask_survey",
    ] {
        assert!(lower(REROLL).contains(p), "Reroll: {p}");
    }
    // Push: at least 12 systems, written findings, twice the depth, through the builder.
    for p in [
        "at least 12",
        ".docs/digest/",
        ".docs/research/",
        ".refs/",
        "twice the depth",
        "survey_draft_launch",
    ] {
        assert!(PUSH.contains(p), "Push: {p}");
    }
    // Discuss: no survey right away, converge first.
    for p in [
        "do not call ask_survey again right away",
        "converge",
        "settled",
    ] {
        assert!(lower(DISCUSS).contains(p), "Discuss: {p}");
    }
}

#[test]
fn superseded_result() {
    assert!(SUPERSEDED.contains("superseded"));
    assert!(SUPERSEDED.contains("replaces"));
    let s = spec("release.json");
    assert_eq!(
        serde_json::to_string(&superseded(&s, ASK)).unwrap(),
        serde_json::to_string(&json!({
            "outcome": "superseded", "ask_id": ASK, "title": "Release scope", "instruction": SUPERSEDED
        }))
        .unwrap()
    );
    let v = serde_json::to_value(superseded(&rules(), "a")).unwrap();
    assert!(v.get("title").is_none());
}

#[test]
fn pending_result() {
    for p in [
        "await_answer",
        "replaces",
        "Do not answer on the user's behalf",
    ] {
        assert!(PENDING.contains(p), "{p}");
    }
    let s = spec("release.json");
    let url = format!("http://127.0.0.1:7391/a/{ASK}");
    assert_eq!(
        serde_json::to_string(&pending(&s, ASK, &url)).unwrap(),
        serde_json::to_string(&json!({
            "outcome": "pending", "ask_id": ASK, "url": url, "title": "Release scope", "instruction": PENDING
        }))
        .unwrap()
    );
    let v = serde_json::to_value(pending(&rules(), "a", "u")).unwrap();
    assert!(v.get("title").is_none());
}

#[test]
fn cancelled_and_aborted_messages_are_kept_for_compatibility() {
    assert_eq!(CANCELLED_MESSAGE, "the user cancelled the survey");
    assert_eq!(
        ABORTED_MESSAGE,
        "ask_survey was aborted before the user answered"
    );
}

// ---------------------------------------------------------------------------------------------
// §9.4 fingerprint
// ---------------------------------------------------------------------------------------------

/// The fingerprint computed independently: ids sorted by comparing their scalar values, each
/// prompt cut after 120 scalar values.
fn reference_fingerprint(s: &SurveySpec) -> String {
    let mut ids: Vec<&String> = s.questions.keys().collect();
    ids.sort_by(|a, b| a.chars().map(u32::from).cmp(b.chars().map(u32::from)));
    let mut parts = vec![s.entry.clone()];
    for id in ids {
        let p: Vec<char> = s.questions[id].prompt.chars().collect();
        let cut: String = p[..p.len().min(120)].iter().collect();
        parts.push(format!("{id}:{cut}"));
    }
    let text = parts.join("|");
    Sha256::digest(text.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

fn fp_spec(entry: &str, questions: &[(&str, &str)]) -> SurveySpec {
    let qs: serde_json::Map<String, Value> = questions
        .iter()
        .map(|(id, prompt)| (id.to_string(), json!({"prompt": prompt})))
        .collect();
    spec_from(&json!({"entry": entry, "questions": qs}))
}

#[test]
fn fingerprint_of_a_known_input() {
    // sha256("b|a:Second?|b:First?"), computed outside askd.
    let s = fp_spec("b", &[("b", "First?"), ("a", "Second?")]);
    assert_eq!(
        fingerprint(&s),
        "9dcc05f84913f56662ba717b56d511b965c5e7c54ea7054752be6e731c8c4a1a"
    );
}

#[test]
fn fingerprint_sorts_ids_by_code_point() {
    // Upper case before lower case, "10" before "2", U+FF61 before U+1F600 (UTF-16 code
    // units would order the astral character first), é after z.
    let s = fp_spec(
        "z",
        &[
            ("z", "p z"),
            ("😀", "p emoji"),
            ("\u{FF61}", "p halfwidth"),
            ("é", "p e-acute"),
            ("2", "p two"),
            ("10", "p ten"),
            ("B", "p upper"),
            ("a", "p lower"),
        ],
    );
    let expected_text =
        "z|10:p ten|2:p two|B:p upper|a:p lower|z:p z|é:p e-acute|\u{FF61}:p halfwidth|😀:p emoji";
    let expected: String = Sha256::digest(expected_text.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    assert_eq!(fingerprint(&s), expected);
    assert_eq!(fingerprint(&s), reference_fingerprint(&s));
    // Id order of the map does not matter.
    let r = fp_spec(
        "z",
        &[
            ("a", "p lower"),
            ("B", "p upper"),
            ("10", "p ten"),
            ("2", "p two"),
            ("é", "p e-acute"),
            ("\u{FF61}", "p halfwidth"),
            ("😀", "p emoji"),
            ("z", "p z"),
        ],
    );
    assert_eq!(fingerprint(&r), fingerprint(&s));
}

#[test]
fn fingerprint_cuts_prompts_at_120_scalar_values() {
    // 130 astral characters: the cut is at 120 chars, not at 120 bytes or UTF-16 units.
    let long: String = "😀".repeat(130);
    let s = fp_spec("q", &[("q", &long)]);
    let expected_text = format!("q|q:{}", "😀".repeat(120));
    let expected: String = Sha256::digest(expected_text.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    assert_eq!(fingerprint(&s), expected);
    // Combining marks count as their own scalar values: the cut may split a grapheme.
    let combining = format!("x{}", "e\u{301}".repeat(61)); // 123 scalar values
    let s = fp_spec("q", &[("q", &combining)]);
    let cut: String = combining.chars().take(120).collect();
    assert!(cut.ends_with('e'));
    let expected: String = Sha256::digest(format!("q|q:{cut}").as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    assert_eq!(fingerprint(&s), expected);
    // Text after the 120th character does not matter; text before it does.
    let base = "x".repeat(120);
    let a = fp_spec("q", &[("q", &format!("{base} tail one"))]);
    let b = fp_spec("q", &[("q", &format!("{base} tail two"))]);
    let c = fp_spec("q", &[("q", &format!("y{}", &base[1..]))]);
    assert_eq!(fingerprint(&a), fingerprint(&b));
    assert_ne!(fingerprint(&a), fingerprint(&c));
    // A prompt of exactly 120 characters is used whole.
    let exact = fp_spec("q", &[("q", &base)]);
    assert_eq!(fingerprint(&exact), reference_fingerprint(&exact));
}

#[test]
fn fingerprint_covers_entry_ids_and_prompts_only() {
    let s = spec("release.json");
    let fp = fingerprint(&s);
    assert_eq!(fp, reference_fingerprint(&s));
    assert_eq!(fp.len(), 64);
    assert!(
        fp.bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
    );
    // Title, labels, options, next, quick: not part of it.
    let mut v = fixture_json("release.json");
    v["title"] = json!("Another title");
    v["questions"]["scope"]["options"][0]["label"] = json!("Relabelled");
    v["questions"]["scope"]["options"][0]["next"] = json!(null);
    v.as_object_mut().unwrap().shift_remove("quick");
    assert_eq!(fingerprint(&spec_from(&v)), fp);
    // The entry is (the quick template would no longer cover the new entry's path).
    let mut v = fixture_json("release.json");
    v.as_object_mut().unwrap().shift_remove("quick");
    v["entry"] = json!("api");
    assert_ne!(fingerprint(&spec_from(&v)), fp);
    // A prompt is.
    let mut v = fixture_json("release.json");
    v["questions"]["api"]["prompt"] = json!("Which API surface is frozen last?");
    assert_ne!(fingerprint(&spec_from(&v)), fp);
    // An id is.
    let mut v = fixture_json("release.json");
    let q = v["questions"]
        .as_object_mut()
        .unwrap()
        .shift_remove("core")
        .unwrap();
    v["questions"]["core2"] = q;
    v["questions"]["scope"]["options"][1]["next"] = json!("core2");
    assert_ne!(fingerprint(&spec_from(&v)), fp);
}

/// Keeps `IndexMap` in use for readers who build banked entries by hand.
#[test]
fn hand_built_banked_entries_work_like_banked_ones() {
    let s = rules();
    let mut j = IndexMap::new();
    j.insert("a".to_string(), "hand".to_string());
    let b = vec![AnswerEntry {
        id: "single".into(),
        selected: vec!["a".into()],
        custom: None,
        skipped: false,
        justifications: j,
    }];
    let sub = submit(
        &s,
        &b,
        &json!({"answers": [{"id": "single", "selected": ["a"]}]}),
    )
    .unwrap();
    assert_eq!(strs(&sub.path), ["single", "multi", "nocustom", "text"]);
    assert_eq!(sub.answers[0].justifications["a"], "hand");
}

//! `ask_user_question` (`platform.md` §4.1): one test per validation rule, asserting code, path
//! and message prefix, plus happy paths, result shaping and no-panic properties.

use askd_core::Problem;
use askd_core::json::Json;
use askd_core::problem::join_messages;
use askd_core::questions::{
    FlatOption, FlatQuestion, HANDLING, QuestionsAnswer, QuestionsAnswers, QuestionsSpec,
    answered_result, args_schema, split_recommended, validate, validate_answers,
};
use proptest::prelude::*;
use serde_json::{Value, json};

// ---------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------

/// A valid call: a single-select question with a recommended option and a free-text question.
fn base() -> Value {
    json!({
        "questions": [
            {
                "id": "scope",
                "question": "Which scope fits the release?",
                "header": "Scope",
                "options": [
                    { "label": "Ship the API (Recommended)", "description": "Freeze and publish." },
                    { "label": "Rework the core" },
                    { "label": "Bug fixes only" }
                ]
            },
            { "id": "notes", "question": "Anything else?" }
        ]
    })
}

/// `base()` with the member at a JSON pointer set (the parent must exist).
fn with(pointer: &str, value: Value) -> Value {
    let mut v = base();
    let (parent, name) = pointer.rsplit_once('/').unwrap();
    let slot = v.pointer_mut(parent).unwrap();
    match slot {
        Value::Object(m) => {
            m.insert(name.to_owned(), value);
        }
        Value::Array(a) => a[name.parse::<usize>().unwrap()] = value,
        _ => panic!("{parent} is not a container"),
    }
    v
}

/// `base()` with the member at a JSON pointer removed.
fn without(pointer: &str) -> Value {
    let mut v = base();
    let (parent, name) = pointer.rsplit_once('/').unwrap();
    v.pointer_mut(parent)
        .unwrap()
        .as_object_mut()
        .unwrap()
        .shift_remove(name);
    v
}

fn check(v: &Value) -> Result<QuestionsSpec, Vec<Problem>> {
    validate(&Json::from_value(v))
}

fn ok(v: &Value) -> QuestionsSpec {
    match check(v) {
        Ok(spec) => spec,
        Err(p) => panic!("expected valid, got {}", join_messages(&p)),
    }
}

fn errs(v: &Value) -> Vec<Problem> {
    match check(v) {
        Ok(spec) => panic!("expected problems, got {spec:?}"),
        Err(p) => p,
    }
}

/// Asserts exactly one problem, with this code and path, whose message starts with `prefix`.
#[track_caller]
fn one(problems: Vec<Problem>, code: &str, path: &str, prefix: &str) -> Problem {
    assert_eq!(
        problems.len(),
        1,
        "expected one problem, got: {}",
        join_messages(&problems)
    );
    let p = problems.into_iter().next().unwrap();
    assert_eq!(p.code, code, "code of {p:?}");
    assert_eq!(p.path, path, "path of {p:?}");
    assert!(
        p.message.starts_with(prefix),
        "message {:?} should start with {prefix:?}",
        p.message
    );
    p
}

/// The one problem of invalid arguments `v`, whose message starts with its own path.
#[track_caller]
fn one_at(v: &Value, code: &str, path: &str) -> Problem {
    one(errs(v), code, path, path)
}

fn spec() -> QuestionsSpec {
    let mut v = base();
    v["questions"]
        .as_array_mut()
        .unwrap()
        .push(json!({"id": "checks", "question": "Which checks must pass?", "multiSelect": true,
                     "options": [{"label": "Docs"}, {"label": "Load test"}, {"label": "Security review"}]}));
    ok(&v)
}

fn answers(body: &Value) -> Result<QuestionsAnswers, Vec<Problem>> {
    validate_answers(&spec(), &Json::from_value(body))
}

fn answer_errs(body: Value) -> Vec<Problem> {
    match answers(&body) {
        Ok(a) => panic!("expected problems, got {a:?}"),
        Err(p) => p,
    }
}

fn answer_ok(body: Value) -> QuestionsAnswers {
    match answers(&body) {
        Ok(a) => a,
        Err(p) => panic!("expected valid answers, got {}", join_messages(&p)),
    }
}

/// The one problem of answer body `body`, whose message starts with its own path.
#[track_caller]
fn answer_one_at(body: Value, code: &str, path: &str) -> Problem {
    one(answer_errs(body), code, path, path)
}

// ---------------------------------------------------------------------------------------------
// Happy paths and the normal form
// ---------------------------------------------------------------------------------------------

#[test]
fn valid_arguments_give_the_normal_form() {
    let spec = ok(&base());
    assert_eq!(
        spec,
        QuestionsSpec {
            questions: vec![
                FlatQuestion {
                    id: "scope".into(),
                    question: "Which scope fits the release?".into(),
                    header: Some("Scope".into()),
                    detail: None,
                    options: vec![
                        FlatOption {
                            label: "Ship the API (Recommended)".into(),
                            description: Some("Freeze and publish.".into()),
                        },
                        FlatOption {
                            label: "Rework the core".into(),
                            description: None,
                        },
                        FlatOption {
                            label: "Bug fixes only".into(),
                            description: None,
                        },
                    ],
                    multi_select: false,
                },
                FlatQuestion {
                    id: "notes".into(),
                    question: "Anything else?".into(),
                    header: None,
                    detail: None,
                    options: vec![],
                    multi_select: false,
                },
            ],
        }
    );
}

#[test]
fn normal_form_serialises_snake_case_and_omits_absent_optionals() {
    let spec = ok(&with("/questions/1/multiSelect", json!(true)));
    let v = serde_json::to_value(&spec).unwrap();
    assert_eq!(
        v["questions"][1],
        json!({"id": "notes", "question": "Anything else?", "multi_select": true})
    );
    assert_eq!(
        v["questions"][0]["options"][1],
        json!({"label": "Rework the core"})
    );
    let keys: Vec<_> = v["questions"][0].as_object().unwrap().keys().collect();
    assert_eq!(
        keys,
        ["id", "question", "header", "options", "multi_select"]
    );
}

#[test]
fn normal_form_round_trips_through_serde_and_validate() {
    let spec = ok(&base());
    let v = serde_json::to_value(&spec).unwrap();
    assert_eq!(
        serde_json::from_value::<QuestionsSpec>(v.clone()).unwrap(),
        spec
    );
    assert_eq!(ok(&v), spec);
}

#[test]
fn deserialising_accepts_the_multiselect_alias() {
    let q: FlatQuestion =
        serde_json::from_value(json!({"id": "a", "question": "b", "multiSelect": true})).unwrap();
    assert!(q.multi_select);
    assert!(q.is_free_text());
}

#[test]
fn four_questions_are_accepted() {
    let q = json!({"id": "x", "question": "?"});
    let mut qs = vec![];
    for i in 0..4 {
        let mut q = q.clone();
        q["id"] = json!(format!("q{i}"));
        qs.push(q);
    }
    assert_eq!(ok(&json!({ "questions": qs })).questions.len(), 4);
}

#[test]
fn null_optionals_count_as_absent() {
    let v = json!({"questions": [{"id": "a", "question": "?", "header": null, "detail": null,
        "options": null, "multi_select": null, "multiSelect": null}],
        "timeout_s": null, "replaces": null});
    let spec = ok(&v);
    assert_eq!(spec.questions[0].header, None);
    assert!(spec.questions[0].is_free_text());
    assert!(!spec.questions[0].multi_select);
}

#[test]
fn empty_options_array_is_a_free_text_question() {
    let spec = ok(&with("/questions/0/options", json!([])));
    assert!(spec.questions[0].is_free_text());
}

#[test]
fn unknown_members_are_ignored() {
    let mut v = with("/questions/0/colour", json!("blue"));
    v["extra"] = json!({"x": 1});
    v["questions"][0]["options"][0]["insight"] = json!(42);
    assert_eq!(ok(&v), ok(&base()));
}

#[test]
fn text_is_kept_as_sent() {
    let v = with("/questions/0/question", json!("  Which\\nscope?  "));
    assert_eq!(ok(&v).questions[0].question, "  Which\\nscope?  ");
}

#[test]
fn header_line_breaks_become_spaces() {
    let v = with("/questions/0/header", json!("Scope\r\nand\nde\rlivery"));
    assert_eq!(
        ok(&v).questions[0].header.as_deref(),
        Some("Scope and de livery")
    );
}

#[test]
fn blank_optional_text_is_dropped() {
    let mut v = with("/questions/0/header", json!("  "));
    v["questions"][0]["detail"] = json!("");
    v["questions"][0]["options"][0]["description"] = json!("\n");
    let q = &ok(&v).questions[0];
    assert_eq!(q.header, None);
    assert_eq!(q.detail, None);
    assert_eq!(q.options[0].description, None);
}

#[test]
fn limits_count_unicode_scalar_values() {
    let mut v = with("/questions/0/id", json!("é".repeat(64)));
    v["questions"][0]["header"] = json!("界".repeat(40));
    v["questions"][0]["options"][1]["label"] = json!("😀".repeat(200));
    v["questions"][0]["options"][1]["description"] = json!("ü".repeat(400));
    v["questions"][1]["question"] = json!("x".repeat(4000));
    v["questions"][1]["detail"] = json!("y".repeat(8000));
    ok(&v);
}

#[test]
fn timeout_s_is_accepted_as_whole_seconds() {
    ok(&with("/timeout_s", json!(45)));
    ok(&with("/timeout_s", json!(0)));
}

#[test]
fn args_schema_declares_every_field() {
    let s = args_schema();
    assert_eq!(s["type"], "object");
    assert_eq!(s["required"], json!(["questions"]));
    let qs = &s["properties"]["questions"];
    assert_eq!(
        (qs["minItems"].as_u64(), qs["maxItems"].as_u64()),
        (Some(1), Some(4))
    );
    let q = &qs["items"];
    assert_eq!(q["required"], json!(["id", "question"]));
    for field in [
        "id",
        "question",
        "header",
        "detail",
        "options",
        "multi_select",
    ] {
        assert!(q["properties"].get(field).is_some(), "missing {field}");
    }
    assert_eq!(q["properties"]["header"]["maxLength"], 40);
    assert_eq!(q["properties"]["options"]["maxItems"], 12);
    let o = &q["properties"]["options"]["items"];
    assert_eq!(o["required"], json!(["label"]));
    assert_eq!(o["properties"]["label"]["maxLength"], 200);
    assert!(s["properties"].get("timeout_s").is_some());
    assert!(s["properties"].get("replaces").is_none());
}

#[test]
fn recommended_suffix_is_recognised() {
    assert_eq!(
        split_recommended("Ship it (Recommended)"),
        ("Ship it", true)
    );
    assert_eq!(split_recommended("发布 (推荐)"), ("发布", true));
    assert_eq!(split_recommended("Ship it"), ("Ship it", false));
}

// ---------------------------------------------------------------------------------------------
// Argument rules, one test each
// ---------------------------------------------------------------------------------------------

#[test]
fn args_not_object_is_rejected_naming_the_kind() {
    for (v, kind) in [
        (json!("{\"questions\": []}"), "got a string"),
        (json!([1]), "got an array"),
        (Value::Null, "got null"),
        (json!(3), "got a number"),
    ] {
        let p = one(
            errs(&v),
            "args_not_object",
            "",
            "the ask_user_question arguments",
        );
        assert!(p.message.contains(kind), "{}", p.message);
    }
}

#[test]
fn questions_missing_is_rejected_with_path() {
    one_at(&without("/questions"), "questions_missing", "questions");
    one_at(
        &with("/questions", Value::Null),
        "questions_missing",
        "questions",
    );
}

#[test]
fn questions_type_is_rejected_with_path() {
    let p = one_at(
        &with("/questions", json!({"a": {}})),
        "questions_type",
        "questions",
    );
    assert!(p.message.contains("got an object"));
}

#[test]
fn questions_empty_is_rejected_with_path() {
    one_at(
        &with("/questions", json!([])),
        "questions_empty",
        "questions",
    );
}

#[test]
fn questions_too_many_is_rejected_with_path() {
    let qs: Vec<_> = (0..5)
        .map(|i| json!({"id": format!("q{i}"), "question": "?"}))
        .collect();
    let p = one_at(
        &json!({ "questions": qs }),
        "questions_too_many",
        "questions",
    );
    assert!(p.message.contains("5 questions (limit 4)"));
}

#[test]
fn questions_too_many_still_checks_each_question() {
    let mut qs: Vec<_> = (0..5)
        .map(|i| json!({"id": format!("q{i}"), "question": "?"}))
        .collect();
    qs[4]["question"] = json!("");
    let p = errs(&json!({ "questions": qs }));
    let codes: Vec<_> = p.iter().map(|p| (p.code, p.path.as_str())).collect();
    assert_eq!(
        codes,
        [
            ("questions_too_many", "questions"),
            ("question_missing", "questions[4].question")
        ]
    );
}

#[test]
fn question_type_is_rejected_with_path() {
    let p = one_at(
        &with("/questions/1", json!("Anything else?")),
        "question_type",
        "questions[1]",
    );
    assert!(p.message.contains("got a string"));
}

#[test]
fn id_missing_is_rejected_with_path() {
    one_at(&without("/questions/1/id"), "id_missing", "questions[1].id");
    one_at(
        &with("/questions/1/id", json!("  ")),
        "id_missing",
        "questions[1].id",
    );
    let p = one_at(
        &with("/questions/1/id", json!(7)),
        "id_missing",
        "questions[1].id",
    );
    assert!(p.message.contains("got a number"));
}

#[test]
fn id_too_long_is_rejected_with_path() {
    one_at(
        &with("/questions/0/id", json!("x".repeat(65))),
        "id_too_long",
        "questions[0].id",
    );
}

#[test]
fn id_duplicate_is_rejected_with_path() {
    let p = one_at(
        &with("/questions/1/id", json!("scope")),
        "id_duplicate",
        "questions[1].id",
    );
    assert!(p.message.contains("questions[0].id"), "{}", p.message);
}

#[test]
fn question_missing_is_rejected_with_path() {
    one_at(
        &without("/questions/0/question"),
        "question_missing",
        "questions[0].question",
    );
    one_at(
        &with("/questions/0/question", json!(" \n")),
        "question_missing",
        "questions[0].question",
    );
    one_at(
        &with("/questions/0/question", json!(["?"])),
        "question_missing",
        "questions[0].question",
    );
}

#[test]
fn question_too_long_is_rejected_with_path() {
    one_at(
        &with("/questions/0/question", json!("x".repeat(4001))),
        "question_too_long",
        "questions[0].question",
    );
}

#[test]
fn header_type_is_rejected_with_path() {
    one_at(
        &with("/questions/0/header", json!(true)),
        "header_type",
        "questions[0].header",
    );
}

#[test]
fn header_too_long_is_rejected_with_path() {
    one_at(
        &with("/questions/0/header", json!("x".repeat(41))),
        "header_too_long",
        "questions[0].header",
    );
}

#[test]
fn detail_type_is_rejected_with_path() {
    one_at(
        &with("/questions/1/detail", json!({"md": "x"})),
        "detail_type",
        "questions[1].detail",
    );
}

#[test]
fn detail_too_long_is_rejected_with_path() {
    one_at(
        &with("/questions/1/detail", json!("x".repeat(8001))),
        "detail_too_long",
        "questions[1].detail",
    );
}

#[test]
fn options_type_is_rejected_with_path() {
    one_at(
        &with("/questions/0/options", json!("A, B")),
        "options_type",
        "questions[0].options",
    );
}

#[test]
fn options_too_few_is_rejected_with_path() {
    let p = one_at(
        &with("/questions/0/options", json!([{"label": "Only"}])),
        "options_too_few",
        "questions[0].options",
    );
    assert!(p.message.contains("free-text"), "{}", p.message);
}

#[test]
fn options_too_many_is_rejected_with_path() {
    let opts: Vec<_> = (0..13).map(|i| json!({"label": format!("o{i}")})).collect();
    let p = one_at(
        &with("/questions/0/options", json!(opts)),
        "options_too_many",
        "questions[0].options",
    );
    assert!(p.message.contains("13 options (limit 12)"));
    let opts: Vec<_> = (0..12).map(|i| json!({"label": format!("o{i}")})).collect();
    assert_eq!(
        ok(&with("/questions/0/options", json!(opts))).questions[0]
            .options
            .len(),
        12
    );
}

#[test]
fn option_type_is_rejected_with_path() {
    one_at(
        &with("/questions/0/options/2", json!("Bug fixes only")),
        "option_type",
        "questions[0].options[2]",
    );
}

#[test]
fn label_missing_is_rejected_with_path() {
    one_at(
        &without("/questions/0/options/1/label"),
        "label_missing",
        "questions[0].options[1].label",
    );
    one_at(
        &with("/questions/0/options/1/label", json!("")),
        "label_missing",
        "questions[0].options[1].label",
    );
    one_at(
        &with("/questions/0/options/1/label", json!(null)),
        "label_missing",
        "questions[0].options[1].label",
    );
}

#[test]
fn label_missing_when_only_the_recommended_marker_is_given() {
    one_at(
        &with("/questions/0/options/1/label", json!("(Recommended)")),
        "label_missing",
        "questions[0].options[1].label",
    );
}

#[test]
fn label_too_long_is_rejected_with_path() {
    one_at(
        &with("/questions/0/options/1/label", json!("x".repeat(201))),
        "label_too_long",
        "questions[0].options[1].label",
    );
}

#[test]
fn label_duplicate_is_rejected_with_path() {
    let p = one_at(
        &with("/questions/0/options/2/label", json!("Rework the core")),
        "label_duplicate",
        "questions[0].options[2].label",
    );
    assert!(
        p.message.contains("questions[0].options[1].label"),
        "{}",
        p.message
    );
}

#[test]
fn label_duplicate_ignores_surrounding_space_and_the_recommended_marker() {
    one_at(
        &with("/questions/0/options/2/label", json!(" Rework the core ")),
        "label_duplicate",
        "questions[0].options[2].label",
    );
    one_at(
        &with("/questions/0/options/1/label", json!("Ship the API")),
        "label_duplicate",
        "questions[0].options[1].label",
    );
}

#[test]
fn labels_may_repeat_across_questions() {
    let mut v = base();
    v["questions"][1]["options"] = json!([{"label": "Rework the core"}, {"label": "Other"}]);
    ok(&v);
}

#[test]
fn description_type_is_rejected_with_path() {
    one_at(
        &with("/questions/0/options/0/description", json!(1)),
        "description_type",
        "questions[0].options[0].description",
    );
}

#[test]
fn description_too_long_is_rejected_with_path() {
    one_at(
        &with("/questions/0/options/0/description", json!("x".repeat(401))),
        "description_too_long",
        "questions[0].options[0].description",
    );
}

#[test]
fn multi_select_type_is_rejected_with_path() {
    one_at(
        &with("/questions/0/multi_select", json!("yes")),
        "multi_select_type",
        "questions[0].multi_select",
    );
    one_at(
        &with("/questions/0/multiSelect", json!(1)),
        "multi_select_type",
        "questions[0].multiSelect",
    );
}

#[test]
fn multi_select_accepts_either_spelling() {
    assert!(ok(&with("/questions/0/multi_select", json!(true))).questions[0].multi_select);
    assert!(ok(&with("/questions/0/multiSelect", json!(true))).questions[0].multi_select);
    let mut v = with("/questions/0/multiSelect", json!(true));
    v["questions"][0]["multi_select"] = json!(true);
    assert!(ok(&v).questions[0].multi_select);
}

#[test]
fn multi_select_conflict_is_rejected_with_path() {
    let mut v = with("/questions/0/multiSelect", json!(true));
    v["questions"][0]["multi_select"] = json!(false);
    one_at(&v, "multi_select_conflict", "questions[0]");
}

#[test]
fn timeout_s_type_is_rejected_with_path() {
    for bad in [json!("30"), json!(-1), json!(1.5), json!([30])] {
        one_at(&with("/timeout_s", bad), "timeout_s_type", "timeout_s");
    }
}

#[test]
fn replaces_not_accepted_is_rejected_with_path() {
    let p = one_at(
        &with("/replaces", json!("0193a6f2")),
        "replaces_not_accepted",
        "replaces",
    );
    assert!(
        p.message
            .starts_with("replaces is accepted by ask_survey only")
    );
}

#[test]
fn errors_accumulate_in_document_order() {
    let v = json!({
        "replaces": "x",
        "questions": [
            {"id": "a", "question": "", "header": 1,
             "options": [{"label": "x"}, {"label": "x", "description": []}], "multiSelect": "no"},
            7,
            {"id": "a", "question": "?", "options": [{}]}
        ],
        "timeout_s": "soon"
    });
    let got: Vec<_> = errs(&v)
        .into_iter()
        .map(|p| {
            assert!(p.message.starts_with(&p.path), "{p:?}");
            (p.code, p.path)
        })
        .collect();
    let want = [
        ("question_missing", "questions[0].question"),
        ("header_type", "questions[0].header"),
        ("label_duplicate", "questions[0].options[1].label"),
        ("description_type", "questions[0].options[1].description"),
        ("multi_select_type", "questions[0].multiSelect"),
        ("question_type", "questions[1]"),
        ("id_duplicate", "questions[2].id"),
        ("options_too_few", "questions[2].options"),
        ("label_missing", "questions[2].options[0].label"),
        ("timeout_s_type", "timeout_s"),
        ("replaces_not_accepted", "replaces"),
    ];
    let got: Vec<_> = got.iter().map(|(c, p)| (*c, p.as_str())).collect();
    assert_eq!(got, want);
}

#[test]
fn long_values_are_cut_in_messages() {
    let long = "z".repeat(10_000);
    let mut v = base();
    v["questions"][0]["options"][1]["label"] = json!(long.clone());
    v["questions"][0]["options"][2]["label"] = json!(long);
    for p in errs(&v) {
        assert!(p.message.len() < 500, "{}", p.message.len());
    }
}

// ---------------------------------------------------------------------------------------------
// Answer rules, one test each
// ---------------------------------------------------------------------------------------------

#[test]
fn answers_type_is_rejected_with_path() {
    answer_one_at(
        json!({"answers": {"scope": ["x"]}}),
        "answers_type",
        "answers",
    );
    answer_one_at(json!({}), "answers_type", "answers");
    let p = answer_one_at(json!([{"id": "scope"}]), "answers_type", "answers");
    assert!(p.message.contains("an array"), "{}", p.message);
}

#[test]
fn answer_type_is_rejected_with_path() {
    answer_one_at(json!({"answers": ["scope"]}), "answer_type", "answers[0]");
}

#[test]
fn answer_unknown_question_is_rejected_with_path() {
    let p = answer_one_at(
        json!({"answers": [{"id": "scop", "selected": []}]}),
        "answer_unknown_question",
        "answers[0].id",
    );
    assert!(
        p.message.contains("\"scope\", \"notes\", \"checks\""),
        "{}",
        p.message
    );
    answer_one_at(
        json!({"answers": [{"selected": []}]}),
        "answer_unknown_question",
        "answers[0].id",
    );
    answer_one_at(
        json!({"answers": [{"id": 1, "selected": []}]}),
        "answer_unknown_question",
        "answers[0].id",
    );
}

#[test]
fn answer_duplicate_question_is_rejected_with_path() {
    answer_one_at(
        json!({"answers": [{"id": "notes", "selected": [], "custom": "a"},
                           {"id": "notes", "selected": [], "custom": "b"}]}),
        "answer_duplicate_question",
        "answers[1].id",
    );
}

#[test]
fn selected_type_is_rejected_with_path() {
    for bad in [
        None,
        Some(json!(null)),
        Some(json!("Docs")),
        Some(json!(["Docs", 1])),
    ] {
        let mut entry = json!({"id": "checks", "custom": "x"});
        if let Some(b) = bad {
            entry["selected"] = b;
        }
        answer_one_at(
            json!({ "answers": [entry] }),
            "selected_type",
            "answers[0].selected",
        );
    }
}

#[test]
fn selected_duplicate_is_rejected_with_path() {
    answer_one_at(
        json!({"answers": [{"id": "checks", "selected": ["Docs", "Docs"]}]}),
        "selected_duplicate",
        "answers[0].selected",
    );
}

#[test]
fn selected_unknown_label_is_rejected_per_label_with_path() {
    let p =
        answer_errs(json!({"answers": [{"id": "checks", "selected": ["Docs", "docs", "Lint"]}]}));
    assert_eq!(p.len(), 2, "{}", join_messages(&p));
    assert_eq!(
        (p[0].code, p[0].path.as_str()),
        ("selected_unknown_label", "answers[0].selected[1]")
    );
    assert_eq!(
        (p[1].code, p[1].path.as_str()),
        ("selected_unknown_label", "answers[0].selected[2]")
    );
    assert!(p[0].message.starts_with("answers[0].selected[1]"));
}

#[test]
fn selected_unknown_label_on_a_free_text_question_names_custom() {
    let p = answer_one_at(
        json!({"answers": [{"id": "notes", "selected": ["Yes"]}]}),
        "selected_unknown_label",
        "answers[0].selected[0]",
    );
    assert!(p.message.contains("free-text"), "{}", p.message);
}

#[test]
fn selected_label_must_match_as_sent_including_the_marker() {
    answer_one_at(
        json!({"answers": [{"id": "scope", "selected": ["Ship the API"]}]}),
        "selected_unknown_label",
        "answers[0].selected[0]",
    );
}

#[test]
fn custom_type_is_rejected_with_path() {
    answer_one_at(
        json!({"answers": [{"id": "notes", "selected": [], "custom": 5}]}),
        "custom_type",
        "answers[0].custom",
    );
}

#[test]
fn custom_too_long_is_rejected_with_path() {
    answer_one_at(
        json!({"answers": [{"id": "notes", "selected": [], "custom": "x".repeat(8001)}]}),
        "custom_too_long",
        "answers[0].custom",
    );
    let padded = format!("  {}  ", "x".repeat(8000));
    answer_ok(json!({"answers": [{"id": "notes", "selected": [], "custom": padded}]}));
}

#[test]
fn single_select_multiple_is_rejected_with_path() {
    let p = answer_one_at(
        json!({"answers": [{"id": "scope", "selected": ["Rework the core", "Bug fixes only"]}]}),
        "single_select_multiple",
        "answers[0].selected",
    );
    assert!(p.message.contains("selects 2 options"));
}

#[test]
fn single_select_mixed_is_rejected_with_path() {
    answer_one_at(
        json!({"answers": [{"id": "scope", "selected": ["Rework the core"], "custom": "and docs"}]}),
        "single_select_mixed",
        "answers[0]",
    );
}

#[test]
fn single_select_takes_one_label_or_custom_text() {
    answer_ok(
        json!({"answers": [{"id": "scope", "selected": ["Rework the core"], "custom": "  "}]}),
    );
    answer_ok(json!({"answers": [{"id": "scope", "selected": [], "custom": "Split it"}]}));
}

#[test]
fn multi_select_takes_several_labels_and_custom_text() {
    let a = answer_ok(json!({"answers": [
        {"id": "checks", "selected": ["Security review", "Docs"], "custom": " fuzzing "}]}));
    assert_eq!(
        a.answers,
        [QuestionsAnswer {
            id: "checks".into(),
            selected: vec!["Security review".into(), "Docs".into()],
            custom: Some("fuzzing".into()),
        }]
    );
}

#[test]
fn no_substance_is_rejected_with_path() {
    for body in [
        json!({"answers": []}),
        json!({"answers": [{"id": "scope", "selected": []}, {"id": "notes", "selected": [], "custom": " "}]}),
        json!({"answers": [{"id": "notes", "selected": [], "custom": null}]}),
    ] {
        let p = one(
            answer_errs(body),
            "no_substance",
            "answers",
            "answers carries no selections",
        );
        assert!(p.message.contains("Pick an option"));
    }
}

#[test]
fn entry_errors_accumulate_in_submission_order() {
    let p = answer_errs(json!({"answers": [
        {"id": "nope", "selected": []},
        {"id": "scope", "selected": ["Rework the core", "Bug fixes only"]},
        "x",
        {"id": "checks", "selected": ["Docs"], "custom": 1}
    ]}));
    let got: Vec<_> = p.iter().map(|p| (p.code, p.path.as_str())).collect();
    assert_eq!(
        got,
        [
            ("answer_unknown_question", "answers[0].id"),
            ("single_select_multiple", "answers[1].selected"),
            ("answer_type", "answers[2]"),
            ("custom_type", "answers[3].custom"),
        ]
    );
}

// ---------------------------------------------------------------------------------------------
// Result shaping
// ---------------------------------------------------------------------------------------------

#[test]
fn answered_result_lists_answers_in_question_order_and_skips_the_rest() {
    let spec = spec();
    let a = answer_ok(json!({"answers": [
        {"id": "checks", "selected": ["Load test"], "custom": "  and fuzzing  ", "skipped": false},
        {"id": "notes", "selected": [], "custom": ""},
        {"id": "scope", "selected": ["Ship the API (Recommended)"], "custom": null}
    ]}));
    let r = answered_result(&spec, "ask-1", &a);
    assert_eq!(
        r,
        json!({
            "outcome": "answered",
            "ask_id": "ask-1",
            "answers": [
                {"id": "scope", "selected": ["Ship the API (Recommended)"]},
                {"id": "checks", "selected": ["Load test"], "custom": "and fuzzing"}
            ],
            "skipped": ["notes"],
            "handling": HANDLING
        })
    );
    let keys: Vec<_> = r.as_object().unwrap().keys().cloned().collect();
    assert_eq!(
        keys,
        ["outcome", "ask_id", "answers", "skipped", "handling"]
    );
}

#[test]
fn answered_result_skips_questions_without_an_entry() {
    let spec = spec();
    let a =
        answer_ok(json!({"answers": [{"id": "notes", "selected": [], "custom": "Ship Friday"}]}));
    let r = answered_result(&spec, "ask-2", &a);
    assert_eq!(
        r["answers"],
        json!([{"id": "notes", "selected": [], "custom": "Ship Friday"}])
    );
    assert_eq!(r["skipped"], json!(["scope", "checks"]));
}

#[test]
fn handling_states_the_contract() {
    for phrase in [
        "mirroring",
        "Trace every decision",
        "Never re-ask",
        "honour what they wrote",
    ] {
        assert!(HANDLING.contains(phrase), "{phrase}");
    }
}

// ---------------------------------------------------------------------------------------------
// Properties
// ---------------------------------------------------------------------------------------------

const NAMES: &[&str] = &[
    "questions",
    "id",
    "question",
    "header",
    "detail",
    "options",
    "label",
    "description",
    "multi_select",
    "multiSelect",
    "timeout_s",
    "replaces",
    "answers",
    "selected",
    "custom",
];

fn arb_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<f64>().prop_map(Value::from),
        "\\PC{0,12}".prop_map(Value::String),
        prop::sample::select(vec!["a", "b", "", " ", "a\r\nb", "(Recommended)", "Docs"])
            .prop_map(Value::from),
    ];
    let key = prop_oneof![
        prop::sample::select(NAMES).prop_map(str::to_owned),
        "\\PC{0,6}"
    ];
    crate::kit::json_tree(leaf.boxed(), key.boxed(), (6, 96, 6))
}

/// Arguments shaped like a real call, so that some are valid.
fn arb_args() -> impl Strategy<Value = Value> {
    let text = prop::sample::select(vec!["a", "b", "a", "", " ", "x\ny", "B (Recommended)"]);
    let option = (text.clone(), prop::option::of(text.clone()))
        .prop_map(|(l, d)| json!({"label": l, "description": d}));
    let question = (
        text.clone(),
        text.clone(),
        prop::option::of(text.clone()),
        prop::option::of(prop::collection::vec(option, 0..4)),
        prop::option::of(any::<bool>()),
        prop::option::of(any::<bool>()),
    )
        .prop_map(|(id, q, h, o, m1, m2)| {
            json!({"id": id, "question": q, "header": h, "options": o,
                   "multi_select": m1, "multiSelect": m2})
        });
    prop::collection::vec(question, 0..6).prop_map(|qs| json!({ "questions": qs }))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn validate_never_panics_on_arbitrary_json(v in arb_json()) {
        let r = validate(&Json::from_value(&v));
        if let Err(problems) = r {
            prop_assert!(!problems.is_empty());
            for p in &problems {
                prop_assert!(
                    p.message.starts_with(&p.path) || p.path.is_empty(),
                    "{:?}", p
                );
            }
        }
    }

    #[test]
    fn validate_answers_never_panics_on_arbitrary_json(v in arb_json(), wrap in any::<bool>()) {
        let body = if wrap { json!({ "answers": v }) } else { v };
        let _ = validate_answers(&spec(), &Json::from_value(&body));
    }

    #[test]
    fn the_normal_form_validates_to_itself(v in arb_args()) {
        if let Ok(spec) = validate(&Json::from_value(&v)) {
            let again = serde_json::to_value(&spec).unwrap();
            prop_assert_eq!(validate(&Json::from_value(&again)), Ok(spec));
        }
    }

    #[test]
    fn valid_answers_always_shape_a_result(v in arb_args(), picks in prop::collection::vec((0usize..6, 0usize..4, any::<bool>()), 0..6)) {
        if let Ok(spec) = validate(&Json::from_value(&v)) {
            let entries: Vec<Value> = picks.iter().filter_map(|(q, o, c)| {
                let q = spec.questions.get(*q)?;
                let selected: Vec<_> = q.options.get(*o).map(|o| o.label.clone()).into_iter().collect();
                Some(json!({"id": q.id, "selected": selected, "custom": if *c { Some("typed") } else { None }}))
            }).collect();
            let body = json!({ "answers": entries });
            if let Ok(a) = validate_answers(&spec, &Json::from_value(&body)) {
                let r = answered_result(&spec, "x", &a);
                let listed = r["answers"].as_array().unwrap().len();
                let skipped = r["skipped"].as_array().unwrap().len();
                prop_assert_eq!(listed + skipped, spec.questions.len());
                prop_assert!(listed >= 1);
            }
        }
    }
}

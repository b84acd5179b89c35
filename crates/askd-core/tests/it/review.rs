//! `batch_review` (`review.md`): one test per validation rule (code, path, message), the
//! normalisation rules, the verdict/filled table of every type, summary counts, report_text
//! golden files in both languages, drafts, exports and imports, and no panic on any input.

use askd_core::Problem;
use askd_core::json::{self, Json};
use askd_core::review::answers::{ItemAnswer, validate_submit};
use askd_core::review::fold::{self, answered_result, cancelled_result};
use askd_core::review::import::{self, Format};
use askd_core::review::model::args_schema;
use askd_core::review::validate::validate_with;
use askd_core::review::{ItemType, Lang, Limits, ReviewSpec, Surface, draft, export, validate};
use proptest::prelude::*;
use serde_json::{Value, json};

// ---------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------

fn fixture(name: &str) -> String {
    crate::kit::fixture_text("review", name)
}

fn limits() -> Limits {
    Limits::default()
}

fn check(v: &Value) -> Result<ReviewSpec, Vec<Problem>> {
    validate(&Json::from_value(v), &limits())
}

fn ok(v: Value) -> ReviewSpec {
    check(&v).unwrap_or_else(|p| panic!("expected valid, got {p:#?}"))
}

fn errs(v: Value) -> Vec<Problem> {
    check(&v).expect_err("expected problems")
}

/// The single problem of an invalid call: its path, code and message.
#[track_caller]
fn one(v: Value) -> (String, &'static str, String) {
    let p = errs(v);
    assert_eq!(p.len(), 1, "expected one problem, got {p:#?}");
    (p[0].path.clone(), p[0].code, p[0].message.clone())
}

/// A call with one item.
fn item(i: Value) -> Value {
    json!({"title": "T", "items": [i]})
}

fn en() -> ReviewSpec {
    ok(serde_json::from_str(&fixture("review-en.json")).unwrap())
}

fn zh() -> ReviewSpec {
    ok(serde_json::from_str(&fixture("review-zh.json")).unwrap())
}

fn ans(id: &str, verdict: &str, note: &str) -> ItemAnswer {
    ItemAnswer {
        id: id.into(),
        verdict: verdict.into(),
        selected: Vec::new(),
        note: note.into(),
    }
}

/// The answers of §4.5: 1 pass, 2 fail with a note, 3 blank, 4 yes, 5 B, 6 four, 7 text.
fn example_answers(note2: &str, text7: &str) -> Vec<ItemAnswer> {
    vec![
        ans("1", "pass", ""),
        ans("2", "fail", note2),
        ans("4", "yes", ""),
        ItemAnswer {
            id: "5".into(),
            verdict: "B".into(),
            selected: vec!["B".into()],
            note: String::new(),
        },
        ans("6", "4", ""),
        ans("7", "", text7),
    ]
}

fn submit(spec: &ReviewSpec, body: Value) -> Result<Vec<ItemAnswer>, Vec<Problem>> {
    validate_submit(spec, &Json::from_value(&body)).map(|s| s.answers)
}

fn submit_err(spec: &ReviewSpec, body: Value) -> (String, &'static str, String) {
    let p = submit(spec, body).expect_err("expected answer problems");
    assert_eq!(p.len(), 1, "{p:#?}");
    (p[0].path.clone(), p[0].code, p[0].message.clone())
}

// ---------------------------------------------------------------------------------------------
// Validation: top level
// ---------------------------------------------------------------------------------------------

#[test]
fn the_example_call_is_valid_and_normalised() {
    let s = en();
    assert_eq!(s.title, "Acceptance: file copy / download buttons");
    assert_eq!(s.lang, Lang::En);
    assert_eq!(s.persist.as_deref(), Some("review/acceptance.json"));
    let ids: Vec<&str> = s.items.iter().map(|i| i.id.as_str()).collect();
    assert_eq!(ids, ["1", "2", "3", "4", "5", "6", "7"]);
    // op served as the heading and is not kept separately.
    assert_eq!(s.items[0].title, "Restart askd and reload the page");
    assert_eq!(s.items[0].op, None);
    assert_eq!(s.items[0].expect.as_deref(), Some("No white screen"));
    assert_eq!(s.items[3].title, "Keep the gateway task resident");
    assert_eq!(s.items[4].multi_select, Some(false));
    assert_eq!((s.items[5].min, s.items[5].max), (Some(1), Some(5)));
    let v = serde_json::to_value(&s).unwrap();
    assert_eq!(
        v["items"][4],
        json!({"id": "5", "type": "choice", "title": "Connection mode",
               "options": [{"v": "A", "t": "Direct 18080"}, {"v": "B", "t": "Via subagent"}],
               "multiSelect": false})
    );
    // The stored form reads back unchanged.
    let back: ReviewSpec = serde_json::from_value(v).unwrap();
    assert_eq!(back, s);
}

#[test]
fn arguments_must_be_an_object() {
    let p = validate(&json::parse("[1]").unwrap(), &limits()).unwrap_err();
    assert_eq!((p[0].path.as_str(), p[0].code), ("", "wrong_type"));
}

#[test]
fn title_rules() {
    assert_eq!(
        one(json!({"items": [{"title": "x"}]})),
        ("title".into(), "required", "title is required".into())
    );
    assert_eq!(
        one(json!({"title": "  \n ", "items": [{"title": "x"}]})),
        ("title".into(), "empty", "title must not be empty".into())
    );
    assert_eq!(
        one(json!({"title": 5, "items": [{"title": "x"}]})),
        (
            "title".into(),
            "wrong_type",
            "title must be a string (got a number)".into()
        )
    );
    let long = "é".repeat(201);
    assert_eq!(
        one(json!({"title": long, "items": [{"title": "x"}]})),
        (
            "title".into(),
            "too_long",
            "title is 201 characters; the limit is 200".into()
        )
    );
    // 200 after trimming is fine; line breaks and tabs become one space.
    let s = ok(json!({"title": format!("  {}  ", "a".repeat(200)), "items": [{"title": "x"}]}));
    assert_eq!(s.title.len(), 200);
    let s = ok(json!({"title": "A\r\n\t\nB", "items": [{"title": "x"}]}));
    assert_eq!(s.title, "A B");
}

#[test]
fn items_rules() {
    assert_eq!(
        one(json!({"title": "T"})),
        ("items".into(), "required", "items is required".into())
    );
    assert_eq!(
        one(json!({"title": "T", "items": []})),
        (
            "items".into(),
            "empty",
            "items must contain at least one item".into()
        )
    );
    assert_eq!(
        one(json!({"title": "T", "items": {"a": 1}})),
        (
            "items".into(),
            "wrong_type",
            "items must be an array (got an object)".into()
        )
    );
    assert_eq!(
        one(json!({"title": "T", "items": ["x"]})),
        (
            "items[0]".into(),
            "wrong_type",
            "items[0] must be an object (got a string)".into()
        )
    );
}

#[test]
fn too_many_items_is_the_only_problem() {
    let many: Vec<Value> = (0..101).map(|_| json!({"bogus": true})).collect();
    let (path, code, message) = one(json!({"title": "", "items": many, "lang": "fr"}));
    assert_eq!((path.as_str(), code), ("items", "too_many_items"));
    assert_eq!(
        message,
        "items has 101 entries; maxItems is 100. Nothing was shown. Split the review into batches of at most 100 items (sort related items into groups first), or pass offline: true to have it reviewed as a spreadsheet"
    );
    // The cap comes from configuration.
    let three: Vec<Value> = (0..3).map(|i| json!({"title": format!("i{i}")})).collect();
    let tight = Limits {
        max_items: 2,
        ..limits()
    };
    let p = validate(
        &Json::from_value(&json!({"title": "T", "items": three})),
        &tight,
    )
    .unwrap_err();
    assert_eq!(p[0].code, "too_many_items");
    assert!(p[0].message.contains("maxItems is 2"), "{}", p[0].message);
    // Offline reviews have their own ceiling.
    let s = validate(
        &Json::from_value(&json!({"title": "T", "items": three, "offline": true})),
        &tight,
    )
    .unwrap();
    assert!(s.offline);
    let huge: Vec<Value> = (0..10_001).map(|_| json!({})).collect();
    let (_, code, message) = one(json!({"title": "T", "items": huge, "offline": true}));
    assert_eq!(code, "too_many_items");
    assert_eq!(
        message,
        "items has 10001 entries; an offline review holds at most 10000. Split it"
    );
}

#[test]
fn too_large_is_checked_first() {
    let tiny = Limits {
        max_items: 100,
        max_body_bytes: 40,
    };
    let v = json!({"title": "A title that is long enough", "items": [{"title": "x"}]});
    let p = validate(&Json::from_value(&v), &tiny).unwrap_err();
    assert_eq!(p.len(), 1);
    assert_eq!(p[0].code, "too_large");
    let n = v.to_string().len();
    assert_eq!(
        p[0].message,
        format!("the review is {n} bytes; maxBodyBytes is 40")
    );
}

#[test]
fn lang_rules() {
    let s = ok(json!({"title": "T", "items": [{"title": "x"}], "lang": "zh"}));
    assert_eq!(s.lang, Lang::Zh);
    let v = serde_json::to_value(&s).unwrap();
    assert_eq!(v["lang"], "zh-CN");
    assert_eq!(
        ok(json!({"title": "T", "items": [{"title": "x"}], "lang": "zh-CN"})).lang,
        Lang::Zh
    );
    assert_eq!(
        one(json!({"title": "T", "items": [{"title": "x"}], "lang": "fr"})),
        (
            "lang".into(),
            "invalid_lang",
            "lang must be \"en\" or \"zh-CN\" (got \"fr\")".into()
        )
    );
    assert_eq!(
        one(json!({"title": "T", "items": [{"title": "x"}], "lang": 1})).1,
        "wrong_type"
    );
}

#[test]
fn lang_is_inferred_from_the_title_then_the_headings() {
    assert_eq!(zh().lang, Lang::Zh);
    assert_eq!(en().lang, Lang::En);
    // Title without CJK: at least half of the headings decide.
    let half = ok(json!({"title": "Review", "items": [{"title": "检查"}, {"title": "check"}]}));
    assert_eq!(half.lang, Lang::Zh);
    let less = ok(
        json!({"title": "Review", "items": [{"title": "检查"}, {"title": "a"}, {"title": "b"}]}),
    );
    assert_eq!(less.lang, Lang::En);
    // Kana, Hangul, CJK punctuation and full-width forms count.
    for t in ["テスト", "검토", "「x」", "ＡＢ"] {
        assert_eq!(
            ok(json!({"title": t, "items": [{"title": "x"}]})).lang,
            Lang::Zh,
            "{t}"
        );
    }
}

#[test]
fn persist_rules() {
    let base = |p: Value| json!({"title": "T", "items": [{"title": "x"}], "persist": p});
    assert_eq!(
        one(base(json!(""))),
        (
            "persist".into(),
            "persist_invalid",
            "persist must not be empty".into()
        )
    );
    assert_eq!(
        one(base(json!("a\u{0}b"))).2,
        "persist contains a NUL character"
    );
    assert_eq!(
        one(base(json!("out/dir/"))).2,
        "persist ends in a path separator: out/dir/"
    );
    assert_eq!(
        one(base(json!("x".repeat(1025)))).2,
        "persist is 1025 characters; the limit is 1024"
    );
    assert_eq!(one(base(json!(3))).1, "wrong_type");
    // The caller's check runs on a syntactically valid path, and its problem takes persist's
    // place in the order.
    let v =
        json!({"title": "", "items": [{"title": "x"}], "persist": "../out.json", "offline": "no"});
    let p = validate_with(&Json::from_value(&v), &limits(), &mut |path| {
        Some(Problem::new(
            "persist",
            "persist_outside_workspace",
            format!("persist resolves to /elsewhere/{path}, outside the workspace /w; use a path inside the workspace"),
        ))
    })
    .unwrap_err();
    let codes: Vec<&str> = p.iter().map(|p| p.code).collect();
    assert_eq!(codes, ["empty", "persist_outside_workspace", "wrong_type"]);
    assert_eq!(p[2].path, "offline");
}

#[test]
fn timeout_s_and_offline_types() {
    assert!(check(&json!({"title": "T", "items": [{"title": "x"}], "timeout_s": 30})).is_ok());
    assert_eq!(
        one(json!({"title": "T", "items": [{"title": "x"}], "timeout_s": -1})).1,
        "out_of_range"
    );
    assert_eq!(
        one(json!({"title": "T", "items": [{"title": "x"}], "timeout_s": "30"})).1,
        "wrong_type"
    );
    assert_eq!(
        one(json!({"title": "T", "items": [{"title": "x"}], "offline": 1})),
        (
            "offline".into(),
            "wrong_type",
            "offline must be a boolean (got a number)".into()
        )
    );
}

#[test]
fn unknown_fields_are_rejected_at_every_level_with_a_suggestion() {
    let p = errs(json!({
        "titel": "x", "title": "T",
        "items": [
            {"title": "a", "lable": "b", "zzz": 1},
            {"type": "choice", "title": "c", "options": [{"v": "A", "t": "a", "text": "x"}, {"v": "B", "t": "b"}]}
        ]
    }));
    let got: Vec<(&str, &str, &str)> = p
        .iter()
        .map(|p| (p.path.as_str(), p.code, p.message.as_str()))
        .collect();
    assert_eq!(
        got,
        [
            (
                "titel",
                "unknown_field",
                "titel is not a batch_review field (did you mean \"title\"?)"
            ),
            (
                "items[0].lable",
                "unknown_field",
                "items[0].lable is not a batch_review field (did you mean \"label\"?)"
            ),
            (
                "items[0].zzz",
                "unknown_field",
                "items[0].zzz is not a batch_review field"
            ),
            (
                "items[1].options[0].text",
                "unknown_field",
                "items[1].options[0].text is not a batch_review field"
            ),
        ]
    );
    // Case slips are suggested too.
    let (_, _, m) = one(item(json!({"type": "bool", "title": "x", "booldesc": "y"})));
    assert_eq!(
        m,
        "items[0].booldesc is not a batch_review field (did you mean \"boolDesc\"?)"
    );
}

// ---------------------------------------------------------------------------------------------
// Validation: items
// ---------------------------------------------------------------------------------------------

#[test]
fn the_spec_error_example_in_document_order() {
    let p = errs(json!({
        "title": "T",
        "items": [
            {"id": 3, "title": "a"},
            {"id": "3", "title": "b"},
            {"title": "c", "options": [{"v": "A", "t": "a"}, {"v": "B", "t": "b"}]},
            {"title": "d"},
            {"type": "scale", "title": "e", "min": 5, "max": 5}
        ]
    }));
    let got: Vec<(&str, &str, &str)> = p
        .iter()
        .map(|p| (p.path.as_str(), p.code, p.message.as_str()))
        .collect();
    assert_eq!(
        got,
        [
            (
                "items[1].id",
                "duplicate_id",
                "items[1].id \"3\" duplicates items[0].id"
            ),
            (
                "items[2].options",
                "field_not_for_type",
                "items[2].options is not allowed on a confirm item (options belongs to choice; type was not given, so confirm was assumed)"
            ),
            (
                "items[4].max",
                "min_not_below_max",
                "items[4].max must be greater than min (min 5, max 5)"
            ),
        ]
    );
}

#[test]
fn field_not_for_type_names_the_owner() {
    let (path, code, message) = one(item(json!({"type": "bool", "title": "x", "op": "do"})));
    assert_eq!(
        (path.as_str(), code, message.as_str()),
        (
            "items[0].op",
            "field_not_for_type",
            "items[0].op is not allowed on a bool item (op belongs to confirm)"
        )
    );
    for (t, field, value, owner) in [
        ("confirm", "boolDesc", json!("y"), "bool"),
        ("text", "multiSelect", json!(true), "choice"),
        ("choice", "min", json!(1), "scale"),
        ("scale", "expect", json!("e"), "confirm"),
    ] {
        let mut i = json!({"type": t, "title": "x"});
        if t == "choice" {
            i["options"] = json!([{"v": "a", "t": "A"}, {"v": "b", "t": "B"}]);
        }
        i[field] = value;
        let (_, code, message) = one(item(i));
        assert_eq!(code, "field_not_for_type", "{t} {field}");
        assert!(
            message.ends_with(&format!("({field} belongs to {owner})")),
            "{message}"
        );
    }
}

#[test]
fn type_rules() {
    assert_eq!(
        one(item(json!({"type": "rating", "title": "x"}))),
        (
            "items[0].type".into(),
            "unknown_type",
            "items[0].type must be one of confirm, bool, choice, text, scale (got \"rating\")"
                .into()
        )
    );
    assert_eq!(one(item(json!({"type": 3, "title": "x"}))).1, "wrong_type");
    // An unknown type gets no field_not_for_type noise.
    assert_eq!(
        errs(item(
            json!({"type": "x", "title": "x", "op": "o", "min": 1})
        ))
        .len(),
        1
    );
    assert_eq!(
        ok(item(json!({"title": "x"}))).items[0].kind,
        ItemType::Confirm
    );
}

#[test]
fn heading_rules() {
    assert_eq!(
        one(item(json!({"type": "bool", "boolDesc": "x"}))),
        (
            "items[0].title".into(),
            "required",
            "items[0].title is required: give the item a title (or label; a confirm item may use op instead)".into()
        )
    );
    // A confirm item may use op; a blank op does not count.
    assert_eq!(ok(item(json!({"op": "Do\nit"}))).items[0].title, "Do it");
    assert_eq!(one(item(json!({"op": "  "}))).1, "required");
    assert_eq!(
        one(item(json!({"title": "a", "label": "b"}))),
        (
            "items[0].label".into(),
            "heading_conflict",
            "items[0].label has both title and label with different text; give only one".into()
        )
    );
    assert_eq!(
        ok(item(json!({"title": "a", "label": " a "}))).items[0].title,
        "a"
    );
    assert_eq!(
        one(item(json!({"label": ""}))),
        (
            "items[0].label".into(),
            "empty",
            "items[0].label must not be empty".into()
        )
    );
    assert_eq!(
        one(item(json!({"title": "x".repeat(501)}))).2,
        "items[0].title is 501 characters; the limit is 500"
    );
    // Title and op both given: op stays as the Action line.
    let s = ok(item(json!({"title": "t", "op": "o\r\nline"})));
    assert_eq!(s.items[0].op.as_deref(), Some("o\nline"));
}

#[test]
fn id_rules() {
    assert_eq!(
        one(item(json!({"id": "a b", "title": "x"}))),
        (
            "items[0].id".into(),
            "invalid_id",
            "items[0].id must be 1–64 characters from A–Z a–z 0–9 . _ : - or a non-negative integer (got \"a b\")".into()
        )
    );
    for bad in [
        json!(""),
        json!("x".repeat(65)),
        json!(-1),
        json!(1.5),
        json!(9_007_199_254_740_992u64),
    ] {
        assert_eq!(
            one(item(json!({"id": bad, "title": "x"}))).1,
            "invalid_id",
            "{bad}"
        );
    }
    assert_eq!(
        one(item(json!({"id": true, "title": "x"}))).2,
        "items[0].id must be a string or a non-negative integer (got a boolean)"
    );
    let s = ok(item(json!({"id": "Ab.9_:-", "title": "x"})));
    assert_eq!(s.items[0].id, "Ab.9_:-");
    assert_eq!(
        ok(item(json!({"id": 9_007_199_254_740_991u64, "title": "x"}))).items[0].id,
        "9007199254740991"
    );
}

#[test]
fn ids_are_assigned_in_order_around_explicit_ones() {
    let s = ok(
        json!({"title": "T", "items": [{"id": "2", "title": "a"}, {"title": "b"}, {"title": "c"}]}),
    );
    let ids: Vec<&str> = s.items.iter().map(|i| i.id.as_str()).collect();
    assert_eq!(ids, ["2", "1", "3"]);
    let s = ok(
        json!({"title": "T", "items": [{"title": "a"}, {"title": "b"}, {"id": 1, "title": "c"}]}),
    );
    let ids: Vec<&str> = s.items.iter().map(|i| i.id.as_str()).collect();
    assert_eq!(ids, ["2", "3", "1"]);
}

#[test]
fn integer_and_string_ids_collide() {
    assert_eq!(
        one(json!({"title": "T", "items": [{"id": 1, "title": "a"}, {"id": "1", "title": "b"}]})),
        (
            "items[1].id".into(),
            "duplicate_id",
            "items[1].id \"1\" duplicates items[0].id".into()
        )
    );
}

#[test]
fn optional_text_limits_and_shapes() {
    for (field, max, t) in [
        ("group", 80, "confirm"),
        ("header", 80, "confirm"),
        ("detail", 8000, "confirm"),
        ("op", 2000, "confirm"),
        ("expect", 2000, "confirm"),
        ("boolDesc", 200, "bool"),
    ] {
        let mut i = json!({"type": t, "title": "x"});
        i[field] = json!("y".repeat(max + 1));
        assert_eq!(
            one(item(i.clone())),
            (
                format!("items[0].{field}"),
                "too_long",
                format!(
                    "items[0].{field} is {} characters; the limit is {max}",
                    max + 1
                )
            )
        );
        i[field] = json!(5);
        assert_eq!(one(item(i.clone())).1, "wrong_type", "{field}");
        // Blank optional text is dropped.
        i[field] = json!("   ");
        let s = ok(item(i));
        let v = serde_json::to_value(&s.items[0]).unwrap();
        assert!(v.get(field).is_none(), "{field}");
    }
    let s = ok(item(json!({
        "title": "x", "group": "G\n1", "header": "\tH ", "detail": "a\r\nb\rc", "expect": " e\n f "
    })));
    let i = &s.items[0];
    assert_eq!(i.group.as_deref(), Some("G 1"));
    assert_eq!(i.header.as_deref(), Some("H"));
    assert_eq!(i.detail.as_deref(), Some("a\nb\nc"));
    assert_eq!(i.expect.as_deref(), Some("e\n f"));
}

#[test]
fn choice_rules() {
    let choice = |options: Value| item(json!({"type": "choice", "title": "x", "options": options}));
    assert_eq!(
        one(item(json!({"type": "choice", "title": "x"}))),
        (
            "items[0].options".into(),
            "required",
            "items[0].options is required on a choice item".into()
        )
    );
    assert_eq!(one(choice(json!({"v": "a"}))).1, "wrong_type");
    assert_eq!(
        one(choice(json!([{"v": "a", "t": "A"}]))),
        (
            "items[0].options".into(),
            "options_count",
            "items[0].options must have 2–20 options (got 1)".into()
        )
    );
    let many: Vec<Value> = (0..21)
        .map(|i| json!({"v": i, "t": format!("o{i}")}))
        .collect();
    assert_eq!(one(choice(json!(many))).1, "options_count");
    for bad in [" a", "a,b", "a;b", "a、b", "a，b", "a；b", "", "a\u{7}"] {
        let (path, code, message) =
            one(choice(json!([{"v": bad, "t": "A"}, {"v": "z", "t": "Z"}])));
        assert_eq!(
            (path.as_str(), code),
            ("items[0].options[0].v", "invalid_value"),
            "{bad:?}"
        );
        assert!(message.starts_with("items[0].options[0].v must be 1–64 characters without control characters, surrounding spaces or any of , ; 、 ， ；"), "{message}");
    }
    assert_eq!(
        one(choice(json!([{"v": 1, "t": "A"}, {"v": "1", "t": "B"}]))),
        (
            "items[0].options[1].v".into(),
            "duplicate_value",
            "items[0].options[1].v \"1\" duplicates options[0].v".into()
        )
    );
    assert_eq!(
        one(choice(json!([{"t": "A"}, {"v": "b", "t": "B"}]))),
        (
            "items[0].options[0].v".into(),
            "required",
            "items[0].options[0].v is required".into()
        )
    );
    assert_eq!(
        one(choice(json!([{"v": "a"}, {"v": "b", "t": "B"}]))).0,
        "items[0].options[0].t"
    );
    assert_eq!(
        one(choice(json!([{"v": "a", "t": " "}, {"v": "b", "t": "B"}]))).1,
        "empty"
    );
    assert_eq!(
        one(choice(
            json!([{"v": "a", "t": "x".repeat(201)}, {"v": "b", "t": "B"}])
        ))
        .1,
        "too_long"
    );
    assert_eq!(
        one(choice(json!(["a", {"v": "b", "t": "B"}]))).0,
        "items[0].options[0]"
    );
    assert_eq!(
        one(item(
            json!({"type": "choice", "title": "x", "multiSelect": "yes",
            "options": [{"v": "a", "t": "A"}, {"v": "b", "t": "B"}]})
        )),
        (
            "items[0].multiSelect".into(),
            "wrong_type",
            "items[0].multiSelect must be a boolean (got a string)".into()
        )
    );
    let s = ok(choice(
        json!([{"v": 7, "t": "Seven\nlines"}, {"v": "b", "t": "B"}]),
    ));
    assert_eq!(s.items[0].options[0].v, "7");
    assert_eq!(s.items[0].options[0].t, "Seven lines");
}

#[test]
fn scale_rules() {
    let scale = |extra: Value| {
        let mut i = json!({"type": "scale", "title": "x"});
        for (k, v) in extra.as_object().unwrap() {
            i[k] = v.clone();
        }
        item(i)
    };
    assert_eq!(
        one(scale(json!({"min": 1.5}))),
        (
            "items[0].min".into(),
            "not_integer",
            "items[0].min must be an integer (got 1.5)".into()
        )
    );
    assert_eq!(
        one(scale(json!({"max": 1001}))),
        (
            "items[0].max".into(),
            "out_of_range",
            "items[0].max must be between -1000 and 1000 (got 1001)".into()
        )
    );
    assert_eq!(one(scale(json!({"min": "1"}))).1, "wrong_type");
    assert_eq!(
        one(scale(json!({"min": 3, "max": 2}))).2,
        "items[0].max must be greater than min (min 3, max 2)"
    );
    assert_eq!(
        one(scale(json!({"min": 0, "max": 21}))),
        (
            "items[0].max".into(),
            "span_too_wide",
            "items[0].max: a scale spans at most 20 steps (min 0, max 21)".into()
        )
    );
    // Defaults apply to the missing bound.
    assert_eq!(one(scale(json!({"min": 5}))).1, "min_not_below_max");
    let s = ok(scale(json!({"min": -10, "max": 10.0})));
    assert_eq!(s.items[0].bounds(), (-10, 10));
    assert_eq!(ok(scale(json!({}))).items[0].bounds(), (1, 5));
}

#[test]
fn problems_stop_at_one_hundred() {
    let items: Vec<Value> = (0..60).map(|_| json!({"id": "x y", "lable": 1})).collect();
    let p = errs(json!({"title": "T", "items": items}));
    assert_eq!(p.len(), 101);
    assert_eq!(p[100].code, "too_many_errors");
    assert_eq!(
        p[100].message,
        "more than 100 problems; fix these and call again"
    );
    // Exactly one hundred problems: no marker.
    let items: Vec<Value> = (0..50)
        .map(|_| json!({"id": "x y", "title": "t", "lable": 1}))
        .collect();
    assert_eq!(errs(json!({"title": "T", "items": items})).len(), 100);
}

#[test]
fn the_input_schema_covers_every_field() {
    let s = args_schema();
    assert_eq!(s["required"], json!(["title", "items"]));
    assert_eq!(s["properties"]["items"]["minItems"], 1);
    let item_props = s["properties"]["items"]["items"]["properties"]
        .as_object()
        .unwrap();
    let names: Vec<&String> = item_props.keys().collect();
    assert_eq!(
        names,
        [
            "id",
            "type",
            "title",
            "label",
            "group",
            "header",
            "detail",
            "op",
            "expect",
            "boolDesc",
            "options",
            "multiSelect",
            "min",
            "max"
        ]
    );
    assert_eq!(s["additionalProperties"], false);
}

// ---------------------------------------------------------------------------------------------
// Verdicts, filled, summary
// ---------------------------------------------------------------------------------------------

/// One item of each type with a multi-select choice, in both languages.
fn all_types(lang: &str) -> ReviewSpec {
    ok(json!({"title": "T", "lang": lang, "items": [
        {"id": "c", "title": "confirm"},
        {"id": "b", "type": "bool", "title": "bool"},
        {"id": "m", "type": "choice", "title": "choice", "multiSelect": true,
         "options": [{"v": "A", "t": "Alpha"}, {"v": "B", "t": "Beta"}, {"v": "C", "t": "Gamma"}]},
        {"id": "s", "type": "scale", "title": "scale", "min": -2, "max": 2},
        {"id": "t", "type": "text", "title": "text"}
    ]}))
}

#[test]
fn verdict_and_filled_table_per_type() {
    let spec = all_types("en");
    let answers = submit(
        &spec,
        json!({"answers": [
            {"id": "c", "verdict": "pending"},
            {"id": "b", "verdict": "no"},
            {"id": "m", "selected": ["C", "A"]},
            {"id": "s", "verdict": "-2"},
            {"id": "t", "note": "  written  "}
        ]}),
    )
    .unwrap();
    let items = fold::fold(&spec, &answers);
    let got: Vec<(&str, &str, &str, bool)> = items
        .iter()
        .map(|i| {
            (
                i.id.as_str(),
                i.verdict.as_str(),
                i.verdict_label.as_str(),
                i.filled,
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            ("c", "pending", "Pending", true),
            ("b", "no", "No", true),
            ("m", "A,C", "Alpha, Gamma", true),
            ("s", "-2", "-2", true),
            ("t", "", "", true),
        ]
    );
    assert_eq!(items[2].selected, Some(vec!["A".into(), "C".into()]));
    assert_eq!(items[4].note, "written");
    assert_eq!(items[0].selected, None);
    // zh-CN labels; verdicts stay machine values.
    let spec = all_types("zh-CN");
    let items = fold::fold(
        &spec,
        &submit(
            &spec,
            json!({"answers": [
                {"id": "c", "verdict": "fail"}, {"id": "b", "verdict": "yes"},
                {"id": "m", "verdict": "A,B"}
            ]}),
        )
        .unwrap(),
    );
    assert_eq!(
        (items[0].verdict.as_str(), items[0].verdict_label.as_str()),
        ("fail", "不通过")
    );
    assert_eq!(items[1].verdict_label, "是");
    assert_eq!(items[2].verdict_label, "Alpha、Beta");
    let spec = all_types("zh-CN");
    let items = fold::fold(
        &spec,
        &submit(&spec, json!({"answers": [{"id": "c", "verdict": "pass"}]})).unwrap(),
    );
    assert_eq!(items[0].verdict_label, "通过");
    assert_eq!(
        fold::fold(
            &spec,
            &submit(
                &spec,
                json!({"answers": [{"id": "c", "verdict": "pending"}]})
            )
            .unwrap()
        )[0]
        .verdict_label,
        "待定"
    );
}

#[test]
fn blanks_are_never_filled() {
    let spec = all_types("en");
    // Missing entries, empty verdicts, a note without a verdict, spaces-only text, an empty
    // multi-select.
    let answers = submit(
        &spec,
        json!({"answers": [
            {"id": "c", "verdict": "", "note": "looked at it"},
            {"id": "m", "selected": []},
            {"id": "t", "note": "   "}
        ]}),
    )
    .unwrap();
    let items = fold::fold(&spec, &answers);
    assert!(items.iter().all(|i| !i.filled), "{items:#?}");
    assert!(
        items
            .iter()
            .all(|i| i.verdict.is_empty() && i.verdict_label.is_empty())
    );
    // A note is returned even on a blank item.
    assert_eq!(items[0].note, "looked at it");
    assert_eq!(items[2].selected, Some(vec![]));
    let s = fold::summary(&items);
    assert_eq!(
        json!(s),
        json!({"total": 5, "filled": 0, "unfilled": 5, "pass": 0, "fail": 0, "pending": 0, "yes": 0, "no": 0})
    );
}

#[test]
fn summary_counts() {
    let spec = ok(json!({"title": "T", "items": [
        {"title": "a"}, {"title": "b"}, {"title": "c"}, {"title": "d"}, {"title": "e"},
        {"type": "bool", "title": "f"}, {"type": "bool", "title": "g"}, {"type": "bool", "title": "h"},
        {"type": "text", "title": "i"}
    ]}));
    let answers = submit(
        &spec,
        json!({"answers": [
            {"id": "1", "verdict": "pass"}, {"id": "2", "verdict": "pass"}, {"id": "3", "verdict": "fail"},
            {"id": "4", "verdict": "pending"},
            {"id": "6", "verdict": "yes"}, {"id": "7", "verdict": "no"}, {"id": "8", "verdict": "no"},
            {"id": "9", "note": "t"}
        ]}),
    )
    .unwrap();
    let s = fold::summary(&fold::fold(&spec, &answers));
    assert_eq!(
        json!(s),
        json!({"total": 9, "filled": 8, "unfilled": 1, "pass": 2, "fail": 1, "pending": 1, "yes": 1, "no": 2})
    );
    assert_eq!(s.pass + s.fail + s.pending, 4);
    let c = fold::cancelled_summary(&spec);
    assert_eq!(
        json!(c),
        json!({"total": 9, "filled": 0, "unfilled": 9, "pass": 0, "fail": 0, "pending": 0, "yes": 0, "no": 0})
    );
}

// ---------------------------------------------------------------------------------------------
// Results and report_text (golden files)
// ---------------------------------------------------------------------------------------------

#[test]
fn the_english_example_result_and_report() {
    let spec = en();
    let r = answered_result(
        &spec,
        "0193f5a2-7c1e-7b4a-9f0e-3c2d8a6b1e42",
        Surface::Panel,
        &example_answers(
            "Copies only the file name",
            "The download icon flickers on hover",
        ),
    );
    let report = fixture("report-en.txt");
    assert_eq!(r["report_text"], report.as_str());
    assert!(!report.ends_with('\n'));
    let expected = json!({
        "ask_id": "0193f5a2-7c1e-7b4a-9f0e-3c2d8a6b1e42",
        "outcome": "answered",
        "cancelled": false,
        "surface": "panel",
        "items": [
            { "id": "1", "title": "Restart askd and reload the page", "type": "confirm", "verdict": "pass", "verdict_label": "Pass", "note": "", "filled": true },
            { "id": "2", "title": "Copy button copies the full path", "type": "confirm", "verdict": "fail", "verdict_label": "Fail", "note": "Copies only the file name", "filled": true },
            { "id": "3", "title": "Download keeps the original file name", "type": "confirm", "verdict": "", "verdict_label": "", "note": "", "filled": false },
            { "id": "4", "title": "Keep the gateway task resident", "type": "bool", "verdict": "yes", "verdict_label": "Yes", "note": "", "filled": true },
            { "id": "5", "title": "Connection mode", "type": "choice", "verdict": "B", "verdict_label": "Via subagent", "note": "", "filled": true, "selected": ["B"] },
            { "id": "6", "title": "Overall rating", "type": "scale", "verdict": "4", "verdict_label": "4", "note": "", "filled": true },
            { "id": "7", "title": "Describe anything that looked off", "type": "text", "verdict": "", "verdict_label": "", "note": "The download icon flickers on hover", "filled": true }
        ],
        "summary": { "total": 7, "filled": 6, "unfilled": 1, "pass": 1, "fail": 1, "pending": 0, "yes": 1, "no": 0 },
        "report_text": report
    });
    assert_eq!(r, expected);
    let keys: Vec<&String> = r.as_object().unwrap().keys().collect();
    assert_eq!(
        keys,
        [
            "ask_id",
            "outcome",
            "cancelled",
            "surface",
            "items",
            "summary",
            "report_text"
        ]
    );
}

#[test]
fn the_chinese_example_report() {
    let spec = zh();
    assert_eq!(spec.lang, Lang::Zh);
    let r = answered_result(
        &spec,
        "x",
        Surface::Panel,
        &example_answers("只复制了文件名\n路径前缀丢失", "悬停时下载图标闪烁"),
    );
    assert_eq!(r["report_text"], fixture("report-zh.txt").as_str());
    // The verdicts are the same machine values as in English.
    let verdicts: Vec<&str> = r["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["verdict"].as_str().unwrap())
        .collect();
    assert_eq!(verdicts, ["pass", "fail", "", "yes", "B", "4", ""]);
    assert_eq!(r["items"][1]["verdict_label"], "不通过");
    assert_eq!(r["items"][4]["verdict_label"], "经由子代理");
}

#[test]
fn cancelled_results_carry_no_verdicts() {
    for (spec, golden) in [(en(), "cancelled-en.txt"), (zh(), "cancelled-zh.txt")] {
        let r = cancelled_result(&spec, "id", "cancelled", Surface::Panel);
        assert_eq!(r["cancelled"], true);
        assert_eq!(r["outcome"], "cancelled");
        assert_eq!(r["items"], json!([]));
        assert_eq!(r["summary"]["total"], 7);
        assert_eq!(r["summary"]["unfilled"], 7);
        assert_eq!(r["summary"]["filled"], 0);
        assert_eq!(r["report_text"], fixture(golden).as_str());
    }
    let r = cancelled_result(&en(), "id", "aborted", Surface::Card);
    assert_eq!(
        (r["outcome"].clone(), r["cancelled"].clone()),
        (json!("aborted"), json!(true))
    );
}

#[test]
fn report_sections_follow_the_fixed_order_and_keep_lines_single() {
    let spec = ok(json!({"title": "T", "items": [
        {"title": "p1"}, {"title": "f1"}, {"title": "pend\nline"}, {"title": "blank"},
        {"type": "scale", "title": "rate", "min": 0, "max": 10}
    ]}));
    let answers = vec![
        ans("1", "pass", "fine\r\nreally"),
        ans("2", "fail", ""),
        ans("3", "pending", ""),
        ans("4", "", "a note on a blank"),
    ];
    let r = answered_result(&spec, "id", Surface::Panel, &answers);
    assert_eq!(
        r["report_text"],
        "Review: T\n5 items · 3 filled · 2 unfilled · 1 pass · 1 fail · 1 pending\n\nFailed (1)\n- [2] f1\n\nPending (1)\n- [3] pend line\n\nUnfilled (2) — not a pass, follow up\n- [4] blank — note: a note on a blank\n- [5] rate\n\nPassed (1)\n- [1] p1 — note: fine ⏎ really"
    );
    // No confirm and no bool items: the counts line stops after unfilled.
    let spec = ok(json!({"title": "T", "items": [{"type": "text", "title": "t"}]}));
    let r = answered_result(&spec, "id", Surface::Card, &[]);
    assert_eq!(
        r["report_text"],
        "Review: T\n1 items · 0 filled · 1 unfilled\n\nUnfilled (1) — not a pass, follow up\n- [1] t"
    );
}

// ---------------------------------------------------------------------------------------------
// Answer validation
// ---------------------------------------------------------------------------------------------

#[test]
fn answer_validation_codes() {
    let spec = all_types("en");
    assert_eq!(
        submit_err(&spec, json!({"answers": [{"id": "zz"}]})),
        (
            "answers[0].id".into(),
            "unknown_item",
            "answers[0].id \"zz\" is not an item of this review".into()
        )
    );
    assert_eq!(
        submit_err(&spec, json!({"answers": [{"id": "c"}, {"id": "c"}]})),
        (
            "answers[1].id".into(),
            "duplicate_answer",
            "answers[1].id \"c\" is answered twice".into()
        )
    );
    assert_eq!(
        submit_err(&spec, json!({"answers": [{"id": "c", "verdict": "ok"}]})),
        (
            "answers[0].verdict".into(),
            "invalid_verdict",
            "answers[0].verdict must be one of pass, fail, pending for item \"c\" (got \"ok\")"
                .into()
        )
    );
    assert_eq!(
        submit_err(&spec, json!({"answers": [{"id": "b", "verdict": "maybe"}]})).2,
        "answers[0].verdict must be one of yes, no for item \"b\" (got \"maybe\")"
    );
    assert_eq!(
        submit_err(
            &spec,
            json!({"answers": [{"id": "m", "selected": ["A", "Q"]}]})
        ),
        (
            "answers[0].selected[1]".into(),
            "unknown_option",
            "answers[0].selected[1] \"Q\" is not an option of item \"m\"".into()
        )
    );
    assert_eq!(
        submit_err(&spec, json!({"answers": [{"id": "s", "verdict": "3"}]})),
        (
            "answers[0].verdict".into(),
            "out_of_range",
            "answers[0].verdict must be a whole number from -2 to 2 for item \"s\" (got \"3\")"
                .into()
        )
    );
    assert_eq!(
        submit_err(&spec, json!({"answers": [{"id": "t", "verdict": "pass"}]})),
        (
            "answers[0].verdict".into(),
            "field_not_for_type",
            "answers[0].verdict does not apply to text item \"t\"".into()
        )
    );
    assert_eq!(
        submit_err(
            &spec,
            json!({"answers": [{"id": "c", "selected": ["pass"]}]})
        )
        .1,
        "field_not_for_type"
    );
    assert_eq!(
        submit_err(
            &spec,
            json!({"answers": [{"id": "c", "note": "n".repeat(4001)}]})
        ),
        (
            "answers[0].note".into(),
            "too_long",
            "answers[0].note is 4001 characters; the limit is 4000".into()
        )
    );
    let single = ok(item(json!({"id": "q", "type": "choice", "title": "x",
        "options": [{"v": "A", "t": "a"}, {"v": "B", "t": "b"}]})));
    assert_eq!(
        submit_err(&single, json!({"answers": [{"id": "q", "verdict": "A,B"}]})),
        (
            "answers[0].verdict".into(),
            "not_single",
            "answers[0].verdict allows one option for item \"q\" (got 2)".into()
        )
    );
    // Wrong shapes and unknown members.
    assert_eq!(
        submit_err(&spec, json!({"answers": [{"id": "c", "verdict": true}]})).1,
        "wrong_type"
    );
    let p = submit(
        &spec,
        json!({"answers": [{"id": "c", "extra": true}], "more": 1}),
    )
    .unwrap_err();
    let codes: Vec<(&str, &str)> = p.iter().map(|p| (p.path.as_str(), p.code)).collect();
    assert_eq!(
        codes,
        [
            ("answers[0].extra", "unknown_field"),
            ("more", "unknown_field")
        ]
    );
    assert_eq!(submit_err(&spec, json!({})).1, "required");
    assert_eq!(
        submit_err(&spec, json!({"answers": [], "surface": "import"})).1,
        "invalid_value"
    );
}

#[test]
fn verdict_spellings_and_all_or_nothing() {
    let spec = all_types("en");
    let answers = submit(
        &spec,
        json!({"answers": [
            {"id": "c", "verdict": " PASS "},
            {"id": "b", "verdict": "否"},
            {"id": "m", "verdict": "gamma；alpha"},
            {"id": 999, "note": "x"}
        ]}),
    );
    assert_eq!(answers.unwrap_err()[0].code, "unknown_item");
    let answers = submit(
        &spec,
        json!({"answers": [
            {"id": "c", "verdict": " PASS "}, {"id": "b", "verdict": "否"},
            {"id": "m", "verdict": "gamma；alpha"}, {"id": "s", "verdict": 1}
        ], "surface": "terminal"}),
    )
    .unwrap();
    let v: Vec<&str> = answers.iter().map(|a| a.verdict.as_str()).collect();
    assert_eq!(v, ["pass", "no", "A,C", "1"]);
    let sub = validate_submit(
        &spec,
        &Json::from_value(&json!({"answers": [], "surface": "terminal"})),
    )
    .unwrap();
    assert_eq!(sub.surface, Some(Surface::Terminal));
    // selected and verdict must agree when both are given.
    assert_eq!(
        submit_err(
            &spec,
            json!({"answers": [{"id": "m", "selected": ["A"], "verdict": "B"}]})
        )
        .1,
        "invalid_verdict"
    );
    assert!(
        submit(
            &spec,
            json!({"answers": [{"id": "m", "selected": ["A"], "verdict": "A"}]})
        )
        .is_ok()
    );
}

// ---------------------------------------------------------------------------------------------
// Draft
// ---------------------------------------------------------------------------------------------

#[test]
fn drafts_are_sanitised_never_rejected() {
    let spec = all_types("en");
    let body = json!({"v": 9, "junk": 1, "answers": {
        "c": {"verdict": "Fail", "note": "n".repeat(4100)},
        "b": {"verdict": "nope", "note": "  keep spaces "},
        "m": {"selected": ["C", "A", "Z"]},
        "s": {"verdict": "7"},
        "t": {"note": "typing"},
        "unknown": {"verdict": "pass"},
        "x": "not an object"
    }});
    let d = draft::sanitize(&spec, &Json::from_value(&body)).unwrap();
    assert_eq!(d["v"], 1);
    assert!(d.get("junk").is_none());
    let a = &d["answers"];
    assert_eq!(a["c"]["verdict"], "fail");
    assert_eq!(a["c"]["note"].as_str().unwrap().chars().count(), 4000);
    assert_eq!(a["b"], json!({"verdict": "", "note": "  keep spaces "}));
    // An unknown option spoils the selection; the item has nothing left.
    assert!(a.get("m").is_none());
    assert!(a.get("s").is_none());
    assert_eq!(a["t"], json!({"verdict": "", "note": "typing"}));
    assert!(a.get("unknown").is_none());
    // The array shape (the submit's) is accepted too.
    let d = draft::sanitize(
        &spec,
        &Json::from_value(
            &json!({"answers": [{"id": "m", "selected": ["C", "A"]}, {"id": "s", "verdict": 2}]}),
        ),
    )
    .unwrap();
    assert_eq!(d["answers"]["m"]["verdict"], "A,C");
    assert_eq!(d["answers"]["s"]["verdict"], "2");
    assert_eq!(
        draft::sanitize(&spec, &json::parse("[]").unwrap())
            .unwrap_err()
            .code,
        "invalid-autosave"
    );
}

// ---------------------------------------------------------------------------------------------
// Export and import
// ---------------------------------------------------------------------------------------------

#[test]
fn csv_export_shape() {
    let spec = ok(json!({"title": "T", "items": [
        {"id": "a", "title": "=SUM(A1)", "group": "G", "op": "do, \"this\"", "expect": "line1\nline2"},
        {"id": "b", "type": "choice", "title": "pick", "multiSelect": true, "options": [{"v": "A", "t": "Direct 18080"}, {"v": "B", "t": "Via subagent"}]},
        {"id": "c", "type": "scale", "title": "rate", "min": -2, "max": 2},
        {"id": "d", "type": "text", "title": "say"},
        {"id": "e", "type": "bool", "title": "ok?"}
    ]}));
    let csv = export::csv(&spec, None);
    assert!(csv.starts_with('\u{feff}'));
    let lines: Vec<&str> = csv.trim_start_matches('\u{feff}').split("\r\n").collect();
    assert_eq!(
        lines[0],
        "id,group,header,type,title,op,expect,boolDesc,detail,allowed,verdict,note"
    );
    assert_eq!(
        lines[1],
        "a,G,,confirm,'=SUM(A1),\"do, \"\"this\"\"\",\"line1\nline2\",,,pass | fail | pending,,"
    );
    assert!(csv.contains("b,,,choice,pick,,,,,\"A = Direct 18080 | B = Via subagent (one or more, separated by ,)\",,"), "{csv}");
    assert!(csv.contains("c,,,scale,rate,,,,,'-2–2,,"), "{csv}");
    assert!(csv.contains("d,,,text,say,,,,,write the answer in note,,"));
    assert!(csv.contains("e,,,bool,ok?,,,,,yes | no,,"));
    assert!(csv.ends_with("\r\n"));
    // Chinese hints.
    let z = export::csv(&zh(), None);
    assert!(z.contains("pass（通过） | fail（不通过） | pending（待定）"));
    assert!(z.contains("A = 直连 18080 | B = 经由子代理（单选）"));
}

#[test]
fn csv_round_trip_settles_like_the_panel() {
    let spec = en();
    let csv = export::csv(&spec, None);
    // Fill it as a spreadsheet would: verdict and note columns, labels and values mixed.
    let mut rows: Vec<Vec<String>> = import::parse_csv(csv.trim_start_matches('\u{feff}'), ',');
    let fills = [
        ("1", "Pass", ""),
        ("2", "fail", "Copies only the file name"),
        ("3", "", ""),
        ("4", "YES", ""),
        ("5", "Via subagent", ""),
        ("6", "4", ""),
        ("7", "", "The download icon flickers on hover"),
    ];
    for (row, (id, verdict, note)) in rows.iter_mut().skip(1).zip(fills) {
        assert_eq!(row[0], id);
        row[10] = verdict.into();
        row[11] = note.into();
    }
    let text: String = rows
        .iter()
        .filter(|r| !r.is_empty())
        .map(|r| {
            r.iter()
                .map(|c| format!("\"{}\"", c.replace('"', "\"\"")))
                .collect::<Vec<_>>()
                .join(",")
                + "\r\n"
        })
        .collect();
    let imported = import::import(&spec, "x", Format::Csv, &text).unwrap();
    assert_eq!(imported.missing, Vec::<String>::new());
    let via_import = answered_result(&spec, "x", Surface::Import, &imported.answers);
    let via_panel = answered_result(
        &spec,
        "x",
        Surface::Import,
        &example_answers(
            "Copies only the file name",
            "The download icon flickers on hover",
        ),
    );
    assert_eq!(via_import, via_panel);
    assert_eq!(via_import["report_text"], fixture("report-en.txt").as_str());
}

/// Issue 27 item 7: a full-width `＝` (or `＋`, `－`, `＠`, or a small form) starts a formula
/// in some spreadsheets just like `=`, and so does a leader after leading whitespace: every
/// such cell gets the `'` guard, and the import reads it back as it was.
#[test]
fn access_7_csv_neutralises_fullwidth_formulas() {
    let risky = [
        "\u{ff1d}HYPERLINK(\"http://x.invalid\")",
        "\u{ff0b}1",
        "\u{ff0d}1+1",
        "\u{ff20}SUM(A1)",
        "\u{fe66}1+1",
        "\u{fe62}1",
        "\u{fe63}1",
        "\u{fe6b}A1",
        " =1+1",
        "\u{3000}\u{ff1d}1+1",
        "\u{a0}+1",
        "\n=1+1",
        "=1+1",
        "\tx",
    ];
    // As an item's text (the agent's, trimmed by validation) and as a note (the human's,
    // which may start with spaces).
    let items: Vec<_> = risky
        .iter()
        .enumerate()
        .map(|(i, t)| json!({"id": format!("i{i}"), "title": t, "type": "text"}))
        .collect();
    let spec = ok(json!({"title": "T", "items": items}));
    let notes: Vec<fold::FoldedItem> = spec
        .items
        .iter()
        .zip(risky)
        .map(|(item, t)| fold::FoldedItem {
            id: item.id.clone(),
            title: item.title.clone(),
            kind: item.kind,
            verdict: String::new(),
            verdict_label: String::new(),
            note: t.to_string(),
            filled: true,
            selected: None,
        })
        .collect();
    let csv = export::csv(&spec, Some(&notes));
    let rows = import::parse_csv(csv.trim_start_matches('\u{feff}'), ',');
    for (i, t) in risky.iter().enumerate() {
        // (Validation trims a title: "\tx" is "x", nothing to guard.)
        let title = &rows[i + 1][4];
        if *t != "\tx" {
            assert_eq!(
                title,
                &format!("'{}", spec.items[i].title),
                "item {i}: {title:?}"
            );
        }
        let note = &rows[i + 1][11];
        assert_eq!(note, &format!("'{t}"), "item {i}: {t:?} → {note:?}");
        assert_eq!(import::unguard(note), *t, "the import reads {note:?} back");
    }
    // Plain text, a leader later in the cell, full-width text that is no leader: untouched.
    let plain = [
        "a = b",
        "x\u{ff1d}1",
        "\u{ff21}BC",
        "  ok",
        "\u{ff08}1\u{ff09}",
    ];
    let notes: Vec<fold::FoldedItem> = notes
        .into_iter()
        .zip(plain)
        .map(|(f, t)| fold::FoldedItem {
            note: t.to_string(),
            ..f
        })
        .collect();
    let csv = export::csv(&spec, Some(&notes));
    let rows = import::parse_csv(csv.trim_start_matches('\u{feff}'), ',');
    for (i, t) in plain.iter().enumerate() {
        assert_eq!(rows[i + 1][11], *t, "item {i}");
        assert_eq!(import::unguard(&format!("'{t}")), format!("'{t}"));
    }
}

#[test]
fn csv_import_rules() {
    let spec = all_types("en");
    // Semicolons, any column order, case-insensitive headers, BOM, empty rows, guard quotes.
    let sheet = "\u{feff}Note;VERDICT;ID;type\n;'-2;s;scale\n;;;\nok;pass;c;\n";
    let imp = import::import_csv(&spec, sheet).unwrap();
    assert_eq!(imp.answers.len(), 2);
    assert_eq!(imp.answers[0].verdict, "-2");
    assert_eq!(imp.answers[1].note, "ok");
    assert_eq!(imp.missing, ["b", "m", "t"]);
    // Problems name the row and the item.
    let p = import::import_csv(
        &spec,
        "id,verdict,note,type\nc,maybe,,\nzz,,,\nc,pass,,\nb,yes,,confirm\nt,x,,\nm,A;Q,,\n",
    )
    .unwrap_err();
    let got: Vec<(&str, &str)> = p.iter().map(|p| (p.path.as_str(), p.code)).collect();
    assert_eq!(
        got,
        [
            ("rows[2].verdict", "invalid_verdict"),
            ("rows[3].id", "unknown_item"),
            ("rows[4].id", "duplicate_answer"),
            ("rows[5].type", "type_mismatch"),
            ("rows[6].verdict", "field_not_for_type"),
            ("rows[7].verdict", "unknown_option"),
        ]
    );
    assert_eq!(
        p[0].message,
        "rows[2].verdict must be one of pass, fail, pending for item \"c\" (got \"maybe\")"
    );
    let p = import::import_csv(&spec, "id,verdict\nc,pass\n").unwrap_err();
    assert_eq!((p[0].path.as_str(), p[0].code), ("rows[1]", "required"));
    assert!(import::import_csv(&spec, "").is_err());
}

#[test]
fn json_export_and_import() {
    let spec = en();
    let exported = export::json(&spec, "ask-1", None);
    assert_eq!(exported["format"], "askd-batch-review");
    assert_eq!(exported["version"], 1);
    assert_eq!(exported["lang"], "en");
    assert_eq!(
        exported["items"][0],
        json!({"id": "1", "type": "confirm", "title": "Restart askd and reload the page", "expect": "No white screen", "verdict": "", "note": ""})
    );
    assert!(exported.get("settled").is_none());
    // Fill it and import it back.
    let mut filled = exported.clone();
    filled["items"][0]["verdict"] = json!("pass");
    filled["items"][4]["selected"] = json!(["B"]);
    filled["items"][6]["note"] = json!("text answer");
    let imp = import::import(&spec, "ask-1", Format::Json, &filled.to_string()).unwrap();
    let items = fold::fold(&spec, &imp.answers);
    assert_eq!(items[0].verdict, "pass");
    assert_eq!(items[4].verdict, "B");
    assert!(items[6].filled);
    assert_eq!(imp.missing, Vec::<String>::new());
    // Another review's file, a wrong format, malformed JSON.
    let p = import::import(&spec, "ask-2", Format::Json, &filled.to_string()).unwrap_err();
    assert_eq!(
        (p[0].path.as_str(), p[0].code),
        ("ask_id", "not_this_review")
    );
    let mut wrong = filled.clone();
    wrong["format"] = json!("x");
    wrong["version"] = json!(2);
    let p = import::import(&spec, "ask-1", Format::Json, &wrong.to_string()).unwrap_err();
    let codes: Vec<&str> = p.iter().map(|p| p.code).collect();
    assert_eq!(codes, ["invalid_format", "invalid_format"]);
    assert_eq!(
        import::import(&spec, "ask-1", Format::Json, "{").unwrap_err()[0].code,
        "invalid_json"
    );
    let mut bad = filled;
    bad["items"][1]["verdict"] = json!("nope");
    let p = import::import(&spec, "ask-1", Format::Json, &bad.to_string()).unwrap_err();
    assert_eq!(p[0].path, "items[1].verdict");
    // A settled review exports its recorded answers.
    let rec = fold::fold(&spec, &example_answers("n", "t"));
    let settled = export::json(&spec, "ask-1", Some(&rec));
    assert_eq!(settled["settled"], true);
    assert_eq!(settled["items"][1]["verdict"], "fail");
    assert_eq!(settled["items"][1]["note"], "n");
    let csv = export::csv(&spec, Some(&rec));
    assert!(csv.contains(",fail,n\r\n"), "{csv}");
}

#[test]
fn html_export_is_self_contained_and_inert() {
    let spec = ok(
        json!({"title": "</title><script>alert(1)</script> {{DATA}}", "items": [
            {"id": "a", "title": "</script><img src=x onerror=alert(1)>", "detail": "**bold**"},
            {"id": "b", "type": "bool", "title": "\u{2028}line"}
        ]}),
    );
    let page = export::html(
        &spec,
        "ask-1",
        &[Some("<p><strong>bold</strong></p>".into()), None],
        500,
        None,
    );
    assert!(page.starts_with("<!doctype html>"));
    for needle in [
        "http://",
        "https://",
        "<img",
        "<link",
        "<script src",
        "@import",
        "url(",
    ] {
        assert!(!page.contains(needle), "external reference {needle}");
    }
    assert!(
        page.contains(
            "<title>&lt;/title&gt;&lt;script&gt;alert(1)&lt;/script&gt; {{DATA}}</title>"
        )
    );
    assert_eq!(
        page.matches("</script>").count(),
        2,
        "only the page's own script ends"
    );
    // The embedded data reads back as the review.
    let start = page.find("id=\"review-data\">").unwrap() + "id=\"review-data\">".len();
    let end = start + page[start..].find("</script>").unwrap();
    let data: Value = serde_json::from_str(&page[start..end]).unwrap();
    assert_eq!(
        data["items"][0]["title"],
        "</script><img src=x onerror=alert(1)>"
    );
    assert_eq!(
        data["items"][0]["detailHtml"],
        "<p><strong>bold</strong></p>"
    );
    assert!(data["items"][0].get("detail").is_none());
    assert_eq!(data["virtual"], false);
    assert_eq!(data["settled"], false);
    assert_eq!(data["ui"]["allPass"], "All pass");
    assert!(!page[start..end].contains('\u{2028}'));
    // Above the threshold in effect, rows get content-visibility.
    let page = export::html(&spec, "ask-1", &[], 1, None);
    assert!(page.contains("\"virtual\":true"));
    assert!(page.contains("content-visibility:auto"));
    let z = export::html(&zh(), "ask-1", &[], 500, None);
    assert!(z.contains("<html lang=\"zh-CN\">"));
    assert!(z.contains("全通过"));
}

// ---------------------------------------------------------------------------------------------
// No panic on any input
// ---------------------------------------------------------------------------------------------

fn arb_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(|n| json!(n)),
        (-1e6f64..1e6).prop_map(|f| json!(f)),
        prop_oneof![
            Just("title".to_string()),
            Just("items".to_string()),
            Just("confirm".to_string()),
            Just("choice".to_string()),
            Just("scale".to_string()),
            Just("pass".to_string()),
            "[a-zA-Z0-9 ,;、\n]{0,12}",
        ]
        .prop_map(Value::String),
    ];
    let key = prop_oneof![
        Just("title".to_string()),
        Just("items".to_string()),
        Just("type".to_string()),
        Just("id".to_string()),
        Just("options".to_string()),
        Just("v".to_string()),
        Just("t".to_string()),
        Just("min".to_string()),
        Just("max".to_string()),
        Just("label".to_string()),
        Just("op".to_string()),
        Just("verdict".to_string()),
        Just("note".to_string()),
        Just("answers".to_string()),
        Just("selected".to_string()),
        "[a-z]{1,6}",
    ];
    crate::kit::json_tree(leaf.boxed(), key.boxed(), (4, 48, 6))
}

proptest! {
    #[test]
    fn validation_and_answers_never_panic(args in arb_json(), body in arb_json()) {
        let _ = validate(&Json::from_value(&args), &limits());
        let spec = all_types("en");
        let _ = validate_submit(&spec, &Json::from_value(&body));
        let _ = draft::sanitize(&spec, &Json::from_value(&body));
        let text = body.to_string();
        let _ = import::import(&spec, "x", Format::Json, &text);
        let _ = import::import(&spec, "x", Format::Csv, &text);
    }

    #[test]
    fn every_valid_review_folds_consistently(n in 1usize..30, seed in any::<u64>()) {
        let items: Vec<Value> = (0..n).map(|i| {
            match (seed >> (i % 60)) & 3 {
                0 => json!({"title": format!("c{i}")}),
                1 => json!({"type": "bool", "title": format!("b{i}")}),
                2 => json!({"type": "text", "title": format!("t{i}")}),
                _ => json!({"type": "scale", "title": format!("s{i}")}),
            }
        }).collect();
        let spec = ok(json!({"title": "T", "items": items}));
        let answers: Vec<ItemAnswer> = spec.items.iter().enumerate().filter(|(i, _)| (seed >> (i % 63)) & 1 == 1).map(|(_, it)| {
            match it.kind {
                ItemType::Confirm => ans(&it.id, "pass", ""),
                ItemType::Bool => ans(&it.id, "no", ""),
                ItemType::Text => ans(&it.id, "", "x"),
                _ => ans(&it.id, "3", ""),
            }
        }).collect();
        let items = fold::fold(&spec, &answers);
        let s = fold::summary(&items);
        prop_assert_eq!(s.filled + s.unfilled, s.total);
        prop_assert_eq!(s.filled, answers.len());
        prop_assert!(items.iter().all(|i| i.filled || i.verdict.is_empty()));
    }
}

#[test]
fn hardening_13_import_problems_are_capped_with_the_count() {
    let spec = all_types("en");
    // JSON: 150 unknown ids → the first 100, then too_many_errors naming the total.
    let entries: Vec<Value> = (0..150)
        .map(|k| json!({"id": format!("zz{k}"), "verdict": "pass"}))
        .collect();
    let file =
        json!({"format": "askd-batch-review", "version": 1, "ask_id": "x", "items": entries});
    let p = import::import(&spec, "x", Format::Json, &file.to_string()).unwrap_err();
    assert_eq!(p.total, 150);
    assert_eq!(p.len(), 101);
    assert!(p[..100].iter().all(|e| e.code == "unknown_item"));
    assert_eq!(p[99].path, "items[99].id");
    assert_eq!(p[100].code, "too_many_errors");
    assert_eq!(
        p[100].message,
        "the file has 150 problems; the first 100 are listed — fix these and import again"
    );
    // CSV: exactly 100 problems are all listed, with no count entry.
    let mut sheet = String::from("id,verdict,note\n");
    for k in 0..100 {
        sheet.push_str(&format!("zz{k},pass,\n"));
    }
    let p = import::import_csv(&spec, &sheet).unwrap_err();
    assert_eq!((p.total, p.len()), (100, 100));
    assert!(p.iter().all(|e| e.code == "unknown_item"));
    // One more row: 100 listed, then the count.
    sheet.push_str("c,maybe,\n");
    let p = import::import_csv(&spec, &sheet).unwrap_err();
    assert_eq!((p.total, p.len()), (101, 101));
    assert_eq!(p[100].code, "too_many_errors");
}

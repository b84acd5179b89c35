//! The path engine (`survey.md` §6): every row of the edge-semantics table (§6.4), every worked
//! example of §6.5, the `next` normalization of §6.2, and the defensive corners of §6.3. Specs
//! are fixtures under `tests/fixtures/answers/`, validated by `askd_core::survey::validate`, and
//! the graph is built with `Graph::from_spec` from the normal form.

use askd_core::json::{self, Json};
use askd_core::survey::path::{Graph, PathAnswer, compute};
use askd_core::survey::{SurveySpec, validate};
use indexmap::IndexMap;

// ---------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------

fn fixture(name: &str) -> String {
    crate::kit::fixture_text("answers", name)
}

fn spec(name: &str) -> SurveySpec {
    let text = fixture(name);
    let v = json::parse(&text).unwrap();
    validate(&v).unwrap_or_else(|e| panic!("{name} must be a valid spec: {e:#?}"))
}

/// One answer of the engine's answer map.
#[derive(Clone, Copy)]
enum A<'a> {
    /// `selected` keys, no custom text, not skipped.
    Sel(&'a [&'a str]),
    /// `skipped: true` with these keys (usually none).
    Skip(&'a [&'a str]),
    /// Custom text only.
    Custom(&'a str),
    /// Hollow: no keys, no custom text, not skipped.
    Hollow,
    /// Keys and custom text together (a multi-select mix).
    SelCustom(&'a [&'a str], &'a str),
}

fn answer(a: A) -> PathAnswer {
    let keys = |k: &[&str]| k.iter().map(|s| s.to_string()).collect();
    match a {
        A::Sel(k) => PathAnswer {
            selected: keys(k),
            custom: None,
            skipped: false,
        },
        A::Skip(k) => PathAnswer {
            selected: keys(k),
            custom: None,
            skipped: true,
        },
        A::Custom(c) => PathAnswer {
            selected: vec![],
            custom: Some(c.to_string()),
            skipped: false,
        },
        A::Hollow => PathAnswer::default(),
        A::SelCustom(k, c) => PathAnswer {
            selected: keys(k),
            custom: Some(c.to_string()),
            skipped: false,
        },
    }
}

fn path_of(spec: &SurveySpec, answers: &[(&str, A)]) -> Vec<String> {
    let graph = Graph::from_spec(spec);
    let map: IndexMap<String, PathAnswer> = answers
        .iter()
        .map(|(id, a)| (id.to_string(), answer(*a)))
        .collect();
    compute(&graph, &map)
        .into_iter()
        .map(str::to_string)
        .collect()
}

/// A spec whose entry is `entry` (the fixture's graph, entered elsewhere).
fn entered_at(name: &str, entry: &str) -> SurveySpec {
    let mut s = spec(name);
    s.entry = entry.to_string();
    s
}

// ---------------------------------------------------------------------------------------------
// §6.5 worked examples: graph G
// ---------------------------------------------------------------------------------------------

#[test]
fn g_no_answers() {
    assert_eq!(path_of(&spec("graph_g.json"), &[]), ["q1", "q3"]);
}

#[test]
fn g_q1_a_follows_the_option_edge_then_the_question_level_next() {
    assert_eq!(
        path_of(&spec("graph_g.json"), &[("q1", A::Sel(&["a"]))]),
        ["q1", "q2a", "q3"]
    );
}

#[test]
fn g_q1_b_follows_its_own_option_edge() {
    assert_eq!(
        path_of(&spec("graph_g.json"), &[("q1", A::Sel(&["b"]))]),
        ["q1", "q2b", "q3"]
    );
}

#[test]
fn g_q1_c_without_next_uses_the_question_level_next() {
    let g = spec("graph_g.json");
    assert_eq!(path_of(&g, &[("q1", A::Sel(&["c"]))]), ["q1", "q3"]);
    assert_eq!(path_of(&g, &[("q1", A::Sel(&["e"]))]), ["q1", "q3"]);
}

#[test]
fn g_q1_d_with_null_next_ends_the_branch() {
    assert_eq!(
        path_of(&spec("graph_g.json"), &[("q1", A::Sel(&["d"]))]),
        ["q1"]
    );
}

#[test]
fn g_q1_skipped_or_custom_only_falls_through() {
    let g = spec("graph_g.json");
    assert_eq!(path_of(&g, &[("q1", A::Skip(&[]))]), ["q1", "q3"]);
    assert_eq!(path_of(&g, &[("q1", A::Custom("mine"))]), ["q1", "q3"]);
}

#[test]
fn g_multi_select_walks_declared_order_not_click_order() {
    let g = spec("graph_g.json");
    let expected = ["q1", "q2a", "q3", "x", "x2", "y", "z"];
    // Clicked b first: declared order (a before b) still wins.
    assert_eq!(
        path_of(&g, &[("q1", A::Sel(&["a"])), ("q3", A::Sel(&["b", "a"]))]),
        expected
    );
    assert_eq!(
        path_of(&g, &[("q1", A::Sel(&["a"])), ("q3", A::Sel(&["a", "b"]))]),
        expected
    );
}

#[test]
fn g_multi_select_option_without_next_and_no_question_next_adds_nothing() {
    assert_eq!(
        path_of(
            &spec("graph_g.json"),
            &[("q1", A::Sel(&["a"])), ("q3", A::Sel(&["c"]))]
        ),
        ["q1", "q2a", "q3"]
    );
}

// ---------------------------------------------------------------------------------------------
// §6.5 convergence
// ---------------------------------------------------------------------------------------------

#[test]
fn convergence_asks_the_shared_tail_before_the_sibling_branch() {
    let c = spec("convergence.json");
    let expected = ["q1", "q2a", "q3", "q2b"];
    assert_eq!(path_of(&c, &[("q1", A::Sel(&["a", "b"]))]), expected);
    // Click order does not matter.
    assert_eq!(path_of(&c, &[("q1", A::Sel(&["b", "a"]))]), expected);
    // Each branch alone.
    assert_eq!(path_of(&c, &[("q1", A::Sel(&["b"]))]), ["q1", "q2b", "q3"]);
    assert_eq!(path_of(&c, &[("q1", A::Sel(&["a"]))]), ["q1", "q2a", "q3"]);
}

// ---------------------------------------------------------------------------------------------
// §6.4 edge semantics, row by row
// ---------------------------------------------------------------------------------------------

/// Row 1: single-select, the chosen option's `next` is an id or a list.
#[test]
fn row_single_select_option_next_id_or_list() {
    let s = spec("next_forms.json");
    // An id: that id (and then its own follow-up), not the question-level `qn`.
    assert_eq!(
        path_of(&s, &[("start", A::Sel(&["id"]))]),
        ["start", "t1", "t1n"]
    );
    // A list: each target in list order, depth-first; `""` entries are dropped.
    assert_eq!(
        path_of(&s, &[("start", A::Sel(&["list"]))]),
        ["start", "t2", "t1", "t1n"]
    );
}

/// Row 2: single-select, the chosen option has `next: null` or `""`: the branch ends even
/// though the question has its own `next`.
#[test]
fn row_single_select_option_next_null_or_empty_ends_the_branch() {
    let s = spec("next_forms.json");
    assert_eq!(path_of(&s, &[("start", A::Sel(&["null"]))]), ["start"]);
    assert_eq!(path_of(&s, &[("start", A::Sel(&["empty"]))]), ["start"]);
    // A present list that normalizes to nothing is a present `next`: it does not inherit.
    assert_eq!(path_of(&s, &[("start", A::Sel(&["emptylist"]))]), ["start"]);
    assert_eq!(path_of(&s, &[("start", A::Sel(&["blanks"]))]), ["start"]);
}

/// Row 3: single-select, the chosen option has no `next`: the question-level `next`.
#[test]
fn row_single_select_option_without_next_inherits() {
    let s = spec("next_forms.json");
    assert_eq!(
        path_of(&s, &[("start", A::Sel(&["inherit"]))]),
        ["start", "qn"]
    );
}

/// Row 4: multi-select: every selected option's edge in declared order, depth-first; options
/// without `next` contribute the question-level `next`.
#[test]
fn row_multi_select_declared_order_depth_first_with_inheritance() {
    let mut s = spec("next_forms.json");
    s.questions.get_mut("start").unwrap().multi_select = Some(true);
    // Declared order: id, list, null, empty, inherit. Clicked in reverse.
    assert_eq!(
        path_of(
            &s,
            &[("start", A::Sel(&["inherit", "empty", "null", "list", "id"]))]
        ),
        ["start", "t1", "t1n", "t2", "qn"]
    );
    // `inherit` is declared after `list`, so `qn` comes last even when clicked first.
    assert_eq!(
        path_of(&s, &[("start", A::Sel(&["inherit", "list"]))]),
        ["start", "t2", "t1", "t1n", "qn"]
    );
    // An option with `null` contributes nothing, the others still do.
    assert_eq!(
        path_of(&s, &[("start", A::Sel(&["null", "inherit"]))]),
        ["start", "qn"]
    );
    // Only branch-ending options: nothing follows, the question-level next is not used.
    assert_eq!(
        path_of(&s, &[("start", A::Sel(&["null", "empty"]))]),
        ["start"]
    );
    // Custom text next to a selection does not change the selection branch.
    assert_eq!(
        path_of(&s, &[("start", A::SelCustom(&["id"], "and text"))]),
        ["start", "t1", "t1n"]
    );
}

/// Row 4, graph G: a multi-select option without `next` inherits q3's question-level `next`
/// once q3 has one, and in declared position.
#[test]
fn row_multi_select_inherited_edge_sits_at_the_options_declared_position() {
    let mut g = spec("graph_g.json");
    g.questions.get_mut("q3").unwrap().next = Some(askd_core::survey::Next::One("z".into()));
    // Declared: a→x, b→[y,z], c→(inherit z). Selecting c and a: a's branch, then c's z.
    assert_eq!(
        path_of(&g, &[("q1", A::Sel(&["c"])), ("q3", A::Sel(&["c", "a"]))]),
        ["q1", "q3", "x", "x2", "z"]
    );
    // c and d both inherit z: visited once.
    assert_eq!(
        path_of(&g, &[("q1", A::Sel(&["c"])), ("q3", A::Sel(&["d", "c"]))]),
        ["q1", "q3", "z"]
    );
}

/// Row 5: skipped, custom text only, hollow or unanswered: the question-level `next`.
#[test]
fn row_skipped_custom_only_hollow_unanswered_fall_through() {
    let s = spec("next_forms.json");
    let fall = ["start", "qn"];
    assert_eq!(path_of(&s, &[]), fall, "unanswered");
    assert_eq!(path_of(&s, &[("start", A::Hollow)]), fall, "hollow");
    assert_eq!(path_of(&s, &[("start", A::Skip(&[]))]), fall, "skipped");
    assert_eq!(
        path_of(&s, &[("start", A::Custom("free text"))]),
        fall,
        "custom only"
    );
    assert_eq!(path_of(&s, &[("start", A::Custom("   "))]), fall, "blank");
    // §6.3: the selection branch needs an answer that is *not* `skipped: true`. A skip flag
    // wins over keys that come with it.
    assert_eq!(
        path_of(&s, &[("start", A::Skip(&["null"]))]),
        fall,
        "skip flag with keys"
    );
    // An answer for another question does not count as an answer for this one.
    assert_eq!(path_of(&s, &[("qn", A::Sel(&["x"]))]), fall);
}

/// Row 5 on a multi-select question (graph G's q3 has no question-level next).
#[test]
fn row_fallthrough_on_multi_select_without_question_next_ends() {
    let g = spec("graph_g.json");
    for a in [A::Hollow, A::Skip(&["a", "b"]), A::Custom("text")] {
        assert_eq!(path_of(&g, &[("q3", a)]), ["q1", "q3"]);
    }
}

/// Row 6: a `next` list: each target in list order, depth-first.
#[test]
fn row_next_list_each_target_in_order_depth_first() {
    // Question-level list on an unanswered question: t2, then t1 with its follow-up.
    let s = entered_at("next_forms.json", "qlist");
    assert_eq!(path_of(&s, &[]), ["qlist", "t2", "t1", "t1n"]);
    // Graph G's q3 b → ["y","z"], with a's x-branch fully descended first.
    let g = spec("graph_g.json");
    assert_eq!(
        path_of(&g, &[("q3", A::Sel(&["b"]))]),
        ["q1", "q3", "y", "z"]
    );
}

/// Row 7: a question already on the path is not asked again and keeps its first position.
#[test]
fn row_question_already_on_the_path_keeps_its_first_position() {
    let g = spec("graph_g.json");
    // q1=a reaches q3 through q2a; q1's own next (q3) is not used, and q3 appears once.
    let p = path_of(&g, &[("q1", A::Sel(&["a"]))]);
    assert_eq!(p.iter().filter(|id| *id == "q3").count(), 1);
    // The list [t2, "", t1] after t1 was already visited through `id`: t1 keeps position 1.
    let mut s = spec("next_forms.json");
    s.questions.get_mut("start").unwrap().multi_select = Some(true);
    assert_eq!(
        path_of(&s, &[("start", A::Sel(&["id", "list"]))]),
        ["start", "t1", "t1n", "t2"]
    );
    // Convergence: q3 keeps the position of its first visit (under q2a), not after q2b.
    let c = spec("convergence.json");
    assert_eq!(
        path_of(&c, &[("q1", A::Sel(&["a", "b"]))]),
        ["q1", "q2a", "q3", "q2b"]
    );
}

/// Row 8: nothing left to expand: the survey ends (free-text questions without `next`).
#[test]
fn row_nothing_left_to_expand_ends_the_survey() {
    for entry in ["qabsent", "qnull", "qempty", "t2"] {
        let s = entered_at("next_forms.json", entry);
        assert_eq!(path_of(&s, &[]), [entry]);
    }
}

// ---------------------------------------------------------------------------------------------
// §6.2 normalizing `next`
// ---------------------------------------------------------------------------------------------

#[test]
fn question_level_next_as_id_list_null_empty_or_absent() {
    let cases: [(&str, &[&str]); 5] = [
        ("qid", &["qid", "t2"]),
        ("qlist", &["qlist", "t2", "t1", "t1n"]),
        ("qnull", &["qnull"]),
        ("qempty", &["qempty"]),
        ("qabsent", &["qabsent"]),
    ];
    for (entry, expected) in cases {
        let s = entered_at("next_forms.json", entry);
        assert_eq!(path_of(&s, &[]), expected, "entry {entry}");
    }
}

#[test]
fn normal_form_keeps_next_exactly_as_sent() {
    use askd_core::survey::Next;
    let s = spec("next_forms.json");
    let start = &s.questions["start"];
    let edge = |k: &str| start.option(k).unwrap().next.clone();
    assert_eq!(edge("id"), Some(Next::One("t1".into())));
    assert_eq!(edge("null"), Some(Next::End));
    assert_eq!(edge("empty"), Some(Next::One(String::new())));
    assert_eq!(edge("inherit"), None);
    assert_eq!(
        edge("list"),
        Some(Next::Many(vec!["t2".into(), String::new(), "t1".into()]))
    );
    assert_eq!(s.questions["qnull"].next, Some(Next::End));
    assert_eq!(s.questions["qempty"].next, Some(Next::One(String::new())));
    assert_eq!(s.questions["qabsent"].next, None);
}

/// "anything else → []": validation rejects such values (Q10, O16), so the normal form never
/// holds one; the raw-JSON graph (used while validating) normalizes them to no edge.
#[test]
fn next_of_any_other_type_is_no_edge() {
    let text = r#"{"entry":"q1","questions":{
        "q1":{"prompt":"p","next":5},
        "q2":{"prompt":"p","next":{"a":"q1"}},
        "q3":{"prompt":"p","next":["q1", 7, "q2"]}}}"#;
    let v = json::parse(text).unwrap();
    let errs = validate(&v).unwrap_err();
    assert!(errs.iter().all(|e| e.code == "next_type"), "{errs:#?}");
    let qs = v
        .as_object()
        .and_then(|o| o.get("questions"))
        .and_then(Json::as_object)
        .unwrap();
    let m: IndexMap<String, PathAnswer> = IndexMap::new();
    for (entry, expected) in [
        ("q1", &["q1"][..]),
        ("q2", &["q2"]),
        ("q3", &["q3", "q1", "q2"]),
    ] {
        let g = Graph::from_json(entry, qs);
        assert_eq!(compute(&g, &m), expected);
    }
}

// ---------------------------------------------------------------------------------------------
// §6.3 defensive corners
// ---------------------------------------------------------------------------------------------

/// "A selected key that matches no option contributes nothing." Read literally: the answer
/// still takes the selection branch (its `selected` list is non-empty), so an unknown key alone
/// yields no targets at all — the question-level `next` is *not* used.
#[test]
fn selected_keys_matching_no_option_contribute_nothing() {
    let g = spec("graph_g.json");
    assert_eq!(path_of(&g, &[("q1", A::Sel(&["zz"]))]), ["q1"]);
    assert_eq!(
        path_of(&g, &[("q1", A::Sel(&["zz", "a", "A"]))]),
        ["q1", "q2a", "q3"]
    );
    assert_eq!(
        path_of(
            &g,
            &[("q1", A::Sel(&["a"])), ("q3", A::Sel(&["nope", "b"]))]
        ),
        ["q1", "q2a", "q3", "y", "z"]
    );
    // Keys on a free-text-only question select nothing either.
    let s = entered_at("next_forms.json", "qid");
    assert_eq!(path_of(&s, &[("qid", A::Sel(&["a"]))]), ["qid"]);
}

#[test]
fn answers_for_unknown_or_off_path_ids_do_not_change_the_path() {
    let g = spec("graph_g.json");
    assert_eq!(
        path_of(
            &g,
            &[
                ("ghost", A::Sel(&["a"])),
                ("q2b", A::Sel(&["a"])),
                ("x", A::Custom("t")),
            ]
        ),
        ["q1", "q3"]
    );
}

#[test]
fn every_path_is_duplicate_free_and_starts_at_the_entry() {
    let g = spec("graph_g.json");
    let keys = ["a", "b", "c", "d", "e"];
    for k1 in keys {
        for mask in 0u32..32 {
            let sel: Vec<&str> = keys
                .iter()
                .enumerate()
                .filter(|(i, _)| mask & (1 << i) != 0)
                .map(|(_, k)| *k)
                .collect();
            let p = path_of(&g, &[("q1", A::Sel(&[k1])), ("q3", A::Sel(&sel))]);
            assert_eq!(p[0], "q1");
            let mut seen = std::collections::HashSet::new();
            assert!(p.iter().all(|id| seen.insert(id.clone())), "{p:?}");
        }
    }
}

//! Properties of the path engine (`survey.md` §6) and of answer validation (§7) over random
//! valid branching specs.
//!
//! Specs are acyclic by construction: question `i` only points at questions `j > i` (in
//! generation order), while the *declared* id order is a random permutation, so id order and
//! graph order differ. Every `next` — question-level or option-level — is randomly an id, a
//! list (with `""` entries), `null`, `""` or absent.

use std::collections::HashSet;

use askd_core::json::Json;
use askd_core::survey::answers::{AnswerEntry, validate_bank, validate_submit};
use askd_core::survey::path::{Graph, PathAnswer, compute};
use askd_core::survey::{SurveySpec, validate};
use indexmap::IndexMap;
use proptest::collection::vec;
use proptest::option;
use proptest::prelude::*;
use proptest::sample::select;
use serde_json::{Map, Value, json};

// ---------------------------------------------------------------------------------------------
// Random specs
// ---------------------------------------------------------------------------------------------

/// Ids, including ones that are integer-like, look built in, or need bracketed paths.
const IDS: &[&str] = &[
    "q0",
    "10",
    "2",
    "constructor",
    "a b",
    "é",
    "toString",
    "x-y",
    "q\"8",
    "Q",
];
const KEYS: &[&str] = &["a", "b", "c", "d", "e", "f", "g"];
/// Ids and keys that are not in any spec.
const GHOST_IDS: &[&str] = &["ghost", "", "Q0"];
const GHOST_KEYS: &[&str] = &["zz", "A", ""];

#[derive(Debug, Clone)]
enum NextGen {
    Absent,
    Null,
    Empty,
    /// One later id (or `""` when there is none).
    One(u8),
    /// A list of later ids; `None` entries are `""`.
    Many(Vec<Option<u8>>),
}

fn next_gen() -> impl Strategy<Value = NextGen> {
    prop_oneof![
        2 => Just(NextGen::Absent),
        1 => Just(NextGen::Null),
        1 => Just(NextGen::Empty),
        10 => any::<u8>().prop_map(NextGen::One),
        1 => Just(NextGen::Many(vec![])),
        4 => vec(option::weighted(0.8, any::<u8>()), 1..4).prop_map(NextGen::Many),
    ]
}

#[derive(Debug, Clone)]
struct QGen {
    /// `None`: a free-text-only question. Otherwise: multiSelect, option count (5..=7) and
    /// one edge per possible option.
    options: Option<(bool, usize, Vec<NextGen>)>,
    next: NextGen,
    skippable: bool,
    allow_custom: bool,
}

fn q_gen() -> impl Strategy<Value = QGen> {
    (
        option::weighted(
            0.75,
            (any::<bool>(), 5..=KEYS.len(), vec(next_gen(), KEYS.len())),
        ),
        next_gen(),
        prop::bool::weighted(0.8),
        prop::bool::weighted(0.8),
    )
        .prop_map(|(options, next, skippable, allow_custom)| QGen {
            // §4.4 Q16: a free-text-only question must accept custom text or a skip.
            allow_custom: allow_custom || (options.is_none() && !skippable),
            options,
            next,
            skippable,
        })
}

#[derive(Debug, Clone)]
struct SpecGen {
    /// Declaration order: a permutation of `0..n`.
    order: Vec<usize>,
    entry: usize,
    questions: Vec<QGen>,
}

fn spec_gen() -> impl Strategy<Value = SpecGen> {
    (1..=IDS.len()).prop_flat_map(|n| {
        (
            Just((0..n).collect::<Vec<_>>()).prop_shuffle(),
            // Mostly the first question in graph order, so that paths get long.
            prop_oneof![3 => Just(0), 1 => 0..n],
            vec(q_gen(), n),
        )
            .prop_map(|(order, entry, questions)| SpecGen {
                order,
                entry,
                questions,
            })
    })
}

/// The target of edge seed `r` from question `i` of `n`: a strictly later id (biased towards
/// near ones, so that paths get long), or `""` when there is none.
fn target(i: usize, r: u8, n: usize) -> String {
    let later = n - i - 1;
    if later == 0 {
        String::new()
    } else {
        let r = r as usize;
        IDS[i + 1 + (r % later).min(r % 3)].to_string()
    }
}

fn next_json(i: usize, g: &NextGen, n: usize) -> Option<Value> {
    match g {
        NextGen::Absent => None,
        NextGen::Null => Some(Value::Null),
        NextGen::Empty => Some(json!("")),
        NextGen::One(r) => Some(json!(target(i, *r, n))),
        NextGen::Many(v) => Some(Value::Array(
            v.iter()
                .map(|r| json!(r.map(|r| target(i, r, n)).unwrap_or_default()))
                .collect(),
        )),
    }
}

impl SpecGen {
    fn n(&self) -> usize {
        self.questions.len()
    }

    fn to_json(&self) -> Value {
        let n = self.n();
        let mut questions = Map::new();
        for &i in &self.order {
            let g = &self.questions[i];
            let mut q = Map::new();
            q.insert("prompt".into(), json!(format!("Question {i}?")));
            if !g.skippable {
                q.insert("skippable".into(), json!(false));
            }
            if !g.allow_custom {
                q.insert("allowCustom".into(), json!(false));
            }
            if let Some((multi, count, edges)) = &g.options {
                if *multi {
                    q.insert("multiSelect".into(), json!(true));
                }
                let opts: Vec<Value> = KEYS[..*count]
                    .iter()
                    .zip(edges)
                    .map(|(k, e)| {
                        let mut o = Map::new();
                        o.insert("key".into(), json!(k));
                        o.insert("label".into(), json!(format!("Option {k}")));
                        if let Some(v) = next_json(i, e, n) {
                            o.insert("next".into(), v);
                        }
                        Value::Object(o)
                    })
                    .collect();
                q.insert("options".into(), Value::Array(opts));
            }
            if let Some(v) = next_json(i, &g.next, n) {
                q.insert("next".into(), v);
            }
            questions.insert(IDS[i].to_string(), Value::Object(q));
        }
        json!({"entry": IDS[self.entry], "questions": questions})
    }
}

fn valid(v: &Value) -> SurveySpec {
    validate(&Json::from_value(v)).unwrap_or_else(|e| panic!("generated spec invalid: {e:#?}\n{v}"))
}

// ---------------------------------------------------------------------------------------------
// Random answer maps
// ---------------------------------------------------------------------------------------------

/// `(id, selected, custom, skipped)`; ids and keys include ones the spec does not define.
type RawAnswer = (String, Vec<String>, Option<String>, bool);

fn raw_answers() -> impl Strategy<Value = Vec<RawAnswer>> {
    let id = prop_oneof![
        4 => select(IDS).prop_map(str::to_string),
        1 => select(GHOST_IDS).prop_map(str::to_string),
    ];
    let key = prop_oneof![
        5 => select(KEYS).prop_map(str::to_string),
        1 => select(GHOST_KEYS).prop_map(str::to_string),
    ];
    let custom = option::of(select(&["", "  ", "typed text"][..]).prop_map(str::to_string));
    vec(
        (id, vec(key, 0..4), custom, prop::bool::weighted(0.2)),
        0..14,
    )
}

fn answer_map(raw: &[RawAnswer]) -> IndexMap<String, PathAnswer> {
    raw.iter()
        .map(|(id, selected, custom, skipped)| {
            (
                id.clone(),
                PathAnswer {
                    selected: selected.clone(),
                    custom: custom.clone(),
                    skipped: *skipped,
                },
            )
        })
        .collect()
}

// ---------------------------------------------------------------------------------------------
// An independent model of the edge rules (§6.2–§6.4), on the raw JSON spec
// ---------------------------------------------------------------------------------------------

fn normalized(v: Option<&Value>) -> Vec<String> {
    match v {
        Some(Value::String(s)) if !s.is_empty() => vec![s.clone()],
        Some(Value::Array(a)) => a
            .iter()
            .filter_map(Value::as_str)
            .filter(|s| !s.is_empty())
            .map(str::to_string)
            .collect(),
        _ => vec![],
    }
}

/// The targets of question `id` under `answers`.
fn edges(spec: &Value, id: &str, answers: &IndexMap<String, PathAnswer>) -> Vec<String> {
    let q = &spec["questions"][id];
    let own = normalized(q.get("next"));
    let Some(a) = answers
        .get(id)
        .filter(|a| !a.skipped && !a.selected.is_empty())
    else {
        return own;
    };
    let mut out = Vec::new();
    for o in q["options"].as_array().map(Vec::as_slice).unwrap_or(&[]) {
        let key = o["key"].as_str().unwrap();
        if !a.selected.iter().any(|s| s == key) {
            continue;
        }
        match o.get("next") {
            None => out.extend(own.iter().cloned()),
            Some(Value::Null) => {}
            Some(v) => out.extend(normalized(Some(v))),
        }
    }
    out
}

/// The recursive `expand` of §6.3, verbatim.
fn reference_path(spec: &Value, answers: &IndexMap<String, PathAnswer>) -> Vec<String> {
    fn expand(
        spec: &Value,
        answers: &IndexMap<String, PathAnswer>,
        id: &str,
        path: &mut Vec<String>,
        seen: &mut HashSet<String>,
    ) {
        if spec["questions"].get(id).is_none() || !seen.insert(id.to_string()) {
            return;
        }
        path.push(id.to_string());
        for t in edges(spec, id, answers) {
            expand(spec, answers, &t, path, seen);
        }
    }
    let mut path = Vec::new();
    let mut seen = HashSet::new();
    let entry = spec["entry"].as_str().unwrap();
    expand(spec, answers, entry, &mut path, &mut seen);
    path
}

// ---------------------------------------------------------------------------------------------
// Random request bodies
// ---------------------------------------------------------------------------------------------

fn arbitrary_json() -> BoxedStrategy<Value> {
    let names = prop_oneof![
        3 => select(&["answers", "id", "selected", "custom", "skipped", "justifications", "quick"][..])
            .prop_map(str::to_string),
        2 => select(IDS).prop_map(str::to_string),
        2 => select(KEYS).prop_map(str::to_string),
        1 => "\\PC{0,5}",
    ];
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(|n| json!(n)),
        (-1e9f64..1e9).prop_map(|f| json!(f)),
        "\\PC{0,8}".prop_map(Value::String),
        select(IDS).prop_map(|s| json!(s)),
        select(KEYS).prop_map(|s| json!(s)),
        Just(json!(" ")),
    ];
    leaf.prop_recursive(4, 64, 6, move |inner| {
        prop_oneof![
            vec(inner.clone(), 0..6).prop_map(Value::Array),
            vec((names.clone(), inner), 0..6)
                .prop_map(|kv| Value::Object(kv.into_iter().collect())),
        ]
    })
    .boxed()
}

/// A plausible entry: mostly well-formed, sometimes with a wrong-typed member.
fn plausible_entry() -> impl Strategy<Value = Value> {
    let id = prop_oneof![
        6 => select(IDS).prop_map(|s| json!(s)),
        1 => select(GHOST_IDS).prop_map(|s| json!(s)),
        1 => arbitrary_json(),
    ];
    let key = prop_oneof![
        6 => select(KEYS).prop_map(str::to_string),
        1 => select(GHOST_KEYS).prop_map(str::to_string),
    ];
    let selected = prop_oneof![
        8 => vec(key.clone(), 0..3).prop_map(|k| json!(k)),
        1 => arbitrary_json(),
    ];
    let text = prop_oneof![
        select(&["", "  ", "why", " padded "][..]).prop_map(|s| json!(s)),
        Just(json!("x".repeat(501))),
        arbitrary_json(),
    ];
    let custom = option::weighted(0.4, text.clone());
    let skipped = option::weighted(
        0.3,
        prop_oneof![4 => any::<bool>().prop_map(Value::Bool), 1 => arbitrary_json()],
    );
    let justifications = option::weighted(
        0.3,
        prop_oneof![
            4 => vec((key, text), 0..3).prop_map(|kv| Value::Object(kv.into_iter().collect())),
            1 => arbitrary_json(),
        ],
    );
    (id, selected, custom, skipped, justifications).prop_map(|(id, sel, c, s, j)| {
        let mut o = Map::new();
        o.insert("id".into(), id);
        o.insert("selected".into(), sel);
        if let Some(c) = c {
            o.insert("custom".into(), c);
        }
        if let Some(s) = s {
            o.insert("skipped".into(), s);
        }
        if let Some(j) = j {
            o.insert("justifications".into(), j);
        }
        Value::Object(o)
    })
}

fn body() -> impl Strategy<Value = Value> {
    prop_oneof![
        6 => vec(plausible_entry(), 0..8).prop_map(|e| json!({"answers": e})),
        1 => vec(prop_oneof![4 => plausible_entry(), 1 => arbitrary_json()], 0..6)
            .prop_map(|e| json!({"answers": e})),
        1 => arbitrary_json(),
    ]
}

/// The engine's view of clean entries (what the server computes the path from).
fn entry_map<'a>(
    entries: impl IntoIterator<Item = &'a AnswerEntry>,
) -> IndexMap<String, PathAnswer> {
    entries
        .into_iter()
        .map(|e| {
            (
                e.id.clone(),
                PathAnswer {
                    selected: e.selected.clone(),
                    custom: e.custom.clone(),
                    skipped: e.skipped,
                },
            )
        })
        .collect()
}

// ---------------------------------------------------------------------------------------------
// Wizard-like bodies: one valid entry per path question
// ---------------------------------------------------------------------------------------------

/// Per question: answer kind, two key seeds, and whether to justify.
type Seed = (u8, u8, u8, bool);

fn seeds() -> impl Strategy<Value = Vec<Seed>> {
    vec(any::<Seed>(), IDS.len())
}

/// A valid entry for question `id`, as the wizard would send it: an explicit skip, a hollow
/// entry (skippable questions only), custom text (where allowed), or a selection (at most one
/// key on a single-select question), sometimes mixed with text on a multi-select one.
fn wizard_entry(spec: &SurveySpec, id: &str, seed: &Seed) -> Value {
    let q = &spec.questions[id];
    let opts = q.options();
    let custom = json!({"id": id, "selected": [], "custom": format!("  typed for {id} ")});
    let selection = |mix: bool| {
        let n = opts.len();
        let mut keys = vec![opts[seed.1 as usize % n].key.clone()];
        let second = &opts[seed.2 as usize % n].key;
        if q.is_multi() && *second != keys[0] {
            keys.push(second.clone());
        }
        let mut e = json!({"id": id, "selected": keys});
        if seed.3 {
            e["justifications"] = json!({ keys[0].clone(): " because " });
        }
        if mix && q.is_multi() && q.allows_custom() {
            e["custom"] = json!("and text");
        }
        e
    };
    match seed.0 % 6 {
        0 if q.is_skippable() => json!({"id": id, "selected": [], "skipped": true}),
        1 if q.is_skippable() => json!({"id": id, "selected": [], "custom": " "}),
        2 if q.allows_custom() => custom,
        k if !opts.is_empty() => selection(k == 5),
        _ if q.allows_custom() => custom,
        // §4.4 Q16: a question that takes neither options nor text is skippable.
        _ => json!({"id": id, "selected": [], "skipped": true}),
    }
}

fn path_answer(e: &Value) -> PathAnswer {
    PathAnswer {
        selected: e["selected"]
            .as_array()
            .unwrap()
            .iter()
            .map(|k| k.as_str().unwrap().to_string())
            .collect(),
        custom: e.get("custom").and_then(Value::as_str).map(str::to_string),
        skipped: e.get("skipped").and_then(Value::as_bool).unwrap_or(false),
    }
}

fn is_hollow(e: &Value) -> bool {
    let a = path_answer(e);
    a.selected.is_empty() && a.custom.as_deref().is_none_or(|c| c.trim().is_empty())
}

/// The wizard's answers to every question, the path they give (computed by the reference
/// model), and the entries for the path questions, in path order.
fn wizard(spec: &SurveySpec, v: &Value, seeds: &[Seed]) -> (Vec<String>, Vec<Value>) {
    let all: Vec<Value> = spec
        .questions
        .keys()
        .map(|id| {
            let i = IDS.iter().position(|x| x == id).unwrap();
            wizard_entry(spec, id, &seeds[i])
        })
        .collect();
    let answers: IndexMap<String, PathAnswer> = all
        .iter()
        .map(|e| (e["id"].as_str().unwrap().to_string(), path_answer(e)))
        .collect();
    let path = reference_path(v, &answers);
    let entries = path
        .iter()
        .map(|id| all.iter().find(|e| e["id"] == json!(id)).unwrap().clone())
        .collect();
    (path, entries)
}

// ---------------------------------------------------------------------------------------------
// Properties
// ---------------------------------------------------------------------------------------------

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// Every path starts at the entry, has no duplicates, holds only defined ids, and every
    /// id after the entry is the target of an edge (under the answers) of an earlier id.
    #[test]
    fn path_shape_and_reachability(g in spec_gen(), raw in raw_answers()) {
        let v = g.to_json();
        let spec = valid(&v);
        let answers = answer_map(&raw);
        let graph = Graph::from_spec(&spec);
        let path: Vec<String> = compute(&graph, &answers).into_iter().map(str::to_string).collect();

        prop_assert_eq!(path.first().map(String::as_str), Some(IDS[g.entry]));
        let mut seen = HashSet::new();
        for id in &path {
            prop_assert!(seen.insert(id.as_str()), "duplicate {} in {:?}", id, path);
            prop_assert!(spec.questions.contains_key(id), "undefined {} in {:?}", id, path);
        }
        for (k, id) in path.iter().enumerate().skip(1) {
            prop_assert!(
                path[..k].iter().any(|p| edges(&v, p, &answers).contains(id)),
                "{} at {} is not reached by an earlier id of {:?}", id, k, path
            );
        }
        // Closed: every edge of every asked question leads to an asked question, so nothing
        // is left to expand when the engine stops.
        for id in &path {
            for t in edges(&v, id, &answers) {
                prop_assert!(seen.contains(t.as_str()), "{} -> {} missing from {:?}", id, t, path);
            }
        }
    }

    /// The engine equals the recursive `expand` of §6.3 (depth-first, first visit wins), and
    /// the raw-JSON graph agrees with the normal-form graph.
    #[test]
    fn path_equals_the_recursive_reference(g in spec_gen(), raw in raw_answers()) {
        let v = g.to_json();
        let spec = valid(&v);
        let answers = answer_map(&raw);
        let expected = reference_path(&v, &answers);
        let graph = Graph::from_spec(&spec);
        let got: Vec<String> = compute(&graph, &answers).into_iter().map(str::to_string).collect();
        prop_assert_eq!(&got, &expected);

        let raw_json = Json::from_value(&v);
        let questions = raw_json.as_object().and_then(|o| o.get("questions")).and_then(Json::as_object).unwrap();
        let from_json = Graph::from_json(IDS[g.entry], questions);
        let got_json: Vec<String> = compute(&from_json, &answers).into_iter().map(str::to_string).collect();
        prop_assert_eq!(&got_json, &expected);
    }

    /// Click order never matters: reversing every `selected` list gives the same path.
    #[test]
    fn path_ignores_selection_order(g in spec_gen(), raw in raw_answers()) {
        let spec = valid(&g.to_json());
        let graph = Graph::from_spec(&spec);
        let answers = answer_map(&raw);
        let mut reversed = answers.clone();
        for a in reversed.values_mut() {
            a.selected.reverse();
        }
        prop_assert_eq!(compute(&graph, &answers), compute(&graph, &reversed));
    }

    /// `validate_submit` and `validate_bank` never panic, whatever the bodies; and what they
    /// accept is consistent with §7.4, §7.5 and §8.3.
    #[test]
    fn answer_validation_never_panics_and_accepts_only_consistent_bodies(
        g in spec_gen(),
        first in body(),
        second in body(),
    ) {
        let spec = valid(&g.to_json());
        let graph = Graph::from_spec(&spec);

        // A first bank, on an ask with nothing banked yet.
        let banked: Vec<AnswerEntry> = match validate_bank(&spec, &[], &Json::from_value(&first)) {
            Ok(fresh) => {
                let path = compute(&graph, &entry_map(&fresh));
                for e in &fresh {
                    prop_assert!(path.contains(&e.id.as_str()), "banked {} off {:?}", e.id, path);
                    prop_assert!(e.is_substantive() || e.is_explicit_skip());
                }
                fresh
            }
            Err(problems) => {
                prop_assert!(!problems.is_empty());
                Vec::new()
            }
        };

        // A second bank on top of it.
        if let Ok(fresh) = validate_bank(&spec, &banked, &Json::from_value(&second)) {
            let path = compute(&graph, &entry_map(banked.iter().chain(&fresh)));
            for e in banked.iter().chain(&fresh) {
                prop_assert!(path.contains(&e.id.as_str()), "{} off {:?}", e.id, path);
            }
            for e in &fresh {
                prop_assert!(!banked.iter().any(|b| b.id == e.id), "re-bank of {} returned", e.id);
            }
        }

        // The final submit, with and without the bank.
        for b in [&banked[..], &[][..]] {
            let Ok(sub) = validate_submit(&spec, b, &Json::from_value(&second)) else { continue };
            let path: Vec<&str> = sub.path.iter().map(String::as_str).collect();
            prop_assert_eq!(path.first().copied(), Some(IDS[g.entry]));
            // answers and skipped partition the path, each in path order.
            let answered: Vec<&str> = sub.answers.iter().map(|e| e.id.as_str()).collect();
            let merged: Vec<&str> = path
                .iter()
                .copied()
                .filter(|id| answered.contains(id) || sub.skipped.iter().any(|s| s == id))
                .collect();
            prop_assert_eq!(&merged, &path);
            prop_assert_eq!(answered.len() + sub.skipped.len(), path.len());
            let in_order: Vec<&str> = path.iter().copied().filter(|id| answered.contains(id)).collect();
            prop_assert_eq!(&answered, &in_order);
            for e in &sub.answers {
                prop_assert!(e.is_substantive());
            }
            // Every banked id is on the path, and a substantive banked entry is the one used.
            for be in b {
                prop_assert!(path.contains(&be.id.as_str()));
                if be.is_substantive() {
                    prop_assert!(sub.answers.contains(be));
                }
            }
            // Non-skippable path questions are answered.
            for id in &path {
                if !spec.questions[*id].is_skippable() {
                    prop_assert!(answered.contains(id), "{} is not skippable", id);
                }
            }
        }
    }

    /// Bodies that are arbitrary JSON, parsed from text as the daemon does, never panic.
    #[test]
    fn arbitrary_json_bodies_never_panic(g in spec_gen(), b in arbitrary_json()) {
        let spec = valid(&g.to_json());
        let text = b.to_string();
        let parsed = askd_core::json::parse(&text).unwrap();
        let _ = validate_submit(&spec, &[], &parsed);
        let _ = validate_bank(&spec, &[], &parsed);
        let wrapped = json!({"answers": b});
        let _ = validate_submit(&spec, &[], &Json::from_value(&wrapped));
        let _ = validate_bank(&spec, &[], &Json::from_value(&wrapped));
    }

    /// A wizard submission — one valid entry per path question, in any order — is accepted
    /// exactly when it carries some substance, with the reference path, answers in path order
    /// and everything else skipped.
    #[test]
    fn wizard_submissions_are_accepted(g in spec_gen(), sd in seeds(), reverse in any::<bool>()) {
        let v = g.to_json();
        let spec = valid(&v);
        let (path, mut entries) = wizard(&spec, &v, &sd);
        let substance = entries.iter().any(|e| !is_hollow(e) || path_answer(e).skipped);
        let expected_answers: Vec<&str> = path
            .iter()
            .zip(&entries)
            .filter(|(_, e)| !is_hollow(e))
            .map(|(id, _)| id.as_str())
            .collect();
        if reverse {
            entries.reverse();
        }
        let body = json!({"answers": entries});
        match validate_submit(&spec, &[], &Json::from_value(&body)) {
            Ok(sub) => {
                prop_assert!(substance);
                prop_assert_eq!(&sub.path, &path);
                let answered: Vec<&str> = sub.answers.iter().map(|e| e.id.as_str()).collect();
                prop_assert_eq!(&answered, &expected_answers);
            }
            Err(problems) => {
                prop_assert!(!substance, "refused: {:#?}\n{}", problems, body);
                prop_assert_eq!(problems.len(), 1);
                prop_assert_eq!(problems[0].code, "no_substance");
            }
        }
    }

    /// Banking a prefix of the path (its non-hollow entries, as Bank & continue does) is
    /// accepted; re-banking it is a no-op; the full submit then passes with the same result as
    /// without the bank; and a changed decision on a banked question is refused.
    #[test]
    fn bank_then_submit(g in spec_gen(), sd in seeds(), cut in any::<prop::sample::Index>()) {
        let v = g.to_json();
        let spec = valid(&v);
        let (_, entries) = wizard(&spec, &v, &sd);
        let k = cut.index(entries.len() + 1);
        let prefix: Vec<Value> = entries[..k].iter().filter(|e| !is_hollow(e) || path_answer(e).skipped).cloned().collect();
        let bank_body = json!({"answers": prefix});
        let banked = match validate_bank(&spec, &[], &Json::from_value(&bank_body)) {
            Ok(b) => b,
            Err(p) => {
                prop_assert!(prefix.is_empty(), "refused: {:#?}\n{}", p, bank_body);
                prop_assert_eq!(p[0].code, "bank_empty");
                return Ok(());
            }
        };
        prop_assert_eq!(banked.len(), prefix.len());
        let again = validate_bank(&spec, &banked, &Json::from_value(&bank_body));
        prop_assert_eq!(again, Ok(vec![]));

        let body = json!({"answers": entries});
        let with_bank = validate_submit(&spec, &banked, &Json::from_value(&body));
        let without = validate_submit(&spec, &[], &Json::from_value(&body));
        prop_assert!(with_bank.is_ok(), "{:#?}", with_bank);
        prop_assert_eq!(with_bank, without);

        // Change the first banked decision: drop its keys and custom text, or add text.
        let first = &banked[0];
        let mut changed: Vec<Value> = entries.clone();
        let at = changed.iter().position(|e| e["id"] == json!(first.id)).unwrap();
        changed[at] = if first.is_substantive() {
            json!({"id": first.id, "selected": [], "skipped": true})
        } else {
            json!({"id": first.id, "selected": [], "custom": "changed"})
        };
        let refused = validate_submit(&spec, &banked, &Json::from_value(&json!({"answers": changed})));
        // (Custom text may be disallowed on that question: then the entry rules refuse it.)
        let codes: Vec<&str> = refused.as_ref().err().map(|p| p.iter().map(|p| p.code).collect()).unwrap_or_default();
        prop_assert!(
            codes.contains(&"banked_conflict") || codes.contains(&"custom_not_allowed"),
            "{:?}", refused
        );
    }

    /// Adding an entry for a question the path does not reach gives exactly one `off_path`.
    #[test]
    fn off_path_entries_are_refused(g in spec_gen(), sd in seeds(), pick in any::<prop::sample::Index>()) {
        let v = g.to_json();
        let spec = valid(&v);
        let (path, mut entries) = wizard(&spec, &v, &sd);
        let off: Vec<&String> = spec.questions.keys().filter(|id| !path.contains(id)).collect();
        prop_assume!(!off.is_empty());
        let id = off[pick.index(off.len())];
        entries.push(json!({"id": id, "selected": [], "skipped": true}));
        let body = json!({"answers": entries});
        let problems = validate_submit(&spec, &[], &Json::from_value(&body)).unwrap_err();
        prop_assert_eq!(problems.len(), 1, "{:#?}", problems);
        prop_assert_eq!(problems[0].code, "off_path");
        prop_assert_eq!(&problems[0].path, &format!("answers[{}]", entries.len() - 1));
        // The same on a bank of the non-hollow entries, with a bankable entry for the
        // off-path question (an explicit skip of a non-skippable one would fail earlier).
        let mut bankable: Vec<Value> = entries[..entries.len() - 1]
            .iter()
            .filter(|e| !is_hollow(e) || path_answer(e).skipped)
            .cloned()
            .collect();
        bankable.push(wizard_entry(&spec, id, &(3, 0, 0, false)));
        let problems = validate_bank(&spec, &[], &Json::from_value(&json!({"answers": bankable}))).unwrap_err();
        prop_assert_eq!(problems.len(), 1, "{:#?}", problems);
        prop_assert_eq!(problems[0].code, "off_path");
        prop_assert_eq!(&problems[0].path, &format!("answers[{}]", bankable.len() - 1));
    }
}

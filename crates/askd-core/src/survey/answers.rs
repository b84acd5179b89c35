//! Answer validation (`survey.md` §7): the entry rules shared by bank and submit, the
//! clean entry, and the stages of a final submit and of a bank.

use crate::hash::FastSet;

use indexmap::IndexMap;
use serde::{Deserialize, Serialize};

use super::model::{Question, SurveySpec};
use super::path::{self, Graph, Selections};
use super::validate::limits;
use crate::json::{Json, Object};
use crate::problem::{PathBuf, Problem, exceeds};

/// A clean answer entry (§7.3).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AnswerEntry {
    pub id: String,
    /// Option keys in submitted order.
    pub selected: Vec<String>,
    /// Trimmed custom text; present only when non-empty.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub custom: Option<String>,
    /// An explicit skip: carried only on a hollow entry.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub skipped: bool,
    /// Selected key -> trimmed why-text; only kept entries.
    #[serde(default, skip_serializing_if = "IndexMap::is_empty")]
    pub justifications: IndexMap<String, String>,
}

impl AnswerEntry {
    /// At least one selected key or non-blank custom text.
    pub fn is_substantive(&self) -> bool {
        !self.selected.is_empty() || self.custom.is_some()
    }

    /// Hollow and flagged `skipped: true`.
    pub fn is_explicit_skip(&self) -> bool {
        self.skipped && !self.is_substantive()
    }

    /// The comparison of the bank lock (§7.4): the same selected set and the same trimmed
    /// custom text. Justifications and the skip flag are not compared.
    pub fn same_decision(&self, other: &AnswerEntry) -> bool {
        let a: FastSet<&str> = self.selected.iter().map(String::as_str).collect();
        let b: FastSet<&str> = other.selected.iter().map(String::as_str).collect();
        a == b && self.custom == other.custom
    }
}

/// Entries keyed by id take the selection branch of the path engine unless skipped.
struct EntryMap<'e>(IndexMap<&'e str, &'e AnswerEntry>);

impl<'e> EntryMap<'e> {
    fn new(entries: impl IntoIterator<Item = &'e AnswerEntry>) -> Self {
        let mut m = IndexMap::new();
        for e in entries {
            m.entry(e.id.as_str()).or_insert(e);
        }
        EntryMap(m)
    }
}

impl Selections for EntryMap<'_> {
    fn selection(&self, id: &str) -> Option<&[String]> {
        self.0
            .get(id)
            .filter(|e| !e.skipped && !e.selected.is_empty())
            .map(|e| e.selected.as_slice())
    }
}

/// A validated final submission: what settles the ask as `answered`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Submission {
    /// The server's recomputed path.
    pub path: Vec<String>,
    /// Every path question with a substantive answer, in path order; banked questions carry
    /// their banked entry.
    pub answers: Vec<AnswerEntry>,
    /// Every path question without a substantive answer, in path order.
    pub skipped: Vec<String>,
    /// The quick template the submission came from, when the client said so.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub quick: Option<String>,
}

/// §7.2: the entry rules. `A1` stops; other failures skip the rest of their entry. On
/// success, every entry is clean (§7.3), paired with its index in the request.
pub fn entry_rules(spec: &SurveySpec, body: &Json) -> Result<Vec<AnswerEntry>, Vec<Problem>> {
    let mut errors = Vec::new();
    let Some(items) = body
        .as_object()
        .and_then(|o| o.get("answers"))
        .and_then(Json::as_array)
    else {
        // A1
        return Err(vec![Problem::new(
            "answers",
            "answers_type",
            "answers must be an array",
        )]);
    };
    let mut clean = Vec::with_capacity(items.len());
    let mut seen: FastSet<&str> = FastSet::default();
    for (i, item) in items.iter().enumerate() {
        let at = PathBuf::root().field("answers").index(i);
        if let Some(e) = entry(spec, item, &at, &mut seen, &mut errors) {
            clean.push(e);
        }
    }
    if errors.is_empty() {
        Ok(clean)
    } else {
        Err(errors)
    }
}

fn entry<'b>(
    spec: &SurveySpec,
    item: &'b Json<'b>,
    at: &PathBuf,
    seen: &mut FastSet<&'b str>,
    errors: &mut Vec<Problem>,
) -> Option<AnswerEntry> {
    let mut err = |path: PathBuf, code: &'static str, msg: String| {
        errors.push(Problem::new(path, code, msg));
    };
    // A2
    let Some(o) = item.as_object() else {
        err(
            at.clone(),
            "answer_type",
            "answers entries must be objects".into(),
        );
        return None;
    };
    // A3
    let raw_id = o.get("id");
    let Some((id, q)) = raw_id
        .and_then(Json::as_str)
        .and_then(|id| spec.questions.get_key_value(id))
    else {
        let shown = match raw_id {
            Some(Json::String(s)) => s.to_string(),
            Some(v) => v.to_string(),
            None => "null".into(),
        };
        err(
            at.field("id"),
            "answer_unknown_question",
            format!("answers id \"{shown}\" names no question"),
        );
        return None;
    };
    // A4
    if !seen.insert(raw_id.and_then(Json::as_str).unwrap_or_default()) {
        err(
            at.field("id"),
            "answer_duplicate_question",
            format!("answers repeat question \"{id}\""),
        );
        return None;
    }
    // A5, A6
    let selected = entry_selected(o, at, id, &mut err)?;
    // A7
    let mut failed = false;
    unknown_keys(q, &selected, at, id, &mut err, &mut failed);
    // A8
    let custom = entry_custom(o, at, id, &mut err)?;
    // A9, A10
    custom_rules(q, custom, at, id, &mut err, &mut failed);
    // A11, A12
    if !q.is_multi() {
        single_select_rules(&selected, custom, at, id, &mut err, &mut failed);
    }
    // A13
    let skipped = entry_skipped(o, at, id, &mut err, &mut failed);
    // A14–A18
    let justifications = entry_justifications(o, &selected, at, id, &mut err, &mut failed);
    if failed {
        return None;
    }
    Some(AnswerEntry {
        id: id.clone(),
        skipped: skipped && selected.is_empty() && custom.is_none(),
        selected: selected.into_iter().map(str::to_string).collect(),
        custom: custom.map(str::to_string),
        justifications,
    })
}

/// A5, A6: the entry's `selected`, an array of distinct option key strings.
fn entry_selected<'b>(
    o: &'b Object<'b>,
    at: &PathBuf,
    id: &str,
    err: &mut impl FnMut(PathBuf, &'static str, String),
) -> Option<Vec<&'b str>> {
    // A5
    let selected: Vec<&'b str> = match o.get("selected") {
        Some(Json::Array(keys)) if keys.iter().all(|k| k.as_str().is_some()) => {
            keys.iter().filter_map(Json::as_str).collect()
        }
        _ => {
            err(
                at.field("selected"),
                "selected_type",
                format!("answers for \"{id}\": selected must be an array of option keys"),
            );
            return None;
        }
    };
    // A6
    let distinct: FastSet<&str> = selected.iter().copied().collect();
    if distinct.len() != selected.len() {
        err(
            at.field("selected"),
            "selected_duplicate_key",
            format!("answers for \"{id}\" repeat an option key"),
        );
        return None;
    }
    Some(selected)
}

/// A7: every selected key is an option of the question.
fn unknown_keys(
    q: &Question,
    selected: &[&str],
    at: &PathBuf,
    id: &str,
    err: &mut impl FnMut(PathBuf, &'static str, String),
    failed: &mut bool,
) {
    for (j, k) in selected.iter().enumerate() {
        if q.option(k).is_none() {
            *failed = true;
            err(
                at.field("selected").index(j),
                "selected_unknown_key",
                format!("answers for \"{id}\": key \"{k}\" is not an option"),
            );
        }
    }
}

/// A8: the entry's trimmed `custom` text, `Some(None)` when absent or blank (`None` after a
/// problem).
fn entry_custom<'b>(
    o: &'b Object<'b>,
    at: &PathBuf,
    id: &str,
    err: &mut impl FnMut(PathBuf, &'static str, String),
) -> Option<Option<&'b str>> {
    let custom = match o.get_present("custom") {
        None => None,
        Some(Json::String(c)) => Some(c.trim()),
        Some(_) => {
            err(
                at.field("custom"),
                "custom_type",
                format!("answers for \"{id}\": custom must be a string"),
            );
            return None;
        }
    };
    Some(custom.filter(|c| !c.is_empty()))
}

/// A9, A10: custom text within its limit, and only where the question allows it.
fn custom_rules(
    q: &Question,
    custom: Option<&str>,
    at: &PathBuf,
    id: &str,
    err: &mut impl FnMut(PathBuf, &'static str, String),
    failed: &mut bool,
) {
    // A9
    if custom.is_some_and(|c| exceeds(c, limits::CUSTOM)) {
        *failed = true;
        err(
            at.field("custom"),
            "custom_too_long",
            format!("answers for \"{id}\": custom exceeds 8000 characters"),
        );
    }
    // A10
    if custom.is_some() && !q.allows_custom() {
        *failed = true;
        err(
            at.field("custom"),
            "custom_not_allowed",
            format!(
                "answers for \"{id}\": custom text is not allowed — the question has allowCustom: false"
            ),
        );
    }
}

/// A11, A12: a single-select entry has at most one option, and not with custom text.
fn single_select_rules(
    selected: &[&str],
    custom: Option<&str>,
    at: &PathBuf,
    id: &str,
    err: &mut impl FnMut(PathBuf, &'static str, String),
    failed: &mut bool,
) {
    // A11
    if selected.len() > 1 {
        *failed = true;
        err(
            at.field("selected"),
            "single_select_multiple",
            format!(
                "answers for \"{id}\" selects {} options on a single-select question",
                selected.len()
            ),
        );
    }
    // A12
    if !selected.is_empty() && custom.is_some() {
        *failed = true;
        err(
            at.clone(),
            "single_select_mixed",
            format!(
                "answers for \"{id}\" combines options with custom text on a single-select question"
            ),
        );
    }
}

/// A13: the entry's `skipped`, a boolean (false when absent).
fn entry_skipped(
    o: &Object,
    at: &PathBuf,
    id: &str,
    err: &mut impl FnMut(PathBuf, &'static str, String),
    failed: &mut bool,
) -> bool {
    match o.get_present("skipped") {
        None => false,
        Some(Json::Bool(b)) => *b,
        Some(_) => {
            *failed = true;
            err(
                at.field("skipped"),
                "skipped_type",
                format!("answers for \"{id}\": skipped must be a boolean"),
            );
            false
        }
    }
}

/// A14–A18: the entry's `justifications`, why-texts keyed by selected options (blank ones
/// dropped).
fn entry_justifications(
    o: &Object,
    selected: &[&str],
    at: &PathBuf,
    id: &str,
    err: &mut impl FnMut(PathBuf, &'static str, String),
    failed: &mut bool,
) -> IndexMap<String, String> {
    let mut justifications = IndexMap::new();
    match o.get_present("justifications") {
        None => {}
        Some(Json::Object(js)) => {
            for (k, v) in js.iter() {
                let jp = at.field("justifications").id(k);
                if !selected.contains(&k) {
                    *failed = true;
                    err(
                        jp,
                        "justification_unselected_key",
                        format!(
                            "answers for \"{id}\": justification names key \"{k}\" which is not a selected option"
                        ),
                    );
                    continue;
                }
                let Some(text) = v.as_str() else {
                    *failed = true;
                    err(
                        jp,
                        "justification_type",
                        format!("answers for \"{id}\": justification for \"{k}\" must be a string"),
                    );
                    continue;
                };
                let text = text.trim();
                if text.is_empty() {
                    continue;
                }
                if exceeds(text, limits::JUSTIFICATION) {
                    *failed = true;
                    err(
                        jp,
                        "justification_too_long",
                        format!(
                            "answers for \"{id}\": justification for \"{k}\" exceeds 500 characters"
                        ),
                    );
                    continue;
                }
                justifications.insert(k.to_string(), text.to_string());
            }
        }
        Some(_) => {
            *failed = true;
            err(
                at.field("justifications"),
                "justifications_type",
                format!(
                    "answers for \"{id}\": justifications must be an object of option key -> why text"
                ),
            );
        }
    }
    justifications
}

fn not_skippable_entry(at: PathBuf, id: &str) -> Problem {
    Problem::new(
        at,
        "not_skippable",
        format!(
            "answers for \"{id}\": the question is not skippable — select an option or type an answer"
        ),
    )
}

fn banked_conflict(at: PathBuf, id: &str) -> Problem {
    Problem::new(
        at,
        "banked_conflict",
        format!(
            "answer for \"{id}\" conflicts with its banked (locked) answer — banked answers cannot be changed"
        ),
    )
}

fn off_path(at: PathBuf, id: &str) -> Problem {
    Problem::new(
        at,
        "off_path",
        format!("answers include \"{id}\" which the branch path does not reach"),
    )
}

fn answers_at(i: usize) -> PathBuf {
    PathBuf::root().field("answers").index(i)
}

/// §7.4: a final submit. `banked` holds the ask's banked entries in bank order.
pub fn validate_submit(
    spec: &SurveySpec,
    banked: &[AnswerEntry],
    body: &Json,
) -> Result<Submission, Vec<Problem>> {
    // 1. Entry rules.
    let entries = entry_rules(spec, body)?;
    // Quick-template note: an optional template key, checked against the spec.
    let quick = match body.as_object().and_then(|o| o.get_present("quick")) {
        None => None,
        Some(Json::String(k))
            if spec
                .quick
                .as_deref()
                .unwrap_or(&[])
                .iter()
                .any(|t| t.key == *k) =>
        {
            Some(k.to_string())
        }
        Some(v) => {
            let shown = v
                .as_str()
                .map(str::to_string)
                .unwrap_or_else(|| v.to_string());
            return Err(vec![Problem::new(
                "quick",
                "quick_unknown",
                format!("quick \"{shown}\" names no quick template of this survey"),
            )]);
        }
    };
    // 2. Substance.
    if !entries
        .iter()
        .any(|e| e.is_substantive() || e.is_explicit_skip())
    {
        return Err(vec![Problem::new(
            "answers",
            "no_substance",
            "the submission carries no selections — nothing was picked, skipped, or written. Pick options (or skip questions explicitly) and submit again. A quick template must actually contain answers.",
        )]);
    }
    // 3. Consistency.
    let mut errors = Vec::new();
    let position = |id: &str| entries.iter().position(|e| e.id == id);
    for b in banked {
        match position(&b.id) {
            None => errors.push(banked_conflict(PathBuf::root().field("answers"), &b.id)),
            Some(i) if !entries[i].same_decision(b) => {
                errors.push(banked_conflict(answers_at(i), &b.id))
            }
            Some(_) => {}
        }
    }
    let graph = Graph::from_spec(spec);
    let map = EntryMap::new(&entries);
    let path = path::compute(&graph, &map);
    let on_path: FastSet<&str> = path.iter().copied().collect();
    for (i, e) in entries.iter().enumerate() {
        if !on_path.contains(e.id.as_str()) {
            errors.push(off_path(answers_at(i), &e.id));
        }
    }
    for id in &path {
        let q = &spec.questions[*id];
        if q.is_skippable() {
            continue;
        }
        match position(id) {
            None => errors.push(Problem::new(
                "answers",
                "not_skippable",
                format!("answers omit \"{id}\", which is on the branch path and is not skippable — answer it"),
            )),
            Some(i) if !entries[i].is_substantive() => {
                errors.push(not_skippable_entry(answers_at(i), id))
            }
            Some(_) => {}
        }
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    // The answered shape: banked entries win for banked questions.
    let mut answers = Vec::new();
    let mut skipped = Vec::new();
    for id in &path {
        let chosen = banked
            .iter()
            .find(|b| b.id == *id)
            .or_else(|| map.0.get(id).copied());
        match chosen {
            Some(e) if e.is_substantive() => {
                let mut e = e.clone();
                e.skipped = false;
                answers.push(e);
            }
            _ => skipped.push(id.to_string()),
        }
    }
    Ok(Submission {
        path: path.into_iter().map(str::to_string).collect(),
        answers,
        skipped,
        quick,
    })
}

/// §7.5: a bank. Returns the entries to commit, in request order; identical re-banks of
/// already banked ids are no-ops and are not returned.
pub fn validate_bank(
    spec: &SurveySpec,
    banked: &[AnswerEntry],
    body: &Json,
) -> Result<Vec<AnswerEntry>, Vec<Problem>> {
    // 1. Entry rules.
    let entries = entry_rules(spec, body)?;
    if entries.is_empty() {
        return Err(vec![Problem::new(
            "answers",
            "bank_empty",
            "bank carries no answers",
        )]);
    }
    let mut errors = Vec::new();
    let mut fresh = Vec::new();
    for (i, e) in entries.iter().enumerate() {
        // 2. Bankable entries.
        if !e.is_substantive() && !e.is_explicit_skip() {
            errors.push(Problem::new(
                answers_at(i),
                "bank_hollow",
                format!("bank entries must carry a selection, custom text, or an explicit skip — \"{}\" carries none", e.id),
            ));
            continue;
        }
        if e.is_explicit_skip() && !spec.questions[e.id.as_str()].is_skippable() {
            errors.push(not_skippable_entry(answers_at(i), &e.id));
            continue;
        }
        // 3. Lock.
        match banked.iter().find(|b| b.id == e.id) {
            Some(b) if b.same_decision(e) => {}
            Some(_) => errors.push(banked_conflict(answers_at(i), &e.id)),
            None => fresh.push((i, e)),
        }
    }
    // 4. On the path of the banked answers together with the new entries.
    let graph = Graph::from_spec(spec);
    let map = EntryMap::new(banked.iter().chain(fresh.iter().map(|(_, e)| *e)));
    let path = path::compute(&graph, &map);
    let on_path: FastSet<&str> = path.iter().copied().collect();
    for b in banked {
        if !on_path.contains(b.id.as_str()) {
            errors.push(off_path(PathBuf::root().field("answers"), &b.id));
        }
    }
    for (i, e) in &fresh {
        if !on_path.contains(e.id.as_str()) {
            errors.push(off_path(answers_at(*i), &e.id));
        }
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    Ok(fresh.into_iter().map(|(_, e)| e.clone()).collect())
}

//! Answer validation (`review.md` §3.4): every answer that reaches askd — a submit from a
//! surface, a draft, an import — is checked against the stored review with the same
//! `{path, code, message}` entries. All or nothing: one bad answer and nothing is accepted.
//!
//! A submit body is `{"answers": [{"id", "verdict"?, "selected"?, "note"?}], "surface"?}`:
//! - `verdict` is the machine value (`pass`, `yes`, `"4"`, `"A,C"`); the labels of either
//!   language (`Pass`, `通过`, an option's text) are accepted too, Latin letters
//!   case-insensitively, as in an import (§8.2). `""` or absent leaves the item blank.
//! - `selected` (choice only) lists option values instead; with both, they must agree.
//! - `note` is free text, trimmed; for a text item it is the answer.
//! - `surface` is `card`, `panel`, `terminal`, `client-form`, `app` or `cli`; absent, the review's default by item count.
//!
//! An answer set may leave any item out; a missing item is blank.

use serde::{Deserialize, Serialize};

use crate::hash::FastMap;
use crate::json::{Json, Object};
use crate::problem::{PathBuf, Problem, exceeds};

use super::model::{ItemType, MAX_NOTE, ReviewItem, ReviewSpec, Surface};
use super::validate::{describe, is_separator, quote};

/// One clean answer: the canonical machine verdict (`""` when blank, always `""` for text),
/// the chosen values of a choice item in option order, and the trimmed note.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq, Default)]
pub struct ItemAnswer {
    pub id: String,
    #[serde(default)]
    pub verdict: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub selected: Vec<String>,
    #[serde(default)]
    pub note: String,
}

/// A validated submit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Submission {
    pub answers: Vec<ItemAnswer>,
    pub surface: Option<Surface>,
}

/// Why a verdict was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum VerdictError {
    /// Outside the type's set.
    Invalid,
    /// Several options on a single-select item.
    NotSingle(usize),
    /// A selected value that is not an option.
    UnknownOption(String),
    /// A scale answer that is not a whole number in range.
    OutOfRange,
    /// A verdict on a text item.
    NotForType,
}

/// The machine values a verdict of this item accepts, for messages.
pub fn allowed(item: &ReviewItem) -> String {
    match item.kind {
        ItemType::Confirm => "pass, fail, pending".into(),
        ItemType::Bool => "yes, no".into(),
        ItemType::Choice => item
            .options
            .iter()
            .map(|o| o.v.as_str())
            .collect::<Vec<_>>()
            .join(", "),
        ItemType::Scale => {
            let (lo, hi) = item.bounds();
            format!("{lo}–{hi}")
        }
        ItemType::Text => "nothing (the answer goes in note)".into(),
    }
}

fn eq_loose(a: &str, b: &str) -> bool {
    a == b || a.eq_ignore_ascii_case(b)
}

/// The option a token names: its value exactly, else its value or text with Latin letters
/// compared case-insensitively.
fn find_option<'i>(item: &'i ReviewItem, token: &str) -> Option<&'i str> {
    let t = token.trim();
    item.options
        .iter()
        .find(|o| o.v == t)
        .or_else(|| item.options.iter().find(|o| eq_loose(&o.v, t)))
        .or_else(|| item.options.iter().find(|o| eq_loose(o.t.trim(), t)))
        .map(|o| o.v.as_str())
}

/// Values in option order, once each.
fn in_option_order(item: &ReviewItem, chosen: &[&str]) -> Vec<String> {
    item.options
        .iter()
        .filter(|o| chosen.contains(&o.v.as_str()))
        .map(|o| o.v.clone())
        .collect()
}

/// Parses a choice selection given as a list of tokens.
pub fn parse_selection<'a>(
    item: &ReviewItem,
    tokens: impl IntoIterator<Item = &'a str>,
) -> Result<Vec<String>, VerdictError> {
    let mut chosen: Vec<&str> = Vec::new();
    for token in tokens {
        if token.trim().is_empty() {
            continue;
        }
        match find_option(item, token) {
            Some(v) => {
                if !chosen.contains(&v) {
                    chosen.push(v);
                }
            }
            None => return Err(VerdictError::UnknownOption(token.trim().to_string())),
        }
    }
    if !item.is_multi() && chosen.len() > 1 {
        return Err(VerdictError::NotSingle(chosen.len()));
    }
    Ok(in_option_order(item, &chosen))
}

/// Parses a verdict cell or field (§8.2) into the canonical verdict and, for a choice item,
/// the chosen values. `""` (after trimming) is blank.
pub fn parse_verdict(item: &ReviewItem, raw: &str) -> Result<(String, Vec<String>), VerdictError> {
    let t = raw.trim();
    if t.is_empty() {
        return Ok((String::new(), Vec::new()));
    }
    let pick = |pairs: &[(&str, &[&str])]| -> Result<(String, Vec<String>), VerdictError> {
        pairs
            .iter()
            .find(|(_, spellings)| spellings.iter().any(|s| eq_loose(s, t)))
            .map(|(v, _)| ((*v).to_string(), Vec::new()))
            .ok_or(VerdictError::Invalid)
    };
    match item.kind {
        ItemType::Confirm => pick(&[
            ("pass", &["pass", "通过"]),
            ("fail", &["fail", "不通过"]),
            ("pending", &["pending", "待定"]),
        ]),
        ItemType::Bool => pick(&[("yes", &["yes", "是"]), ("no", &["no", "否"])]),
        ItemType::Scale => {
            let (lo, hi) = item.bounds();
            let n: i64 = t.parse().map_err(|_| VerdictError::OutOfRange)?;
            if (lo..=hi).contains(&n) {
                Ok((n.to_string(), Vec::new()))
            } else {
                Err(VerdictError::OutOfRange)
            }
        }
        ItemType::Text => Err(VerdictError::NotForType),
        ItemType::Choice => {
            // A cell that equals one option's text as a whole counts as that option.
            let selected = match item.options.iter().find(|o| eq_loose(o.t.trim(), t)) {
                Some(o) => vec![o.v.clone()],
                None => parse_selection(item, t.split(is_separator))?,
            };
            Ok((selected.join(","), selected))
        }
    }
}

/// The §3.4 problem for a refused verdict at `at` (the path of the verdict or selected).
pub fn verdict_problem(item: &ReviewItem, at: &str, raw: &str, e: &VerdictError) -> Problem {
    let id = &item.id;
    match e {
        VerdictError::Invalid => Problem::new(
            at,
            "invalid_verdict",
            format!(
                "{at} must be one of {} for item \"{id}\" (got {})",
                allowed(item),
                quote(raw.trim())
            ),
        ),
        VerdictError::NotSingle(n) => Problem::new(
            at,
            "not_single",
            format!("{at} allows one option for item \"{id}\" (got {n})"),
        ),
        VerdictError::UnknownOption(v) => Problem::new(
            at,
            "unknown_option",
            format!("{at} \"{v}\" is not an option of item \"{id}\""),
        ),
        VerdictError::OutOfRange => {
            let (lo, hi) = item.bounds();
            Problem::new(
                at,
                "out_of_range",
                format!(
                    "{at} must be a whole number from {lo} to {hi} for item \"{id}\" (got {})",
                    quote(raw.trim())
                ),
            )
        }
        VerdictError::NotForType => Problem::new(
            at,
            "field_not_for_type",
            format!(
                "{at} does not apply to {} item \"{id}\"",
                item.kind.as_str()
            ),
        ),
    }
}

/// The note rule: trimmed, at most 4 000 characters.
pub fn check_note(at: &str, raw: &str) -> Result<String, Problem> {
    let t = raw.trim();
    if exceeds(t, MAX_NOTE) {
        return Err(Problem::new(
            at,
            "too_long",
            format!(
                "{at} is {} characters; the limit is {MAX_NOTE}",
                t.chars().count()
            ),
        ));
    }
    Ok(t.to_string())
}

/// An item id as a submission may send it: a string, or an integer (its decimal string).
pub fn id_of(v: &Json) -> Option<String> {
    match v {
        Json::String(s) => Some(s.to_string()),
        Json::Number(n) => n.as_u64().map(|u| u.to_string()),
        _ => None,
    }
}

/// Resolves answered ids to the review's items (through an index built once, so checking `n`
/// answers against `m` items costs `n + m`) and tracks which were answered, for
/// `unknown_item` and `duplicate_answer`.
pub struct Seen<'s> {
    index: FastMap<&'s str, &'s ReviewItem>,
    answered: FastMap<&'s str, ()>,
}

impl<'s> Seen<'s> {
    pub fn new(spec: &'s ReviewSpec) -> Self {
        Seen {
            index: spec.index(),
            answered: FastMap::default(),
        }
    }

    /// Resolves the id at `id_at` to an item, recording it; `unknown_item` or
    /// `duplicate_answer` otherwise.
    pub fn item(&mut self, id_at: &str, id: &str) -> Result<&'s ReviewItem, Problem> {
        let Some(item) = self.index.get(id).copied() else {
            return Err(Problem::new(
                id_at,
                "unknown_item",
                format!("{id_at} {} is not an item of this review", quote(id)),
            ));
        };
        if self.answered.insert(item.id.as_str(), ()).is_some() {
            return Err(Problem::new(
                id_at,
                "duplicate_answer",
                format!("{id_at} {} is answered twice", quote(id)),
            ));
        }
        Ok(item)
    }
}

/// Checks one answer entry object. `strict` rejects unknown members (a submit); an import
/// ignores them (its items carry their definition).
pub fn check_entry(
    at: &PathBuf,
    obj: &Object,
    seen: &mut Seen<'_>,
    strict: bool,
    problems: &mut Vec<Problem>,
) -> Option<ItemAnswer> {
    let before = problems.len();
    let id_at = at.field("id");
    let item = entry_item(&id_at, obj, seen, problems);
    let v_at = at.field("verdict");
    let s_at = at.field("selected");
    let n_at = at.field("note");
    let verdict_raw = raw_verdict(&v_at, obj, problems);
    let selected_raw = raw_selected(&s_at, obj, problems);
    let note_raw = raw_note(&n_at, obj, problems);
    if strict {
        unknown_answer_fields(at, obj, problems);
    }
    let item = item?;

    let mut answer = ItemAnswer {
        id: item.id.clone(),
        ..Default::default()
    };
    let sel = selected_raw.filter(|s| !s.is_empty());
    if let Some(sel) = &sel {
        apply_selected(item, sel, &s_at, &mut answer, problems);
    }
    if let Some(raw) = verdict_raw.as_deref().filter(|r| !r.trim().is_empty()) {
        apply_verdict(item, raw, sel.is_some(), &v_at, &mut answer, problems);
    }
    match check_note(n_at.as_str(), &note_raw) {
        Ok(n) => answer.note = n,
        Err(p) => problems.push(p),
    }
    (problems.len() == before).then_some(answer)
}

/// The item the entry's `id` names (recorded in `seen`).
fn entry_item<'s>(
    id_at: &PathBuf,
    obj: &Object,
    seen: &mut Seen<'s>,
    problems: &mut Vec<Problem>,
) -> Option<&'s ReviewItem> {
    match obj.get_present("id") {
        None => {
            problems.push(Problem::new(
                id_at.as_str(),
                "required",
                format!("{id_at} is required"),
            ));
            None
        }
        Some(v) => match id_of(v) {
            None => {
                problems.push(Problem::new(
                    id_at.as_str(),
                    "wrong_type",
                    format!("{id_at} must be a string (got {})", describe(v)),
                ));
                None
            }
            Some(id) => match seen.item(id_at.as_str(), &id) {
                Ok(item) => Some(item),
                Err(p) => {
                    problems.push(p);
                    None
                }
            },
        },
    }
}

/// The entry's `verdict` as sent: a string, or a number (a scale answer).
fn raw_verdict(v_at: &PathBuf, obj: &Object, problems: &mut Vec<Problem>) -> Option<String> {
    match obj.get_present("verdict") {
        None => None,
        Some(Json::String(s)) => Some(s.to_string()),
        // A scale answer may come as a number.
        Some(Json::Number(n)) => Some(n.to_string()),
        Some(other) => {
            problems.push(Problem::new(
                v_at.as_str(),
                "wrong_type",
                format!("{v_at} must be a string (got {})", other.kind()),
            ));
            None
        }
    }
}

/// The entry's `selected` as sent: an array of option value strings (the bad entries dropped,
/// each a problem).
fn raw_selected(s_at: &PathBuf, obj: &Object, problems: &mut Vec<Problem>) -> Option<Vec<String>> {
    match obj.get_present("selected") {
        None => None,
        Some(Json::Array(a)) => {
            let mut out = Vec::new();
            for (k, x) in a.iter().enumerate() {
                match id_of(x) {
                    Some(s) => out.push(s),
                    None => {
                        let xat = s_at.index(k);
                        problems.push(Problem::new(
                            xat.as_str(),
                            "wrong_type",
                            format!("{xat} must be an option value string (got {})", x.kind()),
                        ));
                    }
                }
            }
            Some(out)
        }
        Some(other) => {
            problems.push(Problem::new(
                s_at.as_str(),
                "wrong_type",
                format!(
                    "{s_at} must be an array of option values (got {})",
                    other.kind()
                ),
            ));
            None
        }
    }
}

/// The entry's `note` as sent (empty when absent).
fn raw_note(n_at: &PathBuf, obj: &Object, problems: &mut Vec<Problem>) -> String {
    match obj.get_present("note") {
        None => String::new(),
        Some(Json::String(s)) => s.to_string(),
        Some(other) => {
            problems.push(Problem::new(
                n_at.as_str(),
                "wrong_type",
                format!("{n_at} must be a string (got {})", other.kind()),
            ));
            String::new()
        }
    }
}

/// One `unknown_field` problem per member that is not an answer field (a submit).
fn unknown_answer_fields(at: &PathBuf, obj: &Object, problems: &mut Vec<Problem>) {
    for name in obj.keys() {
        if !["id", "verdict", "selected", "note"].contains(&name) {
            let f = at.field(name);
            problems.push(Problem::new(
                f.as_str(),
                "unknown_field",
                format!("{f} is not an answer field (id, verdict, selected, note)"),
            ));
        }
    }
}

/// A non-empty `selected`: a choice item's options, giving the answer's verdict and selection.
fn apply_selected(
    item: &ReviewItem,
    sel: &[String],
    s_at: &PathBuf,
    answer: &mut ItemAnswer,
    problems: &mut Vec<Problem>,
) {
    if item.kind != ItemType::Choice {
        problems.push(verdict_problem(
            item,
            s_at.as_str(),
            "",
            &VerdictError::NotForType,
        ));
    } else {
        match parse_selection(item, sel.iter().map(String::as_str)) {
            Ok(values) => {
                answer.verdict = values.join(",");
                answer.selected = values;
            }
            Err(e) => {
                let at = match &e {
                    VerdictError::UnknownOption(v) => sel
                        .iter()
                        .position(|s| s.trim() == v)
                        .map_or(s_at.clone(), |k| s_at.index(k)),
                    _ => s_at.clone(),
                };
                problems.push(verdict_problem(item, at.as_str(), "", &e));
            }
        }
    }
}

/// A non-blank `verdict`: parsed for the item; with a choice item's `selected` (`has_selected`)
/// it must agree with the selection.
fn apply_verdict(
    item: &ReviewItem,
    raw: &str,
    has_selected: bool,
    v_at: &PathBuf,
    answer: &mut ItemAnswer,
    problems: &mut Vec<Problem>,
) {
    match parse_verdict(item, raw) {
        Ok((verdict, selected)) => {
            if has_selected && item.kind == ItemType::Choice {
                if !answer.verdict.is_empty() && verdict != answer.verdict {
                    problems.push(Problem::new(
                        v_at.as_str(),
                        "invalid_verdict",
                        format!(
                            "{v_at} {} does not match selected for item \"{}\"; send one of them",
                            quote(raw),
                            item.id
                        ),
                    ));
                }
            } else {
                answer.verdict = verdict;
                answer.selected = selected;
            }
        }
        Err(e) => problems.push(verdict_problem(item, v_at.as_str(), raw, &e)),
    }
}

/// Validates a submit body (see the module documentation).
pub fn validate_submit(spec: &ReviewSpec, body: &Json) -> Result<Submission, Vec<Problem>> {
    let Some(root) = body.as_object() else {
        return Err(vec![Problem::new(
            "",
            "wrong_type",
            format!(
                "the submission must be an object {{answers: [...]}} (got {})",
                body.kind()
            ),
        )]);
    };
    let mut problems = Vec::new();
    let at = PathBuf::root().field("answers");
    let mut answers = Vec::new();
    match root.get_present("answers") {
        None => problems.push(Problem::new(
            "answers",
            "required",
            "answers is required: an array of {id, verdict?, selected?, note?} (send [] to leave every item blank)",
        )),
        Some(Json::Array(entries)) => {
            let mut seen = Seen::new(spec);
            for (k, e) in entries.iter().enumerate() {
                let e_at = at.index(k);
                let Some(obj) = e.as_object() else {
                    problems.push(Problem::new(
                        e_at.as_str(),
                        "wrong_type",
                        format!("{e_at} must be an object (got {})", e.kind()),
                    ));
                    continue;
                };
                if let Some(a) = check_entry(&e_at, obj, &mut seen, true, &mut problems) {
                    answers.push(a);
                }
            }
        }
        Some(other) => problems.push(Problem::new(
            "answers",
            "wrong_type",
            format!("answers must be an array (got {})", other.kind()),
        )),
    }
    let surface = match root.get_present("surface") {
        None => None,
        Some(Json::String(s)) => match Surface::parse_submit(s) {
            Some(x) => Some(x),
            None => {
                problems.push(Problem::new(
                    "surface",
                    "invalid_value",
                    format!(
                        "surface must be one of card, panel, terminal, client-form, app, cli (got {})",
                        quote(s)
                    ),
                ));
                None
            }
        },
        Some(other) => {
            problems.push(Problem::new(
                "surface",
                "wrong_type",
                format!("surface must be a string (got {})", other.kind()),
            ));
            None
        }
    };
    for name in root.keys() {
        if !["answers", "surface"].contains(&name) {
            problems.push(Problem::new(
                name,
                "unknown_field",
                format!("{name} is not a submit field (answers, surface)"),
            ));
        }
    }
    if problems.is_empty() {
        Ok(Submission { answers, surface })
    } else {
        Err(problems)
    }
}

/// Whether an answer fills its item (§4.2).
pub fn is_filled(item: &ReviewItem, a: Option<&ItemAnswer>) -> bool {
    match (item.kind, a) {
        (_, None) => false,
        (ItemType::Text, Some(a)) => !a.note.trim().is_empty(),
        (_, Some(a)) => !a.verdict.is_empty(),
    }
}

//! Spec validation (`survey.md` §4) and the normal form (§2.7).
//!
//! One pass over the raw JSON accumulates every problem in the order of §4.2; a second pass
//! builds the normal form only when the first found nothing. Rule ids from the spec (T1, Q3,
//! O17, K8, C5…) are noted beside the code that implements them.

use crate::hash::{FastIndexMap, FastSet};
use std::fmt;

use std::borrow::Cow;

use super::model::{Next, Question, QuickAnswer, QuickTemplate, SurveyOption, SurveySpec};
use super::path::{self, Graph, PathAnswer};
use super::repair;
use crate::json::{Json, Object};
use crate::problem::{PathBuf, Problem, exceeds, is_blank};

/// Limits of §2.6.
pub mod limits {
    pub const QUESTIONS_MAX: usize = 150;
    pub const OPTIONS_MIN: usize = 5;
    pub const OPTIONS_MAX: usize = 40;
    pub const QUICK_MAX: usize = 6;
    pub const TITLE: usize = 300;
    pub const INTRO: usize = 8000;
    pub const PROMPT: usize = 4000;
    pub const DETAIL: usize = 8000;
    pub const HEADER: usize = 200;
    pub const LABEL: usize = 200;
    pub const DESCRIPTION: usize = 400;
    pub const INSIGHT: usize = 1500;
    pub const DIAGRAM: usize = 1200;
    pub const SOURCES_MAX: usize = 8;
    pub const SOURCE: usize = 500;
    pub const JUSTIFICATION: usize = 500;
    pub const CUSTOM: usize = 8000;
    pub const ROSTER: usize = 15;
    pub const NEAREST_DISTANCE: usize = 2;
    /// Nearest-id search looks at this many ids at most. A spec can only get here with more
    /// than 150 questions, which T10 already rejects; the cap keeps a hostile spec with a
    /// million dangling references from costing a million squared comparisons.
    pub const NEAREST_SCAN: usize = 1000;
}

mod build;
mod graph;
mod locate;
mod quick;

use build::*;
use locate::*;
pub use locate::{nearest_id, roster};

const SURVEY_FIELDS: &[&str] = &["title", "intro", "entry", "questions", "quick"];
const QUESTION_FIELDS: &[&str] = &[
    "prompt",
    "header",
    "detail",
    "multiSelect",
    "allowCustom",
    "skippable",
    "options",
    "next",
];
const OPTION_FIELDS: &[&str] = &[
    "key",
    "label",
    "description",
    "insight",
    "diagram",
    "sources",
    "recommended",
    "next",
];
const TEMPLATE_FIELDS: &[&str] = &[
    "key",
    "label",
    "description",
    "insight",
    "diagram",
    "sources",
    "recommended",
    "answers",
];
const QUICK_ANSWER_FIELDS: &[&str] = &["selected", "custom"];

/// Validates a resolved `survey` value. Success gives the normal form; failure the ordered,
/// accumulated problem list.
pub fn validate(survey: &Json) -> Result<SurveySpec, Vec<Problem>> {
    let mut v = Validator::default();
    let Some(s) = survey.as_object() else {
        // T1
        return Err(vec![Problem::new(
            "",
            "survey_not_object",
            format!("survey must be an object — got {}", survey.kind()),
        )]);
    };
    v.check(s);
    if !v.errors.is_empty() {
        return Err(v.errors);
    }
    let spec = build(s);
    if let Some(p) = find_cycle(&spec) {
        return Err(vec![p]);
    }
    Ok(spec)
}

#[derive(Default)]
struct Validator {
    errors: Vec<Problem>,
}

impl Validator {
    fn push(&mut self, path: impl Into<String>, code: &'static str, message: impl Into<String>) {
        self.errors.push(Problem::new(path, code, message));
    }

    fn check(&mut self, s: &Object) {
        let root = PathBuf::root();
        self.near_miss(s, SURVEY_FIELDS, &"survey", &root);

        // T2–T4
        match s.get_present("title") {
            None => {}
            Some(Json::String(t)) => {
                if is_blank(t) {
                    self.push(
                        "title",
                        "title_blank",
                        "survey.title must be non-blank when present",
                    );
                }
                if exceeds(t, limits::TITLE) {
                    self.push(
                        "title",
                        "title_too_long",
                        "survey.title exceeds 300 characters",
                    );
                }
            }
            Some(_) => self.push("title", "title_type", "survey.title must be a string"),
        }
        // T5–T6
        match s.get_present("intro") {
            None => {}
            Some(Json::String(t)) if exceeds(t, limits::INTRO) => {
                self.push(
                    "intro",
                    "intro_too_long",
                    "survey.intro exceeds 8000 characters",
                );
            }
            Some(Json::String(_)) => {}
            Some(_) => self.push("intro", "intro_type", "survey.intro must be a string"),
        }
        // T7
        let entry = s.get_present("entry");
        let entry_str = entry.and_then(Json::as_str).filter(|e| !is_blank(e));
        if entry_str.is_none() {
            self.push(
                "entry",
                "entry_missing",
                "survey.entry must be a non-empty question id",
            );
        }
        // T8
        let Some(questions) = s.get("questions").and_then(Json::as_object) else {
            self.push(
                "questions",
                "questions_type",
                "survey.questions must be an object map of question id -> node",
            );
            return;
        };
        // T9, T10
        if questions.is_empty() {
            self.push(
                "questions",
                "questions_empty",
                "survey.questions must contain at least one question",
            );
        } else if questions.len() > limits::QUESTIONS_MAX {
            self.push(
                "questions",
                "questions_too_many",
                format!(
                    "survey.questions has {} questions (limit 150)",
                    questions.len()
                ),
            );
        }
        // T11: the entry must name a question. A blank or non-string entry never does (even
        // when a blank id exists, which Q1 rejects); a non-string entry shows as its JSON text.
        let entry_valid = entry_str.is_some_and(|e| questions.contains(e));
        if !entry_valid {
            let shown = match entry {
                Some(Json::String(e)) => e.to_string(),
                Some(other) => other.to_string(),
                None => "null".to_string(),
            };
            let mut msg = format!("survey.entry \"{shown}\" names no question");
            let mut nearest = None;
            if !questions.is_empty() {
                nearest = nearest_id(&shown, questions.keys());
                if let Some(n) = &nearest {
                    msg.push_str(&format!(" (did you mean \"{n}\"?)"));
                }
                msg.push_str(&format!(". Defined ids: {}.", roster(questions.keys())));
            }
            let mut p = Problem::new("entry", "entry_unknown", msg);
            p.nearest = nearest;
            self.errors.push(p);
        }

        // §4.4–4.5, in id order.
        let mut info: FastIndexMap<&str, QInfo<'_>> =
            FastIndexMap::with_capacity_and_hasher(questions.len(), Default::default());
        for (id, node) in questions.iter() {
            info.insert(id, self.check_question(id, node));
        }

        // §4.6–4.7
        if let Some(quick) = s.get_present("quick") {
            let entry = entry_valid.then(|| entry_str.unwrap_or_default());
            self.check_quick(quick, questions, &info, entry);
        }

        // §4.8
        self.check_references(questions, &info);
    }

    /// §4.10: an unknown member that equals a known one after lower-casing and removing `_`
    /// and `-`.
    fn near_miss(
        &mut self,
        o: &Object,
        known: &[&str],
        where_msg: &dyn fmt::Display,
        where_path: &dyn At,
    ) {
        for name in o.keys() {
            if known.contains(&name) {
                continue;
            }
            let folded = fold(name);
            if let Some(k) = known.iter().find(|k| fold(k) == folded) {
                self.push(
                    where_path.id(name),
                    "field_near_miss",
                    format!("{where_msg}.{name} is not a field — did you mean \"{k}\"?"),
                );
            }
        }
    }

    /// §4.4 for one question; returns what later stages need to know about it.
    fn check_question<'a>(&mut self, id: &str, node: &'a Json<'a>) -> QInfo<'a> {
        let wp = PathBuf::root().field("questions").id(id);
        // Q1
        if is_blank(id) {
            self.push(
                wp,
                "question_id_blank",
                "question ids must be non-empty strings",
            );
            return QInfo::skipped();
        }
        // Q2
        let Some(q) = node.as_object() else {
            self.push(
                wp,
                "question_type",
                format!("questions.{id} must be an object"),
            );
            return QInfo::skipped();
        };
        let wm = format!("questions.{id}");
        self.near_miss(q, QUESTION_FIELDS, &wm, &wp);

        // Q3–Q4
        match q.get_present("prompt") {
            Some(Json::String(p)) if !is_blank(p) => {
                if exceeds(p, limits::PROMPT) {
                    self.push(
                        wp.field("prompt"),
                        "prompt_too_long",
                        format!("{wm}.prompt exceeds 4000 characters"),
                    );
                }
            }
            _ => self.push(
                wp.field("prompt"),
                "prompt_missing",
                format!("{wm}.prompt must be a non-empty string"),
            ),
        }
        // Q5–Q8
        self.text_field(
            q,
            "header",
            limits::HEADER,
            &wm,
            &wp,
            "header_type",
            "header_too_long",
            "",
            "",
        );
        self.text_field(
            q,
            "detail",
            limits::DETAIL,
            &wm,
            &wp,
            "detail_type",
            "detail_too_long",
            " (markdown)",
            "",
        );
        // Q9
        let mut flags = [None; 3];
        for (slot, field) in flags
            .iter_mut()
            .zip(["multiSelect", "allowCustom", "skippable"])
        {
            match q.get_present(field) {
                None => {}
                Some(Json::Bool(b)) => *slot = Some(*b),
                Some(_) => self.push(
                    wp.field(field),
                    "flag_type",
                    format!("{wm}.{field} must be a boolean"),
                ),
            }
        }
        let [multi, allow_custom, skippable] = flags;
        // Q10–Q11
        let next_msg =
            format!("{wm}.next must be a question id, an id list, or null (= no follow-up)");
        self.next_type(q.get("next"), &wp, &next_msg);
        // Q12–Q15
        let mut keys = Vec::new();
        let options = q.get_present("options");
        match options {
            None => {}
            Some(Json::Array(opts)) => {
                let n = opts.len();
                if n > limits::OPTIONS_MAX {
                    self.push(
                        wp.field("options"),
                        "options_too_many",
                        format!("{wm} has {n} options (limit 40)"),
                    );
                } else if n < limits::OPTIONS_MIN {
                    self.push(
                        wp.field("options"),
                        "options_too_few",
                        format!(
                            "{wm} has {n} options — minimum 5 (keys a-e, plus the free-text row, which is separate and not counted). If this question cannot carry five genuinely distinct stances, make it free-text (omit options) or fold it into another question — never pad with filler options."
                        ),
                    );
                }
                let mut seen: FastSet<&str> = FastSet::with_capacity_and_hasher(
                    n.min(limits::OPTIONS_MAX),
                    Default::default(),
                );
                for (i, opt) in opts.iter().enumerate() {
                    if let Some(k) = self.check_option(id, &wm, &wp, i, opt, &mut seen) {
                        keys.push(k);
                    }
                }
            }
            Some(_) => {
                self.push(
                    wp.field("options"),
                    "options_type",
                    format!("{wm}.options must be an array"),
                );
            }
        }
        // Q16
        if options.is_none() && allow_custom == Some(false) && skippable == Some(false) {
            self.push(
                wp,
                "question_dead_end",
                format!(
                    "{wm} can be neither answered nor skipped — it has no options, allowCustom is false and skippable is false"
                ),
            );
        }
        QInfo {
            checked: true,
            multi: multi.unwrap_or(false),
            allow_custom: allow_custom.unwrap_or(true),
            skippable: skippable.unwrap_or(true),
            keys,
        }
    }

    /// A string field with a type check and a length limit (Q5–Q8, O5–O10).
    #[allow(clippy::too_many_arguments)]
    fn text_field(
        &mut self,
        o: &Object,
        field: &str,
        limit: usize,
        wm: &dyn fmt::Display,
        wp: &dyn At,
        type_code: &'static str,
        long_code: &'static str,
        type_hint: &str,
        long_hint: &str,
    ) {
        match o.get_present(field) {
            None => {}
            Some(Json::String(s)) if exceeds(s, limit) => {
                self.push(
                    wp.field(field),
                    long_code,
                    format!("{wm}.{field} exceeds {limit} characters{long_hint}"),
                );
            }
            Some(Json::String(_)) => {}
            Some(_) => self.push(
                wp.field(field),
                type_code,
                format!("{wm}.{field} must be a string{type_hint}"),
            ),
        }
    }

    /// Q10–Q11 / O16. Returns whether the value has a valid type.
    fn next_type(&mut self, next: Option<&Json>, wp: &dyn At, msg: &dyn fmt::Display) -> bool {
        match next {
            None | Some(Json::Null) | Some(Json::String(_)) => true,
            Some(Json::Array(items)) => {
                let mut ok = true;
                for (j, item) in items.iter().enumerate() {
                    if item.as_str().is_none() {
                        ok = false;
                        self.push(wp.field("next").index(j), "next_type", msg.to_string());
                    }
                }
                ok
            }
            Some(_) => {
                self.push(wp.field("next"), "next_type", msg.to_string());
                false
            }
        }
    }

    /// §4.5 for one option. Returns its key when the key is a non-blank string.
    fn check_option<'a>(
        &mut self,
        qid: &str,
        qwm: &str,
        qwp: &PathBuf,
        i: usize,
        opt: &'a Json<'a>,
        seen: &mut FastSet<&'a str>,
    ) -> Option<&'a str> {
        // Formatted only if a problem is reported.
        let wm = OptionAt { qwm, qwp, i };
        let wp = wm;
        // O1
        let Some(o) = opt.as_object() else {
            self.push(wp.path(), "option_type", format!("{wm} must be an object"));
            return None;
        };
        self.near_miss(o, OPTION_FIELDS, &wm, &wp);
        // O2
        let key = o
            .get_present("key")
            .and_then(Json::as_str)
            .filter(|k| !is_blank(k));
        if key.is_none() {
            self.push(
                wp.field("key"),
                "option_key_missing",
                format!("{wm}.key must be a non-empty string"),
            );
        }
        // O3–O15
        self.option_fields(o, &wm, &wp);
        // O16
        self.next_type(
            o.get("next"),
            &wp,
            &format_args!("{wm}.next must be a question id, an id list, or null (= branch ends)"),
        );
        // O17
        if let Some(k) = key
            && !seen.insert(k)
        {
            self.push(
                wp.field("key"),
                "option_key_duplicate",
                format!("questions.{qid} has duplicate option key \"{k}\""),
            );
        }
        key
    }

    /// O3–O15, shared by options and quick templates (K6).
    fn option_fields(&mut self, o: &Object, wm: &dyn fmt::Display, wp: &dyn At) {
        match o.get_present("label") {
            Some(Json::String(l)) if !is_blank(l) => {
                if exceeds(l, limits::LABEL) {
                    self.push(
                        wp.field("label"),
                        "label_too_long",
                        format!("{wm}.label exceeds 200 characters"),
                    );
                }
            }
            _ => self.push(
                wp.field("label"),
                "label_missing",
                format!("{wm}.label must be a non-empty string"),
            ),
        }
        self.text_field(
            o,
            "description",
            limits::DESCRIPTION,
            wm,
            wp,
            "description_type",
            "description_too_long",
            "",
            "",
        );
        self.text_field(
            o,
            "insight",
            limits::INSIGHT,
            wm,
            wp,
            "insight_type",
            "insight_too_long",
            " (markdown)",
            " (~6 lines)",
        );
        self.text_field(
            o,
            "diagram",
            limits::DIAGRAM,
            wm,
            wp,
            "diagram_type",
            "diagram_too_long",
            " (Mermaid source)",
            " (keep it small — no scrolling)",
        );
        match o.get_present("recommended") {
            None | Some(Json::Bool(_)) => {}
            Some(_) => self.push(
                wp.field("recommended"),
                "recommended_type",
                format!("{wm}.recommended must be a boolean"),
            ),
        }
        match o.get_present("sources") {
            None => {}
            Some(Json::Array(sources)) => {
                if sources.len() > limits::SOURCES_MAX {
                    self.push(
                        wp.field("sources"),
                        "sources_too_many",
                        format!("{wm} has {} sources (limit 8)", sources.len()),
                    );
                }
                for (j, s) in sources.iter().enumerate() {
                    match s.as_str() {
                        Some(s) if !is_blank(s) => {
                            if exceeds(s, limits::SOURCE) {
                                self.push(
                                    wp.field("sources").index(j),
                                    "source_too_long",
                                    format!("{wm} has a source over 500 characters"),
                                );
                            }
                        }
                        _ => self.push(
                            wp.field("sources").index(j),
                            "source_blank",
                            format!("{wm}.sources entries must be non-empty strings"),
                        ),
                    }
                }
            }
            Some(_) => self.push(
                wp.field("sources"),
                "sources_type",
                format!("{wm}.sources must be an array of strings"),
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_tie_goes_to_earliest_id() {
        assert_eq!(
            nearest_id("aa", ["ab", "ba"].into_iter()).as_deref(),
            Some("ab")
        );
        assert_eq!(
            nearest_id("q9", ["q1", "q2", "q3"].into_iter()).as_deref(),
            Some("q1")
        );
        assert_eq!(nearest_id("zzzz", ["q1"].into_iter()), None);
    }

    #[test]
    fn roster_caps_at_fifteen() {
        let ids: Vec<String> = (1..=20).map(|i| format!("q{i}")).collect();
        let r = roster(ids.iter().map(String::as_str));
        assert!(r.starts_with("q1, q2, "));
        assert!(r.ends_with("q15, …(+5 more)"));
    }
}

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

    /// §4.6 and §4.7.
    fn check_quick(
        &mut self,
        quick: &Json,
        questions: &Object,
        info: &FastIndexMap<&str, QInfo<'_>>,
        entry: Option<&str>,
    ) {
        // K1
        let Some(templates) = quick.as_array() else {
            self.push("quick", "quick_type", "survey.quick must be an array");
            return;
        };
        // K2
        if templates.len() > limits::QUICK_MAX {
            self.push(
                "quick",
                "quick_too_many",
                format!("survey.quick has {} entries (limit 6)", templates.len()),
            );
        }
        let graph = entry.map(|e| Graph::from_json(e, questions));
        let mut keys: FastSet<&str> = FastSet::default();
        for (t, tpl) in templates.iter().enumerate() {
            let wm = format!("quick[{t}]");
            let wp = PathBuf::root().field("quick").index(t);
            // K3
            let Some(o) = tpl.as_object() else {
                self.push(wp, "quick_item_type", format!("{wm} must be an object"));
                continue;
            };
            self.near_miss(o, TEMPLATE_FIELDS, &wm, &wp);
            let local_start = self.errors.len();
            // K4, K5
            match o.get_present("key").and_then(Json::as_str) {
                Some(k) if !is_blank(k) => {
                    if !keys.insert(k) {
                        self.push(
                            wp.field("key"),
                            "quick_key_duplicate",
                            format!("survey.quick has duplicate key \"{k}\""),
                        );
                    }
                }
                _ => self.push(
                    wp.field("key"),
                    "quick_key_missing",
                    format!("{wm}.key must be a non-empty string"),
                ),
            }
            // K6
            self.option_fields(o, &wm, &wp);
            // K7
            let Some(answers) = o.get_present("answers").and_then(Json::as_object) else {
                self.push(
                    wp.field("answers"),
                    "quick_answers_type",
                    format!("{wm}.answers must be an object map of question id -> answer"),
                );
                continue;
            };
            let parsed = self.check_quick_answers(&wm, &wp, answers, info);
            // A near-miss (§4.10) is not one of K3–K16: it leaves the template locally valid.
            let locally_valid = self.errors.len() == local_start
                || self.errors[local_start..]
                    .iter()
                    .all(|p| p.code == "field_near_miss");
            if let Some(graph) = &graph {
                self.check_coverage(t, &wm, &wp, answers, &parsed, graph, info, locally_valid);
            }
        }
    }

    /// K8–K16 for one template's answers. Returns the answer map the path walk uses.
    fn check_quick_answers<'a>(
        &mut self,
        wm: &str,
        wp: &PathBuf,
        answers: &'a Object<'a>,
        info: &FastIndexMap<&str, QInfo<'_>>,
    ) -> FastIndexMap<&'a str, PathAnswer> {
        let mut walk = FastIndexMap::default();
        for (a, ans) in answers.iter() {
            // Formatted only if a problem is reported.
            let awm = AnswerAt { wm, wp, a };
            let awp = awm;
            // K8
            let Some(qi) = info.get(a) else {
                self.push(
                    awp.path(),
                    "quick_answer_unknown_question",
                    format!("{awm} names no question"),
                );
                continue;
            };
            // K9
            let Some(ao) = ans.as_object() else {
                self.push(
                    awp.path(),
                    "quick_answer_type",
                    format!("{awm} must be an object"),
                );
                continue;
            };
            self.near_miss(ao, QUICK_ANSWER_FIELDS, &awm, &awp);
            // K10
            let mut selected: Vec<&str> = Vec::new();
            match ao.get_present("selected") {
                None => {}
                Some(Json::Array(items)) if items.iter().all(|i| i.as_str().is_some()) => {
                    selected = items.iter().filter_map(Json::as_str).collect();
                }
                Some(_) => self.push(
                    awp.field("selected"),
                    "quick_selected_type",
                    format!("{awm}.selected must be an array of option keys"),
                ),
            }
            // K11
            let mut firsts: FastSet<&str> = FastSet::default();
            let mut first_idx = Vec::new();
            for (j, k) in selected.iter().enumerate() {
                if firsts.insert(k) {
                    first_idx.push(j);
                } else {
                    self.push(
                        awp.field("selected").index(j),
                        "quick_selected_duplicate",
                        format!("{wm}.answers.{a} repeats option key \"{k}\""),
                    );
                }
            }
            // K12
            for j in first_idx {
                let k = selected[j];
                if !qi.keys.contains(&k) {
                    self.push(
                        awp.field("selected").index(j),
                        "quick_selected_unknown_key",
                        format!("{awm}.selected key \"{k}\" is not an option of \"{a}\""),
                    );
                }
            }
            // K13
            let mut custom = None;
            match ao.get_present("custom") {
                None => {}
                Some(Json::String(c)) => custom = Some(c.as_ref()),
                Some(_) => self.push(
                    awp.field("custom"),
                    "quick_custom_type",
                    format!("{awm}.custom must be a string"),
                ),
            }
            let has_text = custom.is_some_and(|c| !is_blank(c));
            if qi.checked && !qi.multi {
                // K14
                if selected.len() > 1 {
                    self.push(
                        awp.path(),
                        "quick_single_select_multiple",
                        format!(
                            "{awm} selects {} options on single-select question \"{a}\" — at most one",
                            selected.len()
                        ),
                    );
                }
                // K15
                if !selected.is_empty() && has_text {
                    self.push(
                        awp.path(),
                        "quick_single_select_mixed",
                        format!(
                            "{awm} combines options with custom text on single-select question \"{a}\" — use one or the other"
                        ),
                    );
                }
            }
            // K16
            if has_text && qi.checked && !qi.allow_custom {
                self.push(
                    awp.field("custom"),
                    "quick_custom_not_allowed",
                    format!(
                        "{awm}.custom is not allowed — question \"{a}\" has allowCustom: false"
                    ),
                );
            }
            walk.insert(
                a,
                PathAnswer {
                    selected: selected.iter().map(|s| s.to_string()).collect(),
                    custom: custom.map(str::to_string),
                    skipped: false,
                },
            );
        }
        walk
    }

    /// §4.7: coverage (C1–C4, locally valid templates only) and reachability (C5).
    #[allow(clippy::too_many_arguments)]
    fn check_coverage(
        &mut self,
        t: usize,
        wm: &str,
        wp: &PathBuf,
        answers: &Object,
        walk: &FastIndexMap<&str, PathAnswer>,
        graph: &Graph,
        info: &FastIndexMap<&str, QInfo<'_>>,
        locally_valid: bool,
    ) {
        let p = path::compute(graph, walk);
        let awp = wp.field("answers");
        let substantive = |a: &PathAnswer| {
            !a.selected.is_empty() || a.custom.as_deref().is_some_and(|c| !is_blank(c))
        };
        if locally_valid {
            if !walk.values().any(substantive) {
                // C1
                self.push(
                    awp.clone(),
                    "quick_hollow",
                    format!(
                        "{wm} carries no answers — every entry is empty. Give each question it answers its option keys (or custom text)"
                    ),
                );
            } else {
                // C2, C3
                for (pos, q) in p.iter().enumerate() {
                    if walk.contains_key(q) {
                        continue;
                    }
                    if pos == 0 {
                        self.push(
                            awp.clone(),
                            "quick_entry_unanswered",
                            format!(
                                "{wm} does not answer \"{q}\", the entry question — without it the template's branch stops at \"{q}\". Add \"{q}\" with the option keys that start the branch"
                            ),
                        );
                    } else {
                        self.push(
                            awp.clone(),
                            "quick_uncovered",
                            format!(
                                "{wm} does not answer \"{q}\", which its implied branch reaches — a quick template must cover every question it reaches"
                            ),
                        );
                    }
                }
                // C4
                for q in &p {
                    let (Some(a), Some(qi)) = (walk.get(q), info.get(q)) else {
                        continue;
                    };
                    if !substantive(a) && !qi.skippable {
                        self.push(
                            awp.id(q),
                            "quick_not_skippable",
                            format!(
                                "{wm}.answers.{q} leaves \"{q}\" empty, but that question is not skippable — select an option or give custom text"
                            ),
                        );
                    }
                }
            }
        }
        // C5
        let on_path: FastSet<&str> = p.iter().copied().collect();
        let unreachable: Vec<&str> = answers.keys().filter(|a| !on_path.contains(a)).collect();
        if !unreachable.is_empty() {
            self.push(
                awp,
                "quick_unreachable",
                format!(
                    "quick[{t}].answers lists questions this template's own selections never reach — {}. Its branch reaches only: {}. Remove those answers, or change the selected keys so the branch passes through them.",
                    unreachable.join(", "),
                    p.join(", ")
                ),
            );
        }
    }

    /// §4.8: every normalized `next` id names a question.
    fn check_references(&mut self, questions: &Object, info: &FastIndexMap<&str, QInfo<'_>>) {
        let ids: Vec<&str> = questions.keys().collect();
        let mut roster_text: Option<String> = None;
        for (id, node) in questions.iter() {
            if !info.get(id).is_some_and(|i| i.checked) {
                continue;
            }
            let Some(q) = node.as_object() else { continue };
            let qwp = PathBuf::root().field("questions").id(id);
            let qwm = format!("questions.{id}");
            if let Some(next) = q.get("next") {
                self.dangling(next, &qwm, &qwp, info, &ids, &mut roster_text);
            }
            for (i, opt) in q
                .get_present("options")
                .and_then(Json::as_array)
                .unwrap_or(&[])
                .iter()
                .enumerate()
            {
                // Only a non-null `next` of a valid type (O16): a list with a non-string
                // entry is reported as `next_type` alone.
                let Some(next) = opt.as_object().and_then(|o| o.get_present("next")) else {
                    continue;
                };
                if next
                    .as_array()
                    .is_some_and(|items| items.iter().any(|i| i.as_str().is_none()))
                {
                    continue;
                }
                // Formatted only if a reference dangles.
                let wm = OptionAt {
                    qwm: &qwm,
                    qwp: &qwp,
                    i,
                };
                self.dangling(next, &wm, &wm, info, &ids, &mut roster_text);
            }
        }
    }

    fn dangling(
        &mut self,
        next: &Json,
        wm: &dyn fmt::Display,
        wp: &dyn At,
        // Every question id (a hashed lookup; `questions` itself is searched linearly).
        known: &FastIndexMap<&str, QInfo<'_>>,
        ids: &[&str],
        roster_text: &mut Option<String>,
    ) {
        // (index in a `next` list, id); the path is built only for a dangling reference.
        let refs: Vec<(Option<usize>, &str)> = match next {
            Json::String(s) => vec![(None, s.as_ref())],
            Json::Array(items) => items
                .iter()
                .enumerate()
                .filter_map(|(j, r)| r.as_str().map(|s| (Some(j), s)))
                .collect(),
            _ => return,
        };
        for (j, r) in refs {
            if r.is_empty() || known.contains_key(r) {
                continue;
            }
            let path = match j {
                None => wp.field("next"),
                Some(j) => wp.field("next").index(j),
            };
            let roster = roster_text.get_or_insert_with(|| roster(ids.iter().copied()));
            let nearest = nearest_id(r, ids.iter().copied());
            let hint = nearest
                .as_ref()
                .map(|n| format!(" (did you mean \"{n}\"?)"))
                .unwrap_or_default();
            let mut p = Problem::new(
                path,
                "next_unknown",
                format!(
                    "{wm} next \"{r}\" names no question{hint}. Defined ids: {roster}. Add the missing question to the map, or fix the reference."
                ),
            );
            p.nearest = nearest;
            self.errors.push(p);
        }
    }
}

/// A location that the shared checks extend only when they report a problem: a path, or one
/// formatted on demand, so that a valid spec formats no location at all.
trait At {
    fn path(&self) -> PathBuf;
    fn field(&self, name: &str) -> PathBuf {
        self.path().field(name)
    }
    fn id(&self, id: &str) -> PathBuf {
        self.path().id(id)
    }
}

impl At for PathBuf {
    fn path(&self) -> PathBuf {
        self.clone()
    }
    fn field(&self, name: &str) -> PathBuf {
        PathBuf::field(self, name)
    }
    fn id(&self, id: &str) -> PathBuf {
        PathBuf::id(self, id)
    }
}

/// Option `i` of a question: `‹qwm›.options[‹i›]` as message prefix and as path.
#[derive(Clone, Copy)]
struct OptionAt<'s> {
    qwm: &'s str,
    qwp: &'s PathBuf,
    i: usize,
}

impl fmt::Display for OptionAt<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.options[{}]", self.qwm, self.i)
    }
}

impl At for OptionAt<'_> {
    fn path(&self) -> PathBuf {
        self.qwp.field("options").index(self.i)
    }
}

/// Answer `a` of a quick template: `‹wm›.answers.‹a›` as message prefix and as path.
#[derive(Clone, Copy)]
struct AnswerAt<'s> {
    wm: &'s str,
    wp: &'s PathBuf,
    a: &'s str,
}

impl fmt::Display for AnswerAt<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.answers.{}", self.wm, self.a)
    }
}

impl At for AnswerAt<'_> {
    fn path(&self) -> PathBuf {
        self.wp.field("answers").id(self.a)
    }
}

/// What the quick-template and reference stages need to know about a question.
struct QInfo<'a> {
    /// Not skipped by Q1 or Q2.
    checked: bool,
    multi: bool,
    allow_custom: bool,
    skippable: bool,
    /// Option keys that are non-blank strings.
    keys: Vec<&'a str>,
}

impl QInfo<'_> {
    fn skipped() -> Self {
        QInfo {
            checked: false,
            multi: false,
            allow_custom: true,
            skippable: true,
            keys: Vec::new(),
        }
    }
}

/// §4.10's comparison form: lower-cased, without `_` and `-`.
fn fold(name: &str) -> String {
    name.chars()
        .filter(|c| *c != '_' && *c != '-')
        .flat_map(char::to_lowercase)
        .collect()
}

/// The roster of §4.8: the first 15 ids in id order, then `, …(+n more)`.
pub fn roster<'a>(ids: impl ExactSizeIterator<Item = &'a str>) -> String {
    let total = ids.len();
    let mut out = ids.take(limits::ROSTER).collect::<Vec<_>>().join(", ");
    if total > limits::ROSTER {
        out.push_str(&format!(", …(+{} more)", total - limits::ROSTER));
    }
    out
}

/// The nearest id of §4.8: Levenshtein over Unicode scalar values, at most 2, ties to the
/// earliest id in id order.
pub fn nearest_id<'a>(reference: &str, ids: impl Iterator<Item = &'a str>) -> Option<String> {
    let r: Vec<char> = reference.chars().collect();
    let mut best: Option<(usize, &str)> = None;
    for id in ids.take(limits::NEAREST_SCAN) {
        let c: Vec<char> = id.chars().collect();
        if c.len().abs_diff(r.len()) > limits::NEAREST_DISTANCE {
            continue;
        }
        let d = levenshtein(&r, &c);
        if d <= limits::NEAREST_DISTANCE && best.is_none_or(|(bd, _)| d < bd) {
            best = Some((d, id));
        }
    }
    best.map(|(_, id)| id.to_string())
}

fn levenshtein(a: &[char], b: &[char]) -> usize {
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    let mut cur = vec![0; b.len() + 1];
    for (i, ca) in a.iter().enumerate() {
        cur[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let cost = usize::from(ca != cb);
            cur[j + 1] = (prev[j] + cost).min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    prev[b.len()]
}

/// A borrowed string, which repair leaves as it is (checked in debug builds).
fn clean(t: &str) -> &str {
    debug_assert!(
        !t.contains(['\\', '\n', '\r']),
        "borrowed JSON string with an escape"
    );
    t
}

/// §2.7: the normal form of a survey that passed every rule of §4.1–§4.8.
fn build(s: &Object) -> SurveySpec {
    let text = |o: &Object, f: &str| o.get_present(f).and_then(Json::as_str).map(str::to_string);
    // A string borrowed from the JSON text had no escape sequence there, so it holds no
    // backslash and no line break (`json` module invariant): repair is the identity and is
    // skipped without scanning. Only strings that had escapes are repaired.
    let prose = |o: &Object, f: &str| match o.get_present(f)? {
        Json::String(Cow::Borrowed(t)) => Some(clean(t).to_string()),
        Json::String(Cow::Owned(t)) => Some(repair::block(t).into_owned()),
        _ => None,
    };
    let line = |o: &Object, f: &str| match o.get_present(f)? {
        Json::String(Cow::Borrowed(t)) => Some(clean(t).to_string()),
        Json::String(Cow::Owned(t)) => Some(repair::one_line(t).into_owned()),
        _ => None,
    };
    let flag = |o: &Object, f: &str| o.get_present(f).and_then(Json::as_bool);
    let strings = |o: &Object, f: &str| {
        o.get_present(f).and_then(Json::as_array).map(|a| {
            a.iter()
                .filter_map(Json::as_str)
                .map(str::to_string)
                .collect::<Vec<_>>()
        })
    };
    let next = |o: &Object| -> Option<Next> {
        match o.get("next")? {
            Json::Null => Some(Next::End),
            Json::String(s) => Some(Next::One(s.to_string())),
            Json::Array(a) => Some(Next::Many(
                a.iter()
                    .filter_map(Json::as_str)
                    .map(str::to_string)
                    .collect(),
            )),
            _ => None,
        }
    };
    let empty = Object::new();
    let questions = s
        .get("questions")
        .and_then(Json::as_object)
        .unwrap_or(&empty)
        .iter()
        .map(|(id, q)| {
            let q = q.as_object().unwrap_or(&empty);
            let options = q
                .get_present("options")
                .and_then(Json::as_array)
                .map(|opts| {
                    opts.iter()
                        .map(|o| {
                            let o = o.as_object().unwrap_or(&empty);
                            SurveyOption {
                                key: text(o, "key").unwrap_or_default(),
                                label: line(o, "label").unwrap_or_default(),
                                description: line(o, "description"),
                                insight: prose(o, "insight"),
                                diagram: text(o, "diagram"),
                                sources: strings(o, "sources"),
                                recommended: flag(o, "recommended"),
                                next: next(o),
                            }
                        })
                        .collect()
                });
            let question = Question {
                prompt: prose(q, "prompt").unwrap_or_default(),
                header: line(q, "header"),
                detail: prose(q, "detail"),
                multi_select: flag(q, "multiSelect"),
                allow_custom: flag(q, "allowCustom"),
                skippable: flag(q, "skippable"),
                options,
                next: next(q),
            };
            (id.to_string(), question)
        })
        .collect();
    let quick = s.get_present("quick").and_then(Json::as_array).map(|ts| {
        ts.iter()
            .map(|t| {
                let t = t.as_object().unwrap_or(&empty);
                let answers = t
                    .get_present("answers")
                    .and_then(Json::as_object)
                    .unwrap_or(&empty)
                    .iter()
                    .map(|(a, v)| {
                        let v = v.as_object().unwrap_or(&empty);
                        let answer = QuickAnswer {
                            selected: strings(v, "selected"),
                            custom: text(v, "custom"),
                        };
                        (a.to_string(), answer)
                    })
                    .collect();
                QuickTemplate {
                    key: text(t, "key").unwrap_or_default(),
                    label: line(t, "label").unwrap_or_default(),
                    description: line(t, "description"),
                    insight: prose(t, "insight"),
                    diagram: text(t, "diagram"),
                    sources: strings(t, "sources"),
                    recommended: flag(t, "recommended"),
                    answers,
                }
            })
            .collect()
    });
    SurveySpec {
        title: text(s, "title"),
        intro: prose(s, "intro"),
        entry: text(s, "entry").unwrap_or_default(),
        questions,
        quick,
    }
}

/// §4.9: white/gray/black depth-first search over every question in id order.
fn find_cycle(spec: &SurveySpec) -> Option<Problem> {
    #[derive(Clone, Copy, PartialEq)]
    enum Colour {
        White,
        Gray,
        Black,
    }
    let ids: Vec<&str> = spec.questions.keys().map(String::as_str).collect();
    let index = |id: &str| spec.questions.get_index_of(id);
    // Ordered, de-duplicated adjacency: question-level targets, then option targets.
    let adjacency: Vec<Vec<usize>> = spec
        .questions
        .values()
        .map(|q| {
            let mut out: Vec<usize> = Vec::new();
            let own = q.next.iter().flat_map(Next::targets);
            let opts = q
                .options()
                .iter()
                .filter(|o| o.next.as_ref().is_some_and(|n| *n != Next::End))
                .flat_map(|o| o.next.iter().flat_map(Next::targets));
            for t in own.chain(opts) {
                if let Some(i) = index(t)
                    && !out.contains(&i)
                {
                    out.push(i);
                }
            }
            out
        })
        .collect();
    let mut colour = vec![Colour::White; ids.len()];
    for start in 0..ids.len() {
        if colour[start] != Colour::White {
            continue;
        }
        // Explicit stack of (node, next adjacency position).
        let mut stack: Vec<(usize, usize)> = vec![(start, 0)];
        colour[start] = Colour::Gray;
        while let Some(&mut (u, ref mut pos)) = stack.last_mut() {
            if let Some(&v) = adjacency[u].get(*pos) {
                *pos += 1;
                match colour[v] {
                    Colour::White => {
                        colour[v] = Colour::Gray;
                        stack.push((v, 0));
                    }
                    Colour::Gray => return Some(cycle_problem(spec, &ids, &stack, u, v)),
                    Colour::Black => {}
                }
            } else {
                colour[u] = Colour::Black;
                stack.pop();
            }
        }
    }
    None
}

fn cycle_problem(
    spec: &SurveySpec,
    ids: &[&str],
    stack: &[(usize, usize)],
    u: usize,
    v: usize,
) -> Problem {
    let from = ids[u];
    let target = ids[v];
    let q = &spec.questions[u];
    let base = PathBuf::root().field("questions").id(from);
    let path = if q
        .next
        .as_ref()
        .is_some_and(|n| n.targets().any(|t| t == target))
    {
        base.field("next")
    } else {
        let i = q
            .options()
            .iter()
            .position(|o| {
                o.next
                    .as_ref()
                    .is_some_and(|n| n.targets().any(|t| t == target))
            })
            .unwrap_or(0);
        base.field("options").index(i).field("next")
    };
    let start = stack.iter().position(|(n, _)| *n == v).unwrap_or(0);
    let mut cycle: Vec<String> = stack[start..]
        .iter()
        .map(|(n, _)| ids[*n].to_string())
        .collect();
    cycle.push(target.to_string());
    let mut p = Problem::new(
        path,
        "cycle",
        "survey graph contains a cycle (a question can follow itself through option branches)",
    );
    p.cycle = Some(cycle);
    p
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

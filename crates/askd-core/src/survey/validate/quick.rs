//! The `quick` templates and their answers (`survey.md` §4, rules K…).

use super::*;

impl Validator {
    /// §4.6 and §4.7.
    pub(super) fn check_quick(
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
    pub(super) fn check_quick_answers<'a>(
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
}

//! The question graph: coverage of every question from the entry, references that name
//! no question, and cycles (`survey.md` §4, rules C…).

use super::*;

impl Validator {
    /// §4.7: coverage (C1–C4, locally valid templates only) and reachability (C5).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn check_coverage(
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
    pub(super) fn check_references(
        &mut self,
        questions: &Object,
        info: &FastIndexMap<&str, QInfo<'_>>,
    ) {
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

    pub(super) fn dangling(
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

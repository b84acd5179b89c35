//! The answers to flat questions (the rules in the [module documentation](super)) and the
//! `answered` result.

use super::*;

/// Validates a submission `{"answers": [{"id", "selected": [labels], "custom"?}]}` against a
/// normal-form spec. Paths are relative to the body (`answers[2].selected[0]`).
///
/// Codes, in rule order per entry: `answers_type` (stop), `answer_type`,
/// `answer_unknown_question`, `answer_duplicate_question`, `selected_type`,
/// `selected_duplicate`, `selected_unknown_label` (one per label), `custom_type`,
/// `custom_too_long`, `single_select_multiple`, `single_select_mixed`; then, when the entries are
/// clean, `no_substance`.
pub fn validate_answers(
    spec: &QuestionsSpec,
    body: &Json,
) -> Result<QuestionsAnswers, Vec<Problem>> {
    let at = PathBuf::root().field("answers");
    let entries = match body.as_object().map(|o| o.get("answers")) {
        Some(Some(Json::Array(entries))) => entries,
        Some(got) => {
            return Err(vec![Problem::new(
                at.as_str(),
                "answers_type",
                format!(
                    "answers must be an array of {{\"id\", \"selected\": [labels], \
                     \"custom\"?}} entries, got {}",
                    got.map_or("nothing", Json::kind)
                ),
            )]);
        }
        None => {
            return Err(vec![Problem::new(
                at.as_str(),
                "answers_type",
                format!(
                    "answers must be an array inside an object body {{\"answers\": [...]}}, \
                     got a body that is {}",
                    body.kind()
                ),
            )]);
        }
    };

    let mut problems = Vec::new();
    let mut clean = Vec::new();
    let mut seen: Vec<&str> = Vec::new();
    for (i, entry) in entries.iter().enumerate() {
        let e_at = at.index(i);
        let Some(obj) = entry.as_object() else {
            problems.push(Problem::new(
                e_at.as_str(),
                "answer_type",
                format!(
                    "{e_at} must be an object {{\"id\", \"selected\", \"custom\"?}}, got {}",
                    entry.kind()
                ),
            ));
            continue;
        };
        if let Some(a) = check_entry(spec, &e_at, obj, &mut seen, &mut problems) {
            clean.push(a);
        }
    }

    if problems.is_empty() && !clean.iter().any(QuestionsAnswer::is_substantive) {
        problems.push(Problem::new(
            at.as_str(),
            "no_substance",
            "answers carries no selections — nothing was picked or written. Pick an option or \
             type an answer for at least one question and submit again, or dismiss the ask to \
             cancel it.",
        ));
    }
    if problems.is_empty() {
        Ok(QuestionsAnswers { answers: clean })
    } else {
        Err(problems)
    }
}

fn check_entry<'s>(
    spec: &QuestionsSpec,
    e_at: &PathBuf,
    obj: &'s Object,
    seen: &mut Vec<&'s str>,
    problems: &mut Vec<Problem>,
) -> Option<QuestionsAnswer> {
    // A3: id names a question.
    let id_at = e_at.field("id");
    let question = entry_question(spec, &id_at, obj, problems)?;
    let id = question.id.as_str();

    // A4: one entry per question.
    if seen.contains(&id) {
        problems.push(Problem::new(
            id_at.as_str(),
            "answer_duplicate_question",
            format!(
                "{id_at} repeats question {} — send one entry per question",
                quote(id)
            ),
        ));
        return None;
    }
    // `seen` borrows from the body; the id string there equals `id`.
    if let Some(Json::String(s)) = obj.get("id") {
        seen.push(s.as_ref());
    }

    // A5: selected is an array of strings; A6: no label twice.
    let s_at = e_at.field("selected");
    let labels = entry_labels(id, &s_at, obj, problems)?;

    // A7: every label is an option of the question.
    let mut entry_ok = labels_are_options(question, &s_at, &labels, problems);

    // A8, A9: custom is a string of at most 8000 characters after trimming.
    let c_at = e_at.field("custom");
    let custom = entry_custom(&c_at, obj, problems)?;

    // A11, A12: single-select takes one label, or custom text, not both.
    if !single_select_fits(question, e_at, &s_at, &labels, custom.is_some(), problems) {
        entry_ok = false;
    }

    entry_ok.then(|| QuestionsAnswer {
        id: id.to_owned(),
        selected: labels.iter().map(|s| (*s).to_owned()).collect(),
        custom,
    })
}

/// A3: the question the entry's `id` names.
fn entry_question<'q>(
    spec: &'q QuestionsSpec,
    id_at: &PathBuf,
    obj: &Object,
    problems: &mut Vec<Problem>,
) -> Option<&'q FlatQuestion> {
    match obj.get("id") {
        Some(Json::String(id)) => match spec.questions.iter().find(|q| q.id == id.as_ref()) {
            Some(q) => Some(q),
            None => {
                problems.push(Problem::new(
                    id_at.as_str(),
                    "answer_unknown_question",
                    format!(
                        "{id_at} {} names no question — the ids are {}",
                        quote(id),
                        roster(spec)
                    ),
                ));
                None
            }
        },
        got => {
            problems.push(Problem::new(
                id_at.as_str(),
                "answer_unknown_question",
                format!(
                    "{id_at} must be a question id string, got {} — the ids are {}",
                    got.map_or("nothing", Json::kind),
                    roster(spec)
                ),
            ));
            None
        }
    }
}

/// A5, A6: the entry's `selected`, an array of distinct label strings.
fn entry_labels<'s>(
    id: &str,
    s_at: &PathBuf,
    obj: &'s Object,
    problems: &mut Vec<Problem>,
) -> Option<Vec<&'s str>> {
    let labels: Vec<&str> = match obj.get("selected") {
        Some(Json::Array(items)) if items.iter().all(|v| v.as_str().is_some()) => {
            items.iter().filter_map(Json::as_str).collect()
        }
        got => {
            let got = match got {
                Some(Json::Array(_)) => "an array with a non-string entry",
                Some(v) => v.kind(),
                None => "nothing",
            };
            problems.push(Problem::new(
                s_at.as_str(),
                "selected_type",
                format!(
                    "{s_at} must be an array of option labels of {} (send [] for none), got {got}",
                    quote(id)
                ),
            ));
            return None;
        }
    };

    // A6: no label twice.
    for (j, label) in labels.iter().enumerate() {
        if labels[..j].contains(label) {
            problems.push(Problem::new(
                s_at.as_str(),
                "selected_duplicate",
                format!(
                    "{s_at} repeats label {} — list each option once",
                    quote(label)
                ),
            ));
            return None;
        }
    }

    Some(labels)
}

/// A7: whether every label is an option of the question (one problem per one that is not).
fn labels_are_options(
    question: &FlatQuestion,
    s_at: &PathBuf,
    labels: &[&str],
    problems: &mut Vec<Problem>,
) -> bool {
    let id = question.id.as_str();
    let mut entry_ok = true;
    for (j, label) in labels.iter().enumerate() {
        if !question.options.iter().any(|o| o.label == *label) {
            entry_ok = false;
            let hint = if question.is_free_text() {
                format!(
                    "question {} is free-text and has no options: send selected: [] and the text \
                     in custom",
                    quote(id)
                )
            } else {
                format!(
                    "send labels exactly as in the question {}: {}",
                    quote(id),
                    label_roster(question)
                )
            };
            problems.push(Problem::new(
                s_at.index(j).as_str(),
                "selected_unknown_label",
                format!(
                    "{} {} is not an option label — {hint}",
                    s_at.index(j),
                    quote(label)
                ),
            ));
        }
    }
    entry_ok
}

/// A8, A9: the entry's trimmed `custom` text (`Some(None)` when absent or blank; `None` after
/// a problem).
fn entry_custom(
    c_at: &PathBuf,
    obj: &Object,
    problems: &mut Vec<Problem>,
) -> Option<Option<String>> {
    match obj.get_present("custom") {
        None => Some(None),
        Some(Json::String(s)) => {
            let t = s.trim();
            if exceeds(t, MAX_CUSTOM) {
                problems.push(Problem::new(
                    c_at.as_str(),
                    "custom_too_long",
                    format!("{c_at} exceeds {MAX_CUSTOM} characters — shorten the text"),
                ));
                return None;
            }
            Some((!t.is_empty()).then(|| t.to_owned()))
        }
        Some(other) => {
            problems.push(Problem::new(
                c_at.as_str(),
                "custom_type",
                format!(
                    "{c_at} must be a string (the free text), got {} — or omit it",
                    other.kind()
                ),
            ));
            None
        }
    }
}

/// A11, A12: whether a single-select entry takes one label, or custom text, not both.
fn single_select_fits(
    question: &FlatQuestion,
    e_at: &PathBuf,
    s_at: &PathBuf,
    labels: &[&str],
    has_custom: bool,
    problems: &mut Vec<Problem>,
) -> bool {
    let id = question.id.as_str();
    if question.multi_select {
        return true;
    }
    if labels.len() > 1 {
        problems.push(Problem::new(
            s_at.as_str(),
            "single_select_multiple",
            format!(
                "{s_at} selects {} options on single-select question {} — select at most one",
                labels.len(),
                quote(id)
            ),
        ));
        false
    } else if !labels.is_empty() && has_custom {
        problems.push(Problem::new(
            e_at.as_str(),
            "single_select_mixed",
            format!(
                "{e_at} combines an option with custom text on single-select question {} — \
                     send either one label or the custom text",
                quote(id)
            ),
        ));
        false
    } else {
        true
    }
}

// ---------------------------------------------------------------------------------------------
// Result
// ---------------------------------------------------------------------------------------------

/// The `answered` result: `{outcome, ask_id, answers, skipped, handling}`.
///
/// `answers` lists, in question order, every question with a substantive answer
/// (`{id, selected, custom?}`, labels as sent); `skipped` lists, in question order, every other
/// question (no entry, or a hollow one). Entries for ids that are not in `spec` are ignored.
pub fn answered_result(spec: &QuestionsSpec, ask_id: &str, answers: &QuestionsAnswers) -> Value {
    let mut listed = Vec::new();
    let mut skipped = Vec::new();
    for q in &spec.questions {
        match answers
            .answers
            .iter()
            .find(|a| a.id == q.id && a.is_substantive())
        {
            Some(a) => {
                let mut entry = Map::new();
                entry.insert("id".into(), Value::String(a.id.clone()));
                entry.insert(
                    "selected".into(),
                    Value::Array(a.selected.iter().cloned().map(Value::String).collect()),
                );
                if let Some(c) = &a.custom {
                    entry.insert("custom".into(), Value::String(c.clone()));
                }
                listed.push(Value::Object(entry));
            }
            None => skipped.push(Value::String(q.id.clone())),
        }
    }
    let mut out = Map::new();
    out.insert(
        "outcome".into(),
        Value::from(crate::Outcome::Answered.as_str()),
    );
    out.insert("ask_id".into(), Value::from(ask_id));
    out.insert("answers".into(), Value::Array(listed));
    out.insert("skipped".into(), Value::Array(skipped));
    out.insert("handling".into(), Value::from(HANDLING));
    Value::Object(out)
}

// ---------------------------------------------------------------------------------------------
// Message helpers
// ---------------------------------------------------------------------------------------------

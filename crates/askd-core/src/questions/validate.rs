//! `ask_user_question` arguments into the normal form ([`QuestionsSpec`]): the rules chosen
//! where `platform.md` is silent are listed in the [module documentation](super).

use super::*;

/// Validates `ask_user_question` arguments and builds the normal form.
///
/// Codes: `args_not_object`, `questions_missing`, `questions_type`, `questions_empty`,
/// `questions_too_many`, `question_type`, `id_missing`, `id_too_long`, `id_duplicate`,
/// `question_missing`, `question_too_long`, `header_type`, `header_too_long`, `detail_type`,
/// `detail_too_long`, `options_type`, `options_too_few`, `options_too_many`, `option_type`,
/// `label_missing`, `label_too_long`, `label_duplicate`, `description_type`,
/// `description_too_long`, `multi_select_type`, `multi_select_conflict`, `timeout_s_type`,
/// `replaces_not_accepted`.
pub fn validate(args: &Json) -> Result<QuestionsSpec, Vec<Problem>> {
    let Some(root) = args.as_object() else {
        return Err(vec![Problem::new(
            "",
            "args_not_object",
            format!(
                "the ask_user_question arguments must be a JSON object, got {} — the payload was \
                 likely malformed or cut off. Re-send an object {{\"questions\": [{{\"id\", \
                 \"question\", \"options\"?}}]}}.",
                args.kind()
            ),
        )]);
    };
    let mut problems = Vec::new();
    let at = PathBuf::root().field("questions");
    let mut questions = Vec::new();

    match root.get_present("questions") {
        None => problems.push(Problem::new(
            at.as_str(),
            "questions_missing",
            "questions is missing — send \"questions\": an array of 1 to 4 question objects \
             {\"id\", \"question\", \"options\"?}",
        )),
        Some(Json::Array(items)) => {
            if items.is_empty() {
                problems.push(Problem::new(
                    at.as_str(),
                    "questions_empty",
                    "questions must contain at least one question",
                ));
            } else if items.len() > MAX_QUESTIONS {
                problems.push(Problem::new(
                    at.as_str(),
                    "questions_too_many",
                    format!(
                        "questions has {} questions (limit {MAX_QUESTIONS}) — ask the most \
                         important ones now and the rest after these answers, or use ask_survey \
                         for a longer interview",
                        items.len()
                    ),
                ));
            }
            let mut seen_ids: Vec<(&str, usize)> = Vec::new();
            for (i, item) in items.iter().enumerate() {
                if let Some(q) = check_question(&at.index(i), i, item, &mut seen_ids, &mut problems)
                {
                    questions.push(q);
                }
            }
        }
        Some(other) => problems.push(Problem::new(
            at.as_str(),
            "questions_type",
            format!(
                "questions must be an array of 1 to 4 question objects, got {}",
                other.kind()
            ),
        )),
    }

    if let Some(t) = root.get_present("timeout_s")
        && !is_whole_seconds(t)
    {
        problems.push(Problem::new(
            "timeout_s",
            "timeout_s_type",
            format!(
                "timeout_s must be a non-negative whole number of seconds, got {} — omit it to \
                 wait with the server's default budget",
                describe(t)
            ),
        ));
    }

    if root.get_present("replaces").is_some() {
        problems.push(Problem::new(
            "replaces",
            "replaces_not_accepted",
            "replaces is accepted by ask_survey only — drop it; to take back an earlier \
             ask_user_question, call withdraw_ask with its ask_id",
        ));
    }

    if problems.is_empty() {
        Ok(QuestionsSpec { questions })
    } else {
        Err(problems)
    }
}

pub(super) fn is_whole_seconds(v: &Json) -> bool {
    match v {
        Json::Number(n) => {
            n.as_u64().is_some()
                || n.as_f64()
                    .is_some_and(|f| f.is_finite() && f >= 0.0 && f.fract() == 0.0)
        }
        _ => false,
    }
}

/// Checks one question; returns its normal form when this question itself is clean.
fn check_question<'s>(
    at: &PathBuf,
    i: usize,
    item: &'s Json,
    seen_ids: &mut Vec<(&'s str, usize)>,
    problems: &mut Vec<Problem>,
) -> Option<FlatQuestion> {
    let Some(obj) = item.as_object() else {
        problems.push(Problem::new(
            at.as_str(),
            "question_type",
            format!(
                "{at} must be an object {{\"id\", \"question\", \"options\"?}}, got {}",
                item.kind()
            ),
        ));
        return None;
    };
    let before = problems.len();

    // id
    let id_at = at.field("id");
    let id = required_text(
        obj,
        "id",
        &id_at,
        "id_missing",
        "a short unique id such as \"scope\"",
        problems,
    );
    if let Some(id) = id {
        if exceeds(id, MAX_ID) {
            problems.push(Problem::new(
                id_at.as_str(),
                "id_too_long",
                format!("{id_at} exceeds {MAX_ID} characters — use a short id such as \"scope\""),
            ));
        }
        if let Some((_, first)) = seen_ids.iter().find(|(seen, _)| *seen == id) {
            problems.push(Problem::new(
                id_at.as_str(),
                "id_duplicate",
                format!(
                    "{id_at} {} repeats questions[{first}].id — ids must be unique within the call",
                    quote(id)
                ),
            ));
        } else {
            seen_ids.push((id, i));
        }
    }

    // question
    let q_at = at.field("question");
    let question = required_text(
        obj,
        "question",
        &q_at,
        "question_missing",
        "the question to ask (markdown)",
        problems,
    );
    if let Some(text) = question
        && exceeds(text, MAX_QUESTION)
    {
        problems.push(Problem::new(
            q_at.as_str(),
            "question_too_long",
            format!(
                "{q_at} exceeds {MAX_QUESTION} characters — keep the question short and move \
                 context into detail"
            ),
        ));
    }

    // header
    let header = optional_text(
        obj,
        "header",
        at,
        MAX_HEADER,
        "header_type",
        "header_too_long",
        "a short one-line chip",
        problems,
    )
    .map(breaks_to_spaces);

    // detail
    let detail = optional_text(
        obj,
        "detail",
        at,
        MAX_DETAIL,
        "detail_type",
        "detail_too_long",
        "markdown context",
        problems,
    )
    .map(str::to_owned);

    // options
    let options = check_options(at, obj, problems);

    // multi_select / multiSelect
    let multi_select = check_multi_select(at, obj, problems);

    if problems.len() > before {
        return None;
    }
    Some(FlatQuestion {
        id: id?.to_owned(),
        question: question?.to_owned(),
        header,
        detail,
        options,
        multi_select,
    })
}

/// A required non-blank string member; pushes `code` when it is anything else.
fn required_text<'s>(
    obj: &'s Object,
    name: &str,
    at: &PathBuf,
    code: &'static str,
    what: &str,
    problems: &mut Vec<Problem>,
) -> Option<&'s str> {
    let got = match obj.get(name) {
        Some(Json::String(s)) if !is_blank(s) => return Some(s),
        Some(Json::String(_)) => "a blank string",
        Some(other) => other.kind(),
        None => "nothing",
    };
    problems.push(Problem::new(
        at.as_str(),
        code,
        format!("{at} must be a non-empty string ({what}), got {got}"),
    ));
    None
}

/// An optional string member (`null` = absent, blank = absent in the normal form).
#[allow(clippy::too_many_arguments)]
fn optional_text<'s>(
    obj: &'s Object,
    name: &str,
    parent: &PathBuf,
    limit: usize,
    type_code: &'static str,
    long_code: &'static str,
    what: &str,
    problems: &mut Vec<Problem>,
) -> Option<&'s str> {
    let value = obj.get_present(name)?;
    let at = parent.field(name);
    let Some(s) = value.as_str() else {
        problems.push(Problem::new(
            at.as_str(),
            type_code,
            format!(
                "{at} must be a string ({what}), got {} — or omit it",
                value.kind()
            ),
        ));
        return None;
    };
    if exceeds(s, limit) {
        problems.push(Problem::new(
            at.as_str(),
            long_code,
            format!("{at} exceeds {limit} characters — shorten it"),
        ));
        return None;
    }
    (!is_blank(s)).then_some(s)
}

fn check_options(at: &PathBuf, obj: &Object, problems: &mut Vec<Problem>) -> Vec<FlatOption> {
    let opts_at = at.field("options");
    let items = match obj.get_present("options") {
        None => return Vec::new(),
        Some(Json::Array(items)) => items,
        Some(other) => {
            problems.push(Problem::new(
                opts_at.as_str(),
                "options_type",
                format!(
                    "{opts_at} must be an array of 2 to 12 objects {{\"label\", \
                     \"description\"?}}, got {} — or omit it for a free-text question",
                    other.kind()
                ),
            ));
            return Vec::new();
        }
    };
    if items.is_empty() {
        return Vec::new();
    }
    if items.len() < MIN_OPTIONS {
        problems.push(Problem::new(
            opts_at.as_str(),
            "options_too_few",
            format!(
                "{opts_at} has {} option — give {MIN_OPTIONS} to {MAX_OPTIONS} options, or omit \
                 options (or send []) to make it a free-text question; a free-text row is always \
                 offered besides the options",
                items.len()
            ),
        ));
    } else if items.len() > MAX_OPTIONS {
        problems.push(Problem::new(
            opts_at.as_str(),
            "options_too_many",
            format!(
                "{opts_at} has {} options (limit {MAX_OPTIONS}) — keep the distinct choices, \
                 merge the rest, or use ask_survey",
                items.len()
            ),
        ));
    }
    let mut options = Vec::with_capacity(items.len().min(MAX_OPTIONS));
    // (shown label, index) of earlier options, for the uniqueness rule.
    let mut seen: Vec<(&str, usize)> = Vec::new();
    for (j, item) in items.iter().enumerate() {
        let o_at = opts_at.index(j);
        let Some(o) = item.as_object() else {
            problems.push(Problem::new(
                o_at.as_str(),
                "option_type",
                format!(
                    "{o_at} must be an object {{\"label\", \"description\"?}}, got {}",
                    item.kind()
                ),
            ));
            continue;
        };
        let l_at = o_at.field("label");
        let label = required_text(
            o,
            "label",
            &l_at,
            "label_missing",
            "the option's text",
            problems,
        );
        let mut label_ok = label.is_some();
        if let Some(label) = label {
            let (shown, _) = split_recommended(label);
            if exceeds(label, MAX_LABEL) {
                label_ok = false;
                problems.push(Problem::new(
                    l_at.as_str(),
                    "label_too_long",
                    format!(
                        "{l_at} exceeds {MAX_LABEL} characters — keep the label short and move \
                         the rest into description"
                    ),
                ));
            }
            if shown.is_empty() {
                label_ok = false;
                problems.push(Problem::new(
                    l_at.as_str(),
                    "label_missing",
                    format!(
                        "{l_at} must have text before its recommended marker, got {}",
                        quote(label)
                    ),
                ));
            } else if let Some((_, first)) = seen.iter().find(|(s, _)| *s == shown) {
                label_ok = false;
                problems.push(Problem::new(
                    l_at.as_str(),
                    "label_duplicate",
                    format!(
                        "{l_at} {} repeats {opts_at}[{first}].label — labels must be unique \
                         within a question (the recommended marker does not count)",
                        quote(label)
                    ),
                ));
            } else {
                seen.push((shown, j));
            }
        }
        let description = optional_text(
            o,
            "description",
            &o_at,
            MAX_DESCRIPTION,
            "description_type",
            "description_too_long",
            "one sentence",
            problems,
        );
        if label_ok && let Some(label) = label {
            options.push(FlatOption {
                label: label.to_owned(),
                description: description.map(str::to_owned),
            });
        }
    }
    options
}

fn check_multi_select(at: &PathBuf, obj: &Object, problems: &mut Vec<Problem>) -> bool {
    let mut flags = [None, None];
    for (slot, name) in flags.iter_mut().zip(["multi_select", "multiSelect"]) {
        let Some(v) = obj.get_present(name) else {
            continue;
        };
        match v.as_bool() {
            Some(b) => *slot = Some(b),
            None => {
                let f_at = at.field(name);
                problems.push(Problem::new(
                    f_at.as_str(),
                    "multi_select_type",
                    format!("{f_at} must be a boolean (true or false), got {}", v.kind()),
                ));
            }
        }
    }
    match flags {
        [Some(a), Some(b)] if a != b => {
            problems.push(Problem::new(
                at.as_str(),
                "multi_select_conflict",
                format!("{at} sets multi_select: {a} and multiSelect: {b} — send only one of them"),
            ));
            false
        }
        [Some(a), _] | [None, Some(a)] => a,
        [None, None] => false,
    }
}

// ---------------------------------------------------------------------------------------------
// Answer validation
// ---------------------------------------------------------------------------------------------

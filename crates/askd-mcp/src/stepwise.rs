//! The stepwise form style: choices first, text in a form that follows — for clients whose
//! form UI cannot be answered otherwise (Codex's TUI, `clients.md` §1: it shows fields in
//! name order, renders no array or number field, submits a form only from its last field,
//! and Enter does nothing on an empty text field, so a form whose last field is optional text
//! cannot be sent by choosing options).
//!
//! A stepwise form holds only single-choice fields, so every one of them is answered by
//! arrow keys, Enter or a digit, and the last Enter sends it:
//! - a single-choice question: its options, plus "Other — type it next" where custom text is
//!   allowed;
//! - a multi-select: one No/Yes field per option (default No), plus "Other" the same way;
//! - a scale: its numbers as choices;
//! - free text, a review's note, a drift's direction or note: a choice to write it next.
//!
//! When a choice asked for text, a second form follows with one required text field per
//! text asked for (Enter on a filled field moves on; the last one sends). [`combined`] turns
//! the two replies into the content of the one-form style ([`crate::elicit`]'s field names),
//! so the same code builds the page's submit body from either style and the daemon validates
//! both alike. Field names sort in the order the fields are shown (`q01` < `q01_01` <
//! `q01_other` < `q02`), since clients sort them by name.

use askd_core::Lang;
use askd_core::questions::QuestionsSpec;
use askd_core::review::model::{ItemType, ReviewSpec};
use askd_core::survey::model::{Question, SurveySpec};
use serde_json::{Map, Value, json};

use crate::elicit::{self, FormPlan};

/// How a client's form UI is answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Style {
    /// One form: choices, the "Other" text beside them, notes (Claude Code, the SDKs).
    #[default]
    Combined,
    /// Choices first, text in a form that follows (Codex).
    Stepwise,
}

impl Style {
    /// The style for a client, from its `clientInfo.name`: Codex (`codex-mcp-client`, and its
    /// TUI and `exec` alike) gets the stepwise forms.
    pub fn for_client(name: &str) -> Style {
        if name.to_ascii_lowercase().starts_with("codex") {
            Style::Stepwise
        } else {
            Style::Combined
        }
    }
}

/// Field values of a stepwise form.
const OTHER: &str = "other";
const WRITE: &str = "write";
const SKIP: &str = "skip";
const NONE: &str = "none";
const YES: &str = "yes";
const NO: &str = "no";

struct Words {
    other: &'static str,
    write_answer: &'static str,
    leave: &'static str,
    no_note: &'static str,
    add_note: &'static str,
    yes: &'static str,
    no: &'static str,
    skip_question: &'static str,
    other_toggle: &'static str,
    followup: &'static str,
    note: &'static str,
    your_answer: &'static str,
    direction: &'static str,
    direction_other: &'static str,
    agent_note: &'static str,
    note_title: &'static str,
}

fn words(lang: Lang) -> Words {
    if lang == Lang::Zh {
        Words {
            other: "其他——下一步填写",
            write_answer: "填写回答（下一步）",
            leave: "不回答",
            no_note: "不加备注",
            add_note: "加备注（下一步）",
            yes: "是",
            no: "否",
            skip_question: "跳过此题",
            other_toggle: "其他（下一步填写）",
            followup: "写下你选择填写的内容（每栏回车确认，最后一栏回车提交）：",
            note: "备注",
            your_answer: "你的回答。",
            direction: "另一个方向——下一步填写",
            direction_other: "你的方向",
            agent_note: "给智能体的备注（下一步）",
            note_title: "给智能体的备注",
        }
    } else {
        Words {
            other: "Other — type it next",
            write_answer: "Type my answer (next)",
            leave: "Leave it unanswered",
            no_note: "No note",
            add_note: "Add a note (next)",
            yes: "Yes",
            no: "No",
            skip_question: "Skip this question",
            other_toggle: "Other (type it next)",
            followup: "Type what you chose to write (Enter on each field; Enter on the last one sends):",
            note: "note",
            your_answer: "Your answer.",
            direction: "Another direction — type it next",
            direction_other: "Your direction",
            agent_note: "Add a note for the agent (next)",
            note_title: "Note for the agent",
        }
    }
}

fn choice(title: &str, description: &str, options: &[(String, String)]) -> Value {
    let one_of: Vec<Value> = options
        .iter()
        .map(|(v, t)| json!({"const": v, "title": t}))
        .collect();
    let mut f = json!({"type": "string", "title": title, "oneOf": one_of});
    if !description.is_empty() {
        f["description"] = json!(description);
    }
    f
}

fn toggle(title: &str, description: &str, w: &Words) -> Value {
    let mut f = choice(
        title,
        description,
        &[(NO.into(), w.no.into()), (YES.into(), w.yes.into())],
    );
    f["default"] = json!(NO);
    f
}

fn text_field(title: &str, description: &str) -> Value {
    let mut f = json!({"type": "string", "title": title, "minLength": 1});
    if !description.is_empty() {
        f["description"] = json!(description);
    }
    f
}

fn form(properties: Map<String, Value>, required: Vec<String>) -> Value {
    let mut schema = json!({"type": "object", "properties": properties});
    if !required.is_empty() {
        schema["required"] = json!(required);
    }
    schema
}

fn n(i: usize) -> String {
    format!("{:02}", i + 1)
}

fn text_of<'a>(content: &'a Value, key: &str) -> Option<&'a str> {
    content[key]
        .as_str()
        .map(str::trim)
        .filter(|t| !t.is_empty())
}

fn is(content: &Value, key: &str, value: &str) -> bool {
    content[key].as_str() == Some(value)
}

/// The first form of a plan in the stepwise style (`None` for a survey, see
/// [`survey_first`], and for [`FormPlan::Url`]).
pub fn first(
    plan: &FormPlan,
    lang: Lang,
    url: &str,
    problem: Option<&str>,
) -> Option<(String, Value)> {
    let (message, combined) = elicit::form(plan, lang, url, problem)?;
    let w = words(lang);
    let schema = match plan {
        FormPlan::Questions(spec) => questions_first(spec, &w),
        FormPlan::Review(spec) => review_first(spec, &w),
        FormPlan::Drift(_) => drift_first(&combined, &w),
        FormPlan::Survey(_) | FormPlan::Url => return None,
    };
    Some((message, schema))
}

fn questions_first(spec: &QuestionsSpec, w: &Words) -> Value {
    let mut p = Map::new();
    for (i, q) in spec.questions.iter().enumerate() {
        let key = format!("q{}", n(i));
        let title = q.header.clone().unwrap_or_else(|| q.question.clone());
        if q.is_free_text() {
            let opts = [
                (WRITE.into(), w.write_answer.into()),
                (SKIP.into(), w.leave.into()),
            ];
            p.insert(key, choice(&title, &q.question, &opts));
        } else if q.multi_select {
            for (j, o) in q.options.iter().enumerate() {
                let d = o.description.as_deref().unwrap_or(&q.question);
                p.insert(format!("{key}_{}", n(j)), toggle(&o.label, d, w));
            }
            p.insert(
                format!("{key}_{OTHER}"),
                toggle(w.other_toggle, &q.question, w),
            );
        } else {
            let mut opts: Vec<(String, String)> = q
                .options
                .iter()
                .enumerate()
                .map(|(j, o)| (format!("o{}", j + 1), o.label.clone()))
                .collect();
            opts.push((OTHER.into(), w.other.into()));
            let mut description = q.question.clone();
            for o in &q.options {
                if let Some(d) = &o.description {
                    description.push_str(&format!(" · {}: {d}", o.label));
                }
            }
            p.insert(key, choice(&title, &description, &opts));
        }
    }
    form(p, Vec::new())
}

fn review_first(spec: &ReviewSpec, w: &Words) -> Value {
    let l = spec.lang;
    let mut p = Map::new();
    for (i, item) in spec.items.iter().enumerate() {
        let key = format!("i{}", n(i));
        let title = format!("{}. {}", i + 1, item.title);
        let description: Vec<&str> = [
            &item.header,
            &item.detail,
            &item.op,
            &item.expect,
            &item.bool_desc,
        ]
        .into_iter()
        .flatten()
        .map(String::as_str)
        .collect();
        let description = description.join(" · ");
        let labelled =
            |vs: &[&str], label: fn(Lang, &str) -> &'static str| -> Vec<(String, String)> {
                vs.iter()
                    .map(|v| (v.to_string(), label(l, v).to_string()))
                    .collect()
            };
        match item.kind {
            ItemType::Confirm => {
                let opts = labelled(ItemType::Confirm.verdicts(), Lang::confirm_label);
                p.insert(key.clone(), choice(&title, &description, &opts));
            }
            ItemType::Bool => {
                let opts = labelled(ItemType::Bool.verdicts(), Lang::bool_label);
                p.insert(key.clone(), choice(&title, &description, &opts));
            }
            ItemType::Choice if item.is_multi() => {
                for (j, o) in item.options.iter().enumerate() {
                    p.insert(
                        format!("{key}_{}", n(j)),
                        toggle(&format!("{title} · {}", o.t), &description, w),
                    );
                }
            }
            ItemType::Choice => {
                let opts: Vec<(String, String)> = item
                    .options
                    .iter()
                    .map(|o| (o.v.clone(), o.t.clone()))
                    .collect();
                p.insert(key.clone(), choice(&title, &description, &opts));
            }
            ItemType::Scale => {
                let (min, max) = item.bounds();
                let opts: Vec<(String, String)> = (min..=max)
                    .map(|v| (v.to_string(), v.to_string()))
                    .collect();
                p.insert(key.clone(), choice(&title, &description, &opts));
            }
            ItemType::Text => {
                let opts = [
                    (WRITE.into(), w.write_answer.into()),
                    (SKIP.into(), w.leave.into()),
                ];
                p.insert(key.clone(), choice(&title, &description, &opts));
            }
        }
        if item.kind != ItemType::Text {
            let mut note = choice(
                &format!("{title} · {}", w.note),
                "",
                &[
                    (NONE.into(), w.no_note.into()),
                    (WRITE.into(), w.add_note.into()),
                ],
            );
            note["default"] = json!(NONE);
            p.insert(format!("{key}_note"), note);
        }
    }
    form(p, Vec::new())
}

/// A drift card's choices: the one-form style's decision (its "other" retitled) and a
/// choice to add a note.
fn drift_first(combined: &Value, w: &Words) -> Value {
    let mut decision = combined["properties"]["decision"].clone();
    if let Some(choices) = decision["oneOf"].as_array_mut()
        && let Some(last) = choices.last_mut()
        && last["const"] == OTHER
    {
        last["title"] = json!(w.direction);
    }
    let mut note = choice(
        combined["properties"]["note"]["title"]
            .as_str()
            .unwrap_or(w.note),
        "",
        &[
            (NONE.into(), w.no_note.into()),
            (WRITE.into(), w.agent_note.into()),
        ],
    );
    note["default"] = json!(NONE);
    let mut p = Map::new();
    p.insert("decision".into(), decision);
    p.insert("note".into(), note);
    form(p, vec!["decision".into()])
}

/// The texts a first reply asked for: `(field name, title, description)`, in form order.
fn wanted(plan: &FormPlan, first: &Value, lang: Lang) -> Vec<(String, String, String)> {
    let w = words(lang);
    let mut out = Vec::new();
    match plan {
        FormPlan::Questions(spec) => {
            for (i, q) in spec.questions.iter().enumerate() {
                let key = format!("q{}", n(i));
                let asked = if q.is_free_text() {
                    is(first, &key, WRITE)
                } else if q.multi_select {
                    is(first, &format!("{key}_{OTHER}"), YES)
                } else {
                    is(first, &key, OTHER)
                };
                if asked {
                    let title = q.header.clone().unwrap_or_else(|| q.question.clone());
                    out.push((format!("t{}", n(i)), title, q.question.clone()));
                }
            }
        }
        FormPlan::Review(spec) => {
            for (i, item) in spec.items.iter().enumerate() {
                let key = format!("i{}", n(i));
                let title = format!("{}. {}", i + 1, item.title);
                if item.kind == ItemType::Text {
                    if is(first, &key, WRITE) {
                        out.push((format!("t{}", n(i)), title, String::new()));
                    }
                } else if is(first, &format!("{key}_note"), WRITE) {
                    out.push((
                        format!("t{}", n(i)),
                        format!("{title} · {}", w.note),
                        String::new(),
                    ));
                }
            }
        }
        FormPlan::Drift(_) => {
            if is(first, "decision", OTHER) {
                out.push(("direction".into(), w.direction_other.into(), String::new()));
            }
            if is(first, "note", WRITE) {
                out.push(("note".into(), w.note_title.into(), String::new()));
            }
        }
        FormPlan::Survey(_) | FormPlan::Url => {}
    }
    out
}

fn text_form(fields: Vec<(String, String, String)>, lang: Lang) -> Option<(String, Value)> {
    if fields.is_empty() {
        return None;
    }
    let mut p = Map::new();
    let mut required = Vec::new();
    for (key, title, description) in fields {
        p.insert(key.clone(), text_field(&title, &description));
        required.push(key);
    }
    Some((words(lang).followup.to_string(), form(p, required)))
}

/// The text form that follows a first reply (`first`, its accepted content), when one of its
/// choices asked for text; `None` when the first reply is the whole answer.
pub fn followup(plan: &FormPlan, first: &Value, lang: Lang) -> Option<(String, Value)> {
    text_form(wanted(plan, first, lang), lang)
}

/// The one-form content ([`crate::elicit::answers`] reads it) of a stepwise reply: the first
/// form's choices and the follow-up's texts (`Null` when none followed).
pub fn combined(plan: &FormPlan, first: &Value, second: &Value) -> Value {
    let mut out = Map::new();
    match plan {
        FormPlan::Questions(spec) => {
            let keys = elicit::keys(spec);
            for (i, (q, k)) in spec.questions.iter().zip(keys).enumerate() {
                let key = format!("q{}", n(i));
                let text = text_of(second, &format!("t{}", n(i)));
                if q.is_free_text() {
                    if let Some(t) = text.filter(|_| is(first, &key, WRITE)) {
                        out.insert(k.answer, json!(t));
                    }
                    continue;
                }
                if q.multi_select {
                    let picked: Vec<&str> = q
                        .options
                        .iter()
                        .enumerate()
                        .filter(|(j, _)| is(first, &format!("{key}_{}", n(*j)), YES))
                        .map(|(_, o)| o.label.as_str())
                        .collect();
                    if !picked.is_empty() {
                        out.insert(k.answer, json!(picked));
                    }
                    if is(first, &format!("{key}_{OTHER}"), YES)
                        && let (Some(t), Some(o)) = (text, k.other)
                    {
                        out.insert(o, json!(t));
                    }
                    continue;
                }
                match first[&key].as_str() {
                    Some(OTHER) => {
                        if let (Some(t), Some(o)) = (text, k.other) {
                            out.insert(o, json!(t));
                        }
                    }
                    Some(v) => {
                        let label = v
                            .strip_prefix('o')
                            .and_then(|j| j.parse::<usize>().ok())
                            .and_then(|j| q.options.get(j.wrapping_sub(1)))
                            .map(|o| o.label.clone());
                        // A value of no option is passed on as sent: the daemon names it.
                        out.insert(k.answer, json!(label.unwrap_or_else(|| v.to_string())));
                    }
                    None => {}
                }
            }
        }
        FormPlan::Review(spec) => {
            for (i, item) in spec.items.iter().enumerate() {
                let key = format!("i{}", n(i));
                let text = text_of(second, &format!("t{}", n(i)));
                match item.kind {
                    ItemType::Text => {
                        if let Some(t) = text.filter(|_| is(first, &key, WRITE)) {
                            out.insert(key, json!(t));
                        }
                        continue;
                    }
                    ItemType::Choice if item.is_multi() => {
                        let picked: Vec<&str> = item
                            .options
                            .iter()
                            .enumerate()
                            .filter(|(j, _)| is(first, &format!("{key}_{}", n(*j)), YES))
                            .map(|(_, o)| o.v.as_str())
                            .collect();
                        if !picked.is_empty() {
                            out.insert(key.clone(), json!(picked));
                        }
                    }
                    _ => {
                        if let Some(v) = first.get(&key).filter(|v| !v.is_null()) {
                            out.insert(key.clone(), v.clone());
                        }
                    }
                }
                if let Some(t) = text.filter(|_| is(first, &format!("{key}_note"), WRITE)) {
                    out.insert(format!("{key}_note"), json!(t));
                }
            }
        }
        FormPlan::Drift(_) => {
            if let Some(d) = first.get("decision").filter(|v| !v.is_null()) {
                out.insert("decision".into(), d.clone());
            }
            if let Some(t) = text_of(second, "direction").filter(|_| is(first, "decision", OTHER)) {
                out.insert("direction".into(), json!(t));
            }
            if let Some(t) = text_of(second, "note").filter(|_| is(first, "note", WRITE)) {
                out.insert("note".into(), json!(t));
            }
        }
        FormPlan::Survey(_) | FormPlan::Url => {}
    }
    Value::Object(out)
}

/// The first form of survey question `id` in the stepwise style. A free-text question that
/// cannot be skipped is its text field at once (one required field: Enter sends it).
pub fn survey_first(
    spec: &SurveySpec,
    id: &str,
    index: usize,
    total: usize,
    lang: Lang,
    url: &str,
    problem: Option<&str>,
) -> Option<(String, Value)> {
    let (message, combined) = elicit::survey_form(spec, id, index, total, lang, url, problem)?;
    let q = spec.questions.get(id)?;
    let w = words(lang);
    let title = combined["properties"]["answer"]["title"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    let mut p = Map::new();
    let mut required = Vec::new();
    if q.options().is_empty() {
        if q.is_skippable() {
            let opts = [
                (WRITE.into(), w.write_answer.into()),
                (SKIP.into(), w.skip_question.into()),
            ];
            p.insert("answer".into(), choice(&title, &q.prompt, &opts));
            required.push("answer".into());
        } else {
            p.insert("text".into(), text_field(&title, w.your_answer));
            required.push("text".into());
        }
    } else if q.is_multi() {
        for (j, o) in q.options().iter().enumerate() {
            let d = o.description.as_deref().unwrap_or(&q.prompt);
            p.insert(format!("answer_{}", n(j)), toggle(&o.label, d, &w));
        }
        if q.allows_custom() {
            p.insert(
                format!("answer_{OTHER}"),
                toggle(w.other_toggle, &q.prompt, &w),
            );
        }
    } else {
        let mut opts: Vec<(String, String)> = q
            .options()
            .iter()
            .enumerate()
            .map(|(j, o)| (format!("o{}", j + 1), o.label.clone()))
            .collect();
        if q.allows_custom() {
            opts.push((OTHER.into(), w.other.into()));
        }
        if q.is_skippable() {
            opts.push((SKIP.into(), w.skip_question.into()));
        }
        let description = combined["properties"]["answer"]["description"]
            .as_str()
            .unwrap_or_default();
        p.insert("answer".into(), choice(&title, description, &opts));
        required.push("answer".into());
    }
    Some((message, form(p, required)))
}

/// Whether survey question `q`'s first reply asked for text.
fn survey_wants_text(q: &Question, first: &Value) -> bool {
    if q.options().is_empty() {
        is(first, "answer", WRITE)
    } else if q.is_multi() {
        is(first, &format!("answer_{OTHER}"), YES)
    } else {
        is(first, "answer", OTHER)
    }
}

/// The text form that follows a survey question's first reply, when it asked for text.
pub fn survey_followup(
    spec: &SurveySpec,
    id: &str,
    first: &Value,
    lang: Lang,
) -> Option<(String, Value)> {
    let q = spec.questions.get(id)?;
    if !survey_wants_text(q, first) {
        return None;
    }
    let title = q.header.clone().unwrap_or_else(|| q.prompt.clone());
    text_form(vec![("text".into(), title, q.prompt.clone())], lang)
}

/// The one-form content ([`crate::elicit::survey_entry`] reads it) of a survey question's
/// stepwise reply.
pub fn survey_combined(spec: &SurveySpec, id: &str, first: &Value, second: &Value) -> Value {
    let Some(q) = spec.questions.get(id) else {
        return json!({});
    };
    let text = text_of(second, "text").or_else(|| text_of(first, "text"));
    let mut out = Map::new();
    if q.options().is_empty() {
        if let Some(t) = text.filter(|_| !is(first, "answer", SKIP)) {
            out.insert("answer".into(), json!(t));
        }
    } else if q.is_multi() {
        let picked: Vec<&str> = q
            .options()
            .iter()
            .enumerate()
            .filter(|(j, _)| is(first, &format!("answer_{}", n(*j)), YES))
            .map(|(_, o)| o.key.as_str())
            .collect();
        out.insert("answer".into(), json!(picked));
        if let Some(t) = text.filter(|_| survey_wants_text(q, first)) {
            out.insert(OTHER.into(), json!(t));
        }
    } else {
        match first["answer"].as_str() {
            Some(OTHER) => {
                if let Some(t) = text {
                    out.insert(OTHER.into(), json!(t));
                }
            }
            Some(SKIP) | None => {}
            Some(v) => {
                let key = v
                    .strip_prefix('o')
                    .and_then(|j| j.parse::<usize>().ok())
                    .and_then(|j| q.options().get(j.wrapping_sub(1)))
                    .map(|o| o.key.clone());
                out.insert("answer".into(), json!(key.unwrap_or_else(|| v.to_string())));
            }
        }
    }
    Value::Object(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn questions() -> FormPlan {
        FormPlan::Questions(
            serde_json::from_value(json!({"questions": [
                {"id": "db", "question": "Which database?", "header": "Storage",
                 "options": [{"label": "Postgres (Recommended)"}, {"label": "SQLite"}]},
                {"id": "tags", "question": "Which tags?", "multi_select": true,
                 "options": [{"label": "fast"}, {"label": "small"}, {"label": "safe"}]},
                {"id": "why", "question": "Why?"}
            ]}))
            .unwrap(),
        )
    }

    fn review() -> FormPlan {
        FormPlan::Review(
            serde_json::from_value(json!({"title": "Checks", "lang": "en", "items": [
                {"id": "r1", "type": "confirm", "title": "Login works"},
                {"id": "r2", "type": "scale", "title": "Speed", "min": 1, "max": 5},
                {"id": "r3", "type": "choice", "title": "Where", "multiSelect": true,
                 "options": [{"v": "a", "t": "A"}, {"v": "b", "t": "B"}]},
                {"id": "r4", "type": "text", "title": "Anything else"}
            ]}))
            .unwrap(),
        )
    }

    /// What Codex's TUI can answer by choosing: every field a single choice (no array, no
    /// number, no text), so the last field — where a form is sent — is a choice too.
    fn only_choices(schema: &Value) {
        let props = schema["properties"].as_object().unwrap();
        assert!(!props.is_empty());
        for (k, f) in props {
            assert_eq!(f["type"], "string", "{k}: {f}");
            assert!(f["oneOf"].is_array(), "{k} is a choice: {f}");
        }
    }

    #[test]
    fn first_forms_hold_only_choices_in_the_order_they_are_shown() {
        for plan in [questions(), review()] {
            let (_, schema) = first(&plan, Lang::En, "http://x/a/1", None).unwrap();
            only_choices(&schema);
        }
        let (_, schema) = first(&questions(), Lang::En, "u", None).unwrap();
        let names: Vec<&String> = schema["properties"].as_object().unwrap().keys().collect();
        assert_eq!(
            names,
            ["q01", "q02_01", "q02_02", "q02_03", "q02_other", "q03"],
            "name order is question order"
        );
    }

    #[test]
    fn choices_alone_need_no_text_form_and_become_the_one_form_content() {
        let plan = questions();
        let reply = json!({"q01": "o1", "q02_01": "yes", "q02_02": "no", "q02_03": "yes",
                           "q02_other": "no", "q03": "skip"});
        assert!(followup(&plan, &reply, Lang::En).is_none());
        let body = elicit::answers(&plan, &combined(&plan, &reply, &Value::Null));
        assert_eq!(
            body["answers"],
            json!([{"id": "db", "selected": ["Postgres (Recommended)"]},
                   {"id": "tags", "selected": ["fast", "safe"]}])
        );
    }

    #[test]
    fn a_choice_that_asks_for_text_gets_a_required_text_form() {
        let plan = questions();
        let reply = json!({"q01": "other", "q02_01": "no", "q02_02": "no", "q02_03": "no",
                           "q02_other": "yes", "q03": "write"});
        let (_, schema) = followup(&plan, &reply, Lang::En).unwrap();
        assert_eq!(schema["required"], json!(["t01", "t02", "t03"]));
        let texts = json!({"t01": "MariaDB", "t02": "portable", "t03": "because"});
        let body = elicit::answers(&plan, &combined(&plan, &reply, &texts));
        assert_eq!(
            body["answers"],
            json!([{"id": "db", "selected": [], "custom": "MariaDB"},
                   {"id": "tags", "selected": [], "custom": "portable"},
                   {"id": "why", "selected": [], "custom": "because"}])
        );
    }

    #[test]
    fn a_review_by_choices_then_its_notes() {
        let plan = review();
        let reply = json!({"i01": "fail", "i01_note": "write", "i02": "4", "i02_note": "none",
                           "i03_01": "yes", "i03_02": "no", "i03_note": "none", "i04": "write"});
        let (_, schema) = followup(&plan, &reply, Lang::En).unwrap();
        assert_eq!(schema["required"], json!(["t01", "t04"]));
        let body = elicit::answers(
            &plan,
            &combined(&plan, &reply, &json!({"t01": "name lost", "t04": "ok"})),
        );
        assert_eq!(
            body["answers"],
            json!([{"id": "r1", "verdict": "fail", "note": "name lost"},
                   {"id": "r2", "verdict": "4"},
                   {"id": "r3", "selected": ["a"]},
                   {"id": "r4", "note": "ok"}])
        );
    }

    #[test]
    fn a_drift_card_direction_is_typed_next() {
        let plan = FormPlan::Drift(
            json!({"reason": "scope-expansion", "description": "Add sync",
                                      "options": [{"label": "Later"}]}),
        );
        let (_, schema) = first(&plan, Lang::En, "u", None).unwrap();
        only_choices(&schema);
        let reply = json!({"decision": "other", "note": "none"});
        let (_, texts) = followup(&plan, &reply, Lang::En).unwrap();
        assert_eq!(texts["required"], json!(["direction"]));
        let body = elicit::answers(
            &plan,
            &combined(&plan, &reply, &json!({"direction": "Ask Ana"})),
        );
        assert_eq!(body["action"], "other");
        assert_eq!(body["text"], "Ask Ana");
    }

    #[test]
    fn codex_gets_the_stepwise_style_and_other_clients_the_one_form() {
        assert_eq!(Style::for_client("codex-mcp-client"), Style::Stepwise);
        assert_eq!(Style::for_client("claude-code"), Style::Combined);
        assert_eq!(Style::for_client("mcp-client"), Style::Combined);
    }
}

//! Answering in the client (`clients.md` §3): the `elicitation` setting, and the flat form
//! an `ask_user_question` ask becomes for a client that can show one (`elicitation/create`,
//! form mode), with the way back from the form's content to the page's own submit body.
//!
//! Pure functions of the stored normal form: the daemon still validates every answer with
//! the core (a form answer goes through the same submit as the page's), so nothing here
//! decides what is a valid answer.

use askd_core::questions::QuestionsSpec;
use serde_json::{Map, Value, json};

/// The `elicitation` setting: `auto` (a form when the ask fits one), `form`, `url`, `off`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Elicitation {
    #[default]
    Auto,
    Form,
    Url,
    Off,
}

impl Elicitation {
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "auto" => Some(Self::Auto),
            "form" => Some(Self::Form),
            "url" => Some(Self::Url),
            "off" => Some(Self::Off),
            _ => None,
        }
    }

    /// Whether an ask that fits a flat form is sent as one.
    pub fn allows_form(self) -> bool {
        matches!(self, Self::Auto | Self::Form)
    }
}

/// A decline that comes back faster than this was not a human's: some clients declare
/// form elicitation yet decline every form without showing it (`codex exec`, Claude Code's
/// print mode). Such a decline leaves the ask pending instead of settling it cancelled.
pub const AUTOMATIC_DECLINE: std::time::Duration = std::time::Duration::from_secs(1);

/// The `surface` a form answer is recorded with.
pub const SURFACE: &str = "client-form";

/// Whether a client's `elicitation` capability (the JSON of `capabilities.elicitation`)
/// admits form mode: `{}` (the 2025-06-18 shape, form implied) or one naming `form`.
pub fn capability_has_form(cap: &Value) -> bool {
    match cap.as_object() {
        Some(o) => o.contains_key("form") || !o.contains_key("url"),
        None => false,
    }
}

/// The property names of one question's fields: its answer, and its "Other" text.
struct Keys {
    answer: String,
    other: Option<String>,
}

/// Field names: the question's id, and `<id>_other` for the free text beside options
/// (suffixed until unique, so no id can collide with another question's field).
fn keys(spec: &QuestionsSpec) -> Vec<Keys> {
    let mut taken: Vec<String> = spec.questions.iter().map(|q| q.id.clone()).collect();
    spec.questions
        .iter()
        .map(|q| {
            let other = (!q.is_free_text()).then(|| {
                let mut k = format!("{}_other", q.id);
                while taken.contains(&k) {
                    k.push('_');
                }
                taken.push(k.clone());
                k
            });
            Keys {
                answer: q.id.clone(),
                other,
            }
        })
        .collect()
}

struct Words {
    intro: &'static str,
    details: &'static str,
    other_title: &'static str,
    other_description: &'static str,
    multi: &'static str,
    free_text: &'static str,
}

fn words(lang: &str) -> Words {
    if lang == "zh-CN" {
        Words {
            intro: "智能体向你提问（可在此作答，也可在页面上作答）：",
            details: "详情与完整页面：",
            other_title: "其他（自由填写）",
            other_description: "以上选项都不合适时，写下你自己的回答。",
            multi: "可多选。",
            free_text: "请写下你的回答。",
        }
    } else {
        Words {
            intro: "The agent asks you (answer here, or on the page):",
            details: "Details and the full page: ",
            other_title: "Other (free text)",
            other_description: "Your own answer, when no option fits.",
            multi: "Select any that apply.",
            free_text: "Type your answer.",
        }
    }
}

/// The form for a questions ask: `(message, requestedSchema)`. The message carries every
/// question's text (header, question, detail) and a line with the page's URL; `problem`,
/// when the previous form's answer was refused, opens it.
pub fn questions_form(
    spec: &QuestionsSpec,
    lang: &str,
    url: &str,
    problem: Option<&str>,
) -> (String, Value) {
    let w = words(lang);
    let mut message = String::new();
    if let Some(p) = problem {
        message.push_str(p);
        message.push_str("\n\n");
    }
    message.push_str(w.intro);
    for (i, q) in spec.questions.iter().enumerate() {
        message.push_str(&format!("\n\n{}. ", i + 1));
        if let Some(h) = &q.header {
            message.push_str(&format!("[{h}] "));
        }
        message.push_str(&q.question);
        if let Some(d) = &q.detail {
            message.push_str("\n\n");
            message.push_str(d);
        }
    }
    message.push_str(&format!("\n\n{}{url}", w.details));

    let mut properties = Map::new();
    for (q, k) in spec.questions.iter().zip(keys(spec)) {
        let title = q.header.clone().unwrap_or_else(|| q.question.clone());
        let mut description = q.question.clone();
        for o in &q.options {
            if let Some(d) = &o.description {
                description.push_str(&format!("\n- {}: {d}", o.label));
            }
        }
        if q.is_free_text() {
            description.push_str(&format!("\n{}", w.free_text));
            properties.insert(
                k.answer,
                json!({"type": "string", "title": title, "description": description}),
            );
            continue;
        }
        let titled: Vec<Value> = q
            .options
            .iter()
            .map(|o| json!({"const": o.label, "title": o.label}))
            .collect();
        let field = if q.multi_select {
            description.push_str(&format!("\n{}", w.multi));
            json!({"type": "array", "title": title, "description": description,
                   "items": {"anyOf": titled}})
        } else {
            json!({"type": "string", "title": title, "description": description, "oneOf": titled})
        };
        properties.insert(k.answer, field);
        if let Some(other) = k.other {
            properties.insert(
                other,
                json!({"type": "string", "title": w.other_title, "description": w.other_description}),
            );
        }
    }
    let schema = json!({"type": "object", "properties": properties});
    (message, schema)
}

/// The submit body for a form's accepted content: the page's own shape
/// (`{"answers": [{id, selected, custom?}], "surface": "client-form"}`). Fields the form
/// left empty become no entry (the question is skipped); values of the wrong shape are
/// passed on as sent, so the daemon's validation names them.
pub fn questions_answers(spec: &QuestionsSpec, content: &Value) -> Value {
    let mut answers = Vec::new();
    for (q, k) in spec.questions.iter().zip(keys(spec)) {
        let value = content.get(&k.answer);
        let other = k
            .other
            .as_ref()
            .and_then(|o| content.get(o))
            .and_then(Value::as_str)
            .map(str::trim)
            .filter(|t| !t.is_empty());
        let mut entry = Map::new();
        entry.insert("id".into(), json!(q.id));
        if q.is_free_text() {
            match value {
                Some(Value::String(s)) if s.trim().is_empty() => continue,
                None | Some(Value::Null) => continue,
                Some(v) => {
                    entry.insert("selected".into(), json!([]));
                    entry.insert("custom".into(), v.clone());
                }
            }
        } else {
            let selected = match value {
                None | Some(Value::Null) => json!([]),
                Some(Value::String(s)) if s.is_empty() => json!([]),
                Some(Value::String(s)) => json!([s]),
                Some(v) => v.clone(),
            };
            let empty = selected.as_array().is_some_and(Vec::is_empty);
            if empty && other.is_none() {
                continue;
            }
            entry.insert("selected".into(), selected);
            if let Some(t) = other {
                entry.insert("custom".into(), json!(t));
            }
        }
        answers.push(Value::Object(entry));
    }
    json!({"answers": answers, "surface": SURFACE})
}

/// The line that opens a re-sent form after the daemon refused the previous answer.
pub fn refused(lang: &str, message: &str) -> String {
    if lang == "zh-CN" {
        format!("上一次的回答未被接受：{message}")
    } else {
        format!("Your last answer was not accepted: {message}")
    }
}

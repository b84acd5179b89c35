//! Answering in the client (`clients.md` §3): the `elicitation` setting, which request a
//! stored ask becomes for a client that can show one ([`plan`]: a flat form for questions,
//! drift cards and reviews of at most [`REVIEW_FORM_MAX`] items; one form per path question
//! for surveys; the page's URL for the rest), and the way back from a form's content to the
//! page's own submit body (or, for a survey question, the wizard's bank body).
//!
//! Pure functions of the stored normal form: the daemon still validates every answer with
//! the core (a form answer goes through the same submit or bank as the page's) and computes
//! a survey's path with the core's one path engine, so nothing here decides what is a valid
//! answer or which question comes next. The server (`server::wait_answering`) sends these
//! and races them against the page.

use askd_core::Lang;
use askd_core::questions::QuestionsSpec;
use askd_core::review::model::{ItemType, ReviewSpec};
use askd_core::survey::model::SurveySpec;
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

    /// Whether an ask is sent as its page's URL (every ask under `url`; under `auto` the
    /// ones no form fits, or every one for a client that declared URL mode only).
    pub fn allows_url(self) -> bool {
        matches!(self, Self::Auto | Self::Url)
    }
}

/// What the calling client declared it can show.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Modes {
    pub form: bool,
    pub url: bool,
}

impl Modes {
    /// From the JSON of `capabilities.elicitation`: `{}` (2025-06-18: form implied),
    /// `{"form": {}}`, `{"url": {}}` or both.
    pub fn of(cap: &Value) -> Modes {
        Modes {
            form: capability_has_form(cap),
            url: cap.as_object().is_some_and(|o| o.contains_key("url")),
        }
    }
}

/// The most items a review may have to be asked as one form.
pub const REVIEW_FORM_MAX: usize = 10;

/// What one pending ask is put in front of the human as.
#[derive(Debug, Clone)]
pub enum FormPlan {
    Questions(QuestionsSpec),
    /// A drift card: its stored payload (`reason`, `description`, `required_change`,
    /// `options`).
    Drift(Value),
    Review(ReviewSpec),
    /// A survey, walked one path question per form; each answer is banked as it arrives.
    Survey(Box<SurveySpec>),
    /// URL elicitation: the client offers to open the ask's page.
    Url,
}

impl FormPlan {
    pub fn is_form(&self) -> bool {
        !matches!(self, FormPlan::Url)
    }
}

/// The request for a pending ask (the daemon's view: `kind`, `spec`), given the setting and
/// what the client declared: a form when one fits and form mode is allowed, else the URL
/// when URL mode is, else nothing (today's behaviour: the page only).
pub fn plan(ask: &Value, setting: Elicitation, modes: Modes) -> Option<FormPlan> {
    // An ask with approvals (team mode) takes members' votes, on their own pages: neither an
    // answer from the agent's client nor its install-token URL could be one.
    if ask["state"] != "pending" || !ask["approvals"].is_null() {
        return None;
    }
    let form = if setting.allows_form() && modes.form {
        let spec = ask["spec"].clone();
        match ask["kind"].as_str() {
            Some("questions") => serde_json::from_value(spec).ok().map(FormPlan::Questions),
            Some("drift") if spec.is_object() => Some(FormPlan::Drift(spec)),
            Some("review") => serde_json::from_value::<ReviewSpec>(spec)
                .ok()
                .filter(|r| !r.items.is_empty() && r.items.len() <= REVIEW_FORM_MAX)
                .map(FormPlan::Review),
            Some("survey") => serde_json::from_value::<SurveySpec>(spec)
                .ok()
                .map(|s| FormPlan::Survey(Box::new(s))),
            _ => None,
        }
    } else {
        None
    };
    form.or_else(|| (setting.allows_url() && modes.url).then_some(FormPlan::Url))
}

/// A decline that comes back faster than this was not a human's: some clients declare
/// form elicitation yet decline every form without showing it (`codex exec`, Claude Code's
/// print mode). Such a decline leaves the ask pending instead of settling it cancelled.
pub const AUTOMATIC_DECLINE: std::time::Duration = std::time::Duration::from_secs(1);

/// Joins the parts of a field's description: one line, since clients show a field's
/// description on one line (Claude Code prints a newline there as an unknown character).
const SEP: &str = " · ";

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
pub(crate) struct Keys {
    pub(crate) answer: String,
    pub(crate) other: Option<String>,
}

/// Field names: the question's id, and `<id>_other` for the free text beside options
/// (suffixed until unique, so no id can collide with another question's field).
pub(crate) fn keys(spec: &QuestionsSpec) -> Vec<Keys> {
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

fn words(lang: Lang) -> Words {
    if lang == Lang::Zh {
        Words {
            intro: "智能体向你提问（可在此作答，也可在页面上作答；已在页面作答请在此按 Esc 继续）：",
            details: "详情与完整页面：",
            other_title: "其他（自由填写）",
            other_description: "以上选项都不合适时，写下你自己的回答。",
            multi: "可多选。",
            free_text: "请写下你的回答。",
        }
    } else {
        Words {
            intro: "The agent asks you (answer here, or on the page — answered there? Esc here goes on):",
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
    lang: Lang,
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
                description.push_str(&format!("{SEP}{}: {d}", o.label));
            }
        }
        if q.is_free_text() {
            description.push_str(&format!("{SEP}{}", w.free_text));
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
            description.push_str(&format!("{SEP}{}", w.multi));
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
pub fn refused(lang: Lang, message: &str) -> String {
    if lang == Lang::Zh {
        format!("上一次的回答未被接受：{message}")
    } else {
        format!("Your last answer was not accepted: {message}")
    }
}

/// The language of a plan's text: a review's own `lang`, else the session's (`en`, `zh-CN`).
pub fn plan_lang(plan: &FormPlan, session: Lang) -> Lang {
    match plan {
        FormPlan::Review(r) => r.lang,
        _ => session,
    }
}

/// The form (`(message, requestedSchema)`) of a form plan; `None` for [`FormPlan::Url`].
pub fn form(
    plan: &FormPlan,
    lang: Lang,
    url: &str,
    problem: Option<&str>,
) -> Option<(String, Value)> {
    match plan {
        FormPlan::Questions(spec) => Some(questions_form(spec, lang, url, problem)),
        FormPlan::Drift(payload) => Some(drift_form(payload, lang, url, problem)),
        FormPlan::Review(spec) => Some(review_form(spec, lang, url, problem)),
        // One form per question: see [`survey_form`].
        FormPlan::Survey(_) | FormPlan::Url => None,
    }
}

/// The submit body for a form's accepted content (`surface: "client-form"`); the daemon
/// validates it exactly as the page's.
pub fn answers(plan: &FormPlan, content: &Value) -> Value {
    match plan {
        FormPlan::Questions(spec) => questions_answers(spec, content),
        FormPlan::Drift(_) => drift_answers(content),
        FormPlan::Review(spec) => review_answers(spec, content),
        FormPlan::Survey(_) | FormPlan::Url => json!({}),
    }
}

/// The message of a URL elicitation: what the page is for.
pub fn url_message(ask: &Value, lang: Lang) -> String {
    let title = ask["title"]
        .as_str()
        .or_else(|| ask["spec"]["title"].as_str())
        .unwrap_or_default();
    let zh = lang == Lang::Zh;
    let mut m = String::from(if zh {
        "智能体向你提问，请在 askd 的页面上作答"
    } else {
        "The agent asks you something; answer it on askd's page"
    });
    if !title.trim().is_empty() {
        m.push_str(if zh { "：" } else { ": " });
        m.push_str(title.trim());
    } else {
        m.push_str(if zh { "。" } else { "." });
    }
    m
}

fn open(problem: Option<&str>) -> String {
    problem.map(|p| format!("{p}\n\n")).unwrap_or_default()
}

/// The drift card's decisions as one choice (`approve`, `reject`, `option:<i>`, `other`),
/// the typed direction for `other`, and the optional note — the card's own labels.
fn drift_form(payload: &Value, lang: Lang, url: &str, problem: Option<&str>) -> (String, Value) {
    let zh = lang == Lang::Zh;
    let l = lang;
    let reason = payload["reason"].as_str().unwrap_or_default();
    let mut message = open(problem);
    message.push_str(if zh {
        "智能体报告了偏离（可在此决定，也可在页面上决定；已在页面决定请在此按 Esc 继续）："
    } else {
        "The agent reports a drift (decide here, or on the page — decided there? Esc here goes on):"
    });
    message.push_str(&format!(
        "\n\n[{}] {}",
        askd_core::alignment::drift::reason_label(reason, l),
        payload["description"].as_str().unwrap_or_default()
    ));
    if let Some(r) = payload["required_change"].as_str() {
        message.push_str(if zh {
            "\n\n需要的变更："
        } else {
            "\n\nRequired change: "
        });
        message.push_str(r);
    }
    message.push_str(&format!("\n\n{}{url}", words(lang).details));
    let (approve, reject, other, direction, note) = if zh {
        (
            "批准此变更",
            "保持当前基线",
            "其他方向…",
            "你的方向",
            "给智能体的备注（可选）",
        )
    } else {
        (
            "Approve this change",
            "Keep the current baseline",
            "Another direction…",
            "Your direction",
            "Note for the agent (optional)",
        )
    };
    let mut choices = vec![
        json!({"const": "approve", "title": approve}),
        json!({"const": "reject", "title": reject}),
    ];
    let mut description = String::new();
    for (i, o) in payload["options"]
        .as_array()
        .into_iter()
        .flatten()
        .enumerate()
    {
        let label = o["label"].as_str().unwrap_or_default();
        choices.push(json!({"const": format!("option:{i}"), "title": label}));
        if let Some(d) = o["description"].as_str() {
            if !description.is_empty() {
                description.push_str(SEP);
            }
            description.push_str(&format!("{label}: {d}"));
        }
    }
    choices.push(json!({"const": "other", "title": other}));
    let decision_title = if zh { "决定" } else { "Decision" };
    let schema = json!({"type": "object", "properties": {
        "decision": {"type": "string", "title": decision_title,
                     "description": description, "oneOf": choices},
        "direction": {"type": "string", "title": direction,
                      "description": if zh { "选择「其他方向…」时填写。" } else { "With \"Another direction…\"." }},
        "note": {"type": "string", "title": note}
    }, "required": ["decision"]});
    (message, schema)
}

fn drift_answers(content: &Value) -> Value {
    let text = |k: &str| {
        content[k]
            .as_str()
            .map(str::trim)
            .filter(|t| !t.is_empty())
            .map(str::to_string)
    };
    let mut body = serde_json::Map::new();
    match content["decision"].as_str() {
        Some(d) if d.starts_with("option:") => {
            body.insert("action".into(), json!("option"));
            let i = d["option:".len()..].parse::<u64>().ok();
            body.insert("option".into(), json!(i));
        }
        Some("other") => {
            body.insert("action".into(), json!("other"));
            body.insert("text".into(), json!(text("direction").unwrap_or_default()));
        }
        // approve, reject — or anything else, which the daemon names.
        Some(d) => {
            body.insert("action".into(), json!(d));
        }
        None => {}
    }
    if let Some(n) = text("note") {
        body.insert("note".into(), json!(n));
    }
    body.insert("surface".into(), json!(SURFACE));
    Value::Object(body)
}

/// A review field's name: `i01`, `i02`, … (so the form keeps the items' order however the
/// client sorts its properties) and `i01_note` for its note.
fn review_key(i: usize) -> String {
    format!("i{:02}", i + 1)
}

fn review_form(spec: &ReviewSpec, lang: Lang, url: &str, problem: Option<&str>) -> (String, Value) {
    let zh = lang == Lang::Zh;
    let l = spec.lang;
    let mut message = open(problem);
    message.push_str(if zh {
        "智能体请你审阅（可在此作答，也可在页面上作答；已在页面作答请在此按 Esc 继续）："
    } else {
        "The agent asks for your review (answer here, or on the page — answered there? Esc here goes on):"
    });
    message.push_str(&format!("\n\n{}", spec.title));
    message.push_str(&format!("\n\n{}{url}", words(lang).details));
    let mut properties = Map::new();
    for (i, item) in spec.items.iter().enumerate() {
        let key = review_key(i);
        let mut description = String::new();
        for part in [
            &item.header,
            &item.detail,
            &item.op,
            &item.expect,
            &item.bool_desc,
        ]
        .into_iter()
        .flatten()
        {
            if !description.is_empty() {
                description.push_str(SEP);
            }
            description.push_str(part);
        }
        let title = format!("{}. {}", i + 1, item.title);
        let titled = |pairs: Vec<(String, String)>| -> Vec<Value> {
            pairs
                .into_iter()
                .map(|(v, t)| json!({"const": v, "title": t}))
                .collect()
        };
        let field = match item.kind {
            ItemType::Confirm => {
                json!({"type": "string", "title": title, "description": description,
                "oneOf": titled(ItemType::Confirm.verdicts().iter().map(|v| (v.to_string(), l.confirm_label(v).to_string())).collect())})
            }
            ItemType::Bool => json!({"type": "string", "title": title, "description": description,
                "oneOf": titled(ItemType::Bool.verdicts().iter().map(|v| (v.to_string(), l.bool_label(v).to_string())).collect())}),
            ItemType::Choice => {
                let options = titled(
                    item.options
                        .iter()
                        .map(|o| (o.v.clone(), o.t.clone()))
                        .collect(),
                );
                if item.is_multi() {
                    json!({"type": "array", "title": title, "description": description, "items": {"anyOf": options}})
                } else {
                    json!({"type": "string", "title": title, "description": description, "oneOf": options})
                }
            }
            ItemType::Scale => {
                let (min, max) = item.bounds();
                json!({"type": "integer", "title": title, "description": description,
                       "minimum": min, "maximum": max})
            }
            ItemType::Text => json!({"type": "string", "title": title, "description": description}),
        };
        properties.insert(key.clone(), field);
        if item.kind != ItemType::Text {
            properties.insert(
                format!("{key}_note"),
                json!({"type": "string", "title": if zh { "备注（可选）" } else { "Note (optional)" }}),
            );
        }
    }
    (message, json!({"type": "object", "properties": properties}))
}

fn review_answers(spec: &ReviewSpec, content: &Value) -> Value {
    let mut answers = Vec::new();
    for (i, item) in spec.items.iter().enumerate() {
        let key = review_key(i);
        let mut entry = Map::new();
        entry.insert("id".into(), json!(item.id));
        let note = content[format!("{key}_note")]
            .as_str()
            .map(str::trim)
            .filter(|t| !t.is_empty());
        match (&content[&key], item.kind) {
            (Value::Null, _) => {}
            (Value::String(t), ItemType::Text) => {
                entry.insert("note".into(), json!(t));
            }
            (Value::Array(vs), _) => {
                entry.insert("selected".into(), json!(vs));
            }
            (Value::Number(n), _) => {
                entry.insert("verdict".into(), json!(n.to_string()));
            }
            (v, _) => {
                entry.insert("verdict".into(), v.clone());
            }
        }
        if let Some(n) = note {
            entry.insert("note".into(), json!(n));
        }
        if entry.len() > 1 {
            answers.push(Value::Object(entry));
        }
    }
    json!({"answers": answers, "surface": SURFACE})
}

/// The path map the daemon's path engine reads (`{id: {selected, custom?, skipped?}}`) from
/// an ask view's banked entries, and their ids.
pub fn banked_answers(ask: &Value) -> (Value, Vec<String>) {
    let mut map = Map::new();
    let mut ids = Vec::new();
    for e in ask["banked"].as_array().into_iter().flatten() {
        let Some(id) = e["id"].as_str() else { continue };
        let mut a = Map::new();
        a.insert("selected".into(), e["selected"].clone());
        for k in ["custom", "skipped"] {
            if !e[k].is_null() {
                a.insert(k.into(), e[k].clone());
            }
        }
        map.insert(id.to_string(), Value::Object(a));
        ids.push(id.to_string());
    }
    (json!({ "answers": map }), ids)
}

/// The submit body of a survey whose whole path is banked: each banked entry, in path order.
pub fn survey_submit(ask: &Value, path: &[String]) -> Value {
    let entries: Vec<Value> = path
        .iter()
        .filter_map(|id| {
            ask["banked"]
                .as_array()
                .into_iter()
                .flatten()
                .find(|e| e["id"] == id.as_str())
                .map(|e| {
                    let mut e = e.clone();
                    if let Some(o) = e.as_object_mut() {
                        o.remove("bankedAt");
                    }
                    e
                })
        })
        .collect();
    json!({"answers": entries, "surface": SURFACE})
}

/// The form of survey question `id`, the `index`-th (from 0) of a path of `total` so far:
/// `answer` (a choice of the option labels, several for a multi-select; text for a
/// free-text question), `other` beside options that accept custom text, and a message with
/// the question and a line with the page's URL for its insights and diagrams.
pub fn survey_form(
    spec: &SurveySpec,
    id: &str,
    index: usize,
    total: usize,
    lang: Lang,
    url: &str,
    problem: Option<&str>,
) -> Option<(String, Value)> {
    let q = spec.questions.get(id)?;
    let zh = lang == Lang::Zh;
    let w = words(lang);
    let mut message = open(problem);
    if index == 0
        && let Some(t) = &spec.title
    {
        message.push_str(t);
        message.push_str("\n\n");
    }
    message.push_str(&if zh {
        format!(
            "问题 {}/{}（可在此作答，也可在页面上作答；已在页面作答请在此按 Esc 继续）：",
            index + 1,
            total
        )
    } else {
        format!(
            "Question {} of {} (answer here, or on the page — answered there? Esc here goes on):",
            index + 1,
            total
        )
    });
    message.push_str("\n\n");
    if let Some(h) = &q.header {
        message.push_str(&format!("[{h}] "));
    }
    message.push_str(&q.prompt);
    if let Some(d) = &q.detail {
        message.push_str("\n\n");
        message.push_str(d);
    }
    let rich = q
        .options()
        .iter()
        .any(|o| o.insight.is_some() || o.diagram.is_some());
    message.push_str(&format!(
        "\n\n{}{url}{}",
        w.details,
        if rich {
            if zh {
                "（含见解与图示）"
            } else {
                " (insights and diagrams)"
            }
        } else {
            ""
        }
    ));
    let title = q.header.clone().unwrap_or_else(|| q.prompt.clone());
    let mut description = q.prompt.clone();
    for o in q.options() {
        if let Some(d) = &o.description {
            description.push_str(&format!("{SEP}{}: {d}", o.label));
        }
    }
    let mut properties = Map::new();
    if q.options().is_empty() {
        description.push_str(&format!("{SEP}{}", w.free_text));
        properties.insert(
            "answer".into(),
            json!({"type": "string", "title": title, "description": description}),
        );
    } else {
        let titled: Vec<Value> = q
            .options()
            .iter()
            .map(|o| json!({"const": o.key, "title": o.label}))
            .collect();
        let field = if q.is_multi() {
            description.push_str(&format!("{SEP}{}", w.multi));
            json!({"type": "array", "title": title, "description": description, "items": {"anyOf": titled}})
        } else {
            json!({"type": "string", "title": title, "description": description, "oneOf": titled})
        };
        properties.insert("answer".into(), field);
        if q.allows_custom() {
            properties.insert(
                "other".into(),
                json!({"type": "string", "title": w.other_title, "description": w.other_description}),
            );
        }
    }
    let mut schema = json!({"type": "object", "properties": properties});
    if !q.is_skippable() && !q.options().is_empty() && !q.allows_custom() {
        schema["required"] = json!(["answer"]);
    }
    Some((message, schema))
}

/// The bank entry of a survey form's accepted content: option keys as chosen, the custom
/// text, or an explicit skip when the form came back empty (the daemon refuses a skip of a
/// question that cannot be skipped, and the form is asked again).
pub fn survey_entry(spec: &SurveySpec, id: &str, content: &Value) -> Value {
    let free = spec
        .questions
        .get(id)
        .is_some_and(|q| q.options().is_empty());
    let text = |k: &str| {
        content[k]
            .as_str()
            .map(str::trim)
            .filter(|t| !t.is_empty())
            .map(str::to_string)
    };
    let (selected, custom) = if free {
        (json!([]), text("answer"))
    } else {
        let selected = match &content["answer"] {
            Value::String(s) if !s.is_empty() => json!([s]),
            Value::Array(a) => json!(a),
            Value::Null | Value::String(_) => json!([]),
            other => other.clone(),
        };
        (selected, text("other"))
    };
    let empty = selected.as_array().is_some_and(Vec::is_empty) && custom.is_none();
    let mut e = json!({"id": id, "selected": selected});
    if let Some(c) = custom {
        e["custom"] = json!(c);
    }
    if empty {
        e["skipped"] = json!(true);
    }
    json!({ "answers": [e] })
}

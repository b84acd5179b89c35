//! `report_drift` and the drift decision card (`alignment.md` §5.6, §6): argument
//! validation, the re-attach key, the card's answer validation, and the agent-facing result
//! with its `instruction`.
//!
//! Pure: the daemon folds the session, calls these, and writes what they return.

use serde_json::{Map, Value, json};

use super::fold::{AlignmentState, Drift};
use super::tail::Lang;
use crate::EventKind;
use crate::problem::Problem;
use crate::vocab::drift::DriftState;

/// The six reasons, in the spec's order, with their card labels (§6).
pub const REASONS: &[(&str, &str, &str)] = &[
    ("scope-expansion", "Scope expansion", "范围扩大"),
    (
        "constraint-conflict",
        "Conflicts with a constraint",
        "与约束冲突",
    ),
    ("behaviour-change", "Changes behaviour", "改变行为"),
    ("architecture-shift", "Architecture shift", "架构调整"),
    (
        "invalidated-assumption",
        "An assumption no longer holds",
        "某个假设不再成立",
    ),
    (
        "user-direction-change",
        "Your change of direction",
        "你改变了方向",
    ),
];

/// Labels an agent option may not use (§5.6), compared case-insensitively with whitespace
/// collapsed: the card's fixed actions in English and Simplified Chinese.
pub const RESERVED_LABELS: &[&str] = &[
    "approve",
    "reject",
    "approve this change",
    "keep the current baseline",
    "use this direction",
    "another direction",
    "another direction…",
    "another direction...",
    "not now",
    "批准",
    "拒绝",
    "批准此变更",
    "保持当前基线",
    "采用此方向",
    "其他方向",
    "其他方向…",
    "暂不",
];

/// The fields `report_drift` accepts (besides the MCP layer's `session` and `timeout_s`).
pub const FIELDS: &[&str] = &[
    "reason",
    "description",
    "required_change",
    "options",
    "resume",
    "approvals",
];

/// `description` and `required_change`, in characters.
pub const TEXT_MAX: usize = 2000;
/// An option's `label`, in characters.
pub const LABEL_MAX: usize = 80;
/// An option's `description`, in characters.
pub const OPTION_DESCRIPTION_MAX: usize = 500;
/// How many `options` a report may offer.
pub const OPTIONS_MIN: usize = 2;
pub const OPTIONS_MAX: usize = 4;
/// The human's note and typed direction on a card (§5.9).
pub const NOTE_MAX: usize = 2000;

/// One agent-offered direction.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DriftOption {
    pub label: String,
    pub description: Option<String>,
}

/// A validated new drift report.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DriftReport {
    pub reason: String,
    pub description: String,
    pub required_change: Option<String>,
    pub options: Vec<DriftOption>,
}

/// What a `report_drift` call asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DriftCall {
    Report(DriftReport),
    /// Re-attach to this drift id.
    Resume(String),
}

/// The reason's card label in `lang`, or the token itself when unknown.
pub fn reason_label(reason: &str, lang: Lang) -> &str {
    REASONS
        .iter()
        .find(|(t, _, _)| *t == reason)
        .map(|(_, en, zh)| if lang == Lang::Zh { *zh } else { *en })
        .unwrap_or(reason)
}

/// Lower-cased with whitespace collapsed: how labels are compared.
fn label_key(s: &str) -> String {
    s.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

fn problem(path: &str, code: &'static str, message: String) -> Problem {
    Problem::new(path, code, message)
}

/// A trimmed string of 1..=max characters at `path`, or a problem.
fn text_field(
    v: Option<&Value>,
    path: &str,
    max: usize,
    required: bool,
    out: &mut Vec<Problem>,
) -> Option<String> {
    match v {
        None | Some(Value::Null) if !required => None,
        None | Some(Value::Null) => {
            out.push(problem(
                path,
                "required",
                format!("{path} is required: 1 to {max} characters"),
            ));
            None
        }
        Some(Value::String(s)) => {
            let t = s.trim();
            let n = t.chars().count();
            if n == 0 {
                out.push(problem(
                    path,
                    "blank",
                    format!("{path} must not be blank: 1 to {max} characters"),
                ));
                None
            } else if n > max {
                out.push(problem(
                    path,
                    "too_long",
                    format!("{path} is {n} characters; at most {max} are allowed"),
                ));
                None
            } else {
                Some(t.to_string())
            }
        }
        Some(other) => {
            out.push(problem(
                path,
                "wrong_type",
                format!("{path} must be a string, got {}", type_name(other)),
            ));
            None
        }
    }
}

fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// Validates `report_drift`'s arguments (`session` and `timeout_s` are the MCP layer's and
/// are ignored here). Every problem is reported, each naming its field.
pub fn validate(args: &Value) -> Result<DriftCall, Vec<Problem>> {
    let Some(obj) = args.as_object() else {
        return Err(vec![problem(
            "",
            "wrong_type",
            format!(
                "report_drift arguments must be an object, got {}",
                type_name(args)
            ),
        )]);
    };
    let mut out = Vec::new();
    unknown_fields(obj, &mut out);
    if let Some(resume) = obj.get("resume").filter(|v| !v.is_null()) {
        return validate_resume(obj, resume, out);
    }
    let reason = reason_field(obj.get("reason"), &mut out);
    let description = text_field(
        obj.get("description"),
        "description",
        TEXT_MAX,
        true,
        &mut out,
    );
    let required_change = text_field(
        obj.get("required_change"),
        "required_change",
        TEXT_MAX,
        false,
        &mut out,
    );
    let options = options_field(obj.get("options"), &mut out);
    match (out.is_empty(), reason, description) {
        (true, Some(reason), Some(description)) => Ok(DriftCall::Report(DriftReport {
            reason,
            description,
            required_change,
            options,
        })),
        _ => Err(out),
    }
}

/// One `unknown_field` problem per member `report_drift` does not accept.
fn unknown_fields(obj: &Map<String, Value>, out: &mut Vec<Problem>) {
    for key in obj.keys() {
        if !FIELDS.contains(&key.as_str()) && key != "session" && key != "timeout_s" {
            out.push(problem(
                key,
                "unknown_field",
                format!(
                    "unknown field {key:?}; report_drift accepts session, reason, description, required_change, options, approvals, resume, timeout_s"
                ),
            ));
        }
    }
}

/// A `resume` call: every other field must be absent and `resume` a drift id. `out` holds
/// the problems found before.
fn validate_resume(
    obj: &Map<String, Value>,
    resume: &Value,
    mut out: Vec<Problem>,
) -> Result<DriftCall, Vec<Problem>> {
    let present: Vec<&str> = FIELDS
        .iter()
        .copied()
        .filter(|f| *f != "resume" && obj.get(*f).is_some_and(|v| !v.is_null()))
        .collect();
    for f in &present {
        out.push(problem(
            f,
            "not_with_resume",
            format!(
                "{f} must be absent with resume: resume re-attaches to an existing drift; report a new drift without resume"
            ),
        ));
    }
    let id = match resume {
        Value::String(s) if !s.trim().is_empty() => Some(s.trim().to_string()),
        _ => {
            out.push(problem(
                "resume",
                "wrong_type",
                "resume must be a drift id such as \"d1\"".into(),
            ));
            None
        }
    };
    match (out.is_empty(), id) {
        (true, Some(id)) => Ok(DriftCall::Resume(id)),
        _ => Err(out),
    }
}

/// The `reason`: one of [`REASONS`]' tags.
fn reason_field(value: Option<&Value>, out: &mut Vec<Problem>) -> Option<String> {
    match value {
        Some(Value::String(r)) if REASONS.iter().any(|(t, _, _)| t == r) => Some(r.clone()),
        other => {
            let got = match other {
                None | Some(Value::Null) => "nothing".to_string(),
                Some(Value::String(s)) => format!("{s:?}"),
                Some(v) => type_name(v).to_string(),
            };
            out.push(problem(
                "reason",
                if other.is_none() {
                    "required"
                } else {
                    "invalid_reason"
                },
                format!(
                    "reason must be one of {}; got {got}",
                    REASONS
                        .iter()
                        .map(|(t, _, _)| format!("\"{t}\""))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            ));
            None
        }
    }
}

/// The optional `options`: an array of [`OPTIONS_MIN`] to [`OPTIONS_MAX`] distinct options.
fn options_field(value: Option<&Value>, out: &mut Vec<Problem>) -> Vec<DriftOption> {
    let mut options = Vec::new();
    match value {
        None | Some(Value::Null) => {}
        Some(Value::Array(items)) => {
            if !(OPTIONS_MIN..=OPTIONS_MAX).contains(&items.len()) {
                out.push(problem(
                    "options",
                    "count",
                    format!(
                        "options must have {OPTIONS_MIN} to {OPTIONS_MAX} items, got {}; omit options when there is no alternative direction",
                        items.len()
                    ),
                ));
            }
            let mut seen: Vec<String> = Vec::new();
            for (i, item) in items.iter().enumerate() {
                if let Some(option) = option_item(i, item, &mut seen, out) {
                    options.push(option);
                }
            }
        }
        Some(other) => out.push(problem(
            "options",
            "wrong_type",
            format!(
                "options must be an array of {OPTIONS_MIN} to {OPTIONS_MAX} {{label, description?}}, got {}",
                type_name(other)
            ),
        )),
    }
    options
}

/// `options[i]`: `{label, description?}`, its label neither reserved nor in `seen` (the
/// earlier options' label keys, which it joins).
fn option_item(
    i: usize,
    item: &Value,
    seen: &mut Vec<String>,
    out: &mut Vec<Problem>,
) -> Option<DriftOption> {
    let base = format!("options[{i}]");
    let Some(o) = item.as_object() else {
        out.push(problem(
            &base,
            "wrong_type",
            format!(
                "{base} must be an object {{label, description?}}, got {}",
                type_name(item)
            ),
        ));
        return None;
    };
    for k in o.keys() {
        if k != "label" && k != "description" {
            out.push(problem(
                &format!("{base}.{k}"),
                "unknown_field",
                format!("unknown field {k:?} in {base}; an option has label and description"),
            ));
        }
    }
    let label = text_field(
        o.get("label"),
        &format!("{base}.label"),
        LABEL_MAX,
        true,
        out,
    );
    let description = match o.get("description") {
        Some(Value::String(s)) if s.trim().is_empty() => None,
        v => text_field(
            v,
            &format!("{base}.description"),
            OPTION_DESCRIPTION_MAX,
            false,
            out,
        ),
    };
    let label = label?;
    let key = label_key(&label);
    if RESERVED_LABELS.contains(&key.as_str()) {
        out.push(problem(
            &format!("{base}.label"),
            "reserved_label",
            format!(
                "{base}.label {label:?} is one of the card's fixed actions; name the direction itself, for example \"Use export files\""
            ),
        ));
    } else if seen.contains(&key) {
        out.push(problem(
            &format!("{base}.label"),
            "duplicate_label",
            format!("{base}.label {label:?} repeats an earlier option; labels must be distinct"),
        ));
    }
    seen.push(key);
    Some(DriftOption { label, description })
}

impl DriftReport {
    /// The options as stored and shown: `[{label, description?}]`.
    pub fn options_json(&self) -> Value {
        Value::Array(
            self.options
                .iter()
                .map(|o| {
                    let mut m = Map::new();
                    m.insert("label".into(), json!(o.label));
                    if let Some(d) = &o.description {
                        m.insert("description".into(), json!(d));
                    }
                    Value::Object(m)
                })
                .collect(),
        )
    }

    /// The re-attach key: equal for payloads that are identical after trimming (§5.6 step 2).
    pub fn key(&self) -> String {
        json!([
            self.reason,
            self.description,
            self.required_change,
            self.options_json()
        ])
        .to_string()
    }

    /// Whether an existing drift record carries this same payload.
    pub fn same_as(&self, d: &Drift) -> bool {
        d.reason == self.reason
            && d.description.trim() == self.description
            && d.required_change.as_deref().map(str::trim) == self.required_change.as_deref()
            && d.options == self.options_json().as_array().cloned().unwrap_or_default()
    }

    /// The drift card ask's payload.
    pub fn ask_payload(&self, drift_id: &str) -> Value {
        json!({
            "drift_id": drift_id,
            "reason": self.reason,
            "description": self.description,
            "required_change": self.required_change,
            "options": self.options_json(),
        })
    }

    /// The `alignment.drift_reported` data.
    pub fn reported_event(&self, drift_id: &str, ask_id: &str, supersedes: Option<&str>) -> Value {
        let mut e = json!({
            "drift_id": drift_id,
            "reason": self.reason,
            "description": self.description,
            "ask_id": ask_id,
            "actor": "agent",
        });
        if let Some(r) = &self.required_change {
            e["required_change"] = json!(r);
        }
        if !self.options.is_empty() {
            e["options"] = self.options_json();
        }
        if let Some(s) = supersedes {
            e["supersedes"] = json!(s);
        }
        e
    }
}

/// The human's answer on a card (§6 answer path).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CardAnswer {
    /// `approve`, `reject` or `revise`.
    Decide {
        decision: &'static str,
        choice: Option<String>,
        choice_source: Option<&'static str>,
        option_index: Option<usize>,
        note: Option<String>,
    },
    /// "Not now".
    Dismiss,
}

/// Validates a card answer `{action, option?, text?, note?}` against the presented options.
pub fn parse_answer(body: &Value, options: &[Value]) -> Result<CardAnswer, Vec<Problem>> {
    let Some(obj) = body.as_object() else {
        return Err(vec![problem(
            "",
            "wrong_type",
            format!(
                "a drift card answer must be an object {{action, option?, text?, note?}}, got {}",
                type_name(body)
            ),
        )]);
    };
    let mut out = Vec::new();
    let action =
        match obj.get("action") {
            Some(Value::String(a))
                if matches!(
                    a.as_str(),
                    "approve" | "reject" | "option" | "other" | "dismiss"
                ) =>
            {
                a.as_str()
            }
            other => {
                return Err(vec![problem(
                "action",
                if other.is_none() { "required" } else { "invalid_action" },
                "action must be one of \"approve\", \"reject\", \"option\", \"other\", \"dismiss\""
                    .into(),
            )]);
            }
        };
    let allowed: &[&str] = match action {
        "option" => &["action", "option", "note"],
        "other" => &["action", "text", "note"],
        "dismiss" => &["action"],
        _ => &["action", "note"],
    };
    for k in obj.keys() {
        if !allowed.contains(&k.as_str()) {
            out.push(problem(
                k,
                "not_for_action",
                format!(
                    "{k} does not fit action {action:?}; it takes {}",
                    allowed.join(", ")
                ),
            ));
        }
    }
    let note = if action == "dismiss" {
        None
    } else {
        match obj.get("note") {
            Some(Value::String(s)) if s.trim().is_empty() => None,
            v => text_field(v, "note", NOTE_MAX, false, &mut out),
        }
    };
    let answer = match action {
        "approve" | "reject" => Some(CardAnswer::Decide {
            decision: if action == "approve" {
                "approve"
            } else {
                "reject"
            },
            choice: None,
            choice_source: None,
            option_index: None,
            note: note.clone(),
        }),
        "option" => match obj.get("option").and_then(Value::as_u64) {
            Some(i) if (i as usize) < options.len() => {
                let i = i as usize;
                Some(CardAnswer::Decide {
                    decision: "revise",
                    choice: options[i]
                        .get("label")
                        .and_then(Value::as_str)
                        .map(str::to_string),
                    choice_source: Some("option"),
                    option_index: Some(i),
                    note: note.clone(),
                })
            }
            _ => {
                out.push(problem(
                    "option",
                    "invalid_option",
                    if options.is_empty() {
                        "this drift offers no options; use approve, reject or other".into()
                    } else {
                        format!(
                            "option must be the index of a presented option, 0 to {}",
                            options.len() - 1
                        )
                    },
                ));
                None
            }
        },
        "other" => text_field(obj.get("text"), "text", NOTE_MAX, true, &mut out).map(|t| {
            CardAnswer::Decide {
                decision: "revise",
                choice: Some(t),
                choice_source: Some("typed"),
                option_index: None,
                note: note.clone(),
            }
        }),
        _ => Some(CardAnswer::Dismiss),
    };
    match answer {
        Some(a) if out.is_empty() => Ok(a),
        _ => Err(out),
    }
}

impl CardAnswer {
    /// The `alignment.drift_decided` / `alignment.drift_closed` data for `drift_id`.
    pub fn event(&self, drift_id: &str) -> (EventKind, Value) {
        match self {
            CardAnswer::Dismiss => (
                EventKind::AlignmentDriftClosed,
                json!({"drift_id": drift_id, "outcome": "dismissed", "actor": "human"}),
            ),
            CardAnswer::Decide {
                decision,
                choice,
                choice_source,
                option_index,
                note,
            } => {
                let mut e = json!({"drift_id": drift_id, "decision": decision, "actor": "human"});
                if let Some(c) = choice {
                    e["choice"] = json!(c);
                }
                if let Some(s) = choice_source {
                    e["choice_source"] = json!(s);
                }
                if let Some(i) = option_index {
                    e["option_index"] = json!(i);
                }
                if let Some(n) = note {
                    e["note"] = json!(n);
                }
                (EventKind::AlignmentDriftDecided, e)
            }
        }
    }
}

/// The `report_drift` result for `drift` in `state` (§5.6 Result): `outcome` is `decided`,
/// `pending`, `dismissed`, `withdrawn` or `superseded`.
pub fn result(
    session: &str,
    drift: &Drift,
    ask_id: &str,
    url: &str,
    state: &AlignmentState,
    lang: Lang,
) -> Value {
    let outcome = match drift.state.as_str() {
        "open" => "pending",
        "decided" => "decided",
        other => other,
    };
    json!({
        "session": session,
        "drift_id": drift.drift_id,
        "ask_id": ask_id,
        "url": url,
        "outcome": outcome,
        "decision": drift.decision,
        "choice": drift.choice,
        "choice_source": drift.choice_source,
        "note": drift.note,
        "required_change": drift.required_change,
        "posture": state.posture().as_str(),
        "instruction": instruction(drift, state, lang),
    })
}

/// What the agent does next (§5.6 instruction table).
pub fn instruction(drift: &Drift, state: &AlignmentState, lang: Lang) -> String {
    let zh = lang == Lang::Zh;
    let id = &drift.drift_id;
    let note = drift.note.as_deref().filter(|n| !n.is_empty());
    match (DriftState::parse(&drift.state), drift.decision.as_deref()) {
        (Some(DriftState::Decided), Some("approve")) => {
            let mut s = if zh {
                "用户批准了这项变更。在下一个实质性步骤之前，调用 establish_baseline 记录它。".to_string()
            } else {
                "The human approved the change. Call establish_baseline to record it before the next substantive step.".to_string()
            };
            if let Some(r) = &drift.required_change {
                s.push_str(&if zh {
                    format!(" 需要的基线变更：{r}")
                } else {
                    format!(" Required change: {r}")
                });
            }
            if let Some(n) = note {
                s.push_str(&if zh {
                    format!(" 用户备注：\"{n}\"")
                } else {
                    format!(" The human's note: \"{n}\"")
                });
            }
            s
        }
        (Some(DriftState::Decided), Some("reject")) => {
            let r = state.revision;
            let mut s = if zh {
                format!("用户保留了当前基线。不要做这项变更；在基线修订 {r} 内继续。")
            } else {
                format!(
                    "The human kept the current baseline. Do not make this change; continue within baseline revision {r}."
                )
            };
            if let Some(n) = note {
                s.push_str(&if zh {
                    format!(" 用户备注：\"{n}\"")
                } else {
                    format!(" The human's note: \"{n}\"")
                });
            }
            s
        }
        (Some(DriftState::Decided), Some("revise")) => {
            let choice = drift.choice.as_deref().unwrap_or_default();
            let mut s = match (drift.choice_source.as_deref(), zh) {
                (Some("typed"), false) => format!("The human chose a different direction: \"{choice}\"."),
                (_, false) => format!("The human chose \"{choice}\"."),
                (Some("typed"), true) => format!("用户选择了另一个方向：\"{choice}\"。"),
                (_, true) => format!("用户选择了\"{choice}\"。"),
            };
            s.push_str(if zh {
                " 在下一个实质性步骤之前用 establish_baseline 记录这个方向，然后按它继续。这是改变方向，不是拒绝。"
            } else {
                " Record that direction with establish_baseline before the next substantive step, then continue in it. This is a redirection, not a rejection."
            });
            if let Some(n) = note {
                s.push_str(&if zh {
                    format!(" 用户备注：\"{n}\"")
                } else {
                    format!(" The human's note: \"{n}\"")
                });
            }
            s
        }
        (Some(DriftState::Open), _) => {
            if zh {
                format!(
                    "用户尚未决定。不要做这项变更。用 await_answer（传入 ask_id）或 report_drift {{\"resume\": \"{id}\"}} 重新等待，或调用 alignment_status 查看。"
                )
            } else {
                format!(
                    "No decision yet. Do not make the change. Re-attach with await_answer on the ask_id or with report_drift {{\"resume\": \"{id}\"}}, or check alignment_status."
                )
            }
        }
        (Some(DriftState::Dismissed), _) => if zh {
            "用户关闭了卡片而没有做决定。不要做这项变更。停下来，等待用户在对话中的指示。"
        } else {
            "The human closed the card without deciding. Do not make the change. Stop and wait for the human's instruction in the conversation."
        }
        .to_string(),
        (Some(DriftState::Withdrawn), _) => if zh {
            "卡片在没有决定的情况下被撤回。不要做这项变更。只有在它仍然重要时才重新报告。"
        } else {
            "The card was withdrawn without a decision. Do not make the change. Report it again only if it still matters."
        }
        .to_string(),
        (Some(DriftState::Superseded), _) => if zh {
            "一个更新的偏移报告取代了这一个。按更新的那个执行。"
        } else {
            "A newer drift report replaced this one. Follow the newer one."
        }
        .to_string(),
        _ => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::alignment::fold::{AlignEvent, fold};

    fn report(v: Value) -> DriftReport {
        match validate(&v).unwrap() {
            DriftCall::Report(r) => r,
            other => panic!("{other:?}"),
        }
    }

    fn codes(v: Value) -> Vec<(String, String)> {
        validate(&v)
            .unwrap_err()
            .into_iter()
            .map(|p| (p.path, p.code.to_string()))
            .collect()
    }

    #[test]
    fn a_valid_report_is_trimmed_and_keeps_option_order() {
        let r = report(json!({
            "reason": "architecture-shift",
            "description": "  Move storage to a server  ",
            "options": [{"label": " Use export files "}, {"label": "Keep local", "description": "as now"}],
            "session": "s", "timeout_s": 5
        }));
        assert_eq!(r.description, "Move storage to a server");
        assert_eq!(r.options[0].label, "Use export files");
        assert_eq!(r.options[1].description.as_deref(), Some("as now"));
        assert_eq!(r.required_change, None);
    }

    #[test]
    fn an_unknown_reason_lists_the_six_values() {
        let p = validate(&json!({"reason": "whim", "description": "x"})).unwrap_err();
        assert_eq!(p[0].path, "reason");
        for (t, _, _) in REASONS {
            assert!(p[0].message.contains(t), "{}", p[0].message);
        }
    }

    #[test]
    fn required_fields_and_lengths_are_checked() {
        assert_eq!(
            codes(json!({})),
            vec![
                ("reason".into(), "required".into()),
                ("description".into(), "required".into())
            ]
        );
        let long = "x".repeat(2001);
        assert_eq!(
            codes(json!({"reason": "scope-expansion", "description": long})),
            vec![("description".into(), "too_long".into())]
        );
        assert_eq!(
            codes(
                json!({"reason": "scope-expansion", "description": "ok", "required_change": "  "})
            ),
            vec![("required_change".into(), "blank".into())]
        );
        assert_eq!(
            codes(json!({"reason": "scope-expansion", "description": "ok", "extra": 1})),
            vec![("extra".into(), "unknown_field".into())]
        );
    }

    #[test]
    fn options_need_two_to_four_distinct_unreserved_labels() {
        let base = |options: Value| json!({"reason": "scope-expansion", "description": "d", "options": options});
        assert_eq!(
            codes(base(json!([{"label": "a"}]))),
            vec![("options".into(), "count".into())]
        );
        assert_eq!(
            codes(base(
                json!([{"label": "a"}, {"label": "b"}, {"label": "c"}, {"label": "d"}, {"label": "e"}])
            )),
            vec![("options".into(), "count".into())]
        );
        assert_eq!(
            codes(base(
                json!([{"label": "Use  Files"}, {"label": "use files"}])
            )),
            vec![("options[1].label".into(), "duplicate_label".into())]
        );
        assert_eq!(
            codes(base(
                json!([{"label": "Approve this   change"}, {"label": "b"}])
            )),
            vec![("options[0].label".into(), "reserved_label".into())]
        );
        assert_eq!(
            codes(base(json!([{"label": "保持当前基线"}, {"label": "b"}]))),
            vec![("options[0].label".into(), "reserved_label".into())]
        );
        assert_eq!(
            codes(base(json!([{"label": "x".repeat(81)}, {"label": "b"}]))),
            vec![("options[0].label".into(), "too_long".into())]
        );
        assert_eq!(
            codes(base(
                json!([{"label": "a", "description": "x".repeat(501)}, {"label": "b"}])
            )),
            vec![("options[0].description".into(), "too_long".into())]
        );
        assert_eq!(
            codes(base(json!([{"label": "a", "icon": "x"}, {"label": "b"}]))),
            vec![("options[0].icon".into(), "unknown_field".into())]
        );
    }

    #[test]
    fn resume_excludes_every_other_field() {
        assert_eq!(
            validate(&json!({"resume": "d2", "session": "s", "timeout_s": 1})).unwrap(),
            DriftCall::Resume("d2".into())
        );
        assert_eq!(
            codes(json!({"resume": "d2", "reason": "scope-expansion"})),
            vec![("reason".into(), "not_with_resume".into())]
        );
        assert_eq!(
            codes(json!({"resume": 3})),
            vec![("resume".into(), "wrong_type".into())]
        );
    }

    #[test]
    fn identical_payloads_share_a_key_after_trimming() {
        let a = report(json!({"reason": "scope-expansion", "description": "Add sync"}));
        let b = report(json!({"reason": "scope-expansion", "description": " Add sync\n"}));
        let c = report(json!({"reason": "scope-expansion", "description": "Add sync!"}));
        assert_eq!(a.key(), b.key());
        assert_ne!(a.key(), c.key());
    }

    fn options() -> Vec<Value> {
        vec![
            json!({"label": "Use export files"}),
            json!({"label": "Keep local"}),
        ]
    }

    #[test]
    fn card_answers_map_to_decisions_by_action_not_label() {
        let o = options();
        assert!(matches!(
            parse_answer(&json!({"action": "approve", "note": "ok"}), &o).unwrap(),
            CardAnswer::Decide { decision: "approve", note: Some(n), .. } if n == "ok"
        ));
        assert!(matches!(
            parse_answer(&json!({"action": "reject"}), &o).unwrap(),
            CardAnswer::Decide {
                decision: "reject",
                note: None,
                ..
            }
        ));
        assert_eq!(
            parse_answer(&json!({"action": "option", "option": 1}), &o).unwrap(),
            CardAnswer::Decide {
                decision: "revise",
                choice: Some("Keep local".into()),
                choice_source: Some("option"),
                option_index: Some(1),
                note: None
            }
        );
        assert!(matches!(
            parse_answer(&json!({"action": "other", "text": " Use a queue "}), &o).unwrap(),
            CardAnswer::Decide { decision: "revise", choice: Some(c), choice_source: Some("typed"), .. } if c == "Use a queue"
        ));
        assert_eq!(
            parse_answer(&json!({"action": "dismiss"}), &o).unwrap(),
            CardAnswer::Dismiss
        );
    }

    #[test]
    fn bad_card_answers_name_the_field() {
        let o = options();
        let code = |v: Value| {
            parse_answer(&v, &o)
                .unwrap_err()
                .into_iter()
                .map(|p| (p.path, p.code.to_string()))
                .collect::<Vec<_>>()
        };
        assert_eq!(
            code(json!({"action": "option", "option": 2})),
            vec![("option".into(), "invalid_option".into())]
        );
        assert_eq!(
            code(json!({"action": "option"})),
            vec![("option".into(), "invalid_option".into())]
        );
        assert_eq!(
            code(json!({"action": "other", "text": "  "})),
            vec![("text".into(), "blank".into())]
        );
        assert_eq!(
            code(json!({"action": "approve", "option": 0})),
            vec![("option".into(), "not_for_action".into())]
        );
        assert_eq!(
            code(json!({"action": "dismiss", "note": "x"})),
            vec![("note".into(), "not_for_action".into())]
        );
        assert_eq!(
            code(json!({"action": "approve", "note": "x".repeat(2001)})),
            vec![("note".into(), "too_long".into())]
        );
        assert_eq!(
            code(json!({"action": "maybe"})),
            vec![("action".into(), "invalid_action".into())]
        );
        assert!(
            parse_answer(&json!({"action": "option", "option": 0}), &[]).unwrap_err()[0]
                .message
                .contains("no options")
        );
    }

    fn ev(seq: i64, kind: &str, data: Value) -> AlignEvent {
        AlignEvent {
            seq,
            at: format!("2026-11-30T10:00:{seq:02}Z"),
            kind: crate::EventKind::parse(kind),
            actor: crate::Actor::Agent,
            data,
        }
    }

    #[test]
    fn results_carry_outcome_decision_posture_and_instruction() {
        let r = report(
            json!({"reason": "scope-expansion", "description": "Add sync", "required_change": "Allow a server", "options": [{"label": "Use export files"}, {"label": "Keep local"}]}),
        );
        let mut events = vec![ev(
            1,
            "alignment.drift_reported",
            r.reported_event("d1", "a1", None),
        )];
        let s = fold(&events);
        let d = s.drift("d1").unwrap();
        let pending = result("s1", d, "a1", "u", &s, Lang::En);
        assert_eq!(pending["outcome"], "pending");
        assert_eq!(pending["posture"], "drift-pending");
        assert!(
            pending["instruction"]
                .as_str()
                .unwrap()
                .contains(r#"{"resume": "d1"}"#)
        );

        let answer = parse_answer(
            &json!({"action": "option", "option": 0, "note": "CSV is enough"}),
            d.options.as_slice(),
        )
        .unwrap();
        let (kind, data) = answer.event("d1");
        events.push(ev(2, kind.as_str(), data));
        let s = fold(&events);
        let d = s.drift("d1").unwrap();
        let decided = result("s1", d, "a1", "u", &s, Lang::En);
        assert_eq!(decided["outcome"], "decided");
        assert_eq!(decided["decision"], "revise");
        assert_eq!(decided["choice"], "Use export files");
        assert_eq!(decided["choice_source"], "option");
        assert_eq!(decided["note"], "CSV is enough");
        assert_eq!(decided["posture"], "baseline-update-pending");
        let text = decided["instruction"].as_str().unwrap();
        assert!(text.contains("\"Use export files\"") && text.contains("establish_baseline"));
        assert!(text.contains("not a rejection"));
    }

    #[test]
    fn a_reject_without_a_note_leaves_no_dangling_separator() {
        let r = report(json!({"reason": "scope-expansion", "description": "Add sync"}));
        let events = vec![
            ev(
                1,
                "alignment.drift_reported",
                r.reported_event("d1", "a1", None),
            ),
            ev(
                2,
                "alignment.drift_decided",
                json!({"drift_id": "d1", "decision": "reject"}),
            ),
        ];
        let s = fold(&events);
        let text = instruction(s.drift("d1").unwrap(), &s, Lang::En);
        assert_eq!(
            text,
            "The human kept the current baseline. Do not make this change; continue within baseline revision 0."
        );
        assert_eq!(s.posture().as_str(), "no-baseline");
    }

    #[test]
    fn every_closure_has_its_instruction_in_both_languages() {
        for outcome in ["dismissed", "withdrawn", "superseded"] {
            let r = report(json!({"reason": "scope-expansion", "description": "Add sync"}));
            let events = vec![
                ev(
                    1,
                    "alignment.drift_reported",
                    r.reported_event("d1", "a1", None),
                ),
                ev(
                    2,
                    "alignment.drift_closed",
                    json!({"drift_id": "d1", "outcome": outcome}),
                ),
            ];
            let s = fold(&events);
            let d = s.drift("d1").unwrap();
            let en = result("s", d, "a1", "u", &s, Lang::En);
            assert_eq!(en["outcome"], outcome);
            assert!(!en["instruction"].as_str().unwrap().is_empty());
            let zh = instruction(d, &s, Lang::Zh);
            assert!(!zh.is_empty() && zh != en["instruction"].as_str().unwrap());
        }
    }
}

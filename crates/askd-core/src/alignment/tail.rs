//! The alignment tail (`alignment.md` §5.8) and the repeat marker (§5.7).
//!
//! The tail is a list of lines, T1 to T6 in order, each only when its condition holds; T7
//! (the one-shot mode notice) is built by [`mode_notice`]. The English templates are the ones
//! tests assert; the Chinese ones carry the same values and tokens.

use super::fold::{AlignmentState, Mode, Posture};
use serde_json::{Value, json};

/// The tail's language (askd's `language` setting resolved to `en` or `zh`, read with the
/// lenient [`Lang::parse`]): the core's one [`Lang`], re-exported here.
pub use crate::Lang;

/// What the tail needs besides the state.
#[derive(Debug, Clone)]
pub struct TailContext<'a> {
    pub session_id: &'a str,
    pub lang: Lang,
    /// How many settled decisions precede the state's `settled` and are not in it: a reader
    /// that loads only the newest [`T3_MAX_LINES`] passes the rest's count (0 = all loaded).
    pub earlier: usize,
}

/// The tail cap in characters, T7 policy text excluded.
pub const TAIL_MAX_CHARS: usize = 2000;
/// At most this many T3 lines.
pub const T3_MAX_LINES: usize = 10;
/// T3 cuts questions at this many characters.
pub const T3_QUESTION_CHARS: usize = 160;

fn cut(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        s.to_string()
    } else {
        let mut t: String = s.chars().take(max.saturating_sub(1)).collect();
        t.push('…');
        t
    }
}

fn labels(chosen: &[String], custom: Option<&str>) -> String {
    let mut parts: Vec<String> = chosen.to_vec();
    if let Some(c) = custom {
        parts.push(format!("\"{c}\""));
    }
    parts.join(", ")
}

/// T1–T6 for a state, capped at [`TAIL_MAX_CHARS`] (T3 shortens first, then the T4 field
/// lines; T1, T2 and T6 are never dropped).
pub fn tail_lines(s: &AlignmentState, ctx: &TailContext<'_>) -> Vec<String> {
    let zh = ctx.lang == Lang::Zh;
    let t1 = if zh {
        format!("askd 会话：{}", ctx.session_id)
    } else {
        format!("askd session: {}", ctx.session_id)
    };
    let (t2, t3) = memory_lines(s, zh);
    let (t4_head, t4_fields) = baseline_lines(s, zh);
    let t5 = last_decision_line(s, zh);
    let t6 = posture_line(s, zh);

    // Fit the cap: shorten T3 first, then the T4 field lines.
    let assemble = |t3: &[String], more: usize, fields: &[String]| -> Vec<String> {
        let mut out = vec![t1.clone()];
        out.extend(t2.iter().cloned());
        out.extend(t3.iter().cloned());
        if more > 0 {
            out.push(if zh {
                format!("（另有 {more} 条更早的决定；见 alignment_status）")
            } else {
                format!("(+{more} earlier; see alignment_status)")
            });
        }
        out.extend(t4_head.iter().cloned());
        out.extend(fields.iter().cloned());
        out.extend(t5.iter().cloned());
        out.extend(t6.iter().cloned());
        out
    };
    let size = |lines: &[String]| lines.iter().map(|l| l.chars().count() + 1).sum::<usize>();
    let mut keep = t3.len().min(T3_MAX_LINES);
    let mut fields = t4_fields.clone();
    loop {
        let shown = &t3[t3.len() - keep..];
        let lines = assemble(shown, ctx.earlier + t3.len() - keep, &fields);
        if size(&lines) <= TAIL_MAX_CHARS {
            return lines;
        }
        if keep > 0 {
            keep -= 1;
        } else if !fields.is_empty() {
            fields.pop();
        } else {
            return lines;
        }
    }
}

/// T2 (the alignment memory) and T3 (one line per settled decision), once a round is
/// answered.
fn memory_lines(s: &AlignmentState, zh: bool) -> (Vec<String>, Vec<String>) {
    let mut t2 = Vec::new();
    let mut t3 = Vec::new();
    if s.rounds >= 1 {
        let n = s.rounds;
        t2.push(if zh {
            format!(
                "对齐记忆：本会话已回答 {n} 轮问题。已确定的决定就是需求：不要再问（do not ask them again）。只有出现新的方向性决定（NEW direction-defining decision）时才再次提问。"
            )
        } else {
            format!(
                "Alignment memory: {n} question round(s) already answered in this session. Settled decisions are requirements: do not ask them again. Ask again only if a NEW direction-defining decision comes up."
            )
        });
        for d in &s.settled {
            let q = cut(&d.question, T3_QUESTION_CHARS);
            let l = labels(&d.chosen, d.custom.as_deref());
            t3.push(if zh {
                format!("已确定：{q} → {l}")
            } else {
                format!("Settled: {q} → {l}")
            });
        }
    }
    (t2, t3)
}

/// T4: the baseline's head line and its non-empty field lines, once there is a revision or a
/// drift.
fn baseline_lines(s: &AlignmentState, zh: bool) -> (Option<String>, Vec<String>) {
    let mut t4_head = None;
    let mut t4_fields = Vec::new();
    if s.revision >= 1 || !s.drifts.is_empty() {
        t4_head = Some(match (s.revision, zh) {
            (0, false) => "Baseline: none recorded yet".to_string(),
            (0, true) => "基线：尚未记录（none recorded yet）".to_string(),
            (r, false) => format!("Baseline revision {r}:"),
            (r, true) => format!("基线 revision {r}："),
        });
        if let Some(b) = &s.baseline {
            let fields: [(&str, &str, Vec<String>); 5] = [
                ("Goal", "目标", b.goal.iter().cloned().collect()),
                (
                    "Explicit constraints",
                    "明确约束",
                    b.explicit_constraints.clone(),
                ),
                ("Must preserve", "必须保留", b.must_preserve.clone()),
                ("Allowed scope", "允许范围", b.allowed_scope.clone()),
                ("User decisions", "用户决定", b.user_decisions.clone()),
            ];
            for (en, cn, items) in fields {
                if !items.is_empty() {
                    let v = items.join("; ");
                    t4_fields.push(if zh {
                        format!("- {cn}：{v}")
                    } else {
                        format!("- {en}: {v}")
                    });
                }
            }
        }
    }
    (t4_head, t4_fields)
}

/// T5: the last drift decision, if any.
fn last_decision_line(s: &AlignmentState, zh: bool) -> Option<String> {
    let mut t5 = None;
    if let Some(d) = s.last_decision() {
        let decision = d.decision.as_deref().unwrap_or("");
        let mut line = if zh {
            format!("最近的偏移决定：{} {decision}", d.drift_id)
        } else {
            format!("Last drift decision: {} {decision}", d.drift_id)
        };
        if decision == "revise"
            && let Some(c) = &d.choice
        {
            line.push_str(&format!(": \"{c}\""));
        }
        if let Some(n) = &d.note {
            line.push_str(&format!(" (note: \"{n}\")"));
        }
        t5 = Some(line);
    }
    t5
}

/// T6: what the agent must do first, for a drift-pending or baseline-update-pending posture.
fn posture_line(s: &AlignmentState, zh: bool) -> Option<String> {
    let mut t6 = None;
    match s.posture() {
        Posture::DriftPending => {
            let d = s.open_drift().expect("drift-pending has an open drift");
            let (id, reason) = (&d.drift_id, &d.reason);
            t6 = Some(match (d.inherited, zh) {
                (false, false) => format!(
                    "Waiting on the human: drift {id} ({reason}) is undecided. Do not make that change. Re-attach with await_answer or report_drift {{\"resume\": \"{id}\"}}."
                ),
                (true, false) => format!(
                    "Waiting on the human: drift {id} ({reason}) is undecided and was inherited from the parent session. Do not make that change; report it again in this session."
                ),
                (false, true) => format!(
                    "等待人工决定：偏移 {id}（{reason}）尚未决定。不要做这个改动（Do not make that change）。用 await_answer 或 report_drift {{\"resume\": \"{id}\"}} 重新等待。"
                ),
                (true, true) => format!(
                    "等待人工决定：偏移 {id}（{reason}）继承自父会话，尚未决定。不要做这个改动（Do not make that change）；请在本会话中重新 report_drift。"
                ),
            });
        }
        Posture::BaselineUpdatePending => {
            let ids = s.pending_updates.join(", ");
            let many = s.pending_updates.len() > 1;
            let clauses: Vec<String> = s
                .pending_updates
                .iter()
                .filter_map(|id| s.drift(id))
                .map(|d| {
                    let what = match (d.decision.as_deref(), &d.choice, zh) {
                        (Some("revise"), Some(c), false) => format!("the human chose \"{c}\""),
                        (Some("revise"), Some(c), true) => format!("用户选择了 \"{c}\""),
                        (_, _, false) => "the human approved the change".to_string(),
                        (_, _, true) => "用户批准了这个改动".to_string(),
                    };
                    if many {
                        format!("{}: {what}", d.drift_id)
                    } else {
                        what
                    }
                })
                .collect();
            let clauses = clauses.join("; ");
            t6 = Some(if zh {
                format!(
                    "基线更新待记录（{ids}）：{clauses}。在下一个实质步骤之前调用 establish_baseline（Call establish_baseline before the next substantive step）。"
                )
            } else {
                format!(
                    "Baseline update pending ({ids}): {clauses}. Call establish_baseline before the next substantive step."
                )
            });
        }
        _ => {}
    }
    t6
}

/// T7: the one-shot notice after a mode change (§3.4). `policy` is appended when switching to
/// `auto` on a connection that lacks the policy text.
pub fn mode_notice(mode: Mode, actor: &str, policy: Option<&str>, lang: Lang) -> String {
    let zh = lang == Lang::Zh;
    let title = mode.title();
    let mut s = match (mode, zh) {
        (Mode::Manual, false) => format!(
            "Alignment mode is now Manual for this session (set by {actor}). Stop applying the alignment policy on your own; use it when align is invoked."
        ),
        (Mode::Off, false) => format!(
            "Alignment mode is now Off for this session (set by {actor}). askd will attach no alignment guidance and the alignment tools are unavailable."
        ),
        (Mode::Auto, false) => format!(
            "Alignment mode is now Auto for this session (set by {actor}). Apply the following policy from here on:"
        ),
        (Mode::Manual, true) => format!(
            "本会话的对齐模式现在是 {title}（Manual，由 {actor} 设置）。不要再自行应用对齐策略；只在调用 align 时使用它。"
        ),
        (Mode::Off, true) => format!(
            "本会话的对齐模式现在是 {title}（Off，由 {actor} 设置）。askd 不再附加任何对齐指引，对齐工具不可用。"
        ),
        (Mode::Auto, true) => format!(
            "本会话的对齐模式现在是 {title}（Auto，由 {actor} 设置）。从现在起应用以下策略："
        ),
    };
    match (mode, policy) {
        (Mode::Auto, Some(p)) => {
            s.push_str("\n\n");
            s.push_str(p);
        }
        // The connection already has the policy (its instructions or an earlier notice).
        (Mode::Auto, None) => {
            let end = s.rfind(if zh {
                "从现在起"
            } else {
                "Apply the following"
            });
            if let Some(i) = end {
                s.truncate(i);
            }
            s.push_str(if zh {
                "从现在起重新应用你的指令中的对齐策略。"
            } else {
                "Apply the alignment policy from your instructions again from here on."
            });
        }
        _ => {}
    }
    s
}

/// The repeat key of a question: lower-cased, whitespace collapsed, trailing punctuation
/// removed (§5.7).
pub fn normalize_question(q: &str) -> String {
    let collapsed = q
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase();
    collapsed
        .trim_end_matches(|c: char| {
            c.is_ascii_punctuation() || "？。！，；：…".contains(c) || c.is_whitespace()
        })
        .to_string()
}

/// `{ask_id, question_id, chosen}` of the settled decision that a question repeats, if any
/// (the first one settled).
pub fn repeat_of(s: &AlignmentState, question: &str) -> Option<Value> {
    let key = normalize_question(question);
    if key.is_empty() {
        return None;
    }
    s.settled
        .iter()
        .find(|d| normalize_question(&d.question) == key)
        .map(|d| json!({"ask_id": d.ask_id, "question_id": d.question_id, "chosen": d.chosen}))
}

#[cfg(test)]
mod tests {
    use super::super::fold::{AlignEvent, fold};
    use super::*;

    fn ev(seq: i64, kind: &str, data: Value) -> AlignEvent {
        AlignEvent {
            seq,
            at: format!("2026-11-29T10:00:{seq:02}Z"),
            kind: crate::EventKind::parse(kind),
            actor: crate::Actor::Agent,
            data,
        }
    }
    fn answered(seq: i64, id: &str, q: &str, label: &str) -> Vec<AlignEvent> {
        vec![
            ev(
                seq,
                "ask.created",
                json!({"ask_id": id, "kind": "questions", "questions": [{"id": "q", "question": q}]}),
            ),
            ev(
                seq + 1,
                "ask.settled",
                json!({"ask_id": id, "outcome": "answered", "answers": [{"id": "q", "selected": [label]}]}),
            ),
        ]
    }
    const CTX: TailContext<'static> = TailContext {
        session_id: "s1",
        lang: Lang::En,
        earlier: 0,
    };

    #[test]
    fn only_t1_without_rounds() {
        assert_eq!(tail_lines(&fold(&[]), &CTX), vec!["askd session: s1"]);
    }

    #[test]
    fn guard_appears_from_the_first_round() {
        let s = fold(&answered(
            1,
            "a1",
            "Where should the first version run?",
            "Local web app",
        ));
        let t = tail_lines(&s, &CTX);
        assert_eq!(t[0], "askd session: s1");
        assert!(t[1].starts_with("Alignment memory: 1 question round(s)"));
        assert!(t[1].contains("do not ask them again"));
        assert!(t[1].contains("NEW direction-defining decision"));
        assert_eq!(
            t[2],
            "Settled: Where should the first version run? → Local web app"
        );
        assert_eq!(t.len(), 3);
    }

    #[test]
    fn t3_keeps_the_newest_ten_and_counts_the_rest() {
        let mut events = Vec::new();
        for i in 0..12 {
            events.extend(answered(
                i * 2 + 1,
                &format!("a{i}"),
                &format!("Question {i}?"),
                "A",
            ));
        }
        let t = tail_lines(&fold(&events), &CTX);
        assert!(t[1].contains("12 question round(s)"));
        let settled: Vec<_> = t.iter().filter(|l| l.starts_with("Settled: ")).collect();
        assert_eq!(settled.len(), 10);
        assert_eq!(settled[9], "Settled: Question 11? → A");
        assert!(t.contains(&"(+2 earlier; see alignment_status)".to_string()));
    }

    #[test]
    fn a_state_with_only_the_newest_decisions_gives_the_same_tail() {
        let mut events = Vec::new();
        for i in 0..40 {
            events.extend(answered(
                i * 2 + 1,
                &format!("a{i}"),
                &format!("Question {i}?"),
                "A",
            ));
        }
        let whole = fold(&events);
        let mut newest = whole.clone();
        newest.settled.drain(..30);
        let windowed = tail_lines(&newest, &TailContext { earlier: 30, ..CTX });
        assert_eq!(windowed, tail_lines(&whole, &CTX));
        assert!(windowed.contains(&"(+30 earlier; see alignment_status)".to_string()));
    }

    #[test]
    fn cap_shortens_t3_then_keeps_t2() {
        let mut events = Vec::new();
        let long = "x".repeat(400);
        for i in 0..10 {
            events.extend(answered(
                i * 2 + 1,
                &format!("a{i}"),
                &format!("{long} {i}"),
                &"L".repeat(150),
            ));
        }
        let t = tail_lines(&fold(&events), &CTX);
        let size: usize = t.iter().map(|l| l.chars().count() + 1).sum();
        assert!(size <= TAIL_MAX_CHARS, "{size}");
        assert!(t[1].starts_with("Alignment memory: 10"));
        assert!(t.iter().any(|l| l.starts_with("(+")));
        assert!(
            t.iter()
                .filter(|l| l.starts_with("Settled: "))
                .all(|l| l.chars().count() < 330)
        );
    }

    #[test]
    fn baseline_decision_and_pending_lines() {
        let s = fold(&[
            ev(
                1,
                "alignment.baseline_recorded",
                json!({"revision": 1, "baseline": {"goal": "G", "explicit_constraints": ["No accounts", "No server"]}}),
            ),
            ev(
                2,
                "alignment.drift_reported",
                json!({"drift_id": "d1", "reason": "user-direction-change", "description": "x", "options": [{"label": "Use export files"}, {"label": "Add cloud sync"}]}),
            ),
        ]);
        let t = tail_lines(&s, &CTX);
        assert_eq!(t[1], "Baseline revision 1:");
        assert_eq!(t[2], "- Goal: G");
        assert_eq!(t[3], "- Explicit constraints: No accounts; No server");
        assert!(t[4].starts_with("Waiting on the human: drift d1 (user-direction-change) is undecided. Do not make that change."));
        assert!(t[4].contains(r#"report_drift {"resume": "d1"}"#));
        let mut s = s;
        s.apply(&ev(3, "alignment.drift_decided", json!({"drift_id": "d1", "decision": "revise", "choice": "Use export files", "choice_source": "option", "note": "CSV is enough"})));
        let t = tail_lines(&s, &CTX);
        assert!(
            t.contains(
                &r#"Last drift decision: d1 revise: "Use export files" (note: "CSV is enough")"#
                    .to_string()
            )
        );
        assert!(t.last().unwrap().starts_with(r#"Baseline update pending (d1): the human chose "Use export files". Call establish_baseline before the next substantive step."#));
    }

    #[test]
    fn t4_with_drift_but_no_baseline_and_reject_has_no_dangling_parts() {
        let s = fold(&[
            ev(
                1,
                "alignment.drift_reported",
                json!({"drift_id": "d1", "reason": "scope-expansion", "description": "x"}),
            ),
            ev(
                2,
                "alignment.drift_decided",
                json!({"drift_id": "d1", "decision": "reject"}),
            ),
        ]);
        let t = tail_lines(&s, &CTX);
        assert_eq!(
            t,
            vec![
                "askd session: s1",
                "Baseline: none recorded yet",
                "Last drift decision: d1 reject"
            ]
        );
    }

    #[test]
    fn chinese_tail_carries_the_same_values_and_tokens() {
        let mut events = answered(1, "a1", "Where?", "Local web app");
        events.push(ev(
            3,
            "alignment.drift_reported",
            json!({"drift_id": "d1", "reason": "scope-expansion", "description": "x"}),
        ));
        let s = fold(&events);
        let zh = tail_lines(
            &s,
            &TailContext {
                session_id: "s1",
                lang: Lang::Zh,
                earlier: 0,
            },
        );
        let en = tail_lines(&s, &CTX);
        assert_eq!(zh.len(), en.len());
        let all = zh.join("\n");
        for token in [
            "s1",
            "1 轮",
            "Where? → Local web app",
            "d1",
            "scope-expansion",
            "report_drift",
            "await_answer",
        ] {
            assert!(all.contains(token), "{token} missing in {all}");
        }
    }

    #[test]
    fn mode_notices() {
        let m = mode_notice(Mode::Manual, "agent", None, Lang::En);
        assert!(
            m.contains("now Manual")
                && m.contains("set by agent")
                && m.contains("align is invoked")
        );
        let o = mode_notice(Mode::Off, "human", Some("POLICY"), Lang::En);
        assert!(o.contains("now Off") && !o.contains("POLICY"));
        let a = mode_notice(Mode::Auto, "human", Some("POLICY"), Lang::En);
        assert!(a.contains("now Auto") && a.ends_with("\n\nPOLICY"));
        assert!(!mode_notice(Mode::Auto, "human", None, Lang::En).contains("POLICY"));
        assert!(mode_notice(Mode::Off, "agent", None, Lang::Zh).contains("Off"));
    }

    #[test]
    fn repeat_marker_normalizes_text() {
        let s = fold(&answered(
            1,
            "a1",
            "Where should the first version run?",
            "Local web app",
        ));
        assert_eq!(
            normalize_question("  Where  SHOULD the first\nversion run ?? "),
            "where should the first version run"
        );
        let r = repeat_of(&s, "where should the first   version run").unwrap();
        assert_eq!(
            r,
            json!({"ask_id": "a1", "question_id": "q", "chosen": ["Local web app"]})
        );
        assert!(repeat_of(&s, "How should accounts and sync work?").is_none());
        assert!(repeat_of(&s, "?").is_none());
    }
}

//! What the agent and the page read of a session's alignment: the status view (§5.3) and
//! the `align` report (§5.2), in English or Simplified Chinese.

use super::*;

/// The status view of §5.3 (summary detail) for a session's state: mode, rounds, one page of
/// settled decisions (`settled_decisions_page` says which), checks, baseline, drift summary,
/// posture and the tail lines in `guidance`.
pub fn status_view(session: &str, w: &Windowed, configured: Option<Mode>, lang: Lang) -> Value {
    let s = &w.state;
    let (effective, source) = s.effective_mode(configured);
    let baseline = s.baseline_view();
    let pending: Vec<_> = s
        .pending_updates
        .iter()
        .filter_map(|id| s.drift(id))
        .collect();
    let tail = TailContext {
        session_id: session,
        lang,
        earlier: w.earlier(),
    };
    json!({
        "session": {
            "id": session,
            "origin": s.origin.as_deref().unwrap_or("new"),
            "parent": s.parent,
            "fork_at": s.fork_at,
            "started_at": s.started_at,
            "last_activity": s.last_activity,
            "last_seq": s.last_seq,
        },
        "mode": {
            "effective": effective.as_str(),
            "source": source,
            "session_override": s.mode_override.map(Mode::as_str),
            "configured": configured.unwrap_or(Mode::Auto).as_str(),
            "set_by": s.mode_set_by,
        },
        "rounds": s.rounds,
        "settled_decisions": w.page,
        "settled_decisions_page": w.page_view(),
        "manual_checks": {"count": s.checks, "last_at": s.last_check_at},
        "baseline": baseline,
        "drift": {
            "reported": s.drifts.len(),
            "open": s.open_drift(),
            "pending_updates": pending,
            "last_decision": s.last_decision(),
        },
        "posture": s.posture().as_str(),
        "guidance": tail_lines(s, &tail),
    })
}

/// The language of agent-facing alignment texts from askd's resolved `language`.
pub fn lang(language: &str) -> Lang {
    Lang::parse(language)
}

/// The report lists at most this many settled decisions (the first ones), then a count.
pub(super) const REPORT_DECISIONS: usize = 50;

/// The `align` session report (§5.2 layout), in English or Simplified Chinese: `first` are
/// the session's first settled decisions (up to [`REPORT_DECISIONS`]) of `total`.
pub fn report(
    session: &str,
    s: &AlignmentState,
    (first, total): (&[SettledDecision], usize),
    configured: Option<Mode>,
    recorded: bool,
    lang: Lang,
) -> String {
    let zh = lang == Lang::Zh;
    let l = |en: &'static str, cn: &'static str| if zh { cn } else { en };
    let (mode, source) = s.effective_mode(configured);
    let source = match source {
        "session" => l("session override", "会话覆盖"),
        "config" => l("configured default", "配置默认"),
        _ => l("built-in default", "内置默认"),
    };
    let colon = l(": ", "：");
    let mut out = vec![
        format!(
            "{}{colon}{} {session}",
            l("Requirements alignment", "需求对齐"),
            l("session", "会话")
        ),
        if zh {
            format!("模式：{}（{source}）", mode.title())
        } else {
            format!("Mode: {} ({source})", mode.title())
        },
        format!("{}{colon}{}", l("Question rounds", "提问轮次"), s.rounds),
        format!(
            "{}{}",
            l("Settled decisions", "已确定的决定"),
            colon.trim_end()
        ),
    ];
    if total == 0 {
        out.push(format!("  {}", l("none", "无")));
    }
    for d in first.iter().take(REPORT_DECISIONS) {
        let mut labels = d.chosen.join(", ");
        if let Some(c) = &d.custom {
            if !labels.is_empty() {
                labels.push_str(", ");
            }
            labels.push_str(&format!("\"{c}\""));
        }
        out.push(format!("  - {} → {labels}", d.question));
    }
    let shown = first.len().min(REPORT_DECISIONS);
    if total > shown {
        out.push(if zh {
            format!("  （另有 {} 条）", total - shown)
        } else {
            format!("  (+{} more)", total - shown)
        });
    }
    let checks = l("Manual checks", "人工检查");
    out.push(match &s.last_check_at {
        Some(at) if s.checks > 0 => {
            if zh {
                format!("{checks}：{}（最近 {at}）", s.checks)
            } else {
                format!("{checks}: {} (last {at})", s.checks)
            }
        }
        _ => format!("{checks}{colon}0"),
    });
    if !recorded {
        out.push(format!(
            "  {}",
            l("(this check could not be recorded)", "（本次检查未能记录）")
        ));
    }
    baseline_lines(&mut out, s, lang);
    let none = l("none", "无");
    let open = s
        .open_drift()
        .map_or(none.to_string(), |d| d.drift_id.clone());
    let pending = if s.pending_updates.is_empty() {
        none.to_string()
    } else {
        s.pending_updates.join(", ")
    };
    out.push(if zh {
        format!(
            "偏移：已报告 {}；未决：{open}；待更新：{pending}",
            s.drifts.len()
        )
    } else {
        format!(
            "Drift: {} reported; open: {open}; pending updates: {pending}",
            s.drifts.len()
        )
    });
    if let Some(d) = s.last_decision() {
        out.push(format!(
            "{}{colon}{} {}",
            l("Last drift decision", "最近的偏移决定"),
            d.drift_id,
            d.decision.as_deref().unwrap_or("")
        ));
    }
    use askd_core::alignment::fold::Posture;
    let posture = match s.posture() {
        Posture::Aligned => l("Aligned", "已对齐").to_string(),
        Posture::NoBaseline => l("No baseline yet", "尚无基线").to_string(),
        Posture::DriftPending => {
            let d = s.open_drift().expect("open drift");
            if zh {
                format!("偏移待决（{}，{}）", d.drift_id, d.reason)
            } else {
                format!("Drift pending ({}, {})", d.drift_id, d.reason)
            }
        }
        Posture::BaselineUpdatePending => {
            if zh {
                format!("基线待更新（{pending}）")
            } else {
                format!("Baseline update pending ({pending})")
            }
        }
    };
    out.push(format!("{}{colon}{posture}", l("Posture", "状态")));
    out.join("\n")
}

/// The report's baseline lines: the revision and each non-empty field, or "none recorded".
fn baseline_lines(out: &mut Vec<String>, s: &AlignmentState, lang: Lang) {
    let zh = lang == Lang::Zh;
    let l = |en: &'static str, cn: &'static str| if zh { cn } else { en };
    let colon = l(": ", "：");
    match &s.baseline {
        Some(b) if s.revision > 0 => {
            out.push(if zh {
                format!("基线：修订 {}", s.revision)
            } else {
                format!("Baseline: revision {}", s.revision)
            });
            let fields = [
                (
                    l("Goal", "目标"),
                    b.goal.iter().cloned().collect::<Vec<_>>(),
                ),
                (
                    l("Explicit constraints", "明确约束"),
                    b.explicit_constraints.clone(),
                ),
                (l("Must preserve", "必须保留"), b.must_preserve.clone()),
                (l("Allowed scope", "允许范围"), b.allowed_scope.clone()),
                (l("User decisions", "用户决定"), b.user_decisions.clone()),
            ];
            for (name, items) in fields {
                if !items.is_empty() {
                    out.push(format!("  {name}{colon}{}", items.join("; ")));
                }
            }
        }
        _ => out.push(l("Baseline: none recorded", "基线：尚未记录").to_string()),
    }
}

//! The built-in alignment policy text (`alignment.md` §2) and the `align` check instruction
//! (§2.4), in English and Simplified Chinese. The policy carries no state (§2.1): counts, ids
//! and settled decisions travel in the tail.

use super::tail::Lang;

/// The heading the policy sits under in the server instructions (§2.1).
pub const HEADING_EN: &str = "## Requirements alignment";
/// The Chinese heading.
pub const HEADING_ZH: &str = "## 需求对齐（Requirements alignment）";

const POLICY_EN: &str = "\
### A1. Who decides
The human owns product direction; you own the engineering. A convenient default (browser-only, local data, no sign-in) is a guess, not a settled direction.
### A2. Classify the task
Greenfield or vague: a new project or idea, or an undefined product form, scope or main use. Explicit: the repository sets the direction, or the change is clear and local.
### A3. Greenfield Alignment Gate
Before substantive greenfield or vague work, the product goal, the MVP scope and the primary interaction must be clear; ask only about unclear ones.
### A4. Explicit work proceeds
Go ahead unless an open decision would materially change behaviour, scope, data, public APIs, compatibility, auth, security or migrations, or is irreversible.
### A5. Priority
Ask the highest open decision first: goal, scope, user-facing behaviour, data/identity/sync, architecture; never implementation details.
### A6. How to ask
ask_user_question, one question per call, and wait: 2 or 3 genuinely different outcomes, the recommended first and marked, each with a one-line trade-off. Restate the answer in one sentence; go on. ask_survey only if the human asks.
### A7. Never ask about
Names, helper locations, routine code structure, formatting, ordinary library use, small refactors, lint, or anything settled.
### A8. Stop
Once a first implementation has a coherent direction: usually one question, rarely over three.
### A9. Delegated direction
\"You decide\" hands over engineering, not direction: still ask the top direction question first.
### A10. Re-align only on something new
Ask again only for a NEW direction decision (askd's results list the settled ones); with a baseline, via report_drift.
### A11. Subagents
A subagent asks in its parent's askd session and never re-asks its decisions; pass your askd session id to one with its own askd connection.
### B1-B7. Baseline and drift
Keep a small baseline with establish_baseline; report drift with report_drift before acting. Their descriptions hold the rules. Never check alignment on a schedule.
### B8. Planning modes
A client's planning mode governs planning; this policy, direction during execution. Run the align check when the human asks.
";

const POLICY_ZH: &str = "\
### A1. 谁决定什么
人负责产品方向及其边界；你负责普通工程。方便的默认（只在浏览器、数据本地、无登录、无服务器）只是工程猜测，不能悄悄替人决定方向问题。
### A2. 先给任务分类
全新或模糊：项目为空或新建、新产品或早期想法、产品形态/首版范围/主要用法未定，或有多个可行方向。明确：仓库已定方向，或人要求清晰、局部的改动。
### A3. 全新项目对齐关口（Greenfield Alignment Gate）
全新或模糊工作实质实现前，确认产品目标（product goal）、MVP 范围（MVP scope）、主要交互（primary interaction）足够清楚；只问不清楚的项。
### A4. 明确的工作直接进行
无需提问，除非未决决定会实质改变行为、范围、持久化或数据归属、公共 API、兼容性、认证授权、安全、迁移、破坏性或不可逆操作。
### A5. 优先级
先问最高的未决决定：目标，其次范围、面向用户的行为、数据/身份/同步/兼容性、架构；实现细节通常不问。
### A6. 如何提问
用 ask_user_question，每次一个问题，并等待回答。给 2 到 3 个真正不同的选项，推荐项在前并标明，每项一句取舍；围绕结果而非实现提问。用一句话复述答案后继续，不要求确认。只有人要求时才用 ask_survey 做对齐。
### A7. 永远不问
文件名、辅助函数放哪、变量名、常规代码结构、格式、普通库用法、小重构、lint，以及已确定的任何事。
### A8. 停止
方向足以支撑首个实现就停：通常一个问题，很少超过三个。
### A9. 委托的方向
“你决定”交出的是工程，不是方向：对全新想法仍先问一个最高优先级的方向问题，其余自己决定。
### A10. 只在出现新情况时重新对齐
只有出现新的方向性决定才再问；不重问已确定的决定（askd 的结果会列出）。已有基线时改用 report_drift。
### A11. 子代理
子代理在父代理的 askd 会话中提问，绝不重问已定决定；委派给有自己 askd 连接的子代理时，传给它你的 askd 会话 id。
### B1-B7. 基线与偏移
用 establish_baseline 维护一个小的基线，在实质改变基线的操作之前用 report_drift 报告：规则写在这两个工具的说明里。保持安静：不定期检查对齐。
### B8. 规划模式
客户端的规划模式管规划；本策略管执行中的方向。人要求时运行 align 检查。
";

/// The built-in policy text, without its heading.
pub fn policy_text(lang: Lang) -> &'static str {
    match lang {
        Lang::En => POLICY_EN,
        Lang::Zh => POLICY_ZH,
    }
}

/// The alignment section of the server instructions in `auto` mode (§2.1, §2.6): the heading
/// and the built-in text, or a custom `section` verbatim with no heading.
pub fn instructions_section(lang: Lang, custom: Option<&str>) -> String {
    match custom {
        Some(c) => c.to_string(),
        None => {
            let heading = if lang == Lang::Zh {
                HEADING_ZH
            } else {
                HEADING_EN
            };
            format!("{heading}\n\n{}", policy_text(lang))
        }
    }
}

const CHECK_EN: &str = "\
Alignment check. This check does not take over your workflow and does not block anything.
1. Use the session report below: it is askd's durable record, not your recollection. Also use what you know of the conversation and the workspace.
2. Classify the task: greenfield or vague, or explicit.
3. If the work is greenfield or vague and has no coherent direction, ask the one highest-priority direction question with ask_user_question (one question, 2 or 3 options, the recommended one first). Direction decisions: product goal, target user, product form (web, desktop, CLI, mobile, library, service), MVP scope, key UX, persistence, local versus cloud, identity and accounts, sync, compatibility, architecture that changes the shape of the system.
4. If a baseline exists and an action that would change direction is pending or already taken, call report_drift and follow the decision.
5. If the session is drift-pending or baseline-update-pending, resolve that first, as the report says.
6. Never ask about file names, variable names, code structure, formatting, library use, refactors or lint, and never ask a settled decision again: the report lists them.
7. If the direction is clear, say so in one line and continue.";

const CHECK_ZH: &str = "\
对齐检查。本检查不接管你的工作流程，也不阻止任何事。
1. 使用下面的会话报告：它是 askd 的持久记录，而不是你的记忆。同时结合你对对话和工作区的了解。
2. 给任务分类：全新或模糊，还是明确。
3. 若工作是全新或模糊且方向不连贯，用 ask_user_question 问一个最高优先级的方向问题（一个问题，2 到 3 个选项，推荐项在前）。方向决定包括：产品目标、目标用户、产品形态（web、桌面、CLI、移动、库、服务）、MVP 范围、关键 UX、持久化、本地还是云、身份与账户、同步、兼容性、改变系统形态的架构。
4. 若已有基线，且会改变方向的操作正待进行或已经发生，调用 report_drift 并遵循决定。
5. 若会话处于 drift-pending 或 baseline-update-pending，先按报告所说解决。
6. 不问文件名、变量名、代码结构、格式、库用法、重构或 lint，也绝不重问已确定的决定：报告列出了它们。
7. 若方向清楚，用一句话说明并继续。";

/// The longest focus note of an `align` check, in characters (§5.2).
pub const CHECK_NOTE_MAX: usize = 500;

/// A check's focus note as the daemon and the `align` prompt read it: trimmed, a blank note
/// is none, one longer than [`CHECK_NOTE_MAX`] is refused with the message to show.
pub fn check_note(note: &str) -> Result<Option<&str>, String> {
    let n = note.trim();
    if n.is_empty() {
        Ok(None)
    } else if n.chars().count() > CHECK_NOTE_MAX {
        Err(format!("note must be at most {CHECK_NOTE_MAX} characters"))
    } else {
        Ok(Some(n))
    }
}

/// The compact `align` check instruction (§2.4); a note is appended when given.
pub fn check_instruction(lang: Lang, note: Option<&str>) -> String {
    let base = if lang == Lang::Zh { CHECK_ZH } else { CHECK_EN };
    match note.map(str::trim).filter(|n| !n.is_empty()) {
        Some(n) if lang == Lang::Zh => format!("{base}\n人关注的重点：{n}"),
        Some(n) => format!("{base}\nThe human's focus for this check: {n}"),
        None => base.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_check_note_is_trimmed_blank_is_none_and_long_is_refused() {
        assert_eq!(check_note("  focus  "), Ok(Some("focus")));
        assert_eq!(check_note("   "), Ok(None));
        assert_eq!(
            check_note(&"x".repeat(CHECK_NOTE_MAX)).map(|n| n.map(str::len)),
            Ok(Some(500))
        );
        assert_eq!(
            check_note(&"x".repeat(CHECK_NOTE_MAX + 1)),
            Err("note must be at most 500 characters".to_string())
        );
    }

    /// B1–B7 (the baseline and drift rules) live in `establish_baseline`'s and
    /// `report_drift`'s descriptions (issue 28 §3): the policy keeps one pointer to them, so
    /// the instructions stay under a client's 4,096-character cut.
    const HEADINGS: [&str; 13] = [
        "A1.", "A2.", "A3.", "A4.", "A5.", "A6.", "A7.", "A8.", "A9.", "A10.", "A11.", "B1-B7.",
        "B8.",
    ];
    const TOOLS: [&str; 4] = [
        "ask_user_question",
        "establish_baseline",
        "report_drift",
        "align",
    ];

    fn check_policy(text: &str) {
        let mut last = 0;
        for h in HEADINGS {
            let at = text
                .find(&format!("### {h} "))
                .unwrap_or_else(|| panic!("heading {h} missing"));
            assert!(at >= last, "heading {h} out of order");
            last = at;
        }
        for t in TOOLS {
            assert!(text.contains(t), "{t} missing");
        }
        let chars = text.chars().count();
        assert!(chars <= 2_300, "policy is {chars} characters");
        let lower = text.to_lowercase();
        for claim in [
            "blocks execution",
            "will block",
            "gates execution",
            "askd blocks",
            "askd prevents",
            "stops execution",
        ] {
            assert!(!lower.contains(claim), "claims enforcement: {claim}");
        }
    }

    #[test]
    fn english_policy_covers_every_rule_in_order() {
        check_policy(POLICY_EN);
        for item in [
            "product goal",
            "MVP scope",
            "primary interaction",
            "Greenfield Alignment Gate",
        ] {
            assert!(POLICY_EN.contains(item), "{item}");
        }
    }

    #[test]
    fn chinese_policy_carries_the_same_headings_and_tokens() {
        check_policy(POLICY_ZH);
        for item in [
            "product goal",
            "MVP scope",
            "primary interaction",
            "Greenfield Alignment Gate",
        ] {
            assert!(POLICY_ZH.contains(item), "{item}");
        }
    }

    #[test]
    fn instructions_section_uses_heading_or_custom_text_verbatim() {
        let s = instructions_section(Lang::En, None);
        assert!(s.starts_with("## Requirements alignment\n\n### A1."));
        assert!(instructions_section(Lang::Zh, None).contains("Requirements alignment"));
        assert_eq!(
            instructions_section(Lang::En, Some("Our own policy.")),
            "Our own policy."
        );
    }

    #[test]
    fn check_instruction_lists_the_steps_and_the_note() {
        for lang in [Lang::En, Lang::Zh] {
            let c = check_instruction(lang, Some("does sync change anything?"));
            for token in [
                "ask_user_question",
                "report_drift",
                "drift-pending",
                "baseline-update-pending",
                "CLI",
                "MVP",
            ] {
                assert!(c.contains(token), "{token}");
            }
            assert!(c.ends_with("does sync change anything?"));
        }
        assert!(check_instruction(Lang::En, None).contains("does not take over"));
    }
}

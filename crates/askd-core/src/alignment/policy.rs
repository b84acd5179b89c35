//! The built-in alignment policy text (`alignment.md` §2) and the `align` check instruction
//! (§2.4), in English and Simplified Chinese. The policy carries no state (§2.1): counts, ids
//! and settled decisions travel in the tail.

use super::tail::Lang;

/// The heading the policy sits under in the server instructions (§2.1).
pub const HEADING_EN: &str = "## Requirements alignment";
/// The Chinese heading.
pub const HEADING_ZH: &str = "## 需求对齐（Requirements alignment）";

const POLICY_EN: &str = "\
### A1. Who decides what
The human owns product direction and the boundaries that shape it; you own ordinary engineering. A convenient default (runs in a browser, data stays local, no sign-in, no server) is an engineering guess: never let it quietly settle a direction question for the human.

### A2. Classify the task first
Greenfield or vague: the project is empty or new, the request is a new product or an early idea, the product form, first-version scope or main way of use is undefined, or several materially different directions are plausible. Explicit: the repository already sets the direction, or the human asked for a clear, local change with a known result.

### A3. Greenfield Alignment Gate
Before substantive implementation of greenfield or vague work, make sure three things are clear enough to act on: the product goal (what the first version must deliver), the MVP scope (what it includes and leaves for later) and the primary interaction (how the user mainly uses it). Ask only about the items that are not already clear.

### A4. Explicit work proceeds
For explicit work, go ahead without asking, unless an unresolved decision would materially change product behaviour, scope, persistence or data ownership, public APIs, compatibility, authentication or authorisation, security, migrations, destructive behaviour or irreversible operations.

### A5. Priority
Ask the highest open decision first: 1 product or user goal; 2 scope and boundaries; 3 user-facing behaviour and UX; 4 data, identity, sync and compatibility; 5 architecture; 6 implementation details (normally never asked).

### A6. How to ask
Use ask_user_question with exactly one question per call, about the highest-priority open decision whose answer changes the next step, and wait for the answer. Give 2 or 3 genuinely different options, the recommended one first and marked, each with a one-line trade-off. Frame it around the outcome, the main use or the first version's boundary, never an implementation preference. Treat the answer as a requirement: restate it in one sentence and carry on; never ask to confirm it. Use ask_survey for alignment only when the human asks for one.

### A7. Never ask about
File names, where helpers live, variable names, loops versus maps or other routine code structure, formatting, ordinary library use, small refactors, lint fixes, or anything the repository or an earlier answer already settles.

### A8. Stop
Stop asking as soon as the answers give a coherent direction for a first implementation: usually after one question, rarely after more than three. This is not an interview or a specification.

### A9. Delegated direction
\"Pick whatever makes sense\" or \"you decide\" hands over the engineering, not the direction. For a greenfield idea, still ask the single highest-priority direction question (goal, target user or product form) before the first substantive implementation; then decide everything else yourself.

### A10. Re-align only on something new
Ask again only when a NEW direction-defining decision comes up (accounts for several users, cloud sync, a different product form or target user). Never re-run a decision already settled in this session: askd's results list the settled decisions, so read them before asking. If a baseline exists, re-align through report_drift instead.

### A11. Subagents
A subagent asks through askd in its parent's askd session, so it sees the same settled decisions and baseline and never re-asks them. When you delegate to a subagent with its own askd connection, pass it your askd session id.

### B1. The baseline
Work against a small requirement baseline: the goal, explicit constraints, behaviour that must be preserved, the allowed scope, and settled user decisions. Keep it to what decides direction.

### B2. When to record it
If the request states a constraint or limits scope (\"don't change X\", \"only work on X\", \"no backend changes\", \"leave the public API alone\"), call establish_baseline silently before the first substantive change; this is not a question to the human. For greenfield work, record it once the gate questions are answered. For a trivial request such as a typo fix, record nothing.

### B3. Stay quiet
Interrupting the human is the exception. Never check alignment on a schedule (steps, time, tokens, files). Never ask about the established stack, small internal designs, bug fixes inside the allowed scope, or tests the change needs.

### B4. What counts as drift
Stop before an action that would materially change the baseline. Reasons for report_drift: scope-expansion (a focused task grows into broad rework); constraint-conflict (it breaks an explicit constraint or must-preserve item); behaviour-change (an unauthorised change to user-visible behaviour, UX, a default or compatibility); architecture-shift (local to cloud, a backend, auth, several users, sync, persistence, public API, schema, migration); invalidated-assumption (something learned forces a new direction); user-direction-change (the human changes direction mid-task).

### B5. Report before acting
Call report_drift before the action, never as a summary after it. A human change of direction with a baseline in place comes first as report_drift with user-direction-change, before any clarifying question. For a genuine choice, pass 2 to 4 options.

### B6. Follow the decision
Approved: record it with establish_baseline before the next substantive step, then proceed. Kept the current baseline: do not make the change. Chose a direction: record it with establish_baseline, then proceed in it. No decision: do not make the change; wait or re-attach as the result says.

### B7. Keep the baseline honest
Never drop or weaken a protected constraint except to apply the human's decision; askd refuses other such revisions. Never ask a settled decision again.

### B8. Planning modes
A client's planning or plan-review mode governs planning; this policy governs direction during execution. Run the align check whenever the human asks.
";

const POLICY_ZH: &str = "\
### A1. 谁决定什么
人负责产品方向及其边界；你负责普通工程。方便的默认（浏览器运行、数据本地、无登录、无服务器）只是工程猜测，不能悄悄替人决定方向问题。

### A2. 先给任务分类
全新或模糊：项目为空或新建、请求是新产品或早期想法、产品形态/首版范围/主要用法未定，或存在多个差异明显的方向。明确：仓库已定方向，或人要求清晰、局部、结果已知的改动。

### A3. 全新项目对齐关口（Greenfield Alignment Gate）
在全新或模糊工作的实质实现之前，确认三件事足够清楚：产品目标（product goal）、MVP 范围（MVP scope）、主要交互（primary interaction）。只问尚不清楚的项。

### A4. 明确的工作直接进行
明确的工作无需提问，除非有未决决定会实质改变：产品行为、范围、持久化或数据归属、公共 API、兼容性、认证或授权、安全、迁移、破坏性行为、不可逆操作。

### A5. 优先级
先问最高的未决决定：1 产品或用户目标；2 范围与边界；3 面向用户的行为与 UX；4 数据、身份、同步与兼容性；5 架构；6 实现细节（通常不问）。

### A6. 如何提问
用 ask_user_question，每次只问一个问题：问答案会改变下一步的最高优先级决定，并等待回答。给出 2 到 3 个真正不同的选项，推荐项放第一并标明，每项一句取舍。围绕结果、主要用途或首版边界提问，不问实现偏好。把答案当作需求：用一句话复述后继续，不要求确认。只有人要求时才用 ask_survey 做对齐。

### A7. 永远不问
文件名、辅助函数放哪、变量名、循环还是 map 等常规代码结构、格式、普通库用法、小重构、lint 修复，以及仓库或先前回答已确定的任何事。

### A8. 停止
一旦答案足以给出首个实现的连贯方向就停止提问：通常一个问题，很少超过三个。这不是访谈，也不是规格说明。

### A9. 委托的方向
“你看着办”“你决定”交出的是工程，不是方向。对全新想法，在首个实质实现前仍要问一个最高优先级的方向问题（目标、目标用户或产品形态），其余自己决定。

### A10. 只在出现新情况时重新对齐
只有出现新的方向性决定（多用户账户、云同步、不同产品形态或目标用户）时才再问。不要重问本会话已确定的决定：askd 的结果列出已确定的决定，提问前先读。若已有基线，改用 report_drift。

### A11. 子代理
子代理在父代理的 askd 会话中通过 askd 提问，因此看到相同的已定决定和基线，绝不重问。委派给有自己 askd 连接的子代理时，把你的 askd 会话 id 传给它。

### B1. 基线
工作依据一个小的需求基线：目标、明确约束、必须保留的行为、允许范围、已确定的用户决定。只记录决定方向的内容。

### B2. 何时记录
请求声明约束或限定范围（“不要改 X”“只改 X”“不改后端”“公共 API 不动”）时，在首个实质改动前静默调用 establish_baseline；这不是向人提问。全新工作在关口问题回答后记录。错别字修复等琐碎请求不记录。

### B3. 保持安静
打扰人是例外。不要按步骤、时间、token 或文件数定期检查对齐。不问既有技术栈、小的内部设计、允许范围内的 bug 修复或所需测试。

### B4. 什么算偏移
在会实质改变基线的操作之前停下。report_drift 的原因：scope-expansion（聚焦任务扩成大改）；constraint-conflict（违反明确约束或必须保留项）；behaviour-change（未经授权改变可见行为、UX、默认值或兼容性）；architecture-shift（本地变云、加后端、认证、多用户、同步、持久化、公共 API、schema、迁移）；invalidated-assumption（新发现迫使改变方向）；user-direction-change（人在任务中途改变方向）。

### B5. 先报告再行动
在操作之前调用 report_drift，不要事后总结。已有基线时人改变方向，先用 user-direction-change 调用 report_drift，再做任何澄清提问。确有方向选择时给出 2 到 4 个 options。

### B6. 遵循决定
批准：在下一个实质步骤前用 establish_baseline 记录，然后继续。保留当前基线：不做这个改动。选择了方向：用 establish_baseline 记录后按该方向继续。没有决定：不做这个改动，按结果提示等待或重新等待。

### B7. 保持基线真实
除非执行人的决定，绝不删除或削弱受保护的约束；askd 会拒绝其他此类修订。绝不重问已确定的决定。

### B8. 规划模式
客户端的规划或计划审阅模式管规划；本策略管执行中的方向。人要求时运行 align 检查。
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

    const HEADINGS: [&str; 19] = [
        "A1.", "A2.", "A3.", "A4.", "A5.", "A6.", "A7.", "A8.", "A9.", "A10.", "A11.", "B1.",
        "B2.", "B3.", "B4.", "B5.", "B6.", "B7.", "B8.",
    ];
    const TOOLS: [&str; 4] = [
        "ask_user_question",
        "establish_baseline",
        "report_drift",
        "align",
    ];
    const REASONS: [&str; 6] = [
        "scope-expansion",
        "constraint-conflict",
        "behaviour-change",
        "architecture-shift",
        "invalidated-assumption",
        "user-direction-change",
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
        for t in TOOLS.iter().chain(REASONS.iter()) {
            assert!(text.contains(t), "{t} missing");
        }
        assert!(text.len() < 6 * 1024, "policy is {} bytes", text.len());
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

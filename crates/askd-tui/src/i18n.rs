//! The terminal UI's fixed labels in English and Simplified Chinese. An open ask uses the
//! ask's language (the web UI's rule: a review's `lang`, a drift card's description, else the
//! title or most prompts in CJK); the inbox uses askd's `language` setting.

use serde_json::Value;

use crate::text::has_cjk;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Lang {
    #[default]
    En,
    Zh,
}

impl Lang {
    /// From askd's language tag (`zh-CN`, `zh`, `en`, …).
    pub fn from_tag(tag: &str) -> Lang {
        if tag.to_ascii_lowercase().starts_with("zh") {
            Lang::Zh
        } else {
            Lang::En
        }
    }

    /// The language of an ask, from its `GET /api/asks/{id}` view.
    pub fn of_ask(view: &Value) -> Lang {
        let kind = view["kind"].as_str().unwrap_or_default();
        if kind == "review"
            && let Some(l) = view["review"]["lang"]
                .as_str()
                .or(view["spec"]["lang"].as_str())
        {
            return Lang::from_tag(l);
        }
        if kind == "drift" {
            let d = view["drift"]["description"].as_str().unwrap_or_default();
            return if has_cjk(d) { Lang::Zh } else { Lang::En };
        }
        let spec = &view["spec"];
        let title = view["title"]
            .as_str()
            .or(spec["title"].as_str())
            .unwrap_or_default();
        if has_cjk(title) {
            return Lang::Zh;
        }
        let prompts: Vec<&str> = match kind {
            "survey" => spec["questions"]
                .as_object()
                .map(|q| q.values().filter_map(|q| q["prompt"].as_str()).collect())
                .unwrap_or_default(),
            _ => spec["questions"]
                .as_array()
                .map(|q| q.iter().filter_map(|q| q["question"].as_str()).collect())
                .unwrap_or_default(),
        };
        if prompts.is_empty() {
            return Lang::En;
        }
        let cjk = prompts.iter().filter(|p| has_cjk(p)).count();
        if cjk * 2 >= prompts.len() {
            Lang::Zh
        } else {
            Lang::En
        }
    }

    /// The label for `key` (the key itself when it is unknown, which a test catches).
    pub fn t(self, key: &'static str) -> &'static str {
        for (k, en, zh) in TABLE {
            if *k == key {
                return if self == Lang::Zh { zh } else { en };
            }
        }
        key
    }
}

/// `(key, English, 简体中文)`.
const TABLE: &[(&str, &str, &str)] = &[
    // chrome
    ("app.title", "askd — pending asks", "askd — 待回答"),
    (
        "inbox.empty",
        "Nothing is waiting for you.",
        "没有待回答的请求。",
    ),
    ("inbox.loading", "Loading…", "加载中…"),
    (
        "inbox.hint",
        "↑↓ select · Enter open · z later · M mode · r refresh · ? keys · q quit",
        "↑↓ 选择 · Enter 打开 · z 稍后 · M 模式 · r 刷新 · ? 按键 · q 退出",
    ),
    ("kind.survey", "Survey", "问卷"),
    ("kind.questions", "Questions", "问题"),
    ("kind.review", "Review", "验收"),
    ("kind.drift", "Requirement drift", "需求偏移"),
    ("deadline.until", "stops waiting at", "停止等待于"),
    ("snooze.until", "put off until", "推迟到"),
    ("approvals.votes", "approvals", "票"),
    (
        "escalated.to",
        "nobody answered by the deadline: offered to",
        "截止前无人回答：已转给",
    ),
    (
        "snooze.note",
        "the agent comes back then; you can still answer now",
        "agent 届时再来；你现在仍可回答",
    ),
    (
        "deadline.thenDefault",
        "then the agent's default applies",
        "届时采用 agent 预设的默认值",
    ),
    (
        "deadline.thenClose",
        "then it closes unanswered",
        "届时不作答直接关闭",
    ),
    ("loading", "Loading…", "加载中…"),
    ("network", "The daemon did not answer", "守护进程没有响应"),
    ("help.title", "Keys (Esc closes)", "按键（Esc 关闭）"),
    (
        "help.quit",
        "quit (Ctrl+C anywhere)",
        "退出（任意处 Ctrl+C）",
    ),
    ("help.help", "this key list", "按键列表"),
    ("confirm.yes", "y yes", "y 是"),
    ("confirm.no", "n no", "n 否"),
    // alignment line
    ("align.mode", "mode", "模式"),
    ("align.posture", "posture", "状态"),
    ("align.rounds", "rounds", "轮次"),
    ("align.baseline", "baseline", "基线"),
    (
        "align.pick",
        "Alignment mode for this session: 1 auto · 2 manual · 3 off · 4 default (Esc keeps it)",
        "本会话的对齐模式：1 auto · 2 manual · 3 off · 4 默认（Esc 不变）",
    ),
    ("align.none", "no session selected", "未选择会话"),
    // settled
    ("sent", "Sent", "已发送"),
    (
        "sent.detail",
        "The agent has your answer.",
        "智能体已收到你的回答。",
    ),
    (
        "settled.elsewhere",
        "This ask was settled elsewhere.",
        "这个请求已在别处处理。",
    ),
    (
        "settled.back",
        "Enter or Esc: back to the inbox",
        "Enter 或 Esc：返回列表",
    ),
    ("outcome", "Outcome", "结果"),
    // shared actions
    (
        "key.putAway",
        "put away (back to the inbox; progress is kept)",
        "先放下（返回列表，进度保留）",
    ),
    ("key.submit", "submit", "提交"),
    (
        "key.cancel",
        "cancel this ask (with confirmation)",
        "取消此请求（需确认）",
    ),
    ("key.move", "move between rows", "在行之间移动"),
    ("key.open", "open the selected ask", "打开所选请求"),
    (
        "key.snooze",
        "ask me again in an hour (the agent is told to come back then)",
        "一小时后再问我（agent 会被告知届时再来）",
    ),
    (
        "key.mode",
        "the selected session's alignment mode: 1 auto · 2 manual · 3 off · 4 default",
        "所选会话的对齐模式：1 auto · 2 manual · 3 off · 4 默认",
    ),
    (
        "key.refresh",
        "refresh the list now (it refreshes every 2 s)",
        "立即刷新列表（每 2 秒自动刷新）",
    ),
    (
        "key.text",
        "type an answer of your own; Enter or Esc leaves it",
        "输入自己的答案；Enter 或 Esc 离开",
    ),
    ("key.choose", "choose the n-th option", "选择第 n 个选项"),
    ("key.space", "choose the focused option", "选择当前选项"),
    (
        "editing",
        "typing — ←/→ Home/End move · Backspace/Delete erase · Enter or Esc leaves the field",
        "输入中 — ←/→ Home/End 移动 · Backspace/Delete 删除 · Enter 或 Esc 离开输入框",
    ),
    // questions
    ("q.other", "Other", "其他"),
    ("q.otherHint", "Tab: type your own", "Tab：自己输入"),
    (
        "q.hint",
        "1–9 choose · Space pick · Tab other · Enter submit · X cancel · Esc put away · ? keys",
        "1–9 选择 · 空格 选中 · Tab 其他 · Enter 提交 · X 取消 · Esc 放下 · ? 按键",
    ),
    (
        "q.unanswered",
        "Answer at least one question first.",
        "请至少回答一个问题。",
    ),
    (
        "q.cancelConfirm",
        "Cancel these questions? The agent receives no answer.",
        "取消这些问题？智能体将收不到回答。",
    ),
    ("q.multi", "choose any", "可多选"),
    // survey
    ("s.intro", "Intro", "简介"),
    ("s.start", "Enter: start", "Enter：开始"),
    ("s.progress", "answered", "已答"),
    ("s.banked", "banked", "已锁定"),
    ("s.skipped", "skipped", "已跳过"),
    (
        "s.hint",
        "a–z/1–9 choose · ↑↓ Space · W why · Tab text · Enter next · ← back · S skip · B bank · X cancel · Esc put away",
        "a–z/1–9 选择 · ↑↓ 空格 · W 理由 · Tab 输入 · Enter 下一步 · ← 返回 · S 跳过 · B 锁定 · X 取消 · Esc 放下",
    ),
    (
        "s.introHint",
        "Enter start · Q quick templates · R reroll · P push · D discuss · X cancel · Esc put away · ? keys",
        "Enter 开始 · Q 快速模板 · R 重出 · P 推进 · D 讨论 · X 取消 · Esc 放下 · ? 按键",
    ),
    (
        "s.unanswered",
        "Answer this question first (or S to skip it).",
        "请先回答此题（或按 S 跳过）。",
    ),
    (
        "s.notSkippable",
        "This question cannot be skipped.",
        "此题不可跳过。",
    ),
    (
        "s.cancelConfirm",
        "Cancel this survey? The agent receives no answers.",
        "取消此问卷？智能体将收不到回答。",
    ),
    ("s.last", "Enter: submit", "Enter：提交"),
    ("s.next", "Enter: next", "Enter：下一题"),
    (
        "s.preflightConfirm",
        "Send this to the agent instead of answering?",
        "不作答，把这个发给智能体？",
    ),
    (
        "key.letter",
        "choose the option with that key (a digit: by position)",
        "选择对应按键的选项（数字：按位置）",
    ),
    ("key.skip", "skip this question", "跳过此题"),
    (
        "key.bank",
        "bank the answers so far and continue",
        "锁定已答内容并继续",
    ),
    (
        "key.back",
        "back (← or Backspace)",
        "返回（← 或 Backspace）",
    ),
    (
        "key.primary",
        "start / next / submit",
        "开始 / 下一题 / 提交",
    ),
    (
        "key.preflight",
        "on the intro: R reroll, P push, D discuss",
        "简介页：R 重出，P 推进，D 讨论",
    ),
    (
        "key.why",
        "type why you chose the focused option",
        "为当前选中的选项写下理由",
    ),
    (
        "key.quick",
        "on the intro: the quick templates",
        "简介页：快速模板",
    ),
    ("s.why", "why", "理由"),
    (
        "s.whyChooseFirst",
        "Choose this option first, then W to say why.",
        "请先选择此选项，再按 W 写下理由。",
    ),
    (
        "s.noQuick",
        "No quick templates here (or answers are already banked).",
        "这里没有快速模板（或已有锁定的回答）。",
    ),
    ("s.quickTitle", "Quick templates", "快速模板"),
    (
        "s.quickHint",
        "a–f or ↑↓ choose · Enter submit this template (asks first) · Esc back",
        "a–f 或 ↑↓ 选择 · Enter 提交此模板（先确认） · Esc 返回",
    ),
    (
        "s.quickConfirm",
        "Submit this template's answers and end the survey?",
        "提交此模板的答案并结束问卷？",
    ),
    // review
    ("r.pass", "Pass", "通过"),
    ("r.fail", "Fail", "不通过"),
    ("r.pending", "Pending", "待定"),
    ("r.yes", "Yes", "是"),
    ("r.no", "No", "否"),
    ("r.note", "note", "备注"),
    ("r.answer", "answer", "回答"),
    ("r.blank", "—", "—"),
    ("r.ungrouped", "Items", "条目"),
    (
        "r.hint",
        "j/k move · 1–3 verdict · ←→ value · x clear · n note · P pass group · Ctrl+S submit · X cancel · ? keys",
        "j/k 移动 · 1–3 结论 · ←→ 取值 · x 清除 · n 备注 · P 本组全部通过 · Ctrl+S 提交 · X 取消 · ? 按键",
    ),
    ("r.filled", "filled", "已填"),
    (
        "r.blankConfirm",
        "Some items have no answer. Send anyway?",
        "部分条目尚未填写。仍然发送？",
    ),
    (
        "r.failConfirm",
        "Some items in this group are marked Fail. Pass them too?",
        "本组有条目标记为不通过。也设为通过吗？",
    ),
    (
        "r.bulkDone",
        "items set to Pass — Ctrl+Z undoes",
        "个条目设为通过 — Ctrl+Z 撤销",
    ),
    ("r.bulkCancel", "c cancel", "c 取消"),
    ("r.passRest", "r pass the rest", "r 只通过其余"),
    ("r.passAll", "a pass all", "a 全部通过"),
    ("r.undone", "Undone.", "已撤销。"),
    (
        "r.cancelConfirm",
        "Cancel this review? The agent receives no verdicts at all.",
        "取消此验收？智能体将收不到任何结论。",
    ),
    (
        "r.offline",
        "This review is answered offline. Export it, fill it in, then import it:",
        "此验收离线作答。导出、填写后再导入：",
    ),
    (
        "key.verdict",
        "1 2 3: Pass / Fail / Pending; Yes / No; the n-th option; the scale value",
        "1 2 3：通过/不通过/待定；是/否；第 n 个选项；评分值",
    ),
    (
        "key.arrows",
        "← →: previous / next value (scale, single choice)",
        "← →：上一个/下一个值（评分、单选）",
    ),
    ("key.clear", "x: clear the verdict", "x：清除结论"),
    (
        "key.note",
        "n: edit the note (the answer of a text item)",
        "n：编辑备注（文本条目的回答）",
    ),
    (
        "key.bulk",
        "P: pass every confirm item of this group; Ctrl+Z undoes",
        "P：本组所有确认项通过；Ctrl+Z 撤销",
    ),
    ("key.ctrlS", "Ctrl+S (or S): submit", "Ctrl+S（或 S）：提交"),
    // drift
    ("d.badge", "Requirement drift", "需求偏移"),
    ("d.change", "What would change", "将会改变什么"),
    (
        "d.required",
        "Required change to the baseline:",
        "对基线的必要修改：",
    ),
    ("d.baseline", "Current baseline", "当前基线"),
    ("d.revision", "revision", "版本"),
    ("d.noBaseline", "No baseline recorded yet", "尚未记录基线"),
    ("d.protected", "protected", "受保护"),
    ("d.directions", "Choose a direction", "选择一个方向"),
    ("d.actions", "Actions", "操作"),
    ("d.approve", "Approve this change", "批准此变更"),
    ("d.keep", "Keep the current baseline", "保持当前基线"),
    ("d.useOption", "Use this direction", "采用此方向"),
    ("d.other", "Another direction…", "其他方向…"),
    ("d.notNow", "Not now", "暂不处理"),
    (
        "d.notNowHint",
        "the agent will be told not to make the change",
        "智能体会被告知不要做此变更",
    ),
    ("d.note", "Note (optional)", "备注（可选）"),
    ("d.otherLabel", "Your direction", "你的方向"),
    ("d.picked", "Picked", "已选"),
    ("d.send", "Enter sends the decision", "Enter 发送决定"),
    (
        "d.pickFirst",
        "Pick an action first: A, K, 1–4 or O.",
        "请先选择操作：A、K、1–4 或 O。",
    ),
    (
        "d.otherRequired",
        "Type the direction (1–{max} characters).",
        "请输入方向（1–{max} 个字符）。",
    ),
    (
        "d.tooLong",
        "Too long: at most {max} characters.",
        "太长：最多 {max} 个字符。",
    ),
    (
        "d.dismissConfirm",
        "Not now? The agent will be told not to make the change.",
        "暂不处理？智能体会被告知不要做此变更。",
    ),
    (
        "d.hint",
        "A approve · K keep · 1–4 option · O another · N note · Enter send · Esc not now · ? keys",
        "A 批准 · K 保持 · 1–4 选项 · O 其他 · N 备注 · Enter 发送 · Esc 暂不 · ? 按键",
    ),
    ("key.dA", "A: approve this change", "A：批准此变更"),
    ("key.dK", "K: keep the current baseline", "K：保持当前基线"),
    ("key.d1", "1–4: use that direction", "1–4：采用该方向"),
    (
        "key.dO",
        "O: another direction (typed)",
        "O：其他方向（输入）",
    ),
    ("key.dN", "N: edit the note", "N：编辑备注"),
    (
        "key.dEnter",
        "Enter: send the picked action",
        "Enter：发送所选操作",
    ),
    (
        "key.dEsc",
        "Esc: not now (with confirmation)",
        "Esc：暂不处理（需确认）",
    ),
    (
        "key.dBack",
        "Q: back to the inbox without deciding",
        "Q：不做决定，返回列表",
    ),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_key_has_both_languages_and_is_unique() {
        let mut seen = std::collections::HashSet::new();
        for (k, en, zh) in TABLE {
            assert!(seen.insert(*k), "duplicate key {k}");
            assert!(!en.is_empty() && !zh.is_empty(), "{k}");
        }
        assert_eq!(Lang::Zh.t("sent"), "已发送");
        assert_eq!(Lang::En.t("d.approve"), "Approve this change");
    }

    #[test]
    fn the_ask_language_follows_the_web_rule() {
        let v = serde_json::json!({"kind": "questions", "spec": {"questions": [{"question": "选哪个？"}]}});
        assert_eq!(Lang::of_ask(&v), Lang::Zh);
        let v = serde_json::json!({"kind": "review", "review": {"lang": "zh-CN"}});
        assert_eq!(Lang::of_ask(&v), Lang::Zh);
        let v = serde_json::json!({"kind": "drift", "drift": {"description": "Add a mobile app"}});
        assert_eq!(Lang::of_ask(&v), Lang::En);
    }
}

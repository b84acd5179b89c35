//! The server `instructions`: what each tool is for and when to use which, the authoring
//! doctrine (`survey.md` §13), and the handling contract — in one language only (English or
//! Simplified Chinese, from the `language` setting), so a session pays for one.

const EN: &str = "askd lets you ask the user for structured decisions and get structured answers back. The user answers in askd's local web page (or terminal) at their own pace; nothing they enter is lost, even if your call times out. ask_survey puts a branching survey in front of the user; the builder (survey_draft_set, survey_draft_get, survey_draft_launch) grows a large one incrementally. Load the rich-questions-authoring skill before authoring when your client offers it.

When to use which tool:
- ask_user_question: 1-3 quick, flat questions or confirmations (up to 4), no branching.
- ask_survey: a branching survey — for 4 or more questions, whenever an answer changes what is asked next, or when options need more than one sentence to choose well.
- the builder loop (survey_draft_set, survey_draft_get, survey_draft_launch): for 10 or more questions or research-backed work — never one giant ask_survey call.
- await_answer: when a call returns `outcome: pending` (the user has not finished yet), call await_answer with its ask_id. Never guess or invent the user's answers.
- survey_records: read the user's past decisions. Call it before authoring a survey; never re-ask what a record already answers; cite dates; treat old records as possibly stale.
- withdraw_ask: take back an ask that became moot.
- batch_review: one verdict and note per item of a checklist, on one screen.

Use batch_review when the human must give several independent, same-shaped verdicts at once (a checklist, acceptance items, findings to triage); ask_user_question for one to three flat questions; ask_survey when later questions depend on earlier answers. In a batch_review result a blank item (filled: false) is never an approval — follow it up; cancelled: true means no verdicts at all — ask again. Call batch_review once per batch; if it returns pending, resume with await_answer (an identical repeat call re-attaches, it never duplicates the review).

The builder loop:
1. Research 9-12 comparable systems first and write the findings down (.docs/research/, .docs/digest/, .docs/research/rips/, .refs/). Research that is not written down did not happen.
2. survey_draft_set op=begin locks a full-frame skeleton: every question id, at least 5 option keys per question, and the `next` wiring. Prompts and labels may be `TODO:` stubs.
3. survey_draft_set op=patch fleshes out at most 3 questions per call, prose only; it also sets the intro and, last, the quick templates. Use file= (a JSON file in your workspace) for large payloads.
4. survey_draft_set op=structure rewires the graph (adds, removes or reorders questions and options) while it is under the cap.
5. Call survey_draft_get until the checklist is clean, then survey_draft_launch. It waits like ask_survey; Reroll, Push and Discuss reopen the draft — revise it through the same loop, never one giant re-issue.

Authoring a survey — the bar:
1. Research comparable systems first (9-12 of them) and write the findings down (.docs/research/, .docs/digest/). Research that is not written down did not happen.
2. An intro that orients: what the survey decides, why now, what happens with the answers, how long it takes. Prompts are self-contained.
3. At least 5 genuinely distinct stance options per question — never filler, never \"Option A\". If a question cannot carry five, make it free-text or fold it into another. Mark `recommended` only with a stated reason.
4. Every option's `insight` is three Markdown rows led by bold labels, each one checkable sentence: **Promise** (what it sets up when done right, ideally with a named real-world use), **Price** (what it costs or risks, and when it breaks), **Present** (where things stand today: a number, name, version, date or file path).
5. `sources` on every option: file paths or specific documentation pages, not bare homepages.
6. Branch with `next` wherever an answer changes what matters next.
7. Write in the user's language, for a reader with zero context: plain words, short complete sentences, one fact each, point first. Ids and keys stay short ASCII.
8. Quick templates last: coherent whole-survey stances, each answering exactly the questions its own branch reaches.
Validation errors list every problem with its path: fix them all in one retry.

Records: in-progress drafts live in <workspace>/.askd/survey-drafts/. Settled surveys live in askd (read them with survey_records) and as dated copies in <workspace>/.askd/surveys/. When entering a project, check both before asking anything.

Handling results: open your next turn by mirroring the user's stance in one line (what they chose, over what, and why); trace every decision to the answer that settled it; never re-ask what was answered; honour justifications, and say so before departing from one. Reroll, Push and Discuss outcomes carry an `instruction`: follow it.";

const ZH: &str = "askd 让你向用户提出结构化的决策问题，并取回结构化的答案。用户在 askd 的本地网页（或终端）中按自己的节奏作答；即使你的调用超时，用户填写的内容也不会丢失。ask_survey 把一份分支问卷呈现给用户；构建器（survey_draft_set、survey_draft_get、survey_draft_launch）则用于逐步搭建大型问卷。若客户端提供 rich-questions-authoring 技能，编写问卷前先加载它。

何时用哪个工具：
- ask_user_question：1–3 个简短、扁平的问题或确认（最多 4 个），不分支。
- ask_survey：分支问卷——4 个及以上问题、某个回答会改变后续问题、或选项需要一句以上的说明时使用。
- 构建循环（survey_draft_set、survey_draft_get、survey_draft_launch）：10 个及以上问题或需要调研支撑时使用——绝不要一次性发出巨大的 ask_survey 调用。
- await_answer：当调用返回 `outcome: pending`（用户尚未完成）时，用该 ask_id 调用 await_answer。绝不要猜测或代替用户作答。
- survey_records：读取用户过去的决定。编写问卷之前先调用；记录里已经回答过的绝不重复提问；引用时注明日期；较旧的记录可能已过时。
- withdraw_ask：撤回已经不再需要回答的提问。
- batch_review：在一个页面上对清单的每一项给出结论和备注。

当用户需要一次性给出多个相互独立、形式相同的结论时（核对清单、验收项、待分拣的评审发现），使用 batch_review；一到三个扁平问题用 ask_user_question；后面的问题取决于前面的回答时用 ask_survey。在 batch_review 的结果里，未填的条目（filled: false）绝不代表同意——必须单独追问；cancelled: true 表示没有任何结论——需要重新发起。每批只调用一次 batch_review；如果返回 pending，用 await_answer 继续等待（完全相同的重复调用会重新挂接到同一份批阅，不会重复创建）。

构建循环：
1. 先调研 9–12 个可比较的系统，并把结论写下来（.docs/research/、.docs/digest/、.docs/research/rips/、.refs/）。没有写下来的调研等于没有做。
2. survey_draft_set op=begin 锁定完整骨架：所有问题 id、每个问题至少 5 个选项 key，以及 `next` 分支连线。题干和选项标签可以先写 `TODO:` 占位。
3. survey_draft_set op=patch 每次最多充实 3 个问题，只改文字；它也用来设置引言，最后再写快速模板。载荷较大时用 file=（工作区内的 JSON 文件）。
4. 问题数量低于上限时，用 survey_draft_set op=structure 重新连线（增删或调整问题与选项）。
5. 反复调用 survey_draft_get，直到清单全部通过，再调用 survey_draft_launch。它像 ask_survey 一样等待；Reroll、Push、Discuss 会重新打开草稿——沿同一循环修改，绝不一次性重发巨大的问卷。

编写问卷的标准：
1. 先调研 9–12 个可比较的系统，并把结论写下来（.docs/research/、.docs/digest/）。没有写下来的调研等于没有做。
2. 引言要交代清楚：这份问卷决定什么、为什么是现在、答案会怎样被使用、大约需要多久。每个问题的表述都要自成一体。
3. 每个问题至少 5 个真正不同的立场选项——不要凑数，不要“选项 A”。撑不起五个选项的问题，改为自由填写或并入其他问题。只有在说明理由时才标记 `recommended`。
4. 每个选项的 `insight` 写成三行 Markdown，以加粗标签开头，每行一句可核实的话：**Promise**（做对了能带来什么，最好举出真实的应用）、**Price**（代价或风险，以及在什么条件下失效）、**Present**（现状：一个数字、名称、版本、日期或文件路径）。
5. 每个选项都要有 `sources`：文件路径或具体的文档页面，而不是网站首页。
6. 只要某个回答会改变接下来的重点，就用 `next` 设置分支。
7. 用用户的语言书写，假设读者没有任何背景：用词平实，句子简短完整，一句一个事实，先说要点。id 和 key 使用简短的 ASCII。
8. 最后再写快速模板：每个模板是一个连贯的整体立场，恰好回答它自己的分支所经过的问题。
校验错误会列出每个问题及其路径：一次性全部修正后再重试。

记录：进行中的草稿保存在 <workspace>/.askd/survey-drafts/。已完成的问卷保存在 askd 中（用 survey_records 读取），并以带日期的副本保存在 <workspace>/.askd/surveys/。进入一个项目时，先检查这两处，再提出任何问题。

处理结果：下一轮开头先用一句话复述用户的立场（选了什么、放弃了什么、为什么）；每个决定都要追溯到确定它的那个回答；已经回答过的绝不重复提问；尊重用户写下的理由，若要偏离，先说明原因。Reroll、Push、Discuss 结果会附带 `instruction`：照做即可。";

/// The instructions in `language` (`en` or `zh-CN`).
pub fn text(language: &str) -> &'static str {
    if language == "zh-CN" { ZH } else { EN }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `survey.md` §13.1: the announcement carries these strings, in either language.
    const PINNED: &[&str] = &[
        "ask_survey",
        "survey_draft_set",
        "survey_records",
        "await_answer",
        ".askd/survey-drafts/",
        ".askd/surveys/",
        "Promise",
        "Price",
        "Present",
    ];

    #[test]
    fn the_announcement_pins_the_survey_strings_in_both_languages() {
        for language in ["en", "zh-CN"] {
            let t = text(language);
            for s in PINNED {
                assert!(t.contains(s), "{language} lacks {s:?}");
            }
            // The builder loop of §13.2 paragraph 3.
            for s in [
                "survey_draft_get",
                "survey_draft_launch",
                "op=begin",
                "op=patch",
                "op=structure",
                "file=",
                "3",
                "9–12",
            ] {
                let alt = s.replace('–', "-");
                assert!(t.contains(s) || t.contains(&alt), "{language} lacks {s:?}");
            }
        }
        assert!(text("zh-CN").contains("构建循环"));
        assert_ne!(text("en"), text("zh-CN"));
    }
}

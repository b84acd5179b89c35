//! The server `instructions`: what each tool is for and when to use which, the authoring
//! doctrine (`survey.md` §13), and the handling contract — in one language only (English or
//! Simplified Chinese, from the `language` setting), so a session pays for one.

const EN: &str = "askd lets you ask the user for structured decisions and get structured answers back. The user answers in askd's local web page (or terminal) at their own pace; nothing they enter is lost, even if your call times out.

When to use which tool:
- ask_user_question: 1-3 quick, flat questions or confirmations (up to 4), no branching.
- ask_survey: a branching survey — for 4 or more questions, whenever an answer changes what is asked next, or when options need more than one sentence to choose well. For 10+ questions, split the work into consecutive surveys rather than one giant call.
- await_answer: when a call returns `outcome: pending` (the user has not finished yet), call await_answer with its ask_id. Never guess or invent the user's answers.
- survey_records: read the user's past decisions. Call it before authoring a survey; never re-ask what a record already answers; cite dates; treat old records as possibly stale.
- withdraw_ask: take back an ask that became moot.
- batch_review: one verdict and note per item of a checklist, on one screen.

Use batch_review when the human must give several independent, same-shaped verdicts at once (a checklist, acceptance items, findings to triage); ask_user_question for one to three flat questions; ask_survey when later questions depend on earlier answers. In a batch_review result a blank item (filled: false) is never an approval — follow it up; cancelled: true means no verdicts at all — ask again. Call batch_review once per batch; if it returns pending, resume with await_answer (an identical repeat call re-attaches, it never duplicates the review).

Authoring a survey — the bar:
1. Research comparable systems first (9-12 of them) and write the findings down (.docs/research/, .docs/digest/). Research that is not written down did not happen.
2. An intro that orients: what the survey decides, why now, what happens with the answers, how long it takes. Prompts are self-contained.
3. At least 5 genuinely distinct stance options per question — never filler, never \"Option A\". If a question cannot carry five, make it free-text or fold it into another. Mark `recommended` only with a stated reason.
4. Every option's `insight` is three Markdown rows led by bold labels, each one checkable sentence: **Promise** (what it sets up when done right, ideally with a named real-world use), **Price** (what it costs or risks, and when it breaks), **Present** (where things stand today: a number, name, version, date or file path).
5. `sources` on every option: file paths or specific documentation pages, not bare homepages.
6. Branch with `next` wherever an answer changes what matters next.
7. Write in the user's language, for a reader with zero context: plain words, short complete sentences, one fact each, point first. Ids and keys stay short ASCII.
8. Quick templates last: coherent whole-survey stances, each answering exactly the questions its own branch reaches.
Validation errors list every problem with its path: fix them all in one retry. Settled surveys are also copied to <workspace>/.askd/surveys/.

Handling results: open your next turn by mirroring the user's stance in one line (what they chose, over what, and why); trace every decision to the answer that settled it; never re-ask what was answered; honour justifications, and say so before departing from one. Reroll, Push and Discuss outcomes carry an `instruction`: follow it.";

const ZH: &str = "askd 让你向用户提出结构化的决策问题，并取回结构化的答案。用户在 askd 的本地网页（或终端）中按自己的节奏作答；即使你的调用超时，用户填写的内容也不会丢失。

何时用哪个工具：
- ask_user_question：1–3 个简短、扁平的问题或确认（最多 4 个），不分支。
- ask_survey：分支问卷——4 个及以上问题、某个回答会改变后续问题、或选项需要一句以上的说明时使用。10 个以上的问题请拆成连续的几份问卷，不要一次性发出巨大的调用。
- await_answer：当调用返回 `outcome: pending`（用户尚未完成）时，用该 ask_id 调用 await_answer。绝不要猜测或代替用户作答。
- survey_records：读取用户过去的决定。编写问卷之前先调用；记录里已经回答过的绝不重复提问；引用时注明日期；较旧的记录可能已过时。
- withdraw_ask：撤回已经不再需要回答的提问。
- batch_review：在一个页面上对清单的每一项给出结论和备注。

当用户需要一次性给出多个相互独立、形式相同的结论时（核对清单、验收项、待分拣的评审发现），使用 batch_review；一到三个扁平问题用 ask_user_question；后面的问题取决于前面的回答时用 ask_survey。在 batch_review 的结果里，未填的条目（filled: false）绝不代表同意——必须单独追问；cancelled: true 表示没有任何结论——需要重新发起。每批只调用一次 batch_review；如果返回 pending，用 await_answer 继续等待（完全相同的重复调用会重新挂接到同一份批阅，不会重复创建）。

编写问卷的标准：
1. 先调研 9–12 个可比较的系统，并把结论写下来（.docs/research/、.docs/digest/）。没有写下来的调研等于没有做。
2. 引言要交代清楚：这份问卷决定什么、为什么是现在、答案会怎样被使用、大约需要多久。每个问题的表述都要自成一体。
3. 每个问题至少 5 个真正不同的立场选项——不要凑数，不要“选项 A”。撑不起五个选项的问题，改为自由填写或并入其他问题。只有在说明理由时才标记 `recommended`。
4. 每个选项的 `insight` 写成三行 Markdown，以加粗标签开头，每行一句可核实的话：**Promise**（做对了能带来什么，最好举出真实的应用）、**Price**（代价或风险，以及在什么条件下失效）、**Present**（现状：一个数字、名称、版本、日期或文件路径）。
5. 每个选项都要有 `sources`：文件路径或具体的文档页面，而不是网站首页。
6. 只要某个回答会改变接下来的重点，就用 `next` 设置分支。
7. 用用户的语言书写，假设读者没有任何背景：用词平实，句子简短完整，一句一个事实，先说要点。id 和 key 使用简短的 ASCII。
8. 最后再写快速模板：每个模板是一个连贯的整体立场，恰好回答它自己的分支所经过的问题。
校验错误会列出每个问题及其路径：一次性全部修正后再重试。已完成的问卷也会复制到 <workspace>/.askd/surveys/。

处理结果：下一轮开头先用一句话复述用户的立场（选了什么、放弃了什么、为什么）；每个决定都要追溯到确定它的那个回答；已经回答过的绝不重复提问；尊重用户写下的理由，若要偏离，先说明原因。Reroll、Push、Discuss 结果会附带 `instruction`：照做即可。";

/// The instructions in `language` (`en` or `zh-CN`).
pub fn text(language: &str) -> &'static str {
    if language == "zh-CN" { ZH } else { EN }
}

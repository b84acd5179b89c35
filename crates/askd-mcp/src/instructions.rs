//! The server `instructions`: what each tool is for and when to use which, the essentials of
//! the authoring bar (`survey.md` §13.2; the full doctrine is the `rich-questions-authoring`
//! prompt and resource, [`skill`]), and the handling contract — in one language only
//! (English or Simplified Chinese, from the `language` setting), so a session pays for one.

const EN: &str = "askd asks the human user structured questions and returns their answers (in askd's web page, terminal or your client's form). Call it whenever a decision belongs to the user, instead of guessing: ask_user_question for 1-4 quick questions.

On `outcome: pending` call await_answer with the ask_id (nothing is lost when a call times out); never guess the answers.

Which tool: ask_user_question for 1-3 quick, flat questions (up to 4); ask_survey for a branching survey (4+ questions, or answers that change what comes next); the builder (survey_draft_set, survey_draft_get, survey_draft_launch) for 10+ questions or research, never one giant ask_survey; batch_review for several same-shaped verdicts. Before authoring a survey, load the rich-questions-authoring prompt (or resource askd://skills/rich-questions-authoring): it holds the full doctrine.

The builder loop: research 9-12 comparable systems and write the findings down (.docs/research/, .docs/digest/, .docs/research/rips/, .refs/). op=begin locks the skeleton; op=patch fills at most 3 questions per call (file= for large payloads); op=structure rewires under the cap; survey_draft_get until clean; survey_draft_launch.

The bar: an orienting intro, self-contained prompts, 5+ distinct options, insights as rows **Promise** / **Price** / **Present**, sources on every option, quick templates last; plain words in the user's language.

Records: drafts in <workspace>/.askd/survey-drafts/; settled surveys via survey_records and as dated copies in <workspace>/.askd/surveys/. Check both first; never re-ask what they answer.

Results: mirror the user's stance in one line; trace each decision to its answer.";

const ZH: &str = "askd 让你向用户提出结构化问题并取回答案（用户在 askd 的网页、终端或你的客户端表单中作答）。凡是应由用户做的决定都调用它，不要猜：简短问题用 ask_user_question（1–4 个）。

返回 `outcome: pending` 时，用该 ask_id 调用 await_answer：调用超时也不会丢失任何内容；绝不猜测答案。

何时用哪个工具：ask_user_question 用于 1–3 个简短、扁平的问题（最多 4 个）；ask_survey 用于分支问卷（4 个及以上问题，或回答会改变后续问题）；构建器（survey_draft_set、survey_draft_get、survey_draft_launch）用于 10 个及以上问题或需要调研的工作，绝不一次性发出巨大的 ask_survey 调用；batch_review 用于多个相互独立、形式相同的结论。编写问卷前先加载 rich-questions-authoring 提示词（或资源 askd://skills/rich-questions-authoring）：其中有完整的编写准则。

构建循环：先调研 9–12 个可比较的系统并写下结论（.docs/research/、.docs/digest/、.docs/research/rips/、.refs/）。op=begin 锁定骨架；op=patch 每次最多充实 3 个问题（载荷较大时用 file=）；低于上限时用 op=structure 重新连线；反复 survey_draft_get 直到清单通过；再 survey_draft_launch。

标准：引言交代清楚；题干自成一体；每题至少 5 个真正不同的选项；每个 insight 写成 **Promise** / **Price** / **Present** 三行；每个选项都有 sources；回答会改变重点处用 `next`；最后写快速模板；用用户的语言，为毫无背景的读者书写。

记录：草稿在 <workspace>/.askd/survey-drafts/；已完成的问卷用 survey_records 读取，并以带日期的副本保存在 <workspace>/.askd/surveys/。先检查这两处，注明日期，已回答的绝不重问。

处理结果：先用一句话复述用户的立场，每个决定追溯到对应的回答，尊重用户的理由。";

/// The authoring skill's name (`survey.md` §13.1): an MCP prompt and, at [`SKILL_URI`], an MCP
/// resource.
pub const SKILL_NAME: &str = "rich-questions-authoring";
/// The authoring skill as an MCP resource.
use askd_core::Lang;

pub const SKILL_URI: &str = "askd://skills/rich-questions-authoring";

/// The full authoring doctrine (`survey.md` §13, with what the tool descriptions and the
/// instructions leave out), in `language` (`en` or `zh-CN`), as Markdown.
pub fn skill(language: Lang) -> &'static str {
    if language == Lang::Zh {
        include_str!("skill.zh-CN.md")
    } else {
        include_str!("skill.md")
    }
}

/// The instructions in `language` (`en` or `zh-CN`).
pub fn text(language: Lang) -> &'static str {
    if language == Lang::Zh { ZH } else { EN }
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
        for language in [Lang::En, Lang::Zh] {
            let t = text(language);
            for s in PINNED {
                assert!(t.contains(s), "{} lacks {s:?}", language.as_str());
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
                assert!(
                    t.contains(s) || t.contains(&alt),
                    "{} lacks {s:?}",
                    language.as_str()
                );
            }
        }
        assert!(text(Lang::Zh).contains("构建循环"));
        for language in [Lang::En, Lang::Zh] {
            assert!(text(language).contains("rich-questions-authoring"));
        }
        assert_ne!(text(Lang::En), text(Lang::Zh));
    }
}

//! The context budget (`clients.md` §2.8, issue 13) and the authoring skill that carries what
//! the tool descriptions no longer do (`survey.md` §13.1, platform.md §4), end to end:
//! `askd mcp` spawned as a child process and driven by an rmcp client, as a model's client
//! sees it.

use crate::common_mcp;

use common_mcp::*;
use rmcp::model::{GetPromptRequestParams, ReadResourceRequestParams, ResourceContents};
use serde_json::Value;

/// The bar of `clients.md` §2.8, in characters as a JavaScript client counts them.
const BUDGET: usize = 24_000;

/// JavaScript's `String.length`: UTF-16 code units.
fn js_len(s: &str) -> usize {
    s.encode_utf16().count()
}

/// What a model is shown for askd, counted the way the TypeScript SDK check does
/// (`instructions.length` plus, per tool, `name.length + description.length +
/// JSON.stringify(inputSchema).length`), with each tool's figure for the failure message.
async fn shown(a: &Adapter) -> (usize, Vec<(String, usize)>) {
    let instructions = a
        .service
        .peer_info()
        .and_then(|i| i.instructions.clone())
        .unwrap_or_default();
    let mut total = js_len(&instructions);
    let mut rows = vec![("instructions".to_string(), total)];
    for t in a.service.list_all_tools().await.expect("tools/list") {
        let schema = serde_json::to_string(&Value::Object((*t.input_schema).clone())).unwrap();
        let n = js_len(&t.name)
            + js_len(t.description.as_deref().unwrap_or_default())
            + js_len(&schema);
        total += n;
        rows.push((t.name.to_string(), n));
    }
    (total, rows)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn budget_8_what_a_model_is_shown_fits_24000_characters_in_both_languages_and_every_mode() {
    let home = Home::new();
    for language in ["en", "zh-CN"] {
        for mode in ["auto", "manual", "off"] {
            let a = home
                .adapter(
                    &format!("budget-{language}-{mode}"),
                    &[("ASKD_LANGUAGE", language), ("ASKD_ALIGNMENT_MODE", mode)],
                )
                .await;
            let (total, rows) = shown(&a).await;
            assert!(
                total <= BUDGET,
                "{language}/{mode}: {total} characters shown, over {BUDGET}: {rows:?}"
            );
            if mode == "auto" {
                // The policy is part of the figure in auto mode: the count is of the real text.
                let instructions = a.service.peer_info().unwrap().instructions.clone().unwrap();
                assert!(instructions.contains("### B8."), "{language}: no policy");
                assert_eq!(rows.len(), 15, "{language}: instructions and 14 tools");
            }
        }
    }
}

/// What `survey.md` §13 asks of the skill, by language: the loop's named stages, the bar, the
/// insight triple, the writing standard, the escalation guarantees and the records.
const DOCTRINE: &[&str] = &[
    "RESEARCH",
    "BEGIN",
    "ENRICH",
    "VERIFY",
    "LAUNCH",
    "HONOR",
    "9-12",
    ".docs/research/",
    ".docs/digest/",
    ".docs/research/rips/",
    ".refs/",
    "op=patch",
    "op=structure",
    "file=",
    "structureQuestionCap",
    "**Promise**",
    "**Price**",
    "**Present**",
    "survey_records",
    "await_answer",
    "Reroll",
    "Push",
    "Discuss",
    ".askd/survey-drafts/",
    ".askd/surveys/",
    "filled: false",
];

fn prompt_text(r: &rmcp::model::GetPromptResult) -> String {
    assert_eq!(r.messages.len(), 1);
    serde_json::to_value(&r.messages[0]).unwrap()["content"]["text"]
        .as_str()
        .unwrap()
        .to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn budget_8_the_authoring_doctrine_is_served_as_a_prompt_and_a_resource() {
    let home = Home::new();
    for (language, marker) in [
        (
            "en",
            "the way Stripe's versioned API lets integrations upgrade",
        ),
        ("zh-CN", "就像 Stripe 的版本化 API 让集成方按自己的节奏升级"),
    ] {
        // Listed in every mode, `off` included: it is not an alignment prompt.
        for mode in ["auto", "off"] {
            let a = home
                .adapter(
                    &format!("skill-{language}-{mode}"),
                    &[("ASKD_LANGUAGE", language), ("ASKD_ALIGNMENT_MODE", mode)],
                )
                .await;
            let prompts = a.service.list_all_prompts().await.unwrap();
            assert!(
                prompts.iter().any(|p| p.name == "rich-questions-authoring"),
                "{language}/{mode}: {prompts:?}"
            );
            let caps = &a.service.peer_info().unwrap().capabilities;
            assert!(
                caps.resources.is_some(),
                "{language}/{mode}: no resources capability"
            );
        }
        let a = home
            .adapter(&format!("skill-{language}"), &[("ASKD_LANGUAGE", language)])
            .await;
        let r = a
            .service
            .get_prompt(GetPromptRequestParams::new("rich-questions-authoring"))
            .await
            .unwrap();
        let prompt = prompt_text(&r);
        for needle in DOCTRINE.iter().chain([&marker]) {
            let dashed = needle.replace('-', "–");
            assert!(
                prompt.contains(needle) || prompt.contains(&dashed),
                "{language}: the prompt lacks {needle:?}"
            );
        }
        // The doctrine the instructions point to (its worked example) is not inlined there.
        let instructions = a.service.peer_info().unwrap().instructions.clone().unwrap();
        assert!(instructions.contains("rich-questions-authoring"));
        assert!(
            !instructions.contains(marker),
            "{language}: the doctrine is still inlined"
        );

        let resources = a.service.list_all_resources().await.unwrap();
        let skill = resources
            .iter()
            .find(|r| r.uri == "askd://skills/rich-questions-authoring")
            .unwrap_or_else(|| panic!("{language}: {resources:?}"));
        assert_eq!(skill.name, "rich-questions-authoring");
        assert_eq!(skill.mime_type.as_deref(), Some("text/markdown"));
        let read = a
            .service
            .read_resource(ReadResourceRequestParams::new(
                "askd://skills/rich-questions-authoring",
            ))
            .await
            .unwrap();
        match read.contents.as_slice() {
            [
                ResourceContents::TextResourceContents {
                    uri,
                    mime_type,
                    text,
                    ..
                },
            ] => {
                assert_eq!(uri, "askd://skills/rich-questions-authoring");
                assert_eq!(mime_type.as_deref(), Some("text/markdown"));
                assert_eq!(
                    text, &prompt,
                    "{language}: the resource is the prompt's text"
                );
                assert_eq!(skill.size, Some(text.len() as u64));
            }
            other => panic!("{language}: {other:?}"),
        }
        // An unknown resource is a clear error naming the one there is.
        let e = a
            .service
            .read_resource(ReadResourceRequestParams::new("askd://skills/other"))
            .await
            .unwrap_err()
            .to_string();
        assert!(e.contains("askd://skills/rich-questions-authoring"), "{e}");
    }
}

/// Claude Code cuts server instructions at 4,096 characters and Codex shows about the first
/// 247 as the server's description (`clients.md` §1, issue 28 §3): the whole text fits the
/// first, in both languages and every mode (auto with the built-in policy is the longest), and
/// its opening says what askd is and when to call it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn instructions_fit_4096_characters_and_open_with_what_askd_is_and_when_to_call_it() {
    let home = Home::new();
    for language in ["en", "zh-CN"] {
        for mode in ["auto", "manual", "off"] {
            let a = home
                .adapter(
                    &format!("cut-{language}-{mode}"),
                    &[("ASKD_LANGUAGE", language), ("ASKD_ALIGNMENT_MODE", mode)],
                )
                .await;
            let instructions = a.service.peer_info().unwrap().instructions.clone().unwrap();
            let n = js_len(&instructions);
            assert!(n <= 4096, "{language}/{mode}: {n} characters");
            if mode == "auto" {
                // The last rule of the policy arrives whole.
                assert!(
                    instructions.contains("### B8."),
                    "{language}: {instructions}"
                );
                assert!(instructions.contains("### A11."), "{language}");
            }
            let opening: String = instructions.chars().take(247).collect();
            assert!(opening.starts_with("askd "), "{language}: {opening}");
            assert!(
                opening.contains("ask_user_question"),
                "{language}: {opening}"
            );
            let when = if language == "en" {
                "Call it whenever a decision belongs to the user"
            } else {
                "凡是应由用户做的决定都调用它"
            };
            assert!(opening.contains(when), "{language}: {opening}");
            // The first thing after the opening: how to resume a pending ask.
            assert!(
                instructions.find("await_answer").unwrap() < 400,
                "{language}"
            );
        }
    }
}

/// The baseline and drift rules (B1–B7) moved from the instructions into the two tools they
/// belong to (issue 28 §3): each tool's description carries its rules, in auto and manual mode.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_baseline_and_drift_rules_are_in_their_tools_descriptions() {
    let home = Home::new();
    for mode in ["auto", "manual"] {
        let a = home
            .adapter(&format!("rules-{mode}"), &[("ASKD_ALIGNMENT_MODE", mode)])
            .await;
        let tools = a.service.list_all_tools().await.unwrap();
        let description = |name: &str| {
            tools
                .iter()
                .find(|t| t.name == name)
                .and_then(|t| t.description.as_deref())
                .unwrap_or_else(|| panic!("{mode}: no {name}"))
                .to_string()
        };
        let baseline = description("establish_baseline");
        for rule in [
            // B1: what the baseline holds.
            "goal, explicit constraints, must-preserve behaviour, allowed scope, settled decisions",
            // B2: when to record it.
            "before the first substantive change when the request states a constraint",
            "trivial requests: never",
            // B6: after a drift decision.
            "before the next substantive step",
            // B7: protected constraints.
            "Never drop or weaken an explicit constraint",
        ] {
            assert!(
                baseline.contains(rule),
                "{mode}: establish_baseline lacks {rule:?}"
            );
        }
        let drift = description("report_drift");
        for rule in [
            // B4: the reasons.
            "scope-expansion",
            "constraint-conflict",
            "behaviour-change",
            "architecture-shift",
            "invalidated-assumption",
            "user-direction-change",
            // B5: before acting, a direction change first, 2-4 options.
            "BEFORE taking it",
            "report before any clarifying question",
            "A genuine choice gets 2-4 options",
            // B3: stay quiet.
            "Never on a schedule",
            // B6, B7.
            "baseline kept or no decision: do not make the change",
            "never re-ask a settled decision",
        ] {
            assert!(drift.contains(rule), "{mode}: report_drift lacks {rule:?}");
        }
    }
}

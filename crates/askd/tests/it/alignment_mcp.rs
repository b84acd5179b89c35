//! Requirements alignment end to end (`alignment.md` §8): scripted transcripts of MCP calls
//! through `askd mcp`, with the human answering through the daemon's HTTP API, asserting
//! what askd records (the folded status) and returns (the `alignment` member, the tail text,
//! the instructions, the tool list). Every test has its own `ASKD_HOME` and daemon.

use crate::common_mcp;

use std::time::{Duration, Instant};

use common_mcp::*;
use serde_json::{Value, json};

/// `ask_user_question` with one question, answered with `pick` by the scripted human;
/// returns the whole tool result.
async fn ask_answered(
    home: &Home,
    a: &Adapter,
    question: &str,
    labels: &[&str],
    pick: &str,
) -> Value {
    let known: Vec<String> = home
        .api()
        .asks()
        .await
        .iter()
        .filter_map(|x| x["id"].as_str().map(str::to_string))
        .collect();
    let options: Vec<Value> = labels.iter().map(|l| json!({"label": l})).collect();
    let call = a
        .start_call(
            "ask_user_question",
            json!({"questions": [{"id": "q", "question": question, "options": options}]}),
        )
        .await;
    let api = home.api();
    let ask = api.new_ask(&known).await;
    api.submit(
        ask["id"].as_str().unwrap(),
        json!({"answers": [{"id": "q", "selected": [pick]}]}),
    )
    .await;
    let r = finish(call).await;
    assert_ne!(r["isError"], true, "{r}");
    r
}

fn guidance(v: &Value) -> Vec<String> {
    v["guidance"]
        .as_array()
        .unwrap_or_else(|| panic!("no guidance in {v}"))
        .iter()
        .map(|l| l.as_str().unwrap().to_string())
        .collect()
}

async fn status(a: &Adapter, args: Value) -> Value {
    let r = a.call("alignment_status", args).await;
    assert_ne!(r["isError"], true, "{r}");
    r["structuredContent"].clone()
}

fn error_code(r: &Value) -> (String, Value) {
    assert_eq!(r["isError"], true, "{r}");
    let e = &r["structuredContent"]["error"];
    (
        e["code"].as_str().unwrap().to_string(),
        e["errors"][0]["path"].clone(),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn greenfield_round_carries_the_guard_and_status_repeats_it() {
    let home = Home::new();
    let a = home.adapter("align-test", &[]).await;
    // Scenario 1: the instructions carry the policy (mode auto by default).
    let instructions = a.service.peer_info().unwrap().instructions.clone().unwrap();
    for needle in [
        "## Requirements alignment",
        "Greenfield Alignment Gate",
        "product goal",
        "MVP scope",
        "primary interaction",
        "establish_baseline",
        "report_drift",
    ] {
        assert!(instructions.contains(needle), "{needle} missing");
    }
    // The drift reasons are report_drift's rules (issue 28 §3): its description carries them.
    let tools = a.service.list_all_tools().await.unwrap();
    let drift = tools.iter().find(|t| t.name == "report_drift").unwrap();
    for needle in ["scope-expansion", "user-direction-change"] {
        assert!(
            drift.description.as_deref().unwrap().contains(needle),
            "{needle} missing"
        );
    }
    // Scenario 2: a first status records the session; only T1.
    let st = status(&a, json!({})).await;
    let session = st["session"]["id"].as_str().unwrap().to_string();
    assert_eq!(st["rounds"], 0);
    assert_eq!(st["posture"], "no-baseline");
    assert_eq!(
        st["mode"],
        json!({"effective": "auto", "source": "config", "session_override": null, "configured": "auto", "set_by": null})
    );
    assert_eq!(guidance(&st), [format!("askd session: {session}")]);

    let r = ask_answered(
        &home,
        &a,
        "Where should the first version run?",
        &["Local web app (Recommended)", "Desktop app", "Mobile app"],
        "Local web app (Recommended)",
    )
    .await;
    let al = &r["structuredContent"]["alignment"];
    assert_eq!(al["session"], session.as_str());
    assert_eq!(al["mode"], "auto");
    assert_eq!(al["rounds"], 1);
    assert_eq!(al["posture"], "no-baseline");
    assert_eq!(al["baseline_revision"], 0);
    assert_eq!(al["repeat_of"], Value::Null);
    let g = guidance(al);
    assert!(
        g[1].starts_with("Alignment memory: 1 question round(s) already answered"),
        "{g:?}"
    );
    assert!(g[1].contains("do not ask them again"));
    assert_eq!(
        g[2],
        "Settled: Where should the first version run? → Local web app (Recommended)"
    );
    // The tail is also the second text block.
    assert_eq!(r["content"][1]["text"].as_str().unwrap(), g.join("\n"));

    let st = status(&a, json!({})).await;
    assert_eq!(st["rounds"], 1);
    assert_eq!(
        st["settled_decisions"][0]["question"],
        "Where should the first version run?"
    );
    assert_eq!(
        st["settled_decisions"][0]["chosen"],
        json!(["Local web app (Recommended)"])
    );
    assert_eq!(st["settled_decisions"][0]["tool"], "ask_user_question");
    assert_eq!(guidance(&st), g, "status repeats the guard");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn realign_counts_rounds_and_marks_repeats() {
    // Scenario 7.
    let home = Home::new();
    let a = home.adapter("align-test", &[]).await;
    let first = ask_answered(
        &home,
        &a,
        "Where should the first version run?",
        &["Local web app", "Desktop app"],
        "Local web app",
    )
    .await;
    let first_id = first["structuredContent"]["ask_id"].clone();
    let second = ask_answered(
        &home,
        &a,
        "How should accounts and sync work?",
        &["No accounts", "Cloud accounts"],
        "No accounts",
    )
    .await;
    let al = &second["structuredContent"]["alignment"];
    assert_eq!(al["repeat_of"], Value::Null);
    assert!(guidance(al)[1].contains("2 question round(s)"));
    let third = ask_answered(
        &home,
        &a,
        "Where should the first  version run",
        &["Local web app", "Desktop app"],
        "Local web app",
    )
    .await;
    let al = &third["structuredContent"]["alignment"];
    assert_eq!(
        al["repeat_of"],
        json!({"ask_id": first_id, "question_id": "q", "chosen": ["Local web app"]})
    );
    assert!(guidance(al)[1].contains("3 question round(s)"));
    assert_eq!(
        status(&a, json!({})).await["settled_decisions"]
            .as_array()
            .unwrap()
            .len(),
        3
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sessions_are_isolated_and_modes_are_per_session() {
    // Scenario 8 (Part A).
    let home = Home::new();
    let a = home.adapter("agent-a", &[]).await;
    let b = home.adapter("agent-b", &[]).await;
    ask_answered(
        &home,
        &a,
        "Who is the first version for?",
        &["Me", "My team"],
        "Me",
    )
    .await;
    let r = a
        .call("set_alignment_mode", json!({"mode": "manual"}))
        .await;
    let sc = &r["structuredContent"];
    assert_eq!(sc["changed"], true);
    assert_eq!(sc["mode"]["effective"], "manual");
    assert_eq!(sc["mode"]["source"], "session");
    assert!(
        sc["notice"]
            .as_str()
            .unwrap()
            .contains("now Manual for this session (set by agent)")
    );
    assert_eq!(sc["policy"], Value::Null);
    // Setting the same value again records nothing.
    let again = a
        .call("set_alignment_mode", json!({"mode": "manual"}))
        .await;
    assert_eq!(again["structuredContent"]["changed"], false);
    let check = a
        .call("align", json!({"note": "does sync change anything?"}))
        .await;
    let c = &check["structuredContent"];
    assert_eq!(c["check"]["recorded"], true);
    assert_eq!(c["check"]["count"], 1);
    let report = c["report"].as_str().unwrap();
    for block in [
        "Requirements alignment: session",
        "Mode: Manual (session override)",
        "Question rounds: 1",
        "Settled decisions:",
        "  - Who is the first version for? → Me",
        "Manual checks: 1",
        "Baseline: none recorded",
        "Drift: 0 reported",
        "Posture: No baseline yet",
    ] {
        assert!(report.contains(block), "{block} missing in {report}");
    }
    assert!(
        c["instruction"]
            .as_str()
            .unwrap()
            .ends_with("does sync change anything?")
    );

    let sb = status(&b, json!({})).await;
    assert_eq!(sb["rounds"], 0);
    assert_eq!(sb["mode"]["effective"], "auto");
    assert_eq!(sb["mode"]["source"], "config");
    assert_eq!(sb["baseline"], Value::Null);
    assert_eq!(sb["manual_checks"]["count"], 0);
    let rb = ask_answered(&home, &b, "Which platform?", &["Web", "CLI"], "CLI").await;
    let al = &rb["structuredContent"]["alignment"];
    assert_eq!(al["rounds"], 1, "B counts its own round only");
    assert_eq!(
        al["session"], sb["session"]["id"],
        "B's results name B's session"
    );

    let sa = status(&a, json!({})).await;
    assert_ne!(
        sa["session"]["id"], sb["session"]["id"],
        "two connections, two sessions"
    );
    assert_eq!(
        (sa["rounds"].clone(), sa["manual_checks"]["count"].clone()),
        (json!(1), json!(1))
    );
    assert_eq!(sa["mode"]["session_override"], "manual");
    // In manual mode question results carry no alignment member.
    let ra = ask_answered(&home, &a, "Another question?", &["Yes", "No"], "Yes").await;
    assert!(ra["structuredContent"].get("alignment").is_none(), "{ra}");
    assert_eq!(
        status(&a, json!({})).await["rounds"],
        2,
        "every answered ask counts in every mode"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn off_mode_attaches_nothing_and_refuses_alignment_tools() {
    let home = Home::new();
    let a = home.adapter("align-test", &[]).await;
    let r = a.call("set_alignment_mode", json!({"mode": "off"})).await;
    assert!(
        r["structuredContent"]["notice"]
            .as_str()
            .unwrap()
            .contains("now Off")
    );
    let session = r["structuredContent"]["session"]
        .as_str()
        .unwrap()
        .to_string();
    let (code, _) = error_code(&a.call("alignment_status", json!({})).await);
    assert_eq!(code, "alignment_off");
    let (code, _) = error_code(&a.call("align", json!({})).await);
    assert_eq!(code, "alignment_off");
    // A stale client's report_drift: refused, nothing written, no card.
    let (code, _) = error_code(
        &a.call(
            "report_drift",
            json!({"reason": "scope-expansion", "description": "Grow"}),
        )
        .await,
    );
    assert_eq!(code, "alignment_off");
    assert!(home.api().asks().await.is_empty());
    let q = ask_answered(&home, &a, "Q1?", &["A", "B"], "A").await;
    assert!(q["structuredContent"].get("alignment").is_none());
    assert_eq!(q["content"].as_array().unwrap().len(), 1, "no tail text");
    let back = a
        .call("set_alignment_mode", json!({"mode": "default"}))
        .await;
    let sc = &back["structuredContent"];
    assert_eq!(sc["mode"]["source"], "config");
    assert!(sc["notice"].as_str().unwrap().contains("now Auto"));
    assert_eq!(
        sc["policy"],
        Value::Null,
        "the connection's instructions had the policy"
    );
    let st = status(&a, json!({})).await;
    assert_eq!(st["rounds"], 1, "the round answered while off still counts");
    assert_eq!(st["session"]["id"], session.as_str());

    // Scenario 14's web switches: the human sets the session to manual through the API; the
    // next question result on this connection carries only the one-shot T7 notice.
    let api = home.api();
    api.post(
        &format!("/api/sessions/{session}/alignment/mode"),
        json!({"mode": "manual", "actor": "human"}),
    )
    .await;
    let q = ask_answered(&home, &a, "Q2?", &["A", "B"], "B").await;
    let al = &q["structuredContent"]["alignment"];
    assert_eq!(keys(al), ["session", "mode", "notice"], "{al}");
    assert!(
        al["notice"]
            .as_str()
            .unwrap()
            .contains("now Manual for this session (set by human)")
    );
    assert_eq!(q["content"][1]["text"], al["notice"]);
    let q = ask_answered(&home, &a, "Q3?", &["A", "B"], "B").await;
    assert!(
        q["structuredContent"].get("alignment").is_none(),
        "one-shot"
    );
    // "Use default": back to auto; T7 without policy text (the instructions had it), then the
    // normal tail with no notice.
    api.post(
        &format!("/api/sessions/{session}/alignment/mode"),
        json!({"mode": "default", "actor": "human"}),
    )
    .await;
    let q = ask_answered(&home, &a, "Q4?", &["A", "B"], "A").await;
    let al = &q["structuredContent"]["alignment"];
    let notice = al["notice"].as_str().unwrap();
    assert!(
        notice.contains("now Auto for this session (set by human)"),
        "{notice}"
    );
    assert!(
        !notice.contains("### A1."),
        "no policy text: the instructions carried it"
    );
    assert!(guidance(al)[1].contains("4 question round(s)"));
    let q = ask_answered(&home, &a, "Q5?", &["A", "B"], "A").await;
    assert_eq!(q["structuredContent"]["alignment"]["notice"], Value::Null);
    assert_eq!(status(&a, json!({})).await["mode"]["set_by"], "human");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn invalid_calls_record_nothing() {
    let home = Home::new();
    let a = home.adapter("align-test", &[]).await;
    for (tool, args, field) in [
        ("set_alignment_mode", json!({"mode": "banana"}), "mode"),
        ("set_alignment_mode", json!({}), "mode"),
        (
            "alignment_status",
            json!({"detail": "everything"}),
            "detail",
        ),
        ("alignment_status", json!({"bogus": 1}), "bogus"),
        ("align", json!({"note": "   "}), "note"),
        ("align", json!({"note": "x".repeat(501)}), "note"),
    ] {
        let (code, path) = error_code(&a.call(tool, args).await);
        assert_eq!(
            (code.as_str(), path.as_str()),
            ("invalid_argument", Some(field)),
            "{tool}"
        );
    }
    let (code, _) = error_code(
        &a.call("alignment_status", json!({"session": "no-such-session"}))
            .await,
    );
    assert_eq!(code, "unknown_session");
    // Nor by invalid question tools (§4.1: a rejected call never records a session).
    let r = a.call("ask_user_question", json!({"questions": []})).await;
    assert_eq!(r["isError"], true, "{r}");
    let r = a
        .call(
            "ask_survey",
            json!({"survey": {"entry": "nowhere", "questions": {}}}),
        )
        .await;
    assert_eq!(r["isError"], true, "{r}");
    // No session was recorded by any of them.
    assert_eq!(home.api().get("/api/sessions").await["sessions"], json!([]));
    assert!(home.api().asks().await.is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn state_survives_a_daemon_restart_and_a_resumed_session_keeps_it() {
    let home = Home::new();
    let a = home.adapter("align-test", &[]).await;
    ask_answered(
        &home,
        &a,
        "Where should the first version run?",
        &["Local web app", "CLI"],
        "CLI",
    )
    .await;
    a.call("set_alignment_mode", json!({"mode": "manual"}))
        .await;
    a.call("align", json!({})).await;
    let before = status(&a, json!({})).await;
    let session = before["session"]["id"].as_str().unwrap().to_string();
    // Kill the daemon; a new adapter continuing the session starts a new one.
    kill_daemon(&home).await;
    let c = home
        .adapter("align-resume", &[("ASKD_SESSION", session.as_str())])
        .await;
    let after = status(&c, json!({"detail": "full"})).await;
    // The continuing connection is recorded (session.attached): the only new event.
    let connections: Vec<&str> = after["connections"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["how"].as_str().unwrap())
        .collect();
    assert_eq!(connections, ["started", "attached"]);
    assert_eq!(after["connections"][1]["client"], "align-resume");
    assert_eq!(after["connections"][1]["transport"], "stdio");
    assert_eq!(
        after["session"]["last_seq"].as_u64().unwrap(),
        before["session"]["last_seq"].as_u64().unwrap() + 1
    );
    let strip = |mut v: Value| {
        let s = v["session"].as_object_mut().unwrap();
        s.remove("last_seq");
        s.remove("last_activity");
        for k in ["connections", "baseline_history", "drifts", "refusals"] {
            v.as_object_mut().unwrap().remove(k);
        }
        v
    };
    assert_eq!(
        strip(after.clone()),
        strip(before.clone()),
        "the folded state is identical after the restart"
    );
    assert_eq!(after["rounds"], 1);
    assert_eq!(after["mode"]["session_override"], "manual");
    // The first adapter reconnects and sees the same state; the selector works too.
    assert_eq!(
        strip(status(&a, json!({"session": session})).await),
        strip(before)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_align_prompt_records_a_human_check_and_returns_the_report() {
    let home = Home::new();
    let a = home.adapter("align-test", &[]).await;
    let prompts = a.service.list_all_prompts().await.unwrap();
    assert_eq!(
        prompts.iter().map(|p| p.name.as_str()).collect::<Vec<_>>(),
        ["align", "rich-questions-authoring"]
    );
    let get = |note: Option<&str>| {
        let mut p = rmcp::model::GetPromptRequestParams::new("align");
        if let Some(n) = note {
            p = p.with_arguments(object(json!({"note": n})));
        }
        p
    };
    let r = a
        .service
        .get_prompt(get(Some("does sync change anything?")))
        .await
        .unwrap();
    assert_eq!(r.messages.len(), 1);
    let text = serde_json::to_value(&r.messages[0]).unwrap()["content"]["text"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(text.starts_with("Alignment check."), "{text}");
    assert!(text.contains("\n\nRequirements alignment: session "));
    assert!(
        text.contains("Manual checks: 1 (last "),
        "the check is recorded before it is reported"
    );
    assert!(text.ends_with("does sync change anything?"));
    a.service.get_prompt(get(None)).await.unwrap();
    let st = status(&a, json!({})).await;
    assert_eq!(st["manual_checks"]["count"], 2);
    // The tool counts on from there.
    let t = a.call("align", json!({})).await;
    assert_eq!(t["structuredContent"]["check"]["count"], 3);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn configured_modes_shape_instructions_tools_and_prompts() {
    let home = Home::new();
    // manual: no policy, no question-tool notes, the alignment tools and prompt are listed.
    let m = home
        .adapter("align-manual", &[("ASKD_ALIGNMENT_MODE", "manual")])
        .await;
    let instructions = m.service.peer_info().unwrap().instructions.clone().unwrap();
    assert!(!instructions.contains("Requirements alignment"));
    let tools = m.service.list_all_tools().await.unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
    assert!(
        names.ends_with(&[
            "align",
            "alignment_status",
            "establish_baseline",
            "report_drift",
            "set_alignment_mode"
        ]),
        "{names:?}"
    );
    for name in ["establish_baseline", "report_drift"] {
        let t = tools.iter().find(|t| t.name == name).unwrap();
        assert!(
            t.description
                .as_deref()
                .unwrap()
                .ends_with("Use after an align check or when the human asks."),
            "{name} in manual mode"
        );
    }
    let auq = tools
        .iter()
        .find(|t| t.name == "ask_user_question")
        .unwrap();
    assert!(!auq.description.as_deref().unwrap().contains("Alignment:"));
    assert_eq!(m.service.list_all_prompts().await.unwrap().len(), 2);
    let st = status(&m, json!({})).await;
    assert_eq!(
        st["mode"],
        json!({"effective": "manual", "source": "config", "session_override": null, "configured": "manual", "set_by": null})
    );
    let q = ask_answered(&home, &m, "Q?", &["A", "B"], "A").await;
    assert!(q["structuredContent"].get("alignment").is_none());
    // Switching a manual-configured connection to auto delivers the policy in the result.
    let r = m.call("set_alignment_mode", json!({"mode": "auto"})).await;
    let sc = &r["structuredContent"];
    assert!(
        sc["policy"]
            .as_str()
            .unwrap()
            .contains("### A3. Greenfield Alignment Gate")
    );
    assert!(
        sc["notice"]
            .as_str()
            .unwrap()
            .contains("Apply the following policy from here on:\n\n## Requirements alignment")
    );

    // off: only set_alignment_mode of the alignment tools, no prompt, no policy.
    let o = home
        .adapter("align-off", &[("ASKD_ALIGNMENT_MODE", "off")])
        .await;
    let names: Vec<String> = o
        .service
        .list_all_tools()
        .await
        .unwrap()
        .iter()
        .map(|t| t.name.to_string())
        .collect();
    assert_eq!(names.last().unwrap(), "set_alignment_mode");
    assert!(!names.iter().any(|n| {
        n == "align" || n == "alignment_status" || n == "establish_baseline" || n == "report_drift"
    }));
    // The authoring skill is no alignment prompt: it stays.
    assert_eq!(
        o.service
            .list_all_prompts()
            .await
            .unwrap()
            .iter()
            .map(|p| p.name.as_str())
            .collect::<Vec<_>>(),
        ["rich-questions-authoring"]
    );
    assert!(
        !o.service
            .peer_info()
            .unwrap()
            .instructions
            .clone()
            .unwrap()
            .contains("Requirements alignment")
    );

    // auto with a custom section: inserted verbatim, no built-in heading.
    let c = home
        .adapter(
            "align-custom",
            &[(
                "ASKD_ALIGNMENT_SECTION",
                "Our deployment's own alignment policy.",
            )],
        )
        .await;
    let instructions = c.service.peer_info().unwrap().instructions.clone().unwrap();
    assert!(instructions.ends_with("\n\nOur deployment's own alignment policy."));
    assert!(!instructions.contains("## Requirements alignment"));
    let auq = c
        .service
        .list_all_tools()
        .await
        .unwrap()
        .into_iter()
        .find(|t| t.name == "ask_user_question")
        .unwrap();
    assert!(
        auq.description
            .as_deref()
            .unwrap()
            .contains("never ask a decision that askd has reported as settled")
    );

    // Chinese: the same headings and tokens.
    let z = home
        .adapter("align-zh", &[("ASKD_LANGUAGE", "zh-CN")])
        .await;
    let instructions = z.service.peer_info().unwrap().instructions.clone().unwrap();
    for needle in [
        "需求对齐（Requirements alignment）",
        "### A3.",
        "### B8.",
        "establish_baseline",
        "report_drift",
    ] {
        assert!(instructions.contains(needle), "{needle} missing");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn baseline_is_silent_merged_and_guards_protected_items() {
    let home = Home::new();
    let a = home.adapter("align-test", &[]).await;
    // Scenario 3: a protected-scope bugfix records r1 silently.
    let r = a
        .call(
            "establish_baseline",
            json!({"goal": "Submit no longer throws when form.email is undefined",
                   "explicit_constraints": ["No UI changes", "Public API unchanged"]}),
        )
        .await;
    assert_ne!(r["isError"], true, "{r}");
    let sc = &r["structuredContent"];
    assert_eq!(sc["revision"], 1);
    assert_eq!(sc["unchanged"], false);
    assert_eq!(sc["posture"], "aligned");
    assert_eq!(sc["warnings"], json!([]));
    assert!(
        home.api().asks().await.is_empty(),
        "no ask, nothing in the inbox"
    );
    let st = status(&a, json!({})).await;
    let g = guidance(&st);
    assert!(g.contains(&"Baseline revision 1:".to_string()), "{g:?}");
    assert!(g.contains(&"- Explicit constraints: No UI changes; Public API unchanged".to_string()));
    assert_eq!(st["baseline"]["revision"], 1);
    assert_eq!(st["posture"], "aligned");

    // Merge: only the goal given keeps the lists; a goal change is an unratified warning.
    let r = a
        .call(
            "establish_baseline",
            json!({"goal": "Submit handles a missing email"}),
        )
        .await;
    let sc = &r["structuredContent"];
    assert_eq!(sc["revision"], 2);
    assert_eq!(
        sc["baseline"]["explicit_constraints"],
        json!(["No UI changes", "Public API unchanged"])
    );
    assert_eq!(sc["warnings"], json!(["unratified-goal-change"]));
    // Identical content: unchanged, nothing recorded.
    let r = a
        .call(
            "establish_baseline",
            json!({"goal": "Submit handles a missing email"}),
        )
        .await;
    assert_eq!(r["structuredContent"]["unchanged"], true);
    assert_eq!(r["structuredContent"]["revision"], 2);

    // Scenario 5's refusal: dropping a protected item without a decision.
    let r = a
        .call(
            "establish_baseline",
            json!({"explicit_constraints": ["No UI changes"], "replace": false}),
        )
        .await;
    assert_eq!(r["isError"], true, "{r}");
    let e = &r["structuredContent"]["error"];
    assert_eq!(e["code"], "protected_constraint");
    assert_eq!(e["details"]["dropped"], json!(["Public API unchanged"]));
    assert!(
        r["content"][0]["text"]
            .as_str()
            .unwrap()
            .starts_with("establish_baseline: ")
    );
    assert_eq!(
        status(&a, json!({})).await["baseline"]["revision"],
        2,
        "the refusal changes no baseline"
    );
    let full = status(&a, json!({"detail": "full"})).await;
    assert_eq!(full["baseline_history"].as_array().unwrap().len(), 2);
    assert_eq!(
        full["baseline_history"][1]["warnings"],
        json!(["unratified-goal-change"])
    );
    assert_eq!(
        full["refusals"][0]["dropped"],
        json!(["Public API unchanged"])
    );
    assert_eq!(full["drifts"], json!([]));

    // Invalid arguments: invalid_argument with the field; nothing recorded, not even the session.
    let fresh = home.adapter("align-fresh", &[]).await;
    for (args, field) in [
        (json!({"goal": "  "}), "goal"),
        (
            json!({"explicit_constraints": ["A", " a "]}),
            "explicit_constraints[1]",
        ),
        (json!({"replace": "yes", "goal": "G"}), "replace"),
        (json!({"goal": "G", "colour": "red"}), "colour"),
    ] {
        let r = fresh.call("establish_baseline", args).await;
        let (code, path) = error_code(&r);
        assert_eq!(
            (code.as_str(), path.as_str()),
            ("invalid_argument", Some(field))
        );
        assert_eq!(r["structuredContent"]["error"]["field"], field);
    }
    assert_eq!(
        home.api().get("/api/sessions").await["sessions"]
            .as_array()
            .unwrap()
            .len(),
        1
    );
    let (code, _) = error_code(&fresh.call("establish_baseline", json!({})).await);
    assert_eq!(code, "empty_baseline");
    let (code, path) = error_code(
        &fresh
            .call(
                "establish_baseline",
                json!({"goal": "G", "applies": ["d1"]}),
            )
            .await,
    );
    assert_eq!(code, "not_pending", "{path}");

    // Scenario 1's end: an answered round, then the baseline; the tail carries T2 and T4.
    ask_answered(
        &home,
        &fresh,
        "Where should the first version run?",
        &["Local web app", "CLI"],
        "Local web app",
    )
    .await;
    let r = fresh
        .call(
            "establish_baseline",
            json!({"goal": "A local task app", "user_decisions": ["Local web app"]}),
        )
        .await;
    assert_eq!(r["structuredContent"]["revision"], 1);
    assert_eq!(r["structuredContent"]["posture"], "aligned");
    let tail = r["content"][1]["text"].as_str().unwrap();
    assert!(
        tail.contains("Alignment memory: 1 question round(s)")
            && tail.contains("Baseline revision 1:"),
        "{tail}"
    );
}

// ---- report_drift and the drift card (§5.6, §6, scenarios 5, 6, 10–13, §8.3) ----

/// Ask ids the daemon knows now.
async fn known_asks(home: &Home) -> Vec<String> {
    home.api()
        .asks()
        .await
        .iter()
        .filter_map(|x| x["id"].as_str().map(str::to_string))
        .collect()
}

/// Starts `report_drift`, waits for its card, answers it with `answer` through the API and
/// returns (the tool result, the card's ask id).
async fn drift_answered(home: &Home, a: &Adapter, args: Value, answer: Value) -> (Value, String) {
    let known = known_asks(home).await;
    let call = a.start_call("report_drift", args).await;
    let api = home.api();
    let card = api.new_ask(&known).await;
    assert_eq!(card["kind"], "drift", "{card}");
    let id = card["id"].as_str().unwrap().to_string();
    if answer["action"] == "dismiss" {
        api.post(&format!("/api/asks/{id}/cancel"), json!({})).await;
    } else {
        api.submit(&id, answer).await;
    }
    let r = finish(call).await;
    assert_ne!(r["isError"], true, "{r}");
    (r, id)
}

async fn baseline(a: &Adapter, args: Value) -> Value {
    let r = a.call("establish_baseline", args).await;
    r["structuredContent"].clone()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn scope_drift_kept_then_a_protected_drop_is_refused() {
    // Scenario 5.
    let home = Home::new();
    let a = home.adapter("align-test", &[]).await;
    baseline(
        &a,
        json!({"goal": "Fix the result-page category filter",
               "allowed_scope": ["Result-page filtering UI"],
               "explicit_constraints": ["No backend refactoring"]}),
    )
    .await;
    let (r, card) = drift_answered(
        &home,
        &a,
        json!({"reason": "scope-expansion",
               "description": "The server filters by the wrong field",
               "required_change": "Allow a change to server-side filtering"}),
        json!({"action": "reject"}),
    )
    .await;
    let sc = &r["structuredContent"];
    assert_eq!(sc["outcome"], "decided");
    assert_eq!(sc["decision"], "reject");
    assert_eq!(sc["drift_id"], "d1");
    assert_eq!(sc["ask_id"], card.as_str());
    assert_eq!(sc["posture"], "aligned");
    let instruction = sc["instruction"].as_str().unwrap();
    assert!(
        instruction.contains("Do not make this change"),
        "{instruction}"
    );
    assert!(instruction.ends_with("revision 1."), "{instruction}");
    // The tail rides along as guidance and as the second text block.
    assert!(
        guidance(sc)
            .iter()
            .any(|l| l == "Last drift decision: d1 reject"),
        "{sc}"
    );
    let r = a
        .call(
            "establish_baseline",
            json!({"explicit_constraints": [], "replace": false}),
        )
        .await;
    assert_eq!(r["isError"], true);
    let e = &r["structuredContent"]["error"];
    assert_eq!(e["code"], "protected_constraint");
    assert_eq!(e["details"]["dropped"], json!(["No backend refactoring"]));
    let st = status(&a, json!({"detail": "full"})).await;
    assert_eq!(st["baseline"]["revision"], 1);
    assert_eq!(st["rounds"], 0);
    assert_eq!(st["drift"]["pending_updates"], json!([]));
    assert_eq!(st["drifts"][0]["state"], "decided");
    assert_eq!(st["drifts"][0]["decision"], "reject");
    assert_eq!(
        st["refusals"][0]["dropped"],
        json!(["No backend refactoring"])
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn architecture_shift_approved_then_applied_by_the_next_revision() {
    // Scenario 6.
    let home = Home::new();
    let a = home.adapter("align-test", &[]).await;
    baseline(
        &a,
        json!({"goal": "Single-user local task app", "explicit_constraints": ["No accounts", "No server"]}),
    )
    .await;
    let (r, _) = drift_answered(
        &home,
        &a,
        json!({"reason": "architecture-shift",
               "description": "Working across devices needs sync and identity",
               "required_change": "Multi-device with accounts and cloud sync"}),
        json!({"action": "approve", "note": "Keep an offline mode"}),
    )
    .await;
    let sc = &r["structuredContent"];
    assert_eq!(sc["decision"], "approve");
    assert_eq!(sc["note"], "Keep an offline mode");
    assert_eq!(sc["posture"], "baseline-update-pending");
    let instruction = sc["instruction"].as_str().unwrap();
    assert!(instruction.contains("Multi-device with accounts and cloud sync"));
    assert!(instruction.contains("Keep an offline mode"));
    assert!(instruction.contains("establish_baseline"));
    let st = status(&a, json!({})).await;
    assert_eq!(st["posture"], "baseline-update-pending");
    assert!(
        guidance(&st)
            .iter()
            .any(|l| l.starts_with("Baseline update pending (d1)")
                && l.contains("establish_baseline")),
        "{st}"
    );
    let b = baseline(
        &a,
        json!({"replace": true, "goal": "Multi-device task app with accounts",
               "explicit_constraints": ["Offline mode keeps working"]}),
    )
    .await;
    assert_eq!(b["revision"], 2, "{b}");
    assert_eq!(b["applied"], json!(["d1"]));
    assert_eq!(b["dropped"], json!(["No accounts", "No server"]));
    assert_eq!(b["authorised_by"], json!(["d1"]));
    assert_eq!(b["posture"], "aligned");
    let st = status(&a, json!({"detail": "full"})).await;
    assert_eq!(st["drifts"][0]["applied_in_revision"], 2);
    assert_eq!(st["drift"]["pending_updates"], json!([]));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_drift_with_options_is_redirected_by_option_and_by_typed_text() {
    // Scenario 10, then a typed direction.
    let home = Home::new();
    let a = home.adapter("align-test", &[]).await;
    baseline(&a, json!({"goal": "Single-user local task app"})).await;
    let options = json!([{"label": "Use export files", "description": "CSV and JSON"}, {"label": "Add cloud sync"}]);
    let (r, card) = drift_answered(
        &home,
        &a,
        json!({"reason": "user-direction-change", "description": "The human wants data on two machines", "options": options}),
        json!({"action": "option", "option": 0}),
    )
    .await;
    let sc = &r["structuredContent"];
    assert_eq!(sc["decision"], "revise");
    assert_eq!(sc["choice"], "Use export files");
    assert_eq!(sc["choice_source"], "option");
    assert_eq!(sc["posture"], "baseline-update-pending");
    assert!(
        sc["instruction"]
            .as_str()
            .unwrap()
            .contains("\"Use export files\"")
    );
    assert_eq!(
        home.api().asks().await.len(),
        1,
        "exactly one ask: the card"
    );
    // The card's view shows the decision, the options and the baseline.
    let view = home.api().ask(&card).await;
    assert_eq!(view["drift"]["state"], "decided");
    assert_eq!(view["drift"]["decision"]["option_index"], 0);
    assert_eq!(
        view["drift"]["options"][0]["description_html"],
        "<p>CSV and JSON</p>\n"
    );
    assert_eq!(view["drift"]["baseline"]["revision"], 1);
    let st = status(&a, json!({})).await;
    assert_eq!(st["rounds"], 0, "drift cards are not question rounds");
    assert!(
        guidance(&st)
            .iter()
            .any(|l| l.contains("chose \"Use export files\"")),
        "{st}"
    );
    let b = baseline(
        &a,
        json!({"user_decisions": ["Data moves by export files"]}),
    )
    .await;
    assert_eq!(b["revision"], 2);
    assert_eq!(b["posture"], "aligned");

    let (r, _) = drift_answered(
        &home,
        &a,
        json!({"reason": "invalidated-assumption", "description": "Export files are too large", "options": options}),
        json!({"action": "other", "text": "Use a shared folder", "note": "Dropbox is fine"}),
    )
    .await;
    let sc = &r["structuredContent"];
    assert_eq!(sc["drift_id"], "d2");
    assert_eq!(sc["decision"], "revise");
    assert_eq!(sc["choice"], "Use a shared folder");
    assert_eq!(sc["choice_source"], "typed");
    assert!(
        sc["instruction"]
            .as_str()
            .unwrap()
            .contains("a different direction: \"Use a shared folder\"")
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn invalid_drift_reports_record_nothing() {
    // Scenario 11: nothing at all reaches the store.
    let home = Home::new();
    let a = home.adapter("align-test", &[]).await;
    let base = |extra: Value| {
        let mut v = json!({"reason": "scope-expansion", "description": "Grow the task"});
        for (k, x) in extra.as_object().unwrap() {
            v[k] = x.clone();
        }
        v
    };
    let cases = [
        (
            base(json!({"options": [{"label": "Export"}, {"label": " export "}]})),
            "options[1].label",
        ),
        (base(json!({"options": [{"label": "Export"}]})), "options"),
        (
            base(
                json!({"options": [{"label": "a"}, {"label": "b"}, {"label": "c"}, {"label": "d"}, {"label": "e"}]}),
            ),
            "options",
        ),
        (
            base(json!({"options": [{"label": "  "}, {"label": "b"}]})),
            "options[0].label",
        ),
        (
            base(json!({"options": [{"label": "Approve this change"}, {"label": "b"}]})),
            "options[0].label",
        ),
        (base(json!({"reason": "cloud"})), "reason"),
        (base(json!({"description": "   "})), "description"),
        (
            json!({"resume": "d1", "reason": "scope-expansion"}),
            "reason",
        ),
    ];
    for (args, field) in cases {
        let r = a.call("report_drift", args.clone()).await;
        let (code, path) = error_code(&r);
        assert_eq!(code, "invalid_argument", "{args}: {r}");
        assert_eq!(path, field, "{args}: {r}");
        assert_eq!(r["structuredContent"]["error"]["field"], field, "{r}");
        let first = r["content"][0]["text"].as_str().unwrap();
        assert!(first.starts_with("report_drift: "), "{first}");
        assert!(!first.starts_with("report_drift: report_drift:"), "{first}");
    }
    let api = home.api();
    assert!(api.asks().await.is_empty());
    assert_eq!(
        api.get("/api/sessions").await["sessions"],
        json!([]),
        "no session recorded"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_interrupted_drift_is_decided_later_and_resumed_from_a_new_connection() {
    // Scenarios 12 and 13: cancel, kill the daemon, decide on the page, resume.
    let home = Home::new();
    let a = home.adapter("align-test", &[]).await;
    baseline(
        &a,
        json!({"goal": "Single-user local task app", "explicit_constraints": ["No accounts", "No server"]}),
    )
    .await;
    let session = status(&a, json!({})).await["session"]["id"]
        .as_str()
        .unwrap()
        .to_string();
    let call = a
        .start_call(
            "report_drift",
            json!({"reason": "architecture-shift", "description": "Sync needs a server",
                   "options": [{"label": "Use export files"}, {"label": "Add cloud sync"}]}),
        )
        .await;
    let card = home.api().new_ask(&[]).await;
    let card_id = card["id"].as_str().unwrap().to_string();
    call.cancel(Some("the user aborted the turn".into()))
        .await
        .expect("send notifications/cancelled");
    let st = status(&a, json!({})).await;
    assert_eq!(st["posture"], "drift-pending");
    assert!(
        guidance(&st)
            .iter()
            .any(|l| l.contains("drift d1 (architecture-shift) is undecided")),
        "{st}"
    );
    // Kill the daemon: the card survives as a pending ask.
    kill_daemon(&home).await;
    let c = home
        .adapter("align-resume", &[("ASKD_SESSION", session.as_str())])
        .await;
    let st = status(&c, json!({})).await;
    assert_eq!(
        st["posture"], "drift-pending",
        "the open drift survived the kill"
    );
    let api = home.api();
    assert_eq!(api.ask(&card_id).await["state"], "pending");
    api.submit(
        &card_id,
        json!({"action": "option", "option": 0, "note": "CSV is enough"}),
    )
    .await;
    let st = status(&c, json!({})).await;
    assert_eq!(st["posture"], "baseline-update-pending");
    assert_eq!(st["drift"]["pending_updates"][0]["drift_id"], "d1");
    let g = guidance(&st);
    assert!(
        g.contains(
            &"Last drift decision: d1 revise: \"Use export files\" (note: \"CSV is enough\")"
                .to_string()
        ),
        "{g:?}"
    );
    assert!(
        g.iter().any(|l| l.contains("chose \"Use export files\"")),
        "{g:?}"
    );
    // resume: at once, the same fields, no new ask.
    let before = api.asks().await.len();
    let r = c.call("report_drift", json!({"resume": "d1"})).await;
    let sc = &r["structuredContent"];
    assert_eq!(sc["outcome"], "decided");
    assert_eq!(sc["decision"], "revise");
    assert_eq!(sc["choice"], "Use export files");
    assert_eq!(sc["note"], "CSV is enough");
    assert_eq!(sc["ask_id"], card_id.as_str());
    assert_eq!(api.asks().await.len(), before);
    // await_answer on the card returns the same result.
    let w = c.call("await_answer", json!({"ask_id": card_id})).await;
    let mut left = w["structuredContent"].clone();
    let mut right = sc.clone();
    left.as_object_mut().unwrap().remove("guidance");
    right.as_object_mut().unwrap().remove("guidance");
    assert_eq!(left, right);
    let (code, _) = error_code(&c.call("report_drift", json!({"resume": "d9"})).await);
    assert_eq!(code, "unknown_drift");
    // C's connection is recorded as attached.
    let full = status(&c, json!({"detail": "full"})).await;
    let how: Vec<&str> = full["connections"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x["how"].as_str().unwrap())
        .collect();
    assert_eq!(how, ["started", "attached"]);
    // Restart durability (§8.3): kill the daemon again; the full status is identical.
    kill_daemon(&home).await;
    assert_eq!(status(&c, json!({"detail": "full"})).await, full);
    let b = baseline(
        &c,
        json!({"user_decisions": ["Data moves by export files"]}),
    )
    .await;
    assert_eq!(b["revision"], 2);
    assert_eq!(b["applied"], json!(["d1"]));
    assert_eq!(b["posture"], "aligned");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn identical_reports_reattach_different_ones_supersede_and_cards_close() {
    // §8.3 supersession and repeats, withdrawal, dismissal, the pending queue.
    let home = Home::new();
    let a = home.adapter("align-test", &[]).await;
    baseline(&a, json!({"goal": "Local app"})).await;
    let d1 = json!({"reason": "scope-expansion", "description": "Add reports"});
    let first = a.start_call("report_drift", d1.clone()).await;
    let card1 = home.api().new_ask(&[]).await["id"]
        .as_str()
        .unwrap()
        .to_string();
    // An identical report re-attaches: same card, pending after its budget.
    let mut again = d1.clone();
    again["timeout_s"] = json!(0.2);
    let r = a.call("report_drift", again).await;
    let sc = &r["structuredContent"];
    assert_eq!(sc["outcome"], "pending");
    assert_eq!(sc["ask_id"], card1.as_str());
    assert_eq!(sc["drift_id"], "d1");
    assert!(
        sc["instruction"]
            .as_str()
            .unwrap()
            .contains(r#"report_drift {"resume": "d1"}"#)
    );
    assert_eq!(home.api().asks().await.len(), 1);
    assert_eq!(status(&a, json!({})).await["drift"]["reported"], 1);
    // A different report supersedes d1: the waiting call returns superseded.
    let mut d2 = json!({"reason": "scope-expansion", "description": "Add reports and charts"});
    d2["timeout_s"] = json!(0.2);
    let r = a.call("report_drift", d2).await;
    assert_eq!(r["structuredContent"]["drift_id"], "d2");
    assert_eq!(r["structuredContent"]["outcome"], "pending");
    let card2 = r["structuredContent"]["ask_id"]
        .as_str()
        .unwrap()
        .to_string();
    let r1 = finish(first).await;
    assert_eq!(r1["structuredContent"]["outcome"], "superseded", "{r1}");
    assert!(
        r1["structuredContent"]["instruction"]
            .as_str()
            .unwrap()
            .contains("newer drift report")
    );
    let pending: Vec<Value> = home.api().get("/api/asks?state=pending").await["asks"]
        .as_array()
        .unwrap()
        .clone();
    assert_eq!(pending.len(), 1, "only d2's card is pending: {pending:?}");
    assert_eq!(pending[0]["id"], card2.as_str());
    // Withdrawing d2's card closes d2 as withdrawn.
    let w = a.call("withdraw_ask", json!({"ask_id": card2})).await;
    assert_eq!(w["structuredContent"]["outcome"], "withdrawn", "{w}");
    let r = a.call("report_drift", json!({"resume": "d2"})).await;
    assert_eq!(r["structuredContent"]["outcome"], "withdrawn");
    // d3 approved, d4 rejected: the queue keeps d3.
    drift_answered(
        &home,
        &a,
        json!({"reason": "behaviour-change", "description": "Change the default sort"}),
        json!({"action": "approve"}),
    )
    .await;
    let (r, _) = drift_answered(
        &home,
        &a,
        json!({"reason": "behaviour-change", "description": "Drop the legacy export"}),
        json!({"action": "reject"}),
    )
    .await;
    assert_eq!(r["structuredContent"]["posture"], "baseline-update-pending");
    // d5 dismissed: the posture goes back to what it was.
    let (r, _) = drift_answered(
        &home,
        &a,
        json!({"reason": "scope-expansion", "description": "Add a mobile app"}),
        json!({"action": "dismiss"}),
    )
    .await;
    let sc = &r["structuredContent"];
    assert_eq!(sc["outcome"], "dismissed");
    assert_eq!(sc["decision"], Value::Null);
    assert_eq!(sc["posture"], "baseline-update-pending");
    assert!(
        sc["instruction"]
            .as_str()
            .unwrap()
            .contains("Do not make the change")
    );
    let st = status(&a, json!({"detail": "full"})).await;
    let states: Vec<&str> = st["drifts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["state"].as_str().unwrap())
        .collect();
    assert_eq!(
        states,
        ["superseded", "withdrawn", "decided", "decided", "dismissed"]
    );
    assert_eq!(st["drift"]["pending_updates"].as_array().unwrap().len(), 1);
    assert_eq!(st["drift"]["pending_updates"][0]["drift_id"], "d3");
    let b = baseline(&a, json!({"goal": "Local app, newest first"})).await;
    assert_eq!(b["applied"], json!(["d3"]));
    assert_eq!(b["posture"], "aligned");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn drift_answers_are_validated_and_the_first_one_wins() {
    let home = Home::new();
    let a = home.adapter("align-test", &[]).await;
    let mut args = json!({"reason": "scope-expansion", "description": "Add reports",
                          "options": [{"label": "Reports page"}, {"label": "CSV only"}]});
    args["timeout_s"] = json!(0.1);
    let r = a.call("report_drift", args).await;
    let card = r["structuredContent"]["ask_id"]
        .as_str()
        .unwrap()
        .to_string();
    let api = home.api();
    let session = r["structuredContent"]["session"]
        .as_str()
        .unwrap()
        .to_string();
    let before = status(&a, json!({"detail": "full"})).await;
    for (body, path) in [
        (json!({"action": "option", "option": 7}), "option"),
        (json!({"action": "other", "text": "  "}), "text"),
        (json!({"action": "approve", "text": "x"}), "text"),
        (json!({"action": "maybe"}), "action"),
    ] {
        let (code, out) = api
            .call(
                reqwest::Method::POST,
                &format!("/api/asks/{card}/submit"),
                Some(body.clone()),
            )
            .await;
        assert_eq!(code, 422, "{body}: {out}");
        assert_eq!(out["errors"][0]["path"], path, "{out}");
    }
    assert_eq!(
        status(&a, json!({"detail": "full"})).await,
        before,
        "nothing written"
    );
    api.submit(&card, json!({"action": "reject", "note": "not now"}))
        .await;
    let (code, out) = api
        .call(
            reqwest::Method::POST,
            &format!("/api/asks/{card}/submit"),
            Some(json!({"action": "approve"})),
        )
        .await;
    assert_eq!(code, 409, "{out}");
    assert_eq!(out["result"]["decision"], "reject", "{out}");
    let (code, _) = api
        .call(
            reqwest::Method::POST,
            &format!("/api/asks/{card}/cancel"),
            Some(json!({})),
        )
        .await;
    assert_eq!(code, 409);
    let st = api.get(&format!("/api/sessions/{session}/alignment")).await;
    assert_eq!(st["drift"]["last_decision"]["decision"], "reject");
}

// ---- sessions: continue, fork, connections, mode-following tool lists (§4.1–§4.3, §3.4) ----

async fn session_id(a: &Adapter) -> String {
    status(a, json!({})).await["session"]["id"]
        .as_str()
        .unwrap()
        .to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_subagent_continues_the_parents_session() {
    // Scenario 9: one session, the subagent's connection recorded as attached.
    let home = Home::new();
    let a = home.adapter("parent", &[]).await;
    ask_answered(&home, &a, "Where should it run?", &["Web", "CLI"], "Web").await;
    baseline(
        &a,
        json!({"goal": "A web task app", "must_preserve": ["api.js public API stays stable"]}),
    )
    .await;
    let parent = session_id(&a).await;
    let s = home.adapter("subagent", &[]).await;
    // An unknown selector records nothing.
    let (code, _) = error_code(
        &s.call("alignment_status", json!({"session": "s-nope"}))
            .await,
    );
    assert_eq!(code, "unknown_session");
    assert_eq!(
        home.api().get("/api/sessions").await["sessions"]
            .as_array()
            .unwrap()
            .len(),
        1
    );
    let st = status(&s, json!({"session": parent})).await;
    assert_eq!(st["rounds"], 1);
    assert_eq!(st["baseline"]["revision"], 1);
    assert_eq!(guidance(&st), guidance(&status(&a, json!({})).await));
    // The connection is now bound: report_drift without a selector runs in the parent's.
    let (r, _) = drift_answered(
        &home,
        &s,
        json!({"reason": "behaviour-change", "description": "Adding deleteItem extends the public API",
               "required_change": "Add deleteItem to api.js"}),
        json!({"action": "approve"}),
    )
    .await;
    assert_eq!(r["structuredContent"]["session"], parent.as_str());
    let b = baseline(&a, json!({"allowed_scope": ["deleteItem in api.js"]})).await;
    assert_eq!(b["revision"], 2);
    assert_eq!(b["applied"], json!(["d1"]));
    assert_eq!(b["posture"], "aligned");
    let sessions = home.api().get("/api/sessions").await;
    assert_eq!(
        sessions["sessions"].as_array().unwrap().len(),
        1,
        "no second session"
    );
    let full = status(&a, json!({"detail": "full"})).await;
    let who: Vec<(&str, &str)> = full["connections"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| (c["how"].as_str().unwrap(), c["client"].as_str().unwrap()))
        .collect();
    assert_eq!(who, [("started", "parent"), ("attached", "subagent")]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn forks_copy_the_state_at_the_fork_point_and_never_link() {
    // §8.3 Forks.
    let home = Home::new();
    let a = home.adapter("parent", &[]).await;
    let mut seqs = Vec::new();
    for (i, goal) in ["Goal one", "Goal two", "Goal three"].iter().enumerate() {
        let b = baseline(&a, json!({"goal": goal})).await;
        assert_eq!(b["revision"], i + 1);
        seqs.push(
            status(&a, json!({})).await["session"]["last_seq"]
                .as_i64()
                .unwrap(),
        );
        // An event between revisions, so a fork point can fall between them.
        a.call("align", json!({})).await;
    }
    a.call("set_alignment_mode", json!({"mode": "manual"}))
        .await;
    let parent = session_id(&a).await;
    let revision_of = |st: &Value| st["baseline"]["revision"].as_u64().unwrap();

    // A fork between r1 and r2 gets r1; at r2's seq (inclusive) gets r2; no `at` gets r3.
    let f1 = home.adapter("fork-1", &[]).await;
    let st = status(
        &f1,
        json!({"session": {"fork": parent, "at": seqs[0] + 1 }}),
    )
    .await;
    assert_eq!(revision_of(&st), 1);
    assert_eq!(st["session"]["origin"], "fork");
    assert_eq!(st["session"]["parent"], parent.as_str());
    assert_eq!(st["session"]["fork_at"], seqs[0] + 1);
    assert_eq!(
        st["mode"]["session_override"],
        Value::Null,
        "the override came later"
    );
    let child1 = st["session"]["id"].as_str().unwrap().to_string();
    let f2 = home.adapter("fork-2", &[]).await;
    let st = status(&f2, json!({"session": {"fork": parent, "at": seqs[1]}})).await;
    assert_eq!(revision_of(&st), 2);
    // The `--fork` flag, without a seq: the parent's last event, the override inherited.
    let f3 = home.command(env!("CARGO_BIN_EXE_askd"), &["mcp", "--fork", &parent], &[]);
    let f3 = Adapter::spawn(f3, "fork-3").await;
    let instructions = f3
        .service
        .peer_info()
        .unwrap()
        .instructions
        .clone()
        .unwrap();
    assert!(
        !instructions.contains("## Requirements alignment"),
        "the fork inherits the manual override: no policy in its instructions"
    );
    let st = status(&f3, json!({})).await;
    assert_eq!(revision_of(&st), 3);
    assert_eq!(st["mode"]["session_override"], "manual");
    assert_ne!(st["session"]["id"], parent.as_str());
    // A fork of a fork.
    let f4 = home.adapter("fork-4", &[]).await;
    let st = status(&f4, json!({"session": {"fork": child1}})).await;
    assert_eq!(revision_of(&st), 1);
    // Copy, not link: the child's revision never shows in the parent, nor the parent's here.
    let b = baseline(&f1, json!({"goal": "Child goal"})).await;
    assert_eq!(b["revision"], 2);
    assert_eq!(
        status(&a, json!({})).await["baseline"]["goal"],
        "Goal three"
    );
    baseline(&a, json!({"goal": "Goal four"})).await;
    assert_eq!(
        status(&f1, json!({})).await["baseline"]["goal"],
        "Child goal"
    );
    // A bad fork point records nothing.
    let before = home.api().get("/api/sessions").await["sessions"]
        .as_array()
        .unwrap()
        .len();
    let f5 = home.adapter("fork-5", &[]).await;
    let r = f5
        .call(
            "alignment_status",
            json!({"session": {"fork": parent, "at": 999}}),
        )
        .await;
    let (code, path) = error_code(&r);
    assert_eq!(
        (code.as_str(), path),
        ("invalid_argument", json!("session.at"))
    );
    let (code, _) = error_code(
        &f5.call("alignment_status", json!({"session": {"fork": "s-nope"}}))
            .await,
    );
    assert_eq!(code, "unknown_session");
    assert_eq!(
        home.api().get("/api/sessions").await["sessions"]
            .as_array()
            .unwrap()
            .len(),
        before
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_fork_taken_with_an_open_drift_inherits_it_as_foreign() {
    let home = Home::new();
    let a = home.adapter("parent", &[]).await;
    baseline(&a, json!({"goal": "Local app"})).await;
    let mut args = json!({"reason": "scope-expansion", "description": "Add reports"});
    args["timeout_s"] = json!(0.1);
    let r = a.call("report_drift", args).await;
    assert_eq!(r["structuredContent"]["outcome"], "pending");
    let parent = session_id(&a).await;
    let c = home.adapter("child", &[]).await;
    let st = status(&c, json!({"session": {"fork": parent}})).await;
    assert_eq!(st["posture"], "drift-pending");
    assert_eq!(st["drift"]["open"]["inherited"], true);
    assert!(
        guidance(&st)
            .iter()
            .any(|l| l.contains("report it again in this session")),
        "{st}"
    );
    let (code, path) = error_code(&c.call("report_drift", json!({"resume": "d1"})).await);
    assert_eq!(code, "foreign_drift");
    assert_eq!(path, Value::Null);
    // A new report in the child supersedes the inherited drift there only.
    let mut args = json!({"reason": "scope-expansion", "description": "Add reports and charts"});
    args["timeout_s"] = json!(0.1);
    let r = c.call("report_drift", args).await;
    assert_eq!(r["structuredContent"]["drift_id"], "d2");
    let child = status(&c, json!({"detail": "full"})).await;
    assert_eq!(child["drifts"][0]["state"], "superseded");
    assert_eq!(child["drifts"][1]["state"], "open");
    let parent_st = status(&a, json!({"detail": "full"})).await;
    assert_eq!(parent_st["drifts"].as_array().unwrap().len(), 1);
    assert_eq!(
        parent_st["drifts"][0]["state"], "open",
        "the parent's card is untouched"
    );
    let card = parent_st["drifts"][0]["ask_id"]
        .as_str()
        .unwrap()
        .to_string();
    assert_eq!(home.api().ask(&card).await["state"], "pending");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_mode_switch_relists_the_tools_of_that_session() {
    // Scenario 14 (tool lists and instructions).
    let home = Home::new();
    let a = home.adapter("agent-a", &[]).await;
    baseline(&a, json!({"goal": "Local app"})).await;
    let session = session_id(&a).await;
    let r = a.call("set_alignment_mode", json!({"mode": "off"})).await;
    assert!(
        r["structuredContent"]["notice"]
            .as_str()
            .unwrap()
            .contains("Off")
    );
    let deadline = Instant::now() + Duration::from_secs(5);
    while a.tools_changed.load(std::sync::atomic::Ordering::SeqCst) == 0 {
        assert!(
            Instant::now() < deadline,
            "no tools/list_changed after the switch"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let names: Vec<String> = a
        .service
        .list_all_tools()
        .await
        .unwrap()
        .iter()
        .map(|t| t.name.to_string())
        .collect();
    assert!(
        !names
            .iter()
            .any(|n| n == "align" || n == "report_drift" || n == "alignment_status")
    );
    assert_eq!(names.last().unwrap(), "set_alignment_mode");
    assert!(
        !a.service
            .list_all_prompts()
            .await
            .unwrap()
            .iter()
            .any(|p| p.name == "align")
    );
    // The human sets the session to manual on the page; a new connection continuing the
    // session gets no policy and the manual tool list.
    home.api()
        .post(
            &format!("/api/sessions/{session}/alignment/mode"),
            json!({"mode": "manual", "actor": "human"}),
        )
        .await;
    let a2 = home
        .adapter("agent-a2", &[("ASKD_SESSION", session.as_str())])
        .await;
    let instructions = a2
        .service
        .peer_info()
        .unwrap()
        .instructions
        .clone()
        .unwrap();
    assert!(
        !instructions.contains("## Requirements alignment"),
        "manual: no policy"
    );
    let names: Vec<String> = a2
        .service
        .list_all_tools()
        .await
        .unwrap()
        .iter()
        .map(|t| t.name.to_string())
        .collect();
    assert!(names.iter().any(|n| n == "report_drift"));
    // A's list follows the session too.
    assert!(
        a.service
            .list_all_tools()
            .await
            .unwrap()
            .iter()
            .any(|t| t.name == "align")
    );
    let b = home.adapter("agent-b", &[]).await;
    let notice = |r: &Value| r["structuredContent"]["alignment"]["notice"].clone();
    // Manual: A's next question result carries only T7 manual; align works.
    let r = ask_answered(&home, &a, "Q after manual?", &["X", "Y"], "X").await;
    let al = &r["structuredContent"]["alignment"];
    assert!(
        notice(&r)
            .as_str()
            .unwrap()
            .contains("now Manual for this session (set by human)"),
        "{r}"
    );
    assert!(
        al.get("guidance").is_none(),
        "manual: no tail on question results: {al}"
    );
    let check = a.call("align", json!({})).await;
    assert!(
        check["structuredContent"]["report"]
            .as_str()
            .unwrap()
            .contains("Mode: Manual (session override)")
    );
    let r = ask_answered(&home, &b, "B one?", &["X", "Y"], "X").await;
    assert_eq!(r["structuredContent"]["alignment"]["mode"], "auto");
    assert_eq!(notice(&r), Value::Null);
    // The human goes back to the default (auto): A had the policy in its instructions, A2
    // did not — only A2's notice carries it. The next results carry the tail and no notice.
    home.api()
        .post(
            &format!("/api/sessions/{session}/alignment/mode"),
            json!({"mode": "default", "actor": "human"}),
        )
        .await;
    let r = ask_answered(&home, &a, "A first?", &["X", "Y"], "X").await;
    let n = notice(&r);
    let n = n.as_str().unwrap();
    assert!(
        n.contains("now Auto for this session (set by human)"),
        "{n}"
    );
    assert!(
        !n.contains("## Requirements alignment"),
        "A has the policy already: {n}"
    );
    let r = ask_answered(&home, &a2, "A2 first?", &["X", "Y"], "X").await;
    let n = notice(&r);
    let n = n.as_str().unwrap();
    assert!(
        n.contains("Apply the following policy from here on:\n\n## Requirements alignment"),
        "{n}"
    );
    for c in [&a, &a2] {
        let r = ask_answered(&home, c, &format!("{} second?", c.pid), &["X", "Y"], "X").await;
        assert_eq!(notice(&r), Value::Null, "{r}");
        let g = guidance(&r["structuredContent"]["alignment"]);
        assert!(g[1].starts_with("Alignment memory:"), "{g:?}");
    }
    let r = ask_answered(&home, &b, "B two?", &["X", "Y"], "X").await;
    assert_eq!(
        r["structuredContent"]["alignment"]["rounds"], 2,
        "B counts its own rounds"
    );
    // The switches changed no rounds or baseline: r1 stays, every answered ask counted.
    let st = status(&a, json!({})).await;
    assert_eq!(st["baseline"]["revision"], 1);
    assert_eq!(st["rounds"], 5);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_chinese_install_gets_the_report_tail_and_drift_instructions_in_chinese() {
    let home = Home::new();
    let a = home
        .adapter("align-zh", &[("ASKD_LANGUAGE", "zh-CN")])
        .await;
    let r = a.call("align", json!({})).await;
    let sc = &r["structuredContent"];
    let report = sc["report"].as_str().unwrap();
    for line in [
        "需求对齐：会话",
        "模式：Auto（配置默认）",
        "提问轮次：0",
        "已确定的决定：",
        "人工检查：1",
        "基线：尚未记录",
        "状态：尚无基线",
    ] {
        assert!(report.contains(line), "{line:?} missing from {report}");
    }
    let session = sc["session"].as_str().unwrap();
    let g = guidance(&sc["status"]);
    assert!(
        g[0].contains(session) && !g[0].starts_with("askd session"),
        "{g:?}"
    );
}

//! Requirements alignment end to end (`alignment.md` §8): scripted transcripts of MCP calls
//! through `askd mcp`, with the human answering through the daemon's HTTP API, asserting
//! what askd records (the folded status) and returns (the `alignment` member, the tail text,
//! the instructions, the tool list). Every test has its own `ASKD_HOME` and daemon.

mod common_mcp;

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
        "scope-expansion",
        "user-direction-change",
    ] {
        assert!(instructions.contains(needle), "{needle} missing");
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
    // No session was recorded by any of them.
    assert_eq!(home.api().get("/api/sessions").await["sessions"], json!([]));
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
    let pid = home.daemon().unwrap().pid;
    assert!(
        std::process::Command::new("kill")
            .args(["-KILL", &pid.to_string()])
            .status()
            .unwrap()
            .success()
    );
    let deadline = Instant::now() + Duration::from_secs(15);
    while alive(pid) {
        assert!(Instant::now() < deadline, "the daemon did not die");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let c = home
        .adapter("align-resume", &[("ASKD_SESSION", session.as_str())])
        .await;
    let after = status(&c, json!({})).await;
    assert_eq!(
        after, before,
        "the folded state is identical after the restart"
    );
    assert_eq!(after["rounds"], 1);
    assert_eq!(after["mode"]["session_override"], "manual");
    // The first adapter reconnects and sees the same state; the selector works too.
    assert_eq!(status(&a, json!({"session": session})).await, before);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_align_prompt_records_a_human_check_and_returns_the_report() {
    let home = Home::new();
    let a = home.adapter("align-test", &[]).await;
    let prompts = a.service.list_all_prompts().await.unwrap();
    assert_eq!(
        prompts.iter().map(|p| p.name.as_str()).collect::<Vec<_>>(),
        ["align"]
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
            "set_alignment_mode"
        ]),
        "{names:?}"
    );
    let auq = tools
        .iter()
        .find(|t| t.name == "ask_user_question")
        .unwrap();
    assert!(!auq.description.as_deref().unwrap().contains("Alignment:"));
    assert_eq!(m.service.list_all_prompts().await.unwrap().len(), 1);
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
    assert!(
        !names
            .iter()
            .any(|n| n == "align" || n == "alignment_status" || n == "establish_baseline")
    );
    assert!(o.service.list_all_prompts().await.unwrap().is_empty());
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
        "architecture-shift",
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

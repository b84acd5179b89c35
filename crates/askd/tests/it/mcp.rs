//! End to end: `askd mcp` spawned as a child process, driven by an rmcp client, with the
//! human answering through the daemon's HTTP API (platform.md §1–§4, survey.md §3.3, §4.1,
//! §8). Every test has its own `ASKD_HOME`, a daemon on a free port, no browser, and kills
//! its daemon at the end (`Home`'s drop).

use crate::common_mcp;

use std::time::{Duration, Instant};

use common_mcp::*;
use serde_json::{Value, json};

const TOOLS: [&str; 14] = [
    "ask_survey",
    "survey_draft_set",
    "survey_draft_get",
    "survey_draft_launch",
    "ask_user_question",
    "await_answer",
    "survey_records",
    "withdraw_ask",
    "batch_review",
    "align",
    "alignment_status",
    "establish_baseline",
    "report_drift",
    "set_alignment_mode",
];

/// The submission that answers `release-scope.json` like `survey.md` §8.3's example.
fn release_scope_answers() -> Value {
    json!({"answers": [
        {"id": "scope", "selected": ["a"], "justifications": {"a": "Two partners are blocked on the API."}},
        {"id": "api", "selected": [], "custom": "REST endpoints first"},
        {"id": "ship", "selected": ["a", "c"]}
    ]})
}

/// The §8.3 result for [`release_scope_answers`].
fn release_scope_result(ask_id: &str) -> Value {
    json!({
        "outcome": "answered",
        "ask_id": ask_id,
        "title": "Release scope",
        "path": ["scope", "api", "ship"],
        "answers": [
            {"id": "scope", "selected": [{"key": "a", "label": "Ship the public API"}],
             "justifications": {"a": "Two partners are blocked on the API."}},
            {"id": "api", "selected": [], "custom": "REST endpoints first"},
            {"id": "ship", "selected": [{"key": "a", "label": "Docs complete"}, {"key": "c", "label": "Migration guide"}]}
        ],
        "skipped": [],
        "handling": SURVEY_HANDLING,
        // Answered on the page (issue 28 §5: a survey says where, like questions).
        "surface": "page"
    })
}

fn schema_at<'a>(v: &'a Value, path: &[&str]) -> &'a Value {
    let mut cur = v;
    for p in path {
        cur = &cur[*p];
        assert!(!cur.is_null(), "schema has no {path:?} (stopped at {p})");
    }
    cur
}

fn required(v: &Value) -> Vec<&str> {
    v["required"]
        .as_array()
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tools_are_listed_with_input_and_output_schemas() {
    let home = Home::new();
    let a = home.adapter("schema-test", &[]).await;
    let info = a.service.peer_info().expect("server info");
    assert_eq!(info.server_info.as_ref().unwrap().name, "askd");
    let instructions = info.instructions.clone().unwrap_or_default();
    assert!(instructions.contains("ask_user_question") && instructions.contains("ask_survey"));

    let tools = serde_json::to_value(a.service.list_all_tools().await.unwrap()).unwrap();
    let tools = tools.as_array().unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(names, TOOLS);
    for t in tools {
        assert_eq!(t["inputSchema"]["type"], "object", "{}", t["name"]);
        assert_eq!(t["outputSchema"]["type"], "object", "{}", t["name"]);
        assert!(t["description"].as_str().is_some_and(|d| d.len() > 80));
    }
    let by_name = |n: &str| tools.iter().find(|t| t["name"] == n).unwrap();

    // ask_survey: survey → questions.{id} → options[] and quick[] → answers.{id}.
    let survey = by_name("ask_survey");
    let input = &survey["inputSchema"];
    assert_eq!(required(input), ["survey"]);
    for member in ["survey", "replaces", "timeout_s"] {
        schema_at(input, &["properties", member]);
    }
    let spec = schema_at(input, &["properties", "survey"]);
    assert_eq!(required(spec), ["entry", "questions"]);
    let question = schema_at(spec, &["properties", "questions", "additionalProperties"]);
    assert_eq!(required(question), ["prompt"]);
    for member in [
        "prompt",
        "header",
        "detail",
        "multiSelect",
        "allowCustom",
        "skippable",
        "options",
        "next",
    ] {
        schema_at(question, &["properties", member]);
    }
    let options = schema_at(question, &["properties", "options"]);
    assert_eq!(options["minItems"], 5);
    let option = schema_at(options, &["items"]);
    assert_eq!(required(option), ["key", "label"]);
    for member in [
        "description",
        "insight",
        "diagram",
        "sources",
        "recommended",
        "next",
    ] {
        schema_at(option, &["properties", member]);
    }
    let quick = schema_at(spec, &["properties", "quick", "items"]);
    assert_eq!(required(quick), ["key", "label", "answers"]);
    let quick_answer = schema_at(quick, &["properties", "answers", "additionalProperties"]);
    schema_at(quick_answer, &["properties", "selected"]);
    schema_at(quick_answer, &["properties", "custom"]);
    // The output schema admits the result or the error envelope (clients.md §2.2: the
    // TypeScript SDK validates error results against it too).
    let out = &survey["outputSchema"]["anyOf"][0];
    assert_eq!(survey["outputSchema"]["type"], "object");
    assert_eq!(required(&survey["outputSchema"]["anyOf"][1]), ["error"]);
    assert_eq!(required(out), ["outcome", "ask_id"]);
    assert_eq!(
        out["properties"]["outcome"]["enum"],
        json!([
            "answered",
            "reroll",
            "push",
            "discuss",
            "superseded",
            "expired",
            "pending"
        ])
    );
    for member in [
        "ask_id",
        "url",
        "title",
        "path",
        "answers",
        "skipped",
        "handling",
        "instruction",
        "draft",
        "draftReopened",
        "alignment",
    ] {
        schema_at(out, &["properties", member]);
    }
    let answer = schema_at(out, &["properties", "answers", "items"]);
    assert_eq!(required(answer), ["id", "selected"]);
    assert_eq!(
        required(schema_at(answer, &["properties", "selected", "items"])),
        ["key", "label"]
    );

    // ask_user_question: questions[] of {id, question, header?, detail?, options?, multi_select?}.
    let auq = by_name("ask_user_question");
    assert_eq!(required(&auq["inputSchema"]), ["questions"]);
    let qs = schema_at(&auq["inputSchema"], &["properties", "questions"]);
    assert_eq!(
        (qs["minItems"].clone(), qs["maxItems"].clone()),
        (json!(1), json!(4))
    );
    let q = schema_at(qs, &["items"]);
    assert_eq!(required(q), ["id", "question"]);
    for member in ["header", "detail", "options", "multi_select"] {
        schema_at(q, &["properties", member]);
    }
    assert_eq!(
        required(schema_at(q, &["properties", "options", "items"])),
        ["label"]
    );
    let out = &auq["outputSchema"]["anyOf"][0];
    assert_eq!(
        out["properties"]["outcome"]["enum"],
        json!(["answered", "expired", "pending"])
    );
    // The deadline (issue 35) is the one described field of its input.
    assert_eq!(
        schema_at(&auq["inputSchema"], &["properties", "deadline"])["type"],
        "object"
    );
    let a_item = schema_at(out, &["properties", "answers", "items"]);
    assert_eq!(required(a_item), ["id", "selected"]);
    assert_eq!(a_item["properties"]["selected"]["items"]["type"], "string");

    assert_eq!(
        required(&by_name("await_answer")["inputSchema"]),
        ["ask_id"]
    );
    schema_at(
        &by_name("await_answer")["inputSchema"],
        &["properties", "timeout_s"],
    );
    assert_eq!(
        required(&by_name("withdraw_ask")["inputSchema"]),
        ["ask_id"]
    );
    let records = by_name("survey_records");
    for member in ["query", "limit", "includeUnanswered"] {
        schema_at(&records["inputSchema"], &["properties", member]);
    }
    assert_eq!(
        required(&records["outputSchema"]["anyOf"][0]),
        ["count", "records"]
    );
    assert_eq!(records["annotations"]["readOnlyHint"], true);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_invalid_survey_returns_every_error_with_its_path() {
    let home = Home::new();
    let a = home.adapter("invalid-test", &[]).await;
    let r = a.call("ask_survey", fixture("three-errors.json")).await;
    assert_eq!(r["isError"], true, "{r}");
    let e = &r["structuredContent"]["error"];
    assert_eq!(e["code"], "SURVEY_BAD_SPEC");
    let errors = e["errors"].as_array().expect("errors list");
    let got: Vec<(&str, &str)> = errors
        .iter()
        .map(|e| (e["path"].as_str().unwrap(), e["code"].as_str().unwrap()))
        .collect();
    assert_eq!(
        got,
        [
            ("questions.q1.options", "options_too_few"),
            ("questions.q2.prompt", "prompt_missing"),
            ("questions.q3.options[0].next", "next_unknown"),
        ]
    );
    assert_eq!(errors[2]["nearest"], "q1");
    let joined: Vec<&str> = errors
        .iter()
        .map(|e| e["message"].as_str().unwrap())
        .collect();
    let message = format!("invalid survey spec: {}", joined.join("; "));
    assert_eq!(e["message"], message.as_str());
    assert_eq!(r["content"][0]["text"], message.as_str());
    // The envelope travels as text too, for clients that show only text blocks.
    let envelope: Value = serde_json::from_str(r["content"][1]["text"].as_str().unwrap()).unwrap();
    assert_eq!(envelope, r["structuredContent"]);
    // Nothing was created.
    assert!(home.api().asks().await.is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_truncated_survey_string_is_a_resolution_failure() {
    let home = Home::new();
    let a = home.adapter("truncated-test", &[]).await;
    let r = a
        .call(
            "ask_survey",
            json!({"survey": "{\"title\": \"Release scope\", \"entry\": \"scope\", \"questions\": {\"scope\": {\"prompt\": \"Which"}),
        )
        .await;
    assert_eq!(r["isError"], true, "{r}");
    let text = r["content"][0]["text"].as_str().unwrap();
    assert!(text.starts_with("invalid survey argument: The \"survey\" field arrived as a JSON text string, but the text failed to parse as JSON ("), "{text}");
    assert!(text.contains("SMALLER"), "{text}");
    let e = &r["structuredContent"]["error"];
    assert_eq!(e["code"], "SURVEY_BAD_SPEC");
    assert_eq!(e["message"], text);
    let errors = e["errors"].as_array().unwrap();
    assert_eq!(errors.len(), 1);
    assert_eq!(errors[0]["path"], "survey");
    assert_eq!(errors[0]["code"], "survey_text_unparseable");
    assert!(home.api().asks().await.is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_survey_answered_over_http_returns_the_exact_result() {
    let home = Home::new();
    let a = home.adapter("claude-code", &[]).await;
    let call = a
        .start_call("ask_survey", fixture("release-scope.json"))
        .await;
    let api = home.api();
    let ask = api.new_ask(&[]).await;
    let id = ask["id"].as_str().unwrap().to_string();
    assert_eq!(ask["kind"], "survey");
    assert_eq!(ask["state"], "pending");
    assert_eq!(ask["client"], "claude-code");
    assert_eq!(ask["workspace"], home.path().to_string_lossy().as_ref());
    // The adapter logs the URL to mcp.log in the data directory (no browser here); its
    // stderr, the client's terminal, stays quiet (clients.md §2.7).
    let log = || std::fs::read_to_string(home.path().join("mcp.log")).unwrap_or_default();
    let deadline = Instant::now() + Duration::from_secs(5);
    while !log().contains(&format!("/a/{id}")) {
        assert!(Instant::now() < deadline, "no URL in mcp.log: {}", log());
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(a.stderr(), "", "the adapter's stderr is quiet");

    let submitted = api.submit(&id, release_scope_answers()).await;
    let r = finish(call).await;
    assert_ne!(r["isError"], true, "{r}");
    let sc = structured(&r);
    assert_eq!(sc, release_scope_result(&id));
    assert_eq!(
        keys(&sc),
        [
            "outcome", "ask_id", "title", "path", "answers", "skipped", "handling", "surface"
        ]
    );
    assert_eq!(
        submitted["result"], sc,
        "the agent gets what the submit reported"
    );
    // await_answer on the settled ask returns the same result, again and again.
    for _ in 0..2 {
        let again = a.call("await_answer", json!({"ask_id": id})).await;
        assert_eq!(structured(&again), sc);
    }
    // The record is visible to survey_records.
    let records = structured(&a.call("survey_records", json!({})).await);
    assert_eq!(records["count"], 1);
    assert_eq!(records["records"][0]["title"], "Release scope");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ask_user_question_answered_over_http() {
    let home = Home::new();
    let a = home.adapter("dsh-mcp-client", &[]).await;
    let args = json!({"questions": [
        {"id": "db", "question": "Which database?", "header": "Storage",
         "options": [{"label": "SQLite (Recommended)", "description": "One file."}, {"label": "Postgres"}]},
        {"id": "name", "question": "What is the binary called?"},
        {"id": "extras", "question": "Which extras?", "multi_select": true,
         "options": [{"label": "TUI"}, {"label": "Web UI"}, {"label": "Shell completions"}]}
    ]});
    let call = a.start_call("ask_user_question", args).await;
    let api = home.api();
    let ask = api.new_ask(&[]).await;
    let id = ask["id"].as_str().unwrap().to_string();
    assert_eq!(ask["kind"], "questions");
    assert_eq!(ask["client"], "dsh-mcp-client");
    api.submit(
        &id,
        json!({"answers": [
            {"id": "db", "selected": ["SQLite (Recommended)"]},
            {"id": "name", "selected": [], "custom": "askd"},
            {"id": "extras", "selected": []}
        ]}),
    )
    .await;
    let r = finish(call).await;
    let sc = structured(&r);
    assert_eq!(
        sc,
        json!({
            "outcome": "answered",
            "ask_id": id,
            "answers": [
                {"id": "db", "selected": ["SQLite (Recommended)"]},
                {"id": "name", "selected": [], "custom": "askd"}
            ],
            "skipped": ["extras"],
            "handling": askd_core::questions::HANDLING,
            "surface": "page"
        })
    );
    assert_eq!(
        keys(&sc),
        [
            "outcome", "ask_id", "answers", "skipped", "handling", "surface"
        ]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dismissed_or_withdrawn_survey_is_a_tool_error_with_its_ask_id() {
    let home = Home::new();
    let a = home.adapter("claude-code", &[]).await;
    let call = a
        .start_call("ask_survey", fixture("release-scope.json"))
        .await;
    let api = home.api();
    let id = api.new_ask(&[]).await["id"].as_str().unwrap().to_string();
    api.post(&format!("/api/asks/{id}/cancel"), json!({})).await;
    let r = finish(call).await;
    assert_eq!(r["isError"], true, "{r}");
    assert_eq!(
        r["structuredContent"],
        json!({"error": {"code": "SURVEY_CANCELLED", "message": "the user cancelled the survey", "ask_id": id}})
    );
    assert_eq!(r["content"][0]["text"], "the user cancelled the survey");

    // withdraw_ask: the agent takes a pending ask back; it settles aborted.
    let mut args = fixture("release-scope.json");
    args["survey"]["title"] = json!("Moot question");
    args["timeout_s"] = json!(0);
    let handle = structured(&a.call("ask_survey", args).await);
    let moot = handle["ask_id"].as_str().unwrap().to_string();
    let w = a
        .call(
            "withdraw_ask",
            json!({"ask_id": moot, "reason": "no longer needed"}),
        )
        .await;
    assert_eq!(w["isError"], true, "{w}");
    assert_eq!(w["structuredContent"]["error"]["code"], "SURVEY_ABORTED");
    assert_eq!(w["structuredContent"]["error"]["ask_id"], moot.as_str());
    assert_eq!(api.ask(&moot).await["state"], "settled");
    let again = a.call("await_answer", json!({"ask_id": moot})).await;
    assert_eq!(again["structuredContent"], w["structuredContent"]);
    // An unknown ask is a clear tool error.
    let unknown = a.call("await_answer", json!({"ask_id": "nope"})).await;
    assert_eq!(unknown["isError"], true);
    assert_eq!(
        unknown["structuredContent"]["error"]["code"],
        "ASK_NOT_FOUND"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn progress_notifications_arrive_while_waiting() {
    let home = Home::new();
    let a = home
        .adapter("progress-test", &[("ASKD_PROGRESS_INTERVAL_MS", "200")])
        .await;
    let call = a
        .start_call("ask_survey", fixture("release-scope.json"))
        .await;
    let token = call.handle.progress_token.clone();
    let api = home.api();
    let id = api.new_ask(&[]).await["id"].as_str().unwrap().to_string();
    tokio::time::sleep(Duration::from_millis(700)).await;
    // A banked answer shows in the status line.
    api.post(
        &format!("/api/asks/{id}/bank"),
        json!({"answers": [{"id": "scope", "selected": ["a"]}]}),
    )
    .await;
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let seen = a.progress.lock().unwrap().clone();
        if seen.len() >= 4
            && seen.iter().any(|p| {
                p.message.as_deref() == Some("waiting for the user — 1 answered, 1 banked")
            })
        {
            break;
        }
        assert!(Instant::now() < deadline, "progress so far: {seen:?}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    api.submit(&id, release_scope_answers()).await;
    let r = finish(call).await;
    assert_eq!(structured(&r)["outcome"], "answered");

    let seen = a.progress.lock().unwrap().clone();
    assert!(seen.iter().all(|p| p.progress_token == token), "{seen:?}");
    assert_eq!(
        seen[0].message.as_deref(),
        Some("waiting for the user — 0 answered, 0 banked")
    );
    assert!(
        seen.windows(2).all(|w| w[1].progress > w[0].progress),
        "progress must increase with every notification: {:?}",
        seen.iter().map(|p| p.progress).collect::<Vec<_>>()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_wait_budget_returns_a_pending_handle_and_await_answer_collects() {
    let home = Home::new();
    let a = home.adapter("budget-test", &[]).await;
    let mut args = fixture("release-scope.json");
    args["timeout_s"] = json!(1);
    let started = Instant::now();
    let r = a.call("ask_survey", args).await;
    let waited = started.elapsed();
    assert!(
        waited >= Duration::from_millis(900) && waited < Duration::from_secs(10),
        "{waited:?}"
    );
    let handle = structured(&r);
    let id = handle["ask_id"].as_str().unwrap().to_string();
    let api = home.api();
    assert_eq!(handle["outcome"], "pending");
    assert_eq!(handle["title"], "Release scope");
    assert_eq!(handle["url"], format!("{}/a/{id}", api.daemon.url));
    let instruction = handle["instruction"].as_str().unwrap();
    assert!(instruction.contains("await_answer"), "{instruction}");
    assert!(
        instruction.contains("Do not answer on the user's behalf"),
        "{instruction}"
    );
    let ask = api.ask(&id).await;
    assert_eq!(ask["state"], "pending");
    assert_eq!(
        ask["awaited"], false,
        "nobody waits once the handle went back"
    );

    // Still pending: await_answer with its own budget returns the handle again.
    let again = structured(
        &a.call("await_answer", json!({"ask_id": id, "timeout_s": 0}))
            .await,
    );
    assert_eq!(again, handle);

    let call = a.start_call("await_answer", json!({"ask_id": id})).await;
    tokio::time::sleep(Duration::from_millis(200)).await;
    api.submit(&id, release_scope_answers()).await;
    let r = finish(call).await;
    assert_eq!(structured(&r), release_scope_result(&id));
}

#[test]
fn short_clients_get_the_safe_default_budget() {
    use askd_mcp::server::{SHORT_CLIENT_BUDGET, client_budget, is_short_client};
    assert!(is_short_client("dsh-mcp-client"));
    for other in [
        "claude-code",
        "codex-mcp-client",
        "cursor-vscode",
        "mcp-client",
        "dsh",
        "",
    ] {
        assert!(!is_short_client(other), "{other}");
    }
    assert_eq!(SHORT_CLIENT_BUDGET, Duration::from_secs(50));
    assert!(SHORT_CLIENT_BUDGET < Duration::from_secs(60));
    // clients.md §2.4: each known client gets the handle before its own limit.
    let limits = [
        ("dsh-mcp-client", 60),
        ("claude-code", 120),
        ("codex-mcp-client", 300),
        ("Codex", 300),
    ];
    for (client, limit) in limits {
        let budget = client_budget(client).unwrap_or_else(|| panic!("{client} has a budget"));
        assert!(budget < Duration::from_secs(limit), "{client}: {budget:?}");
        assert!(
            budget >= Duration::from_secs(limit) * 3 / 4,
            "{client}: {budget:?}"
        );
    }
    for unknown in ["cursor-vscode", "mcp-client", ""] {
        assert_eq!(client_budget(unknown), None, "{unknown}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn max_wait_returns_the_handle_to_a_short_client() {
    let home = Home::new();
    let a = home
        .adapter("dsh-mcp-client", &[("ASKD_MAX_WAIT", "1")])
        .await;
    let started = Instant::now();
    let r = a.call("ask_user_question", questions(1)).await;
    let waited = started.elapsed();
    let handle = structured(&r);
    assert_eq!(handle["outcome"], "pending", "{handle}");
    assert!(
        waited >= Duration::from_millis(900) && waited < Duration::from_secs(10),
        "{waited:?}"
    );
    assert!(
        handle["instruction"]
            .as_str()
            .unwrap()
            .contains("await_answer")
    );
    // A per-call timeout_s shorter than maxWait wins.
    let mut args = questions(2);
    args["timeout_s"] = json!(0);
    let started = Instant::now();
    let r = structured(&a.call("ask_user_question", args).await);
    assert_eq!(r["outcome"], "pending");
    assert!(started.elapsed() < Duration::from_millis(900));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn killing_the_adapter_mid_wait_loses_nothing() {
    let home = Home::new();
    let first = home.adapter("claude-code", &[]).await;
    let _call = first
        .start_call("ask_survey", fixture("release-scope.json"))
        .await;
    let api = home.api();
    let id = api.new_ask(&[]).await["id"].as_str().unwrap().to_string();
    let daemon_pid = api.daemon.pid;
    first.kill();
    let deadline = Instant::now() + Duration::from_secs(5);
    while alive(first.pid) {
        assert!(Instant::now() < deadline, "the adapter did not die");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    // The daemon (its own process group) and the ask live on.
    assert!(alive(daemon_pid));
    assert_eq!(api.ask(&id).await["state"], "pending");

    let second = home.adapter("claude-code", &[]).await;
    assert_eq!(
        home.daemon().unwrap().pid,
        daemon_pid,
        "the running daemon is reused"
    );
    let call = second
        .start_call("await_answer", json!({"ask_id": id}))
        .await;
    tokio::time::sleep(Duration::from_millis(200)).await;
    api.submit(&id, release_scope_answers()).await;
    assert_eq!(structured(&finish(call).await), release_scope_result(&id));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cancellation_leaves_the_ask_pending_and_answerable() {
    let home = Home::new();
    let a = home.adapter("claude-code", &[]).await;
    let call = a.start_call("ask_user_question", questions(1)).await;
    let api = home.api();
    let id = api.new_ask(&[]).await["id"].as_str().unwrap().to_string();
    let deadline = Instant::now() + Duration::from_secs(5);
    while api.ask(&id).await["awaited"] != true {
        assert!(Instant::now() < deadline, "never marked awaited");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    call.cancel(Some("the user aborted the turn".into()))
        .await
        .expect("send notifications/cancelled");
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let ask = api.ask(&id).await;
        assert_eq!(ask["state"], "pending", "{ask}");
        if ask["awaited"] == false {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "still awaited after the cancel: {ask}"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let listed = api.get("/api/asks?state=pending").await;
    assert_eq!(listed["asks"][0]["id"], id.as_str());
    assert_eq!(listed["asks"][0]["awaited"], false);

    // The session goes on, and a later await_answer collects the answer.
    let call = a.start_call("await_answer", json!({"ask_id": id})).await;
    tokio::time::sleep(Duration::from_millis(200)).await;
    api.submit(&id, json!({"answers": [{"id": "q", "selected": ["No"]}]}))
        .await;
    let r = structured(&finish(call).await);
    assert_eq!(r["outcome"], "answered");
    assert_eq!(r["answers"], json!([{"id": "q", "selected": ["No"]}]));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_adapters_started_at_once_share_one_daemon() {
    let home = Home::new();
    let (a, b) = tokio::join!(home.adapter("agent-a", &[]), home.adapter("agent-b", &[]));
    let daemon = home.daemon().expect("daemon.json");
    assert_eq!(home.serve_processes(), [daemon.pid], "exactly one daemon");
    for adapter in [&a, &b] {
        assert_eq!(
            adapter.service.list_all_tools().await.unwrap().len(),
            TOOLS.len()
        );
    }
    let mut one = questions(1);
    one["timeout_s"] = json!(0);
    let mut two = questions(2);
    two["timeout_s"] = json!(0);
    let (ra, rb) = tokio::join!(
        a.call("ask_user_question", one),
        b.call("ask_user_question", two)
    );
    let (ia, ib) = (
        structured(&ra)["ask_id"].clone(),
        structured(&rb)["ask_id"].clone(),
    );
    assert_ne!(ia, ib);
    let asks = home.api().asks().await;
    let client_of = |id: &Value| {
        asks.iter()
            .find(|x| &x["id"] == id)
            .map(|x| x["client"].clone())
            .unwrap_or_else(|| panic!("{id} is not listed: {asks:?}"))
    };
    assert_eq!(client_of(&ia), "agent-a");
    assert_eq!(client_of(&ib), "agent-b");
    let sessions: Vec<&Value> = asks.iter().map(|x| &x["session_id"]).collect();
    assert_ne!(sessions[0], sessions[1], "one session per adapter");
    assert_eq!(home.daemon().unwrap().pid, daemon.pid);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_identical_payload_reattaches_to_the_pending_ask() {
    let home = Home::new();
    let a = home.adapter("reattach-test", &[]).await;
    let mut args = fixture("release-scope.json");
    args["timeout_s"] = json!(0);
    let first = structured(&a.call("ask_survey", args.clone()).await);
    assert_eq!(first["outcome"], "pending");
    let second = structured(&a.call("ask_survey", args).await);
    assert_eq!(second["ask_id"], first["ask_id"]);
    assert_eq!(home.api().asks().await.len(), 1);
    // A different payload is a different ask.
    let mut other = fixture("release-scope.json");
    other["survey"]["title"] = json!("Release scope, revised");
    other["timeout_s"] = json!(0);
    let third = structured(&a.call("ask_survey", other).await);
    assert_ne!(third["ask_id"], first["ask_id"]);
    assert_eq!(home.api().asks().await.len(), 2);
}

/// Issue 31's defect: an identical call after `withdraw_ask` asks again. The withdrawn
/// ask's result went back to the `withdraw_ask` call, so it is delivered and nothing is
/// stranded: the repeat must not get the withdrawn ask's `ASK_ABORTED`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_identical_call_after_a_withdraw_asks_again() {
    let home = Home::new();
    let a = home.adapter("withdraw-test", &[]).await;
    for tool in ["ask_survey", "ask_user_question"] {
        let mut args = if tool == "ask_survey" {
            fixture("release-scope.json")
        } else {
            json!({"questions": [{"id": "q", "question": "Ship it?",
                "options": [{"label": "Yes"}, {"label": "No"}]}]})
        };
        args["timeout_s"] = json!(0);
        let first = structured(&a.call(tool, args.clone()).await);
        assert_eq!(first["outcome"], "pending", "{first}");
        let withdrawn = a
            .call("withdraw_ask", json!({"ask_id": first["ask_id"]}))
            .await;
        let code = withdrawn["structuredContent"]["error"]["code"].clone();
        assert!(
            code == "ASK_ABORTED" || code == "SURVEY_ABORTED",
            "{withdrawn}"
        );
        let again = a.call(tool, args).await["structuredContent"].clone();
        assert_eq!(again["outcome"], "pending", "{tool}: {again}");
        assert_ne!(again["ask_id"], first["ask_id"], "{tool}: a new ask");
    }
}

/// One JSON-RPC POST to `/mcp`: (status, session id header, the JSON-RPC message with `id`).
async fn mcp_post(
    http: &reqwest::Client,
    url: &str,
    token: Option<&str>,
    session: Option<&str>,
    body: Value,
) -> (u16, Option<String>, Value) {
    let mut req = http
        .post(format!("{url}/mcp"))
        .header("Accept", "application/json, text/event-stream")
        .header("Content-Type", "application/json")
        .header("MCP-Protocol-Version", "2025-06-18")
        .body(body.to_string());
    if let Some(t) = token {
        req = req.bearer_auth(t);
    }
    if let Some(s) = session {
        req = req.header("Mcp-Session-Id", s);
    }
    let resp = req.send().await.expect("POST /mcp");
    let status = resp.status().as_u16();
    let session = resp
        .headers()
        .get("mcp-session-id")
        .and_then(|v| v.to_str().ok())
        .map(str::to_string);
    let sse = resp
        .headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .is_some_and(|c| c.starts_with("text/event-stream"));
    let text = resp.text().await.unwrap_or_default();
    let id = body.get("id").cloned();
    let message = if sse {
        text.lines()
            .filter_map(|l| l.strip_prefix("data:"))
            .filter_map(|d| serde_json::from_str::<Value>(d.trim()).ok())
            .find(|m| id.is_some() && m.get("id") == id.as_ref())
            .unwrap_or(Value::Null)
    } else {
        serde_json::from_str(&text).unwrap_or(Value::Null)
    };
    (status, session, message)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mcp_over_http_behind_the_fence() {
    let home = Home::new();
    let _adapter = home.adapter("starter", &[]).await; // starts the daemon
    let api = home.api();
    let url = api.daemon.url.clone();
    let token = api.daemon.token.clone();
    let http = reqwest::Client::new();
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "http-agent", "version": "1.0"}}});

    // The fence: no token → 401; a foreign Host → 403 (even with the token); a foreign
    // Origin → 403.
    let (status, _, _) = mcp_post(&http, &url, None, None, init.clone()).await;
    assert_eq!(status, 401);
    let resp = http
        .post(format!("{url}/mcp"))
        .header("Host", "evil.example")
        .header("Accept", "application/json, text/event-stream")
        .header("Content-Type", "application/json")
        .bearer_auth(&token)
        .body(init.to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status().as_u16(), 403);
    let resp = http
        .post(format!("{url}/mcp"))
        .header("Origin", "http://evil.example")
        .header("Accept", "application/json, text/event-stream")
        .header("Content-Type", "application/json")
        .bearer_auth(&token)
        .body(init.to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status().as_u16(), 403);

    let (status, session, message) = mcp_post(&http, &url, Some(&token), None, init).await;
    assert_eq!(status, 200, "{message}");
    let session = session.expect("an Mcp-Session-Id");
    assert_eq!(message["result"]["serverInfo"]["name"], "askd", "{message}");
    assert!(message["result"]["capabilities"]["tools"].is_object());
    let (status, _, _) = mcp_post(
        &http,
        &url,
        Some(&token),
        Some(&session),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
    )
    .await;
    assert!((200..300).contains(&status), "{status}");

    let (status, _, message) = mcp_post(
        &http,
        &url,
        Some(&token),
        Some(&session),
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {}}),
    )
    .await;
    assert_eq!(status, 200);
    let names: Vec<&str> = message["result"]["tools"]
        .as_array()
        .unwrap_or_else(|| panic!("{message}"))
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, TOOLS);

    // A waiting tools/call answered through the API.
    let call = tokio::spawn({
        let (http, url, token, session) =
            (http.clone(), url.clone(), token.clone(), session.clone());
        async move {
            mcp_post(
                &http,
                &url,
                Some(&token),
                Some(&session),
                json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
                       "params": {"name": "ask_user_question", "arguments": questions(7)}}),
            )
            .await
        }
    });
    let ask = api.new_ask(&[]).await;
    assert_eq!(ask["client"], "http-agent");
    let id = ask["id"].as_str().unwrap().to_string();
    api.submit(
        &id,
        json!({"answers": [{"id": "q", "selected": ["Yes (Recommended)"]}]}),
    )
    .await;
    let (status, _, message) = tokio::time::timeout(Duration::from_secs(20), call)
        .await
        .expect("the call returns")
        .unwrap();
    assert_eq!(status, 200);
    let result = &message["result"];
    assert_ne!(result["isError"], true, "{message}");
    assert_eq!(result["structuredContent"]["outcome"], "answered");
    assert_eq!(result["structuredContent"]["ask_id"], id.as_str());
    let copy: Value = serde_json::from_str(result["content"][0]["text"].as_str().unwrap()).unwrap();
    assert_eq!(copy, result["structuredContent"]);
}

/// Time from `tools/call` sent to the ask visible in `GET /api/asks`, and adapter start-up
/// (spawn to initialize response) with the daemon already running. Printed, with a loose
/// sanity bound (debug build, shared machine); the bars are 20 ms and 50 ms.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn latency_of_a_call_and_of_adapter_start_up() {
    const RUNS: usize = 10;
    let home = Home::new();
    let a = home.adapter("latency-test", &[]).await;
    let api = home.api();
    // Warm up: the first call opens the session.
    let mut warm = questions(0);
    warm["timeout_s"] = json!(0);
    structured(&a.call("ask_user_question", warm).await);

    let mut visible = Vec::new();
    for n in 1..=RUNS {
        let known: Vec<String> = api
            .asks()
            .await
            .iter()
            .map(|x| x["id"].as_str().unwrap().to_string())
            .collect();
        let mut args = questions(n);
        args["timeout_s"] = json!(0);
        let started = Instant::now();
        let call = a.start_call("ask_user_question", args).await;
        let elapsed = loop {
            let (_, body) = api
                .call(reqwest::Method::GET, "/api/asks?state=pending", None)
                .await;
            let asks = body["asks"].as_array().cloned().unwrap_or_default();
            if asks
                .iter()
                .any(|x| !known.iter().any(|k| x["id"] == k.as_str()))
            {
                break started.elapsed();
            }
            assert!(
                started.elapsed() < Duration::from_secs(10),
                "ask never visible"
            );
        };
        visible.push(elapsed);
        finish(call).await;
    }
    let (median, p90) = median_p90(&mut visible);
    eprintln!(
        "tools/call → visible in GET /api/asks: median {median:?}, p90 {p90:?} over {RUNS} runs"
    );

    let mut startup = Vec::new();
    for _ in 0..RUNS {
        let started = Instant::now();
        let b = home.adapter("startup-test", &[]).await;
        startup.push(started.elapsed());
        let _ = b.service.cancel().await;
    }
    let (s_median, s_p90) = median_p90(&mut startup);
    eprintln!(
        "askd mcp spawn → initialize response (daemon running): median {s_median:?}, p90 {s_p90:?} over {RUNS} runs"
    );
    assert_eq!(home.serve_processes().len(), 1);
    assert!(median < Duration::from_secs(2) && s_median < Duration::from_secs(5));
}

/// The fenced ```yaml block of docs/integrations.md that configures DeepSeek Harness.
fn dsh_example() -> (String, Value) {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/integrations.md");
    let doc = std::fs::read_to_string(&path).expect("docs/integrations.md");
    let mut blocks = Vec::new();
    let mut current: Option<String> = None;
    for line in doc.lines() {
        match &mut current {
            None if line.trim_start().starts_with("```yaml") => current = Some(String::new()),
            Some(block) if line.trim_start().starts_with("```") => {
                blocks.push(std::mem::take(block));
                current = None;
            }
            Some(block) => {
                block.push_str(line);
                block.push('\n');
            }
            None => {}
        }
    }
    let block = blocks
        .into_iter()
        .find(|b| b.contains("@deepseek-ai/dsh-mcp-client"))
        .expect("a yaml block with the dsh-mcp-client row");
    let parsed: Value = serde_yaml_ng::from_str(&block).expect("the example is valid YAML");
    (block, parsed)
}

/// The `@deepseek-ai/dsh-mcp-client` row of a `cordis.patch.yml` document.
fn mcp_client_row(patch: &Value) -> Value {
    patch
        .as_array()
        .expect("a cordis.patch.yml is a list of operations")
        .iter()
        .filter_map(|op| op["insert"].as_array())
        .flatten()
        .find(|row| row["name"] == "@deepseek-ai/dsh-mcp-client")
        .cloned()
        .expect("an inserted @deepseek-ai/dsh-mcp-client row")
}

async fn run_dsh_row(home: &Home, row: &Value) {
    let config = &row["config"];
    assert_eq!(config["transport"], "stdio");
    assert_eq!(config["serverName"], "askd");
    let timeout = config["toolCallTimeoutMs"]
        .as_u64()
        .expect("toolCallTimeoutMs");
    assert!(
        timeout > 60_000,
        "toolCallTimeoutMs must be raised above 60 s: {timeout}"
    );
    let command = config["command"].as_str().expect("command");
    let args: Vec<&str> = config["args"]
        .as_array()
        .expect("args")
        .iter()
        .map(|a| a.as_str().unwrap())
        .collect();
    assert_eq!((command, args.as_slice()), ("askd", &["mcp"][..]));
    // Run the command line as written, with the built askd first on PATH.
    let bin_dir = std::path::Path::new(env!("CARGO_BIN_EXE_askd"))
        .parent()
        .unwrap();
    let path = format!(
        "{}:{}",
        bin_dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut cmd = home.command(command, &args, &[("PATH", &path)]);
    if let Some(env) = config["env"].as_object() {
        for (k, v) in env {
            cmd.env(k, v.as_str().expect("env values are strings"));
        }
    }
    let a = Adapter::spawn(cmd, "dsh-mcp-client").await;
    let tools = a.service.list_all_tools().await.unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
    assert_eq!(names, TOOLS);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_deepseek_harness_example_runs() {
    let (_, patch) = dsh_example();
    let row = mcp_client_row(&patch);
    let home = Home::new();
    run_dsh_row(&home, &row).await;

    // The plugin bundle adds the same row, and its manifest points at its patch.
    let bundle = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../integrations/dsh");
    let manifest: Value =
        serde_json::from_str(&std::fs::read_to_string(bundle.join("package.json")).unwrap())
            .expect("package.json");
    let patch_file = manifest["dsh"]["bundle"]["patch"]
        .as_str()
        .expect("dsh.bundle.patch");
    let text = std::fs::read_to_string(bundle.join(patch_file)).expect("the bundle's patch");
    let bundle_patch: Value = serde_yaml_ng::from_str(&text).unwrap();
    let ops = bundle_patch.as_array().unwrap();
    let rows: Vec<&Value> = ops
        .iter()
        .filter_map(|op| op["insert"].as_array())
        .flatten()
        .collect();
    assert_eq!(rows.len(), 1, "the bundle only adds the MCP client row");
    assert_eq!(ops.len(), 1);
    assert_eq!(
        mcp_client_row(&bundle_patch),
        row,
        "the bundle and the docs agree"
    );
    assert!(
        manifest["files"]
            .as_array()
            .is_some_and(|f| f.iter().any(|x| x == patch_file.trim_start_matches("./")))
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_adapter_outlives_an_idle_exit_of_its_daemon() {
    let home = Home::new();
    let a = home
        .adapter("long-session", &[("ASKD_IDLE_EXIT", "1")])
        .await;
    let first = home.daemon().expect("daemon.json").pid;
    let mut args = questions(1);
    args["timeout_s"] = json!(0);
    let handle = structured(&a.call("ask_user_question", args).await);
    home.api()
        .submit(
            handle["ask_id"].as_str().unwrap(),
            json!({"answers": [{"id": "q", "selected": ["No"]}]}),
        )
        .await;
    // Nothing pending, no requests: the daemon exits after a second.
    let deadline = Instant::now() + Duration::from_secs(15);
    while alive(first) {
        assert!(
            Instant::now() < deadline,
            "the daemon did not exit when idle"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    // The adapter starts it again on its next call.
    let mut args = questions(2);
    args["timeout_s"] = json!(0);
    let r = a.call("ask_user_question", args).await;
    assert_ne!(r["isError"], true, "{r}\nstderr: {}", a.stderr());
    assert_eq!(structured(&r)["outcome"], "pending");
    let second = home.daemon().expect("a new daemon.json").pid;
    assert_ne!(second, first);
    assert_eq!(
        home.api().asks().await.len(),
        2,
        "the first ask's record survived"
    );
}

/// `/mcp` serves the configured `[alignment]` mode (`alignment.md` §3.3), and a request's
/// `_meta["askd/session"]` picks the session for that call (§4.2).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mcp_over_http_follows_the_alignment_config_and_the_meta_session() {
    let home = Home::new();
    // The adapter starts the daemon, which inherits its environment.
    let starter = home
        .adapter("starter", &[("ASKD_ALIGNMENT_MODE", "manual")])
        .await;
    let known =
        starter.call("alignment_status", json!({})).await["structuredContent"]["session"]["id"]
            .as_str()
            .unwrap()
            .to_string();
    let api = home.api();
    let (url, token) = (api.daemon.url.clone(), api.daemon.token.clone());
    let http = reqwest::Client::new();
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "http-agent", "version": "1.0"}}});
    let (status, session, message) = mcp_post(&http, &url, Some(&token), None, init).await;
    assert_eq!(status, 200, "{message}");
    let instructions = message["result"]["instructions"].as_str().unwrap();
    assert!(
        !instructions.contains("## Requirements alignment"),
        "manual mode: no policy in the instructions"
    );
    let session = session.unwrap();
    mcp_post(
        &http,
        &url,
        Some(&token),
        Some(&session),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
    )
    .await;
    let (_, _, message) = mcp_post(
        &http,
        &url,
        Some(&token),
        Some(&session),
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
            "name": "alignment_status", "arguments": {},
            "_meta": {"askd/session": known}}}),
    )
    .await;
    let sc = &message["result"]["structuredContent"];
    assert_eq!(sc["session"]["id"], known.as_str(), "{message}");
    assert_eq!(sc["mode"]["configured"], "manual");
    assert_eq!(sc["mode"]["effective"], "manual");
    let (_, _, message) = mcp_post(
        &http,
        &url,
        Some(&token),
        Some(&session),
        json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {
            "name": "alignment_status", "arguments": {}}}),
    )
    .await;
    let own = message["result"]["structuredContent"]["session"]["id"].clone();
    assert!(own.is_string(), "{message}");
    assert_ne!(
        own,
        known.as_str(),
        "without _meta the HTTP session has its own"
    );
    let sessions = api
        .get(&format!(
            "/api/sessions/{}/alignment",
            own.as_str().unwrap()
        ))
        .await;
    assert_eq!(sessions["session"]["id"], own);
}

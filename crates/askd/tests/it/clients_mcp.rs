//! What askd does for every client (`clients.md` §2), through the real adapter (`askd mcp`
//! as a child process of an rmcp client). The real clients themselves are driven by the
//! suite under `tests/clients/`.

use crate::common_mcp;

use std::time::{Duration, Instant};

use common_mcp::*;
use rmcp::model::CallToolRequestParams;
use serde_json::{Value, json};

/// §2.5: a result settled while no call waited is returned to an identical repeat call in
/// the same session — no duplicate ask, nothing stranded — and only once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_undelivered_result_is_returned_to_the_identical_repeat_call() {
    let home = Home::new();
    let a = home.adapter("claude-code", &[]).await;
    let api = home.api();
    let call = a.start_call("ask_user_question", questions(7)).await;
    let id = api.new_ask(&[]).await["id"].as_str().unwrap().to_string();
    // The client gives up (its own timeout): the call is cancelled, the ask stays pending.
    call.cancel(Some("client timeout".into())).await.unwrap();
    let deadline = Instant::now() + Duration::from_secs(10);
    while api.ask(&id).await["awaited"] != false {
        assert!(Instant::now() < deadline, "still awaited after the cancel");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    // The human answers while nobody waits.
    api.submit(
        &id,
        json!({"answers": [{"id": "q", "selected": ["Yes (Recommended)"]}]}),
    )
    .await;
    // The model retries the same call: it gets that answer, not a new ask.
    let r = a.call("ask_user_question", questions(7)).await;
    let sc = structured(&r);
    assert_eq!(sc["outcome"], "answered", "{sc}");
    assert_eq!(sc["ask_id"], id.as_str());
    assert_eq!(sc["answers"][0]["selected"], json!(["Yes (Recommended)"]));
    assert_eq!(api.asks().await.len(), 1, "no duplicate ask");
    // Delivered now: the same call again is a new question for the human.
    let mut again = questions(7);
    again["timeout_s"] = json!(0);
    let r = structured(&a.call("ask_user_question", again).await);
    assert_eq!(r["outcome"], "pending", "{r}");
    assert_ne!(r["ask_id"], id.as_str());
    assert_eq!(api.asks().await.len(), 2);
    kill_daemon(&home).await;
}

/// §2.6: a 2026-07-28 client names itself in every request's `_meta`; askd labels the
/// session with that name (not `mcp-client`) and gives it that client's wait budget.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_client_named_in_request_meta_labels_the_session() {
    let home = Home::new();
    // An initialize name that is not the client's: the per-request identity wins.
    let a = home.adapter("mcp-client", &[]).await;
    let api = home.api();
    let mut args = questions(8);
    args["timeout_s"] = json!(0);
    let params: CallToolRequestParams = serde_json::from_value(json!({
        "name": "ask_user_question",
        "arguments": args,
        "_meta": {
            "io.modelcontextprotocol/clientInfo": {"name": "claude-code", "version": "2.1.332"},
            "io.modelcontextprotocol/clientCapabilities": {"roots": {"listChanged": true}}
        }
    }))
    .unwrap();
    let r = a.service.call_tool(params).await.expect("tools/call");
    let r: Value = serde_json::to_value(r).unwrap();
    assert_eq!(structured(&r)["outcome"], "pending", "{r}");
    let asks = api.asks().await;
    assert_eq!(asks[0]["client"], "claude-code", "{asks:#?}");
    kill_daemon(&home).await;
}

/// §2.1: every tool is annotated, so Codex's `codex exec` runs it without an approval
/// prompt: read-only, or neither destructive nor open-world.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_tool_carries_annotations_codex_runs_without_approval() {
    let home = Home::new();
    let a = home.adapter("codex-mcp-client", &[]).await;
    let tools = a.service.list_all_tools().await.expect("tools/list");
    assert!(tools.len() >= 10);
    for t in tools {
        let v = serde_json::to_value(&t).unwrap();
        let ann = &v["annotations"];
        assert!(ann["title"].is_string(), "{}: {ann}", t.name);
        assert_eq!(ann["openWorldHint"], false, "{}", t.name);
        let runs = ann["readOnlyHint"] == true
            || (ann["destructiveHint"] == false && ann["openWorldHint"] == false);
        assert!(runs, "{} would need approval in codex exec: {ann}", t.name);
    }
    for (tool, read_only) in [
        ("await_answer", true),
        ("survey_records", true),
        ("ask_user_question", false),
        ("ask_survey", false),
        ("batch_review", false),
    ] {
        let list = a.service.list_all_tools().await.unwrap();
        let t = list.iter().find(|t| t.name == tool).unwrap();
        let ann = serde_json::to_value(&t.annotations).unwrap();
        assert_eq!(ann["readOnlyHint"], read_only, "{tool}");
    }
    kill_daemon(&home).await;
}

/// §2.3: no schema uses a custom `format`, `$schema`, or a type union other than
/// `[T, "null"]` (the TypeScript SDK's ajv strict mode refuses them; the real ajv check is
/// in tests/clients/).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn schemas_stay_in_the_strict_subset() {
    fn walk(v: &Value, at: &str, bad: &mut Vec<String>) {
        match v {
            Value::Object(o) => {
                for (k, x) in o {
                    let here = format!("{at}/{k}");
                    let is_keyword_position = !at.ends_with("/properties");
                    if is_keyword_position && (k == "format" || k == "$schema") {
                        bad.push(here.clone());
                    }
                    if is_keyword_position
                        && k == "type"
                        && let Some(ts) = x.as_array()
                        && !(ts.len() == 2 && ts.iter().any(|t| t == "null"))
                    {
                        bad.push(format!("{here} = {x}"));
                    }
                    walk(x, &here, bad);
                }
            }
            Value::Array(a) => {
                for (i, x) in a.iter().enumerate() {
                    walk(x, &format!("{at}/{i}"), bad);
                }
            }
            _ => {}
        }
    }
    let home = Home::new();
    let a = home.adapter("mcp-client", &[]).await;
    let mut bad = Vec::new();
    for t in a.service.list_all_tools().await.unwrap() {
        let v = serde_json::to_value(&t).unwrap();
        walk(&v["inputSchema"], &format!("{}:input", t.name), &mut bad);
        walk(&v["outputSchema"], &format!("{}:output", t.name), &mut bad);
    }
    assert!(bad.is_empty(), "outside the strict subset: {bad:#?}");
    kill_daemon(&home).await;
}

/// §2.8: `alignment_status` stays under 8 KB however long the session — here 5,000
/// answered asks — and pages to older decisions with its cursor.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn alignment_status_stays_under_8_kb_for_5000_answered_asks() {
    // The data directory in memory: 10,000 commits.
    let home = Home {
        dir: tempfile::tempdir_in("/dev/shm").unwrap_or_else(|_| tempfile::tempdir().unwrap()),
    };
    let a = home.adapter("claude-code", &[]).await;
    let api = home.api();
    let mut first = questions(0);
    first["timeout_s"] = json!(0);
    let handle = structured(&a.call("ask_user_question", first).await);
    let first_id = handle["ask_id"].as_str().unwrap().to_string();
    let session = api.ask(&first_id).await["session"]
        .as_str()
        .unwrap()
        .to_string();
    const N: usize = 5000;
    let api = std::sync::Arc::new(api);
    let mut set = tokio::task::JoinSet::new();
    for worker in 0..8 {
        let (api, session) = (api.clone(), session.clone());
        set.spawn(async move {
            for i in (worker..N).step_by(8) {
                let (status, created) = api
                    .call(
                        reqwest::Method::POST,
                        "/api/asks",
                        Some(json!({"kind": "questions", "session": session,
                                    "args": questions(i + 1)})),
                    )
                    .await;
                assert_eq!(status, 201, "{created}");
                let id = created["ask_id"].as_str().expect("ask_id").to_string();
                api.submit(
                    &id,
                    json!({"answers": [{"id": "q", "selected": ["Yes (Recommended)"]}]}),
                )
                .await;
            }
        });
    }
    while let Some(r) = set.join_next().await {
        r.expect("a worker");
    }
    let r = a.call("alignment_status", json!({})).await;
    let text = r["content"][0]["text"].as_str().unwrap().to_string();
    let sc = structured(&r);
    // What a model reads: the structured result (Claude Code, Codex), or every text block
    // joined (DeepSeek Harness shows only text).
    let structured_size = serde_json::to_string(&r["structuredContent"])
        .unwrap()
        .len();
    let shown_as_text: Vec<&str> = r["content"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|b| b["text"].as_str())
        .collect();
    let text_size = shown_as_text.join("\n").len();
    eprintln!(
        "alignment_status for {N} answered asks: structuredContent {structured_size} bytes, text blocks {text_size} bytes (first block {} bytes)",
        text.len()
    );
    assert!(structured_size < 8 * 1024, "{structured_size} bytes");
    assert!(text_size < 8 * 1024, "{text_size} bytes");
    assert_eq!(sc["rounds"], N as u64);
    assert_eq!(sc["settled_decisions_page"]["total"], N as u64);
    let page = sc["settled_decisions"].as_array().unwrap();
    assert!(!page.is_empty());
    assert!(
        page.iter().all(|d| d["question"]
            .as_str()
            .unwrap()
            .starts_with("Question number ")),
        "{page:#?}"
    );
    // The cursor pages to older decisions, and the first page has no cursor.
    let before = sc["settled_decisions_page"]["before"].as_u64().unwrap();
    let older = structured(&a.call("alignment_status", json!({"before": before})).await);
    assert_eq!(older["settled_decisions_page"]["to"], before);
    let oldest = structured(&a.call("alignment_status", json!({"before": 3})).await);
    assert_eq!(oldest["settled_decisions"].as_array().unwrap().len(), 3);
    assert_eq!(oldest["settled_decisions_page"]["before"], Value::Null);
    kill_daemon(&home).await;
}

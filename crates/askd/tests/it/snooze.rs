//! Issue 35, snooze: the human answers "ask me again in …". The agent's waiting call comes
//! back at once with `deferred_until` and when to return; the ask stays answerable; the
//! record says it was put off; a snooze cannot outlast the deadline. The notifier says
//! "closes soon" before a deadline and "back in your inbox" when a snooze ends, and holds
//! reminders meanwhile. Driven through the built `askd mcp` (raw JSON-RPC), the daemon's API
//! and a webhook receiver on loopback.

use crate::common_mcp;

use std::time::{Duration, Instant};

use common_mcp::raw::Raw;
use common_mcp::*;
use serde_json::{Value, json};

async fn initialize(a: &mut Raw) {
    a.send(&json!({
        "jsonrpc": "2.0", "id": "init", "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                   "clientInfo": {"name": "snooze-test", "version": "1.0.0"}}
    }))
    .await;
    a.response().await;
    a.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
        .await;
}

fn tool_call(id: i64, tool: &str, arguments: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
           "params": {"name": tool, "arguments": arguments}})
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_waiting_agent_is_told_when_to_come_back_and_the_ask_stays_answerable() {
    let home = Home::new();
    let mut a = Raw::spawn(&home);
    initialize(&mut a).await;
    // The agent's call waits (a minute's budget); the human puts the ask off for an hour.
    let mut args = questions(1);
    args["timeout_s"] = json!(60);
    a.send(&tool_call(1, "ask_user_question", args)).await;
    let api = home.api();
    let ask = api.new_ask(&[]).await;
    let id = ask["id"].as_str().unwrap().to_string();
    let asked = Instant::now();
    let snoozed = api
        .post(&format!("/api/asks/{id}/snooze"), json!({"for_s": 3600}))
        .await;
    let until = snoozed["deferred_until"].as_str().unwrap().to_string();
    let r = a.response().await;
    assert!(
        asked.elapsed() < Duration::from_secs(20),
        "the call came back at once"
    );
    let handle = &r["result"]["structuredContent"];
    assert_eq!(handle["outcome"], "pending", "{r}");
    assert_eq!(handle["deferred_until"], until.as_str());
    let instruction = handle["instruction"].as_str().unwrap();
    assert!(
        instruction.contains(&until) && instruction.contains("await_answer"),
        "{instruction}"
    );
    // The inbox and the page know it is put off.
    let listed = api.asks().await;
    assert_eq!(listed[0]["deferred_until"], until.as_str(), "{listed:?}");
    assert_eq!(api.ask(&id).await["deferred_until"], until.as_str());
    // An await_answer meanwhile does not sit out its budget.
    let started = Instant::now();
    a.send(&tool_call(
        2,
        "await_answer",
        json!({"ask_id": id, "timeout_s": 30}),
    ))
    .await;
    let r = a.response().await;
    assert!(started.elapsed() < Duration::from_secs(10), "{r}");
    assert_eq!(
        r["result"]["structuredContent"]["deferred_until"],
        until.as_str()
    );
    // The human answers before the time after all: the agent gets the answer, and the
    // record says the ask had been put off.
    api.submit(&id, json!({"answers": [{"id": "q", "selected": ["No"]}]}))
        .await;
    a.send(&tool_call(3, "await_answer", json!({"ask_id": id})))
        .await;
    let r = a.response().await;
    let result = &r["result"]["structuredContent"];
    assert_eq!(result["outcome"], "answered", "{r}");
    assert!(result.get("deferred_until").is_none(), "{result}");
    let records = api.get("/api/records?kind=questions").await;
    assert_eq!(
        records["records"][0]["record"]["deferred_until"],
        until.as_str(),
        "{records}"
    );
    // A settled ask is not put off again.
    let (status, body) = api
        .call(
            reqwest::Method::POST,
            &format!("/api/asks/{id}/snooze"),
            Some(json!({"for_s": 60})),
        )
        .await;
    assert_eq!(status, 409, "{body}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_snooze_cannot_outlast_the_deadline_and_a_bad_one_names_its_field() {
    let home = Home::new();
    let mut a = Raw::spawn(&home);
    initialize(&mut a).await;
    let mut args = questions(2);
    args["timeout_s"] = json!(0);
    args["deadline"] = json!({"in_s": 600});
    a.send(&tool_call(1, "ask_user_question", args)).await;
    let r = a.response().await;
    let id = r["result"]["structuredContent"]["ask_id"]
        .as_str()
        .unwrap()
        .to_string();
    let api = home.api();
    let snooze = |body: Value| {
        let api = api.clone();
        let path = format!("/api/asks/{id}/snooze");
        async move { api.call(reqwest::Method::POST, &path, Some(body)).await }
    };
    let (status, body) = snooze(json!({"for_s": 3600})).await;
    assert_eq!(status, 422, "{body}");
    assert_eq!(body["code"], "snooze-after-deadline", "{body}");
    assert_eq!(body["errors"][0]["path"], "for_s", "{body}");
    assert!(
        body["message"]
            .as_str()
            .unwrap()
            .contains("move the deadline"),
        "{body}"
    );
    for (bad, path) in [
        (json!({"for_s": 0}), "for_s"),
        (json!({"for_s": "1h"}), "for_s"),
        (json!({"until": "tomorrow"}), "until"),
        (json!({"until": "2020-01-01T00:00:00Z"}), "until"),
        (json!({}), "for_s"),
    ] {
        let (status, body) = snooze(bad.clone()).await;
        assert_eq!(status, 422, "{bad}: {body}");
        assert_eq!(body["errors"][0]["path"], path, "{bad}: {body}");
    }
    let (status, body) = snooze(json!({"for_s": 60, "why": "x"})).await;
    assert_eq!(status, 422, "an unknown member is refused: {body}");
    // Within the deadline it is taken, and the ask stays pending.
    let (status, body) = snooze(json!({"for_s": 300})).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(api.ask(&id).await["state"], "pending");
}

/// The notifier: "closes soon" `[notify] beforeDeadline` before a deadline; "back in your
/// inbox" when a snooze ends; no reminder while an ask is put off.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_notifier_warns_before_a_deadline_and_says_when_a_snoozed_ask_is_back() {
    use askd_testkit::serve::Launch;
    let (got, hook) = common_mcp::webhook::receiver().await;
    let d = Launch::temp_home(env!("CARGO_BIN_EXE_askd"))
        .env("ASKD_NOTIFY_WEBHOOK", format!("json={hook}"))
        .env("ASKD_NOTIFY_DESKTOP", "false")
        .env("ASKD_NOTIFY_AFTER", "2s")
        .env("ASKD_NOTIFY_BEFORE_DEADLINE", "3s")
        .start();
    let create = |args: Value| {
        let d = &d;
        async move {
            let (status, body) = d
                .call(
                    reqwest::Method::POST,
                    "/api/asks",
                    Some(json!({"kind": "questions", "args": args})),
                )
                .await;
            assert_eq!(status, 201, "{body}");
            body["ask_id"].as_str().unwrap().to_string()
        }
    };
    let mut closing = questions(10);
    closing["deadline"] = json!({"in_s": 8});
    let closing = create(closing).await;
    // Too near to be worth a warning: 3 s before a 4 s deadline.
    let mut near = questions(11);
    near["deadline"] = json!({"in_s": 4});
    let near = create(near).await;
    let parked = create(questions(12)).await;
    let (status, body) = d
        .call(
            reqwest::Method::POST,
            &format!("/api/asks/{parked}/snooze"),
            Some(json!({"for_s": 4})),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    let messages = |id: &str| -> Vec<Value> {
        got.lock()
            .unwrap()
            .iter()
            .filter_map(|b| serde_json::from_str::<Value>(b).ok())
            .filter(|m| m["ask"]["id"] == id)
            .collect()
    };
    let until = Instant::now() + Duration::from_secs(15);
    while messages(&parked)
        .iter()
        .all(|m| m["event"] != "ask.deferred")
        || messages(&closing)
            .iter()
            .all(|m| m["event"] != "ask.deadline")
    {
        assert!(
            Instant::now() < until,
            "messages: {:?}",
            got.lock().unwrap()
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    // Let the deadlines pass, so any late message is in.
    tokio::time::sleep(Duration::from_secs(3)).await;
    let warned: Vec<Value> = messages(&closing)
        .into_iter()
        .filter(|m| m["event"] == "ask.deadline")
        .collect();
    assert_eq!(warned.len(), 1, "{warned:?}");
    let text = warned[0]["text"].as_str().unwrap();
    assert!(
        text.starts_with("Closes at ") && text.contains("UTC"),
        "{text}"
    );
    assert!(warned[0]["ask"]["expiresAt"].is_string(), "{warned:?}");
    let near: Vec<String> = messages(&near)
        .iter()
        .map(|m| m["event"].as_str().unwrap().to_string())
        .collect();
    assert!(!near.contains(&"ask.deadline".to_string()), "{near:?}");
    // The put-off ask: its "new" message, no reminder while put off, then "back" once.
    let parked: Vec<(String, String)> = messages(&parked)
        .iter()
        .map(|m| {
            (
                m["event"].as_str().unwrap().to_string(),
                m["text"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    let back: Vec<&(String, String)> = parked.iter().filter(|m| m.0 == "ask.deferred").collect();
    assert_eq!(back.len(), 1, "{parked:?}");
    assert!(back[0].1.starts_with("Back in your inbox: "), "{parked:?}");
    let first_back = parked.iter().position(|m| m.0 == "ask.deferred").unwrap();
    assert!(
        parked[..first_back].iter().all(|m| m.0 != "ask.reminder"),
        "a reminder went out while the ask was put off: {parked:?}"
    );
}

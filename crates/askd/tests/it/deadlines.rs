//! Issue 35, deadlines: an ask with a deadline settles by itself when nobody answers — the
//! agent's default applied and marked `expired`/`defaulted`, or the ask closed — after a
//! daemon restart too, and exactly once across the daemons of a team. Driven through the
//! built `askd mcp` (raw JSON-RPC) and the daemon's API.

use crate::common_mcp;

use std::time::{Duration, Instant};

use common_mcp::raw::Raw;
use common_mcp::*;
use serde_json::{Value, json};

async fn initialize(a: &mut Raw) {
    a.send(&json!({
        "jsonrpc": "2.0", "id": "init", "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                   "clientInfo": {"name": "deadline-test", "version": "1.0.0"}}
    }))
    .await;
    a.response().await;
    a.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
        .await;
}

/// One tool call's `structuredContent` (or the whole answer when it has none).
async fn call(a: &mut Raw, id: i64, tool: &str, arguments: Value) -> Value {
    a.send(&json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                   "params": {"name": tool, "arguments": arguments}}))
        .await;
    let r = a.response().await;
    match r["result"].get("structuredContent") {
        Some(s) => s.clone(),
        None => r,
    }
}

fn with_deadline(n: usize, deadline: Value) -> Value {
    let mut args = questions(n);
    args["timeout_s"] = json!(0);
    args["deadline"] = deadline;
    args
}

/// Waits until the ask is settled; its view.
async fn settled(api: &Api, id: &str, within: Duration) -> Value {
    let until = Instant::now() + within;
    loop {
        let v = api.ask(id).await;
        if v["state"] == "settled" {
            return v;
        }
        assert!(Instant::now() < until, "ask {id} did not settle: {v}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// `POST /api/asks` of `kind` with `args` on a daemon started by the test.
async fn create_on(d: &askd_testkit::serve::Serve, kind: &str, args: Value) -> (u16, Value) {
    d.call(
        reqwest::Method::POST,
        "/api/asks",
        Some(json!({"kind": kind, "args": args})),
    )
    .await
}

/// Waits (up to 10 s) until the ask is settled on `d`; its view as it then is.
async fn settled_on(d: &askd_testkit::serve::Serve, id: &str) -> Value {
    let until = Instant::now() + Duration::from_secs(10);
    loop {
        let (_, v) = d
            .call(reqwest::Method::GET, &format!("/api/asks/{id}"), None)
            .await;
        if v["state"] == "settled" || Instant::now() > until {
            return v;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_deadline_applies_the_default_marked_and_the_agent_is_told() {
    let home = Home::new();
    let mut a = Raw::spawn(&home);
    initialize(&mut a).await;
    let pending = call(
        &mut a,
        1,
        "ask_user_question",
        with_deadline(1, json!({"in_s": 2, "default": {"q": "No"}})),
    )
    .await;
    assert_eq!(pending["outcome"], "pending", "{pending}");
    assert!(pending["expires_at"].is_string(), "{pending}");
    assert_eq!(pending["deadline"]["then"], "default");
    let id = pending["ask_id"].as_str().unwrap().to_string();
    let api = home.api();
    assert!(api.ask(&id).await["deadline"]["expires_at"].is_string());
    let view = settled(&api, &id, Duration::from_secs(10)).await;
    assert_eq!(view["outcome"], "expired", "{view}");
    let result = call(&mut a, 2, "await_answer", json!({"ask_id": id})).await;
    assert_eq!(result["outcome"], "expired", "{result}");
    assert_eq!(result["defaulted"], true);
    assert_eq!(result["answers"][0]["selected"], json!(["No"]));
    assert!(result.get("surface").is_none(), "nobody answered: {result}");
    assert!(
        result["handling"]
            .as_str()
            .unwrap()
            .contains("not the human's choice"),
        "{result}"
    );
    // The record says so too.
    let records = api.get("/api/records?kind=questions").await;
    let record = &records["records"][0]["record"];
    assert_eq!(record["outcome"], "expired", "{records}");
    assert_eq!(record["defaulted"], true);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_deadline_fires_after_a_restart_and_a_person_may_move_it() {
    let home = Home::new();
    let mut a = Raw::spawn(&home);
    initialize(&mut a).await;
    // Without a default the ask closes at its deadline.
    let closing = call(
        &mut a,
        1,
        "ask_user_question",
        with_deadline(2, json!({"in_s": 2})),
    )
    .await;
    let id = closing["ask_id"].as_str().unwrap().to_string();
    let moved = call(
        &mut a,
        2,
        "ask_user_question",
        with_deadline(3, json!({"in_s": 2})),
    )
    .await;
    let moved_id = moved["ask_id"].as_str().unwrap().to_string();
    let api = home.api();
    let r = api
        .post(
            &format!("/api/asks/{moved_id}/deadline"),
            json!({"extend_s": 3600}),
        )
        .await;
    assert!(r["expires_at"].as_str().unwrap() > moved["expires_at"].as_str().unwrap());
    drop(a);
    kill_daemon(&home).await;
    tokio::time::sleep(Duration::from_secs(3)).await;
    // The next adapter starts the daemon again: the passed deadline fires at once.
    let mut b = Raw::spawn(&home);
    initialize(&mut b).await;
    let result = call(
        &mut b,
        1,
        "await_answer",
        json!({"ask_id": id, "timeout_s": 10}),
    )
    .await;
    assert_eq!(result["outcome"], "expired", "{result}");
    assert_eq!(result["defaulted"], false);
    assert!(result.get("error").is_none(), "{result}");
    let api = home.api();
    assert_eq!(api.ask(&moved_id).await["state"], "pending");
    // A refused deadline names its field.
    let bad = call(
        &mut b,
        2,
        "ask_user_question",
        with_deadline(4, json!({"in_s": 5, "default": {"q": "Maybe"}})),
    )
    .await;
    let text = bad.to_string();
    assert!(text.contains("deadline.default"), "{text}");
}

/// Three daemons on one PostgreSQL database reach the same deadline: one settles it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_deadline_fires_exactly_once_across_a_team() {
    use askd_testkit::serve::Launch;
    let db = askd_store::pg_test::cluster().database().await;
    let (got, hook) = common_mcp::webhook::receiver().await;
    let webhook = format!("json={hook}");
    let start = || {
        Launch::temp_home(env!("CARGO_BIN_EXE_askd"))
            .env("ASKD_DATABASE_URL", &db.url)
            .env("ASKD_NOTIFY_WEBHOOK", &webhook)
            .env("ASKD_NOTIFY_DESKTOP", "false")
            .start()
    };
    let daemons = [start(), start(), start()];
    let mut ids = Vec::new();
    for n in 0..5 {
        let mut args = questions(100 + n);
        args["deadline"] = json!({"in_s": 2, "default": {"q": "Yes (Recommended)"}});
        let (status, body) = create_on(&daemons[n % 3], "questions", args).await;
        assert_eq!(status, 201, "{body}");
        ids.push(body["ask_id"].as_str().unwrap().to_string());
    }
    tokio::time::sleep(Duration::from_secs(4)).await;
    for id in &ids {
        // The log holds one settle of each: one event, hence one notification, one record.
        let settles = db
            .sql(&format!(
                "SELECT count(*)::text FROM events WHERE kind = 'ask.settled' AND ask_id = '{id}'"
            ))
            .await;
        assert_eq!(settles, ["1"], "ask {id}");
        let (_, view) = daemons[2]
            .call(reqwest::Method::GET, &format!("/api/asks/{id}"), None)
            .await;
        assert_eq!(view["outcome"], "expired", "{view}");
        // One message said it was asked, one that nobody answered in time (and no more:
        // a second would come within a second of the first).
        let about = || -> Vec<String> {
            got.lock()
                .unwrap()
                .iter()
                .filter(|b| b.contains(id.as_str()))
                .cloned()
                .collect()
        };
        let until = Instant::now() + Duration::from_secs(10);
        while about().len() < 2 && Instant::now() < until {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
        let about = about();
        assert_eq!(about.len(), 2, "{about:?}");
        assert!(
            about[1].contains("nobody answered by the deadline"),
            "{about:?}"
        );
    }
}

/// A review's deadline applies the verdicts the agent named; its report, the first thing the
/// agent reads, opens by saying they are not the human's.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_review_deadline_applies_the_named_verdicts_and_its_report_says_so() {
    let home = Home::new();
    let mut a = Raw::spawn(&home);
    initialize(&mut a).await;
    let args = json!({
        "title": "Release checklist",
        "items": [
            {"id": "c1", "title": "Copy button copies the full path"},
            {"id": "c2", "title": "Download keeps the file name"}
        ],
        "timeout_s": 0,
        "deadline": {"in_s": 2, "default": {"c1": "pass"}}
    });
    let pending = call(&mut a, 1, "batch_review", args).await;
    let id = pending["ask_id"].as_str().unwrap().to_string();
    assert!(pending["expires_at"].is_string(), "{pending}");
    settled(&home.api(), &id, Duration::from_secs(10)).await;
    a.send(&json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                   "params": {"name": "await_answer", "arguments": {"ask_id": id}}}))
        .await;
    let r = a.response().await;
    let first = r["result"]["content"][0]["text"].as_str().unwrap();
    assert!(
        first.starts_with("EXPIRED: nobody answered by the deadline."),
        "{first}"
    );
    let s = &r["result"]["structuredContent"];
    assert_eq!(s["outcome"], "expired", "{s}");
    assert_eq!(s["defaulted"], true);
    // A verdict for an item the review does not have is refused at the start.
    let bad = call(
        &mut a,
        3,
        "batch_review",
        json!({"title": "Another checklist", "items": [{"id": "c1", "title": "One"}],
               "deadline": {"in_s": 5, "default": {"zz": "pass"}}}),
    )
    .await;
    assert!(bad.to_string().contains("deadline.default"), "{bad}");
}

/// `[asks] deadline` (here `ASKD_ASKS_DEADLINE`): an ask without a deadline of its own
/// closes unanswered after it; one that names its own keeps it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_configured_deadline_closes_asks_that_name_none() {
    use askd_testkit::serve::Launch;
    let d = Launch::temp_home(env!("CARGO_BIN_EXE_askd"))
        .env("ASKD_ASKS_DEADLINE", "2s")
        .start();
    let create = |args: Value| {
        let d = &d;
        async move {
            let (status, body) = create_on(d, "questions", args).await;
            assert_eq!(status, 201, "{body}");
            body["ask_id"].as_str().unwrap().to_string()
        }
    };
    let plain = create(questions(200)).await;
    let mut own = questions(201);
    own["deadline"] = json!({"in_s": 3600});
    let own = create(own).await;
    let view = settled_on(&d, &plain).await;
    assert_eq!(view["outcome"], "expired", "{view}");
    assert_eq!(view["result"]["defaulted"], false);
    let (_, v) = d
        .call(reqwest::Method::GET, &format!("/api/asks/{own}"), None)
        .await;
    assert_eq!(v["state"], "pending", "{v}");
}

/// A survey's deadline closes it (its path depends on its answers, so it takes no default).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_survey_deadline_closes_it_and_a_survey_default_is_refused() {
    use askd_testkit::serve::Launch;
    let d = Launch::temp_home(env!("CARGO_BIN_EXE_askd")).start();
    let mut args = fixture("release-scope.json");
    args["deadline"] = json!({"in_s": 2});
    let (status, body) = create_on(&d, "survey", args.clone()).await;
    assert_eq!(status, 201, "{body}");
    let id = body["ask_id"].as_str().unwrap().to_string();
    let view = settled_on(&d, &id).await;
    assert_eq!(view["outcome"], "expired", "{view}");
    assert_eq!(view["result"]["defaulted"], false);
    assert!(view["result"].get("error").is_none(), "{view}");
    args["deadline"] = json!({"in_s": 2, "default": {"scope": "a"}});
    let (status, body) = create_on(&d, "survey", args).await;
    assert_eq!(status, 422, "{body}");
    assert_eq!(body["code"], "DEADLINE_INVALID", "{body}");
}

/// `ask_survey` declares `deadline` and takes it: the pending handle says when, and the
/// agent's await_answer gets `expired` (a survey closes: it takes no default).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ask_survey_takes_a_deadline_through_mcp() {
    let home = Home::new();
    let mut a = Raw::spawn(&home);
    initialize(&mut a).await;
    a.send(&json!({"jsonrpc": "2.0", "id": 9, "method": "tools/list"}))
        .await;
    let tools = a.response().await;
    let survey = tools["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "ask_survey")
        .unwrap()
        .clone();
    assert_eq!(
        survey["inputSchema"]["properties"]["deadline"]["type"],
        "object"
    );
    let mut args = fixture("release-scope.json");
    args["deadline"] = json!({"in_s": 2});
    args["timeout_s"] = json!(0);
    let pending = call(&mut a, 1, "ask_survey", args).await;
    assert_eq!(pending["outcome"], "pending", "{pending}");
    assert!(pending["expires_at"].is_string(), "{pending}");
    let id = pending["ask_id"].as_str().unwrap().to_string();
    let result = call(
        &mut a,
        2,
        "await_answer",
        json!({"ask_id": id, "timeout_s": 15}),
    )
    .await;
    assert_eq!(result["outcome"], "expired", "{result}");
    assert_eq!(result["defaulted"], false);
}

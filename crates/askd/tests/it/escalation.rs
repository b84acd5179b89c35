//! Issue 35, escalation (team mode): `deadline: {…, then: "escalate", to}`. Nobody answers
//! by the deadline: the ask is offered to the named member (or everyone) and waits on; the
//! member's own webhook (`json@NAME=URL`) hears "Offered to …" and nothing else; the view,
//! the record and the agent's result show the chain; three daemons escalate it once.

use crate::common_mcp;

use std::time::{Duration, Instant};

use askd_testkit::serve::{Launch, Serve};
use common_mcp::*;
use serde_json::{Value, json};

type Got = std::sync::Arc<std::sync::Mutex<Vec<String>>>;

fn bodies(got: &Got, id: &str) -> Vec<Value> {
    got.lock()
        .unwrap()
        .iter()
        .filter_map(|b| serde_json::from_str::<Value>(b).ok())
        .filter(|m| m["ask"]["id"] == id)
        .collect()
}

async fn wait_for(got: &Got, id: &str, event: &str) {
    let until = Instant::now() + Duration::from_secs(15);
    while !bodies(got, id).iter().any(|m| m["event"] == event) {
        assert!(
            Instant::now() < until,
            "no {event} for {id}: {:?}",
            got.lock().unwrap()
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

async fn add_member(d: &Serve, name: &str) {
    let (status, body) = d
        .call(
            reqwest::Method::POST,
            "/api/members",
            Some(json!({"name": name})),
        )
        .await;
    assert_eq!(status, 201, "{body}");
}

async fn create(d: &Serve, n: usize, deadline: Value) -> (u16, Value) {
    let mut args = questions(n);
    args["deadline"] = deadline;
    d.call(
        reqwest::Method::POST,
        "/api/asks",
        Some(json!({"kind": "questions", "args": args})),
    )
    .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_escalation_reaches_the_members_webhook_and_the_ask_waits_on() {
    let (general, general_url) = common_mcp::webhook::receiver().await;
    let (bobs, bobs_url) = common_mcp::webhook::receiver().await;
    let d = Launch::temp_home(env!("CARGO_BIN_EXE_askd"))
        .env(
            "ASKD_NOTIFY_WEBHOOK",
            format!("json={general_url} json@bob={bobs_url}"),
        )
        .env("ASKD_NOTIFY_DESKTOP", "false")
        .start();
    // No member yet: nobody to escalate to.
    let (status, body) = create(&d, 1, json!({"in_s": 2, "then": "escalate", "to": "bob"})).await;
    assert_eq!(status, 422, "{body}");
    assert_eq!(body["errors"][0]["path"], "deadline.to", "{body}");
    assert!(
        body["message"]
            .as_str()
            .unwrap()
            .contains("askd members add"),
        "{body}"
    );
    add_member(&d, "bob").await;
    let (status, body) = create(&d, 2, json!({"in_s": 2, "then": "escalate", "to": "carol"})).await;
    assert_eq!(status, 422, "{body}");
    assert!(body["message"].as_str().unwrap().contains("bob"), "{body}");
    let (status, body) = create(
        &d,
        3,
        json!({"in_s": 2, "then": "escalate", "to": "bob", "default": {"q": "No"}}),
    )
    .await;
    assert_eq!(status, 422, "{body}");
    assert_eq!(body["errors"][0]["path"], "deadline.default", "{body}");
    // Escalated at the deadline: offered to bob, still waiting.
    let (status, body) = create(&d, 4, json!({"in_s": 2, "then": "escalate", "to": "bob"})).await;
    assert_eq!(status, 201, "{body}");
    let id = body["ask_id"].as_str().unwrap().to_string();
    wait_for(&bobs, &id, "ask.escalated").await;
    wait_for(&general, &id, "ask.escalated").await;
    tokio::time::sleep(Duration::from_secs(2)).await;
    let to_bob = bodies(&bobs, &id);
    assert_eq!(
        to_bob.len(),
        1,
        "bob's webhook hears only the offer: {to_bob:?}"
    );
    assert!(
        to_bob[0]["text"]
            .as_str()
            .unwrap()
            .starts_with("Offered to bob: "),
        "{to_bob:?}"
    );
    assert_eq!(to_bob[0]["ask"]["offeredTo"], "bob");
    let events: Vec<String> = bodies(&general, &id)
        .iter()
        .map(|m| m["event"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(events, ["ask.created", "ask.escalated"], "{events:?}");
    let (_, view) = d
        .call(reqwest::Method::GET, &format!("/api/asks/{id}"), None)
        .await;
    assert_eq!(view["state"], "pending", "{view}");
    assert_eq!(view["escalated"][0]["to"], "bob", "{view}");
    assert!(
        view.get("deadline").is_none(),
        "the deadline is spent: {view}"
    );
    // Answered after all: the agent's result and the record keep the chain.
    let (status, body) = d
        .call(
            reqwest::Method::POST,
            &format!("/api/asks/{id}/submit"),
            Some(json!({"answers": [{"id": "q", "selected": ["No"]}]})),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["result"]["escalated"][0]["to"], "bob", "{body}");
    let (_, records) = d
        .call(reqwest::Method::GET, "/api/records?kind=questions", None)
        .await;
    assert_eq!(
        records["records"][0]["record"]["escalated"][0]["to"], "bob",
        "{records}"
    );
}

/// Three daemons on one PostgreSQL database reach the same escalation: one offers it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_escalation_happens_once_across_a_team() {
    let db = askd_store::pg_test::cluster().database().await;
    let (bobs, bobs_url) = common_mcp::webhook::receiver().await;
    let webhook = format!("json@bob={bobs_url}");
    let start = || {
        Launch::temp_home(env!("CARGO_BIN_EXE_askd"))
            .env("ASKD_DATABASE_URL", &db.url)
            .env("ASKD_NOTIFY_WEBHOOK", &webhook)
            .env("ASKD_NOTIFY_DESKTOP", "false")
            .start()
    };
    let daemons = [start(), start(), start()];
    add_member(&daemons[0], "bob").await;
    let mut ids = Vec::new();
    for n in 0..4 {
        let (status, body) = create(
            &daemons[0],
            300 + n,
            json!({"in_s": 2, "then": "escalate", "to": "everyone"}),
        )
        .await;
        assert_eq!(status, 201, "{body}");
        ids.push(body["ask_id"].as_str().unwrap().to_string());
    }
    for id in &ids {
        wait_for(&bobs, id, "ask.escalated").await;
    }
    tokio::time::sleep(Duration::from_secs(2)).await;
    for id in &ids {
        let escalations = db
            .sql(&format!(
                "SELECT count(*)::text FROM events WHERE kind = 'ask.escalated' AND ask_id = '{id}'"
            ))
            .await;
        assert_eq!(escalations, ["1"], "ask {id}");
        assert_eq!(bodies(&bobs, id).len(), 1, "{:?}", bodies(&bobs, id));
    }
}

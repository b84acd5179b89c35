//! Issue 35, more than one approver (team mode): `approvals: {required, from}`. Each member's
//! answer is a vote kept with who gave it; the install's token and members `from` leaves out
//! cannot vote; a member's new vote replaces theirs; the quorum settles with every vote (and
//! says when they disagree); a rejection settles a review at once.

use askd_testkit::serve::{Launch, Serve};
use reqwest::Method;
use serde_json::{Value, json};

async fn add_member(d: &Serve, name: &str) -> String {
    let (status, b) = d
        .call(Method::POST, "/api/members", Some(json!({"name": name})))
        .await;
    assert_eq!(status, 201, "{b}");
    b["token"].as_str().unwrap().to_string()
}

/// A request as the member whose login token is `token` (their browser's cookie).
async fn as_member(
    d: &Serve,
    token: &str,
    method: Method,
    path: &str,
    body: Option<Value>,
) -> (u16, Value) {
    let mut req = reqwest::Client::new()
        .request(method, format!("{}{path}", d.url))
        .header("cookie", format!("askd_member={token}"))
        .header("origin", &d.url);
    if let Some(b) = body {
        req = req.json(&b);
    }
    let r = req.send().await.unwrap();
    let status = r.status().as_u16();
    (status, r.json().await.unwrap_or(Value::Null))
}

async fn create(d: &Serve, kind: &str, args: Value) -> (u16, Value) {
    d.call(
        Method::POST,
        "/api/asks",
        Some(json!({"kind": kind, "args": args})),
    )
    .await
}

fn question(approvals: Value) -> Value {
    json!({
        "questions": [{"id": "db", "question": "Which database?",
            "options": [{"label": "SQLite"}, {"label": "PostgreSQL"}]}],
        "approvals": approvals,
    })
}

fn pick(label: &str) -> Value {
    json!({"answers": [{"id": "db", "selected": [label]}]})
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_quorum_of_two_members_settles_with_every_vote() {
    let d = Launch::temp_home(env!("CARGO_BIN_EXE_askd"))
        .env("ASKD_NOTIFY_DESKTOP", "false")
        .start();
    // No members: nobody to approve.
    let (status, body) = create(&d, "questions", question(json!({"required": 2}))).await;
    assert_eq!(status, 422, "{body}");
    assert_eq!(body["errors"][0]["path"], "approvals.required", "{body}");
    assert!(
        body["message"]
            .as_str()
            .unwrap()
            .contains("askd members add"),
        "{body}"
    );
    let alice = add_member(&d, "alice").await;
    let bob = add_member(&d, "bob").await;
    let carol = add_member(&d, "carol").await;
    let (status, body) = create(
        &d,
        "questions",
        question(json!({"required": 2, "from": ["alice", "dave"]})),
    )
    .await;
    assert_eq!(status, 422, "{body}");
    assert_eq!(body["errors"][0]["path"], "approvals.from[1]", "{body}");
    let (status, body) = create(
        &d,
        "questions",
        question(json!({"required": 2, "from": ["alice", "bob"]})),
    )
    .await;
    assert_eq!(status, 201, "{body}");
    let id = body["ask_id"].as_str().unwrap().to_string();
    let submit = format!("/api/asks/{id}/submit");

    // The install's token and carol (not in `from`) cannot vote.
    let (status, body) = d.call(Method::POST, &submit, Some(pick("SQLite"))).await;
    assert_eq!(
        (status, body["code"].as_str()),
        (403, Some("not-an-approver")),
        "{body}"
    );
    let (status, body) = as_member(&d, &carol, Method::POST, &submit, Some(pick("SQLite"))).await;
    assert_eq!(status, 403, "{body}");
    assert!(
        body["message"].as_str().unwrap().contains("alice, bob"),
        "{body}"
    );

    // Alice votes, then changes her vote: one vote, still pending.
    let (status, body) =
        as_member(&d, &alice, Method::POST, &submit, Some(pick("PostgreSQL"))).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        (body["outcome"].as_str(), body["voted"].as_bool()),
        (Some("pending"), Some(true)),
        "{body}"
    );
    let (_, body) = as_member(&d, &alice, Method::POST, &submit, Some(pick("SQLite"))).await;
    assert_eq!(
        body["approvals"]["votes"].as_array().unwrap().len(),
        1,
        "{body}"
    );
    assert!(
        body["result"]["instruction"]
            .as_str()
            .unwrap()
            .starts_with("1 of 2 approvals are in (alice)"),
        "{body}"
    );
    let (_, view) = d.call(Method::GET, &format!("/api/asks/{id}"), None).await;
    assert_eq!(view["state"], "pending");
    assert_eq!(view["approvals"]["required"], 2, "{view}");
    assert_eq!(
        view["approvals"]["votes"][0]["answered_by"]["name"], "alice",
        "{view}"
    );
    assert_eq!(
        view["approvals"]["votes"][0]["answer"]["answers"][0]["selected"][0], "SQLite",
        "{view}"
    );
    let (_, list) = d.call(Method::GET, "/api/asks?state=pending", None).await;
    let row = list["asks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["id"] == id.as_str())
        .unwrap();
    assert_eq!(
        row["approvals"],
        json!({"required": 2, "votes": 1, "voters": ["alice"]})
    );
    let (_, handle) = d
        .call(
            Method::GET,
            &format!("/api/asks/{id}/wait?timeout_s=0"),
            None,
        )
        .await;
    assert_eq!(handle["outcome"], "pending", "{handle}");
    assert_eq!(
        handle["approvals"]["votes"].as_array().unwrap().len(),
        1,
        "{handle}"
    );

    // Bob's vote completes the quorum; he chose otherwise, and the result says so.
    let (status, result) =
        as_member(&d, &bob, Method::POST, &submit, Some(pick("PostgreSQL"))).await;
    assert_eq!(status, 200, "{result}");
    let result = result["result"].clone();
    assert_eq!(result["outcome"], "answered", "{result}");
    assert_eq!(result["answered_by"]["name"], "bob", "{result}");
    assert_eq!(
        result["answers"][0]["selected"][0], "PostgreSQL",
        "{result}"
    );
    let votes: Vec<&str> = result["votes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v["answered_by"]["name"].as_str().unwrap())
        .collect();
    assert_eq!(votes, ["alice", "bob"], "{result}");
    assert_eq!(result["approvals"]["decided_by"], "quorum");
    assert_eq!(result["approvals"]["agreed"], false);
    assert!(
        result["handling"].as_str().unwrap().contains("DISAGREE"),
        "{result}"
    );
    // The agent's wait gets the same; a late vote is a 409.
    let (_, waited) = d
        .call(Method::GET, &format!("/api/asks/{id}/wait"), None)
        .await;
    assert_eq!(waited["votes"], result["votes"], "{waited}");
    let (status, _) = as_member(&d, &alice, Method::POST, &submit, Some(pick("SQLite"))).await;
    assert_eq!(status, 409);
    let (_, records) = d.call(Method::GET, "/api/records", None).await;
    let record = records["records"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["ask_id"] == id.as_str())
        .unwrap();
    assert_eq!(
        record["record"]["votes"].as_array().unwrap().len(),
        2,
        "{record}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rejection_settles_a_review_at_once() {
    let d = Launch::temp_home(env!("CARGO_BIN_EXE_askd"))
        .env("ASKD_NOTIFY_DESKTOP", "false")
        .start();
    let alice = add_member(&d, "alice").await;
    let bob = add_member(&d, "bob").await;
    add_member(&d, "carol").await;
    let review = json!({
        "title": "Release checklist",
        "items": [{"id": "tests", "title": "All tests pass"}, {"id": "docs", "title": "Docs updated"}],
        "approvals": {"required": 3, "from": "any"},
    });
    let (status, body) = create(&d, "review", {
        let mut r = review.clone();
        r["persist"] = json!("review.md");
        r
    })
    .await;
    assert_eq!(status, 422, "{body}");
    assert_eq!(body["errors"][0]["path"], "persist", "{body}");
    let (status, body) = create(&d, "review", review).await;
    assert_eq!(status, 201, "{body}");
    let id = body["ask_id"].as_str().unwrap().to_string();
    let submit = format!("/api/asks/{id}/submit");
    let verdicts = |tests: &str| json!({"answers": [{"id": "tests", "verdict": tests}, {"id": "docs", "verdict": "pass"}]});
    let (status, body) = as_member(&d, &alice, Method::POST, &submit, Some(verdicts("pass"))).await;
    assert_eq!(
        (status, body["outcome"].as_str()),
        (200, Some("pending")),
        "{body}"
    );
    let (status, result) = as_member(&d, &bob, Method::POST, &submit, Some(verdicts("fail"))).await;
    assert_eq!(status, 200, "{result}");
    let result = result["result"].clone();
    assert_eq!(result["outcome"], "answered", "{result}");
    assert_eq!(result["summary"]["fail"], 1, "{result}");
    assert_eq!(result["approvals"]["decided_by"], "rejection", "{result}");
    assert_eq!(result["votes"].as_array().unwrap().len(), 2);
    assert_eq!(result["votes"][1]["rejects"], true);
    assert!(
        result["handling"]
            .as_str()
            .unwrap()
            .starts_with("APPROVALS: bob rejected"),
        "{result}"
    );
}

/// Team mode on PostgreSQL: members vote on an ask at the same moment through three
/// daemons. Every vote counts, the one that completes the quorum settles it — once — and
/// every member sees the same result.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn votes_through_three_daemons_settle_once_with_every_vote() {
    let db = askd_store::pg_test::cluster().database().await;
    let start = || {
        Launch::temp_home(env!("CARGO_BIN_EXE_askd"))
            .env("ASKD_DATABASE_URL", &db.url)
            .env("ASKD_NOTIFY_DESKTOP", "false")
            .start()
    };
    let daemons = [start(), start(), start()];
    let mut tokens = Vec::new();
    for name in ["ann", "ben", "cy"] {
        tokens.push(add_member(&daemons[0], name).await);
    }
    for round in 0..3 {
        let (status, body) = create(
            &daemons[round % 3],
            "questions",
            question(json!({"required": 3, "from": "any"})),
        )
        .await;
        assert_eq!(status, 201, "{body}");
        let id = body["ask_id"].as_str().unwrap().to_string();
        let submit = format!("/api/asks/{id}/submit");
        let votes = tokens.iter().enumerate().map(|(i, token)| {
            let (d, token, submit) = (&daemons[i], token.clone(), submit.clone());
            async move { as_member(d, &token, Method::POST, &submit, Some(pick("SQLite"))).await }
        });
        let replies = futures_util::future::join_all(votes).await;
        let mut settled = 0;
        for (status, body) in &replies {
            assert_eq!(*status, 200, "round {round}: {body}");
            settled += usize::from(body["outcome"] == "answered");
        }
        assert_eq!(settled, 1, "round {round}: {replies:?}");
        let events = db
            .sql(&format!(
                "SELECT kind FROM events WHERE ask_id = '{id}' AND kind IN ('ask.voted', 'ask.settled') ORDER BY seq"
            ))
            .await;
        assert_eq!(
            events,
            ["ask.voted", "ask.voted", "ask.voted", "ask.settled"]
        );
        let (_, view) = daemons[2]
            .call(Method::GET, &format!("/api/asks/{id}"), None)
            .await;
        assert_eq!(
            view["result"]["votes"].as_array().unwrap().len(),
            3,
            "{view}"
        );
        assert_eq!(view["result"]["approvals"]["agreed"], true, "{view}");
    }
}

/// A drift card with approvals: a member's "keep the current baseline" settles it at once
/// (any rejection rejects), with one decision in the session's log and every vote in the
/// result.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_drift_card_kept_by_one_member_is_decided_once() {
    let d = Launch::temp_home(env!("CARGO_BIN_EXE_askd"))
        .env("ASKD_NOTIFY_DESKTOP", "false")
        .start();
    let ann = add_member(&d, "ann").await;
    let ben = add_member(&d, "ben").await;
    add_member(&d, "cy").await;
    let (status, session) = d
        .call(
            Method::POST,
            "/api/sessions",
            Some(json!({"client": "test"})),
        )
        .await;
    assert_eq!(status, 200, "{session}");
    let session = session["session"]["id"].as_str().unwrap().to_string();
    let drift = |approvals: Value| {
        json!({"args": {"reason": "architecture-shift",
            "description": "Sync across devices needs accounts and a server",
            "approvals": approvals}})
    };
    let op = format!("/api/sessions/{session}/alignment/report_drift");
    let (_, bad) = d
        .call(
            Method::POST,
            &op,
            Some(drift(json!({"required": 1, "from": ["zed"]}))),
        )
        .await;
    assert_eq!(bad["error"]["field"], "approvals.from[0]", "{bad}");
    let (status, card) = d
        .call(Method::POST, &op, Some(drift(json!({"required": 3}))))
        .await;
    assert_eq!(status, 200, "{card}");
    let id = card["ask_id"].as_str().expect("a card").to_string();
    let submit = format!("/api/asks/{id}/submit");
    let (status, body) = as_member(
        &d,
        &ann,
        Method::POST,
        &submit,
        Some(json!({"action": "approve"})),
    )
    .await;
    assert_eq!(
        (status, body["outcome"].as_str()),
        (200, Some("pending")),
        "{body}"
    );
    let (_, alignment) = d
        .call(
            Method::GET,
            &format!("/api/sessions/{session}/alignment"),
            None,
        )
        .await;
    assert_eq!(alignment["posture"], "drift-pending", "{alignment}");
    let (status, body) = as_member(
        &d,
        &ben,
        Method::POST,
        &submit,
        Some(json!({"action": "reject"})),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    let result = &body["result"];
    assert_eq!(result["decision"], "reject", "{result}");
    assert_eq!(result["approvals"]["decided_by"], "rejection", "{result}");
    assert_eq!(result["votes"].as_array().unwrap().len(), 2, "{result}");
    // One decision in the session's log: the drift is decided, kept.
    let (_, alignment) = d
        .call(
            Method::GET,
            &format!("/api/sessions/{session}/alignment"),
            None,
        )
        .await;
    let drifts = alignment["drifts"].as_array().unwrap();
    assert_eq!(drifts.len(), 1, "{alignment}");
    assert_eq!(drifts[0]["state"], "decided", "{alignment}");
    assert_eq!(drifts[0]["decision"], "reject", "{alignment}");
    assert_eq!(drifts[0]["decided_by"], "ben", "{alignment}");
}

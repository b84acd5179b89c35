//! The session page's alignment routes over a real loopback daemon (`alignment.md` §7):
//! `GET /api/sessions/{id}/alignment` (full detail, 404 for an unknown session) and
//! `PUT /api/sessions/{id}/alignment/mode` (the human's switch), behind the fence, with
//! `Cache-Control: no-store`, and their events on the live stream.

use crate::common;

use std::time::Duration;

use common::*;
use reqwest::Method;
use reqwest::header::{CONTENT_TYPE, HOST, ORIGIN};
use serde_json::{Value, json};

/// Issue 32: a session that only grows (asks and asks, nobody reads it) is checkpointed in
/// the background every `KEEP_EVERY` events, so its first read after a restart folds at
/// most about that many instead of its whole history (266 ms at 10,000 pending asks).
#[tokio::test(flavor = "multi_thread")]
async fn a_session_nobody_reads_is_checkpointed_as_it_grows() {
    use askd_daemon::keeper::KEEP_EVERY;
    let s = TestServer::start().await;
    let session = s.session("agent", None).await;
    for i in 0..KEEP_EVERY + 8 {
        s.create(
            "questions",
            Some(&session),
            &json!({"questions": [{"id": "q", "question": format!("Unread question {i}?"),
                "options": [{"label": "A"}, {"label": "B"}]}]}),
        )
        .await
        .expect(201);
    }
    let store = s.daemon().store.clone();
    let mut saved = None;
    for _ in 0..250 {
        saved = store.alignment_checkpoint(&session).await.unwrap();
        if saved.is_some() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let saved = saved.expect("a checkpoint, though nothing read the session");
    let events = store.session_events(&session).await.unwrap();
    let folded = events.iter().filter(|e| e.seq <= saved.last_seq).count();
    assert!(
        folded >= KEEP_EVERY,
        "the checkpoint covers {folded} of {} events",
        events.len()
    );
    s.stop().await;
}

/// Issue 32 (flat on every axis): a session's alignment checkpoint keeps nothing of its
/// pending asks — their questions come with their settles — so reading one ask of a session
/// holding many pending asks parses no more than one of a session holding few. (Before: the
/// checkpoint carried every pending ask's questions, and each `GET /api/asks/{id}` parsed it;
/// measured 5 → 22 → 54 ms at 10 → 1,000 → 3,000 pending, debug build.)
#[tokio::test(flavor = "multi_thread")]
async fn a_sessions_checkpoint_does_not_grow_with_its_pending_asks() {
    let s = TestServer::start().await;
    let session = s.session("agent", None).await;
    let mut ids = Vec::new();
    for i in 0..60 {
        let r = s
            .create(
                "questions",
                Some(&session),
                &json!({"questions": [{"id": "q", "question": format!("Pending question number {i}?"),
                    "options": [{"label": "A"}, {"label": "B"}]}]}),
            )
            .await;
        ids.push(r.expect(201)["ask_id"].as_str().unwrap().to_string());
    }
    // A read folds the 60 events and saves a checkpoint (in the background).
    s.ask(&ids[0]).await;
    let store = s.daemon().store.clone();
    let mut saved = None;
    for _ in 0..100 {
        saved = store.alignment_checkpoint(&session).await.unwrap();
        if saved.is_some() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let saved = saved.expect("a checkpoint after folding 60 events");
    let text = saved.state.to_string();
    assert!(
        !text.contains("Pending question number"),
        "the checkpoint holds pending asks' questions ({} bytes)",
        text.len()
    );
    assert!(text.len() < 2_000, "{} bytes: {text}", text.len());
    // Answered, the ask's decision is still folded from its settle.
    s.action(
        &ids[7],
        "submit",
        &json!({"answers": [{"id": "q", "selected": ["B"]}]}),
    )
    .await
    .expect(200);
    let again = s
        .create(
            "questions",
            Some(&session),
            &json!({"questions": [{"id": "q", "question": "Pending question number 7?",
                "options": [{"label": "A"}, {"label": "B"}]}]}),
        )
        .await;
    let again = again.expect(201)["ask_id"].as_str().unwrap().to_string();
    let view = s.ask(&again).await;
    assert_eq!(view["repeats"]["q"]["chosen"], json!(["B"]), "{view}");
    s.stop().await;
}

fn alignment(id: &str) -> String {
    format!("/api/sessions/{id}/alignment")
}

fn mode_path(id: &str) -> String {
    format!("/api/sessions/{id}/alignment/mode")
}

/// One answered `ask_user_question` round in `session`.
async fn answered_round(s: &TestServer, session: &str, question: &str, label: &str) -> String {
    let args = json!({"questions": [{"id": "q", "question": question,
        "options": [{"label": label}, {"label": "Something else"}]}]});
    let id = s
        .create("questions", Some(session), &args)
        .await
        .expect(201)["ask_id"]
        .as_str()
        .unwrap()
        .to_string();
    s.action(
        &id,
        "submit",
        &json!({"answers": [{"id": "q", "selected": [label]}]}),
    )
    .await
    .expect(200);
    id
}

async fn op(s: &TestServer, session: &str, op: &str, body: Value) -> Value {
    s.post(&format!("{}/{op}", alignment(session)), &body)
        .await
        .expect(200)
        .clone()
}

#[tokio::test]
async fn the_full_detail_carries_history_refusals_checks_and_connections() {
    let s = TestServer::start().await;
    let id = s.session("claude-code", Some("/home/me/shop")).await;
    let ask = answered_round(
        &s,
        &id,
        "Where should the first version run?",
        "Local web app",
    )
    .await;
    op(
        &s,
        &id,
        "check",
        json!({"via": "prompt", "note": "focus on scope"}),
    )
    .await;
    let r1 = op(
        &s,
        &id,
        "baseline",
        json!({"args": {"goal": "A task manager", "explicit_constraints": ["No accounts"],
            "allowed_scope": ["Web"]}}),
    )
    .await;
    assert_eq!(r1["revision"], 1);
    // A revision that drops a protected item is refused and kept as an audit entry.
    let refused = op(
        &s,
        &id,
        "baseline",
        json!({"args": {"explicit_constraints": []}}),
    )
    .await;
    assert_eq!(refused["error"]["code"], "protected_constraint");
    let r2 = op(
        &s,
        &id,
        "baseline",
        json!({"args": {"goal": "A task manager for teams", "allowed_scope": ["Web", "Mobile"]}}),
    )
    .await;
    assert_eq!(r2["revision"], 2);

    let r = s.get(&alignment(&id)).await;
    let v = r.expect(200);
    assert_eq!(r.header("cache-control"), Some("no-store"));
    assert_eq!(v["session"]["id"], id.as_str());
    assert_eq!(v["session"]["client"], "claude-code");
    assert_eq!(v["session"]["workspace"], "/home/me/shop");
    assert_eq!(v["session"]["origin"], "new");
    assert!(v["session"]["started_at"].is_string());
    assert!(v["session"]["last_activity_at"].as_str() >= v["session"]["started_at"].as_str());
    assert_eq!(
        v["mode"],
        json!({"effective": "auto", "source": "config", "session_override": null,
               "configured": "auto", "set_by": null})
    );
    assert_eq!(v["rounds"], 1);
    assert_eq!(v["settled_decisions"][0]["ask_id"], ask.as_str());
    assert_eq!(
        v["settled_decisions"][0]["chosen"],
        json!(["Local web app"])
    );
    assert_eq!(v["manual_checks"]["count"], 1);
    assert_eq!(v["checks"][0]["via"], "prompt");
    assert_eq!(v["checks"][0]["note"], "focus on scope");
    assert_eq!(v["baseline"]["revision"], 2);
    assert_eq!(
        v["baseline"]["explicit_constraints"],
        json!(["No accounts"])
    );
    let history = v["baseline_history"].as_array().unwrap();
    assert_eq!(history.len(), 2);
    assert_eq!(history[1]["revision"], 2);
    assert_eq!(
        history[1]["changes"]["goal"],
        json!({"from": "A task manager", "to": "A task manager for teams"})
    );
    assert_eq!(
        history[1]["warnings"],
        json!(["unratified-goal-change", "unratified-scope-expansion"])
    );
    assert_eq!(history[1]["dropped"], json!([]));
    assert_eq!(v["refusals"][0]["dropped"], json!(["No accounts"]));
    assert_eq!(v["drifts"], json!([]));
    assert_eq!(v["posture"], "aligned");
    let conns = v["connections"].as_array().unwrap();
    assert_eq!(conns.len(), 1);
    assert_eq!(conns[0]["client"], "claude-code");
    assert!(v["guidance"][0].as_str().unwrap().contains(&id));

    // An unknown session is 404, on both routes, and nothing is created.
    let r = s.get(&alignment("no-such-session")).await;
    assert_eq!(r.expect(404)["code"], "not-found");
    assert_eq!(r.header("cache-control"), Some("no-store"));
    let r = s
        .put(&mode_path("no-such-session"), &json!({"mode": "off"}))
        .await;
    r.expect(404);
    s.get(&alignment("no-such-session")).await.expect(404);
    s.stop().await;
}

#[tokio::test]
async fn the_mode_switch_records_the_human_and_refuses_bad_values() {
    let s = TestServer::start().await;
    let id = s.session("codex", None).await;
    let r = s.put(&mode_path(&id), &json!({"mode": "manual"})).await;
    assert_eq!(r.header("cache-control"), Some("no-store"));
    let v = r.expect(200);
    assert_eq!(v["changed"], true);
    assert_eq!(
        v["mode"],
        json!({"effective": "manual", "source": "session", "session_override": "manual",
               "configured": "auto", "set_by": "human"})
    );
    // The same value again appends nothing.
    let v = s.put(&mode_path(&id), &json!({"mode": "manual"})).await;
    assert_eq!(v.expect(200)["changed"], false);

    // Bad values: 422 listing the legal values, and nothing is written.
    for (body, path) in [
        (json!({"mode": "Auto"}), "mode"),
        (json!({"mode": "banana"}), "mode"),
        (json!({"mode": 3}), "mode"),
        (json!({"mode": null}), "mode"),
        (json!({}), "mode"),
        (json!({"mode": "off", "extra": true}), "extra"),
    ] {
        let r = s.put(&mode_path(&id), &body).await;
        let b = r.expect(422);
        let problem = b["errors"]
            .as_array()
            .unwrap()
            .iter()
            .find(|e| e["path"] == path)
            .unwrap_or_else(|| panic!("a problem at {path}: {b}"));
        if path == "mode" {
            let m = problem["message"].as_str().unwrap();
            for legal in ["\"auto\"", "\"manual\"", "\"off\"", "\"default\""] {
                assert!(m.contains(legal), "{m}");
            }
        }
    }
    let v = s.get(&alignment(&id)).await.expect(200).clone();
    assert_eq!(v["mode"]["session_override"], "manual");

    // "default" clears the override (mode_set with null).
    let v = s.put(&mode_path(&id), &json!({"mode": "default"})).await;
    let v = v.expect(200);
    assert_eq!(v["changed"], true);
    assert_eq!(v["mode"]["session_override"], Value::Null);
    assert_eq!(v["mode"]["source"], "config");
    assert_eq!(v["mode"]["effective"], "auto");

    // Only `mode` can be PUT; the agent's POST op route still works beside it.
    s.put(&format!("{}/status", alignment(&id)), &json!({}))
        .await
        .expect(404);
    let v = op(&s, &id, "mode", json!({"mode": "off", "actor": "agent"})).await;
    assert_eq!(v["mode"]["set_by"], "agent");
    s.stop().await;
}

/// The agent's switch (`POST …/alignment/mode`, what `set_alignment_mode` calls) and the
/// human's (`PUT …/alignment/mode`) are one switch: a bad or missing value is the same 422,
/// `invalid-request` with one `invalid_mode` (or `required`) problem at `mode` naming the four
/// legal values, and nothing is written. (The POST said `invalid_argument` with another
/// problem code before they were one.)
#[tokio::test]
async fn both_mode_switches_refuse_a_bad_value_the_same_way() {
    let s = TestServer::start().await;
    let id = s.session("codex", None).await;
    let path = mode_path(&id);
    for (body, code) in [
        (json!({"mode": "banana"}), "invalid_mode"),
        (json!({}), "required"),
    ] {
        let put = s.put(&path, &body).await.expect(422).clone();
        let post = s.post(&path, &body).await.expect(422).clone();
        for b in [&put, &post] {
            assert_eq!(b["code"], "invalid-request", "{b}");
            assert_eq!(b["errors"].as_array().map(Vec::len), Some(1), "{b}");
            assert_eq!(b["errors"][0]["path"], "mode", "{b}");
            assert_eq!(b["errors"][0]["code"], code, "{b}");
            let m = b["errors"][0]["message"].as_str().unwrap();
            for legal in ["\"auto\"", "\"manual\"", "\"off\"", "\"default\""] {
                assert!(m.contains(legal), "{m}");
            }
        }
        assert_eq!(put["errors"], post["errors"]);
    }
    let v = s.get(&alignment(&id)).await.expect(200).clone();
    assert_eq!(
        v["mode"]["session_override"],
        Value::Null,
        "nothing was written"
    );
    s.stop().await;
}

#[tokio::test]
async fn mode_changes_reach_the_event_stream_with_the_session() {
    let s = TestServer::start().await;
    let id = s.session("codex", None).await;
    let mut stream = s.events(s.req(Method::GET, "/api/events")).await;
    s.put(&mode_path(&id), &json!({"mode": "off"}))
        .await
        .expect(200);
    let f = stream.next(Duration::from_secs(10)).await.expect("a frame");
    assert_eq!(f.event.as_deref(), Some("alignment.mode_set"));
    assert_eq!(f.data["session"], id.as_str());
    assert_eq!(f.data["mode"], "off");
    assert_eq!(f.data["actor"], "human");
    // An agent's operation through the POST route is pushed as well.
    op(&s, &id, "check", json!({"via": "tool"})).await;
    let f = stream.next(Duration::from_secs(10)).await.expect("a frame");
    assert_eq!(f.event.as_deref(), Some("alignment.checked"));
    assert_eq!(f.data["session"], id.as_str());
    s.stop().await;
}

#[tokio::test]
async fn the_session_page_route_serves_the_ui() {
    let s = TestServer::start().await;
    let id = s.session("codex", None).await;
    let r = s.get(&format!("/sessions/{id}")).await;
    r.expect(200);
    assert!(r.header("content-type").unwrap().starts_with("text/html"));
    // Its files under the versioned prefix (long-lived caching).
    assert!(r.text.contains("/assets/v/") && r.text.contains("/js/app.js"));
    // The page is behind the fence like every route.
    let r = s
        .send(s.bare(Method::GET, &format!("/sessions/{id}")))
        .await;
    r.expect(401);
    s.stop().await;
}

#[tokio::test]
async fn the_alignment_routes_are_fenced() {
    let s = TestServer::start().await;
    let id = s.session("codex", None).await;
    let evil = format!("evil.example:{}", s.port);
    for (method, path) in [(Method::GET, alignment(&id)), (Method::PUT, mode_path(&id))] {
        // Host outside the allow-list: 403, GET included (DNS rebinding).
        let r = s
            .send(
                s.req(method.clone(), &path)
                    .header(HOST, evil.clone())
                    .header(CONTENT_TYPE, "application/json")
                    .body(r#"{"mode":"off"}"#),
            )
            .await;
        r.expect(403);
        // A foreign Origin: 403.
        let r = s
            .send(
                s.req(method.clone(), &path)
                    .header(ORIGIN, "https://evil.example")
                    .header(CONTENT_TYPE, "application/json")
                    .body(r#"{"mode":"off"}"#),
            )
            .await;
        r.expect(403);
        // No token: 401.
        let r = s
            .send(
                s.bare(method.clone(), &path)
                    .header(CONTENT_TYPE, "application/json")
                    .body(r#"{"mode":"off"}"#),
            )
            .await;
        r.expect(401);
        assert!(r.header("access-control-allow-origin").is_none());
    }
    // Our own Origin is fine.
    let r = s
        .send(
            s.req(Method::GET, &alignment(&id))
                .header(ORIGIN, s.url.clone()),
        )
        .await;
    r.expect(200);
    assert!(r.header("access-control-allow-origin").is_none());
    // Not JSON: 415; too large: 413; not parseable: 400.
    let path = mode_path(&id);
    let r = s
        .send(
            s.req(Method::PUT, &path)
                .header(CONTENT_TYPE, "text/plain")
                .body(r#"{"mode":"off"}"#),
        )
        .await;
    r.expect(415);
    let big = format!(r#"{{"mode":"{}"}}"#, "x".repeat(MAX_BODY + 10));
    let r = s
        .send(
            s.req(Method::PUT, &path)
                .header(CONTENT_TYPE, "application/json")
                .body(big),
        )
        .await;
    r.expect(413);
    let r = s
        .send(
            s.req(Method::PUT, &path)
                .header(CONTENT_TYPE, "application/json")
                .body(r#"{"mode": "#),
        )
        .await;
    r.expect(400);
    let r = s
        .send(
            s.req(Method::PUT, &path)
                .header(CONTENT_TYPE, "application/json")
                .body("[1]"),
        )
        .await;
    r.expect(422);
    // A preflight is not answered as CORS.
    let r = s
        .send(
            s.req(Method::OPTIONS, &path)
                .header(ORIGIN, s.url.clone())
                .header("access-control-request-method", "PUT"),
        )
        .await;
    assert!(r.header("access-control-allow-origin").is_none());
    assert!(r.header("access-control-allow-methods").is_none());
    // None of the refused requests wrote anything.
    let v = s.get(&alignment(&id)).await.expect(200).clone();
    assert_eq!(v["mode"]["session_override"], Value::Null);
    s.stop().await;
}

#[tokio::test]
async fn the_drift_log_names_each_card_and_follows_its_decision() {
    let s = TestServer::start().await;
    let id = s.session("claude-code", None).await;
    let reported = op(
        &s,
        &id,
        "report_drift",
        json!({"args": {"reason": "scope-expansion", "description": "Add a mobile app",
            "options": [{"label": "Web only"}, {"label": "PWA"}]}}),
    )
    .await;
    let ask = reported["ask_id"].as_str().expect("ask_id").to_string();
    let v = s.get(&alignment(&id)).await.expect(200).clone();
    assert_eq!(v["posture"], "drift-pending");
    assert_eq!(v["drift"]["open"]["ask_id"], ask.as_str());
    assert_eq!(v["drifts"][0]["ask_id"], ask.as_str());
    assert_eq!(v["drifts"][0]["state"], "open");
    s.action(
        &ask,
        "submit",
        &json!({"action": "option", "option": 1, "note": "cheap"}),
    )
    .await
    .expect(200);
    let v = s.get(&alignment(&id)).await.expect(200).clone();
    assert_eq!(v["posture"], "baseline-update-pending");
    let d = &v["drifts"][0];
    assert_eq!(
        (&d["state"], &d["decision"], &d["choice"], &d["note"]),
        (
            &json!("decided"),
            &json!("revise"),
            &json!("PWA"),
            &json!("cheap")
        )
    );
    assert_eq!(v["drift"]["pending_updates"][0]["ask_id"], ask.as_str());
    s.stop().await;
}

#[tokio::test]
async fn connections_and_lineage_come_from_the_session_events() {
    let s = TestServer::start().await;
    let id = s.session("claude-code", Some("/w")).await;
    s.post(
        "/api/sessions",
        &json!({"id": id, "client": "subagent", "transport": "stdio", "attach": true}),
    )
    .await
    .expect(200);
    let v = s.get(&alignment(&id)).await.expect(200).clone();
    assert_eq!(v["session"]["transport"], "http");
    let conns = v["connections"].as_array().unwrap();
    assert_eq!(conns.len(), 2);
    assert_eq!(
        (&conns[0]["client"], &conns[0]["via"]),
        (&json!("claude-code"), &json!("started"))
    );
    assert_eq!(
        (
            &conns[1]["client"],
            &conns[1]["transport"],
            &conns[1]["via"]
        ),
        (&json!("subagent"), &json!("stdio"), &json!("attached"))
    );
    assert_eq!(conns[0]["last_seen"], conns[1]["first_seen"]);
    let child = s
        .post(
            "/api/sessions",
            &json!({"client": "fork-client", "fork": {"session": id, "at": 1}}),
        )
        .await
        .expect(200)["session"]["id"]
        .as_str()
        .unwrap()
        .to_string();
    let v = s.get(&alignment(&child)).await.expect(200).clone();
    assert_eq!(v["session"]["origin"], "fork");
    assert_eq!(v["session"]["parent"], id.as_str());
    assert_eq!(v["session"]["fork_at"], 1);
    s.stop().await;
}

/// The session page, the status and the report read one page of a long session's settled
/// decisions (issue 16), from the checkpoint's kept decisions and the events after it: the
/// pages, joined, are every decision in order; the repeat lookup and the tail still see them
/// all.
#[tokio::test]
async fn a_long_session_is_read_a_page_at_a_time() {
    let s = TestServer::start().await;
    let id = s.session("claude-code", None).await;
    const N: usize = 120;
    let mut asks = Vec::new();
    for i in 0..N {
        asks.push(answered_round(&s, &id, &format!("Question {i}?"), "Yes").await);
        if i == 60 {
            // A read in the middle saves a checkpoint: the first decisions are kept in the
            // store from here on, the later ones folded from the events.
            s.get(&alignment(&id)).await.expect(200);
        }
    }
    let v = s.get(&alignment(&id)).await.expect(200).clone();
    assert_eq!(v["rounds"], N as u64);
    assert_eq!(
        v["settled_decisions_page"],
        json!({"total": N, "from": N - 50, "to": N, "before": N - 50})
    );
    let mut all: Vec<Value> = v["settled_decisions"].as_array().unwrap().clone();
    let mut before = v["settled_decisions_page"]["before"].clone();
    while let Some(b) = before.as_u64() {
        let p = s
            .get(&format!("{}/decisions?before={b}&limit=50", alignment(&id)))
            .await
            .expect(200)
            .clone();
        assert_eq!(p["settled_decisions_page"]["to"], b);
        let mut page = p["settled_decisions"].as_array().unwrap().clone();
        page.append(&mut all);
        all = page;
        before = p["settled_decisions_page"]["before"].clone();
    }
    let questions: Vec<String> = all
        .iter()
        .map(|d| d["question"].as_str().unwrap().to_string())
        .collect();
    let expected: Vec<String> = (0..N).map(|i| format!("Question {i}?")).collect();
    assert_eq!(questions, expected);
    assert_eq!(all[7]["ask_id"], asks[7].as_str());

    // The agent's status: a page of twenty, the tail counts the rest.
    let st = op(&s, &id, "status", json!({})).await;
    assert_eq!(st["settled_decisions"].as_array().unwrap().len(), 20);
    assert_eq!(st["settled_decisions"][19]["question"], "Question 119?");
    let guidance: Vec<&str> = st["guidance"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l.as_str().unwrap())
        .collect();
    assert!(
        guidance.contains(&"(+110 earlier; see alignment_status)"),
        "{guidance:#?}"
    );
    let older = op(&s, &id, "status", json!({"before": 5, "limit": 3})).await;
    let older: Vec<&str> = older["settled_decisions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["question"].as_str().unwrap())
        .collect();
    assert_eq!(older, ["Question 2?", "Question 3?", "Question 4?"]);
    // repeat_of is looked up among all the decisions, not the page.
    let st = op(
        &s,
        &id,
        "status",
        json!({"repeat": {"ask_id": "nobody", "questions": ["Something new?", "question 3"]}}),
    )
    .await;
    assert_eq!(st["repeat_of"]["ask_id"], asks[3].as_str());
    assert_eq!(st["repeat_of"]["chosen"], json!(["Yes"]));
    let st = op(
        &s,
        &id,
        "status",
        json!({"repeat": {"ask_id": asks[3], "questions": ["Question 3?"]}}),
    )
    .await;
    assert_eq!(st["repeat_of"], Value::Null);
    // The align report lists the first fifty, then counts the rest.
    let check = op(&s, &id, "check", json!({})).await;
    let report = check["report"].as_str().unwrap();
    assert!(report.contains("  - Question 0? → Yes"), "{report}");
    assert!(report.contains("  - Question 49? → Yes"), "{report}");
    assert!(!report.contains("Question 50?"), "{report}");
    assert!(report.contains("  (+70 more)"), "{report}");

    // A page's size is bounded, with a message naming the parameter.
    let r = s
        .get(&format!("{}/decisions?limit=0", alignment(&id)))
        .await;
    let e = r.expect(422);
    assert!(e.to_string().contains("limit must be 1 to 500"), "{e}");
    s.get(&format!("{}/nothing", alignment(&id)))
        .await
        .expect(404);
    s.get("/api/sessions/nope/alignment/decisions")
        .await
        .expect(404);
}

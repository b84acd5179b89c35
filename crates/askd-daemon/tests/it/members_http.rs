//! Team members over HTTP on a real daemon and SQLite file: a member added through the
//! API signs in with their login URL, answers and claims asks (and nothing more), every
//! answer they give names them (results, records, banked answers, the drift decision in the
//! session's log), the member survives a restart, and a revoked member is refused at once.

use crate::common;

use common::*;
use reqwest::Method;
use reqwest::header::{CONTENT_TYPE, COOKIE, SET_COOKIE};
use serde_json::{Value, json};

/// Adds a member; returns (id, cookie).
async fn add(s: &TestServer, name: &str) -> (String, String) {
    let r = s.post("/api/members", &json!({"name": name})).await;
    let b = r.expect(201).clone();
    let token = b["token"].as_str().unwrap().to_string();
    assert_eq!(b["loginUrl"], format!("{}/login/{token}", s.url));
    assert_eq!(b["member"]["name"], name);
    // The login URL opened from a mail or chat app (`Sec-Fetch-Site: none`): the cookie,
    // then the inbox; the token never stays in the address.
    let r = s
        .send(
            s.bare(Method::GET, &format!("/login/{token}"))
                .header("sec-fetch-site", "none"),
        )
        .await;
    assert_eq!(r.status, 303, "{}", r.text);
    assert_eq!(r.header("location"), Some("/"));
    let set = r.headers.get(SET_COOKIE).unwrap().to_str().unwrap();
    assert!(
        set.contains("HttpOnly") && set.contains("SameSite=Lax"),
        "{set}"
    );
    assert!(!set.contains("Secure"), "plain HTTP on loopback: {set}");
    let cookie = set.split(';').next().unwrap().to_string();
    assert_eq!(cookie, format!("askd_member={token}"));
    (b["member"]["id"].as_str().unwrap().to_string(), cookie)
}

async fn as_member(
    s: &TestServer,
    cookie: &str,
    m: Method,
    path: &str,
    body: Option<&Value>,
) -> Resp {
    let mut rb = s.bare(m, path).header(COOKIE, cookie);
    if let Some(b) = body {
        rb = rb
            .header(CONTENT_TYPE, "application/json")
            .body(b.to_string());
    }
    s.send(rb).await
}

fn questions() -> Value {
    json!({"questions": [{"id": "db", "question": "Which database backs team mode?",
        "options": [{"label": "PostgreSQL"}, {"label": "SQLite"}]}]})
}

#[tokio::test(flavor = "multi_thread")]
async fn a_member_signs_in_answers_claims_and_is_named_in_every_answer() {
    let s = TestServer::start().await;
    let (ana_id, ana) = add(&s, "Ana").await;
    let (_, bo) = add(&s, "Bo").await;

    // Names: taken (without case), empty, too long — each says what to do.
    let r = s.post("/api/members", &json!({"name": "ana"})).await;
    assert_eq!(r.expect(409)["code"], "member-exists");
    let r = s.post("/api/members", &json!({"name": "  "})).await;
    r.expect(422);
    assert!(r.text.contains("name"), "{}", r.text);
    let r = s.post("/api/members", &json!({})).await;
    assert!(r.text.contains("name is required"), "{}", r.text);
    let listed = s.get("/api/members").await.expect(200)["members"].clone();
    assert_eq!(listed.as_array().unwrap().len(), 2);
    assert_eq!(listed[0]["name"], "Ana");
    assert!(!listed.to_string().contains("hash"), "{listed}");

    // Who the page sees; what a member may open.
    let me = as_member(&s, &ana, Method::GET, "/api/me", None).await;
    assert_eq!(me.expect(200)["kind"], "member");
    assert_eq!(me.body["name"], "Ana");
    assert_eq!(me.body["may"]["records"], true);
    assert_eq!(me.body["may"]["settings"], false);
    for (m, p, want) in [
        (Method::GET, "/api/asks", 200),
        (Method::GET, "/api/records", 200),
        (Method::GET, "/api/sessions", 200),
        (Method::GET, "/records", 200),
        (Method::GET, "/api/settings", 403),
        (Method::GET, "/api/members", 403),
        (Method::POST, "/api/pair", 403),
        (Method::GET, "/api/devices", 403),
    ] {
        let r = as_member(&s, &ana, m.clone(), p, None).await;
        assert_eq!(r.status, want, "{m} {p}: {}", r.text);
    }
    let r = as_member(
        &s,
        &ana,
        Method::POST,
        "/api/asks",
        Some(&json!({"kind": "questions", "args": questions()})),
    )
    .await;
    assert_eq!(r.expect(403)["code"], "member-scope");

    // Claims: Ana is on it, everyone sees it; Bo takes it over; Ana cannot release Bo's.
    let q = s.create("questions", None, &questions()).await.expect(201)["ask_id"]
        .as_str()
        .unwrap()
        .to_string();
    let mut events = s.events(s.req(Method::GET, "/api/events")).await;
    let claim = format!("/api/asks/{q}/claim");
    let r = as_member(&s, &ana, Method::POST, &claim, None).await;
    assert_eq!(r.expect(200)["claim"]["name"], "Ana");
    assert_eq!(s.ask(&q).await["claim"]["name"], "Ana");
    assert_eq!(s.ask(&q).await["claim"]["id"], ana_id.as_str());
    let listed = s.get("/api/asks").await.expect(200)["asks"].clone();
    assert_eq!(listed[0]["claim"]["name"], "Ana");
    let frames = events.take(1, std::time::Duration::from_secs(5)).await;
    assert!(
        frames
            .iter()
            .any(|f| f.event.as_deref() == Some("ask.claimed") || f.data["kind"] == "ask.claimed"),
        "{frames:?}"
    );
    as_member(&s, &bo, Method::POST, &claim, None)
        .await
        .expect(200);
    assert_eq!(s.ask(&q).await["claim"]["name"], "Bo");
    let r = as_member(&s, &ana, Method::DELETE, &claim, None).await;
    assert_eq!(r.expect(409)["code"], "claimed-by-other");
    assert!(r.text.contains("Bo"), "{}", r.text);
    // The install's token makes no claim (a claim names a person) but may release one.
    let r = s.post(&claim, &json!({})).await;
    assert_eq!(r.expect(403)["code"], "claim-needs-member");
    as_member(&s, &ana, Method::POST, &claim, None)
        .await
        .expect(200);

    // Bo answers although Ana claimed it: settle-once decides, and the answer names Bo.
    let r = as_member(
        &s,
        &bo,
        Method::POST,
        &format!("/api/asks/{q}/submit"),
        Some(&json!({"answers": [{"id": "db", "selected": ["PostgreSQL"]}]})),
    )
    .await;
    let result = r.expect(200).clone();
    let bo_named = |v: &Value| v["answered_by"]["name"] == "Bo";
    assert!(bo_named(&result["result"]), "{result}");
    assert!(bo_named(&s.ask(&q).await["result"]));
    let r = as_member(&s, &ana, Method::POST, &claim, None).await;
    assert_eq!(r.status, 409, "no claim on a settled ask: {}", r.text);
    let records = s.get("/api/records").await.expect(200).clone();
    let rec = records["records"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["ask_id"] == q.as_str() || r["record"]["ask_id"] == q.as_str())
        .cloned()
        .unwrap_or_else(|| panic!("no record of {q}: {records}"));
    assert!(rec.to_string().contains("\"answered_by\""), "{rec}");
    assert!(rec.to_string().contains("\"Bo\""), "{rec}");
    // The session page's questions table names him too (the fold of the real settle event).
    let page = s
        .get("/api/sessions/http/alignment")
        .await
        .expect(200)
        .clone();
    let decided = page["settled_decisions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["ask_id"] == q.as_str())
        .cloned()
        .unwrap_or_else(|| panic!("{page}"));
    assert_eq!(decided["answered_by"], "Bo", "{decided}");

    // A survey: each banked answer names who banked it, the result who submitted.
    let sv = s.survey(None).await;
    let r = as_member(&s, &ana, Method::POST, &format!("/api/asks/{sv}/bank"),
        Some(&json!({"answers": [{"id": "scope", "selected": ["a"], "justifications": {"a": "partners are blocked"}}]}))).await;
    r.expect(200);
    let view = s.ask(&sv).await;
    assert_eq!(
        view["banked"][0]["answered_by"]["name"], "Ana",
        "{}",
        view["banked"]
    );
    let r = as_member(
        &s,
        &bo,
        Method::POST,
        &format!("/api/asks/{sv}/submit"),
        Some(&full_answers()),
    )
    .await;
    r.expect(200);
    assert!(bo_named(&s.ask(&sv).await["result"]), "{}", r.text);

    // A review.
    let rv = s
        .create("review", None, &json!({"title": "Check", "items": [{"id": "1", "type": "confirm", "label": "Works?"}]}))
        .await;
    let rv = rv.expect(201)["ask_id"].as_str().unwrap().to_string();
    let r = as_member(
        &s,
        &ana,
        Method::POST,
        &format!("/api/asks/{rv}/submit"),
        Some(&json!({"answers": [{"id": "1", "verdict": "pass"}]})),
    )
    .await;
    r.expect(200);
    assert_eq!(
        s.ask(&rv).await["result"]["answered_by"]["name"],
        "Ana",
        "{}",
        r.text
    );

    // A drift card: the result and the decision in the session's log.
    let session = s.session("claude-code", None).await;
    let reported = s
        .post(
            &format!("/api/sessions/{session}/alignment/report_drift"),
            &json!({"args": {"reason": "scope-expansion", "description": "Add a mobile app",
                "options": [{"label": "Web only"}, {"label": "PWA"}]}}),
        )
        .await
        .expect(200)
        .clone();
    let card = reported["ask_id"].as_str().unwrap().to_string();
    let r = as_member(
        &s,
        &bo,
        Method::POST,
        &format!("/api/asks/{card}/submit"),
        Some(&json!({"action": "option", "option": 1})),
    )
    .await;
    r.expect(200);
    assert!(bo_named(&s.ask(&card).await["result"]), "{}", r.text);
    let store = s.daemon().store.clone();
    let log = store.session_log(&session).await.unwrap();
    assert!(
        log.iter().any(
            |e| e.kind == "alignment.drift_decided" && e.payload["answered_by"]["name"] == "Bo"
        ),
        "{:?}",
        log.iter()
            .map(|e| (&e.kind, &e.payload))
            .collect::<Vec<_>>()
    );

    let page = s
        .get(&format!("/api/sessions/{session}/alignment"))
        .await
        .expect(200)
        .clone();
    assert_eq!(page["drifts"][0]["decided_by"], "Bo", "{}", page["drifts"]);

    // The install's answers name nobody.
    let q2 = s.create("questions", None, &questions()).await.expect(201)["ask_id"]
        .as_str()
        .unwrap()
        .to_string();
    let r = s
        .action(
            &q2,
            "submit",
            &json!({"answers": [{"id": "db", "selected": ["SQLite"]}]}),
        )
        .await;
    r.expect(200);
    assert!(
        s.ask(&q2).await["result"].get("answered_by").is_none(),
        "{}",
        r.text
    );
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_member_survives_a_restart_and_is_refused_at_once_when_revoked() {
    let s = TestServer::start().await;
    let (id, ana) = add(&s, "Ana").await;
    let login = ana.strip_prefix("askd_member=").unwrap().to_string();
    let dir = s.stop().await;
    let s = TestServer::start_in(dir).await;
    let me = as_member(&s, &ana, Method::GET, "/api/me", None).await;
    assert_eq!(me.expect(200)["name"], "Ana");
    // By name, without case.
    assert_eq!(
        s.send(s.req(Method::DELETE, "/api/members/ANA"))
            .await
            .status,
        204
    );
    let r = as_member(&s, &ana, Method::GET, "/api/asks", None).await;
    assert_eq!(r.expect(401)["code"], "member-revoked");
    let r = s
        .send(s.bare(Method::GET, &format!("/login/{login}")))
        .await;
    assert_eq!(r.status, 401);
    assert!(r.text.contains("does not work"), "{}", r.text);
    assert!(r.headers.get(SET_COOKIE).is_none());
    let r = s
        .send(s.req(Method::DELETE, &format!("/api/members/{id}")))
        .await;
    assert_eq!(r.expect(404)["code"], "not-found");
    let dir = s.stop().await;
    let s = TestServer::start_in(dir).await;
    let r = as_member(&s, &ana, Method::GET, "/api/asks", None).await;
    assert_eq!(r.status, 401, "still revoked after a restart");
    s.stop().await;
}

/// Issue 27 item 7: `POST /api/members` takes `name` and `agent` and nothing else — a body
/// with any other member (`admin: true`) is a 422 naming it and adds nobody, as every other
/// route answers — and `POST /api/pair`, which takes no field, refuses one likewise.
#[tokio::test(flavor = "multi_thread")]
async fn access_7_members_refuse_unknown_fields() {
    let s = TestServer::start().await;
    let r = s
        .post("/api/members", &json!({"name": "Ana", "admin": true}))
        .await;
    let b = r.expect(422);
    assert_eq!(b["code"], "invalid-request", "{}", r.text);
    assert_eq!(b["errors"][0]["path"], "admin", "{}", r.text);
    assert_eq!(b["errors"][0]["code"], "unknown_field", "{}", r.text);
    let m = b["errors"][0]["message"].as_str().unwrap();
    assert!(
        m.contains("\"admin\"") && m.contains("\"name\"") && m.contains("\"agent\""),
        "{m}"
    );
    // Every unknown member is named; a near miss says which field was meant.
    let r = s
        .post(
            "/api/members",
            &json!({"Name": "Ana", "role": "owner", "agent": false}),
        )
        .await;
    let b = r.expect(422);
    let paths: Vec<&str> = b["errors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["path"].as_str().unwrap())
        .collect();
    assert_eq!(paths, ["Name", "role"], "{}", r.text);
    assert!(
        b["errors"][0]["message"]
            .as_str()
            .unwrap()
            .contains("did you mean \"name\""),
        "{}",
        r.text
    );
    let listed = s.get("/api/members").await.expect(200)["members"].clone();
    assert_eq!(listed, json!([]), "nobody was added");
    // The two fields it takes still work.
    s.post("/api/members", &json!({"name": "Ana", "agent": false}))
        .await
        .expect(201);

    // POST /api/pair: no body or {} makes a code; a member is refused, no code made.
    let r = s.post("/api/pair", &json!({"ttl": 86400})).await;
    let b = r.expect(422);
    assert_eq!(b["errors"][0]["path"], "ttl", "{}", r.text);
    assert_eq!(b["errors"][0]["code"], "unknown_field", "{}", r.text);
    assert!(r.text.contains("takes none"), "{}", r.text);
    s.post("/api/pair", &json!({})).await.expect(200);
    let r = s.send(s.req(Method::POST, "/api/pair")).await;
    assert_eq!(r.status, 200, "no body at all: {}", r.text);
    let r = s
        .send(
            s.req(Method::POST, "/api/pair")
                .header(CONTENT_TYPE, "text/plain")
                .body("ttl=1"),
        )
        .await;
    assert_eq!(r.expect(415)["code"], "json-required");
    s.stop().await;
}

/// Issue 27 item 7: member names are normalised (NFC, trimmed); an invisible character
/// (zero-width, a text-direction control, a format character) is a 422 naming the field,
/// the character and the fix; a look-alike of a member's name (another script's letters,
/// a digit for a letter, case) is `409 member-exists` saying whom it looks like.
#[tokio::test(flavor = "multi_thread")]
async fn access_7_names_refuse_invisible_and_confusable() {
    let s = TestServer::start().await;
    add(&s, "Ana").await;
    add(&s, "Bob").await;
    for (name, shown) in [
        ("\u{200b}Ana", "U+200B"),
        ("Ana\u{200d}", "U+200D"),
        ("An\u{feff}a", "U+FEFF"),
        ("Ana\u{202e}", "U+202E"),
        ("\u{2066}Ana\u{2069}", "U+2066"),
        ("Ana\u{200f}", "U+200F"),
        ("Ana\u{2060}", "U+2060"),
        ("\u{3164}Ana", "U+3164"),
    ] {
        let r = s.post("/api/members", &json!({ "name": name })).await;
        let b = r.expect(422);
        assert_eq!(b["errors"][0]["path"], "name", "{name:?}: {}", r.text);
        assert_eq!(
            b["errors"][0]["code"], "name_invisible",
            "{name:?}: {}",
            r.text
        );
        let m = b["errors"][0]["message"].as_str().unwrap();
        assert!(
            m.contains(shown) && m.contains("type the name"),
            "{name:?}: {m}"
        );
    }
    for (name, like) in [
        ("\u{410}na", "Ana"),       // Cyrillic А
        ("\u{410}n\u{430}", "Ana"), // Cyrillic А and а
        ("\u{ff21}na", "Ana"),      // full-width Ａ
        ("B0b", "Bob"),             // a zero for the o
        ("B\u{3bf}b", "Bob"),       // Greek omicron
    ] {
        let r = s.post("/api/members", &json!({ "name": name })).await;
        let b = r.expect(409);
        assert_eq!(b["code"], "member-exists", "{name:?}: {}", r.text);
        let m = b["message"].as_str().unwrap();
        assert!(
            m.contains("looks like") && m.contains(&format!("{like:?}")),
            "{name:?}: {m}"
        );
    }
    // The plain duplicate still says it exists.
    let r = s.post("/api/members", &json!({"name": "ANA"})).await;
    assert!(
        r.expect(409)["message"]
            .as_str()
            .unwrap()
            .contains("exists already")
    );
    // NFC: a decomposed name is stored composed, and its composed twin is taken.
    let r = s
        .post("/api/members", &json!({"name": " Zoe\u{308} "}))
        .await;
    assert_eq!(r.expect(201)["member"]["name"], "Zo\u{eb}");
    let r = s.post("/api/members", &json!({"name": "Zo\u{eb}"})).await;
    assert_eq!(r.expect(409)["code"], "member-exists");
    // Names in other scripts are welcome when they look like nobody's.
    s.post("/api/members", &json!({"name": "Алёна"}))
        .await
        .expect(201);
    s.post("/api/members", &json!({"name": "李明"}))
        .await
        .expect(201);
    let names: Vec<String> = s.get("/api/members").await.expect(200)["members"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["name"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(names.len(), 5, "{names:?}");
    // Revoking by name finds the composed name from the decomposed one too.
    let r = s
        .send(s.req(Method::DELETE, "/api/members/zoe%CC%88"))
        .await;
    assert_eq!(r.status, 204, "{}", r.text);
    s.stop().await;
}

//! Who may do what (issue 27), on a real daemon and SQLite file over loopback HTTP: every
//! kind of caller — the install's token, a paired phone, a member's login, an agent token,
//! no token — against the one access table, the one read scope, and revocation. Each test is
//! named after the item of the issue it checks.

use std::time::{Duration, Instant};

use crate::common;

use common::*;
use reqwest::Method;
use reqwest::header::{AUTHORIZATION, CONTENT_TYPE, COOKIE, SET_COOKIE};
use serde_json::{Value, json};

/// Pairs a phone; its cookie.
async fn pair(s: &TestServer, name: &str) -> String {
    let p = s.post("/api/pair", &json!({})).await.expect(200).clone();
    let code = p["code"].as_str().unwrap().to_string();
    let r = s
        .send(
            s.bare(Method::POST, &format!("/pair/{code}"))
                .header(CONTENT_TYPE, "application/x-www-form-urlencoded")
                .body(format!("name={name}")),
        )
        .await;
    assert_eq!(r.status, 303, "{}", r.text);
    let set = r.headers.get(SET_COOKIE).unwrap().to_str().unwrap();
    set.split(';').next().unwrap().to_string()
}

/// Adds a member and signs in as them the way a link opened from a mail does; (id, cookie).
async fn member(s: &TestServer, name: &str) -> (String, String) {
    let b = s
        .post("/api/members", &json!({"name": name}))
        .await
        .expect(201)
        .clone();
    let token = b["token"].as_str().unwrap();
    let r = s
        .send(
            s.bare(Method::GET, &format!("/login/{token}"))
                .header("sec-fetch-site", "none"),
        )
        .await;
    assert_eq!(r.status, 303, "{}", r.text);
    let set = r.headers.get(SET_COOKIE).unwrap().to_str().unwrap();
    (
        b["member"]["id"].as_str().unwrap().to_string(),
        set.split(';').next().unwrap().to_string(),
    )
}

/// Adds an agent token; (id, token).
async fn agent(s: &TestServer, name: &str) -> (String, String) {
    let b = s
        .post("/api/members", &json!({"name": name, "agent": true}))
        .await
        .expect(201)
        .clone();
    (
        b["member"]["id"].as_str().unwrap().to_string(),
        b["token"].as_str().unwrap().to_string(),
    )
}

fn with_cookie(s: &TestServer, cookie: &str, m: Method, path: &str) -> reqwest::RequestBuilder {
    s.bare(m, path).header(COOKIE, cookie)
}

fn with_bearer(s: &TestServer, token: &str, m: Method, path: &str) -> reqwest::RequestBuilder {
    s.bare(m, path)
        .header(AUTHORIZATION, format!("Bearer {token}"))
}

fn questions(text: &str) -> Value {
    json!({"questions": [{"id": "db", "question": text,
        "options": [{"label": "PostgreSQL"}, {"label": "SQLite"}]}]})
}

async fn ask(s: &TestServer, session: Option<&str>, text: &str) -> String {
    s.create("questions", session, &questions(text))
        .await
        .expect(201)["ask_id"]
        .as_str()
        .unwrap()
        .to_string()
}

fn answer() -> Value {
    json!({"answers": [{"id": "db", "selected": ["PostgreSQL"]}]})
}

#[tokio::test(flavor = "multi_thread")]
async fn access_1_revocation_ends_open_streams_and_waits_at_once() {
    let s = TestServer::start().await;
    let phone = pair(&s, "phone").await;
    let (_, ana) = member(&s, "Ana").await;
    let (bot_id, bot) = agent(&s, "ci-bot").await;
    let pending = ask(&s, None, "Which database?").await;

    let mut phone_events = s
        .events(with_cookie(&s, &phone, Method::GET, "/api/events"))
        .await;
    let mut ana_events = s
        .events(with_cookie(&s, &ana, Method::GET, "/api/events"))
        .await;
    let mut bot_events = s
        .events(with_bearer(&s, &bot, Method::GET, "/api/events"))
        .await;
    // The agent waits on an ask with no budget: only a settle or its revocation ends it.
    let wait = {
        let rb = with_bearer(&s, &bot, Method::GET, &format!("/api/asks/{pending}/wait"));
        tokio::spawn(async move { rb.send().await.map(|r| r.status().as_u16()) })
    };
    tokio::time::sleep(Duration::from_millis(200)).await;

    // The phone is revoked: its stream ends now, and no later ask reaches it.
    let devices = s.get("/api/devices").await.expect(200)["devices"].clone();
    let device_id = devices[0]["id"].as_str().unwrap().to_string();
    let t = Instant::now();
    s.send(s.req(Method::DELETE, &format!("/api/devices/{device_id}")))
        .await
        .expect(204);
    let mut seen = Vec::new();
    assert!(
        phone_events.ends(Duration::from_secs(1), &mut seen).await,
        "the revoked phone's stream is still open after 1 s"
    );
    eprintln!("phone stream ended {:?} after the revoke", t.elapsed());
    ask(&s, None, "A title the revoked phone must not see").await;
    let r = s
        .send(with_cookie(&s, &phone, Method::GET, "/api/events"))
        .await;
    assert_eq!(r.expect(401)["code"], "device-revoked");

    // The member is revoked (by name, as `askd members revoke Ana`): the same.
    s.send(s.req(Method::DELETE, "/api/members/Ana"))
        .await
        .expect(204);
    let mut seen = Vec::new();
    assert!(
        ana_events.ends(Duration::from_secs(1), &mut seen).await,
        "the revoked member's stream is still open after 1 s"
    );
    let r = s
        .send(with_cookie(&s, &ana, Method::GET, "/api/asks"))
        .await;
    assert_eq!(r.expect(401)["code"], "member-revoked");

    // The agent token is revoked: its wait answers 401 at once, its stream ends.
    s.send(s.req(Method::DELETE, &format!("/api/members/{bot_id}")))
        .await
        .expect(204);
    let status = tokio::time::timeout(Duration::from_secs(1), wait)
        .await
        .expect("the revoked agent's wait still runs after 1 s")
        .unwrap()
        .unwrap();
    assert_eq!(status, 401);
    let mut seen = Vec::new();
    assert!(bot_events.ends(Duration::from_secs(1), &mut seen).await);
    // The install's own stream is untouched.
    let r = s.get("/api/health").await;
    r.expect(200);
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn access_2_a_phone_reads_its_inbox_and_nothing_else() {
    let s = TestServer::start().await;
    let phone = pair(&s, "phone").await;
    let (_, ana) = member(&s, "Ana").await;
    let session = s.session("claude-code", Some("/secret/workspace")).await;
    // A baseline: the session's goal and constraints are not the phone's to read.
    s.post(
        &format!("/api/sessions/{session}/alignment/baseline"),
        &json!({"args": {"goal": "Ship the secret merger", "explicit_constraints": ["tell nobody"]}}),
    )
    .await
    .expect(200);
    let desk = ask(&s, Some(&session), "Answered at the desk").await;
    s.action(
        &desk,
        "submit",
        &json!({"answers": [{"id": "db", "selected": [], "custom": "desk-only reason"}]}),
    )
    .await
    .expect(200);
    let mine = ask(&s, Some(&session), "Answered on the phone").await;
    let r = s
        .send(
            with_cookie(
                &s,
                &phone,
                Method::POST,
                &format!("/api/asks/{mine}/submit"),
            )
            .header(CONTENT_TYPE, "application/json")
            .body(answer().to_string()),
        )
        .await;
    let result = r.expect(200).clone();
    assert_eq!(
        result["result"]["answered_by"]["kind"], "device",
        "{result}"
    );
    assert_eq!(result["result"]["answered_by"]["name"], "phone");
    let open = ask(&s, Some(&session), "Still open").await;

    // One ask: the pending one and its own answer, not the desk's.
    let get = |p: String| s.send(with_cookie(&s, &phone, Method::GET, &p));
    get(format!("/api/asks/{open}")).await.expect(200);
    get(format!("/api/asks/{mine}")).await.expect(200);
    let r = get(format!("/api/asks/{desk}")).await;
    assert_eq!(r.expect(403)["code"], "ask-out-of-scope");
    assert!(!r.text.contains("desk-only"), "{}", r.text);
    // The listing: the same rule.
    let r = get("/api/asks?state=settled".into()).await;
    let ids: Vec<String> = r.expect(200)["asks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["id"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(ids, vec![mine.clone()], "{}", r.text);
    let r = get("/api/asks".into()).await;
    let ids: Vec<&str> = r.body["asks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["id"].as_str().unwrap())
        .collect();
    assert!(ids.contains(&open.as_str()) && ids.contains(&mine.as_str()));
    assert!(!ids.contains(&desk.as_str()), "{ids:?}");

    // The replay from the start of the log: the inbox, not the sessions.
    let mut replay = s
        .events(with_cookie(&s, &phone, Method::GET, "/api/events?since=0"))
        .await;
    let frames = replay.drain(Duration::from_millis(700)).await;
    let all = format!("{frames:?}");
    assert!(!frames.is_empty());
    for f in &frames {
        let kind = f.event.as_deref().unwrap_or_default();
        assert!(
            !kind.starts_with("alignment.") && !kind.starts_with("session."),
            "a session event reached the phone: {f:?}"
        );
    }
    for secret in [
        "secret merger",
        "tell nobody",
        "/secret/workspace",
        "desk-only",
        "Answered at the desk",
    ] {
        assert!(!all.contains(secret), "{secret:?} reached the phone: {all}");
    }
    // The desk's settle reaches it only as "left the inbox".
    let left = frames
        .iter()
        .find(|f| f.event.as_deref() == Some("ask.settled") && f.data["ask_id"] == desk.as_str())
        .unwrap_or_else(|| panic!("no settle of {desk}: {all}"));
    assert!(left.data.get("answers").is_none(), "{:?}", left.data);
    // Its own answer and the open ask come whole.
    assert!(
        frames
            .iter()
            .any(|f| f.event.as_deref() == Some("ask.settled")
                && f.data["ask_id"] == mine.as_str()
                && f.data.get("answers").is_some()),
        "{all}"
    );
    assert!(frames.iter().any(|f| f.event.as_deref() == Some("ask.created")
        && f.data["ask_id"] == open.as_str()), "{all}");

    // Live: the desk answers the open ask; the phone learns it left, not the answer.
    s.action(
        &open,
        "submit",
        &json!({"answers": [{"id": "db", "selected": [], "custom": "live desk secret"}]}),
    )
    .await
    .expect(200);
    let live = replay.drain(Duration::from_millis(700)).await;
    let settled = live
        .iter()
        .find(|f| f.event.as_deref() == Some("ask.settled"))
        .unwrap_or_else(|| panic!("{live:?}"));
    assert_eq!(settled.data["ask_id"], open.as_str());
    assert!(!format!("{live:?}").contains("live desk secret"));

    // Pages and their data: records and sessions stay closed to a phone, open to a member.
    for p in [
        "/records",
        "/api/records",
        "/api/sessions",
        &format!("/sessions/{session}"),
    ] {
        let r = get(p.to_string()).await;
        assert_eq!(r.status, 403, "{p}: {}", r.text);
    }
    let r = s
        .send(with_cookie(
            &s,
            &ana,
            Method::GET,
            &format!("/api/asks/{desk}"),
        ))
        .await;
    r.expect(200);
    let mut member_replay = s
        .events(with_cookie(&s, &ana, Method::GET, "/api/events?since=0"))
        .await;
    let frames = member_replay.drain(Duration::from_millis(700)).await;
    assert!(
        frames.iter().any(|f| f
            .event
            .as_deref()
            .is_some_and(|k| k.starts_with("session."))),
        "a member reads the sessions"
    );
    // What the phone did not get is in the log: the member's replay has it.
    let all = format!("{frames:?}");
    for secret in ["secret merger", "/secret/workspace", "desk-only"] {
        assert!(all.contains(secret), "{secret:?} is not in the log: {all}");
    }
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn access_5_agent_tokens_open_an_allow_list_and_are_named() {
    let s = TestServer::start().await;
    let (bot_id, bot) = agent(&s, "ci-bot").await;
    let (_, ana) = member(&s, "Ana").await;
    let session = s.session("claude-code", None).await;
    let q = ask(&s, Some(&session), "Which database?").await;
    let send = |m: Method, p: String, body: Option<Value>| {
        let mut rb = with_bearer(&s, &bot, m, &p);
        if let Some(b) = body {
            rb = rb
                .header(CONTENT_TYPE, "application/json")
                .body(b.to_string());
        }
        s.send(rb)
    };
    // The human's mode switch, claims (a person's), Settings, notifications, people.
    for (m, p, body) in [
        (
            Method::PUT,
            format!("/api/sessions/{session}/alignment/mode"),
            Some(json!({"mode": "off"})),
        ),
        (Method::POST, format!("/api/asks/{q}/claim"), None),
        (Method::DELETE, format!("/api/asks/{q}/claim"), None),
        (Method::PUT, "/api/settings".into(), Some(json!({}))),
        (Method::GET, "/api/notify".into(), None),
        (Method::GET, "/api/members".into(), None),
        (Method::GET, "/api/devices".into(), None),
        (Method::POST, "/api/pair".into(), Some(json!({}))),
        (Method::GET, "/settings".into(), None),
    ] {
        let r = send(m.clone(), p.clone(), body).await;
        assert_eq!(r.expect(403)["code"], "agent-scope", "{m} {p}");
    }
    // Ana's claim stays hers.
    s.send(with_cookie(
        &s,
        &ana,
        Method::POST,
        &format!("/api/asks/{q}/claim"),
    ))
    .await
    .expect(200);
    let r = send(Method::DELETE, format!("/api/asks/{q}/claim"), None).await;
    r.expect(403);
    assert_eq!(s.ask(&q).await["claim"]["name"], "Ana");
    // What it does is the agent's: a mode change it says is the human's, and an answer.
    let r = send(
        Method::POST,
        format!("/api/sessions/{session}/alignment/mode"),
        Some(json!({"mode": "manual", "actor": "human"})),
    )
    .await;
    r.expect(200);
    let mut events = s.events(s.req(Method::GET, "/api/events?since=0")).await;
    let frames = events.drain(Duration::from_millis(500)).await;
    let mode = frames
        .iter()
        .find(|f| f.event.as_deref() == Some("alignment.mode_set"))
        .unwrap_or_else(|| panic!("{frames:?}"));
    assert_eq!(mode.data["actor"], "agent", "{:?}", mode.data);
    let r = send(
        Method::POST,
        format!("/api/asks/{q}/submit"),
        Some(answer()),
    )
    .await;
    let result = r.expect(200)["result"].clone();
    assert_eq!(
        result["answered_by"],
        json!({"kind": "agent", "id": bot_id, "name": "ci-bot"})
    );
    let stored = s.ask(&q).await;
    assert_eq!(stored["result"]["answered_by"]["kind"], "agent");
    let records = s.get("/api/records").await.expect(200).clone();
    assert!(
        records.to_string().contains("\"kind\":\"agent\""),
        "{records}"
    );
    // What it needs still works: ask, wait, list, read.
    let r = send(
        Method::POST,
        "/api/asks".into(),
        Some(json!({"kind": "questions", "args": questions("Another?")})),
    )
    .await;
    let id = r.expect(201)["ask_id"].as_str().unwrap().to_string();
    send(
        Method::GET,
        format!("/api/asks/{id}/wait?timeout_s=0"),
        None,
    )
    .await
    .expect(200);
    send(Method::GET, "/api/settings".into(), None)
        .await
        .expect(200);
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn access_7_a_login_link_opened_by_another_site_asks_first() {
    let s = TestServer::start().await;
    let b = s
        .post("/api/members", &json!({"name": "Ana <b>"}))
        .await
        .expect(201)
        .clone();
    let token = b["token"].as_str().unwrap();
    let login = format!("/login/{token}");
    // Another site's page navigates (or posts) to the link: no cookie without a click.
    for site in [Some("cross-site"), Some("same-site"), None] {
        let mut rb = s.bare(Method::GET, &login);
        if let Some(v) = site {
            rb = rb.header("sec-fetch-site", v);
        }
        let r = s.send(rb).await;
        assert_eq!(r.status, 200, "{site:?}");
        assert!(r.headers.get(SET_COOKIE).is_none(), "{site:?} signed in");
        assert!(r.text.contains("as Ana &lt;b&gt;?"), "{}", r.text);
        assert!(r.text.contains("<form method=\"post\">"));
    }
    for (site, origin) in [
        (Some("cross-site"), Some("https://evil.example")),
        (Some("cross-site"), None),
        (None, Some("null")),
    ] {
        let mut rb = s.bare(Method::POST, &login);
        if let Some(v) = site {
            rb = rb.header("sec-fetch-site", v);
        }
        if let Some(o) = origin {
            rb = rb.header("origin", o);
        }
        let r = s.send(rb).await;
        assert_eq!(r.status, 403, "{site:?} {origin:?}: {}", r.text);
        assert!(r.headers.get(SET_COOKIE).is_none());
    }
    // The confirm button on askd's own page, and a link opened from a mail or chat app.
    let r = s
        .send(
            s.bare(Method::POST, &login)
                .header("sec-fetch-site", "same-origin")
                .header("origin", "null"),
        )
        .await;
    assert_eq!(r.status, 303, "{}", r.text);
    assert!(r.headers.get(SET_COOKIE).is_some());
    let r = s
        .send(s.bare(Method::GET, &login).header("sec-fetch-site", "none"))
        .await;
    assert_eq!(r.status, 303);
    assert!(r.headers.get(SET_COOKIE).is_some());
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn access_8_unknown_and_revoked_tokens_are_told_apart() {
    let s = TestServer::start().await;
    let (_, ana) = member(&s, "Ana").await;
    let phone = pair(&s, "phone").await;
    let r = s
        .send(with_cookie(
            &s,
            "askd_member=feedfeed",
            Method::GET,
            "/api/asks",
        ))
        .await;
    assert_eq!(r.expect(401)["code"], "unknown-member");
    let r = s
        .send(with_cookie(
            &s,
            "askd_device=feedfeed",
            Method::GET,
            "/api/asks",
        ))
        .await;
    assert_eq!(r.expect(401)["code"], "unknown-device");
    s.send(s.req(Method::DELETE, "/api/members/Ana"))
        .await
        .expect(204);
    let r = s
        .send(with_cookie(&s, &ana, Method::GET, "/api/asks"))
        .await;
    assert_eq!(r.expect(401)["code"], "member-revoked");
    let id = s.get("/api/devices").await.expect(200)["devices"][0]["id"]
        .as_str()
        .unwrap()
        .to_string();
    s.send(s.req(Method::DELETE, &format!("/api/devices/{id}")))
        .await
        .expect(204);
    let r = s
        .send(with_cookie(&s, &phone, Method::GET, "/api/asks"))
        .await;
    assert_eq!(r.expect(401)["code"], "device-revoked");
    // A stale cookie does not stand in the way of a new login or pairing.
    let b = s
        .post("/api/members", &json!({"name": "Ana"}))
        .await
        .expect(201)
        .clone();
    let r = s
        .send(
            with_cookie(
                &s,
                &ana,
                Method::GET,
                &format!("/login/{}", b["token"].as_str().unwrap()),
            )
            .header("sec-fetch-site", "none"),
        )
        .await;
    assert_eq!(r.status, 303, "{}", r.text);
    s.stop().await;
}

/// The route-coverage check: every route the daemon registers has an access entry (the
/// router cannot be built without one), and each entry is what the real daemon enforces —
/// every route asked by every kind of caller answers as its entry says.
#[tokio::test(flavor = "multi_thread")]
async fn access_every_route_answers_each_caller_as_its_entry_says() {
    let s = TestServer::start().await;
    let phone = pair(&s, "phone").await;
    let (_, ana) = member(&s, "Ana").await;
    let (_, bot) = agent(&s, "ci-bot").await;
    let routes = askd_daemon::http::routes::routes();
    let table = routes.table().clone();
    assert!(table.entries().len() >= 40, "{table:?}");
    let fill = |pattern: &str| -> String {
        pattern
            .replace("{id}", "01nosuchask")
            .replace("{op}", "status")
            .replace("{code}", "00000000000000000000000000000000")
            .replace("{token}", "nosuchtoken")
            .replace("{file}", "nosuch.svg")
            .replace("{*path}", "css/app.css")
    };
    for e in table.entries() {
        let method = e.method.clone().unwrap_or(Method::POST);
        let path = fill(&e.path);
        let [install, agent, member, device, anonymous] = e.allow.columns();
        for (who, allowed) in [
            ("install", install),
            ("agent", agent),
            ("member", member),
            ("device", device),
            ("anonymous", anonymous),
        ] {
            let mut rb = match who {
                "install" => s.req(method.clone(), &path),
                "agent" => with_bearer(&s, &bot, method.clone(), &path),
                "member" => with_cookie(&s, &ana, method.clone(), &path),
                "device" => with_cookie(&s, &phone, method.clone(), &path),
                _ => s.bare(method.clone(), &path),
            };
            if method != Method::GET && method != Method::DELETE {
                rb = rb.header(CONTENT_TYPE, "application/json").body("{}");
            }
            // Headers are enough (the event stream never ends).
            let r = rb
                .timeout(Duration::from_secs(10))
                .send()
                .await
                .unwrap_or_else(|e| panic!("{method} {path} as {who}: {e}"));
            let status = r.status().as_u16();
            let text = if e.path == "/api/events" && status == 200 {
                String::new()
            } else {
                r.text().await.unwrap_or_default()
            };
            let code = serde_json::from_str::<Value>(&text)
                .ok()
                .and_then(|v| v["code"].as_str().map(str::to_string))
                .unwrap_or_default();
            let refused = (status == 401 && code == "unauthorized")
                || (status == 403 && code.ends_with("-scope"));
            assert_eq!(
                !refused, allowed,
                "{method} {} as {who}: {status} {text}",
                e.path
            );
        }
    }
    s.stop().await;
}

/// Issue 30 §1: a browser that opens a page it may not (a phone or a member on Settings, a
/// revoked phone, no sign-in at all, an unknown address) gets a page that says what
/// happened and what to do; the API and scripts keep the JSON error.
#[tokio::test(flavor = "multi_thread")]
async fn access_refusals_are_pages_for_a_browser_and_json_for_the_api() {
    let s = TestServer::start().await;
    let phone = pair(&s, "phone").await;
    let (_, ana) = member(&s, "Ana").await;
    let html = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8";
    let page = |rb: reqwest::RequestBuilder| s.send(rb.header("accept", html));
    for (cookie, want) in [(&phone, "a paired device"), (&ana, "a team member")] {
        let r = page(with_cookie(&s, cookie, Method::GET, "/settings")).await;
        assert_eq!(r.status, 403);
        assert!(r.header("content-type").unwrap().starts_with("text/html"));
        assert!(
            r.text.contains("This page is not open to you"),
            "{}",
            r.text
        );
        assert!(r.text.contains(want), "{}", r.text);
        assert!(r.text.contains("href=\"/\""), "a way back to the inbox");
        // The API (and a script asking for anything) keeps the JSON error.
        let r = s
            .send(with_cookie(&s, cookie, Method::GET, "/settings"))
            .await;
        assert!(r.expect(403)["code"].as_str().unwrap().ends_with("-scope"));
    }
    let r = page(s.req(Method::GET, "/no/such/page")).await;
    assert_eq!(r.status, 404);
    assert!(r.text.contains("No such page"), "{}", r.text);
    let r = page(s.bare(Method::GET, "/")).await;
    assert_eq!(r.status, 401);
    assert!(r.text.contains("askd needs you to sign in"), "{}", r.text);
    assert!(r.text.contains("?token="), "{}", r.text);
    let r = page(s.bare(Method::GET, "/api/asks")).await;
    assert_eq!(r.expect(401)["code"], "unauthorized");
    let id = s.get("/api/devices").await.expect(200)["devices"][0]["id"]
        .as_str()
        .unwrap()
        .to_string();
    s.send(s.req(Method::DELETE, &format!("/api/devices/{id}")))
        .await
        .expect(204);
    let r = page(with_cookie(&s, &phone, Method::GET, "/")).await;
    assert_eq!(r.status, 401);
    assert!(
        r.text.contains("This phone is not paired with askd"),
        "{}",
        r.text
    );
    assert!(r.text.contains("askd pair"), "{}", r.text);
    let r = s
        .send(with_cookie(&s, &phone, Method::GET, "/api/asks"))
        .await;
    assert_eq!(r.expect(401)["code"], "device-revoked");
    // The refusal page's own look loads with the revoked cookie too.
    for file in ["/page.css", "/icon.svg"] {
        let r = s.send(with_cookie(&s, &phone, Method::GET, file)).await;
        assert_eq!(r.status, 200, "{file}: {}", r.text);
    }
    s.stop().await;
}

/// Issue 30 §1 and §6: the pages the daemon writes itself (a refusal, the pairing page a
/// phone opens first, a member's login confirm) are styled by `/page.css`, which needs no
/// token, and speak the browser's language (`Accept-Language`), as the web UI does.
#[tokio::test]
async fn server_pages_are_styled_and_speak_the_browsers_language() {
    let s = TestServer::start().await;
    let html = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8";
    let css = s.send(s.bare(Method::GET, "/page.css")).await;
    assert_eq!(
        css.status, 200,
        "no token is needed for the pages' stylesheet"
    );
    assert!(css.header("content-type").unwrap().starts_with("text/css"));
    assert!(css.text.contains("light-dark("), "light and dark");

    let code = s.post("/api/pair", &json!({})).await.expect(200)["code"]
        .as_str()
        .unwrap()
        .to_string();
    let pair_page = |lang: &'static str| {
        s.send(
            s.bare(Method::GET, &format!("/pair/{code}"))
                .header("accept", html)
                .header("accept-language", lang),
        )
    };
    let en = pair_page("en-US,en;q=0.9").await;
    assert_eq!(en.status, 200);
    assert!(
        en.text
            .contains("<link rel=\"stylesheet\" href=\"/page.css\">")
    );
    assert!(
        en.text.contains("Pair this device with askd"),
        "{}",
        en.text
    );
    assert!(en.text.contains("<html lang=\"en\">"));
    let zh = pair_page("zh-CN,zh;q=0.9,en;q=0.8").await;
    assert!(zh.text.contains("<html lang=\"zh-CN\">"), "{}", zh.text);
    assert!(zh.text.contains("将这台设备与 askd 配对"), "{}", zh.text);
    assert!(zh.text.contains("value=\"手机\""), "{}", zh.text);
    assert!(zh.text.contains("/page.css"));
    // A spent or mistyped code, in Chinese.
    let r = s
        .send(
            s.bare(Method::GET, &format!("/pair/{}", "0".repeat(32)))
                .header("accept", html)
                .header("accept-language", "zh-CN"),
        )
        .await;
    assert_eq!(r.status, 404);
    assert!(r.text.contains("这个配对链接无效"), "{}", r.text);

    // Refusals: no sign-in, a page not open to a phone, no such page — in Chinese, styled.
    let r = s
        .send(
            s.bare(Method::GET, "/")
                .header("accept", html)
                .header("accept-language", "zh-CN"),
        )
        .await;
    assert_eq!(r.status, 401);
    assert!(r.text.contains("请先登录 askd"), "{}", r.text);
    assert!(r.text.contains("?token="), "{}", r.text);
    assert!(r.text.contains("/page.css"));
    let phone = pair(&s, "phone").await;
    let r = s
        .send(
            with_cookie(&s, &phone, Method::GET, "/settings")
                .header("accept", html)
                .header("accept-language", "zh-CN,en;q=0.5"),
        )
        .await;
    assert_eq!(r.status, 403);
    assert!(r.text.contains("这个页面不对你开放"), "{}", r.text);
    assert!(r.text.contains("返回收件箱"), "{}", r.text);
    let r = s
        .send(
            s.req(Method::GET, "/nowhere")
                .header("accept", html)
                .header("accept-language", "zh"),
        )
        .await;
    assert_eq!(r.status, 404);
    assert!(r.text.contains("没有这个页面"), "{}", r.text);

    // A member's login confirm step (a link opened from another site's page), with a name
    // that is markup: escaped, in the heading, the text and the button.
    let b = s
        .post("/api/members", &json!({"name": "<b>Ana</b>"}))
        .await
        .expect(201)
        .clone();
    let token = b["token"].as_str().unwrap();
    let r = s
        .send(
            s.bare(Method::GET, &format!("/login/{token}"))
                .header("sec-fetch-site", "cross-site")
                .header("accept-language", "zh-CN"),
        )
        .await;
    assert_eq!(r.status, 200);
    assert!(
        r.text.contains("以 &lt;b&gt;Ana&lt;/b&gt; 的身份登录"),
        "{}",
        r.text
    );
    assert!(!r.text.contains("<b>Ana</b>"), "{}", r.text);
    assert!(r.text.contains("<form method=\"post\">"), "{}", r.text);
    assert!(r.text.contains("/page.css"));
    s.stop().await;
}

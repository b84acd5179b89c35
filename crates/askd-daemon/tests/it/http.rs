//! Integration tests of `askd serve`: the real server on a loopback port, a real SQLite file
//! in a temporary data directory, and a real HTTP client.

use crate::common;

use std::sync::Arc;
use std::time::{Duration, Instant};

use common::{Resp, TestServer, full_answers, release_scope, release_scope_titled};
use reqwest::Method;
use reqwest::header::{AUTHORIZATION, CONTENT_TYPE, COOKIE, HOST, ORIGIN};
use serde_json::{Value, json};
use tokio::sync::Barrier;

const SEC: Duration = Duration::from_secs(1);

fn ask_path(id: &str) -> String {
    format!("/api/asks/{id}")
}

fn ids(asks: &Value) -> Vec<String> {
    asks["asks"]
        .as_array()
        .expect("asks list")
        .iter()
        .map(|a| a["id"].as_str().unwrap().to_string())
        .collect()
}

// ---------------------------------------------------------------------------------------------
// Sessions and asks
// ---------------------------------------------------------------------------------------------

#[tokio::test]
async fn sessions_are_opened_continued_and_listed() {
    let s = TestServer::start().await;
    let r = s
        .post(
            "/api/sessions",
            &json!({"client": "claude-code", "workspace": "/work/ws"}),
        )
        .await;
    let opened = r.expect(200).clone();
    assert_eq!(opened["ok"], true);
    let id = opened["session"]["id"].as_str().unwrap().to_string();
    assert_eq!(opened["session"]["client"], "claude-code");
    assert_eq!(opened["session"]["workspace"], "/work/ws");

    // An explicit id continues the session instead of creating another.
    let again = s
        .post("/api/sessions", &json!({"id": id, "client": "other"}))
        .await;
    assert_eq!(again.expect(200)["session"]["id"], id.as_str());

    let list = s.get("/api/sessions").await;
    let sessions = list.expect(200)["sessions"].as_array().unwrap().clone();
    assert_eq!(sessions.len(), 1, "{sessions:?}");
    assert_eq!(sessions[0]["id"], id.as_str());

    // A member of the wrong type is a 422 with its path; a non-object body is a 422 too.
    let bad = s.post("/api/sessions", &json!({"client": 7})).await;
    bad.expect(422);
    assert_eq!(bad.body["errors"][0]["path"], "client");
    s.post("/api/sessions", &json!([1])).await.expect(422);
    s.stop().await;
}

#[tokio::test]
async fn create_ask_returns_201_and_reattaches_an_identical_payload_in_the_same_session() {
    let s = TestServer::start().await;
    let session = s.session("agent", None).await;
    let first = s.create("survey", Some(&session), &release_scope()).await;
    let b = first.expect(201).clone();
    assert_eq!(b["ok"], true);
    assert_eq!(b["created"], true);
    assert_eq!(b["kind"], "survey");
    assert_eq!(b["state"], "pending");
    assert_eq!(b["session"], session.as_str());
    let id = b["ask_id"].as_str().unwrap().to_string();
    assert_eq!(b["url"], format!("{}/a/{id}", s.url));

    let again = s.create("survey", Some(&session), &release_scope()).await;
    let a = again.expect(200);
    assert_eq!(a["created"], false);
    assert_eq!(a["ask_id"], id.as_str());

    // A changed payload in the same session is a new ask.
    let changed = s
        .create("survey", Some(&session), &release_scope_titled("Other"))
        .await;
    assert_ne!(changed.expect(201)["ask_id"], id.as_str());

    // Once the first ask settled, the identical payload creates a fresh ask.
    s.action(&id, "cancel", &json!({})).await.expect(200);
    let after = s.create("survey", Some(&session), &release_scope()).await;
    assert_ne!(after.expect(201)["ask_id"], id.as_str());
    s.stop().await;
}

#[tokio::test]
async fn create_ask_in_another_session_makes_a_new_ask() {
    let s = TestServer::start().await;
    let one = s.session("agent", None).await;
    let two = s.session("agent", None).await;
    assert_ne!(one, two);
    let a = s.survey(Some(&one)).await;
    let r = s.create("survey", Some(&two), &release_scope()).await;
    let b = r.expect(201);
    assert_eq!(b["created"], true);
    assert_ne!(b["ask_id"], a.as_str());
    // Without a session the daemon's default `http` session is used.
    let r = s.create("survey", None, &release_scope()).await;
    assert_eq!(r.expect(201)["session"], "http");
    // An unknown session is refused.
    let r = s
        .create("survey", Some("no-such-session"), &release_scope())
        .await;
    assert_eq!(r.expect(422)["code"], "unknown-session");
    s.stop().await;
}

#[tokio::test]
async fn create_ask_rejects_an_invalid_spec_with_every_error() {
    let s = TestServer::start().await;
    let mut args = release_scope();
    args["survey"]["entry"] = json!("scoep");
    args["survey"]["questions"]["ship"]["options"] = json!([{"key": "a", "label": "Only"}]);
    args["survey"]["title"] = json!("  ");
    let r = s.create("survey", None, &args).await;
    let b = r.expect(422).clone();
    assert_eq!(b["ok"], false);
    assert_eq!(b["code"], "SURVEY_BAD_SPEC");
    let errors = b["errors"].as_array().unwrap();
    assert!(errors.len() >= 3, "{errors:?}");
    for e in errors {
        for member in ["path", "code", "message"] {
            assert!(e[member].is_string(), "{member} missing in {e}");
        }
    }
    let codes = r.error_codes();
    for code in ["title_blank", "options_too_few", "entry_unknown"] {
        assert!(codes.iter().any(|c| c == code), "{code} not in {codes:?}");
    }
    let joined: Vec<&str> = errors
        .iter()
        .map(|e| e["message"].as_str().unwrap())
        .collect();
    assert_eq!(
        b["error"],
        format!("invalid survey spec: {}", joined.join("; "))
    );
    assert_eq!(b["message"], b["error"]);
    // Nothing was created.
    assert!(ids(s.get("/api/asks").await.expect(200)).is_empty());
    s.stop().await;
}

#[tokio::test]
async fn create_ask_reports_a_resolution_failure_for_truncated_raw_text() {
    let s = TestServer::start().await;
    let truncated = &common::RELEASE_SCOPE[..200];
    let r = s.create("survey", None, &json!(truncated)).await;
    let b = r.expect(422);
    assert_eq!(b["code"], "SURVEY_BAD_SPEC");
    let error = b["error"].as_str().unwrap();
    assert!(
        error.starts_with("invalid survey argument: "),
        "error: {error}"
    );
    assert!(error.contains("failed to parse as JSON"), "{error}");
    assert!(error.contains("SMALLER"), "{error}");
    assert_eq!(r.error_codes(), ["args_unparseable"]);
    assert_eq!(b["errors"][0]["path"], "");

    // The whole raw text parses: lenient resolution accepts it.
    let r = s
        .create("survey", None, &json!(common::RELEASE_SCOPE))
        .await;
    r.expect(201);

    // `survey` as a non-object.
    let r = s.create("survey", None, &json!({"survey": [1, 2]})).await;
    r.expect(422);
    assert_eq!(r.error_codes(), ["survey_not_object"]);
    assert_eq!(r.body["errors"][0]["path"], "survey");
    s.stop().await;
}

#[tokio::test]
async fn create_ask_rejects_an_unknown_kind_and_missing_members() {
    let s = TestServer::start().await;
    let r = s.create("drift-ish", None, &release_scope()).await;
    let b = r.expect(422);
    assert_eq!(b["code"], "unknown-kind");
    assert_eq!(b["error"], "unknown-kind");

    let r = s.post("/api/asks", &json!({"kind": "survey"})).await;
    r.expect(422);
    assert_eq!(r.error_codes(), ["args_missing"]);
    assert_eq!(r.body["errors"][0]["path"], "args");
    assert!(
        r.body["error"]
            .as_str()
            .unwrap()
            .contains("args is required")
    );

    let r = s.post("/api/asks", &json!({"args": release_scope()})).await;
    r.expect(422);
    assert_eq!(r.error_codes(), ["kind_missing"]);

    let r = s
        .post("/api/asks", &json!({"kind": 3, "args": release_scope()}))
        .await;
    r.expect(422);
    assert_eq!(r.body["errors"][0]["path"], "kind");
    s.stop().await;
}

/// `surface` on a questions submit (`clients.md` §3): recorded in the result and the record,
/// `page` when absent; an unknown surface is a 422 naming the field and the choices, and
/// settles nothing.
#[tokio::test]
async fn elicitation_questions_result_carries_the_surface() {
    let s = TestServer::start().await;
    let args = json!({"questions": [{"id": "db", "question": "Which database?",
        "options": [{"label": "SQLite"}, {"label": "PostgreSQL"}]}]});
    let id = s.create("questions", None, &args).await.expect(201)["ask_id"]
        .as_str()
        .unwrap()
        .to_string();
    let answer = json!([{"id": "db", "selected": ["SQLite"]}]);
    let r = s
        .action(
            &id,
            "submit",
            &json!({"answers": answer, "surface": "chat"}),
        )
        .await;
    let b = r.expect(422);
    assert_eq!(b["code"], "invalid-answers");
    assert_eq!(b["errors"][0]["path"], "surface", "{b}");
    assert!(
        b["errors"][0]["message"]
            .as_str()
            .unwrap()
            .contains("page, terminal, client-form"),
        "{b}"
    );
    assert_eq!(s.ask(&id).await["state"], "pending");
    let r = s
        .action(
            &id,
            "submit",
            &json!({"answers": answer, "surface": "client-form"}),
        )
        .await;
    assert_eq!(r.expect(200)["result"]["surface"], "client-form");
    let recs = s.get("/api/records?kind=questions").await;
    let recs = recs.expect(200)["records"].as_array().unwrap().clone();
    assert_eq!(recs[0]["record"]["surface"], "client-form", "{recs:?}");

    // Absent: the page.
    let other = json!({"questions": [{"id": "n", "question": "What name?"}]});
    let id = s.create("questions", None, &other).await.expect(201)["ask_id"]
        .as_str()
        .unwrap()
        .to_string();
    let r = s
        .action(
            &id,
            "submit",
            &json!({"answers": [{"id": "n", "selected": [], "custom": "askd"}]}),
        )
        .await;
    assert_eq!(r.expect(200)["result"]["surface"], "page");
    s.stop().await;
}

#[tokio::test]
async fn questions_asks_are_created_answered_and_recorded() {
    let s = TestServer::start().await;
    let args = json!({"questions": [
        {"id": "db", "question": "Which database?", "options": [
            {"label": "SQLite (Recommended)", "description": "embedded"},
            {"label": "PostgreSQL"}
        ]},
        {"id": "name", "question": "What name?"}
    ]});
    let r = s.create("questions", None, &args).await;
    let id = r.expect(201)["ask_id"].as_str().unwrap().to_string();
    assert_eq!(r.body["kind"], "questions");
    // Identical payload re-attaches.
    let again = s.create("questions", None, &args).await;
    assert_eq!(again.expect(200)["ask_id"], id.as_str());

    let view = s.ask(&id).await;
    assert_eq!(view["kind"], "questions");
    assert_eq!(view["preflightOpen"], false);
    assert!(view["rendered"]["questions"]["db"]["question"].is_string());

    // Invalid questions are a 422 with errors.
    let r = s.create("questions", None, &json!({"questions": []})).await;
    r.expect(422);
    assert_eq!(r.body["code"], "QUESTIONS_BAD_SPEC");
    assert!(!r.error_codes().is_empty());

    // Survey-only actions are refused on a questions ask.
    let r = s
        .action(
            &id,
            "bank",
            &json!({"answers": [{"id": "db", "selected": []}]}),
        )
        .await;
    assert_eq!(r.expect(422)["code"], "unsupported-action");

    let r = s
        .action(
            &id,
            "submit",
            &json!({"answers": [{"id": "db", "selected": ["SQLite (Recommended)"]}]}),
        )
        .await;
    let b = r.expect(200);
    assert_eq!(b["outcome"], "answered");
    assert_eq!(b["answers"][0]["selected"][0], "SQLite (Recommended)");
    assert_eq!(b["skipped"], json!(["name"]));

    let recs = s.get("/api/records?kind=questions").await;
    let recs = recs.expect(200)["records"].as_array().unwrap().clone();
    assert_eq!(recs.len(), 1);
    assert_eq!(recs[0]["record"]["outcome"], "answered");
    s.stop().await;
}

#[tokio::test]
async fn list_asks_filters_by_state_session_and_kind() {
    let s = TestServer::start().await;
    let one = s.session("agent", None).await;
    let two = s.session("agent", None).await;
    let a = s.survey(Some(&one)).await;
    let b = s.survey(Some(&two)).await;
    let q = s
        .create(
            "questions",
            Some(&one),
            &json!({"questions": [{"id": "x", "question": "Why?"}]}),
        )
        .await
        .expect(201)["ask_id"]
        .as_str()
        .unwrap()
        .to_string();
    s.action(&b, "cancel", &json!({})).await.expect(200);

    let all = s.get("/api/asks").await;
    let mut got = ids(all.expect(200));
    got.sort();
    let mut want = vec![a.clone(), b.clone(), q.clone()];
    want.sort();
    assert_eq!(got, want);
    let first = &all.body["asks"][0];
    assert!(first["url"].as_str().unwrap().contains("/a/"), "{first}");

    let pending = ids(s.get("/api/asks?state=pending").await.expect(200));
    assert_eq!(pending.len(), 2);
    assert!(!pending.contains(&b));
    assert_eq!(
        ids(s.get("/api/asks?state=settled").await.expect(200)),
        vec![b.clone()]
    );
    assert_eq!(ids(s.get("/api/asks?state=all").await.expect(200)).len(), 3);
    let mut by_session = ids(s.get(&format!("/api/asks?session={one}")).await.expect(200));
    by_session.sort();
    let mut want = vec![a.clone(), q.clone()];
    want.sort();
    assert_eq!(by_session, want);
    assert_eq!(
        ids(s.get("/api/asks?kind=questions").await.expect(200)),
        vec![q.clone()]
    );
    assert_eq!(
        ids(s
            .get(&format!(
                "/api/asks?kind=survey&state=pending&session={one}"
            ))
            .await
            .expect(200)),
        vec![a.clone()]
    );
    assert_eq!(ids(s.get("/api/asks?limit=1").await.expect(200)).len(), 1);

    let bad = s.get("/api/asks?state=open").await;
    bad.expect(422);
    assert_eq!(bad.error_codes(), ["state_unknown"]);
    assert_eq!(bad.body["errors"][0]["path"], "state");
    s.stop().await;
}

#[tokio::test]
async fn malformed_query_parameters_and_ids_get_json_errors() {
    let s = TestServer::start().await;
    let id = s.survey(None).await;
    for path in [
        "/api/asks?limit=abc".to_string(),
        format!("/api/asks/{id}/wait?timeout_s=abc"),
        "/api/events?since=x".to_string(),
        "/api/records?limit=-1".to_string(),
    ] {
        let r = s.get(&path).await;
        let b = r.expect(422);
        assert_eq!(b["ok"], false, "{path}");
        assert_eq!(r.error_codes(), ["query_invalid"], "{path}");
        assert!(
            r.header("content-type")
                .unwrap()
                .starts_with("application/json")
        );
    }
    let r = s.get("/api/asks/%FF").await;
    assert_eq!(r.expect(404)["error"], "not-found");
    let r = s.post("/api/asks/%FF/cancel", &json!({})).await;
    assert_eq!(r.expect(404)["error"], "not-found");
    s.stop().await;
}

#[tokio::test]
async fn create_ask_with_replaces_supersedes_and_seeds_the_banked_work() {
    let s = TestServer::start().await;
    let session = s.session("agent", None).await;
    let old = s.survey(Some(&session)).await;
    s.action(
        &old,
        "bank",
        &json!({"answers": [{"id": "scope", "selected": ["a"]}]}),
    )
    .await
    .expect(200);
    s.put(
        &format!("/api/asks/{old}/draft"),
        &json!({"v": 1, "position": "api", "answers": {"api": {"selected": [], "custom": "draft"}}}),
    )
    .await
    .expect(200);
    // Same fingerprint (entry and prompts), a changed title: seeded.
    let mut body = json!({"kind": "survey", "session": session, "args": release_scope_titled("Release scope v2"), "replaces": old});
    let r = s.post("/api/asks", &body).await;
    let new = r.expect(201)["ask_id"].as_str().unwrap().to_string();
    let v = s.ask(&old).await;
    assert_eq!(v["outcome"], "superseded");
    let instruction = v["result"]["instruction"].as_str().unwrap();
    assert!(instruction.contains("superseded"), "{instruction}");
    let n = s.ask(&new).await;
    assert_eq!(n["banked"][0]["id"], "scope");
    assert_eq!(n["autosave"]["answers"]["api"]["custom"], "draft");
    assert_eq!(n["preflightOpen"], false);
    // The superseded ask has its record.
    let recs = s.get("/api/records?outcome=superseded").await;
    assert_eq!(recs.expect(200)["records"][0]["ask_id"], old.as_str());
    // `replaces` inside the arguments works too; a foreign or unknown ask is refused.
    let other = s.session("agent", None).await;
    body["session"] = json!(other);
    body["replaces"] = json!(new);
    let r = s.post("/api/asks", &body).await;
    assert_eq!(r.expect(422)["code"], "replaces-foreign");
    body["replaces"] = json!("0193a6f2-0000-7000-8000-000000000000");
    s.post("/api/asks", &body).await.expect(404);
    let mut args = release_scope_titled("Release scope v3");
    args["replaces"] = json!(new);
    let r = s.create("survey", Some(&session), &args).await;
    r.expect(201);
    assert_eq!(s.ask(&new).await["outcome"], "superseded");
    s.stop().await;
}

#[tokio::test]
async fn show_ask_returns_the_ui_state_and_404_for_an_unknown_ask() {
    let s = TestServer::start().await;
    let session = s.session("agent", Some("/abs/ws")).await;
    let id = s.survey(Some(&session)).await;
    let r = s.get(&ask_path(&id)).await;
    let v = r.expect(200).clone();
    assert!(
        r.header("content-type")
            .unwrap()
            .starts_with("application/json")
    );
    assert_eq!(r.header("cache-control"), Some("no-store"));
    assert_eq!(v["ask_id"], id.as_str());
    assert_eq!(v["kind"], "survey");
    assert_eq!(v["session"], session.as_str());
    assert_eq!(v["workspace"], "/abs/ws");
    assert_eq!(v["state"], "pending");
    assert_eq!(v["title"], "Release scope");
    assert!(v["createdAt"].as_str().unwrap().ends_with('Z'));
    assert_eq!(v["spec"]["entry"], "scope");
    assert_eq!(v["spec"]["questions"]["ship"]["multiSelect"], true);
    assert_eq!(v["banked"], json!([]));
    assert_eq!(v["autosave"], Value::Null);
    assert_eq!(v["autosaveRevision"], 0);
    assert_eq!(v["preflightOpen"], true);
    let rendered = &v["rendered"];
    assert!(rendered["intro"].as_str().unwrap().contains("<p>"));
    assert!(
        rendered["questions"]["scope"]["options"]["a"]["insight"]
            .as_str()
            .unwrap()
            .contains("<strong>Promise</strong>")
    );
    assert!(v.get("result").is_none());

    let missing = s
        .get(&ask_path("0193a6f2-0000-7000-8000-000000000000"))
        .await;
    let b = missing.expect(404);
    assert_eq!(b["ok"], false);
    assert_eq!(b["error"], "not-found");

    // Settled: the outcome and the result are part of the state.
    s.action(&id, "cancel", &json!({})).await.expect(200);
    let v = s.ask(&id).await;
    assert_eq!(v["state"], "settled");
    assert_eq!(v["outcome"], "cancelled");
    assert_eq!(v["preflightOpen"], false);
    assert_eq!(v["result"]["error"]["code"], "SURVEY_CANCELLED");
    s.stop().await;
}

// ---------------------------------------------------------------------------------------------
// Bank, autosave, submit, cancel, pre-flight, withdraw
// ---------------------------------------------------------------------------------------------

#[tokio::test]
async fn bank_commits_locks_and_counts_answers() {
    let s = TestServer::start().await;
    let id = s.survey(None).await;
    let scope =
        json!({"answers": [{"id": "scope", "selected": ["a"], "justifications": {"a": "why"}}]});
    let r = s.action(&id, "bank", &scope).await;
    assert_eq!(r.expect(200), &json!({"ok": true, "banked": 1}));

    // Identical re-bank (order of keys, justification changes ignored): a no-op.
    let same =
        json!({"answers": [{"id": "scope", "selected": ["a"], "justifications": {"a": "other"}}]});
    assert_eq!(
        s.action(&id, "bank", &same).await.expect(200),
        &json!({"ok": true, "banked": 1})
    );

    // A changed re-bank is refused and changes nothing.
    let changed = json!({"answers": [{"id": "scope", "selected": ["b"]}]});
    let r = s.action(&id, "bank", &changed).await;
    r.expect(422);
    assert_eq!(r.error_codes(), ["banked_conflict"]);
    assert!(r.body["error"].as_str().unwrap().contains("banked"));

    // Off the path: `core` is reached only through scope=b.
    let off = json!({"answers": [{"id": "core", "selected": [], "custom": "parser"}]});
    let r = s.action(&id, "bank", &off).await;
    r.expect(422);
    assert_eq!(r.error_codes(), ["off_path"]);

    // Empty and hollow banks.
    let r = s.action(&id, "bank", &json!({"answers": []})).await;
    r.expect(422);
    assert_eq!(r.error_codes(), ["bank_empty"]);
    let r = s
        .action(
            &id,
            "bank",
            &json!({"answers": [{"id": "api", "selected": []}]}),
        )
        .await;
    r.expect(422);
    assert_eq!(r.error_codes(), ["bank_hollow"]);

    // A second question on the path.
    let api = json!({"answers": [{"id": "api", "selected": [], "custom": "REST endpoints first"}]});
    assert_eq!(s.action(&id, "bank", &api).await.expect(200)["banked"], 2);

    let v = s.ask(&id).await;
    let banked = v["banked"].as_array().unwrap();
    assert_eq!(banked.len(), 2);
    assert_eq!(banked[0]["id"], "scope");
    assert_eq!(banked[0]["selected"], json!(["a"]));
    assert_eq!(banked[0]["justifications"]["a"], "why");
    assert!(banked[0]["bankedAt"].as_str().unwrap().ends_with('Z'));
    assert_eq!(banked[1]["custom"], "REST endpoints first");
    assert_eq!(v["preflightOpen"], false);

    let r = s
        .action("0193a6f2-0000-7000-8000-000000000000", "bank", &scope)
        .await;
    r.expect(404);

    s.action(&id, "submit", &full_answers()).await.expect(200);
    let r = s.action(&id, "bank", &api).await;
    assert_eq!(r.expect(409)["error"], "not-pending");
    s.stop().await;
}

#[tokio::test]
async fn autosave_sanitises_counts_revisions_and_refuses_non_objects() {
    let s = TestServer::start().await;
    let id = s.survey(None).await;
    s.action(
        &id,
        "bank",
        &json!({"answers": [{"id": "scope", "selected": ["a"]}]}),
    )
    .await
    .expect(200);
    let draft = json!({
        "v": 1,
        "position": "api",
        "quickMode": false,
        "unknownMember": true,
        "answers": {
            "scope": {"selected": ["b"]},
            "api": {"selected": [], "custom": "draft text", "skipped": false},
            "ship": {"selected": ["a", "zz"], "justifications": {"a": "needed", "b": "unselected"}},
            "nope": {"selected": ["a"]}
        }
    });
    let path = format!("/api/asks/{id}/draft");
    let r = s.put(&path, &draft).await;
    let b = r.expect(200).clone();
    assert_eq!(b["ok"], true);
    assert_eq!(b["revision"], 1);
    assert!(b["savedAt"].as_str().unwrap().ends_with('Z'));
    // The route's own name since issue 31; `…/draft` stays as its alias: one autosave.
    let r2 = s.put(&format!("/api/asks/{id}/autosave"), &draft).await;
    assert_eq!(r2.expect(200)["revision"], 2);

    let v = s.ask(&id).await;
    assert_eq!(v["autosaveRevision"], 2);
    let a = &v["autosave"];
    assert_eq!(a["position"], "api");
    assert!(a.get("unknownMember").is_none(), "{a}");
    let answers = a["answers"].as_object().unwrap();
    assert!(!answers.contains_key("scope"), "the bank wins: {a}");
    assert!(!answers.contains_key("nope"), "{a}");
    assert_eq!(answers["api"]["custom"], "draft text");
    assert_eq!(answers["ship"]["selected"], json!(["a"]));
    let just = answers["ship"]["justifications"].as_object().unwrap();
    assert!(just.contains_key("a") && !just.contains_key("b"), "{a}");

    for bad in [json!([1, 2]), json!("text"), json!(null)] {
        let r = s.put(&path, &bad).await;
        assert_eq!(r.expect(422)["error"], "invalid-autosave", "{bad}");
    }
    s.put(
        "/api/asks/0193a6f2-0000-7000-8000-000000000000/draft",
        &draft,
    )
    .await
    .expect(404);

    s.action(&id, "cancel", &json!({})).await.expect(200);
    assert_eq!(
        s.put(&path, &draft).await.expect(409)["error"],
        "not-pending"
    );
    s.stop().await;
}

#[tokio::test]
async fn submit_settles_with_answers_path_and_skipped() {
    let s = TestServer::start().await;
    let id = s.survey(None).await;
    s.action(
        &id,
        "bank",
        &json!({"answers": [{"id": "scope", "selected": ["a"], "justifications": {"a": "partners are blocked"}}]}),
    )
    .await
    .expect(200);
    let r = s.action(&id, "submit", &full_answers()).await;
    let b = r.expect(200).clone();
    assert_eq!(b["ok"], true);
    assert_eq!(b["outcome"], "answered");
    assert_eq!(b["path"], json!(["scope", "api", "ship"]));
    assert_eq!(b["skipped"], json!([]));
    assert_eq!(
        b["answers"][0]["selected"],
        json!([{"key": "a", "label": "Ship the public API"}])
    );
    assert_eq!(
        b["answers"][0]["justifications"]["a"],
        "partners are blocked"
    );
    assert_eq!(b["answers"][1]["custom"], "REST endpoints first");
    assert_eq!(b["answers"][2]["selected"][1]["label"], "Migration guide");
    assert_eq!(b["result"]["ask_id"], id.as_str());
    assert!(
        b["result"]["handling"]
            .as_str()
            .unwrap()
            .contains("mirroring")
    );

    let v = s.ask(&id).await;
    assert_eq!(v["state"], "settled");
    assert_eq!(v["outcome"], "answered");
    assert_eq!(v["result"], b["result"]);

    // A skippable question may be skipped: path scope=c → ship.
    let id2 = s.survey_with(None, &release_scope_titled("Two")).await;
    let r = s
        .action(
            &id2,
            "submit",
            &json!({"answers": [{"id": "scope", "selected": ["c"]}, {"id": "ship", "selected": [], "skipped": true}]}),
        )
        .await;
    let b = r.expect(200);
    assert_eq!(b["path"], json!(["scope", "ship"]));
    assert_eq!(b["skipped"], json!(["ship"]));
    s.stop().await;
}

#[tokio::test]
async fn submit_rejects_bad_answers_with_every_error_and_leaves_the_ask_pending() {
    let s = TestServer::start().await;
    let id = s.survey(None).await;

    let r = s.action(&id, "submit", &json!({"answers": []})).await;
    r.expect(422);
    assert_eq!(r.error_codes(), ["no_substance"]);
    assert!(
        r.body["error"]
            .as_str()
            .unwrap()
            .contains("carries no selections")
    );
    assert_eq!(r.body["errors"][0]["path"], "answers");

    let r = s
        .action(
            &id,
            "submit",
            &json!({"answers": [{"id": "scope", "selected": ["a"]}, {"id": "core", "selected": [], "custom": "x"}]}),
        )
        .await;
    r.expect(422);
    assert_eq!(r.error_codes(), ["off_path"]);
    assert_eq!(r.body["errors"][0]["path"], "answers[1]");

    let r = s
        .action(
            &id,
            "submit",
            &json!({"answers": [{"id": "scope", "selected": ["a", "zz", "yy"]}]}),
        )
        .await;
    r.expect(422);
    let codes = r.error_codes();
    assert_eq!(
        codes
            .iter()
            .filter(|c| *c == "selected_unknown_key")
            .count(),
        2,
        "{codes:?}"
    );
    assert_eq!(r.body["errors"][0]["path"], "answers[0].selected[1]");
    let messages: Vec<&str> = r.body["errors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["message"].as_str().unwrap())
        .collect();
    assert_eq!(r.body["error"], messages.join("; "));

    let r = s.action(&id, "submit", &json!({"answers": "all"})).await;
    r.expect(422);
    assert_eq!(r.error_codes(), ["answers_type"]);

    // The bank lock holds on submit.
    s.action(
        &id,
        "bank",
        &json!({"answers": [{"id": "scope", "selected": ["a"]}]}),
    )
    .await
    .expect(200);
    let r = s
        .action(
            &id,
            "submit",
            &json!({"answers": [{"id": "scope", "selected": ["e"]}, {"id": "ship", "selected": ["a"]}]}),
        )
        .await;
    r.expect(422);
    assert!(
        r.error_codes().contains(&"banked_conflict".to_string()),
        "{:?}",
        r.error_codes()
    );

    // A non-object body.
    let r = s.action(&id, "submit", &json!([1])).await;
    assert_eq!(r.expect(422)["error"], "invalid-action");

    assert_eq!(s.ask(&id).await["state"], "pending");
    s.stop().await;
}

#[tokio::test]
async fn submit_on_an_unknown_ask_is_404_and_a_second_submit_is_409() {
    let s = TestServer::start().await;
    let r = s
        .action(
            "0193a6f2-0000-7000-8000-000000000000",
            "submit",
            &full_answers(),
        )
        .await;
    assert_eq!(r.expect(404)["error"], "not-found");
    let id = s.survey(None).await;
    let first = s.action(&id, "submit", &full_answers()).await;
    first.expect(200);
    let second = s.action(&id, "submit", &full_answers()).await;
    let b = second.expect(409);
    assert_eq!(b["error"], "not-pending");
    // The stored result is the first one's.
    assert_eq!(s.ask(&id).await["result"], first.body["result"]);
    s.stop().await;
}

/// Issue 32: a submit whose commit's outcome was unknown (503 `outcome-unknown`) is repeated
/// with its `Idempotency-Key`; the repeat of the submit that did settle the ask gets the
/// saved result. Only that very submit: another key, another body or no key is a 409.
#[tokio::test]
async fn a_submit_repeated_with_its_idempotency_key_gets_the_saved_result() {
    let s = TestServer::start().await;
    let id = s.survey(None).await;
    let path = format!("/api/asks/{id}/submit");
    let keyed = |key: &str, body: &Value| {
        s.req(Method::POST, &path)
            .header("Idempotency-Key", key)
            .json(body)
    };
    let first = s.send(keyed("k-1", &full_answers())).await;
    let saved = first.expect(200)["result"].clone();
    let again = s.send(keyed("k-1", &full_answers())).await;
    assert_eq!(
        again.expect(200)["result"],
        saved,
        "the same submit again: the saved result"
    );
    assert_eq!(again.body["outcome"], "answered");
    let mut other = full_answers();
    other["answers"] = json!([]);
    s.send(keyed("k-1", &other)).await.expect(409);
    s.send(keyed("k-2", &full_answers())).await.expect(409);
    s.action(&id, "submit", &full_answers()).await.expect(409);
    assert_eq!(s.ask(&id).await["result"], saved);
    let records = s.get("/api/records").await;
    let n = records.expect(200)["records"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["askId"] == id.as_str() || r["ask_id"] == id.as_str())
        .count();
    assert_eq!(n, 1, "one record: {}", records.body);
    s.stop().await;
}

#[tokio::test]
async fn cancel_settles_once_and_then_conflicts() {
    let s = TestServer::start().await;
    let id = s.survey(None).await;
    let r = s.action(&id, "cancel", &json!({})).await;
    assert_eq!(r.expect(200), &json!({"ok": true, "outcome": "cancelled"}));
    let r = s.action(&id, "cancel", &json!({})).await;
    assert_eq!(r.expect(409)["error"], "not-pending");
    s.action(&id, "submit", &full_answers()).await.expect(409);
    s.action("0193a6f2-0000-7000-8000-000000000000", "cancel", &json!({}))
        .await
        .expect(404);
    let v = s.ask(&id).await;
    assert_eq!(v["outcome"], "cancelled");
    assert_eq!(v["result"]["outcome"], "cancelled");
    assert_eq!(v["result"]["error"]["code"], "SURVEY_CANCELLED");
    assert_eq!(
        v["result"]["error"]["message"],
        "the user cancelled the survey"
    );
    s.stop().await;
}

#[tokio::test]
async fn preflight_actions_settle_with_their_capitalised_instruction() {
    let s = TestServer::start().await;
    for (action, name) in [
        ("reroll", "Reroll"),
        ("push", "Push"),
        ("discuss", "Discuss"),
    ] {
        let id = s
            .survey_with(None, &release_scope_titled(&format!("Pre-flight {action}")))
            .await;
        let r = s.action(&id, "preflight", &json!({"action": action})).await;
        assert_eq!(r.expect(200), &json!({"ok": true, "outcome": action}));
        let v = s.ask(&id).await;
        assert_eq!(v["outcome"], action);
        let result = &v["result"];
        assert_eq!(result["outcome"], action);
        assert_eq!(result["ask_id"], id.as_str());
        assert_eq!(result["title"], format!("Pre-flight {action}"));
        let instruction = result["instruction"].as_str().unwrap();
        assert!(
            instruction.contains(name),
            "{action}: instruction lacks {name:?}: {instruction}"
        );
        // A settled ask refuses a second pre-flight.
        let r = s.action(&id, "preflight", &json!({"action": action})).await;
        assert_eq!(r.expect(409)["error"], "not-pending");
        // The wait returns the same result.
        let w = s.get(&format!("/api/asks/{id}/wait?timeout_s=1")).await;
        assert_eq!(w.expect(200), result);
    }
    let recs = s.get("/api/records").await;
    let mut outcomes: Vec<String> = recs.expect(200)["records"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["outcome"].as_str().unwrap().to_string())
        .collect();
    outcomes.sort();
    assert_eq!(outcomes, ["discuss", "push", "reroll"]);
    s.stop().await;
}

#[tokio::test]
async fn preflight_refuses_an_unknown_action_and_closes_after_a_bank() {
    let s = TestServer::start().await;
    let id = s.survey(None).await;
    for body in [
        json!({"action": "shuffle"}),
        json!({"action": "Reroll "}),
        json!({}),
        json!({"action": 1}),
    ] {
        let r = s.action(&id, "preflight", &body).await;
        assert_eq!(r.expect(422)["error"], "unknown-action", "{body}");
    }
    s.action(
        "0193a6f2-0000-7000-8000-000000000000",
        "preflight",
        &json!({"action": "reroll"}),
    )
    .await
    .expect(404);
    s.action(
        &id,
        "bank",
        &json!({"answers": [{"id": "scope", "selected": ["d"]}]}),
    )
    .await
    .expect(200);
    let r = s.action(&id, "preflight", &json!({"action": "push"})).await;
    assert_eq!(r.expect(409)["error"], "preflight-closed");
    assert_eq!(s.ask(&id).await["state"], "pending");
    s.stop().await;
}

#[tokio::test]
async fn withdraw_aborts_with_its_reason_and_returns_a_settled_result_unchanged() {
    let s = TestServer::start().await;
    let id = s.survey(None).await;
    let r = s
        .action(&id, "withdraw", &json!({"reason": "the plan changed"}))
        .await;
    let b = r.expect(200).clone();
    assert_eq!(b["ok"], true);
    assert_eq!(b["outcome"], "aborted");
    assert_eq!(b["result"]["error"]["code"], "SURVEY_ABORTED");
    assert_eq!(b["result"]["error"]["reason"], "the plan changed");
    assert_eq!(s.ask(&id).await["outcome"], "aborted");
    // Withdrawing again returns the same result; the human's actions now conflict.
    let again = s.action(&id, "withdraw", &json!({"reason": "again"})).await;
    assert_eq!(again.expect(200)["result"], b["result"]);
    s.action(&id, "submit", &full_answers()).await.expect(409);

    // Withdrawing an answered ask returns the answered result unchanged.
    let id2 = s.survey_with(None, &release_scope_titled("Two")).await;
    let answered = s.action(&id2, "submit", &full_answers()).await;
    answered.expect(200);
    let w = s.action(&id2, "withdraw", &json!({})).await;
    let wb = w.expect(200);
    assert_eq!(wb["outcome"], "answered");
    assert_eq!(wb["result"], answered.body["result"]);
    assert_eq!(s.ask(&id2).await["outcome"], "answered");

    s.action(
        "0193a6f2-0000-7000-8000-000000000000",
        "withdraw",
        &json!({}),
    )
    .await
    .expect(404);
    let r = s.action(&id2, "withdraw", &json!({"reason": 5})).await;
    r.expect(422);
    s.stop().await;
}

#[tokio::test]
async fn awaited_flag_is_stored_and_validated() {
    let s = TestServer::start().await;
    let id = s.survey(None).await;
    assert_eq!(s.ask(&id).await["awaited"], true);
    let r = s.action(&id, "awaited", &json!({"awaited": false})).await;
    assert_eq!(r.expect(200), &json!({"ok": true, "awaited": false}));
    assert_eq!(s.ask(&id).await["awaited"], false);
    // The list shows it too.
    let list = s.get("/api/asks").await;
    assert_eq!(list.expect(200)["asks"][0]["awaited"], false);
    let r = s.action(&id, "awaited", &json!({"awaited": "no"})).await;
    r.expect(422);
    assert_eq!(r.error_codes(), ["awaited_type"]);
    s.action(
        "0193a6f2-0000-7000-8000-000000000000",
        "awaited",
        &json!({"awaited": true}),
    )
    .await
    .expect(404);
    s.stop().await;
}

// ---------------------------------------------------------------------------------------------
// Waiting
// ---------------------------------------------------------------------------------------------

#[tokio::test]
async fn wait_returns_the_pending_handle_when_the_budget_runs_out_then_the_stored_result() {
    let s = TestServer::start().await;
    let id = s.survey(None).await;
    let started = Instant::now();
    let r = s.get(&format!("/api/asks/{id}/wait?timeout_s=0.3")).await;
    let h = r.expect(200).clone();
    assert!(started.elapsed() >= Duration::from_millis(250));
    assert_eq!(h["outcome"], "pending");
    assert_eq!(h["ask_id"], id.as_str());
    assert_eq!(h["url"], format!("{}/a/{id}", s.url));
    assert_eq!(h["title"], "Release scope");
    let instruction = h["instruction"].as_str().unwrap();
    assert!(instruction.contains("await_answer"), "{instruction}");
    assert!(instruction.contains("Do not answer on the user's behalf"));
    // timeout_s=0 returns at once.
    let r = s.get(&format!("/api/asks/{id}/wait?timeout_s=0")).await;
    assert_eq!(r.expect(200)["outcome"], "pending");
    // A bad timeout is refused.
    s.get(&format!("/api/asks/{id}/wait?timeout_s=-1"))
        .await
        .expect(422);
    s.get("/api/asks/0193a6f2-0000-7000-8000-000000000000/wait?timeout_s=0")
        .await
        .expect(404);

    let answered = s.action(&id, "submit", &full_answers()).await;
    answered.expect(200);
    for _ in 0..3 {
        let r = s.get(&format!("/api/asks/{id}/wait?timeout_s=5")).await;
        assert_eq!(r.expect(200), &answered.body["result"]);
    }
    // Without a budget a settled ask returns at once, too.
    let r = s.get(&format!("/api/asks/{id}/wait")).await;
    assert_eq!(r.expect(200), &answered.body["result"]);
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_blocked_waiter_returns_promptly_when_another_task_submits() {
    let s = Arc::new(TestServer::start().await);
    let id = s.survey(None).await;
    let waiter = {
        let s = s.clone();
        let id = id.clone();
        tokio::spawn(async move {
            let started = Instant::now();
            let r = s.get(&format!("/api/asks/{id}/wait?timeout_s=30")).await;
            (r, started.elapsed())
        })
    };
    // The waiter is registered before the submit (health counts it).
    let deadline = Instant::now() + 10 * SEC;
    loop {
        let h = s.get("/api/health").await;
        if h.expect(200)["waiting"] == 1 {
            break;
        }
        assert!(Instant::now() < deadline, "the waiter never registered");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(!waiter.is_finished(), "the waiter returned early");
    let submitted = Instant::now();
    let answered = s.action(&id, "submit", &full_answers()).await;
    answered.expect(200);
    let (r, waited) = tokio::time::timeout(10 * SEC, waiter)
        .await
        .expect("the waiter returns")
        .unwrap();
    assert_eq!(r.expect(200), &answered.body["result"]);
    assert_eq!(r.body["outcome"], "answered");
    assert!(waited < 10 * SEC, "waited {waited:?}");
    assert!(
        submitted.elapsed() < 5 * SEC,
        "returned {:?} after the submit",
        submitted.elapsed()
    );
    // Once the wait is over, nobody is counted as waiting.
    assert_eq!(s.get("/api/health").await.expect(200)["waiting"], 0);
    Arc::into_inner(s).unwrap().stop().await;
}

#[tokio::test]
async fn health_stops_counting_a_waiter_whose_budget_ran_out() {
    let s = TestServer::start().await;
    let id = s.survey(None).await;
    let r = s.get(&format!("/api/asks/{id}/wait?timeout_s=0.1")).await;
    assert_eq!(r.expect(200)["outcome"], "pending");
    let h = s.get("/api/health").await;
    assert_eq!(h.expect(200)["waiting"], 0, "{}", h.text);
    s.stop().await;
}

// ---------------------------------------------------------------------------------------------
// Settle once
// ---------------------------------------------------------------------------------------------

async fn race(s: &Arc<TestServer>, id: &str, left: &str, right: &str) -> (u16, u16) {
    let barrier = Arc::new(Barrier::new(2));
    let spawn = |action: &str| {
        let s = s.clone();
        let id = id.to_string();
        let barrier = barrier.clone();
        let action = action.to_string();
        tokio::spawn(async move {
            let body = if action == "submit" {
                full_answers()
            } else {
                json!({})
            };
            let rb = s
                .req(Method::POST, &format!("/api/asks/{id}/{action}"))
                .json(&body);
            barrier.wait().await;
            s.send(rb).await.status.as_u16()
        })
    };
    let a = spawn(left);
    let b = spawn(right);
    (a.await.unwrap(), b.await.unwrap())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_submits_settle_exactly_once() {
    let s = Arc::new(TestServer::start().await);
    for round in 0..10 {
        let id = s
            .survey_with(None, &release_scope_titled(&format!("Round {round}")))
            .await;
        let (a, b) = race(&s, &id, "submit", "submit").await;
        let mut got = [a, b];
        got.sort();
        assert_eq!(got, [200, 409], "round {round}");
        let recs = s.get("/api/records").await;
        let n = recs.expect(200)["records"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|r| r["ask_id"] == id.as_str())
            .count();
        assert_eq!(n, 1, "round {round}: one record per settle");
    }
    Arc::into_inner(s).unwrap().stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_submit_racing_a_cancel_settles_exactly_once() {
    let s = Arc::new(TestServer::start().await);
    for round in 0..10 {
        let id = s
            .survey_with(None, &release_scope_titled(&format!("Round {round}")))
            .await;
        let (submit, cancel) = race(&s, &id, "submit", "cancel").await;
        let mut got = [submit, cancel];
        got.sort();
        assert_eq!(got, [200, 409], "round {round}");
        let v = s.ask(&id).await;
        let want = if submit == 200 {
            "answered"
        } else {
            "cancelled"
        };
        assert_eq!(v["outcome"], want, "round {round}");
        // Exactly one settle event for the ask.
        let settled = s.get("/api/records").await.body["records"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|r| r["ask_id"] == id.as_str())
            .count();
        assert_eq!(settled, 1);
    }
    Arc::into_inner(s).unwrap().stop().await;
}

// ---------------------------------------------------------------------------------------------
// Records and health
// ---------------------------------------------------------------------------------------------

#[tokio::test]
async fn records_hold_one_full_record_per_settle() {
    let s = TestServer::start().await;
    let session = s.session("claude-code", Some("/abs/workspace")).await;
    let answered = s.survey(Some(&session)).await;
    s.action(
        &answered,
        "bank",
        &json!({"answers": [{"id": "scope", "selected": ["a"], "justifications": {"a": "partners are blocked"}}]}),
    )
    .await
    .expect(200);
    s.action(&answered, "submit", &full_answers())
        .await
        .expect(200);

    let cancelled = s
        .survey_with(Some(&session), &release_scope_titled("Cancelled one"))
        .await;
    s.put(
        &format!("/api/asks/{cancelled}/draft"),
        &json!({"v": 1, "position": "scope", "answers": {"scope": {"selected": ["b"]}}}),
    )
    .await
    .expect(200);
    s.action(&cancelled, "cancel", &json!({})).await.expect(200);
    let aborted = s
        .survey_with(Some(&session), &release_scope_titled("Aborted one"))
        .await;
    s.action(&aborted, "withdraw", &json!({"reason": "obsolete"}))
        .await
        .expect(200);
    let _still_pending = s
        .survey_with(Some(&session), &release_scope_titled("Pending one"))
        .await;

    let recs = s.get("/api/records").await;
    let list = recs.expect(200)["records"].as_array().unwrap().clone();
    assert_eq!(list.len(), 3, "one record per settle: {list:?}");
    let find = |id: &str| {
        list.iter()
            .find(|r| r["ask_id"] == id)
            .unwrap_or_else(|| panic!("no record for {id}"))
            .clone()
    };

    let r = find(&answered);
    assert_eq!(r["outcome"], "answered");
    assert_eq!(r["kind"], "survey");
    let rec = &r["record"];
    assert_eq!(rec["v"], 1);
    assert_eq!(rec["surveyId"], answered.as_str());
    assert_eq!(rec["session"], session.as_str());
    assert_eq!(rec["workspace"], "/abs/workspace");
    assert_eq!(rec["client"], "claude-code");
    assert_eq!(rec["outcome"], "answered");
    assert_eq!(rec["title"], "Release scope");
    for ts in ["createdAt", "settledAt"] {
        let t = rec[ts].as_str().unwrap();
        assert!(t.ends_with('Z') && t.contains('T'), "{ts}: {t}");
    }
    assert!(rec["createdAt"].as_str() <= rec["settledAt"].as_str());
    assert_eq!(rec["spec"]["entry"], "scope");
    assert_eq!(rec["banked"][0]["id"], "scope");
    assert_eq!(
        rec["banked"][0]["justifications"]["a"],
        "partners are blocked"
    );
    assert!(rec["banked"][0]["bankedAt"].is_string());
    assert_eq!(rec["banked"].as_array().unwrap().len(), 1);
    assert_eq!(rec["answers"][0]["selected"], json!(["a"]));
    assert_eq!(rec["answers"][1]["custom"], "REST endpoints first");
    assert_eq!(rec["path"], json!(["scope", "api", "ship"]));
    assert_eq!(rec["skipped"], json!([]));
    assert!(rec.get("autosave").is_none());

    let r = find(&cancelled);
    let rec = &r["record"];
    assert_eq!(rec["outcome"], "cancelled");
    assert_eq!(
        rec["autosave"]["answers"]["scope"]["selected"],
        json!(["b"])
    );
    assert!(rec.get("banked").is_none(), "nothing was banked: {rec}");
    for member in ["answers", "path", "skipped"] {
        assert!(rec.get(member).is_none(), "{member} on a cancelled record");
    }

    let r = find(&aborted);
    let rec = &r["record"];
    assert_eq!(rec["outcome"], "aborted");
    assert_eq!(rec["autosave"], Value::Null);
    assert_eq!(rec["title"], "Aborted one");

    // Filters.
    let only = s.get("/api/records?outcome=cancelled").await;
    assert_eq!(only.expect(200)["records"].as_array().unwrap().len(), 1);
    let limited = s.get("/api/records?limit=2").await;
    assert_eq!(limited.expect(200)["records"].as_array().unwrap().len(), 2);
    let other = s.get("/api/records?session=nobody").await;
    assert!(other.expect(200)["records"].as_array().unwrap().is_empty());
    s.stop().await;
}

#[tokio::test]
async fn health_reports_the_running_daemon() {
    let s = TestServer::start().await;
    s.survey(None).await;
    let h = s.get("/api/health").await;
    let b = h.expect(200);
    assert_eq!(b["ok"], true);
    assert_eq!(b["version"], env!("CARGO_PKG_VERSION"));
    assert_eq!(b["pid"], std::process::id());
    assert_eq!(b["url"], s.url.as_str());
    assert_eq!(b["pending"], 1);
    assert_eq!(b["waiting"], 0);
    assert!(b["uptime_s"].is_u64());
    s.stop().await;
}

#[tokio::test]
async fn unknown_routes_are_json_404_and_wrong_methods_are_405() {
    let s = TestServer::start().await;
    for path in ["/api/nope", "/nope", "/api/asks/x/explode"] {
        let r = s.get(path).await;
        let b = r.expect(404);
        assert_eq!(b["ok"], false, "{path}");
        assert_eq!(b["error"], "not-found", "{path}");
        assert!(
            r.header("content-type")
                .unwrap()
                .starts_with("application/json")
        );
    }
    let id = s.survey(None).await;
    for (method, path) in [
        (Method::DELETE, "/api/asks".to_string()),
        (Method::GET, format!("/api/asks/{id}/submit")),
        (Method::POST, format!("/api/asks/{id}")),
        (Method::POST, format!("/api/asks/{id}/draft")),
        (Method::POST, "/api/health".to_string()),
        (Method::PUT, "/api/events".to_string()),
    ] {
        let r = s.send(s.req(method.clone(), &path).json(&json!({}))).await;
        let b = r.expect(405);
        assert_eq!(b["ok"], false, "{method} {path}: {}", r.text);
        assert_eq!(b["error"], "method-not-allowed", "{method} {path}");
    }
    s.stop().await;
}

// ---------------------------------------------------------------------------------------------
// Events
// ---------------------------------------------------------------------------------------------

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn events_stream_live_frames_and_replay_after_last_event_id() {
    let s = TestServer::start().await;
    let mut live = s.events(s.req(Method::GET, "/api/events")).await;

    let id = s.survey(None).await;
    s.action(
        &id,
        "bank",
        &json!({"answers": [{"id": "scope", "selected": ["a"]}]}),
    )
    .await
    .expect(200);
    s.put(
        &format!("/api/asks/{id}/draft"),
        &json!({"v": 1, "position": "api", "answers": {"api": {"selected": [], "custom": "x"}}}),
    )
    .await
    .expect(200);
    s.action(&id, "submit", &full_answers()).await.expect(200);

    let frames = live.take(4, 10 * SEC).await;
    let kinds: Vec<&str> = frames.iter().map(|f| f.event.as_deref().unwrap()).collect();
    assert_eq!(
        kinds,
        ["ask.created", "ask.banked", "ask.autosaved", "ask.settled"]
    );
    let seqs: Vec<i64> = frames.iter().map(|f| f.id.unwrap()).collect();
    assert!(seqs.windows(2).all(|w| w[0] < w[1]), "{seqs:?}");
    for f in &frames {
        assert_eq!(f.data["ask_id"], id.as_str(), "{f:?}");
    }
    assert_eq!(frames[0].data["kind"], "survey");
    assert_eq!(frames[0].data["title"], "Release scope");
    assert!(frames[0].data["createdAt"].is_string());
    assert_eq!(frames[1].data["banked"][0]["id"], "scope");
    assert_eq!(frames[2].data["revision"], 1);
    assert!(frames[2].data["savedAt"].is_string());
    assert_eq!(frames[3].data["outcome"], "answered");
    assert_eq!(frames[3].data["path"], json!(["scope", "api", "ship"]));
    assert!(frames[3].data["answers"].is_array());
    drop(live);

    // Reconnect after the first frame: exactly the frames after it, then nothing.
    let mut again = s
        .events(
            s.req(Method::GET, "/api/events")
                .header("last-event-id", seqs[0].to_string()),
        )
        .await;
    let replay = again.take(3, 10 * SEC).await;
    let replayed: Vec<i64> = replay.iter().map(|f| f.id.unwrap()).collect();
    assert_eq!(replayed, seqs[1..]);
    assert_eq!(replay[2].data, frames[3].data);
    assert!(again.next(Duration::from_millis(300)).await.is_none());
    drop(again);

    // `?since=0` replays everything.
    let mut all = s.events(s.req(Method::GET, "/api/events?since=0")).await;
    let everything = all.take(4, 10 * SEC).await;
    assert_eq!(
        everything.iter().map(|f| f.id.unwrap()).collect::<Vec<_>>(),
        seqs
    );
    assert!(all.next(Duration::from_millis(300)).await.is_none());
    // A replaying stream goes on live.
    let id2 = s.survey_with(None, &release_scope_titled("Live")).await;
    let f = all.next(10 * SEC).await.expect("a live frame after replay");
    assert_eq!(f.event.as_deref(), Some("ask.created"));
    assert_eq!(f.data["ask_id"], id2.as_str());
    assert!(f.id.unwrap() > seqs[3]);
    drop(all);

    // A fresh stream without Last-Event-ID starts at the present.
    let mut fresh = s.events(s.req(Method::GET, "/api/events")).await;
    assert!(fresh.next(Duration::from_millis(300)).await.is_none());
    s.action(&id2, "cancel", &json!({})).await.expect(200);
    let f = fresh.next(10 * SEC).await.unwrap();
    assert_eq!(f.event.as_deref(), Some("ask.settled"));
    assert_eq!(f.data["outcome"], "cancelled");
    drop(fresh);
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn events_stream_misses_nothing_under_concurrent_writes() {
    let s = Arc::new(TestServer::start().await);
    let mut asks = Vec::new();
    for i in 0..8 {
        asks.push(
            s.survey_with(None, &release_scope_titled(&format!("Ask {i}")))
                .await,
        );
    }
    let mut live = s.events(s.req(Method::GET, "/api/events")).await;
    // Make sure the stream is attached before writing: one marker write.
    s.put(&format!("/api/asks/{}/draft", asks[0]), &json!({"v": 1}))
        .await
        .expect(200);
    let first = live.next(10 * SEC).await.expect("marker frame");
    let first_seq = first.id.unwrap();

    const PER_ASK: usize = 12;
    let mut tasks = Vec::new();
    for id in &asks {
        let s = s.clone();
        let id = id.clone();
        tasks.push(tokio::spawn(async move {
            for _ in 0..PER_ASK {
                s.put(&format!("/api/asks/{id}/draft"), &json!({"v": 1}))
                    .await
                    .expect(200);
            }
        }));
    }
    for t in tasks {
        t.await.unwrap();
    }
    let total = asks.len() * PER_ASK;
    let frames = live.take(total, 10 * SEC).await;
    let seqs: Vec<i64> = frames.iter().map(|f| f.id.unwrap()).collect();
    let want: Vec<i64> = (first_seq + 1..=first_seq + total as i64).collect();
    assert_eq!(seqs, want, "every event exactly once, in order");
    drop(live);
    Arc::into_inner(s).unwrap().stop().await;
}

/// A linear survey of `n` free-text questions, `q00 → q01 → …`.
fn linear_survey(n: usize) -> Value {
    let mut questions = serde_json::Map::new();
    for i in 0..n {
        let mut q = json!({"prompt": format!("Step {i}")});
        if i + 1 < n {
            q["next"] = json!(format!("q{:02}", i + 1));
        }
        questions.insert(format!("q{i:02}"), q);
    }
    json!({"survey": {"title": "Long walk", "entry": "q00", "questions": questions}})
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn events_stream_catches_up_from_the_store_after_falling_behind() {
    // Thousands of commits: keep the database in memory where the system allows it.
    let s = Arc::new(TestServer::start_in_memory().await);
    let id = s.survey_with(None, &linear_survey(80)).await;
    // A listener that does not read: the socket buffers fill, then the live channel lags.
    let mut slow = s.events(s.req(Method::GET, "/api/events")).await;
    // Every `ask.banked` frame lists every banked entry: ~20 MB of frames in all.
    let text = "x".repeat(7000);
    for i in 0..80 {
        s.action(
            &id,
            "bank",
            &json!({"answers": [{"id": format!("q{i:02}"), "selected": [], "custom": text}]}),
        )
        .await
        .expect(200);
    }
    // Then many more events than the live channel holds (on a small ask: quick to load).
    let small = s.survey(None).await;
    let mut writers = Vec::new();
    for _ in 0..4 {
        let s = s.clone();
        let small = small.clone();
        writers.push(tokio::spawn(async move {
            for _ in 0..500 {
                s.put(&format!("/api/asks/{small}/draft"), &json!({"v": 1}))
                    .await
                    .expect(200);
            }
        }));
    }
    for w in writers {
        w.await.unwrap();
    }
    let frames = slow.take(2081, 10 * SEC).await;
    let seqs: Vec<i64> = frames.iter().map(|f| f.id.unwrap()).collect();
    let first = seqs[0];
    let want: Vec<i64> = (first..first + 2081).collect();
    assert_eq!(seqs.len(), want.len());
    let missing: Vec<&i64> = want.iter().filter(|w| !seqs.contains(w)).collect();
    assert!(missing.is_empty(), "{} events never arrived", missing.len());
    assert_eq!(seqs, want, "every event exactly once, in order");
    assert_eq!(frames[79].data["banked"].as_array().unwrap().len(), 80);
    drop(slow);
    Arc::into_inner(s).unwrap().stop().await;
}

// ---------------------------------------------------------------------------------------------
// The security fence
// ---------------------------------------------------------------------------------------------

/// An API route, the UI page and an unknown route.
const FENCED: &[&str] = &["/api/health", "/", "/not-a-route"];

#[tokio::test]
async fn a_host_outside_the_allow_list_gets_403_on_every_route() {
    let s = TestServer::start().await;
    for path in FENCED {
        for host in [
            format!("evil.example:{}", s.port),
            "evil.example".to_string(),
            format!("127.0.0.1.evil.example:{}", s.port),
        ] {
            let r = s
                .send(s.req(Method::GET, path).header(HOST, host.clone()))
                .await;
            let b = r.expect(403);
            assert_eq!(b["error"], "forbidden", "{path} {host}");
        }
        // Loopback names are allowed.
        for host in [s.host(), format!("localhost:{}", s.port), "[::1]".into()] {
            let r = s.send(s.req(Method::GET, path).header(HOST, host)).await;
            assert_ne!(r.status.as_u16(), 403, "{path}: {}", r.text);
        }
    }
    s.stop().await;
}

#[tokio::test]
async fn a_missing_host_header_gets_403() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let s = TestServer::start().await;
    let mut stream = tokio::net::TcpStream::connect(("127.0.0.1", s.port))
        .await
        .unwrap();
    let request = format!(
        "GET /api/health HTTP/1.0\r\nAuthorization: Bearer {}\r\n\r\n",
        s.token
    );
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut answer = Vec::new();
    stream.read_to_end(&mut answer).await.unwrap();
    let answer = String::from_utf8_lossy(&answer);
    assert!(
        answer.starts_with("HTTP/1.0 403") || answer.starts_with("HTTP/1.1 403"),
        "{answer}"
    );
    drop(stream);
    s.stop().await;
}

#[tokio::test]
async fn a_foreign_or_null_origin_gets_403_and_the_own_origin_passes() {
    let s = TestServer::start().await;
    let own = format!("http://{}", s.host());
    for path in FENCED {
        for origin in [
            "https://evil.example".to_string(),
            "null".to_string(),
            format!("http://evil.example:{}", s.port),
            format!("https://{}", s.host()),
            format!("http://127.0.0.1:{}", s.port ^ 1),
        ] {
            let r = s
                .send(s.req(Method::GET, path).header(ORIGIN, origin.clone()))
                .await;
            let b = r.expect(403);
            assert_eq!(b["error"], "forbidden", "{path} {origin}");
        }
        let r = s
            .send(s.req(Method::GET, path).header(ORIGIN, own.clone()))
            .await;
        assert_ne!(r.status.as_u16(), 403, "{path}: {}", r.text);
        assert_ne!(r.status.as_u16(), 401, "{path}: {}", r.text);
    }
    // A state-changing request from the own origin works.
    let r = s
        .send(
            s.req(Method::POST, "/api/asks")
                .header(ORIGIN, own)
                .json(&json!({"kind": "survey", "args": release_scope()})),
        )
        .await;
    r.expect(201);
    s.stop().await;
}

#[tokio::test]
async fn a_missing_or_wrong_token_gets_401_on_every_route() {
    let s = TestServer::start().await;
    let wrong = "0".repeat(64);
    for path in FENCED {
        let r = s.send(s.bare(Method::GET, path)).await;
        assert_eq!(r.expect(401)["error"], "unauthorized", "{path}");
        for auth in [
            format!("Bearer {wrong}"),
            format!("Bearer {}", &s.token[..63]),
            format!("Bearer {}x", s.token),
            format!("Basic {}", s.token),
            s.token.clone(),
        ] {
            let r = s
                .send(
                    s.bare(Method::GET, path)
                        .header(AUTHORIZATION, auth.clone()),
                )
                .await;
            r.expect(401);
        }
        let r = s
            .send(
                s.bare(Method::GET, path)
                    .header(COOKIE, format!("askd_token={wrong}")),
            )
            .await;
        r.expect(401);
        // The token in another cookie's name does not count.
        let r = s
            .send(
                s.bare(Method::GET, path)
                    .header(COOKIE, format!("other={}", s.token)),
            )
            .await;
        r.expect(401);
        // The right cookie passes (among others).
        let r = s
            .send(
                s.bare(Method::GET, path)
                    .header(COOKIE, format!("theme=dark; askd_token={}", s.token)),
            )
            .await;
        assert!(
            ![401u16, 403].contains(&r.status.as_u16()),
            "{path}: {} {}",
            r.status,
            r.text
        );
        // Bearer scheme is case-insensitive.
        let r = s
            .send(
                s.bare(Method::GET, path)
                    .header(AUTHORIZATION, format!("bearer {}", s.token)),
            )
            .await;
        assert!(![401u16, 403].contains(&r.status.as_u16()), "{path}");
    }
    // The token in the query string does not authorise the API.
    let r = s
        .send(s.bare(Method::GET, &format!("/api/health?token={}", s.token)))
        .await;
    r.expect(401);
    s.stop().await;
}

#[tokio::test]
async fn the_tokenised_url_sets_the_cookie_and_redirects_to_a_clean_url() {
    let s = TestServer::start().await;
    let r = s
        .send(s.bare(Method::GET, &format!("/?token={}", s.token)))
        .await;
    r.expect(303);
    assert_eq!(r.header("location"), Some("/"));
    let cookie = r.header("set-cookie").expect("a cookie").to_string();
    assert!(
        cookie.starts_with(&format!("askd_token={};", s.token)),
        "{cookie}"
    );
    assert!(cookie.contains("HttpOnly"), "{cookie}");
    assert!(cookie.contains("SameSite=Strict"), "{cookie}");
    // The cookie then opens the UI and the API.
    let value = cookie.split(';').next().unwrap().to_string();
    let page = s
        .send(s.bare(Method::GET, "/").header(COOKIE, value.clone()))
        .await;
    page.expect(200);
    assert!(
        page.header("content-type")
            .unwrap()
            .starts_with("text/html")
    );
    let api = s
        .send(s.bare(Method::GET, "/api/health").header(COOKIE, value))
        .await;
    api.expect(200);

    // Other query members survive; an ask page keeps its path.
    let r = s
        .send(s.bare(
            Method::GET,
            &format!("/a/some-ask?lang=en&token={}&x=1", s.token),
        ))
        .await;
    r.expect(303);
    assert_eq!(r.header("location"), Some("/a/some-ask?lang=en&x=1"));

    // Even with a valid cookie already set, a tokenised URL is cleaned.
    let r = s
        .send(
            s.bare(Method::GET, &format!("/?token={}", s.token))
                .header(COOKIE, format!("askd_token={}", s.token)),
        )
        .await;
    r.expect(303);
    assert_eq!(r.header("location"), Some("/"));

    // A wrong token in the URL gets 401, and no cookie.
    let r = s.send(s.bare(Method::GET, "/?token=nope")).await;
    r.expect(401);
    assert!(r.header("set-cookie").is_none());
    s.stop().await;
}

#[tokio::test]
async fn the_fence_runs_before_method_and_body_checks() {
    let s = TestServer::start().await;
    let id = s.survey(None).await;
    let submit = format!("/api/asks/{id}/submit");
    let evil = format!("evil.example:{}", s.port);
    // Wrong Host with a wrong method: 403, not 405.
    let r = s
        .send(
            s.req(Method::DELETE, "/api/health")
                .header(HOST, evil.clone()),
        )
        .await;
    r.expect(403);
    // Wrong Host with a text body on a mutation: 403, not 415.
    let r = s
        .send(
            s.req(Method::POST, &submit)
                .header(HOST, evil.clone())
                .header(CONTENT_TYPE, "text/plain")
                .body("hello"),
        )
        .await;
    r.expect(403);
    // Foreign Origin with an oversized body: 403, not 413.
    let big = "x".repeat(common::MAX_BODY + 10);
    let r = s
        .send(
            s.req(Method::POST, &submit)
                .header(ORIGIN, "https://evil.example")
                .header(CONTENT_TYPE, "application/json")
                .body(big),
        )
        .await;
    r.expect(403);
    // No token with a text body: 401, not 415.
    let r = s
        .send(
            s.bare(Method::POST, &submit)
                .header(CONTENT_TYPE, "text/plain")
                .body("hello"),
        )
        .await;
    r.expect(401);
    // No token with a wrong method: 401, not 405.
    let r = s.send(s.bare(Method::DELETE, "/api/asks")).await;
    r.expect(401);
    // No token with invalid JSON: 401, not 400.
    let r = s
        .send(
            s.bare(Method::POST, &submit)
                .header(CONTENT_TYPE, "application/json")
                .body("{"),
        )
        .await;
    r.expect(401);
    // No token on an unknown ask: 401, not 404.
    let r = s
        .send(s.bare(
            Method::GET,
            "/api/asks/0193a6f2-0000-7000-8000-000000000000",
        ))
        .await;
    r.expect(401);
    // The ask is untouched.
    assert_eq!(s.ask(&id).await["state"], "pending");
    s.stop().await;
}

#[tokio::test]
async fn mutations_need_a_json_content_type() {
    let s = TestServer::start().await;
    let id = s.survey(None).await;
    let body = serde_json::to_string(&full_answers()).unwrap();
    for ct in [
        Some("text/plain"),
        Some("application/x-www-form-urlencoded"),
        Some("multipart/form-data; boundary=x"),
        Some("text/json"),
        None,
    ] {
        let mut rb = s
            .req(Method::POST, &format!("/api/asks/{id}/submit"))
            .body(body.clone());
        if let Some(ct) = ct {
            rb = rb.header(CONTENT_TYPE, ct);
        }
        let r = s.send(rb).await;
        assert_eq!(r.expect(415)["error"], "json-required", "{ct:?}");
    }
    let r = s
        .send(
            s.req(Method::PUT, &format!("/api/asks/{id}/draft"))
                .header(CONTENT_TYPE, "text/plain")
                .body("{}"),
        )
        .await;
    r.expect(415);
    // Case-insensitive, parameters allowed.
    let r = s
        .send(
            s.req(Method::POST, &format!("/api/asks/{id}/submit"))
                .header(CONTENT_TYPE, "Application/JSON; charset=utf-8")
                .body(body),
        )
        .await;
    r.expect(200);
    s.stop().await;
}

#[tokio::test]
async fn oversized_bodies_get_413() {
    let s = TestServer::start().await;
    let id = s.survey(None).await;
    // Declared length over the limit.
    let mut draft = json!({"v": 1, "answers": {}, "pad": ""});
    draft["pad"] = json!("x".repeat(common::MAX_BODY));
    let r = s.put(&format!("/api/asks/{id}/draft"), &draft).await;
    assert_eq!(r.expect(413)["error"], "body-too-large");
    // A streamed body with no declared length.
    let chunks: Vec<Result<Vec<u8>, std::io::Error>> = (0..20)
        .map(|_| Ok(vec![b' '; common::MAX_BODY / 16]))
        .collect();
    let r = s
        .send(
            s.req(Method::POST, &format!("/api/asks/{id}/submit"))
                .header(CONTENT_TYPE, "application/json")
                .body(reqwest::Body::wrap_stream(futures_util::stream::iter(
                    chunks,
                ))),
        )
        .await;
    assert_eq!(r.expect(413)["error"], "body-too-large");
    // A create over the limit.
    let mut args = release_scope();
    args["survey"]["pad"] = json!("y".repeat(common::MAX_BODY + 1));
    let r = s.create("survey", None, &args).await;
    r.expect(413);
    // Just under the limit is fine (unknown members are dropped).
    let mut draft = json!({"v": 1, "answers": {}, "pad": ""});
    draft["pad"] = json!("x".repeat(common::MAX_BODY - 100));
    let r = s.put(&format!("/api/asks/{id}/draft"), &draft).await;
    r.expect(200);
    assert_eq!(s.ask(&id).await["state"], "pending");
    s.stop().await;
}

#[tokio::test]
async fn invalid_json_gets_400_with_the_parser_message() {
    let s = TestServer::start().await;
    let id = s.survey(None).await;
    for (path, method) in [
        (format!("/api/asks/{id}/submit"), Method::POST),
        (format!("/api/asks/{id}/draft"), Method::PUT),
        ("/api/asks".to_string(), Method::POST),
        ("/api/sessions".to_string(), Method::POST),
    ] {
        let r = s
            .send(
                s.req(method.clone(), &path)
                    .header(CONTENT_TYPE, "application/json")
                    .body("{\"answers\": [1, 2,"),
            )
            .await;
        let b = r.expect(400);
        assert_eq!(b["ok"], false);
        assert_eq!(b["code"], "invalid-json");
        let message = b["message"].as_str().unwrap();
        assert!(
            message.starts_with("the body is not valid JSON: "),
            "{message}"
        );
        assert!(
            message.contains("line 1"),
            "the parser's position: {message}"
        );
    }
    let r = s
        .send(
            s.req(Method::POST, &format!("/api/asks/{id}/cancel"))
                .header(CONTENT_TYPE, "application/json")
                .body(vec![0xff, 0xfe]),
        )
        .await;
    r.expect(400);
    let r = s
        .send(
            s.req(Method::POST, &format!("/api/asks/{id}/cancel"))
                .header(CONTENT_TYPE, "application/json")
                .body(""),
        )
        .await;
    r.expect(400);
    assert_eq!(s.ask(&id).await["state"], "pending");
    s.stop().await;
}

fn assert_security_headers(r: &Resp, what: &str) {
    let csp = r
        .header("content-security-policy")
        .unwrap_or_else(|| panic!("{what}: no CSP"));
    assert!(csp.contains("default-src 'none'"), "{what}: {csp}");
    assert!(csp.contains("script-src 'self'"), "{what}: {csp}");
    assert!(!csp.contains("unsafe-inline"), "{what}: {csp}");
    assert_eq!(
        r.header("x-content-type-options"),
        Some("nosniff"),
        "{what}"
    );
    assert_eq!(r.header("referrer-policy"), Some("no-referrer"), "{what}");
    for (name, _) in r.headers.iter() {
        assert!(
            !name.as_str().starts_with("access-control-"),
            "{what}: CORS header {name}"
        );
    }
    if r.header("content-type")
        .is_some_and(|c| c.starts_with("application/json"))
    {
        assert_eq!(r.header("cache-control"), Some("no-store"), "{what}");
    }
}

#[tokio::test]
async fn every_response_carries_the_security_headers_and_no_cors() {
    let s = TestServer::start().await;
    let id = s.survey(None).await;
    let evil = format!("evil.example:{}", s.port);
    let cases: Vec<(&str, reqwest::RequestBuilder)> = vec![
        ("200 api", s.req(Method::GET, "/api/health")),
        ("200 page", s.req(Method::GET, "/")),
        ("200 ask page", s.req(Method::GET, &format!("/a/{id}"))),
        ("404", s.req(Method::GET, "/nope")),
        ("405", s.req(Method::DELETE, "/api/health")),
        ("401", s.bare(Method::GET, "/api/health")),
        (
            "403",
            s.req(Method::GET, "/api/health").header(HOST, evil.clone()),
        ),
        ("303", s.bare(Method::GET, &format!("/?token={}", s.token))),
        (
            "422",
            s.req(Method::POST, "/api/asks").json(&json!({"kind": "x"})),
        ),
        (
            "415",
            s.req(Method::POST, &format!("/api/asks/{id}/cancel"))
                .body("{}"),
        ),
        (
            "OPTIONS preflight",
            s.req(Method::OPTIONS, "/api/asks")
                .header(ORIGIN, "https://evil.example")
                .header("access-control-request-method", "POST")
                .header("access-control-request-headers", "authorization"),
        ),
        (
            "OPTIONS own origin",
            s.req(Method::OPTIONS, &format!("/api/asks/{id}/submit"))
                .header(ORIGIN, format!("http://{}", s.host()))
                .header("access-control-request-method", "POST"),
        ),
        (
            "OPTIONS without token",
            s.bare(Method::OPTIONS, "/api/asks")
                .header("access-control-request-method", "POST"),
        ),
        ("events", s.req(Method::GET, "/api/events?since=0")),
    ];
    for (what, rb) in cases {
        let r = rb.send().await.expect("send");
        let status = r.status().as_u16();
        let headers = r.headers().clone();
        let resp = Resp {
            status: r.status(),
            headers,
            text: String::new(),
            body: Value::Null,
        };
        // Do not read the event stream to its (never) end.
        drop(r);
        assert_security_headers(&resp, &format!("{what} ({status})"));
        if what.starts_with("OPTIONS") {
            assert!(
                [401u16, 403, 405].contains(&status),
                "{what}: a preflight is never granted, got {status}"
            );
        }
    }
    s.stop().await;
}

// ---------------------------------------------------------------------------------------------
// Agent text never becomes markup
// ---------------------------------------------------------------------------------------------

/// Tags the rendered HTML may contain (`render.rs`).
const ALLOWED_TAGS: &[&str] = &[
    "p",
    "br",
    "hr",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "strong",
    "em",
    "del",
    "code",
    "pre",
    "blockquote",
    "ul",
    "ol",
    "li",
    "a",
    "table",
    "thead",
    "tbody",
    "tr",
    "th",
    "td",
];

/// Attributes the rendered HTML may carry (`render.rs`; `rel` and `target` are added to links).
const ALLOWED_ATTRIBUTES: &[&str] = &["href", "title", "start", "class", "rel", "target"];

const FORBIDDEN_TAGS: &[&str] = &[
    "<script",
    "<img",
    "<iframe",
    "<object",
    "<embed",
    "<svg",
    "<style",
    "<base",
    "<meta",
    "<link",
    "<form",
    "<math",
    "<input",
    "<button",
    "<textarea",
    "<video",
    "<audio",
    "<source",
    "<body",
    "<html",
    "<details",
    "<div",
    "<span",
];

/// The attributes of one tag's inside (`a href="…" rel="…"`), as (name, value) pairs. The
/// HTML serializer always double-quotes values and escapes `"` inside them.
fn attributes(tag: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let rest = tag.trim_start_matches('/');
    let name_len = rest
        .find(|c: char| c.is_whitespace() || c == '/')
        .unwrap_or(rest.len());
    let mut rest = rest[name_len..].trim_start();
    while !rest.is_empty() && rest != "/" {
        let end = rest
            .find(|c: char| c.is_whitespace() || c == '=')
            .unwrap_or(rest.len());
        let name = rest[..end].to_string();
        rest = rest[end..].trim_start();
        let mut value = String::new();
        if let Some(after) = rest.strip_prefix('=') {
            let after = after.trim_start();
            let after = after
                .strip_prefix('"')
                .unwrap_or_else(|| panic!("unquoted attribute value in <{tag}>"));
            let close = after
                .find('"')
                .unwrap_or_else(|| panic!("unterminated attribute value in <{tag}>"));
            value = after[..close].to_string();
            rest = after[close + 1..].trim_start();
        }
        out.push((name, value));
    }
    out
}

/// Decodes the character references an attribute value may hold.
fn decode(value: &str) -> String {
    value
        .replace("&quot;", "\"")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&#39;", "'")
        .replace("&amp;", "&")
}

/// Checks one sanitised HTML string. Text content is escaped by the renderer (`<` becomes
/// `&lt;`), so every literal `<` starts a real tag: the tag checks run on the whole string,
/// and the scheme and event-handler checks run on the tags' attributes, where markup lives.
/// (Raw HTML in agent text is deliberately *shown* as escaped text, so words such as
/// `javascript:` or `onerror=` may appear in the text, inert.)
fn assert_inert(html: &str, what: &str) {
    let lower = html.to_ascii_lowercase();
    for tag in FORBIDDEN_TAGS {
        assert!(!lower.contains(tag), "{what}: {tag} in {html}");
    }
    let mut rest = lower.as_str();
    while let Some(open) = rest.find('<') {
        let after = &rest[open + 1..];
        let close = after
            .find('>')
            .unwrap_or_else(|| panic!("{what}: unterminated tag in {html}"));
        let tag = &after[..close];
        let name: String = tag
            .trim_start_matches('/')
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric())
            .collect();
        assert!(
            ALLOWED_TAGS.contains(&name.as_str()),
            "{what}: tag <{tag}> in {html}"
        );
        for (attr, value) in attributes(tag) {
            assert!(
                ALLOWED_ATTRIBUTES.contains(&attr.as_str()),
                "{what}: attribute {attr} in <{tag}> of {html}"
            );
            assert!(!attr.starts_with("on"), "{what}: handler in <{tag}>");
            let value = decode(&value);
            let squeezed: String = value
                .chars()
                .filter(|c| !c.is_whitespace() && !c.is_control())
                .collect();
            if attr == "href" {
                assert!(
                    ["http://", "https://", "mailto:"]
                        .iter()
                        .any(|s| squeezed.starts_with(s)),
                    "{what}: href {value:?} in {html}"
                );
            }
            if attr != "title" {
                for scheme in ["javascript:", "vbscript:", "data:"] {
                    assert!(
                        !squeezed.starts_with(scheme),
                        "{what}: {scheme} in <{tag}> of {html}"
                    );
                }
            }
        }
        rest = &after[close + 1..];
    }
}

fn walk_strings<'a>(v: &'a Value, path: String, out: &mut Vec<(String, &'a str)>) {
    match v {
        Value::String(s) => out.push((path, s)),
        Value::Array(a) => {
            for (i, x) in a.iter().enumerate() {
                walk_strings(x, format!("{path}[{i}]"), out);
            }
        }
        Value::Object(o) => {
            for (k, x) in o {
                walk_strings(x, format!("{path}.{k}"), out);
            }
        }
        _ => {}
    }
}

#[test]
fn the_inertness_check_catches_live_markup() {
    let bad = [
        "<p>x</p><script>alert(1)</script>",
        "<a href=\"javascript:alert(1)\">x</a>",
        "<p onclick=\"x\">y</p>",
        "<a href=\"https://x\" onmouseover=\"x\">y</a>",
        "<a href=\"javascript&#58;x\">y</a>",
        "<a href=\"data:text/html,x\">x</a>",
        "<IMG src=x>",
        "<p style=\"x\">y</p>",
        "<a href=\"/relative\">x</a>",
        "<u>x</u>",
    ];
    for html in bad {
        let caught = std::panic::catch_unwind(|| assert_inert(html, "probe")).is_err();
        assert!(caught, "not caught: {html}");
    }
    assert_inert(
        "<p>&lt;a href=&quot;javascript:alert(1)&quot; onclick=x&gt;</p>\n<p><a href=\"https://ok.example\" rel=\"noopener noreferrer nofollow\" target=\"_blank\">ok</a></p>",
        "probe",
    );
}

#[tokio::test]
async fn the_xss_corpus_never_reaches_rendered_html() {
    let corpus: Vec<String> =
        serde_json::from_str(include_str!("../fixtures/xss-corpus.json")).expect("corpus is JSON");
    assert!(corpus.len() >= 20, "corpus too small: {}", corpus.len());
    let s = TestServer::start().await;
    for (n, entry) in corpus.iter().enumerate() {
        let insight: String = entry.chars().take(1500).collect();
        let label: String = entry.chars().take(190).collect();
        let option = |key: &str| json!({"key": key, "label": format!("{key} {label}"), "insight": insight, "description": "plain"});
        let args = json!({"survey": {
            "title": format!("XSS {n}"),
            "intro": entry,
            "entry": "q",
            "questions": {"q": {
                "prompt": entry,
                "detail": entry,
                "header": "h",
                "options": [option("a"), option("b"), option("c"), option("d"), option("e")]
            }},
            "quick": [{"key": "a", "label": "all a", "insight": insight, "answers": {"q": {"selected": ["a"]}}}]
        }});
        let r = s.create("survey", None, &args).await;
        assert_eq!(r.status.as_u16(), 201, "entry {n} {entry:?}: {}", r.text);
        let id = r.body["ask_id"].as_str().unwrap().to_string();
        let view = s.get(&ask_path(&id)).await;
        view.expect(200);
        let ct = view.header("content-type").unwrap();
        assert!(ct.starts_with("application/json"), "{ct}");
        assert_eq!(view.header("x-content-type-options"), Some("nosniff"));
        let mut strings = Vec::new();
        walk_strings(&view.body["rendered"], "rendered".into(), &mut strings);
        // intro, prompt, detail, 5 option insights, 1 quick insight.
        assert_eq!(strings.len(), 9, "entry {n}: {strings:?}");
        for (path, html) in strings {
            assert_inert(html, &format!("entry {n} {entry:?} at {path}"));
        }
        // The raw spec travels only inside JSON, never in the page.
        assert!(view.body["spec"]["questions"]["q"]["prompt"].is_string());
        let page = s.get(&format!("/a/{id}")).await;
        page.expect(200);
        assert!(
            !page.text.contains(&format!("XSS {n}")) && !page.text.contains("alert("),
            "agent text in the page"
        );
        // Records and the list serve the spec as JSON too.
        let list = s.get("/api/asks?limit=1").await;
        assert!(
            list.header("content-type")
                .unwrap()
                .starts_with("application/json")
        );
    }
    s.stop().await;
}

// ---------------------------------------------------------------------------------------------
// Durability
// ---------------------------------------------------------------------------------------------

#[tokio::test]
async fn a_pending_ask_survives_a_restart_with_its_banked_answers_and_autosave() {
    let s = TestServer::start().await;
    let session = s.session("agent", Some("/abs/ws")).await;
    let id = s.survey(Some(&session)).await;
    s.action(
        &id,
        "bank",
        &json!({"answers": [{"id": "scope", "selected": ["a"], "justifications": {"a": "partners are blocked"}}]}),
    )
    .await
    .expect(200);
    s.put(
        &format!("/api/asks/{id}/draft"),
        &json!({"v": 1, "position": "api", "answers": {"api": {"selected": [], "custom": "REST endpoints first"}}}),
    )
    .await
    .expect(200);
    let before = s.ask(&id).await;
    let token = s.token.clone();
    let old_url = s.url.clone();
    let dir = s.stop().await;
    // The first daemon is gone.
    assert!(
        common::client()
            .get(format!("{old_url}/api/health"))
            .send()
            .await
            .is_err()
    );
    assert!(!dir.path().join("daemon.json").exists());

    let s = TestServer::start_in(dir).await;
    assert_eq!(s.token, token, "the token file is reused");
    let after = s.ask(&id).await;
    assert_eq!(after["state"], "pending");
    assert_eq!(after["banked"], before["banked"]);
    assert_eq!(
        after["banked"][0]["justifications"]["a"],
        "partners are blocked"
    );
    assert_eq!(after["autosave"], before["autosave"]);
    assert_eq!(
        after["autosave"]["answers"]["api"]["custom"],
        "REST endpoints first"
    );
    assert_eq!(after["autosaveRevision"], 1);
    assert_eq!(after["preflightOpen"], false);
    assert_eq!(after["session"], session.as_str());
    let pending = s.get("/api/asks?state=pending").await;
    assert_eq!(ids(pending.expect(200)), vec![id.clone()]);
    // The identical spec re-attaches after the restart.
    let again = s.create("survey", Some(&session), &release_scope()).await;
    assert_eq!(again.expect(200)["ask_id"], id.as_str());
    // The lock still holds.
    let r = s
        .action(
            &id,
            "bank",
            &json!({"answers": [{"id": "scope", "selected": ["b"]}]}),
        )
        .await;
    r.expect(422);
    assert_eq!(r.error_codes(), ["banked_conflict"]);

    let done = s.action(&id, "submit", &full_answers()).await;
    done.expect(200);
    let recs = s.get("/api/records").await;
    let list = recs.expect(200)["records"].as_array().unwrap().clone();
    assert_eq!(list.len(), 1);
    let rec = &list[0]["record"];
    assert_eq!(rec["surveyId"], id.as_str());
    assert_eq!(rec["outcome"], "answered");
    assert_eq!(rec["banked"][0]["id"], "scope");
    assert_eq!(rec["path"], json!(["scope", "api", "ship"]));
    // Events replay across the restart.
    let mut ev = s.events(s.req(Method::GET, "/api/events?since=0")).await;
    let frames = ev.take(5, 10 * SEC).await;
    let kinds: Vec<&str> = frames.iter().map(|f| f.event.as_deref().unwrap()).collect();
    assert_eq!(
        kinds,
        [
            "session.started",
            "ask.created",
            "ask.banked",
            "ask.autosaved",
            "ask.settled"
        ]
    );
    drop(ev);
    s.stop().await;
}

// --- Workspace record copies (survey.md §11.3) ------------------------------------------

fn workspace_files(workspace: &std::path::Path) -> Vec<std::path::PathBuf> {
    let dir = workspace.join(".askd").join("surveys");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .map(|rd| rd.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    files.sort();
    files
}

#[tokio::test]
async fn a_settled_survey_is_copied_into_the_workspace() {
    let s = TestServer::start().await;
    let workspace = tempfile::tempdir().unwrap();
    let session = s
        .session("claude-code", Some(workspace.path().to_str().unwrap()))
        .await;
    let id = s.survey(Some(&session)).await;
    s.action(&id, "submit", &full_answers()).await.expect(200);
    let files = workspace_files(workspace.path());
    assert_eq!(files.len(), 1, "{files:?}");
    let name = files[0].file_name().unwrap().to_str().unwrap().to_string();
    let (stamp, rest) = name.split_at(14);
    assert!(
        stamp.len() == 14
            && stamp[..8].bytes().all(|b| b.is_ascii_digit())
            && &stamp[8..9] == "-"
            && stamp[9..13].bytes().all(|b| b.is_ascii_digit()),
        "{name}"
    );
    assert_eq!(rest, format!("release-scope-{}.json", &id[..8]), "{name}");
    let copy: Value = serde_json::from_str(&std::fs::read_to_string(&files[0]).unwrap()).unwrap();
    assert_eq!(copy["workspaceRecord"], true);
    assert_eq!(copy["surveyId"], id.as_str());
    assert_eq!(copy["outcome"], "answered");
    assert_eq!(copy["workspace"], workspace.path().to_str().unwrap());
    assert_eq!(copy["path"], json!(["scope", "api", "ship"]));
    // The copy is the exported record plus the flag.
    let records = s.get("/api/records").await;
    let mut stored = records.expect(200)["records"][0]["record"].clone();
    stored["workspaceRecord"] = json!(true);
    assert_eq!(copy, stored);
    s.stop().await;
}

#[tokio::test]
async fn a_cancelled_survey_is_copied_and_no_workspace_means_no_copy() {
    let s = TestServer::start().await;
    let workspace = tempfile::tempdir().unwrap();
    let session = s
        .session("codex", Some(workspace.path().to_str().unwrap()))
        .await;
    let id = s.survey(Some(&session)).await;
    s.put(
        &format!("/api/asks/{id}/draft"),
        &json!({"v": 1, "position": "scope", "answers": {}}),
    )
    .await
    .expect(200);
    s.action(&id, "cancel", &json!({})).await.expect(200);
    let files = workspace_files(workspace.path());
    assert_eq!(files.len(), 1);
    let copy: Value = serde_json::from_str(&std::fs::read_to_string(&files[0]).unwrap()).unwrap();
    assert_eq!(copy["outcome"], "cancelled");
    assert_eq!(copy["autosave"]["position"], "scope");
    // The built-in http session has no workspace: nothing is written anywhere.
    let other = s.survey(None).await;
    s.action(&other, "submit", &full_answers())
        .await
        .expect(200);
    assert_eq!(workspace_files(workspace.path()).len(), 1);
    s.stop().await;
}

/// A questions ask is listed under its first question (ask_user_question has no title).
#[tokio::test]
async fn a_questions_ask_is_listed_under_its_first_question() {
    let s = TestServer::start().await;
    let long = format!("Which   database\nshould we use {}?", "x".repeat(200));
    let r = s
        .create(
            "questions",
            None,
            &json!({"questions": [
                {"id": "db", "question": long, "options": [{"label": "SQLite"}, {"label": "PostgreSQL"}]},
                {"id": "name", "question": "Project name?"}
            ]}),
        )
        .await;
    let id = r.expect(201)["ask_id"].as_str().unwrap().to_string();
    let list = s.get("/api/asks").await;
    let row = list.expect(200)["asks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["id"] == id.as_str())
        .unwrap()
        .clone();
    let title = row["title"].as_str().unwrap();
    assert!(
        title.starts_with("Which database should we use xxx"),
        "{title}"
    );
    assert_eq!(title.chars().count(), 141, "cut at 140 characters, then …");
    assert!(title.ends_with('…'));
    s.stop().await;
}

/// Issue 32: API JSON of 1 KiB or more is gzipped for a client that accepts gzip, and reads
/// back the same; a client that does not accept it, and the event stream, get it as it is.
#[tokio::test]
async fn api_json_is_gzipped_for_a_client_that_accepts_it_and_the_event_stream_never() {
    use std::io::Read;
    let s = TestServer::start().await;
    for i in 0..12 {
        s.survey_with(None, &release_scope_titled(&format!("Compressed {i}")))
            .await;
    }
    let plain = s.get("/api/asks").await;
    assert_eq!(plain.status, 200);
    assert_eq!(plain.header("content-encoding"), None);
    let r = s
        .req(Method::GET, "/api/asks")
        .header("Accept-Encoding", "gzip")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    assert_eq!(r.headers()["content-encoding"], "gzip");
    assert!(
        r.headers()["vary"]
            .to_str()
            .unwrap()
            .to_ascii_lowercase()
            .contains("accept-encoding")
    );
    let zipped = r.bytes().await.unwrap();
    let mut text = String::new();
    flate2::read::GzDecoder::new(&zipped[..])
        .read_to_string(&mut text)
        .unwrap();
    let body: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(body["asks"].as_array().unwrap().len(), 12);
    assert_eq!(body["asks"], plain.body["asks"]);
    assert!(
        zipped.len() * 3 < text.len(),
        "{} of {}",
        zipped.len(),
        text.len()
    );

    let events = s
        .req(Method::GET, "/api/events")
        .header("Accept-Encoding", "gzip")
        .send()
        .await
        .unwrap();
    assert_eq!(events.status(), 200);
    assert!(events.headers().get("content-encoding").is_none());
    drop(events);
    s.stop().await;
}

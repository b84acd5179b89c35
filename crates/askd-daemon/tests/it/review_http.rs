//! Asks of kind `review` over the daemon's HTTP API (`review.md` §3, §4, §6, §7, §8): create
//! and re-attach, validation with nothing created, drafts, settle once with 409 carrying the
//! actual outcome, cancel and withdraw without verdicts, wait, records, persist, export and
//! import.

use crate::common;

use common::*;
use serde_json::{Value, json};

/// The call of `review.md` §2.4 (without persist).
fn example() -> Value {
    json!({
        "title": "Acceptance: file copy / download buttons",
        "items": [
            { "id": 1, "type": "confirm", "op": "Restart askd and reload the page", "expect": "No white screen", "detail": "See **the log**" },
            { "id": 2, "type": "confirm", "title": "Copy button copies the full path", "group": "Copy" },
            { "id": 3, "type": "confirm", "title": "Download keeps the original file name", "group": "Download" },
            { "id": 4, "type": "bool", "label": "Keep the gateway task resident", "boolDesc": "Accept" },
            { "id": 5, "type": "choice", "label": "Connection mode",
              "options": [ { "v": "A", "t": "Direct 18080" }, { "v": "B", "t": "Via subagent" } ] },
            { "id": 6, "type": "scale", "label": "Overall rating", "min": 1, "max": 5 },
            { "id": 7, "type": "text", "label": "Describe anything that looked off" }
        ]
    })
}

fn answers() -> Value {
    json!({"surface": "panel", "answers": [
        {"id": "1", "verdict": "pass"},
        {"id": "2", "verdict": "fail", "note": "Copies only the file name"},
        {"id": "4", "verdict": "yes"},
        {"id": "5", "selected": ["B"]},
        {"id": "6", "verdict": "4"},
        {"id": "7", "note": "The download icon flickers on hover"}
    ]})
}

async fn create(s: &TestServer, session: Option<&str>, args: &Value) -> String {
    s.create("review", session, args).await.expect(201)["ask_id"]
        .as_str()
        .unwrap()
        .to_string()
}

async fn asks(s: &TestServer) -> Vec<Value> {
    s.get("/api/asks?state=all").await.expect(200)["asks"]
        .as_array()
        .cloned()
        .unwrap()
}

#[tokio::test]
async fn a_review_is_created_viewed_drafted_and_settled_once() {
    let s = TestServer::start().await;
    let r = s.create("review", None, &example()).await;
    let b = r.expect(201);
    assert_eq!(b["kind"], "review");
    let id = b["ask_id"].as_str().unwrap().to_string();

    // An identical call re-attaches.
    let again = s.create("review", None, &example()).await;
    assert_eq!(again.expect(200)["ask_id"], id.as_str());
    assert_eq!(again.body["created"], false);

    let view = s.ask(&id).await;
    assert_eq!(view["kind"], "review");
    assert_eq!(view["title"], "Acceptance: file copy / download buttons");
    assert_eq!(view["spec"]["lang"], "en");
    assert_eq!(
        view["spec"]["items"][0]["title"],
        "Restart askd and reload the page"
    );
    assert_eq!(
        view["rendered"]["items"]["1"]["detail"],
        "<p>See <strong>the log</strong></p>\n"
    );
    assert_eq!(view["review"]["surface"], "panel");
    assert_eq!(view["review"]["virtualThreshold"], 500);
    assert_eq!(view["review"]["maxItems"], 100);
    // Each item's verdicts, served from the core: the panel and the terminal UI offer these.
    assert_eq!(
        view["review"]["verdicts"],
        json!({
            "1": ["pass", "fail", "pending"], "2": ["pass", "fail", "pending"],
            "3": ["pass", "fail", "pending"], "4": ["yes", "no"], "5": ["A", "B"],
            "6": ["1", "2", "3", "4", "5"], "7": []
        })
    );
    assert_eq!(view["preflightOpen"], false);

    // The draft is sanitised and survives a restart.
    let saved = s
        .put(
            &format!("/api/asks/{id}/draft"),
            &json!({"answers": {"1": {"verdict": "Pass", "note": "ok"}, "9": {"verdict": "pass"}, "2": {"verdict": "maybe"}}}),
        )
        .await;
    assert_eq!(saved.expect(200)["revision"], 1);
    let refused = s.put(&format!("/api/asks/{id}/draft"), &json!([1])).await;
    assert_eq!(refused.expect(422)["code"], "invalid-autosave");
    let dir = s.stop().await;
    let s = TestServer::start_in(dir).await;
    let view = s.ask(&id).await;
    assert_eq!(
        view["autosave"],
        json!({"v": 1, "answers": {"1": {"verdict": "pass", "note": "ok"}}})
    );
    assert_eq!(view["state"], "pending");

    // Invalid answers settle nothing.
    let bad = s
        .action(
            &id,
            "submit",
            &json!({"answers": [{"id": "1", "verdict": "ok"}, {"id": "8"}]}),
        )
        .await;
    bad.expect(422);
    assert_eq!(bad.error_codes(), ["invalid_verdict", "unknown_item"]);
    assert_eq!(s.ask(&id).await["state"], "pending");

    let done = s.action(&id, "submit", &answers()).await;
    let result = done.expect(200)["result"].clone();
    assert_eq!(result["outcome"], "answered");
    assert_eq!(result["surface"], "panel");
    assert_eq!(result["cancelled"], false);
    assert_eq!(result["items"][2]["filled"], false);
    assert_eq!(
        result["summary"],
        json!({"total": 7, "filled": 6, "unfilled": 1, "pass": 1, "fail": 1, "pending": 0, "yes": 1, "no": 0})
    );
    assert!(result["report_text"].as_str().unwrap().contains(
        "Unfilled (1) — not a pass, follow up\n- [3] Download keeps the original file name"
    ));
    assert!(result.get("persisted").is_none());

    // Settle once: later submits, cancels and imports get 409 with the actual outcome.
    for (action, body) in [
        ("submit", answers()),
        ("cancel", json!({})),
        (
            "import",
            json!({"format": "csv", "content": "id,verdict,note\n"}),
        ),
    ] {
        let late = s.action(&id, action, &body).await;
        let b = late.expect(409);
        assert_eq!(b["code"], "not-pending", "{action}");
        assert_eq!(b["outcome"], "answered");
        assert_eq!(b["surface"], "panel");
        assert!(b["settledAt"].is_string());
    }
    // wait and records return the stored result.
    let waited = s.get(&format!("/api/asks/{id}/wait")).await;
    assert_eq!(waited.expect(200), &result);
    let records = s.get("/api/records?kind=review").await;
    let rec = &records.expect(200)["records"][0];
    assert_eq!(rec["kind"], "review");
    assert_eq!(rec["record"]["result"], result);
    assert_eq!(
        rec["record"]["spec"]["title"],
        "Acceptance: file copy / download buttons"
    );
}

#[tokio::test]
async fn an_invalid_review_creates_nothing() {
    let s = TestServer::start().await;
    let r = s
        .create(
            "review",
            None,
            &json!({"title": "T", "items": [
                {"id": 3, "title": "a"}, {"id": "3", "title": "b"},
                {"title": "c", "options": [{"v": "A", "t": "a"}, {"v": "B", "t": "b"}]},
                {"title": "d"}, {"type": "scale", "title": "e", "min": 5, "max": 5}
            ]}),
        )
        .await;
    let b = r.expect(422);
    assert_eq!(b["code"], "invalid-review");
    assert_eq!(
        b["message"],
        "batch_review rejected: 3 problems; nothing was shown to the reviewer."
    );
    assert_eq!(
        r.error_codes(),
        ["duplicate_id", "field_not_for_type", "min_not_below_max"]
    );
    assert_eq!(b["errors"][0]["path"], "items[1].id");
    // Over maxItems: one problem, nothing created.
    let many: Vec<Value> = (0..101)
        .map(|i| json!({"title": format!("item {i}")}))
        .collect();
    let r = s
        .create("review", None, &json!({"title": "T", "items": many}))
        .await;
    r.expect(422);
    assert_eq!(r.error_codes(), ["too_many_items"]);
    assert!(asks(&s).await.is_empty());
}

#[tokio::test]
async fn cancel_and_withdraw_return_no_verdicts() {
    let s = TestServer::start().await;
    let id = create(&s, None, &example()).await;
    s.put(
        &format!("/api/asks/{id}/draft"),
        &json!({"answers": {"1": {"verdict": "pass"}}}),
    )
    .await
    .expect(200);
    let r = s.action(&id, "cancel", &json!({})).await;
    assert_eq!(r.expect(200)["outcome"], "cancelled");
    let result = s.get(&format!("/api/asks/{id}/wait")).await.body;
    assert_eq!(result["outcome"], "cancelled");
    assert_eq!(result["cancelled"], true);
    assert_eq!(result["items"], json!([]));
    assert_eq!(result["summary"]["total"], 7);
    assert_eq!(result["summary"]["filled"], 0);
    assert_eq!(
        result["report_text"],
        "Review: Acceptance: file copy / download buttons\nCancelled — no verdicts for any of the 7 items. Ask again."
    );
    assert!(result.get("error").is_none());

    // Withdraw: aborted, same shape; a second withdraw returns it unchanged.
    let mut other = example();
    other["title"] = json!("Another");
    let id2 = create(&s, None, &other).await;
    let w = s.action(&id2, "withdraw", &json!({"reason": "moot"})).await;
    let res = w.expect(200)["result"].clone();
    assert_eq!(res["outcome"], "aborted");
    assert_eq!(res["cancelled"], true);
    assert_eq!(res["items"], json!([]));
    assert_eq!(res["reason"], "moot");
    let again = s.action(&id2, "withdraw", &json!({})).await;
    assert_eq!(again.expect(200)["result"], res);
}

#[tokio::test]
async fn wait_with_a_budget_returns_the_pending_handle() {
    let s = TestServer::start().await;
    let id = create(&s, None, &example()).await;
    let h = s.get(&format!("/api/asks/{id}/wait?timeout_s=0")).await;
    let b = h.expect(200);
    assert_eq!(b["outcome"], "pending");
    assert_eq!(b["ask_id"], id.as_str());
    assert!(b["url"].as_str().unwrap().ends_with(&format!("/a/{id}")));
    assert!(b["instruction"].as_str().unwrap().contains("await_answer"));
    // A waiter wakes when the review settles.
    let url = format!("{}/api/asks/{id}/wait", s.url);
    let token = s.token.clone();
    let waiter = tokio::spawn(async move {
        client()
            .get(url)
            .bearer_auth(token)
            .send()
            .await
            .unwrap()
            .json::<Value>()
            .await
            .unwrap()
    });
    tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    s.action(&id, "submit", &json!({"answers": []}))
        .await
        .expect(200);
    let got = waiter.await.unwrap();
    assert_eq!(got["outcome"], "answered");
    assert_eq!(got["summary"]["unfilled"], 7);
}

#[tokio::test]
async fn persist_is_confined_to_the_workspace_and_written_at_settlement() {
    let s = TestServer::start().await;
    let ws = tempfile::TempDir::new().unwrap();
    let wsp = ws.path().to_string_lossy().into_owned();
    let session = s.session("test", Some(&wsp)).await;

    let mut args = example();
    args["persist"] = json!("review/acceptance.json");
    let id = create(&s, Some(&session), &args).await;
    let result = s.action(&id, "submit", &answers()).await.expect(200)["result"].clone();
    let canonical = std::fs::canonicalize(ws.path()).unwrap();
    let path = canonical.join("review/acceptance.json");
    assert_eq!(result["persisted"], path.to_string_lossy().as_ref());
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.ends_with("}\n") && !text.contains('\r') && text.contains("\n  \"ask_id\""));
    let file: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(file["title"], "Acceptance: file copy / download buttons");
    assert!(file["settled_at"].as_str().unwrap().ends_with('Z'));
    assert!(file.get("persisted").is_none());
    assert_eq!(file["items"], result["items"]);
    // The stored result carries persisted too.
    assert_eq!(s.get(&format!("/api/asks/{id}/wait")).await.body, result);

    // A .md path receives report_text; cancellation writes too.
    let mut md = example();
    md["persist"] = json!("notes/REVIEW.MD");
    let id = create(&s, Some(&session), &md).await;
    let r = s.action(&id, "cancel", &json!({})).await;
    r.expect(200);
    let body = std::fs::read_to_string(canonical.join("notes/REVIEW.MD")).unwrap();
    assert_eq!(
        body,
        "Review: Acceptance: file copy / download buttons\nCancelled — no verdicts for any of the 7 items. Ask again.\n"
    );

    // Refused at call time: outside, through a symlink, a directory, no workspace.
    let outside = tempfile::TempDir::new().unwrap();
    std::os::unix::fs::symlink(outside.path(), ws.path().join("link")).unwrap();
    std::fs::create_dir_all(ws.path().join("adir")).unwrap();
    for (p, code) in [
        ("../escape.json", "persist_outside_workspace"),
        ("/etc/askd-test.json", "persist_outside_workspace"),
        ("link/x.json", "persist_outside_workspace"),
        ("adir", "persist_invalid"),
        ("a/../../x.json", "persist_invalid"),
    ] {
        let mut a = example();
        a["persist"] = json!(p);
        a["title"] = json!(format!("refused {p}"));
        let r = s.create("review", Some(&session), &a).await;
        r.expect(422);
        assert_eq!(r.error_codes(), [code], "{p}: {}", r.text);
    }
    let mut a = example();
    a["persist"] = json!("x.json");
    let r = s.create("review", None, &a).await;
    r.expect(422);
    assert_eq!(r.error_codes(), ["persist_unavailable"]);
    assert!(
        r.body["errors"][0]["message"]
            .as_str()
            .unwrap()
            .starts_with("persist needs a workspace on the askd host")
    );
}

#[tokio::test]
async fn a_symlink_created_after_the_call_sets_persist_error_and_keeps_the_answers() {
    let s = TestServer::start().await;
    let ws = tempfile::TempDir::new().unwrap();
    let outside = tempfile::TempDir::new().unwrap();
    let session = s.session("test", Some(&ws.path().to_string_lossy())).await;
    let mut args = example();
    args["persist"] = json!("out/result.json");
    let id = create(&s, Some(&session), &args).await;
    std::os::unix::fs::symlink(outside.path(), ws.path().join("out")).unwrap();
    let result = s.action(&id, "submit", &answers()).await.expect(200)["result"].clone();
    assert!(result.get("persisted").is_none());
    let why = result["persist_error"].as_str().unwrap();
    assert!(why.contains("outside the workspace"), "{why}");
    assert_eq!(result["summary"]["filled"], 6);
    assert!(std::fs::read_dir(outside.path()).unwrap().next().is_none());
}

#[tokio::test]
async fn export_and_import_settle_with_surface_import() {
    let s = TestServer::start().await;
    let id = create(&s, None, &example()).await;
    let csv = s.get(&format!("/api/asks/{id}/export?format=csv")).await;
    assert_eq!(csv.status.as_u16(), 200);
    assert_eq!(csv.header("content-type"), Some("text/csv; charset=utf-8"));
    assert_eq!(
        csv.header("content-disposition"),
        Some(format!("attachment; filename=\"{id}.csv\"").as_str())
    );
    assert!(csv.text.starts_with(
        "\u{feff}id,group,header,type,title,op,expect,boolDesc,detail,allowed,verdict,note\r\n"
    ));
    let html = s.get(&format!("/api/asks/{id}/export?format=html")).await;
    assert!(html.text.starts_with("<!doctype html>"));
    // The rendered detail travels inside the inert data block.
    assert!(
        html.text
            .contains("\\u003cp\\u003eSee \\u003cstrong\\u003ethe log")
    );
    let js = s.get(&format!("/api/asks/{id}/export?format=json")).await;
    assert_eq!(js.body["format"], "askd-batch-review");
    assert_eq!(js.body["ask_id"], id.as_str());
    let bad = s.get(&format!("/api/asks/{id}/export?format=pdf")).await;
    bad.expect(422);

    // A sheet with problems: nothing settles.
    let sheet = "id,verdict,note\n1,maybe,\n99,pass,\n";
    let r = s
        .action(&id, "import", &json!({"format": "csv", "content": sheet}))
        .await;
    r.expect(422);
    assert_eq!(r.error_codes(), ["invalid_verdict", "unknown_item"]);
    assert_eq!(r.body["errors"][0]["path"], "rows[2].verdict");
    // A dry run validates and previews.
    let sheet = "id,verdict,note\n1,Pass,\n2,fail,Copies only the file name\n4,yes,\n5,Via subagent,\n6,4,\n7,,The download icon flickers on hover\n";
    let r = s
        .action(
            &id,
            "import",
            &json!({"format": "csv", "content": sheet, "dry_run": true}),
        )
        .await;
    let b = r.expect(200);
    assert_eq!(b["dry_run"], true);
    assert_eq!(
        b["counts"],
        "7 items · 6 filled · 1 unfilled · 1 pass · 1 fail · 0 pending · 1 yes · 0 no"
    );
    assert_eq!(b["missing"], json!(["3"]));
    assert_eq!(s.ask(&id).await["state"], "pending");
    // The real import settles like the panel would, with surface import.
    let r = s
        .action(&id, "import", &json!({"format": "csv", "content": sheet}))
        .await;
    let result = r.expect(200)["result"].clone();
    assert_eq!(result["surface"], "import");
    // The same review answered in the panel gives the same result but for id and surface.
    let twin = create(&s, None, &example()).await;
    let mut panel = s.action(&twin, "submit", &answers()).await.expect(200)["result"].clone();
    panel["ask_id"] = result["ask_id"].clone();
    panel["surface"] = json!("import");
    assert_eq!(result, panel);
    // A settled review exports its record.
    let js = s.get(&format!("/api/asks/{id}/export?format=json")).await;
    assert_eq!(js.body["settled"], true);
    assert_eq!(js.body["items"][1]["verdict"], "fail");
    // Import on a non-review ask.
    let q = s
        .create(
            "questions",
            None,
            &json!({"questions": [{"id": "q", "question": "?"}]}),
        )
        .await;
    let qid = q.expect(201)["ask_id"].as_str().unwrap().to_string();
    let r = s
        .action(&qid, "import", &json!({"format": "csv", "content": ""}))
        .await;
    assert_eq!(r.expect(422)["code"], "not-a-review");
    let r = s
        .action(&id, "import", &json!({"format": "xls", "content": ""}))
        .await;
    r.expect(422);
}

#[tokio::test]
async fn an_offline_review_is_settled_by_import_only() {
    let s = TestServer::start().await;
    let mut args = example();
    args["offline"] = json!(true);
    let id = create(&s, None, &args).await;
    assert_eq!(s.ask(&id).await["review"]["surface"], "import");
    let r = s.action(&id, "submit", &answers()).await;
    assert_eq!(r.expect(422)["code"], "offline-review");
    let js = s
        .get(&format!("/api/asks/{id}/export?format=json"))
        .await
        .body;
    let mut filled = js.clone();
    filled["items"][0]["verdict"] = json!("pass");
    let r = s
        .action(
            &id,
            "import",
            &json!({"format": "json", "content": filled.to_string()}),
        )
        .await;
    let result = r.expect(200)["result"].clone();
    assert_eq!(result["surface"], "import");
    assert_eq!(result["summary"]["filled"], 1);
}

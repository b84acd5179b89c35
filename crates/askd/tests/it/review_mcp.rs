//! End to end: `batch_review` through `askd mcp` (a child process driven by an rmcp client),
//! with the human answering through the daemon's HTTP API (`review.md` §2–§4, §6, §7.1, §9).
//! Every test has its own `ASKD_HOME` (also the adapter's working directory, so the
//! workspace), a daemon on a free port, and kills its daemon at the end.

use crate::common_mcp;

use std::time::Duration;

use common_mcp::*;
use serde_json::{Value, json};

/// A six-item review: three confirm items (one with op + expect), a bool, a choice and a
/// scale.
fn six_items() -> Value {
    json!({
        "title": "Release checklist",
        "items": [
            {"id": "build", "op": "Run cargo build --release", "expect": "No warnings", "group": "Build"},
            {"id": "tests", "title": "All tests pass on CI", "group": "Build"},
            {"id": "docs", "title": "Docs mention the new command", "group": "Docs"},
            {"id": "tag", "type": "bool", "title": "Tag the release today", "boolDesc": "Yes means tag now"},
            {"id": "channel", "type": "choice", "title": "Release channel",
             "options": [{"v": "stable", "t": "Stable"}, {"v": "beta", "t": "Beta"}]},
            {"id": "conf", "type": "scale", "title": "Confidence", "min": 1, "max": 5}
        ]
    })
}

/// The human's answers: docs left blank.
fn six_answers() -> Value {
    json!({"surface": "panel", "answers": [
        {"id": "build", "verdict": "pass"},
        {"id": "tests", "verdict": "fail", "note": "flaky test in store\nneeds a retry"},
        {"id": "tag", "verdict": "yes"},
        {"id": "channel", "selected": ["beta"]},
        {"id": "conf", "verdict": "4", "note": "fine"}
    ]})
}

const SIX_REPORT: &str = "Review: Release checklist
6 items · 5 filled · 1 unfilled · 1 pass · 1 fail · 0 pending · 1 yes · 0 no

Failed (1)
- [tests] All tests pass on CI — note: flaky test in store ⏎ needs a retry

Unfilled (1) — not a pass, follow up
- [docs] Docs mention the new command

Passed (1)
- [build] Run cargo build --release

Yes / No (1)
- [tag] Tag the release today: Yes

Choices (1)
- [channel] Release channel: Beta

Ratings (1)
- [conf] Confidence: 4 (1–5) — note: fine";

fn six_result(ask_id: &str) -> Value {
    json!({
        "ask_id": ask_id,
        "outcome": "answered",
        "cancelled": false,
        "surface": "panel",
        "items": [
            {"id": "build", "title": "Run cargo build --release", "type": "confirm", "verdict": "pass", "verdict_label": "Pass", "note": "", "filled": true},
            {"id": "tests", "title": "All tests pass on CI", "type": "confirm", "verdict": "fail", "verdict_label": "Fail", "note": "flaky test in store\nneeds a retry", "filled": true},
            {"id": "docs", "title": "Docs mention the new command", "type": "confirm", "verdict": "", "verdict_label": "", "note": "", "filled": false},
            {"id": "tag", "title": "Tag the release today", "type": "bool", "verdict": "yes", "verdict_label": "Yes", "note": "", "filled": true},
            {"id": "channel", "title": "Release channel", "type": "choice", "verdict": "beta", "verdict_label": "Beta", "note": "", "filled": true, "selected": ["beta"]},
            {"id": "conf", "title": "Confidence", "type": "scale", "verdict": "4", "verdict_label": "4", "note": "fine", "filled": true}
        ],
        "summary": {"total": 6, "filled": 5, "unfilled": 1, "pass": 1, "fail": 1, "pending": 0, "yes": 1, "no": 0},
        "report_text": SIX_REPORT
    })
}

/// A review result: `structuredContent`, after checking the text blocks are `report_text`
/// followed by the complete JSON.
fn review_result(r: &Value) -> Value {
    assert_ne!(r["isError"], true, "{r}");
    let sc = r["structuredContent"].clone();
    assert!(sc.is_object(), "no structuredContent: {r}");
    assert_eq!(r["content"][0]["text"], sc["report_text"], "report first");
    let copy: Value = serde_json::from_str(r["content"][1]["text"].as_str().unwrap()).unwrap();
    assert_eq!(copy, sc, "the second text block is the complete result");
    sc
}

async fn new_review(home: &Home) -> (Api, String) {
    let api = home.api();
    let ask = api.new_ask(&[]).await;
    assert_eq!(ask["kind"], "review");
    (api, ask["id"].as_str().unwrap().to_string())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn batch_review_is_listed_with_its_schemas_and_guidance() {
    let home = Home::new();
    let a = home.adapter("schema-test", &[]).await;
    let instructions = a
        .service
        .peer_info()
        .and_then(|i| i.instructions.clone())
        .unwrap_or_default();
    // The instructions say when (issue 28 §3: one-tool rules live in the tool's description,
    // where the blank-item rule is checked below).
    assert!(instructions.contains("batch_review for several same-shaped verdicts"));
    let tools = serde_json::to_value(a.service.list_all_tools().await.unwrap()).unwrap();
    let t = tools
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "batch_review")
        .expect("batch_review is listed")
        .clone();
    let d = t["description"].as_str().unwrap();
    for needle in [
        "ask_user_question",
        "ask_survey",
        "filled: false) is NEVER an approval",
        "cancelled: true",
        "await_answer",
        "offline: true",
        "group",
    ] {
        assert!(d.contains(needle), "description lacks {needle:?}");
    }
    let input = &t["inputSchema"];
    assert_eq!(input["required"], json!(["title", "items"]));
    assert_eq!(input["additionalProperties"], false);
    for m in ["title", "items", "lang", "persist", "offline", "timeout_s"] {
        assert!(input["properties"][m].is_object(), "{m}");
    }
    let item = &input["properties"]["items"]["items"];
    for m in [
        "id",
        "type",
        "title",
        "label",
        "group",
        "header",
        "detail",
        "op",
        "expect",
        "boolDesc",
        "options",
        "multiSelect",
        "min",
        "max",
    ] {
        assert!(item["properties"][m].is_object(), "{m}");
    }
    // The result branch; the other admits the error envelope (clients.md §2.2).
    let out = &t["outputSchema"]["anyOf"][0];
    assert_eq!(
        out["properties"]["outcome"]["enum"],
        json!(["answered", "cancelled", "aborted", "expired", "pending"])
    );
    for m in [
        "cancelled",
        "surface",
        "items",
        "summary",
        "report_text",
        "persisted",
        "persist_error",
    ] {
        assert!(out["properties"][m].is_object(), "{m}");
    }
    assert_eq!(
        out["properties"]["items"]["items"]["required"],
        json!([
            "id",
            "title",
            "type",
            "verdict",
            "verdict_label",
            "note",
            "filled"
        ])
    );

    // Chinese instructions say when to use it too.
    let zh = home.adapter("zh", &[("ASKD_LANGUAGE", "zh-CN")]).await;
    let text = zh
        .service
        .peer_info()
        .and_then(|i| i.instructions.clone())
        .unwrap_or_default();
    assert!(
        text.contains("batch_review 用于多个相互独立、形式相同的结论"),
        "{text}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_six_item_review_answered_over_http_returns_the_exact_contract() {
    let home = Home::new();
    let a = home.adapter("claude-code", &[]).await;
    let call = a.start_call("batch_review", six_items()).await;
    let (api, id) = new_review(&home).await;
    let view = api.ask(&id).await;
    assert_eq!(view["workspace"], home.path().to_string_lossy().as_ref());
    assert_eq!(view["review"]["surface"], "panel");
    // The panel autosaves; nothing settles.
    api.call(
        reqwest::Method::PUT,
        &format!("/api/asks/{id}/draft"),
        Some(json!({"answers": {"build": {"verdict": "pass", "note": ""}}})),
    )
    .await;
    assert_eq!(api.ask(&id).await["state"], "pending");

    let submitted = api.submit(&id, six_answers()).await;
    let r = finish(call).await;
    let sc = review_result(&r);
    assert_eq!(sc, six_result(&id));
    assert_eq!(
        keys(&sc),
        [
            "ask_id",
            "outcome",
            "cancelled",
            "surface",
            "items",
            "summary",
            "report_text"
        ]
    );
    assert_eq!(submitted["result"], sc);
    // The blank item is unfilled and listed as such.
    assert_eq!(sc["items"][2]["filled"], false);
    assert!(
        sc["report_text"].as_str().unwrap().contains(
            "Unfilled (1) — not a pass, follow up\n- [docs] Docs mention the new command"
        )
    );
    // await_answer returns the same result, every time.
    for _ in 0..2 {
        let again = a.call("await_answer", json!({"ask_id": id})).await;
        assert_eq!(review_result(&again), sc);
    }
    // A late submit gets 409 with the actual outcome.
    let (status, body) = api
        .call(
            reqwest::Method::POST,
            &format!("/api/asks/{id}/submit"),
            Some(six_answers()),
        )
        .await;
    assert_eq!(status, 409);
    assert_eq!(
        (body["outcome"].clone(), body["surface"].clone()),
        (json!("answered"), json!("panel"))
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cancel_returns_cancelled_and_no_verdicts() {
    let home = Home::new();
    let a = home.adapter("claude-code", &[]).await;
    let call = a.start_call("batch_review", six_items()).await;
    let (api, id) = new_review(&home).await;
    api.call(
        reqwest::Method::PUT,
        &format!("/api/asks/{id}/draft"),
        Some(json!({"answers": {"build": {"verdict": "pass"}}})),
    )
    .await;
    api.post(&format!("/api/asks/{id}/cancel"), json!({})).await;
    let r = finish(call).await;
    let sc = review_result(&r);
    assert_eq!(
        sc,
        json!({
            "ask_id": id,
            "outcome": "cancelled",
            "cancelled": true,
            "surface": "panel",
            "items": [],
            "summary": {"total": 6, "filled": 0, "unfilled": 6, "pass": 0, "fail": 0, "pending": 0, "yes": 0, "no": 0},
            "report_text": "Review: Release checklist\nCancelled — no verdicts for any of the 6 items. Ask again."
        })
    );

    // withdraw_ask on a review: aborted, the same shape.
    let mut args = six_items();
    args["title"] = json!("Moot");
    args["timeout_s"] = json!(0);
    let handle = a.call("batch_review", args).await;
    let h = &handle["structuredContent"];
    assert_eq!(h["outcome"], "pending");
    assert!(h["instruction"].as_str().unwrap().contains("await_answer"));
    let moot = h["ask_id"].as_str().unwrap().to_string();
    let w = a.call("withdraw_ask", json!({"ask_id": moot})).await;
    let w = review_result(&w);
    assert_eq!(w["outcome"], "aborted");
    assert_eq!(w["cancelled"], true);
    assert_eq!(w["items"], json!([]));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn persist_inside_the_workspace_writes_the_file() {
    let home = Home::new();
    let a = home.adapter("claude-code", &[]).await;
    let mut args = six_items();
    args["persist"] = json!("review/release.json");
    let call = a.start_call("batch_review", args).await;
    let (api, id) = new_review(&home).await;
    api.submit(&id, six_answers()).await;
    let sc = review_result(&finish(call).await);
    let path = std::fs::canonicalize(home.path())
        .unwrap()
        .join("review/release.json");
    assert_eq!(sc["persisted"], path.to_string_lossy().as_ref());
    assert!(sc.get("persist_error").is_none());
    let file: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    assert_eq!(file["title"], "Release checklist");
    assert_eq!(file["items"], six_result(&id)["items"]);
    assert_eq!(file["report_text"], SIX_REPORT);
    assert!(file.get("persisted").is_none());
    // No temporary file is left behind.
    let names: Vec<String> = std::fs::read_dir(path.parent().unwrap())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names, ["release.json"]);

    // A .md path gets report_text.
    let mut args = six_items();
    args["title"] = json!("Release checklist");
    args["persist"] = json!("review/release.md");
    let call = a.start_call("batch_review", args).await;
    let known = vec![id.clone()];
    let id2 = api.new_ask(&known).await["id"]
        .as_str()
        .unwrap()
        .to_string();
    api.submit(&id2, six_answers()).await;
    let sc = review_result(&finish(call).await);
    let md = std::fs::read_to_string(home.path().join("review/release.md")).unwrap();
    assert_eq!(md, format!("{SIX_REPORT}\n"));
    assert!(
        sc["persisted"]
            .as_str()
            .unwrap()
            .ends_with("review/release.md")
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn persist_outside_the_workspace_is_refused_or_reported() {
    let home = Home::new();
    let outside = tempfile::tempdir().unwrap();
    let a = home.adapter("claude-code", &[]).await;

    // Outside at call time — directly or through a symlink — is a validation error:
    // nothing is created.
    std::os::unix::fs::symlink(outside.path(), home.path().join("elsewhere")).unwrap();
    let escape = outside.path().join("x.json").to_string_lossy().into_owned();
    for p in ["../x.json", escape.as_str(), "elsewhere/x.json"] {
        let mut args = six_items();
        args["persist"] = json!(p);
        let r = a.call("batch_review", args).await;
        assert_eq!(r["isError"], true, "{p}: {r}");
        let e = &r["structuredContent"]["error"];
        assert_eq!(e["code"], "invalid_review");
        assert_eq!(e["errors"][0]["code"], "persist_outside_workspace", "{p}");
        assert_eq!(e["errors"][0]["path"], "persist");
    }
    assert!(home.api().asks().await.is_empty());

    // A symlink that appears after the call: the write is refused, persist_error says why,
    // and the answers still come back.
    let mut args = six_items();
    args["persist"] = json!("later/result.json");
    let call = a.start_call("batch_review", args).await;
    let (api, id) = new_review(&home).await;
    std::os::unix::fs::symlink(outside.path(), home.path().join("later")).unwrap();
    api.submit(&id, six_answers()).await;
    let sc = review_result(&finish(call).await);
    assert!(sc.get("persisted").is_none());
    let why = sc["persist_error"].as_str().unwrap();
    assert!(why.contains("outside the workspace"), "{why}");
    let mut expected = six_result(&id);
    expected["persist_error"] = json!(why);
    assert_eq!(sc, expected);
    assert!(std::fs::read_dir(outside.path()).unwrap().next().is_none());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn over_max_items_is_rejected_with_nothing_created() {
    let home = Home::new();
    let a = home
        .adapter("claude-code", &[("ASKD_BATCH_REVIEW_MAX_ITEMS", "5")])
        .await;
    let r = a.call("batch_review", six_items()).await;
    assert_eq!(r["isError"], true, "{r}");
    let e = &r["structuredContent"]["error"];
    assert_eq!(e["code"], "invalid_review");
    assert_eq!(
        e["message"],
        "batch_review rejected: 1 problem; nothing was shown to the reviewer."
    );
    let msg = "items has 6 entries; maxItems is 5. Nothing was shown. Split the review into batches of at most 5 items (sort related items into groups first), or pass offline: true to have it reviewed as a spreadsheet";
    assert_eq!(
        e["errors"],
        json!([{"path": "items", "code": "too_many_items", "message": msg}])
    );
    assert_eq!(
        r["content"][0]["text"],
        format!("batch_review rejected: 1 problem; nothing was shown to the reviewer.\n{msg}")
    );
    let api = home.api();
    assert!(api.asks().await.is_empty());
    assert!(
        api.get("/api/records?kind=review").await["records"]
            .as_array()
            .unwrap()
            .is_empty()
    );
    // The same review offline is accepted.
    let mut args = six_items();
    args["offline"] = json!(true);
    args["timeout_s"] = json!(0);
    let h = a.call("batch_review", args).await;
    assert_eq!(h["structuredContent"]["outcome"], "pending", "{h}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_invalid_review_lists_every_problem_one_per_line() {
    let home = Home::new();
    let a = home.adapter("claude-code", &[]).await;
    let r = a
        .call(
            "batch_review",
            json!({"title": "T", "items": [
                {"id": 3, "title": "a"}, {"id": "3", "title": "b"},
                {"title": "c", "options": [{"v": "A", "t": "a"}, {"v": "B", "t": "b"}]},
                {"title": "d"}, {"type": "scale", "title": "e", "min": 5, "max": 5}
            ]}),
        )
        .await;
    assert_eq!(r["isError"], true);
    assert_eq!(
        r["content"][0]["text"],
        "batch_review rejected: 3 problems; nothing was shown to the reviewer.\nitems[1].id \"3\" duplicates items[0].id\nitems[2].options is not allowed on a confirm item (options belongs to choice; type was not given, so confirm was assumed)\nitems[4].max must be greater than min (min 5, max 5)"
    );
    let envelope: Value = serde_json::from_str(r["content"][1]["text"].as_str().unwrap()).unwrap();
    assert_eq!(envelope, r["structuredContent"]);
    assert!(home.api().asks().await.is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_pending_review_is_collected_with_await_answer_and_reattached() {
    let home = Home::new();
    let a = home.adapter("claude-code", &[]).await;
    let mut args = six_items();
    args["timeout_s"] = json!(0);
    let h = a.call("batch_review", args.clone()).await;
    let handle = h["structuredContent"].clone();
    assert_eq!(handle["outcome"], "pending");
    assert_eq!(handle["title"], "Release checklist");
    let id = handle["ask_id"].as_str().unwrap().to_string();
    // An identical repeat call re-attaches instead of creating a second review.
    let again = a.call("batch_review", args).await;
    assert_eq!(again["structuredContent"]["ask_id"], id.as_str());
    let api = home.api();
    assert_eq!(api.asks().await.len(), 1);
    let call = a.start_call("await_answer", json!({"ask_id": id})).await;
    tokio::time::sleep(Duration::from_millis(200)).await;
    api.submit(&id, six_answers()).await;
    assert_eq!(review_result(&finish(call).await), six_result(&id));
}

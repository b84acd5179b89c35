//! Every ask as an MCP App (issue 20): a client declaring `io.modelcontextprotocol/ui`
//! (with `text/html;profile=mcp-app`) at `initialize`, or per request under 2026-07-28, sees
//! the ask tools linked to `ui://askd/ask.html`, reads that document, and has the app-only
//! `askd_app` tool, which reaches only an ask's own endpoints; an ask tool returns the
//! pending handle at once and the app's submit settles with `surface: "app"`. Without the
//! extension none of it shows. Driven through `askd mcp` as a child process and the daemon.

use crate::common_mcp;

use common_mcp::*;
use rmcp::model::{CallToolRequestParams, ReadResourceRequestParams};
use serde_json::{Value, json};

const URI: &str = "ui://askd/ask.html";
const MIME: &str = "text/html;profile=mcp-app";
const ASK_TOOLS: [&str; 5] = [
    "ask_user_question",
    "ask_survey",
    "batch_review",
    "report_drift",
    "survey_draft_launch",
];

fn apps_caps() -> Value {
    json!({"extensions": {"io.modelcontextprotocol/ui": {"mimeTypes": [MIME]}}})
}

async fn apps_adapter(home: &Home, discover: bool) -> Adapter {
    let (tx, _rx) = tokio::sync::mpsc::unbounded_channel();
    let cmd = home.command(env!("CARGO_BIN_EXE_askd"), &["mcp"], &[]);
    Adapter::spawn_full(cmd, "apps-host", Some((tx, apps_caps())), discover).await
}

async fn tools(a: &Adapter) -> Vec<Value> {
    a.service
        .list_all_tools()
        .await
        .expect("tools/list")
        .into_iter()
        .map(|t| serde_json::to_value(t).unwrap())
        .collect()
}

async fn raw_call(a: &Adapter, name: &str, args: Value) -> Value {
    let params = CallToolRequestParams::new(name.to_string()).with_arguments(object(args));
    serde_json::to_value(a.service.call_tool(params).await.expect("tools/call")).unwrap()
}

async fn app(a: &Adapter, method: &str, path: &str, body: Option<Value>) -> Value {
    let mut args = json!({"method": method, "path": path});
    if let Some(b) = body {
        args["body"] = b;
    }
    raw_call(a, "askd_app", args).await
}

/// With the extension (both eras): `_meta.ui.resourceUri` on every ask tool, the app-only
/// tool, the resource listed and readable with its MIME type and an empty CSP, and the
/// app-only tool refusing what an ask's page does not call.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn apps_capability_links_the_ask_tools_and_serves_the_app() {
    for discover in [false, true] {
        let home = Home::new();
        let a = apps_adapter(&home, discover).await;
        let era = if discover { "2026-07-28" } else { "initialize" };
        let listed = tools(&a).await;
        for name in ASK_TOOLS {
            let t = listed
                .iter()
                .find(|t| t["name"] == name)
                .unwrap_or_else(|| panic!("{era}: {name} listed"));
            assert_eq!(t["_meta"]["ui"]["resourceUri"], URI, "{era}: {t}");
        }
        let await_tool = listed.iter().find(|t| t["name"] == "await_answer").unwrap();
        assert!(await_tool.get("_meta").is_none(), "{era}: {await_tool}");
        let proxy = listed
            .iter()
            .find(|t| t["name"] == "askd_app")
            .unwrap_or_else(|| panic!("{era}: askd_app listed"));
        assert_eq!(proxy["_meta"]["ui"]["visibility"], json!(["app"]), "{era}");

        let resources = a.service.list_all_resources().await.unwrap();
        let r = resources
            .iter()
            .map(|r| serde_json::to_value(r).unwrap())
            .find(|r| r["uri"] == URI)
            .unwrap_or_else(|| panic!("{era}: the app resource listed"));
        assert_eq!(r["mimeType"], MIME, "{era}");

        let read = a
            .service
            .read_resource(ReadResourceRequestParams::new(URI))
            .await
            .expect("resources/read");
        let read = serde_json::to_value(read).unwrap();
        let c = &read["contents"][0];
        assert_eq!(c["uri"], URI);
        assert_eq!(c["mimeType"], MIME, "{era}");
        let csp = &c["_meta"]["ui"]["csp"];
        for k in ["connectDomains", "resourceDomains"] {
            assert_eq!(csp[k], json!([]), "{era}: {csp}");
        }
        let html = c["text"].as_str().unwrap();
        assert!(html.starts_with("<!doctype html>"), "{era}");
        // Self-contained: the page's modules inline, no src/href to fetch.
        assert!(html.contains("__defs[\"js/wizard.js\"]"));
        assert!(html.contains("__defs[\"i18n/zh-CN.js\"]"));
        assert!(
            !html.contains("<script src") && !html.contains("<link"),
            "{era}"
        );

        // The app-only tool reaches an ask's endpoints only.
        for (m, p) in [
            ("GET", "/api/settings"),
            ("POST", "/api/asks"),
            ("POST", "/api/asks/x/withdraw"),
            ("GET", "/api/records"),
            ("PUT", "/api/settings"),
        ] {
            let r = app(&a, m, p, None).await;
            assert_eq!(r["isError"], true, "{era}: {m} {p}: {r}");
            let e = &r["structuredContent"]["error"];
            assert_eq!(e["code"], "APP_ENDPOINT_REFUSED", "{era}: {m} {p}: {r}");
            assert!(
                e["message"]
                    .as_str()
                    .unwrap()
                    .contains("GET /api/asks/{id}"),
                "{e}"
            );
        }
    }
}

/// Without the extension: exactly today's lists (no `_meta.ui`, no `askd_app`, no app
/// resource), and the app-only tool and resource are unknown.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_the_extension_nothing_of_the_app_shows() {
    let home = Home::new();
    let a = home.adapter("plain-client", &[]).await;
    let listed = tools(&a).await;
    assert!(listed.iter().all(|t| t["name"] != "askd_app"));
    for t in &listed {
        assert!(t["_meta"].get("ui").is_none(), "{t}");
    }
    let resources = a.service.list_all_resources().await.unwrap();
    assert!(
        resources
            .iter()
            .all(|r| serde_json::to_value(r).unwrap()["uri"] != URI)
    );
    assert!(
        a.service
            .read_resource(ReadResourceRequestParams::new(URI))
            .await
            .is_err()
    );
    let r = app(&a, "GET", "/api/asks/x", None).await;
    assert_eq!(
        r["structuredContent"]["error"]["code"], "UNKNOWN_TOOL",
        "{r}"
    );
    // An ask still waits as today (the pending handle only after the budget).
    let r = a
        .call(
            "ask_user_question",
            json!({"questions": questions(1)["questions"], "timeout_s": 1}),
        )
        .await;
    assert_eq!(structured(&r)["outcome"], "pending");
}

/// The flow (both eras): the ask tool returns the pending handle at once (its ask_id in
/// structuredContent), the app reads the ask and submits through `askd_app`, and
/// `await_answer` returns the page's result shape with `surface: "app"` — a questions
/// card and a review (whose page code says `card`).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_app_answers_and_await_answer_gets_surface_app() {
    for discover in [false, true] {
        let home = Home::new();
        let a = apps_adapter(&home, discover).await;
        let started = std::time::Instant::now();
        let r = raw_call(&a, "ask_user_question", questions(7)).await;
        assert!(started.elapsed() < std::time::Duration::from_secs(10));
        let sc = structured(&r);
        assert_eq!(sc["outcome"], "pending", "{sc}");
        let id = sc["ask_id"].as_str().unwrap().to_string();

        let view = app(&a, "GET", &format!("/api/asks/{id}"), None).await;
        let v = structured(&view);
        assert_eq!(v["status"], 200, "{v}");
        assert_eq!(v["body"]["kind"], "questions");
        // A refused answer is the daemon's 422, for the app to show.
        let bad = app(
            &a,
            "POST",
            &format!("/api/asks/{id}/submit"),
            Some(json!({"answers": [{"id": "q", "selected": ["Maybe"]}]})),
        )
        .await;
        assert_eq!(structured(&bad)["status"], 422, "{bad}");
        let ok = app(
            &a,
            "POST",
            &format!("/api/asks/{id}/submit"),
            Some(json!({"answers": [{"id": "q", "selected": ["No"]}]})),
        )
        .await;
        assert_eq!(structured(&ok)["status"], 200, "{ok}");
        let done = a.call("await_answer", json!({"ask_id": id})).await;
        let d = structured(&done);
        assert_eq!(d["outcome"], "answered", "{d}");
        assert_eq!(d["surface"], "app", "{d}");
        assert_eq!(d["answers"][0]["selected"], json!(["No"]), "{d}");

        let r = raw_call(
            &a,
            "batch_review",
            json!({"title": "Release", "items": [{"id": "build", "title": "Build it"}]}),
        )
        .await;
        let rid = structured(&r)["ask_id"].as_str().unwrap().to_string();
        let ok = app(
            &a,
            "POST",
            &format!("/api/asks/{rid}/submit"),
            Some(json!({"answers": [{"id": "build", "verdict": "pass"}], "surface": "card"})),
        )
        .await;
        assert_eq!(structured(&ok)["status"], 200, "{ok}");
        let done = a.call("await_answer", json!({"ask_id": rid})).await;
        // A review's first text block is its report (review.md §4.1).
        let d = done["structuredContent"].clone();
        assert_eq!(d["surface"], "app", "{d}");
        assert_eq!(d["items"][0]["verdict"], "pass", "{d}");
    }
}

/// The app acts only on its own conversation's asks.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_app_tool_refuses_another_conversations_ask() {
    let home = Home::new();
    let other = home.adapter("other-agent", &[]).await;
    let r = other
        .call(
            "ask_user_question",
            json!({"questions": questions(3)["questions"], "timeout_s": 0}),
        )
        .await;
    let id = structured(&r)["ask_id"].as_str().unwrap().to_string();
    let a = apps_adapter(&home, false).await;
    let _ = raw_call(&a, "ask_user_question", questions(4)).await;
    let r = app(
        &a,
        "POST",
        &format!("/api/asks/{id}/cancel"),
        Some(json!({})),
    )
    .await;
    assert_eq!(
        r["structuredContent"]["error"]["code"], "APP_ENDPOINT_REFUSED",
        "{r}"
    );
    assert_eq!(home.api().ask(&id).await["state"], "pending");
}

/// The JSON-RPC message of a (possibly event-stream) `/mcp` answer.
fn rpc_message(text: &str) -> Value {
    let body = text
        .lines()
        .find_map(|l| l.strip_prefix("data: "))
        .unwrap_or(text);
    serde_json::from_str(body).unwrap_or_else(|e| panic!("not JSON-RPC ({e}): {text}"))
}

/// The daemon's own `/mcp` (stateless 2026-07-28, the extension per request): the app's
/// calls go through the daemon's ask routes in-process, and the answer says `surface: "app"`.
#[tokio::test]
async fn the_app_over_the_daemons_mcp_answers_in_process() {
    use crate::common_daemon::TestServer;
    use reqwest::Method;
    let s = TestServer::start().await;
    let meta = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": apps_caps(),
        "io.modelcontextprotocol/clientInfo": {"name": "apps-web-host", "version": "1.0.0"}
    });
    let mut next_id = 0;
    let mut rpc = async |method: &str, params: Value| -> Value {
        next_id += 1;
        let mut params = params;
        params["_meta"] = meta.clone();
        let body = json!({"jsonrpc": "2.0", "id": next_id, "method": method, "params": params});
        let mut rb = s
            .req(Method::POST, "/mcp")
            .header("Accept", "application/json, text/event-stream")
            .header("Content-Type", "application/json")
            .header("MCP-Protocol-Version", "2026-07-28")
            .header("Mcp-Method", method);
        if let Some(name) = params
            .get("name")
            .or_else(|| params.get("uri"))
            .and_then(Value::as_str)
        {
            rb = rb.header("Mcp-Name", name);
        }
        let r = s.send(rb.body(body.to_string())).await;
        assert_eq!(r.status.as_u16(), 200, "{}", r.text);
        rpc_message(&r.text)["result"].clone()
    };
    let listed = rpc("tools/list", json!({})).await;
    assert!(
        listed["tools"]
            .as_array()
            .unwrap()
            .iter()
            .any(|t| t["name"] == "askd_app"),
        "{listed}"
    );
    let r = rpc(
        "tools/call",
        json!({"name": "ask_user_question", "arguments": questions(9)}),
    )
    .await;
    assert_eq!(r["structuredContent"]["outcome"], "pending", "{r}");
    let id = r["structuredContent"]["ask_id"]
        .as_str()
        .unwrap()
        .to_string();
    // Each stateless request is a new server: the app's calls carry the handle askd signed
    // for the ask in the tool result's `_meta` (issue 27).
    assert_eq!(r["_meta"]["askd/app"]["ask_id"], id.as_str(), "{r}");
    let handle = r["_meta"]["askd/app"]["handle"]
        .as_str()
        .unwrap()
        .to_string();
    let call = |method: &str, path: String, body: Option<Value>| {
        let mut args = json!({"method": method, "path": path, "handle": handle});
        if let Some(b) = body {
            args["body"] = b;
        }
        json!({"name": "askd_app", "arguments": args})
    };
    let view = rpc("tools/call", call("GET", format!("/api/asks/{id}"), None)).await;
    assert_eq!(view["structuredContent"]["status"], 200, "{view}");
    assert_eq!(view["structuredContent"]["body"]["ask_id"], id.as_str());
    let refused = rpc(
        "tools/call",
        call("PUT", "/api/settings".into(), Some(json!({}))),
    )
    .await;
    assert_eq!(
        refused["structuredContent"]["error"]["code"],
        "APP_ENDPOINT_REFUSED"
    );
    let sent = rpc(
        "tools/call",
        call(
            "POST",
            format!("/api/asks/{id}/submit"),
            Some(json!({"answers": [{"id": "q", "selected": ["Yes (Recommended)"]}]})),
        ),
    )
    .await;
    assert_eq!(sent["structuredContent"]["status"], 200, "{sent}");
    let done = rpc(
        "tools/call",
        json!({"name": "await_answer", "arguments": {"ask_id": id}}),
    )
    .await;
    assert_eq!(done["structuredContent"]["surface"], "app", "{done}");
    let read = rpc("resources/read", json!({"uri": URI})).await;
    assert_eq!(read["contents"][0]["mimeType"], MIME, "{read}");
}

//! Issue 12, item 11: `/mcp` follows the body rules of `/api` (`platform.md` §5) — 415 →
//! 413 (the live `maxBodyBytes`, answered from `Content-Length` before any body arrives) →
//! 400 — with the one JSON error shape, on a real daemon on a loopback port.

use crate::common_daemon as common;

use std::time::Duration;

use common::*;
use reqwest::header::{ACCEPT, CONTENT_TYPE};
use reqwest::{Method, RequestBuilder};
use serde_json::{Value, json};

const BOTH: &str = "application/json, text/event-stream";

fn initialize() -> Value {
    json!({"jsonrpc": "2.0", "id": 1, "method": "initialize",
           "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                      "clientInfo": {"name": "http-hardening", "version": "1.0.0"}}})
}

/// An `initialize` whose serialised form is about `size` bytes (padding in `_meta`).
fn initialize_of(size: usize) -> String {
    let mut v = initialize();
    v["params"]["_meta"] = json!({"pad": "x".repeat(size)});
    v.to_string()
}

/// `POST /mcp` as an MCP client sends it, with the token.
fn mcp(s: &TestServer) -> RequestBuilder {
    s.req(Method::POST, "/mcp").header(ACCEPT, BOTH)
}

fn json_post(s: &TestServer, body: impl Into<reqwest::Body>) -> RequestBuilder {
    mcp(s).header(CONTENT_TYPE, "application/json").body(body)
}

/// The status of a request that rmcp answered, without reading its event stream.
async fn status_of(rb: RequestBuilder) -> u16 {
    rb.send().await.expect("send").status().as_u16()
}

#[track_caller]
fn assert_shape(r: &Resp, status: u16, code: &str) {
    let b = r.expect(status);
    assert!(
        r.header("content-type")
            .is_some_and(|c| c.starts_with("application/json")),
        "{:?} {}",
        r.header("content-type"),
        r.text
    );
    assert_eq!(b["ok"], false, "{}", r.text);
    assert_eq!(b["code"], code, "{}", r.text);
    assert_eq!(b["error"], code, "{}", r.text);
    assert!(
        b["message"].as_str().is_some_and(|m| !m.is_empty()),
        "{}",
        r.text
    );
}

#[tokio::test]
async fn hardening_11_bad_json_is_400_like_api() {
    let s = TestServer::start().await;
    for bad in [
        r#"{"jsonrpc": "2.0", "id": 1, "method": "#,
        "not json",
        r#"{"a": 1} x"#,
    ] {
        let r = s.send(json_post(&s, bad)).await;
        assert_shape(&r, 400, "invalid-json");
        assert!(
            r.body["message"]
                .as_str()
                .unwrap()
                .starts_with("the body is not valid JSON"),
            "{}",
            r.text
        );
        // The same body at /api gets the same answer.
        let api = s
            .send(
                s.req(Method::POST, "/api/sessions")
                    .header(CONTENT_TYPE, "application/json")
                    .body(bad),
            )
            .await;
        assert_eq!(api.body, r.body, "{bad}");
    }
    // JSON that is not a JSON-RPC message: 400 as well, naming what is wrong.
    let r = s.send(json_post(&s, r#"{"hello": "world"}"#)).await;
    assert_shape(&r, 400, "invalid-request");
    assert!(r.text.contains("JSON-RPC"), "{}", r.text);
    // A good initialize still reaches rmcp.
    assert_eq!(
        status_of(json_post(&s, initialize().to_string())).await,
        200
    );
    s.stop().await;
}

#[tokio::test]
async fn hardening_11_the_limit_is_max_body_bytes() {
    let s = TestServer::start().await;
    // Over the daemon's limit (1 MiB in tests) but under rmcp's fixed 4 MiB: 413.
    let r = s
        .send(json_post(&s, initialize_of(2 * common::MAX_BODY)))
        .await;
    assert_shape(&r, 413, "body-too-large");
    assert!(
        r.text
            .contains(&format!("maxBodyBytes ({} bytes)", common::MAX_BODY)),
        "{}",
        r.text
    );
    // Streamed with no declared length: 413 too.
    let chunks: Vec<Result<Vec<u8>, std::io::Error>> = (0..20)
        .map(|_| Ok(vec![b' '; common::MAX_BODY / 16]))
        .collect();
    let r = s
        .send(json_post(
            &s,
            reqwest::Body::wrap_stream(futures_util::stream::iter(chunks)),
        ))
        .await;
    assert_shape(&r, 413, "body-too-large");
    // The limit is the live setting: lowered, a small initialize is refused…
    s.put("/api/settings", &json!({"maxBodyBytes": 2048}))
        .await
        .expect(200);
    let r = s.send(json_post(&s, initialize_of(4096))).await;
    assert_shape(&r, 413, "body-too-large");
    assert!(r.text.contains("(2048 bytes)"), "{}", r.text);
    // …raised above rmcp's 4 MiB, a 5 MiB initialize is served.
    s.put("/api/settings", &json!({"maxBodyBytes": 8 * 1024 * 1024}))
        .await
        .expect(200);
    assert_eq!(
        status_of(json_post(&s, initialize_of(5 * 1024 * 1024))).await,
        200
    );
    s.stop().await;
}

#[tokio::test]
async fn hardening_11_declared_oversize_is_413_before_any_body() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let s = TestServer::start().await;
    let mut stream = tokio::net::TcpStream::connect(("127.0.0.1", s.port))
        .await
        .unwrap();
    let request = format!(
        "POST /mcp HTTP/1.1\r\nHost: {}\r\nAuthorization: Bearer {}\r\nContent-Type: application/json\r\nAccept: {BOTH}\r\nContent-Length: {}\r\n\r\n",
        s.host(),
        s.token,
        common::MAX_BODY + 1
    );
    stream.write_all(request.as_bytes()).await.unwrap();
    // No body is sent: the answer must come from the header alone.
    let mut answer = Vec::new();
    let mut buf = [0u8; 4096];
    let read = tokio::time::timeout(Duration::from_secs(5), async {
        loop {
            let n = stream.read(&mut buf).await.unwrap();
            if n == 0 {
                break;
            }
            answer.extend_from_slice(&buf[..n]);
            if String::from_utf8_lossy(&answer).contains("\"message\"") {
                break;
            }
        }
    })
    .await;
    let text = String::from_utf8_lossy(&answer).into_owned();
    assert!(
        read.is_ok(),
        "no answer within 5 s without a body; got {text:?}"
    );
    assert!(text.starts_with("HTTP/1.1 413"), "{text}");
    assert!(text.contains(r#""code":"body-too-large""#), "{text}");
    drop(stream);
    s.stop().await;
}

#[tokio::test]
async fn hardening_11_mcp_errors_have_the_json_shape() {
    let s = TestServer::start().await;
    // Not JSON: 415, as at /api.
    let r = s
        .send(
            mcp(&s)
                .header(CONTENT_TYPE, "text/plain")
                .body(initialize().to_string()),
        )
        .await;
    assert_shape(&r, 415, "json-required");
    let r = s.send(mcp(&s).body(initialize().to_string())).await;
    assert_shape(&r, 415, "json-required");
    // 415 comes before 413, as at /api.
    let r = s
        .send(
            mcp(&s)
                .header(CONTENT_TYPE, "text/plain")
                .body(initialize_of(2 * common::MAX_BODY)),
        )
        .await;
    assert_shape(&r, 415, "json-required");
    // rmcp's own refusals: same status, the JSON shape, their message kept.
    let r = s
        .send(
            s.req(Method::POST, "/mcp")
                .header(CONTENT_TYPE, "application/json")
                .body(initialize().to_string()),
        )
        .await;
    assert_shape(&r, 406, "not-acceptable");
    assert!(r.text.contains("text/event-stream"), "{}", r.text);
    let r = s
        .send(s.req(Method::PUT, "/mcp").header(ACCEPT, BOTH))
        .await;
    assert_shape(&r, 405, "method-not-allowed");
    assert!(r.header("allow").is_some(), "{:?}", r.headers);
    // The fence still answers first.
    let r = s
        .send(
            s.bare(Method::POST, "/mcp")
                .header(ACCEPT, BOTH)
                .header(CONTENT_TYPE, "text/plain")
                .body("x"),
        )
        .await;
    assert_shape(&r, 401, "unauthorized");
    s.stop().await;
}

/// The JSON-RPC message of a (possibly event-stream) `/mcp` answer.
fn rpc_message(text: &str) -> Value {
    let body = text
        .lines()
        .find_map(|l| l.strip_prefix("data: "))
        .unwrap_or(text);
    serde_json::from_str(body).unwrap_or_else(|e| panic!("not JSON-RPC ({e}): {text}"))
}

/// clients.md §2.6: `/mcp` serves the stateless 2026-07-28 revision (no `initialize`, the
/// client named in each request's `_meta`, the `Mcp-Method` header) beside the 2025 ones.
#[tokio::test]
async fn the_2026_stateless_revision_is_served_at_mcp() {
    let s = TestServer::start().await;
    let meta = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "claude-code", "version": "2.1.332"}
    });
    let post = |method: &str, body: Value| {
        json_post(&s, body.to_string())
            .header("MCP-Protocol-Version", "2026-07-28")
            .header("Mcp-Method", method)
    };
    let discover = s
        .send(post(
            "server/discover",
            json!({"jsonrpc": "2.0", "id": 1, "method": "server/discover",
                   "params": {"_meta": meta}}),
        ))
        .await;
    assert_eq!(discover.status.as_u16(), 200, "{}", discover.text);
    let d = rpc_message(&discover.text);
    assert!(
        d["result"]["supportedVersions"]
            .as_array()
            .is_some_and(|v| v.iter().any(|x| x == "2026-07-28")),
        "{d}"
    );
    let call = s
        .send(
            post(
                "tools/call",
                json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                       "params": {"_meta": meta, "name": "ask_user_question",
                                  "arguments": {"timeout_s": 0, "questions": [{"id": "q",
                                      "question": "Ship it?",
                                      "options": [{"label": "Yes"}, {"label": "No"}]}]}}}),
            )
            .header("Mcp-Name", "ask_user_question"),
        )
        .await;
    assert_eq!(call.status.as_u16(), 200, "{}", call.text);
    let r = rpc_message(&call.text);
    assert_eq!(
        r["result"]["structuredContent"]["outcome"], "pending",
        "{r}"
    );
    let asks = s.get("/api/asks?state=all").await.expect(200).clone();
    assert_eq!(asks["asks"][0]["client"], "claude-code", "{asks}");
}

/// Issue 28 §6: Claude Code over HTTP (2026-07-28, stateless: a new server per request)
/// records one askd session per run. The request sequence it sends, replayed: discover,
/// `subscriptions/listen`, the three lists, a `tools/call` whose form goes out as an
/// `input_required` round, the retry with the sealed `requestState` — which used to open a
/// second, empty session — and a later `await_answer`, which must not open one either.
#[tokio::test]
async fn claude_code_over_http_records_one_session_per_run() {
    let s = TestServer::start().await;
    let meta = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities":
            {"roots": {"listChanged": true}, "elicitation": {"form": {}, "url": {}}},
        "io.modelcontextprotocol/clientInfo": {"name": "claude-code", "version": "2.1.332"}
    });
    let post = |id: u32, method: &str, params: Value| {
        let mut params = params;
        params["_meta"] = meta.clone();
        json_post(
            &s,
            json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}).to_string(),
        )
        .header("MCP-Protocol-Version", "2026-07-28")
        .header("Mcp-Method", method)
    };
    let sessions = || async {
        s.get("/api/sessions").await.expect(200)["sessions"]
            .as_array()
            .cloned()
            .unwrap_or_default()
    };
    let d = s.send(post(1, "server/discover", json!({}))).await;
    assert_eq!(d.status.as_u16(), 200, "{}", d.text);
    // The listen stream stays open: only its response head is read.
    let listen = tokio::time::timeout(
        Duration::from_secs(10),
        post(
            2,
            "subscriptions/listen",
            json!({"notifications": {"toolsListChanged": true, "promptsListChanged": true}}),
        )
        .send(),
    )
    .await
    .expect("listen answers")
    .expect("listen");
    assert_eq!(listen.status().as_u16(), 200, "{:?}", listen.headers());
    for (id, method) in [
        (3, "prompts/list"),
        (4, "resources/list"),
        (5, "tools/list"),
    ] {
        let r = s.send(post(id, method, json!({}))).await;
        assert_eq!(r.status.as_u16(), 200, "{method}: {}", r.text);
    }
    assert!(sessions().await.is_empty(), "nothing asked yet, no session");

    let args = json!({"questions": [{"id": "q", "question": "Ship it over HTTP?",
        "options": [{"label": "Yes"}, {"label": "No"}]}]});
    let call = s
        .send(
            post(
                6,
                "tools/call",
                json!({"name": "ask_user_question", "arguments": args}),
            )
            .header("Mcp-Name", "ask_user_question"),
        )
        .await;
    let round = rpc_message(&call.text);
    assert_eq!(round["result"]["resultType"], "input_required", "{round}");
    let state = round["result"]["requestState"]
        .as_str()
        .unwrap()
        .to_string();
    let all = sessions().await;
    assert_eq!(all.len(), 1, "{all:?}");
    let session = all[0]["id"].as_str().unwrap().to_string();
    assert_eq!(all[0]["client"], "claude-code");

    // The human answers on the page while the form is open; the form is then dismissed.
    let asks = s.get("/api/asks?state=pending").await.expect(200).clone();
    let ask = asks["asks"][0]["id"].as_str().unwrap().to_string();
    let r = s
        .post(
            &format!("/api/asks/{ask}/submit"),
            &json!({"answers": [{"id": "q", "selected": ["Yes"]}]}),
        )
        .await;
    r.expect(200);
    let retry = s
        .send(
            post(
                7,
                "tools/call",
                json!({"name": "ask_user_question", "arguments": args,
                       "requestState": state,
                       "inputResponses": {"askd_answer": {"action": "cancel"}}}),
            )
            .header("Mcp-Name", "ask_user_question"),
        )
        .await;
    let done = rpc_message(&retry.text);
    assert_eq!(
        done["result"]["structuredContent"]["outcome"], "answered",
        "{done}"
    );
    // A later await_answer in its own request.
    let again = s
        .send(
            post(
                8,
                "tools/call",
                json!({"name": "await_answer", "arguments": {"ask_id": ask}}),
            )
            .header("Mcp-Name", "await_answer"),
        )
        .await;
    let again = rpc_message(&again.text);
    assert_eq!(
        again["result"]["structuredContent"]["outcome"], "answered",
        "{again}"
    );
    let all = sessions().await;
    assert_eq!(
        all.iter().map(|x| x["id"].clone()).collect::<Vec<_>>(),
        vec![json!(session)],
        "one session per run: {all:?}"
    );
    drop(listen);
}

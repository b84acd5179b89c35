//! Issue 12, items 8 and 9: `askd mcp` answers every line it is sent and survives messages
//! out of order. Each test spawns the built `askd mcp` (its own `ASKD_HOME`, a daemon on a
//! free port), writes raw lines to its stdin — garbage included — and reads its stdout line
//! by line, as an agent would.
//!
//! To see that an answer is missing (not merely slow), a `ping` follows the line under test:
//! the adapter answers lines in order, so the next response read must be the answer to the
//! line under test, not the ping's.

use crate::common_mcp;

use common_mcp::raw::Raw;
use common_mcp::*;
use serde_json::{Value, json};

impl Raw {
    /// The answer to the line just sent, which must be an error with `code` and `id`;
    /// then a ping proves the adapter still serves.
    async fn expect_error(&mut self, code: i64, id: Value) -> Value {
        self.send(&json!({"jsonrpc": "2.0", "id": "after", "method": "ping"}))
            .await;
        let r = self.response().await;
        assert_eq!(
            r["error"]["code"], code,
            "expected a {code} answer to the line under test, got {r}"
        );
        assert!(
            r.get("id").is_some(),
            "the answer must carry an id member: {r}"
        );
        assert_eq!(r["id"], id, "{r}");
        assert!(
            r["error"]["message"]
                .as_str()
                .is_some_and(|m| !m.is_empty()),
            "{r}"
        );
        let after = self.response().await;
        assert_eq!(after["id"], "after", "{after}");
        r
    }
}

/// `tools/call` as one JSON line, with `PLACE` in `text` substituted verbatim afterwards.
fn call_line(id: i64, name: &str, arguments: Value, place: &str, raw: &str) -> String {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
           "params": {"name": name, "arguments": arguments}})
    .to_string()
    .replace(place, raw)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hardening_8_lone_surrogate_is_replaced() {
    let home = Home::new();
    let mut a = Raw::spawn(&home);
    a.initialize().await;
    let mut args = fixture("release-scope.json");
    args["survey"]["title"] = json!("Ship HIGH or LOW but PAIR");
    args["timeout_s"] = json!(0);
    // A truncated emoji (lone high surrogate), a lone low one, and a proper pair.
    let line = call_line(1, "ask_survey", args.clone(), "HIGH", "\\ud83d")
        .replace("LOW", "\\uDE00")
        .replace("PAIR", "\\ud83d\\ude00");
    assert!(line.contains(r"Ship \ud83d or \uDE00 but \ud83d\ude00"));
    a.send_raw(line.as_bytes()).await;
    let r = a.response().await;
    assert_eq!(r["id"], 1, "{r}");
    assert_eq!(r["result"]["isError"], false, "{r}");
    let handle = &r["result"]["structuredContent"];
    assert_eq!(handle["outcome"], "pending", "{r}");
    assert_eq!(handle["title"], "Ship \u{FFFD} or \u{FFFD} but \u{1F600}");
    // The stored ask carries the repaired text too.
    let id = handle["ask_id"].as_str().unwrap();
    assert_eq!(
        home.api().ask(id).await["title"],
        "Ship \u{FFFD} or \u{FFFD} but \u{1F600}"
    );
    // An escaped backslash before `ud83d` is not an escape: left as it is.
    args["survey"]["title"] = json!("Literal \\ud83d");
    a.send(&json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                   "params": {"name": "ask_survey", "arguments": args}}))
        .await;
    let r = a.response().await;
    assert_eq!(
        r["result"]["structuredContent"]["title"], "Literal \\ud83d",
        "{r}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hardening_8_unparseable_lines_get_parse_error_with_null_id() {
    let home = Home::new();
    let mut a = Raw::spawn(&home);
    a.initialize().await;
    // Not JSON at all.
    a.send_raw(b"this is not json").await;
    a.expect_error(-32700, Value::Null).await;
    // Truncated: the id cannot be read from an unfinished message.
    a.send_raw(br#"{"jsonrpc":"2.0","id":5,"method":"tools/list""#)
        .await;
    a.expect_error(-32700, Value::Null).await;
    // Not UTF-8.
    a.send_raw(b"{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"\xff\"}")
        .await;
    a.expect_error(-32700, Value::Null).await;
    // JSON but not a message object: -32600.
    a.send_raw(b"[1, 2, 3]").await;
    a.expect_error(-32600, Value::Null).await;
    // An object with an id but no method or result: -32600 with its id.
    a.send_raw(br#"{"jsonrpc":"2.0","id":7}"#).await;
    a.expect_error(-32600, json!(7)).await;
    // A wrong JSON-RPC version, id readable.
    a.send_raw(br#"{"jsonrpc":"1.0","id":"v","method":"tools/list"}"#)
        .await;
    a.expect_error(-32600, json!("v")).await;
    assert!(a.alive());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hardening_8_deep_nesting_is_answered_with_its_id() {
    let home = Home::new();
    let mut a = Raw::spawn(&home);
    a.initialize().await;
    let deep = format!("{}{}", "[".repeat(200), "]".repeat(200));
    let line = call_line(
        9,
        "ask_survey",
        json!({"survey": "DEEP"}),
        "\"DEEP\"",
        &deep,
    );
    a.send_raw(line.as_bytes()).await;
    let r = a.expect_error(-32700, json!(9)).await;
    let message = r["error"]["message"].as_str().unwrap();
    assert!(message.contains("128"), "{message}");
    // The id may come after the deep member: it is still read.
    let line =
        format!(r#"{{"jsonrpc":"2.0","method":"tools/call","params":{{"x":{deep}}},"id":"late"}}"#);
    a.send_raw(line.as_bytes()).await;
    a.expect_error(-32700, json!("late")).await;
    assert!(a.alive());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hardening_8_line_over_16_mib_is_skipped_and_answered() {
    let home = Home::new();
    let mut a = Raw::spawn(&home);
    a.initialize().await;
    let pad = "x".repeat(16 * 1024 * 1024);
    let line = call_line(10, "ask_survey", json!({"pad": "PAD"}), "PAD", &pad);
    assert!(line.len() > 16 * 1024 * 1024);
    a.send_raw(line.as_bytes()).await;
    let r = a.expect_error(-32600, Value::Null).await;
    let message = r["error"]["message"].as_str().unwrap();
    assert!(message.contains("16 MiB"), "{message}");
    // The rest of the stream is intact: a normal call works.
    a.send(&json!({"jsonrpc": "2.0", "id": 11, "method": "tools/list"}))
        .await;
    let r = a.response().await;
    assert_eq!(r["id"], 11, "{r}");
    assert!(
        r["result"]["tools"]
            .as_array()
            .is_some_and(|t| !t.is_empty()),
        "{r}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hardening_8_unreadable_id_is_answered_with_null_id() {
    let home = Home::new();
    let mut a = Raw::spawn(&home);
    a.initialize().await;
    a.send_raw(br#"{"jsonrpc":"2.0","id":1e400,"method":"tools/list"}"#)
        .await;
    let r = a.expect_error(-32600, Value::Null).await;
    let message = r["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("id must be a string or an integer"),
        "{message}"
    );
    // An object id cannot be read either.
    a.send_raw(br#"{"jsonrpc":"2.0","id":{"a":1},"method":"tools/list"}"#)
        .await;
    a.expect_error(-32600, Value::Null).await;
    assert!(a.alive());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hardening_8_non_object_tool_arguments_get_invalid_params() {
    let home = Home::new();
    let mut a = Raw::spawn(&home);
    a.initialize().await;
    for (id, arguments) in [
        (20, json!("{\"survey\": {}}")),
        (21, json!([1, 2])),
        (22, json!(3)),
    ] {
        a.send(&json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                       "params": {"name": "ask_survey", "arguments": arguments}}))
            .await;
        let r = a.expect_error(-32602, json!(id)).await;
        let message = r["error"]["message"].as_str().unwrap();
        assert!(
            message.contains("params.arguments") && message.contains("must be an object"),
            "{message}"
        );
    }
    assert!(a.alive());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hardening_9_initialized_before_initialize_is_ignored() {
    let home = Home::new();
    let mut a = Raw::spawn(&home);
    a.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
        .await;
    // A ping is fine before initialize; a plain request is answered with an error.
    a.ping("early").await;
    a.send(&json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}))
        .await;
    let r = a.response().await;
    assert_eq!(r["id"], 1, "{r}");
    assert!(r["error"]["code"].is_i64(), "{r}");
    // A stray response and a second early notification do not end it either.
    a.send(&json!({"jsonrpc": "2.0", "id": 99, "result": {}}))
        .await;
    a.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
        .await;
    assert!(a.alive(), "stderr: {}", a.stderr());
    // Then the normal lifecycle works: initialize, a tool call.
    a.initialize().await;
    let mut args = fixture("release-scope.json");
    args["timeout_s"] = json!(0);
    a.send(&json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                   "params": {"name": "ask_survey", "arguments": args}}))
        .await;
    let r = a.response().await;
    assert_eq!(r["id"], 2, "{r}");
    assert_eq!(
        r["result"]["structuredContent"]["outcome"], "pending",
        "{r}"
    );
    assert!(a.alive());
    // Logged to the adapter's log in the data directory; the client's stderr stays quiet.
    let log = std::fs::read_to_string(home.path().join("mcp.log")).unwrap_or_default();
    assert!(log.contains("ignored notifications/initialized"), "{log}");
    assert_eq!(a.stderr(), "");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hardening_9_a_2026_client_without_initialize_is_still_served() {
    let home = Home::new();
    let mut a = Raw::spawn(&home);
    a.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
        .await;
    let meta = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "raw-2026", "version": "1.0.0"}
    });
    a.send(
        &json!({"jsonrpc": "2.0", "id": "d", "method": "server/discover",
                   "params": {"_meta": meta}}),
    )
    .await;
    let r = a.response().await;
    assert_eq!(r["id"], "d", "{r}");
    assert!(r.get("result").is_some(), "{r}");
    a.send(&json!({"jsonrpc": "2.0", "id": "l", "method": "tools/list",
                   "params": {"_meta": meta}}))
        .await;
    let r = a.response().await;
    assert_eq!(r["id"], "l", "{r}");
    assert!(
        r["result"]["tools"]
            .as_array()
            .is_some_and(|t| !t.is_empty()),
        "{r}"
    );
    assert!(a.alive());
}

/// clients.md §2.6: a 2026-07-28 client (Claude Code's default) opens `subscriptions/listen`;
/// askd acknowledges it and sends the tool and prompt list changes of a mode switch on that
/// stream, tagged with its subscription id.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_2026_client_hears_list_changes_on_subscriptions_listen() {
    let home = Home::new();
    let mut a = Raw::spawn(&home);
    let meta = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "claude-code", "version": "2.1.332"}
    });
    a.send(
        &json!({"jsonrpc": "2.0", "id": "d", "method": "server/discover",
                   "params": {"_meta": meta}}),
    )
    .await;
    let r = a.response().await;
    assert_eq!(r["id"], "d", "{r}");
    a.send(&json!({"jsonrpc": "2.0", "id": "sub", "method": "subscriptions/listen",
                   "params": {"_meta": meta,
                              "notifications": {"toolsListChanged": true, "promptsListChanged": true}}}))
        .await;
    let ack = a.message().await;
    assert_eq!(
        ack["method"], "notifications/subscriptions/acknowledged",
        "{ack}"
    );
    assert!(ack.get("error").is_none(), "{ack}");
    // A mode switch changes the tool list: the change arrives on the stream.
    a.send(&json!({"jsonrpc": "2.0", "id": "m", "method": "tools/call",
                   "params": {"_meta": meta, "name": "set_alignment_mode",
                              "arguments": {"mode": "off"}}}))
        .await;
    let mut seen = Vec::new();
    let mut answered = false;
    let tagged = |m: &Value| {
        m["method"] == "notifications/tools/list_changed"
            && m["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"] == "sub"
    };
    while !(answered && seen.iter().any(tagged)) {
        let m = a.message().await;
        if m["id"] == "m" {
            assert!(m.get("result").is_some(), "{m}");
            answered = true;
        } else {
            seen.push(m);
        }
        assert!(seen.len() < 20, "{seen:#?}");
    }
    assert!(
        seen.iter()
            .any(|m| m["method"] == "notifications/prompts/list_changed"
                && m["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"] == "sub"),
        "{seen:#?}"
    );
    assert!(a.alive());
}

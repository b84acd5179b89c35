//! The access table of `askd serve` as a whole (issue 27): `docs/api.md` shows exactly the
//! table the code declares, and `/mcp` — the one route the binary adds — answers every kind
//! of caller as its entry says, on the real daemon.

use crate::common_daemon::*;
use reqwest::Method;
use reqwest::header::{ACCEPT, AUTHORIZATION, CONTENT_TYPE, COOKIE, SET_COOKIE};
use serde_json::{Value, json};

const START: &str =
    "<!-- access-table: generated from the code, checked by crates/askd/tests/it/access.rs -->";
const END: &str = "<!-- /access-table -->";

#[test]
fn access_table_in_the_docs_is_the_codes() {
    let docs = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/api.md"))
        .expect("read docs/api.md");
    let table = askd::mcp_http::access_table().markdown();
    let shown = docs
        .split_once(START)
        .and_then(|(_, rest)| rest.split_once(END))
        .map(|(t, _)| t.trim())
        .unwrap_or_else(|| panic!("docs/api.md has no block between {START} and {END}"));
    assert_eq!(
        shown,
        table.trim(),
        "docs/api.md's access table differs from the code's; paste this between the markers:\n{table}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn access_mcp_opens_to_the_install_and_agents_only() {
    let s = TestServer::start().await;
    let member = s
        .post("/api/members", &json!({"name": "Ana"}))
        .await
        .expect(201)
        .clone();
    let r = s
        .send(
            s.bare(
                Method::GET,
                &format!("/login/{}", member["token"].as_str().unwrap()),
            )
            .header("sec-fetch-site", "none"),
        )
        .await;
    let ana = r
        .header("set-cookie")
        .unwrap()
        .split(';')
        .next()
        .unwrap()
        .to_string();
    let bot = s
        .post("/api/members", &json!({"name": "bot", "agent": true}))
        .await
        .expect(201)["token"]
        .as_str()
        .unwrap()
        .to_string();
    let code = s.post("/api/pair", &json!({})).await.expect(200)["code"]
        .as_str()
        .unwrap()
        .to_string();
    let r = s
        .send(
            s.bare(Method::POST, &format!("/pair/{code}"))
                .header(CONTENT_TYPE, "application/x-www-form-urlencoded")
                .body("name=phone"),
        )
        .await;
    let phone = r
        .headers
        .get(SET_COOKIE)
        .unwrap()
        .to_str()
        .unwrap()
        .split(';')
        .next()
        .unwrap()
        .to_string();
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "access-test", "version": "1"}}});
    for (who, header, value, want) in [
        ("install", AUTHORIZATION, format!("Bearer {}", s.token), 200),
        ("agent", AUTHORIZATION, format!("Bearer {bot}"), 200),
        ("member", COOKIE, ana.clone(), 403),
        ("device", COOKIE, phone.clone(), 403),
    ] {
        let r = s
            .send(
                s.bare(Method::POST, "/mcp")
                    .header(header, value)
                    .header(CONTENT_TYPE, "application/json")
                    .header(ACCEPT, "application/json, text/event-stream")
                    .body(init.to_string()),
            )
            .await;
        assert_eq!(r.status.as_u16(), want, "{who}: {}", r.text);
        if want == 403 {
            let code: Value = serde_json::from_str(&r.text).unwrap();
            assert!(code["code"].as_str().unwrap().ends_with("-scope"), "{code}");
        }
    }
    let r = s
        .send(
            s.bare(Method::POST, "/mcp")
                .header(CONTENT_TYPE, "application/json")
                .body(init.to_string()),
        )
        .await;
    assert_eq!(r.status.as_u16(), 401);
    s.stop().await;
}

/// An agent token's calls over the daemon's own `/mcp` run as the agent (the in-process
/// backend takes the principal of the request that made the connection): what it settles is
/// recorded as the agent's, as through the HTTP API.
#[tokio::test(flavor = "multi_thread")]
async fn access_5_an_agent_over_mcp_is_named_in_what_it_settles() {
    let s = TestServer::start().await;
    let b = s
        .post("/api/members", &json!({"name": "ci-bot", "agent": true}))
        .await
        .expect(201)
        .clone();
    let bot = b["token"].as_str().unwrap().to_string();
    let bot_id = b["member"]["id"].as_str().unwrap().to_string();
    let meta = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "remote-agent", "version": "1.0.0"}
    });
    let mut next_id = 0;
    let mut call = async |name: &str, arguments: Value| -> Value {
        next_id += 1;
        let body = json!({"jsonrpc": "2.0", "id": next_id, "method": "tools/call",
            "params": {"name": name, "arguments": arguments, "_meta": meta}});
        let r = s
            .send(
                s.bare(Method::POST, "/mcp")
                    .header(AUTHORIZATION, format!("Bearer {bot}"))
                    .header(ACCEPT, "application/json, text/event-stream")
                    .header(CONTENT_TYPE, "application/json")
                    .header("MCP-Protocol-Version", "2026-07-28")
                    .header("Mcp-Method", "tools/call")
                    .header("Mcp-Name", name)
                    .body(body.to_string()),
            )
            .await;
        assert_eq!(r.status.as_u16(), 200, "{}", r.text);
        let text = r
            .text
            .lines()
            .find_map(|l| l.strip_prefix("data: "))
            .unwrap_or(&r.text)
            .to_string();
        serde_json::from_str::<Value>(&text).unwrap()["result"]["structuredContent"].clone()
    };
    let asked = call(
        "ask_user_question",
        json!({"questions": [{"id": "q", "question": "Ship it?",
            "options": [{"label": "Yes"}, {"label": "No"}]}], "timeout_s": 0}),
    )
    .await;
    let id = asked["ask_id"]
        .as_str()
        .unwrap_or_else(|| panic!("{asked}"))
        .to_string();
    let withdrawn = call("withdraw_ask", json!({"ask_id": id})).await;
    assert_eq!(withdrawn["error"]["code"], "ASK_ABORTED", "{withdrawn}");
    let stored = s.ask(&id).await;
    assert_eq!(stored["state"], "settled", "{stored}");
    assert_eq!(
        stored["result"]["answered_by"],
        json!({"kind": "agent", "id": bot_id, "name": "ci-bot"}),
        "{stored}"
    );
    s.stop().await;
}

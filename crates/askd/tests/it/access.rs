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

//! Who may do what, the MCP side (issue 27, items 3, 4 and 6), driven through `askd mcp` as
//! a child process (2025 `initialize` and 2026-07-28 `server/discover`) and the daemon's
//! own `/mcp` over HTTP (stateless 2026-07-28):
//!
//! - 3: `askd_app` acts on an ask only for the connection that asked it, or with the handle
//!   askd signed for it (`_meta["askd/app"].handle` of the ask tool's result) — never
//!   because a call names the ask's session in `_meta["askd/session"]`, reuses the asking
//!   client's `clientInfo` name on a fresh connection, or claims it in a stateless request.
//! - 4: a 2026-07-28 `requestState` is signed and bound to its ask and session: a forged or
//!   altered one (another ask, `sent: 0`) is refused with a tool error, and two clients both
//!   named `claude-code` cannot answer each other's asks.
//! - 6: `await_answer` and an MRTR retry refuse a `timeout_s` that is not a number of
//!   seconds ≥ 0, as the ask tools do, instead of waiting forever.

use std::time::Duration;

use crate::common_mcp;

use common_mcp::stateless::Stateless;
use common_mcp::*;
use rmcp::model::{CallToolRequestParams, CallToolResponse};
use serde_json::{Value, json};

const MIME: &str = "text/html;profile=mcp-app";

fn apps_caps() -> Value {
    json!({"extensions": {"io.modelcontextprotocol/ui": {"mimeTypes": [MIME]}}})
}

/// `askd mcp` for an MCP Apps host named `client` (2026-07-28 when `discover`).
async fn apps_adapter(home: &Home, client: &str, discover: bool) -> Adapter {
    let (tx, _rx) = tokio::sync::mpsc::unbounded_channel();
    let cmd = home.command(env!("CARGO_BIN_EXE_askd"), &["mcp"], &[]);
    Adapter::spawn_full(cmd, client, Some((tx, apps_caps())), discover).await
}

/// `tools/call` with `params` as sent (`_meta`, `requestState`…), one round: the result as
/// JSON (an `input_required` result too).
async fn once(a: &Adapter, params: Value) -> Value {
    let params: CallToolRequestParams = serde_json::from_value(params).unwrap();
    let r = tokio::time::timeout(Duration::from_secs(30), a.service.call_tool_once(params))
        .await
        .expect("the call answers within 30 s")
        .expect("tools/call");
    match r {
        CallToolResponse::Complete(r) => serde_json::to_value(r).unwrap(),
        CallToolResponse::InputRequired(r) => serde_json::to_value(r).unwrap(),
        other => panic!("unexpected response: {other:?}"),
    }
}

/// `askd_app` `method path` (with `body`, `handle` and the request `_meta` when given).
async fn app(
    a: &Adapter,
    method: &str,
    path: &str,
    handle: Option<&str>,
    meta: Option<Value>,
) -> Value {
    let mut args = json!({"method": method, "path": path});
    if method != "GET" {
        args["body"] = json!({});
    }
    if let Some(h) = handle {
        args["handle"] = json!(h);
    }
    let mut params = json!({"name": "askd_app", "arguments": args});
    if let Some(m) = meta {
        params["_meta"] = m;
    }
    once(a, params).await
}

fn error_code(r: &Value) -> &str {
    r["structuredContent"]["error"]["code"]
        .as_str()
        .unwrap_or_default()
}

/// The ask tool's pending handle for an Apps host: its ask id and the whole result.
async fn app_ask(a: &Adapter, n: usize) -> (String, Value) {
    let r = once(
        a,
        json!({"name": "ask_user_question", "arguments": questions(n)}),
    )
    .await;
    let sc = structured(&r);
    assert_eq!(sc["outcome"], "pending", "{r}");
    let id = sc["ask_id"].as_str().unwrap().to_string();
    (id, r)
}

/// The signed app handle an ask tool's result gives the app, for `id`.
fn handle_of(r: &Value, id: &str) -> String {
    let app = &r["_meta"]["askd/app"];
    assert_eq!(app["ask_id"], id, "the result gives the app its ask: {r}");
    app["handle"].as_str().expect("a signed handle").to_string()
}

/// base64url without padding, both ways (what rmcp's sealed values are made of).
fn b64_decode(s: &str) -> Vec<u8> {
    const A: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    let mut out = Vec::new();
    let (mut acc, mut bits) = (0u32, 0);
    for c in s.bytes() {
        let v = A.iter().position(|a| *a == c).expect("base64url") as u32;
        acc = (acc << 6) | v;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    out
}

fn b64_encode(bytes: &[u8]) -> String {
    const A: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let n = chunk.iter().fold(0u32, |acc, b| (acc << 8) | *b as u32) << (8 * (3 - chunk.len()));
        for i in 0..=chunk.len() {
            out.push(A[((n >> (18 - 6 * i)) & 63) as usize] as char);
        }
    }
    out
}

/// A sealed value (`rs1.<body>.<tag>`) with its JSON payload changed by `edit`, the tag
/// kept: what a client that alters a state it was given sends back.
fn tampered(sealed: &str, edit: impl Fn(&mut Value)) -> String {
    let parts: Vec<&str> = sealed.split('.').collect();
    assert_eq!(parts.len(), 3, "rs1.<body>.<tag>: {sealed}");
    let body = b64_decode(parts[1]);
    let (expiry, payload) = body.split_at(8);
    let mut v: Value = serde_json::from_slice(payload).unwrap();
    edit(&mut v);
    let mut body = expiry.to_vec();
    body.extend_from_slice(v.to_string().as_bytes());
    format!("{}.{}.{}", parts[0], b64_encode(&body), parts[2])
}

/// The payload of a sealed value, read as any client can (signed, not encrypted).
fn payload(sealed: &str) -> Value {
    let body = b64_decode(sealed.split('.').nth(1).unwrap());
    serde_json::from_slice(&body[8..]).unwrap()
}

/// Item 3, 2025 connections: a call naming the other conversation's session in
/// `_meta["askd/session"]`, and a fresh connection with the asking client's own
/// `clientInfo` name, both act on nothing; the connection that asked acts, and a fresh
/// connection acts with the handle askd gave the app (a host reconnected, an adapter
/// restarted: the key is the install's, not the process's).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn access_3_app_proxy_refuses_another_conversations_ask() {
    let home = Home::new();
    let owner = apps_adapter(&home, "apps-host", false).await;
    let (id, result) = app_ask(&owner, 31).await;
    let api = home.api();
    let session = api.ask(&id).await["session"].as_str().unwrap().to_string();
    let path = format!("/api/asks/{id}");
    let cancel = format!("/api/asks/{id}/cancel");

    // Another conversation (its own ask on its own connection), naming the owner's session.
    let other = apps_adapter(&home, "other-host", false).await;
    let (own, _) = app_ask(&other, 32).await;
    for (m, p) in [("GET", &path), ("POST", &cancel)] {
        let r = app(&other, m, p, None, Some(json!({"askd/session": session}))).await;
        assert_eq!(error_code(&r), "APP_ENDPOINT_REFUSED", "{m} {p}: {r}");
        assert!(
            r.to_string().contains("handle"),
            "the refusal names the way: {r}"
        );
    }
    // Its own ask it may read.
    let r = app(&other, "GET", &format!("/api/asks/{own}"), None, None).await;
    assert_eq!(structured(&r)["status"], 200, "{r}");

    // A fresh connection with the owner's clientInfo name, no handle: refused, also with
    // the owner's session in _meta, and with another ask's handle.
    let fresh = apps_adapter(&home, "apps-host", false).await;
    for meta in [None, Some(json!({"askd/session": session}))] {
        let r = app(&fresh, "POST", &cancel, None, meta.clone()).await;
        assert_eq!(error_code(&r), "APP_ENDPOINT_REFUSED", "{meta:?}: {r}");
    }
    let (other_id, other_result) = app_ask(&other, 33).await;
    let other_handle = handle_of(&other_result, &other_id);
    let r = app(&fresh, "POST", &cancel, Some(&other_handle), None).await;
    assert_eq!(
        error_code(&r),
        "APP_ENDPOINT_REFUSED",
        "another ask's handle: {r}"
    );
    // A handle altered to name this ask, its tag kept, proves nothing either.
    let forged = tampered(&other_handle, |v| v["ask"] = json!(id));
    let r = app(&fresh, "POST", &cancel, Some(&forged), None).await;
    assert_eq!(
        error_code(&r),
        "APP_ENDPOINT_REFUSED",
        "an altered handle: {r}"
    );
    assert_eq!(api.ask(&id).await["state"], "pending");

    // The connection that asked acts without a handle; a fresh one with the handle.
    let handle = handle_of(&result, &id);
    let r = app(&owner, "GET", &path, None, None).await;
    assert_eq!(structured(&r)["status"], 200, "{r}");
    assert_eq!(structured(&r)["body"]["ask_id"], id.as_str());
    let r = app(&fresh, "GET", &path, Some(&handle), None).await;
    assert_eq!(
        structured(&r)["status"],
        200,
        "the handle opens the ask: {r}"
    );
    // What the handle holds is readable (signed, not encrypted): the ask and its session.
    assert_eq!(payload(&handle), json!({"ask": id, "session": session}));
    let r = app(&fresh, "POST", &cancel, Some(&handle), None).await;
    assert_eq!(structured(&r)["status"], 200, "{r}");
    assert_eq!(api.ask(&id).await["outcome"], "cancelled");
}

impl Stateless<'_> {
    async fn app(&self, method: &str, path: &str, handle: Option<&str>, meta: Value) -> Value {
        let mut args = json!({"method": method, "path": path});
        if method != "GET" {
            args["body"] = json!({});
        }
        if let Some(h) = handle {
            args["handle"] = json!(h);
        }
        self.rpc(
            "tools/call",
            json!({"name": "askd_app", "arguments": args, "_meta": meta}),
        )
        .await
    }
}

/// Item 3, stateless 2026-07-28 over the daemon's `/mcp` (a new server per request): a
/// request claiming the asking host's clientInfo name, or naming its session in `_meta`,
/// acts on nothing; the app's calls carrying the handle from the ask tool's result act,
/// and the answer settles with `surface: "app"`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn access_3_stateless_request_claiming_the_name_is_refused() {
    use crate::common_daemon::TestServer;
    let s = TestServer::start().await;
    let host = Stateless::of(&s, "apps-web-host", apps_caps());
    let r = host.call("ask_user_question", questions(34)).await;
    let id = r["structuredContent"]["ask_id"]
        .as_str()
        .unwrap()
        .to_string();
    let session = s.ask(&id).await["session"].as_str().unwrap().to_string();
    let submit = format!("/api/asks/{id}/submit");

    // The same name, another request: no handle, the session in _meta, or the handle
    // altered — refused, the ask untouched.
    let claimer = Stateless::of(&s, "apps-web-host", apps_caps());
    for meta in [json!({}), json!({"askd/session": session})] {
        for (m, p) in [("GET", format!("/api/asks/{id}")), ("POST", submit.clone())] {
            let r = claimer.app(m, &p, None, meta.clone()).await;
            assert_eq!(
                error_code(&r),
                "APP_ENDPOINT_REFUSED",
                "{meta} {m} {p}: {r}"
            );
        }
    }
    let other = host.call("ask_user_question", questions(35)).await;
    let other_handle = other["_meta"]["askd/app"]["handle"].as_str().unwrap();
    let forged = tampered(other_handle, |v| v["ask"] = json!(id));
    for h in [
        other_handle,
        forged.as_str(),
        "rs1.AAAA.AAAA",
        "not a handle",
    ] {
        let r = claimer.app("POST", &submit, Some(h), json!({})).await;
        assert_eq!(error_code(&r), "APP_ENDPOINT_REFUSED", "{h}: {r}");
    }
    assert_eq!(s.ask(&id).await["state"], "pending");

    // The app, with its handle.
    let handle = handle_of(&r, &id);
    let r = claimer
        .app("GET", &format!("/api/asks/{id}"), Some(&handle), json!({}))
        .await;
    assert_eq!(r["structuredContent"]["status"], 200, "{r}");
    let r = host
        .rpc(
            "tools/call",
            json!({"name": "askd_app", "arguments": {
                "method": "POST", "path": submit, "handle": handle,
                "body": {"answers": [{"id": "q", "selected": ["No"]}]}
            }}),
        )
        .await;
    assert_eq!(r["structuredContent"]["status"], 200, "{r}");
    let done = host
        .call("await_answer", json!({"ask_id": id, "timeout_s": 0}))
        .await;
    assert_eq!(done["structuredContent"]["surface"], "app", "{done}");
}

/// `ask_user_question` for a 2026-07-28 client that shows forms, one round: the
/// `input_required` result's ask (found in the inbox) and its `requestState`.
async fn round(a: &Adapter, api: &Api, known: &[String], n: usize) -> (String, String) {
    let mut args = questions(n);
    args["timeout_s"] = json!(0);
    let r = once(a, json!({"name": "ask_user_question", "arguments": args})).await;
    assert_eq!(r["resultType"], "input_required", "{r}");
    let state = r["requestState"].as_str().unwrap().to_string();
    let id = api.new_ask(known).await["id"].as_str().unwrap().to_string();
    (id, state)
}

/// A retry of `ask_user_question` with `state` and the form's reply.
fn retry(n: usize, state: &str, reply: Value) -> Value {
    let mut args = questions(n);
    args["timeout_s"] = json!(0);
    json!({
        "name": "ask_user_question",
        "arguments": args,
        "requestState": state,
        "inputResponses": {"askd_answer": reply}
    })
}

fn accept(label: &str) -> Value {
    json!({"action": "accept", "content": {"q": label}})
}

fn refused_state(r: &Value) {
    assert_eq!(r["isError"], true, "{r}");
    assert_eq!(error_code(r), "REQUEST_STATE_REFUSED", "{r}");
    assert!(
        r["content"][0]["text"]
            .as_str()
            .is_some_and(|t| t.contains("requestState")),
        "{r}"
    );
}

/// Item 4: the old unsigned state, a real state altered to name another ask or to say it
/// was sent at 0 (which would make an instant decline count as the human's), and garbage
/// are each refused with a tool error — not run as a new call, not waited on — and leave
/// every ask as it was; the state as issued still works.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn access_4_forged_request_state_is_refused() {
    let home = Home::new();
    let owner = home.adapter("owner-client", &[]).await;
    let call = owner.start_call("ask_user_question", questions(41)).await;
    let api = home.api();
    let victim = api.new_ask(&[]).await["id"].as_str().unwrap().to_string();
    let (a, _forms) = home
        .eliciting_adapter_as("claude-code", &[], json!({"form": {}}), true)
        .await;
    let (mine, state) = round(&a, &api, std::slice::from_ref(&victim), 42).await;

    // The old format, naming the other conversation's ask.
    let legacy = format!("askd1:{}", json!({"ask": victim, "sent": 0, "tries": 0}));
    let r = once(&a, retry(42, &legacy, accept("No"))).await;
    refused_state(&r);
    assert_eq!(api.ask(&victim).await["state"], "pending");
    // What the state holds is readable (signed, not encrypted): the ask and its session.
    let p = payload(&state);
    assert_eq!(p["ask"], mine.as_str(), "{p}");
    assert_eq!(p["session"], api.ask(&mine).await["session"], "{p}");
    // A real state altered to name that ask, and to an earlier `sent`.
    let other_ask = tampered(&state, |v| v["ask"] = json!(victim));
    let r = once(&a, retry(42, &other_ask, accept("No"))).await;
    refused_state(&r);
    let sent_0 = tampered(&state, |v| v["sent"] = json!(0));
    let r = once(&a, retry(42, &sent_0, json!({"action": "decline"}))).await;
    refused_state(&r);
    for garbage in ["", "rs1.AAAA.AAAA", "{\"ask\":\"x\"}"] {
        let r = once(&a, retry(42, garbage, accept("No"))).await;
        refused_state(&r);
    }
    assert_eq!(api.ask(&victim).await["state"], "pending");
    assert_eq!(
        api.ask(&mine).await["state"],
        "pending",
        "sent: 0 cancelled nothing"
    );
    // No retry ran as a new call: no new ask.
    assert_eq!(api.asks().await.len(), 2);

    // The state as issued: an instant decline is not the human's (the ask stays pending),
    // then an answer settles it from the form.
    let r = once(&a, retry(42, &state, json!({"action": "decline"}))).await;
    assert_eq!(structured(&r)["outcome"], "pending", "{r}");
    assert_eq!(api.ask(&mine).await["state"], "pending");
    let r = once(&a, retry(42, &state, accept("No"))).await;
    assert_eq!(structured(&r)["surface"], "client-form", "{r}");

    api.submit(
        &victim,
        json!({"answers": [{"id": "q", "selected": ["Yes (Recommended)"]}]}),
    )
    .await;
    assert_eq!(structured(&finish(call).await)["surface"], "page");
}

/// Item 4: two 2026-07-28 clients, both named `claude-code` (two `askd mcp` processes, and
/// two stateless clients of the daemon's `/mcp`), each with a form open: neither answers
/// the other's ask — not with a forged state, not with the other's own state replayed on
/// its connection — and each answers its own.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn access_4_two_claude_code_clients_do_not_answer_each_others_asks() {
    // The daemon's /mcp, stateless: two clients named claude-code. (Before issue 27 the
    // forged state below answered the first one's ask: a stateless request has no session,
    // so the client name was all that was compared.)
    use crate::common_daemon::TestServer;
    let s = TestServer::start().await;
    let caps = json!({"elicitation": {"form": {}}});
    let one = Stateless::of(&s, "claude-code", caps.clone());
    let two = Stateless::of(&s, "claude-code", caps);
    let mut args = questions(45);
    args["timeout_s"] = json!(0);
    let r = one.call("ask_user_question", args.clone()).await;
    assert_eq!(r["resultType"], "input_required", "{r}");
    let state = r["requestState"].as_str().unwrap().to_string();
    let listed = s.get("/api/asks?state=pending").await;
    let id = listed.body["asks"][0]["id"].as_str().unwrap().to_string();
    let forged = format!("askd1:{}", json!({"ask": id, "sent": 0, "tries": 0}));
    let r = two
        .rpc(
            "tools/call",
            json!({"name": "ask_user_question", "arguments": args, "requestState": forged,
                   "inputResponses": {"askd_answer": accept("No")}}),
        )
        .await;
    refused_state(&r);
    assert_eq!(s.ask(&id).await["state"], "pending");
    assert_eq!(payload(&state)["ask"], id.as_str());
    let mut other = questions(46);
    other["timeout_s"] = json!(0);
    let r2 = two.call("ask_user_question", other).await;
    let state2 = r2["requestState"].as_str().unwrap().to_string();
    let retargeted = tampered(&state2, |v| v["ask"] = json!(id));
    for st in [&forged, &retargeted] {
        let r = two
            .rpc(
                "tools/call",
                json!({"name": "ask_user_question", "arguments": args, "requestState": st,
                       "inputResponses": {"askd_answer": accept("No")}}),
            )
            .await;
        refused_state(&r);
    }
    assert_eq!(s.ask(&id).await["state"], "pending");
    let r = one
        .rpc(
            "tools/call",
            json!({"name": "ask_user_question", "arguments": args, "requestState": state,
                   "inputResponses": {"askd_answer": accept("Yes (Recommended)")}}),
        )
        .await;
    assert_eq!(r["structuredContent"]["surface"], "client-form", "{r}");

    // Two `askd mcp` processes, both claude-code (2026-07-28 over stdio).
    let home = Home::new();
    let (a, _fa) = home
        .eliciting_adapter_as("claude-code", &[], json!({"form": {}}), true)
        .await;
    let (b, _fb) = home
        .eliciting_adapter_as("claude-code", &[], json!({"form": {}}), true)
        .await;
    let api = home.api();
    let (ask_a, state_a) = round(&a, &api, &[], 43).await;
    let (ask_b, state_b) = round(&b, &api, std::slice::from_ref(&ask_a), 44).await;
    assert_ne!(
        api.ask(&ask_a).await["session"],
        api.ask(&ask_b).await["session"]
    );

    // B: a forged state for A's ask, its own retargeted, A's own replayed.
    let forged = format!("askd1:{}", json!({"ask": ask_a, "sent": 0, "tries": 0}));
    let r = once(&b, retry(44, &forged, accept("No"))).await;
    refused_state(&r);
    assert_eq!(api.ask(&ask_a).await["state"], "pending");
    let retargeted = tampered(&state_b, |v| {
        v["ask"] = json!(ask_a);
    });
    for s in [&forged, &retargeted, &state_a] {
        let r = once(&b, retry(44, s, accept("No"))).await;
        refused_state(&r);
    }
    // And A on B's.
    let r = once(&a, retry(43, &state_b, accept("No"))).await;
    refused_state(&r);
    assert_eq!(api.ask(&ask_a).await["state"], "pending");
    assert_eq!(api.ask(&ask_b).await["state"], "pending");

    // Each answers its own.
    let r = once(&a, retry(43, &state_a, accept("Yes (Recommended)"))).await;
    assert_eq!(
        structured(&r)["answers"][0]["selected"],
        json!(["Yes (Recommended)"]),
        "{r}"
    );
    let r = once(&b, retry(44, &state_b, accept("No"))).await;
    assert_eq!(
        structured(&r)["answers"][0]["selected"],
        json!(["No"]),
        "{r}"
    );
}

/// Item 3, the key is the install's: a handle an `askd mcp` adapter gave its app opens the
/// ask after that adapter is killed — on a new adapter and on the daemon's own `/mcp`
/// (stateless) — because both read the data directory's `signing.key` (mode 0600), which
/// no result ever carries.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn access_3_the_handle_outlives_its_adapter_on_the_same_install() {
    let home = Home::new();
    let first = apps_adapter(&home, "apps-host", false).await;
    let (id, result) = app_ask(&first, 36).await;
    let handle = handle_of(&result, &id);
    first.kill();
    let key = home.path().join("signing.key");
    let text = std::fs::read_to_string(&key).expect("the install's signing key");
    assert_eq!(text.trim().len(), 64);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&key).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
    }
    assert!(!handle.contains(text.trim()));
    let path = format!("/api/asks/{id}");
    let again = apps_adapter(&home, "apps-host", false).await;
    let r = app(&again, "GET", &path, None, None).await;
    assert_eq!(
        error_code(&r),
        "APP_ENDPOINT_REFUSED",
        "no handle, not its ask: {r}"
    );
    let r = app(&again, "GET", &path, Some(&handle), None).await;
    assert_eq!(structured(&r)["status"], 200, "{r}");
    let d = home.daemon().unwrap();
    let web = Stateless::at(&d.url, &d.token, "apps-web-host", apps_caps());
    let r = web.app("GET", &path, Some(&handle), json!({})).await;
    assert_eq!(r["structuredContent"]["status"], 200, "{r}");
    let r = web.app("GET", &path, None, json!({})).await;
    assert_eq!(error_code(&r), "APP_ENDPOINT_REFUSED", "{r}");
}

/// Item 4, a remote adapter (`askd mcp --url … --token-file …`): it has no data directory of
/// that install and writes no key in its own home; it signs with a key derived from the
/// token it holds, accepts its own state back and refuses a forged one.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn access_4_a_remote_adapter_signs_and_checks_its_own_state() {
    let team = Home::new();
    let _local = team.adapter("team-box", &[]).await;
    let daemon = team.daemon().expect("the team daemon runs");
    let agent = Home::new();
    let file = agent.path().join("askd-team.token");
    std::fs::write(&file, format!("{}\n", daemon.token)).unwrap();
    let file = file.to_string_lossy().into_owned();
    let cmd = agent.command(
        env!("CARGO_BIN_EXE_askd"),
        &["mcp", "--url", &daemon.url, "--token-file", &file],
        &[],
    );
    let (tx, _forms) = tokio::sync::mpsc::unbounded_channel();
    let a = Adapter::spawn_full(cmd, "claude-code", Some((tx, json!({"form": {}}))), true).await;
    let api = team.api();
    let (id, state) = round(&a, &api, &[], 47).await;
    let forged = tampered(&state, |v| v["tries"] = json!(0));
    let forged = tampered(&forged, |v| v["sent"] = json!(0));
    let r = once(&a, retry(47, &forged, json!({"action": "decline"}))).await;
    refused_state(&r);
    assert_eq!(api.ask(&id).await["state"], "pending");
    let r = once(&a, retry(47, &state, accept("No"))).await;
    assert_eq!(structured(&r)["surface"], "client-form", "{r}");
    assert!(!agent.path().join("signing.key").exists());
}

/// Item 6: `await_answer` with `timeout_s` `"abc"` or `-5`, and an MRTR retry carrying
/// them, answer at once with the error the ask tools give (`timeout_s`, `timeout_s_type`,
/// the fix), and wait on nothing; `ask_survey`, `survey_draft_launch` and `report_drift`
/// (which waited forever too) refuse them before anything is asked.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn access_6_await_answer_rejects_bad_timeout() {
    let home = Home::new();
    let a = home.adapter("plain-client", &[]).await;
    let mut args = questions(61);
    args["timeout_s"] = json!(0);
    let r = a.call("ask_user_question", args).await;
    let id = structured(&r)["ask_id"].as_str().unwrap().to_string();

    // The ask tools' own refusal, for comparison.
    let mut bad = questions(62);
    bad["timeout_s"] = json!("abc");
    let asked = a.call("ask_user_question", bad).await;
    let their = &asked["structuredContent"]["error"]["errors"][0];
    assert_eq!(their["path"], "timeout_s", "{asked}");

    for t in [json!("abc"), json!(-5), json!({"s": 1})] {
        let started = std::time::Instant::now();
        let r = tokio::time::timeout(
            Duration::from_secs(10),
            a.call("await_answer", json!({"ask_id": id, "timeout_s": t})),
        )
        .await
        .unwrap_or_else(|_| panic!("await_answer with timeout_s {t} waited instead of refusing"));
        assert!(started.elapsed() < Duration::from_secs(5));
        assert_eq!(r["isError"], true, "{t}: {r}");
        let e = &r["structuredContent"]["error"];
        assert_eq!(e["code"], "INVALID_ARGUMENTS", "{r}");
        let p = &e["errors"][0];
        assert_eq!(p["path"], "timeout_s", "{r}");
        assert_eq!(p["code"], their["code"], "the ask tools' code: {r}");
        let text = r["content"][0]["text"].as_str().unwrap();
        assert!(text.starts_with("timeout_s must be"), "{text}");
        assert!(text.contains("omit it"), "names the fix: {text}");
    }
    // A fraction of a second is a budget, as the schema says.
    let r = a
        .call("await_answer", json!({"ask_id": id, "timeout_s": 0.2}))
        .await;
    assert_eq!(structured(&r)["outcome"], "pending", "{r}");

    // ask_survey, before anything is recorded.
    let before = home.api().asks().await.len();
    let survey = json!({"entry": "q1", "questions": {"q1": {"prompt": "Which way?"}}});
    for t in [json!("abc"), json!(-5)] {
        let r = tokio::time::timeout(
            Duration::from_secs(10),
            a.call("ask_survey", json!({"survey": survey, "timeout_s": t})),
        )
        .await
        .unwrap_or_else(|_| panic!("ask_survey with timeout_s {t} waited"));
        assert_eq!(
            r["structuredContent"]["error"]["errors"][0]["path"], "timeout_s",
            "{r}"
        );
    }
    // survey_draft_launch and report_drift, likewise (before the draft or the drift).
    let drift = json!({"reason": "scope-expansion", "description": "The plan grew.",
        "required_change": "Add a second service.", "timeout_s": "abc"});
    for (tool, args) in [
        ("survey_draft_launch", json!({"timeout_s": -5})),
        ("report_drift", drift),
    ] {
        let r = tokio::time::timeout(Duration::from_secs(10), a.call(tool, args))
            .await
            .unwrap_or_else(|_| panic!("{tool} with a bad timeout_s waited"));
        let e = &r["structuredContent"]["error"];
        assert_eq!(e["errors"][0]["path"], "timeout_s", "{tool}: {r}");
        assert_eq!(e["errors"][0]["code"], "timeout_s_type", "{tool}: {r}");
    }
    assert_eq!(home.api().asks().await.len(), before);

    // An MRTR retry (2026-07-28) carrying them: refused at once, its reply not applied.
    let (b, _forms) = home
        .eliciting_adapter_as("claude-code", &[], json!({"form": {}}), true)
        .await;
    let api = home.api();
    let known: Vec<String> = api
        .asks()
        .await
        .iter()
        .map(|a| a["id"].as_str().unwrap().to_string())
        .collect();
    let (mine, state) = round(&b, &api, &known, 63).await;
    for t in [json!("abc"), json!(-5)] {
        let mut p = retry(63, &state, accept("No"));
        p["arguments"]["timeout_s"] = t.clone();
        let r = once(&b, p).await;
        assert_eq!(r["isError"], true, "{t}: {r}");
        assert_eq!(
            r["structuredContent"]["error"]["errors"][0]["path"], "timeout_s",
            "{r}"
        );
        let mut p = retry(63, &state, json!({"action": "cancel"}));
        p["arguments"]["timeout_s"] = t.clone();
        let r = once(&b, p).await;
        assert_eq!(r["isError"], true, "a retry that would only wait: {t}: {r}");
    }
    assert_eq!(
        api.ask(&mine).await["state"],
        "pending",
        "the reply was not applied"
    );
}

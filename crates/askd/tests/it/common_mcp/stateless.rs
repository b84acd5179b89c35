//! A stateless 2026-07-28 client of a daemon's `/mcp`, spoken to with raw JSON-RPC over
//! HTTP (the access tests, the task tests).

use serde_json::{Value, json};

/// One stateless 2026-07-28 client of a daemon's `/mcp` (its URL and token): every request
/// carries its clientInfo name and capabilities in `_meta`, as Claude Code's do.
pub struct Stateless<'a> {
    url: String,
    token: String,
    name: &'a str,
    caps: Value,
}

impl<'a> Stateless<'a> {
    pub fn of(s: &crate::common_daemon::TestServer, name: &'a str, caps: Value) -> Self {
        Self::at(&s.url, &s.token, name, caps)
    }

    /// A client of the daemon at `url` with `token`.
    pub fn at(url: &str, token: &str, name: &'a str, caps: Value) -> Self {
        Stateless {
            url: url.to_string(),
            token: token.to_string(),
            name,
            caps,
        }
    }

    /// The JSON-RPC `result` of one request (`params._meta` gets the client's own keys).
    pub async fn rpc(&self, method: &str, mut params: Value) -> Value {
        use reqwest::Method;
        let meta = params
            .as_object_mut()
            .unwrap()
            .entry("_meta")
            .or_insert_with(|| json!({}));
        meta["io.modelcontextprotocol/protocolVersion"] = json!("2026-07-28");
        meta["io.modelcontextprotocol/clientCapabilities"] = self.caps.clone();
        meta["io.modelcontextprotocol/clientInfo"] = json!({"name": self.name, "version": "1.0.0"});
        let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
        let mut rb = crate::common_daemon::client()
            .request(Method::POST, format!("{}/mcp", self.url))
            .bearer_auth(&self.token)
            .header("Accept", "application/json, text/event-stream")
            .header("Content-Type", "application/json")
            .header("MCP-Protocol-Version", "2026-07-28")
            .header("Mcp-Method", method);
        // `Mcp-Name`: a tool's name, a task's id (2026-07-28 requires both).
        let named = params.get("name").or_else(|| params.get("taskId"));
        if let Some(name) = named.and_then(Value::as_str) {
            rb = rb.header("Mcp-Name", name);
        }
        let r = rb.body(body.to_string()).send().await.expect("POST /mcp");
        let status = r.status().as_u16();
        let all = r.text().await.unwrap_or_default();
        assert_eq!(status, 200, "{all}");
        let text = all
            .lines()
            .find_map(|l| l.strip_prefix("data: "))
            .unwrap_or(&all);
        let msg: Value = serde_json::from_str(text).unwrap_or_else(|e| panic!("{e}: {all}"));
        match msg.get("result") {
            Some(r) => r.clone(),
            None => json!({"error": msg["error"]}),
        }
    }

    /// The JSON-RPC `error` of one request that must fail.
    pub async fn error(&self, method: &str, params: Value) -> Value {
        let r = self.rpc(method, params).await;
        assert!(r.get("error").is_some(), "expected an error: {r}");
        r["error"].clone()
    }

    pub async fn call(&self, name: &str, arguments: Value) -> Value {
        self.rpc("tools/call", json!({"name": name, "arguments": arguments}))
            .await
    }
}

//! Every ask as an MCP App (issue 20; MCP Apps, `io.modelcontextprotocol/ui`, 2026-01-26).
//! A client that declares the extension with `text/html;profile=mcp-app` sees the ask
//! tools linked to [`RESOURCE_URI`] (`_meta.ui.resourceUri`), can read that resource (the
//! document of [`crate::app_html`]) and gets one app-only tool, [`APP_TOOL`]
//! (`_meta.ui.visibility: ["app"]`), through which the app reaches exactly the daemon
//! endpoints an ask's page uses ([`UiCall::parse`]), for an ask the conversation asked: the
//! ask tool's result carries the ask's signed handle in `_meta["askd/app"]` ([`META_KEY`],
//! `crate::seal`), which the app sends back as `handle`. Clients without it see none of
//! this.

use std::sync::Arc;

use rmcp::model::{MetaObject, Tool, ToolAnnotations};
use serde_json::{Value, json};

use crate::backend::ToolError;
use crate::tools;

/// The extension's identifier in `capabilities.extensions`.
pub const EXTENSION: &str = "io.modelcontextprotocol/ui";
/// The MIME type of an MCP App's HTML resource.
pub const MIME_TYPE: &str = "text/html;profile=mcp-app";
/// The one app every ask kind renders in.
pub const RESOURCE_URI: &str = "ui://askd/ask.html";
/// The app-only proxy tool onto the ask endpoints.
pub const APP_TOOL: &str = "askd_app";
/// The key of an ask tool's result `_meta` that gives the app its ask:
/// `{"ask_id", "handle"}`, the handle signed by askd (`crate::seal::AppHandle`).
pub const META_KEY: &str = "askd/app";

/// The ask tools that carry `_meta.ui.resourceUri`.
pub const ASK_TOOLS: [&str; 5] = [
    tools::ASK_USER_QUESTION,
    tools::ASK_SURVEY,
    tools::BATCH_REVIEW,
    tools::REPORT_DRIFT,
    tools::SURVEY_DRAFT_LAUNCH,
];

/// Whether a client's capabilities object (`initialize`'s, or the 2026-07-28 per-request
/// `_meta["io.modelcontextprotocol/clientCapabilities"]`) declares MCP Apps with the HTML
/// profile.
pub fn declared(capabilities: &Value) -> bool {
    capabilities
        .get("extensions")
        .and_then(|e| e.get(EXTENSION))
        .and_then(|u| u.get("mimeTypes"))
        .and_then(Value::as_array)
        .is_some_and(|m| m.iter().any(|t| t.as_str() == Some(MIME_TYPE)))
}

/// `_meta.ui` of the resource (and of its contents): no network at all (empty CSP
/// domain lists), a border from the host.
pub fn resource_meta() -> MetaObject {
    let Value::Object(m) = json!({
        "ui": {
            "csp": {"connectDomains": [], "resourceDomains": [], "frameDomains": [], "baseUriDomains": []},
            "prefersBorder": true
        }
    }) else {
        unreachable!()
    };
    MetaObject(m)
}

/// Links the ask tools to the app and adds the app-only tool.
pub fn decorate(tools: &mut Vec<Tool>) {
    for t in tools.iter_mut() {
        if ASK_TOOLS.contains(&t.name.as_ref()) {
            let meta = t.meta.get_or_insert_with(MetaObject::default);
            meta.insert("ui".into(), json!({"resourceUri": RESOURCE_URI}));
            // The key hosts read before `_meta.ui` (deprecated, still read by some).
            meta.insert("ui/resourceUri".into(), json!(RESOURCE_URI));
        }
    }
    tools.push(app_tool());
}

fn app_tool() -> Tool {
    let schema = json!({
        "type": "object",
        "properties": {
            "method": {"type": "string", "enum": ["GET", "POST", "PUT"]},
            "path": {"type": "string", "description": "/api/asks/{id}[/path|bank|submit|cancel|preflight|import|draft]"},
            "body": {"type": "object"},
            "handle": {"type": "string", "description": "The ask's handle: _meta[\"askd/app\"].handle of the ask tool's result."}
        },
        "required": ["method", "path"],
        "additionalProperties": false
    });
    let Value::Object(schema) = schema else {
        unreachable!()
    };
    let mut t = Tool::new(
        APP_TOOL,
        "askd's app only: an ask endpoint of the askd daemon.",
        Arc::new(schema),
    );
    t.annotations = Some(ToolAnnotations::new().open_world(false));
    let Value::Object(meta) = json!({"ui": {"resourceUri": RESOURCE_URI, "visibility": ["app"]}})
    else {
        unreachable!()
    };
    t.meta = Some(MetaObject(meta));
    t
}

/// What the app may do to an ask: exactly the page's calls (`ui/js/api.js`'s `ask.*`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Op {
    View,
    Path,
    Bank,
    Submit,
    Cancel,
    Preflight,
    Import,
    Autosave,
}

/// One whitelisted call: the operation and its ask.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UiCall {
    pub op: Op,
    pub ask_id: String,
}

impl UiCall {
    /// The HTTP method and the daemon path (the ask id as one path segment).
    pub fn method(&self) -> &'static str {
        match self.op {
            Op::View => "GET",
            Op::Autosave => "PUT",
            _ => "POST",
        }
    }

    pub fn path(&self) -> String {
        let id = askd_client::seg(&self.ask_id);
        match self.op {
            Op::View => format!("/api/asks/{id}"),
            Op::Path => format!("/api/asks/{id}/path"),
            Op::Bank => format!("/api/asks/{id}/bank"),
            Op::Submit => format!("/api/asks/{id}/submit"),
            Op::Cancel => format!("/api/asks/{id}/cancel"),
            Op::Preflight => format!("/api/asks/{id}/preflight"),
            Op::Import => format!("/api/asks/{id}/import"),
            Op::Autosave => format!("/api/asks/{id}/draft"),
        }
    }

    /// The call named by `method` and `path`, or the refusal naming what is allowed.
    // The tools' one error type, as every tool's refusal is.
    #[allow(clippy::result_large_err)]
    pub fn parse(method: &str, path: &str) -> Result<UiCall, ToolError> {
        let refuse = || {
            let mut e = ToolError::new(
                "APP_ENDPOINT_REFUSED",
                format!(
                    "{APP_TOOL} reaches only an ask's own endpoints: GET /api/asks/{{id}}, POST /api/asks/{{id}}/path|bank|submit|cancel|preflight|import, PUT /api/asks/{{id}}/draft — not {method} {path}"
                ),
            );
            e.errors = Some(json!([{"path": "path", "code": "not_allowed", "message": e.message}]));
            e
        };
        let rest = path.strip_prefix("/api/asks/").ok_or_else(refuse)?;
        let (id, op) = match rest.split_once('/') {
            Some((id, op)) => (id, Some(op)),
            None => (rest, None),
        };
        let id = decode(id).ok_or_else(refuse)?;
        if id.is_empty()
            || id.len() > 128
            || !id
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
        {
            return Err(refuse());
        }
        let op = match (method, op) {
            ("GET", None) => Op::View,
            ("POST", Some("path")) => Op::Path,
            ("POST", Some("bank")) => Op::Bank,
            ("POST", Some("submit")) => Op::Submit,
            ("POST", Some("cancel")) => Op::Cancel,
            ("POST", Some("preflight")) => Op::Preflight,
            ("POST", Some("import")) => Op::Import,
            ("PUT", Some("draft")) => Op::Autosave,
            _ => return Err(refuse()),
        };
        Ok(UiCall { op, ask_id: id })
    }
}

/// A percent-decoded path segment (as `encodeURIComponent` made it); `None` when malformed.
fn decode(s: &str) -> Option<String> {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = s.get(i + 1..i + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

/// The body the daemon gets: a submit from the app says `surface: "app"` (what the
/// human answered in), whatever the page's code put there.
pub fn body(call: &UiCall, body: Option<&Value>) -> Option<Value> {
    match call.op {
        Op::View => None,
        Op::Submit => {
            let mut b = body.cloned().unwrap_or_else(|| json!({}));
            if let Some(o) = b.as_object_mut() {
                o.insert("surface".into(), json!("app"));
            }
            Some(b)
        }
        _ => Some(body.cloned().unwrap_or_else(|| json!({}))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_ask_endpoints_pass() {
        let ok = UiCall::parse("POST", "/api/asks/a-1b2/submit").unwrap();
        assert_eq!(ok.op, Op::Submit);
        assert_eq!(ok.path(), "/api/asks/a-1b2/submit");
        assert_eq!(UiCall::parse("GET", "/api/asks/x").unwrap().op, Op::View);
        assert_eq!(
            UiCall::parse("PUT", "/api/asks/x/draft").unwrap().op,
            Op::Autosave
        );
        for (m, p) in [
            ("GET", "/api/settings"),
            ("POST", "/api/asks"),
            ("GET", "/api/asks/x/submit"),
            ("POST", "/api/asks/x/withdraw"),
            ("POST", "/api/asks/x/awaited"),
            ("POST", "/api/asks/x/../../settings"),
            ("POST", "/api/asks/x%2F..%2Fsettings/submit"),
            ("DELETE", "/api/asks/x"),
            ("GET", "/api/asks/x?y=1"),
        ] {
            let e = UiCall::parse(m, p).unwrap_err();
            assert_eq!(e.code, "APP_ENDPOINT_REFUSED", "{m} {p}");
        }
    }

    #[test]
    fn a_submit_from_the_app_says_app() {
        let call = UiCall::parse("POST", "/api/asks/x/submit").unwrap();
        let b = body(&call, Some(&json!({"answers": [], "surface": "card"}))).unwrap();
        assert_eq!(b["surface"], "app");
    }
}

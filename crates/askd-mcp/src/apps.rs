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
            "path": {"type": "string", "description": "/api/asks/{id}[/path|bank|submit|cancel|preflight|import|draft|watch], or /api/diagrams/{sha256}.svg?theme=light|dark&ask={id}"},
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

/// The longest a [`Op::Watch`] waits (a host's request timeout is commonly 60 s).
pub const WATCH_MAX_S: f64 = 25.0;

/// What the app may do to an ask: exactly the page's calls (`ui/js/api.js`'s `ask.*`), the
/// image of one of its diagrams, and `watch`.
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
    /// `GET /api/diagrams/{hash}.svg?theme=…&ask=…`: the SVG the page shows as an image
    /// (the daemon renders and sanitises it), carried as a string, since the frame has no
    /// network.
    Diagram {
        hash: String,
        theme: &'static str,
    },
    /// `POST /api/asks/{id}/watch` `{since?, timeout_s?}`: answered by the adapter, not the
    /// daemon — it returns as soon as the ask's view differs from `since` (a version it
    /// returned before) or after `timeout_s` (at most [`WATCH_MAX_S`]): `{changed, version,
    /// state}`. The app re-issues it in a loop instead of polling (an Apps host forwards no
    /// server notification into the frame).
    Watch,
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
            Op::View | Op::Diagram { .. } | Op::Watch => "GET",
            Op::Autosave => "PUT",
            _ => "POST",
        }
    }

    pub fn path(&self) -> String {
        let id = askd_client::seg(&self.ask_id);
        match &self.op {
            // The watch reads the ask's view.
            Op::View | Op::Watch => format!("/api/asks/{id}"),
            Op::Diagram { hash, theme } => {
                format!("/api/diagrams/{hash}.svg?theme={theme}&ask={id}")
            }
            Op::Path => format!("/api/asks/{id}/path"),
            Op::Bank => format!("/api/asks/{id}/bank"),
            Op::Submit => format!("/api/asks/{id}/submit"),
            Op::Cancel => format!("/api/asks/{id}/cancel"),
            Op::Preflight => format!("/api/asks/{id}/preflight"),
            Op::Import => format!("/api/asks/{id}/import"),
            Op::Autosave => format!("/api/asks/{id}/autosave"),
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
                    "{APP_TOOL} reaches only an ask's own endpoints: GET /api/asks/{{id}}, POST /api/asks/{{id}}/path|bank|submit|cancel|preflight|import|watch, PUT /api/asks/{{id}}/autosave (or its old name …/draft), GET /api/diagrams/{{sha256}}.svg?theme=light|dark&ask={{id}} — not {method} {path}"
                ),
            );
            e.errors = Some(json!([{"path": "path", "code": "not_allowed", "message": e.message}]));
            e
        };
        if let Some(rest) = path.strip_prefix("/api/diagrams/") {
            // Exactly what ui/js/diagram.js asks for: `{sha256}.svg?theme=…&ask=…`.
            let (file, query) = rest.split_once('?').ok_or_else(refuse)?;
            let hash = file
                .strip_suffix(".svg")
                .filter(|h| {
                    h.len() == 64 && h.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
                })
                .ok_or_else(refuse)?;
            let (theme, id) = query
                .strip_prefix("theme=")
                .and_then(|q| q.split_once("&ask="))
                .ok_or_else(refuse)?;
            let theme = match theme {
                "light" => "light",
                "dark" => "dark",
                _ => return Err(refuse()),
            };
            if method != "GET" {
                return Err(refuse());
            }
            let op = Op::Diagram {
                hash: hash.to_string(),
                theme,
            };
            return Ok(UiCall {
                op,
                ask_id: ask_id(id).ok_or_else(refuse)?,
            });
        }
        let rest = path.strip_prefix("/api/asks/").ok_or_else(refuse)?;
        let (id, op) = match rest.split_once('/') {
            Some((id, op)) => (id, Some(op)),
            None => (rest, None),
        };
        let id = ask_id(id).ok_or_else(refuse)?;
        let op = match (method, op) {
            ("GET", None) => Op::View,
            ("POST", Some("path")) => Op::Path,
            ("POST", Some("bank")) => Op::Bank,
            ("POST", Some("submit")) => Op::Submit,
            ("POST", Some("cancel")) => Op::Cancel,
            ("POST", Some("preflight")) => Op::Preflight,
            ("POST", Some("import")) => Op::Import,
            ("PUT", Some("autosave" | "draft")) => Op::Autosave,
            ("POST", Some("watch")) => Op::Watch,
            _ => return Err(refuse()),
        };
        Ok(UiCall { op, ask_id: id })
    }
}

/// An ask id as one percent-encoded path segment or query value: decoded, and only of the
/// characters ask ids have.
fn ask_id(s: &str) -> Option<String> {
    let id = decode(s)?;
    let ok = !id.is_empty()
        && id.len() <= 128
        && id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
    ok.then_some(id)
}

/// A watch's arguments (`{since?, timeout_s?}`): the version the app has (none: answer at
/// once with the current one) and how long to wait, within [`WATCH_MAX_S`].
pub fn watch_args(body: Option<&Value>) -> (Option<String>, std::time::Duration) {
    let since = body
        .and_then(|b| b.get("since"))
        .and_then(Value::as_str)
        .map(str::to_string);
    let secs = body
        .and_then(|b| b.get("timeout_s"))
        .and_then(Value::as_f64)
        .filter(|t| t.is_finite() && *t >= 0.0)
        .unwrap_or(WATCH_MAX_S)
        .min(WATCH_MAX_S);
    (since, std::time::Duration::from_secs_f64(secs))
}

/// The version of an ask's view (status and body): a change of state, claim, draft or
/// banked answers changes it; reading the same view twice gives the same version.
pub fn version(status: u16, body: &Value) -> String {
    use sha2::Digest;
    let digest = sha2::Sha256::digest(format!("{status}\u{0}{body}").as_bytes());
    digest[..12].iter().map(|b| format!("{b:02x}")).collect()
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
        Op::View | Op::Diagram { .. } | Op::Watch => None,
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
            ("GET", "/api/asks/x/watch"),
            ("GET", "/api/diagrams/abc.svg?theme=light&ask=x"),
            ("GET", "/api/diagrams/../settings"),
        ] {
            let e = UiCall::parse(m, p).unwrap_err();
            assert_eq!(e.code, "APP_ENDPOINT_REFUSED", "{m} {p}");
        }
        let h = "a".repeat(64);
        for (m, q) in [
            ("POST", "?theme=light&ask=x"),
            ("GET", "?theme=blue&ask=x"),
            ("GET", "?ask=x&theme=dark"),
            ("GET", "?theme=dark&ask=x%2F.."),
            ("GET", ""),
        ] {
            let p = format!("/api/diagrams/{h}.svg{q}");
            let e = UiCall::parse(m, &p).unwrap_err();
            assert_eq!(e.code, "APP_ENDPOINT_REFUSED", "{m} {p}");
        }
    }

    #[test]
    fn a_diagram_and_a_watch_pass_for_their_ask() {
        let hash = "0123456789abcdef".repeat(4);
        let d = UiCall::parse(
            "GET",
            &format!("/api/diagrams/{hash}.svg?theme=dark&ask=a-1"),
        )
        .unwrap();
        assert_eq!(d.ask_id, "a-1");
        assert_eq!(d.method(), "GET");
        assert_eq!(
            d.path(),
            format!("/api/diagrams/{hash}.svg?theme=dark&ask=a-1")
        );
        let w = UiCall::parse("POST", "/api/asks/a-1/watch").unwrap();
        assert_eq!(w.op, Op::Watch);
        assert_eq!(w.path(), "/api/asks/a-1");
        assert_eq!(body(&w, Some(&json!({"since": "x"}))), None);
        let (since, wait) = watch_args(Some(&json!({"since": "v1", "timeout_s": 600})));
        assert_eq!(since.as_deref(), Some("v1"));
        assert_eq!(wait.as_secs_f64(), WATCH_MAX_S);
        assert_eq!(
            watch_args(None),
            (None, std::time::Duration::from_secs_f64(WATCH_MAX_S))
        );
        assert_eq!(
            version(200, &json!({"a": 1})),
            version(200, &json!({"a": 1}))
        );
        assert_ne!(
            version(200, &json!({"a": 1})),
            version(200, &json!({"a": 2}))
        );
    }

    #[test]
    fn a_submit_from_the_app_says_app() {
        let call = UiCall::parse("POST", "/api/asks/x/submit").unwrap();
        let b = body(&call, Some(&json!({"answers": [], "surface": "card"}))).unwrap();
        assert_eq!(b["surface"], "app");
    }
}

//! `/mcp`: askd's tools over MCP streamable HTTP, served by the daemon's process (behind
//! the same fence as every route). The daemon knows nothing of MCP: the binary composes the
//! daemon's router with this service ([`mount`], through `askd_daemon::router_with`) and
//! provides the in-process [`Backend`], whose tools call the daemon's ask service directly.
//!
//! [`body_rules`] stands in front of rmcp's service: a POST body passes `/api`'s rules
//! ([`JsonBody`]: 415 → 413 against the live `maxBodyBytes`, from `Content-Length` before
//! any body is read → 400) and must be one JSON-RPC message (400), in the one JSON error
//! shape; rmcp's own plain-text errors (406, 404, 405…) are rewritten into that shape.

use std::sync::Arc;
use std::time::Duration;

use askd_core::json::Json;
use askd_daemon::Daemon;
use askd_daemon::Settings;
use askd_daemon::access::{Allow, Principal};
use askd_daemon::error::ApiError;
use askd_daemon::http::extract::JsonBody;
use askd_daemon::http::routes::Routes;
use askd_daemon::kinds::CreateAsk;
use askd_daemon::server::Running;
use askd_mcp::backend::{Backend, CreatedAsk, DraftLaunch, SessionOpen, ToolError};
use askd_mcp::{AskdServer, Options};
use askd_store::RecordFilter;
use async_trait::async_trait;
use axum::body::Body;
use axum::extract::{FromRequest, Request, State};
use axum::http::{Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use serde_json::Value;

/// The daemon's process serving the MCP tools itself: every call goes to its service, as
/// the principal the fence resolved for the request that opened this MCP connection (or,
/// stateless, made this request): an agent token's answers in its client's forms are
/// recorded as the agent's, as they are through the HTTP API.
struct InProcess(Arc<Daemon>, Option<Principal>);

impl InProcess {
    /// Runs `f` as this connection's principal.
    async fn run<F: std::future::Future>(&self, f: F) -> F::Output {
        match &self.1 {
            Some(who) => askd_daemon::fence::scope(who.clone(), f).await,
            None => f.await,
        }
    }
}

/// A daemon refusal as a tool error, mapped like the HTTP backend's
/// ([`ToolError::from_api`]).
fn tool_error(e: ApiError, ask_id: Option<&str>) -> ToolError {
    let api = askd_client::ApiError {
        status: e.status.as_u16(),
        code: e.code,
        message: e.message,
        errors: e.errors.map(|p| serde_json::json!(p)),
    };
    ToolError::from_api(api, ask_id)
}

/// Who may reach `/mcp`: the install's token and agent tokens (a person's browser login or a
/// phone does not speak MCP).
pub const ACCESS: Allow = Allow::AGENTS;

/// The whole access table of `askd serve`: the daemon's routes and `/mcp` (`docs/api.md`
/// shows it; a test holds the two together).
pub fn access_table() -> askd_daemon::access::Table {
    let mut table = askd_daemon::http::routes::routes().table().clone();
    table.push(None, "/mcp", ACCESS);
    table
}

/// `/mcp` (the body rules, then rmcp's service), for the daemon to serve beside its own
/// routes behind its fence (`askd_daemon::server::start_with`).
pub fn mount(daemon: &Arc<Daemon>) -> Routes {
    Routes::new().nest_service(
        "/mcp",
        ACCESS,
        tower::Layer::layer(
            &axum::middleware::from_fn_with_state(daemon.clone(), body_rules),
            service(
                daemon.clone(),
                Options {
                    max_wait: daemon.settings.max_wait,
                    language: daemon.settings.language,
                    alignment_mode: daemon.settings.alignment_mode,
                    alignment_section: daemon.settings.alignment_section.clone(),
                    transport: "http",
                    // Answering in the client (clients.md §3), as over stdio; URL
                    // elicitation sends the plain page URL (a client here may be on another
                    // machine, through publicUrl: no token goes into a link).
                    elicitation: askd_mcp::Elicitation::parse(daemon.settings.elicitation.as_str())
                        .unwrap_or_default(),
                    // The install's signing key (`askd_mcp::seal`), the one `askd mcp` reads too.
                    seal: Arc::new(askd_mcp::Seal::of_install(&daemon.settings.data_dir)),
                    ..Default::default()
                },
            ),
        ),
    )
}

/// Starts the daemon in this process with `/mcp` mounted (tests use this in-process).
pub async fn start(cfg: Settings) -> Result<Running, String> {
    askd_daemon::server::start_with(cfg, mount).await
}

/// `askd serve`: the daemon with `/mcp`, until SIGTERM, SIGINT or idle exit.
pub async fn serve(cfg: Settings) -> Result<(), String> {
    askd_daemon::server::serve_with(cfg, mount).await
}

#[async_trait]
impl Backend for InProcess {
    async fn open_session(&self, open: &SessionOpen) -> Result<String, ToolError> {
        let req = askd_daemon::alignment::SessionRequest {
            id: open.id.clone(),
            client: open.client.clone(),
            workspace: open.workspace.clone(),
            transport: Some(open.transport.clone()),
            attach: open.attach,
            must_exist: open.must_exist,
            fork: open.fork.clone(),
        };
        self.0
            .alignment()
            .record_session(req)
            .await
            .map(|v| v["session"]["id"].as_str().unwrap_or_default().to_string())
            .map_err(|e| tool_error(e, None))
    }

    async fn check(&self, kind: &str, args: &Value) -> Result<(), ToolError> {
        self.0
            .check(kind, Json::from_value(args))
            .map_err(|e| tool_error(e, None))
    }

    async fn create(
        &self,
        session: &str,
        kind: &str,
        args: &Value,
        replaces: Option<&str>,
    ) -> Result<CreatedAsk, ToolError> {
        let created = self
            .0
            .create(CreateAsk {
                kind,
                session_id: Some(session),
                args: Json::from_value(args),
                replaces,
                return_undelivered: true,
            })
            .await
            .map_err(|e| tool_error(e, None))?;
        Ok(CreatedAsk {
            url: self.0.ask_url(&created.ask.id),
            ask_id: created.ask.id,
            created: created.created,
        })
    }

    async fn wait(&self, ask_id: &str, timeout: Duration) -> Result<Value, ToolError> {
        self.0
            .wait(ask_id, Some(timeout))
            .await
            .map_err(|e| tool_error(e, Some(ask_id)))
    }

    async fn ask(&self, ask_id: &str) -> Result<Value, ToolError> {
        let ask = self
            .0
            .load(ask_id)
            .await
            .map_err(|e| tool_error(e, Some(ask_id)))?;
        self.0.view(&ask).map_err(|e| tool_error(e, Some(ask_id)))
    }

    async fn session_asks(&self, session: &str) -> Result<Vec<Value>, ToolError> {
        let asks = self
            .0
            .store
            .asks(&askd_store::AskFilter {
                session_id: Some(session.to_string()),
                limit: Some(askd_daemon::http::asks::LIST_DEFAULT),
                ..Default::default()
            })
            .await
            .map_err(|e| tool_error(ApiError::store(e, "-"), None))?;
        Ok(asks
            .into_iter()
            .map(|a| {
                let url = self.0.ask_url(&a.id);
                let mut v = serde_json::json!(a);
                v["url"] = serde_json::json!(url);
                v
            })
            .collect())
    }

    async fn set_awaited(&self, ask_id: &str, awaited: bool) -> Result<(), ToolError> {
        self.0
            .store
            .set_awaited(ask_id, awaited)
            .await
            .map_err(|e| tool_error(ApiError::store(e, ask_id), Some(ask_id)))
    }

    async fn withdraw(&self, ask_id: &str, reason: Option<&str>) -> Result<Value, ToolError> {
        self.run(self.0.withdraw(ask_id, reason))
            .await
            .map_err(|e| tool_error(e, Some(ask_id)))
    }

    async fn submit(&self, ask_id: &str, body: &Value) -> Result<Value, ToolError> {
        self.run(self.0.submit(ask_id, &Json::from_value(body), None))
            .await
            .map_err(|e| tool_error(e, Some(ask_id)))
    }

    /// The MCP App's call, through the daemon's own ask routes (the same handlers the page
    /// reaches; the fence already admitted the `/mcp` request this call came in).
    async fn ui(
        &self,
        method: &str,
        path: &str,
        body: Option<&Value>,
    ) -> Result<(u16, Value), ToolError> {
        use tower::ServiceExt;
        let method = Method::from_bytes(method.as_bytes())
            .map_err(|_| ToolError::new("APP_ENDPOINT_REFUSED", "an HTTP method"))?;
        let mut req = Request::builder().method(method).uri(path);
        let body = match body {
            Some(b) => {
                req = req.header(header::CONTENT_TYPE, "application/json");
                Body::from(b.to_string())
            }
            None => Body::empty(),
        };
        let req = req
            .body(body)
            .map_err(|e| ToolError::new("APP_ENDPOINT_REFUSED", e.to_string()))?;
        let routes = askd_daemon::http::routes::routes()
            .into_router()
            .with_state(self.0.clone());
        let resp = self
            .run(routes.oneshot(req))
            .await
            .map_err(|e| ToolError::unavailable(e.to_string()))?;
        let status = resp.status().as_u16();
        let bytes = axum::body::to_bytes(resp.into_body(), usize::MAX)
            .await
            .map_err(|e| ToolError::unavailable(e.to_string()))?;
        // A diagram is an SVG, not JSON: its text is the body.
        let body = serde_json::from_slice(&bytes).unwrap_or_else(|_| match bytes.is_empty() {
            true => Value::Null,
            false => Value::String(String::from_utf8_lossy(&bytes).into_owned()),
        });
        Ok((status, body))
    }

    async fn bank(&self, ask_id: &str, body: &Value) -> Result<(), ToolError> {
        self.run(self.0.bank(ask_id, &Json::from_value(body)))
            .await
            .map(|_| ())
            .map_err(|e| tool_error(e, Some(ask_id)))
    }

    async fn path(&self, ask_id: &str, body: &Value) -> Result<Vec<String>, ToolError> {
        let ask = self
            .0
            .load(ask_id)
            .await
            .map_err(|e| tool_error(e, Some(ask_id)))?;
        self.0
            .path(&ask, &Json::from_value(body))
            .map_err(|e| tool_error(e, Some(ask_id)))
    }

    async fn cancel(&self, ask_id: &str) -> Result<(), ToolError> {
        self.run(self.0.cancel(ask_id))
            .await
            .map(|_| ())
            .map_err(|e| tool_error(e, Some(ask_id)))
    }

    async fn draft_set(&self, session: &str, args: &Value) -> Result<Value, ToolError> {
        self.0
            .builder()
            .set(session, args)
            .await
            .map_err(|e| tool_error(e, None))
    }

    async fn draft_get(&self, session: &str, args: &Value) -> Result<Value, ToolError> {
        self.0
            .builder()
            .get(session, args)
            .await
            .map_err(|e| tool_error(e, None))
    }

    async fn draft_launch(&self, session: &str, args: &Value) -> Result<DraftLaunch, ToolError> {
        let l = self
            .0
            .builder()
            .launch(session, args)
            .await
            .map_err(|e| tool_error(e, None))?;
        Ok(DraftLaunch {
            ask_id: l.ask_id,
            url: l.url,
            created: l.created,
            draft: l.slug,
        })
    }

    async fn alignment(&self, session: &str, op: &str, body: &Value) -> Result<Value, ToolError> {
        let Some(op) = askd_core::AlignOp::parse(op) else {
            return Err(ToolError::new(
                "not-found",
                format!("alignment operation {op:?} not found"),
            ));
        };
        let mut req = askd_daemon::alignment::OpRequest::from_value(body);
        // An agent token's operations are the agent's, whatever the body says.
        if let Some(p @ Principal::Agent { .. }) = &self.1 {
            req.actor = Some(p.actor());
        }
        self.run(self.0.alignment_op(session, op, req))
            .await
            .map_err(|e| tool_error(e, None))
    }

    async fn desk_open(&self) -> bool {
        self.0.desk.load(std::sync::atomic::Ordering::Relaxed) > 0
    }

    async fn saved_elicitation(&self) -> Option<String> {
        let saved = self.0.store.settings().await.ok()?;
        askd_daemon::settings::saved_elicitation(&saved).map(|e| e.as_str().to_string())
    }

    async fn records(&self, kind: &str) -> Result<Vec<Value>, ToolError> {
        let records = self
            .0
            .store
            .records(&RecordFilter {
                kind: Some(kind.to_string()),
                ..Default::default()
            })
            .await
            .map_err(|e| tool_error(ApiError::store(e, "-"), None))?;
        Ok(records.into_iter().map(|r| r.record).collect())
    }
}

/// The `/mcp` service: one [`AskdServer`] per MCP session.
pub fn service(
    daemon: Arc<Daemon>,
    options: Options,
) -> StreamableHttpService<AskdServer, LocalSessionManager> {
    // The fence has already checked Host, Origin and the token; rmcp's own Host check must
    // accept the same names.
    let mut config = StreamableHttpServerConfig::default();
    config
        .allowed_hosts
        .extend(daemon.settings.allowed_hosts.iter().cloned());
    // [`body_rules`] has already held the body to `maxBodyBytes` (a live setting); rmcp's
    // fixed 4 MiB must not refuse what the daemon accepts.
    config.max_request_body_bytes = usize::MAX;
    let options = Arc::new(options);
    StreamableHttpService::new(
        // Called in the task of the request that opens the connection (or, stateless, of
        // each request), inside the fence's scope: the principal is the caller's.
        move || {
            let backend: Arc<dyn Backend> =
                Arc::new(InProcess(daemon.clone(), askd_daemon::fence::caller()));
            Ok(AskdServer::new(backend, options.clone()))
        },
        Default::default(),
        config,
    )
}

/// The body rules of `/api` for `POST /mcp`, then rmcp; every error answer in the one JSON
/// error shape.
pub async fn body_rules(State(d): State<Arc<Daemon>>, req: Request, next: Next) -> Response {
    if req.method() != Method::POST {
        return json_errors(next.run(req).await).await;
    }
    let (parts, body) = req.into_parts();
    let checked = match JsonBody::from_request(Request::from_parts(parts.clone(), body), &d).await {
        Ok(b) => b,
        Err(e) => return e.into_response(),
    };
    if let Err(e) = checked.parse() {
        return e.into_response();
    }
    let message = match serde_json::from_slice::<rmcp::model::ClientJsonRpcMessage>(checked.bytes())
    {
        Ok(m) => m,
        Err(e) => {
            return ApiError::new(
                StatusCode::BAD_REQUEST,
                "invalid-request",
                format!("the body is JSON but not one JSON-RPC 2.0 message: {e}"),
            )
            .into_response();
        }
    };
    // The 2025-11-25 task requests under askd's method names, and the two answers that
    // carry what rmcp's types cannot (`askd_mcp::tasks`). Only a `tools/call` body is read
    // again, for its `params.task`.
    let method = match &message {
        rmcp::model::ClientJsonRpcMessage::Request(r) => r.request.method().to_string(),
        _ => String::new(),
    };
    drop(message);
    let has_task = method == "tools/call" && askd_mcp::tasks::has_task(checked.bytes());
    let mut body = checked.bytes().clone();
    if askd_mcp::tasks::may_rename(&method, has_task)
        && let Ok(mut value) = serde_json::from_slice::<Value>(&body)
        && askd_mcp::tasks::legacy_inbound(&mut value)
        && let Ok(renamed) = serde_json::to_vec(&value)
    {
        body = renamed.into();
    }
    let patch: Option<fn(&mut Value)> = match method.as_str() {
        "initialize" => Some(askd_mcp::tasks::patch_initialize),
        "tools/list" => Some(askd_mcp::tasks::patch_tools),
        _ => None,
    };
    let req = Request::from_parts(parts, Body::from(body));
    let resp = json_errors(next.run(req).await).await;
    match patch {
        Some(patch) => patch_result(resp, patch).await,
        None => resp,
    }
}

/// The longest answer [`patch_result`] reads (a tool list is ~100 KB).
const PATCHED_MAX: usize = 8 * 1024 * 1024;

/// rmcp's answer to `initialize` or `tools/list` with `patch` applied to its `result`: a
/// JSON body, or the `data:` of an event stream's message (the stream of one POST ends
/// with its answer). Anything else passes unchanged.
async fn patch_result(resp: Response, patch: fn(&mut Value)) -> Response {
    let content_type = resp
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .map(str::to_ascii_lowercase)
        .unwrap_or_default();
    let sse = content_type.starts_with("text/event-stream");
    if !resp.status().is_success() || !(sse || content_type.starts_with("application/json")) {
        return resp;
    }
    let (mut parts, body) = resp.into_parts();
    let Ok(bytes) = axum::body::to_bytes(body, PATCHED_MAX).await else {
        return ApiError::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            "internal",
            "the MCP answer could not be read",
        )
        .into_response();
    };
    let one = |text: &str| -> Option<String> {
        let mut v: Value = serde_json::from_str(text).ok()?;
        patch(v.get_mut("result")?);
        serde_json::to_string(&v).ok()
    };
    let text = String::from_utf8_lossy(&bytes);
    let patched = if sse {
        text.split('\n')
            .map(|line| match line.strip_prefix("data:") {
                Some(data) => one(data.trim_start())
                    .map(|d| format!("data: {d}"))
                    .unwrap_or_else(|| line.to_string()),
                None => line.to_string(),
            })
            .collect::<Vec<_>>()
            .join("\n")
    } else {
        one(&text).unwrap_or_else(|| text.into_owned())
    };
    parts.headers.remove(header::CONTENT_LENGTH);
    Response::from_parts(parts, Body::from(patched))
}

/// rmcp answers its own refusals (406, 404 for an unknown session, 405…) in plain text:
/// the same status in the one JSON error shape, its other headers (`Allow`…) kept.
/// JSON-RPC error bodies and event streams pass unchanged.
async fn json_errors(resp: Response) -> Response {
    let status = resp.status();
    let passes = resp
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|ct| {
            let ct = ct.to_ascii_lowercase();
            ct.starts_with("application/json") || ct.starts_with("text/event-stream")
        });
    if !(status.is_client_error() || status.is_server_error()) || passes {
        return resp;
    }
    let (parts, body) = resp.into_parts();
    let text = axum::body::to_bytes(body, 64 * 1024)
        .await
        .map(|b| String::from_utf8_lossy(&b).trim().to_string())
        .unwrap_or_default();
    let code = match status {
        StatusCode::BAD_REQUEST => "bad-request",
        StatusCode::NOT_FOUND => "not-found",
        StatusCode::METHOD_NOT_ALLOWED => "method-not-allowed",
        StatusCode::NOT_ACCEPTABLE => "not-acceptable",
        StatusCode::CONFLICT => "conflict",
        StatusCode::PAYLOAD_TOO_LARGE => "body-too-large",
        StatusCode::UNSUPPORTED_MEDIA_TYPE => "json-required",
        StatusCode::FORBIDDEN => "forbidden",
        s if s.is_server_error() => "internal",
        _ => "mcp-error",
    };
    let message = if text.is_empty() {
        status.canonical_reason().unwrap_or("error").to_string()
    } else {
        text
    };
    let mut out = ApiError::new(status, code, message).into_response();
    for (name, value) in &parts.headers {
        if name != header::CONTENT_TYPE && name != header::CONTENT_LENGTH {
            out.headers_mut().append(name.clone(), value.clone());
        }
    }
    out
}

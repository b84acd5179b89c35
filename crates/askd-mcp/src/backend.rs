//! What the MCP tools need from askd, as one interface with two implementations: the
//! stdio adapter talks to the daemon over HTTP ([`HttpBackend`], on `askd-client`'s
//! [`Client`]); `/mcp` in the daemon's process calls its service directly (implemented in
//! the binary crate, `askd::mcp_http`). Both map the daemon's refusals through
//! [`ToolError::from_api`].

use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, RwLock};
use std::time::Duration;

use askd_client::http::describe;
use askd_client::{ApiError, Client, seg};
use async_trait::async_trait;
use reqwest::Method;
use serde_json::{Value, json};

/// A failure a tool reports to the agent: `{"error": {code, message, errors?, ask_id?}}`.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolError {
    pub code: String,
    pub message: String,
    /// `[{path, code, message}]` for argument errors.
    pub errors: Option<Value>,
    pub ask_id: Option<String>,
}

impl ToolError {
    pub fn new(code: impl Into<String>, message: impl Into<String>) -> Self {
        ToolError {
            code: code.into(),
            message: message.into(),
            errors: None,
            ask_id: None,
        }
    }

    /// askd's common tool-error envelope (`platform.md` §4).
    pub fn envelope(&self) -> Value {
        let mut e = json!({"code": self.code, "message": self.message});
        if let Some(errors) = &self.errors {
            e["errors"] = errors.clone();
            // The alignment tools' errors name the first problem's path (alignment.md §5.1).
            if self.code == "invalid_argument"
                && let Some(path) = errors.get(0).and_then(|p| p.get("path"))
            {
                e["field"] = path.clone();
            }
        }
        if let Some(id) = &self.ask_id {
            e["ask_id"] = json!(id);
        }
        json!({"error": e})
    }

    /// A daemon refusal as the agent sees it: the daemon's code, message and problem list.
    /// The one place the HTTP API's codes become the tool error codes the subsystem specs
    /// fix: `not-found` is `ASK_NOT_FOUND`, `invalid-argument` (an alignment operation's
    /// argument rule) is `invalid_argument` (`alignment.md` §5.1) and `invalid-review` is
    /// `invalid_review` (`review.md` §3.2).
    pub fn from_api(e: ApiError, ask_id: Option<&str>) -> Self {
        ToolError {
            code: if e.is_not_found() {
                "ASK_NOT_FOUND".into()
            } else {
                match e.code.as_str() {
                    "invalid-argument" => "invalid_argument".into(),
                    "invalid-review" => "invalid_review".into(),
                    _ => e.code,
                }
            },
            message: e.message,
            errors: e.errors,
            ask_id: ask_id.map(str::to_string),
        }
    }

    /// The daemon could not be reached or failed.
    pub fn unavailable(message: impl Into<String>) -> Self {
        ToolError::new("ASKD_UNAVAILABLE", message)
    }
}

/// A created (or re-attached) ask.
#[derive(Debug, Clone, PartialEq)]
pub struct CreatedAsk {
    pub ask_id: String,
    pub url: String,
    pub created: bool,
}

/// A launched (or re-attached) builder draft: the survey ask to wait on.
#[derive(Debug, Clone, PartialEq)]
pub struct DraftLaunch {
    pub ask_id: String,
    pub url: String,
    pub created: bool,
    /// The draft's slug.
    pub draft: String,
}

/// How a connection opens (records, continues or forks) an askd session
/// (`alignment.md` §4.1–§4.3).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SessionOpen {
    /// Continue this session; a new one is minted when `None`.
    pub id: Option<String>,
    /// Fork this session at this inclusive event seq (its last when `None`).
    pub fork: Option<(String, Option<i64>)>,
    pub client: String,
    pub workspace: Option<String>,
    /// `stdio` or `http`.
    pub transport: String,
    /// Continuing an existing session appends `session.attached`.
    pub attach: bool,
    /// An unknown `id` is `unknown-session` instead of a session created with that id.
    pub must_exist: bool,
}

#[async_trait]
pub trait Backend: Send + Sync + 'static {
    /// Opens (or continues, or forks) the session of one agent conversation; its id.
    async fn open_session(&self, open: &SessionOpen) -> Result<String, ToolError>;
    /// Validates and creates an ask of `kind` from the tool arguments, or re-attaches.
    async fn create(
        &self,
        session: &str,
        kind: &str,
        args: &Value,
        replaces: Option<&str>,
    ) -> Result<CreatedAsk, ToolError>;
    /// Validates a survey's or questions' arguments as `create` would, writing nothing.
    async fn check(&self, kind: &str, args: &Value) -> Result<(), ToolError>;
    /// Waits up to `timeout`; returns the stored result or the pending handle.
    async fn wait(&self, ask_id: &str, timeout: Duration) -> Result<Value, ToolError>;
    /// The ask as the UI reads it (for progress messages).
    async fn ask(&self, ask_id: &str) -> Result<Value, ToolError>;
    async fn set_awaited(&self, ask_id: &str, awaited: bool) -> Result<(), ToolError>;
    async fn withdraw(&self, ask_id: &str, reason: Option<&str>) -> Result<Value, ToolError>;
    /// Submits a human's answer as the page does (`{"answers": …, "surface"?}`); the
    /// settled result. Refused answers are `invalid-answers`, a settled ask `not-pending`.
    async fn submit(&self, ask_id: &str, body: &Value) -> Result<Value, ToolError>;
    /// The human dismissed the ask (settles it `cancelled`).
    async fn cancel(&self, ask_id: &str) -> Result<(), ToolError>;
    /// One whitelisted call of the MCP App (`crate::apps::UiCall`): `method` and `path` as
    /// the page's `ui/js/api.js` sends them; the daemon's status and JSON body as they are.
    async fn ui(
        &self,
        method: &str,
        path: &str,
        body: Option<&Value>,
    ) -> Result<(u16, Value), ToolError>;
    /// Banks survey answers as the wizard does (`{"answers": [entry…]}`, write-ahead).
    async fn bank(&self, ask_id: &str, body: &Value) -> Result<(), ToolError>;
    /// A survey's path for `{"answers": {id: {selected, custom?, skipped?}}}`, computed by
    /// the core's one path engine in the daemon.
    async fn path(&self, ask_id: &str, body: &Value) -> Result<Vec<String>, ToolError>;
    /// Every stored record of `kind` (§11.1 form), any order.
    async fn records(&self, kind: &str) -> Result<Vec<Value>, ToolError>;
    /// The asks of one session as `GET /api/asks?session=` lists them (newest first, at
    /// most 500): `tasks/list`.
    async fn session_asks(&self, session: &str) -> Result<Vec<Value>, ToolError>;
    /// The `elicitation` saved on the Settings page (`auto`, `form`, `url`, `off`), which
    /// takes the place of the adapter's own configuration; `None` when none is saved (or
    /// the daemon cannot say).
    async fn saved_elicitation(&self) -> Option<String> {
        None
    }
    /// Whether a person has the desk open (an inbox, an ask page or the terminal UI holds a
    /// live event stream): `GET /api/health`'s `desk`; `false` when the daemon cannot say.
    async fn desk_open(&self) -> bool {
        false
    }
    /// `survey_draft_set` for the session: the op's result (`survey.md` §10.4).
    async fn draft_set(&self, session: &str, args: &Value) -> Result<Value, ToolError>;
    /// `survey_draft_get` for the session: the checklist (`survey.md` §10.5).
    async fn draft_get(&self, session: &str, args: &Value) -> Result<Value, ToolError>;
    /// `survey_draft_launch` for the session, up to the survey ask to wait on (§10.6).
    async fn draft_launch(&self, session: &str, args: &Value) -> Result<DraftLaunch, ToolError>;
    /// An alignment operation on the session (`alignment.md` §5): `status`, `mode` or
    /// `check`, with `{configured?, mode?, actor?, via?, note?}`.
    async fn alignment(&self, session: &str, op: &str, body: &Value) -> Result<Value, ToolError>;
}

/// Finds the daemon again — starting it when none answers — and returns its URL and token.
pub type Reconnect = Arc<
    dyn Fn() -> Pin<Box<dyn Future<Output = Result<(String, String), String>> + Send>>
        + Send
        + Sync,
>;

/// The stdio adapter's backend: the daemon's JSON API.
pub struct HttpBackend {
    /// The daemon's client; replaced when the daemon is found again.
    target: RwLock<Client>,
    reconnect: Option<Reconnect>,
    /// How long a wait that loses its daemon keeps retrying (remote / team mode).
    wait_retry: Option<Duration>,
}

/// The first pause between a lost wait's retries; each doubles, up to [`WAIT_BACKOFF_MAX`].
const WAIT_BACKOFF: Duration = Duration::from_millis(200);
const WAIT_BACKOFF_MAX: Duration = Duration::from_secs(4);

/// No idle keep-alive connections: after the daemon dies, a pooled connection fails
/// mid-request (not a refused connect), which could not be retried safely. A fresh loopback
/// connection per request is refused cleanly instead.
fn unpooled(base: String, token: String) -> Client {
    let http = reqwest::Client::builder()
        .pool_max_idle_per_host(0)
        .build()
        .unwrap_or_default();
    Client::with_http(base, token, http)
}

impl HttpBackend {
    pub fn new(base: impl Into<String>, token: impl Into<String>) -> Self {
        HttpBackend {
            target: RwLock::new(unpooled(base.into(), token.into())),
            reconnect: None,
            wait_retry: None,
        }
    }

    /// A wait whose daemon stops answering (killed, restarting, cut off from the database:
    /// a refused or dropped connection, or 502/503/504 from it or a load balancer in front)
    /// is repeated with backoff for up to `bound` after the first failure — to whatever
    /// daemon answers at the same URL. Safe: a wait changes nothing, and the store holds the
    /// answer whichever daemon took it.
    pub fn with_wait_retry(mut self, bound: Duration) -> Self {
        self.wait_retry = Some(bound);
        self
    }

    /// When a request cannot connect (the daemon exited, e.g. after `idleExit`, or was
    /// restarted elsewhere), run `reconnect` and retry once against what it finds.
    pub fn with_reconnect(mut self, reconnect: Reconnect) -> Self {
        self.reconnect = Some(reconnect);
        self
    }

    fn target(&self) -> Client {
        self.target
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    async fn send(
        &self,
        method: &Method,
        path: &str,
        body: Option<&Value>,
        timeout: Option<Duration>,
        key: Option<&str>,
    ) -> Result<askd_client::Reply, (String, reqwest::Error)> {
        let client = self.target();
        client
            .call_keyed(
                method.clone(),
                path,
                body.map(Value::to_string),
                timeout.map(|t| t + Duration::from_secs(30)),
                key,
            )
            .await
            .map_err(|e| (client.base().to_string(), e))
    }

    async fn call(
        &self,
        method: Method,
        path: &str,
        body: Option<&Value>,
        timeout: Option<Duration>,
    ) -> Result<(u16, Value), ToolError> {
        self.call_keyed(method, path, body, timeout, None).await
    }

    /// [`Self::call`] with an idempotency key (a submit's).
    async fn call_keyed(
        &self,
        method: Method,
        path: &str,
        body: Option<&Value>,
        timeout: Option<Duration>,
        key: Option<&str>,
    ) -> Result<(u16, Value), ToolError> {
        let mut sent = self.send(&method, path, body, timeout, key).await;
        let mut retried = false;
        // A connection that is refused or dropped before any response (the daemon exited or
        // was killed) is retried once against the daemon found or started again. A timeout
        // is never retried. Repeating a request is safe by design: a create re-attaches to
        // its identical pending ask, a settle or withdraw that already happened returns the
        // same outcome, and status reads change nothing.
        if let (Err((_, e)), Some(reconnect)) = (&sent, &self.reconnect)
            && (e.is_connect() || (e.is_request() && !e.is_timeout()))
        {
            match reconnect().await {
                Ok((base, token)) => {
                    *self.target.write().unwrap_or_else(|e| e.into_inner()) = unpooled(base, token);
                    sent = self.send(&method, path, body, timeout, key).await;
                    retried = true;
                }
                Err(why) => tracing::warn!("cannot reach or restart the askd daemon: {why}"),
            }
        }
        let reply = sent.map_err(|(base, e)| {
            let why = describe(&e);
            let after = if retried { ", after reconnecting" } else { "" };
            ToolError::unavailable(format!(
                "the askd daemon at {base} did not answer ({why}{after}); nothing was lost — retry, or run `askd doctor`"
            ))
        })?;
        Ok((reply.status, reply.body))
    }

    /// Turns a daemon error body into a tool error.
    fn error(body: &Value, ask_id: Option<&str>) -> ToolError {
        ToolError::from_api(ApiError::from_body(0, body), ask_id)
    }
}

/// How often, and how far apart, a submit answered `503 outcome-unknown` is repeated.
const UNKNOWN_REPEATS: usize = 5;
const UNKNOWN_PAUSE: Duration = Duration::from_secs(1);

/// A fresh idempotency key: 16 random bytes in hex (the time when the OS has no randomness).
fn idempotency_key() -> String {
    let mut bytes = [0u8; 16];
    match getrandom::fill(&mut bytes) {
        Ok(()) => bytes.iter().map(|b| format!("{b:02x}")).collect(),
        Err(_) => format!(
            "{:x}",
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_nanos())
                .unwrap_or_default()
        ),
    }
}

#[async_trait]
impl Backend for HttpBackend {
    async fn open_session(&self, open: &SessionOpen) -> Result<String, ToolError> {
        let mut body = json!({
            "id": open.id, "client": open.client, "workspace": open.workspace,
            "transport": open.transport, "attach": open.attach, "must_exist": open.must_exist,
        });
        if let Some((parent, at)) = &open.fork {
            body["fork"] = json!({"session": parent, "at": at});
        }
        let (status, b) = self
            .call(Method::POST, "/api/sessions", Some(&body), None)
            .await?;
        match (status, b["session"]["id"].as_str()) {
            (200, Some(id)) => Ok(id.to_string()),
            _ => Err(Self::error(&b, None)),
        }
    }

    async fn create(
        &self,
        session: &str,
        kind: &str,
        args: &Value,
        replaces: Option<&str>,
    ) -> Result<CreatedAsk, ToolError> {
        // An agent's call: an identical ask answered while no call waited returns its
        // result (clients.md §2.5).
        let body = json!({"kind": kind, "session": session, "args": args, "replaces": replaces, "return_undelivered": true});
        let (status, b) = self
            .call(Method::POST, "/api/asks", Some(&body), None)
            .await?;
        match (status, b["ask_id"].as_str(), b["url"].as_str()) {
            (200 | 201, Some(id), Some(url)) => Ok(CreatedAsk {
                ask_id: id.to_string(),
                url: url.to_string(),
                created: status == 201,
            }),
            _ => Err(Self::error(&b, None)),
        }
    }

    async fn check(&self, kind: &str, args: &Value) -> Result<(), ToolError> {
        let body = json!({"kind": kind, "args": args, "dry_run": true});
        let (status, b) = self
            .call(Method::POST, "/api/asks", Some(&body), None)
            .await?;
        match status {
            200 => Ok(()),
            _ => Err(Self::error(&b, None)),
        }
    }

    async fn wait(&self, ask_id: &str, timeout: Duration) -> Result<Value, ToolError> {
        let start = std::time::Instant::now();
        let mut first_failure: Option<std::time::Instant> = None;
        let mut backoff = WAIT_BACKOFF;
        loop {
            let left = timeout.saturating_sub(start.elapsed());
            let path = format!(
                "/api/asks/{}/wait?timeout_s={}",
                seg(ask_id),
                left.as_secs_f64()
            );
            let sent = self.call(Method::GET, &path, None, Some(left)).await;
            let lost = match &sent {
                Err(e) => e.code == "ASKD_UNAVAILABLE",
                Ok((status, _)) => matches!(status, 502..=504),
            };
            if lost && let Some(bound) = self.wait_retry {
                let since = *first_failure.get_or_insert_with(std::time::Instant::now);
                let spent = since.elapsed();
                if spent < bound {
                    tracing::info!(
                        ask_id,
                        retry_in_ms = backoff.as_millis() as u64,
                        "the wait lost its daemon; waiting again"
                    );
                    tokio::time::sleep(backoff.min(bound - spent)).await;
                    backoff = (backoff * 2).min(WAIT_BACKOFF_MAX);
                    continue;
                }
            }
            return match sent {
                Ok((200, b)) => Ok(b),
                Ok((_, b)) => Err(Self::error(&b, Some(ask_id))),
                Err(mut e) => {
                    // The ask is safe in the daemon: say which one to resume.
                    e.ask_id = Some(ask_id.to_string());
                    if first_failure.is_some() {
                        e.message = format!(
                            "{} (the wait was retried for {} s); resume with await_answer and ask_id {ask_id}",
                            e.message,
                            self.wait_retry.unwrap_or_default().as_secs()
                        );
                    }
                    Err(e)
                }
            };
        }
    }

    async fn ask(&self, ask_id: &str) -> Result<Value, ToolError> {
        let (status, b) = self
            .call(
                Method::GET,
                &format!("/api/asks/{}", seg(ask_id)),
                None,
                None,
            )
            .await?;
        if status == 200 {
            Ok(b)
        } else {
            Err(Self::error(&b, Some(ask_id)))
        }
    }

    async fn set_awaited(&self, ask_id: &str, awaited: bool) -> Result<(), ToolError> {
        let (status, b) = self
            .call(
                Method::POST,
                &format!("/api/asks/{}/awaited", seg(ask_id)),
                Some(&json!({"awaited": awaited})),
                None,
            )
            .await?;
        if status == 200 {
            Ok(())
        } else {
            Err(Self::error(&b, Some(ask_id)))
        }
    }

    async fn withdraw(&self, ask_id: &str, reason: Option<&str>) -> Result<Value, ToolError> {
        let (status, b) = self
            .call(
                Method::POST,
                &format!("/api/asks/{}/withdraw", seg(ask_id)),
                Some(&json!({"reason": reason})),
                None,
            )
            .await?;
        if status == 200 {
            Ok(b["result"].clone())
        } else {
            Err(Self::error(&b, Some(ask_id)))
        }
    }

    /// An in-client form's answer. It carries an idempotency key, and a `503
    /// outcome-unknown` (the daemon lost its database while saving it) is repeated with the
    /// same key a few times: the repeat is safe and gets what was saved.
    async fn submit(&self, ask_id: &str, body: &Value) -> Result<Value, ToolError> {
        let key = idempotency_key();
        let path = format!("/api/asks/{}/submit", seg(ask_id));
        let mut repeats = 0;
        loop {
            let (status, b) = self
                .call_keyed(Method::POST, &path, Some(body), None, Some(&key))
                .await?;
            if status == 503 && b["code"] == "outcome-unknown" && repeats < UNKNOWN_REPEATS {
                repeats += 1;
                tokio::time::sleep(UNKNOWN_PAUSE).await;
                continue;
            }
            return if status == 200 {
                Ok(b["result"].clone())
            } else {
                Err(Self::error(&b, Some(ask_id)))
            };
        }
    }

    async fn ui(
        &self,
        method: &str,
        path: &str,
        body: Option<&Value>,
    ) -> Result<(u16, Value), ToolError> {
        let method = Method::from_bytes(method.as_bytes())
            .map_err(|_| ToolError::new("APP_ENDPOINT_REFUSED", "an HTTP method"))?;
        if path.starts_with("/api/diagrams/") {
            // An SVG, not JSON: its text is the body (an error is the daemon's JSON).
            let client = self.target();
            let (status, text) = client.get_text(path).await.map_err(|e| {
                ToolError::unavailable(format!(
                    "the askd daemon at {} did not answer ({})",
                    client.base(),
                    describe(&e)
                ))
            })?;
            let body = match serde_json::from_str(&text) {
                Ok(json) if !(200..300).contains(&status) => json,
                _ => Value::String(text),
            };
            return Ok((status, body));
        }
        self.call(method, path, body, None).await
    }

    async fn bank(&self, ask_id: &str, body: &Value) -> Result<(), ToolError> {
        let (status, b) = self
            .call(
                Method::POST,
                &format!("/api/asks/{}/bank", seg(ask_id)),
                Some(body),
                None,
            )
            .await?;
        if status == 200 {
            Ok(())
        } else {
            Err(Self::error(&b, Some(ask_id)))
        }
    }

    async fn path(&self, ask_id: &str, body: &Value) -> Result<Vec<String>, ToolError> {
        let (status, b) = self
            .call(
                Method::POST,
                &format!("/api/asks/{}/path", seg(ask_id)),
                Some(body),
                None,
            )
            .await?;
        if status == 200 {
            Ok(b["path"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .map(str::to_string)
                .collect())
        } else {
            Err(Self::error(&b, Some(ask_id)))
        }
    }

    async fn cancel(&self, ask_id: &str) -> Result<(), ToolError> {
        let (status, b) = self
            .call(
                Method::POST,
                &format!("/api/asks/{}/cancel", seg(ask_id)),
                Some(&json!({})),
                None,
            )
            .await?;
        if status == 200 {
            Ok(())
        } else {
            Err(Self::error(&b, Some(ask_id)))
        }
    }

    async fn draft_set(&self, session: &str, args: &Value) -> Result<Value, ToolError> {
        let body = json!({"session": session, "args": args});
        let (status, b) = self
            .call(Method::POST, "/api/drafts/set", Some(&body), None)
            .await?;
        if status == 200 {
            Ok(b)
        } else {
            Err(Self::error(&b, None))
        }
    }

    async fn draft_get(&self, session: &str, args: &Value) -> Result<Value, ToolError> {
        let body = json!({"session": session, "args": args});
        let (status, b) = self
            .call(Method::POST, "/api/drafts/get", Some(&body), None)
            .await?;
        if status == 200 {
            Ok(b)
        } else {
            Err(Self::error(&b, None))
        }
    }

    async fn draft_launch(&self, session: &str, args: &Value) -> Result<DraftLaunch, ToolError> {
        let body = json!({"session": session, "args": args});
        let (status, b) = self
            .call(Method::POST, "/api/drafts/launch", Some(&body), None)
            .await?;
        match (
            status,
            b["ask_id"].as_str(),
            b["url"].as_str(),
            b["draft"].as_str(),
        ) {
            (200 | 201, Some(id), Some(url), Some(draft)) => Ok(DraftLaunch {
                ask_id: id.to_string(),
                url: url.to_string(),
                created: status == 201,
                draft: draft.to_string(),
            }),
            _ => Err(Self::error(&b, None)),
        }
    }

    async fn alignment(&self, session: &str, op: &str, body: &Value) -> Result<Value, ToolError> {
        let path = format!("/api/sessions/{}/alignment/{}", seg(session), seg(op));
        let (status, b) = self.call(Method::POST, &path, Some(body), None).await?;
        if status == 200 {
            Ok(b)
        } else {
            Err(Self::error(&b, None))
        }
    }

    async fn saved_elicitation(&self) -> Option<String> {
        let (status, b) = self
            .call(Method::GET, "/api/settings", None, None)
            .await
            .ok()?;
        (status == 200)
            .then(|| b["elicitation"]["saved"].as_str().map(str::to_string))
            .flatten()
    }

    async fn desk_open(&self) -> bool {
        match self.call(Method::GET, "/api/health", None, None).await {
            Ok((200, b)) => b["desk"].as_u64().is_some_and(|n| n > 0),
            _ => false,
        }
    }

    async fn records(&self, kind: &str) -> Result<Vec<Value>, ToolError> {
        let (status, b) = self
            .call(
                Method::GET,
                &format!("/api/records?kind={}", seg(kind)),
                None,
                None,
            )
            .await?;
        if status != 200 {
            return Err(Self::error(&b, None));
        }
        Ok(b["records"]
            .as_array()
            .map(|rs| rs.iter().map(|r| r["record"].clone()).collect())
            .unwrap_or_default())
    }

    async fn session_asks(&self, session: &str) -> Result<Vec<Value>, ToolError> {
        let (status, b) = self
            .call(
                Method::GET,
                &format!("/api/asks?session={}", seg(session)),
                None,
                None,
            )
            .await?;
        if status != 200 {
            return Err(Self::error(&b, None));
        }
        Ok(b["asks"].as_array().cloned().unwrap_or_default())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    /// A loopback server that answers each connection with the next of `replies` (a status
    /// and a JSON body), or — past the end, or for `None` — drops the connection unanswered.
    async fn server(replies: Vec<Option<(u16, &'static str)>>) -> String {
        recording(replies).await.0
    }

    /// [`server`], keeping the head and body of each request it read.
    async fn recording(
        replies: Vec<Option<(u16, &'static str)>>,
    ) -> (String, std::sync::Arc<std::sync::Mutex<Vec<String>>>) {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let kept = seen.clone();
        tokio::spawn(async move {
            let mut replies = replies.into_iter();
            while let Ok((mut s, _)) = listener.accept().await {
                let mut buf = [0u8; 4096];
                let n = s.read(&mut buf).await.unwrap_or(0);
                kept.lock()
                    .unwrap()
                    .push(String::from_utf8_lossy(&buf[..n]).into_owned());
                if let Some(Some((status, body))) = replies.next() {
                    let head = format!(
                        "HTTP/1.1 {status} X\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                        body.len()
                    );
                    let _ = s.write_all(head.as_bytes()).await;
                }
            }
        });
        (format!("http://{addr}"), seen)
    }

    /// Issue 32: an in-client form's answer the daemon could not confirm saving (503
    /// `outcome-unknown`) is repeated with the same idempotency key, and the repeat's saved
    /// result is the tool's.
    #[tokio::test]
    async fn a_submit_whose_saving_is_unknown_is_repeated_with_its_key() {
        let (base, seen) = recording(vec![
            Some((
                503,
                r#"{"ok":false,"error":"outcome-unknown","code":"outcome-unknown","message":"cut off"}"#,
            )),
            Some((
                200,
                r#"{"ok":true,"outcome":"answered","result":{"outcome":"answered","answers":[]}}"#,
            )),
        ])
        .await;
        let b = HttpBackend::new(base, "t");
        let r = b.submit("a1", &json!({"answers": []})).await.unwrap();
        assert_eq!(r["outcome"], "answered");
        let keys: Vec<String> = seen
            .lock()
            .unwrap()
            .iter()
            .filter_map(|req| {
                req.lines()
                    .find_map(|l| l.strip_prefix("idempotency-key: ").map(str::to_string))
            })
            .collect();
        assert_eq!(keys.len(), 2, "{keys:?}");
        assert_eq!(keys[0], keys[1]);
        assert_eq!(keys[0].len(), 32);
    }

    #[tokio::test]
    async fn a_lost_wait_is_repeated_until_a_daemon_answers() {
        let base = server(vec![
            None,
            Some((
                503,
                r#"{"error":"database-unavailable","message":"cut off"}"#,
            )),
            Some((200, r#"{"outcome":"answered","ask_id":"a1"}"#)),
        ])
        .await;
        let b = HttpBackend::new(base, "t").with_wait_retry(Duration::from_secs(10));
        let r = b.wait("a1", Duration::from_secs(5)).await.unwrap();
        assert_eq!(r["outcome"], "answered");
    }

    #[tokio::test]
    async fn a_wait_that_finds_no_daemon_names_its_ask_as_a_field() {
        let base = server(vec![]).await;
        let b = HttpBackend::new(base, "t").with_wait_retry(Duration::from_millis(600));
        let e = b.wait("a1", Duration::from_secs(5)).await.unwrap_err();
        assert_eq!(e.code, "ASKD_UNAVAILABLE");
        assert_eq!(e.ask_id.as_deref(), Some("a1"));
        assert!(e.message.contains("await_answer"), "{}", e.message);
        assert_eq!(e.envelope()["error"]["ask_id"], "a1");
        // Without retries (local mode reconnects instead) the field is there too.
        let e = HttpBackend::new(server(vec![]).await, "t")
            .wait("a2", Duration::from_secs(1))
            .await
            .unwrap_err();
        assert_eq!(e.ask_id.as_deref(), Some("a2"));
    }
}

//! `askd_app`, the MCP App's own tool (`crate::apps`), and the grants it checks: an ask
//! this connection asked, or one whose signed handle the app brings.

use std::time::Duration;

use rmcp::RoleServer;
use rmcp::service::RequestContext;
use serde_json::{Value, json};

use super::AskdServer;
use crate::backend::ToolError;

/// How often `askd_app`'s watch reads the ask's view (on loopback) while it waits.
const APP_WATCH_EVERY: Duration = Duration::from_secs(1);

impl AskdServer {
    /// Records that this connection's ask tool returned `ask_id`, asked in `session`: one it
    /// created, or — re-attached by an identical repeat call — one of its own session (the
    /// connection's, not one a call named in `_meta["askd/session"]` or a `session`
    /// selector: naming a session never by itself makes its asks this connection's).
    pub(super) fn grant(&self, ask_id: &str, session: &str, created: bool) {
        if ask_id.is_empty() {
            return;
        }
        if created || self.session.get().map(String::as_str) == Some(session) {
            self.granted
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .insert(ask_id.to_string(), session.to_string());
        }
    }

    /// The session of an ask this connection asked ([`Self::grant`]).
    pub(super) fn granted(&self, ask_id: &str) -> Option<String> {
        self.granted
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(ask_id)
            .cloned()
    }

    /// `_meta["askd/app"]` of an ask tool's result for an MCP App host: the ask and its
    /// signed handle, which the app sends back with each `askd_app` call — so the call is
    /// accepted by any server instance of this install (a stateless `/mcp` request, an
    /// adapter restarted), not only by this connection.
    pub(super) fn app_meta(&self, result: &Result<Value, ToolError>) -> Option<Value> {
        let ask_id = match result {
            Ok(v) => v
                .get("ask_id")
                .or_else(|| v.get("error").and_then(|e| e.get("ask_id")))
                .and_then(Value::as_str)
                .map(str::to_string),
            Err(e) => e.ask_id.clone(),
        }?;
        let session = self.granted(&ask_id)?;
        Some(json!({
            "ask_id": ask_id,
            "handle": self.opts.seal.app_handle(&ask_id, &session),
        }))
    }

    /// `askd_app` (`crate::apps`): one whitelisted call of the app onto the daemon, for an
    /// ask this conversation asked — one this connection's ask tool returned
    /// ([`Self::grant`]), or one whose signed handle the app sends (`handle`, from the ask
    /// tool's result `_meta["askd/app"]`); never on the strength of a client name or a
    /// session named in `_meta`. `{status, body}` as the daemon answered (a refusal of the
    /// daemon is the app's to show, not a tool error).
    pub(super) async fn app_call(
        &self,
        args: &Value,
        ctx: &RequestContext<RoleServer>,
    ) -> Result<Value, ToolError> {
        if !Self::apps(ctx) {
            return Err(ToolError::new(
                "UNKNOWN_TOOL",
                format!(
                    "{} is askd's MCP App's own tool: a client that declares the {} extension (mimeTypes [{:?}]) has it",
                    crate::apps::APP_TOOL,
                    crate::apps::EXTENSION,
                    crate::apps::MIME_TYPE
                ),
            ));
        }
        let method = args.get("method").and_then(Value::as_str).unwrap_or("");
        let path = args.get("path").and_then(Value::as_str).unwrap_or("");
        let call = crate::apps::UiCall::parse(method, path)?;
        let refused = || {
            ToolError::new(
                "APP_ENDPOINT_REFUSED",
                format!(
                    "{} acts only on an ask this conversation asked — one this connection's ask tool returned, or one whose handle the tool's result gave the app (_meta[\"askd/app\"].handle, sent back as handle); {} is not",
                    crate::apps::APP_TOOL,
                    call.ask_id
                ),
            )
        };
        let handle = args
            .get("handle")
            .and_then(Value::as_str)
            .and_then(|h| {
                self.opts
                    .seal
                    .open::<crate::seal::AppHandle>(crate::seal::Purpose::AppHandle, h)
            })
            .filter(|h| h.ask == call.ask_id);
        // Nothing is read for an ask that is not the conversation's (not even whether it
        // exists).
        let session = self
            .granted(&call.ask_id)
            .or(handle.map(|h| h.session))
            .ok_or_else(refused)?;
        let ask = self.backend.ask(&call.ask_id).await?;
        if ask["session"] != session.as_str() {
            return Err(refused());
        }
        if call.op == crate::apps::Op::Watch {
            return self.app_watch(&call, args.get("body")).await;
        }
        let body = crate::apps::body(&call, args.get("body"));
        let (status, body) = self
            .backend
            .ui(call.method(), &call.path(), body.as_ref())
            .await?;
        Ok(json!({"status": status, "body": body}))
    }

    /// `askd_app`'s watch (`crate::apps::Op::Watch`): reads the ask's view on loopback
    /// every [`APP_WATCH_EVERY`] until its version differs from `since` or the wait is
    /// over, so the frame is told of a change within about a second and sends one call per
    /// change (or per wait) instead of one every few seconds. Nothing is marked on the ask
    /// (an adapter's `wait` would say an agent waits; an event stream would count as a
    /// person's open desk).
    async fn app_watch(
        &self,
        call: &crate::apps::UiCall,
        body: Option<&Value>,
    ) -> Result<Value, ToolError> {
        let (since, wait) = crate::apps::watch_args(body);
        let until = tokio::time::Instant::now() + wait;
        loop {
            let (status, view) = self.backend.ui("GET", &call.path(), None).await?;
            let version = crate::apps::version(status, &view);
            let changed = since.as_ref().is_some_and(|s| *s != version);
            let state = view.get("state").cloned().unwrap_or(Value::Null);
            let settled = status != 200 || state != "pending";
            if since.is_none() || changed || settled || tokio::time::Instant::now() >= until {
                return Ok(
                    json!({"status": 200, "body": {"changed": changed, "version": version, "state": state}}),
                );
            }
            tokio::time::sleep_until(until.min(tokio::time::Instant::now() + APP_WATCH_EVERY))
                .await;
        }
    }
}

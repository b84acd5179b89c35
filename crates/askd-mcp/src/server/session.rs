//! The session a call runs in (`alignment.md` §4.2) and the wait budget of a call.

use std::time::Duration;

use rmcp::RoleServer;
use rmcp::service::RequestContext;
use serde_json::{Value, json};

use super::AskdServer;
use super::errors::{invalid_argument, session_error, timeout_arg};
use crate::backend::{SessionOpen, ToolError};
use askd_core::alignment::Mode;

/// DeepSeek Harness's MCP client cuts a tool call at 60 s and ignores progress: it gets the
/// pending handle after this long unless `maxWait` or the call's `timeout_s` says otherwise.
pub const SHORT_CLIENT_BUDGET: Duration = Duration::from_secs(50);

/// The wait budget a known client gets when `maxWait` is not configured (`clients.md`
/// §1, §2.4): the pending handle comes back before the client's own limit would cut the
/// call — DeepSeek Harness cancels at 60 s, Claude Code's interactive mode moves a call to
/// the background at 120 s (and then shows the answer as "not user input"), Codex cancels
/// at 300 s. Unknown clients wait as long as the call does, with progress.
pub fn client_budget(name: &str) -> Option<Duration> {
    let n = name.to_ascii_lowercase();
    if n == "dsh-mcp-client" {
        Some(SHORT_CLIENT_BUDGET)
    } else if n == "claude-code" || n.starts_with("claude-code") {
        Some(Duration::from_secs(100))
    } else if n.contains("codex") {
        Some(Duration::from_secs(270))
    } else {
        None
    }
}

/// DeepSeek Harness's MCP client cuts tool calls at 60 s.
pub fn is_short_client(name: &str) -> bool {
    client_budget(name).is_some_and(|b| b <= SHORT_CLIENT_BUDGET)
}

impl AskdServer {
    /// The session a call runs in (§4.2): the request's `_meta["askd/session"]` (this call
    /// only), else the session a selector bound the connection to, else the connection's
    /// own session, recorded on first use.
    pub(super) async fn session(
        &self,
        ctx: &RequestContext<RoleServer>,
    ) -> Result<String, ToolError> {
        if let Some(id) = ctx
            .meta
            .get("askd/session")
            .and_then(Value::as_str)
            .map(str::trim)
            .filter(|id| !id.is_empty())
        {
            return Ok(id.to_string());
        }
        if let Some(id) = self.bound_session() {
            return Ok(id);
        }
        self.session
            .get_or_try_init(|| async {
                self.backend
                    .open_session(&SessionOpen {
                        id: self.opts.session_id.clone(),
                        fork: self.opts.fork.clone(),
                        attach: true,
                        ..self.session_open(ctx)
                    })
                    .await
            })
            .await
            .cloned()
    }

    /// This connection's metadata for recording a session (no id, no fork, no flags).
    fn session_open(&self, ctx: &RequestContext<RoleServer>) -> SessionOpen {
        SessionOpen {
            client: Self::client_name(ctx),
            workspace: self.opts.workspace.clone(),
            transport: self.opts.transport.to_string(),
            ..SessionOpen::default()
        }
    }

    /// Takes `id` as this connection's session when it has none yet and none is configured
    /// (`--session`, `--fork`); a `_meta` session still comes first in [`Self::session`]. For
    /// a retry whose sealed `requestState` names its session, so a stateless request (a new
    /// server per request on `/mcp`) does not open a second, empty one.
    pub(super) fn adopt_session(&self, id: &str) {
        let configured = self.opts.session_id.is_some() || self.opts.fork.is_some();
        if !configured && self.known_session().is_none() {
            let _ = self.session.set(id.to_string());
        }
    }

    fn bound_session(&self) -> Option<String> {
        self.bound.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// The session this connection is in without recording one: bound or already opened.
    pub(super) fn known_session(&self) -> Option<String> {
        self.bound_session().or_else(|| self.session.get().cloned())
    }

    /// The effective alignment mode of this connection's session (§3.2), or the mode its
    /// instructions were built for while no session is recorded yet.
    pub(super) async fn current_mode(&self) -> Mode {
        let fallback = self.opts.initial_mode.unwrap_or(self.opts.alignment_mode);
        let Some(id) = self.known_session() else {
            return fallback;
        };
        match self
            .backend
            .alignment(&id, "status", &self.configured())
            .await
        {
            Ok(v) => v["mode"]["effective"]
                .as_str()
                .and_then(Mode::parse)
                .unwrap_or(fallback),
            Err(_) => fallback,
        }
    }

    /// The wait budget of one call: the shortest of the call's `timeout_s`, `maxWait`, and
    /// the client's default ([`client_budget`]) when `maxWait` is not configured. A
    /// `timeout_s` that is not a number of seconds ≥ 0 (`"abc"`, `-5`) is refused
    /// (`askd_core::wait::timeout_s`) under `code`: it never turns into an endless wait.
    #[allow(clippy::result_large_err)]
    pub(super) fn budget(
        &self,
        args: &Value,
        client: &str,
        code: &str,
    ) -> Result<Option<Duration>, ToolError> {
        let per_call = timeout_arg(args, code)?.map(|t| Duration::from_secs_f64(t.min(1e9)));
        let client_default = self
            .opts
            .max_wait
            .is_none()
            .then(|| client_budget(client))
            .flatten();
        Ok([per_call, self.opts.max_wait, client_default]
            .into_iter()
            .flatten()
            .min())
    }

    /// The session an alignment call runs in: the `session` selector (continue, for this
    /// call), or the connection's session.
    pub(super) async fn alignment_session(
        &self,
        args: &Value,
        ctx: &RequestContext<RoleServer>,
    ) -> Result<String, ToolError> {
        match args.get("session") {
            None | Some(Value::Null) => self.session(ctx).await,
            Some(Value::String(id)) if !id.trim().is_empty() && id.len() <= 64 => {
                self.continue_session(id.trim(), ctx).await
            }
            Some(Value::Object(o)) if o.keys().all(|k| k == "fork" || k == "at") => {
                let Some(parent) = o
                    .get("fork")
                    .and_then(Value::as_str)
                    .map(str::trim)
                    .filter(|p| !p.is_empty() && p.len() <= 64)
                else {
                    return Err(invalid_argument(
                        "session.fork",
                        "session.fork must be the id of the session to fork",
                    ));
                };
                let at = match o.get("at") {
                    None | Some(Value::Null) => None,
                    Some(a) => match a.as_i64() {
                        Some(n) if n >= 1 => Some(n),
                        _ => {
                            return Err(invalid_argument(
                                "session.at",
                                "session.at must be an event seq of the parent session (an integer from 1)",
                            ));
                        }
                    },
                };
                let id = self
                    .backend
                    .open_session(&SessionOpen {
                        fork: Some((parent.to_string(), at)),
                        must_exist: true,
                        ..self.session_open(ctx)
                    })
                    .await
                    .map_err(|e| {
                        let mut e = session_error(e);
                        if e.code == "invalid_argument" {
                            e.message = format!("session.at: {}", e.message);
                            e.errors = Some(json!([{"path": "session.at", "code": "invalid_argument", "message": e.message}]));
                        }
                        e
                    })?;
                *self.bound.lock().unwrap_or_else(|e| e.into_inner()) = Some(id.clone());
                Ok(id)
            }
            Some(_) => Err(invalid_argument(
                "session",
                "session must be an askd session id (a non-empty string of at most 64 characters) to continue, or {\"fork\": \"<id>\", \"at\": <seq>?} to fork",
            )),
        }
    }

    /// Continue `id` (§4.2): an unknown id fails with `unknown_session` and records nothing;
    /// the first continue of this connection appends `session.attached`; the connection
    /// stays bound to it.
    async fn continue_session(
        &self,
        id: &str,
        ctx: &RequestContext<RoleServer>,
    ) -> Result<String, ToolError> {
        if self.known_session().as_deref() == Some(id) {
            return Ok(id.to_string());
        }
        let first = !self
            .attached
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .contains(id);
        if first {
            self.backend
                .open_session(&SessionOpen {
                    id: Some(id.to_string()),
                    attach: true,
                    must_exist: true,
                    ..self.session_open(ctx)
                })
                .await
                .map_err(session_error)?;
            self.attached
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .insert(id.to_string());
        }
        *self.bound.lock().unwrap_or_else(|e| e.into_inner()) = Some(id.to_string());
        Ok(id.to_string())
    }
}

//! The MCP server: one [`AskdServer`] per MCP session (the stdio adapter has one; `/mcp`
//! makes one per HTTP session). It lists the tools, opens the askd session lazily with the
//! client's name, and runs each tool against a [`Backend`]: create, then wait with progress
//! notifications and a wait budget, returning the result or the durable pending handle.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    ListToolsResult, PaginatedRequestParams, ProgressNotificationParam, ServerCapabilities,
    ServerConfig,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler};
use serde_json::{Value, json};
use tokio::sync::OnceCell;

use crate::backend::{Backend, CreatedAsk, ToolError};
use crate::{instructions, tools};

/// Clients known to cut tool calls at 60 s without honouring progress: DeepSeek Harness's
/// MCP client and Codex. They get the pending handle after this long unless `maxWait` or the
/// call's `timeout_s` says otherwise.
pub const SHORT_CLIENT_BUDGET: Duration = Duration::from_secs(50);

/// Called with the URL of a session's first new ask (see [`Options::on_first_ask`]).
pub type FirstAskHook = Arc<dyn Fn(&str) + Send + Sync>;

/// How a session's server behaves; shared by every server of a process.
#[derive(Clone)]
pub struct Options {
    /// Continue this askd session instead of opening a new one.
    pub session_id: Option<String>,
    /// The agent's workspace (the adapter's working directory).
    pub workspace: Option<String>,
    /// `maxWait`: the longest any call waits before returning the pending handle.
    pub max_wait: Option<Duration>,
    /// `en` or `zh-CN`, for the instructions.
    pub language: &'static str,
    /// How often progress notifications go out while waiting (15 s).
    pub progress_interval: Duration,
    /// Called once per session, on its first new ask, with the ask's URL (the adapter opens
    /// a browser or prints the URL there).
    pub on_first_ask: Option<FirstAskHook>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            session_id: None,
            workspace: None,
            max_wait: None,
            language: "en",
            progress_interval: Duration::from_secs(15),
            on_first_ask: None,
        }
    }
}

pub struct AskdServer {
    backend: Arc<dyn Backend>,
    opts: Arc<Options>,
    session: OnceCell<String>,
    first_ask: AtomicBool,
}

impl AskdServer {
    pub fn new(backend: Arc<dyn Backend>, opts: Arc<Options>) -> Self {
        AskdServer {
            backend,
            opts,
            session: OnceCell::new(),
            first_ask: AtomicBool::new(true),
        }
    }

    fn client_name(ctx: &RequestContext<RoleServer>) -> String {
        ctx.peer
            .peer_info()
            .map(|i| i.client_info.name.clone())
            .filter(|n| !n.trim().is_empty())
            .unwrap_or_else(|| "mcp-client".to_string())
    }

    async fn session(&self, ctx: &RequestContext<RoleServer>) -> Result<&str, ToolError> {
        let client = Self::client_name(ctx);
        self.session
            .get_or_try_init(|| async {
                self.backend
                    .open_session(
                        self.opts.session_id.as_deref(),
                        &client,
                        self.opts.workspace.as_deref(),
                    )
                    .await
            })
            .await
            .map(String::as_str)
    }

    /// The wait budget of one call: the shortest of the call's `timeout_s`, `maxWait`, and
    /// the short-client default when `maxWait` is not configured.
    fn budget(&self, args: &Value, client: &str) -> Option<Duration> {
        let per_call = args
            .get("timeout_s")
            .and_then(Value::as_f64)
            .filter(|t| t.is_finite() && *t >= 0.0)
            .map(|t| Duration::from_secs_f64(t.min(1e9)));
        let client_default = (self.opts.max_wait.is_none() && is_short_client(client))
            .then_some(SHORT_CLIENT_BUDGET);
        [per_call, self.opts.max_wait, client_default]
            .into_iter()
            .flatten()
            .min()
    }

    /// Waits for `ask_id` within `budget`, sending progress when the client asked for it,
    /// and stopping (without settling anything) when the client cancels.
    async fn wait(
        &self,
        ask_id: &str,
        budget: Option<Duration>,
        ctx: &RequestContext<RoleServer>,
    ) -> Result<Value, ToolError> {
        let started = Instant::now();
        let deadline = budget.map(|b| started + b);
        let token = ctx.meta.get_progress_token();
        let _ = self.backend.set_awaited(ask_id, true).await;
        loop {
            let mut chunk = self.opts.progress_interval;
            if let Some(d) = deadline {
                chunk = chunk.min(d.saturating_duration_since(Instant::now()));
            }
            let result = tokio::select! {
                r = self.backend.wait(ask_id, chunk) => r?,
                _ = ctx.ct.cancelled() => {
                    // The turn was aborted: the ask stays answerable, no longer awaited.
                    let _ = self.backend.set_awaited(ask_id, false).await;
                    return Err(ToolError::new("CANCELLED", "the tool call was cancelled; the ask stays pending — collect it later with await_answer"));
                }
            };
            if result["outcome"] != "pending" {
                return Ok(result);
            }
            if deadline.is_some_and(|d| Instant::now() >= d) {
                // The pending handle goes back: nobody waits on the ask until an
                // await_answer (or a re-attach) does again.
                let _ = self.backend.set_awaited(ask_id, false).await;
                return Ok(result);
            }
            if let Some(token) = &token {
                let message = self.progress_message(ask_id).await;
                let _ = ctx
                    .peer
                    .notify_progress(
                        // Seconds waited, to the millisecond: MCP requires the value to
                        // increase with every notification, even at sub-second intervals.
                        ProgressNotificationParam::new(
                            token.clone(),
                            started.elapsed().as_millis() as f64 / 1000.0,
                        )
                        .with_message(message),
                    )
                    .await;
            }
        }
    }

    /// `waiting for the user — 3 answered, 2 banked`.
    async fn progress_message(&self, ask_id: &str) -> String {
        let Ok(ask) = self.backend.ask(ask_id).await else {
            return "waiting for the user".into();
        };
        let banked = ask["banked"].as_array().map_or(0, Vec::len);
        let drafted = ask["autosave"]["answers"].as_object().map_or(0, |m| {
            m.values()
                .filter(|a| {
                    a["selected"].as_array().is_some_and(|s| !s.is_empty())
                        || a["custom"].as_str().is_some_and(|c| !c.trim().is_empty())
                        // A review's draft: {verdict, note}.
                        || a["verdict"].as_str().is_some_and(|v| !v.is_empty())
                })
                .count()
        });
        format!(
            "waiting for the user — {} answered, {banked} banked",
            banked + drafted
        )
    }

    async fn ask_tool(
        &self,
        kind: &str,
        args: Value,
        ctx: &RequestContext<RoleServer>,
    ) -> Result<Value, ToolError> {
        let client = Self::client_name(ctx);
        let session = self.session(ctx).await?.to_string();
        let replaces = args.get("replaces").and_then(Value::as_str);
        let created: CreatedAsk = self.backend.create(&session, kind, &args, replaces).await?;
        if created.created
            && self.first_ask.swap(false, Ordering::SeqCst)
            && let Some(hook) = &self.opts.on_first_ask
        {
            hook(&created.url);
        }
        let budget = self.budget(&args, &client);
        self.wait(&created.ask_id, budget, ctx).await
    }

    /// `survey_draft_launch` (`survey.md` §10.6): the gate and the ask in the daemon, then
    /// the same wait as `ask_survey`; the result names the draft.
    async fn launch_tool(
        &self,
        args: Value,
        ctx: &RequestContext<RoleServer>,
    ) -> Result<Value, ToolError> {
        let client = Self::client_name(ctx);
        let session = self.session(ctx).await?.to_string();
        let launched = self.backend.draft_launch(&session, &args).await?;
        if launched.created
            && self.first_ask.swap(false, Ordering::SeqCst)
            && let Some(hook) = &self.opts.on_first_ask
        {
            hook(&launched.url);
        }
        let budget = self.budget(&args, &client);
        let result = self.wait(&launched.ask_id, budget, ctx).await?;
        Ok(askd_core::survey::draft::launch_result(
            result,
            &launched.draft,
        ))
    }

    async fn run(
        &self,
        name: &str,
        args: Value,
        ctx: &RequestContext<RoleServer>,
    ) -> Result<Value, ToolError> {
        match name {
            tools::ASK_SURVEY => self.ask_tool("survey", args, ctx).await,
            tools::ASK_USER_QUESTION => self.ask_tool("questions", args, ctx).await,
            tools::BATCH_REVIEW => self.ask_tool("review", args, ctx).await,
            tools::AWAIT_ANSWER => {
                let Some(ask_id) = args.get("ask_id").and_then(Value::as_str) else {
                    return Err(argument_error(
                        "ask_id",
                        "ask_id is required: the ask_id of the pending handle",
                    ));
                };
                let client = Self::client_name(ctx);
                let budget = self.budget(&args, &client);
                self.wait(ask_id, budget, ctx).await
            }
            tools::WITHDRAW_ASK => {
                let Some(ask_id) = args.get("ask_id").and_then(Value::as_str) else {
                    return Err(argument_error("ask_id", "ask_id is required"));
                };
                let reason = args.get("reason").and_then(Value::as_str);
                self.backend.withdraw(ask_id, reason).await
            }
            tools::SURVEY_DRAFT_SET => {
                let session = self.session(ctx).await?.to_string();
                self.backend.draft_set(&session, &args).await
            }
            tools::SURVEY_DRAFT_GET => {
                let session = self.session(ctx).await?.to_string();
                self.backend.draft_get(&session, &args).await
            }
            tools::SURVEY_DRAFT_LAUNCH => self.launch_tool(args, ctx).await,
            tools::SURVEY_RECORDS => {
                let records = self.backend.records("survey").await?;
                let limit = askd_core::survey::records::clamp_limit(args.get("limit"));
                let query = args.get("query").and_then(Value::as_str);
                let include = args
                    .get("includeUnanswered")
                    .and_then(Value::as_bool)
                    .unwrap_or(false);
                Ok(askd_core::survey::records::query(
                    &records, query, limit, include,
                ))
            }
            other => Err(ToolError::new(
                "UNKNOWN_TOOL",
                format!(
                    "askd has no tool named {other:?}; its tools are ask_survey, survey_draft_set, survey_draft_get, survey_draft_launch, ask_user_question, await_answer, survey_records, withdraw_ask, batch_review"
                ),
            )),
        }
    }
}

fn argument_error(path: &str, message: &str) -> ToolError {
    let mut e = ToolError::new("INVALID_ARGUMENTS", message);
    e.errors = Some(json!([{"path": path, "code": "required", "message": message}]));
    e
}

/// DeepSeek Harness's MCP client and Codex cut tool calls at 60 s.
pub fn is_short_client(name: &str) -> bool {
    let n = name.to_ascii_lowercase();
    n == "dsh-mcp-client" || n.contains("codex")
}

/// A settled result that carries an `error` (cancelled, aborted) is a tool error.
fn to_call_result(r: Result<Value, ToolError>) -> CallToolResult {
    match r {
        Ok(v) if v.get("error").is_some() => {
            let e = &v["error"];
            let message = e["message"]
                .as_str()
                .unwrap_or("the ask ended without answers");
            let envelope = json!({"error": e});
            let mut result = CallToolResult::structured_error(envelope.clone());
            result.content = vec![
                ContentBlock::text(message.to_string()),
                ContentBlock::text(envelope.to_string()),
            ];
            result
        }
        // A batch_review result: report_text first, then the JSON (review.md §4.1).
        Ok(v) if v.get("report_text").is_some_and(Value::is_string) => {
            let report = v["report_text"].as_str().unwrap_or_default().to_string();
            let text = v.to_string();
            let mut result = CallToolResult::structured(v);
            result.content = vec![ContentBlock::text(report), ContentBlock::text(text)];
            result
        }
        Ok(v) => CallToolResult::structured(v),
        Err(e) => {
            let envelope = e.envelope();
            let mut result = CallToolResult::structured_error(envelope.clone());
            // An invalid review: the summary line, then every message on its own line.
            let mut first = e.message.clone();
            if e.code == "invalid_review"
                && let Some(list) = e.errors.as_ref().and_then(Value::as_array)
            {
                for p in list {
                    first.push('\n');
                    first.push_str(p["message"].as_str().unwrap_or_default());
                }
            }
            result.content = vec![
                ContentBlock::text(first),
                ContentBlock::text(envelope.to_string()),
            ];
            result
        }
    }
}

impl ServerHandler for AskdServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("askd", env!("CARGO_PKG_VERSION")))
            .with_instructions(instructions::text(self.opts.language))
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(tools::all()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let args = request
            .arguments
            .map(Value::Object)
            .unwrap_or_else(|| json!({}));
        let result = self.run(&request.name, args, &context).await;
        Ok(to_call_result(result).into())
    }
}

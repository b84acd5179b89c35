//! The MCP server: one [`AskdServer`] per MCP session (the stdio adapter has one; `/mcp`
//! makes one per HTTP session). It lists the tools, opens the askd session lazily with the
//! client's name, and runs each tool against a [`Backend`]: create, then wait with progress
//! notifications and a wait budget, returning the result or the durable pending handle.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, GetPromptRequestParams,
    GetPromptResponse, GetPromptResult, Implementation, ListPromptsResult, ListResourcesResult,
    ListToolsResult, PaginatedRequestParams, ProgressNotificationParam, Prompt, PromptArgument,
    PromptMessage, ReadResourceRequestParams, ReadResourceResponse, ReadResourceResult, Resource,
    ResourceContents, Role, ServerCapabilities, ServerConfig,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler};
use serde_json::{Value, json};
use tokio::sync::OnceCell;

use crate::backend::{Backend, CreatedAsk, SessionOpen, ToolError};
use crate::{instructions, tools};
use askd_core::alignment::policy::instructions_section;
use askd_core::alignment::{
    CHECK_NOTE_MAX, Lang, Mode, check_instruction, check_note, mode_notice, normalize_question,
};

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

/// The `_meta` key under which a 2026-07-28 client names itself on every request.
pub const META_CLIENT_INFO: &str = "io.modelcontextprotocol/clientInfo";
/// The `_meta` key under which a 2026-07-28 client declares its capabilities per request.
pub const META_CLIENT_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";

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
    /// `[alignment] mode` (`alignment.md` §3.3); `auto` when not configured.
    pub alignment_mode: askd_core::alignment::Mode,
    /// `[alignment] section`: replaces the built-in policy text in `auto` mode.
    pub alignment_section: Option<String>,
    /// Fork this session at connection start (`askd mcp --fork <id>[@<seq>]`).
    pub fork: Option<(String, Option<i64>)>,
    /// `stdio` or `http`: recorded with the session.
    pub transport: &'static str,
    /// The effective mode of the session this connection starts in, when it continues one
    /// with an override: its instructions and first tool list follow it (§3.4).
    pub initial_mode: Option<askd_core::alignment::Mode>,
    /// `elicitation` (`clients.md` §3) in this adapter's configuration: whether an ask is
    /// also put in front of the human inside a client that declared elicitation. A value
    /// saved on the Settings page takes its place ([`Backend::saved_elicitation`], per ask).
    pub elicitation: crate::elicit::Elicitation,
    /// The ask page's URL as a browser on this machine opens it (the adapter adds the
    /// token), for URL elicitation; `None` sends the plain URL.
    pub page_link: Option<PageLink>,
    /// The install's key ([`crate::seal`]): it signs the 2026-07-28 `requestState` and the
    /// MCP App's ask handles, and checks them when they come back. The data directory's
    /// `signing.key` for `askd mcp` and `/mcp`; a key of this process only by default.
    pub seal: Arc<crate::seal::Seal>,
}

/// Makes an ask page's URL openable by a browser on this machine (see [`Options::page_link`]).
pub type PageLink = Arc<dyn Fn(&str) -> String + Send + Sync>;

/// The tool error that stands for a 2026-07-28 `input_required` result (its `errors` member
/// holds the result); `call_tool` returns it as that result, never as an error.
pub const INPUT_REQUIRED: &str = "askd.input_required";

/// How long a 2026-07-28 call waits for the page before it sends the form, when a person
/// has the desk open ([`Backend::desk_open`]): long enough to answer a short ask on the
/// page the person is looking at, short enough that someone at the terminal soon gets the
/// form there.
pub const DESK_FIRST: Duration = Duration::from_secs(15);

/// How often `askd_app`'s watch reads the ask's view (on loopback) while it waits.
const APP_WATCH_EVERY: Duration = Duration::from_secs(1);

/// The key of askd's one input request in `inputRequests` / `inputResponses`.
pub const ELICIT_KEY: &str = "askd_answer";

/// The next thing a client is asked (see `AskdServer::next_step`).
enum Step {
    /// This request; for a survey, the question it asks.
    Send(Box<rmcp::model::ElicitRequest>, Option<String>),
    /// The ask is settled (a walked survey was submitted, or it settled elsewhere).
    Settled,
    /// Nothing more to ask: the call only waits.
    Stop,
}

/// Where a form round stands: the client's form style, and — between a stepwise form's
/// choices and its text form — the choices' reply and the survey question asked.
#[derive(Debug, Clone, Default)]
struct Round {
    style: crate::stepwise::Style,
    partial: Option<Value>,
    question: Option<String>,
}

/// What a reply did (see `AskdServer::apply_reply`).
enum Reply {
    /// The daemon refused the answer: ask again, opening with this.
    Again(String),
    /// A stepwise form's choices asked for text: send its text form, this reply kept.
    Followup(Value),
    /// A survey answer was banked: ask the next question.
    Next,
    /// Nothing more to ask.
    Done,
}

fn unix_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

/// A form request's params, when the schema is one the SDK's elicitation schema admits.
fn form_params(message: String, schema: Value) -> Option<rmcp::model::ElicitRequestParams> {
    let requested_schema = serde_json::from_value::<rmcp::model::ElicitationSchema>(schema)
        .map_err(|e| tracing::warn!("an elicitation form did not build: {e}"))
        .ok()?;
    Some(rmcp::model::ElicitRequestParams::FormElicitationParams {
        meta: None,
        message,
        requested_schema,
    })
}

/// The `input_required` result (2026-07-28) carrying `request`, as the [`INPUT_REQUIRED`]
/// tool error `call_tool` turns into the result. Its `requestState` names the ask and the
/// session it was asked in, the survey question asked, when it went out and how many
/// answers were refused — sealed under the install's key ([`crate::seal`]), so a client
/// can only send it back as it was issued: a state naming another conversation's ask, or
/// an earlier `sent`, does not verify.
fn input_required(
    seal: &crate::seal::Seal,
    (ask_id, session): (&str, &str),
    request: rmcp::model::ElicitRequest,
    question: Option<String>,
    (tries, partial): (u32, Option<Value>),
) -> ToolError {
    use rmcp::model::{InputRequest, InputRequiredResult};
    let state = RoundState {
        ask: ask_id.to_string(),
        session: session.to_string(),
        q: question,
        sent: unix_ms(),
        tries,
        partial,
        draft: None,
    };
    let requests = [(ELICIT_KEY.to_string(), InputRequest::Elicitation(request))]
        .into_iter()
        .collect();
    let sealed = seal.sign(crate::seal::Purpose::RequestState, &state);
    let result = InputRequiredResult::new(Some(requests), Some(sealed));
    let mut e = ToolError::new(INPUT_REQUIRED, "input required");
    e.errors = serde_json::to_value(result).ok();
    e.ask_id = Some(ask_id.to_string());
    e
}

/// The `requestState` of askd's `input_required` round trip, as sealed
/// ([`crate::seal::Purpose::RequestState`]).
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct RoundState {
    pub ask: String,
    /// The session the ask was asked in: a retry in another session is refused.
    pub session: String,
    /// The survey question asked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub q: Option<String>,
    /// When the request went out (Unix ms): a decline faster than
    /// [`crate::elicit::AUTOMATIC_DECLINE`] is not the human's.
    pub sent: u64,
    /// Answers refused so far.
    pub tries: u32,
    /// A stepwise form's first reply, when the request is its text form
    /// ([`crate::stepwise`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub partial: Option<Value>,
    /// The builder draft a `survey_draft_launch` launched (its slug): a resumed round shapes
    /// its result as the launch's (`launch_result`), not as `await_answer`'s. Absent for
    /// every other tool, and in states issued before it existed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub draft: Option<String>,
}

/// `e` with the draft `slug` carried in its sealed `requestState` when it is an
/// `input_required` round (anything else unchanged), so the retry that resumes it returns
/// the launch's shape.
fn carry_draft(seal: &crate::seal::Seal, mut e: ToolError, slug: &str) -> ToolError {
    use rmcp::model::InputRequiredResult;
    if e.code != INPUT_REQUIRED {
        return e;
    }
    let Some(mut r) = e
        .errors
        .clone()
        .and_then(|v| serde_json::from_value::<InputRequiredResult>(v).ok())
    else {
        return e;
    };
    let Some(mut state) = r
        .request_state
        .as_deref()
        .and_then(|s| seal.open::<RoundState>(crate::seal::Purpose::RequestState, s))
    else {
        return e;
    };
    state.draft = Some(slug.to_string());
    r.request_state = Some(seal.sign(crate::seal::Purpose::RequestState, &state));
    e.errors = serde_json::to_value(r).ok();
    e
}

/// The code of a `requestState` askd did not issue, or not for this call.
pub const REQUEST_STATE_REFUSED: &str = "REQUEST_STATE_REFUSED";

/// A retry whose `requestState` fails verification, or names an ask of another session:
/// refused, nothing applied and nothing waited on.
fn state_refused(why: &str) -> ToolError {
    let message = format!(
        "requestState refused: {why}. askd signs the requestState of its input_required results and accepts back only what it issued to this conversation, unaltered — retry with the requestState exactly as received, or call the tool again without requestState and inputResponses"
    );
    let mut e = ToolError::new(REQUEST_STATE_REFUSED, message.clone());
    e.errors = Some(json!([{"path": "requestState", "code": "not_verified", "message": message}]));
    e
}

/// `timeout_s` of a waiting call (`askd_core::wait::timeout_s`), as a tool error naming
/// the field and the fix under `code`.
// The tools' one error type, as every tool's refusal is.
#[allow(clippy::result_large_err)]
fn timeout_arg(args: &Value, code: &str) -> Result<Option<f64>, ToolError> {
    let root = askd_core::json::Json::from_value(args);
    let value = root.as_object().and_then(|o| o.get("timeout_s"));
    askd_core::wait::timeout_s(value).map_err(|p| {
        let mut e = ToolError::new(code, p.message.clone());
        e.errors = Some(json!([p]));
        e
    })
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
            alignment_mode: askd_core::alignment::Mode::Auto,
            alignment_section: None,
            fork: None,
            transport: "stdio",
            initial_mode: None,
            elicitation: crate::elicit::Elicitation::Auto,
            page_link: None,
            seal: Arc::new(crate::seal::Seal::ephemeral()),
        }
    }
}

pub struct AskdServer {
    backend: Arc<dyn Backend>,
    opts: Arc<Options>,
    session: OnceCell<String>,
    /// The session a `session` selector bound this connection to (continue or fork, §4.2).
    bound: std::sync::Mutex<Option<String>>,
    /// Sessions this connection has continued (`session.attached` is appended once each).
    attached: std::sync::Mutex<std::collections::HashSet<String>>,
    first_ask: AtomicBool,
    /// The alignment mode last announced to this connection (`alignment.md` §3.4): the
    /// configured mode its instructions were built for, then each notice's mode.
    announced: std::sync::Mutex<Mode>,
    /// Whether this connection has received the policy text (instructions or a notice).
    has_policy: AtomicBool,
    /// The open `subscriptions/listen` streams of a 2026-07-28 client: list-changed
    /// notifications go through them (`clients.md` §2.6).
    subscriptions: std::sync::Mutex<Vec<rmcp::service::SubscriptionSink>>,
    /// The asks this connection asked (ask id → its session), in this process: `askd_app`
    /// acts on them (and on an ask whose signed handle the app brings, [`crate::seal`]).
    granted: std::sync::Mutex<std::collections::HashMap<String, String>>,
    /// The asks this connection sent a URL-mode `elicitation/create` for: when one settles,
    /// the client hears `notifications/elicitation/complete` (2025-11-25).
    url_elicited: std::sync::Mutex<std::collections::HashSet<String>>,
}

impl AskdServer {
    pub fn new(backend: Arc<dyn Backend>, opts: Arc<Options>) -> Self {
        let configured = opts.initial_mode.unwrap_or(opts.alignment_mode);
        AskdServer {
            backend,
            opts,
            session: OnceCell::new(),
            bound: std::sync::Mutex::new(None),
            attached: std::sync::Mutex::new(Default::default()),
            first_ask: AtomicBool::new(true),
            announced: std::sync::Mutex::new(configured),
            has_policy: AtomicBool::new(configured == Mode::Auto),
            subscriptions: std::sync::Mutex::new(Vec::new()),
            granted: std::sync::Mutex::new(Default::default()),
            url_elicited: std::sync::Mutex::new(Default::default()),
        }
    }

    /// Records that this connection's ask tool returned `ask_id`, asked in `session`: one it
    /// created, or — re-attached by an identical repeat call — one of its own session (the
    /// connection's, not one a call named in `_meta["askd/session"]` or a `session`
    /// selector: naming a session never by itself makes its asks this connection's).
    fn grant(&self, ask_id: &str, session: &str, created: bool) {
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
    fn granted(&self, ask_id: &str) -> Option<String> {
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
    fn app_meta(&self, result: &Result<Value, ToolError>) -> Option<Value> {
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

    /// The calling client's name: from `initialize` (2025 revisions), or from the request's
    /// `_meta["io.modelcontextprotocol/clientInfo"]` (2026-07-28, which has no `initialize`).
    fn client_name(ctx: &RequestContext<RoleServer>) -> String {
        let from_meta = ctx
            .meta
            .get(META_CLIENT_INFO)
            .and_then(|i| i.get("name"))
            .and_then(Value::as_str)
            .map(str::to_string);
        let from_initialize = || ctx.peer.peer_info().map(|i| i.client_info.name.clone());
        from_meta
            .or_else(from_initialize)
            .filter(|n| !n.trim().is_empty())
            .map(|n| askd_core::alignment::session::clamp("client", &n))
            .unwrap_or_else(|| "mcp-client".to_string())
    }

    /// The session a call runs in (§4.2): the request's `_meta["askd/session"]` (this call
    /// only), else the session a selector bound the connection to, else the connection's
    /// own session, recorded on first use.
    async fn session(&self, ctx: &RequestContext<RoleServer>) -> Result<String, ToolError> {
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
    fn adopt_session(&self, id: &str) {
        let configured = self.opts.session_id.is_some() || self.opts.fork.is_some();
        if !configured && self.known_session().is_none() {
            let _ = self.session.set(id.to_string());
        }
    }

    fn bound_session(&self) -> Option<String> {
        self.bound.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// The session this connection is in without recording one: bound or already opened.
    fn known_session(&self) -> Option<String> {
        self.bound_session().or_else(|| self.session.get().cloned())
    }

    /// The effective alignment mode of this connection's session (§3.2), or the mode its
    /// instructions were built for while no session is recorded yet.
    async fn current_mode(&self) -> Mode {
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
    fn budget(
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
        // ask_user_question and batch_review check timeout_s with the rest of their
        // arguments (in the daemon); a survey's is checked here, before anything is recorded.
        if !matches!(kind, "questions" | "review") {
            self.budget(&args, &client, ARGUMENTS_CODE)?;
        }
        // A call rejected for invalid arguments never records a session (alignment.md
        // §4.1): a connection's first question is checked before its session is recorded.
        if matches!(kind, "survey" | "questions")
            && self.known_session().is_none()
            && !ctx.meta.contains_key("askd/session")
        {
            self.backend.check(kind, &args).await?;
        }
        let session = self.session(ctx).await?.to_string();
        let replaces = args.get("replaces").and_then(Value::as_str);
        let created: CreatedAsk = self.backend.create(&session, kind, &args, replaces).await?;
        self.grant(&created.ask_id, &session, created.created);
        if created.created
            && self.first_ask.swap(false, Ordering::SeqCst)
            && let Some(hook) = &self.opts.on_first_ask
        {
            hook(&created.url);
        }
        let budget = self.budget(&args, &client, ARGUMENTS_CODE)?;
        self.answering(&created.ask_id, budget, ctx).await
    }

    /// What the calling client declared it can show: per request in
    /// `_meta["io.modelcontextprotocol/clientCapabilities"]` (which wins), or at `initialize`.
    fn modes(ctx: &RequestContext<RoleServer>) -> crate::elicit::Modes {
        if let Some(caps) = ctx.meta.get(META_CLIENT_CAPABILITIES) {
            return caps
                .get("elicitation")
                .map(crate::elicit::Modes::of)
                .unwrap_or_default();
        }
        ctx.peer
            .peer_info()
            .and_then(|i| {
                i.capabilities
                    .elicitation
                    .as_ref()
                    .map(serde_json::to_value)
            })
            .and_then(Result::ok)
            .map(|cap| crate::elicit::Modes::of(&cap))
            .unwrap_or_default()
    }

    /// Whether the calling client renders MCP Apps (`crate::apps`): declared per request in
    /// `_meta["io.modelcontextprotocol/clientCapabilities"]` (which wins), or at `initialize`.
    fn apps(ctx: &RequestContext<RoleServer>) -> bool {
        if let Some(caps) = ctx.meta.get(META_CLIENT_CAPABILITIES) {
            return crate::apps::declared(caps);
        }
        ctx.peer
            .peer_info()
            .and_then(|i| serde_json::to_value(&i.capabilities).ok())
            .is_some_and(|caps| crate::apps::declared(&caps))
    }

    /// `askd_app` (`crate::apps`): one whitelisted call of the app onto the daemon, for an
    /// ask this conversation asked — one this connection's ask tool returned
    /// ([`Self::grant`]), or one whose signed handle the app sends (`handle`, from the ask
    /// tool's result `_meta["askd/app"]`); never on the strength of a client name or a
    /// session named in `_meta`. `{status, body}` as the daemon answered (a refusal of the
    /// daemon is the app's to show, not a tool error).
    async fn app_call(
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

    /// Whether this request speaks 2026-07-28 or later, where a server sends no request of
    /// its own: elicitation is the `input_required` round trip instead.
    fn round_trips(ctx: &RequestContext<RoleServer>) -> bool {
        ctx.protocol_version()
            .is_some_and(|v| v.as_str() >= rmcp::model::ProtocolVersion::V_2026_07_28.as_str())
    }

    /// The ask's page for a browser on this machine (tokenised when the adapter can).
    fn page_link(&self, url: &str) -> String {
        match &self.opts.page_link {
            Some(link) => link(url),
            None => url.to_string(),
        }
    }

    /// The plan for a pending ask and the calling client, if any (`clients.md` §3).
    async fn plan(
        &self,
        ask_id: &str,
        ctx: &RequestContext<RoleServer>,
    ) -> Option<(crate::elicit::Plan, Value)> {
        let modes = Self::modes(ctx);
        if !(modes.form || modes.url) {
            return None;
        }
        // The Settings page's value, when one is saved, takes the place of this adapter's.
        let setting = self
            .backend
            .saved_elicitation()
            .await
            .and_then(|s| crate::elicit::Elicitation::parse(&s))
            .unwrap_or(self.opts.elicitation);
        if setting == crate::elicit::Elicitation::Off {
            return None;
        }
        let ask = self.backend.ask(ask_id).await.ok()?;
        let plan = crate::elicit::plan(&ask, setting, modes)?;
        Some((plan, ask))
    }

    /// The request that puts `plan` in front of the human: a form, or the page's URL.
    fn elicit_request(
        &self,
        plan: &crate::elicit::Plan,
        ask: &Value,
        problem: Option<&str>,
        round: &Round,
    ) -> Option<rmcp::model::ElicitRequest> {
        use crate::stepwise::{self, Style};
        use rmcp::model::ElicitRequestParams;
        let lang = crate::elicit::plan_lang(plan, self.opts.language);
        let url = ask["url"].as_str().unwrap_or_default();
        let form = match (round.style, &round.partial) {
            (Style::Stepwise, Some(first)) => stepwise::followup(plan, first, lang),
            (Style::Stepwise, None) => stepwise::first(plan, lang, url, problem),
            (Style::Combined, _) => crate::elicit::form(plan, lang, url, problem),
        };
        let params = match form {
            Some((message, schema)) => form_params(message, schema)?,
            None => {
                let id = ask["ask_id"].as_str().unwrap_or_default().to_string();
                self.url_elicited
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .insert(id.clone());
                ElicitRequestParams::UrlElicitationParams {
                    meta: None,
                    message: crate::elicit::url_message(ask, lang),
                    url: self.page_link(url),
                    elicitation_id: id,
                }
            }
        };
        Some(rmcp::model::ElicitRequest::new(params))
    }

    /// The next request of `plan` for the ask: the plan's one request, or — for a survey —
    /// the form of the first question on the path (the daemon's path engine, over what is
    /// banked) not banked yet. A survey whose whole path is banked is submitted here
    /// (`Step::Settled`).
    async fn next_step(
        &self,
        ask_id: &str,
        plan: &crate::elicit::Plan,
        ask: &Value,
        problem: Option<&str>,
        round: &Round,
    ) -> Step {
        use crate::stepwise::{self, Style};
        let crate::elicit::Plan::Survey(spec) = plan else {
            return match self.elicit_request(plan, ask, problem, round) {
                Some(r) => Step::Send(Box::new(r), None),
                None => Step::Stop,
            };
        };
        if let (Some(first), Some(q)) = (&round.partial, &round.question) {
            // The text a stepwise survey question's choice asked for.
            return match stepwise::survey_followup(spec, q, first, self.opts.language)
                .and_then(|(m, schema)| form_params(m, schema))
            {
                Some(p) => Step::Send(
                    Box::new(rmcp::model::ElicitRequest::new(p)),
                    Some(q.clone()),
                ),
                None => Step::Stop,
            };
        }
        let Ok(view) = self.backend.ask(ask_id).await else {
            return Step::Stop;
        };
        if view["state"] != "pending" {
            return Step::Settled;
        }
        let (answers, banked) = crate::elicit::banked_answers(&view);
        let Ok(path) = self.backend.path(ask_id, &answers).await else {
            return Step::Stop;
        };
        let Some((index, next)) = path.iter().enumerate().find(|(_, q)| !banked.contains(q)) else {
            // Every question on the path is banked: the survey is complete.
            return match self
                .backend
                .submit(ask_id, &crate::elicit::survey_submit(&view, &path))
                .await
            {
                Ok(_) => Step::Settled,
                Err(e) => {
                    tracing::info!(ask_id, code = %e.code, "the walked survey's submit was refused; waiting for the page");
                    Step::Stop
                }
            };
        };
        let lang = self.opts.language;
        let url = view["url"].as_str().unwrap_or_default();
        let form = match round.style {
            Style::Stepwise => {
                stepwise::survey_first(spec, next, index, path.len(), lang, url, problem)
            }
            Style::Combined => {
                crate::elicit::survey_form(spec, next, index, path.len(), lang, url, problem)
            }
        };
        match form.and_then(|(m, schema)| form_params(m, schema)) {
            Some(p) => Step::Send(
                Box::new(rmcp::model::ElicitRequest::new(p)),
                Some(next.clone()),
            ),
            None => Step::Stop,
        }
    }

    /// What an elicitation's reply does to the ask (`clients.md` §3): an accepted form is
    /// submitted through the page's own submit — a survey question's answer is banked, as the
    /// wizard banks it — and the daemon validates ([`Reply::Again`] with its message when it
    /// refused the answer); a human's decline settles the ask cancelled; a dismissed form, a
    /// URL reply and a decline faster than [`crate::elicit::AUTOMATIC_DECLINE`] leave it
    /// pending. A lost race (409) keeps whatever settled first.
    async fn apply_reply(
        &self,
        ask_id: &str,
        plan: &crate::elicit::Plan,
        (question, round): (Option<&str>, &Round),
        reply: rmcp::model::ElicitResult,
        elapsed: Duration,
    ) -> Reply {
        use crate::stepwise::{self, Style};
        use rmcp::model::ElicitationAction;
        if !plan.is_form() {
            return Reply::Done;
        }
        let lang = crate::elicit::plan_lang(plan, self.opts.language);
        match reply.action {
            ElicitationAction::Accept => {
                let mut content = reply.content.unwrap_or_else(|| json!({}));
                if round.style == Style::Stepwise {
                    let survey = match (plan, question) {
                        (crate::elicit::Plan::Survey(spec), Some(q)) => Some((spec, q)),
                        _ => None,
                    };
                    let (first, second) = match &round.partial {
                        Some(first) => (first.clone(), content),
                        None => {
                            let more = match survey {
                                Some((spec, q)) => {
                                    stepwise::survey_followup(spec, q, &content, lang).is_some()
                                }
                                None => stepwise::followup(plan, &content, lang).is_some(),
                            };
                            if more {
                                return Reply::Followup(content);
                            }
                            (content, Value::Null)
                        }
                    };
                    content = match survey {
                        Some((spec, q)) => stepwise::survey_combined(spec, q, &first, &second),
                        None => stepwise::combined(plan, &first, &second),
                    };
                }
                let sent = match (plan, question) {
                    (crate::elicit::Plan::Survey(spec), Some(q)) => self
                        .backend
                        .bank(ask_id, &crate::elicit::survey_entry(spec, q, &content))
                        .await
                        .map(|()| Reply::Next),
                    _ => self
                        .backend
                        .submit(ask_id, &crate::elicit::answers(plan, &content))
                        .await
                        .map(|_| Reply::Done),
                };
                match sent {
                    Ok(r) => r,
                    Err(e) if e.code.starts_with("invalid-answer") => {
                        Reply::Again(crate::elicit::refused(lang, &e.message))
                    }
                    // Settled elsewhere meanwhile (409), or the daemon is gone: the wait
                    // returns whatever is stored.
                    Err(_) => Reply::Done,
                }
            }
            ElicitationAction::Decline if elapsed < crate::elicit::AUTOMATIC_DECLINE => {
                // Declined before anyone could read it: the client cannot show forms.
                tracing::info!(
                    ask_id,
                    "the client declined the form at once; waiting for the page"
                );
                Reply::Done
            }
            ElicitationAction::Decline => {
                let _ = self.backend.cancel(ask_id).await;
                Reply::Done
            }
            // Dismissed: the ask stays pending in the inbox.
            _ => Reply::Done,
        }
    }

    /// The wait of a new ask, with the ask also in front of the human inside the client when
    /// it can show it (`clients.md` §3): the first valid answer wins. 2025 revisions get a
    /// server request (`elicitation/create`) racing the wait, withdrawn with
    /// `notifications/cancelled` when the ask settles elsewhere; 2026-07-28 gets the
    /// `input_required` round trip ([`INPUT_REQUIRED`]). Every return goes through the
    /// normal wait, so the result is the stored one.
    /// [`Self::wait_answering`], then — when this connection sent the ask's page as a
    /// URL-mode elicitation and the ask is no longer pending — the 2025-11-25
    /// `notifications/elicitation/complete` with its `elicitationId` (the ask id), so the
    /// client can close what it opened.
    async fn answering(
        &self,
        ask_id: &str,
        budget: Option<Duration>,
        ctx: &RequestContext<RoleServer>,
    ) -> Result<Value, ToolError> {
        let result = self.wait_answering(ask_id, budget, ctx).await;
        let sent = self
            .url_elicited
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .contains(ask_id);
        if sent
            && !Self::round_trips(ctx)
            && self
                .backend
                .ask(ask_id)
                .await
                .is_ok_and(|v| v["state"] != "pending")
        {
            self.url_elicited
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .remove(ask_id);
            let complete = rmcp::model::CustomNotification::new(
                "notifications/elicitation/complete",
                Some(json!({"elicitationId": ask_id})),
            );
            let _ = ctx
                .peer
                .send_notification(rmcp::model::ServerNotification::CustomNotification(
                    complete,
                ))
                .await;
        }
        result
    }

    async fn wait_answering(
        &self,
        ask_id: &str,
        budget: Option<Duration>,
        ctx: &RequestContext<RoleServer>,
    ) -> Result<Value, ToolError> {
        use rmcp::model::{ClientResult, ElicitResult, ServerRequest};
        use rmcp::service::PeerRequestOptions;

        if Self::apps(ctx) {
            // The host renders the app from this result (issue 20): the pending handle goes
            // back at once, and the agent continues with await_answer.
            let _ = budget;
            return self.wait(ask_id, Some(Duration::ZERO), ctx).await;
        }
        let Some((plan, ask)) = self.plan(ask_id, ctx).await else {
            return self.wait(ask_id, budget, ctx).await;
        };
        let mut round = Round {
            style: crate::stepwise::Style::for_client(&Self::client_name(ctx)),
            ..Round::default()
        };
        if Self::round_trips(ctx) {
            // 2026-07-28: a form, once out, stays in front of the human until they act on
            // it, however the ask settles meanwhile. So when a person has the desk open (an
            // inbox, an ask page, the terminal UI), the page goes first: the call waits like
            // a 2025 one for [`DESK_FIRST`], returning the moment the page answers, and only
            // then puts the form in the client.
            if plan.is_form() && self.backend.desk_open().await {
                let grace = budget.map_or(DESK_FIRST, |b| b.min(DESK_FIRST));
                let r = self.wait(ask_id, Some(grace), ctx).await?;
                if r["outcome"] != "pending" || budget.is_some_and(|b| b <= DESK_FIRST) {
                    return Ok(r);
                }
            }
            if let Step::Send(request, question) =
                self.next_step(ask_id, &plan, &ask, None, &round).await
            {
                let session = ask["session"].as_str().unwrap_or_default();
                return Err(input_required(
                    &self.opts.seal,
                    (ask_id, session),
                    *request,
                    question,
                    (0, None),
                ));
            }
            return self.wait(ask_id, budget, ctx).await;
        }
        let waiting = self.wait(ask_id, budget, ctx);
        tokio::pin!(waiting);
        let mut problem: Option<String> = None;
        // A refused answer is re-asked with the daemon's message; after three refusals of
        // one answer the call only waits (the page and the terminal stay open).
        let mut refusals = 0;
        loop {
            let Step::Send(request, question) = self
                .next_step(ask_id, &plan, &ask, problem.as_deref(), &round)
                .await
            else {
                break;
            };
            let sent = Instant::now();
            let Ok(mut form) = ctx
                .peer
                .send_cancellable_request(
                    ServerRequest::ElicitRequest(*request),
                    PeerRequestOptions::no_options(),
                )
                .await
            else {
                break;
            };
            let reply = tokio::select! {
                r = &mut waiting => {
                    // Settled elsewhere (page, terminal) or the call ended: withdraw it.
                    let _ = form.cancel(Some("the ask was settled elsewhere".into())).await;
                    return r;
                }
                reply = &mut form.rx => reply,
            };
            let answer = match reply {
                Ok(Ok(ClientResult::ElicitResult(r))) => Some(r),
                Ok(Ok(other)) => serde_json::to_value(&other)
                    .ok()
                    .and_then(|v| serde_json::from_value::<ElicitResult>(v).ok()),
                _ => None,
            };
            let Some(answer) = answer else {
                break;
            };
            match self
                .apply_reply(
                    ask_id,
                    &plan,
                    (question.as_deref(), &round),
                    answer,
                    sent.elapsed(),
                )
                .await
            {
                Reply::Again(p) => {
                    refusals += 1;
                    if refusals >= 3 {
                        break;
                    }
                    problem = Some(p);
                    round.partial = None;
                }
                Reply::Followup(first) => {
                    problem = None;
                    round.partial = Some(first);
                    round.question = question;
                }
                Reply::Next => {
                    problem = None;
                    refusals = 0;
                    round.partial = None;
                }
                Reply::Done => break,
            }
        }
        waiting.await
    }

    /// A 2026-07-28 retry (`inputResponses` + our `requestState`, verified by `call_tool`):
    /// the form's reply acts on the ask (a survey's next question is the next round), then
    /// the call waits like `await_answer` — so an ask settled elsewhere meanwhile returns its
    /// settled result. The state is bound to its ask and session: a retry that runs in
    /// another session (this connection's, or one its `_meta` names) is refused, and so is
    /// an invalid `timeout_s`, before anything is applied.
    async fn resume(
        &self,
        args: Value,
        state: RoundState,
        responses: Option<&rmcp::model::InputResponses>,
        ctx: &RequestContext<RoleServer>,
    ) -> Result<Value, ToolError> {
        timeout_arg(&args, ARGUMENTS_CODE)?;
        let current = ctx
            .meta
            .get("askd/session")
            .and_then(Value::as_str)
            .map(str::trim)
            .filter(|id| !id.is_empty())
            .map(str::to_string)
            .or_else(|| self.known_session());
        if current.is_some_and(|c| c != state.session) {
            return Err(state_refused(
                "it was issued for an ask of another session than this call's",
            ));
        }
        let view = self.backend.ask(&state.ask).await?;
        if view["session"] != state.session.as_str() {
            return Err(state_refused("it does not match its ask"));
        }
        // The retry runs in the session askd sealed into its state: a stateless request (a
        // new server per request on `/mcp`) must not open a second, empty session for it.
        self.adopt_session(&state.session);
        let reply = responses
            .and_then(|r| r.get(ELICIT_KEY))
            .and_then(|v| serde_json::from_value::<rmcp::model::ElicitResult>(v.clone()).ok());
        let planned = self.plan(&state.ask, ctx).await;
        if let (Some(reply), Some((plan, ask))) = (reply, planned) {
            let now = unix_ms();
            let elapsed = Duration::from_millis(now.saturating_sub(state.sent));
            let mut round = Round {
                style: crate::stepwise::Style::for_client(&Self::client_name(ctx)),
                partial: state.partial.clone(),
                question: state.q.clone(),
            };
            let (problem, tries) = match self
                .apply_reply(
                    &state.ask,
                    &plan,
                    (state.q.as_deref(), &round),
                    reply,
                    elapsed,
                )
                .await
            {
                Reply::Again(p) if state.tries < 2 => {
                    round.partial = None;
                    (Some(p), state.tries + 1)
                }
                Reply::Followup(first) => {
                    round.partial = Some(first);
                    (None, state.tries)
                }
                Reply::Next => {
                    round.partial = None;
                    (None, 0)
                }
                _ => (None, u32::MAX),
            };
            if tries != u32::MAX
                && let Step::Send(request, question) = self
                    .next_step(&state.ask, &plan, &ask, problem.as_deref(), &round)
                    .await
            {
                let e = input_required(
                    &self.opts.seal,
                    (&state.ask, &state.session),
                    *request,
                    question,
                    (tries, round.partial),
                );
                return Err(match &state.draft {
                    Some(slug) => carry_draft(&self.opts.seal, e, slug),
                    None => e,
                });
            }
        }
        let mut wait = json!({"ask_id": state.ask});
        if let Some(t) = args.get("timeout_s") {
            wait["timeout_s"] = t.clone();
        }
        let Some(slug) = &state.draft else {
            return self.run(tools::AWAIT_ANSWER, wait, ctx).await;
        };
        // A resumed survey_draft_launch returns what the launch would have.
        match self.run(tools::AWAIT_ANSWER, wait, ctx).await {
            Ok(result) => Ok(askd_core::survey::draft::launch_result(result, slug)),
            Err(e) => Err(carry_draft(&self.opts.seal, e, slug)),
        }
    }

    /// `survey_draft_launch` (`survey.md` §10.6): the gate and the ask in the daemon, then
    /// the same wait as `ask_survey`; the result names the draft.
    async fn launch_tool(
        &self,
        args: Value,
        ctx: &RequestContext<RoleServer>,
    ) -> Result<Value, ToolError> {
        let client = Self::client_name(ctx);
        let budget = self.budget(&args, &client, ARGUMENTS_CODE)?;
        let session = self.session(ctx).await?.to_string();
        let launched = self.backend.draft_launch(&session, &args).await?;
        self.grant(&launched.ask_id, &session, launched.created);
        if launched.created
            && self.first_ask.swap(false, Ordering::SeqCst)
            && let Some(hook) = &self.opts.on_first_ask
        {
            hook(&launched.url);
        }
        let result = self
            .answering(&launched.ask_id, budget, ctx)
            .await
            .map_err(|e| carry_draft(&self.opts.seal, e, &launched.draft))?;
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
            tools::ASK_SURVEY => {
                let r = self.ask_tool("survey", args.clone(), ctx).await?;
                self.with_alignment(r, &args, ctx).await
            }
            tools::ASK_USER_QUESTION => {
                let r = self.ask_tool("questions", args.clone(), ctx).await?;
                self.with_alignment(r, &args, ctx).await
            }
            tools::ALIGN
            | tools::ALIGNMENT_STATUS
            | tools::SET_ALIGNMENT_MODE
            | tools::ESTABLISH_BASELINE => self.alignment_tool(name, args, ctx).await,
            tools::BATCH_REVIEW => self.ask_tool("review", args, ctx).await,
            tools::REPORT_DRIFT => self.drift_tool(args, ctx).await,
            tools::AWAIT_ANSWER => {
                let Some(ask_id) = args.get("ask_id").and_then(Value::as_str) else {
                    return Err(argument_error(
                        "ask_id",
                        "ask_id is required: the ask_id of the pending handle",
                    ));
                };
                let client = Self::client_name(ctx);
                let budget = self.budget(&args, &client, ARGUMENTS_CODE)?;
                let result = self.wait(ask_id, budget, ctx).await?;
                // A question's result carries the alignment tail here too (§5.7); a drift
                // card's result carries the guidance lines like report_drift's.
                let ask = self.backend.ask(ask_id).await.ok();
                // A connection that has recorded no session yet (a stateless `/mcp` request,
                // a fresh adapter) reads the tail of the ask's own session rather than
                // opening an empty one for it.
                let tail_session = (self.known_session().is_none()
                    && ctx.meta.get("askd/session").is_none())
                .then(|| {
                    ask.as_ref()
                        .and_then(|a| a["session"].as_str())
                        .map(str::to_string)
                })
                .flatten();
                let kind = ask.and_then(|a| a["kind"].as_str().map(str::to_string));
                match kind.as_deref() {
                    Some("questions" | "survey") => {
                        self.with_alignment_in(result, &json!({}), ctx, tail_session)
                            .await
                    }
                    Some("drift") => {
                        let session = result["session"].as_str().unwrap_or_default().to_string();
                        Ok(self.with_guidance(result, &session).await)
                    }
                    _ => Ok(result),
                }
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
            tools::SURVEY_DRAFT_LAUNCH => {
                let r = self.launch_tool(args.clone(), ctx).await?;
                self.with_alignment(r, &args, ctx).await
            }
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
            crate::apps::APP_TOOL => self.app_call(&args, ctx).await,
            other => Err(ToolError::new(
                "UNKNOWN_TOOL",
                format!(
                    "askd has no tool named {other:?}; its tools are ask_survey, survey_draft_set, survey_draft_get, survey_draft_launch, ask_user_question, await_answer, survey_records, withdraw_ask, batch_review, align, alignment_status, establish_baseline, report_drift, set_alignment_mode"
                ),
            )),
        }
    }
}

impl AskdServer {
    fn lang(&self) -> Lang {
        Lang::parse(self.opts.language)
    }

    fn configured(&self) -> Value {
        json!({"configured": self.opts.alignment_mode.as_str(), "lang": self.opts.language})
    }

    /// The session an alignment call runs in: the `session` selector (continue, for this
    /// call), or the connection's session.
    async fn alignment_session(
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

    /// The session an alignment tool runs in and its status, or `alignment_off` when the
    /// session's mode does not list the tool (§5.1: a stale client's call records nothing).
    async fn alignment_gate(
        &self,
        name: &str,
        args: &Value,
        before: Option<usize>,
        ctx: &RequestContext<RoleServer>,
    ) -> Result<(String, Value), ToolError> {
        let session = self.alignment_session(args, ctx).await?;
        let mut body = self.configured();
        if let Some(b) = before {
            body["before"] = json!(b);
        }
        let status = self
            .backend
            .alignment(&session, "status", &body)
            .await
            .map_err(session_error)?;
        let effective = Mode::parse(status["mode"]["effective"].as_str().unwrap_or("auto"))
            .unwrap_or(Mode::Auto);
        if tools::alignment_off(name, effective) {
            return Err(ToolError::new(
                "alignment_off",
                format!(
                    "{name} is unavailable: alignment is off for this session. Call set_alignment_mode with mode \"auto\" or \"manual\" (or \"default\") to switch it back on."
                ),
            ));
        }
        Ok((session, status))
    }

    /// Attaches the alignment tail to a question result in `auto` mode (`alignment.md`
    /// §5.7, §5.8): the structured `alignment` member, and the tail as a text block.
    async fn with_alignment(
        &self,
        result: Value,
        args: &Value,
        ctx: &RequestContext<RoleServer>,
    ) -> Result<Value, ToolError> {
        self.with_alignment_in(result, args, ctx, None).await
    }

    /// [`Self::with_alignment`] in `session` when given, else in this connection's.
    async fn with_alignment_in(
        &self,
        mut result: Value,
        args: &Value,
        ctx: &RequestContext<RoleServer>,
        session: Option<String>,
    ) -> Result<Value, ToolError> {
        if result.get("error").is_some() || !result.is_object() {
            return Ok(result);
        }
        let session = match session {
            Some(s) => s,
            None => match self.session(ctx).await {
                Ok(s) => s,
                Err(_) => return Ok(result),
            },
        };
        let this_ask = result
            .get("ask_id")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string();
        let mut body = self.configured();
        // repeat_of is looked up by the daemon among all the session's decisions; the status
        // lists only a page of them.
        body["repeat"] = json!({"ask_id": this_ask, "questions": asked_questions(args)});
        let Ok(view) = self.backend.alignment(&session, "status", &body).await else {
            return Ok(result);
        };
        let notice = self.announce(&view, ctx).await;
        if view["mode"]["effective"] != "auto" {
            // manual / off: the member only carries a one-shot notice.
            if let Some(n) = notice {
                result["alignment"] =
                    json!({"session": session, "mode": view["mode"]["effective"], "notice": n});
            }
            return Ok(result);
        }
        let repeat_of = match view.get("repeat_of") {
            Some(r) => r.clone(),
            // A daemon of an older askd answers without it: its page is all it has.
            None => repeat_of_settled(&view, args, &this_ask),
        };
        result["alignment"] = json!({
            "session": session,
            "mode": "auto",
            "rounds": view["rounds"],
            "posture": view["posture"],
            "baseline_revision": view["baseline"]["revision"].as_u64().unwrap_or(0),
            "repeat_of": repeat_of,
            "guidance": view["guidance"],
            "notice": notice,
        });
        Ok(result)
    }

    /// T7, once: when the session's effective mode differs from the mode announced to this
    /// connection, the notice (with the policy text when switching to `auto` on a connection
    /// that lacks it), and the announced mode moves on.
    /// [`Self::mode_notice`], and when the announced mode moved, `tools/list_changed` and
    /// `prompts/list_changed` to this connection (§3.4).
    async fn announce(&self, view: &Value, ctx: &RequestContext<RoleServer>) -> Option<String> {
        let notice = self.mode_notice(view)?;
        let _ = ctx.peer.notify_tool_list_changed().await;
        let _ = ctx.peer.notify_prompt_list_changed().await;
        // A 2026-07-28 client hears list changes on its subscriptions/listen streams.
        let sinks = self
            .subscriptions
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone();
        for sink in sinks {
            let _ = sink.notify_tool_list_changed().await;
            let _ = sink.notify_prompt_list_changed().await;
        }
        Some(notice)
    }

    fn mode_notice(&self, view: &Value) -> Option<String> {
        let effective = Mode::parse(view["mode"]["effective"].as_str()?)?;
        let mut announced = self.announced.lock().unwrap_or_else(|e| e.into_inner());
        if *announced == effective {
            return None;
        }
        *announced = effective;
        let policy = (effective == Mode::Auto && !self.has_policy.swap(true, Ordering::SeqCst))
            .then(|| instructions_section(self.lang(), self.opts.alignment_section.as_deref()));
        let actor = view["mode"]["set_by"].as_str().unwrap_or("configuration");
        Some(mode_notice(
            effective,
            actor,
            policy.as_deref(),
            self.lang(),
        ))
    }

    /// `align`, `alignment_status` and `set_alignment_mode` (`alignment.md` §5.2–§5.4).
    async fn alignment_tool(
        &self,
        name: &str,
        args: Value,
        ctx: &RequestContext<RoleServer>,
    ) -> Result<Value, ToolError> {
        // Validate every argument before anything is recorded (§5.1).
        if name == tools::ESTABLISH_BASELINE
            && let Err(problems) = askd_core::alignment::baseline::validate(&args)
        {
            return Err(invalid_arguments(&problems));
        }
        let allowed: &[&str] = match name {
            tools::ESTABLISH_BASELINE => &askd_core::alignment::baseline::FIELDS,
            tools::ALIGN => &["session", "note"],
            tools::ALIGNMENT_STATUS => &["session", "detail", "before"],
            _ => &["session", "mode"],
        };
        if let Some(obj) = args.as_object()
            && let Some(unknown) = obj.keys().find(|k| !allowed.contains(&k.as_str()))
        {
            return Err(invalid_argument(
                unknown,
                &format!("unknown field {unknown:?}; allowed: {}", allowed.join(", ")),
            ));
        }
        let note = match args.get("note") {
            None | Some(Value::Null) => None,
            Some(Value::String(n))
                if !n.trim().is_empty() && n.trim().chars().count() <= CHECK_NOTE_MAX =>
            {
                Some(n.trim().to_string())
            }
            Some(_) => {
                return Err(invalid_argument(
                    "note",
                    &format!("note must be 1 to {CHECK_NOTE_MAX} characters"),
                ));
            }
        };
        match args.get("detail") {
            None | Some(Value::Null) => {}
            Some(Value::String(d)) if d == "summary" || d == "full" => {}
            Some(_) => {
                return Err(invalid_argument(
                    "detail",
                    "detail must be \"summary\" or \"full\"",
                ));
            }
        }
        let mode = match args.get("mode").and_then(Value::as_str) {
            Some(m @ ("auto" | "manual" | "off" | "default")) => Some(m.to_string()),
            _ if name == tools::SET_ALIGNMENT_MODE => {
                return Err(invalid_argument(
                    "mode",
                    "mode must be one of \"auto\", \"manual\", \"off\" or \"default\"",
                ));
            }
            _ => None,
        };
        let before = match args.get("before") {
            None | Some(Value::Null) => None,
            Some(b) => Some(b.as_u64().map(|b| b as usize).ok_or_else(|| {
                invalid_argument(
                    "before",
                    "before must be a non-negative integer: the cursor a previous alignment_status gave in settled_decisions_page.before",
                )
            })?),
        };
        let (session, status) = self.alignment_gate(name, &args, before, ctx).await?;
        let configured = self.configured();
        let mut result = self
            .alignment_result(
                name,
                &args,
                &session,
                (status, configured),
                note.as_deref(),
                mode,
                ctx,
            )
            .await?;
        // What the agent reads stays small however long the session is (clients.md §2.8).
        if name == tools::ALIGNMENT_STATUS {
            askd_core::alignment::status::bound_status(&mut result, before);
        } else if result.get("status").is_some_and(Value::is_object) {
            askd_core::alignment::status::bound_status(&mut result["status"], None);
        }
        Ok(result)
    }

    /// The daemon's answer to one alignment tool, before it is bounded for the agent.
    #[allow(clippy::too_many_arguments)]
    async fn alignment_result(
        &self,
        name: &str,
        args: &Value,
        session: &str,
        (status, configured): (Value, Value),
        note: Option<&str>,
        mode: Option<String>,
        ctx: &RequestContext<RoleServer>,
    ) -> Result<Value, ToolError> {
        let session = session.to_string();
        let note = note.map(str::to_string);
        match name {
            tools::ALIGNMENT_STATUS if args.get("detail") == Some(&json!("full")) => {
                let mut body = configured;
                body["detail"] = json!("full");
                if let Some(b) = status["settled_decisions_page"].get("to") {
                    // The page the gate's status listed (its `before`, applied).
                    body["before"] = b.clone();
                }
                self.backend
                    .alignment(&session, "status", &body)
                    .await
                    .map_err(session_error)
            }
            tools::ALIGNMENT_STATUS => Ok(status),
            tools::ESTABLISH_BASELINE => {
                let mut body = configured;
                let mut a = args.clone();
                if let Some(o) = a.as_object_mut() {
                    o.remove("session");
                }
                body["args"] = a;
                self.backend
                    .alignment(&session, "baseline", &body)
                    .await
                    .map_err(session_error)
            }
            tools::ALIGN => {
                let mut body = configured;
                body["via"] = json!("tool");
                if let Some(n) = &note {
                    body["note"] = json!(n);
                }
                let mut r = self
                    .backend
                    .alignment(&session, "check", &body)
                    .await
                    .map_err(session_error)?;
                r["instruction"] = json!(check_instruction(self.lang(), note.as_deref()));
                Ok(r)
            }
            _ => {
                let mut body = configured;
                body["mode"] = json!(mode);
                body["actor"] = json!("agent");
                let r = self
                    .backend
                    .alignment(&session, "mode", &body)
                    .await
                    .map_err(session_error)?;
                let changed = r["changed"].as_bool().unwrap_or(false);
                // The switch was made from this connection: the notice (and any policy
                // text) comes back in this result.
                let notice = self.announce(&json!({"mode": r["mode"]}), ctx).await;
                let policy = notice
                    .as_deref()
                    .and_then(|n| n.split_once("\n\n"))
                    .map(|(_, p)| p.to_string());
                Ok(json!({
                    "session": session,
                    "changed": changed,
                    "mode": r["mode"],
                    "notice": notice,
                    "policy": policy,
                }))
            }
        }
    }
}

impl AskdServer {
    /// `report_drift` (`alignment.md` §5.6): validate, report (or re-attach) in the daemon,
    /// then wait for the card like any ask.
    async fn drift_tool(
        &self,
        args: Value,
        ctx: &RequestContext<RoleServer>,
    ) -> Result<Value, ToolError> {
        // Every argument is validated before anything is recorded (§5.1).
        if let Err(problems) = askd_core::alignment::drift::validate(&args) {
            return Err(invalid_arguments(&problems));
        }
        let client = Self::client_name(ctx);
        let budget = self.budget(&args, &client, "invalid_argument")?;
        let (session, _) = self
            .alignment_gate(tools::REPORT_DRIFT, &args, None, ctx)
            .await?;
        let mut body = self.configured();
        let mut a = args.clone();
        if let Some(o) = a.as_object_mut() {
            o.remove("session");
            o.remove("timeout_s");
        }
        body["args"] = a;
        let reported = self
            .backend
            .alignment(&session, "report_drift", &body)
            .await
            .map_err(session_error)?;
        if reported.get("error").is_some() {
            return Ok(reported);
        }
        let result = match reported.get("result") {
            Some(r) if !r.is_null() => {
                let ask_id = r["ask_id"].as_str().unwrap_or_default();
                self.grant(ask_id, &session, false);
                r.clone()
            }
            _ => {
                let ask_id = reported["ask_id"].as_str().unwrap_or_default().to_string();
                self.grant(&ask_id, &session, reported["created"] == true);
                if reported["created"] == true
                    && self.first_ask.swap(false, Ordering::SeqCst)
                    && let Some(hook) = &self.opts.on_first_ask
                {
                    hook(reported["url"].as_str().unwrap_or_default());
                }
                self.answering(&ask_id, budget, ctx).await?
            }
        };
        Ok(self.with_guidance(result, &session).await)
    }

    /// The session's tail lines as `guidance` on an alignment result (auto and manual mode,
    /// §5.8), read after the result so they reflect it.
    async fn with_guidance(&self, mut result: Value, session: &str) -> Value {
        if !result.is_object() || result.get("error").is_some() || session.is_empty() {
            return result;
        }
        if let Ok(view) = self
            .backend
            .alignment(session, "status", &self.configured())
            .await
            && view["mode"]["effective"] != "off"
        {
            result["guidance"] = view["guidance"].clone();
        }
        result
    }
}

/// `{ask_id, question_id, chosen}` of the first settled decision (of another ask) that one of
/// the asked questions repeats (`alignment.md` §5.7).
/// The question texts of an `ask_user_question` call's arguments, in order.
fn asked_questions(args: &Value) -> Vec<&str> {
    match args.get("questions") {
        Some(Value::Array(qs)) => qs
            .iter()
            .filter_map(|q| q.get("question").and_then(Value::as_str))
            .collect(),
        _ => Vec::new(),
    }
}

fn repeat_of_settled(view: &Value, args: &Value, this_ask: &str) -> Value {
    let settled = view["settled_decisions"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let asked: Vec<String> = asked_questions(args)
        .into_iter()
        .map(normalize_question)
        .collect();
    for q in asked.iter().filter(|q| !q.is_empty()) {
        if let Some(d) = settled.iter().find(|d| {
            d["ask_id"] != this_ask
                && d["question"].as_str().map(normalize_question).as_ref() == Some(q)
        }) {
            return json!({"ask_id": d["ask_id"], "question_id": d["question_id"], "chosen": d["chosen"]});
        }
    }
    Value::Null
}

/// `invalid_argument` listing every problem (the envelope names the first one's path).
fn invalid_arguments(problems: &[askd_core::Problem]) -> ToolError {
    let mut e = ToolError::new(
        "invalid_argument",
        askd_core::problem::join_messages(problems),
    );
    e.errors = Some(json!(problems));
    e
}

fn invalid_argument(field: &str, message: &str) -> ToolError {
    let mut e = ToolError::new("invalid_argument", message);
    e.errors = Some(json!([{"path": field, "code": "invalid_argument", "message": message}]));
    e
}

/// The daemon's `unknown-session` as the alignment tools' `unknown_session`.
fn session_error(mut e: ToolError) -> ToolError {
    if e.code == "unknown-session" {
        e.code = "unknown_session".into();
    }
    e
}

/// The code of `await_answer`'s and the ask tools' own argument errors (`timeout_s`, …).
const ARGUMENTS_CODE: &str = "INVALID_ARGUMENTS";

fn argument_error(path: &str, message: &str) -> ToolError {
    let mut e = ToolError::new("INVALID_ARGUMENTS", message);
    e.errors = Some(json!([{"path": path, "code": "required", "message": message}]));
    e
}

/// DeepSeek Harness's MCP client cuts tool calls at 60 s.
pub fn is_short_client(name: &str) -> bool {
    client_budget(name).is_some_and(|b| b <= SHORT_CLIENT_BUDGET)
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
        Ok(v) => {
            // The alignment tail (alignment.md §5.8) as a second text block.
            let tail = v
                .get("alignment")
                .and_then(|a| a.get("guidance"))
                .or_else(|| v.get("guidance"))
                .or_else(|| v.get("status").and_then(|s| s.get("guidance")))
                .and_then(Value::as_array)
                .map(|lines| {
                    lines
                        .iter()
                        .filter_map(Value::as_str)
                        .collect::<Vec<_>>()
                        .join("\n")
                })
                .filter(|t| !t.is_empty());
            let notice = v
                .get("notice")
                .or_else(|| v.get("alignment").and_then(|a| a.get("notice")))
                .and_then(Value::as_str)
                .map(str::to_string);
            let mut result = CallToolResult::structured(v);
            if let Some(t) = tail {
                result.content.push(ContentBlock::text(t));
            }
            if let Some(n) = notice {
                result.content.push(ContentBlock::text(n));
            }
            result
        }
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

impl AskdServer {
    /// askd's instructions, then the alignment policy in `auto` mode (`alignment.md` §2.1,
    /// §2.6): the built-in text under its heading, or the configured `section` verbatim.
    fn instructions(&self) -> String {
        let base = instructions::text(self.opts.language);
        if self.opts.initial_mode.unwrap_or(self.opts.alignment_mode) == Mode::Auto {
            let section = instructions_section(self.lang(), self.opts.alignment_section.as_deref());
            format!("{base}\n\n{section}")
        } else {
            base.to_string()
        }
    }
}

impl ServerHandler for AskdServer {
    /// `subscriptions/listen` (2026-07-28): askd's tool and prompt lists follow the
    /// session's alignment mode, so a client may listen for their changes.
    fn accepted_subscription_filter(
        &self,
        _requested: &rmcp::model::SubscriptionFilter,
    ) -> Option<rmcp::model::SubscriptionFilter> {
        let mut accepted = rmcp::model::SubscriptionFilter::new();
        accepted.tools_list_changed = Some(true);
        accepted.prompts_list_changed = Some(true);
        Some(accepted)
    }

    async fn listen(&self, context: rmcp::service::SubscriptionContext) -> Result<(), ErrorData> {
        let id = context.sink().id().clone();
        self.subscriptions
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(context.sink().clone());
        context.cancelled().await;
        self.subscriptions
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .retain(|s| *s.id() != id);
        Ok(())
    }

    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_tool_list_changed()
                .enable_prompts()
                .enable_prompts_list_changed()
                .enable_resources()
                .build(),
        )
        .with_server_info(Implementation::new("askd", env!("CARGO_PKG_VERSION")))
        .with_instructions(self.instructions())
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let mut listed = tools::listed(self.current_mode().await);
        if Self::apps(&context) {
            crate::apps::decorate(&mut listed);
        }
        Ok(ListToolsResult::with_all_items(listed))
    }

    async fn list_prompts(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, ErrorData> {
        let mut skill = Prompt::new(
            instructions::SKILL_NAME,
            Some(
                "The survey authoring doctrine: the builder loop, the bar, the insight triple, the writing standard, result handling. Load it before authoring.",
            ),
            None,
        );
        skill.title = Some("Author rich questions".into());
        if self.current_mode().await == Mode::Off {
            return Ok(ListPromptsResult::with_all_items(vec![skill]));
        }
        let mut session = PromptArgument::new("session");
        session.description = Some("Continue this askd session (its id).".into());
        session.required = Some(false);
        let mut note = PromptArgument::new("note");
        note.description = Some("Your focus for the check (at most 500 characters).".into());
        note.required = Some(false);
        let mut prompt = Prompt::new(
            tools::ALIGN,
            Some(
                "Check requirements alignment: askd records the check and gives the agent its session report and the check instruction.",
            ),
            Some(vec![session, note]),
        );
        prompt.title = Some("Check alignment".into());
        Ok(ListPromptsResult::with_all_items(vec![prompt, skill]))
    }

    /// The `align` prompt (`alignment.md` §5.2): records a check (via prompt, actor human),
    /// then returns one user message: the instruction, a blank line, the report.
    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, ErrorData> {
        if request.name == instructions::SKILL_NAME {
            let text = instructions::skill(self.opts.language);
            return Ok(
                GetPromptResult::new(vec![PromptMessage::new_text(Role::User, text)])
                    .with_description("The survey authoring doctrine")
                    .into(),
            );
        }
        if request.name != tools::ALIGN {
            return Err(ErrorData::invalid_params(
                format!(
                    "askd has no prompt named {:?}; its prompts are align and {}",
                    request.name,
                    instructions::SKILL_NAME
                ),
                None,
            ));
        }
        let args = request
            .arguments
            .map(Value::Object)
            .unwrap_or_else(|| json!({}));
        let note = args
            .get("note")
            .and_then(Value::as_str)
            .map(check_note)
            .transpose()
            .map_err(|m| ErrorData::invalid_params(m, None))?
            .flatten()
            .map(str::to_string);
        let session = self
            .alignment_session(&args, &context)
            .await
            .map_err(|e| ErrorData::invalid_params(e.message, None))?;
        let mut body = self.configured();
        body["via"] = json!("prompt");
        if let Some(n) = &note {
            body["note"] = json!(n);
        }
        let r = self
            .backend
            .alignment(&session, "check", &body)
            .await
            .map_err(|e| ErrorData::invalid_params(format!("{}: {}", e.code, e.message), None))?;
        let instruction = check_instruction(self.lang(), None);
        let mut text = format!(
            "{instruction}\n\n{}",
            r["report"].as_str().unwrap_or_default()
        );
        if let Some(n) = &note {
            text.push_str(&format!("\n\nThe human's focus for this check: {n}"));
        }
        Ok(
            GetPromptResult::new(vec![PromptMessage::new_text(Role::User, text)])
                .with_description("Requirements alignment check")
                .into(),
        )
    }

    /// The authoring skill as a resource (`survey.md` §13.1).
    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        let text = instructions::skill(self.opts.language);
        let skill = Resource::new(instructions::SKILL_URI, instructions::SKILL_NAME)
            .with_title("Author rich questions")
            .with_description("The survey authoring doctrine; read it before authoring.")
            .with_mime_type("text/markdown")
            .with_size(text.len() as u64);
        let mut listed = vec![skill];
        if Self::apps(&context) {
            let doc = crate::app_html::document();
            listed.push(
                Resource::new(crate::apps::RESOURCE_URI, "askd-ask")
                    .with_title("askd ask")
                    .with_description(
                        "Every askd ask (survey, questions, review, drift card) as an MCP App.",
                    )
                    .with_mime_type(crate::apps::MIME_TYPE)
                    .with_size(doc.len() as u64)
                    .with_meta(crate::apps::resource_meta()),
            );
        }
        Ok(ListResourcesResult::with_all_items(listed))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        if request.uri == crate::apps::RESOURCE_URI && Self::apps(&context) {
            let contents =
                ResourceContents::text(crate::app_html::document(), crate::apps::RESOURCE_URI)
                    .with_mime_type(crate::apps::MIME_TYPE)
                    .with_meta(crate::apps::resource_meta());
            return Ok(ReadResourceResult::new(vec![contents]).into());
        }
        if request.uri != instructions::SKILL_URI {
            return Err(ErrorData::resource_not_found(
                format!(
                    "askd has no resource {:?}; its resource is {}",
                    request.uri,
                    instructions::SKILL_URI
                ),
                None,
            ));
        }
        let text = instructions::skill(self.opts.language);
        let contents =
            ResourceContents::text(text, instructions::SKILL_URI).with_mime_type("text/markdown");
        Ok(ReadResourceResult::new(vec![contents]).into())
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
        // A retry's requestState is askd's own, unaltered, or the retry is refused: it never
        // falls back to running the call as new, nor to waiting on whatever it names.
        let result = match request.request_state.as_deref() {
            Some(sealed) => match self
                .opts
                .seal
                .open::<RoundState>(crate::seal::Purpose::RequestState, sealed)
            {
                Some(state) => {
                    self.resume(args, state, request.input_responses.as_ref(), &context)
                        .await
                }
                None => Err(state_refused("it does not verify")),
            },
            None => self.run(&request.name, args, &context).await,
        };
        if let Err(e) = &result
            && e.code == INPUT_REQUIRED
            && let Some(r) = e
                .errors
                .clone()
                .and_then(|v| serde_json::from_value::<rmcp::model::InputRequiredResult>(v).ok())
        {
            return Ok(CallToolResponse::InputRequired(r));
        }
        // An MCP App host renders the app from an ask tool's result: the app gets the ask's
        // signed handle in `_meta["askd/app"]`.
        let app = (Self::apps(&context) && crate::apps::ASK_TOOLS.contains(&request.name.as_ref()))
            .then(|| self.app_meta(&result))
            .flatten();
        let mut result = to_call_result(result);
        if let Some(app) = app {
            result
                .meta
                .get_or_insert_with(Default::default)
                .insert(crate::apps::META_KEY.into(), app);
        }
        // The alignment tools' errors open with "<tool>: " (alignment.md §5.1).
        let alignment_tool = matches!(
            request.name.as_ref(),
            tools::ALIGN
                | tools::ALIGNMENT_STATUS
                | tools::SET_ALIGNMENT_MODE
                | tools::ESTABLISH_BASELINE
                | tools::REPORT_DRIFT
        );
        if alignment_tool
            && result.is_error == Some(true)
            && let Some(first) = result.content.first_mut()
            && let Some(text) = first.as_text()
            && !text.text.starts_with(&format!("{}: ", request.name))
        {
            *first = ContentBlock::text(format!("{}: {}", request.name, text.text));
        }
        Ok(result.into())
    }
}

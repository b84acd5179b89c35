//! The MCP server: one [`AskdServer`] per MCP session (the stdio adapter has one; `/mcp`
//! makes one per HTTP session). It lists the tools, opens the askd session lazily with the
//! client's name, and runs each tool against a [`Backend`]: create, then wait with progress
//! notifications and a wait budget, returning the result or the durable pending handle.
//!
//! # Layout
//! - this module — [`Options`], [`AskdServer`] and what it reads of a request (the client's
//!   name, capabilities, protocol revision), and `run`, which dispatches a tool by name.
//! - `handler` — the rmcp `ServerHandler`: tools, prompts, resources, subscriptions, and
//!   `call_tool`, which opens a retry's `requestState` and shapes the result.
//! - `session` — the session a call runs in (lazy open, `_meta`, the `session` selector,
//!   adoption by a resumed round) and the wait budget ([`client_budget`]).
//! - `wait` — the ask tools (create, then wait), `await_answer`, and the wait loop with
//!   progress notifications and cancellation.
//! - `elicitation` — the ask in front of the human inside the client (`clients.md` §3): the
//!   plan, the next form or URL, what a reply does, and the 2025 `elicitation/create` race.
//! - `round` — the 2026-07-28 `input_required` round trip: [`RoundState`], sealed as the
//!   `requestState`, and `resume`, the retry that brings the reply.
//! - `app` — the MCP App's `askd_app` tool and the grants it checks.
//! - `alignment` — the alignment tools, their gate, the result's alignment tail, drift.
//! - `errors` — argument errors and the one mapping of a result to a `CallToolResult`.
//! - `tasks` — every ask a durable MCP task, in both eras (issue 33; the wire is
//!   [`crate::tasks`]'s): a task's id is its ask's, its state read from the daemon.

mod alignment;
mod app;
mod elicitation;
mod errors;
mod handler;
mod round;
mod session;
mod tasks;
mod wait;

use round::ToolOutcome;
pub use round::{DESK_FIRST, ELICIT_KEY, REQUEST_STATE_REFUSED, RoundState};
pub use session::{SHORT_CLIENT_BUDGET, client_budget, is_short_client};

use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use rmcp::RoleServer;
use rmcp::service::RequestContext;
use serde_json::{Value, json};
use tokio::sync::OnceCell;

use crate::backend::{Backend, ToolError};
use crate::{instructions, tools};
use askd_core::alignment::policy::instructions_section;
use askd_core::alignment::{Lang, Mode};
use errors::{argument_error, unknown_tool};

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
    pub language: Lang,
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

impl Default for Options {
    fn default() -> Self {
        Options {
            session_id: None,
            workspace: None,
            max_wait: None,
            language: Lang::En,
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

    fn lang(&self) -> Lang {
        self.opts.language
    }

    fn configured(&self) -> Value {
        json!({"configured": self.opts.alignment_mode.as_str(), "lang": self.opts.language.as_str()})
    }

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

    /// One tool call, by name. The calls that wait on an ask may end in a 2026-07-28
    /// `input_required` round ([`ToolOutcome::InputRequired`]); every other tool is
    /// [`Self::run_done`]'s.
    async fn run(
        &self,
        name: &str,
        args: Value,
        ctx: &RequestContext<RoleServer>,
    ) -> Result<ToolOutcome, ToolError> {
        match name {
            tools::ASK_SURVEY => {
                let r = self.ask_tool("survey", args.clone(), ctx).await?;
                self.with_alignment_done(r, &args, ctx).await
            }
            tools::ASK_USER_QUESTION => {
                let r = self.ask_tool("questions", args.clone(), ctx).await?;
                self.with_alignment_done(r, &args, ctx).await
            }
            tools::BATCH_REVIEW => self.ask_tool("review", args, ctx).await,
            tools::REPORT_DRIFT => self.drift_tool(args, ctx).await,
            tools::SURVEY_DRAFT_LAUNCH => {
                let r = self.launch_tool(args.clone(), ctx).await?;
                self.with_alignment_done(r, &args, ctx).await
            }
            _ => self.run_done(name, args, ctx).await.map(ToolOutcome::Done),
        }
    }

    /// A tool call that never puts a form in front of the human.
    async fn run_done(
        &self,
        name: &str,
        args: Value,
        ctx: &RequestContext<RoleServer>,
    ) -> Result<Value, ToolError> {
        match name {
            tools::ALIGN
            | tools::ALIGNMENT_STATUS
            | tools::SET_ALIGNMENT_MODE
            | tools::ESTABLISH_BASELINE => self.alignment_tool(name, args, ctx).await,
            tools::AWAIT_ANSWER => self.await_answer(args, ctx).await,
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
            other => Err(unknown_tool(other)),
        }
    }
}

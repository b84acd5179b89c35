//! askd's MCP surface: the tools agents call, their schemas and result shapes, served over
//! stdio (`askd mcp`, the adapter) and streamable HTTP (`/mcp`, which the binary mounts on
//! the daemon's router with an in-process backend: `askd::mcp_http`).
//!
//! # Layout
//! - [`tools`] — tool names (part of the contract), descriptions, input and output schemas.
//! - [`server`] — [`server::AskdServer`], the rmcp `ServerHandler`: sessions, waiting with
//!   progress and budgets, cancellation, the two eras of elicitation, the MCP App's tool,
//!   alignment gating, result and error shapes — one submodule each.
//! - [`backend`] — what the tools need from askd ([`backend::Backend`]); the implementation
//!   the stdio adapter uses over `askd-client`'s HTTP client ([`HttpBackend`]), and the one
//!   mapping of the daemon's refusals to tool errors ([`ToolError::from_api`]).
//! - [`elicit`] — answering in the client (`clients.md` §3): the `elicitation` setting, the
//!   flat form of a questions ask and the way back to the page's submit body.
//! - [`stepwise`] — the stepwise form style for clients whose form UI cannot be answered
//!   otherwise (Codex): choices first, then the text they asked for.
//! - [`instructions`] — the server instructions, English or Chinese.
//! - [`seal`] — what askd signs for its clients to echo back (a 2026-07-28 `requestState`,
//!   an MCP App's ask handle): HMAC-SHA256 under the install's key.
//! - [`strict`] — schemas in the subset ajv's strict mode compiles; output schemas that
//!   admit the error envelope.
//! - [`tasks`] — every ask a durable MCP task, at the wire: both eras' names and shapes,
//!   and the 2025-11-25 requests each transport hands over under askd's method names.
//! - [`stdio`] — the stdio transport: a line layer in front of rmcp that answers every line
//!   it cannot hand on (`-32700`, `-32600`, `-32602`) and survives out-of-order messages.
//!
//! # Invariants
//! - Only this crate (and the binary that mounts `/mcp`) knows MCP; it never imports the
//!   daemon or the store. It holds no ask state: every ask lives in the daemon, so an
//!   adapter that dies loses nothing.
//! - A tool result's text copy is the complete result (the JSON of `structuredContent`),
//!   for clients that show the model only text blocks.
//! - Cancelling a call never settles its ask.
//! - What a client claims (its `clientInfo` name, a session named in `_meta`) never grants
//!   acting on an ask: the connection that asked it, or a value askd signed, does.

pub mod app_html;
pub mod apps;
pub mod backend;
pub mod elicit;
pub mod instructions;
pub mod seal;
pub mod server;
pub mod stdio;
pub mod stepwise;
pub mod strict;
pub mod tasks;
pub mod tools;

pub use backend::{Backend, DraftLaunch, HttpBackend, SessionOpen, ToolError};
pub use elicit::Elicitation;
pub use seal::Seal;
pub use server::{AskdServer, Options};
pub use stdio::serve_stdio;

//! The `askd` binary's library half: what the binary composes from the library crates and
//! the integration tests start in process.
//!
//! # Layout
//! - [`mcp_http`] — `/mcp`: the MCP tools over streamable HTTP in the daemon's process — the
//!   in-process `Backend`, the body rules in front of rmcp, and the composition of the
//!   daemon's router with the `/mcp` service (`start`, `serve`).
//!
//! The command line (`src/cli/`, in the binary target) parses arguments, reads files, prints
//! JSON and picks exit codes; it finds the daemon through `askd-client`.

pub mod mcp_http;

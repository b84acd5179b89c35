//! The daemon's HTTP layer: extractors, handlers by resource, and the one router.
//!
//! # Layout
//! - [`extract`] — `JsonBody` (415 → 413 → 400), the `{id}` and query extractors.
//! - [`routes`] — the one place the router is assembled, behind the fence.
//! - [`asks`] — `/api/asks…`, `/api/records`, `/api/health`.
//! - [`sessions`] — `/api/sessions…` and the alignment operations and session page routes.
//! - [`events`] — `/api/events` (Server-Sent Events).
//! - [`drafts`] — `/api/drafts…` (the question builder).
//! - [`review`] — a review's export and import.
//! - [`settings`] — `/api/settings`.
//! - [`members`] — `/api/members…` (team members and their login links).
//! - [`login`] — `/login/{token}`, a member's login link (with its confirm step).
//! - [`diagram`] — `/api/diagrams/{hash}.svg`.
//!
//! Data flows one way: a handler calls the rooms ([`crate::kinds`]) and the session
//! services; no module below them (rooms, life cycle, state) imports this one. `crate::mcp`
//! borrows [`extract::JsonBody`] for `/mcp`'s body rules.

pub mod asks;
pub mod devices;
pub mod diagram;
pub mod drafts;
pub mod events;
pub mod extract;
pub mod login;
pub mod members;
pub mod review;
pub mod routes;
pub mod sessions;
pub mod settings;

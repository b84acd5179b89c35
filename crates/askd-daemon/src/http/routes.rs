//! The one place the daemon's HTTP surface is assembled: every route, the fallbacks, and
//! the layers in front of them (the fence, the team-mode staleness gate, the SVG CSP).
//! Handler modules never import this one back.

use std::sync::Arc;

use axum::Router;
use axum::http::StatusCode;
use axum::response::IntoResponse;
use axum::routing::{delete, get, post, put};

use crate::daemon::Daemon;
use crate::error::ApiError;
use crate::http::{asks, devices, diagram, drafts, events, members, review, sessions, settings};
use crate::{fence, ui};

/// Every route of the daemon except `/mcp`, which the binary's MCP service is nested at
/// (see [`fenced`]).
pub fn routes() -> Router<Arc<Daemon>> {
    Router::new()
        .merge(api())
        .route("/", get(ui::page))
        .route("/a/{id}", get(ui::page))
        .route("/settings", get(ui::page))
        .route("/records", get(ui::page))
        .route("/sessions/{id}", get(ui::page))
        .route(
            "/pair/{code}",
            get(devices::pair_page).post(devices::pair_submit),
        )
        .route("/assets/{*path}", get(ui::asset))
        .route("/api/diagrams/{file}", get(diagram::diagram))
        .fallback(not_found)
}

/// The JSON API under `/api/` and the live events (see `docs/api.md`).
fn api() -> Router<Arc<Daemon>> {
    Router::new()
        .route("/api/health", get(asks::health))
        .route(
            "/api/sessions",
            post(sessions::open_session).get(sessions::list_sessions),
        )
        .route("/api/sessions/{id}/alignment", get(sessions::get_alignment))
        .route(
            "/api/sessions/{id}/alignment/{op}",
            post(sessions::alignment_op)
                .put(sessions::put_alignment)
                .get(sessions::get_alignment_part),
        )
        .route("/api/asks", post(asks::create_ask).get(asks::list_asks))
        .route("/api/asks/{id}", get(asks::show_ask))
        .route("/api/asks/{id}/bank", post(asks::bank))
        .route(
            "/api/asks/{id}/claim",
            post(asks::claim).delete(asks::release),
        )
        .route("/api/asks/{id}/draft", put(asks::autosave))
        .route("/api/asks/{id}/submit", post(asks::submit))
        .route("/api/asks/{id}/cancel", post(asks::cancel))
        .route("/api/asks/{id}/preflight", post(asks::preflight))
        .route("/api/asks/{id}/withdraw", post(asks::withdraw))
        .route("/api/asks/{id}/awaited", post(asks::awaited))
        .route("/api/asks/{id}/wait", get(asks::wait))
        .route("/api/asks/{id}/path", post(asks::path))
        .route("/api/asks/{id}/import", post(review::import_route))
        .route("/api/asks/{id}/export", get(review::export_route))
        .route("/api/records", get(asks::records))
        .route("/api/events", get(events::events))
        .route("/api/drafts", get(drafts::list))
        .route("/api/drafts/set", post(drafts::set_route))
        .route("/api/drafts/get", post(drafts::get_route))
        .route("/api/drafts/launch", post(drafts::launch_route))
        .route("/api/settings", get(settings::show).put(settings::save))
        .route("/api/me", get(devices::me))
        .route(
            "/api/notify",
            get(devices::notify_status).put(devices::notify_save),
        )
        .route("/api/pair", post(devices::new_pairing))
        .route("/api/pair/{code}/qr.svg", get(devices::qr_code))
        .route("/api/devices", get(devices::list))
        .route("/api/devices/{id}", delete(devices::revoke))
        .route("/api/members", get(members::list).post(members::add))
        .route("/api/members/{id}", delete(members::revoke))
        .method_not_allowed_fallback(method_not_allowed)
}

/// `routes` (with whatever the caller nested into it) behind the fence, with the SVG CSP,
/// bound to `daemon`.
pub fn fenced(routes: Router<Arc<Daemon>>, daemon: Arc<Daemon>) -> Router {
    routes
        .layer(axum::middleware::from_fn_with_state(
            daemon.clone(),
            current,
        ))
        .layer(axum::middleware::from_fn_with_state(
            daemon.clone(),
            fence::fence,
        ))
        .layer(axum::middleware::map_response(ui::svg_csp))
        .with_state(daemon)
}

/// Behind the fence: while the hub is stale (team mode, the database out of reach — see
/// `crate::follow`), the API and `/mcp` answer 503 `database-unavailable` instead of serving
/// state that may be out of date. The page and its files are still served (the page shows
/// its reconnecting banner).
async fn current(
    axum::extract::State(d): axum::extract::State<Arc<Daemon>>,
    req: axum::extract::Request,
    next: axum::middleware::Next,
) -> axum::response::Response {
    let path = req.uri().path();
    let gated = path.starts_with("/api/") || path == "/mcp" || path.starts_with("/mcp/");
    if gated && let Some(why) = d.hub.stale() {
        tracing::debug!(
            why,
            path,
            "answering 503 while the database is out of reach"
        );
        return ApiError::database_unavailable().into_response();
    }
    next.run(req).await
}

/// A known API route with a method it does not serve: the one JSON error shape.
async fn method_not_allowed() -> ApiError {
    ApiError::new(
        StatusCode::METHOD_NOT_ALLOWED,
        "method-not-allowed",
        "this route does not serve that method",
    )
}

async fn not_found() -> impl IntoResponse {
    ApiError::new(StatusCode::NOT_FOUND, "not-found", "no such route")
}

//! The one place the daemon's HTTP surface is assembled: every route, the fallbacks, and
//! the layers in front of them (the fence, the team-mode staleness gate, the SVG CSP).
//! Handler modules never import this one back.

use std::sync::Arc;

use axum::Router;
use axum::extract::Request;
use axum::handler::Handler;
use axum::http::{Method, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{MethodRouter, delete, get, post, put};

use crate::access::{self, Allow, Principal, Table};
use crate::daemon::Daemon;
use crate::error::ApiError;
use crate::http::{
    asks, devices, diagram, drafts, events, login, members, review, sessions, settings,
};
use crate::{fence, ui};

/// A router and its access table, built together: a route cannot be registered without
/// saying who may open it ([`crate::access::Allow`]). The access layer refuses a route with
/// no entry, so the table is an allow-list.
pub struct Routes {
    router: Router<Arc<Daemon>>,
    table: Table,
}

impl Default for Routes {
    fn default() -> Self {
        Self::new()
    }
}

impl Routes {
    pub fn new() -> Self {
        Routes {
            router: Router::new(),
            table: Table::default(),
        }
    }

    fn at(
        mut self,
        method: Method,
        path: &str,
        allow: Allow,
        r: MethodRouter<Arc<Daemon>>,
    ) -> Self {
        self.router = self.router.route(path, r);
        self.table.push(Some(method), path, allow);
        self
    }

    pub fn get<H, T>(self, path: &str, allow: Allow, h: H) -> Self
    where
        H: Handler<T, Arc<Daemon>>,
        T: 'static,
    {
        self.at(Method::GET, path, allow, get(h))
    }

    pub fn post<H, T>(self, path: &str, allow: Allow, h: H) -> Self
    where
        H: Handler<T, Arc<Daemon>>,
        T: 'static,
    {
        self.at(Method::POST, path, allow, post(h))
    }

    pub fn put<H, T>(self, path: &str, allow: Allow, h: H) -> Self
    where
        H: Handler<T, Arc<Daemon>>,
        T: 'static,
    {
        self.at(Method::PUT, path, allow, put(h))
    }

    pub fn delete<H, T>(self, path: &str, allow: Allow, h: H) -> Self
    where
        H: Handler<T, Arc<Daemon>>,
        T: 'static,
    {
        self.at(Method::DELETE, path, allow, delete(h))
    }

    /// A service nested at `path` (every method, every path below it): the binary's `/mcp`.
    pub fn nest_service<S>(mut self, path: &str, allow: Allow, service: S) -> Self
    where
        S: tower::Service<Request, Error = std::convert::Infallible>
            + Clone
            + Send
            + Sync
            + 'static,
        S::Response: IntoResponse,
        S::Future: Send + 'static,
    {
        self.router = self.router.nest_service(path, service);
        self.table.push(None, path, allow);
        self
    }

    pub fn merge(mut self, other: Routes) -> Self {
        self.router = self.router.merge(other.router);
        self.table.extend(other.table);
        self
    }

    /// The bare router, without the fence and the access layer: for calls the process makes
    /// to its own routes on behalf of a request the fence already admitted (the MCP App
    /// proxy over `/mcp`, which only the install's token and agents reach).
    pub fn into_router(self) -> Router<Arc<Daemon>> {
        self.router
    }

    /// The access table (the route-coverage test and `docs/api.md` read it).
    pub fn table(&self) -> &Table {
        &self.table
    }
}

/// Every route of the daemon except `/mcp`, which the binary's MCP service is nested at
/// (see [`fenced`]), with who may open it.
pub fn routes() -> Routes {
    use Allow as A;
    Routes::new()
        .merge(api())
        .get("/", A::ANY, ui::page)
        .get("/a/{id}", A::ANY, ui::page)
        .get("/settings", A::INSTALL, ui::page)
        .get("/records", A::HISTORY, ui::page)
        .get("/sessions/{id}", A::HISTORY, ui::page)
        .get("/pair/{code}", A::PUBLIC, devices::pair_page)
        .post("/pair/{code}", A::PUBLIC, devices::pair_submit)
        .get("/login/{token}", A::PUBLIC, login::login_page)
        .post("/login/{token}", A::PUBLIC, login::login)
        .get("/assets/{*path}", A::ANY, ui::asset)
        .get("/page.css", A::PUBLIC, crate::pages::stylesheet)
        .get("/icon.svg", A::PUBLIC, ui::icon)
        .get("/api/diagrams/{file}", A::ANY, diagram::diagram)
}

/// The JSON API under `/api/` and the live events (see `docs/api.md`).
fn api() -> Routes {
    use Allow as A;
    Routes::new()
        .get("/api/health", A::ANY, asks::health)
        .post("/api/sessions", A::AGENTS, sessions::open_session)
        .get("/api/sessions", A::HISTORY, sessions::list_sessions)
        .get(
            "/api/sessions/{id}/alignment",
            A::HISTORY,
            sessions::get_alignment,
        )
        // The agent's alignment operations (align, check, baseline, drift, mode).
        .post(
            "/api/sessions/{id}/alignment/{op}",
            A::AGENTS,
            sessions::alignment_op,
        )
        // The human's mode switch on the session page.
        .put(
            "/api/sessions/{id}/alignment/{op}",
            A::INSTALL,
            sessions::put_alignment,
        )
        .get(
            "/api/sessions/{id}/alignment/{op}",
            A::HISTORY,
            sessions::get_alignment_part,
        )
        .post("/api/asks", A::AGENTS, asks::create_ask)
        .get("/api/asks", A::ANY, asks::list_asks)
        .get("/api/asks/{id}", A::ANY, asks::show_ask)
        .post("/api/asks/{id}/bank", A::ANSWER, asks::bank)
        .post("/api/asks/{id}/claim", A::CLAIM, asks::claim)
        .delete("/api/asks/{id}/claim", A::CLAIM, asks::release)
        .put("/api/asks/{id}/autosave", A::ANSWER, asks::autosave)
        // The autosave's first name, kept for clients that still say it ("draft" is the
        // question builder's word).
        .put("/api/asks/{id}/draft", A::ANSWER, asks::autosave)
        .post("/api/asks/{id}/submit", A::ANSWER, asks::submit)
        .post("/api/asks/{id}/cancel", A::ANSWER, asks::cancel)
        .post("/api/asks/{id}/preflight", A::ANSWER, asks::preflight)
        .post("/api/asks/{id}/withdraw", A::AGENTS, asks::withdraw)
        .post("/api/asks/{id}/deadline", A::DEADLINE, asks::deadline)
        .post("/api/asks/{id}/snooze", A::DEADLINE, asks::snooze)
        .post("/api/asks/{id}/awaited", A::AGENTS, asks::awaited)
        .get("/api/asks/{id}/wait", A::AGENTS, asks::wait)
        .post("/api/asks/{id}/path", A::ANSWER, asks::path)
        .post("/api/asks/{id}/import", A::ANSWER, review::import_route)
        .get("/api/asks/{id}/export", A::ANY, review::export_route)
        .get("/api/records", A::HISTORY, asks::records)
        .get("/api/events", A::ANY, events::events)
        .get("/api/drafts", A::ANY, drafts::list)
        .post("/api/drafts/set", A::AGENTS, drafts::set_route)
        .post("/api/drafts/get", A::AGENTS, drafts::get_route)
        .post("/api/drafts/launch", A::AGENTS, drafts::launch_route)
        // The adapter reads the saved elicitation setting.
        .get("/api/settings", A::AGENTS, settings::show)
        .put("/api/settings", A::INSTALL, settings::save)
        .get("/api/me", A::ANY, devices::me)
        .get("/api/notify", A::INSTALL, devices::notify_status)
        .put("/api/notify", A::INSTALL, devices::notify_save)
        .post("/api/pair", A::INSTALL, devices::new_pairing)
        .get("/api/pair/{code}/qr.svg", A::INSTALL, devices::qr_code)
        .get("/api/devices", A::INSTALL, devices::list)
        .delete("/api/devices/{id}", A::INSTALL, devices::revoke)
        .get("/api/members", A::INSTALL, members::list)
        .post("/api/members", A::INSTALL, members::add)
        .delete("/api/members/{id}", A::INSTALL, members::revoke)
}

/// `routes` (with whatever the caller nested into it) behind the access layer, the fence
/// and the SVG CSP, bound to `daemon`.
pub fn fenced(routes: Routes, daemon: Arc<Daemon>) -> Router {
    let table = Arc::new(routes.table);
    routes
        .router
        .route_layer(axum::middleware::from_fn_with_state(table, access::check))
        .method_not_allowed_fallback(method_not_allowed)
        .fallback(not_found)
        .layer(axum::middleware::from_fn_with_state(
            daemon.clone(),
            current,
        ))
        .layer(axum::middleware::from_fn_with_state(
            daemon.clone(),
            fence::fence,
        ))
        .layer(axum::middleware::map_response(ui::svg_csp))
        .layer(json_compression())
        .with_state(daemon)
}

/// API JSON of 1 KiB or more, gzipped for a client that accepts it (a listing of 10,000 asks
/// is 3.7 MB as it is). Only JSON: the UI's files carry their own precompressed bytes
/// (`crate::ui`), and the event stream is never buffered by a compressor.
fn json_compression()
-> tower_http::compression::CompressionLayer<impl tower_http::compression::Predicate> {
    use tower_http::compression::predicate::{Predicate, SizeAbove};
    let json = |_: axum::http::StatusCode,
                _: axum::http::Version,
                headers: &axum::http::HeaderMap,
                _: &axum::http::Extensions| {
        headers
            .get(axum::http::header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|t| t.starts_with("application/json"))
    };
    tower_http::compression::CompressionLayer::new()
        .gzip(true)
        .compress_when(SizeAbove::new(1024).and(json))
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
async fn method_not_allowed(req: Request) -> Response {
    match req.extensions().get::<Principal>() {
        Some(_) => ApiError::new(
            StatusCode::METHOD_NOT_ALLOWED,
            "method-not-allowed",
            "this route does not serve that method",
        )
        .into_response(),
        None => access::unauthenticated(&req),
    }
}

/// No such route: 404 for a signed-in caller, the fence's 401 without a token (nothing is
/// said about which routes exist).
async fn not_found(req: Request) -> Response {
    match req.extensions().get::<Principal>() {
        Some(_) if access::wants_page(&req) => access::not_found_page(&req),
        Some(_) => {
            ApiError::new(StatusCode::NOT_FOUND, "not-found", "no such route").into_response()
        }
        None => access::unauthenticated(&req),
    }
}

//! The security fence (`platform.md` §5), run on every request before routing, method or
//! body checks: Host allow-list (403), Origin (403), token (401); then the response headers
//! every answer carries.
//!
//! The fence then resolves **who is calling**, once, from what the caller cannot forge
//! ([`Principal`], `crate::access`): the install's token (Bearer, the `askd_token` cookie or
//! the tokenised URL), an agent token (Bearer), a member's login cookie (`askd_member`), a
//! paired device's cookie (`askd_device`), or nothing. It does not decide what the caller
//! may open: the access table declared with the routes does (`crate::access::check`).
//! `/pair/{code}` and `/login/{token}` need no token and no Origin check (the secret is in
//! the path). Every request runs with its principal as a task-local value ([`caller`]), so
//! a settle or bank it makes records who made it ([`answered_by`]), and a revoked
//! principal's request ends at once ([`run_as`]).

use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use subtle::ConstantTimeEq;

use crate::daemon::Daemon;
use crate::devices::{self, Check};
use crate::error::ApiError;

/// The cookie that carries the token for the browser.
pub const COOKIE: &str = "askd_token";

/// Names that always reach a loopback daemon.
const LOOPBACK_NAMES: &[&str] = &["127.0.0.1", "localhost", "[::1]", "::1"];

pub const CSP: &str = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; font-src 'self'; connect-src 'self'; manifest-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

/// The host name of a Host header value (or a request target's authority), without its
/// port: `[::1]:7391` → `[::1]`. `None` when it is not `name[:port]` — a port that is not
/// digits (`localhost:1@evil`), text after an IPv6 literal (`[::1]evil.com`), userinfo,
/// paths or spaces — so a crafted value can never be read as an allowed name.
fn host_name(host: &str) -> Option<&str> {
    let port_ok = |p: &str| !p.is_empty() && p.len() <= 5 && p.bytes().all(|b| b.is_ascii_digit());
    if host.starts_with('[') {
        let end = host.find(']')?;
        let (name, rest) = host.split_at(end + 1);
        let literal_ok = name[1..name.len() - 1]
            .bytes()
            .all(|b| b.is_ascii_hexdigit() || b == b':' || b == b'.');
        return match rest {
            "" => Some(name),
            _ if literal_ok && rest.strip_prefix(':').is_some_and(port_ok) => Some(name),
            _ => None,
        }
        .filter(|_| literal_ok);
    }
    if host == "::1" {
        return Some(host);
    }
    let name = match host.rsplit_once(':') {
        Some((name, port)) if port_ok(port) => name,
        Some(_) => return None,
        None => host,
    };
    let name_ok = !name.is_empty()
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'.' || b == b'-' || b == b'_');
    name_ok.then_some(name)
}

fn host_allowed(d: &Daemon, host: &str) -> bool {
    let Some(name) = host_name(host) else {
        return false;
    };
    let name = name.to_ascii_lowercase();
    LOOPBACK_NAMES.contains(&name.as_str())
        || d.settings
            .allowed_hosts
            .iter()
            .any(|h| h.eq_ignore_ascii_case(&name))
}

/// Where the tokenised URL redirects: this daemon's own path, never another origin. A path
/// that starts with `//` or `/\\` would be read by a browser as a network path
/// (`//evil.example/x`), so leading slashes and backslashes collapse into one `/`.
fn same_origin_path(path: &str) -> String {
    format!("/{}", path.trim_start_matches(['/', '\\']))
}

fn forbidden(why: &str) -> Response {
    ApiError::new(StatusCode::FORBIDDEN, "forbidden", why).into_response()
}

pub use crate::access::Principal;

tokio::task_local! {
    /// Who the request being served came with (set by the fence around the handler).
    static CALLER: Principal;
}

/// Who answered, as the settle the request being served makes records it (`answered_by`:
/// `{kind, id, name}`, [`Principal::answered_by`]); `None` for the install's token or
/// outside a request.
pub fn answered_by() -> Option<serde_json::Value> {
    CALLER.try_with(Principal::answered_by).ok().flatten()
}

/// Who the request being served came with (`None` outside a request, or without a token).
pub fn caller() -> Option<Principal> {
    CALLER.try_with(Clone::clone).ok()
}

/// Runs `fut` as `who` (the in-process `/mcp` backend runs its calls as the connection's
/// principal this way).
pub async fn scope<F: std::future::Future>(who: Principal, fut: F) -> F::Output {
    CALLER.scope(who, fut).await
}

/// Runs the rest of the request with `who` known to it ([`answered_by`], [`caller`], the
/// access layer). A revocable principal's request ends when it is revoked: a handler still
/// running (a wait) answers 401, and a response still streaming (the event stream, `/mcp`)
/// ends (issue 27 §1).
async fn run_as(d: &Arc<Daemon>, who: Principal, mut req: Request, next: Next) -> Response {
    req.extensions_mut().insert(who.clone());
    if !who.revocable() {
        return CALLER.scope(who, next.run(req)).await;
    }
    let mut watch = d.revocations.subscribe();
    let handled = CALLER.scope(who.clone(), next.run(req));
    let response = tokio::select! {
        r = handled => r,
        () = crate::access::until_revoked(d.clone(), who.clone(), watch.clone()) => {
            return revoked(&who).into_response();
        }
    };
    watch.mark_unchanged();
    let (parts, body) = response.into_parts();
    let ends = crate::access::until_revoked(d.clone(), who, watch);
    let body = futures_util::StreamExt::take_until(body.into_data_stream(), Box::pin(ends));
    Response::from_parts(parts, axum::body::Body::from_stream(body))
}

/// The 401 of a revoked principal.
fn revoked(who: &Principal) -> ApiError {
    match who {
        Principal::Device { .. } => device_revoked(),
        _ => member_revoked(),
    }
}

fn device_revoked() -> ApiError {
    ApiError::new(
        StatusCode::UNAUTHORIZED,
        "device-revoked",
        "this device is not paired any more (it was revoked): run `askd pair` on the computer running askd and open the new link",
    )
}

fn member_revoked() -> ApiError {
    ApiError::new(
        StatusCode::UNAUTHORIZED,
        "member-revoked",
        "this member's token is not valid any more (the member was removed): ask whoever runs askd for a new link (askd members add NAME)",
    )
}

impl Principal {
    /// `GET /api/me`: the kind, the device's name, and which parts of the UI this caller
    /// may open (the page hides the others).
    pub fn view(&self) -> serde_json::Value {
        match self {
            Principal::Install => serde_json::json!({
                "kind": "install",
                "may": {"settings": true, "records": true, "sessions": true},
            }),
            Principal::Device { id, name } => serde_json::json!({
                "kind": "device", "id": id, "name": name,
                "may": {"settings": false, "records": false, "sessions": false},
            }),
            Principal::Member { id, name } => serde_json::json!({
                "kind": "member", "id": id, "name": name,
                "may": {"settings": false, "records": true, "sessions": true, "claim": true},
            }),
            Principal::Agent { id, name } => serde_json::json!({
                "kind": "agent", "id": id, "name": name,
                "may": {"settings": false, "records": true, "sessions": true},
            }),
        }
    }
}

/// `/pair/{code}`: the pairing page and its form (no token: the code is the secret).
fn is_pair_page(path: &str) -> bool {
    path.strip_prefix("/pair/")
        .is_some_and(|code| !code.is_empty() && !code.contains('/'))
}

/// The value of the cookie `name`.
fn named_cookie<'h>(headers: &'h HeaderMap, name: &str) -> Option<&'h str> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|kv| kv.trim().split_once('='))
        .find(|(k, _)| *k == name)
        .map(|(_, v)| v)
}

/// `/login/<token>`: a member's login URL.
fn login_token(path: &str) -> Option<&str> {
    path.strip_prefix("/login/")
        .filter(|t| !t.is_empty() && !t.contains('/'))
}

/// Whether cookies set for a browser that reached this daemon as `host` get `Secure`: when
/// it came through `publicUrl` over https (a TLS-terminating proxy, a tunnel); a login on
/// the loopback address stays plain HTTP.
pub(crate) fn secure_for(d: &Daemon, host: &str) -> bool {
    d.settings
        .public_url
        .as_deref()
        .and_then(public_origin)
        .is_some_and(|o| o.eq_ignore_ascii_case(&format!("https://{host}")))
}

fn token_matches(expected: &str, given: &str) -> bool {
    expected.as_bytes().ct_eq(given.as_bytes()).into()
}

fn bearer(headers: &HeaderMap) -> Option<&str> {
    let v = headers.get(header::AUTHORIZATION)?.to_str().ok()?;
    let (scheme, token) = v.split_once(' ')?;
    scheme.eq_ignore_ascii_case("bearer").then(|| token.trim())
}

fn cookie(headers: &HeaderMap) -> Option<&str> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|kv| kv.trim().split_once('='))
        .find(|(k, _)| *k == COOKIE)
        .map(|(_, v)| v)
}

/// The `token` query parameter, and the query string without it.
fn query_token(query: &str) -> (Option<&str>, String) {
    let mut token = None;
    let mut rest = Vec::new();
    for pair in query.split('&').filter(|p| !p.is_empty()) {
        match pair.split_once('=') {
            Some(("token", v)) => token = Some(v),
            _ => rest.push(pair),
        }
    }
    (token, rest.join("&"))
}

pub async fn fence(State(d): State<Arc<Daemon>>, req: Request, next: Next) -> Response {
    d.touch();
    let mut response = check(&d, req, next).await;
    let h = response.headers_mut();
    h.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(CSP),
    );
    h.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    h.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("no-referrer"),
    );
    h.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    h.insert(
        "Cross-Origin-Opener-Policy",
        HeaderValue::from_static("same-origin"),
    );
    h.insert(
        "Cross-Origin-Resource-Policy",
        HeaderValue::from_static("same-origin"),
    );
    let is_json = h
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("application/json"));
    if is_json || !h.contains_key(header::CACHE_CONTROL) {
        h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    }
    response
}

async fn check(d: &Arc<Daemon>, req: Request, next: Next) -> Response {
    let arrived = std::time::Instant::now();
    let headers = req.headers();
    // Host allow-list: defeats DNS rebinding. Exactly one Host header (RFC 9112 §3.2).
    let mut hosts = headers.get_all(header::HOST).iter();
    let (Some(host), None) = (hosts.next(), hosts.next()) else {
        if headers.get_all(header::HOST).iter().count() > 1 {
            return ApiError::new(
                StatusCode::BAD_REQUEST,
                "bad-request",
                "the request has more than one Host header; send exactly one",
            )
            .into_response();
        }
        return forbidden("the Host header is missing");
    };
    let Some(host) = host.to_str().ok() else {
        return forbidden("the Host header is not readable text");
    };
    if !host_allowed(d, host) {
        return forbidden("this Host is not in askd's allow-list");
    }
    // An absolute-form target (`GET http://other/ HTTP/1.1`) names the host the request is
    // for (RFC 9112 §3.2.2): it must pass the same allow-list.
    if let Some(authority) = req.uri().authority()
        && !host_allowed(d, authority.as_str())
    {
        return forbidden("the request target names a host that is not in askd's allow-list");
    }
    // The pairing page and a member's login link: the code or token in the path is the
    // secret, so they open without a token, and a stale credential (a revoked device's
    // cookie, a removed member's) does not stand in the way of a new one. The pairing
    // form's POST carries `Origin: null` (the pages are served with `Referrer-Policy:
    // no-referrer`), and the login's confirm step checks where its POST came from itself
    // (`crate::http::login`), so neither has the Origin check.
    let path = req.uri().path();
    let public = is_pair_page(path) || login_token(path).is_some();
    // Origin, when present, must be this daemon's own origin (or `publicUrl`'s, which a
    // tunnel such as `tailscale serve` puts in front of it over https).
    if !public && let Some(origin) = headers.get(header::ORIGIN) {
        let own = format!("http://{host}");
        let origin = origin.to_str().ok();
        let public = d.settings.public_url.as_deref().and_then(public_origin);
        if origin != Some(own.as_str()) && (public.is_none() || origin != public.as_deref()) {
            return forbidden("cross-origin requests are refused");
        }
    }

    // The token: the tokenised URL (which sets the cookie and redirects to the clean URL,
    // also when a cookie is already set, so the secret never stays in the address bar or the
    // history), bearer, or cookie.
    let token = d.token.as_str();
    let query = req.uri().query().unwrap_or("");
    let (given, rest) = query_token(query);
    if let Some(given) = given
        && token_matches(token, given)
        && !req.uri().path().starts_with("/api/")
    {
        let mut clean = same_origin_path(req.uri().path());
        if !rest.is_empty() {
            clean.push('?');
            clean.push_str(&rest);
        }
        let secure = secure_for(d, host);
        let cookie = format!(
            "{COOKIE}={token}; HttpOnly; SameSite=Strict; Path=/; Max-Age=31536000{}",
            if secure { "; Secure" } else { "" }
        );
        let mut r = (StatusCode::SEE_OTHER, [(header::LOCATION, clean)]).into_response();
        if let Ok(v) = HeaderValue::from_str(&cookie) {
            r.headers_mut().insert(header::SET_COOKIE, v);
        }
        return r;
    }
    match principal(d, headers, arrived).await {
        Ok(Some(who)) => run_as(d, who, req, next).await,
        // No token: only the routes open to everyone (the access layer refuses the rest
        // with [`unauthenticated`]).
        Ok(None) => next.run(req).await,
        // A stale cookie does not keep a browser from the pages' own look either: a revoked
        // phone's refusal page loads `/page.css` with that cookie.
        Err(_) if public || crate::pages::is_open_file(req.uri().path()) => next.run(req).await,
        Err(refused) if crate::access::wants_page(&req) => {
            crate::access::refusal_page(&refused, &req)
        }
        Err(refused) => refused.into_response(),
    }
}

/// Who the request came with, from what it carries and the caller cannot forge: the
/// install's token (Bearer or cookie), an agent token (Bearer), a member's login cookie, a
/// paired device's cookie. `Ok(None)`: none of them. A credential that is no longer valid
/// is refused (revoked, or unknown after a re-read of the team's members and devices).
async fn principal(
    d: &Arc<Daemon>,
    headers: &HeaderMap,
    arrived: std::time::Instant,
) -> Result<Option<Principal>, ApiError> {
    let token = d.token.as_str();
    if bearer(headers).is_some_and(|t| token_matches(token, t))
        || cookie(headers).is_some_and(|t| token_matches(token, t))
    {
        return Ok(Some(Principal::Install));
    }
    // An agent member's token, as Bearer (never a cookie: a browser never holds one).
    if let Some(t) = bearer(headers) {
        let mut m = d.members.check(t);
        if m.is_none() {
            crate::access::reread(d, arrived).await;
            m = d.members.check(t);
        }
        if let Some(m) = m {
            if !m.agent {
                return Err(ApiError::new(
                    StatusCode::UNAUTHORIZED,
                    "member-token-as-bearer",
                    "this is a person's login token: open the login link in a browser; agents use an agent token (askd members add --agent NAME)",
                ));
            }
            return Ok(Some(Principal::Agent {
                id: m.id,
                name: m.name,
            }));
        }
        if d.members.was_revoked(t) {
            return Err(member_revoked());
        }
    }
    if let Some(t) = named_cookie(headers, crate::members::COOKIE) {
        let mut m = d.members.check(t).filter(|m| !m.agent);
        if m.is_none() {
            crate::access::reread(d, arrived).await;
            m = d.members.check(t).filter(|m| !m.agent);
        }
        return match m {
            Some(m) => Ok(Some(Principal::Member {
                id: m.id,
                name: m.name,
            })),
            None if d.members.was_revoked(t) => Err(member_revoked()),
            None => Err(ApiError::new(
                StatusCode::UNAUTHORIZED,
                "unknown-member",
                "this browser's member login is not one askd knows (mistyped, or from another install): open your login link again, or ask whoever runs askd for one (askd members add NAME)",
            )),
        };
    }
    if let Some(t) = named_cookie(headers, devices::COOKIE) {
        let mut check = d.devices.check(t);
        if matches!(check, Check::Unknown) {
            crate::access::reread(d, arrived).await;
            check = d.devices.check(t);
        }
        return match check {
            Check::Known { id, name, save } => {
                if let Some(device) = save {
                    let d = d.clone();
                    tokio::spawn(async move { d.devices.save_use(d.store.clone(), device).await });
                }
                Ok(Some(Principal::Device { id, name }))
            }
            Check::Unknown if d.devices.was_revoked(t) => Err(device_revoked()),
            Check::Unknown => Err(ApiError::new(
                StatusCode::UNAUTHORIZED,
                "unknown-device",
                "this device is not paired (or it was revoked before askd last started): run `askd pair` on the computer running askd and open the new link",
            )),
        };
    }
    Ok(None)
}

/// The origin (`scheme://host[:port]`) of `publicUrl`.
fn public_origin(url: &str) -> Option<String> {
    let u = url::Url::parse(url).ok()?;
    Some(u.origin().ascii_serialization())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn host_names() {
        assert_eq!(host_name("127.0.0.1:7391"), Some("127.0.0.1"));
        assert_eq!(host_name("localhost"), Some("localhost"));
        assert_eq!(host_name("[::1]:7391"), Some("[::1]"));
        assert_eq!(host_name("[::1]"), Some("[::1]"));
        assert_eq!(host_name("evil.example:80"), Some("evil.example"));
        for bad in [
            "localhost:1@evil",
            "[::1]evil.com",
            "[::1]:80x",
            "localhost:",
            "user@localhost",
            "localhost/x",
            "local host",
            "",
        ] {
            assert_eq!(host_name(bad), None, "{bad}");
        }
    }

    #[test]
    fn redirects_stay_on_the_origin() {
        assert_eq!(same_origin_path("//evil.example/x"), "/evil.example/x");
        assert_eq!(same_origin_path("/\\evil.example"), "/evil.example");
        assert_eq!(same_origin_path("/a/b"), "/a/b");
        assert_eq!(same_origin_path("/"), "/");
    }

    #[test]
    fn public_paths() {
        assert!(is_pair_page("/pair/abc"));
        assert!(!is_pair_page("/pair/"));
        assert!(!is_pair_page("/pair/abc/x"));
        assert_eq!(login_token("/login/abc"), Some("abc"));
        assert_eq!(login_token("/login/"), None);
        assert_eq!(login_token("/login/a/b"), None);
    }

    #[test]
    fn token_query_is_removed_from_the_url() {
        assert_eq!(query_token("token=abc&x=1"), (Some("abc"), "x=1".into()));
        assert_eq!(query_token(""), (None, String::new()));
    }
}

//! The security fence (`platform.md` §5), run on every request before routing, method or
//! body checks: Host allow-list (403), Origin (403), token (401); then the response headers
//! every answer carries.

use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use subtle::ConstantTimeEq;

use crate::Daemon;
use crate::error::ApiError;

/// The cookie that carries the token for the browser.
pub const COOKIE: &str = "askd_token";

/// Names that always reach a loopback daemon.
const LOOPBACK_NAMES: &[&str] = &["127.0.0.1", "localhost", "[::1]", "::1"];

pub const CSP: &str = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; font-src 'self'; connect-src 'self'; manifest-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

/// The host name of a Host header value, without its port (`[::1]:7391` → `[::1]`).
fn host_name(host: &str) -> &str {
    if host.starts_with('[') {
        return host.split_inclusive(']').next().unwrap_or(host);
    }
    host.rsplit_once(':').map(|(h, _)| h).unwrap_or(host)
}

fn forbidden(why: &str) -> Response {
    ApiError::new(StatusCode::FORBIDDEN, "forbidden", why).into_response()
}

fn unauthorized() -> Response {
    ApiError::new(
        StatusCode::UNAUTHORIZED,
        "unauthorized",
        "a valid token is required: open the tokenised URL askd printed (…/?token=…), or send Authorization: Bearer <token> (the token is in the data directory's token file)",
    )
    .into_response()
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

async fn check(d: &Daemon, req: Request, next: Next) -> Response {
    let headers = req.headers();
    // Host allow-list: defeats DNS rebinding.
    let Some(host) = headers.get(header::HOST).and_then(|v| v.to_str().ok()) else {
        return forbidden("the Host header is missing");
    };
    let name = host_name(host).to_ascii_lowercase();
    let allowed = LOOPBACK_NAMES.contains(&name.as_str())
        || d.settings
            .allowed_hosts
            .iter()
            .any(|h| h.eq_ignore_ascii_case(&name));
    if !allowed {
        return forbidden("this Host is not in askd's allow-list");
    }
    // Origin, when present, must be this daemon's own origin.
    if let Some(origin) = headers.get(header::ORIGIN) {
        let own = format!("http://{host}");
        if origin.to_str().ok() != Some(own.as_str()) {
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
        let mut clean = req.uri().path().to_string();
        if !rest.is_empty() {
            clean.push('?');
            clean.push_str(&rest);
        }
        let cookie =
            format!("{COOKIE}={token}; HttpOnly; SameSite=Strict; Path=/; Max-Age=31536000");
        let mut r = (StatusCode::SEE_OTHER, [(header::LOCATION, clean)]).into_response();
        if let Ok(v) = HeaderValue::from_str(&cookie) {
            r.headers_mut().insert(header::SET_COOKIE, v);
        }
        return r;
    }
    if bearer(headers).is_some_and(|t| token_matches(token, t))
        || cookie(headers).is_some_and(|t| token_matches(token, t))
    {
        return next.run(req).await;
    }
    unauthorized()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn host_names() {
        assert_eq!(host_name("127.0.0.1:7391"), "127.0.0.1");
        assert_eq!(host_name("localhost"), "localhost");
        assert_eq!(host_name("[::1]:7391"), "[::1]");
        assert_eq!(host_name("evil.example:80"), "evil.example");
    }

    #[test]
    fn token_query_is_removed_from_the_url() {
        assert_eq!(query_token("token=abc&x=1"), (Some("abc"), "x=1".into()));
        assert_eq!(query_token(""), (None, String::new()));
    }
}

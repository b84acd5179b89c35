//! A member's login link, `/login/{token}` (no other token: the one in the path is the
//! secret).
//!
//! A login sets the `askd_member` cookie, so a page of another site that made a browser open
//! someone's link would sign that browser in as them (login CSRF: what the victim then
//! answers is recorded as the attacker's member). So the link signs in at once only when the
//! browser says the navigation is not another site's doing — `Sec-Fetch-Site: none` (typed,
//! a bookmark, a link opened from a mail or chat app, which is how a notification's link
//! arrives) or `same-origin`. Any other `GET` (a link on a web page, a webmail, a browser
//! that sends no `Sec-Fetch-Site`) shows a page that names the member and asks to confirm
//! with a button; its `POST` must come from askd's own page (`Sec-Fetch-Site: same-origin`,
//! or an `Origin` of this daemon), never from another site.

use std::sync::Arc;

use axum::extract::{Path, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};

use crate::daemon::Daemon;
use crate::members::Member;

/// `GET /login/{token}`.
pub async fn login_page(
    State(d): State<Arc<Daemon>>,
    Path(token): Path<String>,
    headers: HeaderMap,
) -> Response {
    let Some(member) = person(&d, &token) else {
        return not_valid();
    };
    let site = headers.get("sec-fetch-site").and_then(|v| v.to_str().ok());
    if matches!(site, Some("none" | "same-origin")) {
        return sign_in(&d, &headers, &token, &member);
    }
    let html = format!(
        "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width\"><title>Sign in to askd</title></head><body><main><h1>Sign in to askd as {name}?</h1><p>This link signs this browser in as the team member <strong>{name}</strong>: what you answer here is recorded as theirs. Continue only if you are {name} and opened the link yourself.</p><form method=\"post\"><button type=\"submit\">Sign in as {name}</button></form></main></body></html>",
        name = askd_core::html::escape(&member.name)
    );
    (
        StatusCode::OK,
        [(header::CONTENT_TYPE, "text/html; charset=utf-8")],
        html,
    )
        .into_response()
}

/// `POST /login/{token}`: the confirm page's button.
pub async fn login(
    State(d): State<Arc<Daemon>>,
    Path(token): Path<String>,
    headers: HeaderMap,
) -> Response {
    let Some(member) = person(&d, &token) else {
        return not_valid();
    };
    if !from_own_page(&headers) {
        return (
            StatusCode::FORBIDDEN,
            [(header::CONTENT_TYPE, "text/html; charset=utf-8")],
            "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>askd</title></head><body><main><h1>Sign-in refused</h1><p>Another site tried to sign this browser in to askd. Open your login link yourself (paste it into the address bar).</p></main></body></html>",
        )
            .into_response();
    }
    sign_in(&d, &headers, &token, &member)
}

/// Whether a `POST` came from askd's own page: `Sec-Fetch-Site: same-origin`, or (a client
/// that sends no `Sec-Fetch-*`) an `Origin` of this daemon or none at all — every browser
/// sends `Origin` on a cross-site form post, so a missing one is not another site's form.
fn from_own_page(headers: &HeaderMap) -> bool {
    let get = |n: &str| headers.get(n).and_then(|v| v.to_str().ok());
    match get("sec-fetch-site") {
        Some(site) => site == "same-origin",
        // The fence refused any Origin that is not this daemon's (or publicUrl's) already;
        // `null` (a sandboxed or no-referrer page) is not proof of our page.
        None => get("origin").is_none_or(|o| o != "null"),
    }
}

fn person(d: &Daemon, token: &str) -> Option<Member> {
    d.members.check(token).filter(|m| !m.agent)
}

fn sign_in(d: &Daemon, headers: &HeaderMap, token: &str, member: &Member) -> Response {
    tracing::info!(member = %member.name, "a member signed in");
    let host = headers
        .get(header::HOST)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    // Lax, as a device's: a link from a notification (another site) must open the ask.
    let cookie = format!(
        "{}={token}; HttpOnly; SameSite=Lax; Path=/; Max-Age=31536000{}",
        crate::members::COOKIE,
        if crate::fence::secure_for(d, host) {
            "; Secure"
        } else {
            ""
        }
    );
    let mut r = (StatusCode::SEE_OTHER, [(header::LOCATION, "/")]).into_response();
    if let Ok(v) = HeaderValue::from_str(&cookie) {
        r.headers_mut().insert(header::SET_COOKIE, v);
    }
    r
}

fn not_valid() -> Response {
    (
        StatusCode::UNAUTHORIZED,
        [(header::CONTENT_TYPE, "text/html; charset=utf-8")],
        "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width\"><title>askd</title></head><body><main><h1>This login link does not work</h1><p>The member was removed, or the link is mistyped. Ask whoever runs askd for a new one (<code>askd members add NAME</code>).</p></main></body></html>",
    )
        .into_response()
}

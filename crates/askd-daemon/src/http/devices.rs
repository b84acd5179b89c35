//! Devices, pairing and the notifier's status (`crate::devices`, `crate::notify`).
//!
//! - `POST /api/pair` (no body, or `{}`: any member is 422 `unknown_field`) — a new pairing
//!   code: `{code, url, expiresAt, expiresInSeconds, qr}` (`qr`: the path of its QR code as
//!   SVG, `GET /api/pair/{code}/qr.svg`).
//! - `GET /api/devices` — `{devices: [{id, name, userAgent, createdAt, lastUsedAt}]}`;
//!   `DELETE /api/devices/{id}` revokes one (204; 404 when unknown).
//! - `GET /api/me` — who the request came with: the install's token or a paired device.
//! - `GET /api/notify` — the notifier's settings in effect and each sink's status;
//!   `PUT /api/notify` saves its keys from the Settings page (`crate::notify::Live`).
//! - `GET /pair/{code}` — the pairing page (a form, so a link preview cannot spend the
//!   code); `POST /pair/{code}` (form field `name`) pairs the browser: the `askd_device`
//!   cookie, then `303` to the inbox.
//!
//! Everything but `/pair/{code}` needs the install's token (the fence keeps devices out).

use std::sync::Arc;

use axum::Json as AxumJson;
use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};

use crate::daemon::Daemon;
use crate::devices::{self, RedeemError};
use crate::error::{ApiError, ApiResult};
use crate::http::extract::{JsonBody, MaybeJsonBody, refuse_unknown};

/// The pairing link of `code`.
pub fn pair_url(d: &Daemon, code: &str) -> String {
    format!("{}/pair/{code}", d.link_base().trim_end_matches('/'))
}

/// A QR code of `text` as SVG (dark on white, with its quiet zone).
pub fn qr_svg(text: &str) -> Option<String> {
    let code = qrcode::QrCode::new(text.as_bytes()).ok()?;
    Some(
        code.render::<qrcode::render::svg::Color<'_>>()
            .min_dimensions(240, 240)
            .quiet_zone(true)
            .build(),
    )
}

pub async fn new_pairing(
    State(d): State<Arc<Daemon>>,
    body: MaybeJsonBody,
) -> ApiResult<AxumJson<Value>> {
    // No body, or `{}`: the request takes no fields, and refuses any (as every route does).
    if let MaybeJsonBody(Some(body)) = body {
        refuse_unknown(&body.object()?, &[])?;
    }
    let (code, ttl) = d
        .devices
        .new_code(d.store.as_ref(), &d.locks)
        .await
        .map_err(|e| ApiError::store(e, "-"))?;
    let expires = chrono::Utc::now() + chrono::Duration::seconds(ttl.as_secs() as i64);
    Ok(AxumJson(json!({
        "code": code,
        "url": pair_url(&d, &code),
        "expiresAt": expires.to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
        "expiresInSeconds": ttl.as_secs(),
        "qr": format!("/api/pair/{code}/qr.svg"),
    })))
}

pub async fn qr_code(State(d): State<Arc<Daemon>>, Path(code): Path<String>) -> Response {
    let svg = match outstanding(&d, &code).await {
        Ok(code) => code.and_then(|c| qr_svg(&pair_url(&d, c))),
        Err(e) => return e.into_response(),
    };
    match svg {
        Some(svg) => (
            [
                (header::CONTENT_TYPE, "image/svg+xml"),
                (header::CACHE_CONTROL, "no-store"),
            ],
            svg,
        )
            .into_response(),
        None => ApiError::new(
            StatusCode::NOT_FOUND,
            "not-found",
            "no such pairing code: it was used or expired — ask for a new one (POST /api/pair, or askd pair)",
        )
        .into_response(),
    }
}

pub async fn list(State(d): State<Arc<Daemon>>) -> AxumJson<Value> {
    AxumJson(json!({ "devices": d.devices.list() }))
}

pub async fn revoke(State(d): State<Arc<Daemon>>, Path(id): Path<String>) -> ApiResult<StatusCode> {
    match d.devices.revoke(d.store.as_ref(), &id).await {
        Ok(true) => {
            // Its open streams and waits end now.
            d.people_changed();
            Ok(StatusCode::NO_CONTENT)
        }
        Ok(false) => Err(ApiError::new(
            StatusCode::NOT_FOUND,
            "not-found",
            format!("no paired device has the id {id:?}; GET /api/devices lists them"),
        )),
        Err(e) => Err(ApiError::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            "internal",
            e,
        )),
    }
}

/// `GET /api/me`: who this request came with ([`crate::fence::Principal`]).
pub async fn me(who: Option<axum::Extension<crate::fence::Principal>>) -> AxumJson<Value> {
    let who = who.map_or(crate::fence::Principal::Install, |w| w.0);
    AxumJson(who.view())
}

pub async fn notify_status(State(d): State<Arc<Daemon>>) -> ApiResult<AxumJson<Value>> {
    let v = d.notify.view(d.store.as_ref(), &d.settings.origins).await?;
    Ok(AxumJson(v))
}

/// `PUT /api/notify`: the `[notify]` keys saved from the Settings page ([`crate::notify::Live`]).
pub async fn notify_save(
    State(d): State<Arc<Daemon>>,
    body: JsonBody,
) -> ApiResult<AxumJson<Value>> {
    let parsed = body.object()?;
    let v = d
        .notify
        .save(
            d.store.as_ref(),
            &d.hub,
            &d.locks,
            &d.settings.origins,
            &parsed,
        )
        .await?;
    Ok(AxumJson(v))
}

/// `code` when it is a pairing code that is outstanding (`crate::devices`, in the store).
async fn outstanding<'c>(d: &Daemon, code: &'c str) -> ApiResult<Option<&'c str>> {
    let Some(code) = valid_code(code) else {
        return Ok(None);
    };
    let valid = d
        .devices
        .code_valid(d.store.as_ref(), code)
        .await
        .map_err(|e| ApiError::store(e, "-"))?;
    Ok(valid.then_some(code))
}

/// A pairing code as [`crate::devices`] makes them: 32 lowercase hex digits.
fn valid_code(code: &str) -> Option<&str> {
    (code.len() == 32
        && code
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b)))
    .then_some(code)
}

fn page(status: StatusCode, title: &str, body: &str) -> Response {
    let html = format!(
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
         <title>{title} · askd</title></head>\n<body><main>\n<h1>{title}</h1>\n{body}\n</main></body></html>\n"
    );
    (
        status,
        [(header::CONTENT_TYPE, "text/html; charset=utf-8")],
        html,
    )
        .into_response()
}

fn bad_code() -> Response {
    page(
        StatusCode::NOT_FOUND,
        "This pairing link does not work",
        "<p>It was used already, or it expired (a pairing link lasts 10 minutes). \
         Run <code>askd pair</code> on the computer running askd, or open Settings there, for a new one.</p>",
    )
}

pub async fn pair_page(State(d): State<Arc<Daemon>>, Path(code): Path<String>) -> Response {
    let code = match outstanding(&d, &code).await {
        Ok(Some(code)) => code,
        Ok(None) => return bad_code(),
        Err(e) => {
            tracing::error!(error = %e.message, "cannot read the pairing codes");
            return unavailable();
        }
    };
    page(
        StatusCode::OK,
        "Pair this device with askd",
        &format!(
            "<p>This browser will be able to answer the questions agents ask you — not to change settings. \
             The link works once.</p>\n\
             <form method=\"post\" action=\"/pair/{code}\">\n\
             <p><label for=\"name\">Name of this device</label><br>\
             <input id=\"name\" name=\"name\" maxlength=\"{}\" value=\"Phone\" autocomplete=\"off\"></p>\n\
             <p><button type=\"submit\">Pair this device</button></p>\n</form>",
            devices::NAME_MAX
        ),
    )
}

pub async fn pair_submit(
    State(d): State<Arc<Daemon>>,
    Path(code): Path<String>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let Some(code) = valid_code(&code) else {
        return bad_code();
    };
    let name = url::form_urlencoded::parse(&body)
        .find(|(k, _)| k == "name")
        .map(|(_, v)| v.into_owned())
        .unwrap_or_default();
    let ua = headers
        .get(header::USER_AGENT)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    match d
        .devices
        .redeem(d.store.as_ref(), &d.locks, code, &name, ua)
        .await
    {
        Ok(token) => {
            // Lax, not Strict: a link from a notification (another site) must open the ask.
            let secure = d
                .settings
                .public_url
                .as_deref()
                .is_some_and(|u| u.starts_with("https://"));
            let cookie = format!(
                "{}={token}; HttpOnly; SameSite=Lax; Path=/; Max-Age=31536000{}",
                devices::COOKIE,
                if secure { "; Secure" } else { "" }
            );
            let mut r = (StatusCode::SEE_OTHER, [(header::LOCATION, "/")]).into_response();
            if let Ok(v) = HeaderValue::from_str(&cookie) {
                r.headers_mut().insert(header::SET_COOKIE, v);
            }
            r
        }
        Err(RedeemError::BadCode) => bad_code(),
        Err(RedeemError::Other(e)) => {
            tracing::error!(error = %e, "pairing failed");
            unavailable()
        }
    }
}

fn unavailable() -> Response {
    page(
        StatusCode::SERVICE_UNAVAILABLE,
        "Pairing failed",
        "<p>askd could not store the device. Try again with a new link; the daemon's log says why.</p>",
    )
}

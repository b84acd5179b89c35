//! Devices, pairing and the notifier's status (`crate::devices`, `crate::notify`).
//!
//! - `POST /api/pair` (no body, or `{}`: any member is 422 `unknown_field`) — a new pairing
//!   code: `{code, url, expiresAt, expiresInSeconds, qr}` (`qr`: the path of its QR code as
//!   SVG, `GET /api/pair/{code}/qr.svg`).
//! - `GET /api/devices` — `{devices: [{id, name, userAgent, createdAt, lastUsedAt}]}`;
//!   `DELETE /api/devices/{id}` revokes one (204; 404 when unknown).
//! - `GET /api/me` — who the request came with: the install's token or a paired device.
//! - `GET /api/notify` — the notifier's settings in effect and each sink's status;
//!   `PUT /api/notify` saves its keys from the Settings page (`crate::notify::NotifySettings`).
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

use askd_core::lang::Lang;

use crate::daemon::Daemon;
use crate::devices::{self, RedeemError};
use crate::error::{ApiError, ApiResult};
use crate::http::extract::{JsonBody, MaybeJsonBody, refuse_unknown};
use crate::pages::{self, Page, Text};

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

/// `PUT /api/notify`: the `[notify]` keys saved from the Settings page ([`crate::notify::NotifySettings`]).
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

fn bad_code(lang: Lang) -> Response {
    let t = Text {
        en: "This pairing link does not work",
        zh: "这个配对链接无效",
    };
    let how = Text {
        en: "It was used already, or it expired (a pairing link lasts 10 minutes). Run askd pair on the computer running askd, or open Settings there, for a new one.",
        zh: "它已经用过了，或者已经过期（配对链接 10 分钟内有效）。在运行 askd 的电脑上运行 askd pair，或在那里打开“设置”，获取新的链接。",
    };
    Page::new(lang, t.get(lang))
        .para(how.get(lang))
        .respond(StatusCode::NOT_FOUND)
}

pub async fn pair_page(
    State(d): State<Arc<Daemon>>,
    Path(code): Path<String>,
    headers: HeaderMap,
) -> Response {
    let lang = pages::lang_of(&headers);
    let code = match outstanding(&d, &code).await {
        Ok(Some(code)) => code,
        Ok(None) => return bad_code(lang),
        Err(e) => {
            tracing::error!(error = %e.message, "cannot read the pairing codes");
            return unavailable(lang);
        }
    };
    let t = |en, zh| Text { en, zh }.get(lang);
    Page::new(lang, t("Pair this device with askd", "将这台设备与 askd 配对"))
        .para(t(
            "This browser will be able to answer the questions agents ask you — not to change settings. The link works once.",
            "配对后，这个浏览器可以回答智能体向你提出的问题，但不能更改设置。这个链接只能用一次。",
        ))
        .markup(&format!(
            "<form method=\"post\" action=\"/pair/{code}\">\n\
             <p><label for=\"name\">{label}</label>\
             <input type=\"text\" id=\"name\" name=\"name\" maxlength=\"{max}\" value=\"{value}\" autocomplete=\"off\"></p>\n\
             <p><button type=\"submit\">{button}</button></p>\n</form>",
            label = t("Name of this device", "这台设备的名称"),
            value = t("Phone", "手机"),
            button = t("Pair this device", "配对这台设备"),
            max = devices::NAME_MAX
        ))
        .respond(StatusCode::OK)
}

pub async fn pair_submit(
    State(d): State<Arc<Daemon>>,
    Path(code): Path<String>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let lang = pages::lang_of(&headers);
    let Some(code) = valid_code(&code) else {
        return bad_code(lang);
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
        Err(RedeemError::BadCode) => bad_code(lang),
        Err(RedeemError::Other(e)) => {
            tracing::error!(error = %e, "pairing failed");
            unavailable(lang)
        }
    }
}

fn unavailable(lang: Lang) -> Response {
    let t = |en, zh| Text { en, zh }.get(lang);
    Page::new(lang, t("Pairing failed", "配对失败"))
        .para(t(
            "askd could not store the device. Try again with a new link; the daemon's log says why.",
            "askd 无法保存这台设备。请用新的链接重试；守护进程的日志写明了原因。",
        ))
        .respond(StatusCode::SERVICE_UNAVAILABLE)
}

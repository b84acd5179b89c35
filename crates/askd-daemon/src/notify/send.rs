//! Delivering one message to one sink: a webhook (reqwest, timeouts, retries with backoff)
//! or the desktop (freedesktop notifications over the session D-Bus; `osascript` on macOS).

use std::collections::HashMap;
use std::time::Duration;

use reqwest::header::{CONTENT_TYPE, HeaderValue};

use super::message::Message;
use crate::config::{WebhookConfig, WebhookFormat};

/// One request's limit (connect and answer).
pub const TIMEOUT: Duration = Duration::from_secs(10);

/// The HTTP client of every webhook: a timeout, no redirects (a webhook answers itself).
pub fn client() -> reqwest::Client {
    reqwest::Client::builder()
        .timeout(TIMEOUT)
        .redirect(reqwest::redirect::Policy::none())
        .user_agent(concat!("askd/", env!("CARGO_PKG_VERSION")))
        .build()
        .unwrap_or_default()
}

/// One attempt at a webhook. The error names the status or the failure, never the URL
/// (which may hold a secret).
pub async fn webhook_once(
    client: &reqwest::Client,
    hook: &WebhookConfig,
    msg: &Message,
) -> Result<(), String> {
    let req = client.post(&hook.url);
    let req = match hook.format {
        WebhookFormat::Json => req.json(&msg.json_body()),
        WebhookFormat::Slack => req.json(&msg.slack_body()),
        WebhookFormat::Ntfy => {
            let mut req = req
                .header(
                    CONTENT_TYPE,
                    HeaderValue::from_static("text/plain; charset=utf-8"),
                )
                .header("Title", msg.kind.headline())
                .header("Tags", "question");
            // The page's URL is ASCII (our base + an id); a base that is not stays out.
            if let Ok(v) = HeaderValue::from_str(&msg.url) {
                req = req.header("Click", v);
            }
            req.body(msg.ntfy_body())
        }
    };
    let resp = req.send().await.map_err(|e| {
        let e = e.without_url();
        if e.is_timeout() {
            format!("no answer within {}s", TIMEOUT.as_secs())
        } else if e.is_connect() {
            "cannot connect".to_string()
        } else {
            e.to_string()
        }
    })?;
    let status = resp.status();
    if status.is_success() {
        Ok(())
    } else {
        Err(format!("HTTP {}", status.as_u16()))
    }
}

/// One desktop notification on the session bus at `address` (freedesktop
/// `org.freedesktop.Notifications.Notify`).
pub async fn desktop_once(address: &str, msg: &Message) -> Result<(), String> {
    let conn = zbus::connection::Builder::address(address)
        .map_err(|e| format!("bad session bus address: {e}"))?
        .build()
        .await
        .map_err(|e| format!("cannot reach the session bus: {e}"))?;
    let hints: HashMap<&str, zbus::zvariant::Value<'_>> = HashMap::new();
    let actions: Vec<&str> = Vec::new();
    let body = msg.desktop_body();
    conn.call_method(
        Some("org.freedesktop.Notifications"),
        "/org/freedesktop/Notifications",
        Some("org.freedesktop.Notifications"),
        "Notify",
        &(
            "askd",
            0u32,
            "",
            msg.kind.headline(),
            body.as_str(),
            actions,
            hints,
            -1i32,
        ),
    )
    .await
    .map_err(|e| format!("Notify failed: {e}"))?;
    Ok(())
}

/// macOS: `osascript -e 'display notification …'` (not exercised by the tests here).
#[cfg(target_os = "macos")]
pub async fn macos_once(msg: &Message) -> Result<(), String> {
    let quote = |s: &str| format!("\"{}\"", s.replace('\\', "\\\\").replace('"', "\\\""));
    let script = format!(
        "display notification {} with title {}",
        quote(&format!("{}\n{}", msg.text(), msg.url)),
        quote(msg.kind.headline())
    );
    let out = tokio::task::spawn_blocking(move || {
        std::process::Command::new("osascript")
            .arg("-e")
            .arg(script)
            .output()
    })
    .await
    .map_err(|e| e.to_string())?
    .map_err(|e| format!("cannot run osascript: {e}"))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(format!("osascript exited with {}", out.status))
    }
}

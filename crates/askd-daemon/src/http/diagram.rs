//! `GET /api/diagrams/{hash}.svg?theme=light|dark&ask={ask_id}`: a Mermaid diagram of a
//! stored ask, rendered by [`crate::diagram`] and kept in the daemon's cache.

use std::sync::Arc;

use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use serde_json::json;

use crate::daemon::Daemon;
use crate::diagram;
use crate::error::ApiError;
use crate::ui;

#[derive(Deserialize)]
pub struct DiagramQuery {
    theme: Option<String>,
    ask: Option<String>,
}

/// `GET /api/diagrams/{hash}.svg?theme=light|dark&ask=…`.
pub async fn diagram(
    State(d): State<Arc<Daemon>>,
    Path(file): Path<String>,
    Query(q): Query<DiagramQuery>,
    headers: HeaderMap,
) -> Response {
    let Some(h) = file
        .strip_suffix(".svg")
        .filter(|h| h.len() == 64 && h.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')))
    else {
        return ApiError::not_found("this diagram").into_response();
    };
    let Some(theme) = diagram::Theme::parse(q.theme.as_deref()) else {
        return ApiError::new(
            StatusCode::UNPROCESSABLE_ENTITY,
            "invalid-theme",
            "theme must be light or dark",
        )
        .into_response();
    };
    let key = (h.to_string(), theme);
    let tag = format!("\"{}-{}\"", &h[..32], theme.name());
    let rendered = match d.diagrams.get(&key) {
        Some(r) => r,
        None => {
            let Some(ask_id) = q.ask.as_deref() else {
                return ApiError::not_found("this diagram").into_response();
            };
            let ask = match d.load(ask_id).await {
                Ok(a) => a,
                Err(e) => return e.into_response(),
            };
            let mut sources = Vec::new();
            diagram::diagram_sources(&ask.payload, &mut sources);
            let Some(source) = sources.into_iter().find(|s| diagram::hash(s) == h) else {
                return ApiError::not_found("this diagram").into_response();
            };
            let job = tokio::task::spawn_blocking({
                let source = source.clone();
                move || diagram::render(&source, theme)
            });
            let result = match tokio::time::timeout(diagram::RENDER_BUDGET, job).await {
                Ok(Ok(r)) => r,
                Ok(Err(_)) => Err("the renderer crashed on this diagram".to_string()),
                Err(_) => Err("rendering took too long".to_string()),
            };
            let result = result.map_err(|e| format!("{e}\u{0}{source}"));
            let r = Arc::new(result);
            d.diagrams.remember(key, r.clone());
            r
        }
    };
    match rendered.as_ref() {
        Ok(svg) => {
            let mut response = if ui::not_modified(&headers, &tag) {
                StatusCode::NOT_MODIFIED.into_response()
            } else {
                (StatusCode::OK, svg.clone()).into_response()
            };
            let h = response.headers_mut();
            h.insert(
                header::CONTENT_TYPE,
                HeaderValue::from_static("image/svg+xml"),
            );
            h.insert(
                header::CACHE_CONTROL,
                HeaderValue::from_static("private, max-age=31536000, immutable"),
            );
            if let Ok(v) = HeaderValue::from_str(&tag) {
                h.insert(header::ETAG, v);
            }
            response
        }
        Err(failure) => {
            let (message, source) = failure.split_once('\u{0}').unwrap_or((failure, ""));
            let message = format!("the diagram failed to render: {message}");
            (
                StatusCode::UNPROCESSABLE_ENTITY,
                axum::Json(json!({
                    "ok": false, "error": "render-failed", "code": "render-failed",
                    "message": message, "source": source,
                })),
            )
                .into_response()
        }
    }
}

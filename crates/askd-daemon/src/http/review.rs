//! A review's files: `GET /api/asks/{id}/export?format=csv|html|json` and
//! `POST /api/asks/{id}/import` `{format: "csv"|"json", content, dry_run?}`, calling the
//! review room ([`crate::kinds::review`]).

use std::sync::Arc;

use askd_core::Problem;
use askd_core::json::Json;
use askd_core::review::import::Format;
use axum::Json as AxumJson;
use axum::extract::State;
use axum::http::header;
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use serde_json::Value;

use crate::daemon::Daemon;
use crate::error::{ApiError, ApiResult};
use crate::http::extract::{AskId, JsonBody, QueryArgs};
use crate::kinds::review::Review;

#[derive(Deserialize)]
pub struct ExportQuery {
    format: Option<String>,
}

/// `GET /api/asks/{id}/export?format=csv|html|json`: the file, as an attachment.
pub async fn export_route(
    State(d): State<Arc<Daemon>>,
    AskId(id): AskId,
    QueryArgs(q): QueryArgs<ExportQuery>,
) -> ApiResult<Response> {
    crate::asks::require_readable(&d.load(&id).await?)?;
    let format = q.format.as_deref().unwrap_or("csv");
    let (ct, name, body) = Review.export(&d, &id, format).await?;
    Ok((
        [
            (header::CONTENT_TYPE, ct.to_string()),
            (
                header::CONTENT_DISPOSITION,
                format!("attachment; filename=\"{name}\""),
            ),
        ],
        body,
    )
        .into_response())
}

/// `POST /api/asks/{id}/import` `{format: "csv"|"json", content, dry_run?}`.
pub async fn import_route(
    State(d): State<Arc<Daemon>>,
    AskId(id): AskId,
    body: JsonBody,
) -> ApiResult<AxumJson<Value>> {
    let b = body.object()?;
    let o = b.as_object().expect("checked by object()");
    let field = |path: &str, code: &'static str, message: String| {
        ApiError::invalid(
            "invalid-request",
            None,
            vec![Problem::new(path, code, message)],
        )
    };
    let format = match o.get_present("format") {
        Some(Json::String(s)) => Format::parse(s).ok_or_else(|| {
            field(
                "format",
                "invalid_value",
                format!("format must be csv or json (got {s:?})"),
            )
        })?,
        _ => {
            return Err(field(
                "format",
                "required",
                "format is required: csv or json".into(),
            ));
        }
    };
    let Some(Json::String(content)) = o.get_present("content") else {
        return Err(field(
            "content",
            "required",
            "content is required: the file's text".into(),
        ));
    };
    let dry_run = o.get("dry_run").and_then(Json::as_bool).unwrap_or(false);
    Ok(AxumJson(
        Review.import(&d, &id, format, content, dry_run).await?,
    ))
}

//! The extractors every handler uses, each answering in the one JSON error shape.
//!
//! [`JsonBody`] applies the body rules of `platform.md` §5 in order: 415 (not JSON), 413
//! (over `maxBodyBytes` in effect, from `Content-Length` before any body is read), 400
//! (unparseable), and keeps the bytes so the core parses them without copying strings.

use std::sync::Arc;

use askd_core::json::{self, Json};
use axum::body::Bytes;
use axum::extract::{FromRequest, FromRequestParts, Path, Query, Request};
use axum::http::request::Parts;
use axum::http::{StatusCode, header};
use serde::de::DeserializeOwned;

use crate::daemon::Daemon;
use crate::error::{ApiError, ApiResult};

/// A JSON request body, checked for type and size, kept as bytes so the core can parse it
/// into a borrowed tree without copying its strings.
pub struct JsonBody(Bytes);

impl FromRequest<Arc<Daemon>> for JsonBody {
    type Rejection = ApiError;

    async fn from_request(req: Request, d: &Arc<Daemon>) -> Result<Self, ApiError> {
        let is_json = req
            .headers()
            .get(header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.to_ascii_lowercase().starts_with("application/json"));
        if !is_json {
            return Err(ApiError::new(
                StatusCode::UNSUPPORTED_MEDIA_TYPE,
                "json-required",
                "send the body as JSON with Content-Type: application/json",
            ));
        }
        let limit = d.max_body_bytes();
        let too_large = || {
            ApiError::new(
                StatusCode::PAYLOAD_TOO_LARGE,
                "body-too-large",
                format!("the body exceeds maxBodyBytes ({limit} bytes)"),
            )
        };
        if let Some(len) = req
            .headers()
            .get(header::CONTENT_LENGTH)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.parse::<u64>().ok())
            && len > limit as u64
        {
            return Err(too_large());
        }
        let bytes = axum::body::to_bytes(req.into_body(), limit)
            .await
            .map_err(|_| too_large())?;
        Ok(JsonBody(bytes))
    }
}

/// The body of a request that takes no fields but may carry `{}` (`POST /api/pair`): no
/// body at all (whatever its content type) is `None`; a body is checked as [`JsonBody`]
/// (415, 413), so a caller can then refuse its members.
pub struct MaybeJsonBody(pub Option<JsonBody>);

impl FromRequest<Arc<Daemon>> for MaybeJsonBody {
    type Rejection = ApiError;

    async fn from_request(req: Request, d: &Arc<Daemon>) -> Result<Self, ApiError> {
        let is_json = req
            .headers()
            .get(header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.to_ascii_lowercase().starts_with("application/json"));
        let length = req
            .headers()
            .get(header::CONTENT_LENGTH)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.parse::<u64>().ok());
        if length == Some(0) {
            return Ok(MaybeJsonBody(None));
        }
        if is_json || length.is_some() {
            // A body is announced: the JSON body's rules, in their order.
            return JsonBody::from_request(req, d)
                .await
                .map(|b| MaybeJsonBody(Some(b)));
        }
        // No length given (chunked, or nothing): read it, then decide.
        let limit = d.max_body_bytes();
        let bytes = axum::body::to_bytes(req.into_body(), limit)
            .await
            .map_err(|_| {
                ApiError::new(
                    StatusCode::PAYLOAD_TOO_LARGE,
                    "body-too-large",
                    format!("the body exceeds maxBodyBytes ({limit} bytes)"),
                )
            })?;
        if bytes.is_empty() {
            return Ok(MaybeJsonBody(None));
        }
        Err(ApiError::new(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "json-required",
            "send the body as JSON with Content-Type: application/json",
        ))
    }
}

impl JsonBody {
    /// The body's bytes, as checked (for a route that hands them on, like `/mcp`).
    pub fn bytes(&self) -> &Bytes {
        &self.0
    }

    /// Parses the body; a parse failure is a 400 carrying the parser's message.
    pub fn parse(&self) -> ApiResult<Json<'_>> {
        let text = std::str::from_utf8(&self.0).map_err(|e| {
            ApiError::new(
                StatusCode::BAD_REQUEST,
                "invalid-json",
                format!("the body is not UTF-8: {e}"),
            )
        })?;
        json::parse(text).map_err(|e| {
            ApiError::new(
                StatusCode::BAD_REQUEST,
                "invalid-json",
                format!("the body is not valid JSON: {e}"),
            )
        })
    }

    /// Parses the body and requires an object (422 `invalid-action` otherwise).
    pub fn object(&self) -> ApiResult<Json<'_>> {
        let v = self.parse()?;
        if v.as_object().is_none() {
            return Err(ApiError::new(
                StatusCode::UNPROCESSABLE_ENTITY,
                "invalid-action",
                format!("the body must be a JSON object, got {}", v.kind()),
            ));
        }
        Ok(v)
    }
}

/// The `{id}` of an ask route. An id that cannot even be decoded names no ask: 404, in the
/// one JSON error shape (axum's own rejection is plain text).
pub struct AskId(pub String);

impl<S: Send + Sync> FromRequestParts<S> for AskId {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, ApiError> {
        Path::<String>::from_request_parts(parts, state)
            .await
            .map(|Path(id)| AskId(id))
            .map_err(|e| ApiError::new(StatusCode::NOT_FOUND, "not-found", e.body_text()))
    }
}

/// Query parameters. A malformed one is a 422 in the one JSON error shape (axum's own
/// rejection is a plain-text 400).
pub struct QueryArgs<T>(pub T);

impl<T: DeserializeOwned, S: Send + Sync> FromRequestParts<S> for QueryArgs<T> {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, ApiError> {
        Query::<T>::from_request_parts(parts, state)
            .await
            .map(|Query(q)| QueryArgs(q))
            .map_err(|e| field_problem("query", "query_invalid", e.body_text()))
    }
}

pub fn field_problem(path: &str, code: &'static str, message: String) -> ApiError {
    ApiError::invalid(
        "invalid-request",
        None,
        vec![askd_core::Problem::new(path, code, message)],
    )
}

/// An optional string member of a request object.
pub fn opt_str<'a>(o: &'a Json<'a>, name: &str) -> ApiResult<Option<&'a str>> {
    match o.as_object().and_then(|o| o.get_present(name)) {
        None => Ok(None),
        Some(Json::String(s)) => Ok(Some(s)),
        Some(v) => Err(field_problem(
            name,
            "type",
            format!("{name} must be a string, got {}", v.kind()),
        )),
    }
}

/// Refuses a request object with members other than `fields`: 422 `invalid-request`, one
/// `unknown_field` problem per unknown member, naming it, the fields there are, and the
/// field meant when only case, `_` or `-` differ.
pub fn refuse_unknown(o: &Json<'_>, fields: &[&str]) -> ApiResult<()> {
    let Some(obj) = o.as_object() else {
        return Ok(());
    };
    let known = fields
        .iter()
        .map(|f| format!("{f:?}"))
        .collect::<Vec<_>>()
        .join(", ");
    let problems: Vec<askd_core::Problem> = obj
        .iter()
        .filter(|(k, _)| !fields.contains(k))
        .map(|(k, _)| {
            let near = fields
                .iter()
                .find(|f| f.eq_ignore_ascii_case(&k.replace(['_', '-'], "")))
                .map(|f| format!(" (did you mean {f:?}?)"))
                .unwrap_or_default();
            let message = if fields.is_empty() {
                format!(
                    "{k:?} is not a field of this request, which takes none: send {{}} or no body"
                )
            } else {
                format!("{k:?} is not a field of this request{near}; its fields are {known}")
            };
            askd_core::Problem::new(k, "unknown_field", message)
        })
        .collect();
    if problems.is_empty() {
        Ok(())
    } else {
        Err(ApiError::invalid("invalid-request", None, problems))
    }
}

//! API errors: one JSON shape for every failure, `{ok:false, error, code, message, errors?}`.
//!
//! `error` is the short code (`not-found`, `forbidden`…) except for validation failures,
//! where — as `survey.md` §7 fixes it — it is every message joined with `"; "`; `code` is
//! always the short code, `errors` the `{path, code, message}` list when there is one.

use askd_core::Problem;
use askd_core::problem::join_messages;
use askd_store::StoreError;
use axum::Json;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde_json::json;

#[derive(Debug, Clone)]
pub struct ApiError {
    pub status: StatusCode,
    pub code: String,
    pub message: String,
    pub errors: Option<Vec<Problem>>,
    /// Extra top-level members of the body (a 409 on a review carries the actual outcome).
    pub details: Option<Box<serde_json::Map<String, serde_json::Value>>>,
}

impl ApiError {
    pub fn new(status: StatusCode, code: impl Into<String>, message: impl Into<String>) -> Self {
        ApiError {
            status,
            code: code.into(),
            message: message.into(),
            errors: None,
            details: None,
        }
    }

    /// 422 with the problem list; `lead` prefixes the joined text (e.g. `invalid survey spec`).
    pub fn invalid(code: &str, lead: Option<&str>, problems: Vec<Problem>) -> Self {
        let joined = join_messages(&problems);
        let message = match lead {
            Some(l) => format!("{l}: {joined}"),
            None => joined,
        };
        ApiError {
            status: StatusCode::UNPROCESSABLE_ENTITY,
            code: code.to_string(),
            message,
            errors: Some(problems),
            details: None,
        }
    }

    pub fn not_found(what: &str) -> Self {
        ApiError::new(
            StatusCode::NOT_FOUND,
            "not-found",
            format!("{what} was not found"),
        )
    }

    pub fn not_pending(ask_id: &str) -> Self {
        ApiError::new(
            StatusCode::CONFLICT,
            "not-pending",
            format!("ask {ask_id} has already settled; nothing was changed"),
        )
    }

    pub fn internal(message: impl Into<String>) -> Self {
        ApiError::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            "internal",
            message.into(),
        )
    }

    /// 507: the disk holding the data directory is full, so nothing was saved.
    pub fn storage_full() -> Self {
        ApiError::new(
            StatusCode::INSUFFICIENT_STORAGE,
            "storage-full",
            "the disk holding askd's data directory is full: nothing was saved. Free some space and try again; reading still works",
        )
    }

    /// 503: the daemon cannot reach its database (team mode), so it serves nothing it could
    /// not check against it.
    pub fn database_unavailable() -> Self {
        ApiError::new(
            StatusCode::SERVICE_UNAVAILABLE,
            "database-unavailable",
            "askd cannot reach its database right now and is reconnecting; nothing was changed and nothing stale is served. Try again in a few seconds",
        )
    }

    /// 503: the database connection was lost while the write committed (team mode): it may
    /// have been saved. The same request again is safe and answers with what was saved.
    pub fn outcome_unknown() -> Self {
        ApiError::new(
            StatusCode::SERVICE_UNAVAILABLE,
            "outcome-unknown",
            "askd lost its database connection while saving this, so it cannot tell whether it was saved. Retrying is safe: the same request again returns what was saved, or saves it now",
        )
    }

    /// Maps a store failure for an operation on `ask_id`.
    pub fn store(e: StoreError, ask_id: &str) -> Self {
        match e {
            StoreError::NotFound => ApiError::not_found(&format!("ask {ask_id}")),
            StoreError::NotPending => ApiError::not_pending(ask_id),
            StoreError::Conflict(m) => ApiError::new(StatusCode::CONFLICT, "conflict", m),
            StoreError::UnknownSession(s) => ApiError::new(
                StatusCode::UNPROCESSABLE_ENTITY,
                "unknown-session",
                format!("session {s:?} does not exist — open it with POST /api/sessions first"),
            ),
            StoreError::StorageFull(m) => {
                tracing::error!(error = %m, "the disk is full");
                ApiError::storage_full()
            }
            StoreError::Unavailable(m) => {
                tracing::error!(error = %m, "the database is unavailable");
                ApiError::database_unavailable()
            }
            StoreError::CommitUnknown(m) => {
                tracing::warn!(error = %m, ask = ask_id, "a commit's outcome is unknown");
                ApiError::outcome_unknown()
            }
            StoreError::Backend(m) => {
                tracing::error!(error = %m, "store failure");
                ApiError::internal("the store failed; see the daemon log")
            }
        }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let error = if self.errors.is_some() && self.status == StatusCode::UNPROCESSABLE_ENTITY {
            self.message.clone()
        } else {
            self.code.clone()
        };
        let mut body = json!({
            "ok": false,
            "error": error,
            "code": self.code,
            "message": self.message,
        });
        if let Some(errors) = &self.errors {
            body["errors"] = json!(errors);
        }
        if let (Some(details), Some(b)) = (&self.details, body.as_object_mut()) {
            for (k, v) in details.iter() {
                b.entry(k.clone()).or_insert_with(|| v.clone());
            }
        }
        (self.status, Json(body)).into_response()
    }
}

pub type ApiResult<T> = Result<T, ApiError>;

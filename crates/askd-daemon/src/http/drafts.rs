//! The question builder's routes (see `docs/api.md`): `GET /api/drafts` (the manifest),
//! `POST /api/drafts/set|get|launch` with `{session?, args}`, calling the survey room's
//! builder ([`crate::kinds::drafts`]).

use std::sync::Arc;

use askd_store::NewSession;
use axum::Json as AxumJson;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use serde_json::{Value, json};

use crate::daemon::Daemon;
use crate::error::{ApiError, ApiResult};
use crate::http::extract::{JsonBody, QueryArgs};

type St = State<Arc<Daemon>>;

/// `{session?, args}`: the session (default: the built-in `http` session) and the tool
/// arguments.
pub async fn session_and_args(d: &Daemon, body: &JsonBody) -> ApiResult<(String, Value)> {
    let b = body.object()?.to_value();
    let session = match b.get("session") {
        None | Some(Value::Null) => {
            d.open_session(NewSession {
                id: Some("http".into()),
                client: "http".into(),
                workspace: None,
            })
            .await?
            .id
        }
        Some(Value::String(s)) => s.clone(),
        Some(other) => {
            return Err(ApiError::invalid(
                "invalid-request",
                None,
                vec![askd_core::Problem::new(
                    "session",
                    "type",
                    format!("session must be a string, got {other}"),
                )],
            ));
        }
    };
    let args = b.get("args").cloned().unwrap_or_else(|| json!({}));
    Ok((session, args))
}

pub async fn set_route(State(d): St, body: JsonBody) -> ApiResult<AxumJson<Value>> {
    let (session, args) = session_and_args(&d, &body).await?;
    Ok(AxumJson(d.builder().set(&session, &args).await?))
}

pub async fn get_route(State(d): St, body: JsonBody) -> ApiResult<AxumJson<Value>> {
    let (session, args) = session_and_args(&d, &body).await?;
    Ok(AxumJson(d.builder().get(&session, &args).await?))
}

pub async fn launch_route(State(d): St, body: JsonBody) -> ApiResult<Response> {
    let (session, args) = session_and_args(&d, &body).await?;
    let l = d.builder().launch(&session, &args).await?;
    let status = if l.created {
        StatusCode::CREATED
    } else {
        StatusCode::OK
    };
    Ok((
        status,
        AxumJson(
            json!({"ok": true, "ask_id": l.ask_id, "url": l.url, "created": l.created,
                        "draft": l.slug}),
        ),
    )
        .into_response())
}

#[derive(Deserialize)]
pub struct ListQuery {
    session: Option<String>,
}

pub async fn list(State(d): St, QueryArgs(q): QueryArgs<ListQuery>) -> ApiResult<AxumJson<Value>> {
    let mut manifest = d.builder().manifest(q.session.as_deref()).await?;
    // A paired device sees the builder's progress, not where its files are.
    if let Some(crate::fence::Principal::Device { .. }) = crate::fence::caller() {
        strip_files(&mut manifest);
    }
    Ok(AxumJson(manifest))
}

fn strip_files(v: &mut Value) {
    match v {
        Value::Object(o) => {
            o.remove("file");
            o.remove("workspace");
            o.values_mut().for_each(strip_files);
        }
        Value::Array(a) => a.iter_mut().for_each(strip_files),
        _ => {}
    }
}

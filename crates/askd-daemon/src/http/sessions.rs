//! The session routes: `POST`/`GET /api/sessions`, the alignment operations
//! (`POST /api/sessions/{id}/alignment/{op}`) and the session page's routes
//! (`GET /api/sessions/{id}/alignment`, `GET …/alignment/decisions`, `PUT …/alignment/mode`;
//! see [`crate::session_page`]).

use std::sync::Arc;

use askd_core::AlignOp;
use axum::Json as AxumJson;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};

use crate::alignment::{OpRequest, Page, SessionRequest};
use crate::daemon::Daemon;
use crate::error::{ApiError, ApiResult};
use crate::http::extract::{JsonBody, QueryArgs, field_problem, opt_str};
use crate::session_page;

type St = State<Arc<Daemon>>;

pub async fn open_session(State(d): St, body: JsonBody) -> ApiResult<Response> {
    let b = body.object()?;
    let client = opt_str(&b, "client")?.unwrap_or("http").to_string();
    let v: Value = serde_json::from_slice(body.bytes()).unwrap_or(Value::Null);
    let fork = match v.get("fork") {
        None | Some(Value::Null) => None,
        Some(f) => {
            let Some(parent) = f.get("session").and_then(Value::as_str) else {
                return Err(field_problem(
                    "fork.session",
                    "required",
                    "fork.session must be the id of the session to fork".into(),
                ));
            };
            let at = match f.get("at") {
                None | Some(Value::Null) => None,
                Some(a) => Some(a.as_i64().ok_or_else(|| {
                    field_problem(
                        "fork.at",
                        "wrong_type",
                        "fork.at must be an event seq (an integer)".into(),
                    )
                })?),
            };
            Some((parent.to_string(), at))
        }
    };
    let req = SessionRequest {
        id: opt_str(&b, "id")?.map(str::to_string),
        client,
        workspace: opt_str(&b, "workspace")?.map(str::to_string),
        transport: opt_str(&b, "transport")?.map(str::to_string),
        attach: v.get("attach").and_then(Value::as_bool).unwrap_or(false),
        must_exist: v
            .get("must_exist")
            .and_then(Value::as_bool)
            .unwrap_or(false),
        fork,
    };
    let mut out = d.alignment().record_session(req).await?;
    out["ok"] = json!(true);
    Ok((StatusCode::OK, AxumJson(out)).into_response())
}

/// `POST /api/sessions/{id}/alignment/{op}` with `{configured?, mode?, actor?, via?, note?,
/// args?, detail?, before?, limit?, repeat?}`: `status`, `mode` (set the session override), `check` (record an `align` check) or
/// `baseline` (`establish_baseline` with `args`).
pub async fn alignment_op(
    State(d): St,
    Path((id, op)): Path<(String, String)>,
    body: JsonBody,
) -> ApiResult<AxumJson<Value>> {
    let b = body.object()?;
    for name in ["configured", "mode", "actor", "via", "note"] {
        opt_str(&b, name)?;
    }
    // The body is a valid JSON object (checked above); `args` is kept as JSON.
    let v: Value = serde_json::from_slice(body.bytes()).unwrap_or(Value::Null);
    let Some(op) = AlignOp::parse(&op) else {
        return Err(ApiError::not_found(&format!("alignment operation {op:?}")));
    };
    let mut req = OpRequest::from_value(&v);
    // An agent token's operations are the agent's, whatever the body says.
    if let Some(p @ crate::fence::Principal::Agent { .. }) = crate::fence::caller() {
        req.actor = Some(p.actor());
    }
    Ok(AxumJson(d.alignment_op(&id, op, req).await?))
}

pub async fn list_sessions(State(d): St) -> ApiResult<AxumJson<Value>> {
    let sessions = d
        .store
        .sessions()
        .await
        .map_err(|e| ApiError::store(e, "-"))?;
    Ok(AxumJson(json!({"sessions": sessions})))
}

/// `GET /api/sessions/{id}/alignment`.
pub async fn get_alignment(State(d): St, Path(id): Path<String>) -> ApiResult<AxumJson<Value>> {
    Ok(AxumJson(session_page::alignment_page(&d, &id).await?))
}

#[derive(serde::Deserialize)]
pub struct PageQuery {
    before: Option<usize>,
    limit: Option<usize>,
}

/// `GET /api/sessions/{id}/alignment/{op}`: only `decisions` exists — one page of the settled
/// decisions, `?before=` (the cursor `settled_decisions_page.before` gave) and `?limit=`
/// (1 to [`Page::MAX_LIMIT`], default [`session_page::PAGE_DECISIONS`]).
pub async fn get_alignment_part(
    State(d): St,
    Path((id, op)): Path<(String, String)>,
    QueryArgs(q): QueryArgs<PageQuery>,
) -> ApiResult<AxumJson<Value>> {
    if op != "decisions" {
        return Err(ApiError::not_found(&format!("alignment view {op:?}")));
    }
    let limit = q.limit.unwrap_or(session_page::PAGE_DECISIONS);
    if !(1..=Page::MAX_LIMIT).contains(&limit) {
        return Err(field_problem(
            "limit",
            "out_of_range",
            format!(
                "limit must be 1 to {}, got {limit}; page on with ?before=",
                Page::MAX_LIMIT
            ),
        ));
    }
    let page = Page {
        before: q.before,
        limit,
    };
    session_page::decisions_page(&d, &id, page)
        .await
        .map(AxumJson)
}

/// `PUT /api/sessions/{id}/alignment/{op}`: only `mode` exists.
pub async fn put_alignment(
    State(d): St,
    Path((id, op)): Path<(String, String)>,
    body: JsonBody,
) -> ApiResult<AxumJson<Value>> {
    if op != "mode" {
        return Err(ApiError::not_found(&format!("alignment setting {op:?}")));
    }
    let b = body.object()?;
    session_page::set_mode(&d, &id, &b).await.map(AxumJson)
}

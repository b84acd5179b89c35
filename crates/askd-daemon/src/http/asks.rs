//! The ask routes under `/api/asks` and `/api/records`, and `/api/health` (see
//! `docs/api.md`): each parses its request, calls the ask's room ([`crate::kinds`]) and
//! shapes the response.

use std::sync::Arc;
use std::time::Duration;

use askd_core::json::Json;
use askd_store::{AskFilter, AskState, RecordFilter};
use axum::Json as AxumJson;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use serde_json::{Value, json};

use crate::daemon::Daemon;
use crate::error::{ApiError, ApiResult};
use crate::http::extract::{AskId, JsonBody, QueryArgs, field_problem, opt_str};
use crate::kinds::CreateAsk;

type St = State<Arc<Daemon>>;

pub async fn health(State(d): St) -> ApiResult<AxumJson<Value>> {
    let pending = d
        .store
        .count_asks(Some(AskState::Pending))
        .await
        .map_err(|e| ApiError::store(e, "-"))?;
    Ok(AxumJson(json!({
        "ok": true,
        "version": env!("CARGO_PKG_VERSION"),
        "pid": std::process::id(),
        "url": d.base_url,
        "pending": pending,
        "waiting": d.hub.waiting(),
        "uptime_s": d.started.elapsed().as_secs(),
    })))
}

pub async fn create_ask(State(d): St, body: JsonBody) -> ApiResult<Response> {
    let b = body.object()?;
    let Some(kind) = opt_str(&b, "kind")? else {
        return Err(field_problem(
            "kind",
            "kind_missing",
            "kind is required — one of: survey, questions, review".into(),
        ));
    };
    let o = b.as_object().expect("checked by object()");
    let args = match o.get("args") {
        Some(a) => a.clone(),
        None => {
            return Err(field_problem(
                "args",
                "args_missing",
                "args is required: the tool arguments, e.g. {\"survey\": {…}} or {\"questions\": […]}".into(),
            ));
        }
    };
    // `dry_run`: validate only, write nothing (no session, no ask).
    if o.get("dry_run").and_then(|v| v.as_bool()) == Some(true) {
        d.check(kind, args)?;
        return Ok((StatusCode::OK, AxumJson(json!({"ok": true, "valid": true}))).into_response());
    }
    let created = d
        .create(CreateAsk {
            kind,
            session_id: opt_str(&b, "session")?,
            args,
            replaces: opt_str(&b, "replaces")?,
            return_undelivered: b
                .as_object()
                .and_then(|o| o.get_present("return_undelivered"))
                .is_some_and(|v| matches!(v, Json::Bool(true))),
        })
        .await?;
    let status = if created.created {
        StatusCode::CREATED
    } else {
        StatusCode::OK
    };
    let ask = &created.ask;
    Ok((
        status,
        AxumJson(json!({
            "ok": true,
            "ask_id": ask.id,
            "url": d.ask_url(&ask.id),
            "created": created.created,
            "kind": ask.kind,
            "session": ask.session_id,
            "state": ask.state,
        })),
    )
        .into_response())
}

#[derive(Deserialize)]
pub struct ListQuery {
    state: Option<String>,
    session: Option<String>,
    kind: Option<String>,
    limit: Option<u32>,
}

pub async fn list_asks(
    State(d): St,
    QueryArgs(q): QueryArgs<ListQuery>,
) -> ApiResult<AxumJson<Value>> {
    let state = match q.state.as_deref() {
        None | Some("all") => None,
        Some(s) => Some(AskState::parse(s).ok_or_else(|| {
            field_problem(
                "state",
                "state_unknown",
                format!("state {s:?} is not one of pending, settled, all"),
            )
        })?),
    };
    let asks = d
        .store
        .asks(&AskFilter {
            state,
            session_id: q.session,
            kind: q.kind,
            limit: q.limit,
        })
        .await
        .map_err(|e| ApiError::store(e, "-"))?;
    let asks: Vec<Value> = asks
        .into_iter()
        .map(|a| {
            let url = d.ask_url(&a.id);
            let mut v = json!(a);
            v["url"] = json!(url);
            v
        })
        .collect();
    Ok(AxumJson(json!({"asks": asks})))
}

pub async fn show_ask(State(d): St, AskId(id): AskId) -> ApiResult<AxumJson<Value>> {
    let ask = d.load(&id).await?;
    Ok(AxumJson(d.show(&ask).await?))
}

pub async fn bank(State(d): St, AskId(id): AskId, body: JsonBody) -> ApiResult<AxumJson<Value>> {
    let b = body.object()?;
    let total = d.bank(&id, &b).await?;
    Ok(AxumJson(json!({"ok": true, "banked": total})))
}

pub async fn autosave(
    State(d): St,
    AskId(id): AskId,
    body: JsonBody,
) -> ApiResult<AxumJson<Value>> {
    let b = body.parse()?;
    let (revision, saved_at) = d.autosave(&id, &b).await?;
    Ok(AxumJson(
        json!({"ok": true, "revision": revision, "savedAt": saved_at}),
    ))
}

pub async fn submit(State(d): St, AskId(id): AskId, body: JsonBody) -> ApiResult<AxumJson<Value>> {
    let b = body.object()?;
    let result = d.submit(&id, &b).await?;
    let mut out = json!({"ok": true, "outcome": "answered"});
    for member in ["answers", "path", "skipped"] {
        if let Some(v) = result.get(member) {
            out[member] = v.clone();
        }
    }
    out["result"] = result;
    Ok(AxumJson(out))
}

pub async fn cancel(State(d): St, AskId(id): AskId, body: JsonBody) -> ApiResult<AxumJson<Value>> {
    body.object()?;
    d.cancel(&id).await?;
    Ok(AxumJson(json!({"ok": true, "outcome": "cancelled"})))
}

pub async fn preflight(
    State(d): St,
    AskId(id): AskId,
    body: JsonBody,
) -> ApiResult<AxumJson<Value>> {
    let b = body.object()?;
    let action = match b.as_object().and_then(|o| o.get("action")) {
        Some(Json::String(a)) => a.to_string(),
        _ => {
            return Err(ApiError::new(
                StatusCode::UNPROCESSABLE_ENTITY,
                "unknown-action",
                "action must be one of reroll, push, discuss",
            ));
        }
    };
    let result = d.preflight(&id, &action).await?;
    Ok(AxumJson(json!({"ok": true, "outcome": result["outcome"]})))
}

pub async fn withdraw(
    State(d): St,
    AskId(id): AskId,
    body: JsonBody,
) -> ApiResult<AxumJson<Value>> {
    let b = body.object()?;
    let result = d.withdraw(&id, opt_str(&b, "reason")?).await?;
    Ok(AxumJson(
        json!({"ok": true, "outcome": result["outcome"], "result": result}),
    ))
}

/// Marks whether an agent still waits on the ask (`{"awaited": false}` after an MCP cancel).
pub async fn awaited(State(d): St, AskId(id): AskId, body: JsonBody) -> ApiResult<AxumJson<Value>> {
    let b = body.object()?;
    let Some(flag) = b
        .as_object()
        .and_then(|o| o.get("awaited"))
        .and_then(Json::as_bool)
    else {
        return Err(field_problem(
            "awaited",
            "awaited_type",
            "awaited must be a boolean".into(),
        ));
    };
    d.store
        .set_awaited(&id, flag)
        .await
        .map_err(|e| ApiError::store(e, &id))?;
    Ok(AxumJson(json!({"ok": true, "awaited": flag})))
}

/// The branch path for a set of answers (`survey.md` §6): the wizard asks the server,
/// which runs the one path engine. Body `{answers: {id: {selected, custom?, skipped?}}}`
/// (the autosave's answers map); answers the spec does not know are ignored.
pub async fn path(State(d): St, AskId(id): AskId, body: JsonBody) -> ApiResult<AxumJson<Value>> {
    let b = body.object()?;
    let ask = d.load(&id).await?;
    let path = d.path(&ask, &b)?;
    Ok(AxumJson(json!({"path": path})))
}

#[derive(Deserialize)]
pub struct WaitQuery {
    timeout_s: Option<f64>,
}

pub async fn wait(
    State(d): St,
    AskId(id): AskId,
    QueryArgs(q): QueryArgs<WaitQuery>,
) -> ApiResult<AxumJson<Value>> {
    let requested = match q.timeout_s {
        Some(t) if t.is_finite() && t >= 0.0 => Some(Duration::from_secs_f64(t.min(1e9))),
        Some(t) => {
            return Err(field_problem(
                "timeout_s",
                "timeout_type",
                format!("timeout_s must be a number of seconds ≥ 0, got {t}"),
            ));
        }
        None => None,
    };
    let budget = match (requested, d.settings.max_wait) {
        (Some(r), Some(m)) => Some(r.min(m)),
        (r, m) => r.or(m),
    };
    let _gone = WaitGone {
        daemon: d.clone(),
        ask_id: id.clone(),
    };
    Ok(AxumJson(d.wait(&id, budget).await?))
}

/// How long after a wait request ends (answered, or dropped because its connection
/// closed) the ask must have no wait again before it counts as no longer awaited. An
/// adapter waits in chunks and asks again within milliseconds; a killed one never does.
const AWAIT_GRACE: Duration = Duration::from_secs(3);

/// Ends with the wait request however it ends: when the client's connection closes, hyper
/// drops the handler, and this notices it. If no other wait on the ask follows within
/// [`AWAIT_GRACE`], the ask is no longer `awaited` (the inbox stops saying an agent waits).
struct WaitGone {
    daemon: Arc<Daemon>,
    ask_id: String,
}

impl Drop for WaitGone {
    fn drop(&mut self) {
        let Ok(rt) = tokio::runtime::Handle::try_current() else {
            return;
        };
        let (d, id) = (self.daemon.clone(), std::mem::take(&mut self.ask_id));
        rt.spawn(async move {
            tokio::time::sleep(AWAIT_GRACE).await;
            if d.hub.is_waited(&id) {
                return;
            }
            if let Ok(Some(ask)) = d.store.ask(&id).await
                && ask.awaited
                && ask.state == AskState::Pending
            {
                // Only the flag changes; a settle in between wins (pending only).
                let _ = d.store.set_awaited(&id, false).await;
                if d.hub.is_waited(&id) {
                    // A new wait arrived meanwhile: an agent waits after all.
                    let _ = d.store.set_awaited(&id, true).await;
                    return;
                }
                tracing::debug!(ask = %id, "no agent waits any more: awaited cleared");
            }
        });
    }
}

#[derive(Deserialize)]
pub struct RecordQuery {
    kind: Option<String>,
    session: Option<String>,
    outcome: Option<String>,
    limit: Option<u32>,
}

pub async fn records(
    State(d): St,
    QueryArgs(q): QueryArgs<RecordQuery>,
) -> ApiResult<AxumJson<Value>> {
    let records = d
        .store
        .records(&RecordFilter {
            kind: q.kind,
            session_id: q.session,
            outcome: q.outcome,
            limit: q.limit,
        })
        .await
        .map_err(|e| ApiError::store(e, "-"))?;
    Ok(AxumJson(json!({"records": records})))
}

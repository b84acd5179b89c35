//! The JSON API under `/api/` and live events at `/api/events` (see `docs/api.md`).
//!
//! Every mutation takes a JSON body through [`JsonBody`], which applies the body rules of
//! `platform.md` §5 in order: 415 (not JSON), 413 (over `maxBodyBytes`), 400 (unparseable).

use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;

use askd_core::json::{self, Json};
use askd_store::{AskFilter, AskState, RecordFilter, Store};
use axum::body::Bytes;
use axum::extract::{FromRequest, FromRequestParts, Path, Query, Request, State};
use axum::http::request::Parts;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::sse::{Event as SseEvent, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json as AxumJson, Router};
use futures_util::Stream;
use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};
use tokio::sync::broadcast::error::RecvError;

use crate::Daemon;
use crate::error::{ApiError, ApiResult};
use crate::service::CreateAsk;

type St = State<Arc<Daemon>>;

pub fn routes() -> Router<Arc<Daemon>> {
    Router::new()
        .route("/api/health", get(health))
        .route("/api/sessions", post(open_session).get(list_sessions))
        .route(
            "/api/sessions/{id}/alignment",
            get(crate::session_page::get_alignment),
        )
        .route(
            "/api/sessions/{id}/alignment/{op}",
            post(alignment_op).put(crate::session_page::put_alignment),
        )
        .route("/api/asks", post(create_ask).get(list_asks))
        .route("/api/asks/{id}", get(show_ask))
        .route("/api/asks/{id}/bank", post(bank))
        .route("/api/asks/{id}/draft", axum::routing::put(autosave))
        .route("/api/asks/{id}/submit", post(submit))
        .route("/api/asks/{id}/cancel", post(cancel))
        .route("/api/asks/{id}/preflight", post(preflight))
        .route("/api/asks/{id}/withdraw", post(withdraw))
        .route("/api/asks/{id}/awaited", post(awaited))
        .route("/api/asks/{id}/wait", get(wait))
        .route("/api/asks/{id}/path", post(path))
        .route("/api/asks/{id}/import", post(crate::review::import_route))
        .route("/api/asks/{id}/export", get(crate::review::export_route))
        .route("/api/records", get(records))
        .route("/api/events", get(events))
        .merge(crate::drafts::routes())
        .merge(crate::settings::routes())
        .method_not_allowed_fallback(method_not_allowed)
}

/// A known API route with a method it does not serve: the one JSON error shape.
async fn method_not_allowed() -> ApiError {
    ApiError::new(
        StatusCode::METHOD_NOT_ALLOWED,
        "method-not-allowed",
        "this route does not serve that method",
    )
}

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

fn field_problem(path: &str, code: &'static str, message: String) -> ApiError {
    ApiError::invalid(
        "invalid-request",
        None,
        vec![askd_core::Problem::new(path, code, message)],
    )
}

/// An optional string member of a request object.
fn opt_str<'a>(o: &'a Json<'a>, name: &str) -> ApiResult<Option<&'a str>> {
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

async fn health(State(d): St) -> ApiResult<AxumJson<Value>> {
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

async fn open_session(State(d): St, body: JsonBody) -> ApiResult<Response> {
    let b = body.object()?;
    let client = opt_str(&b, "client")?.unwrap_or("http").to_string();
    let v: Value = serde_json::from_slice(&body.0).unwrap_or(Value::Null);
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
    let req = crate::alignment::SessionRequest {
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
    let mut out = crate::alignment::record_session(d.store.as_ref(), req).await?;
    out["ok"] = json!(true);
    Ok((StatusCode::OK, AxumJson(out)).into_response())
}

/// `POST /api/sessions/{id}/alignment/{op}` with `{configured?, mode?, actor?, via?, note?,
/// args?}`: `status`, `mode` (set the session override), `check` (record an `align` check) or
/// `baseline` (`establish_baseline` with `args`).
async fn alignment_op(
    State(d): St,
    Path((id, op)): Path<(String, String)>,
    body: JsonBody,
) -> ApiResult<AxumJson<Value>> {
    let b = body.object()?;
    for name in ["configured", "mode", "actor", "via", "note"] {
        opt_str(&b, name)?;
    }
    // The body is a valid JSON object (checked above); `args` is kept as JSON.
    let v: Value = serde_json::from_slice(&body.0).unwrap_or(Value::Null);
    if op == "report_drift" {
        let args = v.get("args").cloned().unwrap_or_else(|| json!({}));
        return Ok(AxumJson(d.report_drift(&id, &args).await?));
    }
    let req = crate::alignment::OpRequest::from_value(&v);
    Ok(AxumJson(d.alignment_op(&id, &op, req).await?))
}

async fn list_sessions(State(d): St) -> ApiResult<AxumJson<Value>> {
    let sessions = d
        .store
        .sessions()
        .await
        .map_err(|e| ApiError::store(e, "-"))?;
    Ok(AxumJson(json!({"sessions": sessions})))
}

async fn create_ask(State(d): St, body: JsonBody) -> ApiResult<Response> {
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
struct ListQuery {
    state: Option<String>,
    session: Option<String>,
    kind: Option<String>,
    limit: Option<u32>,
}

async fn list_asks(State(d): St, QueryArgs(q): QueryArgs<ListQuery>) -> ApiResult<AxumJson<Value>> {
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

async fn show_ask(State(d): St, AskId(id): AskId) -> ApiResult<AxumJson<Value>> {
    let ask = d.load(&id).await?;
    let mut view = d.view(&ask)?;
    if ask.kind == "drift" {
        d.drift_view(&ask, &mut view).await?;
    }
    if ask.kind == "questions" || ask.kind == "survey" {
        view["repeats"] =
            crate::alignment::repeats(d.store.as_ref(), &ask, d.settings.alignment_mode).await?;
    }
    Ok(AxumJson(view))
}

async fn bank(State(d): St, AskId(id): AskId, body: JsonBody) -> ApiResult<AxumJson<Value>> {
    let b = body.object()?;
    let total = d.bank(&id, &b).await?;
    Ok(AxumJson(json!({"ok": true, "banked": total})))
}

async fn autosave(State(d): St, AskId(id): AskId, body: JsonBody) -> ApiResult<AxumJson<Value>> {
    let b = body.parse()?;
    let (revision, saved_at) = d.autosave(&id, &b).await?;
    Ok(AxumJson(
        json!({"ok": true, "revision": revision, "savedAt": saved_at}),
    ))
}

async fn submit(State(d): St, AskId(id): AskId, body: JsonBody) -> ApiResult<AxumJson<Value>> {
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

async fn cancel(State(d): St, AskId(id): AskId, body: JsonBody) -> ApiResult<AxumJson<Value>> {
    body.object()?;
    d.cancel(&id).await?;
    Ok(AxumJson(json!({"ok": true, "outcome": "cancelled"})))
}

async fn preflight(State(d): St, AskId(id): AskId, body: JsonBody) -> ApiResult<AxumJson<Value>> {
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

async fn withdraw(State(d): St, AskId(id): AskId, body: JsonBody) -> ApiResult<AxumJson<Value>> {
    let b = body.object()?;
    let result = d.withdraw(&id, opt_str(&b, "reason")?).await?;
    Ok(AxumJson(
        json!({"ok": true, "outcome": result["outcome"], "result": result}),
    ))
}

/// Marks whether an agent still waits on the ask (`{"awaited": false}` after an MCP cancel).
async fn awaited(State(d): St, AskId(id): AskId, body: JsonBody) -> ApiResult<AxumJson<Value>> {
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
async fn path(State(d): St, AskId(id): AskId, body: JsonBody) -> ApiResult<AxumJson<Value>> {
    let b = body.object()?;
    let ask = d.load(&id).await?;
    let path = d.path(&ask, &b)?;
    Ok(AxumJson(json!({"path": path})))
}

#[derive(Deserialize)]
struct WaitQuery {
    timeout_s: Option<f64>,
}

async fn wait(
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
struct RecordQuery {
    kind: Option<String>,
    session: Option<String>,
    outcome: Option<String>,
    limit: Option<u32>,
}

async fn records(State(d): St, QueryArgs(q): QueryArgs<RecordQuery>) -> ApiResult<AxumJson<Value>> {
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

/// How many stored events one replay read fetches.
const REPLAY_PAGE: u32 = 500;

/// Server-Sent Events: replays the store's log after `Last-Event-ID` (or `?since=`), then
/// streams live events; a heartbeat every 15 s.
async fn events(
    State(d): St,
    headers: HeaderMap,
    QueryArgs(q): QueryArgs<EventsQuery>,
) -> ApiResult<Sse<impl Stream<Item = Result<SseEvent, Infallible>>>> {
    let since = headers
        .get("last-event-id")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<i64>().ok())
        .or(q.since)
        .unwrap_or(-1);
    // Subscribe before reading the log, so nothing committed in between is missed.
    let mut live = d.hub.subscribe();
    let start = if since < 0 {
        d.store
            .last_event()
            .await
            .map_err(|e| ApiError::store(e, "-"))?
    } else {
        since
    };
    let store = d.store.clone();
    let stream = async_stream(move |tx| async move {
        let mut last = start;
        if !replay(&*store, &mut last, &tx).await {
            return;
        }
        loop {
            match live.recv().await {
                Ok(e) if e.seq <= last => {}
                Ok(e) if e.seq == last + 1 => {
                    last = e.seq;
                    if tx.send(sse(&e)).await.is_err() {
                        return;
                    }
                }
                // A gap (an event committed before `e` but not yet seen live) or a lag (the
                // live channel dropped events for this slow listener): the log has them all.
                Ok(_) | Err(RecvError::Lagged(_)) => {
                    if !replay(&*store, &mut last, &tx).await {
                        return;
                    }
                }
                Err(RecvError::Closed) => return,
            }
        }
    });
    Ok(Sse::new(stream).keep_alive(KeepAlive::new().interval(Duration::from_secs(15))))
}

/// Sends every stored event after `last`, page by page, until the log is exhausted; `false`
/// when the listener left or the store failed.
async fn replay(
    store: &dyn Store,
    last: &mut i64,
    tx: &tokio::sync::mpsc::Sender<Result<SseEvent, Infallible>>,
) -> bool {
    loop {
        let Ok(page) = store.events_after(*last, REPLAY_PAGE).await else {
            return false;
        };
        let n = page.len();
        for e in page {
            *last = e.seq;
            if tx.send(sse(&e)).await.is_err() {
                return false;
            }
        }
        if n < REPLAY_PAGE as usize {
            return true;
        }
    }
}

#[derive(Deserialize)]
struct EventsQuery {
    since: Option<i64>,
}

fn sse(e: &askd_store::Event) -> Result<SseEvent, Infallible> {
    Ok(SseEvent::default()
        .id(e.seq.to_string())
        .event(e.kind.clone())
        .data(e.payload.to_string()))
}

/// A stream fed by a producer task through a small channel (back-pressure: a slow client
/// holds the producer, not memory).
fn async_stream<F, Fut, T>(producer: F) -> impl Stream<Item = T>
where
    F: FnOnce(tokio::sync::mpsc::Sender<T>) -> Fut,
    Fut: std::future::Future<Output = ()> + Send + 'static,
    T: Send + 'static,
{
    let (tx, rx) = tokio::sync::mpsc::channel(64);
    tokio::spawn(producer(tx));
    tokio_stream::wrappers::ReceiverStream::new(rx)
}

//! The ask routes under `/api/asks` and `/api/records`, and `/api/health` (see
//! `docs/api.md`): each parses its request, calls the ask's room ([`crate::kinds`]) and
//! shapes the response.

use askd_core::Outcome;
use std::sync::Arc;
use std::time::Duration;

use askd_core::json::Json;
use askd_store::{AskFilter, AskState, RecordFilter};
use axum::Json as AxumJson;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use serde_json::{Value, json};

use crate::daemon::Daemon;
use crate::error::{ApiError, ApiResult};
use crate::http::extract::{
    AskId, JsonBody, MaybeJsonBody, QueryArgs, field_problem, opt_str, refuse_unknown,
};
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
        "desk": d.desk.load(std::sync::atomic::Ordering::Relaxed),
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

/// How many asks `GET /api/asks` lists when the query names no `limit` (the newest first;
/// `more: true` says there are older ones).
pub const LIST_DEFAULT: u32 = 500;

pub async fn list_asks(
    State(d): St,
    QueryArgs(q): QueryArgs<ListQuery>,
) -> ApiResult<AxumJson<Value>> {
    let limit = q.limit.unwrap_or(LIST_DEFAULT);
    if limit == 0 {
        return Err(field_problem(
            "limit",
            "limit_range",
            "limit must be 1 or more (without it, the newest 500 are listed)".to_string(),
        ));
    }
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
            limit: Some(limit.saturating_add(1)),
        })
        .await
        .map_err(|e| ApiError::store(e, "-"))?;
    let more = asks.len() > limit as usize;
    let asks = readable_rows(&d, asks.into_iter().take(limit as usize).collect()).await?;
    let asks: Vec<Value> = asks
        .into_iter()
        .map(|a| {
            let url = d.ask_url(&a.id);
            let mut v = json!(a);
            v["url"] = json!(url);
            v
        })
        .collect();
    Ok(AxumJson(json!({"asks": asks, "more": more})))
}

/// The rows of a listing the calling principal may read ([`crate::access::may_read`]): all
/// of them but for a paired device, which sees the pending asks and the ones it answered
/// (a settled row's result is read to know who answered it).
async fn readable_rows(
    d: &Daemon,
    rows: Vec<askd_store::AskSummary>,
) -> ApiResult<Vec<askd_store::AskSummary>> {
    let Some(who @ crate::fence::Principal::Device { .. }) = crate::fence::caller() else {
        return Ok(rows);
    };
    let mut out = Vec::with_capacity(rows.len());
    for row in rows {
        let facts = if row.state == AskState::Pending {
            crate::access::AskFacts {
                pending: true,
                answered_by: None,
            }
        } else {
            match d.store.ask(&row.id).await {
                Ok(Some(ask)) => crate::access::AskFacts::of(&ask),
                Ok(None) => continue,
                Err(e) => return Err(ApiError::store(e, &row.id)),
            }
        };
        if crate::access::may_read(&who, &facts) {
            out.push(row);
        }
    }
    Ok(out)
}

pub async fn show_ask(State(d): St, AskId(id): AskId) -> ApiResult<AxumJson<Value>> {
    let ask = d.load(&id).await?;
    crate::asks::require_readable(&ask)?;
    Ok(AxumJson(d.show(&ask).await?))
}

/// `POST /api/asks/{id}/claim`: the calling member is on it; `DELETE`: not any more.
/// Either takes no body or `{}` (a member sent is refused, as everywhere).
pub async fn claim(
    State(d): St,
    AskId(id): AskId,
    body: MaybeJsonBody,
) -> ApiResult<AxumJson<Value>> {
    no_members(body)?;
    Ok(AxumJson(d.claim(&id, false).await?))
}

pub async fn release(
    State(d): St,
    AskId(id): AskId,
    body: MaybeJsonBody,
) -> ApiResult<AxumJson<Value>> {
    no_members(body)?;
    Ok(AxumJson(d.claim(&id, true).await?))
}

/// No body, or an object with no member.
fn no_members(body: MaybeJsonBody) -> ApiResult<()> {
    match body {
        MaybeJsonBody(Some(body)) => refuse_unknown(&body.object()?, &[]),
        MaybeJsonBody(None) => Ok(()),
    }
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

/// `POST /api/asks/{id}/submit`. An `Idempotency-Key` header makes a repeat of the same
/// submit (after a 503 `outcome-unknown`) answer with what was saved ([`Daemon::submit`]).
pub async fn submit(
    State(d): St,
    AskId(id): AskId,
    headers: HeaderMap,
    body: JsonBody,
) -> ApiResult<AxumJson<Value>> {
    let b = body.object()?;
    let key = headers
        .get("idempotency-key")
        .and_then(|v| v.to_str().ok())
        .map(str::trim)
        .filter(|k| !k.is_empty() && k.len() <= 200);
    let result = d.submit(&id, &b, key).await?;
    let mut out = json!({"ok": true, "outcome": Outcome::Answered});
    // A member's vote that did not settle the ask (approvals, issue 35): still pending.
    if result["voted"] == true {
        out = json!({"ok": true, "outcome": "pending", "voted": true, "approvals": result["approvals"]});
    }
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
    Ok(AxumJson(json!({"ok": true, "outcome": Outcome::Cancelled})))
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

/// `{extend_s}` or `{at}`: a person moves a pending ask's deadline (issue 35).
pub async fn deadline(
    State(d): St,
    AskId(id): AskId,
    body: JsonBody,
) -> ApiResult<AxumJson<Value>> {
    let b = body.object()?;
    refuse_unknown(&b, &["extend_s", "at"])?;
    Ok(AxumJson(d.move_deadline(&id, &b).await?))
}

/// `{for_s}` or `{until}`: a person puts a pending ask off — "ask me again in …" (issue 35).
pub async fn snooze(State(d): St, AskId(id): AskId, body: JsonBody) -> ApiResult<AxumJson<Value>> {
    let b = body.object()?;
    refuse_unknown(&b, &["for_s", "until"])?;
    Ok(AxumJson(d.snooze(&id, &b).await?))
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
    /// Settled at or after: an RFC 3339 time or a date (`2026-12-01`, UTC midnight).
    since: Option<String>,
    /// Settled before (same forms as `since`).
    until: Option<String>,
    /// Text the record contains (ASCII case-insensitive).
    q: Option<String>,
    /// The `next` of the previous page.
    after: Option<String>,
    limit: Option<u32>,
}

/// The longest page `GET /api/records` returns with a `limit`.
const RECORDS_PAGE_MAX: u32 = 500;

/// A `since`/`until` argument as the store's times compare: RFC 3339 → UTC with
/// milliseconds (`2026-12-01T09:30:00.000Z`); a date → that day's UTC midnight.
fn record_time(name: &str, value: &str) -> ApiResult<String> {
    use chrono::{DateTime, NaiveDate, SecondsFormat, Utc};
    if let Ok(t) = DateTime::parse_from_rfc3339(value) {
        return Ok(t
            .with_timezone(&Utc)
            .to_rfc3339_opts(SecondsFormat::Millis, true));
    }
    if let Ok(d) = NaiveDate::parse_from_str(value, "%Y-%m-%d") {
        return Ok(format!("{d}T00:00:00.000Z"));
    }
    Err(field_problem(
        name,
        "time_invalid",
        format!(
            "{name} must be a date (2026-12-01) or an RFC 3339 time (2026-12-01T09:30:00Z), got {value:?}"
        ),
    ))
}

/// `GET /api/records`: settled asks newest first, filtered. With `limit` the reply is one
/// page and `next` names the cursor of the following one (`after=<next>`), `null` on the
/// last page.
pub async fn records(
    State(d): St,
    QueryArgs(q): QueryArgs<RecordQuery>,
) -> ApiResult<AxumJson<Value>> {
    if let Some(n) = q.limit
        && !(1..=RECORDS_PAGE_MAX).contains(&n)
    {
        return Err(field_problem(
            "limit",
            "limit_range",
            format!("limit must be between 1 and {RECORDS_PAGE_MAX}, got {n}"),
        ));
    }
    let since = q
        .since
        .as_deref()
        .map(|v| record_time("since", v))
        .transpose()?;
    let until = q
        .until
        .as_deref()
        .map(|v| record_time("until", v))
        .transpose()?;
    let text =
        q.q.filter(|t| !t.trim().is_empty())
            .map(|t| t.trim().to_string());
    let mut records = d
        .store
        .records(&RecordFilter {
            kind: q.kind.filter(|k| !k.is_empty()),
            session_id: q.session.filter(|s| !s.is_empty()),
            outcome: q.outcome.filter(|o| !o.is_empty()),
            since,
            until,
            text,
            after: q.after.filter(|a| !a.is_empty()),
            // One more than the page tells whether another page follows.
            limit: q.limit.map(|n| n + 1),
        })
        .await
        .map_err(|e| ApiError::store(e, "-"))?;
    let mut next = None;
    if let Some(n) = q.limit
        && records.len() > n as usize
    {
        records.truncate(n as usize);
        next = records.last().map(|r| r.ask_id.clone());
    }
    Ok(AxumJson(json!({"records": records, "next": next})))
}

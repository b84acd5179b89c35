//! The session page (`alignment.md` §7) and the alignment operations of every surface; the
//! routes are in `crate::http::sessions`:
//!
//! - `GET /api/sessions/{id}/alignment`: the `alignment_status` *full* detail (§5.3) for the
//!   web page, with what the page shows besides the fold: the session's client, workspace,
//!   transport and last activity, the drifts' card ids, each check's origin, the revisions'
//!   dropped items and authorising decisions, and the connections.
//! - `GET /api/sessions/{id}/alignment/decisions?before=&limit=`: older pages of the settled
//!   decisions (the full view lists the newest [`PAGE_DECISIONS`]).
//! - `PUT /api/sessions/{id}/alignment/mode` `{"mode": "auto"|"manual"|"off"|"default"}`:
//!   the human's mode switch (actor `human`; `default` clears the override).
//!
//! Both answer 404 for an unknown session. The fence gives every JSON response
//! `Cache-Control: no-store`; these routes add nothing to it. Alignment events appended here
//! (and by every other alignment operation, through [`Daemon::alignment_op`] and
//! [`publish_since`]) go to the hub, so the page's event stream sees them at once.

use askd_core::alignment::fold::Mode;
use askd_core::alignment::{AlignEvent, Lang};
use askd_core::json::Json;
use askd_core::{Actor, AlignOp, EventKind};
use serde_json::{Value, json};

use crate::alignment::{OpRequest, Page, Windowed, status_view};
use crate::daemon::Daemon;
use crate::error::{ApiError, ApiResult};

const MODES: &str = "\"auto\", \"manual\", \"off\" or \"default\"";

/// The session row, or 404.
async fn session_row(d: &Daemon, id: &str) -> ApiResult<askd_store::Session> {
    d.store
        .session(id)
        .await
        .map_err(|e| ApiError::store(e, "-"))?
        .ok_or_else(|| ApiError::not_found(&format!("session {id:?}")))
}

/// The settled decisions the session page lists at first (the newest); it pages to older
/// ones with [`decisions_page`].
pub const PAGE_DECISIONS: usize = 50;

/// The body of `GET /api/sessions/{id}/alignment`: the session's full view, or 404.
pub async fn alignment_page(d: &Daemon, id: &str) -> ApiResult<Value> {
    let row = session_row(d, id).await?;
    // The state from its checkpoint with one page of its decisions, and the events the page
    // lists besides it: the session's log without its ask events, so neither grows with the
    // asks answered.
    let alignment = d.alignment();
    let page = Page {
        before: None,
        limit: PAGE_DECISIONS,
    };
    let w = alignment.windowed(id, page).await?;
    let log = alignment.session_log(id).await?;
    Ok(full_view(&row, &log, &w, d.settings.alignment_mode))
}

/// The body of `GET /api/sessions/{id}/alignment/decisions?before=&limit=`: one page of the
/// session's settled decisions, `{settled_decisions, settled_decisions_page}`, or 404.
pub async fn decisions_page(d: &Daemon, id: &str, page: Page) -> ApiResult<Value> {
    session_row(d, id).await?;
    let w = d.alignment().windowed(id, page).await?;
    Ok(json!({"settled_decisions": w.page, "settled_decisions_page": w.page_view()}))
}

/// The §5.3 full detail plus the page's extras (see the module documentation). `events` is
/// the session's log: its alignment and connection events (its ask events add nothing here).
pub fn full_view(
    row: &askd_store::Session,
    events: &[AlignEvent],
    w: &Windowed,
    configured: Mode,
) -> Value {
    let id = row.id.as_str();
    let s = &w.state;
    let mut v = status_view(id, w, Some(configured), Lang::En);
    let last_activity = s.last_activity.clone();
    // Card ids of the drifts, and each revision's dropped items and authorising decisions,
    // from the events that recorded them.
    let mut ask_of = std::collections::HashMap::new();
    let mut drops = std::collections::HashMap::new();
    let mut checks = Vec::new();
    let mut connections: Vec<Value> = Vec::new();
    for e in events {
        let d = &e.data;
        let Some(kind) = e.kind else { continue };
        match kind {
            EventKind::AlignmentDriftReported => {
                if let (Some(drift), Some(ask)) = (
                    d.get("drift_id").and_then(Value::as_str),
                    d.get("ask_id").and_then(Value::as_str),
                ) {
                    ask_of.insert(drift.to_string(), ask.to_string());
                }
            }
            EventKind::AlignmentBaselineRecorded => {
                if let Some(r) = d.get("revision").and_then(Value::as_u64) {
                    drops.insert(
                        r,
                        (
                            d.get("dropped").cloned().unwrap_or(json!([])),
                            d.get("authorised_by").cloned().unwrap_or(json!([])),
                        ),
                    );
                }
            }
            EventKind::AlignmentChecked => checks.push(json!({
                "at": e.at,
                "via": d.get("via").and_then(Value::as_str).unwrap_or("tool"),
                "actor": e.actor,
                "note": d.get("note"),
            })),
            EventKind::SessionStarted | EventKind::SessionAttached => connections.push(json!({
                "client": d.get("client").and_then(Value::as_str).unwrap_or(&row.client),
                "transport": d.get("transport"),
                "cwd": d.get("cwd"),
                "first_seen": e.at,
                "last_seen": e.at,
                "via": if kind == EventKind::SessionStarted { "started" } else { "attached" },
            })),
            _ => {}
        }
    }
    // A connection is seen until the next one binds (or, for the last, until now).
    let n = connections.len();
    for i in 0..n {
        let until = if i + 1 < n {
            connections[i + 1]["first_seen"].clone()
        } else {
            json!(last_activity)
        };
        connections[i]["last_seen"] = until;
    }
    if connections.is_empty() {
        // The store records the opening connection only in the session row.
        connections.push(json!({
            "client": row.client,
            "transport": null,
            "cwd": row.workspace,
            "first_seen": row.created_at,
            "last_seen": last_activity.clone().unwrap_or_else(|| row.created_at.clone()),
            "via": "started",
        }));
    }
    let with_ask = |drift: &Value| {
        let mut drift = drift.clone();
        // Agent text as sanitised HTML beside its source, as on the card.
        for field in ["description", "required_change"] {
            if let Some(md) = drift.get(field).and_then(Value::as_str) {
                drift[format!("{field}_html")] = json!(crate::render::markdown(md));
            }
        }
        if let Some(options) = drift.get_mut("options").and_then(Value::as_array_mut) {
            for o in options {
                if let Some(md) = o.get("description").and_then(Value::as_str) {
                    o["description_html"] = json!(crate::render::markdown(md));
                }
            }
        }
        if let Some(reason) = drift.get("reason").cloned() {
            drift["reason_label"] = crate::kinds::drift::reason_labels(&reason);
        }
        if let Some(id) = drift.get("drift_id").and_then(Value::as_str)
            && drift.get("ask_id").is_none_or(Value::is_null)
        {
            drift["ask_id"] = json!(ask_of.get(id));
        }
        drift
    };
    let drifts: Vec<Value> = s.drifts.iter().map(|d| with_ask(&json!(d))).collect();
    if let Some(open) = v["drift"].get("open").filter(|o| !o.is_null()).cloned() {
        v["drift"]["open"] = with_ask(&open);
    }
    if let Some(list) = v["drift"]["pending_updates"].as_array().cloned() {
        v["drift"]["pending_updates"] = list.iter().map(with_ask).collect();
    }
    let history: Vec<Value> = s
        .history
        .iter()
        .map(|r| {
            let mut e = json!(r);
            let (dropped, by) = drops
                .get(&u64::from(r.revision))
                .cloned()
                .unwrap_or((json!([]), json!([])));
            e["dropped"] = dropped;
            e["authorised_by"] = by;
            e
        })
        .collect();
    let transport = connections[0]["transport"].clone();
    v["session"]["client"] = json!(row.client);
    v["session"]["workspace"] = json!(row.workspace);
    v["session"]["transport"] = transport;
    v["session"]["created_at"] = json!(row.created_at);
    if v["session"]["started_at"].is_null() {
        v["session"]["started_at"] = json!(row.created_at);
    }
    v["session"]["last_activity_at"] =
        json!(last_activity.unwrap_or_else(|| row.created_at.clone()));
    v["baseline_history"] = json!(history);
    v["drifts"] = json!(drifts);
    v["refusals"] = json!(s.refusals);
    v["checks"] = json!(checks);
    v["connections"] = json!(connections);
    v
}

fn problem(path: &str, code: &'static str, message: String) -> ApiError {
    ApiError::invalid(
        "invalid-request",
        None,
        vec![askd_core::Problem::new(path, code, message)],
    )
}

/// The mode switch of the session page: validate (nothing is written on failure), append
/// `alignment.mode_set` with actor `human` when the override changes, publish it.
pub async fn set_mode(d: &Daemon, id: &str, b: &Json<'_>) -> ApiResult<Value> {
    session_row(d, id).await?;
    let Some(obj) = b.as_object() else {
        return Err(problem("", "type", "the body must be a JSON object".into()));
    };
    let mut problems = Vec::new();
    for (k, _) in obj.iter() {
        if k != "mode" {
            problems.push(askd_core::Problem::new(
                k,
                "unknown_field",
                format!("{k:?} is not a field of this request; the only field is \"mode\""),
            ));
        }
    }
    let wanted = match obj.get_present("mode") {
        None => crate::alignment::parse_mode(None),
        Some(Json::String(m)) => crate::alignment::parse_mode(Some(m)),
        Some(other) => Err(askd_core::Problem::new(
            "mode",
            "type",
            format!(
                "mode must be a string, one of {MODES}; got {}",
                other.kind()
            ),
        )),
    };
    let wanted = match wanted {
        Ok(w) if problems.is_empty() => w,
        Ok(_) => return Err(ApiError::invalid("invalid-request", None, problems)),
        Err(p) => {
            problems.push(p);
            return Err(ApiError::invalid("invalid-request", None, problems));
        }
    };
    let before = d.store.last_event().await.unwrap_or(0);
    let changed = d.alignment().set_mode(id, wanted, Actor::Human).await?;
    publish_since(d, id, before).await;
    let s = d.alignment().state_without_decisions(id).await?;
    let none = Page {
        before: None,
        limit: 0,
    };
    let view = status_view(
        id,
        &Windowed::of_whole(s, none),
        Some(d.settings.alignment_mode),
        Lang::En,
    );
    Ok(json!({"session": id, "changed": changed, "mode": view["mode"]}))
}

/// Publishes the events of `session` committed after `after` (the log's last seq before a
/// write): alignment operations append through the store alone, and the page's event stream
/// should see them at once. A listener ignores what it has already seen, so publishing an
/// event twice is harmless.
pub async fn publish_since(d: &Daemon, session: &str, after: i64) {
    let Ok(events) = d.store.events_after(after, 1000).await else {
        return;
    };
    d.hub.publish(
        events
            .into_iter()
            .filter(|e| e.payload.get("session").and_then(Value::as_str) == Some(session)),
    );
}

impl Daemon {
    /// An alignment operation ([`crate::alignment::Alignment::run`]), with the events a
    /// mutating operation appended pushed to live listeners (the session page), whichever
    /// surface called it (HTTP, `/mcp`).
    pub async fn alignment_op(
        &self,
        session: &str,
        op: AlignOp,
        req: OpRequest,
    ) -> ApiResult<Value> {
        if op == AlignOp::Status {
            return self.alignment().run(session, op, req).await;
        }
        let before = self.store.last_event().await.unwrap_or(0);
        let out = match op {
            AlignOp::ReportDrift => {
                let args = req.args.unwrap_or_else(|| json!({}));
                self.report_drift(session, &args).await?
            }
            op => self.alignment().run(session, op, req).await?,
        };
        publish_since(self, session, before).await;
        Ok(out)
    }
}

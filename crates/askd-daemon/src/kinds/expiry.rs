//! An ask's deadline in its room's terms (issue 35; the runner that fires deadlines is
//! [`crate::deadlines`]): the deadline a create brings, checked and turned into `expires_at`
//! ([`checked`]); the expiry itself ([`Daemon::expire`]: the default through the kind's
//! submit, or the close through its end); the mark every expiring settle gets ([`mark`]);
//! moving a deadline ([`Daemon::move_deadline`]); and how a deadline is shown ([`shown`]).

use askd_core::deadline::{self, Deadline, Then, When};
use askd_core::json::Json;
use askd_core::{AskKind, Outcome};
use askd_store::{Ask, AskState, Expiry, Settlement};
use axum::http::StatusCode;
use serde_json::{Value, json};

use super::{Room, drift, in_room, kind_of, questions, review, survey};
use crate::daemon::Daemon;
use crate::error::{ApiError, ApiResult};

/// The reason an ask closed at its deadline carries.
pub const CLOSED_REASON: &str = "nobody answered by the deadline";

tokio::task_local! {
    /// Set while an ask expires: the settle it makes is marked ([`expired`]).
    static EXPIRING: Expiring;
}

#[derive(Debug, Clone)]
struct Expiring {
    expired_at: String,
    defaulted: bool,
}

/// The settlement of an expiring ask, marked: see the module's doc. Called by the one settle
/// every kind goes through.
pub(crate) fn mark(settlement: &mut Settlement) {
    if let Ok(e) = EXPIRING.try_with(Clone::clone) {
        expired(settlement, &e);
    }
}

fn expired(s: &mut Settlement, e: &Expiring) {
    s.outcome = Outcome::Expired.into();
    if let Some(r) = s.result.as_object_mut() {
        r.insert("outcome".into(), json!(Outcome::Expired));
        r.remove("surface");
        r.remove("error");
        r.remove("reason");
        r.insert("expired_at".into(), json!(e.expired_at));
        r.insert("defaulted".into(), json!(e.defaulted));
        let words = if e.defaulted {
            deadline::HANDLING_DEFAULTED
        } else {
            deadline::HANDLING_CLOSED
        };
        r.insert("handling".into(), json!(words));
        // A review's report is the first thing its agent reads: it opens with the same.
        if let Some(report) = r.get("report_text").and_then(Value::as_str) {
            let lead = if e.defaulted {
                "EXPIRED: nobody answered by the deadline. The verdicts below are the defaults the agent named, not the human's."
            } else {
                "EXPIRED: nobody answered by the deadline; the review closed without verdicts."
            };
            let report = format!("{lead}\n\n{report}");
            r.insert("report_text".into(), json!(report));
        }
    }
    if let Some(r) = s.record.as_object_mut() {
        r.insert("outcome".into(), json!(Outcome::Expired));
        r.insert("defaulted".into(), json!(e.defaulted));
        r.remove("surface");
    }
}

/// `deadline.*` refused, in the create's own error shape.
fn refused(problems: Vec<askd_core::Problem>) -> ApiError {
    ApiError::invalid("DEADLINE_INVALID", Some("invalid deadline"), problems)
}

/// When a deadline falls, UTC, as the store keeps times.
fn expires_at(d: &Deadline) -> ApiResult<String> {
    let now = chrono::Utc::now();
    let at = match &d.when {
        When::In(s) => now + chrono::Duration::milliseconds((s * 1000.0).round() as i64),
        When::At(text) => {
            let t = chrono::DateTime::parse_from_rfc3339(text)
                .map_err(|e| {
                    refused(vec![askd_core::Problem::new(
                        "deadline.at",
                        "deadline_time",
                        format!("deadline.at {text:?} is not an RFC 3339 time ({e}) — e.g. \"2026-12-24T09:00:00Z\""),
                    )])
                })?
                .with_timezone(&chrono::Utc);
            if t <= now {
                return Err(refused(vec![askd_core::Problem::new(
                    "deadline.at",
                    "deadline_past",
                    format!("deadline.at {text:?} has passed — give a time in the future, or in_s"),
                )]));
            }
            if (t - now).num_seconds() as f64 > deadline::MAX_S {
                return Err(refused(vec![askd_core::Problem::new(
                    "deadline.at",
                    "deadline_range",
                    "deadline.at is more than 30 days away".to_string(),
                )]));
            }
            t
        }
    };
    Ok(askd_store::time_text(at))
}

/// The deadline of a create's arguments, checked against the ask `payload` as admitted:
/// its default must be an answer the ask's own submit takes.
/// `configured` is `[asks] deadline`: an ask without a deadline of its own (a drift card
/// aside) closes unanswered after it.
pub(crate) fn checked(
    kind: AskKind,
    args: &Json<'_>,
    payload: &Value,
    configured: Option<std::time::Duration>,
) -> ApiResult<Option<Expiry>> {
    let text_args;
    let args = match args {
        // A survey's arguments may arrive as raw text (lenient resolution).
        Json::String(text) => match serde_json::from_str::<Value>(text) {
            Ok(v) => {
                text_args = v;
                Json::from_value(&text_args)
            }
            Err(_) => return configured_expiry(kind, configured),
        },
        other => other.clone(),
    };
    let Some(d) = deadline::parse(&args, kind).map_err(refused)? else {
        return configured_expiry(kind, configured);
    };
    if kind == AskKind::Drift {
        return Err(refused(vec![askd_core::Problem::new(
            "deadline",
            "deadline_kind",
            "a drift card waits until the human decides (alignment.md §5.6): drop deadline",
        )]));
    }
    if let Some(body) = &d.default {
        let problems = match kind {
            AskKind::Questions => serde_json::from_value(payload.clone())
                .ok()
                .and_then(|spec| {
                    askd_core::questions::validate_answers(&spec, &Json::from_value(body)).err()
                }),
            AskKind::Review => serde_json::from_value(payload.clone())
                .ok()
                .and_then(|spec| {
                    askd_core::review::answers::validate_submit(&spec, &Json::from_value(body))
                        .err()
                }),
            _ => None,
        };
        if let Some(problems) = problems {
            let problems = problems
                .into_iter()
                .map(|mut p| {
                    p.path = format!("deadline.default ({})", p.path);
                    p.message = format!(
                        "deadline.default is not an answer this ask takes: {}",
                        p.message
                    );
                    p
                })
                .collect();
            return Err(refused(problems));
        }
    }
    Ok(Some(Expiry {
        expires_at: expires_at(&d)?,
        deadline: json!({
            "then": d.then,
            "default": d.default,
            "to": d.to,
            "set_at": askd_store::now(),
        }),
    }))
}

/// `[asks] deadline` for an ask that names none: closed unanswered after it (a drift card
/// waits for the human whatever the configuration says).
fn configured_expiry(
    kind: AskKind,
    configured: Option<std::time::Duration>,
) -> ApiResult<Option<Expiry>> {
    let Some(after) = configured.filter(|_| kind != AskKind::Drift) else {
        return Ok(None);
    };
    let d = Deadline {
        when: When::In(after.as_secs_f64().min(deadline::MAX_S)),
        then: Then::Cancel,
        default: None,
        to: None,
    };
    Ok(Some(Expiry {
        expires_at: expires_at(&d)?,
        deadline: json!({"then": d.then, "default": null, "set_at": askd_store::now(),
                         "configured": true}),
    }))
}

impl Daemon {
    /// Expires `ask_id` if it is pending and its deadline has passed: the default applied
    /// through the kind's submit, or the ask closed through its end. A settle that lost to
    /// another (a person, another daemon) is no error.
    pub async fn expire(&self, ask_id: &str) -> ApiResult<()> {
        let ask = self.load(ask_id).await?;
        let Some(at) = ask.expires_at.clone() else {
            return Ok(());
        };
        if ask.state != AskState::Pending || at > askd_store::now() {
            return Ok(());
        }
        let d = ask.deadline.clone().unwrap_or(Value::Null);
        if d["then"] == json!(Then::Escalate) {
            return self.escalate(&ask, &at).await;
        }
        let default = (d["then"] == json!(Then::Default))
            .then(|| d["default"].clone())
            .filter(|b| b.is_object());
        let kind = kind_of(&ask)?;
        let done = match default {
            Some(body) => {
                let e = Expiring {
                    expired_at: at.clone(),
                    defaulted: true,
                };
                let json = Json::from_value(&body);
                let ask = ask.clone();
                let r = EXPIRING
                    .scope(e, async {
                        in_room!(kind, r => r.submit(self, ask, &json).await)
                    })
                    .await;
                match r {
                    // A default the ask no longer takes: close it instead.
                    Err(e) if e.code != "not-pending" => {
                        tracing::warn!(ask = ask_id, error = %e.message, "the deadline's default was refused; closing the ask");
                        self.close(ask_id, &at, kind).await
                    }
                    other => other.map(|_| ()),
                }
            }
            None => self.close(ask_id, &at, kind).await,
        };
        match done {
            Err(e) if e.code == "not-pending" => Ok(()),
            other => other,
        }
    }

    async fn close(&self, ask_id: &str, at: &str, kind: AskKind) -> ApiResult<()> {
        let ask = self.load(ask_id).await?;
        let e = Expiring {
            expired_at: at.to_string(),
            defaulted: false,
        };
        EXPIRING
            .scope(e, async {
                in_room!(kind, r => r.end(self, ask, Outcome::Expired, Some(CLOSED_REASON)).await)
            })
            .await
            .map(|_| ())
    }

    /// `POST /api/asks/{id}/deadline` `{extend_s}` or `{at}`: a person moves a pending ask's
    /// deadline (later or sooner, but not into the past); `{expires_at}`.
    pub async fn move_deadline(&self, ask_id: &str, body: &Json<'_>) -> ApiResult<Value> {
        let ask = self.load(ask_id).await?;
        crate::asks::require_pending(&ask)?;
        let Some(current) = ask.expires_at.as_deref() else {
            return Err(ApiError::new(
                StatusCode::CONFLICT,
                "no-deadline",
                format!("ask {ask_id} has no deadline to move"),
            ));
        };
        let o = body.as_object();
        let when = match (
            o.and_then(|o| o.get_present("extend_s")),
            o.and_then(|o| o.get_present("at")),
        ) {
            (Some(Json::Number(n)), None) => match n.as_f64() {
                Some(s) if s.is_finite() && s > 0.0 && s <= deadline::MAX_S => {
                    let base = chrono::DateTime::parse_from_rfc3339(current)
                        .map(|t| t.with_timezone(&chrono::Utc))
                        .unwrap_or_else(|_| chrono::Utc::now())
                        .max(chrono::Utc::now());
                    askd_store::time_text(
                        base + chrono::Duration::milliseconds((s * 1000.0) as i64),
                    )
                }
                _ => {
                    return Err(field(
                        "extend_s",
                        "extend_s must be more than 0 and at most 30 days, in seconds",
                    ));
                }
            },
            (None, Some(Json::String(at))) => expires_at(&Deadline {
                when: When::At(at.to_string()),
                then: Then::Cancel,
                default: None,
                to: None,
            })
            .map_err(|_| {
                field(
                    "at",
                    "at must be an RFC 3339 time in the future, within 30 days",
                )
            })?,
            _ => {
                return Err(field(
                    "extend_s",
                    "send {\"extend_s\": seconds} to move the deadline later, or {\"at\": RFC 3339 time}",
                ));
            }
        };
        let event = self
            .store
            .set_expiry(ask_id, &when)
            .await
            .map_err(|e| ApiError::store(e, ask_id))?;
        self.hub.publish([event]);
        Ok(json!({"ask_id": ask_id, "expires_at": when}))
    }
}

fn field(path: &str, message: &str) -> ApiError {
    ApiError::invalid(
        "invalid-deadline",
        Some(message),
        vec![askd_core::Problem::new(path, "deadline_move", message)],
    )
}

/// A pending ask's deadline as its page and its pending handle show it.
pub(crate) fn shown(ask: &Ask) -> Option<Value> {
    let at = ask.expires_at.as_ref()?;
    let d = ask.deadline.clone().unwrap_or(Value::Null);
    let mut shown = json!({"expires_at": at, "then": d["then"], "default": d["default"]});
    if d["to"].is_string() {
        shown["to"] = d["to"].clone();
    }
    Some(shown)
}

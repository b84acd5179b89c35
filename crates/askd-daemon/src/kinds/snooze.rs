//! Snooze (issue 35): the human answers "ask me again in …". The ask stays pending with
//! `deferred_until`; the agent's waiting call returns its pending handle at once, saying
//! when to come back ([`askd_core::deadline::snoozed_instruction`]); the inbox shows the ask
//! among the put-off ones until then, and the notifier says "back in your inbox" at that
//! time. Nothing fires in the store when the time comes: an ask whose `deferred_until` has
//! passed is simply back, so a restart or a team changes nothing.
//!
//! A snooze ends before the ask's deadline (a default would otherwise be applied while the
//! human believed the ask was parked): move the deadline first.

use askd_core::deadline;
use askd_core::json::Json;
use serde_json::{Value, json};

use crate::daemon::Daemon;
use crate::error::{ApiError, ApiResult};

/// The shortest snooze: a second (the page offers an hour and more; scripts and tests may
/// want less).
const MIN_S: f64 = 1.0;

impl Daemon {
    /// `POST /api/asks/{id}/snooze` `{for_s}` or `{until}`: a person puts a pending ask off;
    /// `{ask_id, deferred_until}`.
    pub async fn snooze(&self, ask_id: &str, body: &Json<'_>) -> ApiResult<Value> {
        let ask = self.load(ask_id).await?;
        crate::asks::require_pending(&ask)?;
        let now = chrono::Utc::now();
        let o = body.as_object();
        let until = match (
            o.and_then(|o| o.get_present("for_s")),
            o.and_then(|o| o.get_present("until")),
        ) {
            (Some(Json::Number(n)), None) => match n.as_f64() {
                Some(s) if s.is_finite() && (MIN_S..=deadline::MAX_S).contains(&s) => {
                    now + chrono::Duration::milliseconds((s * 1000.0) as i64)
                }
                _ => {
                    return Err(field(
                        "for_s",
                        "for_s must be at least 1 and at most 30 days, in seconds",
                    ));
                }
            },
            (None, Some(Json::String(at))) => {
                let t = chrono::DateTime::parse_from_rfc3339(at)
                    .map(|t| t.with_timezone(&chrono::Utc))
                    .map_err(|_| {
                        field(
                            "until",
                            "until must be an RFC 3339 time, e.g. \"2026-12-24T09:00:00Z\"",
                        )
                    })?;
                let s = (t - now).num_milliseconds() as f64 / 1000.0;
                if !(MIN_S..=deadline::MAX_S).contains(&s) {
                    return Err(field(
                        "until",
                        "until must be at least a second and at most 30 days away",
                    ));
                }
                t
            }
            _ => {
                return Err(field(
                    "for_s",
                    "send {\"for_s\": seconds} or {\"until\": RFC 3339 time} to be asked again then",
                ));
            }
        };
        let until = askd_store::time_text(until);
        if let Some(expires) = ask.expires_at.as_deref()
            && until.as_str() >= expires
        {
            let path = if o.is_some_and(|o| o.get_present("until").is_some()) {
                "until"
            } else {
                "for_s"
            };
            return Err(ApiError::invalid(
                "snooze-after-deadline",
                Some("the ask's deadline comes first"),
                vec![askd_core::Problem::new(
                    path,
                    "snooze_after_deadline",
                    format!(
                        "the ask's deadline ({expires}) comes before {until}: put it off for less, or move the deadline first"
                    ),
                )],
            ));
        }
        let event = self
            .store
            .defer(ask_id, &until)
            .await
            .map_err(|e| ApiError::store(e, ask_id))?;
        self.hub.publish([event]);
        Ok(json!({"ask_id": ask_id, "deferred_until": until}))
    }
}

fn field(path: &str, message: &str) -> ApiError {
    ApiError::invalid(
        "invalid-snooze",
        Some(message),
        vec![askd_core::Problem::new(path, "snooze", message)],
    )
}

//! The ask life cycle every kind shares: loading an ask, the session an API call without
//! one uses, committing a settlement (the store's compare-and-set), waiting for a settle
//! and delivering the result. What differs by kind is in the rooms ([`crate::kinds`]).
//!
//! Data flows one way: request → core validation (in the room) → store (write-ahead) → hub
//! (fan-out) → response. Nothing here reaches back into the HTTP layer or the rooms.

use std::time::Duration;

use askd_core::Problem;
use askd_core::record::RecordedAsk;
use askd_store::{Ask, AskState, NewSession, Session};
use serde_json::Value;
use sha2::{Digest, Sha256};

use crate::daemon::Daemon;
use crate::error::{ApiError, ApiResult};

/// How a wait ended: the settled result (now delivered), or the ask still pending when the
/// budget ran out.
pub enum Waited {
    Settled(Value),
    Pending(Box<Ask>),
}

/// The hex SHA-256 of a payload's text: the key of identical asks.
pub fn sha256_hex(text: &str) -> String {
    Sha256::digest(text.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// 409 `not-pending` unless the ask is pending.
pub fn require_pending(ask: &Ask) -> ApiResult<()> {
    if ask.state == AskState::Pending {
        Ok(())
    } else {
        Err(ApiError::not_pending(&ask.id))
    }
}

/// `until` while the human has put the ask off (snooze, a time not passed yet), else `None`.
pub fn deferred(ask: &Ask) -> Option<&str> {
    ask.deferred_until
        .as_deref()
        .filter(|u| *u > askd_store::now().as_str())
}

/// 403 unless the calling principal may read the ask ([`crate::access::may_read`]): a
/// paired device reads the pending asks and the ones it answered, nothing else.
pub fn require_readable(ask: &Ask) -> ApiResult<()> {
    let Some(who) = crate::fence::caller() else {
        return Ok(());
    };
    if crate::access::may_read(&who, &crate::access::AskFacts::of(ask)) {
        Ok(())
    } else {
        Err(ApiError::new(
            axum::http::StatusCode::FORBIDDEN,
            "ask-out-of-scope",
            format!(
                "ask {} was settled, not by this device: a paired device sees the pending asks and the ones it answered (the records open with the install's token or a member's login)",
                ask.id
            ),
        ))
    }
}

/// 422 `invalid-answers` with every problem.
pub fn invalid_answers(problems: Vec<Problem>) -> ApiError {
    ApiError::invalid("invalid-answers", None, problems)
}

impl Daemon {
    pub async fn open_session(&self, s: NewSession) -> ApiResult<Session> {
        self.store
            .open_session(s)
            .await
            .map_err(|e| ApiError::store(e, "-"))
    }

    /// The session an API call without one uses.
    pub async fn default_session(&self) -> ApiResult<String> {
        let s = self
            .open_session(NewSession {
                id: Some("http".into()),
                client: "http".into(),
                workspace: None,
            })
            .await?;
        Ok(s.id)
    }

    pub async fn load(&self, ask_id: &str) -> ApiResult<Ask> {
        self.store
            .ask(ask_id)
            .await
            .map_err(|e| ApiError::store(e, ask_id))?
            .ok_or_else(|| ApiError::not_found(&format!("ask {ask_id}")))
    }

    /// Team mode: the calling member says they are on a pending ask ("Ana is on it"), or
    /// with `release` that they are not any more. Others can still answer: settle-once
    /// decides. Claims are a member's (`crate::fence::Principal::Member`); the install's token
    /// may release anyone's. Returns `{ask_id, claim}`.
    pub async fn claim(&self, ask_id: &str, release: bool) -> ApiResult<Value> {
        use crate::fence::Principal as Who;
        let who = crate::fence::caller();
        let ask = self.load(ask_id).await?;
        require_pending(&ask)?;
        let claim = match (&who, release) {
            (Some(Who::Member { id, name }), false) => {
                Some(serde_json::json!({"id": id, "name": name, "at": askd_store::now()}))
            }
            (_, false) => {
                return Err(ApiError::new(
                    axum::http::StatusCode::FORBIDDEN,
                    "claim-needs-member",
                    "a claim names a team member: sign in with your member login link (askd members add NAME makes one)",
                ));
            }
            (Some(Who::Member { id, .. }), true) => {
                let theirs = ask.claim.as_ref().and_then(|c| c["id"].as_str());
                if theirs.is_some_and(|t| t != id) {
                    return Err(ApiError::new(
                        axum::http::StatusCode::CONFLICT,
                        "claimed-by-other",
                        format!(
                            "ask {ask_id} is claimed by {}: only they (or the install's token) can release it — you can still answer it",
                            ask.claim
                                .as_ref()
                                .and_then(|c| c["name"].as_str())
                                .unwrap_or("another member")
                        ),
                    ));
                }
                None
            }
            (_, true) => None,
        };
        let event = self
            .store
            .claim(ask_id, claim.as_ref())
            .await
            .map_err(|e| ApiError::store(e, ask_id))?;
        self.hub.publish([event]);
        Ok(serde_json::json!({"ask_id": ask_id, "claim": claim}))
    }

    /// Waits up to `timeout` (None: until settled) for the ask to settle. With a `timeout`,
    /// an ask the human has put off (snooze) is handed back pending at once.
    pub async fn wait_settled(&self, ask_id: &str, timeout: Option<Duration>) -> ApiResult<Waited> {
        let deadline = timeout.map(|t| tokio::time::Instant::now() + t);
        loop {
            let waiter = self.hub.waiter(ask_id);
            let notified = waiter.notify().notified();
            tokio::pin!(notified);
            notified.as_mut().enable();
            let ask = self.load(ask_id).await?;
            if ask.state == AskState::Settled {
                return Ok(Waited::Settled(self.deliver(ask).await));
            }
            if deadline.is_some() && deferred(&ask).is_some() {
                // The human put it off: the agent gets its pending handle now, with when
                // to come back, instead of waiting out its budget.
                return Ok(Waited::Pending(Box::new(ask)));
            }
            match deadline {
                Some(d) => {
                    if tokio::time::timeout_at(d, notified).await.is_err() {
                        // The budget is spent: answer from the store as it is now, not
                        // from the snapshot read before sleeping (a settle this daemon
                        // was not told about — another process's — is returned too).
                        let ask = self.load(ask_id).await?;
                        if ask.state == AskState::Settled {
                            return Ok(Waited::Settled(self.deliver(ask).await));
                        }
                        return Ok(Waited::Pending(Box::new(ask)));
                    }
                }
                None => notified.await,
            }
        }
    }

    /// A settled ask's result, handed to the agent call that waited for it: from now on it
    /// is delivered, so an identical repeat call creates a new ask (clients.md §2.5).
    async fn deliver(&self, ask: Ask) -> Value {
        if ask.delivered_at.is_none()
            && let Err(e) = self.store.mark_delivered(&ask.id).await
        {
            tracing::warn!(ask = %ask.id, error = %e, "could not record the result's delivery");
        }
        ask.result.unwrap_or(Value::Null)
    }
}

/// Whether an agent's repeat of an identical ask of `kind` gets the earlier ask back while
/// its result is undelivered (clients.md §2.5; [`askd_store::NewAsk::return_undelivered`]):
/// the kinds an agent call waits on. Drift cards re-attach by their own key.
pub fn returns_undelivered(kind: askd_core::AskKind) -> bool {
    use askd_core::AskKind;
    matches!(kind, AskKind::Questions | AskKind::Survey | AskKind::Review)
}

/// What a record takes from the stored ask (the record shapes are the core's:
/// `askd_core::record`).
pub fn recorded<'a>(ask: &'a Ask, title: Option<&'a str>) -> RecordedAsk<'a> {
    RecordedAsk {
        ask_id: &ask.id,
        session: &ask.session_id,
        workspace: ask.workspace.as_deref(),
        client: &ask.client,
        created_at: &ask.created_at,
        spec: &ask.payload,
        title,
        autosave: ask.autosave.as_ref(),
    }
}

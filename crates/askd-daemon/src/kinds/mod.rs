//! The rooms: one module per ask kind, each a [`Room`] — the same method set for every
//! kind: admit (validate a create), check, bank, autosave, submit, end (cancel, withdraw),
//! the pending handle, the view, and what follows a settle. This module dispatches each
//! operation on the ask's kind ([`in_room!`]) and holds the one settle every kind goes
//! through ([`Daemon::settle`]: stamp, commit, publish). The life cycle the kinds share
//! (load, wait, deliver) is [`crate::asks`].
//!
//! # Layout
//! - [`survey`] — `ask_survey`: create with `replaces`, bank, pre-flight, the path, the
//!   record and its workspace copy.
//! - [`drafts`] — the survey builder (`survey_draft_*`): draft files, the manifest, launch
//!   and the settle transitions of a launched draft.
//! - [`questions`] — `ask_user_question`.
//! - [`review`] — `batch_review`: create, the locked settle with `persist`, export, import.
//! - [`drift`] — drift cards: `report_drift`, the card's answer, its view.
//! - [`expiry`] — an ask's deadline: checked at create, the expiry (default or close), the
//!   mark on its settle, moving it (issue 35; [`crate::deadlines`] fires them).
//! - [`escalation`] — `then: "escalate"`: at the deadline the ask is offered to a member (or
//!   everyone) and waits on (issue 35, team mode).
//! - [`snooze`] — "ask me again in …": an ask put off until a time (issue 35).
//! - [`approvals`] — more than one approver: each member's answer is a vote, the quorum (or
//!   a rejection) settles (issue 35, team mode).

pub mod approvals;
pub mod drafts;
pub mod drift;
pub mod escalation;
pub mod expiry;
pub mod questions;
pub mod review;
pub mod snooze;
pub mod survey;

use std::future::Future;
use std::time::Duration;

use askd_core::json::Json;
use askd_core::survey::result::Preflight;
use askd_core::{AskKind, EventKind, Outcome};
use askd_store::{Ask, AskState, Event, FollowEvent, NewAsk, Settlement, StoreError};
use axum::http::StatusCode;
use serde_json::{Value, json};

use crate::asks::{Waited, require_pending};
use crate::daemon::Daemon;
use crate::error::{ApiError, ApiResult};

/// A request to create an ask.
pub struct CreateAsk<'a> {
    /// The requested kind, as the caller named it (checked here: one of
    /// [`AskKind::CREATABLE`]).
    pub kind: &'a str,
    pub session_id: Option<&'a str>,
    /// The tool arguments (`{"survey": …}` for a survey, `{"questions": […]}` for questions);
    /// a survey's arguments may also be raw text (lenient resolution).
    pub args: Json<'a>,
    /// `replaces` given beside the arguments (the arguments may carry it too).
    pub replaces: Option<&'a str>,
    /// An agent's call: an identical ask whose result is undelivered is returned instead of
    /// a new one (clients.md §2.5).
    pub return_undelivered: bool,
}

/// The outcome of a create: the ask, and whether it is new or re-attached.
pub struct CreatedAsk {
    pub ask: Ask,
    pub created: bool,
}

/// The kind of a stored ask (the store keeps the string; an unknown one is an internal
/// error, never a guess).
pub fn kind_of(ask: &Ask) -> ApiResult<AskKind> {
    AskKind::parse(&ask.kind)
        .map_err(|e| ApiError::internal(format!("ask {} has a stored kind that {e}", ask.id)))
}

pub(crate) fn wrong_kind(ask: &Ask, action: &str) -> ApiError {
    ApiError::new(
        StatusCode::UNPROCESSABLE_ENTITY,
        "unsupported-action",
        format!(
            "{action} applies to survey asks; ask {} is of kind {:?}",
            ask.id, ask.kind
        ),
    )
}

/// 422 `unknown-kind` for a kind an agent cannot create.
pub(crate) fn unknown_kind(other: &str) -> ApiError {
    let kinds: Vec<&str> = AskKind::CREATABLE.iter().map(|k| k.as_str()).collect();
    ApiError::new(
        StatusCode::UNPROCESSABLE_ENTITY,
        "unknown-kind",
        format!(
            "kind {other:?} is not an ask kind — use one of: {}",
            kinds.join(", ")
        ),
    )
}

/// 422 `unknown-kind` for a kind (as the caller named it) without a pre-check of its
/// arguments.
pub(crate) fn no_check(kind: &str) -> ApiError {
    ApiError::new(
        StatusCode::UNPROCESSABLE_ENTITY,
        "unknown-kind",
        format!("kind {kind:?} has no argument check — use survey or questions"),
    )
}

/// 422 `invalid-autosave` unless the body is an object: the autosave of a kind that keeps
/// whatever its page sends.
pub(crate) fn object_autosave(body: &Json<'_>) -> ApiResult<Value> {
    if body.as_object().is_none() {
        return Err(ApiError::new(
            StatusCode::UNPROCESSABLE_ENTITY,
            "invalid-autosave",
            format!("the autosave must be a JSON object, got {}", body.kind()),
        ));
    }
    Ok(body.to_value())
}

/// What every ask kind does at each step of an ask's life: the same method set in every
/// room, so one kind's behaviour is in one module and a new kind answers every step.
///
/// Each method that waits returns a `Send` future (the HTTP server runs them on any worker).
pub(crate) trait Room: Sync {
    /// The kind this room keeps.
    const KIND: AskKind;

    /// Validates the tool arguments into the ask to store; nothing is written on failure.
    fn admit(
        &self,
        d: &Daemon,
        session_id: &str,
        req: &CreateAsk<'_>,
    ) -> impl Future<Output = ApiResult<NewAsk>> + Send;

    /// Validates the arguments as [`Room::admit`] would and writes nothing (the MCP layer
    /// checks a connection's first ask before recording its session).
    fn check(&self, args: Json<'_>) -> ApiResult<()> {
        let _ = args;
        Err(no_check(Self::KIND.as_str()))
    }

    /// `POST /api/asks/{id}/bank` on a pending ask: answers banked one by one (surveys).
    fn bank(
        &self,
        d: &Daemon,
        ask: &Ask,
        body: &Json<'_>,
    ) -> impl Future<Output = ApiResult<usize>> + Send {
        let _ = (d, body);
        async move { Err(wrong_kind(ask, "bank")) }
    }

    /// The autosave to store for a pending ask, sanitised.
    fn autosave(&self, ask: &Ask, body: &Json<'_>) -> ApiResult<Value>;

    /// The person's answer: validated, settled once ([`Daemon::settle`]); the result.
    fn submit(
        &self,
        d: &Daemon,
        ask: Ask,
        body: &Json<'_>,
    ) -> impl Future<Output = ApiResult<Value>> + Send;

    /// Cancel (`Cancelled`: the person dismissed it) or withdraw (`Aborted`: the agent or
    /// an operator, with its reason): settled once; the result.
    fn end(
        &self,
        d: &Daemon,
        ask: Ask,
        outcome: Outcome,
        reason: Option<&str>,
    ) -> impl Future<Output = ApiResult<Value>> + Send;

    /// What a waiting agent gets while the ask is pending.
    fn pending(&self, d: &Daemon, ask: &Ask) -> ApiResult<Value>;

    /// The kind's members of the view (`rendered`, and a review's `review`).
    fn view(&self, d: &Daemon, ask: &Ask, v: &mut Value) -> ApiResult<()>;

    /// The view's members that need the session's alignment (a card's `drift`, the
    /// `repeats` of questions and surveys).
    fn show(
        &self,
        d: &Daemon,
        ask: &Ask,
        v: &mut Value,
    ) -> impl Future<Output = ApiResult<()>> + Send;

    /// What a committed settle sets off before it is published, as events published with
    /// it (a survey's launched draft follows the settle). Never fails the settle.
    fn settled(
        &self,
        d: &Daemon,
        ask: &Ask,
        settlement: &Settlement,
    ) -> impl Future<Output = Vec<Event>> + Send {
        let _ = (d, ask, settlement);
        async { Vec::new() }
    }

    /// What follows once the settle is published (a survey's workspace copy of its
    /// record). Never fails the settle.
    fn published(
        &self,
        d: &Daemon,
        ask: &Ask,
        settlement: &Settlement,
    ) -> impl Future<Output = ()> + Send {
        let _ = (d, ask, settlement);
        async {}
    }
}

/// Runs `$body` with `$room` bound to the [`Room`] of `$kind` (static dispatch: each arm is
/// its own future).
macro_rules! in_room {
    ($kind:expr, $room:ident => $body:expr) => {
        match $kind {
            AskKind::Survey => {
                let $room = &survey::Survey;
                $body
            }
            AskKind::Questions => {
                let $room = &questions::Questions;
                $body
            }
            AskKind::Review => {
                let $room = &review::Review;
                $body
            }
            AskKind::Drift => {
                let $room = &drift::Drift;
                $body
            }
        }
    };
}
pub(crate) use in_room;

/// Names who makes this settle (`answered_by`: `{kind, id, name}`,
/// [`crate::fence::answered_by`]) in its result and its record: a member, a paired device, or
/// an agent token (an answer given in the agent's client form — the daemon cannot tell it
/// from the model's own, so it is the agent's). Nothing for the install's token. Every
/// settle goes through here ([`Daemon::settle`]) before its commit.
fn stamp(settlement: &mut Settlement) {
    settlement.submission = SUBMISSION.try_with(Clone::clone).ok();
    let Some(m) = crate::fence::answered_by() else {
        return;
    };
    for v in [&mut settlement.result, &mut settlement.record] {
        if let Some(o) = v.as_object_mut() {
            o.insert("answered_by".into(), m.clone());
        }
    }
}

tokio::task_local! {
    /// The [`submission`] digest of the submit being served ([`Daemon::submit`]), which the
    /// settle it makes stores ([`stamp`]).
    static SUBMISSION: String;
}

/// A submit as the store keeps it on the ask it settles: a digest of who sent it (the
/// fence's principal, which the caller cannot forge), its idempotency key and its body.
fn submission(key: &str, body: &Json<'_>) -> String {
    let who = crate::fence::caller()
        .and_then(|p| p.answered_by())
        .map_or_else(
            || "install".to_string(),
            |v| format!("{}:{}", v["kind"], v["id"]),
        );
    crate::asks::sha256_hex(&format!("{who}\n{key}\n{}", body.to_value()))
}

/// The saved result of `ask` when `digest`'s submit is what settled it.
fn repeated(ask: &Ask, digest: &str) -> Option<Value> {
    (ask.state == AskState::Settled && ask.submission.as_deref() == Some(digest))
        .then(|| ask.result.clone())
        .flatten()
}

/// The settlement of a cancelled or withdrawn survey or questions ask: the tool error
/// (`code`, `message`, the agent's `reason`) as the result, and the kind's `record`.
pub(crate) fn ended(
    ask: &Ask,
    outcome: Outcome,
    reason: Option<&str>,
    (code, message): (&str, &str),
    mut record: Value,
    settled_at: String,
) -> Settlement {
    let mut error = json!({"code": code, "message": message, "ask_id": ask.id});
    if let Some(r) = reason.filter(|r| !r.trim().is_empty()) {
        error["reason"] = json!(r);
    }
    if let Some(r) = reason {
        record["reason"] = json!(r);
    }
    Settlement {
        outcome: outcome.into(),
        result: json!({"outcome": outcome, "ask_id": ask.id, "error": error}),
        record,
        settled_at,
        expect_banked: None,
        submission: None,
        delivered: outcome.delivered_on_settle(),
    }
}

/// A settle through [`Daemon::settle`] with no follow events, answering with the result; a
/// lost race is the store's `not-pending`.
pub(crate) async fn commit<R: Room>(
    room: &R,
    d: &Daemon,
    ask: &Ask,
    settlement: Settlement,
) -> ApiResult<Value> {
    d.settle(room, ask, settlement, &[])
        .await
        .map(|s| s.result)
        .map_err(|e| ApiError::store(e, &ask.id))
}

/// What an ask's life before its settle adds to the settlement: the record says it was put
/// off (snooze) and until when; the record and the agent's result say whom it was offered to
/// when nobody answered by the deadline (escalation).
fn kept_times(ask: &Ask, settlement: &mut Settlement) {
    if let (Some(until), Some(r)) = (&ask.deferred_until, settlement.record.as_object_mut()) {
        r.insert("deferred_until".into(), json!(until));
    }
    if let Some(chain) = escalation::chain(ask) {
        for r in [&mut settlement.record, &mut settlement.result] {
            if let Some(r) = r.as_object_mut() {
                r.insert("escalated".into(), chain.clone());
            }
        }
    }
}

impl Daemon {
    /// The one settle every kind goes through: names who makes it ([`stamp`]), commits it
    /// through the store's compare-and-set with the events that `follow` it in the same
    /// transaction, adds what the room's [`Room::settled`] sets off, publishes, then runs
    /// the room's [`Room::published`]. The store's error is returned, so each room answers
    /// a lost race (`NotPending`) in its own words.
    pub(crate) async fn settle<R: Room>(
        &self,
        room: &R,
        ask: &Ask,
        mut settlement: Settlement,
        follow: &[FollowEvent],
    ) -> Result<Settlement, StoreError> {
        stamp(&mut settlement);
        expiry::mark(&mut settlement);
        kept_times(ask, &mut settlement);
        if approvals::is_vote(ask, &settlement) {
            return self.vote(room, ask, settlement, follow).await;
        }
        approvals::ended(ask, &mut settlement);
        let events = self.store.settle_with(&ask.id, &settlement, follow).await?;
        let more = room.settled(self, ask, &settlement).await;
        self.hub.publish(events.into_iter().chain(more));
        room.published(self, ask, &settlement).await;
        Ok(settlement)
    }

    /// Validates and stores a new ask, or re-attaches to an identical pending one.
    pub async fn create(&self, req: CreateAsk<'_>) -> ApiResult<CreatedAsk> {
        let session_id = match req.session_id {
            Some(s) => s.to_string(),
            None => self.default_session().await?,
        };
        let kind = AskKind::parse(req.kind).map_err(|_| unknown_kind(req.kind))?;
        let mut new = in_room!(kind, r => r.admit(self, &session_id, &req).await?);
        new.expiry = expiry::checked(kind, &req.args, &new.payload, self.settings.asks_deadline)?;
        self.check_escalation(new.expiry.as_ref())?;
        new.approvals = self.check_approvals(kind, &req.args)?;
        new.return_undelivered = req.return_undelivered && crate::asks::returns_undelivered(kind);
        let superseded = new
            .replaces
            .as_ref()
            .map(|s| (s.ask_id.clone(), s.settlement.clone()));
        let created = self
            .store
            .create_ask(new)
            .await
            .map_err(|e| ApiError::store(e, "-"))?;
        let settled_old = created
            .events
            .iter()
            .any(|e| e.kind == EventKind::AskSettled);
        let mut events = created.events;
        // A superseded survey follows its settle as any settle does (survey.md §10.3,
        // §11.3): the draft it was launched from reopens, its record is copied.
        let old = match (settled_old, superseded) {
            (true, Some((old_id, settlement))) => {
                self.load(&old_id).await.ok().map(|old| (old, settlement))
            }
            _ => None,
        };
        if let Some((old, settlement)) = &old {
            events.extend(survey::Survey.settled(self, old, settlement).await);
        }
        self.hub.publish(events);
        if let Some((old, settlement)) = &old {
            survey::Survey.published(self, old, settlement).await;
        }
        Ok(CreatedAsk {
            ask: created.ask,
            created: created.created,
        })
    }

    /// Validates a survey's or questions' arguments exactly as [`Self::create`] would, and
    /// writes nothing (no session, no ask): the MCP layer checks a connection's first ask
    /// before it records the connection's session (`alignment.md` §4.1).
    pub fn check(&self, kind: &str, args: Json<'_>) -> ApiResult<()> {
        match AskKind::parse(kind) {
            Ok(kind) => in_room!(kind, r => r.check(args)),
            Err(_) => Err(no_check(kind)),
        }
    }

    /// `POST /api/asks/{id}/bank` (§7.5): validated, committed, then acknowledged.
    pub async fn bank(&self, ask_id: &str, body: &Json<'_>) -> ApiResult<usize> {
        let ask = self.load(ask_id).await?;
        require_pending(&ask)?;
        in_room!(kind_of(&ask)?, r => r.bank(self, &ask, body).await)
    }

    /// `PUT /api/asks/{id}/autosave` (§9.3): sanitised, never rejected unless not an object.
    pub async fn autosave(&self, ask_id: &str, body: &Json<'_>) -> ApiResult<(i64, String)> {
        let ask = self.load(ask_id).await?;
        require_pending(&ask)?;
        let clean = in_room!(kind_of(&ask)?, r => r.autosave(&ask, body)?);
        let saved = self
            .store
            .autosave(ask_id, &clean)
            .await
            .map_err(|e| ApiError::store(e, ask_id))?;
        self.hub.publish([saved.event]);
        Ok((saved.revision, saved.saved_at))
    }

    /// `POST /api/asks/{id}/submit`: validated by the ask's room, settled once.
    ///
    /// With an idempotency `key` (the `Idempotency-Key` header), a submit repeated after its
    /// commit's outcome was unknown (`outcome-unknown`: the database connection was lost
    /// during `COMMIT`) finds the ask settled by that very submit — the same caller, key and
    /// body ([`submission`]) — and gets the saved result, not a 409. Without a key a second
    /// submit is a 409, as always.
    pub async fn submit(
        &self,
        ask_id: &str,
        body: &Json<'_>,
        key: Option<&str>,
    ) -> ApiResult<Value> {
        let ask = self.load(ask_id).await?;
        let kind = kind_of(&ask)?;
        self.check_voter(&ask)?;
        let Some(digest) = key.map(|k| submission(k, body)) else {
            return in_room!(kind, r => r.submit(self, ask, body).await);
        };
        if let Some(saved) = repeated(&ask, &digest) {
            return Ok(saved);
        }
        let submitted = SUBMISSION.scope(digest.clone(), async {
            in_room!(kind, r => r.submit(self, ask, body).await)
        });
        match submitted.await {
            Err(e) if e.code == "not-pending" => {
                match repeated(&self.load(ask_id).await?, &digest) {
                    Some(saved) => Ok(saved),
                    None => Err(e),
                }
            }
            other => other,
        }
    }

    /// The human dismissed the ask.
    pub async fn cancel(&self, ask_id: &str) -> ApiResult<Value> {
        let ask = self.load(ask_id).await?;
        in_room!(kind_of(&ask)?, r => r.end(self, ask, Outcome::Cancelled, None).await)
    }

    /// The agent or an operator withdrew the ask. A settled ask returns its result unchanged.
    pub async fn withdraw(&self, ask_id: &str, reason: Option<&str>) -> ApiResult<Value> {
        let ask = self.load(ask_id).await?;
        if ask.state == AskState::Settled {
            return Ok(ask.result.unwrap_or(Value::Null));
        }
        let ended = in_room!(kind_of(&ask)?, r => r.end(self, ask, Outcome::Aborted, reason).await);
        match ended {
            // Lost a race with another settle: return whatever won.
            Err(e) if e.code == "not-pending" => {
                Ok(self.load(ask_id).await?.result.unwrap_or(Value::Null))
            }
            other => other,
        }
    }

    /// Reroll, Push or Discuss (§8.5): only before the first bank.
    pub async fn preflight(&self, ask_id: &str, action: &str) -> ApiResult<Value> {
        let ask = self.load(ask_id).await?;
        let Some(action) = Preflight::parse(action) else {
            return Err(ApiError::new(
                StatusCode::UNPROCESSABLE_ENTITY,
                "unknown-action",
                format!("pre-flight action {action:?} is not one of reroll, push, discuss"),
            ));
        };
        require_pending(&ask)?;
        if kind_of(&ask)? != AskKind::Survey {
            return Err(wrong_kind(&ask, "pre-flight"));
        }
        survey::Survey.preflight(self, ask, action).await
    }

    /// Waits up to `timeout` (None: until settled) and returns the result, or the pending
    /// handle when the budget runs out first.
    pub async fn wait(&self, ask_id: &str, timeout: Option<Duration>) -> ApiResult<Value> {
        match self.wait_settled(ask_id, timeout).await? {
            Waited::Settled(result) => Ok(result),
            Waited::Pending(ask) => self.pending_handle(&ask),
        }
    }

    /// What a waiting agent gets while the ask is pending, kind by kind; with its deadline
    /// (`expires_at`, `deadline`) when it has one, and when to come back (`deferred_until`)
    /// while the human has put it off.
    pub fn pending_handle(&self, ask: &Ask) -> ApiResult<Value> {
        let mut handle = in_room!(kind_of(ask)?, r => r.pending(self, ask))?;
        if let Some(d) = expiry::shown(ask) {
            handle["expires_at"] = d["expires_at"].clone();
            handle["deadline"] = d;
        }
        if let Some(chain) = escalation::chain(ask) {
            handle["escalated"] = chain;
        }
        if let Some(a) = approvals::shown(ask) {
            if a["votes"].as_array().is_some_and(|v| !v.is_empty()) {
                handle["instruction"] = json!(askd_core::approvals::pending_instruction(
                    ask.approvals.as_ref().unwrap_or(&Value::Null)
                ));
            }
            handle["approvals"] = a;
        }
        if let Some(until) = crate::asks::deferred(ask) {
            handle["deferred_until"] = json!(until);
            handle["instruction"] = json!(askd_core::deadline::snoozed_instruction(until));
        }
        Ok(handle)
    }

    /// The path for a map of answers `{id: {selected, custom?, skipped?}}` (surveys only).
    pub fn path(&self, ask: &Ask, body: &Json<'_>) -> ApiResult<Vec<String>> {
        if kind_of(ask)? != AskKind::Survey {
            return Err(wrong_kind(ask, "path"));
        }
        survey::path(ask, body)
    }

    /// The ask as the UI reads it (§12.16), with Markdown rendered beside the source.
    pub fn view(&self, ask: &Ask) -> ApiResult<Value> {
        let kind = kind_of(ask)?;
        let mut v = json!({
            "ask_id": ask.id,
            "kind": ask.kind,
            "session": ask.session_id,
            "client": ask.client,
            "workspace": ask.workspace,
            "state": ask.state,
            "createdAt": ask.created_at,
            "url": self.ask_url(&ask.id),
            "awaited": ask.awaited,
            "claim": ask.claim,
            "spec": ask.payload,
            "banked": ask.banked.iter().map(|b| {
                let mut e = b.entry.clone();
                e["bankedAt"] = json!(b.banked_at);
                e
            }).collect::<Vec<_>>(),
            "autosave": ask.autosave,
            "autosaveRevision": ask.autosave_revision,
            "preflightOpen": kind == AskKind::Survey && ask.state == AskState::Pending && ask.banked.is_empty(),
        });
        if let Some(t) = &ask.title {
            v["title"] = json!(t);
        }
        if let Some(d) = expiry::shown(ask) {
            v["deadline"] = d;
        }
        if let Some(until) = crate::asks::deferred(ask) {
            // While it is put off (the record keeps the time after the settle).
            v["deferred_until"] = json!(until);
        }
        if let Some(chain) = escalation::chain(ask) {
            v["escalated"] = chain;
        }
        if let Some(a) = approvals::shown(ask) {
            v["approvals"] = a;
        }
        in_room!(kind, r => r.view(self, ask, &mut v)?);
        if ask.state == AskState::Settled {
            v["outcome"] = json!(ask.outcome);
            v["settledAt"] = json!(ask.settled_at);
            v["result"] = ask.result.clone().unwrap_or(Value::Null);
        }
        Ok(v)
    }

    /// `GET /api/asks/{id}`: [`Self::view`] plus what needs the session's alignment — a
    /// drift card's `drift` member, a question ask's `repeats`.
    pub async fn show(&self, ask: &Ask) -> ApiResult<Value> {
        let mut view = self.view(ask)?;
        in_room!(kind_of(ask)?, r => r.show(self, ask, &mut view).await?);
        Ok(view)
    }

    /// The `repeats` member of a question ask's or a survey's view (`alignment.md`).
    pub(crate) async fn repeats(&self, ask: &Ask, v: &mut Value) -> ApiResult<()> {
        v["repeats"] = self
            .alignment()
            .repeats(ask, self.settings.alignment_mode)
            .await?;
        Ok(())
    }
}

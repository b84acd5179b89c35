//! Drift cards (`alignment.md` §5.6, §6): asks of kind `drift`, created by `report_drift`
//! and answered through the common ask API.
//!
//! - A report validates first (nothing is written on failure), then, under the session's
//!   lock ([`crate::locks::Locks::session`]), re-attaches to an identical open drift or supersedes a different one, and creates
//!   the card with its `alignment.drift_reported` in one transaction.
//! - The card's answer settles the ask and appends `alignment.drift_decided` (or
//!   `alignment.drift_closed` for "Not now", a withdrawal) in one transaction; the stored
//!   result is exactly what the waiting `report_drift` call returns.

use askd_core::AskKind;
use askd_core::alignment::drift::{self, CardAnswer, DriftCall, DriftReport};
use askd_core::alignment::fold::Drift as Folded;
use askd_core::alignment::{AlignEvent, AlignmentState, Lang};
use askd_core::json::Json;
use askd_core::{Actor, EventKind, Outcome};
use askd_store::{Ask, AskState, FollowEvent, NewAsk, Settlement, StoreError, Supersede};
use serde_json::{Map, Value, json};

use super::{CreateAsk, Room, object_autosave, unknown_kind};
use crate::daemon::Daemon;
use crate::error::{ApiError, ApiResult};

/// A drift reason's card labels in both languages, `{"en": …, "zh-CN": …}` (an unknown
/// token is itself): served with the card and the session page's drifts, so the web UI and
/// the terminal UI show the core's labels (alignment.md §6) instead of keeping their own.
pub fn reason_labels(reason: &Value) -> Value {
    let r = reason.as_str().unwrap_or_default();
    json!({"en": drift::reason_label(r, Lang::En), "zh-CN": drift::reason_label(r, Lang::Zh)})
}

/// A tool-level failure in askd's envelope, returned with 200 like `establish_baseline`'s.
fn failure(code: &str, field: &str, message: String, errors: Option<Value>) -> Value {
    let mut e =
        json!({"code": code, "field": field, "message": format!("report_drift: {message}")});
    if let Some(list) = errors {
        e["errors"] = list;
    }
    json!({"error": e})
}

fn lang(d: &Daemon) -> Lang {
    d.settings.language
}

/// The drift this card ask shows.
fn drift_id(ask: &Ask) -> ApiResult<String> {
    ask.payload
        .get("drift_id")
        .and_then(Value::as_str)
        .map(str::to_string)
        .ok_or_else(|| ApiError::internal(format!("drift card {} has no drift id", ask.id)))
}

/// The state with `extra` applied after the stored events.
fn fold_with(mut state: AlignmentState, extra: &[(EventKind, Value)]) -> AlignmentState {
    let at = askd_store::now();
    for (kind, data) in extra {
        if let Some(e) = AlignEvent::from_stored(0, at.clone(), kind.as_str(), data.clone()) {
            state.apply(&e);
        }
    }
    state
}

impl Daemon {
    /// `POST /api/sessions/{id}/alignment/report_drift` with `{args}`: the non-waiting half
    /// of the tool. Returns `{session, drift_id, ask_id, url, created, result?}`; `result` is
    /// present when the drift is already decided or closed (a resume), and failures come
    /// back as `{"error": {code, field, message}}`.
    pub async fn report_drift(&self, session: &str, args: &Value) -> ApiResult<Value> {
        let call = match drift::validate(args) {
            Ok(c) => c,
            Err(problems) => {
                return Ok(failure(
                    "invalid_argument",
                    &problems[0].path,
                    askd_core::problem::join_messages(&problems),
                    Some(json!(problems)),
                ));
            }
        };
        if self
            .store
            .session(session)
            .await
            .map_err(|e| ApiError::store(e, "-"))?
            .is_none()
        {
            return Err(ApiError::store(
                StoreError::UnknownSession(session.to_string()),
                "-",
            ));
        }
        let _guard = self
            .locks
            .session(self.store.as_ref(), session)
            .await
            .map_err(|e| ApiError::store(e, "-"))?;
        // More than one approver (team mode): checked before anything is written.
        let approvals = match self.check_approvals(AskKind::Drift, &Json::from_value(args)) {
            Ok(a) => a,
            Err(e) => {
                let problems = e.errors.unwrap_or_default();
                let path = problems
                    .first()
                    .map_or("approvals".to_string(), |p| p.path.clone());
                return Ok(failure(
                    "invalid_argument",
                    &path,
                    e.message,
                    Some(json!(problems)),
                ));
            }
        };
        let state = self.alignment().state_without_decisions(session).await?;
        match call {
            DriftCall::Resume(id) => self.resume_drift(session, &state, &id).await,
            DriftCall::Report(report) => self.new_drift(session, &state, report, approvals).await,
        }
    }

    async fn resume_drift(
        &self,
        session: &str,
        state: &AlignmentState,
        id: &str,
    ) -> ApiResult<Value> {
        let Some(d) = state.drift(id) else {
            let known: Vec<&str> = state.drifts.iter().map(|d| d.drift_id.as_str()).collect();
            return Ok(failure(
                "unknown_drift",
                "resume",
                format!(
                    "this session has no drift {id:?}{}",
                    if known.is_empty() {
                        String::new()
                    } else {
                        format!("; its drifts are {}", known.join(", "))
                    }
                ),
                None,
            ));
        };
        if d.inherited {
            return Ok(failure(
                "foreign_drift",
                "resume",
                format!(
                    "drift {id} was inherited from the parent session when this session was forked; its card belongs to the parent. Report it again in this session."
                ),
                None,
            ));
        }
        let ask_id = d.ask_id.clone().unwrap_or_default();
        let url = self.ask_url(&ask_id);
        let mut out = json!({"session": session, "drift_id": id, "ask_id": ask_id, "url": url, "created": false});
        if d.state != "open" {
            // Decided or closed: the stored result of its card, every time.
            let stored = match self.store.ask(&ask_id).await {
                Ok(Some(ask)) => ask.result,
                _ => None,
            };
            out["result"] = stored
                .unwrap_or_else(|| drift::result(session, d, &ask_id, &url, state, lang(self)));
        }
        Ok(out)
    }

    async fn new_drift(
        &self,
        session: &str,
        state: &AlignmentState,
        report: DriftReport,
        approvals: Option<Value>,
    ) -> ApiResult<Value> {
        let open = state.open_drift().cloned();
        if let Some(o) = &open
            && !o.inherited
            && report.same_as(o)
            && let Some(ask_id) = &o.ask_id
        {
            // The identical open drift: re-attach, record nothing.
            return Ok(json!({
                "session": session, "drift_id": o.drift_id, "ask_id": ask_id,
                "url": self.ask_url(ask_id), "created": false,
            }));
        }
        let drift_id = format!("d{}", state.drift_count + 1);
        let ask_id = uuid::Uuid::now_v7().to_string();
        let mut follow = Vec::new();
        let mut replaces = None;
        if let Some(o) = &open {
            let closed = json!({"drift_id": o.drift_id, "outcome": Outcome::Superseded, "actor": Actor::Agent});
            follow.push(FollowEvent {
                kind: EventKind::AlignmentDriftClosed.as_str().into(),
                payload: closed.clone(),
            });
            if !o.inherited
                && let Some(old_ask) = &o.ask_id
            {
                let after = fold_with(state.clone(), &[(EventKind::AlignmentDriftClosed, closed)]);
                let old = after.drift(&o.drift_id).unwrap_or(o);
                let url = self.ask_url(old_ask);
                let result = drift::result(session, old, old_ask, &url, &after, lang(self));
                let settled_at = askd_store::now();
                replaces = Some(Supersede {
                    ask_id: old_ask.clone(),
                    settlement: Settlement {
                        outcome: Outcome::Superseded.into(),
                        record: drift_record(
                            old_ask,
                            session,
                            Outcome::Superseded.as_str(),
                            &settled_at,
                            &result,
                        ),
                        result,
                        settled_at,
                        expect_banked: None,
                        submission: None,
                        delivered: Outcome::Superseded.delivered_on_settle(),
                    },
                });
            }
        }
        follow.push(FollowEvent {
            kind: EventKind::AlignmentDriftReported.as_str().into(),
            payload: report.reported_event(
                &drift_id,
                &ask_id,
                open.as_ref().map(|o| o.drift_id.as_str()),
            ),
        });
        let title: String = report.description.chars().take(120).collect();
        let created = self
            .store
            .create_ask_with(
                NewAsk {
                    id: ask_id.clone(),
                    session_id: session.to_string(),
                    kind: AskKind::Drift.as_str().into(),
                    title: Some(title),
                    payload: report.ask_payload(&drift_id),
                    payload_key: report.key(),
                    fingerprint: None,
                    replaces,
                    seed_banked: Vec::new(),
                    seed_autosave: None,
                    return_undelivered: false,
                    expiry: None,
                    approvals,
                },
                &follow,
            )
            .await
            .map_err(|e| ApiError::store(e, "-"))?;
        let ask_id = created.ask.id.clone();
        let drift_id = created.ask.payload["drift_id"]
            .as_str()
            .unwrap_or(&drift_id)
            .to_string();
        self.hub.publish(created.events);
        Ok(json!({
            "session": session, "drift_id": drift_id, "ask_id": ask_id,
            "url": self.ask_url(&ask_id), "created": created.created,
        }))
    }
}

fn drift_record(
    ask_id: &str,
    session: &str,
    outcome: &str,
    settled_at: &str,
    result: &Value,
) -> Value {
    json!({
        "v": 1, "kind": AskKind::Drift.as_str(), "ask_id": ask_id, "session": session,
        "outcome": outcome, "settledAt": settled_at, "result": result,
    })
}

/// The drift-card room.
pub struct Drift;

impl Drift {
    /// Settles a card with `outcome`, appending `event` in the same transaction; the result
    /// is the `report_drift` result after the event.
    async fn settle_card(
        &self,
        d: &Daemon,
        ask: &Ask,
        outcome: Outcome,
        event: (EventKind, Value),
        surface: Option<&str>,
    ) -> ApiResult<Value> {
        let id = drift_id(ask)?;
        let before = d
            .alignment()
            .state_without_decisions(&ask.session_id)
            .await?;
        let after = fold_with(before, &[(event.0, event.1.clone())]);
        let Some(folded) = after.drift(&id) else {
            return Err(ApiError::internal(format!(
                "drift {id} of card {} is not in its session's log",
                ask.id
            )));
        };
        let url = d.ask_url(&ask.id);
        let mut result = drift::result(&ask.session_id, folded, &ask.id, &url, &after, lang(d));
        if let Some(s) = surface {
            result["surface"] = json!(s);
        }
        let settled_at = askd_store::now();
        let settlement = Settlement {
            outcome: outcome.into(),
            record: drift_record(
                &ask.id,
                &ask.session_id,
                outcome.as_str(),
                &settled_at,
                &result,
            ),
            result,
            settled_at,
            expect_banked: None,
            submission: None,
            delivered: outcome.delivered_on_settle(),
        };
        // The decision in the session's log names who answered too.
        let mut payload = event.1;
        if let (Some(m), Some(o)) = (crate::fence::answered_by(), payload.as_object_mut()) {
            o.insert("answered_by".into(), m);
        }
        let follow = [FollowEvent {
            kind: event.0.into(),
            payload,
        }];
        let settled = match d.settle(self, ask, settlement, &follow).await {
            Ok(s) => s,
            // Another answer won: 409 with the decision that stands.
            Err(StoreError::NotPending) => {
                return Err(decided_already(&d.load(&ask.id).await?));
            }
            Err(e) => return Err(ApiError::store(e, &ask.id)),
        };
        Ok(settled.result)
    }
}

impl Room for Drift {
    const KIND: AskKind = AskKind::Drift;

    /// Drift cards are created by `report_drift` ([`Daemon::report_drift`]), never by a
    /// create.
    async fn admit(&self, _: &Daemon, _: &str, req: &CreateAsk<'_>) -> ApiResult<NewAsk> {
        Err(unknown_kind(req.kind))
    }

    fn autosave(&self, _: &Ask, body: &Json<'_>) -> ApiResult<Value> {
        object_autosave(body)
    }

    /// `POST /api/asks/{id}/submit` on a drift card: `{action, option?, text?, note?}`, and
    /// `surface` (`page`, `terminal`, `client-form`; `page` when absent), which the result
    /// carries (`clients.md` §3).
    async fn submit(&self, d: &Daemon, ask: Ask, body: &Json<'_>) -> ApiResult<Value> {
        if ask.state != AskState::Pending {
            return Err(decided_already(&ask));
        }
        let surface = super::questions::surface(body)?;
        let mut body = body.to_value();
        if let Some(o) = body.as_object_mut() {
            o.remove("surface");
        }
        let options = ask.payload["options"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        let answer = drift::parse_answer(&body, &options)
            .map_err(|p| ApiError::invalid("invalid-answer", None, p))?;
        let id = drift_id(&ask)?;
        let outcome = match answer {
            CardAnswer::Dismiss => Outcome::Cancelled,
            CardAnswer::Decide { .. } => Outcome::Answered,
        };
        let (kind, data) = answer.event(&id);
        // No lock needed: the settle itself is the compare-and-set.
        self.settle_card(d, &ask, outcome, (kind, data), Some(surface))
            .await
    }

    /// Cancel ("Not now", drift `dismissed`) or withdraw (drift `withdrawn`).
    /// A card takes no reason: its log event says who closed it.
    async fn end(
        &self,
        d: &Daemon,
        ask: Ask,
        outcome: Outcome,
        _: Option<&str>,
    ) -> ApiResult<Value> {
        if ask.state != AskState::Pending {
            return Err(decided_already(&ask));
        }
        let id = drift_id(&ask)?;
        let (closed, actor) = if outcome == Outcome::Cancelled {
            // "Not now" from a person, or a decline in an agent's client form.
            let actor = crate::fence::caller().map_or(Actor::Human, |p| p.actor());
            ("dismissed", actor)
        } else {
            (Outcome::Withdrawn.as_str(), Actor::Agent)
        };
        let data = json!({"drift_id": id, "outcome": closed, "actor": actor});
        self.settle_card(
            d,
            &ask,
            outcome,
            (EventKind::AlignmentDriftClosed, data),
            None,
        )
        .await
    }

    /// The pending handle of a card: the `report_drift` result with outcome `pending`.
    fn pending(&self, d: &Daemon, ask: &Ask) -> ApiResult<Value> {
        let id = ask.payload["drift_id"].as_str().unwrap_or_default();
        let folded = Folded {
            drift_id: id.to_string(),
            reported_at: ask.created_at.clone(),
            reason: ask.payload["reason"].as_str().unwrap_or_default().into(),
            description: ask.payload["description"]
                .as_str()
                .unwrap_or_default()
                .into(),
            required_change: ask.payload["required_change"].as_str().map(str::to_string),
            options: ask.payload["options"]
                .as_array()
                .cloned()
                .unwrap_or_default(),
            state: "open".into(),
            ..Folded::default()
        };
        let state = AlignmentState::default();
        let mut r = drift::result(
            &ask.session_id,
            &folded,
            &ask.id,
            &d.ask_url(&ask.id),
            &state,
            lang(d),
        );
        // An open drift is, by definition, the session's posture.
        r["posture"] = json!("drift-pending");
        Ok(r)
    }

    /// A card's page reads the `drift` member ([`Room::show`]).
    fn view(&self, _: &Daemon, _: &Ask, v: &mut Value) -> ApiResult<()> {
        v["rendered"] = Value::Null;
        Ok(())
    }

    /// The `drift` member of `GET /api/asks/{id}` for a card: the payload with its Markdown
    /// rendered, the session, the current baseline and the decision.
    async fn show(&self, d: &Daemon, ask: &Ask, v: &mut Value) -> ApiResult<()> {
        let p = &ask.payload;
        let md = |s: Option<&str>| s.map(crate::render::markdown);
        let options: Vec<Value> = p["options"]
            .as_array()
            .map(|os| {
                os.iter()
                    .map(|o| {
                        json!({
                            "label": o["label"],
                            "description": o.get("description").cloned().unwrap_or(Value::Null),
                            "description_html": md(o["description"].as_str()),
                        })
                    })
                    .collect()
            })
            .unwrap_or_default();
        let id = drift_id(ask)?;
        let state = d
            .alignment()
            .state_without_decisions(&ask.session_id)
            .await?;
        let found = state.drift(&id);
        let baseline = state.baseline_view().filter(|_| state.revision > 0);
        let decision = found.filter(|d| d.state == "decided").map(|d| {
            json!({
                "decision": d.decision, "choice": d.choice, "choice_source": d.choice_source,
                "option_index": d.option_index, "note": d.note, "decided_at": d.decided_at,
                "decided_by": d.decided_by,
            })
        });
        let mut m = Map::new();
        m.insert("drift_id".into(), json!(id));
        m.insert("reason".into(), p["reason"].clone());
        m.insert("reason_label".into(), reason_labels(&p["reason"]));
        m.insert("description".into(), p["description"].clone());
        m.insert(
            "description_html".into(),
            json!(md(p["description"].as_str())),
        );
        m.insert("required_change".into(), p["required_change"].clone());
        m.insert(
            "required_change_html".into(),
            json!(md(p["required_change"].as_str())),
        );
        m.insert("options".into(), Value::Array(options));
        // The card's own limit (note, own-choice text), so the pages don't keep a copy.
        m.insert("text_max".into(), json!(drift::NOTE_MAX));
        m.insert(
            "session".into(),
            json!({"id": ask.session_id, "client": ask.client}),
        );
        m.insert("baseline".into(), json!(baseline));
        m.insert(
            "state".into(),
            json!(found.map_or("open", |d| d.state.as_str())),
        );
        m.insert("decision".into(), json!(decision));
        v["drift"] = Value::Object(m);
        Ok(())
    }
}

/// 409 with the card's existing outcome and decision.
fn decided_already(ask: &Ask) -> ApiError {
    let mut e = ApiError::not_pending(&ask.id);
    e.message = format!(
        "drift card {} is already settled; the first answer stands",
        ask.id
    );
    let mut details = Map::new();
    details.insert("outcome".into(), json!(ask.outcome));
    details.insert("result".into(), ask.result.clone().unwrap_or(Value::Null));
    e.details = Some(Box::new(details));
    e
}

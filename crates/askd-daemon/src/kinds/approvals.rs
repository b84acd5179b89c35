//! More than one approver (issue 35, team mode): `approvals: {required, from?}` on
//! `ask_user_question`, `batch_review` and `report_drift` ([`askd_core::approvals`] has the rule: any
//! rejection rejects at once, otherwise the quorum settles with the vote that completed it).
//!
//! At create the names are checked against the members ([`Daemon::check_approvals`]). A
//! submit on such an ask is a vote: only a member `from` admits may send it
//! ([`Daemon::check_voter`], from the fence's principal — never a name the caller sends); the
//! room validates it as any answer, and the one settle ([`Daemon::settle`]) hands it to
//! [`Daemon::vote`], which has the store record it and, when it decides, settle in the same
//! transaction. A vote that does not decide answers with the pending handle and the votes
//! so far; the page shows "1 of 2 approvals".

use askd_core::approvals::{self, Approvals};
use askd_core::json::Json;
use askd_core::{AskKind, Outcome};
use askd_store::{Ask, AskState, FollowEvent, Settlement, StoreError};
use axum::http::StatusCode;
use serde_json::{Value, json};

use super::Room;
use crate::access::Principal;
use crate::daemon::Daemon;
use crate::error::{ApiError, ApiResult};

fn invalid(problems: Vec<askd_core::Problem>) -> ApiError {
    ApiError::invalid("APPROVALS_INVALID", Some("invalid approvals"), problems)
}

fn problem(path: &str, message: String) -> askd_core::Problem {
    askd_core::Problem::new(path, "approvals_member", message)
}

/// Whether this settle is a member's vote: an answer to an ask with approvals (a deadline's
/// default, a cancel and a withdrawal end it as always).
pub(crate) fn is_vote(ask: &Ask, settlement: &Settlement) -> bool {
    ask.approvals.is_some() && settlement.outcome == Outcome::Answered.as_str()
}

/// What an ended ask with approvals adds to its settlement: the votes so far, and in words.
pub(crate) fn ended(ask: &Ask, settlement: &mut Settlement) {
    if let Some(stored) = &ask.approvals {
        approvals::settled(
            stored,
            false,
            &mut settlement.result,
            &mut settlement.record,
        );
    }
}

/// The `approvals` member of a view or a pending handle: the votes so far (who, when,
/// whether it rejects, the answer), how many are required, from whom.
pub(crate) fn shown(ask: &Ask) -> Option<Value> {
    let stored = ask.approvals.as_ref()?;
    let mut v = approvals::summary(stored, false);
    v["votes"] = stored["votes"].clone();
    Some(v)
}

impl Daemon {
    /// At create: `approvals` validated, its names members of this askd, and enough of them.
    pub(crate) fn check_approvals(
        &self,
        kind: AskKind,
        args: &Json<'_>,
    ) -> ApiResult<Option<Value>> {
        let Some(a) = approvals::parse(args, kind).map_err(invalid)? else {
            return Ok(None);
        };
        if args
            .as_object()
            .and_then(|o| o.get_present("persist"))
            .is_some()
        {
            return Err(invalid(vec![askd_core::Problem::new(
                "persist",
                "approvals_persist",
                "persist cannot be combined with approvals: the file would be written before the votes decide — omit persist and save the result yourself",
            )]));
        }
        let people = self.people();
        let known = |n: &str| people.iter().any(|p| p.eq_ignore_ascii_case(n));
        let mut problems = Vec::new();
        match &a.from {
            Some(from) => {
                for (i, n) in from.iter().enumerate() {
                    if !known(n) {
                        problems.push(problem(
                            &format!("approvals.from[{i}]"),
                            format!(
                                "{n:?} is not a member of this askd: name one of {} (askd members add NAME)",
                                if people.is_empty() { "none yet".to_string() } else { people.join(", ") }
                            ),
                        ));
                    }
                }
            }
            None if people.len() < a.required as usize => problems.push(problem(
                "approvals.required",
                format!(
                    "approvals.required is {} but this askd has {} member(s){}: add members (askd members add NAME) or require fewer",
                    a.required,
                    people.len(),
                    if people.is_empty() { String::new() } else { format!(" ({})", people.join(", ")) }
                ),
            )),
            None => {}
        }
        if !problems.is_empty() {
            return Err(invalid(problems));
        }
        Ok(Some(a.to_value()))
    }

    /// At submit: an ask with approvals takes votes from the members it admits only.
    pub(crate) fn check_voter(&self, ask: &Ask) -> ApiResult<()> {
        let Some(stored) = ask
            .approvals
            .as_ref()
            .filter(|_| ask.state == AskState::Pending)
        else {
            return Ok(());
        };
        let a = Approvals::from_value(stored).ok_or_else(|| {
            ApiError::internal(format!("ask {}'s approvals are unreadable", ask.id))
        })?;
        let who = crate::fence::caller();
        let from = match &a.from {
            Some(f) => f.join(", "),
            None => "any member".to_string(),
        };
        match &who {
            Some(Principal::Member { name, .. }) if a.admits(name) => Ok(()),
            Some(Principal::Member { name, .. }) => Err(ApiError::new(
                StatusCode::FORBIDDEN,
                "not-an-approver",
                format!("this ask takes approvals from {from}, not from {name}"),
            )),
            _ => Err(ApiError::new(
                StatusCode::FORBIDDEN,
                "not-an-approver",
                format!(
                    "this ask needs {} approvals from {from}: each is a member's vote — sign in with your member link to vote",
                    a.required
                ),
            )),
        }
    }

    /// A member's vote, from the settlement the room made of it ([`Daemon::settle`] calls
    /// this for [`is_vote`]): recorded, and — when it decides — settled in the same
    /// transaction and followed as any settle. A vote that does not decide answers with the
    /// pending handle and the votes so far.
    pub(crate) async fn vote<R: Room>(
        &self,
        room: &R,
        ask: &Ask,
        settlement: Settlement,
        follow: &[FollowEvent],
    ) -> Result<Settlement, StoreError> {
        let kind = AskKind::parse(&ask.kind).unwrap_or(AskKind::Questions);
        let by = settlement
            .result
            .get("answered_by")
            .cloned()
            .unwrap_or(Value::Null);
        let vote = approvals::vote(kind, &settlement.result, &by, &settlement.settled_at);
        // A vote that lost the compare-and-set to another landing at the same moment (on
        // another daemon) is sent again: every vote counts.
        let mut tries = 0;
        let voted = loop {
            match self.store.vote(&ask.id, &vote, &settlement, follow).await {
                Err(StoreError::Conflict(_)) if tries < 5 && ask.approvals.is_some() => tries += 1,
                other => break other?,
            }
        };
        if let Some(s) = voted.settled {
            let more = room.settled(self, ask, &s).await;
            self.hub.publish(voted.events.into_iter().chain(more));
            room.published(self, ask, &s).await;
            return Ok(s);
        }
        self.hub.publish(voted.events);
        let mut shown = approvals::summary(&voted.approvals, false);
        shown["votes"] = voted.approvals["votes"].clone();
        let reply = json!({
            "outcome": "pending",
            "ask_id": ask.id,
            "url": self.ask_url(&ask.id),
            "voted": true,
            "approvals": shown,
            "instruction": approvals::pending_instruction(&voted.approvals),
        });
        Ok(Settlement {
            result: reply,
            ..settlement
        })
    }
}

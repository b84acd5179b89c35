//! Escalation (issue 35, team mode): `deadline: {…, then: "escalate", to}`. When nobody has
//! answered by the deadline, the ask is offered to `to` — a member's name, or `everyone` —
//! and waits on: its deadline is cleared, the chain `escalated: [{to, escalated_at}]` is kept
//! with it (the view, the pending handle and the record show it), and `ask.escalated` tells
//! the pages and the notifier, which sends "Offered to …" to the general sinks and to the
//! webhooks of the members it names (`[[notify.webhook]] member`). The store's compare-and-set
//! on the deadline makes it happen once across a team's daemons.

use askd_core::deadline::{EVERYONE, Then};
use askd_store::{Ask, Expiry};
use serde_json::{Value, json};

use crate::daemon::Daemon;
use crate::error::{ApiError, ApiResult};

/// The escalation chain of an ask that was offered on, if any.
pub(crate) fn chain(ask: &Ask) -> Option<Value> {
    ask.deadline
        .as_ref()
        .and_then(|d| d.get("escalated"))
        .filter(|c| c.as_array().is_some_and(|c| !c.is_empty()))
        .cloned()
}

impl Daemon {
    /// The names of the team's people (members that are not agent tokens): whom an ask may
    /// be offered to, and who may vote on one.
    pub(crate) fn people(&self) -> Vec<String> {
        self.members
            .list()
            .into_iter()
            .filter(|m| m["kind"] == "person")
            .filter_map(|m| m["name"].as_str().map(str::to_string))
            .collect()
    }

    /// At create: an escalation names a person member (or `everyone`, when there is one).
    pub(crate) fn check_escalation(&self, expiry: Option<&Expiry>) -> ApiResult<()> {
        let Some(d) = expiry.map(|e| &e.deadline) else {
            return Ok(());
        };
        if d["then"] != json!(Then::Escalate) {
            return Ok(());
        }
        let to = d["to"].as_str().unwrap_or_default();
        let people = self.people();
        let known = if to.eq_ignore_ascii_case(EVERYONE) {
            !people.is_empty()
        } else {
            people.iter().any(|p| p.eq_ignore_ascii_case(to))
        };
        if known {
            return Ok(());
        }
        let message = if people.is_empty() {
            "an escalation offers the ask to a team member, and this askd has none: add one (askd members add NAME), or use then \"default\" or \"cancel\"".to_string()
        } else {
            format!(
                "deadline.to {to:?} is not a member: name one of {} or \"{EVERYONE}\"",
                people.join(", ")
            )
        };
        Err(ApiError::invalid(
            "DEADLINE_INVALID",
            Some("invalid deadline"),
            vec![askd_core::Problem::new(
                "deadline.to",
                "deadline_to",
                message,
            )],
        ))
    }

    /// The deadline `at` of `ask` passed and it escalates: offered to its `to`, waiting on.
    /// Another daemon that got there first (or a moved deadline) leaves nothing to do.
    pub(crate) async fn escalate(&self, ask: &Ask, at: &str) -> ApiResult<()> {
        let mut d = ask.deadline.clone().unwrap_or_else(|| json!({}));
        let to = d["to"].as_str().unwrap_or(EVERYONE).to_string();
        let entry = json!({"to": to, "escalated_at": askd_store::now(), "deadline": at});
        match d["escalated"].as_array_mut() {
            Some(c) => c.push(entry),
            None => d["escalated"] = json!([entry]),
        }
        let event = self
            .store
            .escalate(&ask.id, at, &d, &to)
            .await
            .map_err(|e| ApiError::store(e, &ask.id))?;
        if let Some(e) = event {
            self.hub.publish([e]);
        }
        Ok(())
    }
}

//! Votes on an ask with approvals (issue 35, team mode), written once over [`crate::db`] like
//! the rest of the store ([`super`]): the votes live in the ask's `approvals` column, changed
//! by a compare-and-set, and a deciding vote settles in the same transaction.

use askd_core::{EventKind, approvals};
use serde_json::{Value, json};

use super::settle_with;
use crate::db::{Db, args, to_text};
use crate::model::*;
use crate::{StoreError, StoreResult};

/// A member's vote on an ask with approvals (issue 35): a compare-and-set on the ask's
/// `approvals`, `ask.voted`, and — when the vote decides ([`askd_core::approvals::decides`]) —
/// the settle `decide` stands for, with every vote in it, in the same transaction.
pub(super) async fn cast_vote(
    db: &mut Db<'_>,
    ask_id: &str,
    vote: &Value,
    decide: &Settlement,
    follow: &[FollowEvent],
) -> StoreResult<Voted> {
    let Some(row) = db
        .fetch_optional(
            "SELECT state, approvals FROM asks WHERE id = ?1",
            args![ask_id],
        )
        .await?
    else {
        return Err(StoreError::NotFound);
    };
    let state: String = row.get("state")?;
    if state != "pending" {
        return Err(StoreError::NotPending);
    }
    let old: Option<String> = row.get("approvals")?;
    let Some(old) = old else {
        return Err(StoreError::Conflict(format!(
            "ask {ask_id} takes one answer, not votes"
        )));
    };
    let mut stored: Value = serde_json::from_str(&old).map_err(|e| {
        StoreError::Backend(format!("ask {ask_id}'s approvals are unreadable: {e}"))
    })?;
    let votes = approvals::with_vote(
        stored["votes"].as_array().map(Vec::as_slice).unwrap_or(&[]),
        vote.clone(),
    );
    let required = stored["required"].as_u64().unwrap_or(1) as u32;
    let decided = approvals::decides(&votes, required);
    let n = votes.len();
    stored["votes"] = Value::Array(votes);
    let changed = db
        .execute(
            "UPDATE asks SET approvals = ?2 WHERE id = ?1 AND state = 'pending' AND approvals = ?3",
            args![ask_id, to_text(&stored), old],
        )
        .await?;
    if changed == 0 {
        return Err(StoreError::Conflict(
            "another vote landed at the same moment — send yours again".into(),
        ));
    }
    let voted = db
        .append_event(
            EventKind::AskVoted.as_str(),
            Some(ask_id),
            json!({"ask_id": ask_id, "by": vote["answered_by"], "rejects": vote["rejects"], "votes": n, "required": required}),
            &decide.settled_at,
            None,
        )
        .await?;
    let mut events = vec![voted];
    let settled = if decided {
        let mut s = decide.clone();
        approvals::settled(&stored, true, &mut s.result, &mut s.record);
        events.extend(settle_with(db, ask_id, &s, follow).await?);
        Some(s)
    } else {
        None
    };
    Ok(Voted {
        events,
        approvals: stored,
        settled,
    })
}

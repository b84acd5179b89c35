//! Deadlines (issue 35): a pending ask whose `expires_at` has passed settles by itself —
//! with the agent's default applied, marked, or closed unanswered — exactly once.
//!
//! - **When it is set.** [`Daemon::create`] reads `deadline` from the arguments
//!   ([`askd_core::deadline`]), turns `in_s`/`at` into `expires_at` (UTC), checks the
//!   default against the ask as its submit would ([`checked`]) and stores both with the ask.
//! - **Who fires it.** Every daemon runs [`run`]: it reads the soonest deadlines from the
//!   store (`asks_expiring`), expires the due ones and sleeps until the next — at most
//!   [`LONGEST_SLEEP`], and woken by a new ask or a moved deadline (its own or, in team
//!   mode, another daemon's, through the event log). Deadlines live in the database, so
//!   they fire after a restart; and the expiry is an ordinary settle (compare-and-set on a
//!   pending ask), so when several daemons of a team reach the same ask, one settles it and
//!   the others find it settled: one `ask.settled`, one notification, one record.
//! - **What it writes.** The default goes through the kind's own submit, the close through
//!   its own end ([`Daemon::expire`]); the settle then marks the result ([`expired`]):
//!   `outcome: "expired"`, `expired_at`, `defaulted`, no `surface` (nobody answered), and
//!   `handling` saying it in words.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use askd_core::EventKind;
use askd_store::Event;
use tokio::sync::{broadcast, watch};

use crate::daemon::Daemon;

/// The longest the runner sleeps without looking at the store again.
pub const LONGEST_SLEEP: Duration = Duration::from_secs(30);

/// How long an ask whose expiry failed waits before the runner tries it again.
const RETRY: Duration = Duration::from_secs(5);

fn wakes(e: &Event) -> bool {
    matches!(
        EventKind::parse(&e.kind),
        Some(EventKind::AskCreated | EventKind::AskDeadline)
    )
}

/// Runs until `stop`: see the module's doc.
pub async fn run(
    d: Arc<Daemon>,
    mut events: broadcast::Receiver<Event>,
    mut stop: watch::Receiver<bool>,
) {
    let mut failed: HashMap<String, std::time::Instant> = HashMap::new();
    loop {
        let mut sleep = LONGEST_SLEEP;
        match d.store.expiring(64).await {
            Ok(soonest) => {
                let now = askd_store::now();
                for (id, at) in soonest {
                    if at > now {
                        sleep = sleep.min(until(&at));
                        break;
                    }
                    if failed.get(&id).is_some_and(|t| t.elapsed() < RETRY) {
                        sleep = sleep.min(RETRY);
                        continue;
                    }
                    match d.expire(&id).await {
                        Ok(()) => {
                            failed.remove(&id);
                        }
                        Err(e) => {
                            tracing::warn!(ask = %id, error = %e.message, "an ask's deadline could not be applied; trying again");
                            failed.insert(id, std::time::Instant::now());
                            sleep = sleep.min(RETRY);
                        }
                    }
                }
            }
            Err(e) => {
                tracing::debug!(error = %e, "reading deadlines failed; trying again");
                sleep = RETRY;
            }
        }
        let woken = async {
            loop {
                match events.recv().await {
                    Ok(e) if wakes(&e) => return true,
                    Ok(_) | Err(broadcast::error::RecvError::Lagged(_)) => continue,
                    Err(broadcast::error::RecvError::Closed) => return false,
                }
            }
        };
        let closed = tokio::select! {
            _ = stop.wait_for(|s| *s) => return,
            _ = tokio::time::sleep(sleep) => false,
            open = woken => !open,
        };
        if closed {
            // No events any more (the hub is going away): look again after the sleep.
            tokio::time::sleep(sleep).await;
        }
    }
}

/// How long until `at` (RFC 3339), at least a millisecond.
fn until(at: &str) -> Duration {
    chrono::DateTime::parse_from_rfc3339(at)
        .ok()
        .and_then(|t| {
            (t.with_timezone(&chrono::Utc) - chrono::Utc::now())
                .to_std()
                .ok()
        })
        .unwrap_or(Duration::from_secs(1))
        .max(Duration::from_millis(1))
}

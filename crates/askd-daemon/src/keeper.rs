//! Checkpoints kept up while nobody reads (issue 32): a session's alignment is folded from
//! its checkpoint on, and a checkpoint is saved by reads (`alignment::state`). A
//! session that only grows — an agent asking and asking while nobody opens it — was never
//! checkpointed, so its first read after a restart folded everything since: 266 ms at
//! 10,000 pending asks. The keeper counts each session's events as the hub publishes them
//! and, every [`KEEP_EVERY`], folds that session in the background (one at a time), which
//! saves its checkpoint; a first read then folds at most about that many.

use std::collections::HashMap;
use std::sync::Arc;

use askd_store::Event;
use tokio::sync::{broadcast, watch};

use crate::daemon::Daemon;

/// A session's events published since its last keeper fold that start the next one.
pub const KEEP_EVERY: usize = 512;

/// Runs until `stop`: see the module's doc.
pub async fn run(
    d: Arc<Daemon>,
    mut events: broadcast::Receiver<Event>,
    mut stop: watch::Receiver<bool>,
) {
    let mut counts: HashMap<String, usize> = HashMap::new();
    let busy = Arc::new(tokio::sync::Semaphore::new(1));
    loop {
        let e = tokio::select! {
            _ = stop.wait_for(|s| *s) => return,
            e = events.recv() => e,
        };
        let e = match e {
            Ok(e) => e,
            // Fell behind: the counts start over, nothing is lost but a little earliness.
            Err(broadcast::error::RecvError::Lagged(_)) => continue,
            Err(broadcast::error::RecvError::Closed) => return,
        };
        let Some(session) = e.payload.get("session").and_then(|s| s.as_str()) else {
            continue;
        };
        let n = counts.entry(session.to_string()).or_default();
        *n += 1;
        if *n < KEEP_EVERY {
            continue;
        }
        let Ok(permit) = busy.clone().try_acquire_owned() else {
            // A fold is running: this session's count stays, so it goes next time.
            continue;
        };
        // Folded: the session's count starts over (and a session that stops growing keeps no
        // entry).
        counts.remove(session);
        let (d, session) = (d.clone(), session.to_string());
        tokio::spawn(async move {
            if let Err(e) = d.alignment().keep(&session).await {
                tracing::debug!(session, error = %e.message, "keeping the alignment checkpoint failed");
            }
            drop(permit);
        });
    }
}

//! Team mode's follower: what other daemons on the same PostgreSQL database commit reaches
//! this daemon's hub, in commit order.
//!
//! The store notifies every committed event's seq on `askd_events` (`askd_store::pg`); the
//! follower listens, and on each seq past its cursor reads the events after the cursor from
//! the store ([`askd_store::EventStore::events_after`], seq order = commit order there) and hands
//! them to [`crate::hub::Hub::publish_followed`], which skips this daemon's own. So a settle
//! on daemon A wakes a waiter on daemon B, and B's event streams carry A's events.
//!
//! When the notification connection is lost, the hub is marked stale (the HTTP layer
//! answers 503 `database-unavailable` meanwhile), the follower reconnects with a backoff,
//! re-reads everything after its cursor, and only then marks the hub current: nothing
//! committed meanwhile is missed, and nothing stale is served as current.
//!
//! Saved settings (and paired devices and members, kept among them) are cached in memory by each daemon:
//! a `settings.updated` from another daemon reloads them.

use askd_core::EventKind;
use std::sync::Arc;
use std::time::Duration;

use askd_store::PgEvents;
use tokio::sync::watch;

use crate::daemon::Daemon;

/// Most events one catch-up read takes.
const PAGE: u32 = 500;
/// The reconnect backoff: from the first to the last, doubling.
const BACKOFF: (Duration, Duration) = (Duration::from_millis(100), Duration::from_secs(5));

/// Follows the database until `stop`; `events` is listening already and the hub follows
/// from the store's last event at the time `events` started listening.
pub async fn run(daemon: Arc<Daemon>, mut events: PgEvents, mut stop: watch::Receiver<bool>) {
    loop {
        let next = tokio::select! {
            _ = stop.wait_for(|s| *s) => return,
            n = events.next() => n,
        };
        let caught_up = match next {
            Ok(seq) if daemon.hub.followed_to().is_some_and(|c| seq <= c) => Ok(()),
            Ok(_) => catch_up(&daemon).await,
            Err(e) => Err(e),
        };
        if let Err(e) = caught_up {
            tracing::warn!(error = %e, "lost the database's notifications; reconnecting");
            daemon.hub.set_stale(Some(e.to_string()));
            if !recover(&daemon, &mut events, &mut stop).await {
                return;
            }
            daemon.hub.set_stale(None);
            tracing::info!("following the database again");
        }
    }
}

/// Reconnects and re-reads what was missed, retrying with a backoff; `false` on stop.
async fn recover(daemon: &Daemon, events: &mut PgEvents, stop: &mut watch::Receiver<bool>) -> bool {
    let mut wait = BACKOFF.0;
    loop {
        tokio::select! {
            _ = stop.wait_for(|s| *s) => return false,
            _ = tokio::time::sleep(wait) => {}
        }
        wait = (wait * 2).min(BACKOFF.1);
        let attempt = async {
            events.reconnect().await?;
            // Listening again first, then the read: whatever commits from here on is either
            // read now or notified.
            catch_up(daemon).await
        };
        match attempt.await {
            Ok(()) => return true,
            Err(e) => tracing::debug!(error = %e, "reconnect failed; retrying"),
        }
    }
}

/// Reads and publishes every event after the hub's cursor.
async fn catch_up(daemon: &Daemon) -> askd_store::StoreResult<()> {
    loop {
        let after = daemon.hub.followed_to().unwrap_or(0);
        let batch = daemon.store.events_after(after, PAGE).await?;
        if batch.is_empty() {
            return Ok(());
        }
        let full = batch.len() == PAGE as usize;
        let settings_changed = batch.iter().any(|e| e.kind == EventKind::SettingsUpdated);
        daemon.hub.publish_followed(batch);
        if settings_changed {
            // Another daemon's save (or this one's: reloading it is harmless).
            daemon.load_saved_settings().await;
            daemon.devices.load(daemon.store.as_ref()).await;
            daemon.members.load(daemon.store.as_ref()).await;
            // A member or device revoked through another daemon: end its open streams.
            daemon.people_changed();
        }
        if !full {
            return Ok(());
        }
    }
}

/// Starts following: the hub's cursor at the store's last event (read after `events`
/// listens, so nothing falls between), then [`run`] in a task.
pub async fn start(
    daemon: Arc<Daemon>,
    events: PgEvents,
    stop: watch::Receiver<bool>,
) -> Result<(), String> {
    let last = daemon
        .store
        .last_event()
        .await
        .map_err(|e| format!("cannot read the database's last event: {e}"))?;
    daemon.hub.start_following(last);
    tokio::spawn(run(daemon, events, stop));
    Ok(())
}

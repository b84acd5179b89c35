//! Every lock the daemon takes besides the store's own, in one place, held by
//! [`crate::daemon::Daemon`] (one set per daemon, never process-wide).
//!
//! - **Session** ([`Locks::session`]): serialises one session's alignment writes
//!   (`alignment.md` §4.7) — `report_drift`, `establish_baseline`, continuing and forking a
//!   session — so the fold a write is planned against cannot change before it commits.
//!   Entries nobody holds are dropped on the next lock.
//! - **Draft** ([`Locks::draft`]): every operation on one builder draft (`survey.md` §10);
//!   entries are tiny and drafts never expire, so they stay.
//! - **Draft begin** ([`Locks::draft_begin`]): held by `begin` from picking a free slug until
//!   the draft is registered.
//! - **Review settle** ([`Locks::review_settle`]): one per review being settled (the persist
//!   file of a losing submit is never written); dropped once the review has settled
//!   ([`Locks::review_settled`]).
//! - **Settings save** ([`Locks::settings_save`]): one save of the Settings page at a time,
//!   so the values applied last are the ones saved last.
//!
//! Lock order, outermost first: draft begin → draft → session → review settle; the settings
//! lock is never held with another.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// An async lock handed out per key.
pub type KeyLock = Arc<tokio::sync::Mutex<()>>;

type KeyLocks = Mutex<HashMap<String, KeyLock>>;

/// The daemon's locks (see the module documentation).
#[derive(Debug, Default)]
pub struct Locks {
    sessions: KeyLocks,
    drafts: KeyLocks,
    draft_begin: tokio::sync::Mutex<()>,
    review_settle: KeyLocks,
    settings_save: tokio::sync::Mutex<()>,
}

fn entry(map: &KeyLocks, key: &str) -> KeyLock {
    map.lock()
        .unwrap_or_else(|p| p.into_inner())
        .entry(key.to_string())
        .or_default()
        .clone()
}

impl Locks {
    /// Waits for and holds the lock of `session`'s alignment writes.
    pub async fn session(&self, session: &str) -> tokio::sync::OwnedMutexGuard<()> {
        let lock = {
            let mut map = self.sessions.lock().unwrap_or_else(|p| p.into_inner());
            map.retain(|_, l| Arc::strong_count(l) > 1);
            map.entry(session.to_string()).or_default().clone()
        };
        lock.lock_owned().await
    }

    /// The lock of the draft `slug`.
    pub fn draft(&self, slug: &str) -> KeyLock {
        entry(&self.drafts, slug)
    }

    /// Waits for and holds the lock `begin` takes while it picks a free slug.
    pub async fn draft_begin(&self) -> tokio::sync::MutexGuard<'_, ()> {
        self.draft_begin.lock().await
    }

    /// The settle lock of the review `ask_id`.
    pub fn review_settle(&self, ask_id: &str) -> KeyLock {
        entry(&self.review_settle, ask_id)
    }

    /// The review `ask_id` has settled: its settle lock is no longer needed.
    pub fn review_settled(&self, ask_id: &str) {
        self.review_settle
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .remove(ask_id);
    }

    /// Waits for and holds the Settings page's save lock.
    pub async fn settings_save(&self) -> tokio::sync::MutexGuard<'_, ()> {
        self.settings_save.lock().await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn each_daemon_has_its_own_locks() {
        let (a, b) = (Locks::default(), Locks::default());
        let _held = a.session("s").await;
        // Another daemon's lock on the same session id is free.
        let free = tokio::time::timeout(std::time::Duration::from_millis(50), b.session("s")).await;
        assert!(free.is_ok());
        // The same daemon's is not.
        let busy = tokio::time::timeout(std::time::Duration::from_millis(50), a.session("s")).await;
        assert!(busy.is_err());
    }
}

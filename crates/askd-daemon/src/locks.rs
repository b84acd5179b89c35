//! Every lock the daemon takes besides the store's own, in one place, held by
//! [`crate::daemon::Daemon`] (one set per daemon, never process-wide).
//!
//! - **Session** ([`Locks::session`]): serialises one session's alignment writes
//!   (`alignment.md` §4.7) — `report_drift`, `establish_baseline`, continuing and forking a
//!   session — so the fold a write is planned against cannot change before it commits. On a
//!   database shared by several daemons (team mode) it is the database's lock too.
//!   Entries nobody holds are dropped on the next lock.
//! - **Draft** ([`Locks::draft`]): every operation on one builder draft (`survey.md` §10);
//!   entries are tiny and drafts never expire, so they stay. On a shared database it is the
//!   database's lock `draft:<slug>` too.
//! - **Draft begin** ([`Locks::draft_begin`]): held by `begin` from picking a free slug until
//!   the draft is registered; on a shared database the database's lock `draft-begin` too.
//! - **Review settle** ([`Locks::review_settle`]): one per review being settled (the persist
//!   file of a losing submit is never written); dropped once the review has settled
//!   ([`Locks::review_settled`]).
//! - **Settings save** ([`Locks::settings_save`]): one save of the Settings page at a time,
//!   so the values applied last are the ones saved last.
//! - **Pairing** ([`Locks::pairing`]): making or spending a pairing code
//!   (`crate::devices`), so a code is spent once; on a shared database the database's lock
//!   `pairing` too (the codes live in the store, any daemon may redeem one).
//!
//! Lock order, outermost first: draft begin → draft → session → review settle; the settings
//! and pairing locks are never held with another. Each lock that has a database part takes
//! this daemon's part first, then the database's, so the daemons agree on the order too.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use askd_store::{Store, StoreResult};

/// A held lock: this daemon's and, on a shared database, the database's (released in that
/// order reversed: the database's first).
pub struct Held {
    _shared: Option<Box<dyn askd_store::Held>>,
    _local: tokio::sync::OwnedMutexGuard<()>,
}

/// An async lock handed out per key.
pub type KeyLock = Arc<tokio::sync::Mutex<()>>;

type KeyLocks = Mutex<HashMap<String, KeyLock>>;

/// The daemon's locks (see the module documentation).
#[derive(Debug, Default)]
pub struct Locks {
    sessions: KeyLocks,
    drafts: KeyLocks,
    draft_begin: KeyLock,
    review_settle: KeyLocks,
    settings_save: tokio::sync::Mutex<()>,
    pairing: KeyLock,
}

/// Holds `local`, then the database's lock `key` ([`LockStore::hold`]).
async fn both(local: KeyLock, store: &dyn Store, key: &str) -> StoreResult<Held> {
    let local = local.lock_owned().await;
    let shared = store.hold(key).await?;
    Ok(Held {
        _shared: shared,
        _local: local,
    })
}

fn entry(map: &KeyLocks, key: &str) -> KeyLock {
    map.lock()
        .unwrap_or_else(|p| p.into_inner())
        .entry(key.to_string())
        .or_default()
        .clone()
}

impl Locks {
    /// Waits for and holds the lock of `session`'s alignment writes: this daemon's, then the
    /// database's ([`LockStore::hold`]: other daemons on a shared database wait too).
    pub async fn session(&self, store: &dyn Store, session: &str) -> StoreResult<Held> {
        let lock = {
            let mut map = self.sessions.lock().unwrap_or_else(|p| p.into_inner());
            map.retain(|_, l| Arc::strong_count(l) > 1);
            map.entry(session.to_string()).or_default().clone()
        };
        both(lock, store, &format!("session:{session}")).await
    }

    /// Waits for and holds the lock of the draft `slug`: this daemon's, then the database's.
    pub async fn draft(&self, store: &dyn Store, slug: &str) -> StoreResult<Held> {
        both(entry(&self.drafts, slug), store, &format!("draft:{slug}")).await
    }

    /// Waits for and holds the lock `begin` takes while it picks a free slug: this daemon's,
    /// then the database's.
    pub async fn draft_begin(&self, store: &dyn Store) -> StoreResult<Held> {
        both(self.draft_begin.clone(), store, "draft-begin").await
    }

    /// Waits for and holds the pairing lock: this daemon's, then the database's.
    pub async fn pairing(&self, store: &dyn Store) -> StoreResult<Held> {
        both(self.pairing.clone(), store, "pairing").await
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

    /// On a database of its own (SQLite) a daemon's locks are its own: another daemon's
    /// (another data directory's) on the same session id is free. On a shared PostgreSQL
    /// database the store's `hold` joins them (askd-store's `tests/it/pg.rs`).
    #[tokio::test]
    async fn each_daemon_has_its_own_locks() {
        let (da, db) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        let sa = askd_store::SqliteStore::open(&da.path().join("askd.db"))
            .await
            .unwrap();
        let sb = askd_store::SqliteStore::open(&db.path().join("askd.db"))
            .await
            .unwrap();
        let (a, b) = (Locks::default(), Locks::default());
        let _held = a.session(&sa, "s").await.unwrap();
        let wait = std::time::Duration::from_millis(50);
        let free = tokio::time::timeout(wait, b.session(&sb, "s")).await;
        assert!(free.is_ok());
        // The same daemon's is not.
        let busy = tokio::time::timeout(wait, a.session(&sa, "s")).await;
        assert!(busy.is_err());
    }
}

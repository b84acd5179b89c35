//! Named cursors over the event log (table `cursors`): how far a team role has read the
//! events, kept in the shared database so the daemon that takes the role over goes on from
//! there. The notifier's (`notifier`) lets the next holder announce the asks its predecessor
//! had not announced yet, and none twice (issue 32's handover gap).

use async_trait::async_trait;

use crate::db::{args, job};
use crate::shared::Backend;
use crate::{StoreResult, now};

/// Named cursors (see the module documentation).
#[async_trait]
pub trait CursorStore: Send + Sync {
    /// Cursor `name`: the last event seq recorded under it; `None` before the first.
    async fn cursor(&self, name: &str) -> StoreResult<Option<i64>>;

    /// Moves cursor `name` to `seq` when that is further on (never back: two holders
    /// overlapping for a moment cannot rewind it).
    async fn advance_cursor(&self, name: &str, seq: i64) -> StoreResult<()>;
}

#[async_trait]
impl<B: Backend> CursorStore for B {
    async fn cursor(&self, name: &str) -> StoreResult<Option<i64>> {
        let name = name.to_string();
        self.read(job(move |mut db| {
            Box::pin(async move {
                let row = db
                    .fetch_optional(
                        "SELECT CAST(seq AS BIGINT) AS seq FROM cursors WHERE name = ?1",
                        args![&name],
                    )
                    .await?;
                row.map(|r| r.get::<i64>("seq")).transpose()
            })
        }))
        .await
    }

    async fn advance_cursor(&self, name: &str, seq: i64) -> StoreResult<()> {
        let name = name.to_string();
        self.write(job(move |mut db| {
            Box::pin(async move {
                db.execute(
                    "INSERT INTO cursors (name, seq, updated_at) VALUES (?1, ?2, ?3)
                     ON CONFLICT (name) DO UPDATE SET seq = excluded.seq, updated_at = excluded.updated_at
                     WHERE cursors.seq < excluded.seq",
                    args![&name, seq, now()],
                )
                .await?;
                Ok(())
            })
        }))
        .await
    }
}

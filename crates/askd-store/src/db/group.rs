//! Group commit, written once for both backends: a backend's one writer task takes every
//! write queued while the last transaction committed and runs them in one transaction, each
//! inside its own savepoint (a failing write rolls back alone), then commits once — one
//! flush for the lot — before any of them is acknowledged. A lone write runs bare (no
//! savepoint), so its latency is that of a plain transaction. Durability is the same as one
//! transaction per write: nothing is acknowledged before its commit is on disk.

use tokio::sync::{mpsc, oneshot};

use super::{BoxFuture, Db, Job};
use crate::{StoreError, StoreResult};

/// Most writes one group commit takes.
pub(crate) const MAX_BATCH: usize = 128;

/// Delivers a write's outcome once its transaction's commit is known.
pub(crate) type Reply = Box<dyn FnOnce(StoreResult<()>) + Send>;

/// One queued write (see [`queue`]).
pub(crate) trait Write: Send {
    /// Runs the write on the batch's transaction; says whether it succeeded, and how to
    /// answer its caller once the commit is known.
    fn run<'c>(self: Box<Self>, db: Db<'c>) -> BoxFuture<'c, (bool, Reply)>;
    /// Answers the caller without running (the transaction could not begin).
    fn refuse(self: Box<Self>, e: StoreError);
}

pub(crate) type Queued = Box<dyn Write>;

struct Pending<T> {
    job: Job<T>,
    done: oneshot::Sender<StoreResult<T>>,
}

impl<T: Send + 'static> Write for Pending<T> {
    fn run<'c>(self: Box<Self>, db: Db<'c>) -> BoxFuture<'c, (bool, Reply)> {
        let Pending { job, done } = *self;
        Box::pin(async move {
            let r = job(db).await;
            let ok = r.is_ok();
            // A write that failed reports its own error (a conflict, a full disk) even when
            // the batch's commit failed too.
            let reply: Reply = Box::new(move |commit| {
                let _ = done.send(r.and_then(|v| commit.map(|()| v)));
            });
            (ok, reply)
        })
    }

    fn refuse(self: Box<Self>, e: StoreError) {
        let _ = self.done.send(Err(e));
    }
}

/// A job as the writer task takes it, and where its outcome arrives.
pub(crate) fn queue<T: Send + 'static>(job: Job<T>) -> (Queued, oneshot::Receiver<StoreResult<T>>) {
    let (done, result) = oneshot::channel();
    (Box::new(Pending { job, done }), result)
}

/// The outcome a caller waits for, or why none will come.
pub(crate) async fn outcome<T>(result: oneshot::Receiver<StoreResult<T>>) -> StoreResult<T> {
    result
        .await
        .map_err(|_| StoreError::Backend("the store's writer stopped".into()))?
}

/// `first` and the writes queued behind it, up to [`MAX_BATCH`]. A message that is not a
/// write (`as_write` gives it back) ends the batch and is returned to handle next.
pub(crate) fn gather<W>(
    first: Queued,
    rx: &mut mpsc::Receiver<W>,
    as_write: impl Fn(W) -> Result<Queued, W>,
) -> (Vec<Queued>, Option<W>) {
    let mut batch = vec![first];
    while batch.len() < MAX_BATCH {
        match rx.try_recv() {
            Ok(w) => match as_write(w) {
                Ok(job) => batch.push(job),
                Err(other) => return (batch, Some(other)),
            },
            Err(_) => break,
        }
    }
    (batch, None)
}

/// Runs `batch` on the open transaction `db`: whether the transaction should be committed,
/// and the replies, to answer once the commit is known. `false` (roll back, and answer every
/// reply with an error) when a lone write failed, or a savepoint statement did (the
/// connection broke: the writes after it are refused).
pub(crate) async fn run(mut db: Db<'_>, mut batch: Vec<Queued>) -> (bool, Vec<Reply>) {
    let mut replies = Vec::with_capacity(batch.len());
    if batch.len() == 1
        && let Some(job) = batch.pop()
    {
        let (ok, reply) = job.run(db.reborrow()).await;
        replies.push(reply);
        return (ok, replies);
    }
    let mut healthy = true;
    for (i, job) in batch.into_iter().enumerate() {
        // One round trip between two writes: the last one's savepoint released, the next
        // one's taken. COMMIT releases the last.
        let step = if i == 0 {
            "SAVEPOINT w"
        } else {
            "RELEASE w; SAVEPOINT w"
        };
        if healthy && db.raw(step).await.is_err() {
            healthy = false;
        }
        if !healthy {
            job.refuse(StoreError::Backend(
                "the write transaction failed before this write ran".into(),
            ));
            continue;
        }
        let (ok, reply) = job.run(db.reborrow()).await;
        if !ok && db.raw("ROLLBACK TO w").await.is_err() {
            healthy = false;
        }
        replies.push(reply);
    }
    (healthy, replies)
}

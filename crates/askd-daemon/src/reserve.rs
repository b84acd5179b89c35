//! Space held back so `askd serve` can start on a full disk.
//!
//! A daemon that comes up while the disk holding its data directory is full must still serve
//! reads (and refuse writes with `507 storage-full`), but starting needs a little space of its
//! own: SQLite's `-shm` index (32 KiB, created when the database is opened after a clean
//! stop removed it) and `daemon.json`, the discovery file clients read (rewritten at every
//! start, removed at every stop). So every start that finds room keeps a file of
//! [`RESERVE_BYTES`] real (not sparse) bytes, `reserve`, in the data directory. A start that
//! hits a full disk opening the store or writing `daemon.json` deletes the reserve — giving
//! those few pages back — and tries once more; the next start with room recreates it.
//! Nothing else ever uses the space, and a write that then finds the disk full again is
//! refused with the same 507.

use std::io::Write;
use std::path::{Path, PathBuf};

/// How much is held back: the `-shm` index and `daemon.json` with a wide margin.
pub const RESERVE_BYTES: usize = 256 * 1024;

pub fn path(data_dir: &Path) -> PathBuf {
    data_dir.join("reserve")
}

/// Creates the reserve when it is missing or short; best effort (a full disk just leaves it
/// missing until a later start).
pub fn ensure(data_dir: &Path) {
    let p = path(data_dir);
    if std::fs::metadata(&p).is_ok_and(|m| m.len() >= RESERVE_BYTES as u64) {
        return;
    }
    let made = (|| -> std::io::Result<()> {
        let mut f = std::fs::File::create(&p)?;
        f.write_all(&vec![0u8; RESERVE_BYTES])?;
        f.sync_all()
    })();
    if let Err(e) = made {
        let _ = std::fs::remove_file(&p);
        tracing::warn!(error = %e, "cannot keep the start-up reserve in the data directory");
    }
}

/// Gives the reserve back to the file system; whether there was one.
pub fn release(data_dir: &Path) -> bool {
    let released = std::fs::remove_file(path(data_dir)).is_ok();
    if released {
        tracing::warn!(
            "the disk holding the data directory is full: released the start-up reserve to start; writes are refused until space is freed"
        );
    }
    released
}

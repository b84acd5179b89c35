//! The daemon's one way to replace a file atomically: the review's `persist` file, the
//! builder's draft files, workspace records, `daemon.json` and the token file all go through
//! [`write`].
//!
//! The temporary file is created beside the target with `O_CREAT | O_EXCL` (`create_new`)
//! under a name with 16 random characters (`tempfile`, reseeded from the OS's generator), so
//! nothing planted in the directory — a symlink under a guessed name included — is ever
//! opened or followed: a name that exists is skipped, never reused. The file is flushed,
//! renamed over the target (a rename replaces a symlink at the target, it does not follow
//! it), and the directory is flushed. On any failure the temporary file is removed.

use std::io::Write;
use std::path::Path;

use tempfile::NamedTempFile;

/// The random characters in a temporary name.
const RANDOM_CHARS: usize = 16;

/// Replaces `path` with `bytes`. `mode` is the new file's permission bits before the umask
/// (`0o666` for ordinary files, `0o600` for secrets); ignored off Unix.
pub fn write(path: &Path, bytes: &[u8], mode: u32) -> std::io::Result<()> {
    let dir = parent(path);
    let mut tmp = temp_beside(path, mode)?;
    tmp.write_all(bytes)?;
    tmp.as_file().sync_all()?;
    tmp.persist(path).map_err(|e| e.error)?;
    if let Ok(d) = std::fs::File::open(dir) {
        let _ = d.sync_all();
    }
    Ok(())
}

fn parent(path: &Path) -> &Path {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    }
}

/// A new, empty temporary file in `path`'s directory, named `.<file name>.<random>.tmp`.
fn temp_beside(path: &Path, mode: u32) -> std::io::Result<NamedTempFile> {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let prefix = format!(".{name}.");
    let mut b = tempfile::Builder::new();
    b.prefix(&prefix).suffix(".tmp").rand_bytes(RANDOM_CHARS);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        b.permissions(std::fs::Permissions::from_mode(mode));
    }
    #[cfg(not(unix))]
    let _ = mode;
    b.tempfile_in(parent(path))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The names cannot be predicted: no pid, 16 random characters, never twice the same.
    #[test]
    fn temporary_names_are_random_and_exclusive() {
        let dir = tempfile::TempDir::new().unwrap();
        let target = dir.path().join("result.json");
        let pid = std::process::id().to_string();
        let mut names = std::collections::HashSet::new();
        let held: Vec<NamedTempFile> = (0..50)
            .map(|_| temp_beside(&target, 0o666).unwrap())
            .collect();
        for t in &held {
            let n = t.path().file_name().unwrap().to_string_lossy().into_owned();
            let random = n
                .strip_prefix(".result.json.")
                .and_then(|r| r.strip_suffix(".tmp"))
                .unwrap_or_else(|| panic!("unexpected temporary name {n}"));
            assert_eq!(random.chars().count(), RANDOM_CHARS, "{n}");
            assert_ne!(random, pid, "{n}");
            assert!(names.insert(n.clone()), "{n} was produced twice");
        }
        // A symlink planted where the old code wrote (`.<name>.<pid>.tmp`) is left alone.
        let outside = tempfile::TempDir::new().unwrap();
        let victim = outside.path().join("victim");
        std::fs::write(&victim, "untouched").unwrap();
        let planted = dir.path().join(format!(".result.json.{pid}.tmp"));
        std::os::unix::fs::symlink(&victim, &planted).unwrap();
        write(&target, b"{}\n", 0o666).unwrap();
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "{}\n");
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "untouched");
        assert!(planted.symlink_metadata().unwrap().file_type().is_symlink());
    }

    #[cfg(unix)]
    #[test]
    fn secrets_are_created_private() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::TempDir::new().unwrap();
        let target = dir.path().join("token");
        write(&target, b"secret", 0o600).unwrap();
        let mode = std::fs::metadata(&target).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
    }
}

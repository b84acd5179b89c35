//! The files the daemon writes for its clients: `daemon.json` and the token; and the
//! install's signing key, which the MCP surface keeps.

use std::path::Path;

use crate::paths::{daemon_json_path, signing_key_path, token_path};

/// The `daemon.json` of a running daemon.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct DaemonInfo {
    pub url: String,
    pub pid: u32,
    pub version: String,
    #[serde(rename = "startedAt")]
    pub started_at: String,
}

/// Reads `daemon.json`, if a daemon wrote one.
pub fn read_daemon_info(data_dir: &Path) -> Option<DaemonInfo> {
    let text = std::fs::read_to_string(daemon_json_path(data_dir)).ok()?;
    serde_json::from_str(&text).ok()
}

/// Reads an existing token (for clients: the CLI, the MCP adapter, the terminal UI).
pub fn read_token(data_dir: &Path) -> std::io::Result<String> {
    Ok(std::fs::read_to_string(token_path(data_dir))?
        .trim()
        .to_string())
}

/// The install's signing key (`signing.key`: 32 random bytes as hex, mode 0600), created
/// when missing. The MCP surface signs what its clients echo back with it (a 2026-07-28
/// `requestState`, an MCP App's ask handle); it never leaves this machine's data directory.
///
/// Creating it is race-free: the key is written whole to a temporary file, then linked to
/// its name (`link` refuses an existing name), so two processes starting at once both read
/// the one key that won.
pub fn load_or_create_signing_key(data_dir: &Path) -> std::io::Result<Vec<u8>> {
    let path = signing_key_path(data_dir);
    if let Some(key) = read_signing_key(&path)? {
        return Ok(key);
    }
    std::fs::create_dir_all(data_dir)?;
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes).map_err(|e| std::io::Error::other(e.to_string()))?;
    let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    // A temporary name of its own (never derived from the key).
    let mut nonce = [0u8; 8];
    getrandom::fill(&mut nonce).map_err(|e| std::io::Error::other(e.to_string()))?;
    let tmp = data_dir.join(format!(
        ".signing.key.{}.{:x}",
        std::process::id(),
        u64::from_le_bytes(nonce)
    ));
    write_private(&tmp, hex.as_bytes())?;
    let linked = std::fs::hard_link(&tmp, &path);
    let _ = std::fs::remove_file(&tmp);
    match linked {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
        Err(e) => return Err(e),
    }
    read_signing_key(&path)?.ok_or_else(|| {
        std::io::Error::other(format!("{} does not hold a signing key", path.display()))
    })
}

/// The key in `path`, `None` when there is no file (an unreadable or short one is an error).
fn read_signing_key(path: &Path) -> std::io::Result<Option<Vec<u8>>> {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e),
    };
    let text = text.trim();
    let key: Option<Vec<u8>> = (text.len() >= 64 && text.len() % 2 == 0)
        .then(|| {
            (0..text.len())
                .step_by(2)
                .map(|i| u8::from_str_radix(text.get(i..i + 2)?, 16).ok())
                .collect()
        })
        .flatten();
    key.map(Some).ok_or_else(|| {
        std::io::Error::other(format!(
            "{} is not a signing key (64 or more hex digits); remove it and askd makes a new one",
            path.display()
        ))
    })
}

#[cfg(unix)]
fn write_private(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::Write;
    use std::os::unix::fs::OpenOptionsExt;
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(path)?;
    f.write_all(bytes)?;
    f.sync_all()
}

#[cfg(not(unix))]
fn write_private(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    std::fs::write(path, bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_signing_key_is_made_once_private_and_read_back() {
        let dir = tempfile_dir();
        let a = load_or_create_signing_key(&dir).unwrap();
        assert_eq!(a.len(), 32);
        let b = load_or_create_signing_key(&dir).unwrap();
        assert_eq!(a, b);
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(signing_key_path(&dir))
                .unwrap()
                .permissions()
                .mode();
            assert_eq!(mode & 0o777, 0o600);
        }
        // No temporary file is left behind.
        let names: Vec<_> = std::fs::read_dir(&dir).unwrap().flatten().collect();
        assert_eq!(names.len(), 1, "{names:?}");
        std::fs::write(signing_key_path(&dir), "short").unwrap();
        assert!(load_or_create_signing_key(&dir).is_err());
        let _ = std::fs::remove_dir_all(&dir);
    }

    fn tempfile_dir() -> std::path::PathBuf {
        let mut bytes = [0u8; 8];
        getrandom::fill(&mut bytes).unwrap();
        let dir = std::env::temp_dir().join(format!("askd-key-{:x}", u64::from_le_bytes(bytes)));
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }
}

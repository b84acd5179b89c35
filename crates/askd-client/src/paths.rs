//! Where askd keeps its data and reads its config, and the files in the data directory.

use std::collections::HashMap;
use std::fmt;
use std::path::{Path, PathBuf};

use serde::Serialize;

/// Env var that relocates the whole install (data dir and config file).
pub const ASKD_HOME_VAR: &str = "ASKD_HOME";
/// Name of the config file.
pub const CONFIG_FILE_NAME: &str = "askd.toml";

/// The data directory or config file cannot be found. One line, naming what to set.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PathsError {
    message: String,
}

impl PathsError {
    fn new(message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
        }
    }

    pub fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for PathsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for PathsError {}

/// Where askd keeps its data and reads its config.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Paths {
    pub data_dir: PathBuf,
    pub config_file: PathBuf,
}

impl Paths {
    /// Both in `home`, as with `ASKD_HOME=home`.
    pub fn in_home(home: impl Into<PathBuf>) -> Self {
        let home = home.into();
        Self {
            config_file: home.join(CONFIG_FILE_NAME),
            data_dir: home,
        }
    }

    /// Pure resolution: `$ASKD_HOME` (when set and non-empty) holds both the data and the
    /// config file; otherwise `<platform data dir>/askd` and `<platform config dir>/askd/askd.toml`.
    pub fn resolve(
        env: &HashMap<String, String>,
        platform_data_dir: Option<PathBuf>,
        platform_config_dir: Option<PathBuf>,
    ) -> Result<Self, PathsError> {
        if let Some(home) = env.get(ASKD_HOME_VAR).filter(|h| !h.is_empty()) {
            return Ok(Self::in_home(home));
        }
        let data = platform_data_dir.ok_or_else(|| {
            PathsError::new(
                "cannot find the platform data directory — set ASKD_HOME to the directory askd should use",
            )
        })?;
        let config = platform_config_dir.ok_or_else(|| {
            PathsError::new(
                "cannot find the platform config directory — set ASKD_HOME to the directory askd should use",
            )
        })?;
        Ok(Self {
            data_dir: data.join("askd"),
            config_file: config.join("askd").join(CONFIG_FILE_NAME),
        })
    }

    /// Resolution from the real environment and `dirs`; a relative `ASKD_HOME` is made
    /// absolute against the current directory.
    pub fn from_process() -> Result<Self, PathsError> {
        let env = process_env();
        let mut paths = Self::resolve(&env, dirs::data_dir(), dirs::config_dir())?;
        if let Ok(abs) = std::path::absolute(&paths.data_dir) {
            paths.data_dir = abs;
        }
        if let Ok(abs) = std::path::absolute(&paths.config_file) {
            paths.config_file = abs;
        }
        Ok(paths)
    }

    /// The SQLite database.
    pub fn db_file(&self) -> PathBuf {
        database_path(&self.data_dir)
    }

    /// The install's secret token (mode 0600).
    pub fn token_file(&self) -> PathBuf {
        token_path(&self.data_dir)
    }

    /// The running daemon's URL and pid.
    pub fn daemon_json(&self) -> PathBuf {
        daemon_json_path(&self.data_dir)
    }

    /// The clients' start lock (prevents two clients starting two daemons).
    pub fn start_lock(&self) -> PathBuf {
        start_lock_path(&self.data_dir)
    }
}

/// The process environment (entries that are not valid UTF-8 are skipped).
pub fn process_env() -> HashMap<String, String> {
    std::env::vars_os()
        .filter_map(|(k, v)| Some((k.into_string().ok()?, v.into_string().ok()?)))
        .collect()
}

/// The install's secret token.
pub fn token_path(data_dir: &Path) -> PathBuf {
    data_dir.join("token")
}

/// The install's signing key (mode 0600): what the MCP surface signs and checks the values
/// its clients echo back with (a 2026-07-28 `requestState`, an MCP App's ask handle).
pub fn signing_key_path(data_dir: &Path) -> PathBuf {
    data_dir.join("signing.key")
}

/// The running daemon's `daemon.json` ([`crate::DaemonInfo`]).
pub fn daemon_json_path(data_dir: &Path) -> PathBuf {
    data_dir.join("daemon.json")
}

/// The SQLite database.
pub fn database_path(data_dir: &Path) -> PathBuf {
    data_dir.join("askd.db")
}

/// The daemon's exclusive lock on its data directory (held for the daemon's whole life).
pub fn data_lock_path(data_dir: &Path) -> PathBuf {
    data_dir.join("daemon.lock")
}

/// The clients' start lock ([`crate::start`]).
pub fn start_lock_path(data_dir: &Path) -> PathBuf {
    data_dir.join("start.lock")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_data_directory_holds_the_shared_files() {
        let p = Paths::in_home("/h");
        assert_eq!(p.config_file, Path::new("/h/askd.toml"));
        assert_eq!(p.token_file(), Path::new("/h/token"));
        assert_eq!(p.daemon_json(), Path::new("/h/daemon.json"));
        assert_eq!(p.db_file(), Path::new("/h/askd.db"));
        assert_eq!(p.start_lock(), Path::new("/h/start.lock"));
        assert_eq!(data_lock_path(&p.data_dir), Path::new("/h/daemon.lock"));
    }
}

//! askd's configuration (platform.md §9): the `askd.toml` file, `ASKD_*` environment
//! variables and `--*` flags, merged flag > env > file > built-in default, with the same
//! validation whatever the source; plus the data directory and the files it holds.
//!
//! Resolution is a pure function ([`load`]) over an explicit env map, flag list and file
//! text; [`load_from_process`] is the thin wrapper that reads the real ones.
//!
//! # Layout
//! - this file — the data directory's [`Paths`], the ranges and defaults, [`ConfigError`].
//! - `model` — the effective [`Config`]: its tables, enums and the resolved language.
//! - `keys` — the key table (name, table, env var, flag, kind of each key) and the
//!   [`Origins`] of the keys.
//! - `validate` — one value of one key from any source, checked the same way.
//! - `saved` — the `[notify]` keys saved from the Settings page, checked as any source.
//! - `load` — the layers (file, env, flags) merged into a [`Config`], pure and from the
//!   process.

use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::ops::RangeInclusive;
use std::path::Path;
use std::time::Duration;

use serde::Serialize;

mod keys;
mod load;
mod model;
mod saved;
#[cfg(test)]
mod tests;
mod validate;

#[allow(unused_imports)]
use keys::*;
pub use keys::{KeyDoc, Origin, Origins, env_names, flag_names, key_docs};
pub use load::{
    load, load_from_process, load_from_process_with_origins, load_with_origins, process_env,
};
pub use model::*;
pub use saved::{NOTIFY_SAVED, SavedProblem, notify_value, notify_with_saved};
#[allow(unused_imports)]
use validate::*;

/// The environment as a plain map (name → value).
pub type Env = HashMap<String, String>;

/// The documented default bind address (platform.md §1).
pub const DEFAULT_LISTEN: SocketAddr =
    SocketAddr::new(IpAddr::V4(Ipv4Addr::new(127, 0, 0, 1)), 7391);

/// `maxWait` in seconds (absent = unlimited).
pub const MAX_WAIT_RANGE: RangeInclusive<u64> = 1..=86_400;
/// `maxBodyBytes` (review.md §7.2: 1 KiB – 128 MiB).
pub const MAX_BODY_BYTES_RANGE: RangeInclusive<u64> = 1_024..=134_217_728;
pub const DEFAULT_MAX_BODY_BYTES: u64 = 64 * 1024 * 1024;
/// `idleExit` in seconds (0 = never).
pub const IDLE_EXIT_RANGE: RangeInclusive<u64> = 0..=2_592_000;
/// `[survey] structureQuestionCap` (survey.md §10.4).
pub const STRUCTURE_QUESTION_CAP_RANGE: RangeInclusive<u64> = 1..=151;
pub const DEFAULT_STRUCTURE_QUESTION_CAP: u32 = 40;
/// `[batch_review] maxItems` (review.md §7.2).
pub const MAX_ITEMS_RANGE: RangeInclusive<u64> = 1..=500;
pub const DEFAULT_MAX_ITEMS: u32 = 100;
/// `[batch_review] virtualThreshold` (review.md §7.2).
pub const VIRTUAL_THRESHOLD_RANGE: RangeInclusive<u64> = 50..=2_000;
pub const DEFAULT_VIRTUAL_THRESHOLD: u32 = 500;
/// `[alignment] section` limit in bytes (alignment.md §3.3: 32 KiB).
pub const SECTION_MAX_BYTES: usize = 32 * 1024;
/// Longest accepted entry of `allowedHosts` (a DNS name).
const HOST_MAX_LEN: usize = 253;

/// A configuration problem. The message is one line and names the source (file path and
/// key, env var, or flag) and the allowed values or range.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigError {
    message: String,
}

impl ConfigError {
    fn new(message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
        }
    }

    pub fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for ConfigError {}

// The data directory and the config file are found the way every client finds them
// (`askd-client`): re-exported here so the configuration's callers keep one import.
pub use askd_client::paths::{ASKD_HOME_VAR, CONFIG_FILE_NAME, Paths, PathsError};

impl From<PathsError> for ConfigError {
    fn from(e: PathsError) -> Self {
        ConfigError::new(e.message())
    }
}

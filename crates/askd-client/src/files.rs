//! The files the daemon writes for its clients: `daemon.json` and the token.

use std::path::Path;

use crate::paths::{daemon_json_path, token_path};

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

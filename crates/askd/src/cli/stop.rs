//! `askd stop`: stops this install's daemon (the one `daemon.json` in the data directory
//! names) cleanly, as SIGTERM does — it finishes what it is doing, checkpoints the database
//! and removes `daemon.json` — and waits until it has. The pid is signalled only when the
//! daemon at `daemon.json`'s URL answers its health check with this install's token, so a
//! stale file never gets another process killed.

use std::process::ExitCode;
use std::time::{Duration, Instant};

use askd_client::Paths;

use super::EXIT_USAGE;

/// How long a stopping daemon gets to remove `daemon.json`.
const STOP_TIMEOUT: Duration = Duration::from_secs(15);

pub fn run() -> ExitCode {
    let paths = match Paths::from_process() {
        Ok(p) => p,
        Err(e) => {
            eprintln!("askd stop: {e}");
            return ExitCode::from(EXIT_USAGE);
        }
    };
    let Some(info) = askd_client::read_daemon_info(&paths.data_dir) else {
        println!(
            "askd stop: no daemon is running for {} (no daemon.json)",
            paths.data_dir.display()
        );
        return ExitCode::SUCCESS;
    };
    let runtime = match tokio::runtime::Runtime::new() {
        Ok(r) => r,
        Err(e) => {
            eprintln!("askd stop: cannot start the async runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    if runtime.block_on(askd_client::answering(&paths)).is_none() {
        eprintln!(
            "askd stop: {} names pid {} at {}, but no daemon answers there: it was killed or is still starting. If no askd process runs, remove that file.",
            paths.daemon_json().display(),
            info.pid,
            info.url
        );
        return ExitCode::FAILURE;
    }
    if let Err(e) = terminate(info.pid) {
        eprintln!("askd stop: cannot signal pid {}: {e}", info.pid);
        return ExitCode::FAILURE;
    }
    let deadline = Instant::now() + STOP_TIMEOUT;
    while askd_client::read_daemon_info(&paths.data_dir).is_some_and(|i| i.pid == info.pid) {
        if Instant::now() > deadline {
            eprintln!(
                "askd stop: the daemon (pid {}) did not stop within {}s — see {}",
                info.pid,
                STOP_TIMEOUT.as_secs(),
                paths.data_dir.join("daemon.log").display()
            );
            return ExitCode::FAILURE;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    println!(
        "askd stop: stopped the daemon at {} (pid {})",
        info.url, info.pid
    );
    ExitCode::SUCCESS
}

/// SIGTERM to `pid`, through the system's `kill` (the workspace forbids unsafe code).
#[cfg(unix)]
fn terminate(pid: u32) -> Result<(), String> {
    let status = std::process::Command::new("kill")
        .args(["-TERM", &pid.to_string()])
        .status()
        .map_err(|e| format!("cannot run kill: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("kill exited with {status}"))
    }
}

#[cfg(not(unix))]
fn terminate(pid: u32) -> Result<(), String> {
    let status = std::process::Command::new("taskkill")
        .args(["/PID", &pid.to_string()])
        .status()
        .map_err(|e| format!("cannot run taskkill: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("taskkill exited with {status}"))
    }
}

//! `askd serve` and `askd doctor`.

use std::process::ExitCode;

use askd_daemon::Settings;
use askd_daemon::config::{self, Paths};
use serde_json::json;

use super::flags::ConfigFlags;
use super::{EXIT_INVALID, EXIT_USAGE, print_json};

/// The allocator settings `askd serve` runs with unless its environment names its own (issue
/// 32; `cargo bench -p askd --bench rest` measures them): mimalloc commits arena memory as it
/// is used (`arena_eager_commit` 0: idle RSS 35 → 20 MB) and gives freed memory back at once
/// rather than on the freeing thread's next allocation (`purge_delay` 0: after 2,000 closed
/// event streams 180 → about 110 MB).
const ALLOCATOR: [(&str, &str); 2] = [
    ("MIMALLOC_ARENA_EAGER_COMMIT", "0"),
    ("MIMALLOC_PURGE_DELAY", "0"),
];

/// mimalloc reads its settings from the environment as the process starts, and askd sets
/// none in code (no `unsafe`): a daemon started without them replaces itself with one that
/// has them — `exec`, so the pid, the arguments and every descriptor stay the same. If that
/// fails, it runs on with mimalloc's defaults.
#[cfg(unix)]
fn with_allocator_settings() {
    use std::os::unix::process::CommandExt;
    let missing: Vec<(&str, &str)> = ALLOCATOR
        .into_iter()
        .filter(|(k, _)| std::env::var_os(k).is_none())
        .collect();
    if missing.is_empty() {
        return;
    }
    let Ok(exe) = std::env::current_exe() else {
        return;
    };
    let err = std::process::Command::new(exe)
        .args(std::env::args_os().skip(1))
        .envs(missing)
        .exec();
    tracing::warn!(
        "askd serve runs with mimalloc's default settings: restarting with its own failed: {err}"
    );
}

pub fn serve(flags: ConfigFlags) -> ExitCode {
    #[cfg(unix)]
    with_allocator_settings();
    let (paths, config, origins) = match config::load_from_process_with_origins(&flags.0) {
        Ok(pc) => pc,
        Err(e) => {
            eprintln!("askd: {e}");
            return ExitCode::from(EXIT_USAGE);
        }
    };
    let runtime = match tokio::runtime::Runtime::new() {
        Ok(r) => r,
        Err(e) => {
            eprintln!("askd: cannot start the async runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    let settings = Settings::from_config(&config, &paths, &origins, &config::process_env());
    match runtime.block_on(askd::mcp_http::serve(settings)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("askd: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Prints where everything is, the effective configuration, and whether a daemon answers.
pub fn doctor(flags: ConfigFlags, as_json: bool) -> ExitCode {
    let paths = match Paths::from_process() {
        Ok(p) => p,
        Err(e) => {
            eprintln!("askd: {e}");
            return ExitCode::from(EXIT_USAGE);
        }
    };
    let config = config::load_from_process(&flags.0);
    let token_mode = token_mode(&paths);
    let info = askd_client::read_daemon_info(&paths.data_dir);
    let runtime = tokio::runtime::Runtime::new().ok();
    // The running daemon's health, and its settings in effect (saved from the Settings page
    // over the configuration, review.md §7.3).
    let (health, settings, notify) = match (&info, runtime) {
        (Some(_), Some(rt)) => rt.block_on(async {
            let Ok(client) = super::client::Client::connect(&paths) else {
                return (None, None, None);
            };
            let get = |path: &'static str| {
                let client = &client;
                async move {
                    client
                        .call(reqwest::Method::GET, path, None)
                        .await
                        .ok()
                        .filter(|r| r.status == 200)
                        .map(|r| r.body)
                }
            };
            (
                get("/api/health").await,
                get("/api/settings").await,
                get("/api/notify").await,
            )
        }),
        _ => (None, None, None),
    };
    let daemon = match (&info, &health) {
        (None, _) => {
            json!({"running": false, "note": "no daemon.json: no daemon has been started, or it stopped cleanly"})
        }
        (Some(i), Some(h)) => {
            json!({"running": true, "url": i.url, "pid": i.pid, "version": i.version, "startedAt": i.started_at, "health": h, "settings": settings, "notify": notify})
        }
        (Some(i), None) => {
            json!({"running": false, "url": i.url, "pid": i.pid, "note": "daemon.json exists but the daemon does not answer: it was killed or is starting"})
        }
    };
    let ok = config.is_ok();
    let out = json!({
        "ok": ok,
        "version": env!("CARGO_PKG_VERSION"),
        "paths": {
            "dataDir": paths.data_dir,
            "configFile": paths.config_file,
            "configFileExists": paths.config_file.exists(),
            // Team mode's PostgreSQL (password hidden), else the SQLite file.
            "database": match config.as_ref().ok().and_then(|(_, c)| c.database_url.as_deref()) {
                Some(url) => json!(config::redact_url(url)),
                None => json!(paths.db_file()),
            },
            "databaseExists": paths.db_file().exists(),
            "token": paths.token_file(),
            "tokenMode": token_mode,
            "daemonJson": paths.daemon_json(),
        },
        "config": match &config { Ok((_, c)) => redacted(c), Err(_) => serde_json::Value::Null },
        "configError": config.as_ref().err().map(|e| e.to_string()),
        "daemon": daemon,
        "ui": match askd_daemon::ui::status() {
            Ok(source) => json!({"ok": true, "source": source}),
            Err(problem) => json!({"ok": false, "problem": problem}),
        },
        "env": config::env_names(),
    });
    if as_json {
        print_json(&out);
    } else {
        print_doctor(&out);
    }
    if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(EXIT_INVALID)
    }
}

/// `doctor`'s report for people: where things are, whether the daemon answers, what is
/// wrong, and the configuration keys not at their default.
fn print_doctor(out: &serde_json::Value) {
    use super::output::{fields, plain};
    let p = &out["paths"];
    let exists = |v: &serde_json::Value| if v == true { "" } else { " (not there yet)" };
    let d = &out["daemon"];
    let daemon = if d["running"] == true {
        format!(
            "running at {} (pid {}, askd {}, since {})",
            plain(&d["url"]),
            plain(&d["pid"]),
            plain(&d["version"]),
            plain(&d["startedAt"])
        )
    } else {
        format!("not running — {}", plain(&d["note"]))
    };
    let ui = match out["ui"]["source"].as_str() {
        Some(s) => s.to_string(),
        None => format!("MISSING — {}", plain(&out["ui"]["problem"])),
    };
    println!("askd {}", plain(&out["version"]));
    println!();
    fields(&[
        ("data directory", plain(&p["dataDir"])),
        (
            "config file",
            format!(
                "{}{}",
                plain(&p["configFile"]),
                exists(&p["configFileExists"])
            ),
        ),
        (
            "database",
            format!("{}{}", plain(&p["database"]), exists(&p["databaseExists"])),
        ),
        (
            "token",
            match p["tokenMode"].as_str() {
                Some(mode) => format!("{} (mode {mode})", plain(&p["token"])),
                None => format!("{} (not there yet)", plain(&p["token"])),
            },
        ),
        ("daemon", daemon),
        ("web UI", ui),
    ]);
    if let Some(e) = out["configError"].as_str() {
        println!("\nconfiguration error: {e}");
    }
    if out["config"].is_object() {
        println!("\nconfiguration in effect (askd.toml < env < flags):");
        let mut rows = Vec::new();
        flatten("", &out["config"], &mut rows);
        let w = rows.iter().map(|(k, _)| k.len()).max().unwrap_or(0);
        for (k, v) in rows {
            println!("  {k:<w$}  {v}");
        }
    }
    println!("\n--json prints all of this as JSON.");
}

/// `table.key = value` rows of a JSON object, nested tables joined with `.`.
fn flatten(prefix: &str, v: &serde_json::Value, rows: &mut Vec<(String, String)>) {
    match v {
        serde_json::Value::Object(m) => {
            for (k, v) in m {
                let key = if prefix.is_empty() {
                    k.clone()
                } else {
                    format!("{prefix}.{k}")
                };
                flatten(&key, v, rows);
            }
        }
        other => rows.push((prefix.to_string(), super::output::plain(other))),
    }
}

/// The configuration as JSON with each webhook URL cut to its scheme and host: a Slack
/// hook or an ntfy topic in the URL is a secret, and doctor output gets pasted into reports.
fn redacted(c: &config::Config) -> serde_json::Value {
    let mut v = json!(c);
    if let Some(hooks) = v["notify"]["webhook"].as_array_mut() {
        for h in hooks {
            let url = h["url"].as_str().map(askd_daemon::notify::redact);
            h["url"] = json!(url);
        }
    }
    v
}

#[cfg(unix)]
fn token_mode(paths: &Paths) -> Option<String> {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(paths.token_file())
        .ok()
        .map(|m| format!("{:o}", m.permissions().mode() & 0o777))
}

#[cfg(not(unix))]
fn token_mode(_: &Paths) -> Option<String> {
    None
}

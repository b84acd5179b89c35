//! Finding the daemon, or starting it: a client (`askd mcp`, `askd tui`, `askd try`) uses
//! the daemon that answers its health check, or starts `askd serve` detached — under the
//! `start.lock` file lock, so two clients never start two daemons — and waits until the
//! new one has written `daemon.json` and answers.

use std::fs::File;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::files::{read_daemon_info, read_token};
use crate::http::Client;
use crate::paths::Paths;

/// How long a freshly started daemon gets to write daemon.json and answer.
const START_TIMEOUT: Duration = Duration::from_secs(20);

/// How long a health check may take.
const HEALTH_TIMEOUT: Duration = Duration::from_secs(2);

/// The daemon's URL and token: the running daemon's, or — when none answers — those of a
/// daemon started as `<this executable> serve --<flag> <value>…` (detached: its own
/// process group, output appended to `<data dir>/daemon.log`).
pub async fn ensure_daemon(
    paths: &Paths,
    serve_flags: &[(String, String)],
) -> Result<(String, String), String> {
    if let Some(found) = answering(paths).await {
        return Ok(found);
    }
    std::fs::create_dir_all(&paths.data_dir)
        .map_err(|e| format!("cannot create {}: {e}", paths.data_dir.display()))?;
    let lock = File::create(paths.start_lock())
        .map_err(|e| format!("cannot open {}: {e}", paths.start_lock().display()))?;
    // Blocks while another client is starting the daemon; released when `lock` drops.
    let lock = tokio::task::spawn_blocking(move || lock.lock().map(|_| lock))
        .await
        .map_err(|e| e.to_string())?
        .map_err(|e| format!("cannot lock the start lock: {e}"))?;
    if let Some(found) = answering(paths).await {
        drop(lock);
        return Ok(found);
    }
    let log = File::options()
        .create(true)
        .append(true)
        .open(paths.data_dir.join("daemon.log"))
        .map_err(|e| format!("cannot open the daemon log: {e}"))?;
    let exe = std::env::current_exe().map_err(|e| format!("cannot find the askd binary: {e}"))?;
    let mut cmd = Command::new(exe);
    cmd.arg("serve");
    for (name, value) in serve_flags {
        cmd.arg(format!("--{name}")).arg(value);
    }
    cmd.stdin(Stdio::null())
        .stdout(log.try_clone().map_err(|e| e.to_string())?)
        .stderr(log);
    #[cfg(unix)]
    {
        // Its own process group: the client's signals to the adapter do not reach it.
        use std::os::unix::process::CommandExt;
        cmd.process_group(0);
    }
    let child = cmd
        .spawn()
        .map_err(|e| format!("cannot start the daemon: {e}"))?;
    let pid = child.id();
    // Reap it in the background if it exits while we live; it outlives us otherwise.
    std::thread::spawn(move || {
        let mut child = child;
        let _ = child.wait();
    });
    let deadline = Instant::now() + START_TIMEOUT;
    loop {
        if let Some(info) = read_daemon_info(&paths.data_dir)
            && info.pid == pid
            && let Some(found) = answering(paths).await
        {
            drop(lock);
            tracing::info!("started the daemon at {}", found.0);
            return Ok(found);
        }
        if Instant::now() > deadline {
            return Err(format!(
                "the daemon did not start within {}s — see {}",
                START_TIMEOUT.as_secs(),
                paths.data_dir.join("daemon.log").display()
            ));
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
}

/// The URL and token of a daemon that answers its health check, if any.
pub async fn answering(paths: &Paths) -> Option<(String, String)> {
    let info = read_daemon_info(&paths.data_dir)?;
    let token = read_token(&paths.data_dir).ok()?;
    let client = Client::new(info.url, token);
    client
        .health(HEALTH_TIMEOUT)
        .await
        .then(|| (client.base().to_string(), client.token().to_string()))
}

/// A remote daemon (team mode: `askd mcp --url URL --token-file F`): its URL without a
/// trailing `/` and the agent token read from `token_file`; nothing is started. The daemon
/// is asked once: a refused token (401) or Host (403) is an error naming the fix; a daemon
/// that does not answer yet is only logged — every tool call then reports it until it does.
pub async fn remote(url: &str, token_file: &std::path::Path) -> Result<(String, String), String> {
    let base = url.trim().trim_end_matches('/').to_string();
    let rest = base
        .strip_prefix("https://")
        .or_else(|| base.strip_prefix("http://"));
    match rest {
        Some(host) if !host.is_empty() && !host.contains(['/', '?', '#', '@']) => {}
        _ => {
            return Err(format!(
                "--url {url:?} is not a daemon's address — give its base URL, http(s)://host[:port] without a path, e.g. https://askd.example"
            ));
        }
    }
    let token = std::fs::read_to_string(token_file)
        .map_err(|e| {
            format!(
                "--token-file {}: cannot read it ({e}) — give the file holding the daemon's token",
                token_file.display()
            )
        })?
        .trim()
        .to_string();
    if token.is_empty() || token.contains(char::is_whitespace) {
        return Err(format!(
            "--token-file {}: the file must hold one token (one line, no spaces)",
            token_file.display()
        ));
    }
    if base.starts_with("http://") && !is_loopback_url(&base) {
        tracing::warn!(
            "{base} is plain HTTP: the token crosses the network unencrypted — put the daemon behind HTTPS (a TLS-terminating proxy, tailscale serve)"
        );
    }
    let client = Client::new(base.clone(), token.clone());
    match client
        .call(
            reqwest::Method::GET,
            "/api/health",
            None,
            Some(HEALTH_TIMEOUT * 5),
        )
        .await
    {
        Ok(r) if r.status == 401 => Err(format!(
            "the daemon at {base} refuses the token in {} (401): {}",
            token_file.display(),
            r.error().message
        )),
        Ok(r) if r.status == 403 => Err(format!(
            "the daemon at {base} refuses this request (403): {} — add the host to its allowedHosts",
            r.error().message
        )),
        Ok(r) if !r.ok() => Err(format!(
            "the daemon at {base} answered its health check with HTTP {}",
            r.status
        )),
        Ok(_) => Ok((base, token)),
        Err(e) => {
            tracing::warn!(
                "the daemon at {base} does not answer yet ({}); tool calls report it until it does",
                crate::http::describe(&e)
            );
            Ok((base, token))
        }
    }
}

fn is_loopback_url(base: &str) -> bool {
    let host = base.split("://").nth(1).unwrap_or("");
    let name = if host.starts_with('[') {
        host.split(']').next().map(|h| &h[1..]).unwrap_or("")
    } else {
        host.split(':').next().unwrap_or("")
    };
    name == "localhost"
        || name
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback())
}

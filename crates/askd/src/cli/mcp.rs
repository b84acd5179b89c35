//! `askd mcp`: the stdio MCP server that agent clients spawn. A thin adapter: it finds the
//! daemon — starting it detached when none answers, under a lock so two adapters never
//! start two (`askd_client::ensure_daemon`) — and serves askd's tools over stdin/stdout, forwarding every call to the
//! daemon. Killing the adapter loses nothing: the asks live in the daemon. With `--url` and
//! `--token-file` (team mode) it uses that remote daemon and starts none.
//!
//! stdout belongs to the MCP protocol; everything else goes to stderr.

use std::process::{Command, ExitCode, Stdio};
use std::sync::Arc;
use std::time::Duration;

use askd_client::{Paths, ensure_daemon};
use askd_daemon::config::{self, Config};
use askd_mcp::backend::Reconnect;
use askd_mcp::{HttpBackend, Options};

use super::EXIT_USAGE;
use super::flags::ConfigFlags;

/// `--fork <id>[@<seq>]`.
fn parse_fork(raw: &str) -> Result<(String, Option<i64>), String> {
    let (id, at) = match raw.rsplit_once('@') {
        Some((id, seq)) => {
            let at = seq.parse::<i64>().ok().filter(|n| *n >= 1).ok_or_else(|| {
                format!("--fork {raw:?}: the part after @ must be an event seq (an integer from 1)")
            })?;
            (id, Some(at))
        }
        None => (raw, None),
    };
    if id.trim().is_empty() {
        return Err(format!(
            "--fork {raw:?}: give the session id to fork, as <id> or <id>@<seq>"
        ));
    }
    Ok((id.trim().to_string(), at))
}

/// A remote daemon's base URL and the file holding its token.
type Remote = (String, std::path::PathBuf);

pub fn run(
    flags: ConfigFlags,
    session: Option<String>,
    fork: Option<String>,
    remote: Option<Remote>,
) -> ExitCode {
    let fork = match fork.as_deref().map(parse_fork).transpose() {
        Ok(f) => f,
        Err(e) => {
            eprintln!("askd mcp: {e}");
            return ExitCode::from(EXIT_USAGE);
        }
    };
    let (paths, config) = match config::load_from_process(&flags.0) {
        Ok(pc) => pc,
        Err(e) => {
            eprintln!("askd mcp: {e}");
            return ExitCode::from(EXIT_USAGE);
        }
    };
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
    {
        Ok(r) => r,
        Err(e) => {
            eprintln!("askd mcp: cannot start the async runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    match runtime.block_on(adapter(paths, config, flags, session, fork, remote)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("askd mcp: {e}");
            ExitCode::FAILURE
        }
    }
}

async fn adapter(
    paths: Paths,
    config: Config,
    flags: ConfigFlags,
    session: Option<String>,
    fork: Option<(String, Option<i64>)>,
    remote: Option<Remote>,
) -> Result<(), String> {
    let (url, token) = match &remote {
        Some((url, file)) => askd_client::remote(url, file).await?,
        None => ensure_daemon(&paths, &flags.0).await?,
    };
    let env = config::process_env();
    let language = config.resolved_language(&env);
    let progress_interval = env
        .get("ASKD_PROGRESS_INTERVAL_MS")
        .and_then(|v| v.parse::<u64>().ok())
        .map(Duration::from_millis)
        .unwrap_or(Duration::from_secs(15));
    let base = url.clone();
    let browser_token = token.clone();
    let session_id = session
        .filter(|s| !s.trim().is_empty())
        .or_else(|| env.get("ASKD_SESSION").filter(|s| !s.is_empty()).cloned());
    let alignment_mode = askd_core::alignment::Mode::parse(config.alignment.mode.as_str())
        .unwrap_or(askd_core::alignment::Mode::Auto);
    let backend = HttpBackend::new(url.clone(), token.clone());
    // A continued session's override (or a forked one's, which the fork inherits) shapes
    // this connection's instructions and tools.
    let initial_mode = match session_id
        .as_ref()
        .or(fork.as_ref().map(|(parent, _)| parent))
    {
        Some(id) => {
            use askd_mcp::Backend;
            backend
                .alignment(
                    id,
                    "status",
                    &serde_json::json!({"configured": alignment_mode.as_str()}),
                )
                .await
                .ok()
                .and_then(|v| {
                    v["mode"]["effective"]
                        .as_str()
                        .and_then(askd_core::alignment::Mode::parse)
                })
        }
        None => None,
    };
    let link_token = token.clone();
    let link_base = url.clone();
    let seal = signing_seal(&paths, remote.is_some(), &token);
    let options = Options {
        session_id,
        fork,
        transport: "stdio",
        initial_mode,
        workspace: std::env::current_dir()
            .ok()
            .map(|d| d.to_string_lossy().into_owned()),
        max_wait: config.max_wait_duration(),
        language: askd_core::Lang::parse(language),
        progress_interval,
        // A remote daemon's people answer in their own browsers: nothing is opened here (and
        // the agent's token never goes into a browser).
        on_first_ask: if remote.is_some() {
            None
        } else {
            Some(Arc::new(move |ask_url: &str| {
                show(&base, ask_url, &browser_token);
            }))
        },
        alignment_mode,
        alignment_section: config.alignment.section.clone(),
        elicitation: askd_mcp::Elicitation::parse(config.elicitation.as_str()).unwrap_or_default(),
        // URL elicitation: the client opens the page in a browser on this machine, which
        // needs the token once (as the browser this adapter opens gets it) — on the daemon's
        // own address, also when the ask's link is under `publicUrl`. A remote daemon's
        // token is the agent's: the link stays plain and the person signs in there.
        page_link: if remote.is_some() {
            None
        } else {
            Some(Arc::new(move |ask_url: &str| {
                format!("{}?token={link_token}", local_page(&link_base, ask_url))
            }))
        },
        seal,
    };
    // A long session may outlive its daemon (idle exit, a restart): find or start it again.
    // A remote daemon is not ours to start: a call that cannot reach it reports it — except
    // a wait, which is repeated for up to a minute, so a wait whose daemon dies (team mode,
    // several daemons behind one URL) returns the answer another daemon took.
    let backend = if remote.is_some() {
        Arc::new(HttpBackend::new(url, token).with_wait_retry(REMOTE_WAIT_RETRY))
    } else {
        let reconnect: Reconnect = Arc::new(move || {
            let (paths, flags) = (paths.clone(), flags.clone());
            Box::pin(async move { ensure_daemon(&paths, &flags.0).await })
        });
        Arc::new(HttpBackend::new(url, token).with_reconnect(reconnect))
    };
    askd_mcp::serve_stdio(backend, Arc::new(options)).await
}

/// How long a remote adapter's wait keeps retrying after its daemon stops answering.
const REMOTE_WAIT_RETRY: std::time::Duration = std::time::Duration::from_secs(60);

/// The key this adapter signs its `requestState`s and app handles with (`askd_mcp::seal`):
/// the data directory's `signing.key`, shared with the daemon's `/mcp` and every adapter of
/// the install (made when missing); for a remote daemon, whose data directory is not here,
/// a key derived from the token this adapter holds (it verifies only what it issued). When
/// no key file can be read or made, a key of this process only, with a warning in the log.
fn signing_seal(paths: &Paths, remote: bool, token: &str) -> Arc<askd_mcp::Seal> {
    if remote {
        return Arc::new(askd_mcp::Seal::from_token(token));
    }
    Arc::new(askd_mcp::Seal::of_install(&paths.data_dir))
}

/// An ask's page on the daemon's own address `base`: the ask's link may be under `publicUrl`,
/// and a browser on this machine that gets the token must open the local address (the token
/// never goes to a public one).
fn local_page(base: &str, ask_url: &str) -> String {
    let page = ask_url.find("/a/").map_or(ask_url, |i| &ask_url[i..]);
    format!("{}{page}", base.trim_end_matches('/'))
}

/// On a session's first ask: open the browser on a desktop; over SSH or without a display,
/// never try — print the URL and a port-forward hint instead.
fn show(base: &str, ask_url: &str, token: &str) {
    let over_ssh =
        std::env::var_os("SSH_CONNECTION").is_some() || std::env::var_os("SSH_TTY").is_some();
    let display = cfg!(target_os = "macos")
        || std::env::var_os("DISPLAY").is_some()
        || std::env::var_os("WAYLAND_DISPLAY").is_some();
    let disabled = std::env::var_os("ASKD_NO_BROWSER").is_some();
    tracing::info!("the user can answer at {ask_url}");
    if over_ssh {
        let port = base.rsplit(':').next().unwrap_or("7391");
        tracing::info!(
            "over SSH, forward the port first: ssh -L {port}:127.0.0.1:{port} <this host>, then open {ask_url}"
        );
        return;
    }
    if !display || disabled {
        return;
    }
    let opener = if cfg!(target_os = "macos") {
        "open"
    } else {
        "xdg-open"
    };
    let target = format!("{}?token={token}", local_page(base, ask_url));
    let _ = Command::new(opener)
        .arg(target)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn();
}

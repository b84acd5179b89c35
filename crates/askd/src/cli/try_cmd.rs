//! `askd try`: a real ask, end to end, without an agent. Starts the daemon when none answers
//! (detached, like `askd mcp` does), asks the example branching survey
//! (`examples/try-survey.json`: insights, a diagram, quick templates) as an agent would,
//! prints the tokenised page URL (and opens it on a desktop), waits for the answer and prints
//! the result the agent would receive, as JSON on stdout. Messages go to stderr.

use std::process::{Command, ExitCode, Stdio};
use std::time::Duration;

use askd_client::{Client, Paths, Reply};
use askd_daemon::config;
use reqwest::Method;
use serde_json::{Value, json};

use super::flags::ConfigFlags;
use super::{EXIT_USAGE, print_json};

/// The example survey, exactly as an agent would pass it to `ask_survey`.
const EXAMPLE: &str = include_str!("../../../../examples/try-survey.json");

/// One wait call's budget; the loop waits as long as the human takes.
const WAIT_SLICE_S: u64 = 30;

pub fn run(flags: ConfigFlags) -> ExitCode {
    let paths = match config::load_from_process(&flags.0) {
        Ok((paths, _config)) => paths,
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
    match runtime.block_on(try_it(&paths, &flags)) {
        Ok(result) => {
            print_json(&result);
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("askd try: {e}");
            ExitCode::FAILURE
        }
    }
}

/// A reply's body; a non-2xx answer, or none, is an error carrying what is known.
fn body(sent: Result<Reply, reqwest::Error>) -> Result<Value, String> {
    let reply = sent.map_err(|e| format!("the daemon did not answer: {e}"))?;
    if !reply.ok() {
        let status = reqwest::StatusCode::from_u16(reply.status)
            .map(|s| s.to_string())
            .unwrap_or_else(|_| reply.status.to_string());
        return Err(format!("the daemon answered {status}: {}", reply.body));
    }
    Ok(reply.body)
}

async fn try_it(paths: &Paths, flags: &ConfigFlags) -> Result<Value, String> {
    let (base, token) = askd_client::ensure_daemon(paths, &flags.0).await?;
    let client = Client::new(base.clone(), token.clone());
    let post = |path: &'static str, b: Value| {
        let client = &client;
        async move {
            body(
                client
                    .call(Method::POST, path, Some(b.to_string()), None)
                    .await,
            )
        }
    };
    let workspace = std::env::current_dir()
        .ok()
        .map(|d| d.display().to_string());
    let session = post(
        "/api/sessions",
        json!({"client": "askd try", "workspace": workspace}),
    )
    .await?;
    let args: Value = serde_json::from_str(EXAMPLE).map_err(|e| e.to_string())?;
    let created = post(
        "/api/asks",
        json!({
            "kind": "survey",
            "session": session["session"]["id"],
            "args": args,
        }),
    )
    .await?;
    let ask_id = created["ask_id"].as_str().unwrap_or_default().to_string();
    let url = format!(
        "{}?token={token}",
        created["url"]
            .as_str()
            .map(str::to_string)
            .unwrap_or_else(|| format!("{base}/a/{ask_id}"))
    );
    eprintln!("askd try: the example survey is waiting for you at\n\n  {url}\n");
    open_browser(&base, &url);
    eprintln!(
        "askd try: waiting for your answer (Ctrl-C stops waiting; the ask stays in the inbox)…"
    );
    loop {
        let result = body(
            client
                .wait(&ask_id, Duration::from_secs(WAIT_SLICE_S))
                .await,
        )?;
        if result["outcome"] != "pending" {
            return Ok(result);
        }
    }
}

/// On a desktop, opens the page; over SSH or without a display, prints how to reach it.
fn open_browser(base: &str, url: &str) {
    let over_ssh =
        std::env::var_os("SSH_CONNECTION").is_some() || std::env::var_os("SSH_TTY").is_some();
    let display = cfg!(target_os = "macos")
        || std::env::var_os("DISPLAY").is_some()
        || std::env::var_os("WAYLAND_DISPLAY").is_some();
    if over_ssh {
        let port = base.rsplit(':').next().unwrap_or("7391");
        eprintln!(
            "askd try: over SSH, forward the port first (ssh -L {port}:127.0.0.1:{port} <this host>), then open the URL locally"
        );
        return;
    }
    if !display || std::env::var_os("ASKD_NO_BROWSER").is_some() {
        return;
    }
    let opener = if cfg!(target_os = "macos") {
        "open"
    } else {
        "xdg-open"
    };
    let _ = Command::new(opener)
        .arg(url)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn();
}

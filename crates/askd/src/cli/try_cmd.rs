//! `askd try`: a real ask, end to end, without an agent. Starts the daemon when none answers
//! (detached, like `askd mcp` does), asks the example branching survey
//! (`examples/try-survey.json`: insights, a diagram, quick templates) as an agent would,
//! prints the tokenised page URL and opens it on a desktop — or, with no display (or over
//! SSH) on a terminal, opens the terminal UI in place — waits for the answer and prints the
//! result the agent would receive: readable on a terminal, one JSON document in a pipe or
//! with `--json`. Messages go to stderr; the last one says how to stop the daemon, which
//! keeps running for other asks.

use std::io::IsTerminal;
use std::process::{Command, ExitCode, Stdio};
use std::time::Duration;

use askd_client::{Client, Paths, Reply};
use askd_daemon::config;
use reqwest::Method;
use serde_json::{Value, json};

use super::flags::ConfigFlags;
use super::{EXIT_USAGE, print_json};

/// Where `askd try` has the example answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum AnswerIn {
    /// The page on a desktop; the terminal UI where there is no display (or over SSH) and
    /// this is a terminal; else only the printed URL.
    Auto,
    /// The web page (opened on a desktop, else printed).
    Page,
    /// The terminal UI, in this terminal.
    Terminal,
}

/// The example survey, exactly as an agent would pass it to `ask_survey`.
const EXAMPLE: &str = include_str!("../../../../examples/try-survey.json");

/// One wait call's budget; the loop waits as long as the human takes.
const WAIT_SLICE_S: u64 = 30;

pub fn run(flags: ConfigFlags, answer_in: AnswerIn, as_json: bool) -> ExitCode {
    let (paths, lang) = match config::load_from_process(&flags.0) {
        Ok((paths, config)) => {
            let lang = askd_tui::Lang::from_tag(config.resolved_language(&config::process_env()));
            (paths, lang)
        }
        Err(e) => {
            eprintln!("askd: {e}");
            return ExitCode::from(EXIT_USAGE);
        }
    };
    let terminal = std::io::stdin().is_terminal() && std::io::stdout().is_terminal();
    if answer_in == AnswerIn::Terminal && !terminal {
        eprintln!(
            "askd try: --answer-in terminal needs an interactive terminal (stdin and stdout are not a TTY) — use --answer-in page"
        );
        return ExitCode::from(EXIT_USAGE);
    }
    let runtime = match tokio::runtime::Runtime::new() {
        Ok(r) => r,
        Err(e) => {
            eprintln!("askd: cannot start the async runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    let how = Answering {
        answer_in,
        terminal,
        lang,
    };
    let outcome = runtime.block_on(try_it(&paths, &flags, how));
    let code = match &outcome {
        Ok(result) => {
            if as_json {
                print_json(result);
            } else {
                println!("The agent receives (in short):");
                for line in super::output::result_lines(result) {
                    println!("  {line}");
                }
                println!("\nThe result as JSON, exactly as the agent gets it:");
                println!(
                    "{}",
                    serde_json::to_string_pretty(result).unwrap_or_default()
                );
            }
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("askd try: {e}");
            ExitCode::FAILURE
        }
    };
    if let Some(info) = askd_client::read_daemon_info(&paths.data_dir) {
        eprintln!(
            "\naskd try: the daemon keeps running at {} (pid {}) for the asks of your agents; `askd stop` stops it.",
            info.url, info.pid
        );
    }
    code
}

/// How the example gets answered: the choice, whether this is a terminal, the TUI's language.
struct Answering {
    answer_in: AnswerIn,
    terminal: bool,
    lang: askd_tui::Lang,
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

async fn try_it(paths: &Paths, flags: &ConfigFlags, how: Answering) -> Result<Value, String> {
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
    let desktop = has_display() && !over_ssh();
    let in_terminal = match how.answer_in {
        AnswerIn::Terminal => true,
        AnswerIn::Page => false,
        AnswerIn::Auto => !desktop && how.terminal,
    };
    if in_terminal {
        if how.answer_in == AnswerIn::Auto {
            eprintln!(
                "askd try: no browser here — opening the terminal UI (Enter opens the ask, ? lists the keys, q quits; the URL above works too)…"
            );
            tokio::time::sleep(Duration::from_secs(2)).await;
        }
        if let Err(e) = askd_tui::run(base.clone(), token.clone(), how.lang).await {
            eprintln!("askd try: the terminal UI stopped: {e}");
        }
        let result = body(client.wait(&ask_id, Duration::from_secs(1)).await)?;
        if result["outcome"] != "pending" {
            return Ok(result);
        }
        eprintln!(
            "askd try: the example is not answered yet — answer it at the URL above or in `askd tui` (Ctrl-C stops waiting; the ask stays in the inbox)…"
        );
    } else {
        open_browser(&base, &url);
        eprintln!(
            "askd try: waiting for your answer (Ctrl-C stops waiting; the ask stays in the inbox; `askd tui` answers it in a terminal)…"
        );
    }
    let mut told = false;
    loop {
        let result = body(
            client
                .wait(&ask_id, Duration::from_secs(WAIT_SLICE_S))
                .await,
        )?;
        if result["outcome"] != "pending" {
            return Ok(result);
        }
        if let Some(until) = result["deferred_until"].as_str() {
            // Put off from the page: the wait hands the pending ask back at once.
            if !told {
                eprintln!("askd try: you put the example off until {until} (UTC); still waiting…");
                told = true;
            }
            tokio::time::sleep(Duration::from_secs(WAIT_SLICE_S)).await;
        }
    }
}

fn over_ssh() -> bool {
    std::env::var_os("SSH_CONNECTION").is_some() || std::env::var_os("SSH_TTY").is_some()
}

fn has_display() -> bool {
    cfg!(target_os = "macos")
        || std::env::var_os("DISPLAY").is_some()
        || std::env::var_os("WAYLAND_DISPLAY").is_some()
}

/// On a desktop, opens the page; over SSH or without a display, prints how to reach it.
fn open_browser(base: &str, url: &str) {
    if over_ssh() {
        let port = base.rsplit(':').next().unwrap_or("7391");
        eprintln!(
            "askd try: over SSH, forward the port first (ssh -L {port}:127.0.0.1:{port} <this host>), then open the URL locally"
        );
        return;
    }
    if !has_display() {
        eprintln!(
            "askd try: no display here: open the URL in a browser that reaches this machine, or answer in the terminal: `askd try --answer-in terminal` / `askd tui`"
        );
        return;
    }
    if std::env::var_os("ASKD_NO_BROWSER").is_some() {
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

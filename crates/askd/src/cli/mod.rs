//! Command-line surface. Output is JSON on stdout; exit codes: 0 success / valid,
//! 1 invalid input, 2 usage errors (clap's own, unreadable files).

mod asks;
mod client;
mod daemon;
mod flags;
mod mcp;
mod members;
mod pair;
mod review;
mod survey;
mod try_cmd;
mod tui;

use std::io::Read;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// askd — ask a human for structured decisions, get structured answers back.
#[derive(Debug, Parser)]
#[command(name = "askd", version, about, propagate_version = true)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Work with branching survey specs (the `ask_survey` tool's payload).
    #[command(subcommand)]
    Survey(survey::SurveyCommand),
    /// Run the daemon: the store, the JSON API and live events (until SIGTERM / Ctrl-C).
    Serve {
        #[command(flatten)]
        config: flags::ConfigFlags,
    },
    /// Report paths, the effective configuration and the daemon's status.
    Doctor {
        #[command(flatten)]
        config: flags::ConfigFlags,
    },
    /// The MCP stdio server agent clients spawn: starts the daemon if needed and serves
    /// askd's tools over stdin/stdout.
    Mcp {
        #[command(flatten)]
        config: flags::ConfigFlags,
        /// Continue this askd session (a resumed conversation keeps its alignment memory);
        /// also `ASKD_SESSION`.
        #[arg(long, value_name = "ID", conflicts_with = "fork")]
        session: Option<String>,
        /// Start in a fork of this session, as of event SEQ (inclusive; its last event when
        /// omitted).
        #[arg(long, value_name = "ID[@SEQ]")]
        fork: Option<String>,
        /// A remote daemon (team mode): its base URL, e.g. https://askd.example. The adapter
        /// then starts no daemon and uses the token in --token-file.
        #[arg(long, value_name = "URL", requires = "token_file")]
        url: Option<String>,
        /// The file holding the token for --url (one line).
        #[arg(long, value_name = "FILE", requires = "url")]
        token_file: Option<std::path::PathBuf>,
    },
    /// List, show and answer asks through the running daemon.
    #[command(subcommand)]
    Asks(asks::AsksCommand),
    /// Export a review to a file (CSV, offline HTML, JSON) and import a filled one.
    #[command(subcommand)]
    Review(review::ReviewCommand),
    /// Answer pending asks in the terminal (questions, surveys, reviews, drift cards);
    /// starts the daemon if needed.
    Tui {
        #[command(flatten)]
        config: flags::ConfigFlags,
    },
    /// Pair a phone: print a one-time link and its QR code; the phone may then answer asks
    /// (not change settings). Starts the daemon if needed.
    Pair {
        #[command(flatten)]
        config: flags::ConfigFlags,
    },
    /// Team members (team mode): add one (prints their login link once), list, revoke.
    #[command(subcommand)]
    Members(members::MembersCommand),
    /// Try askd: start the daemon if needed, ask an example survey, open its page, print
    /// the answer the agent would receive.
    Try {
        #[command(flatten)]
        config: flags::ConfigFlags,
    },
}

/// For `askd mcp`: the log file its diagnostics go to (`<data dir>/mcp.log`, appended), when
/// the data directory can be found and the file opened; `None` for every other command.
pub fn adapter_log(cli: &Cli) -> Option<std::fs::File> {
    if !matches!(cli.command, Command::Mcp { .. }) {
        return None;
    }
    let paths = askd_client::Paths::from_process().ok()?;
    std::fs::create_dir_all(&paths.data_dir).ok()?;
    std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(paths.data_dir.join("mcp.log"))
        .ok()
}

pub fn run(cli: Cli) -> ExitCode {
    match cli.command {
        Command::Survey(cmd) => survey::run(cmd),
        Command::Serve { config } => daemon::serve(config),
        Command::Doctor { config } => daemon::doctor(config),
        Command::Asks(cmd) => asks::run(cmd),
        Command::Mcp {
            config,
            session,
            fork,
            url,
            token_file,
        } => mcp::run(config, session, fork, url.zip(token_file)),
        Command::Try { config } => try_cmd::run(config),
        Command::Review(cmd) => review::run(cmd),
        Command::Tui { config } => tui::run(config),
        Command::Pair { config } => pair::run(config),
        Command::Members(cmd) => members::run(cmd),
    }
}

/// Exit code for invalid input (a spec or answers that fail validation).
pub const EXIT_INVALID: u8 = 1;
/// Exit code for usage errors (clap uses 2 as well).
pub const EXIT_USAGE: u8 = 2;

/// Reads a file, or standard input for `-`. A read failure is a usage error.
pub fn read_input(path: &str) -> Result<String, ExitCode> {
    let mut text = String::new();
    let result = if path == "-" {
        std::io::stdin().read_to_string(&mut text).map(|_| ())
    } else {
        std::fs::read_to_string(path).map(|t| text = t)
    };
    result.map(|_| text).map_err(|e| {
        eprintln!("askd: cannot read {path}: {e}");
        ExitCode::from(EXIT_USAGE)
    })
}

/// Prints one JSON document on stdout.
pub fn print_json(value: &impl serde::Serialize) {
    match serde_json::to_string(value) {
        Ok(s) => println!("{s}"),
        Err(e) => eprintln!("askd: cannot encode output: {e}"),
    }
}

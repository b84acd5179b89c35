//! Command-line surface. Output: readable text on a terminal and JSON in a pipe for
//! `doctor`, `asks` and `try` (`output`), JSON for the rest; exit codes: 0 success /
//! valid, 1 invalid input, 2 usage errors (clap's own, unreadable files).

mod asks;
mod client;
mod daemon;
mod flags;
mod mcp;
mod members;
pub(crate) mod output;
mod pair;
mod review;
mod stop;
mod survey;
mod try_cmd;
mod tui;

use std::io::Read;
use std::process::ExitCode;

use clap::{CommandFactory, Parser, Subcommand, ValueEnum};

/// Where askd keeps its files, shown under every command that uses them.
pub const HOME_HELP: &str = "Files: ASKD_HOME=DIR puts this install's data (askd.db, token, daemon.json, logs) and askd.toml in DIR; unset, data is in ~/.local/share/askd and the config in ~/.config/askd/askd.toml (the platform's directories).";

/// The environment variables of the whole command line, after the top-level help.
const ENV_HELP: &str = "\
Environment:
  ASKD_HOME        One directory for data, token and askd.toml [default: platform dirs]
  ASKD_LOG         The log filter, e.g. debug or askd_daemon=debug [default: info,rmcp=warn]
  ASKD_FORMAT      auto, text or json: the output of doctor, asks and try [default: auto]
  ASKD_NO_BROWSER  Any value: never open a browser (try, mcp)
  ASKD_SESSION     The askd session `askd mcp` continues (as --session)
  NO_COLOR         Any value: logs without colour (they have none when stderr is not a terminal)
  Every configuration key has its own ASKD_… variable: see `askd serve --help`.

Start here: `askd try` asks you an example survey, as an agent would.";

/// askd — ask a human for structured decisions, get structured answers back.
#[derive(Debug, Parser)]
#[command(
    name = "askd",
    version,
    about,
    propagate_version = true,
    after_help = ENV_HELP
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Try askd: start the daemon if needed, ask an example survey, open its page (or the
    /// terminal UI where there is no browser), print the answer the agent would receive.
    #[command(after_help = HOME_HELP)]
    Try {
        /// Where to answer: the web page, the terminal UI, or auto (the page on a desktop,
        /// else the terminal UI when this is a terminal, else the printed URL).
        #[arg(long, value_enum, default_value = "auto")]
        answer_in: try_cmd::AnswerIn,
        #[command(flatten)]
        output: output::OutputArgs,
        #[command(flatten)]
        config: flags::ConfigFlags,
    },
    /// The MCP stdio server agent clients spawn: starts the daemon if needed and serves
    /// askd's tools over stdin/stdout.
    #[command(after_help = HOME_HELP)]
    Mcp {
        /// Continue this askd session (a resumed conversation keeps its alignment memory)
        /// [default: a new session] [env: ASKD_SESSION].
        #[arg(long, value_name = "ID", conflicts_with = "fork")]
        session: Option<String>,
        /// Start in a fork of this session, as of event SEQ (inclusive; its last event when
        /// omitted) [default: no fork].
        #[arg(long, value_name = "ID[@SEQ]")]
        fork: Option<String>,
        /// A remote daemon (team mode): its base URL, e.g. https://askd.example. The adapter
        /// then starts no daemon and uses the token in --token-file [default: this
        /// machine's daemon, started when needed].
        #[arg(long, value_name = "URL", requires = "token_file")]
        url: Option<String>,
        /// The file holding the token for --url (one line).
        #[arg(long, value_name = "FILE", requires = "url")]
        token_file: Option<std::path::PathBuf>,
        #[command(flatten)]
        config: flags::ConfigFlags,
    },
    /// Answer pending asks in the terminal (questions, surveys, reviews, drift cards);
    /// starts the daemon if needed.
    #[command(after_help = HOME_HELP)]
    Tui {
        #[command(flatten)]
        config: flags::ConfigFlags,
    },
    /// Run the daemon: the store, the JSON API, the web UI and live events (until SIGTERM,
    /// Ctrl-C or `askd stop`).
    #[command(after_help = HOME_HELP)]
    Serve {
        #[command(flatten)]
        config: flags::ConfigFlags,
    },
    /// Stop this install's running daemon cleanly (the one `try`, `mcp` and `tui` start).
    #[command(after_help = HOME_HELP)]
    Stop,
    /// Report paths, the effective configuration and the daemon's status.
    #[command(after_help = HOME_HELP)]
    Doctor {
        #[command(flatten)]
        output: output::OutputArgs,
        #[command(flatten)]
        config: flags::ConfigFlags,
    },
    /// List, show and answer asks through the running daemon.
    #[command(subcommand)]
    Asks(asks::AsksCommand),
    /// Export a review to a file (CSV, offline HTML, JSON) and import a filled one.
    #[command(subcommand)]
    Review(review::ReviewCommand),
    /// Work with branching survey specs (the `ask_survey` tool's payload), offline.
    #[command(subcommand)]
    Survey(survey::SurveyCommand),
    /// Pair a phone: print a one-time link and its QR code; the phone may then answer asks
    /// (not change settings). Starts the daemon if needed.
    #[command(after_help = HOME_HELP)]
    Pair {
        #[command(flatten)]
        config: flags::ConfigFlags,
    },
    /// Team members (team mode): add one (prints their login link once), list, revoke.
    #[command(subcommand)]
    Members(members::MembersCommand),
    /// Print a shell completion script, e.g. `askd completions bash > ~/.local/share/bash-completion/completions/askd`.
    Completions {
        /// The shell.
        #[arg(value_enum)]
        shell: Shell,
    },
    /// Print the man page (roff), e.g. `askd man | man -l -`, or write one page per
    /// command into a directory.
    Man {
        /// Write askd.1 and one askd-COMMAND.1 per command into this directory instead of
        /// printing askd.1 [default: print askd.1 on stdout].
        #[arg(long, value_name = "DIR")]
        dir: Option<std::path::PathBuf>,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Shell {
    Bash,
    Zsh,
    Fish,
    Elvish,
    Powershell,
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
        Command::Stop => stop::run(),
        Command::Doctor { config, output } => daemon::doctor(config, output.json()),
        Command::Asks(cmd) => asks::run(cmd),
        Command::Mcp {
            config,
            session,
            fork,
            url,
            token_file,
        } => mcp::run(config, session, fork, url.zip(token_file)),
        Command::Try {
            config,
            output,
            answer_in,
        } => try_cmd::run(config, answer_in, output.json()),
        Command::Review(cmd) => review::run(cmd),
        Command::Tui { config } => tui::run(config),
        Command::Pair { config } => pair::run(config),
        Command::Members(cmd) => members::run(cmd),
        Command::Completions { shell } => completions(shell),
        Command::Man { dir } => man(dir),
    }
}

fn completions(shell: Shell) -> ExitCode {
    use clap_complete::Shell as S;
    let shell = match shell {
        Shell::Bash => S::Bash,
        Shell::Zsh => S::Zsh,
        Shell::Fish => S::Fish,
        Shell::Elvish => S::Elvish,
        Shell::Powershell => S::PowerShell,
    };
    clap_complete::generate(shell, &mut Cli::command(), "askd", &mut std::io::stdout());
    ExitCode::SUCCESS
}

/// The man page from the same definitions as `--help`: askd.1 on stdout, or every page
/// (`askd.1`, `askd-asks-list.1`, …) into `dir`.
fn man(dir: Option<std::path::PathBuf>) -> ExitCode {
    let cmd = Cli::command();
    let written = match &dir {
        None => clap_mangen::Man::new(cmd).render(&mut std::io::stdout()),
        Some(dir) => std::fs::create_dir_all(dir).and_then(|_| clap_mangen::generate_to(cmd, dir)),
    };
    match written {
        Ok(()) => {
            if let Some(dir) = dir {
                eprintln!("askd man: wrote the man pages to {}", dir.display());
            }
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("askd man: {e}");
            ExitCode::FAILURE
        }
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Every argument of every command, with the path of commands that leads to it.
    fn walk(cmd: &clap::Command, path: &str, out: &mut Vec<(String, clap::Arg)>) {
        for arg in cmd.get_arguments() {
            out.push((path.to_string(), arg.clone()));
        }
        for sub in cmd.get_subcommands() {
            walk(sub, &format!("{path} {}", sub.get_name()), out);
        }
    }

    #[test]
    fn every_flag_of_every_command_has_a_description() {
        let mut cmd = Cli::command();
        cmd.build();
        let mut args = Vec::new();
        walk(&cmd, "askd", &mut args);
        assert!(args.len() > 100, "{} arguments", args.len());
        let mut missing = Vec::new();
        for (path, arg) in &args {
            let id = arg.get_id().as_str();
            if id == "help" || id == "version" {
                continue;
            }
            let help = arg.get_help().map(|h| h.to_string()).unwrap_or_default();
            if help.trim().is_empty() {
                missing.push(format!("{path} {id}"));
            }
        }
        assert!(missing.is_empty(), "no description: {missing:#?}");
    }

    #[test]
    fn every_configuration_flag_names_its_default_and_its_variable() {
        let mut cmd = Cli::command();
        cmd.build();
        let mut args = Vec::new();
        walk(&cmd, "askd", &mut args);
        let docs = askd_daemon::config::key_docs();
        let mut seen = 0;
        for (path, arg) in &args {
            let Some(doc) = docs.iter().find(|d| d.flag == Some(arg.get_id().as_str())) else {
                continue;
            };
            seen += 1;
            let help = arg.get_help().map(|h| h.to_string()).unwrap_or_default();
            assert!(help.contains("[default: "), "{path} --{}: {help}", doc.name);
            assert!(
                help.contains(&format!("[env: {}]", doc.env)),
                "{path} --{}: {help}",
                doc.name
            );
        }
        // serve, doctor, mcp, tui, pair, try, members add/list/revoke.
        assert!(seen >= 9 * 20, "{seen} configuration flags");
    }

    #[test]
    fn try_is_the_first_command_and_the_help_names_askd_home() {
        let mut cmd = Cli::command();
        cmd.build();
        let first = cmd
            .get_subcommands()
            .next()
            .map(|c| c.get_name().to_string());
        assert_eq!(first.as_deref(), Some("try"));
        let help = cmd.render_long_help().to_string();
        assert!(help.contains("ASKD_HOME"), "{help}");
        for sub in ["try", "serve", "doctor", "mcp", "tui", "stop"] {
            let mut c = Cli::command();
            c.build();
            let s = c.find_subcommand_mut(sub).expect(sub);
            let help = s.render_long_help().to_string();
            assert!(help.contains("ASKD_HOME"), "askd {sub} --help: {help}");
        }
    }
}

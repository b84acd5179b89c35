//! `askd tui`: the terminal UI (`askd-tui`). Finds the running daemon through `daemon.json`
//! and the token — starting it, under the same lock as `askd mcp`, when none answers — then
//! hands the terminal to the UI. The terminal is the UI's: messages go to stderr, and only
//! before it starts or after it ends.

use std::io::IsTerminal;
use std::process::ExitCode;

use askd_daemon::config;

use super::EXIT_USAGE;
use super::flags::ConfigFlags;

pub fn run(flags: ConfigFlags) -> ExitCode {
    if !std::io::stdout().is_terminal() || !std::io::stdin().is_terminal() {
        eprintln!("askd tui: needs an interactive terminal (stdin and stdout are not a TTY)");
        return ExitCode::from(EXIT_USAGE);
    }
    let (paths, config) = match config::load_from_process(&flags.0) {
        Ok(pc) => pc,
        Err(e) => {
            eprintln!("askd tui: {e}");
            return ExitCode::from(EXIT_USAGE);
        }
    };
    let lang = askd_tui::Lang::from_tag(config.resolved_language(&config::process_env()));
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
    {
        Ok(r) => r,
        Err(e) => {
            eprintln!("askd tui: cannot start the async runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    let result = runtime.block_on(async {
        let (url, token) = askd_client::ensure_daemon(&paths, &flags.0).await?;
        askd_tui::run(url, token, lang).await
    });
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("askd tui: {e}");
            ExitCode::FAILURE
        }
    }
}

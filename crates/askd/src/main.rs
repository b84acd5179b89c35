//! The `askd` binary: wires the library crates to a command line. No logic of its own
//! beyond argument parsing, file reading and output formatting.

mod cli;

use std::process::ExitCode;

use clap::Parser;

/// mimalloc: validation and the daemon allocate many small strings; it is markedly faster
/// than the system allocator for that (see the core benchmark) and returns memory well.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Colour in the logs only for a person: stderr is a terminal and `NO_COLOR` is unset or
/// empty (no-color.org). A log file, a pipe or `daemon.log` gets plain text.
fn colour() -> bool {
    use std::io::IsTerminal;
    std::io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
}

fn main() -> ExitCode {
    let args = cli::Cli::parse();
    let filter = || {
        tracing_subscriber::EnvFilter::try_from_env("ASKD_LOG")
            .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info,rmcp=warn"))
    };
    // Logs go to stderr: stdout carries JSON (and, for `askd mcp`, the MCP protocol). The
    // MCP adapter's stderr is the agent client's terminal or log, which expects silence from
    // a server that works (clients.md §2.7): its diagnostics go to `mcp.log` in the data
    // directory; only a failure to serve is written to stderr.
    match cli::adapter_log(&args) {
        Some(file) => tracing_subscriber::fmt()
            .with_writer(std::sync::Mutex::new(file))
            .with_ansi(false)
            .with_env_filter(filter())
            .init(),
        None => tracing_subscriber::fmt()
            .with_writer(std::io::stderr)
            .with_ansi(colour())
            .with_env_filter(filter())
            .init(),
    }
    cli::run(args)
}

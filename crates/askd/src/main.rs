//! The `askd` binary: wires the library crates to a command line. No logic of its own
//! beyond argument parsing, file reading and output formatting.

mod cli;

use std::process::ExitCode;

use clap::Parser;

/// mimalloc: validation and the daemon allocate many small strings; it is markedly faster
/// than the system allocator for that (see the core benchmark) and returns memory well.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    // Logs go to stderr: stdout carries JSON (and, for `askd mcp`, the MCP protocol).
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_env("ASKD_LOG")
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info,rmcp=warn")),
        )
        .init();
    let args = cli::Cli::parse();
    cli::run(args)
}

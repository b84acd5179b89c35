//! The `askd` binary: wires the library crates to a command line. No logic of its own
//! beyond argument parsing, file reading and output formatting.

mod cli;

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let args = cli::Cli::parse();
    cli::run(args)
}

//! `askd asks list | show | answer`: act on asks without a browser.

use std::process::ExitCode;

use askd_client::{Paths, seg};
use clap::Subcommand;
use reqwest::Method;

use super::client::Client;
use super::{EXIT_INVALID, EXIT_USAGE, print_json, read_input};

#[derive(Debug, Subcommand)]
pub enum AsksCommand {
    /// List asks, newest first (pending by default).
    List {
        /// pending, settled or all.
        #[arg(long, default_value = "pending")]
        state: String,
        /// Only this session's asks.
        #[arg(long)]
        session: Option<String>,
        /// Only asks of this kind (survey, questions).
        #[arg(long)]
        kind: Option<String>,
        #[arg(long)]
        limit: Option<u32>,
    },
    /// Show one ask: its spec, rendered text, banked answers, autosave, and result.
    Show { id: String },
    /// Submit answers for an ask from a JSON file (`{"answers": [...]}`; `-` reads stdin).
    Answer {
        id: String,
        #[arg(long = "json", value_name = "FILE")]
        json: String,
    },
}

pub fn run(cmd: AsksCommand) -> ExitCode {
    let paths = match Paths::from_process() {
        Ok(p) => p,
        Err(e) => {
            eprintln!("askd: {e}");
            return ExitCode::from(EXIT_USAGE);
        }
    };
    let client = match Client::connect(&paths) {
        Ok(c) => c,
        Err(code) => return code,
    };
    let (method, path, body) = match &cmd {
        AsksCommand::List {
            state,
            session,
            kind,
            limit,
        } => {
            let mut q = vec![format!("state={}", seg(state))];
            if let Some(s) = session {
                q.push(format!("session={}", seg(s)));
            }
            if let Some(k) = kind {
                q.push(format!("kind={}", seg(k)));
            }
            if let Some(l) = limit {
                q.push(format!("limit={l}"));
            }
            (Method::GET, format!("/api/asks?{}", q.join("&")), None)
        }
        AsksCommand::Show { id } => (Method::GET, format!("/api/asks/{}", seg(id)), None),
        AsksCommand::Answer { id, json } => {
            let text = match read_input(json) {
                Ok(t) => t,
                Err(code) => return code,
            };
            (
                Method::POST,
                format!("/api/asks/{}/submit", seg(id)),
                Some(text),
            )
        }
    };
    let runtime = match tokio::runtime::Runtime::new() {
        Ok(r) => r,
        Err(e) => {
            eprintln!("askd: cannot start the async runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    match runtime.block_on(client.call(method, &path, body)) {
        Ok(reply) => {
            print_json(&reply.body);
            match reply.status {
                200..=299 => ExitCode::SUCCESS,
                400 | 404 | 409 | 413 | 415 | 422 => ExitCode::from(EXIT_INVALID),
                _ => ExitCode::FAILURE,
            }
        }
        Err(code) => code,
    }
}

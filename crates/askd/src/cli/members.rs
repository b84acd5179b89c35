//! `askd members add NAME | list | revoke ID-OR-NAME`: the team's members (team mode,
//! `askd_daemon::members`), through the daemon's API with the install's token. `add`
//! prints the member's login URL once — the daemon keeps only its hash.

use std::process::ExitCode;

use clap::Subcommand;
use serde_json::{Value, json};

use super::flags::ConfigFlags;

#[derive(Debug, Subcommand)]
pub enum MembersCommand {
    /// Add a member: prints their login URL, once (open it in their browser to sign in);
    /// with --agent, a token for agents on other machines (askd mcp --url … --token-file F).
    Add {
        /// The member's name, as answers will record it (at most 40 characters).
        name: String,
        /// An agent's token (Bearer), not a person's login.
        #[arg(long)]
        agent: bool,
        #[command(flatten)]
        config: ConfigFlags,
    },
    /// List the members (id, name, when added).
    List {
        #[command(flatten)]
        config: ConfigFlags,
    },
    /// Revoke a member (by id or name): their login stops working on every daemon.
    Revoke {
        /// The member's id (from `askd members list`) or name.
        member: String,
        #[command(flatten)]
        config: ConfigFlags,
    },
}

pub fn run(cmd: MembersCommand) -> ExitCode {
    let (flags, method, path, body) = match &cmd {
        MembersCommand::Add {
            name,
            agent,
            config,
        } => (
            config,
            reqwest::Method::POST,
            "/api/members".to_string(),
            Some(json!({ "name": name, "agent": agent }).to_string()),
        ),
        MembersCommand::List { config } => {
            (config, reqwest::Method::GET, "/api/members".into(), None)
        }
        MembersCommand::Revoke { member, config } => {
            (config, reqwest::Method::DELETE, member_path(member), None)
        }
    };
    let reply = match super::client::call_daemon("members", flags, method, &path, body) {
        Ok((reply, _)) => reply,
        Err(code) => return code,
    };
    match cmd {
        MembersCommand::Add { agent: true, .. } => {
            let name = reply.body["member"]["name"].as_str().unwrap_or_default();
            let token = reply.body["token"].as_str().unwrap_or_default();
            let url = reply.body["url"].as_str().unwrap_or_default();
            println!("Added the agent {name}. Its token — shown this once, keep it private:");
            println!("  {token}");
            println!("On the agent's machine, put it in a file (one line) and run:");
            println!("  askd mcp --url {url} --token-file FILE");
        }
        MembersCommand::Add { .. } => {
            let name = reply.body["member"]["name"].as_str().unwrap_or_default();
            let url = reply.body["loginUrl"].as_str().unwrap_or_default();
            println!("Added {name}. Their login link — shown this once, keep it private:");
            println!("  {url}");
            println!(
                "Opening it signs a browser in as {name}; `askd members revoke {name:?}` ends it."
            );
        }
        MembersCommand::List { .. } => {
            let members = reply.body["members"]
                .as_array()
                .cloned()
                .unwrap_or_default();
            if members.is_empty() {
                println!("No members yet: askd members add NAME");
            }
            for m in &members {
                println!(
                    "{}  {}  {}  (added {})",
                    s(m, "id"),
                    s(m, "name"),
                    s(m, "kind"),
                    s(m, "createdAt")
                );
            }
        }
        MembersCommand::Revoke { member, .. } => println!("Revoked {member}."),
    }
    ExitCode::SUCCESS
}

fn s<'a>(v: &'a Value, k: &str) -> &'a str {
    v[k].as_str().unwrap_or_default()
}

/// `/api/members/<member>`, the member percent-encoded as one path segment.
fn member_path(member: &str) -> String {
    let mut url = reqwest::Url::parse("http://askd/api/members").expect("a valid URL");
    url.path_segments_mut()
        .expect("an http URL has path segments")
        .push(member);
    url.path().to_string()
}

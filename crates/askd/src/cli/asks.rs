//! `askd asks list | show | answer`: act on asks without a browser. Output: a table or
//! readable text on a terminal, one JSON document in a pipe or with `--json` (`output`).

use std::process::ExitCode;

use askd_client::{Paths, seg};
use clap::{Subcommand, ValueEnum};
use reqwest::Method;
use serde_json::{Value, json};

use super::client::Client;
use super::output::{self, FormatArg, OutputArgs, clean, cut, plain};
use super::{EXIT_INVALID, EXIT_USAGE, print_json, read_input};

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum StateFilter {
    /// Waiting for a human.
    Pending,
    /// Answered, cancelled, withdrawn or superseded.
    Settled,
    /// Both.
    All,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum KindFilter {
    /// Branching surveys (`ask_survey`).
    Survey,
    /// Flat questions (`ask_user_question`).
    Questions,
    /// Batch reviews (`batch_review`).
    Review,
    /// Requirement-drift decision cards (`report_drift`).
    Drift,
}

#[derive(Debug, Subcommand)]
pub enum AsksCommand {
    /// List asks, newest first (pending by default): a table on a terminal, JSON in a pipe.
    #[command(after_help = super::HOME_HELP)]
    List {
        /// Which asks to list.
        #[arg(long, value_enum, default_value = "pending")]
        state: StateFilter,
        /// Only this agent session's asks (its id, as `asks show` prints it).
        #[arg(long, value_name = "ID")]
        session: Option<String>,
        /// Only asks of this kind.
        #[arg(long, value_enum)]
        kind: Option<KindFilter>,
        /// At most this many asks, the newest [default: no limit].
        #[arg(long, value_name = "N")]
        limit: Option<u32>,
        #[command(flatten)]
        output: OutputArgs,
    },
    /// Show one ask: its spec, rendered text, banked answers, autosave and, once settled,
    /// the result the agent received.
    #[command(after_help = super::HOME_HELP)]
    Show {
        /// The ask's id (the first column of `asks list`).
        id: String,
        #[command(flatten)]
        output: OutputArgs,
    },
    /// Answer an ask from a JSON file and settle it (recorded with surface "cli").
    #[command(after_help = super::HOME_HELP)]
    Answer {
        /// The ask's id.
        id: String,
        /// The answers: a file holding the submit body, e.g.
        /// {"answers": [{"id": "scope", "selected": ["a"]}]} (`-` reads stdin); the body of
        /// `POST /api/asks/{id}/submit` in docs/api.md.
        #[arg(long = "json", value_name = "FILE")]
        json: String,
        #[command(flatten)]
        format: FormatArg,
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
    let (method, path, body, as_json) = match &cmd {
        AsksCommand::List {
            state,
            session,
            kind,
            limit,
            output,
        } => {
            let state = state.to_possible_value().expect("a value");
            let mut q = vec![format!("state={}", state.get_name())];
            if let Some(s) = session {
                q.push(format!("session={}", seg(s)));
            }
            if let Some(k) = kind {
                q.push(format!(
                    "kind={}",
                    k.to_possible_value().expect("a value").get_name()
                ));
            }
            if let Some(l) = limit {
                q.push(format!("limit={l}"));
            }
            (
                Method::GET,
                format!("/api/asks?{}", q.join("&")),
                None,
                output.json(),
            )
        }
        AsksCommand::Show { id, output } => (
            Method::GET,
            format!("/api/asks/{}", seg(id)),
            None,
            output.json(),
        ),
        AsksCommand::Answer { id, json, format } => {
            let text = match read_input(json) {
                Ok(t) => t,
                Err(code) => return code,
            };
            let body = match with_cli_surface(&text) {
                Ok(b) => b,
                Err(e) => {
                    eprintln!("askd asks answer: {json}: {e}");
                    return ExitCode::from(EXIT_INVALID);
                }
            };
            (
                Method::POST,
                format!("/api/asks/{}/submit", seg(id)),
                Some(body),
                format.json(),
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
            let ok = (200..=299).contains(&reply.status);
            if as_json {
                print_json(&reply.body);
            } else if !ok {
                let e = reply.error();
                eprintln!("askd asks: {} ({})", e.message, e.code);
                for p in reply.body["errors"].as_array().into_iter().flatten() {
                    eprintln!("  {}: {}", plain(&p["path"]), plain(&p["message"]));
                }
            } else {
                match &cmd {
                    AsksCommand::List { .. } => print_list(&reply.body),
                    AsksCommand::Show { .. } => print_show(&reply.body),
                    AsksCommand::Answer { .. } => print_answered(&reply.body),
                }
            }
            match reply.status {
                200..=299 => ExitCode::SUCCESS,
                400 | 404 | 409 | 413 | 415 | 422 => ExitCode::from(EXIT_INVALID),
                _ => ExitCode::FAILURE,
            }
        }
        Err(code) => code,
    }
}

/// The submit body with `"surface": "cli"` added when the file names none, so the result
/// and the record say where the answer came from. A file that is not a JSON object is sent
/// as it is: the daemon names what is wrong with it.
fn with_cli_surface(text: &str) -> Result<String, String> {
    match serde_json::from_str::<Value>(text) {
        Ok(Value::Object(mut m)) => {
            m.entry("surface").or_insert_with(|| json!("cli"));
            Ok(Value::Object(m).to_string())
        }
        Ok(_) => Ok(text.to_string()),
        Err(e) => Err(format!(
            "not JSON ({e}) — write the submit body, e.g. {{\"answers\": [{{\"id\": \"scope\", \"selected\": [\"a\"]}}]}}"
        )),
    }
}

fn print_list(body: &Value) {
    let asks = body["asks"].as_array().cloned().unwrap_or_default();
    if asks.is_empty() {
        println!("No asks.");
        return;
    }
    let rows: Vec<Vec<String>> = asks
        .iter()
        .map(|a| {
            let state = match a["outcome"].as_str() {
                Some(o) => o.to_string(),
                None => plain(&a["state"]),
            };
            vec![
                plain(&a["id"]),
                plain(&a["kind"]),
                state,
                cut(&plain(&a["created_at"]), 19).replace('T', " "),
                cut(&clean(&plain(&a["client"])), 20),
                cut(&clean(a["title"].as_str().unwrap_or("")), 60),
            ]
        })
        .collect();
    output::table(
        &["ID", "KIND", "STATE", "CREATED", "CLIENT", "TITLE"],
        &rows,
    );
    let more = if body["more"] == true {
        " (the newest; there are older ones: --limit N for more)"
    } else {
        ""
    };
    println!(
        "\n{} ask(s){more}. `askd asks show ID` for one; --json for scripts.",
        asks.len()
    );
}

fn print_show(ask: &Value) {
    let mut rows = vec![
        ("id", plain(&ask["ask_id"])),
        ("kind", plain(&ask["kind"])),
        ("title", clean(ask["title"].as_str().unwrap_or(""))),
        ("state", plain(&ask["state"])),
        ("session", plain(&ask["session"])),
        ("client", clean(&plain(&ask["client"]))),
        ("created", plain(&ask["createdAt"])),
    ];
    if ask["state"] != "pending" {
        rows.push(("outcome", plain(&ask["outcome"])));
        rows.push(("settled", plain(&ask["settledAt"])));
    }
    rows.push(("url", plain(&ask["url"])));
    output::fields(&rows);
    let spec = &ask["spec"];
    if let Some(intro) = spec["intro"].as_str() {
        println!("\n{}", clean(intro));
    }
    if let Some(qs) = spec["questions"].as_object() {
        println!("\nquestions:");
        for (id, q) in qs {
            println!("  {id}: {}", clean(q["prompt"].as_str().unwrap_or("")));
            for o in q["options"].as_array().into_iter().flatten() {
                println!(
                    "      {}) {}",
                    plain(&o["key"]),
                    clean(o["label"].as_str().unwrap_or(""))
                );
            }
        }
    } else if let Some(qs) = spec["questions"].as_array() {
        println!("\nquestions:");
        for q in qs {
            println!("  {}", clean(q["question"].as_str().unwrap_or("")));
            for o in q["options"].as_array().into_iter().flatten() {
                println!("      - {}", clean(o["label"].as_str().unwrap_or("")));
            }
        }
    } else if let Some(items) = spec["items"].as_array() {
        println!("\nitems: {}", items.len());
        for i in items.iter().take(20) {
            println!(
                "  {}: {}",
                plain(&i["id"]),
                clean(i["title"].as_str().unwrap_or(""))
            );
        }
    }
    if let Some(banked) = ask["banked"].as_array().filter(|b| !b.is_empty()) {
        println!("\nbanked:");
        for b in banked {
            let sel: Vec<String> = b["selected"]
                .as_array()
                .into_iter()
                .flatten()
                .map(plain)
                .collect();
            println!("  {}: {}", plain(&b["id"]), sel.join(", "));
        }
    }
    if ask["result"].is_object() {
        println!("\nresult (what the agent received):");
        for line in output::result_lines(&ask["result"]) {
            println!("  {line}");
        }
    }
    println!("\n--json prints everything (spec, rendered text, autosave) as JSON.");
}

fn print_answered(reply: &Value) {
    let result = if reply["result"].is_object() {
        &reply["result"]
    } else {
        reply
    };
    println!("Settled. The agent receives:");
    for line in output::result_lines(result) {
        println!("  {line}");
    }
}

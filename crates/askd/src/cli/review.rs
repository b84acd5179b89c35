//! `askd review export ID` and `askd review import ID FILE` (`review.md` §8): a review as a
//! file, and a filled file back, through the running daemon.
//!
//! Exit codes of `import`: 0 settled (or, with `--dry-run`, valid); 1 the file has problems;
//! 2 usage error or unreadable file; 3 no such ask, or the ask is not a review; 4 the review
//! is already settled. `export` uses 0, 2 and 3 the same way.

use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

use askd_client::{Paths, seg};
use clap::{Subcommand, ValueEnum};
use reqwest::Method;
use serde_json::{Value, json};

use super::client::Client;
use super::{EXIT_INVALID, EXIT_USAGE};

/// No such ask, or not a review.
const EXIT_NO_REVIEW: u8 = 3;
/// The review has already settled.
const EXIT_SETTLED: u8 = 4;

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ExportFormat {
    Csv,
    Html,
    Json,
}

impl ExportFormat {
    fn as_str(self) -> &'static str {
        match self {
            ExportFormat::Csv => "csv",
            ExportFormat::Html => "html",
            ExportFormat::Json => "json",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ImportFormat {
    Csv,
    Json,
}

#[derive(Debug, Subcommand)]
pub enum ReviewCommand {
    /// Write a review to a file: CSV for spreadsheets, a self-contained HTML page that works
    /// offline, or JSON. Exporting never changes the review.
    Export {
        /// The review's ask id.
        id: String,
        /// The file's format.
        #[arg(long, value_enum)]
        format: ExportFormat,
        /// Where to write (default `<id>.<format>`; `-` for standard output).
        #[arg(long, value_name = "FILE")]
        out: Option<String>,
        /// Replace an existing file.
        #[arg(long)]
        force: bool,
    },
    /// Validate a filled CSV or JSON file and settle the pending review with it
    /// (surface "import"). All or nothing: any problem and the review stays pending.
    Import {
        /// The review's ask id.
        id: String,
        /// The filled file (its extension names the format unless --format does).
        file: String,
        /// The file's format [default: from the file's extension].
        #[arg(long, value_enum)]
        format: Option<ImportFormat>,
        /// Validate and show what the result would be, without settling.
        #[arg(long)]
        dry_run: bool,
    },
}

pub fn run(cmd: ReviewCommand) -> ExitCode {
    let paths = match Paths::from_process() {
        Ok(p) => p,
        Err(e) => {
            eprintln!("askd: {e}");
            return ExitCode::from(EXIT_USAGE);
        }
    };
    // Arguments are checked before the daemon is looked for.
    let job = match prepare(cmd) {
        Ok(j) => j,
        Err(code) => return code,
    };
    let client = match Client::connect(&paths) {
        Ok(c) => c,
        Err(code) => return code,
    };
    let runtime = match tokio::runtime::Runtime::new() {
        Ok(r) => r,
        Err(e) => {
            eprintln!("askd: cannot start the async runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    runtime.block_on(async {
        match job {
            Job::Export {
                id,
                format,
                out,
                force,
            } => export(&client, &id, format, out.as_deref(), force).await,
            Job::Import {
                id,
                format,
                content,
                dry_run,
            } => import(&client, &id, format, content, dry_run).await,
        }
    })
}

enum Job {
    Export {
        id: String,
        format: ExportFormat,
        out: Option<String>,
        force: bool,
    },
    Import {
        id: String,
        format: ImportFormat,
        content: String,
        dry_run: bool,
    },
}

fn prepare(cmd: ReviewCommand) -> Result<Job, ExitCode> {
    match cmd {
        ReviewCommand::Export {
            id,
            format,
            out,
            force,
        } => Ok(Job::Export {
            id,
            format,
            out,
            force,
        }),
        ReviewCommand::Import {
            id,
            file,
            format,
            dry_run,
        } => {
            let format = match format {
                Some(f) => f,
                None => match Path::new(&file)
                    .extension()
                    .map(|e| e.to_string_lossy().to_ascii_lowercase())
                    .as_deref()
                {
                    Some("csv") => ImportFormat::Csv,
                    Some("json") => ImportFormat::Json,
                    _ => {
                        eprintln!(
                            "askd: cannot tell the format of {file} from its extension — name it .csv or .json, or pass --format csv|json"
                        );
                        return Err(ExitCode::from(EXIT_USAGE));
                    }
                },
            };
            let bytes = std::fs::read(&file).map_err(|e| {
                eprintln!("askd: cannot read {file}: {e}");
                ExitCode::from(EXIT_USAGE)
            })?;
            let content = String::from_utf8(bytes).map_err(|_| {
                eprintln!(
                    "askd: {file} is not UTF-8 text — save the sheet as CSV UTF-8 (\"CSV UTF-8 (Comma delimited)\" in Excel) and import it again"
                );
                ExitCode::from(EXIT_USAGE)
            })?;
            Ok(Job::Import {
                id,
                format,
                content,
                dry_run,
            })
        }
    }
}

/// Prints the daemon's error and maps it to this command's exit code.
fn fail(status: u16, body: &Value) -> ExitCode {
    let message = body["message"]
        .as_str()
        .or(body["error"].as_str())
        .unwrap_or("the daemon refused the request");
    match status {
        404 => {
            eprintln!("askd: {message}");
            ExitCode::from(EXIT_NO_REVIEW)
        }
        409 => {
            eprintln!(
                "askd: the review has already settled: outcome {}, surface {}, at {}",
                body["outcome"].as_str().unwrap_or("?"),
                body["surface"].as_str().unwrap_or("?"),
                body["settledAt"].as_str().unwrap_or("?"),
            );
            ExitCode::from(EXIT_SETTLED)
        }
        422 if body["code"] == "not-a-review" => {
            eprintln!("askd: {message}");
            ExitCode::from(EXIT_NO_REVIEW)
        }
        422 | 400 => {
            match body["errors"].as_array() {
                Some(errors) if !errors.is_empty() => {
                    for e in errors {
                        let path = e["path"].as_str().unwrap_or_default();
                        let m = e["message"].as_str().unwrap_or_default();
                        // Messages already begin with their path.
                        if m.starts_with(path) {
                            eprintln!("{m}");
                        } else {
                            eprintln!("{path}: {m}");
                        }
                    }
                }
                _ => eprintln!("askd: {message}"),
            }
            ExitCode::from(EXIT_INVALID)
        }
        _ => {
            eprintln!("askd: {message}");
            ExitCode::FAILURE
        }
    }
}

async fn export(
    client: &Client,
    id: &str,
    format: ExportFormat,
    out: Option<&str>,
    force: bool,
) -> ExitCode {
    let (status, text) = match client
        .get_text(&format!(
            "/api/asks/{}/export?format={}",
            seg(id),
            format.as_str()
        ))
        .await
    {
        Ok(r) => r,
        Err(code) => return code,
    };
    if status != 200 {
        let body: Value = serde_json::from_str(&text).unwrap_or(Value::Null);
        return fail(status, &body);
    }
    let default = format!("{id}.{}", format.as_str());
    let out = out.unwrap_or(&default);
    if out == "-" {
        let mut stdout = std::io::stdout();
        return match stdout
            .write_all(text.as_bytes())
            .and_then(|_| stdout.flush())
        {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("askd: cannot write to standard output: {e}");
                ExitCode::FAILURE
            }
        };
    }
    if Path::new(out).exists() && !force {
        eprintln!("askd: {out} exists — pass --force to replace it");
        return ExitCode::from(EXIT_USAGE);
    }
    match std::fs::write(out, text.as_bytes()) {
        Ok(()) => {
            println!("{out}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("askd: cannot write {out}: {e}");
            ExitCode::from(EXIT_USAGE)
        }
    }
}

async fn import(
    client: &Client,
    id: &str,
    format: ImportFormat,
    content: String,
    dry_run: bool,
) -> ExitCode {
    let format = match format {
        ImportFormat::Csv => "csv",
        ImportFormat::Json => "json",
    };
    let body = json!({"format": format, "content": content, "dry_run": dry_run});
    let reply = match client
        .call(
            Method::POST,
            &format!("/api/asks/{}/import", seg(id)),
            Some(body.to_string()),
        )
        .await
    {
        Ok(r) => r,
        Err(code) => return code,
    };
    if reply.status != 200 {
        return fail(reply.status, &reply.body);
    }
    let b = &reply.body;
    if dry_run {
        println!("valid (dry run, nothing settled)");
    }
    println!("{}", b["counts"].as_str().unwrap_or_default());
    let blank: Vec<&str> = if dry_run {
        b["unfilled"]
            .as_array()
            .map(|a| a.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default()
    } else {
        b["result"]["items"]
            .as_array()
            .map(|a| {
                a.iter()
                    .filter(|i| i["filled"] == false)
                    .filter_map(|i| i["id"].as_str())
                    .collect()
            })
            .unwrap_or_default()
    };
    let missing: Vec<&str> = b["missing"]
        .as_array()
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    if !missing.is_empty() {
        println!("not in the file (blank): {}", missing.join(", "));
    }
    if !blank.is_empty() {
        println!("unfilled — not a pass, follow up: {}", blank.join(", "));
    }
    println!("{}", b["url"].as_str().unwrap_or_default());
    ExitCode::SUCCESS
}

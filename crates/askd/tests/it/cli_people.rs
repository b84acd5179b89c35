//! The command line for people (issue 29), through the built binary: `asks answer` records
//! surface `cli`; `asks list` / `show` / `doctor` print text with `--format text` and JSON in
//! a pipe; unknown `--kind` values are refused naming the legal ones; `askd stop` stops the
//! daemon cleanly; completions and the man page come from the same definitions as `--help`;
//! the example `askd.toml` documents every key and loads; logs carry no ANSI colour off a
//! terminal; a binary that cannot find its web UI says so in one line (503), never a 500.

use crate::common_mcp;

use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use askd_testkit::serve::Serve;
use common_mcp::*;
use serde_json::{Value, json};

fn askd(home: &Home, args: &[&str]) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_askd"));
    cmd.args(args)
        .current_dir(home.path())
        .env_remove("ASKD_FORMAT")
        .env_remove("NO_COLOR");
    for (k, v) in home.env() {
        cmd.env(k, v);
    }
    cmd.output().expect("run askd")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// The ask `asks_answer_…` answers: flat questions, as an agent's `ask_user_question` call.
fn questions_args() -> Value {
    json!({"questions": [{"id": "db", "question": "Which database?",
        "options": [{"label": "SQLite"}, {"label": "PostgreSQL"}]}]})
}

/// The CLI's answer is recorded with surface `cli`, in the reply and the record. The ask is
/// created through the HTTP API, as the adapter would; the agent's side is the test
/// below.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn asks_answer_records_surface_cli_and_list_show_print_text_for_people() {
    let home = Home::new();
    // A daemon, started the way every client starts it.
    let started = askd(&home, &["doctor", "--json"]);
    assert!(started.status.success());
    let serve = Serve::command(env!("CARGO_BIN_EXE_askd"), home.path())
        .envs(home.env())
        .start();
    let api = home.api();
    let session = api
        .post("/api/sessions", json!({"client": "cli-test"}))
        .await;
    let (status, created) = api
        .call(
            reqwest::Method::POST,
            "/api/asks",
            Some(json!({"kind": "questions", "session": session["session"]["id"], "args": questions_args()})),
        )
        .await;
    assert_eq!(status, 201, "{created}");
    let id = created["ask_id"].as_str().unwrap().to_string();

    // A table for people, JSON in a pipe (what scripts rely on), --json on request.
    let list = askd(&home, &["asks", "list", "--format", "text"]);
    assert!(list.status.success(), "{}", text(&list.stderr));
    let out = text(&list.stdout);
    let header = out.lines().next().unwrap();
    assert!(header.starts_with("ID ") && header.contains("KIND") && header.contains("TITLE"));
    assert!(
        out.contains(&id) && out.contains("Which database?"),
        "{out}"
    );
    let piped = askd(&home, &["asks", "list"]);
    let v: Value = serde_json::from_slice(&piped.stdout).expect("JSON in a pipe");
    assert_eq!(v["asks"][0]["id"], id.as_str());
    let forced = askd(&home, &["asks", "list", "--json", "--kind", "questions"]);
    let v: Value = serde_json::from_slice(&forced.stdout).expect("--json");
    assert_eq!(v["asks"].as_array().unwrap().len(), 1);

    let show = askd(&home, &["asks", "show", &id, "--format", "text"]);
    let out = text(&show.stdout);
    assert!(
        out.contains("questions:") && out.contains("- PostgreSQL"),
        "{out}"
    );

    let file = temp_path(&home, "answers.json");
    std::fs::write(
        &file,
        r#"{"answers": [{"id": "db", "selected": ["PostgreSQL"]}]}"#,
    )
    .unwrap();
    let answered = askd(
        &home,
        &["asks", "answer", &id, "--json", file.to_str().unwrap()],
    );
    assert!(answered.status.success(), "{}", text(&answered.stderr));
    let reply: Value = serde_json::from_slice(&answered.stdout).unwrap();
    assert_eq!(reply["result"]["surface"], "cli", "{reply}");
    let records = api.get("/api/records").await;
    assert!(
        records["records"][0]["record"]
            .to_string()
            .contains(r#""surface":"cli""#),
        "{records}"
    );

    let show = askd(&home, &["asks", "show", &id, "--format", "text"]);
    let out = text(&show.stdout);
    assert!(out.contains("result (what the agent received):"), "{out}");
    assert!(out.contains("db: PostgreSQL"), "{out}");

    // An answers file that is not JSON is refused naming the file, before the daemon.
    std::fs::write(&file, "{not json").unwrap();
    let bad = askd(
        &home,
        &["asks", "answer", &id, "--json", file.to_str().unwrap()],
    );
    assert_eq!(bad.status.code(), Some(1));
    assert!(
        text(&bad.stderr).contains("answers.json: not JSON"),
        "{}",
        text(&bad.stderr)
    );
    drop(serve);
}

/// The agent's side of a CLI answer: the tool result says `cli` and matches the tool's
/// outputSchema (whose surface enums name `cli`).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_answer_from_the_cli_reaches_the_agent_as_surface_cli() {
    let home = Home::new();
    let a = home.adapter("claude-code", &[]).await;
    let call = a.start_call("ask_user_question", questions_args()).await;
    let id = home.api().new_ask(&[]).await["id"]
        .as_str()
        .unwrap()
        .to_string();
    let file = temp_path(&home, "answers.json");
    std::fs::write(
        &file,
        r#"{"answers": [{"id": "db", "selected": ["SQLite"]}]}"#,
    )
    .unwrap();
    let answered = askd(
        &home,
        &["asks", "answer", &id, "--json", file.to_str().unwrap()],
    );
    assert!(answered.status.success(), "{}", text(&answered.stderr));
    let r = finish(call).await;
    assert_eq!(structured(&r)["surface"], "cli", "{r}");
}

#[test]
fn an_unknown_kind_or_state_is_refused_naming_the_legal_values() {
    let home = Home::new();
    let out = askd(&home, &["asks", "list", "--kind", "bogus"]);
    assert_eq!(out.status.code(), Some(2));
    let err = text(&out.stderr);
    assert!(
        err.contains("invalid value 'bogus'") && err.contains("survey, questions, review, drift"),
        "{err}"
    );
    let out = askd(&home, &["asks", "list", "--state", "done"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("pending, settled, all"));
}

#[test]
fn the_help_lists_try_first_and_names_askd_home() {
    let home = Home::new();
    let out = askd(&home, &["--help"]);
    let help = text(&out.stdout);
    let commands: Vec<&str> = help
        .lines()
        .skip_while(|l| !l.starts_with("Commands:"))
        .skip(1)
        .filter_map(|l| {
            l.strip_prefix("  ")
                .and_then(|l| l.split_whitespace().next())
        })
        .collect();
    assert_eq!(commands.first(), Some(&"try"), "{help}");
    assert!(help.contains("ASKD_HOME"), "{help}");
    let serve = text(&askd(&home, &["serve", "--help"]).stdout);
    assert!(
        serve.contains("--max-wait") && serve.contains("[env: ASKD_MAX_WAIT]"),
        "{serve}"
    );
    assert!(serve.contains("ASKD_HOME"), "{serve}");
    let list = text(&askd(&home, &["asks", "list", "--help"]).stdout);
    assert!(
        list.contains("--limit <N>") && list.contains("At most this many"),
        "{list}"
    );
}

#[test]
fn doctor_prints_text_for_people_and_json_in_a_pipe() {
    let home = Home::new();
    let out = askd(&home, &["doctor", "--format", "text"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let s = text(&out.stdout);
    assert!(s.starts_with("askd "), "{s}");
    assert!(
        s.contains("data directory") && s.contains("not running"),
        "{s}"
    );
    assert!(s.contains("web UI"), "{s}");
    let piped = askd(&home, &["doctor"]);
    let v: Value = serde_json::from_slice(&piped.stdout).expect("JSON in a pipe");
    assert_eq!(v["ok"], true);
    assert_eq!(v["ui"]["ok"], true, "{v}");
}

/// Starts `askd serve` for `home` with `env`, its log piped to `child.stderr` with colour
/// left to the daemon (`NO_COLOR` removed).
fn serve(home: &Home, env: &[(&str, &str)]) -> Serve {
    Serve::command(env!("CARGO_BIN_EXE_askd"), home.path())
        .env_remove("NO_COLOR")
        .envs(env.iter().copied())
        .stderr_piped()
        .start()
}

#[test]
fn stop_stops_the_daemon_cleanly_and_says_when_none_runs() {
    let home = Home::new();
    let none = askd(&home, &["stop"]);
    assert!(none.status.success());
    assert!(text(&none.stdout).contains("no daemon is running"));
    let mut daemon = serve(&home, &[]);
    let out = askd(&home, &["stop"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let url = &daemon.url;
    assert!(text(&out.stdout).contains(&format!("stopped the daemon at {url}")));
    let status = daemon.child.wait().unwrap();
    assert!(status.success(), "a clean stop exits 0: {status}");
    assert!(!home.path().join("daemon.json").exists());
    // Logs to a pipe have no colour codes.
    let mut log = String::new();
    std::io::Read::read_to_string(daemon.child.stderr.as_mut().unwrap(), &mut log).unwrap();
    assert!(log.contains("stop signal received"), "{log}");
    assert!(!log.contains('\u{1b}'), "ANSI in a piped log: {log:?}");
}

#[cfg(debug_assertions)]
#[test]
fn a_binary_that_cannot_find_its_ui_says_so_in_one_line_with_the_fix() {
    let home = Home::new();
    let missing = home.path().join("no-ui-here");
    let daemon = serve(&home, &[("ASKD_UI_DIR", missing.to_str().unwrap())]);
    let rt = tokio::runtime::Runtime::new().unwrap();
    let (status, body) = rt.block_on(async {
        let r = reqwest::Client::new()
            .get(format!("{}/", daemon.url))
            .bearer_auth(&daemon.token)
            .send()
            .await
            .unwrap();
        (r.status().as_u16(), r.text().await.unwrap())
    });
    assert_eq!(status, 503, "{body}");
    assert_eq!(body.trim_end().lines().count(), 1, "{body}");
    assert!(body.contains("cannot find its web UI") && body.contains("cargo install --locked"));
    let doctor = askd(&home, &["doctor"]);
    let v: Value = serde_json::from_slice(&doctor.stdout).unwrap();
    assert_eq!(
        v["ui"]["ok"], true,
        "doctor's own process has the checkout's ui/"
    );
    drop(daemon);
}

#[test]
fn completions_and_the_man_page_come_from_the_command_definitions() {
    let home = Home::new();
    for shell in ["bash", "zsh", "fish"] {
        let out = askd(&home, &["completions", shell]);
        assert!(out.status.success(), "{shell}");
        let s = text(&out.stdout);
        assert!(
            s.contains("askd") && s.contains("max-wait") && s.contains("answer-in"),
            "{shell}"
        );
    }
    let out = askd(&home, &["completions", "tcsh"]);
    assert_eq!(out.status.code(), Some(2));
    let man = askd(&home, &["man"]);
    let s = text(&man.stdout);
    assert!(
        s.starts_with(".ie") || s.contains(".TH askd"),
        "{}",
        &s[..200.min(s.len())]
    );
    assert!(s.contains("stop") && s.contains("ASKD_HOME"));
    let dir = home.path().join("man");
    let out = askd(&home, &["man", "--dir", dir.to_str().unwrap()]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(dir.join("askd.1").exists() && dir.join("askd-asks-list.1").exists());
}

#[test]
fn the_example_config_documents_every_key_and_loads_uncommented() {
    let example = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../examples/askd.toml"
    ))
    .unwrap();
    for doc in askd_daemon::config::key_docs() {
        let line = format!("# {} = ", doc.name);
        let table = format!("# [{}]", doc.table.unwrap_or(""));
        assert!(
            example.contains(&line)
                || (doc.name == "webhook" && example.contains("[[notify.webhook]]")),
            "examples/askd.toml has no commented `{}`",
            doc.key
        );
        if doc.table.is_some() {
            assert!(example.contains(&table), "no {table}");
        }
    }
    // As shipped (everything commented) and with every setting uncommented, doctor loads it.
    let uncommented: String = example
        .lines()
        .map(|l| match l.strip_prefix("# ") {
            Some(rest)
                if !rest.starts_with(' ')
                    && !rest.starts_with('#')
                    && (rest.contains(" = ") || rest.starts_with('[')) =>
            {
                rest
            }
            _ => l,
        })
        .collect::<Vec<_>>()
        .join("\n");
    for text_ in [example.as_str(), uncommented.as_str()] {
        let home = Home::new();
        std::fs::write(home.path().join("askd.toml"), text_).unwrap();
        let out = askd(&home, &["doctor", "--json"]);
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(v["ok"], true, "{}\n{text_}", v["configError"]);
    }
}

/// `askd try` with no display and no terminal: it prints the URL and the hint to answer in
/// the terminal, waits, prints the result readably (`--format text`), and says how to stop
/// the daemon it leaves running.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn try_prints_the_result_readably_and_how_to_stop_the_daemon() {
    let home = Home::new();
    let mut cmd = tokio::process::Command::new(env!("CARGO_BIN_EXE_askd"));
    cmd.args(["try", "--format", "text"])
        .envs(home.env())
        .env_remove("DISPLAY")
        .env_remove("WAYLAND_DISPLAY")
        .env_remove("SSH_CONNECTION")
        .env_remove("SSH_TTY")
        .env("ASKD_LOG", "warn")
        .current_dir(home.path())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let child = cmd.spawn().unwrap();
    let deadline = Instant::now() + Duration::from_secs(30);
    let id = loop {
        if home.daemon().is_some()
            && let Some(a) = home.api().asks().await.first()
        {
            break a["id"].as_str().unwrap().to_string();
        }
        assert!(Instant::now() < deadline, "no ask appeared");
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    home.api()
        .post(&format!("/api/asks/{id}/cancel"), json!({}))
        .await;
    let out = tokio::time::timeout(Duration::from_secs(30), child.wait_with_output())
        .await
        .expect("try returns once the ask settles")
        .unwrap();
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert!(out.status.success(), "{stderr}");
    assert!(
        stdout.starts_with("The agent receives (in short):"),
        "{stdout}"
    );
    assert!(stdout.contains("outcome: cancelled"), "{stdout}");
    assert!(
        stdout.contains("\n  \"outcome\": \"cancelled\""),
        "pretty JSON: {stdout}"
    );
    assert!(
        stderr.contains("/a/") && stderr.contains("?token="),
        "{stderr}"
    );
    assert!(
        stderr.contains("no display here") && stderr.contains("--answer-in terminal"),
        "{stderr}"
    );
    assert!(stderr.contains("`askd stop` stops it"), "{stderr}");
    let stop = askd(&home, &["stop"]);
    assert!(stop.status.success(), "{}", text(&stop.stderr));
}

//! `askd review export` and `askd review import` through the built binary against a running
//! daemon (`review.md` §8): export → fill the CSV → import settles the waiting `batch_review`
//! call with the same result the panel would give, with surface `import`; every exit code.

use crate::common_mcp;

use std::process::{Command, Output};

use common_mcp::*;
use serde_json::{Value, json};

fn askd(home: &Home, args: &[&str]) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_askd"));
    cmd.args(args).current_dir(home.path());
    for (k, v) in home.env() {
        cmd.env(k, v);
    }
    cmd.output().expect("run askd")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn review_args() -> Value {
    json!({
        "title": "Release checklist",
        "items": [
            {"id": "build", "op": "Run cargo build --release", "expect": "No warnings", "group": "Build"},
            {"id": "tests", "title": "All tests pass on CI", "group": "Build"},
            {"id": "docs", "title": "Docs mention the new command", "group": "Docs"},
            {"id": "tag", "type": "bool", "title": "Tag the release today"},
            {"id": "channel", "type": "choice", "title": "Release channel",
             "options": [{"v": "stable", "t": "Stable"}, {"v": "beta", "t": "Beta"}]},
            {"id": "conf", "type": "scale", "title": "Confidence", "min": 1, "max": 5}
        ]
    })
}

/// Sets the verdict and note cells of the row whose first cell is `id`.
fn fill(csv: &str, fills: &[(&str, &str, &str)]) -> String {
    let body = csv.trim_start_matches('\u{feff}');
    let mut out = String::from("\u{feff}");
    for (i, line) in body.split("\r\n").enumerate() {
        if line.is_empty() {
            continue;
        }
        if i == 0 {
            out.push_str(line);
        } else {
            let id = line.split(',').next().unwrap();
            let (_, verdict, note) = fills
                .iter()
                .find(|(f, _, _)| *f == id)
                .copied()
                .unwrap_or((id, "", ""));
            // The last two cells are the empty verdict and note of the export.
            let stem = line.strip_suffix(",,").expect("blank verdict and note");
            out.push_str(&format!(
                "{stem},{verdict},\"{}\"",
                note.replace('"', "\"\"")
            ));
        }
        out.push_str("\r\n");
    }
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn export_fill_import_settles_the_waiting_call_like_the_panel() {
    let home = Home::new();
    let a = home.adapter("claude-code", &[]).await;
    let call = a.start_call("batch_review", review_args()).await;
    let api = home.api();
    let id = api.new_ask(&[]).await["id"].as_str().unwrap().to_string();

    // Export: CSV to a file, HTML and JSON too; an existing file needs --force.
    let out = askd(&home, &["review", "export", &id, "--format", "csv"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let csv_path = home.path().join(format!("{id}.csv"));
    assert_eq!(stdout(&out).trim(), format!("{id}.csv"));
    let csv = std::fs::read_to_string(&csv_path).unwrap();
    assert!(csv.starts_with(
        "\u{feff}id,group,header,type,title,op,expect,boolDesc,detail,allowed,verdict,note\r\n"
    ));
    let again = askd(&home, &["review", "export", &id, "--format", "csv"]);
    assert_eq!(again.status.code(), Some(2));
    assert!(stderr(&again).contains("--force"));
    assert_eq!(
        askd(
            &home,
            &["review", "export", &id, "--format", "csv", "--force"]
        )
        .status
        .code(),
        Some(0)
    );
    let html = askd(
        &home,
        &["review", "export", &id, "--format", "html", "--out", "-"],
    );
    assert_eq!(html.status.code(), Some(0));
    assert!(stdout(&html).starts_with("<!doctype html>"));
    let page = home.path().join("page.html");
    let out = askd(
        &home,
        &[
            "review",
            "export",
            &id,
            "--format",
            "html",
            "--out",
            page.to_str().unwrap(),
        ],
    );
    assert_eq!(out.status.code(), Some(0));
    assert!(
        std::fs::read_to_string(&page)
            .unwrap()
            .contains("Release checklist")
    );
    let js = askd(
        &home,
        &["review", "export", &id, "--format", "json", "--out", "-"],
    );
    let js: Value = serde_json::from_slice(&js.stdout).unwrap();
    assert_eq!(js["format"], "askd-batch-review");

    // A sheet with problems: exit 1, every problem on stderr, nothing settles.
    let bad = home.path().join("bad.csv");
    std::fs::write(
        &bad,
        fill(&csv, &[("build", "ok", ""), ("tag", "maybe", "")]),
    )
    .unwrap();
    let out = askd(&home, &["review", "import", &id, bad.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains(
            "rows[2].verdict must be one of pass, fail, pending for item \"build\" (got \"ok\")"
        ),
        "{err}"
    );
    assert!(
        err.contains("rows[5].verdict must be one of yes, no for item \"tag\""),
        "{err}"
    );
    assert_eq!(api.ask(&id).await["state"], "pending");

    // The filled sheet: a dry run first, then the import.
    let good = home.path().join("filled.csv");
    std::fs::write(
        &good,
        fill(
            &csv,
            &[
                ("build", "Pass", ""),
                ("tests", "fail", "flaky test in store"),
                ("tag", "yes", ""),
                ("channel", "Beta", ""),
                ("conf", "4", ""),
            ],
        ),
    )
    .unwrap();
    let dry = askd(
        &home,
        &["review", "import", &id, good.to_str().unwrap(), "--dry-run"],
    );
    assert_eq!(dry.status.code(), Some(0), "{}", stderr(&dry));
    assert!(
        stdout(&dry).contains(
            "6 items · 5 filled · 1 unfilled · 1 pass · 1 fail · 0 pending · 1 yes · 0 no"
        )
    );
    assert_eq!(api.ask(&id).await["state"], "pending");
    let out = askd(&home, &["review", "import", &id, good.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.contains("6 items · 5 filled · 1 unfilled"), "{text}");
    assert!(
        text.contains("unfilled — not a pass, follow up: docs"),
        "{text}"
    );
    assert!(text.contains(&format!("/a/{id}")), "{text}");

    // The waiting agent call gets the panel's result, surface import.
    let r = finish(call).await;
    assert_ne!(r["isError"], true, "{r}");
    let sc = r["structuredContent"].clone();
    assert_eq!(sc["surface"], "import");
    assert_eq!(sc["outcome"], "answered");
    let verdicts: Vec<(&str, &str, bool)> = sc["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| {
            (
                i["id"].as_str().unwrap(),
                i["verdict"].as_str().unwrap(),
                i["filled"].as_bool().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        verdicts,
        [
            ("build", "pass", true),
            ("tests", "fail", true),
            ("docs", "", false),
            ("tag", "yes", true),
            ("channel", "beta", true),
            ("conf", "4", true),
        ]
    );
    // The same answers through the panel give the same result but for id and surface.
    let mut twin_args = review_args();
    twin_args["timeout_s"] = json!(0);
    let twin = a.call("batch_review", twin_args).await["structuredContent"]["ask_id"]
        .as_str()
        .unwrap()
        .to_string();
    let panel = api
        .submit(
            &twin,
            json!({"answers": [
                {"id": "build", "verdict": "pass"},
                {"id": "tests", "verdict": "fail", "note": "flaky test in store"},
                {"id": "tag", "verdict": "yes"},
                {"id": "channel", "selected": ["beta"]},
                {"id": "conf", "verdict": "4"}
            ]}),
        )
        .await["result"]
        .clone();
    let mut expected = panel;
    expected["ask_id"] = json!(id);
    expected["surface"] = json!("import");
    assert_eq!(sc, expected);

    // Importing again: already settled, exit 4.
    let out = askd(&home, &["review", "import", &id, good.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(4));
    assert!(
        stderr(&out).contains("outcome answered, surface import"),
        "{}",
        stderr(&out)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn import_exit_codes_for_bad_files_and_asks() {
    let home = Home::new();
    let _a = home.adapter("claude-code", &[]).await;
    let api = home.api();
    let (status, created) = api
        .call(
            reqwest::Method::POST,
            "/api/asks",
            Some(json!({"kind": "review", "args": review_args()})),
        )
        .await;
    assert_eq!(status, 201, "{created}");
    let id = created["ask_id"].as_str().unwrap().to_string();

    // Usage: unknown extension, unreadable, not UTF-8.
    let odd = home.path().join("answers.txt");
    std::fs::write(&odd, "id,verdict,note\n").unwrap();
    let out = askd(&home, &["review", "import", &id, odd.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("--format"));
    assert_eq!(
        askd(&home, &["review", "import", &id, "missing.csv"])
            .status
            .code(),
        Some(2)
    );
    let latin1 = home.path().join("latin1.csv");
    std::fs::write(&latin1, b"id,verdict,note\nbuild,pass,caf\xe9\n").unwrap();
    let out = askd(&home, &["review", "import", &id, latin1.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("save the sheet as CSV UTF-8"),
        "{}",
        stderr(&out)
    );
    // --format overrides the extension: semicolons and JSON-less text are fine as CSV.
    let semi = home.path().join("answers.txt");
    std::fs::write(&semi, "id;verdict;note\nbuild;pass;\n").unwrap();
    let out = askd(
        &home,
        &[
            "review",
            "import",
            &id,
            semi.to_str().unwrap(),
            "--format",
            "csv",
            "--dry-run",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));

    // No such ask, or not a review: exit 3.
    let csv = home.path().join("a.csv");
    std::fs::write(&csv, "id,verdict,note\n").unwrap();
    let out = askd(
        &home,
        &["review", "import", "no-such-ask", csv.to_str().unwrap()],
    );
    assert_eq!(out.status.code(), Some(3));
    let (_, q) = api
        .call(
            reqwest::Method::POST,
            "/api/asks",
            Some(
                json!({"kind": "questions", "args": {"questions": [{"id": "q", "question": "?"}]}}),
            ),
        )
        .await;
    let qid = q["ask_id"].as_str().unwrap();
    let out = askd(&home, &["review", "import", qid, csv.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    let out = askd(
        &home,
        &["review", "export", "no-such-ask", "--format", "json"],
    );
    assert_eq!(out.status.code(), Some(3));
    // Usage errors of clap itself.
    assert_eq!(
        askd(&home, &["review", "export", &id, "--format", "pdf"])
            .status
            .code(),
        Some(2)
    );

    // A JSON answers file from another review: exit 1, nothing settles.
    let other =
        json!({"format": "askd-batch-review", "version": 1, "ask_id": "someone-else", "items": []});
    let f = home.path().join("other.json");
    std::fs::write(&f, other.to_string()).unwrap();
    let out = askd(&home, &["review", "import", &id, f.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("the file belongs to another review"),
        "{}",
        stderr(&out)
    );
    // An empty sheet is valid: every item blank, the review settles answered.
    let out = askd(&home, &["review", "import", &id, csv.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("not in the file (blank): build, tests, docs, tag, channel, conf")
    );
    let result = api.get(&format!("/api/asks/{id}/wait")).await;
    assert_eq!(result["summary"]["filled"], 0);
    assert_eq!(result["surface"], "import");
}

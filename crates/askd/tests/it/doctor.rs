//! `askd doctor`: paths, the effective configuration, and the running daemon's health and
//! settings in effect — through the built binary.

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use askd_testkit::serve::Serve;
use serde_json::{Value, json};

fn doctor(home: &Path) -> (i32, Value) {
    let out = Command::new(env!("CARGO_BIN_EXE_askd"))
        .arg("doctor")
        .env("ASKD_HOME", home)
        .env_remove("ASKD_ALIGNMENT_MODE")
        .output()
        .expect("run askd doctor");
    let v = serde_json::from_slice(&out.stdout).expect("doctor prints JSON");
    (out.status.code().unwrap_or(-1), v)
}

/// Starts `askd serve` for `home`: the daemon (stopped when it drops), its URL and token.
fn serve(home: &Path) -> (Serve, String, String) {
    let daemon = Serve::start(env!("CARGO_BIN_EXE_askd"), home, &[]);
    let (url, token) = (daemon.url.clone(), daemon.token.clone());
    (daemon, url, token)
}

#[test]
fn doctor_reports_paths_and_a_stopped_daemon() {
    let home = tempfile::tempdir().unwrap();
    let (code, v) = doctor(home.path());
    assert_eq!(code, 0, "{v}");
    assert_eq!(v["ok"], true);
    assert_eq!(v["daemon"]["running"], false);
    assert_eq!(v["paths"]["configFileExists"], false);
    assert_eq!(v["config"]["alignment"]["mode"], "auto");
}

#[test]
fn doctor_names_a_configuration_error_and_exits_1() {
    let home = tempfile::tempdir().unwrap();
    std::fs::write(
        home.path().join("askd.toml"),
        "[batch_review]\nmaxItems = 0\n",
    )
    .unwrap();
    let (code, v) = doctor(home.path());
    assert_eq!(code, 1, "{v}");
    assert_eq!(v["ok"], false);
    let e = v["configError"].as_str().unwrap();
    assert!(e.contains("maxItems"), "{e}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn doctor_shows_the_running_daemon_and_its_saved_settings() {
    let home = tempfile::tempdir().unwrap();
    let (_daemon, url, token) = serve(home.path());
    let r = reqwest::Client::new()
        .put(format!("{url}/api/settings"))
        .bearer_auth(&token)
        .json(&json!({"maxItems": 42}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 200);
    let path = home.path().to_path_buf();
    let (code, v) = tokio::task::spawn_blocking(move || doctor(&path))
        .await
        .unwrap();
    assert_eq!(code, 0, "{v}");
    assert_eq!(v["daemon"]["running"], true);
    assert_eq!(v["daemon"]["health"]["ok"], true, "{v}");
    let max_items = v["daemon"]["settings"]["settings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["key"] == "maxItems")
        .unwrap()
        .clone();
    assert_eq!(max_items["value"], 42);
    assert_eq!(max_items["layer"], "saved");
}

/// A webhook that cannot be reached: its failure shows in `askd doctor` (the running
/// daemon's `/api/notify`), and neither the config nor the status prints its URL, which
/// may be a secret. `askd pair` prints the pairing link and its QR code.
#[tokio::test(flavor = "multi_thread")]
async fn doctor_shows_webhook_failures_without_the_url_and_pair_prints_a_qr_code() {
    let home = tempfile::tempdir().unwrap();
    std::fs::write(
        home.path().join("askd.toml"),
        "[notify]\ndesktop = false\n[[notify.webhook]]\nname = \"phone\"\nurl = \"http://127.0.0.1:9/secret-topic\"\nformat = \"ntfy\"\n",
    )
    .unwrap();
    let (_daemon, url, token) = serve(home.path());
    let http = reqwest::Client::new();
    let r = http
        .post(format!("{url}/api/asks"))
        .bearer_auth(&token)
        .json(&json!({"kind": "questions", "args": {"questions": [{"id": "port", "question": "Which port?", "options": [{"label": "80"}, {"label": "443"}]}]}}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 201);
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let v: Value = http
            .get(format!("{url}/api/notify"))
            .bearer_auth(&token)
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        if v["sinks"][0]["errors"].as_u64().unwrap_or(0) >= 1 {
            break;
        }
        assert!(Instant::now() < deadline, "no failed attempt recorded: {v}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let path = home.path().to_path_buf();
    let (code, v) = tokio::task::spawn_blocking(move || doctor(&path))
        .await
        .unwrap();
    assert_eq!(code, 0, "{v}");
    let sink = &v["daemon"]["notify"]["sinks"][0];
    assert_eq!(sink["name"], "phone");
    assert_eq!(sink["lastError"], "cannot connect", "{v}");
    assert_eq!(sink["target"], "http://127.0.0.1:9/…");
    assert_eq!(
        v["config"]["notify"]["webhook"][0]["url"],
        "http://127.0.0.1:9/…"
    );
    assert!(!v.to_string().contains("secret-topic"), "{v}");

    let path = home.path().to_path_buf();
    let out = tokio::task::spawn_blocking(move || {
        Command::new(env!("CARGO_BIN_EXE_askd"))
            .arg("pair")
            .env("ASKD_HOME", &path)
            .output()
            .expect("run askd pair")
    })
    .await
    .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{text} {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(text.contains(&format!("{url}/pair/")), "{text}");
    assert!(
        text.contains('▀') || text.contains('▄'),
        "a QR code in the terminal: {text}"
    );
    assert!(text.contains("loopback"), "the loopback note: {text}");
    assert!(!text.contains(&token));
}

/// `askd members add | list | revoke` through the running daemon: the login link printed
/// once signs a browser in as the member; a taken name and an unknown member are refused
/// with a message; a revoked login stops working.
#[tokio::test(flavor = "multi_thread")]
async fn members_are_added_listed_and_revoked_from_the_command_line() {
    let home = tempfile::tempdir().unwrap();
    let (_daemon, url, token) = serve(home.path());
    let members = |args: &[&str]| {
        let out = Command::new(env!("CARGO_BIN_EXE_askd"))
            .arg("members")
            .args(args)
            .env("ASKD_HOME", home.path())
            .output()
            .expect("run askd members");
        (
            out.status.code().unwrap_or(-1),
            String::from_utf8_lossy(&out.stdout).to_string(),
            String::from_utf8_lossy(&out.stderr).to_string(),
        )
    };
    let (code, text, err) = members(&["add", "Ana Lima"]);
    assert_eq!(code, 0, "{text} {err}");
    let link = text
        .split_whitespace()
        .find(|w| w.starts_with(&format!("{url}/login/")))
        .unwrap_or_else(|| panic!("no login link: {text}"))
        .to_string();
    assert!(
        !text.contains(&token),
        "the install's token is never printed"
    );
    let http = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    // Opened from a mail or chat app (`Sec-Fetch-Site: none`): signed in at once.
    let r = http
        .get(&link)
        .header("sec-fetch-site", "none")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 303);
    let cookie = r.headers()["set-cookie"].to_str().unwrap().to_string();
    assert!(cookie.starts_with("askd_member="), "{cookie}");
    let cookie = cookie.split(';').next().unwrap().to_string();
    let me: Value = http
        .get(format!("{url}/api/me"))
        .header("cookie", &cookie)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(me["name"], "Ana Lima");

    let (code, _, err) = members(&["add", "ana lima"]);
    assert_eq!(code, 1);
    assert!(err.contains("exists already"), "{err}");
    let (code, text, _) = members(&["list"]);
    assert_eq!(code, 0);
    assert!(text.contains("Ana Lima"), "{text}");
    let (code, _, err) = members(&["revoke", "Nobody Here"]);
    assert_eq!(code, 1);
    assert!(err.contains("no member has the id or name"), "{err}");
    let (code, text, err) = members(&["revoke", "Ana Lima"]);
    assert_eq!(code, 0, "{text} {err}");
    let r = http
        .get(format!("{url}/api/asks"))
        .header("cookie", &cookie)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 401);
    let (_, text, _) = members(&["list"]);
    assert!(text.contains("No members yet"), "{text}");
}

/// Issue 27 item 7 from the command line: `askd members add` with a zero-width character,
/// a text-direction control or a look-alike of a member's name (Cyrillic А for Latin A)
/// exits 1 with the daemon's message (the character, the fix; whom it looks like), and
/// adds nobody.
#[tokio::test(flavor = "multi_thread")]
async fn access_7_cli_names_refuse_invisible_and_confusable() {
    let home = tempfile::tempdir().unwrap();
    let (_daemon, _url, _token) = serve(home.path());
    let members = |args: &[&str]| {
        let out = Command::new(env!("CARGO_BIN_EXE_askd"))
            .arg("members")
            .args(args)
            .env("ASKD_HOME", home.path())
            .output()
            .expect("run askd members");
        (
            out.status.code().unwrap_or(-1),
            String::from_utf8_lossy(&out.stdout).to_string(),
            String::from_utf8_lossy(&out.stderr).to_string(),
        )
    };
    let (code, text, err) = members(&["add", "Ana"]);
    assert_eq!(code, 0, "{text} {err}");
    let (code, _, err) = members(&["add", "\u{200b}Ana"]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("U+200B") && err.contains("invisible"), "{err}");
    let (code, _, err) = members(&["add", "Bo\u{202e}b"]);
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains("U+202E") && err.contains("text-direction"),
        "{err}"
    );
    let (code, _, err) = members(&["add", "\u{410}na"]);
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains("looks like the existing member \"Ana\""),
        "{err}"
    );
    let (code, text, _) = members(&["list"]);
    assert_eq!(code, 0);
    assert_eq!(text.lines().count(), 1, "only Ana: {text}");
}

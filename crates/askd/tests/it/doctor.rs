//! `askd doctor`: paths, the effective configuration, and the running daemon's health and
//! settings in effect — through the built binary.

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

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

struct Serve(Child);

impl Drop for Serve {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn serve(home: &Path) -> (Serve, String, String) {
    let child = Command::new(env!("CARGO_BIN_EXE_askd"))
        .args(["serve", "--listen", "127.0.0.1:0"])
        .env("ASKD_HOME", home)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn askd serve");
    let child = Serve(child);
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        if let Ok(text) = std::fs::read_to_string(home.join("daemon.json"))
            && let Ok(info) = serde_json::from_str::<Value>(&text)
            && info["pid"] == child.0.id()
        {
            let token = std::fs::read_to_string(home.join("token")).unwrap();
            return (
                child,
                info["url"].as_str().unwrap().to_string(),
                token.trim().to_string(),
            );
        }
        assert!(Instant::now() < deadline, "askd serve did not start");
        std::thread::sleep(Duration::from_millis(20));
    }
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

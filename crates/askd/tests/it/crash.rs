//! Durability under SIGKILL: the daemon runs as a child process, is killed mid-ask, and
//! restarts on the same data directory with every pending ask, banked answer and autosave
//! intact (platform.md §2 "Write-ahead").

use std::path::Path;
use std::process::Command;

use askd_testkit::serve::Serve;
use serde_json::{Value, json};

/// Starts `askd serve` on `home`; after a SIGKILL, once it has replaced the daemon.json the
/// killed one left.
fn start(home: &Path) -> Serve {
    Serve::start(env!("CARGO_BIN_EXE_askd"), home, &[])
}

fn fixture() -> Value {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/release-scope.json");
    serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigkill_loses_nothing_pending_banked_or_autosaved() {
    use reqwest::Method;
    let home = tempfile::tempdir().unwrap();
    let mut d = start(home.path());

    let (status, created) = d
        .call(
            Method::POST,
            "/api/asks",
            Some(json!({"kind": "survey", "args": fixture()})),
        )
        .await;
    assert_eq!(status, 201, "{created}");
    let id = created["ask_id"].as_str().unwrap().to_string();
    let (status, banked) = d
        .call(
            Method::POST,
            &format!("/api/asks/{id}/bank"),
            Some(json!({"answers": [{"id": "scope", "selected": ["a"], "justifications": {"a": "partners wait"}}]})),
        )
        .await;
    assert_eq!((status, &banked["banked"]), (200, &json!(1)), "{banked}");
    let autosave = json!({"v": 1, "position": "api", "quickMode": false,
        "answers": {"api": {"selected": [], "custom": "REST first", "skipped": false}}});
    let (status, saved) = d
        .call(
            Method::PUT,
            &format!("/api/asks/{id}/draft"),
            Some(autosave),
        )
        .await;
    assert_eq!(status, 200, "{saved}");

    // SIGKILL: no shutdown hook, no checkpoint.
    d.child.kill().unwrap();
    d.child.wait().unwrap();

    let mut d = start(home.path());
    let (status, ask) = d.call(Method::GET, &format!("/api/asks/{id}"), None).await;
    assert_eq!(status, 200);
    assert_eq!(ask["state"], "pending");
    assert_eq!(ask["banked"][0]["id"], "scope");
    assert_eq!(ask["banked"][0]["selected"], json!(["a"]));
    assert_eq!(ask["banked"][0]["justifications"]["a"], "partners wait");
    assert_eq!(ask["autosave"]["position"], "api");
    assert_eq!(ask["autosave"]["answers"]["api"]["custom"], "REST first");
    assert_eq!(ask["autosaveRevision"], 1);

    let (status, done) = d
        .call(
            Method::POST,
            &format!("/api/asks/{id}/submit"),
            Some(json!({"answers": [
                {"id": "scope", "selected": ["a"]},
                {"id": "api", "selected": [], "custom": "REST first"},
                {"id": "ship", "selected": ["a", "c"]}
            ]})),
        )
        .await;
    assert_eq!(status, 200, "{done}");
    assert_eq!(done["path"], json!(["scope", "api", "ship"]));
    // The banked justification is the one kept.
    assert_eq!(done["answers"][0]["justifications"]["a"], "partners wait");

    let (status, records) = d.call(Method::GET, "/api/records", None).await;
    assert_eq!(status, 200);
    let r = &records["records"][0];
    assert_eq!(r["ask_id"], id.as_str());
    assert_eq!(r["outcome"], "answered");
    assert_eq!(r["record"]["banked"][0]["id"], "scope");
    assert!(r["record"]["banked"][0]["bankedAt"].is_string());

    // A clean stop afterwards checkpoints and removes daemon.json.
    let sent = Command::new("kill")
        .args(["-TERM", &d.child.id().to_string()])
        .status()
        .unwrap();
    assert!(sent.success());
    let status = d.child.wait().unwrap();
    assert!(status.success(), "{status:?}");
    assert!(!home.path().join("daemon.json").exists());
    assert!(
        !home.path().join("askd.db-wal").exists()
            || std::fs::metadata(home.path().join("askd.db-wal"))
                .unwrap()
                .len()
                == 0
    );
}

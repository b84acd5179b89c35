//! Issue 12, items 3, 12 and 13, through the real daemon: the review's `persist` write does
//! not follow a planted symlink, a full disk is named (`507 storage-full`) and the daemon
//! starts on one, and a CSV import of many bad rows is bounded.

use crate::common;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use common::*;
use serde_json::{Value, json};

fn review(title: &str, n: usize) -> Value {
    let items: Vec<Value> = (1..=n)
        .map(|i| json!({"id": format!("i{i}"), "type": "confirm", "title": format!("Item {i}")}))
        .collect();
    json!({"title": title, "items": items})
}

async fn create(s: &TestServer, session: Option<&str>, args: &Value) -> String {
    s.create("review", session, args).await.expect(201)["ask_id"]
        .as_str()
        .unwrap()
        .to_string()
}

// ---- item 3 -------------------------------------------------------------------------------

#[tokio::test]
async fn hardening_3_persist_does_not_follow_a_planted_symlink() {
    let s = TestServer::start().await;
    let ws = tempfile::TempDir::new().unwrap();
    let outside = tempfile::TempDir::new().unwrap();
    let victim = outside.path().join("victim.txt");
    std::fs::write(&victim, "outside, must stay as it is\n").unwrap();
    let session = s.session("test", Some(&ws.path().to_string_lossy())).await;
    let mut args = review("Planted symlink", 2);
    args["persist"] = json!("out/result.json");
    let id = create(&s, Some(&session), &args).await;

    // The daemon runs in this process: the old code's temporary name was
    // `.<name>.<pid>.tmp` beside the target, created with File::create (following links).
    let out = ws.path().join("out");
    std::fs::create_dir_all(&out).unwrap();
    let planted = out.join(format!(".result.json.{}.tmp", std::process::id()));
    std::os::unix::fs::symlink(&victim, &planted).unwrap();
    let planted_plain = out.join(".result.json.tmp");
    std::os::unix::fs::symlink(&victim, &planted_plain).unwrap();

    let r = s
        .action(
            &id,
            "submit",
            &json!({"answers": [{"id": "i1", "verdict": "pass"}]}),
        )
        .await;
    let result = r.expect(200)["result"].clone();

    assert_eq!(
        std::fs::read_to_string(&victim).unwrap(),
        "outside, must stay as it is\n",
        "the file outside the workspace was overwritten through the planted symlink"
    );
    // Written safely: a regular file inside the workspace, holding the result.
    let target = std::fs::canonicalize(&out).unwrap().join("result.json");
    assert_eq!(
        result["persisted"],
        target.to_string_lossy().as_ref(),
        "{result}"
    );
    let meta = std::fs::symlink_metadata(&target).unwrap();
    assert!(
        meta.file_type().is_file(),
        "result.json is not a plain file"
    );
    let file: Value = serde_json::from_str(&std::fs::read_to_string(&target).unwrap()).unwrap();
    assert_eq!(file["ask_id"], id.as_str());
    assert_eq!(file["summary"]["filled"], 1);
    // The planted links are untouched and no temporary file is left behind.
    for p in [&planted, &planted_plain] {
        assert!(
            std::fs::symlink_metadata(p)
                .unwrap()
                .file_type()
                .is_symlink()
        );
    }
    let mut names: Vec<String> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    let mut expected = vec![
        ".result.json.tmp".to_string(),
        format!(".result.json.{}.tmp", std::process::id()),
        "result.json".to_string(),
    ];
    expected.sort();
    assert_eq!(names, expected, "no temporary file is left behind");
}

// ---- item 12 ------------------------------------------------------------------------------

/// A tmpfs of `size` mounted on `path`, unmounted on drop.
struct Tmpfs(PathBuf);

impl Tmpfs {
    fn mount(path: &Path, size: &str) -> Tmpfs {
        std::fs::create_dir_all(path).unwrap();
        let out = Command::new("mount")
            .args([
                "-t",
                "tmpfs",
                "-o",
                &format!("size={size},mode=0700"),
                "tmpfs",
            ])
            .arg(path)
            .output()
            .expect("run mount");
        assert!(
            out.status.success(),
            "this test needs a real full disk: it mounts a small tmpfs, which needs root \
             (or CAP_SYS_ADMIN) — mount refused: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        );
        Tmpfs(path.to_path_buf())
    }

    /// Writes zeros into `name` until the file system refuses with ENOSPC.
    fn fill(&self, name: &str) {
        let mut f = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(self.0.join(name))
            .unwrap();
        for chunk in [64 * 1024, 4096, 1] {
            let buf = vec![0u8; chunk];
            loop {
                match f.write_all(&buf) {
                    Ok(()) => {}
                    Err(e) if e.kind() == std::io::ErrorKind::StorageFull => break,
                    Err(e) => panic!("filling the tmpfs: {e}"),
                }
            }
        }
        let _ = f.sync_all();
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg("-l").arg(&self.0).status();
    }
}

/// A review big enough that its write must find new space (more than any slack left in the
/// database's files).
fn big_review(title: &str) -> Value {
    let items: Vec<Value> = (1..=60)
        .map(|i| json!({"id": format!("b{i}"), "type": "confirm", "title": format!("Big {i}"), "detail": "x".repeat(7900)}))
        .collect();
    json!({"title": title, "items": items})
}

#[track_caller]
fn assert_storage_full(r: &Resp) {
    assert_eq!(r.status.as_u16(), 507, "expected 507; body: {}", r.text);
    assert_eq!(r.body["code"], "storage-full", "{}", r.text);
    let msg = r.body["message"].as_str().unwrap_or_default();
    assert!(
        msg.contains("disk") && msg.contains("full") && msg.contains("nothing was saved"),
        "{msg}"
    );
}

#[tokio::test]
async fn hardening_12_a_full_disk_is_named_and_the_daemon_starts_on_one() {
    let base = tempfile::TempDir::new().unwrap();
    let home = base.path().join("home");
    let fs = Tmpfs::mount(&home, "4m");
    let cfg = config(&home, MAX_BODY);

    // Before the disk fills: a session, an ask, a review.
    let s = TestServer::start_with(tempfile::TempDir::new().unwrap(), cfg.clone()).await;
    let session = s.session("test", None).await;
    let before = create(&s, Some(&session), &review("Before the disk filled", 3)).await;

    fs.fill("filler");

    // Every write is refused with the cause named; nothing half-written shows up. (The
    // settle goes first: a refused write may leave slack in SQLite's -wal file that a later
    // small write then fits in — and is saved, which is right.)
    let r = s
        .action(
            &before,
            "submit",
            &json!({"answers": [{"id": "i1", "verdict": "pass", "note": "y".repeat(3000)}]}),
        )
        .await;
    assert_storage_full(&r);
    let r = s
        .create("review", Some(&session), &big_review("On a full disk"))
        .await;
    assert_storage_full(&r);
    // Reads still work, and show the committed state only.
    let asks = s.get("/api/asks?state=all").await;
    let listed = asks.expect(200)["asks"].as_array().unwrap().clone();
    assert_eq!(listed.len(), 1, "{listed:?}");
    assert_eq!(s.ask(&before).await["state"], "pending");
    s.stop().await;

    // A start on the already-full data directory comes up.
    fs.fill("filler");
    let s = TestServer::start_with(tempfile::TempDir::new().unwrap(), cfg.clone()).await;
    let info = askd_daemon::server::read_daemon_info(&home).expect("daemon.json written");
    assert_eq!(info.url, s.url);
    fs.fill("filler");
    assert_eq!(s.ask(&before).await["state"], "pending");
    assert_eq!(s.get("/api/health").await.status.as_u16(), 200);
    let r = s
        .create("review", Some(&session), &big_review("Still full"))
        .await;
    assert_storage_full(&r);
    // Small writes too: each is saved while it fits, and the first that does not is a 507.
    let mut refused = None;
    for k in 0..5000 {
        let r = s
            .post("/api/sessions", &json!({"client": format!("client {k}")}))
            .await;
        if r.status.as_u16() != 200 {
            refused = Some(r);
            break;
        }
    }
    assert_storage_full(&refused.expect("a write was refused on the full disk"));
    s.stop().await;

    // Space freed: writes work again, on the same data.
    std::fs::remove_file(home.join("filler")).unwrap();
    let s = TestServer::start_with(tempfile::TempDir::new().unwrap(), cfg.clone()).await;
    let r = s
        .action(
            &before,
            "submit",
            &json!({"answers": [{"id": "i1", "verdict": "pass"}]}),
        )
        .await;
    r.expect(200);
    assert!(home.join("reserve").exists(), "the reserve is kept again");
    s.stop().await;

    // A clean stop removed SQLite's -wal and -shm; the disk fills while askd is down.
    assert!(!home.join("askd.db-shm").exists());
    fs.fill("filler");
    let s = TestServer::start_with(tempfile::TempDir::new().unwrap(), cfg).await;
    assert!(
        !home.join("reserve").exists(),
        "the reserve was used to start"
    );
    assert_eq!(s.ask(&before).await["state"], "settled");
    let r = s
        .create("review", Some(&session), &big_review("Full again"))
        .await;
    assert_storage_full(&r);
    s.stop().await;
    drop(fs);
}

// ---- item 13 ------------------------------------------------------------------------------

#[tokio::test]
async fn hardening_13_a_csv_import_of_200000_bad_rows_is_capped_and_linear() {
    let dir = tempfile::TempDir::new().unwrap();
    let cfg = config(dir.path(), 64 << 20);
    let s = TestServer::start_with(dir, cfg).await;
    let mut args = review("Ten thousand items", 10_000);
    args["offline"] = json!(true);
    let id = create(&s, None, &args).await;

    let mut csv = String::from("id,verdict,note\n");
    for k in 0..200_000 {
        // Unknown ids: each one made the old code scan every item.
        csv.push_str(&format!("nope-{k},pass,\n"));
    }
    let started = Instant::now();
    let r = s
        .action(&id, "import", &json!({"format": "csv", "content": csv}))
        .await;
    let took = started.elapsed();
    eprintln!(
        "hardening_13: import of 200000 bad rows into 10000 items: {took:?}, {} bytes",
        r.text.len()
    );
    r.expect(422);
    assert!(
        r.text.len() < 64 * 1024,
        "the 422 body is {} bytes",
        r.text.len()
    );
    let errors = r.body["errors"].as_array().unwrap();
    assert_eq!(errors.len(), 101, "100 problems, then the count");
    assert!(errors[..100].iter().all(|e| e["code"] == "unknown_item"));
    assert_eq!(errors[0]["path"], "rows[2].id");
    assert_eq!(errors[99]["path"], "rows[101].id");
    assert_eq!(errors[100]["code"], "too_many_errors");
    let last = errors[100]["message"].as_str().unwrap();
    assert!(last.contains("200000 problems"), "{last}");
    assert_eq!(r.body["problem_count"], 200_000);
    // All or nothing: still pending.
    assert_eq!(s.ask(&id).await["state"], "pending");

    // A valid sheet of every item still imports.
    let mut good = String::from("id,verdict,note\n");
    for i in 1..=10_000 {
        good.push_str(&format!("i{i},pass,\n"));
    }
    let r = s
        .action(&id, "import", &json!({"format": "csv", "content": good}))
        .await;
    assert_eq!(r.expect(200)["result"]["summary"]["filled"], 10_000);
}

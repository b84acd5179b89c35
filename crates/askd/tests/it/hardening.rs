//! Issue "Hardening", the items checked through the built binary: `askd mcp` as a child
//! process of a real MCP client, `askd serve` as a child process. Named after the items.

use crate::common_mcp;

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common_mcp::*;

/// Polls `check` every 50 ms until it holds, for at most `limit`.
async fn eventually<F, Fut>(limit: Duration, mut check: F) -> bool
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = bool>,
{
    let deadline = Instant::now() + limit;
    while Instant::now() < deadline {
        if check().await {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    false
}

/// Item 2: a killed adapter does not leave its ask `awaited: true` forever — the daemon
/// notices the waiting connection is gone and clears it; the ask stays pending.
#[tokio::test]
async fn hardening_2_a_killed_adapter_leaves_its_ask_not_awaited() {
    let home = Home::new();
    let adapter = home.adapter("hardening-client", &[]).await;
    let api = home.api();
    let call = adapter.start_call("ask_user_question", questions(2)).await;
    let ask = api.new_ask(&[]).await;
    let id = ask["id"].as_str().unwrap().to_string();
    assert!(
        eventually(Duration::from_secs(10), || {
            let (api, id) = (&api, &id);
            async move { api.ask(id).await["awaited"] == true }
        })
        .await,
        "the ask is awaited while the agent's call waits: {:#}",
        api.ask(&id).await
    );
    adapter.kill();
    drop(call);
    assert!(
        eventually(Duration::from_secs(15), || {
            let (api, id) = (&api, &id);
            async move { api.ask(id).await["awaited"] == false }
        })
        .await,
        "the ask still says an agent waits after its adapter was killed: {:#}",
        api.ask(&id).await
    );
    let view = api.ask(&id).await;
    assert_eq!(view["state"], "pending", "{view:#}");
    kill_daemon(&home).await;
}

/// Item 10: a second `askd serve` on a data directory that has a daemon exits non-zero
/// with one line naming the running daemon's URL and pid, and leaves `daemon.json` alone.
#[tokio::test]
async fn hardening_10_a_second_serve_on_one_data_directory_refuses() {
    let home = Home::new();
    let mut first = Command::new(env!("CARGO_BIN_EXE_askd"))
        .args(["serve", "--listen", "127.0.0.1:0"])
        .env("ASKD_HOME", home.path())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn askd serve");
    let deadline = Instant::now() + Duration::from_secs(30);
    let info = loop {
        if let Some(info) = home.daemon()
            && info.pid == first.id()
        {
            break info;
        }
        assert!(Instant::now() < deadline, "the first daemon did not start");
        std::thread::sleep(Duration::from_millis(50));
    };
    let mut second = Command::new(env!("CARGO_BIN_EXE_askd"))
        .args(["serve", "--listen", "127.0.0.1:0"])
        .env("ASKD_HOME", home.path())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run a second askd serve");
    let deadline = Instant::now() + Duration::from_secs(15);
    while second.try_wait().expect("poll the second daemon").is_none() {
        if Instant::now() > deadline {
            let _ = second.kill();
            let _ = first.kill();
            let _ = first.wait();
            panic!("a second daemon started on the same data directory and kept running");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let second = second
        .wait_with_output()
        .expect("the second daemon's output");
    let _ = first.kill();
    let _ = first.wait();
    assert!(!second.status.success(), "the second daemon started");
    let stderr = String::from_utf8_lossy(&second.stderr);
    let lines: Vec<&str> = stderr.lines().filter(|l| !l.trim().is_empty()).collect();
    assert_eq!(lines.len(), 1, "one line: {stderr}");
    assert!(lines[0].contains(&info.url), "{stderr}");
    assert!(lines[0].contains(&info.pid.to_string()), "{stderr}");
    assert!(
        String::from_utf8_lossy(&second.stdout).trim().is_empty(),
        "nothing on stdout"
    );
}

//! What the benches share: `askd serve` as a child process on a fresh data directory (so its
//! memory is its own), its `/proc` figures, and an HTTP client of its JSON API.

// Each bench is its own crate and uses a part of this module.
#![allow(dead_code)]
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use reqwest::Method;
use serde_json::Value;

/// The `askd` the benches run: `ASKD_BENCH_ASKD` when set (another build, to compare two
/// in the same run on the same machine), else this build's.
pub fn binary() -> String {
    match std::env::var("ASKD_BENCH_ASKD") {
        Ok(path) if !path.trim().is_empty() => path,
        _ => env!("CARGO_BIN_EXE_askd").to_string(),
    }
}

/// A running `askd serve`; killed when dropped.
pub struct Daemon {
    pub child: Child,
    pub url: String,
    pub token: String,
}

impl Drop for Daemon {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Daemon {
    /// Starts `askd serve` on `home` (loopback, any port); returns once `daemon.json` names
    /// it, or panics after `within`.
    pub fn spawn(home: &Path, within: Duration) -> Daemon {
        Daemon::spawn_with(home, &[], within)
    }

    /// [`Daemon::spawn`] with more environment (configuration keys as `ASKD_*`, e.g.
    /// `ASKD_DATABASE_URL` for team mode).
    pub fn spawn_with(home: &Path, env: &[(&str, &str)], within: Duration) -> Daemon {
        let mut child = Command::new(binary())
            .args(["serve", "--listen", "127.0.0.1:0"])
            .env("ASKD_HOME", home)
            .env("ASKD_LOG", "warn")
            .envs(env.iter().copied())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("spawn askd serve");
        let deadline = Instant::now() + within;
        loop {
            if let Ok(text) = std::fs::read_to_string(home.join("daemon.json"))
                && let Ok(info) = serde_json::from_str::<Value>(&text)
                && info["pid"] == child.id()
            {
                return Daemon {
                    url: info["url"].as_str().unwrap().to_string(),
                    token: std::fs::read_to_string(home.join("token"))
                        .unwrap()
                        .trim()
                        .to_string(),
                    child,
                };
            }
            if let Ok(Some(status)) = child.try_wait() {
                panic!("askd serve exited at start: {status}");
            }
            if Instant::now() > deadline {
                let _ = child.kill();
                let _ = child.wait();
                panic!("askd serve did not start within {within:?}");
            }
            std::thread::sleep(Duration::from_millis(2));
        }
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// A `/proc` figure of this daemon ([`proc_kib`]).
    pub fn proc_kib(&self, field: &str) -> u64 {
        proc_kib(self.pid(), field)
    }

    /// An HTTP client of this daemon's API, keeping up to `idle` connections.
    pub fn client(&self, idle: usize) -> Arc<Client> {
        Arc::new(Client {
            http: reqwest::Client::builder()
                .pool_max_idle_per_host(idle)
                .build()
                .unwrap(),
            url: self.url.clone(),
            token: self.token.clone(),
        })
    }
}

/// A `/proc/{pid}/status` figure in KiB (`VmRSS:`, `VmHWM:`); 0 when unreadable.
pub fn proc_kib(pid: u32, field: &str) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    status
        .lines()
        .find(|l| l.starts_with(field))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(0)
}

/// A client of the daemon's JSON API with its token.
pub struct Client {
    http: reqwest::Client,
    url: String,
    token: String,
}

impl Client {
    /// One request; the time runs until the whole body is read.
    pub async fn send(
        &self,
        method: Method,
        path: &str,
        body: Option<&Value>,
    ) -> (u16, Vec<u8>, Duration) {
        let t = Instant::now();
        let mut req = self
            .http
            .request(method, format!("{}{path}", self.url))
            .bearer_auth(&self.token);
        if let Some(b) = body {
            req = req.json(b);
        }
        let r = req.send().await.unwrap_or_else(|e| panic!("{path}: {e}"));
        let status = r.status().as_u16();
        let bytes = r.bytes().await.unwrap_or_else(|e| panic!("{path}: {e}"));
        (status, bytes.to_vec(), t.elapsed())
    }

    /// A request that must succeed, its body as JSON.
    pub async fn json(&self, method: Method, path: &str, body: Option<&Value>) -> Value {
        let (status, bytes, _) = self.send(method, path, body).await;
        assert!(
            (200..300).contains(&status),
            "{path}: {status} {}",
            String::from_utf8_lossy(&bytes)
        );
        serde_json::from_slice(&bytes).expect("json")
    }

    pub async fn post(&self, path: &str, body: &Value) -> Value {
        self.json(Method::POST, path, Some(body)).await
    }

    pub async fn get(&self, path: &str) -> Value {
        self.json(Method::GET, path, None).await
    }
}

//! `askd mcp` spoken to line by line: raw JSON-RPC over its stdin and stdout, as an agent
//! would (the stdio hardening tests, the 2025-11-25 task requests).

use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, ChildStdin};
use tokio::sync::mpsc;

use super::Home;

/// How long one answer may take (the first includes starting the daemon).
pub const ANSWER: Duration = Duration::from_secs(30);

/// `askd mcp` spoken to line by line.
pub struct Raw {
    child: Child,
    stdin: ChildStdin,
    lines: mpsc::UnboundedReceiver<String>,
    stderr: Arc<Mutex<String>>,
}

impl Raw {
    pub fn spawn(home: &Home) -> Raw {
        let mut cmd = home.command(env!("CARGO_BIN_EXE_askd"), &["mcp"], &[]);
        cmd.stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true);
        let mut child = cmd.spawn().expect("spawn askd mcp");
        let stdin = child.stdin.take().unwrap();
        let stdout = child.stdout.take().unwrap();
        let mut stderr = child.stderr.take().unwrap();
        let (tx, lines) = mpsc::unbounded_channel();
        tokio::spawn(async move {
            let mut out = BufReader::new(stdout).lines();
            while let Ok(Some(line)) = out.next_line().await {
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let log = Arc::new(Mutex::new(String::new()));
        let sink = log.clone();
        tokio::spawn(async move {
            let mut buf = [0u8; 4096];
            while let Ok(n) = stderr.read(&mut buf).await {
                if n == 0 {
                    break;
                }
                sink.lock()
                    .unwrap()
                    .push_str(&String::from_utf8_lossy(&buf[..n]));
            }
        });
        Raw {
            child,
            stdin,
            lines,
            stderr: log,
        }
    }

    pub fn stderr(&self) -> String {
        self.stderr.lock().unwrap().clone()
    }

    /// Writes `bytes` and a newline.
    pub async fn send_raw(&mut self, bytes: &[u8]) {
        self.stdin
            .write_all(bytes)
            .await
            .expect("write to askd mcp");
        self.stdin
            .write_all(b"\n")
            .await
            .expect("write to askd mcp");
        self.stdin.flush().await.expect("flush askd mcp's stdin");
    }

    pub async fn send(&mut self, message: &Value) {
        self.send_raw(message.to_string().as_bytes()).await;
    }

    /// The next message of any kind (response or notification).
    pub async fn message(&mut self) -> Value {
        let line = match tokio::time::timeout(ANSWER, self.lines.recv()).await {
            Ok(Some(line)) => line,
            Ok(None) => panic!("askd mcp closed stdout\nstderr: {}", self.stderr()),
            Err(_) => panic!("no message within {ANSWER:?}\nstderr: {}", self.stderr()),
        };
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("not JSON ({e}): {line}"))
    }

    /// The next response (a line with `result` or `error`), skipping notifications.
    pub async fn response(&mut self) -> Value {
        loop {
            let line = match tokio::time::timeout(ANSWER, self.lines.recv()).await {
                Ok(Some(line)) => line,
                Ok(None) => panic!(
                    "askd mcp closed stdout (exit: {:?})\nstderr: {}",
                    self.child.try_wait(),
                    self.stderr()
                ),
                Err(_) => panic!("no answer within {ANSWER:?}\nstderr: {}", self.stderr()),
            };
            let v: Value = serde_json::from_str(&line)
                .unwrap_or_else(|e| panic!("askd mcp wrote a line that is not JSON ({e}): {line}"));
            assert_eq!(v["jsonrpc"], "2.0", "{v}");
            if v.get("result").is_some() || v.get("error").is_some() {
                return v;
            }
        }
    }

    /// Sends `ping` with `id` and expects its answer next.
    pub async fn ping(&mut self, id: &str) {
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": "ping"}))
            .await;
        let r = self.response().await;
        assert_eq!(r["id"], id, "expected the ping's answer, got {r}");
        assert_eq!(r["result"], json!({}), "{r}");
    }

    pub async fn initialize(&mut self) -> Value {
        self.send(&json!({
            "jsonrpc": "2.0", "id": "init", "method": "initialize",
            "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                       "clientInfo": {"name": "raw-test", "version": "1.0.0"}}
        }))
        .await;
        let r = self.response().await;
        assert_eq!(r["id"], "init", "{r}");
        assert!(r["result"]["serverInfo"]["name"] == "askd", "{r}");
        self.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
            .await;
        r
    }

    pub fn alive(&mut self) -> bool {
        self.child.try_wait().expect("poll askd mcp").is_none()
    }
}

//! Helpers for the MCP end-to-end tests: an isolated askd install (its own `ASKD_HOME`, a
//! daemon on a free port, no browser), `askd mcp` adapters spawned as child processes with
//! an rmcp client, and the daemon's HTTP API. Every [`Home`] kills the daemon its adapters
//! started when it drops, panics included.

#![allow(dead_code)]

pub mod raw;
pub mod stateless;
pub mod webhook;

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use rmcp::model::{
    CallToolRequestParams, CallToolResult, ClientCapabilities, ClientConfig, ClientRequest,
    Implementation, ProgressNotificationParam, Request, ServerResult,
};
use rmcp::service::{NotificationContext, PeerRequestOptions, RequestHandle, RunningService};
use rmcp::transport::TokioChildProcess;
use rmcp::{ClientHandler, RoleClient, ServiceExt};
use serde_json::{Value, json};
use tokio::io::AsyncReadExt;

/// The `handling` text of `survey.md` §8.4, word for word.
pub const SURVEY_HANDLING: &str = "Open your next turn by mirroring the user's stance back in one line — what they chose, over what, and why — before acting on these answers. Trace every decision you make to the answer that settled it. Never re-ask anything this survey already answered; ask only what is new. Justifications are the user's stated intent: honour them, and if you must depart from one, say so and why before acting.";

pub fn fixture(name: &str) -> Value {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name);
    serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap()
}

pub fn object(v: Value) -> serde_json::Map<String, Value> {
    match v {
        Value::Object(m) => m,
        other => panic!("not an object: {other}"),
    }
}

/// One isolated askd install.
pub struct Home {
    pub dir: tempfile::TempDir,
}

/// The running daemon, as `daemon.json` and the token file describe it.
#[derive(Clone, Debug)]
pub struct DaemonInfo {
    pub url: String,
    pub pid: u32,
    pub token: String,
}

impl Home {
    pub fn new() -> Self {
        Home {
            dir: tempfile::tempdir().expect("temp ASKD_HOME"),
        }
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    /// The environment every adapter of this install runs with.
    pub fn env(&self) -> Vec<(String, String)> {
        vec![
            (
                "ASKD_HOME".into(),
                self.path().to_string_lossy().into_owned(),
            ),
            ("ASKD_LISTEN".into(), "127.0.0.1:0".into()),
            ("ASKD_NO_BROWSER".into(), "1".into()),
        ]
    }

    /// The `askd mcp` command with this install's environment plus `extra`.
    pub fn command(
        &self,
        program: &str,
        args: &[&str],
        extra: &[(&str, &str)],
    ) -> tokio::process::Command {
        let mut cmd = tokio::process::Command::new(program);
        cmd.args(args);
        // Nothing from the outer environment may change what the tests see.
        for var in [
            "ASKD_SESSION",
            "ASKD_MAX_WAIT",
            "ASKD_PROGRESS_INTERVAL_MS",
            "ASKD_LANGUAGE",
            "ASKD_ALLOWED_HOSTS",
            "ASKD_IDLE_EXIT",
            "ASKD_ELICITATION",
            "SSH_CONNECTION",
            "SSH_TTY",
        ] {
            cmd.env_remove(var);
        }
        for (k, v) in self.env() {
            cmd.env(k, v);
        }
        for (k, v) in extra {
            cmd.env(k, v);
        }
        cmd.current_dir(self.path());
        cmd
    }

    /// Spawns `askd mcp` and completes the MCP handshake as `client`.
    pub async fn adapter(&self, client: &str, extra: &[(&str, &str)]) -> Adapter {
        let cmd = self.command(env!("CARGO_BIN_EXE_askd"), &["mcp"], extra);
        Adapter::spawn(cmd, client).await
    }

    /// Spawns `askd mcp` for a client that declares form elicitation; its forms arrive on
    /// the returned receiver.
    pub async fn eliciting_adapter(
        &self,
        client: &str,
        extra: &[(&str, &str)],
    ) -> (Adapter, tokio::sync::mpsc::UnboundedReceiver<Form>) {
        self.eliciting_adapter_as(client, extra, json!({"form": {}}), false)
            .await
    }

    /// Like [`Home::eliciting_adapter`], declaring `elicitation` as `caps` (`{"url": {}}`,
    /// both modes, …); with `discover`, the client speaks 2026-07-28 (`server/discover`, no
    /// `initialize`, capabilities in every request's `_meta`), and rmcp's `call_tool`
    /// fulfils each `input_required` round through the same form handler.
    pub async fn eliciting_adapter_as(
        &self,
        client: &str,
        extra: &[(&str, &str)],
        caps: Value,
        discover: bool,
    ) -> (Adapter, tokio::sync::mpsc::UnboundedReceiver<Form>) {
        let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
        let cmd = self.command(env!("CARGO_BIN_EXE_askd"), &["mcp"], extra);
        (
            Adapter::spawn_full(cmd, client, Some((tx, caps)), discover).await,
            rx,
        )
    }

    pub fn daemon(&self) -> Option<DaemonInfo> {
        let text = std::fs::read_to_string(self.path().join("daemon.json")).ok()?;
        let info: Value = serde_json::from_str(&text).ok()?;
        let token = std::fs::read_to_string(self.path().join("token")).ok()?;
        Some(DaemonInfo {
            url: info["url"].as_str()?.to_string(),
            pid: u32::try_from(info["pid"].as_u64()?).ok()?,
            token: token.trim().to_string(),
        })
    }

    /// Every `askd serve` process whose environment names this install.
    pub fn serve_processes(&self) -> Vec<u32> {
        let needle = format!("ASKD_HOME={}", self.path().display());
        let mut found = Vec::new();
        let Ok(entries) = std::fs::read_dir("/proc") else {
            return found;
        };
        for e in entries.flatten() {
            let Ok(pid) = e.file_name().to_string_lossy().parse::<u32>() else {
                continue;
            };
            let Ok(cmdline) = std::fs::read(e.path().join("cmdline")) else {
                continue;
            };
            let args: Vec<&[u8]> = cmdline.split(|b| *b == 0).collect();
            if args.get(1) != Some(&&b"serve"[..]) {
                continue;
            }
            let Ok(environ) = std::fs::read(e.path().join("environ")) else {
                continue;
            };
            if environ.split(|b| *b == 0).any(|kv| kv == needle.as_bytes()) {
                found.push(pid);
            }
        }
        found
    }

    pub fn api(&self) -> Api {
        Api::new(self.daemon().expect("a daemon is running"))
    }
}

impl Default for Home {
    fn default() -> Self {
        Home::new()
    }
}

impl Drop for Home {
    fn drop(&mut self) {
        let mut pids = self.serve_processes();
        if let Some(d) = self.daemon()
            && !pids.contains(&d.pid)
        {
            pids.push(d.pid);
        }
        for pid in &pids {
            let _ = std::process::Command::new("kill")
                .args(["-TERM", &pid.to_string()])
                .stderr(Stdio::null())
                .status();
        }
        let deadline = Instant::now() + Duration::from_secs(5);
        while pids.iter().any(|p| alive(*p)) && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(20));
        }
        for pid in pids.iter().filter(|p| alive(**p)) {
            let _ = std::process::Command::new("kill")
                .args(["-KILL", &pid.to_string()])
                .stderr(Stdio::null())
                .status();
        }
    }
}

/// Whether `pid` is a live process (not a zombie).
/// SIGKILLs the install's daemon and waits until it is gone (nothing is cleaned up: its
/// `daemon.json` stays, as after a crash).
pub async fn kill_daemon(home: &Home) {
    let pid = home.daemon().expect("a running daemon").pid;
    let killed = std::process::Command::new("kill")
        .args(["-KILL", &pid.to_string()])
        .status()
        .expect("run kill")
        .success();
    assert!(killed, "kill -KILL {pid}");
    let deadline = Instant::now() + Duration::from_secs(15);
    while alive(pid) {
        assert!(Instant::now() < deadline, "the daemon did not die");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

pub fn alive(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => !stat
            .rsplit(')')
            .next()
            .is_some_and(|rest| rest.trim_start().starts_with('Z')),
        Err(_) => false,
    }
}

/// The daemon's JSON API with the install's token.
#[derive(Clone)]
pub struct Api {
    pub daemon: DaemonInfo,
    pub http: reqwest::Client,
}

impl Api {
    pub fn new(daemon: DaemonInfo) -> Self {
        Api {
            daemon,
            http: reqwest::Client::new(),
        }
    }

    pub async fn call(
        &self,
        method: reqwest::Method,
        path: &str,
        body: Option<Value>,
    ) -> (u16, Value) {
        let mut req = self
            .http
            .request(method, format!("{}{path}", self.daemon.url))
            .bearer_auth(&self.daemon.token);
        if let Some(b) = body {
            req = req.json(&b);
        }
        let resp = req.send().await.expect("the daemon answers");
        let status = resp.status().as_u16();
        (status, resp.json().await.unwrap_or(Value::Null))
    }

    pub async fn get(&self, path: &str) -> Value {
        let (status, body) = self.call(reqwest::Method::GET, path, None).await;
        assert_eq!(status, 200, "GET {path}: {body}");
        body
    }

    pub async fn post(&self, path: &str, body: Value) -> Value {
        let (status, out) = self.call(reqwest::Method::POST, path, Some(body)).await;
        assert_eq!(status, 200, "POST {path}: {out}");
        out
    }

    /// Every ask of the daemon (newest first).
    pub async fn asks(&self) -> Vec<Value> {
        self.get("/api/asks?state=all").await["asks"]
            .as_array()
            .cloned()
            .unwrap_or_default()
    }

    /// Waits until an ask that is not in `known` appears, and returns it.
    pub async fn new_ask(&self, known: &[String]) -> Value {
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            if let Some(a) = self
                .asks()
                .await
                .into_iter()
                .find(|a| !known.iter().any(|k| a["id"] == k.as_str()))
            {
                return a;
            }
            assert!(Instant::now() < deadline, "no new ask appeared");
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }

    pub async fn ask(&self, id: &str) -> Value {
        self.get(&format!("/api/asks/{id}")).await
    }

    pub async fn submit(&self, id: &str, body: Value) -> Value {
        self.post(&format!("/api/asks/{id}/submit"), body).await
    }
}

/// One `elicitation/create` the server sent: its params as JSON, and the reply the test
/// gives (answer, decline, cancel) — or never gives, when the form is to stay open.
pub struct Form {
    pub params: Value,
    pub reply: tokio::sync::oneshot::Sender<rmcp::model::ElicitResult>,
    /// Set when the server withdrew this request (`notifications/cancelled`).
    pub withdrawn: Arc<tokio::sync::Notify>,
    pub withdrawn_flag: Arc<std::sync::atomic::AtomicBool>,
}

impl Form {
    /// Waits until the server withdraws this form; panics after `secs` seconds.
    pub async fn withdrawn_within(&self, secs: u64) {
        let notified = self.withdrawn.notified();
        if self
            .withdrawn_flag
            .load(std::sync::atomic::Ordering::SeqCst)
        {
            return;
        }
        tokio::time::timeout(Duration::from_secs(secs), notified)
            .await
            .expect("the server withdrew the form (notifications/cancelled)");
    }
}

/// The test's MCP client: a chosen clientInfo name; records every progress notification.
/// With `forms`, it declares form elicitation and hands each form to the test.
#[derive(Clone)]
pub struct TestClient {
    pub name: String,
    pub progress: Arc<Mutex<Vec<ProgressNotificationParam>>>,
    /// `notifications/tools/list_changed` received.
    pub tools_changed: Arc<std::sync::atomic::AtomicUsize>,
    pub forms: Option<tokio::sync::mpsc::UnboundedSender<Form>>,
    /// The `elicitation` capability declared with `forms`.
    pub caps: Value,
    /// Every notification rmcp has no type for (`notifications/elicitation/complete`, …):
    /// method and params.
    pub custom: Arc<Mutex<Vec<(String, Value)>>>,
}

impl ClientHandler for TestClient {
    async fn on_progress(
        &self,
        params: ProgressNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        self.progress.lock().unwrap().push(params);
    }

    async fn on_custom_notification(
        &self,
        notification: rmcp::model::CustomNotification,
        _context: NotificationContext<RoleClient>,
    ) {
        self.custom.lock().unwrap().push((
            notification.method,
            notification.params.unwrap_or(Value::Null),
        ));
    }

    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        self.tools_changed
            .fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    }

    async fn create_elicitation(
        &self,
        request: rmcp::model::ElicitRequestParams,
        context: rmcp::service::RequestContext<RoleClient>,
    ) -> Result<rmcp::model::ElicitResult, rmcp::ErrorData> {
        let Some(forms) = &self.forms else {
            return Err(rmcp::ErrorData::method_not_found::<
                rmcp::model::ElicitationCreateRequestMethod,
            >());
        };
        let (reply, answer) = tokio::sync::oneshot::channel();
        let withdrawn = Arc::new(tokio::sync::Notify::new());
        let withdrawn_flag = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let _ = forms.send(Form {
            params: serde_json::to_value(&request).unwrap(),
            reply,
            withdrawn: withdrawn.clone(),
            withdrawn_flag: withdrawn_flag.clone(),
        });
        tokio::select! {
            a = answer => a.map_err(|_| rmcp::ErrorData::internal_error("the test gave no reply", None)),
            _ = context.ct.cancelled() => {
                withdrawn_flag.store(true, std::sync::atomic::Ordering::SeqCst);
                withdrawn.notify_waiters();
                Err(rmcp::ErrorData::internal_error("withdrawn", None))
            }
        }
    }

    fn get_info(&self) -> ClientConfig {
        let capabilities = if self.caps.get("extensions").is_some() {
            // A whole capabilities object (the MCP Apps tests declare an extension).
            serde_json::from_value(self.caps.clone()).unwrap()
        } else if self.forms.is_some() {
            serde_json::from_value(json!({"elicitation": self.caps})).unwrap()
        } else {
            ClientCapabilities::default()
        };
        ClientConfig::new(
            capabilities,
            Implementation::new(self.name.clone(), "1.0.0"),
        )
    }
}

/// One `askd mcp` child process with an rmcp client session on its stdio.
pub struct Adapter {
    pub service: RunningService<RoleClient, TestClient>,
    pub pid: u32,
    pub stderr: Arc<Mutex<String>>,
    pub progress: Arc<Mutex<Vec<ProgressNotificationParam>>>,
    pub tools_changed: Arc<std::sync::atomic::AtomicUsize>,
    /// Each tool's declared output schema, read once (`tools/list`).
    schemas: tokio::sync::OnceCell<std::collections::HashMap<String, Value>>,
}

impl Adapter {
    pub async fn spawn(cmd: tokio::process::Command, client: &str) -> Adapter {
        Self::spawn_with(cmd, client, None).await
    }

    /// Like [`Adapter::spawn`], for a client that declares form elicitation and passes each
    /// form to `forms`.
    pub async fn spawn_with(
        cmd: tokio::process::Command,
        client: &str,
        forms: Option<tokio::sync::mpsc::UnboundedSender<Form>>,
    ) -> Adapter {
        Self::spawn_full(cmd, client, forms.map(|f| (f, json!({"form": {}}))), false).await
    }

    /// [`Adapter::spawn_with`] with the declared `elicitation` capability, and the 2026-07-28
    /// lifecycle when `discover`.
    pub async fn spawn_full(
        cmd: tokio::process::Command,
        client: &str,
        forms: Option<(tokio::sync::mpsc::UnboundedSender<Form>, Value)>,
        discover: bool,
    ) -> Adapter {
        let (forms, caps) = match forms {
            Some((f, c)) => (Some(f), c),
            None => (None, Value::Null),
        };
        let (transport, stderr) = TokioChildProcess::builder(cmd)
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn askd mcp");
        let pid = transport.id().expect("the adapter's pid");
        let log = Arc::new(Mutex::new(String::new()));
        if let Some(mut stderr) = stderr {
            let log = log.clone();
            tokio::spawn(async move {
                let mut buf = [0u8; 4096];
                while let Ok(n) = stderr.read(&mut buf).await {
                    if n == 0 {
                        break;
                    }
                    log.lock()
                        .unwrap()
                        .push_str(&String::from_utf8_lossy(&buf[..n]));
                }
            });
        }
        let progress = Arc::new(Mutex::new(Vec::new()));
        let tools_changed = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let handler = TestClient {
            name: client.to_string(),
            progress: progress.clone(),
            tools_changed: tools_changed.clone(),
            forms,
            caps,
            custom: Default::default(),
        };
        let serving = async {
            if discover {
                rmcp::service::serve_client_with_lifecycle(
                    handler,
                    transport,
                    rmcp::service::ClientLifecycleMode::Discover {
                        preferred_versions: vec![rmcp::model::ProtocolVersion::V_2026_07_28],
                    },
                )
                .await
            } else {
                handler.serve(transport).await
            }
        };
        let service = match tokio::time::timeout(Duration::from_secs(30), serving).await {
            Ok(Ok(s)) => s,
            Ok(Err(e)) => panic!(
                "MCP handshake with askd mcp failed: {e}\nstderr: {}",
                log.lock().unwrap()
            ),
            Err(_) => panic!(
                "askd mcp did not initialize within 30 s\nstderr: {}",
                log.lock().unwrap()
            ),
        };
        Adapter {
            service,
            pid,
            stderr: log,
            progress,
            tools_changed,
            schemas: tokio::sync::OnceCell::new(),
        }
    }

    /// `tools/call` → the result as JSON (`content`, `structuredContent`, `isError`). A
    /// successful result's `structuredContent` must validate against the tool's declared
    /// `outputSchema` (MCP clients may reject it otherwise).
    pub async fn call(&self, name: &str, args: Value) -> Value {
        let params = CallToolRequestParams::new(name.to_string()).with_arguments(object(args));
        let result =
            self.service.call_tool(params).await.unwrap_or_else(|e| {
                panic!("tools/call {name} failed: {e}\nstderr: {}", self.stderr())
            });
        let v = serde_json::to_value(result).unwrap();
        if v["isError"] != true {
            self.conforms(name, &v["structuredContent"]).await;
        }
        v
    }

    /// Panics unless `structured` validates against `tool`'s declared output schema.
    pub async fn conforms(&self, tool: &str, structured: &Value) {
        let schemas = self
            .schemas
            .get_or_init(|| async {
                let tools = self.service.list_all_tools().await.expect("tools/list");
                tools
                    .into_iter()
                    .filter_map(|t| {
                        let schema = t.output_schema.as_ref()?;
                        Some((t.name.to_string(), Value::Object((**schema).clone())))
                    })
                    .collect()
            })
            .await;
        let Some(schema) = schemas.get(tool) else {
            return;
        };
        let validator = jsonschema::validator_for(schema)
            .unwrap_or_else(|e| panic!("{tool}'s output schema does not compile: {e}"));
        let errors: Vec<String> = validator
            .iter_errors(structured)
            .map(|e| format!("{} at {}", e, e.instance_path()))
            .collect();
        assert!(
            errors.is_empty(),
            "{tool}'s result does not match its outputSchema: {errors:?}\n{structured}"
        );
    }

    /// Sends `tools/call` and returns the in-flight request (cancellable).
    pub async fn start_call(&self, name: &str, args: Value) -> Started<'_> {
        let params = CallToolRequestParams::new(name.to_string()).with_arguments(object(args));
        let handle = self
            .service
            .send_request_with_option(
                ClientRequest::CallToolRequest(Request::new(params)),
                PeerRequestOptions::no_options(),
            )
            .await
            .expect("send tools/call");
        Started {
            handle,
            name: name.to_string(),
            adapter: self,
        }
    }

    pub fn stderr(&self) -> String {
        self.stderr.lock().unwrap().clone()
    }

    /// SIGKILL: the adapter dies without any goodbye.
    pub fn kill(&self) {
        let ok = std::process::Command::new("kill")
            .args(["-KILL", &self.pid.to_string()])
            .status()
            .expect("run kill")
            .success();
        assert!(ok, "kill -KILL {}", self.pid);
    }
}

/// The result of a request started with [`Adapter::start_call`], as JSON.
/// A `tools/call` in flight, started with [`Adapter::start_call`].
pub struct Started<'a> {
    pub handle: RequestHandle<RoleClient>,
    name: String,
    adapter: &'a Adapter,
}

impl Started<'_> {
    /// `notifications/cancelled` for this call.
    pub async fn cancel(self, reason: Option<String>) -> Result<(), rmcp::service::ServiceError> {
        self.handle.cancel(reason).await
    }
}

/// The call's result as JSON; a successful result must match the tool's `outputSchema`.
pub async fn finish(call: Started<'_>) -> Value {
    let v = match call
        .handle
        .await_response()
        .await
        .expect("tools/call response")
    {
        ServerResult::CallToolResult(r) => serde_json::to_value::<CallToolResult>(r).unwrap(),
        other => panic!("unexpected response: {other:?}"),
    };
    if v["isError"] != true {
        call.adapter
            .conforms(&call.name, &v["structuredContent"])
            .await;
    }
    v
}

/// `structuredContent`, after checking the text copy is the same JSON.
pub fn structured(result: &Value) -> Value {
    let sc = result["structuredContent"].clone();
    assert!(sc.is_object(), "no structuredContent: {result}");
    let text = result["content"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("no text block: {result}"));
    let copy: Value = serde_json::from_str(text).expect("the text copy is JSON");
    assert_eq!(copy, sc, "the text copy is the complete result");
    // The alignment member (alignment.md §5.7) is asserted by alignment_mcp.rs; the other
    // suites compare the ask result without it.
    let mut sc = sc;
    if let Some(m) = sc.as_object_mut() {
        m.remove("alignment");
    }
    sc
}

/// Keys of a JSON object, in order.
pub fn keys(v: &Value) -> Vec<String> {
    v.as_object()
        .map(|m| m.keys().cloned().collect())
        .unwrap_or_default()
}

pub fn median_p90(samples: &mut [Duration]) -> (Duration, Duration) {
    samples.sort();
    let n = samples.len();
    let median = if n % 2 == 1 {
        samples[n / 2]
    } else {
        (samples[n / 2 - 1] + samples[n / 2]) / 2
    };
    let p90 = samples[((n as f64 * 0.9).ceil() as usize).clamp(1, n) - 1];
    (median, p90)
}

pub fn temp_path(home: &Home, name: &str) -> PathBuf {
    home.path().join(name)
}

/// A small valid `ask_user_question` payload, distinct per `n`.
pub fn questions(n: usize) -> Value {
    json!({"questions": [{
        "id": "q",
        "question": format!("Question number {n}?"),
        "options": [{"label": "Yes (Recommended)"}, {"label": "No"}]
    }]})
}

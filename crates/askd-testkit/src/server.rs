//! The in-process test daemon: a real server on a loopback port with a real SQLite file in
//! a temporary directory, and a `reqwest` client that talks to it.
//!
//! Each test binary names the routes its daemons serve beside the daemon's own behind the
//! fence (a [`Mount`]: none for the daemon's tests, `/mcp` for the binary's, as `askd
//! serve` composes it) in the type its `common` module calls `TestServer`:
//! `pub type TestServer = askd_testkit::server::TestServer<NoMount>;`.

use std::marker::PhantomData;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use askd_daemon::http::routes::Routes;
use askd_daemon::server::{Running, start_with};
use askd_daemon::{Daemon, Settings};
use futures_util::StreamExt;
use reqwest::header::{AUTHORIZATION, CONTENT_TYPE, HeaderMap};
use reqwest::{Method, RequestBuilder, StatusCode};
use serde_json::{Value, json};
use tempfile::TempDir;

/// The routes a test daemon serves beside its own, behind the fence
/// (`askd_daemon::server::start_with`'s `mount`).
pub trait Mount {
    fn routes(daemon: &Arc<Daemon>) -> Routes;
}

/// No routes beside the daemon's own.
pub struct NoMount;

impl Mount for NoMount {
    fn routes(_: &Arc<Daemon>) -> Routes {
        Routes::new()
    }
}

/// The request-body limit of the test servers (small, so the 413 test stays quick).
pub const MAX_BODY: usize = 1 << 20;

/// The release-scope survey: entry `scope` (a→api, b→core, c, d→null, e), `ship` multiSelect.
pub const RELEASE_SCOPE: &str = include_str!("../../askd-daemon/tests/fixtures/release-scope.json");

/// The `{"survey": …}` arguments of the release-scope survey.
pub fn release_scope() -> Value {
    serde_json::from_str(RELEASE_SCOPE).expect("release-scope.json is JSON")
}

/// The release-scope arguments with the title changed (a different payload, same shape).
pub fn release_scope_titled(title: &str) -> Value {
    let mut v = release_scope();
    v["survey"]["title"] = json!(title);
    v
}

/// A complete, valid submission for the release-scope survey along scope=a → api → ship.
pub fn full_answers() -> Value {
    json!({"answers": [
        {"id": "scope", "selected": ["a"], "justifications": {"a": "partners are blocked"}},
        {"id": "api", "selected": [], "custom": "REST endpoints first"},
        {"id": "ship", "selected": ["a", "c"]}
    ]})
}

/// One HTTP answer, fully read.
#[derive(Debug)]
pub struct Resp {
    pub status: StatusCode,
    pub headers: HeaderMap,
    pub text: String,
    /// The body as JSON, or `Null` when it is not JSON.
    pub body: Value,
}

impl Resp {
    pub async fn read(r: reqwest::Response) -> Resp {
        let status = r.status();
        let headers = r.headers().clone();
        let text = r.text().await.expect("read the response body");
        let body = serde_json::from_str(&text).unwrap_or(Value::Null);
        Resp {
            status,
            headers,
            text,
            body,
        }
    }

    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|v| v.to_str().ok())
    }

    /// Asserts the status, printing the body when it differs.
    #[track_caller]
    pub fn expect(&self, status: u16) -> &Value {
        assert_eq!(
            self.status.as_u16(),
            status,
            "unexpected status; body: {}",
            self.text
        );
        &self.body
    }

    /// The codes of the `errors` list.
    pub fn error_codes(&self) -> Vec<String> {
        self.body["errors"]
            .as_array()
            .map(|a| {
                a.iter()
                    .map(|e| e["code"].as_str().unwrap_or_default().to_string())
                    .collect()
            })
            .unwrap_or_default()
    }
}

/// A daemon running in this process, serving `M`'s routes beside its own.
pub struct TestServer<M: Mount> {
    running: Option<Running>,
    pub url: String,
    pub token: String,
    pub port: u16,
    pub dir: TempDir,
    pub client: reqwest::Client,
    mount: PhantomData<fn() -> M>,
}

pub fn client() -> reqwest::Client {
    reqwest::Client::builder()
        .no_proxy()
        .redirect(reqwest::redirect::Policy::none())
        .timeout(Duration::from_secs(60))
        .build()
        .expect("build the HTTP client")
}

pub fn config(data_dir: &Path, max_body_bytes: usize) -> Settings {
    Settings {
        listen: "127.0.0.1:0".parse().unwrap(),
        data_dir: data_dir.to_path_buf(),
        max_body_bytes,
        ..Settings::default()
    }
}

impl<M: Mount> TestServer<M> {
    /// A fresh daemon on a fresh data directory.
    pub async fn start() -> Self {
        Self::start_in(TempDir::new().expect("temporary directory")).await
    }

    /// A fresh daemon whose data directory lives in memory when the system has a tmpfs at
    /// `/dev/shm` (fsync is free there): for tests that need thousands of commits.
    pub async fn start_in_memory() -> Self {
        let shm = Path::new("/dev/shm");
        let dir = if shm.is_dir() {
            TempDir::new_in(shm).or_else(|_| TempDir::new())
        } else {
            TempDir::new()
        };
        Self::start_in(dir.expect("temporary directory")).await
    }

    /// A daemon on an existing data directory (a restart).
    pub async fn start_in(dir: TempDir) -> Self {
        let cfg = config(dir.path(), MAX_BODY);
        Self::start_with(dir, cfg).await
    }

    /// A daemon on `dir` with its own configuration.
    pub async fn start_with(dir: TempDir, cfg: Settings) -> Self {
        let running = start_with(cfg, M::routes).await.expect("start the daemon");
        let port = running
            .url
            .rsplit(':')
            .next()
            .and_then(|p| p.parse().ok())
            .expect("port in the daemon URL");
        TestServer {
            url: running.url.clone(),
            token: running.token.clone(),
            port,
            running: Some(running),
            dir,
            client: client(),
            mount: PhantomData,
        }
    }

    /// The running daemon itself (for tests that reach past the HTTP API, e.g. to write to
    /// the store the way another process would).
    pub fn daemon(&self) -> &Arc<Daemon> {
        &self.running.as_ref().expect("the daemon runs").daemon
    }

    /// Stops the daemon and hands back its data directory.
    pub async fn stop(mut self) -> TempDir {
        if let Some(r) = self.running.take() {
            r.stop().await;
        }
        self.dir
    }

    /// `127.0.0.1:PORT`: this daemon's own Host.
    pub fn host(&self) -> String {
        format!("127.0.0.1:{}", self.port)
    }

    /// A request with no credentials at all.
    pub fn bare(&self, method: Method, path: &str) -> RequestBuilder {
        self.client.request(method, format!("{}{path}", self.url))
    }

    /// A request carrying the bearer token.
    pub fn req(&self, method: Method, path: &str) -> RequestBuilder {
        self.bare(method, path)
            .header(AUTHORIZATION, format!("Bearer {}", self.token))
    }

    pub async fn send(&self, rb: RequestBuilder) -> Resp {
        Resp::read(rb.send().await.expect("send the request")).await
    }

    pub async fn get(&self, path: &str) -> Resp {
        self.send(self.req(Method::GET, path)).await
    }

    pub async fn post(&self, path: &str, body: &Value) -> Resp {
        self.send(self.req(Method::POST, path).json(body)).await
    }

    pub async fn put(&self, path: &str, body: &Value) -> Resp {
        self.send(self.req(Method::PUT, path).json(body)).await
    }

    /// Opens a session and returns its id.
    pub async fn session(&self, client: &str, workspace: Option<&str>) -> String {
        let r = self
            .post(
                "/api/sessions",
                &json!({"client": client, "workspace": workspace}),
            )
            .await;
        r.expect(200)["session"]["id"]
            .as_str()
            .expect("session id")
            .to_string()
    }

    /// Creates an ask and returns the response (not asserted).
    pub async fn create(&self, kind: &str, session: Option<&str>, args: &Value) -> Resp {
        let mut body = json!({"kind": kind, "args": args});
        if let Some(s) = session {
            body["session"] = json!(s);
        }
        self.post("/api/asks", &body).await
    }

    /// Creates the release-scope survey and returns its ask id.
    pub async fn survey(&self, session: Option<&str>) -> String {
        self.survey_with(session, &release_scope()).await
    }

    pub async fn survey_with(&self, session: Option<&str>, args: &Value) -> String {
        let r = self.create("survey", session, args).await;
        r.expect(201)["ask_id"]
            .as_str()
            .expect("ask_id")
            .to_string()
    }

    pub async fn ask(&self, id: &str) -> Value {
        self.get(&format!("/api/asks/{id}"))
            .await
            .expect(200)
            .clone()
    }

    pub async fn action(&self, id: &str, action: &str, body: &Value) -> Resp {
        self.post(&format!("/api/asks/{id}/{action}"), body).await
    }

    /// Opens the event stream with extra request settings.
    pub async fn events(&self, rb: RequestBuilder) -> SseReader {
        let r = rb.send().await.expect("open the event stream");
        assert_eq!(r.status(), StatusCode::OK, "event stream status");
        let ct = r
            .headers()
            .get(CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
            .to_string();
        assert!(ct.starts_with("text/event-stream"), "content type {ct}");
        SseReader {
            stream: Box::pin(r.bytes_stream().map(|c| c.map(|b| b.to_vec()))),
            buf: Vec::new(),
            scanned: 0,
        }
    }
}

/// One Server-Sent Events frame.
#[derive(Debug, Clone)]
pub struct Frame {
    pub id: Option<i64>,
    pub event: Option<String>,
    pub data: Value,
}

type ByteStream =
    std::pin::Pin<Box<dyn futures_util::Stream<Item = reqwest::Result<Vec<u8>>> + Send>>;

/// Reads frames off an event stream.
pub struct SseReader {
    stream: ByteStream,
    buf: Vec<u8>,
    /// How much of `buf` is known to hold no frame end.
    scanned: usize,
}

impl SseReader {
    /// The next event frame (comments and heartbeats skipped), or `None` on timeout or end.
    pub async fn next(&mut self, within: Duration) -> Option<Frame> {
        let deadline = tokio::time::Instant::now() + within;
        loop {
            if let Some(frame) = self.take_frame() {
                if frame.event.is_none() && frame.id.is_none() {
                    continue;
                }
                return Some(frame);
            }
            let chunk = tokio::time::timeout_at(deadline, self.stream.next())
                .await
                .ok()??;
            let chunk = chunk.ok()?;
            self.buf.extend_from_slice(&chunk);
        }
    }

    /// Whether the stream ends (the server closes it) within `within`; frames before the
    /// end are returned in `seen`.
    pub async fn ends(&mut self, within: Duration, seen: &mut Vec<Frame>) -> bool {
        let deadline = tokio::time::Instant::now() + within;
        loop {
            while let Some(frame) = self.take_frame() {
                if frame.event.is_some() || frame.id.is_some() {
                    seen.push(frame);
                }
            }
            match tokio::time::timeout_at(deadline, self.stream.next()).await {
                Err(_) => return false,
                Ok(None) | Ok(Some(Err(_))) => return true,
                Ok(Some(Ok(chunk))) => self.buf.extend_from_slice(&chunk),
            }
        }
    }

    /// Every frame that arrives until the stream is quiet for `quiet`.
    pub async fn drain(&mut self, quiet: Duration) -> Vec<Frame> {
        let mut out = Vec::new();
        while let Some(f) = self.next(quiet).await {
            out.push(f);
        }
        out
    }

    /// Reads exactly `n` frames, failing if they do not arrive within `within` each.
    pub async fn take(&mut self, n: usize, within: Duration) -> Vec<Frame> {
        let mut out = Vec::with_capacity(n);
        while out.len() < n {
            match self.next(within).await {
                Some(f) => out.push(f),
                None => {
                    let ids: Vec<Option<i64>> = out.iter().map(|f| f.id).collect();
                    let tail = &ids[ids.len().saturating_sub(5)..];
                    panic!(
                        "expected {n} frames, got {} (ids from {:?}, last {tail:?})",
                        out.len(),
                        ids.first()
                    )
                }
            }
        }
        out
    }

    fn take_frame(&mut self) -> Option<Frame> {
        let from = self.scanned.saturating_sub(1);
        let Some(end) = self.buf[from..]
            .windows(2)
            .position(|w| w == b"\n\n")
            .map(|p| p + from)
        else {
            self.scanned = self.buf.len();
            return None;
        };
        let raw: Vec<u8> = self.buf.drain(..end + 2).collect();
        self.scanned = 0;
        let raw = String::from_utf8(raw).expect("event frames are UTF-8");
        let mut frame = Frame {
            id: None,
            event: None,
            data: Value::Null,
        };
        let mut data = String::new();
        for line in raw.lines() {
            if line.starts_with(':') {
                continue;
            }
            let (field, value) = line.split_once(':').unwrap_or((line, ""));
            let value = value.strip_prefix(' ').unwrap_or(value);
            match field {
                "id" => frame.id = value.parse().ok(),
                "event" => frame.event = Some(value.to_string()),
                "data" => {
                    if !data.is_empty() {
                        data.push('\n');
                    }
                    data.push_str(value);
                }
                _ => {}
            }
        }
        frame.data = serde_json::from_str(&data).unwrap_or(Value::String(data));
        Some(frame)
    }
}

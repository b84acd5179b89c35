//! Scale benchmark of `askd serve` (issue 16, "costs that stay flat as history grows"):
//! `cargo bench --locked -p askd --bench scale`.
//!
//! The daemon is the real binary, a child process on loopback with a fresh data directory,
//! so its start time and RSS are its own. Three axes, each grown in one data directory:
//!
//! - **stored**: 1k / 10k / 100k asks in the store, in sessions of 50 answered asks;
//! - **session**: 50 / 500 / 5,000 / 20,000 answered asks in ONE session;
//! - **pending** (issue 32): 10 / 1,000 / 10,000 pending asks in the target session (50
//!   answered ones beside them), the target among them (`ASKD_SCALE_PENDING`).
//!
//! Both have the same base: a *target* session (the big session itself on the session axis,
//! a 50-ask session on the stored axis) holding a pending questions ask that repeats its
//! first decision (so `GET /api/asks/{id}` computes a non-empty "asked earlier" hint), and
//! 99 more pending asks elsewhere, so the pending list always returns 100 rows.
//!
//! Seeding goes through the daemon's HTTP API (`POST /api/sessions`, `POST /api/asks` kind
//! `questions`, `POST /api/asks/{id}/submit`) with concurrent clients: the stored rows are
//! exactly what the daemon writes, and the bench needs no store internals.
//!
//! At each size the daemon is stopped (SIGTERM: it checkpoints) and started again, then:
//! - `start_ms`: spawn → first `GET /api/health` answered (the median of three starts);
//! - `db_bytes_per_ask`: (`askd.db` + `askd.db-wal`) / stored asks, after the stop;
//! - `rss_idle_mib`: VmRSS right after the start;
//! - `ask_first_ms`: the first `GET /api/asks/{target}` after the start (it reads the
//!   session's alignment from its checkpoint on);
//! - medians (ms) of `GET /api/asks?state=pending` (`pending`), `GET /api/asks/{target}`
//!   (`ask`, with the number of `repeats` it carries), `GET /api/sessions/{id}/alignment`
//!   (`page`: the session page's view; `bytes` is its size), and
//!   `POST /api/sessions/{id}/alignment/status` with the MCP adapter's body (`mcp`: the HTTP
//!   call `alignment_status` makes through `askd-mcp`'s `HttpBackend`; `bytes` its response)
//!   — `mcp_bytes` is that response after the adapter's
//!   `askd_core::alignment::status::bound_status`, i.e. the tool's JSON output;
//! - a sweep of one-ask reads (4 concurrent clients) over every stored ask (stored axis) or
//!   over the big session's asks (session axis), then
//!   `rss_sweep_mib` (VmRSS one second after it) and `rss_peak_mib` (VmHWM).
//!
//! Every median takes up to `ASKD_SCALE_REPS` requests (default 30) within
//! `ASKD_SCALE_METRIC_S` seconds (default 10; at least 3 requests); the sweep stops at
//! `ASKD_SCALE_SWEEP` reads (default 10,000) or `ASKD_SCALE_SWEEP_S` seconds (default 60),
//! and reports how many it did. Knobs for a smaller grid: `ASKD_SCALE_QUICK=1` (stored
//! 1k/10k, session 50/500/5,000), or `ASKD_SCALE_STORED=1000,10000` and
//! `ASKD_SCALE_SESSION=50,500` (an empty list skips the axis); `ASKD_SCALE_CLIENTS`
//! (seeding concurrency, default 32); `ASKD_SCALE_JSON=path` also writes the JSON there.
//!
//! Prints a table and one JSON document on stdout; progress goes to stderr.

use std::path::Path;
use std::process::Command;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use reqwest::Method;
use serde_json::{Value, json};

mod common;
use common::{Client, Daemon, proc_kib};

/// Pending asks in every data directory (the target and 99 more).
const PENDING: usize = 100;
/// Answered asks per session on the stored axis.
const FILL_SESSION: usize = 50;
/// Concurrent clients of the sweep.
const SWEEP_CLIENTS: usize = 4;

struct Knobs {
    stored: Vec<usize>,
    session: Vec<usize>,
    pending: Vec<usize>,
    reps: usize,
    metric_budget: Duration,
    sweep: usize,
    sweep_budget: Duration,
    clients: usize,
    json_path: Option<String>,
}

fn env_usize(name: &str, default: usize) -> usize {
    match std::env::var(name) {
        Ok(v) => v
            .trim()
            .replace('_', "")
            .parse()
            .unwrap_or_else(|_| panic!("{name} must be a number, got {v:?}")),
        Err(_) => default,
    }
}

fn env_list(name: &str, default: &[usize]) -> Vec<usize> {
    match std::env::var(name) {
        Ok(v) => v
            .split(',')
            .map(|s| s.trim().replace('_', ""))
            .filter(|s| !s.is_empty())
            .map(|s| {
                s.parse()
                    .unwrap_or_else(|_| panic!("{name}: {s:?} is not a number"))
            })
            .collect(),
        Err(_) => default.to_vec(),
    }
}

impl Knobs {
    fn from_env() -> Self {
        let quick = std::env::var("ASKD_SCALE_QUICK").is_ok_and(|v| !v.is_empty() && v != "0");
        let (stored, session, pending): (&[usize], &[usize], &[usize]) = if quick {
            (&[1_000, 10_000], &[50, 500, 5_000], &[10, 1_000])
        } else {
            (
                &[1_000, 10_000, 100_000],
                &[50, 500, 5_000, 20_000],
                &[10, 1_000, 10_000],
            )
        };
        let mut stored = env_list("ASKD_SCALE_STORED", stored);
        let mut session = env_list("ASKD_SCALE_SESSION", session);
        let mut pending = env_list("ASKD_SCALE_PENDING", pending);
        stored.sort_unstable();
        session.sort_unstable();
        pending.sort_unstable();
        Knobs {
            stored,
            session,
            pending,
            reps: env_usize("ASKD_SCALE_REPS", 30).max(3),
            metric_budget: Duration::from_secs(env_usize("ASKD_SCALE_METRIC_S", 10) as u64),
            sweep: env_usize("ASKD_SCALE_SWEEP", 10_000),
            sweep_budget: Duration::from_secs(env_usize("ASKD_SCALE_SWEEP_S", 60) as u64),
            clients: env_usize("ASKD_SCALE_CLIENTS", 32).max(1),
            json_path: std::env::var("ASKD_SCALE_JSON")
                .ok()
                .filter(|p| !p.is_empty()),
        }
    }
}

// ---------------------------------------------------------------------------------------
// The daemon as a child process.

impl Daemon {
    /// SIGTERM, so the daemon stops gracefully (checkpointing the database).
    fn stop(mut self) {
        let _ = Command::new("kill")
            .args(["-TERM", &self.pid().to_string()])
            .status();
        let deadline = Instant::now() + Duration::from_secs(60);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        eprintln!("scale: the daemon did not stop within 60 s of SIGTERM; killing it");
    }
}

fn mib(kib: u64) -> f64 {
    kib as f64 / 1024.0
}

fn db_bytes(home: &Path) -> u64 {
    ["askd.db", "askd.db-wal"]
        .iter()
        .map(|f| std::fs::metadata(home.join(f)).map_or(0, |m| m.len()))
        .sum()
}

// ---------------------------------------------------------------------------------------
// The HTTP client.

/// A one-question `ask_user_question`: question `i` of the bench, each one distinct.
fn questions(i: usize) -> Value {
    json!({"questions": [{
        "id": "engine",
        "question": format!("Which storage engine should component {i} use?"),
        "options": [
            {"label": "SQLite", "description": "embedded, one file"},
            {"label": "PostgreSQL", "description": "a server"}
        ]
    }]})
}

fn answer(i: usize) -> Value {
    let label = if i.is_multiple_of(3) {
        "PostgreSQL"
    } else {
        "SQLite"
    };
    json!({"answers": [{"id": "engine", "selected": [label]}]})
}

async fn create(client: &Client, session: &str, i: usize) -> String {
    let created = client
        .post(
            "/api/asks",
            &json!({"kind": "questions", "session": session, "args": questions(i)}),
        )
        .await;
    created["ask_id"].as_str().expect("ask_id").to_string()
}

async fn open_session(client: &Client, id: &str) {
    let r = client
        .post("/api/sessions", &json!({"id": id, "client": "bench-scale"}))
        .await;
    assert_eq!(r["session"]["id"], id, "{r}");
}

/// One seeding job: an ask `i` in `session`, answered or left pending.
struct Job {
    session: Arc<str>,
    i: usize,
    answered: bool,
}

/// Runs the jobs with `clients` concurrent clients; returns the ask ids in job order.
async fn seed(client: &Arc<Client>, jobs: Vec<Job>, clients: usize) -> Vec<String> {
    let n = jobs.len();
    let jobs = Arc::new(jobs);
    let next = Arc::new(AtomicUsize::new(0));
    let mut tasks = Vec::new();
    for _ in 0..clients.min(n.max(1)) {
        let (client, jobs, next) = (client.clone(), jobs.clone(), next.clone());
        tasks.push(tokio::spawn(async move {
            let mut done = Vec::new();
            loop {
                let k = next.fetch_add(1, Ordering::Relaxed);
                let Some(job) = jobs.get(k) else { break };
                let id = create(&client, &job.session, job.i).await;
                if job.answered {
                    client
                        .post(&format!("/api/asks/{id}/submit"), &answer(job.i))
                        .await;
                }
                done.push((k, id));
            }
            done
        }));
    }
    let mut ids = vec![String::new(); n];
    for task in tasks {
        for (k, id) in task.await.unwrap() {
            ids[k] = id;
        }
    }
    ids
}

// ---------------------------------------------------------------------------------------
// Measuring.

#[derive(Clone, Copy)]
struct Sample {
    median_ms: f64,
    n: usize,
    bytes: usize,
}

impl Sample {
    fn json(&self) -> Value {
        json!({"median_ms": round3(self.median_ms), "n": self.n, "bytes": self.bytes})
    }
}

fn round3(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}

/// The median of up to `reps` requests (at least 3) within the budget, after one warm-up.
async fn median(
    client: &Client,
    knobs: &Knobs,
    method: Method,
    path: &str,
    body: Option<&Value>,
) -> (Sample, Vec<u8>) {
    let (status, mut last, _) = client.send(method.clone(), path, body).await;
    assert!((200..300).contains(&status), "{path}: {status}");
    let started = Instant::now();
    let mut times = Vec::new();
    while times.len() < knobs.reps && (times.len() < 3 || started.elapsed() < knobs.metric_budget) {
        let (status, bytes, t) = client.send(method.clone(), path, body).await;
        assert!((200..300).contains(&status), "{path}: {status}");
        times.push(t);
        last = bytes;
    }
    times.sort();
    let mid = times.len() / 2;
    let median = if times.len() % 2 == 1 {
        times[mid].as_secs_f64()
    } else {
        (times[mid - 1].as_secs_f64() + times[mid].as_secs_f64()) / 2.0
    };
    (
        Sample {
            median_ms: median * 1000.0,
            n: times.len(),
            bytes: last.len(),
        },
        last,
    )
}

/// Reads `GET /api/asks/{id}` over `ids` (cycling) with a few clients until `knobs.sweep`
/// reads or the budget; returns the reads done and the seconds taken.
async fn sweep(client: &Arc<Client>, ids: Arc<Vec<String>>, knobs: &Knobs) -> (usize, f64) {
    let started = Instant::now();
    let next = Arc::new(AtomicUsize::new(0));
    let (total, budget) = (knobs.sweep, knobs.sweep_budget);
    let mut tasks = Vec::new();
    for _ in 0..SWEEP_CLIENTS {
        let (client, ids, next) = (client.clone(), ids.clone(), next.clone());
        tasks.push(tokio::spawn(async move {
            let mut done = 0;
            while started.elapsed() < budget {
                let k = next.fetch_add(1, Ordering::Relaxed);
                if k >= total {
                    break;
                }
                // A stride through the ids, so consecutive reads are different asks.
                let id = &ids[(k * 7919) % ids.len()];
                let (status, _, _) = client
                    .send(Method::GET, &format!("/api/asks/{id}"), None)
                    .await;
                assert_eq!(status, 200, "GET /api/asks/{id}");
                done += 1;
            }
            done
        }));
    }
    let mut done = 0;
    for t in tasks {
        done += t.await.unwrap();
    }
    (done, started.elapsed().as_secs_f64())
}

/// One data directory grown along one axis.
struct Dir {
    home: tempfile::TempDir,
    daemon: Option<Daemon>,
    client: Arc<Client>,
    /// The session whose pending ask is read and whose status is measured.
    target_session: String,
    target_ask: String,
    /// The target session's asks (answered ones and the target).
    target_ids: Vec<String>,
    /// Every other ask (the stored axis sweeps over all asks, the session axis over the
    /// target session's).
    other_ids: Vec<String>,
    sweep_all: bool,
    stored: usize,
    next_i: usize,
    fill_sessions: usize,
    /// Pending asks in the target session besides the target (the pending axis).
    session_pending: usize,
}

impl Dir {
    async fn new(
        knobs: &Knobs,
        target_session: &str,
        target_answered: usize,
        sweep_all: bool,
    ) -> Self {
        let home = tempfile::tempdir().unwrap();
        let daemon = Daemon::spawn(home.path(), Duration::from_secs(120));
        let client = daemon.client(128);
        open_session(&client, target_session).await;
        open_session(&client, "pending").await;
        let session: Arc<str> = Arc::from(target_session);
        let jobs = (0..target_answered)
            .map(|i| Job {
                session: session.clone(),
                i,
                answered: true,
            })
            .collect();
        let target_ids = seed(&client, jobs, knobs.clients).await;
        // The target repeats the session's first decision (question 0).
        let target_ask = create(&client, target_session, 0).await;
        let pending: Arc<str> = Arc::from("pending");
        let jobs = (0..PENDING - 1)
            .map(|k| Job {
                session: pending.clone(),
                i: 900_000_000 + k,
                answered: false,
            })
            .collect();
        let other_ids = seed(&client, jobs, knobs.clients).await;
        let mut target_ids = target_ids;
        target_ids.push(target_ask.clone());
        Dir {
            home,
            daemon: Some(daemon),
            client,
            target_session: target_session.to_string(),
            target_ask,
            stored: target_answered + PENDING,
            target_ids,
            other_ids,
            sweep_all,
            next_i: target_answered,
            fill_sessions: 0,
            session_pending: 0,
        }
    }

    /// More pending asks in the target session, up to `to` with the target.
    async fn grow_pending(&mut self, to: usize, clients: usize) {
        let add = to.saturating_sub(self.session_pending + 1);
        let session: Arc<str> = Arc::from(self.target_session.as_str());
        let jobs: Vec<Job> = (0..add)
            .map(|k| Job {
                session: session.clone(),
                i: 800_000_000 + self.session_pending + k,
                answered: false,
            })
            .collect();
        let ids = seed(&self.client, jobs, clients).await;
        self.target_ids.extend(ids);
        self.stored += add;
        self.session_pending += add;
    }

    /// More answered asks in the target session, up to `to` of them.
    async fn grow_session(&mut self, to: usize, clients: usize) {
        let have = self.target_ids.len() - 1;
        let session: Arc<str> = Arc::from(self.target_session.as_str());
        let jobs: Vec<Job> = (have..to)
            .map(|k| Job {
                session: session.clone(),
                i: self.next_i + (k - have),
                answered: true,
            })
            .collect();
        let added = jobs.len();
        let ids = seed(&self.client, jobs, clients).await;
        self.target_ids.extend(ids);
        self.next_i += added;
        self.stored += added;
    }

    /// More answered asks in new sessions of 50, up to `to` stored asks.
    async fn grow_stored(&mut self, to: usize, clients: usize) {
        let add = to.saturating_sub(self.stored);
        let first_session = self.fill_sessions;
        let sessions = add.div_ceil(FILL_SESSION);
        let names: Vec<Arc<str>> = (first_session..first_session + sessions)
            .map(|s| Arc::from(format!("fill-{s}").as_str()))
            .collect();
        // Sessions first (concurrently), then their asks.
        let next = Arc::new(AtomicUsize::new(0));
        let names_shared = Arc::new(names.clone());
        let mut tasks = Vec::new();
        for _ in 0..clients.min(sessions.max(1)) {
            let (client, names, next) = (self.client.clone(), names_shared.clone(), next.clone());
            tasks.push(tokio::spawn(async move {
                loop {
                    let k = next.fetch_add(1, Ordering::Relaxed);
                    let Some(name) = names.get(k) else { break };
                    open_session(&client, name).await;
                }
            }));
        }
        for t in tasks {
            t.await.unwrap();
        }
        let jobs = (0..add)
            .map(|k| Job {
                session: names[k / FILL_SESSION].clone(),
                i: self.next_i + k,
                answered: true,
            })
            .collect();
        let ids = seed(&self.client, jobs, clients).await;
        self.other_ids.extend(ids);
        self.next_i += add;
        self.stored += add;
        self.fill_sessions += sessions;
    }

    /// Stop, measure the files, start again, measure everything.
    async fn measure(&mut self, knobs: &Knobs, axis: &str, size: usize, seed_s: f64) -> Value {
        let home = self.home.path().to_path_buf();
        self.daemon.take().expect("running").stop();
        let bytes = db_bytes(&home);
        // The median of three starts: one start on a shared machine is mostly noise.
        let mut starts = Vec::new();
        let mut daemon = None;
        for _ in 0..3 {
            if let Some(d) = daemon.take() {
                Daemon::stop(d);
            }
            let t = Instant::now();
            let d = Daemon::spawn(&home, Duration::from_secs(120));
            self.client = d.client(128);
            loop {
                let (status, _, _) = self.client.send(Method::GET, "/api/health", None).await;
                if status == 200 {
                    break;
                }
                tokio::time::sleep(Duration::from_millis(2)).await;
            }
            starts.push(t.elapsed().as_secs_f64() * 1000.0);
            daemon = Some(d);
        }
        starts.sort_by(f64::total_cmp);
        let start_ms = starts[1];
        let daemon = daemon.expect("started");
        let pid = daemon.pid();
        self.daemon = Some(daemon);
        tokio::time::sleep(Duration::from_millis(500)).await;
        let rss_idle = proc_kib(pid, "VmRSS:");
        let client = self.client.clone();

        let ask_path = format!("/api/asks/{}", self.target_ask);
        let t = Instant::now();
        let (status, _, _) = client.send(Method::GET, &ask_path, None).await;
        assert_eq!(status, 200, "the target ask");
        let ask_first_ms = t.elapsed().as_secs_f64() * 1000.0;

        let (pending, body) =
            median(&client, knobs, Method::GET, "/api/asks?state=pending", None).await;
        let list: Value = serde_json::from_slice(&body).unwrap();
        let rows = list["asks"].as_array().map_or(0, Vec::len);
        // GET /api/asks lists the newest 500 without a limit (issue 32; an earlier askd, run
        // through ASKD_BENCH_ASKD, lists them all).
        let all = PENDING + self.session_pending;
        assert!(
            rows == all.min(500) || rows == all,
            "the pending list: {rows} of {all}"
        );

        let (ask, body) = median(&client, knobs, Method::GET, &ask_path, None).await;
        let view: Value = serde_json::from_slice(&body).unwrap();
        let repeats = view["repeats"].as_object().map_or(0, |o| o.len());

        let page_path = format!("/api/sessions/{}/alignment", self.target_session);
        let (page, body) = median(&client, knobs, Method::GET, &page_path, None).await;
        let page_view: Value = serde_json::from_slice(&body).unwrap();

        // What `alignment_status` asks of the daemon through askd-mcp's `HttpBackend`.
        let mcp_path = format!("/api/sessions/{}/alignment/status", self.target_session);
        let mcp_body = json!({"configured": "auto", "lang": "en"});
        let (mcp, body) = median(&client, knobs, Method::POST, &mcp_path, Some(&mcp_body)).await;
        let mut status: Value = serde_json::from_slice(&body).unwrap();
        askd_core::alignment::status::bound_status(&mut status, None);
        let mcp_bytes = serde_json::to_string(&status).unwrap().len();

        let mut ids = self.target_ids.clone();
        if self.sweep_all {
            ids.extend(self.other_ids.iter().cloned());
        }
        let (reads, sweep_s) = sweep(&client, Arc::new(ids), knobs).await;
        tokio::time::sleep(Duration::from_secs(1)).await;
        let rss_sweep = proc_kib(pid, "VmRSS:");
        let rss_peak = proc_kib(pid, "VmHWM:");

        let session_asks = self.target_ids.len() - 1;
        json!({
            "axis": axis,
            "size": size,
            "stored_asks": self.stored,
            "session_asks": session_asks,
            "seed_s": round3(seed_s),
            "start_ms": round3(start_ms),
            "ask_first_ms": round3(ask_first_ms),
            "pending": pending.json(),
            "ask": with_repeats(ask.json(), repeats),
            "page": page.json(),
            "page_rounds": page_view["rounds"],
            "mcp": mcp.json(),
            "mcp_bytes": mcp_bytes,
            "db_bytes": bytes,
            "db_bytes_per_ask": round3(bytes as f64 / self.stored as f64),
            "rss_idle_mib": round3(mib(rss_idle)),
            "sweep": {"reads": reads, "seconds": round3(sweep_s)},
            "rss_sweep_mib": round3(mib(rss_sweep)),
            "rss_peak_mib": round3(mib(rss_peak)),
        })
    }
}

fn with_repeats(mut v: Value, repeats: usize) -> Value {
    v["repeats"] = json!(repeats);
    v
}

fn kb(bytes: &Value) -> String {
    let b = bytes.as_f64().unwrap_or(0.0);
    if b >= 1024.0 * 1024.0 {
        format!("{:.2}M", b / 1024.0 / 1024.0)
    } else {
        format!("{:.1}K", b / 1024.0)
    }
}

fn ms(v: &Value) -> String {
    let m = v.as_f64().unwrap_or(f64::NAN);
    if m >= 100.0 {
        format!("{m:.0}")
    } else {
        format!("{m:.2}")
    }
}

fn table(rows: &[Value]) -> String {
    let head = [
        "axis",
        "size",
        "stored",
        "start ms",
        "1st ask",
        "pending ms",
        "ask ms",
        "page ms",
        "page size",
        "mcp ms",
        "mcp raw",
        "mcp out",
        "DB B/ask",
        "RSS idle",
        "RSS sweep",
        "peak",
        "sweep",
    ];
    let mut lines: Vec<Vec<String>> = vec![head.iter().map(|s| s.to_string()).collect()];
    for r in rows {
        lines.push(vec![
            r["axis"].as_str().unwrap_or("").to_string(),
            r["size"].to_string(),
            r["stored_asks"].to_string(),
            ms(&r["start_ms"]),
            ms(&r["ask_first_ms"]),
            ms(&r["pending"]["median_ms"]),
            ms(&r["ask"]["median_ms"]),
            ms(&r["page"]["median_ms"]),
            kb(&r["page"]["bytes"]),
            ms(&r["mcp"]["median_ms"]),
            kb(&r["mcp"]["bytes"]),
            kb(&r["mcp_bytes"]),
            format!("{:.0}", r["db_bytes_per_ask"].as_f64().unwrap_or(0.0)),
            format!("{:.1}M", r["rss_idle_mib"].as_f64().unwrap_or(0.0)),
            format!("{:.1}M", r["rss_sweep_mib"].as_f64().unwrap_or(0.0)),
            format!("{:.1}M", r["rss_peak_mib"].as_f64().unwrap_or(0.0)),
            format!(
                "{} in {:.1}s",
                r["sweep"]["reads"],
                r["sweep"]["seconds"].as_f64().unwrap_or(0.0)
            ),
        ]);
    }
    let widths: Vec<usize> = (0..head.len())
        .map(|c| {
            lines
                .iter()
                .map(|l| l[c].chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    let mut out = String::new();
    for (n, l) in lines.iter().enumerate() {
        let cells: Vec<String> = l
            .iter()
            .zip(&widths)
            .enumerate()
            .map(|(c, (s, &w))| {
                if c == 0 {
                    format!("{s:<w$}")
                } else {
                    format!("{s:>w$}")
                }
            })
            .collect();
        out.push_str(&format!("| {} |\n", cells.join(" | ")));
        if n == 0 {
            let rule: Vec<String> = widths
                .iter()
                .enumerate()
                .map(|(c, w)| {
                    if c == 0 {
                        "-".repeat(w + 2)
                    } else {
                        format!("{}:", "-".repeat(w + 1))
                    }
                })
                .collect();
            out.push_str(&format!("|{}|\n", rule.join("|")));
        }
    }
    out
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    // `cargo test --benches` runs benches once in test mode; this one is far too slow.
    if std::env::args().any(|a| a == "--test") || std::env::args().all(|a| a != "--bench") {
        println!("scale: skipped (run with `cargo bench -p askd --bench scale`)");
        return;
    }
    let knobs = Knobs::from_env();
    let all = Instant::now();
    let mut rows = Vec::new();

    if !knobs.stored.is_empty() {
        let t = Instant::now();
        let mut dir = Dir::new(&knobs, "target", FILL_SESSION, true).await;
        let mut seeded = t.elapsed().as_secs_f64();
        for (k, &n) in knobs.stored.iter().enumerate() {
            let t = Instant::now();
            dir.grow_stored(n, knobs.clients).await;
            let seed_s = t.elapsed().as_secs_f64() + if k == 0 { seeded } else { 0.0 };
            seeded = 0.0;
            eprintln!(
                "scale: stored {n}: seeded {} asks in {seed_s:.1} s; measuring",
                dir.stored
            );
            let row = dir.measure(&knobs, "stored", n, seed_s).await;
            eprintln!("{}", serde_json::to_string(&row).unwrap());
            rows.push(row);
        }
        if let Some(d) = dir.daemon.take() {
            d.stop();
        }
    }

    if let Some(&first) = knobs.session.first() {
        let t = Instant::now();
        let mut dir = Dir::new(&knobs, "big", first, false).await;
        let mut seeded = t.elapsed().as_secs_f64();
        for (k, &n) in knobs.session.iter().enumerate() {
            let t = Instant::now();
            dir.grow_session(n, knobs.clients).await;
            let seed_s = t.elapsed().as_secs_f64() + if k == 0 { seeded } else { 0.0 };
            seeded = 0.0;
            eprintln!("scale: session {n}: seeded in {seed_s:.1} s; measuring");
            let row = dir.measure(&knobs, "session", n, seed_s).await;
            eprintln!("{}", serde_json::to_string(&row).unwrap());
            rows.push(row);
        }
        if let Some(d) = dir.daemon.take() {
            d.stop();
        }
    }

    if !knobs.pending.is_empty() {
        let t = Instant::now();
        let mut dir = Dir::new(&knobs, "waiting", FILL_SESSION, false).await;
        let mut seeded = t.elapsed().as_secs_f64();
        for (k, &n) in knobs.pending.iter().enumerate() {
            let t = Instant::now();
            dir.grow_pending(n, knobs.clients).await;
            let seed_s = t.elapsed().as_secs_f64() + if k == 0 { seeded } else { 0.0 };
            seeded = 0.0;
            eprintln!("scale: pending {n}: seeded in {seed_s:.1} s; measuring");
            let row = dir.measure(&knobs, "pending", n, seed_s).await;
            eprintln!("{}", serde_json::to_string(&row).unwrap());
            rows.push(row);
        }
        if let Some(d) = dir.daemon.take() {
            d.stop();
        }
    }

    let report = json!({
        "bench": "scale",
        "grid": {"stored": knobs.stored, "session": knobs.session, "pending": knobs.pending},
        "knobs": {
            "reps": knobs.reps,
            "metric_budget_s": knobs.metric_budget.as_secs(),
            "sweep": knobs.sweep,
            "sweep_budget_s": knobs.sweep_budget.as_secs(),
            "seed_clients": knobs.clients,
            "sweep_clients": SWEEP_CLIENTS,
            "pending": PENDING,
        },
        "rows": rows,
        "total_s": round3(all.elapsed().as_secs_f64()),
        "bars": {
            "flat": "every latency at the largest size within 2x of the smallest",
            "mcp_bytes_max": 8192,
            "rss_sweep_minus_idle_mib_max": 50,
        },
    });
    println!("{}", table(&rows));
    let text = serde_json::to_string_pretty(&report).unwrap();
    println!("{text}");
    if let Some(path) = &knobs.json_path {
        std::fs::write(path, &text).expect("write ASKD_SCALE_JSON");
    }
}

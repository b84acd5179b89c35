//! Load benchmark of `askd serve` over loopback (bounded request counts; run with
//! `cargo bench --locked -p askd --bench load`).
//!
//! Reports, as one JSON document:
//! - create → submit → result round-trip latency (p50, p99) with one client;
//! - throughput of create + submit with 32 concurrent clients (settled asks per second);
//! - the alignment status latency of a session with 50 answered asks (and of one holding
//!   every ask above);
//! - the daemon's resident memory with 10,000 pending asks.
//!
//! The daemon is the real binary, run as a child process on a fresh data directory, so
//! its RSS is its own.

use std::time::{Duration, Instant};

use serde_json::{Value, json};

mod common;
use common::{Client, Daemon};

const ROUND_TRIPS: usize = 1000;
const CLIENTS: usize = 32;
const THROUGHPUT_ASKS: usize = 4000;
const PENDING_ASKS: usize = 10_000;
const STATUS_ASKS: usize = 50;

fn survey(i: usize) -> Value {
    let options: Vec<Value> = ["a", "b", "c", "d", "e"]
        .iter()
        .map(|k| json!({"key": k, "label": format!("Option {k}"), "description": "One sentence about it."}))
        .collect();
    json!({"survey": {
        "title": format!("Load {i}"),
        "entry": "q1",
        "questions": {
            "q1": {"prompt": "Which direction?", "options": options, "next": "q2"},
            "q2": {"prompt": "Anything else?"}
        }
    }})
}

/// create → submit; returns the ask id.
async fn create_and_submit(client: &Client, i: usize) -> String {
    let created = client
        .post("/api/asks", &json!({"kind": "survey", "args": survey(i)}))
        .await;
    let id = created["ask_id"].as_str().unwrap().to_string();
    client.post(
        &format!("/api/asks/{id}/submit"),
        &json!({"answers": [{"id": "q1", "selected": ["b"]}, {"id": "q2", "selected": [], "custom": "no"}]}),
    )
    .await;
    id
}

fn percentile(sorted: &[Duration], p: f64) -> f64 {
    let idx = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[idx].as_secs_f64() * 1000.0
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    // `cargo test --benches` runs benches once in test mode; this one is too slow for that.
    if std::env::args().any(|a| a == "--test") || std::env::args().all(|a| a != "--bench") {
        println!("load: skipped (run with `cargo bench -p askd --bench load`)");
        return;
    }
    let home = tempfile::tempdir().unwrap();
    let daemon = Daemon::spawn(home.path(), Duration::from_secs(30));
    let client = daemon.client(64);

    // 1. Round trips, one client: create → submit → result.
    for i in 0..50 {
        create_and_submit(&client, 1_000_000 + i).await; // warm-up
    }
    let mut times = Vec::with_capacity(ROUND_TRIPS);
    for i in 0..ROUND_TRIPS {
        let t = Instant::now();
        let id = create_and_submit(&client, i).await;
        let result = client
            .get(&format!("/api/asks/{id}/wait?timeout_s=5"))
            .await;
        assert_eq!(result["outcome"], "answered");
        times.push(t.elapsed());
    }
    times.sort();

    // 2. Throughput, 32 clients: create + submit.
    let t = Instant::now();
    let mut tasks = Vec::new();
    for c in 0..CLIENTS {
        let client = client.clone();
        tasks.push(tokio::spawn(async move {
            for j in 0..THROUGHPUT_ASKS / CLIENTS {
                create_and_submit(&client, 2_000_000 + c * 100_000 + j).await;
            }
        }));
    }
    for task in tasks {
        task.await.unwrap();
    }
    let throughput_secs = t.elapsed().as_secs_f64();

    // 3. The alignment status (what every question result in auto mode reads) of a session
    // with 50 answered asks, and of the default session holding every ask above.
    let session = client
        .post("/api/sessions", &json!({"client": "bench"}))
        .await["session"]["id"]
        .as_str()
        .unwrap()
        .to_string();
    for i in 0..STATUS_ASKS {
        let created = client
            .post(
                "/api/asks",
                &json!({"kind": "survey", "session": session, "args": survey(5_000_000 + i)}),
            )
            .await;
        let id = created["ask_id"].as_str().unwrap();
        client
            .post(
                &format!("/api/asks/{id}/submit"),
                &json!({"answers": [{"id": "q1", "selected": ["b"]}, {"id": "q2", "selected": [], "custom": "no"}]}),
            )
            .await;
    }
    let mut status_times = Vec::new();
    for _ in 0..100 {
        let t = Instant::now();
        let st = client
            .get(&format!("/api/sessions/{session}/alignment"))
            .await;
        status_times.push(t.elapsed());
        assert_eq!(st["rounds"], STATUS_ASKS);
    }
    status_times.sort();
    let mut big_times = Vec::new();
    for _ in 0..5 {
        let t = Instant::now();
        client.get("/api/sessions/http/alignment").await;
        big_times.push(t.elapsed());
    }
    big_times.sort();

    // 4. RSS with 10,000 pending asks.
    let rss_before = daemon.proc_kib("VmRSS:");
    let mut tasks = Vec::new();
    for c in 0..CLIENTS {
        let client = client.clone();
        tasks.push(tokio::spawn(async move {
            let mut i = c;
            while i < PENDING_ASKS {
                client
                    .post(
                        "/api/asks",
                        &json!({"kind": "survey", "args": survey(3_000_000 + i)}),
                    )
                    .await;
                i += CLIENTS;
            }
        }));
    }
    for task in tasks {
        task.await.unwrap();
    }
    let health = client.get("/api/health").await;
    assert_eq!(health["pending"], PENDING_ASKS);
    // Reading the inbox of every pending ask once, as a UI would.
    let list = client.get("/api/asks?state=pending").await;
    assert_eq!(list["asks"].as_array().map(Vec::len), Some(PENDING_ASKS));
    let rss = daemon.proc_kib("VmRSS:");
    let hwm = daemon.proc_kib("VmHWM:");

    let report = json!({
        "round_trip_ms": {
            "clients": 1,
            "n": ROUND_TRIPS,
            "p50": percentile(&times, 0.50),
            "p99": percentile(&times, 0.99),
            "max": percentile(&times, 1.0),
        },
        "throughput": {
            "clients": CLIENTS,
            "asks": THROUGHPUT_ASKS,
            "seconds": throughput_secs,
            "settled_per_s": THROUGHPUT_ASKS as f64 / throughput_secs,
        },
        "alignment_status_ms": {
            "session_asks": STATUS_ASKS,
            "p50": percentile(&status_times, 0.50),
            "p99": percentile(&status_times, 0.99),
            "default_session_asks": ROUND_TRIPS + 50 + THROUGHPUT_ASKS,
            "default_session_p50": percentile(&big_times, 0.50),
        },
        "memory": {
            "pending": PENDING_ASKS,
            "rss_mib_before": rss_before as f64 / 1024.0,
            "rss_mib": rss as f64 / 1024.0,
            "peak_rss_mib": hwm as f64 / 1024.0,
        },
        "bars": {"p99_ms": 10, "settled_per_s": 500, "rss_mib": 150},
    });
    println!("{}", serde_json::to_string_pretty(&report).unwrap());
}

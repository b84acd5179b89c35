//! Memory after load (issue 32, "flat on every axis, lean at rest"): does the daemon give
//! back what a burst took? Run with `cargo bench --locked -p askd --bench rest`.
//!
//! Reports, as one JSON document, the daemon's resident memory (`VmRSS`):
//! - idle, after start;
//! - after each of three cycles of 2,000 event streams (`GET /api/events`) opened at once,
//!   held a second and closed, then 3 s of quiet;
//! - after a cycle of big reads (40 listings of 2,000 pending asks), then 3 s of quiet;
//! - the peak (`VmHWM`).
//!
//! The bar: back within 20% of idle after load. `ASKD_BENCH_ENV` runs the daemon with more
//! environment, to compare two settings in the same run: `"MIMALLOC_ARENA_EAGER_COMMIT=2
//! MIMALLOC_PURGE_DELAY=1000"` are mimalloc's own defaults, which `askd serve` replaces
//! unless its environment names them.

use std::time::Duration;

use serde_json::{Value, json};

mod common;
use common::Daemon;

const STREAMS: usize = 2000;
const CYCLES: usize = 3;
const PENDING: usize = 2000;
const READS: usize = 40;

fn mib(kib: u64) -> f64 {
    (kib as f64 / 1024.0 * 10.0).round() / 10.0
}

/// Opens `n` event streams at once, holds them a second, closes them.
async fn stream_cycle(d: &Daemon, n: usize) {
    let http = reqwest::Client::builder()
        .pool_max_idle_per_host(0)
        .build()
        .unwrap();
    let open = (0..n).map(|_| {
        let http = http.clone();
        let (url, token) = (d.url.clone(), d.token.clone());
        async move {
            http.get(format!("{url}/api/events"))
                .bearer_auth(token)
                .send()
                .await
                .ok()
        }
    });
    let streams = futures_util::future::join_all(open).await;
    let opened = streams
        .iter()
        .filter(|s| s.as_ref().is_some_and(|r| r.status().is_success()))
        .count();
    assert!(opened >= n * 9 / 10, "only {opened} of {n} streams opened");
    tokio::time::sleep(Duration::from_secs(1)).await;
    drop(streams);
}

fn main() {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let home = tempfile::tempdir().unwrap();
        let extra = std::env::var("ASKD_BENCH_ENV").unwrap_or_default();
        let env: Vec<(&str, &str)> = extra
            .split_whitespace()
            .filter_map(|kv| kv.split_once('='))
            .collect();
        let d = Daemon::spawn_with(home.path(), &env, Duration::from_secs(20));
        tokio::time::sleep(Duration::from_secs(2)).await;
        let idle = d.proc_kib("VmRSS:");
        let quiet = Duration::from_secs(3);
        let mut after_streams = Vec::new();
        let mut open_fds = Vec::new();
        let fds = || std::fs::read_dir(format!("/proc/{}/fd", d.pid())).map_or(0, |r| r.count());
        for _ in 0..CYCLES {
            stream_cycle(&d, STREAMS).await;
            tokio::time::sleep(quiet).await;
            after_streams.push(mib(d.proc_kib("VmRSS:")));
            open_fds.push(fds());
        }
        let client = d.client(8);
        for i in 0..PENDING {
            client
                .post(
                    "/api/asks",
                    &json!({"kind": "questions", "args": {"questions": [{
                        "id": "q", "question": format!("Pending question {i}?"),
                        "options": [{"label": "Yes"}, {"label": "No"}]}]}}),
                )
                .await;
        }
        tokio::time::sleep(quiet).await;
        let with_pending = d.proc_kib("VmRSS:");
        for _ in 0..READS {
            let list: Value = client
                .get(&format!("/api/asks?state=pending&limit={PENDING}"))
                .await;
            assert_eq!(list["asks"].as_array().map(Vec::len), Some(PENDING));
        }
        tokio::time::sleep(quiet).await;
        let after_reads = d.proc_kib("VmRSS:");
        let worst = after_streams.iter().copied().fold(0.0, f64::max);
        println!(
            "{}",
            serde_json::to_string_pretty(&json!({
                "env": extra,
                "idle_rss_mib": mib(idle),
                "after_streams_rss_mib": after_streams,
                "open_fds_after_streams": open_fds,
                "after_streams_vs_idle": (worst / mib(idle) * 100.0).round() / 100.0,
                "with_pending_rss_mib": mib(with_pending),
                "after_reads_rss_mib": mib(after_reads),
                "after_reads_vs_with_pending": (mib(after_reads) / mib(with_pending) * 100.0).round() / 100.0,
                "peak_rss_mib": mib(d.proc_kib("VmHWM:")),
                "bar": "after load within 1.2x of before",
            }))
            .unwrap()
        );
    });
}

//! Team-mode benchmark (issue 17): several `askd serve` daemons on one PostgreSQL database.
//!
//! Run: `cargo bench --locked -p askd --bench team` (the bench-profile binary, as `load`).
//! The database: `ASKD_BENCH_DATABASE_URL` when set (a database the daemons use as it is —
//! give it an empty one), else a fresh database on `askd_store::pg_test::cluster()`
//! (`ASKD_TEST_DATABASE_URL` when set, else a throwaway `initdb` cluster on loopback,
//! removed after).
//!
//! Target: **wake p99 < 50 ms on loopback** (settle answered on one daemon → the waiter on
//! another daemon answered).
//!
//! Three figures, printed as a table and one JSON document on stdout (progress on stderr):
//! - `throughput`: `ASKD_TEAM_CLIENTS` (default 32) concurrent HTTP clients spread over the
//!   `ASKD_TEAM_DAEMONS` (default 3) daemons, each looping create (`POST /api/asks`, on its
//!   daemon) → submit (`POST /api/asks/{id}/submit`, on the next daemon) for
//!   `ASKD_TEAM_SECS` seconds (default 20): settled asks per second, and the p50/p99 of one
//!   create+submit pair. Checked after: the store holds exactly that many settled asks and
//!   none pending.
//! - `wake`: `ASKD_TEAM_WAKES` (default 300) rounds, one at a time: an ask created on daemon
//!   A, a waiter on daemon B (`GET /api/asks/{id}/wait`, the call `askd mcp`'s
//!   `await_answer` makes), a 100 ms pause so the wait is registered, the submit on daemon C
//!   (rotating so each round crosses daemons: settle on A, wait on B); the latency is the
//!   submit's response → the waiter's response (`from_sent` also: the submit sent → the
//!   waiter's response). p50 / p99 / max.
//! - `wake_loaded`: the same, `ASKD_TEAM_LOADED_WAKES` rounds (default 100; 0 skips it)
//!   while the throughput clients run.
//! - `scale_out` (issue 32; `ASKD_TEAM_BASELINES=0` skips it): the same throughput run, in
//!   the same process, against one daemon on SQLite and one daemon on a fresh PostgreSQL
//!   database, with the ratios the issue sets bars on (N daemons ≥ 0.5× SQLite, ≥ 1.5× one
//!   PostgreSQL daemon).
//!
//! `ASKD_BENCH_ASKD` runs another `askd` binary (a build of an earlier commit) with this
//! bench, for before/after figures from one machine.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

mod common;
use common::{Client, Daemon};

const WARM_PAIRS: usize = 30;
const WARM_WAKES: usize = 6;

fn env_usize(name: &str, default: usize) -> usize {
    match std::env::var(name) {
        Ok(v) if !v.trim().is_empty() => v
            .trim()
            .replace('_', "")
            .parse()
            .unwrap_or_else(|_| panic!("{name} must be a number, got {v:?}")),
        _ => default,
    }
}

fn args(i: usize) -> Value {
    json!({"questions": [{"id": "db", "question": format!("Which database, {i}?"), "options": [
        {"label": "SQLite"}, {"label": "PostgreSQL"}
    ]}]})
}

async fn create(client: &Client, i: usize) -> String {
    let created = client
        .post("/api/asks", &json!({"kind": "questions", "args": args(i)}))
        .await;
    created["ask_id"].as_str().unwrap().to_string()
}

async fn submit(client: &Client, id: &str) {
    let r = client
        .post(
            &format!("/api/asks/{id}/submit"),
            &json!({"answers": [{"id": "db", "selected": ["PostgreSQL"]}]}),
        )
        .await;
    assert_eq!(r["outcome"], "answered", "{r}");
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

fn percentile(sorted: &[Duration], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let idx = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    ms(sorted[idx])
}

fn summary(mut v: Vec<Duration>) -> Value {
    v.sort();
    json!({
        "n": v.len(),
        "p50": percentile(&v, 0.50),
        "p99": percentile(&v, 0.99),
        "max": percentile(&v, 1.0),
    })
}

/// `clients` loops of create (on daemon `c % n`) → submit (on the next daemon) until `stop`;
/// returns every pair's time.
async fn load(clients: Vec<Arc<Client>>, n_clients: usize, stop: Arc<AtomicBool>) -> Vec<Duration> {
    let mut tasks = Vec::new();
    for c in 0..n_clients {
        let on = clients[c % clients.len()].clone();
        let next = clients[(c + 1) % clients.len()].clone();
        let stop = stop.clone();
        tasks.push(tokio::spawn(async move {
            let mut times = Vec::new();
            let mut j = 0;
            while !stop.load(Ordering::Relaxed) {
                let t = Instant::now();
                let id = create(&on, 10_000_000 + c * 1_000_000 + j).await;
                submit(&next, &id).await;
                times.push(t.elapsed());
                j += 1;
            }
            times
        }));
    }
    let mut all = Vec::new();
    for t in tasks {
        all.extend(t.await.unwrap());
    }
    all
}

/// One throughput run of `n_clients` for `secs` over `clients`: settled asks per second and
/// the pair times. Checks every ask made was settled.
async fn throughput(
    clients: &[Arc<Client>],
    n_clients: usize,
    secs: usize,
) -> (f64, Vec<Duration>) {
    let stop = Arc::new(AtomicBool::new(false));
    let t = Instant::now();
    let run = tokio::spawn(load(clients.to_vec(), n_clients, stop.clone()));
    tokio::time::sleep(Duration::from_secs(secs as u64)).await;
    stop.store(true, Ordering::Relaxed);
    let pairs = run.await.unwrap();
    let elapsed = t.elapsed().as_secs_f64();
    let after = clients[0].get("/api/health").await;
    assert_eq!(after["pending"], 0, "every ask made was settled: {after}");
    (pairs.len() as f64 / elapsed, pairs)
}

/// The throughput of one daemon on its own store (`env`: none for SQLite), warmed up first.
async fn one_daemon(env: &[(&str, &str)], n_clients: usize, secs: usize) -> (f64, Vec<Duration>) {
    let home = tempfile::tempdir().unwrap();
    let daemon = Daemon::spawn_with(home.path(), env, Duration::from_secs(60));
    let clients = vec![daemon.client(n_clients)];
    for r in 0..WARM_PAIRS {
        let id = create(&clients[0], r).await;
        submit(&clients[0], &id).await;
    }
    throughput(&clients, n_clients, secs).await
}

/// `rounds` wake samples (submit answered → waiter answered, submit sent → waiter answered).
async fn wakes(
    clients: &[Arc<Client>],
    rounds: usize,
    base: usize,
) -> (Vec<Duration>, Vec<Duration>) {
    let n = clients.len();
    let mut answered = Vec::with_capacity(rounds);
    let mut sent = Vec::with_capacity(rounds);
    for r in 0..rounds {
        let settle_on = &clients[r % n];
        let wait_on = clients[(r + 1) % n].clone();
        let id = create(&clients[(r + 2) % n], base + r).await;
        let path = format!("/api/asks/{id}/wait?timeout_s=30");
        let waiter = tokio::spawn(async move {
            let result = wait_on.get(&path).await;
            (result, Instant::now())
        });
        tokio::time::sleep(Duration::from_millis(100)).await;
        let t_sent = Instant::now();
        submit(settle_on, &id).await;
        let t_answered = Instant::now();
        let (result, woke) = waiter.await.unwrap();
        assert_eq!(result["outcome"], "answered", "{result}");
        answered.push(woke.saturating_duration_since(t_answered));
        sent.push(woke.saturating_duration_since(t_sent));
    }
    (answered, sent)
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    // `cargo test --benches` runs benches once in test mode; this one needs a database.
    if std::env::args().any(|a| a == "--test") || std::env::args().all(|a| a != "--bench") {
        println!("team: skipped (run with `cargo bench -p askd --bench team`)");
        return;
    }
    let n_daemons = env_usize("ASKD_TEAM_DAEMONS", 3).max(2);
    let n_clients = env_usize("ASKD_TEAM_CLIENTS", 32).max(1);
    let secs = env_usize("ASKD_TEAM_SECS", 20).max(1);
    let n_wakes = env_usize("ASKD_TEAM_WAKES", 300).max(1);
    let n_loaded = env_usize("ASKD_TEAM_LOADED_WAKES", 100);
    let baselines = env_usize("ASKD_TEAM_BASELINES", 1) > 0;
    eprintln!("team: askd is {}", common::binary());

    let _db;
    let given = std::env::var("ASKD_BENCH_DATABASE_URL")
        .ok()
        .filter(|u| !u.is_empty());
    let url = match &given {
        Some(u) => u.clone(),
        None => {
            eprintln!("team: starting PostgreSQL (pg_test)…");
            let db = askd_store::pg_test::cluster().database().await;
            let u = db.url.clone();
            _db = db;
            u
        }
    };

    // 0. The baselines, before the team's database holds anything: one daemon on SQLite,
    // one on a fresh PostgreSQL database (the cluster's; skipped on a given database).
    let scale = if baselines && given.is_none() {
        eprintln!("team: baseline, one daemon on SQLite, {n_clients} clients for {secs} s…");
        let (sqlite, _) = one_daemon(&[("ASKD_NOTIFY_DESKTOP", "false")], n_clients, secs).await;
        let solo = askd_store::pg_test::cluster().database().await;
        eprintln!("team: baseline, one daemon on PostgreSQL…");
        let (pg, _) = one_daemon(
            &[
                ("ASKD_DATABASE_URL", solo.url.as_str()),
                ("ASKD_NOTIFY_DESKTOP", "false"),
            ],
            n_clients,
            secs,
        )
        .await;
        Some((sqlite, pg))
    } else {
        None
    };
    let homes: Vec<tempfile::TempDir> = (0..n_daemons)
        .map(|_| tempfile::tempdir().unwrap())
        .collect();
    let env = [
        ("ASKD_DATABASE_URL", url.as_str()),
        ("ASKD_NOTIFY_DESKTOP", "false"),
    ];
    let daemons: Vec<Daemon> = homes
        .iter()
        .map(|h| Daemon::spawn_with(h.path(), &env, Duration::from_secs(60)))
        .collect();
    let clients: Vec<Arc<Client>> = daemons.iter().map(|d| d.client(n_clients)).collect();
    eprintln!("team: {n_daemons} daemons up on one database");

    // Warm-up: every daemon's pool and every pair.
    for r in 0..WARM_PAIRS {
        let id = create(&clients[r % n_daemons], r).await;
        submit(&clients[(r + 1) % n_daemons], &id).await;
    }
    let (_, _) = wakes(&clients, WARM_WAKES, 100).await;

    // 1. Throughput.
    eprintln!("team: throughput, {n_clients} clients for {secs} s…");
    let t = Instant::now();
    let (per_s, pairs) = throughput(&clients, n_clients, secs).await;
    let elapsed = t.elapsed().as_secs_f64();
    let settled = pairs.len();
    let listed = clients[2]
        .get("/api/asks?state=settled&limit=10000000")
        .await;
    let stored = listed["asks"].as_array().map_or(0, Vec::len);
    // The warm-up's 30 pairs and 6 wakes, and every pair counted.
    assert_eq!(
        stored,
        WARM_PAIRS + WARM_WAKES + settled,
        "settled asks in the store"
    );

    // 2. Wake latency, idle.
    eprintln!("team: wake latency, {n_wakes} rounds…");
    let (idle_answered, idle_sent) = wakes(&clients, n_wakes, 1_000_000).await;

    // 3. Wake latency under the throughput load.
    let loaded = if n_loaded > 0 {
        eprintln!("team: wake latency under load, {n_loaded} rounds…");
        let stop = Arc::new(AtomicBool::new(false));
        let run = tokio::spawn(load(clients.clone(), n_clients, stop.clone()));
        tokio::time::sleep(Duration::from_millis(500)).await;
        let w = wakes(&clients, n_loaded, 2_000_000).await;
        stop.store(true, Ordering::Relaxed);
        let pairs = run.await.unwrap();
        Some((w, pairs.len()))
    } else {
        None
    };

    let report = json!({
        "daemons": n_daemons,
        "throughput": {
            "clients": n_clients,
            "seconds": elapsed,
            "settled": settled,
            "settled_per_s": per_s,
            "pair_ms": summary(pairs),
            "stored_settled_listed": stored,
        },
        "wake_ms": {
            "from_answered": summary(idle_answered),
            "from_sent": summary(idle_sent),
        },
        "wake_loaded_ms": loaded.as_ref().map(|((a, s), n)| json!({
            "from_answered": summary(a.clone()),
            "from_sent": summary(s.clone()),
            "settled_meanwhile": n,
        })),
        "scale_out": scale.map(|(sqlite, pg)| json!({
            "sqlite_1_per_s": sqlite,
            "pg_1_per_s": pg,
            "pg_n_per_s": per_s,
            "n_over_sqlite": per_s / sqlite,
            "n_over_pg_1": per_s / pg,
        })),
        "target": {"wake_p99_ms": 50, "n_over_sqlite": 0.5, "n_over_pg_1": 1.5},
    });

    let row = |name: &str, v: &Value| {
        println!(
            "{name:<34} {:>6} {:>9.2} {:>9.2} {:>9.2}",
            v["n"],
            v["p50"].as_f64().unwrap_or(f64::NAN),
            v["p99"].as_f64().unwrap_or(f64::NAN),
            v["max"].as_f64().unwrap_or(f64::NAN)
        )
    };
    println!(
        "team bench: {n_daemons} daemons, one PostgreSQL, {n_clients} clients over {elapsed:.1} s"
    );
    println!(
        "settled asks/s: {:.0} ({settled} settled)",
        report["throughput"]["settled_per_s"].as_f64().unwrap()
    );
    println!(
        "{:<34} {:>6} {:>9} {:>9} {:>9}",
        "ms", "n", "p50", "p99", "max"
    );
    row(
        "create+submit pair (under load)",
        &report["throughput"]["pair_ms"],
    );
    row(
        "wake: submit answered -> waiter",
        &report["wake_ms"]["from_answered"],
    );
    row(
        "wake: submit sent -> waiter",
        &report["wake_ms"]["from_sent"],
    );
    if loaded.is_some() {
        row(
            "wake under load: answered ->",
            &report["wake_loaded_ms"]["from_answered"],
        );
        row(
            "wake under load: sent ->",
            &report["wake_loaded_ms"]["from_sent"],
        );
    }
    if let Some((sqlite, pg)) = scale {
        println!(
            "scale-out: 1 daemon on SQLite {sqlite:.0}/s, 1 on PostgreSQL {pg:.0}/s, {n_daemons} on PostgreSQL {per_s:.0}/s = {:.2}x SQLite (target 0.5), {:.2}x one PostgreSQL daemon (target 1.5)",
            per_s / sqlite,
            per_s / pg
        );
    }
    let p99 = report["wake_ms"]["from_answered"]["p99"].as_f64().unwrap();
    println!(
        "target wake p99 < 50 ms: {}",
        if p99 < 50.0 { "met" } else { "MISSED" }
    );
    println!("{}", serde_json::to_string_pretty(&report).unwrap());
}

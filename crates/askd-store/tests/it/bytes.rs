//! Bytes per settled ask: 1,000 tiny questions asks, created, answered and delivered the way
//! the daemon does it (a one-question payload; a result with `answers`, `skipped`, the
//! handling text and the surface; a record that carries the spec and the answers), then the
//! checkpointed database file divided by 1,000. Run with `--nocapture` to see the figure
//! and what each table and index holds.

use askd_store::{AskStore, SessionStore, Upkeep};
use askd_store::{NewAsk, NewSession, Settlement, SqliteStore};
use serde_json::json;

const ASKS: usize = 1000;
/// The daemon's handling text is about this long (`askd_core::questions::HANDLING`).
const HANDLING: &str = "Open your next turn by mirroring the user's choices back in one line — what they picked, over what, and why where they wrote it — before acting on these answers. Trace every decision you make to the answer that settled it. Never re-ask anything these questions already answered; ask only what is new. Custom text is the user's own words and their stated intent: honour what they wrote, and if you must depart from it, say so and why.";

/// Writes 1,000 tiny settled asks into a fresh database; returns (file bytes, per table).
async fn tiny_asks() -> (u64, Vec<(String, i64)>) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("askd.db");
    let store = SqliteStore::open(&path).await.unwrap();
    let session = store
        .open_session(NewSession {
            id: Some("019ad1f2-0000-7000-8000-000000000001".into()),
            client: "claude-code".into(),
            workspace: Some("/home/user/project".into()),
        })
        .await
        .unwrap()
        .id;
    for i in 0..ASKS {
        let id = format!("019ad1f2-{i:04x}-7000-8000-{i:012x}");
        let payload = json!({"questions": [{"id": "q1", "question": format!("Ship build {i}?"),
            "options": [{"label": "Yes"}, {"label": "No"}], "multi_select": false}]});
        let created = store
            .create_ask(NewAsk {
                id: id.clone(),
                session_id: session.clone(),
                kind: "questions".into(),
                title: Some(format!("Ship build {i}?")),
                payload_key: format!("{:064x}", i as u128 * 0x9e37_79b9_7f4a_7c15),
                payload: payload.clone(),
                fingerprint: None,
                replaces: None,
                seed_banked: vec![],
                seed_autosave: None,
                return_undelivered: false,
                expiry: None,
                approvals: None,
            })
            .await
            .unwrap();
        let at = askd_store::now();
        let result = json!({"outcome": "answered", "ask_id": id,
            "answers": [{"id": "q1", "selected": ["Yes"]}], "skipped": [], "handling": HANDLING,
            "surface": "page"});
        let record = json!({"v": 1, "askId": id, "kind": "questions", "session": session,
            "workspace": created.ask.workspace, "client": created.ask.client, "outcome": "answered",
            "createdAt": created.ask.created_at, "settledAt": at, "spec": payload,
            "answers": result["answers"], "skipped": result["skipped"], "surface": "page"});
        store
            .settle(
                &id,
                &Settlement {
                    outcome: "answered".into(),
                    settled_at: at,
                    result,
                    record,
                    expect_banked: None,
                    submission: None,
                    delivered: false,
                },
            )
            .await
            .unwrap();
        store.mark_delivered(&id).await.unwrap();
    }
    store.checkpoint().await.unwrap();
    store.close().await;
    let bytes = std::fs::metadata(&path).unwrap().len();
    // What each table and index holds (dbstat, when the SQLite build has it).
    use sqlx::Connection;
    let mut conn = sqlx::SqliteConnection::connect(&format!("sqlite://{}", path.display()))
        .await
        .unwrap();
    let per: Vec<(String, i64)> =
        sqlx::query_as("SELECT name, SUM(pgsize) FROM dbstat GROUP BY name ORDER BY 2 DESC")
            .fetch_all(&mut conn)
            .await
            .unwrap_or_default();
    conn.close().await.unwrap();
    (bytes, per)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tiny_settled_ask_costs_few_bytes() {
    let (bytes, per) = tiny_asks().await;
    let per_ask = bytes / ASKS as u64;
    println!("{ASKS} tiny settled asks: {bytes} bytes, {per_ask} bytes per ask");
    for (name, size) in &per {
        println!(
            "  {name:32} {size:>9} bytes  {:>6} per ask",
            size / ASKS as i64
        );
    }
    // Migration 5's schema stored 2,850 bytes per such ask; 0006 stores 2,260 (with seven
    // more indexes: the lists' 430 bytes).
    assert!(per_ask < 2_500, "{per_ask} bytes per ask");
}

/// A database of `n` settled asks and 100 pending ones in 100 sessions, written with SQL
/// (fast), then opened by the store: how long the pending list (100 rows) and the pending
/// count take. `cargo test --locked -p askd-store --test it bytes::pending_list -- --ignored --nocapture`
async fn pending_list_at(n: usize) -> (f64, f64) {
    use sqlx::Connection;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("askd.db");
    SqliteStore::open(&path).await.unwrap().close().await;
    let mut conn = sqlx::SqliteConnection::connect(&format!("sqlite://{}", path.display()))
        .await
        .unwrap();
    let sql = format!(
        "BEGIN;
         WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 99)
         INSERT INTO sessions (id, client, workspace, created_at)
             SELECT printf('s%03d', i), 'c', NULL, '2026-11-01T00:00:00.000Z' FROM n;
         WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < {last})
         INSERT INTO asks (id, session_id, kind, title, state, outcome, payload, payload_key,
                           created_at, settled_at, result)
             SELECT printf('a%08d', i), printf('s%03d', i % 100),
                    CASE i % 4 WHEN 0 THEN 'questions' WHEN 1 THEN 'survey' WHEN 2 THEN 'review' ELSE 'drift' END,
                    'title', CASE WHEN i % ({n} / 100) = 0 THEN 'pending' ELSE 'settled' END,
                    CASE WHEN i % ({n} / 100) = 0 THEN NULL ELSE 'answered' END,
                    '{{\"questions\":[]}}', printf('k%d', i),
                    strftime('%Y-%m-%dT%H:%M:%fZ', '2026-11-01', '+' || i || ' seconds'),
                    NULL, NULL
             FROM n;
         COMMIT;",
        last = n - 1
    );
    sqlx::raw_sql(sqlx::AssertSqlSafe(sql))
        .execute(&mut conn)
        .await
        .unwrap();
    conn.close().await.unwrap();
    let store = SqliteStore::open(&path).await.unwrap();
    let filter = askd_store::AskFilter {
        state: Some(askd_store::AskState::Pending),
        limit: Some(100),
        ..Default::default()
    };
    let reps = 20u32;
    let _ = store.asks(&filter).await.unwrap();
    let t = std::time::Instant::now();
    for _ in 0..reps {
        assert_eq!(store.asks(&filter).await.unwrap().len(), 100);
    }
    let list = t.elapsed().as_secs_f64() * 1000.0 / f64::from(reps);
    let t = std::time::Instant::now();
    for _ in 0..reps {
        store
            .count_asks(Some(askd_store::AskState::Pending))
            .await
            .unwrap();
    }
    let count = t.elapsed().as_secs_f64() * 1000.0 / f64::from(reps);
    store.close().await;
    (list, count)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "a measurement: run by hand with --nocapture"]
async fn pending_list() {
    for n in [1_000, 10_000, 50_000] {
        let (list, count) = pending_list_at(n).await;
        println!("{n:>6} asks: pending list (100 rows) {list:.2} ms, pending count {count:.2} ms");
    }
}

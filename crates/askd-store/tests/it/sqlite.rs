//! The SQLite backend against the store conformance suite, plus what is SQLite's own:
//! the pragmas, migrations and durability across reopening the file.

use std::sync::Arc;

use askd_store::{AlignmentStore, AskStore, EventStore, SessionStore, Upkeep};
use askd_store::{NewSession, SqliteStore, Store};

/// A fresh store in its own temporary directory; the directory lives as long as the guard.
async fn fresh() -> (Arc<dyn Store>, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let store = SqliteStore::open(&dir.path().join("askd.db"))
        .await
        .unwrap();
    (Arc::new(store), dir)
}

askd_store::conformance_tests!(fresh());

#[tokio::test]
async fn pragmas_are_wal_full_sync_and_foreign_keys() {
    let dir = tempfile::tempdir().unwrap();
    let store = SqliteStore::open(&dir.path().join("askd.db"))
        .await
        .unwrap();
    let p = store.pragmas().await.unwrap();
    assert_eq!(p.journal_mode, "wal");
    assert_eq!(p.synchronous, 2, "FULL");
    assert!(p.foreign_keys);
    assert_eq!(
        p.user_version,
        SqliteStore::SCHEMA_VERSION,
        "migrations ran"
    );
}

#[tokio::test]
async fn everything_survives_closing_and_reopening_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("askd.db");
    let ask_id;
    {
        let store = SqliteStore::open(&path).await.unwrap();
        let s = store
            .open_session(NewSession {
                id: None,
                client: "c".into(),
                workspace: None,
            })
            .await
            .unwrap();
        let c = store
            .create_ask(askd_store::NewAsk {
                id: "a1".into(),
                session_id: s.id,
                kind: "survey".into(),
                title: None,
                payload: serde_json::json!({"entry": "q1"}),
                payload_key: "k".into(),
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
        ask_id = c.ask.id;
        store
            .bank(
                &ask_id,
                &[askd_store::NewBanked {
                    question_id: "q1".into(),
                    entry: serde_json::json!({"id": "q1", "selected": ["a"]}),
                }],
            )
            .await
            .unwrap();
        store
            .autosave(&ask_id, &serde_json::json!({"v": 1, "position": "q2"}))
            .await
            .unwrap();
        // No checkpoint, no close: as if the process died here.
    }
    let store = SqliteStore::open(&path).await.unwrap();
    let a = store.ask(&ask_id).await.unwrap().unwrap();
    assert_eq!(a.banked.len(), 1);
    assert_eq!(a.autosave_revision, 1);
    assert_eq!(
        store.pragmas().await.unwrap().user_version,
        SqliteStore::SCHEMA_VERSION,
        "no re-migration"
    );
    store.checkpoint().await.unwrap();
    store.close().await;
}

/// A database written before migration 3 gets its events indexed by session: the session's
/// stream reads the same after the upgrade.
#[tokio::test]
async fn migration_3_backfills_the_session_of_existing_events() {
    use sqlx::Connection;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("askd.db");
    {
        let mut conn = crate::common::sqlite_at_migration(&path, 2).await;
        sqlx::raw_sql(
            "PRAGMA user_version = 2;
             INSERT INTO sessions (id, client, workspace, created_at) VALUES ('s1', 'c', NULL, '2026-11-01T00:00:00Z');
             INSERT INTO events (kind, ask_id, payload, created_at) VALUES
               ('alignment.checked', NULL, '{\"session\":\"s1\",\"via\":\"tool\"}', '2026-11-01T00:00:01Z'),
               ('ask.autosaved', 'a1', '{\"ask_id\":\"a1\"}', '2026-11-01T00:00:02Z'),
               ('alignment.checked', NULL, '{\"session\":\"s2\"}', '2026-11-01T00:00:03Z');",
        )
        .execute(&mut conn)
        .await
        .unwrap();
        conn.close().await.unwrap();
    }
    let store = SqliteStore::open(&path).await.unwrap();
    assert_eq!(
        store.pragmas().await.unwrap().user_version,
        SqliteStore::SCHEMA_VERSION
    );
    let events = store.session_events("s1").await.unwrap();
    assert_eq!(events.len(), 1);
    assert_eq!(events[0].payload["via"], "tool");
    assert_eq!(store.session_events("s2").await.unwrap().len(), 1);
    store
        .append_session_event(
            "s1",
            "alignment.checked",
            serde_json::json!({"via": "prompt"}),
        )
        .await
        .unwrap();
    assert_eq!(store.session_events("s1").await.unwrap().len(), 2);
    store.close().await;
}

/// Issue 16: a database written by the schema before checkpoints (migrations 1–5) opens,
/// gains the checkpoint tables and keeps its events; a session's stream reads the same.
#[tokio::test]
async fn migration_7_adds_checkpoints_to_a_database_of_the_previous_schema() {
    use sqlx::Connection;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("askd.db");
    {
        let mut conn = crate::common::sqlite_at_migration(&path, 5).await;
        sqlx::raw_sql(
            "PRAGMA user_version = 5;
             INSERT INTO sessions (id, client, workspace, created_at) VALUES ('s1', 'c', NULL, '2026-11-01T00:00:00Z');
             INSERT INTO events (kind, ask_id, payload, created_at, session_id) VALUES
               ('session.started', NULL, '{\"session\":\"s1\",\"origin\":\"new\"}', '2026-11-01T00:00:01Z', 's1'),
               ('alignment.checked', NULL, '{\"session\":\"s1\",\"via\":\"tool\"}', '2026-11-01T00:00:02Z', 's1');",
        )
        .execute(&mut conn)
        .await
        .unwrap();
        conn.close().await.unwrap();
    }
    let store = SqliteStore::open(&path).await.unwrap();
    assert_eq!(
        store.pragmas().await.unwrap().user_version,
        SqliteStore::SCHEMA_VERSION
    );
    assert_eq!(store.session_events("s1").await.unwrap().len(), 2);
    assert_eq!(store.session_log("s1").await.unwrap().len(), 2);
    assert_eq!(store.alignment_checkpoint("s1").await.unwrap(), None);
    let cp = askd_store::AlignmentCheckpoint {
        last_seq: 2,
        state: serde_json::json!({}),
        decisions: 0,
    };
    assert!(
        store
            .save_alignment_checkpoint("s1", &cp, &[])
            .await
            .unwrap()
    );
    assert_eq!(store.alignment_checkpoint("s1").await.unwrap(), Some(cp));
    store.close().await;
}

/// Issue 16: the alignment reads use their indexes (the plans the comments in `sqlite.rs`
/// name), so their cost follows what they return, not the session's history.
#[tokio::test]
async fn alignment_reads_use_their_indexes() {
    let dir = tempfile::tempdir().unwrap();
    let store = SqliteStore::open(&dir.path().join("askd.db"))
        .await
        .unwrap();
    async fn plan_of(store: &SqliteStore, sql: &str) -> String {
        store.explain_plan(sql).await.unwrap().join(" | ")
    }
    let plan = |sql: &'static str| plan_of(&store, sql);
    let p = plan(
        "SELECT seq, kind, payload, created_at FROM events
         WHERE session_id = ?1 AND seq > ?2 ORDER BY seq",
    )
    .await;
    assert!(p.contains("USING INDEX events_by_session"), "{p}");
    assert!(!p.contains("TEMP B-TREE"), "{p}");
    let p = plan(
        "SELECT seq, kind, payload, created_at FROM events INDEXED BY events_session_log
         WHERE session_id = ?1 AND kind NOT LIKE 'ask.%' ORDER BY seq",
    )
    .await;
    assert!(p.contains("USING INDEX events_session_log"), "{p}");
    let p = plan(
        "SELECT decision FROM alignment_decisions INDEXED BY alignment_decisions_by_key
         WHERE session_id = ?1 AND key = ?2 AND idx < ?3 AND ask_id <> ?4
         ORDER BY idx LIMIT 1",
    )
    .await;
    assert!(p.contains("USING INDEX alignment_decisions_by_key"), "{p}");
    assert!(!p.contains("TEMP B-TREE"), "{p}");
    let p = plan(
        "SELECT decision FROM alignment_decisions
         WHERE session_id = ?1 AND idx >= ?2 AND idx < ?3 ORDER BY idx",
    )
    .await;
    assert!(
        p.contains("PRIMARY KEY (session_id=? AND idx>? AND idx<?)"),
        "{p}"
    );
    assert!(!p.contains("TEMP B-TREE"), "{p}");
    let p =
        plan("SELECT last_seq, decisions, state FROM alignment_checkpoints WHERE session_id = ?1")
            .await;
    assert!(p.contains("USING INDEX"), "{p}");
    store.close().await;
}

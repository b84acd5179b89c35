//! The SQLite backend against the store conformance suite, plus what is SQLite's own:
//! the pragmas, migrations and durability across reopening the file.

use std::sync::Arc;

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
        let url = format!("sqlite://{}?mode=rwc", path.display());
        let mut conn = sqlx::SqliteConnection::connect(&url).await.unwrap();
        for sql in [
            include_str!("../../migrations/sqlite/0001_init.sql"),
            include_str!("../../migrations/sqlite/0002_drafts.sql"),
        ] {
            sqlx::raw_sql(sqlx::AssertSqlSafe(sql))
                .execute(&mut conn)
                .await
                .unwrap();
        }
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

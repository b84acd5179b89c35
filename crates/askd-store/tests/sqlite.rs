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
    assert_eq!(p.user_version, 2, "migrations ran");
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
        2,
        "no re-migration"
    );
    store.checkpoint().await.unwrap();
    store.close().await;
}

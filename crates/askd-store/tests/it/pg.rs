//! The PostgreSQL backend against the store conformance suite (the suite SQLite runs, unchanged),
//! plus what is PostgreSQL's own: migrations at open, two stores (two daemons) on one database,
//! seqs in commit order under concurrent writers, and the notification of every event.

use std::collections::BTreeSet;
use std::sync::Arc;
use std::time::Duration;

use askd_store::pg_test::{TestDatabase, cluster};
use askd_store::{AskStore, EventStore, LockStore, SessionStore, Upkeep};
use askd_store::{NewAsk, NewSession, PgStore, Settlement, Store, StoreError};
use serde_json::json;

/// A fresh store on its own database; the database lives as long as the guard.
async fn fresh() -> (Arc<dyn Store>, TestDatabase) {
    let db = cluster().database().await;
    let store = PgStore::open(&db.url).await.unwrap();
    (Arc::new(store), db)
}

askd_store::conformance_tests!(fresh());

fn ask(id: &str, session: &str) -> NewAsk {
    NewAsk {
        id: id.into(),
        session_id: session.into(),
        kind: "questions".into(),
        title: None,
        payload: json!({"q": id}),
        payload_key: id.into(),
        fingerprint: None,
        replaces: None,
        seed_banked: vec![],
        seed_autosave: None,
        return_undelivered: false,
        expiry: None,
        approvals: None,
    }
}

/// A new session (client "c", no workspace) of `store`.
async fn session(store: &dyn SessionStore) -> askd_store::Session {
    store
        .open_session(NewSession {
            id: None,
            client: "c".into(),
            workspace: None,
        })
        .await
        .unwrap()
}

fn settlement(outcome: &str) -> Settlement {
    Settlement {
        outcome: outcome.into(),
        settled_at: askd_store::now(),
        result: json!({"outcome": outcome}),
        record: json!({"outcome": outcome}),
        expect_banked: None,
        submission: None,
        // As the daemon decides: an agent-ended or superseded ask is delivered as it settles.
        delivered: matches!(outcome, "superseded" | "withdrawn" | "aborted"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn migrations_run_once_however_many_open_together() {
    let db = cluster().database().await;
    let opens: Vec<_> = (0..4)
        .map(|_| {
            let url = db.url.clone();
            tokio::spawn(async move { PgStore::open(&url).await })
        })
        .collect();
    for o in opens {
        let store = o.await.unwrap().unwrap();
        assert_eq!(
            store.schema_version().await.unwrap(),
            PgStore::SCHEMA_VERSION
        );
        store.close().await;
    }
}

/// Two stores on one database are two daemons: a settle through one is seen by the other,
/// and racing settles through both settle once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_stores_on_one_database_settle_once() {
    let db = cluster().database().await;
    let a = Arc::new(PgStore::open(&db.url).await.unwrap());
    let b = Arc::new(PgStore::open(&db.url).await.unwrap());
    let s = session(a.as_ref()).await;
    for round in 0..10 {
        let id = format!("race-{round}");
        a.create_ask(ask(&id, &s.id)).await.unwrap();
        let (sa, sb) = (settlement("answered"), settlement("cancelled"));
        let (ra, rb) = tokio::join!(a.settle(&id, &sa), b.settle(&id, &sb));
        let wins = [&ra, &rb].iter().filter(|r| r.is_ok()).count();
        assert_eq!(wins, 1, "round {round}: {ra:?} {rb:?}");
        for r in [&ra, &rb] {
            if let Err(e) = r {
                assert_eq!(e, &StoreError::NotPending);
            }
        }
        let seen = b.ask(&id).await.unwrap().unwrap();
        let winner = if ra.is_ok() { "answered" } else { "cancelled" };
        assert_eq!(seen.outcome.as_deref(), Some(winner));
    }
}

/// Writers on several connections at once: every reader that pages by seq sees each
/// committed event exactly once, in seq order, and the notifications carry every seq.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_writers_commit_in_seq_order_and_notify_each_event() {
    let db = cluster().database().await;
    let a = Arc::new(PgStore::open(&db.url).await.unwrap());
    let b = Arc::new(PgStore::open(&db.url).await.unwrap());
    let mut listener = a.listen().await.unwrap();
    let s = session(a.as_ref()).await;
    // A reader paging by seq while the writers run.
    let reader = {
        let a = a.clone();
        tokio::spawn(async move {
            let mut after = 0;
            let mut seen = Vec::new();
            let deadline = tokio::time::Instant::now() + Duration::from_secs(60);
            while seen.len() < 160 && tokio::time::Instant::now() < deadline {
                for e in a.events_after(after, 1000).await.unwrap() {
                    after = e.seq;
                    seen.push(e.seq);
                }
            }
            seen
        })
    };
    let mut writers = Vec::new();
    for w in 0..8 {
        let store: Arc<dyn Store> = if w % 2 == 0 { a.clone() } else { b.clone() };
        let session = s.id.clone();
        writers.push(tokio::spawn(async move {
            for i in 0..10 {
                let id = format!("w{w}-{i}");
                store.create_ask(ask(&id, &session)).await.unwrap();
                store.settle(&id, &settlement("answered")).await.unwrap();
            }
        }));
    }
    for w in writers {
        w.await.unwrap();
    }
    let seen = reader.await.unwrap();
    let all: Vec<i64> = a
        .events_after(0, 1000)
        .await
        .unwrap()
        .iter()
        .map(|e| e.seq)
        .collect();
    assert_eq!(all.len(), 160);
    assert_eq!(seen, all, "the paging reader skipped or repeated none");
    let mut notified = BTreeSet::new();
    while notified.len() < all.len() {
        let seq = tokio::time::timeout(Duration::from_secs(10), listener.next())
            .await
            .expect("every event is notified")
            .unwrap();
        notified.insert(seq);
    }
    assert_eq!(notified.into_iter().collect::<Vec<_>>(), all);
}

/// A failed write notifies nothing and leaves no event (its notification goes with its
/// rollback).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rolled_back_write_notifies_nothing() {
    let db = cluster().database().await;
    let store = PgStore::open(&db.url).await.unwrap();
    let mut listener = store.listen().await.unwrap();
    let s = session(&store).await;
    store.create_ask(ask("a1", &s.id)).await.unwrap();
    let first = listener.next().await.unwrap();
    let err = store
        .bank(
            "a1",
            &[
                askd_store::NewBanked {
                    question_id: "q1".into(),
                    entry: json!({}),
                },
                askd_store::NewBanked {
                    question_id: "q1".into(),
                    entry: json!({}),
                },
            ],
        )
        .await
        .unwrap_err();
    assert!(matches!(err, StoreError::Conflict(_)), "{err:?}");
    store.settle("a1", &settlement("answered")).await.unwrap();
    let next = listener.next().await.unwrap();
    let events = store.events_after(first, 10).await.unwrap();
    assert_eq!(events.len(), 1, "{events:?}");
    assert_eq!(events[0].kind, "ask.settled");
    assert_eq!(next, events[0].seq);
}

/// `hold` is one lock for every store on the database (two daemons), released on drop; a
/// wait given up (the timeout below drops it, as a request whose client left) does not
/// leave the lock held.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_held_lock_is_held_for_every_store_on_the_database() {
    let db = cluster().database().await;
    let a = PgStore::open(&db.url).await.unwrap();
    let b = PgStore::open(&db.url).await.unwrap();
    let held = a.hold("session:s1").await.unwrap();
    assert!(held.is_some());
    let wait = Duration::from_millis(300);
    assert!(
        tokio::time::timeout(wait, b.hold("session:s1"))
            .await
            .is_err(),
        "b waits while a holds it"
    );
    let other = tokio::time::timeout(wait, b.hold("session:s2")).await;
    assert!(other.is_ok(), "another key is free");
    drop(other);
    drop(held);
    let got = tokio::time::timeout(Duration::from_secs(5), b.hold("session:s1"))
        .await
        .expect("released when a's guard drops")
        .unwrap();
    assert!(got.is_some());
}

/// A held lock knows when it is gone: alive while its connection is, not after the database
/// restarted (the session and its advisory locks ended) — and the lock is then free for
/// another store, though the first guard still exists.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_held_lock_is_not_alive_after_a_database_restart() {
    let cluster = askd_store::pg_test::private().expect("this test restarts its own PostgreSQL");
    let db = cluster.database().await;
    let a = PgStore::open(&db.url).await.unwrap();
    let b = PgStore::open(&db.url).await.unwrap();
    let mut held = a.hold("notifier").await.unwrap().expect("PostgreSQL holds");
    assert!(held.alive().await, "alive while its connection is");
    assert!(held.alive().await, "and again (a probe leaves it held)");
    let wait = Duration::from_millis(300);
    assert!(
        tokio::time::timeout(wait, b.hold("notifier"))
            .await
            .is_err(),
        "b waits while a holds it"
    );
    let cluster = tokio::task::spawn_blocking(move || {
        cluster.restart();
        cluster
    })
    .await
    .unwrap();
    assert!(!held.alive().await, "gone with the restart");
    assert!(!held.alive().await, "and stays gone");
    let mut got = None;
    for _ in 0..100 {
        if let Ok(Ok(h)) = tokio::time::timeout(wait, b.hold("notifier")).await {
            got = h;
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let mut got = got.expect("the lock is free for b while a's guard still exists");
    assert!(got.alive().await);
    drop(held);
    drop(cluster);
}

/// A failure the server reports reads as PostgreSQL's message with its SQLSTATE, not with
/// the server's C source line ("… at line 334") that sqlx's own text ends with.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_database_error_names_the_sqlstate_not_the_servers_source_line() {
    let db = cluster().database().await;
    let store = PgStore::open(&db.url).await.unwrap();
    let s = session(&store).await;
    db.sql("ALTER TABLE asks ADD CONSTRAINT refuse_one CHECK (id <> 'refused')")
        .await;
    let e = store.create_ask(ask("refused", &s.id)).await.unwrap_err();
    let StoreError::Backend(text) = &e else {
        panic!("a backend error, got {e:?}");
    };
    assert!(
        text.starts_with(
            "PostgreSQL: new row for relation \"asks\" violates check constraint \"refuse_one\""
        ),
        "{text}"
    );
    assert!(text.contains("(SQLSTATE 23514)"), "{text}");
    assert!(!text.contains(" at line "), "{text}");
    // The store goes on: the next write commits.
    store.create_ask(ask("accepted", &s.id)).await.unwrap();
}

/// A create's lookups of an identical ask run under the write lock on every create: each
/// uses its partial index even before PostgreSQL has analysed the table (it walked
/// `asks_by_kind` in `created_at` order and filtered every settled ask of the kind: 2.4 ms
/// at 2,400 asks under load, growing with the store).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_identical_ask_lookups_use_their_partial_indexes_before_any_analyze() {
    let db = cluster().database().await;
    let store = PgStore::open(&db.url).await.unwrap();
    db.sql("ALTER TABLE asks SET (autovacuum_enabled = false)")
        .await;
    let s = session(&store).await;
    for i in 0..400 {
        let id = format!("a{i}");
        store.create_ask(ask(&id, &s.id)).await.unwrap();
        store.settle(&id, &settlement("answered")).await.unwrap();
    }
    // What autovacuum does after 1,000 inserts: the table's size is known, its columns'
    // statistics are not (no ANALYZE yet).
    db.sql("VACUUM asks").await;
    let analysed = db
        .sql("SELECT coalesce(last_analyze::text, last_autoanalyze::text, '') FROM pg_stat_user_tables WHERE relname = 'asks'")
        .await;
    assert_eq!(analysed, [""], "the table has not been analysed");
    let plans = store.reattach_plans().await.unwrap();
    assert!(plans[0].contains("asks_undelivered"), "{}", plans[0]);
    assert!(plans[1].contains("asks_reattach"), "{}", plans[1]);
}

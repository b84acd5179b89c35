//! The store conformance suite: what every backend must do, written once.
//!
//! A backend's tests invoke [`conformance_tests!`] with an async factory that returns a
//! fresh, empty store; the macro expands to one `#[tokio::test]` per check below.

use std::sync::Arc;

use serde_json::{Value, json};

use crate::model::*;
use crate::{Store, StoreError};

/// Expands to one test per conformance check. `$factory` is an async expression returning
/// `(Arc<dyn Store>, guard)`: a fresh, empty store, and whatever must live as long as it
/// (a temporary directory, a database schema to drop).
#[macro_export]
macro_rules! conformance_tests {
    ($factory:expr) => {
        $crate::conformance_tests!(@each $factory;
            sessions_open_and_continue,
            create_then_read_back_everything,
            identical_pending_payload_reattaches,
            reattach_is_per_session_and_kind_and_ends_at_settle,
            undelivered_result_is_returned_to_an_identical_repeat,
            withdrawn_ask_is_not_returned_to_an_identical_repeat,
            create_in_unknown_session_is_refused,
            bank_is_durable_ordered_and_locked,
            bank_and_autosave_need_a_pending_ask,
            autosave_last_writer_wins_with_revisions,
            settle_once_first_claimant_wins,
            claims_set_replace_clear_and_end_at_settle,
            concurrent_settles_have_exactly_one_winner,
            settle_writes_the_record_in_the_same_transaction,
            supersede_and_seed_in_one_transaction,
            supersede_ignores_other_sessions_and_settled_asks,
            awaited_flag,
            deadlines_are_kept_listed_soonest_first_and_moved,
            a_snooze_is_kept_listed_and_outlives_the_settle,
            an_escalation_clears_the_deadline_once,
            votes_are_kept_and_the_deciding_one_settles_with_them,
            concurrent_votes_each_count_and_settle_once,
            list_and_count_filters,
            events_replay_in_commit_order,
            records_filter_and_order,
            unknown_ids_are_not_found,
            ask_payloads_read_many_at_once,
            concurrent_writes_fail_alone,
            settle_refuses_when_banks_changed,
            drafts_save_and_read_back,
            drafts_active_pointer_is_per_session,
            drafts_compare_and_set,
            launch_draft_links_the_ask_in_one_transaction,
            launch_draft_failure_changes_nothing,
            follow_events_commit_with_create_and_settle,
            follow_events_are_not_written_when_the_settle_fails,
            session_events_are_the_sessions_own_in_order,
            settings_save_replace_and_remove,
            session_events_after_and_the_log_without_asks,
            alignment_checkpoints_keep_the_newest_with_their_decisions,
            cursors_only_move_forward,
        );
    };
    (@each $factory:expr; $($name:ident),* $(,)?) => {
        $(
            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn $name() {
                let (store, _guard) = $factory.await;
                $crate::conformance::$name(store).await;
            }
        )*
    };
}

fn session(client: &str) -> NewSession {
    NewSession {
        id: None,
        client: client.into(),
        workspace: Some("/work/project".into()),
    }
}

fn new_ask(id: &str, session_id: &str, payload: Value) -> NewAsk {
    NewAsk {
        id: id.into(),
        session_id: session_id.into(),
        kind: "survey".into(),
        title: payload["title"].as_str().map(str::to_string),
        payload_key: payload.to_string(),
        fingerprint: Some(format!("fp-{}", payload["entry"].as_str().unwrap_or(""))),
        payload,
        replaces: None,
        seed_banked: Vec::new(),
        seed_autosave: None,
        return_undelivered: false,
        expiry: None,
        approvals: None,
    }
}

fn settlement(outcome: &str) -> Settlement {
    Settlement {
        outcome: outcome.into(),
        settled_at: crate::now(),
        result: json!({"outcome": outcome, "answers": [{"id": "q1"}], "path": ["q1"]}),
        record: json!({"v": 1, "outcome": outcome}),
        expect_banked: None,
        submission: None,
        // As the daemon decides: an agent-ended or superseded ask is delivered as it settles.
        delivered: matches!(outcome, "superseded" | "withdrawn" | "aborted"),
    }
}

fn banked(q: &str, key: &str) -> NewBanked {
    NewBanked {
        question_id: q.into(),
        entry: json!({"id": q, "selected": [key]}),
    }
}

pub async fn sessions_open_and_continue(store: Arc<dyn Store>) {
    let s = store.open_session(session("claude-code")).await.unwrap();
    assert_eq!(s.client, "claude-code");
    assert_eq!(s.workspace.as_deref(), Some("/work/project"));
    // An explicit id continues the same session, whatever label the second call carries.
    let again = store
        .open_session(NewSession {
            id: Some(s.id.clone()),
            client: "other".into(),
            workspace: None,
        })
        .await
        .unwrap();
    assert_eq!(again, s);
    let named = store
        .open_session(NewSession {
            id: Some("explicit-1".into()),
            client: "codex".into(),
            workspace: None,
        })
        .await
        .unwrap();
    assert_eq!(named.id, "explicit-1");
    assert_eq!(store.session("explicit-1").await.unwrap(), Some(named));
    assert_eq!(store.sessions().await.unwrap().len(), 2);
    assert_eq!(store.session("nope").await.unwrap(), None);
}

pub async fn create_then_read_back_everything(store: Arc<dyn Store>) {
    let s = store.open_session(session("dsh-mcp-client")).await.unwrap();
    let payload = json!({"title": "T", "entry": "q1", "questions": {"q1": {"prompt": "P"}}});
    let c = store
        .create_ask(new_ask("a1", &s.id, payload.clone()))
        .await
        .unwrap();
    assert!(c.created);
    assert_eq!(c.events.len(), 1);
    assert_eq!(c.events[0].kind, "ask.created");
    assert_eq!(c.events[0].payload["ask_id"], "a1");
    assert_eq!(c.events[0].payload["title"], "T");
    let a = store.ask("a1").await.unwrap().unwrap();
    assert_eq!(a, c.ask);
    assert_eq!(a.state, AskState::Pending);
    assert_eq!(a.payload, payload);
    assert_eq!(a.kind, "survey");
    assert_eq!(a.title.as_deref(), Some("T"));
    assert_eq!(a.client, "dsh-mcp-client");
    assert_eq!(a.workspace.as_deref(), Some("/work/project"));
    assert!(a.awaited);
    assert!(a.banked.is_empty());
    assert_eq!(a.autosave, None);
    assert_eq!(a.autosave_revision, 0);
    assert_eq!(a.outcome, None);
    assert_eq!(a.result, None);
    // Payload member order is kept verbatim.
    let keys: Vec<&String> = a.payload.as_object().unwrap().keys().collect();
    assert_eq!(keys, ["title", "entry", "questions"]);
}

pub async fn identical_pending_payload_reattaches(store: Arc<dyn Store>) {
    let s = store.open_session(session("c")).await.unwrap();
    let payload = json!({"entry": "q1"});
    let first = store
        .create_ask(new_ask("a1", &s.id, payload.clone()))
        .await
        .unwrap();
    let second = store
        .create_ask(new_ask("a2", &s.id, payload))
        .await
        .unwrap();
    assert!(!second.created);
    assert!(second.events.is_empty());
    assert_eq!(second.ask.id, first.ask.id);
    assert_eq!(store.ask("a2").await.unwrap(), None);
    assert_eq!(store.count_asks(None).await.unwrap(), 1);
}

pub async fn reattach_is_per_session_and_kind_and_ends_at_settle(store: Arc<dyn Store>) {
    let s1 = store.open_session(session("c")).await.unwrap();
    let s2 = store.open_session(session("c")).await.unwrap();
    let payload = json!({"entry": "q1"});
    store
        .create_ask(new_ask("a1", &s1.id, payload.clone()))
        .await
        .unwrap();
    // Another session: a new ask.
    let other = store
        .create_ask(new_ask("a2", &s2.id, payload.clone()))
        .await
        .unwrap();
    assert!(other.created);
    // Another kind: a new ask.
    let mut q = new_ask("a3", &s1.id, payload.clone());
    q.kind = "questions".into();
    assert!(store.create_ask(q).await.unwrap().created);
    // Once settled and its result delivered, the same payload creates a new ask.
    store.settle("a1", &settlement("answered")).await.unwrap();
    assert!(store.mark_delivered("a1").await.unwrap());
    let again = store
        .create_ask(new_ask("a4", &s1.id, payload))
        .await
        .unwrap();
    assert!(again.created);
    assert_eq!(again.ask.id, "a4");
}

/// clients.md §2.5: a result settled while no call waited is returned to an identical
/// repeat call in the same session (no new ask) until a call has got it.
pub async fn undelivered_result_is_returned_to_an_identical_repeat(store: Arc<dyn Store>) {
    let new_ask = |id: &str, session: &str, payload: Value| NewAsk {
        return_undelivered: true,
        expiry: None,
        approvals: None,
        ..new_ask(id, session, payload)
    };
    let s = store.open_session(session("c")).await.unwrap();
    let other = store.open_session(session("c")).await.unwrap();
    let payload = json!({"entry": "q1"});
    store
        .create_ask(new_ask("a1", &s.id, payload.clone()))
        .await
        .unwrap();
    store.settle("a1", &settlement("answered")).await.unwrap();
    assert_eq!(store.ask("a1").await.unwrap().unwrap().delivered_at, None);
    // The repeat gets the settled ask back, with its result; nothing is written.
    let before = store.last_event().await.unwrap();
    let repeat = store
        .create_ask(new_ask("a2", &s.id, payload.clone()))
        .await
        .unwrap();
    assert!(!repeat.created);
    assert_eq!(repeat.ask.id, "a1");
    assert_eq!(repeat.ask.state, AskState::Settled);
    assert_eq!(repeat.ask.result, Some(settlement("answered").result));
    assert_eq!(store.last_event().await.unwrap(), before);
    // Not across sessions.
    assert!(
        store
            .create_ask(new_ask("b1", &other.id, payload.clone()))
            .await
            .unwrap()
            .created
    );
    // A plain create (not an agent call) does not take it.
    let plain = store
        .create_ask(self::new_ask("p1", &s.id, payload.clone()))
        .await
        .unwrap();
    assert!(plain.created);
    store.settle("p1", &settlement("withdrawn")).await.unwrap();
    // Delivered once: a later repeat is a new ask.
    assert!(store.mark_delivered("a1").await.unwrap());
    assert!(!store.mark_delivered("a1").await.unwrap());
    assert!(
        store
            .ask("a1")
            .await
            .unwrap()
            .unwrap()
            .delivered_at
            .is_some()
    );
    let fresh = store
        .create_ask(new_ask("a3", &s.id, payload.clone()))
        .await
        .unwrap();
    assert!(fresh.created);
    // A pending ask is not "delivered"; an agent-ended outcome is delivered as it settles.
    assert!(!store.mark_delivered("a3").await.unwrap());
    store.settle("a3", &settlement("withdrawn")).await.unwrap();
    assert!(
        store
            .ask("a3")
            .await
            .unwrap()
            .unwrap()
            .delivered_at
            .is_some()
    );
    assert!(
        store
            .create_ask(new_ask("a4", &s.id, payload))
            .await
            .unwrap()
            .created
    );
    assert!(
        !store.mark_delivered("nope").await.unwrap(),
        "an unknown id changes nothing"
    );
}

/// `withdraw_ask`: an ask settled `aborted` and delivered as it settles (its call returned
/// the result itself) is not handed to an identical repeat — the repeat is a new ask. The
/// store follows the caller's decision, not the outcome's name: the same outcome settled
/// undelivered is returned.
pub async fn withdrawn_ask_is_not_returned_to_an_identical_repeat(store: Arc<dyn Store>) {
    let new_ask = |id: &str, session: &str, payload: Value| NewAsk {
        return_undelivered: true,
        expiry: None,
        approvals: None,
        ..new_ask(id, session, payload)
    };
    let s = store.open_session(session("c")).await.unwrap();
    let payload = json!({"entry": "w"});
    store
        .create_ask(new_ask("w1", &s.id, payload.clone()))
        .await
        .unwrap();
    let withdrawn = Settlement {
        delivered: true,
        ..settlement("aborted")
    };
    store.settle("w1", &withdrawn).await.unwrap();
    let w1 = store.ask("w1").await.unwrap().unwrap();
    assert_eq!(
        w1.delivered_at.as_deref(),
        Some(withdrawn.settled_at.as_str())
    );
    let repeat = store
        .create_ask(new_ask("w2", &s.id, payload))
        .await
        .unwrap();
    assert!(repeat.created, "a withdrawn ask is not returned");
    assert_eq!(repeat.ask.id, "w2");
    assert_eq!(repeat.ask.state, AskState::Pending);
    // Undelivered by decision, whatever the outcome: returned.
    let other = json!({"entry": "u"});
    store
        .create_ask(new_ask("u1", &s.id, other.clone()))
        .await
        .unwrap();
    let undelivered = Settlement {
        delivered: false,
        ..settlement("aborted")
    };
    store.settle("u1", &undelivered).await.unwrap();
    let again = store.create_ask(new_ask("u2", &s.id, other)).await.unwrap();
    assert!(!again.created);
    assert_eq!(again.ask.id, "u1");
}

pub async fn create_in_unknown_session_is_refused(store: Arc<dyn Store>) {
    let err = store
        .create_ask(new_ask("a1", "no-such-session", json!({})))
        .await
        .unwrap_err();
    assert_eq!(err, StoreError::UnknownSession("no-such-session".into()));
    assert_eq!(store.count_asks(None).await.unwrap(), 0);
    assert_eq!(store.last_event().await.unwrap(), 0);
}

pub async fn bank_is_durable_ordered_and_locked(store: Arc<dyn Store>) {
    let s = store.open_session(session("c")).await.unwrap();
    store
        .create_ask(new_ask("a1", &s.id, json!({"entry": "q1"})))
        .await
        .unwrap();
    let b1 = store.bank("a1", &[banked("q2", "b")]).await.unwrap();
    assert_eq!(b1.total, 1);
    let b2 = store
        .bank("a1", &[banked("q1", "a"), banked("q3", "c")])
        .await
        .unwrap();
    assert_eq!(b2.total, 3);
    assert_eq!(b2.event.kind, "ask.banked");
    let listed = b2.event.payload["banked"].as_array().unwrap();
    assert_eq!(listed.len(), 3);
    assert!(listed[0]["bankedAt"].is_string());
    let a = store.ask("a1").await.unwrap().unwrap();
    let order: Vec<&str> = a.banked.iter().map(|b| b.question_id.as_str()).collect();
    assert_eq!(order, ["q2", "q1", "q3"], "bank order is kept");
    assert_eq!(a.banked[1].entry, json!({"id": "q1", "selected": ["a"]}));
    // A question banked twice is a conflict, and the failed bank changes nothing.
    let err = store
        .bank("a1", &[banked("q4", "a"), banked("q1", "b")])
        .await
        .unwrap_err();
    assert!(matches!(err, StoreError::Conflict(_)), "{err:?}");
    let a = store.ask("a1").await.unwrap().unwrap();
    assert_eq!(a.banked.len(), 3);
    assert_eq!(a.banked[1].entry["selected"], json!(["a"]));
}

pub async fn bank_and_autosave_need_a_pending_ask(store: Arc<dyn Store>) {
    let s = store.open_session(session("c")).await.unwrap();
    store
        .create_ask(new_ask("a1", &s.id, json!({"entry": "q1"})))
        .await
        .unwrap();
    store.settle("a1", &settlement("cancelled")).await.unwrap();
    assert_eq!(
        store.bank("a1", &[banked("q1", "a")]).await.unwrap_err(),
        StoreError::NotPending
    );
    assert_eq!(
        store.autosave("a1", &json!({"v": 1})).await.unwrap_err(),
        StoreError::NotPending
    );
    assert_eq!(
        store.bank("zz", &[banked("q1", "a")]).await.unwrap_err(),
        StoreError::NotFound
    );
    assert_eq!(
        store.autosave("zz", &json!({})).await.unwrap_err(),
        StoreError::NotFound
    );
}

pub async fn autosave_last_writer_wins_with_revisions(store: Arc<dyn Store>) {
    let s = store.open_session(session("c")).await.unwrap();
    store
        .create_ask(new_ask("a1", &s.id, json!({"entry": "q1"})))
        .await
        .unwrap();
    let r1 = store
        .autosave("a1", &json!({"v": 1, "position": "q1"}))
        .await
        .unwrap();
    let r2 = store
        .autosave("a1", &json!({"v": 1, "position": "q2"}))
        .await
        .unwrap();
    assert_eq!((r1.revision, r2.revision), (1, 2));
    assert_eq!(r2.event.kind, "ask.autosaved");
    assert_eq!(r2.event.payload["revision"], 2);
    assert_eq!(r2.event.payload["savedAt"], json!(r2.saved_at));
    let a = store.ask("a1").await.unwrap().unwrap();
    assert_eq!(a.autosave, Some(json!({"v": 1, "position": "q2"})));
    assert_eq!(a.autosave_revision, 2);
    assert_eq!(a.autosave_saved_at.as_deref(), Some(r2.saved_at.as_str()));
}

pub async fn settle_once_first_claimant_wins(store: Arc<dyn Store>) {
    let s = store.open_session(session("c")).await.unwrap();
    store
        .create_ask(new_ask("a1", &s.id, json!({"entry": "q1"})))
        .await
        .unwrap();
    let ev = store.settle("a1", &settlement("answered")).await.unwrap();
    assert_eq!(ev.kind, "ask.settled");
    assert_eq!(ev.payload["outcome"], "answered");
    assert_eq!(ev.payload["path"], json!(["q1"]));
    assert_eq!(
        store
            .settle("a1", &settlement("cancelled"))
            .await
            .unwrap_err(),
        StoreError::NotPending
    );
    let a = store.ask("a1").await.unwrap().unwrap();
    assert_eq!(a.state, AskState::Settled);
    assert_eq!(a.outcome.as_deref(), Some("answered"));
    assert_eq!(a.result, Some(settlement("answered").result));
    assert!(a.settled_at.is_some());
    assert!(!a.awaited);
    assert_eq!(
        store
            .settle("nope", &settlement("answered"))
            .await
            .unwrap_err(),
        StoreError::NotFound
    );
}

pub async fn claims_set_replace_clear_and_end_at_settle(store: Arc<dyn Store>) {
    let s = store.open_session(session("c")).await.unwrap();
    store
        .create_ask(new_ask("c1", &s.id, json!({"entry": "q1"})))
        .await
        .unwrap();
    assert_eq!(store.ask("c1").await.unwrap().unwrap().claim, None);
    let ana = json!({"id": "m-ana", "name": "Ana", "at": "2026-12-01T10:00:00Z"});
    let ev = store.claim("c1", Some(&ana)).await.unwrap();
    assert_eq!(ev.kind, "ask.claimed");
    assert_eq!(ev.payload["ask_id"], "c1");
    assert_eq!(ev.payload["claim"], ana);
    assert_eq!(
        store.ask("c1").await.unwrap().unwrap().claim,
        Some(ana.clone())
    );
    let listed = store.asks(&AskFilter::default()).await.unwrap();
    assert_eq!(listed[0].claim, Some(ana.clone()));
    // The last claim wins; releasing clears it.
    let bo = json!({"id": "m-bo", "name": "Bo", "at": "2026-12-01T10:01:00Z"});
    store.claim("c1", Some(&bo)).await.unwrap();
    assert_eq!(
        store.ask("c1").await.unwrap().unwrap().claim,
        Some(bo.clone())
    );
    let ev = store.claim("c1", None).await.unwrap();
    assert_eq!(ev.payload["claim"], Value::Null);
    assert_eq!(store.ask("c1").await.unwrap().unwrap().claim, None);
    // A settled ask keeps its claim as it was and takes no new one.
    store.claim("c1", Some(&bo)).await.unwrap();
    store.settle("c1", &settlement("answered")).await.unwrap();
    assert_eq!(
        store.claim("c1", Some(&ana)).await.unwrap_err(),
        StoreError::NotPending
    );
    assert_eq!(store.ask("c1").await.unwrap().unwrap().claim, Some(bo));
    assert_eq!(
        store.claim("nope", Some(&ana)).await.unwrap_err(),
        StoreError::NotFound
    );
    let kinds: Vec<String> = store
        .events_after(0, 100)
        .await
        .unwrap()
        .into_iter()
        .map(|e| e.kind)
        .collect();
    assert_eq!(kinds.iter().filter(|k| *k == "ask.claimed").count(), 4);
}

pub async fn concurrent_settles_have_exactly_one_winner(store: Arc<dyn Store>) {
    let s = store.open_session(session("c")).await.unwrap();
    for round in 0..5 {
        let id = format!("race-{round}");
        store
            .create_ask(new_ask(&id, &s.id, json!({"entry": "q1", "round": round})))
            .await
            .unwrap();
        let mut tasks = Vec::new();
        for i in 0..8 {
            let store = store.clone();
            let id = id.clone();
            tasks.push(tokio::spawn(async move {
                let outcome = if i % 2 == 0 { "answered" } else { "cancelled" };
                store.settle(&id, &settlement(outcome)).await
            }));
        }
        let mut wins = 0;
        for t in tasks {
            match t.await.unwrap() {
                Ok(_) => wins += 1,
                Err(e) => assert_eq!(e, StoreError::NotPending),
            }
        }
        assert_eq!(wins, 1, "round {round}");
        let records = store
            .records(&RecordFilter {
                session_id: Some(s.id.clone()),
                ..RecordFilter::default()
            })
            .await
            .unwrap();
        assert_eq!(
            records.iter().filter(|r| r.ask_id == id).count(),
            1,
            "exactly one record"
        );
    }
}

pub async fn settle_writes_the_record_in_the_same_transaction(store: Arc<dyn Store>) {
    let s = store.open_session(session("c")).await.unwrap();
    let c = store
        .create_ask(new_ask("a1", &s.id, json!({"entry": "q1"})))
        .await
        .unwrap();
    store.settle("a1", &settlement("answered")).await.unwrap();
    let records = store.records(&RecordFilter::default()).await.unwrap();
    assert_eq!(records.len(), 1);
    let r = &records[0];
    assert_eq!(r.ask_id, "a1");
    assert_eq!(r.session_id, s.id);
    assert_eq!(r.kind, "survey");
    assert_eq!(r.outcome, "answered");
    assert_eq!(r.created_at, c.ask.created_at);
    let a = store.ask("a1").await.unwrap().unwrap();
    assert_eq!(Some(&r.settled_at), a.settled_at.as_ref());
    assert_eq!(r.record, json!({"v": 1, "outcome": "answered"}));
}

pub async fn supersede_and_seed_in_one_transaction(store: Arc<dyn Store>) {
    let s = store.open_session(session("c")).await.unwrap();
    store
        .create_ask(new_ask("old", &s.id, json!({"entry": "q1", "v": 1})))
        .await
        .unwrap();
    store.bank("old", &[banked("q1", "a")]).await.unwrap();
    let mut n = new_ask("new", &s.id, json!({"entry": "q1", "v": 2}));
    n.replaces = Some(Supersede {
        ask_id: "old".into(),
        settlement: settlement("superseded"),
    });
    n.seed_banked = vec![banked("q1", "a")];
    n.seed_autosave = Some(json!({"v": 1, "position": "q2"}));
    let c = store.create_ask(n).await.unwrap();
    assert!(c.created);
    let kinds: Vec<&str> = c.events.iter().map(|e| e.kind.as_str()).collect();
    assert_eq!(kinds, ["ask.settled", "ask.created"]);
    let old = store.ask("old").await.unwrap().unwrap();
    assert_eq!(old.outcome.as_deref(), Some("superseded"));
    assert_eq!(
        old.banked.len(),
        1,
        "the superseded ask keeps its banked answers"
    );
    let new = store.ask("new").await.unwrap().unwrap();
    assert_eq!(new.banked.len(), 1);
    assert_eq!(new.autosave, Some(json!({"v": 1, "position": "q2"})));
    assert_eq!(new.autosave_revision, 1);
}

pub async fn supersede_ignores_other_sessions_and_settled_asks(store: Arc<dyn Store>) {
    let s1 = store.open_session(session("c")).await.unwrap();
    let s2 = store.open_session(session("c")).await.unwrap();
    store
        .create_ask(new_ask("theirs", &s2.id, json!({"entry": "x"})))
        .await
        .unwrap();
    store
        .create_ask(new_ask("done", &s1.id, json!({"entry": "y"})))
        .await
        .unwrap();
    store
        .settle("done", &settlement("cancelled"))
        .await
        .unwrap();
    for (i, target) in ["theirs", "done"].iter().enumerate() {
        let mut n = new_ask(&format!("n{i}"), &s1.id, json!({"entry": "z", "i": i}));
        n.replaces = Some(Supersede {
            ask_id: target.to_string(),
            settlement: settlement("superseded"),
        });
        let c = store.create_ask(n).await.unwrap();
        assert!(c.created);
        assert_eq!(c.events.len(), 1);
    }
    let theirs = store.ask("theirs").await.unwrap().unwrap();
    assert_eq!(theirs.state, AskState::Pending);
    let done = store.ask("done").await.unwrap().unwrap();
    assert_eq!(done.outcome.as_deref(), Some("cancelled"));
}

pub async fn awaited_flag(store: Arc<dyn Store>) {
    let s = store.open_session(session("c")).await.unwrap();
    store
        .create_ask(new_ask("a1", &s.id, json!({"entry": "q1"})))
        .await
        .unwrap();
    store.set_awaited("a1", false).await.unwrap();
    assert!(!store.ask("a1").await.unwrap().unwrap().awaited);
    store.set_awaited("a1", true).await.unwrap();
    assert!(store.ask("a1").await.unwrap().unwrap().awaited);
    assert_eq!(
        store.set_awaited("zz", true).await.unwrap_err(),
        StoreError::NotFound
    );
}

pub async fn deadlines_are_kept_listed_soonest_first_and_moved(store: Arc<dyn Store>) {
    let s = store.open_session(session("c")).await.unwrap();
    let expiring = |id: &str, payload: Value, at: &str| {
        let mut a = new_ask(id, &s.id, payload);
        a.expiry = Some(crate::Expiry {
            expires_at: at.into(),
            deadline: json!({"then": "cancel"}),
        });
        a
    };
    let late = "2030-01-02T00:00:00.000Z";
    let soon = "2030-01-01T00:00:00.000Z";
    let created = store
        .create_ask(expiring("a1", json!({"entry": "q1"}), late))
        .await
        .unwrap();
    assert_eq!(created.ask.expires_at.as_deref(), Some(late));
    store
        .create_ask(expiring("a2", json!({"entry": "q2"}), soon))
        .await
        .unwrap();
    store
        .create_ask(new_ask("a3", &s.id, json!({"entry": "q3"})))
        .await
        .unwrap();
    let read = store.ask("a1").await.unwrap().unwrap();
    assert_eq!(read.expires_at.as_deref(), Some(late));
    assert_eq!(read.deadline, Some(json!({"then": "cancel"})));
    let listed = store.asks(&AskFilter::default()).await.unwrap();
    let a2 = listed.iter().find(|a| a.id == "a2").unwrap();
    assert_eq!(a2.expires_at.as_deref(), Some(soon));
    assert_eq!(
        store.expiring(10).await.unwrap(),
        vec![
            ("a2".to_string(), soon.to_string()),
            ("a1".to_string(), late.to_string())
        ]
    );
    // Moved: the event says where to; an ask without a deadline has none to move.
    let moved = "2030-01-03T00:00:00.000Z";
    let e = store.set_expiry("a2", moved).await.unwrap();
    assert_eq!(e.kind, "ask.deadline");
    assert_eq!(e.payload["expires_at"], moved);
    assert_eq!(store.expiring(1).await.unwrap()[0].0, "a1");
    assert!(matches!(
        store.set_expiry("a3", moved).await.unwrap_err(),
        StoreError::Conflict(_)
    ));
    // A settled ask is no longer expiring, and its deadline cannot move.
    store.settle("a1", &settlement("answered")).await.unwrap();
    assert_eq!(store.expiring(10).await.unwrap().len(), 1);
    assert_eq!(
        store.set_expiry("a1", moved).await.unwrap_err(),
        StoreError::NotPending
    );
}

pub async fn a_snooze_is_kept_listed_and_outlives_the_settle(store: Arc<dyn Store>) {
    let s = store.open_session(session("c")).await.unwrap();
    let created = store
        .create_ask(new_ask("a1", &s.id, json!({"entry": "q1"})))
        .await
        .unwrap();
    assert_eq!(created.ask.deferred_until, None);
    let until = "2030-01-01T09:00:00.000Z";
    let e = store.defer("a1", until).await.unwrap();
    assert_eq!(e.kind, "ask.deferred");
    assert_eq!(e.payload, json!({"ask_id": "a1", "deferred_until": until}));
    let read = store.ask("a1").await.unwrap().unwrap();
    assert_eq!(read.deferred_until.as_deref(), Some(until));
    let listed = store.asks(&AskFilter::default()).await.unwrap();
    assert_eq!(listed[0].deferred_until.as_deref(), Some(until));
    // Put off again: the later time replaces the first.
    let later = "2030-01-02T09:00:00.000Z";
    store.defer("a1", later).await.unwrap();
    // The settle keeps it (the record says the ask was put off); a settled ask is not put
    // off again, and an unknown one is not found.
    store.settle("a1", &settlement("answered")).await.unwrap();
    let read = store.ask("a1").await.unwrap().unwrap();
    assert_eq!(read.deferred_until.as_deref(), Some(later));
    assert_eq!(
        store.defer("a1", later).await.unwrap_err(),
        StoreError::NotPending
    );
    assert_eq!(
        store.defer("zz", later).await.unwrap_err(),
        StoreError::NotFound
    );
}

pub async fn an_escalation_clears_the_deadline_once(store: Arc<dyn Store>) {
    let s = store.open_session(session("c")).await.unwrap();
    let at = "2030-01-01T00:00:00.000Z";
    let mut a = new_ask("a1", &s.id, json!({"entry": "q1"}));
    a.expiry = Some(crate::Expiry {
        expires_at: at.into(),
        deadline: json!({"then": "escalate", "to": "bob"}),
    });
    store.create_ask(a).await.unwrap();
    let chain = json!({"then": "escalate", "to": "bob", "escalated": [{"to": "bob"}]});
    // A deadline that moved meanwhile is not escalated.
    assert_eq!(
        store
            .escalate("a1", "2029-01-01T00:00:00.000Z", &chain, "bob")
            .await
            .unwrap(),
        None
    );
    let e = store
        .escalate("a1", at, &chain, "bob")
        .await
        .unwrap()
        .unwrap();
    assert_eq!(e.kind, "ask.escalated");
    assert_eq!(e.payload["to"], "bob");
    // Once: the deadline is gone, so a second daemon's try finds nothing to do.
    assert_eq!(store.escalate("a1", at, &chain, "bob").await.unwrap(), None);
    let read = store.ask("a1").await.unwrap().unwrap();
    assert_eq!(read.expires_at, None);
    assert_eq!(read.deadline, Some(chain));
    assert!(store.expiring(10).await.unwrap().is_empty());
    let listed = store.asks(&AskFilter::default()).await.unwrap();
    assert_eq!(listed[0].escalated_to.as_deref(), Some("bob"));
}

fn a_vote(who: &str, rejects: bool) -> Value {
    json!({"answered_by": {"kind": "member", "id": who, "name": who}, "voted_at": crate::now(),
        "rejects": rejects, "answer": {"answers": [{"id": "q1", "selected": [who]}]}})
}

fn with_approvals(id: &str, session_id: &str, required: u32) -> NewAsk {
    let mut a = new_ask(id, session_id, json!({"entry": id}));
    a.approvals = Some(json!({"required": required, "from": "any", "votes": []}));
    a
}

pub async fn votes_are_kept_and_the_deciding_one_settles_with_them(store: Arc<dyn Store>) {
    let s = store.open_session(session("c")).await.unwrap();
    store
        .create_ask(with_approvals("a1", &s.id, 2))
        .await
        .unwrap();
    let decide = settlement("answered");
    // The first vote, then the same member again: one vote, still pending.
    let v = store
        .vote("a1", &a_vote("ann", false), &decide, &[])
        .await
        .unwrap();
    assert!(v.settled.is_none());
    assert_eq!(v.events.len(), 1);
    assert_eq!(v.events[0].kind, "ask.voted");
    assert_eq!(v.events[0].payload["votes"], 1);
    let v = store
        .vote("a1", &a_vote("ann", false), &decide, &[])
        .await
        .unwrap();
    assert_eq!(v.approvals["votes"].as_array().unwrap().len(), 1);
    let read = store.ask("a1").await.unwrap().unwrap();
    assert_eq!(read.state, AskState::Pending);
    assert_eq!(
        read.approvals.as_ref().unwrap()["votes"][0]["answered_by"]["name"],
        "ann"
    );
    let listed = store.asks(&AskFilter::default()).await.unwrap();
    assert_eq!(
        listed[0].approvals,
        Some(json!({"required": 2, "votes": 1, "voters": ["ann"]}))
    );
    // The second member's vote settles, with both votes in the result and the record.
    let v = store
        .vote("a1", &a_vote("ben", false), &decide, &[])
        .await
        .unwrap();
    let kinds: Vec<&str> = v.events.iter().map(|e| e.kind.as_str()).collect();
    assert_eq!(kinds, ["ask.voted", "ask.settled"]);
    let settled = v.settled.unwrap();
    assert_eq!(settled.result["votes"].as_array().unwrap().len(), 2);
    assert_eq!(settled.result["approvals"]["decided_by"], "quorum");
    let read = store.ask("a1").await.unwrap().unwrap();
    assert_eq!(read.state, AskState::Settled);
    assert_eq!(
        read.result.unwrap()["votes"][1]["answered_by"]["name"],
        "ben"
    );
    let rec = store.records(&RecordFilter::default()).await.unwrap();
    assert_eq!(rec[0].record["votes"].as_array().unwrap().len(), 2);
    // A late vote is refused; an ask without approvals takes none.
    assert_eq!(
        store
            .vote("a1", &a_vote("cy", false), &decide, &[])
            .await
            .unwrap_err(),
        StoreError::NotPending
    );
    store
        .create_ask(new_ask("a2", &s.id, json!({"entry": "a2"})))
        .await
        .unwrap();
    assert!(matches!(
        store
            .vote("a2", &a_vote("ann", false), &decide, &[])
            .await
            .unwrap_err(),
        StoreError::Conflict(_)
    ));
    // A rejection settles at once, before the quorum.
    store
        .create_ask(with_approvals("a3", &s.id, 3))
        .await
        .unwrap();
    store
        .vote("a3", &a_vote("ann", false), &decide, &[])
        .await
        .unwrap();
    let v = store
        .vote("a3", &a_vote("ben", true), &decide, &[])
        .await
        .unwrap();
    assert_eq!(
        v.settled.unwrap().result["approvals"]["decided_by"],
        "rejection"
    );
}

pub async fn concurrent_votes_each_count_and_settle_once(store: Arc<dyn Store>) {
    let s = store.open_session(session("c")).await.unwrap();
    store
        .create_ask(with_approvals("a1", &s.id, 4))
        .await
        .unwrap();
    let decide = settlement("answered");
    let tries = (0..4).map(|i| {
        let (store, decide) = (store.clone(), decide.clone());
        tokio::spawn(async move {
            // A vote that lost a compare-and-set is sent again, as the daemon's caller would.
            loop {
                match store
                    .vote("a1", &a_vote(&format!("m{i}"), false), &decide, &[])
                    .await
                {
                    Err(StoreError::Conflict(_)) => continue,
                    other => return other.unwrap().settled.is_some(),
                }
            }
        })
    });
    let mut settles = 0;
    for t in tries {
        settles += usize::from(t.await.unwrap());
    }
    assert_eq!(settles, 1, "exactly the fourth vote settles");
    let read = store.ask("a1").await.unwrap().unwrap();
    assert_eq!(read.result.unwrap()["votes"].as_array().unwrap().len(), 4);
}

pub async fn list_and_count_filters(store: Arc<dyn Store>) {
    let s1 = store.open_session(session("one")).await.unwrap();
    let s2 = store.open_session(session("two")).await.unwrap();
    for i in 0..3 {
        store
            .create_ask(new_ask(&format!("a{i}"), &s1.id, json!({"i": i})))
            .await
            .unwrap();
    }
    let mut q = new_ask("b0", &s2.id, json!({"i": 9}));
    q.kind = "questions".into();
    store.create_ask(q).await.unwrap();
    store.bank("a0", &[banked("q1", "a")]).await.unwrap();
    store.settle("a1", &settlement("answered")).await.unwrap();

    let all = store.asks(&AskFilter::default()).await.unwrap();
    assert_eq!(all.len(), 4);
    let pending = store
        .asks(&AskFilter {
            state: Some(AskState::Pending),
            ..Default::default()
        })
        .await
        .unwrap();
    let mut ids: Vec<&str> = pending.iter().map(|a| a.id.as_str()).collect();
    ids.sort();
    assert_eq!(ids, ["a0", "a2", "b0"]);
    let a0 = pending.iter().find(|a| a.id == "a0").unwrap();
    assert_eq!(a0.banked, 1);
    assert_eq!(a0.client, "one");
    let of_s2 = store
        .asks(&AskFilter {
            session_id: Some(s2.id.clone()),
            ..Default::default()
        })
        .await
        .unwrap();
    assert_eq!(of_s2.len(), 1);
    assert_eq!(of_s2[0].kind, "questions");
    let surveys = store
        .asks(&AskFilter {
            kind: Some("survey".into()),
            limit: Some(2),
            ..Default::default()
        })
        .await
        .unwrap();
    assert_eq!(surveys.len(), 2);
    assert_eq!(store.count_asks(None).await.unwrap(), 4);
    assert_eq!(store.count_asks(Some(AskState::Pending)).await.unwrap(), 3);
    assert_eq!(store.count_asks(Some(AskState::Settled)).await.unwrap(), 1);
}

pub async fn events_replay_in_commit_order(store: Arc<dyn Store>) {
    let s = store.open_session(session("c")).await.unwrap();
    store
        .create_ask(new_ask("a1", &s.id, json!({"entry": "q1"})))
        .await
        .unwrap();
    store.bank("a1", &[banked("q1", "a")]).await.unwrap();
    store.autosave("a1", &json!({"v": 1})).await.unwrap();
    store.settle("a1", &settlement("answered")).await.unwrap();
    let all = store.events_after(0, 100).await.unwrap();
    let kinds: Vec<&str> = all.iter().map(|e| e.kind.as_str()).collect();
    assert_eq!(
        kinds,
        ["ask.created", "ask.banked", "ask.autosaved", "ask.settled"]
    );
    assert!(all.windows(2).all(|w| w[0].seq < w[1].seq));
    assert_eq!(store.last_event().await.unwrap(), all[3].seq);
    let tail = store.events_after(all[1].seq, 100).await.unwrap();
    assert_eq!(tail, all[2..].to_vec());
    assert_eq!(store.events_after(0, 2).await.unwrap(), all[..2].to_vec());
    assert!(store.events_after(all[3].seq, 10).await.unwrap().is_empty());
}

pub async fn records_filter_and_order(store: Arc<dyn Store>) {
    let s1 = store.open_session(session("c")).await.unwrap();
    let s2 = store.open_session(session("c")).await.unwrap();
    for (id, sess, outcome) in [
        ("r1", &s1.id, "answered"),
        ("r2", &s1.id, "cancelled"),
        ("r3", &s2.id, "answered"),
    ] {
        store
            .create_ask(new_ask(id, sess, json!({"id": id})))
            .await
            .unwrap();
        store.settle(id, &settlement(outcome)).await.unwrap();
    }
    let all = store.records(&RecordFilter::default()).await.unwrap();
    let ids: Vec<&str> = all.iter().map(|r| r.ask_id.as_str()).collect();
    assert_eq!(ids, ["r3", "r2", "r1"], "newest first");
    let answered = store
        .records(&RecordFilter {
            outcome: Some("answered".into()),
            ..Default::default()
        })
        .await
        .unwrap();
    assert_eq!(answered.len(), 2);
    let s1_only = store
        .records(&RecordFilter {
            session_id: Some(s1.id.clone()),
            limit: Some(1),
            ..Default::default()
        })
        .await
        .unwrap();
    assert_eq!(s1_only.len(), 1);
    assert_eq!(s1_only[0].ask_id, "r2");
}

pub async fn unknown_ids_are_not_found(store: Arc<dyn Store>) {
    assert_eq!(store.ask("missing").await.unwrap(), None);
    assert!(store.asks(&AskFilter::default()).await.unwrap().is_empty());
    assert!(store.events_after(0, 10).await.unwrap().is_empty());
    assert_eq!(store.last_event().await.unwrap(), 0);
}

/// `ask_payloads`: the kind and payload of each existing ask asked for, in one call, also
/// beyond one query's worth of ids; unknown ids are left out.
pub async fn ask_payloads_read_many_at_once(store: Arc<dyn Store>) {
    let s = store.open_session(session("p")).await.unwrap();
    let mut ids = Vec::new();
    for i in 0..520 {
        let id = format!("p{i}");
        let payload = json!({"questions": [{"id": "q", "question": format!("Q{i}?")}]});
        store
            .create_ask(new_ask(&id, &s.id, payload))
            .await
            .unwrap();
        ids.push(id);
    }
    ids.push("missing".into());
    let mut got = store.ask_payloads(&ids).await.unwrap();
    got.sort_by_key(|(id, _, _)| id[1..].parse::<u32>().unwrap());
    assert_eq!(got.len(), 520);
    assert_eq!(got[519].0, "p519");
    assert_eq!(got[519].1, "survey");
    assert_eq!(got[519].2["questions"][0]["question"], "Q519?");
    assert!(store.ask_payloads(&[]).await.unwrap().is_empty());
}

/// Many writes at once (a backend may commit them together): each succeeds or fails on its
/// own, and a failed one leaves no trace.
pub async fn concurrent_writes_fail_alone(store: Arc<dyn Store>) {
    let s = store.open_session(session("c")).await.unwrap();
    for i in 0..10 {
        store
            .create_ask(new_ask(&format!("a{i}"), &s.id, json!({"i": i})))
            .await
            .unwrap();
        store
            .bank(&format!("a{i}"), &[banked("q1", "a")])
            .await
            .unwrap();
    }
    let mut tasks = Vec::new();
    for i in 0..10 {
        for (q, expect_ok) in [("q2", true), ("q1", false)] {
            let store = store.clone();
            tasks.push(tokio::spawn(async move {
                // The conflicting bank also carries a new question: it must not land.
                let entries = if expect_ok {
                    vec![banked(q, "b")]
                } else {
                    vec![banked("q9", "z"), banked(q, "b")]
                };
                (i, expect_ok, store.bank(&format!("a{i}"), &entries).await)
            }));
        }
    }
    for t in tasks {
        let (i, expect_ok, r) = t.await.unwrap();
        assert_eq!(r.is_ok(), expect_ok, "a{i}: {r:?}");
    }
    for i in 0..10 {
        let a = store.ask(&format!("a{i}")).await.unwrap().unwrap();
        let ids: Vec<&str> = a.banked.iter().map(|b| b.question_id.as_str()).collect();
        assert_eq!(ids, ["q1", "q2"], "a{i}");
    }
}

/// A settle validated against N banked answers does not land after a bank made it N+1.
pub async fn settle_refuses_when_banks_changed(store: Arc<dyn Store>) {
    let s = store.open_session(session("c")).await.unwrap();
    store
        .create_ask(new_ask("a1", &s.id, json!({"entry": "q1"})))
        .await
        .unwrap();
    store.bank("a1", &[banked("q1", "a")]).await.unwrap();
    let mut stale = settlement("answered");
    stale.expect_banked = Some(0);
    let err = store.settle("a1", &stale).await.unwrap_err();
    assert!(matches!(err, StoreError::Conflict(_)), "{err:?}");
    assert_eq!(
        store.ask("a1").await.unwrap().unwrap().state,
        AskState::Pending
    );
    assert!(
        store
            .records(&RecordFilter::default())
            .await
            .unwrap()
            .is_empty()
    );
    let mut fresh = settlement("answered");
    fresh.expect_banked = Some(1);
    store.settle("a1", &fresh).await.unwrap();
}

fn draft(slug: &str, session_id: &str, status: &str) -> Draft {
    Draft {
        slug: slug.into(),
        session_id: session_id.into(),
        title: format!("Title of {slug}"),
        status: status.into(),
        file: format!("/work/project/.askd/survey-drafts/{slug}.json"),
        workspace: Some("/work/project".into()),
        created_at: "2026-11-29T22:47:00.000Z".into(),
        updated_at: crate::now(),
        revision: 0,
        ready: false,
        progress: DraftProgress {
            questions: 1,
            complete: 0,
            missing_fields: 21,
        },
        grounding: "standard".into(),
        ask_id: None,
    }
}

fn save(d: &Draft, active: ActivePointer, event: Option<Value>) -> DraftSave {
    DraftSave {
        draft: d.clone(),
        active,
        event,
        expect: None,
    }
}

/// A draft row reads back as written, with its event; a save without an event appends none.
pub async fn drafts_save_and_read_back(store: Arc<dyn Store>) {
    let s = store.open_session(session("c")).await.unwrap();
    let mut d = draft("api-survey", &s.id, "building");
    let payload = json!({"session": s.id, "slug": "api-survey", "status": "building"});
    let e = store
        .save_draft(save(
            &d,
            ActivePointer::Set(s.id.clone()),
            Some(payload.clone()),
        ))
        .await
        .unwrap()
        .expect("an event");
    assert_eq!(e.kind, "draft.updated");
    assert_eq!(e.payload, payload);
    assert_eq!(store.draft("api-survey").await.unwrap(), Some(d.clone()));
    assert_eq!(
        store.active_draft(&s.id).await.unwrap().as_deref(),
        Some("api-survey")
    );
    // Replace: every column follows; no event this time.
    d.title = "Renamed".into();
    d.revision = 3;
    d.ready = true;
    d.progress.complete = 1;
    d.grounding = "internal".into();
    assert_eq!(
        store
            .save_draft(save(&d, ActivePointer::Keep, None))
            .await
            .unwrap(),
        None
    );
    assert_eq!(store.draft("api-survey").await.unwrap(), Some(d.clone()));
    assert_eq!(store.last_event().await.unwrap(), e.seq);
    assert_eq!(store.draft("missing").await.unwrap(), None);
    assert_eq!(store.draft_by_ask("missing").await.unwrap(), None);
    let other = store.open_session(session("o")).await.unwrap();
    store
        .save_draft(save(
            &draft("other", &other.id, "building"),
            ActivePointer::Keep,
            None,
        ))
        .await
        .unwrap();
    assert_eq!(store.drafts(None).await.unwrap().len(), 2);
    let mine = store.drafts(Some(&s.id)).await.unwrap();
    assert_eq!(mine, vec![d]);
    assert_eq!(store.active_draft(&other.id).await.unwrap(), None);
}

/// At most one active draft per session; a draft may be active for several sessions, and
/// clearing removes every pointer to it.
pub async fn drafts_active_pointer_is_per_session(store: Arc<dyn Store>) {
    let s1 = store.open_session(session("one")).await.unwrap();
    let s2 = store.open_session(session("two")).await.unwrap();
    let d1 = draft("d1", &s1.id, "building");
    let d2 = draft("d2", &s1.id, "building");
    store
        .save_draft(save(&d1, ActivePointer::Set(s1.id.clone()), None))
        .await
        .unwrap();
    store
        .save_draft(save(&d2, ActivePointer::Set(s1.id.clone()), None))
        .await
        .unwrap();
    assert_eq!(
        store.active_draft(&s1.id).await.unwrap().as_deref(),
        Some("d2")
    );
    // d1 keeps its row and status.
    assert_eq!(store.draft("d1").await.unwrap().unwrap().status, "building");
    store
        .save_draft(save(&d1, ActivePointer::Set(s2.id.clone()), None))
        .await
        .unwrap();
    let mut all = store.active_drafts().await.unwrap();
    all.sort();
    let mut expected = vec![
        (s1.id.clone(), "d2".to_string()),
        (s2.id.clone(), "d1".to_string()),
    ];
    expected.sort();
    assert_eq!(all, expected);
    store
        .save_draft(save(&d2, ActivePointer::Set(s2.id.clone()), None))
        .await
        .unwrap();
    let discarded = draft("d2", &s1.id, "discarded");
    store
        .save_draft(save(&discarded, ActivePointer::ClearAll, None))
        .await
        .unwrap();
    assert_eq!(store.active_draft(&s1.id).await.unwrap(), None);
    assert_eq!(store.active_draft(&s2.id).await.unwrap(), None);
    assert!(store.active_drafts().await.unwrap().is_empty());
    assert_eq!(
        store.draft("d2").await.unwrap().unwrap().status,
        "discarded"
    );
}

/// A save with an expectation lands only when the row still matches it.
pub async fn drafts_compare_and_set(store: Arc<dyn Store>) {
    let s = store.open_session(session("c")).await.unwrap();
    let d = draft("d", &s.id, "building");
    store
        .save_draft(save(&d, ActivePointer::Keep, None))
        .await
        .unwrap();
    let before = store.last_event().await.unwrap();
    let mut reopened = draft("d", &s.id, "reopened");
    reopened.revision = 9;
    let mut cas = save(
        &reopened,
        ActivePointer::Set(s.id.clone()),
        Some(json!({"slug": "d"})),
    );
    cas.expect = Some(("launched".into(), Some("a1".into())));
    let err = store.save_draft(cas.clone()).await.unwrap_err();
    assert!(matches!(err, StoreError::Conflict(_)), "{err:?}");
    assert_eq!(store.draft("d").await.unwrap(), Some(d));
    assert_eq!(store.active_draft(&s.id).await.unwrap(), None);
    assert_eq!(store.last_event().await.unwrap(), before);
    cas.expect = Some(("building".into(), None));
    assert!(store.save_draft(cas).await.unwrap().is_some());
    assert_eq!(store.draft("d").await.unwrap().unwrap().revision, 9);
}

/// The launch creates the ask and links the draft in one transaction, events in order;
/// re-attaching to an identical pending ask links that one.
pub async fn launch_draft_links_the_ask_in_one_transaction(store: Arc<dyn Store>) {
    let s = store.open_session(session("c")).await.unwrap();
    let d = draft("d", &s.id, "building");
    store
        .save_draft(save(&d, ActivePointer::Set(s.id.clone()), None))
        .await
        .unwrap();
    let created = store
        .launch_draft(
            new_ask("a1", &s.id, json!({"entry": "q1"})),
            d.clone(),
            json!({"slug": "d", "status": "building"}),
        )
        .await
        .unwrap();
    assert!(created.created);
    let kinds: Vec<&str> = created.events.iter().map(|e| e.kind.as_str()).collect();
    assert_eq!(kinds, ["ask.created", "draft.updated"]);
    assert!(created.events[0].seq < created.events[1].seq);
    assert_eq!(
        created.events[1].payload,
        json!({"slug": "d", "status": "launched", "askId": "a1"})
    );
    let linked = store.draft("d").await.unwrap().unwrap();
    assert_eq!(linked.status, "launched");
    assert_eq!(linked.ask_id.as_deref(), Some("a1"));
    assert_eq!(store.draft_by_ask("a1").await.unwrap(), Some(linked));
    assert_eq!(
        store.active_draft(&s.id).await.unwrap().as_deref(),
        Some("d"),
        "launch leaves the pointer"
    );
    // An identical payload re-attaches: nothing new, the draft points at the pending ask.
    let d2 = draft("d2", &s.id, "building");
    let again = store
        .launch_draft(
            new_ask("a2", &s.id, json!({"entry": "q1"})),
            d2,
            json!({"slug": "d2"}),
        )
        .await
        .unwrap();
    assert!(!again.created);
    assert_eq!(again.ask.id, "a1");
    assert_eq!(again.events.len(), 1);
    assert_eq!(
        store.draft("d2").await.unwrap().unwrap().ask_id.as_deref(),
        Some("a1")
    );
    assert_eq!(store.ask("a2").await.unwrap(), None);
}

/// A launch that cannot create its ask leaves the draft and the log untouched.
pub async fn launch_draft_failure_changes_nothing(store: Arc<dyn Store>) {
    let s = store.open_session(session("c")).await.unwrap();
    let d = draft("d", &s.id, "building");
    store
        .save_draft(save(&d, ActivePointer::Keep, None))
        .await
        .unwrap();
    let before = store.last_event().await.unwrap();
    let err = store
        .launch_draft(
            new_ask("a1", "no-such-session", json!({"entry": "q1"})),
            d.clone(),
            json!({"slug": "d"}),
        )
        .await
        .unwrap_err();
    assert!(matches!(err, StoreError::UnknownSession(_)), "{err:?}");
    assert_eq!(store.draft("d").await.unwrap(), Some(d));
    assert_eq!(store.last_event().await.unwrap(), before);
    assert_eq!(store.ask("a1").await.unwrap(), None);
}

fn follow(kind: &str, n: u32) -> FollowEvent {
    FollowEvent {
        kind: kind.into(),
        payload: json!({"drift_id": format!("d{n}")}),
    }
}

pub async fn follow_events_commit_with_create_and_settle(store: Arc<dyn Store>) {
    let s = store.open_session(session("c")).await.unwrap();
    let before = store.last_event().await.unwrap();
    let created = store
        .create_ask_with(
            new_ask("a1", &s.id, json!({"entry": "q1"})),
            &[follow("alignment.drift_reported", 1)],
        )
        .await
        .unwrap();
    let kinds: Vec<_> = created.events.iter().map(|e| e.kind.as_str()).collect();
    assert_eq!(kinds, ["ask.created", "alignment.drift_reported"]);
    assert_eq!(created.events[1].payload["session"], json!(s.id));
    assert_eq!(created.events[1].payload["drift_id"], "d1");
    // A re-attach writes nothing, follow events included.
    let again = store
        .create_ask_with(
            new_ask("a2", &s.id, json!({"entry": "q1"})),
            &[follow("alignment.drift_reported", 2)],
        )
        .await
        .unwrap();
    assert!(!again.created && again.events.is_empty());
    let settled = store
        .settle_with(
            "a1",
            &settlement("answered"),
            &[follow("alignment.drift_decided", 1)],
        )
        .await
        .unwrap();
    let kinds: Vec<_> = settled.iter().map(|e| e.kind.as_str()).collect();
    assert_eq!(kinds, ["ask.settled", "alignment.drift_decided"]);
    assert_eq!(settled[1].payload["session"], json!(s.id));
    let replay: Vec<_> = store
        .events_after(before, 100)
        .await
        .unwrap()
        .into_iter()
        .map(|e| e.kind)
        .collect();
    assert_eq!(
        replay,
        [
            "ask.created",
            "alignment.drift_reported",
            "ask.settled",
            "alignment.drift_decided"
        ]
    );
}

pub async fn follow_events_are_not_written_when_the_settle_fails(store: Arc<dyn Store>) {
    let s = store.open_session(session("c")).await.unwrap();
    store
        .create_ask(new_ask("a1", &s.id, json!({"entry": "q1"})))
        .await
        .unwrap();
    store.settle("a1", &settlement("answered")).await.unwrap();
    let before = store.last_event().await.unwrap();
    let err = store
        .settle_with(
            "a1",
            &settlement("cancelled"),
            &[follow("alignment.drift_closed", 1)],
        )
        .await
        .unwrap_err();
    assert_eq!(err, StoreError::NotPending);
    assert_eq!(store.last_event().await.unwrap(), before);
}

pub async fn session_events_are_the_sessions_own_in_order(store: Arc<dyn Store>) {
    let s1 = store.open_session(session("one")).await.unwrap();
    let s2 = store.open_session(session("two")).await.unwrap();
    store
        .create_ask(new_ask("a1", &s1.id, json!({"entry": "q1"})))
        .await
        .unwrap();
    store
        .append_session_event(&s2.id, "alignment.checked", json!({"via": "tool"}))
        .await
        .unwrap();
    store
        .append_session_event(&s1.id, "alignment.checked", json!({"via": "prompt"}))
        .await
        .unwrap();
    // An autosave names no session: not part of any session's stream.
    store.autosave("a1", &json!({"answers": {}})).await.unwrap();
    store.settle("a1", &settlement("answered")).await.unwrap();
    let kinds =
        |events: Vec<Event>| -> Vec<String> { events.into_iter().map(|e| e.kind).collect() };
    assert_eq!(
        kinds(store.session_events(&s1.id).await.unwrap()),
        ["ask.created", "alignment.checked", "ask.settled"]
    );
    assert_eq!(
        kinds(store.session_events(&s2.id).await.unwrap()),
        ["alignment.checked"]
    );
    assert!(store.session_events("nope").await.unwrap().is_empty());
    let seqs: Vec<i64> = store
        .session_events(&s1.id)
        .await
        .unwrap()
        .iter()
        .map(|e| e.seq)
        .collect();
    assert!(seqs.windows(2).all(|w| w[0] < w[1]));
}

/// Saved settings: only the saved keys come back; a save replaces, a removal forgets, both
/// with one `settings.updated` event in the log.
pub async fn settings_save_replace_and_remove(store: Arc<dyn Store>) {
    assert!(store.settings().await.unwrap().is_empty());
    let mut set = serde_json::Map::new();
    set.insert("batch_review.maxItems".into(), json!(20));
    set.insert("maxBodyBytes".into(), json!(4096));
    let e = store.save_settings(&set, &[]).await.unwrap();
    assert_eq!(e.kind, "settings.updated");
    assert_eq!(
        e.payload["set"],
        json!(["batch_review.maxItems", "maxBodyBytes"])
    );
    assert_eq!(store.settings().await.unwrap(), set);
    let mut again = serde_json::Map::new();
    again.insert("batch_review.maxItems".into(), json!(30));
    store
        .save_settings(&again, &["maxBodyBytes".to_string(), "absent".to_string()])
        .await
        .unwrap();
    let now = store.settings().await.unwrap();
    assert_eq!(now.len(), 1);
    assert_eq!(now["batch_review.maxItems"], json!(30));
    let log = store.events_after(0, 100).await.unwrap();
    let kinds: Vec<&str> = log.iter().map(|e| e.kind.as_str()).collect();
    assert_eq!(kinds, ["settings.updated", "settings.updated"]);
    assert_eq!(log[1].payload["removed"], json!(["maxBodyBytes", "absent"]));
}

/// A session's events after a seq (what a checkpointed fold still applies), and its log
/// without the ask events.
pub async fn session_events_after_and_the_log_without_asks(store: Arc<dyn Store>) {
    let s1 = store.open_session(session("one")).await.unwrap();
    let s2 = store.open_session(session("two")).await.unwrap();
    let first = store
        .append_session_event(&s1.id, "session.started", json!({"origin": "new"}))
        .await
        .unwrap();
    store
        .create_ask(new_ask("a1", &s1.id, json!({"entry": "q1"})))
        .await
        .unwrap();
    store
        .append_session_event(&s2.id, "alignment.checked", json!({"via": "tool"}))
        .await
        .unwrap();
    store
        .append_session_event(&s1.id, "alignment.checked", json!({"via": "prompt"}))
        .await
        .unwrap();
    store.settle("a1", &settlement("answered")).await.unwrap();
    let kinds =
        |events: Vec<Event>| -> Vec<String> { events.into_iter().map(|e| e.kind).collect() };
    assert_eq!(
        kinds(
            store
                .session_events_after(&s1.id, first.seq, 100)
                .await
                .unwrap()
        ),
        ["ask.created", "alignment.checked", "ask.settled"]
    );
    assert_eq!(
        kinds(store.session_events_after(&s1.id, 0, 100).await.unwrap()),
        kinds(store.session_events(&s1.id).await.unwrap())
    );
    let last = store.last_event().await.unwrap();
    assert!(
        store
            .session_events_after(&s1.id, last, 100)
            .await
            .unwrap()
            .is_empty()
    );
    // A bounded batch: the first ones after `after`.
    assert_eq!(
        kinds(
            store
                .session_events_after(&s1.id, first.seq, 2)
                .await
                .unwrap()
        ),
        ["ask.created", "alignment.checked"]
    );
    assert_eq!(
        kinds(store.session_log(&s1.id).await.unwrap()),
        ["session.started", "alignment.checked"]
    );
    assert_eq!(
        kinds(store.session_log(&s2.id).await.unwrap()),
        ["alignment.checked"]
    );
    assert!(store.session_log("nope").await.unwrap().is_empty());
}

/// Alignment checkpoints: only a later seq replaces the stored one, its decisions come with
/// it in one transaction, and the keyed lookup finds the first decision of a key.
pub async fn alignment_checkpoints_keep_the_newest_with_their_decisions(store: Arc<dyn Store>) {
    let s = store.open_session(session("one")).await.unwrap();
    assert_eq!(store.alignment_checkpoint(&s.id).await.unwrap(), None);
    let decision = |idx: u64, key: &str, ask: &str| CheckpointDecision {
        idx,
        key: key.into(),
        ask_id: ask.into(),
        decision: json!({"ask_id": ask, "question": key, "n": idx}),
    };
    let cp = |seq: i64, n: u64| AlignmentCheckpoint {
        last_seq: seq,
        state: json!({"seq": seq}),
        decisions: n,
    };
    let saved = store
        .save_alignment_checkpoint(
            &s.id,
            &cp(5, 2),
            &[decision(0, "where", "a1"), decision(1, "who", "a1")],
        )
        .await
        .unwrap();
    assert!(saved);
    assert_eq!(
        store.alignment_checkpoint(&s.id).await.unwrap(),
        Some(cp(5, 2))
    );
    // The same or an older seq changes nothing, its decisions included.
    for seq in [5, 3] {
        let saved = store
            .save_alignment_checkpoint(&s.id, &cp(seq, 3), &[decision(2, "old", "a9")])
            .await
            .unwrap();
        assert!(!saved);
    }
    assert_eq!(
        store.alignment_checkpoint(&s.id).await.unwrap(),
        Some(cp(5, 2))
    );
    assert_eq!(
        store.alignment_decisions(&s.id, 0, 10).await.unwrap().len(),
        2
    );
    // A later one adds its decisions, replacing the kept ones from its first on.
    let saved = store
        .save_alignment_checkpoint(
            &s.id,
            &cp(9, 4),
            &[
                decision(1, "changed", "a1"),
                decision(2, "where", "a2"),
                decision(3, "where", "a3"),
            ],
        )
        .await
        .unwrap();
    assert!(saved);
    let all = store.alignment_decisions(&s.id, 0, 4).await.unwrap();
    let ns: Vec<&Value> = all.iter().map(|d| &d["n"]).collect();
    assert_eq!(ns, [&json!(0), &json!(1), &json!(2), &json!(3)]);
    assert_eq!(all[0]["question"], "where");
    assert_eq!(all[1]["question"], "changed");
    assert_eq!(
        store.alignment_decisions(&s.id, 0, 2).await.unwrap().len(),
        2
    );
    // A page: from its first index, below its end.
    let page = store.alignment_decisions(&s.id, 1, 3).await.unwrap();
    let ns: Vec<&Value> = page.iter().map(|d| &d["n"]).collect();
    assert_eq!(ns, [&json!(1), &json!(2)]);
    assert!(
        store
            .alignment_decisions(&s.id, 3, 3)
            .await
            .unwrap()
            .is_empty()
    );
    let first = |key: &'static str, not: &'static str, below: u64| {
        let store = store.clone();
        let id = s.id.clone();
        async move {
            store
                .alignment_decision(&id, key, not, below)
                .await
                .unwrap()
                .map(|d| d["ask_id"].as_str().unwrap().to_string())
        }
    };
    assert_eq!(first("where", "zz", 4).await.as_deref(), Some("a1"));
    assert_eq!(first("where", "a1", 4).await.as_deref(), Some("a2"));
    assert_eq!(first("where", "a1", 2).await, None);
    assert_eq!(first("nothing", "a1", 4).await, None);
    // A fold from the first event replaces every kept decision.
    let fresh = store
        .save_alignment_checkpoint(&s.id, &cp(12, 1), &[decision(0, "fresh", "b1")])
        .await
        .unwrap();
    assert!(fresh);
    let all = store.alignment_decisions(&s.id, 0, 10).await.unwrap();
    assert_eq!(all.len(), 1);
    assert_eq!(all[0]["question"], "fresh");
    assert_eq!(first("where", "zz", 10).await, None);
    // Another session sees none of it; an unknown one cannot save.
    let other = store.open_session(session("two")).await.unwrap();
    assert_eq!(store.alignment_checkpoint(&other.id).await.unwrap(), None);
    assert!(
        store
            .alignment_decisions(&other.id, 0, 10)
            .await
            .unwrap()
            .is_empty()
    );
    let err = store
        .save_alignment_checkpoint("nope", &cp(1, 0), &[])
        .await
        .unwrap_err();
    assert_eq!(err, StoreError::UnknownSession("nope".into()));
}

/// Named cursors (`CursorStore`): none before the first, then only further on — a holder
/// that lags behind another cannot rewind it — and each name its own.
pub async fn cursors_only_move_forward(store: Arc<dyn Store>) {
    assert_eq!(store.cursor("notifier").await.unwrap(), None);
    store.advance_cursor("notifier", 5).await.unwrap();
    assert_eq!(store.cursor("notifier").await.unwrap(), Some(5));
    store.advance_cursor("notifier", 3).await.unwrap();
    assert_eq!(
        store.cursor("notifier").await.unwrap(),
        Some(5),
        "never back"
    );
    store.advance_cursor("notifier", 9).await.unwrap();
    assert_eq!(store.cursor("notifier").await.unwrap(), Some(9));
    assert_eq!(store.cursor("other").await.unwrap(), None);
}

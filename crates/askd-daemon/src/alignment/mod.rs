//! Requirements alignment in the daemon (`alignment.md` §4, §5.3): a session's alignment
//! state, folded by `askd-core`'s pure [`fold`] from the session's events in the store, and
//! its status view (`GET /api/sessions/{id}/alignment`).
//!
//! The store's log is global; a session's stream is the events whose payload names the
//! session, read through the store's per-session index. `ask.created` events are enriched with the ask's questions (id and text) from the
//! stored payload, which is what the fold needs for settled decisions.
//!
//! A read does not replay the whole session (issue 16): it resumes the fold from the
//! session's checkpoint in the store (`askd_core::alignment::Checkpoint`, at a known seq) and
//! applies only the events after it; a read that applied [`CHECKPOINT_AFTER`] events or more
//! saves a new checkpoint. The settled decisions are kept beside the checkpoint one per row,
//! so the repeat hint looks up the decisions of its questions instead of loading them all.
//! The checkpoint is derived data: it is saved only from a complete fold, never claims a
//! seq it did not fold, and a missing, older or unreadable one only means more to fold.

use askd_core::AskKind;
use askd_core::alignment::fold::{AlignmentState, Mode, SettledDecision};
use askd_core::alignment::tail::T3_MAX_LINES;
use askd_core::alignment::{AlignEvent, Checkpoint, Lang, TailContext, fold, tail_lines};
use askd_core::{Actor, AlignOp, EventKind};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use tokio::sync::Semaphore;

use askd_store::{AlignmentCheckpoint, CheckpointDecision, Store};
use serde_json::{Value, json};

use crate::error::{ApiError, ApiResult};
use crate::locks::Locks;

/// What the fold needs of an ask (`tool`, `questions: [{id, question}]`).
type AskInfo = Arc<(String, Option<Value>)>;
const ASK_INFO_MAX: usize = 20_000;

/// What the fold needs of each ask, by ask id: an ask's payload never changes, so it is read
/// from the store once per daemon (emptied when it holds `ASK_INFO_MAX` asks).
#[derive(Debug, Default)]
pub struct AskMemo(Mutex<HashMap<String, AskInfo>>);

/// A session's alignment as one daemon reads and writes it: its store, its memo of ask
/// payloads and its session locks ([`Locks::session`]).
#[derive(Clone, Copy)]
pub struct Alignment<'a> {
    store: &'a dyn Store,
    asks: &'a AskMemo,
    locks: &'a Locks,
    /// The daemon's own handle on the store and its background saves: when set, a read's
    /// checkpoint is saved in the background, so the read does not wait for a commit.
    shared: Option<(&'a Arc<dyn Store>, &'a Arc<Semaphore>)>,
    /// Events read at a time by a fold ([`FOLD_BATCH`]; smaller in tests).
    fold_batch: usize,
}

/// The questions of an ask payload as `[{id, question}]`: a flat list (`ask_user_question`)
/// or a survey's map of questions keyed by id (their prompts).
fn payload_questions(payload: &Value) -> Option<Value> {
    let text = |q: &Value| q.get("question").or_else(|| q.get("prompt")).cloned();
    match payload.get("questions")? {
        Value::Array(qs) => Some(Value::Array(
            qs.iter()
                .map(|q| json!({"id": q.get("id"), "question": text(q)}))
                .collect(),
        )),
        Value::Object(map) => Some(Value::Array(
            map.iter()
                .map(|(id, q)| json!({"id": id, "question": text(q)}))
                .collect(),
        )),
        _ => None,
    }
}

/// What the fold needs of an ask, from its kind and payload.
fn info_of(kind: &str, payload: &Value) -> AskInfo {
    let tool = match AskKind::parse(kind) {
        Ok(k @ (AskKind::Questions | AskKind::Survey | AskKind::Review)) => k.tool(),
        // A drift card (or a kind this daemon does not know) is named by its kind.
        Ok(AskKind::Drift) | Err(_) => kind,
    };
    Arc::new((tool.to_string(), payload_questions(payload)))
}

impl AskMemo {
    fn get(&self, id: &str) -> Option<AskInfo> {
        self.0
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get(id)
            .cloned()
    }

    fn put(&self, id: &str, info: AskInfo) {
        let mut cache = self.0.lock().unwrap_or_else(|p| p.into_inner());
        if cache.len() >= ASK_INFO_MAX {
            cache.clear();
        }
        cache.insert(id.to_string(), info);
    }
}

/// What the fold needs of each of the asks `ids`, by id: from the memo, the rest from the
/// store in one batch. An id missing from the answer has no ask; `Err` when the store could
/// not say (then a fold is not complete, and is not checkpointed).
async fn ask_infos(
    store: &dyn Store,
    memo: &AskMemo,
    ids: Vec<&str>,
) -> Result<HashMap<String, AskInfo>, askd_store::StoreError> {
    let mut out = HashMap::with_capacity(ids.len());
    let mut missing = Vec::new();
    for id in ids {
        match memo.get(id) {
            Some(hit) => {
                out.insert(id.to_string(), hit);
            }
            None => missing.push(id.to_string()),
        }
    }
    if !missing.is_empty() {
        for (id, kind, payload) in store.ask_payloads(&missing).await? {
            let info = info_of(&kind, &payload);
            memo.put(&id, info.clone());
            out.insert(id, info);
        }
    }
    Ok(out)
}

mod ops;
mod report;
mod sessions;
mod state;

pub use ops::*;
pub use report::*;
pub use sessions::*;
pub use state::*;

impl<'a> Alignment<'a> {
    pub fn new(store: &'a dyn Store, asks: &'a AskMemo, locks: &'a Locks) -> Self {
        Alignment {
            store,
            asks,
            locks,
            shared: None,
            fold_batch: FOLD_BATCH,
        }
    }

    /// The daemon's alignment: checkpoints are saved in the background (see `shared`), at
    /// most as many at once as `saves` has permits.
    pub fn of_daemon(
        store: &'a Arc<dyn Store>,
        asks: &'a AskMemo,
        locks: &'a Locks,
        saves: &'a Arc<Semaphore>,
    ) -> Self {
        Alignment {
            store: store.as_ref(),
            asks,
            locks,
            shared: Some((store, saves)),
            fold_batch: FOLD_BATCH,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn question_texts_come_from_flat_lists_and_survey_maps() {
        let flat = json!({"questions": [{"id": "q", "question": "Where?"}]});
        assert_eq!(
            payload_questions(&flat),
            Some(json!([{"id": "q", "question": "Where?"}]))
        );
        let survey = json!({"questions": {"scope": {"prompt": "Which scope?"}, "ship": {"prompt": "When?"}}});
        assert_eq!(
            payload_questions(&survey),
            Some(
                json!([{"id": "scope", "question": "Which scope?"}, {"id": "ship", "question": "When?"}])
            )
        );
        assert_eq!(payload_questions(&json!({"items": []})), None);
    }
    use askd_store::{
        AlignmentStore, AskStore, EventStore, NewAsk, NewSession, SessionStore, Settlement,
        SqliteStore, Upkeep,
    };

    /// A session's folded state, read as a fresh daemon would.
    async fn state(store: &SqliteStore, session: &str) -> ApiResult<AlignmentState> {
        let (memo, locks) = (AskMemo::default(), Locks::default());
        Alignment::new(store, &memo, &locks).state(session).await
    }

    /// One alignment operation, run as a fresh daemon would.
    async fn run(store: &SqliteStore, session: &str, op: &str, req: OpRequest) -> ApiResult<Value> {
        let (memo, locks) = (AskMemo::default(), Locks::default());
        Alignment::new(store, &memo, &locks)
            .run(session, AlignOp::parse(op).expect("an operation"), req)
            .await
    }

    async fn ask(store: &SqliteStore, session: &str, id: &str, question: &str) {
        store
            .create_ask(NewAsk {
                id: id.into(),
                session_id: session.into(),
                kind: "questions".into(),
                title: None,
                payload: json!({"questions": [{"id": "q", "question": question, "options": [{"label": "A"}, {"label": "B"}]}]}),
                payload_key: id.into(),
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
    }

    async fn answer(store: &SqliteStore, id: &str, outcome: &str, label: &str) {
        store
            .settle(
                id,
                &Settlement {
                    outcome: outcome.into(),
                    settled_at: askd_store::now(),
                    result: json!({"outcome": outcome, "answers": [{"id": "q", "selected": [label]}]}),
                    record: json!({}),
                    expect_banked: None,
                    submission: None,
                    // The outcomes these tests settle with (answered, cancelled) are never
                    // delivered as they settle.
                    delivered: false,
                },
            )
            .await
            .unwrap();
    }

    #[tokio::test]
    async fn session_events_are_appended_only_to_known_sessions_and_folded() {
        let dir = tempfile::tempdir().unwrap();
        let store = SqliteStore::open(&dir.path().join("askd.db"))
            .await
            .unwrap();
        let err = store
            .append_session_event("nope", "alignment.checked", json!({}))
            .await
            .unwrap_err();
        assert_eq!(err, askd_store::StoreError::UnknownSession("nope".into()));
        let s = store
            .open_session(NewSession {
                id: None,
                client: "A".into(),
                workspace: None,
            })
            .await
            .unwrap()
            .id;
        let e = store
            .append_session_event(
                &s,
                "alignment.mode_set",
                json!({"mode": "off", "actor": "human"}),
            )
            .await
            .unwrap();
        assert_eq!(e.payload["session"], s.as_str());
        let st = state(&store, &s).await.unwrap();
        assert_eq!(
            (st.mode_override, st.mode_set_by.as_deref()),
            (Some(Mode::Off), Some("human"))
        );
        let r = run(
            &store,
            &s,
            "mode",
            OpRequest {
                mode: Some("banana".into()),
                ..Default::default()
            },
        )
        .await;
        assert!(r.is_err(), "a bad mode writes nothing");
        assert_eq!(state(&store, &s).await.unwrap(), st);
        let r = run(&store, "nope", "status", OpRequest::default())
            .await
            .unwrap_err();
        assert_eq!(r.code, "unknown-session");
        store.close().await;
    }

    #[tokio::test]
    async fn state_is_folded_per_session_from_the_store_and_survives_reopen() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("askd.db");
        let store = SqliteStore::open(&path).await.unwrap();
        let a = store
            .open_session(NewSession {
                id: None,
                client: "A".into(),
                workspace: None,
            })
            .await
            .unwrap()
            .id;
        let b = store
            .open_session(NewSession {
                id: None,
                client: "B".into(),
                workspace: None,
            })
            .await
            .unwrap()
            .id;
        ask(&store, &a, "a1", "Where should the first version run?").await;
        answer(&store, "a1", "answered", "A").await;
        ask(&store, &a, "a2", "Cancelled one?").await;
        answer(&store, "a2", "cancelled", "B").await;
        ask(&store, &b, "b1", "Who is it for?").await;
        answer(&store, "b1", "answered", "B").await;
        ask(&store, &b, "b2", "Still open?").await;

        let sa = state(&store, &a).await.unwrap();
        assert_eq!(sa.rounds, 1);
        assert_eq!(
            sa.settled[0].question,
            "Where should the first version run?"
        );
        assert_eq!(sa.settled[0].chosen, ["A"]);
        assert_eq!(sa.settled[0].tool, "ask_user_question");
        let view = status_view(
            &a,
            &Windowed::of_whole(sa.clone(), Page::STATUS),
            Some(Mode::Auto),
            Lang::En,
        );
        assert_eq!(view["rounds"], 1);
        assert_eq!(view["posture"], "no-baseline");
        assert_eq!(view["mode"]["source"], "config");
        let guidance: Vec<&str> = view["guidance"]
            .as_array()
            .unwrap()
            .iter()
            .map(|l| l.as_str().unwrap())
            .collect();
        assert_eq!(guidance[0], format!("askd session: {a}"));
        assert!(guidance[1].starts_with("Alignment memory: 1 question round(s)"));
        assert_eq!(
            guidance[2],
            "Settled: Where should the first version run? → A"
        );

        let sb = state(&store, &b).await.unwrap();
        assert_eq!(
            (sb.rounds, sb.settled[0].question.as_str()),
            (1, "Who is it for?")
        );
        store.close().await;

        // A restart folds the same state again.
        let store = SqliteStore::open(&path).await.unwrap();
        assert_eq!(state(&store, &a).await.unwrap(), sa);
        assert_eq!(state(&store, &b).await.unwrap(), sb);
        let fresh = store
            .open_session(NewSession {
                id: None,
                client: "C".into(),
                workspace: None,
            })
            .await
            .unwrap()
            .id;
        let sc = state(&store, &fresh).await.unwrap();
        let view = status_view(
            &fresh,
            &Windowed::of_whole(sc.clone(), Page::STATUS),
            None,
            Lang::En,
        );
        assert_eq!(view["rounds"], 0);
        assert_eq!(view["mode"]["source"], "default");
        assert_eq!(view["guidance"], json!([format!("askd session: {fresh}")]));
        store.close().await;
    }

    async fn session(store: &SqliteStore, client: &str) -> String {
        store
            .open_session(NewSession {
                id: None,
                client: client.into(),
                workspace: None,
            })
            .await
            .unwrap()
            .id
    }

    /// Issue 16: a session never checkpointed is folded a batch at a time, each full batch
    /// checkpointed before the next is read; pages and windows read the kept decisions.
    #[tokio::test]
    async fn a_long_fold_keeps_what_it_folded_batch_by_batch() {
        let dir = tempfile::tempdir().unwrap();
        let store = SqliteStore::open(&dir.path().join("askd.db"))
            .await
            .unwrap();
        let (memo, locks) = (AskMemo::default(), Locks::default());
        let s = session(&store, "A").await;
        for i in 0..45 {
            let id = format!("a{i}");
            ask(&store, &s, &id, &format!("Question {i}?")).await;
            answer(&store, &id, "answered", "A").await;
        }
        let scratch = fold(
            &Alignment::new(&store, &memo, &locks)
                .session_events(&s)
                .await
                .unwrap(),
        );
        assert_eq!(scratch.settled.len(), 45);
        // Batches of 16 events: the read saves a checkpoint after each full batch and drops
        // the decisions it kept, and still reads the same state.
        let mut a = Alignment::new(&store, &memo, &locks);
        a.fold_batch = 16;
        let head = a.head(&s).await.unwrap();
        assert!(
            head.held >= 32,
            "kept {} decisions batch by batch",
            head.held
        );
        assert!(head.state.settled.len() < 16);
        assert_eq!(head.total(), 45);
        assert_eq!(a.state(&s).await.unwrap(), scratch);
        // A page and the newest decisions come from the kept ones and the head.
        let w = a
            .windowed(
                &s,
                Page {
                    before: Some(30),
                    limit: 5,
                },
            )
            .await
            .unwrap();
        assert_eq!(w.total, 45);
        assert_eq!((w.from, w.page.as_slice()), (25, &scratch.settled[25..30]));
        assert_eq!(w.state.settled, scratch.settled[35..]);
        assert_eq!(w.earlier(), 35);
        assert_eq!(w, Windowed::of_whole(scratch.clone(), w_page(30, 5)));
    }

    fn w_page(before: usize, limit: usize) -> Page {
        Page {
            before: Some(before),
            limit,
        }
    }

    /// Issue 16: the state read from checkpoints equals the fold of every event from the
    /// first, at every step of a long session, across a restart (no memo) and in a fork; and
    /// the repeat hint finds decisions kept before the checkpoint.
    #[tokio::test]
    async fn checkpointed_state_equals_the_fold_from_scratch() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("askd.db");
        let store = SqliteStore::open(&path).await.unwrap();
        let (memo, locks) = (AskMemo::default(), Locks::default());
        let a = Alignment::new(&store, &memo, &locks);
        let s = a
            .record_session(SessionRequest {
                client: "A".into(),
                ..Default::default()
            })
            .await
            .unwrap()["session"]["id"]
            .as_str()
            .unwrap()
            .to_string();
        for i in 0..90 {
            let id = format!("a{i}");
            ask(&store, &s, &id, &format!("Question {}?", i % 30)).await;
            if i % 7 != 3 {
                answer(&store, &id, "answered", if i % 2 == 0 { "A" } else { "B" }).await;
            }
            if i % 25 == 0 {
                store
                    .append_session_event(&s, "alignment.checked", json!({"via": "tool"}))
                    .await
                    .unwrap();
            }
            let read = a.state(&s).await.unwrap();
            let scratch = fold(&a.session_events(&s).await.unwrap());
            assert_eq!(read, scratch, "after ask {i}");
        }
        let cp = store
            .alignment_checkpoint(&s)
            .await
            .unwrap()
            .expect("saved");
        assert!(cp.decisions > 0, "decisions are kept beside the checkpoint");
        // Question 0? was first answered by a0: a later ask asking it again is told so,
        // from the kept decisions.
        ask(&store, &s, "again", "question 0").await;
        let again = store.ask("again").await.unwrap().unwrap();
        let r = a.repeats(&again, Mode::Auto).await.unwrap();
        assert_eq!(r["q"]["ask_id"], "a0", "{r}");
        assert_eq!(r["q"]["chosen"], json!(["A"]));
        // The one the hint is for does not count (a3 was never answered; a33 was).
        let a33 = store.ask("a33").await.unwrap().unwrap();
        let r = a.repeats(&a33, Mode::Auto).await.unwrap();
        assert_eq!(r["q"]["ask_id"], "a63", "{r}");
        store.close().await;

        // A restart: a fresh memo, the checkpoint from the file.
        let store = SqliteStore::open(&path).await.unwrap();
        let memo = AskMemo::default();
        let a = Alignment::new(&store, &memo, &locks);
        let read = a.state(&s).await.unwrap();
        assert!(
            memo.0.lock().unwrap().len() < CHECKPOINT_AFTER,
            "a restart reads only the asks after the checkpoint"
        );
        assert_eq!(read, fold(&a.session_events(&s).await.unwrap()));

        // A fork of the long session inherits its state, and checkpoints its own.
        let child = a
            .record_session(SessionRequest {
                client: "B".into(),
                fork: Some((s.clone(), None)),
                ..Default::default()
            })
            .await
            .unwrap()["session"]["id"]
            .as_str()
            .unwrap()
            .to_string();
        for i in 0..40 {
            let id = format!("c{i}");
            ask(&store, &child, &id, &format!("Child question {i}?")).await;
            answer(&store, &id, "answered", "A").await;
            let read = a.state(&child).await.unwrap();
            assert_eq!(
                read,
                fold(&a.session_events(&child).await.unwrap()),
                "child {i}"
            );
        }
        let st = a.state(&child).await.unwrap();
        assert_eq!(st.origin.as_deref(), Some("fork"));
        assert_eq!(st.rounds, read.rounds + 40);
        assert!(store.alignment_checkpoint(&child).await.unwrap().is_some());
        let fresh = session(&store, "C").await;
        assert_eq!(a.state(&fresh).await.unwrap(), AlignmentState::default());
        store.close().await;
    }

    /// Issue 16, measured (not asserted): the repeat hint and the full state of one session
    /// of `ASKD_FOLD_N` answered asks (default 2,000). Run with `--ignored --nocapture`.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    #[ignore = "a measurement (timings, not asserted): run by hand with --nocapture"]
    async fn fold_timing() {
        let n: usize = std::env::var("ASKD_FOLD_N")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(2000);
        let dir = tempfile::tempdir().unwrap();
        let store = SqliteStore::open(&dir.path().join("askd.db"))
            .await
            .unwrap();
        let s = session(&store, "A").await;
        for i in 0..n {
            let id = format!("a{i}");
            ask(&store, &s, &id, &format!("Question number {i}?")).await;
            answer(&store, &id, "answered", "A").await;
        }
        ask(&store, &s, "last", "Question number 1?").await;
        let last = store.ask("last").await.unwrap().unwrap();
        let (memo, locks) = (AskMemo::default(), Locks::default());
        let a = Alignment::new(&store, &memo, &locks);
        let t = std::time::Instant::now();
        let scratch = fold(&a.session_events(&s).await.unwrap());
        let full = t.elapsed();
        let t = std::time::Instant::now();
        let first = a.repeats(&last, Mode::Auto).await.unwrap();
        let first_read = t.elapsed();
        let cp = store.alignment_checkpoint(&s).await.unwrap();
        eprintln!(
            "checkpoint: {:?}",
            cp.map(|c| (c.last_seq, c.decisions, c.state.to_string().len()))
        );
        let rounds = 20;
        let t = std::time::Instant::now();
        for _ in 0..rounds {
            let r = a.repeats(&last, Mode::Auto).await.unwrap();
            assert_eq!(r, first);
        }
        let hint = t.elapsed() / rounds;
        let t = std::time::Instant::now();
        let st = a.state(&s).await.unwrap();
        let state = t.elapsed();
        assert_eq!(st, scratch);
        eprintln!(
            "n={n}: full replay {full:?}; first read (checkpoint written) {first_read:?}; \
             repeat hint {hint:?}; state {state:?}"
        );
        store.close().await;
    }
}

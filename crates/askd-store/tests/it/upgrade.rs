//! Upgrading a data directory written by an earlier askd: `tests/fixtures/v5.db` is an
//! `askd.db` written by the schema of migration 5 (the askd before issue 16) — sessions;
//! pending, answered, cancelled and superseded asks of the kinds questions, survey, review
//! and drift, with banked entries, autosaves, records, follow events, drafts and settings —
//! checkpointed, without its `-wal`. `v5.json` is everything that askd read back from it.
//! Opening a copy with today's code runs the new migrations in place, and every read gives
//! the same answer.
//!
//! The fixture was produced by `write_v5_fixture` below, run on the askd of migration 5:
//! `ASKD_WRITE_FIXTURE=1 cargo test --locked -p askd-store --test it upgrade::write_v5_fixture -- --ignored`.

use std::path::Path;

use askd_store::{
    ActivePointer, AskFilter, Draft, DraftProgress, DraftSave, FollowEvent, NewAsk, NewBanked,
    NewSession, RecordFilter, Settlement, SqliteStore, Store, Supersede,
};
use askd_store::{AskStore, DraftStore, EventStore, SessionStore, SettingsStore, Upkeep};
use serde_json::{Value, json};

const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures");

fn new_ask(id: &str, session: &str, kind: &str, payload: Value) -> NewAsk {
    NewAsk {
        id: id.into(),
        session_id: session.into(),
        kind: kind.into(),
        title: payload["title"].as_str().map(str::to_string),
        payload_key: format!("key-{}", payload),
        fingerprint: (kind == "survey").then(|| format!("fp-{id}")),
        payload,
        replaces: None,
        seed_banked: vec![],
        seed_autosave: None,
        return_undelivered: true,
        expiry: None,
        approvals: None,
    }
}

fn answered(record_spec: &Value, answers: Value, at: &str) -> Settlement {
    let result = json!({
        "outcome": "answered", "answers": answers, "skipped": [],
        "handling": "Treat the answers as the user's decision: mirror them back in one line before acting on them.", "surface": "page"
    });
    Settlement {
        outcome: "answered".into(),
        settled_at: at.into(),
        record: json!({"v": 1, "outcome": "answered", "spec": record_spec,
                       "answers": result["answers"], "skipped": result["skipped"], "surface": "page"}),
        result,
        expect_banked: None,
        submission: None,
        delivered: false,
    }
}

fn ended(outcome: &str, spec: &Value, at: &str) -> Settlement {
    Settlement {
        outcome: outcome.into(),
        settled_at: at.into(),
        result: json!({"outcome": outcome, "message": format!("the ask was {outcome}")}),
        record: json!({"v": 1, "outcome": outcome, "spec": spec, "autosave": null}),
        expect_banked: None,
        submission: None,
        // As the daemon decides: an agent-ended or superseded ask is delivered as it settles.
        delivered: matches!(outcome, "superseded" | "withdrawn" | "aborted"),
    }
}

/// Everything a store gives back, as one JSON document.
/// An ask (or its summary) without the members added after schema v5, which an upgraded
/// database reads as empty: `claim` (v8, team mode) is `null` for every ask written before.
fn since_v5(mut ask: Value) -> Value {
    let claim = ask.as_object_mut().and_then(|o| o.remove("claim"));
    assert_eq!(
        claim,
        Some(Value::Null),
        "an ask from before claims has none: {ask}"
    );
    ask
}

async fn dump(store: &dyn Store) -> Value {
    let sessions = store.sessions().await.unwrap();
    let summaries = store.asks(&AskFilter::default()).await.unwrap();
    let mut asks = Vec::new();
    for a in &summaries {
        asks.push(since_v5(json!(store.ask(&a.id).await.unwrap().unwrap())));
    }
    let summaries: Vec<Value> = summaries.iter().map(|a| since_v5(json!(a))).collect();
    let mut session_events = serde_json::Map::new();
    let mut drafts_by_session = serde_json::Map::new();
    for s in &sessions {
        session_events.insert(
            s.id.clone(),
            json!(store.session_events(&s.id).await.unwrap()),
        );
        drafts_by_session.insert(
            s.id.clone(),
            json!(store.drafts(Some(&s.id)).await.unwrap()),
        );
    }
    let drafts = store.drafts(None).await.unwrap();
    let mut by_ask = Vec::new();
    for d in &drafts {
        if let Some(id) = &d.ask_id {
            by_ask.push(json!(store.draft_by_ask(id).await.unwrap()));
        }
    }
    json!({
        "sessions": sessions,
        "summaries": summaries,
        "pending": store.asks(&AskFilter { state: Some(askd_store::AskState::Pending), ..Default::default() }).await.unwrap().iter().map(|a| since_v5(json!(a))).collect::<Vec<_>>(),
        "counts": [store.count_asks(None).await.unwrap(), store.count_asks(Some(askd_store::AskState::Pending)).await.unwrap()],
        "asks": asks,
        "records": store.records(&RecordFilter::default()).await.unwrap(),
        "events": store.events_after(0, 10_000).await.unwrap(),
        "last_event": store.last_event().await.unwrap(),
        "session_events": session_events,
        "drafts": drafts,
        "drafts_by_session": drafts_by_session,
        "draft_by_ask": by_ask,
        "active_drafts": store.active_drafts().await.unwrap(),
        "settings": store.settings().await.unwrap(),
    })
}

/// Writes the fixture with the code of the day (run once, on migration 5's askd).
#[tokio::test]
#[ignore = "writes tests/fixtures/v5.db; run by hand on the askd whose schema it captures"]
async fn write_v5_fixture() {
    if std::env::var_os("ASKD_WRITE_FIXTURE").is_none() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("askd.db");
    let store = SqliteStore::open(&path).await.unwrap();
    let open = |id: &str, client: &str, ws: Option<&str>| NewSession {
        id: Some(id.into()),
        client: client.into(),
        workspace: ws.map(str::to_string),
    };
    let s1 = store
        .open_session(open("s1", "claude-code", Some("/work/one")))
        .await
        .unwrap()
        .id;
    let s2 = store
        .open_session(open("s2", "codex", None))
        .await
        .unwrap()
        .id;
    let s3 = store
        .open_session(open("s3", "dsh", Some("/work/three")))
        .await
        .unwrap()
        .id;

    // Questions: answered (delivered), answered undelivered, pending with an autosave, cancelled.
    let q = json!({"questions": [{"id": "q1", "question": "Which database?", "options": [{"label": "SQLite"}, {"label": "PostgreSQL"}], "multiSelect": false}]});
    for (i, outcome) in ["answered", "undelivered", "pending", "cancelled"]
        .iter()
        .enumerate()
    {
        let mut p = q.clone();
        p["questions"][0]["question"] = json!(format!("Which database, take {i}?"));
        let id = format!("q-{i}");
        store
            .create_ask(new_ask(&id, &s1, "questions", p.clone()))
            .await
            .unwrap();
        let at = format!("2026-11-30T10:0{i}:00.000Z");
        match *outcome {
            "answered" | "undelivered" => {
                store
                    .settle(
                        &id,
                        &answered(&p, json!([{"id": "q1", "selected": ["SQLite"]}]), &at),
                    )
                    .await
                    .unwrap();
                if *outcome == "answered" {
                    store.mark_delivered(&id).await.unwrap();
                }
            }
            "cancelled" => {
                store
                    .settle(&id, &ended("cancelled", &p, &at))
                    .await
                    .unwrap();
            }
            _ => {
                store
                    .autosave(&id, &json!({"v": 1, "answers": {"q1": ["PostgreSQL"]}}))
                    .await
                    .unwrap();
                store.set_awaited(&id, false).await.unwrap();
            }
        }
    }

    // Surveys: banked entries, an autosave, a supersession that seeds them, an answer.
    let survey = json!({"title": "Plan", "entry": "q1", "questions": {"q1": {"type": "single", "options": ["a", "b"], "next": "q2"}, "q2": {"type": "text"}}});
    store
        .create_ask(new_ask("sv-1", &s2, "survey", survey.clone()))
        .await
        .unwrap();
    store
        .bank(
            "sv-1",
            &[NewBanked {
                question_id: "q1".into(),
                entry: json!({"id": "q1", "selected": ["a"]}),
            }],
        )
        .await
        .unwrap();
    store
        .autosave("sv-1", &json!({"v": 1, "position": "q2"}))
        .await
        .unwrap();
    store
        .autosave("sv-1", &json!({"v": 1, "position": "q2", "text": "half"}))
        .await
        .unwrap();
    let mut survey2 = survey.clone();
    survey2["title"] = json!("Plan, revised");
    let mut next = new_ask("sv-2", &s2, "survey", survey2.clone());
    next.replaces = Some(Supersede {
        ask_id: "sv-1".into(),
        settlement: ended("superseded", &survey, "2026-11-30T11:00:00.000Z"),
    });
    next.seed_banked = vec![NewBanked {
        question_id: "q1".into(),
        entry: json!({"id": "q1", "selected": ["a"]}),
    }];
    next.seed_autosave = Some(json!({"v": 1, "position": "q2"}));
    store.create_ask(next).await.unwrap();
    store
        .bank(
            "sv-2",
            &[NewBanked {
                question_id: "q2".into(),
                entry: json!({"id": "q2", "text": "done"}),
            }],
        )
        .await
        .unwrap();
    let mut s = answered(
        &survey2,
        json!([{"id": "q1", "selected": ["a"]}, {"id": "q2", "text": "done"}]),
        "2026-11-30T11:05:00.000Z",
    );
    s.result["path"] = json!(["q1", "q2"]);
    s.expect_banked = Some(2);
    store.settle("sv-2", &s).await.unwrap();
    store.mark_delivered("sv-2").await.unwrap();
    // A pending survey with one banked answer.
    store
        .create_ask(new_ask(
            "sv-3",
            &s3,
            "survey",
            json!({"title": "Open", "entry": "q1", "questions": {"q1": {"type": "text"}}}),
        ))
        .await
        .unwrap();
    store
        .bank(
            "sv-3",
            &[NewBanked {
                question_id: "q1".into(),
                entry: json!({"id": "q1", "text": "so far"}),
            }],
        )
        .await
        .unwrap();

    // Reviews: one answered, one pending with an autosave.
    let review = json!({"title": "Review the plan", "items": [{"id": "i1", "type": "confirm", "text": "Ship it?"}, {"id": "i2", "type": "text", "text": "Notes"}]});
    store
        .create_ask(new_ask("rv-1", &s3, "review", review.clone()))
        .await
        .unwrap();
    store
        .autosave(
            "rv-1",
            &json!({"v": 1, "items": {"i1": {"verdict": "yes"}}}),
        )
        .await
        .unwrap();
    store
        .settle(
            "rv-1",
            &answered(
                &review,
                json!({"i1": {"verdict": "yes"}, "i2": {"text": "fine"}}),
                "2026-11-30T12:00:00.000Z",
            ),
        )
        .await
        .unwrap();
    store
        .create_ask(new_ask(
            "rv-2",
            &s3,
            "review",
            json!({"title": "Second", "items": [{"id": "i1", "type": "bool", "text": "Ok?"}]}),
        ))
        .await
        .unwrap();
    store
        .autosave("rv-2", &json!({"v": 1, "items": {}}))
        .await
        .unwrap();

    // Drift cards: one decided with its follow event, one open with its report.
    store
        .append_session_event(
            &s1,
            "alignment.checked",
            json!({"via": "tool", "note": "all clear"}),
        )
        .await
        .unwrap();
    store
        .append_session_event(&s1, "alignment.mode_set", json!({"mode": "strict"}))
        .await
        .unwrap();
    let drift =
        json!({"kind": "scope", "summary": "The plan grew a cache", "evidence": ["file a"]});
    let mut card = new_ask("dr-1", &s1, "drift", drift.clone());
    card.return_undelivered = false;
    store
        .create_ask_with(
            card,
            &[FollowEvent {
                kind: "alignment.drift_reported".into(),
                payload: json!({"card": "dr-1", "report": drift}),
            }],
        )
        .await
        .unwrap();
    let mut decided = answered(
        &drift,
        json!({"action": "accept"}),
        "2026-11-30T12:30:00.000Z",
    );
    decided.result["decision"] = json!("accept");
    store
        .settle_with(
            "dr-1",
            &decided,
            &[FollowEvent {
                kind: "alignment.drift_decided".into(),
                payload: json!({"card": "dr-1", "action": "accept"}),
            }],
        )
        .await
        .unwrap();
    let drift2 = json!({"kind": "constraint", "summary": "A new dependency"});
    let mut card2 = new_ask("dr-2", &s1, "drift", drift2.clone());
    card2.return_undelivered = false;
    store
        .create_ask_with(
            card2,
            &[FollowEvent {
                kind: "alignment.drift_reported".into(),
                payload: json!({"card": "dr-2", "report": drift2}),
            }],
        )
        .await
        .unwrap();

    // Drafts: one launched into a survey, one building (active), one discarded.
    let draft = |slug: &str, session: &str, status: &str| Draft {
        slug: slug.into(),
        session_id: session.into(),
        title: format!("Draft {slug}"),
        status: status.into(),
        file: format!("/work/one/.askd/drafts/{slug}.md"),
        workspace: Some("/work/one".into()),
        created_at: "2026-11-30T09:00:00.000Z".into(),
        updated_at: format!("2026-11-30T09:{:02}:00.000Z", slug.len()),
        revision: 3,
        ready: status != "building",
        progress: DraftProgress {
            questions: 2,
            complete: 1,
            missing_fields: 1,
        },
        grounding: "standard".into(),
        ask_id: None,
    };
    store
        .save_draft(DraftSave {
            draft: draft("plan", &s1, "building"),
            active: ActivePointer::Set(s1.clone()),
            event: Some(json!({"slug": "plan", "status": "building"})),
            expect: None,
        })
        .await
        .unwrap();
    store
        .launch_draft(new_ask("sv-d", &s1, "survey", json!({"title": "From the draft", "entry": "q1", "questions": {"q1": {"type": "text"}}})), draft("plan", &s1, "building"), json!({"slug": "plan"}))
        .await
        .unwrap();
    store
        .save_draft(DraftSave {
            draft: draft("other", &s2, "building"),
            active: ActivePointer::Set(s2.clone()),
            event: Some(json!({"slug": "other", "status": "building"})),
            expect: None,
        })
        .await
        .unwrap();
    store
        .save_draft(DraftSave {
            draft: draft("gone", &s3, "discarded"),
            active: ActivePointer::ClearAll,
            event: None,
            expect: None,
        })
        .await
        .unwrap();

    // Settings.
    let mut set = serde_json::Map::new();
    set.insert("maxItems".into(), json!(400));
    set.insert("virtualThreshold".into(), json!(50));
    store.save_settings(&set, &[]).await.unwrap();
    store
        .save_settings(&serde_json::Map::new(), &["virtualThreshold".to_string()])
        .await
        .unwrap();

    let snapshot = dump(&store).await;
    store.checkpoint().await.unwrap();
    store.close().await;
    std::fs::copy(&path, Path::new(FIXTURES).join("v5.db")).unwrap();
    std::fs::write(
        Path::new(FIXTURES).join("v5.json"),
        serde_json::to_string_pretty(&snapshot).unwrap() + "\n",
    )
    .unwrap();
}

/// A copy of the fixture opened with today's code: migrated in place, read back unchanged,
/// and still writable.
#[tokio::test]
async fn a_v5_database_migrates_in_place_and_reads_back_unchanged() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("askd.db");
    std::fs::copy(Path::new(FIXTURES).join("v5.db"), &path).unwrap();
    let expected: Value = serde_json::from_str(
        &std::fs::read_to_string(Path::new(FIXTURES).join("v5.json")).unwrap(),
    )
    .unwrap();
    let store = SqliteStore::open(&path).await.unwrap();
    assert_eq!(
        store.pragmas().await.unwrap().user_version,
        SqliteStore::SCHEMA_VERSION,
        "every migration ran"
    );
    let got = dump(&store).await;
    for (key, want) in expected.as_object().unwrap() {
        assert_eq!(&got[key], want, "{key} reads back unchanged");
    }
    store.close().await;
    // The upgrade rewrote no history (it is instant at any size): the rows written before
    // migration 6 keep their copies, and read back unchanged above.
    {
        use sqlx::Connection;
        let mut conn = sqlx::SqliteConnection::connect(&format!("sqlite://{}", path.display()))
            .await
            .unwrap();
        let count = |sql: &'static str| sqlx::query_scalar::<_, i64>(sql);
        for sql in [
            "SELECT COUNT(*) FROM records WHERE shared != 0",
            "SELECT COUNT(*) FROM events WHERE shared != 0",
            "SELECT COUNT(*) FROM asks WHERE result_texts IS NOT NULL",
            "SELECT COUNT(*) FROM texts",
        ] {
            assert_eq!(count(sql).fetch_one(&mut conn).await.unwrap(), 0, "{sql}");
        }
        conn.close().await.unwrap();
    }
    let store = SqliteStore::open(&path).await.unwrap();
    assert_eq!(dump(&store).await, got, "the same after reopening");
    // Still a working store: a new ask settles beside the migrated ones.
    store
        .create_ask(new_ask(
            "q-new",
            "s2",
            "questions",
            json!({"questions": []}),
        ))
        .await
        .unwrap();
    store
        .settle(
            "q-new",
            &answered(
                &json!({"questions": []}),
                json!([]),
                "2026-12-01T00:00:00.000Z",
            ),
        )
        .await
        .unwrap();
    assert_eq!(
        store.records(&RecordFilter::default()).await.unwrap().len(),
        expected["records"].as_array().unwrap().len() + 1
    );
    store.close().await;
    // Reopening runs nothing again.
    let store = SqliteStore::open(&path).await.unwrap();
    assert_eq!(
        store.pragmas().await.unwrap().user_version,
        SqliteStore::SCHEMA_VERSION
    );
    let again = dump(&store).await;
    assert_eq!(
        again["asks"].as_array().unwrap().len(),
        expected["asks"].as_array().unwrap().len() + 1
    );
    store.close().await;
}

/// How long migration 6 takes on a larger database of migration 5: `n` settled asks, each
/// with its record and its two events, written with SQL.
/// `cargo test --locked -p askd-store --test it upgrade::migration_time -- --ignored --nocapture`
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "a measurement: run by hand with --nocapture"]
async fn migration_time() {
    use sqlx::Connection;
    for n in [1_000usize, 20_000] {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("askd.db");
        let mut conn = crate::common::sqlite_at_migration(&path, 5).await;
        let sql = format!(
            "PRAGMA user_version = 5;
             BEGIN;
             INSERT INTO sessions VALUES ('s1', 'c', '/w', '2026-11-01T00:00:00.000Z');
             WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < {last})
             INSERT INTO asks (id, session_id, kind, title, state, outcome, payload, payload_key,
                               created_at, settled_at, result, delivered_at)
                 SELECT printf('a%08d', i), 's1', 'questions', 'Ship?', 'settled', 'answered',
                        '{{\"questions\":[{{\"id\":\"q1\",\"question\":\"Ship?\"}}]}}', printf('k%d', i),
                        '2026-11-01T00:00:00.000Z', '2026-11-01T00:00:01.000Z',
                        '{{\"outcome\":\"answered\",\"answers\":[{{\"id\":\"q1\",\"selected\":[\"Yes\"]}}],\"skipped\":[],\"handling\":\"Open your next turn by mirroring the user''s choices back in one line.\"}}',
                        '2026-11-01T00:00:02.000Z'
                 FROM n;
             INSERT INTO records (ask_id, session_id, kind, outcome, created_at, settled_at, record)
                 SELECT id, 's1', 'questions', 'answered', created_at, settled_at,
                        json_object('v', 1, 'askId', id, 'kind', 'questions', 'session', 's1',
                                    'outcome', 'answered', 'spec', json(payload),
                                    'answers', json_extract(result, '$.answers'),
                                    'skipped', json_extract(result, '$.skipped'))
                 FROM asks;
             INSERT INTO events (kind, ask_id, payload, created_at, session_id)
                 SELECT 'ask.created', id, json_object('ask_id', id, 'kind', 'questions',
                        'session', 's1', 'createdAt', created_at, 'title', title), created_at, 's1'
                 FROM asks;
             INSERT INTO events (kind, ask_id, payload, created_at, session_id)
                 SELECT 'ask.settled', id, json_object('ask_id', id, 'kind', 'questions',
                        'session', 's1', 'outcome', 'answered', 'settledAt', settled_at,
                        'answers', json_extract(result, '$.answers'),
                        'skipped', json_extract(result, '$.skipped')), settled_at, 's1'
                 FROM asks;
             COMMIT;",
            last = n - 1
        );
        sqlx::raw_sql(sqlx::AssertSqlSafe(sql))
            .execute(&mut conn)
            .await
            .unwrap();
        conn.close().await.unwrap();
        let before = std::fs::metadata(&path).unwrap().len();
        let t = std::time::Instant::now();
        let store = SqliteStore::open(&path).await.unwrap();
        let took = t.elapsed();
        let records = store.records(&RecordFilter::default()).await.unwrap();
        assert_eq!(records.len(), n);
        assert_eq!(records[0].record["spec"]["questions"][0]["id"], "q1");
        store.close().await;
        println!(
            "{n:>6} settled asks of migration 5 ({before} bytes): migration 6 in {:.2} s",
            took.as_secs_f64()
        );
    }
}

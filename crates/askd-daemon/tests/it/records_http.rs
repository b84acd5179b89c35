//! `GET /api/records` as the Records page uses it: filters by kind, session, date and text,
//! pages of `limit` with a `next` cursor, and clear refusals of a malformed argument.

use serde_json::{Value, json};

use crate::common::*;

/// Creates and answers a questions ask whose question is `text`; returns its id.
async fn answered(s: &TestServer, session: &str, text: &str, pick: &str) -> String {
    let args = json!({"questions": [{"id": "q", "question": text,
        "options": [{"label": "SQLite"}, {"label": "PostgreSQL"}]}]});
    let id = s
        .create("questions", Some(session), &args)
        .await
        .expect(201)["ask_id"]
        .as_str()
        .unwrap()
        .to_string();
    let r = s
        .action(
            &id,
            "submit",
            &json!({"answers": [{"id": "q", "selected": [pick]}]}),
        )
        .await;
    r.expect(200);
    id
}

fn ids(v: &Value) -> Vec<String> {
    v["records"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["ask_id"].as_str().unwrap().to_string())
        .collect()
}

#[tokio::test]
async fn records_filter_by_kind_session_date_and_text_and_page_with_a_cursor() {
    let s = TestServer::start().await;
    let s1 = s.session("claude-code", Some("/w/one")).await;
    let s2 = s.session("codex", Some("/w/two")).await;
    let mut all = Vec::new();
    for i in 0..5 {
        let session = if i % 2 == 0 { &s1 } else { &s2 };
        let pick = if i == 3 { "PostgreSQL" } else { "SQLite" };
        all.push(answered(&s, session, &format!("Which database {i}?"), pick).await);
    }
    let survey = s.survey(Some(&s1)).await;
    s.action(&survey, "cancel", &json!({})).await.expect(200);
    all.push(survey.clone());
    all.reverse(); // newest first

    let every = s.get("/api/records").await;
    assert_eq!(ids(every.expect(200)), all);
    assert_eq!(every.expect(200)["next"], Value::Null);

    // Kind and session.
    let q = s.get("/api/records?kind=questions").await;
    assert_eq!(ids(q.expect(200)), all[1..].to_vec());
    let one = s
        .get(&format!("/api/records?session={s1}&kind=questions"))
        .await;
    assert_eq!(
        ids(one.expect(200)),
        vec![all[1].clone(), all[3].clone(), all[5].clone()]
    );

    // Text: the answer ("PostgreSQL", only ask 3 picked it) and the question, any case.
    let pg = s.get("/api/records?q=postgresql").await;
    let pg = pg.expect(200)["records"].as_array().unwrap().clone();
    let picked: Vec<&str> = pg
        .iter()
        .filter(|r| r["record"]["answers"][0]["selected"][0] == "PostgreSQL")
        .map(|r| r["ask_id"].as_str().unwrap())
        .collect();
    assert_eq!(picked, [all[2].as_str()], "{pg:?}");
    let four = s.get("/api/records?q=WHICH%20DATABASE%204").await;
    assert_eq!(ids(four.expect(200)), vec![all[1].clone()]);
    let none = s.get("/api/records?q=no-such-text").await;
    assert_eq!(ids(none.expect(200)), Vec::<String>::new());
    // `%` and `_` are text, not patterns ("%q" unescaped would match every "question").
    for q in ["%25q", "_uestion"] {
        let r = s.get(&format!("/api/records?q={q}")).await;
        assert_eq!(ids(r.expect(200)), Vec::<String>::new(), "{q}");
    }

    // Dates: everything was settled today (UTC); nothing before, nothing from tomorrow on.
    let today = chrono::Utc::now().date_naive();
    let tomorrow = today.succ_opt().unwrap();
    let r = s
        .get(&format!("/api/records?since={today}&until={tomorrow}"))
        .await;
    assert_eq!(ids(r.expect(200)).len(), 6);
    let r = s.get(&format!("/api/records?since={tomorrow}")).await;
    assert_eq!(ids(r.expect(200)).len(), 0);
    let r = s.get(&format!("/api/records?until={today}")).await;
    assert_eq!(ids(r.expect(200)).len(), 0);
    // An RFC 3339 time in another zone is the same instant in UTC.
    let r = s
        .get(&format!("/api/records?since={today}T00:00:00%2B14:00"))
        .await;
    assert_eq!(ids(r.expect(200)).len(), 6);

    // Pages of two, each `next` the cursor of the following one, `null` on the last.
    let mut seen = Vec::new();
    let mut after: Option<String> = None;
    for page in 0..3 {
        let path = match &after {
            Some(a) => format!("/api/records?limit=2&after={a}"),
            None => "/api/records?limit=2".to_string(),
        };
        let r = s.get(&path).await;
        let b = r.expect(200);
        let got = ids(b);
        assert_eq!(got.len(), 2, "page {page}");
        seen.extend(got);
        after = b["next"].as_str().map(str::to_string);
        assert_eq!(after.is_none(), page == 2, "page {page}: {b}");
    }
    assert_eq!(seen, all);
    // A cursor with filters: the session's questions after the first one.
    let r = s
        .get(&format!(
            "/api/records?session={s1}&kind=questions&limit=1&after={}",
            all[1]
        ))
        .await;
    assert_eq!(ids(r.expect(200)), vec![all[3].clone()]);
    assert_eq!(r.expect(200)["next"], json!(all[3]));
}

#[tokio::test]
async fn malformed_record_filters_are_refused_naming_the_field() {
    let s = TestServer::start().await;
    for (path, field, code) in [
        ("/api/records?since=yesterday", "since", "time_invalid"),
        ("/api/records?until=2026-13-01", "until", "time_invalid"),
        ("/api/records?limit=0", "limit", "limit_range"),
        ("/api/records?limit=501", "limit", "limit_range"),
    ] {
        let r = s.get(path).await;
        let b = r.expect(422);
        assert_eq!(r.error_codes(), [code], "{path}");
        assert_eq!(b["errors"][0]["path"], field, "{path}");
        let message = b["errors"][0]["message"].as_str().unwrap();
        assert!(message.starts_with(field), "{path}: {message}");
    }
}

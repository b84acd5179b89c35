//! Answering in the client (`clients.md` §3, issue 15): an `ask_user_question` call from a
//! client that declared form elicitation is also put in front of the human as a form
//! (`elicitation/create`), racing the page. Driven through the real adapter (`askd mcp` as
//! a child process of an rmcp client whose elicitation handler answers as each test says)
//! and the real daemon's HTTP API as the page.

use crate::common_mcp;

use std::time::{Duration, Instant};

use common_mcp::*;
use rmcp::model::{ElicitResult, ElicitationAction};
use serde_json::{Value, json};

fn three_questions() -> Value {
    json!({"questions": [
        {"id": "db", "header": "Database", "question": "Which database should we use?",
         "options": [
            {"label": "Postgres (Recommended)", "description": "The team already runs it"},
            {"label": "SQLite"}
         ]},
        {"id": "langs", "question": "Which languages may the service use?", "multi_select": true,
         "options": [{"label": "Rust"}, {"label": "Go"}, {"label": "Python"}]},
        {"id": "note", "question": "Anything else we should know?"}
    ]})
}

fn reply(action: ElicitationAction, content: Option<Value>) -> ElicitResult {
    let mut r = ElicitResult::new(action);
    r.content = content;
    r
}

async fn next_form(forms: &mut tokio::sync::mpsc::UnboundedReceiver<Form>) -> Form {
    tokio::time::timeout(Duration::from_secs(20), forms.recv())
        .await
        .expect("a form arrived within 20 s")
        .expect("the client is still running")
}

/// The one ask of this install, once it exists.
async fn only_ask(api: &Api) -> Value {
    let a = api.new_ask(&[]).await;
    api.ask(a["id"].as_str().unwrap()).await
}

async fn inbox_state(api: &Api, id: &str) -> Value {
    api.asks()
        .await
        .into_iter()
        .find(|a| a["id"] == id)
        .unwrap_or_else(|| panic!("ask {id} is not in the inbox"))["state"]
        .clone()
}

/// Done when: answered in the client's form, the agent gets the normal result with
/// `surface: "client-form"`; the inbox showed the ask meanwhile and shows it settled after.
/// The form is the flat mapping of §3: single choice as `oneOf` of `{const, title}` with the
/// descriptions in the field description, multi-select as an array of enums, an optional
/// "Other" text field, and a message with the questions' text and the page URL.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn elicitation_form_answer_settles_with_surface_client_form() {
    let home = Home::new();
    let (a, mut forms) = home.eliciting_adapter("form-client", &[]).await;
    let call = a.start_call("ask_user_question", three_questions()).await;
    let form = next_form(&mut forms).await;
    let api = home.api();
    // The inbox shows the ask while the form is open.
    let ask = only_ask(&api).await;
    let id = ask["ask_id"].as_str().unwrap().to_string();
    assert_eq!(inbox_state(&api, &id).await, "pending");

    let p = &form.params;
    assert_eq!(p["mode"], "form", "{p}");
    let message = p["message"].as_str().unwrap();
    for text in [
        "[Database] Which database should we use?",
        "Which languages may the service use?",
        "Anything else we should know?",
        ask["url"].as_str().unwrap(),
    ] {
        assert!(message.contains(text), "{text:?} missing from {message}");
    }
    let schema = &p["requestedSchema"];
    assert_eq!(
        keys(&schema["properties"]),
        ["db", "db_other", "langs", "langs_other", "note"],
        "{schema}"
    );
    let db = &schema["properties"]["db"];
    assert_eq!(db["type"], "string");
    assert_eq!(
        db["oneOf"],
        json!([{"const": "Postgres (Recommended)", "title": "Postgres (Recommended)"},
               {"const": "SQLite", "title": "SQLite"}])
    );
    assert!(
        db["description"]
            .as_str()
            .unwrap()
            .contains("The team already runs it"),
        "{db}"
    );
    let langs = &schema["properties"]["langs"];
    assert_eq!(langs["type"], "array");
    assert_eq!(langs["items"]["anyOf"].as_array().unwrap().len(), 3);
    assert_eq!(schema["properties"]["note"]["type"], "string");
    assert!(
        schema.get("required").is_none(),
        "every question may be skipped"
    );

    form.reply
        .send(reply(
            ElicitationAction::Accept,
            Some(
                json!({"db": "Postgres (Recommended)", "langs": ["Rust", "Go"],
                        "note": "  keep it small  "}),
            ),
        ))
        .unwrap();
    let r = finish(call).await;
    let sc = structured(&r);
    assert_eq!(sc["outcome"], "answered", "{sc}");
    assert_eq!(sc["surface"], "client-form", "{sc}");
    assert_eq!(
        sc["answers"],
        json!([
            {"id": "db", "selected": ["Postgres (Recommended)"]},
            {"id": "langs", "selected": ["Rust", "Go"]},
            {"id": "note", "selected": [], "custom": "keep it small"}
        ])
    );
    // Settled once, in the store: the inbox and the ask's page agree.
    assert_eq!(inbox_state(&api, &id).await, "settled");
    let stored = api.ask(&id).await;
    assert_eq!(stored["outcome"], "answered");
    assert_eq!(stored["result"]["surface"], "client-form");
}

/// Decline: the human said no — the ask settles cancelled, the normal cancelled result.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn elicitation_decline_settles_cancelled() {
    let home = Home::new();
    let (a, mut forms) = home.eliciting_adapter("form-client", &[]).await;
    let call = a.start_call("ask_user_question", questions(1)).await;
    let form = next_form(&mut forms).await;
    // A human reads the form before declining it.
    tokio::time::sleep(Duration::from_millis(1300)).await;
    form.reply
        .send(reply(ElicitationAction::Decline, None))
        .unwrap();
    let r = finish(call).await;
    assert_eq!(r["isError"], true, "{r}");
    let e = &r["structuredContent"]["error"];
    let api = home.api();
    let id = e["ask_id"].as_str().expect("the error names the ask");
    let stored = api.ask(id).await;
    assert_eq!(stored["state"], "settled", "{stored}");
    assert_eq!(stored["outcome"], "cancelled", "{stored}");
    assert_eq!(stored["result"]["error"], *e);
}

/// A decline at once (a client that declares form elicitation but declines every form
/// unseen, as `codex exec` does) is not the human's no: the ask stays pending and the page
/// answers it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn elicitation_instant_decline_leaves_the_ask_to_the_page() {
    let home = Home::new();
    let (a, mut forms) = home.eliciting_adapter("form-client", &[]).await;
    let call = a.start_call("ask_user_question", questions(8)).await;
    let form = next_form(&mut forms).await;
    form.reply
        .send(reply(ElicitationAction::Decline, None))
        .unwrap();
    let api = home.api();
    let id = api.new_ask(&[]).await["id"].as_str().unwrap().to_string();
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(api.ask(&id).await["state"], "pending");
    api.submit(&id, json!({"answers": [{"id": "q", "selected": ["No"]}]}))
        .await;
    let sc = structured(&finish(call).await);
    assert_eq!(sc["outcome"], "answered", "{sc}");
    assert_eq!(sc["surface"], "page", "{sc}");
}

/// Cancel (the form dismissed): the ask stays pending in the inbox and the call keeps
/// waiting — no answer invented; answered in the page later, the call returns that answer.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn elicitation_cancel_keeps_the_ask_pending_then_the_page_answers() {
    let home = Home::new();
    let (a, mut forms) = home.eliciting_adapter("form-client", &[]).await;
    let call = a.start_call("ask_user_question", questions(2)).await;
    let form = next_form(&mut forms).await;
    form.reply
        .send(reply(ElicitationAction::Cancel, None))
        .unwrap();
    let api = home.api();
    let id = api.new_ask(&[]).await["id"].as_str().unwrap().to_string();
    // Still pending and still awaited a while after the dismissal.
    tokio::time::sleep(Duration::from_millis(600)).await;
    let ask = api.ask(&id).await;
    assert_eq!(ask["state"], "pending", "{ask}");
    assert_eq!(ask["awaited"], true, "{ask}");
    api.submit(&id, json!({"answers": [{"id": "q", "selected": ["No"]}]}))
        .await;
    let sc = structured(&finish(call).await);
    assert_eq!(sc["outcome"], "answered", "{sc}");
    assert_eq!(sc["surface"], "page", "{sc}");
    assert_eq!(sc["answers"], json!([{"id": "q", "selected": ["No"]}]));
}

/// The race: answered in the page while the form is open, the call returns the page's
/// answer at once and the form request is withdrawn (`notifications/cancelled`).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn elicitation_page_answer_withdraws_the_open_form() {
    let home = Home::new();
    let (a, mut forms) = home.eliciting_adapter("form-client", &[]).await;
    let call = a.start_call("ask_user_question", questions(3)).await;
    let form = next_form(&mut forms).await;
    let api = home.api();
    let id = api.new_ask(&[]).await["id"].as_str().unwrap().to_string();
    let started = Instant::now();
    api.submit(
        &id,
        json!({"answers": [{"id": "q", "selected": ["Yes (Recommended)"]}]}),
    )
    .await;
    let sc = structured(&finish(call).await);
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "returned at once"
    );
    assert_eq!(sc["outcome"], "answered", "{sc}");
    assert_eq!(sc["surface"], "page", "{sc}");
    form.withdrawn_within(10).await;
    // A late form answer changes nothing: the ask was settled once, by the page.
    let _ = form
        .reply
        .send(reply(ElicitationAction::Accept, Some(json!({"q": "No"}))));
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert_eq!(api.ask(&id).await["result"]["surface"], "page");
}

/// A form answer the daemon refuses (422: one option and custom text on a single-select
/// question) is never settled: the form is asked again with the daemon's message, and the
/// corrected answer settles the ask.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn elicitation_refused_form_answer_is_asked_again() {
    let home = Home::new();
    let (a, mut forms) = home.eliciting_adapter("form-client", &[]).await;
    let call = a.start_call("ask_user_question", questions(4)).await;
    let first = next_form(&mut forms).await;
    first
        .reply
        .send(reply(
            ElicitationAction::Accept,
            Some(json!({"q": "No", "q_other": "maybe later"})),
        ))
        .unwrap();
    let second = next_form(&mut forms).await;
    let message = second.params["message"].as_str().unwrap();
    assert!(
        message.starts_with("Your last answer was not accepted:"),
        "{message}"
    );
    assert!(
        message.contains("either one label or the custom text"),
        "{message}"
    );
    let api = home.api();
    let id = api.new_ask(&[]).await["id"].as_str().unwrap().to_string();
    assert_eq!(api.ask(&id).await["state"], "pending");
    second
        .reply
        .send(reply(
            ElicitationAction::Accept,
            Some(json!({"q_other": "maybe later"})),
        ))
        .unwrap();
    let sc = structured(&finish(call).await);
    assert_eq!(sc["surface"], "client-form", "{sc}");
    assert_eq!(
        sc["answers"],
        json!([{"id": "q", "selected": [], "custom": "maybe later"}])
    );
}

/// A client without the capability gets exactly today's behaviour (no form, the page
/// answers); so does a client with it when `elicitation = "off"`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn elicitation_without_capability_or_when_off_is_todays_behaviour() {
    let home = Home::new();
    let plain = home.adapter("plain-client", &[]).await;
    let call = plain.start_call("ask_user_question", questions(5)).await;
    let api = home.api();
    let id = api.new_ask(&[]).await["id"].as_str().unwrap().to_string();
    api.submit(&id, json!({"answers": [{"id": "q", "selected": ["No"]}]}))
        .await;
    let sc = structured(&finish(call).await);
    assert_eq!(sc["outcome"], "answered", "{sc}");
    assert_eq!(sc["surface"], "page", "{sc}");

    let (a, mut forms) = home
        .eliciting_adapter("form-client", &[("ASKD_ELICITATION", "off")])
        .await;
    let call = a.start_call("ask_user_question", questions(6)).await;
    let id2 = api.new_ask(std::slice::from_ref(&id)).await["id"]
        .as_str()
        .unwrap()
        .to_string();
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert!(forms.try_recv().is_err(), "no form with elicitation = off");
    api.submit(&id2, json!({"answers": [{"id": "q", "selected": ["No"]}]}))
        .await;
    let sc = structured(&finish(call).await);
    assert_eq!(sc["surface"], "page", "{sc}");
    assert!(forms.try_recv().is_err(), "no form with elicitation = off");
}

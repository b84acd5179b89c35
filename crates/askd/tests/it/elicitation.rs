//! Answering in the client (`clients.md` §3, issue 15): an `ask_user_question` call from a
//! client that declared form elicitation is also put in front of the human as a form
//! (`elicitation/create`), racing the page. Driven through the real adapter (`askd mcp` as
//! a child process of an rmcp client whose elicitation handler answers as each test says)
//! and the real daemon's HTTP API as the page.

use crate::common_mcp;

use std::time::{Duration, Instant};

use common_mcp::*;
use rmcp::model::{CallToolRequestParams, ElicitResult, ElicitationAction};
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

/// A drift card in the client: the card's decisions as one choice (its own labels, the
/// agent's options by label), the typed direction and the note; the decision settles the
/// card with `surface: "client-form"` and the session's log has it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn elicitation_drift_card_is_decided_in_the_form() {
    let home = Home::new();
    let (a, mut forms) = home.eliciting_adapter("form-client", &[]).await;
    let call = a
        .start_call(
            "report_drift",
            json!({"reason": "scope-expansion", "description": "The export needs a PDF renderer",
                   "options": [{"label": "Skip PDF", "description": "CSV only for now"},
                               {"label": "Add a renderer"}]}),
        )
        .await;
    let form = next_form(&mut forms).await;
    let p = &form.params;
    let message = p["message"].as_str().unwrap();
    assert!(
        message.contains("[Scope expansion] The export needs a PDF renderer"),
        "{message}"
    );
    let api = home.api();
    let ask = only_ask(&api).await;
    assert!(message.contains(ask["url"].as_str().unwrap()), "{message}");
    let decision = &p["requestedSchema"]["properties"]["decision"];
    assert_eq!(
        decision["oneOf"],
        json!([{"const": "approve", "title": "Approve this change"},
               {"const": "reject", "title": "Keep the current baseline"},
               {"const": "option:0", "title": "Skip PDF"},
               {"const": "option:1", "title": "Add a renderer"},
               {"const": "other", "title": "Another direction…"}]),
        "{decision}"
    );
    assert!(
        decision["description"]
            .as_str()
            .unwrap()
            .contains("CSV only for now")
    );
    tokio::time::sleep(Duration::from_millis(50)).await;
    form.reply
        .send(reply(
            ElicitationAction::Accept,
            Some(json!({"decision": "option:0", "note": " later maybe "})),
        ))
        .unwrap();
    let sc = structured(&finish(call).await);
    assert_eq!(sc["outcome"], "decided", "{sc}");
    assert_eq!(sc["surface"], "client-form", "{sc}");
    assert_eq!(sc["decision"], "revise", "{sc}");
    assert_eq!(sc["choice"], "Skip PDF", "{sc}");
    assert_eq!(sc["note"], "later maybe", "{sc}");
    let id = ask["ask_id"].as_str().unwrap();
    assert_eq!(inbox_state(&api, id).await, "settled");
}

fn review(items: usize) -> Value {
    let mut list = vec![
        json!({"id": "build", "title": "Run cargo build --release"}),
        json!({"id": "tag", "type": "bool", "title": "Tag the release today", "boolDesc": "Yes means tag now"}),
        json!({"id": "channel", "type": "choice", "title": "Release channel",
               "options": [{"v": "stable", "t": "Stable"}, {"v": "beta", "t": "Beta"}]}),
        json!({"id": "conf", "type": "scale", "title": "Confidence", "min": 1, "max": 5}),
        json!({"id": "why", "type": "text", "title": "Anything to add?"}),
    ];
    let mut i = 0;
    while list.len() < items {
        i += 1;
        list.push(json!({"id": format!("c{i}"), "title": format!("Check {i}")}));
    }
    list.truncate(items);
    json!({"title": "Release checklist", "items": list})
}

/// A review of at most 10 items is one form: a verdict field per item (the labels of its
/// type), an optional note beside each, the item's own text for a text item; the answer
/// settles the review with `surface: "client-form"`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn elicitation_small_review_is_answered_in_one_form() {
    let home = Home::new();
    let (a, mut forms) = home.eliciting_adapter("form-client", &[]).await;
    let call = a.start_call("batch_review", review(5)).await;
    let form = next_form(&mut forms).await;
    let p = &form.params;
    assert_eq!(p["mode"], "form", "{p}");
    assert!(p["message"].as_str().unwrap().contains("Release checklist"));
    let props = &p["requestedSchema"]["properties"];
    assert_eq!(
        keys(props),
        [
            "i01", "i01_note", "i02", "i02_note", "i03", "i03_note", "i04", "i04_note", "i05"
        ],
        "{props}"
    );
    assert_eq!(props["i01"]["title"], "1. Run cargo build --release");
    assert_eq!(
        props["i01"]["oneOf"],
        json!([{"const": "pass", "title": "Pass"}, {"const": "fail", "title": "Fail"},
               {"const": "pending", "title": "Pending"}])
    );
    assert_eq!(
        props["i02"]["oneOf"][0],
        json!({"const": "yes", "title": "Yes"})
    );
    assert_eq!(
        props["i03"]["oneOf"][1],
        json!({"const": "beta", "title": "Beta"})
    );
    assert_eq!(props["i04"]["type"], "integer");
    assert_eq!(props["i04"]["maximum"], 5);
    assert_eq!(props["i05"]["type"], "string");
    tokio::time::sleep(Duration::from_millis(50)).await;
    form.reply
        .send(reply(
            ElicitationAction::Accept,
            Some(
                json!({"i01": "fail", "i01_note": "flaky", "i02": "yes", "i03": "beta",
                        "i04": 4, "i05": "ship it"}),
            ),
        ))
        .unwrap();
    let r = finish(call).await;
    let sc = &r["structuredContent"];
    assert_eq!(sc["outcome"], "answered", "{r}");
    assert_eq!(sc["surface"], "client-form", "{sc}");
    let items = sc["items"].as_array().unwrap();
    let verdicts: Vec<(&str, &str)> = items
        .iter()
        .map(|i| (i["verdict"].as_str().unwrap(), i["note"].as_str().unwrap()))
        .collect();
    assert_eq!(
        verdicts,
        [
            ("fail", "flaky"),
            ("yes", ""),
            ("beta", ""),
            ("4", ""),
            ("", "ship it")
        ]
    );
}

/// Everything no form fits goes to URL elicitation in `auto` when the client declares URL
/// mode: a review of 11 items, a survey. The request names the ask's page, tokenised for a
/// browser on this machine (the tokenised URL opens the page); accepting it only opens the
/// page — the ask stays pending until the page answers.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn elicitation_url_mode_for_what_no_form_fits() {
    let home = Home::new();
    let (a, mut forms) = home
        .eliciting_adapter_as("url-client", &[], json!({"form": {}, "url": {}}), false)
        .await;
    let call = a.start_call("batch_review", review(11)).await;
    let form = next_form(&mut forms).await;
    let p = &form.params;
    assert_eq!(p["mode"], "url", "{p}");
    let api = home.api();
    let ask = only_ask(&api).await;
    let id = ask["ask_id"].as_str().unwrap().to_string();
    let url = p["url"].as_str().unwrap();
    assert_eq!(
        url,
        format!(
            "{}?token={}",
            ask["url"].as_str().unwrap(),
            api.daemon.token
        )
    );
    assert_eq!(p["elicitationId"], id.as_str());
    assert!(
        p["message"].as_str().unwrap().contains("Release checklist"),
        "{p}"
    );
    // The tokenised URL opens the page in a browser without any other credential.
    let page = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap()
        .get(url)
        .send()
        .await
        .unwrap();
    assert!(page.status().is_redirection(), "{}", page.status());
    assert!(page.headers().get("set-cookie").is_some());
    form.reply
        .send(reply(ElicitationAction::Accept, None))
        .unwrap();
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(api.ask(&id).await["state"], "pending");
    api.submit(
        &id,
        json!({"answers": [{"id": "build", "verdict": "pass"}], "surface": "panel"}),
    )
    .await;
    let r = finish(call).await;
    assert_eq!(r["structuredContent"]["surface"], "panel", "{r}");

    // A client with URL mode only gets the URL for a questions ask too; `form` never sends
    // a URL.
    let (b, mut url_only) = home
        .eliciting_adapter_as("url-only", &[], json!({"url": {}}), false)
        .await;
    let call = b.start_call("ask_user_question", questions(9)).await;
    let f = next_form(&mut url_only).await;
    assert_eq!(f.params["mode"], "url", "{}", f.params);
    let known: Vec<String> = api
        .asks()
        .await
        .iter()
        .map(|a| a["id"].as_str().unwrap().to_string())
        .collect();
    let q = api
        .asks()
        .await
        .into_iter()
        .find(|a| a["state"] == "pending")
        .unwrap();
    api.submit(
        q["id"].as_str().unwrap(),
        json!({"answers": [{"id": "q", "selected": ["No"]}]}),
    )
    .await;
    f.withdrawn_within(10).await;
    assert_eq!(structured(&finish(call).await)["surface"], "page");
    let (c, mut none) = home
        .eliciting_adapter_as(
            "url-only",
            &[("ASKD_ELICITATION", "form")],
            json!({"url": {}}),
            false,
        )
        .await;
    let call = c.start_call("ask_user_question", questions(10)).await;
    let n = api.new_ask(&known_plus(&api, &known).await).await;
    tokio::time::sleep(Duration::from_millis(400)).await;
    assert!(none.try_recv().is_err(), "elicitation = form sends no URL");
    api.submit(
        n["id"].as_str().unwrap(),
        json!({"answers": [{"id": "q", "selected": ["No"]}]}),
    )
    .await;
    assert_eq!(structured(&finish(call).await)["surface"], "page");
}

async fn known_plus(api: &Api, known: &[String]) -> Vec<String> {
    let mut all: Vec<String> = api
        .asks()
        .await
        .iter()
        .filter(|a| a["state"] != "pending")
        .map(|a| a["id"].as_str().unwrap().to_string())
        .collect();
    all.extend(known.iter().cloned());
    all
}

/// `tools/call` through rmcp's high-level `call_tool`, which drives the 2026-07-28 rounds.
async fn call_2026(a: &Adapter, name: &str, args: Value) -> Value {
    let params = CallToolRequestParams::new(name.to_string()).with_arguments(object(args));
    let r = a.service.call_tool(params).await.expect("tools/call");
    serde_json::to_value(r).unwrap()
}

/// 2026-07-28 (no `initialize`, capabilities per request): the form is the `input_required`
/// round trip. rmcp's client fulfils `inputRequests` through its form handler and retries
/// with `inputResponses` + `requestState`; the retry submits the answer and returns the
/// normal result with `surface: "client-form"`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn elicitation_2026_input_required_round_trip_answers() {
    let home = Home::new();
    let (a, mut forms) = home
        .eliciting_adapter_as("claude-code", &[], json!({"form": {}, "url": {}}), true)
        .await;
    let body = async {
        let form = next_form(&mut forms).await;
        assert_eq!(form.params["mode"], "form", "{}", form.params);
        let api = home.api();
        let ask = only_ask(&api).await;
        assert_eq!(ask["state"], "pending");
        assert_eq!(ask["client"], "claude-code");
        tokio::time::sleep(Duration::from_millis(50)).await;
        form.reply
            .send(reply(
                ElicitationAction::Accept,
                Some(json!({"db": "SQLite"})),
            ))
            .unwrap();
        ask["ask_id"].as_str().unwrap().to_string()
    };
    let (r, id) = tokio::join!(call_2026(&a, "ask_user_question", three_questions()), body);
    let sc = structured(&r);
    assert_eq!(sc["outcome"], "answered", "{sc}");
    assert_eq!(sc["surface"], "client-form", "{sc}");
    assert_eq!(sc["answers"], json!([{"id": "db", "selected": ["SQLite"]}]));
    assert_eq!(inbox_state(&home.api(), &id).await, "settled");
}

/// 2026-07-28, the race: the page answers while the client shows the form; the retry
/// carries the form's (late) answer, which changes nothing — it returns the page's result.
/// A decline settles cancelled; a cancel keeps the ask pending and the retry waits.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn elicitation_2026_page_wins_decline_cancels_cancel_waits() {
    let home = Home::new();
    let (a, mut forms) = home
        .eliciting_adapter_as("claude-code", &[], json!({"form": {}}), true)
        .await;
    let api = home.api();
    // The page wins.
    let body = async {
        let form = next_form(&mut forms).await;
        let id = api.new_ask(&[]).await["id"].as_str().unwrap().to_string();
        api.submit(&id, json!({"answers": [{"id": "q", "selected": ["No"]}]}))
            .await;
        form.reply
            .send(reply(
                ElicitationAction::Accept,
                Some(json!({"q": "Yes (Recommended)"})),
            ))
            .unwrap();
        id
    };
    let (r, id) = tokio::join!(call_2026(&a, "ask_user_question", questions(11)), body);
    let sc = structured(&r);
    assert_eq!(sc["surface"], "page", "{sc}");
    assert_eq!(sc["answers"], json!([{"id": "q", "selected": ["No"]}]));

    // Decline, after a human's pause: cancelled.
    let body = async {
        let form = next_form(&mut forms).await;
        let id2 = api.new_ask(std::slice::from_ref(&id)).await["id"]
            .as_str()
            .unwrap()
            .to_string();
        tokio::time::sleep(Duration::from_millis(1300)).await;
        form.reply
            .send(reply(ElicitationAction::Decline, None))
            .unwrap();
        id2
    };
    let (r, id2) = tokio::join!(call_2026(&a, "ask_user_question", questions(12)), body);
    assert_eq!(r["isError"], true, "{r}");
    assert_eq!(api.ask(&id2).await["outcome"], "cancelled");

    // Cancel: pending, the retry waits; the page answers it.
    let body = async {
        let form = next_form(&mut forms).await;
        let id3 = api.new_ask(&[id.clone(), id2.clone()]).await["id"]
            .as_str()
            .unwrap()
            .to_string();
        form.reply
            .send(reply(ElicitationAction::Cancel, None))
            .unwrap();
        tokio::time::sleep(Duration::from_millis(600)).await;
        assert_eq!(api.ask(&id3).await["state"], "pending");
        api.submit(&id3, json!({"answers": [{"id": "q", "selected": ["No"]}]}))
            .await;
    };
    let (r, ()) = tokio::join!(call_2026(&a, "ask_user_question", questions(13)), body);
    let sc = structured(&r);
    assert_eq!(sc["surface"], "page", "{sc}");
}

fn release_scope() -> Value {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../askd-daemon/tests/fixtures/release-scope.json"
    ))
    .unwrap();
    serde_json::from_str(&text).unwrap()
}

/// The banked entries of an ask, without their times.
async fn banked(api: &Api, id: &str) -> Value {
    let mut b = api.ask(id).await["banked"].clone();
    for e in b.as_array_mut().into_iter().flatten() {
        e.as_object_mut().unwrap().remove("bankedAt");
    }
    b
}

/// A survey walked entirely by forms: one path question per form, the path from the
/// daemon's path engine (the follow-up `api` appears after `scope = a`), each answer banked
/// (write-ahead) before the next form; the last bank submits, and the agent gets the normal
/// survey result with `surface: "client-form"`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn elicitation_survey_is_walked_one_question_per_form_banking_each() {
    let home = Home::new();
    let (a, mut forms) = home.eliciting_adapter("form-client", &[]).await;
    let call = a.start_call("ask_survey", release_scope()).await;
    let api = home.api();

    let f1 = next_form(&mut forms).await;
    let id = only_ask(&api).await["ask_id"].as_str().unwrap().to_string();
    let m1 = f1.params["message"].as_str().unwrap();
    assert!(m1.starts_with("Release scope"), "{m1}");
    assert!(m1.contains("Question 1 of 2"), "{m1}");
    assert!(
        m1.contains("[Scope] Which direction fits the 2.0 release?"),
        "{m1}"
    );
    assert!(
        m1.contains(&format!("/a/{id} (insights and diagrams)")),
        "{m1}"
    );
    let answer = &f1.params["requestedSchema"]["properties"]["answer"];
    assert_eq!(
        answer["oneOf"][0],
        json!({"const": "a", "title": "Ship the public API"})
    );
    assert!(
        answer["description"]
            .as_str()
            .unwrap()
            .contains("Freeze the API and publish docs.")
    );
    assert_eq!(banked(&api, &id).await, json!([]));
    tokio::time::sleep(Duration::from_millis(50)).await;
    f1.reply
        .send(reply(
            ElicitationAction::Accept,
            Some(json!({"answer": "a"})),
        ))
        .unwrap();

    let f2 = next_form(&mut forms).await;
    assert_eq!(
        banked(&api, &id).await,
        json!([{"id": "scope", "selected": ["a"]}])
    );
    let m2 = f2.params["message"].as_str().unwrap();
    assert!(m2.contains("Question 2 of 3"), "{m2}");
    assert!(m2.contains("Which API surface is frozen first?"), "{m2}");
    assert_eq!(
        f2.params["requestedSchema"]["properties"]["answer"]["type"],
        "string"
    );
    f2.reply
        .send(reply(
            ElicitationAction::Accept,
            Some(json!({"answer": " REST endpoints "})),
        ))
        .unwrap();

    let f3 = next_form(&mut forms).await;
    assert_eq!(
        banked(&api, &id).await,
        json!([{"id": "scope", "selected": ["a"]},
               {"id": "api", "selected": [], "custom": "REST endpoints"}])
    );
    assert!(
        f3.params["message"]
            .as_str()
            .unwrap()
            .contains("Question 3 of 3")
    );
    assert_eq!(
        f3.params["requestedSchema"]["properties"]["answer"]["type"],
        "array"
    );
    assert_eq!(api.ask(&id).await["state"], "pending");
    f3.reply
        .send(reply(
            ElicitationAction::Accept,
            Some(json!({"answer": ["a", "c"]})),
        ))
        .unwrap();

    let sc = structured(&finish(call).await);
    assert_eq!(sc["outcome"], "answered", "{sc}");
    assert_eq!(sc["surface"], "client-form", "{sc}");
    assert_eq!(banked(&api, &id).await.as_array().unwrap().len(), 3);
    let path: Vec<&str> = sc["answers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["id"].as_str().unwrap())
        .collect();
    assert_eq!(path, ["scope", "api", "ship"], "{sc}");
    assert_eq!(inbox_state(&api, &id).await, "settled");
}

/// A survey's walk stops where the page takes over: after one banked form answer the page
/// banks nothing more and submits; the open form is withdrawn and the agent gets the
/// page's result (no `surface: client-form`). A 2026-07-28 client walks the same survey in
/// `input_required` rounds, one question per round, banking each.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn elicitation_survey_page_takes_over_and_2026_rounds_walk_it() {
    let home = Home::new();
    let (a, mut forms) = home.eliciting_adapter("form-client", &[]).await;
    let call = a.start_call("ask_survey", release_scope()).await;
    let api = home.api();
    let f1 = next_form(&mut forms).await;
    let id = only_ask(&api).await["ask_id"].as_str().unwrap().to_string();
    tokio::time::sleep(Duration::from_millis(50)).await;
    f1.reply
        .send(reply(
            ElicitationAction::Accept,
            Some(json!({"answer": "c"})),
        ))
        .unwrap();
    let f2 = next_form(&mut forms).await;
    assert_eq!(
        banked(&api, &id).await,
        json!([{"id": "scope", "selected": ["c"]}])
    );
    api.submit(
        &id,
        json!({"answers": [{"id": "scope", "selected": ["c"]}, {"id": "ship", "selected": ["b"]}]}),
    )
    .await;
    let sc = structured(&finish(call).await);
    assert_eq!(sc["outcome"], "answered", "{sc}");
    assert_eq!(sc["surface"], "page", "{sc}");
    f2.withdrawn_within(10).await;

    let (b, mut rounds) = home
        .eliciting_adapter_as("claude-code", &[], json!({"form": {}}), true)
        .await;
    let body = async {
        let mut seen = Vec::new();
        for content in [
            json!({"answer": "b"}),
            json!({"answer": "store"}),
            json!({"answer": ["d"]}),
        ] {
            let f = next_form(&mut rounds).await;
            seen.push(f.params["message"].as_str().unwrap().to_string());
            tokio::time::sleep(Duration::from_millis(20)).await;
            f.reply
                .send(reply(ElicitationAction::Accept, Some(content)))
                .unwrap();
        }
        seen
    };
    let (r, seen) = tokio::join!(call_2026(&b, "ask_survey", release_scope()), body);
    assert!(
        seen[1].contains("Which core module is reworked first?"),
        "{seen:?}"
    );
    let sc = structured(&r);
    assert_eq!(sc["surface"], "client-form", "{sc}");
    let id2 = sc["ask_id"].as_str().unwrap();
    assert_eq!(
        banked(&api, id2).await,
        json!([{"id": "scope", "selected": ["b"]},
               {"id": "core", "selected": [], "custom": "store"},
               {"id": "ship", "selected": ["d"]}])
    );
}

/// The form's text is in the ask's language: the session's `language` for questions, a
/// review's own `lang` for its labels (an English session asking a Chinese review).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn elicitation_forms_speak_the_asks_language() {
    let home = Home::new();
    let (a, mut forms) = home
        .eliciting_adapter("form-client", &[("ASKD_LANGUAGE", "zh-CN")])
        .await;
    let call = a.start_call("ask_user_question", three_questions()).await;
    let form = next_form(&mut forms).await;
    let message = form.params["message"].as_str().unwrap();
    assert!(message.starts_with("智能体向你提问"), "{message}");
    assert!(message.contains("详情与完整页面："), "{message}");
    let props = &form.params["requestedSchema"]["properties"];
    assert_eq!(props["db_other"]["title"], "其他（自由填写）");
    assert!(
        props["langs"]["description"]
            .as_str()
            .unwrap()
            .ends_with("可多选。")
    );
    form.reply
        .send(reply(ElicitationAction::Cancel, None))
        .unwrap();
    let api = home.api();
    let id = only_ask(&api).await["ask_id"].as_str().unwrap().to_string();
    api.submit(
        &id,
        json!({"answers": [{"id": "db", "selected": ["SQLite"]}]}),
    )
    .await;
    finish(call).await;

    let (b, mut en) = home.eliciting_adapter("form-client", &[]).await;
    let mut zh_review = review(2);
    zh_review["lang"] = json!("zh-CN");
    let call = b.start_call("batch_review", zh_review).await;
    let form = next_form(&mut en).await;
    let p = &form.params;
    assert!(
        p["message"].as_str().unwrap().starts_with("智能体请你审阅"),
        "{p}"
    );
    assert_eq!(
        p["requestedSchema"]["properties"]["i01"]["oneOf"][0],
        json!({"const": "pass", "title": "通过"})
    );
    assert_eq!(
        p["requestedSchema"]["properties"]["i02"]["oneOf"][1],
        json!({"const": "no", "title": "否"})
    );
    assert_eq!(
        p["requestedSchema"]["properties"]["i01_note"]["title"],
        "备注（可选）"
    );
    form.reply
        .send(reply(ElicitationAction::Cancel, None))
        .unwrap();
    let pending = api
        .asks()
        .await
        .into_iter()
        .find(|a| a["state"] == "pending")
        .unwrap();
    api.submit(
        pending["id"].as_str().unwrap(),
        json!({"answers": [{"id": "build", "verdict": "pass"}], "surface": "card"}),
    )
    .await;
    assert_eq!(finish(call).await["structuredContent"]["surface"], "card");
}

/// A 2026-07-28 retry acts only on an ask of its own connection: a forged `requestState`
/// naming another agent's ask, with an "accepted" reply, answers nothing — the retry is
/// refused (the state is not one askd signed, issue 27), and the ask stays pending for its
/// human.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn elicitation_2026_forged_request_state_answers_nothing() {
    let home = Home::new();
    let owner = home.adapter("owner-client", &[]).await;
    let call = owner.start_call("ask_user_question", questions(14)).await;
    let api = home.api();
    let id = api.new_ask(&[]).await["id"].as_str().unwrap().to_string();
    let (other, _forms) = home
        .eliciting_adapter_as("claude-code", &[], json!({"form": {}}), true)
        .await;
    let mut args = questions(14);
    args["timeout_s"] = json!(0);
    let state = format!("askd1:{}", json!({"ask": id, "sent": 0, "tries": 0}));
    let params: CallToolRequestParams = serde_json::from_value(json!({
        "name": "ask_user_question",
        "arguments": args,
        "requestState": state,
        "inputResponses": {"askd_answer": {"action": "accept", "content": {"q": "No"}}}
    }))
    .unwrap();
    let r = other
        .service
        .call_tool_once(params)
        .await
        .expect("tools/call");
    let rmcp::model::CallToolResponse::Complete(r) = r else {
        panic!("a complete result: {r:?}");
    };
    let r = serde_json::to_value(r).unwrap();
    assert_eq!(r["isError"], true, "{r}");
    assert_eq!(
        r["structuredContent"]["error"]["code"], "REQUEST_STATE_REFUSED",
        "{r}"
    );
    let view = api.ask(&id).await;
    assert_eq!(view["state"], "pending", "{view}");
    api.submit(
        &id,
        json!({"answers": [{"id": "q", "selected": ["Yes (Recommended)"]}]}),
    )
    .await;
    assert_eq!(structured(&finish(call).await)["surface"], "page");
}

/// The Settings page's `elicitation`, saved while an adapter runs, applies to its next ask
/// in place of the adapter's own configuration; a reset gives the configuration back.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn elicitation_saved_on_the_settings_page_applies_to_the_next_ask() {
    let home = Home::new();
    let (a, mut forms) = home.eliciting_adapter("form-client", &[]).await;
    let api = home.api();
    let (status, body) = api
        .call(
            reqwest::Method::PUT,
            "/api/settings",
            Some(json!({"elicitation": "off"})),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["elicitation"]["value"], "off");
    let call = a.start_call("ask_user_question", questions(7)).await;
    let id = api.new_ask(&[]).await["id"].as_str().unwrap().to_string();
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert!(forms.try_recv().is_err(), "no form while off is saved");
    api.submit(&id, json!({"answers": [{"id": "q", "selected": ["No"]}]}))
        .await;
    assert_eq!(structured(&finish(call).await)["surface"], "page");

    let (status, _) = api
        .call(
            reqwest::Method::PUT,
            "/api/settings",
            Some(json!({"elicitation": null})),
        )
        .await;
    assert_eq!(status, 200);
    let call = a.start_call("ask_user_question", questions(8)).await;
    let form = next_form(&mut forms).await;
    assert_eq!(form.params["mode"], "form");
    let id2 = api.new_ask(std::slice::from_ref(&id)).await["id"]
        .as_str()
        .unwrap()
        .to_string();
    api.submit(&id2, json!({"answers": [{"id": "q", "selected": ["No"]}]}))
        .await;
    assert_eq!(structured(&finish(call).await)["surface"], "page");
}

/// Codex (issue 28 §1), both eras: its forms are stepwise — only choices first (no array, no
/// text field, so its TUI sends the form from the last field by choosing), then a required
/// text form for what a choice asked to type. In 2026-07-28 the first reply travels in the
/// sealed `requestState` to the text round; the answer combines both.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn elicitation_codex_gets_choices_first_then_the_text_they_ask_for() {
    for modern in [false, true] {
        let home = Home::new();
        let (a, mut forms) = home
            .eliciting_adapter_as(
                "codex-mcp-client",
                &[],
                json!({"form": {}, "url": {}}),
                modern,
            )
            .await;
        let body = async {
            let first = next_form(&mut forms).await;
            let props = first.params["requestedSchema"]["properties"].clone();
            let names: Vec<&str> = props
                .as_object()
                .unwrap()
                .keys()
                .map(String::as_str)
                .collect();
            assert_eq!(
                names,
                ["q01", "q02_01", "q02_02", "q02_03", "q02_other", "q03"],
                "{props}"
            );
            for (k, f) in props.as_object().unwrap() {
                assert!(f["oneOf"].is_array(), "{k} is a choice: {f}");
            }
            first
                .reply
                .send(reply(
                    ElicitationAction::Accept,
                    Some(json!({"q01": "o2", "q02_01": "yes", "q02_02": "no",
                                "q02_03": "yes", "q02_other": "no", "q03": "write"})),
                ))
                .unwrap();
            let second = next_form(&mut forms).await;
            assert_eq!(
                second.params["requestedSchema"]["required"],
                json!(["t03"]),
                "{}",
                second.params
            );
            second
                .reply
                .send(reply(
                    ElicitationAction::Accept,
                    Some(json!({"t03": "Ship by Friday"})),
                ))
                .unwrap();
        };
        let call = async {
            if modern {
                call_2026(&a, "ask_user_question", three_questions()).await
            } else {
                a.call("ask_user_question", three_questions()).await
            }
        };
        let (r, ()) = tokio::join!(call, body);
        let sc = structured(&r);
        assert_eq!(sc["outcome"], "answered", "modern={modern}: {sc}");
        assert_eq!(sc["surface"], "client-form");
        assert_eq!(
            sc["answers"],
            json!([{"id": "db", "selected": ["SQLite"]},
                   {"id": "langs", "selected": ["Rust", "Python"]},
                   {"id": "note", "selected": [], "custom": "Ship by Friday"}]),
            "modern={modern}"
        );
    }
}

/// 2026-07-28 (issue 28 §2): a form, once out, stays until the person acts on it, so with
/// the desk open — a person's live event stream, as an inbox or ask page holds — the page
/// goes first: no form is sent while the page answers within `DESK_FIRST`, and the call
/// returns the moment it does. `GET /api/health` counts the open desk, and stops counting
/// when the stream closes.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn elicitation_2026_with_the_desk_open_the_page_goes_first() {
    let home = Home::new();
    let (a, mut forms) = home
        .eliciting_adapter_as("claude-code", &[], json!({"form": {}, "url": {}}), true)
        .await;
    // The adapter starts the daemon at once; a browser's inbox opens its event stream.
    let deadline = Instant::now() + Duration::from_secs(20);
    while home.daemon().is_none() {
        assert!(Instant::now() < deadline, "the adapter started no daemon");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let api = home.api();
    assert_eq!(api.get("/api/health").await["desk"], 0);
    let desk = api
        .http
        .get(format!("{}/api/events", api.daemon.url))
        .bearer_auth(&api.daemon.token)
        .send()
        .await
        .expect("the event stream opens");
    assert_eq!(desk.status(), 200);
    assert_eq!(api.get("/api/health").await["desk"], 1);
    let page = async {
        let ask = only_ask(&api).await;
        tokio::time::sleep(Duration::from_millis(500)).await;
        api.submit(
            ask["ask_id"].as_str().unwrap(),
            json!({"answers": [{"id": "db", "selected": ["SQLite"]}]}),
        )
        .await;
        Instant::now()
    };
    let (r, answered) = tokio::join!(call_2026(&a, "ask_user_question", three_questions()), page);
    let waited = answered.elapsed();
    let sc = structured(&r);
    assert_eq!(sc["outcome"], "answered", "{sc}");
    assert_eq!(sc["surface"], "page");
    assert!(
        forms.try_recv().is_err(),
        "no form was sent while the desk was open"
    );
    assert!(
        waited < Duration::from_secs(5),
        "the call returned {waited:?} after the page answered"
    );
    drop(desk);
    let deadline = Instant::now() + Duration::from_secs(10);
    while api.get("/api/health").await["desk"] != 0 {
        assert!(
            Instant::now() < deadline,
            "a closed stream still counts as the desk"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// An ask with approvals (team mode) is never put in the client: a form answer would be the
/// agent's, not a member's vote, and the page's URL carries the install's token.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn elicitation_leaves_an_ask_with_approvals_to_the_members() {
    let home = Home::new();
    let (a, mut forms) = home
        .eliciting_adapter_as("url-client", &[], json!({"form": {}, "url": {}}), false)
        .await;
    let api = home.api();
    // The adapter's first call started the daemon; members join it.
    let warm = a.start_call("ask_user_question", questions(7)).await;
    let first = next_form(&mut forms).await;
    let id = only_ask(&api).await["ask_id"].as_str().unwrap().to_string();
    api.submit(&id, json!({"answers": [{"id": "q", "selected": ["No"]}]}))
        .await;
    finish(warm).await;
    drop(first);
    for name in ["ann", "ben"] {
        let (status, body) = api
            .call(
                reqwest::Method::POST,
                "/api/members",
                Some(json!({"name": name})),
            )
            .await;
        assert_eq!(status, 201, "{body}");
    }
    let mut args = questions(8);
    args["approvals"] = json!({"required": 2});
    let _call = a.start_call("ask_user_question", args).await;
    let ask = api.new_ask(std::slice::from_ref(&id)).await;
    assert_eq!(ask["approvals"]["required"], 2, "{ask}");
    tokio::time::sleep(Duration::from_millis(800)).await;
    assert!(
        forms.try_recv().is_err(),
        "no form and no URL for an ask with approvals"
    );
}

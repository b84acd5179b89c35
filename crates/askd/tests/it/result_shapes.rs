//! The shapes of results (issue 28 §5), through the real `askd mcp` child: a survey answered
//! on the page says `surface: "page"` (declared in its output schema), a `survey_draft_launch`
//! resumed in a 2026-07-28 retry returns the launch's shape, and a URL-mode elicitation's
//! settle sends `notifications/elicitation/complete`.

use std::time::Duration;

use crate::common_mcp;

use common_mcp::*;
use rmcp::model::{CallToolRequestParams, ElicitResult, ElicitationAction};
use serde_json::{Value, json};

fn release_scope() -> Value {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../askd-daemon/tests/fixtures/release-scope.json"
    ))
    .unwrap();
    serde_json::from_str(&text).unwrap()
}

fn reply(action: ElicitationAction, content: Option<Value>) -> ElicitResult {
    let mut r = ElicitResult::new(action);
    r.content = content;
    r
}

/// The release-scope survey under another title (a distinct ask).
fn titled(title: &str) -> Value {
    let mut s = release_scope();
    s["survey"]["title"] = json!(title);
    s
}

async fn next_form(forms: &mut tokio::sync::mpsc::UnboundedReceiver<Form>) -> Form {
    tokio::time::timeout(Duration::from_secs(20), forms.recv())
        .await
        .expect("an elicitation request")
        .expect("the client is alive")
}

async fn only_pending(api: &Api) -> String {
    for _ in 0..100 {
        if let Some(a) = api
            .asks()
            .await
            .into_iter()
            .find(|a| a["state"] == "pending")
        {
            return a["id"].as_str().unwrap().to_string();
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("no pending ask: {:?}", api.asks().await)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_survey_answered_on_the_page_says_surface_page_and_its_schema_declares_it() {
    let home = Home::new();
    let a = home.adapter("shape-client", &[]).await;
    let tools = a.service.list_all_tools().await.unwrap();
    for name in ["ask_survey", "survey_draft_launch", "await_answer"] {
        let t = tools.iter().find(|t| t.name == name).unwrap();
        let schema = serde_json::to_value(t.output_schema.as_deref().unwrap()).unwrap();
        let surface = &schema["anyOf"][0]["properties"]["surface"];
        assert_eq!(surface["type"], "string", "{name}: {schema}");
        assert!(
            surface["enum"]
                .as_array()
                .is_some_and(|e| e.contains(&json!("page")) && e.contains(&json!("client-form"))),
            "{name} does not declare surface: {schema}"
        );
    }
    let call = a.start_call("ask_survey", release_scope()).await;
    let api = home.api();
    let id = only_pending(&api).await;
    api.submit(
        &id,
        json!({"answers": [{"id": "scope", "selected": ["c"]}, {"id": "ship", "selected": ["b"]}]}),
    )
    .await;
    let sc = structured(&finish(call).await);
    assert_eq!(sc["outcome"], "answered", "{sc}");
    assert_eq!(sc["surface"], "page", "{sc}");
    // A repeat read through await_answer carries the same stored result.
    let again = structured(&a.call("await_answer", json!({"ask_id": id})).await);
    assert_eq!(again["surface"], "page", "{again}");
    // The same surface for a terminal submit: the body names it.
    let call = a.start_call("ask_survey", titled("Terminal")).await;
    let id = only_pending(&api).await;
    api.submit(
        &id,
        json!({"answers": [{"id": "scope", "selected": ["c"]}, {"id": "ship", "selected": ["b"]}], "surface": "terminal"}),
    )
    .await;
    let sc = structured(&finish(call).await);
    assert_eq!(sc["surface"], "terminal", "{sc}");
    // An unknown surface is refused naming the field and the values.
    let call = a.start_call("ask_survey", titled("Unknown")).await;
    let id = only_pending(&api).await;
    let refused = api
        .call(
            reqwest::Method::POST,
            &format!("/api/asks/{id}/submit"),
            Some(json!({"answers": [{"id": "scope", "selected": ["c"]}, {"id": "ship", "selected": ["b"]}], "surface": "phone"})),
        )
        .await;
    assert_eq!(refused.0, 422, "{refused:?}");
    assert!(refused.1.to_string().contains("surface"), "{refused:?}");
    api.submit(
        &id,
        json!({"answers": [{"id": "scope", "selected": ["c"]}, {"id": "ship", "selected": ["a"]}]}),
    )
    .await;
    assert_eq!(structured(&finish(call).await)["surface"], "page");
}

fn option(key: &str, n: usize) -> Value {
    json!({
        "key": key,
        "label": format!("cache stance {n}"),
        "description": format!("The cache follows stance number {n}."),
        "insight": format!("- **Promise** — cache {n} is proven at Stripe.\n- **Price** — It costs {n} weeks.\n- **Present** — `api/v{n}/` has 14 endpoints."),
        "sources": [if n == 1 { "docs/api/v2.md" } else { "Vendor handbook" }]
    })
}

/// A `survey_draft_launch` whose form goes out as a 2026-07-28 `input_required` round: the
/// retry that carries the answer returns the launch's shape (`draft`), not `await_answer`'s.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_draft_launch_resumed_in_a_2026_retry_returns_the_launch_shape() {
    let home = Home::new();
    let (a, mut rounds) = home
        .eliciting_adapter_as("claude-code", &[], json!({"form": {}}), true)
        .await;
    let options: Vec<Value> = ["a", "b", "c", "d", "e"]
        .iter()
        .enumerate()
        .map(|(i, k)| option(k, i + 1))
        .collect();
    let survey = json!({"title": "Cache policy", "intro": "One decision.", "entry": "q",
        "questions": {"q": {"prompt": "Which cache policy?", "options": options}}});
    let r = a
        .call("survey_draft_set", json!({"op": "begin", "survey": survey}))
        .await;
    let r = structured(&r);
    assert_eq!(r["completeness"]["ready"], true, "{r}");
    let slug = r["slug"].as_str().unwrap().to_string();
    let body = async {
        let f = next_form(&mut rounds).await;
        assert_eq!(f.params["mode"], "form", "{}", f.params);
        tokio::time::sleep(Duration::from_millis(20)).await;
        f.reply
            .send(reply(
                ElicitationAction::Accept,
                Some(json!({"answer": "b"})),
            ))
            .unwrap();
    };
    let params =
        CallToolRequestParams::new("survey_draft_launch").with_arguments(object(json!({})));
    let (r, ()) = tokio::join!(a.service.call_tool(params), body);
    let sc = structured(&serde_json::to_value(r.expect("tools/call")).unwrap());
    assert_eq!(sc["outcome"], "answered", "{sc}");
    assert_eq!(sc["surface"], "client-form", "{sc}");
    assert_eq!(sc["draft"], slug.as_str(), "the launch's shape: {sc}");
    a.conforms("survey_draft_launch", &sc).await;
}

/// A URL-mode elicitation (2025-11-25): once the ask settles on the page, the client hears
/// `notifications/elicitation/complete` with the `elicitationId` it was given.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_url_elicitation_is_completed_when_the_page_answers() {
    let home = Home::new();
    let (a, mut forms) = home
        .eliciting_adapter_as("url-client", &[], json!({"url": {}}), false)
        .await;
    let call = a.start_call("ask_user_question", questions(1)).await;
    let f = next_form(&mut forms).await;
    assert_eq!(f.params["mode"], "url", "{}", f.params);
    let elicitation = f.params["elicitationId"].as_str().unwrap().to_string();
    f.reply
        .send(reply(ElicitationAction::Accept, None))
        .unwrap();
    let api = home.api();
    let id = only_pending(&api).await;
    assert_eq!(elicitation, id);
    tokio::time::sleep(Duration::from_millis(200)).await;
    let custom = a.service.service().custom.clone();
    assert!(
        custom.lock().unwrap().is_empty(),
        "nothing completes before the answer"
    );
    api.submit(&id, json!({"answers": [{"id": "q", "selected": ["No"]}]}))
        .await;
    let sc = structured(&finish(call).await);
    assert_eq!(sc["surface"], "page", "{sc}");
    let mut seen = Vec::new();
    for _ in 0..100 {
        seen = custom.lock().unwrap().clone();
        if !seen.is_empty() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(
        seen,
        vec![(
            "notifications/elicitation/complete".to_string(),
            json!({"elicitationId": id})
        )]
    );
}

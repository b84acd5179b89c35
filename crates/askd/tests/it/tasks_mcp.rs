//! Issue 33: every ask a durable MCP task. Raw JSON-RPC to the built `askd mcp` (both eras)
//! and to the daemon's `/mcp`: a task-augmented call returns at once, the task is polled,
//! the human answers through the API, the result arrives; the task outlives its adapter
//! and a SIGKILLed daemon; `tasks/cancel` withdraws; `tasks/list` holds the caller's own.

use crate::common_mcp;

use common_mcp::raw::Raw;
use common_mcp::*;
use serde_json::{Value, json};

const TASKS: &str = "io.modelcontextprotocol/tasks";

/// `initialize` at 2025-11-25 (the revision of experimental Tasks), optionally declaring
/// form elicitation.
async fn initialize_2025(a: &mut Raw, elicitation: bool) -> Value {
    let caps = if elicitation {
        json!({"elicitation": {"form": {}}})
    } else {
        json!({})
    };
    a.send(&json!({
        "jsonrpc": "2.0", "id": "init", "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": caps,
                   "clientInfo": {"name": "task-test", "version": "1.0.0"}}
    }))
    .await;
    let r = a.response().await;
    a.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
        .await;
    r
}

/// One request and its answer (`result`, or the whole message when it is an error).
async fn rpc(a: &mut Raw, id: i64, method: &str, params: Value) -> Value {
    a.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))
        .await;
    let r = a.response().await;
    assert_eq!(r["id"], id, "{r}");
    match r.get("result") {
        Some(result) => result.clone(),
        None => r,
    }
}

fn task_call(args: Value) -> Value {
    json!({"name": "ask_user_question", "arguments": args, "task": {"ttl": 60000}})
}

/// Polls `tasks/get` until the task has `status`.
async fn until_status(a: &mut Raw, id: &str, status: &str) -> Value {
    for n in 0..100 {
        let t = rpc(a, 1000 + n, "tasks/get", json!({"taskId": id})).await;
        if t["status"] == status {
            return t;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    panic!("task {id} never became {status}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_2025_task_is_polled_answered_on_the_page_and_its_result_fetched() {
    let home = Home::new();
    let mut a = Raw::spawn(&home);
    let init = initialize_2025(&mut a, false).await;
    assert_eq!(
        init["result"]["capabilities"]["tasks"],
        json!({"list": {}, "cancel": {}, "requests": {"tools": {"call": {}}}}),
        "{init}"
    );
    let listed = rpc(&mut a, 2, "tools/list", json!({})).await;
    let tools = listed["tools"].as_array().unwrap();
    for t in tools {
        let ask = [
            "ask_survey",
            "ask_user_question",
            "batch_review",
            "report_drift",
            "survey_draft_launch",
        ]
        .contains(&t["name"].as_str().unwrap());
        if ask {
            assert_eq!(t["execution"]["taskSupport"], "optional", "{t}");
        } else {
            assert!(t.get("execution").is_none(), "{t}");
        }
    }

    let created = rpc(&mut a, 3, "tools/call", task_call(questions(1))).await;
    let task = &created["task"];
    let id = task["taskId"].as_str().expect("a task id").to_string();
    assert_eq!(task["status"], "working", "{created}");
    assert_eq!(task["ttl"], Value::Null);
    assert_eq!(task["pollInterval"], 2000);
    let api = home.api();
    let ask = api.ask(&id).await;
    assert_eq!(ask["state"], "pending", "the task is the ask: {ask}");
    assert_eq!(ask["awaited"], true, "a task's client polls its ask");

    let got = rpc(&mut a, 4, "tasks/get", json!({"taskId": id})).await;
    assert_eq!(got["taskId"], id.as_str());
    assert_eq!(got["status"], "working");
    let list = rpc(&mut a, 5, "tasks/list", json!({})).await;
    assert_eq!(list["tasks"][0]["taskId"], id.as_str(), "{list}");

    // tasks/result waits for the human.
    a.send(&json!({"jsonrpc": "2.0", "id": 6, "method": "tasks/result", "params": {"taskId": id}}))
        .await;
    api.submit(
        &id,
        json!({"answers": [{"id": "q", "selected": ["Yes (Recommended)"]}]}),
    )
    .await;
    let mut result = None;
    let mut heard = None;
    while result.is_none() || heard.is_none() {
        let m = a.message().await;
        if m["id"] == 6 {
            result = Some(m["result"].clone());
        } else if m["method"] == "notifications/tasks/status" {
            heard = Some(m["params"].clone());
        }
    }
    let result = result.unwrap();
    assert_eq!(
        result["structuredContent"]["outcome"], "answered",
        "{result}"
    );
    assert_eq!(
        result["_meta"]["io.modelcontextprotocol/related-task"]["taskId"],
        id.as_str()
    );
    let heard = heard.unwrap();
    assert_eq!(heard["taskId"], id.as_str());
    assert_eq!(heard["status"], "completed", "{heard}");
    let done = rpc(&mut a, 7, "tasks/get", json!({"taskId": id})).await;
    assert_eq!(done["status"], "completed");

    // A finished task cannot be cancelled.
    let refused = rpc(&mut a, 8, "tasks/cancel", json!({"taskId": id})).await;
    assert_eq!(refused["error"]["code"], -32602, "{refused}");
    assert!(
        refused["error"]["message"]
            .as_str()
            .unwrap()
            .contains("already completed"),
        "{refused}"
    );
    let unknown = rpc(&mut a, 9, "tasks/get", json!({"taskId": "nope"})).await;
    assert_eq!(unknown["error"]["code"], -32602, "{unknown}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_task_outlives_its_adapter_and_a_killed_daemon() {
    let home = Home::new();
    let mut a = Raw::spawn(&home);
    initialize_2025(&mut a, false).await;
    let created = rpc(&mut a, 1, "tools/call", task_call(questions(2))).await;
    let id = created["task"]["taskId"].as_str().unwrap().to_string();
    drop(a);
    kill_daemon(&home).await;

    // A new client process, which starts the daemon again.
    let mut b = Raw::spawn(&home);
    initialize_2025(&mut b, false).await;
    let got = rpc(&mut b, 1, "tasks/get", json!({"taskId": id})).await;
    assert_eq!(got["status"], "working", "{got}");
    // Not this connection's session: not in its list.
    let list = rpc(&mut b, 2, "tasks/list", json!({})).await;
    assert_eq!(list["tasks"], json!([]), "{list}");
    home.api()
        .submit(&id, json!({"answers": [{"id": "q", "selected": ["No"]}]}))
        .await;
    until_status(&mut b, &id, "completed").await;
    let result = rpc(&mut b, 3, "tasks/result", json!({"taskId": id})).await;
    assert_eq!(
        result["structuredContent"]["answers"][0]["selected"],
        json!(["No"]),
        "{result}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cancelling_a_task_withdraws_its_ask_and_a_refused_call_is_no_task() {
    let home = Home::new();
    let mut a = Raw::spawn(&home);
    initialize_2025(&mut a, false).await;
    let created = rpc(&mut a, 1, "tools/call", task_call(questions(3))).await;
    let id = created["task"]["taskId"].as_str().unwrap().to_string();
    let cancelled = rpc(&mut a, 2, "tasks/cancel", json!({"taskId": id})).await;
    assert_eq!(cancelled["status"], "cancelled", "{cancelled}");
    let ask = home.api().ask(&id).await;
    assert_eq!(ask["outcome"], "aborted", "{ask}");

    let mut bad = questions(4);
    bad["questions"][0]["options"] = json!([{"label": "only one"}]);
    let refused = rpc(&mut a, 3, "tools/call", task_call(bad)).await;
    assert_eq!(refused["error"]["code"], -32602, "{refused}");
    let message = refused["error"]["message"].as_str().unwrap();
    assert!(message.contains("options"), "{message}");
    // A tool that is no ask cannot be a task.
    let not_ask = rpc(
        &mut a,
        4,
        "tools/call",
        json!({"name": "alignment_status", "arguments": {}, "task": {}}),
    )
    .await;
    assert_eq!(not_ask["error"]["code"], -32602, "{not_ask}");
}

/// A 2026-07-28 `tools/call` of `tool` with `meta` (see [`meta_2026`]); its result.
async fn call_2026(a: &mut Raw, id: i64, tool: &str, arguments: Value, meta: &Value) -> Value {
    rpc(
        a,
        id,
        "tools/call",
        json!({"name": tool, "arguments": arguments, "_meta": meta}),
    )
    .await
}

/// A 2026-07-28 request's `_meta`: the tasks extension and form elicitation declared.
fn meta_2026() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "task-test", "version": "1.0.0"},
        "io.modelcontextprotocol/clientCapabilities": {
            "extensions": {TASKS: {}},
            "elicitation": {"form": {}}
        }
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_2026_task_takes_its_answer_through_tasks_update() {
    let home = Home::new();
    let mut a = Raw::spawn(&home);
    let meta = meta_2026();
    let created = call_2026(&mut a, 1, "ask_user_question", questions(5), &meta).await;
    assert_eq!(created["resultType"], "task", "{created}");
    let id = created["taskId"].as_str().unwrap().to_string();
    assert_eq!(created["pollIntervalMs"], 2000);

    let got = rpc(&mut a, 2, "tasks/get", json!({"taskId": id, "_meta": meta})).await;
    assert_eq!(got["status"], "input_required", "{got}");
    let request = &got["inputRequests"]["askd_answer"];
    assert_eq!(request["method"], "elicitation/create", "{got}");
    let fields = request["params"]["requestedSchema"]["properties"]
        .as_object()
        .unwrap();
    assert!(fields.contains_key("q"), "{request}");

    // A reply to a form askd did not send is refused and changes nothing.
    let wrong = rpc(
        &mut a,
        3,
        "tasks/update",
        json!({"taskId": id, "_meta": meta,
               "inputResponses": {"other": {"action": "accept", "content": {"q": "No"}}}}),
    )
    .await;
    assert_eq!(wrong["error"]["code"], -32602, "{wrong}");
    assert_eq!(home.api().ask(&id).await["state"], "pending");

    let ack = rpc(
        &mut a,
        4,
        "tasks/update",
        json!({"taskId": id, "_meta": meta,
               "inputResponses": {"askd_answer": {"action": "accept", "content": {"q": "No"}}}}),
    )
    .await;
    assert_eq!(ack["resultType"], "complete", "{ack}");
    let done = rpc(&mut a, 5, "tasks/get", json!({"taskId": id, "_meta": meta})).await;
    assert_eq!(done["status"], "completed", "{done}");
    let result = &done["result"]["structuredContent"];
    assert_eq!(result["answers"][0]["selected"], json!(["No"]), "{done}");
    assert_eq!(result["surface"], "client-form", "{done}");

    // tasks/cancel of a second task (2026): withdrawn.
    let second = call_2026(&mut a, 6, "ask_user_question", questions(6), &meta).await;
    let id2 = second["taskId"].as_str().unwrap().to_string();
    rpc(
        &mut a,
        7,
        "tasks/cancel",
        json!({"taskId": id2, "_meta": meta}),
    )
    .await;
    let got = rpc(
        &mut a,
        8,
        "tasks/get",
        json!({"taskId": id2, "_meta": meta}),
    )
    .await;
    assert_eq!(got["status"], "cancelled", "{got}");
}

/// Claude Code declares the tasks extension under 2026-07-28 and moves a task to the
/// background, telling its model to go on without it: its ask calls are not tasks.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_that_backgrounds_tasks_gets_its_ask_call_as_before() {
    let home = Home::new();
    let mut a = Raw::spawn(&home);
    let mut meta = meta_2026();
    meta["io.modelcontextprotocol/clientInfo"]["name"] = json!("claude-code");
    meta["io.modelcontextprotocol/clientCapabilities"] = json!({"extensions": {TASKS: {}}});
    let mut args = questions(7);
    args["timeout_s"] = json!(0);
    let r = call_2026(&mut a, 1, "ask_user_question", args, &meta).await;
    assert_ne!(r["resultType"], "task", "{r}");
    assert_eq!(r["structuredContent"]["outcome"], "pending", "{r}");
}

/// Team mode: a task started through one daemon's `/mcp` is the same task on another — read,
/// answered there, its result inline on the first (2026-07-28, stateless requests).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_task_is_the_same_task_on_every_daemon_of_a_team() {
    use askd_testkit::serve::Launch;
    let db = askd_store::pg_test::cluster().database().await;
    let start = || {
        Launch::temp_home(env!("CARGO_BIN_EXE_askd"))
            .env("ASKD_DATABASE_URL", &db.url)
            .start()
    };
    let (a, b) = (start(), start());
    let caps = json!({"extensions": {TASKS: {}}});
    let on_a = common_mcp::stateless::Stateless::at(&a.url, &a.token, "task-test", caps.clone());
    let on_b = common_mcp::stateless::Stateless::at(&b.url, &b.token, "task-test", caps);
    let created = on_a.call("ask_user_question", questions(8)).await;
    assert_eq!(created["resultType"], "task", "{created}");
    let id = created["taskId"].as_str().unwrap().to_string();
    let got = on_b.rpc("tasks/get", json!({"taskId": id})).await;
    assert_eq!(got["status"], "working", "{got}");
    // Answering in the client is the asker's: a request from elsewhere is refused.
    let refused = on_b
        .error(
            "tasks/update",
            json!({"taskId": id, "inputResponses": {"askd_answer": {"action": "accept", "content": {"q": "No"}}}}),
        )
        .await;
    assert_eq!(refused["code"], -32602, "{refused}");
    assert!(
        refused["message"]
            .as_str()
            .unwrap()
            .contains("another connection"),
        "{refused}"
    );
    let (status, body) = b
        .call(
            reqwest::Method::POST,
            &format!("/api/asks/{id}/submit"),
            Some(json!({"answers": [{"id": "q", "selected": ["Yes (Recommended)"]}]})),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    let done = on_a.rpc("tasks/get", json!({"taskId": id})).await;
    assert_eq!(done["status"], "completed", "{done}");
    assert_eq!(
        done["result"]["structuredContent"]["answers"][0]["selected"],
        json!(["Yes (Recommended)"])
    );
}

/// 2025-11-25 with form elicitation: the task is `input_required`, and `tasks/result` puts
/// askd's form out with `elicitation/create`; the reply answers the ask.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_2025_task_the_client_can_show_is_answered_in_its_form_through_tasks_result() {
    let home = Home::new();
    let mut a = Raw::spawn(&home);
    initialize_2025(&mut a, true).await;
    let created = rpc(&mut a, 1, "tools/call", task_call(questions(9))).await;
    let id = created["task"]["taskId"].as_str().unwrap().to_string();
    assert_eq!(created["task"]["status"], "input_required", "{created}");
    a.send(&json!({"jsonrpc": "2.0", "id": 2, "method": "tasks/result", "params": {"taskId": id}}))
        .await;
    let request = loop {
        let m = a.message().await;
        if m["method"] == "elicitation/create" {
            break m;
        }
    };
    assert!(
        request["params"]["requestedSchema"]["properties"]
            .get("q")
            .is_some(),
        "{request}"
    );
    a.send(&json!({"jsonrpc": "2.0", "id": request["id"],
                   "result": {"action": "accept", "content": {"q": "No"}}}))
        .await;
    let result = loop {
        let m = a.message().await;
        if m["id"] == 2 {
            break m["result"].clone();
        }
    };
    assert_eq!(
        result["structuredContent"]["surface"], "client-form",
        "{result}"
    );
    assert_eq!(
        result["structuredContent"]["answers"][0]["selected"],
        json!(["No"])
    );
}

/// A survey as a 2026-07-28 task: `tasks/get` asks one path question at a time (keyed by
/// the question), each `tasks/update` banks its answer (write-ahead), and the last one
/// settles the survey with the client's answers.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_2026_survey_task_is_walked_one_question_per_update() {
    let home = Home::new();
    let mut a = Raw::spawn(&home);
    let meta = meta_2026();
    let created = call_2026(
        &mut a,
        1,
        "ask_survey",
        fixture("release-scope.json"),
        &meta,
    )
    .await;
    assert_eq!(created["resultType"], "task", "{created}");
    let id = created["taskId"].as_str().unwrap().to_string();
    let mut keys = Vec::new();
    for (n, content) in [
        json!({"answer": "b"}),
        json!({"answer": "store"}),
        json!({"answer": ["d"]}),
    ]
    .into_iter()
    .enumerate()
    {
        let n = n as i64;
        let got = rpc(
            &mut a,
            10 + n,
            "tasks/get",
            json!({"taskId": id, "_meta": meta}),
        )
        .await;
        assert_eq!(got["status"], "input_required", "{got}");
        let key = got["inputRequests"]
            .as_object()
            .unwrap()
            .keys()
            .next()
            .unwrap()
            .clone();
        rpc(
            &mut a,
            20 + n,
            "tasks/update",
            json!({"taskId": id, "_meta": meta,
                   "inputResponses": {&key: {"action": "accept", "content": content}}}),
        )
        .await;
        keys.push(key);
    }
    assert_eq!(
        keys,
        ["askd_answer:scope", "askd_answer:core", "askd_answer:ship"]
    );
    let done = rpc(
        &mut a,
        30,
        "tasks/get",
        json!({"taskId": id, "_meta": meta}),
    )
    .await;
    assert_eq!(done["status"], "completed", "{done}");
    let sc = &done["result"]["structuredContent"];
    assert_eq!(sc["surface"], "client-form", "{done}");
    let banked = home.api().ask(&id).await["banked"].clone();
    assert_eq!(banked.as_array().unwrap().len(), 3, "{banked}");
}

/// Snooze (issue 35): a task whose ask the human put off is still working, and its status
/// line says until when.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_put_off_tasks_status_says_until_when() {
    let home = Home::new();
    let mut a = Raw::spawn(&home);
    initialize_2025(&mut a, false).await;
    let created = rpc(&mut a, 1, "tools/call", task_call(questions(7))).await;
    let id = created["task"]["taskId"].as_str().unwrap().to_string();
    let snoozed = home
        .api()
        .post(&format!("/api/asks/{id}/snooze"), json!({"for_s": 600}))
        .await;
    let until = snoozed["deferred_until"].as_str().unwrap();
    let task = rpc(&mut a, 2, "tasks/get", json!({"taskId": id})).await;
    assert_eq!(task["status"], "working", "{task}");
    let line = task["statusMessage"].as_str().unwrap();
    assert!(
        line.contains("put this off until") && line.contains(until),
        "{line}"
    );
}

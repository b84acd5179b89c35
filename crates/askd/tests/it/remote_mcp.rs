//! `askd mcp --url URL --token-file F` (team mode, issue 17): the adapter uses a daemon it
//! did not start, elsewhere, with the token in a file — and starts none in its own home.
//! A refused token, or an address that is not a daemon's, ends it at once with a message
//! naming the flag and the fix.

use crate::common_mcp;

use std::time::Duration;

use common_mcp::*;
use serde_json::json;

/// The command for an adapter of `home` on the daemon at `url` with the token in `file`.
fn remote_command(home: &Home, url: &str, file: &std::path::Path) -> tokio::process::Command {
    let file = file.to_string_lossy().into_owned();
    home.command(
        env!("CARGO_BIN_EXE_askd"),
        &["mcp", "--url", url, "--token-file", &file],
        &[],
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_adapter_on_a_remote_daemon_starts_none_and_gets_the_answer() {
    // The team's daemon: started by an adapter of its own install.
    let team = Home::new();
    let local = team.adapter("team-box", &[]).await;
    let daemon = team.daemon().expect("the team daemon runs");
    // The agent's machine: an empty home, the token in a file.
    let agent = Home::new();
    let file = agent.path().join("askd-team.token");
    std::fs::write(&file, format!("{}\n", daemon.token)).unwrap();
    let a = Adapter::spawn(
        remote_command(&agent, &format!("{}/", daemon.url), &file),
        "codex-remote",
    )
    .await;
    let call = a
        .start_call(
            "ask_user_question",
            json!({"questions": [{"id": "go", "question": "Ship it today?",
                "options": [{"label": "Yes"}, {"label": "No"}]}]}),
        )
        .await;
    let api = team.api();
    let ask = api.new_ask(&[]).await;
    let id = ask["id"].as_str().unwrap().to_string();
    assert_eq!(ask["client"], "codex-remote");
    api.submit(&id, json!({"answers": [{"id": "go", "selected": ["Yes"]}]}))
        .await;
    let r = finish(call).await;
    let sc = structured(&r);
    assert_eq!(sc["outcome"], "answered", "{r}");
    assert_eq!(sc["answers"][0]["selected"], json!(["Yes"]));
    // Nothing was started or written in the agent's home besides the adapter's log.
    assert!(
        agent.daemon().is_none(),
        "no daemon.json in the agent's home"
    );
    assert!(
        agent.serve_processes().is_empty(),
        "no askd serve for the agent's home"
    );
    assert!(!agent.path().join("token").exists());
    assert!(!agent.path().join("askd.db").exists());
    drop(a);
    drop(local);
}

async fn exits_with(mut cmd: tokio::process::Command) -> (i32, String) {
    cmd.stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped());
    let out = tokio::time::timeout(Duration::from_secs(30), cmd.output())
        .await
        .expect("the adapter exits")
        .expect("run askd mcp");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refused_token_or_a_wrong_address_ends_the_adapter_with_the_fix() {
    let team = Home::new();
    let _local = team.adapter("team-box", &[]).await;
    let daemon = team.daemon().unwrap();
    let agent = Home::new();
    let wrong = agent.path().join("wrong.token");
    std::fs::write(&wrong, "not-the-token").unwrap();
    let (code, err) = exits_with(remote_command(&agent, &daemon.url, &wrong)).await;
    assert_ne!(code, 0);
    assert!(
        err.contains("refuses the token in") && err.contains("(401)"),
        "{err}"
    );
    assert!(err.contains("wrong.token"), "{err}");

    let missing = agent.path().join("missing.token");
    let (code, err) = exits_with(remote_command(&agent, &daemon.url, &missing)).await;
    assert_ne!(code, 0);
    assert!(
        err.contains("--token-file") && err.contains("cannot read it"),
        "{err}"
    );

    std::fs::write(&wrong, daemon.token.as_bytes()).unwrap();
    let (code, err) = exits_with(remote_command(
        &agent,
        &format!("{}/mcp", daemon.url),
        &wrong,
    ))
    .await;
    assert_ne!(code, 0);
    assert!(
        err.contains("--url") && err.contains("without a path"),
        "{err}"
    );

    // --url without --token-file is a usage error.
    let (code, err) = exits_with(agent.command(
        env!("CARGO_BIN_EXE_askd"),
        &["mcp", "--url", &daemon.url],
        &[],
    ))
    .await;
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--token-file"), "{err}");
    assert!(agent.serve_processes().is_empty());
}

/// An agent member's token (`askd members add --agent`): the remote adapter runs on it as on
/// the install's token, while the token itself cannot manage members, pair devices or change
/// settings, and is not a browser login; a person's login token is refused as Bearer.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_agent_token_asks_through_a_remote_adapter_and_manages_nothing() {
    let team = Home::new();
    let local = team.adapter("team-box", &[]).await;
    let daemon = team.daemon().expect("the team daemon runs");
    let api = team.api();
    let (status, made) = api
        .call(
            reqwest::Method::POST,
            "/api/members",
            Some(json!({"name": "ci-bot", "agent": true})),
        )
        .await;
    assert_eq!(status, 201, "{made}");
    assert_eq!(made["member"]["kind"], "agent");
    assert!(made.get("loginUrl").is_none(), "{made}");
    let token = made["token"].as_str().unwrap().to_string();

    let agent = Home::new();
    let file = agent.path().join("ci.token");
    std::fs::write(&file, format!("{token}\n")).unwrap();
    let a = Adapter::spawn(remote_command(&agent, &daemon.url, &file), "ci-remote").await;
    let call = a
        .start_call(
            "ask_user_question",
            json!({"questions": [{"id": "go", "question": "Deploy?",
                "options": [{"label": "Yes"}, {"label": "No"}]}]}),
        )
        .await;
    let ask = api.new_ask(&[]).await;
    let id = ask["id"].as_str().unwrap().to_string();
    api.submit(&id, json!({"answers": [{"id": "go", "selected": ["No"]}]}))
        .await;
    let r = finish(call).await;
    assert_eq!(
        structured(&r)["answers"][0]["selected"],
        json!(["No"]),
        "{r}"
    );

    let http = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    let as_agent = |m: reqwest::Method, p: &str| {
        http.request(m, format!("{}{p}", daemon.url))
            .bearer_auth(&token)
    };
    let me: serde_json::Value = as_agent(reqwest::Method::GET, "/api/me")
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(
        (&me["kind"], &me["name"]),
        (&json!("agent"), &json!("ci-bot"))
    );
    for (m, p) in [
        (reqwest::Method::GET, "/api/members"),
        (reqwest::Method::POST, "/api/pair"),
        (reqwest::Method::GET, "/api/devices"),
        (reqwest::Method::PUT, "/api/settings"),
    ] {
        let r = as_agent(m.clone(), p)
            .json(&json!({}))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status().as_u16(), 403, "{m} {p}");
    }
    let r = as_agent(reqwest::Method::GET, "/api/settings")
        .send()
        .await
        .unwrap();
    assert_eq!(
        r.status().as_u16(),
        200,
        "the adapter reads the saved settings"
    );
    // Not a browser login.
    let r = http
        .get(format!("{}/login/{token}", daemon.url))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 401);
    // A person's login token is not an agent's.
    let (_, person) = api
        .call(
            reqwest::Method::POST,
            "/api/members",
            Some(json!({"name": "Ana"})),
        )
        .await;
    let r = http
        .get(format!("{}/api/asks", daemon.url))
        .bearer_auth(person["token"].as_str().unwrap())
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 401);
    drop(a);
    drop(local);
}

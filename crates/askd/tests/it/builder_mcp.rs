//! End to end: the question builder (`survey.md` §10) through `askd mcp` — a child process
//! driven by an rmcp client, the human answering through the daemon's HTTP API. Each test
//! has its own `ASKD_HOME`, which is also the adapter's working directory and so the
//! session's workspace; draft files appear in `<home>/.askd/survey-drafts/`.
//!
//! The draft file after each step is compared with a golden file in
//! `tests/fixtures/builder/`, timestamps, session ids and ask ids normalised. Set
//! `ASKD_UPDATE_GOLDEN=1` to rewrite the golden files (then review the diff).

use crate::common_mcp;

use std::path::{Path, PathBuf};
use std::time::Duration;

use common_mcp::*;
use serde_json::{Value, json};

const SLUG: &str = "api-deprecation-survey";

fn golden_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/builder")
}

/// The file text with the values of `createdAt`, `updatedAt`, `session` and a non-null
/// `askId` replaced by placeholders; everything else (order, indentation, the trailing
/// newline) is kept byte for byte.
fn normalise(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for line in text.split_inclusive('\n') {
        let mut replaced = None;
        for (member, placeholder) in [
            ("createdAt", "<time>"),
            ("updatedAt", "<time>"),
            ("session", "<session>"),
            ("askId", "<ask>"),
        ] {
            let prefix = format!("  \"{member}\": \"");
            if line.starts_with(&prefix) {
                let comma = if line.trim_end().ends_with(',') {
                    ","
                } else {
                    ""
                };
                let nl = if line.ends_with('\n') { "\n" } else { "" };
                replaced = Some(format!("  \"{member}\": \"{placeholder}\"{comma}{nl}"));
            }
        }
        out.push_str(replaced.as_deref().unwrap_or(line));
    }
    out
}

/// Checks a draft file against `tests/fixtures/builder/<golden>`.
fn check_golden(file: &Path, golden: &str) {
    let text = std::fs::read_to_string(file)
        .unwrap_or_else(|e| panic!("read draft file {}: {e}", file.display()));
    assert!(text.ends_with("}\n"), "a trailing newline");
    let got = normalise(&text);
    let path = golden_dir().join(golden);
    if std::env::var_os("ASKD_UPDATE_GOLDEN").is_some() {
        std::fs::create_dir_all(golden_dir()).unwrap();
        std::fs::write(&path, &got).unwrap();
        return;
    }
    let want = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("golden file {}: {e}", path.display()));
    assert_eq!(
        got,
        want,
        "draft file {} differs from {golden}",
        file.display()
    );
}

fn draft_file(home: &Home, slug: &str) -> PathBuf {
    home.path()
        .join(".askd/survey-drafts")
        .join(format!("{slug}.json"))
}

/// A successful builder call's structured result.
async fn ok(a: &Adapter, tool: &str, args: Value) -> Value {
    let r = a.call(tool, args).await;
    assert_ne!(r["isError"], true, "{tool}: {r}");
    structured(&r)
}

/// A refused builder call's `{code, message, …}`.
async fn refused(a: &Adapter, tool: &str, args: Value) -> Value {
    let r = a.call(tool, args).await;
    assert_eq!(r["isError"], true, "{tool} should be refused: {r}");
    let e = r["structuredContent"]["error"].clone();
    assert_eq!(
        r["content"][0]["text"], e["message"],
        "the message comes first as text"
    );
    e
}

fn keys5() -> Value {
    json!([{"key": "a"}, {"key": "b"}, {"key": "c"}, {"key": "d"}, {"key": "e"}])
}

/// The skeleton: `policy` branches to `window` on a and b, ends on e, else goes to `comms`.
fn skeleton() -> Value {
    json!({"entry": "policy", "questions": {
        "policy": {"options": [{"key": "a", "next": "window"}, {"key": "b", "next": "window"},
                               {"key": "c"}, {"key": "d"}, {"key": "e", "next": null}],
                   "next": "comms"},
        "window": {"prompt": "TODO: window length", "options": keys5(), "next": "comms"},
        "comms": {"options": keys5()}
    }})
}

/// A finished option (by key or, without `key`, by index).
fn option(key: Option<&str>, topic: &str, n: usize, source: &str) -> Value {
    let mut o = json!({
        "label": format!("{topic} stance {n}"),
        "description": format!("The {topic} follows stance number {n}."),
        "insight": format!("- **Promise** — {topic} {n} is proven at Stripe.\n- **Price** — It costs {n} weeks.\n- **Present** — `api/v{n}/` has 14 endpoints."),
        "sources": [source]
    });
    if let Some(k) = key {
        o["key"] = json!(k);
    }
    o
}

fn keyed_options(topic: &str) -> Value {
    json!(
        ["a", "b", "c", "d", "e"]
            .iter()
            .enumerate()
            .map(|(i, k)| option(
                Some(k),
                topic,
                i + 1,
                if i == 0 {
                    "docs/api/v2.md"
                } else {
                    "Vendor handbook"
                }
            ))
            .collect::<Vec<_>>()
    )
}

fn indexed_options(topic: &str) -> Value {
    json!(
        (0..5)
            .map(|i| option(
                None,
                topic,
                i + 1,
                if i == 2 {
                    "https://example.com/deprecations"
                } else {
                    "Team wiki"
                }
            ))
            .collect::<Vec<_>>()
    )
}

/// Every field a fresh question with five key-only options misses.
fn all_missing() -> String {
    let mut m: Vec<String> = vec!["prompt".into()];
    for i in 0..5 {
        for f in ["label", "description", "insight", "sources"] {
            m.push(format!("options[{i}].{f}"));
        }
    }
    m.join(", ")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn begin_patch_get_refused_launch_patch_launch_answer() {
    let home = Home::new();
    let a = home.adapter("claude-code", &[]).await;
    let file = draft_file(&home, SLUG);

    // Nothing yet.
    let e = refused(&a, "survey_draft_get", json!({})).await;
    assert_eq!(e["code"], "SURVEY_DRAFT_MISSING");
    assert_eq!(
        e["message"],
        "survey_draft_get failed: no draft yet — begin one with survey_draft_set op=begin"
    );

    // begin: the skeleton, stubbed in.
    let r = ok(
        &a,
        "survey_draft_set",
        json!({"op": "begin", "title": "API Deprecation Survey", "survey": skeleton()}),
    )
    .await;
    assert_eq!(
        r,
        json!({
            "op": "begin", "slug": SLUG, "title": "API Deprecation Survey", "status": "building",
            "revision": 0, "grounding": {"mode": "standard", "ready": false}, "active": true,
            "file": ".askd/survey-drafts/api-deprecation-survey.json",
            "completeness": {
                "ready": false,
                "totals": {"questions": 3, "complete": 0, "missingFields": 63},
                "incomplete": [
                    {"id": "policy", "missing": all_missing().split(", ").collect::<Vec<_>>()},
                    {"id": "window", "missing": all_missing().split(", ").collect::<Vec<_>>()},
                    {"id": "comms", "missing": all_missing().split(", ").collect::<Vec<_>>()}
                ],
                "surveyLevel": []
            }
        })
    );
    check_golden(&file, "01-begin.json");

    // patch: policy's prose, options by key, in any order.
    let mut opts = keyed_options("policy");
    opts.as_array_mut().unwrap().reverse();
    let r = ok(
        &a,
        "survey_draft_set",
        json!({"op": "patch", "questions": {"policy": {
            "prompt": "Which deprecation policy fits the public API?",
            "header": "Policy",
            "options": opts
        }}}),
    )
    .await;
    assert_eq!(r["revision"], 0, "a patch never bumps the revision");
    assert_eq!(
        r["completeness"]["totals"],
        json!({"questions": 3, "complete": 1, "missingFields": 42})
    );
    check_golden(&file, "02-patch-policy.json");

    // get: the gaps, listed.
    let g = ok(&a, "survey_draft_get", json!({})).await;
    assert_eq!(g["slug"], SLUG);
    assert_eq!(g["active"], true);
    assert_eq!(g["validation"], json!({"ok": true, "errors": []}));
    let ids: Vec<&str> = g["completeness"]["incomplete"]
        .as_array()
        .unwrap()
        .iter()
        .map(|q| q["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["window", "comms"]);
    assert_eq!(g["grounding"]["mode"], "standard");
    assert_eq!(g["grounding"]["ready"], false);

    // launch: refused with the exact list; nothing is shown.
    let e = refused(&a, "survey_draft_launch", json!({})).await;
    assert_eq!(e["code"], "SURVEY_DRAFT_INCOMPLETE");
    assert_eq!(
        e["message"],
        format!(
            "survey_draft_launch blocked — required fields still missing. Fix them with survey_draft_set op=patch, then relaunch:\n- window: {}\n- comms: {}",
            all_missing(),
            all_missing()
        )
    );
    assert!(home.api().asks().await.is_empty(), "no ask was created");

    // Prose only: a rewire is refused and points at op=structure; too many questions too.
    let e = refused(
        &a,
        "survey_draft_set",
        json!({"op": "patch", "questions": {"policy": {"options": [{"key": "c", "next": "window"}]}}}),
    )
    .await;
    assert_eq!(e["code"], "SURVEY_DRAFT_BAD_OP");
    assert_eq!(
        e["message"],
        "patch is prose-only — \"policy.options[2].next\" would rewire the graph; rewire with op=structure"
    );
    let e = refused(
        &a,
        "survey_draft_set",
        json!({"op": "patch", "questions": {"policy": {}, "window": {}, "comms": {}, "x": {}}}),
    )
    .await;
    assert!(
        e["message"]
            .as_str()
            .unwrap()
            .contains("at most 3 per call"),
        "{e}"
    );
    check_golden(&file, "02-patch-policy.json");

    // patch: the other two questions (window by key, comms by index) and the intro.
    let r = ok(
        &a,
        "survey_draft_set",
        json!({"op": "patch", "intro": "Three decisions about retiring API v1. About three minutes.",
               "questions": {
                   "window": {"prompt": "How long do deprecated endpoints keep working?",
                              "options": keyed_options("window")},
                   "comms": {"prompt": "How are users told about a deprecation?",
                             "options": indexed_options("comms")}
               }}),
    )
    .await;
    assert_eq!(r["completeness"]["ready"], true, "{r}");
    assert_eq!(r["grounding"], json!({"mode": "standard", "ready": true}));
    check_golden(&file, "03-patch-rest.json");
    let g = ok(&a, "survey_draft_get", json!({"slug": SLUG})).await;
    assert_eq!(
        g["completeness"]["totals"],
        json!({"questions": 3, "complete": 3, "missingFields": 0})
    );
    assert_eq!(g["grounding"]["gaps"], json!([]));

    // launch: the wizard; the human answers over HTTP.
    let call = a.start_call("survey_draft_launch", json!({})).await;
    let api = home.api();
    let ask = api.new_ask(&[]).await;
    let id = ask["id"].as_str().unwrap().to_string();
    assert_eq!(ask["kind"], "survey");
    assert_eq!(ask["title"], "API Deprecation Survey");
    let manifest = api.get("/api/drafts").await;
    assert_eq!(manifest["drafts"][SLUG]["status"], "launched");
    assert_eq!(manifest["drafts"][SLUG]["askId"], id.as_str());
    // The manifest commits with the ask; the file follows right after.
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    while !std::fs::read_to_string(&file)
        .unwrap_or_default()
        .contains("\"status\": \"launched\"")
    {
        assert!(
            std::time::Instant::now() < deadline,
            "the file says launched"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    check_golden(&file, "04-launched.json");
    api.submit(
        &id,
        json!({"answers": [
            {"id": "policy", "selected": ["a"]},
            {"id": "window", "selected": ["b"]},
            {"id": "comms", "selected": ["c"], "justifications": {"c": "Users read the changelog."}}
        ]}),
    )
    .await;
    let r = finish(call).await;
    assert_ne!(r["isError"], true, "{r}");
    let sc = structured(&r);
    assert_eq!(sc["outcome"], "answered");
    assert_eq!(sc["ask_id"], id.as_str());
    assert_eq!(sc["draft"], SLUG);
    assert_eq!(sc["path"], json!(["policy", "window", "comms"]));
    assert_eq!(sc["handling"], SURVEY_HANDLING);
    check_golden(&file, "05-answered.json");

    let g = ok(&a, "survey_draft_get", json!({})).await;
    assert_eq!(g["status"], "answered");
    assert_eq!(g["askId"], id.as_str());
    let e = refused(&a, "survey_draft_launch", json!({})).await;
    assert_eq!(e["code"], "SURVEY_DRAFT_STATE");
    assert_eq!(
        e["message"],
        format!(
            "survey_draft_launch refused — draft \"{SLUG}\" was already answered (ask {id}); patch it to launch a revised version"
        )
    );

    // The manifest, the events and the UI API see the same draft.
    let manifest = api.get("/api/drafts").await;
    assert_eq!(manifest["v"], 1);
    let d = &manifest["drafts"][SLUG];
    assert_eq!(d["status"], "answered");
    assert_eq!(
        d["progress"],
        json!({"questions": 3, "complete": 3, "missingFields": 0})
    );
    assert_eq!(d["ready"], true);
    assert_eq!(d["file"], file.to_string_lossy().as_ref());
    let session = d["session"].as_str().unwrap();
    assert_eq!(manifest["activeBySession"][session], SLUG);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reroll_reopens_the_draft_and_the_loop_continues() {
    let home = Home::new();
    let a = home.adapter("codex-like", &[]).await;
    let api = home.api();
    let survey = json!({"title": "Cache policy", "intro": "One decision.", "entry": "q",
        "questions": {"q": {"prompt": "Which cache policy?", "options": keyed_options("cache")}}});
    let r = ok(
        &a,
        "survey_draft_set",
        json!({"op": "begin", "survey": survey}),
    )
    .await;
    let slug = r["slug"].as_str().unwrap().to_string();
    assert_eq!(slug, "cache-policy");
    assert_eq!(r["completeness"]["ready"], true);

    let call = a.start_call("survey_draft_launch", json!({})).await;
    let ask = api.new_ask(&[]).await;
    let id = ask["id"].as_str().unwrap().to_string();
    api.post(
        &format!("/api/asks/{id}/preflight"),
        json!({"action": "reroll"}),
    )
    .await;
    let sc = structured(&finish(call).await);
    assert_eq!(sc["outcome"], "reroll");
    assert_eq!(sc["draft"], slug.as_str());
    assert_eq!(sc["draftReopened"], true);
    let instruction = sc["instruction"].as_str().unwrap();
    assert!(instruction.contains("Reroll"), "{instruction}");
    assert!(
        instruction.contains("re-enter the builder loop for this slug"),
        "{instruction}"
    );
    check_golden(&draft_file(&home, &slug), "06-reopened.json");
    let g = ok(&a, "survey_draft_get", json!({})).await;
    assert_eq!(g["status"], "reopened");
    assert_eq!(g["active"], true);

    // Back in the loop: patch, then launch again; a pending launch re-attaches.
    let r = ok(
        &a,
        "survey_draft_set",
        json!({"op": "patch", "questions": {"q": {"detail": "Escalated: two more systems studied."}}}),
    )
    .await;
    assert_eq!(r["status"], "building");
    let first = ok(&a, "survey_draft_launch", json!({"timeout_s": 0})).await;
    assert_eq!(first["outcome"], "pending");
    assert_eq!(first["draft"], slug.as_str());
    let second_id = first["ask_id"].as_str().unwrap().to_string();
    assert_ne!(second_id, id);
    let again = ok(&a, "survey_draft_launch", json!({"timeout_s": 0})).await;
    assert_eq!(again["ask_id"], second_id.as_str(), "re-attached");
    // Edits wait for the user.
    let e = refused(
        &a,
        "survey_draft_set",
        json!({"op": "patch", "intro": "Changed"}),
    )
    .await;
    assert_eq!(e["code"], "SURVEY_DRAFT_STATE");
    assert_eq!(
        e["message"],
        format!(
            "draft \"{slug}\" is launched and waiting for the user (ask {second_id}) — wait for the result with await_answer before editing or discarding it"
        )
    );
    // The user dismisses it: the waiting launch gets the cancelled error naming the draft,
    // which is reopened.
    let call = a.start_call("survey_draft_launch", json!({})).await;
    tokio::time::sleep(Duration::from_millis(100)).await;
    api.post(&format!("/api/asks/{second_id}/cancel"), json!({}))
        .await;
    let r = finish(call).await;
    assert_eq!(r["isError"], true, "{r}");
    assert_eq!(
        r["structuredContent"]["error"],
        json!({"code": "SURVEY_CANCELLED", "message": "the user cancelled the survey",
               "ask_id": second_id, "draft": slug, "draftReopened": true})
    );
    let g = ok(&a, "survey_draft_get", json!({})).await;
    assert_eq!(g["status"], "reopened");
    assert_eq!(g["active"], true);

    // Discard, then the explicit slug still finds it; reopen brings it back.
    let d = ok(&a, "survey_draft_set", json!({"op": "discard"})).await;
    assert_eq!(
        d,
        json!({"op": "discard", "slug": slug, "status": "discarded", "active": false})
    );
    let e = refused(&a, "survey_draft_get", json!({})).await;
    assert_eq!(e["code"], "SURVEY_DRAFT_MISSING");
    let g = ok(&a, "survey_draft_get", json!({"slug": slug})).await;
    assert_eq!(g["status"], "discarded");
    assert_eq!(g["active"], false);
    let e = refused(&a, "survey_draft_launch", json!({"slug": slug})).await;
    assert_eq!(
        e["message"],
        format!(
            "survey_draft_launch refused — draft \"{slug}\" is discarded; patch it to revive it, or begin a new draft"
        )
    );
    let r = ok(
        &a,
        "survey_draft_set",
        json!({"op": "reopen", "slug": slug}),
    )
    .await;
    assert_eq!(r["status"], "building");
    assert_eq!(r["active"], true);

    // A second begin of the same title gets the next free slug.
    let r = ok(
        &a,
        "survey_draft_set",
        json!({"op": "begin", "survey": {"title": "Cache policy", "entry": "q",
               "questions": {"q": {"options": keys5()}}}}),
    )
    .await;
    assert_eq!(r["slug"], "cache-policy-2");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn structure_is_refused_at_the_cap_while_content_patches_work() {
    let home = Home::new();
    let a = home
        .adapter("cap-test", &[("ASKD_SURVEY_STRUCTURE_QUESTION_CAP", "3")])
        .await;
    let file = draft_file(&home, SLUG);
    ok(
        &a,
        "survey_draft_set",
        json!({"op": "begin", "title": "API Deprecation Survey", "survey": skeleton()}),
    )
    .await;

    // Under the cap: a structure edit replaces the graph, carries prose, bumps the revision.
    ok(
        &a,
        "survey_draft_set",
        json!({"op": "patch", "questions": {"comms": {"prompt": "How are users told?"}}}),
    )
    .await;
    let r = ok(
        &a,
        "survey_draft_set",
        json!({"op": "structure", "survey": {"entry": "policy", "questions": {
            "policy": {"options": [{"key": "a", "next": "comms"}, {"key": "b"}, {"key": "c"},
                                   {"key": "d"}, {"key": "e", "next": null}], "next": "comms"},
            "comms": {"options": keys5()}
        }}}),
    )
    .await;
    assert_eq!(r["revision"], 1);
    assert_eq!(r["completeness"]["totals"]["questions"], 2);
    check_golden(&file, "07-structure.json");

    // At the cap (3 incoming, cap 3): refused; nothing written.
    let e = refused(
        &a,
        "survey_draft_set",
        json!({"op": "structure", "survey": skeleton()}),
    )
    .await;
    assert_eq!(e["code"], "SURVEY_DRAFT_BAD_OP");
    assert_eq!(
        e["message"],
        "structure refused: the incoming graph has 3 questions and the cap is 3 (drafts freeze for structure edits at the cap) — content patches continue to work"
    );
    check_golden(&file, "07-structure.json");

    // Content patches still work.
    let r = ok(
        &a,
        "survey_draft_set",
        json!({"op": "patch", "questions": {"policy": {"prompt": "Which policy?"}}}),
    )
    .await;
    assert_eq!(r["revision"], 1);
    let g = ok(&a, "survey_draft_get", json!({})).await;
    assert_eq!(
        g["completeness"]["incomplete"][0]["missing"][0],
        "options[0].label"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_frozen_draft_says_so_when_a_patch_would_rewire() {
    let home = Home::new();
    let a = home
        .adapter("cap-test", &[("ASKD_SURVEY_STRUCTURE_QUESTION_CAP", "3")])
        .await;
    ok(
        &a,
        "survey_draft_set",
        json!({"op": "begin", "title": "API Deprecation Survey", "survey": skeleton()}),
    )
    .await;
    let e = refused(
        &a,
        "survey_draft_set",
        json!({"op": "patch", "questions": {"comms": {"next": "window"}}}),
    )
    .await;
    assert_eq!(
        e["message"],
        "patch is prose-only — \"comms.next\" would rewire the graph; rewire with op=structure (structure edits are frozen: the draft has 3 questions and the cap is 3 — content patches still work)"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn file_params_are_confined_to_the_workspace() {
    let home = Home::new();
    let a = home.adapter("file-test", &[]).await;
    let outside = tempfile::tempdir().unwrap();
    let payload = json!({"op": "begin", "title": "From a file", "survey": skeleton()});
    std::fs::write(outside.path().join("payload.json"), payload.to_string()).unwrap();
    let ws = std::fs::canonicalize(home.path()).unwrap();
    let outside_name = outside.path().file_name().unwrap().to_str().unwrap();

    // ../ out of the workspace.
    let escape = format!("../{outside_name}/payload.json");
    let e = refused(&a, "survey_draft_set", json!({"file": escape})).await;
    assert_eq!(e["code"], "SURVEY_DRAFT_BAD_FILE");
    assert_eq!(
        e["message"],
        format!(
            "survey_draft_set file \"{escape}\" must live inside the workspace ({})",
            ws.display()
        )
    );
    // An absolute path elsewhere.
    let abs = outside.path().join("payload.json");
    let e = refused(
        &a,
        "survey_draft_set",
        json!({"file": abs.to_str().unwrap()}),
    )
    .await;
    assert!(
        e["message"]
            .as_str()
            .unwrap()
            .contains("must live inside the workspace"),
        "{e}"
    );
    // A symlink inside the workspace that points out of it.
    std::os::unix::fs::symlink(abs.as_path(), home.path().join("link.json")).unwrap();
    let e = refused(&a, "survey_draft_set", json!({"file": "link.json"})).await;
    assert_eq!(e["code"], "SURVEY_DRAFT_BAD_FILE");
    assert!(
        e["message"]
            .as_str()
            .unwrap()
            .contains("must live inside the workspace"),
        "{e}"
    );
    std::os::unix::fs::symlink(outside.path(), home.path().join("dirlink")).unwrap();
    let e = refused(
        &a,
        "survey_draft_set",
        json!({"file": "dirlink/payload.json"}),
    )
    .await;
    assert!(
        e["message"]
            .as_str()
            .unwrap()
            .contains("must live inside the workspace"),
        "{e}"
    );
    // Missing, not JSON, not an object.
    let e = refused(&a, "survey_draft_set", json!({"file": "nope.json"})).await;
    assert_eq!(
        e["message"],
        format!(
            "survey_draft_set file \"nope.json\" could not be read (resolved: {})",
            ws.join("nope.json").display()
        )
    );
    std::fs::write(home.path().join("bad.json"), "{\"op\": ").unwrap();
    let e = refused(&a, "survey_draft_set", json!({"file": "bad.json"})).await;
    assert!(
        e["message"]
            .as_str()
            .unwrap()
            .starts_with("survey_draft_set file \"bad.json\" is not valid JSON: "),
        "{e}"
    );
    std::fs::write(home.path().join("list.json"), "[1]").unwrap();
    let e = refused(&a, "survey_draft_set", json!({"file": "list.json"})).await;
    assert_eq!(
        e["message"],
        "survey_draft_set file \"list.json\" must carry a JSON object"
    );
    assert!(
        !home
            .path()
            .join(".askd/survey-drafts/from-a-file.json")
            .exists(),
        "nothing was written"
    );

    // Inside the workspace it works, and inline arguments win.
    std::fs::create_dir_all(home.path().join("plans")).unwrap();
    std::fs::write(home.path().join("plans/payload.json"), payload.to_string()).unwrap();
    let r = ok(
        &a,
        "survey_draft_set",
        json!({"file": "plans/payload.json", "title": "Inline title"}),
    )
    .await;
    assert_eq!(r["slug"], "inline-title");
    assert_eq!(r["title"], "Inline title");
    // A patch from a file.
    std::fs::write(
        home.path().join("plans/patch.json"),
        json!({"op": "patch", "questions": {"comms": {"prompt": "From the file"}}}).to_string(),
    )
    .unwrap();
    ok(&a, "survey_draft_set", json!({"file": "plans/patch.json"})).await;
    let text = std::fs::read_to_string(draft_file(&home, "inline-title")).unwrap();
    assert!(text.contains("\"prompt\": \"From the file\""), "{text}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hand_edit_is_read_and_a_lost_manifest_entry_is_found_again() {
    let home = Home::new();
    let a = home.adapter("hand-edit", &[]).await;
    ok(
        &a,
        "survey_draft_set",
        json!({"op": "begin", "title": "API Deprecation Survey", "survey": skeleton()}),
    )
    .await;
    let file = draft_file(&home, SLUG);
    let mut v: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    v["survey"]["questions"]["comms"]["prompt"] = json!("Edited by hand");
    v["survey"]["entry"] = json!("nowhere");
    std::fs::write(&file, serde_json::to_string_pretty(&v).unwrap()).unwrap();
    let g = ok(&a, "survey_draft_get", json!({})).await;
    assert_eq!(g["validation"]["ok"], false);
    assert_eq!(g["completeness"]["totals"]["missingFields"], 62);
    let e = refused(&a, "survey_draft_launch", json!({})).await;
    assert_eq!(e["code"], "SURVEY_DRAFT_BAD_SPEC");
    assert!(
        e["message"]
            .as_str()
            .unwrap()
            .starts_with("survey_draft_launch blocked — fix the structure first (op=structure): "),
        "{e}"
    );
    // A file the manifest does not know is registered by an explicit slug.
    let mut copy = v.clone();
    copy["slug"] = json!("by-hand");
    copy["survey"]["entry"] = json!("policy");
    std::fs::write(
        draft_file(&home, "by-hand"),
        serde_json::to_string_pretty(&copy).unwrap(),
    )
    .unwrap();
    let g = ok(&a, "survey_draft_get", json!({"slug": "by-hand"})).await;
    assert_eq!(g["validation"]["ok"], true);
    assert_eq!(g["active"], false);
    // A deleted file "could not be read".
    std::fs::remove_file(&file).unwrap();
    let e = refused(&a, "survey_draft_get", json!({})).await;
    assert_eq!(e["code"], "SURVEY_DRAFT_MISSING");
    assert_eq!(
        e["message"],
        format!(
            "survey_draft_get failed: draft \"{SLUG}\" could not be read — it may have been deleted by hand"
        )
    );
}

/// One JSON-RPC POST to `/mcp`: (status, the JSON-RPC message with `id`).
async fn mcp_post(
    http: &reqwest::Client,
    url: &str,
    token: &str,
    session: Option<&str>,
    body: Value,
) -> (u16, Option<String>, Value) {
    let mut req = http
        .post(format!("{url}/mcp"))
        .header("Accept", "application/json, text/event-stream")
        .header("Content-Type", "application/json")
        .header("MCP-Protocol-Version", "2025-06-18")
        .bearer_auth(token)
        .body(body.to_string());
    if let Some(s) = session {
        req = req.header("Mcp-Session-Id", s);
    }
    let resp = req.send().await.expect("POST /mcp");
    let status = resp.status().as_u16();
    let session = resp
        .headers()
        .get("mcp-session-id")
        .and_then(|v| v.to_str().ok())
        .map(str::to_string);
    let text = resp.text().await.unwrap_or_default();
    let id = body.get("id").cloned();
    let message = text
        .lines()
        .filter_map(|l| l.strip_prefix("data:"))
        .filter_map(|d| serde_json::from_str::<Value>(d.trim()).ok())
        .find(|m| id.is_some() && m.get("id") == id.as_ref())
        .or_else(|| serde_json::from_str(&text).ok())
        .unwrap_or(Value::Null);
    (status, session, message)
}

/// The daemon's own `/mcp` (the in-process backend): a session without a workspace keeps
/// its drafts under the data directory, reported by absolute path.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_daemon_mcp_endpoint_builds_drafts_without_a_workspace() {
    let home = Home::new();
    let _starter = home.adapter("starter", &[]).await;
    let api = home.api();
    let (url, token) = (api.daemon.url.clone(), api.daemon.token.clone());
    let http = reqwest::Client::new();
    let (status, session, _) = mcp_post(
        &http,
        &url,
        &token,
        None,
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "http-agent", "version": "1.0"}}}),
    )
    .await;
    assert_eq!(status, 200);
    let session = session.expect("an Mcp-Session-Id");
    mcp_post(
        &http,
        &url,
        &token,
        Some(&session),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
    )
    .await;
    let (_, _, m) = mcp_post(
        &http,
        &url,
        &token,
        Some(&session),
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
            "name": "survey_draft_set",
            "arguments": {"op": "begin", "title": "No workspace", "survey": skeleton()}}}),
    )
    .await;
    let r = &m["result"]["structuredContent"];
    assert_eq!(r["slug"], "no-workspace", "{m}");
    let expected = std::fs::canonicalize(home.path())
        .unwrap()
        .join("survey-drafts/files/no-workspace.json");
    assert_eq!(r["file"], expected.to_string_lossy().as_ref());
    assert!(expected.exists());
    // file= needs a workspace.
    let (_, _, m) = mcp_post(
        &http,
        &url,
        &token,
        Some(&session),
        json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {
            "name": "survey_draft_set", "arguments": {"file": "x.json"}}}),
    )
    .await;
    assert_eq!(m["result"]["isError"], true, "{m}");
    assert_eq!(
        m["result"]["structuredContent"]["error"]["message"],
        "survey_draft_set file= needs a session workspace — send the payload inline instead"
    );
    let (_, _, m) = mcp_post(
        &http,
        &url,
        &token,
        Some(&session),
        json!({"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {
            "name": "survey_draft_get", "arguments": {}}}),
    )
    .await;
    assert_eq!(
        m["result"]["structuredContent"]["completeness"]["totals"]["questions"], 3,
        "{m}"
    );
    tokio::time::sleep(Duration::from_millis(10)).await;
}

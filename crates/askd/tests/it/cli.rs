//! The `askd survey` CLI contract, driven through the built binary.

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};

use serde_json::Value;

fn fixture(name: &str) -> String {
    let mut p = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    p.push("tests/fixtures");
    p.push(name);
    p.to_string_lossy().into_owned()
}

fn askd(args: &[&str], stdin: Option<&str>) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_askd"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn askd");
    {
        let mut input = child.stdin.take().expect("stdin");
        if let Some(text) = stdin {
            input.write_all(text.as_bytes()).expect("write stdin");
        }
    }
    child.wait_with_output().expect("askd output")
}

fn stdout_json(out: &Output) -> Value {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "stdout is not one JSON document ({e}): {}",
            String::from_utf8_lossy(&out.stdout)
        )
    })
}

fn write_temp(name: &str, text: &str) -> String {
    let dir = std::env::temp_dir().join(format!("askd-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p.to_string_lossy().into_owned()
}

#[test]
fn validate_valid_file_prints_ok_and_the_repaired_normal_form() {
    let out = askd(
        &["survey", "validate", &fixture("release-scope.json")],
        None,
    );
    assert_eq!(out.status.code(), Some(0));
    let v = stdout_json(&out);
    assert_eq!(v["ok"], true);
    let spec = &v["spec"];
    assert_eq!(spec["entry"], "scope");
    // Document order of the questions is kept.
    let ids: Vec<&str> = spec["questions"]
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(ids, ["scope", "api", "core", "ship"]);
    // `next: null` survives, other nulls and unknown fields do not.
    assert_eq!(
        spec["questions"]["scope"]["options"][3]["next"],
        Value::Null
    );
    assert!(
        spec["questions"]["scope"]["options"][3]
            .get("next")
            .is_some()
    );
    // The literal `\n` before a letter is protected (§5.1 rule 3).
    assert_eq!(
        spec["intro"],
        "Three decisions for the 2.0 release.\\nAbout two minutes."
    );
}

#[test]
fn validate_reads_standard_input_by_default_and_with_dash() {
    let text = std::fs::read_to_string(fixture("release-scope.json")).unwrap();
    for args in [
        &["survey", "validate"][..],
        &["survey", "validate", "-"][..],
    ] {
        let out = askd(args, Some(&text));
        assert_eq!(out.status.code(), Some(0), "{args:?}");
        assert_eq!(stdout_json(&out)["ok"], true);
    }
}

#[test]
fn validate_repairs_escapes_in_prose() {
    let text = r#"{"survey":{"entry":"q","questions":{"q":{"prompt":"Done?\\n","header":"Scope\\n\\nDelivery"}}}}"#;
    let out = askd(&["survey", "validate"], Some(text));
    assert_eq!(out.status.code(), Some(0));
    let v = stdout_json(&out);
    assert_eq!(v["spec"]["questions"]["q"]["prompt"], "Done?\n");
    assert_eq!(v["spec"]["questions"]["q"]["header"], "Scope  Delivery");
}

#[test]
fn validate_invalid_spec_exits_1_with_joined_message_and_error_list() {
    let out = askd(&["survey", "validate", &fixture("three-errors.json")], None);
    assert_eq!(out.status.code(), Some(1));
    let v = stdout_json(&out);
    assert_eq!(v["ok"], false);
    let errors = v["errors"].as_array().unwrap();
    let codes: Vec<&str> = errors.iter().map(|e| e["code"].as_str().unwrap()).collect();
    assert_eq!(codes, ["options_too_few", "prompt_missing", "next_unknown"]);
    let paths: Vec<&str> = errors.iter().map(|e| e["path"].as_str().unwrap()).collect();
    assert_eq!(
        paths,
        [
            "questions.q1.options",
            "questions.q2.prompt",
            "questions.q3.options[0].next"
        ]
    );
    assert_eq!(errors[2]["nearest"], "q1");
    let joined: Vec<&str> = errors
        .iter()
        .map(|e| e["message"].as_str().unwrap())
        .collect();
    assert_eq!(
        v["message"].as_str().unwrap(),
        format!("invalid survey spec: {}", joined.join("; "))
    );
    assert!(v["message"].as_str().unwrap().ends_with(
        "questions.q3.options[0] next \"q9\" names no question (did you mean \"q1\"?). Defined ids: q1, q2, q3. Add the missing question to the map, or fix the reference."
    ));
}

#[test]
fn validate_truncated_arguments_report_the_resolution_failure() {
    let out = askd(
        &["survey", "validate"],
        Some(r#"{"survey": {"entry": "q1", "questio"#),
    );
    assert_eq!(out.status.code(), Some(1));
    let v = stdout_json(&out);
    let msg = v["message"].as_str().unwrap();
    assert!(
        msg.starts_with("invalid survey argument: The ask_survey arguments arrived as raw text")
    );
    assert!(msg.contains("failed to parse as JSON"));
    assert!(msg.contains("cut off"));
    assert!(msg.contains("SMALLER"));
    assert!(msg.contains("35 characters arrived"));
    assert_eq!(v["errors"][0]["code"], "args_unparseable");
    assert_eq!(v["errors"][0]["path"], "");
}

#[test]
fn validate_empty_arguments_report_no_survey_field() {
    let out = askd(&["survey", "validate"], Some("{}"));
    assert_eq!(out.status.code(), Some(1));
    let v = stdout_json(&out);
    assert!(
        v["message"]
            .as_str()
            .unwrap()
            .starts_with("invalid survey argument: ask_survey received no \"survey\" field")
    );
}

#[test]
fn validate_missing_file_is_a_usage_error() {
    let out = askd(&["survey", "validate", "/nonexistent/askd/spec.json"], None);
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot read"));
}

#[test]
fn unknown_subcommand_or_flag_is_a_usage_error() {
    assert_eq!(askd(&["survey", "bogus"], None).status.code(), Some(2));
    assert_eq!(
        askd(&["survey", "validate", "--nope"], None).status.code(),
        Some(2)
    );
    assert_eq!(
        askd(&["survey", "path", "only-one"], None).status.code(),
        Some(2)
    );
}

#[test]
fn path_follows_the_selected_branch() {
    let answers = write_temp("answers-b.json", r#"{"scope":{"selected":["b"]}}"#);
    let out = askd(
        &["survey", "path", &fixture("release-scope.json"), &answers],
        None,
    );
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(
        stdout_json(&out),
        serde_json::json!({"path": ["scope", "core", "ship"]})
    );
}

#[test]
fn path_branch_end_skip_and_unanswered() {
    let spec = fixture("release-scope.json");
    let cases = [
        (r#"{"scope":{"selected":["d"]}}"#, vec!["scope"]),
        (
            r#"{"scope":{"selected":["a"],"skipped":true}}"#,
            vec!["scope", "ship"],
        ),
        (
            r#"{"scope":{"selected":[],"custom":"something else"}}"#,
            vec!["scope", "ship"],
        ),
        (r#"{}"#, vec!["scope", "ship"]),
    ];
    for (i, (answers, expected)) in cases.iter().enumerate() {
        let file = write_temp(&format!("answers-{i}.json"), answers);
        let out = askd(&["survey", "path", &spec, &file], None);
        assert_eq!(out.status.code(), Some(0), "{answers}");
        assert_eq!(
            stdout_json(&out)["path"],
            serde_json::json!(expected),
            "{answers}"
        );
    }
}

#[test]
fn path_reads_answers_from_standard_input() {
    let out = askd(
        &["survey", "path", &fixture("release-scope.json"), "-"],
        Some(r#"{"scope":{"selected":["a"]}}"#),
    );
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(
        stdout_json(&out)["path"],
        serde_json::json!(["scope", "api", "ship"])
    );
}

#[test]
fn path_with_an_invalid_spec_prints_the_validation_failure() {
    let answers = write_temp("answers-empty.json", "{}");
    let out = askd(
        &["survey", "path", &fixture("three-errors.json"), &answers],
        None,
    );
    assert_eq!(out.status.code(), Some(1));
    let v = stdout_json(&out);
    assert_eq!(v["ok"], false);
    assert!(
        v["message"]
            .as_str()
            .unwrap()
            .starts_with("invalid survey spec: ")
    );
}

#[test]
fn path_with_malformed_answers_names_the_field() {
    let answers = write_temp("answers-bad.json", r#"{"scope":{"selected":"a"}}"#);
    let out = askd(
        &["survey", "path", &fixture("release-scope.json"), &answers],
        None,
    );
    assert_eq!(out.status.code(), Some(1));
    let v = stdout_json(&out);
    assert_eq!(v["errors"][0]["path"], "scope.selected");
    assert_eq!(v["errors"][0]["code"], "selected_type");
    let not_object = write_temp("answers-array.json", "[]");
    let out = askd(
        &[
            "survey",
            "path",
            &fixture("release-scope.json"),
            &not_object,
        ],
        None,
    );
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(stdout_json(&out)["errors"][0]["code"], "answers_type");
}

#[test]
fn schema_attaches_every_nested_shape() {
    let out = askd(&["survey", "schema"], None);
    assert_eq!(out.status.code(), Some(0));
    let v = stdout_json(&out);
    assert_eq!(v["type"], "object");
    assert_eq!(v["required"], serde_json::json!(["survey"]));
    let survey = &v["properties"]["survey"];
    assert_eq!(
        survey["required"],
        serde_json::json!(["entry", "questions"])
    );
    let question = &survey["properties"]["questions"]["additionalProperties"];
    assert_eq!(question["properties"]["prompt"]["maxLength"], 4000);
    let option = &question["properties"]["options"]["items"];
    for field in [
        "key",
        "label",
        "description",
        "insight",
        "diagram",
        "sources",
        "recommended",
        "next",
    ] {
        assert!(option["properties"].get(field).is_some(), "option.{field}");
    }
    let template = &survey["properties"]["quick"]["items"];
    let answer = &template["properties"]["answers"]["additionalProperties"];
    assert!(answer["properties"].get("selected").is_some());
    assert!(v["properties"].get("replaces").is_some());
    assert!(v["properties"].get("timeout_s").is_some());
    assert!(!serde_json::to_string(&v).unwrap().contains("$ref"));
}

/// The allocator settings of `askd serve` (issue 32, `benches/rest.rs`): a daemon started
/// without them replaces itself with one that has them — the same pid, which `daemon.json`
/// names — and a setting its environment names is kept.
#[test]
fn serve_runs_with_its_allocator_settings_unless_the_environment_names_its_own() {
    use askd_testkit::serve::Launch;
    let environ = |pid: u32| -> Vec<String> {
        std::fs::read(format!("/proc/{pid}/environ"))
            .unwrap()
            .split(|b| *b == 0)
            .map(|v| String::from_utf8_lossy(v).into_owned())
            .filter(|v| v.starts_with("MIMALLOC_"))
            .collect()
    };
    let d = Launch::temp_home(env!("CARGO_BIN_EXE_askd"))
        .env_remove("MIMALLOC_PURGE_DELAY")
        .env_remove("MIMALLOC_ARENA_EAGER_COMMIT")
        .start();
    let mut got = environ(d.pid);
    got.sort();
    assert_eq!(
        got,
        ["MIMALLOC_ARENA_EAGER_COMMIT=0", "MIMALLOC_PURGE_DELAY=0"]
    );
    drop(d);
    let d = Launch::temp_home(env!("CARGO_BIN_EXE_askd"))
        .env("MIMALLOC_PURGE_DELAY", "250")
        .env_remove("MIMALLOC_ARENA_EAGER_COMMIT")
        .start();
    let mut got = environ(d.pid);
    got.sort();
    assert_eq!(
        got,
        ["MIMALLOC_ARENA_EAGER_COMMIT=0", "MIMALLOC_PURGE_DELAY=250"]
    );
}

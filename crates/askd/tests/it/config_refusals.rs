//! `alignment.md` §3.3 and §8.3 "Configuration refusals": for each bad `[alignment]` input,
//! `askd serve` and `askd mcp` exit non-zero before binding a port (no `daemon.json`), with a
//! single-line message naming the allowed keys or the legal values.

use std::process::{Command, Output};

fn run(toml: &str, sub: &str, extra_env: &[(&str, &str)]) -> (Output, tempfile::TempDir) {
    let home = tempfile::TempDir::new().unwrap();
    std::fs::write(home.path().join("askd.toml"), toml).unwrap();
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_askd"));
    cmd.arg(sub)
        .env("ASKD_HOME", home.path())
        .env("ASKD_LISTEN", "127.0.0.1:0")
        .env("ASKD_NO_BROWSER", "1")
        .env_remove("ASKD_ALIGNMENT_MODE")
        .env_remove("ASKD_ALIGNMENT_SECTION")
        .stdin(std::process::Stdio::null());
    for (k, v) in extra_env {
        cmd.env(k, v);
    }
    let out = cmd.output().expect("run askd");
    (out, home)
}

fn refused(toml: &str, needles: &[&str]) {
    for sub in ["serve", "mcp"] {
        let (out, home) = run(toml, sub, &[]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{sub} accepted {toml:?}");
        assert_eq!(
            stderr.trim().lines().count(),
            1,
            "{sub}: one line on stderr: {stderr}"
        );
        for n in needles {
            assert!(stderr.contains(n), "{sub}: {n:?} missing from {stderr}");
        }
        assert!(
            !home.path().join("daemon.json").exists(),
            "{sub} bound a port for {toml:?}"
        );
        assert!(out.stdout.is_empty(), "stdout stays clean");
    }
}

#[test]
fn an_unknown_alignment_key_names_the_allowed_keys() {
    refused(
        "[alignment]\nmodes = \"auto\"\n",
        &["\"modes\"", "allowed keys", "mode, section"],
    );
}

#[test]
fn a_mode_in_the_wrong_case_is_refused_with_the_legal_values() {
    refused(
        "[alignment]\nmode = \"Auto\"\n",
        &["Auto", "\"auto\"", "\"manual\"", "\"off\""],
    );
}

#[test]
fn a_mode_that_is_not_a_string_is_refused() {
    refused(
        "[alignment]\nmode = 3\n",
        &["mode", "\"auto\"", "\"manual\"", "\"off\""],
    );
}

#[test]
fn a_blank_section_is_refused() {
    refused(
        "[alignment]\nsection = \"  \"\n",
        &["section", "must contain text"],
    );
}

#[test]
fn a_section_over_32_kib_is_refused() {
    let big = "x".repeat(40 * 1024);
    refused(
        &format!("[alignment]\nsection = \"{big}\"\n"),
        &["section", "32 KiB"],
    );
}

#[test]
fn the_same_rules_apply_to_the_environment() {
    let (out, home) = run("", "serve", &[("ASKD_ALIGNMENT_MODE", "banana")]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(
        stderr.contains("ASKD_ALIGNMENT_MODE") && stderr.contains("\"manual\""),
        "{stderr}"
    );
    assert!(!home.path().join("daemon.json").exists());
}

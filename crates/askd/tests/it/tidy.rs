//! The house rules the code enforces (ARCHITECTURE.md, "Rules the tidy test enforces"):
//! which crate may depend on which, read from `cargo metadata`, and that no crate's
//! top-level modules import each other in a loop, read from the sources.
//!
//! Only normal and build dependencies count: a crate's tests may start a real daemon
//! (`askd-tui`'s tests do), so dev-dependencies are free — and the test kit
//! (`askd-testkit`) may be nothing else.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

pub(crate) fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Every workspace crate's name → its normal and build dependencies (by package name).
fn dependency_edges() -> BTreeMap<String, BTreeSet<String>> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = Command::new(cargo)
        .args([
            "metadata",
            "--format-version",
            "1",
            "--no-deps",
            "--offline",
        ])
        .arg("--manifest-path")
        .arg(workspace_root().join("Cargo.toml"))
        .output()
        .expect("cargo metadata runs");
    assert!(
        out.status.success(),
        "cargo metadata failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let meta: Value = serde_json::from_slice(&out.stdout).expect("cargo metadata is JSON");
    let mut edges = BTreeMap::new();
    for package in meta["packages"].as_array().expect("packages") {
        let name = package["name"].as_str().expect("package name").to_string();
        let deps = package["dependencies"]
            .as_array()
            .expect("dependencies")
            .iter()
            .filter(|d| d["kind"].as_str() != Some("dev"))
            .map(|d| d["name"].as_str().expect("dependency name").to_string())
            .collect();
        edges.insert(name, deps);
    }
    edges
}

/// The forbidden edges among `edges`, one line each.
fn forbidden(edges: &BTreeMap<String, BTreeSet<String>>) -> Vec<String> {
    // The pure core: exactly these, so no I/O or async crate (tokio, futures, reqwest, sqlx,
    // axum, rmcp …) and no askd crate can creep in.
    const CORE_ALLOWED: &[&str] = &[
        "serde",
        "serde_json",
        "indexmap",
        "schemars",
        "sha2",
        "foldhash",
    ];
    // (crate, dependencies it must not have)
    const RULES: &[(&str, &[&str])] = &[
        (
            "askd-store",
            &[
                "askd-daemon",
                "askd-mcp",
                "askd-tui",
                "askd-client",
                "axum",
                "rmcp",
            ],
        ),
        ("askd-daemon", &["askd-mcp", "rmcp", "askd-tui"]),
        (
            "askd-mcp",
            &["askd-daemon", "askd-store", "askd-tui", "sqlx"],
        ),
        (
            "askd-tui",
            &["askd-daemon", "askd-store", "askd-core", "askd-mcp", "sqlx"],
        ),
        (
            "askd-client",
            &[
                "askd-daemon",
                "askd-store",
                "askd-mcp",
                "askd-tui",
                "askd-core",
            ],
        ),
    ];
    // Crates for tests only: a dev-dependency of any crate, a normal or build one of none.
    const DEV_ONLY: &[&str] = &["askd-testkit"];
    let mut bad = Vec::new();
    for (krate, deps) in edges {
        for d in deps.iter().filter(|d| DEV_ONLY.contains(&d.as_str())) {
            bad.push(format!(
                "{krate} → {d}: the test kit is a dev-dependency only (ARCHITECTURE.md, dependency rules)"
            ));
        }
    }
    if let Some(deps) = edges.get("askd-core") {
        for d in deps {
            if !CORE_ALLOWED.contains(&d.as_str()) {
                bad.push(format!(
                    "askd-core → {d}: the core depends only on {CORE_ALLOWED:?} (no askd crate, no I/O or async)"
                ));
            }
        }
    }
    for (krate, denied) in RULES {
        let Some(deps) = edges.get(*krate) else {
            continue;
        };
        for d in *denied {
            if deps.contains(*d) {
                bad.push(format!(
                    "{krate} → {d}: forbidden (ARCHITECTURE.md, dependency rules)"
                ));
            }
        }
    }
    bad
}

#[test]
fn crates_depend_only_along_the_allowed_edges() {
    let edges = dependency_edges();
    for krate in [
        "askd-core",
        "askd-store",
        "askd-daemon",
        "askd-mcp",
        "askd-tui",
        "askd-client",
        "askd",
        "askd-testkit",
    ] {
        assert!(edges.contains_key(krate), "{krate} is a workspace member");
    }
    let bad = forbidden(&edges);
    assert!(
        bad.is_empty(),
        "forbidden dependency edges:\n{}",
        bad.join("\n")
    );
}

#[test]
fn the_rules_catch_each_forbidden_edge() {
    // The check itself, on graphs that break one rule each.
    let clean = dependency_edges();
    for (krate, dep) in [
        ("askd-core", "tokio"),
        ("askd-core", "askd-store"),
        ("askd-store", "askd-daemon"),
        ("askd-daemon", "askd-mcp"),
        ("askd-daemon", "rmcp"),
        ("askd-mcp", "askd-daemon"),
        ("askd-mcp", "askd-store"),
        ("askd-tui", "askd-daemon"),
        ("askd-tui", "askd-store"),
        ("askd-tui", "askd-core"),
        ("askd-daemon", "askd-testkit"),
        ("askd", "askd-testkit"),
    ] {
        let mut edges = clean.clone();
        edges
            .entry(krate.to_string())
            .or_default()
            .insert(dep.to_string());
        let bad = forbidden(&edges);
        assert!(
            bad.iter()
                .any(|l| l.starts_with(&format!("{krate} → {dep}"))),
            "{krate} → {dep} must be refused, got {bad:?}"
        );
    }
}

/// The crate's top-level modules (files and directories under `src/`) → the top-level
/// modules each one names through `crate::…`.
fn module_edges(src: &Path) -> BTreeMap<String, BTreeSet<String>> {
    let mut modules = BTreeMap::<String, Vec<PathBuf>>::new();
    for entry in std::fs::read_dir(src).expect("src dir") {
        let path = entry.expect("dir entry").path();
        let name = path
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or_default()
            .to_string();
        if name == "lib" || name == "main" {
            continue;
        }
        if path.is_dir() {
            modules.entry(name).or_default().extend(rust_files(&path));
        } else if path.extension().is_some_and(|e| e == "rs") {
            modules.entry(name).or_default().push(path);
        }
    }
    let names: BTreeSet<String> = modules.keys().cloned().collect();
    let mut edges = BTreeMap::new();
    for (module, files) in &modules {
        let mut to = BTreeSet::new();
        for file in files {
            let text = std::fs::read_to_string(file).expect("source file");
            for target in crate_refs(&text) {
                if names.contains(&target) && &target != module {
                    to.insert(target);
                }
            }
        }
        edges.insert(module.clone(), to);
    }
    edges
}

pub(crate) fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).expect("module dir") {
        let path = entry.expect("dir entry").path();
        if path.is_dir() {
            out.extend(rust_files(&path));
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
    out
}

/// The first segment after every `crate::` outside comments, including grouped imports
/// (`use crate::{a, b::c}`).
fn crate_refs(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for line in text.lines() {
        let code = line.split("//").next().unwrap_or_default();
        let mut rest = code;
        while let Some(i) = rest.find("crate::") {
            // `askd_crate::` and the like are not `crate::`.
            let before = rest[..i].chars().last();
            rest = &rest[i + "crate::".len()..];
            if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
                continue;
            }
            if let Some(group) = rest.strip_prefix('{') {
                let end = group.find('}').unwrap_or(group.len());
                for item in group[..end].split(',') {
                    out.push(ident(item.trim()));
                }
            } else {
                out.push(ident(rest));
            }
        }
    }
    out.retain(|s| !s.is_empty());
    out
}

fn ident(s: &str) -> String {
    s.chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_')
        .collect()
}

/// One cycle in `edges`, if there is one, as `a → b → … → a`.
fn find_cycle(edges: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    #[derive(Clone, Copy, PartialEq)]
    enum Mark {
        Open,
        Done,
    }
    fn visit(
        node: &str,
        edges: &BTreeMap<String, BTreeSet<String>>,
        marks: &mut BTreeMap<String, Mark>,
        stack: &mut Vec<String>,
    ) -> Option<Vec<String>> {
        match marks.get(node) {
            Some(Mark::Done) => return None,
            Some(Mark::Open) => {
                let start = stack.iter().position(|n| n == node).unwrap_or(0);
                let mut cycle = stack[start..].to_vec();
                cycle.push(node.to_string());
                return Some(cycle);
            }
            None => {}
        }
        marks.insert(node.to_string(), Mark::Open);
        stack.push(node.to_string());
        for next in edges.get(node).into_iter().flatten() {
            if let Some(c) = visit(next, edges, marks, stack) {
                return Some(c);
            }
        }
        stack.pop();
        marks.insert(node.to_string(), Mark::Done);
        None
    }
    let mut marks = BTreeMap::new();
    for node in edges.keys() {
        if let Some(c) = visit(node, edges, &mut marks, &mut Vec::new()) {
            return Some(c);
        }
    }
    None
}

#[test]
fn no_crate_has_an_import_loop_between_its_modules() {
    let crates = workspace_root().join("crates");
    let mut loops = Vec::new();
    for entry in std::fs::read_dir(&crates).expect("crates dir") {
        let dir = entry.expect("dir entry").path();
        let src = dir.join("src");
        if !src.is_dir() {
            continue;
        }
        if let Some(cycle) = find_cycle(&module_edges(&src)) {
            let name = dir
                .file_name()
                .unwrap_or_default()
                .to_string_lossy()
                .into_owned();
            loops.push(format!("{name}: {}", cycle.join(" → ")));
        }
    }
    assert!(
        loops.is_empty(),
        "import loops between top-level modules:\n{}",
        loops.join("\n")
    );
}

#[test]
fn the_loop_check_sees_grouped_imports_and_cycles() {
    let refs = crate_refs(
        "use crate::{api, hub::Hub};\nlet x = crate::store::open(); // crate::ignored\nuse askd_crate::nope;",
    );
    assert_eq!(refs, ["api", "hub", "store"]);
    let mut edges = BTreeMap::<String, BTreeSet<String>>::new();
    edges.entry("a".into()).or_default().insert("b".into());
    edges.entry("b".into()).or_default().insert("c".into());
    edges.entry("c".into()).or_default();
    assert_eq!(find_cycle(&edges), None);
    edges.entry("c".into()).or_default().insert("a".into());
    assert_eq!(
        find_cycle(&edges).map(|c| c.join(" → ")),
        Some("a → b → c → a".into())
    );
}

/// The web UI's modules (`ui/js/*.js`) → the modules each imports (`from './x.js'`,
/// `import('./x.js')`).
fn ui_module_edges() -> BTreeMap<String, BTreeSet<String>> {
    let dir = workspace_root().join("ui/js");
    let mut edges = BTreeMap::new();
    for entry in std::fs::read_dir(&dir).expect("ui/js") {
        let path = entry.expect("dir entry").path();
        if path.extension().is_none_or(|e| e != "js") {
            continue;
        }
        let name = path
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned();
        let text = std::fs::read_to_string(&path).expect("module");
        let mut to = BTreeSet::new();
        for quote in ["'./", "\"./"] {
            for (i, _) in text.match_indices(quote) {
                let rest = &text[i + quote.len()..];
                let Some(end) = rest.find(&quote[..1]) else {
                    continue;
                };
                let target = &rest[..end];
                let before = text[..i].trim_end();
                if target.ends_with(".js")
                    && (before.ends_with("from") || before.ends_with("import("))
                {
                    to.insert(target.to_string());
                }
            }
        }
        edges.insert(name, to);
    }
    edges
}

#[test]
fn the_web_ui_has_no_import_loop_between_its_modules() {
    let edges = ui_module_edges();
    assert!(
        edges.get("app.js").is_some_and(|to| to.contains("i18n.js")),
        "the UI's imports are read: {edges:?}"
    );
    if let Some(cycle) = find_cycle(&edges) {
        panic!("ui/js import loop: {}", cycle.join(" → "));
    }
}

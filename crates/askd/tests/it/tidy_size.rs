//! The house rules on size and words (ARCHITECTURE.md, "Rules the tidy test enforces"):
//! no production file over [`MAX_FILE_LINES`] lines, no function over [`MAX_FN_LINES`]
//! (each exception named below with its reason), and the vocabulary's words — event kinds
//! and outcomes — spelled as string literals only in `askd-core/src/vocab/`.
//!
//! "Production" is every `crates/*/src/**/*.rs` file up to its `#[cfg(test)]` module; the
//! sources are read with comments and string contents blanked, so a `{` in a string or a
//! commented-out `fn` does not count.

use std::path::{Path, PathBuf};

use super::tidy::workspace_root;

const MAX_FILE_LINES: usize = 1200;
const MAX_FN_LINES: usize = 150;

/// Files allowed over [`MAX_FILE_LINES`]: (path from the workspace root, reason).
const LONG_FILES: &[(&str, &str)] = &[];

/// Functions allowed over [`MAX_FN_LINES`]: (path, function, reason).
const LONG_FNS: &[(&str, &str, &str)] = &[];

/// Crates that speak the vocabulary as the wire spells it, with the reason.
const WIRE_SPEAKERS: &[(&str, &str)] = &[
    (
        "crates/askd-tui/",
        "the terminal UI is a client of the HTTP API and may not depend on askd-core (the dependency rules): it reads and sends the words as the API spells them",
    ),
    (
        "crates/askd-client/",
        "the HTTP client may not depend on askd-core either",
    ),
];

/// Files outside the vocabulary that may spell an outcome word, with the reason: the word
/// there belongs to another vocabulary that happens to share the spelling.
const OUTCOME_SPELLERS: &[(&str, &str)] = &[(
    "crates/askd-mcp/src/tasks.rs",
    "an MCP task's status `cancelled` is the protocol's word (a withdrawn ask's task), not an ask's outcome",
)];

/// Files under `src/` that are test code as a whole: `tests.rs` and `scenarios.rs` (a
/// `#[cfg(test)] mod …;`), the store's conformance suite (in `src/` so both backends' test
/// crates run the one suite) and its throwaway PostgreSQL cluster (`pg_test.rs`).
const TEST_MODULES: &[&str] = &["tests.rs", "scenarios.rs", "conformance.rs", "pg_test.rs"];

/// Every production Rust file: `crates/*/src/**/*.rs`, as (path from the root, text up to
/// its test module).
fn production_files() -> Vec<(String, String)> {
    let root = workspace_root();
    let mut out = Vec::new();
    for krate in std::fs::read_dir(root.join("crates")).expect("crates/") {
        let src = krate.expect("dir entry").path().join("src");
        if src.is_dir() {
            for path in rust_files(&src) {
                let text = std::fs::read_to_string(&path).expect("source");
                let rel = path
                    .strip_prefix(&root)
                    .unwrap_or(&path)
                    .to_string_lossy()
                    .replace('\\', "/");
                out.push((rel, production_part(&text).to_string()));
            }
        }
    }
    out.sort();
    out
}

/// The Rust files under `dir` but those that are test code as a whole ([`TEST_MODULES`]).
fn rust_files(dir: &Path) -> Vec<PathBuf> {
    super::tidy::rust_files(dir)
        .into_iter()
        .filter(|p| {
            let name = p.file_name().unwrap_or_default().to_string_lossy();
            !TEST_MODULES.contains(&name.as_ref())
        })
        .collect()
}

/// The text before the file's `#[cfg(test)]` test module (the whole text without one).
fn production_part(text: &str) -> &str {
    for marker in [
        "#[cfg(test)]\nmod tests",
        "#[cfg(test)]\npub(crate) mod tests",
    ] {
        if let Some(i) = text.find(marker) {
            return &text[..i];
        }
    }
    text
}

/// `text` with comments removed and every string and char literal's content blanked (the
/// quotes stay, `"…"` becomes `""`), newlines kept so line numbers hold.
fn blank(text: &str) -> String {
    lex(text).0
}

/// The string literals of `text`, raw ones included, with the line each starts on.
fn literals(text: &str) -> Vec<(usize, String)> {
    lex(text).1
}

/// One pass over Rust source: the [`blank`]ed text and the [`literals`].
fn lex(text: &str) -> (String, Vec<(usize, String)>) {
    let b = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut lits = Vec::new();
    let mut line = 1;
    let mut i = 0;
    // Copies the newlines of `s` (so line numbers hold) and counts them.
    let newlines = |out: &mut String, line: &mut usize, s: &str| {
        for c in s.chars().filter(|&c| c == '\n') {
            out.push(c);
            *line += 1;
        }
    };
    while i < b.len() {
        let c = b[i];
        let prev_ident = i > 0 && (b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_');
        if b[i..].starts_with(b"//") {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
        } else if b[i..].starts_with(b"/*") {
            let end = text[i + 2..].find("*/").map_or(b.len(), |e| i + 2 + e + 2);
            newlines(&mut out, &mut line, &text[i..end]);
            i = end;
        } else if !prev_ident && (c == b'r' || (c == b'b' && b.get(i + 1) == Some(&b'r'))) {
            let start = i + if c == b'b' { 2 } else { 1 };
            let hashes = b[start..].iter().take_while(|&&h| h == b'#').count();
            if b.get(start + hashes) != Some(&b'"') {
                out.push(c as char);
                i += 1;
                continue;
            }
            let close = format!("\"{}", "#".repeat(hashes));
            let body = start + hashes + 1;
            let end = text[body..].find(&close).map_or(b.len(), |e| body + e);
            lits.push((line, text[body..end].to_string()));
            out.push_str("\"\"");
            newlines(&mut out, &mut line, &text[body..end]);
            i = (end + close.len()).min(b.len());
        } else if c == b'"' {
            let mut j = i + 1;
            while j < b.len() && b[j] != b'"' {
                j += if b[j] == b'\\' { 2 } else { 1 };
            }
            let end = j.min(b.len());
            lits.push((line, text[i + 1..end].to_string()));
            out.push_str("\"\"");
            newlines(&mut out, &mut line, &text[i + 1..end]);
            i = end + 1;
        } else if c == b'\'' {
            // A char literal ('x', '\n', '\u{..}'), or a lifetime / label ('a).
            let rest = &text[i + 1..];
            let len = if let Some(escaped) = rest.strip_prefix('\\') {
                escaped.find('\'').map(|e| e + 2)
            } else {
                let ch = rest.chars().next().map_or(0, char::len_utf8);
                (rest[ch..].starts_with('\'')).then_some(ch + 1)
            };
            match len {
                Some(n) => {
                    out.push_str("' '");
                    i += 1 + n;
                }
                None => {
                    out.push('\'');
                    i += 1;
                }
            }
        } else {
            let ch = text[i..].chars().next().expect("a char");
            if ch == '\n' {
                line += 1;
            }
            out.push(ch);
            i += ch.len_utf8();
        }
    }
    (out, lits)
}

/// Every `fn` with a body in `text` (already [`blank`]ed): (name, first line, lines).
fn functions(text: &str) -> Vec<(String, usize, usize)> {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    for (k, line) in lines.iter().enumerate() {
        let Some(name) = fn_name(line) else { continue };
        let mut depth = 0i32;
        let mut opened = false;
        'scan: for (e, l) in lines.iter().enumerate().skip(k) {
            for ch in l.chars() {
                match ch {
                    '{' => {
                        depth += 1;
                        opened = true;
                    }
                    '}' => depth -= 1,
                    ';' if !opened => break 'scan, // a declaration without a body
                    _ => {}
                }
                if opened && depth == 0 {
                    out.push((name.clone(), k + 1, e - k + 1));
                    break 'scan;
                }
            }
        }
    }
    out
}

/// The name of the function a line declares, if it does.
fn fn_name(line: &str) -> Option<String> {
    let mut words = line.split_whitespace().peekable();
    while let Some(w) = words.next() {
        match w {
            "pub" | "async" | "const" | "unsafe" | "extern" | "default" => continue,
            w if w.starts_with("pub(") => continue,
            w if w.starts_with('"') => continue, // extern "C"
            "fn" => {
                let next = words.next()?;
                let name: String = next
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                return (!name.is_empty()).then_some(name);
            }
            _ => return None,
        }
    }
    None
}

#[test]
fn no_production_file_is_over_the_line_limit() {
    let mut over = Vec::new();
    for (path, text) in production_files() {
        let n = text.lines().count();
        let excused = LONG_FILES.iter().any(|(p, _)| *p == path);
        if n > MAX_FILE_LINES && !excused {
            over.push(format!("{path}: {n} lines"));
        }
    }
    assert!(
        over.is_empty(),
        "production files over {MAX_FILE_LINES} lines (split them by concept, or name the file in LONG_FILES with the reason):\n{}",
        over.join("\n")
    );
    for (p, _) in LONG_FILES {
        let text = production_files().into_iter().find(|(f, _)| f == p);
        assert!(
            text.is_some_and(|(_, t)| t.lines().count() > MAX_FILE_LINES),
            "LONG_FILES names {p}, which is no longer over the limit: remove it"
        );
    }
}

#[test]
fn no_function_is_over_the_line_limit() {
    let mut over = Vec::new();
    let mut excused_seen = Vec::new();
    for (path, text) in production_files() {
        for (name, line, n) in functions(&blank(&text)) {
            if n <= MAX_FN_LINES {
                continue;
            }
            if LONG_FNS.iter().any(|(p, f, _)| *p == path && *f == name) {
                excused_seen.push((path.clone(), name));
                continue;
            }
            over.push(format!("{path}:{line} fn {name}: {n} lines"));
        }
    }
    assert!(
        over.is_empty(),
        "functions over {MAX_FN_LINES} lines (split them, or name them in LONG_FNS with the reason):\n{}",
        over.join("\n")
    );
    for (p, f, _) in LONG_FNS {
        assert!(
            excused_seen.iter().any(|(sp, sf)| sp == p && sf == f),
            "LONG_FNS names {p} fn {f}, which is no longer over the limit: remove it"
        );
    }
}

/// A spelling of one of the vocabulary's event kinds.
fn is_event_kind(s: &str) -> bool {
    use askd_core::Word;
    askd_core::EventKind::ALL.iter().any(|k| k.as_str() == s)
}

/// A spelling of one of the vocabulary's outcomes.
fn is_outcome(s: &str) -> bool {
    use askd_core::Word;
    askd_core::Outcome::ALL.iter().any(|o| o.as_str() == s)
}

#[test]
fn the_vocabulary_is_spelled_only_in_its_module() {
    let mut found = Vec::new();
    for (path, text) in production_files() {
        if path.starts_with("crates/askd-core/src/vocab/")
            || WIRE_SPEAKERS.iter().any(|(p, _)| path.starts_with(p))
        {
            continue;
        }
        let outcomes_allowed = OUTCOME_SPELLERS.iter().any(|(p, _)| *p == path);
        let lines: Vec<&str> = text.lines().collect();
        for (line, lit) in literals(&text) {
            let kind = if is_event_kind(&lit) {
                "event kind"
            } else if !outcomes_allowed && is_outcome(&lit) {
                // A JSON member named like an outcome (`"cancelled": true`) is a field name.
                let src = lines.get(line - 1).copied().unwrap_or_default();
                let quoted = format!("\"{lit}\"");
                let key = src.find(&quoted).is_some_and(|at| {
                    let after = src[at + quoted.len()..].trim_start();
                    after.starts_with(':') || after.starts_with(".into(),")
                });
                if key {
                    continue;
                }
                "outcome"
            } else {
                continue;
            };
            found.push(format!("{path}:{line}: {kind} \"{lit}\""));
        }
    }
    assert!(
        found.is_empty(),
        "the vocabulary's words are spelled outside askd-core/src/vocab/ (use askd_core::{{EventKind, Outcome}}):\n{}",
        found.join("\n")
    );
}

/// The prefixes a method of the daemon may not carry: an ask kind's or a room's name. What a
/// kind does is its room's ([`askd_daemon::kinds`]' `Room`), the builder's is `Builder`'s.
const ROOM_PREFIXES: &[&str] = &[
    "survey_",
    "questions_",
    "review_",
    "drift_",
    "draft_",
    "drafts_",
];

/// The names of the functions in `impl Daemon { … }` blocks of a (blanked) source.
fn daemon_methods(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut inside = false;
    for line in text.lines() {
        if line.starts_with("impl Daemon {") {
            inside = true;
        } else if inside && line.starts_with('}') {
            inside = false;
        } else if inside
            && line.starts_with("    ")
            && !line.starts_with("     ")
            && let Some(name) = fn_name(line.trim_start())
        {
            out.push(name);
        }
    }
    out
}

#[test]
fn the_daemon_is_not_a_namespace_and_every_kind_has_a_room() {
    let files = production_files();
    let mut prefixed = Vec::new();
    for (path, text) in &files {
        if !path.starts_with("crates/askd-daemon/src/") {
            continue;
        }
        for name in daemon_methods(&blank(text)) {
            if ROOM_PREFIXES.iter().any(|p| name.starts_with(p)) {
                prefixed.push(format!("{path}: Daemon::{name}"));
            }
        }
    }
    assert!(
        prefixed.is_empty(),
        "Daemon methods named after a kind or a room (make them the room's — impl Room for … — or the builder's):\n{}",
        prefixed.join("\n")
    );
    for room in ["survey", "questions", "review", "drift"] {
        let path = format!("crates/askd-daemon/src/kinds/{room}.rs");
        let text = files
            .iter()
            .find(|(p, _)| *p == path)
            .map(|(_, t)| t.as_str())
            .unwrap_or_else(|| panic!("{path} is the {room} room"));
        assert!(
            text.contains("impl Room for "),
            "{path} has no `impl Room for …`: every ask kind answers the Room method set"
        );
    }
}

#[test]
fn the_readers_see_what_the_rules_need() {
    let src = "fn a() {\n    let s = \"{ not a brace\";\n    // fn b() {\n    let c = '{';\n}\n";
    assert_eq!(functions(&blank(src)), [("a".to_string(), 1, 5)]);
    let lits = literals(
        "let a = \"ask.created\";\n// \"ask.settled\"\nlet b = r#\"x\ny\"#;\nlet c = \"answered\";\n",
    );
    assert_eq!(
        lits,
        [
            (1, "ask.created".to_string()),
            (3, "x\ny".to_string()),
            (5, "answered".to_string())
        ]
    );
    assert!(is_event_kind("alignment.mode_set"));
    assert!(!is_event_kind("askd.db") && !is_event_kind("session.at"));
    assert!(is_outcome("aborted") && !is_outcome("pending"));
    assert_eq!(
        daemon_methods(
            "impl Daemon {\n    pub async fn review_x(&self) {\n        fn inner() {}\n    }\n}\nfn survey_y() {}\n"
        ),
        ["review_x"]
    );
    assert_eq!(
        production_part("fn x() {}\n#[cfg(test)]\nmod tests {}\n"),
        "fn x() {}\n"
    );
}

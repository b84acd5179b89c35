//! Output for people and for scripts. `doctor`, `asks list`, `asks show`, `asks answer` and
//! `try` print readable text on a terminal and one JSON document otherwise: scripts (and
//! askd's own tests) pipe the output and parse it, so a pipe keeps the JSON they rely on.
//! `--json` (or `--format json`) asks for JSON on a terminal too, `--format text` for text in
//! a pipe; `ASKD_FORMAT` sets the same.

use std::io::IsTerminal;

use clap::{Args, ValueEnum};
use serde_json::Value;

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// Text on a terminal, JSON when stdout is a pipe or a file.
    Auto,
    /// Readable text: tables and labelled lines.
    Text,
    /// One JSON document on stdout.
    Json,
}

/// `--json` and `--format`, for commands whose own flags do not use `--json`.
#[derive(Debug, Clone, Args)]
pub struct OutputArgs {
    /// Print one JSON document (the same as --format json), for scripts.
    #[arg(long, conflicts_with = "format")]
    pub json: bool,
    #[command(flatten)]
    pub format: FormatArg,
}

/// `--format` alone (`asks answer`, whose `--json` names the answers file).
#[derive(Debug, Clone, Args)]
pub struct FormatArg {
    /// How to print the result: auto is text on a terminal and JSON in a pipe.
    #[arg(long, value_enum, default_value = "auto", env = "ASKD_FORMAT")]
    pub format: Format,
}

impl OutputArgs {
    /// `true`: print JSON.
    pub fn json(&self) -> bool {
        self.json || self.format.json()
    }
}

impl FormatArg {
    pub fn json(&self) -> bool {
        match self.format {
            Format::Json => true,
            Format::Text => false,
            Format::Auto => !std::io::stdout().is_terminal(),
        }
    }
}

/// A value as one short line: strings bare, `null` as `-`, the rest as JSON.
pub fn plain(v: &Value) -> String {
    match v {
        Value::Null => "-".into(),
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// Removes control characters (terminal escapes included) from text an agent wrote.
pub fn clean(s: &str) -> String {
    s.chars()
        .map(|c| if c == '\n' || c == '\t' { ' ' } else { c })
        .filter(|c| !c.is_control())
        .collect()
}

/// Cuts `s` to `max` characters, with `…` when cut.
pub fn cut(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        return s.to_string();
    }
    let mut out: String = s.chars().take(max.saturating_sub(1)).collect();
    out.push('…');
    out
}

/// Prints rows under a header, each column as wide as its widest cell (the last one not
/// padded).
pub fn table(header: &[&str], rows: &[Vec<String>]) {
    let mut widths: Vec<usize> = header.iter().map(|h| h.chars().count()).collect();
    for row in rows {
        for (i, cell) in row.iter().enumerate() {
            if let Some(w) = widths.get_mut(i) {
                *w = (*w).max(cell.chars().count());
            }
        }
    }
    let line = |cells: Vec<String>| {
        let last = cells.len().saturating_sub(1);
        let mut out = String::new();
        for (i, cell) in cells.into_iter().enumerate() {
            if i == last {
                out.push_str(&cell);
            } else {
                let pad = widths[i] - cell.chars().count();
                out.push_str(&cell);
                out.push_str(&" ".repeat(pad + 2));
            }
        }
        println!("{}", out.trim_end());
    };
    line(header.iter().map(|h| h.to_string()).collect());
    for row in rows {
        line(row.clone());
    }
}

/// Prints `label  value` lines with the labels aligned.
pub fn fields(rows: &[(&str, String)]) {
    let w = rows
        .iter()
        .map(|(l, _)| l.chars().count())
        .max()
        .unwrap_or(0);
    for (label, value) in rows {
        println!("{label:<w$}  {value}");
    }
}

/// A settled ask's result (what the agent receives) as readable lines: the outcome, then
/// each answer with the labels chosen, a typed answer, skipped questions, verdicts.
pub fn result_lines(result: &Value) -> Vec<String> {
    let mut out = Vec::new();
    out.push(format!("outcome: {}", plain(&result["outcome"])));
    if let Some(title) = result["title"].as_str() {
        out.push(format!("title:   {}", clean(title)));
    }
    if let Some(answers) = result["answers"].as_array() {
        for a in answers {
            let id = a["id"]
                .as_str()
                .or_else(|| a["question"].as_str())
                .unwrap_or("?");
            let mut parts: Vec<String> = a["selected"]
                .as_array()
                .map(|s| {
                    s.iter()
                        .map(|o| match (o["key"].as_str(), o["label"].as_str()) {
                            (Some(k), Some(l)) => format!("{k}) {}", clean(l)),
                            _ => clean(&plain(o)),
                        })
                        .collect()
                })
                .unwrap_or_default();
            if let Some(c) = a["custom"].as_str() {
                parts.push(format!("“{}”", clean(c)));
            }
            if let Some(v) = a.get("verdict").filter(|v| !v.is_null()) {
                parts.push(plain(v));
            }
            if let Some(n) = a["note"].as_str().filter(|n| !n.is_empty()) {
                parts.push(format!("note: {}", clean(n)));
            }
            if parts.is_empty() {
                parts.push("(no answer)".into());
            }
            out.push(format!("  {}: {}", clean(id), parts.join(", ")));
        }
    }
    if let Some(skipped) = result["skipped"].as_array().filter(|s| !s.is_empty()) {
        let ids: Vec<String> = skipped.iter().map(plain).collect();
        out.push(format!("skipped: {}", ids.join(", ")));
    }
    if let Some(path) = result["path"].as_array() {
        let ids: Vec<String> = path.iter().map(plain).collect();
        out.push(format!("path:    {}", ids.join(" → ")));
    }
    for key in ["instruction", "message"] {
        if let Some(text) = result[key].as_str() {
            out.push(format!("{key}: {}", clean(text)));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn result_lines_name_each_answer_with_its_labels() {
        let r = json!({"outcome": "answered", "title": "T", "path": ["a", "b"],
            "answers": [{"id": "a", "selected": [{"key": "x", "label": "Ex\u{1b}[31m"}]},
                        {"id": "b", "selected": [], "custom": "mine"}], "skipped": []});
        let lines = result_lines(&r);
        assert_eq!(lines[0], "outcome: answered");
        assert!(lines.contains(&"  a: x) Ex[31m".to_string()), "{lines:?}");
        assert!(lines.contains(&"  b: “mine”".to_string()), "{lines:?}");
        assert!(lines.contains(&"path:    a → b".to_string()), "{lines:?}");
    }

    #[test]
    fn cut_marks_what_it_cut() {
        assert_eq!(cut("abcdef", 4), "abc…");
        assert_eq!(cut("abc", 4), "abc");
    }
}

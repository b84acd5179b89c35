//! Validation problems: `{path, code, message}` plus the optional `nearest` and `cycle`
//! members (`survey.md` §4.1), and the path grammar that names where a problem is.

use std::fmt::Write as _;

use serde::Serialize;

/// One violation found while resolving or validating agent or human input.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Problem {
    /// Where the problem is, relative to the validated object (`questions.q1.options[2].label`).
    pub path: String,
    /// A stable snake_case identifier that clients and tests branch on.
    pub code: &'static str,
    /// Human- and model-readable text, starting with its own location prefix.
    pub message: String,
    /// On reference errors: the suggested id.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub nearest: Option<String>,
    /// On the cycle error: the ids around the cycle.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cycle: Option<Vec<String>>,
}

impl Problem {
    pub fn new(path: impl Into<String>, code: &'static str, message: impl Into<String>) -> Self {
        Problem {
            path: path.into(),
            code,
            message: message.into(),
            nearest: None,
            cycle: None,
        }
    }
}

/// Every message joined with `"; "` — the compatibility text of a failed validation.
pub fn join_messages(problems: &[Problem]) -> String {
    let mut out = String::new();
    for (i, p) in problems.iter().enumerate() {
        if i > 0 {
            out.push_str("; ");
        }
        out.push_str(&p.message);
    }
    out
}

/// Builds paths in the grammar of `survey.md` §4.1: dot-separated member names, bracketed
/// indexes, and ids written bare when they match `^[A-Za-z0-9_-]+$`, otherwise as a bracketed
/// JSON string.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PathBuf(String);

impl PathBuf {
    pub fn root() -> Self {
        PathBuf(String::new())
    }

    /// Appends a member name (`title`, `options`…).
    pub fn field(&self, name: &str) -> Self {
        let mut s = self.0.clone();
        if !s.is_empty() {
            s.push('.');
        }
        s.push_str(name);
        PathBuf(s)
    }

    /// Appends an id or map key (`q1`, `["step 1"]`).
    pub fn id(&self, id: &str) -> Self {
        let mut s = self.0.clone();
        push_id(&mut s, id);
        PathBuf(s)
    }

    /// Appends an array index (`[2]`).
    pub fn index(&self, i: usize) -> Self {
        let mut s = self.0.clone();
        let _ = write!(s, "[{i}]");
        PathBuf(s)
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl From<PathBuf> for String {
    fn from(p: PathBuf) -> String {
        p.0
    }
}

impl std::fmt::Display for PathBuf {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

fn is_bare(id: &str) -> bool {
    !id.is_empty()
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

fn push_id(s: &mut String, id: &str) {
    if is_bare(id) {
        if !s.is_empty() {
            s.push('.');
        }
        s.push_str(id);
    } else {
        s.push('[');
        s.push_str(&serde_json::to_string(id).unwrap_or_default());
        s.push(']');
    }
}

/// The location of question `q` in messages and paths: `questions.q1` or `questions["a b"]`.
pub fn question_where(q: &str) -> String {
    PathBuf::root().field("questions").id(q).0
}

/// Blank: empty after trimming leading and trailing Unicode whitespace (`survey.md` §1.3).
#[inline]
pub fn is_blank(s: &str) -> bool {
    // Fast path: a printable ASCII first byte is never whitespace.
    if s.as_bytes()
        .first()
        .is_some_and(|b| (0x21..0x7f).contains(b))
    {
        return false;
    }
    s.trim().is_empty()
}

/// `"text"` as sent (no escaping), cut to `limit` characters with `…`: how every message
/// quotes a value the caller sent.
pub fn quote(s: &str, limit: usize) -> String {
    match s.char_indices().nth(limit) {
        Some((cut, _)) => format!("\"{}…\"", &s[..cut]),
        None => format!("\"{s}\""),
    }
}

/// A value for a message: a string [`quote`]d (after `string_prefix`, e.g. `"the string "`),
/// a number as written unless longer than `number_limit` (then "a number"), or the kind of
/// anything else.
pub fn describe(
    v: &crate::json::Json,
    quote_limit: usize,
    number_limit: usize,
    string_prefix: &str,
) -> String {
    use crate::json::Json;
    match v {
        Json::String(s) => format!("{string_prefix}{}", quote(s, quote_limit)),
        Json::Number(n) => {
            let t = n.to_string();
            if exceeds(&t, number_limit) {
                "a number".to_owned()
            } else {
                t
            }
        }
        other => other.kind().to_owned(),
    }
}

/// Length in Unicode scalar values (`survey.md` §1.3). Counting stops early once past
/// `limit`, so an oversized string costs no more than the limit to measure.
#[inline]
pub fn exceeds(s: &str, limit: usize) -> bool {
    // A UTF-8 string has at least len/4 chars and at most len chars.
    if s.len() <= limit {
        return false;
    }
    s.chars().nth(limit).is_some()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn path_grammar() {
        let p = PathBuf::root()
            .field("questions")
            .id("q1")
            .field("options")
            .index(2);
        assert_eq!(p.as_str(), "questions.q1.options[2]");
        assert_eq!(question_where("step 1"), r#"questions["step 1"]"#);
        assert_eq!(question_where(""), r#"questions[""]"#);
        assert_eq!(
            PathBuf::root()
                .field("quick")
                .index(0)
                .field("answers")
                .id("a.b")
                .as_str(),
            r#"quick[0].answers["a.b"]"#
        );
    }

    #[test]
    fn lengths_count_scalar_values() {
        assert!(!exceeds("ééé", 3));
        assert!(exceeds("éééé", 3));
        assert!(!exceeds("😀😀", 2));
    }
}

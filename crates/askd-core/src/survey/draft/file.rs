//! The draft file (`survey.md` §10.2–§10.3): its content and text form, the status and
//! grounding it records, where drafts live, and slugs.

use serde::Serialize;
use serde_json::{Value, json};

use crate::Outcome;
use crate::problem::is_blank;

/// The `v` of a draft file.
pub const FILE_VERSION: u64 = 1;
/// The title `begin` gives a draft that names none.
pub const DEFAULT_TITLE: &str = "Draft survey";
/// The slug used when the title gives nothing (§10.2).
pub const SLUG_FALLBACK: &str = "draft";
/// Where drafts live inside a workspace, and below the data directory without one.
pub const WORKSPACE_DIR: &str = ".askd/survey-drafts";
pub const FALLBACK_DIR: &str = "survey-drafts/files";

/// A draft's status (§10.3): a word of the vocabulary ([`crate::vocab::draft`]).
pub use crate::vocab::draft::DraftStatus as Status;

impl Status {
    /// The status a launched draft takes when its ask settles with `outcome` (§10.3):
    /// `answered`, or `reopened` for every other outcome.
    pub fn after_settle(outcome: &str) -> Status {
        if Outcome::parse(outcome) == Some(Outcome::Answered) {
            Status::Answered
        } else {
            Status::Reopened
        }
    }
}

/// The grounding mode (§10.5).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Grounding {
    #[default]
    Standard,
    Internal,
}

impl Grounding {
    pub fn as_str(self) -> &'static str {
        match self {
            Grounding::Standard => "standard",
            Grounding::Internal => "internal",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "standard" => Some(Grounding::Standard),
            "internal" => Some(Grounding::Internal),
            _ => None,
        }
    }
}

/// A draft file's content.
#[derive(Debug, Clone, PartialEq)]
pub struct DraftFile {
    pub slug: String,
    pub title: String,
    pub status: Status,
    pub session: String,
    pub created_at: String,
    pub updated_at: String,
    pub revision: u64,
    pub grounding: Grounding,
    pub ask_id: Option<String>,
    /// The graph: the normal form after askd's own writes, anything after a hand edit.
    pub survey: Value,
}

impl DraftFile {
    /// The file text: members in the order of §10.2, 2-space indentation, a trailing
    /// newline.
    pub fn to_text(&self) -> String {
        let v = json!({
            "v": FILE_VERSION,
            "slug": self.slug,
            "title": self.title,
            "status": self.status.as_str(),
            "session": self.session,
            "createdAt": self.created_at,
            "updatedAt": self.updated_at,
            "revision": self.revision,
            "grounding": self.grounding.as_str(),
            "askId": self.ask_id,
            "survey": self.survey,
        });
        let mut text = serde_json::to_string_pretty(&v).unwrap_or_default();
        text.push('\n');
        text
    }

    /// Reads a file's text; `None` when it "could not be read": unparseable, not an object,
    /// or `v` other than 1. Other members are read leniently (a hand edit may have broken
    /// them): `slug` defaults to `fallback_slug`, a missing or unknown status to
    /// `building`, a missing grounding to `standard`.
    pub fn parse(text: &str, fallback_slug: &str) -> Option<DraftFile> {
        let v: Value = serde_json::from_str(text).ok()?;
        let o = v.as_object()?;
        if o.get("v").and_then(Value::as_u64) != Some(FILE_VERSION) {
            return None;
        }
        let s = |name: &str| o.get(name).and_then(Value::as_str).map(str::to_string);
        Some(DraftFile {
            slug: s("slug").unwrap_or_else(|| fallback_slug.to_string()),
            title: s("title").unwrap_or_default(),
            status: s("status")
                .as_deref()
                .and_then(Status::parse)
                .unwrap_or(Status::Building),
            session: s("session").unwrap_or_default(),
            created_at: s("createdAt").unwrap_or_default(),
            updated_at: s("updatedAt").unwrap_or_default(),
            revision: o.get("revision").and_then(Value::as_u64).unwrap_or(0),
            grounding: s("grounding")
                .as_deref()
                .and_then(Grounding::parse)
                .unwrap_or_default(),
            ask_id: s("askId"),
            survey: o.get("survey").cloned().unwrap_or(Value::Null),
        })
    }

    /// The draft title to show: the file's `title`, else the survey's, else the default.
    pub fn display_title(&self) -> String {
        if !is_blank(&self.title) {
            return self.title.clone();
        }
        self.survey
            .get("title")
            .and_then(Value::as_str)
            .filter(|t| !is_blank(t))
            .unwrap_or(DEFAULT_TITLE)
            .to_string()
    }
}

/// Whether `s` is a slug askd could have made (§10.2, plus a `-n` collision suffix): only
/// such names are ever joined to a directory.
pub fn is_slug(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 64
        && !s.starts_with('-')
        && !s.ends_with('-')
        && s.bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
}

/// The first free slug: `base`, then `base-2`, `base-3`, … while `taken` says so (§10.2
/// collisions).
pub fn free_slug(base: &str, mut taken: impl FnMut(&str) -> bool) -> String {
    if !taken(base) {
        return base.to_string();
    }
    let mut n = 2u64;
    loop {
        let candidate = format!("{base}-{n}");
        if !taken(&candidate) {
            return candidate;
        }
        n += 1;
    }
}

/// The slug of a new draft titled `title` (§10.2).
pub fn base_slug(title: &str) -> String {
    crate::survey::records::slug(title, SLUG_FALLBACK)
}

#[cfg(test)]
mod tests {
    use super::*;

    // --- file model --------------------------------------------------------------------

    #[test]
    fn file_text_has_the_members_in_order_pretty_with_a_newline() {
        let f = DraftFile {
            slug: "s".into(),
            title: "T".into(),
            status: Status::Building,
            session: "sess".into(),
            created_at: "2026-11-29T22:47:00Z".into(),
            updated_at: "2026-11-29T23:05:12Z".into(),
            revision: 0,
            grounding: Grounding::Standard,
            ask_id: None,
            survey: json!({"title": "T", "entry": "q1", "questions": {}}),
        };
        let text = f.to_text();
        assert!(text.ends_with("}\n") && !text.ends_with("\n\n"));
        assert!(
            text.starts_with("{\n  \"v\": 1,\n  \"slug\": \"s\",\n"),
            "{text}"
        );
        let v: Value = serde_json::from_str(&text).unwrap();
        let keys: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
        assert_eq!(
            keys,
            [
                "v",
                "slug",
                "title",
                "status",
                "session",
                "createdAt",
                "updatedAt",
                "revision",
                "grounding",
                "askId",
                "survey"
            ]
        );
        assert_eq!(v["askId"], Value::Null);
        assert_eq!(DraftFile::parse(&text, "x"), Some(f));
    }

    #[test]
    fn unreadable_files() {
        assert_eq!(DraftFile::parse("{", "x"), None);
        assert_eq!(DraftFile::parse("[]", "x"), None);
        assert_eq!(DraftFile::parse(r#"{"v": 2, "survey": {}}"#, "x"), None);
        assert_eq!(DraftFile::parse(r#"{"survey": {}}"#, "x"), None);
        let lenient = DraftFile::parse(r#"{"v": 1, "status": "weird"}"#, "x").unwrap();
        assert_eq!(lenient.slug, "x");
        assert_eq!(lenient.status, Status::Building);
        assert_eq!(lenient.display_title(), DEFAULT_TITLE);
    }

    #[test]
    fn slugs_and_collisions() {
        assert_eq!(
            base_slug("Question Builder — design lock!"),
            "question-builder-design-lock"
        );
        assert_eq!(base_slug(""), "draft");
        assert_eq!(base_slug("全部中文"), "draft");
        let taken = ["a", "a-2"];
        assert_eq!(free_slug("a", |s| taken.contains(&s)), "a-3");
        assert_eq!(free_slug("b", |s| taken.contains(&s)), "b");
        assert!(is_slug("api-survey-2"));
        for bad in ["", "../x", "A", "a/b", "-a", "a-", "a.json"] {
            assert!(!is_slug(bad), "{bad}");
        }
    }
}

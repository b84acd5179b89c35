//! One notification and its shapes: plain text, the three webhook bodies, the desktop
//! summary and body. Agent text (the title, the client name) is made plain text here —
//! Markdown marks and control characters removed, cut short — and escaped for each sink
//! that reads markup (Slack's `&<>`, the freedesktop body's `&<>`). The link is the ask's
//! page; no message ever carries the token.

use askd_core::EventKind;
use pulldown_cmark::{Event, Parser, TagEnd};
use serde_json::{Value, json};

/// The longest title a message carries (Unicode scalars, `…` included).
pub const TITLE_MAX: usize = 200;
/// The longest client name a message carries.
const WHO_MAX: usize = 60;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MessageKind {
    /// A new ask.
    New,
    /// An ask still pending after `after` (and every `remindEvery`).
    Reminder,
    /// An ask nobody answered by its deadline (issue 35): the agent's default was applied,
    /// or the ask closed.
    Expired,
    /// An ask whose deadline is near (`[notify] beforeDeadline` before it; issue 35).
    Closing,
    /// An ask the human put off (snooze) is back in the inbox.
    Back,
    /// Nobody answered by the deadline: the ask is offered to a member, or everyone (team
    /// mode; [`Message::audience`]).
    Escalated,
}

impl MessageKind {
    /// The event name of the JSON body.
    pub fn event(self) -> &'static str {
        match self {
            Self::New => EventKind::AskCreated.as_str(),
            Self::Reminder => EventKind::AskReminder.as_str(),
            Self::Expired => EventKind::AskSettled.as_str(),
            Self::Closing => EventKind::AskDeadline.as_str(),
            Self::Back => EventKind::AskDeferred.as_str(),
            Self::Escalated => EventKind::AskEscalated.as_str(),
        }
    }

    /// The headline (ntfy `Title`, the desktop summary).
    pub fn headline(self) -> &'static str {
        match self {
            Self::New => "askd: a new question for you",
            Self::Reminder => "askd: still waiting for your answer",
            Self::Expired => "askd: nobody answered by the deadline",
            Self::Closing => "askd: a question closes soon",
            Self::Back => "askd: a question you put off is back",
            Self::Escalated => "askd: a question is offered to you",
        }
    }
}

/// One notification about one ask.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Message {
    pub kind: MessageKind,
    pub ask_id: String,
    /// Plain text ([`plain_title`]).
    pub title: String,
    /// The asking session's client (agent) name, plain text.
    pub who: String,
    /// The ask's kind (`survey`, `questions`, …).
    pub ask_kind: String,
    /// The ask's page: `publicUrl` (or the daemon's URL) + `/a/{id}`.
    pub url: String,
    pub created_at: String,
    /// A closing ask's deadline (RFC 3339, UTC): [`MessageKind::Closing`] says it.
    pub expires_at: Option<String>,
    /// Whom an escalation offers the ask to (a member's name, or `everyone`): that member's
    /// own webhooks get it too. `None`: the install's sinks only.
    pub audience: Option<String>,
}

impl Message {
    pub fn new(
        kind: MessageKind,
        ask_id: &str,
        title: Option<&str>,
        who: &str,
        ask_kind: &str,
        base_url: &str,
        created_at: &str,
    ) -> Self {
        let title = title.map(plain_title).filter(|t| !t.is_empty());
        let who = cut(&plain_line(who), WHO_MAX);
        Message {
            kind,
            ask_id: ask_id.to_string(),
            title: title.unwrap_or_else(|| format!("(a {ask_kind} ask without a title)")),
            who: if who.is_empty() {
                "an agent".to_string()
            } else {
                who
            },
            ask_kind: ask_kind.to_string(),
            url: format!("{}/a/{}", base_url.trim_end_matches('/'), ask_id),
            created_at: created_at.to_string(),
            expires_at: None,
            audience: None,
        }
    }

    /// `"<who> asks: <title>"`, with `Reminder: ` in front of a reminder.
    pub fn text(&self) -> String {
        match self.kind {
            MessageKind::New => format!("{} asks: {}", self.who, self.title),
            MessageKind::Reminder => format!("Reminder: {} asks: {}", self.who, self.title),
            MessageKind::Expired => format!(
                "Expired: {} asked: {} — nobody answered by the deadline",
                self.who, self.title
            ),
            MessageKind::Closing => format!(
                "Closes at {}: {} asks: {} — answer before then, or the agent's deadline applies",
                clock(self.expires_at.as_deref()),
                self.who,
                self.title
            ),
            MessageKind::Back => format!("Back in your inbox: {} asks: {}", self.who, self.title),
            MessageKind::Escalated => format!(
                "Offered to {}: {} asks: {} — nobody answered by the deadline",
                self.audience.as_deref().unwrap_or("everyone"),
                self.who,
                self.title
            ),
        }
    }

    /// The generic JSON body.
    pub fn json_body(&self) -> Value {
        let mut body = json!({
            "event": self.kind.event(),
            "text": self.text(),
            "ask": {
                "id": self.ask_id,
                "title": self.title,
                "kind": self.ask_kind,
                "who": self.who,
                "url": self.url,
                "createdAt": self.created_at,
            },
        });
        if let Some(at) = &self.expires_at {
            body["ask"]["expiresAt"] = json!(at);
        }
        if let Some(to) = &self.audience {
            body["ask"]["offeredTo"] = json!(to);
        }
        body
    }

    /// A Slack-compatible incoming webhook's body: mrkdwn with `&<>` escaped, the link last.
    pub fn slack_body(&self) -> Value {
        json!({ "text": format!("{} <{}|Open in askd>", slack_escape(&self.text()), self.url) })
    }

    /// The ntfy body (plain text; `Title` and `Click` go in headers).
    pub fn ntfy_body(&self) -> String {
        format!("{}\n{}", self.text(), self.url)
    }

    /// The freedesktop notification's body (the spec allows a little markup: `&<>` escaped).
    pub fn desktop_body(&self) -> String {
        markup_escape(&format!("{}\n{}", self.text(), self.url))
    }
}

/// A title as plain text: Markdown parsed and only its text kept (code spans as their
/// text, raw HTML as its text, line breaks as spaces), control characters removed, whitespace
/// collapsed, at most [`TITLE_MAX`] scalars.
pub fn plain_title(md: &str) -> String {
    let mut out = String::new();
    for ev in Parser::new(md) {
        match ev {
            // Raw HTML stays as the text it is (`Vec<T>`, `<b>`): sinks escape it.
            Event::Text(t) | Event::Code(t) | Event::Html(t) | Event::InlineHtml(t) => {
                out.push_str(&t)
            }
            Event::SoftBreak | Event::HardBreak | Event::End(TagEnd::Paragraph) => out.push(' '),
            Event::End(TagEnd::Heading(_) | TagEnd::Item) => out.push(' '),
            _ => {}
        }
    }
    cut(&plain_line(&out), TITLE_MAX)
}

/// Control and bidi-override characters removed, whitespace runs as one space, trimmed.
fn plain_line(s: &str) -> String {
    let cleaned: String = s
        .chars()
        .map(|c| if c.is_whitespace() { ' ' } else { c })
        .filter(|c| {
            !c.is_control() && !matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
        })
        .collect();
    cleaned.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn cut(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        return s.to_string();
    }
    let mut out: String = s.chars().take(max - 1).collect();
    out.push('…');
    out
}

/// `2026-12-03 21:40 UTC` of a stored time (the sinks' readers are anywhere).
fn clock(at: Option<&str>) -> String {
    at.and_then(|t| chrono::DateTime::parse_from_rfc3339(t).ok())
        .map(|t| {
            t.with_timezone(&chrono::Utc)
                .format("%Y-%m-%d %H:%M UTC")
                .to_string()
        })
        .unwrap_or_else(|| "its deadline".to_string())
}

fn slack_escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

fn markup_escape(s: &str) -> String {
    slack_escape(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn titles_are_plain_text() {
        assert_eq!(
            plain_title("**Pick** a `db` for _the_ [app](http://x)"),
            "Pick a db for the app"
        );
        assert_eq!(plain_title("# Head\n\nline <b>x</b>"), "Head line <b>x</b>");
        assert_eq!(plain_title("a `Vec<T>` or Vec<T>"), "a Vec<T> or Vec<T>");
        assert_eq!(plain_title("a\u{202e}b\u{7}c"), "abc");
        let long = "x".repeat(500);
        assert_eq!(plain_title(&long).chars().count(), TITLE_MAX);
    }

    #[test]
    fn bodies_escape_markup_and_link_the_page() {
        let m = Message::new(
            MessageKind::New,
            "a1",
            Some("<script> & co"),
            "codex",
            "questions",
            "https://askd.example/",
            "t",
        );
        assert_eq!(m.url, "https://askd.example/a/a1");
        let slack = m.slack_body()["text"].as_str().unwrap().to_string();
        assert!(
            slack.starts_with("codex asks: &lt;script&gt; &amp; co <https://askd.example/a/a1|")
        );
        assert!(m.desktop_body().contains("&lt;script&gt;"));
        assert_eq!(m.json_body()["ask"]["title"], "<script> & co");
    }
}

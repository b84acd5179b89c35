//! Agent text for a terminal. Markdown is shown as readable plain text ([`markdown`]: no
//! `**`, headings and list items as lines, links as "text (url)"); what must never reach the
//! terminal is a control character (an escape sequence could move the cursor, retitle the
//! window or rewrite the screen) or an invisible reordering mark.

use pulldown_cmark::{Event, Options, Parser, Tag, TagEnd};

/// `s` without control or bidirectional-override characters; tabs become spaces, line breaks
/// stay (`\r\n` and `\r` become `\n`).
pub fn clean(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\n' => out.push('\n'),
            '\r' => {
                if chars.peek() != Some(&'\n') {
                    out.push('\n');
                }
            }
            '\t' => out.push_str("    "),
            c if c.is_control() || is_invisible_format(c) => {}
            c => out.push(c),
        }
    }
    out
}

/// [`clean`] on one line: line breaks become spaces.
pub fn clean_line(s: &str) -> String {
    clean(s).replace('\n', " ")
}

/// Agent Markdown as plain text, then [`clean`]: emphasis marks dropped, headings and
/// paragraphs as lines with a blank line between blocks, bullets as "• ", numbered items as
/// "1. ", nested lists indented, code blocks indented by four spaces, quotes prefixed "│ ",
/// links as "text (url)" (just the url when the text is the url), images as "[alt] (url)",
/// raw HTML kept as text (it is shown, never interpreted).
pub fn markdown(s: &str) -> String {
    let opts = Options::ENABLE_STRIKETHROUGH | Options::ENABLE_TABLES | Options::ENABLE_TASKLISTS;
    let mut w = PlainText::new();
    for event in Parser::new_ext(s, opts) {
        w.event(event);
    }
    clean(w.out.trim_end())
}

/// [`markdown`]'s writer: the text so far and the blocks it is in.
struct PlainText {
    out: String,
    /// Per open list: the next number (None for bullets).
    lists: Vec<Option<u64>>,
    quote: usize,
    links: Vec<(String, usize)>,
    in_code: bool,
    at_line_start: bool,
    pending_blank: bool,
}

impl PlainText {
    fn new() -> Self {
        PlainText {
            out: String::new(),
            lists: Vec::new(),
            quote: 0,
            links: Vec::new(),
            in_code: false,
            at_line_start: true,
            pending_blank: false,
        }
    }

    /// The open quotes' and outer lists' indent.
    fn prefix(&self) -> String {
        let mut p = "│ ".repeat(self.quote);
        p.push_str(&"  ".repeat(self.lists.len().saturating_sub(1)));
        p
    }

    fn newline(&mut self) {
        self.out.push('\n');
        self.at_line_start = true;
    }

    /// Before text: the pending blank line, then at a line start the block's indent.
    fn begin_text(&mut self) {
        if self.pending_blank && !self.out.is_empty() {
            if !self.out.ends_with('\n') {
                self.out.push('\n');
            }
            self.out.push('\n');
            self.at_line_start = true;
        }
        self.pending_blank = false;
        if self.at_line_start {
            let p = self.prefix();
            self.out.push_str(&p);
            if !self.lists.is_empty() {
                self.out.push_str("  ");
            }
            if self.in_code {
                self.out.push_str("    ");
            }
            self.at_line_start = false;
        }
    }

    fn event(&mut self, event: Event<'_>) {
        match event {
            Event::Start(tag) => self.start(tag),
            Event::End(tag) => self.end(tag),
            Event::Text(t) => self.text(&t),
            Event::Code(t) | Event::InlineMath(t) | Event::DisplayMath(t) => {
                self.begin_text();
                self.out.push_str(&t);
            }
            Event::Html(t) | Event::InlineHtml(t) => {
                self.begin_text();
                self.out.push_str(t.trim_end_matches('\n'));
            }
            Event::SoftBreak => {
                self.begin_text();
                self.out.push(' ');
            }
            Event::HardBreak => self.newline(),
            Event::Rule => {
                if !self.at_line_start {
                    self.newline();
                }
                self.pending_blank = !self.out.is_empty();
                self.begin_text();
                self.out.push_str("────────");
                self.newline();
            }
            Event::TaskListMarker(done) => {
                self.begin_text();
                self.out.push_str(if done { "[x] " } else { "[ ] " });
            }
            Event::FootnoteReference(t) => {
                self.begin_text();
                self.out.push_str(&format!("[{t}]"));
            }
        }
    }

    fn start(&mut self, tag: Tag<'_>) {
        match tag {
            Tag::Paragraph | Tag::Heading { .. } => {
                if !self.out.is_empty() && !self.at_line_start {
                    self.newline();
                }
                if self.lists.is_empty() || !self.out.ends_with("  ") {
                    self.pending_blank = !self.out.is_empty() && !ends_with_item_marker(&self.out);
                }
            }
            Tag::BlockQuote(_) => {
                self.pending_blank = !self.out.is_empty();
                self.quote += 1;
            }
            Tag::CodeBlock(_) => {
                self.pending_blank = !self.out.is_empty();
                if !self.at_line_start {
                    self.newline();
                }
                self.in_code = true;
            }
            Tag::List(first) => {
                if !self.at_line_start {
                    self.newline();
                }
                if self.lists.is_empty() {
                    self.pending_blank = !self.out.is_empty();
                }
                self.lists.push(first);
            }
            Tag::Item => self.item(),
            Tag::Link { dest_url, .. } | Tag::Image { dest_url, .. } => {
                self.begin_text();
                self.links.push((dest_url.to_string(), self.out.len()));
            }
            Tag::TableCell => {
                self.begin_text();
                if !self.out.ends_with(' ') && !self.out.ends_with('\n') && !self.at_line_start {
                    self.out.push_str(" | ");
                }
            }
            _ => {}
        }
    }

    fn end(&mut self, tag: TagEnd) {
        match tag {
            TagEnd::Paragraph | TagEnd::Heading(_) => self.newline(),
            TagEnd::BlockQuote(_) => self.quote = self.quote.saturating_sub(1),
            TagEnd::CodeBlock => {
                self.in_code = false;
                if !self.at_line_start {
                    self.newline();
                }
            }
            TagEnd::List(_) => {
                self.lists.pop();
            }
            TagEnd::Item if !self.at_line_start => self.newline(),
            TagEnd::Link | TagEnd::Image => {
                if let Some((url, start)) = self.links.pop() {
                    let text = self.out[start..].trim().to_string();
                    if text.is_empty() {
                        self.out.push_str(&url);
                    } else if text != url && !url.is_empty() {
                        self.out.push_str(&format!(" ({url})"));
                    }
                }
            }
            TagEnd::TableRow | TagEnd::TableHead => self.newline(),
            _ => {}
        }
    }

    /// A list item's marker: "• ", or the list's next number.
    fn item(&mut self) {
        if !self.at_line_start {
            self.newline();
        }
        if self.pending_blank && !self.out.is_empty() {
            self.out.push('\n');
        }
        self.pending_blank = false;
        self.out.push_str(&self.prefix());
        match self.lists.last_mut() {
            Some(Some(n)) => {
                self.out.push_str(&format!("{n}. "));
                *n += 1;
            }
            _ => self.out.push_str("• "),
        }
        self.at_line_start = false;
    }

    /// Text; in a code block, each of its lines indented.
    fn text(&mut self, t: &str) {
        if self.in_code {
            for (i, line) in t.split('\n').enumerate() {
                if i > 0 {
                    self.newline();
                }
                if !line.is_empty() {
                    self.begin_text();
                    self.out.push_str(line);
                }
            }
        } else {
            self.begin_text();
            self.out.push_str(t);
        }
    }
}

/// [`markdown`] on one line (a title, a label): line breaks become spaces.
pub fn markdown_line(s: &str) -> String {
    markdown(s).split_whitespace().collect::<Vec<_>>().join(" ")
}

fn ends_with_item_marker(out: &str) -> bool {
    out.ends_with("• ") || out.trim_end_matches(' ').ends_with('.') && out.ends_with(". ")
}

/// Zero-width and bidirectional formatting characters that change how text reads on screen.
fn is_invisible_format(c: char) -> bool {
    matches!(c,
        '\u{200B}'..='\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2060}'..='\u{2069}' | '\u{FEFF}')
}

/// True when `s` holds a CJK ideograph (the ask's language heuristic of the web UI).
pub fn has_cjk(s: &str) -> bool {
    s.chars().any(|c| {
        matches!(c, '\u{3400}'..='\u{4DBF}' | '\u{4E00}'..='\u{9FFF}' | '\u{F900}'..='\u{FAFF}')
    })
}

/// The number of characters (what the daemon's length limits count).
pub fn chars(s: &str) -> usize {
    s.chars().count()
}

/// An RFC 3339 time to the minute, as the terminal shows it (`2026-12-03 17:42 UTC`).
/// Whether a stored time (RFC 3339, as the daemon writes them) is still to come, by this
/// machine's clock.
pub fn to_come(at: &str) -> bool {
    chrono::DateTime::parse_from_rfc3339(at).is_ok_and(|t| t > chrono::Utc::now())
}

pub fn minute(at: &str) -> String {
    let shown = at.get(..16).unwrap_or(at).replace('T', " ");
    if at.ends_with('Z') {
        format!("{shown} UTC")
    } else {
        shown
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escape_sequences_never_reach_the_terminal() {
        let hostile = "a\u{1b}[2J\u{1b}]0;pwned\u{7}b\u{9b}31mc\u{202E}d\r\ne\tf\u{0}";
        let c = clean(hostile);
        assert!(!c.chars().any(|c| c.is_control() && c != '\n'));
        assert_eq!(c, "a[2J]0;pwnedb31mcd\ne    f");
        assert_eq!(clean_line("x\ny"), "x y");
    }

    #[test]
    fn markdown_reads_as_plain_text() {
        let md = "# Plan\n\nPick the **shape** of the *next* release.\n\n- one `x`\n- two\n  1. nested\n\n1. first\n2. see [the guide](https://example.com/g) or <https://a.b>\n\n> quoted\n\n```\nlet a = 1;\n```";
        assert_eq!(
            markdown(md),
            "Plan\n\nPick the shape of the next release.\n\n• one x\n• two\n  1. nested\n\n1. first\n2. see the guide (https://example.com/g) or https://a.b\n\n│ quoted\n\n    let a = 1;"
        );
        assert_eq!(
            markdown_line("**database** choice\nnow"),
            "database choice now"
        );
        // Raw HTML is shown as text; control characters still never pass.
        assert_eq!(markdown("<b>x</b> \u{1b}[2J"), "<b>x</b> [2J");
    }

    #[test]
    fn cjk_is_detected() {
        assert!(has_cjk("选择数据库"));
        assert!(!has_cjk("Pick a database"));
    }
}

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
    let mut out = String::new();
    // Per open list: the next number (None for bullets).
    let mut lists: Vec<Option<u64>> = Vec::new();
    let mut quote = 0usize;
    let mut links: Vec<(String, usize)> = Vec::new();
    let mut in_code = false;
    let mut at_line_start = true;
    let mut pending_blank = false;
    let prefix = |lists: &Vec<Option<u64>>, quote: usize| -> String {
        let mut p = "│ ".repeat(quote);
        p.push_str(&"  ".repeat(lists.len().saturating_sub(1)));
        p
    };
    let newline = |out: &mut String, at_line_start: &mut bool| {
        out.push('\n');
        *at_line_start = true;
    };
    macro_rules! begin_text {
        () => {
            if pending_blank && !out.is_empty() {
                if !out.ends_with('\n') {
                    out.push('\n');
                }
                out.push('\n');
                at_line_start = true;
            }
            pending_blank = false;
            if at_line_start {
                let p = prefix(&lists, quote);
                out.push_str(&p);
                if !lists.is_empty() {
                    out.push_str("  ");
                }
                if in_code {
                    out.push_str("    ");
                }
                at_line_start = false;
            }
        };
    }
    let opts = Options::ENABLE_STRIKETHROUGH | Options::ENABLE_TABLES | Options::ENABLE_TASKLISTS;
    for event in Parser::new_ext(s, opts) {
        match event {
            Event::Start(Tag::Paragraph | Tag::Heading { .. }) => {
                if !out.is_empty() && !at_line_start {
                    newline(&mut out, &mut at_line_start);
                }
                if lists.is_empty() || !out.ends_with("  ") {
                    pending_blank = !out.is_empty() && !ends_with_item_marker(&out);
                }
            }
            Event::End(TagEnd::Paragraph | TagEnd::Heading(_)) => {
                newline(&mut out, &mut at_line_start);
            }
            Event::Start(Tag::BlockQuote(_)) => {
                pending_blank = !out.is_empty();
                quote += 1;
            }
            Event::End(TagEnd::BlockQuote(_)) => quote = quote.saturating_sub(1),
            Event::Start(Tag::CodeBlock(_)) => {
                pending_blank = !out.is_empty();
                if !at_line_start {
                    newline(&mut out, &mut at_line_start);
                }
                in_code = true;
            }
            Event::End(TagEnd::CodeBlock) => {
                in_code = false;
                if !at_line_start {
                    newline(&mut out, &mut at_line_start);
                }
            }
            Event::Start(Tag::List(first)) => {
                if !at_line_start {
                    newline(&mut out, &mut at_line_start);
                }
                if lists.is_empty() {
                    pending_blank = !out.is_empty();
                }
                lists.push(first);
            }
            Event::End(TagEnd::List(_)) => {
                lists.pop();
            }
            Event::Start(Tag::Item) => {
                if !at_line_start {
                    newline(&mut out, &mut at_line_start);
                }
                if pending_blank && !out.is_empty() {
                    out.push('\n');
                }
                pending_blank = false;
                out.push_str(&prefix(&lists, quote));
                match lists.last_mut() {
                    Some(Some(n)) => {
                        out.push_str(&format!("{n}. "));
                        *n += 1;
                    }
                    _ => out.push_str("• "),
                }
                at_line_start = false;
            }
            Event::End(TagEnd::Item) if !at_line_start => {
                newline(&mut out, &mut at_line_start);
            }
            Event::Start(Tag::Link { dest_url, .. } | Tag::Image { dest_url, .. }) => {
                begin_text!();
                links.push((dest_url.to_string(), out.len()));
            }
            Event::End(TagEnd::Link | TagEnd::Image) => {
                if let Some((url, start)) = links.pop() {
                    let text = out[start..].trim().to_string();
                    if text.is_empty() {
                        out.push_str(&url);
                    } else if text != url && !url.is_empty() {
                        out.push_str(&format!(" ({url})"));
                    }
                }
            }
            Event::Start(Tag::TableCell) => {
                begin_text!();
                if !out.ends_with(' ') && !out.ends_with('\n') && !at_line_start {
                    out.push_str(" | ");
                }
            }
            Event::End(TagEnd::TableRow | TagEnd::TableHead) => {
                newline(&mut out, &mut at_line_start);
            }
            Event::Text(t) => {
                if in_code {
                    for (i, line) in t.split('\n').enumerate() {
                        if i > 0 {
                            newline(&mut out, &mut at_line_start);
                        }
                        if !line.is_empty() {
                            begin_text!();
                            out.push_str(line);
                        }
                    }
                } else {
                    begin_text!();
                    out.push_str(&t);
                }
            }
            Event::Code(t) | Event::InlineMath(t) | Event::DisplayMath(t) => {
                begin_text!();
                out.push_str(&t);
            }
            Event::Html(t) | Event::InlineHtml(t) => {
                begin_text!();
                out.push_str(t.trim_end_matches('\n'));
            }
            Event::SoftBreak => {
                begin_text!();
                out.push(' ');
            }
            Event::HardBreak => newline(&mut out, &mut at_line_start),
            Event::Rule => {
                if !at_line_start {
                    newline(&mut out, &mut at_line_start);
                }
                pending_blank = !out.is_empty();
                begin_text!();
                out.push_str("────────");
                newline(&mut out, &mut at_line_start);
            }
            Event::TaskListMarker(done) => {
                begin_text!();
                out.push_str(if done { "[x] " } else { "[ ] " });
            }
            Event::FootnoteReference(t) => {
                begin_text!();
                out.push_str(&format!("[{t}]"));
            }
            _ => {}
        }
    }
    clean(out.trim_end())
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

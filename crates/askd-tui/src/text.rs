//! Agent text for a terminal. Markdown is shown as its plain source; what must never reach the
//! terminal is a control character (an escape sequence could move the cursor, retitle the
//! window or rewrite the screen) or an invisible reordering mark.

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
    fn cjk_is_detected() {
        assert!(has_cjk("选择数据库"));
        assert!(!has_cjk("Pick a database"));
    }
}

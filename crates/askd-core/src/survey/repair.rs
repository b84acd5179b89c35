//! Escape repair (`survey.md` §5): literal `\n` / `\r` sequences that a writer left inside an
//! already-decoded string become real line breaks, while Windows paths such as `E:\notes`
//! stay as they are.

use std::borrow::Cow;

/// Block-prose repair (§5.1): `intro`, `prompt`, `detail`, `insight`.
/// A string without a backslash is returned borrowed, untouched.
pub fn block(s: &str) -> Cow<'_, str> {
    if !s.contains('\\') {
        return Cow::Borrowed(s);
    }
    let b = s.as_bytes();
    let mut out = String::with_capacity(s.len());
    let mut i = 0;
    // Index of the first byte not yet copied; copying runs in slices keeps this linear and
    // UTF-8 safe (every match below is ASCII, so slice boundaries are char boundaries).
    let mut copied = 0;
    while i < b.len() {
        if b[i] != b'\\' {
            i += 1;
            continue;
        }
        let (consumed, replacement) = match_at(b, i);
        if consumed == 0 {
            i += 1;
            continue;
        }
        out.push_str(&s[copied..i]);
        out.push_str(replacement);
        i += consumed;
        copied = i;
    }
    out.push_str(&s[copied..]);
    Cow::Owned(out)
}

/// One-line repair (§5.2): block repair, then every real line break (CRLF, LF, lone CR)
/// becomes one space. `header`, option and template `label` and `description`.
pub fn one_line(s: &str) -> Cow<'_, str> {
    let repaired = block(s);
    // Byte searches (memchr) rather than a char-set pattern, which decodes every char.
    let bytes = repaired.as_bytes();
    if !bytes.contains(&b'\n') && !bytes.contains(&b'\r') {
        return repaired;
    }
    Cow::Owned(breaks_to_spaces(&repaired))
}

/// Every real line break (CRLF, LF, lone CR) becomes one space: one-line repair's second
/// half, and what the flat questions do to a one-line field.
pub fn breaks_to_spaces(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\r' => {
                if chars.peek() == Some(&'\n') {
                    chars.next();
                }
                out.push(' ');
            }
            '\n' => out.push(' '),
            c => out.push(c),
        }
    }
    out
}

/// Which rule of §5.1 matches at `b[i] == '\\'`: bytes consumed (0 = none) and replacement.
fn match_at(b: &[u8], i: usize) -> (usize, &'static str) {
    let at = |k: usize| b.get(i + k).copied();
    match (at(1), at(2), at(3)) {
        (Some(b'r'), Some(b'\\'), Some(b'n')) => (4, "\n"),
        (Some(b'n'), Some(b'\\'), Some(b'n')) => (4, "\n\n"),
        (Some(b'n' | b'r'), next, _) if !next.is_some_and(|c| c.is_ascii_alphanumeric()) => {
            (2, "\n")
        }
        _ => (0, ""),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // The examples table of §5.3, one row each.
    #[test]
    fn repair_intro_double_pair_is_unconditional() {
        assert_eq!(
            block(r"**A:** first\n\n**B:** second"),
            "**A:** first\n\n**B:** second"
        );
    }

    #[test]
    fn repair_insight_newline_before_punctuation() {
        assert_eq!(block(r"Promise\n- proven"), "Promise\n- proven");
    }

    #[test]
    fn repair_protects_windows_paths() {
        assert_eq!(block(r"see C:\new\tools"), r"see C:\new\tools");
        assert_eq!(block(r"E:\notes\v3"), r"E:\notes\v3");
        assert_eq!(block(r"src\runner\lib"), r"src\runner\lib");
    }

    #[test]
    fn repair_crlf_pair_is_unconditional() {
        assert_eq!(block(r"first\r\nsecond line"), "first\nsecond line");
    }

    #[test]
    fn repair_end_of_text_counts_as_not_a_letter() {
        assert_eq!(block(r"Done?\n"), "Done?\n");
        assert_eq!(block(r"Done?\r"), "Done?\n");
    }

    #[test]
    fn repair_label_before_letter_is_unchanged() {
        assert_eq!(one_line(r"Stance one\ncontinued"), r"Stance one\ncontinued");
    }

    #[test]
    fn repair_header_breaks_become_spaces() {
        assert_eq!(one_line(r"Scope\n\nDelivery"), "Scope  Delivery");
        assert_eq!(one_line("real\r\nbreak\rand\nmore"), "real break and more");
    }

    #[test]
    fn repair_lone_cr_before_space() {
        assert_eq!(block(r"a\r b"), "a\n b");
    }

    #[test]
    fn repair_never_lengthens_and_keeps_unicode() {
        let s = r"é\n😀\\n\x";
        let r = block(s);
        assert!(r.chars().count() <= s.chars().count());
        assert_eq!(r, "é\n😀\\\n\\x");
    }

    #[test]
    fn repair_without_backslash_is_borrowed() {
        assert!(matches!(block("plain\ntext"), Cow::Borrowed(_)));
    }
}

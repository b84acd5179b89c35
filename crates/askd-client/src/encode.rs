//! The one URL encoder of askd's clients.

/// Percent-encodes `s` for one URL path segment or query value: everything but the
/// unreserved characters (`A-Z a-z 0-9 - _ . ~`) becomes `%XX` (ids are UUIDs, sessions and
/// query values may hold other characters).
pub fn seg(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'~') {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::seg;

    #[test]
    fn unreserved_pass_everything_else_is_escaped() {
        assert_eq!(seg("a-Z_0.9~"), "a-Z_0.9~");
        assert_eq!(seg("a b/c?d"), "a%20b%2Fc%3Fd");
        assert_eq!(seg("é"), "%C3%A9");
        assert_eq!(seg(""), "");
    }
}

//! Names people give: a member's (`askd members add`, `POST /api/members`) and a paired
//! device's (the pairing form). One rule for both, so a name reads as what it is:
//!
//! - **Normal form**: NFC, runs of spaces one space, trimmed, so `Zoë` typed decomposed is
//!   the same `Zoë`, and `Ana  Lima` is `Ana Lima`.
//! - **Nothing hidden**: no control character (Cc, and the line and paragraph separators),
//!   no text-direction control (`Bidi_Control`: U+061C, U+200E, U+200F, U+202A–U+202E,
//!   U+2066–U+2069), no format character (Cf: the zero-width U+200B–U+200D, U+2060, U+FEFF,
//!   the soft hyphen, tags…) and no other default-ignorable code point (the Hangul fillers,
//!   the combining grapheme joiner; variation selectors stay, an emoji needs them). A
//!   member's name with one is refused; a device's loses it ([`clean`]).
//! - **At least one visible character**: not only spaces, marks or variation selectors.
//! - **No look-alikes**: [`look_alike_key`] is the UTS #39 confusable skeleton, compared
//!   without case, so `Аna` (Cyrillic А) and `Ana`, or `B0b` and `Bob`, have one key.
//!
//! The tables are the `unicode-*` crates' (general category, NFC, confusables and the
//! default-ignorable code points, which `unicode_security::skeleton` drops); only the
//! twelve bidi controls, a fixed list of UAX #9, and the variation selectors' blocks are
//! written here.

use unicode_normalization::UnicodeNormalization;
use unicode_properties::{GeneralCategory, GeneralCategoryGroup, UnicodeGeneralCategory};

/// What a character of a name hides.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Hidden {
    /// A control character (a line break, a tab) or a line or paragraph separator.
    Control,
    /// A text-direction control: it makes the rest read in another order (`U+202E`).
    Direction,
    /// A zero-width, format or other invisible character.
    Invisible,
}

/// Why a name is refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NameError {
    /// Nothing visible is left once trimmed.
    Empty,
    /// `ch` (the first such character) hides something.
    Hidden { ch: char, what: Hidden },
    /// Longer than `max` characters (Unicode scalar values, after NFC).
    TooLong { max: usize },
}

impl NameError {
    /// The API's problem code: `name_invisible` for a hidden character, else `name_invalid`.
    pub fn code(&self) -> &'static str {
        match self {
            NameError::Hidden {
                what: Hidden::Direction | Hidden::Invisible,
                ..
            } => "name_invisible",
            _ => "name_invalid",
        }
    }

    /// What is wrong and how to fix it; `example` is said for an empty name (e.g. `askd
    /// members add Ana`).
    pub fn message(&self, example: &str) -> String {
        match self {
            NameError::Empty => {
                format!("name is empty: give a name with visible characters, e.g. {example}")
            }
            NameError::Hidden {
                what: Hidden::Control,
                ..
            } => "name has control characters (a line break, a tab): use plain text on one line"
                .into(),
            NameError::Hidden {
                ch,
                what: Hidden::Direction,
            } => format!(
                "name has a text-direction control ({}), which makes it read differently from what it is: type the name without it",
                code_point(*ch)
            ),
            NameError::Hidden {
                ch,
                what: Hidden::Invisible,
            } => format!(
                "name has an invisible character ({}: zero-width or formatting), which lets a name pass for another: type the name with visible characters only",
                code_point(*ch)
            ),
            NameError::TooLong { max } => {
                format!("name is longer than {max} characters: use a shorter one")
            }
        }
    }
}

/// `U+202E`.
pub fn code_point(c: char) -> String {
    format!("U+{:04X}", c as u32)
}

/// The `Bidi_Control` characters (UAX #9): ALM, LRM, RLM, LRE, RLE, PDF, LRO, RLO, LRI, RLI,
/// FSI, PDI.
fn is_bidi_control(c: char) -> bool {
    matches!(c, '\u{061c}' | '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// `Variation_Selector`: Mongolian free variation selectors, VS1–VS16, VS17–VS256. They
/// only choose a glyph for the character before them (an emoji's presentation).
fn is_variation_selector(c: char) -> bool {
    matches!(c, '\u{180b}'..='\u{180d}' | '\u{180f}' | '\u{fe00}'..='\u{fe0f}' | '\u{e0100}'..='\u{e01ef}')
}

/// `Default_Ignorable_Code_Point`, from `unicode-security`'s table: its skeleton drops
/// exactly these (every other character has a non-empty prototype).
fn is_default_ignorable(c: char) -> bool {
    let mut buf = [0u8; 4];
    unicode_security::skeleton(c.encode_utf8(&mut buf))
        .next()
        .is_none()
}

/// What `c` hides, if anything.
pub fn hidden(c: char) -> Option<Hidden> {
    if is_bidi_control(c) {
        return Some(Hidden::Direction);
    }
    match c.general_category() {
        GeneralCategory::Control
        | GeneralCategory::LineSeparator
        | GeneralCategory::ParagraphSeparator => Some(Hidden::Control),
        GeneralCategory::Format => Some(Hidden::Invisible),
        _ if is_variation_selector(c) => None,
        _ if is_default_ignorable(c) => Some(Hidden::Invisible),
        _ => None,
    }
}

/// Whether `s` shows anything: a character that is no space, no mark, no variation selector
/// and hides nothing.
fn has_visible(s: &str) -> bool {
    s.chars().any(|c| {
        !c.is_whitespace()
            && c.general_category_group() != GeneralCategoryGroup::Mark
            && !is_variation_selector(c)
            && hidden(c).is_none()
    })
}

/// `name` in its normal form: NFC, each run of spaces (`Zs`: a space, a no-break space, an
/// ideographic space…) one space, trimmed — so `Ana  Lima` and `Ana\u{a0}Lima` are
/// `Ana Lima`.
pub fn normal(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    let mut space = false;
    for c in name.nfc() {
        if c.general_category() == GeneralCategory::SpaceSeparator {
            space = true;
            continue;
        }
        if space && !out.is_empty() {
            out.push(' ');
        }
        space = false;
        out.push(c);
    }
    out.trim().to_string()
}

/// A name as given, checked (a member's): its normal form, or why it is refused.
pub fn check(name: &str, max: usize) -> Result<String, NameError> {
    let name = normal(name);
    if let Some((ch, what)) = name.chars().find_map(|c| hidden(c).map(|w| (c, w))) {
        return Err(NameError::Hidden { ch, what });
    }
    if !has_visible(&name) {
        return Err(NameError::Empty);
    }
    if name.chars().count() > max {
        return Err(NameError::TooLong { max });
    }
    Ok(name)
}

/// A name as given, cleaned (a device's, from a phone's form): control characters become
/// spaces, other hidden characters go, then NFC, trimmed, at most `max` characters. `None`
/// when nothing visible is left.
pub fn clean(name: &str, max: usize) -> Option<String> {
    let kept: String = name
        .chars()
        .filter_map(|c| match hidden(c) {
            None => Some(c),
            Some(Hidden::Control) => Some(' '),
            Some(Hidden::Direction | Hidden::Invisible) => None,
        })
        .collect();
    let cut: String = normal(&kept).chars().take(max).collect();
    let cut = cut.trim_end().to_string();
    has_visible(&cut).then_some(cut)
}

/// The key two names that look alike share: the UTS #39 skeleton of the normal form,
/// lower-cased, and its skeleton again (so case is ignored on both sides of a look-alike:
/// `B0b`, `bob` and `Bob` have one key, and so do `Аna` with a Cyrillic А and `ana`).
pub fn look_alike_key(name: &str) -> String {
    let skeleton: String = unicode_security::skeleton(&normal(name)).collect();
    unicode_security::skeleton(&skeleton.to_lowercase()).collect()
}

/// Whether two names look alike ([`look_alike_key`]).
pub fn look_alike(a: &str, b: &str) -> bool {
    look_alike_key(a) == look_alike_key(b)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normal_names_pass_in_nfc() {
        assert_eq!(check("  Ana ", 40).unwrap(), "Ana");
        assert_eq!(check("李明", 40).unwrap(), "李明");
        assert_eq!(check("Zoë Ünal", 40).unwrap(), "Zoë Ünal");
        // Decomposed (e + U+0308) comes out composed.
        assert_eq!(check("Zoe\u{308}", 40).unwrap(), "Zo\u{eb}");
        assert_eq!(
            check("Ana \u{2764}\u{fe0f}", 40).unwrap(),
            "Ana \u{2764}\u{fe0f}"
        );
        assert_eq!(check("O'Brien-Smith", 40).unwrap(), "O'Brien-Smith");
        assert_eq!(check("Ana \u{a0}\u{3000} Lima", 40).unwrap(), "Ana Lima");
        assert!(check(&"x".repeat(40), 40).is_ok());
    }

    #[test]
    fn hidden_characters_are_refused() {
        for (bad, what) in [
            ("\u{200b}Ana", Hidden::Invisible),
            ("A\u{200c}na", Hidden::Invisible),
            ("A\u{200d}na", Hidden::Invisible),
            ("A\u{2060}na", Hidden::Invisible),
            ("\u{feff}Ana", Hidden::Invisible),
            ("An\u{ad}a", Hidden::Invisible),
            ("Ana\u{e0041}", Hidden::Invisible),
            ("\u{3164}Ana", Hidden::Invisible),
            ("A\u{34f}na", Hidden::Invisible),
            ("Ana\u{202e}loot", Hidden::Direction),
            ("\u{202a}Ana", Hidden::Direction),
            ("Ana\u{2066}", Hidden::Direction),
            ("Ana\u{2069}x", Hidden::Direction),
            ("Ana\u{200e}", Hidden::Direction),
            ("Ana\u{200f}", Hidden::Direction),
            ("\u{61c}Ana", Hidden::Direction),
            ("a\nb", Hidden::Control),
            ("a\tb", Hidden::Control),
            ("a\u{2028}b", Hidden::Control),
            ("a\u{7f}b", Hidden::Control),
        ] {
            match check(bad, 40) {
                Err(NameError::Hidden { what: w, .. }) => assert_eq!(w, what, "{bad:?}"),
                other => panic!("{bad:?}: {other:?}"),
            }
        }
        let e = check("Ana\u{202e}", 40).unwrap_err();
        assert_eq!(e.code(), "name_invisible");
        assert!(e.message("x").contains("U+202E"), "{}", e.message("x"));
    }

    #[test]
    fn empty_and_long_names_are_refused() {
        for bad in ["", "   ", "\u{3000}", "\u{301}", "\u{fe0f}", " \u{301} "] {
            assert_eq!(check(bad, 40), Err(NameError::Empty), "{bad:?}");
        }
        assert_eq!(
            check(&"x".repeat(41), 40),
            Err(NameError::TooLong { max: 40 })
        );
    }

    #[test]
    fn look_alikes_share_a_key() {
        for (a, b) in [
            ("Ana", "\u{410}na"),       // Cyrillic capital A
            ("Ana", "\u{410}n\u{430}"), // and small a
            ("Ana", "ana"),             // case
            ("Ana", "ANA"),
            ("Bob", "B0b"), // digit zero
            ("Ian", "lan"), // capital I, small l
            ("Paul", "P\u{430}ul"),
            ("Ana", "\u{ff21}na"),  // full-width A
            ("bob", "\u{ff22}ob"),  // full-width B
            ("Ana", "An\u{1d41a}"), // mathematical bold a
            ("Zoë", "Zoe\u{308}"),
        ] {
            assert!(look_alike(a, b), "{a:?} and {b:?}");
        }
        for (a, b) in [
            ("Ana", "Anna"),
            ("Bo", "Bob"),
            ("李明", "李朋"),
            ("Ana", "Ina"),
        ] {
            assert!(!look_alike(a, b), "{a:?} and {b:?}");
        }
    }

    #[test]
    fn device_names_are_cleaned() {
        assert_eq!(clean("Ana\u{202e}enohp", 60).unwrap(), "Anaenohp");
        assert_eq!(clean("\u{200b}Phone\u{feff}", 60).unwrap(), "Phone");
        assert_eq!(clean("my\tphone\n", 60).unwrap(), "my phone");
        assert_eq!(
            clean("Zoe\u{308}'s \u{2764}\u{fe0f}", 60).unwrap(),
            "Zo\u{eb}'s \u{2764}\u{fe0f}"
        );
        assert_eq!(clean(&"x".repeat(70), 60).unwrap().len(), 60);
        assert_eq!(clean("ab       c", 4).unwrap(), "ab c");
        assert_eq!(clean("abc  d", 4).unwrap(), "abc");
        for gone in ["", "  ", "\u{202e}", "\u{200b}\u{200d}", "\u{fe0f}"] {
            assert_eq!(clean(gone, 60), None, "{gone:?}");
        }
    }
}

//! A borrowed, order-preserving JSON tree.
//!
//! Why not `serde_json::Value`: validation runs on every tool call, on payloads from a few
//! kilobytes up to ~47 MB. Parsing into `Value` copies every string into its own allocation;
//! this tree borrows every string that contains no escape sequence straight from the input
//! text, which halves parse time and keeps peak memory close to the input size.
//!
//! Semantics the specs rely on:
//! - object members keep document order (`survey.md` §1.3 "Id order");
//! - a member name that occurs twice keeps the position of its first occurrence and the value
//!   of its last;
//! - nesting deeper than serde_json's recursion limit (128) is a parse error, never a stack
//!   overflow;
//! - a `Json::String(Cow::Borrowed(_))` made by [`parse`] or [`Json::from_value`] holds no
//!   backslash and no line break: in JSON text those can only come from an escape sequence,
//!   and a string with escapes is decoded into an owned one. Escape repair relies on this to
//!   skip borrowed strings without scanning them.

use crate::hash::FastMap;
use std::borrow::Cow;
use std::fmt;

use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};

/// A JSON value whose strings borrow from the text it was parsed from where possible.
#[derive(Debug, Clone, PartialEq)]
pub enum Json<'a> {
    Null,
    Bool(bool),
    Number(serde_json::Number),
    String(Cow<'a, str>),
    Array(Vec<Json<'a>>),
    Object(Object<'a>),
}

/// An object: members in document order, unique names.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Object<'a> {
    members: Vec<(Cow<'a, str>, Json<'a>)>,
}

/// Objects up to this many members are searched linearly; larger ones use an index while
/// they are being parsed, so a hostile object with many members stays linear in time.
const LINEAR_LIMIT: usize = 24;

impl<'a> Object<'a> {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn len(&self) -> usize {
        self.members.len()
    }

    pub fn is_empty(&self) -> bool {
        self.members.is_empty()
    }

    /// Own-key lookup: `constructor` or `toString` are ordinary names.
    pub fn get(&self, name: &str) -> Option<&Json<'a>> {
        self.members
            .iter()
            .find(|(k, _)| k.as_ref() == name)
            .map(|(_, v)| v)
    }

    /// Like [`Object::get`], but an explicit `null` counts as absent (`survey.md` §1.3).
    pub fn get_present(&self, name: &str) -> Option<&Json<'a>> {
        self.get(name).filter(|v| !v.is_null())
    }

    pub fn contains(&self, name: &str) -> bool {
        self.get(name).is_some()
    }

    pub fn iter(&self) -> impl ExactSizeIterator<Item = (&str, &Json<'a>)> {
        self.members.iter().map(|(k, v)| (k.as_ref(), v))
    }

    pub fn keys(&self) -> impl ExactSizeIterator<Item = &str> {
        self.members.iter().map(|(k, _)| k.as_ref())
    }

    /// Inserts or replaces; a replaced member keeps its position.
    pub fn insert(&mut self, name: impl Into<Cow<'a, str>>, value: Json<'a>) {
        let name = name.into();
        if let Some(slot) = self.members.iter_mut().find(|(k, _)| *k == name) {
            slot.1 = value;
        } else {
            self.members.push((name, value));
        }
    }

    pub fn remove(&mut self, name: &str) -> Option<Json<'a>> {
        let at = self.members.iter().position(|(k, _)| k.as_ref() == name)?;
        Some(self.members.remove(at).1)
    }

    pub fn into_owned(self) -> Object<'static> {
        Object {
            members: self
                .members
                .into_iter()
                .map(|(k, v)| (Cow::Owned(k.into_owned()), v.into_owned()))
                .collect(),
        }
    }
}

impl<'a> FromIterator<(Cow<'a, str>, Json<'a>)> for Object<'a> {
    fn from_iter<I: IntoIterator<Item = (Cow<'a, str>, Json<'a>)>>(iter: I) -> Self {
        let mut o = Object::new();
        for (k, v) in iter {
            o.insert(k, v);
        }
        o
    }
}

impl<'a> Json<'a> {
    pub fn is_null(&self) -> bool {
        matches!(self, Json::Null)
    }

    pub fn as_str(&self) -> Option<&str> {
        match self {
            Json::String(s) => Some(s),
            _ => None,
        }
    }

    pub fn as_object(&self) -> Option<&Object<'a>> {
        match self {
            Json::Object(o) => Some(o),
            _ => None,
        }
    }

    pub fn as_array(&self) -> Option<&[Json<'a>]> {
        match self {
            Json::Array(a) => Some(a),
            _ => None,
        }
    }

    pub fn as_bool(&self) -> Option<bool> {
        match self {
            Json::Bool(b) => Some(*b),
            _ => None,
        }
    }

    /// The article-and-noun name the specs use in messages: `a string`, `an array`, `null`,
    /// `a number`, `a boolean`, `an object`.
    pub fn kind(&self) -> &'static str {
        match self {
            Json::Null => "null",
            Json::Bool(_) => "a boolean",
            Json::Number(_) => "a number",
            Json::String(_) => "a string",
            Json::Array(_) => "an array",
            Json::Object(_) => "an object",
        }
    }

    pub fn into_owned(self) -> Json<'static> {
        match self {
            Json::Null => Json::Null,
            Json::Bool(b) => Json::Bool(b),
            Json::Number(n) => Json::Number(n),
            Json::String(s) => Json::String(Cow::Owned(s.into_owned())),
            Json::Array(a) => Json::Array(a.into_iter().map(Json::into_owned).collect()),
            Json::Object(o) => Json::Object(o.into_owned()),
        }
    }

    /// A borrowed view of a `serde_json::Value` (for callers that already hold one, such as
    /// the MCP adapter). `Value`'s own map already applies the duplicate-member rule.
    pub fn from_value(v: &'a serde_json::Value) -> Json<'a> {
        match v {
            serde_json::Value::Null => Json::Null,
            serde_json::Value::Bool(b) => Json::Bool(*b),
            serde_json::Value::Number(n) => Json::Number(n.clone()),
            // Keep the module invariant: a borrowed string holds no backslash and no line
            // break (a parsed one could only get those from an escape, which makes it owned).
            serde_json::Value::String(s) if s.contains(['\\', '\n', '\r']) => {
                Json::String(Cow::Owned(s.clone()))
            }
            serde_json::Value::String(s) => Json::String(Cow::Borrowed(s)),
            serde_json::Value::Array(a) => Json::Array(a.iter().map(Json::from_value).collect()),
            serde_json::Value::Object(m) => Json::Object(Object {
                members: m
                    .iter()
                    .map(|(k, v)| (Cow::Borrowed(k.as_str()), Json::from_value(v)))
                    .collect(),
            }),
        }
    }

    /// Converts to an owned `serde_json::Value`, keeping member order.
    pub fn to_value(&self) -> serde_json::Value {
        match self {
            Json::Null => serde_json::Value::Null,
            Json::Bool(b) => serde_json::Value::Bool(*b),
            Json::Number(n) => serde_json::Value::Number(n.clone()),
            Json::String(s) => serde_json::Value::String(s.to_string()),
            Json::Array(a) => serde_json::Value::Array(a.iter().map(Json::to_value).collect()),
            Json::Object(o) => serde_json::Value::Object(
                o.iter()
                    .map(|(k, v)| (k.to_owned(), v.to_value()))
                    .collect(),
            ),
        }
    }
}

/// The compact JSON text of a value (used to show a non-string value inside a message).
impl fmt::Display for Json<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Json::Null => f.write_str("null"),
            Json::Bool(b) => write!(f, "{b}"),
            Json::Number(n) => write!(f, "{n}"),
            Json::String(s) => write_json_string(f, s),
            Json::Array(a) => {
                f.write_str("[")?;
                for (i, v) in a.iter().enumerate() {
                    if i > 0 {
                        f.write_str(",")?;
                    }
                    write!(f, "{v}")?;
                }
                f.write_str("]")
            }
            Json::Object(o) => {
                f.write_str("{")?;
                for (i, (k, v)) in o.iter().enumerate() {
                    if i > 0 {
                        f.write_str(",")?;
                    }
                    write_json_string(f, k)?;
                    write!(f, ":{v}")?;
                }
                f.write_str("}")
            }
        }
    }
}

fn write_json_string(f: &mut fmt::Formatter<'_>, s: &str) -> fmt::Result {
    // serde_json's string escaping never fails for a str.
    f.write_str(&serde_json::to_string(s).unwrap_or_default())
}

/// Parses JSON text into a borrowed tree. The error is serde_json's, whose `Display` names
/// the line and column where parsing stopped.
///
/// A direct parser ([`fast::parse`]) handles the common case; anything it does not accept —
/// every syntax error, and the rare constructs it leaves alone (surrogate escapes, deep
/// nesting) — goes to serde_json, which then produces the same tree or its own error. The
/// direct parser only ever accepts text serde_json accepts, and builds the identical tree.
pub fn parse(text: &str) -> Result<Json<'_>, serde_json::Error> {
    match fast::parse(text) {
        Some(v) => Ok(v),
        None => serde_json::from_str(text),
    }
}

/// The direct parser behind [`parse`]: no serde dispatch, and every array and object is
/// allocated once at its exact size (members are gathered on a shared scratch stack), which
/// roughly halves parse time and keeps the tree small. It returns `None` rather than an
/// error; the caller then asks serde_json, so error messages stay serde_json's own.
mod fast {
    use crate::hash::FastMap;
    use std::borrow::Cow;

    use super::{Json, LINEAR_LIMIT, Object};

    /// Deeper nesting is left to serde_json and its recursion limit (128).
    const MAX_DEPTH: usize = 100;

    pub(super) fn parse(text: &str) -> Option<Json<'_>> {
        let mut p = Parser {
            text,
            b: text.as_bytes(),
            pos: 0,
            members: Vec::new(),
            items: Vec::new(),
            decoded: String::new(),
        };
        let v = p.value(0)?;
        p.ws();
        (p.pos == p.b.len()).then_some(v)
    }

    struct Parser<'a> {
        text: &'a str,
        b: &'a [u8],
        pos: usize,
        /// Scratch stacks: each open object or array owns the tail it pushed.
        members: Vec<(Cow<'a, str>, Json<'a>)>,
        items: Vec<Json<'a>>,
        /// Scratch for decoding a string with escapes, copied out at its exact size.
        decoded: String,
    }

    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;

    /// The bytes of `x` (little-endian) that are `"`, `\` or a control character (< 0x20),
    /// as their high bits. The lowest set bit is exactly the first such byte: the classic
    /// zero-byte tests have no false negatives, and false positives only above a true one.
    fn special(x: u64) -> u64 {
        let q = x ^ (ONES * u64::from(b'"'));
        let bs = x ^ (ONES * u64::from(b'\\'));
        let quote = q.wrapping_sub(ONES) & !q;
        let backslash = bs.wrapping_sub(ONES) & !bs;
        let control = x.wrapping_sub(ONES * 0x20) & !x;
        (quote | backslash | control) & HIGH
    }

    impl<'a> Parser<'a> {
        fn ws(&mut self) {
            while let Some(b' ' | b'\n' | b'\r' | b'\t') = self.b.get(self.pos) {
                self.pos += 1;
            }
        }

        fn peek(&self) -> Option<u8> {
            self.b.get(self.pos).copied()
        }

        fn value(&mut self, depth: usize) -> Option<Json<'a>> {
            self.ws();
            match self.peek()? {
                b'{' => self.object(depth + 1),
                b'[' => self.array(depth + 1),
                b'"' => self.string().map(Json::String),
                b't' => self.literal(b"true", Json::Bool(true)),
                b'f' => self.literal(b"false", Json::Bool(false)),
                b'n' => self.literal(b"null", Json::Null),
                b'-' | b'0'..=b'9' => self.number(),
                _ => None,
            }
        }

        fn literal(&mut self, word: &[u8], v: Json<'a>) -> Option<Json<'a>> {
            if self.b[self.pos..].starts_with(word) {
                self.pos += word.len();
                Some(v)
            } else {
                None
            }
        }

        /// The JSON number grammar; the span itself is converted by serde_json, so the
        /// value (integer or float, range errors) is exactly serde_json's.
        fn number(&mut self) -> Option<Json<'a>> {
            let start = self.pos;
            let digits = |p: &mut Self| {
                let s = p.pos;
                while p.peek().is_some_and(|c| c.is_ascii_digit()) {
                    p.pos += 1;
                }
                p.pos > s
            };
            if self.peek() == Some(b'-') {
                self.pos += 1;
            }
            match self.peek()? {
                b'0' => self.pos += 1,
                b'1'..=b'9' => {
                    digits(self);
                }
                _ => return None,
            }
            if self.peek() == Some(b'.') {
                self.pos += 1;
                if !digits(self) {
                    return None;
                }
            }
            if let Some(b'e' | b'E') = self.peek() {
                self.pos += 1;
                if let Some(b'+' | b'-') = self.peek() {
                    self.pos += 1;
                }
                if !digits(self) {
                    return None;
                }
            }
            serde_json::from_str::<serde_json::Number>(&self.text[start..self.pos])
                .ok()
                .map(Json::Number)
        }

        /// A string at `"`: borrowed when it has no escape, owned otherwise. Inlined into
        /// its callers, so the common borrowed case returns in registers.
        #[inline(always)]
        fn string(&mut self) -> Option<Cow<'a, str>> {
            self.pos += 1;
            let start = self.pos;
            let i = self.scan(start);
            match *self.b.get(i)? {
                b'"' => {
                    self.pos = i + 1;
                    Some(Cow::Borrowed(&self.text[start..i]))
                }
                b'\\' => self.escaped(start, i),
                _ => None, // a control character: serde_json's error
            }
        }

        /// The rest of a string from its first escape at `i` (kept out of line so that
        /// `string` stays small enough to inline).
        #[inline(never)]
        fn escaped(&mut self, start: usize, mut i: usize) -> Option<Cow<'a, str>> {
            let mut out = std::mem::take(&mut self.decoded);
            out.clear();
            let mut copied = start;
            loop {
                match *self.b.get(i)? {
                    b'"' => {
                        out.push_str(&self.text[copied..i]);
                        self.pos = i + 1;
                        let owned = out.as_str().to_owned();
                        self.decoded = out;
                        return Some(Cow::Owned(owned));
                    }
                    b'\\' => {
                        out.push_str(&self.text[copied..i]);
                        let c = match *self.b.get(i + 1)? {
                            b'"' => '"',
                            b'\\' => '\\',
                            b'/' => '/',
                            b'b' => '\u{8}',
                            b'f' => '\u{c}',
                            b'n' => '\n',
                            b'r' => '\r',
                            b't' => '\t',
                            b'u' => {
                                let hex = self.text.get(i + 2..i + 6)?;
                                if !hex.bytes().all(|h| h.is_ascii_hexdigit()) {
                                    return None;
                                }
                                // Surrogates (pairs or lone) are left to serde_json.
                                char::from_u32(u32::from_str_radix(hex, 16).ok()?)?
                            }
                            _ => return None,
                        };
                        out.push(c);
                        i += if self.b[i + 1] == b'u' { 6 } else { 2 };
                        copied = i;
                        i = self.scan(i);
                    }
                    _ => return None,
                }
            }
        }

        /// The index of the first `"`, `\` or control byte at or after `i` (or the end).
        fn scan(&self, mut i: usize) -> usize {
            let b = self.b;
            for chunk in b.get(i..).unwrap_or_default().chunks_exact(8) {
                let x = u64::from_le_bytes(chunk.try_into().unwrap_or([0; 8]));
                let m = special(x);
                if m != 0 {
                    return i + (m.trailing_zeros() / 8) as usize;
                }
                i += 8;
            }
            while let Some(&c) = b.get(i) {
                if c == b'"' || c == b'\\' || c < 0x20 {
                    return i;
                }
                i += 1;
            }
            i
        }

        fn array(&mut self, depth: usize) -> Option<Json<'a>> {
            if depth > MAX_DEPTH {
                return None;
            }
            self.pos += 1;
            self.ws();
            let start = self.items.len();
            if self.peek()? == b']' {
                self.pos += 1;
                return Some(Json::Array(Vec::new()));
            }
            loop {
                self.ws();
                let v = if self.peek()? == b'"' {
                    Json::String(self.string()?)
                } else {
                    self.value(depth)?
                };
                self.items.push(v);
                self.ws();
                match self.peek()? {
                    b',' => self.pos += 1,
                    b']' => {
                        self.pos += 1;
                        return Some(Json::Array(self.items.drain(start..).collect()));
                    }
                    _ => return None,
                }
            }
        }

        fn object(&mut self, depth: usize) -> Option<Json<'a>> {
            if depth > MAX_DEPTH {
                return None;
            }
            self.pos += 1;
            self.ws();
            let start = self.members.len();
            if self.peek()? == b'}' {
                self.pos += 1;
                return Some(Json::Object(Object::new()));
            }
            // Name -> index, built once the object outgrows a linear search.
            let mut index: Option<FastMap<Cow<'a, str>, usize>> = None;
            loop {
                if self.peek()? != b'"' {
                    return None;
                }
                let name = self.string()?;
                self.ws();
                if self.peek()? != b':' {
                    return None;
                }
                self.pos += 1;
                self.ws();
                let v = if self.peek()? == b'"' {
                    Json::String(self.string()?)
                } else {
                    self.value(depth)?
                };
                let existing = match &index {
                    Some(ix) => ix.get(&name).copied(),
                    None => self.members[start..].iter().position(|(k, _)| *k == name),
                };
                match existing {
                    // The first position, the last value.
                    Some(at) => self.members[start + at].1 = v,
                    None => {
                        if let Some(ix) = &mut index {
                            ix.insert(name.clone(), self.members.len() - start);
                        }
                        self.members.push((name, v));
                        let n = self.members.len() - start;
                        if index.is_none() && n > LINEAR_LIMIT {
                            index = Some(
                                self.members[start..]
                                    .iter()
                                    .enumerate()
                                    .map(|(i, (k, _))| (k.clone(), i))
                                    .collect(),
                            );
                        }
                    }
                }
                self.ws();
                match self.peek()? {
                    b',' => {
                        self.pos += 1;
                        self.ws();
                    }
                    b'}' => {
                        self.pos += 1;
                        let members = self.members.drain(start..).collect();
                        return Some(Json::Object(Object { members }));
                    }
                    _ => return None,
                }
            }
        }
    }
}

impl<'de> Deserialize<'de> for Json<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(JsonVisitor)
    }
}

struct JsonVisitor;

impl<'de> Visitor<'de> for JsonVisitor {
    type Value = Json<'de>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_unit<E>(self) -> Result<Self::Value, E> {
        Ok(Json::Null)
    }
    fn visit_none<E>(self) -> Result<Self::Value, E> {
        Ok(Json::Null)
    }
    fn visit_bool<E>(self, b: bool) -> Result<Self::Value, E> {
        Ok(Json::Bool(b))
    }
    fn visit_i64<E>(self, n: i64) -> Result<Self::Value, E> {
        Ok(Json::Number(n.into()))
    }
    fn visit_u64<E>(self, n: u64) -> Result<Self::Value, E> {
        Ok(Json::Number(n.into()))
    }
    fn visit_f64<E: de::Error>(self, n: f64) -> Result<Self::Value, E> {
        serde_json::Number::from_f64(n)
            .map(Json::Number)
            .ok_or_else(|| E::custom("number out of range"))
    }
    fn visit_borrowed_str<E>(self, s: &'de str) -> Result<Self::Value, E> {
        Ok(Json::String(Cow::Borrowed(s)))
    }
    fn visit_str<E>(self, s: &str) -> Result<Self::Value, E> {
        Ok(Json::String(Cow::Owned(s.to_owned())))
    }
    fn visit_string<E>(self, s: String) -> Result<Self::Value, E> {
        Ok(Json::String(Cow::Owned(s)))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(4096));
        while let Some(v) = seq.next_element()? {
            items.push(v);
        }
        Ok(Json::Array(items))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut members: Vec<(Cow<'de, str>, Json<'de>)> = Vec::new();
        let mut index: Option<FastMap<String, usize>> = None;
        while let Some(Key(name)) = map.next_key()? {
            let value: Json<'de> = map.next_value()?;
            let existing = match &index {
                Some(ix) => ix.get(name.as_ref()).copied(),
                None => members.iter().position(|(k, _)| *k == name),
            };
            match existing {
                Some(at) => members[at].1 = value,
                None => {
                    if let Some(ix) = &mut index {
                        ix.insert(name.to_string(), members.len());
                    }
                    members.push((name, value));
                    if index.is_none() && members.len() > LINEAR_LIMIT {
                        index = Some(
                            members
                                .iter()
                                .enumerate()
                                .map(|(i, (k, _))| (k.to_string(), i))
                                .collect(),
                        );
                    }
                }
            }
        }
        Ok(Json::Object(Object { members }))
    }
}

/// A member name, borrowed when it has no escapes.
struct Key<'de>(Cow<'de, str>);

impl<'de> Deserialize<'de> for Key<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct KeyVisitor;
        impl<'de> Visitor<'de> for KeyVisitor {
            type Value = Key<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a member name")
            }
            fn visit_borrowed_str<E>(self, s: &'de str) -> Result<Self::Value, E> {
                Ok(Key(Cow::Borrowed(s)))
            }
            fn visit_str<E>(self, s: &str) -> Result<Self::Value, E> {
                Ok(Key(Cow::Owned(s.to_owned())))
            }
            fn visit_string<E>(self, s: String) -> Result<Self::Value, E> {
                Ok(Key(Cow::Owned(s)))
            }
        }
        d.deserialize_str(KeyVisitor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn members_keep_document_order_without_integer_keys_first() {
        let v = parse(r#"{"b":1,"10":2,"2":3}"#).unwrap();
        let keys: Vec<_> = v.as_object().unwrap().keys().collect();
        assert_eq!(keys, ["b", "10", "2"]);
    }

    #[test]
    fn duplicate_member_keeps_first_position_and_last_value() {
        let v = parse(r#"{"a":1,"b":2,"a":3}"#).unwrap();
        let o = v.as_object().unwrap();
        assert_eq!(o.keys().collect::<Vec<_>>(), ["a", "b"]);
        assert_eq!(o.get("a").unwrap().to_string(), "3");
    }

    #[test]
    fn duplicate_members_in_large_objects_use_the_index() {
        let mut text = String::from("{");
        for i in 0..100 {
            text.push_str(&format!("\"k{i}\":{i},"));
        }
        text.push_str("\"k5\":\"last\"}");
        let v = parse(&text).unwrap();
        let o = v.as_object().unwrap();
        assert_eq!(o.len(), 100);
        assert_eq!(o.keys().nth(5), Some("k5"));
        assert_eq!(o.get("k5").unwrap().as_str(), Some("last"));
    }

    #[test]
    fn strings_without_escapes_are_borrowed() {
        let text = r#"{"a":"plain","b":"with\nescape"}"#;
        let v = parse(text).unwrap();
        let o = v.as_object().unwrap();
        assert!(matches!(o.get("a"), Some(Json::String(Cow::Borrowed(_)))));
        assert!(matches!(o.get("b"), Some(Json::String(Cow::Owned(_)))));
    }

    #[test]
    fn deep_nesting_is_an_error_not_a_crash() {
        let text = "[".repeat(100_000);
        assert!(parse(&text).is_err());
    }

    /// Same tree, and the same borrowed/owned choice for every string.
    fn same(a: &Json, b: &Json) -> bool {
        let same_str = |x: &Cow<str>, y: &Cow<str>| {
            x == y && matches!(x, Cow::Borrowed(_)) == matches!(y, Cow::Borrowed(_))
        };
        match (a, b) {
            (Json::String(x), Json::String(y)) => same_str(x, y),
            (Json::Array(x), Json::Array(y)) => {
                x.len() == y.len() && x.iter().zip(y).all(|(x, y)| same(x, y))
            }
            (Json::Object(x), Json::Object(y)) => {
                x.members.len() == y.members.len()
                    && x.members
                        .iter()
                        .zip(&y.members)
                        .all(|((kx, vx), (ky, vy))| same_str(kx, ky) && same(vx, vy))
            }
            _ => a == b,
        }
    }

    /// The direct parser either declines (and `parse` asks serde_json) or builds exactly
    /// serde_json's tree; it never accepts what serde_json rejects.
    fn agrees(text: &str) -> bool {
        let slow: Result<Json, _> = serde_json::from_str(text);
        match fast::parse(text) {
            None => false,
            Some(v) => match slow {
                Ok(s) => {
                    assert!(same(&v, &s), "{text:?}: trees differ");
                    true
                }
                Err(e) => panic!("{text:?}: accepted, but serde_json says {e}"),
            },
        }
    }

    #[test]
    fn direct_parser_agrees_with_serde_json() {
        let nested = |n: usize| format!("{}{}", "[".repeat(n), "]".repeat(n));
        let mut big = String::from("{");
        for i in 0..40 {
            big.push_str(&format!("\"k{}\":{i},", i % 30));
        }
        big.push_str("\"k3\":\"last\"}");
        let accepted = [
            r#"{"a":[1,-2.5e3,true,false,null,"x\"y\u00e9\n\/\b\f\r\t\\"],"b":{},"c":[]}"#,
            " \t\n\r{ \"a\" : [ 1 , 2 ] } \n",
            r#"{"a":1,"b":2,"a":3}"#,
            r#"["é","日本",""]"#,
            r#""\u0000\u001f\uFFFF""#,
            "-0",
            "0",
            "1E+2",
            "-1.5e-7",
            "18446744073709551615",
            "18446744073709551616",
            "-9223372036854775808",
            "-9223372036854775809",
            "123456789012345678901234567890",
            r#"{"": ""}"#,
            r#"{"esc\"aped": 1, "esc\"aped": 2}"#,
            big.as_str(),
        ];
        for text in accepted {
            assert!(agrees(text), "{text:?} declined");
        }
        assert!(agrees(&nested(100)));
        let others = [
            "",
            " ",
            "{",
            "}",
            "[",
            "{\"a\":1,}",
            "[1,]",
            "[01]",
            "-",
            "1.",
            "1e",
            "+1",
            ".5",
            "tru",
            "truex",
            "nul",
            "nulll",
            "\"\\x\"",
            r#""\ud800""#,
            r#""\ud83d\ude00""#,
            "\"a\u{1}b\"",
            "\"a\tb\"",
            "{\"a\" 1}",
            "{1:2}",
            "[1 2]",
            "1 2",
            r#""\u00""#,
            r#""\u00zz""#,
            "1e400",
            "-1e400",
            "\u{a0}{}",
            "{\"a\":1}x",
            "//",
            "NaN",
            "Infinity",
            "\"open",
            "[\"a\",",
            "{\"a\"",
            "{\"a\":",
            "\u{feff}{}",
        ];
        for text in others {
            agrees(text);
        }
        for n in [126, 127, 128, 129, 200] {
            agrees(&nested(n));
        }
    }

    #[test]
    fn direct_parser_agrees_on_every_truncation_and_mutation() {
        let doc = r#"{"survey":{"title":"T\n1","entry":"q1","questions":{"q1":{"prompt":"P?","multiSelect":true,"options":[{"key":"a","label":"A","next":["q2",""]},{"key":"b","label":"B\u0041","next":null}],"next":"q2"},"q2":{"prompt":"x","n":[-1.5e3,0,12]}}}}"#;
        assert!(agrees(doc));
        for cut in 0..doc.len() {
            agrees(&doc[..cut]);
        }
        for at in 0..doc.len() {
            for c in [
                "\"", "{", "}", "[", "]", ",", ":", "\\", " ", "0", "a", "-", "e", ".", "\u{1}",
            ] {
                let mut m = String::with_capacity(doc.len() + 4);
                m.push_str(&doc[..at]);
                m.push_str(c);
                m.push_str(&doc[at + 1..]);
                agrees(&m);
            }
        }
    }

    #[test]
    fn display_is_compact_json() {
        let v = parse(r#"{"a":[1,true,null,"x\"y"]}"#).unwrap();
        assert_eq!(v.to_string(), r#"{"a":[1,true,null,"x\"y"]}"#);
    }
}

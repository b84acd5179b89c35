//! Where a problem is: locations formatted only when reported, what a check knows of each
//! question, and the "did you mean" suggestions.

use super::*;

/// A location that the shared checks extend only when they report a problem: a path, or one
/// formatted on demand, so that a valid spec formats no location at all.
pub(super) trait At {
    fn path(&self) -> PathBuf;
    fn field(&self, name: &str) -> PathBuf {
        self.path().field(name)
    }
    fn id(&self, id: &str) -> PathBuf {
        self.path().id(id)
    }
}

impl At for PathBuf {
    fn path(&self) -> PathBuf {
        self.clone()
    }
    fn field(&self, name: &str) -> PathBuf {
        PathBuf::field(self, name)
    }
    fn id(&self, id: &str) -> PathBuf {
        PathBuf::id(self, id)
    }
}

/// Option `i` of a question: `‹qwm›.options[‹i›]` as message prefix and as path.
#[derive(Clone, Copy)]
pub(super) struct OptionAt<'s> {
    pub(super) qwm: &'s str,
    pub(super) qwp: &'s PathBuf,
    pub(super) i: usize,
}

impl fmt::Display for OptionAt<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.options[{}]", self.qwm, self.i)
    }
}

impl At for OptionAt<'_> {
    fn path(&self) -> PathBuf {
        self.qwp.field("options").index(self.i)
    }
}

/// Answer `a` of a quick template: `‹wm›.answers.‹a›` as message prefix and as path.
#[derive(Clone, Copy)]
pub(super) struct AnswerAt<'s> {
    pub(super) wm: &'s str,
    pub(super) wp: &'s PathBuf,
    pub(super) a: &'s str,
}

impl fmt::Display for AnswerAt<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.answers.{}", self.wm, self.a)
    }
}

impl At for AnswerAt<'_> {
    fn path(&self) -> PathBuf {
        self.wp.field("answers").id(self.a)
    }
}

/// What the quick-template and reference stages need to know about a question.
pub(super) struct QInfo<'a> {
    /// Not skipped by Q1 or Q2.
    pub(super) checked: bool,
    pub(super) multi: bool,
    pub(super) allow_custom: bool,
    pub(super) skippable: bool,
    /// Option keys that are non-blank strings.
    pub(super) keys: Vec<&'a str>,
}

impl QInfo<'_> {
    pub(super) fn skipped() -> Self {
        QInfo {
            checked: false,
            multi: false,
            allow_custom: true,
            skippable: true,
            keys: Vec::new(),
        }
    }
}

/// §4.10's comparison form: lower-cased, without `_` and `-`.
pub(super) fn fold(name: &str) -> String {
    name.chars()
        .filter(|c| *c != '_' && *c != '-')
        .flat_map(char::to_lowercase)
        .collect()
}

/// The roster of §4.8: the first 15 ids in id order, then `, …(+n more)`.
pub fn roster<'a>(ids: impl ExactSizeIterator<Item = &'a str>) -> String {
    let total = ids.len();
    let mut out = ids.take(limits::ROSTER).collect::<Vec<_>>().join(", ");
    if total > limits::ROSTER {
        out.push_str(&format!(", …(+{} more)", total - limits::ROSTER));
    }
    out
}

/// The nearest id of §4.8: Levenshtein over Unicode scalar values, at most 2, ties to the
/// earliest id in id order.
pub fn nearest_id<'a>(reference: &str, ids: impl Iterator<Item = &'a str>) -> Option<String> {
    let r: Vec<char> = reference.chars().collect();
    let mut best: Option<(usize, &str)> = None;
    for id in ids.take(limits::NEAREST_SCAN) {
        let c: Vec<char> = id.chars().collect();
        if c.len().abs_diff(r.len()) > limits::NEAREST_DISTANCE {
            continue;
        }
        let d = levenshtein(&r, &c);
        if d <= limits::NEAREST_DISTANCE && best.is_none_or(|(bd, _)| d < bd) {
            best = Some((d, id));
        }
    }
    best.map(|(_, id)| id.to_string())
}

pub(super) fn levenshtein(a: &[char], b: &[char]) -> usize {
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    let mut cur = vec![0; b.len() + 1];
    for (i, ca) in a.iter().enumerate() {
        cur[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let cost = usize::from(ca != cb);
            cur[j + 1] = (prev[j] + cost).min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    prev[b.len()]
}

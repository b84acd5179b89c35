//! Validation of the `batch_review` arguments (`review.md` §3) and their normalisation
//! (§2.5, §2.6).
//!
//! Every problem is reported, in document order — top-level fields first (in the order of the
//! §2.1 table, then unknown fields), then each item (fields in the order of the §2.2 and §2.3
//! tables, then unknown fields) — up to [`MAX_PROBLEMS`]; one more ends the list with
//! `too_many_errors`. Two checks come first and, when they fail, are the only problem: the
//! size of the serialised arguments (`too_large`) and the item count (`too_many_items`).
//!
//! # Rules chosen where `review.md` is silent
//! - **`null` means absent** on every member (as in `survey.md` §1.3).
//! - **Blank optional text** (`group`, `header`, `detail`, `op`, `expect`, `boolDesc`) is dropped
//!   like an absent member; a blank `title`, `label` or option text is `empty`.
//! - **Integral numbers** written with a fraction (`3.0`) count as integers.
//! - An item whose `type` is invalid gets no `field_not_for_type` problems: its type-specific
//!   fields are not checked at all.

use std::fmt::Write as _;

use crate::hash::FastMap;
use crate::json::{Json, Object};
use crate::problem::{PathBuf, Problem, exceeds};
use crate::survey::validate::nearest_id;

use super::model::*;

/// The caps that come from configuration.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// `maxItems` of an interactive review (1–500).
    pub max_items: usize,
    /// `maxBodyBytes`: the largest serialised arguments.
    pub max_body_bytes: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_items: DEFAULT_MAX_ITEMS,
            max_body_bytes: 64 * 1024 * 1024,
        }
    }
}

/// Top-level fields, in the order of the §2.1 table.
pub const TOP_FIELDS: [&str; 8] = [
    "title",
    "items",
    "lang",
    "persist",
    "offline",
    "timeout_s",
    "deadline",
    "approvals",
];
/// Item fields, in the order of the §2.2 and §2.3 tables.
pub const ITEM_FIELDS: [&str; 14] = [
    "id",
    "type",
    "title",
    "label",
    "group",
    "header",
    "detail",
    "op",
    "expect",
    "boolDesc",
    "options",
    "multiSelect",
    "min",
    "max",
];
/// Option fields.
pub const OPTION_FIELDS: [&str; 2] = ["v", "t"];

/// The types a type-specific field belongs to (`None` for the common fields).
fn field_types(name: &str) -> Option<ItemType> {
    match name {
        "op" | "expect" => Some(ItemType::Confirm),
        "boolDesc" => Some(ItemType::Bool),
        "options" | "multiSelect" => Some(ItemType::Choice),
        "min" | "max" => Some(ItemType::Scale),
        _ => None,
    }
}

/// Validates and normalises `batch_review` arguments. `persist` gets the syntax checks only.
pub fn validate(args: &Json, limits: &Limits) -> Result<ReviewSpec, Vec<Problem>> {
    validate_with(args, limits, &mut |_| None)
}

/// Like [`validate`], with the caller's check of a syntactically valid `persist` path (the
/// workspace and confinement checks of §7.1, which need the file system). Its problem is
/// reported in `persist`'s place.
pub fn validate_with(
    args: &Json,
    limits: &Limits,
    persist_check: &mut dyn FnMut(&str) -> Option<Problem>,
) -> Result<ReviewSpec, Vec<Problem>> {
    let Some(root) = args.as_object() else {
        return Err(vec![Problem::new(
            "",
            "wrong_type",
            format!(
                "the batch_review arguments must be an object {{title, items}} (got {})",
                args.kind()
            ),
        )]);
    };
    let offline = root.get_present("offline").and_then(Json::as_bool) == Some(true);
    if let Some(problem) = too_large(args, root, limits, offline) {
        return Err(vec![problem]);
    }
    let mut v = Validator::default();
    let title = v.text(
        root,
        &PathBuf::root(),
        "title",
        MAX_TITLE,
        Shape::Single,
        true,
    );
    let items = items_field(&mut v, root);
    let lang = lang_field(&mut v, root);
    let persist = persist_field(&mut v, root, persist_check);
    offline_and_timeout(&mut v, root);
    v.unknown_fields(root, &PathBuf::root(), &TOP_FIELDS);

    let mut drafts: Vec<(Option<String>, ReviewItem)> = Vec::new();
    if let Some(items) = items {
        let mut seen: FastMap<String, usize> = FastMap::default();
        let at = PathBuf::root().field("items");
        for (i, item) in items.iter().enumerate() {
            if let Some(d) = v.item(&at.index(i), i, item, &mut seen) {
                drafts.push(d);
            }
        }
    }

    if !v.problems.is_empty() {
        return Err(v.finish());
    }
    let (Some(title), Some(_)) = (title, items) else {
        // Unreachable: a missing title or items is a problem. Never panic.
        return Err(vec![Problem::new(
            "",
            "required",
            "title and items are required",
        )]);
    };
    let items = assign_ids(drafts);
    let lang = lang.unwrap_or_else(|| infer_lang(&title, &items));
    Ok(ReviewSpec {
        title,
        lang,
        offline,
        persist,
        items,
    })
}

/// The review's size against `maxBodyBytes`, and its item count against `maxItems` (or the
/// offline limit): the problem that stops validation before anything else, if any.
fn too_large(args: &Json, root: &Object, limits: &Limits, offline: bool) -> Option<Problem> {
    let size = serialised_len(args);
    if size > limits.max_body_bytes {
        return Some(Problem::new(
            "",
            "too_large",
            format!(
                "the review is {size} bytes; maxBodyBytes is {}",
                limits.max_body_bytes
            ),
        ));
    }
    if let Some(Json::Array(items)) = root.get_present("items") {
        let n = items.len();
        if offline && n > OFFLINE_MAX_ITEMS {
            return Some(Problem::new(
                "items",
                "too_many_items",
                format!(
                    "items has {n} entries; an offline review holds at most {OFFLINE_MAX_ITEMS}. Split it"
                ),
            ));
        }
        let max = limits.max_items;
        if !offline && n > max {
            return Some(Problem::new(
                "items",
                "too_many_items",
                format!(
                    "items has {n} entries; maxItems is {max}. Nothing was shown. Split the review into batches of at most {max} items (sort related items into groups first), or pass offline: true to have it reviewed as a spreadsheet"
                ),
            ));
        }
    }
    None
}

/// `items`: a non-empty array.
fn items_field<'a, 'j>(v: &mut Validator, root: &'a Object<'j>) -> Option<&'a Vec<Json<'j>>> {
    match root.get_present("items") {
        None => {
            v.push("items", "required", "items is required".into());
            None
        }
        Some(Json::Array(a)) if a.is_empty() => {
            v.push(
                "items",
                "empty",
                "items must contain at least one item".into(),
            );
            None
        }
        Some(Json::Array(a)) => Some(a),
        Some(other) => {
            v.push(
                "items",
                "wrong_type",
                format!("items must be an array (got {})", other.kind()),
            );
            None
        }
    }
}

/// The optional `lang`: `en` or `zh-CN`.
fn lang_field(v: &mut Validator, root: &Object) -> Option<Lang> {
    match root.get_present("lang") {
        None => None,
        Some(Json::String(s)) => match Lang::parse_code(s.trim()) {
            Some(l) => Some(l),
            None => {
                v.push(
                    "lang",
                    "invalid_lang",
                    format!("lang must be \"en\" or \"zh-CN\" (got {})", quote(s)),
                );
                None
            }
        },
        Some(other) => {
            v.push(
                "lang",
                "wrong_type",
                format!("lang must be a string (got {})", other.kind()),
            );
            None
        }
    }
}

/// The optional `persist` path: its syntax here, the rest by `persist_check`.
fn persist_field(
    v: &mut Validator,
    root: &Object,
    persist_check: &mut dyn FnMut(&str) -> Option<Problem>,
) -> Option<String> {
    match root.get_present("persist") {
        None => None,
        Some(Json::String(s)) => {
            let p = s.trim();
            let reason = if p.is_empty() {
                Some("must not be empty".to_string())
            } else if exceeds(p, MAX_PERSIST) {
                Some(format!(
                    "is {} characters; the limit is {MAX_PERSIST}",
                    p.chars().count()
                ))
            } else if p.contains('\0') {
                Some("contains a NUL character".to_string())
            } else if p.ends_with(['/', '\\']) {
                Some(format!("ends in a path separator: {p}"))
            } else {
                None
            };
            match reason {
                Some(r) => {
                    v.push("persist", "persist_invalid", format!("persist {r}"));
                    None
                }
                None => match persist_check(p) {
                    Some(problem) => {
                        v.problem(problem);
                        None
                    }
                    None => Some(p.to_string()),
                },
            }
        }
        Some(other) => {
            v.push(
                "persist",
                "wrong_type",
                format!("persist must be a string (got {})", other.kind()),
            );
            None
        }
    }
}

/// The optional `offline` (a boolean) and `timeout_s` (seconds ≥ 0).
fn offline_and_timeout(v: &mut Validator, root: &Object) {
    if let Some(o) = root.get_present("offline")
        && o.as_bool().is_none()
    {
        v.push(
            "offline",
            "wrong_type",
            format!("offline must be a boolean (got {})", o.kind()),
        );
    }
    if let Some(t) = root.get_present("timeout_s") {
        match t {
            Json::Number(n) => {
                if !n.as_f64().is_some_and(|f| f.is_finite() && f >= 0.0) {
                    v.push(
                        "timeout_s",
                        "out_of_range",
                        format!("timeout_s must be a number of seconds ≥ 0 (got {n})"),
                    );
                }
            }
            other => v.push(
                "timeout_s",
                "wrong_type",
                format!(
                    "timeout_s must be a number of seconds (got {})",
                    other.kind()
                ),
            ),
        }
    }
}

/// §2.5: items without an id receive, in item order, the smallest positive integer that no
/// explicit id (and no earlier assignment) uses.
fn assign_ids(drafts: Vec<(Option<String>, ReviewItem)>) -> Vec<ReviewItem> {
    let used: crate::hash::FastSet<String> =
        drafts.iter().filter_map(|(id, _)| id.clone()).collect();
    let mut next: u64 = 1;
    drafts
        .into_iter()
        .map(|(id, mut item)| {
            item.id = match id {
                Some(id) => id,
                None => {
                    while used.contains(&next.to_string()) {
                        next += 1;
                    }
                    let id = next.to_string();
                    next += 1;
                    id
                }
            };
            item
        })
        .collect()
}

/// §2.6: `zh-CN` when the title contains a CJK character or, failing that, at least half of
/// the headings do; otherwise `en`.
pub fn infer_lang(title: &str, items: &[ReviewItem]) -> Lang {
    if has_cjk(title) {
        return Lang::Zh;
    }
    let cjk = items.iter().filter(|i| has_cjk(&i.title)).count();
    if !items.is_empty() && cjk * 2 >= items.len() {
        Lang::Zh
    } else {
        Lang::En
    }
}

/// Han ideographs, kana, Hangul, CJK punctuation or full-width forms.
pub fn has_cjk(s: &str) -> bool {
    s.chars().any(|c| {
        matches!(c as u32,
            0x1100..=0x11FF
            | 0x2E80..=0x2FDF
            | 0x3000..=0x303F
            | 0x3040..=0x30FF
            | 0x3130..=0x318F
            | 0x31F0..=0x31FF
            | 0x3400..=0x4DBF
            | 0x4E00..=0x9FFF
            | 0xAC00..=0xD7AF
            | 0xF900..=0xFAFF
            | 0xFF00..=0xFFEF
            | 0x20000..=0x2FA1F)
    })
}

fn serialised_len(v: &Json) -> usize {
    struct Count(usize);
    impl std::fmt::Write for Count {
        fn write_str(&mut self, s: &str) -> std::fmt::Result {
            self.0 += s.len();
            Ok(())
        }
    }
    let mut c = Count(0);
    let _ = write!(c, "{v}");
    c.0
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Shape {
    /// Line breaks and tabs become one space.
    Single,
    /// Line breaks kept, normalised to LF.
    Multi,
}

/// Trims, then applies the shape of §2.5.
pub fn normalise(s: &str, shape_single: bool) -> String {
    let t = s.trim();
    if shape_single {
        let mut out = String::with_capacity(t.len());
        let mut in_run = false;
        for c in t.chars() {
            if matches!(c, '\n' | '\r' | '\t') {
                if !in_run {
                    out.push(' ');
                }
                in_run = true;
            } else {
                out.push(c);
                in_run = false;
            }
        }
        out
    } else {
        t.replace("\r\n", "\n").replace('\r', "\n")
    }
}

/// `"text"` as sent, cut to 80 characters with `…`.
pub fn quote(s: &str) -> String {
    crate::problem::quote(s, 80)
}

/// A value for a message: a quoted string, a number (up to 40 characters), or the kind of
/// anything else.
pub fn describe(v: &Json) -> String {
    crate::problem::describe(v, 80, 40, "")
}

/// An integral JSON number as i128 (`3.0` counts), or `None`.
fn integral(n: &serde_json::Number) -> Option<i128> {
    if let Some(i) = n.as_i64() {
        return Some(i128::from(i));
    }
    if let Some(u) = n.as_u64() {
        return Some(i128::from(u));
    }
    let f = n.as_f64()?;
    (f.is_finite() && f.fract() == 0.0 && f.abs() < 1e30).then_some(f as i128)
}

fn suggestion(name: &str, known: &[&'static str]) -> Option<String> {
    let lower = name.to_lowercase();
    if let Some(k) = known.iter().find(|k| k.to_lowercase() == lower) {
        return Some((*k).to_string());
    }
    nearest_id(name, known.iter().copied())
}

/// An item's `type` (confirm when absent): (the type, whether it was given, its problem).
fn item_type(at: &PathBuf, obj: &Object) -> (Option<ItemType>, bool, Option<Problem>) {
    match obj.get_present("type") {
        None => (Some(ItemType::Confirm), false, None),
        Some(Json::String(s)) => match ItemType::parse(s.trim()) {
            Some(t) => (Some(t), true, None),
            None => {
                let f = at.field("type");
                (
                    None,
                    true,
                    Some(Problem::new(
                        f.as_str(),
                        "unknown_type",
                        format!(
                            "{f} must be one of confirm, bool, choice, text, scale (got {})",
                            quote(s)
                        ),
                    )),
                )
            }
        },
        Some(other) => {
            let f = at.field("type");
            (
                None,
                true,
                Some(Problem::new(
                    f.as_str(),
                    "wrong_type",
                    format!("{f} must be a string (got {})", other.kind()),
                )),
            )
        }
    }
}

/// An item of `kind` with nothing filled in yet.
fn blank_item(kind: ItemType) -> ReviewItem {
    ReviewItem {
        id: String::new(),
        kind,
        title: String::new(),
        group: None,
        header: None,
        detail: None,
        op: None,
        expect: None,
        bool_desc: None,
        options: Vec::new(),
        multi_select: None,
        min: None,
        max: None,
    }
}

#[derive(Default)]
struct Validator {
    problems: Vec<Problem>,
    overflow: bool,
}

impl Validator {
    fn push(&mut self, path: impl Into<String>, code: &'static str, message: String) {
        self.problem(Problem::new(path, code, message));
    }

    fn problem(&mut self, p: Problem) {
        if self.problems.len() < MAX_PROBLEMS {
            self.problems.push(p);
        } else {
            self.overflow = true;
        }
    }

    fn finish(mut self) -> Vec<Problem> {
        if self.overflow {
            self.problems.push(Problem::new(
                "",
                "too_many_errors",
                "more than 100 problems; fix these and call again",
            ));
        }
        self.problems
    }

    fn unknown_fields(&mut self, obj: &Object, at: &PathBuf, known: &[&'static str]) {
        for name in obj.keys() {
            if known.contains(&name) {
                continue;
            }
            let f = at.field(name);
            let mut msg = format!("{f} is not a batch_review field");
            if let Some(s) = suggestion(name, known) {
                let _ = write!(msg, " (did you mean \"{s}\"?)");
            }
            self.push(f.as_str(), "unknown_field", msg);
        }
    }

    /// A string field: `Some(normalised)` when present, a string, non-blank and within
    /// `max`. A blank optional field is `None` without a problem; a blank required one
    /// (`required` = must be non-empty when present) is `empty`. `required` here never
    /// reports absence: callers decide that.
    fn text(
        &mut self,
        obj: &Object,
        at: &PathBuf,
        name: &str,
        max: usize,
        shape: Shape,
        must: bool,
    ) -> Option<String> {
        let f = at.field(name);
        match obj.get_present(name) {
            None => {
                if must && at.as_str().is_empty() {
                    self.push(f.as_str(), "required", format!("{f} is required"));
                }
                None
            }
            Some(Json::String(s)) => {
                let n = normalise(s, shape == Shape::Single);
                if n.is_empty() {
                    if must {
                        self.push(f.as_str(), "empty", format!("{f} must not be empty"));
                    }
                    None
                } else if exceeds(&n, max) {
                    self.push(
                        f.as_str(),
                        "too_long",
                        format!(
                            "{f} is {} characters; the limit is {max}",
                            n.chars().count()
                        ),
                    );
                    None
                } else {
                    Some(n)
                }
            }
            Some(other) => {
                self.push(
                    f.as_str(),
                    "wrong_type",
                    format!("{f} must be a string (got {})", other.kind()),
                );
                None
            }
        }
    }

    /// One item; `None` when it has a problem of its own.
    fn item(
        &mut self,
        at: &PathBuf,
        i: usize,
        item: &Json,
        seen: &mut FastMap<String, usize>,
    ) -> Option<(Option<String>, ReviewItem)> {
        let Some(obj) = item.as_object() else {
            self.push(
                at.as_str(),
                "wrong_type",
                format!("{at} must be an object (got {})", item.kind()),
            );
            return None;
        };
        let before = self.problems.len() + usize::from(self.overflow);

        // The type decides which fields are allowed; its own problem is reported in order.
        let (kind, type_given, type_problem) = item_type(at, obj);

        let mut out = blank_item(kind.unwrap_or(ItemType::Confirm));
        let mut id: Option<String> = None;
        let mut title = None;
        let mut label = None;
        let mut min_ok = true;

        for name in ITEM_FIELDS {
            // Fields that belong to another type.
            if self.field_not_for_type(at, obj, name, kind, type_given) {
                continue;
            }
            match name {
                "id" => id = self.id(at, i, obj, seen),
                "type" => {
                    if let Some(p) = type_problem.clone() {
                        self.problem(p);
                    }
                }
                "title" => title = self.item_title(at, obj, kind),
                "label" => label = self.item_label(at, obj, title.as_ref()),
                "group" => out.group = self.text(obj, at, name, MAX_GROUP, Shape::Single, false),
                "header" => out.header = self.text(obj, at, name, MAX_HEADER, Shape::Single, false),
                "detail" => out.detail = self.text(obj, at, name, MAX_DETAIL, Shape::Multi, false),
                "op" => out.op = self.text(obj, at, name, MAX_OP, Shape::Multi, false),
                "expect" => out.expect = self.text(obj, at, name, MAX_EXPECT, Shape::Multi, false),
                "boolDesc" => {
                    out.bool_desc = self.text(obj, at, name, MAX_BOOL_DESC, Shape::Single, false)
                }
                "options" if kind == Some(ItemType::Choice) => {
                    out.options = self.options(at, obj);
                }
                "multiSelect" if kind == Some(ItemType::Choice) => {
                    out.multi_select = Some(self.multi_select(at, obj, name));
                }
                "min" if kind == Some(ItemType::Scale) => match self.bound(at, obj, "min") {
                    Ok(v) => out.min = Some(v.unwrap_or(1)),
                    Err(()) => min_ok = false,
                },
                "max" => {
                    if kind == Some(ItemType::Scale)
                        && let Ok(v) = self.bound(at, obj, "max")
                    {
                        let max = v.unwrap_or(5);
                        out.max = Some(max);
                        if min_ok {
                            self.scale_span(at, out.min.unwrap_or(1), max);
                        }
                    }
                }
                _ => {}
            }
        }
        self.unknown_fields(obj, at, &ITEM_FIELDS);

        let after = self.problems.len() + usize::from(self.overflow);
        if after != before || kind.is_none() {
            return None;
        }
        out.title = match (title, label) {
            (Some(t), _) | (None, Some(t)) => t,
            (None, None) => match out.op.take() {
                Some(op) => normalise(&op, true),
                None => return None,
            },
        };
        Some((id, out))
    }

    /// Whether field `name` is to be skipped because it belongs to another type than `kind`
    /// (reported, unless the type itself is bad).
    fn field_not_for_type(
        &mut self,
        at: &PathBuf,
        obj: &Object,
        name: &str,
        kind: Option<ItemType>,
        type_given: bool,
    ) -> bool {
        if let Some(owner) = field_types(name)
            && obj.get_present(name).is_some()
        {
            let Some(k) = kind else { return true };
            if k != owner {
                let f = at.field(name);
                let mut msg = format!(
                    "{f} is not allowed on a {} item ({name} belongs to {}",
                    k.as_str(),
                    owner.as_str()
                );
                if !type_given {
                    msg.push_str("; type was not given, so confirm was assumed");
                }
                msg.push(')');
                self.push(f.as_str(), "field_not_for_type", msg);
                return true;
            }
        }
        false
    }

    /// An item's `title` (required unless it has a label, or is a confirm item with an op).
    fn item_title(&mut self, at: &PathBuf, obj: &Object, kind: Option<ItemType>) -> Option<String> {
        let title = self.text(obj, at, "title", MAX_HEADING, Shape::Single, true);
        let op_heading = kind.is_none_or(|k| k == ItemType::Confirm)
            && obj
                .get_present("op")
                .and_then(Json::as_str)
                .is_some_and(|s| !s.trim().is_empty());
        if obj.get_present("title").is_none() && obj.get_present("label").is_none() && !op_heading {
            let f = at.field("title");
            self.push(
                f.as_str(),
                "required",
                format!("{f} is required: give the item a title (or label; a confirm item may use op instead)"),
            );
        }
        title
    }

    /// An item's `label`, `title`'s alias: with a title, the same text.
    fn item_label(&mut self, at: &PathBuf, obj: &Object, title: Option<&String>) -> Option<String> {
        let label = self.text(obj, at, "label", MAX_HEADING, Shape::Single, true);
        if let (Some(t), Some(l)) = (title, &label)
            && t != l
        {
            let f = at.field("label");
            self.push(
                f.as_str(),
                "heading_conflict",
                format!("{f} has both title and label with different text; give only one"),
            );
        }
        label
    }

    /// A choice item's `multiSelect`: a boolean, false when absent.
    fn multi_select(&mut self, at: &PathBuf, obj: &Object, name: &str) -> bool {
        match obj.get_present(name) {
            None => false,
            Some(Json::Bool(b)) => *b,
            Some(other) => {
                let f = at.field(name);
                self.push(
                    f.as_str(),
                    "wrong_type",
                    format!("{f} must be a boolean (got {})", other.kind()),
                );
                false
            }
        }
    }

    /// A scale's `max` against its `min`: above it, by at most [`MAX_SPAN`] steps.
    fn scale_span(&mut self, at: &PathBuf, min: i64, max: i64) {
        let f = at.field("max");
        if max <= min {
            self.push(
                f.as_str(),
                "min_not_below_max",
                format!("{f} must be greater than min (min {min}, max {max})"),
            );
        } else if max - min > MAX_SPAN {
            self.push(
                f.as_str(),
                "span_too_wide",
                format!("{f}: a scale spans at most 20 steps (min {min}, max {max})"),
            );
        }
    }

    fn id(
        &mut self,
        at: &PathBuf,
        i: usize,
        obj: &Object,
        seen: &mut FastMap<String, usize>,
    ) -> Option<String> {
        let f = at.field("id");
        let v = obj.get_present("id")?;
        let normalised = match v {
            Json::String(s) => {
                let ok = !s.is_empty()
                    && !exceeds(s, MAX_ID)
                    && s.bytes().all(|b| {
                        b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b':' | b'-')
                    });
                ok.then(|| s.to_string())
            }
            Json::Number(n) => integral(n)
                .filter(|x| (0..=i128::from(MAX_INT_ID)).contains(x))
                .map(|x| x.to_string()),
            other => {
                self.push(
                    f.as_str(),
                    "wrong_type",
                    format!(
                        "{f} must be a string or a non-negative integer (got {})",
                        other.kind()
                    ),
                );
                return None;
            }
        };
        let Some(id) = normalised else {
            self.push(
                f.as_str(),
                "invalid_id",
                format!(
                    "{f} must be 1–64 characters from A–Z a–z 0–9 . _ : - or a non-negative integer (got {})",
                    describe(v)
                ),
            );
            return None;
        };
        if let Some(j) = seen.get(&id) {
            self.push(
                f.as_str(),
                "duplicate_id",
                format!("{f} \"{id}\" duplicates items[{j}].id"),
            );
            return None;
        }
        seen.insert(id.clone(), i);
        Some(id)
    }

    /// `min` / `max`: `Ok(None)` when absent, `Err` after a problem.
    fn bound(&mut self, at: &PathBuf, obj: &Object, name: &str) -> Result<Option<i64>, ()> {
        let f = at.field(name);
        match obj.get_present(name) {
            None => Ok(None),
            Some(Json::Number(n)) => match integral(n) {
                None => {
                    self.push(
                        f.as_str(),
                        "not_integer",
                        format!("{f} must be an integer (got {n})"),
                    );
                    Err(())
                }
                Some(x) if !(-i128::from(SCALE_BOUND)..=i128::from(SCALE_BOUND)).contains(&x) => {
                    self.push(
                        f.as_str(),
                        "out_of_range",
                        format!("{f} must be between -{SCALE_BOUND} and {SCALE_BOUND} (got {x})"),
                    );
                    Err(())
                }
                Some(x) => Ok(Some(x as i64)),
            },
            Some(other) => {
                self.push(
                    f.as_str(),
                    "wrong_type",
                    format!("{f} must be an integer (got {})", other.kind()),
                );
                Err(())
            }
        }
    }

    fn options(&mut self, at: &PathBuf, obj: &Object) -> Vec<ReviewOption> {
        let f = at.field("options");
        let items = match obj.get_present("options") {
            None => {
                self.push(
                    f.as_str(),
                    "required",
                    format!("{f} is required on a choice item"),
                );
                return Vec::new();
            }
            Some(Json::Array(a)) => a,
            Some(other) => {
                self.push(
                    f.as_str(),
                    "wrong_type",
                    format!(
                        "{f} must be an array of {{v, t}} objects (got {})",
                        other.kind()
                    ),
                );
                return Vec::new();
            }
        };
        if !(MIN_OPTIONS..=MAX_OPTIONS).contains(&items.len()) {
            self.push(
                f.as_str(),
                "options_count",
                format!("{f} must have 2–20 options (got {})", items.len()),
            );
        }
        let mut out = Vec::new();
        let mut values: FastMap<String, usize> = FastMap::default();
        for (j, o) in items.iter().enumerate() {
            let oat = f.index(j);
            let Some(oo) = o.as_object() else {
                self.push(
                    oat.as_str(),
                    "wrong_type",
                    format!("{oat} must be an object {{v, t}} (got {})", o.kind()),
                );
                continue;
            };
            let vat = oat.field("v");
            let v = match oo.get_present("v") {
                None => {
                    self.push(vat.as_str(), "required", format!("{vat} is required"));
                    None
                }
                Some(Json::Number(n)) => match integral(n) {
                    Some(x) => Some(x.to_string()),
                    None => {
                        self.push(
                            vat.as_str(),
                            "invalid_value",
                            format!("{vat} must be 1–64 characters without control characters, surrounding spaces or any of , ; 、 ， ； (got {n})"),
                        );
                        None
                    }
                },
                Some(Json::String(s)) => {
                    if valid_value(s) {
                        Some(s.to_string())
                    } else {
                        self.push(
                            vat.as_str(),
                            "invalid_value",
                            format!("{vat} must be 1–64 characters without control characters, surrounding spaces or any of , ; 、 ， ； (got {})", quote(s)),
                        );
                        None
                    }
                }
                Some(other) => {
                    self.push(
                        vat.as_str(),
                        "wrong_type",
                        format!(
                            "{vat} must be a string or an integer (got {})",
                            other.kind()
                        ),
                    );
                    None
                }
            };
            let v = v.and_then(|v| match values.get(&v) {
                Some(k) => {
                    self.push(
                        vat.as_str(),
                        "duplicate_value",
                        format!("{vat} \"{v}\" duplicates options[{k}].v"),
                    );
                    None
                }
                None => {
                    values.insert(v.clone(), j);
                    Some(v)
                }
            });
            let t = self.text(oo, &oat, "t", MAX_OPTION_TEXT, Shape::Single, true);
            if t.is_none() && oo.get_present("t").is_none() {
                let tat = oat.field("t");
                self.push(tat.as_str(), "required", format!("{tat} is required"));
            }
            self.unknown_fields(oo, &oat, &OPTION_FIELDS);
            if let (Some(v), Some(t)) = (v, t) {
                out.push(ReviewOption { v, t });
            }
        }
        out
    }
}

/// The option value rule of §2.3.
pub fn valid_value(s: &str) -> bool {
    !s.is_empty()
        && !exceeds(s, MAX_VALUE)
        && s.trim() == s
        && !s.chars().any(|c| c.is_control() || is_separator(c))
}

/// The characters that separate values in verdicts and spreadsheets.
pub fn is_separator(c: char) -> bool {
    matches!(c, ',' | ';' | '、' | '，' | '；')
}

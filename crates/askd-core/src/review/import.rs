//! Filled files back to answers (`review.md` §8.2, §8.3): a CSV sheet or a JSON answers file,
//! validated all or nothing with the rules and codes of §3.4. Paths: `rows[r].verdict` for a
//! CSV (`r` is the spreadsheet row, header = row 1), `items[k].verdict` for JSON.
//!
//! Bounded and linear: items are indexed by id once, so an import costs rows + items whatever
//! the file holds, and a refusal lists at most [`MAX_PROBLEMS`] problems, then one
//! `too_many_errors` entry with the total (as `batch_review` validation caps its list).

use crate::json::{self, Json};
use crate::problem::{PathBuf, Problem};

use super::answers::{ItemAnswer, Seen, check_entry, check_note, parse_verdict, verdict_problem};
use super::export::JSON_FORMAT;
use super::model::{ItemType, MAX_PROBLEMS, ReviewSpec};
use super::validate::quote;

/// Why an import was refused: the problems listed (at most [`MAX_PROBLEMS`], then one
/// `too_many_errors` entry naming the total) and how many the file had in all. Derefs to
/// the listed problems.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refused {
    pub problems: Vec<Problem>,
    /// Every problem found, listed or not.
    pub total: usize,
}

impl std::ops::Deref for Refused {
    type Target = [Problem];
    fn deref(&self) -> &[Problem] {
        &self.problems
    }
}

impl From<Vec<Problem>> for Refused {
    fn from(problems: Vec<Problem>) -> Self {
        let mut c = Collector::default();
        for p in problems {
            c.push(p);
        }
        c.finish()
    }
}

/// Keeps the first [`MAX_PROBLEMS`] problems and counts the rest.
#[derive(Default)]
struct Collector {
    problems: Vec<Problem>,
    total: usize,
}

impl Collector {
    fn push(&mut self, p: Problem) {
        self.total += 1;
        if self.problems.len() < MAX_PROBLEMS {
            self.problems.push(p);
        }
    }

    fn extend(&mut self, ps: impl IntoIterator<Item = Problem>) {
        for p in ps {
            self.push(p);
        }
    }

    fn is_empty(&self) -> bool {
        self.total == 0
    }

    fn finish(mut self) -> Refused {
        if self.total > self.problems.len() {
            self.problems.push(Problem::new(
                "",
                "too_many_errors",
                format!(
                    "the file has {} problems; the first {MAX_PROBLEMS} are listed — fix these and import again",
                    self.total
                ),
            ));
        }
        Refused {
            problems: self.problems,
            total: self.total,
        }
    }
}

/// A validated import: the answers, and the ids of the items the file left out (blank).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Imported {
    pub answers: Vec<ItemAnswer>,
    pub missing: Vec<String>,
}

/// The file formats an import accepts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Csv,
    Json,
}

impl Format {
    pub fn parse(s: &str) -> Option<Format> {
        match s.to_ascii_lowercase().as_str() {
            "csv" => Some(Format::Csv),
            "json" => Some(Format::Json),
            _ => None,
        }
    }
}

/// Validates `content` in `format` against the review `ask_id`.
pub fn import(
    spec: &ReviewSpec,
    ask_id: &str,
    format: Format,
    content: &str,
) -> Result<Imported, Refused> {
    match format {
        Format::Csv => import_csv(spec, content),
        Format::Json => import_json(spec, ask_id, content),
    }
}

fn missing(spec: &ReviewSpec, answers: &[ItemAnswer]) -> Vec<String> {
    let answered: crate::hash::FastSet<&str> = answers.iter().map(|a| a.id.as_str()).collect();
    spec.items
        .iter()
        .filter(|i| !answered.contains(i.id.as_str()))
        .map(|i| i.id.clone())
        .collect()
}

/// Parses RFC 4180 text with `delim`: records of fields, quotes doubled inside quoted fields,
/// records ended by CRLF, LF or CR.
pub fn parse_csv(text: &str, delim: char) -> Vec<Vec<String>> {
    let mut records = Vec::new();
    let mut record: Vec<String> = Vec::new();
    let mut field = String::new();
    let mut chars = text.chars().peekable();
    let mut quoted = false;
    let mut any = false;
    while let Some(c) = chars.next() {
        any = true;
        if quoted {
            if c == '"' {
                if chars.peek() == Some(&'"') {
                    chars.next();
                    field.push('"');
                } else {
                    quoted = false;
                }
            } else {
                field.push(c);
            }
        } else if c == '"' && field.is_empty() {
            quoted = true;
        } else if c == delim {
            record.push(std::mem::take(&mut field));
        } else if c == '\r' || c == '\n' {
            if c == '\r' && chars.peek() == Some(&'\n') {
                chars.next();
            }
            record.push(std::mem::take(&mut field));
            records.push(std::mem::take(&mut record));
            any = false;
        } else {
            field.push(c);
        }
    }
    if any {
        record.push(field);
        records.push(record);
    }
    records
}

/// `,` unless the header row has more `;` than `,` outside quotes.
fn delimiter(text: &str) -> char {
    let (mut commas, mut semis, mut quoted) = (0, 0, false);
    for c in text.chars() {
        match c {
            '"' => quoted = !quoted,
            ',' if !quoted => commas += 1,
            ';' if !quoted => semis += 1,
            '\n' | '\r' if !quoted => break,
            _ => {}
        }
    }
    if semis > commas { ';' } else { ',' }
}

/// Removes the `'` the export put before a cell a spreadsheet could run as a formula
/// (`super::export::formula_like`: `=`, `+`, `-`, `@` and their full-width and small forms,
/// after any leading whitespace; a tab or CR first).
pub fn unguard(cell: &str) -> &str {
    match cell.strip_prefix('\'') {
        Some(rest) if super::export::formula_like(rest) => rest,
        _ => cell,
    }
}

/// A filled CSV sheet (§8.3).
pub fn import_csv(spec: &ReviewSpec, text: &str) -> Result<Imported, Refused> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let delim = delimiter(text);
    let records = parse_csv(text, delim);
    let Some(header) = records.first() else {
        return Err(vec![Problem::new(
            "rows",
            "empty",
            "the sheet is empty: row 1 must name the columns id, verdict and note",
        )]
        .into());
    };
    let col = |name: &str| {
        header
            .iter()
            .position(|h| unguard(h.trim()).trim().eq_ignore_ascii_case(name))
    };
    let mut problems = Vec::new();
    let mut cols = [0usize; 3];
    for (slot, name) in cols.iter_mut().zip(["id", "verdict", "note"]) {
        match col(name) {
            Some(c) => *slot = c,
            None => problems.push(Problem::new(
                "rows[1]",
                "required",
                format!("rows[1] has no \"{name}\" column: row 1 must name the columns id, verdict and note"),
            )),
        }
    }
    if !problems.is_empty() {
        return Err(problems.into());
    }
    let [id_c, verdict_c, note_c] = cols;
    let type_c = col("type");
    let mut problems = Collector::default();
    let mut seen = Seen::new(spec);
    let mut answers = Vec::new();
    for (k, rec) in records.iter().enumerate().skip(1) {
        if rec.iter().all(|c| c.trim().is_empty()) {
            continue;
        }
        let r = k + 1;
        let cell = |c: usize| unguard(rec.get(c).map_or("", String::as_str));
        let id_at = format!("rows[{r}].id");
        let id = cell(id_c).trim();
        if id.is_empty() {
            problems.push(Problem::new(
                &id_at,
                "required",
                format!("{id_at} is empty: every filled row needs its item id"),
            ));
            continue;
        }
        let item = match seen.item(&id_at, id) {
            Ok(i) => i,
            Err(p) => {
                problems.push(p);
                continue;
            }
        };
        let before = problems.total;
        if let Some(tc) = type_c {
            let t = cell(tc).trim();
            if !t.is_empty() && !t.eq_ignore_ascii_case(item.kind.as_str()) {
                let at = format!("rows[{r}].type");
                problems.push(Problem::new(
                    &at,
                    "type_mismatch",
                    format!(
                        "{at} is {} but item \"{}\" is a {} item — is this sheet from another review?",
                        quote(t),
                        item.id,
                        item.kind.as_str()
                    ),
                ));
            }
        }
        let v_at = format!("rows[{r}].verdict");
        let raw = cell(verdict_c);
        let mut answer = ItemAnswer {
            id: item.id.clone(),
            ..Default::default()
        };
        match parse_verdict(item, raw) {
            Ok((v, s)) => {
                answer.verdict = v;
                answer.selected = s;
            }
            Err(e) => problems.push(verdict_problem(item, &v_at, raw, &e)),
        }
        match check_note(&format!("rows[{r}].note"), cell(note_c)) {
            Ok(n) => answer.note = n,
            Err(p) => problems.push(p),
        }
        if problems.total == before {
            answers.push(answer);
        }
    }
    if !problems.is_empty() {
        return Err(problems.finish());
    }
    let missing = missing(spec, &answers);
    Ok(Imported { answers, missing })
}

/// A JSON answers file (§8.1's format with answers filled in).
pub fn import_json(spec: &ReviewSpec, ask_id: &str, text: &str) -> Result<Imported, Refused> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let doc = json::parse(text).map_err(|e| -> Refused {
        vec![Problem::new(
            "",
            "invalid_json",
            format!("the file is not valid JSON: {e}"),
        )]
        .into()
    })?;
    let Some(root) = doc.as_object() else {
        return Err(vec![Problem::new(
            "",
            "wrong_type",
            format!(
                "the file must be an object {{format, version, ask_id, items}} (got {})",
                doc.kind()
            ),
        )]
        .into());
    };
    let mut problems = Collector::default();
    if root.get("format").and_then(Json::as_str) != Some(JSON_FORMAT) {
        problems.push(Problem::new(
            "format",
            "invalid_format",
            format!("format must be \"{JSON_FORMAT}\": export the review with askd review export --format json"),
        ));
    }
    let version_ok = matches!(root.get("version"), Some(Json::Number(n)) if n.as_u64() == Some(1));
    if !version_ok {
        problems.push(Problem::new(
            "version",
            "invalid_format",
            "version must be 1",
        ));
    }
    match root.get("ask_id").and_then(Json::as_str) {
        Some(id) if id == ask_id => {}
        got => problems.push(Problem::new(
            "ask_id",
            "not_this_review",
            format!(
                "ask_id is {} but this review is \"{ask_id}\": the file belongs to another review",
                got.map_or_else(|| "missing".to_string(), quote)
            ),
        )),
    }
    let at = PathBuf::root().field("items");
    let mut answers = Vec::new();
    match root.get_present("items") {
        Some(Json::Array(entries)) => {
            let mut seen = Seen::new(spec);
            let mut one = Vec::new();
            for (k, e) in entries.iter().enumerate() {
                let e_at = at.index(k);
                let Some(obj) = e.as_object() else {
                    problems.push(Problem::new(
                        e_at.as_str(),
                        "wrong_type",
                        format!("{e_at} must be an object (got {})", e.kind()),
                    ));
                    continue;
                };
                if let Some(a) = check_entry(&e_at, obj, &mut seen, false, &mut one) {
                    answers.push(a);
                }
                problems.extend(one.drain(..));
            }
        }
        Some(other) => problems.push(Problem::new(
            "items",
            "wrong_type",
            format!("items must be an array (got {})", other.kind()),
        )),
        None => problems.push(Problem::new("items", "required", "items is required")),
    }
    if !problems.is_empty() {
        return Err(problems.finish());
    }
    // A text item's verdict is always "" (check_entry refuses one); nothing else to fix up.
    debug_assert!({
        let index = spec.index();
        answers.iter().all(|a| {
            index
                .get(a.id.as_str())
                .is_none_or(|i| i.kind != ItemType::Text || a.verdict.is_empty())
        })
    });
    let missing = missing(spec, &answers);
    Ok(Imported { answers, missing })
}

//! Exports of a review (`review.md` §8.1): CSV for spreadsheets, a self-contained offline HTML
//! page, and JSON for tools. Pure functions of the review, its recorded answers (a settled
//! review; `None` for a pending one, whose verdict and note columns stay blank) and, for the
//! page, the `detail` Markdown already rendered to sanitised HTML by the caller.

use serde_json::{Map, Value, json};

use super::fold::FoldedItem;
use super::model::{ItemType, Lang, ReviewItem, ReviewSpec};

/// The `format` member of the JSON export and of an answers file.
pub const JSON_FORMAT: &str = "askd-batch-review";

/// The CSV columns, in order.
pub const CSV_COLUMNS: [&str; 12] = [
    "id", "group", "header", "type", "title", "op", "expect", "boolDesc", "detail", "allowed",
    "verdict", "note",
];

/// What the `verdict` cell of an item accepts, in the review's language.
pub fn allowed_hint(item: &ReviewItem, lang: Lang) -> String {
    let zh = lang.is_zh();
    match item.kind {
        ItemType::Confirm => {
            if zh {
                "pass（通过） | fail（不通过） | pending（待定）".into()
            } else {
                "pass | fail | pending".into()
            }
        }
        ItemType::Bool => {
            if zh {
                "yes（是） | no（否）".into()
            } else {
                "yes | no".into()
            }
        }
        ItemType::Choice => {
            let list = item
                .options
                .iter()
                .map(|o| format!("{} = {}", o.v, o.t))
                .collect::<Vec<_>>()
                .join(" | ");
            let how = match (zh, item.is_multi()) {
                (false, false) => " (one)",
                (false, true) => " (one or more, separated by ,)",
                (true, false) => "（单选）",
                (true, true) => "（可多选，用 , 分隔）",
            };
            format!("{list}{how}")
        }
        ItemType::Scale => {
            let (lo, hi) = item.bounds();
            format!("{lo}–{hi}")
        }
        ItemType::Text => {
            if zh {
                "答案写在 note 列".into()
            } else {
                "write the answer in note".into()
            }
        }
    }
}

/// The characters a spreadsheet starts a formula with: `=`, `+`, `-`, `@`, their full-width
/// forms (`＝` U+FF1D, `＋` U+FF0B, `－` U+FF0D, `＠` U+FF20, which some spreadsheets read as
/// the ASCII ones, e.g. after an East Asian input method) and their small forms (`﹦` U+FE66,
/// `﹢` U+FE62, `﹣` U+FE63, `﹫` U+FE6B).
pub const FORMULA_LEADERS: [char; 12] = [
    '=', '+', '-', '@', '\u{ff1d}', '\u{ff0b}', '\u{ff0d}', '\u{ff20}', '\u{fe66}', '\u{fe62}',
    '\u{fe63}', '\u{fe6b}',
];

/// Whether a spreadsheet could run `s` as a formula: it starts with a tab or a carriage
/// return, or its first character after any leading whitespace (spreadsheets trim it on
/// import) is one of [`FORMULA_LEADERS`]. The import's `unguard` uses the same test, so a
/// guarded cell reads back as it was.
pub fn formula_like(s: &str) -> bool {
    s.starts_with(['\t', '\r']) || s.trim_start().starts_with(FORMULA_LEADERS)
}

/// A cell that a spreadsheet would run as a formula ([`formula_like`]) gets a leading `'`.
fn guard(s: &str) -> String {
    if formula_like(s) {
        format!("'{s}")
    } else {
        s.to_string()
    }
}

fn csv_cell(s: &str) -> String {
    let g = guard(s);
    if g.contains([',', '"', '\r', '\n', ';']) {
        format!("\"{}\"", g.replace('"', "\"\""))
    } else {
        g
    }
}

fn recorded<'a>(answers: Option<&'a [FoldedItem]>, id: &str) -> Option<&'a FoldedItem> {
    answers.and_then(|a| a.iter().find(|f| f.id == id))
}

/// The CSV export: UTF-8 with BOM, CRLF, RFC 4180 quoting, one header row, one row per item.
pub fn csv(spec: &ReviewSpec, answers: Option<&[FoldedItem]>) -> String {
    let mut out = String::from("\u{feff}");
    out.push_str(&CSV_COLUMNS.join(","));
    out.push_str("\r\n");
    for item in &spec.items {
        let rec = recorded(answers, &item.id);
        let cells = [
            item.id.clone(),
            item.group.clone().unwrap_or_default(),
            item.header.clone().unwrap_or_default(),
            item.kind.as_str().to_string(),
            item.title.clone(),
            item.op.clone().unwrap_or_default(),
            item.expect.clone().unwrap_or_default(),
            item.bool_desc.clone().unwrap_or_default(),
            item.detail.clone().unwrap_or_default(),
            allowed_hint(item, spec.lang),
            rec.map(|r| r.verdict.clone()).unwrap_or_default(),
            rec.map(|r| r.note.clone()).unwrap_or_default(),
        ];
        let row: Vec<String> = cells.iter().map(|c| csv_cell(c)).collect();
        out.push_str(&row.join(","));
        out.push_str("\r\n");
    }
    out
}

/// The JSON export: the normalised definition of every item plus `verdict` and `note`
/// (blank for a pending review; the recorded answers, and `"settled": true`, for a settled
/// one).
pub fn json(spec: &ReviewSpec, ask_id: &str, answers: Option<&[FoldedItem]>) -> Value {
    let items: Vec<Value> = spec
        .items
        .iter()
        .map(|item| {
            let mut v = match serde_json::to_value(item) {
                Ok(Value::Object(m)) => m,
                _ => Map::new(),
            };
            let rec = recorded(answers, &item.id);
            v.insert(
                "verdict".into(),
                json!(rec.map(|r| r.verdict.as_str()).unwrap_or("")),
            );
            v.insert(
                "note".into(),
                json!(rec.map(|r| r.note.as_str()).unwrap_or("")),
            );
            Value::Object(v)
        })
        .collect();
    let mut out = Map::new();
    out.insert("format".into(), json!(JSON_FORMAT));
    out.insert("version".into(), json!(1));
    out.insert("ask_id".into(), json!(ask_id));
    out.insert("title".into(), json!(spec.title));
    out.insert("lang".into(), json!(spec.lang.as_str()));
    if answers.is_some() {
        out.insert("settled".into(), json!(true));
    }
    out.insert("items".into(), Value::Array(items));
    Value::Object(out)
}

const PAGE: &str = include_str!("export.html");

use crate::html::escape as html_escape;

/// JSON that is inert inside a `<script type="application/json">` element.
fn script_json(v: &Value) -> String {
    let text = v.to_string();
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '<' => out.push_str("\\u003c"),
            '>' => out.push_str("\\u003e"),
            '&' => out.push_str("\\u0026"),
            '\u{2028}' => out.push_str("\\u2028"),
            '\u{2029}' => out.push_str("\\u2029"),
            c => out.push(c),
        }
    }
    out
}

/// The page's interface texts in the review's language.
fn ui_labels(lang: Lang) -> Value {
    if lang.is_zh() {
        json!({
            "pass": "通过", "fail": "不通过", "pending": "待定", "yes": "是", "no": "否",
            "op": "操作", "expect": "预期", "allPass": "全通过", "allPending": "全待定",
            "progress": "已填 {filled} / {total}", "counts": "通过 {pass} · 不通过 {fail} · 待定 {pending}",
            "unfilledOnly": "只看未填", "download": "下载答案", "copy": "复制答案", "copied": "已复制",
            "addNote": "添加备注", "note": "备注", "answer": "回答", "detail": "详情",
            "hint": "条目较多：先按分组使用“全通过”，再标出例外；也可以导出 CSV 在表格中填写。",
            "blankTitle": "以下条目未填：",
            "blankBody": "未填的条目会作为“未填”交给代理，绝不算通过。",
            "more": "还有 {k} 条", "anyway": "仍然下载", "keep": "继续批阅",
            "failTitle": "{k} 条已标为不通过的条目会变为通过",
            "passAllFailed": "全部通过（包括不通过的）", "passRest": "其余通过，保留不通过", "cancel": "取消",
            "undo": "撤销", "undone": "已撤销", "bulkDone": "已批量修改 {k} 条",
            "offline": "离线批阅：填写完毕后下载答案，再用 askd review import 导入。",
            "settled": "这份批阅已经结束，以下为记录的结论（只读）。",
            "keys": "快捷键：j/k 上下移动 · 1/2/3 选择结论 · ←/→ 切换数值 · x 清除 · n 备注 · Esc 返回 · Ctrl+Enter 下载答案 · Ctrl+Z 撤销批量操作 · ? 帮助",
            "untitled": "（未分组）"
        })
    } else {
        json!({
            "pass": "Pass", "fail": "Fail", "pending": "Pending", "yes": "Yes", "no": "No",
            "op": "Action", "expect": "Expected", "allPass": "All pass", "allPending": "All pending",
            "progress": "{filled} of {total} filled", "counts": "{pass} pass · {fail} fail · {pending} pending",
            "unfilledOnly": "Show unfilled only", "download": "Download answers", "copy": "Copy answers", "copied": "Copied",
            "addNote": "Add note", "note": "Note", "answer": "Answer", "detail": "Details",
            "hint": "A long review: use sections and All pass, then mark the exceptions — or export it to CSV and fill it in a spreadsheet.",
            "blankTitle": "These items are blank:",
            "blankBody": "Blank items are returned to the agent as unfilled, never as a pass.",
            "more": "and {k} more", "anyway": "Download anyway", "keep": "Keep reviewing",
            "failTitle": "{k} items marked Fail would become Pass",
            "passAllFailed": "Pass all, including failed", "passRest": "Pass the rest, keep Fail", "cancel": "Cancel",
            "undo": "Undo", "undone": "Undone", "bulkDone": "Changed {k} items",
            "offline": "Offline review: when you are done, download the answers and import them with askd review import.",
            "settled": "This review has settled; these are its recorded verdicts (read-only).",
            "keys": "Keys: j/k move · 1/2/3 choose a verdict · ←/→ step a value · x clear · n note · Esc back · Ctrl+Enter download answers · Ctrl+Z undo a bulk action · ? help",
            "untitled": "(no section)"
        })
    }
}

/// The self-contained offline page: no network access of any kind, the review embedded as
/// inert data, every piece of agent text inserted as text (the `detail` HTML, rendered and
/// sanitised by the caller, is the one exception). `details` holds the rendered `detail` of
/// each item in item order (`None` when it has none); `virtual_threshold` is the threshold in
/// effect at export time.
pub fn html(
    spec: &ReviewSpec,
    ask_id: &str,
    details: &[Option<String>],
    virtual_threshold: usize,
    answers: Option<&[FoldedItem]>,
) -> String {
    let items: Vec<Value> = spec
        .items
        .iter()
        .enumerate()
        .map(|(k, item)| {
            let mut v = match serde_json::to_value(item) {
                Ok(Value::Object(m)) => m,
                _ => Map::new(),
            };
            v.remove("detail");
            if let Some(Some(h)) = details.get(k) {
                v.insert("detailHtml".into(), json!(h));
            }
            Value::Object(v)
        })
        .collect();
    let recorded: Map<String, Value> = answers
        .unwrap_or_default()
        .iter()
        .map(|f| (f.id.clone(), json!({"verdict": f.verdict, "note": f.note})))
        .collect();
    let data = json!({
        "format": JSON_FORMAT,
        "ask_id": ask_id,
        "title": spec.title,
        "lang": spec.lang.as_str(),
        "virtual": spec.items.len() > virtual_threshold,
        "settled": answers.is_some(),
        "recorded": recorded,
        "items": items,
        "ui": ui_labels(spec.lang),
    });
    fill(
        PAGE,
        &[
            ("{{LANG}}", spec.lang.as_str()),
            ("{{TITLE}}", &html_escape(&spec.title)),
            ("{{DATA}}", &script_json(&data)),
        ],
    )
}

/// Replaces each marker of `template` in one pass: replacement text is never scanned again,
/// so agent text that happens to contain a marker stays as it is.
fn fill(template: &str, marks: &[(&str, &str)]) -> String {
    let mut out = String::with_capacity(template.len());
    let mut rest = template;
    loop {
        let next = marks
            .iter()
            .filter_map(|(m, r)| rest.find(m).map(|at| (at, *m, *r)))
            .min_by_key(|(at, _, _)| *at);
        match next {
            Some((at, m, r)) => {
                out.push_str(&rest[..at]);
                out.push_str(r);
                rest = &rest[at + m.len()..];
            }
            None => {
                out.push_str(rest);
                return out;
            }
        }
    }
}

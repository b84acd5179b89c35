//! From answers to the result contract (`review.md` §4): one entry per item in input order,
//! the summary counts, and `report_text` in the review's language.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

use super::answers::{ItemAnswer, is_filled};
use super::model::{ItemType, Lang, ReviewItem, ReviewSpec, Surface};
use crate::Outcome;

/// One entry of the result's `items` (§4.1).
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
pub struct FoldedItem {
    pub id: String,
    pub title: String,
    #[serde(rename = "type")]
    pub kind: ItemType,
    pub verdict: String,
    pub verdict_label: String,
    pub note: String,
    pub filled: bool,
    /// Choice items only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub selected: Option<Vec<String>>,
}

/// The counts of §4.3.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Summary {
    pub total: usize,
    pub filled: usize,
    pub unfilled: usize,
    pub pass: usize,
    pub fail: usize,
    pub pending: usize,
    pub yes: usize,
    pub no: usize,
}

/// The label the reviewer saw for a canonical verdict.
pub fn verdict_label(item: &ReviewItem, lang: Lang, verdict: &str) -> String {
    if verdict.is_empty() {
        return String::new();
    }
    match item.kind {
        ItemType::Confirm => lang.confirm_label(verdict).to_string(),
        ItemType::Bool => lang.bool_label(verdict).to_string(),
        ItemType::Scale => verdict.to_string(),
        ItemType::Text => String::new(),
        ItemType::Choice => item
            .options
            .iter()
            .filter(|o| verdict.split(',').any(|v| v == o.v))
            .map(|o| o.t.as_str())
            .collect::<Vec<_>>()
            .join(lang.join()),
    }
}

/// One entry per item, in input order; answers for unknown ids are ignored.
pub fn fold(spec: &ReviewSpec, answers: &[ItemAnswer]) -> Vec<FoldedItem> {
    // The first answer of an id counts (answers are validated unique anyway).
    let mut by_id: crate::hash::FastMap<&str, &ItemAnswer> =
        crate::hash::FastMap::with_capacity_and_hasher(answers.len(), Default::default());
    for a in answers {
        by_id.entry(a.id.as_str()).or_insert(a);
    }
    spec.items
        .iter()
        .map(|item| {
            let a = by_id.get(item.id.as_str()).copied();
            let filled = is_filled(item, a);
            let note = a.map(|a| a.note.trim().to_string()).unwrap_or_default();
            let verdict = match (item.kind, a) {
                (ItemType::Text, _) | (_, None) => String::new(),
                (_, Some(a)) => a.verdict.clone(),
            };
            let selected = (item.kind == ItemType::Choice).then(|| {
                if verdict.is_empty() {
                    Vec::new()
                } else {
                    verdict.split(',').map(str::to_string).collect()
                }
            });
            FoldedItem {
                id: item.id.clone(),
                title: item.title.clone(),
                kind: item.kind,
                verdict_label: verdict_label(item, spec.lang, &verdict),
                verdict,
                note,
                filled,
                selected,
            }
        })
        .collect()
}

pub fn summary(items: &[FoldedItem]) -> Summary {
    let mut s = Summary {
        total: items.len(),
        ..Default::default()
    };
    for i in items {
        if !i.filled {
            continue;
        }
        s.filled += 1;
        match (i.kind, i.verdict.as_str()) {
            (ItemType::Confirm, "pass") => s.pass += 1,
            (ItemType::Confirm, "fail") => s.fail += 1,
            (ItemType::Confirm, "pending") => s.pending += 1,
            (ItemType::Bool, "yes") => s.yes += 1,
            (ItemType::Bool, "no") => s.no += 1,
            _ => {}
        }
    }
    s.unfilled = s.total - s.filled;
    s
}

/// The summary of a cancelled review: nothing filled.
pub fn cancelled_summary(spec: &ReviewSpec) -> Summary {
    Summary {
        total: spec.items.len(),
        unfilled: spec.items.len(),
        ..Default::default()
    }
}

/// Keeps every item on one line: line breaks become ` ⏎ `.
fn breaks_marked(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut lines = s.split('\n').map(|l| l.trim_end_matches('\r')).peekable();
    while let Some(l) = lines.next() {
        out.push_str(l);
        if lines.peek().is_some() {
            out.push_str(" ⏎ ");
        }
    }
    out
}

/// The counts line of §4.4.
pub fn counts_line(spec: &ReviewSpec, s: &Summary) -> String {
    let zh = spec.lang.is_zh();
    let mut line = if zh {
        format!(
            "共 {} 条 · 已填 {} 条 · 未填 {} 条",
            s.total, s.filled, s.unfilled
        )
    } else {
        format!(
            "{} items · {} filled · {} unfilled",
            s.total, s.filled, s.unfilled
        )
    };
    if spec.has_type(ItemType::Confirm) {
        line.push_str(&if zh {
            format!(
                " · 通过 {} · 不通过 {} · 待定 {}",
                s.pass, s.fail, s.pending
            )
        } else {
            format!(
                " · {} pass · {} fail · {} pending",
                s.pass, s.fail, s.pending
            )
        });
    }
    if spec.has_type(ItemType::Bool) {
        line.push_str(&if zh {
            format!(" · 是 {} · 否 {}", s.yes, s.no)
        } else {
            format!(" · {} yes · {} no", s.yes, s.no)
        });
    }
    line
}

/// The title line of §4.4.
pub fn title_line(spec: &ReviewSpec) -> String {
    if spec.lang.is_zh() {
        format!("【批阅】{}", spec.title)
    } else {
        format!("Review: {}", spec.title)
    }
}

/// `report_text` of an answered review (§4.4).
pub fn report_text(spec: &ReviewSpec, items: &[FoldedItem], s: &Summary) -> String {
    let zh = spec.lang.is_zh();
    let colon = if zh { "：" } else { ": " };
    let mut out = title_line(spec);
    out.push('\n');
    out.push_str(&counts_line(spec, s));
    let index = spec.index();

    type Pick = fn(&FoldedItem) -> bool;
    let sections: [(&str, &str, Pick); 8] = [
        ("Failed ({n})", "不通过（{n}）", |i| {
            i.kind == ItemType::Confirm && i.filled && i.verdict == "fail"
        }),
        ("Pending ({n})", "待定（{n}）", |i| {
            i.kind == ItemType::Confirm && i.filled && i.verdict == "pending"
        }),
        (
            "Unfilled ({n}) — not a pass, follow up",
            "未填（{n}）：没填不代表通过，需要单独追问",
            |i| !i.filled,
        ),
        ("Passed ({n})", "通过（{n}）", |i| {
            i.kind == ItemType::Confirm && i.filled && i.verdict == "pass"
        }),
        ("Yes / No ({n})", "是 / 否（{n}）", |i| {
            i.kind == ItemType::Bool && i.filled
        }),
        ("Choices ({n})", "选择（{n}）", |i| {
            i.kind == ItemType::Choice && i.filled
        }),
        ("Ratings ({n})", "评分（{n}）", |i| {
            i.kind == ItemType::Scale && i.filled
        }),
        ("Texts ({n})", "文本（{n}）", |i| {
            i.kind == ItemType::Text && i.filled
        }),
    ];
    for (en, cn, pick) in sections {
        let members: Vec<&FoldedItem> = items.iter().filter(|i| pick(i)).collect();
        if members.is_empty() {
            continue;
        }
        let heading = if zh { cn } else { en }.replace("{n}", &members.len().to_string());
        out.push_str("\n\n");
        out.push_str(&heading);
        for i in members {
            out.push_str("\n- [");
            out.push_str(&i.id);
            out.push_str("] ");
            out.push_str(&breaks_marked(&i.title));
            if i.filled {
                match i.kind {
                    ItemType::Bool | ItemType::Choice => {
                        out.push_str(colon);
                        out.push_str(&breaks_marked(&i.verdict_label));
                    }
                    ItemType::Scale => {
                        let (lo, hi) = index
                            .get(i.id.as_str())
                            .map_or((1, 5), |item| item.bounds());
                        if zh {
                            out.push_str(&format!("：{}（{lo}–{hi}）", i.verdict));
                        } else {
                            out.push_str(&format!(": {} ({lo}–{hi})", i.verdict));
                        }
                    }
                    ItemType::Text => {
                        out.push_str(colon);
                        out.push_str(&breaks_marked(&i.note));
                        continue;
                    }
                    ItemType::Confirm => {}
                }
            }
            if !i.note.is_empty() {
                out.push_str(if zh { "｜备注：" } else { " — note: " });
                out.push_str(&breaks_marked(&i.note));
            }
        }
    }
    out
}

/// `report_text` of a cancelled or aborted review.
pub fn cancelled_report(spec: &ReviewSpec) -> String {
    let n = spec.items.len();
    let second = if spec.lang.is_zh() {
        format!("已取消：{n} 条均无结论，需要重新发起。")
    } else {
        format!("Cancelled — no verdicts for any of the {n} items. Ask again.")
    };
    format!("{}\n{second}", title_line(spec))
}

/// The result of an answered review (§4.1), without the persist fields.
pub fn answered_result(
    spec: &ReviewSpec,
    ask_id: &str,
    surface: Surface,
    answers: &[ItemAnswer],
) -> Value {
    let items = fold(spec, answers);
    let s = summary(&items);
    let report = report_text(spec, &items, &s);
    let mut out = Map::new();
    out.insert("ask_id".into(), json!(ask_id));
    out.insert("outcome".into(), json!(Outcome::Answered));
    out.insert("cancelled".into(), json!(false));
    out.insert("surface".into(), json!(surface.as_str()));
    out.insert("items".into(), json!(items));
    out.insert("summary".into(), json!(s));
    out.insert("report_text".into(), json!(report));
    Value::Object(out)
}

/// The result of a cancelled (`cancelled`) or withdrawn (`aborted`) review: no verdicts.
pub fn cancelled_result(spec: &ReviewSpec, ask_id: &str, outcome: &str, surface: Surface) -> Value {
    let mut out = Map::new();
    out.insert("ask_id".into(), json!(ask_id));
    out.insert("outcome".into(), json!(outcome));
    out.insert("cancelled".into(), json!(true));
    out.insert("surface".into(), json!(surface.as_str()));
    out.insert("items".into(), json!([]));
    out.insert("summary".into(), json!(cancelled_summary(spec)));
    out.insert("report_text".into(), json!(cancelled_report(spec)));
    Value::Object(out)
}

/// The instruction of a review's pending handle.
pub const PENDING_INSTRUCTION: &str = "The reviewer has not submitted yet, and nothing is lost: every verdict they enter is saved. Call await_answer with this ask_id to keep waiting. Do not call batch_review again for this batch and do not decide the items yourself.";

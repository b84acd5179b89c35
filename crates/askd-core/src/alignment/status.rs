//! The bounded status an agent reads (`clients.md` §2.8, `alignment.md` §5.3): however long
//! the session, `alignment_status` stays under 8 KB. The most recent settled decisions are
//! listed (oldest of them first, as in the full list), as many as fit a character budget,
//! with the total and a cursor (`before`) that pages to older ones; long texts are cut.
//! The full detail's logs keep their most recent entries, with their totals.

use serde_json::{Value, json};

/// At most this many settled decisions per page.
pub const DECISIONS_PER_PAGE: usize = 20;
/// The characters (of JSON) the listed decisions may take together.
pub const DECISIONS_CHARS: usize = 3_500;
/// At most this many entries of each full-detail log.
pub const LOG_ENTRIES: usize = 10;
/// A question or label longer than this is cut (with `…`) in the status.
const TEXT_CHARS: usize = 160;

fn cut(s: &str, max: usize) -> String {
    match s.char_indices().nth(max) {
        Some((i, _)) => format!("{}…", &s[..i]),
        None => s.to_string(),
    }
}

fn shorten(d: &Value) -> Value {
    let mut d = d.clone();
    for key in ["question", "custom"] {
        if let Some(t) = d.get(key).and_then(Value::as_str) {
            d[key] = json!(cut(t, TEXT_CHARS));
        }
    }
    if let Some(chosen) = d.get("chosen").and_then(Value::as_array) {
        let chosen: Vec<Value> = chosen
            .iter()
            .map(|c| c.as_str().map_or(c.clone(), |t| json!(cut(t, TEXT_CHARS))))
            .collect();
        d["chosen"] = json!(chosen);
    }
    d
}

/// Bounds a status view in place. The view lists a window of the session's settled
/// decisions — `settled_decisions_page: {total, from}` says which (the daemon reads one page,
/// not the session); without it the list is all of them. `before`: list the decisions
/// before this index (a cursor the previous page gave); `None`: the newest of the window.
pub fn bound_status(view: &mut Value, before: Option<usize>) {
    let Some(all) = view
        .get("settled_decisions")
        .and_then(Value::as_array)
        .cloned()
    else {
        return;
    };
    let listed = view.get("settled_decisions_page");
    let number = |key: &str| {
        listed
            .and_then(|p| p.get(key))
            .and_then(Value::as_u64)
            .map(|n| n as usize)
    };
    let from = number("from").unwrap_or(0);
    let total = number("total").unwrap_or(from + all.len());
    let end = before
        .unwrap_or(from + all.len())
        .clamp(from, from + all.len());
    let mut page = Vec::new();
    let mut used = 0;
    for d in all[..end - from].iter().rev() {
        let d = shorten(d);
        let size = d.to_string().len();
        if page.len() == DECISIONS_PER_PAGE || (used + size > DECISIONS_CHARS && !page.is_empty()) {
            break;
        }
        used += size;
        page.push(d);
    }
    page.reverse();
    let start = end - page.len();
    view["settled_decisions"] = Value::Array(page);
    view["settled_decisions_page"] = json!({
        "total": total,
        "from": start,
        "to": end,
        // Call alignment_status with {"before": start} for the older ones.
        "before": (start > 0).then_some(start),
    });
    for log in ["baseline_history", "drifts", "refusals", "connections"] {
        if let Some(entries) = view.get(log).and_then(Value::as_array) {
            let n = entries.len();
            if n > LOG_ENTRIES {
                let recent = entries[n - LOG_ENTRIES..].to_vec();
                view[log] = Value::Array(recent);
                view[format!("{log}_total")] = json!(n);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn view(n: usize, question_len: usize) -> Value {
        let decisions: Vec<Value> = (0..n)
            .map(|i| {
                json!({"ask_id": format!("a{i}"), "tool": "ask_user_question", "question_id": "q",
                    "question": format!("{i} {}", "x".repeat(question_len)), "chosen": ["Yes"],
                    "custom": null, "settled_at": "2026-12-01T00:00:00Z"})
            })
            .collect();
        json!({"rounds": n, "settled_decisions": decisions, "guidance": []})
    }

    #[test]
    fn five_thousand_decisions_fit_in_one_small_page_with_a_cursor() {
        let mut v = view(5000, 10);
        bound_status(&mut v, None);
        assert!(v.to_string().len() < 8 * 1024, "{}", v.to_string().len());
        let page = v["settled_decisions"].as_array().unwrap();
        assert_eq!(page.len(), DECISIONS_PER_PAGE);
        assert!(page[0]["question"].as_str().unwrap().starts_with("4980 "));
        assert!(page[19]["question"].as_str().unwrap().starts_with("4999 "));
        assert_eq!(v["settled_decisions_page"]["total"], 5000);
        assert_eq!(v["settled_decisions_page"]["before"], 4980);
        // The next page ends where this one starts.
        let mut older = view(5000, 10);
        bound_status(&mut older, Some(4980));
        let o = older["settled_decisions"].as_array().unwrap();
        assert!(o[19]["question"].as_str().unwrap().starts_with("4979 "));
        // The first page has no cursor.
        let mut first = view(5000, 10);
        bound_status(&mut first, Some(5));
        assert_eq!(first["settled_decisions"].as_array().unwrap().len(), 5);
        assert_eq!(first["settled_decisions_page"]["before"], Value::Null);
    }

    #[test]
    fn a_window_the_daemon_listed_keeps_its_place_in_the_session() {
        // Decisions 4,960..4,980 of 5,000, as the daemon lists the page before 4,980.
        let mut v = view(5000, 10);
        let window: Vec<Value> = v["settled_decisions"].as_array().unwrap()[4960..4980].to_vec();
        v["settled_decisions"] = json!(window);
        v["settled_decisions_page"] = json!({"total": 5000, "from": 4960, "to": 4980});
        bound_status(&mut v, Some(4980));
        let page = v["settled_decisions"].as_array().unwrap();
        assert_eq!(page.len(), DECISIONS_PER_PAGE);
        assert!(page[0]["question"].as_str().unwrap().starts_with("4960 "));
        assert_eq!(v["settled_decisions_page"]["total"], 5000);
        assert_eq!(v["settled_decisions_page"]["to"], 4980);
        assert_eq!(v["settled_decisions_page"]["before"], 4960);
    }

    #[test]
    fn long_texts_are_cut_and_the_budget_holds() {
        let mut v = view(100, 5000);
        bound_status(&mut v, None);
        assert!(v.to_string().len() < 8 * 1024, "{}", v.to_string().len());
        assert!(!v["settled_decisions"].as_array().unwrap().is_empty());
    }
}

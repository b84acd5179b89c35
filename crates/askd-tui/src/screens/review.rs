//! A batch review (`review.md` §5.4): a 1-item review as a one-question view, a larger one as
//! a scrolling list by group, with the panel's controls and keys (§5.6): `j`/`k` rows, `1`–`3`
//! verdicts, `←`/`→` values, `x` clear, `n` note, `P` pass the group (confirmed before it
//! overwrites a Fail), Ctrl+Z undo, Ctrl+S submit. Submits with `surface: "terminal"`; the
//! draft autosaves as `{answers: {id: {verdict, note}}}` like the panel's.

use ratatui::Frame;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use serde_json::{Map, Value, json};

use super::{
    Base, Confirm, Effect, FieldKey, cursor, draw_screen, edit, error_lines, field_line,
    focus_style, is_submit_chord, plain, text_lines,
};
use crate::api::Reply;
use crate::text::{clean_line, markdown_line};

#[derive(Debug, Clone)]
struct Item {
    id: String,
    kind: String,
    title: String,
    group: Option<String>,
    header: Option<String>,
    detail: Option<String>,
    op: Option<String>,
    expect: Option<String>,
    bool_desc: Option<String>,
    /// `(value, text)` of a choice.
    options: Vec<(String, String)>,
    multi: bool,
    /// The verdicts digits and arrows walk through, as the daemon serves them
    /// (`review.verdicts`: the core's rule per item type, not a copy here).
    values: Vec<String>,
}

/// The label key of a confirm or bool verdict.
fn verdict_label(v: &str) -> Option<&'static str> {
    Some(match v {
        "pass" => "r.pass",
        "fail" => "r.fail",
        "pending" => "r.pending",
        "yes" => "r.yes",
        "no" => "r.no",
        _ => return None,
    })
}

#[derive(Debug, Clone, Default)]
struct Answer {
    verdict: String,
    note: String,
}

#[derive(Debug, Clone)]
pub struct Review {
    pub base: Base,
    items: Vec<Item>,
    answers: Vec<Answer>,
    focus: usize,
    editing: bool,
    undo: Option<Vec<(usize, String)>>,
    notice: Option<String>,
    offline: bool,
}

/// The verdicts the daemon serves for item `id`.
fn served(view: &Value, id: &Value) -> Vec<String> {
    id.as_str()
        .and_then(|id| view["review"]["verdicts"][id].as_array())
        .map(|vs| {
            vs.iter()
                .filter_map(Value::as_str)
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default()
}

fn s(v: &Value) -> Option<String> {
    v.as_str().filter(|s| !s.is_empty()).map(str::to_string)
}

impl Review {
    pub fn new(view: &Value) -> Review {
        let items: Vec<Item> = view["spec"]["items"]
            .as_array()
            .map(|items| {
                items
                    .iter()
                    .map(|it| Item {
                        id: it["id"].as_str().unwrap_or_default().to_string(),
                        kind: it["type"].as_str().unwrap_or_default().to_string(),
                        title: it["title"].as_str().unwrap_or_default().to_string(),
                        group: s(&it["group"]),
                        header: s(&it["header"]),
                        detail: s(&it["detail"]),
                        op: s(&it["op"]),
                        expect: s(&it["expect"]),
                        bool_desc: s(&it["boolDesc"]),
                        options: it["options"]
                            .as_array()
                            .map(|os| {
                                os.iter()
                                    .map(|o| {
                                        let v = match &o["v"] {
                                            Value::String(s) => s.clone(),
                                            other => other.to_string(),
                                        };
                                        (v, o["t"].as_str().unwrap_or_default().to_string())
                                    })
                                    .collect()
                            })
                            .unwrap_or_default(),
                        multi: it["multiSelect"].as_bool().unwrap_or(false),
                        values: served(view, &it["id"]),
                    })
                    .collect()
            })
            .unwrap_or_default();
        let saved = &view["autosave"]["answers"];
        let answers = items
            .iter()
            .map(|it| Answer {
                verdict: saved[&it.id]["verdict"]
                    .as_str()
                    .unwrap_or_default()
                    .to_string(),
                note: saved[&it.id]["note"]
                    .as_str()
                    .unwrap_or_default()
                    .to_string(),
            })
            .collect();
        Review {
            base: Base::new(view),
            items,
            answers,
            focus: 0,
            editing: false,
            undo: None,
            notice: None,
            offline: view["review"]["offline"].as_bool().unwrap_or(false),
        }
    }

    pub fn editing(&self) -> bool {
        self.editing
    }

    pub fn help(&self) -> Vec<(&'static str, &'static str)> {
        vec![
            ("j k ↑ ↓", "key.move"),
            ("1 2 3", "key.verdict"),
            ("← →", "key.arrows"),
            ("x", "key.clear"),
            ("n", "key.note"),
            ("P", "key.bulk"),
            ("Ctrl+S", "key.ctrlS"),
            ("X", "key.cancel"),
            ("Esc", "key.putAway"),
        ]
    }

    pub fn save(&self) -> Vec<Effect> {
        if self.offline {
            return vec![];
        }
        let mut answers = Map::new();
        for (it, a) in self.items.iter().zip(&self.answers) {
            answers.insert(it.id.clone(), json!({"verdict": a.verdict, "note": a.note}));
        }
        vec![self.base.draft(json!({"answers": answers}))]
    }

    fn filled(&self, i: usize) -> bool {
        let a = &self.answers[i];
        if self.items[i].kind == "text" {
            !a.note.trim().is_empty()
        } else {
            !a.verdict.is_empty()
        }
    }

    /// Picks `value` on item `i`: a multi-select choice toggles it, else it replaces (or,
    /// when already set, clears) the verdict.
    fn pick(&mut self, i: usize, value: &str) -> Vec<Effect> {
        let it = &self.items[i];
        let a = &mut self.answers[i];
        if it.kind == "choice" && it.multi {
            let mut set: Vec<&str> = a.verdict.split(',').filter(|v| !v.is_empty()).collect();
            if let Some(p) = set.iter().position(|v| *v == value) {
                set.remove(p);
            } else {
                set.push(value);
            }
            a.verdict = it
                .options
                .iter()
                .map(|(v, _)| v.as_str())
                .filter(|v| set.contains(v))
                .collect::<Vec<_>>()
                .join(",");
        } else if a.verdict == value {
            a.verdict.clear();
        } else {
            a.verdict = value.to_string();
        }
        self.notice = None;
        self.save()
    }

    fn digit(&mut self, d: usize) -> Vec<Effect> {
        let i = self.focus;
        let it = &self.items[i];
        let value = match it.kind.as_str() {
            // A scale's digit is the value itself.
            "scale" => Some(d.to_string()).filter(|v| it.values.contains(v)),
            _ => it.values.get(d.wrapping_sub(1)).cloned(),
        };
        match value {
            Some(v) => self.pick(i, &v),
            None => vec![],
        }
    }

    fn step(&mut self, forward: bool) -> Vec<Effect> {
        let i = self.focus;
        let it = &self.items[i];
        if !(it.kind == "scale" || (it.kind == "choice" && !it.multi)) {
            return vec![];
        }
        let values = &it.values;
        let cur = values.iter().position(|v| *v == self.answers[i].verdict);
        let next = match (cur, forward) {
            (None, true) => 0,
            (None, false) => values.len().saturating_sub(1),
            (Some(c), true) => (c + 1).min(values.len().saturating_sub(1)),
            (Some(c), false) => c.saturating_sub(1),
        };
        match values.get(next) {
            Some(v) if *v != self.answers[i].verdict => {
                self.answers[i].verdict = v.clone();
                self.save()
            }
            _ => vec![],
        }
    }

    /// The confirm items of the focused item's group.
    fn group_targets(&self) -> Vec<usize> {
        let g = &self.items[self.focus].group;
        (0..self.items.len())
            .filter(|&i| self.items[i].group == *g && self.items[i].kind == "confirm")
            .collect()
    }

    fn bulk_pass(&mut self, overwrite_fail: bool) -> Vec<Effect> {
        let targets: Vec<usize> = self
            .group_targets()
            .into_iter()
            .filter(|&i| overwrite_fail || self.answers[i].verdict != "fail")
            .collect();
        self.undo = Some(
            targets
                .iter()
                .map(|&i| (i, self.answers[i].verdict.clone()))
                .collect(),
        );
        for &i in &targets {
            self.answers[i].verdict = "pass".into();
        }
        self.notice = Some(format!("{} {}", targets.len(), self.base.t("r.bulkDone")));
        self.save()
    }

    fn submit(&mut self, blank_ok: bool) -> Vec<Effect> {
        if !blank_ok && (0..self.items.len()).any(|i| !self.filled(i)) {
            self.base.confirm = Some(Confirm::yes_no("r.blankConfirm", "send"));
            return vec![];
        }
        let answers: Vec<Value> = self
            .items
            .iter()
            .zip(&self.answers)
            .map(|(it, a)| {
                let mut e = json!({"id": it.id});
                if it.kind != "text" && !a.verdict.is_empty() {
                    e["verdict"] = json!(a.verdict);
                }
                if !a.note.trim().is_empty() {
                    e["note"] = json!(a.note.trim());
                }
                e
            })
            .collect();
        self.base
            .submit(json!({"answers": answers, "surface": "terminal"}))
    }

    pub fn key(&mut self, key: &KeyEvent) -> Vec<Effect> {
        if let Some(c) = &self.base.confirm {
            let pick = c.pick(key);
            if pick.is_some() {
                self.base.confirm = None;
            }
            return match pick {
                Some("send") => self.submit(true),
                Some("cancel") => self.base.cancel(),
                Some("rest") => self.bulk_pass(false),
                Some("all") => self.bulk_pass(true),
                _ => vec![],
            };
        }
        if self.offline {
            return match key.code {
                KeyCode::Esc => vec![Effect::Leave],
                KeyCode::Char('X') => {
                    self.base.confirm = Some(Confirm::yes_no("r.cancelConfirm", "cancel"));
                    vec![]
                }
                _ => vec![],
            };
        }
        if is_submit_chord(key) {
            self.editing = false;
            return self.submit(false);
        }
        if self.editing {
            return match edit(
                &mut self.answers[self.focus].note,
                &mut self.base.caret,
                key,
            ) {
                FieldKey::Leave => {
                    self.editing = false;
                    self.save()
                }
                _ => vec![],
            };
        }
        if key.modifiers.contains(KeyModifiers::CONTROL) && key.code == KeyCode::Char('z') {
            if let Some(undo) = self.undo.take() {
                for (i, v) in undo {
                    self.answers[i].verdict = v;
                }
                self.notice = Some(self.base.t("r.undone").into());
                return self.save();
            }
            return vec![];
        }
        if !plain(key) || self.items.is_empty() {
            return vec![];
        }
        match key.code {
            KeyCode::Down | KeyCode::Char('j') => {
                self.focus = (self.focus + 1).min(self.items.len() - 1);
            }
            KeyCode::Up | KeyCode::Char('k') => self.focus = self.focus.saturating_sub(1),
            KeyCode::Char(c @ '0'..='9') => return self.digit(c as usize - '0' as usize),
            KeyCode::Left => return self.step(false),
            KeyCode::Right => return self.step(true),
            KeyCode::Char('x') if !self.answers[self.focus].verdict.is_empty() => {
                self.answers[self.focus].verdict.clear();
                return self.save();
            }
            KeyCode::Char('n') | KeyCode::Enter if self.items[self.focus].kind == "text" => {
                self.editing = true;
                self.base.caret = usize::MAX;
            }
            KeyCode::Char('n') => {
                self.editing = true;
                self.base.caret = usize::MAX;
            }
            KeyCode::Char('P') => {
                let fails = self
                    .group_targets()
                    .iter()
                    .any(|&i| self.answers[i].verdict == "fail");
                if fails {
                    self.base.confirm = Some(Confirm {
                        prompt: "r.failConfirm",
                        choices: vec![
                            ('c', "r.bulkCancel", ""),
                            ('r', "r.passRest", "rest"),
                            ('a', "r.passAll", "all"),
                        ],
                    });
                } else {
                    return self.bulk_pass(true);
                }
            }
            KeyCode::Char('S') => return self.submit(false),
            KeyCode::Char('X') => {
                self.base.confirm = Some(Confirm::yes_no("r.cancelConfirm", "cancel"));
            }
            KeyCode::Esc => {
                let mut e = self.save();
                e.push(Effect::Leave);
                return e;
            }
            _ => {}
        }
        vec![]
    }

    pub fn reply(&mut self, reply: &Reply) -> Vec<Effect> {
        self.base.common_reply(reply).unwrap_or_default()
    }

    fn verdict_spans(&self, i: usize) -> Vec<Span<'static>> {
        let it = &self.items[i];
        let a = &self.answers[i];
        let t = |k| self.base.t(k);
        let chip = |text: String, on: bool| {
            let style = if on {
                Style::default().fg(Color::Black).bg(Color::Green)
            } else {
                Style::default().fg(Color::Gray)
            };
            Span::styled(format!("[{text}]"), style)
        };
        let chosen: Vec<&str> = a.verdict.split(',').collect();
        let mut spans = Vec::new();
        match it.kind.as_str() {
            "confirm" | "bool" => {
                for (n, v) in it.values.iter().enumerate() {
                    let label = verdict_label(v).map_or(v.as_str(), t);
                    spans.push(chip(format!("{} {label}", n + 1), a.verdict == *v));
                    spans.push(Span::raw(" "));
                }
            }
            "scale" => {
                for v in &it.values {
                    spans.push(chip(v.clone(), a.verdict == *v));
                    spans.push(Span::raw(" "));
                }
            }
            "choice" => {
                for (n, (v, text)) in it.options.iter().enumerate() {
                    spans.push(chip(
                        format!("{} {}", n + 1, markdown_line(text)),
                        chosen.contains(&v.as_str()),
                    ));
                    spans.push(Span::raw(" "));
                }
            }
            _ => {}
        }
        spans
    }

    pub fn render(&self, f: &mut Frame, area: Rect) {
        let mut lines: Vec<Line<'static>> = Vec::new();
        let t = |k| self.base.t(k);
        if self.offline {
            lines.push(Line::from(t("r.offline")));
            let id = &self.base.id;
            lines.push(Line::from(format!(
                "  askd review export {id} --format csv"
            )));
            lines.push(Line::from(format!("  askd review import {id} {id}.csv")));
            draw_screen(f, area, &self.base, lines, 0, "settled.back");
            return;
        }
        let filled = (0..self.items.len()).filter(|&i| self.filled(i)).count();
        lines.push(Line::from(Span::styled(
            format!("{filled}/{} {}", self.items.len(), t("r.filled")),
            Style::default().fg(Color::DarkGray),
        )));
        if let Some(n) = &self.notice {
            lines.push(Line::from(Span::styled(
                n.clone(),
                Style::default().fg(Color::Green),
            )));
        }
        let mut focus_line = 0;
        let mut group: Option<Option<String>> = None;
        for (i, it) in self.items.iter().enumerate() {
            if self.items.len() > 1 && group.as_ref() != Some(&it.group) {
                group = Some(it.group.clone());
                let members: Vec<usize> = (0..self.items.len())
                    .filter(|&j| self.items[j].group == it.group)
                    .collect();
                let done = members.iter().filter(|&&j| self.filled(j)).count();
                let name = it
                    .group
                    .as_deref()
                    .map(clean_line)
                    .unwrap_or_else(|| t("r.ungrouped").into());
                lines.push(Line::from(""));
                lines.push(Line::from(Span::styled(
                    format!("── {name} {done}/{}", members.len()),
                    Style::default()
                        .fg(Color::Cyan)
                        .add_modifier(Modifier::BOLD),
                )));
            }
            let focused = i == self.focus;
            if focused {
                focus_line = lines.len();
            }
            if let Some(h) = &it.header {
                lines.push(Line::from(Span::styled(
                    format!("  {}", clean_line(h)),
                    Style::default().fg(Color::Cyan),
                )));
            }
            let mut title = vec![
                Span::raw(cursor(focused && !self.editing)),
                Span::styled(
                    format!("{} ", clean_line(&it.id)),
                    Style::default().fg(Color::DarkGray),
                ),
                Span::styled(
                    markdown_line(&it.title),
                    focus_style(focused).add_modifier(Modifier::BOLD),
                ),
            ];
            if let Some(b) = &it.bool_desc {
                title.push(Span::styled(
                    format!(" — {}", markdown_line(b)),
                    Style::default().fg(Color::Gray),
                ));
            }
            lines.push(Line::from(title));
            if let Some(op) = &it.op {
                lines.extend(text_lines(
                    &format!("op: {op}"),
                    "    ",
                    Style::default().fg(Color::Gray),
                ));
            }
            if let Some(e) = &it.expect {
                lines.extend(text_lines(
                    &format!("expect: {e}"),
                    "    ",
                    Style::default().fg(Color::Gray),
                ));
            }
            if let Some(d) = &it.detail {
                lines.extend(text_lines(d, "    ", Style::default().fg(Color::DarkGray)));
            }
            let spans = self.verdict_spans(i);
            if !spans.is_empty() {
                let mut row = vec![Span::raw("    ")];
                row.extend(spans);
                lines.push(Line::from(row));
            }
            let label = if it.kind == "text" {
                t("r.answer")
            } else {
                t("r.note")
            };
            let a = &self.answers[i];
            if !a.note.is_empty() || (focused && self.editing) || it.kind == "text" {
                lines.extend(field_line(
                    label,
                    &a.note,
                    (focused && self.editing).then_some(self.base.caret),
                    "    ",
                ));
            }
            lines.extend(error_lines(
                &self.base.errors_at(&format!("answers[{i}]")),
                "    ",
            ));
        }
        let hint = if self.editing { "editing" } else { "r.hint" };
        draw_screen(f, area, &self.base, lines, focus_line, hint);
    }
}

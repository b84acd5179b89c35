//! `ask_user_question`: 1–4 flat questions on one screen. Rows are each question's options and
//! an "Other" row for free text. The answer is the web card's `{answers: [{id, selected:
//! [labels], custom?}]}`; progress autosaves as `{v: 1, answers: {id: {selected, custom}}}`.

use ratatui::Frame;
use ratatui::crossterm::event::{KeyCode, KeyEvent};
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
struct Question {
    id: String,
    question: String,
    header: Option<String>,
    detail: Option<String>,
    /// `(label, description)`.
    options: Vec<(String, Option<String>)>,
    multi: bool,
}

#[derive(Debug, Clone, Default)]
struct Answer {
    selected: Vec<String>,
    custom: String,
}

#[derive(Debug, Clone)]
pub struct Questions {
    pub base: Base,
    questions: Vec<Question>,
    answers: Vec<Answer>,
    /// The focused question and row (`options.len()` is the "Other" row).
    focus: (usize, usize),
    editing: bool,
}

impl Questions {
    pub fn new(view: &Value) -> Questions {
        let questions: Vec<Question> = view["spec"]["questions"]
            .as_array()
            .map(|qs| {
                qs.iter()
                    .map(|q| Question {
                        id: q["id"].as_str().unwrap_or_default().to_string(),
                        question: q["question"].as_str().unwrap_or_default().to_string(),
                        header: q["header"].as_str().map(str::to_string),
                        detail: q["detail"].as_str().map(str::to_string),
                        options: super::labelled_options(&q["options"]),
                        multi: q["multi_select"].as_bool().unwrap_or(false),
                    })
                    .collect()
            })
            .unwrap_or_default();
        let saved = &view["autosave"]["answers"];
        let answers = questions
            .iter()
            .map(|q| {
                let a = &saved[&q.id];
                Answer {
                    selected: a["selected"]
                        .as_array()
                        .map(|s| {
                            s.iter()
                                .filter_map(|l| l.as_str())
                                .filter(|l| q.options.iter().any(|(o, _)| o == l))
                                .map(str::to_string)
                                .collect()
                        })
                        .unwrap_or_default(),
                    custom: a["custom"].as_str().unwrap_or_default().to_string(),
                }
            })
            .collect();
        Questions {
            base: Base::new(view),
            questions,
            answers,
            focus: (0, 0),
            editing: false,
        }
    }

    pub fn editing(&self) -> bool {
        self.editing
    }

    pub fn help(&self) -> Vec<(&'static str, &'static str)> {
        vec![
            ("1–9", "key.choose"),
            ("↑ ↓ j k", "key.move"),
            ("Space", "key.space"),
            ("Tab", "key.text"),
            ("Enter / Ctrl+S", "key.submit"),
            ("X", "key.cancel"),
            ("Esc", "key.putAway"),
        ]
    }

    fn draft_body(&self) -> Value {
        let mut answers = Map::new();
        for (q, a) in self.questions.iter().zip(&self.answers) {
            answers.insert(
                q.id.clone(),
                json!({"selected": a.selected, "custom": a.custom}),
            );
        }
        json!({"v": 1, "answers": answers})
    }

    /// The autosave of the current answers.
    pub fn save(&self) -> Vec<Effect> {
        vec![self.base.draft(self.draft_body())]
    }

    fn choose(&mut self, qi: usize, oi: usize) -> Vec<Effect> {
        let Some(q) = self.questions.get(qi) else {
            return vec![];
        };
        let Some((label, _)) = q.options.get(oi) else {
            return vec![];
        };
        let a = &mut self.answers[qi];
        if q.multi {
            if let Some(i) = a.selected.iter().position(|l| l == label) {
                a.selected.remove(i);
            } else {
                a.selected.push(label.clone());
            }
        } else {
            a.selected = vec![label.clone()];
            a.custom.clear();
        }
        self.focus = (qi, oi);
        self.base.alert = None;
        self.save()
    }

    fn rows(&self, qi: usize) -> usize {
        self.questions.get(qi).map_or(0, |q| q.options.len() + 1)
    }

    fn move_focus(&mut self, down: bool) {
        let (mut qi, mut row) = self.focus;
        if down {
            if row + 1 < self.rows(qi) {
                row += 1;
            } else if qi + 1 < self.questions.len() {
                qi += 1;
                row = 0;
            }
        } else if row > 0 {
            row -= 1;
        } else if qi > 0 {
            qi -= 1;
            row = self.rows(qi).saturating_sub(1);
        }
        self.focus = (qi, row);
    }

    fn submit(&mut self) -> Vec<Effect> {
        let answers: Vec<Value> = self
            .questions
            .iter()
            .zip(&self.answers)
            .map(|(q, a)| {
                let mut e = json!({"id": q.id, "selected": a.selected});
                if !a.custom.trim().is_empty() {
                    e["custom"] = json!(a.custom.trim());
                }
                e
            })
            .collect();
        if !answers.iter().any(|a| {
            a["selected"].as_array().is_some_and(|s| !s.is_empty()) || a.get("custom").is_some()
        }) {
            self.base.alert = Some(self.base.t("q.unanswered").to_string());
            return vec![];
        }
        // Results say where the answer came from (clients.md §3).
        self.base
            .submit(json!({"answers": answers, "surface": "terminal"}))
    }

    pub fn key(&mut self, key: &KeyEvent) -> Vec<Effect> {
        if let Some(c) = &self.base.confirm {
            return match c.pick(key) {
                Some("cancel") => {
                    self.base.confirm = None;
                    self.base.cancel()
                }
                Some(_) => {
                    self.base.confirm = None;
                    vec![]
                }
                None => vec![],
            };
        }
        if is_submit_chord(key) {
            self.editing = false;
            return self.submit();
        }
        let (qi, row) = self.focus;
        if self.editing {
            let Some(q) = self.questions.get(qi) else {
                return vec![];
            };
            let multi = q.multi;
            let a = &mut self.answers[qi];
            return match edit(&mut a.custom, &mut self.base.caret, key) {
                FieldKey::Changed => {
                    if !multi {
                        a.selected.clear();
                    }
                    vec![]
                }
                FieldKey::Leave => {
                    self.editing = false;
                    self.save()
                }
                FieldKey::Ignored => vec![],
            };
        }
        if !plain(key) {
            return vec![];
        }
        match key.code {
            KeyCode::Up | KeyCode::Char('k') => self.move_focus(false),
            KeyCode::Down | KeyCode::Char('j') => self.move_focus(true),
            KeyCode::Char(c @ '1'..='9') => {
                return self.choose(qi, c as usize - '1' as usize);
            }
            KeyCode::Char(' ') => {
                if row + 1 == self.rows(qi) {
                    self.editing = true;
                    self.base.caret = usize::MAX;
                } else {
                    return self.choose(qi, row);
                }
            }
            KeyCode::Tab => {
                self.focus = (qi, self.rows(qi).saturating_sub(1));
                self.editing = true;
                self.base.caret = usize::MAX;
            }
            KeyCode::Enter => {
                if row + 1 == self.rows(qi)
                    && self.answers.get(qi).is_some_and(|a| a.custom.is_empty())
                {
                    self.editing = true;
                    self.base.caret = usize::MAX;
                } else {
                    return self.submit();
                }
            }
            KeyCode::Char('X') => {
                self.base.confirm = Some(Confirm::yes_no("q.cancelConfirm", "cancel"));
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

    pub fn render(&self, f: &mut Frame, area: Rect) {
        let mut lines: Vec<Line<'static>> = Vec::new();
        let mut focus_line = 0;
        let n = self.questions.len();
        for (qi, (q, a)) in self.questions.iter().zip(&self.answers).enumerate() {
            let mut top = Vec::new();
            if n > 1 {
                top.push(Span::styled(
                    format!("[{}/{n}] ", qi + 1),
                    Style::default().fg(Color::DarkGray),
                ));
            }
            if let Some(h) = &q.header {
                top.push(Span::styled(
                    format!("{} ", clean_line(h)),
                    Style::default().fg(Color::Cyan),
                ));
            }
            if q.multi {
                top.push(Span::styled(
                    format!("({})", self.base.t("q.multi")),
                    Style::default().fg(Color::DarkGray),
                ));
            }
            if !top.is_empty() {
                lines.push(Line::from(top));
            }
            lines.extend(text_lines(
                &q.question,
                "",
                Style::default().add_modifier(Modifier::BOLD),
            ));
            if let Some(d) = &q.detail {
                lines.extend(text_lines(d, "  ", Style::default().fg(Color::Gray)));
            }
            for (oi, (label, desc)) in q.options.iter().enumerate() {
                let focused = self.focus == (qi, oi) && !self.editing;
                if self.focus == (qi, oi) {
                    focus_line = lines.len();
                }
                let chosen = a.selected.contains(label);
                let mark = match (q.multi, chosen) {
                    (true, true) => "[x]",
                    (true, false) => "[ ]",
                    (false, true) => "(•)",
                    (false, false) => "( )",
                };
                lines.push(Line::from(vec![
                    Span::raw(cursor(focused)),
                    Span::styled(
                        format!("{} {mark} {}", oi + 1, markdown_line(label)),
                        focus_style(focused),
                    ),
                ]));
                if let Some(d) = desc {
                    lines.extend(text_lines(
                        d,
                        "         ",
                        Style::default().fg(Color::DarkGray),
                    ));
                }
            }
            let other_row = q.options.len();
            if self.focus == (qi, other_row) {
                focus_line = lines.len();
            }
            let focused = self.focus == (qi, other_row);
            let label = if a.custom.is_empty() && !(focused && self.editing) {
                format!(
                    "{} ({})",
                    self.base.t("q.other"),
                    self.base.t("q.otherHint")
                )
            } else {
                self.base.t("q.other").to_string()
            };
            let mut field = field_line(
                &label,
                &a.custom,
                (focused && self.editing).then_some(self.base.caret),
                "",
            );
            if let Some(first) = field.first_mut() {
                first
                    .spans
                    .insert(0, Span::raw(cursor(focused && !self.editing)));
            }
            lines.extend(field);
            lines.extend(error_lines(
                &self.base.errors_at(&format!("answers[{qi}]")),
                "  ",
            ));
            lines.push(Line::from(""));
        }
        let hint = if self.editing { "editing" } else { "q.hint" };
        draw_screen(f, area, &self.base, lines, focus_line, hint);
    }
}

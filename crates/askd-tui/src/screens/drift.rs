//! The drift decision card (`alignment.md` §6): reason, what would change, the current
//! baseline, the agent's directions and askd's fixed actions with the same keys as the web
//! card — `A` approve, `K` keep, `1`–`4` a direction, `O` another direction (typed), `Esc`
//! not now (confirmed). Picking and sending are two steps: Enter sends only a picked action.
//! The body is `{action, option?, text?, note?}`.

use ratatui::Frame;
use ratatui::crossterm::event::{KeyCode, KeyEvent};
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use serde_json::{Value, json};

use super::{
    Base, Confirm, Effect, FieldKey, draw_screen, edit, error_lines, field_line, focus_style,
    plain, text_lines,
};
use crate::api::Reply;
use crate::text::{chars, clean_line, markdown_line};

/// The most characters of a note or a typed direction.

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    Approve,
    Reject,
    Option,
    Other,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Field {
    Other,
    Note,
}

#[derive(Debug, Clone)]
pub struct Drift {
    pub base: Base,
    reason: String,
    /// The reason's labels as the daemon serves them (`{"en": …, "zh-CN": …}`).
    reason_label: Value,
    /// The longest note or own-choice text the daemon takes (served as `text_max`).
    text_max: usize,
    description: String,
    required_change: Option<String>,
    /// `(label, description)`.
    options: Vec<(String, Option<String>)>,
    baseline: Value,
    action: Option<Action>,
    option: Option<usize>,
    other: String,
    note: String,
    editing: Option<Field>,
}

impl Drift {
    pub fn new(view: &Value) -> Drift {
        let d = &view["drift"];
        let mut base = Base::new(view);
        if let Some(c) = d["session"]["client"].as_str() {
            base.client = format!("{} · {}", clean_line(c), clean_line(&base.session));
        }
        Drift {
            base,
            reason: d["reason"].as_str().unwrap_or_default().to_string(),
            reason_label: d["reason_label"].clone(),
            text_max: d["text_max"]
                .as_u64()
                .map_or(usize::MAX, |n| usize::try_from(n).unwrap_or(usize::MAX)),
            description: d["description"].as_str().unwrap_or_default().to_string(),
            required_change: d["required_change"]
                .as_str()
                .filter(|s| !s.trim().is_empty())
                .map(str::to_string),
            options: super::labelled_options(&d["options"]),
            baseline: d["baseline"].clone(),
            action: None,
            option: None,
            other: String::new(),
            note: String::new(),
            editing: None,
        }
    }

    pub fn editing(&self) -> bool {
        self.editing.is_some()
    }

    pub fn help(&self) -> Vec<(&'static str, &'static str)> {
        vec![
            ("A", "key.dA"),
            ("K", "key.dK"),
            ("1–4", "key.d1"),
            ("O", "key.dO"),
            ("N", "key.dN"),
            ("Enter", "key.dEnter"),
            ("Esc", "key.dEsc"),
            ("Q", "key.dBack"),
        ]
    }

    /// A message about the text limit, with the limit the daemon serves filled in.
    fn limit_text(&self, key: &'static str) -> String {
        self.base
            .t(key)
            .replace("{max}", &self.text_max.to_string())
    }

    /// The request body for the picked action, or `None` after saying what is missing.
    fn body(&mut self) -> Option<Value> {
        let note = self.note.trim().to_string();
        if chars(&note) > self.text_max {
            self.base.errors = vec![("note".into(), self.limit_text("d.tooLong"))];
            return None;
        }
        let mut body = match self.action {
            None => {
                self.base.alert = Some(self.base.t("d.pickFirst").into());
                return None;
            }
            Some(Action::Approve) => json!({"action": "approve"}),
            Some(Action::Reject) => json!({"action": "reject"}),
            Some(Action::Option) => json!({"action": "option", "option": self.option?}),
            Some(Action::Other) => {
                let text = self.other.trim();
                let n = chars(text);
                if n == 0 || n > self.text_max {
                    let m = if n == 0 {
                        "d.otherRequired"
                    } else {
                        "d.tooLong"
                    };
                    self.base.errors = vec![("text".into(), self.limit_text(m))];
                    self.editing = Some(Field::Other);
                    self.base.caret = usize::MAX;
                    return None;
                }
                json!({"action": "other", "text": text})
            }
        };
        if !note.is_empty() {
            body["note"] = json!(note);
        }
        Some(body)
    }

    pub fn key(&mut self, key: &KeyEvent) -> Vec<Effect> {
        if let Some(c) = &self.base.confirm {
            return match c.pick(key) {
                Some("dismiss") => {
                    self.base.confirm = None;
                    self.base.submit(json!({"action": "dismiss"}))
                }
                Some(_) => {
                    self.base.confirm = None;
                    vec![]
                }
                None => vec![],
            };
        }
        if let Some(field) = self.editing {
            let text = match field {
                Field::Other => &mut self.other,
                Field::Note => &mut self.note,
            };
            if edit(text, &mut self.base.caret, key) == FieldKey::Leave {
                self.editing = None;
            }
            return vec![];
        }
        if !plain(key) || self.base.busy {
            return vec![];
        }
        self.base.alert = None;
        match key.code {
            KeyCode::Char('A' | 'a') => self.action = Some(Action::Approve),
            KeyCode::Char('K' | 'k') => self.action = Some(Action::Reject),
            KeyCode::Char(c @ '1'..='4') => {
                let i = c as usize - '1' as usize;
                if i < self.options.len() {
                    self.option = Some(i);
                    self.action = Some(Action::Option);
                }
            }
            KeyCode::Char('O' | 'o') => {
                self.action = Some(Action::Other);
                self.editing = Some(Field::Other);
                self.base.caret = usize::MAX;
            }
            KeyCode::Char('N' | 'n') => {
                self.editing = Some(Field::Note);
                self.base.caret = usize::MAX;
            }
            KeyCode::Char('Q' | 'q') => return vec![Effect::Leave],
            KeyCode::Enter => {
                if let Some(body) = self.body() {
                    return self.base.submit(body);
                }
            }
            KeyCode::Esc => {
                self.base.confirm = Some(Confirm::yes_no("d.dismissConfirm", "dismiss"));
            }
            _ => {}
        }
        vec![]
    }

    pub fn reply(&mut self, reply: &Reply) -> Vec<Effect> {
        self.base.common_reply(reply).unwrap_or_default()
    }

    fn baseline_lines(&self) -> Vec<Line<'static>> {
        let b = &self.baseline;
        let revision = b["revision"].as_u64().unwrap_or(0);
        let t = |k| self.base.t(k);
        let mut lines = vec![Line::from(Span::styled(
            format!("{} ({} {revision})", t("d.baseline"), t("d.revision")),
            Style::default().add_modifier(Modifier::BOLD),
        ))];
        if revision == 0 || b.is_null() {
            lines.push(Line::from(format!("  {}", t("d.noBaseline"))));
            return lines;
        }
        if let Some(goal) = b["goal"].as_str().filter(|g| !g.is_empty()) {
            lines.push(Line::from(format!("  goal: {}", markdown_line(goal))));
        }
        for field in [
            "explicit_constraints",
            "must_preserve",
            "allowed_scope",
            "user_decisions",
        ] {
            let items: Vec<&str> = b[field]
                .as_array()
                .map(|a| a.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            if items.is_empty() {
                continue;
            }
            lines.push(Line::from(format!("  {field}:")));
            for item in items {
                let mark = if field == "must_preserve" {
                    format!(" [{}]", t("d.protected"))
                } else {
                    String::new()
                };
                lines.push(Line::from(format!("    - {}{mark}", markdown_line(item))));
            }
        }
        lines
    }

    pub fn render(&self, f: &mut Frame, area: Rect) {
        let t = |k| self.base.t(k);
        let bold = Style::default().add_modifier(Modifier::BOLD);
        // The reason labels are the card's (alignment.md §6), served by the daemon from the
        // core; a card without them shows the reason token itself.
        let tag = match self.base.lang {
            crate::i18n::Lang::Zh => "zh-CN",
            crate::i18n::Lang::En => "en",
        };
        let reason = clean_line(self.reason_label[tag].as_str().unwrap_or(&self.reason));
        let mut lines = vec![
            Line::from(vec![
                Span::styled(
                    format!(" {} ", t("d.badge")),
                    Style::default().fg(Color::Black).bg(Color::Yellow),
                ),
                Span::styled(format!(" {reason}"), bold),
            ]),
            Line::from(""),
            Line::from(Span::styled(t("d.change"), bold)),
        ];
        lines.extend(text_lines(&self.description, "  ", Style::default()));
        if let Some(rc) = &self.required_change {
            lines.push(Line::from(format!("  {}", t("d.required"))));
            lines.extend(text_lines(rc, "    ", Style::default()));
        }
        lines.push(Line::from(""));
        lines.extend(self.baseline_lines());
        lines.push(Line::from(""));
        if !self.options.is_empty() {
            lines.push(Line::from(Span::styled(t("d.directions"), bold)));
            for (i, (label, desc)) in self.options.iter().enumerate() {
                let chosen = self.option == Some(i) && self.action == Some(Action::Option);
                lines.push(Line::from(Span::styled(
                    format!(
                        "  {} {} {}",
                        i + 1,
                        if chosen { "(•)" } else { "( )" },
                        markdown_line(label)
                    ),
                    focus_style(chosen),
                )));
                if let Some(d) = desc {
                    lines.extend(text_lines(
                        d,
                        "        ",
                        Style::default().fg(Color::DarkGray),
                    ));
                }
            }
            lines.extend(error_lines(&self.base.errors_at("option"), "  "));
            lines.push(Line::from(""));
        }
        lines.push(Line::from(Span::styled(t("d.actions"), bold)));
        let act = |key: &str, label: &'static str, on: bool| {
            Span::styled(format!("[{key}] {}", t(label)), focus_style(on))
        };
        let mut row = vec![
            act("A", "d.approve", self.action == Some(Action::Approve)),
            Span::raw("  "),
            act("K", "d.keep", self.action == Some(Action::Reject)),
            Span::raw("  "),
        ];
        if !self.options.is_empty() {
            row.push(act(
                "1–4",
                "d.useOption",
                self.action == Some(Action::Option),
            ));
            row.push(Span::raw("  "));
        }
        row.push(act("O", "d.other", self.action == Some(Action::Other)));
        row.push(Span::raw("  "));
        row.push(act("Esc", "d.notNow", false));
        lines.push(Line::from(row));
        lines.push(Line::from(Span::styled(
            format!("  {} — {}", t("d.notNow"), t("d.notNowHint")),
            Style::default().fg(Color::DarkGray),
        )));
        if self.action == Some(Action::Other) {
            lines.extend(field_line(
                t("d.otherLabel"),
                &self.other,
                (self.editing == Some(Field::Other)).then_some(self.base.caret),
                "  ",
            ));
            lines.extend(error_lines(&self.base.errors_at("text"), "  "));
        }
        lines.extend(error_lines(&self.base.errors_at("action"), "  "));
        lines.push(Line::from(""));
        lines.extend(field_line(
            &format!("[N] {}", t("d.note")),
            &self.note,
            (self.editing == Some(Field::Note)).then_some(self.base.caret),
            "",
        ));
        lines.extend(error_lines(&self.base.errors_at("note"), "  "));
        if let Some(a) = self.action {
            let label = match a {
                Action::Approve => "d.approve",
                Action::Reject => "d.keep",
                Action::Option => "d.useOption",
                Action::Other => "d.other",
            };
            lines.push(Line::from(""));
            lines.push(Line::from(Span::styled(
                format!("{}: {} — {}", t("d.picked"), t(label), t("d.send")),
                Style::default().fg(Color::Green),
            )));
        }
        let focus = if self.editing.is_some() {
            lines.len()
        } else {
            0
        };
        let hint = if self.editing.is_some() {
            "editing"
        } else {
            "d.hint"
        };
        draw_screen(f, area, &self.base, lines, focus, hint);
    }
}

//! One module per kind of ask. Each screen holds its ask's local state, turns keys into
//! [`Effect`]s (requests to send, leaving, settling) and draws itself. What they share lives
//! here: the [`Base`] every screen has, confirmations, text fields and the submit/cancel
//! reply handling.

pub mod drift;
pub mod questions;
pub mod review;
pub mod survey;

use ratatui::Frame;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph, Wrap};
use serde_json::{Value, json};

use crate::api::{Purpose, Reply, Request, seg};
use crate::i18n::Lang;
use crate::text::{clean, clean_line, markdown, markdown_line};

/// What a screen wants done after a key or a reply.
#[derive(Debug, Clone, PartialEq)]
pub enum Effect {
    Send(Request),
    /// Back to the inbox; the ask stays pending.
    Leave,
    /// The ask settled: by this terminal (`mine`) or elsewhere.
    Settled {
        outcome: String,
        mine: bool,
    },
}

/// A question with fixed choices, shown over the screen; keys pick a choice.
#[derive(Debug, Clone)]
pub struct Confirm {
    pub prompt: &'static str,
    /// `(key, label, tag)`; Esc is always "no".
    pub choices: Vec<(char, &'static str, &'static str)>,
}

impl Confirm {
    pub fn yes_no(prompt: &'static str, tag: &'static str) -> Confirm {
        Confirm {
            prompt,
            choices: vec![('y', "confirm.yes", tag), ('n', "confirm.no", "")],
        }
    }

    /// The tag of the choice `key` picks; `Some("")` closes without acting, `None` ignores.
    pub fn pick(&self, key: &KeyEvent) -> Option<&'static str> {
        match key.code {
            KeyCode::Esc => Some(""),
            KeyCode::Char(c) => self
                .choices
                .iter()
                .find(|(k, _, _)| k.eq_ignore_ascii_case(&c))
                .map(|(_, _, tag)| *tag),
            _ => None,
        }
    }
}

/// The part every ask screen has.
#[derive(Debug, Clone)]
pub struct Base {
    pub id: String,
    pub kind: String,
    pub title: String,
    pub session: String,
    pub client: String,
    pub lang: Lang,
    /// A message for the whole screen (a refused submit, a network error).
    pub alert: Option<String>,
    /// `errors[]` of the last 422, `(path, message)`.
    pub errors: Vec<(String, String)>,
    pub confirm: Option<Confirm>,
    /// A submit or cancel is in flight.
    pub busy: bool,
    /// The caret of the text field being edited (a character index; `usize::MAX`: the end).
    pub caret: usize,
    /// The ask's deadline line, when it has one: when it stops waiting and what then.
    pub deadline: Option<String>,
    /// While the human has put the ask off (snooze): until when, and that it can still be
    /// answered.
    pub snoozed: Option<String>,
    /// More than one approver (team mode): "1 of 2 approvals — ann".
    pub approvals: Option<String>,
}

impl Base {
    pub fn new(view: &Value) -> Base {
        let kind = view["kind"].as_str().unwrap_or_default().to_string();
        Base {
            id: view["ask_id"].as_str().unwrap_or_default().to_string(),
            title: markdown_line(
                view["title"]
                    .as_str()
                    .or(view["spec"]["title"].as_str())
                    .unwrap_or_default(),
            ),
            session: view["session"].as_str().unwrap_or_default().to_string(),
            client: clean_line(view["client"].as_str().unwrap_or_default()),
            lang: Lang::of_ask(view),
            kind,
            alert: None,
            errors: Vec::new(),
            confirm: None,
            busy: false,
            caret: usize::MAX,
            deadline: deadline_line(view, Lang::of_ask(view)).or_else(|| {
                // Escalated: the deadline is spent and the ask was offered on.
                let to = view["escalated"].as_array()?.last()?["to"].as_str()?;
                Some(format!(
                    "{} {}",
                    Lang::of_ask(view).t("escalated.to"),
                    clean_line(to)
                ))
            }),
            snoozed: view["deferred_until"]
                .as_str()
                .filter(|u| crate::text::to_come(u))
                .map(|u| {
                    let lang = Lang::of_ask(view);
                    format!(
                        "{} {} — {}",
                        lang.t("snooze.until"),
                        crate::text::minute(u),
                        lang.t("snooze.note")
                    )
                }),
            approvals: approvals_line(view, Lang::of_ask(view)),
        }
    }

    pub fn t(&self, key: &'static str) -> &'static str {
        self.lang.t(key)
    }

    pub fn url(&self, op: &str) -> String {
        format!("/api/asks/{}/{op}", seg(&self.id))
    }

    pub fn submit(&mut self, body: Value) -> Vec<Effect> {
        if self.busy {
            return vec![];
        }
        self.busy = true;
        self.alert = None;
        self.errors.clear();
        vec![Effect::Send(Request::post(
            self.url("submit"),
            body,
            Purpose::Submit(self.id.clone()),
        ))]
    }

    pub fn cancel(&mut self) -> Vec<Effect> {
        if self.busy {
            return vec![];
        }
        self.busy = true;
        vec![Effect::Send(Request::post(
            self.url("cancel"),
            json!({}),
            Purpose::Cancel(self.id.clone()),
        ))]
    }

    pub fn draft(&self, body: Value) -> Effect {
        Effect::Send(Request::put(
            self.url("autosave"),
            body,
            Purpose::Autosave(self.id.clone()),
        ))
    }

    /// The replies every screen handles alike: submit, cancel, recheck, failed drafts.
    /// `None` when the reply is the screen's own business.
    pub fn common_reply(&mut self, reply: &Reply) -> Option<Vec<Effect>> {
        match &reply.purpose {
            Purpose::Submit(_) | Purpose::Cancel(_) => {
                self.busy = false;
                let cancel = matches!(reply.purpose, Purpose::Cancel(_));
                if reply.ok() {
                    let outcome = reply.body["outcome"]
                        .as_str()
                        .unwrap_or(if cancel { "cancelled" } else { "answered" })
                        .to_string();
                    return Some(vec![Effect::Settled {
                        outcome,
                        mine: true,
                    }]);
                }
                if reply.status == 409 {
                    let outcome = reply.body["outcome"]
                        .as_str()
                        .or(reply.body["result"]["outcome"].as_str())
                        .unwrap_or("settled")
                        .to_string();
                    return Some(vec![Effect::Settled {
                        outcome,
                        mine: false,
                    }]);
                }
                self.fail(reply);
                Some(vec![])
            }
            Purpose::Recheck(_) => {
                if reply.ok() && reply.body["state"].as_str().is_some_and(|s| s != "pending") {
                    let outcome = reply.body["outcome"].as_str().unwrap_or("settled");
                    return Some(vec![Effect::Settled {
                        outcome: outcome.to_string(),
                        mine: false,
                    }]);
                }
                None
            }
            Purpose::Autosave(_) => {
                if !reply.ok() {
                    self.alert = Some(reply.message());
                }
                Some(vec![])
            }
            _ => None,
        }
    }

    /// Shows a refused call: the message, and each `errors[]` entry next to its field.
    pub fn fail(&mut self, reply: &Reply) {
        self.errors = reply.field_errors();
        self.alert = Some(if reply.status == 0 {
            format!("{}: {}", self.t("network"), reply.message())
        } else {
            reply.message()
        });
    }

    /// The messages of the errors whose path is `prefix` or lies under it.
    pub fn errors_at(&self, prefix: &str) -> Vec<String> {
        self.errors
            .iter()
            .filter(|(p, _)| {
                p == prefix
                    || p.strip_prefix(prefix)
                        .is_some_and(|rest| rest.starts_with('.') || rest.starts_with('['))
            })
            .map(|(_, m)| m.clone())
            .collect()
    }

    /// The header line: the kind's badge, the client and the title.
    pub fn header(&self) -> Line<'static> {
        let badge = match self.kind.as_str() {
            "survey" => self.t("kind.survey"),
            "questions" => self.t("kind.questions"),
            "review" => self.t("kind.review"),
            _ => self.t("kind.drift"),
        };
        let mut spans = vec![Span::styled(
            format!(" {badge} "),
            Style::default().fg(Color::Black).bg(Color::Cyan),
        )];
        if !self.client.is_empty() {
            spans.push(Span::styled(
                format!(" {} ·", self.client),
                Style::default().fg(Color::DarkGray),
            ));
        }
        spans.push(Span::styled(
            format!(" {}", self.title),
            Style::default().add_modifier(Modifier::BOLD),
        ));
        Line::from(spans)
    }
}

/// How a text field took a key.
#[derive(Debug, PartialEq, Eq)]
pub enum FieldKey {
    Changed,
    /// Enter, Esc or Tab: leave the field.
    Leave,
    Ignored,
}

/// Single-field editing at a caret (`caret`: a character index, clamped to the text, so
/// `usize::MAX` is the end): typing inserts, ←/→ move, Home/End (Ctrl+A/Ctrl+E) jump,
/// Backspace deletes before the caret and Delete at it, Ctrl+W deletes the word before the
/// caret, Ctrl+U clears the field (the shell's keys), Enter/Esc/Tab leave. A newline is
/// Alt+Enter or Shift+Enter, where the terminal reports it. Multi-byte safe: the caret moves
/// by characters, never inside one.
pub fn edit(text: &mut String, caret: &mut usize, key: &KeyEvent) -> FieldKey {
    let n = text.chars().count();
    *caret = (*caret).min(n);
    let byte =
        |text: &String, at: usize| text.char_indices().nth(at).map_or(text.len(), |(i, _)| i);
    if key.modifiers.contains(KeyModifiers::CONTROL) {
        match key.code {
            KeyCode::Char('u') => {
                text.clear();
                *caret = 0;
                return FieldKey::Changed;
            }
            KeyCode::Char('w') => {
                let before: Vec<char> = text.chars().take(*caret).collect();
                let mut start = before.len();
                while start > 0 && before[start - 1].is_whitespace() {
                    start -= 1;
                }
                while start > 0 && !before[start - 1].is_whitespace() {
                    start -= 1;
                }
                let (a, b) = (byte(text, start), byte(text, *caret));
                text.replace_range(a..b, "");
                *caret = start;
                return FieldKey::Changed;
            }
            KeyCode::Char('a') => {
                *caret = 0;
                return FieldKey::Changed;
            }
            KeyCode::Char('e') => {
                *caret = n;
                return FieldKey::Changed;
            }
            _ => {}
        }
    }
    match key.code {
        KeyCode::Enter
            if key.modifiers.contains(KeyModifiers::ALT)
                || key.modifiers.contains(KeyModifiers::SHIFT) =>
        {
            let at = byte(text, *caret);
            text.insert(at, '\n');
            *caret += 1;
            FieldKey::Changed
        }
        KeyCode::Enter | KeyCode::Esc | KeyCode::Tab => FieldKey::Leave,
        KeyCode::Left => {
            *caret = caret.saturating_sub(1);
            FieldKey::Changed
        }
        KeyCode::Right => {
            *caret = (*caret + 1).min(n);
            FieldKey::Changed
        }
        KeyCode::Home => {
            *caret = 0;
            FieldKey::Changed
        }
        KeyCode::End => {
            *caret = n;
            FieldKey::Changed
        }
        KeyCode::Backspace => {
            if *caret > 0 {
                let (a, b) = (byte(text, *caret - 1), byte(text, *caret));
                text.replace_range(a..b, "");
                *caret -= 1;
            }
            FieldKey::Changed
        }
        KeyCode::Delete => {
            if *caret < n {
                let (a, b) = (byte(text, *caret), byte(text, *caret + 1));
                text.replace_range(a..b, "");
            }
            FieldKey::Changed
        }
        KeyCode::Char(c)
            if !key.modifiers.contains(KeyModifiers::CONTROL)
                && !key.modifiers.contains(KeyModifiers::ALT) =>
        {
            let at = byte(text, *caret);
            text.insert(at, c);
            *caret += 1;
            FieldKey::Changed
        }
        _ => FieldKey::Ignored,
    }
}

/// Ctrl+S (a terminal rarely reports Ctrl+Enter) or Ctrl+Enter where it does.
pub fn is_submit_chord(key: &KeyEvent) -> bool {
    key.modifiers.contains(KeyModifiers::CONTROL)
        && matches!(key.code, KeyCode::Char('s') | KeyCode::Enter)
}

pub fn plain(key: &KeyEvent) -> bool {
    !key.modifiers
        .intersects(KeyModifiers::CONTROL | KeyModifiers::ALT)
}

/// Agent text (markdown source) as lines with an indent, control characters removed.
pub fn text_lines(s: &str, indent: &str, style: Style) -> Vec<Line<'static>> {
    markdown(s)
        .split('\n')
        .map(|l| Line::from(Span::styled(format!("{indent}{l}"), style)))
        .collect()
}

/// A text field's line: its label, the text and, while it is edited (`caret` is `Some`), a
/// cursor at the caret.
pub fn field_line(
    label: &str,
    text: &str,
    caret: Option<usize>,
    indent: &str,
) -> Vec<Line<'static>> {
    const MARK: char = '\u{E000}';
    let mut lines = Vec::new();
    let style = if caret.is_some() {
        Style::default().fg(Color::Yellow)
    } else {
        Style::default()
    };
    let mut raw: String = text.chars().filter(|c| *c != MARK).collect();
    if let Some(at) = caret {
        let at = raw.char_indices().nth(at).map_or(raw.len(), |(i, _)| i);
        raw.insert(at, MARK);
    }
    let body = clean(&raw).replace(MARK, "▏");
    let mut parts = body.split('\n');
    let first = parts.next().unwrap_or_default().to_string();
    lines.push(Line::from(vec![
        Span::styled(
            format!("{indent}{label}: "),
            Style::default().fg(Color::DarkGray),
        ),
        Span::styled(first, style),
    ]));
    for l in parts {
        lines.push(Line::from(Span::styled(format!("{indent}  {l}"), style)));
    }
    lines
}

pub fn error_lines(messages: &[String], indent: &str) -> Vec<Line<'static>> {
    messages
        .iter()
        .map(|m| {
            Line::from(Span::styled(
                format!("{indent}⚠ {m}"),
                Style::default().fg(Color::Red),
            ))
        })
        .collect()
}

/// Draws an ask screen: header, the body scrolled so line `focus` shows, the alert, the
/// key hint, and an open confirmation on top.
pub fn draw_screen(
    f: &mut Frame,
    area: Rect,
    base: &Base,
    body: Vec<Line<'static>>,
    focus: usize,
    hint: &'static str,
) {
    let alert_lines = if base.alert.is_some() { 2 } else { 0 };
    let mut header = vec![base.header()];
    if let Some(d) = &base.deadline {
        header.push(Line::from(Span::styled(
            format!(" ⏱ {d}"),
            Style::default().fg(Color::Yellow),
        )));
    }
    if let Some(s) = &base.snoozed {
        header.push(Line::from(Span::styled(
            format!(" ⏾ {s}"),
            Style::default().fg(Color::Cyan),
        )));
    }
    if let Some(a) = &base.approvals {
        header.push(Line::from(Span::styled(
            format!(" ✓ {a}"),
            Style::default().fg(Color::Cyan),
        )));
    }
    let [head, main, alert, foot] = ratatui::layout::Layout::vertical([
        ratatui::layout::Constraint::Length(header.len().max(2) as u16),
        ratatui::layout::Constraint::Min(1),
        ratatui::layout::Constraint::Length(alert_lines),
        ratatui::layout::Constraint::Length(1),
    ])
    .areas(area);
    f.render_widget(Paragraph::new(header), head);
    let offset = focus.saturating_sub((main.height as usize) / 3);
    f.render_widget(
        Paragraph::new(body)
            .wrap(Wrap { trim: false })
            .scroll((offset.min(u16::MAX as usize) as u16, 0)),
        main,
    );
    if let Some(a) = &base.alert {
        f.render_widget(
            Paragraph::new(Line::from(Span::styled(
                format!("⚠ {a}"),
                Style::default().fg(Color::Red),
            )))
            .wrap(Wrap { trim: false }),
            alert,
        );
    }
    f.render_widget(
        Paragraph::new(Line::from(Span::styled(
            base.t(hint),
            Style::default().fg(Color::DarkGray),
        ))),
        foot,
    );
    if let Some(c) = &base.confirm {
        draw_confirm(f, area, base.lang, c);
    }
}

/// "1 of 2 approvals — ann" for an ask that needs more than one member's vote (issue 35);
/// names are one clean line each.
fn approvals_line(view: &Value, lang: Lang) -> Option<String> {
    let a = view.get("approvals")?;
    let votes = a["votes"].as_array().map(Vec::as_slice).unwrap_or(&[]);
    let names: Vec<String> = votes
        .iter()
        .map(|v| clean_line(v["answered_by"]["name"].as_str().unwrap_or("?")))
        .collect();
    Some(format!(
        "{} / {} {}{}",
        votes.len(),
        a["required"].as_u64().unwrap_or(1),
        lang.t("approvals.votes"),
        if names.is_empty() {
            String::new()
        } else {
            format!(" — {}", names.join(", "))
        }
    ))
}

/// "stops waiting at 2026-12-03 17:42 UTC — then the agent's default applies (db: SQLite)"
/// for an ask with a deadline (issue 35); the default's labels are agent text, one line.
fn deadline_line(view: &Value, lang: Lang) -> Option<String> {
    let d = view.get("deadline")?;
    let at = d["expires_at"].as_str()?;
    let then = if d["then"] == "default" {
        let answers: Vec<String> = d["default"]["answers"]
            .as_array()
            .map(|a| {
                a.iter()
                    .map(|x| {
                        let chosen: Vec<&str> = match x["selected"].as_array() {
                            Some(s) => s.iter().filter_map(Value::as_str).collect(),
                            None => x["verdict"].as_str().into_iter().collect(),
                        };
                        format!(
                            "{}: {}",
                            x["id"].as_str().unwrap_or_default(),
                            chosen.join(", ")
                        )
                    })
                    .collect()
            })
            .unwrap_or_default();
        format!(
            "{} ({})",
            lang.t("deadline.thenDefault"),
            clean_line(&answers.join("; "))
        )
    } else {
        lang.t("deadline.thenClose").to_string()
    };
    Some(format!(
        "{} {} — {then}",
        lang.t("deadline.until"),
        crate::text::minute(at)
    ))
}

/// A box in the middle of `area`.
pub fn popup(area: Rect, width: u16, height: u16) -> Rect {
    let w = width.min(area.width);
    let h = height.min(area.height);
    Rect {
        x: area.x + (area.width - w) / 2,
        y: area.y + (area.height - h) / 2,
        width: w,
        height: h,
    }
}

pub fn draw_confirm(f: &mut Frame, area: Rect, lang: Lang, c: &Confirm) {
    let r = popup(area, 64, 7);
    f.render_widget(Clear, r);
    let choices: Vec<Span> = c
        .choices
        .iter()
        .map(|(_, label, _)| {
            Span::styled(
                format!("[{}]  ", lang.t(label)),
                Style::default().fg(Color::Yellow),
            )
        })
        .collect();
    let mut lines = vec![Line::from(lang.t(c.prompt)), Line::from("")];
    lines.push(Line::from(choices));
    lines.push(Line::from(Span::styled(
        "Esc",
        Style::default().fg(Color::DarkGray),
    )));
    f.render_widget(
        Paragraph::new(lines)
            .wrap(Wrap { trim: false })
            .block(Block::default().borders(Borders::ALL)),
        r,
    );
}

/// The marker of a focused row.
pub fn cursor(focused: bool) -> &'static str {
    if focused { "▶ " } else { "  " }
}

pub fn focus_style(focused: bool) -> Style {
    if focused {
        Style::default().add_modifier(Modifier::REVERSED)
    } else {
        Style::default()
    }
}

/// `[{label, description?}]` as `(label, description)` pairs (a questions ask's or a drift
/// card's options); anything else is no options.
pub fn labelled_options(v: &Value) -> Vec<(String, Option<String>)> {
    v.as_array()
        .map(|os| {
            os.iter()
                .map(|o| {
                    (
                        o["label"].as_str().unwrap_or_default().to_string(),
                        o["description"].as_str().map(str::to_string),
                    )
                })
                .collect()
        })
        .unwrap_or_default()
}

#[cfg(test)]
mod edit_tests {
    use super::*;

    fn key(code: KeyCode, modifiers: KeyModifiers) -> KeyEvent {
        KeyEvent::new(code, modifiers)
    }

    #[test]
    fn ctrl_w_deletes_the_last_word_and_ctrl_u_clears() {
        let mut t = "use the 导出 files  ".to_string();
        let mut c = usize::MAX;
        assert_eq!(
            edit(
                &mut t,
                &mut c,
                &key(KeyCode::Char('w'), KeyModifiers::CONTROL)
            ),
            FieldKey::Changed
        );
        assert_eq!(t, "use the 导出 ");
        edit(
            &mut t,
            &mut c,
            &key(KeyCode::Char('w'), KeyModifiers::CONTROL),
        );
        assert_eq!(t, "use the ");
        edit(
            &mut t,
            &mut c,
            &key(KeyCode::Char('u'), KeyModifiers::CONTROL),
        );
        assert_eq!(t, "");
        edit(
            &mut t,
            &mut c,
            &key(KeyCode::Char('w'), KeyModifiers::CONTROL),
        );
        assert_eq!(t, "");
        edit(&mut t, &mut c, &key(KeyCode::Char('a'), KeyModifiers::NONE));
        assert_eq!(t, "a");
    }
    #[test]
    fn the_caret_moves_and_edits_by_characters() {
        let k = |code| key(code, KeyModifiers::NONE);
        let mut t = "数据b".to_string();
        let mut c = usize::MAX;
        edit(&mut t, &mut c, &k(KeyCode::Left));
        edit(&mut t, &mut c, &k(KeyCode::Left));
        assert_eq!(c, 1);
        edit(&mut t, &mut c, &k(KeyCode::Char('库')));
        assert_eq!(t, "数库据b");
        edit(&mut t, &mut c, &k(KeyCode::Delete));
        assert_eq!(t, "数库b");
        edit(&mut t, &mut c, &k(KeyCode::Backspace));
        assert_eq!((t.as_str(), c), ("数b", 1));
        edit(&mut t, &mut c, &k(KeyCode::Home));
        edit(&mut t, &mut c, &k(KeyCode::Backspace));
        edit(&mut t, &mut c, &k(KeyCode::Char('a')));
        assert_eq!(t, "a数b");
        edit(&mut t, &mut c, &k(KeyCode::End));
        edit(&mut t, &mut c, &k(KeyCode::Delete));
        edit(&mut t, &mut c, &k(KeyCode::Right));
        edit(&mut t, &mut c, &k(KeyCode::Char('!')));
        assert_eq!(t, "a数b!");
        edit(
            &mut t,
            &mut c,
            &key(KeyCode::Char('a'), KeyModifiers::CONTROL),
        );
        edit(&mut t, &mut c, &key(KeyCode::Enter, KeyModifiers::SHIFT));
        assert_eq!((t.as_str(), c), ("\na数b!", 1));
        // The cursor is drawn at the caret.
        let lines = field_line("Other", "a数b", Some(2), "");
        let shown: String = lines[0]
            .spans
            .iter()
            .map(|s| s.content.to_string())
            .collect();
        assert_eq!(shown, "Other: a数▏b");
    }
}

//! The App: the terminal UI's whole state and its rules, without I/O. Keys and replies go
//! in, requests come out, and [`App::render`] draws the current state into any frame.

use ratatui::Frame;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph, Wrap};
use serde_json::{Value, json};

use crate::api::{Purpose, Reply, Request, seg};
use crate::i18n::Lang;
use crate::screens::drift::Drift;
use crate::screens::questions::Questions;
use crate::screens::review::Review;
use crate::screens::survey::Survey;
use crate::screens::{Base, Effect, cursor, focus_style, popup};
use crate::text::{clean_line, markdown_line};

/// One pending ask in the inbox.
#[derive(Debug, Clone, PartialEq)]
pub struct InboxRow {
    pub id: String,
    pub session: String,
    pub client: String,
    pub workspace: Option<String>,
    pub kind: String,
    pub title: String,
    pub created_at: String,
    /// When it stops waiting (its deadline), if it has one.
    pub expires_at: Option<String>,
    /// While the human has put it off (snooze): when it is back.
    pub deferred_until: Option<String>,
    /// Whom it was offered to when nobody answered by its deadline (escalation).
    pub escalated_to: Option<String>,
    /// More than one approver: `(votes in, required)`.
    pub approvals: Option<(u64, u64)>,
}

/// An open ask.
#[derive(Debug, Clone)]
pub enum AskScreen {
    Questions(Questions),
    Survey(Box<Survey>),
    Review(Review),
    Drift(Box<Drift>),
}

impl AskScreen {
    fn base(&self) -> &Base {
        match self {
            AskScreen::Questions(s) => &s.base,
            AskScreen::Survey(s) => &s.base,
            AskScreen::Review(s) => &s.base,
            AskScreen::Drift(s) => &s.base,
        }
    }

    fn key(&mut self, key: &KeyEvent) -> Vec<Effect> {
        match self {
            AskScreen::Questions(s) => s.key(key),
            AskScreen::Survey(s) => s.key(key),
            AskScreen::Review(s) => s.key(key),
            AskScreen::Drift(s) => s.key(key),
        }
    }

    fn reply(&mut self, reply: &Reply) -> Vec<Effect> {
        match self {
            AskScreen::Questions(s) => s.reply(reply),
            AskScreen::Survey(s) => s.reply(reply),
            AskScreen::Review(s) => s.reply(reply),
            AskScreen::Drift(s) => s.reply(reply),
        }
    }

    fn editing(&self) -> bool {
        match self {
            AskScreen::Questions(s) => s.editing(),
            AskScreen::Survey(s) => s.editing(),
            AskScreen::Review(s) => s.editing(),
            AskScreen::Drift(s) => s.editing(),
        }
    }

    /// Typing belongs to a field, or a confirmation is open: `?` and `q` are not ours.
    fn captures_keys(&self) -> bool {
        self.editing() || self.base().confirm.is_some()
    }

    fn save(&self) -> Vec<Effect> {
        match self {
            AskScreen::Questions(s) => s.save(),
            AskScreen::Survey(s) => s.save(),
            AskScreen::Review(s) => s.save(),
            AskScreen::Drift(_) => vec![],
        }
    }

    fn help(&self) -> Vec<(&'static str, &'static str)> {
        match self {
            AskScreen::Questions(s) => s.help(),
            AskScreen::Survey(s) => s.help(),
            AskScreen::Review(s) => s.help(),
            AskScreen::Drift(s) => s.help(),
        }
    }

    fn render(&self, f: &mut Frame, area: Rect) {
        match self {
            AskScreen::Questions(s) => s.render(f, area),
            AskScreen::Survey(s) => s.render(f, area),
            AskScreen::Review(s) => s.render(f, area),
            AskScreen::Drift(s) => s.render(f, area),
        }
    }
}

#[derive(Debug, Clone)]
pub enum Screen {
    Inbox,
    /// Waiting for `GET /api/asks/{id}`.
    Opening(String),
    Ask(Box<AskScreen>),
    /// The ask settled: by this terminal (`mine`) or elsewhere.
    Settled {
        title: String,
        outcome: String,
        mine: bool,
        lang: Lang,
    },
}

pub struct App {
    lang: Lang,
    pub screen: Screen,
    inbox: Vec<InboxRow>,
    inbox_loaded: bool,
    selected: usize,
    /// The alignment status of the selected session: `(session, status)`.
    alignment: Option<(String, Value)>,
    help: bool,
    mode_pick: bool,
    status: Option<String>,
    quit: bool,
}

impl App {
    /// A new App in the inbox, its labels in `lang` (askd's language setting).
    pub fn new(lang: Lang) -> App {
        App {
            lang,
            screen: Screen::Inbox,
            inbox: Vec::new(),
            inbox_loaded: false,
            selected: 0,
            alignment: None,
            help: false,
            mode_pick: false,
            status: None,
            quit: false,
        }
    }

    /// The first requests: the inbox.
    pub fn start(&self) -> Vec<Request> {
        vec![inbox_request()]
    }

    pub fn should_quit(&self) -> bool {
        self.quit
    }

    pub fn inbox(&self) -> &[InboxRow] {
        &self.inbox
    }

    /// The open ask's id, if any.
    pub fn open_ask(&self) -> Option<&str> {
        match &self.screen {
            Screen::Ask(a) => Some(&a.base().id),
            Screen::Opening(id) => Some(id),
            _ => None,
        }
    }

    /// The poll: the inbox and alignment line while they show, the open ask's state (settled
    /// elsewhere?) while an ask is open.
    pub fn tick(&self) -> Vec<Request> {
        match &self.screen {
            Screen::Inbox => {
                let mut r = vec![inbox_request()];
                if let Some(s) = self.selected_session() {
                    r.push(alignment_request(s));
                }
                r
            }
            Screen::Ask(a) => {
                let b = a.base();
                vec![Request::get(
                    format!("/api/asks/{}", seg(&b.id)),
                    Purpose::Recheck(b.id.clone()),
                )]
            }
            _ => vec![],
        }
    }

    /// An event that may concern the open ask or the inbox (from `/api/events`): refresh.
    pub fn on_event(&self) -> Vec<Request> {
        self.tick()
    }

    fn selected_session(&self) -> Option<&str> {
        self.inbox.get(self.selected).map(|r| r.session.as_str())
    }

    fn run(&mut self, effects: Vec<Effect>) -> Vec<Request> {
        let mut out = Vec::new();
        for e in effects {
            match e {
                Effect::Send(r) => out.push(r),
                Effect::Leave => {
                    self.screen = Screen::Inbox;
                    out.push(inbox_request());
                }
                Effect::Settled { outcome, mine } => {
                    if let Screen::Ask(a) = &self.screen {
                        let b = a.base();
                        self.screen = Screen::Settled {
                            title: b.title.clone(),
                            outcome,
                            mine,
                            lang: b.lang,
                        };
                    }
                }
            }
        }
        out
    }

    /// A key press. Returns the requests to send.
    pub fn key(&mut self, key: KeyEvent) -> Vec<Request> {
        let captured = matches!(&self.screen, Screen::Ask(a) if a.captures_keys());
        if key.modifiers.contains(KeyModifiers::CONTROL) && key.code == KeyCode::Char('c') {
            self.quit = true;
            return match &self.screen {
                Screen::Ask(a) => {
                    let e = a.save();
                    self.run(e)
                }
                _ => vec![],
            };
        }
        if self.help {
            if matches!(key.code, KeyCode::Esc | KeyCode::Char('?') | KeyCode::Enter) {
                self.help = false;
            }
            return vec![];
        }
        if key.code == KeyCode::Char('?') && !captured {
            self.help = true;
            return vec![];
        }
        match &mut self.screen {
            Screen::Inbox => self.inbox_key(key),
            Screen::Opening(_) => {
                if key.code == KeyCode::Esc {
                    self.screen = Screen::Inbox;
                }
                vec![]
            }
            Screen::Settled { .. } => {
                if matches!(key.code, KeyCode::Enter | KeyCode::Esc | KeyCode::Char('q')) {
                    self.screen = Screen::Inbox;
                    return vec![inbox_request()];
                }
                vec![]
            }
            Screen::Ask(a) => {
                let e = a.key(&key);
                self.run(e)
            }
        }
    }

    fn inbox_key(&mut self, key: KeyEvent) -> Vec<Request> {
        if self.mode_pick {
            self.mode_pick = false;
            let mode = match key.code {
                KeyCode::Char('1') => "auto",
                KeyCode::Char('2') => "manual",
                KeyCode::Char('3') => "off",
                KeyCode::Char('4') => "default",
                _ => return vec![],
            };
            let Some(s) = self.selected_session().map(str::to_string) else {
                return vec![];
            };
            return vec![Request::put(
                format!("/api/sessions/{}/alignment/mode", seg(&s)),
                json!({"mode": mode}),
                Purpose::SetMode(s),
            )];
        }
        let before = self.selected_session().map(str::to_string);
        match key.code {
            KeyCode::Char('q') | KeyCode::Esc => {
                self.quit = true;
                return vec![];
            }
            KeyCode::Down | KeyCode::Char('j') if self.selected + 1 < self.inbox.len() => {
                self.selected += 1;
            }
            KeyCode::Up | KeyCode::Char('k') => self.selected = self.selected.saturating_sub(1),
            KeyCode::Char('r') => return self.tick(),
            KeyCode::Char('z') => {
                // Ask me again in an hour (issue 35): the agent is told to come back then.
                if let Some(row) = self.inbox.get(self.selected) {
                    return vec![Request::post(
                        format!("/api/asks/{}/snooze", seg(&row.id)),
                        json!({"for_s": 3600}),
                        Purpose::Snooze(row.id.clone()),
                    )];
                }
                return vec![];
            }
            KeyCode::Char('M') | KeyCode::Char('m') => {
                if self.selected_session().is_some() {
                    self.mode_pick = true;
                }
                return vec![];
            }
            KeyCode::Enter => {
                if let Some(row) = self.inbox.get(self.selected) {
                    let id = row.id.clone();
                    self.status = None;
                    self.screen = Screen::Opening(id.clone());
                    return vec![Request::get(
                        format!("/api/asks/{}", seg(&id)),
                        Purpose::Open(id),
                    )];
                }
            }
            _ => {}
        }
        match self.selected_session() {
            Some(s) if before.as_deref() != Some(s) => vec![alignment_request(s)],
            _ => vec![],
        }
    }

    /// A reply from the daemon. Returns follow-up requests.
    pub fn reply(&mut self, reply: Reply) -> Vec<Request> {
        match &reply.purpose {
            Purpose::Inbox => {
                if !reply.ok() {
                    self.status = Some(reply.message());
                    return vec![];
                }
                let before = self.selected_session().map(str::to_string);
                let selected_id = self.inbox.get(self.selected).map(|r| r.id.clone());
                self.inbox = parse_inbox(&reply.body);
                self.inbox_loaded = true;
                self.status = None;
                self.selected = selected_id
                    .and_then(|id| self.inbox.iter().position(|r| r.id == id))
                    .unwrap_or(self.selected.min(self.inbox.len().saturating_sub(1)));
                match self.selected_session() {
                    Some(s) if before.as_deref() != Some(s) || self.alignment.is_none() => {
                        vec![alignment_request(s)]
                    }
                    _ => vec![],
                }
            }
            Purpose::Snooze(_) => {
                if reply.ok() {
                    self.status = None;
                    return vec![inbox_request()];
                }
                self.status = Some(reply.message());
                vec![]
            }
            Purpose::Alignment(s) | Purpose::SetMode(s) => {
                if reply.ok() {
                    let s = s.clone();
                    if matches!(reply.purpose, Purpose::SetMode(_)) {
                        return vec![alignment_request(&s)];
                    }
                    self.alignment = Some((s, reply.body));
                } else if matches!(reply.purpose, Purpose::SetMode(_)) {
                    self.status = Some(reply.message());
                }
                vec![]
            }
            Purpose::Open(id) => {
                if !matches!(&self.screen, Screen::Opening(open) if open == id) {
                    return vec![];
                }
                if !reply.ok() {
                    self.status = Some(reply.message());
                    self.screen = Screen::Inbox;
                    return vec![inbox_request()];
                }
                let view = &reply.body;
                if view["state"].as_str() != Some("pending") {
                    self.screen = Screen::Settled {
                        title: markdown_line(view["title"].as_str().unwrap_or_default()),
                        outcome: view["outcome"].as_str().unwrap_or("settled").to_string(),
                        mine: false,
                        lang: Lang::of_ask(view),
                    };
                    return vec![];
                }
                let mut follow = Vec::new();
                let screen = match view["kind"].as_str() {
                    Some("questions") => AskScreen::Questions(Questions::new(view)),
                    Some("review") => AskScreen::Review(Review::new(view)),
                    Some("drift") => AskScreen::Drift(Box::new(Drift::new(view))),
                    Some("survey") => {
                        let (s, r) = Survey::new(view);
                        follow = r;
                        AskScreen::Survey(Box::new(s))
                    }
                    other => {
                        self.status = Some(format!("unknown kind of ask: {other:?}"));
                        self.screen = Screen::Inbox;
                        return vec![];
                    }
                };
                self.screen = Screen::Ask(Box::new(screen));
                self.run(follow)
            }
            _ => match &mut self.screen {
                Screen::Ask(a) => {
                    let mine = match &reply.purpose {
                        Purpose::Recheck(id)
                        | Purpose::Autosave(id)
                        | Purpose::Submit(id)
                        | Purpose::Cancel(id)
                        | Purpose::Bank(id)
                        | Purpose::Preflight(id)
                        | Purpose::Path { ask: id, .. }
                        | Purpose::QuickPath { ask: id, .. } => *id == a.base().id,
                        _ => false,
                    };
                    if !mine {
                        return vec![];
                    }
                    let e = a.reply(&reply);
                    self.run(e)
                }
                _ => vec![],
            },
        }
    }

    fn alignment_line(&self) -> Line<'static> {
        let t = |k| self.lang.t(k);
        let Some((session, v)) = &self.alignment else {
            return Line::from(Span::styled(
                t("align.none"),
                Style::default().fg(Color::DarkGray),
            ));
        };
        if self.selected_session() != Some(session.as_str()) {
            return Line::from("");
        }
        let mode = v["mode"]["effective"].as_str().unwrap_or("?");
        let source = v["mode"]["source"].as_str().unwrap_or("?");
        let posture = v["posture"].as_str().unwrap_or("?");
        let rounds = v["rounds"].as_u64().unwrap_or(0);
        let revision = v["baseline"]["revision"].as_u64().unwrap_or(0);
        Line::from(vec![
            Span::styled(
                format!("{} ", clean_line(session)),
                Style::default().fg(Color::DarkGray),
            ),
            Span::raw(format!(
                "{} {mode} ({source}) · {} {posture} · {} {rounds} · {} r{revision}",
                t("align.mode"),
                t("align.posture"),
                t("align.rounds"),
                t("align.baseline")
            )),
        ])
    }

    fn render_inbox(&self, f: &mut Frame, area: Rect) {
        let t = |k| self.lang.t(k);
        let [head, align, main, status, foot] = Layout::vertical([
            Constraint::Length(1),
            Constraint::Length(1),
            Constraint::Min(1),
            Constraint::Length(1),
            Constraint::Length(1),
        ])
        .areas(area);
        f.render_widget(
            Paragraph::new(Line::from(Span::styled(
                format!("{} ({})", t("app.title"), self.inbox.len()),
                Style::default().add_modifier(Modifier::BOLD),
            ))),
            head,
        );
        f.render_widget(Paragraph::new(self.alignment_line()), align);
        let mut lines = Vec::new();
        let mut focus_line = 0;
        if self.inbox.is_empty() {
            lines.push(Line::from(if self.inbox_loaded {
                t("inbox.empty")
            } else {
                t("inbox.loading")
            }));
        }
        let mut session: Option<&str> = None;
        for (i, row) in self.inbox.iter().enumerate() {
            if session != Some(row.session.as_str()) {
                session = Some(&row.session);
                lines.push(Line::from(""));
                let ws = row
                    .workspace
                    .as_deref()
                    .map(|w| format!(" · {}", clean_line(w)))
                    .unwrap_or_default();
                lines.push(Line::from(Span::styled(
                    format!(
                        "{} · {}{ws}",
                        clean_line(&row.client),
                        clean_line(&row.session)
                    ),
                    Style::default().fg(Color::Cyan),
                )));
            }
            let focused = i == self.selected;
            if focused {
                focus_line = lines.len();
            }
            let kind = match row.kind.as_str() {
                "survey" => t("kind.survey"),
                "questions" => t("kind.questions"),
                "review" => t("kind.review"),
                "drift" => t("kind.drift"),
                _ => "?",
            };
            let created = row
                .created_at
                .get(..16)
                .unwrap_or(&row.created_at)
                .replace('T', " ");
            lines.push(Line::from(vec![
                Span::raw(cursor(focused)),
                Span::styled(
                    format!("[{kind}] {}", markdown_line(&row.title)),
                    focus_style(focused),
                ),
                Span::styled(format!("  {created}"), Style::default().fg(Color::DarkGray)),
                match &row.expires_at {
                    Some(at) => Span::styled(
                        format!("  ⏱ {} {}", t("deadline.until"), crate::text::minute(at)),
                        Style::default().fg(Color::Yellow),
                    ),
                    None => Span::raw(""),
                },
                match &row.escalated_to {
                    Some(to) => Span::styled(
                        format!("  ⇪ {} {}", t("escalated.to"), markdown_line(to)),
                        Style::default().fg(Color::Yellow),
                    ),
                    None => Span::raw(""),
                },
                match &row.deferred_until {
                    Some(at) => Span::styled(
                        format!("  ⏾ {} {}", t("snooze.until"), crate::text::minute(at)),
                        Style::default().fg(Color::Cyan),
                    ),
                    None => Span::raw(""),
                },
                match row.approvals {
                    Some((n, required)) => Span::styled(
                        format!("  ✓ {n}/{required} {}", t("approvals.votes")),
                        Style::default().fg(Color::Cyan),
                    ),
                    None => Span::raw(""),
                },
            ]));
        }
        let offset = focus_line.saturating_sub(main.height as usize / 2);
        f.render_widget(Paragraph::new(lines).scroll((offset as u16, 0)), main);
        if let Some(s) = &self.status {
            f.render_widget(
                Paragraph::new(Span::styled(
                    format!("⚠ {s}"),
                    Style::default().fg(Color::Red),
                )),
                status,
            );
        }
        f.render_widget(
            Paragraph::new(Span::styled(
                t("inbox.hint"),
                Style::default().fg(Color::DarkGray),
            )),
            foot,
        );
        if self.mode_pick {
            let r = popup(area, 70, 5);
            f.render_widget(Clear, r);
            f.render_widget(
                Paragraph::new(t("align.pick"))
                    .wrap(Wrap { trim: false })
                    .block(Block::default().borders(Borders::ALL)),
                r,
            );
        }
    }

    /// Draws the whole UI.
    pub fn render(&self, f: &mut Frame) {
        let area = f.area();
        let lang = match &self.screen {
            Screen::Ask(a) => a.base().lang,
            Screen::Settled { lang, .. } => *lang,
            _ => self.lang,
        };
        match &self.screen {
            Screen::Inbox => self.render_inbox(f, area),
            Screen::Opening(_) => f.render_widget(Paragraph::new(lang.t("loading")), area),
            Screen::Ask(a) => a.render(f, area),
            Screen::Settled {
                title,
                outcome,
                mine,
                lang,
            } => {
                let heading = if *mine && outcome == "answered" {
                    lang.t("sent").to_string()
                } else {
                    format!("{}: {outcome}", lang.t("outcome"))
                };
                let detail = if *mine {
                    lang.t("sent.detail")
                } else {
                    lang.t("settled.elsewhere")
                };
                let lines = vec![
                    Line::from(Span::styled(
                        title.clone(),
                        Style::default().fg(Color::DarkGray),
                    )),
                    Line::from(""),
                    Line::from(Span::styled(
                        heading,
                        Style::default().add_modifier(Modifier::BOLD),
                    )),
                    Line::from(detail),
                    Line::from(""),
                    Line::from(Span::styled(
                        lang.t("settled.back"),
                        Style::default().fg(Color::DarkGray),
                    )),
                ];
                f.render_widget(Paragraph::new(lines).wrap(Wrap { trim: false }), area);
            }
        }
        if self.help {
            let mut keys: Vec<(&str, &str)> = match &self.screen {
                Screen::Ask(a) => a.help(),
                _ => vec![
                    ("↑ ↓ j k", "key.move"),
                    ("Enter", "key.open"),
                    ("z", "key.snooze"),
                    ("M, then 1–4", "key.mode"),
                    ("r", "key.refresh"),
                ],
            };
            keys.push(("?", "help.help"));
            keys.push(("q / Ctrl+C", "help.quit"));
            let mut lines: Vec<Line> = Vec::new();
            if let Screen::Ask(a) = &self.screen
                && let AskScreen::Survey(s) = a.as_ref()
            {
                lines.extend(s.disclosure());
            }
            for (k, label) in keys {
                lines.push(Line::from(vec![
                    Span::styled(format!("{k:>14}  "), Style::default().fg(Color::Yellow)),
                    Span::raw(lang.t(label)),
                ]));
            }
            let r = popup(area, 90, lines.len() as u16 + 2);
            f.render_widget(Clear, r);
            f.render_widget(
                Paragraph::new(lines).wrap(Wrap { trim: false }).block(
                    Block::default()
                        .borders(Borders::ALL)
                        .title(lang.t("help.title")),
                ),
                r,
            );
        }
    }
}

fn inbox_request() -> Request {
    Request::get("/api/asks?state=pending&limit=500", Purpose::Inbox)
}

fn alignment_request(session: &str) -> Request {
    Request::get(
        format!("/api/sessions/{}/alignment", seg(session)),
        Purpose::Alignment(session.to_string()),
    )
}

/// The pending asks grouped by session (sessions in the order of their newest ask), newest
/// first within each.
fn parse_inbox(body: &Value) -> Vec<InboxRow> {
    let rows: Vec<InboxRow> = body["asks"]
        .as_array()
        .map(|asks| {
            asks.iter()
                .map(|a| InboxRow {
                    id: a["id"].as_str().unwrap_or_default().to_string(),
                    session: a["session_id"].as_str().unwrap_or_default().to_string(),
                    client: a["client"].as_str().unwrap_or_default().to_string(),
                    workspace: a["workspace"].as_str().map(str::to_string),
                    kind: a["kind"].as_str().unwrap_or_default().to_string(),
                    title: a["title"].as_str().unwrap_or_default().to_string(),
                    created_at: a["created_at"].as_str().unwrap_or_default().to_string(),
                    expires_at: a["expires_at"].as_str().map(str::to_string),
                    deferred_until: a["deferred_until"]
                        .as_str()
                        .filter(|u| crate::text::to_come(u))
                        .map(str::to_string),
                    escalated_to: a["escalated_to"].as_str().map(str::to_string),
                    approvals: a["approvals"]["required"]
                        .as_u64()
                        .map(|r| (a["approvals"]["votes"].as_u64().unwrap_or(0), r)),
                })
                .collect()
        })
        .unwrap_or_default();
    // A stable sort by each session's first (newest) position keeps newest-first inside.
    let mut order: Vec<&str> = Vec::new();
    for r in &rows {
        if !order.contains(&r.session.as_str()) {
            order.push(&r.session);
        }
    }
    let rank = |s: &str| order.iter().position(|o| *o == s).unwrap_or(usize::MAX);
    let mut sorted = rows.clone();
    sorted.sort_by_key(|r| rank(&r.session));
    sorted
}

#[cfg(test)]
mod tests {
    use ratatui::Terminal;
    use ratatui::backend::TestBackend;

    use super::*;
    use crate::api::Method;

    fn key(c: KeyCode) -> KeyEvent {
        KeyEvent::new(c, KeyModifiers::NONE)
    }

    fn screen(app: &App) -> String {
        let mut term = Terminal::new(TestBackend::new(100, 30)).unwrap();
        term.draw(|f| app.render(f)).unwrap();
        let buf = term.backend().buffer();
        buf.content
            .chunks(buf.area.width as usize)
            .map(|r| r.iter().map(|c| c.symbol()).collect::<String>())
            .collect::<Vec<_>>()
            .join("\n")
    }

    fn reply(purpose: Purpose, status: u16, body: Value) -> Reply {
        Reply {
            purpose,
            status,
            body,
        }
    }

    /// An App with the ask `view` open.
    fn open(view: Value) -> (App, Vec<Request>) {
        let mut app = App::new(Lang::En);
        let id = view["ask_id"].as_str().unwrap().to_string();
        app.reply(reply(
            Purpose::Inbox,
            200,
            json!({"asks": [{"id": id, "session_id": "s1", "client": "c", "kind": view["kind"],
                "title": "t", "created_at": "2026-01-01T00:00:00Z"}]}),
        ));
        let reqs = app.key(key(KeyCode::Enter));
        assert_eq!(reqs[0].purpose, Purpose::Open(id.clone()));
        let follow = app.reply(reply(Purpose::Open(id), 200, view));
        (app, follow)
    }

    fn drift_view(description: &str) -> Value {
        json!({"ask_id": "d1", "kind": "drift", "state": "pending", "session": "s1",
            "title": description, "drift": {"reason": "behaviour-change", "description": description,
            "options": [{"label": "Web only"}], "baseline": null, "session": {"id": "s1", "client": "c"}}})
    }

    #[test]
    fn the_inbox_key_list_has_one_row_per_key() {
        let mut app = App::new(Lang::En);
        app.reply(reply(Purpose::Inbox, 200, json!({"asks": []})));
        app.key(key(KeyCode::Char('?')));
        let s = screen(&app);
        let row = |k: &str| {
            s.lines()
                .find(|l| l.contains(&format!(" {k}  ")))
                .unwrap_or_else(|| panic!("no row for {k}: {s}"))
                .to_string()
        };
        assert!(row("Enter").contains("open the selected ask"), "{s}");
        assert!(!row("Enter").contains("refresh"), "{s}");
        assert!(row("M, then 1–4").contains("alignment mode"), "{s}");
        assert!(row("r").contains("refresh the list"), "{s}");
    }

    #[test]
    fn the_inbox_groups_asks_by_session_newest_first() {
        let rows = parse_inbox(&json!({"asks": [
            {"id": "3", "session_id": "b"}, {"id": "2", "session_id": "a"}, {"id": "1", "session_id": "b"}
        ]}));
        let ids: Vec<&str> = rows.iter().map(|r| r.id.as_str()).collect();
        assert_eq!(ids, ["3", "1", "2"]);
    }

    #[test]
    fn a_drift_card_has_no_default_action_and_sends_the_picked_one() {
        let (mut app, _) = open(drift_view("Change the API"));
        assert!(app.key(key(KeyCode::Enter)).is_empty());
        assert!(screen(&app).contains("Pick an action first"));
        assert!(app.key(key(KeyCode::Char('1'))).is_empty());
        let reqs = app.key(key(KeyCode::Enter));
        assert_eq!(reqs.len(), 1);
        assert_eq!(reqs[0].method, Method::Post);
        assert_eq!(reqs[0].path, "/api/asks/d1/submit");
        assert_eq!(reqs[0].body, Some(json!({"action": "option", "option": 0})));
        // An option the agent did not give is not selectable.
        assert!(app.key(key(KeyCode::Char('3'))).is_empty());
    }

    #[test]
    fn a_refused_answer_is_shown_next_to_its_field() {
        let (mut app, _) = open(drift_view("Change the API"));
        app.key(key(KeyCode::Char('O')));
        app.key(key(KeyCode::Char('x')));
        app.key(key(KeyCode::Enter));
        let reqs = app.key(key(KeyCode::Enter));
        assert_eq!(reqs[0].body, Some(json!({"action": "other", "text": "x"})));
        app.reply(reply(
            Purpose::Submit("d1".into()),
            422,
            json!({"error": "invalid drift decision", "errors": [
                {"path": "text", "code": "bad", "message": "text is not acceptable"}]}),
        ));
        let s = screen(&app);
        let field = s
            .lines()
            .position(|l| l.contains("Your direction: x"))
            .unwrap();
        let error = s
            .lines()
            .position(|l| l.contains("⚠ text is not acceptable"))
            .unwrap();
        assert_eq!(error, field + 1, "{s}");
        assert!(s.contains("⚠ invalid drift decision"));
    }

    #[test]
    fn not_now_asks_first() {
        let (mut app, _) = open(drift_view("Change the API"));
        assert!(app.key(key(KeyCode::Esc)).is_empty());
        assert!(screen(&app).contains("Not now? The agent will be told"));
        assert!(app.key(key(KeyCode::Char('n'))).is_empty());
        app.key(key(KeyCode::Esc));
        let reqs = app.key(key(KeyCode::Char('y')));
        assert_eq!(reqs[0].body, Some(json!({"action": "dismiss"})));
    }

    #[test]
    fn a_chinese_ask_gets_chinese_labels() {
        let (app, _) = open(drift_view("增加移动端"));
        // A wide character's second cell draws as a blank: compare without blanks.
        let s = screen(&app).replace(' ', "");
        assert!(s.contains("需求偏移") && s.contains("[A]批准此变更"), "{s}");
    }

    #[test]
    fn a_review_submit_names_the_terminal_and_bulk_pass_can_be_undone() {
        let view = json!({"ask_id": "r1", "kind": "review", "state": "pending", "session": "s1",
            "spec": {"title": "R", "items": [
                {"id": "1", "type": "confirm", "title": "a", "group": "G"},
                {"id": "2", "type": "confirm", "title": "b", "group": "G"}]},
            // Each item's verdicts, as the daemon serves them (`review.verdicts`).
            "review": {"lang": "en", "offline": false, "verdicts": {
                "1": ["pass", "fail", "pending"], "2": ["pass", "fail", "pending"]}}});
        let (mut app, _) = open(view);
        let reqs = app.key(key(KeyCode::Char('P')));
        assert_eq!(reqs[0].purpose, Purpose::Autosave("r1".into()));
        assert_eq!(
            reqs[0].body.as_ref().unwrap()["answers"]["2"]["verdict"],
            "pass"
        );
        let reqs = app.key(KeyEvent::new(KeyCode::Char('z'), KeyModifiers::CONTROL));
        assert_eq!(
            reqs[0].body.as_ref().unwrap()["answers"]["2"]["verdict"],
            ""
        );
        app.key(key(KeyCode::Char('1')));
        app.key(key(KeyCode::Char('j')));
        app.key(key(KeyCode::Char('3')));
        let reqs = app.key(KeyEvent::new(KeyCode::Char('s'), KeyModifiers::CONTROL));
        assert_eq!(
            reqs[0].body,
            Some(
                json!({"answers": [{"id": "1", "verdict": "pass"}, {"id": "2", "verdict": "pending"}],
                "surface": "terminal"})
            )
        );
    }

    #[test]
    fn a_survey_waits_for_the_path_before_moving_on() {
        let view = json!({"ask_id": "v1", "kind": "survey", "state": "pending", "session": "s1",
            "spec": {"entry": "q1", "questions": {
                "q1": {"prompt": "One?", "options": [{"key": "a", "label": "A", "next": "q2"}, {"key": "b", "label": "B"}]},
                "q2": {"prompt": "Two?"}}}});
        let (mut app, first) = open(view);
        assert!(matches!(first[0].purpose, Purpose::Path { seq: 0, .. }));
        app.reply(reply(
            first[0].purpose.clone(),
            200,
            json!({"path": ["q1"]}),
        ));
        app.key(key(KeyCode::Enter));
        assert!(screen(&app).contains("One?"));
        let reqs = app.key(key(KeyCode::Char('a')));
        let path = reqs
            .iter()
            .find(|r| matches!(r.purpose, Purpose::Path { .. }))
            .unwrap();
        assert_eq!(
            path.body.as_ref().unwrap()["answers"]["q1"]["selected"],
            json!(["a"])
        );
        // Enter before the new path arrives waits for it, then follows it to q2.
        assert!(app.key(key(KeyCode::Enter)).is_empty());
        app.reply(reply(
            path.purpose.clone(),
            200,
            json!({"path": ["q1", "q2"]}),
        ));
        assert!(screen(&app).contains("Two?"));
    }
}

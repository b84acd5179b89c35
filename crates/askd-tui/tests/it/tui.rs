//! The terminal UI against a real daemon on loopback: asks are created over the HTTP API, the
//! App is driven with key events and drawn into ratatui's `TestBackend`, and each test checks
//! both what the screen shows and what the daemon settled. Every request the App asks for is
//! sent and its reply fed back before the next key, so nothing here depends on timing.

use std::collections::VecDeque;

use askd_daemon::server::{Running, start};
use askd_testkit::server::{MAX_BODY, RELEASE_SCOPE, config};
use askd_tui::{App, Http, Lang, Method, Purpose, Request};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use serde_json::{Value, json};
use tempfile::TempDir;

struct Harness {
    running: Option<Running>,
    _dir: TempDir,
    http: Http,
    app: App,
    term: Terminal<TestBackend>,
}

impl Harness {
    async fn start() -> Harness {
        let dir = TempDir::new().expect("temporary directory");
        let running = start(config(dir.path(), MAX_BODY))
            .await
            .expect("start the daemon");
        let http = Http::new(running.url.clone(), running.token.clone());
        let mut h = Harness {
            running: Some(running),
            _dir: dir,
            http,
            app: App::new(Lang::En),
            term: Terminal::new(TestBackend::new(110, 40)).expect("test terminal"),
        };
        let first = h.app.start();
        h.pump(first).await;
        h
    }

    async fn stop(mut self) {
        if let Some(r) = self.running.take() {
            r.stop().await;
        }
    }

    /// Sends every request, and every request its reply leads to, in order.
    async fn pump(&mut self, reqs: Vec<Request>) {
        let mut queue: VecDeque<Request> = reqs.into();
        while let Some(r) = queue.pop_front() {
            let reply = self.http.send(&r).await;
            queue.extend(self.app.reply(reply));
        }
    }

    async fn press(&mut self, code: KeyCode) {
        self.chord(code, KeyModifiers::NONE).await;
    }

    async fn chord(&mut self, code: KeyCode, mods: KeyModifiers) {
        let reqs = self.app.key(KeyEvent::new(code, mods));
        self.pump(reqs).await;
    }

    async fn type_text(&mut self, text: &str) {
        for c in text.chars() {
            self.press(KeyCode::Char(c)).await;
        }
    }

    /// A refresh: the poll the event loop runs every few seconds.
    async fn refresh(&mut self) {
        let reqs = self.app.tick();
        self.pump(reqs).await;
    }

    /// The screen as text, one line per row.
    fn screen(&mut self) -> String {
        self.term.draw(|f| self.app.render(f)).expect("draw");
        let buf = self.term.backend().buffer();
        let width = buf.area.width as usize;
        buf.content
            .chunks(width)
            .map(|row| row.iter().map(|c| c.symbol()).collect::<String>())
            .collect::<Vec<_>>()
            .join("\n")
    }

    #[track_caller]
    fn shows(&mut self, text: &str) {
        let s = self.screen();
        assert!(s.contains(text), "the screen lacks {text:?}:\n{s}");
    }

    async fn api(&self, method: Method, path: &str, body: Option<Value>) -> (u16, Value) {
        let r = self
            .http
            .send(&Request {
                method,
                path: path.to_string(),
                body,
                purpose: Purpose::Inbox,
            })
            .await;
        (r.status, r.body)
    }

    async fn create(&self, kind: &str, session: Option<&str>, args: Value) -> String {
        let mut body = json!({"kind": kind, "args": args});
        if let Some(s) = session {
            body["session"] = json!(s);
        }
        let (status, v) = self.api(Method::Post, "/api/asks", Some(body)).await;
        assert!(status == 201, "create {kind}: {status} {v}");
        v["ask_id"].as_str().unwrap().to_string()
    }

    async fn view(&self, id: &str) -> Value {
        self.api(Method::Get, &format!("/api/asks/{id}"), None)
            .await
            .1
    }

    async fn session(&self, client: &str) -> String {
        let (_, v) = self
            .api(
                Method::Post,
                "/api/sessions",
                Some(json!({"client": client})),
            )
            .await;
        v["session"]["id"].as_str().unwrap().to_string()
    }

    /// Opens the ask `id` from the inbox.
    async fn open(&mut self, id: &str) {
        self.refresh().await;
        let at = self
            .app
            .inbox()
            .iter()
            .position(|r| r.id == id)
            .expect("the ask is in the inbox");
        for _ in 0..self.app.inbox().len() {
            self.press(KeyCode::Up).await;
        }
        for _ in 0..at {
            self.press(KeyCode::Down).await;
        }
        self.press(KeyCode::Enter).await;
        assert_eq!(self.app.open_ask(), Some(id));
    }
}

#[tokio::test]
async fn a_questions_ask_is_answered_in_the_terminal() {
    let mut h = Harness::start().await;
    let id = h
        .create(
            "questions",
            None,
            json!({"questions": [
                {"id": "db", "question": "Which database?", "header": "Storage", "options": [
                    {"label": "SQLite (Recommended)", "description": "embedded"},
                    {"label": "PostgreSQL"}]},
                {"id": "name", "question": "What name?"}
            ]}),
        )
        .await;
    h.refresh().await;
    h.shows("[Questions]");
    h.open(&id).await;
    h.shows("Which database?");
    h.shows("1 ( ) SQLite (Recommended)");
    h.shows("Tab: type your own");
    // An empty submit is refused locally.
    h.press(KeyCode::Enter).await;
    h.shows("Answer at least one question first.");
    h.press(KeyCode::Char('2')).await;
    h.shows("2 (•) PostgreSQL");
    // The draft is on the daemon: a browser would open with PostgreSQL chosen.
    let v = h.view(&id).await;
    assert_eq!(
        v["autosave"]["answers"]["db"]["selected"],
        json!(["PostgreSQL"])
    );
    // Down to the second question's free-text row and type into it.
    for _ in 0..3 {
        h.press(KeyCode::Down).await;
    }
    h.press(KeyCode::Tab).await;
    h.type_text("askd").await;
    h.press(KeyCode::Enter).await;
    h.shows("Other: askd");
    h.press(KeyCode::Enter).await;
    h.shows("Sent");
    let v = h.view(&id).await;
    assert_eq!(
        (&v["state"], &v["outcome"]),
        (&json!("settled"), &json!("answered")),
        "{v}"
    );
    let result = v["result"].to_string();
    assert!(
        result.contains("PostgreSQL") && result.contains("askd"),
        "{result}"
    );
    // The result says where the human answered.
    assert_eq!(v["result"]["surface"], "terminal", "{v}");
    h.stop().await;
}

#[tokio::test]
async fn a_survey_branch_is_answered_through_the_live_path() {
    let mut h = Harness::start().await;
    let args: Value = serde_json::from_str(RELEASE_SCOPE).unwrap();
    let id = h.create("survey", None, args).await;
    h.open(&id).await;
    h.shows("Three decisions for the 2.0 release.");
    h.shows("Enter: start");
    h.press(KeyCode::Enter).await;
    h.shows("Which direction fits the 2.0 release?");
    h.shows("a ( ) Ship the public API ★");
    // Option b branches to `core`: the daemon's path says so.
    h.press(KeyCode::Char('b')).await;
    h.shows("b (•) Rework the core first");
    let v = h.view(&id).await;
    assert_eq!(v["autosave"]["answers"]["scope"]["selected"], json!(["b"]));
    h.press(KeyCode::Enter).await;
    h.shows("Which core module is reworked first?");
    h.shows("[2/3]");
    // A free-text page: Enter opens the field, Enter leaves it, Enter goes on.
    h.press(KeyCode::Enter).await;
    h.type_text("the store").await;
    h.press(KeyCode::Enter).await;
    h.press(KeyCode::Enter).await;
    h.shows("What must be true before shipping?");
    h.shows("Enter: submit");
    // Back and forth keeps the answers.
    h.press(KeyCode::Left).await;
    h.shows("Other: the store");
    h.press(KeyCode::Enter).await;
    h.press(KeyCode::Char('a')).await;
    h.press(KeyCode::Char('c')).await;
    h.shows("c [x] Migration guide");
    h.press(KeyCode::Enter).await;
    h.shows("Sent");
    let v = h.view(&id).await;
    assert_eq!(
        (&v["state"], &v["outcome"]),
        (&json!("settled"), &json!("answered")),
        "{v}"
    );
    let record = &v["result"];
    assert_eq!(record["path"], json!(["scope", "core", "ship"]), "{record}");
    // Where the answer came from, as for questions and reviews (issue 28 §5).
    assert_eq!(record["surface"], "terminal", "{record}");
    h.stop().await;
}

#[tokio::test]
async fn a_review_offers_the_verdicts_the_daemon_serves() {
    let mut h = Harness::start().await;
    let id = h
        .create(
            "review",
            None,
            json!({"title": "Ratings", "items": [
                {"id": 1, "type": "scale", "label": "Zero to three", "min": 0, "max": 3},
                {"id": 2, "type": "bool", "label": "Ship it"}
            ]}),
        )
        .await;
    h.open(&id).await;
    // The scale's values are the daemon's (`review.verdicts`), 0 included, and its digit
    // is the value itself.
    h.shows("[0] [1] [2] [3]");
    h.press(KeyCode::Char('0')).await;
    h.press(KeyCode::Char('9')).await; // not a value of this scale: nothing changes
    h.press(KeyCode::Char('j')).await;
    h.shows("[1 Yes] [2 No]");
    h.press(KeyCode::Char('2')).await;
    h.press(KeyCode::Esc).await;
    let v = h.view(&id).await;
    assert_eq!(v["autosave"]["answers"]["1"]["verdict"], "0", "{v}");
    assert_eq!(v["autosave"]["answers"]["2"]["verdict"], "no", "{v}");
    h.stop().await;
}

#[tokio::test]
async fn a_review_is_submitted_with_surface_terminal() {
    let mut h = Harness::start().await;
    let id = h
        .create(
            "review",
            None,
            json!({"title": "Acceptance", "items": [
                {"id": 1, "type": "confirm", "title": "Copy copies the full path", "group": "Copy"},
                {"id": 2, "type": "confirm", "title": "Copy shows a toast", "group": "Copy"},
                {"id": 3, "type": "confirm", "title": "Copy works offline", "group": "Copy"},
                {"id": 4, "type": "bool", "label": "Keep the gateway resident", "boolDesc": "Accept"},
                {"id": 5, "type": "choice", "label": "Connection mode",
                 "options": [{"v": "A", "t": "Direct"}, {"v": "B", "t": "Via subagent"}]},
                {"id": 6, "type": "scale", "label": "Overall rating", "min": 1, "max": 5},
                {"id": 7, "type": "text", "label": "Anything off?"}
            ]}),
        )
        .await;
    h.open(&id).await;
    h.shows("── Copy 0/3");
    h.shows("[1 Pass] [2 Fail] [3 Pending]");
    // Item 1 fails, with a note.
    h.press(KeyCode::Char('2')).await;
    h.press(KeyCode::Char('n')).await;
    h.type_text("only the name").await;
    h.press(KeyCode::Enter).await;
    // Pass the group: askd asks before it overwrites the Fail; pass the rest only.
    h.press(KeyCode::Char('P')).await;
    h.shows("Some items in this group are marked Fail.");
    h.press(KeyCode::Char('r')).await;
    h.shows("2 items set to Pass");
    h.shows("── Copy 3/3");
    for _ in 0..3 {
        h.press(KeyCode::Char('j')).await;
    }
    h.press(KeyCode::Char('1')).await; // bool: Yes
    h.press(KeyCode::Char('j')).await;
    h.press(KeyCode::Char('2')).await; // choice: B
    h.press(KeyCode::Char('j')).await;
    h.press(KeyCode::Right).await; // scale: 1
    h.press(KeyCode::Right).await; // scale: 2
    h.press(KeyCode::Char('j')).await;
    // A blank text item: the submit asks first; "n" keeps the review open.
    h.chord(KeyCode::Char('s'), KeyModifiers::CONTROL).await;
    h.shows("Some items have no answer. Send anyway?");
    h.press(KeyCode::Char('n')).await;
    h.press(KeyCode::Char('n')).await;
    h.type_text("the icon flickers").await;
    h.press(KeyCode::Esc).await;
    // The draft reached the daemon in the panel's shape.
    let v = h.view(&id).await;
    assert_eq!(v["autosave"]["answers"]["1"]["verdict"], "fail", "{v}");
    h.chord(KeyCode::Char('s'), KeyModifiers::CONTROL).await;
    h.shows("Sent");
    let v = h.view(&id).await;
    assert_eq!(
        (&v["state"], &v["outcome"]),
        (&json!("settled"), &json!("answered")),
        "{v}"
    );
    let r = &v["result"];
    assert_eq!(r["surface"], "terminal", "{r}");
    let verdicts: Vec<(String, String)> = r["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| {
            (
                i["verdict"].as_str().unwrap_or_default().to_string(),
                i["note"].as_str().unwrap_or_default().to_string(),
            )
        })
        .collect();
    assert_eq!(verdicts[0], ("fail".into(), "only the name".into()));
    assert_eq!(verdicts[1].0, "pass");
    assert_eq!(verdicts[2].0, "pass");
    assert_eq!(verdicts[3].0, "yes");
    assert_eq!(verdicts[4].0, "B");
    assert_eq!(verdicts[5].0, "2");
    assert_eq!(verdicts[6].1, "the icon flickers");
    assert_eq!(r["summary"]["filled"], 7);
    h.stop().await;
}

/// Reports a drift in a new session and returns `(session, ask id)`.
async fn drift(h: &Harness, description: &str) -> (String, String) {
    let s = h.session("claude-code").await;
    let (_, v) = h
        .api(
            Method::Post,
            &format!("/api/sessions/{s}/alignment/report_drift"),
            Some(
                json!({"args": {"reason": "scope-expansion", "description": description,
                "required_change": "allowed_scope += mobile",
                "options": [{"label": "Web only", "description": "keep the web app"},
                            {"label": "PWA"}]}}),
            ),
        )
        .await;
    (s, v["ask_id"].as_str().expect("a drift card").to_string())
}

#[tokio::test]
async fn drift_cards_are_decided_with_each_action() {
    let mut h = Harness::start().await;
    let cases: [(&str, &[KeyCode], Value); 5] = [
        (
            "approve",
            &[KeyCode::Char('A')],
            json!({"decision": "approve"}),
        ),
        (
            "reject",
            &[KeyCode::Char('K')],
            json!({"decision": "reject"}),
        ),
        (
            "option",
            &[KeyCode::Char('2')],
            json!({"decision": "revise", "choice_source": "option", "choice": "PWA"}),
        ),
        (
            "other",
            &[
                KeyCode::Char('O'),
                KeyCode::Char('n'),
                KeyCode::Char('o'),
                KeyCode::Enter,
            ],
            json!({"decision": "revise", "choice_source": "typed", "choice": "no"}),
        ),
        ("dismiss", &[KeyCode::Esc, KeyCode::Char('y')], json!({})),
    ];
    for (name, keys, expect) in cases {
        let (_, ask) = drift(&h, &format!("Add a mobile app ({name})")).await;
        h.open(&ask).await;
        h.shows("Requirement drift");
        h.shows("Scope expansion");
        h.shows("Required change to the baseline:");
        h.shows("No baseline recorded yet");
        h.shows("1 ( ) Web only");
        h.shows("[A] Approve this change");
        h.shows("[K] Keep the current baseline");
        h.shows("[O] Another direction…");
        h.shows("[Esc] Not now");
        // No default action: Enter alone sends nothing.
        h.press(KeyCode::Enter).await;
        h.shows("Pick an action first");
        for k in keys {
            h.press(*k).await;
        }
        if name != "dismiss" {
            h.press(KeyCode::Char('N')).await;
            h.type_text("fine").await;
            h.press(KeyCode::Enter).await;
            h.press(KeyCode::Enter).await;
        }
        h.shows("Sent");
        let v = h.view(&ask).await;
        assert_ne!(v["state"], "pending", "{name}: {v}");
        let decision = &v["drift"]["decision"];
        if name == "dismiss" {
            assert_eq!(v["result"]["outcome"], "dismissed", "{v}");
        } else {
            for (k, want) in expect.as_object().unwrap() {
                assert_eq!(&decision[k], want, "{name}: {k} in {decision}");
            }
            assert_eq!(decision["note"], "fine", "{name}: {decision}");
        }
        h.press(KeyCode::Enter).await;
    }
    h.stop().await;
}

#[tokio::test]
async fn the_drift_card_refuses_blank_typed_text_before_sending() {
    let mut h = Harness::start().await;
    let (_, ask) = drift(&h, "Add a mobile app").await;
    h.open(&ask).await;
    h.press(KeyCode::Char('O')).await;
    h.type_text("   ").await;
    h.press(KeyCode::Enter).await;
    h.press(KeyCode::Enter).await;
    h.shows("Type the direction (1–2000 characters).");
    assert_eq!(h.view(&ask).await["state"], "pending");
    h.stop().await;
}

#[tokio::test]
async fn the_alignment_line_shows_the_session_and_switches_its_mode() {
    let mut h = Harness::start().await;
    let (s, _) = drift(&h, "Add a mobile app").await;
    h.refresh().await;
    h.shows("mode auto (config) · posture drift-pending · rounds 0 · baseline r0");
    h.press(KeyCode::Char('M')).await;
    h.shows("Alignment mode for this session");
    h.press(KeyCode::Char('2')).await;
    h.shows("mode manual (session)");
    let (_, v) = h
        .api(Method::Get, &format!("/api/sessions/{s}/alignment"), None)
        .await;
    assert_eq!(v["mode"]["effective"], "manual");
    assert_eq!(v["mode"]["set_by"], "human", "{v}");
    h.stop().await;
}

#[tokio::test]
async fn an_ask_settled_elsewhere_closes_here_and_agent_text_cannot_escape() {
    let mut h = Harness::start().await;
    let id = h
        .create(
            "questions",
            None,
            json!({"questions": [{"id": "q", "question": "Pick\u{1b}[2J one\u{1b}]0;pwned\u{7}",
                "options": [{"label": "A\u{1b}[31m"}, {"label": "B"}]}]}),
        )
        .await;
    h.open(&id).await;
    let screen = h.screen();
    assert!(
        !screen.contains('\u{1b}') && !screen.contains('\u{7}'),
        "{screen:?}"
    );
    h.shows("Pick[2J one]0;pwned");
    // Another view answers it; the next poll shows it settled.
    let (status, _) = h
        .api(
            Method::Post,
            &format!("/api/asks/{id}/submit"),
            Some(json!({"answers": [{"id": "q", "selected": ["B"]}]})),
        )
        .await;
    assert_eq!(status, 200);
    h.refresh().await;
    h.shows("This ask was settled elsewhere.");
    h.stop().await;
}

/// The release-scope survey with Markdown prose and a second quick template.
fn desk_survey() -> Value {
    let mut args: Value = serde_json::from_str(RELEASE_SCOPE).unwrap();
    let s = &mut args["survey"];
    s["title"] = json!("Release **scope** (desk)");
    s["intro"] = json!(
        "## Plan\n\nPick the **shape**, see [the guide](https://example.com/g).\n\n- one\n- two"
    );
    s["questions"]["scope"]["prompt"] = json!("Which *direction* fits the `2.0` release?");
    s["quick"].as_array_mut().unwrap().push(
        json!({"key": "fix", "label": "Bug fixes only", "answers": {"scope": {"selected": ["d"]}}}),
    );
    args
}

#[tokio::test]
async fn agent_markdown_reads_as_plain_text_in_the_terminal() {
    let mut h = Harness::start().await;
    let id = h.create("survey", None, desk_survey()).await;
    h.refresh().await;
    h.shows("Release scope (desk)");
    h.open(&id).await;
    h.shows("Plan");
    h.shows("Pick the shape, see the guide (https://example.com/g).");
    h.shows("• one");
    h.shows("• two");
    h.press(KeyCode::Enter).await;
    h.shows("Which direction fits the 2.0 release?");
    let s = h.screen();
    assert!(
        !s.contains("**") && !s.contains("##") && !s.contains('`'),
        "{s}"
    );
    h.stop().await;
}

#[tokio::test]
async fn a_survey_justification_is_typed_with_the_caret_and_submitted() {
    let mut h = Harness::start().await;
    let id = h.create("survey", None, desk_survey()).await;
    h.open(&id).await;
    h.press(KeyCode::Enter).await;
    // W before choosing: says what to do first.
    h.press(KeyCode::Char('W')).await;
    h.shows("Choose this option first, then W to say why.");
    h.press(KeyCode::Char('c')).await;
    h.press(KeyCode::Char('W')).await;
    h.type_text("two café now").await;
    // Four ← put the caret before " now"; Backspace deletes the é (two bytes) before it.
    for _ in 0..4 {
        h.press(KeyCode::Left).await;
    }
    h.press(KeyCode::Backspace).await;
    h.type_text("è").await;
    h.press(KeyCode::Home).await;
    h.press(KeyCode::Delete).await;
    h.press(KeyCode::Char('T')).await;
    h.press(KeyCode::End).await;
    h.type_text("!").await;
    h.shows("why: Two cafè now!▏");
    h.press(KeyCode::Enter).await;
    h.shows("why: Two cafè now!");
    let v = h.view(&id).await;
    assert_eq!(
        v["autosave"]["answers"]["scope"]["justifications"],
        json!({"c": "Two cafè now!"}),
        "{v}"
    );
    // c has no branch: on to ship, pick a.
    h.press(KeyCode::Enter).await;
    h.shows("What must be true before shipping?");
    h.press(KeyCode::Char('a')).await;
    // The Other field edits at the caret too.
    h.press(KeyCode::Tab).await;
    h.type_text("helo").await;
    h.press(KeyCode::Left).await;
    h.type_text("l").await;
    h.shows("Other: hell▏o");
    h.press(KeyCode::Enter).await;
    h.press(KeyCode::Enter).await;
    h.shows("Sent");
    let v = h.view(&id).await;
    let scope = &v["result"]["answers"][0];
    assert_eq!(scope["id"], "scope", "{v}");
    let answer = serde_json::to_string(&v["result"]).unwrap();
    assert!(answer.contains("Two cafè now!"), "{answer}");
    assert!(answer.contains("hello"), "{answer}");
    h.stop().await;
}

#[tokio::test]
async fn a_quick_template_shows_its_answers_and_asks_before_it_submits() {
    let mut h = Harness::start().await;
    let id = h.create("survey", None, desk_survey()).await;
    h.open(&id).await;
    h.shows("Q quick templates");
    h.press(KeyCode::Char('Q')).await;
    h.shows("Quick templates");
    h.shows("a  Public API first");
    h.shows("Which direction fits the 2.0 release? → Ship the public API");
    h.shows("Which API surface is frozen first? → “REST endpoints”");
    h.shows("b  Bug fixes only");
    h.shows("→ Cut scope to bug fixes only");
    h.press(KeyCode::Char('b')).await;
    h.press(KeyCode::Enter).await;
    h.shows("Submit this template's answers and end the survey?");
    // No: nothing is sent.
    h.press(KeyCode::Char('n')).await;
    assert_eq!(h.view(&id).await["state"], "pending");
    h.press(KeyCode::Enter).await;
    h.press(KeyCode::Char('y')).await;
    h.shows("Sent");
    let v = h.view(&id).await;
    assert_eq!(
        (&v["state"], &v["outcome"]),
        (&json!("settled"), &json!("answered")),
        "{v}"
    );
    let result = serde_json::to_string(&v["result"]).unwrap();
    assert!(
        result.contains("fix"),
        "the template's key is recorded: {result}"
    );
    assert_eq!(v["result"]["path"], json!(["scope"]), "{result}");
    assert_eq!(v["result"]["surface"], "terminal", "{result}");
    h.stop().await;
}

/// Issue 32: the terminal's submit carries an idempotency key (the same for the same answers
/// to the same ask), so sending it again — as the UI does after a `503 outcome-unknown` —
/// gets the saved result, where a submit without the key is a 409.
#[tokio::test]
async fn a_repeated_terminal_submit_gets_the_saved_result() {
    let h = Harness::start().await;
    let id = h
        .create(
            "questions",
            None,
            json!({"questions": [{"id": "db", "question": "Which database?", "options": [
                {"label": "SQLite"}, {"label": "PostgreSQL"}]}]}),
        )
        .await;
    let submit = Request::post(
        format!("/api/asks/{id}/submit"),
        json!({"answers": [{"id": "db", "selected": ["SQLite"]}], "surface": "terminal"}),
        Purpose::Submit(id.clone()),
    );
    let first = h.http.send(&submit).await;
    assert_eq!(first.status, 200, "{}", first.body);
    let again = h.http.send(&submit).await;
    assert_eq!(again.status, 200, "{}", again.body);
    assert_eq!(again.body["result"], first.body["result"]);
    let (status, _) = h
        .api(
            Method::Post,
            &format!("/api/asks/{id}/submit"),
            Some(json!({"answers": [{"id": "db", "selected": ["SQLite"]}], "surface": "terminal"})),
        )
        .await;
    assert_eq!(status, 409, "without the key, a second submit is refused");
    h.stop().await;
}

/// Issue 35: an ask with a deadline says when it stops waiting, in the inbox and on its
/// screen, and what happens then (the agent's default, as plain text).
#[tokio::test]
async fn a_deadline_is_shown_in_the_inbox_and_on_the_ask() {
    let mut h = Harness::start().await;
    let args = json!({
        "questions": [{"id": "db", "question": "Which database?",
                       "options": [{"label": "SQLite"}, {"label": "PostgreSQL"}]}],
        "deadline": {"in_s": 1800, "default": {"db": "SQLite"}}
    });
    let id = h.create("questions", None, args).await;
    let at = h.view(&id).await["deadline"]["expires_at"]
        .as_str()
        .unwrap()
        .to_string();
    let shown = format!("{} UTC", at[..16].replace('T', " "));
    h.refresh().await;
    h.shows(&format!("⏱ stops waiting at {shown}"));
    h.open(&id).await;
    h.shows(&format!(
        "⏱ stops waiting at {shown} — then the agent's default applies (db: SQLite)"
    ));
    h.stop().await;
}

/// Snooze (issue 35): `z` on the inbox puts the focused ask off for an hour; the row and the
/// ask's header say until when, and that it can still be answered.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn z_puts_an_ask_off_and_the_inbox_and_the_ask_say_until_when() {
    let mut h = Harness::start().await;
    let args = json!({
        "questions": [{"id": "db", "question": "Which database?",
                       "options": [{"label": "SQLite"}, {"label": "PostgreSQL"}]}]
    });
    let id = h.create("questions", None, args).await;
    h.refresh().await;
    h.press(KeyCode::Char('z')).await;
    let until = h.view(&id).await["deferred_until"]
        .as_str()
        .expect("put off")
        .to_string();
    let shown = format!("{} UTC", until[..16].replace('T', " "));
    h.shows(&format!("⏾ put off until {shown}"));
    h.open(&id).await;
    h.shows(&format!(
        "⏾ put off until {shown} — the agent comes back then; you can still answer now"
    ));
    h.stop().await;
}

/// Escalation (issue 35): an ask nobody answered by its deadline, offered to a member, says
/// so on its inbox row and under its header.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_escalated_ask_says_whom_it_was_offered_to() {
    let mut h = Harness::start().await;
    let (status, body) = h
        .api(Method::Post, "/api/members", Some(json!({"name": "bob"})))
        .await;
    assert_eq!(status, 201, "{body}");
    let args = json!({
        "questions": [{"id": "db", "question": "Which database?",
                       "options": [{"label": "SQLite"}, {"label": "PostgreSQL"}]}],
        "deadline": {"in_s": 1, "then": "escalate", "to": "bob"}
    });
    let id = h.create("questions", None, args).await;
    let until = std::time::Instant::now() + std::time::Duration::from_secs(15);
    while h.view(&id).await["escalated"].is_null() {
        assert!(std::time::Instant::now() < until, "not escalated");
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    h.refresh().await;
    h.shows("⇪ nobody answered by the deadline: offered to bob");
    h.open(&id).await;
    h.shows("⏱ nobody answered by the deadline: offered to bob");
    h.stop().await;
}

/// Approvals (issue 35): an ask that needs two members' votes says how many are in on its
/// inbox row and under its header.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_ask_with_approvals_counts_its_votes_on_its_row() {
    let mut h = Harness::start().await;
    for name in ["alice", "bob"] {
        let (status, body) = h
            .api(Method::Post, "/api/members", Some(json!({"name": name})))
            .await;
        assert_eq!(status, 201, "{body}");
    }
    let args = json!({
        "questions": [{"id": "db", "question": "Which database?",
                       "options": [{"label": "SQLite"}, {"label": "PostgreSQL"}]}],
        "approvals": {"required": 2, "from": ["alice", "bob"]}
    });
    let id = h.create("questions", None, args).await;
    h.refresh().await;
    h.shows("✓ 0/2 approvals");
    h.open(&id).await;
    h.shows("✓ 0 / 2 approvals");
    h.stop().await;
}

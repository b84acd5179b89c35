//! The notifier (`[notify]`) against real receivers: a webhook server on loopback (one
//! route per format, the JSON one answering 500 first) and a session D-Bus started by the
//! test with a fake `org.freedesktop.Notifications` on it. Each new ask gets exactly one
//! message per sink, each reminder one more, a settled ask none; a restart sends at most
//! one catch-up reminder; quiet hours defer; no message carries the token.

use crate::common;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use askd_daemon::config::{NotifyConfig, QuietHours, Span, WebhookConfig, WebhookFormat};
use axum::Router;
use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use common::*;
use serde_json::{Value, json};
use tempfile::TempDir;

/// One request the receiver got.
#[derive(Debug, Clone)]
struct Hit {
    route: String,
    status: u16,
    headers: HashMap<String, String>,
    body: String,
}

#[derive(Clone, Default)]
struct Receiver {
    hits: Arc<Mutex<Vec<Hit>>>,
    /// Routes that answer 500 to their first request.
    fail_first: Arc<Mutex<Vec<String>>>,
}

impl Receiver {
    async fn start(fail_first: &[&str]) -> (Receiver, String) {
        let r = Receiver::default();
        *r.fail_first.lock().unwrap() = fail_first.iter().map(|s| s.to_string()).collect();
        async fn hook(
            State(r): State<Receiver>,
            Path(route): Path<String>,
            headers: HeaderMap,
            body: Bytes,
        ) -> StatusCode {
            let fail = {
                let mut f = r.fail_first.lock().unwrap();
                let hit = f.iter().position(|x| *x == route);
                hit.map(|i| f.remove(i)).is_some()
            };
            let status = if fail { 500 } else { 200 };
            r.hits.lock().unwrap().push(Hit {
                route,
                status,
                headers: headers
                    .iter()
                    .map(|(k, v)| (k.as_str().to_string(), v.to_str().unwrap_or("").to_string()))
                    .collect(),
                body: String::from_utf8_lossy(&body).into_owned(),
            });
            StatusCode::from_u16(status).unwrap()
        }
        let app = Router::new()
            .route("/hook/{route}", axum::routing::post(hook))
            .with_state(r.clone());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        tokio::spawn(async move { axum::serve(listener, app).await });
        (r, url)
    }

    fn hits(&self, route: &str) -> Vec<Hit> {
        let all = self.hits.lock().unwrap();
        all.iter().filter(|h| h.route == route).cloned().collect()
    }

    fn ok(&self, route: &str) -> Vec<Hit> {
        self.hits(route)
            .into_iter()
            .filter(|h| h.status == 200)
            .collect()
    }

    async fn wait_ok(&self, route: &str, n: usize, within: Duration) {
        let until = tokio::time::Instant::now() + within;
        while self.ok(route).len() < n && tokio::time::Instant::now() < until {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
}

fn hooks(base: &str) -> Vec<WebhookConfig> {
    [
        ("j", WebhookFormat::Json),
        ("n", WebhookFormat::Ntfy),
        ("s", WebhookFormat::Slack),
    ]
    .into_iter()
    .map(|(route, format)| WebhookConfig {
        name: format!("{route}-hook"),
        url: format!("{base}/hook/{route}"),
        format,
        member: None,
    })
    .collect()
}

fn notify_config(base: &str, after: u64, every: u64) -> NotifyConfig {
    NotifyConfig {
        after: Span(after),
        remind_every: Span(every),
        before_deadline: Span(0),
        quiet_hours: None,
        desktop: false,
        webhook: hooks(base),
    }
}

async fn start(dir: TempDir, notify: NotifyConfig) -> TestServer {
    let mut cfg = config(dir.path(), MAX_BODY);
    cfg.notify = notify;
    TestServer::start_with(dir, cfg).await
}

const TITLE: &str = "**Ship** the `v2` release?";

async fn ask(s: &TestServer) -> String {
    let session = s.session("codex-test", None).await;
    s.survey_with(Some(&session), &release_scope_titled(TITLE))
        .await
}

/// A receiver whose `bad` route always answers 500, whose `hang` route never answers (until
/// long after the daemon's timeout), and whose `ok` route answers 200; it counts each route's
/// requests.
async fn faulty_receiver() -> (Arc<Mutex<HashMap<String, usize>>>, String) {
    let counts: Arc<Mutex<HashMap<String, usize>>> = Arc::default();
    async fn hook(
        State(counts): State<Arc<Mutex<HashMap<String, usize>>>>,
        Path(route): Path<String>,
    ) -> StatusCode {
        *counts.lock().unwrap().entry(route.clone()).or_default() += 1;
        match route.as_str() {
            "bad" => StatusCode::INTERNAL_SERVER_ERROR,
            "hang" => {
                tokio::time::sleep(Duration::from_secs(120)).await;
                StatusCode::OK
            }
            _ => StatusCode::OK,
        }
    }
    let app = Router::new()
        .route("/hook/{route}", axum::routing::post(hook))
        .with_state(counts.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await });
    (counts, url)
}

/// Issue 32: every sink has its own queue, and a failed attempt waits for its retry outside
/// the sink's slots. With one webhook failing and one hanging, a healthy one still gets each
/// new ask at once (before: all sinks shared 16 delivery slots that a failing delivery held
/// through its retry sleeps, so the healthy webhook got 7 of 24 within 3 s).
#[tokio::test(flavor = "multi_thread")]
async fn a_failing_or_hanging_webhook_does_not_delay_a_healthy_one() {
    let (counts, base) = faulty_receiver().await;
    let webhook = |route: &str| WebhookConfig {
        name: format!("{route}-hook"),
        url: format!("{base}/hook/{route}"),
        format: WebhookFormat::Json,
        member: None,
    };
    let notify = NotifyConfig {
        after: Span(0),
        remind_every: Span(0),
        before_deadline: Span(0),
        quiet_hours: None,
        desktop: false,
        webhook: vec![webhook("bad"), webhook("hang"), webhook("ok")],
    };
    let s = start(TempDir::new().unwrap(), notify).await;
    let session = s.session("codex-test", None).await;
    for i in 0..24 {
        s.survey_with(
            Some(&session),
            &release_scope_titled(&format!("Release {i}")),
        )
        .await;
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let ok = |counts: &Arc<Mutex<HashMap<String, usize>>>| {
        counts.lock().unwrap().get("ok").copied().unwrap_or(0)
    };
    let until = tokio::time::Instant::now() + Duration::from_secs(3);
    while ok(&counts) < 24 && tokio::time::Instant::now() < until {
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(
        ok(&counts),
        24,
        "the healthy webhook within 3 s of the last ask"
    );
    // The failing one was tried for each ask too, and its failures are its own.
    let sinks = s.get("/api/notify").await.expect(200)["sinks"].clone();
    let sink = |name: &str| {
        sinks
            .as_array()
            .unwrap()
            .iter()
            .find(|x| x["name"] == name)
            .cloned()
            .unwrap()
    };
    assert_eq!(sink("ok-hook")["sent"], 24, "{sinks}");
    assert_eq!(sink("ok-hook")["errors"], 0, "{sinks}");
    assert_eq!(sink("ok-hook")["dropped"], 0, "{sinks}");
    assert!(
        sink("bad-hook")["errors"].as_u64().unwrap() >= 24,
        "{sinks}"
    );
    assert_eq!(sink("bad-hook")["sent"], 0, "{sinks}");
    // The hanging one holds at most its own slots.
    let hung = counts.lock().unwrap().get("hang").copied().unwrap_or(0);
    assert!(
        hung <= 4,
        "at most 4 attempts in flight to one sink, got {hung}"
    );
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn one_message_per_new_ask_and_per_reminder_in_each_format_with_retries() {
    let (rx, base) = Receiver::start(&["j"]).await;
    let s = start(TempDir::new().unwrap(), notify_config(&base, 4, 0)).await;
    let id = ask(&s).await;
    // A second ask, settled once its new-ask message is out (an ask settled before the
    // notifier reads it is not announced at all): no reminder follows.
    let other = ask(&s).await;
    let until = tokio::time::Instant::now() + Duration::from_secs(3);
    while ["j", "n", "s"]
        .iter()
        .any(|r| !rx.ok(r).iter().any(|h| h.body.contains(&other)))
        && tokio::time::Instant::now() < until
    {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    s.action(&other, "cancel", &json!({})).await.expect(200);
    for route in ["j", "n", "s"] {
        rx.wait_ok(route, 3, Duration::from_secs(15)).await;
    }
    // Past the reminder's time, and then some: nothing more comes.
    tokio::time::sleep(Duration::from_secs(3)).await;
    let url = format!("{}/a/{id}", s.url);
    for route in ["j", "n", "s"] {
        let ok = rx.ok(route);
        assert_eq!(
            ok.len(),
            3,
            "{route}: two new asks and one reminder: {ok:#?}"
        );
        for h in rx.hits(route) {
            assert!(!h.body.contains(&s.token), "{route} carries the token");
            assert!(
                !h.headers.values().any(|v| v.contains(&s.token)),
                "{route} headers carry the token"
            );
        }
    }
    // The JSON hook: a 500 first, then the retry delivered the same message.
    let j = rx.hits("j");
    assert_eq!(j.len(), 4, "one failed attempt + three deliveries");
    assert_eq!(j[0].status, 500);
    assert!(
        j[1..]
            .iter()
            .any(|h| h.status == 200 && h.body == j[0].body),
        "the retry delivers the same message"
    );
    let bodies: Vec<Value> = rx
        .ok("j")
        .iter()
        .map(|h| serde_json::from_str(&h.body).unwrap())
        .collect();
    let of = |ask: &str, event: &str| {
        bodies
            .iter()
            .filter(|b| b["ask"]["id"] == ask && b["event"] == event)
            .count()
    };
    assert_eq!(of(&id, "ask.created"), 1);
    assert_eq!(of(&id, "ask.reminder"), 1);
    assert_eq!(of(&other, "ask.created"), 1);
    assert_eq!(
        of(&other, "ask.reminder"),
        0,
        "a settled ask is not reminded"
    );
    let first = bodies.iter().find(|b| b["ask"]["id"] == id).unwrap();
    assert_eq!(first["ask"]["title"], "Ship the v2 release?");
    assert_eq!(first["ask"]["who"], "codex-test");
    assert_eq!(first["ask"]["url"], url);
    assert_eq!(first["text"], "codex-test asks: Ship the v2 release?");
    // ntfy: a text body, Title and Click headers.
    let n = rx.ok("n");
    let n_new = n.iter().find(|h| h.body.contains(&url)).unwrap();
    assert!(
        n_new
            .body
            .starts_with("codex-test asks: Ship the v2 release?\n")
    );
    assert_eq!(n_new.headers["click"], url);
    assert!(n_new.headers["title"].starts_with("askd: "));
    assert!(
        n.iter()
            .any(|h| h.body.starts_with("Reminder: codex-test asks:"))
    );
    // Slack: {"text": …} with the link in mrkdwn.
    let sl: Value = serde_json::from_str(&rx.ok("s")[0].body).unwrap();
    assert!(
        sl["text"].as_str().unwrap().contains("|Open in askd>"),
        "{sl}"
    );
    // The failure is visible in the API (Settings, askd doctor), with no URL in it.
    let v = s.get("/api/notify").await.expect(200).clone();
    assert_eq!(v["desktop"]["state"], "off", "{}", v["desktop"]);
    let sinks = v["sinks"].as_array().unwrap();
    let jh = sinks.iter().find(|x| x["name"] == "j-hook").unwrap();
    assert_eq!(jh["errors"], 1);
    assert_eq!(jh["sent"], 3);
    assert_eq!(jh["failed"], 0);
    assert_eq!(jh["lastError"], "HTTP 500");
    assert!(jh["lastErrorAt"].is_string());
    assert_eq!(jh["target"], format!("{base}/…"));
    assert!(
        !v.to_string().contains("/hook/"),
        "no webhook URL in the API: {v}"
    );
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_restart_sends_at_most_one_catch_up_reminder() {
    let (rx, base) = Receiver::start(&[]).await;
    let s = start(TempDir::new().unwrap(), notify_config(&base, 1, 0)).await;
    let _id = ask(&s).await;
    rx.wait_ok("j", 2, Duration::from_secs(10)).await;
    assert_eq!(rx.ok("j").len(), 2, "new + reminder");
    let dir = s.stop().await;
    let s = start(dir, notify_config(&base, 1, 0)).await;
    rx.wait_ok("j", 3, Duration::from_secs(10)).await;
    tokio::time::sleep(Duration::from_secs(3)).await;
    let events: Vec<String> = rx
        .ok("j")
        .iter()
        .map(|h| {
            serde_json::from_str::<Value>(&h.body).unwrap()["event"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect();
    assert_eq!(events, ["ask.created", "ask.reminder", "ask.reminder"]);
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn quiet_hours_defer_messages() {
    use chrono::Timelike;
    let (rx, base) = Receiver::start(&[]).await;
    let now = chrono::Local::now();
    let minute = (now.hour() * 60 + now.minute()) as u16;
    let day = 24 * 60;
    let quiet = QuietHours {
        start: (minute + day - 60) % day,
        end: (minute + 60) % day,
    };
    let mut n = notify_config(&base, 1, 0);
    n.quiet_hours = Some(quiet);
    let s = start(TempDir::new().unwrap(), n).await;
    ask(&s).await;
    tokio::time::sleep(Duration::from_secs(3)).await;
    assert!(rx.hits("j").is_empty(), "nothing is sent in quiet hours");
    let v = s.get("/api/notify").await.expect(200).clone();
    assert_eq!(v["quietHours"], quiet.to_string());
    // The new-ask message and one reminder wait for the end of the quiet hours.
    assert_eq!(v["deferred"], 2, "{v}");
    s.stop().await;
}

/// Issue 32: the end of quiet hours sends one message per ask. A new ask and its reminder,
/// both held by quiet hours, go out as the one "new ask" message (before: both, at once).
/// Waits for the end of a real quiet-hours window (up to a minute).
#[tokio::test(flavor = "multi_thread")]
async fn the_end_of_quiet_hours_sends_one_message_per_ask() {
    use chrono::Timelike;
    let (rx, base) = Receiver::start(&[]).await;
    // Quiet hours that end at the next minute; not in its last seconds (the ask must be
    // created and its reminder due inside them).
    if chrono::Local::now().second() >= 45 {
        let wait = 61 - chrono::Local::now().second();
        tokio::time::sleep(Duration::from_secs(u64::from(wait))).await;
    }
    let now = chrono::Local::now();
    let minute = (now.hour() * 60 + now.minute()) as u16;
    let day = 24 * 60;
    let quiet = QuietHours {
        start: (minute + day - 10) % day,
        end: (minute + 1) % day,
    };
    let mut n = notify_config(&base, 1, 0);
    n.quiet_hours = Some(quiet);
    n.webhook.truncate(1);
    let s = start(TempDir::new().unwrap(), n).await;
    let id = ask(&s).await;
    tokio::time::sleep(Duration::from_secs(3)).await;
    let v = s.get("/api/notify").await.expect(200).clone();
    assert_eq!(
        v["deferred"], 2,
        "the new-ask message and the reminder wait: {v}"
    );
    assert!(rx.hits("j").is_empty());
    let left = 60 - u64::from(chrono::Local::now().second());
    tokio::time::sleep(Duration::from_secs(left + 4)).await;
    let got: Vec<Value> = rx
        .ok("j")
        .iter()
        .map(|h| serde_json::from_str(&h.body).unwrap())
        .filter(|b: &Value| b["ask"]["id"] == id.as_str())
        .collect();
    assert_eq!(got.len(), 1, "one message for the ask: {got:?}");
    assert_eq!(got[0]["event"], "ask.created", "{got:?}");
    s.stop().await;
}

/// The fake notification server: records each `Notify` call's summary and body.
struct FakeNotifications {
    got: Arc<Mutex<Vec<(String, String)>>>,
}

#[zbus::interface(name = "org.freedesktop.Notifications")]
impl FakeNotifications {
    #[allow(clippy::too_many_arguments)]
    async fn notify(
        &self,
        _app_name: String,
        _replaces_id: u32,
        _app_icon: String,
        summary: String,
        body: String,
        _actions: Vec<String>,
        _hints: HashMap<String, zbus::zvariant::OwnedValue>,
        _expire_timeout: i32,
    ) -> u32 {
        self.got.lock().unwrap().push((summary, body));
        1
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn desktop_notifications_over_a_session_bus() {
    let bin = std::path::Path::new("/usr/bin/dbus-daemon");
    if !bin.exists() {
        eprintln!(
            "SKIPPED desktop_notifications_over_a_session_bus: /usr/bin/dbus-daemon is absent"
        );
        return;
    }
    let mut bus = std::process::Command::new(bin)
        .args(["--session", "--nofork", "--print-address=1"])
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("start dbus-daemon");
    let address = {
        use std::io::BufRead;
        let mut line = String::new();
        std::io::BufReader::new(bus.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        line.trim().to_string()
    };
    let got = Arc::new(Mutex::new(Vec::new()));
    let _server = zbus::connection::Builder::address(address.as_str())
        .unwrap()
        .name("org.freedesktop.Notifications")
        .unwrap()
        .serve_at(
            "/org/freedesktop/Notifications",
            FakeNotifications { got: got.clone() },
        )
        .unwrap()
        .build()
        .await
        .expect("own org.freedesktop.Notifications");
    let dir = TempDir::new().unwrap();
    let mut cfg = config(dir.path(), MAX_BODY);
    cfg.notify = NotifyConfig {
        desktop: true,
        ..NotifyConfig::default()
    };
    cfg.dbus_address = Some(address);
    let s = TestServer::start_with(dir, cfg).await;
    ask(&s).await;
    let until = tokio::time::Instant::now() + Duration::from_secs(10);
    while got.lock().unwrap().is_empty() && tokio::time::Instant::now() < until {
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let got = got.lock().unwrap().clone();
    assert_eq!(got.len(), 1, "one notification for one new ask: {got:?}");
    assert_eq!(got[0].0, "askd: a new question for you");
    assert!(
        got[0]
            .1
            .starts_with("codex-test asks: Ship the v2 release?"),
        "{got:?}"
    );
    assert!(!got[0].1.contains(&s.token));
    let v = s.get("/api/notify").await.expect(200).clone();
    assert_eq!(v["desktop"]["active"], true);
    // The state the Settings page words in its language (issue 30 §13).
    assert_eq!(v["desktop"]["state"], "dbus");
    assert_eq!(v["sinks"][0]["sent"], 1);
    s.stop().await;
    let _ = bus.kill();
    let _ = bus.wait();
}

fn setting<'a>(view: &'a Value, name: &str) -> &'a Value {
    view["settings"]
        .as_array()
        .expect("settings list")
        .iter()
        .find(|k| k["key"] == name)
        .unwrap_or_else(|| panic!("{name} in {view}"))
}

fn events_of(rx: &Receiver, route: &str) -> Vec<(String, String)> {
    rx.ok(route)
        .iter()
        .map(|h| {
            let b: Value = serde_json::from_str(&h.body).unwrap();
            (
                b["event"].as_str().unwrap().to_string(),
                b["ask"]["id"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

/// The Settings page's Notifications section: `PUT /api/notify` adds a webhook and sets
/// the reminder time on a running daemon, which uses them at once (no restart), for asks
/// created before the save too; the API never sends a URL back; a reset returns to the
/// configuration (no webhook: nothing more is sent); saved values survive a restart.
#[tokio::test(flavor = "multi_thread")]
async fn settings_saved_from_the_page_take_effect_at_once_and_survive_a_restart() {
    let (rx, base) = Receiver::start(&[]).await;
    let mut cfg = notify_config(&base, 0, 0);
    cfg.webhook.clear();
    let s = start(TempDir::new().unwrap(), cfg.clone()).await;
    let v = s.get("/api/notify").await.expect(200).clone();
    assert_eq!(setting(&v, "after")["layer"], "default");
    assert_eq!(setting(&v, "webhook")["value"], json!([]));
    // An ask from before the save: no sink yet, nothing sent.
    let early = ask(&s).await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(rx.hits("j").is_empty());

    let hook = format!("{base}/hook/j");
    let v = s
        .put(
            "/api/notify",
            &json!({"after": "2s", "webhook": [{"name": "team", "format": "json", "url": hook}]}),
        )
        .await
        .expect(200)
        .clone();
    assert_eq!(setting(&v, "after")["value"], "2s");
    assert_eq!(setting(&v, "after")["layer"], "saved");
    assert_eq!(setting(&v, "after")["config"], "0s");
    assert_eq!(
        setting(&v, "webhook")["value"],
        json!([{"name": "team", "format": "json"}])
    );
    assert_eq!(v["webhooks"][0]["target"], format!("{base}/…"));
    assert!(!v.to_string().contains("/hook/"), "no URL comes back: {v}");
    assert_eq!(v["sinks"][0]["name"], "team");

    // A new ask is announced at once; the early one gets its (now past) reminder.
    let late = ask(&s).await;
    rx.wait_ok("j", 2, Duration::from_secs(10)).await;
    let got = events_of(&rx, "j");
    assert!(
        got.contains(&("ask.created".into(), late.clone())),
        "{got:?}"
    );
    assert!(
        got.contains(&("ask.reminder".into(), early.clone())),
        "{got:?}"
    );
    // The new ask's reminder comes two seconds in.
    rx.wait_ok("j", 3, Duration::from_secs(10)).await;
    assert!(events_of(&rx, "j").contains(&("ask.reminder".into(), late.clone())));

    // Saved again without its URL (the page never has it): the URL is kept.
    s.put(
        "/api/notify",
        &json!({"webhook": [{"name": "team", "format": "slack"}]}),
    )
    .await
    .expect(200);
    let dir = s.stop().await;
    let db = dir.path().join("askd.db");
    let saved = {
        use askd_store::{SettingsStore, Upkeep};
        let store = askd_store::SqliteStore::open(&db).await.unwrap();
        let saved = store.settings().await.unwrap();
        store.close().await;
        saved
    };
    assert_eq!(
        saved["notify.webhook"],
        json!([{"name": "team", "format": "slack", "url": hook}])
    );
    assert_eq!(saved["notify.after"], "2s");

    // A restart with the same configuration: the saved values still apply.
    let s = start(dir, cfg).await;
    let v = s.get("/api/notify").await.expect(200).clone();
    assert_eq!(setting(&v, "webhook")["layer"], "saved");
    assert_eq!(v["sinks"][0]["format"], "slack");
    // Reset both: the configuration's values (no webhook) apply again.
    let v = s
        .put("/api/notify", &json!({"webhook": null, "after": null}))
        .await
        .expect(200)
        .clone();
    assert_eq!(setting(&v, "webhook")["layer"], "default");
    assert_eq!(v["sinks"], json!([]));
    let before = rx.hits("j").len();
    let _quiet = ask(&s).await;
    tokio::time::sleep(Duration::from_secs(1)).await;
    assert_eq!(rx.hits("j").len(), before, "no webhook, no message");
    s.stop().await;
}

/// Wrong values are 422 naming each key with the config's own message; nothing is saved.
#[tokio::test]
async fn bad_notify_settings_are_422_naming_the_key_and_nothing_is_saved() {
    let s = start(TempDir::new().unwrap(), NotifyConfig::default()).await;
    let r = s
        .put(
            "/api/notify",
            &json!({
                "after": "ten minutes",
                "quietHours": "25:00-07:00",
                "webhooks": [],
                "webhook": [{"name": "x", "format": "xml", "url": "https://example.com/h"}],
                "desktop": "yes"
            }),
        )
        .await;
    r.expect(422);
    let errors = r.body["errors"].as_array().unwrap();
    let msg = |path: &str| {
        errors
            .iter()
            .find(|e| e["path"] == path)
            .unwrap_or_else(|| panic!("{path} in {}", r.text))["message"]
            .as_str()
            .unwrap()
            .to_string()
    };
    assert!(msg("after").contains("is not a duration"), "{}", r.text);
    assert!(msg("quietHours").contains("HH:MM-HH:MM"), "{}", r.text);
    assert!(
        msg("webhooks").contains("did you mean \"webhook\""),
        "{}",
        r.text
    );
    assert!(
        msg("webhook").contains("\"xml\" is not allowed"),
        "{}",
        r.text
    );
    assert!(msg("desktop").contains("wrong type"), "{}", r.text);
    // A webhook without a URL and no webhook of that name: the fix is named.
    let r = s
        .put(
            "/api/notify",
            &json!({"webhook": [{"name": "new", "format": "ntfy"}]}),
        )
        .await;
    r.expect(422);
    assert_eq!(r.body["errors"][0]["path"], "webhook/0/url", "{}", r.text);
    let v = s.get("/api/notify").await.expect(200).clone();
    for k in ["after", "quietHours", "webhook", "desktop"] {
        assert_eq!(setting(&v, k)["layer"], "default", "{k}: {v}");
    }
    s.stop().await;
}

/// A notification's link opened from another site arrives without the SameSite=Strict
/// cookie: a 401 page with no data that reloads itself (the reload, from this origin, carries
/// the cookie). Anything else without a token stays the plain JSON 401.
#[tokio::test]
async fn a_link_from_another_site_gets_a_page_that_reloads_itself() {
    use reqwest::Method;
    let s = TestServer::start().await;
    let id = ask(&s).await;
    let nav = |site: &'static str, path: String| {
        s.bare(Method::GET, &path)
            .header("Sec-Fetch-Mode", "navigate")
            .header("Sec-Fetch-Site", site)
    };
    let r = s.send(nav("cross-site", format!("/a/{id}"))).await;
    assert_eq!(r.status, 401);
    assert!(r.header("content-type").unwrap().starts_with("text/html"));
    assert!(r.text.contains(r#"http-equiv="refresh""#), "{}", r.text);
    assert!(!r.text.contains(&id) && !r.text.contains(TITLE));
    for (site, path) in [
        ("same-origin", format!("/a/{id}")),
        ("cross-site", format!("/api/asks/{id}")),
    ] {
        let r = s.send(nav(site, path.clone())).await;
        assert_eq!(r.status, 401, "{site} {path}");
        assert_eq!(r.body["code"], "unauthorized", "{site} {path}: {}", r.text);
    }
    s.stop().await;
}

/// `publicUrl` (issue 17): results link to the ask under it, and a login through it over
/// https gets a `Secure` cookie; a login on the loopback address stays plain.
#[tokio::test]
async fn public_url_shapes_the_links_and_a_login_through_it_gets_a_secure_cookie() {
    use reqwest::Method;
    use reqwest::header::HOST;
    let dir = TempDir::new().unwrap();
    let mut cfg = config(dir.path(), MAX_BODY);
    cfg.public_url = Some("https://askd.example".to_string());
    cfg.allowed_hosts = vec!["askd.example".to_string()];
    let s = TestServer::start_with(dir, cfg).await;
    let r = s.create("survey", None, &release_scope()).await;
    let id = r.expect(201)["ask_id"].as_str().unwrap().to_string();
    assert_eq!(
        r.body["url"],
        format!("https://askd.example/a/{id}"),
        "{}",
        r.text
    );
    assert_eq!(
        s.ask(&id).await["url"],
        format!("https://askd.example/a/{id}")
    );
    let login = |host: String| {
        s.bare(Method::GET, &format!("/?token={}", s.token))
            .header(HOST, host)
    };
    let r = s.send(login("askd.example".to_string())).await;
    assert_eq!(r.status, 303);
    let cookie = r.header("set-cookie").unwrap().to_string();
    assert!(cookie.ends_with("; Secure"), "{cookie}");
    let r = s.send(login(s.host())).await;
    assert_eq!(r.status, 303);
    assert!(!r.header("set-cookie").unwrap().contains("Secure"));
    s.stop().await;
}

/// A member's own webhook (`member`, issue 35) saved again from the Settings page, which
/// neither shows its URL nor edits its member, keeps both.
#[tokio::test(flavor = "multi_thread")]
async fn a_members_webhook_saved_from_the_page_stays_the_members() {
    let (_rx, base) = Receiver::start(&[]).await;
    let mut cfg = notify_config(&base, 0, 0);
    cfg.webhook = vec![WebhookConfig {
        name: "bob-hook".into(),
        url: format!("{base}/hook/j"),
        format: WebhookFormat::Json,
        member: Some("bob".into()),
    }];
    let s = start(TempDir::new().unwrap(), cfg).await;
    let v = s.get("/api/notify").await.expect(200).clone();
    assert_eq!(
        setting(&v, "webhook")["value"],
        json!([{"name": "bob-hook", "format": "json", "member": "bob"}])
    );
    assert_eq!(v["webhooks"][0]["member"], "bob", "the page names it: {v}");
    let v = s
        .put(
            "/api/notify",
            &json!({"webhook": [{"name": "bob-hook", "format": "ntfy"}]}),
        )
        .await
        .expect(200)
        .clone();
    assert_eq!(
        setting(&v, "webhook")["value"],
        json!([{"name": "bob-hook", "format": "ntfy", "member": "bob"}])
    );
    s.stop().await;
}

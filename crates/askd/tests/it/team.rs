//! Team mode end to end (issue 17): several `askd serve` processes on one PostgreSQL
//! database (`databaseUrl`, here through `ASKD_DATABASE_URL`), each with its own data
//! directory. A settle through one daemon wakes a waiter on another (PostgreSQL
//! `LISTEN`/`NOTIFY`), concurrent submits through two daemons settle once, another daemon
//! returns the answer after one is SIGKILLed mid-wait, event streams carry the other
//! daemons' events in commit order, and a database restart loses nothing acknowledged while
//! the daemons answer 503 (never stale state, never a 500) until they are back.

use std::time::{Duration, Instant};

use askd_store::pg_test;
use askd_testkit::serve::{Launch, Serve};
use reqwest::Method;
use serde_json::{Value, json};

type Daemon = Serve;

/// Starts `askd serve` on `database_url` with a data directory of its own.
fn start(database_url: &str) -> Daemon {
    start_with(database_url, &[])
}

/// [`start`] with more environment (configuration keys as `ASKD_*`).
fn start_with(database_url: &str, env: &[(&str, &str)]) -> Daemon {
    Launch::temp_home(env!("CARGO_BIN_EXE_askd"))
        .env("ASKD_DATABASE_URL", database_url)
        .envs(env.iter().copied())
        .start()
}

/// The asks these tests make through a daemon.
trait Asks {
    async fn ask(&self, question: &str) -> String;
    async fn submit(&self, id: &str, choice: &str) -> (u16, Value);
    fn wait(&self, id: &str, timeout_s: u32) -> tokio::task::JoinHandle<(u16, Value, Instant)>;
}

impl Asks for Daemon {
    /// Creates a one-question ask; returns its id.
    async fn ask(&self, question: &str) -> String {
        let args = json!({"questions": [{"id": "db", "question": question, "options": [
            {"label": "SQLite"}, {"label": "PostgreSQL"}
        ]}]});
        let (status, body) = self
            .call(
                Method::POST,
                "/api/asks",
                Some(json!({"kind": "questions", "args": args})),
            )
            .await;
        assert_eq!(status, 201, "{body}");
        body["ask_id"].as_str().unwrap().to_string()
    }

    async fn submit(&self, id: &str, choice: &str) -> (u16, Value) {
        self.call(
            Method::POST,
            &format!("/api/asks/{id}/submit"),
            Some(json!({"answers": [{"id": "db", "selected": [choice]}]})),
        )
        .await
    }

    /// A wait in the background, as `await_answer` does it.
    fn wait(&self, id: &str, timeout_s: u32) -> tokio::task::JoinHandle<(u16, Value, Instant)> {
        let url = format!("{}/api/asks/{id}/wait?timeout_s={timeout_s}", self.url);
        let token = self.token.clone();
        tokio::spawn(async move {
            let r = reqwest::Client::new()
                .get(url)
                .bearer_auth(token)
                .send()
                .await
                .expect("wait answers");
            let status = r.status().as_u16();
            let body = r.json().await.unwrap_or(Value::Null);
            (status, body, Instant::now())
        })
    }
}

/// Until the wait has registered with its daemon's hub (its first store read happens on
/// arrival): a short pause, the same for every round.
async fn settle_in() {
    tokio::time::sleep(Duration::from_millis(150)).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_settle_on_one_daemon_wakes_a_waiter_on_another() {
    let db = pg_test::cluster().database().await;
    let a = start(&db.url);
    let b = start(&db.url);
    let mut wakes = Vec::new();
    for round in 0..20 {
        let id = a.ask(&format!("Which database, round {round}?")).await;
        let waiting = a.wait(&id, 30);
        settle_in().await;
        let (status, body) = b.submit(&id, "PostgreSQL").await;
        let submitted = Instant::now();
        assert_eq!(status, 200, "{body}");
        let (status, result, woke) = waiting.await.unwrap();
        assert_eq!(status, 200, "{result}");
        assert_eq!(result["outcome"], "answered", "{result}");
        assert_eq!(result["answers"][0]["selected"][0], "PostgreSQL");
        wakes.push(woke.saturating_duration_since(submitted));
    }
    wakes.sort();
    let p50 = wakes[wakes.len() / 2];
    let max = wakes[wakes.len() - 1];
    eprintln!(
        "team wake latency (B's submit answered -> A's waiter answered), 20 rounds: p50 {p50:?}, max {max:?}"
    );
    assert!(
        max < Duration::from_secs(5),
        "a waiter woke late: {wakes:?}"
    );
    // Each daemon reads the same truth.
    let mut lists = Vec::new();
    for d in [&a, &b] {
        let (_, list) = d.call(Method::GET, "/api/asks?state=settled", None).await;
        let rows: Vec<(Value, Value)> = list["asks"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| (r["id"].clone(), r["outcome"].clone()))
            .collect();
        lists.push(rows);
    }
    assert_eq!(lists[0].len(), 20, "{lists:?}");
    assert_eq!(lists[0], lists[1]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_submits_on_two_daemons_settle_once() {
    let db = pg_test::cluster().database().await;
    let a = start(&db.url);
    let b = start(&db.url);
    for round in 0..10 {
        let id = a.ask(&format!("Race {round}?")).await;
        let (ra, rb) = tokio::join!(a.submit(&id, "SQLite"), b.submit(&id, "PostgreSQL"));
        let mut statuses = [ra.0, rb.0];
        statuses.sort();
        assert_eq!(statuses, [200, 409], "round {round}: {ra:?} {rb:?}");
        let winner = if ra.0 == 200 { "SQLite" } else { "PostgreSQL" };
        for d in [&a, &b] {
            let (_, ask) = d.call(Method::GET, &format!("/api/asks/{id}"), None).await;
            assert_eq!(ask["state"], "settled");
            assert_eq!(ask["result"]["answers"][0]["selected"][0], winner, "{ask}");
        }
        let (_, records) = b
            .call(Method::GET, "/api/records?kind=questions", None)
            .await;
        let n = records["records"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|r| r["askId"] == id.as_str() || r["ask_id"] == id.as_str())
            .count();
        assert_eq!(n, 1, "one record for {id}: {records}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn after_a_sigkill_mid_wait_another_daemon_returns_the_answer() {
    let db = pg_test::cluster().database().await;
    let mut a = start(&db.url);
    let b = start(&db.url);
    let c = start(&db.url);
    let id = a.ask("Which database, after the crash?").await;
    let waiting = a.wait(&id, 30);
    settle_in().await;
    a.child.kill().unwrap();
    a.child.wait().unwrap();
    let (status, _, _) = waiting.await.unwrap_or((0, Value::Null, Instant::now()));
    assert_ne!(status, 200, "A died before any answer");
    let resumed = c.wait(&id, 30);
    settle_in().await;
    let (status, body) = b.submit(&id, "SQLite").await;
    assert_eq!(status, 200, "{body}");
    let (status, result, _) = resumed.await.unwrap();
    assert_eq!(status, 200, "{result}");
    assert_eq!(result["outcome"], "answered");
    assert_eq!(result["answers"][0]["selected"][0], "SQLite");
    // Delivered once, in the database: the ask is not undelivered on any daemon.
    let (_, ask) = b.call(Method::GET, &format!("/api/asks/{id}"), None).await;
    assert_eq!(ask["state"], "settled", "{ask}");
}

/// B's event stream carries the events committed through A, in commit order.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_event_stream_carries_another_daemons_events_in_order() {
    use futures_util::StreamExt;
    let db = pg_test::cluster().database().await;
    let a = start(&db.url);
    let b = start(&db.url);
    let resp = reqwest::Client::new()
        .get(format!("{}/api/events", b.url))
        .bearer_auth(&b.token)
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status().as_u16(), 200);
    let mut body = resp.bytes_stream();
    let mut ids = Vec::new();
    for i in 0..3 {
        let id = a.ask(&format!("Stream {i}?")).await;
        let (status, _) = a.submit(&id, "SQLite").await;
        assert_eq!(status, 200);
        ids.push(id);
    }
    // Read until the three settles have arrived.
    let mut text = String::new();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    while text.matches("event: ask.settled").count() < 3 {
        let chunk = tokio::time::timeout_at(deadline, body.next())
            .await
            .expect("B's stream carried A's events")
            .unwrap()
            .unwrap();
        text.push_str(&String::from_utf8_lossy(&chunk));
    }
    let seqs: Vec<i64> = text
        .lines()
        .filter_map(|l| l.strip_prefix("id: "))
        .map(|s| s.trim().parse().unwrap())
        .collect();
    assert!(seqs.windows(2).all(|w| w[0] < w[1]), "in order: {seqs:?}");
    let kinds: Vec<&str> = text
        .lines()
        .filter_map(|l| l.strip_prefix("event: "))
        .collect();
    assert_eq!(
        kinds,
        [
            "ask.created",
            "ask.settled",
            "ask.created",
            "ask.settled",
            "ask.created",
            "ask.settled"
        ],
        "{text}"
    );
    for id in &ids {
        assert!(text.contains(id.as_str()), "{id} in {text}");
    }
}

/// Issue 32: a daemon started while its PostgreSQL is down waits for it (`databaseWait`,
/// retrying with a backoff) and serves once it is up; with `databaseWait` 0 it exits at once
/// and says what to do. (Before: it exited at once, whatever the wait.)
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_daemon_started_before_its_database_waits_for_it() {
    let cluster = match pg_test::private() {
        Ok(c) => c,
        Err(e) => panic!("this test stops its own PostgreSQL: {e}"),
    };
    let db = cluster.database().await;
    let url = db.url.clone();
    let cluster = tokio::task::spawn_blocking(move || {
        cluster.stop();
        cluster
    })
    .await
    .unwrap();
    let home = tempfile::tempdir().unwrap();
    let refused = std::process::Command::new(env!("CARGO_BIN_EXE_askd"))
        .args(["serve", "--listen", "127.0.0.1:0"])
        .env("ASKD_HOME", home.path())
        .env("ASKD_DATABASE_URL", &url)
        .env("ASKD_DATABASE_WAIT", "0")
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&refused.stderr);
    assert!(!refused.status.success(), "{said}");
    assert!(
        said.contains("databaseWait"),
        "the refusal names the key: {said}"
    );
    // The default wait: the daemon comes up once the database does, 2 s later.
    let starting = std::thread::spawn(move || {
        Launch::temp_home(env!("CARGO_BIN_EXE_askd"))
            .env("ASKD_DATABASE_URL", &url)
            .start()
    });
    tokio::time::sleep(Duration::from_secs(2)).await;
    let _cluster = tokio::task::spawn_blocking(move || {
        cluster.start_again();
        cluster
    })
    .await
    .unwrap();
    let daemon = tokio::task::spawn_blocking(move || starting.join().unwrap())
        .await
        .unwrap();
    let id = daemon.ask("Up with its database?").await;
    let (status, _) = daemon.submit(&id, "SQLite").await;
    assert_eq!(status, 200);
}

/// PostgreSQL stopped and started again mid-run: the daemons answer 503 while it is away
/// (never a 500, never stale state), reconnect, and nothing acknowledged before it is lost;
/// a waiter registered before the outage is woken by a settle made after it, through the
/// other daemon.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_database_restart_loses_nothing_acknowledged() {
    let cluster = match pg_test::private() {
        Ok(c) => c,
        Err(e) => panic!("this test restarts its own PostgreSQL: {e}"),
    };
    let db = cluster.database().await;
    let a = start(&db.url);
    let b = start(&db.url);
    let before = a.ask("Acknowledged before the restart?").await;
    let waiting = a.wait(&before, 60);
    settle_in().await;

    // Stop PostgreSQL: A must answer 503 database-unavailable (never a 500, never the
    // state it read before) until it is back.
    let cluster = tokio::task::spawn_blocking(move || {
        cluster.stop();
        cluster
    })
    .await
    .unwrap();
    let path = format!("/api/asks/{before}");
    let mut seen = Vec::new();
    let deadline = Instant::now() + Duration::from_secs(10);
    while !seen.iter().any(|(s, _): &(u16, Value)| *s == 503) && Instant::now() < deadline {
        let (status, body) = a.call(Method::GET, &path, None).await;
        seen.push((status, body["code"].clone()));
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let down = a.call(Method::GET, &path, None).await;
    assert_eq!(
        (down.0, &down.1["code"]),
        (503, &json!("database-unavailable")),
        "while the database is down: {seen:?} then {down:?}"
    );
    let created = a
        .call(
            Method::POST,
            "/api/asks",
            Some(json!({"kind": "questions", "args": {"questions": [{"id": "x", "question": "Lost?"}]}})),
        )
        .await;
    assert_eq!(created.0, 503, "nothing is accepted unwritten: {created:?}");
    let _cluster = tokio::task::spawn_blocking(move || {
        cluster.start_again();
        cluster
    })
    .await
    .unwrap();
    // Back: A answers again once it has re-read what it missed.
    let mut back = None;
    for _ in 0..200 {
        let r = a.call(Method::GET, &path, None).await;
        assert!(
            r.0 == 200 || (r.0 == 503 && r.1["code"] == "database-unavailable"),
            "{r:?}"
        );
        if r.0 == 200 {
            back = Some(r.1);
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let ask = back.expect("A is back after the restart");
    assert_eq!(ask["state"], "pending", "{ask}");

    // The ask made before the restart is there, on both daemons; B settles it; A's waiter wakes.
    let mut submitted = None;
    for _ in 0..100 {
        let r = b.submit(&before, "PostgreSQL").await;
        if r.0 != 503 {
            submitted = Some(r);
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let (status, body) = submitted.expect("B is back");
    assert_eq!(status, 200, "{body}");
    let (status, result, _) = waiting.await.unwrap();
    assert_eq!(status, 200, "{result}");
    assert_eq!(result["answers"][0]["selected"][0], "PostgreSQL");
    let after = a.ask("Written after the restart?").await;
    let (status, ask) = b
        .call(Method::GET, &format!("/api/asks/{after}"), None)
        .await;
    assert_eq!((status, &ask["state"]), (200, &json!("pending")), "{ask}");
}

use crate::common_mcp::webhook::receiver;

/// How many messages the receiver got about ask `id`.
fn messages_about(got: &std::sync::Mutex<Vec<String>>, id: &str) -> usize {
    got.lock()
        .unwrap()
        .iter()
        .filter(|b| b.contains(id))
        .count()
}

/// Waits up to `secs` for a first message about ask `id`.
async fn first_message(got: &std::sync::Mutex<Vec<String>>, id: &str, secs: u64) {
    let until = Instant::now() + Duration::from_secs(secs);
    while messages_about(got, id) == 0 && Instant::now() < until {
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Notifications in team mode: two daemons with the same webhook send one message per new
/// ask between them (one notifier per database, behind the lock `notifier`), and when the
/// daemon that sends stops, the other takes over.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_daemons_send_one_message_per_new_ask_and_one_takes_over() {
    let db = pg_test::cluster().database().await;
    let (got, hook) = receiver().await;
    let webhook = format!("json={hook}");
    let env = [
        ("ASKD_NOTIFY_WEBHOOK", webhook.as_str()),
        ("ASKD_NOTIFY_DESKTOP", "false"),
    ];
    let a = start_with(&db.url, &env);
    let b = start_with(&db.url, &env);
    let count = |id: &str| {
        got.lock()
            .unwrap()
            .iter()
            .filter(|b| b.contains(id))
            .count()
    };
    let wait_for = |id: String, n: usize| {
        let got = got.clone();
        async move {
            let until = Instant::now() + Duration::from_secs(15);
            while got
                .lock()
                .unwrap()
                .iter()
                .filter(|b| b.contains(&id))
                .count()
                < n
                && Instant::now() < until
            {
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
        }
    };
    let on_a = a.ask("Asked through A?").await;
    let on_b = b.ask("Asked through B?").await;
    wait_for(on_a.clone(), 1).await;
    wait_for(on_b.clone(), 1).await;
    // Time for a second message, were there one.
    tokio::time::sleep(Duration::from_secs(2)).await;
    assert_eq!(
        (count(&on_a), count(&on_b)),
        (1, 1),
        "{:?}",
        got.lock().unwrap()
    );
    // Whichever daemon sends stops: the other takes the lock and announces the next ask.
    drop(a);
    drop(b);
    let c = start_with(&db.url, &env);
    let d = start_with(&db.url, &env);
    drop(c);
    let later = d.ask("Asked after a daemon left?").await;
    wait_for(later.clone(), 1).await;
    tokio::time::sleep(Duration::from_secs(2)).await;
    assert_eq!(count(&later), 1, "{:?}", got.lock().unwrap());
}

/// Issue 32: the notifier's handover loses no ask. An ask created while the holder could not
/// announce it (here: stopped with SIGSTOP, then SIGKILLed) is announced by the daemon that
/// takes over — from the team's cursor, so once and only once. (Before: the new holder read
/// every pending ask as an old one and sent it only a reminder, `after` later.)
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_notifier_that_takes_over_announces_what_its_predecessor_could_not() {
    let db = pg_test::cluster().database().await;
    let (got, hook) = receiver().await;
    let webhook = format!("json={hook}");
    let env = [
        ("ASKD_NOTIFY_WEBHOOK", webhook.as_str()),
        ("ASKD_NOTIFY_DESKTOP", "false"),
    ];
    let count = |id: &str| messages_about(&got, id);
    // A alone: it holds the notifier lock, and its first announcement moves the cursor.
    let mut a = start_with(&db.url, &env);
    let first = a.ask("Announced by A?").await;
    first_message(&got, &first, 20).await;
    assert_eq!(count(&first), 1);
    let b = start_with(&db.url, &env);
    // A can announce nothing more, yet holds the lock; an ask comes through B meanwhile.
    let pid = a.pid.to_string();
    let stopped = std::process::Command::new("kill")
        .args(["-STOP", &pid])
        .status()
        .unwrap();
    assert!(stopped.success());
    let gap = b.ask("Asked while nobody could announce it?").await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(count(&gap), 0, "A is stopped and B does not hold the lock");
    a.child.kill().unwrap();
    a.child.wait().unwrap();
    // B takes the lock over and announces the ask A could not, once; not the first again.
    first_message(&got, &gap, 20).await;
    tokio::time::sleep(Duration::from_secs(2)).await;
    assert_eq!(
        (count(&first), count(&gap)),
        (1, 1),
        "{:?}",
        got.lock().unwrap()
    );
}

/// A client that does not follow redirects (the pairing form answers `303`).
fn no_redirects() -> reqwest::Client {
    reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap()
}

/// Sends the pairing form of `code` to `d`: the status and the device cookie, if any.
async fn redeem(d: &Daemon, code: &str, name: &str) -> (u16, Option<String>) {
    let r = no_redirects()
        .post(format!("{}/pair/{code}", d.url))
        .header(
            reqwest::header::CONTENT_TYPE,
            "application/x-www-form-urlencoded",
        )
        .body(format!("name={name}"))
        .send()
        .await
        .unwrap();
    let cookie = r
        .headers()
        .get(reqwest::header::SET_COOKIE)
        .and_then(|v| v.to_str().ok())
        .map(|v| v.split(';').next().unwrap_or("").to_string());
    (r.status().as_u16(), cookie)
}

async fn new_code(d: &Daemon) -> String {
    let (status, p) = d.call(Method::POST, "/api/pair", Some(json!({}))).await;
    assert_eq!(status, 200, "{p}");
    p["code"].as_str().unwrap().to_string()
}

/// Pairing codes live in the database: a code made through A is shown and redeemed
/// through B, then refused through A; a code sent to two daemons at once pairs once; and
/// the device paired through B is known to A.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_pairing_code_made_on_one_daemon_pairs_once_on_another() {
    let db = pg_test::cluster().database().await;
    let a = start(&db.url);
    let b = start(&db.url);
    let code = new_code(&a).await;
    let page = reqwest::get(format!("{}/pair/{code}", b.url))
        .await
        .unwrap();
    assert_eq!(page.status().as_u16(), 200, "B shows A's code's form");
    let qr = b
        .call(Method::GET, &format!("/api/pair/{code}/qr.svg"), None)
        .await;
    assert_eq!(qr.0, 200, "B draws A's code");
    let (status, cookie) = redeem(&b, &code, "Bo%27s+phone").await;
    assert_eq!(status, 303, "B redeems A's code");
    let cookie = cookie.expect("the device cookie");
    assert!(cookie.starts_with("askd_device="), "{cookie}");
    // Spent, for every daemon.
    assert_eq!(redeem(&a, &code, "again").await.0, 404);
    assert_eq!(redeem(&b, &code, "again").await.0, 404);
    let page = reqwest::get(format!("{}/pair/{code}", a.url))
        .await
        .unwrap();
    assert_eq!(page.status().as_u16(), 404);

    // One code, two daemons, at once: one pairs, the other is refused.
    for round in 0..5 {
        let code = new_code(if round % 2 == 0 { &a } else { &b }).await;
        let (ra, rb) = tokio::join!(redeem(&a, &code, "race"), redeem(&b, &code, "race"));
        let mut statuses = [ra.0, rb.0];
        statuses.sort();
        assert_eq!(statuses, [303, 404], "round {round}");
    }

    // The device paired through B answers through A (A reloads its devices on B's save).
    let mut kind = Value::Null;
    let until = Instant::now() + Duration::from_secs(10);
    while kind != "device" && Instant::now() < until {
        let r = reqwest::Client::new()
            .get(format!("{}/api/me", a.url))
            .header(reqwest::header::COOKIE, &cookie)
            .send()
            .await
            .unwrap();
        kind = r.json::<Value>().await.unwrap_or(Value::Null)["kind"].clone();
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(kind, "device", "A knows the device paired through B");
    let (_, list) = a.call(Method::GET, "/api/devices", None).await;
    let names: Vec<&str> = list["devices"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|d| d["name"].as_str())
        .collect();
    assert_eq!(
        names.iter().filter(|n| **n == "Bo's phone").count(),
        1,
        "{list}"
    );
    assert_eq!(names.len(), 6, "one device per spent code: {list}");
}

/// A builder skeleton (`survey.md` §10.4 begin / structure): three questions of five options.
fn skeleton() -> Value {
    let keys: Vec<Value> = ["a", "b", "c", "d", "e"]
        .iter()
        .map(|k| json!({"key": k}))
        .collect();
    json!({"entry": "policy", "questions": {
        "policy": {"options": keys, "next": "window"},
        "window": {"options": keys, "next": "comms"},
        "comms": {"options": keys}
    }})
}

/// `POST /api/drafts/set` for `session`; must succeed.
async fn draft_set(d: &Daemon, session: &str, args: Value) -> Value {
    let body = json!({"session": session, "args": args});
    let (status, r) = d.call(Method::POST, "/api/drafts/set", Some(body)).await;
    assert_eq!(status, 200, "{r}");
    r
}

/// Two daemons working on one session's drafts at once (the session's workspace is shared):
/// begins of one title get distinct slugs, and structure edits of one draft — each bumps the
/// revision it read — are serialised across the daemons (no lost update).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_daemons_on_one_draft_at_once_keep_it_whole() {
    let db = pg_test::cluster().database().await;
    let a = start(&db.url);
    let b = start(&db.url);
    let ws = tempfile::tempdir().unwrap();
    let (status, s) = a
        .call(
            Method::POST,
            "/api/sessions",
            Some(json!({"client": "team-test", "workspace": ws.path()})),
        )
        .await;
    assert_eq!(status, 200, "{s}");
    let session = s["session"]["id"].as_str().unwrap().to_string();
    let begin = json!({"op": "begin", "title": "Team draft", "survey": skeleton()});
    let begun = futures_util::future::join_all(
        [&a, &b, &a, &b].map(|d| draft_set(d, &session, begin.clone())),
    )
    .await;
    let mut slugs: Vec<&str> = begun.iter().map(|r| r["slug"].as_str().unwrap()).collect();
    slugs.sort();
    assert_eq!(
        slugs,
        ["team-draft", "team-draft-2", "team-draft-3", "team-draft-4"],
        "one slug per begin"
    );

    let structure = json!({"op": "structure", "slug": "team-draft", "survey": skeleton()});
    let edits = futures_util::future::join_all(
        [&a, &b, &a, &b, &a, &b, &a, &b].map(|d| draft_set(d, &session, structure.clone())),
    )
    .await;
    let mut revisions: Vec<i64> = edits
        .iter()
        .map(|r| r["revision"].as_i64().unwrap())
        .collect();
    revisions.sort();
    assert_eq!(
        revisions,
        (1..=8).collect::<Vec<i64>>(),
        "each edit its own revision"
    );
    let file: Value = serde_json::from_str(
        &std::fs::read_to_string(ws.path().join(".askd/survey-drafts/team-draft.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(file["revision"], 8);
    for d in [&a, &b] {
        let (_, manifest) = d
            .call(Method::GET, &format!("/api/drafts?session={session}"), None)
            .await;
        assert_eq!(
            manifest["drafts"]["team-draft"]["revision"], 8,
            "{manifest}"
        );
    }
}

/// The notifier lock after a database restart: the lock went with its holder's connection,
/// so the holder stops sending and contends again; one daemon of the team (including one
/// started after the restart) sends each new ask's message, once; and when the others
/// leave, the last one sends.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn after_a_database_restart_one_daemon_sends_each_message() {
    let cluster = match pg_test::private() {
        Ok(c) => c,
        Err(e) => panic!("this test restarts its own PostgreSQL: {e}"),
    };
    let db = cluster.database().await;
    let (got, hook) = receiver().await;
    let webhook = format!("json={hook}");
    let env = [
        ("ASKD_NOTIFY_WEBHOOK", webhook.as_str()),
        ("ASKD_NOTIFY_DESKTOP", "false"),
    ];
    let count = |id: &str| messages_about(&got, id);
    let wait_for = |id: String| {
        let got = got.clone();
        async move { first_message(&got, &id, 15).await }
    };
    let a = start_with(&db.url, &env);
    let b = start_with(&db.url, &env);
    let first = a.ask("Before the restart?").await;
    wait_for(first.clone()).await;
    assert_eq!(count(&first), 1);

    let _cluster = tokio::task::spawn_blocking(move || {
        cluster.restart();
        cluster
    })
    .await
    .unwrap();
    for d in [&a, &b] {
        let mut back = false;
        for _ in 0..200 {
            let (status, _) = d
                .call(Method::GET, &format!("/api/asks/{first}"), None)
                .await;
            if status == 200 {
                back = true;
                break;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        assert!(back, "the daemon is back after the restart");
    }
    // A daemon that joins after the restart finds the lock free in the database unless a
    // daemon of the team took it again.
    let c = start_with(&db.url, &env);
    tokio::time::sleep(Duration::from_secs(2)).await;
    let mut asked = Vec::new();
    for (i, d) in [&a, &b, &c].into_iter().enumerate() {
        let id = d
            .ask(&format!("After the restart, through daemon {i}?"))
            .await;
        wait_for(id.clone()).await;
        asked.push(id);
    }
    // Time for a second message, were there one.
    tokio::time::sleep(Duration::from_secs(2)).await;
    let counts: Vec<usize> = asked.iter().map(|id| count(id)).collect();
    assert_eq!(counts, [1, 1, 1], "{:?}", got.lock().unwrap());

    // The others leave: the last one sends.
    drop(a);
    drop(b);
    // The handover: the database releases the leavers' lock when their connections end and
    // c's waiting `pg_advisory_lock` returns. An ask created within those milliseconds is
    // announced from the team's cursor (issue 32; its own test is
    // `the_notifier_that_takes_over_announces_what_its_predecessor_could_not`); this test
    // waits that moment out as before, so it measures the restart, not the handover.
    tokio::time::sleep(Duration::from_secs(3)).await;
    let last = c.ask("After the others left?").await;
    wait_for(last.clone()).await;
    tokio::time::sleep(Duration::from_secs(2)).await;
    assert_eq!(count(&last), 1, "{:?}", got.lock().unwrap());
}

/// Adds a member (or an agent token) through `d`: (id, token).
async fn add_member(d: &Daemon, name: &str, agent: bool) -> (String, String) {
    let (status, b) = d
        .call(
            Method::POST,
            "/api/members",
            Some(json!({"name": name, "agent": agent})),
        )
        .await;
    assert_eq!(status, 201, "{b}");
    (
        b["member"]["id"].as_str().unwrap().to_string(),
        b["token"].as_str().unwrap().to_string(),
    )
}

/// Opens `d`'s event stream with `header`; the open response.
async fn open_events(d: &Daemon, header: (&str, String)) -> reqwest::Response {
    let r = reqwest::Client::new()
        .get(format!("{}/api/events", d.url))
        .header(header.0, header.1)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 200);
    r
}

/// Whether an open response's body ends within `within`.
async fn ends_within(r: reqwest::Response, within: Duration) -> bool {
    use futures_util::StreamExt;
    let mut body = r.bytes_stream();
    let deadline = tokio::time::Instant::now() + within;
    loop {
        match tokio::time::timeout_at(deadline, body.next()).await {
            Err(_) => return false,
            Ok(None) | Ok(Some(Err(_))) => return true,
            Ok(Some(Ok(_))) => {}
        }
    }
}

/// Issue 27 §1 in team mode: a member, an agent token and a phone revoked through daemon A
/// lose their open event streams on daemon B within a second.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn access_1_a_revoke_on_one_daemon_ends_streams_on_every_daemon() {
    let db = pg_test::cluster().database().await;
    let a = start(&db.url);
    let b = start(&db.url);
    let (_, ana) = add_member(&a, "Ana", false).await;
    let (bot_id, bot) = add_member(&a, "ci-bot", true).await;
    let code = new_code(&a).await;
    let (status, phone) = redeem(&a, &code, "phone").await;
    assert_eq!(status, 303);
    let phone = phone.unwrap();
    let ana_stream = open_events(&b, ("cookie", format!("askd_member={ana}"))).await;
    let bot_stream = open_events(&b, ("authorization", format!("Bearer {bot}"))).await;
    let phone_stream = open_events(&b, ("cookie", phone.clone())).await;
    let (_, devices) = a.call(Method::GET, "/api/devices", None).await;
    let device = devices["devices"][0]["id"].as_str().unwrap().to_string();

    for (path, stream) in [
        ("/api/members/Ana".to_string(), ana_stream),
        (format!("/api/members/{bot_id}"), bot_stream),
        (format!("/api/devices/{device}"), phone_stream),
    ] {
        let t = Instant::now();
        let (status, _) = a.call(Method::DELETE, &path, None).await;
        assert_eq!(status, 204);
        assert!(
            ends_within(stream, Duration::from_secs(1)).await,
            "DELETE {path} on A: the stream on B is still open after 1 s"
        );
        eprintln!(
            "DELETE {path} on A: B's stream ended after {:?}",
            t.elapsed()
        );
    }
    let r = reqwest::Client::new()
        .get(format!("{}/api/asks", b.url))
        .header("cookie", phone)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 401);
}

/// Issue 27 §8: a member, an agent token and a phone added through daemon A are let in on
/// daemon B at once (B re-reads before refusing a token it does not know), and a token
/// nobody has is `unknown-member`, not `member-revoked`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn access_8_a_member_added_on_one_daemon_is_let_in_on_another_at_once() {
    let db = pg_test::cluster().database().await;
    let a = start(&db.url);
    let b = start(&db.url);
    let client = reqwest::Client::new();
    for i in 0..10 {
        let (_, token) = add_member(&a, &format!("member {i}"), false).await;
        let r = client
            .get(format!("{}/api/me", b.url))
            .header("cookie", format!("askd_member={token}"))
            .send()
            .await
            .unwrap();
        let status = r.status().as_u16();
        let body: Value = r.json().await.unwrap_or(Value::Null);
        assert_eq!(
            status, 200,
            "member {i} on B right after A added them: {body}"
        );
        assert_eq!(body["kind"], "member");
        let (_, token) = add_member(&a, &format!("agent {i}"), true).await;
        let r = client
            .get(format!("{}/api/asks", b.url))
            .bearer_auth(&token)
            .send()
            .await
            .unwrap();
        assert_eq!(r.status().as_u16(), 200, "agent {i} on B");
        let code = new_code(&a).await;
        let (_, phone) = redeem(&a, &code, &format!("phone{i}")).await;
        let r = client
            .get(format!("{}/api/me", b.url))
            .header("cookie", phone.unwrap())
            .send()
            .await
            .unwrap();
        assert_eq!(r.status().as_u16(), 200, "phone {i} on B");
    }
    let r = client
        .get(format!("{}/api/me", b.url))
        .header("cookie", "askd_member=0000")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 401);
    let body: Value = r.json().await.unwrap();
    assert_eq!(body["code"], "unknown-member");
}

/// A loopback TCP load balancer in front of `daemons` (their base URLs): each connection goes
/// to the first daemon that accepts it, bytes copied both ways. Returns its base URL.
async fn balancer(daemons: Vec<String>) -> (String, tokio::task::JoinHandle<()>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let backends: Vec<String> = daemons
        .iter()
        .map(|u| {
            u.trim_start_matches("http://")
                .trim_end_matches('/')
                .to_string()
        })
        .collect();
    let task = tokio::spawn(async move {
        while let Ok((mut inbound, _)) = listener.accept().await {
            let backends = backends.clone();
            tokio::spawn(async move {
                for b in &backends {
                    if let Ok(mut out) = tokio::net::TcpStream::connect(b).await {
                        let _ = tokio::io::copy_bidirectional(&mut inbound, &mut out).await;
                        return;
                    }
                }
            });
        }
    });
    (format!("http://{addr}"), task)
}

/// Issue 28 §4: a real `askd mcp --url <load balancer>` waits on daemon A; A is SIGKILLed;
/// the human answers through B; the agent's in-flight call returns that answer (the adapter
/// repeats the wait, with backoff, to whichever daemon the balancer reaches).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_remote_wait_survives_its_daemon_behind_a_load_balancer() {
    use crate::common_mcp;
    let db = pg_test::cluster().database().await;
    let mut a = start(&db.url);
    let b = start(&db.url);
    let c = start(&db.url);
    // An agent member's token is known to every daemon on the database.
    let (_, agent_token) = add_member(&a, "ci-agent", true).await;
    let (lb, _lb) = balancer(vec![a.url.clone(), b.url.clone(), c.url.clone()]).await;
    let home = common_mcp::Home::new();
    let file = home.path().join("team.token");
    std::fs::write(&file, format!("{agent_token}\n")).unwrap();
    let file = file.to_string_lossy().into_owned();
    let cmd = home.command(
        env!("CARGO_BIN_EXE_askd"),
        &["mcp", "--url", &lb, "--token-file", &file],
        &[],
    );
    let adapter = common_mcp::Adapter::spawn(cmd, "remote-agent").await;
    let call = adapter
        .start_call(
            "ask_user_question",
            json!({"questions": [{"id": "db", "question": "Which database, behind the balancer?",
                "options": [{"label": "SQLite"}, {"label": "PostgreSQL"}]}]}),
        )
        .await;
    // The ask, seen through B.
    let deadline = Instant::now() + Duration::from_secs(20);
    let id = loop {
        let (_, list) = b.call(Method::GET, "/api/asks?state=pending", None).await;
        if let Some(id) = list["asks"][0]["id"].as_str() {
            break id.to_string();
        }
        assert!(Instant::now() < deadline, "no ask: {list}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    // The wait is on A (the balancer's first choice): kill A under it.
    tokio::time::sleep(Duration::from_millis(500)).await;
    a.child.kill().unwrap();
    a.child.wait().unwrap();
    tokio::time::sleep(Duration::from_millis(300)).await;
    let (status, body) = b.submit(&id, "PostgreSQL").await;
    assert_eq!(status, 200, "{body}");
    let r = tokio::time::timeout(Duration::from_secs(60), common_mcp::finish(call))
        .await
        .expect("the in-flight call returns");
    let sc = common_mcp::structured(&r);
    assert_eq!(sc["outcome"], "answered", "{r}");
    assert_eq!(sc["ask_id"], id.as_str());
    assert_eq!(sc["answers"][0]["selected"], json!(["PostgreSQL"]), "{r}");
    assert!(
        adapter.stderr().is_empty(),
        "stderr stays quiet: {}",
        adapter.stderr()
    );
    drop(adapter);
}

/// Issue 32 (team faults 5): the connection is lost while a submit's `COMMIT` runs (here the
/// server ends that backend while a deferred trigger holds the commit open). askd cannot
/// know whether it was saved: it answers 503 `outcome-unknown` saying a retry is safe, never
/// a plain failure; the retry with the same `Idempotency-Key` settles the ask (or, had the
/// commit landed, returns what was saved), and a repeat of it gets the same result.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_submit_cut_off_during_its_commit_says_retry_is_safe_and_the_retry_settles() {
    let db = pg_test::cluster().database().await;
    let a = start(&db.url);
    let id = a.ask("Cut off while committing?").await;
    db.sql(
        "CREATE FUNCTION slow_commit() RETURNS trigger LANGUAGE plpgsql AS $$
         BEGIN PERFORM pg_sleep(30); RETURN NULL; END $$;
         CREATE CONSTRAINT TRIGGER slow_commit AFTER UPDATE ON asks
         DEFERRABLE INITIALLY DEFERRED FOR EACH ROW WHEN (NEW.state = 'settled')
         EXECUTE FUNCTION slow_commit();",
    )
    .await;
    let submit = |key: &'static str| {
        let url = format!("{}/api/asks/{id}/submit", a.url);
        let token = a.token.clone();
        async move {
            let r = reqwest::Client::new()
                .post(url)
                .bearer_auth(token)
                .header("Idempotency-Key", key)
                .json(&json!({"answers": [{"id": "db", "selected": ["PostgreSQL"]}]}))
                .send()
                .await
                .expect("submit answers");
            let status = r.status().as_u16();
            (status, r.json::<Value>().await.unwrap_or(Value::Null))
        }
    };
    let cut = tokio::spawn(submit("retry-1"));
    // The commit is held open by the trigger: end that backend.
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let ended = db
            .sql(
                "SELECT pg_terminate_backend(pid)::text FROM pg_stat_activity
                 WHERE datname = current_database() AND query = 'COMMIT' AND state = 'active'",
            )
            .await;
        if ended.iter().any(|t| t == "true") {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the submit never reached its COMMIT"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let (status, body) = cut.await.unwrap();
    assert_eq!(status, 503, "{body}");
    assert_eq!(body["code"], "outcome-unknown", "{body}");
    assert!(
        body["message"]
            .as_str()
            .unwrap()
            .contains("Retrying is safe"),
        "{body}"
    );
    db.sql("DROP TRIGGER slow_commit ON asks").await;
    // Here the server rolled it back: the retry settles it.
    let (_, ask) = a.call(Method::GET, &format!("/api/asks/{id}"), None).await;
    assert_eq!(ask["state"], "pending", "{ask}");
    let (status, first) = submit("retry-1").await;
    assert_eq!(status, 200, "{first}");
    assert_eq!(first["result"]["answers"][0]["selected"][0], "PostgreSQL");
    let (status, again) = submit("retry-1").await;
    assert_eq!(status, 200, "a repeat of the settling submit: {again}");
    assert_eq!(again["result"], first["result"]);
    let (status, _) = submit("another-key").await;
    assert_eq!(status, 409);
}

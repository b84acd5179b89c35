//! Saved settings over the daemon's HTTP API (`review.md` §7.2–§7.3): `GET /api/settings`
//! and `PUT /api/settings` on a real daemon with a real SQLite file and a real `askd.toml`.
//! A save keeps only the keys sent, never writes the config file, takes effect at once (new
//! reviews see the new caps, bodies the new limit), survives a restart, and a reset returns
//! the key to the configuration's value. Bad values are 422 naming the key and its range;
//! the route sits behind the same fence as every other.

use crate::common;

use std::time::Duration;

use askd_daemon::config::{Env, Paths, load_with_origins};
use common::*;
use reqwest::Method;
use reqwest::header::{CONTENT_TYPE, HOST, ORIGIN};
use serde_json::{Value, json};
use tempfile::TempDir;

const CONFIG_TEXT: &str = "# askd configuration, kept by hand\n\
maxWait = 30 # seconds\n\
\n\
[batch_review]\n\
# reviews above this are split by the agent\n\
maxItems = 40\n\
";

/// A daemon whose configuration comes from a real `askd.toml` in its home (with comments)
/// plus an env variable, resolved by the config module as `askd serve` does.
async fn start_configured(dir: TempDir) -> TestServer {
    let paths = Paths::in_home(dir.path());
    let text = std::fs::read_to_string(&paths.config_file).ok();
    let env: Env = [(
        "ASKD_BATCH_REVIEW_VIRTUAL_THRESHOLD".to_string(),
        "300".to_string(),
    )]
    .into_iter()
    .collect();
    let (cfg, origins) = load_with_origins(&paths, text.as_deref(), &env, &[]).expect("config");
    let mut serve = config(dir.path(), MAX_BODY);
    serve.max_items = cfg.batch_review.max_items as usize;
    serve.virtual_threshold = cfg.batch_review.virtual_threshold as usize;
    serve.origins = origins;
    TestServer::start_with(dir, serve).await
}

fn home_with_config() -> TempDir {
    let dir = TempDir::new().expect("temporary directory");
    std::fs::write(dir.path().join("askd.toml"), CONFIG_TEXT).unwrap();
    dir
}

fn key<'a>(view: &'a Value, name: &str) -> &'a Value {
    view["settings"]
        .as_array()
        .expect("settings list")
        .iter()
        .find(|k| k["key"] == name)
        .unwrap_or_else(|| panic!("{name} in {view}"))
}

fn review(n: usize, title: &str) -> Value {
    let items: Vec<Value> = (0..n)
        .map(|i| json!({"title": format!("Check {i}")}))
        .collect();
    json!({"title": title, "items": items})
}

#[tokio::test]
async fn defaults_ranges_and_layers_are_reported() {
    let s = TestServer::start().await;
    let v = s.get("/api/settings").await.expect(200).clone();
    let names: Vec<&str> = v["settings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|k| k["key"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["maxItems", "virtualThreshold", "maxBodyBytes"]);
    let m = key(&v, "maxItems");
    assert_eq!(
        (
            &m["value"],
            &m["default"],
            &m["min"],
            &m["max"],
            &m["layer"]
        ),
        (
            &json!(100),
            &json!(100),
            &json!(1),
            &json!(500),
            &json!("default")
        )
    );
    assert_eq!(m["table"], "batch_review");
    let t = key(&v, "virtualThreshold");
    assert_eq!((&t["min"], &t["max"]), (&json!(50), &json!(2000)));
    let b = key(&v, "maxBodyBytes");
    assert_eq!(b["default"], 67_108_864);
    assert_eq!((&b["min"], &b["max"]), (&json!(1024), &json!(134_217_728)));
    assert_eq!(b["table"], Value::Null);
    assert_eq!(b["unit"], "bytes");
    // The test server runs with a 1 MiB limit from its configuration (not the default).
    assert_eq!(b["value"], MAX_BODY);
    s.stop().await;
}

#[tokio::test]
async fn a_save_keeps_only_the_changed_key_and_never_writes_the_config_file() {
    let s = start_configured(home_with_config()).await;
    let config_file = s.dir.path().join("askd.toml");
    let v = s.get("/api/settings").await.expect(200).clone();
    let m = key(&v, "maxItems");
    assert_eq!((&m["value"], &m["layer"]), (&json!(40), &json!("config")));
    assert_eq!(m["source"]["layer"], "file");
    assert_eq!(
        m["source"]["source"],
        config_file.to_string_lossy().as_ref()
    );
    let t = key(&v, "virtualThreshold");
    assert_eq!((&t["value"], &t["layer"]), (&json!(300), &json!("config")));
    assert_eq!(
        t["source"],
        json!({"layer": "env", "source": "ASKD_BATCH_REVIEW_VIRTUAL_THRESHOLD"})
    );

    let after = s
        .put("/api/settings", &json!({"virtualThreshold": 60}))
        .await;
    let after = after.expect(200);
    let t = key(after, "virtualThreshold");
    assert_eq!(
        (&t["value"], &t["layer"], &t["saved"], &t["config"]),
        (&json!(60), &json!("saved"), &json!(60), &json!(300))
    );
    // The other keys keep their layers: nothing else was saved.
    assert_eq!(key(after, "maxItems")["layer"], "config");
    assert_eq!(key(after, "maxItems")["saved"], Value::Null);
    assert_eq!(key(after, "maxBodyBytes")["saved"], Value::Null);
    // The config file is byte for byte what the user wrote, comments included.
    assert_eq!(std::fs::read_to_string(&config_file).unwrap(), CONFIG_TEXT);
    // A review's page learns the new threshold at its next render.
    let id = s
        .create("review", None, &review(3, "Three"))
        .await
        .expect(201)["ask_id"]
        .as_str()
        .unwrap()
        .to_string();
    assert_eq!(s.ask(&id).await["review"]["virtualThreshold"], 60);
    // The store holds exactly the one key; the config file is still untouched.
    let dir = s.stop().await;
    let saved = saved_rows(&dir.path().join("askd.db")).await;
    assert_eq!(
        Value::Object(saved),
        json!({"batch_review.virtualThreshold": 60})
    );
    assert_eq!(std::fs::read_to_string(&config_file).unwrap(), CONFIG_TEXT);
}

/// The saved settings as the SQLite file holds them (the daemon stopped first).
async fn saved_rows(db: &std::path::Path) -> serde_json::Map<String, Value> {
    use askd_store::{SettingsStore, Upkeep};
    let store = askd_store::SqliteStore::open(db)
        .await
        .expect("open the database");
    let saved = store.settings().await.unwrap();
    store.close().await;
    saved
}

#[tokio::test]
async fn max_items_takes_effect_at_once_and_a_reset_restores_the_config_value() {
    let s = start_configured(home_with_config()).await;
    s.put("/api/settings", &json!({"maxItems": 2}))
        .await
        .expect(200);
    let r = s.create("review", None, &review(3, "Too big")).await;
    r.expect(422);
    assert_eq!(r.error_codes(), ["too_many_items"]);
    assert!(
        r.body["errors"][0]["message"]
            .as_str()
            .unwrap()
            .contains("maxItems is 2"),
        "{}",
        r.text
    );
    s.create("review", None, &review(2, "Fits"))
        .await
        .expect(201);
    // Reset: the saved value goes, the config file's 40 applies again.
    let v = s.put("/api/settings", &json!({"maxItems": null})).await;
    let m = key(v.expect(200), "maxItems");
    assert_eq!((&m["value"], &m["layer"]), (&json!(40), &json!("config")));
    s.create("review", None, &review(3, "Fits now"))
        .await
        .expect(201);
    s.create("review", None, &review(41, "Over the file's cap"))
        .await
        .expect(422);
    s.stop().await;
}

#[tokio::test]
async fn max_body_bytes_takes_effect_at_once_and_survives_a_restart() {
    let s = TestServer::start().await;
    s.put("/api/settings", &json!({"maxBodyBytes": 2048}))
        .await
        .expect(200);
    let big = json!({"title": "Big", "items": [{"title": "One", "detail": "x".repeat(3000)}]});
    let r = s.create("review", None, &big).await;
    r.expect(413);
    assert!(r.text.contains("2048"), "{}", r.text);
    let dir = s.stop().await;
    // After a restart the saved value still applies.
    let s = TestServer::start_in(dir).await;
    let v = s.get("/api/settings").await;
    let b = key(v.expect(200), "maxBodyBytes");
    assert_eq!((&b["value"], &b["layer"]), (&json!(2048), &json!("saved")));
    s.create("review", None, &big).await.expect(413);
    // The limit applies to the settings route too; a small reset still fits.
    s.put("/api/settings", &json!({"maxBodyBytes": null}))
        .await
        .expect(200);
    s.create("review", None, &big).await.expect(201);
    s.stop().await;
}

#[tokio::test]
async fn bad_values_are_422_naming_the_key_and_range_and_nothing_is_saved() {
    let s = TestServer::start().await;
    let r = s
        .put(
            "/api/settings",
            &json!({
                "maxItems": 0,
                "virtualThreshold": 60.5,
                "maxBodyBytes": "64 MiB",
                "allowExternalPersist": true,
                "maxitems": 5,
                "listen": "0.0.0.0:1"
            }),
        )
        .await;
    r.expect(422);
    let errors = r.body["errors"].as_array().unwrap();
    let got: Vec<(&str, &str)> = errors
        .iter()
        .map(|e| (e["path"].as_str().unwrap(), e["code"].as_str().unwrap()))
        .collect();
    assert_eq!(
        got,
        [
            ("maxItems", "out_of_range"),
            ("virtualThreshold", "not_integer"),
            ("maxBodyBytes", "wrong_type"),
            ("allowExternalPersist", "unknown_field"),
            ("maxitems", "unknown_field"),
            ("listen", "unknown_field"),
        ]
    );
    let msg = |i: usize| errors[i]["message"].as_str().unwrap();
    assert_eq!(msg(0), "maxItems must be between 1 and 500 (got 0)");
    assert!(msg(1).contains("between 50 and 2000"), "{}", msg(1));
    assert!(
        msg(2).contains("between 1024 and 134217728 bytes") && msg(2).contains("null to reset"),
        "{}",
        msg(2)
    );
    assert!(msg(3).contains("only in askd.toml"), "{}", msg(3));
    assert!(msg(4).contains("did you mean \"maxItems\""), "{}", msg(4));
    assert!(msg(5).contains("askd.toml"), "{}", msg(5));
    // One good member among bad ones is not saved either: all or nothing.
    let r = s
        .put(
            "/api/settings",
            &json!({"virtualThreshold": 80, "maxItems": 501}),
        )
        .await;
    r.expect(422);
    assert_eq!(r.error_codes(), ["out_of_range"]);
    let v = s.get("/api/settings").await;
    let v = v.expect(200);
    for name in ["maxItems", "virtualThreshold", "maxBodyBytes"] {
        assert_eq!(key(v, name)["layer"], "default", "{name}");
    }
    // Huge and negative numbers are out of range, not a crash.
    for n in [json!(-5), json!(18_446_744_073_709_551_615u64)] {
        let r = s.put("/api/settings", &json!({ "maxItems": n })).await;
        r.expect(422);
        assert_eq!(r.error_codes(), ["out_of_range"]);
    }
    // The edges of the ranges are accepted.
    s.put(
        "/api/settings",
        &json!({"maxItems": 500, "virtualThreshold": 50, "maxBodyBytes": 134_217_728}),
    )
    .await
    .expect(200);
    s.stop().await;
}

#[tokio::test]
async fn a_save_is_announced_on_the_event_stream() {
    let s = TestServer::start().await;
    let mut events = s.events(s.req(Method::GET, "/api/events")).await;
    s.put("/api/settings", &json!({"maxItems": 7}))
        .await
        .expect(200);
    let frame = events
        .next(Duration::from_secs(5))
        .await
        .expect("an event within 5 s");
    assert_eq!(frame.event.as_deref(), Some("settings.updated"));
    assert_eq!(frame.data["set"], json!(["batch_review.maxItems"]));
    s.stop().await;
}

#[tokio::test]
async fn the_settings_routes_sit_behind_the_fence() {
    let s = TestServer::start().await;
    let body = json!({"maxItems": 3});
    // No token: 401, and nothing changes.
    let r = s
        .send(s.bare(Method::PUT, "/api/settings").json(&body))
        .await;
    r.expect(401);
    let r = s.send(s.bare(Method::GET, "/api/settings")).await;
    r.expect(401);
    // A foreign Host or Origin: 403, before the body is looked at.
    let r = s
        .send(
            s.req(Method::PUT, "/api/settings")
                .header(HOST, "evil.example")
                .json(&body),
        )
        .await;
    r.expect(403);
    let r = s
        .send(
            s.req(Method::PUT, "/api/settings")
                .header(ORIGIN, "https://evil.example")
                .json(&body),
        )
        .await;
    r.expect(403);
    // Not JSON: 415; unparseable: 400; not an object: 422; too large: 413.
    let r = s
        .send(
            s.req(Method::PUT, "/api/settings")
                .header(CONTENT_TYPE, "text/plain")
                .body("maxItems=3"),
        )
        .await;
    r.expect(415);
    let r = s
        .send(
            s.req(Method::PUT, "/api/settings")
                .header(CONTENT_TYPE, "application/json")
                .body("{\"maxItems\": "),
        )
        .await;
    r.expect(400);
    s.put("/api/settings", &json!([1, 2])).await.expect(422);
    let huge = json!({"maxItems": 3, "pad": "x".repeat(MAX_BODY + 10)});
    s.put("/api/settings", &huge).await.expect(413);
    // Other methods are 405 in the JSON error shape.
    let r = s
        .send(s.req(Method::POST, "/api/settings").json(&body))
        .await;
    r.expect(405);
    // Nothing above changed anything.
    let v = s.get("/api/settings").await;
    assert_eq!(key(v.expect(200), "maxItems")["layer"], "default");
    // The Settings page itself is served behind the same fence.
    s.send(s.bare(Method::GET, "/settings")).await.expect(401);
    let r = s.get("/settings").await;
    r.expect(200);
    assert!(r.text.contains("<main id=\"app\""), "{}", r.text);
    s.stop().await;
}

//! Paired devices over HTTP on a real daemon and SQLite file: a pairing code is spent once
//! for a device cookie that opens the answering routes and nothing else, survives a
//! restart, and is refused at once when revoked (and after a restart too).

use crate::common;

use common::*;
use reqwest::Method;
use reqwest::header::{CONTENT_TYPE, COOKIE, SET_COOKIE};
use serde_json::json;

async fn pair(s: &TestServer, name: &str) -> (String, String) {
    let p = s.post("/api/pair", &json!({})).await.expect(200).clone();
    let code = p["code"].as_str().unwrap().to_string();
    assert_eq!(p["url"], format!("{}/pair/{code}", s.url));
    assert_eq!(p["expiresInSeconds"], 600);
    let page = s.send(s.bare(Method::GET, &format!("/pair/{code}"))).await;
    assert_eq!(page.status, 200);
    assert!(page.text.contains(&format!("action=\"/pair/{code}\"")));
    let r = s
        .send(
            s.bare(Method::POST, &format!("/pair/{code}"))
                .header(CONTENT_TYPE, "application/x-www-form-urlencoded")
                .body(format!("name={}", name.replace(' ', "+"))),
        )
        .await;
    assert_eq!(r.status, 303, "{}", r.text);
    assert_eq!(r.header("location"), Some("/"));
    let set = r
        .headers
        .get(SET_COOKIE)
        .unwrap()
        .to_str()
        .unwrap()
        .to_string();
    assert!(
        set.contains("HttpOnly") && set.contains("SameSite=Lax"),
        "{set}"
    );
    let cookie = set.split(';').next().unwrap().to_string();
    assert!(cookie.starts_with("askd_device="));
    assert!(!cookie.contains(&s.token));
    (code, cookie)
}

async fn as_device(s: &TestServer, cookie: &str, m: Method, path: &str) -> Resp {
    s.send(s.bare(m, path).header(COOKIE, cookie)).await
}

#[tokio::test(flavor = "multi_thread")]
async fn a_device_answers_only_survives_a_restart_and_is_revoked_at_once() {
    let s = TestServer::start().await;
    let id = s.survey(None).await;
    let (code, cookie) = pair(&s, "My phone").await;
    // The code is spent.
    let again = s
        .send(
            s.bare(Method::POST, &format!("/pair/{code}"))
                .body("name=x"),
        )
        .await;
    assert_eq!(again.status, 404);
    assert_eq!(
        s.send(s.bare(Method::GET, &format!("/pair/{code}")))
            .await
            .status,
        404
    );
    let qr = s.get(&format!("/api/pair/{code}/qr.svg")).await;
    assert_eq!(qr.status, 404, "no QR code for a spent code");

    assert_eq!(
        as_device(&s, &cookie, Method::GET, "/api/asks")
            .await
            .status,
        200
    );
    assert_eq!(
        as_device(&s, &cookie, Method::GET, &format!("/a/{id}"))
            .await
            .status,
        200
    );
    let r = as_device(&s, &cookie, Method::GET, &format!("/api/asks/{id}")).await;
    assert_eq!(r.status, 200);
    // Who it is: the device, with what it may open; the install's token is the install.
    let r = as_device(&s, &cookie, Method::GET, "/api/me").await;
    assert_eq!(r.body["kind"], "device", "{}", r.text);
    assert_eq!(r.body["may"]["settings"], false);
    assert!(r.body["name"].is_string());
    let me = s.get("/api/me").await;
    assert_eq!(me.expect(200)["kind"], "install");
    assert_eq!(me.body["may"]["settings"], true);
    for (m, path) in [
        (Method::GET, "/api/settings"),
        (Method::GET, "/settings"),
        (Method::GET, "/api/devices"),
        (Method::GET, "/api/notify"),
        (Method::PUT, "/api/notify"),
        (Method::POST, "/api/pair"),
        (Method::GET, "/api/sessions"),
    ] {
        let r = as_device(&s, &cookie, m.clone(), path).await;
        assert_eq!(r.status, 403, "{m} {path}");
        assert_eq!(r.body["code"], "device-scope");
    }
    let r = s
        .send(
            s.bare(Method::POST, &format!("/api/asks/{id}/submit"))
                .header(COOKIE, &cookie)
                .json(&full_answers()),
        )
        .await;
    assert_eq!(r.status, 200, "a device submits: {}", r.text);

    // Durable: a restart keeps the device.
    let dir = s.stop().await;
    let s = TestServer::start_in(dir).await;
    assert_eq!(
        as_device(&s, &cookie, Method::GET, "/api/asks")
            .await
            .status,
        200
    );
    let list = s.get("/api/devices").await.expect(200).clone();
    let devices = list["devices"].as_array().unwrap();
    assert_eq!(devices.len(), 1);
    assert_eq!(devices[0]["name"], "My phone");
    assert!(devices[0]["lastUsedAt"].is_string());
    assert!(devices[0].get("hash").is_none(), "the hash stays inside");
    let device = devices[0]["id"].as_str().unwrap().to_string();

    // Revoked: 401 on the very next request, and after a restart.
    let r = s
        .send(s.req(Method::DELETE, &format!("/api/devices/{device}")))
        .await;
    assert_eq!(r.status, 204);
    let r = as_device(&s, &cookie, Method::GET, "/api/asks").await;
    assert_eq!(r.status, 401);
    assert_eq!(r.body["code"], "device-revoked");
    let r = s
        .send(s.req(Method::DELETE, &format!("/api/devices/{device}")))
        .await;
    assert_eq!(r.status, 404);
    let dir = s.stop().await;
    let s = TestServer::start_in(dir).await;
    assert_eq!(
        as_device(&s, &cookie, Method::GET, "/api/asks")
            .await
            .status,
        401
    );
    assert_eq!(
        s.get("/api/devices").await.expect(200)["devices"],
        json!([])
    );
    s.stop().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn pairing_codes_are_random_and_unknown_ones_fail() {
    let s = TestServer::start().await;
    let a = s.post("/api/pair", &json!({})).await.expect(200).clone();
    let b = s.post("/api/pair", &json!({})).await.expect(200).clone();
    assert_ne!(a["code"], b["code"]);
    let qr = s.get(a["qr"].as_str().unwrap()).await;
    assert_eq!(qr.status, 200);
    assert_eq!(qr.header("content-type"), Some("image/svg+xml"));
    assert!(qr.text.contains("<svg"));
    let bogus = "0123456789abcdef0123456789abcdef";
    assert_eq!(
        s.send(s.bare(Method::GET, &format!("/pair/{bogus}")))
            .await
            .status,
        404
    );
    let r = s
        .send(
            s.bare(Method::POST, &format!("/pair/{bogus}"))
                .body("name=x"),
        )
        .await;
    assert_eq!(r.status, 404);
    assert!(r.headers.get(SET_COOKIE).is_none());
    // Pairing is an admin route: no token, no code.
    assert_eq!(s.send(s.bare(Method::POST, "/api/pair")).await.status, 401);
    // A made-up device cookie is refused.
    let r = as_device(&s, "askd_device=feed", Method::GET, "/api/asks").await;
    assert_eq!(r.status, 401);
    s.stop().await;
}

async fn status(s: &TestServer, code: &str) -> reqwest::StatusCode {
    s.send(s.bare(Method::GET, &format!("/pair/{code}")))
        .await
        .status
}

/// Alone on its SQLite file, a restart voids the outstanding pairing codes (they are kept
/// in the store, for team mode, but not across this daemon's restart); at most 16 are out
/// at once, the oldest going first; the code itself is never stored, only its hash.
#[tokio::test(flavor = "multi_thread")]
async fn a_restart_voids_pairing_codes_and_sixteen_are_out_at_most() {
    let s = TestServer::start().await;
    let mut codes = Vec::new();
    for _ in 0..17 {
        let p = s.post("/api/pair", &json!({})).await.expect(200).clone();
        codes.push(p["code"].as_str().unwrap().to_string());
    }
    assert_eq!(status(&s, &codes[0]).await, 404, "the oldest went first");
    for code in &codes[1..] {
        assert_eq!(status(&s, code).await, 200);
    }
    let dir = s.stop().await;
    let db = std::fs::read(dir.path().join("askd.db")).unwrap_or_default();
    let wal = std::fs::read(dir.path().join("askd.db-wal")).unwrap_or_default();
    for code in &codes {
        let needle = code.as_bytes();
        for bytes in [&db, &wal] {
            assert!(
                !bytes.windows(needle.len()).any(|w| w == needle),
                "the code is not stored"
            );
        }
    }
    let s = TestServer::start_in(dir).await;
    for code in &codes {
        assert_eq!(status(&s, code).await, 404, "a restart voids the codes");
    }
    let r = s
        .send(
            s.bare(Method::POST, &format!("/pair/{}", codes[16]))
                .body("name=x"),
        )
        .await;
    assert_eq!(r.status, 404);
    s.stop().await;
}

/// Issue 27 item 7: a device's name from the pairing form loses its text-direction controls
/// and zero-width characters (a phone's user is not refused: the rest of the name is kept,
/// in NFC); a name with nothing visible left is "Phone".
#[tokio::test(flavor = "multi_thread")]
async fn access_7_device_names_lose_bidi_controls() {
    let s = TestServer::start().await;
    let pair_as = |name: &'static str| {
        let s = &s;
        async move {
            let p = s.post("/api/pair", &json!({})).await.expect(200).clone();
            let code = p["code"].as_str().unwrap().to_string();
            let body: String = url::form_urlencoded::Serializer::new(String::new())
                .append_pair("name", name)
                .finish();
            let r = s
                .send(
                    s.bare(Method::POST, &format!("/pair/{code}"))
                        .header(CONTENT_TYPE, "application/x-www-form-urlencoded")
                        .body(body),
                )
                .await;
            assert_eq!(r.status, 303, "{name:?}: {}", r.text);
            let set = r.headers.get(SET_COOKIE).unwrap().to_str().unwrap();
            set.split(';').next().unwrap().to_string()
        }
    };
    let cookie = pair_as("Ana\u{202e}enohp\u{202c} \u{200b}work").await;
    pair_as("\u{2067}\u{200f}\u{feff}").await;
    pair_as("Zoe\u{308}\u{2066}'s\ttablet\u{2069}").await;
    let devices = s.get("/api/devices").await.expect(200)["devices"].clone();
    let mut names: Vec<&str> = devices
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["name"].as_str().unwrap())
        .collect();
    names.sort();
    assert_eq!(names, ["Anaenohp work", "Phone", "Zo\u{eb}'s tablet"]);
    let me = as_device(&s, &cookie, Method::GET, "/api/me").await;
    assert_eq!(me.expect(200)["name"], "Anaenohp work");
    s.stop().await;
}

//! The daemon's HTTP API as the App sees it: a [`Request`] says what to call and why (its
//! [`Purpose`]), a [`Reply`] brings the status and JSON body back with the same purpose.
//! [`Http`] sends requests with the install's token (`docs/api.md`, the fence), on
//! `askd-client`'s [`askd_client::Client`].

use std::time::Duration;

use serde_json::{Value, json};

/// The HTTP methods the terminal UI uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Method {
    Get,
    Post,
    Put,
}

/// Why a request was sent: routes its reply back to the right part of the App.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Purpose {
    /// `GET /api/asks?state=pending`: the inbox.
    Inbox,
    /// `GET /api/asks/{id}` to open an ask.
    Open(String),
    /// `GET /api/asks/{id}` while it is open: settled elsewhere? another view's draft?
    Recheck(String),
    /// `GET /api/sessions/{id}/alignment`: the alignment line.
    Alignment(String),
    /// `PUT /api/sessions/{id}/alignment/mode`.
    SetMode(String),
    /// `PUT /api/asks/{id}/autosave`.
    Autosave(String),
    /// `POST /api/asks/{id}/path` for the answers as of change number `seq`.
    Path { ask: String, seq: u64 },
    /// `POST /api/asks/{id}/path` for the answers of the quick template `key`.
    QuickPath { ask: String, key: String },
    /// `POST /api/asks/{id}/bank`.
    Bank(String),
    /// `POST /api/asks/{id}/submit`.
    Submit(String),
    /// `POST /api/asks/{id}/cancel`.
    Cancel(String),
    /// `POST /api/asks/{id}/preflight`.
    Preflight(String),
    /// `POST /api/asks/{id}/snooze` from the inbox (`z`: ask me again in an hour).
    Snooze(String),
}

/// One API call the App wants made.
#[derive(Debug, Clone, PartialEq)]
pub struct Request {
    pub method: Method,
    pub path: String,
    pub body: Option<Value>,
    pub purpose: Purpose,
}

impl Request {
    pub fn get(path: impl Into<String>, purpose: Purpose) -> Request {
        Request {
            method: Method::Get,
            path: path.into(),
            body: None,
            purpose,
        }
    }

    pub fn post(path: impl Into<String>, body: Value, purpose: Purpose) -> Request {
        Request {
            method: Method::Post,
            path: path.into(),
            body: Some(body),
            purpose,
        }
    }

    pub fn put(path: impl Into<String>, body: Value, purpose: Purpose) -> Request {
        Request {
            method: Method::Put,
            path: path.into(),
            body: Some(body),
            purpose,
        }
    }
}

/// The daemon's answer. `status` 0 means it did not answer at all (`body.message` says why).
#[derive(Debug, Clone, PartialEq)]
pub struct Reply {
    pub purpose: Purpose,
    pub status: u16,
    pub body: Value,
}

impl Reply {
    pub fn ok(&self) -> bool {
        (200..300).contains(&self.status)
    }

    /// The daemon's message for a failed call (its `error` or `message`), or the status.
    pub fn message(&self) -> String {
        let m = self.body["error"]
            .as_str()
            .or_else(|| self.body["message"].as_str());
        match m {
            Some(m) => crate::text::clean(m),
            None => format!("HTTP {}", self.status),
        }
    }

    /// The `errors[]` of a 422 as `(path, message)`.
    pub fn field_errors(&self) -> Vec<(String, String)> {
        self.body["errors"]
            .as_array()
            .map(|errors| {
                errors
                    .iter()
                    .map(|e| {
                        (
                            e["path"].as_str().unwrap_or_default().to_string(),
                            crate::text::clean_line(e["message"].as_str().unwrap_or_default()),
                        )
                    })
                    .collect()
            })
            .unwrap_or_default()
    }
}

/// A path segment for an id in a URL (askd-client's one encoder).
pub use askd_client::seg;

/// The HTTP client: the daemon's base URL and the install's token.
#[derive(Clone)]
pub struct Http {
    client: askd_client::Client,
}

impl Http {
    pub fn new(base: impl Into<String>, token: impl Into<String>) -> Http {
        let http = reqwest::Client::builder()
            .no_proxy()
            .timeout(Duration::from_secs(30))
            .build()
            .unwrap_or_default();
        Http {
            client: askd_client::Client::with_http(base, token, http),
        }
    }

    pub fn base(&self) -> &str {
        self.client.base()
    }

    /// Sends one request; never fails: a daemon that does not answer is status 0. A submit
    /// carries an idempotency key (the same for the same answers to the same ask), and a
    /// `503 outcome-unknown` — the daemon lost its database while saving it — is repeated
    /// with it a few times, a second apart: the repeat is safe and gets what was saved.
    pub async fn send(&self, req: &Request) -> Reply {
        let mut reply = self.send_once(req).await;
        if matches!(req.purpose, Purpose::Submit(_)) {
            for _ in 0..5 {
                if reply.status != 503 || reply.body["code"] != "outcome-unknown" {
                    break;
                }
                tokio::time::sleep(Duration::from_secs(1)).await;
                reply = self.send_once(req).await;
            }
        }
        reply
    }

    async fn send_once(&self, req: &Request) -> Reply {
        let method = match req.method {
            Method::Get => reqwest::Method::GET,
            Method::Post => reqwest::Method::POST,
            Method::Put => reqwest::Method::PUT,
        };
        let mut builder = self
            .client
            .request(method, &req.path)
            .header("accept", "application/json");
        if let Some(body) = &req.body {
            if matches!(req.purpose, Purpose::Submit(_)) {
                use std::hash::{Hash, Hasher};
                let mut h = std::collections::hash_map::DefaultHasher::new();
                (&req.path, body.to_string()).hash(&mut h);
                builder = builder.header("idempotency-key", format!("tui-{:016x}", h.finish()));
            }
            builder = builder
                .header("content-type", "application/json")
                .body(body.to_string());
        }
        let (status, body) = match self.client.send(builder).await {
            Ok(reply) => (reply.status, reply.body),
            Err(e) => (
                0,
                json!({"message": format!("the daemon at {} did not answer: {e}", self.base())}),
            ),
        };
        Reply {
            purpose: req.purpose.clone(),
            status,
            body,
        }
    }
}

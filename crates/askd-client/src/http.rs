//! The one HTTP client of the daemon's JSON API: the base URL and the install's token on
//! every request, JSON replies read the same way, and the daemon's error body
//! (`{ok: false, error, code, message, errors?}`, `docs/api.md`) parsed in one place.

use std::path::Path;
use std::time::Duration;

use reqwest::{Method, RequestBuilder};
use serde_json::Value;

use crate::encode::seg;
use crate::files::{read_daemon_info, read_token};
use crate::paths::{daemon_json_path, token_path};

/// A client of one daemon: its base URL (`http://127.0.0.1:PORT`) and the install's token.
#[derive(Debug, Clone)]
pub struct Client {
    base: String,
    token: String,
    http: reqwest::Client,
}

/// A reply: the status code and the JSON body (`Null` when the body is not JSON).
#[derive(Debug, Clone, PartialEq)]
pub struct Reply {
    pub status: u16,
    pub body: Value,
}

impl Reply {
    /// A 2xx status.
    pub fn ok(&self) -> bool {
        (200..300).contains(&self.status)
    }

    /// The daemon's error body of a failed call.
    pub fn error(&self) -> ApiError {
        ApiError::from_body(self.status, &self.body)
    }
}

/// The daemon's error body, parsed: `code` is the short code (`not-found`, `not-pending`,
/// `invalid-answers`…), `message` the human sentence, `errors` the `{path, code, message}`
/// list when there is one.
#[derive(Debug, Clone, PartialEq)]
pub struct ApiError {
    pub status: u16,
    pub code: String,
    pub message: String,
    pub errors: Option<Value>,
}

impl ApiError {
    /// Reads an error body; a body without `code` is `ASKD_ERROR`, without `message` (or
    /// `error`) "askd refused the request".
    pub fn from_body(status: u16, body: &Value) -> ApiError {
        ApiError {
            status,
            code: body["code"].as_str().unwrap_or("ASKD_ERROR").to_string(),
            message: body["message"]
                .as_str()
                .or(body["error"].as_str())
                .unwrap_or("askd refused the request")
                .to_string(),
            errors: body.get("errors").cloned(),
        }
    }

    /// The daemon's `not-found` (no such ask, session, draft or route).
    pub fn is_not_found(&self) -> bool {
        self.code == "not-found"
    }
}

/// A transport failure with its causes ("connection refused", "reset by peer"), which
/// reqwest's own message hides.
pub fn describe(e: &reqwest::Error) -> String {
    let mut why = e.to_string();
    let mut source = std::error::Error::source(e);
    while let Some(s) = source {
        why.push_str(": ");
        why.push_str(&s.to_string());
        source = s.source();
    }
    why
}

impl Client {
    /// A client with reqwest's default settings.
    pub fn new(base: impl Into<String>, token: impl Into<String>) -> Client {
        Client::with_http(base, token, reqwest::Client::new())
    }

    /// A client on a configured `reqwest::Client` (timeouts, pooling, proxies).
    pub fn with_http(
        base: impl Into<String>,
        token: impl Into<String>,
        http: reqwest::Client,
    ) -> Client {
        Client {
            base: base.into().trim_end_matches('/').to_string(),
            token: token.into(),
            http,
        }
    }

    /// The running daemon of the install at `data_dir`, from its `daemon.json` and token
    /// file (nothing is sent). The error is one sentence saying what is missing.
    pub fn find(data_dir: &Path) -> Result<Client, String> {
        let Some(info) = read_daemon_info(data_dir) else {
            return Err(format!(
                "no running daemon found ({} is missing) — start one with `askd serve`",
                daemon_json_path(data_dir).display()
            ));
        };
        let token = read_token(data_dir).map_err(|e| {
            format!(
                "cannot read the token file {}: {e}",
                token_path(data_dir).display()
            )
        })?;
        Ok(Client::new(info.url, token))
    }

    pub fn base(&self) -> &str {
        &self.base
    }

    pub fn token(&self) -> &str {
        &self.token
    }

    /// A request to `path` (`/api/…`) with the token, to finish and [`Client::send`].
    pub fn request(&self, method: Method, path: &str) -> RequestBuilder {
        self.http
            .request(method, format!("{}{path}", self.base))
            .bearer_auth(&self.token)
    }

    /// Sends a request and reads the reply's JSON body.
    pub async fn send(&self, req: RequestBuilder) -> Result<Reply, reqwest::Error> {
        let resp = req.send().await?;
        let status = resp.status().as_u16();
        let text = resp.text().await.unwrap_or_default();
        Ok(Reply {
            status,
            body: serde_json::from_str(&text).unwrap_or(Value::Null),
        })
    }

    /// One JSON call: `body` is sent verbatim as `application/json`; `timeout` bounds the
    /// whole request.
    pub async fn call(
        &self,
        method: Method,
        path: &str,
        body: Option<String>,
        timeout: Option<Duration>,
    ) -> Result<Reply, reqwest::Error> {
        self.call_keyed(method, path, body, timeout, None).await
    }

    /// [`Self::call`] with an `Idempotency-Key` header: a submit repeated with its key after
    /// a `503 outcome-unknown` gets what was saved (`docs/api.md`).
    pub async fn call_keyed(
        &self,
        method: Method,
        path: &str,
        body: Option<String>,
        timeout: Option<Duration>,
        key: Option<&str>,
    ) -> Result<Reply, reqwest::Error> {
        let mut req = self.request(method, path);
        if let Some(k) = key {
            req = req.header("idempotency-key", k);
        }
        if let Some(b) = body {
            req = req.header("content-type", "application/json").body(b);
        }
        if let Some(t) = timeout {
            req = req.timeout(t);
        }
        self.send(req).await
    }

    /// A GET whose successful body is not JSON (an export): the status and the raw text.
    pub async fn get_text(&self, path: &str) -> Result<(u16, String), reqwest::Error> {
        let resp = self.request(Method::GET, path).send().await?;
        let status = resp.status().as_u16();
        Ok((status, resp.text().await.unwrap_or_default()))
    }

    /// `GET /api/health` within `timeout`: does the daemon answer?
    pub async fn health(&self, timeout: Duration) -> bool {
        self.request(Method::GET, "/api/health")
            .timeout(timeout)
            .send()
            .await
            .is_ok_and(|r| r.status().is_success())
    }

    /// `GET /api/asks/{id}/wait?timeout_s=…`: the stored result, or the pending handle when
    /// `timeout` passes first. The request itself gets 30 s more.
    pub async fn wait(&self, ask_id: &str, timeout: Duration) -> Result<Reply, reqwest::Error> {
        let path = format!(
            "/api/asks/{}/wait?timeout_s={}",
            seg(ask_id),
            timeout.as_secs_f64()
        );
        self.call(
            Method::GET,
            &path,
            None,
            Some(timeout + Duration::from_secs(30)),
        )
        .await
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_error_body_is_read_in_one_place() {
        let e = ApiError::from_body(
            422,
            &json!({"ok": false, "error": "a; b", "code": "invalid-answers",
                    "message": "invalid answers: a; b", "errors": [{"path": "x"}]}),
        );
        assert_eq!(e.code, "invalid-answers");
        assert_eq!(e.message, "invalid answers: a; b");
        assert_eq!(e.errors, Some(json!([{"path": "x"}])));
        assert!(!e.is_not_found());
        let e = ApiError::from_body(404, &json!({"code": "not-found", "error": "not-found"}));
        assert!(e.is_not_found());
        assert_eq!(e.message, "not-found");
        let e = ApiError::from_body(502, &Value::Null);
        assert_eq!(
            (e.code.as_str(), e.message.as_str()),
            ("ASKD_ERROR", "askd refused the request")
        );
    }

    #[test]
    fn finding_no_daemon_says_what_is_missing() {
        let dir = std::path::Path::new("/nonexistent/askd-client-test");
        let why = Client::find(dir).unwrap_err();
        assert!(why.contains("daemon.json is missing"), "{why}");
        assert!(why.contains("askd serve"), "{why}");
    }

    #[test]
    fn base_urls_lose_a_trailing_slash() {
        assert_eq!(
            Client::new("http://127.0.0.1:1/", "t").base(),
            "http://127.0.0.1:1"
        );
    }
}

//! A small HTTP client for the running daemon: finds it through `daemon.json`, authenticates
//! with the install's token.

use std::process::ExitCode;

use askd_daemon::config::Paths;
use askd_daemon::server::{read_daemon_info, read_token};
use reqwest::Method;
use serde_json::Value;

use super::EXIT_USAGE;

pub struct Client {
    pub base: String,
    token: String,
    http: reqwest::Client,
}

/// A response: status code and JSON body.
pub struct Reply {
    pub status: u16,
    pub body: Value,
}

impl Client {
    /// Finds the running daemon of this install; prints why not and returns exit code 2.
    pub fn connect(paths: &Paths) -> Result<Client, ExitCode> {
        let Some(info) = read_daemon_info(&paths.data_dir) else {
            eprintln!(
                "askd: no running daemon found ({} is missing) — start one with `askd serve`",
                paths.daemon_json().display()
            );
            return Err(ExitCode::from(EXIT_USAGE));
        };
        let token = read_token(&paths.data_dir).map_err(|e| {
            eprintln!(
                "askd: cannot read the token file {}: {e}",
                paths.token_file().display()
            );
            ExitCode::from(EXIT_USAGE)
        })?;
        Ok(Client {
            base: info.url,
            token,
            http: reqwest::Client::new(),
        })
    }

    pub async fn call(
        &self,
        method: Method,
        path: &str,
        body: Option<String>,
    ) -> Result<Reply, ExitCode> {
        let mut req = self
            .http
            .request(method, format!("{}{path}", self.base))
            .bearer_auth(&self.token);
        if let Some(b) = body {
            req = req.header("content-type", "application/json").body(b);
        }
        let resp = req.send().await.map_err(|e| {
            eprintln!(
                "askd: the daemon at {} did not answer: {e} — is `askd serve` running?",
                self.base
            );
            ExitCode::from(EXIT_USAGE)
        })?;
        let status = resp.status().as_u16();
        let body = resp.json::<Value>().await.unwrap_or(Value::Null);
        Ok(Reply { status, body })
    }

    /// A GET whose successful body is not JSON (an export): the status and the raw text.
    pub async fn get_text(&self, path: &str) -> Result<(u16, String), ExitCode> {
        let resp = self
            .http
            .get(format!("{}{path}", self.base))
            .bearer_auth(&self.token)
            .send()
            .await
            .map_err(|e| {
                eprintln!(
                    "askd: the daemon at {} did not answer: {e} — is `askd serve` running?",
                    self.base
                );
                ExitCode::from(EXIT_USAGE)
            })?;
        let status = resp.status().as_u16();
        Ok((status, resp.text().await.unwrap_or_default()))
    }
}

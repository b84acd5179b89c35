//! The CLI's side of `askd-client`: the running daemon found through `daemon.json` and the
//! token file, its failures printed once and turned into exit code 2.

use std::process::ExitCode;

use askd_client::Paths;
pub use askd_client::Reply;
use reqwest::Method;

use super::EXIT_USAGE;

pub struct Client {
    inner: askd_client::Client,
}

impl Client {
    /// Finds the running daemon of this install; prints why not and returns exit code 2.
    pub fn connect(paths: &Paths) -> Result<Client, ExitCode> {
        askd_client::Client::find(&paths.data_dir)
            .map(|inner| Client { inner })
            .map_err(|why| {
                eprintln!("askd: {why}");
                ExitCode::from(EXIT_USAGE)
            })
    }

    /// The daemon did not answer: printed, exit code 2.
    fn unreachable(&self, e: reqwest::Error) -> ExitCode {
        eprintln!(
            "askd: the daemon at {} did not answer: {e} — is `askd serve` running?",
            self.inner.base()
        );
        ExitCode::from(EXIT_USAGE)
    }

    pub async fn call(
        &self,
        method: Method,
        path: &str,
        body: Option<String>,
    ) -> Result<Reply, ExitCode> {
        self.inner
            .call(method, path, body, None)
            .await
            .map_err(|e| self.unreachable(e))
    }

    /// A GET whose successful body is not JSON (an export): the status and the raw text.
    pub async fn get_text(&self, path: &str) -> Result<(u16, String), ExitCode> {
        self.inner
            .get_text(path)
            .await
            .map_err(|e| self.unreachable(e))
    }
}

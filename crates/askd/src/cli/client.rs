//! The CLI's side of `askd-client`: the running daemon found through `daemon.json` and the
//! token file, its failures printed once and turned into exit code 2.

use std::process::ExitCode;

use askd_client::Paths;
pub use askd_client::Reply;
use reqwest::Method;

use super::EXIT_USAGE;

/// One call to this install's daemon, started when needed, for the command `cmd` (its
/// messages start with `askd <cmd>:`): the reply and the configuration in effect. Failures
/// (configuration, runtime, the daemon) are printed; a reply that is an error is printed and
/// returned as `Err` too.
pub fn call_daemon(
    cmd: &str,
    flags: &super::flags::ConfigFlags,
    method: Method,
    path: &str,
    body: Option<String>,
) -> Result<(Reply, askd_daemon::config::Config), ExitCode> {
    let (paths, config) = askd_daemon::config::load_from_process(&flags.0).map_err(|e| {
        eprintln!("askd {cmd}: {e}");
        ExitCode::from(EXIT_USAGE)
    })?;
    let runtime = tokio::runtime::Runtime::new().map_err(|e| {
        eprintln!("askd {cmd}: cannot start the async runtime: {e}");
        ExitCode::FAILURE
    })?;
    let reply = runtime.block_on(async {
        askd_client::ensure_daemon(&paths, &flags.0)
            .await
            .map_err(|e| eprintln!("askd {cmd}: {e}"))
            .ok()?;
        let client = Client::connect(&paths).ok()?;
        client.call(method, path, body).await.ok()
    });
    let reply = reply.ok_or(ExitCode::FAILURE)?;
    if !reply.ok() {
        eprintln!("askd {cmd}: {}", reply.error().message);
        return Err(ExitCode::FAILURE);
    }
    Ok((reply, config))
}

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

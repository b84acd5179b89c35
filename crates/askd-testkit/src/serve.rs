//! `askd serve` as a child process: the built binary on an ephemeral loopback port with its
//! own `ASKD_HOME`, started once its `daemon.json` names it.
//!
//! The binary comes from the caller (`env!("CARGO_BIN_EXE_askd")` is defined only in the
//! `askd` crate's tests): `Serve::start(env!("CARGO_BIN_EXE_askd"), home, &[])`, or
//! [`Serve::command`] for more.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use reqwest::Method;
use serde_json::Value;
use tempfile::TempDir;

/// How long a daemon may take to write its `daemon.json`.
const START_TIMEOUT: Duration = Duration::from_secs(30);

/// A running `askd serve`. Dropping it kills the process and waits for it; a test that stops
/// it itself (SIGKILL, SIGTERM, `askd stop`) uses `child` directly.
pub struct Serve {
    pub child: Child,
    /// The daemon's URL, from `daemon.json`.
    pub url: String,
    /// The install's bearer token (the `token` file).
    pub token: String,
    pub pid: u32,
    /// The data directory, when this daemon owns it ([`Launch::temp_home`]).
    _own_home: Option<TempDir>,
}

/// An `askd serve` to start: [`Serve::command`] or [`Launch::temp_home`], then options, then
/// [`Launch::start`].
pub struct Launch {
    cmd: Command,
    home: PathBuf,
    own_home: Option<TempDir>,
}

impl Launch {
    /// `bin serve --listen 127.0.0.1:0` with `ASKD_HOME=home`; stdin, stdout and stderr null.
    pub fn new(bin: impl AsRef<OsStr>, home: &Path) -> Launch {
        let mut cmd = Command::new(bin);
        cmd.args(["serve", "--listen", "127.0.0.1:0"])
            .env("ASKD_HOME", home)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        Launch {
            cmd,
            home: home.to_path_buf(),
            own_home: None,
        }
    }

    /// [`Launch::new`] on a fresh temporary data directory that the daemon owns (removed
    /// when the [`Serve`] drops).
    pub fn temp_home(bin: impl AsRef<OsStr>) -> Launch {
        let dir = tempfile::tempdir().expect("temporary ASKD_HOME");
        let mut launch = Launch::new(bin, dir.path());
        launch.own_home = Some(dir);
        launch
    }

    pub fn env(mut self, key: impl AsRef<OsStr>, value: impl AsRef<OsStr>) -> Launch {
        self.cmd.env(key, value);
        self
    }

    pub fn envs<K, V>(mut self, vars: impl IntoIterator<Item = (K, V)>) -> Launch
    where
        K: AsRef<OsStr>,
        V: AsRef<OsStr>,
    {
        self.cmd.envs(vars);
        self
    }

    pub fn env_remove(mut self, key: impl AsRef<OsStr>) -> Launch {
        self.cmd.env_remove(key);
        self
    }

    /// The daemon's log to a pipe (`child.stderr`) instead of nowhere.
    pub fn stderr_piped(mut self) -> Launch {
        self.cmd.stderr(Stdio::piped());
        self
    }

    /// Spawns the daemon and waits until `daemon.json` names it: a file that differs from
    /// the one there before the spawn (a restart on the same home after a SIGKILL leaves
    /// the old one behind) with the child's `pid`. Panics if the child exits first or after
    /// 30 s.
    pub fn start(mut self) -> Serve {
        let info = self.home.join("daemon.json");
        let before = std::fs::read_to_string(&info).ok();
        let mut child = self.cmd.spawn().expect("spawn askd serve");
        let deadline = Instant::now() + START_TIMEOUT;
        loop {
            let now = std::fs::read_to_string(&info).ok();
            if let Some(text) = &now
                && now != before
                && let Ok(info) = serde_json::from_str::<Value>(text)
                && info["pid"] == child.id()
            {
                let token = std::fs::read_to_string(self.home.join("token")).expect("token");
                return Serve {
                    url: info["url"]
                        .as_str()
                        .expect("url in daemon.json")
                        .to_string(),
                    token: token.trim().to_string(),
                    pid: child.id(),
                    child,
                    _own_home: self.own_home,
                };
            }
            if let Ok(Some(status)) = child.try_wait() {
                panic!("askd serve exited at start: {status}");
            }
            if Instant::now() > deadline {
                let _ = child.kill();
                let _ = child.wait();
                panic!("askd serve did not start within {START_TIMEOUT:?}");
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Serve {
    /// Starts `bin serve` for `home` with `env` added (configuration keys as `ASKD_*`).
    pub fn start(bin: impl AsRef<OsStr>, home: &Path, env: &[(&str, &str)]) -> Serve {
        Serve::command(bin, home).envs(env.iter().copied()).start()
    }

    /// The launch to configure before [`Launch::start`].
    pub fn command(bin: impl AsRef<OsStr>, home: &Path) -> Launch {
        Launch::new(bin, home)
    }

    /// One request with the bearer token: the status and the body as JSON (`Null` when it
    /// is not JSON).
    pub async fn call(&self, method: Method, path: &str, body: Option<Value>) -> (u16, Value) {
        let mut req = reqwest::Client::new()
            .request(method, format!("{}{path}", self.url))
            .bearer_auth(&self.token);
        if let Some(b) = body {
            req = req.json(&b);
        }
        let resp = req.send().await.expect("daemon answers");
        let status = resp.status().as_u16();
        (status, resp.json().await.unwrap_or(Value::Null))
    }
}

impl Drop for Serve {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

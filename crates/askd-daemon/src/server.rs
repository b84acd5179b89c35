//! Start-up, serving and shutdown of `askd serve`.
//!
//! Start: open the store (migrations) — the data directory's SQLite file, or with
//! `databaseUrl` the team's PostgreSQL database, whose events this daemon then follows
//! (`crate::follow`) — load or create the token (mode 0600), bind, write `daemon.json`,
//! print the tokenised URL. On a full disk the start gives back the data
//! directory's reserve ([`crate::reserve`]) to open the store and write `daemon.json`, then
//! serves reads and answers writes with `507 storage-full`. Stop (SIGTERM, SIGINT or idle exit): stop
//! accepting, give in-flight requests a short grace, checkpoint the database, remove
//! `daemon.json`.

use std::io::ErrorKind;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use askd_store::{AskState, PgEvents, PgStore, SqliteStore, Store, StoreError};
use serde_json::json;
use tokio::net::TcpListener;
use tokio::sync::watch;

use crate::daemon::{Daemon, Settings};
use crate::{reserve, router_with};

/// How long in-flight requests (long waits, event streams) get after a stop signal.
const GRACE: Duration = Duration::from_secs(3);

// The files clients read to find the daemon (`daemon.json`, the token) and the data
// directory's paths are shared with them through `askd-client`.
pub use askd_client::files::{DaemonInfo, read_daemon_info, read_token};
pub use askd_client::paths::{daemon_json_path, data_lock_path, database_path, token_path};

/// Reads the install's token, creating it (256 random bits, hex, mode 0600) when missing.
pub fn load_or_create_token(data_dir: &Path) -> std::io::Result<String> {
    let path = token_path(data_dir);
    match std::fs::read_to_string(&path) {
        Ok(t) if t.trim().len() >= 32 => {
            restrict(&path)?;
            return Ok(t.trim().to_string());
        }
        Ok(_) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => return Err(e),
    }
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes).map_err(|e| std::io::Error::other(e.to_string()))?;
    let token: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    crate::atomic::write(&path, token.as_bytes(), 0o600)?;
    Ok(token)
}

#[cfg(unix)]
fn restrict(path: &Path) -> std::io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(path)?.permissions().mode() & 0o777;
    if mode != 0o600 {
        tracing::warn!(path = %path.display(), "token file had mode {mode:o}; restricting to 600");
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600))?;
    }
    Ok(())
}

#[cfg(not(unix))]
fn restrict(_: &Path) -> std::io::Result<()> {
    Ok(())
}

/// Writes a file atomically ([`crate::atomic::write`]).
fn write_atomic(path: &Path, text: &str) -> std::io::Result<()> {
    crate::atomic::write(path, text.as_bytes(), 0o666)
}

/// Takes the data directory's exclusive lock (an OS file lock on `daemon.lock`, released
/// by the OS when the process dies, however it dies). A second daemon on the same
/// directory would split the waiters from the settles and overwrite `daemon.json`, so it
/// refuses to start, naming the one that runs.
fn lock_data_dir(data_dir: &Path) -> Result<std::fs::File, String> {
    let path = data_lock_path(data_dir);
    let file = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(&path)
        .map_err(|e| format!("cannot open the lock file {}: {e}", path.display()))?;
    match file.try_lock() {
        Ok(()) => Ok(file),
        Err(std::fs::TryLockError::WouldBlock) => {
            let running = match read_daemon_info(data_dir) {
                Some(i) => format!("at {} (pid {})", i.url, i.pid),
                None => "(it has not written daemon.json yet)".to_string(),
            };
            Err(format!(
                "another askd daemon is already running on {} {running}; use it, or stop it first",
                data_dir.display()
            ))
        }
        Err(std::fs::TryLockError::Error(e)) => Err(format!("cannot lock {}: {e}", path.display())),
    }
}

/// A running daemon: its address and a handle to stop it (tests use this in-process).
pub struct Running {
    pub url: String,
    pub token: String,
    pub daemon: Arc<Daemon>,
    stop: watch::Sender<bool>,
    task: tokio::task::JoinHandle<()>,
}

impl Running {
    /// Stops the daemon as a signal would, and waits until it has shut down.
    pub async fn stop(self) {
        let _ = self.stop.send(true);
        let _ = self.task.await;
    }
}

/// Opens the team's database, retrying for up to `wait` while it cannot be reached
/// (nothing listens yet, it is starting up: [`StoreError::Unavailable`]), with a backoff from
/// 250 ms to 5 s, so a daemon started before PostgreSQL (a boot, a container) comes up
/// with it. A wrong URL, password or database name fails at once.
async fn open_team_database(url: &str, wait: std::time::Duration) -> Result<PgStore, StoreError> {
    let until = tokio::time::Instant::now() + wait;
    let mut pause = std::time::Duration::from_millis(250);
    loop {
        match PgStore::open(url).await {
            Err(StoreError::Unavailable(e)) if tokio::time::Instant::now() + pause < until => {
                tracing::warn!(error = %e, retry_in_ms = pause.as_millis() as u64,
                    "the database is not reachable yet; retrying (databaseWait)");
                tokio::time::sleep(pause).await;
                pause = (pause * 2).min(std::time::Duration::from_secs(5));
            }
            other => return other,
        }
    }
}

/// Starts the daemon in this process with `cfg` ([`Settings::from_config`], or
/// [`Settings::default`] with the fields a caller needs) and returns once it accepts
/// connections.
pub async fn start(cfg: Settings) -> Result<Running, String> {
    start_with(cfg, |_| crate::http::routes::Routes::new()).await
}

/// The daemon's background work, each on the hub's events from before the first request:
/// the notifier, the checkpoint keeper and the deadline runner.
struct Background {
    notify: tokio::sync::broadcast::Receiver<askd_store::Event>,
    keeper: tokio::sync::broadcast::Receiver<askd_store::Event>,
    deadlines: tokio::sync::broadcast::Receiver<askd_store::Event>,
}

impl Background {
    fn subscribe(daemon: &Daemon) -> Background {
        Background {
            notify: daemon.hub.subscribe(),
            keeper: daemon.hub.subscribe(),
            deadlines: daemon.hub.subscribe(),
        }
    }

    fn spawn(self, daemon: &Arc<Daemon>, stop: &tokio::sync::watch::Receiver<bool>) {
        tokio::spawn(notifier(daemon.clone(), self.notify, stop.clone()));
        tokio::spawn(crate::keeper::run(
            daemon.clone(),
            self.keeper,
            stop.clone(),
        ));
        tokio::spawn(crate::deadlines::run(
            daemon.clone(),
            self.deadlines,
            stop.clone(),
        ));
    }
}

/// [`start`], with the routes `mount` returns (given the daemon) served beside the
/// daemon's own, behind the fence ([`crate::router_with`]).
pub async fn start_with(
    cfg: Settings,
    mount: impl FnOnce(&Arc<Daemon>) -> crate::http::routes::Routes,
) -> Result<Running, String> {
    std::fs::create_dir_all(&cfg.data_dir).map_err(|e| {
        format!(
            "cannot create the data directory {}: {e}",
            cfg.data_dir.display()
        )
    })?;
    let dir_lock = lock_data_dir(&cfg.data_dir)?;
    let token = load_or_create_token(&cfg.data_dir)
        .map_err(|e| format!("cannot read or create the token file: {e}"))?;
    let (store, team_events): (Arc<dyn Store>, Option<PgEvents>) = match &cfg.database_url {
        // Team mode: the PostgreSQL database several daemons share; its notifications are
        // listened to before the daemon serves (crate::follow).
        Some(url) => {
            let shown = crate::config::redact_url(url);
            let pg = open_team_database(url, cfg.database_wait)
                .await
                .map_err(|e| {
                    format!(
                        "cannot open the database {shown} (databaseUrl): {e}{}",
                        if matches!(e, StoreError::Unavailable(_)) {
                            format!(
                                " — still unreachable after databaseWait ({}s): start PostgreSQL, or raise databaseWait (ASKD_DATABASE_WAIT)",
                                cfg.database_wait.as_secs()
                            )
                        } else {
                            String::new()
                        }
                    )
                })?;
            let events = pg
                .listen()
                .await
                .map_err(|e| format!("cannot listen for the database's events on {shown}: {e}"))?;
            (Arc::new(pg), Some(events))
        }
        None => {
            let db = database_path(&cfg.data_dir);
            // On a full disk, the start-up reserve gives back the space opening needs
            // (crate::reserve).
            let store = match SqliteStore::open(&db).await {
                Err(StoreError::StorageFull(_)) if reserve::release(&cfg.data_dir) => {
                    SqliteStore::open(&db).await
                }
                opened => opened,
            }
            .map_err(|e| format!("cannot open the database {}: {e}", db.display()))?;
            (Arc::new(store), None)
        }
    };
    let listener = TcpListener::bind(cfg.listen)
        .await
        .map_err(|e| format!("cannot listen on {}: {e}", cfg.listen))?;
    let addr = listener
        .local_addr()
        .map_err(|e| format!("cannot read the bound address: {e}"))?;
    let base_url = format!("http://{addr}");
    let idle_exit = cfg.idle_exit;
    let data_dir = cfg.data_dir.clone();
    let daemon = Arc::new(Daemon::new(store, cfg, base_url.clone(), token.clone()));
    let (stop_tx, stop_rx) = watch::channel(false);
    if let Some(events) = team_events {
        crate::follow::start(daemon.clone(), events, stop_rx.clone()).await?;
    }
    daemon.load_saved_settings().await;
    daemon.devices.load(daemon.store.as_ref()).await;
    daemon.members.load(daemon.store.as_ref()).await;
    // Alone on its database, a restart voids the pairing codes; in team mode the other
    // daemons' codes stay good (crate::devices).
    daemon
        .devices
        .forget_codes(
            daemon.store.as_ref(),
            &daemon.locks,
            daemon.settings.database_url.is_none(),
        )
        .await;
    // Subscribed before the first request, so no new ask is missed.
    let background = Background::subscribe(&daemon);
    let info = DaemonInfo {
        url: base_url.clone(),
        pid: std::process::id(),
        version: env!("CARGO_PKG_VERSION").to_string(),
        started_at: askd_store::now(),
    };
    let info_path = daemon_json_path(&data_dir);
    let info_text = serde_json::to_string_pretty(&json!(info)).unwrap_or_default();
    match write_atomic(&info_path, &info_text) {
        Err(e) if e.kind() == ErrorKind::StorageFull && reserve::release(&data_dir) => {
            write_atomic(&info_path, &info_text)
        }
        written => written,
    }
    .map_err(|e| format!("cannot write {}: {e}", info_path.display()))?;
    reserve::ensure(&data_dir);

    background.spawn(&daemon, &stop_rx);
    let app = router_with(daemon.clone(), mount(&daemon));
    let task = {
        let daemon = daemon.clone();
        let stop_tx = stop_tx.clone();
        tokio::spawn(async move {
            if let Some(idle) = idle_exit {
                tokio::spawn(idle_watch(daemon.clone(), idle, stop_tx));
            }
            let mut shutdown = stop_rx.clone();
            let server = axum::serve(listener, app).with_graceful_shutdown(async move {
                let _ = shutdown.wait_for(|s| *s).await;
            });
            let mut stopped = stop_rx.clone();
            let serving = tokio::spawn(async move { server.await });
            let _ = stopped.wait_for(|s| *s).await;
            // Event streams and long waits never end by themselves: a short grace, then go.
            if tokio::time::timeout(GRACE, serving).await.is_err() {
                tracing::info!("closing connections still open after the grace period");
            }
            if let Err(e) = daemon.store.checkpoint().await {
                tracing::error!(error = %e, "checkpoint at shutdown failed");
            }
            daemon.store.close().await;
            // Remove daemon.json only if it is still ours.
            if read_daemon_info(info_path.parent().unwrap_or(Path::new(".")))
                .is_some_and(|i| i.pid == std::process::id() && i.url == daemon.base_url)
            {
                let _ = std::fs::remove_file(&info_path);
            }
            tracing::info!("askd stopped");
            // Held for the daemon's whole life: the next daemon on this directory may start.
            drop(dir_lock);
        })
    };
    Ok(Running {
        url: base_url,
        token,
        daemon,
        stop: stop_tx,
        task,
    })
}

/// Stops the daemon after `idle` with no request and nothing pending.
/// How often the team's notifier checks that it still holds the database lock `notifier`.
const NOTIFIER_PROBE: Duration = Duration::from_millis(500);
/// The retry backoff of a failed take of that lock: from the first to the last, doubling.
const NOTIFIER_RETRY: (Duration, Duration) = (Duration::from_millis(100), Duration::from_secs(5));

/// The notifier (`crate::notify`). In team mode one daemon sends for the whole team: the
/// one holding the database lock `notifier` (the others wait for it, and one takes over when
/// its holder stops); it follows the hub from the moment it holds the lock. The team's cursor
/// (`notify::NOTIFIER_CURSOR`, advanced with every ask the holder announces) tells the one
/// that takes over which pending asks its predecessor never announced: those get their "new
/// ask" message now, the others reminders only — none is announced twice. The holder probes its lock
/// every [`NOTIFIER_PROBE`] ([`askd_store::Held::alive`]): when the database restarted, the
/// lock went with the connection, so it stops sending and contends again with the others
/// (a take that fails — the database away — is retried with a backoff). Alone on SQLite it
/// starts at once with `events`, subscribed before the first request.
async fn notifier(
    daemon: Arc<Daemon>,
    events: tokio::sync::broadcast::Receiver<askd_store::Event>,
    mut stop: watch::Receiver<bool>,
) {
    let run = |events, stop| {
        crate::notify::run(
            daemon.store.clone(),
            events,
            daemon.notify.subscribe(),
            daemon.notify.status().clone(),
            stop,
            daemon.settings.database_url.is_some(),
        )
    };
    if daemon.settings.database_url.is_none() {
        return run(events, stop).await;
    }
    drop(events);
    let mut retry = NOTIFIER_RETRY.0;
    loop {
        let held = tokio::select! {
            _ = stop.wait_for(|s| *s) => return,
            h = daemon.store.hold("notifier") => h,
        };
        let mut held = match held {
            Ok(h) => h,
            Err(e) => {
                tracing::warn!(error = %e, "cannot take the team's notifier lock; trying again");
                tokio::select! {
                    _ = stop.wait_for(|s| *s) => return,
                    _ = tokio::time::sleep(retry) => {}
                }
                retry = (retry * 2).min(NOTIFIER_RETRY.1);
                continue;
            }
        };
        retry = NOTIFIER_RETRY.0;
        tracing::debug!("holding the team's notifier lock");
        let (halt, halted) = watch::channel(false);
        let sending = run(daemon.hub.subscribe(), halted);
        tokio::pin!(sending);
        let lost = async {
            loop {
                tokio::time::sleep(NOTIFIER_PROBE).await;
                if let Some(h) = held.as_mut()
                    && !h.alive().await
                {
                    return;
                }
            }
        };
        tokio::select! {
            // It ended by itself (the hub or the settings closed): nothing more to send.
            _ = &mut sending => return,
            _ = async { stop.wait_for(|s| *s).await.is_ok() } => {
                let _ = halt.send(true);
                sending.await;
                return;
            }
            _ = lost => {
                tracing::warn!("lost the team's notifier lock (its database connection ended); taking it again");
                let _ = halt.send(true);
                sending.await;
            }
        }
        drop(held);
    }
}

async fn idle_watch(daemon: Arc<Daemon>, idle: Duration, stop: watch::Sender<bool>) {
    let tick = (idle / 4).clamp(Duration::from_millis(200), Duration::from_secs(30));
    loop {
        tokio::time::sleep(tick).await;
        if daemon.idle_for() < idle {
            continue;
        }
        match daemon.store.count_asks(Some(AskState::Pending)).await {
            Ok(0) => {
                tracing::info!("idle for {idle:?} with nothing pending: exiting");
                let _ = stop.send(true);
                return;
            }
            _ => continue,
        }
    }
}

/// `askd serve`: runs until SIGTERM, SIGINT or idle exit.
pub async fn serve(cfg: Settings) -> Result<(), String> {
    serve_with(cfg, |_| crate::http::routes::Routes::new()).await
}

/// [`serve`], with `mount`'s routes behind the fence (as [`start_with`]).
pub async fn serve_with(
    cfg: Settings,
    mount: impl FnOnce(&Arc<Daemon>) -> crate::http::routes::Routes,
) -> Result<(), String> {
    let running = start_with(cfg, mount).await?;
    println!(
        "askd {} serving on {}",
        env!("CARGO_PKG_VERSION"),
        running.url
    );
    println!("open: {}/?token={}", running.url, running.token);
    if let Err(line) = crate::ui::status() {
        tracing::warn!("{line}");
    }
    let stop = running.stop.clone();
    let mut stopped = running.stop.subscribe();
    tokio::select! {
        _ = signal() => {
            tracing::info!("stop signal received");
            let _ = stop.send(true);
        }
        _ = stopped.wait_for(|s| *s) => {}
    }
    let _ = running.task.await;
    Ok(())
}

#[cfg(unix)]
async fn signal() {
    use tokio::signal::unix::{SignalKind, signal};
    let mut term = match signal(SignalKind::terminate()) {
        Ok(s) => s,
        Err(_) => return std::future::pending().await,
    };
    tokio::select! {
        _ = term.recv() => {}
        _ = tokio::signal::ctrl_c() => {}
    }
}

#[cfg(not(unix))]
async fn signal() {
    let _ = tokio::signal::ctrl_c().await;
}

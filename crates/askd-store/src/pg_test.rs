//! A PostgreSQL for tests (feature `conformance`): the store's tests and the daemon's and
//! the binary's team-mode tests get their databases here.
//!
//! [`cluster`] is one server per test process: `ASKD_TEST_DATABASE_URL` when it is set (a
//! URL whose user may `CREATE DATABASE`), else a throwaway cluster — `initdb` and `pg_ctl`
//! from `ASKD_PG_BIN` or the newest `/usr/lib/postgresql/*/bin`, in a fresh temporary
//! directory, on a free loopback port, run as the `postgres` user when the tests run as root
//! (initdb refuses root). A watcher process stops the cluster and removes its directory when
//! the test process exits, however it exits. [`Cluster::database`] makes one fresh database
//! per test; its [`TestDatabase`] guard drops it (on a given server) when the test ends.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use sqlx::Connection;
use sqlx::postgres::PgConnection;

/// The test process's PostgreSQL server.
pub struct Cluster {
    /// A URL of the server's maintenance database (`…/postgres`), for `CREATE DATABASE`.
    admin_url: String,
    /// The throwaway cluster, when this process started one.
    local: Option<Local>,
    /// Whether databases are dropped after each test (only on a server we were given).
    drop_after: bool,
}

struct Local {
    bin: PathBuf,
    dir: PathBuf,
    as_postgres: bool,
}

static CLUSTER: OnceLock<Result<Cluster, String>> = OnceLock::new();
static NEXT: AtomicU64 = AtomicU64::new(0);

/// The process's server, started on first use. Panics with the reason when there is none
/// to be had (no `ASKD_TEST_DATABASE_URL` and no PostgreSQL binaries).
pub fn cluster() -> &'static Cluster {
    match CLUSTER.get_or_init(start) {
        Ok(c) => c,
        Err(e) => panic!("no PostgreSQL for the tests: {e}"),
    }
}

fn start() -> Result<Cluster, String> {
    if let Ok(url) = std::env::var("ASKD_TEST_DATABASE_URL")
        && !url.is_empty()
    {
        return Ok(Cluster {
            admin_url: url,
            local: None,
            drop_after: true,
        });
    }
    private()
}

/// A throwaway cluster of the caller's own, whatever `ASKD_TEST_DATABASE_URL` says: for a
/// test that restarts its server (the shared [`cluster`] serves other tests meanwhile).
/// Dropping it stops the server and removes its directory. Needs the PostgreSQL binaries.
pub fn private() -> Result<Cluster, String> {
    let bin = pg_bin().ok_or(
        "set ASKD_TEST_DATABASE_URL, or install PostgreSQL (Debian: apt-get install postgresql; \
         or point ASKD_PG_BIN at its bin directory)",
    )?;
    let as_postgres = is_root();
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or_default();
    let dir = std::env::temp_dir().join(format!("askd-pg-{}-{nanos:x}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    if as_postgres {
        run(Command::new("chown").arg("postgres:postgres").arg(&dir))?;
    }
    let local = Local {
        bin,
        dir,
        as_postgres,
    };
    let data = local.dir.join("data");
    run(local.command("initdb").arg("-D").arg(&data).args([
        "-U",
        "postgres",
        "-A",
        "trust",
        "-E",
        "UTF8",
        "--no-sync",
    ]))?;
    let port = free_port()?;
    // The watcher first: whatever happens next, the directory goes with the process.
    local.watch(&data)?;
    // In the cluster's own configuration, so every start (and restart) uses them.
    let settings = format!(
        "\n# askd tests\nlisten_addresses = '127.0.0.1'\nport = {port}\nunix_socket_directories = '{}'\nmax_connections = 300\n",
        local.dir.display()
    );
    let conf = data.join("postgresql.conf");
    let mut text = std::fs::read_to_string(&conf)
        .map_err(|e| format!("cannot read {}: {e}", conf.display()))?;
    text.push_str(&settings);
    std::fs::write(&conf, text).map_err(|e| format!("cannot write {}: {e}", conf.display()))?;
    local.start()?;
    Ok(Cluster {
        admin_url: format!("postgres://postgres@127.0.0.1:{port}/postgres"),
        local: Some(local),
        drop_after: false,
    })
}

impl Local {
    /// `pg_ctl start`, the server's output to its log (a server holding this command's
    /// pipes would keep `run` waiting for their end).
    fn start(&self) -> Result<(), String> {
        run(self
            .command("pg_ctl")
            .arg("-D")
            .arg(self.dir.join("data"))
            .arg("-l")
            .arg(self.dir.join("log"))
            .args(["-w", "-t", "60", "start"]))
    }

    fn command(&self, tool: &str) -> Command {
        let path = self.bin.join(tool);
        let mut c = if self.as_postgres {
            let mut c = Command::new("runuser");
            c.args(["-u", "postgres", "--"]).arg(path);
            c
        } else {
            Command::new(path)
        };
        c.stdin(Stdio::null());
        c
    }

    /// A process that waits for this one to end, then stops the cluster and removes it.
    fn watch(&self, data: &Path) -> Result<(), String> {
        let pg_ctl = self.bin.join("pg_ctl");
        let stop = if self.as_postgres {
            format!(
                "runuser -u postgres -- {} -D {} stop -m immediate",
                pg_ctl.display(),
                data.display()
            )
        } else {
            format!(
                "{} -D {} stop -m immediate",
                pg_ctl.display(),
                data.display()
            )
        };
        let script = format!(
            "while kill -0 {pid} 2>/dev/null; do sleep 0.5; done; {stop} >/dev/null 2>&1; rm -rf {dir}",
            pid = std::process::id(),
            dir = self.dir.display()
        );
        // In a session of its own (`setsid`), so a kill of the test's process group (a
        // runner's timeout) does not take the watcher with it.
        let mut watcher = if Path::new("/usr/bin/setsid").exists() {
            let mut c = Command::new("/usr/bin/setsid");
            c.arg("sh");
            c
        } else {
            Command::new("sh")
        };
        watcher
            .args(["-c", &script])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .map(|_| ())
            .map_err(|e| format!("cannot start the cluster's watcher: {e}"))
    }
}

impl Cluster {
    /// A fresh, empty database on the server; the guard holds its URL.
    pub async fn database(&self) -> TestDatabase {
        let name = format!(
            "t_{}_{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        );
        let mut conn = PgConnection::connect(&self.admin_url)
            .await
            .unwrap_or_else(|e| panic!("cannot reach the test PostgreSQL: {e}"));
        sqlx::raw_sql(sqlx::AssertSqlSafe(format!("CREATE DATABASE {name}")))
            .execute(&mut conn)
            .await
            .unwrap_or_else(|e| panic!("cannot create the test database {name}: {e}"));
        let _ = conn.close().await;
        TestDatabase {
            url: with_database(&self.admin_url, &name),
            name,
            admin_url: self.drop_after.then(|| self.admin_url.clone()),
        }
    }

    /// Restarts the throwaway cluster (`pg_ctl restart -m fast`): every connection is cut.
    /// Panics on a server this process did not start.
    pub fn restart(&self) {
        let local = self
            .local
            .as_ref()
            .expect("restart needs the tests' own cluster (ASKD_TEST_DATABASE_URL is set)");
        run(local
            .command("pg_ctl")
            .arg("-D")
            .arg(local.dir.join("data"))
            // The server's output to its log: a restarted server holding this command's
            // pipes would keep `run` waiting for their end.
            .arg("-l")
            .arg(local.dir.join("log"))
            .args(["-w", "-t", "60", "-m", "fast", "restart"]))
        .unwrap_or_else(|e| panic!("{e}"));
    }

    /// Stops the throwaway cluster (`pg_ctl stop -m fast`): every connection is cut and new
    /// ones are refused until [`Cluster::start_again`]. Panics as [`Cluster::restart`] does.
    pub fn stop(&self) {
        let local = self
            .local
            .as_ref()
            .expect("stop needs the tests' own cluster (ASKD_TEST_DATABASE_URL is set)");
        run(local
            .command("pg_ctl")
            .arg("-D")
            .arg(local.dir.join("data"))
            .args(["-w", "-t", "60", "-m", "fast", "stop"]))
        .unwrap_or_else(|e| panic!("{e}"));
    }

    /// Starts the cluster [`Cluster::stop`] stopped, on the same port.
    pub fn start_again(&self) {
        self.local
            .as_ref()
            .expect("start needs the tests' own cluster (ASKD_TEST_DATABASE_URL is set)")
            .start()
            .unwrap_or_else(|e| panic!("{e}"));
    }

    /// Whether [`Cluster::restart`] is possible.
    pub fn can_restart(&self) -> bool {
        self.local.is_some()
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        if let Some(local) = &self.local {
            let _ = local
                .command("pg_ctl")
                .arg("-D")
                .arg(local.dir.join("data"))
                .args(["-m", "immediate", "stop"])
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status();
            let _ = std::fs::remove_dir_all(&local.dir);
        }
    }
}

/// One test's database. Dropping it drops the database on a server given by
/// `ASKD_TEST_DATABASE_URL` (a throwaway cluster goes whole when the process ends).
pub struct TestDatabase {
    pub url: String,
    pub name: String,
    admin_url: Option<String>,
}

impl TestDatabase {
    /// Runs `sql` (several statements allowed) on this database as its owner: for the tests
    /// that arrange a fault the store cannot be asked for (a slow commit, a cut connection).
    /// Returns the first column of the last statement's rows as text (`NULL` as "").
    pub async fn sql(&self, sql: &str) -> Vec<String> {
        use sqlx::Row;
        let mut conn = PgConnection::connect(&self.url)
            .await
            .unwrap_or_else(|e| panic!("cannot reach the test database {}: {e}", self.name));
        let rows = sqlx::raw_sql(sqlx::AssertSqlSafe(sql.to_string()))
            .fetch_all(&mut conn)
            .await
            .unwrap_or_else(|e| panic!("{sql}: {e}"));
        let _ = conn.close().await;
        rows.iter()
            .map(|r| {
                r.try_get::<Option<String>, _>(0)
                    .ok()
                    .flatten()
                    .unwrap_or_default()
            })
            .collect()
    }
}

impl Drop for TestDatabase {
    fn drop(&mut self) {
        let Some(admin) = self.admin_url.take() else {
            return;
        };
        let name = self.name.clone();
        // Its own thread and runtime: a drop may run inside (or outside) a runtime.
        let _ = std::thread::spawn(move || {
            let rt = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build();
            if let Ok(rt) = rt {
                rt.block_on(async {
                    if let Ok(mut c) = PgConnection::connect(&admin).await {
                        let _ = sqlx::raw_sql(sqlx::AssertSqlSafe(format!(
                            "DROP DATABASE IF EXISTS {name} WITH (FORCE)"
                        )))
                        .execute(&mut c)
                        .await;
                        let _ = c.close().await;
                    }
                });
            }
        })
        .join();
    }
}

/// `url` with its database (the path) replaced by `name`.
fn with_database(url: &str, name: &str) -> String {
    let (base, query) = match url.split_once('?') {
        Some((b, q)) => (b, Some(q)),
        None => (url, None),
    };
    let scheme_end = base.find("://").map_or(0, |i| i + 3);
    let host_end = base[scheme_end..]
        .find('/')
        .map_or(base.len(), |i| scheme_end + i);
    let mut out = format!("{}/{name}", &base[..host_end]);
    if let Some(q) = query {
        out.push('?');
        out.push_str(q);
    }
    out
}

fn pg_bin() -> Option<PathBuf> {
    if let Ok(dir) = std::env::var("ASKD_PG_BIN") {
        let dir = PathBuf::from(dir);
        return dir.join("initdb").exists().then_some(dir);
    }
    let mut versions: Vec<(u32, PathBuf)> = std::fs::read_dir("/usr/lib/postgresql")
        .ok()?
        .flatten()
        .filter_map(|e| {
            let v = e.file_name().to_str()?.parse::<u32>().ok()?;
            let bin = e.path().join("bin");
            bin.join("initdb").exists().then_some((v, bin))
        })
        .collect();
    versions.sort();
    versions.pop().map(|(_, b)| b)
}

fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .ok()
        .is_some_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
}

fn free_port() -> Result<u16, String> {
    let l = std::net::TcpListener::bind("127.0.0.1:0").map_err(|e| e.to_string())?;
    l.local_addr().map(|a| a.port()).map_err(|e| e.to_string())
}

fn run(c: &mut Command) -> Result<(), String> {
    let out = c
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .output()
        .map_err(|e| format!("cannot run {c:?}: {e}"))?;
    if out.status.success() {
        return Ok(());
    }
    // Give the server a moment to write its log before an error is read.
    std::thread::sleep(Duration::from_millis(10));
    Err(format!(
        "{c:?} failed ({}): {}{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    ))
}

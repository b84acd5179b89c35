//! Helpers shared by the store's tests.

use std::path::Path;

use sqlx::Connection;

/// The SQLite migrations in order, as the store ships them.
const SQLITE_MIGRATIONS: [&str; 5] = [
    include_str!("../../migrations/sqlite/0001_init.sql"),
    include_str!("../../migrations/sqlite/0002_drafts.sql"),
    include_str!("../../migrations/sqlite/0003_event_sessions.sql"),
    include_str!("../../migrations/sqlite/0004_settings.sql"),
    include_str!("../../migrations/sqlite/0005_delivery.sql"),
];

/// A new SQLite file at `path` with the schema of the first `n` migrations only (an older
/// askd's database), open for the test to fill before the store upgrades it.
pub async fn sqlite_at_migration(path: &Path, n: usize) -> sqlx::SqliteConnection {
    let url = format!("sqlite://{}?mode=rwc", path.display());
    let mut conn = sqlx::SqliteConnection::connect(&url).await.unwrap();
    for sql in &SQLITE_MIGRATIONS[..n] {
        sqlx::raw_sql(sqlx::AssertSqlSafe(*sql))
            .execute(&mut conn)
            .await
            .unwrap();
    }
    conn
}

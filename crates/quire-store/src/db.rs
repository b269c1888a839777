//! The database handle: connection pool, backend detection, migrations and
//! the write discipline.
//!
//! SQLite allows one writer at a time. Rather than letting concurrent writers
//! collide and retry, every write transaction on SQLite first takes an
//! in-process gate and then starts with `BEGIN IMMEDIATE`, so writers queue in
//! order; a `busy_timeout` covers writers from other processes (the CLI while
//! a server runs). PostgreSQL writers run concurrently and rely on row-level
//! compare-and-set where two writers could race.

use std::ops::{Deref, DerefMut};
use std::path::Path;
use std::str::FromStr;
use std::sync::Arc;
use std::time::Duration;

use sqlx::any::{AnyConnectOptions, AnyPoolOptions};
use sqlx::migrate::Migrator;
use sqlx::{Any, AnyConnection, AnyPool, Executor, Transaction};
use tokio::sync::{Mutex, OwnedMutexGuard};

use crate::error::{StoreError, StoreResult};

/// The schema, written in the dialect both backends share, so one set of
/// migrations serves both.
static MIGRATIONS: Migrator = sqlx::migrate!("./migrations");

/// What only one backend can express (today the search index: FTS5 on
/// SQLite, `tsvector` on PostgreSQL), numbered on their own and recorded in
/// their own table, so each set is checked completely against what ran.
/// They run after the shared migrations.
static SQLITE_MIGRATIONS: Migrator = Migrator {
    table_name: std::borrow::Cow::Borrowed("_quire_dialect_migrations"),
    ..sqlx::migrate!("./migrations-sqlite")
};
static POSTGRES_MIGRATIONS: Migrator = Migrator {
    table_name: std::borrow::Cow::Borrowed("_quire_dialect_migrations"),
    ..sqlx::migrate!("./migrations-postgres")
};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    Sqlite,
    Postgres,
}

#[derive(Clone)]
pub struct Db {
    pool: AnyPool,
    backend: Backend,
    /// Present on SQLite only: serializes write transactions in this process.
    write_gate: Option<Arc<Mutex<()>>>,
    /// Messages between the nodes sharing this database.
    bus: crate::bus::Bus,
    /// Whether each audit entry is also written to standard output, one
    /// JSON line each, once committed.
    stream_audit: bool,
}

impl std::fmt::Debug for Db {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Db").field("backend", &self.backend).finish()
    }
}

impl Db {
    /// The URL of the embedded database inside a data directory.
    pub fn sqlite_url_for_dir(dir: &Path) -> String {
        format!("sqlite://{}?mode=rwc", dir.join("quire.db").display())
    }

    /// Connects to `url` (`sqlite://...` or `postgres://...`). Does not migrate.
    pub async fn connect(url: &str) -> StoreResult<Db> {
        sqlx::any::install_default_drivers();
        let backend = if url.starts_with("postgres:") || url.starts_with("postgresql:") {
            Backend::Postgres
        } else if url.starts_with("sqlite:") {
            Backend::Sqlite
        } else {
            return Err(StoreError::Corrupt(format!(
                "unsupported database URL scheme (expected sqlite: or postgres:): {}",
                redact(url)
            )));
        };
        let options = AnyConnectOptions::from_str(url)?;
        let pool = match backend {
            Backend::Sqlite => {
                AnyPoolOptions::new()
                    .max_connections(8)
                    .min_connections(1)
                    .after_connect(|conn, _| {
                        Box::pin(async move {
                            conn.execute(
                                "PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; \
                                 PRAGMA foreign_keys = ON; PRAGMA busy_timeout = 10000;",
                            )
                            .await?;
                            Ok(())
                        })
                    })
                    .connect_with(options)
                    .await?
            }
            Backend::Postgres => {
                AnyPoolOptions::new()
                    .max_connections(16)
                    .acquire_timeout(Duration::from_secs(10))
                    .connect_with(options)
                    .await?
            }
        };
        let write_gate = (backend == Backend::Sqlite).then(|| Arc::new(Mutex::new(())));
        Ok(Db {
            pool,
            backend,
            write_gate,
            bus: crate::bus::Bus::new(backend, url),
            stream_audit: false,
        })
    }

    /// Connects and brings the schema up to date.
    pub async fn open(url: &str) -> StoreResult<Db> {
        let db = Db::connect(url).await?;
        db.migrate().await?;
        Ok(db)
    }

    pub async fn migrate(&self) -> StoreResult<()> {
        MIGRATIONS.run(&self.pool).await?;
        match self.backend {
            Backend::Sqlite => SQLITE_MIGRATIONS.run(&self.pool).await?,
            Backend::Postgres => POSTGRES_MIGRATIONS.run(&self.pool).await?,
        }
        Ok(())
    }

    /// Writes every audit entry to standard output too, as a JSON line,
    /// once its change committed (`--audit-log-stream`).
    pub fn with_audit_stream(mut self, stream: bool) -> Db {
        self.stream_audit = stream;
        self
    }

    pub fn backend(&self) -> Backend {
        self.backend
    }

    /// Messages between the nodes sharing this database.
    pub fn bus(&self) -> &crate::bus::Bus {
        &self.bus
    }

    /// A pooled connection for reads (and single-statement writes that need
    /// no transaction).
    pub async fn read(&self) -> StoreResult<sqlx::pool::PoolConnection<Any>> {
        Ok(self.pool.acquire().await?)
    }

    /// Starts a write transaction following the backend's write discipline.
    /// Dropping it without [`WriteTx::commit`] rolls everything back.
    pub async fn write(&self) -> StoreResult<WriteTx> {
        match &self.write_gate {
            Some(gate) => {
                let guard = gate.clone().lock_owned().await;
                let tx = self.pool.begin_with("BEGIN IMMEDIATE").await?;
                Ok(WriteTx {
                    tx,
                    _gate: Some(guard),
                    stream_audit: self.stream_audit,
                })
            }
            None => Ok(WriteTx {
                tx: self.pool.begin().await?,
                _gate: None,
                stream_audit: self.stream_audit,
            }),
        }
    }

    /// Connections the pool holds, and of those the idle ones.
    pub fn connections(&self) -> (u32, usize) {
        (self.pool.size(), self.pool.num_idle())
    }

    /// True when the database answers a trivial query.
    pub async fn ping(&self) -> bool {
        sqlx::query("SELECT 1").execute(&self.pool).await.is_ok()
    }

    pub async fn close(&self) {
        self.bus.stop();
        self.pool.close().await;
    }
}

/// A write transaction. Derefs to the connection so repositories take
/// `&mut tx` like any other connection.
pub struct WriteTx {
    tx: Transaction<'static, Any>,
    _gate: Option<OwnedMutexGuard<()>>,
    stream_audit: bool,
}

impl WriteTx {
    /// Commits the change, with the audit entry of the work it is part of
    /// (see [`crate::audit`]) when that entry is not written yet.
    pub async fn commit(mut self) -> StoreResult<()> {
        let pending = crate::audit::write_pending(&mut self.tx).await?;
        self.tx.commit().await?;
        if let Some((scope, row)) = pending {
            crate::audit::committed(&scope);
            if self.stream_audit {
                use std::io::Write;
                let mut out = std::io::stdout().lock();
                // A closed standard output loses the line, never the change.
                let _ = writeln!(out, "{}", row.to_json_line());
            }
        }
        Ok(())
    }

    /// Commits bookkeeping that is no change of anyone's (a session's last
    /// use, a failed attempt's counter): no audit entry.
    pub async fn commit_unaudited(self) -> StoreResult<()> {
        self.tx.commit().await?;
        Ok(())
    }
}

impl Deref for WriteTx {
    type Target = AnyConnection;
    fn deref(&self) -> &AnyConnection {
        &self.tx
    }
}

impl DerefMut for WriteTx {
    fn deref_mut(&mut self) -> &mut AnyConnection {
        &mut self.tx
    }
}

/// A database URL with any password removed, fit for messages and logs.
pub use quire_core::secrets::redact_url as redact;

impl Db {
    /// Writes a consistent copy of the SQLite database to `path` while it
    /// stays in use (`VACUUM INTO`: one read transaction, so the copy is the
    /// database as of one commit; compacted, and with no WAL to carry).
    pub async fn copy_sqlite_into(&self, path: &Path) -> StoreResult<()> {
        sqlx::query("VACUUM INTO $1")
            .bind(path.display().to_string())
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    /// Whether the PostgreSQL database holds any table of its own (a
    /// restore goes only into an empty one).
    pub async fn holds_tables(&self) -> StoreResult<bool> {
        let tables: i64 = sqlx::query_scalar(
            "SELECT CAST(COUNT(*) AS BIGINT) FROM information_schema.tables WHERE table_schema = 'public'",
        )
        .fetch_one(&self.pool)
        .await?;
        Ok(tables > 0)
    }

    /// Runs one statement that takes no parameters (administrative SQL such
    /// as `CREATE DATABASE`, which cannot run inside a transaction).
    pub async fn execute_raw(&self, sql: &str) -> StoreResult<()> {
        sqlx::raw_sql(sqlx::AssertSqlSafe(sql.to_owned()))
            .execute(&self.pool)
            .await?;
        Ok(())
    }
}

//! Sessions in a SQLite file (`sqlite:PATH`): durable and shared by the
//! processes of one machine. Each call is one transaction, so a committed
//! write survives the process being killed (write-ahead log, synchronous
//! commits), and processes sharing the file see each other's writes. The
//! store's secret lives in the file, so every process on it mints and
//! checks the same handles.

use std::path::PathBuf;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use rusqlite::{Connection, OptionalExtension, TransactionBehavior, params};

use super::handle::{Minter, SECRET_BYTES, random};
use super::{Quotas, StateError, Store, StoreFuture, Usage};

/// How long a call waits for another process's write to finish.
const BUSY_TIMEOUT: Duration = Duration::from_secs(5);

const SCHEMA: &str = "
    CREATE TABLE IF NOT EXISTS ptc_meta (name TEXT PRIMARY KEY, value BLOB NOT NULL);
    CREATE TABLE IF NOT EXISTS ptc_sessions (
        id TEXT PRIMARY KEY,
        bytes INTEGER NOT NULL,
        keys INTEGER NOT NULL,
        last_used INTEGER NOT NULL
    );
    CREATE INDEX IF NOT EXISTS ptc_sessions_by_use ON ptc_sessions (last_used);
    CREATE TABLE IF NOT EXISTS ptc_values (
        session TEXT NOT NULL,
        key TEXT NOT NULL,
        value TEXT NOT NULL,
        PRIMARY KEY (session, key)
    ) WITHOUT ROWID;
";

/// Sessions in a SQLite file.
pub(crate) struct SqliteStore {
    path: PathBuf,
    minter: Minter,
    quotas: Quotas,
    connection: Arc<Mutex<Connection>>,
}

impl SqliteStore {
    /// Opens (or creates) the store at `path`.
    ///
    /// # Errors
    /// The file cannot be opened or created, or is no SQLite database.
    pub(crate) fn open(path: &str, quotas: Quotas) -> Result<Self, StateError> {
        let path = PathBuf::from(path);
        let failed = |e: rusqlite::Error| {
            StateError::Unavailable(format!("`sqlite:{}`: {e}", path.display()))
        };
        create_private(&path)
            .map_err(|e| StateError::Unavailable(format!("`sqlite:{}`: {e}", path.display())))?;
        let mut connection = Connection::open(&path).map_err(failed)?;
        connection.busy_timeout(BUSY_TIMEOUT).map_err(failed)?;
        connection
            .execute_batch("PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL;")
            .map_err(failed)?;
        // Sizes are measured as the file stores text: UTF-8, as a new file
        // is made (another encoding would count other bytes than a quota's).
        let encoding: String = connection
            .query_row("PRAGMA encoding", [], |row| row.get(0))
            .map_err(failed)?;
        if encoding != "UTF-8" {
            return Err(StateError::Unavailable(format!(
                "`sqlite:{}`: the file keeps its text as {encoding}; a ptc store keeps UTF-8",
                path.display()
            )));
        }
        let fresh = random()
            .map_err(|e| StateError::Unavailable(format!("no randomness for a secret: {e}")))?;
        let secret = prepare(&mut connection, fresh).map_err(failed)?;
        Ok(Self {
            path,
            minter: Minter::new(secret),
            quotas,
            connection: Arc::new(Mutex::new(connection)),
        })
    }

    /// Runs `op` in one transaction on a blocking thread.
    fn call<T: Send + 'static>(
        &self,
        op: impl FnOnce(&Context, &rusqlite::Transaction<'_>) -> Result<T, StateError> + Send + 'static,
    ) -> StoreFuture<T> {
        let connection = Arc::clone(&self.connection);
        let context = Context {
            quotas: self.quotas,
            store: self.describe(),
            minter: self.minter.clone(),
        };
        Box::pin(async move {
            let run = move || {
                let mut connection = connection.lock().unwrap_or_else(PoisonError::into_inner);
                let failed = |e: rusqlite::Error| StateError::Unavailable(e.to_string());
                let tx = connection
                    .transaction_with_behavior(TransactionBehavior::Immediate)
                    .map_err(failed)?;
                let value = op(&context, &tx);
                // Refusals (a quota, a gone session) come before any write
                // of theirs and keep what the call did besides (the session
                // marked used, an expired one deleted); a failing store
                // keeps nothing.
                if matches!(value, Err(StateError::Unavailable(_))) {
                    return value;
                }
                tx.commit().map_err(failed)?;
                value
            };
            match tokio::task::spawn_blocking(run).await {
                Ok(result) => result,
                Err(e) => Err(StateError::Unavailable(format!(
                    "the store's call failed: {e}"
                ))),
            }
        })
    }

    /// Runs `op` on session `handle`, checked and marked used.
    fn on<T: Send + 'static>(
        &self,
        handle: &str,
        op: impl FnOnce(&Context, &rusqlite::Transaction<'_>, &str) -> Result<T, StateError>
        + Send
        + 'static,
    ) -> StoreFuture<T> {
        let handle = handle.to_owned();
        self.call(move |context, tx| {
            context.touch(tx, &handle)?;
            op(context, tx, &handle)
        })
    }
}

/// What a call needs besides its transaction.
struct Context {
    quotas: Quotas,
    store: String,
    minter: Minter,
}

impl Context {
    /// Checks `handle` and marks its session used, or says why not.
    fn touch(&self, tx: &rusqlite::Transaction<'_>, handle: &str) -> Result<(), StateError> {
        if !self.minter.minted(handle) {
            let (session, store) = (handle.to_owned(), self.store.clone());
            return Err(StateError::Unknown { session, store });
        }
        let now = now_ms();
        let last_used: Option<i64> = tx
            .query_row(
                "SELECT last_used FROM ptc_sessions WHERE id = ?1",
                [handle],
                |row| row.get(0),
            )
            .optional()
            .map_err(unavailable)?;
        let expired = |at: i64| now.saturating_sub(at) >= expiry_ms(self.quotas);
        match last_used {
            Some(at) if !expired(at) => {
                tx.execute(
                    "UPDATE ptc_sessions SET last_used = ?1 WHERE id = ?2",
                    params![now, handle],
                )
                .map_err(unavailable)?;
                Ok(())
            }
            Some(_) => {
                drop_sessions(tx, "id = ?1", params![handle])?;
                Err(self.gone(handle))
            }
            None => Err(self.gone(handle)),
        }
    }

    fn gone(&self, handle: &str) -> StateError {
        StateError::Expired {
            session: handle.to_owned(),
            keeps: self.quotas.keeps(&self.store),
        }
    }

    fn usage(&self, tx: &rusqlite::Transaction<'_>, handle: &str) -> Result<Usage, StateError> {
        tx.query_row(
            "SELECT bytes, keys FROM ptc_sessions WHERE id = ?1",
            [handle],
            |row| {
                Ok(Usage {
                    bytes: count(row.get(0)?),
                    keys: count(row.get(1)?),
                })
            },
        )
        .map_err(unavailable)
    }
}

/// Creates the file, readable by its owner alone (it holds the secret and
/// every session's values; SQLite's journal files take its mode), unless
/// it is there.
fn create_private(path: &std::path::Path) -> std::io::Result<()> {
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    match options.open(path) {
        Ok(_) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(()),
        Err(e) => Err(e),
    }
}

/// Creates the tables and the store's secret unless the file has them;
/// gives the secret.
fn prepare(
    connection: &mut Connection,
    fresh: [u8; SECRET_BYTES],
) -> rusqlite::Result<[u8; SECRET_BYTES]> {
    let tx = connection.transaction_with_behavior(TransactionBehavior::Immediate)?;
    tx.execute_batch(SCHEMA)?;
    tx.execute(
        "INSERT OR IGNORE INTO ptc_meta (name, value) VALUES ('secret', ?1)",
        [&fresh[..]],
    )?;
    let kept: Vec<u8> = tx.query_row(
        "SELECT value FROM ptc_meta WHERE name = 'secret'",
        [],
        |row| row.get(0),
    )?;
    tx.commit()?;
    let mut secret = [0; SECRET_BYTES];
    if kept.len() != SECRET_BYTES {
        let why = "`ptc_meta.secret` is not a ptc store's secret".to_owned();
        return Err(rusqlite::Error::ToSqlConversionFailure(why.into()));
    }
    secret.copy_from_slice(&kept);
    Ok(secret)
}

/// Deletes the sessions `filter` picks, and their values.
fn drop_sessions(
    tx: &rusqlite::Transaction<'_>,
    filter: &str,
    params: impl rusqlite::Params + Copy,
) -> Result<(), StateError> {
    let values = format!(
        "DELETE FROM ptc_values WHERE session IN (SELECT id FROM ptc_sessions WHERE {filter})"
    );
    tx.execute(&values, params).map_err(unavailable)?;
    tx.execute(&format!("DELETE FROM ptc_sessions WHERE {filter}"), params)
        .map_err(unavailable)?;
    Ok(())
}

/// A count or size as the file keeps it (a file edited by hand may hold a
/// negative one: none).
fn count(stored: i64) -> usize {
    usize::try_from(stored).unwrap_or(0)
}

/// A count or size as the file keeps it.
fn stored(count: usize) -> i64 {
    i64::try_from(count).unwrap_or(i64::MAX)
}

fn now_ms() -> i64 {
    let since = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default();
    i64::try_from(since.as_millis()).unwrap_or(i64::MAX)
}

fn expiry_ms(quotas: Quotas) -> i64 {
    i64::try_from(quotas.idle_expiry.as_millis()).unwrap_or(i64::MAX)
}

fn unavailable(error: rusqlite::Error) -> StateError {
    StateError::Unavailable(error.to_string())
}

impl Store for SqliteStore {
    fn open(&self) -> StoreFuture<String> {
        let handle = self.minter.mint();
        self.call(move |context, tx| {
            let handle = handle.map_err(|e| StateError::Unavailable(e.to_string()))?;
            let now = now_ms();
            let stale = now.saturating_sub(expiry_ms(context.quotas));
            // A bounded sweep per open, so one open never holds the file
            // long for the other processes.
            let expired = "id IN (SELECT id FROM ptc_sessions WHERE last_used <= ?1 LIMIT 100)";
            drop_sessions(tx, expired, params![stale])?;
            let count: i64 = tx
                .query_row("SELECT count(*) FROM ptc_sessions", [], |row| row.get(0))
                .map_err(unavailable)?;
            let max = i64::try_from(context.quotas.max_sessions.max(1)).unwrap_or(i64::MAX);
            let over = count - max + 1;
            if over > 0 {
                let oldest = "id IN (SELECT id FROM ptc_sessions ORDER BY last_used LIMIT ?1)";
                drop_sessions(tx, oldest, params![over])?;
            }
            tx.execute(
                "INSERT INTO ptc_sessions (id, bytes, keys, last_used) VALUES (?1, 0, 0, ?2)",
                params![handle, now],
            )
            .map_err(unavailable)?;
            Ok(handle)
        })
    }

    fn check(&self, session: &str) -> StoreFuture<()> {
        self.on(session, |_, _, _| Ok(()))
    }

    fn read(&self, session: &str, key: &str) -> StoreFuture<Option<String>> {
        let key = key.to_owned();
        self.on(session, move |_, tx, handle| {
            tx.query_row(
                "SELECT value FROM ptc_values WHERE session = ?1 AND key = ?2",
                params![handle, key],
                |row| row.get(0),
            )
            .optional()
            .map_err(unavailable)
        })
    }

    fn write(&self, session: &str, key: &str, value: String) -> StoreFuture<()> {
        let key = key.to_owned();
        self.on(session, move |context, tx, handle| {
            let old: Option<i64> = tx
                .query_row(
                    "SELECT length(CAST(value AS BLOB)) FROM ptc_values WHERE session = ?1 AND key = ?2",
                    params![handle, key],
                    |row| row.get(0),
                )
                .optional()
                .map_err(unavailable)?;
            let usage = context.usage(tx, handle)?;
            let old = old.map(count);
            let usage = context.quotas.after_set(usage, &key, old, value.len())?;
            tx.execute(
                "INSERT INTO ptc_values (session, key, value) VALUES (?1, ?2, ?3)
                 ON CONFLICT (session, key) DO UPDATE SET value = excluded.value",
                params![handle, key, value],
            )
            .map_err(unavailable)?;
            set_usage(tx, handle, usage)
        })
    }

    fn remove(&self, session: &str, key: &str) -> StoreFuture<bool> {
        let key = key.to_owned();
        self.on(session, move |context, tx, handle| {
            let old: Option<i64> = tx
                .query_row(
                    "DELETE FROM ptc_values WHERE session = ?1 AND key = ?2
                     RETURNING length(CAST(value AS BLOB))",
                    params![handle, key],
                    |row| row.get(0),
                )
                .optional()
                .map_err(unavailable)?;
            let Some(old) = old else { return Ok(false) };
            let mut usage = context.usage(tx, handle)?;
            usage.bytes = usage.bytes.saturating_sub(key.len() + count(old));
            usage.keys = usage.keys.saturating_sub(1);
            set_usage(tx, handle, usage)?;
            Ok(true)
        })
    }

    fn keys(&self, session: &str) -> StoreFuture<Vec<String>> {
        self.on(session, |_, tx, handle| {
            let mut keys = tx
                .prepare("SELECT key FROM ptc_values WHERE session = ?1 ORDER BY key")
                .map_err(unavailable)?;
            let rows = keys
                .query_map([handle], |row| row.get(0))
                .map_err(unavailable)?;
            rows.collect::<Result<Vec<String>, _>>()
                .map_err(unavailable)
        })
    }

    fn describe(&self) -> String {
        format!("sqlite:{}", self.path.display())
    }

    fn quotas(&self) -> Quotas {
        self.quotas
    }
}

fn set_usage(tx: &rusqlite::Transaction<'_>, handle: &str, usage: Usage) -> Result<(), StateError> {
    tx.execute(
        "UPDATE ptc_sessions SET bytes = ?1, keys = ?2 WHERE id = ?3",
        params![stored(usage.bytes), stored(usage.keys), handle],
    )
    .map_err(unavailable)?;
    Ok(())
}

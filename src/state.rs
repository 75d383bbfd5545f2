//! State across runs (contracts §9): sessions whose values outlive a run.
//!
//! A session is a set of keyed values, opened by a [`Store`] that mints its
//! handle. A run names a session and reads and writes its values through
//! the program's `state`; values are JSON text, measured as UTF-8.
//!
//! The rules, each decided once here and kept by every store:
//!
//! - **Handles are minted, never invented.** 128 random bits and a MAC
//!   under the store's own secret (`handle`): a handle this store did not
//!   mint is told apart from one it minted whose session has gone.
//! - **Writes are per key and atomic; the last writer wins.** A run reads
//!   its own writes. Two runs writing one key at once each succeed, and
//!   the later write is what stays: a program has no lock to wait on or
//!   retry loop to write, and a model reading back what it wrote sees it.
//! - **Writes stay when a run fails.** A `set` that resolved is committed:
//!   a run that times out later keeps what it wrote before, as a shell
//!   keeps a file written before a later command failed.
//! - **Quotas** ([`Quotas`]): a value, a session's bytes and a session's
//!   keys, checked in the same step as the write, so nothing is stored
//!   half-way and two writers cannot both pass.
//! - **Idle sessions expire** (24 h after their last use by default); a
//!   store keeps at most [`Quotas::max_sessions`] sessions, and opening one
//!   past the bound first drops the least recently used.
//!
//! Its rooms: `handle` (minting and checking handles), and the stores:
//! `memory` (the default, in the process), `sqlite` (a file on one
//! machine) and `redis` (a server a fleet shares).

mod handle;
mod memory;
mod redis;
mod sqlite;

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

pub(crate) use memory::MemoryStore;
pub(crate) use redis::RedisStore;
pub(crate) use sqlite::SqliteStore;

/// What a store call gives back, later.
pub(crate) type StoreFuture<T> = Pin<Box<dyn Future<Output = Result<T, StateError>> + Send>>;

/// A store of sessions. Every call is one atomic step; a call for a
/// session the store does not have fails with [`StateError::Unknown`] or
/// [`StateError::Expired`]. Keys are checked once, here (`get`, `set`,
/// `delete`); a store reads and writes keys already checked.
pub(crate) trait Store: Send + Sync + 'static {
    /// Opens a new, empty session and gives its handle.
    fn open(&self) -> StoreFuture<String>;
    /// Whether `session` is there to use (and marks it used).
    fn check(&self, session: &str) -> StoreFuture<()>;
    /// The JSON text of the checked `key`, when it is set.
    fn read(&self, session: &str, key: &str) -> StoreFuture<Option<String>>;
    /// Sets the checked `key` to the JSON text `value`, within the quotas.
    fn write(&self, session: &str, key: &str, value: String) -> StoreFuture<()>;
    /// Deletes the checked `key`; whether it was set.
    fn remove(&self, session: &str, key: &str) -> StoreFuture<bool>;
    /// Every key of the session, sorted by their bytes.
    fn keys(&self, session: &str) -> StoreFuture<Vec<String>>;
    /// Which store this is, for messages: `memory`, `sqlite:PATH`.
    fn describe(&self) -> String;
    /// The bounds it keeps.
    fn quotas(&self) -> Quotas;

    /// The JSON text of `key`, when it is set.
    fn get(&self, session: &str, key: &str) -> StoreFuture<Option<String>> {
        match check_key(key) {
            Ok(()) => self.read(session, key),
            Err(e) => ready(Err(e)),
        }
    }

    /// Sets `key` to the JSON text `value`, within the quotas.
    fn set(&self, session: &str, key: &str, value: String) -> StoreFuture<()> {
        match check_key(key) {
            Ok(()) => self.write(session, key, value),
            Err(e) => ready(Err(e)),
        }
    }

    /// Deletes `key`; whether it was set.
    fn delete(&self, session: &str, key: &str) -> StoreFuture<bool> {
        match check_key(key) {
            Ok(()) => self.remove(session, key),
            Err(e) => ready(Err(e)),
        }
    }
}

/// An answer known at once, as a store call's.
pub(crate) fn ready<T: Send + 'static>(result: Result<T, StateError>) -> StoreFuture<T> {
    Box::pin(std::future::ready(result))
}

/// The bounds every store keeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Quotas {
    /// One value's JSON text, in bytes.
    pub(crate) max_value_bytes: usize,
    /// A session's keys and values together, in bytes.
    pub(crate) max_session_bytes: usize,
    /// A session's keys.
    pub(crate) max_keys: usize,
    /// How long a session is kept after its last use.
    pub(crate) idle_expiry: Duration,
    /// How many sessions a store keeps.
    pub(crate) max_sessions: usize,
}

impl Default for Quotas {
    fn default() -> Self {
        Self {
            max_value_bytes: 1 << 20,
            max_session_bytes: 16 << 20,
            max_keys: 10_000,
            idle_expiry: Duration::from_secs(24 * 60 * 60),
            max_sessions: 10_000,
        }
    }
}

/// The longest key, in bytes.
pub(crate) const MAX_KEY_BYTES: usize = 256;

/// Why a state call failed. Each reads as the end of a sentence the
/// program's error or the run's refusal begins.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum StateError {
    /// The handle is not one this store minted.
    #[error(
        "session `{session}` was not opened by this ptc's state store ({store}): pass a session from an earlier outcome, or leave `session` out to start a new one"
    )]
    Unknown {
        /// The handle given.
        session: String,
        /// Which store was asked.
        store: String,
    },
    /// The store minted the handle, and the session is gone.
    #[error(
        "session `{session}` has expired or was dropped ({keeps}): its values are gone; leave `session` out to start a new one"
    )]
    Expired {
        /// The handle given.
        session: String,
        /// What the store keeps, and for how long.
        keeps: String,
    },
    /// The key cannot be a key.
    #[error("invalid key: {0}")]
    Key(String),
    /// The value cannot be kept (not plain data, or too large to copy).
    #[error("{0}")]
    Value(String),
    /// A quota would be passed; nothing was written.
    #[error("{0}; nothing was written")]
    Quota(String),
    /// The store could not be reached or read.
    #[error("the state store is unavailable: {0}")]
    Unavailable(String),
}

impl StateError {
    /// The code a program's `StateError` carries (contracts §9).
    pub fn code(&self) -> &'static str {
        match self {
            Self::Unknown { .. } => "UNKNOWN_SESSION",
            Self::Expired { .. } => "EXPIRED_SESSION",
            Self::Key(_) => "INVALID_KEY",
            Self::Value(_) => "INVALID_VALUE",
            Self::Quota(_) => "QUOTA",
            Self::Unavailable(_) => "UNAVAILABLE",
        }
    }
}

/// Checks `key`: 1 to 256 bytes, no control characters.
pub(crate) fn check_key(key: &str) -> Result<(), StateError> {
    if key.is_empty() {
        return Err(StateError::Key("a key must not be empty".into()));
    }
    if key.len() > MAX_KEY_BYTES {
        let why = format!("a key is at most {MAX_KEY_BYTES} bytes, got {}", key.len());
        return Err(StateError::Key(why));
    }
    if let Some(c) = key.chars().find(|c| c.is_control()) {
        let why = format!("a key has no control characters, got {c:?}");
        return Err(StateError::Key(why));
    }
    Ok(())
}

/// What a session holds, for the quota check of one write.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Usage {
    pub(crate) bytes: usize,
    pub(crate) keys: usize,
}

impl Quotas {
    /// The quotas `limits` set.
    pub(crate) fn of(limits: &crate::Limits) -> Self {
        Self {
            max_value_bytes: limits.state_max_value_bytes,
            max_session_bytes: limits.state_max_session_bytes,
            max_keys: limits.state_max_keys,
            idle_expiry: Duration::from_millis(limits.state_expiry_ms),
            max_sessions: limits.state_max_sessions,
        }
    }

    /// The session's usage after setting `key` (`old` bytes of value when
    /// it was set) to `value` bytes, or the quota that refuses it.
    pub(crate) fn after_set(
        &self,
        usage: Usage,
        key: &str,
        old: Option<usize>,
        value: usize,
    ) -> Result<Usage, StateError> {
        if value > self.max_value_bytes {
            let max = self.max_value_bytes;
            let why = format!(
                "the value of `{key}` is {value} bytes of JSON, over the {max}-byte quota of a value"
            );
            return Err(StateError::Quota(why));
        }
        let (bytes, keys) = match old {
            Some(old) => (usage.bytes.saturating_sub(old) + value, usage.keys),
            None => (usage.bytes + key.len() + value, usage.keys + 1),
        };
        if keys > self.max_keys {
            let why = format!(
                "the session holds {} keys, the quota of a session",
                self.max_keys
            );
            return Err(StateError::Quota(why));
        }
        if bytes > self.max_session_bytes {
            let max = self.max_session_bytes;
            let why = format!(
                "setting `{key}` would make the session {bytes} bytes, over its {max}-byte quota"
            );
            return Err(StateError::Quota(why));
        }
        Ok(Usage { bytes, keys })
    }

    /// The expiry as people read it (`24 h`, `90 s`).
    pub(crate) fn expiry_text(&self) -> String {
        let secs = self.idle_expiry.as_secs();
        match secs {
            0 => format!("{} ms", self.idle_expiry.as_millis()),
            _ if secs.is_multiple_of(3600) => format!("{} h", secs / 3600),
            _ => format!("{secs} s"),
        }
    }

    /// What a store of `name` keeps, for the expired text.
    pub(crate) fn keeps(&self, name: &str) -> String {
        format!(
            "{name} keeps a session {} after its last use, and {} sessions at most",
            self.expiry_text(),
            self.max_sessions
        )
    }
}

/// Opens the store `url` names: `memory`, `sqlite:PATH`, or
/// `redis://HOST:PORT/DB` (`rediss://` over TLS, the server's certificate
/// checked against the system's roots, or `SSL_CERT_FILE`).
///
/// # Errors
/// The URL names no store, or the store cannot be opened (a file that is
/// no SQLite database, a directory that cannot be written, a Redis server
/// that does not answer).
pub(crate) async fn open(url: &str, quotas: Quotas) -> Result<Arc<dyn Store>, StateError> {
    if url == "memory" {
        return Ok(Arc::new(MemoryStore::new(quotas)?));
    }
    if let Some(path) = url.strip_prefix("sqlite:") {
        // Opening may wait on another process's write, and syncs the file.
        let path = path.to_owned();
        let opened = tokio::task::spawn_blocking(move || SqliteStore::open(&path, quotas));
        let store = opened
            .await
            .map_err(|e| StateError::Unavailable(format!("opening the store failed: {e}")))??;
        return Ok(Arc::new(store));
    }
    if url.starts_with("redis://") || url.starts_with("rediss://") {
        return Ok(Arc::new(RedisStore::open(url, quotas).await?));
    }
    Err(StateError::Unavailable(format!(
        "`{}` names no state store: use `memory`, `sqlite:PATH`, `redis://HOST:PORT/DB` or `rediss://HOST:PORT/DB` (TLS)",
        redacted(url)
    )))
}

/// A store of sessions, chosen by URL (contracts §9): where an
/// [`Engine`](crate::Engine) keeps its runs' state (see
/// [`Engine::with_state`](crate::Engine::with_state)). Cheap to clone: the
/// clones share the store.
#[derive(Clone)]
pub struct StateStore {
    pub(crate) store: Arc<dyn Store>,
    /// The URL it was opened from.
    pub(crate) url: String,
}

impl StateStore {
    /// Opens the store `url` names: `memory` (in this process),
    /// `sqlite:PATH` (a file on this machine) or `redis://HOST:PORT/DB`
    /// (a server a fleet shares; `rediss://` over TLS), keeping `limits`'
    /// quotas.
    ///
    /// # Errors
    /// The URL names no store, or the store cannot be opened (a file that is
    /// no SQLite database, a Redis server that does not answer or evicts keys).
    pub async fn open(url: &str, limits: &crate::Limits) -> Result<Self, StateError> {
        let store = open(url, Quotas::of(limits)).await?;
        Ok(Self {
            store,
            url: url.to_owned(),
        })
    }

    /// Whether it is the store `url` names, keeping `limits`' quotas.
    pub(crate) fn is(&self, url: &str, limits: &crate::Limits) -> bool {
        self.url == url && self.store.quotas() == Quotas::of(limits)
    }

    /// Opens a new, empty session: its handle, for `run_code`'s `session`.
    ///
    /// # Errors
    /// The store is unavailable, or it keeps no more sessions.
    pub async fn open_session(&self) -> Result<String, StateError> {
        self.store.open().await
    }

    /// Which store this is: `memory`, `sqlite:PATH`, or the Redis URL
    /// without its password.
    pub fn describe(&self) -> String {
        redacted(&self.store.describe())
    }
}

impl std::fmt::Debug for StateStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("StateStore").field(&self.describe()).finish()
    }
}

/// `url` without the password it may carry (`redis://user:secret@host`).
pub(crate) fn redacted(url: &str) -> String {
    match (url.find("://"), url.rfind('@')) {
        (Some(scheme), Some(at)) if at > scheme => format!("{}://…{}", &url[..scheme], &url[at..]),
        _ => url.to_owned(),
    }
}

#[cfg(test)]
mod tests;

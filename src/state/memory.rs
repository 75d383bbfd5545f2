//! The default store: sessions in the process, gone when it exits. Besides
//! the quotas every store keeps, it holds at most [`MEMORY_STORE_BYTES`]
//! in all, counting what each key and each session costs the process
//! beyond its bytes; a write past that drops the least recently used other
//! sessions that hold values first, so the host's memory stays bounded
//! whatever the models write.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Mutex, MutexGuard, PoisonError};
use std::time::Instant;

use super::handle::Minter;
use super::{Quotas, StateError, Store, StoreFuture, Usage, ready};

/// All sessions of a memory store together, in bytes of the process.
pub(crate) const MEMORY_STORE_BYTES: usize = 256 << 20;

/// What a key costs the process beyond its bytes and its value's: two
/// strings and its place in the map.
const ENTRY_BYTES: usize = 128;

/// What a session costs the process beyond its keys: its handle, its map.
const SESSION_BYTES: usize = 256;

/// What a session holding `usage` costs the process.
fn footprint(usage: Usage) -> usize {
    SESSION_BYTES + usage.bytes + usage.keys * ENTRY_BYTES
}

/// Sessions in the process.
pub(crate) struct MemoryStore {
    minter: Minter,
    quotas: Quotas,
    /// All sessions' footprint at most ([`MEMORY_STORE_BYTES`]).
    bound: usize,
    sessions: Mutex<Sessions>,
}

#[derive(Default)]
struct Sessions {
    by_handle: HashMap<String, Session>,
    /// Every session's footprint, summed.
    bytes: usize,
}

struct Session {
    values: BTreeMap<String, String>,
    usage: Usage,
    last_used: Instant,
}

impl MemoryStore {
    pub(crate) fn new(quotas: Quotas) -> Result<Self, StateError> {
        Self::bounded(quotas, MEMORY_STORE_BYTES)
    }

    /// A store holding at most `bound` bytes of the process.
    pub(crate) fn bounded(quotas: Quotas, bound: usize) -> Result<Self, StateError> {
        let minter = Minter::fresh().map_err(unavailable)?;
        Ok(Self {
            minter,
            quotas,
            bound,
            sessions: Mutex::default(),
        })
    }

    fn lock(&self) -> MutexGuard<'_, Sessions> {
        self.sessions.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Runs `op` on session `handle`, marked used, or says why it cannot.
    fn with<T>(
        &self,
        handle: &str,
        op: impl FnOnce(&mut Sessions, &str) -> Result<T, StateError>,
    ) -> Result<T, StateError> {
        if !self.minter.minted(handle) {
            // A handle of an earlier process reads so too: its secret is gone.
            let store = "memory: its sessions end when its ptc process exits".to_owned();
            return Err(StateError::Unknown {
                session: handle.to_owned(),
                store,
            });
        }
        let mut sessions = self.lock();
        let now = Instant::now();
        let alive = match sessions.by_handle.get_mut(handle) {
            Some(session) if now.duration_since(session.last_used) < self.quotas.idle_expiry => {
                session.last_used = now;
                true
            }
            Some(_) => {
                sessions.remove(handle);
                false
            }
            None => false,
        };
        if !alive {
            return Err(self.gone(handle));
        }
        op(&mut sessions, handle)
    }

    /// The error for a session this store minted and no longer has.
    fn gone(&self, handle: &str) -> StateError {
        let keeps = self.quotas.keeps(&self.describe());
        StateError::Expired {
            session: handle.to_owned(),
            keeps: format!("{keeps}, and only while ptc runs"),
        }
    }

    fn open_now(&self) -> Result<String, StateError> {
        let handle = self.minter.mint().map_err(unavailable)?;
        let mut sessions = self.lock();
        let now = Instant::now();
        sessions.drop_expired(self.quotas, now);
        while sessions.by_handle.len() >= self.quotas.max_sessions.max(1)
            && sessions.drop_least_recent(None, false)
        {}
        sessions.bytes += footprint(Usage::default());
        let session = Session {
            values: BTreeMap::new(),
            usage: Usage::default(),
            last_used: now,
        };
        sessions.by_handle.insert(handle.clone(), session);
        Ok(handle)
    }

    fn set_now(&self, handle: &str, key: &str, value: String) -> Result<(), StateError> {
        let quotas = self.quotas;
        self.with(handle, |sessions, handle| {
            let session = sessions.held(handle)?;
            let old = session.values.get(key).map(String::len);
            let before = footprint(session.usage);
            let usage = quotas.after_set(session.usage, key, old, value.len())?;
            let grown = footprint(usage).saturating_sub(before);
            while sessions.bytes + grown > self.bound
                && sessions.drop_least_recent(Some(handle), true)
            {}
            let mut value = value;
            value.shrink_to_fit();
            let session = sessions.held(handle)?;
            session.values.insert(key.to_owned(), value);
            session.usage = usage;
            sessions.bytes = sessions.bytes - before + footprint(usage);
            Ok(())
        })
    }

    fn delete_now(&self, handle: &str, key: &str) -> Result<bool, StateError> {
        self.with(handle, |sessions, handle| {
            let session = sessions.held(handle)?;
            let Some(old) = session.values.remove(key) else {
                return Ok(false);
            };
            let before = footprint(session.usage);
            session.usage.bytes -= key.len() + old.len();
            session.usage.keys -= 1;
            sessions.bytes -= before - footprint(session.usage);
            Ok(true)
        })
    }
}

impl Sessions {
    /// The session `with` found and holds under the lock.
    fn held(&mut self, handle: &str) -> Result<&mut Session, StateError> {
        self.by_handle
            .get_mut(handle)
            .ok_or_else(|| StateError::Unavailable("the session was dropped mid-call".into()))
    }

    fn remove(&mut self, handle: &str) {
        if let Some(session) = self.by_handle.remove(handle) {
            self.bytes -= footprint(session.usage);
        }
    }

    /// Drops every session idle past the expiry.
    fn drop_expired(&mut self, quotas: Quotas, now: Instant) {
        let mut freed = 0;
        self.by_handle.retain(|_, session| {
            let alive = now.duration_since(session.last_used) < quotas.idle_expiry;
            if !alive {
                freed += footprint(session.usage);
            }
            alive
        });
        self.bytes -= freed;
    }

    /// Drops the least recently used session but `keep` (only among those
    /// that hold values, when `holding`); whether there was one to drop.
    fn drop_least_recent(&mut self, keep: Option<&str>, holding: bool) -> bool {
        let oldest = self
            .by_handle
            .iter()
            .filter(|(handle, _)| Some(handle.as_str()) != keep)
            .filter(|(_, session)| !holding || session.usage.keys > 0)
            .min_by_key(|(_, session)| session.last_used)
            .map(|(handle, _)| handle.clone());
        match oldest.and_then(|handle| self.by_handle.remove(&handle)) {
            Some(session) => {
                self.bytes -= footprint(session.usage);
                true
            }
            None => false,
        }
    }
}

fn unavailable(error: getrandom::Error) -> StateError {
    StateError::Unavailable(format!("no randomness for a session handle: {error}"))
}

impl Store for MemoryStore {
    fn open(&self) -> StoreFuture<String> {
        ready(self.open_now())
    }

    fn check(&self, session: &str) -> StoreFuture<()> {
        ready(self.with(session, |_, _| Ok(())))
    }

    fn read(&self, session: &str, key: &str) -> StoreFuture<Option<String>> {
        ready(self.with(session, |sessions, handle| {
            Ok(sessions.held(handle)?.values.get(key).cloned())
        }))
    }

    fn write(&self, session: &str, key: &str, value: String) -> StoreFuture<()> {
        ready(self.set_now(session, key, value))
    }

    fn remove(&self, session: &str, key: &str) -> StoreFuture<bool> {
        ready(self.delete_now(session, key))
    }

    fn keys(&self, session: &str) -> StoreFuture<Vec<String>> {
        let keys = self.with(session, |sessions, handle| {
            Ok(sessions.held(handle)?.values.keys().cloned().collect())
        });
        ready(keys)
    }

    fn describe(&self) -> String {
        "memory".to_owned()
    }

    fn quotas(&self) -> Quotas {
        self.quotas
    }
}

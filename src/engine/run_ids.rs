//! Run ids: fresh ones the engine mints, and the ones hosts choose, which
//! must not belong to a run still going (their sub-call ids and events
//! would mix).

use std::collections::HashSet;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use super::request::RunError;

/// The run ids of one engine.
pub(super) struct RunIds {
    prefix: String,
    minted: AtomicU64,
    /// Run ids chosen by hosts, of the runs still going.
    claimed: Mutex<HashSet<Arc<str>>>,
}

/// A run id a host chose, held while its run lives.
pub(super) struct RunIdClaim {
    ids: Arc<RunIds>,
    id: Arc<str>,
}

impl RunIds {
    pub(super) fn new() -> Self {
        let seed = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos() as u64);
        Self {
            prefix: format!("run-{:x}{:x}", seed & 0xffff_ffff, std::process::id()),
            minted: AtomicU64::new(0),
            claimed: Mutex::default(),
        }
    }

    /// The id of a new run: the host's choice, claimed until the claim is
    /// dropped, or a fresh one.
    ///
    /// # Errors
    /// The host's choice is empty (it would read as "no run" to a host that
    /// tests a run id for truth), or belongs to a run that has not ended.
    pub(super) fn assign(
        self: &Arc<Self>,
        chosen: Option<String>,
    ) -> Result<(Arc<str>, Option<RunIdClaim>), RunError> {
        let Some(id) = chosen else {
            let n = self.minted.fetch_add(1, Ordering::Relaxed) + 1;
            return Ok((format!("{}-{n}", self.prefix).into(), None));
        };
        if id.is_empty() {
            return Err(RunError::InvalidArguments(
                "runId must not be empty: leave it out and the run gets a fresh one".into(),
            ));
        }
        let id: Arc<str> = id.into();
        if !self.lock().insert(Arc::clone(&id)) {
            return Err(RunError::InvalidArguments(format!(
                "runId `{id}` belongs to a run that has not ended"
            )));
        }
        let claim = RunIdClaim {
            ids: Arc::clone(self),
            id: Arc::clone(&id),
        };
        Ok((id, Some(claim)))
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashSet<Arc<str>>> {
        self.claimed.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl Drop for RunIdClaim {
    fn drop(&mut self) {
        self.ids.lock().remove(&self.id);
    }
}

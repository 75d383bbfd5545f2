//! Fresh, never-used sandboxes built ahead of need, so building one (about
//! a third of a short run) is off the run's path. Lean and full sandboxes
//! (see `intrinsics`) are kept apart.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use super::intrinsics::Intrinsics;
use super::sandbox::Sandbox;
use super::threads::SandboxThreads;

/// How many fresh sandboxes of each kind the engine keeps ready.
const WARM_SANDBOXES: usize = 2;

/// The ready sandboxes of one engine (they carry its heap and stack limits).
pub(super) struct WarmSandboxes {
    memory_limit: usize,
    stack_limit: usize,
    lean: Mutex<Vec<Sandbox>>,
    full: Mutex<Vec<Sandbox>>,
    refilling: AtomicBool,
}

impl WarmSandboxes {
    pub(super) fn new(memory_limit: usize, stack_limit: usize) -> Self {
        Self {
            memory_limit,
            stack_limit,
            lean: Mutex::new(Vec::new()),
            full: Mutex::new(Vec::new()),
            refilling: AtomicBool::new(false),
        }
    }

    /// A fresh sandbox with `intrinsics`: a warm one if ready (then the
    /// pools are refilled on a sandbox thread), else built now.
    pub(super) fn take(
        self: &Arc<Self>,
        intrinsics: Intrinsics,
        threads: &SandboxThreads,
    ) -> rquickjs::Result<Sandbox> {
        let warm = self.lock(intrinsics).pop();
        if !self.refilling.swap(true, Ordering::AcqRel) {
            let this = Arc::clone(self);
            threads.detach(move || this.refill());
        }
        match warm {
            Some(sandbox) => Ok(sandbox),
            None => Sandbox::new(self.memory_limit, self.stack_limit, intrinsics),
        }
    }

    /// Tops up both pools, lean first (most runs need no more).
    fn refill(&self) {
        for intrinsics in [Intrinsics::Lean, Intrinsics::Full] {
            while self.lock(intrinsics).len() < WARM_SANDBOXES {
                match Sandbox::new(self.memory_limit, self.stack_limit, intrinsics) {
                    Ok(sandbox) => self.lock(intrinsics).push(sandbox),
                    Err(_) => break,
                }
            }
        }
        self.refilling.store(false, Ordering::Release);
    }

    fn lock(&self, intrinsics: Intrinsics) -> std::sync::MutexGuard<'_, Vec<Sandbox>> {
        let pool = match intrinsics {
            Intrinsics::Lean => &self.lean,
            Intrinsics::Full => &self.full,
        };
        pool.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

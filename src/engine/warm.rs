//! Fresh, never-used sandboxes built ahead of need, so building one (about
//! a third of a short run) is off the run's path.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use super::sandbox::Sandbox;
use super::threads::SandboxThreads;

/// How many fresh sandboxes the engine keeps ready.
const WARM_SANDBOXES: usize = 2;

/// The ready sandboxes of one engine (they carry its heap and stack limits).
pub(super) struct WarmSandboxes {
    memory_limit: usize,
    stack_limit: usize,
    ready: Mutex<Vec<Sandbox>>,
    refilling: AtomicBool,
}

impl WarmSandboxes {
    pub(super) fn new(memory_limit: usize, stack_limit: usize) -> Self {
        Self {
            memory_limit,
            stack_limit,
            ready: Mutex::new(Vec::new()),
            refilling: AtomicBool::new(false),
        }
    }

    /// A fresh sandbox: a warm one if ready (then one is rebuilt on a
    /// sandbox thread), else built now.
    pub(super) fn take(self: &Arc<Self>, threads: &SandboxThreads) -> rquickjs::Result<Sandbox> {
        let warm = self.lock().pop();
        if !self.refilling.swap(true, Ordering::AcqRel) {
            let this = Arc::clone(self);
            threads.detach(move || this.refill());
        }
        match warm {
            Some(sandbox) => Ok(sandbox),
            None => Sandbox::new(self.memory_limit, self.stack_limit),
        }
    }

    fn refill(&self) {
        while self.lock().len() < WARM_SANDBOXES {
            match Sandbox::new(self.memory_limit, self.stack_limit) {
                Ok(sandbox) => self.lock().push(sandbox),
                Err(_) => break,
            }
        }
        self.refilling.store(false, Ordering::Release);
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<Sandbox>> {
        self.ready.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

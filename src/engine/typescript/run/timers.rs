//! The program's timers (`setTimeout`, `setInterval`): when each is due, in
//! due order. The prelude keeps the callbacks; the run keeps the times.

use std::collections::{BTreeMap, HashMap};
use std::time::Duration;

use tokio::time::Instant;

use super::Shared;

/// The pending timers of one run.
#[derive(Default)]
pub(super) struct Timers {
    /// By due time, then id: the order they fire in.
    by_due: BTreeMap<(Instant, u32), ()>,
    due: HashMap<u32, Instant>,
    last_id: u32,
}

impl Timers {
    /// A timer due `delay_ms` from now (clamped to 0 … 1e9 s); its id.
    fn set(&mut self, delay_ms: f64) -> u32 {
        self.last_id += 1;
        let id = self.last_id;
        let delay = Duration::from_secs_f64((delay_ms / 1000.0).clamp(0.0, 1e9));
        let due = Instant::now() + delay;
        self.by_due.insert((due, id), ());
        self.due.insert(id, due);
        id
    }

    fn clear(&mut self, id: u32) {
        if let Some(due) = self.due.remove(&id) {
            self.by_due.remove(&(due, id));
        }
    }

    /// The ids of the timers due by `now`, in firing order; they are gone.
    pub(super) fn take_due(&mut self, now: Instant) -> Vec<u32> {
        let mut fired = Vec::new();
        while let Some(entry) = self.by_due.first_entry() {
            let (at, id) = *entry.key();
            if at > now {
                break;
            }
            entry.remove();
            self.due.remove(&id);
            fired.push(id);
        }
        fired
    }

    /// When the next timer is due.
    pub(super) fn next_due(&self) -> Option<Instant> {
        self.by_due.keys().next().map(|(due, _)| *due)
    }

    /// How many are pending.
    pub(super) fn pending(&self) -> usize {
        self.due.len()
    }

    /// Drops every pending timer; how many there were.
    pub(super) fn drop_all(&mut self) -> usize {
        self.due.clear();
        std::mem::take(&mut self.by_due).len()
    }
}

impl Shared {
    /// `setTimer(delay)` from the prelude.
    pub(super) fn set_timer(&self, delay_ms: f64) -> u32 {
        self.lock().timers.set(delay_ms)
    }

    /// `clearTimer(id)` from the prelude.
    pub(super) fn clear_timer(&self, id: u32) {
        self.lock().timers.clear(id);
    }
}

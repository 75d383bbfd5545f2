//! Per-run admission of sub-calls (contracts §6, concurrency): at most
//! `cap` in flight, read-only calls overlap, a mutating call waits for every
//! earlier call and runs alone, admission strictly in submission order.

use std::collections::VecDeque;

/// A sub-call waiting for admission.
#[derive(Debug)]
pub(crate) struct Queued<T> {
    pub(crate) read_only: bool,
    pub(crate) item: T,
}

/// The admission state of one run.
#[derive(Debug)]
pub(crate) struct Scheduler<T> {
    cap: usize,
    queue: VecDeque<Queued<T>>,
    in_flight: usize,
    mutating_in_flight: bool,
}

impl<T> Scheduler<T> {
    pub(crate) fn new(cap: usize) -> Self {
        Self {
            cap: cap.max(1),
            queue: VecDeque::new(),
            in_flight: 0,
            mutating_in_flight: false,
        }
    }

    pub(crate) fn submit(&mut self, read_only: bool, item: T) {
        self.queue.push_back(Queued { read_only, item });
    }

    /// The next call that may start now, if any; it counts as in flight.
    pub(crate) fn admit(&mut self) -> Option<T> {
        let front = self.queue.front()?;
        let admissible = if front.read_only {
            !self.mutating_in_flight && self.in_flight < self.cap
        } else {
            self.in_flight == 0
        };
        if !admissible {
            return None;
        }
        let Queued { read_only, item } = self.queue.pop_front()?;
        self.in_flight += 1;
        self.mutating_in_flight = !read_only;
        Some(item)
    }

    /// A call admitted earlier has settled.
    pub(crate) fn settled(&mut self) {
        self.in_flight = self.in_flight.saturating_sub(1);
        if self.in_flight == 0 {
            self.mutating_in_flight = false;
        }
    }

    #[cfg(test)]
    pub(crate) fn in_flight(&self) -> usize {
        self.in_flight
    }

    /// The calls waiting for admission.
    pub(crate) fn queued(&self) -> usize {
        self.queue.len()
    }

    /// Empties the queue (the run ended): these calls never start.
    pub(crate) fn drain_queue(&mut self) -> impl Iterator<Item = T> + '_ {
        self.queue.drain(..).map(|q| q.item)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn admit_all(s: &mut Scheduler<u32>) -> Vec<u32> {
        std::iter::from_fn(|| s.admit()).collect()
    }

    #[test]
    fn read_only_calls_overlap_up_to_the_cap() {
        let mut s = Scheduler::new(3);
        for i in 1..=5 {
            s.submit(true, i);
        }
        assert_eq!(admit_all(&mut s), [1, 2, 3]);
        s.settled();
        assert_eq!(admit_all(&mut s), [4]);
        assert_eq!(s.in_flight(), 3);
    }

    #[test]
    fn a_mutating_call_waits_for_earlier_calls_and_runs_alone() {
        let mut s = Scheduler::new(10);
        s.submit(true, 1);
        s.submit(true, 2);
        s.submit(false, 3);
        s.submit(true, 4);
        assert_eq!(admit_all(&mut s), [1, 2]);
        s.settled();
        assert_eq!(admit_all(&mut s), [0u32; 0], "3 waits for 2");
        s.settled();
        assert_eq!(admit_all(&mut s), [3]);
        assert_eq!(
            admit_all(&mut s),
            [0u32; 0],
            "4 waits for the mutating 3 (FIFO)"
        );
        s.settled();
        assert_eq!(admit_all(&mut s), [4]);
    }

    #[test]
    fn cap_of_one_is_strictly_serial() {
        let mut s = Scheduler::new(1);
        s.submit(true, 1);
        s.submit(true, 2);
        assert_eq!(admit_all(&mut s), [1]);
        s.settled();
        assert_eq!(admit_all(&mut s), [2]);
    }

    #[test]
    fn drained_calls_never_start() {
        let mut s = Scheduler::new(1);
        s.submit(true, 1);
        s.submit(true, 2);
        assert_eq!(admit_all(&mut s), [1]);
        assert_eq!(s.drain_queue().collect::<Vec<_>>(), [2]);
        s.settled();
        assert_eq!(admit_all(&mut s), [0u32; 0]);
    }
}

//! A run's budgets besides its deadline (contracts §6, "Budgets"): the CPU
//! its program may use, counted apart from waiting on tools, and the
//! sub-calls it may make. One per run, shared by the language that spends
//! it and the report that states it.
//!
//! CPU is what the program's own sandbox computes: the sandbox thread's
//! time in the run's steps (TypeScript: stripping, JavaScript, values in
//! and out) or the worker process's (Python). A thread computes no faster
//! than the clock, so a stretch of work is measured only once as much wall
//! time has passed as the budget has left: a run well within its budget
//! reads the CPU clock twice a step and no more.

use std::sync::atomic::{AtomicBool, AtomicI32, AtomicU32, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use crate::contract::call::{ErrorCode, ToolError};

/// One run's budgets and what it spent of them.
pub(crate) struct RunBudget {
    cpu_budget_ns: u64,
    /// CPU of finished stretches (or the whole, when measured as one).
    cpu_used_ns: AtomicU64,
    cpu_spent: AtomicBool,
    /// The thread CPU clock when the current stretch began.
    stretch_start_ns: AtomicU64,
    /// The CPU clock of the current stretch's thread: a stretch whose
    /// thread was given up on is still counted.
    stretch_clock: AtomicI32,
    /// When (ns after `epoch`) the current stretch is next measured.
    check_at_ns: AtomicU64,
    epoch: Instant,
    max_sub_calls: u32,
    refused_calls: AtomicU32,
}

impl RunBudget {
    pub(crate) fn new(cpu: Duration, max_sub_calls: u32) -> Self {
        Self {
            cpu_budget_ns: nanos(cpu),
            cpu_used_ns: AtomicU64::new(0),
            cpu_spent: AtomicBool::new(false),
            stretch_start_ns: AtomicU64::new(0),
            stretch_clock: AtomicI32::new(NO_CLOCK),
            check_at_ns: AtomicU64::new(u64::MAX),
            epoch: Instant::now(),
            max_sub_calls,
            refused_calls: AtomicU32::new(0),
        }
    }

    /// The CPU the program may use.
    pub(crate) fn cpu_budget(&self) -> Duration {
        Duration::from_nanos(self.cpu_budget_ns)
    }

    /// The CPU the program used so far, a stretch under way included (a
    /// step whose thread was given up on).
    pub(crate) fn cpu_used(&self) -> Duration {
        let open = self.check_at_ns.load(Ordering::Acquire) != u64::MAX;
        let mut used = self.cpu_used_ns.load(Ordering::Acquire);
        let clock = self.stretch_clock.load(Ordering::Relaxed);
        if open && clock != NO_CLOCK {
            let ran = clock_ns(clock).saturating_sub(self.stretch_start_ns.load(Ordering::Relaxed));
            used = used.saturating_add(ran);
        }
        Duration::from_nanos(used)
    }

    /// Whether the program used all of its CPU (it was stopped for it).
    pub(crate) fn cpu_spent(&self) -> bool {
        self.cpu_spent.load(Ordering::Acquire)
    }

    /// The program's CPU so far is `ns` in all (a whole measured at once,
    /// as a worker process's); the budget is marked spent when it is.
    #[cfg(feature = "python")]
    pub(crate) fn cpu_measured(&self, ns: u64) {
        self.cpu_used_ns.store(ns, Ordering::Release);
        self.judge(ns);
    }

    /// The CPU the budget has left.
    pub(crate) fn cpu_left(&self) -> Duration {
        let used = self.cpu_used_ns.load(Ordering::Acquire);
        Duration::from_nanos(self.cpu_budget_ns.saturating_sub(used))
    }

    fn judge(&self, used: u64) -> bool {
        let spent = used >= self.cpu_budget_ns;
        if spent {
            self.cpu_spent.store(true, Ordering::Release);
        }
        spent
    }

    /// A stretch of the run's work on this thread begins (a step of a
    /// TypeScript run); it ends when the stretch is dropped.
    pub(crate) fn stretch(&self) -> Stretch<'_> {
        self.stretch_clock
            .store(this_thread_clock(), Ordering::Relaxed);
        self.stretch_start_ns
            .store(thread_time_ns(), Ordering::Relaxed);
        let left = self.cpu_left();
        let check_at = self.since_epoch().saturating_add(nanos(left));
        // Released after the stretch's clock and start, which a reader
        // from another thread then sees (`cpu_used`).
        self.check_at_ns.store(check_at, Ordering::Release);
        Stretch { budget: self }
    }

    /// Whether the budget is spent, counting the stretch this thread is in
    /// (asked by the interrupt handler, on the stretch's thread). The CPU
    /// clock is read only once the stretch could have spent it.
    pub(crate) fn spent_in_stretch(&self) -> bool {
        if self.cpu_spent() {
            return true;
        }
        let now = self.since_epoch();
        if now < self.check_at_ns.load(Ordering::Relaxed) {
            return false;
        }
        let ran = thread_time_ns().saturating_sub(self.stretch_start_ns.load(Ordering::Relaxed));
        let used = self.cpu_used_ns.load(Ordering::Acquire).saturating_add(ran);
        if self.judge(used) {
            return true;
        }
        let left = self.cpu_budget_ns - used;
        self.check_at_ns
            .store(now.saturating_add(left), Ordering::Relaxed);
        false
    }

    /// How long until the current stretch could have spent the budget
    /// (when it is next to be measured); the budget left, between stretches.
    pub(crate) fn until_check(&self) -> Duration {
        match self.check_at_ns.load(Ordering::Relaxed) {
            u64::MAX => self.cpu_left(),
            at => Duration::from_nanos(at.saturating_sub(self.since_epoch())),
        }
    }

    /// Calls `check` whenever the program could have spent the budget
    /// since the last look (it computes on one thread, no faster than the
    /// clock), at most once per `every`, until the budget is spent: a
    /// TypeScript step has its interrupt handler asked, a Python worker is
    /// measured.
    pub(crate) async fn look_when_due(&self, every: Duration, mut check: impl FnMut()) {
        while !self.cpu_spent() {
            tokio::time::sleep(self.until_check().max(every)).await;
            check();
        }
    }

    fn since_epoch(&self) -> u64 {
        nanos(self.epoch.elapsed())
    }

    /// A sub-call is about to be made, `made` having been made before it:
    /// the refusal when the budget has none left (counted for the
    /// outcome's text).
    pub(crate) fn refuse_call(&self, made: u32) -> Option<ToolError> {
        if made < self.max_sub_calls {
            return None;
        }
        self.refused_calls.fetch_add(1, Ordering::Relaxed);
        Some(ToolError::new(
            ErrorCode::Denied,
            format!(
                "this run may make {} and made {}: no more may follow. Do the work in fewer calls (a tool that takes many items at once) or across several runs",
                self.sub_calls(),
                if self.max_sub_calls == 1 {
                    "it"
                } else {
                    "them all"
                }
            ),
        ))
    }

    /// The budget in words: `1 sub-call`, `10000 sub-calls`.
    fn sub_calls(&self) -> String {
        match self.max_sub_calls {
            1 => "1 sub-call".to_owned(),
            n => format!("{n} sub-calls"),
        }
    }

    /// The outcome's note on refused sub-calls, if any were.
    pub(crate) fn refused_note(&self) -> Option<String> {
        let refused = self.refused_calls.load(Ordering::Relaxed);
        (refused > 0).then(|| {
            let calls = if refused == 1 {
                "call was"
            } else {
                "calls were"
            };
            format!(
                "[run_code: the run made {}, its budget; {refused} more {calls} refused]",
                self.sub_calls()
            )
        })
    }
}

/// A stretch of a run's work on one thread: its CPU is added to the run's
/// when it ends.
pub(crate) struct Stretch<'a> {
    budget: &'a RunBudget,
}

impl Drop for Stretch<'_> {
    fn drop(&mut self) {
        let budget = self.budget;
        let ran = thread_time_ns().saturating_sub(budget.stretch_start_ns.load(Ordering::Relaxed));
        // Closed before it is added: a reader on another thread may count
        // it once late, never twice.
        budget.check_at_ns.store(u64::MAX, Ordering::Release);
        let used = budget.cpu_used_ns.fetch_add(ran, Ordering::AcqRel) + ran;
        budget.judge(used);
    }
}

fn nanos(d: Duration) -> u64 {
    u64::try_from(d.as_nanos()).unwrap_or(u64::MAX)
}

/// The calling thread's CPU time, in ns.
fn thread_time_ns() -> u64 {
    clock_ns(libc::CLOCK_THREAD_CPUTIME_ID)
}

/// No clock another thread can read: a stretch under way is then counted
/// when it ends.
const NO_CLOCK: libc::clockid_t = libc::clockid_t::MIN;

/// The CPU clock of the calling thread that other threads can read too.
#[cfg(target_os = "linux")]
fn this_thread_clock() -> libc::clockid_t {
    let mut clock = NO_CLOCK;
    // SAFETY: `pthread_self` is this live thread; `clock` is valid to write.
    let found = unsafe { libc::pthread_getcpuclockid(libc::pthread_self(), &mut clock) };
    match found {
        0 => clock,
        _ => NO_CLOCK,
    }
}

#[cfg(not(target_os = "linux"))]
fn this_thread_clock() -> libc::clockid_t {
    NO_CLOCK
}

/// A clock's time in ns (0 when it cannot be read).
fn clock_ns(clock: libc::clockid_t) -> u64 {
    let mut now = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `now` is a valid timespec to write; an unknown clock is an
    // error, not undefined behaviour.
    let read = unsafe { libc::clock_gettime(clock, &mut now) };
    if read != 0 {
        return 0;
    }
    let secs = u64::try_from(now.tv_sec).unwrap_or(0);
    let nsecs = u64::try_from(now.tv_nsec).unwrap_or(0);
    secs.saturating_mul(1_000_000_000).saturating_add(nsecs)
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::RunBudget;

    /// Computes for `ms` of this thread's CPU (not of the clock: a loaded
    /// machine gives a thread less CPU than wall time).
    fn spin(ms: u64) {
        let until = super::thread_time_ns() + ms * 1_000_000;
        let mut x = 0u64;
        while super::thread_time_ns() < until {
            x = std::hint::black_box(x.wrapping_add(1));
        }
    }

    /// A stretch counts the thread's computing, not its sleeping, and the
    /// budget is spent once the computing reaches it, mid-stretch too.
    #[test]
    fn a_stretch_counts_computing_not_waiting() {
        let budget = RunBudget::new(Duration::from_millis(60), 10);
        {
            let _stretch = budget.stretch();
            std::thread::sleep(Duration::from_millis(80));
            assert!(!budget.spent_in_stretch(), "sleeping is not computing");
            spin(25);
        }
        let used = budget.cpu_used();
        assert!(
            used >= Duration::from_millis(20) && used < Duration::from_millis(60),
            "{used:?}"
        );
        assert!(!budget.cpu_spent());
        let _stretch = budget.stretch();
        let started = std::time::Instant::now();
        while !budget.spent_in_stretch() {
            assert!(started.elapsed() < Duration::from_secs(20), "never spent");
            spin(1);
        }
        assert!(budget.cpu_spent());
    }

    /// The clock is next read when the stretch could have spent what is
    /// left of the budget, no sooner: at the start, the whole budget away;
    /// after a measure, what the measure left.
    #[test]
    fn the_clock_is_read_when_the_budget_could_be_spent() {
        let budget = RunBudget::new(Duration::from_millis(60), 10);
        let _stretch = budget.stretch();
        let first = budget.until_check();
        // 60 ms less what preemption took since the stretch began.
        assert!(first > Duration::from_millis(30), "{first:?}");
        spin(20);
        std::thread::sleep(first);
        assert!(!budget.spent_in_stretch());
        let next = budget.until_check();
        assert!(
            next >= Duration::from_millis(20) && next <= Duration::from_millis(41),
            "about 60 - 20 ms: {next:?}"
        );
    }

    /// Sub-calls past the budget are refused, each counted for the note.
    #[test]
    fn calls_past_the_budget_are_refused_and_counted() {
        let budget = RunBudget::new(Duration::from_secs(1), 2);
        assert!(budget.refuse_call(0).is_none() && budget.refuse_call(1).is_none());
        assert_eq!(budget.refused_note(), None);
        let refused = budget.refuse_call(2).unwrap();
        assert_eq!(refused.code.as_str(), "DENIED");
        assert!(refused.message.starts_with("this run may make 2 sub-calls"));
        budget.refuse_call(2);
        assert_eq!(
            budget.refused_note().unwrap(),
            "[run_code: the run made 2 sub-calls, its budget; 2 more calls were refused]"
        );
        let one = RunBudget::new(Duration::from_secs(1), 1);
        assert!(
            one.refuse_call(1)
                .unwrap()
                .message
                .starts_with("this run may make 1 sub-call and made it: ")
        );
        assert_eq!(
            one.refused_note().unwrap(),
            "[run_code: the run made 1 sub-call, its budget; 1 more call was refused]"
        );
    }
}

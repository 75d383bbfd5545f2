//! Sandbox threads: where JavaScript and the TypeScript parser run.
//!
//! Not tokio's workers (a busy program would stall every other run's tool
//! calls) and not one thread per run (a run that only awaits tools holds no
//! thread). Jobs are short steps of a run. A pool keeps about one thread per
//! core; when every thread has been busy for a while (CPU-bound programs) a
//! monitor adds threads, so a busy run never holds up another run's step for
//! long, up to a ceiling ([`max_threads`]): past a few threads per core, more
//! add no throughput to CPU-bound runs, only memory and switching, and a
//! flood of runs must not grow the process without end. A retired thread
//! (a job given up on) does not count against the ceiling while it is stuck.
//! Threads have an explicit, generous stack; idle extra threads exit.

use std::collections::VecDeque;
use std::future::Future;
use std::sync::atomic::{AtomicU8, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::time::{Duration, Instant};

type Job = Box<dyn FnOnce() + Send + 'static>;

/// How long a queued job may wait before the monitor adds a thread.
const STALL: Duration = Duration::from_millis(2);
/// How long an idle thread above the core count lingers.
const IDLE_EXIT: Duration = Duration::from_secs(10);

struct Pool {
    state: Mutex<PoolState>,
    work: Condvar,
    monitor: Condvar,
    stack_size: usize,
    core_threads: usize,
    max_threads: usize,
}

struct PoolState {
    queue: VecDeque<(Instant, Job)>,
    threads: usize,
    idle: usize,
    /// Threads held by jobs given up on: the ceiling is raised by as many.
    retired: usize,
    monitor_running: bool,
    shutdown: bool,
}

/// A pool of sandbox threads with a fixed stack size. One per stack size
/// per process (see [`SandboxThreads::shared`]), whatever the number of
/// engines: a host that makes an engine per session does not multiply
/// threads.
pub(crate) struct SandboxThreads {
    pool: Arc<Pool>,
}

/// One engine's count of the jobs it gave up on (see
/// [`SandboxThreads::run_or_abandon`]).
#[derive(Default)]
pub(crate) struct Retirements {
    /// Given up on and not returned yet: each holds a thread.
    stuck: Arc<AtomicUsize>,
    /// Given up on, ever.
    total: AtomicU64,
}

impl Retirements {
    /// Jobs given up on, ever, and those of them that still hold a thread.
    pub(crate) fn counts(&self) -> (u64, usize) {
        let total = self.total.load(Ordering::Acquire);
        (total, self.stuck.load(Ordering::Acquire))
    }
}

/// The caller stopped waiting for a job; its thread was retired.
#[derive(Debug)]
pub(crate) struct Abandoned;

/// Where a job given to [`SandboxThreads::run_or_abandon`] stands.
const RUNNING: u8 = 0;
const RETURNED: u8 = 1;
const ABANDONED: u8 = 2;

/// Settles a job's state when it returns or unwinds: a job that was given up
/// on is no longer stuck.
struct Returning {
    state: Arc<AtomicU8>,
    stuck: Arc<AtomicUsize>,
    pool: Arc<Pool>,
    started: Instant,
}

impl Drop for Returning {
    fn drop(&mut self) {
        let settled =
            self.state
                .compare_exchange(RUNNING, RETURNED, Ordering::AcqRel, Ordering::Acquire);
        if settled == Err(ABANDONED) {
            self.stuck.fetch_sub(1, Ordering::AcqRel);
            self.pool.lock().retired -= 1;
            tracing::warn!(
                seconds = self.started.elapsed().as_secs_f64(),
                "a retired sandbox thread returned and rejoins the pool"
            );
        }
    }
}

impl SandboxThreads {
    /// The process's pool for this stack size, made on first use and kept
    /// while an engine holds it.
    pub(crate) fn shared(stack_size: usize) -> Arc<Self> {
        static POOLS: Mutex<Vec<(usize, std::sync::Weak<SandboxThreads>)>> = Mutex::new(Vec::new());
        let mut pools = POOLS.lock().unwrap_or_else(PoisonError::into_inner);
        pools.retain(|(_, pool)| pool.strong_count() > 0);
        if let Some(pool) = pools
            .iter()
            .find(|(size, _)| *size == stack_size)
            .and_then(|(_, pool)| pool.upgrade())
        {
            return pool;
        }
        let pool = Arc::new(Self::new(stack_size));
        pools.push((stack_size, Arc::downgrade(&pool)));
        pool
    }

    pub(crate) fn new(stack_size: usize) -> Self {
        let core_threads = std::thread::available_parallelism().map_or(2, |n| n.get());
        Self::with_ceiling(stack_size, core_threads, max_threads(core_threads))
    }

    fn with_ceiling(stack_size: usize, core_threads: usize, max_threads: usize) -> Self {
        Self {
            pool: Arc::new(Pool {
                state: Mutex::new(PoolState {
                    queue: VecDeque::new(),
                    threads: 0,
                    idle: 0,
                    retired: 0,
                    monitor_running: false,
                    shutdown: false,
                }),
                work: Condvar::new(),
                monitor: Condvar::new(),
                stack_size,
                core_threads,
                max_threads,
            }),
        }
    }

    /// Runs `job` on a sandbox thread and returns its result, unless
    /// `give_up` completes first: then it stops waiting. The job's thread is retired (counted in
    /// `retirements`, logged) and the pool adds another, so a job
    /// stuck where no interrupt reaches cannot hold its caller or the pool.
    /// The job's result is dropped on its own thread when it returns.
    pub(crate) async fn run_or_abandon<R: Send + 'static>(
        &self,
        job: impl FnOnce() -> R + Send + 'static,
        give_up: impl Future<Output = ()>,
        retirements: &Retirements,
    ) -> Result<R, Abandoned> {
        let state = Arc::new(AtomicU8::new(RUNNING));
        let returning = Returning {
            state: Arc::clone(&state),
            stuck: Arc::clone(&retirements.stuck),
            pool: Arc::clone(&self.pool),
            started: Instant::now(),
        };
        let (tx, rx) = tokio::sync::oneshot::channel();
        self.spawn(Box::new(move || {
            let result = job();
            drop(returning);
            let _ = tx.send(result);
        }));
        tokio::pin!(rx);
        tokio::select! {
            biased;
            answer = &mut rx => return Ok(answer.unwrap_or_else(|_| panic!("a sandbox job panicked"))),
            () = give_up => {}
        }
        match state.compare_exchange(RUNNING, ABANDONED, Ordering::AcqRel, Ordering::Acquire) {
            Ok(_) => {
                self.pool.lock().retired += 1;
                self.pool.monitor.notify_one();
                retirements.stuck.fetch_add(1, Ordering::AcqRel);
                retirements.total.fetch_add(1, Ordering::AcqRel);
                tracing::warn!(
                    "a sandbox job outlived its deadline and grace: its thread is retired"
                );
                Err(Abandoned)
            }
            // It returned just now: its answer is on the way.
            Err(_) => Ok(rx
                .await
                .unwrap_or_else(|_| panic!("a sandbox job panicked"))),
        }
    }

    /// Runs `job` on a sandbox thread without waiting for it.
    pub(crate) fn detach(&self, job: impl FnOnce() + Send + 'static) {
        self.spawn(Box::new(job));
    }

    fn spawn(&self, job: Job) {
        let pool = &self.pool;
        let mut state = pool.lock();
        state.queue.push_back((Instant::now(), job));
        if state.idle > 0 {
            pool.work.notify_one();
        } else if state.threads < pool.core_threads {
            Self::add_thread(pool, &mut state);
        } else if !state.monitor_running {
            state.monitor_running = true;
            let pool = Arc::clone(pool);
            let _ = std::thread::Builder::new()
                .name("ptc-monitor".into())
                .spawn(move || monitor(pool));
        } else {
            pool.monitor.notify_one();
        }
    }

    fn add_thread(pool: &Arc<Pool>, state: &mut PoolState) {
        let worker_pool = Arc::clone(pool);
        let spawned = std::thread::Builder::new()
            .name("ptc-sandbox".into())
            .stack_size(pool.stack_size)
            .spawn(move || worker(worker_pool));
        if spawned.is_ok() {
            state.threads += 1;
        }
    }
}

impl Drop for SandboxThreads {
    fn drop(&mut self) {
        let mut state = self
            .pool
            .state
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        state.shutdown = true;
        self.pool.work.notify_all();
        self.pool.monitor.notify_all();
    }
}

impl Pool {
    fn lock(&self) -> std::sync::MutexGuard<'_, PoolState> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Whether the monitor may add a thread: below the ceiling, not
    /// counting the threads retired jobs hold.
    fn may_grow(&self, state: &PoolState) -> bool {
        state.threads < self.max_threads + state.retired
    }
}

/// The most sandbox threads a pool keeps busy: four per core, at least 16
/// (a few busy programs never hold up a short step for long) and at most 64.
pub(crate) fn max_threads(cores: usize) -> usize {
    (4 * cores).clamp(16, 64)
}

fn worker(pool: Arc<Pool>) {
    let mut state = pool.state.lock().unwrap_or_else(PoisonError::into_inner);
    loop {
        if let Some((_, job)) = state.queue.pop_front() {
            drop(state);
            // A panicking job drops its result sender; the caller sees it.
            let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(job));
            state = pool.state.lock().unwrap_or_else(PoisonError::into_inner);
            continue;
        }
        if state.shutdown {
            break;
        }
        state.idle += 1;
        let (next, timeout) = pool
            .work
            .wait_timeout(state, IDLE_EXIT)
            .unwrap_or_else(PoisonError::into_inner);
        state = next;
        state.idle -= 1;
        if timeout.timed_out() && state.queue.is_empty() && state.threads > pool.core_threads {
            break;
        }
    }
    state.threads -= 1;
}

/// Adds a thread whenever the oldest queued job has waited longer than
/// [`STALL`] with no idle thread to take it.
fn monitor(pool: Arc<Pool>) {
    let mut state = pool.state.lock().unwrap_or_else(PoisonError::into_inner);
    while !state.shutdown {
        match state.queue.front() {
            None => {
                state = pool
                    .monitor
                    .wait_timeout(state, IDLE_EXIT)
                    .unwrap_or_else(PoisonError::into_inner)
                    .0;
                if state.queue.is_empty() {
                    break;
                }
            }
            Some((queued_at, _)) => {
                let waited = queued_at.elapsed();
                if waited >= STALL && state.idle == 0 && pool.may_grow(&state) {
                    SandboxThreads::add_thread(&pool, &mut state);
                    state = pool
                        .monitor
                        .wait_timeout(state, STALL)
                        .unwrap_or_else(PoisonError::into_inner)
                        .0;
                } else {
                    let wait = STALL.saturating_sub(waited).max(Duration::from_micros(200));
                    state = pool
                        .monitor
                        .wait_timeout(state, wait)
                        .unwrap_or_else(PoisonError::into_inner)
                        .0;
                }
            }
        }
    }
    state.monitor_running = false;
}

/// Sandbox threads the engine stopped waiting for (see [`Engine::retired_threads`](crate::Engine::retired_threads)).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub struct RetiredThreads {
    /// Retired since the engine was made.
    pub total: u64,
    /// Of those, the ones whose JavaScript still runs.
    pub still_stuck: usize,
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicBool, Ordering};

    #[tokio::test]
    async fn runs_jobs_with_the_configured_stack() {
        let pool = SandboxThreads::new(16 << 20);
        // Recursion that needs several MiB of stack.
        fn depth(n: u64) -> u64 {
            let pad = [n; 64];
            if n == 0 {
                0
            } else {
                std::hint::black_box(pad)[0] % 2 + depth(n - 1)
            }
        }
        let retirements = Retirements::default();
        let deep = pool.run_or_abandon(|| depth(10_000), std::future::pending(), &retirements);
        assert_eq!(deep.await.unwrap(), 5_000);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn busy_jobs_do_not_starve_a_short_one() {
        let pool = Arc::new(SandboxThreads::new(1 << 20));
        let stop = Arc::new(AtomicBool::new(false));
        let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
        let mut busy = Vec::new();
        for _ in 0..cores + 1 {
            let (pool, stop) = (Arc::clone(&pool), Arc::clone(&stop));
            busy.push(tokio::spawn(async move {
                let spin = move || {
                    while !stop.load(Ordering::Relaxed) {
                        std::hint::spin_loop()
                    }
                };
                pool.run_or_abandon(spin, std::future::pending(), &Retirements::default())
                    .await
            }));
        }
        // Generous bound: the monitor adds a thread after a few ms.
        let retirements = Retirements::default();
        let quick = pool.run_or_abandon(|| 42, std::future::pending(), &retirements);
        let quick = tokio::time::timeout(Duration::from_secs(5), quick).await;
        stop.store(true, Ordering::Relaxed);
        assert_eq!(quick.ok().and_then(Result::ok), Some(42));
        for b in busy {
            b.await.unwrap().unwrap();
        }
    }
}

#[cfg(test)]
mod ceiling {
    use super::*;
    use std::sync::atomic::{AtomicBool, Ordering};

    fn spinner(stop: &Arc<AtomicBool>) -> impl FnOnce() + Send + 'static {
        let stop = Arc::clone(stop);
        move || {
            while !stop.load(Ordering::Relaxed) {
                std::hint::spin_loop()
            }
        }
    }

    #[test]
    fn four_per_core_within_16_and_64() {
        assert_eq!(max_threads(1), 16);
        assert_eq!(max_threads(2), 16);
        assert_eq!(max_threads(8), 32);
        assert_eq!(max_threads(64), 64);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_flood_of_busy_jobs_stays_under_the_ceiling() {
        let pool = Arc::new(SandboxThreads::with_ceiling(1 << 20, 1, 3));
        let stop = Arc::new(AtomicBool::new(false));
        let mut busy = Vec::new();
        for _ in 0..12 {
            let (pool, job) = (Arc::clone(&pool), spinner(&stop));
            busy.push(tokio::spawn(async move {
                pool.run_or_abandon(job, std::future::pending(), &Retirements::default())
                    .await
            }));
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
        let threads = pool.pool.lock().threads;
        stop.store(true, Ordering::Relaxed);
        assert_eq!(threads, 3, "the monitor grew to the ceiling and no further");
        for b in busy {
            b.await.unwrap().unwrap();
        }
    }

    /// A job given up on holds its thread; the ceiling rises by one so the
    /// pool still serves the next job.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_retired_thread_does_not_count() {
        let pool = SandboxThreads::with_ceiling(1 << 20, 1, 1);
        let stop = Arc::new(AtomicBool::new(false));
        let retirements = Retirements::default();
        let give_up = tokio::time::sleep(Duration::from_millis(20));
        let stuck = pool.run_or_abandon(spinner(&stop), give_up, &retirements);
        assert!(stuck.await.is_err());
        let quick = pool.run_or_abandon(|| 42, std::future::pending(), &retirements);
        let quick = tokio::time::timeout(Duration::from_secs(5), quick).await;
        stop.store(true, Ordering::Relaxed);
        assert_eq!(quick.ok().and_then(Result::ok), Some(42));
    }
}

#[cfg(test)]
mod sharing {
    use super::*;

    #[test]
    fn one_pool_per_stack_size_while_held() {
        let a = SandboxThreads::shared(3 << 20);
        let b = SandboxThreads::shared(3 << 20);
        let other = SandboxThreads::shared(5 << 20);
        assert!(Arc::ptr_eq(&a, &b));
        assert!(!Arc::ptr_eq(&a, &other));
        let weak = Arc::downgrade(&a);
        drop((a, b));
        assert_eq!(weak.strong_count(), 0, "released with its last engine");
    }
}

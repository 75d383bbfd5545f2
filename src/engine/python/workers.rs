//! Python workers' lives (contracts, Python programs, "Workers"): which
//! binary, how many at most, how many kept warm, and that none outlives
//! its run or ptc.
//!
//! Monty's pool (`monty-pool`) spawns each worker itself, so nothing of
//! ptc runs in a worker before it executes. What ptc has instead:
//!
//! - **A run's worker** is killed when the run ends at its deadline or
//!   cancellation: the run's checkout is dropped (the pool's kill-on-drop).
//! - **Idle workers** end on their own when ptc ends: an idle worker waits
//!   on its stdin, whose other end only ptc holds, and exits at end of file.
//! - **Busy workers** do not read their stdin; so while a worker runs a
//!   program its process id is in a table a watchdog process reads when
//!   ptc is gone ([`watch`]). The watchdog is `/bin/sh` waiting for end of
//!   file on a pipe only ptc holds: whatever ends ptc, SIGKILL included,
//!   the kernel closes it, and the watchdog kills every id in the table.
//!   The table is shared memory: marking a worker busy and idle again
//!   costs two atomic stores, no system call.
//! - **Idle workers beyond the warm ones** are reaped within two seconds
//!   ([`reap_idle`]).

use std::os::fd::AsRawFd;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock, PoisonError, Weak};
use std::time::Duration;

use monty_pool::{Pool, PoolConfig, ReplConfig};

use crate::engine::budget::RunBudget;
use crate::limits::Limits;

/// The engine's Python workers: a pool started on the first Python run.
pub(in crate::engine) struct PythonRuntime {
    pool: tokio::sync::OnceCell<Arc<Pool>>,
    /// At most this many workers alive at once ([`ceiling`]).
    ceiling: usize,
    /// Idle workers kept; the rest are reaped ([`warm`]).
    warm: usize,
    /// The worker binary the host chose for this engine, if any.
    worker: Mutex<Option<PathBuf>>,
}

impl PythonRuntime {
    pub(in crate::engine) fn new(limits: &Limits) -> Self {
        let ceiling = ceiling(limits.memory_limit_bytes, limits.max_concurrent_runs);
        Self {
            pool: tokio::sync::OnceCell::new(),
            ceiling,
            warm: warm(ceiling),
            worker: Mutex::new(None),
        }
    }

    /// The worker binary this engine's runs use from its first Python run
    /// on (later calls change nothing once the pool has started).
    pub(in crate::engine) fn set_worker(&self, path: PathBuf) {
        *self.worker.lock().unwrap_or_else(PoisonError::into_inner) = Some(path);
    }

    fn chosen(&self) -> Option<PathBuf> {
        self.worker
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// Why no worker can start, if none can: no worker binary where
    /// [`worker_binary`] looks (said with how to install one).
    pub(in crate::engine) fn missing_worker(&self) -> Option<String> {
        if self.pool.initialized() {
            return None;
        }
        worker_binary(self.chosen()).err()
    }

    pub(super) async fn pool(&self) -> Result<&Pool, String> {
        self.pool
            .get_or_try_init(|| async {
                let chosen = self.chosen();
                let mut config = PoolConfig::subprocess(worker_binary(chosen)?);
                // Workers start on demand; one per live run at most.
                config.min_processes = 0;
                config.max_processes = self.ceiling;
                let pool = Arc::new(Pool::new(config).await.map_err(|e| e.to_string())?);
                start_watchdog();
                tokio::spawn(reap_idle(Arc::downgrade(&pool), self.warm));
                Ok(pool)
            })
            .await
            .map(|pool| &**pool)
    }
}

/// The worker binary: the engine's own choice, else `PTC_PYTHON_WORKER`,
/// else `monty` beside ptc's own executable (where a wheel's dependency
/// `pydantic-monty-runtime` puts it, of the pool's version), else `monty`
/// on `PATH`.
fn worker_binary(chosen: Option<PathBuf>) -> Result<PathBuf, String> {
    let named = match chosen {
        Some(path) => Some((path, "the host")),
        None => {
            // Empty is unset, as for PATH-like variables.
            std::env::var_os("PTC_PYTHON_WORKER")
                .filter(|p| !p.is_empty())
                .map(|p| (PathBuf::from(p), "PTC_PYTHON_WORKER"))
        }
    };
    if let Some((path, by)) = named {
        // A bare name is looked up on PATH, as spawning it would.
        let bare = path.components().count() == 1 && !path.is_absolute();
        let found = match bare {
            true => on_path(&path).next(),
            false => Some(path.clone()).filter(|p| is_executable(p)),
        };
        return found.ok_or_else(|| {
            let place = if bare {
                "on PATH"
            } else {
                "an executable file"
            };
            format!(
                "Python programs need Monty's worker, and {by} named {}, which is not {place}",
                path.display()
            )
        });
    }
    let beside = std::env::current_exe()
        .ok()
        .and_then(|exe| Some(exe.parent()?.join("monty")));
    beside
        .into_iter()
        .filter(|path| is_executable(path))
        .chain(on_path(Path::new("monty")))
        .next()
        .ok_or_else(|| {
            "Python programs need Monty's worker: install it (`pip install pydantic-monty-runtime==1.4.0`) so `monty` is on PATH, or set PTC_PYTHON_WORKER to its path".to_owned()
        })
}

/// The files named `name` in the folders of `PATH`, in its order.
fn on_path(name: &Path) -> impl Iterator<Item = PathBuf> + '_ {
    let folders = std::env::var_os("PATH")
        .map(|paths| std::env::split_paths(&paths).collect::<Vec<_>>())
        .unwrap_or_default();
    folders
        .into_iter()
        .map(move |folder| folder.join(name))
        .filter(|path| is_executable(path))
}

/// Whether `path` is a file someone may execute (as spawning it needs).
fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// What a worker takes besides its program's memory limit: its own pages
/// (the binary, the interpreter's state; about 10 MiB resident, most of it
/// shared between workers) rounded up.
const WORKER_OWN_BYTES: usize = 16 << 20;

/// The most workers alive at once: as many as fit in the machine's memory
/// with each at its run's memory limit ([`machine_memory`] ÷ (the memory
/// limit + [`WORKER_OWN_BYTES`])), at least one, at most the runs the
/// engine admits at once. Cores are no bound: a worker waiting on its
/// tools takes none, and busy ones share them until their deadlines;
/// memory is, since past it the kernel's OOM killer picks a process,
/// maybe ptc. A run that finds the pool full waits for a worker within its
/// deadline.
fn ceiling(memory_limit: usize, max_concurrent_runs: usize) -> usize {
    let each = memory_limit.saturating_add(WORKER_OWN_BYTES);
    (machine_memory() / each).clamp(1, max_concurrent_runs.max(1))
}

/// Idle workers kept warm: one per core (at most the ceiling). A run that
/// finds one warm skips a worker's start (a few milliseconds: a process,
/// the interpreter, a session); runs beyond the cores at once would only
/// share the cores, so a burst past them pays those milliseconds per
/// extra worker, and its workers go when idle.
fn warm(ceiling: usize) -> usize {
    std::thread::available_parallelism()
        .map_or(1, std::num::NonZero::get)
        .min(ceiling)
}

/// The memory this process may use: the machine's, or less when its
/// cgroup (v2: a container's limit) says so.
fn machine_memory() -> usize {
    // SAFETY: sysconf reads a system setting; no memory is touched.
    let (pages, page) = unsafe {
        (
            libc::sysconf(libc::_SC_PHYS_PAGES),
            libc::sysconf(libc::_SC_PAGESIZE),
        )
    };
    let physical = usize::try_from(pages)
        .ok()
        .zip(usize::try_from(page).ok())
        .map_or(usize::MAX, |(pages, page)| pages.saturating_mul(page));
    physical.min(cgroup_memory().unwrap_or(usize::MAX))
}

/// The `memory.max` of this process's cgroup (v2), when it sets one.
fn cgroup_memory() -> Option<usize> {
    let cgroup = std::fs::read_to_string("/proc/self/cgroup").ok()?;
    let path = cgroup.lines().find_map(|line| line.strip_prefix("0::"))?;
    let max = std::fs::read_to_string(format!("/sys/fs/cgroup{path}/memory.max")).ok()?;
    max.trim().parse().ok()
}

/// How often the reaper looks at the idle workers.
const REAP_EVERY: Duration = Duration::from_secs(1);

/// How long the reaper waits for the pool to hand it an idle worker.
const REAP_TAKE: Duration = Duration::from_secs(5);

/// Reaps the idle workers beyond `warm`: every [`REAP_EVERY`], those idle
/// at this look and at the one before (so a worker goes between one and
/// two looks after it went idle, and a burst's workers stay while the
/// burst goes on). Each is taken from the pool as a run takes one, through
/// the pool's own lock, so no run can be handed a worker being reaped, and
/// dropped, which kills it. Ends with the pool.
async fn reap_idle(pool: Weak<Pool>, warm: usize) {
    let mut looks = tokio::time::interval(REAP_EVERY);
    looks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let mut before = 0;
    loop {
        looks.tick().await;
        let Some(pool) = pool.upgrade() else {
            return;
        };
        let idle = pool.idle_workers();
        for _ in 0..idle.min(before).saturating_sub(warm) {
            if pool.idle_workers() <= warm {
                break;
            }
            match tokio::time::timeout(REAP_TAKE, pool.checkout(&ReplConfig::default())).await {
                Ok(Ok(taken)) => drop(taken),
                _ => break,
            }
        }
        before = pool.idle_workers();
    }
}

/// Busy workers the watchdog kills once ptc is gone: a slot each.
const SLOTS: usize = 1024;

/// A free slot, as the watchdog reads it: a line `0`.
const FREE: u64 = u64::from_ne_bytes(*b"      0\n");

/// The table of busy workers, in memory shared with the watchdog: each
/// slot a line of eight bytes (a process id right-aligned in seven, and a
/// newline) written by one atomic store, so ptc killed mid-write leaves a
/// slot whole.
struct Table {
    slots: &'static [AtomicU64],
    /// What the watchdog reads (from its fd 3) once ptc is gone.
    file: std::fs::File,
}

static TABLE: OnceLock<Option<Table>> = OnceLock::new();

/// The watchdog process and the pipe whose end of file it waits for
/// (ptc never writes to it).
static WATCHDOG: Mutex<Option<(Child, ChildStdin)>> = Mutex::new(None);

/// Waits for end of file on stdin (ptc gone, whatever ended it), then
/// kills every process id in the table on fd 3. Builtins only.
const WATCHDOG_SCRIPT: &str = "\
while read -r _; do :; done
exec <&3
while read -r pid; do
  case $pid in ''|0|*[!0-9]*) ;; *) kill -9 \"$pid\" ;; esac
done
";

fn table() -> Option<&'static Table> {
    TABLE
        .get_or_init(|| match Table::new() {
            Ok(table) => Some(table),
            Err(e) => {
                tracing::warn!(
                    "Python workers unwatched: no table for the watchdog ({e}); a worker busy when ptc is killed runs on to its deadline"
                );
                None
            }
        })
        .as_ref()
}

impl Table {
    fn new() -> std::io::Result<Self> {
        let file = table_file()?;
        let len = SLOTS * std::mem::size_of::<u64>();
        let free: Vec<u8> = std::iter::repeat_n(FREE.to_ne_bytes(), SLOTS)
            .flatten()
            .collect();
        // At an offset: the file's own stays at 0, where the watchdog
        // (sharing it) starts reading.
        file.write_all_at(&free, 0)?;
        // SAFETY: a fresh shared mapping of the whole file, never unmapped
        // (the table lives as long as the process); `mmap` checks the fd.
        let mapped = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_SHARED,
                file.as_raw_fd(),
                0,
            )
        };
        if mapped == libc::MAP_FAILED {
            return Err(std::io::Error::last_os_error());
        }
        // SAFETY: the mapping is page-aligned, `len` bytes long, lives for
        // the rest of the process, and is touched in this process only
        // through these atomics (the watchdog reads it after ptc is gone).
        let slots = unsafe { std::slice::from_raw_parts(mapped.cast::<AtomicU64>(), SLOTS) };
        Ok(Self { slots, file })
    }
}

/// A file of no name for the table: a memfd on Linux, else a temporary
/// file removed once open.
fn table_file() -> std::io::Result<std::fs::File> {
    #[cfg(target_os = "linux")]
    {
        use std::os::fd::FromRawFd;
        // The system call, not glibc's wrapper: that came with glibc 2.27, and
        // the release builds link against 2.17 (docs/python.md, Platforms).
        // SAFETY: memfd_create takes a valid C string and flags.
        let fd = unsafe {
            libc::syscall(
                libc::SYS_memfd_create,
                c"ptc-busy-workers".as_ptr(),
                libc::MFD_CLOEXEC,
            )
        } as libc::c_int;
        if fd < 0 {
            return Err(std::io::Error::last_os_error());
        }
        // SAFETY: a new descriptor that nothing else owns.
        Ok(unsafe { std::fs::File::from_raw_fd(fd) })
    }
    #[cfg(not(target_os = "linux"))]
    {
        let path = std::env::temp_dir().join(format!(
            "ptc-busy-workers-{}-{:x}",
            std::process::id(),
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_nanos())
        ));
        let file = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create_new(true)
            .open(&path)?;
        std::fs::remove_file(&path)?;
        Ok(file)
    }
}

/// Starts the watchdog if none is running (the first pool, or one that
/// was killed). Warns once when it cannot.
fn start_watchdog() {
    static WARNED: AtomicBool = AtomicBool::new(false);
    let Some(table) = table() else {
        return;
    };
    let mut watchdog = WATCHDOG.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some((child, _)) = watchdog.as_mut()
        && matches!(child.try_wait(), Ok(None))
    {
        return;
    }
    match spawn_watchdog(&table.file) {
        Ok(started) => *watchdog = Some(started),
        Err(e) => {
            *watchdog = None;
            if !WARNED.swap(true, Ordering::Relaxed) {
                tracing::warn!(
                    "Python workers unwatched: cannot start /bin/sh as their watchdog ({e}); a worker busy when ptc is killed runs on to its deadline"
                );
            }
        }
    }
}

fn spawn_watchdog(table: &std::fs::File) -> std::io::Result<(Child, ChildStdin)> {
    use std::os::unix::process::CommandExt;
    let fd = table.as_raw_fd();
    let mut command = Command::new("/bin/sh");
    command
        .args(["-c", WATCHDOG_SCRIPT])
        // Holds none of ptc's pipes: a host reading ptc's output or
        // writing its input sees ptc's end, not the watchdog's.
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    // SAFETY: only dup2 and fcntl between fork and exec (async-signal-safe).
    unsafe {
        command.pre_exec(move || {
            let done = if fd == 3 {
                // Already fd 3: keep it open across exec.
                libc::fcntl(3, libc::F_SETFD, 0)
            } else {
                libc::dup2(fd, 3)
            };
            if done < 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        })
    };
    let mut child = command.spawn()?;
    let stdin = child
        .stdin
        .take()
        .ok_or_else(|| std::io::Error::other("no pipe to the watchdog"))?;
    Ok((child, stdin))
}

/// A busy worker in the watchdog's table; idle again when dropped.
pub(super) struct Busy(&'static AtomicU64);

impl Drop for Busy {
    fn drop(&mut self) {
        self.0.store(FREE, Ordering::Release);
    }
}

/// Marks the worker `pid` busy until the answer is dropped: drop it after
/// the worker is killed or back in the pool. `None` when there is no
/// table or every slot is taken (the worker is then unwatched).
pub(super) fn watch(pid: Option<u32>) -> Option<Busy> {
    static WARNED: AtomicBool = AtomicBool::new(false);
    let table = table()?;
    let line = slot_line(pid?)?;
    let taken = table.slots.iter().find(|slot| {
        slot.compare_exchange(FREE, line, Ordering::AcqRel, Ordering::Relaxed)
            .is_ok()
    });
    if taken.is_none() && !WARNED.swap(true, Ordering::Relaxed) {
        tracing::warn!(
            "more than {SLOTS} Python workers busy at once: those past it are unwatched (a worker busy when ptc is killed runs on to its deadline)"
        );
    }
    taken.map(Busy)
}

/// A checked-out worker's CPU, counted as its run's (contracts §6,
/// "Budgets"): what the process used since the checkout, read from the
/// kernel when the budget could be spent, and once more when the run is
/// done with the worker (or, dropped, before the worker is killed).
pub(super) struct WorkerCpu {
    /// The worker and its CPU at the checkout, when it can be read.
    worker: Option<(u32, u64)>,
    budget: Arc<RunBudget>,
}

impl WorkerCpu {
    pub(super) fn start(pid: Option<u32>, budget: &Arc<RunBudget>) -> Self {
        let worker = pid.and_then(|pid| Some((pid, process_time_ns(pid)?)));
        Self {
            worker,
            budget: Arc::clone(budget),
        }
    }

    /// Records the worker's CPU since the checkout (which marks the run's
    /// budget spent when it is).
    fn measure(&self) {
        let Some((pid, at_checkout)) = self.worker else {
            return;
        };
        if let Some(now) = process_time_ns(pid) {
            self.budget.cpu_measured(now.saturating_sub(at_checkout));
        }
    }

    /// Completes once the worker has used the run's CPU budget: it is
    /// measured whenever it could have (a worker computes on one thread,
    /// no faster than the clock).
    pub(super) async fn spent(&self) {
        if self.worker.is_none() {
            return std::future::pending().await;
        }
        let measure = || {
            self.measure();
        };
        self.budget
            .look_when_due(MEASURE_AT_MOST_EVERY, measure)
            .await;
    }

    /// The run is done with the worker: its last measure.
    pub(super) fn end(mut self) {
        self.measure();
        self.worker = None;
    }
}

impl Drop for WorkerCpu {
    fn drop(&mut self) {
        self.measure();
    }
}

/// A process's CPU time (user and system), in ns: a Python worker's.
/// `None` when it cannot be read (the process is gone, or no `/proc`).
fn process_time_ns(pid: u32) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name, in parentheses, may hold spaces: count after it.
    let fields = stat.get(stat.rfind(')')? + 1..)?;
    let mut fields = fields.split_ascii_whitespace().skip(11);
    let user: u64 = fields.next()?.parse().ok()?;
    let system: u64 = fields.next()?.parse().ok()?;
    // SAFETY: sysconf only reads a constant of the system.
    let ticks = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
    let ticks = u64::try_from(ticks).ok().filter(|t| *t > 0)?;
    Some(user.saturating_add(system).saturating_mul(1_000_000_000) / ticks)
}

/// The shortest wait between two measures of a worker near its budget.
const MEASURE_AT_MOST_EVERY: Duration = Duration::from_millis(5);

/// `pid` as a slot's line: right-aligned in seven bytes, then a newline.
fn slot_line(pid: u32) -> Option<u64> {
    if pid == 0 || pid > 9_999_999 {
        return None;
    }
    let mut line = *b"       \n";
    let mut rest = pid;
    for byte in line[..7].iter_mut().rev() {
        *byte = b'0' + u8::try_from(rest % 10).ok()?;
        rest /= 10;
        if rest == 0 {
            break;
        }
    }
    Some(u64::from_ne_bytes(line))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_slot_is_a_line_of_its_pid() {
        let text =
            |pid| slot_line(pid).map(|l| String::from_utf8(l.to_ne_bytes().to_vec()).unwrap());
        assert_eq!(text(1).as_deref(), Some("      1\n"));
        assert_eq!(text(4_194_304).as_deref(), Some("4194304\n"));
        assert_eq!(text(9_999_999).as_deref(), Some("9999999\n"));
        assert_eq!(text(10_000_000), None);
        assert_eq!(text(0), None);
        assert_eq!(FREE.to_ne_bytes(), *b"      0\n");
    }

    #[test]
    fn the_ceiling_is_what_fits_in_memory_within_the_admitted_runs() {
        let memory = machine_memory();
        assert!(memory > 0);
        let each = (64 << 20) + WORKER_OWN_BYTES;
        assert_eq!(ceiling(64 << 20, usize::MAX), (memory / each).max(1));
        assert_eq!(ceiling(64 << 20, 1), 1);
        assert_eq!(ceiling(usize::MAX, 1024), 1);
        assert!(warm(3) <= 3 && warm(3) >= 1);
    }

    /// A process's CPU is read from `/proc`: user and system time, as the
    /// kernel's own clock for the process counts them (to a tick or two).
    #[test]
    #[cfg(target_os = "linux")]
    fn a_process_time_is_the_kernels_count() {
        let me = std::process::id();
        // System time too: reads of /dev/zero, the kernel's work (clearing
        // a MiB a read), for 100 ms.
        let mut zero = std::fs::File::open("/dev/zero").unwrap();
        let mut buffer = vec![0u8; 1 << 20];
        let until = std::time::Instant::now() + Duration::from_millis(100);
        while std::time::Instant::now() < until {
            std::io::Read::read(&mut zero, &mut buffer).unwrap();
        }
        let read = super::process_time_ns(me).unwrap();
        let mut now = libc::timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        // SAFETY: a valid timespec to write.
        assert_eq!(
            unsafe { libc::clock_gettime(libc::CLOCK_PROCESS_CPUTIME_ID, &mut now) },
            0
        );
        let kernel = u64::try_from(now.tv_sec).unwrap() * 1_000_000_000
            + u64::try_from(now.tv_nsec).unwrap();
        assert!(
            read.abs_diff(kernel) < 40_000_000,
            "/proc says {read} ns, the process clock {kernel} ns"
        );
        assert_eq!(super::process_time_ns(u32::MAX), None);
    }
}

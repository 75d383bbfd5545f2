//! No test leaves a process behind. Every process a test starts carries
//! `PTC_TEST_TAG=<test>:<pid>:<n>` in its environment, and so does
//! whatever it starts in turn (children inherit it). A [`NoLeaks`] guard
//! checks, when it is dropped, that no live process carries its tag; after a
//! settle that covers ptc's shutdown grace (stdin closed, SIGTERM, SIGKILL,
//! 2 s apart), it kills what is left and fails the test naming the
//! leaked processes' command lines.
//!
//! Monty's pool starts Python workers with an empty environment, so the tag
//! reaches a worker through the binary it runs instead: a script that sets
//! the tag and execs Monty's worker ([`NoLeaks::python_worker`]), which a
//! tagged command gets as `PTC_PYTHON_WORKER` and a test's engine as
//! `Engine::python_worker`.

use std::collections::BTreeMap;
use std::ffi::OsStr;
use std::ops::{Deref, DerefMut};
use std::path::PathBuf;
use std::process::{Child, Command, Output};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

/// The environment variable that tags a test's processes.
pub const TAG_VAR: &str = "PTC_TEST_TAG";

/// How long processes may take to go after a test is done with them: ptc
/// ends its servers within 5 s (docs/mcp.md, "Process groups").
const SETTLE: Duration = Duration::from_secs(8);

/// The tags of the guards made by [`NoLeaks::for_this_test`], by the
/// test's thread, for helpers that build server configs ([`current_tag`]).
static ARMED: Mutex<BTreeMap<String, String>> = Mutex::new(BTreeMap::new());

/// A process that carried the tag after the settle.
#[derive(Debug)]
pub struct Leak {
    pub pid: i32,
    pub command_line: String,
}

/// Checks on drop that no process tagged with its tag is alive.
pub struct NoLeaks {
    tag: String,
    settle: Duration,
    armed_for: Option<String>,
    /// The tagging Python worker script, made when first asked for.
    worker: OnceLock<Option<(tempfile::TempDir, PathBuf)>>,
}

/// libtest names each test's thread after the test.
fn test_name() -> String {
    std::thread::current()
        .name()
        .unwrap_or("unnamed")
        .to_owned()
}

impl NoLeaks {
    /// A guard with a tag of its own.
    pub fn new() -> Self {
        static COUNT: AtomicUsize = AtomicUsize::new(0);
        let n = COUNT.fetch_add(1, Ordering::Relaxed);
        Self {
            tag: format!("{}:{}:{n}", test_name(), std::process::id()),
            settle: SETTLE,
            armed_for: None,
            worker: OnceLock::new(),
        }
    }

    /// A guard whose tag [`current_tag`] gives to the helpers this test's
    /// thread calls (server configs the library spawns from).
    pub fn for_this_test() -> Self {
        let mut guard = Self::new();
        let thread = test_name();
        ARMED
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .insert(thread.clone(), guard.tag.clone());
        guard.armed_for = Some(thread);
        guard
    }

    /// The same guard, waiting at most `settle` for processes to go.
    pub fn settling_for(mut self, settle: Duration) -> Self {
        self.settle = settle;
        self
    }

    pub fn tag(&self) -> &str {
        &self.tag
    }

    /// Tags `command` (and so what it starts, its Python workers too
    /// unless the command names its own `PTC_PYTHON_WORKER`).
    pub fn tag_command<'c>(&self, command: &'c mut Command) -> &'c mut Command {
        let named = command.get_envs().any(|(key, _)| key == PYTHON_WORKER_VAR);
        if !named && let Some(worker) = self.tagging_worker() {
            command.env(PYTHON_WORKER_VAR, worker);
        }
        command.env(TAG_VAR, &self.tag)
    }

    /// The Python worker that carries this guard's tag: a script setting
    /// the tag and exec'ing Monty's worker (`PTC_PYTHON_WORKER`, else
    /// `monty` on `PATH`), kept as long as the guard. Panics when there is
    /// no Monty worker: a Python test needs one.
    #[cfg(feature = "python")]
    pub fn python_worker(&self) -> PathBuf {
        self.tagging_worker().unwrap_or_else(|| {
            panic!("Python tests need Monty's worker: `pip install -r tests/requirements.txt` (pydantic-monty-runtime) or set {PYTHON_WORKER_VAR}")
        })
    }

    fn tagging_worker(&self) -> Option<PathBuf> {
        self.worker
            .get_or_init(|| {
                let monty = monty_worker()?;
                let dir = tempfile::tempdir().ok()?;
                let script = dir.path().join("monty");
                std::fs::write(
                    &script,
                    format!(
                        "#!/bin/sh\n{TAG_VAR}={}\nexport {TAG_VAR}\nexec {} \"$@\"\n",
                        quoted(&self.tag),
                        quoted(&monty.to_string_lossy())
                    ),
                )
                .ok()?;
                use std::os::unix::fs::PermissionsExt;
                std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).ok()?;
                Some((dir, script))
            })
            .as_ref()
            .map(|(_, script)| script.clone())
    }

    /// A tagged command.
    pub fn command(&self, program: impl AsRef<OsStr>) -> Command {
        let mut command = Command::new(program);
        self.tag_command(&mut command);
        command
    }

    /// The tagged processes still alive once they had `settle` to go;
    /// they are killed, so one leak does not cascade into other tests.
    pub fn leaked(&self) -> Vec<Leak> {
        let started = Instant::now();
        let mut alive = tagged_twice(&self.tag);
        while !alive.is_empty() && started.elapsed() < self.settle {
            std::thread::sleep(Duration::from_millis(50));
            alive = tagged_twice(&self.tag);
        }
        for leak in &alive {
            // SAFETY: kill has no memory effects; a pid gone is ESRCH.
            unsafe { libc::kill(leak.pid, libc::SIGKILL) };
        }
        alive
    }
}

impl Drop for NoLeaks {
    fn drop(&mut self) {
        if let Some(thread) = self.armed_for.take() {
            ARMED
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .remove(&thread);
        }
        let leaked = self.leaked();
        if leaked.is_empty() {
            return;
        }
        let report = format!(
            "{} process(es) outlived the test (tag {}), now killed:\n{}",
            leaked.len(),
            self.tag,
            leaked
                .iter()
                .map(|l| format!("  {} {}", l.pid, l.command_line))
                .collect::<Vec<_>>()
                .join("\n")
        );
        if std::thread::panicking() {
            eprintln!("{report}");
        } else {
            panic!("{report}");
        }
    }
}

/// How ptc is told which Python worker to run.
const PYTHON_WORKER_VAR: &str = "PTC_PYTHON_WORKER";

/// Monty's worker binary as ptc would find it in this process:
/// `PTC_PYTHON_WORKER`, else `monty` on `PATH`.
fn monty_worker() -> Option<PathBuf> {
    if let Some(path) = std::env::var_os(PYTHON_WORKER_VAR) {
        return Some(PathBuf::from(path));
    }
    std::env::split_paths(&std::env::var_os("PATH")?)
        .map(|dir| dir.join("monty"))
        .find(|path| path.is_file())
}

/// `text` as one word for `sh`.
fn quoted(text: &str) -> String {
    format!("'{}'", text.replace('\'', "'\\''"))
}

/// The tag of this test's [`NoLeaks::for_this_test`] guard; a helper that
/// starts processes without one is a test that forgot it.
pub fn current_tag() -> String {
    let thread = test_name();
    ARMED
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .get(&thread)
        .cloned()
        .unwrap_or_else(|| {
            panic!("{thread} starts processes: make `common::NoLeaks::for_this_test()` first")
        })
}

/// Live processes (not zombies) whose environment carries `tag`; those
/// that cannot be read (gone, or not ours) are passed over.
pub fn tagged(tag: &str) -> Vec<Leak> {
    let wanted = format!("{TAG_VAR}={tag}");
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .filter_map(|entry| entry.ok()?.file_name().to_str()?.parse::<i32>().ok())
        .filter(|&pid| carries(pid, wanted.as_bytes()) && !is_zombie(pid))
        .map(|pid| Leak {
            pid,
            command_line: command_line(pid),
        })
        .collect()
}

/// [`tagged`], with an empty answer looked at again: a process in the
/// middle of `execve` shows no environment for a moment, so one look can
/// miss a child a shell just started.
fn tagged_twice(tag: &str) -> Vec<Leak> {
    let alive = tagged(tag);
    if !alive.is_empty() {
        return alive;
    }
    std::thread::sleep(Duration::from_millis(100));
    tagged(tag)
}

fn carries(pid: i32, wanted: &[u8]) -> bool {
    std::fs::read(format!("/proc/{pid}/environ"))
        .is_ok_and(|environ| environ.split(|&b| b == 0).any(|var| var == wanted))
}

fn is_zombie(pid: i32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).map_or(true, |stat| {
        stat.rsplit(')')
            .next()
            .unwrap_or("")
            .trim_start()
            .starts_with(['Z', 'X'])
    })
}

fn command_line(pid: i32) -> String {
    let raw = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
    let text = String::from_utf8_lossy(&raw).replace('\0', " ");
    text.trim_end().chars().take(300).collect()
}

/// A child process and the guard of its tag: dropping it (after the
/// child) checks that nothing it started is left.
pub struct Spawned {
    child: Child,
    _no_leaks: NoLeaks,
}

impl Deref for Spawned {
    type Target = Child;
    fn deref(&self) -> &Child {
        &self.child
    }
}

impl DerefMut for Spawned {
    fn deref_mut(&mut self) -> &mut Child {
        &mut self.child
    }
}

/// Spawns `command` tagged, under a guard of its own.
pub fn spawn(command: &mut Command) -> Spawned {
    let no_leaks = NoLeaks::new();
    let child = no_leaks
        .tag_command(command)
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start {command:?}: {e}"));
    Spawned {
        child,
        _no_leaks: no_leaks,
    }
}

/// Runs `command` tagged to its end, and checks it left nothing behind.
pub fn output(command: &mut Command) -> Output {
    let no_leaks = NoLeaks::new();
    no_leaks
        .tag_command(command)
        .output()
        .unwrap_or_else(|e| panic!("cannot run {command:?}: {e}"))
}

impl Spawned {
    /// [`Child::wait_with_output`], then the check.
    pub fn wait_with_output(self) -> std::io::Result<Output> {
        let Self { child, _no_leaks } = self;
        child.wait_with_output()
    }
}

/// Tags every stdio server of an `mcpServers` object with this test's tag
/// ([`current_tag`]), for the servers the library starts in this process.
pub fn tag_servers(mut servers: serde_json::Value) -> serde_json::Value {
    let tag = current_tag();
    for entry in servers
        .as_object_mut()
        .into_iter()
        .flat_map(|s| s.values_mut())
    {
        tag_entry(entry, &tag);
    }
    servers
}

/// Tags every command of a manifest (an array of tool entries) with this
/// test's tag ([`current_tag`]), for the commands the library runs in this
/// process.
pub fn tag_manifest(mut manifest: serde_json::Value) -> serde_json::Value {
    let tag = current_tag();
    for entry in manifest.as_array_mut().into_iter().flatten() {
        tag_entry(entry, &tag);
    }
    manifest
}

/// Adds the tag to the `env` of an entry that runs a command.
fn tag_entry(entry: &mut serde_json::Value, tag: &str) {
    if let Some(entry) = entry.as_object_mut().filter(|e| e.contains_key("command")) {
        let env = entry.entry("env").or_insert_with(|| serde_json::json!({}));
        if let Some(env) = env.as_object_mut() {
            env.insert(TAG_VAR.to_owned(), tag.into());
        }
    }
}

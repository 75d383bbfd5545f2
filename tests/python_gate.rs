//! The gate for a program's values (contracts §6, "What enters the host"):
//! the programs of `tests/hostile/gate/` (Python, and TypeScript where the
//! door is both languages') hand the host values that would
//! be gigabytes once copied or held (shared, deep, huge, inexact), through the
//! `ptc` binary as a user runs it (tools: `echo`, a command answering its
//! arguments, and `big`, an 8 MB string); each must end as its file says with the
//! host's peak memory under the bar, 3 × the heap limit + 100 MB.
//!
//! Each file's first lines say how it ends (`//` for `#` in TypeScript):
//!
//! ```text
//! # expect: ok | runtime | timeout | memory
//! # timeout-ms: 3000      (the deadline; 60000 unless expecting timeout)
//! # output: text the outcome must contain   (any number of lines)
//! # max-text-bytes: 2000  (the outcome's text at most this long)
//! ```

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::common::NoLeaks;

/// The run's heap limit, ptc's default.
const HEAP_MIB: u64 = 64;

/// The promise: the host stays under 3 × the heap + 100 MB.
const BAR_MIB: u64 = 3 * HEAP_MIB + 100;

struct Case {
    path: PathBuf,
    expect: String,
    timeout_ms: u64,
    outputs: Vec<String>,
    max_text_bytes: Option<usize>,
}

fn corpus() -> Vec<Case> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/hostile/gate");
    let mut paths: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|e| e == "py" || e == "ts"))
        .collect();
    paths.sort();
    paths
        .into_iter()
        .map(|path| {
            let code = std::fs::read_to_string(&path).unwrap();
            let comment = if path.extension().is_some_and(|e| e == "ts") {
                "//"
            } else {
                "#"
            };
            let header = |key: &str| -> Vec<String> {
                let prefix = format!("{comment} {key}: ");
                code.lines()
                    .take_while(|line| line.starts_with(comment))
                    .filter_map(|line| line.strip_prefix(prefix.as_str()))
                    .map(str::to_owned)
                    .collect()
            };
            let expect = header("expect").pop().expect("an `# expect:` line");
            let timeout_ms = header("timeout-ms")
                .pop()
                .map_or(60_000, |ms| ms.parse().unwrap());
            Case {
                path,
                expect,
                timeout_ms,
                outputs: header("output"),
                max_text_bytes: header("max-text-bytes").pop().map(|n| n.parse().unwrap()),
            }
        })
        .collect()
}

/// What a finished `ptc run` printed and its peak memory.
struct Ended {
    json: Value,
    peak_mib: u64,
}

/// Forks `argv[2:]` and writes its peak resident memory (KiB: ptc's own,
/// or the largest of what it waited for) to the file `argv[1]`. Why not
/// `wait4` on a child the test spawns itself: Rust spawns with vfork, and
/// a vforked child's exec records its parent's high-water mark as its
/// own, so the figure would be this test binary's peak, whatever other
/// tests in it allocated. Forked from a small Python, ptc inherits a few
/// MB at most.
const MEASURED: &str = "\
import os, sys
pid = os.fork()
if pid == 0:
    os.execv(sys.argv[2], sys.argv[2:])
_, status, usage = os.wait4(pid, 0)
with open(sys.argv[1], 'w') as f:
    f.write(str(usage.ru_maxrss))
sys.exit(os.waitstatus_to_exitcode(status) & 0xff)
";

/// Runs `case` through `ptc run --json` with an `echo` tool (a command
/// that answers its arguments), its peak resident memory measured by
/// [`MEASURED`].
fn run(case: &Case, manifest: &Path, slack: Duration) -> Ended {
    use std::os::unix::process::CommandExt;
    let guard = NoLeaks::new();
    let out = tempfile::NamedTempFile::new().unwrap();
    let peak = tempfile::NamedTempFile::new().unwrap();
    let mut command = guard.command("python3");
    command
        .args(["-c", MEASURED])
        .arg(peak.path())
        .arg(env!("CARGO_BIN_EXE_ptc"))
        .args(["run", "--json", "--tools"])
        .arg(manifest)
        .args(["--timeout-ms", &case.timeout_ms.to_string()])
        .arg(&case.path)
        .stdin(Stdio::null())
        .stdout(out.reopen().unwrap())
        .stderr(Stdio::null())
        // Its own group, so a run past liveness is killed with its parent.
        .process_group(0);
    let mut child = command.spawn().unwrap();
    let started = Instant::now();
    let liveness = Duration::from_millis(case.timeout_ms) + slack;
    while child.try_wait().unwrap().is_none() {
        if started.elapsed() > liveness {
            // SAFETY: the group of a child of this process.
            unsafe { libc::kill(-(child.id() as libc::pid_t), libc::SIGKILL) };
            let _ = child.wait();
            panic!(
                "{}: still running {:?} after its {} ms deadline",
                case.path.display(),
                started.elapsed(),
                case.timeout_ms
            );
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let printed = std::fs::read_to_string(out.path()).unwrap();
    let json = serde_json::from_str(&printed)
        .unwrap_or_else(|e| panic!("{}: not JSON ({e}): {printed:.500}", case.path.display()));
    let kib: u64 = std::fs::read_to_string(peak.path())
        .unwrap()
        .parse()
        .expect("the peak, in KiB");
    Ended {
        json,
        peak_mib: kib / 1024,
    }
}

/// A trivial run's time, the yardstick of how slow this machine is now:
/// the liveness bound past each deadline is a multiple of it, so a loaded
/// machine stretches the bound instead of failing the test.
fn yardstick(manifest: &Path) -> Duration {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("trivial.py");
    std::fs::write(&path, "await tools.echo(a=1)\n1 + 1").unwrap();
    let case = Case {
        path,
        expect: "ok".into(),
        timeout_ms: 60_000,
        outputs: vec![],
        max_text_bytes: None,
    };
    let started = Instant::now();
    let ended = run(&case, manifest, Duration::from_secs(600));
    assert_eq!(ended.json["content"][0]["text"], "2", "{}", ended.json);
    started.elapsed()
}

#[test]
fn every_hostile_value_is_refused_at_the_gate_with_the_host_under_the_bar() {
    let dir = tempfile::tempdir().unwrap();
    let manifest = dir.path().join("tools.json");
    let echo = serde_json::json!([{
        "name": "echo", "readOnly": true,
        "command": ["sh", "-c", "cat"],
    }, {
        "name": "big", "readOnly": true,
        "command": ["sh", "-c", "cat > /dev/null; printf '\"'; head -c 8000000 /dev/zero | tr '\\0' x; printf '\"'"],
    }]);
    std::fs::write(&manifest, echo.to_string()).unwrap();
    let slack = (yardstick(&manifest) * 20).max(Duration::from_secs(30));
    let cases = corpus();
    assert!(
        cases.len() >= 11,
        "the gate's corpus is in tests/hostile/gate"
    );
    for case in &cases {
        let name = case.path.file_name().unwrap().to_string_lossy();
        let started = Instant::now();
        let ended = run(case, &manifest, slack);
        eprintln!(
            "{name}: {} MiB peak, {:?}",
            ended.peak_mib,
            started.elapsed()
        );
        let json = &ended.json;
        let text = json["content"][0]["text"].as_str().unwrap_or_default();
        let kind = json["kind"].as_str().unwrap_or("ok");
        assert_eq!(kind, case.expect, "{name}: {text:.2000}");
        for wanted in &case.outputs {
            assert!(
                text.contains(wanted.as_str()),
                "{name}: no {wanted:?} in {text:.2000}"
            );
        }
        if let Some(max) = case.max_text_bytes {
            assert!(text.len() <= max, "{name}: {} bytes of text", text.len());
        }
        assert!(
            ended.peak_mib <= BAR_MIB,
            "{name}: the host peaked at {} MiB (the bar: {BAR_MIB} MiB)",
            ended.peak_mib
        );
    }
}

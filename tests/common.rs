//! Helpers shared by the integration tests.

mod noleaks;
mod redis;

#[cfg(feature = "python")]
pub use noleaks::Leak;
pub use noleaks::{NoLeaks, Spawned, TAG_VAR, output, spawn, tag_manifest, tag_servers, tagged};
pub use redis::RedisServer;

use std::path::PathBuf;

use std::time::Duration;

use ptc::{Engine, Limits, Registry, Tool, ToolContext, ToolDefinition, ToolError};
use serde_json::{Value, json};

/// The repository's `fixtures/...`: real MCP tool lists and the workloads' tool sets.
pub fn fixture(path: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures")
        .join(path)
}

/// A read-only tool that returns its arguments.
pub fn echo(name: &str) -> Tool {
    Tool::new(
        ToolDefinition::new(name).read_only(true),
        |args: Value, _cx: ToolContext| async move { Ok::<_, ToolError>(args) },
    )
}

/// A definition whose arguments need a string `q`.
pub fn with_query(name: &str) -> ToolDefinition {
    ToolDefinition::new(name).parameters(json!({
        "type": "object",
        "properties": { "q": { "type": "string" } },
        "required": ["q"]
    }))
}

/// Runs the ignored test `name` in a process of its own (this test binary
/// again), so other tests' threads and allocations do not blur what it
/// measures, and returns what follows `tag ` on the line it printed.
pub fn in_own_process(name: &str, tag: &str) -> String {
    let out = output(
        std::process::Command::new(std::env::current_exe().unwrap()).args([
            "--exact",
            name,
            "--ignored",
            "--nocapture",
            "--test-threads",
            "1",
        ]),
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "the child test `{name}` failed ({}):\n{stdout}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    let prefix = format!("{tag} ");
    stdout
        .lines()
        .find_map(|line| {
            line.split_once(prefix.as_str())
                .map(|(_, rest)| rest.to_owned())
        })
        .unwrap_or_else(|| panic!("no `{tag}` line from {name}: {stdout}"))
}

/// Waits until `check` holds; a liveness bound only (60 s), never a
/// measure of speed.
pub async fn eventually(what: &str, mut check: impl FnMut() -> bool) {
    let start = std::time::Instant::now();
    while !check() {
        assert!(
            start.elapsed() < std::time::Duration::from_secs(60),
            "timed out waiting for {what}"
        );
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
}

/// A registry with the tools these tests use.
pub fn test_registry() -> Registry {
    let r = Registry::new();
    r.add(Tool::new(
        ToolDefinition::new("echo").read_only(true),
        |a: Value, _: ToolContext| async move { Ok::<_, ToolError>(a) },
    ))
    .unwrap();
    r.add(Tool::new(
        ToolDefinition::new("sleep").read_only(true).parameters(json!({
            "type": "object", "properties": { "ms": { "type": "integer", "minimum": 0 } }, "required": ["ms"]
        })),
        |a: Value, cx: ToolContext| async move {
            let ms = a["ms"].as_u64().unwrap_or(0);
            tokio::select! {
                _ = tokio::time::sleep(Duration::from_millis(ms)) => Ok::<_, ToolError>(json!(ms)),
                _ = cx.cancellation().cancelled() => Err(ToolError::tool("cancelled")),
            }
        },
    ))
    .unwrap();
    r.add(Tool::new(
        ToolDefinition::new("fail"),
        |_a: Value, _: ToolContext| async move { Err::<Value, _>(ToolError::tool("it broke")) },
    ))
    .unwrap();
    r
}

/// The tools of every MCP fixture list, named `<server>.<tool>` as the MCP
/// client names them.
pub fn fixture_union() -> Vec<ToolDefinition> {
    let dir = fixture("mcp-tools");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("cannot list {}: {e}", dir.display()))
        .map(|entry| entry.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    let mut tools = Vec::new();
    for file in files {
        let server = file.file_stem().unwrap().to_string_lossy().into_owned();
        let list: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
        for entry in list["tools"].as_array().unwrap() {
            let mut definition: ToolDefinition = serde_json::from_value(entry.clone()).unwrap();
            definition.name = format!("{server}.{}", definition.name);
            tools.push(definition);
        }
    }
    assert_eq!(tools.len(), 86, "the fixture lists changed");
    tools
}

/// An engine over [`test_registry`] whose runs have this JavaScript heap.
pub fn engine_with_heap(memory_limit_bytes: usize) -> Engine {
    let limits = Limits {
        memory_limit_bytes,
        ..Limits::default()
    };
    Engine::new(test_registry(), limits).expect("a valid heap limit")
}

/// A memory field of `/proc/<pid>/status` in MiB, while the process is there.
pub fn status_mib(pid: u32, field: &str) -> Option<f64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let kib: f64 = status
        .lines()
        .find_map(|l| l.strip_prefix(field))?
        .trim()
        .trim_end_matches("kB")
        .trim()
        .parse()
        .ok()?;
    Some(kib / 1024.0)
}

/// How a child ended, what it printed, and its peak RSS in MiB (polled
/// in `/proc` while it runs).
pub fn run_measured(mut child: Spawned) -> (std::process::ExitStatus, String, f64) {
    let mut peak: f64 = 0.0;
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if let Some(hwm) = status_mib(child.id(), "VmHWM:") {
            peak = peak.max(hwm);
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let mut out = String::new();
    if let Some(mut stdout) = child.stdout.take() {
        std::io::Read::read_to_string(&mut stdout, &mut out).unwrap();
    }
    (status, out, peak)
}

/// `ptc serve` or `ptc mcp` spawned by hand (for bytes `Host` cannot
/// send), killed on drop.
pub struct RawServe {
    pub child: Spawned,
}

impl Drop for RawServe {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Whether a `ptc-sandbox` thread of process `pid` is running (state R).
#[cfg(target_os = "linux")]
pub fn sandbox_running(pid: u32) -> bool {
    std::fs::read_dir(format!("/proc/{pid}/task"))
        .unwrap()
        .filter_map(|task| {
            let path = task.ok()?.path();
            let comm = std::fs::read_to_string(path.join("comm")).ok()?;
            let stat = std::fs::read_to_string(path.join("stat")).ok()?;
            Some((comm, stat))
        })
        .any(|(comm, stat)| {
            comm.trim() == "ptc-sandbox"
                && stat
                    .rsplit_once(") ")
                    .is_some_and(|(_, rest)| rest.starts_with('R'))
        })
}

/// The start of a message too long to print whole.
pub fn head(message: &serde_json::Value) -> String {
    message.to_string().chars().take(300).collect()
}

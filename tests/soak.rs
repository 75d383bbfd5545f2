//! Memory stays flat over many runs and heap bombs. Measured in a child
//! process of its own (this test binary re-run on one ignored test), so other
//! tests' allocations do not blur the figure.

use ptc::{
    Engine, FailureKind, Registry, RunOptions, RunRequest, Tool, ToolContext, ToolDefinition,
    ToolError,
};
use serde_json::Value;

use crate::common::fixture;

use crate::common::engine_with_heap;

fn rss_mib() -> f64 {
    let statm = std::fs::read_to_string("/proc/self/statm").expect("Linux's /proc/self/statm");
    let pages: f64 = statm
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .expect("resident pages in statm");
    assert!(pages > 0.0, "a process has resident pages");
    pages * 4096.0 / 1_048_576.0
}

/// The process's peak RSS since the last [`reset_peak`].
fn peak_mib() -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").expect("/proc/self/status");
    let kib: f64 = status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .expect("VmHWM in /proc/self/status");
    kib / 1024.0
}

fn reset_peak() {
    std::fs::write("/proc/self/clear_refs", "5").expect("reset the peak RSS");
}

/// Hostile programs that end by the memory limit (or within it), each
/// making the host hold what it can: heap bombs of several shapes, queued
/// argument copies, a rejection flood, a huge return value, a console flood.
const HOSTILE: [&str; 8] = [
    "let s = 'x'; for (;;) s += s",
    "let o: any = {}; for (;;) o = { o }",
    "const a: any[] = []; try { for (;;) a.push(new Array(1e4).fill(1)) } catch {} return 'survived'",
    "const s = 'x'.repeat(2 << 20); const c = []; for (let i = 0; i < 100; i++) c.push(tools.sleep({ ms: 2000, pad: s } as any)); await Promise.all(c)",
    "const big = 'x'.repeat(4 << 20); for (let i = 0; i < 1000; i++) Promise.reject(big + i)",
    "return 'z'.repeat(12 << 20)",
    "for (let i = 0; i < 20000; i++) console.log('w'.repeat(1000) + i); return 1",
    "const m = new Map(); for (let i = 0; ; i++) m.set(i, [i, String(i)])",
];

async fn runs(engine: &Engine, code: &str, n: usize, kind: Option<FailureKind>) {
    for i in 0..n {
        let o = engine
            .run_code(RunRequest::new(code), RunOptions::default())
            .await
            .unwrap();
        assert_eq!(
            o.kind,
            kind,
            "run {i} of {n} of `{code}` ended as {:?}: {}",
            o.kind,
            o.text()
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "run by memory_stays_flat in a process of its own"]
async fn soak_child() {
    // Registering real tool lists: schema checks must not keep memory per schema.
    let text = std::fs::read_to_string(fixture("workloads/tools1000.json")).unwrap();
    let definitions: Vec<ToolDefinition> = serde_json::from_str(&text).unwrap();
    let before_registry = rss_mib();
    let registry = Registry::new();
    registry
        .add_all(definitions.into_iter().map(|d| {
            Tool::new(d, |a: Value, _: ToolContext| async move {
                Ok::<_, ToolError>(a)
            })
        }))
        .unwrap();
    let after_registry = rss_mib();
    drop(registry);
    let engine = engine_with_heap(16 << 20);
    let program = "const xs = Array.from({ length: 100 }, (_, i) => ({ i })); console.log(xs.length); \
                   return (await tools.echo({ n: xs.length })).n";
    runs(&engine, program, 1_000, None).await;
    let before = rss_mib();
    runs(&engine, program, 10_000, None).await;
    let after_runs = rss_mib();
    let bomb = "const a: string[] = []; try { for (let i = 0; ; i++) a.push('x'.repeat(1 << 16) + i) } catch { return 'caught' }";
    runs(&engine, bomb, 10, Some(FailureKind::Memory)).await;
    let before_bombs = rss_mib();
    runs(&engine, bomb, 100, Some(FailureKind::Memory)).await;
    let after_bombs = rss_mib();
    // 16 hostile runs at once: the peak stays near 16 × the limit.
    reset_peak();
    let before_hostile = peak_mib();
    let hostile = (0..16).map(|i| {
        let request = RunRequest::new(HOSTILE[i % HOSTILE.len()]).timeout_ms(30_000);
        engine.run_code(request, RunOptions::default())
    });
    for (i, outcome) in futures::future::join_all(hostile)
        .await
        .into_iter()
        .enumerate()
    {
        let outcome = outcome.unwrap();
        assert!(
            matches!(outcome.kind, None | Some(FailureKind::Memory)),
            "hostile run {i} (`{}`) ended as {:?}: {}",
            HOSTILE[i % HOSTILE.len()],
            outcome.kind,
            outcome.text().chars().take(500).collect::<String>()
        );
    }
    let peak_hostile = peak_mib();
    println!(
        "SOAK {before:.1} {after_runs:.1} {before_bombs:.1} {after_bombs:.1} {before_registry:.1} {after_registry:.1} {before_hostile:.1} {peak_hostile:.1}"
    );
}

#[test]
#[cfg(target_os = "linux")]
fn memory_stays_flat_over_many_runs_and_heap_bombs() {
    let line = crate::common::in_own_process("soak::soak_child", "SOAK");
    let f: Vec<f64> = line
        .split(' ')
        .take(8)
        .map(|x| x.parse().unwrap())
        .collect();
    let (runs_growth, bombs_growth) = (f[1] - f[0], f[3] - f[2]);
    // jsonschema 0.33 kept ~290 MiB after checking these schemas against
    // their meta-schema.
    let registry_growth = f[5] - f[4];
    assert!(
        registry_growth < 64.0,
        "RSS grew {registry_growth:.1} MiB registering tools1000 ({line})"
    );
    assert!(
        runs_growth < 16.0,
        "RSS grew {runs_growth:.1} MiB over 10,000 runs ({line})"
    );
    assert!(
        bombs_growth < 32.0,
        "RSS grew {bombs_growth:.1} MiB over 100 heap bombs ({line})"
    );
    // The documented bound (contracts §6): N runs at once within about N ×
    // the limit (16 MiB here) plus a fixed overhead.
    let hostile_peak = f[7] - f[6];
    assert!(
        hostile_peak < 16.0 * 16.0 * 1.5 + 64.0,
        "16 hostile runs at once took the peak RSS {hostile_peak:.1} MiB higher ({line})"
    );
}

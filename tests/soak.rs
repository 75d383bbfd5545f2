//! Memory stays flat over many runs and heap bombs. Measured in a child
//! process of its own (this test binary re-run on one ignored test), so other
//! tests' allocations do not blur the figure.

use std::process::Command;

use ptc::{
    Engine, FailureKind, Limits, Registry, RunOptions, RunRequest, Tool, ToolContext,
    ToolDefinition, ToolError,
};
use serde_json::Value;

use crate::common::shared;

use crate::engine::test_registry;

fn rss_mib() -> f64 {
    let statm = std::fs::read_to_string("/proc/self/statm").unwrap_or_default();
    let pages: f64 = statm
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0.0);
    pages * 4096.0 / 1_048_576.0
}

async fn runs(engine: &Engine, code: &str, n: usize, kind: Option<FailureKind>) {
    for _ in 0..n {
        let o = engine
            .run_code(RunRequest::new(code), RunOptions::default())
            .await
            .unwrap();
        assert_eq!(o.kind, kind, "{}", o.text());
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "run by memory_stays_flat in a process of its own"]
async fn soak_child() {
    // Registering real tool lists: schema checks must not keep memory per schema.
    let text = std::fs::read_to_string(shared("bench/peers/tools1000.json")).unwrap();
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
    let engine = Engine::new(
        test_registry(),
        Limits {
            memory_limit_bytes: 16 << 20,
            ..Limits::default()
        },
    )
    .unwrap();
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
    println!(
        "SOAK {before:.1} {after_runs:.1} {before_bombs:.1} {after_bombs:.1} {before_registry:.1} {after_registry:.1}"
    );
}

#[test]
fn memory_stays_flat_over_many_runs_and_heap_bombs() {
    let out = Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "soak::soak_child",
            "--ignored",
            "--nocapture",
            "--test-threads",
            "1",
        ])
        .output()
        .expect("re-run the test binary");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let line = stdout
        .lines()
        .find_map(|l| l.split_once("SOAK "))
        .expect("figures")
        .1;
    let f: Vec<f64> = line
        .split(' ')
        .take(6)
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
}

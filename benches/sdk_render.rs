//! W5 (shared/bench/WORKLOADS.md): render the TypeScript SDK for tools1000.json
//! (and tools50.json).
//!
//! `cargo bench --bench sdk_render`
//!
//! Criterion reports wall time, which on a busy 2-core machine includes the
//! time other processes hold the CPU; the bench also prints the median thread
//! CPU time per render. `serde_json::to_string` of the same tools is measured
//! alongside as a yardstick for how loaded the machine was.

use std::hint::black_box;
use std::path::PathBuf;
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use ptc::{ToolDefinition, render_declarations};
use serde_json::Value;

fn load(file: &str) -> Vec<ToolDefinition> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/bench/peers")
        .join(file);
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    let value: Value = serde_json::from_str(&text).expect("tool list JSON");
    let list = match value {
        Value::Object(mut m) => m.remove("tools").expect("a tools array"),
        other => other,
    };
    serde_json::from_value(list).expect("tool definitions")
}

/// CPU time this thread has used so far.
fn thread_cpu_time() -> Duration {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid, writable timespec; the clock id is a constant
    // every Linux kernel supports.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    assert_eq!(rc, 0, "clock_gettime(CLOCK_THREAD_CPUTIME_ID) failed");
    Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32)
}

fn median_cpu_time(refs: &[&ToolDefinition], runs: usize) -> Duration {
    let mut times: Vec<Duration> = (0..runs)
        .map(|_| {
            let start = thread_cpu_time();
            black_box(render_declarations(black_box(refs)));
            thread_cpu_time() - start
        })
        .collect();
    times.sort();
    times[runs / 2]
}

fn sdk_render(c: &mut Criterion) {
    for file in ["tools50.json", "tools1000.json"] {
        let tools = load(file);
        let refs: Vec<&ToolDefinition> = tools.iter().collect();
        let bytes = render_declarations(&refs).len();
        c.bench_function(&format!("render_declarations/{file}"), |b| {
            b.iter(|| render_declarations(black_box(&refs)))
        });
        let cpu = median_cpu_time(&refs, 201);
        println!(
            "render_declarations/{file}: {bytes} bytes, median thread CPU time {cpu:?} per render (201 runs)"
        );
    }
    // A yardstick taken in the same run: writing the same definitions as
    // compact JSON reads the same memory, so it shows how busy the machine was.
    let tools = load("tools1000.json");
    c.bench_function("serde_json::to_string/tools1000.json (yardstick)", |b| {
        b.iter(|| serde_json::to_string(black_box(&tools)))
    });
}

criterion_group!(benches, sdk_render);
criterion_main!(benches);

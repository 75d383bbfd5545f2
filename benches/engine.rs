//! Hot paths of a run: a cold run, the sub-call round trip, and outcome
//! rendering (console capture). `cargo bench --bench engine`.

use criterion::{Criterion, criterion_group, criterion_main};
use ptc::{
    Engine, Limits, Registry, RunOptions, RunRequest, Tool, ToolContext, ToolDefinition, ToolError,
};
use serde_json::Value;

fn engine() -> Engine {
    let registry = Registry::new();
    registry
        .add(Tool::new(
            ToolDefinition::new("echo").read_only(true),
            |args: Value, _cx: ToolContext| async move { Ok::<_, ToolError>(args) },
        ))
        .expect("echo registers");
    Engine::new(registry, Limits::default()).expect("default limits")
}

fn runs(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let engine = engine();
    let run = |code: &'static str| {
        let engine = engine.clone();
        move || {
            let engine = engine.clone();
            async move {
                let outcome = engine
                    .run_code(RunRequest::new(code), RunOptions::default())
                    .await
                    .expect("valid request");
                assert!(!outcome.is_error, "{}", outcome.text());
                outcome
            }
        }
    };
    c.bench_function("cold_run/return_1", |b| {
        b.to_async(&rt).iter(run("return 1"))
    });
    c.bench_function("cold_run/typed_program", |b| {
        b.to_async(&rt).iter(run(
            "type Row = { id: number; name: string }\nconst rows: Row[] = [{ id: 1, name: 'a' }, { id: 2, name: 'b' }]\nreturn rows.map((r: Row) => r.name).join(',')",
        ))
    });
    c.bench_function("sub_calls/100_sequential", |b| {
        b.to_async(&rt).iter(run(
            "let s = 0; for (let i = 0; i < 100; i++) { s += (await tools.echo({ value: i })).value } return s",
        ))
    });
    c.bench_function("outcome/100_console_lines", |b| {
        b.to_async(&rt).iter(run(
            "for (let i = 0; i < 100; i++) console.log('row', i, { id: i, tags: ['a', 'b'] }); return 'done'",
        ))
    });
}

criterion_group!(benches, runs);
criterion_main!(benches);

//! W5 (fixtures/workloads/WORKLOADS.md): render the TypeScript SDK for tools1000.json
//! (and tools50.json); `run_code`'s description in each of its three forms;
//! and discovery over tools1000.json: building the search index, and
//! `tools.$search`.
//!
//! `cargo bench --bench sdk_render`
//!
//! Criterion reports wall time. Above 256 tools the methods are rendered on
//! up to one thread per core, so the figure also depends on the other core
//! being free. `serde_json::to_string` of the same tools (one thread) is
//! measured alongside as a yardstick for how loaded the machine was.

use std::hint::black_box;
use std::path::PathBuf;

use criterion::{Criterion, criterion_group, criterion_main};
use ptc::{
    Engine, Limits, Registry, Tool, ToolContext, ToolDefinition, ToolError, render_declarations,
};
use serde_json::Value;

fn load(file: &str) -> Vec<ToolDefinition> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/workloads")
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

fn sdk_render(c: &mut Criterion) {
    for file in ["tools50.json", "tools1000.json"] {
        let tools = load(file);
        let refs: Vec<&ToolDefinition> = tools.iter().collect();
        let bytes = render_declarations(&refs).len();
        c.bench_function(&format!("render_declarations/{file}"), |b| {
            b.iter(|| render_declarations(black_box(&refs)))
        });
        println!("render_declarations/{file}: {bytes} bytes");
    }
    // A yardstick taken in the same run: writing the same definitions as
    // compact JSON reads the same memory, so it shows how busy the machine was.
    let tools = load("tools1000.json");
    c.bench_function("serde_json::to_string/tools1000.json (yardstick)", |b| {
        b.iter(|| serde_json::to_string(black_box(&tools)))
    });
}

fn registry_of(tools: Vec<ToolDefinition>) -> Registry {
    let registry = Registry::new();
    let tools = tools.into_iter().map(|d| {
        Tool::new(d, |args: Value, _cx: ToolContext| async move {
            Ok::<_, ToolError>(args)
        })
    });
    registry.add_all(tools).expect("the tools register");
    registry
}

/// What a host pays per presentation of an unchanged registry (the
/// declarations are cached per version): `run_code`'s description of
/// tools1000 in each form, chosen by the budget.
fn description_forms(c: &mut Criterion) {
    let registry = registry_of(load("tools1000.json"));
    for (form, budget) in [
        ("full", 4usize << 20),
        ("index", 64 << 10),
        ("namespaces", 32 << 10),
    ] {
        let limits = Limits {
            description_budget_bytes: budget,
            ..Limits::default()
        };
        let engine = Engine::new(registry.clone(), limits).expect("limits are valid");
        let scope = registry.scope();
        let text = engine.presentation(&scope, None).tools[0]
            .description
            .clone();
        let bytes = text.as_deref().map_or(0, str::len);
        println!("run_code description/{form}/tools1000.json: {bytes} bytes");
        c.bench_function(
            &format!("run_code description/{form}/tools1000.json"),
            |b| b.iter(|| engine.presentation(black_box(&scope), None)),
        );
    }
}

/// Building the search index of tools1000, as the first `$search` of a
/// registry version does.
fn search_index(c: &mut Criterion) {
    let tools = load("tools1000.json");
    println!(
        "search index/tools1000.json: {} terms",
        ptc::__private::build_search_index(&tools)
    );
    c.bench_function("search index/tools1000.json", |b| {
        b.iter(|| ptc::__private::build_search_index(black_box(&tools)))
    });
    // A new registry version: the tools an earlier version analysed are
    // reused, only postings are rebuilt.
    let registry = registry_of(tools);
    let scope = registry.scope();
    ptc::__private::rebuild_search_index(&scope);
    c.bench_function("search index/tools1000.json, next version", |b| {
        b.iter(|| ptc::__private::rebuild_search_index(black_box(&scope)))
    });
}

/// `tools.$search` over tools1000, the index already built (it is built
/// once per registry version): the BM25 query with the scope's visibility.
fn search(c: &mut Criterion) {
    let registry = registry_of(load("tools1000.json"));
    let scope = registry.scope();
    let first = ptc::__private::search(&scope, "github create issue", 10);
    println!("$search/tools1000.json: first {:?}", first.first());
    c.bench_function("$search/tools1000.json", |b| {
        b.iter(|| ptc::__private::search(&scope, black_box("github create issue"), 10))
    });
}

criterion_group!(benches, sdk_render, description_forms, search_index, search);
criterion_main!(benches);

//! The engine's floors: what plain rquickjs (its own runtime, the system
//! allocator, nothing of ptc) costs on this machine, so ptc's per-run
//! figures can be read against the engine's limit. `cargo bench --bench
//! floors`.

use criterion::{Criterion, criterion_group, criterion_main};
use rquickjs::context::intrinsic::{Eval, Json, MapSet, Promise, Proxy, RegExp};
use rquickjs::{Context, Runtime};

/// The intrinsics of ptc's lean contexts (`Intrinsics::Lean`).
type Lean = (Eval, RegExp, Json, Proxy, MapSet, Promise);

fn floors(c: &mut Criterion) {
    c.bench_function("floor/runtime+full_context+eval+drop", |b| {
        b.iter(|| {
            let runtime = Runtime::new().expect("runtime");
            let context = Context::full(&runtime).expect("context");
            let one: i32 = context.with(|ctx| ctx.eval("1").expect("eval"));
            assert_eq!(one, 1);
        })
    });
    c.bench_function("floor/runtime+lean_context+eval+drop", |b| {
        b.iter(|| {
            let runtime = Runtime::new().expect("runtime");
            let context = Context::custom::<Lean>(&runtime).expect("context");
            let one: i32 = context.with(|ctx| ctx.eval("1").expect("eval"));
            assert_eq!(one, 1);
        })
    });
    c.bench_function("floor/runtime+base_context+drop", |b| {
        b.iter(|| {
            let runtime = Runtime::new().expect("runtime");
            let context = Context::base(&runtime).expect("context");
            drop(context);
        })
    });
    let runtime = Runtime::new().expect("runtime");
    c.bench_function("floor/full_context_on_a_runtime+drop", |b| {
        b.iter(|| {
            let context = Context::full(&runtime).expect("context");
            drop(context);
        })
    });
    c.bench_function("floor/lean_context_on_a_runtime+drop", |b| {
        b.iter(|| {
            let context = Context::custom::<Lean>(&runtime).expect("context");
            drop(context);
        })
    });
    c.bench_function("floor/base_context_on_a_runtime+drop", |b| {
        b.iter(|| {
            let context = Context::base(&runtime).expect("context");
            drop(context);
        })
    });
}

/// What each group of intrinsics adds to a base context, on an existing
/// runtime: which of a full context's cost a program could skip.
fn intrinsics(c: &mut Criterion) {
    use rquickjs::context::intrinsic;
    let runtime = Runtime::new().expect("runtime");
    macro_rules! with {
        ($name:literal, $intrinsic:ty) => {
            c.bench_function(concat!("intrinsic/base+", $name), |b| {
                b.iter(|| {
                    let context = Context::custom::<$intrinsic>(&runtime).expect("context");
                    drop(context);
                })
            });
        };
    }
    with!("none", intrinsic::None);
    with!("Date", intrinsic::Date);
    with!("Eval", intrinsic::Eval);
    with!("RegExp", intrinsic::RegExp);
    with!("Json", intrinsic::Json);
    with!("Proxy", intrinsic::Proxy);
    with!("MapSet", intrinsic::MapSet);
    with!("TypedArrays", intrinsic::TypedArrays);
    with!("Promise", intrinsic::Promise);
    with!("BigInt", intrinsic::BigInt);
    with!("WeakRef", intrinsic::WeakRef);
    with!("Performance", intrinsic::Performance);
}

criterion_group!(benches, floors, intrinsics);
criterion_main!(benches);

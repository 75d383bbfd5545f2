//! The console formatter (`src/engine/typescript/js/inspect.js`) under QuickJS-ng,
//! against the golden cases generated from Node (`tests/golden/inspect`).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use rquickjs::{
    Array, CatchResultExt, Context, Ctx, Function, Object, Runtime, Value, promise::PromiseState,
    qjs,
};
use serde::Deserialize;

const SOURCE: &str = include_str!("../src/engine/typescript/js/inspect.js");
const PRELUDE: &str = include_str!("../src/engine/typescript/js/prelude.js");

/// The prelude's `primordials` object literal: what the engine hands
/// inspect.js, taken before any program runs.
fn primordials_literal() -> &'static str {
    let start = PRELUDE.find("const primordials = {").unwrap() + "const primordials = ".len();
    let end = start + PRELUDE[start..].find("\n  };").unwrap() + "\n  }".len();
    &PRELUDE[start..end]
}
const CASES: &str = include_str!("golden/inspect/cases.json");

#[derive(Deserialize)]
struct Case {
    name: String,
    setup: String,
    expected: String,
    #[serde(rename = "expectedWithoutHooks")]
    expected_without_hooks: Option<String>,
}

/// Evaluates inspect.js, calls it with the builtins it takes, and returns the
/// `{ formatArgs, inspect, hooks }` object.
fn load<'js>(ctx: &Ctx<'js>, with_hooks: bool) -> Object<'js> {
    let make: Function = ctx
        .eval(SOURCE)
        .catch(ctx)
        .unwrap_or_else(|e| panic!("inspect.js failed to evaluate: {e}"));
    let primordials: Object = ctx.eval(format!("({})", primordials_literal())).unwrap();
    let api: Object = make
        .call((primordials,))
        .catch(ctx)
        .unwrap_or_else(|e| panic!("inspect.js failed to load: {e}"));
    if with_hooks {
        install_hooks(ctx, &api);
    }
    api
}

/// The optional host hooks: promise state and proxy details.
fn install_hooks<'js>(ctx: &Ctx<'js>, api: &Object<'js>) {
    let hooks: Object = api.get("hooks").unwrap();
    let promise_state = Function::new(
        ctx.clone(),
        |ctx: Ctx<'js>, v: Value<'js>| -> rquickjs::Result<Value<'js>> {
            let Some(promise) = v.as_promise() else {
                return Ok(Value::new_undefined(ctx));
            };
            let details = Array::new(ctx.clone())?;
            match promise.state() {
                PromiseState::Pending => {
                    details.set(0, 0)?;
                }
                PromiseState::Resolved => {
                    details.set(0, 1)?;
                    let result: Value = promise.result().expect("settled")?;
                    details.set(1, result)?;
                }
                PromiseState::Rejected => {
                    details.set(0, 2)?;
                    let _ = promise.result::<Value>();
                    details.set(1, ctx.catch())?;
                }
            }
            Ok(details.into_value())
        },
    )
    .unwrap();
    let proxy_details = Function::new(
        ctx.clone(),
        |ctx: Ctx<'js>, v: Value<'js>| -> rquickjs::Result<Value<'js>> {
            // SAFETY: plain QuickJS-ng C API calls on live values of this
            // context; every returned JSValue is owned by a `Value` (or, for
            // an exception, taken with `ctx.catch()`).
            unsafe {
                if !qjs::JS_IsProxy(v.as_raw()) {
                    return Ok(Value::new_undefined(ctx));
                }
                let raw_ctx = ctx.as_raw().as_ptr();
                let target = qjs::JS_GetProxyTarget(raw_ctx, v.as_raw());
                if qjs::JS_IsException(target) {
                    let _ = ctx.catch();
                    return Ok(Value::new_null(ctx));
                }
                let target = Value::from_raw(ctx.clone(), target);
                let handler = qjs::JS_GetProxyHandler(raw_ctx, v.as_raw());
                if qjs::JS_IsException(handler) {
                    let _ = ctx.catch();
                    return Ok(Value::new_null(ctx));
                }
                let handler = Value::from_raw(ctx.clone(), handler);
                let details = Array::new(ctx.clone())?;
                details.set(0, target)?;
                details.set(1, handler)?;
                Ok(details.into_value())
            }
        },
    )
    .unwrap();
    hooks.set("promiseState", promise_state).unwrap();
    hooks.set("proxyDetails", proxy_details).unwrap();
}

#[test]
fn inspect_matches_golden_cases() {
    let cases: Vec<Case> = serde_json::from_str(CASES).expect("cases.json parses");
    assert!(cases.len() >= 80, "only {} golden cases", cases.len());
    let mut mismatches = Vec::new();
    for with_hooks in [true, false] {
        let rt = Runtime::new().unwrap();
        let context = Context::full(&rt).unwrap();
        context.with(|ctx| {
            let api = load(&ctx, with_hooks);
            let format_args: Function = api.get("formatArgs").unwrap();
            let mode = if with_hooks { "hooks" } else { "no hooks" };
            for case in &cases {
                let args: Value = match ctx.eval(case.setup.as_str()).catch(&ctx) {
                    Ok(args) => args,
                    Err(e) => {
                        mismatches.push(format!("[{mode}] {}: setup threw: {e}", case.name));
                        continue;
                    }
                };
                let got: String = match format_args.call((args,)).catch(&ctx) {
                    Ok(got) => got,
                    Err(e) => {
                        mismatches.push(format!("[{mode}] {}: formatArgs threw: {e}", case.name));
                        continue;
                    }
                };
                let want = match (&case.expected_without_hooks, with_hooks) {
                    (Some(without), false) => without,
                    _ => &case.expected,
                };
                if &got != want {
                    mismatches.push(format!(
                        "[{mode}] {}\n  setup:    {}\n  expected: {want:?}\n  got:      {got:?}",
                        case.name, case.setup
                    ));
                }
            }
        });
    }
    assert!(
        mismatches.is_empty(),
        "{} mismatch(es) under QuickJS:\n{}",
        mismatches.len(),
        mismatches.join("\n")
    );
}

/// Runs `formatArgs(<setup>)`: the output, and how much JavaScript it ran,
/// counted in interrupt checks (QuickJS makes one every 10,000 calls and
/// loop iterations or so): a measure of work that does not depend on the
/// machine or its load.
fn format_counting_work(setup: &str) -> (String, usize) {
    let rt = Runtime::new().unwrap();
    let checks = Arc::new(AtomicUsize::new(0));
    let counting = Arc::new(AtomicBool::new(false));
    let (counter, on) = (Arc::clone(&checks), Arc::clone(&counting));
    rt.set_interrupt_handler(Some(Box::new(move || {
        if on.load(Ordering::Relaxed) {
            counter.fetch_add(1, Ordering::Relaxed);
        }
        false
    })));
    let context = Context::full(&rt).unwrap();
    context.with(|ctx| {
        let api = load(&ctx, false);
        let format_args: Function = api.get("formatArgs").unwrap();
        let args: Value = ctx.eval(setup).catch(&ctx).unwrap();
        counting.store(true, Ordering::Relaxed);
        let out: String = format_args.call((args,)).catch(&ctx).unwrap();
        counting.store(false, Ordering::Relaxed);
        (out, checks.load(Ordering::Relaxed))
    })
}

#[test]
fn inspect_bounds_huge_values() {
    let huge = [
        "(() => { const o = {}; for (let i = 0; i < 100000; i++) o['key' + i] = i; return [o]; })()",
        "[Array.from({ length: 100 }, () => Array.from({ length: 100 }, () => 'x'.repeat(2000)))]",
        "[new Array(1000000).fill(1)]",
        "[new Uint8Array(10 * 1024 * 1024)]",
        "[new Map(Array.from({ length: 100 }, (_, i) => [i, { s: 'y'.repeat(10000) }]))]",
    ];
    for setup in huge {
        let (out, work) = format_counting_work(setup);
        assert!(out.chars().count() <= 65537, "{setup}: {} chars", out.len());
        // Bounded work: visiting each of a million elements alone would
        // make at least 100 checks.
        assert!(work < 100, "{setup}: {work} interrupt checks");
    }
    let (out, _) = format_counting_work(
        "[{ s: 'z'.repeat(100000), t: Array.from({ length: 20 }, () => 'w'.repeat(9000)) }]",
    );
    assert!(out.contains('\u{2026}'), "cut marker missing");
}

#[test]
fn inspect_never_throws() {
    let nasty = [
        "[new Proxy({}, { get() { throw 1; }, ownKeys() { throw 2; }, getPrototypeOf() { throw 3; }, has() { throw 4; } })]",
        "['%s', new Proxy({}, { get() { throw new Error('g'); } })]",
        "['%d %i %f', { valueOf() { throw 1; } }, { toString() { throw 1; } }, { toString() { throw 1; } }]",
        "[{ [Symbol.for('nodejs.util.inspect.custom')]() { return this.x; }, get x() { return { [Symbol.for('nodejs.util.inspect.custom')]: function f() { return f.call(this); } }; } }]",
        "(() => { let p = {}; for (let i = 0; i < 10000; i++) p = Object.create(p); return [p]; })()",
        "[Object.defineProperty(new Error('x'), 'message', { get() { throw new Error('m'); } })]",
        "(() => { const r = Proxy.revocable(function () {}, {}); r.revoke(); return ['%s %o %j', r.proxy, r.proxy, r.proxy]; })()",
    ];
    for with_hooks in [true, false] {
        let rt = Runtime::new().unwrap();
        rt.set_max_stack_size(512 * 1024);
        let context = Context::full(&rt).unwrap();
        context.with(|ctx| {
            let api = load(&ctx, with_hooks);
            let format_args: Function = api.get("formatArgs").unwrap();
            for setup in nasty {
                let args: Value = ctx.eval(setup).catch(&ctx).unwrap();
                let out = format_args.call::<_, String>((args,)).catch(&ctx);
                assert!(out.is_ok(), "{setup}: {:?}", out.err());
            }
        });
    }
}

#[test]
fn inspect_keeps_no_state_between_calls() {
    let rt = Runtime::new().unwrap();
    let context = Context::full(&rt).unwrap();
    context.with(|ctx| {
        let api = load(&ctx, false);
        ctx.globals().set("api", api).unwrap();
        let n = 20_000;
        let out: String = ctx
            .eval(format!(
                "(() => {{ const formatArgs = api.formatArgs; let last; \
                 for (let i = 0; i < {n}; i++) last = formatArgs(['i=', i, {{ a: 1, b: [1, 2] }}]); \
                 return last; }})()"
            ))
            .catch(&ctx)
            .unwrap();
        assert_eq!(out, format!("i= {} {{ a: 1, b: [ 1, 2 ] }}", n - 1));
    });
}

#[test]
fn inspect_function_renders_one_value() {
    let rt = Runtime::new().unwrap();
    let context = Context::full(&rt).unwrap();
    context.with(|ctx| {
        let api = load(&ctx, false);
        ctx.globals().set("api", api).unwrap();
        let checks = [
            ("api.inspect('x')", "'x'"),
            ("api.inspect(\"it's\")", "\"it's\""),
            (
                "api.inspect({ a: { b: { c: 1 } } }, { depth: 0 })",
                "{ a: [Object] }",
            ),
            (
                "api.inspect({ a: { b: { c: { d: { e: 1 } } } } }, { depth: null })",
                "{ a: { b: { c: { d: { e: 1 } } } } }",
            ),
            (
                "api.inspect([1, 2, 3], { maxArrayLength: 1 })",
                "[ 1, ... 2 more items ]",
            ),
            (
                "api.inspect('abc', { maxStringLength: 1 })",
                "'a'... 2 more characters",
            ),
            ("api.inspect()", "undefined"),
            ("api.formatArgs('not an array')", "'not an array'"),
        ];
        for (code, want) in checks {
            let got: String = ctx.eval(code).catch(&ctx).unwrap();
            assert_eq!(got, want, "{code}");
        }
    });
}

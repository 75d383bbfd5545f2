//! The run_code engine against contracts §6–§7.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use ptc::{
    ContentBlock, Engine, ErrorCode, FailureKind, Limits, LogLevel, Outcome, Policy, Registry,
    RunEvent, RunEventKind, RunOptions, RunRequest, Tool, ToolContext, ToolDefinition, ToolError,
    ToolOutput,
};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

use crate::common::engine_with_heap;
pub use crate::common::test_registry;

pub fn engine() -> Engine {
    Engine::new(test_registry(), Limits::default()).unwrap()
}

/// Runs `code` under a liveness deadline only (a test that needs a
/// timeout sets its own): 10 s was outlasted by a run of a million
/// allocations on two cores under `stress`.
pub async fn run(engine: &Engine, code: &str) -> Outcome {
    engine
        .run_code(
            RunRequest::new(code).timeout_ms(120_000),
            RunOptions::default(),
        )
        .await
        .unwrap()
}

async fn text(code: &str) -> String {
    run(&engine(), code).await.text().to_owned()
}

/// Collects events.
#[derive(Clone, Default)]
pub struct Events(Arc<Mutex<Vec<RunEvent>>>);

impl Events {
    pub fn options(&self) -> RunOptions {
        let events = self.clone();
        RunOptions::default().events(move |e: RunEvent| events.0.lock().unwrap().push(e))
    }
    pub fn take(&self) -> Vec<RunEventKind> {
        self.0.lock().unwrap().drain(..).map(|e| e.kind).collect()
    }
}

#[tokio::test]
async fn return_values_render_as_the_contract_says() {
    assert_eq!(text("return 1").await, "1");
    assert_eq!(text("return 'plain text'").await, "plain text");
    assert_eq!(
        text("return { a: [1, 'x'], b: null }").await,
        r#"{"a":[1,"x"],"b":null}"#
    );
    assert_eq!(
        text("return undefined").await,
        "(run_code completed with no output)"
    );
    assert_eq!(text("").await, "(run_code completed with no output)");
    let note = "\n[run_code: shown as console.log shows it, since JSON cannot carry";
    assert_eq!(text("return 10n").await, format!("10n{note} a BigInt]"));
    assert_eq!(
        text("const o: any = {}; o.self = o; return o").await,
        format!("<ref *1> {{ self: [Circular *1] }}{note} a cycle]")
    );
    assert_eq!(
        text("return function f() {}").await,
        format!("[Function: f]{note} a function]")
    );
    assert_eq!(
        text("return { toJSON() { throw 1 }, toString() { throw 2 } }").await,
        format!(
            "{{ toJSON: [Function: toJSON], toString: [Function: toString] }}{note} what made JSON.stringify throw (Uncaught 1)]"
        )
    );
    assert_eq!(
        text("return new Date(0)").await,
        "\"1970-01-01T00:00:00.000Z\""
    );
}

#[tokio::test]
async fn console_lines_come_first_in_node_style() {
    let out = text(
        "console.log('a', 1, { b: [1, 'x'] }); console.info('i'); console.debug('d');\n\
         console.warn('careful'); console.error('bad', new Map([[1, 2]])); return 'done'",
    )
    .await;
    assert_eq!(
        out,
        "a 1 { b: [ 1, 'x' ] }\ni\nd\n[warn] careful\n[error] bad Map(1) { 1 => 2 }\ndone"
    );
}

#[tokio::test]
async fn runtime_failures_carry_kind_position_and_captured_output() {
    let o = run(&engine(), "console.log('before')\nconst x: any = null\nx.y").await;
    assert_eq!(o.kind, Some(FailureKind::Runtime));
    assert!(o.is_error);
    assert_eq!(
        o.text(),
        "Error: code run failed (runtime): TypeError: cannot read property 'y' of `x`, which is null (line 3, column 3)\n  3 | x.y\n    |   ^\nCaptured output:\nbefore"
    );
    let o = run(&engine(), "throw 'just a string'").await;
    assert_eq!(
        o.text(),
        "Error: code run failed (runtime): Uncaught 'just a string'"
    );
}

/// Every statement kind: QuickJS records positions only at some of them,
/// so the rest are found from what the message names.
#[tokio::test]
async fn runtime_error_positions_point_at_the_failing_code() {
    let cases = [
        (
            "const a = 1\nconst b = 2\nlet x: any\nreturn x.length",
            (4, 10),
        ),
        (
            "const rows: any[] = [{}]\n\n\nreturn rows.map(r => r.foo.bar)",
            (4, 28),
        ),
        ("let x: any\nx.y = 1", (2, 3)),
        ("let x: any = null\nif (x.a) {}", (2, 7)),
        ("let x: any = null\nwhile (x.a) {}", (2, 10)),
        ("const o: any = undefined\nconst v = o.p", (2, 13)),
        ("let u: any\nconst { k } = u.box", (2, 17)),
        ("let f: any\n  f()", (2, 3)),
        ("await null\nlet x: any\nreturn x.y", (3, 10)),
        ("const q = 1\nreturn zz + 1", (2, 8)),
        (
            "for (const r of [1]) {\n  const v: any = null\n  v.k\n}",
            (3, 5),
        ),
        ("const n: any = null\nreturn `t ${n.v}`", (2, 15)),
        ("const n: any = null\nreturn { a: 1, b: n.w }", (2, 21)),
        // Line 1, where QuickJS counts columns from 0.
        ("const o: any = null; o.p", (1, 24)),
        (
            "const s = 'o.p'\n// o.p\nconst o: any = null\nreturn o.p",
            (4, 10),
        ),
        (
            "function g(m: any) {\n  return m.z\n}\nreturn g(undefined)",
            (2, 12),
        ),
        ("throw new Error('e')", (1, 11)),
    ];
    let engine = engine();
    for (code, (line, column)) in cases {
        let o = run(&engine, code).await;
        assert_eq!(o.kind, Some(FailureKind::Runtime), "{code}: {}", o.text());
        let want = format!("(line {line}, column {column})");
        let lines: Vec<&str> = o.text().lines().collect();
        assert!(
            lines[0].ends_with(&want),
            "{code}: {} (wanted {want})",
            o.text()
        );
        // The failing line follows, with a caret under the same column.
        let gutter = line.to_string().len() + 5;
        assert_eq!(
            lines[2].find('^'),
            Some(gutter + column as usize - 1),
            "{code}: {}",
            o.text()
        );
    }
}

#[tokio::test]
async fn syntax_failures_point_at_the_models_code() {
    let o = run(&engine(), "const a = 1;\nenum E { A }").await;
    assert_eq!(o.kind, Some(FailureKind::Syntax));
    assert!(
        o.text().starts_with("Error: code run failed (syntax): "),
        "{}",
        o.text()
    );
    assert!(o.text().ends_with("(line 2, column 1)"), "{}", o.text());
    let o = run(&engine(), "let x = 1;\nreturn (x +").await;
    assert_eq!(o.kind, Some(FailureKind::Syntax));
    assert!(o.text().contains("line 2"), "{}", o.text());
    let o = run(&engine(), "class A { constructor(private x: number) {} }").await;
    assert_eq!(o.kind, Some(FailureKind::Syntax));
    // Past the stripper, QuickJS's own refusal, with its position.
    let o = run(&engine(), "let b = 2\n  let b = 3\nreturn b").await;
    assert_eq!(
        o.text(),
        "Error: code run failed (syntax): SyntaxError: invalid redefinition of lexical identifier (line 2, column 3)"
    );
}

#[tokio::test]
async fn oversized_code_is_a_syntax_failure_naming_size_and_limit() {
    let limits = Limits {
        max_code_bytes: 100,
        ..Limits::default()
    };
    let engine = Engine::new(test_registry(), limits).unwrap();
    let o = run(&engine, &format!("return '{}'", "x".repeat(200))).await;
    assert_eq!(o.kind, Some(FailureKind::Syntax));
    // `return '` (8 bytes), 200 `x`, `'` (1): 209 bytes, named with the
    // limit in one phrase, not merely somewhere in the text.
    assert!(
        o.text().starts_with(
            "Error: code run failed (syntax): code is 209 bytes, over the 100-byte limit"
        ),
        "{}",
        o.text()
    );
}

#[tokio::test]
async fn the_sandbox_has_the_contract_globals_and_nothing_else() {
    let out = text(
        "return [typeof tools, typeof console.log, typeof setTimeout, typeof clearTimeout, \
         typeof ToolCallError, typeof require, typeof process, typeof fetch, typeof Deno, \
         typeof __ptc_native, typeof JSON, typeof Promise, typeof Map].join(' ')",
    )
    .await;
    assert_eq!(
        out,
        "object function function function function undefined undefined undefined undefined undefined object function function"
    );
    // The global object's own names, exactly: QuickJS's standard library
    // and the contract's own globals. Anything else (an engine bridge, a
    // host capability) fails here.
    let globals = text("return Object.getOwnPropertyNames(globalThis).sort().join(' ')").await;
    assert_eq!(
        globals,
        "AggregateError Array ArrayBuffer Atomics BigInt BigInt64Array BigUint64Array Boolean \
         DOMException DataView Date Error EvalError FinalizationRegistry Float16Array Float32Array \
         Float64Array Function Infinity Int16Array Int32Array Int8Array InternalError Iterator JSON \
         Map Math NaN Number Object Promise Proxy RangeError ReferenceError Reflect RegExp Set \
         SharedArrayBuffer StateError String Symbol SyntaxError ToolCallError TypeError URIError Uint16Array \
         Uint32Array Uint8Array Uint8ClampedArray WeakMap WeakRef WeakSet clearTimeout console \
         decodeURI decodeURIComponent encodeURI encodeURIComponent escape eval globalThis isFinite \
         isNaN parseFloat parseInt performance queueMicrotask setTimeout state tools undefined unescape"
    );
    let o = run(&engine(), "await import('fs'); return 'imported'").await;
    assert_eq!(
        o.text(),
        "Error: code run failed (runtime): ReferenceError: could not load module 'fs'"
    );
    // Blocking the thread is refused, so it cannot escape the deadline.
    let o = run(
        &engine(),
        "return Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0)",
    )
    .await;
    assert!(
        o.text().contains("TypeError: cannot block in this thread"),
        "{}",
        o.text()
    );
}

/// The global object exactly as a program sees it: each name in QuickJS's
/// own order, with its type and property flags. Any change to how a run's
/// context is made (intrinsics added later or lazily, another start-up
/// path) must leave this as it is (`state` and `StateError` are accessors:
/// made on first use). Runs several at once, so some take a warm sandbox
/// and some one built on demand.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_run_sees_the_same_globals_in_the_same_order() {
    let code = "return Object.getOwnPropertyNames(globalThis).map((n) => { \
        const d: any = Object.getOwnPropertyDescriptor(globalThis, n); \
        return n + ':' + typeof d.value + ':' + (d.writable ? 'w' : '') + (d.enumerable ? 'e' : '') \
            + (d.configurable ? 'c' : '') }).join(' ')";
    let want = "Object:function:wc Function:function:wc Error:function:wc EvalError:function:wc \
        RangeError:function:wc ReferenceError:function:wc SyntaxError:function:wc \
        TypeError:function:wc URIError:function:wc InternalError:function:wc \
        AggregateError:function:wc Iterator:function:wc Array:function:wc parseInt:function:wc \
        parseFloat:function:wc isNaN:function:wc isFinite:function:wc queueMicrotask:function:wc \
        decodeURI:function:wc decodeURIComponent:function:wc encodeURI:function:wc \
        encodeURIComponent:function:wc escape:function:wc unescape:function:wc Infinity:number: \
        NaN:number: undefined:undefined: Number:function:wc Boolean:function:wc \
        String:function:wc Math:object:wc Reflect:object:wc Symbol:function:wc eval:function:wc \
        globalThis:object:wc Date:function:wc RegExp:function:wc JSON:object:wc \
        Proxy:function:wc Map:function:wc Set:function:wc WeakMap:function:wc \
        WeakSet:function:wc ArrayBuffer:function:wc SharedArrayBuffer:function:wc \
        Uint8ClampedArray:function:wc Int8Array:function:wc Uint8Array:function:wc \
        Int16Array:function:wc Uint16Array:function:wc Int32Array:function:wc \
        Uint32Array:function:wc BigInt64Array:function:wc BigUint64Array:function:wc \
        Float16Array:function:wc Float32Array:function:wc Float64Array:function:wc \
        DataView:function:wc Atomics:object:wc Promise:function:wc BigInt:function:wc \
        WeakRef:function:wc FinalizationRegistry:function:wc DOMException:function:wc \
        performance:object:wec tools:object: ToolCallError:function:wc state:undefined: \
        StateError:undefined:c console:object:wc \
        setTimeout:function:wec clearTimeout:function:wec";
    let engine = engine();
    let runs = (0..8).map(|_| {
        let engine = engine.clone();
        tokio::spawn(async move { run(&engine, code).await })
    });
    for outcome in futures::future::join_all(runs).await {
        let outcome = outcome.unwrap();
        assert_eq!(outcome.kind, None, "{}", outcome.text());
        assert_eq!(outcome.text(), want);
    }
}

#[tokio::test]
async fn tools_resolve_values_and_reject_with_tool_call_errors() {
    let out = text(
        "const a = await tools.echo({ n: 1 }); \
         const noArgs = await tools.echo(); \
         let e: any; try { await tools.fail({}) } catch (err) { e = err } \
         let u: any; try { await tools.missing({}) } catch (err) { u = err } \
         let v: any; try { await tools.sleep({ ms: 'x' }) } catch (err) { v = err } \
         return [JSON.stringify(a), JSON.stringify(noArgs), e instanceof ToolCallError, e.toolName, e.code, e.message, u.code, v.code].join('|')",
    )
    .await;
    assert_eq!(
        out,
        "{\"n\":1}|{}|true|fail|TOOL_ERROR|it broke|UNKNOWN_TOOL|INVALID_ARGUMENTS"
    );
}

#[tokio::test]
async fn arguments_follow_json_semantics() {
    let out = text(
        "return JSON.stringify(await tools.echo({ d: new Date(0), u: undefined, j: { toJSON() { return 'J' } } }))",
    )
    .await;
    assert_eq!(out, r#"{"d":"1970-01-01T00:00:00.000Z","j":"J"}"#);
    let plain = text(
        "const bare = Object.create(null); bare.k = 'v';\n\
         return JSON.stringify(await tools.echo({ a: [1, 'x', true, null, { b: -0.5, bare }], u: undefined, deep: [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]] }))",
    )
    .await;
    assert_eq!(
        plain,
        r#"{"a":[1,"x",true,null,{"b":-0.5,"bare":{"k":"v"}}],"deep":[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]}"#
    );
}

#[tokio::test]
async fn lossy_arguments_reject_inside_the_sandbox_without_a_sub_call() {
    let events = Events::default();
    let cases = [
        "[1, undefined]",
        "{ n: NaN }",
        "{ n: Infinity }",
        "{ n: -Infinity }",
        "{ b: 1n }",
        "{ f() {} }",
        "{ s: Symbol('x') }",
        "{ m: new Map() }",
        "{ s: new Set() }",
        "{ t: new Uint8Array(2) }",
        "(() => { const o: any = {}; o.o = o; return o })()",
        // The same, nested inside plain objects and arrays.
        "{ a: [1, undefined] }",
        "{ a: [1, , 3] }",
        "{ a: { b: [{ n: NaN }] } }",
        "{ a: { f() {} } }",
        "{ a: [new Map()] }",
        "{ a: [[[[1n]]]] }",
        // A getter that throws: the error is the reason, reported once.
        "{ get x() { throw new Error('boom') } }",
        "{ a: [{ get x() { throw 1 } }] }",
        // Arrays that claim billions of elements.
        "{ a: (() => { const a: number[] = []; a[2 ** 31] = 1; return a })() }",
        "{ a: new Proxy([], { get: (_t: any, k: any) => (k === 'length' ? 2 ** 32 - 1 : undefined) }) }",
        // Past the plain path's budget: the exact path, which the heap limit bounds.
        "{ a: [...Array.from({ length: 200000 }, () => 1), undefined] }",
    ];
    for case in cases {
        let o = engine()
            .run_code(
                RunRequest::new(format!(
                    "try {{ await tools.echo({case}); return 'accepted' }} catch (e: any) {{ return e.code + ': ' + e.message }}"
                )),
                events.options(),
            )
            .await
            .unwrap();
        assert!(
            o.text()
                .starts_with("INVALID_ARGUMENTS: arguments for `echo` are not lossless JSON"),
            "{case}: {}",
            o.text()
        );
        assert_eq!(o.sub_calls, 0, "{case}");
    }
    assert!(events.take().is_empty(), "no events for rejected calls");
}

#[tokio::test]
async fn sub_calls_get_ids_and_paired_events() {
    let events = Events::default();
    let o = engine()
        .run_code(
            RunRequest::new("await tools.echo({ a: 1 }); try { await tools.nope() } catch {} ; await tools.sleep({ ms: 1 }); return 'ok'")
                .run_id("r1"),
            events.options(),
        )
        .await
        .unwrap();
    assert_eq!((o.text(), o.sub_calls, o.run_id.as_str()), ("ok", 3, "r1"));
    let events = events.take();
    let ids: Vec<String> = events
        .iter()
        .map(|e| match e {
            RunEventKind::Started { id, .. } => format!("started {id}"),
            RunEventKind::Settled { id, ok, .. } => format!("settled {id} {ok}"),
            RunEventKind::Log { .. } | RunEventKind::Truncated { .. } => "log".into(),
            _ => "other".into(),
        })
        .collect();
    assert_eq!(
        ids,
        [
            "started r1:ptc:1",
            "settled r1:ptc:1 true",
            "started r1:ptc:2",
            "settled r1:ptc:2 false",
            "started r1:ptc:3",
            "settled r1:ptc:3 true"
        ]
    );
    match &events[0] {
        RunEventKind::Started {
            name, arguments, ..
        } => {
            assert_eq!(
                (name.as_str(), arguments.whole()),
                ("echo", Some(&json!({ "a": 1 })))
            );
        }
        other => panic!("{other:?}"),
    }
}

fn counting_registry(max_seen: Arc<AtomicUsize>, log: Arc<Mutex<Vec<String>>>) -> Registry {
    let r = Registry::new();
    let in_flight = Arc::new(AtomicUsize::new(0));
    for (name, read_only) in [("read", true), ("write", false)] {
        let (in_flight, max_seen, log) = (
            Arc::clone(&in_flight),
            Arc::clone(&max_seen),
            Arc::clone(&log),
        );
        r.add(Tool::new(
            ToolDefinition::new(name).read_only(read_only),
            move |a: Value, _: ToolContext| {
                let (in_flight, max_seen, log) = (
                    Arc::clone(&in_flight),
                    Arc::clone(&max_seen),
                    Arc::clone(&log),
                );
                async move {
                    let now = in_flight.fetch_add(1, Ordering::SeqCst) + 1;
                    max_seen.fetch_max(now, Ordering::SeqCst);
                    let tag = a["tag"].as_str().unwrap_or("").to_owned();
                    log.lock().unwrap().push(format!("start {tag}"));
                    tokio::time::sleep(Duration::from_millis(a["ms"].as_u64().unwrap_or(5))).await;
                    log.lock().unwrap().push(format!("end {tag}"));
                    in_flight.fetch_sub(1, Ordering::SeqCst);
                    Ok::<_, ToolError>(json!(tag))
                }
            },
        ))
        .unwrap();
    }
    r
}

#[tokio::test]
async fn at_most_the_cap_of_sub_calls_are_in_flight() {
    let max_seen = Arc::new(AtomicUsize::new(0));
    let registry = counting_registry(Arc::clone(&max_seen), Arc::default());
    let engine = Engine::new(
        registry,
        Limits {
            max_parallel_sub_calls: 3,
            ..Limits::default()
        },
    )
    .unwrap();
    let o = run(&engine, "const r = await Promise.all(Array.from({ length: 20 }, (_, i) => tools.read({ tag: String(i), ms: 3 }))); return r.length").await;
    assert_eq!(o.text(), "20");
    assert_eq!(max_seen.load(Ordering::SeqCst), 3);
}

#[tokio::test]
async fn a_mutating_call_runs_alone_in_submission_order() {
    let log = Arc::new(Mutex::new(Vec::new()));
    let engine = Engine::new(
        counting_registry(Arc::default(), Arc::clone(&log)),
        Limits::default(),
    )
    .unwrap();
    let o = run(
        &engine,
        "await Promise.all([tools.read({ tag: 'r1', ms: 20 }), tools.read({ tag: 'r2', ms: 5 }), \
         tools.write({ tag: 'w', ms: 5 }), tools.read({ tag: 'r3', ms: 1 })]); return 'ok'",
    )
    .await;
    assert_eq!(o.text(), "ok");
    let log = log.lock().unwrap().clone();
    let at = |s: &str| log.iter().position(|l| l == s).unwrap();
    assert!(
        at("start w") > at("end r1") && at("start w") > at("end r2"),
        "{log:?}"
    );
    assert!(at("start r3") > at("end w"), "{log:?}");
}

/// The interrupt ends the loop at the deadline: with a grace of 60 s, a
/// run the watchdog had to end would be answered a minute later, and its
/// thread retired.
#[tokio::test]
async fn a_busy_loop_inside_try_ends_as_timeout() {
    let limits = Limits {
        grace_ms: 60_000,
        ..Limits::default()
    };
    let engine = Engine::new(test_registry(), limits).unwrap();
    let o = engine
        .run_code(
            RunRequest::new(
                "console.log('start'); try { while (true) {} } catch (e) { return 'caught' }",
            )
            .timeout_ms(300),
            RunOptions::default(),
        )
        .await
        .unwrap();
    assert_eq!(o.kind, Some(FailureKind::Timeout));
    assert_eq!(
        o.text(),
        "Error: code run failed (timeout): the run exceeded its 300 ms deadline. By then it had made no sub-call; it was running JavaScript when the limit struck.\nCaptured output:\nstart"
    );
    assert!(o.elapsed >= Duration::from_millis(300) && o.elapsed < Duration::from_secs(30));
    assert_eq!(engine.retired_threads().total, 0);
    assert_eq!(
        run(&engine, "return 'next run works'").await.text(),
        "next run works"
    );
}

#[tokio::test]
async fn arguments_that_claim_billions_of_elements_hit_a_limit_not_the_host() {
    let o = engine()
        .run_code(
            RunRequest::new(
                "await tools.echo({ a: new Proxy([], { get: (_t: any, k: any) => (k === 'length' ? 2 ** 31 - 1 : 1) }) })",
            )
            .timeout_ms(3000),
            RunOptions::default(),
        )
        .await
        .unwrap();
    assert!(
        matches!(o.kind, Some(FailureKind::Memory | FailureKind::Timeout)),
        "{:?}: {}",
        o.kind,
        o.text()
    );
}

#[tokio::test]
async fn a_looping_to_json_in_the_return_value_is_still_a_timeout() {
    for code in [
        "return { toJSON() { while (true) {} } }",
        // Read while the arguments are checked, inside a try.
        "try { await tools.echo({ get x() { while (true) {} } }) } catch { return 'caught' }",
    ] {
        let o = engine()
            .run_code(RunRequest::new(code).timeout_ms(300), RunOptions::default())
            .await
            .unwrap();
        assert_eq!(o.kind, Some(FailureKind::Timeout), "{code}: {}", o.text());
    }
}

#[tokio::test]
async fn the_deadline_bounds_tool_waits_and_cancels_sub_calls() {
    let events = Events::default();
    let o = engine()
        .run_code(
            RunRequest::new(
                "await Promise.all([tools.sleep({ ms: 60000 }), tools.sleep({ ms: 60000 })])",
            )
            .timeout_ms(200),
            events.options(),
        )
        .await
        .unwrap();
    assert_eq!(o.kind, Some(FailureKind::Timeout));
    // A liveness bound, half the sleeps: the deadline ended the wait.
    assert!(o.elapsed < Duration::from_secs(30));
    let settled: Vec<_> = events
        .take()
        .into_iter()
        .filter_map(|e| match e {
            RunEventKind::Settled { error, .. } => Some(error.map(|e| e.code)),
            _ => None,
        })
        .collect();
    assert_eq!(
        settled,
        [Some(ErrorCode::Aborted), Some(ErrorCode::Aborted)]
    );
}

#[tokio::test]
async fn the_deadline_bounds_approval_waits() {
    let registry = test_registry();
    registry
        .add(Tool::new(
            ToolDefinition::new("rm").policy(Policy::Ask),
            |_a: Value, _: ToolContext| async { Ok::<_, ToolError>(json!(1)) },
        ))
        .unwrap();
    registry.set_approver(|_req| std::future::pending::<ptc::Approval>());
    let engine = Engine::new(registry, Limits::default()).unwrap();
    let o = engine
        .run_code(
            RunRequest::new("await tools.rm({})").timeout_ms(200),
            RunOptions::default(),
        )
        .await
        .unwrap();
    assert_eq!(o.kind, Some(FailureKind::Timeout));
}

#[tokio::test]
async fn a_heap_bomb_ends_as_memory_even_when_caught() {
    let engine = engine_with_heap(16 << 20);
    let o = run(
        &engine,
        "const a: any[] = []; try { while (true) a.push(new Array(100000).fill(1)) } catch (e) { return 'survived' }",
    )
    .await;
    assert_eq!(o.kind, Some(FailureKind::Memory), "{}", o.text());
    assert_eq!(
        o.text(),
        "Error: code run failed (memory): the run exceeded its memory limit of 16 MiB. By then it had made no sub-call; it was running JavaScript when the limit struck."
    );
    let o = run(
        &engine,
        "const a: string[] = []; try { for (let i = 0; ; i++) a.push('x'.repeat(1 << 20) + i) } catch (e) { return 'survived' }",
    )
    .await;
    assert_eq!(o.kind, Some(FailureKind::Memory), "{}", o.text());
    assert_eq!(run(&engine, "return [1, 2].length").await.text(), "2");
}

/// Cyclic garbage (which only QuickJS's cycle collector frees) is collected
/// before it can push a run over its limit, even beside a live set of half
/// the limit (a first collection at or past the limit fails here).
#[tokio::test]
async fn cyclic_garbage_beside_a_large_live_set_fits_the_limit() {
    let engine = engine_with_heap(16 << 20);
    // ~8 MiB kept, then ~200 MiB of two-object cycles dropped as they go.
    let o = run(
        &engine,
        "const keep: string[] = []; for (let i = 0; i < 8; i++) keep.push('k'.repeat(1 << 20) + i)
         let n = 0
         for (let i = 0; i < 1_000_000; i++) { const a: any = { i }; const b = { a }; a.b = b; n += b.a.i & 1 }
         return keep.length + ':' + n",
    )
    .await;
    assert_eq!(o.kind, None, "{}", o.text());
    assert_eq!(o.text(), "8:500000");
}

#[tokio::test]
async fn stack_overflow_is_a_catchable_range_error() {
    let out = text("function f(n: number): number { return f(n + 1) + 1 } try { f(0) } catch (e: any) { return e.name }").await;
    assert_eq!(out, "RangeError");
    let o = run(
        &engine(),
        "function f(n: number): number { return f(n + 1) + 1 }\nf(0)",
    )
    .await;
    assert_eq!(o.kind, Some(FailureKind::Runtime));
    assert!(o.text().contains("RangeError"), "{}", o.text());
}

/// A signal that fires after `delay`.
fn cancel_after(delay: Duration) -> CancellationToken {
    let cancel = CancellationToken::new();
    let c = cancel.clone();
    tokio::spawn(async move {
        tokio::time::sleep(delay).await;
        c.cancel();
    });
    cancel
}

#[tokio::test]
async fn host_cancellation_ends_the_run_as_cancelled() {
    let cancel = cancel_after(Duration::from_millis(100));
    let o = engine()
        .run_code(
            RunRequest::new("await tools.sleep({ ms: 60000 })"),
            RunOptions::default().cancel(cancel),
        )
        .await
        .unwrap();
    assert_eq!(o.kind, Some(FailureKind::Cancelled));
    assert_eq!(
        o.text(),
        "Error: code run failed (cancelled): the run was cancelled"
    );

    let cancel = cancel_after(Duration::from_millis(100));
    let o = engine()
        .run_code(
            RunRequest::new("while (true) {}"),
            RunOptions::default().cancel(cancel),
        )
        .await
        .unwrap();
    assert_eq!(
        o.kind,
        Some(FailureKind::Cancelled),
        "a busy loop is cancelled too"
    );
}

#[tokio::test]
async fn a_forgotten_await_is_visible() {
    let events = Events::default();
    let engine = Engine::new(
        test_registry(),
        Limits {
            max_parallel_sub_calls: 1,
            ..Limits::default()
        },
    )
    .unwrap();
    let o = engine
        .run_code(
            RunRequest::new("tools.sleep({ ms: 5000 }); tools.sleep({ ms: 5000 }); setTimeout(() => {}, 10000); return 'early'"),
            events.options(),
        )
        .await
        .unwrap();
    assert_eq!(
        o.text(),
        "early\n[run_code: the program returned with 2 sub-calls still running (cancelled) and 1 timer pending (dropped); did you forget an `await`?]"
    );
    let codes: Vec<_> = events
        .take()
        .into_iter()
        .filter_map(|e| match e {
            RunEventKind::Settled { error, .. } => error.map(|e| e.code),
            _ => None,
        })
        .collect();
    assert_eq!(codes.len(), 2);
    assert!(
        codes.contains(&ErrorCode::Aborted) && codes.contains(&ErrorCode::AbortedBeforeDispatch),
        "{codes:?}"
    );
}

#[tokio::test]
async fn unhandled_rejections_are_reported() {
    let out = text("Promise.reject(new Error('lost')); tools.fail({}); await tools.sleep({ ms: 5 }); return 'done'").await;
    assert_eq!(
        out,
        "[warn] unhandled rejection: Error: lost\n[warn] unhandled rejection: ToolCallError: it broke\ndone"
    );
}

/// Due order, not registration order; a cleared timer never fires. `done`
/// is registered after `second` with the same delay, so it is due no
/// earlier however slowly the lines run; `first` is due before `second`
/// unless the two lines between them took half a second.
#[tokio::test]
async fn timers_fire_in_order() {
    let out = text(
        "const seen: string[] = []; await new Promise<void>(done => { \
         setTimeout(() => seen.push('late'), 60000); setTimeout(() => seen.push('second'), 500); \
         setTimeout(() => seen.push('first'), 1); \
         const t = setTimeout(() => seen.push('cleared'), 0); clearTimeout(t); \
         setTimeout(done, 500) }); return seen.join(',')",
    )
    .await;
    assert_eq!(
        out,
        "first,second\n[run_code: the program returned with 1 timer pending (dropped); did you forget an `await`?]"
    );
}

/// JavaScript's order: promise jobs already queued run before a due timer,
/// and the jobs a timer callback queues run before the next timer.
#[tokio::test]
async fn microtasks_run_before_timers_as_in_javascript() {
    let out = text(
        "const log: string[] = []; \
         setTimeout(() => log.push('timer'), 0); \
         Promise.resolve().then(() => log.push('microtask')).then(() => log.push('chained')); \
         setTimeout(() => { log.push('t1'); Promise.resolve().then(() => log.push('t1 job')) }, 0); \
         setTimeout(() => { log.push('t2'); queueMicrotask(() => log.push('t2 job')) }, 0); \
         await new Promise(done => setTimeout(done, 5)); return log.join(',')",
    )
    .await;
    assert_eq!(out, "microtask,chained,timer,t1,t1 job,t2,t2 job");
}

#[tokio::test]
async fn output_never_exceeds_the_cap() {
    let engine = Engine::new(
        test_registry(),
        Limits {
            output_cap_bytes: 1000,
            ..Limits::default()
        },
    )
    .unwrap();
    let o = engine
        .run_code(
            RunRequest::new("let i = 0; while (true) console.log('line ' + i++)").timeout_ms(500),
            RunOptions::default(),
        )
        .await
        .unwrap();
    assert_eq!(o.kind, Some(FailureKind::Timeout));
    assert!(o.text().len() <= 1000, "{}", o.text().len());
    assert!(
        o.text().contains("Captured output:\nline 0\n"),
        "{}",
        o.text()
    );
    assert!(o.text().contains("left out"));

    let o = run(&engine, "return 'a'.repeat(600) + 'b'.repeat(600)").await;
    assert!(o.text().len() <= 1000);
    assert!(o.text().starts_with("aaa") && o.text().ends_with("bbb"));
    assert!(o.text().contains("bytes left out"), "{}", o.text());
}

#[tokio::test]
async fn log_events_carry_the_console_methods_level() {
    let events = Events::default();
    let code = "console.log('l'); console.info('i'); console.warn('w'); console.error('e'); console.debug('d')";
    engine()
        .run_code(RunRequest::new(code), events.options())
        .await
        .unwrap();
    let levels: Vec<(LogLevel, String)> = events
        .take()
        .into_iter()
        .filter_map(|e| match e {
            RunEventKind::Log { level, text } => Some((level, text)),
            _ => None,
        })
        .collect();
    let expected = [
        (LogLevel::Log, "l"),
        (LogLevel::Info, "i"),
        (LogLevel::Warn, "w"),
        (LogLevel::Error, "e"),
        (LogLevel::Debug, "d"),
    ]
    .map(|(level, text)| (level, text.to_owned()));
    assert_eq!(levels, expected);
}

#[tokio::test]
async fn log_events_stream_until_the_capture_is_full() {
    let events = Events::default();
    let engine = Engine::new(
        test_registry(),
        Limits {
            output_cap_bytes: 100,
            ..Limits::default()
        },
    )
    .unwrap();
    engine
        .run_code(
            RunRequest::new("for (let i = 0; i < 100; i++) console.warn('line ' + i)"),
            events.options(),
        )
        .await
        .unwrap();
    let logs: Vec<_> = events
        .take()
        .into_iter()
        .filter_map(|e| match e {
            RunEventKind::Log { text, .. } => Some((Some(text), None)),
            RunEventKind::Truncated { truncated } => Some((None, Some(truncated))),
            _ => None,
        })
        .collect();
    let streamed = logs.iter().filter(|(t, _)| t.is_some()).count();
    assert!(streamed > 3 && streamed < 20, "{streamed}");
    assert_eq!(
        logs[0].0.as_deref(),
        Some("line 0"),
        "the prefix is not part of the event text"
    );
    assert_eq!(logs.last().unwrap().1, Some(100 - streamed));
}

#[tokio::test]
async fn images_are_appended_with_their_source_and_limits() {
    let registry = test_registry();
    registry
        .add(Tool::new(
            ToolDefinition::new("shot").read_only(true),
            |_a: Value, _: ToolContext| async {
                Ok::<_, ToolError>(ToolOutput::new(json!("taken")).with_content(
                    ContentBlock::Image {
                        data: "iVBORw0KGgo=".into(),
                        mime_type: "image/png".into(),
                    },
                ))
            },
        ))
        .unwrap();
    let engine = Engine::new(
        registry,
        Limits {
            max_images: 2,
            ..Limits::default()
        },
    )
    .unwrap();
    let o = engine
        .run_code(
            RunRequest::new("for (let i = 0; i < 3; i++) await tools.shot(); return 'ok'")
                .run_id("img"),
            RunOptions::default(),
        )
        .await
        .unwrap();
    assert_eq!(o.content.len(), 1 + 2 * 2 + 1);
    assert_eq!(
        o.content[1],
        ContentBlock::text("Image from `shot` (sub-call img:ptc:1):")
    );
    assert!(
        matches!(&o.content[2], ContentBlock::Image { mime_type, .. } if mime_type == "image/png")
    );
    assert!(
        matches!(&o.content[5], ContentBlock::Text { text } if text.starts_with("[1 image left out"))
    );
}

#[tokio::test]
async fn runs_beyond_max_concurrent_runs_wait_within_their_deadline() {
    let engine = Engine::new(
        test_registry(),
        Limits {
            max_concurrent_runs: 1,
            ..Limits::default()
        },
    )
    .unwrap();
    // The first run holds the only slot until cancelled; it says when it
    // is in (its tool call started).
    let stop = CancellationToken::new();
    let started = Arc::new(AtomicUsize::new(0));
    let first = {
        let (engine, started) = (engine.clone(), Arc::clone(&started));
        let options = RunOptions::default()
            .cancel(stop.clone())
            .events(move |_: RunEvent| {
                started.fetch_add(1, Ordering::SeqCst);
            });
        tokio::spawn(async move {
            let request = RunRequest::new("await tools.sleep({ ms: 60000 }); return 1");
            engine.run_code(request, options).await
        })
    };
    crate::common::eventually("the first run to hold the slot", || {
        started.load(Ordering::SeqCst) > 0
    })
    .await;
    let waiting = engine
        .run_code(
            RunRequest::new("return 2").timeout_ms(100),
            RunOptions::default(),
        )
        .await
        .unwrap();
    assert_eq!(
        waiting.kind,
        Some(FailureKind::Timeout),
        "it waited for admission and timed out"
    );
    stop.cancel();
    let first = first.await.unwrap().unwrap();
    assert_eq!(first.kind, Some(FailureKind::Cancelled));
    assert_eq!(run(&engine, "return 3").await.text(), "3");
}

#[tokio::test]
async fn run_code_arguments_are_checked() {
    let engine = engine();
    for bad in [0, -5, 600_001] {
        let err = engine
            .run_code(
                RunRequest::new("return 1").timeout_ms(bad),
                RunOptions::default(),
            )
            .await
            .unwrap_err();
        assert!(
            err.to_string()
                .contains("timeoutMs must be an integer from 1 to 600000"),
            "{err}"
        );
    }
}

#[test]
fn a_stack_limit_that_does_not_fit_is_a_config_error() {
    let limits = Limits {
        stack_limit_bytes: 15 << 20,
        ..Limits::default()
    };
    assert!(matches!(
        Engine::new(Registry::new(), limits),
        Err(ptc::ConfigError::StackLimit { .. })
    ));
}

/// 200 runs wait in a tool at once (it lets none go until all are in), and
/// the process counts its sandbox threads meanwhile: in a process of its
/// own, so other tests' engines do not blur the count.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "run by runs_awaiting_a_tool_hold_no_thread in a process of its own"]
async fn runs_awaiting_a_tool_child() {
    let entered = Arc::new(AtomicUsize::new(0));
    let release = Arc::new(tokio::sync::Notify::new());
    let registry = Registry::new();
    let (counter, gate) = (Arc::clone(&entered), Arc::clone(&release));
    registry
        .add(Tool::new(
            ToolDefinition::new("gate").read_only(true),
            move |_: Value, _: ToolContext| {
                let (counter, gate) = (Arc::clone(&counter), Arc::clone(&gate));
                async move {
                    let released = gate.notified();
                    counter.fetch_add(1, Ordering::SeqCst);
                    released.await;
                    Ok::<_, ToolError>(json!("through"))
                }
            },
        ))
        .unwrap();
    let engine = Engine::new(registry, Limits::default()).unwrap();
    let runs: Vec<_> = (0..200)
        .map(|i| {
            let engine = engine.clone();
            tokio::spawn(async move {
                let code = format!("return (await tools.gate({{}})) + ' {i}'");
                engine
                    .run_code(RunRequest::new(code), RunOptions::default())
                    .await
            })
        })
        .collect();
    // Liveness only: all 200 are normally in within a second.
    crate::common::eventually("every run to reach the tool", || {
        entered.load(Ordering::SeqCst) == 200
    })
    .await;
    let sandbox_threads = std::fs::read_dir("/proc/self/task")
        .unwrap()
        .filter_map(|task| std::fs::read_to_string(task.ok()?.path().join("comm")).ok())
        .filter(|name| name.trim() == "ptc-sandbox")
        .count();
    println!("SANDBOX-THREADS {sandbox_threads}");
    release.notify_waiters();
    for (i, run) in runs.into_iter().enumerate() {
        assert_eq!(run.await.unwrap().unwrap().text(), format!("through {i}"));
    }
}

#[test]
#[cfg(target_os = "linux")]
fn runs_awaiting_a_tool_hold_no_thread() {
    let threads: usize =
        crate::common::in_own_process("engine::runs_awaiting_a_tool_child", "SANDBOX-THREADS")
            .trim()
            .parse()
            .expect("the child's count");
    // The pool's ceiling (`max_threads` in src/engine/typescript/threads.rs: four per
    // core, at least 16, at most 64) is below 200, so 200 runs inside the
    // tool at once prove that a waiting run holds no thread; the count
    // shows the pool kept to its ceiling meanwhile. A run that held its
    // thread would leave all but the ceiling's worth outside the tool.
    let ceiling = sandbox_ceiling();
    assert!(ceiling < 200);
    assert!(
        threads <= ceiling,
        "{threads} sandbox threads for 200 waiting runs (ceiling {ceiling})"
    );
}

/// The most sandbox threads a process's pool keeps on this machine: four
/// per core, at least 16, at most 64 (src/engine/typescript/threads.rs, `max_threads`).
pub(crate) fn sandbox_ceiling() -> usize {
    let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
    (4 * cores).clamp(16, 64)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cpu_bound_runs_do_not_hold_up_another_runs_tool_call() {
    let engine = engine();
    let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
    // Each busy run says when it starts spinning; they spin until cancelled.
    let spinning = Arc::new(AtomicUsize::new(0));
    let stop = CancellationToken::new();
    let busy: Vec<_> = (0..cores)
        .map(|_| {
            let (engine, spinning) = (engine.clone(), Arc::clone(&spinning));
            let options = RunOptions::default()
                .cancel(stop.clone())
                .events(move |_: RunEvent| {
                    spinning.fetch_add(1, Ordering::SeqCst);
                });
            tokio::spawn(async move {
                let request = RunRequest::new("console.log('spinning'); while (true) {}");
                engine.run_code(request, options).await
            })
        })
        .collect();
    // Liveness only.
    crate::common::eventually("every busy run to spin", || {
        spinning.load(Ordering::SeqCst) == cores
    })
    .await;
    let o = run(&engine, "return (await tools.echo({ v: 1 })).v").await;
    assert_eq!(o.text(), "1");
    // The busy runs spin until cancelled: this one did not wait for them.
    assert!(
        busy.iter().all(|b| !b.is_finished()),
        "the short run finished only after the busy ones"
    );
    stop.cancel();
    for b in busy {
        assert_eq!(b.await.unwrap().unwrap().kind, Some(FailureKind::Cancelled));
    }
}

#[tokio::test]
async fn dropping_a_run_midway_cancels_its_sub_calls() {
    /// Counts when the handler's future is dropped (aborted or finished).
    struct OnDrop(Arc<AtomicUsize>);
    impl Drop for OnDrop {
        fn drop(&mut self) {
            self.0.fetch_add(1, Ordering::SeqCst);
        }
    }
    let registry = test_registry();
    let stopped = Arc::new(AtomicUsize::new(0));
    let s = Arc::clone(&stopped);
    registry
        .add(Tool::new(
            ToolDefinition::new("wait").read_only(true),
            move |_a: Value, _cx: ToolContext| {
                let guard = OnDrop(Arc::clone(&s));
                async move {
                    let _guard = guard;
                    std::future::pending::<()>().await;
                    Ok::<_, ToolError>(json!(null))
                }
            },
        ))
        .unwrap();
    let engine = Engine::new(registry, Limits::default()).unwrap();
    let run = engine.run_code(
        RunRequest::new("await tools.wait({})"),
        RunOptions::default(),
    );
    assert!(
        tokio::time::timeout(Duration::from_millis(200), run)
            .await
            .is_err(),
        "still running"
    );
    for _ in 0..100 {
        if stopped.load(Ordering::SeqCst) == 1 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert_eq!(
        stopped.load(Ordering::SeqCst),
        1,
        "the abandoned sub-call was stopped"
    );
}

#[tokio::test]
async fn queued_calls_start_when_a_slot_frees_even_while_the_program_is_busy() {
    // One timeline: the tool notes each start, the event sink each console line.
    let timeline = Arc::new(Mutex::new(Vec::<String>::new()));
    let r = Registry::new();
    let starts = Arc::clone(&timeline);
    r.add(Tool::new(
        ToolDefinition::new("nap").read_only(true),
        move |_a: Value, _: ToolContext| {
            starts.lock().unwrap().push("nap".into());
            async move {
                tokio::time::sleep(Duration::from_millis(5)).await;
                Ok::<_, ToolError>(json!(1))
            }
        },
    ))
    .unwrap();
    let engine = Engine::new(
        r,
        Limits {
            max_parallel_sub_calls: 1,
            ..Limits::default()
        },
    )
    .unwrap();
    let lines = Arc::clone(&timeline);
    let options = RunOptions::default().events(move |e: RunEvent| {
        if let RunEventKind::Log { text: t, .. } = e.kind {
            lines.lock().unwrap().push(t);
        }
    });
    // Three 5 ms calls, one at a time, while the program spins for 400 ms
    // without yielding: the second and third start as slots free, before
    // the program's next line.
    let o = engine
        .run_code(
            RunRequest::new(
                "const all = Promise.all([tools.nap({}), tools.nap({}), tools.nap({})]);\n\
                 const t0 = Date.now(); while (Date.now() - t0 < 400) {}\n\
                 console.log('spun');\n\
                 return (await all).length",
            ),
            options,
        )
        .await
        .unwrap();
    assert_eq!(o.text(), "spun\n3");
    assert_eq!(*timeline.lock().unwrap(), ["nap", "nap", "nap", "spun"]);
}

#[tokio::test]
async fn a_call_that_settles_while_the_run_is_busy_is_not_lost() {
    let r = test_registry();
    // Its first poll blocks the run (synchronous work while the run's state
    // is held), so `sleep`'s task finds the state busy when it settles.
    r.add(Tool::new(
        ToolDefinition::new("hog").read_only(true),
        |_a: Value, _: ToolContext| {
            std::thread::sleep(Duration::from_millis(60));
            async move { Ok::<_, ToolError>(json!(1)) }
        },
    ))
    .unwrap();
    let engine = Engine::new(r, Limits::default()).unwrap();
    let events = Events::default();
    let o = engine
        .run_code(
            RunRequest::new(
                "const q = tools.sleep({ ms: 5 }); const h = tools.hog({}); return (await q) + (await h)",
            ),
            events.options(),
        )
        .await
        .unwrap();
    assert_eq!(o.text(), "6");
    let settled = events
        .take()
        .into_iter()
        .filter(|k| matches!(k, RunEventKind::Settled { ok: true, .. }))
        .count();
    assert_eq!(settled, 2);
}

/// contracts §6: `tools.then` is `undefined`, so `await tools` does not
/// call a tool (and `then` cannot be registered).
#[tokio::test]
async fn tools_then_is_undefined() {
    let registry = crate::common::test_registry();
    assert!(registry.add(crate::common::echo("then")).is_err());
    let engine = Engine::new(registry, Limits::default()).unwrap();
    let outcome = engine
        .run_code(
            RunRequest::new(
                "const t = await tools\nreturn `${typeof tools.then} ${t === tools} ${typeof tools.echo}`",
            ),
            RunOptions::default(),
        )
        .await
        .unwrap();
    assert_eq!(outcome.text(), "undefined true function");
}

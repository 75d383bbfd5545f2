//! Lean contexts (`src/engine/intrinsics.rs`): a program the scan finds
//! cannot tell runs without the intrinsics only a name reaches. Each probe
//! here tries to tell anyway, without those names; its outcome must be the
//! same as in a full context (forced by naming `globalThis` after the
//! program's end, where it never runs).

use crate::engine::{engine, run};

/// Programs that look for a difference without naming what differs.
const PROBES: &[&str] = &[
    "return 1",
    "await tools.echo({ a: 1 }); return 2",
    // The console formatter, on values of every kind a lean program can make.
    "console.log(1, 'a', null, undefined, true, Symbol('s'), [1, [2, [3, [4]]]], { a: { b: { c: {} } } });\n\
     console.log(new Map([[1, { a: 1 }]]), new Set([1]), new WeakMap(), new WeakSet(), Promise.resolve(1));\n\
     console.log(function f() {}, class K {}, async () => {}, function* g() {}, new Proxy({}, {}));\n\
     console.log(new Error('e'), new TypeError('t'), /re/g, Object.create(null), [,1], -0, NaN, 1e21)",
    // A class renamed after an omitted constructor prints alike.
    "class A { toString() { return 'a' } }\n\
     Object.defineProperty(A, 'name', { value: 'Da' + 'te' });\n\
     console.log('%s|%o|%O', new A(), new A(), new A()); console.log(new A(), [new A()])",
    "class U extends Array {}\n\
     Object.defineProperty(U, 'name', { value: 'Uint8' + 'Array' });\n\
     const u = U.of(1, 2); console.log(u, { u })",
    "const o = { get x() { return 1 }, set y(v) {} }; console.log(o)",
    // What the standard library says about itself.
    "return [typeof Map, typeof Set, typeof WeakMap, typeof Promise, typeof Proxy, typeof JSON,\n\
     typeof RegExp, typeof Symbol, typeof Iterator, typeof Math, typeof Atomicz, typeof queueMicrotask]",
    "return Object.getOwnPropertyNames(Object.getPrototypeOf(async () => {})).concat(\n\
     Object.getOwnPropertyNames(Object), Object.getOwnPropertyNames(Array.prototype),\n\
     Object.getOwnPropertyNames(Error), Object.getOwnPropertyNames(Symbol))",
    "return [Object.prototype.toString.call(null), String(Object.prototype.toString.call(new Map())),\n\
     Object.prototype.toString.call(Promise.resolve()), Object.prototype.toString.call(Math)]",
    // Errors, stacks and positions.
    "try { null.x } catch (e) { return [e.name, e.message, e.stack] }",
    "function deep(n) { return n ? deep(n - 1) : new Error('here').stack } return deep(3)",
    "const e = new Error('x'); return Object.getOwnPropertyNames(e).join()",
    "undefinedName + 1",
    "throw new RangeError('thrown')",
    // Strings, numbers, JSON.
    "return ['abc'.localeCompare('abd'), 'a-b'.split('-'), 'xax'.replace('a', 'b'),\n\
     'abc'.match('b').index, 'x'.padStart(3, '.'), (1234.5678).toFixed(2), (255).toString(16),\n\
     (0.1 + 0.2).toPrecision(3), parseInt('08'), Number('1e3'), encodeURIComponent('é ?')]",
    "return JSON.parse('{\"a\":[1,2,{\"b\":null}]}', (k, v) => typeof v === 'number' ? v * 2 : v)",
    "return JSON.stringify({ m: new Map(), s: new Set([1]), u: undefined, f() {}, n: -0 })",
    // Tool arguments that must be lossless.
    "const out = [];\n\
     for (const v of [new Map(), new Set(), NaN, () => 1, Symbol('x'), { a: [1, undefined] }]) {\n\
       try { await tools.echo({ v }) } catch (e) { out.push(e.code + ': ' + e.message) }\n\
     }\n\
     return out",
    // Iterators, generators, async.
    "function* g() { yield 1; yield 2 } return [...g()].concat(Array.from({ length: 2 }, (_, i) => i))",
    "return [1, 2, 3].values().map(x => x * 2).filter(x => x > 2).toArray()",
    "const r = await Promise.allSettled([Promise.reject(new Error('no')), tools.echo({ b: 1 })]);\n\
     return r.map(x => x.status)",
    "let n = 0; queueMicrotask(() => n++); await null; setTimeout(() => n++, 1);\n\
     await new Promise(r => setTimeout(r, 5)); return n",
];

#[tokio::test]
async fn probes_see_the_same_in_lean_and_full_contexts() {
    let engine = engine();
    for code in PROBES {
        assert_eq!(
            ptc::__private::lean_intrinsics(code),
            Some(true),
            "this probe should get a lean context: {code}"
        );
        let full_code = format!("{code}\n;void globalThis");
        assert_eq!(ptc::__private::lean_intrinsics(&full_code), Some(false));
        let lean = run(&engine, code).await;
        let full = run(&engine, &full_code).await;
        assert_eq!(
            (lean.is_error, lean.kind, lean.text()),
            (full.is_error, full.kind, full.text()),
            "{code}"
        );
    }
}

//! Lean contexts (`src/engine/typescript/intrinsics.rs`): a program the scan finds
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
     console.log(function f() {}, class K {}, async () => {}, function* g() {});\n\
     console.log(new Error('e'), new TypeError('t'), /re/g, [,1], -0, NaN, 1e21)",
    // A class renamed after an omitted constructor prints alike.
    "class A { static name = 'Da' + 'te'; toString() { return 'a' } }\n\
     console.log('%s|%o|%O', new A(), new A(), new A()); console.log(new A(), [new A()])",
    "class U extends Array { static name = 'Uint8' + 'Array' }\n\
     const u = U.of(1, 2); console.log(u, { u })",
    "const o = { get x() { return 1 }, set y(v) {} }; console.log(o)",
    // What the standard library says about itself.
    "return [typeof Map, typeof Set, typeof WeakMap, typeof Promise, typeof JSON,\n\
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
    // Red-team probes that held: TypeScript erasures, lexing edges, engine errors.
    "const x = [1, 2]!; return x",
    "declare const d: number; abstract class A { abstract m(): void } return typeof A",
    "return 'a\u{2028}b'.length + `x${'}'}`.length",
    "return /[\\]]\\//.source + /x/g.flags",
    "const v = 1.5.toFixed(1); return v",
    "a: for (const i of [1]) { break a } return 1",
    "return (a => a)`t${1}`",
    "return typeof undefinedGlobal",
    "label: { [1] } return 2",
    "try { new (class extends Array {})(-1) } catch (e) { return e.message }",
    "try { JSON.stringify({ get a() { throw new Error('g') } }) } catch (e) { return e.stack }",
    "const e = new Error('m', { cause: 1 }); Error.captureStackTrace(e); return [e.cause, typeof e.stack]",
    "return Error.stackTraceLimit",
    "return Object.prototype.toString.call(Symbol.iterator) + Symbol.keyFor(Symbol.for('x'))",
    "console.log('%d %i %f %j %o %O %c %%', 1.5, 2.5, '3', { a: 1 }, [1], { b: 2 }, 'css')",
    "const a = [1]; a.push(a); console.log(a, { a })",
    "await tools.echo({ v: [1, 'x', { y: null }] }); return tools.echo({ d: { a: [true] } })",
    // A stack-size hook that counts conversions sees none of the engine's.
    "let n = 0; Error.stackTraceLimit = { valueOf() { n++; return 10 } };\n\
     console.log({}, Object.groupBy([1], x => x)); class K {}\n\
     try { await tools.echo({ k: new K(), f: NaN }) } catch {} return n",
    // The console formatter calls the builtins taken before the program ran.
    "let leaked = 0; const sizes = [];\n\
     function A(v, i, m) { if (m !== undefined) { leaked++; sizes.push(m.size) } }\n\
     class B extends A { static x = 1 }\n\
     const MP = Map.prototype; const get = MP.get;\n\
     MP.length = 1; MP[0] = 0; MP.get = Array.prototype.forEach;\n\
     console.log(B, new B(), { b: B }, [B], new Map([[1, 2]])); console.log('%o %O', B, B);\n\
     MP.get = get; return [leaked, sizes]",
    // Tags and names of omitted constructors on ordinary objects.
    "const o = Object.fromEntries([[Symbol.toStringTag, 'Da' + 'te']]); console.log(o, [o], String(o))",
    "const o = Object.fromEntries([[Symbol.toStringTag, 'Big' + 'Int']]); console.log(o)",
    // Members of a BigInt-free number, and of `undefined` results.
    "1 .x = 1; return [typeof 1 .x, 1 .y?.z]",
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

/// Programs six red teams found telling a lean context from a full one (each
/// was classified lean then), by root cause. Each must now be classified
/// full, or see the same.
const KNOWN_ATTACKS: &[&str] = &[
    // 1. `skip_number` runs on through `.` and letters, so names after a
    //    number literal are never checked.
    "return 0..constructor.constructor('return typeof Da' + 'te')()",
    "return .5.constructor.constructor('return Object.getOwnPropertyNames(globalThis).length')()",
    // 2. ... and a BigInt literal is only seen when the run ends in `n`.
    "return 1n.toString()",
    "return typeof 1n.toString",
    "Object.prototype.x = 7; return 1n.x",
    "console.log(1n.valueOf())",
    // 3. `number_index` accepts digits, letters and dots: a member read of a
    //    number is a computed key.
    "Number.prototype.k = 'con' + 'structor';\n\
     const F = (function () {})[0..k]; return F('return typeof Da' + 'te')()",
    // 4. `super` carries the receiver without `this`: a sloppy method called
    //    bare has the global object as its receiver.
    "const o = { m() { return super.valueOf() } }; const m = o.m;\n\
     return Object.getOwnPropertyNames(m()).length",
    "return [0].map({ m() { return Object.getOwnPropertyNames(super.valueOf()).length } }.m)",
    // 5. A bare name the program never declares is looked up on the global
    //    object; an inherited accessor whose getter is a builtin returning its
    //    receiver (Object.prototype.valueOf) hands over the global object.
    "Object.defineProperty(Object.prototype, 'zz', { get: Object.prototype.valueOf, configurable: true });\n\
     const g = zz; return Object.getOwnPropertyNames(g).includes('Da' + 'te')",
    "Object.prototype.__defineGetter__('zz', Object.prototype.valueOf);\n\
     return Object.getOwnPropertyNames(zz).length",
    "Object.defineProperties(Object.prototype, { zz: { get: Object.prototype.valueOf } });\n\
     return typeof zz === 'object' && Object.getOwnPropertyNames(zz).length",
    //    The accessor need not be on Object.prototype: a bare `__proto__ =`
    //    (sloppy) gives the global object a new prototype.
    "__proto__ = Object.create(Object.prototype, { zz: { get: Object.prototype.valueOf } });\n\
     return Object.getOwnPropertyNames(zz).length",
    // 6. Reads by a computed name without `[`: make a property enumerable, or
    //    report it so through a Proxy, then Object.values.
    "const P = Object.getPrototypeOf(function () {});\n\
     Object.defineProperty(P, 'con' + 'structor', { enumerable: true });\n\
     const F = Object.values(P).find(v => typeof v === 'function' && v.name === 'Func' + 'tion');\n\
     return F('return typeof Da' + 'te')()",
    "const P = Object.getPrototypeOf(async function () {});\n\
     const h = Object.fromEntries([['getOwnProperty' + 'Descriptor', (t, k) => ({ value: 0, enumerable: true, configurable: true, writable: true })]]);\n\
     const A = Object.values(new Proxy(P, h)).find(v => typeof v === 'function');\n\
     return await A('return typeof Da' + 'te')()",
    "const P = Object.getPrototypeOf(function* () {});\n\
     const trap = (t, k) => ({ value: 0, enumerable: true, configurable: true, writable: true });\n\
     const h = new Proxy({}, { get: (t, k) => k.startsWith('getOwnProperty') ? trap : undefined });\n\
     const G = Object.values(new Proxy(P, h)).find(v => typeof v === 'function');\n\
     return G('yield typeof Da' + 'te')().next().value",
    // 7. Builtins read `constructor` themselves (species): RegExp's split
    //    constructs `rx.constructor[Symbol.species]` with (rx, flags) and
    //    calls its `exec`. With Function.prototype's chain spliced onto
    //    RegExp (whose own species getter returns its receiver), that is the
    //    Function constructor compiling `flags`, run by `exec = call`.
    "const FP = Object.getPrototypeOf(function () {});\n\
     FP.flags = 'throw typeof Da' + 'te //y'; FP.exec = FP.call;\n\
     Object.setPrototypeOf(RegExp, RegExp.prototype); Object.setPrototypeOf(FP, RegExp);\n\
     const rx = function () {}; rx.toString = () => '';\n\
     try { 'abc'.split(rx) } catch (e) { return e }\n\
     return 'no'",
    "const FP = Object.getPrototypeOf(function () {});\n\
     FP.flags = 'throw typeof Da' + 'te //y'; FP.exec = FP.call;\n\
     RegExp.__proto__ = RegExp.prototype; FP.__proto__ = RegExp;\n\
     const rx = function () {}; rx.toString = () => '';\n\
     try { 'abc'.split(rx) } catch (e) { return e }\n\
     return 'no'",
    "const FP = Object.getPrototypeOf(function () {});\n\
     Object.setPrototypeOf(FP, Object.create(RegExp.prototype, Object.fromEntries([[Symbol.species, { get: Object.prototype.valueOf }]])));\n\
     FP.exec = FP.call;\n\
     const rx = Object.create(FP, { flags: { value: 'throw typeof Da' + 'te //y' }, toString: { value: () => '' } });\n\
     try { 'abc'.split(rx) } catch (e) { return e }\n\
     return 'no'",
    // 8. The console's brand checks throw where a full context's do not (a
    //    missing check is `undefined(value)`), and Error's stack hook, set by
    //    a computed write, sees every throw.
    "let n = 0;\n\
     Object.assign(Error, Object.fromEntries([['prepare' + 'StackTrace', () => { n++; return '' }]]));\n\
     console.log(Object.create(null)); return n",
    "const seen = [];\n\
     Object.assign(Error, Object.fromEntries([['prepare' + 'StackTrace', (e) => { seen.push(e.message); return '' }]]));\n\
     console.log(Object.create(null)); return seen",
    "let n = 0;\n\
     Object.assign(Error, Object.fromEntries([['prepare' + 'StackTrace', () => { n++; return '' }]]));\n\
     console.log(Object.groupBy([], x => x)); return n",
    // 9. The prelude's tool-argument check asks `instanceof ArrayBuffer` only
    //    in a full context; a Proxy's getPrototypeOf trap counts the asks.
    "let n = 0;\n\
     const p = new Proxy({}, { getPrototypeOf(t) { n++; return Object.prototype } });\n\
     try { await tools.echo({ p, f: NaN }) } catch (e) { return [n, e.message] }\n\
     return n",
    // A second red team's findings.
    // A. The console formatter (inspect.js) is compiled lazily, at the first
    //    console call, AFTER the program ran: its "captured at load time"
    //    builtins are whatever the program left there, and its load path
    //    differs by context (hasDate/hasBuffers/hasBigInt branches, and
    //    `Object.getOwnPropertyNames(globalThis)` for builtInObjects).
    //    A1: a patched getOwnPropertyNames is handed the global object.
    "const gopn = Object.getOwnPropertyNames; let G;\n\
     Object.getOwnPropertyNames = (o) => { if (G === undefined) G = o; return gopn(o) };\n\
     console.log(1);\n\
     Object.getOwnPropertyNames = gopn;\n\
     return [gopn(G).length, gopn(G).includes('Da' + 'te')]",
    //    A2: ... and with it, `for in` shows the enumerable `performance`.
    "let G;\n\
     Object.assign(Object, { getOwnPropertyNames: (o) => { G = G || o; return [] } });\n\
     console.log(0);\n\
     const seen = []; for (const k in G) seen.push(k); return seen",
    //    A3: a patched RegExp.prototype.exec sees every global name.
    "const names = []; const RP = RegExp.prototype; const ex = RP.exec;\n\
     RP.exec = function (s) { names.push(s); return null };\n\
     console.log(1); RP.exec = ex; return names.length",
    //    A4: a patched Function.prototype.bind counts the `uncurry` calls.
    "const FP = Object.getPrototypeOf(function () {}); const bind = FP.bind; let n = 0;\n\
     FP.bind = (...a) => (f) => { n++; return () => 0 };\n\
     try { console.log(1) } catch (e) { }\n\
     FP.bind = bind; return n",
    //    A5: a patched getOwnPropertyDescriptor (written by a computed name).
    "let n = 0;\n\
     Object.assign(Object, Object.fromEntries([['getOwnProperty' + 'Descriptor', (o, k) => { n++; return { get: () => 0 } }]]));\n\
     console.log(1); return n",
    // B. Error.stackTraceLimit is stored as given and converted with
    //    ToNumber (valueOf) at every error QuickJS creates, even errors thrown
    //    and caught inside the prelude and the console, which throw more in
    //    a full context (brand checks of Date, buffers, BigInt).
    //    B1: the console's try-every-kind loop on a null-prototype object.
    "let n = 0;\n\
     Error.stackTraceLimit = { valueOf() { n++; return 10 } };\n\
     console.log(Object.groupBy([1], x => 'k')); return n",
    //    B2: the prelude's lossless check (isBuffer throws in a full context).
    "let n = 0; class K {}\n\
     Error.stackTraceLimit = { valueOf() { n++; return 10 } };\n\
     try { await tools.echo({ k: new K() }) } catch (e) { return [n, e.message] }\n\
     return n",
    // C. `void` and `const` are operator/reserved words to the scan, so a `/`
    //    after them starts a regular expression; but they also end types the
    //    stripper erases (`x as void`, `x satisfies void`, `x as const`), after
    //    which QuickJS sees a division. Everything up to the next `/` on the
    //    line is hidden from the scan: any name, and any bracket.
    "return 1 as void /(typeof Date === 'function' ? 1 : 2)/ 1",
    "return 1 satisfies void /(typeof Date === 'function' ? 1 : 2)/ 1",
    "return 1 as const /(typeof Date === 'function' ? 1 : 2)/ 1",
    "return [1 as void /(Object.getOwnPropertyNames(globalThis).length)/ 1]",
    //    C2: ... including a `})` that closes the wrapper function: the rest
    //    runs at the script's top level (the wrapper check is bypassed too).
    "0 as void /0}); var leaked = Object.getOwnPropertyNames(globalThis).length; (async function () {0/ 1\n\
     return leaked",
    // A third red team's findings.
    // 1. The `__proto__` setter is reachable by a computed write: `Object.assign`
    // does [[Set]] with the keys `Object.fromEntries` built from strings, so
    // `'__pro' + 'to__'` sets any object's prototype without the telltale
    // words `__proto__`/`setPrototypeOf`/`create`. With it, the RegExp
    // species splice (known attack 7) hands over the Function constructor.
    "const FP = Object.getPrototypeOf(function () {});\n\
     const setProto = (o, p) => Object.assign(o, Object.fromEntries([['__pro' + 'to__', p]]));\n\
     FP.flags = 'throw typeof Da' + 'te //y'; FP.exec = FP.call;\n\
     setProto(RegExp, RegExp.prototype); setProto(FP, RegExp);\n\
     const rx = function () {}; rx.toString = () => '';\n\
     try { 'abc'.split(rx) } catch (e) { return e }\n\
     return 'no'",
    "const FP = Object.getPrototypeOf(function () {});\n\
     const setProto = (o, p) => Object.assign(o, Object.fromEntries([['__pro' + 'to__', p]]));\n\
     FP.flags = 'throw Object.getOwnPropertyNames(global' + 'This).length //y'; FP.exec = FP.call;\n\
     setProto(RegExp, RegExp.prototype); setProto(FP, RegExp);\n\
     const rx = function () {}; rx.toString = () => '';\n\
     try { 'abc'.split(rx) } catch (e) { return e }\n\
     return 'no'",
    // 2. The console formatter (inspect.js) reads most of its builtins from the
    // live globals when it is loaded, lazily, at the first console call, after
    // the program ran (`MapPrototypeGet = uncurry(Map.prototype.get)`), and
    // calls them at format time with its own objects as receivers. Replace
    // `Map.prototype.get` with `Array.prototype.forEach` (and give maps a
    // `length` and an element) and `getKind`'s `MapPrototypeGet(protoKinds,
    // proto)` calls the value's callable prototype with `protoKinds` as the
    // third argument: a map with 22 entries (Date.prototype, the typed array
    // and buffer prototypes, BigInt.prototype) in a full context, 16 in a
    // lean one.
    "let leaked;\n\
     function A(v, i, m) { if (m !== undefined && leaked === undefined) leaked = m }\n\
     class B extends A {}\n\
     Object.assign(B, Object.fromEntries([[Symbol.iterator, 1]]));\n\
     const MP = Map.prototype; const get = MP.get;\n\
     MP.length = 1; MP[0] = 0; MP.get = Array.prototype.forEach;\n\
     console.log(B);\n\
     MP.get = get;\n\
     return leaked && [leaked.size, [...leaked.values()].join()]",
    // 3. TypeScript's non-null `!` after a `}` (object literal, class or
    // function expression): the scan takes the `!` for a prefix operator
    // (postfix only after `Prev::Operand`), so what follows starts an
    // expression. A `/` after it starts a "regular expression" that hides
    // everything up to the next `/` (names, brackets, even a `})` closing the
    // wrapper: the unmatched-close check is bypassed too), and a `[` after it
    // is an "array literal", while swc erases the `!` and QuickJS sees a
    // division, or a computed member read.
    "const o = { valueOf() { return 6 } }! /(typeof Date === 'function' ? 2 : 3)/ 1; return o",
    "class K { static valueOf() { return 6 } }\n\
     const k = class extends K {}! /(typeof Date === 'function' ? 2 : 3)/ 1; return k",
    "const F = class {}!['con' + 'structor']; return F('return typeof Da' + 'te')()",
    "const F = function () {}!['con' + 'structor'];\n\
     return F('return Object.getOwnPropertyNames(global' + 'This).length')()",
    "const o = {}! /0}); var leaked = Object.getOwnPropertyNames(globalThis).length; (async function () {0/ 1\n\
     return leaked",
    // 4. `as` and `satisfies` are names too. The scan sets `prev_as` after any
    // `as`/`satisfies` not after a dot, so a `void` after the NAME `as` (an
    // expression statement ended by a line break) is taken for the end of an
    // erased type (`x as void`): a `/` after it "divides", and the regular
    // expression's body is scanned as code, where a quote or backtick opens
    // a "string" that hides real code after the regular expression.
    "let as = 1\nas\nvoid /'/; return typeof Date //'",
    "var satisfies\nsatisfies\nvoid /`/; return Object.getOwnPropertyNames(globalThis).length //`",
    // A fourth red team's findings.
    // 1. `skip_number` swallows a `+`/`-` after any `e`/`E` in a decimal
    //    run, even when the `e` ends a member name (`1..e`, `1.5.e`): QuickJS
    //    sees `1..e - /'/` (a regular expression), the scan a division and a
    //    string that hides the rest of the line.
    "1..e-/'/; return typeof Date //'",
    "const n = 1.5.e+/'/.source; return [n, Object.getOwnPropertyNames(globalThis).length] //'",
    // 2. QuickJS ends a `//` comment at U+2028/U+2029 but swallows it without
    //    noting a line break (no ASI), where swc and the scan see one: after
    //    `a //…<LS>`, `++` is postfix to QuickJS (then `/` divides) but prefix
    //    to the scan (then `/` starts a regular expression hiding code).
    "let a = 1\nreturn a //c\u{2028}++ /(typeof Date === 'function' ? 1 : 2)/[1]",
    "let a = 1\nreturn a //c\u{2028}-- /(Object.getOwnPropertyNames(globalThis).length)/[1]",
    // 3. The console formatter's load reads `Symbol.toStringTag` from the
    //    live (writable) `Symbol` global, and passes it as a key to
    //    getOwnPropertyDescriptor only in a full context (the typed-array
    //    branch): the program's key object is converted (and the load throws)
    //    only there.
    "const S = Symbol; let n = 0;\n\
     Symbol = { iterator: S.iterator, toPrimitive: S.toPrimitive, for: S.for, prototype: S.prototype,\n\
       toStringTag: { toString() { n++; return 'x' } } };\n\
     let out;\n\
     try { console.log('hi'); out = 'ok' } catch (e) { out = 'threw ' + e.message }\n\
     Symbol = S; return [n, out]",
    // 4. `next_significant` (the look-ahead for a `:` after a quoted key)
    //    runs a `//` comment on to `\n`/`\r` only, past a U+2028 that ends
    //    it for swc and QuickJS: the key is never checked, so destructuring
    //    reads `constructor` (or an object literal writes `__proto__`).
    "const { 'constructor' //x\u{2028}: F } = function () {};\n\
     return F('return [typeof Date, Object.getOwnPropertyNames(globalThis).length]')()",
    // A fifth red team's findings.
    // 1. TypeScript's non-null `!` followed, in the same operator run, by a
    //    postfix `++`/`--` (`a!++`, `a!!--`): `operator_run` takes a run for
    //    postfix only when it is exactly `++`/`--` or all `!`, so `!++` is
    //    "prefix" and a `/` after it starts a regular expression. swc erases
    //    the `!` and QuickJS sees `a ++ / … / 1`, a division: everything up
    //    to the next `/` on the line is hidden from the scan (names, brackets,
    //    and a `})` closing the wrapper).
    "let a = 1; return a!++ /(typeof Date === 'function' ? 1 : 2)/ 1",
    "let a = 1; return a!-- /(typeof Date === 'function' ? 1 : 2)/ 1",
    "const o = { n: 1 }; return o.n!!-- /(typeof Date === 'function' ? 1 : 2)/ 1",
    "let a = [1]; return [(a[0])!++ /(Object.getOwnPropertyNames(globalThis).length)/ 1]",
    "let a = 1; a!++ /0}); var leaked = Object.getOwnPropertyNames(globalThis).length; (async function () {0/ 1\n\
     return leaked",
    // 2. A computed class field after `;` (`class C extends B { x; [k] = v }`)
    //    is not flagged: `;` sets `array_start`, as at a statement start, but
    //    in a class body a `[` there is a computed element name. With a base
    //    constructor that returns its argument (`function B(o) { return o }`,
    //    no `constructor` word needed), `new C(target)` defines `target[k] = v`
    //    (CreateDataProperty) on ANY existing object, by a computed name.
    //    Used on Object.prototype with `k = 'Da' + 'te'`: the console
    //    formatter, loaded lazily at the first console call, asks
    //    `typeof Date`, `Date.prototype.getTime`, … by free global names; a
    //    lean global object lacks them, so the lookup falls through to
    //    Object.prototype and reaches the program's fake (a getter sees it),
    //    while a full context finds the real `Date`.
    "const seen = [];\n\
     function B(o) { return o }\n\
     function FakeDate() {}\n\
     class P { get getTime() { seen.push('getTime'); return function () {} } }\n\
     FakeDate.prototype = new P();\n\
     class C extends B { x; ['Da' + 'te'] = FakeDate }\n\
     new C(Object.prototype);\n\
     console.log(1);\n\
     return seen",
    "const seen = [];\n\
     function B(o) { return o }\n\
     function Fake() {}\n\
     class P { get valueOf() { seen.push('valueOf'); return function () {} } }\n\
     Fake.prototype = new P();\n\
     class C extends B { x; ['Big' + 'Int'] = Fake }\n\
     new C(Object.prototype);\n\
     console.log('x');\n\
     return seen",
    // A sixth red team's findings.
    "var as; if (1) {} as\nvoid /'/; return typeof Date //'",
    "var as; {} as\nvoid /'/; return Object.getOwnPropertyNames(globalThis).length //'",
    "var satisfies; function f() {} satisfies\nvoid /'/; return typeof Date //'",
    "var as; class A {} as\nvoid /'/; return typeof Date //'",
    "let as\nvoid /'/; return typeof Date //'",
    "let satisfies\nvoid /'/; return typeof Date //'",
    "declare let as\nvoid /'/; return typeof Date //'",
    "var as; try {} finally {} as\nvoid /'/; return typeof Date //'",
    "var as; {} as /*\n*/ void /'/; return typeof Date //'",
];

#[tokio::test]
async fn known_attacks_are_classified_full_or_see_the_same() {
    let engine = engine();
    for code in KNOWN_ATTACKS {
        if ptc::__private::lean_intrinsics(code) == Some(false) {
            continue;
        }
        let lean = run(&engine, code).await;
        let full = run(&engine, &format!("{code}\n;void globalThis")).await;
        assert_eq!(
            (lean.is_error, lean.kind, lean.text()),
            (full.is_error, full.kind, full.text()),
            "{code}"
        );
    }
}

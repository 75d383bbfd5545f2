#!/usr/bin/env node
// Generates cases.json: golden console lines for src/engine/typescript/js/inspect.js.
//
//   node tests/golden/inspect/gen.js
//
// Each case has a `setup`: a JS expression (valid as a whole script, so it
// starts with `[` or `(`) that evaluates to the array of arguments of one
// console call. `expected` is what Node prints for it, computed here as
//
//   util.formatWithOptions({ breakLength: Infinity }, ...args)
//
// Node's own console.log passes `{}` (breakLength 80) and breaks long values
// over several lines; ptc prints every value on one line, hence
// breakLength: Infinity. Two more adjustments keep Node's output on one line:
// - Error.stackTraceLimit = 0, so errors print without stack frames, the way
//   ptc prints them (`[Error: boom]`).
// - Node lays arrays of more than six items out as a grid even with
//   breakLength: Infinity. For those cases the expected line is Node's
//   `compact: true` output, after checking that it differs from the
//   `compact: 3` output only in whitespace (the case gets "layout":
//   "compact:true").
//
// Cases where ptc cannot match Node carry "node": false and a hand-written
// `expected`. Cases whose output differs when the engine provides no hooks
// (promise state, proxy details) carry `expectedWithoutHooks`.
'use strict';

const fs = require('fs');
const path = require('path');
const util = require('util');

Error.stackTraceLimit = 0;

const cases = [
  // ---- primitives at top level ----
  { name: 'string alone', setup: `['hello world']` },
  { name: 'several strings', setup: `['a', 'b', 'c']` },
  { name: 'string with newline at top level', setup: `['line1\\nline2', 3]` },
  { name: 'empty call', setup: `[]` },
  { name: 'empty string', setup: `['']` },
  { name: 'label and number', setup: `['i=', 42]` },
  { name: 'numbers', setup: `[0, -0, 1.5, -2, NaN, Infinity, -Infinity]` },
  { name: 'number formatting', setup: `[0.1 + 0.2, 1e21, 1e-7, 2 ** 53, 123456789.125]` },
  { name: 'bigint', setup: `[1n, -12345678901234567890n]` },
  { name: 'booleans null undefined', setup: `[true, false, null, undefined]` },
  { name: 'symbols', setup: `[Symbol('k'), Symbol(), Symbol.iterator, Symbol.for('reg')]` },
  { name: 'console.log i= object', setup: `['i=', 7, { a: 1, b: [1, 2] }]` },

  // ---- strings inside containers ----
  { name: 'quoted strings in array', setup: `[['x', '', 'with space']]` },
  { name: 'single quote picks double quotes', setup: `[["it's"]]` },
  { name: 'both quotes pick backticks', setup: `[['it\\'s "so"']]` },
  { name: 'all quotes escape single', setup: `[['it\\'s "so" \`x\`']]` },
  { name: 'dollar brace blocks backticks', setup: `[['it\\'s "so" \${x}']]` },
  { name: 'escapes', setup: `[['a\\nb\\tc\\\\d\\x00e\\x7f\\x9f\\x1b']]` },
  { name: 'unicode kept, lone surrogates escaped', setup: `[['héllo ☃ 😀', '\\ud800x', 'y\\udc00']]` },
  { name: 'long string in object is cut at 10000', setup: `[{ s: 'x'.repeat(10005) }]` },
  { name: 'long string over 100 chars with escapes', setup: `[['\\n'.repeat(60) + "'".repeat(50)]]` },

  // ---- plain objects ----
  { name: 'empty object', setup: `[{}]` },
  { name: 'simple object', setup: `[{ a: 1, b: [1, 'x'] }]` },
  { name: 'nested to depth limit', setup: `[{ a: { b: { c: { d: 1 } } } }]` },
  { name: 'nested arrays to depth limit', setup: `[[[[[1]]]]]` },
  { name: 'empty containers below depth limit', setup: `[{ a: { b: { c: {}, d: [], e: new Map(), f: new Set() } } }]` },
  { name: 'keys needing quotes', setup: `[{ 'a-b': 1, '1a': 2, $x: 3, '': 4, 'sp ace': 5, _ok: 6, "q'": 7 }]` },
  { name: 'integer keys come first', setup: `[{ b: 1, 2: 2, a: 3, 1: 4 }]` },
  { name: 'own __proto__ key', setup: `[JSON.parse('{"__proto__": 1, "x": 2}')]` },
  { name: 'symbol keys', setup: `[{ a: 1, [Symbol('k')]: 2, [Symbol("it's")]: 3 }]` },
  { name: 'non-enumerable hidden', setup: `[Object.defineProperty({ a: 1 }, 'hidden', { value: 2, enumerable: false })]` },
  { name: 'getters and setters', setup: `[{ get g() { throw new Error('never called'); }, set s(v) {}, get gs() { return 1; }, set gs(v) {} }]` },
  { name: 'undefined and null values', setup: `[{ u: undefined, n: null }]` },
  { name: 'constructor property overwritten', setup: `[{ constructor: 'x', a: 1 }]` },
  { name: 'methods', setup: `[{ m() {}, f: function () {}, a: () => 1, named: function inner() {} }]` },
  { name: 'many keys stay on one line', setup: `[Object.fromEntries(Array.from({ length: 30 }, (_, i) => ['key' + i, i]))]` },
  { name: 'null prototype', setup: `[Object.assign(Object.create(null), { a: 1 }), Object.create(null)]` },
  { name: 'prototype without constructor', setup: `[Object.create(Object.create(null))]` },
  { name: 'toStringTag', setup: `[{ a: 1, [Symbol.toStringTag]: 'own' }, Object.create({ [Symbol.toStringTag]: 'Tagged' })]` },

  // ---- class instances ----
  { name: 'class instance', setup: `(() => { class Foo { constructor() { this.x = 1; } } return [new Foo()]; })()` },
  { name: 'empty class instance', setup: `(() => { class Foo {} return [new Foo()]; })()` },
  { name: 'class instance below depth limit', setup: `(() => { class Foo { constructor() { this.x = 1; } } return [{ a: { b: { c: new Foo() } } }]; })()` },
  { name: 'class with toStringTag getter', setup: `(() => { class Foo { get [Symbol.toStringTag]() { return 'bar'; } } return [new Foo()]; })()` },
  { name: 'subclass instance', setup: `(() => { class A { constructor() { this.a = 1; } } class B extends A {} return [new B()]; })()` },

  // ---- circular ----
  { name: 'circular self', setup: `(() => { const o = { name: 'o' }; o.self = o; return [o]; })()` },
  { name: 'circular two refs', setup: `(() => { const a = { n: 'a' }; const b = { n: 'b', a }; a.b = b; a.self = a; return [{ a, b }]; })()` },
  { name: 'circular array', setup: `(() => { const a = [1]; a.push(a); return [a]; })()` },
  { name: 'same object twice is not circular', setup: `(() => { const x = { v: 1 }; return [{ p: x, q: x }]; })()` },

  // ---- arrays ----
  { name: 'empty array', setup: `[[]]` },
  { name: 'holes', setup: `[[1, , 3], [, , 1], [1, , , ]]` },
  { name: 'new Array(5)', setup: `[new Array(5)]` },
  { name: 'many holes', setup: `[new Array(150)]` },
  { name: 'holes then many items', setup: `(() => { const a = new Array(300); a[150] = 'x'; a[299] = 'y'; return [a]; })()` },
  { name: 'array extra keys', setup: `(() => { const a = [1, 2]; a.foo = 'bar'; a[Symbol('s')] = 3; return [a]; })()` },
  { name: 'array of 7 numbers (grid in Node)', setup: `[[1, 2, 3, 4, 5, 6, 7]]` },
  { name: 'array of 150 items', setup: `[Array.from({ length: 150 }, (_, i) => i)]` },
  { name: 'array of 1000 items', setup: `[Array.from({ length: 1000 }, (_, i) => i % 10)]` },
  { name: 'array of 101 items', setup: `[Array.from({ length: 101 }, () => 0)]` },
  { name: 'array of objects', setup: `[[{ id: 1, tags: ['a'] }, { id: 2, tags: [] }]]` },
  { name: 'array subclass', setup: `(() => { class MyArr extends Array {} const a = new MyArr(); a.push(1, 2); return [a]; })()` },
  { name: 'array in object with 8 strings', setup: `[{ list: ['aa', 'bb', 'cc', 'dd', 'ee', 'ff', 'gg', 'hh'] }]` },

  // ---- Map / Set / weak ----
  { name: 'map', setup: `[new Map([[1, 2]])]` },
  { name: 'map with object keys', setup: `[new Map([[{ k: 1 }, ['v']], ['s', null]])]` },
  { name: 'empty map and set', setup: `[new Map(), new Set()]` },
  { name: 'set', setup: `[new Set([1, 2])]` },
  { name: 'nested map and set', setup: `[{ m: new Map([['a', new Set(['x'])]]) }]` },
  { name: 'map and set below depth limit', setup: `[{ a: { b: { m: new Map([[1, 2]]), s: new Set([1]) } } }]` },
  { name: 'big set', setup: `[new Set(Array.from({ length: 120 }, (_, i) => i))]` },
  { name: 'map with extra property', setup: `(() => { const m = new Map([[1, 2]]); m.extra = true; return [m]; })()` },
  { name: 'weak collections', setup: `[new WeakMap(), new WeakSet()]` },
  {
    name: 'map iterator',
    setup: `[new Map([[1, 2]]).keys()]`,
    node: false,
    note: 'entries cannot be previewed without consuming the iterator',
    expected: '[Map Iterator] { <items unknown> }',
  },
  { name: 'array iterator and generator', setup: `[[1, 2].values(), (function* g() {})()]` },

  // ---- functions ----
  { name: 'named and anonymous functions', setup: `[function foo() {}, function () {}, () => {}]` },
  { name: 'inferred function names', setup: `(() => { const arrow = () => 1; const fn = function () {}; return [arrow, fn]; })()` },
  { name: 'classes', setup: `(() => { class A {} class B extends A {} return [A, B, class {}, class extends A {}]; })()` },
  { name: 'async and generator functions', setup: `[async function af() {}, function* gf() {}, async function* agf() {}, async () => {}]` },
  { name: 'bound function', setup: `[function f() {}.bind(null)]` },
  { name: 'function with properties', setup: `(() => { function f() {} f.a = 1; return [f]; })()` },
  { name: 'class with static property', setup: `(() => { class A { static x = 1; } return [A]; })()` },
  { name: 'functions nested', setup: `[{ f: function g() {}, c: class K {} }]` },
  { name: 'builtin functions', setup: `[Math.max, Array, Object.prototype.toString]` },

  // ---- dates and regexps ----
  { name: 'dates', setup: `[new Date(0), new Date(1700000000123), new Date(NaN)]` },
  { name: 'date in object', setup: `[{ when: new Date(86400000) }]` },
  { name: 'date with property', setup: `(() => { const d = new Date(0); d.tz = 'UTC'; return [d]; })()` },
  { name: 'regexps', setup: `[/a+b/gi, new RegExp('x/y'), /[\\n]/u]` },
  { name: 'regexp with property', setup: `[Object.assign(/re/, { x: 1 })]` },

  // ---- errors ----
  { name: 'error top level', setup: `[new Error('boom')]` },
  { name: 'error kinds', setup: `[new TypeError('bad type'), new RangeError('out'), new SyntaxError('parse')]` },
  { name: 'error without message', setup: `[new Error()]` },
  { name: 'error in object and array', setup: `[{ err: new Error('inner') }, [new TypeError('t')]]` },
  { name: 'error with properties', setup: `[Object.assign(new Error('m'), { code: 'E1', status: 404 })]` },
  { name: 'error with cause', setup: `[new Error('outer', { cause: new Error('inner') })]` },
  { name: 'error with primitive cause', setup: `[new Error('outer', { cause: 'why' })]` },
  { name: 'aggregate error', setup: `[new AggregateError([new Error('one'), 'two'], 'multi')]` },
  { name: 'error subclass with Error in its name', setup: `(() => { class HttpError extends Error {} return [new HttpError('404')]; })()` },
  { name: 'error subclass without Error in its name', setup: `(() => { class Oops extends Error {} return [new Oops('x')]; })()` },
  { name: 'error subclass with prototype name', setup: `(() => { class DbError extends Error {} DbError.prototype.name = 'DbError'; return [new DbError('down')]; })()` },
  {
    name: 'error name assigned after construction',
    setup: `(() => { class MyError extends Error { constructor(m) { super(m); this.name = 'MyError'; } } return [new MyError('custom')]; })()`,
    node: false,
    note: 'V8 takes the stack header at construction (Error: custom) and lists name as a key',
    expected: '[MyError: custom]',
  },
  { name: 'error with string arguments', setup: `['failed:', new Error('boom')]` },

  // ---- boxed primitives ----
  { name: 'boxed primitives', setup: `[new Number(3), new String('x'), new Boolean(false), Object(1n), Object(Symbol('s'))]` },
  { name: 'boxed -0', setup: `[new Number(-0)]` },
  { name: 'boxed string with property', setup: `[Object.assign(new String('ab'), { extra: 1 })]` },

  // ---- typed arrays and buffers ----
  { name: 'typed arrays', setup: `[new Uint8Array([1, 2, 3]), new Float64Array([1.5, -0]), new Int16Array([-1])]` },
  { name: 'bigint typed array', setup: `[new BigInt64Array([1n, -2n])]` },
  { name: 'empty typed array', setup: `[new Uint8Array(0)]` },
  { name: 'long typed array', setup: `[new Uint8Array(120)]` },
  { name: 'array buffer', setup: `[new Uint8Array([1, 2, 255]).buffer]` },
  { name: 'long array buffer', setup: `[new ArrayBuffer(105)]` },
  { name: 'data view', setup: `[new DataView(new ArrayBuffer(2), 1)]` },
  { name: 'typed array in object', setup: `[{ bytes: new Uint8Array([9]) }]` },

  // ---- promises (Node output; needs hooks.promiseState) ----
  {
    name: 'pending promise',
    setup: `[new Promise(() => {})]`,
  },
  {
    name: 'resolved promise',
    setup: `[Promise.resolve({ a: 1 })]`,
    expectedWithoutHooks: 'Promise { <pending> }',
  },
  {
    name: 'rejected promise',
    setup: `(() => { const p = Promise.reject(new Error('no')); p.catch(() => {}); return [p]; })()`,
    expectedWithoutHooks: 'Promise { <pending> }',
  },
  {
    name: 'promise in object',
    setup: `[{ p: Promise.resolve(1) }]`,
    expectedWithoutHooks: '{ p: Promise { <pending> } }',
  },

  // ---- proxies (Node output; needs hooks.proxyDetails) ----
  { name: 'proxy of object', setup: `[new Proxy({ a: 1 }, {})]` },
  { name: 'proxy of array', setup: `[new Proxy([1, 2], {})]` },
  {
    name: 'proxy of map',
    setup: `[new Proxy(new Map([[1, 2]]), {})]`,
    expectedWithoutHooks: 'Map {}',
  },
  {
    name: 'revoked proxy',
    setup: `(() => { const r = Proxy.revocable({}, {}); r.revoke(); return [r.proxy, { p: r.proxy }]; })()`,
  },
  {
    name: 'proxy with throwing traps',
    setup: `[new Proxy({ a: 1 }, { ownKeys() { throw new Error('trap'); }, get() { throw new Error('trap'); }, getPrototypeOf() { throw new Error('trap'); } })]`,
    expectedWithoutHooks: '<Inspection threw (trap)>',
  },

  // ---- custom inspect ----
  {
    name: 'custom inspect returning string',
    setup: `[{ [Symbol.for('nodejs.util.inspect.custom')]() { return 'CUSTOM'; } }]`,
  },
  {
    name: 'custom inspect returning object',
    setup: `[{ x: { [Symbol.for('nodejs.util.inspect.custom')]() { return { replaced: true }; } } }]`,
  },

  // ---- arguments object ----
  { name: 'arguments object', setup: `[(function () { return arguments; })(1, 'a')]` },

  // ---- printf-style format ----
  { name: '%s %d %j', setup: `['%s is %d years and %j', 'Bob', 42, { a: 1 }]` },
  { name: '%s with numbers and -0', setup: `['%s|%s|%s', 1.5, -0, 10n]` },
  { name: '%s with primitives', setup: `['%s|%s|%s|%s', null, undefined, Symbol('s'), true]` },
  { name: '%s with object uses depth 0', setup: `['%s', { a: { b: 1 }, c: [1] }]` },
  { name: '%s with array', setup: `['%s', [1, [2, [3]]]]` },
  { name: '%s with user toString', setup: `['%s', { toString() { return 'custom!'; } }]` },
  { name: '%s with class having toString', setup: `(() => { class P { toString() { return 'P!'; } } return ['%s', new P()]; })()` },
  { name: '%s with class instance', setup: `(() => { class P { constructor() { this.v = 1; } } return ['%s', new P()]; })()` },
  { name: '%s with error and date', setup: `['%s / %s', new Error('e'), new Date(0)]` },
  { name: '%s with function', setup: `['%s', function named() { return 1; }]` },
  { name: '%d conversions', setup: `['%d %d %d %d %d %d', '42', 1.5, {}, 5n, Symbol('x'), -0]` },
  { name: '%i conversions', setup: `['%i %i %i %i %i', '42.9', -3.7, '0x10', 7n, 'abc']` },
  { name: '%f conversions', setup: `['%f %f %f', '3.5abc', 'x', 2n]` },
  { name: '%j conversions', setup: `['%j %j %j', { a: [1, 'b'] }, 'str', undefined]` },
  { name: '%j circular', setup: `(() => { const o = {}; o.o = o; return ['%j', o]; })()` },
  { name: '%o', setup: `['%o', { a: [1, 2], s: 'x' }]` },
  { name: '%o deep', setup: `['%o', { a: { b: { c: { d: { e: 1 } } } } }]` },
  { name: '%O', setup: `['%O', { a: { b: { c: { d: 1 } } } }]` },
  { name: '%c is dropped', setup: `['%cstyled', 'color: red']` },
  { name: '%% and missing arguments', setup: `['100%% of %s and %s', 'one']` },
  { name: '%% with no arguments left', setup: `['100%%', 'x']` },
  { name: 'single string keeps %%', setup: `['100%% sure %s']` },
  { name: 'unknown placeholder', setup: `['%x %s', 'a']` },
  { name: 'trailing percent', setup: `['50%', 1]` },
  { name: 'extra arguments after format', setup: `['%s!', 'hi', { a: 1 }, 'tail', 3]` },
  { name: 'non-string first argument', setup: `[1, '%s', 'x']` },
  { name: 'format string adjacent placeholders', setup: `['%s%s%d', 'a', 'b', 3]` },

  // ---- more shapes ----
  { name: 'map subclass', setup: `(() => { class Registry extends Map {} return [new Registry([[1, 2]])]; })()` },
  { name: 'set subclass', setup: `(() => { class Tags extends Set {} return [new Tags(['a'])]; })()` },
  { name: 'null-prototype map', setup: `[Object.setPrototypeOf(new Map([[1, 2]]), null)]` },
  { name: 'null-prototype array', setup: `[Object.setPrototypeOf([1, 2], null)]` },
  { name: 'null prototype with tag', setup: `[Object.assign(Object.create(null, { [Symbol.toStringTag]: { value: 'Tag' } }), { a: 1 })]` },
  { name: 'date subclass', setup: `(() => { class Day extends Date {} return [new Day(0)]; })()` },
  { name: 'object created from class prototype', setup: `(() => { class Foo {} return [Object.assign(Object.create(Foo.prototype), { z: 1 })]; })()` },
  { name: 'error in map and set', setup: `[new Map([['e', new RangeError('r')]]), new Set([new Error('s')])]` },
  { name: 'negative zero in containers', setup: `[[-0, 0], { z: -0 }, new Set([-0])]` },
  {
    name: 'symbol description with newline',
    setup: `[{ [Symbol('a\\nb')]: Symbol('c\\nd') }]`,
    node: false,
    note: 'Node breaks the object over lines because an entry contains a newline; ptc never breaks lines',
    expected: '{ [Symbol(a\\nb)]: Symbol(c\nd) }',
  },
  { name: 'string keys with escapes', setup: `[{ 'new\\nline': 1, 'back\\\\slash': 2, 'tab\\t': 3 }]` },
  { name: 'deep mixed nesting', setup: `[[{ a: new Map([[1, { b: [1] }]]) }]]` },
  { name: 'array with undefined and null', setup: `[[undefined, null, , undefined]]` },
  { name: 'array index getter', setup: `[Object.defineProperty([1, 2], 1, { get() { return 5; } })]` },
  { name: '%o strict function', setup: `['%o', (function () { 'use strict'; return function foo() {}; })()]` },
  { name: '%o class instance with prototype getter', setup: `(() => { class A { constructor() { this.v = 1; } get x() { return 1; } m() {} } return ['%o', new A()]; })()` },
  { name: '%o typed array and map', setup: `['%o %o', new Uint8Array(2), new Map([[1, { k: [1] }]])]` },
  { name: '%o non-enumerable property', setup: `['%o', Object.defineProperty({ a: 1 }, 'h', { value: 'x', enumerable: false })]` },
  {
    name: '%o proxy',
    setup: `['%o', new Proxy({ a: 1 }, {})]`,
    expectedWithoutHooks: '{ a: 1 }',
  },

  // ---- never throw ----
  {
    name: 'throwing toString with %s',
    setup: `['%s', { toString() { throw new Error('bad toString'); } }]`,
    node: false,
    note: 'Node throws',
    expected: '<Inspection threw (bad toString)>',
  },
  {
    name: 'throwing custom inspect',
    setup: `[{ a: { [Symbol.for('nodejs.util.inspect.custom')]() { throw new Error('nope'); } } }]`,
    node: false,
    note: 'Node throws',
    expected: '{ a: <Inspection threw (nope)> }',
  },
  {
    name: 'throwing name getter on error',
    setup: `[{ e: Object.defineProperty(new Error('x'), 'name', { get() { throw new Error('no name'); } }) }]`,
    node: false,
    note: 'Node throws',
    expected: '{ e: <Inspection threw (no name)> }',
  },
  {
    name: '%j with throwing toJSON',
    setup: `['%j', { toJSON() { throw new Error('no json'); } }]`,
    node: false,
    note: 'Node throws',
    expected: '<JSON.stringify threw (no json)>',
  },
];

function collapse(s) {
  return s.replace(/\s+/g, ' ');
}

const out = [];
const names = new Set();
for (const c of cases) {
  if (names.has(c.name)) throw new Error(`duplicate case name: ${c.name}`);
  names.add(c.name);
  const entry = { name: c.name, setup: c.setup };
  if (c.node === false) {
    entry.node = false;
    entry.note = c.note;
    entry.expected = c.expected;
  } else {
    const args = (0, eval)(c.setup);
    if (!Array.isArray(args)) throw new Error(`${c.name}: setup is not an array`);
    let expected = util.formatWithOptions({ breakLength: Infinity }, ...args);
    const args2 = (0, eval)(c.setup);
    const compact = util.formatWithOptions({ breakLength: Infinity, compact: true }, ...args2);
    if (expected !== compact && expected.includes('\n') && !compact.includes('\n')) {
      if (collapse(expected) !== collapse(compact)) {
        throw new Error(`${c.name}: compact:true differs beyond layout:\n${expected}\n${compact}`);
      }
      expected = compact;
      entry.layout = 'compact:true';
    }
    // Newlines may only come from content (top-level strings here).
    if (expected.includes('\n') && !args.some((a) => typeof a === 'string' && a.includes('\n'))) {
      throw new Error(`${c.name}: multi-line output: ${JSON.stringify(expected)}`);
    }
    entry.expected = expected;
  }
  if (c.expectedWithoutHooks !== undefined) {
    entry.expectedWithoutHooks = c.expectedWithoutHooks;
  }
  out.push(entry);
}

// The hand-checked cases above must be consistent with Node where they can be.
const file = path.join(__dirname, 'cases.json');
fs.writeFileSync(file, `${JSON.stringify(out, null, 2)}\n`);
console.log(`wrote ${out.length} cases to ${path.relative(process.cwd(), file)}`);

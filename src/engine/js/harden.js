// Evaluated once per sandbox, when it is built (before any run takes it).
//
// QuickJS polls its interrupt handler when a function is called and on
// loops in bytecode, but several built-in loops over an array-like's
// `length` call nothing on holes: `Array.prototype.indexOf.call({ length:
// 2 ** 53 - 1 }, 1)` would run for years past any deadline. Those methods
// get a wrapper: up to LIMIT elements (about a tenth of a second of the
// native loop) they run as they are; past it they run on a proxy of the
// array whose traps are functions, so every element read reaches the
// interrupt handler. What a program can see differs only there: the third
// argument of a callback is the proxy, and the wrapper reads `length` once
// more. `Iterator.prototype.drop` gets the same treatment for huge counts.
(function () {
  'use strict';
  const LIMIT = 1 << 22;
  const { apply, get, set, has, deleteProperty, defineProperty, getOwnPropertyDescriptor, ownKeys } = Reflect;
  const define = Object.defineProperty;
  const ProxyCtor = Proxy;
  const isArray = Array.isArray;
  const spreadable = Symbol.isConcatSpreadable;

  // Traps that are functions: calling one polls the interrupt handler.
  const traps = {
    get: (t, k) => get(t, k),
    set: (t, k, v) => set(t, k, v),
    has: (t, k) => has(t, k),
    deleteProperty: (t, k) => deleteProperty(t, k),
    defineProperty: (t, k, d) => defineProperty(t, k, d),
    getOwnPropertyDescriptor: (t, k) => getOwnPropertyDescriptor(t, k),
    ownKeys: (t) => ownKeys(t),
  };

  function huge(o) {
    if (o === null || (typeof o !== 'object' && typeof o !== 'function')) return false;
    const n = Number(o.length);
    return n > LIMIT;
  }

  function interruptible(o) {
    return huge(o) ? new ProxyCtor(o, traps) : o;
  }

  function guard(proto, name, argsToo) {
    const native = proto[name];
    const wrapped = {
      [name](...args) {
        if (argsToo) {
          for (let i = 0; i < args.length; i++) {
            const a = args[i];
            if (a !== null && typeof a === 'object' && (isArray(a) || a[spreadable])) args[i] = interruptible(a);
          }
        }
        return apply(native, this == null ? this : interruptible(this), args);
      },
    }[name];
    define(wrapped, 'length', { value: native.length });
    define(proto, name, { value: wrapped, writable: true, enumerable: false, configurable: true });
  }

  const arrayMethods = ['indexOf', 'lastIndexOf', 'includes', 'join', 'toLocaleString', 'reverse',
    'slice', 'splice', 'shift', 'unshift', 'copyWithin', 'sort', 'flat', 'flatMap', 'every', 'some',
    'forEach', 'map', 'filter', 'reduce', 'reduceRight'];
  for (let i = 0; i < arrayMethods.length; i++) guard(Array.prototype, arrayMethods[i], false);
  guard(Array.prototype, 'concat', true);

  // `drop` steps a built-in iterator without calling a function: past LIMIT
  // it steps one whose `next` is a function.
  const IteratorProto = Object.getPrototypeOf(Object.getPrototypeOf([][Symbol.iterator]()));
  const drop = IteratorProto.drop;
  if (typeof drop === 'function') {
    const wrapped = {
      drop(limit) {
        if (!(Number(limit) > LIMIT) || this === null || typeof this !== 'object') return apply(drop, this, [limit]);
        const inner = this;
        const step = inner.next;
        const stepping = {
          __proto__: IteratorProto,
          next: () => apply(step, inner, []),
          return: () => (typeof inner.return === 'function' ? apply(inner.return, inner, []) : { done: true, value: undefined }),
        };
        return apply(drop, stepping, [limit]);
      },
    }.drop;
    define(wrapped, 'length', { value: drop.length });
    define(IteratorProto, 'drop', { value: wrapped, writable: true, enumerable: false, configurable: true });
  }
})();

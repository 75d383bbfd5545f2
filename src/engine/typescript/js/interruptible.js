// The slow, interruptible path of the guarded built-ins (see guards.rs),
// compiled the first time a run needs it. Its intrinsics were captured when
// the sandbox was built, before the program could replace them.
(function (Proxy, apply, IteratorProto, RegExp, exec) {
  'use strict';
  // Traps that are functions: calling one polls the interrupt handler. They
  // forward with the language's own operations (nothing the program could
  // have replaced); getters and setters see the array itself, not the proxy.
  // Traps left out (ownKeys, …) are forwarded by the proxy: the guarded
  // loops do not use them.
  const traps = {
    get: (t, k) => t[k],
    set: (t, k, v) => { t[k] = v; return true; },
    has: (t, k) => k in t,
    deleteProperty: (t, k) => delete t[k],
  };
  const proxy = (target) => new Proxy(target, traps);
  // An iterator stepping `inner` through a function, for `drop`.
  const stepping = (inner) => {
    const step = inner.next;
    return {
      __proto__: IteratorProto,
      next: () => apply(step, inner, []),
      return: () => {
        const finish = inner.return;
        return typeof finish === 'function' ? apply(finish, inner, []) : { done: true, value: undefined };
      },
    };
  };
  // String searches by regular expression, whose engine polls: each takes
  // the original method, the string and the (string) pattern as converted.
  const special = { __proto__: null };
  const escapes = '\\^$.*+?()[]{}|/';
  for (let i = 0; i < escapes.length; i++) special[escapes[i]] = true;
  const literal = (flags, pattern) => {
    let source = '';
    for (let i = 0; i < pattern.length; i++) {
      const c = pattern[i];
      source += special[c] === true ? '\\' + c : c;
    }
    return new RegExp(source, flags);
  };
  // ToIntegerOrInfinity, with `otherwise` for NaN.
  const integer = (value, otherwise) => {
    const n = +value;
    if (n !== n) return otherwise;
    return n === Infinity || n === -Infinity ? n : n - (n % 1);
  };
  const indexOf = (original, s, p, position) => {
    const start = integer(position, 0);
    const re = literal('g', p);
    re.lastIndex = start < 0 ? 0 : start > s.length ? s.length : start;
    const found = apply(exec, re, [s]);
    return found === null ? -1 : found.index;
  };
  const lastIndexOf = (original, s, p, position) => {
    const pos = integer(position, Infinity);
    const start = pos < 0 ? 0 : pos > s.length ? s.length : pos;
    const re = literal('y', p);
    for (let k = start < s.length - p.length ? start : s.length - p.length; k >= 0; k--) {
      re.lastIndex = k;
      if (apply(exec, re, [s]) !== null) return k;
    }
    return -1;
  };
  const includes = (original, s, p, position) => indexOf(original, s, p, position) !== -1;
  const split = (original, s, p, limit) => apply(original, s, [literal('', p), limit]);
  const replace = (original, s, p, replacement) => apply(original, s, [literal('', p), replacement]);
  const replaceAll = (original, s, p, replacement) => apply(original, s, [literal('g', p), replacement]);
  return [proxy, stepping, indexOf, lastIndexOf, includes, split, replace, replaceAll];
})

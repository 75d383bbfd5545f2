// The slow, interruptible path of the guarded built-ins (see guards.rs),
// compiled the first time a run needs it. Its intrinsics were captured when
// the sandbox was built, before the program could replace them.
(function (Proxy, apply, IteratorProto) {
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
  return [proxy, stepping];
})

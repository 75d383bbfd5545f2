// `state` and `StateError` (contracts §9): the session's values, kept
// between runs. Evaluated on a program's first use of either, with what it
// needs from the prelude; `settle` stays with the prelude, out of the
// program's reach.
(function (prelude) {
  'use strict';
  const { stateCall, sendPlain, isArray } = prelude;

  class StateError extends Error {
    constructor(code, message) {
      super(message);
      this.code = code;
    }
    get name() { return 'StateError'; }
  }

  const pending = new Map();
  let loneSurrogate;

  // A key is checked here for what only JavaScript can tell (its type, a
  // lone surrogate); the host checks its length and characters.
  function badKey(key) {
    if (typeof key !== 'string') {
      return 'invalid key: a key is a string, got ' + (key === null ? 'null' : typeof key);
    }
    loneSurrogate = loneSurrogate || /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
    if (loneSurrogate.test(key)) return 'invalid key: a key is whole Unicode text, and this one holds a lone surrogate';
    return undefined;
  }

  // `set`'s value: plain data as it is, anything else as JSON made it.
  function sendValue(key, value) {
    if (value === undefined) {
      return new StateError('INVALID_VALUE', 'the value of `' + key + '` is undefined, which JSON cannot hold: use state.delete to remove a key');
    }
    let r = stateCall(1, key, value);
    if (r === undefined || r === false) {
      const sent = sendPlain((v) => stateCall(1, key, v), value, 'value contains');
      if (sent.why !== undefined) return new StateError('INVALID_VALUE', 'the value of `' + key + '` is ' + sent.why);
      r = sent.r;
    }
    return r;
  }

  // op: 0 get, 1 set, 2 delete, 3 keys.
  function call(op, key, value) {
    const bad = op === 3 ? undefined : badKey(key);
    if (bad !== undefined) return Promise.reject(new StateError('INVALID_KEY', bad));
    const r = op === 1 ? sendValue(key, value) : stateCall(op, key);
    if (r instanceof StateError) return Promise.reject(r);
    if (typeof r === 'number') {
      return new Promise((resolve, reject) => { pending.set(r, [resolve, reject]); });
    }
    // Failed at once: [code, message]; else answered at once: a promise.
    if (isArray(r)) return Promise.reject(new StateError(r[0], r[1]));
    return r;
  }

  // Settles a state call answered after it was made.
  function settle(id, ok, payload, code) {
    const entry = pending.get(id);
    if (entry === undefined) return;
    pending.delete(id);
    if (ok) entry[0](payload);
    else entry[1](new StateError(code, payload));
  }

  const state = Object.freeze({
    get: (key) => call(0, key),
    set: (key, value) => call(1, key, value),
    delete: (key) => call(2, key),
    keys: () => call(3, ''),
  });
  return { state, StateError, settle };
})

// The sandbox prelude: binds `tools`, `console`, timers and `ToolCallError`
// to the host's native functions, then hands the engine its entry points.
// Evaluated once per run, before the model's code. `native` and the entry
// points returned at the end stay with the host, out of the program's reach.
(function (native) {
  'use strict';
  const { submit, state: stateCall, load, log, setTimer, clearTimer, finish, maxDepth, search, describe: describeTools } = native;
  // The console formatter is big: compiled only when a program first needs
  // it, with what its loading uses where lean and full contexts differ, and
  // what it calls with its own tables, taken now.
  const primordials = {
    apply: Reflect.apply,
    bind: Function.prototype.bind,
    call: Function.prototype.call,
    getOwnPropertyDescriptor: Object.getOwnPropertyDescriptor,
    getPrototypeOf: Object.getPrototypeOf,
    Map,
    mapGet: Map.prototype.get,
    mapSet: Map.prototype.set,
    toStringTag: Symbol.toStringTag,
    Date: typeof Date === 'function' ? Date : undefined,
    BigInt: typeof BigInt === 'function' ? BigInt : undefined,
    ArrayBuffer: typeof ArrayBuffer === 'function' ? ArrayBuffer : undefined,
    SharedArrayBuffer: typeof SharedArrayBuffer === 'function' ? SharedArrayBuffer : undefined,
    DataView: typeof DataView === 'function' ? DataView : undefined,
    Uint8Array: typeof Uint8Array === 'function' ? Uint8Array : undefined,
  };
  let inspector;
  const inspect = () => inspector || (inspector = load('inspect')(primordials));
  const pending = new Map();
  const timers = new Map();
  const JSONstringify = JSON.stringify;
  const JSONparse = JSON.parse;
  const isArray = Array.isArray;
  const MapProto = Map.prototype, SetProto = Set.prototype;
  const WeakMapProto = WeakMap.prototype, WeakSetProto = WeakSet.prototype;
  const getPrototypeOf = Object.getPrototypeOf;
  // Typed arrays and buffers are told by their internal slots, which no
  // Proxy trap sees: a lean context (without them) runs the same steps.
  const hasBuffers = typeof ArrayBuffer === 'function';
  const isView = hasBuffers ? ArrayBuffer.isView : () => false;
  const bufferLength = hasBuffers
    ? Function.prototype.call.bind(Object.getOwnPropertyDescriptor(ArrayBuffer.prototype, 'byteLength').get)
    : undefined;
  const isBuffer = (value) => {
    if (!hasBuffers) return false;
    try { bufferLength(value); return true; } catch { return false; }
  };

  class ToolCallError extends Error {
    constructor(toolName, code, message) {
      super(message);
      this.toolName = toolName;
      this.code = code;
    }
    get name() { return 'ToolCallError'; }
  }

  class NotLossless extends Error {}

  // Arguments must survive a JSON round trip unchanged.
  function lossless(key, value) {
    switch (typeof value) {
      case 'number':
        if (value !== value || value === Infinity || value === -Infinity) {
          throw new NotLossless(String(value) + ' is not representable in JSON');
        }
        return value;
      case 'bigint': throw new NotLossless('BigInt is not representable in JSON');
      case 'function': throw new NotLossless('a function is not representable in JSON');
      case 'symbol': throw new NotLossless('a symbol is not representable in JSON');
      case 'undefined':
        if (isArray(this)) throw new NotLossless('undefined inside an array is not representable in JSON');
        return value;
      case 'object': {
        if (value === null) return value;
        const proto = getPrototypeOf(value);
        if (proto === MapProto || proto === SetProto || proto === WeakMapProto || proto === WeakSetProto
            || value instanceof Map || value instanceof Set || value instanceof WeakMap || value instanceof WeakSet) {
          throw new NotLossless('a Map or Set is not representable in JSON');
        }
        if (isView(value) || isBuffer(value)) {
          throw new NotLossless('a typed array or ArrayBuffer is not representable in JSON');
        }
        return value;
      }
      default: return value;
    }
  }

  // After `send(value)` answered that `value` is not plain data, or too
  // deep to tell (a cycle looks the same at first): checks it here and
  // sends it as JSON made it. What `send` answered, or why the value is not
  // lossless JSON.
  function sendPlain(send, value, what) {
    let json;
    try {
      json = JSONstringify(value, lossless);
    } catch (e) {
      const why = e instanceof NotLossless ? e.message
        : (e instanceof TypeError && /circular|cycle/i.test(String(e.message)))
          ? 'the ' + what + ' a cycle' : String(e && e.message);
      return { why: 'not lossless JSON: ' + why };
    }
    if (json === undefined) return { why: 'not lossless JSON: ' + typeof value + ' is not representable in JSON' };
    const r = send(JSONparse(json));
    if (r === undefined) return { why: 'not lossless JSON: they changed while being read' };
    if (r === false) return { why: 'nested deeper than ' + maxDepth + ' levels of arrays and objects' };
    return { r };
  }

  function callTool(name, args) {
    let r = submit(name, args);
    if (r === undefined || r === false) {
      const sent = sendPlain((a) => submit(name, a), args, 'arguments contain');
      if (sent.why !== undefined) {
        const why = sent.why.startsWith('nested') ? 'nest' + sent.why.slice(6) : 'are ' + sent.why;
        return Promise.reject(new ToolCallError(name, 'INVALID_ARGUMENTS', 'arguments for `' + name + '` ' + why));
      }
      r = sent.r;
    }
    if (typeof r === 'number') {
      return new Promise((resolve, reject) => { pending.set(r, [resolve, reject, name]); });
    }
    // Failed at once: [code, message]; else settled at once: a promise.
    if (isArray(r)) return Promise.reject(new ToolCallError(name, r[0], r[1]));
    return r;
  }

  // `state` and `StateError` (contracts §9), made on a program's first
  // use of either (js/state.js): the prelude is read into every context,
  // and most runs never touch them.
  let stateApi;
  const stateModule = () => stateApi || (stateApi = load('state')({ stateCall, sendPlain, isArray }));
  function settleState(id, ok, payload, code) {
    if (stateApi !== undefined) stateApi.settle(id, ok, payload, code);
  }

  // Settles a sub-call that completed after its submission.
  function settle(id, ok, payload, code) {
    const entry = pending.get(id);
    if (entry === undefined) return;
    pending.delete(id);
    if (ok) entry[0](payload);
    else entry[1](new ToolCallError(entry[2], code, payload));
  }

  const toolFns = new Map();
  const tools = new Proxy(Object.create(null), {
    get(_target, name) {
      // `then` would make `tools` look like a promise to `await`.
      if (typeof name !== 'string' || name === 'then') return undefined;
      let fn = toolFns.get(name);
      if (fn === undefined) {
        // Discovery (contracts §6) answers at once, from the run's side.
        fn = name === '$search' ? search : name === '$describe' ? describeTools
          : (args) => callTool(name, args);
        toolFns.set(name, fn);
      }
      return fn;
    },
    set() { return false; },
    defineProperty() { return false; },
    deleteProperty() { return false; },
  });

  function timerCallback(fn, args) {
    return () => { fn(...args); };
  }

  function setTimeout(fn, ms, ...args) {
    if (typeof fn !== 'function') throw new TypeError('setTimeout: callback must be a function');
    const delay = Number(ms) > 0 ? Number(ms) : 0;
    const id = setTimer(delay);
    timers.set(id, timerCallback(fn, args));
    return id;
  }

  function clearTimeout(id) {
    if (timers.delete(id)) clearTimer(id);
  }

  // A timer callback that throws is reported like an unhandled rejection.
  function fire(id) {
    const cb = timers.get(id);
    if (cb === undefined) return;
    timers.delete(id);
    try {
      cb();
    } catch (error) {
      log(2, 'uncaught exception in a timer callback: ' + describe(error)[0]);
    }
  }

  const levels = ['log', 'info', 'warn', 'error', 'debug'];
  const console = {};
  for (let i = 0; i < levels.length; i++) {
    const level = i;
    console[levels[i]] = function (...args) { log(level, inspect().formatArgs(args)); };
  }

  // How the model sees the return value (contracts §7): plain data as
  // JSON, anything JSON would change or drop as console.log shows it.
  function render(value) {
    if (value === undefined) return undefined;
    const type = typeof value;
    if (type === 'string') return value;
    if (type === 'boolean' || (type === 'number' && value - value === 0)) return JSONstringify(value);
    return renderValue(value);
  }

  // The constructors the return-value check tells values by, as they were
  // before the program ran (one array: a run that never renders an object
  // pays little).
  const renderIntrinsics = [Error, Promise, RegExp, Map, Set, WeakMap, WeakSet, RegExp.prototype.exec, TypeError];

  // Past this many bytes of JSON a value is shown as JSON without the
  // check: the check calls back into JavaScript for every member (about
  // five times the cost of JSON itself), and a value this large reaches the
  // model cut by the output cap anyway (contracts §7).
  const checkedJsonBytes = 65536;

  // An object, or a value JSON cannot write: JSON when it is plain data,
  // else console.log's rendering and a line naming the first thing JSON
  // would have lost. The check is a script of its own (render.js), compiled
  // into the context only when a run returns such a value: the prelude is
  // read into every context, and most runs return a number or a string.
  let checker;
  function renderValue(value) {
    let json;
    try { json = JSONstringify(value); } catch (_) { /* a cycle or a BigInt: checked below */ }
    if (json !== undefined && json.length > checkedJsonBytes) return json;
    checker = checker || load('render')({
      intrinsics: renderIntrinsics, JSONstringify, isArray, isView, isBuffer, getPrototypeOf,
      MapProto, SetProto, WeakMapProto, WeakSetProto, describe, inspect,
    });
    return checker(value);
  }

  // Describes a thrown value: [text, stack].
  function describe(error) {
    try {
      if (error instanceof ToolCallError) {
        return ['ToolCallError: ' + error.message + ' (code ' + error.code + ', tool `' + error.toolName + '`)',
          String(error.stack || '')];
      }
      if (stateApi !== undefined && error instanceof stateApi.StateError) {
        return ['StateError: ' + error.message + ' (code ' + error.code + ')', String(error.stack || '')];
      }
      if (error instanceof Error) {
        const name = String(error.name || 'Error');
        const message = String(error.message);
        return [message ? name + ': ' + message : name, String(error.stack || '')];
      }
      return ['Uncaught ' + inspect().inspect(error), ''];
    } catch (_) {
      return ['Uncaught exception', ''];
    }
  }

  function start(main) {
    main().then(
      (value) => { finish(true, render(value), ''); },
      (error) => { const d = describe(error); finish(false, d[0], d[1]); });
  }

  Object.defineProperty(globalThis, 'tools', { value: tools, enumerable: false });
  Object.defineProperty(globalThis, 'ToolCallError', { value: ToolCallError, writable: true, configurable: true });
  Object.defineProperty(globalThis, 'state', { get: () => stateModule().state, enumerable: false });
  Object.defineProperty(globalThis, 'StateError', { get: () => stateModule().StateError, configurable: true });
  Object.defineProperty(globalThis, 'console', { value: console, writable: true, configurable: true });
  globalThis.setTimeout = setTimeout;
  globalThis.clearTimeout = clearTimeout;
  return { start, settle, settleState, fire };
})

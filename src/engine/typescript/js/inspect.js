// ptc console formatter: Node's `util.format` / `util.inspect`, on one line.
//
// Usage: this file is ONE expression, a function of `primordials` (the
// builtins its loading calls and those it calls with its own tables:
// Reflect.apply, Function.prototype.bind and .call,
// Object.getOwnPropertyDescriptor and .getPrototypeOf, Map, Map.prototype.get
// and .set, Symbol.toStringTag, and the constructors a lean context lacks
// or `undefined`: Date, BigInt, ArrayBuffer, SharedArrayBuffer, DataView,
// Uint8Array; taken before any model code ran). Evaluate it as a
// global script, call it with them, and keep the result private to the
// engine (never put it on globalThis). The call yields
//   { formatArgs, inspect, hooks }
// - formatArgs(args): the text of one console call, `args` being the array
//   of its arguments: Node's util.format (printf-style %s %d %i %f %j %o %O
//   %c %% when the first argument is a string), strings as they are, other
//   values via inspect, joined by one space. Returns a string.
// - inspect(value[, opts]): one value, like Node's `util.inspect(value,
//   { breakLength: Infinity })`; opts may set depth, showHidden, showProxy,
//   maxArrayLength, maxStringLength.
// - hooks: optional host helpers the engine may set once, after evaluation:
//     hooks.promiseState(v)  -> undefined if v is not a promise, else
//                               [state, result], state 0 pending,
//                               1 fulfilled, 2 rejected;
//     hooks.proxyDetails(v)  -> undefined if v is not a proxy, null if it
//                               is revoked, else [target, handler].
// formatArgs and inspect never throw. Pure ES2020; no Node or host APIs.
//
// Rules (where Node cannot be matched exactly):
// - Layout never breaks lines (Node with breakLength: Infinity, without the
//   grid grouping Node applies to arrays of more than six items). Newlines
//   appear only when they are part of the content (a top-level string, an
//   error message, a custom inspect result).
// - Errors print without stack frames, as Node prints an error whose stack
//   has no frames: `[Error: boom]`, `[TypeError: x] { code: 'E' }`. The
//   header is `name: message` read when printing (V8 reads it at
//   construction), so `this.name = 'MyError'` after super() gives
//   `[MyError: msg]`.
// - Promises: with hooks.promiseState as Node (`Promise { 1 }`,
//   `Promise { <rejected> [Error: x] }`); without it `Promise { <pending> }`.
// - Proxies: with hooks.proxyDetails the target is shown, as Node does;
//   without it the proxy is inspected through its traps, a revoked proxy is
//   still detected (`<Revoked Proxy>`).
// - Map/Set iterators cannot be previewed without consuming them:
//   `[Map Iterator] { <items unknown> }`.
// - Anything that throws while being inspected (proxy traps, custom
//   inspectors, getters such as `name` on errors, a throwing toString under
//   %s) renders as `<Inspection threw (message)>` for that value; `%j` of a
//   value JSON.stringify rejects (BigInt, throwing toJSON) renders as
//   `<JSON.stringify threw (message)>`. Node throws in these cases.
// - Bounds: at most 100 items per array/Map/Set, 10000 characters per
//   string (as Node); arrays and typed arrays longer than 1000 items are not
//   scanned for extra named properties; each top-level value stops growing
//   after about 60000 characters (remaining entries become `…`) and is cut
//   at 65536 UTF-16 units (then ending in `…`).
// Its loading, at a program's first console call, runs the same in lean and
// full contexts and calls nothing the program could have replaced.
(function (primordials) {
  'use strict';

  // ---- builtins captured at load time (model code may patch globals) ----
  var uncurry = primordials.apply(primordials.bind, primordials.bind, [primordials.call]);
  var ObjectCtor = Object;
  var FunctionCtor = Function;
  var StringCtor = String;
  var NumberCtor = Number;
  var MapCtor = primordials.Map;
  var ObjectKeys = Object.keys;
  var ObjectGetOwnPropertyNames = Object.getOwnPropertyNames;
  var ObjectGetOwnPropertySymbols = Object.getOwnPropertySymbols;
  var ObjectGetOwnPropertyDescriptor = primordials.getOwnPropertyDescriptor;
  var ObjectGetPrototypeOf = primordials.getPrototypeOf;
  var ReflectOwnKeys = Reflect.ownKeys;
  var ReflectApply = Reflect.apply;
  var ArrayIsArray = Array.isArray;
  var JSONStringify = JSON.stringify;
  var NumberParseInt = parseInt;
  var NumberParseFloat = parseFloat;
  var NumberIsNaN = Number.isNaN;
  var MathMin = Math.min;
  var MathMax = Math.max;
  var SymbolIterator = Symbol.iterator;
  var SymbolToStringTag = primordials.toStringTag;
  var SymbolToPrimitive = Symbol.toPrimitive;
  var customInspectSymbol = Symbol.for('nodejs.util.inspect.custom');
  var ObjectPrototype = Object.prototype;
  var ArrayPrototype = Array.prototype;
  var ArrayCtor = Array;
  var FunctionPrototype = Function.prototype;

  var hasOwn = typeof Object.hasOwn === 'function' ? Object.hasOwn : uncurry(Object.prototype.hasOwnProperty);
  var propertyIsEnumerable = uncurry(Object.prototype.propertyIsEnumerable);
  var ObjectPrototypeLookupGetter = uncurry(Object.prototype.__lookupGetter__);
  var ObjectPrototypeLookupSetter = uncurry(Object.prototype.__lookupSetter__);
  var ObjectPrototypeToString = uncurry(Object.prototype.toString);
  var FunctionPrototypeToString = uncurry(Function.prototype.toString);
  var FunctionPrototypeSymbolHasInstance = uncurry(Function.prototype[Symbol.hasInstance]);
  var StringPrototypeSlice = uncurry(String.prototype.slice);
  var StringPrototypeCharCodeAt = uncurry(String.prototype.charCodeAt);
  var StringPrototypeIndexOf = uncurry(String.prototype.indexOf);
  var StringPrototypeStartsWith = uncurry(String.prototype.startsWith);
  var StringPrototypeEndsWith = uncurry(String.prototype.endsWith);
  var StringPrototypeSplit = uncurry(String.prototype.split);
  var StringPrototypeReplace = uncurry(String.prototype.replace);
  var StringPrototypeValueOf = uncurry(String.prototype.valueOf);
  var NumberPrototypeToString = uncurry(Number.prototype.toString);
  var ArrayPrototypeUnshift = uncurry(Array.prototype.unshift);
  var ArrayPrototypeSplice = uncurry(Array.prototype.splice);
  var ArrayPrototypeIndexOf = uncurry(Array.prototype.indexOf);
  var ArrayPrototypeJoin = uncurry(Array.prototype.join);
  var NumberPrototypeValueOf = uncurry(Number.prototype.valueOf);
  var BooleanPrototypeValueOf = uncurry(Boolean.prototype.valueOf);
  // A lean context (see the engine's `intrinsics`) has no Date, BigInt,
  // typed arrays or buffers; no value of theirs can exist there either.
  // The constructors a lean context lacks, as the prelude found them
  // before the program ran (never looked up by name here: in a lean
  // context the name would reach Object.prototype, which the program owns).
  var DateCtor = primordials.Date;
  var BigIntCtor = primordials.BigInt;
  var ArrayBufferCtor = primordials.ArrayBuffer;
  var DataViewCtor = primordials.DataView;
  var hasDate = DateCtor !== undefined;
  var hasBigInt = BigIntCtor !== undefined;
  var hasBuffers = ArrayBufferCtor !== undefined && primordials.Uint8Array !== undefined &&
    DataViewCtor !== undefined;
  var BigIntPrototypeValueOf = hasBigInt ? uncurry(BigIntCtor.prototype.valueOf) : undefined;
  var SymbolPrototypeValueOf = uncurry(Symbol.prototype.valueOf);
  var SymbolPrototypeToString = uncurry(Symbol.prototype.toString);
  var RegExpPrototypeExec = uncurry(RegExp.prototype.exec);
  var RegExpPrototypeToString = uncurry(RegExp.prototype.toString);
  var RegExpPrototypeSourceGetter = uncurry(ObjectGetOwnPropertyDescriptor(RegExp.prototype, 'source').get);
  var DatePrototypeGetTime = hasDate ? uncurry(DateCtor.prototype.getTime) : undefined;
  var DatePrototypeToISOString = hasDate ? uncurry(DateCtor.prototype.toISOString) : undefined;
  var DatePrototypeToString = hasDate ? uncurry(DateCtor.prototype.toString) : undefined;
  var MapPrototypeGet = uncurry(primordials.mapGet);
  var MapPrototypeSet = uncurry(primordials.mapSet);
  var MapPrototypeClear = uncurry(Map.prototype.clear);
  var MapPrototypeEntries = uncurry(Map.prototype.entries);
  var MapPrototypeGetSize = uncurry(ObjectGetOwnPropertyDescriptor(Map.prototype, 'size').get);
  var SetPrototypeValues = uncurry(Set.prototype.values);
  var SetPrototypeGetSize = uncurry(ObjectGetOwnPropertyDescriptor(Set.prototype, 'size').get);
  var MapIteratorPrototype = ObjectGetPrototypeOf(new Map().entries());
  var SetIteratorPrototype = ObjectGetPrototypeOf(new Set().values());
  var MapIteratorNext = uncurry(MapIteratorPrototype.next);
  var SetIteratorNext = uncurry(SetIteratorPrototype.next);
  var WeakMapPrototypeHas = uncurry(WeakMap.prototype.has);
  var WeakSetPrototypeHas = uncurry(WeakSet.prototype.has);
  var TypedArrayPrototype = hasBuffers ? ObjectGetPrototypeOf(primordials.Uint8Array.prototype) : undefined;
  var TypedArrayPrototypeGetSymbolToStringTag = hasBuffers ?
    uncurry(ObjectGetOwnPropertyDescriptor(TypedArrayPrototype, SymbolToStringTag).get) : undefined;
  var TypedArrayPrototypeGetLength = hasBuffers ?
    uncurry(ObjectGetOwnPropertyDescriptor(TypedArrayPrototype, 'length').get) : undefined;
  var ArrayBufferPrototypeGetByteLength = hasBuffers ?
    uncurry(ObjectGetOwnPropertyDescriptor(ArrayBufferCtor.prototype, 'byteLength').get) : undefined;
  var SharedArrayBufferPrototype = primordials.SharedArrayBuffer !== undefined ?
    primordials.SharedArrayBuffer.prototype : undefined;
  var SharedArrayBufferPrototypeGetByteLength = SharedArrayBufferPrototype !== undefined ?
    uncurry(ObjectGetOwnPropertyDescriptor(SharedArrayBufferPrototype, 'byteLength').get) : undefined;
  var DataViewPrototypeGetBuffer = hasBuffers ?
    uncurry(ObjectGetOwnPropertyDescriptor(DataViewCtor.prototype, 'buffer').get) : undefined;
  var Uint8ArrayCtor = hasBuffers ? primordials.Uint8Array : undefined;

  var AsyncFunctionPrototype = ObjectGetPrototypeOf(async function () {});
  var GeneratorFunctionPrototype = ObjectGetPrototypeOf(function* () {});
  var AsyncGeneratorFunctionPrototype = ObjectGetPrototypeOf(async function* () {});

  // Global constructor names, like Node's `builtInObjects`: a full
  // context's capitalized globals and ToolCallError, fixed (a test in the
  // engine's `intrinsics` keeps the list), so a lean context and a program's
  // new globals change nothing.
  var builtInObjects = new MapCtor();
  var BUILT_IN_NAMES = ['Object', 'Function', 'Error', 'EvalError', 'RangeError',
    'ReferenceError', 'SyntaxError', 'TypeError', 'URIError', 'InternalError', 'AggregateError',
    'Iterator', 'Array', 'Infinity', 'NaN', 'Number', 'Boolean', 'String', 'Math', 'Reflect',
    'Symbol', 'Date', 'RegExp', 'JSON', 'Proxy', 'Map', 'Set', 'WeakMap', 'WeakSet',
    'ArrayBuffer', 'SharedArrayBuffer', 'Uint8ClampedArray', 'Int8Array', 'Uint8Array',
    'Int16Array', 'Uint16Array', 'Int32Array', 'Uint32Array', 'BigInt64Array', 'BigUint64Array',
    'Float16Array', 'Float32Array', 'Float64Array', 'DataView', 'Atomics', 'Promise', 'BigInt',
    'WeakRef', 'FinalizationRegistry', 'DOMException', 'ToolCallError'];
  for (var b = 0; b < BUILT_IN_NAMES.length; b++) {
    MapPrototypeSet(builtInObjects, BUILT_IN_NAMES[b], true);
  }

  // Prototype -> kind, to find candidates for the brand checks below cheaply.
  var protoKinds = new MapCtor();
  MapPrototypeSet(protoKinds, ObjectPrototype, 'object');
  MapPrototypeSet(protoKinds, FunctionPrototype, 'object');
  MapPrototypeSet(protoKinds, Array.prototype, 'object');
  MapPrototypeSet(protoKinds, Set.prototype, 'set');
  MapPrototypeSet(protoKinds, Map.prototype, 'map');
  if (hasBuffers) MapPrototypeSet(protoKinds, TypedArrayPrototype, 'typed');
  MapPrototypeSet(protoKinds, MapIteratorPrototype, 'mapiter');
  MapPrototypeSet(protoKinds, SetIteratorPrototype, 'setiter');
  MapPrototypeSet(protoKinds, RegExp.prototype, 'regexp');
  if (hasDate) MapPrototypeSet(protoKinds, DateCtor.prototype, 'date');
  MapPrototypeSet(protoKinds, Error.prototype, 'error');
  if (hasBuffers) MapPrototypeSet(protoKinds, ArrayBufferCtor.prototype, 'arraybuffer');
  if (SharedArrayBufferPrototype !== undefined) {
    MapPrototypeSet(protoKinds, SharedArrayBufferPrototype, 'sharedarraybuffer');
  }
  if (hasBuffers) MapPrototypeSet(protoKinds, DataViewCtor.prototype, 'dataview');
  MapPrototypeSet(protoKinds, Promise.prototype, 'promise');
  MapPrototypeSet(protoKinds, WeakMap.prototype, 'weakmap');
  MapPrototypeSet(protoKinds, WeakSet.prototype, 'weakset');
  MapPrototypeSet(protoKinds, Number.prototype, 'number');
  MapPrototypeSet(protoKinds, String.prototype, 'string');
  MapPrototypeSet(protoKinds, Boolean.prototype, 'boolean');
  if (hasBigInt) MapPrototypeSet(protoKinds, BigIntCtor.prototype, 'bigint');
  MapPrototypeSet(protoKinds, Symbol.prototype, 'symbol');
  var allKinds = ['set', 'map', 'typed', 'regexp', 'date', 'error', 'arraybuffer',
    'sharedarraybuffer', 'dataview', 'promise', 'weakmap', 'weakset', 'number',
    'string', 'boolean', 'bigint', 'symbol'];

  var hooks = { promiseState: undefined, proxyDetails: undefined };

  var kObjectType = 0;
  var kArrayType = 1;
  var kArrayExtrasType = 2;
  var kMaxOutput = 65536; // characters per top-level value
  var kBudget = 60000; // stop adding entries once this much has been produced
  var kMaxProtoChain = 1000;
  var kMaxCustomDepth = 20;
  var kMaxScanLength = 1000; // longer arrays are not scanned for extra keys
  var kEllipsis = '\u2026';

  // Escapes for control characters, C1 controls, the single quote and the
  // backslash; '' for characters printed as they are.
  var meta = [];
  (function () {
    var named = { 8: '\\b', 9: '\\t', 10: '\\n', 12: '\\f', 13: '\\r', 39: "\\'", 92: '\\\\' };
    for (var i = 0; i < 160; i++) {
      if (named[i] !== undefined) {
        meta[i] = named[i];
      } else if (i < 32 || i >= 127) {
        meta[i] = '\\x' + hex2(i).toUpperCase();
      } else {
        meta[i] = '';
      }
    }
  })();
  function hex2(n) {
    var s = NumberPrototypeToString(n, 16);
    return s.length < 2 ? '0' + s : s;
  }

  // ---- type checks ----------------------------------------------------------

  function brandCheck(kind, value) {
    try {
      switch (kind) {
        case 'set': SetPrototypeGetSize(value); return true;
        case 'map': MapPrototypeGetSize(value); return true;
        case 'typed': return hasBuffers && TypedArrayPrototypeGetSymbolToStringTag(value) !== undefined;
        case 'regexp':
          if (value === RegExp.prototype) return false;
          RegExpPrototypeSourceGetter(value);
          return true;
        case 'date': if (!hasDate) return false; DatePrototypeGetTime(value); return true;
        case 'error': return ObjectPrototypeToString(value) === '[object Error]';
        case 'arraybuffer': if (!hasBuffers) return false; ArrayBufferPrototypeGetByteLength(value); return true;
        case 'sharedarraybuffer':
          if (SharedArrayBufferPrototypeGetByteLength === undefined) return false;
          SharedArrayBufferPrototypeGetByteLength(value);
          return true;
        case 'dataview': if (!hasBuffers) return false; DataViewPrototypeGetBuffer(value); return true;
        case 'promise':
          if (typeof hooks.promiseState === 'function') {
            return hooks.promiseState(value) !== undefined;
          }
          return ObjectPrototypeToString(value) === '[object Promise]';
        case 'weakmap': WeakMapPrototypeHas(value, value); return true;
        case 'weakset': WeakSetPrototypeHas(value, value); return true;
        case 'number': NumberPrototypeValueOf(value); return true;
        case 'string': StringPrototypeValueOf(value); return true;
        case 'boolean': BooleanPrototypeValueOf(value); return true;
        case 'bigint': if (!hasBigInt) return false; BigIntPrototypeValueOf(value); return true;
        case 'symbol': SymbolPrototypeValueOf(value); return true;
        case 'mapiter': case 'setiter': return true;
      }
    } catch (e) {
      // not of this kind
    }
    return false;
  }

  // The built-in kind of an object ('' for ordinary objects), found through
  // its prototype chain and confirmed by a brand check.
  function getKind(value) {
    var proto = ObjectGetPrototypeOf(value);
    for (var n = 0; proto !== null && n < kMaxProtoChain; n++) {
      var kind = MapPrototypeGet(protoKinds, proto);
      if (kind !== undefined) {
        if (kind === 'object') return '';
        return brandCheck(kind, value) ? kind : '';
      }
      proto = ObjectGetPrototypeOf(proto);
    }
    if (proto !== null) return '';
    // A chain without any built-in prototype: try every kind.
    for (var i = 0; i < allKinds.length; i++) {
      if (brandCheck(allKinds[i], value)) return allKinds[i];
    }
    return '';
  }

  function isInstanceof(object, proto) {
    try {
      return object instanceof proto;
    } catch (e) {
      return false;
    }
  }

  // V8's internal constructor name, approximated.
  function internalGetConstructorName(value) {
    if (typeof value === 'function') return 'Function';
    if (ArrayIsArray(value)) return 'Array';
    return 'Object';
  }

  function getConstructorName(obj, ctx, recurseTimes, protoProps) {
    // Fast path for plain objects and arrays (what Node's walk below finds).
    if (protoProps === undefined) {
      var proto = ObjectGetPrototypeOf(obj);
      if ((proto === ObjectPrototype || proto === ArrayPrototype) && !hasOwn(obj, 'constructor')) {
        if (proto === ObjectPrototype) return 'Object';
        if (ArrayPrototype.constructor === ArrayCtor) return 'Array';
      }
    }
    var firstProto;
    var tmp = obj;
    for (var n = 0; obj && n < kMaxProtoChain; n++) {
      if (obj === ObjectPrototype || obj === FunctionPrototype) {
        var wellKnown = obj === ObjectPrototype ? ObjectCtor : FunctionCtor;
        if (FunctionPrototypeSymbolHasInstance(wellKnown, tmp)) {
          if (protoProps !== undefined && firstProto !== obj) {
            addPrototypeProperties(ctx, tmp, firstProto || tmp, recurseTimes, protoProps);
          }
          return obj === ObjectPrototype ? 'Object' : 'Function';
        }
      }
      var descriptor = ObjectGetOwnPropertyDescriptor(obj, 'constructor');
      if (descriptor !== undefined &&
          typeof descriptor.value === 'function' &&
          descriptor.value.name !== '' &&
          isInstanceof(tmp, descriptor.value)) {
        if (protoProps !== undefined &&
            (firstProto !== obj || !MapPrototypeGet(builtInObjects, descriptor.value.name))) {
          addPrototypeProperties(ctx, tmp, firstProto || tmp, recurseTimes, protoProps);
        }
        return StringCtor(descriptor.value.name);
      }
      obj = ObjectGetPrototypeOf(obj);
      if (firstProto === undefined) {
        firstProto = obj;
      }
    }
    if (firstProto === null) {
      return null;
    }
    var res = internalGetConstructorName(tmp);
    if (recurseTimes > ctx.depth) {
      return res + ' <Complex prototype>';
    }
    var protoConstr = getConstructorName(firstProto, ctx, recurseTimes + 1, protoProps);
    if (protoConstr === null) {
      var sub = newContext({ depth: -1, showHidden: ctx.showHidden, customInspect: false });
      var protoStr = formatValue(sub, firstProto, 0);
      releaseContext(sub);
      return res + ' <' + protoStr + '>';
    }
    return res + ' <' + protoConstr + '>';
  }

  // Node's showHidden extra: non-function properties of user prototypes.
  function addPrototypeProperties(ctx, main, obj, recurseTimes, output) {
    var depth = 0;
    var keys;
    var keySet;
    do {
      if (depth !== 0 || main === obj) {
        obj = ObjectGetPrototypeOf(obj);
        if (obj === null) {
          return;
        }
        var descriptor = ObjectGetOwnPropertyDescriptor(obj, 'constructor');
        if (descriptor !== undefined &&
            typeof descriptor.value === 'function' &&
            MapPrototypeGet(builtInObjects, descriptor.value.name)) {
          return;
        }
      }
      if (depth === 0) {
        keySet = new MapCtor();
      } else {
        for (var k = 0; k < keys.length; k++) MapPrototypeSet(keySet, keys[k], true);
      }
      keys = ReflectOwnKeys(obj);
      ctx.seen[ctx.seen.length] = main;
      for (var i = 0; i < keys.length; i++) {
        var key = keys[i];
        if (key === 'constructor' || hasOwn(main, key) ||
            (depth !== 0 && MapPrototypeGet(keySet, key))) {
          continue;
        }
        var desc = ObjectGetOwnPropertyDescriptor(obj, key);
        if (typeof desc.value === 'function') {
          continue;
        }
        output[output.length] = formatProperty(ctx, obj, recurseTimes, key, kObjectType, desc, main);
      }
      ctx.seen.length--;
    } while (++depth !== 3);
  }

  function getPrefix(constructor, tag, fallback, size) {
    if (size === undefined) size = '';
    if (constructor === null) {
      if (tag !== '' && fallback !== tag) {
        return '[' + fallback + size + ': null prototype] [' + tag + '] ';
      }
      return '[' + fallback + size + ': null prototype] ';
    }
    if (tag !== '' && constructor !== tag) {
      return constructor + size + ' [' + tag + '] ';
    }
    return constructor + size + ' ';
  }

  function getKeys(value, showHidden) {
    var keys;
    var symbols = ObjectGetOwnPropertySymbols(value);
    var i;
    if (showHidden) {
      keys = ObjectGetOwnPropertyNames(value);
      for (i = 0; i < symbols.length; i++) keys[keys.length] = symbols[i];
    } else {
      keys = ObjectKeys(value);
      for (i = 0; i < symbols.length; i++) {
        if (propertyIsEnumerable(value, symbols[i])) keys[keys.length] = symbols[i];
      }
    }
    return keys;
  }

  function isArrayIndex(key) {
    // /^(0|[1-9][0-9]*)$/ and below 2 ** 32 - 1
    var len = key.length;
    if (len === 0 || len > 10) return false;
    var c = StringPrototypeCharCodeAt(key, 0);
    if (c === 48) return len === 1;
    for (var i = 0; i < len; i++) {
      c = StringPrototypeCharCodeAt(key, i);
      if (c < 48 || c > 57) return false;
    }
    return +key < 4294967295;
  }

  // Own keys of an array or typed array that are not indices. Integer keys
  // always come first in own-key order, so only the tail of the key list is
  // examined. Beyond kMaxScanLength items only symbol keys are looked for.
  function getOwnNonIndexProperties(value, showHidden, length) {
    var keys = [];
    var i;
    if (length <= kMaxScanLength) {
      var names = showHidden ? ObjectGetOwnPropertyNames(value) : ObjectKeys(value);
      var start = names.length;
      // Dense without extra keys: the last key is the last index.
      if (start !== length || (start !== 0 && names[start - 1] !== '' + (start - 1))) {
        while (start > 0 && !isArrayIndex(names[start - 1])) start--;
        for (i = start; i < names.length; i++) keys[keys.length] = names[i];
      }
    }
    var symbols = ObjectGetOwnPropertySymbols(value);
    for (i = 0; i < symbols.length; i++) {
      if (showHidden || propertyIsEnumerable(value, symbols[i])) keys[keys.length] = symbols[i];
    }
    return keys;
  }

  function getCtxStyle(value, constructor, tag) {
    var fallback = '';
    if (constructor === null) {
      fallback = internalGetConstructorName(value);
      if (fallback === tag) {
        fallback = 'Object';
      }
    }
    return getPrefix(constructor, tag, fallback);
  }

  // ---- strings and numbers --------------------------------------------------

  function includes(str, sub) {
    return StringPrototypeIndexOf(str, sub) !== -1;
  }

  // Node's strEscape: prefer single quotes, fall back to double quotes or
  // backticks; escape control characters, C1 controls, lone surrogates, the
  // backslash and (when single-quoted) the single quote.
  function strEscape(str) {
    // Fast path: nothing to escape and no single quote.
    if (RegExpPrototypeExec(strNeedsWorkRegExp, str) === null) {
      return "'" + str + "'";
    }
    var quote = 39;
    if (includes(str, "'")) {
      if (!includes(str, '"')) {
        quote = 34;
      } else if (!includes(str, '`') && !includes(str, '${')) {
        quote = 96;
      }
    }
    var body = escapeBody(str, quote === 39);
    if (quote === 34) return '"' + body + '"';
    if (quote === 96) return '`' + body + '`';
    return "'" + body + "'";
  }

  // Characters that need an escape, or a closer look at the quotes.
  var strNeedsWorkRegExp = /[\x00-\x1f\x27\x5c\x7f-\x9f\ud800-\udfff]/;
  // Characters to escape; lone surrogates only (pairs are printed as is).
  var strEscapeRegExp = /[\x00-\x1f\x27\x5c\x7f-\x9f]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;
  var strEscapeRegExpNoQuote = /[\x00-\x1f\x5c\x7f-\x9f]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

  function escapeBody(str, escapeSingleQuote) {
    var re = escapeSingleQuote ? strEscapeRegExp : strEscapeRegExpNoQuote;
    var result = '';
    var last = 0;
    var match;
    re.lastIndex = 0;
    while ((match = RegExpPrototypeExec(re, str)) !== null) {
      var i = match.index;
      var point = StringPrototypeCharCodeAt(str, i);
      result += StringPrototypeSlice(str, last, i) +
        (point < 160 ? meta[point] : '\\u' + NumberPrototypeToString(point, 16));
      last = i + 1;
    }
    if (last === 0) return str;
    if (last !== str.length) {
      result += StringPrototypeSlice(str, last);
    }
    return result;
  }

  function formatNumber(number) {
    if (number === 0 && 1 / number < 0) {
      return '-0';
    }
    return '' + number;
  }

  function formatBigInt(bigint) {
    return StringCtor(bigint) + 'n';
  }

  function formatPrimitive(value, ctx) {
    var out;
    var type = typeof value;
    if (type === 'number') {
      out = value === 0 && 1 / value < 0 ? '-0' : '' + value;
      ctx.budget += out.length;
      return out;
    }
    switch (type) {
      case 'string': {
        var trailer = '';
        if (value.length > ctx.maxStringLength) {
          var remaining = value.length - ctx.maxStringLength;
          value = StringPrototypeSlice(value, 0, ctx.maxStringLength);
          trailer = '... ' + remaining + ' more character' + (remaining > 1 ? 's' : '');
        }
        out = strEscape(value) + trailer;
        break;
      }
      case 'bigint': out = formatBigInt(value); break;
      case 'boolean': out = value ? 'true' : 'false'; break;
      case 'undefined': out = 'undefined'; break;
      default: out = SymbolPrototypeToString(value); break;
    }
    ctx.budget += out.length;
    return out;
  }

  function errorMessage(err) {
    try {
      var m = err !== null && typeof err === 'object' ? err.message : err;
      return typeof m === 'string' ? m : StringCtor(m);
    } catch (e) {
      return 'unknown error';
    }
  }

  // ---- values ---------------------------------------------------------------

  // Contexts are reused (allocating one costs more than formatting a small
  // value); a custom inspect function calling inspect() gets a fresh one.
  var contextPool = [];

  function newContext(opts) {
    var ctx;
    if (contextPool.length > 0) {
      ctx = contextPool[contextPool.length - 1];
      contextPool.length--;
      ctx.budget = 0;
      ctx.stopped = false;
      ctx.customDepth = 0;
      if (ctx.custom) {
        ctx.custom = false;
        ctx.depth = 2;
        ctx.showHidden = false;
        ctx.showProxy = false;
        ctx.customInspect = true;
        ctx.maxArrayLength = 100;
        ctx.maxStringLength = 10000;
      }
    } else {
      ctx = {
        budget: 0,
        stopped: false,
        customDepth: 0,
        seen: [],
        circular: undefined,
        depth: 2,
        showHidden: false,
        showProxy: false,
        customInspect: true,
        maxArrayLength: 100,
        maxStringLength: 10000,
        custom: false,
      };
    }
    if (opts) {
      ctx.custom = true;
      if (opts.depth !== undefined) ctx.depth = opts.depth === null ? Infinity : opts.depth;
      if (opts.showHidden !== undefined) ctx.showHidden = !!opts.showHidden;
      if (opts.showProxy !== undefined) ctx.showProxy = !!opts.showProxy;
      if (opts.customInspect !== undefined) ctx.customInspect = !!opts.customInspect;
      if (opts.maxArrayLength !== undefined) {
        ctx.maxArrayLength = opts.maxArrayLength === null ? Infinity : opts.maxArrayLength;
      }
      if (opts.maxStringLength !== undefined) {
        ctx.maxStringLength = opts.maxStringLength === null ? Infinity : opts.maxStringLength;
      }
    }
    return ctx;
  }

  function releaseContext(ctx) {
    if (contextPool.length < 4) {
      ctx.seen.length = 0;
      ctx.circular = undefined;
      contextPool[contextPool.length] = ctx;
    }
  }

  // For primitives at the top level (only maxStringLength matters).
  var primitiveContext = { budget: 0, maxStringLength: 10000 };

  // [target, handler], null for a revoked proxy, undefined otherwise.
  function getProxyDetails(value) {
    if (typeof hooks.proxyDetails === 'function') {
      return hooks.proxyDetails(value);
    }
    try {
      ArrayIsArray(value);
    } catch (e) {
      return null;
    }
    return undefined;
  }

  function formatValue(ctx, value, recurseTimes, typedArray) {
    if (typeof value !== 'object' && typeof value !== 'function') {
      return formatPrimitive(value, ctx);
    }
    if (value === null) {
      ctx.budget += 4;
      return 'null';
    }
    var seenLength = ctx.seen.length;
    try {
      var context = value;
      var proxy = hooks.proxyDetails !== undefined ? getProxyDetails(value) : undefined;
      if (proxy !== undefined) {
        if (proxy === null || proxy[0] === null) {
          return '<Revoked Proxy>';
        }
        if (ctx.showProxy) {
          return formatProxy(ctx, proxy, recurseTimes);
        }
        value = proxy[0];
      }

      if (ctx.customInspect) {
        var maybeCustom = value[customInspectSymbol];
        if (typeof maybeCustom === 'function' &&
            maybeCustom !== inspect &&
            !(value.constructor && value.constructor.prototype === value)) {
          var depth = ctx.depth - recurseTimes;
          var options = {
            depth: depth,
            showHidden: ctx.showHidden,
            showProxy: ctx.showProxy,
            customInspect: true,
            colors: false,
            maxArrayLength: ctx.maxArrayLength,
            maxStringLength: ctx.maxStringLength,
            breakLength: Infinity,
            compact: 3,
            sorted: false,
            getters: false,
            numericSeparator: false,
            stylize: stylizeNoColor,
          };
          var ret = ReflectApply(maybeCustom, context, [depth, options, inspect]);
          if (ret !== context) {
            if (typeof ret !== 'string') {
              // A custom inspector may hand back another value with one.
              if (ctx.customDepth >= kMaxCustomDepth) {
                throw new Error('custom inspect nested too deeply');
              }
              ctx.customDepth++;
              var res = formatValue(ctx, ret, recurseTimes);
              ctx.customDepth--;
              return res;
            }
            ctx.budget += ret.length;
            return ret;
          }
        }
      }

      for (var i = 0; i < ctx.seen.length; i++) {
        if (ctx.seen[i] === value) {
          var index = 1;
          if (ctx.circular === undefined) {
            ctx.circular = new MapCtor();
            MapPrototypeSet(ctx.circular, value, index);
          } else {
            index = MapPrototypeGet(ctx.circular, value);
            if (index === undefined) {
              index = MapPrototypeGetSize(ctx.circular) + 1;
              MapPrototypeSet(ctx.circular, value, index);
            }
          }
          return '[Circular *' + index + ']';
        }
      }

      if (!ctx.showHidden) {
        var plain = formatPlain(ctx, value, recurseTimes);
        if (plain !== undefined) return plain;
      }
      return formatRaw(ctx, value, recurseTimes, typedArray);
    } catch (err) {
      ctx.seen.length = seenLength;
      // Without host help a revoked proxy shows up here: every operation on
      // it throws, IsArray included (and IsArray throws for nothing else).
      try {
        ArrayIsArray(value);
      } catch (e) {
        return '<Revoked Proxy>';
      }
      return '<Inspection threw (' + errorMessage(err) + ')>';
    }
  }

  function stylizeNoColor(str) {
    return str;
  }

  function formatProxy(ctx, proxy, recurseTimes) {
    if (recurseTimes > ctx.depth) {
      return 'Proxy [Array]';
    }
    recurseTimes += 1;
    var res = [
      formatValue(ctx, proxy[0], recurseTimes),
      formatValue(ctx, proxy[1], recurseTimes),
    ];
    return reduceToSingleString(res, '', ['Proxy [', ']']);
  }

  // Fast path for the common case: an object with Object.prototype or a
  // dense array with Array.prototype as its prototype, no own `constructor`,
  // no symbol keys, no extra array keys and no Symbol.toStringTag. Gives
  // what formatRaw gives for them, or undefined to fall back to formatRaw.
  function formatPlain(ctx, value, recurseTimes) {
    var proto = ObjectGetPrototypeOf(value);
    var isArray;
    if (proto === ObjectPrototype) {
      isArray = false;
    } else if (proto === ArrayPrototype && ArrayIsArray(value) &&
               ArrayPrototype.constructor === ArrayCtor) {
      isArray = true;
    } else {
      return undefined;
    }
    if (hasOwn(value, 'constructor') || value[SymbolToStringTag] !== undefined ||
        ObjectGetOwnPropertySymbols(value).length !== 0) {
      return undefined;
    }
    var keys;
    var output;
    var i;
    if (isArray) {
      var length = value.length;
      if (length > kMaxScanLength) return undefined;
      keys = ObjectKeys(value);
      if (keys.length !== length || (length !== 0 && keys[length - 1] !== '' + (length - 1))) {
        return undefined; // holes or extra keys
      }
      if (length === 0) return '[]';
      if (recurseTimes > ctx.depth) return '[Array]';
      ctx.seen[ctx.seen.length] = value;
      output = formatArray(ctx, value, recurseTimes + 1);
    } else {
      keys = ObjectKeys(value);
      if (keys.length === 0) return '{}';
      if (recurseTimes > ctx.depth) return '[Object]';
      ctx.seen[ctx.seen.length] = value;
      output = [];
      for (i = 0; i < keys.length; i++) {
        if (ctx.budget > kBudget) {
          pushEllipsis(ctx, output);
          break;
        }
        output[i] = formatProperty(ctx, value, recurseTimes + 1, keys[i], kObjectType, undefined, undefined, true);
      }
    }
    ctx.seen.length--;
    var open = isArray ? '[ ' : '{ ';
    var close = isArray ? ' ]' : ' }';
    if (ctx.circular !== undefined) {
      var index = MapPrototypeGet(ctx.circular, value);
      if (index !== undefined) {
        open = '<ref *' + index + '> ' + open;
      }
    }
    return open + ArrayPrototypeJoin(output, ', ') + close;
  }

  function formatRaw(ctx, value, recurseTimes, typedArray) {
    var keys;
    var protoProps;
    if (ctx.showHidden && recurseTimes <= ctx.depth) {
      protoProps = [];
    }
    var constructor = getConstructorName(value, ctx, recurseTimes, protoProps);
    if (protoProps !== undefined && protoProps.length === 0) {
      protoProps = undefined;
    }

    var tag = value[SymbolToStringTag];
    if (typeof tag !== 'string' ||
        (tag !== '' && (ctx.showHidden ? hasOwn : propertyIsEnumerable)(value, SymbolToStringTag))) {
      tag = '';
    }
    var base = '';
    var formatter;
    var braces;
    var noIterator = true;
    var extrasType = kObjectType;
    var kind;
    var size;
    var prefix;
    // Keys are own enumerable ones unless showHidden or added below.
    var fastKeys = !ctx.showHidden;

    var noIteratorInitially = !(SymbolIterator in value || constructor === null);
    if (!noIteratorInitially) {
      noIterator = false;
      if (ArrayIsArray(value)) {
        var length = value.length;
        prefix = (constructor !== 'Array' || tag !== '') ?
          getPrefix(constructor, tag, 'Array', '(' + length + ')') : '';
        keys = getOwnNonIndexProperties(value, ctx.showHidden, length);
        braces = [prefix + '[', ']'];
        if (length === 0 && keys.length === 0 && protoProps === undefined) {
          return braces[0] + ']';
        }
        extrasType = kArrayExtrasType;
        formatter = formatArray;
      } else if ((kind = getKind(value)) === 'set') {
        size = SetPrototypeGetSize(value);
        prefix = getPrefix(constructor, tag, 'Set', '(' + size + ')');
        keys = getKeys(value, ctx.showHidden);
        formatter = formatSet;
        if (size === 0 && keys.length === 0 && protoProps === undefined) {
          return prefix + '{}';
        }
        braces = [prefix + '{', '}'];
      } else if (kind === 'map') {
        size = MapPrototypeGetSize(value);
        prefix = getPrefix(constructor, tag, 'Map', '(' + size + ')');
        keys = getKeys(value, ctx.showHidden);
        formatter = formatMap;
        if (size === 0 && keys.length === 0 && protoProps === undefined) {
          return prefix + '{}';
        }
        braces = [prefix + '{', '}'];
      } else if (kind === 'typed') {
        size = TypedArrayPrototypeGetLength(value);
        keys = getOwnNonIndexProperties(value, ctx.showHidden, size);
        var fallback = '';
        if (constructor === null) {
          fallback = TypedArrayPrototypeGetSymbolToStringTag(value);
        }
        prefix = getPrefix(constructor, tag, fallback, '(' + size + ')');
        braces = [prefix + '[', ']'];
        if (size === 0 && keys.length === 0 && !ctx.showHidden) {
          return braces[0] + ']';
        }
        formatter = formatTypedArray;
        extrasType = kArrayExtrasType;
      } else if (kind === 'mapiter' || kind === 'setiter') {
        keys = getKeys(value, ctx.showHidden);
        braces = getIteratorBraces(kind === 'mapiter' ? 'Map' : 'Set', tag);
        formatter = formatWeakCollection;
      } else {
        noIterator = true;
      }
    }
    if (noIterator) {
      keys = getKeys(value, ctx.showHidden);
      braces = ['{', '}'];
      if (typeof value === 'function') {
        base = getFunctionBase(value, constructor, tag);
        if (keys.length === 0 && protoProps === undefined) {
          return base;
        }
      } else if (constructor === 'Object') {
        if (!noIteratorInitially && ObjectPrototypeToString(value) === '[object Arguments]') {
          braces[0] = '[Arguments] {';
        } else if (tag !== '') {
          braces[0] = getPrefix(constructor, tag, 'Object') + '{';
        }
        if (keys.length === 0 && protoProps === undefined) {
          return braces[0] + '}';
        }
      } else if ((kind === undefined ? (kind = getKind(value)) : kind) === 'regexp') {
        base = RegExpPrototypeToString(value);
        prefix = getPrefix(constructor, tag, 'RegExp');
        if (prefix !== 'RegExp ') base = prefix + base;
        if ((keys.length === 0 && protoProps === undefined) || recurseTimes > ctx.depth) {
          return base;
        }
      } else if (kind === 'date') {
        base = NumberIsNaN(DatePrototypeGetTime(value)) ?
          DatePrototypeToString(value) :
          DatePrototypeToISOString(value);
        prefix = getPrefix(constructor, tag, 'Date');
        if (prefix !== 'Date ') base = prefix + base;
        if (keys.length === 0 && protoProps === undefined) {
          return base;
        }
      } else if (kind === 'error') {
        base = formatError(value, constructor, tag, ctx, keys);
        fastKeys = false;
        if (keys.length === 0 && protoProps === undefined) {
          return base;
        }
      } else if (kind === 'arraybuffer' || kind === 'sharedarraybuffer') {
        var arrayType = kind === 'arraybuffer' ? 'ArrayBuffer' : 'SharedArrayBuffer';
        prefix = getPrefix(constructor, tag, arrayType);
        if (typedArray === undefined) {
          formatter = formatArrayBuffer;
        } else if (keys.length === 0 && protoProps === undefined) {
          return prefix + '{ byteLength: ' + formatNumber(value.byteLength) + ' }';
        }
        braces[0] = prefix + '{';
        ArrayPrototypeUnshift(keys, 'byteLength');
        fastKeys = false;
      } else if (kind === 'dataview') {
        braces[0] = getPrefix(constructor, tag, 'DataView') + '{';
        ArrayPrototypeUnshift(keys, 'byteLength', 'byteOffset', 'buffer');
        fastKeys = false;
      } else if (kind === 'promise') {
        braces[0] = getPrefix(constructor, tag, 'Promise') + '{';
        formatter = formatPromise;
      } else if (kind === 'weakset') {
        braces[0] = getPrefix(constructor, tag, 'WeakSet') + '{';
        formatter = formatWeakCollection;
      } else if (kind === 'weakmap') {
        braces[0] = getPrefix(constructor, tag, 'WeakMap') + '{';
        formatter = formatWeakCollection;
      } else if (kind === 'number' || kind === 'string' || kind === 'boolean' ||
                 kind === 'bigint' || kind === 'symbol') {
        base = getBoxedBase(value, ctx, keys, constructor, tag, kind);
        if (keys.length === 0 && protoProps === undefined) {
          return base;
        }
      } else {
        if (keys.length === 0 && protoProps === undefined) {
          return getCtxStyle(value, constructor, tag) + '{}';
        }
        braces[0] = getCtxStyle(value, constructor, tag) + '{';
      }
    }

    if (recurseTimes > ctx.depth) {
      var constructorName = StringPrototypeSlice(getCtxStyle(value, constructor, tag), 0, -1);
      if (constructor !== null) constructorName = '[' + constructorName + ']';
      return constructorName;
    }
    recurseTimes += 1;

    ctx.seen[ctx.seen.length] = value;
    var output = formatter === undefined ? [] : formatter(ctx, value, recurseTimes);
    for (var i = 0; i < keys.length; i++) {
      if (ctx.budget > kBudget) {
        if (!ctx.stopped || output.length === 0 || output[output.length - 1] !== kEllipsis) {
          output[output.length] = kEllipsis;
        }
        ctx.stopped = true;
        break;
      }
      output[output.length] = formatProperty(ctx, value, recurseTimes, keys[i], extrasType, undefined, undefined, fastKeys);
    }
    if (protoProps !== undefined) {
      for (var j = 0; j < protoProps.length; j++) output[output.length] = protoProps[j];
    }
    if (ctx.circular !== undefined) {
      var index = MapPrototypeGet(ctx.circular, value);
      if (index !== undefined) {
        var reference = '<ref *' + index + '>';
        base = base === '' ? reference : reference + ' ' + base;
      }
    }
    ctx.seen.length--;
    return reduceToSingleString(output, base, braces);
  }

  function getIteratorBraces(type, tag) {
    if (tag !== type + ' Iterator') {
      if (tag !== '') tag += '] [';
      tag += type + ' Iterator';
    }
    return ['[' + tag + '] {', '}'];
  }

  function getBoxedBase(value, ctx, keys, constructor, tag, kind) {
    var type;
    var primitive;
    if (kind === 'number') {
      type = 'Number';
      primitive = NumberPrototypeValueOf(value);
    } else if (kind === 'string') {
      type = 'String';
      primitive = StringPrototypeValueOf(value);
      // Drop the index keys of the boxed string.
      ArrayPrototypeSplice(keys, 0, primitive.length);
    } else if (kind === 'boolean') {
      type = 'Boolean';
      primitive = BooleanPrototypeValueOf(value);
    } else if (kind === 'bigint') {
      type = 'BigInt';
      primitive = BigIntPrototypeValueOf(value);
    } else {
      type = 'Symbol';
      primitive = SymbolPrototypeValueOf(value);
    }
    var base = '[' + type;
    if (type !== constructor) {
      if (constructor === null) {
        base += ' (null prototype)';
      } else {
        base += ' (' + constructor + ')';
      }
    }
    base += ': ' + formatPrimitive(primitive, primitiveContext) + ']';
    if (tag !== '' && tag !== constructor) {
      base += ' [' + tag + ']';
    }
    return base;
  }

  function getClassBase(value, constructor, tag) {
    var hasName = hasOwn(value, 'name');
    var name = (hasName && value.name) || '(anonymous)';
    var base = 'class ' + name;
    if (constructor !== 'Function' && constructor !== null) {
      base += ' [' + constructor + ']';
    }
    if (tag !== '' && constructor !== tag) {
      base += ' [' + tag + ']';
    }
    if (constructor !== null) {
      var superName = ObjectGetPrototypeOf(value).name;
      if (superName) {
        base += ' extends ' + superName;
      }
    } else {
      base += ' extends [null prototype]';
    }
    return '[' + base + ']';
  }

  var classRegExp = /^(\s+[^(]*?)\s*{/;
  var stripCommentsRegExp = /(\/\/.*?\n)|(\/\*(.|\n)*?\*\/)/g;

  function getFunctionBase(value, constructor, tag) {
    var stringified = '';
    try {
      stringified = FunctionPrototypeToString(value);
    } catch (e) {
      // not a real function (e.g. a callable proxy)
    }
    if (StringPrototypeStartsWith(stringified, 'class') && StringPrototypeEndsWith(stringified, '}')) {
      var slice = StringPrototypeSlice(stringified, 5, -1);
      var bracketIndex = StringPrototypeIndexOf(slice, '{');
      if (bracketIndex !== -1 &&
          (!includes(StringPrototypeSlice(slice, 0, bracketIndex), '(') ||
          RegExpPrototypeExec(classRegExp, StringPrototypeReplace(slice, stripCommentsRegExp, '')) !== null)) {
        return getClassBase(value, constructor, tag);
      }
    }
    var type = 'Function';
    var proto = ObjectGetPrototypeOf(value);
    if (proto === GeneratorFunctionPrototype) {
      type = 'GeneratorFunction';
    } else if (proto === AsyncFunctionPrototype) {
      type = 'AsyncFunction';
    } else if (proto === AsyncGeneratorFunctionPrototype) {
      type = 'AsyncGeneratorFunction';
    }
    var base = '[' + type;
    if (constructor === null) {
      base += ' (null prototype)';
    }
    var name = value.name;
    if (name === '') {
      base += ' (anonymous)';
    } else {
      base += ': ' + (typeof name === 'symbol' ? SymbolPrototypeToString(name) : name);
    }
    base += ']';
    if (constructor !== type && constructor !== null) {
      base += ' ' + constructor;
    }
    if (tag !== '' && constructor !== tag) {
      base += ' [' + tag + ']';
    }
    return base;
  }

  // The first line V8 would put in `stack`, computed now.
  function errorHeader(err) {
    var name = err.name;
    name = name === undefined ? 'Error' : StringCtor(name);
    var msg = err.message;
    msg = msg === undefined ? '' : StringCtor(msg);
    if (name === '') return msg;
    if (msg === '') return name;
    return name + ': ' + msg;
  }

  function improveStack(stack, constructor, name, tag) {
    var len = name.length;
    if (constructor === null ||
        (StringPrototypeEndsWith(name, 'Error') &&
         StringPrototypeStartsWith(stack, name) &&
         (stack.length === len || stack[len] === ':' || stack[len] === '\n'))) {
      var fallback = 'Error';
      if (constructor === null) {
        var start = RegExpPrototypeExec(/^([A-Z][a-z_ A-Z0-9[\]()-]+)(?::|\n {4}at)/, stack) ||
          RegExpPrototypeExec(/^([a-z_A-Z0-9-]*Error)$/, stack);
        fallback = (start && start[1]) || '';
        len = fallback.length;
        fallback = fallback || 'Error';
      }
      var prefix = StringPrototypeSlice(getPrefix(constructor, tag, fallback), 0, -1);
      if (name !== prefix) {
        if (includes(prefix, name)) {
          if (len === 0) {
            stack = prefix + ': ' + stack;
          } else {
            stack = prefix + StringPrototypeSlice(stack, len);
          }
        } else {
          stack = prefix + ' [' + name + ']' + StringPrototypeSlice(stack, len);
        }
      }
    }
    return stack;
  }

  function removeDuplicateErrorKeys(ctx, keys, err, stack) {
    if (!ctx.showHidden && keys.length !== 0) {
      var names = ['name', 'message', 'stack'];
      for (var n = 0; n < names.length; n++) {
        var index = ArrayPrototypeIndexOf(keys, names[n]);
        if (index !== -1 && includes(stack, StringCtor(err[names[n]]))) {
          ArrayPrototypeSplice(keys, index, 1);
        }
      }
    }
  }

  function formatError(err, constructor, tag, ctx, keys) {
    var name = err.name != null ? StringCtor(err.name) : 'Error';
    var stack = errorHeader(err);
    removeDuplicateErrorKeys(ctx, keys, err, stack);
    if ('cause' in err && (keys.length === 0 || ArrayPrototypeIndexOf(keys, 'cause') === -1)) {
      keys[keys.length] = 'cause';
    }
    if (ArrayIsArray(err.errors) && (keys.length === 0 || ArrayPrototypeIndexOf(keys, 'errors') === -1)) {
      keys[keys.length] = 'errors';
    }
    stack = improveStack(stack, constructor, name, tag);
    return '[' + stack + ']';
  }

  var remainingText = function (remaining) {
    return '... ' + remaining + ' more item' + (remaining > 1 ? 's' : '');
  };

  function pushEllipsis(ctx, output) {
    output[output.length] = kEllipsis;
    ctx.stopped = true;
  }

  // The array is sparse and/or has extra keys.
  function formatSpecialArray(ctx, value, recurseTimes, maxLength, output, i) {
    var keys = ObjectKeys(value);
    var index = i;
    for (; i < keys.length && output.length < maxLength; i++) {
      if (ctx.budget > kBudget) {
        pushEllipsis(ctx, output);
        return output;
      }
      var key = keys[i];
      var tmp = +key;
      if (tmp > 4294967294) {
        break;
      }
      if ('' + index !== key) {
        if (!isArrayIndex(key)) {
          break;
        }
        var emptyItems = tmp - index;
        output[output.length] = '<' + emptyItems + ' empty item' + (emptyItems > 1 ? 's' : '') + '>';
        index = tmp;
        if (output.length === maxLength) {
          break;
        }
      }
      output[output.length] = formatProperty(ctx, value, recurseTimes, key, kArrayType, undefined, undefined, true);
      index++;
    }
    var remaining = value.length - index;
    if (output.length !== maxLength) {
      if (remaining > 0) {
        output[output.length] = '<' + remaining + ' empty item' + (remaining > 1 ? 's' : '') + '>';
      }
    } else if (remaining > 0) {
      output[output.length] = remainingText(remaining);
    }
    return output;
  }

  function formatArrayBuffer(ctx, value) {
    var buffer;
    try {
      buffer = new Uint8ArrayCtor(value);
    } catch (e) {
      return ['(detached)'];
    }
    var len = MathMin(ctx.maxArrayLength, buffer.length);
    var str = '';
    for (var i = 0; i < len; i++) {
      str += (i === 0 ? '' : ' ') + hex2(buffer[i]);
    }
    var remaining = buffer.length - ctx.maxArrayLength;
    if (remaining > 0) {
      str += ' ... ' + remaining + ' more byte' + (remaining > 1 ? 's' : '');
    }
    ctx.budget += str.length;
    return ['[Uint8Contents]: <' + str + '>'];
  }

  function formatArray(ctx, value, recurseTimes) {
    var valLen = value.length;
    var len = MathMin(MathMax(0, ctx.maxArrayLength), valLen);
    var remaining = valLen - len;
    var output = [];
    for (var i = 0; i < len; i++) {
      if (ctx.budget > kBudget) {
        pushEllipsis(ctx, output);
        return output;
      }
      // Inlined formatProperty: a data element needs one getter lookup and
      // one read; only `undefined` needs the own-property check (a value
      // inherited from Array.prototype for a hole is taken as the element).
      var str;
      if (ObjectPrototypeLookupGetter(value, i) === undefined) {
        var v = value[i];
        if (v === undefined) {
          if (!hasOwn(value, i)) {
            return formatSpecialArray(ctx, value, recurseTimes, len, output, i);
          }
          str = ObjectPrototypeLookupSetter(value, i) !== undefined ? '[Setter]' : 'undefined';
        } else if (typeof v === 'object' || typeof v === 'function') {
          str = formatValue(ctx, v, recurseTimes);
        } else {
          str = formatPrimitive(v, ctx);
        }
      } else if (!hasOwn(value, i)) {
        return formatSpecialArray(ctx, value, recurseTimes, len, output, i);
      } else {
        str = ObjectPrototypeLookupSetter(value, i) !== undefined ? '[Getter/Setter]' : '[Getter]';
      }
      output[output.length] = str;
    }
    if (remaining > 0) {
      output[output.length] = remainingText(remaining);
    }
    return output;
  }

  function formatTypedArray(ctx, value, recurseTimes) {
    var length = TypedArrayPrototypeGetLength(value);
    var maxLength = MathMin(MathMax(0, ctx.maxArrayLength), length);
    var remaining = length - maxLength;
    var output = [];
    for (var i = 0; i < maxLength; ++i) {
      var v = value[i];
      var s = typeof v === 'bigint' ? formatBigInt(v) : formatNumber(v);
      ctx.budget += s.length;
      output[i] = s;
    }
    if (remaining > 0) {
      output[maxLength] = remainingText(remaining);
    }
    if (ctx.showHidden) {
      var extra = ['BYTES_PER_ELEMENT', 'length', 'byteLength', 'byteOffset', 'buffer'];
      for (var k = 0; k < extra.length; k++) {
        var str = formatValue(ctx, value[extra[k]], recurseTimes, true);
        output[output.length] = '[' + extra[k] + ']: ' + str;
      }
    }
    return output;
  }

  function formatSet(ctx, value, recurseTimes) {
    var length = SetPrototypeGetSize(value);
    var maxLength = MathMin(MathMax(0, ctx.maxArrayLength), length);
    var remaining = length - maxLength;
    var output = [];
    var it = SetPrototypeValues(value);
    for (var i = 0; i < maxLength; i++) {
      if (ctx.budget > kBudget) {
        pushEllipsis(ctx, output);
        return output;
      }
      var r = SetIteratorNext(it);
      if (r.done) break;
      output[output.length] = formatValue(ctx, r.value, recurseTimes);
    }
    if (remaining > 0) {
      output[output.length] = remainingText(remaining);
    }
    return output;
  }

  function formatMap(ctx, value, recurseTimes) {
    var length = MapPrototypeGetSize(value);
    var maxLength = MathMin(MathMax(0, ctx.maxArrayLength), length);
    var remaining = length - maxLength;
    var output = [];
    var it = MapPrototypeEntries(value);
    for (var i = 0; i < maxLength; i++) {
      if (ctx.budget > kBudget) {
        pushEllipsis(ctx, output);
        return output;
      }
      var r = MapIteratorNext(it);
      if (r.done) break;
      var entry = r.value;
      output[output.length] = formatValue(ctx, entry[0], recurseTimes) + ' => ' +
        formatValue(ctx, entry[1], recurseTimes);
    }
    if (remaining > 0) {
      output[output.length] = remainingText(remaining);
    }
    return output;
  }

  function formatWeakCollection() {
    return ['<items unknown>'];
  }

  function formatPromise(ctx, value, recurseTimes) {
    var details;
    if (typeof hooks.promiseState === 'function') {
      details = hooks.promiseState(value);
    }
    if (details === undefined || details[0] === 0) {
      return ['<pending>'];
    }
    var str = formatValue(ctx, details[1], recurseTimes);
    return [details[0] === 2 ? '<rejected> ' + str : str];
  }

  // One property. `fast` says `key` is an own enumerable key (from
  // Object.keys or an array index), so no descriptor object is needed.
  function formatProperty(ctx, value, recurseTimes, key, type, desc, original, fast) {
    var str;
    var enumerable = true;
    if (desc === undefined && fast === true) {
      if (ObjectPrototypeLookupGetter(value, key) === undefined) {
        var v = value[key];
        if (typeof v === 'object' || typeof v === 'function') {
          str = formatValue(ctx, v, recurseTimes);
        } else if (v !== undefined) {
          str = formatPrimitive(v, ctx);
        } else {
          str = ObjectPrototypeLookupSetter(value, key) !== undefined ? '[Setter]' : 'undefined';
        }
      } else {
        str = ObjectPrototypeLookupSetter(value, key) !== undefined ? '[Getter/Setter]' : '[Getter]';
      }
    } else {
      desc = desc || ObjectGetOwnPropertyDescriptor(value, key) ||
        { value: value[key], enumerable: true };
      if (desc.value !== undefined) {
        str = formatValue(ctx, desc.value, recurseTimes);
      } else if (desc.get !== undefined) {
        str = desc.set !== undefined ? '[Getter/Setter]' : '[Getter]';
      } else if (desc.set !== undefined) {
        str = '[Setter]';
      } else {
        str = 'undefined';
      }
      enumerable = desc.enumerable !== false;
    }
    if (type === kArrayType) {
      return str;
    }
    var name;
    if (enumerable && typeof key === 'string') {
      name = MapPrototypeGet(keyCache, key);
      if (name === undefined) name = formatKey(key, enumerable);
    } else {
      name = formatKey(key, enumerable);
    }
    ctx.budget += name.length + 2;
    return name + ': ' + str;
  }

  var keyCache = new MapCtor();
  var kKeyCacheSize = 1000;

  function formatKey(key, enumerable) {
    if (typeof key === 'symbol') {
      return '[' + escapeBody(SymbolPrototypeToString(key), true) + ']';
    }
    if (key === '__proto__') {
      return "['__proto__']";
    }
    if (!enumerable) {
      return '[' + escapeBody(key, true) + ']';
    }
    var name = MapPrototypeGet(keyCache, key);
    if (name === undefined) {
      name = isIdentifierKey(key) ? key : strEscape(key);
      if (key.length <= 64) {
        if (MapPrototypeGetSize(keyCache) >= kKeyCacheSize) MapPrototypeClear(keyCache);
        MapPrototypeSet(keyCache, key, name);
      }
    }
    return name;
  }

  // Keys printed without quotes: /^[a-zA-Z_][a-zA-Z_0-9]*$/. The regexp
  // below matches exactly the other keys (and allocates only then).
  var notIdentifierRegExp = /^(?![a-zA-Z_])|[^a-zA-Z_0-9]/;
  function isIdentifierKey(key) {
    return RegExpPrototypeExec(notIdentifierRegExp, key) === null;
  }

  function reduceToSingleString(output, base, braces) {
    var joined = ArrayPrototypeJoin(output, ', ');
    if (base !== '') {
      return base + ' ' + braces[0] + ' ' + joined + ' ' + braces[1];
    }
    return braces[0] + ' ' + joined + ' ' + braces[1];
  }

  // ---- public API -----------------------------------------------------------

  function capOutput(str) {
    if (str.length <= kMaxOutput) return str;
    var end = kMaxOutput;
    var c = StringPrototypeCharCodeAt(str, end - 1);
    if (c >= 0xd800 && c <= 0xdbff) end--;
    return StringPrototypeSlice(str, 0, end) + kEllipsis;
  }

  function inspectWith(value, opts) {
    if (opts === undefined && typeof value !== 'object' && typeof value !== 'function') {
      return capOutput(formatPrimitive(value, primitiveContext));
    }
    var ctx = newContext(opts);
    var out;
    try {
      out = capOutput(formatValue(ctx, value, 0));
    } catch (err) {
      out = '<Inspection threw (' + errorMessage(err) + ')>';
    }
    releaseContext(ctx);
    return out;
  }

  function inspect(value, opts) {
    var o;
    try {
      if (opts !== null && typeof opts === 'object') {
        o = {
          depth: opts.depth,
          showHidden: opts.showHidden,
          showProxy: opts.showProxy,
          customInspect: opts.customInspect,
          maxArrayLength: opts.maxArrayLength,
          maxStringLength: opts.maxStringLength,
        };
      }
    } catch (e) {
      o = undefined;
    }
    return inspectWith(value, o);
  }

  // Node's hasBuiltInToString: does `%s` print this object with inspect?
  function hasBuiltInToString(value) {
    var proxy = getProxyDetails(value);
    if (proxy !== undefined) {
      if (proxy === null) return true;
      value = proxy[0];
    }
    var checkToString = true;
    var checkToPrimitive = true;
    if (typeof value.toString !== 'function') {
      if (typeof value[SymbolToPrimitive] !== 'function') {
        return true;
      } else if (hasOwn(value, SymbolToPrimitive)) {
        return false;
      }
      checkToString = false;
    } else if (hasOwn(value, 'toString')) {
      return false;
    } else if (typeof value[SymbolToPrimitive] !== 'function') {
      checkToPrimitive = false;
    } else if (hasOwn(value, SymbolToPrimitive)) {
      return false;
    }
    var pointer = value;
    var n = 0;
    do {
      pointer = ObjectGetPrototypeOf(pointer);
      if (pointer === null || ++n > kMaxProtoChain) return true;
    } while (!(checkToString && hasOwn(pointer, 'toString')) &&
             !(checkToPrimitive && hasOwn(pointer, SymbolToPrimitive)));
    var descriptor = ObjectGetOwnPropertyDescriptor(pointer, 'constructor');
    return descriptor !== undefined &&
      typeof descriptor.value === 'function' &&
      MapPrototypeGet(builtInObjects, descriptor.value.name) === true;
  }

  var circularErrorMessage;
  function tryStringify(arg) {
    try {
      return JSONStringify(arg);
    } catch (err) {
      if (circularErrorMessage === undefined) {
        try {
          var a = {};
          a.a = a;
          JSONStringify(a);
        } catch (circularError) {
          circularErrorMessage = firstLine(errorMessage(circularError));
        }
      }
      var message = errorMessage(err);
      if (firstLine(message) === circularErrorMessage) {
        return '[Circular]';
      }
      return '<JSON.stringify threw (' + message + ')>';
    }
  }

  function firstLine(str) {
    return StringPrototypeSplit(str, '\n', 1)[0];
  }

  function safeString(value) {
    try {
      return StringCtor(value);
    } catch (err) {
      return '<Inspection threw (' + errorMessage(err) + ')>';
    }
  }

  function formatArgsUnsafe(args) {
    var first = args[0];
    var a = 0;
    var str = '';
    var join = '';
    var tempStr;

    if (typeof first === 'string') {
      if (args.length === 1) {
        return first;
      }
      var lastPos = 0;
      // Node scans every character; jumping between '%' signs is the same.
      for (var i = StringPrototypeIndexOf(first, '%'); i !== -1 && i < first.length - 1;
        i = StringPrototypeIndexOf(first, '%', i + 1)) {
        var nextChar = StringPrototypeCharCodeAt(first, ++i);
        if (a + 1 !== args.length) {
          switch (nextChar) {
            case 115: { // 's'
              var tempArg = args[++a];
              if (typeof tempArg === 'number') {
                tempStr = formatNumber(tempArg);
              } else if (typeof tempArg === 'bigint') {
                tempStr = formatBigInt(tempArg);
              } else if (typeof tempArg !== 'object' || tempArg === null) {
                tempStr = safeString(tempArg);
              } else {
                var builtIn;
                try {
                  builtIn = hasBuiltInToString(tempArg);
                } catch (e) {
                  builtIn = true;
                }
                tempStr = builtIn ? inspectWith(tempArg, { depth: 0 }) : safeString(tempArg);
              }
              break;
            }
            case 106: // 'j'
              tempStr = tryStringify(args[++a]);
              break;
            case 100: { // 'd'
              var tempNum = args[++a];
              if (typeof tempNum === 'bigint') {
                tempStr = formatBigInt(tempNum);
              } else if (typeof tempNum === 'symbol') {
                tempStr = 'NaN';
              } else {
                try {
                  tempStr = formatNumber(NumberCtor(tempNum));
                } catch (e) {
                  tempStr = 'NaN';
                }
              }
              break;
            }
            case 79: // 'O'
              tempStr = inspectWith(args[++a]);
              break;
            case 111: // 'o'
              tempStr = inspectWith(args[++a], { showHidden: true, showProxy: true, depth: 4 });
              break;
            case 105: { // 'i'
              var tempInteger = args[++a];
              if (typeof tempInteger === 'bigint') {
                tempStr = formatBigInt(tempInteger);
              } else if (typeof tempInteger === 'symbol') {
                tempStr = 'NaN';
              } else {
                try {
                  tempStr = formatNumber(NumberParseInt(tempInteger));
                } catch (e) {
                  tempStr = 'NaN';
                }
              }
              break;
            }
            case 102: { // 'f'
              var tempFloat = args[++a];
              if (typeof tempFloat === 'symbol') {
                tempStr = 'NaN';
              } else {
                try {
                  tempStr = formatNumber(NumberParseFloat(tempFloat));
                } catch (e) {
                  tempStr = 'NaN';
                }
              }
              break;
            }
            case 99: // 'c'
              a += 1;
              tempStr = '';
              break;
            case 37: // '%'
              str += StringPrototypeSlice(first, lastPos, i);
              lastPos = i + 1;
              continue;
            default: // not a placeholder
              continue;
          }
          if (lastPos !== i - 1) {
            str += StringPrototypeSlice(first, lastPos, i - 1);
          }
          str += tempStr;
          lastPos = i + 1;
        } else if (nextChar === 37) {
          str += StringPrototypeSlice(first, lastPos, i);
          lastPos = i + 1;
        }
      }
      if (lastPos !== 0) {
        a++;
        join = ' ';
        if (lastPos < first.length) {
          str += StringPrototypeSlice(first, lastPos);
        }
      }
    }

    while (a < args.length) {
      var value = args[a];
      str += join;
      str += typeof value !== 'string' ? inspectWith(value) : value;
      join = ' ';
      a++;
    }
    return str;
  }

  function formatArgs(args) {
    try {
      if (!ArrayIsArray(args)) {
        return inspectWith(args);
      }
      return formatArgsUnsafe(args);
    } catch (err) {
      return '<Inspection threw (' + errorMessage(err) + ')>';
    }
  }

  return { formatArgs: formatArgs, inspect: inspect, hooks: hooks };
})

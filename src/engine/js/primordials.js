// The builtins the console formatter (inspect.js) uses, taken when a sandbox
// is built, before any program runs. The formatter loads lazily, at a
// program's first console call, when the program may have replaced any of
// them: it takes them from here, so what it calls is always the original
// (and the same in lean and full contexts, see the engine's `intrinsics`).
// Functions are kept raw; the formatter uncurries them when it loads.
(function () {
  'use strict';
  var descriptor = Object.getOwnPropertyDescriptor;
  var getter = function (object, name) { return descriptor(object, name).get; };
  var protoOf = Object.getPrototypeOf;
  var hasDate = typeof Date === 'function';
  var hasBigInt = typeof BigInt === 'function';
  var hasBuffers = typeof ArrayBuffer === 'function';
  var typed = hasBuffers ? protoOf(Uint8Array.prototype) : undefined;
  var shared = typeof SharedArrayBuffer === 'function' ? SharedArrayBuffer.prototype : undefined;
  var mapIterator = protoOf(new Map().entries());
  var setIterator = protoOf(new Set().values());
  return {
    apply: Reflect.apply,
    bind: Function.prototype.bind,
    call: Function.prototype.call,
    getOwnPropertyDescriptor: descriptor,
    getPrototypeOf: protoOf,
    Map: Map,
    mapSet: Map.prototype.set,

    Object: Object,
    Function: Function,
    String: String,
    Number: Number,
    Array: Array,
    ObjectKeys: Object.keys,
    ObjectGetOwnPropertyNames: Object.getOwnPropertyNames,
    ObjectGetOwnPropertySymbols: Object.getOwnPropertySymbols,
    ObjectHasOwn: typeof Object.hasOwn === 'function' ? Object.hasOwn : undefined,
    ReflectOwnKeys: Reflect.ownKeys,
    ArrayIsArray: Array.isArray,
    JSONStringify: JSON.stringify,
    parseInt: parseInt,
    parseFloat: parseFloat,
    NumberIsNaN: Number.isNaN,
    MathMin: Math.min,
    MathMax: Math.max,
    SymbolIterator: Symbol.iterator,
    SymbolToStringTag: Symbol.toStringTag,
    SymbolToPrimitive: Symbol.toPrimitive,
    customInspectSymbol: Symbol.for('nodejs.util.inspect.custom'),

    ObjectPrototypeHasOwnProperty: Object.prototype.hasOwnProperty,
    ObjectPrototypePropertyIsEnumerable: Object.prototype.propertyIsEnumerable,
    ObjectPrototypeLookupGetter: Object.prototype.__lookupGetter__,
    ObjectPrototypeLookupSetter: Object.prototype.__lookupSetter__,
    ObjectPrototypeToString: Object.prototype.toString,
    FunctionPrototypeToString: Function.prototype.toString,
    FunctionPrototypeSymbolHasInstance: Function.prototype[Symbol.hasInstance],
    StringPrototypeSlice: String.prototype.slice,
    StringPrototypeCharCodeAt: String.prototype.charCodeAt,
    StringPrototypeIndexOf: String.prototype.indexOf,
    StringPrototypeStartsWith: String.prototype.startsWith,
    StringPrototypeEndsWith: String.prototype.endsWith,
    StringPrototypeSplit: String.prototype.split,
    StringPrototypeReplace: String.prototype.replace,
    StringPrototypeValueOf: String.prototype.valueOf,
    StringPrototypeToUpperCase: String.prototype.toUpperCase,
    NumberPrototypeToString: Number.prototype.toString,
    ArrayPrototypeUnshift: Array.prototype.unshift,
    ArrayPrototypeSplice: Array.prototype.splice,
    ArrayPrototypeIndexOf: Array.prototype.indexOf,
    ArrayPrototypeJoin: Array.prototype.join,
    NumberPrototypeValueOf: Number.prototype.valueOf,
    BooleanPrototypeValueOf: Boolean.prototype.valueOf,
    BigIntPrototypeValueOf: hasBigInt ? BigInt.prototype.valueOf : undefined,
    SymbolPrototypeValueOf: Symbol.prototype.valueOf,
    SymbolPrototypeToString: Symbol.prototype.toString,
    RegExpPrototypeExec: RegExp.prototype.exec,
    RegExpPrototypeToString: RegExp.prototype.toString,
    RegExpPrototypeSourceGetter: getter(RegExp.prototype, 'source'),
    DatePrototypeGetTime: hasDate ? Date.prototype.getTime : undefined,
    DatePrototypeToISOString: hasDate ? Date.prototype.toISOString : undefined,
    DatePrototypeToString: hasDate ? Date.prototype.toString : undefined,
    MapPrototypeGet: Map.prototype.get,
    MapPrototypeClear: Map.prototype.clear,
    MapPrototypeEntries: Map.prototype.entries,
    MapPrototypeGetSize: getter(Map.prototype, 'size'),
    SetPrototypeValues: Set.prototype.values,
    SetPrototypeGetSize: getter(Set.prototype, 'size'),
    MapIteratorNext: mapIterator.next,
    SetIteratorNext: setIterator.next,
    WeakMapPrototypeHas: WeakMap.prototype.has,
    WeakSetPrototypeHas: WeakSet.prototype.has,
    TypedArrayPrototypeGetSymbolToStringTag: hasBuffers ? getter(typed, Symbol.toStringTag) : undefined,
    TypedArrayPrototypeGetLength: hasBuffers ? getter(typed, 'length') : undefined,
    ArrayBufferPrototypeGetByteLength: hasBuffers ? getter(ArrayBuffer.prototype, 'byteLength') : undefined,
    SharedArrayBufferPrototypeGetByteLength: shared !== undefined ? getter(shared, 'byteLength') : undefined,
    DataViewPrototypeGetBuffer: hasBuffers ? getter(DataView.prototype, 'buffer') : undefined,
    Uint8Array: hasBuffers ? Uint8Array : undefined,

    // Prototypes, for the formatter's kinds.
    ObjectPrototype: Object.prototype,
    FunctionPrototype: Function.prototype,
    ArrayPrototype: Array.prototype,
    SetPrototype: Set.prototype,
    MapPrototype: Map.prototype,
    TypedArrayPrototype: typed,
    MapIteratorPrototype: mapIterator,
    SetIteratorPrototype: setIterator,
    RegExpPrototype: RegExp.prototype,
    DatePrototype: hasDate ? Date.prototype : undefined,
    ErrorPrototype: Error.prototype,
    ArrayBufferPrototype: hasBuffers ? ArrayBuffer.prototype : undefined,
    SharedArrayBufferPrototype: shared,
    DataViewPrototype: hasBuffers ? DataView.prototype : undefined,
    PromisePrototype: Promise.prototype,
    WeakMapPrototype: WeakMap.prototype,
    WeakSetPrototype: WeakSet.prototype,
    NumberPrototype: Number.prototype,
    StringPrototype: String.prototype,
    BooleanPrototype: Boolean.prototype,
    BigIntPrototype: hasBigInt ? BigInt.prototype : undefined,
    SymbolPrototype: Symbol.prototype,
    AsyncFunctionPrototype: protoOf(async function () {}),
    GeneratorFunctionPrototype: protoOf(function* () {}),
    AsyncGeneratorFunctionPrototype: protoOf(async function* () {}),
  };
})()

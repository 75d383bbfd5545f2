// ptc's return-value check (contracts §7): is a returned value plain data,
// and if not, what would JSON lose and where.
//
// Usage: this file is ONE expression, a function of the prelude's
// primordials (taken before any model code ran): `intrinsics` (Error,
// Promise, RegExp, Map, Set, WeakMap, WeakSet, RegExp.prototype.exec,
// TypeError), JSONstringify, isArray, isView, isBuffer, getPrototypeOf, the
// Map/Set/WeakMap/WeakSet prototypes, describe (a thrown value's text) and
// inspect (the lazily loaded console formatter). The call yields
// `check(value)`: the value's JSON when it is plain data, else its
// console.log rendering (10 levels deep) and a line naming the first thing
// JSON would have lost, and where. Compiled once per process, evaluated in
// a context only when a run returns an object or a value JSON cannot write.
(function (p) {
  'use strict';
  // By index: the program may have replaced the array iterator.
  const i = p.intrinsics;
  const ErrorCtor = i[0], PromiseCtor = i[1], RegExpCtor = i[2], MapCtor = i[3], SetCtor = i[4];
  const WeakMapCtor = i[5], WeakSetCtor = i[6], exec = i[7], TypeErrorCtor = i[8];
  const { JSONstringify, isArray, isView, isBuffer, getPrototypeOf, MapProto, SetProto, WeakMapProto, WeakSetProto, describe, inspect } = p;
  return function check(value) {
    const identifier = /^[A-Za-z_$][\w$]*$/;
    const NotJson = class extends ErrorCtor {};
    // What JSON would change or drop in `v` (already through its `toJSON`).
    const notJson = (v) => {
      switch (typeof v) {
        case 'undefined': return 'undefined';
        case 'function': return 'a function';
        case 'symbol': return 'a symbol';
        case 'bigint': return 'a BigInt';
        case 'number': return v - v === 0 ? undefined : String(v);
        case 'object': {
          if (v === null) return undefined;
          const proto = getPrototypeOf(v);
          if (proto === MapProto || v instanceof MapCtor) return 'a Map';
          if (proto === SetProto || v instanceof SetCtor) return 'a Set';
          if (proto === WeakMapProto || v instanceof WeakMapCtor) return 'a WeakMap';
          if (proto === WeakSetProto || v instanceof WeakSetCtor) return 'a WeakSet';
          if (isView(v)) return 'a typed array';
          if (isBuffer(v)) return 'an ArrayBuffer';
          if (v instanceof ErrorCtor) return 'an error';
          if (v instanceof PromiseCtor) return 'a Promise';
          if (v instanceof RegExpCtor) return 'a RegExp';
          return undefined;
        }
        default: return undefined;
      }
    };
    // Each object's holder and key, for the path of what JSON would lose.
    const parents = new MapCtor();
    const get = MapProto.get, has = MapProto.has, set = MapProto.set;
    // ` (at .a.b[2])`, or '' for the value itself.
    const pathOf = (holder, key) => {
      let path = '';
      for (let n = 0; n < 64; n++) {
        if (key === '' && !has.call(parents, holder)) break;
        path = (isArray(holder) ? '[' + key + ']'
          : exec.call(identifier, key) !== null ? '.' + key : '[' + JSONstringify(key) + ']') + path;
        const up = get.call(parents, holder);
        if (up === undefined) break;
        holder = up[0];
        key = up[1];
      }
      return path === '' ? '' : ' (at ' + path + ')';
    };
    function plainOnly(key, v) {
      const why = notJson(v);
      if (why !== undefined) throw new NotJson(why + pathOf(this, key));
      if (typeof v === 'object' && v !== null) set.call(parents, v, [this, key]);
      return v;
    }
    let why;
    try {
      return JSONstringify(value, plainOnly);
    } catch (e) {
      try {
        why = e instanceof NotJson ? e.message
          : (e instanceof TypeErrorCtor && exec.call(/circular|cycle/i, String(e.message)) !== null) ? 'a cycle'
          : 'what made JSON.stringify throw (' + describe(e)[0] + ')';
      } catch (_) {
        why = 'what made JSON.stringify throw';
      }
    }
    let shown;
    try {
      shown = inspect().inspect(value, { depth: 10 });
    } catch (_) {
      shown = '[unrenderable ' + typeof value + ']';
    }
    return shown + '\n[run_code: shown as console.log shows it, since JSON cannot carry ' + why + ']';
  };
})

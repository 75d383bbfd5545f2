//! QuickJS's unpolled built-in loops, made interruptible.
//!
//! QuickJS polls its interrupt handler when a function is called and on
//! loops in bytecode, but several built-ins loop over an array-like's
//! `length` calling nothing on holes: `Array.prototype.indexOf.call({ length:
//! 2 ** 53 - 1 }, 1)` would run for years past any deadline. Each such method
//! is replaced, when a sandbox is built, by a native function of the same
//! name and length (so `toString` still shows `[native code]`): up to
//! [`LIMIT`] elements (about a tenth of a second of the original loop) it
//! calls the original as it is; past it, it calls the original on a proxy of
//! the array whose traps are functions, so every element read reaches the
//! interrupt handler. `Iterator.prototype.drop` steps a built-in iterator
//! without calling a function; past `LIMIT` it steps one whose `next` is a
//! function. Where a program can tell (contracts §6): a callback's third
//! argument is then the proxy, and `length` (or `drop`'s limit) is read once
//! more. The naive string searches (`indexOf`, `split`, `replace`, …) with a
//! string pattern search by regular expression once the text's length times
//! the pattern's passes [`SEARCH_LIMIT`]: QuickJS's regular expression engine
//! polls. The proxy code (`js/interruptible.js`) is compiled only the first
//! time it is needed in a run, with intrinsics captured before the program
//! ran.

use std::cell::RefCell;
use std::ffi::{CStr, c_int};
use std::ptr::NonNull;

use rquickjs::{Array, Ctx, Function, JsLifetime, Object, Value, qjs};

/// Elements a guarded built-in may walk natively.
const LIMIT: f64 = (1u64 << 22) as f64;

/// The guarded methods of `Array.prototype`, with their specified `length`.
const ARRAY_METHODS: [(&CStr, c_int); 22] = [
    (c"indexOf", 1),
    (c"lastIndexOf", 1),
    (c"includes", 1),
    (c"join", 1),
    (c"toLocaleString", 0),
    (c"reverse", 0),
    (c"slice", 2),
    (c"splice", 2),
    (c"shift", 0),
    (c"unshift", 1),
    (c"copyWithin", 2),
    (c"sort", 1),
    (c"flat", 0),
    (c"flatMap", 1),
    (c"every", 1),
    (c"some", 1),
    (c"forEach", 1),
    (c"map", 1),
    (c"filter", 1),
    (c"reduce", 1),
    (c"reduceRight", 1),
    (c"concat", 1),
];
/// `magic` of `concat`, whose arguments are array-likes too.
const CONCAT: c_int = 21;
/// `magic` of `Iterator.prototype.drop`.
const DROP: c_int = 22;

/// The guarded methods of `String.prototype`: their search is naive, so a
/// long string and a long pattern cost their product with no poll.
const STRING_METHODS: [(&CStr, c_int); 6] = [
    (c"indexOf", 1),
    (c"lastIndexOf", 1),
    (c"includes", 1),
    (c"split", 2),
    (c"replace", 2),
    (c"replaceAll", 2),
];
/// `magic` of the first string method.
const STRING_BASE: c_int = 23;
/// Index of `includes` among the string methods.
const INCLUDES: c_int = 2;
/// Index of the first string method whose pattern may be an object with
/// its own algorithm (`split`, `replace`, `replaceAll`).
const PATTERN_METHODS: c_int = 3;
/// Character comparisons a string search may make natively (a few tenths
/// of a second at most).
const SEARCH_LIMIT: f64 = (1u64 << 26) as f64;

const HELPER: &str = include_str!("js/interruptible.js");
/// Where the intrinsics keep `Symbol.isConcatSpreadable` and `Symbol.match`
/// (the helper takes the ones before them).
const SPREADABLE: usize = 5;
const MATCH: usize = 6;

/// What the guards keep per sandbox: the original methods (by `magic`),
/// the intrinsics the proxy code needs, and that code once compiled.
struct Guards<'js> {
    originals: Vec<Value<'js>>,
    intrinsics: Vec<Value<'js>>,
    /// `[proxy(target), stepping(iterator)]`, compiled on first need.
    helper: RefCell<Option<Array<'js>>>,
}

// SAFETY: `Guards` holds only values of lifetime 'js, renamed as a whole.
unsafe impl<'js> JsLifetime<'js> for Guards<'js> {
    type Changed<'to> = Guards<'to>;
}

/// Installs the guards in a fresh context (before any program runs).
pub(crate) fn install(ctx: &Ctx<'_>) -> rquickjs::Result<()> {
    let globals = ctx.globals();
    let array_proto: Object = globals.get::<_, Object>("Array")?.get("prototype")?;
    let reflect: Object = globals.get("Reflect")?;
    let symbol: Object = globals.get("Symbol")?;
    let iterator_proto: Object = globals.get::<_, Object>("Iterator")?.get("prototype")?;
    let regexp: Object = globals.get("RegExp")?;
    let intrinsics: Vec<Value> = vec![
        globals.get("Proxy")?,
        reflect.get("apply")?,
        iterator_proto.clone().into_value(),
        regexp.clone().into_value(),
        regexp.get::<_, Object>("prototype")?.get("exec")?,
        symbol.get("isConcatSpreadable")?,
        symbol.get("match")?,
    ];

    let mut originals = Vec::with_capacity(ARRAY_METHODS.len() + 1);
    for (magic, (name, length)) in ARRAY_METHODS.iter().enumerate() {
        originals.push(replace(ctx, &array_proto, name, *length, magic as c_int)?);
    }
    originals.push(replace(ctx, &iterator_proto, c"drop", 1, DROP)?);
    let string_proto: Object = globals.get::<_, Object>("String")?.get("prototype")?;
    for (i, (name, length)) in STRING_METHODS.iter().enumerate() {
        originals.push(replace(
            ctx,
            &string_proto,
            name,
            *length,
            STRING_BASE + i as c_int,
        )?);
    }
    let guards = Guards {
        originals,
        intrinsics,
        helper: RefCell::new(None),
    };
    if ctx.store_userdata(guards).is_err() {
        return Err(rquickjs::Error::Unknown);
    }
    Ok(())
}

/// Puts a guarded native in place of `object[name]`; returns the original.
fn replace<'js>(
    ctx: &Ctx<'js>,
    object: &Object<'js>,
    name: &CStr,
    length: c_int,
    magic: c_int,
) -> rquickjs::Result<Value<'js>> {
    let raw = ctx.as_raw().as_ptr();
    // SAFETY: the atom is freed below; `guarded` has the signature QuickJS
    // calls a `generic_magic` function with (the function pointer types
    // differ only in that extra argument, which QuickJS passes for this
    // `cproto`); the new function is handed to the define, which takes it.
    unsafe {
        // One atom for the read and the define: each lookup of a name from
        // text allocates a string first, and this runs for every sandbox.
        let atom = qjs::JS_NewAtom(raw, name.as_ptr());
        let original =
            Value::from_raw(ctx.clone(), qjs::JS_GetProperty(raw, object.as_raw(), atom));
        let defined = !original.is_exception() && {
            let function: qjs::JSCFunction = std::mem::transmute::<qjs::JSCFunctionMagic, _>(Some(
                guarded as unsafe extern "C" fn(_, _, _, _, _) -> _,
            ));
            let wrapper = qjs::JS_NewCFunction2(
                raw,
                function,
                name.as_ptr(),
                length,
                qjs::JSCFunctionEnum_JS_CFUNC_generic_magic,
                magic,
            );
            let flags = (qjs::JS_PROP_WRITABLE | qjs::JS_PROP_CONFIGURABLE) as c_int;
            !qjs::JS_IsException(wrapper)
                && qjs::JS_DefinePropertyValue(raw, object.as_raw(), atom, wrapper, flags) >= 0
        };
        qjs::JS_FreeAtom(raw, atom);
        if !defined {
            return Err(rquickjs::Error::Exception);
        }
        Ok(original)
    }
}

/// The guarded method: the original, on a proxy when `this` is huge.
unsafe extern "C" fn guarded(
    raw: *mut qjs::JSContext,
    this: qjs::JSValue,
    argc: c_int,
    argv: *mut qjs::JSValue,
    magic: c_int,
) -> qjs::JSValue {
    let Some(ptr) = NonNull::new(raw) else {
        return qjs::JS_EXCEPTION;
    };
    // SAFETY: QuickJS calls this with its context locked, `this` and `argc`
    // arguments at `argv` alive for the call.
    let ctx = unsafe { Ctx::from_raw(ptr) };
    let args: &[qjs::JSValue] = match usize::try_from(argc) {
        Ok(n) if n > 0 && !argv.is_null() => unsafe { std::slice::from_raw_parts(argv, n) },
        _ => &[],
    };
    // SAFETY: as above; every value made from a raw one is a new reference.
    let this = unsafe { Value::from_raw(ctx.clone(), qjs::JS_DupValue(raw, this)) };
    let args: Vec<Value> = args
        .iter()
        .map(|&a| unsafe { Value::from_raw(ctx.clone(), qjs::JS_DupValue(raw, a)) })
        .collect();
    match call_guarded(&ctx, this, args, magic) {
        // SAFETY: the result is handed to QuickJS, which now owns it.
        Ok(value) => unsafe { qjs::JS_DupValue(raw, value.as_raw()) },
        // Pending in the context already.
        Err(rquickjs::Error::Exception) => qjs::JS_EXCEPTION,
        Err(other) => {
            let _ = rquickjs::Exception::throw_internal(&ctx, &other.to_string());
            qjs::JS_EXCEPTION
        }
    }
}

fn call_guarded<'js>(
    ctx: &Ctx<'js>,
    this: Value<'js>,
    mut args: Vec<Value<'js>>,
    magic: c_int,
) -> rquickjs::Result<Value<'js>> {
    let (original, spreadable, matcher) = {
        let guards = ctx.userdata::<Guards>().ok_or(rquickjs::Error::Unknown)?;
        let original = guards.originals.get(magic as usize).cloned();
        let intrinsic = |i: usize| guards.intrinsics.get(i).cloned();
        (original, intrinsic(SPREADABLE), intrinsic(MATCH))
    };
    let original: Function = original
        .and_then(|o| o.into_function())
        .ok_or(rquickjs::Error::Unknown)?;
    if magic >= STRING_BASE {
        return string_search(ctx, original, this, args, magic - STRING_BASE, matcher);
    }
    let this = if magic == DROP {
        drop_target(ctx, this, &mut args)?
    } else {
        interruptible(ctx, this)?
    };
    if magic == CONCAT {
        for arg in &mut args {
            if is_spreadable(arg, spreadable.as_ref())? {
                *arg = interruptible(ctx, arg.clone())?;
            }
        }
    }
    call(original, this, args)
}

/// A guarded string method: the original when the search is small (or the
/// pattern has its own algorithm), else the helper's regular-expression
/// search, which polls. `this` and the pattern are converted to strings
/// here, once, in the order the original would, and passed on as strings.
fn string_search<'js>(
    ctx: &Ctx<'js>,
    original: Function<'js>,
    this: Value<'js>,
    mut args: Vec<Value<'js>>,
    which: c_int,
    matcher: Option<Value<'js>>,
) -> rquickjs::Result<Value<'js>> {
    let pattern = args.first().cloned();
    let own_algorithm = match &pattern {
        Some(p) if which >= PATTERN_METHODS => !p.is_string(),
        // `includes` throws for a RegExp (one with `Symbol.match`) first.
        Some(p) if which == INCLUDES && p.is_object() => is_regexp_like(p, matcher.as_ref())?,
        _ => false,
    };
    if this.is_null() || this.is_undefined() || own_algorithm {
        return call(original, this, args);
    }
    let text = to_string(ctx, &this)?;
    let pattern = to_string(
        ctx,
        &pattern.unwrap_or_else(|| Value::new_undefined(ctx.clone())),
    )?;
    let work = length(ctx, &text)? * length(ctx, &pattern)?;
    match args.first_mut() {
        Some(first) => *first = pattern,
        None => args.push(pattern),
    }
    if work <= SEARCH_LIMIT {
        return call(original, text, args);
    }
    let mut all = vec![original.into_value(), text];
    all.extend(args);
    let slow = helper(ctx, 2 + which as usize)?;
    let mut call_args = rquickjs::function::Args::new(ctx.clone(), all.len());
    call_args.push_args(all)?;
    slow.call_arg(call_args)
}

fn call<'js>(
    function: Function<'js>,
    this: Value<'js>,
    args: Vec<Value<'js>>,
) -> rquickjs::Result<Value<'js>> {
    let mut call = rquickjs::function::Args::new(function.ctx().clone(), args.len());
    call.this(this)?;
    call.push_args(args)?;
    function.call_arg(call)
}

/// `IsRegExp`: an object whose `Symbol.match` is truthy.
fn is_regexp_like<'js>(value: &Value<'js>, matcher: Option<&Value<'js>>) -> rquickjs::Result<bool> {
    let (Some(object), Some(symbol)) = (value.as_object(), matcher.and_then(|m| m.as_symbol()))
    else {
        return Ok(false);
    };
    let marker: Value = object.get(symbol.clone())?;
    if !marker.is_undefined() {
        return Ok(truthy(value.ctx(), &marker));
    }
    // SAFETY: reading the class of a live value.
    Ok(unsafe { qjs::JS_IsRegExp(value.as_raw()) })
}

fn truthy(ctx: &Ctx<'_>, value: &Value<'_>) -> bool {
    // SAFETY: `value` is alive in `ctx`.
    unsafe { qjs::JS_ToBool(ctx.as_raw().as_ptr(), value.as_raw()) > 0 }
}

/// `ToString(value)`, which may run the program's `toString`.
fn to_string<'js>(ctx: &Ctx<'js>, value: &Value<'js>) -> rquickjs::Result<Value<'js>> {
    if value.is_string() {
        return Ok(value.clone());
    }
    // SAFETY: `value` is alive in `ctx`; the result is a new reference.
    let value = unsafe {
        Value::from_raw(
            ctx.clone(),
            qjs::JS_ToString(ctx.as_raw().as_ptr(), value.as_raw()),
        )
    };
    if value.is_exception() {
        return Err(rquickjs::Error::Exception);
    }
    Ok(value)
}

/// The length of a string value, in UTF-16 units.
fn length(ctx: &Ctx<'_>, string: &Value<'_>) -> rquickjs::Result<f64> {
    // SAFETY: `string` is alive in `ctx`; the result is a new reference,
    // freed by the `Value` made of it.
    let value = unsafe {
        let raw = ctx.as_raw().as_ptr();
        Value::from_raw(
            ctx.clone(),
            qjs::JS_GetPropertyStr(raw, string.as_raw(), c"length".as_ptr()),
        )
    };
    if value.is_exception() {
        return Err(rquickjs::Error::Exception);
    }
    number(ctx, &value)
}

/// `value`, or a proxy of it when it is an object with a huge `length`.
fn interruptible<'js>(ctx: &Ctx<'js>, value: Value<'js>) -> rquickjs::Result<Value<'js>> {
    let Some(object) = value.as_object() else {
        return Ok(value);
    };
    let length: Value = object.get("length")?;
    if number(ctx, &length)? <= LIMIT {
        return Ok(value);
    }
    helper(ctx, 0)?.call((value,))
}

/// `drop`'s receiver and limit: the limit converted once (and passed on as
/// a number), the iterator wrapped when the limit is huge.
fn drop_target<'js>(
    ctx: &Ctx<'js>,
    this: Value<'js>,
    args: &mut Vec<Value<'js>>,
) -> rquickjs::Result<Value<'js>> {
    if !this.is_object() {
        // The original throws its own TypeError before reading the limit.
        return Ok(this);
    }
    let limit = args
        .first()
        .cloned()
        .unwrap_or_else(|| Value::new_undefined(ctx.clone()));
    let limit = number(ctx, &limit)?;
    match args.first_mut() {
        Some(first) => *first = Value::new_float(ctx.clone(), limit),
        None => args.push(Value::new_float(ctx.clone(), limit)),
    }
    if limit > LIMIT {
        helper(ctx, 1)?.call((this,))
    } else {
        Ok(this)
    }
}

/// Whether `concat` would spread `value`: an array, or `Symbol.isConcatSpreadable`.
fn is_spreadable<'js>(value: &Value<'js>, symbol: Option<&Value<'js>>) -> rquickjs::Result<bool> {
    let Some(object) = value.as_object() else {
        return Ok(false);
    };
    if value.is_array() {
        return Ok(true);
    }
    match symbol.and_then(|s| s.as_symbol()) {
        Some(symbol) => Ok(object.get::<_, Value>(symbol.clone())?.as_bool() == Some(true)),
        None => Ok(false),
    }
}

/// `ToNumber(value)`, which may run the program's `valueOf`.
fn number(ctx: &Ctx<'_>, value: &Value<'_>) -> rquickjs::Result<f64> {
    let mut out = 0.0;
    // SAFETY: `value` is alive in `ctx`; `out` is a valid f64 slot.
    if unsafe { qjs::JS_ToFloat64(ctx.as_raw().as_ptr(), &mut out, value.as_raw()) } < 0 {
        return Err(rquickjs::Error::Exception);
    }
    Ok(out)
}

/// The proxy code's function `index`, compiled once per run when first needed.
fn helper<'js>(ctx: &Ctx<'js>, index: usize) -> rquickjs::Result<Function<'js>> {
    let guards = ctx.userdata::<Guards>().ok_or(rquickjs::Error::Unknown)?;
    if guards.helper.borrow().is_none() {
        let make: Function = ctx.eval(HELPER)?;
        let mut call = rquickjs::function::Args::new(ctx.clone(), SPREADABLE);
        call.push_args(guards.intrinsics[..SPREADABLE].iter().cloned())?;
        let made: Array = make.call_arg(call)?;
        *guards.helper.borrow_mut() = Some(made);
    }
    let helper = guards.helper.borrow();
    helper.as_ref().ok_or(rquickjs::Error::Unknown)?.get(index)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rquickjs::{Context, Runtime};

    /// What a program can see of each guarded method: its name, length,
    /// source text and property flags.
    const LOOKS: &str = "
        const iter = Object.getPrototypeOf(Object.getPrototypeOf([][Symbol.iterator]()));
        const methods = Object.getOwnPropertyNames(Array.prototype)
            .map((n) => [Array.prototype, n]).concat([[iter, 'drop']])
            .concat(Object.getOwnPropertyNames(String.prototype).map((n) => [String.prototype, n]));
        JSON.stringify(methods.map(([o, n]) => {
            const d = Object.getOwnPropertyDescriptor(o, n);
            const f = d.value;
            return typeof f === 'function'
                ? [n, f.name, f.length, String(f), d.writable, d.enumerable, d.configurable]
                : [n];
        }))";

    fn looks(guarded: bool) -> String {
        let runtime = Runtime::new().unwrap();
        let context = Context::full(&runtime).unwrap();
        context.with(|ctx| {
            if guarded {
                install(&ctx).unwrap();
            }
            ctx.eval(LOOKS).unwrap()
        })
    }

    #[test]
    fn guarded_methods_look_like_the_originals() {
        assert_eq!(looks(true), looks(false));
    }

    #[test]
    fn guarded_methods_give_the_original_results() {
        let runtime = Runtime::new().unwrap();
        let context = Context::full(&runtime).unwrap();
        context.with(|ctx| {
            install(&ctx).unwrap();
            let out: String = ctx
                .eval(
                    "
                    const huge = []; huge.length = 2 ** 22 + 5; huge[2 ** 22 + 3] = 'x';
                    globalThis.Proxy = function () { throw new Error('the program\\'s Proxy') };
                    Reflect.get = () => 'the program\\'s get';
                    JSON.stringify([
                        [1, 2, 3].indexOf(2), [3, 1, 2].sort().join('-'), [1].concat([2], 3),
                        [0, 1, 2, 3].values().drop(2).toArray(),
                        huge.indexOf('x'), huge.lastIndexOf('x'), huge.includes(undefined),
                        [].concat(huge).length, huge.slice(2 ** 22).length,
                        Array.prototype.indexOf.call({ length: 2 ** 22 + 2, [2 ** 22 + 1]: 7 }, 7),
                        Array.prototype.keys.call({ length: 2 ** 22 + 3 }).drop(2 ** 22 + 1).next(),
                    ])",
                )
                .unwrap();
            assert_eq!(
                out,
                r#"[1,"1-2-3",[1,2,3],[2,3],4194307,4194307,true,4194309,5,4194305,{"value":4194305,"done":false}]"#
            );
        });
    }
}

#[cfg(test)]
mod string_tests {
    use super::*;
    use rquickjs::{Context, Runtime};

    /// Each search, small (the original) and past the limit (the regular
    /// expression path), gives what the unguarded method gives.
    #[test]
    fn string_searches_give_the_original_results() {
        let program = "
            const long = 'ab'.repeat(5000) + '.*$x' + 'ab'.repeat(5000);
            const needle = 'ab'.repeat(3000) + '.*$x';
            const cases = [];
            for (const [s, p] of [[long, needle], ['xx.*$xyy.*$x', '.*$x'], [long, 'zz'.repeat(4000)]]) {
                cases.push(s.indexOf(p), s.indexOf(p, 12000), s.indexOf(p, -5), s.lastIndexOf(p),
                    s.lastIndexOf(p, 3), s.lastIndexOf(p, NaN), s.includes(p), s.includes(p, 11000),
                    s.split(p).length, s.split(p, 1).length, s.replace(p, '[$&]').length,
                    s.replaceAll(p, (m, at) => at).length, s.replace(p, '$1$<n>$$').slice(0, 4));
            }
            cases.push(String.prototype.indexOf.call(12345, { toString() { return '34' } }));
            try { 'x'.includes(/x/) } catch (e) { cases.push(e.name) }
            JSON.stringify(cases)";
        let run = |guarded: bool| -> String {
            let runtime = Runtime::new().unwrap();
            let context = Context::full(&runtime).unwrap();
            context.with(|ctx| {
                if guarded {
                    install(&ctx).unwrap();
                }
                ctx.eval(program).unwrap()
            })
        };
        assert_eq!(run(true), run(false));
    }
}

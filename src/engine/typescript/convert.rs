//! JSON between QuickJS and serde without the text in between: tool results
//! become what `JSON.parse` of their text would make, and plain arguments
//! what `JSON.parse(JSON.stringify(args))` would give, counted against the
//! run's memory.

use rquickjs::{Atom, Ctx, Object, Type, Value, qjs};

use super::text;
use crate::gate::{self, Meter};
use serde_json::Value as Json;

/// Deeper than this, a subtree goes through JSON text (whose parser checks
/// the stack itself).
const MAX_DEPTH: u32 = 256;

/// `JSON.parse(JSON.stringify(json))` inside `ctx`. On failure (out of
/// memory) the exception is pending in `ctx`.
pub(crate) fn to_js<'js>(ctx: &Ctx<'js>, json: &Json) -> rquickjs::Result<Value<'js>> {
    // SAFETY: `build` returns an owned value of this context, or nothing;
    // the value is handed to rquickjs, which frees it.
    let mut strings = Strings::default();
    let built = unsafe { build(ctx, json, 0, &mut strings) };
    let raw = ctx.as_raw().as_ptr();
    for (_, value) in strings.made {
        // SAFETY: the conversion's own reference to a string it shared.
        unsafe { qjs::JS_FreeValue(raw, value) };
    }
    match built {
        Some(raw) => Ok(unsafe { Value::from_raw(ctx.clone(), raw) }),
        None => Err(rquickjs::Error::Exception),
    }
}

/// Strings of at most this many bytes are made once per conversion and
/// shared wherever they recur (W4's 30,000 tags are 50 strings): a
/// string's identity cannot be observed, only its contents.
const SHARED_STRING_BYTES: usize = 32;
/// At most this many strings are kept for sharing in one conversion.
const SHARED_STRINGS: usize = 1024;

/// The short strings a conversion has made, each holding a reference of
/// its own (freed when the conversion ends).
#[derive(Default)]
struct Strings<'a> {
    /// Fx: a short key hashes in a few instructions, where the standard
    /// SipHash cost as much as making the string again.
    made: rustc_hash::FxHashMap<&'a str, qjs::JSValue>,
}

/// An owned value for `json`, or `None` with an exception pending.
///
/// # Safety
/// Every value made here belongs to `ctx`; each is either returned, handed
/// to a `Define` call or `JS_NewArrayFrom` (which take it), or freed; a
/// shared string's own reference stays in `strings`, for the caller to free.
unsafe fn build<'a>(
    ctx: &Ctx<'_>,
    json: &'a Json,
    depth: u32,
    strings: &mut Strings<'a>,
) -> Option<qjs::JSValue> {
    let raw = ctx.as_raw().as_ptr();
    let value = match json {
        Json::Null => qjs::JS_NULL,
        Json::Bool(true) => qjs::JS_TRUE,
        Json::Bool(false) => qjs::JS_FALSE,
        Json::Number(n) => number(n),
        Json::String(s) if s.len() <= SHARED_STRING_BYTES => unsafe {
            shared_string(raw, s, strings)
        },
        Json::String(s) => unsafe { qjs::JS_NewStringLen(raw, s.as_ptr().cast(), s.len() as _) },
        Json::Array(_) | Json::Object(_) if depth >= MAX_DEPTH => {
            let text = serde_json::to_string(json).ok()?;
            let parsed = ctx.json_parse(text).ok()?;
            // A reference of our own; `parsed` (and its hold on the context) drops.
            unsafe { qjs::JS_DupValue(raw, parsed.as_raw()) }
        }
        Json::Array(items) if items.len() <= WHOLE_ARRAY => unsafe {
            whole_array(ctx, items, depth, strings)?
        },
        Json::Array(items) => unsafe { array_by_element(ctx, items, depth, strings)? },
        Json::Object(map) => unsafe { object(ctx, map, depth, strings)? },
    };
    (!is_exception(value)).then_some(value)
}

/// A short string, made once per conversion and shared after that (see
/// [`Strings`]).
///
/// # Safety
/// As [`build`]'s.
unsafe fn shared_string<'a>(
    raw: *mut qjs::JSContext,
    s: &'a str,
    strings: &mut Strings<'a>,
) -> qjs::JSValue {
    if let Some(&made) = strings.made.get(s) {
        return unsafe { qjs::JS_DupValue(raw, made) };
    }
    let value = unsafe { qjs::JS_NewStringLen(raw, s.as_ptr().cast(), s.len() as _) };
    if !is_exception(value) && strings.made.len() < SHARED_STRINGS {
        strings
            .made
            .insert(s, unsafe { qjs::JS_DupValue(raw, value) });
    }
    value
}

/// Every element first, then the array made from them at once (a dense
/// array, as a definition per element makes, without its per-element
/// lookups and regrowths). `JS_NewArrayFrom` takes the values, freeing
/// them if it fails.
///
/// # Safety
/// As [`build`]'s.
unsafe fn whole_array<'a>(
    ctx: &Ctx<'_>,
    items: &'a [Json],
    depth: u32,
    strings: &mut Strings<'a>,
) -> Option<qjs::JSValue> {
    let raw = ctx.as_raw().as_ptr();
    let mut values = Vec::with_capacity(items.len());
    for item in items {
        match unsafe { build(ctx, item, depth + 1, strings) } {
            Some(value) => values.push(value),
            None => {
                for value in values {
                    unsafe { qjs::JS_FreeValue(raw, value) };
                }
                return None;
            }
        }
    }
    Some(unsafe { qjs::JS_NewArrayFrom(raw, values.len() as _, values.as_ptr()) })
}

/// A long array, one definition per element.
///
/// # Safety
/// As [`build`]'s.
unsafe fn array_by_element<'a>(
    ctx: &Ctx<'_>,
    items: &'a [Json],
    depth: u32,
    strings: &mut Strings<'a>,
) -> Option<qjs::JSValue> {
    let raw = ctx.as_raw().as_ptr();
    let array = unsafe { qjs::JS_NewArray(raw) };
    if is_exception(array) {
        return None;
    }
    for (i, item) in items.iter().enumerate() {
        let defined = unsafe { build(ctx, item, depth + 1, strings) }.is_some_and(|v| {
            let flags = qjs::JS_PROP_C_W_E as i32;
            unsafe { qjs::JS_DefinePropertyValueUint32(raw, array, i as u32, v, flags) >= 0 }
        });
        if !defined {
            unsafe { qjs::JS_FreeValue(raw, array) };
            return None;
        }
    }
    Some(array)
}

/// An object, one definition per key, as `JSON.parse` makes (`__proto__`
/// is a key).
///
/// # Safety
/// As [`build`]'s.
unsafe fn object<'a>(
    ctx: &Ctx<'_>,
    map: &'a serde_json::Map<String, Json>,
    depth: u32,
    strings: &mut Strings<'a>,
) -> Option<qjs::JSValue> {
    let raw = ctx.as_raw().as_ptr();
    let object = unsafe { qjs::JS_NewObject(raw) };
    if is_exception(object) {
        return None;
    }
    for (key, item) in map {
        let atom = unsafe { qjs::JS_NewAtomLen(raw, key.as_ptr().cast(), key.len() as _) };
        let defined = atom != qjs::JS_ATOM_NULL
            && unsafe { build(ctx, item, depth + 1, strings) }.is_some_and(|v| {
                let flags = qjs::JS_PROP_C_W_E as i32;
                unsafe { qjs::JS_DefinePropertyValue(raw, object, atom, v, flags) >= 0 }
            });
        if atom != qjs::JS_ATOM_NULL {
            unsafe { qjs::JS_FreeAtom(raw, atom) };
        }
        if !defined {
            unsafe { qjs::JS_FreeValue(raw, object) };
            return None;
        }
    }
    Some(object)
}

/// Arrays up to this many elements are made at once from their values
/// (held meanwhile in a buffer outside the run's heap: 1 MiB at most);
/// longer ones element by element.
const WHOLE_ARRAY: usize = 1 << 16;

/// 2^63 as a float: integral floats below it convert to `i64` exactly.
const TWO_63: f64 = 9_223_372_036_854_775_808.0;

/// How deep arguments may nest (the gate's one depth bound).
pub(crate) const MAX_ARGUMENT_DEPTH: u32 = crate::limits::MAX_DEPTH;

/// Why arguments were not read as plain data.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum NotPlain {
    /// JSON would change them (or they are not data): the exact path decides.
    Lossy,
    /// They nest deeper than [`MAX_ARGUMENT_DEPTH`].
    TooDeep,
    /// Their copy does not fit in the memory the run has left.
    TooLarge,
}

/// `JSON.parse(JSON.stringify(value))` when that is certainly lossless:
/// objects whose prototype is `Object.prototype` (or none) without `toJSON`,
/// arrays without holes, strings, booleans, null and finite numbers (and
/// `undefined` as the whole arguments: `{}`). Lone surrogates in strings and
/// keys become U+FFFD. Returns the value and the bytes its copy holds as
/// the gate counts them ([`crate::gate`]), at most `room`. (A getter runs
/// here; on the exact path it runs again in `JSON.stringify`.)
pub(crate) fn plain_from_js(value: &Value<'_>, room: usize) -> Result<(Json, usize), NotPlain> {
    let object_proto = object_prototype(value.ctx()).ok_or(NotPlain::Lossy)?;
    plain_from_js_with(value, object_proto, room)
}

/// The realm's own `Object.prototype`, whatever the program did to `Object`
/// (an object made here has it: it is fixed for the context's life).
pub(crate) fn object_prototype<'js>(ctx: &Ctx<'js>) -> Option<Object<'js>> {
    Object::new(ctx.clone())
        .ok()
        .and_then(|o| o.get_prototype())
}

/// [`plain_from_js`] with the realm's `Object.prototype` already at hand
/// (see [`object_prototype`]), as each sub-call has it.
pub(crate) fn plain_from_js_with<'js>(
    value: &Value<'js>,
    object_proto: Object<'js>,
    room: usize,
) -> Result<(Json, usize), NotPlain> {
    if value.is_undefined() {
        return Ok((Json::Object(serde_json::Map::new()), gate::PER_VALUE));
    }
    let ctx = value.ctx();
    let mut reader = Reader {
        object_proto,
        meter: Meter::new(room),
    };
    let json = reader.plain(value, 0);
    if json.is_err() {
        // A getter or proxy trap may have thrown: the exact path runs it
        // again and reports it; nothing may stay pending from this try.
        let _ = ctx.catch();
    }
    json.map(|json| (json, reader.meter.used()))
}

struct Reader<'js> {
    object_proto: Object<'js>,
    meter: Meter,
}

impl<'js> Reader<'js> {
    fn take(&mut self, bytes: usize) -> Result<(), NotPlain> {
        self.meter.bytes(bytes).map_err(|_| NotPlain::TooLarge)
    }

    fn plain(&mut self, value: &Value<'js>, depth: u32) -> Result<Json, NotPlain> {
        self.meter.value().map_err(|_| NotPlain::TooLarge)?;
        let nested = matches!(value.type_of(), Type::Array | Type::Object);
        if nested && depth >= MAX_ARGUMENT_DEPTH {
            return Err(NotPlain::TooDeep);
        }
        match value.type_of() {
            Type::Null => Ok(Json::Null),
            Type::Bool => value.as_bool().map(Json::Bool).ok_or(NotPlain::Lossy),
            Type::Int => value.as_int().map(Json::from).ok_or(NotPlain::Lossy),
            Type::Float => value.as_float().and_then(float).ok_or(NotPlain::Lossy),
            Type::String => {
                let text = text::of_string(value).ok_or(NotPlain::Lossy)?;
                self.take(text.len())?;
                Ok(Json::String(text))
            }
            Type::Array => self.array(value, depth),
            Type::Object => self.object(value, depth),
            _ => Err(NotPlain::Lossy),
        }
    }

    fn array(&mut self, value: &Value<'js>, depth: u32) -> Result<Json, NotPlain> {
        let array = value.as_array().ok_or(NotPlain::Lossy)?;
        if !has_no_to_json(array.as_object()) {
            return Err(NotPlain::Lossy);
        }
        // Not `Array::len`, which panics past i32; and no capacity from
        // `length`: a sparse array (or a proxy) may claim billions of
        // elements, and the first hole ends the walk.
        let length = array
            .as_object()
            .get::<_, Value>("length")
            .ok()
            .and_then(|l| l.as_int())
            .and_then(|l| usize::try_from(l).ok())
            .ok_or(NotPlain::Lossy)?;
        let mut items = Vec::new();
        for i in 0..length {
            let item: Value = array.get(i).map_err(|_| NotPlain::Lossy)?;
            items.push(self.plain(&item, depth + 1)?);
        }
        Ok(Json::Array(items))
    }

    fn object(&mut self, value: &Value<'js>, depth: u32) -> Result<Json, NotPlain> {
        let object = value.as_object().ok_or(NotPlain::Lossy)?;
        match object.get_prototype() {
            None => {}
            Some(proto) if proto == self.object_proto => {}
            Some(_) => return Err(NotPlain::Lossy),
        }
        if !has_no_to_json(object) {
            return Err(NotPlain::Lossy);
        }
        let ctx = value.ctx();
        let mut map = serde_json::Map::new();
        for prop in object.props::<Atom, Value>() {
            let (key, item) = prop.map_err(|_| NotPlain::Lossy)?;
            if item.is_undefined() {
                continue;
            }
            let key = text::of_atom(ctx, &key).ok_or(NotPlain::Lossy)?;
            self.take(key.len())?;
            let item = self.plain(&item, depth + 1)?;
            map.insert(key, item);
        }
        Ok(Json::Object(map))
    }
}

fn has_no_to_json(object: &Object<'_>) -> bool {
    object
        .get::<_, Value>("toJSON")
        .is_ok_and(|v| v.is_undefined())
}

/// A finite number as `JSON.stringify` writes it and serde reads it back:
/// `2`, not `2.0`; `0` for -0; integers as integers.
fn float(f: f64) -> Option<Json> {
    if !f.is_finite() {
        None
    } else if f.fract() == 0.0 && f.abs() < TWO_63 {
        Some(Json::from(f as i64))
    } else if f.fract() == 0.0 && (0.0..2.0 * TWO_63).contains(&f) {
        Some(Json::from(f as u64))
    } else {
        serde_json::Number::from_f64(f).map(Json::Number)
    }
}

fn is_exception(value: qjs::JSValue) -> bool {
    // SAFETY: reading the tag of a value is always valid.
    unsafe { qjs::JS_VALUE_GET_TAG(value) == qjs::JS_TAG_EXCEPTION }
}

/// An int when JavaScript would hold one (integral, in range, not -0).
fn number(n: &serde_json::Number) -> qjs::JSValue {
    if let Some(i) = n.as_i64().and_then(|i| i32::try_from(i).ok()) {
        return qjs::JS_MKVAL(qjs::JS_TAG_INT, i);
    }
    let f = n.as_f64().unwrap_or(f64::NAN);
    qjs::JS_NewFloat64(f)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rquickjs::{Context, Runtime};
    use serde_json::json;

    /// `to_js` then `JSON.stringify`, beside `JSON.parse` of the text.
    fn both_ways(json: &Json) -> (String, String) {
        fn stringify<'js>(ctx: &Ctx<'js>, v: Value<'js>) -> String {
            ctx.json_stringify(v).unwrap().unwrap().to_string().unwrap()
        }
        let runtime = Runtime::new().unwrap();
        let context = Context::full(&runtime).unwrap();
        context.with(|ctx| {
            let direct = stringify(&ctx, to_js(&ctx, json).unwrap());
            let text = serde_json::to_string(json).unwrap();
            let parsed = stringify(&ctx, ctx.json_parse(text).unwrap());
            (direct, parsed)
        })
    }

    #[test]
    fn makes_what_json_parse_makes() {
        let mut deep = json!(1);
        for _ in 0..300 {
            deep = json!([deep]);
        }
        for value in [
            json!(null),
            json!(true),
            json!("text with \"quotes\", \u{e9}, \u{1f600} and \n"),
            json!(0),
            json!(-1),
            json!(2147483648u64),
            json!(-2147483649i64),
            json!(u64::MAX),
            json!(1.5),
            json!(-0.0),
            json!(1e300),
            json!([1, "two", [3], { "four": 4 }, null]),
            json!({ "__proto__": { "x": 1 }, "b": [], "a": {}, "": "empty key" }),
            deep,
            // Made element by element, past the arrays made at once.
            Json::Array((0..=WHOLE_ARRAY).map(|i| json!([i, { "i": i }])).collect()),
            // Short strings shared, past the number kept for sharing, and
            // one just too long to be.
            Json::Array(
                (0..3 * SHARED_STRINGS)
                    .map(|i| {
                        json!([
                            format!("s{}", i % (2 * SHARED_STRINGS)),
                            "é".repeat(16),
                            "x".repeat(33)
                        ])
                    })
                    .collect(),
            ),
        ] {
            let (direct, parsed) = both_ways(&value);
            assert_eq!(direct, parsed, "{value}");
        }
    }

    #[test]
    fn proto_is_an_own_key_and_order_is_kept() {
        let runtime = Runtime::new().unwrap();
        let context = Context::full(&runtime).unwrap();
        context.with(|ctx| {
            let value = to_js(&ctx, &json!({ "z": 1, "__proto__": { "polluted": true }, "a": 2 }))
                .unwrap();
            ctx.globals().set("v", value).unwrap();
            let out: String = ctx
                .eval(
                    "Object.keys(v).join(',') + ' ' + (Object.getPrototypeOf(v) === Object.prototype) + ' ' + ({}).polluted",
                )
                .unwrap();
            assert_eq!(out, "z,__proto__,a true undefined");
        });
    }

    /// An array made at once is an ordinary dense array: it grows, shrinks,
    /// reports its length and its own keys as one defined element by
    /// element does.
    #[test]
    fn arrays_made_at_once_behave_as_arrays() {
        let runtime = Runtime::new().unwrap();
        let context = Context::full(&runtime).unwrap();
        context.with(|ctx| {
            let value = to_js(&ctx, &json!([[], [1, "b", { "c": [null] }], "d"])).unwrap();
            ctx.globals().set("v", value).unwrap();
            let out: String = ctx
                .eval(
                    "const w = v[1]; w.push(4); w.length = 3; v[0][2] = 'x';
                    const d = Object.getOwnPropertyDescriptor(w, 0);
                    JSON.stringify([Array.isArray(v), v.length, Object.keys(w), w.length,
                        v[0].length, 1 in v[0], d.writable && d.enumerable && d.configurable,
                        Object.isExtensible(w), v.indexOf('d'), [...v[1][2].c]])",
                )
                .unwrap();
            assert_eq!(
                out,
                r#"[true,3,["0","1","2"],3,3,false,true,true,2,[null]]"#
            );
        });
    }

    /// `plain_from_js` of the value `expr` evaluates to.
    fn plain_of(expr: &str) -> Option<Json> {
        let runtime = Runtime::new().unwrap();
        let context = Context::full(&runtime).unwrap();
        context.with(|ctx| {
            let value: Value = ctx.eval(expr).unwrap();
            plain_from_js(&value, usize::MAX).ok().map(|(json, _)| json)
        })
    }

    #[test]
    fn plain_arguments_come_out_as_json_stringify_writes_them() {
        for (expr, want) in [
            (
                "({ a: 1, b: 'x', c: [true, null, 2.5], d: { e: {} } })",
                json!({ "a": 1, "b": "x", "c": [true, null, 2.5], "d": { "e": {} } }),
            ),
            (
                "({ n: 2.0, z: -0, big: 2 ** 60, u: undefined })",
                json!({ "n": 2, "z": 0, "big": 1152921504606846976u64 }),
            ),
            (
                "[2 ** 63, 1e21, -(2 ** 62)]",
                json!([9223372036854775808u64, 1e21, -4611686018427387904i64]),
            ),
            (
                "({ 2: 'b', 1: 'a', k: 'c' })",
                json!({ "1": "a", "2": "b", "k": "c" }),
            ),
            (
                "JSON.parse('{\"__proto__\": 1}')",
                json!({ "__proto__": 1 }),
            ),
            (
                "(() => { const o = Object.create(null); o.k = 1; return o })()",
                json!({ "k": 1 }),
            ),
            (
                "(() => { globalThis.Object = function () {}; return { k: 1 } })()",
                json!({ "k": 1 }),
            ),
            ("'\\u00e9\\u{1f600}'", json!("\u{e9}\u{1f600}")),
            ("undefined", json!({})),
            (
                "({ ['k\\ud800']: '\\udc00v' })",
                json!({ "k\u{fffd}": "\u{fffd}v" }),
            ),
        ] {
            assert_eq!(plain_of(expr), Some(want), "{expr}");
        }
    }

    #[test]
    fn anything_json_would_change_is_not_plain() {
        for expr in [
            "[1, undefined]",
            "[1, , 3]",
            "({ n: NaN })",
            "({ n: -Infinity })",
            "({ b: 1n })",
            "({ f() {} })",
            "({ s: Symbol('x') })",
            "({ d: new Date(0) })",
            "({ m: new Map() })",
            "({ t: new Uint8Array(2) })",
            "({ j: { toJSON() { return 1 } } })",
            "(() => { const a = [1]; a.toJSON = () => 2; return a })()",
            "(() => { class C {}; return { c: new C() } })()",
            "(() => { const o = {}; o.o = o; return o })()",
        ] {
            assert_eq!(plain_of(expr), None, "{expr}");
        }
    }

    #[test]
    fn depth_and_size_are_bounded() {
        let runtime = Runtime::new().unwrap();
        let context = Context::full(&runtime).unwrap();
        context.with(|ctx| {
            let nest = |levels: usize| -> Value {
                ctx.eval(format!("{}1{}", "[".repeat(levels), "]".repeat(levels)))
                    .unwrap()
            };
            let deepest = nest(MAX_ARGUMENT_DEPTH as usize);
            assert!(plain_from_js(&deepest, usize::MAX).is_ok());
            let too_deep = nest(MAX_ARGUMENT_DEPTH as usize + 1);
            assert_eq!(
                plain_from_js(&too_deep, usize::MAX).err(),
                Some(NotPlain::TooDeep)
            );
            let big: Value = ctx.eval("({ s: 'x'.repeat(1000) })").unwrap();
            let (_, bytes) = plain_from_js(&big, usize::MAX).unwrap();
            assert!((1000..1500).contains(&bytes), "{bytes}");
            assert_eq!(plain_from_js(&big, 999).err(), Some(NotPlain::TooLarge));
        });
    }
}

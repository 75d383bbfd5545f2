//! Tool results straight into QuickJS values: what `JSON.parse` of their
//! text would make, without writing the text and tokenizing it again.

use rquickjs::{Ctx, Value, qjs};
use serde_json::Value as Json;

/// Deeper than this, a subtree goes through JSON text (whose parser checks
/// the stack itself).
const MAX_DEPTH: u32 = 256;

/// `JSON.parse(JSON.stringify(json))` inside `ctx`. On failure (out of
/// memory) the exception is pending in `ctx`.
pub(crate) fn to_js<'js>(ctx: &Ctx<'js>, json: &Json) -> rquickjs::Result<Value<'js>> {
    // SAFETY: `build` returns an owned value of this context, or nothing;
    // the value is handed to rquickjs, which frees it.
    match unsafe { build(ctx, json, 0) } {
        Some(raw) => Ok(unsafe { Value::from_raw(ctx.clone(), raw) }),
        None => Err(rquickjs::Error::Exception),
    }
}

/// An owned value for `json`, or `None` with an exception pending.
///
/// # Safety
/// Every value made here belongs to `ctx`; each is either returned, handed
/// to a `Define` call (which takes it), or freed.
unsafe fn build(ctx: &Ctx<'_>, json: &Json, depth: u32) -> Option<qjs::JSValue> {
    let raw = ctx.as_raw().as_ptr();
    let value = match json {
        Json::Null => qjs::JS_NULL,
        Json::Bool(true) => qjs::JS_TRUE,
        Json::Bool(false) => qjs::JS_FALSE,
        Json::Number(n) => number(n),
        Json::String(s) => unsafe { qjs::JS_NewStringLen(raw, s.as_ptr().cast(), s.len() as _) },
        Json::Array(_) | Json::Object(_) if depth >= MAX_DEPTH => {
            let text = serde_json::to_string(json).ok()?;
            let parsed = ctx.json_parse(text).ok()?;
            // A reference of our own; `parsed` (and its hold on the context) drops.
            unsafe { qjs::JS_DupValue(raw, parsed.as_raw()) }
        }
        Json::Array(items) => {
            let array = unsafe { qjs::JS_NewArray(raw) };
            if is_exception(array) {
                return None;
            }
            for (i, item) in items.iter().enumerate() {
                let defined = unsafe { build(ctx, item, depth + 1) }.is_some_and(|v| {
                    let flags = qjs::JS_PROP_C_W_E as i32;
                    unsafe {
                        qjs::JS_DefinePropertyValueUint32(raw, array, i as u32, v, flags) >= 0
                    }
                });
                if !defined {
                    unsafe { qjs::JS_FreeValue(raw, array) };
                    return None;
                }
            }
            array
        }
        Json::Object(map) => {
            let object = unsafe { qjs::JS_NewObject(raw) };
            if is_exception(object) {
                return None;
            }
            for (key, item) in map {
                // A definition, as JSON.parse makes: `__proto__` is a key.
                let atom = unsafe { qjs::JS_NewAtomLen(raw, key.as_ptr().cast(), key.len() as _) };
                let defined = atom != qjs::JS_ATOM_NULL
                    && unsafe { build(ctx, item, depth + 1) }.is_some_and(|v| {
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
            object
        }
    };
    (!is_exception(value)).then_some(value)
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
}

//! Text out of QuickJS, always valid UTF-8.
//!
//! JavaScript strings are UTF-16 and may hold lone surrogates (half of an
//! emoji cut by `slice` is an ordinary case). QuickJS writes those as
//! three-byte sequences that are not UTF-8, and rquickjs either refuses such
//! text or (for property keys) hands it on unchecked. Everything that leaves
//! the sandbox as text goes through here instead: each lone surrogate becomes
//! one U+FFFD (contracts §7).

use rquickjs::{Atom, Ctx, Value, qjs};

/// The text of a JavaScript string value, or `None` if `value` is not a
/// string (or QuickJS could not allocate its copy).
pub(crate) fn of_string(value: &Value<'_>) -> Option<String> {
    if !value.is_string() {
        return None;
    }
    let ctx = value.ctx();
    let mut len = 0;
    // SAFETY: `value` is a live string of `ctx`; the returned buffer lives
    // until `JS_FreeCString` and holds `len` bytes.
    unsafe {
        let ptr = qjs::JS_ToCStringLen2(ctx.as_raw().as_ptr(), &mut len, value.as_raw(), false);
        copy_and_free(ctx, ptr, len as usize)
    }
}

/// The `length` of a JavaScript string value (UTF-16 units), read without
/// copying its text; `None` if `value` is not a string.
pub(crate) fn utf16_len(value: &Value<'_>) -> Option<usize> {
    if !value.is_string() {
        return None;
    }
    let ctx = value.ctx();
    // SAFETY: `value` is a live string of `ctx`; QuickJS answers a string's
    // `length` from its header, and the returned value is owned by us.
    let length = unsafe {
        let raw = qjs::JS_GetPropertyStr(ctx.as_raw().as_ptr(), value.as_raw(), c"length".as_ptr());
        Value::from_raw(ctx.clone(), raw)
    };
    length.as_int().and_then(|n| usize::try_from(n).ok())
}

/// The text of a property key of `ctx`.
pub(crate) fn of_atom(ctx: &Ctx<'_>, atom: &Atom<'_>) -> Option<String> {
    match atom.to_value() {
        Ok(value) => of_string(&value),
        Err(_) => {
            let _ = ctx.catch();
            None
        }
    }
}

/// Copies a C string QuickJS made, then frees it.
///
/// # Safety
/// `ptr` is null or a buffer from `JS_ToCStringLen2`/`JS_AtomToCStringLen`
/// of `ctx` holding `len` bytes.
unsafe fn copy_and_free(ctx: &Ctx<'_>, ptr: *const std::ffi::c_char, len: usize) -> Option<String> {
    if ptr.is_null() {
        // An exception (out of memory) is pending: the caller reports failure.
        let _ = ctx.catch();
        return None;
    }
    let bytes = unsafe { std::slice::from_raw_parts(ptr.cast::<u8>(), len) };
    let text = from_wtf8(bytes);
    unsafe { qjs::JS_FreeCString(ctx.as_raw().as_ptr(), ptr) };
    Some(text)
}

/// UTF-8 from QuickJS's bytes: each encoded lone surrogate (`ED A0..BF
/// 80..BF`) becomes one U+FFFD; anything else invalid, U+FFFD too.
pub(crate) fn from_wtf8(bytes: &[u8]) -> String {
    if let Ok(text) = std::str::from_utf8(bytes) {
        return text.to_owned();
    }
    let mut out = String::with_capacity(bytes.len());
    let mut rest = bytes;
    loop {
        match std::str::from_utf8(rest) {
            Ok(valid) => {
                out.push_str(valid);
                return out;
            }
            Err(error) => {
                let (valid, invalid) = rest.split_at(error.valid_up_to());
                // `valid_up_to` promises this prefix is UTF-8.
                out.push_str(std::str::from_utf8(valid).unwrap_or_default());
                out.push('\u{fffd}');
                let surrogate = matches!(invalid, [0xed, 0xa0..=0xbf, 0x80..=0xbf, ..]);
                let skip = match (surrogate, error.error_len()) {
                    (true, _) => 3,
                    (false, Some(n)) => n,
                    (false, None) => invalid.len(),
                };
                rest = &invalid[skip..];
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rquickjs::{Context, Runtime};

    #[test]
    fn lone_surrogates_become_one_replacement_character_each() {
        assert_eq!(from_wtf8(b"plain"), "plain");
        assert_eq!(from_wtf8(b"a\xed\xa0\x80b"), "a\u{fffd}b");
        assert_eq!(from_wtf8(b"\xed\xb0\x80\xed\xa0\xbd"), "\u{fffd}\u{fffd}");
        assert_eq!(from_wtf8(b"x\xed\xa0"), "x\u{fffd}\u{fffd}");
        assert_eq!(from_wtf8(b"\xff\xc3\xa9"), "\u{fffd}\u{e9}");
    }

    #[test]
    fn strings_and_keys_from_quickjs() {
        let runtime = Runtime::new().unwrap();
        let context = Context::full(&runtime).unwrap();
        context.with(|ctx| {
            let cut: Value = ctx
                .eval("'Release notes \\u{1f389} for v2'.slice(0, 15)")
                .unwrap();
            assert_eq!(of_string(&cut).as_deref(), Some("Release notes \u{fffd}"));
            let pair: Value = ctx.eval("'\\u{1f389}\\udc00'").unwrap();
            assert_eq!(of_string(&pair).as_deref(), Some("\u{1f389}\u{fffd}"));
            let key = Atom::from_str(ctx.clone(), "k\u{e9}").unwrap();
            assert_eq!(of_atom(&ctx, &key).as_deref(), Some("k\u{e9}"));
            let object: rquickjs::Object = ctx.eval("({ ['\\ud800x']: 1 })").unwrap();
            let keys: Vec<String> = object
                .keys::<Atom>()
                .map(|k| of_atom(&ctx, &k.unwrap()).unwrap())
                .collect();
            assert_eq!(keys, ["\u{fffd}x"]);
            assert_eq!(of_string(&Value::new_int(ctx.clone(), 1)), None);
        });
    }
}

//! `tools.$search` and `tools.$describe` (contracts §6) on the run's side:
//! their arguments checked and bounded here, in Rust (by the engine's
//! `discovery` bounds), so the prelude every run evaluates does not grow
//! with them; the answers come from the SDK's search index and renderer.

use rquickjs::function::Opt;
use rquickjs::{Ctx, Exception, Value};

use super::super::{convert, text};
use crate::contract::run_code::Language;
use crate::engine::discovery::{
    DEFAULT_LIMIT, MAX_DESCRIBED, MAX_LIMIT, MAX_NAME_CHARS, MAX_QUERY_CHARS,
};
use crate::sdk::describe;
use crate::tool::registry::Scope;

/// `tools.$search(query, { limit? })`: `[{ name, summary, score }]`.
pub(super) fn search<'js>(
    ctx: &Ctx<'js>,
    scope: &Scope,
    query: &Value<'js>,
    options: Opt<Value<'js>>,
) -> rquickjs::Result<Value<'js>> {
    if !query.is_string() {
        return Err(Exception::throw_type(
            ctx,
            "tools.$search: the query must be a string",
        ));
    }
    let limit = limit(ctx, options.0)?;
    let query = text::of_string(query).unwrap_or_default();
    let query: String = query.chars().take(MAX_QUERY_CHARS).collect();
    let found = scope.search(&query, limit);
    let found = serde_json::to_value(found).unwrap_or_default();
    convert::to_js(ctx, &found)
}

/// The `limit` option: a number, clamped to 1 … 50 and rounded down.
fn limit<'js>(ctx: &Ctx<'js>, options: Option<Value<'js>>) -> rquickjs::Result<u32> {
    let Some(options) = options.filter(|o| !o.is_undefined() && !o.is_null()) else {
        return Ok(DEFAULT_LIMIT);
    };
    let Some(options) = options.as_object().filter(|_| !options.is_function()) else {
        return Err(Exception::throw_type(
            ctx,
            "tools.$search: options must be an object",
        ));
    };
    let limit: Value = options.get("limit")?;
    if limit.is_undefined() {
        return Ok(DEFAULT_LIMIT);
    }
    match limit.as_number() {
        Some(n) if !n.is_nan() => Ok(n.clamp(1.0, MAX_LIMIT).floor() as u32),
        _ => Err(Exception::throw_type(
            ctx,
            "tools.$search: limit must be a number",
        )),
    }
}

/// `tools.$describe(names)`: the declarations of the named tools.
pub(super) fn describe<'js>(
    ctx: &Ctx<'js>,
    scope: &Scope,
    names: &Value<'js>,
) -> rquickjs::Result<String> {
    let names = if names.is_string() {
        vec![name(names)]
    } else if let Some(array) = names.as_array() {
        // The count first: a huge array is refused before it is read.
        if array.len() > MAX_DESCRIBED {
            let message = format!("tools.$describe: at most {MAX_DESCRIBED} names at once");
            return Err(Exception::throw_range(ctx, &message));
        }
        let mut list = Vec::with_capacity(array.len());
        for index in 0..array.len() {
            let item: Value = array.get(index)?;
            if !item.is_string() {
                let message = "tools.$describe: every name must be a string";
                return Err(Exception::throw_type(ctx, message));
            }
            list.push(name(&item));
        }
        list
    } else {
        let message = "tools.$describe: names must be a string or an array of strings";
        return Err(Exception::throw_type(ctx, message));
    };
    Ok(describe::describe(scope, &names, Language::TypeScript))
}

/// A name as given (lone surrogates as U+FFFD), or, past the longest tool
/// name, its length. The length is read before the text, so a huge name
/// costs nothing: copying 256 names of 32 MB each would be seconds of host
/// work no interrupt reaches.
fn name(value: &Value<'_>) -> String {
    match text::utf16_len(value).unwrap_or_default() {
        n if n > MAX_NAME_CHARS => format!("(a name of {n} characters)"),
        _ => text::of_string(value).unwrap_or_default(),
    }
}

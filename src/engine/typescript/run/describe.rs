//! Text for what a program throws or rejects with: the message and the
//! model-code position of an error, and a bounded description of any value.

use rquickjs::{Ctx, Object, Value};

use super::super::text;
use crate::engine::output::floor_char_boundary;

/// Bytes of one rejection's description.
const DESCRIPTION_BYTES: usize = 1024;
/// The file name of the model's code in stack traces.
pub(super) const PROGRAM_FILE: &std::ffi::CStr = c"program.ts";

/// Text for a rejection reason: `name: message` of an object, else the
/// value itself; at most [`DESCRIPTION_BYTES`].
pub(super) fn describe_reason(reason: &Value<'_>) -> String {
    let mut text = describe_value(reason);
    if text.len() > DESCRIPTION_BYTES {
        text.truncate(floor_char_boundary(&text, DESCRIPTION_BYTES));
        text.push('…');
    }
    text
}

fn describe_value(reason: &Value<'_>) -> String {
    if let Some(object) = reason.as_object() {
        let name = text_property(object, "name");
        let message = text_property(object, "message");
        return match (name, message) {
            (Some(n), Some(m)) if !m.is_empty() => format!("{n}: {m}"),
            (Some(n), _) => n,
            (None, Some(m)) => m,
            (None, None) => "[object]".into(),
        };
    }
    if let Some(s) = text::of_string(reason) {
        return s;
    }
    if let Some(n) = reason.as_number() {
        return n.to_string();
    }
    if let Some(b) = reason.as_bool() {
        return b.to_string();
    }
    if reason.is_null() {
        return "null".into();
    }
    "undefined".into()
}

/// A string property, read as the program left it (a getter may run; what
/// it throws is dropped).
fn text_property(object: &Object<'_>, key: &str) -> Option<String> {
    match object.get::<_, Value>(key) {
        Ok(value) => text::of_string(&value),
        Err(_) => {
            let _ = object.ctx().catch();
            None
        }
    }
}

/// Message and program position (as QuickJS reports it in the wrapped
/// script) of a caught error.
pub(super) fn describe_error(
    ctx: &Ctx<'_>,
    error: rquickjs::Error,
) -> (String, Option<(u32, u32)>) {
    if !matches!(error, rquickjs::Error::Exception) {
        return (error.to_string(), None);
    }
    let caught = ctx.catch();
    let Some(object) = caught.as_object() else {
        return (format!("Uncaught {}", describe_reason(&caught)), None);
    };
    let message = describe_reason(&caught);
    let stack = text_property(object, "stack").unwrap_or_default();
    let position = position_in_stack(&stack).or_else(|| {
        // QuickJS puts a syntax error's position on the error object.
        let line: Option<u32> = object.get("lineNumber").ok();
        let column: Option<u32> = object.get("columnNumber").ok();
        line.zip(column)
    });
    (message, position)
}

/// The first `program.ts:L:C` frame of a stack trace.
pub(super) fn position_in_stack(stack: &str) -> Option<(u32, u32)> {
    let file = PROGRAM_FILE.to_str().ok()?;
    stack.lines().find_map(|line| {
        let at = line.find(file)?;
        let mut rest = line[at + file.len()..].strip_prefix(':')?.split(':');
        let line_no = rest.next()?.parse().ok()?;
        let column = rest.next()?.trim_end_matches(')').parse().ok()?;
        Some((line_no, column))
    })
}

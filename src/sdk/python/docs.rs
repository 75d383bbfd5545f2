//! Docstrings and comments: a schema's description (or title) and its
//! constraints, made safe to sit inside `"""…"""` or after `#`.

use std::fmt::Write as _;

use serde_json::Value;

use crate::sdk::keywords::Keywords;
use crate::sdk::text::trim;

/// The keywords shown as constraints, and whether each is a flag (shown
/// only when `true`).
fn constraint(key: &str) -> Option<bool> {
    match key {
        "deprecated" | "uniqueItems" => Some(true),
        "default" | "format" | "pattern" | "minimum" | "maximum" | "exclusiveMinimum"
        | "exclusiveMaximum" | "multipleOf" | "minLength" | "maxLength" | "minItems"
        | "maxItems" | "minProperties" | "maxProperties" | "examples" => Some(false),
        _ => None,
    }
}

/// The description (or title), then the constraints in schema order, as
/// `text (key: value; flag)`; empty when the schema says nothing.
pub(super) fn schema_note(kw: &Keywords<'_>) -> String {
    let mut out = kw.text().map(str::to_owned).unwrap_or_default();
    let mut notes = Vec::new();
    for (key, value) in kw.tags.into_iter().flatten() {
        let Some(flag) = constraint(key) else {
            continue;
        };
        match (flag, value) {
            (true, Value::Bool(true)) => notes.push(key.clone()),
            (true, _) => {}
            (false, Value::String(s)) if key == "format" || key == "pattern" => {
                notes.push(format!("{key}: {s}"));
            }
            (false, _) => notes.push(format!("{key}: {value}")),
        }
    }
    if !notes.is_empty() {
        if !out.is_empty() {
            out.push(' ');
        }
        let _ = write!(out, "({})", notes.join("; "));
    }
    out
}

/// A docstring at `indent`: on one line when short and plain, else with its
/// closing quotes on a line of their own. Nothing for empty text.
pub(super) fn push_docstring(out: &mut String, text: &str, indent: &str) {
    let text = trim(text);
    if text.is_empty() {
        return;
    }
    out.push_str(indent);
    out.push_str("\"\"\"");
    let one_line = !text.contains('\n') && indent.len() + text.len() + 6 <= 88;
    push_string_body(out, text, indent);
    if !one_line {
        out.push('\n');
        out.push_str(indent);
    }
    out.push_str("\"\"\"\n");
}

/// Text inside `"""…"""`: backslashes and control characters escaped, and
/// every quote that follows a quote (or ends the text) escaped, so no run of
/// three ever closes the string early; lines continue at `indent`.
fn push_string_body(out: &mut String, text: &str, indent: &str) {
    let mut prev = '\0';
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' => out.push_str("\\\\"),
            '"' if prev == '"' || chars.peek().is_none() => out.push_str("\\\""),
            '\n' => {
                while out.ends_with(' ') {
                    out.pop();
                }
                out.push('\n');
                if chars.peek().is_some_and(|&next| next != '\n') {
                    out.push_str(indent);
                }
            }
            '\r' if chars.peek() == Some(&'\n') => {}
            '\t' => out.push('\t'),
            c if c.is_ascii_control() => {
                let _ = write!(out, "\\x{:02x}", c as u32);
            }
            c => out.push(c),
        }
        prev = c;
    }
}

/// `# text` lines at `indent`, one per line of the text; control
/// characters written as `\xNN`. Nothing for empty text.
pub(super) fn push_comment(out: &mut String, text: &str, indent: &str) {
    let text = trim(text);
    if text.is_empty() {
        return;
    }
    for line in text.lines() {
        out.push_str(indent);
        out.push('#');
        if !line.is_empty() {
            out.push(' ');
        }
        for c in line.trim_end().chars() {
            if c.is_control() && c != '\t' {
                let _ = write!(out, "\\x{:02x}", c as u32);
            } else {
                out.push(c);
            }
        }
        out.push('\n');
    }
}

//! An outline of what each tool last returned in a run: its type, and an
//! object's first keys with theirs. A `TypeError` on a value the program
//! got from a tool then says what that value was (contracts §7, Hints).
//! Written when a sub-call settles, into buffers reused for the run, so a
//! run that succeeds pays for a few short writes per sub-call and keeps
//! no value alive.

use std::fmt::Write;

use serde_json::Value as Json;

use super::excerpt::is_ident;
use crate::engine::progress::plural;

/// At most this many tools are outlined in a run; later ones are not.
const TOOLS: usize = 64;
/// An object's keys shown; the rest are counted.
const KEYS: usize = 5;
/// A key longer than this is cut (with `…`).
const KEY_CHARS: usize = 40;
/// A string's first characters shown.
const START_CHARS: usize = 24;

/// The outline of each tool's last value, by tool name.
#[derive(Default)]
pub(crate) struct Returned {
    outlines: Vec<(String, String)>,
}

impl Returned {
    /// Keeps the outline of `value`, which `tool` has just returned.
    pub(crate) fn record(&mut self, tool: &str, value: &Json) {
        let at = match self.outlines.iter().position(|(name, _)| name == tool) {
            Some(at) => at,
            None if self.outlines.len() < TOOLS => {
                self.outlines.push((tool.to_owned(), String::new()));
                self.outlines.len() - 1
            }
            None => return,
        };
        let outline = &mut self.outlines[at].1;
        outline.clear();
        write_outline(outline, value);
    }

    /// What `tool` last returned, in outline; none when it never returned.
    pub(crate) fn of(&self, tool: &str) -> Option<&str> {
        self.outlines
            .iter()
            .find(|(name, _)| name == tool)
            .map(|(_, outline)| outline.as_str())
    }
}

/// `an object { content: string, size: number }`, `an array of 3 items,
/// the first an object { name: string }`, `a string "# Title…"`.
fn write_outline(out: &mut String, value: &Json) {
    match value {
        Json::Array(items) => {
            let _ = write!(out, "an array of {}", plural(items.len(), "item"));
            if let Some(first) = items.first() {
                out.push_str(", the first ");
                write_kind(out, first, true);
            }
        }
        other => write_kind(out, other, true),
    }
}

/// The kind of `value` with its article; an object's keys when `keys`.
fn write_kind(out: &mut String, value: &Json, keys: bool) {
    match value {
        Json::Null => out.push_str("null"),
        Json::Bool(b) => {
            let _ = write!(out, "the boolean {b}");
        }
        Json::Number(_) => out.push_str("a number"),
        // Its start, not its length: counting characters would cost a pass
        // over every string a tool returns.
        Json::String(s) => {
            out.push_str("a string ");
            write_start(out, s);
        }
        Json::Array(items) => {
            let _ = write!(out, "an array of {}", plural(items.len(), "item"));
        }
        Json::Object(members) if keys => {
            out.push_str("an object ");
            write_members(out, members);
        }
        Json::Object(_) => out.push_str("an object"),
    }
}

/// `{ content: string, "a key": number, … 3 more }`, `{}`.
fn write_members(out: &mut String, members: &serde_json::Map<String, Json>) {
    if members.is_empty() {
        out.push_str("{}");
        return;
    }
    out.push_str("{ ");
    for (i, (key, value)) in members.iter().take(KEYS).enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        write_key(out, key);
        out.push_str(": ");
        out.push_str(match value {
            Json::Null => "null",
            Json::Bool(_) => "boolean",
            Json::Number(_) => "number",
            Json::String(_) => "string",
            Json::Array(_) => "array",
            Json::Object(_) => "object",
        });
    }
    if members.len() > KEYS {
        let _ = write!(out, ", … {} more", members.len() - KEYS);
    }
    out.push_str(" }");
}

/// A key as the program would write it: bare when it is a plain name,
/// else quoted with its escapes; a long one cut.
fn write_key(out: &mut String, key: &str) {
    let cut: String;
    let key = match key.char_indices().nth(KEY_CHARS) {
        Some((at, _)) => {
            cut = format!("{}…", &key[..at]);
            &cut
        }
        None => key,
    };
    if is_ident(key) {
        out.push_str(key);
    } else {
        out.push_str(&serde_json::to_string(key).unwrap_or_default());
    }
}

/// `"# Title\nSome…"`: the first characters of `text`, quoted.
fn write_start(out: &mut String, text: &str) {
    match text.char_indices().nth(START_CHARS) {
        Some((at, _)) => {
            let quoted = serde_json::to_string(&text[..at]).unwrap_or_default();
            out.push_str(&quoted[..quoted.len() - 1]);
            out.push_str("…\"");
        }
        None => out.push_str(&serde_json::to_string(text).unwrap_or_default()),
    }
}

#[cfg(test)]
mod tests {
    use super::Returned;
    use serde_json::json;

    fn outline(value: serde_json::Value) -> String {
        let mut returned = Returned::default();
        returned.record("t", &value);
        returned.of("t").unwrap().to_owned()
    }

    #[test]
    fn objects_show_their_first_keys_and_the_kinds_of_their_values() {
        assert_eq!(
            outline(json!({ "content": "a", "size": 3, "meta": {}, "tags": [] })),
            "an object { content: string, size: number, meta: object, tags: array }"
        );
        assert_eq!(
            outline(json!({ "a": 1, "b": 2, "c": 3, "d": 4, "e": 5, "f": 6, "g": null })),
            "an object { a: number, b: number, c: number, d: number, e: number, … 2 more }"
        );
        assert_eq!(outline(json!({})), "an object {}");
        assert_eq!(
            outline(json!({ "a key": true, "x\n": null })),
            "an object { \"a key\": boolean, \"x\\n\": null }"
        );
        let long = "k".repeat(100);
        assert_eq!(
            outline(json!({ long: 1 })),
            format!("an object {{ \"{}…\": number }}", "k".repeat(40))
        );
    }

    #[test]
    fn arrays_strings_and_scalars_say_their_kind() {
        assert_eq!(
            outline(json!([{ "name": "a" }, 2])),
            "an array of 2 items, the first an object { name: string }"
        );
        assert_eq!(outline(json!([])), "an array of 0 items");
        assert_eq!(outline(json!("héllo")), "a string \"héllo\"");
        assert_eq!(
            outline(json!(format!("{{\"items\": [{}]}}", "1, ".repeat(20)))),
            "a string \"{\\\"items\\\": [1, 1, 1, 1, 1…\""
        );
        assert_eq!(outline(json!(1.5)), "a number");
        assert_eq!(outline(json!(null)), "null");
        assert_eq!(outline(json!(false)), "the boolean false");
    }

    #[test]
    fn the_last_value_of_each_tool_is_kept_for_a_bounded_number_of_tools() {
        let mut returned = Returned::default();
        returned.record("a", &json!(1));
        returned.record("a", &json!("x"));
        assert_eq!(returned.of("a"), Some("a string \"x\""));
        assert_eq!(returned.of("b"), None);
        for i in 0..100 {
            returned.record(&format!("t{i}"), &json!(null));
        }
        assert_eq!(returned.of("t62"), Some("null"));
        assert_eq!(returned.of("t63"), None);
    }
}

//! Named types for local `$ref`s: what is being declared, what an alias
//! holds, and how its name is made from the `$ref`.

use serde_json::Value;

/// Type names of TypeScript's default libraries: an alias must not redeclare them.
const LIB_NAMES: &str = include_str!("../lib-names.txt");
/// The name of the error class the frame declares.
const ERROR_CLASS: &str = "ToolCallError";

/// The document `$ref`s resolve against, and what is being declared.
#[derive(Clone, Copy)]
pub(super) struct Scope<'a> {
    pub(super) root: &'a Value,
    /// The tool the root belongs to; names an alias of the root itself (`#`).
    pub(super) owner: &'a str,
    /// `Args`, `Output` or `Schema`: the suffix of that alias.
    pub(super) kind: &'static str,
    /// The alias whose body is being written, to break cycles TypeScript rejects.
    pub(super) alias: Option<&'a Value>,
}

/// A named type from a local `$ref`.
pub(super) struct Alias<'a> {
    pub(super) name: String,
    /// The name before de-duplication; aliases share a name only with equal bases.
    pub(super) base: String,
    pub(super) scope: Scope<'a>,
    pub(super) target: &'a Value,
    /// Every `$ref` reachable from the target with what it resolves to: equal
    /// closures mean equal types, so tools can share the alias.
    pub(super) closure: Vec<(&'a str, &'a Value)>,
}

/// The part of a `$ref` that names it: the last pointer segment, with the one
/// before it when the last is an index (`anyOf/0`).
pub(super) fn ref_label(r: &str) -> &str {
    let mut segments = r.rsplit('/');
    let last = segments.next().unwrap_or("");
    if !last.is_empty() && last.bytes().all(|b| b.is_ascii_digit()) {
        let before = segments.next().map_or(0, str::len);
        return &r[r.len() - last.len() - usize::from(before > 0) - before..];
    }
    last
}

/// `rich_text-request` → `RichTextRequest`; only ASCII letters and digits survive.
pub(super) fn pascal(s: &str, out: &mut String) {
    let mut upper = true;
    for c in s.chars() {
        if c.is_ascii_alphanumeric() {
            out.push(if upper { c.to_ascii_uppercase() } else { c });
            upper = false;
        } else {
            upper = true;
        }
    }
}

pub(super) fn is_reserved(name: &str) -> bool {
    name == ERROR_CLASS || LIB_NAMES.lines().any(|line| line == name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ref_labels_and_pascal_names() {
        assert_eq!(ref_label("#/$defs/richTextRequest"), "richTextRequest");
        assert_eq!(ref_label("#/properties/a/anyOf/0"), "anyOf/0");
        let mut s = String::new();
        pascal("rich_text-request 2", &mut s);
        assert_eq!(s, "RichTextRequest2");
        assert!(is_reserved("Event") && is_reserved("Record") && is_reserved("ToolCallError"));
        assert!(!is_reserved("RichText") && !is_reserved("# Type names declared"));
    }
}

//! Type names from schema places: a `$ref`'s label in PascalCase, for the
//! TypeScript aliases and the Python classes and aliases alike.

use crate::json::percent_decoded;

/// The name a non-root `$ref` asks for: its label in PascalCase, never empty
/// and never starting with a digit.
pub(super) fn ref_name(r: &str) -> String {
    let mut base = String::new();
    if r.contains('%') {
        pascal(
            ref_label(&percent_decoded(r).unwrap_or_default()),
            &mut base,
        );
    } else {
        pascal(ref_label(r), &mut base);
    }
    if base.is_empty() {
        base.push_str("Type");
    }
    lead_with_letter(base)
}

/// The name of a tool's whole schema: `create-issue`, `Args` → `CreateIssueArgs`.
pub(super) fn root_name(owner: &str, kind: &str) -> String {
    let mut base = String::new();
    pascal(owner, &mut base);
    base.push_str(kind);
    lead_with_letter(base)
}

fn lead_with_letter(mut name: String) -> String {
    if name.starts_with(|c: char| c.is_ascii_digit()) {
        name.insert(0, 'T');
    }
    name
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
        assert_eq!(ref_name("#/$defs/2d"), "T2d");
        assert_eq!(ref_name("#/$defs/-"), "Type");
        assert_eq!(root_name("3d-print", "Args"), "T3dPrintArgs");
    }
}

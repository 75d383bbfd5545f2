//! Named types for local `$ref`s: what is being declared, and the table that
//! gives each `$ref` its alias, shared between tools when the referenced
//! graph is identical and suffixed when names clash.

use std::collections::{HashMap, HashSet};
use std::fmt::Write as _;

use serde_json::Value;

use super::refs::{closure, percent_decode, resolve};

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
struct Alias<'a> {
    name: String,
    /// The name before de-duplication; aliases share a name only with equal bases.
    base: String,
    scope: Scope<'a>,
    target: &'a Value,
    /// Every `$ref` reachable from the target with what it resolves to: equal
    /// closures mean equal types, so tools can share the alias.
    closure: Vec<(&'a str, &'a Value)>,
}

/// Every alias made so far, in discovery order, and the names they took.
pub(super) struct Aliases<'a> {
    list: Vec<Alias<'a>>,
    /// The alias (or none) each `$ref` of each root already got.
    by_ref: HashMap<(*const Value, &'a str), Option<usize>>,
    names: HashSet<String>,
}

impl<'a> Aliases<'a> {
    pub(super) fn new() -> Self {
        Self {
            list: Vec::new(),
            by_ref: HashMap::new(),
            names: HashSet::new(),
        }
    }

    /// Whether any `$ref` was looked up: until then, what was rendered does
    /// not depend on the tools rendered before it.
    pub(super) fn looked_up(&self) -> bool {
        !self.by_ref.is_empty()
    }

    pub(super) fn name(&self, i: usize) -> &str {
        &self.list[i].name
    }

    /// What alias `i` declares (the scope its body is written in, and the
    /// target schema), or `None` past the last alias.
    pub(super) fn body(&self, i: usize) -> Option<(Scope<'a>, &'a Value)> {
        self.list.get(i).map(|alias| (alias.scope, alias.target))
    }

    /// The alias for a local `$ref` of `scope`'s root, made on first use.
    pub(super) fn for_ref(&mut self, scope: Scope<'a>, r: &'a str) -> Option<usize> {
        let key = (scope.root as *const Value, r);
        if let Some(&known) = self.by_ref.get(&key) {
            return known;
        }
        let found = self.add(scope, r);
        self.by_ref.insert(key, found);
        found
    }

    fn add(&mut self, scope: Scope<'a>, r: &'a str) -> Option<usize> {
        let root = scope.root;
        let target = resolve(root, r)?;
        let base = base_name(scope, r);
        let closure = closure(root, r);
        if let Some(i) = self
            .list
            .iter()
            .position(|a| a.base == base && a.closure == closure)
        {
            return Some(i);
        }
        let name = self.unique_name(&base);
        self.list.push(Alias {
            name,
            base,
            scope: Scope {
                alias: Some(target),
                ..scope
            },
            target,
            closure,
        });
        Some(self.list.len() - 1)
    }

    /// `base`, or `base` with the first free number from 2 on, taken.
    fn unique_name(&mut self, base: &str) -> String {
        let mut name = base.to_owned();
        let mut n = 2u32;
        while self.names.contains(&name) || is_reserved(&name) {
            name.truncate(base.len());
            let _ = write!(name, "{n}");
            n += 1;
        }
        self.names.insert(name.clone());
        name
    }
}

/// The name a `$ref` asks for: its label (the tool and kind for the root
/// itself) in PascalCase, never empty and never starting with a digit.
fn base_name(scope: Scope<'_>, r: &str) -> String {
    let mut base = String::new();
    if r == "#" {
        pascal(scope.owner, &mut base);
        base.push_str(scope.kind);
    } else if r.contains('%') {
        pascal(ref_label(&percent_decode(r).unwrap_or_default()), &mut base);
    } else {
        pascal(ref_label(r), &mut base);
    }
    if base.is_empty() {
        base.push_str("Type");
    } else if base.starts_with(|c: char| c.is_ascii_digit()) {
        base.insert(0, 'T');
    }
    base
}

/// The part of a `$ref` that names it: the last pointer segment, with the one
/// before it when the last is an index (`anyOf/0`).
fn ref_label(r: &str) -> &str {
    let mut segments = r.rsplit('/');
    let last = segments.next().unwrap_or("");
    if !last.is_empty() && last.bytes().all(|b| b.is_ascii_digit()) {
        let before = segments.next().map_or(0, str::len);
        return &r[r.len() - last.len() - usize::from(before > 0) - before..];
    }
    last
}

/// `rich_text-request` → `RichTextRequest`; only ASCII letters and digits survive.
fn pascal(s: &str, out: &mut String) {
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

fn is_reserved(name: &str) -> bool {
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

//! Named types for local `$ref`s: what is being declared, and the table that
//! gives each `$ref` its alias, shared between tools when the referenced
//! graph is identical and suffixed when names clash.

use std::collections::{HashMap, HashSet};
use std::fmt::Write as _;

use serde_json::Value;

use crate::sdk::naming::{ref_name, root_name};
use crate::sdk::refs::{closure, resolve};

/// Type names of TypeScript's default libraries: an alias must not redeclare them.
const LIB_NAMES: &str = include_str!("../lib-names.txt");
/// The names the frame declares besides `tools`: its error classes.
const FRAME_NAMES: [&str; 2] = ["ToolCallError", "StateError"];

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
    if r == "#" {
        return root_name(scope.owner, scope.kind);
    }
    ref_name(r)
}

fn is_reserved(name: &str) -> bool {
    FRAME_NAMES.contains(&name) || LIB_NAMES.lines().any(|line| line == name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reserved_names() {
        assert!(is_reserved("Event") && is_reserved("Record") && is_reserved("ToolCallError"));
        assert!(!is_reserved("RichText") && !is_reserved("# Type names declared"));
    }
}

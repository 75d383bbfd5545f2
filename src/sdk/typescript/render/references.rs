//! A `$ref` as the renderer writes it: expanded in place in a standalone
//! expression, else the name of its alias, or `unknown` where naming it would
//! close a cycle TypeScript rejects.

use std::fmt::Write as _;

use serde_json::Value;

use super::{Prec, Renderer};
use crate::sdk::typescript::aliases::{Alias, Scope, is_reserved, pascal, ref_label};
use crate::sdk::typescript::refs::{closure, percent_decode, reaches, resolve};

impl<'a> Renderer<'a> {
    /// A `$ref`: an alias name, the expanded target, or `unknown`.
    pub(super) fn reference(&mut self, r: &'a str, depth: u32) -> Prec {
        if self.expand_refs {
            return self.expand(r, depth);
        }
        match self.alias_for(r) {
            Some(i) if !self.closes_cycle(r) => self.out.push_str(&self.aliases[i].name),
            _ => self.out.push_str("unknown"),
        }
        Prec::Atom
    }

    fn expand(&mut self, r: &str, depth: u32) -> Prec {
        let Some(target) = resolve(self.scope.root, r) else {
            self.out.push_str("unknown");
            return Prec::Atom;
        };
        let key: *const Value = target;
        if self.budget == 0 || self.expanding.contains(&key) {
            self.out.push_str("unknown");
            return Prec::Atom;
        }
        self.budget -= 1;
        self.expanding.push(key);
        let prec = self.ty(target, depth + 1, true);
        self.expanding.pop();
        prec
    }

    /// The alias for a local `$ref` of the current root, made on first use.
    fn alias_for(&mut self, r: &'a str) -> Option<usize> {
        let key = (self.scope.root as *const Value, r);
        if let Some(&known) = self.by_ref.get(&key) {
            return known;
        }
        let found = self.new_alias(r);
        self.by_ref.insert(key, found);
        found
    }

    fn new_alias(&mut self, r: &'a str) -> Option<usize> {
        let root = self.scope.root;
        let target = resolve(root, r)?;
        let mut base = String::new();
        if r == "#" {
            pascal(self.scope.owner, &mut base);
            base.push_str(self.scope.kind);
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
        let closure = closure(root, r);
        if let Some(i) = self
            .aliases
            .iter()
            .position(|a| a.base == base && a.closure == closure)
        {
            return Some(i);
        }
        let mut name = base.clone();
        let mut n = 2u32;
        while self.names.contains(&name) || is_reserved(&name) {
            name.truncate(base.len());
            let _ = write!(name, "{n}");
            n += 1;
        }
        self.names.insert(name.clone());
        self.aliases.push(Alias {
            name,
            base,
            scope: Scope {
                alias: Some(target),
                ..self.scope
            },
            target,
            closure,
        });
        Some(self.aliases.len() - 1)
    }

    /// Whether naming `r` here would make the alias being declared refer to
    /// itself where TypeScript resolves types eagerly (outside any object or
    /// array, or inside an optional or rest tuple element), which it rejects
    /// as circular.
    fn closes_cycle(&self, r: &str) -> bool {
        let Some(goal) = self.scope.alias else {
            return false;
        };
        if self.guarded && !self.strict {
            return false;
        }
        let root = self.scope.root;
        let Some(target) = resolve(root, r) else {
            return false;
        };
        let mut seen = Vec::new();
        std::ptr::eq(target, goal) || reaches(root, target, goal, self.strict, &mut seen, 0)
    }
}

//! A `$ref` as the renderer writes it: expanded in place in a standalone
//! expression, else the name of its alias, or `unknown` where naming it would
//! close a cycle TypeScript rejects.

use serde_json::Value;

use super::{Prec, Renderer};
use crate::sdk::refs::{reaches, resolve};

impl<'a> Renderer<'a> {
    /// A `$ref`: an alias name, the expanded target, or `unknown`.
    pub(super) fn reference(&mut self, r: &'a str, depth: u32) -> Prec {
        if self.expansion.on {
            return self.expand(r, depth);
        }
        match self.aliases.for_ref(self.scope, r) {
            Some(i) if !self.closes_cycle(r) => self.out.push_str(self.aliases.name(i)),
            _ => self.out.push_str("unknown"),
        }
        Prec::Atom
    }

    /// The target of a `$ref` in place; `unknown` for a reference back into
    /// what is being expanded, or once the budget is spent.
    fn expand(&mut self, r: &str, depth: u32) -> Prec {
        let Some(target) = resolve(self.scope.root, r) else {
            self.out.push_str("unknown");
            return Prec::Atom;
        };
        let key: *const Value = target;
        if self.expansion.budget == 0 || self.expansion.open.contains(&key) {
            self.out.push_str("unknown");
            return Prec::Atom;
        }
        self.expansion.budget -= 1;
        self.expansion.open.push(key);
        let prec = self.ty(target, depth + 1, true);
        self.expansion.open.pop();
        prec
    }

    /// Whether naming `r` here would make the alias being declared refer to
    /// itself where TypeScript resolves types eagerly (outside any object or
    /// array, or inside an optional or rest tuple element), which it rejects
    /// as circular.
    fn closes_cycle(&self, r: &str) -> bool {
        let Some(goal) = self.scope.alias else {
            return false;
        };
        if self.cycles.guarded && !self.cycles.strict {
            return false;
        }
        let root = self.scope.root;
        let Some(target) = resolve(root, r) else {
            return false;
        };
        let mut seen = Vec::new();
        std::ptr::eq(target, goal) || reaches(root, target, goal, self.cycles.strict, &mut seen, 0)
    }
}

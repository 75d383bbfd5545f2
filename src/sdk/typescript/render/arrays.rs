//! Arrays as `T[]`, and tuples (`prefixItems`, or draft-07 array `items`)
//! with optional elements past `minItems` and a rest element unless closed.

use serde_json::Value;

use super::{Prec, Renderer};
use crate::sdk::keywords::Keywords;

impl<'a> Renderer<'a> {
    /// `T[]`, or a tuple for `prefixItems` / draft-07 array `items`.
    pub(super) fn array(&mut self, kw: &Keywords<'a>, depth: u32) -> Prec {
        let guarded = std::mem::replace(&mut self.cycles.guarded, true);
        let (prefix, rest) = match (kw.prefix_items, kw.items) {
            (Some(Value::Array(prefix)), rest) => (Some(prefix), rest),
            (_, Some(Value::Array(prefix))) => (Some(prefix), kw.additional_items),
            (_, items) => (None, items),
        };
        match prefix {
            Some(prefix) => self.tuple(kw, prefix, rest, depth),
            None => match rest {
                Some(Value::Bool(false)) => self.out.push_str("[]"),
                Some(items @ Value::Object(_)) => self.element(items, depth),
                _ => self.out.push_str("unknown[]"),
            },
        }
        self.cycles.guarded = guarded;
        Prec::Atom
    }

    fn tuple(
        &mut self,
        kw: &Keywords<'a>,
        prefix: &'a [Value],
        rest: Option<&'a Value>,
        depth: u32,
    ) {
        let min = kw.min_items.unwrap_or(0);
        let closed = matches!(rest, Some(Value::Bool(false)))
            || kw.max_items.is_some_and(|max| max <= prefix.len() as u64);
        // TypeScript may resolve optional and rest elements eagerly, so a
        // reference cycle through them is not fine (see `closes_cycle`).
        let strict = self.cycles.strict;
        self.out.push('[');
        for (i, item) in prefix.iter().enumerate() {
            if i > 0 {
                self.out.push_str(", ");
            }
            let optional = i as u64 >= min;
            self.cycles.strict = strict || optional;
            let at = self.out.len();
            let prec = self.ty(item, depth + 1, true);
            if optional {
                if prec != Prec::Atom {
                    self.out.insert(at, '(');
                    self.out.push(')');
                }
                self.out.push('?');
            }
        }
        if !closed {
            if !prefix.is_empty() {
                self.out.push_str(", ");
            }
            self.out.push_str("...");
            self.cycles.strict = true;
            match rest {
                Some(items @ Value::Object(_)) => self.element(items, depth),
                _ => self.out.push_str("unknown[]"),
            }
        }
        self.cycles.strict = strict;
        self.out.push(']');
    }

    /// `T[]`, parenthesized when `T` is a union or intersection.
    fn element(&mut self, items: &'a Value, depth: u32) {
        let at = self.out.len();
        if self.ty(items, depth + 1, true) != Prec::Atom {
            self.out.insert(at, '(');
            self.out.push(')');
        }
        self.out.push_str("[]");
    }
}

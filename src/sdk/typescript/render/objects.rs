//! Objects as type literals: named members (optional unless `required`),
//! an index signature for `additionalProperties`/`patternProperties` widened
//! so it stays valid beside them, on one line when short and comment-free.

use serde_json::{Map, Value};

use super::{Prec, Renderer};
use crate::sdk::typescript::keywords::Keywords;
use crate::sdk::typescript::writing::push_key;

/// An object without any comment in it is written on one line if it fits in this many bytes.
const INLINE_MAX: usize = 100;

impl<'a> Renderer<'a> {
    /// A type literal, on one line when it has no comments and is short.
    pub(super) fn object(&mut self, kw: &Keywords<'a>, depth: u32) -> Prec {
        if self.layout.inline_from.is_some() {
            self.members(kw, depth);
            return Prec::Atom;
        }
        let start = self.out.len();
        self.layout.inline_from = Some(start);
        self.members(kw, depth);
        self.layout.inline_from = None;
        if self.layout.aborted {
            self.layout.aborted = false;
            self.out.truncate(start);
            self.members(kw, depth);
        }
        Prec::Atom
    }

    fn members(&mut self, kw: &Keywords<'a>, depth: u32) {
        let props = kw.properties.filter(|p| !p.is_empty());
        let required = kw.required;
        // A required name without a schema in `properties` is a member too
        // (once, however often it is listed).
        let missing = |i: usize, name: &str| {
            !props.is_some_and(|p| p.contains_key(name))
                && !required[..i].iter().any(|r| r.as_str() == Some(name))
        };
        let named = props.is_some()
            || required
                .iter()
                .enumerate()
                .any(|(i, r)| r.as_str().is_some_and(|n| missing(i, n)));
        let index = !named
            || kw.patterns.is_some()
            || matches!(kw.additional, Some(Value::Bool(true) | Value::Object(_)));

        let inline = self.layout.inline_from.is_some();
        let guarded = std::mem::replace(&mut self.cycles.guarded, true);
        let strict = std::mem::replace(&mut self.cycles.strict, false);
        self.out.push('{');
        self.layout.indent += 1;
        let mut first = true;
        // Where each member's type was written, to widen the index signature.
        let mut spans: Vec<(usize, usize)> = Vec::new();
        let mut optional = false;
        // How many members were found in `required`: all of them means no
        // required name is missing from `properties`.
        let mut found = 0;
        for (name, schema) in props.into_iter().flatten() {
            self.member_start(inline, &mut first);
            let member = Keywords::of(schema);
            if let Some(member) = &member {
                self.doc_comment(member, " ");
            }
            push_key(&mut self.out, name);
            if required.iter().any(|r| r.as_str() == Some(name)) {
                found += 1;
            } else {
                self.out.push('?');
                optional = true;
            }
            self.out.push_str(": ");
            let at = self.out.len();
            self.ty_of(schema, member.as_ref(), depth + 1);
            if index && named {
                spans.push((at, self.out.len()));
            }
            if self.layout.aborted || self.inline_too_long() {
                break;
            }
        }
        if found < required.len() {
            for (i, name) in required.iter().enumerate() {
                let Some(name) = name.as_str() else { continue };
                if self.layout.aborted || !missing(i, name) {
                    continue;
                }
                self.member_start(inline, &mut first);
                push_key(&mut self.out, name);
                self.out.push_str(": unknown");
                if index && named {
                    spans.push((self.out.len() - "unknown".len(), self.out.len()));
                }
            }
        }
        if index && !self.layout.aborted {
            self.member_start(inline, &mut first);
            if let Some(patterns) = kw.patterns {
                self.pattern_doc(patterns);
            }
            self.out.push_str("[key: string]: ");
            self.index_value(kw, named, &spans, optional, depth);
        }
        self.layout.indent -= 1;
        self.cycles.guarded = guarded;
        self.cycles.strict = strict;
        if self.layout.aborted {
            return;
        }
        if inline {
            self.out.push_str(" }");
            if self.inline_too_long() {
                self.layout.aborted = true;
            }
        } else {
            self.out.push(';');
            self.newline();
            self.out.push('}');
        }
    }

    fn member_start(&mut self, inline: bool, first: &mut bool) {
        match (inline, *first) {
            (true, true) => self.out.push(' '),
            (true, false) => self.out.push_str("; "),
            (false, true) => self.newline(),
            (false, false) => {
                self.out.push(';');
                self.newline();
            }
        }
        *first = false;
    }

    fn inline_too_long(&mut self) -> bool {
        let long = self
            .layout
            .inline_from
            .is_some_and(|from| self.out.len() - from > INLINE_MAX);
        self.layout.aborted |= long;
        long
    }

    /// The value type of `[key: string]`: pattern and additional schemas, widened
    /// by the named members (and `undefined` for optional ones) so TypeScript
    /// accepts the named members next to it.
    fn index_value(
        &mut self,
        kw: &Keywords<'a>,
        named: bool,
        spans: &[(usize, usize)],
        optional: bool,
        depth: u32,
    ) {
        let start = self.out.len();
        let mut sources = 0;
        for schema in kw.patterns.into_iter().flat_map(Map::values) {
            if sources > 0 {
                self.out.push_str(" | ");
            }
            self.ty(schema, depth + 1, true);
            sources += 1;
        }
        match kw.additional {
            Some(Value::Bool(false)) => {}
            Some(schema @ Value::Object(_)) => {
                if sources > 0 {
                    self.out.push_str(" | ");
                }
                self.ty(schema, depth + 1, true);
                sources += 1;
            }
            // Absent or `true`: any other key is allowed. With patterns, the
            // patterns say what the extra keys are for.
            _ if sources == 0 => {
                self.out.push_str("unknown");
                sources += 1;
            }
            _ => {}
        }
        if sources == 0 {
            self.out.push_str("never");
            return;
        }
        if !named || &self.out[start..] == "unknown" {
            return;
        }
        for &(from, to) in spans {
            let member = self.out[from..to].to_owned();
            self.out.push_str(" | ");
            self.out.push_str(&member);
        }
        if optional {
            self.out.push_str(" | undefined");
        }
    }

    fn pattern_doc(&mut self, patterns: &Map<String, Value>) {
        self.out.push_str("/** keys matching ");
        for (i, pattern) in patterns.keys().enumerate() {
            if i > 0 {
                self.out.push_str(", ");
            }
            self.doc_text(pattern);
        }
        self.out.push_str(" */ ");
        if self.layout.inline_from.is_some() {
            self.layout.aborted = true;
        }
    }
}

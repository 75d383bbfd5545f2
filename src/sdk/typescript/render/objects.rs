//! Objects as type literals: named members (optional unless `required`),
//! an index signature for `additionalProperties`/`patternProperties` widened
//! so it stays valid beside them, on one line when short and comment-free.

use serde_json::{Map, Value};

use super::{Cycles, Prec, Renderer};
use crate::sdk::keywords::Keywords;
use crate::sdk::typescript::writing::push_key;

/// An object without any comment in it is written on one line if it fits in this many bytes.
const INLINE_MAX: usize = 100;

/// The members of one object type, as they are written.
struct Members<'a> {
    /// `properties`, unless empty.
    props: Option<&'a Map<String, Value>>,
    required: &'a [Value],
    /// On one line: `{ a: A; b?: B }`.
    inline: bool,
    /// No member written yet.
    first: bool,
    /// There is an index signature beside named members: record where each
    /// member's type was written, in `spans`, to widen it.
    widen: bool,
    spans: Vec<(usize, usize)>,
    /// Some named member is optional.
    optional: bool,
}

impl Members<'_> {
    /// Whether the required name `name` (at `i` in `required`) has no schema in
    /// `properties` and is listed here first: it is a member of its own, once.
    fn missing(&self, i: usize, name: &str) -> bool {
        !self.props.is_some_and(|p| p.contains_key(name))
            && !self.required[..i].iter().any(|r| r.as_str() == Some(name))
    }
}

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

    /// `{ … }`: the members `properties` names, the required names it lacks,
    /// and the index signature.
    fn members(&mut self, kw: &Keywords<'a>, depth: u32) {
        let mut list = Members {
            props: kw.properties.filter(|p| !p.is_empty()),
            required: kw.required,
            inline: self.layout.inline_from.is_some(),
            first: true,
            widen: false,
            spans: Vec::new(),
            optional: false,
        };
        let named = list.props.is_some()
            || list
                .required
                .iter()
                .enumerate()
                .any(|(i, r)| r.as_str().is_some_and(|n| list.missing(i, n)));
        let index = !named
            || kw.patterns.is_some()
            || matches!(kw.additional, Some(Value::Bool(true) | Value::Object(_)));
        list.widen = index && named;

        let cycles = std::mem::replace(
            &mut self.cycles,
            Cycles {
                guarded: true,
                strict: false,
            },
        );
        self.out.push('{');
        self.layout.indent += 1;
        let found = self.named_members(&mut list, depth);
        if found < list.required.len() {
            self.missing_members(&mut list);
        }
        if index && !self.layout.aborted {
            self.member_start(list.inline, &mut list.first);
            if let Some(patterns) = kw.patterns {
                self.pattern_doc(patterns);
            }
            self.out.push_str("[key: string]: ");
            self.index_value(kw, named, &list.spans, list.optional, depth);
        }
        self.layout.indent -= 1;
        self.cycles = cycles;
        if !self.layout.aborted {
            self.close_object(list.inline);
        }
    }

    /// The members `properties` names, in order. Returns how many of them are
    /// required: all of `required` means no required name is missing.
    fn named_members(&mut self, list: &mut Members<'a>, depth: u32) -> usize {
        let mut found = 0;
        for (name, schema) in list.props.into_iter().flatten() {
            self.member_start(list.inline, &mut list.first);
            let member = Keywords::of(schema);
            if let Some(member) = &member {
                self.doc_comment(member, " ");
            }
            push_key(&mut self.out, name);
            if list.required.iter().any(|r| r.as_str() == Some(name)) {
                found += 1;
            } else {
                self.out.push('?');
                list.optional = true;
            }
            self.out.push_str(": ");
            let at = self.out.len();
            self.ty_of(schema, member.as_ref(), depth + 1);
            if list.widen {
                list.spans.push((at, self.out.len()));
            }
            if self.layout.aborted || self.inline_too_long() {
                break;
            }
        }
        found
    }

    /// `name: unknown` for each required name without a schema in `properties`.
    fn missing_members(&mut self, list: &mut Members<'a>) {
        let required = list.required;
        for (i, name) in required.iter().enumerate() {
            let Some(name) = name.as_str() else { continue };
            if self.layout.aborted || !list.missing(i, name) {
                continue;
            }
            self.member_start(list.inline, &mut list.first);
            push_key(&mut self.out, name);
            self.out.push_str(": unknown");
            if list.widen {
                list.spans
                    .push((self.out.len() - "unknown".len(), self.out.len()));
            }
        }
    }

    /// ` }` on the line (too long ends the one-line attempt), or else `;` and
    /// `}` on a line of its own.
    fn close_object(&mut self, inline: bool) {
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

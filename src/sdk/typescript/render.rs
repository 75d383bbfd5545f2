//! The renderer: one [`Renderer`] writes every type into one `String`. This
//! file holds its state and the dispatch from a schema to the type it stands
//! for; its rooms hold objects, arrays, `$ref`s, comments and the SDK's
//! declarations.

mod arrays;
mod declarations;

pub(crate) use declarations::{ASKS_NOTE, ESCALATION_NOTE};
mod docs;
mod objects;
mod references;

use serde_json::Value;

use super::aliases::{Aliases, Scope};
use super::writing::push_json;
use super::{MAX_DEPTH, NULL};
use crate::sdk::keywords::Keywords;

/// How many `$ref`s a standalone expression may expand before it says `unknown`.
const EXPANSION_BUDGET: u32 = 4096;

/// How a written type binds, to know when it needs parentheses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Prec {
    /// A name, literal, object, array or parenthesized type.
    Atom,
    /// `A & B`.
    Inter,
    /// `A | B`.
    Union,
}

/// One operand of the intersection a schema object stands for.
#[derive(Clone, Copy)]
enum Part<'a> {
    Ref(&'a str),
    Own,
    Union(&'a [Value]),
    Schema(&'a Value),
}

/// Writes TypeScript for schemas into one buffer.
pub(super) struct Renderer<'a> {
    pub(super) out: String,
    layout: Layout,
    cycles: Cycles,
    scope: Scope<'a>,
    expansion: Expansion,
    aliases: Aliases<'a>,
}

/// Where the text stands: its indentation, and the one-line attempt at an object.
struct Layout {
    indent: usize,
    /// Where the object being tried on one line starts.
    inline_from: Option<usize>,
    /// The one-line attempt failed (a comment, or too long): unwind and retry.
    aborted: bool,
}

/// Where a reference back to the alias being declared is fine (see `closes_cycle`).
struct Cycles {
    /// Inside an object member, array element or tuple element: TypeScript
    /// defers these, so a reference cycle is fine here...
    guarded: bool,
    /// ...unless inside an optional or rest tuple element (outside any object
    /// member): TypeScript may resolve those eagerly, arrays and all.
    strict: bool,
}

/// `$ref`s expanded in place, for a standalone expression (it has no aliases).
struct Expansion {
    on: bool,
    /// The targets being expanded: meeting one again is a cycle.
    open: Vec<*const Value>,
    /// How many more `$ref`s may be expanded.
    budget: u32,
}

impl<'a> Renderer<'a> {
    /// A renderer for the SDK: `$ref`s become aliases.
    pub(super) fn for_sdk() -> Self {
        Self::new(&NULL, false)
    }

    fn new(root: &'a Value, expand_refs: bool) -> Self {
        Self {
            out: String::new(),
            layout: Layout {
                indent: 0,
                inline_from: None,
                aborted: false,
            },
            cycles: Cycles {
                guarded: false,
                strict: false,
            },
            scope: Scope {
                root,
                owner: "",
                kind: "Schema",
                alias: None,
            },
            expansion: Expansion {
                on: expand_refs,
                open: Vec::new(),
                budget: EXPANSION_BUDGET,
            },
            aliases: Aliases::new(),
        }
    }

    /// One schema as a self-contained type expression: local `$ref`s are expanded
    /// in place, a reference back into itself becomes `unknown`.
    pub(super) fn expression(schema: &'a Value) -> String {
        let mut r = Self::new(schema, true);
        r.expansion.open.push(schema);
        r.ty(schema, 0, true);
        r.out
    }

    /// Whether any `$ref` was looked up (see [`Aliases::looked_up`]).
    pub(super) fn looked_up_aliases(&self) -> bool {
        self.aliases.looked_up()
    }

    /// Any schema value; `docs` writes its description as a leading comment.
    fn ty(&mut self, schema: &'a Value, depth: u32, docs: bool) -> Prec {
        if self.layout.aborted || depth > MAX_DEPTH {
            return self.ty_of(schema, None, depth);
        }
        let kw = Keywords::of(schema);
        if let (true, Some(kw)) = (docs, &kw) {
            self.doc_comment(kw, " ");
        }
        self.ty_of(schema, kw.as_ref(), depth)
    }

    /// The type of a schema whose keywords (and comment) are already known.
    fn ty_of(&mut self, schema: &Value, kw: Option<&Keywords<'a>>, depth: u32) -> Prec {
        if self.layout.aborted {
            return Prec::Atom;
        }
        match (schema, kw) {
            _ if depth > MAX_DEPTH => self.out.push_str("unknown"),
            (_, Some(kw)) => return self.schema(kw, depth),
            (Value::Bool(false), _) => self.out.push_str("never"),
            _ => self.out.push_str("unknown"),
        }
        Prec::Atom
    }

    /// A schema object: the intersection of its `$ref`, its own type, its
    /// `anyOf`/`oneOf` unions and its `allOf` members; `unknown` if none.
    fn schema(&mut self, kw: &Keywords<'a>, depth: u32) -> Prec {
        let own = kw.has_own_type();
        let count = usize::from(kw.reference.is_some())
            + usize::from(own)
            + usize::from(kw.any_of.is_some())
            + usize::from(kw.one_of.is_some())
            + kw.all_of.len();
        let prec = match (count, kw.reference, kw.any_of.or(kw.one_of), kw.all_of) {
            // The common case: a single part, nothing to intersect.
            (0, ..) => {
                self.out.push_str("unknown");
                Prec::Atom
            }
            (1, Some(r), ..) => self.reference(r, depth),
            (1, _, _, _) if own => self.own_type(kw, depth),
            (1, _, Some(members), _) => self.union(members, depth),
            (1, _, _, [member]) => self.ty(member, depth + 1, true),
            _ => self.intersection(kw, own, depth),
        };
        if kw.nullable && !kw.admits_null() {
            self.out.push_str(" | null");
            return Prec::Union;
        }
        prec
    }

    /// `A & B & …` of a schema's parts, leaving out bare `unknown`s.
    fn intersection(&mut self, kw: &Keywords<'a>, own: bool, depth: u32) -> Prec {
        let parts = kw
            .reference
            .map(Part::Ref)
            .into_iter()
            .chain(own.then_some(Part::Own))
            .chain(kw.any_of.map(Part::Union))
            .chain(kw.one_of.map(Part::Union))
            .chain(kw.all_of.iter().map(Part::Schema));

        let mut written = 0;
        let mut last = Prec::Atom;
        for part in parts {
            if self.layout.aborted {
                return Prec::Atom;
            }
            let mark = self.out.len();
            if written > 0 {
                self.out.push_str(" & ");
            }
            let at = self.out.len();
            let prec = match part {
                Part::Ref(r) => self.reference(r, depth),
                Part::Own => self.own_type(kw, depth),
                Part::Union(members) => self.union(members, depth),
                Part::Schema(s) => self.ty(s, depth + 1, true),
            };
            if &self.out[at..] == "unknown" {
                // `T & unknown` is `T`; a documented `unknown` stays for its comment.
                self.out.truncate(mark);
                continue;
            }
            last = if prec == Prec::Union {
                self.out.insert(at, '(');
                self.out.push(')');
                Prec::Atom
            } else {
                prec
            };
            written += 1;
        }
        match written {
            0 => {
                self.out.push_str("unknown");
                Prec::Atom
            }
            1 => last,
            _ => Prec::Inter,
        }
    }

    /// `anyOf`/`oneOf`: a union, `unknown` if every member is.
    fn union(&mut self, members: &'a [Value], depth: u32) -> Prec {
        if members.is_empty() {
            self.out.push_str("never");
            return Prec::Atom;
        }
        let start = self.out.len();
        let mut opaque = true;
        let mut last = Prec::Atom;
        for (i, member) in members.iter().enumerate() {
            if i > 0 {
                self.out.push_str(" | ");
            }
            let at = self.out.len();
            last = self.ty(member, depth + 1, true);
            opaque &= &self.out[at..] == "unknown";
        }
        if opaque {
            self.out.truncate(start);
            self.out.push_str("unknown");
            return Prec::Atom;
        }
        if members.len() == 1 {
            last
        } else {
            Prec::Union
        }
    }

    /// `const`, `enum`, `type`, or the type that `properties`/`items` imply.
    fn own_type(&mut self, kw: &Keywords<'a>, depth: u32) -> Prec {
        if let Some(value) = kw.constant {
            push_json(&mut self.out, value, 0);
            return Prec::Atom;
        }
        if let Some(values) = kw.enumeration {
            if values.is_empty() {
                self.out.push_str("never");
                return Prec::Atom;
            }
            for (i, value) in values.iter().enumerate() {
                if i > 0 {
                    self.out.push_str(" | ");
                }
                push_json(&mut self.out, value, 0);
            }
            return if values.len() == 1 {
                Prec::Atom
            } else {
                Prec::Union
            };
        }
        match kw.types {
            Some(Value::String(t)) => self.type_name(t, kw, depth),
            Some(Value::Array(types)) => {
                let start = self.out.len();
                let mut seen = 0u8;
                let mut written = 0;
                for t in types {
                    let Some(t) = t.as_str() else { continue };
                    let bit = match t {
                        "string" => 1,
                        "number" | "integer" => 2,
                        "boolean" => 4,
                        "null" => 8,
                        "object" => 16,
                        "array" => 32,
                        _ => 64,
                    };
                    if seen & bit != 0 {
                        continue;
                    }
                    seen |= bit;
                    if written > 0 {
                        self.out.push_str(" | ");
                    }
                    self.type_name(t, kw, depth);
                    written += 1;
                }
                match written {
                    0 => {
                        self.out.truncate(start);
                        self.out.push_str("unknown");
                        Prec::Atom
                    }
                    1 => Prec::Atom,
                    _ => Prec::Union,
                }
            }
            _ if kw.object_like => self.object(kw, depth),
            _ if kw.array_like() => self.array(kw, depth),
            _ => {
                self.out.push_str("unknown");
                Prec::Atom
            }
        }
    }

    fn type_name(&mut self, t: &str, kw: &Keywords<'a>, depth: u32) -> Prec {
        match t {
            "string" => self.out.push_str("string"),
            "number" | "integer" => self.out.push_str("number"),
            "boolean" => self.out.push_str("boolean"),
            "null" => self.out.push_str("null"),
            "object" => return self.object(kw, depth),
            "array" => return self.array(kw, depth),
            _ => self.out.push_str("unknown"),
        }
        Prec::Atom
    }

    fn newline(&mut self) {
        const LINE: &str = "\n                                                                ";
        match LINE.get(..=self.layout.indent) {
            Some(line) => self.out.push_str(line),
            None => {
                self.out.push('\n');
                self.out
                    .extend(std::iter::repeat_n(' ', self.layout.indent));
            }
        }
    }
}

//! JSON Schema → TypeScript (contracts §5).
//!
//! One [`Renderer`] writes every type into one `String`. The mapping:
//!
//! - `type` (also as an array, plus OpenAPI's `nullable`), `const` and `enum`
//!   (JSON literals are valid TypeScript literal types), `anyOf`/`oneOf` as
//!   unions, `allOf` and `$ref` siblings as intersections;
//! - objects as type literals: optional members for properties that are not
//!   `required`, `additionalProperties`/`patternProperties` as an index
//!   signature widened by the named members' types so it stays valid;
//! - arrays as `T[]`, tuples (`prefixItems`, or draft-07 array `items`) with
//!   optional elements past `minItems` and a rest element unless closed;
//! - local `$ref`s as named aliases (declared once, shared between tools when
//!   the whole referenced graph is identical, suffixed when names clash);
//! - descriptions and constraints as JSDoc on the member, or as a leading
//!   comment where there is no member;
//! - anything else (remote `$ref`, `not`, `if`, keyword-only schemas, too deep
//!   nesting) as `unknown`, its description kept.
//!
//! Rendering never fails: every input, even a non-schema, gives valid TypeScript.

use std::collections::{HashMap, HashSet};
use std::fmt::Write as _;

use serde_json::{Map, Value};

use crate::tool::definition::ToolDefinition;

/// Nesting deeper than this renders as `unknown`.
const MAX_DEPTH: u32 = 40;
/// An object without any comment in it is written on one line if it fits in this many bytes.
const INLINE_MAX: usize = 100;
/// How many `$ref`s a standalone expression may expand before it says `unknown`.
const EXPANSION_BUDGET: u32 = 4096;
/// JSON literals (enum values, defaults) nested deeper than this are cut to `unknown`.
const MAX_JSON_DEPTH: u32 = 64;
/// Type names of TypeScript's default libraries: an alias must not redeclare them.
const LIB_NAMES: &str = include_str!("lib-names.txt");
/// The name of the error class the frame declares.
const ERROR_CLASS: &str = "ToolCallError";

static NULL: Value = Value::Null;

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

/// The document `$ref`s resolve against, and what is being declared.
#[derive(Clone, Copy)]
struct Scope<'a> {
    root: &'a Value,
    /// The tool the root belongs to; names an alias of the root itself (`#`).
    owner: &'a str,
    /// `Args`, `Output` or `Schema`: the suffix of that alias.
    kind: &'static str,
    /// The alias whose body is being written, to break cycles TypeScript rejects.
    alias: Option<&'a Value>,
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

/// One operand of the intersection a schema object stands for.
#[derive(Clone, Copy)]
enum Part<'a> {
    Ref(&'a str),
    Own,
    Union(&'a [Value]),
    Schema(&'a Value),
}

/// Writes TypeScript for schemas into one buffer.
pub(crate) struct Renderer<'a> {
    out: String,
    indent: usize,
    /// Where the object being tried on one line starts.
    inline_from: Option<usize>,
    /// The one-line attempt failed (a comment, or too long): unwind and retry.
    aborted: bool,
    /// Inside an object member, array element or tuple element: TypeScript
    /// defers these, so a reference cycle is fine here...
    guarded: bool,
    /// ...unless inside an optional or rest tuple element (outside any object
    /// member): TypeScript may resolve those eagerly, arrays and all.
    strict: bool,
    scope: Scope<'a>,
    /// Expand `$ref`s in place (a standalone expression has no aliases).
    expand_refs: bool,
    expanding: Vec<*const Value>,
    budget: u32,
    aliases: Vec<Alias<'a>>,
    by_ref: HashMap<(*const Value, &'a str), Option<usize>>,
    names: HashSet<String>,
}

/// Renders the SDK for these tools into `frame`: `[head, middle, tail]`
/// around the aliases (`type Name = …;`, in discovery order) and the methods
/// (one per tool, in the given order).
pub(crate) fn render_sdk(tools: &[&ToolDefinition], frame: [&str; 3]) -> String {
    render_sdk_with(tools, frame, workers_for(tools.len()))
}

/// [`render_sdk`] on up to `workers` threads; the bytes do not depend on it.
fn render_sdk_with(tools: &[&ToolDefinition], frame: [&str; 3], workers: usize) -> String {
    let [head, middle, tail] = frame;
    let mut r = Renderer::new(&NULL, false);
    r.out
        .reserve(head.len() + middle.len() + tail.len() + tools.len() * BYTES_PER_TOOL);
    r.out.push_str(head);
    let types_at = r.out.len();
    r.out.push_str(middle);
    r.methods(tools, workers);
    r.out.push_str(tail);
    let mut out = std::mem::take(&mut r.out);
    r.declare_aliases();
    if !r.out.is_empty() {
        out.insert_str(types_at, &r.out);
    }
    out
}

/// Roughly what one method takes in the SDK (tools1000 averages 1.17 KB).
const BYTES_PER_TOOL: usize = 1280;

/// Below this many tools per thread, a thread costs more than it saves.
const TOOLS_PER_WORKER: usize = 128;

/// How many threads render `tools` methods.
fn workers_for(tools: usize) -> usize {
    static CORES: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    let cores = *CORES.get_or_init(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    cores.min(tools / TOOLS_PER_WORKER).clamp(1, 8)
}

/// Methods rendered ahead on another thread by a renderer of their own.
struct Speculation {
    out: String,
    /// How many of the tools `out` holds: it stops before the first tool that
    /// names an alias, since alias names depend on every tool before it.
    clean: usize,
}

impl Speculation {
    fn render(tools: &[&ToolDefinition]) -> Self {
        let mut r = Renderer::new(&NULL, false);
        r.out.reserve(tools.len() * BYTES_PER_TOOL);
        for (i, tool) in tools.iter().enumerate() {
            let mark = r.out.len();
            r.warm_method(tool);
            if !r.by_ref.is_empty() {
                r.out.truncate(mark);
                return Self {
                    out: r.out,
                    clean: i,
                };
            }
        }
        Self {
            out: r.out,
            clean: tools.len(),
        }
    }
}
/// One schema as a self-contained type expression: local `$ref`s are expanded
/// in place, a reference back into itself becomes `unknown`.
pub(crate) fn expression(schema: &Value) -> String {
    let mut r = Renderer::new(schema, true);
    r.expanding.push(schema);
    r.ty(schema, 0, true);
    r.out
}

impl<'a> Renderer<'a> {
    fn new(root: &'a Value, expand_refs: bool) -> Self {
        Self {
            out: String::new(),
            indent: 0,
            inline_from: None,
            aborted: false,
            guarded: false,
            strict: false,
            scope: Scope {
                root,
                owner: "",
                kind: "Schema",
                alias: None,
            },
            expand_refs,
            expanding: Vec::new(),
            budget: EXPANSION_BUDGET,
            aliases: Vec::new(),
            by_ref: HashMap::new(),
            names: HashSet::new(),
        }
    }

    /// One method per tool, in order. With more than one worker, later
    /// chunks are rendered ahead on scoped threads; a method's text depends on
    /// the renderer only through the aliases, so a chunk rendered alone is
    /// byte-identical up to its first `$ref`, and this renderer carries on from there.
    fn methods(&mut self, tools: &'a [&'a ToolDefinition], workers: usize) {
        if workers <= 1 {
            for tool in tools {
                self.warm_method(tool);
            }
            return;
        }
        let size = tools.len().div_ceil(workers);
        let (first, rest) = tools.split_at(size);
        std::thread::scope(|s| {
            let ahead: Vec<_> = rest
                .chunks(size)
                .map(|chunk| (chunk, s.spawn(|| Speculation::render(chunk))))
                .collect();
            for tool in first {
                self.warm_method(tool);
            }
            for (chunk, worker) in ahead {
                // A worker that panicked left nothing usable: redo its chunk here.
                let done = worker.join().unwrap_or(Speculation {
                    out: String::new(),
                    clean: 0,
                });
                self.out.push_str(&done.out);
                for tool in &chunk[done.clean..] {
                    self.warm_method(tool);
                }
            }
        });
    }

    /// [`method`](Self::method), after loading the tool's schemas into the
    /// cache: this walk's loads do not wait on each other, the renderer's would.
    fn warm_method(&mut self, tool: &'a ToolDefinition) {
        std::hint::black_box(warm(&tool.parameters, 0));
        if let Some(output) = &tool.output {
            std::hint::black_box(warm(output, 0));
        }
        self.method(tool);
    }

    /// ` /** doc */` then ` name(args: T): Promise<O>;`.
    fn method(&mut self, tool: &'a ToolDefinition) {
        self.indent = 1;
        let params = Scope {
            root: &tool.parameters,
            owner: &tool.name,
            kind: "Args",
            alias: None,
        };
        let output = tool.output.as_ref().map(|o| Scope {
            root: o,
            owner: &tool.name,
            kind: "Output",
            alias: None,
        });
        let quoted = !is_ident(&tool.name) || tool.name == "new";

        let mark = self.out.len();
        self.out.push_str(" /** ");
        let body = self.out.len();
        if let Some(text) = tool.advertised_description() {
            self.doc_text(trim(text));
        }
        if quoted {
            // On a line of its own, so it never runs on from the description.
            if self.out.len() > body {
                self.newline();
                self.out.push_str(" * ");
            }
            self.out.push_str("Call: tools[");
            push_json_str(&mut self.out, &tool.name);
            self.out.push_str("](args)");
        }
        if tool.read_only {
            self.doc_sep(body);
            self.out.push_str("@readonly");
        }
        let params_kw = Keywords::of(&tool.parameters);
        let output_kw = output.and_then(|o| Keywords::of(o.root));
        for (kw, tag) in [(&params_kw, "@param args "), (&output_kw, "@returns ")] {
            if let Some(kw) = kw {
                let at = self.out.len();
                self.doc_sep(body);
                self.out.push_str(tag);
                if !self.doc_body(kw) {
                    self.out.truncate(at);
                }
            }
        }
        if self.out.len() == body {
            self.out.truncate(mark);
        } else {
            self.out.push_str(" */\n");
        }

        self.out.push(' ');
        if quoted {
            push_json_str(&mut self.out, &tool.name);
        } else {
            self.out.push_str(&tool.name);
        }
        self.out
            .push_str(if args_optional(&tool.parameters, params_kw.as_ref()) {
                "(args?: "
            } else {
                "(args: "
            });
        self.scope = params;
        self.guarded = false;
        self.ty_of(&tool.parameters, params_kw.as_ref(), 0);
        self.out.push_str("): Promise<");
        match output {
            Some(scope) => {
                self.scope = scope;
                self.ty_of(scope.root, output_kw.as_ref(), 0);
            }
            None => self.out.push_str("unknown"),
        }
        self.out.push_str(">;\n");
    }

    /// Writes `type Name = …;` for every alias, including those found on the way.
    fn declare_aliases(&mut self) {
        let mut i = 0;
        while i < self.aliases.len() {
            let alias = &self.aliases[i];
            let (scope, target) = (alias.scope, alias.target);
            self.scope = scope;
            self.indent = 0;
            self.guarded = false;
            let kw = Keywords::of(target);
            if let Some(kw) = &kw {
                self.doc_comment(kw, "\n");
            }
            self.out.push_str("type ");
            self.out.push_str(&self.aliases[i].name);
            self.out.push_str(" = ");
            self.ty_of(target, kw.as_ref(), 0);
            self.out.push_str(";\n");
            i += 1;
        }
    }

    /// Any schema value; `docs` writes its description as a leading comment.
    fn ty(&mut self, schema: &'a Value, depth: u32, docs: bool) -> Prec {
        if self.aborted || depth > MAX_DEPTH {
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
        if self.aborted {
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
            if self.aborted {
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

    /// A type literal, on one line when it has no comments and is short.
    fn object(&mut self, kw: &Keywords<'a>, depth: u32) -> Prec {
        if self.inline_from.is_some() {
            self.members(kw, depth);
            return Prec::Atom;
        }
        let start = self.out.len();
        self.inline_from = Some(start);
        self.members(kw, depth);
        self.inline_from = None;
        if self.aborted {
            self.aborted = false;
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

        let inline = self.inline_from.is_some();
        let guarded = std::mem::replace(&mut self.guarded, true);
        let strict = std::mem::replace(&mut self.strict, false);
        self.out.push('{');
        self.indent += 1;
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
            if self.aborted || self.inline_too_long() {
                break;
            }
        }
        if found < required.len() {
            for (i, name) in required.iter().enumerate() {
                let Some(name) = name.as_str() else { continue };
                if self.aborted || !missing(i, name) {
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
        if index && !self.aborted {
            self.member_start(inline, &mut first);
            if let Some(patterns) = kw.patterns {
                self.pattern_doc(patterns);
            }
            self.out.push_str("[key: string]: ");
            self.index_value(kw, named, &spans, optional, depth);
        }
        self.indent -= 1;
        self.guarded = guarded;
        self.strict = strict;
        if self.aborted {
            return;
        }
        if inline {
            self.out.push_str(" }");
            if self.inline_too_long() {
                self.aborted = true;
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
            .inline_from
            .is_some_and(|from| self.out.len() - from > INLINE_MAX);
        self.aborted |= long;
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
        if self.inline_from.is_some() {
            self.aborted = true;
        }
    }

    /// `T[]`, or a tuple for `prefixItems` / draft-07 array `items`.
    fn array(&mut self, kw: &Keywords<'a>, depth: u32) -> Prec {
        let guarded = std::mem::replace(&mut self.guarded, true);
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
        self.guarded = guarded;
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
        let strict = self.strict;
        self.out.push('[');
        for (i, item) in prefix.iter().enumerate() {
            if i > 0 {
                self.out.push_str(", ");
            }
            let optional = i as u64 >= min;
            self.strict = strict || optional;
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
            self.strict = true;
            match rest {
                Some(items @ Value::Object(_)) => self.element(items, depth),
                _ => self.out.push_str("unknown[]"),
            }
        }
        self.strict = strict;
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

    /// A `$ref`: an alias name, the expanded target, or `unknown`.
    fn reference(&mut self, r: &'a str, depth: u32) -> Prec {
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

    /// `/** doc */` then `end`, if the schema has anything to say.
    fn doc_comment(&mut self, kw: &Keywords<'_>, end: &str) {
        let text = kw.text().is_some();
        if !text && kw.tags.is_none() {
            return;
        }
        if text && self.inline_from.is_some() {
            // A comment ends a one-line attempt: stop before writing it.
            self.aborted = true;
            return;
        }
        let mark = self.out.len();
        self.out.push_str("/** ");
        if self.doc_body(kw) {
            self.out.push_str(" */");
            self.out.push_str(end);
            if self.inline_from.is_some() {
                self.aborted = true;
            }
        } else {
            self.out.truncate(mark);
        }
    }

    /// The description (or title), then the constraints as tags, in schema order.
    fn doc_body(&mut self, kw: &Keywords<'_>) -> bool {
        let start = self.out.len();
        if let Some(text) = kw.text() {
            self.doc_text(text);
        }
        for (key, value) in kw.tags.into_iter().flatten() {
            let flag = match key.as_str() {
                "deprecated" | "uniqueItems" => true,
                "default" | "format" | "pattern" | "minimum" | "maximum" | "exclusiveMinimum"
                | "exclusiveMaximum" | "multipleOf" | "minLength" | "maxLength" | "minItems"
                | "maxItems" | "minProperties" | "maxProperties" | "examples" => false,
                _ => continue,
            };
            if flag && value != &Value::Bool(true) {
                continue;
            }
            self.doc_sep(start);
            self.out.push('@');
            self.out.push_str(key);
            if flag {
                continue;
            }
            self.out.push(' ');
            match value {
                Value::String(s) if key == "format" || key == "pattern" => self.doc_text(s),
                _ => {
                    let at = self.out.len();
                    push_json(&mut self.out, value, 0);
                    if self.out[at..].contains("*/") {
                        let escaped = self.out[at..].replace("*/", "*\\/");
                        self.out.truncate(at);
                        self.out.push_str(&escaped);
                    }
                }
            }
        }
        self.out.len() > start
    }

    fn doc_sep(&mut self, body: usize) {
        if self.out.len() > body {
            self.out.push(' ');
        }
    }

    /// Comment text: `*/` escaped, each line break continued with ` * `.
    fn doc_text(&mut self, text: &str) {
        if !has_either_byte(text.as_bytes(), b'\n', b'/') {
            self.out.push_str(text);
            return;
        }
        let bytes = text.as_bytes();
        let mut from = 0;
        for (i, &b) in bytes.iter().enumerate() {
            match b {
                b'/' if i > 0 && bytes[i - 1] == b'*' => {
                    self.out.push_str(&text[from..i]);
                    self.out.push('\\');
                    from = i;
                }
                b'\n' => {
                    let line = &text[from..i];
                    self.out.push_str(line.strip_suffix('\r').unwrap_or(line));
                    self.newline();
                    self.out.push_str(" *");
                    if bytes.get(i + 1).is_some_and(|&c| c != b'\n' && c != b'\r') {
                        self.out.push(' ');
                    }
                    from = i + 1;
                    if self.inline_from.is_some() {
                        self.aborted = true;
                    }
                }
                _ => {}
            }
        }
        self.out.push_str(&text[from..]);
    }

    fn newline(&mut self) {
        const LINE: &str = "\n                                                                ";
        match LINE.get(..=self.indent) {
            Some(line) => self.out.push_str(line),
            None => {
                self.out.push('\n');
                self.out.extend(std::iter::repeat_n(' ', self.indent));
            }
        }
    }
}

/// Reads the first byte of every key and string in a schema.
fn warm(v: &Value, depth: u32) -> usize {
    if depth > MAX_DEPTH {
        return 0;
    }
    match v {
        Value::Object(m) => m
            .iter()
            .map(|(k, v)| k.as_bytes().first().map_or(0, |&b| b as usize) + warm(v, depth + 1))
            .sum(),
        Value::Array(items) => items.iter().map(|v| warm(v, depth + 1)).sum(),
        Value::String(s) => s.as_bytes().first().map_or(0, |&b| b as usize),
        _ => 0,
    }
}

/// Whether `bytes` contains `a` or `b`, eight bytes at a time.
fn has_either_byte(bytes: &[u8], a: u8, b: u8) -> bool {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    // `(x - ONES) & !x & HIGHS` is non-zero exactly when some byte of `x` is zero.
    let zero_byte = |x: u64| x.wrapping_sub(ONES) & !x & HIGHS;
    let (words, rest) = bytes.as_chunks::<8>();
    let found = words.iter().fold(0, |found, word| {
        let w = u64::from_ne_bytes(*word);
        found | zero_byte(w ^ (ONES * u64::from(a))) | zero_byte(w ^ (ONES * u64::from(b)))
    });
    found != 0 || rest.iter().any(|&c| c == a || c == b)
}

/// `str::trim`, skipping its Unicode checks when both ends are visible ASCII.
fn trim(s: &str) -> &str {
    let b = s.as_bytes();
    match (b.first(), b.last()) {
        (Some(first), Some(last)) if first.is_ascii_graphic() && last.is_ascii_graphic() => s,
        _ => s.trim(),
    }
}

/// Whether calling with no argument (`{}`) can be valid: a plain object
/// schema that requires nothing.
fn args_optional(params: &Value, kw: Option<&Keywords<'_>>) -> bool {
    match (params, kw) {
        (Value::Bool(b), _) => *b,
        (_, Some(kw)) => {
            let object = match kw.types {
                None => true,
                Some(Value::String(t)) => t == "object",
                Some(ts) => ts
                    .as_array()
                    .is_some_and(|ts| ts.iter().any(|t| t == "object")),
            };
            object
                && kw.required.is_empty()
                && kw.reference.is_none()
                && kw.any_of.is_none()
                && kw.one_of.is_none()
                && kw.all_of.is_empty()
        }
        _ => false,
    }
}

/// The keywords of one schema object that rendering reads, found in one pass:
/// a map lookup hashes its key, and most schema objects have only a few keys.
#[derive(Default)]
struct Keywords<'a> {
    reference: Option<&'a str>,
    any_of: Option<&'a [Value]>,
    one_of: Option<&'a [Value]>,
    all_of: &'a [Value],
    constant: Option<&'a Value>,
    enumeration: Option<&'a [Value]>,
    /// `type`, when it is a string or an array.
    types: Option<&'a Value>,
    properties: Option<&'a Map<String, Value>>,
    required: &'a [Value],
    additional: Option<&'a Value>,
    patterns: Option<&'a Map<String, Value>>,
    /// `properties`, `required`, `additionalProperties` or `patternProperties` is present.
    object_like: bool,
    items: Option<&'a Value>,
    prefix_items: Option<&'a Value>,
    additional_items: Option<&'a Value>,
    min_items: Option<u64>,
    max_items: Option<u64>,
    nullable: bool,
    description: Option<&'a str>,
    title: Option<&'a str>,
    /// The schema, when it has a keyword [`Renderer::doc_body`] writes as a tag.
    tags: Option<&'a Map<String, Value>>,
}

impl<'a> Keywords<'a> {
    /// `None` for a value that is not a schema object.
    #[inline(always)]
    fn of(schema: &'a Value) -> Option<Self> {
        let Value::Object(m) = schema else {
            return None;
        };
        let mut kw = Self::default();
        let slice = |v: &'a Value| v.as_array().map(Vec::as_slice);
        for (key, v) in m {
            // Roughly most frequent first: arms of one length are tried in order.
            match key.as_str() {
                "type" => kw.types = (v.is_string() || v.is_array()).then_some(v),
                "description" => kw.description = v.as_str(),
                "properties" => {
                    kw.object_like = true;
                    kw.properties = v.as_object();
                }
                "required" => {
                    kw.object_like = true;
                    kw.required = slice(v).unwrap_or_default();
                }
                "additionalProperties" => {
                    kw.object_like = true;
                    kw.additional = Some(v);
                }
                "items" => kw.items = Some(v),
                "enum" => kw.enumeration = slice(v),
                "const" => kw.constant = Some(v),
                "oneOf" => kw.one_of = slice(v),
                "anyOf" => kw.any_of = slice(v),
                "allOf" => kw.all_of = slice(v).unwrap_or_default(),
                "$ref" => kw.reference = v.as_str(),
                "minItems" => {
                    kw.min_items = v.as_u64();
                    kw.tags = Some(m);
                }
                "maxItems" => {
                    kw.max_items = v.as_u64();
                    kw.tags = Some(m);
                }
                "minimum" | "maximum" | "default" | "format" | "minLength" | "maxLength"
                | "pattern" | "deprecated" | "uniqueItems" | "exclusiveMinimum"
                | "exclusiveMaximum" | "multipleOf" | "minProperties" | "maxProperties"
                | "examples" => kw.tags = Some(m),
                "nullable" => kw.nullable = v == &Value::Bool(true),
                "title" => kw.title = v.as_str(),
                "patternProperties" => {
                    kw.object_like = true;
                    kw.patterns = v.as_object().filter(|p| !p.is_empty());
                }
                "prefixItems" => kw.prefix_items = Some(v),
                "additionalItems" => kw.additional_items = Some(v),
                _ => {}
            }
        }
        Some(kw)
    }

    /// The description, or else the title.
    fn text(&self) -> Option<&'a str> {
        let text = |t: Option<&'a str>| t.map(trim).filter(|t| !t.is_empty());
        text(self.description).or_else(|| text(self.title))
    }

    fn array_like(&self) -> bool {
        self.items.is_some() || self.prefix_items.is_some()
    }

    fn has_own_type(&self) -> bool {
        self.constant.is_some()
            || self.enumeration.is_some()
            || self.types.is_some()
            || self.object_like
            || self.array_like()
    }

    /// Whether the own type already includes `null` (so `nullable` adds nothing).
    fn admits_null(&self) -> bool {
        match (self.constant, self.enumeration, self.types) {
            (Some(c), _, _) => c.is_null(),
            (None, Some(values), _) => values.iter().any(Value::is_null),
            (None, _, Some(Value::String(t))) => t == "null",
            (None, _, Some(Value::Array(ts))) => ts.iter().any(|t| t == "null"),
            _ => false,
        }
    }
}

/// Resolves a local `$ref` (`#` or `#/json/pointer`, percent-encoded or not).
fn resolve<'a>(root: &'a Value, r: &str) -> Option<&'a Value> {
    let pointer = r.strip_prefix('#')?;
    if pointer.is_empty() {
        return Some(root);
    }
    if !pointer.starts_with('/') {
        return None;
    }
    if !pointer.contains('%') {
        return root.pointer(pointer);
    }
    root.pointer(&percent_decode(pointer)?)
}

fn percent_decode(s: &str) -> Option<String> {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = s.get(i + 1..i + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
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

/// Every `$ref` reachable from `r`, with its target, in a fixed order.
fn closure<'a>(root: &'a Value, r: &'a str) -> Vec<(&'a str, &'a Value)> {
    let mut out: Vec<(&'a str, &'a Value)> = Vec::new();
    let mut stack = vec![r];
    while let Some(r) = stack.pop() {
        if out.iter().any(|(seen, _)| *seen == r) {
            continue;
        }
        let target = resolve(root, r).unwrap_or(&NULL);
        out.push((r, target));
        collect_refs(target, &mut stack, 0);
    }
    out
}

fn collect_refs<'a>(schema: &'a Value, out: &mut Vec<&'a str>, depth: u32) {
    // `depth` counts JSON levels: a schema level takes up to three
    // (`properties`, the name, the schema), and rendering stops at MAX_DEPTH.
    if depth > 3 * MAX_DEPTH {
        return;
    }
    match schema {
        Value::Object(m) => {
            for (key, value) in m {
                match (key.as_str(), value) {
                    ("$ref", Value::String(r)) if r.starts_with('#') => out.push(r),
                    ("enum" | "const" | "default" | "examples", _) => {}
                    _ => collect_refs(value, out, depth + 1),
                }
            }
        }
        Value::Array(items) => {
            for item in items {
                collect_refs(item, out, depth + 1);
            }
        }
        _ => {}
    }
}

/// Whether `from` refers to `goal` outside any object (and, unless `arrays`,
/// outside any array or tuple).
fn reaches(
    root: &Value,
    from: &Value,
    goal: &Value,
    arrays: bool,
    seen: &mut Vec<*const Value>,
    depth: u32,
) -> bool {
    let Value::Object(m) = from else {
        return false;
    };
    if depth > MAX_DEPTH {
        return false;
    }
    for (key, value) in m {
        let next: &[Value] = match (key.as_str(), value) {
            ("$ref", Value::String(r)) => {
                let Some(target) = resolve(root, r) else {
                    continue;
                };
                let key: *const Value = target;
                if std::ptr::eq(target, goal) {
                    return true;
                }
                if seen.contains(&key) {
                    continue;
                }
                seen.push(key);
                std::slice::from_ref(target)
            }
            ("anyOf" | "oneOf" | "allOf", Value::Array(members)) => members,
            ("items" | "prefixItems", Value::Array(members)) if arrays => members,
            ("items" | "prefixItems" | "additionalItems", schema) if arrays => {
                std::slice::from_ref(schema)
            }
            _ => continue,
        };
        if next
            .iter()
            .any(|schema| reaches(root, schema, goal, arrays, seen, depth + 1))
        {
            return true;
        }
    }
    false
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

/// An ASCII JavaScript identifier (reserved words are fine as member names).
fn is_ident(s: &str) -> bool {
    let b = s.as_bytes();
    !b.is_empty()
        && !b[0].is_ascii_digit()
        && b.iter()
            .all(|&c| c.is_ascii_alphanumeric() || c == b'_' || c == b'$')
}

fn push_key(out: &mut String, name: &str) {
    if is_ident(name) {
        out.push_str(name);
    } else {
        push_json_str(out, name);
    }
}

/// Compact JSON, which is also a valid TypeScript type for a literal value.
fn push_json(out: &mut String, value: &Value, depth: u32) {
    if depth > MAX_JSON_DEPTH {
        out.push_str("unknown");
        return;
    }
    match value {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => push_number(out, n),
        Value::String(s) => push_json_str(out, s),
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                push_json(out, item, depth + 1);
            }
            out.push(']');
        }
        Value::Object(m) => {
            out.push('{');
            for (i, (key, item)) in m.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                push_json_str(out, key);
                out.push(':');
                push_json(out, item, depth + 1);
            }
            out.push('}');
        }
    }
}

/// A JSON string literal (also valid TypeScript); U+2028/2029 escaped too.
fn push_json_str(out: &mut String, s: &str) {
    out.push('"');
    let bytes = s.as_bytes();
    // No early exit, so the check vectorizes.
    let plain = !bytes.iter().fold(false, |special, &b| {
        special | (b < 0x20) | (b == b'"') | (b == b'\\') | (b == 0xE2)
    });
    if plain {
        out.push_str(s);
        out.push('"');
        return;
    }
    let mut from = 0;
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        // Every byte matched here starts a character, so `i` is a char boundary.
        let (escape, len) = match b {
            b'"' => ("\\\"", 1),
            b'\\' => ("\\\\", 1),
            b'\n' => ("\\n", 1),
            b'\r' => ("\\r", 1),
            b'\t' => ("\\t", 1),
            0..0x20 => ("", 1),
            0xE2 if bytes.get(i + 1) == Some(&0x80) => match bytes.get(i + 2) {
                Some(0xA8) => ("\\u2028", 3),
                Some(0xA9) => ("\\u2029", 3),
                _ => {
                    i += 1;
                    continue;
                }
            },
            _ => {
                i += 1;
                continue;
            }
        };
        out.push_str(&s[from..i]);
        if escape.is_empty() {
            let _ = write!(out, "\\u{b:04x}");
        } else {
            out.push_str(escape);
        }
        i += len;
        from = i;
    }
    out.push_str(&s[from..]);
    out.push('"');
}

/// A JSON number as JSON writes it; integers without going through `fmt`.
fn push_number(out: &mut String, n: &serde_json::Number) {
    let (negative, magnitude) = match (n.as_u64(), n.as_i64()) {
        (Some(u), _) => (false, u),
        (None, Some(i)) => (true, i.unsigned_abs()),
        (None, None) => {
            let _ = write!(out, "{n}");
            return;
        }
    };
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    let mut rest = magnitude;
    loop {
        at -= 1;
        digits[at] = b'0' + (rest % 10) as u8;
        rest /= 10;
        if rest == 0 {
            break;
        }
    }
    if negative {
        out.push('-');
    }
    out.extend(digits[at..].iter().map(|&d| char::from(d)));
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn ts(schema: Value) -> String {
        expression(&schema)
    }

    struct Sdk {
        types: String,
        methods: String,
    }

    fn sdk(tools: &[ToolDefinition]) -> Sdk {
        let refs: Vec<&ToolDefinition> = tools.iter().collect();
        let text = render_sdk(&refs, ["", "@@\n", ""]);
        let (types, methods) = text.split_once("@@\n").expect("the middle marker");
        Sdk {
            types: types.to_owned(),
            methods: methods.to_owned(),
        }
    }

    fn tool(name: &str, parameters: Value) -> ToolDefinition {
        ToolDefinition::new(name).parameters(parameters)
    }

    #[test]
    fn primitives() {
        assert_eq!(ts(json!({ "type": "string" })), "string");
        assert_eq!(ts(json!({ "type": "integer" })), "number");
        assert_eq!(ts(json!({ "type": "number" })), "number");
        assert_eq!(ts(json!({ "type": "boolean" })), "boolean");
        assert_eq!(ts(json!({ "type": "null" })), "null");
        assert_eq!(ts(json!({ "type": "bogus" })), "unknown");
    }

    #[test]
    fn boolean_empty_and_non_schemas() {
        assert_eq!(ts(json!(true)), "unknown");
        assert_eq!(ts(json!({})), "unknown");
        assert_eq!(ts(json!(false)), "never");
        assert_eq!(ts(json!(5)), "unknown");
        assert_eq!(ts(json!("string")), "unknown");
        assert_eq!(ts(json!(null)), "unknown");
        assert_eq!(ts(json!([{ "type": "string" }])), "unknown");
    }

    #[test]
    fn required_and_optional_properties() {
        let schema = json!({
            "type": "object",
            "properties": { "a": { "type": "string" }, "b": { "type": "integer" } },
            "required": ["a"]
        });
        assert_eq!(ts(schema), "{ a: string; b?: number }");
    }

    #[test]
    fn properties_imply_an_object_and_required_names_are_members() {
        let schema = json!({ "properties": { "a": true }, "required": ["a", "b", "b", 7] });
        assert_eq!(ts(schema), "{ a: unknown; b: unknown }");
    }

    #[test]
    fn non_identifier_keys_are_quoted() {
        let schema = json!({
            "type": "object",
            "properties": {
                "x-request-id": { "type": "string" },
                "1st": { "type": "string" },
                "ümlaut": { "type": "string" },
                "say \"hi\"": { "type": "string" },
                "$ok_1": { "type": "string" },
                "new": { "type": "string" }
            }
        });
        assert_eq!(
            ts(schema),
            "{\n \"x-request-id\"?: string;\n \"1st\"?: string;\n \"ümlaut\"?: string;\n \
             \"say \\\"hi\\\"\"?: string;\n $ok_1?: string;\n new?: string;\n}"
        );
    }

    #[test]
    fn objects_without_members_are_records() {
        assert_eq!(
            ts(json!({ "type": "object" })),
            "{ [key: string]: unknown }"
        );
        assert_eq!(
            ts(json!({ "type": "object", "additionalProperties": false })),
            "{ [key: string]: never }"
        );
        assert_eq!(
            ts(json!({ "type": "object", "additionalProperties": { "type": "integer" } })),
            "{ [key: string]: number }"
        );
    }

    #[test]
    fn additional_properties_beside_named_members_stay_valid() {
        let open = json!({
            "type": "object",
            "properties": { "a": { "type": "string" } },
            "additionalProperties": true
        });
        assert_eq!(ts(open), "{ a?: string; [key: string]: unknown }");
        let typed = json!({
            "type": "object",
            "properties": { "a": { "type": "string" }, "b": { "type": "boolean" } },
            "required": ["a"],
            "additionalProperties": { "type": "number" }
        });
        assert_eq!(
            ts(typed),
            "{ a: string; b?: boolean; [key: string]: number | string | boolean | undefined }"
        );
        let closed = json!({
            "type": "object",
            "properties": { "a": { "type": "string" } },
            "required": ["a"],
            "additionalProperties": false
        });
        assert_eq!(ts(closed), "{ a: string }");
    }

    #[test]
    fn pattern_properties_become_a_documented_index_signature() {
        let schema = json!({
            "type": "object",
            "patternProperties": { "^x-": { "type": "string" } },
            "additionalProperties": false
        });
        assert_eq!(
            ts(schema),
            "{\n /** keys matching ^x- */ [key: string]: string;\n}"
        );
    }

    #[test]
    fn arrays() {
        assert_eq!(
            ts(json!({ "type": "array", "items": { "type": "string" } })),
            "string[]"
        );
        assert_eq!(
            ts(json!({ "type": "array", "items": { "type": ["string", "number"] } })),
            "(string | number)[]"
        );
        assert_eq!(
            ts(
                json!({ "type": "array", "items": { "anyOf": [{ "type": "string" }, { "type": "array", "items": { "type": "null" } }] } })
            ),
            "(string | null[])[]"
        );
        assert_eq!(ts(json!({ "type": "array" })), "unknown[]");
        assert_eq!(ts(json!({ "type": "array", "items": false })), "[]");
        assert_eq!(ts(json!({ "items": { "type": "boolean" } })), "boolean[]");
        assert_eq!(
            ts(
                json!({ "type": "array", "items": { "type": "array", "items": { "type": "integer" } } })
            ),
            "number[][]"
        );
    }

    #[test]
    fn tuples() {
        let closed = json!({
            "type": "array",
            "prefixItems": [{ "type": "string" }, { "type": "number" }],
            "items": false,
            "minItems": 2
        });
        assert_eq!(ts(closed), "/** @minItems 2 */ [string, number]");
        let open = json!({
            "type": "array",
            "prefixItems": [{ "type": "string" }, { "type": "number" }],
            "items": { "type": "boolean" }
        });
        assert_eq!(ts(open), "[string?, number?, ...boolean[]]");
        let draft7 = json!({
            "type": "array",
            "items": [{ "type": "string" }, { "type": ["number", "null"] }],
            "additionalItems": false,
            "minItems": 1
        });
        assert_eq!(ts(draft7), "/** @minItems 1 */ [string, (number | null)?]");
        let unbounded = json!({ "type": "array", "items": [{ "type": "string" }], "minItems": 1 });
        assert_eq!(ts(unbounded), "/** @minItems 1 */ [string, ...unknown[]]");
        let by_max = json!({ "prefixItems": [{ "type": "string" }], "maxItems": 1 });
        assert_eq!(ts(by_max), "/** @maxItems 1 */ [string?]");
    }

    #[test]
    fn enums_and_consts_are_literal_unions() {
        assert_eq!(
            ts(json!({ "enum": ["a", "b\"c", 1, -2.5, true, null] })),
            "\"a\" | \"b\\\"c\" | 1 | -2.5 | true | null"
        );
        assert_eq!(ts(json!({ "type": "string", "enum": ["x"] })), "\"x\"");
        assert_eq!(ts(json!({ "enum": [] })), "never");
        assert_eq!(ts(json!({ "const": "ref" })), "\"ref\"");
        assert_eq!(
            ts(json!({ "const": { "a": [1, "x\n", {}] } })),
            "{\"a\":[1,\"x\\n\",{}]}"
        );
        assert_eq!(
            ts(json!({ "const": "line\u{2028}sep\u{1}" })),
            "\"line\\u2028sep\\u0001\""
        );
    }

    #[test]
    fn one_of_and_any_of_are_unions() {
        assert_eq!(
            ts(json!({ "oneOf": [{ "type": "string" }, { "type": "integer" }] })),
            "string | number"
        );
        assert_eq!(
            ts(json!({ "anyOf": [{ "type": "string" }, { "type": "null" }] })),
            "string | null"
        );
        assert_eq!(ts(json!({ "anyOf": [] })), "never");
        assert_eq!(ts(json!({ "anyOf": [{ "not": {} }, true] })), "unknown");
    }

    #[test]
    fn all_of_is_an_intersection() {
        let schema = json!({
            "allOf": [
                { "type": "object", "properties": { "a": { "type": "string" } }, "required": ["a"] },
                { "type": "object", "properties": { "b": { "type": "number" } } }
            ]
        });
        assert_eq!(ts(schema), "{ a: string } & { b?: number }");
        let mixed = json!({
            "type": "object",
            "properties": { "a": { "type": "string" }, "b": { "type": "string" } },
            "anyOf": [{ "required": ["a"] }, { "required": ["b"] }]
        });
        assert_eq!(
            ts(mixed),
            "{ a?: string; b?: string } & ({ a: unknown } | { b: unknown })"
        );
        // A bare `unknown` member adds nothing; a documented one keeps its words.
        let noise = json!({ "type": "string", "allOf": [{ "minLength": 1 }, true, {}] });
        assert_eq!(ts(noise), "string & /** @minLength 1 */ unknown");
    }

    #[test]
    fn type_arrays_and_nullable() {
        assert_eq!(ts(json!({ "type": ["string", "null"] })), "string | null");
        assert_eq!(ts(json!({ "type": ["integer", "number"] })), "number");
        assert_eq!(ts(json!({ "type": [] })), "unknown");
        assert_eq!(
            ts(json!({ "type": "string", "nullable": true })),
            "string | null"
        );
        assert_eq!(
            ts(json!({ "enum": ["a", null], "nullable": true })),
            "\"a\" | null"
        );
        assert_eq!(
            ts(json!({ "type": "array", "items": { "type": "string", "nullable": true } })),
            "(string | null)[]"
        );
        assert_eq!(
            ts(json!({ "type": ["array", "null"], "items": { "type": "string" } })),
            "string[] | null"
        );
    }

    #[test]
    fn local_refs_expand_in_a_standalone_expression() {
        let schema = json!({
            "$defs": { "n": { "type": "number" } },
            "definitions": { "s": { "type": "string" } },
            "type": "object",
            "properties": {
                "a": { "$ref": "#/$defs/n" },
                "b": { "$ref": "#/definitions/s" },
                "c": { "$ref": "#/$defs/missing" },
                "d": { "$ref": "https://example.com/schema.json" },
                "self": { "$ref": "#" }
            }
        });
        assert_eq!(
            ts(schema),
            "{ a?: number; b?: string; c?: unknown; d?: unknown; self?: unknown }"
        );
        let list = json!({
            "$defs": { "node": { "type": "object", "properties": { "next": { "$ref": "#/$defs/node" } } } },
            "$ref": "#/$defs/node"
        });
        assert_eq!(ts(list), "{ next?: unknown }");
    }

    #[test]
    fn docs_become_jsdoc_on_the_member() {
        let schema = json!({
            "type": "object",
            "properties": {
                "limit": {
                    "type": "integer", "description": "Max rows.", "minimum": 1,
                    "exclusiveMaximum": 10, "multipleOf": 2, "default": 4
                },
                "name": {
                    "type": "string", "minLength": 1, "maxLength": 9, "pattern": "^[a-z]+$",
                    "format": "hostname", "deprecated": true
                },
                "ids": { "type": "array", "items": { "type": "string" }, "minItems": 1, "maxItems": 3, "uniqueItems": true },
                "t": { "title": "A title stands in for a missing description", "type": "string" },
                "ratio": { "type": "number", "exclusiveMinimum": 0, "maximum": 1.5, "deprecated": false, "examples": [0.5] }
            }
        });
        assert_eq!(
            ts(schema),
            "{\n \
             /** Max rows. @minimum 1 @exclusiveMaximum 10 @multipleOf 2 @default 4 */ limit?: number;\n \
             /** @minLength 1 @maxLength 9 @pattern ^[a-z]+$ @format hostname @deprecated */ name?: string;\n \
             /** @minItems 1 @maxItems 3 @uniqueItems */ ids?: string[];\n \
             /** A title stands in for a missing description */ t?: string;\n \
             /** @exclusiveMinimum 0 @maximum 1.5 @examples [0.5] */ ratio?: number;\n}"
        );
    }

    #[test]
    fn docs_elsewhere_are_leading_comments() {
        assert_eq!(
            ts(
                json!({ "description": "Top.", "oneOf": [{ "type": "string", "description": "An id." }, { "type": "integer", "minimum": 0 }] })
            ),
            "/** Top. */ /** An id. */ string | /** @minimum 0 */ number"
        );
        assert_eq!(
            ts(json!({ "type": "array", "items": { "type": "string", "format": "uri" } })),
            "/** @format uri */ string[]"
        );
    }

    #[test]
    fn comment_terminators_and_line_breaks_are_escaped() {
        let schema = json!({
            "type": "object",
            "properties": {
                "a": { "type": "string", "description": "ends */ early /*/ too", "default": "*/", "pattern": "a*/b" },
                "b": { "type": "string", "description": "line one\r\nline two\n\nafter a gap" }
            }
        });
        assert_eq!(
            ts(schema),
            "{\n \
             /** ends *\\/ early /*\\/ too @default \"*\\/\" @pattern a*\\/b */ a?: string;\n \
             /** line one\n  * line two\n  *\n  * after a gap */ b?: string;\n}"
        );
    }

    #[test]
    fn what_typescript_cannot_say_is_unknown_with_its_description() {
        let schema = json!({
            "type": "object",
            "properties": {
                "n": { "not": { "type": "string" }, "description": "Anything but a string." },
                "c": { "if": { "type": "string" }, "then": { "minLength": 1 } },
                "r": { "$ref": "other.json#/x", "description": "Remote." },
                "k": { "minimum": 3 }
            }
        });
        assert_eq!(
            ts(schema),
            "{\n /** Anything but a string. */ n?: unknown;\n c?: unknown;\n \
             /** Remote. */ r?: unknown;\n /** @minimum 3 */ k?: unknown;\n}"
        );
    }

    #[test]
    fn long_objects_break_into_lines() {
        let mut props = Map::new();
        for i in 0..12 {
            props.insert(format!("property_{i}"), json!({ "type": "string" }));
        }
        let text = ts(json!({ "type": "object", "properties": props }));
        assert!(
            text.starts_with("{\n property_0?: string;\n property_1?: string;\n"),
            "{text}"
        );
        assert!(text.ends_with(" property_11?: string;\n}"), "{text}");
    }

    #[test]
    fn deep_nesting_is_capped() {
        let mut schema = json!({ "type": "string" });
        for _ in 0..500 {
            schema = json!({ "type": "array", "items": schema });
        }
        let text = ts(schema);
        assert!(text.starts_with("unknown[]"), "{}", &text[..40]);
        assert_eq!(text.matches("[]").count(), MAX_DEPTH as usize + 1);
    }

    #[test]
    fn exponential_refs_stay_bounded() {
        let mut defs = Map::new();
        for i in 0..40 {
            let next = format!("#/$defs/d{}", i + 1);
            defs.insert(
                format!("d{i}"),
                json!({ "type": "array", "items": [{ "$ref": next }, { "$ref": next }] }),
            );
        }
        defs.insert("d40".into(), json!({ "type": "string" }));
        let text = ts(json!({ "$defs": defs, "$ref": "#/$defs/d0" }));
        assert!(text.len() < 10_000_000, "{} bytes", text.len());
        assert!(text.contains("unknown"));
    }

    #[test]
    fn method_signatures() {
        let out = sdk(&[
            tool("echo", json!({ "type": "object", "properties": { "v": { "type": "string" } }, "required": ["v"] }))
                .description("Echo it.")
                .output(json!({ "type": "string", "description": "The same text." })),
            tool("github.create-issue", json!({ "type": "object", "properties": { "t": { "type": "string" } } }))
                .description("long text")
                .summary("Open an issue."),
            tool("new", json!({ "type": "object", "description": "Nothing needed." })).read_only(true),
            tool("x", json!({ "anyOf": [{ "type": "object" }] })),
        ]);
        assert_eq!(out.types, "");
        assert_eq!(
            out.methods,
            " /** Echo it. @returns The same text. */\n echo(args: { v: string }): Promise<string>;\n \
             /** Open an issue.\n  * Call: tools[\"github.create-issue\"](args) */\n \
             \"github.create-issue\"(args?: { t?: string }): Promise<unknown>;\n \
             /** Call: tools[\"new\"](args) @readonly @param args Nothing needed. */\n \
             \"new\"(args?: { [key: string]: unknown }): Promise<unknown>;\n \
             x(args: { [key: string]: unknown }): Promise<unknown>;\n"
        );
    }

    #[test]
    fn multi_line_tool_descriptions_continue_the_comment() {
        let out = sdk(&[tool("t", json!({ "type": "object" })).description("First.\nSecond.\n")]);
        assert_eq!(
            out.methods,
            " /** First.\n  * Second. */\n t(args?: { [key: string]: unknown }): Promise<unknown>;\n"
        );
    }

    #[test]
    fn refs_become_aliases_shared_between_tools() {
        let params = json!({
            "$defs": {
                "rich_text": { "type": "object", "description": "Some text.", "properties": { "content": { "type": "string" } }, "required": ["content"] }
            },
            "type": "object",
            "properties": { "title": { "type": "array", "items": { "$ref": "#/$defs/rich_text" } } },
            "required": ["title"]
        });
        let out = sdk(&[tool("a", params.clone()), tool("b", params)]);
        assert_eq!(
            out.types,
            "/** Some text. */\ntype RichText = { content: string };\n"
        );
        assert_eq!(
            out.methods,
            " a(args: { title: RichText[] }): Promise<unknown>;\n b(args: { title: RichText[] }): Promise<unknown>;\n"
        );
    }

    #[test]
    fn threads_do_not_change_a_byte() {
        // Plain tools, with `$ref`s here and there: `Item` means a string in
        // some tools and a number in others, so its suffix depends on every
        // tool before it, across chunk boundaries.
        let tools: Vec<ToolDefinition> = (0..700)
            .map(|i| {
                let params = match i % 97 {
                    13 => json!({
                        "$defs": { "item": { "type": "string" } },
                        "type": "object",
                        "properties": { "i": { "$ref": "#/$defs/item" } }
                    }),
                    41 => json!({
                        "$defs": { "item": { "type": "number", "description": format!("n{i}") } },
                        "type": "object",
                        "properties": { "i": { "$ref": "#/$defs/item" } }
                    }),
                    _ => json!({
                        "type": "object",
                        "properties": {
                            "q": { "type": "string", "description": format!("query {i}") },
                            "n": { "type": "integer", "minimum": i }
                        },
                        "required": ["q"]
                    }),
                };
                tool(&format!("tool_{i}"), params)
            })
            .collect();
        let refs: Vec<&ToolDefinition> = tools.iter().collect();
        let frame = ["head\n", "middle\n", "tail\n"];
        let one = render_sdk_with(&refs, frame, 1);
        assert!(one.contains("type Item7 = number;"), "{one}");
        for workers in [2, 3, 8] {
            assert_eq!(
                render_sdk_with(&refs, frame, workers),
                one,
                "{workers} workers"
            );
        }
        // Without any `$ref`, every chunk is kept as the worker wrote it.
        let plain: Vec<&ToolDefinition> = refs
            .iter()
            .copied()
            .filter(|t| t.parameters.get("$defs").is_none())
            .collect();
        assert_eq!(
            render_sdk_with(&plain, frame, 4),
            render_sdk_with(&plain, frame, 1)
        );
        assert_eq!(workers_for(10), 1);
    }

    #[test]
    fn different_defs_of_one_name_get_suffixes() {
        let with = |t: &str| {
            json!({
                "$defs": { "item": { "type": t } },
                "type": "object",
                "properties": { "i": { "$ref": "#/$defs/item" } },
                "required": ["i"]
            })
        };
        let out = sdk(&[
            tool("a", with("string")),
            tool("b", with("number")),
            tool("c", with("string")),
        ]);
        assert_eq!(out.types, "type Item = string;\ntype Item2 = number;\n");
        assert!(
            out.methods.contains(" a(args: { i: Item })"),
            "{}",
            out.methods
        );
        assert!(
            out.methods.contains(" b(args: { i: Item2 })"),
            "{}",
            out.methods
        );
        assert!(
            out.methods.contains(" c(args: { i: Item })"),
            "{}",
            out.methods
        );
    }

    #[test]
    fn shared_names_depend_on_everything_they_reach() {
        // Same `outer`, but its `inner` differs: not the same type.
        let with = |t: &str| {
            json!({
                "$defs": {
                    "outer": { "type": "object", "properties": { "x": { "$ref": "#/$defs/inner" } } },
                    "inner": { "type": t }
                },
                "$ref": "#/$defs/outer"
            })
        };
        let out = sdk(&[tool("a", with("string")), tool("b", with("boolean"))]);
        assert_eq!(
            out.types,
            "type Outer = { x?: Inner };\ntype Outer2 = { x?: Inner2 };\ntype Inner = string;\ntype Inner2 = boolean;\n"
        );
    }

    #[test]
    fn alias_names_avoid_builtins_and_the_frame() {
        let params = json!({
            "$defs": {
                "error": { "type": "string" },
                "ToolCallError": { "type": "number" },
                "promise": { "type": "boolean" },
                "9lives": { "type": "null" },
                "é": { "type": "string", "format": "x" },
                "tools": { "const": 1 }
            },
            "type": "object",
            "properties": {
                "a": { "$ref": "#/$defs/error" },
                "b": { "$ref": "#/$defs/ToolCallError" },
                "c": { "$ref": "#/$defs/promise" },
                "d": { "$ref": "#/$defs/9lives" },
                "e": { "$ref": "#/$defs/%C3%A9" },
                "f": { "$ref": "#/$defs/tools" }
            }
        });
        let out = sdk(&[tool("t", params)]);
        assert_eq!(
            out.types,
            "type Error2 = string;\ntype ToolCallError2 = number;\ntype Promise2 = boolean;\n\
             type T9lives = null;\n/** @format x */\ntype Type = string;\ntype Tools = 1;\n"
        );
    }

    #[test]
    fn recursive_aliases_and_root_refs() {
        let params = json!({
            "$defs": {
                "node": {
                    "type": "object",
                    "properties": { "value": { "type": "integer" }, "children": { "type": "array", "items": { "$ref": "#/$defs/node" } } },
                    "required": ["value"]
                }
            },
            "type": "object",
            "properties": { "tree": { "$ref": "#/$defs/node" }, "again": { "$ref": "#" } },
            "required": ["tree"]
        });
        let out = sdk(&[tool("walk.tree", params)]);
        assert_eq!(
            out.types,
            "type Node2 = { value: number; children?: Node2[] };\n\
             type WalkTreeArgs = { tree: Node2; again?: WalkTreeArgs };\n"
        );
        assert!(
            out.methods.contains(
                "\"walk.tree\"(args: { tree: Node2; again?: WalkTreeArgs }): Promise<unknown>;"
            ),
            "{}",
            out.methods
        );
    }

    #[test]
    fn direct_alias_cycles_break_to_unknown() {
        let params = json!({
            "$defs": {
                "a": { "anyOf": [{ "type": "string" }, { "$ref": "#/$defs/b" }] },
                "b": { "allOf": [{ "$ref": "#/$defs/a" }] },
                "c": { "$ref": "#/$defs/c" }
            },
            "type": "object",
            "properties": { "x": { "$ref": "#/$defs/a" }, "y": { "$ref": "#/$defs/c" } }
        });
        let out = sdk(&[tool("t", params)]);
        assert_eq!(
            out.types,
            "type A = string | unknown;\ntype C = unknown;\ntype B = unknown;\n"
        );
    }

    #[test]
    fn cycles_through_optional_or_rest_tuple_elements_break() {
        // TypeScript rejects `type A = string | [A[]?]` as circular but takes
        // `type A = string | [A[], ...unknown[]]` and `{ x?: A }[]`.
        let tuple = |min: u64| {
            json!({ "anyOf": [
                { "type": "string" },
                { "type": "array", "prefixItems": [{ "type": "array", "items": { "$ref": "#/$defs/a" } }], "minItems": min }
            ] })
        };
        for (min, expected) in [
            (
                0,
                "type A = string | /** @minItems 0 */ [unknown[]?, ...unknown[]];\n",
            ),
            (
                1,
                "type A = string | /** @minItems 1 */ [A[], ...unknown[]];\n",
            ),
        ] {
            let params = json!({
                "$defs": { "a": tuple(min) },
                "type": "object",
                "properties": { "x": { "$ref": "#/$defs/a" } }
            });
            assert_eq!(sdk(&[tool("t", params)]).types, expected, "minItems {min}");
        }
        // Through another alias, and through the rest element.
        let params = json!({
            "$defs": {
                "a": { "anyOf": [{ "type": "string" }, { "type": "array", "items": [true], "additionalItems": { "$ref": "#/$defs/b" } }] },
                "b": { "type": "array", "items": { "$ref": "#/$defs/a" } },
                "c": { "anyOf": [{ "type": "null" }, { "type": "array", "prefixItems": [{ "type": "object", "properties": { "c": { "$ref": "#/$defs/c" } } }] }] }
            },
            "type": "object",
            "properties": { "x": { "$ref": "#/$defs/a" }, "y": { "$ref": "#/$defs/c" } }
        });
        assert_eq!(
            sdk(&[tool("t", params)]).types,
            "type A = string | [unknown?, ...unknown[]];\ntype C = null | [{ c?: C }?, ...unknown[]];\ntype B = A[];\n"
        );
    }

    #[test]
    fn args_are_optional_only_when_nothing_is_required() {
        let args_optional =
            |params: &Value| super::args_optional(params, Keywords::of(params).as_ref());
        assert!(args_optional(&json!({ "type": "object" })));
        assert!(args_optional(
            &json!({ "properties": { "a": {} }, "required": [] })
        ));
        assert!(args_optional(&json!(true)));
        assert!(!args_optional(
            &json!({ "type": "object", "required": ["a"] })
        ));
        assert!(!args_optional(&json!({ "$ref": "#/$defs/x" })));
        assert!(!args_optional(&json!({ "type": "string" })));
        assert!(!args_optional(&json!(5)));
    }

    #[test]
    fn byte_search_finds_either_byte_anywhere() {
        let text = "0123456789abcdefghij";
        for i in 0..text.len() {
            let mut bytes = text.as_bytes().to_vec();
            assert!(!has_either_byte(&bytes, b'/', b'\n'));
            bytes[i] = b'/';
            assert!(has_either_byte(&bytes, b'/', b'\n'), "/ at {i}");
            bytes[i] = b'\n';
            assert!(has_either_byte(&bytes, b'/', b'\n'), "newline at {i}");
        }
        assert!(!has_either_byte(b"", b'/', b'\n'));
        assert!(!has_either_byte("é/".as_bytes()[..2].as_ref(), b'/', b'\n'));
    }

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

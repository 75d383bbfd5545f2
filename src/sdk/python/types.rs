//! JSON Schema → Python type expressions. Objects with properties become
//! `TypedDict` classes and local `$ref`s named declarations, written into
//! one buffer of declarations as they are found.

use std::collections::HashMap;

use serde_json::{Map, Value};

use super::docs::{push_comment, push_docstring, schema_note};
use super::names::{Names, is_identifier, is_keyword};
use crate::sdk::keywords::Keywords;
use crate::sdk::naming::{pascal, ref_name, root_name};
use crate::sdk::refs::{closure, reaches, resolve};
use crate::sdk::text::push_json_str;
use crate::sdk::{MAX_DEPTH, NULL};

const ANY: &str = "Any";
const NEVER: &str = "Never";

/// The document `$ref`s resolve against, and what its root is called.
#[derive(Clone, Copy)]
pub(super) struct Root<'a> {
    pub(super) schema: &'a Value,
    /// The tool it belongs to, and `Args` or `Output`: names `#` itself.
    pub(super) owner: &'a str,
    pub(super) kind: &'static str,
}

/// Every `$ref` reachable from one, with its target, in a fixed order.
type Graph<'a> = Vec<(&'a str, &'a Value)>;

/// Writes Python types for schemas, and the declarations they need.
pub(super) struct Types<'a> {
    /// `TypedDict` classes and `TypeAlias`es, each followed by a blank line.
    pub(super) decls: String,
    names: Names,
    by_ref: HashMap<(*const Value, &'a str), String>,
    /// Each declared `$ref`'s base name, the `$ref`s it reaches with their
    /// targets, and its name: another document's `$ref` with the same base
    /// and an equal closure is the same type, declared once.
    shared: Vec<(String, Graph<'a>, String)>,
    root: Root<'a>,
    /// Aliases being declared, reached with no container in between: one
    /// naming itself there is a cycle mypy rejects.
    open: Vec<&'a Value>,
}

impl<'a> Types<'a> {
    /// A writer whose declarations avoid `taken` (what the frame and the
    /// `tools` classes declare).
    pub(super) fn new<'n>(taken: impl IntoIterator<Item = &'n str>) -> Self {
        let mut names = Names::with(super::names::TAKEN);
        for name in taken {
            names.claim(name.to_owned());
        }
        Self {
            decls: String::new(),
            names,
            by_ref: HashMap::new(),
            shared: Vec::new(),
            root: Root {
                schema: &NULL,
                owner: "",
                kind: "Args",
            },
            open: Vec::new(),
        }
    }

    /// Switches to another document (a tool's parameters or output).
    pub(super) fn enter(&mut self, root: Root<'a>) {
        self.root = root;
        self.open.clear();
    }

    /// The type of any schema value; `hint` names a class it may need.
    pub(super) fn ty(&mut self, schema: &'a Value, hint: &str, depth: u32) -> String {
        if depth > MAX_DEPTH {
            return ANY.to_owned();
        }
        match (Keywords::of(schema), schema) {
            (Some(kw), _) => self.schema(&kw, hint, depth),
            (None, Value::Bool(false)) => NEVER.to_owned(),
            _ => ANY.to_owned(),
        }
    }

    /// Python has no intersection: of a schema's parts (`$ref`, own type,
    /// `anyOf`, `oneOf`, `allOf` members) the first that says anything
    /// stands for it, a wider type that refuses no valid value.
    fn schema(&mut self, kw: &Keywords<'a>, hint: &str, depth: u32) -> String {
        let mut ty = ANY.to_owned();
        if let Some(r) = kw.reference {
            ty = self.reference(r, depth);
        }
        if ty == ANY && kw.has_own_type() {
            ty = self.own_type(kw, hint, depth);
        }
        for members in [kw.any_of, kw.one_of].into_iter().flatten() {
            if ty == ANY {
                ty = self.union(members, hint, depth);
            }
        }
        for member in kw.all_of {
            if ty == ANY {
                ty = self.ty(member, hint, depth + 1);
            }
        }
        if kw.nullable && !kw.admits_null() && ty != ANY {
            ty = union([ty, "None".to_owned()]);
        }
        ty
    }

    fn union(&mut self, members: &'a [Value], hint: &str, depth: u32) -> String {
        if members.len() == 1 {
            return self.ty(&members[0], hint, depth + 1);
        }
        let types: Vec<String> = members
            .iter()
            .enumerate()
            .map(|(i, m)| self.ty(m, &format!("{hint}{}", i + 1), depth + 1))
            .collect();
        union(types)
    }

    /// `const`, `enum`, `type`, or what `properties`/`items` imply.
    fn own_type(&mut self, kw: &Keywords<'a>, hint: &str, depth: u32) -> String {
        if let Some(value) = kw.constant {
            return literals(std::slice::from_ref(value));
        }
        if let Some(values) = kw.enumeration {
            return literals(values);
        }
        match kw.types {
            Some(Value::String(t)) => self.type_name(t, kw, hint, depth),
            Some(Value::Array(types)) => {
                let types: Vec<String> = types
                    .iter()
                    .filter_map(Value::as_str)
                    .map(|t| self.type_name(t, kw, hint, depth))
                    .collect();
                if types.is_empty() {
                    ANY.to_owned()
                } else {
                    union(types)
                }
            }
            _ if kw.object_like => self.object(kw, hint, depth),
            _ if kw.array_like() => self.array(kw, hint, depth),
            _ => ANY.to_owned(),
        }
    }

    fn type_name(&mut self, t: &str, kw: &Keywords<'a>, hint: &str, depth: u32) -> String {
        match t {
            "string" => "str".to_owned(),
            "integer" => "int".to_owned(),
            "number" => "float".to_owned(),
            "boolean" => "bool".to_owned(),
            "null" => "None".to_owned(),
            "object" => self.object(kw, hint, depth),
            "array" => self.array(kw, hint, depth),
            _ => ANY.to_owned(),
        }
    }

    /// A `TypedDict` when there are properties, else `dict[str, V]`.
    fn object(&mut self, kw: &Keywords<'a>, hint: &str, depth: u32) -> String {
        if let Some(properties) = kw.properties.filter(|p| !p.is_empty()) {
            let name = self.names.claim_numbered(hint);
            self.typed_dict(&name, kw, properties, depth);
            return name;
        }
        let value = match kw.additional {
            Some(schema @ Value::Object(_)) if kw.patterns.is_none() => {
                self.guarded(|t| t.ty(schema, &format!("{hint}Value"), depth + 1))
            }
            _ => ANY.to_owned(),
        };
        format!("dict[str, {value}]")
    }

    /// `list[T]`; a tuple's elements as one union (JSON arrays arrive as lists).
    fn array(&mut self, kw: &Keywords<'a>, hint: &str, depth: u32) -> String {
        let (prefix, rest) = match (kw.prefix_items, kw.items) {
            (Some(Value::Array(prefix)), rest) => (prefix.as_slice(), rest),
            (_, Some(Value::Array(prefix))) => (prefix.as_slice(), kw.additional_items),
            (_, items) => (&[][..], items),
        };
        let closed = matches!(rest, Some(Value::Bool(false)))
            || kw.max_items.is_some_and(|max| max <= prefix.len() as u64);
        let item_hint = format!("{hint}Item");
        let element = self.guarded(|t| {
            let mut types: Vec<String> = prefix
                .iter()
                .map(|item| t.ty(item, &item_hint, depth + 1))
                .collect();
            match rest {
                Some(Value::Bool(false)) if prefix.is_empty() => types.push(NEVER.to_owned()),
                _ if closed => {}
                Some(items @ Value::Object(_)) => types.push(t.ty(items, &item_hint, depth + 1)),
                _ => types.push(ANY.to_owned()),
            }
            union(types)
        });
        format!("list[{element}]")
    }

    /// Renders inside a container: a reference cycle through it is fine.
    fn guarded(&mut self, f: impl FnOnce(&mut Self) -> String) -> String {
        let open = std::mem::take(&mut self.open);
        let ty = f(self);
        self.open = open;
        ty
    }

    /// The declaration a local `$ref` names, made on first use; `Any` for a
    /// remote `$ref`, and for one that would close a cycle mypy rejects.
    fn reference(&mut self, r: &'a str, depth: u32) -> String {
        let root = self.root.schema;
        let Some(target) = resolve(root, r) else {
            return ANY.to_owned();
        };
        let key = (root as *const Value, r);
        if let Some(name) = self.by_ref.get(&key) {
            return if self.closes_cycle(target) {
                ANY.to_owned()
            } else {
                name.clone()
            };
        }
        if self.open.iter().any(|&open| std::ptr::eq(open, target)) {
            return ANY.to_owned();
        }
        let base = if r == "#" {
            root_name(self.root.owner, self.root.kind)
        } else {
            ref_name(r)
        };
        let graph = closure(root, r);
        if let Some((.., name)) = self
            .shared
            .iter()
            .find(|(b, g, _)| *b == base && *g == graph)
        {
            let name = name.clone();
            self.by_ref.insert(key, name.clone());
            return if self.closes_cycle(target) {
                ANY.to_owned()
            } else {
                name
            };
        }
        let name = self.names.claim_numbered(&base);
        self.by_ref.insert(key, name.clone());
        self.shared.push((base, graph, name.clone()));
        let kw = Keywords::of(target);
        match kw
            .as_ref()
            .and_then(|kw| plain_properties(kw).map(|p| (kw, p)))
        {
            Some((kw, properties)) => self.typed_dict(&name, kw, properties, depth + 1),
            None => self.alias(&name, target, kw.as_ref(), depth + 1),
        }
        name
    }

    /// Whether naming the declared alias of `target` here makes an alias
    /// being declared refer to itself outside any container. (A new alias
    /// needs no such check: its own body stops at the open aliases.)
    fn closes_cycle(&self, target: &Value) -> bool {
        let root = self.root.schema;
        self.open.iter().any(|&goal| {
            std::ptr::eq(target, goal) || reaches(root, target, goal, false, &mut Vec::new(), 0)
        })
    }

    /// `Name: TypeAlias = T`, with its description as a comment.
    fn alias(&mut self, name: &str, target: &'a Value, kw: Option<&Keywords<'a>>, depth: u32) {
        self.open.push(target);
        let body = self.ty(target, name, depth);
        self.open.pop();
        let mut decl = String::new();
        if let Some(kw) = kw {
            push_comment(&mut decl, &schema_note(kw), "");
        }
        decl.push_str(name);
        decl.push_str(": TypeAlias = ");
        decl.push_str(&body);
        decl.push_str("\n\n\n");
        self.decls.push_str(&decl);
    }

    /// `class Name(TypedDict)`, or the functional form when a key is no
    /// plain identifier; keys not `required` are `NotRequired`.
    fn typed_dict(
        &mut self,
        name: &str,
        kw: &Keywords<'a>,
        properties: &'a Map<String, Value>,
        depth: u32,
    ) {
        let class_form = properties.keys().all(|k| plain_key(k));
        let mut fields = String::new();
        for (key, schema) in properties {
            let mut field_hint = name.to_owned();
            pascal(key, &mut field_hint);
            if field_hint.len() == name.len() {
                field_hint.push_str("Field");
            }
            let ty = self.guarded(|t| t.ty(schema, &field_hint, depth + 1));
            let required = kw.required.iter().any(|r| r == key.as_str());
            if let Some(field_kw) = Keywords::of(schema) {
                push_comment(&mut fields, &schema_note(&field_kw), "    ");
            }
            fields.push_str("    ");
            if class_form {
                fields.push_str(key);
                fields.push_str(": ");
            } else {
                push_json_str(&mut fields, key);
                fields.push_str(": ");
            }
            if required {
                fields.push_str(&ty);
            } else {
                fields.push_str("NotRequired[");
                fields.push_str(&ty);
                fields.push(']');
            }
            fields.push_str(if class_form { "\n" } else { ",\n" });
        }
        let note = schema_note(kw);
        let mut decl = String::new();
        if class_form {
            decl.push_str("class ");
            decl.push_str(name);
            decl.push_str("(TypedDict):\n");
            push_docstring(&mut decl, &note, "    ");
            decl.push_str(&fields);
        } else {
            push_comment(&mut decl, &note, "");
            decl.push_str(name);
            decl.push_str(" = TypedDict(\"");
            decl.push_str(name);
            decl.push_str("\", {\n");
            decl.push_str(&fields);
            decl.push_str("})\n");
        }
        decl.push_str("\n\n");
        self.decls.push_str(&decl);
    }
}

/// The properties of a schema that is a plain object: one that a
/// `TypedDict` says whole (no `$ref`, composition or `nullable` beside it).
pub(super) fn plain_properties<'a>(kw: &Keywords<'a>) -> Option<&'a Map<String, Value>> {
    kw.properties
        .filter(|p| is_plain_object(kw) && !kw.nullable && !p.is_empty())
}

/// An object schema with nothing beside its own keywords: no `$ref`,
/// composition, `const` or `enum`.
pub(super) fn is_plain_object(kw: &Keywords<'_>) -> bool {
    let object = match kw.types {
        None => true,
        Some(Value::String(t)) => t == "object",
        Some(_) => false,
    };
    object
        && kw.reference.is_none()
        && kw.any_of.is_none()
        && kw.one_of.is_none()
        && kw.all_of.is_empty()
        && kw.constant.is_none()
        && kw.enumeration.is_none()
}

/// A key the class form can declare: an identifier that is no keyword and
/// cannot shadow a type the fields use (builtins, capitalised type names).
fn plain_key(key: &str) -> bool {
    is_identifier(key)
        && !is_keyword(key)
        && !key.starts_with(|c: char| c.is_ascii_uppercase())
        && !super::names::TAKEN.contains(&key)
}

/// `A | B`, flattened, without repeats; `Any` absorbs, `Never` vanishes.
fn union(types: impl IntoIterator<Item = String>) -> String {
    let mut members: Vec<String> = Vec::new();
    for ty in types {
        for member in split_union(&ty) {
            if member == ANY {
                return ANY.to_owned();
            }
            if member != NEVER && !members.iter().any(|m| m == member) {
                members.push(member.to_owned());
            }
        }
    }
    if members.is_empty() {
        return NEVER.to_owned();
    }
    members.join(" | ")
}

/// The members of a union expression, split at its top level.
pub(super) fn split_union(ty: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut depth = 0u32;
    let mut quoted = false;
    let mut escaped = false;
    let mut from = 0;
    let bytes = ty.as_bytes();
    for (i, &b) in bytes.iter().enumerate() {
        match b {
            _ if escaped => escaped = false,
            b'\\' if quoted => escaped = true,
            b'"' => quoted = !quoted,
            _ if quoted => {}
            b'[' => depth += 1,
            b']' => depth = depth.saturating_sub(1),
            b'|' if depth == 0 && i > 0 && bytes[i - 1] == b' ' => {
                out.push(&ty[from..i - 1]);
                from = i + 2;
            }
            _ => {}
        }
    }
    out.push(&ty[from.min(ty.len())..]);
    out
}

/// JSON values as types: strings, integers and booleans as one `Literal`,
/// `null` as `None`, anything else as its JSON type.
fn literals(values: &[Value]) -> String {
    let mut literal = String::new();
    let mut others = Vec::new();
    for value in values {
        let at = literal.len();
        if at > 0 {
            literal.push_str(", ");
        }
        match value {
            Value::String(s) => push_json_str(&mut literal, s),
            Value::Bool(b) => literal.push_str(if *b { "True" } else { "False" }),
            Value::Number(n) if n.is_i64() || n.is_u64() => literal.push_str(&n.to_string()),
            other => {
                literal.truncate(at);
                others.push(
                    match other {
                        Value::Null => "None",
                        Value::Number(_) => "float",
                        Value::Array(_) => "list[Any]",
                        _ => "dict[str, Any]",
                    }
                    .to_owned(),
                );
            }
        }
    }
    let mut types = Vec::new();
    if !literal.is_empty() {
        types.push(format!("Literal[{literal}]"));
    }
    types.extend(others);
    union(types)
}

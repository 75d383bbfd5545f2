//! What checking one value against a schema can cost, bounded before the
//! schema is accepted.
//!
//! A validator applies every subschema that `$ref`, `allOf`, `anyOf`,
//! `oneOf`, `not`, `if`/`then`/`else` and the dependent schemas reach at
//! the same place of the value, and the failing branches of an `anyOf` are
//! all tried. Chained, those multiply: ten `$defs` that each `anyOf` six
//! `$ref`s to the next make 6^10 evaluations of one value from a 1 KB
//! schema. So the schema is read as a graph before it is accepted, and the
//! most subschemas that can apply at any one place of any value (down to
//! [`MAX_VALUE_DEPTH`]) must stay within [`MAX_EVALUATIONS`]. Checking then
//! costs at most that many evaluations per node of the value: linear in its
//! size, whatever the schema.
//!
//! The count is an upper bound: each branch is taken as applying, the
//! largest property or position is taken for every member, and a schema
//! with `unevaluatedProperties` or `unevaluatedItems` counts what applies
//! beside it twice (the validator walks it again to learn what was
//! evaluated).

use std::collections::HashMap;

use serde_json::Value;

/// The most subschemas that may apply at one place of a value. Real tool
/// schemas stay far below it (the largest in the real MCP tool lists the tests register: 9); the
/// attack above is 60 million.
pub(crate) const MAX_EVALUATIONS: u64 = 1_000;

/// How deep a checked value can nest: what serde's parser allows, and what
/// arguments may (`MAX_ARGUMENT_DEPTH`). Recursive schemas are followed this
/// far.
pub(crate) const MAX_VALUE_DEPTH: usize = 128;

/// Why a schema's checking could cost too much.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum TooCostly {
    /// A `$ref` chain that comes back to where it started without going
    /// into the value: checking it would never end.
    Cycle { pointer: String },
    /// Up to `evaluations` subschemas (capped at one past the limit) can
    /// apply at one place `depth` levels into a value.
    Fanout { evaluations: u64, depth: usize },
}

impl std::fmt::Display for TooCostly {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Cycle { pointer } => write!(
                f,
                "the $ref at {} leads back to itself without going into the value",
                display_pointer(pointer)
            ),
            Self::Fanout { evaluations, depth } => write!(
                f,
                "checking a value could apply {}{evaluations} subschemas at one place ({}) through $ref, allOf, anyOf and oneOf; at most {MAX_EVALUATIONS} are allowed",
                if *evaluations > MAX_EVALUATIONS {
                    "more than "
                } else {
                    ""
                },
                match depth {
                    0 => "the value itself".to_owned(),
                    1 => "1 level in".to_owned(),
                    n => format!("{n} levels in"),
                },
                evaluations = evaluations.min(&MAX_EVALUATIONS),
            ),
        }
    }
}

fn display_pointer(pointer: &str) -> &str {
    if pointer.is_empty() {
        "the root"
    } else {
        pointer
    }
}

/// Checks that `schema` (already compiled by the validator, so its `$ref`s
/// resolve) cannot cost more than [`MAX_EVALUATIONS`] per place of a value.
pub(crate) fn check(schema: &Value) -> Result<(), TooCostly> {
    worst_case(schema).map(|_| ())
}

/// The most subschemas that can apply at one place of a value, and how
/// deep into the value that place is.
pub(crate) fn worst_case(schema: &Value) -> Result<(u64, usize), TooCostly> {
    let graph = Graph::build(schema);
    let order = graph.in_place_order()?;
    let root = 0;
    let mut count = graph.at_the_place(&order);
    let mut worst = (count[root], 0);
    for depth in 1..=MAX_VALUE_DEPTH {
        if worst.0 > MAX_EVALUATIONS {
            return Err(too_many(worst.0, worst.1));
        }
        let next = graph.one_level_in(&order, &count);
        if next == count {
            break;
        }
        count = next;
        if count[root] > worst.0 {
            worst = (count[root], depth);
        }
    }
    if worst.0 > MAX_EVALUATIONS {
        return Err(too_many(worst.0, worst.1));
    }
    Ok(worst)
}

fn too_many(evaluations: u64, depth: usize) -> TooCostly {
    TooCostly::Fanout { evaluations, depth }
}

/// Counts stop one past the limit: past it, only "too many" matters.
const CAP: u64 = MAX_EVALUATIONS + 1;

fn add(a: u64, b: u64) -> u64 {
    a.saturating_add(b).min(CAP)
}

/// One subschema and where its applicators lead.
#[derive(Debug, Default)]
struct Node {
    pointer: String,
    /// Subschemas applied at the same place of the value (a child listed
    /// twice counts twice).
    in_place: Vec<usize>,
    /// Applied to an object's members: one of `properties` per member...
    by_key: Vec<usize>,
    /// ...and all of these to every member.
    every_member: Vec<usize>,
    /// Applied to an array's elements: one of these per element...
    by_position: Vec<usize>,
    /// ...and all of these to every element.
    every_element: Vec<usize>,
}

/// The schema's subschemas, reached from the root through applicators and
/// `$ref`s; node 0 is the root.
struct Graph {
    nodes: Vec<Node>,
}

impl Graph {
    fn build(root: &Value) -> Self {
        let mut builder = Builder {
            root,
            resources: Resources::collect(root),
            index: HashMap::new(),
            nodes: Vec::new(),
            pending: Vec::new(),
        };
        builder.node("");
        while let Some((id, pointer)) = builder.pending.pop() {
            let node = builder.read(&pointer);
            builder.nodes[id] = Node { pointer, ..node };
        }
        Self {
            nodes: builder.nodes,
        }
    }

    /// The nodes with every in-place child before its parent, or the cycle.
    fn in_place_order(&self) -> Result<Vec<usize>, TooCostly> {
        #[derive(Clone, Copy, PartialEq)]
        enum Mark {
            New,
            Open,
            Done,
        }
        let mut marks = vec![Mark::New; self.nodes.len()];
        let mut order = Vec::with_capacity(self.nodes.len());
        for start in 0..self.nodes.len() {
            if marks[start] != Mark::New {
                continue;
            }
            // Iterative depth-first walk: a deep `$ref` chain cannot
            // overflow the stack.
            let mut stack = vec![(start, 0usize)];
            marks[start] = Mark::Open;
            while let Some((id, next)) = stack.last_mut() {
                let id = *id;
                if let Some(&child) = self.nodes[id].in_place.get(*next) {
                    *next += 1;
                    match marks[child] {
                        Mark::New => {
                            marks[child] = Mark::Open;
                            stack.push((child, 0));
                        }
                        Mark::Open => {
                            let pointer = self.nodes[id].pointer.clone();
                            return Err(TooCostly::Cycle { pointer });
                        }
                        Mark::Done => {}
                    }
                } else {
                    marks[id] = Mark::Done;
                    order.push(id);
                    stack.pop();
                }
            }
        }
        Ok(order)
    }

    /// How many subschemas apply at the place where each node is applied.
    fn at_the_place(&self, order: &[usize]) -> Vec<u64> {
        let mut count = vec![0; self.nodes.len()];
        for &id in order {
            count[id] = self.nodes[id]
                .in_place
                .iter()
                .fold(1, |sum, &child| add(sum, count[child]));
        }
        count
    }

    /// Given how many apply at a place for each node (`inner`, counted for
    /// values one level shallower), how many apply one level into the value.
    /// A place is an object's member or an array's element, never both, so
    /// the two are summed apart and the larger is taken.
    fn one_level_in(&self, order: &[usize], inner: &[u64]) -> Vec<u64> {
        let mut members = vec![0; self.nodes.len()];
        let mut elements = vec![0; self.nodes.len()];
        for &id in order {
            let node = &self.nodes[id];
            let (mut m, mut e) = (
                add(largest(&node.by_key, inner), sum(&node.every_member, inner)),
                add(
                    largest(&node.by_position, inner),
                    sum(&node.every_element, inner),
                ),
            );
            for &child in &node.in_place {
                m = add(m, members[child]);
                e = add(e, elements[child]);
            }
            members[id] = m;
            elements[id] = e;
        }
        members
            .into_iter()
            .zip(elements)
            .map(|(m, e)| m.max(e))
            .collect()
    }
}

fn largest(ids: &[usize], count: &[u64]) -> u64 {
    ids.iter().map(|&id| count[id]).max().unwrap_or(0)
}

fn sum(ids: &[usize], count: &[u64]) -> u64 {
    ids.iter().fold(0, |total, &id| add(total, count[id]))
}

struct Builder<'a> {
    root: &'a Value,
    resources: Resources,
    index: HashMap<String, usize>,
    nodes: Vec<Node>,
    pending: Vec<(usize, String)>,
}

impl<'a> Builder<'a> {
    /// The node for the subschema at `pointer`, made (and queued to be
    /// read) the first time it is reached.
    fn node(&mut self, pointer: &str) -> usize {
        if let Some(&id) = self.index.get(pointer) {
            return id;
        }
        let id = self.nodes.len();
        self.nodes.push(Node::default());
        self.index.insert(pointer.to_owned(), id);
        self.pending.push((id, pointer.to_owned()));
        id
    }

    fn read(&mut self, pointer: &str) -> Node {
        let mut node = Node::default();
        let root: &'a Value = self.root;
        let Some(Value::Object(schema)) = root.pointer(pointer) else {
            return node; // `true`, `false`, or what the validator skips
        };
        let at = |key: &str| format!("{pointer}/{}", escape(key));
        for (key, value) in schema {
            let here = at(key);
            match key.as_str() {
                "allOf" | "anyOf" | "oneOf" => {
                    node.in_place.extend(self.each(&here, value));
                }
                "not" | "if" | "then" | "else" => node.in_place.push(self.node(&here)),
                "dependentSchemas" | "dependencies" => {
                    node.in_place.extend(self.members(&here, value));
                }
                "$ref" | "$dynamicRef" | "$recursiveRef" => {
                    let targets = self.resolve(pointer, key, value);
                    node.in_place.extend(targets.iter().map(|t| self.node(t)));
                }
                "properties" => node.by_key.extend(self.members(&here, value)),
                "patternProperties" => node.every_member.extend(self.members(&here, value)),
                "additionalProperties" | "unevaluatedProperties" | "propertyNames" => {
                    node.every_member.push(self.node(&here));
                }
                "prefixItems" => node.by_position.extend(self.each(&here, value)),
                "items" if value.is_array() => node.by_position.extend(self.each(&here, value)),
                "items" | "additionalItems" | "contains" | "unevaluatedItems" => {
                    node.every_element.push(self.node(&here));
                }
                _ => {}
            }
        }
        if schema.contains_key("unevaluatedProperties") || schema.contains_key("unevaluatedItems") {
            node.in_place.extend_from_within(..);
        }
        node
    }

    /// The subschemas of an array keyword (`anyOf`, `prefixItems`, ...).
    fn each(&mut self, here: &str, value: &Value) -> Vec<usize> {
        let count = value.as_array().map_or(0, Vec::len);
        (0..count)
            .map(|i| self.node(&format!("{here}/{i}")))
            .collect()
    }

    /// The subschemas of an object keyword (`properties`, ...); draft-07's
    /// `dependencies` also holds arrays of names, which apply nothing.
    fn members(&mut self, here: &str, value: &Value) -> Vec<usize> {
        let Some(object) = value.as_object() else {
            return Vec::new();
        };
        object
            .iter()
            .filter(|(_, schema)| schema.is_object() || schema.is_boolean())
            .map(|(key, _)| self.node(&format!("{here}/{}", escape(key))))
            .collect()
    }

    /// Where a reference can lead, as pointers into the document. Every
    /// candidate counts (a dynamic reference may take any of its anchors);
    /// a reference that leaves the document leads nowhere here (it is
    /// fetched as a schema that accepts anything).
    fn resolve(&self, from: &str, keyword: &str, value: &Value) -> Vec<String> {
        let Some(reference) = value.as_str() else {
            return Vec::new();
        };
        let (base, fragment) = reference.split_once('#').unwrap_or((reference, ""));
        let resources = if base.is_empty() {
            vec![self.resources.enclosing(from)]
        } else {
            self.resources.named(base)
        };
        let mut targets = Vec::new();
        if fragment.is_empty() || fragment.starts_with('/') {
            let pointer = percent_decoded(fragment);
            targets.extend(resources.iter().map(|r| format!("{r}{pointer}")));
        } else {
            targets.extend(self.resources.anchored(fragment));
        }
        if keyword != "$ref" {
            // Dynamic scope can pick the anchor of any resource.
            targets.extend(self.resources.dynamic(fragment, keyword));
        }
        targets.retain(|t| self.root.pointer(t).is_some());
        targets.sort();
        targets.dedup();
        targets
    }
}

/// The document's resources (`$id`s) and anchors, by pointer.
struct Resources {
    /// `(pointer, $id)`; the document is `("", "")` whether it has an
    /// `$id` or not, and `("", $id)` as well when it has one.
    ids: Vec<(String, String)>,
    /// `(pointer, name, dynamic)` for `$anchor`, `$dynamicAnchor` and
    /// `$recursiveAnchor: true` (name "").
    anchors: Vec<(String, String, bool)>,
}

impl Resources {
    fn collect(root: &Value) -> Self {
        let mut found = Self {
            ids: vec![(String::new(), String::new())],
            anchors: Vec::new(),
        };
        let mut stack = vec![(String::new(), root)];
        while let Some((pointer, value)) = stack.pop() {
            match value {
                Value::Object(object) => {
                    found.note(&pointer, object);
                    for (key, child) in object {
                        stack.push((format!("{pointer}/{}", escape(key)), child));
                    }
                }
                Value::Array(items) => {
                    for (i, child) in items.iter().enumerate() {
                        stack.push((format!("{pointer}/{i}"), child));
                    }
                }
                _ => {}
            }
        }
        found
    }

    fn note(&mut self, pointer: &str, object: &serde_json::Map<String, Value>) {
        let text = |key| object.get(key).and_then(Value::as_str);
        // Draft-04 writes `id`; before 2019-09 an id's fragment names a
        // plain anchor (`"$id": "#item"`). Both count, whatever the draft.
        for id in ["$id", "id"].into_iter().filter_map(text) {
            let (resource, fragment) = id.split_once('#').unwrap_or((id, ""));
            if !resource.is_empty() {
                self.ids.push((pointer.to_owned(), resource.to_owned()));
            }
            if !fragment.is_empty() {
                self.anchors
                    .push((pointer.to_owned(), fragment.to_owned(), false));
            }
        }
        if let Some(name) = text("$anchor") {
            self.anchors
                .push((pointer.to_owned(), name.to_owned(), false));
        }
        if let Some(name) = text("$dynamicAnchor") {
            self.anchors
                .push((pointer.to_owned(), name.to_owned(), true));
        }
        if object.get("$recursiveAnchor") == Some(&Value::Bool(true)) {
            self.anchors.push((pointer.to_owned(), String::new(), true));
        }
    }

    /// The resource a pointer lies in: the deepest `$id` above it.
    fn enclosing(&self, pointer: &str) -> String {
        self.ids
            .iter()
            .map(|(at, _)| at)
            .filter(|at| is_within(pointer, at))
            .max_by_key(|at| at.len())
            .cloned()
            .unwrap_or_default()
    }

    /// Resources whose `$id` could be `base`: the same text, or the same
    /// last path segment (relative ids resolve against a base URI).
    fn named(&self, base: &str) -> Vec<String> {
        let last = |uri: &str| uri.rsplit('/').next().unwrap_or(uri).to_owned();
        self.ids
            .iter()
            .filter(|(_, id)| !id.is_empty() && (id == base || last(id) == last(base)))
            .map(|(at, _)| at.clone())
            .collect()
    }

    /// Anchors of the name, in any resource: where a base URI places one is
    /// the validator's to decide, and every candidate counts.
    fn anchored(&self, name: &str) -> Vec<String> {
        self.anchors
            .iter()
            .filter(|(_, anchor, _)| !name.is_empty() && anchor == name)
            .map(|(at, _, _)| at.clone())
            .collect()
    }

    /// For `$dynamicRef`/`$recursiveRef`: every dynamic anchor of the name
    /// (`$recursiveAnchor: true` is the anchor named "").
    fn dynamic(&self, fragment: &str, keyword: &str) -> Vec<String> {
        let name = if keyword == "$recursiveRef" {
            ""
        } else {
            fragment
        };
        self.anchors
            .iter()
            .filter(|(_, anchor, dynamic)| *dynamic && anchor == name)
            .map(|(at, _, _)| at.clone())
            .collect()
    }
}

/// Whether `pointer` is `ancestor` or lies under it.
fn is_within(pointer: &str, ancestor: &str) -> bool {
    pointer
        .strip_prefix(ancestor)
        .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
}

/// A key as a JSON pointer segment.
fn escape(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}

/// A URI fragment's `%XX` escapes decoded (a `$ref` writes `%25` for `%`).
fn percent_decoded(fragment: &str) -> String {
    let bytes = fragment.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = bytes
            .get(i + 1..i + 3)
            .and_then(|h| std::str::from_utf8(h).ok());
        match (bytes[i], hex.and_then(|h| u8::from_str_radix(h, 16).ok())) {
            (b'%', Some(byte)) => {
                out.push(byte);
                i += 3;
            }
            (byte, _) => {
                out.push(byte);
                i += 1;
            }
        }
    }
    String::from_utf8(out).unwrap_or_else(|_| fragment.to_owned())
}

#[cfg(test)]
mod tests;

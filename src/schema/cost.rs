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
//! The count is an upper bound: each branch is taken as applying, a
//! reference leads to every place it could (`places`) and the largest of
//! them counts, the largest property or position is taken for every member,
//! and a schema with `unevaluatedProperties` or `unevaluatedItems` counts
//! what applies beside it twice (the validator walks it again to learn
//! what was evaluated).

use std::collections::HashMap;

use serde_json::Value;

use places::{META_SCHEMA_WEIGHT, Places, Target};

mod places;

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
/// resolve) cannot cost more than [`MAX_EVALUATIONS`] per place of a value,
/// and returns what explaining why one place fails can cost.
pub(crate) fn check(schema: &Value) -> Result<u64, TooCostly> {
    let (graph, order) = read(schema)?;
    let (evaluations, _) = graph.worst_case(&order)?;
    Ok(evaluations.saturating_mul(graph.nesting(&order)))
}

/// The most subschemas that can apply at one place of a value, and how
/// deep into the value that place is.
#[cfg(test)]
pub(crate) fn worst_case(schema: &Value) -> Result<(u64, usize), TooCostly> {
    let (graph, order) = read(schema)?;
    graph.worst_case(&order)
}

/// The schema's graph and its nodes in order, unless it has a cycle.
fn read(schema: &Value) -> Result<(Graph, Vec<usize>), TooCostly> {
    let places = Places::new(schema);
    let graph = Graph::build(&places);
    let order = graph.in_place_order().map_err(|place| TooCostly::Cycle {
        pointer: places.pointer(place),
    })?;
    Ok((graph, order))
}

impl Graph {
    fn worst_case(&self, order: &[usize]) -> Result<(u64, usize), TooCostly> {
        let root = 0;
        let mut count = self.at_the_place(order);
        let mut worst = (count[root], 0);
        for depth in 1..=MAX_VALUE_DEPTH {
            if worst.0 > MAX_EVALUATIONS {
                return Err(too_many(worst.0, worst.1));
            }
            let next = self.one_level_in(order, &count);
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

    /// The longest chain of subschemas applied in place, one inside the
    /// next: explaining a failure checks each link's branches again.
    fn nesting(&self, order: &[usize]) -> u64 {
        let mut nesting = vec![0; self.nodes.len()];
        for &id in order {
            let node = &self.nodes[id];
            let inner = node.in_place.iter().map(|&child| nesting[child]).max();
            nesting[id] = add(u64::from(node.weight > 0), inner.unwrap_or(0));
        }
        nesting.into_iter().max().unwrap_or(0)
    }
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
    /// The place of the schema (0 where a reference leads and for a
    /// meta-schema: they have none in the document).
    place: usize,
    /// How many subschemas applying here count for: 1 for a subschema, 0
    /// for where a reference leads (what it reaches counts), more for a
    /// meta-schema.
    weight: u64,
    /// Where a reference leads: one of `in_place` applies, whichever it
    /// is, so the largest counts (each is a bound at every depth).
    choice: bool,
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

impl Node {
    /// What its in-place children add up to: their sum, or for a choice
    /// the largest.
    fn join(&self, counts: impl Iterator<Item = u64>) -> u64 {
        if self.choice {
            counts.max().unwrap_or(0)
        } else {
            counts.fold(0, add)
        }
    }
}

/// The schema's subschemas, reached from the root through applicators and
/// references; node 0 is the root.
struct Graph {
    nodes: Vec<Node>,
}

impl Graph {
    fn build(places: &Places<'_>) -> Self {
        let mut builder = Builder {
            places,
            of_place: HashMap::new(),
            of_target: HashMap::new(),
            nodes: Vec::new(),
            pending: Vec::new(),
        };
        builder.schema(0);
        while let Some(id) = builder.pending.pop() {
            let place = builder.nodes[id].place;
            builder.nodes[id] = builder.read(place);
        }
        Self {
            nodes: builder.nodes,
        }
    }

    /// The nodes with every in-place child before its parent, or the place
    /// of a reference on a cycle.
    fn in_place_order(&self) -> Result<Vec<usize>, usize> {
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
                        Mark::Open => return Err(self.referrer(&stack)),
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

    /// The place of the schema whose reference the walk `stack` took last:
    /// every cycle goes through a reference, and where it leads has no
    /// place of its own.
    fn referrer(&self, stack: &[(usize, usize)]) -> usize {
        let took_reference = |&&(id, next): &&(usize, usize)| {
            let node = &self.nodes[id];
            !node.choice && self.nodes[node.in_place[next - 1]].choice
        };
        let (id, _) = stack.iter().rev().find(took_reference).unwrap_or(&stack[0]);
        self.nodes[*id].place
    }

    /// How many subschemas apply at the place where each node is applied.
    fn at_the_place(&self, order: &[usize]) -> Vec<u64> {
        let mut count = vec![0; self.nodes.len()];
        for &id in order {
            let node = &self.nodes[id];
            let here = node.in_place.iter().map(|&child| count[child]);
            count[id] = add(node.weight, node.join(here));
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
            let (m, e) = (
                add(largest(&node.by_key, inner), sum(&node.every_member, inner)),
                add(
                    largest(&node.by_position, inner),
                    sum(&node.every_element, inner),
                ),
            );
            members[id] = add(m, node.join(node.in_place.iter().map(|&c| members[c])));
            elements[id] = add(e, node.join(node.in_place.iter().map(|&c| elements[c])));
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

struct Builder<'p, 'a> {
    places: &'p Places<'a>,
    of_place: HashMap<usize, usize>,
    of_target: HashMap<Target, usize>,
    nodes: Vec<Node>,
    /// Schema nodes made but not read yet.
    pending: Vec<usize>,
}

impl Builder<'_, '_> {
    /// The node for the subschema at `place`, made (and queued to be read)
    /// the first time it is reached.
    fn schema(&mut self, place: usize) -> usize {
        if let Some(&id) = self.of_place.get(&place) {
            return id;
        }
        // Read later (`Graph::build`): only its place for now.
        let id = self.push(Node {
            place,
            ..Node::default()
        });
        self.of_place.insert(place, id);
        self.pending.push(id);
        id
    }

    /// The node for where a reference can lead: one choice among its
    /// targets, shared by every reference to them.
    fn reference(&mut self, targets: Vec<Target>) -> usize {
        if let [target] = &targets[..] {
            return self.target(target);
        }
        let choices = targets.iter().map(|target| self.target(target)).collect();
        self.choice(choices)
    }

    /// The node for one target: a choice among the schemas it reaches.
    fn target(&mut self, target: &Target) -> usize {
        if let Some(&id) = self.of_target.get(target) {
            return id;
        }
        let id = match target {
            Target::MetaSchema => self.meta_schema(),
            _ => {
                let reached = self.places.reached(target);
                let mut choices: Vec<usize> =
                    reached.into_iter().map(|at| self.schema(at)).collect();
                if matches!(target, Target::Resource(name) if !name.is_empty()) {
                    choices.push(self.target(&Target::Directories));
                }
                self.choice(choices)
            }
        };
        self.of_target.insert(target.clone(), id);
        id
    }

    fn choice(&mut self, mut choices: Vec<usize>) -> usize {
        choices.sort_unstable();
        choices.dedup();
        self.push(Node {
            choice: true,
            in_place: choices,
            ..Node::default()
        })
    }

    /// A bundled meta-schema: its own subschemas at the place, the parts
    /// of the document that replace its own, and itself or the document's
    /// dynamic anchors on every member and element.
    fn meta_schema(&mut self) -> usize {
        let id = self.push(Node {
            weight: META_SCHEMA_WEIGHT,
            ..Node::default()
        });
        let replaced = self.places.reached(&Target::MetaSchema);
        let in_place = replaced.into_iter().map(|at| self.schema(at)).collect();
        let mut again = vec![id];
        again.extend(
            self.places
                .dynamic_anchors()
                .iter()
                .map(|&at| self.schema(at)),
        );
        let node = &mut self.nodes[id];
        node.in_place = in_place;
        node.every_member.clone_from(&again);
        node.every_element = again;
        id
    }

    fn push(&mut self, node: Node) -> usize {
        self.nodes.push(node);
        self.nodes.len() - 1
    }

    fn read(&mut self, place: usize) -> Node {
        let mut node = Node {
            place,
            weight: 1,
            ..Node::default()
        };
        let Value::Object(schema) = self.places.value(place) else {
            return node; // `true` or `false`
        };
        for (key, value) in schema {
            match key.as_str() {
                "allOf" | "anyOf" | "oneOf" => node.in_place.extend(self.each(value)),
                "not" | "if" | "then" | "else" => node.in_place.extend(self.one(value)),
                "dependentSchemas" | "dependencies" => {
                    node.in_place.extend(self.members(value));
                }
                "$ref" | "$dynamicRef" | "$recursiveRef" => {
                    let targets = Target::of(key, value);
                    if !targets.is_empty() {
                        node.in_place.push(self.reference(targets));
                    }
                }
                "properties" => node.by_key.extend(self.members(value)),
                "patternProperties" => node.every_member.extend(self.members(value)),
                "additionalProperties" | "unevaluatedProperties" | "propertyNames" => {
                    node.every_member.extend(self.one(value));
                }
                "prefixItems" => node.by_position.extend(self.each(value)),
                "items" if value.is_array() => node.by_position.extend(self.each(value)),
                "items" | "additionalItems" | "contains" | "unevaluatedItems" => {
                    node.every_element.extend(self.one(value));
                }
                _ => {}
            }
        }
        if schema.contains_key("unevaluatedProperties") || schema.contains_key("unevaluatedItems") {
            node.in_place.extend_from_within(..);
        }
        node
    }

    /// The subschema `value`, if it is one (an object or a boolean).
    fn one(&mut self, value: &Value) -> Option<usize> {
        let place = self.places.of_value(value)?;
        (!value.is_array()).then(|| self.schema(place))
    }

    /// The subschemas of an array keyword (`anyOf`, `prefixItems`, ...).
    fn each(&mut self, value: &Value) -> Vec<usize> {
        let items = value.as_array().map_or(&[][..], Vec::as_slice);
        items.iter().filter_map(|item| self.one(item)).collect()
    }

    /// The subschemas of an object keyword (`properties`, ...); draft-07's
    /// `dependencies` also holds arrays of names, which apply nothing.
    fn members(&mut self, value: &Value) -> Vec<usize> {
        let Some(object) = value.as_object() else {
            return Vec::new();
        };
        object
            .values()
            .filter_map(|member| self.one(member))
            .collect()
    }
}

#[cfg(test)]
mod tests;

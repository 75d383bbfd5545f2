//! Values between JSON (the tools' side) and Monty's objects (the
//! program's side), and how a Python result reads to the model.
//!
//! A value comes out of the worker as a graph (`MontyGraph`): a list that
//! holds one list 1,000 times is two nodes, and 33 such levels are 2³²
//! leaves from a few KB. Before anything is built from a graph it passes
//! the gate ([`crate::gate`]): [`Measured`] sizes every node as the copies
//! it would become, in one pass in the graph's own order (children before
//! their holders), and only a value within its bound is built.

use monty_types::MontyObject;
use monty_types::unstable::{self, MontyGraph, MontyNode, NodeId};
use serde_json::{Map, Number, Value as Json};

use crate::gate::Size;
use crate::limits::MAX_DEPTH;

/// A JSON value as the program sees it: dicts, lists, str, int, float,
/// bool, None. Integers past 64 bits arrive exact, as Python ints.
pub(super) fn to_monty(value: &Json) -> MontyObject {
    match value {
        Json::Null => MontyObject::none(),
        Json::Bool(b) => MontyObject::bool(*b),
        Json::Number(n) => match (n.as_i64(), n.as_u64(), n.as_f64()) {
            (Some(i), _, _) => MontyObject::int(i),
            (None, Some(u), _) => MontyObject::bigint(u.into()),
            (None, None, Some(f)) => MontyObject::float(f),
            (None, None, None) => MontyObject::none(),
        },
        Json::String(s) => MontyObject::string(s.as_str()),
        Json::Array(items) => MontyObject::list(items.iter().map(to_monty)),
        Json::Object(members) => MontyObject::dict(
            members
                .iter()
                .map(|(k, v)| (MontyObject::string(k.as_str()), to_monty(v))),
        ),
    }
}

/// What JSON cannot hold, in words: the Python type that holds it, or why.
#[derive(Debug, PartialEq, Eq)]
pub(super) struct NotPlain(pub(super) String);

/// A graph from the worker with the size of every node as written out:
/// what the gate decides on before anything is built.
pub(super) struct Measured<'a> {
    graph: &'a MontyGraph,
    sizes: Vec<Size>,
}

impl<'a> Measured<'a> {
    /// Sizes every node of `graph`; a node shared n times counts n times in
    /// each value holding it. Linear in the nodes: children come first.
    pub(super) fn of(graph: &'a MontyGraph) -> Self {
        let mut sizes: Vec<Size> = Vec::with_capacity(graph.len());
        for node in graph.nodes() {
            let size = node_size(node, &sizes);
            sizes.push(size);
        }
        Self { graph, sizes }
    }

    /// The size of the value at `id` as written out.
    pub(super) fn size(&self, id: NodeId) -> Size {
        self.sizes.get(id.index()).copied().unwrap_or_default()
    }

    /// The node at `id`.
    pub(super) fn node(&self, id: NodeId) -> &'a MontyNode {
        self.graph.node(id)
    }

    /// The value at `id` as JSON: dicts with str keys, lists and tuples,
    /// str, int (exactly: at most 64 bits), float, bool, None; nested at
    /// most [`MAX_DEPTH`] levels. Anything else says what it is. Call only
    /// once the gate has measured it.
    pub(super) fn to_json(&self, id: NodeId) -> Result<Json, NotPlain> {
        self.json_at(id, 1)
    }

    fn json_at(&self, id: NodeId, depth: u32) -> Result<Json, NotPlain> {
        let node = self.node(id);
        if node_children(node) && depth > MAX_DEPTH {
            return Err(NotPlain(format!(
                "a value nested deeper than {MAX_DEPTH} levels of lists and dicts"
            )));
        }
        Ok(match node {
            MontyNode::None => Json::Null,
            MontyNode::Bool(b) => Json::Bool(*b),
            MontyNode::Int(i) => Json::from(*i),
            MontyNode::BigInt(big) => match u64::try_from(big) {
                Ok(u) => Json::from(u),
                Err(_) => return Err(NotPlain(inexact_integer(&big.to_string()))),
            },
            MontyNode::Float(f) => Number::from_f64(*f)
                .map(Json::Number)
                .ok_or_else(|| NotPlain(format!("the float {}", float_repr(*f))))?,
            MontyNode::String(s) => Json::String(s.clone()),
            MontyNode::List(items) | MontyNode::Tuple(items) => Json::Array(
                items
                    .iter()
                    .map(|item| self.json_at(*item, depth + 1))
                    .collect::<Result<_, _>>()?,
            ),
            MontyNode::Dict(pairs) => {
                let mut members = Map::with_capacity(pairs.len());
                for (key, value) in pairs {
                    let MontyNode::String(key) = self.node(*key) else {
                        return Err(NotPlain(format!(
                            "a dict key of type {}",
                            self.graph.type_name(*key)
                        )));
                    };
                    members.insert(key.clone(), self.json_at(*value, depth + 1)?);
                }
                Json::Object(members)
            }
            _ => {
                return Err(NotPlain(format!(
                    "a value of type {}",
                    self.graph.type_name(id)
                )));
            }
        })
    }

    /// How the value at `id` reads to the model (contracts, Python
    /// programs): none for `None`, a str as itself, plain data as JSON,
    /// anything else as Python's `repr`. Written straight from the graph,
    /// nothing built in between. Call only once the gate has measured it.
    pub(super) fn render(&self, id: NodeId) -> Option<String> {
        match self.node(id) {
            MontyNode::None => None,
            MontyNode::String(s) => Some(s.clone()),
            _ => {
                let mut text = String::new();
                Some(match self.write_json(id, 1, &mut text) {
                    Ok(()) => text,
                    Err(()) => self.graph.value(id).py_repr(),
                })
            }
        }
    }

    /// Writes the value at `id` as JSON text; `Err` when it is not plain
    /// data (then `out` holds a part).
    fn write_json(&self, id: NodeId, depth: u32, out: &mut String) -> Result<(), ()> {
        let node = self.node(id);
        if node_children(node) && depth > MAX_DEPTH {
            return Err(());
        }
        match node {
            MontyNode::None => out.push_str("null"),
            MontyNode::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            MontyNode::Int(i) => out.push_str(itoa::Buffer::new().format(*i)),
            // Exact digits: the text is for the model, not a tool.
            MontyNode::BigInt(big) => out.push_str(&big.to_string()),
            MontyNode::Float(f) => out.push_str(&Number::from_f64(*f).ok_or(())?.to_string()),
            MontyNode::String(s) => write_string(s, out),
            MontyNode::List(items) | MontyNode::Tuple(items) => {
                out.push('[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    self.write_json(*item, depth + 1, out)?;
                }
                out.push(']');
            }
            MontyNode::Dict(pairs) => {
                out.push('{');
                for (i, (key, value)) in pairs.iter().enumerate() {
                    let MontyNode::String(key) = self.node(*key) else {
                        return Err(());
                    };
                    if i > 0 {
                        out.push(',');
                    }
                    write_string(key, out);
                    out.push(':');
                    self.write_json(*value, depth + 1, out)?;
                }
                out.push('}');
            }
            _ => return Err(()),
        }
        Ok(())
    }
}

/// The size of `node` written out, from the sizes of the nodes before it
/// (its children). Leaves that are not JSON count as their repr would,
/// about: what the gate bounds is the work and memory of writing them out.
fn node_size(node: &MontyNode, sizes: &[Size]) -> Size {
    let of = |id: &NodeId| sizes.get(id.index()).copied().unwrap_or_default();
    match node {
        MontyNode::None => Size::leaf(4),
        MontyNode::Bool(_) => Size::leaf(5),
        MontyNode::Int(i) => Size::leaf(itoa::Buffer::new().format(*i).len()),
        // Decimal digits: about 0.302 a bit, and a sign.
        MontyNode::BigInt(big) => Size::leaf((big.bits() as usize).saturating_mul(31) / 100 + 2),
        MontyNode::Float(_) => Size::leaf(24),
        MontyNode::String(s) => Size::leaf(s.len() + 2),
        MontyNode::List(items)
        | MontyNode::Tuple(items)
        | MontyNode::Set(items)
        | MontyNode::FrozenSet(items)
        | MontyNode::NamedTuple { values: items, .. } => {
            let mut size = Size::leaf(2);
            for item in items {
                size.add(of(item));
                size.add_text(1);
            }
            size
        }
        MontyNode::Dict(pairs)
        | MontyNode::ClassInstance { attrs: pairs, .. }
        | MontyNode::Module { attrs: pairs, .. } => {
            let mut size = Size::leaf(2);
            for (key, value) in pairs {
                // A key is text of its holder, not a value of its own.
                size.add_text(usize::try_from(of(key).text).unwrap_or(usize::MAX));
                size.add(of(value));
                size.add_text(2);
            }
            size
        }
        other => Size::leaf(other.decoded_size()),
    }
}

/// Whether a node holds other nodes (and so nests).
fn node_children(node: &MontyNode) -> bool {
    !node.is_leaf()
}

/// A str as JSON text.
fn write_string(s: &str, out: &mut String) {
    // Writing JSON into a Vec cannot fail; the bytes are UTF-8.
    let mut bytes = std::mem::take(out).into_bytes();
    let _ = serde_json::to_writer(&mut bytes, s);
    *out = String::from_utf8(bytes).unwrap_or_default();
}

/// A float as Python writes it, for a message (`nan`, `inf`).
fn float_repr(f: f64) -> String {
    unstable::object_from_node(MontyNode::Float(f)).py_repr()
}

/// Why an integer past 64 bits is not sent, with what to do instead
/// (contracts §6.1): JSON numbers are read as 64-bit integers or doubles
/// by the tools' side, so it would arrive changed.
fn inexact_integer(digits: &str) -> String {
    let shown = if digits.len() > 24 {
        format!("{}… ({} digits)", &digits[..20], digits.len())
    } else {
        digits.to_owned()
    };
    format!(
        "the integer {shown}, past what a tool receives exactly (64 bits): pass str(n), or float(n) if an approximation will do"
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use monty_types::unstable::graph_parts;
    use serde_json::json;

    fn measured(value: &MontyObject) -> (Measured<'_>, NodeId) {
        let (graph, root) = graph_parts(value);
        (Measured::of(graph), root)
    }

    /// `[[[…[leaf]…]]]`, each level holding the one below `width` times.
    fn shared(levels: usize, width: usize, leaf: MontyNode) -> MontyObject {
        let mut graph = MontyGraph::new();
        let mut id = graph.push(leaf);
        for _ in 0..levels {
            id = graph.push(MontyNode::List(vec![id; width]));
        }
        unstable::object_from_graph(graph, id).unwrap()
    }

    #[test]
    fn plain_values_cross_as_json_and_back() {
        let value = json!({"a": [1, -2, 2.5, "x\n", null, true], "b": {}, "big": u64::MAX});
        let object = to_monty(&value);
        let (m, root) = measured(&object);
        assert_eq!(m.to_json(root), Ok(value.clone()));
        assert_eq!(m.render(root), Some(value.to_string()));
    }

    #[test]
    fn shared_values_are_measured_as_the_copies_they_become() {
        // 2^40 leaves from 41 nodes: measured at once, never walked.
        let value = shared(40, 2, MontyNode::Bytes(b"x".to_vec()));
        let (m, root) = measured(&value);
        let size = m.size(root);
        assert_eq!(size.values, (1 << 41) - 1);
        assert!(size.text > 1 << 40);
        let small = shared(2, 3, MontyNode::Int(7));
        let (m, root) = measured(&small);
        // [[7,7,7],[7,7,7],[7,7,7]]: 13 values; 25 bytes, counted with a
        // comma after every element (29).
        assert_eq!(
            m.size(root),
            Size {
                values: 13,
                text: 29
            }
        );
        assert_eq!(m.render(root).unwrap(), "[[7,7,7],[7,7,7],[7,7,7]]");
    }

    #[test]
    fn dict_keys_are_text_of_their_dict() {
        let value = to_monty(&json!({"key": "v"}));
        let (m, root) = measured(&value);
        // {"key":"v"}: two values (the dict, the str), 5 + 3 bytes of strings.
        assert_eq!(m.size(root).values, 2);
        assert!(m.size(root).text >= 11);
    }

    #[test]
    fn integers_cross_exactly_or_not_at_all() {
        let exact = MontyObject::bigint(u64::MAX.into());
        let (m, root) = measured(&exact);
        assert_eq!(m.to_json(root), Ok(json!(u64::MAX)));
        let past: num_bigint::BigInt = num_bigint::BigInt::from(u64::MAX) + 2;
        let past = MontyObject::bigint(past);
        let (m, root) = measured(&past);
        let NotPlain(why) = m.to_json(root).unwrap_err();
        assert!(
            why.starts_with("the integer 18446744073709551617, past what a tool receives exactly"),
            "{why}"
        );
        let huge = MontyObject::bigint(num_bigint::BigInt::from(10).pow(400));
        let (m, root) = measured(&huge);
        let NotPlain(why) = m.to_json(root).unwrap_err();
        assert!(why.contains("10000000000000000000… (401 digits)"), "{why}");
        // As the program's value it reads exactly.
        assert_eq!(m.render(root).unwrap().len(), 401);
        // And back: an integer past i64 from a tool is a Python int.
        assert_eq!(to_monty(&json!(u64::MAX)), exact);
    }

    #[test]
    fn what_json_cannot_hold_is_named() {
        for (value, said) in [
            (MontyObject::float(f64::NAN), "the float nan"),
            (MontyObject::bytes(b"x".to_vec()), "a value of type bytes"),
            (
                MontyObject::dict([(MontyObject::int(1), MontyObject::none())]),
                "a dict key of type int",
            ),
            (
                MontyObject::set([MontyObject::int(1)]),
                "a value of type set",
            ),
        ] {
            let (m, root) = measured(&value);
            assert_eq!(m.to_json(root), Err(NotPlain(said.into())));
        }
    }

    #[test]
    fn nesting_is_bounded_at_the_depth_hosts_parse() {
        let within = shared(MAX_DEPTH as usize, 1, MontyNode::None);
        let (m, root) = measured(&within);
        assert!(m.to_json(root).is_ok());
        let past = shared(MAX_DEPTH as usize + 1, 1, MontyNode::None);
        let (m, root) = measured(&past);
        assert!(m.to_json(root).unwrap_err().0.contains("deeper than 128"));
        // As the program's value it still reads, as its repr.
        assert!(m.render(root).unwrap().starts_with("[[[["));
        assert!(
            m.render(root).unwrap().contains("None"),
            "past the depth: repr"
        );
        let (m, root) = measured(&within);
        assert!(m.render(root).unwrap().contains("null"), "within: JSON");
    }

    /// `{"a": {"a": …{"a": None}…}}`, `levels` dicts deep.
    fn nested_dicts(levels: usize) -> MontyObject {
        let mut graph = MontyGraph::new();
        let mut id = graph.push(MontyNode::None);
        for _ in 0..levels {
            let key = graph.push(MontyNode::String("a".into()));
            id = graph.push(MontyNode::Dict(vec![(key, id)]));
        }
        unstable::object_from_graph(graph, id).unwrap()
    }

    #[test]
    fn nesting_in_dicts_is_bounded_as_in_lists() {
        let within = nested_dicts(MAX_DEPTH as usize);
        let (m, root) = measured(&within);
        assert!(m.to_json(root).is_ok());
        assert!(m.render(root).unwrap().contains("null"), "within: JSON");
        let past = nested_dicts(MAX_DEPTH as usize + 1);
        let (m, root) = measured(&past);
        assert!(m.to_json(root).unwrap_err().0.contains("deeper than 128"));
        assert!(
            m.render(root).unwrap().contains("None"),
            "past the depth: repr"
        );
    }

    /// The gate's sizes of leaves: a str is its bytes and two quotes, a big
    /// integer its decimal digits as estimated from its bits (0.31 a bit,
    /// and two for a sign and rounding), never fewer than it has.
    #[test]
    fn leaves_are_sized_as_they_are_written() {
        let text = MontyObject::string("abcd");
        let (m, root) = measured(&text);
        assert_eq!(m.size(root), Size { values: 1, text: 6 });
        let big = MontyObject::bigint(num_bigint::BigInt::from(10).pow(400));
        let (m, root) = measured(&big);
        // 1,329 bits: 1329 × 31 / 100 + 2 = 413, for 401 digits.
        assert_eq!(
            m.size(root),
            Size {
                values: 1,
                text: 413
            }
        );
    }

    /// An integer that cannot cross is shown whole up to 24 digits, and cut
    /// past them.
    #[test]
    fn integers_of_24_digits_are_shown_whole() {
        let whole = inexact_integer(&"9".repeat(24));
        assert!(
            whole.contains(&"9".repeat(24)) && !whole.contains('…'),
            "{whole}"
        );
        let cut = inexact_integer(&"9".repeat(25));
        assert!(cut.contains("99999999999999999999… (25 digits)"), "{cut}");
    }

    #[test]
    fn values_that_are_not_data_render_as_their_repr() {
        let value = MontyObject::list([MontyObject::bytes(b"x".to_vec()), MontyObject::int(1)]);
        let (m, root) = measured(&value);
        assert_eq!(m.render(root).unwrap(), "[b'x', 1]");
        let none = MontyObject::none();
        let (m, root) = measured(&none);
        assert_eq!(m.render(root), None);
        let text = MontyObject::string("a\nb");
        let (m, root) = measured(&text);
        assert_eq!(m.render(root).unwrap(), "a\nb");
    }
}

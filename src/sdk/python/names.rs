//! Python names for what JSON and MCP may name freely: tools, namespaces
//! (`<server>.<tool>`) and arguments, mangled deterministically so every one
//! is an identifier that shadows nothing the stubs use (contracts §5).

use std::collections::{HashMap, HashSet};

use crate::tool::definition::ToolDefinition;

/// Python's hard keywords: never identifiers.
const KEYWORDS: &[&str] = &[
    "False", "None", "True", "and", "as", "assert", "async", "await", "break", "class", "continue",
    "def", "del", "elif", "else", "except", "finally", "for", "from", "global", "if", "import",
    "in", "is", "lambda", "nonlocal", "not", "or", "pass", "raise", "return", "try", "while",
    "with", "yield",
];

/// Names the stubs write in annotations or declare in the frame: a method,
/// namespace or type of the same name would shadow them inside a class body.
pub(super) const TAKEN: &[&str] = &[
    "Any",
    "Awaitable",
    "Callable",
    "Exception",
    "Literal",
    "Never",
    "NotRequired",
    "StateError",
    "ToolCallError",
    "ToolMatch",
    "TypeAlias",
    "TypedDict",
    "bool",
    "dict",
    "float",
    "int",
    "list",
    "object",
    "str",
];

pub(super) fn is_keyword(name: &str) -> bool {
    KEYWORDS.contains(&name)
}

/// An ASCII Python identifier.
pub(super) fn is_identifier(name: &str) -> bool {
    let b = name.as_bytes();
    !b.is_empty()
        && !b[0].is_ascii_digit()
        && b.iter().all(|&c| c.is_ascii_alphanumeric() || c == b'_')
}

/// `name` as an identifier: other characters become `_`, a leading digit
/// gains a `_`, and a keyword, a name of [`TAKEN`] or a dunder-shaped name
/// (`__x__`) gains a trailing `_`.
pub(super) fn identifier(name: &str) -> String {
    let mut id: String = name
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    if id.is_empty() || id.starts_with(|c: char| c.is_ascii_digit()) {
        id.insert(0, '_');
    }
    let dunder = id.len() > 4 && id.starts_with("__") && id.ends_with("__");
    if is_keyword(&id) || TAKEN.contains(&id.as_str()) || dunder {
        id.push('_');
    }
    id
}

/// Names already given in one scope; a clash gains trailing `_`s (or,
/// for types, a number).
#[derive(Default)]
pub(super) struct Names {
    taken: HashSet<String>,
    /// The next number to try for each base, so many clashes stay linear.
    next: HashMap<String, u32>,
}

impl Names {
    pub(super) fn with(taken: &[&str]) -> Self {
        Self {
            taken: taken.iter().map(|&s| s.to_owned()).collect(),
            next: HashMap::new(),
        }
    }

    /// `base`, or `base` with the fewest trailing `_`s that is free, taken.
    pub(super) fn claim(&mut self, mut base: String) -> String {
        while self.taken.contains(&base) {
            base.push('_');
        }
        self.taken.insert(base.clone());
        base
    }

    /// `base`, or `base` with the first free number from 2 on, taken (for types).
    pub(super) fn claim_numbered(&mut self, base: &str) -> String {
        let mut name = base.to_owned();
        let n = self.next.entry(base.to_owned()).or_insert(2);
        while self.taken.contains(&name) {
            name = format!("{base}{n}");
            *n += 1;
        }
        self.taken.insert(name.clone());
        name
    }
}

/// A tool and the attribute it is called by.
pub(super) struct Member<'a> {
    pub(super) tool: &'a ToolDefinition,
    pub(super) attr: String,
}

/// The tools under one prefix: `tools.<attr>.<member>`.
pub(super) struct Namespace<'a> {
    pub(super) prefix: &'a str,
    pub(super) attr: String,
    pub(super) members: Vec<Member<'a>>,
    names: Names,
}

impl Namespace<'_> {
    /// The class of the namespace object; `attr` is unique, so this is too.
    pub(super) fn class_name(&self) -> String {
        format!("_Tools_{}", self.attr)
    }
}

/// What `tools` holds, in tool order: plain tools, and a namespace where
/// the first tool of a prefix appears.
pub(super) enum Entry {
    Tool(usize),
    Namespace(usize),
}

/// Where each tool lives in the `tools` object.
pub(super) struct Layout<'a> {
    pub(super) top: Vec<Member<'a>>,
    pub(super) namespaces: Vec<Namespace<'a>>,
    pub(super) entries: Vec<Entry>,
}

/// The layout of these tools: a name with a dot goes into the namespace of
/// the part before its first dot (by its rest), any other onto `tools`.
pub(super) fn layout<'a>(tools: &[&'a ToolDefinition]) -> Layout<'a> {
    let mut top_names = Names::with(&["__getitem__"]);
    let mut layout = Layout {
        top: Vec::new(),
        namespaces: Vec::new(),
        entries: Vec::new(),
    };
    for &tool in tools {
        let Some((prefix, rest)) = tool.name.split_once('.') else {
            let attr = top_names.claim(identifier(&tool.name));
            layout.entries.push(Entry::Tool(layout.top.len()));
            layout.top.push(Member { tool, attr });
            continue;
        };
        let i = match layout.namespaces.iter().position(|n| n.prefix == prefix) {
            Some(i) => i,
            None => {
                layout
                    .entries
                    .push(Entry::Namespace(layout.namespaces.len()));
                layout.namespaces.push(Namespace {
                    prefix,
                    attr: top_names.claim(identifier(prefix)),
                    members: Vec::new(),
                    names: Names::default(),
                });
                layout.namespaces.len() - 1
            }
        };
        let namespace = &mut layout.namespaces[i];
        let attr = namespace.names.claim(identifier(rest));
        namespace.members.push(Member { tool, attr });
    }
    layout
}

impl Layout<'_> {
    /// Every attribute a class of the `tools` object declares: a type of the
    /// same name would be shadowed in that class's annotations.
    pub(super) fn attributes(&self) -> impl Iterator<Item = &str> {
        let namespaced = self.namespaces.iter().flat_map(|n| {
            std::iter::once(n.attr.as_str()).chain(n.members.iter().map(|m| m.attr.as_str()))
        });
        self.top.iter().map(|m| m.attr.as_str()).chain(namespaced)
    }
}

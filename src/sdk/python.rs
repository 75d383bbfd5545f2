//! JSON Schema → Python stubs (contracts §5): the same tools as the
//! TypeScript SDK, as a `.pyi` module that `mypy --strict` checks.
//!
//! The mapping:
//!
//! - `string`, `integer`, `number`, `boolean`, `null` as `str`, `int`,
//!   `float`, `bool`, `None`; `const` and `enum` as one `Literal[…]` (JSON
//!   values `Literal` cannot hold as their type); `anyOf`/`oneOf` and type
//!   arrays as unions (`A | B`); OpenAPI's `nullable` as `| None`;
//! - objects with properties as `TypedDict` classes (keys not `required`
//!   are `NotRequired`), named after where they stand (`CreateIssueLabels`),
//!   in the functional form when a key is not a plain identifier; objects
//!   without properties as `dict[str, V]`;
//! - arrays as `list[T]` (a tuple's elements as one union);
//! - local `$ref`s as named classes or `TypeAlias`es, declared once (shared
//!   between tools when the whole referenced graph is identical); a reference that would make an alias its own body outside
//!   any container (which mypy rejects) as `Any`;
//! - Python has no intersection: of `$ref`, own type, `anyOf`, `oneOf` and
//!   `allOf`, the first part that says anything stands for the schema;
//! - anything else (remote `$ref`, `not`, keyword-only schemas, too deep
//!   nesting) as `Any`; a `false` schema as `Never`.
//!
//! Its rooms: [`names`] mangles names and lays the tools out in
//! namespaces, [`types`] writes types and declarations, [`methods`] the
//! `async def`s, [`docs`] docstrings and comments.

mod docs;
mod methods;
mod names;
#[cfg(test)]
mod tests;
mod types;

use names::{Entry, Layout, layout};
use types::Types;

use super::templates;
use crate::tool::definition::ToolDefinition;

/// The module for these tools: the frame from `sdk-templates/frame.pyi`
/// with the declarations, the `tools` class's members and the namespace
/// classes filled in, ending with one newline. The same tools always
/// give the same bytes.
pub(super) fn render_module(tools: &[&ToolDefinition]) -> String {
    render_in_frame(templates::FRAME_PY, tools)
}

/// What `describe_tools` answers for these tools: their types, methods and
/// namespaces as the module declares them, without its preamble.
pub(super) fn render_described(tools: &[&ToolDefinition]) -> String {
    render_in_frame("{{types}}class _Tools:{{methods}}\n{{namespaces}}", tools)
}

fn render_in_frame(frame: &str, tools: &[&ToolDefinition]) -> String {
    let layout = layout(tools);
    let mut types = Types::new(layout.attributes());
    let methods = members(&layout, &mut types);
    let namespaces = namespace_classes(&layout, &mut types);
    let mut module = templates::fill(
        frame,
        &[
            ("types", &types.decls),
            ("methods", &methods),
            ("namespaces", &namespaces),
        ],
    );
    // One final newline, with or without namespaces.
    module.truncate(module.trim_end_matches('\n').len());
    module.push('\n');
    module
}

/// The members of the `tools` class: its methods, and an attribute per namespace.
fn members<'a>(layout: &Layout<'a>, types: &mut Types<'a>) -> String {
    let mut out = String::new();
    for entry in &layout.entries {
        out.push('\n');
        match *entry {
            Entry::Tool(i) => {
                let member = &layout.top[i];
                methods::method(&mut out, types, member, &member.attr, "    ");
            }
            Entry::Namespace(i) => {
                let namespace = &layout.namespaces[i];
                out.push_str(&format!(
                    "    {}: {}\n",
                    namespace.attr,
                    namespace.class_name()
                ));
                let count = namespace.members.len();
                let noun = if count == 1 { "tool" } else { "tools" };
                out.push_str(&format!(
                    "    \"\"\"The {count} {noun} named {}.*\"\"\"\n",
                    namespace.prefix
                ));
            }
        }
    }
    out
}

/// `class _Tools_<attr>:` with one method per tool of each namespace.
fn namespace_classes<'a>(layout: &Layout<'a>, types: &mut Types<'a>) -> String {
    let mut out = String::new();
    for namespace in &layout.namespaces {
        out.push_str("\n\nclass ");
        out.push_str(&namespace.class_name());
        out.push_str(":\n");
        for (i, member) in namespace.members.iter().enumerate() {
            if i > 0 {
                out.push('\n');
            }
            let path = format!("{}.{}", namespace.prefix, member.attr);
            methods::method(&mut out, types, member, &path, "    ");
        }
    }
    out
}

#[cfg(feature = "python")]
/// Where a run binds each tool: the runtime twin of the stubs' layout (the
/// same attributes, namespaces and argument names), as `{attr: "exact
/// name"}`, `{attr: ["exact name", {python_name: json_name}]}` for a tool
/// with renamed arguments, and a namespace as `{attr: {member: …}}`. The
/// run's prelude binds `tools` from it (engine::python): data, so no
/// per-tool Python is parsed.
pub(crate) fn runtime_layout(tools: &[&ToolDefinition]) -> serde_json::Value {
    use serde_json::Value;
    let layout = layout(tools);
    let bound = |tool: &ToolDefinition| {
        let renamed = methods::renamed_arguments(tool);
        if renamed.is_empty() {
            return Value::from(tool.name.as_str());
        }
        let renamed = renamed
            .into_iter()
            .map(|(name, key)| (name, Value::from(key)))
            .collect();
        Value::Array(vec![
            Value::from(tool.name.as_str()),
            Value::Object(renamed),
        ])
    };
    let names = |members: &[names::Member<'_>]| {
        members
            .iter()
            .map(|m| (m.attr.clone(), bound(m.tool)))
            .collect::<serde_json::Map<_, _>>()
    };
    let mut bound = names(&layout.top);
    for namespace in &layout.namespaces {
        bound.insert(
            namespace.attr.clone(),
            Value::Object(names(&namespace.members)),
        );
    }
    Value::Object(bound)
}

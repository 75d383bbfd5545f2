//! One `async def` per tool: keyword-only arguments from the properties of
//! a plain object schema (else one positional `args`), the output schema's
//! type as the result, and a docstring from the descriptions.

use serde_json::Value;

use super::docs::{push_docstring, schema_note};
use super::names::{Member, Names, identifier};
use super::types::{Root, Types, is_plain_object, plain_properties, split_union};
use crate::sdk::keywords::Keywords;
use crate::sdk::naming::{pascal, root_name};
use crate::sdk::text::trim;
use crate::sdk::typescript::{ASKS_NOTE, ESCALATION_NOTE};
use crate::tool::definition::Policy;
#[cfg(feature = "python")]
use crate::tool::definition::ToolDefinition;

/// Lines longer than this put each parameter on a line of its own.
const LINE: usize = 88;

/// One parameter of a method, and the docstring line it gets.
struct Param {
    text: String,
    doc: Option<String>,
}

/// Writes `async def <attr>(self, …) -> R:` and its docstring at `indent`.
pub(super) fn method<'a>(
    out: &mut String,
    types: &mut Types<'a>,
    member: &Member<'a>,
    path: &str,
    indent: &str,
) {
    let tool = member.tool;
    let params = params(types, member);
    let result = match &tool.output {
        Some(output) => {
            types.enter(Root {
                schema: output,
                owner: &tool.name,
                kind: "Output",
            });
            types.ty(output, &root_name(&tool.name, "Output"), 0)
        }
        None => "Any".to_owned(),
    };
    let head = format!("{indent}async def {}(", member.attr);
    let one_line = std::iter::once("self".to_owned())
        .chain(params.iter().map(|p| p.text.clone()))
        .collect::<Vec<_>>()
        .join(", ");
    out.push_str(&head);
    if head.len() + one_line.len() + result.len() + 6 <= LINE {
        out.push_str(&one_line);
    } else {
        out.push('\n');
        for text in std::iter::once("self").chain(params.iter().map(|p| p.text.as_str())) {
            out.push_str(indent);
            out.push_str("    ");
            out.push_str(text);
            out.push_str(",\n");
        }
        out.push_str(indent);
    }
    out.push_str(") -> ");
    out.push_str(&result);
    out.push_str(":\n");
    let doc = docstring(member, path, &params);
    if doc.is_empty() {
        out.push_str(indent);
        out.push_str("    ...\n");
    } else {
        push_docstring(out, &doc, &format!("{indent}    "));
    }
}

/// The parameters after `self`: `*, name: T` for each property (`T | None =
/// None` when not required), `**other: V` for more keys; or `args: T, /`
/// when the schema is no plain object.
fn params<'a>(types: &mut Types<'a>, member: &Member<'a>) -> Vec<Param> {
    let tool = member.tool;
    let schema = &tool.parameters;
    types.enter(Root {
        schema,
        owner: &tool.name,
        kind: "Args",
    });
    let args_hint = root_name(&tool.name, "Args");
    let Some(kw) = Keywords::of(schema).filter(|kw| is_plain_object(kw)) else {
        let ty = types.ty(schema, &args_hint, 0);
        let text = if matches!(schema, Value::Bool(true)) {
            format!("args: {ty} = None")
        } else {
            format!("args: {ty}")
        };
        let doc = Keywords::of(schema).map(|kw| schema_note(&kw));
        return vec![
            Param {
                text,
                doc: doc.filter(|d| !d.is_empty()).map(|d| format!("args: {d}")),
            },
            Param {
                text: "/".to_owned(),
                doc: None,
            },
        ];
    };
    let (arguments, mut names) = argument_names(&kw);
    let mut out = vec![Param {
        text: "*".to_owned(),
        doc: None,
    }];
    for (name, key, property) in arguments {
        let mut hint = member_hint(&tool.name);
        pascal(key, &mut hint);
        let ty = types.ty(property, &hint, 1);
        let required = kw.required.iter().any(|r| r == key.as_str());
        let text = if required {
            format!("{name}: {ty}")
        } else if ty == "Any" || split_union(&ty).contains(&"None") {
            format!("{name}: {ty} = None")
        } else {
            format!("{name}: {ty} | None = None")
        };
        let mut doc = Keywords::of(property)
            .map(|kw| schema_note(&kw))
            .unwrap_or_default();
        if name != *key {
            doc = format!("(the argument {}) {doc}", quoted(key));
        }
        let doc = (!doc.trim().is_empty()).then(|| format!("{name}: {}", doc.trim_end()));
        out.push(Param { text, doc });
    }
    if out.len() == 1 {
        // A bare `*` needs a keyword parameter after it.
        out.clear();
    }
    if let Some(ty) = more_keys(types, &kw, &args_hint) {
        let name = names.claim("other".to_owned());
        out.push(Param {
            text: format!("**{name}: {ty}"),
            doc: Some(format!("{name}: more arguments, by any name")),
        });
    }
    out
}

/// The keyword argument of each property, in order, as (Python name, JSON
/// name, schema), and the names they took (`**other` comes after them).
fn argument_names<'a>(kw: &Keywords<'a>) -> (Vec<(String, &'a String, &'a Value)>, Names) {
    let mut names = Names::with(&["self"]);
    let arguments = plain_properties(kw)
        .into_iter()
        .flatten()
        .map(|(key, property)| (names.claim(identifier(key)), key, property))
        .collect();
    (arguments, names)
}

/// The keyword arguments of a tool whose Python name is not its JSON name,
/// as (Python name, JSON name): a call sends them under the JSON name.
/// Empty for a tool whose stub takes one positional `args`.
#[cfg(feature = "python")]
pub(super) fn renamed_arguments(tool: &ToolDefinition) -> Vec<(String, String)> {
    let Some(kw) = Keywords::of(&tool.parameters).filter(|kw| is_plain_object(kw)) else {
        return Vec::new();
    };
    argument_names(&kw)
        .0
        .into_iter()
        .filter(|(name, key, _)| name != *key)
        .map(|(name, key, _)| (name, key.clone()))
        .collect()
}

/// The name prefix of a tool's argument types: `CreateIssue`.
fn member_hint(tool: &str) -> String {
    let mut hint = root_name(tool, "");
    if hint.is_empty() {
        hint.push_str("Tool");
    }
    hint
}

/// The type of `**other`, when the schema admits more keys than it names.
fn more_keys<'a>(types: &mut Types<'a>, kw: &Keywords<'a>, hint: &str) -> Option<String> {
    if kw.patterns.is_some() {
        return Some("Any".to_owned());
    }
    match kw.additional? {
        Value::Bool(false) => None,
        schema @ Value::Object(_) => Some(types.ty(schema, &format!("{hint}Value"), 1)),
        _ => Some("Any".to_owned()),
    }
}

/// The method's docstring: the description, how to call an exotic name,
/// the escalation and read-only notes, then `Args:` and `Returns:`.
fn docstring(member: &Member<'_>, path: &str, params: &[Param]) -> String {
    let tool = member.tool;
    let mut doc = tool
        .advertised_description()
        .map(|d| trim(d).to_owned())
        .unwrap_or_default();
    let line = |doc: &mut String, text: &str| {
        if !doc.is_empty() {
            doc.push_str("\n\n");
        }
        doc.push_str(text);
    };
    if path != tool.name {
        line(
            &mut doc,
            &format!(
                "The tool {}: also tools[{}](...).",
                quoted(&tool.name),
                quoted(&tool.name)
            ),
        );
    }
    if tool.escalation_only {
        line(&mut doc, ESCALATION_NOTE);
    }
    if tool.policy == Policy::Ask {
        line(&mut doc, ASKS_NOTE);
    }
    if tool.read_only {
        line(&mut doc, "Read-only.");
    }
    let args: Vec<&str> = params.iter().filter_map(|p| p.doc.as_deref()).collect();
    if !args.is_empty() {
        let mut section = "Args:".to_owned();
        for arg in args {
            section.push_str("\n    ");
            section.push_str(&arg.replace('\n', "\n        "));
        }
        line(&mut doc, &section);
    }
    if let Some(kw) = tool.output.as_ref().and_then(Keywords::of) {
        let note = schema_note(&kw);
        if !note.is_empty() {
            line(
                &mut doc,
                &format!("Returns:\n    {}", note.replace('\n', "\n    ")),
            );
        }
    }
    doc
}

/// A name as a Python string literal.
fn quoted(name: &str) -> String {
    let mut out = String::new();
    crate::sdk::text::push_json_str(&mut out, name);
    out
}

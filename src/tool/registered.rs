//! A registered tool: a definition checked against the rules of contracts §2
//! (name, an object root for the parameters, valid JSON Schemas) with its
//! schemas compiled once, and the error registration gives otherwise.

use std::sync::Arc;

use super::definition::{ToolDefinition, is_valid_tool_name};
use super::handler::{Tool, ToolHandler};
use crate::json::json_type;
use crate::schema::{CompiledSchema, json_path};

/// Why a tool could not be registered. Nothing is registered when this is returned.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum RegistrationError {
    /// The name is not 1–128 characters of `A-Z a-z 0-9 _ . -`.
    #[error("tool name {name:?} is invalid: use 1-128 characters of A-Z a-z 0-9 _ . -")]
    InvalidName {
        /// The refused name.
        name: String,
    },
    /// The name is one the engine keeps: `run_code` is its own tool, and a
    /// tool named `then` would make `tools` look like a promise to `await`.
    #[error("tool name {name:?} is reserved: {why}")]
    ReservedName {
        /// The refused name.
        name: String,
        /// Why the engine keeps it.
        why: &'static str,
    },
    /// The parameters schema's root is not an object schema.
    #[error("tool `{tool}`: {path}: parameters must be an object schema ({reason})")]
    NonObjectParameters {
        /// The tool's name.
        tool: String,
        /// The JSON path of the offending value.
        path: String,
        /// What is wrong.
        reason: String,
    },
    /// A schema is not valid JSON Schema.
    #[error("tool `{tool}`: {path}: {reason}")]
    InvalidSchema {
        /// The tool's name.
        tool: String,
        /// The JSON path inside the definition, such as `$.parameters.properties.a.type`.
        path: String,
        /// What is wrong.
        reason: String,
    },
    /// A title template (`callTitle`, `resultTitle`) does not parse or is
    /// longer than 1,000 characters.
    #[error("tool `{tool}`: {path}: {reason}")]
    InvalidTitle {
        /// The tool's name.
        tool: String,
        /// `$.callTitle` or `$.resultTitle`.
        path: String,
        /// What is wrong.
        reason: String,
    },
}

/// A tool ready to be called: its definition, handler and compiled schemas.
pub(crate) struct RegisteredTool {
    pub(crate) definition: ToolDefinition,
    pub(crate) handler: Arc<dyn ToolHandler>,
    pub(crate) arguments: CompiledSchema,
    pub(crate) output: Option<CompiledSchema>,
    /// The tool source that registered it (`mcp server `x``), or `None`
    /// for the host's own registrations (its code, a manifest, the
    /// workspace tools): a source replaces and removes only its own names.
    pub(crate) owner: Option<Arc<str>>,
}

/// The tools by name, in registration order; replaced whole on every change.
pub(crate) type ToolMap = indexmap::IndexMap<String, Arc<RegisteredTool>>;

/// The definitions of the tools marked `visible` (a scope's view of a
/// [`ToolMap`], in order): the one visible-tools filter.
pub(crate) fn shown<'a>(
    tools: &'a ToolMap,
    visible: &[bool],
) -> impl Iterator<Item = &'a ToolDefinition> {
    tools
        .values()
        .zip(visible)
        .filter(|(_, v)| **v)
        .map(|(t, _)| &t.definition)
}

impl RegisteredTool {
    /// Checks and compiles a tool; warnings name the tool.
    pub(crate) fn compile(
        tool: Tool,
        warnings: &mut Vec<String>,
    ) -> Result<Self, RegistrationError> {
        let Tool {
            definition,
            handler,
        } = tool;
        let name = &definition.name;
        if !is_valid_tool_name(name) {
            return Err(RegistrationError::InvalidName { name: name.clone() });
        }
        if let Some(why) = reserved(name) {
            let name = name.clone();
            return Err(RegistrationError::ReservedName { name, why });
        }
        let params = &definition.parameters;
        let Some(root) = params.as_object() else {
            return Err(RegistrationError::NonObjectParameters {
                tool: name.clone(),
                path: "$.parameters".into(),
                reason: format!("got {}", json_type(params)),
            });
        };
        if let Some(ty) = root.get("type") {
            let is_object = match ty {
                serde_json::Value::String(s) => s == "object",
                serde_json::Value::Array(types) => types.iter().any(|t| t == "object"),
                _ => false,
            };
            if !is_object {
                return Err(RegistrationError::NonObjectParameters {
                    tool: name.clone(),
                    path: "$.parameters.type".into(),
                    reason: format!("type is {ty}"),
                });
            }
        }
        if let Some((member, reason)) = definition.titles.problem() {
            return Err(RegistrationError::InvalidTitle {
                tool: name.clone(),
                path: format!("$.{member}"),
                reason,
            });
        }
        let arguments = compile_part(name, "parameters", params, warnings)?;
        let output = match &definition.output {
            Some(schema) => Some(compile_part(name, "output", schema, warnings)?),
            None => None,
        };
        Ok(Self {
            definition,
            handler,
            arguments,
            output,
            owner: None,
        })
    }
}

/// Why a valid name is still not a tool's.
fn reserved(name: &str) -> Option<&'static str> {
    match name {
        crate::contract::run_code::RUN_CODE => Some("`run_code` is the engine's own tool"),
        "then" => Some("`await tools` would take a tool named `then` for a promise's"),
        _ => None,
    }
}

fn compile_part(
    tool: &str,
    part: &str,
    schema: &serde_json::Value,
    warnings: &mut Vec<String>,
) -> Result<CompiledSchema, RegistrationError> {
    let (compiled, warning) =
        CompiledSchema::compile(schema).map_err(|problem| RegistrationError::InvalidSchema {
            tool: tool.to_owned(),
            path: format!("$.{part}{}", &json_path(&problem.pointer)[1..]),
            reason: problem.message,
        })?;
    if let Some(warning) = warning {
        warnings.push(format!("tool `{tool}`: {part} {warning}"));
    }
    Ok(compiled)
}

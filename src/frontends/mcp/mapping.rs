//! ptc's shapes in MCP's: presented tools as MCP `Tool`s, and a call's
//! [`Invocation`] as a `CallToolResult`.

use std::sync::Arc;

use rmcp::model::{CallToolResult, JsonObject, Tool, ToolAnnotations};
use serde_json::{Value, json};

use crate::contract::call::ContentBlock;
use crate::contract::outcome::Invocation;
use crate::contract::presentation::Presentation;
use crate::contract::run_code::RUN_CODE;
use crate::contract::run_facts::{run_code_output_schema, run_facts};
use crate::tool::definition::ToolDefinition;

fn object(value: Value) -> JsonObject {
    match value {
        Value::Object(map) => map,
        _ => JsonObject::new(),
    }
}

/// A tool's output schema when MCP can carry it: MCP's `outputSchema` (and
/// so `structuredContent`) must be an object.
pub(super) fn object_output(definition: &ToolDefinition) -> Option<JsonObject> {
    let schema = definition.output.as_ref()?;
    (schema.get("type") == Some(&json!("object"))).then(|| object(schema.clone()))
}

/// What `tools/list` answers: the presented tools in order, `run_code` with
/// its output schema, the others with `readOnlyHint` and an object output
/// schema when they have one.
pub(super) fn mcp_tools(presentation: &Presentation, definitions: &[ToolDefinition]) -> Vec<Tool> {
    presentation
        .tools
        .iter()
        .map(|presented| {
            let tool = Tool::new_with_raw(
                presented.name.clone(),
                presented.description.clone().map(Into::into),
                Arc::new(object(presented.parameters.clone())),
            );
            let definition = definitions.iter().find(|d| d.name == presented.name);
            match definition {
                // In `native` mode no tool is the engine's `run_code`.
                None if presented.name == RUN_CODE => {
                    tool.with_raw_output_schema(Arc::new(run_code_output_schema()))
                }
                None => tool,
                Some(definition) => {
                    let tool = tool
                        .with_annotations(ToolAnnotations::new().read_only(definition.read_only));
                    match object_output(definition) {
                        Some(schema) => tool.with_raw_output_schema(Arc::new(schema)),
                        None => tool,
                    }
                }
            }
        })
        .collect()
}

/// The `tools/call` result: the model's content, `isError` as the model
/// sees it, and `structuredContent` where an output schema promised it
/// (`structured` says whether the called tool advertised one).
pub(super) fn call_result(invocation: &Invocation, structured: bool) -> CallToolResult {
    let content = invocation.content().into_iter().map(mcp_content).collect();
    let mut result = if invocation.is_error() {
        CallToolResult::error(content)
    } else {
        CallToolResult::success(content)
    };
    result.structured_content = match invocation {
        Invocation::Run(outcome) => Some(run_facts(outcome)),
        Invocation::Tool(Ok(output)) if structured => Some(output.value.clone()),
        Invocation::Tool(_) => None,
    };
    result
}

fn mcp_content(block: ContentBlock) -> rmcp::model::ContentBlock {
    match block {
        ContentBlock::Text { text } => rmcp::model::ContentBlock::text(text),
        ContentBlock::Image { data, mime_type } => {
            rmcp::model::ContentBlock::image(data, mime_type)
        }
    }
}

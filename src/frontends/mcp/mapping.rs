//! ptc's shapes in MCP's: presented tools as MCP `Tool`s, and a call's
//! [`Invocation`] as a `CallToolResult`.

use std::sync::Arc;

use rmcp::model::{CallToolResult, JsonObject, Tool, ToolAnnotations};
use serde_json::{Value, json};

use crate::engine::{Invocation, Outcome};
use crate::sdk::presentation::{Presentation, RUN_CODE};
use crate::tool::call::ContentBlock;
use crate::tool::definition::ToolDefinition;

/// The schema of `run_code`'s `structuredContent`: facts about the run for
/// the client (the model's text is in `content`).
pub(super) fn run_code_output_schema() -> JsonObject {
    let schema = json!({
        "type": "object",
        "properties": {
            "runId": { "type": "string", "description": "The run's id." },
            "kind": {
                "type": "string",
                "enum": ["syntax", "runtime", "timeout", "memory", "cancelled"],
                "description": "Why the run failed; absent when it succeeded."
            },
            "subCalls": { "type": "integer", "minimum": 0, "description": "Tool calls the program made." },
            "elapsedMs": { "type": "number", "minimum": 0, "description": "Wall time of the run in milliseconds." }
        },
        "required": ["runId", "subCalls", "elapsedMs"],
        "additionalProperties": false
    });
    object(schema)
}

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

/// `run_code`'s `structuredContent`, per [`run_code_output_schema`].
pub(super) fn run_facts(outcome: &Outcome) -> Value {
    let mut facts = json!({
        "runId": outcome.run_id,
        "subCalls": outcome.sub_calls,
        "elapsedMs": outcome.elapsed.as_secs_f64() * 1000.0,
    });
    if let Some(kind) = outcome.kind {
        facts["kind"] = json!(kind.as_str());
    }
    facts
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

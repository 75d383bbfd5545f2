//! Helpers shared by the integration tests.

use std::path::PathBuf;

use ptc::{Tool, ToolContext, ToolDefinition, ToolError};
use serde_json::{Value, json};

/// `../shared/...` next to the repository (CI lays a copy there).
pub fn shared(path: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../shared")
        .join(path)
}

/// A read-only tool that returns its arguments.
pub fn echo(name: &str) -> Tool {
    Tool::new(
        ToolDefinition::new(name).read_only(true),
        |args: Value, _cx: ToolContext| async move { Ok::<_, ToolError>(args) },
    )
}

/// A definition whose arguments need a string `q`.
pub fn with_query(name: &str) -> ToolDefinition {
    ToolDefinition::new(name).parameters(json!({
        "type": "object",
        "properties": { "q": { "type": "string" } },
        "required": ["q"]
    }))
}

//! ptc: programmatic tool calling.
#![deny(missing_docs)]

mod engine;
mod tool;

pub use engine::strip::SyntaxError;
pub use tool::definition::{Policy, ToolDefinition, is_valid_tool_name};

/// Internals exposed for the crate's own benches. Not a stable API.
#[doc(hidden)]
pub mod __private {
    /// Checks, wraps and strips `code` as a run does, returning the script
    /// QuickJS would evaluate.
    ///
    /// # Errors
    ///
    /// The [`SyntaxError`](crate::SyntaxError) a run would fail with.
    pub fn prepare_script(code: &str, max_code_bytes: usize) -> Result<String, crate::SyntaxError> {
        crate::engine::strip::prepare(code, max_code_bytes).map(|prepared| prepared.script)
    }
}

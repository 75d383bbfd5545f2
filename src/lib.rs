//! ptc: programmatic tool calling.
#![deny(missing_docs)]

mod tool;

pub use tool::definition::{Policy, ToolDefinition, is_valid_tool_name};

//! ptc: programmatic tool calling.
#![deny(missing_docs)]

mod sdk;
mod tool;

pub use sdk::{
    SdkOptions, render_declarations, run_code_description, run_code_parameters,
    schema_to_typescript,
};
pub use tool::definition::{Policy, ToolDefinition, is_valid_tool_name};

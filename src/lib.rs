//! ptc: programmatic tool calling.
#![deny(missing_docs)]

mod deadline;
mod engine;
mod host;
mod schema;
mod sdk;
mod tool;

pub use deadline::{Deadline, DeadlineError, MAX_DEADLINE_MS};
pub use engine::events::{EventSink, RunEvent, RunEventKind};
pub use engine::output::LogLevel;
pub use engine::{
    ConfigError, Engine, FailureKind, Invocation, Limits, Outcome, RunError, RunOptions, RunRequest,
};
pub use host::cli::{
    SdkFormat, ToolSetupError, content_text, format_presentation, outcome_json, tools_registry,
};
pub use host::manifest::{ManifestError, load_manifest, parse_manifest};
pub use host::serve::serve;
pub use host::terminal::{Progress, TerminalApprover};
pub use host::workspace::workspace_tools;
pub use sdk::presentation::{Presentation, PresentedTool, RUN_CODE};
pub use sdk::{
    SdkOptions, render_declarations, run_code_description, run_code_parameters,
    schema_to_typescript,
};
pub use tool::call::{
    Call, CallerContext, ContentBlock, ErrorCode, ToolContext, ToolError, ToolOutput, ToolResult,
};
pub use tool::definition::{Policy, ToolDefinition, is_valid_tool_name};
pub use tool::handler::{BoxFuture, Tool, ToolHandler, TypedTool};
pub use tool::pipeline::{
    Approval, ApprovalRequest, Approver, CallOptions, Decision, Denial, Next,
};
pub use tool::registry::{Mode, RegistrationError, Registry, Restriction, Scope};

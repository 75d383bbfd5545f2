//! Calls, results and error codes (contracts §3).

use std::any::Any;
use std::fmt;
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use tokio_util::sync::CancellationToken;

/// One request to run a tool.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Call {
    /// The call's id: `<runId>:ptc:<n>` for sub-calls, the host's own otherwise.
    pub id: String,
    /// The tool's name.
    pub name: String,
    /// The arguments, normally a JSON object.
    pub arguments: Value,
}

impl Call {
    /// A call of `name` with `arguments` and the given id.
    pub fn new(id: impl Into<String>, name: impl Into<String>, arguments: Value) -> Self {
        Self {
            id: id.into(),
            name: name.into(),
            arguments,
        }
    }
}

/// A content block of a result (contracts §7, images).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "lowercase")]
#[non_exhaustive]
pub enum ContentBlock {
    /// Plain text.
    Text {
        /// The text.
        text: String,
    },
    /// An image, base64-encoded.
    Image {
        /// Base64 of the image bytes.
        data: String,
        /// The image's MIME type, such as `image/png`.
        #[serde(rename = "mimeType")]
        mime_type: String,
    },
}

impl ContentBlock {
    /// A text block.
    pub fn text(text: impl Into<String>) -> Self {
        Self::Text { text: text.into() }
    }
}

/// What a successful call returns: a JSON value plus optional content blocks.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ToolOutput {
    /// The value the program receives.
    pub value: Value,
    /// Extra content (images) shown to the model after the program's text.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub content: Vec<ContentBlock>,
}

impl ToolOutput {
    /// An output with this value and no content blocks.
    pub fn new(value: Value) -> Self {
        Self {
            value,
            content: Vec::new(),
        }
    }

    /// Adds a content block. By default, an output has none.
    pub fn with_content(mut self, block: ContentBlock) -> Self {
        self.content.push(block);
        self
    }
}

impl From<Value> for ToolOutput {
    fn from(value: Value) -> Self {
        Self::new(value)
    }
}

/// The typed error codes of contracts §3.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
#[non_exhaustive]
pub enum ErrorCode {
    /// No visible tool has that name.
    UnknownTool,
    /// Arguments are not an object, not lossless JSON, or fail the schema.
    InvalidArguments,
    /// Policy or a guard said no.
    Denied,
    /// The handler failed or panicked.
    ToolError,
    /// The handler's value does not match its output schema.
    InvalidOutput,
    /// The tool's own `timeoutMs` expired.
    ToolTimeout,
    /// Cancelled before the handler started.
    AbortedBeforeDispatch,
    /// Cancelled after the handler started.
    Aborted,
}

impl ErrorCode {
    /// The code as written on the wire, such as `TOOL_ERROR`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::UnknownTool => "UNKNOWN_TOOL",
            Self::InvalidArguments => "INVALID_ARGUMENTS",
            Self::Denied => "DENIED",
            Self::ToolError => "TOOL_ERROR",
            Self::InvalidOutput => "INVALID_OUTPUT",
            Self::ToolTimeout => "TOOL_TIMEOUT",
            Self::AbortedBeforeDispatch => "ABORTED_BEFORE_DISPATCH",
            Self::Aborted => "ABORTED",
        }
    }

    /// Parses a wire code; `None` for anything not in the table.
    pub fn parse(code: &str) -> Option<Self> {
        serde_json::from_value(Value::String(code.to_owned())).ok()
    }
}

impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A failed call: a code, a model-facing message and optional user-facing detail.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, thiserror::Error)]
#[error("{code}: {message}")]
#[non_exhaustive]
pub struct ToolError {
    /// What kind of failure.
    pub code: ErrorCode,
    /// Shown to the model.
    pub message: String,
    /// For the user only; never put into model-facing text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
}

impl ToolError {
    /// An error with this code and message.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        Self {
            code,
            message: message.into(),
            detail: None,
        }
    }

    /// A `TOOL_ERROR`: what a handler returns when it fails.
    pub fn tool(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::ToolError, message)
    }

    /// A `DENIED` with a model-facing reason.
    pub fn denied(reason: impl Into<String>) -> Self {
        Self::new(ErrorCode::Denied, reason)
    }

    /// Attaches user-facing detail, kept out of model text. By default, none.
    pub fn with_detail(mut self, detail: impl Into<String>) -> Self {
        self.detail = Some(detail.into());
        self
    }

    /// The model-facing text of a failed native call: exactly `Error: <message>`.
    pub fn model_text(&self) -> String {
        format!("Error: {}", self.message)
    }
}

impl From<String> for ToolError {
    fn from(message: String) -> Self {
        Self::tool(message)
    }
}

impl From<&str> for ToolError {
    fn from(message: &str) -> Self {
        Self::tool(message)
    }
}

/// The outcome of one call.
pub type ToolResult = Result<ToolOutput, ToolError>;

/// Host data passed through to handlers by reference; never logged or serialized.
pub type CallerContext = Arc<dyn Any + Send + Sync>;

/// Where a call's progress notes go: in ptc, the run's events (every
/// [`EventSink`](crate::EventSink) is one). The tool's own type, so nothing
/// of a tool reaches up into the engine.
pub trait ProgressSink: Send + Sync + 'static {
    /// A note of call `call_id` of run `run_id`, already one line.
    fn progress(&self, run_id: Arc<str>, call_id: Arc<str>, message: String);
}

/// What a handler gets besides its arguments.
#[derive(Clone)]
pub struct ToolContext {
    pub(crate) call_id: Arc<str>,
    pub(crate) cancel: CancellationToken,
    pub(crate) caller: Option<CallerContext>,
    pub(crate) run_id: Option<Arc<str>>,
    /// Where its progress notes go, when someone watches the run.
    pub(crate) progress: Option<Arc<dyn ProgressSink>>,
}

impl ToolContext {
    /// A context for a call with this id, cancellation signal and caller data.
    pub fn new(
        call_id: impl Into<Arc<str>>,
        cancel: CancellationToken,
        caller: Option<CallerContext>,
    ) -> Self {
        Self {
            call_id: call_id.into(),
            cancel,
            caller,
            run_id: None,
            progress: None,
        }
    }

    /// The run this call belongs to (sub-calls only).
    pub fn run_id(&self) -> Option<&str> {
        self.run_id.as_deref()
    }

    /// The call's id.
    pub fn call_id(&self) -> &str {
        &self.call_id
    }

    /// Fires when the call is cancelled; handlers must observe it.
    pub fn cancellation(&self) -> &CancellationToken {
        &self.cancel
    }

    /// Whether [`report_progress`](Self::report_progress) reaches anyone:
    /// a handler may skip the work of making notes when not.
    pub fn reports_progress(&self) -> bool {
        self.progress.is_some()
    }

    /// Whether both calls report to the same watcher (the same event sink,
    /// one run's in every front end): whoever reads one's notes reads the
    /// other's too. `false` when either has no watcher.
    pub(crate) fn same_watcher(&self, other: &Self) -> bool {
        match (&self.progress, &other.progress) {
            (Some(one), Some(other)) => std::ptr::addr_eq(Arc::as_ptr(one), Arc::as_ptr(other)),
            _ => false,
        }
    }

    /// Tells whoever watches the run what the call is doing, as a
    /// `progress` run event: one line, escaped and cut as titles are
    /// (contracts §2); nothing when nobody watches. Does not block: it
    /// hands the note to the run's event sink.
    pub fn report_progress(&self, message: impl Into<String>) {
        if let Some(sink) = &self.progress
            && let Some(message) = crate::tool::title::as_line(message.into())
        {
            let run_id = Arc::clone(self.run_id.as_ref().unwrap_or(&self.call_id));
            sink.progress(run_id, Arc::clone(&self.call_id), message);
        }
    }

    /// The caller's context, if it is a `T`.
    pub fn caller<T: Any + Send + Sync>(&self) -> Option<&T> {
        self.caller.as_deref().and_then(|c| c.downcast_ref())
    }
}

impl fmt::Debug for ToolContext {
    // The caller context is the host's business: never print it.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ToolContext")
            .field("call_id", &self.call_id)
            .field("run_id", &self.run_id)
            .field("cancelled", &self.cancel.is_cancelled())
            .field("caller", &self.caller.as_ref().map(|_| "<opaque>"))
            .field("reports_progress", &self.progress.is_some())
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn codes_round_trip_on_the_wire() {
        for code in [
            ErrorCode::UnknownTool,
            ErrorCode::InvalidArguments,
            ErrorCode::Denied,
            ErrorCode::ToolError,
            ErrorCode::InvalidOutput,
            ErrorCode::ToolTimeout,
            ErrorCode::AbortedBeforeDispatch,
            ErrorCode::Aborted,
        ] {
            assert_eq!(serde_json::to_value(code).unwrap(), json!(code.as_str()));
            assert_eq!(ErrorCode::parse(code.as_str()), Some(code));
        }
        assert_eq!(ErrorCode::parse("NOPE"), None);
    }

    #[test]
    fn model_text_keeps_detail_out() {
        let e = ToolError::denied("not allowed").with_detail("user secret");
        assert_eq!(e.model_text(), "Error: not allowed");
    }

    #[test]
    fn debug_never_prints_the_caller_context() {
        let cx = ToolContext::new(
            "1",
            CancellationToken::new(),
            Some(Arc::new("api-key-123".to_string())),
        );
        assert!(!format!("{cx:?}").contains("api-key"));
        assert_eq!(
            cx.caller::<String>().map(String::as_str),
            Some("api-key-123")
        );
    }

    #[test]
    fn content_blocks_use_mcp_spelling() {
        let b = ContentBlock::Image {
            data: "AA==".into(),
            mime_type: "image/png".into(),
        };
        assert_eq!(
            serde_json::to_value(b).unwrap(),
            json!({ "type": "image", "data": "AA==", "mimeType": "image/png" })
        );
    }
}

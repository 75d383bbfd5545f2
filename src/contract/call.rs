//! A call and its answer as they cross a wire (contracts §3): the call,
//! the content blocks, a tool's output, the error codes and the typed
//! error. A tool returns these, the engine carries them, every front end
//! writes them.

use std::fmt;

use serde::{Deserialize, Serialize};
use serde_json::Value;

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

//! JSON-RPC errors, either side's, and the codes and messages of the ones
//! ptc answers with.

use std::fmt::Display;

use serde_json::Value;

use crate::contract::host_protocol::ErrorAt;
use crate::tool::registry::RegistrationError;
use crate::tool::wire::{EntryError, path_in_list};

pub(super) const PARSE_ERROR: i64 = -32700;
pub(super) const INVALID_REQUEST: i64 = -32600;
pub(super) const METHOD_NOT_FOUND: i64 = -32601;
const INVALID_PARAMS: i64 = -32602;

/// Where `tools/register` params keep their tools, for error paths.
const TOOL_LIST: &str = "$.tools";

/// A JSON-RPC error, either side.
#[derive(Debug, Clone)]
pub(super) struct RpcError {
    pub(super) code: i64,
    pub(super) message: String,
    pub(super) data: Option<Value>,
}

impl RpcError {
    pub(super) fn new(code: i64, message: impl Display) -> Self {
        Self {
            code,
            message: message.to_string(),
            data: None,
        }
    }

    pub(super) fn params(message: impl Display) -> Self {
        Self::new(INVALID_PARAMS, message)
    }

    fn with_data(mut self, data: ErrorAt<'_>) -> Self {
        self.data = serde_json::to_value(data).ok();
        self
    }

    /// The `error` member of a response from the host.
    pub(super) fn from_host(error: Value) -> Self {
        let code = error.get("code").and_then(Value::as_i64).unwrap_or(0);
        let message = match error.get("message").and_then(Value::as_str) {
            Some(message) => message.to_owned(),
            None => format!("the host answered with a malformed error: {error}"),
        };
        Self {
            code,
            message,
            data: error.get("data").cloned(),
        }
    }
}

/// A `tools/register` entry that could not be read, located in the request.
pub(super) fn entry_error(error: EntryError) -> RpcError {
    let path = error.path_in(TOOL_LIST);
    let tool = error
        .name
        .as_deref()
        .map(|n| format!("tool `{n}`: "))
        .unwrap_or_default();
    let data = ErrorAt {
        path: &path,
        tool: error.name.as_deref(),
    };
    RpcError::params(format!(
        "invalid params for `tools/register`: {tool}{path}: {}",
        error.problem
    ))
    .with_data(data)
}

/// A registration failure of the tool at `$.tools[index]`.
pub(super) fn registration_error(index: usize, error: &RegistrationError) -> RpcError {
    let at = |path: &str| path_in_list(TOOL_LIST, index, path);
    let (tool, path, message) = match error {
        RegistrationError::InvalidName { name } | RegistrationError::ReservedName { name, .. } => {
            (name.clone(), at("$.name"), error.to_string())
        }
        RegistrationError::NonObjectParameters { tool, path, reason } => (
            tool.clone(),
            at(path),
            format!("parameters must be an object schema ({reason})"),
        ),
        RegistrationError::InvalidSchema { tool, path, reason }
        | RegistrationError::InvalidTitle { tool, path, reason } => {
            (tool.clone(), at(path), reason.clone())
        }
    };
    RpcError::params(format!(
        "invalid params for `tools/register`: tool `{tool}`: {path}: {message}"
    ))
    .with_data(ErrorAt {
        path: &path,
        tool: Some(&tool),
    })
}

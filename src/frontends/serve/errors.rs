//! The errors of `tools/register` that name a tool entry: where in the
//! params it failed, and the tool (the error's shape is the contract's).

use crate::contract::host_protocol::{ErrorAt, RpcError};
use crate::tool::registry::RegistrationError;
use crate::tool::wire::{EntryError, path_in_list};

/// Where `tools/register` params keep their tools, for error paths.
const TOOL_LIST: &str = "$.tools";

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
    .at(data)
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
    .at(ErrorAt {
        path: &path,
        tool: Some(&tool),
    })
}

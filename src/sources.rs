//! Tool sources: where the tools of a registry come from, besides the
//! host's own code.
//!
//! - [`workspace_tools`](crate::workspace_tools): `read_file`, `write_file`,
//!   `list_dir` and `search_files`, confined to one directory.
//! - [`load_manifest`](crate::load_manifest) / [`parse_manifest`](crate::parse_manifest):
//!   tools described in a JSON file (ptc's own spelling or an MCP `tools/list`
//!   result), each optionally backed by a command run once per call.
//! - [`connect`](crate::connect): the tools of MCP servers (an
//!   [`McpConfig`](crate::McpConfig)), registered as `<server>.<tool>`.

pub(crate) mod manifest;
pub(crate) mod mcp;
pub(crate) mod workspace;

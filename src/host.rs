//! Hosts of ptc: built-in tools a host can register, and the host protocol.
//!
//! - [`workspace_tools`](crate::workspace_tools): `read_file`, `write_file`,
//!   `list_dir` and `search_files`, confined to one directory.
//! - [`load_manifest`](crate::load_manifest) / [`parse_manifest`](crate::parse_manifest):
//!   tools described in a JSON file (ptc's own spelling or an MCP `tools/list`
//!   result), each optionally backed by a command run once per call.
//! - [`serve`](crate::serve): the host protocol (JSON-RPC 2.0 over lines),
//!   for hosts written in any language.

pub(crate) mod manifest;
pub(crate) mod serve;
pub(crate) mod workspace;

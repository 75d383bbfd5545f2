//! Front ends: how a host that is not Rust code reaches the engine.
//!
//! - [`serve`](crate::serve): the host protocol (JSON-RPC 2.0 over lines,
//!   `docs/host-protocol.md`), for hosts written in any language.
//! - [`McpServer`](crate::McpServer): ptc as an MCP server over stdio or
//!   streamable HTTP (`docs/mcp.md`), for MCP clients.

pub(crate) mod mcp;
pub(crate) mod serve;

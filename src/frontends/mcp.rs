//! The MCP server front end (`ptc mcp`, `docs/mcp.md`): ptc's tools as an
//! MCP server, built on rmcp.
//!
//! Rooms: `handler` (the rmcp [`ServerHandler`](rmcp::ServerHandler):
//! `tools/list`, `tools/call`, `list_changed`), `mapping` (ptc's presented
//! tools and results in MCP's shapes), `progress` (sub-call events as
//! progress notifications), `approval` (`ask` tools through elicitation) and
//! `http` (streamable HTTP with its local-server safeguards). stdio is served
//! here.

mod approval;
mod handler;
mod http;
mod mapping;
mod progress;

use rmcp::ServiceExt;

use crate::limits;
use crate::transport::lines::Lines;

pub use handler::McpServer;
pub use http::{McpHttpOptions, McpHttpServer};

/// Why an MCP server could not be set up or stopped serving.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum McpServeError {
    /// The client's `initialize` handshake failed (or the client left first).
    #[error("the MCP handshake failed: {0}")]
    Handshake(String),
    /// The address may not be listened on (non-loopback without permission).
    #[error("{0}")]
    Refused(String),
    /// Listening or serving failed.
    #[error("{0}")]
    Io(#[from] std::io::Error),
}

/// Serves `server` over stdin/stdout (MCP's stdio transport) until the
/// client closes stdin. Nothing else may write to stdout meanwhile.
///
/// # Errors
/// The handshake failed, or the service task ended abnormally.
pub async fn serve_mcp_stdio(server: McpServer) -> Result<(), McpServeError> {
    let running = server
        .for_session()
        .serve(stdio())
        .await
        .map_err(|e| McpServeError::Handshake(e.to_string()))?;
    running
        .waiting()
        .await
        .map_err(|e| McpServeError::Io(std::io::Error::other(e)))?;
    Ok(())
}

/// stdin and stdout as a bounded transport: requests measured before they
/// are parsed, reading paused while answers wait (docs/mcp.md).
fn stdio() -> Lines<rmcp::RoleServer, rmcp::transport::StdioReader, rmcp::transport::StdioWriter> {
    let (input, output) = rmcp::transport::stdio_pipes();
    Lines::server(input, output, limits::REQUEST)
}

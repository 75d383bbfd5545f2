//! The MCP client on whose behalf a run calls MCP servers, when ptc itself
//! serves MCP: the front end passes it as the run's caller context, so an
//! upstream server's elicitation reaches the client that made the call,
//! and its notes only that client's session. It lives here, with the MCP
//! client that reads it, so nothing of the sources reaches up into a front
//! end.

use rmcp::{Peer, RoleServer};

/// The MCP client a call came from (see the module).
pub(crate) struct McpCaller {
    pub(crate) peer: Peer<RoleServer>,
    /// The MCP session (connection, or HTTP session) the call came in,
    /// unique for the life of the process: what one session's calls make an
    /// upstream server say reaches no other session.
    pub(crate) session: u64,
}

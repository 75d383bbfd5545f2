//! MCP over a pair of pipes or over HTTP, bounded: the stdio of `ptc mcp`
//! and of the MCP servers ptc starts, and the servers ptc reaches by URL.
//! rmcp speaks the protocol; this room decides what reaches it and how much
//! may wait.
//!
//! Rooms: `line_reader` (newline-delimited messages read within a bound,
//! for every door that reads lines: MCP's `lines`, `ptc serve`), `lines` (an rmcp transport over newline-delimited JSON that
//! measures every message before parsing it, answers what it cannot read,
//! and stops reading while answers wait), `http` (the HTTP client under
//! rmcp's streamable HTTP transport, measuring every body and event the
//! same way) and `child` (a server's process in a process group of its own,
//! ended whole).

pub(crate) mod child;
pub(crate) mod http;
pub(crate) mod line_reader;
pub(crate) mod lines;

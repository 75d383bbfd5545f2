//! MCP servers as a tool source: ptc as an MCP client.
//!
//! [`connect`] starts every server of an [`McpConfig`] at once, registers
//! each server's tools as `<server>.<tool>`, and returns an [`McpServers`]
//! handle that keeps the sessions alive, with the [`McpProblem`]s of the
//! servers that could not start (their tools are absent; the others work).
//! See `docs/mcp.md`.
//!
//! Its rooms: `config` (the `mcpServers` file), `connection` (one session:
//! a child on stdio or an HTTP endpoint, its stderr tail, the client side
//! that hears `list_changed`), `server` (supervision: restarts with
//! backoff, the registry kept in step, calls), `listing` (every page of
//! `tools/list`, bounded; re-listings one at a time), `tools` (a
//! `tools/list` entry as a definition) and `results` (a `CallToolResult`
//! as a result).

pub(crate) mod config;
mod connection;
mod listing;
mod results;
mod server;
mod tools;

use std::sync::Arc;
use std::time::Duration;

use tokio_util::sync::CancellationToken;

use crate::tool::registry::Registry;
use config::McpConfig;
use server::Server;

/// How servers are supervised. `Default` gives the documented policy.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct McpOptions {
    /// The wait before the second restart in a row; each further failed
    /// restart doubles it. By default, 1 s. (The first restart after a
    /// failure happens on the next call, without waiting.)
    pub restart_delay: Duration,
    /// The longest wait between restarts. By default, 60 s.
    pub max_restart_delay: Duration,
    /// The most pages one listing of a server's tools may have; past it
    /// the listing fails. By default, 100 (a server that pages forever
    /// is cut off).
    pub max_list_pages: usize,
    /// The most tools one listing may have; past it the listing fails.
    /// By default, 10,000 (ten times a registry an SDK can still show).
    pub max_list_tools: usize,
    /// The most bytes (as compact JSON) all pages of one listing may take
    /// together; past it the listing fails. By default, 16 MiB (rmcp's
    /// limit for one message; real lists take well under 1 MiB).
    pub max_list_bytes: usize,
}

impl Default for McpOptions {
    fn default() -> Self {
        Self {
            restart_delay: Duration::from_secs(1),
            max_restart_delay: Duration::from_secs(60),
            max_list_pages: 100,
            max_list_tools: 10_000,
            max_list_bytes: 16 * 1024 * 1024,
        }
    }
}

impl McpOptions {
    /// Sets [`restart_delay`](McpOptions#structfield.restart_delay) and
    /// [`max_restart_delay`](McpOptions#structfield.max_restart_delay).
    pub fn restart_delays(mut self, first: Duration, max: Duration) -> Self {
        self.restart_delay = first;
        self.max_restart_delay = max;
        self
    }

    /// Sets [`max_list_pages`](McpOptions#structfield.max_list_pages),
    /// [`max_list_tools`](McpOptions#structfield.max_list_tools) and
    /// [`max_list_bytes`](McpOptions#structfield.max_list_bytes).
    pub fn list_limits(mut self, pages: usize, tools: usize, bytes: usize) -> Self {
        self.max_list_pages = pages;
        self.max_list_tools = tools;
        self.max_list_bytes = bytes;
        self
    }

    /// How long to wait after `failures` failures in a row: none after
    /// one, then `restart_delay` doubling up to `max_restart_delay`.
    pub(crate) fn delay_after(&self, failures: u32) -> Duration {
        if failures <= 1 {
            return Duration::ZERO;
        }
        let doublings = (failures - 2).min(30);
        self.restart_delay
            .saturating_mul(1 << doublings)
            .min(self.max_restart_delay)
    }
}

/// A server that could not start (its tools are absent), or a tool of a
/// server that was skipped.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("mcp server `{server}`: {message}")]
#[non_exhaustive]
pub struct McpProblem {
    /// The server's name in the config.
    pub server: String,
    /// What went wrong, with the end of the server's stderr when it wrote
    /// any (then over several lines).
    pub message: String,
}

/// The sessions of the servers [`connect`] started. Dropping it stops them
/// (children are killed); [`shutdown`](Self::shutdown) stops them cleanly.
/// Their tools stay registered and fail with `TOOL_ERROR` once stopped.
pub struct McpServers {
    servers: Vec<Arc<Server>>,
    stop: CancellationToken,
}

impl std::fmt::Debug for McpServers {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpServers")
            .field("servers", &self.names())
            .finish_non_exhaustive()
    }
}

impl McpServers {
    /// The configured servers' names, in the config's order (the ones that
    /// could not start too: they are restarted on a call).
    pub fn names(&self) -> Vec<&str> {
        self.servers.iter().map(|s| s.name.as_str()).collect()
    }

    /// Stops every server cleanly: a child's stdin is closed, then it gets
    /// SIGTERM, then SIGKILL, a few seconds apart.
    pub async fn shutdown(self) {
        futures::future::join_all(self.servers.iter().map(|s| s.shutdown())).await;
        self.stop.cancel();
    }
}

impl Drop for McpServers {
    fn drop(&mut self) {
        for server in &self.servers {
            server.detach();
        }
        self.stop.cancel();
    }
}

/// Starts every server of `config` concurrently (spawn or connect,
/// `initialize`, every page of `tools/list`) and registers their tools in
/// `registry` as `<server>.<tool>`. Needs a Tokio runtime.
///
/// A server that cannot start within its `startupTimeoutMs` is one problem
/// and its tools are absent; tools that cannot be registered are skipped,
/// one problem each. Later, `notifications/tools/list_changed` re-lists a
/// server and updates the registry in place.
pub async fn connect(
    config: &McpConfig,
    registry: &Registry,
    options: McpOptions,
) -> (McpServers, Vec<McpProblem>) {
    let stop = CancellationToken::new();
    let servers: Vec<Arc<Server>> = config
        .servers
        .iter()
        .map(|(name, server)| {
            Server::new(
                name.clone(),
                server.clone(),
                options.clone(),
                registry.clone(),
                stop.child_token(),
            )
        })
        .collect();
    let started = futures::future::join_all(servers.iter().map(|s| s.start_first())).await;
    let mut problems = Vec::new();
    for (server, outcome) in servers.iter().zip(started) {
        let messages = match outcome {
            Ok((tools, mut skipped)) => {
                skipped.extend(server.register(tools));
                skipped
            }
            Err(why) => vec![format!("not started: {why}")],
        };
        problems.extend(messages.into_iter().map(|message| McpProblem {
            server: server.name.clone(),
            message,
        }));
    }
    (McpServers { servers, stop }, problems)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn restarts_wait_longer_after_each_failure_up_to_the_cap() {
        let options = McpOptions::default();
        let waits: Vec<u64> = (0..10).map(|n| options.delay_after(n).as_secs()).collect();
        assert_eq!(waits, [0, 0, 1, 2, 4, 8, 16, 32, 60, 60]);
        assert_eq!(options.delay_after(u32::MAX), Duration::from_secs(60));
    }
}

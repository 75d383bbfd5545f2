//! MCP servers as a tool source: ptc as an MCP client.
//!
//! [`McpServers::start`] starts every server of an [`McpConfig`] in the
//! background and returns at once; each server's tools join the registry
//! as `<server>.<tool>` when it is ready, at its place in the config's
//! order, and a server that cannot start is tried again with backoff
//! (the registry says meanwhile why its tools are absent, for `run_code`'s
//! description and the calls' errors). [`McpServers::ready`] waits for
//! every server's first attempt and gives the [`McpProblem`]s of those
//! that could not start; [`connect`] does both. See `docs/mcp.md`.
//!
//! Its rooms: `config` (the `mcpServers` file), `connection` (one session:
//! a child on stdio or an HTTP endpoint, its stderr tail, the client side
//! that hears `list_changed`), `notes` (an upstream server's progress and
//! log messages as notes of the calls they are about), `elicit` (its
//! questions forwarded to the client of the call that asked, the form's
//! texts marked as its own), `server` (supervision: the first start in
//! the background, restarts with backoff, the registry kept in step,
//! calls), `listing` (every page of
//! `tools/list`, bounded; re-listings one at a time), `tools` (a
//! `tools/list` entry as a definition) and `results` (a `CallToolResult`
//! as a result).

mod caller;
pub(crate) mod config;
mod connection;
mod elicit;
mod listing;
mod notes;
mod results;
mod server;
mod tools;

use std::sync::Arc;
use std::time::Duration;

use tokio_util::sync::CancellationToken;

use crate::tool::registry::Registry;
pub(crate) use caller::McpCaller;
use config::McpConfig;
use server::{FirstStart, Server};
#[cfg(test)]
pub(crate) use tools::UNTYPED_OUTPUT;

/// How servers are supervised. `Default` gives the documented policy.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct McpOptions {
    /// The wait before the second restart in a row; each further failed
    /// restart doubles it. By default, 1 s. (The first restart after a
    /// lost session happens on the next call, without waiting; a server
    /// that failed to start is tried again after this wait.)
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

/// A server whose first start failed (its tools are absent until a retry
/// succeeds), or a tool of a server that was skipped.
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

/// The sessions of the servers [`start`](Self::start) (or [`connect`])
/// started. Dropping it stops them (children are killed, starts and
/// retries end); [`shutdown`](Self::shutdown) stops them cleanly. Their
/// tools stay registered and fail with `TOOL_ERROR` once stopped.
pub struct McpServers {
    servers: Vec<Arc<Server>>,
    first_starts: Vec<FirstStart>,
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
    /// Starts every server of `config` in the background (spawn or
    /// connect, `initialize`, every page of `tools/list`, within its
    /// `startupTimeoutMs`) and returns at once. Each server's tools are
    /// registered in `registry` as `<server>.<tool>` when it is ready,
    /// before those of the servers after it in the config, whichever is
    /// ready first (and `registry.changes()` fires). Until then, the
    /// registry knows the server as still starting, then as failed with
    /// why: `run_code`'s description says so, one line per server, and a
    /// call of one of its tools fails saying so. A server that fails to
    /// start is tried again after [`McpOptions::restart_delay`], doubling
    /// up to [`McpOptions::max_restart_delay`], until it is up or stopped.
    /// Later, `notifications/tools/list_changed` re-lists a server and
    /// updates its tools in place.
    ///
    /// # Panics
    /// Outside a Tokio runtime (the servers start on tasks of it).
    pub fn start(config: &McpConfig, registry: &Registry, options: McpOptions) -> Self {
        Self::start_for_client(config, registry, options, std::future::ready(false))
    }

    /// [`start`](Self::start), for a front end whose own MCP client may
    /// answer the servers' elicitation requests (`ptc mcp` on stdio):
    /// each server starts once `client_elicits` resolves (its tools are
    /// said to be starting meanwhile), declaring `elicitation` when it
    /// resolves to `true`; then a server's `elicitation/create` is
    /// forwarded to the client of the run calling it (docs/mcp.md,
    /// "Elicitation from upstream servers"). A run's client is the
    /// [`McpServer`](crate::McpServer) caller of its `tools/call`.
    ///
    /// # Panics
    /// Outside a Tokio runtime.
    pub fn start_for_client(
        config: &McpConfig,
        registry: &Registry,
        options: McpOptions,
        client_elicits: impl Future<Output = bool> + Send + 'static,
    ) -> Self {
        use futures::FutureExt;
        let client_elicits: server::ClientElicits =
            (Box::pin(client_elicits) as crate::tool::handler::BoxFuture<bool>).shared();
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
                    client_elicits.clone(),
                )
            })
            .collect();
        let first_starts = servers.iter().map(Server::start_in_background).collect();
        Self {
            servers,
            first_starts,
            stop,
        }
    }

    /// Resolves when every server's first attempt to start has ended (each
    /// within its `startupTimeoutMs`, so this too), with the problems of
    /// those attempts in the config's order: a server that could not start
    /// (it is tried again in the background) and the tools that were
    /// skipped. Does not borrow the handle: it may be awaited on a task of
    /// its own while the servers are used.
    pub fn ready(&self) -> impl Future<Output = Vec<McpProblem>> + Send + 'static {
        let starts: Vec<(String, FirstStart)> = self
            .servers
            .iter()
            .map(|s| s.name.clone())
            .zip(self.first_starts.iter().cloned())
            .collect();
        async move {
            let mut problems = Vec::new();
            for (server, mut outcome) in starts {
                let messages = match outcome.wait_for(Option::is_some).await {
                    Ok(messages) => messages.clone().unwrap_or_default(),
                    // Stopped before its first attempt ended (ptc is ending,
                    // its client gone): nothing went wrong to tell.
                    Err(_) => Vec::new(),
                };
                problems.extend(messages.into_iter().map(|message| McpProblem {
                    server: server.clone(),
                    message,
                }));
            }
            problems
        }
    }

    /// The configured servers' names, in the config's order (the ones that
    /// could not start too: they are tried again in the background).
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

/// Starts every server of `config` ([`McpServers::start`]) and waits
/// until each is ready or its first attempt failed
/// ([`McpServers::ready`]): what a one-shot host (`ptc run`, `ptc sdk`)
/// wants, so that the tools are all there before it uses them. A
/// long-lived host that must answer at once (`ptc mcp`) calls
/// [`McpServers::start`] and lets tools join as servers become ready.
/// Needs a Tokio runtime.
///
/// A server that cannot start within its `startupTimeoutMs` is one problem
/// and its tools are absent (until a retry in the background succeeds);
/// tools that cannot be registered are skipped, one problem each.
pub async fn connect(
    config: &McpConfig,
    registry: &Registry,
    options: McpOptions,
) -> (McpServers, Vec<McpProblem>) {
    let servers = McpServers::start(config, registry, options);
    let problems = servers.ready().await;
    (servers, problems)
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

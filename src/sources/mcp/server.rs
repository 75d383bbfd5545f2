//! One configured server under supervision: its session (up, down since a
//! failure, or stopped), restarts with backoff on the next call, its tools
//! kept in the registry as `tools/list` says, and the calls themselves.

use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use rmcp::model::CallToolRequestParams;
use rmcp::{Peer, RoleClient, ServiceError};
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use super::McpOptions;
use super::config::McpServerConfig;
use super::connection::{Session, StderrTail, start};
use super::listing::{self, ListChanged, Relisting, list_entries};
use super::results::tool_result;
use super::tools::{ListedTool, map_tools};
use crate::tool::call::{ErrorCode, ToolContext, ToolError, ToolResult};
use crate::tool::handler::{BoxFuture, Tool, ToolHandler};
use crate::tool::registry::Registry;

/// How long a clean shutdown may take before the session is dropped (and
/// a child killed).
const SHUTDOWN_GRACE: Duration = Duration::from_secs(5);

/// Where a server's session stands.
enum State {
    /// Running; `epoch` tells this session from later ones.
    Up {
        peer: Peer<RoleClient>,
        session: Box<Session>,
        stderr: Arc<StderrTail>,
        epoch: u64,
    },
    /// Not running since `since`, after `failures` failures in a row.
    Down {
        failures: u32,
        since: Instant,
        why: String,
    },
    /// Shut down with the handle: calls fail, nothing restarts.
    Stopped,
}

/// A live session's parts a call needs.
struct Live {
    peer: Peer<RoleClient>,
    stderr: Arc<StderrTail>,
    epoch: u64,
}

/// One configured server.
pub(super) struct Server {
    pub(super) name: String,
    config: McpServerConfig,
    options: McpOptions,
    /// Taken when the handle goes, so tools and servers do not keep each
    /// other alive.
    registry: Mutex<Option<Registry>>,
    state: tokio::sync::Mutex<State>,
    epochs: std::sync::atomic::AtomicU64,
    relisting: Relisting,
    stop: CancellationToken,
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Server {
    pub(super) fn new(
        name: String,
        config: McpServerConfig,
        options: McpOptions,
        registry: Registry,
        stop: CancellationToken,
    ) -> Arc<Self> {
        Arc::new(Self {
            name,
            config,
            options,
            registry: Mutex::new(Some(registry)),
            state: tokio::sync::Mutex::new(State::Down {
                failures: 0,
                since: Instant::now(),
                why: "not started yet".to_owned(),
            }),
            epochs: std::sync::atomic::AtomicU64::new(0),
            relisting: Relisting::default(),
            stop,
        })
    }

    /// Starts the server; its tools (for [`register`](Self::register), so
    /// that servers started together register in the config's order) and
    /// the warnings about skipped ones, or why it could not start.
    pub(super) async fn start_first(
        self: &Arc<Self>,
    ) -> Result<(Vec<ListedTool>, Vec<String>), String> {
        let mut state = self.state.lock().await;
        let (_, tools, skipped) = self.restart(&mut state).await?;
        Ok((tools, skipped))
    }

    /// Registers `tools`, as a started or re-listed server does; what
    /// registration refused.
    pub(super) fn register(self: &Arc<Self>, tools: Vec<ListedTool>) -> Vec<String> {
        self.sync(tools)
    }

    /// Starts a session and lists its tools, inside the startup timeout;
    /// the state says what came of it.
    async fn restart(
        self: &Arc<Self>,
        state: &mut State,
    ) -> Result<(Live, Vec<ListedTool>, Vec<String>), String> {
        let failures = match state {
            State::Down { failures, .. } => *failures,
            _ => 0,
        };
        let stderr = Arc::new(StderrTail::default());
        let timeout = Duration::from_millis(self.config.startup_timeout_ms);
        let started = tokio::time::timeout(timeout, self.start_and_list(&stderr)).await;
        let why = match started {
            Ok(Ok((session, listed))) => {
                let epoch = self
                    .epochs
                    .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let peer = session.peer().clone();
                let (tools, skipped) = listed;
                let live = Live {
                    peer: peer.clone(),
                    stderr: Arc::clone(&stderr),
                    epoch,
                };
                *state = State::Up {
                    peer,
                    session: Box::new(session),
                    stderr,
                    epoch,
                };
                return Ok((live, tools, skipped));
            }
            Ok(Err(why)) => why,
            Err(_) => format!("did not start within {} ms", timeout.as_millis()),
        };
        stderr.settle().await;
        let why = format!("{why}{}", stderr.describe());
        *state = State::Down {
            failures: failures + 1,
            since: Instant::now(),
            why: why.clone(),
        };
        Err(why)
    }

    async fn start_and_list(
        self: &Arc<Self>,
        stderr: &Arc<StderrTail>,
    ) -> Result<(Session, (Vec<ListedTool>, Vec<String>)), String> {
        let told: Arc<listing::Server> = Arc::clone(self) as _;
        let session = start(
            &told,
            &self.config.transport,
            self.stop.child_token(),
            stderr,
        )
        .await?;
        let listed = self.list(session.peer()).await?;
        Ok((session, listed))
    }

    /// Every page of `tools/list`, within the listing caps, mapped.
    async fn list(
        &self,
        peer: &Peer<RoleClient>,
    ) -> Result<(Vec<ListedTool>, Vec<String>), String> {
        let entries = list_entries(peer, &self.options).await?;
        Ok(map_tools(&self.name, &self.config, entries))
    }

    /// Makes `tools` this server's tools in the registry (in place where a
    /// name was its own), leaving names others hold alone; what
    /// registration refused.
    fn sync(self: &Arc<Self>, tools: Vec<ListedTool>) -> Vec<String> {
        let Some(registry) = lock(&self.registry).clone() else {
            return Vec::new();
        };
        let tools = tools
            .into_iter()
            .map(|ListedTool { remote, definition }| {
                let handler = McpTool {
                    server: Arc::clone(self),
                    remote: remote.into(),
                };
                Tool::new(definition, handler)
            })
            .collect();
        let owner = format!("mcp server `{}`", self.name);
        let update = registry.replace_source(&owner, tools);
        let refused = update
            .refused
            .into_iter()
            .map(|(name, why)| format!("skipped tool `{name}`: {why}"));
        update.warnings.into_iter().chain(refused).collect()
    }

    async fn relist(self: Arc<Self>) {
        let peer = match &*self.state.lock().await {
            State::Up { peer, .. } => peer.clone(),
            _ => return,
        };
        let timeout = Duration::from_millis(self.config.startup_timeout_ms);
        let listed = match tokio::time::timeout(timeout, self.list(&peer)).await {
            Ok(listed) => listed,
            Err(_) => Err(format!(
                "tools/list did not finish within {} ms",
                timeout.as_millis()
            )),
        };
        match listed {
            Ok((tools, mut skipped)) => {
                skipped.extend(self.sync(tools));
                for problem in skipped {
                    tracing::warn!("mcp server `{}`: {problem}", self.name);
                }
            }
            Err(why) => tracing::warn!(
                "mcp server `{}`: re-listing its tools failed, its tools stay as they were: {why}",
                self.name
            ),
        }
    }

    /// The live session, restarting the server if it is down and its
    /// backoff has passed.
    async fn live(self: &Arc<Self>) -> Result<Live, ToolError> {
        let mut state = self.state.lock().await;
        if let State::Up {
            peer,
            stderr,
            epoch,
            ..
        } = &*state
        {
            if !peer.is_transport_closed() {
                return Ok(Live {
                    peer: peer.clone(),
                    stderr: Arc::clone(stderr),
                    epoch: *epoch,
                });
            }
            stderr.settle().await;
            let why = format!("it exited{}", stderr.describe());
            *state = down_after(why);
        }
        let wait = match &*state {
            State::Stopped => return Err(self.error("is stopped")),
            State::Down {
                failures,
                since,
                why,
            } => {
                let wait = self.options.delay_after(*failures);
                wait.checked_sub(since.elapsed())
                    .map(|left| (left, why.clone()))
            }
            State::Up { .. } => None,
        };
        if let Some((left, why)) = wait {
            let secs = left.as_secs_f64().ceil();
            return Err(self.error(&format!("is down ({why}); next restart in {secs} s")));
        }
        match self.restart(&mut state).await {
            Ok((live, tools, mut skipped)) => {
                skipped.extend(self.sync(tools));
                for problem in skipped {
                    tracing::warn!("mcp server `{}`: {problem}", self.name);
                }
                Ok(live)
            }
            Err(why) => Err(self.error(&format!("cannot be restarted: {why}"))),
        }
    }

    fn error(&self, what: &str) -> ToolError {
        ToolError::tool(format!("mcp server `{}` {what}", self.name))
    }

    /// Marks the session `epoch` lost, unless a later one replaced it.
    async fn lost(&self, epoch: u64, why: String) {
        let mut state = self.state.lock().await;
        if matches!(&*state, State::Up { epoch: e, .. } if *e == epoch) {
            *state = down_after(why);
        }
    }

    /// One `tools/call`. Cancelling `cx` drops the request, and rmcp sends
    /// `notifications/cancelled` for a request dropped unanswered.
    async fn call(self: &Arc<Self>, remote: &str, arguments: Value, cx: ToolContext) -> ToolResult {
        let cancelled = cx.cancellation();
        let aborted = || ToolError::new(ErrorCode::Aborted, "the call was cancelled");
        let live = tokio::select! {
            biased;
            () = cancelled.cancelled() => return Err(aborted()),
            live = self.live() => live?,
        };
        let mut params = CallToolRequestParams::new(remote.to_owned());
        if let Value::Object(arguments) = arguments {
            params = params.with_arguments(arguments);
        }
        let result = tokio::select! {
            biased;
            () = cancelled.cancelled() => return Err(aborted()),
            result = live.peer.call_tool(params) => result,
        };
        match result {
            Ok(result) => tool_result(&serde_json::to_value(result).unwrap_or(Value::Null)),
            Err(ServiceError::McpError(error)) => {
                Err(self.error(&format!("refused the call: {}", error.message)))
            }
            Err(error) if is_lost(&error, &live.peer) => {
                // The session is gone: the next call starts afresh.
                live.stderr.settle().await;
                let why = format!("failed during the call ({error}){}", live.stderr.describe());
                self.lost(live.epoch, why.clone()).await;
                Err(self.error(&why))
            }
            Err(error) => Err(self.error(&format!("answered the call oddly: {error}"))),
        }
    }

    /// Ends the session cleanly (a child gets its stdin closed, then
    /// SIGTERM, then SIGKILL); later calls fail.
    pub(super) async fn shutdown(&self) {
        lock(&self.registry).take();
        let previous = std::mem::replace(&mut *self.state.lock().await, State::Stopped);
        if let State::Up { mut session, .. } = previous {
            let _ = session.close_with_timeout(SHUTDOWN_GRACE).await;
        }
    }

    /// Lets go of the registry without waiting (the handle was dropped).
    pub(super) fn detach(&self) {
        lock(&self.registry).take();
    }
}

impl ListChanged for Server {
    /// Re-lists the tools after `notifications/tools/list_changed`: one
    /// re-listing at a time (those asked for meanwhile make one more), each
    /// within `startupTimeoutMs`.
    fn refresh(self: Arc<Self>) -> BoxFuture<()> {
        Box::pin(async move {
            self.relisting
                .request(|| {
                    let server = Arc::clone(&self);
                    async move { server.relist().await }
                })
                .await;
        })
    }
}

/// Whether a failed request means the session is gone (the process
/// exited, the connection broke), rather than one odd answer.
fn is_lost(error: &ServiceError, peer: &Peer<RoleClient>) -> bool {
    matches!(
        error,
        ServiceError::TransportClosed | ServiceError::TransportSend(_)
    ) || peer.is_transport_closed()
}

/// Down after a session was lost: the first restart is on the next call.
fn down_after(why: String) -> State {
    State::Down {
        failures: 1,
        since: Instant::now(),
        why,
    }
}

/// The handler of one server tool.
struct McpTool {
    server: Arc<Server>,
    remote: Arc<str>,
}

impl ToolHandler for McpTool {
    fn call(&self, arguments: Value, cx: ToolContext) -> BoxFuture<ToolResult> {
        let server = Arc::clone(&self.server);
        let remote = Arc::clone(&self.remote);
        Box::pin(async move { server.call(&remote, arguments, cx).await })
    }
}

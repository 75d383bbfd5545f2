//! One configured server under supervision: its first start in the
//! background (retried with backoff until it is up, its absence told to
//! the registry meanwhile), its session (up, down since a failure, or
//! stopped), restarts with backoff on the next call, its tools kept in the
//! registry as `tools/list` says, and the calls themselves.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use rmcp::model::{
    CallToolRequest, CallToolRequestParams, CancelledNotificationParam, ClientRequest,
    CustomResult, RequestId, ServerResult,
};
use rmcp::service::PeerRequestOptions;
use rmcp::{Peer, RoleClient, ServiceError};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

use super::McpCaller;
use super::McpOptions;
use super::config::McpServerConfig;
use super::connection::{Audience, ServerOutput, Session, start};
use super::elicit::Elicitations;
use super::listing::{self, ListChanged, Relisting, list_entries};
use super::notes::Notes;
use super::results::tool_result;
use super::tools::{ListedTool, map_tools};
use crate::contract::call::{ErrorCode, ToolError, ToolResult};
use crate::tool::availability::Absence;
use crate::tool::context::ToolContext;
use crate::tool::handler::{BoxFuture, Tool, ToolHandler};
use crate::tool::registry::Registry;
use crate::transport::http::RawLists;
use crate::transport::lines::{UNREADABLE_ANSWER, ended_the_session};

/// How long a clean shutdown may take before the session is dropped (and
/// a child killed).
const SHUTDOWN_GRACE: Duration = Duration::from_secs(5);

/// Where a server's session stands.
enum State {
    /// Running; `epoch` tells this session from later ones.
    Up {
        peer: Peer<RoleClient>,
        session: Box<Session>,
        stderr: Arc<ServerOutput>,
        epoch: u64,
    },
    /// Not running since `since`, after `failures` failures in a row.
    Down {
        failures: u32,
        since: Instant,
        why: String,
        /// What the lost process printed, told with `why` to each call as
        /// [`Server::printed`] allows (a process that never served a call
        /// has it in `why`).
        output: Option<Arc<ServerOutput>>,
    },
    /// Shut down with the handle: calls fail, nothing restarts.
    Stopped,
}

/// A live session's parts a call needs.
struct Live {
    peer: Peer<RoleClient>,
    stderr: Arc<ServerOutput>,
    epoch: u64,
    notes: Arc<Notes>,
    elicitations: Arc<Elicitations>,
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
    /// The problems with its tools told so far: each is told once a launch,
    /// however often the server re-lists or restarts.
    told: Mutex<std::collections::HashSet<String>>,
    stop: CancellationToken,
    /// Ends the first start and its retries (before a clean shutdown).
    starting: CancellationToken,
    /// Whether a start ever succeeded (its tools were registered).
    started: AtomicBool,
    /// Whether ptc's own client can elicit (then `elicitation` is declared
    /// to the server and its requests forwarded), known when the client
    /// initialized: a start waits for it.
    client_elicits: ClientElicits,
}

/// Whether ptc's own MCP client can elicit, once known.
pub(super) type ClientElicits = futures::future::Shared<BoxFuture<bool>>;

/// What came of a server's first attempt to start: the problems to
/// report (`Some(vec![])` when none), or `None` while it runs.
pub(super) type FirstStart = tokio::sync::watch::Receiver<Option<Vec<String>>>;

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
        client_elicits: ClientElicits,
    ) -> Arc<Self> {
        registry.declare_source(
            &owner(&name),
            &format!("MCP server `{name}`"),
            &super::tools::qualified(&name, ""),
        );
        Arc::new(Self {
            starting: stop.child_token(),
            started: AtomicBool::new(false),
            name,
            config,
            options,
            registry: Mutex::new(Some(registry)),
            state: tokio::sync::Mutex::new(State::Down {
                failures: 0,
                since: Instant::now(),
                why: "not started yet".to_owned(),
                output: None,
            }),
            epochs: std::sync::atomic::AtomicU64::new(0),
            relisting: Relisting::default(),
            told: Mutex::default(),
            stop,
            client_elicits,
        })
    }

    /// Starts the server in the background, trying again with backoff
    /// (`McpOptions::delay_after`, from its first wait) until it is up or
    /// stopped, and telling the registry meanwhile why its tools are absent.
    /// The receiver gets the problems of the first attempt.
    pub(super) fn start_in_background(self: &Arc<Self>) -> FirstStart {
        let (first, outcome) = tokio::sync::watch::channel(None);
        let server = Arc::clone(self);
        tokio::spawn(async move {
            let starting = server.starting.clone();
            tokio::select! {
                () = starting.cancelled() => {}
                () = server.keep_starting(first) => {}
            }
        });
        outcome
    }

    async fn keep_starting(
        self: &Arc<Self>,
        first: tokio::sync::watch::Sender<Option<Vec<String>>>,
    ) {
        let mut first = Some(first);
        loop {
            let wait = {
                let mut state = self.state.lock().await;
                if matches!(*state, State::Stopped) {
                    return;
                }
                // Under the lock, what follows: a re-listing (list_changed
                // at start) registers after this, never before, and a
                // shutdown has the last word on the absence.
                let (why, failures) = match self.restart(&mut state).await {
                    Ok((_, tools, mut problems)) => {
                        problems.extend(self.sync(tools));
                        self.started.store(true, Ordering::Release);
                        match first.take() {
                            Some(first) => {
                                first.send_replace(Some(self.untold(problems)));
                            }
                            None => self.warn(problems),
                        }
                        return;
                    }
                    Err(why) => match &*state {
                        State::Down { failures, .. } => (why, *failures),
                        _ => return,
                    },
                };
                let wait = self.options.delay_after(failures.saturating_add(1));
                self.set_absence(Some(Absence::Failed {
                    why: why.clone(),
                    retry_at: Some(Instant::now() + wait),
                }));
                if let Some(first) = first.take() {
                    first.send_replace(Some(vec![format!("not started: {why}")]));
                }
                wait
            };
            tokio::time::sleep(wait).await;
        }
    }

    fn set_absence(&self, absence: Option<Absence>) {
        if let Some(registry) = lock(&self.registry).as_ref() {
            registry.set_absence(&owner(&self.name), absence);
        }
    }

    fn warn(&self, problems: Vec<String>) {
        for problem in self.untold(problems) {
            tracing::warn!("mcp server `{}`: {problem}", self.name);
        }
    }

    /// `problems` less those told before, which are told no more.
    fn untold(&self, problems: Vec<String>) -> Vec<String> {
        let mut told = lock(&self.told);
        problems
            .into_iter()
            .filter(|problem| told.insert(problem.clone()))
            .collect()
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
        // Before the startup timeout: ptc's client initializes when it will.
        let elicits = self.client_elicits.clone().await;
        let stderr = Arc::new(ServerOutput::default());
        let timeout = Duration::from_millis(self.config.startup_timeout_ms);
        let started = tokio::time::timeout(timeout, self.start_and_list(&stderr, elicits)).await;
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
                    notes: Arc::clone(&session.service().notes),
                    elicitations: Arc::clone(&session.service().elicitations),
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
        // A process that served no call: what it printed is nobody's.
        let why = format!("{why}{}", stderr.describe());
        *state = State::Down {
            failures: failures + 1,
            since: Instant::now(),
            why: why.clone(),
            output: None,
        };
        Err(why)
    }

    async fn start_and_list(
        self: &Arc<Self>,
        stderr: &Arc<ServerOutput>,
        elicits: bool,
    ) -> Result<(Session, (Vec<ListedTool>, Vec<String>)), String> {
        let told: Arc<listing::Server> = Arc::clone(self) as _;
        let session = start(
            &told,
            (&self.name, elicits),
            &self.config.transport,
            self.stop.child_token(),
            stderr,
        )
        .await?;
        let listed = self
            .list(session.peer(), session.service().raw_lists.clone())
            .await?;
        Ok((session, listed))
    }

    /// Every page of `tools/list`, within the listing caps, mapped.
    async fn list(
        &self,
        peer: &Peer<RoleClient>,
        raw: Option<Arc<RawLists>>,
    ) -> Result<(Vec<ListedTool>, Vec<String>), String> {
        let entries = list_entries(peer, &self.options, raw.as_deref()).await?;
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
        let update = registry.replace_source(&owner(&self.name), tools);
        let refused = update
            .refused
            .into_iter()
            .map(|(name, why)| format!("skipped tool `{name}`: {why}"));
        update.warnings.into_iter().chain(refused).collect()
    }

    async fn relist(self: Arc<Self>) {
        let (peer, raw) = match &*self.state.lock().await {
            State::Up { peer, session, .. } => (peer.clone(), session.service().raw_lists.clone()),
            _ => return,
        };
        let timeout = Duration::from_millis(self.config.startup_timeout_ms);
        let listed = match tokio::time::timeout(timeout, self.list(&peer, raw)).await {
            Ok(listed) => listed,
            Err(_) => Err(format!(
                "tools/list did not finish within {} ms",
                timeout.as_millis()
            )),
        };
        match listed {
            Ok((tools, mut skipped)) => {
                skipped.extend(self.sync(tools));
                self.warn(skipped);
            }
            Err(why) => tracing::warn!(
                "mcp server `{}`: re-listing its tools failed, its tools stay as they were: {why}",
                self.name
            ),
        }
    }

    /// The live session, restarting the server if it is down and its
    /// backoff has passed; what a lost process printed is told as a call of
    /// `audience`'s may be told it.
    async fn live(self: &Arc<Self>, audience: Audience) -> Result<Live, ToolError> {
        let mut state = self.state.lock().await;
        if let State::Up {
            peer,
            session,
            stderr,
            epoch,
        } = &*state
        {
            if !peer.is_transport_closed() {
                return Ok(Live {
                    peer: peer.clone(),
                    stderr: Arc::clone(stderr),
                    epoch: *epoch,
                    notes: Arc::clone(&session.service().notes),
                    elicitations: Arc::clone(&session.service().elicitations),
                });
            }
            stderr.settle().await;
            *state = down_after("it exited".to_owned(), Arc::clone(stderr));
        }
        let wait = match &*state {
            State::Stopped => return Err(self.error("is stopped")),
            State::Down {
                failures,
                since,
                why,
                output,
            } => {
                let wait = self.options.delay_after(*failures);
                wait.checked_sub(since.elapsed()).map(|left| {
                    let printed = output
                        .as_ref()
                        .map(|output| self.printed(output, audience))
                        .unwrap_or_default();
                    (left, format!("{why}{printed}"))
                })
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
                self.warn(skipped);
                Ok(live)
            }
            Err(why) => Err(self.error(&format!("cannot be restarted: {why}"))),
        }
    }

    fn error(&self, what: &str) -> ToolError {
        ToolError::tool(format!("mcp server `{}` {what}", self.name))
    }

    /// What `output`'s process printed (its stderr's last lines, a stray
    /// line on stdout), for an error told to a call of `audience`'s: in
    /// full when the process served calls of that audience only. One
    /// process serves every MCP session of `ptc mcp --http`, and what it
    /// printed may be about any of their calls: otherwise it goes to ptc's
    /// log (once) and the call is told so.
    fn printed(&self, output: &ServerOutput, audience: Audience) -> String {
        let printed = output.describe();
        if printed.is_empty() || output.may_tell(audience) {
            return printed;
        }
        if !output.logged.swap(true, Ordering::AcqRel) {
            tracing::warn!("mcp server `{}` stopped{printed}", self.name);
        }
        "; what it printed is in ptc's log, not here: it also served calls of other MCP sessions"
            .to_owned()
    }

    /// Marks the session `epoch` lost, unless a later one replaced it.
    async fn lost(&self, epoch: u64, why: String, output: Option<Arc<ServerOutput>>) {
        let mut state = self.state.lock().await;
        if matches!(&*state, State::Up { epoch: e, .. } if *e == epoch) {
            *state = match output {
                Some(output) => down_after(why, output),
                None => State::Down {
                    failures: 1,
                    since: Instant::now(),
                    why,
                    output: None,
                },
            };
        }
    }

    /// One `tools/call`. Cancelling `cx` drops the request, and
    /// `notifications/cancelled` goes out for it ([`Abandoned`]). While it
    /// runs, the server's progress and log messages are notes of `cx`.
    async fn call(self: &Arc<Self>, remote: &str, arguments: Value, cx: ToolContext) -> ToolResult {
        let cancelled = cx.cancellation();
        let aborted = || ToolError::new(ErrorCode::Aborted, "the call was cancelled");
        let audience = cx.caller::<McpCaller>().map(|caller| caller.session);
        let live = tokio::select! {
            biased;
            () = cancelled.cancelled() => return Err(aborted()),
            live = self.live(audience) => live?,
        };
        live.stderr.serves(audience);
        let mut params = CallToolRequestParams::new(remote.to_owned());
        if let Value::Object(arguments) = arguments {
            params = params.with_arguments(arguments);
        }
        let request = ClientRequest::CallToolRequest(CallToolRequest::new(params));
        // Before the request goes: the server may ask at once.
        let _asking = live
            .elicitations
            .enter(&super::tools::qualified(&self.name, remote), &cx);
        let (sent, _listening) = {
            // What the server says about the call waits until it listens.
            let _sending = live.notes.sending().await;
            let sent = tokio::select! {
                biased;
                () = cancelled.cancelled() => return Err(aborted()),
                sent = live.peer.send_cancellable_request(request, PeerRequestOptions::no_options()) => sent,
            };
            let listening = sent.as_ref().ok().and_then(|handle| {
                _asking.sent(&handle.id);
                live.notes
                    .listen(handle.id.clone(), handle.progress_token.clone(), &cx)
            });
            (sent, listening)
        };
        let result = match sent {
            Ok(handle) => {
                let abandoned = Abandoned::new(&live.peer, handle.id.clone());
                let answer = tokio::select! {
                    biased;
                    () = cancelled.cancelled() => return Err(aborted()),
                    answer = handle.await_response() => answer,
                };
                abandoned.disarm();
                answer
                    .and_then(|answer| call_result(answer).ok_or(ServiceError::UnexpectedResponse))
            }
            Err(error) => Err(error),
        };
        match result {
            Ok(value) => tool_result(value),
            Err(ServiceError::McpError(error)) if error.code == UNREADABLE_ANSWER => {
                let why = format!("sent an answer ptc cannot read: {}", error.message);
                if ended_the_session(&error) {
                    self.lost(live.epoch, why.clone(), None).await;
                }
                Err(self.error(&why))
            }
            Err(ServiceError::McpError(error)) => {
                Err(self.error(&format!("refused the call: {}", error.message)))
            }
            Err(error) if is_lost(&error, &live.peer) => {
                // The session is gone: the next call starts afresh.
                live.stderr.settle().await;
                let why = format!("failed during the call ({error})");
                let printed = self.printed(&live.stderr, audience);
                self.lost(live.epoch, why.clone(), Some(Arc::clone(&live.stderr)))
                    .await;
                Err(self.error(&format!("{why}{printed}")))
            }
            Err(error) => Err(self.error(&format!("answered the call oddly: {error}"))),
        }
    }

    /// Ends the session cleanly (a child gets its stdin closed, then
    /// SIGTERM, then SIGKILL), or the start under way; later calls fail.
    pub(super) async fn shutdown(&self) {
        self.starting.cancel();
        let mut state = self.state.lock().await;
        if !self.started.load(Ordering::Acquire) {
            // Its tools never came: say why, without a retry to come.
            let why = match &*state {
                State::Down {
                    failures: 1.., why, ..
                } => why.clone(),
                _ => "it was stopped before it started".to_owned(),
            };
            self.set_absence(Some(Absence::Failed {
                why,
                retry_at: None,
            }));
        }
        lock(&self.registry).take();
        let previous = std::mem::replace(&mut *state, State::Stopped);
        drop(state);
        if let State::Up { mut session, .. } = previous {
            let _ = session.close_with_timeout(SHUTDOWN_GRACE).await;
        }
    }

    /// Lets go of the registry without waiting (the handle was dropped).
    pub(super) fn detach(&self) {
        self.starting.cancel();
        lock(&self.registry).take();
    }
}

/// The owner a server's tools are registered under.
fn owner(server: &str) -> String {
    format!("mcp server `{server}`")
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

/// A `tools/call` answer as JSON: a `CallToolResult`, or an empty result
/// (no content); `None` for any other kind of answer. A result rmcp could
/// not read as a `CallToolResult` (a content block of the wrong shape, such
/// as a `resource_link` without a `uri`) comes as a custom result, and is
/// read as one when it has one of its members: [`tool_result`] passes over
/// the blocks it cannot read and keeps the rest.
fn call_result(answer: ServerResult) -> Option<Value> {
    match answer {
        ServerResult::CustomResult(CustomResult(value))
            if ["content", "structuredContent", "isError"]
                .iter()
                .any(|member| value.get(member).is_some()) =>
        {
            Some(value)
        }
        ServerResult::CallToolResult(mut result) => {
            // Moved, not copied: it may be most of the answer.
            let structured = result.structured_content.take();
            let mut value = serde_json::to_value(result).unwrap_or(Value::Null);
            if let (Some(structured), Value::Object(fields)) = (structured, &mut value) {
                fields.insert("structuredContent".to_owned(), structured);
            }
            Some(value)
        }
        ServerResult::EmptyResult(_) => Some(json!({})),
        _ => None,
    }
}

/// Sends `notifications/cancelled` for a request dropped unanswered (the
/// call was cancelled), so the server stops working on it, as rmcp's own
/// `call_tool` does.
struct Abandoned {
    peer: Peer<RoleClient>,
    id: Option<RequestId>,
}

impl Abandoned {
    fn new(peer: &Peer<RoleClient>, id: RequestId) -> Self {
        Self {
            peer: peer.clone(),
            id: Some(id),
        }
    }

    fn disarm(mut self) {
        self.id = None;
    }
}

impl Drop for Abandoned {
    fn drop(&mut self) {
        let (Some(id), Ok(runtime)) = (self.id.take(), tokio::runtime::Handle::try_current())
        else {
            return;
        };
        let peer = self.peer.clone();
        let cancelled =
            CancelledNotificationParam::new(Some(id), Some("the call was cancelled".to_owned()));
        runtime.spawn(async move {
            let _ = peer.notify_cancelled(cancelled).await;
        });
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
fn down_after(why: String, output: Arc<ServerOutput>) -> State {
    State::Down {
        failures: 1,
        since: Instant::now(),
        why,
        output: Some(output),
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A `tools/call` answer as rmcp reads it, then as the program gets it.
    fn value_of(answer: Value) -> Result<Value, String> {
        let answer: ServerResult = serde_json::from_value(answer).unwrap();
        let result = call_result(answer).ok_or("answered oddly")?;
        tool_result(result)
            .map(|output| output.value)
            .map_err(|e| e.message)
    }

    #[test]
    fn a_malformed_block_is_passed_over_and_the_rest_kept() {
        let link = |uri: &str| json!({ "type": "resource_link", "uri": uri, "name": "n" });
        let answer = json!({ "content": [
            { "type": "text", "text": "2 matches" },
            link("file:///a"),
            { "type": "resource_link", "name": "no uri" },
            { "type": "resource_link", "uri": 7, "name": "a number" },
            link("file:///b"),
        ] });
        assert_eq!(
            value_of(answer),
            Ok(json!({ "text": "2 matches", "resourceLinks": [
                { "uri": "file:///a", "name": "n" }, { "uri": "file:///b", "name": "n" }
            ] }))
        );
        let failed = json!({ "isError": true, "content": [
            { "type": "text", "text": "no such page" }, { "type": "image" }
        ] });
        assert_eq!(value_of(failed), Err("no such page".to_owned()));
        // An answer that is no call result at all is still odd.
        assert_eq!(
            value_of(json!({ "rows": [] })),
            Err("answered oddly".to_owned())
        );
        assert_eq!(value_of(json!({})), Ok(Value::Null));
    }
}

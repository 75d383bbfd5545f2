//! [`McpServer`]: the rmcp server handler over an [`Engine`]. Each
//! `tools/call` is self-contained: the run (or tool call) lives exactly as
//! long as the request, so no state spans calls.

use std::borrow::Cow;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, Implementation, ListToolsResult,
    PaginatedRequestParams, ProtocolVersion, ServerCapabilities, ServerConfig,
};
use rmcp::service::{ElicitationMode, NotificationContext, RequestContext};
use rmcp::{ErrorData, RoleServer, ServerHandler};
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use super::approval::ElicitingApprover;
use super::{mapping, progress};
use crate::contract::call::Call;
use crate::contract::presentation::Mode;
use crate::contract::run_code::RUN_CODE;
use crate::engine::{Engine, RunOptions};
use crate::sources::mcp::McpCaller;
use crate::tool::context::CallerContext;
use crate::tool::registry::Scope;

/// ptc as an MCP server: `tools/list` shows what the model sees in the
/// chosen [`Mode`] (`ptc`: only `run_code`, whose description carries the
/// SDK; `native`: every tool; `both`: every tool, then `run_code`), and
/// `tools/call` answers a call exactly as the model made it
/// ([`Engine::invoke`]). See `docs/mcp.md`.
///
/// Making one installs an approver on the engine's registry
/// ([`Registry::set_approver`](crate::Registry::set_approver)) that asks
/// the calling client through MCP elicitation before each call of an `ask`
/// tool. Cheap to clone; serve it with [`serve_mcp_stdio`](crate::serve_mcp_stdio),
/// [`McpHttpServer`](crate::McpHttpServer) or any rmcp transport
/// (`rmcp::ServiceExt::serve`).
#[derive(Clone)]
pub struct McpServer {
    inner: Arc<Inner>,
    session: Arc<Session>,
}

/// Lives as long as the handler serving one connection (or HTTP session):
/// what that connection started stops when it is dropped.
struct Session {
    /// Tells this session from every other of the process (never reused).
    id: u64,
    ended: CancellationToken,
    /// Whether the registry's changes are followed already: a client may
    /// send `notifications/initialized` any number of times.
    following: std::sync::atomic::AtomicBool,
}

impl Default for Session {
    fn default() -> Self {
        static SESSIONS: AtomicU64 = AtomicU64::new(0);
        Self {
            id: SESSIONS.fetch_add(1, Ordering::Relaxed) + 1,
            ended: CancellationToken::new(),
            following: std::sync::atomic::AtomicBool::new(false),
        }
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        self.ended.cancel();
    }
}

/// How long `tools/list` waits for tool sources still starting, by default.
const STARTUP_WAIT: Duration = Duration::from_secs(10);

struct Inner {
    engine: Engine,
    scope: Scope,
    calls: AtomicU64,
    /// [`McpServer::set_startup_wait`], in milliseconds.
    startup_wait_ms: AtomicU64,
    /// Whether the first client to initialize can elicit (form mode).
    client_elicits: tokio::sync::watch::Sender<Option<bool>>,
}

impl std::fmt::Debug for McpServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpServer")
            .field("mode", &self.mode())
            .finish_non_exhaustive()
    }
}

impl McpServer {
    /// A server over `engine` presenting its tools in `mode`.
    pub fn new(engine: Engine, mode: Mode) -> Self {
        engine.registry().set_approver(ElicitingApprover);
        let scope = engine.registry().scope();
        scope.set_mode(Some(mode));
        Self {
            inner: Arc::new(Inner {
                engine,
                scope,
                calls: AtomicU64::new(0),
                startup_wait_ms: AtomicU64::new(STARTUP_WAIT.as_millis() as u64),
                client_elicits: tokio::sync::watch::Sender::new(None),
            }),
            session: Arc::default(),
        }
    }

    /// The same server for a new connection: its own [`Session`].
    pub(super) fn for_session(&self) -> Self {
        Self {
            inner: Arc::clone(&self.inner),
            session: Arc::default(),
        }
    }

    /// The first client is known, with what it declared at `initialize`:
    /// told by its `notifications/initialized`, or by its first request
    /// for a client that never sends one, so the servers waiting on it
    /// start either way.
    fn client_known(&self, peer: &rmcp::Peer<RoleServer>) {
        let elicits = peer
            .supported_elicitation_modes()
            .contains(&ElicitationMode::Form);
        self.inner.client_elicits.send_if_modified(|told| {
            let first = told.is_none();
            if first {
                *told = Some(elicits);
            }
            first
        });
    }

    /// Resolves when the first client has initialized (sent
    /// `notifications/initialized`, or a first request), with whether it can elicit (declared
    /// `elicitation` in form mode); `false` if the server goes first. For
    /// [`McpServers::start_for_client`](crate::McpServers::start_for_client)
    /// on stdio, where that client is the only one.
    pub fn client_elicits(&self) -> impl Future<Output = bool> + Send + 'static {
        let mut told = self.inner.client_elicits.subscribe();
        async move {
            told.wait_for(Option::is_some)
                .await
                .is_ok_and(|told| *told == Some(true))
        }
    }

    /// How long `tools/list`, and a direct call of a tool not listed yet,
    /// wait for tool sources (MCP servers) that are still starting, so a
    /// client that lists once or calls at once finds their tools. By
    /// default 10 s; zero answers at once. A sub-call of
    /// a run waits for its source within the run's deadline instead.
    pub fn set_startup_wait(&self, wait: Duration) {
        let ms = u64::try_from(wait.as_millis()).unwrap_or(u64::MAX);
        self.inner.startup_wait_ms.store(ms, Ordering::Relaxed);
    }

    /// Waits, at most the startup wait, until no tool source is starting
    /// (the one `name` would be a tool of, or with `None`, any), or the
    /// request is cancelled.
    async fn sources_started(&self, name: Option<&str>, cancel: &CancellationToken) {
        let wait = Duration::from_millis(self.inner.startup_wait_ms.load(Ordering::Relaxed));
        tokio::select! {
            () = self.engine().registry().started(name) => {}
            () = tokio::time::sleep(wait) => {}
            () = cancel.cancelled() => {}
        }
    }

    /// The engine behind this server.
    pub fn engine(&self) -> &Engine {
        &self.inner.engine
    }

    /// The presentation mode.
    pub fn mode(&self) -> Mode {
        self.inner.scope.mode()
    }

    /// Whether the model sees a tool of this name, and whether its result
    /// carries `structuredContent` (it advertised an output schema).
    fn lookup(&self, name: &str) -> Option<bool> {
        let presentation = self.engine().presentation(&self.inner.scope, None);
        presentation.tools.iter().find(|t| t.name == name)?;
        if name == RUN_CODE && self.mode().offers_run_code() {
            return Some(true);
        }
        let definition = self.inner.scope.registry().definition(name)?;
        Some(mapping::object_output(&definition).is_some())
    }
}

impl ServerHandler for McpServer {
    fn get_info(&self) -> ServerConfig {
        let capabilities = ServerCapabilities::builder()
            .enable_tools()
            .enable_tool_list_changed()
            .build();
        let mut info = ServerConfig::new(capabilities);
        info.server_info = Implementation::new("ptc", env!("CARGO_PKG_VERSION"));
        info
    }

    // A run that asks for approval needs the server-to-client requests of
    // the `initialize` era; 2026-07-28 replaces them with results that
    // end the request, which would end the run.
    fn supported_protocol_versions(&self) -> Cow<'static, [ProtocolVersion]> {
        Cow::Borrowed(ProtocolVersion::known_up_to(&ProtocolVersion::V_2025_11_25))
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        self.client_known(&context.peer);
        self.sources_started(None, &context.ct).await;
        let presentation = self.engine().presentation(&self.inner.scope, None);
        let definitions = self.inner.scope.definitions();
        Ok(ListToolsResult::with_all_items(mapping::mcp_tools(
            &presentation,
            &definitions,
        )))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        self.client_known(&context.peer);
        let name = request.name.to_string();
        if self.lookup(&name).is_none() && self.engine().registry().is_starting(Some(&name)) {
            self.sources_started(Some(&name), &context.ct).await;
        }
        // MCP answers a tool the server does not list with a protocol error,
        // saying why when its source is down.
        let Some(structured) = self.lookup(&name) else {
            let registry = self.engine().registry();
            let why = registry.absent_tool_error(&name);
            return Err(ErrorData::invalid_params(
                why.unwrap_or_else(|| format!("unknown tool `{}`", name.escape_debug())),
                None,
            ));
        };
        let arguments = Value::Object(request.arguments.unwrap_or_default());
        let id = format!(
            "mcp-{}",
            self.inner.calls.fetch_add(1, Ordering::Relaxed) + 1
        );
        let caller: CallerContext = Arc::new(McpCaller {
            peer: context.peer.clone(),
            session: self.session.id,
        });
        let (sink, latest) = progress::channel();
        if name != RUN_CODE || self.mode() == Mode::Native {
            latest.direct(&name);
        }
        let token = context.meta.get_progress_token();
        let mut options = RunOptions::default()
            .scope(self.inner.scope.clone())
            .cancel(context.ct.clone())
            .caller(caller);
        // Without a token nobody reads the events: the run makes none.
        if token.is_some() {
            options = options.events(sink);
        }
        let invocation = progress::forwarding(
            self.engine()
                .invoke(Call::new(id, name, arguments), options),
            latest,
            token,
            context.peer.clone(),
            progress::HEARTBEAT,
        )
        .await;
        Ok(mapping::call_result(&invocation, structured).into())
    }

    async fn on_initialized(&self, context: NotificationContext<RoleServer>) {
        self.client_known(&context.peer);
        if self.session.following.swap(true, Ordering::AcqRel) {
            return;
        }
        let mut changes = self.engine().registry().changes();
        changes.mark_unchanged();
        let peer = context.peer;
        let ended = self.session.ended.clone();
        // Ends with the connection, with the registry, or when a send fails.
        tokio::spawn(async move {
            loop {
                tokio::select! {
                    _ = ended.cancelled() => break,
                    changed = changes.changed() => {
                        if changed.is_err() || peer.notify_tool_list_changed().await.is_err() {
                            break;
                        }
                    }
                }
            }
        });
    }
}

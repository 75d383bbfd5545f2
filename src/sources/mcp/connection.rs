//! One connection to one server: a child process speaking MCP on stdio
//! (its stderr kept as a tail for messages) or a streamable HTTP endpoint,
//! `initialize`d by rmcp, with a client handler that hears
//! `notifications/tools/list_changed`, passes progress and log messages
//! to the calls they are about ([`Notes`]) and forwards elicitation
//! requests ([`Elicitations`]).

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError, Weak};
use std::time::Duration;

// Logging is deprecated in rmcp (SEP-2577, after 2025-11-25); servers of
// the `initialize` era still send it.
#[allow(deprecated)]
use rmcp::model::LoggingMessageNotificationParam;
use rmcp::model::{
    ClientCapabilities, ClientConfig, ElicitRequestParams, ElicitResult, ElicitationCapability,
    FormElicitationCapability, Implementation, NotificationMetaObject, ProgressNotificationParam,
    ProtocolVersion, RequestId,
};
use rmcp::service::{InboundStreamOrigin, NotificationContext, RequestContext, RunningService};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::{ClientHandler, ErrorData, RoleClient, ServiceExt};
use tokio::io::{AsyncRead, AsyncReadExt};
use tokio::sync::Notify;
use tokio_util::sync::CancellationToken;

use super::config::McpTransport;
use super::elicit::Elicitations;
use super::listing::Server;
use super::notes::Notes;
use crate::limits;
use crate::transport::child;
use crate::transport::http::{MeasuredHttp, RELATED_REQUEST, RawLists};
use crate::transport::lines::StrayLine;

/// How much of a server's stderr is kept for messages.
const STDERR_TAIL_BYTES: usize = 4 * 1024;
/// How many of its last lines a message shows.
const STDERR_TAIL_LINES: usize = 10;
/// How long a message about a dead server waits for the rest of its stderr.
const STDERR_SETTLE: Duration = Duration::from_millis(500);

/// A running client session with one server.
pub(super) type Session = RunningService<RoleClient, ClientSide>;

/// What one process printed beside the protocol: the end of its stderr,
/// read as it comes so the process never blocks on it, and the first line
/// of its stdout that was not a message.
#[derive(Default)]
pub(super) struct ServerOutput {
    bytes: Mutex<(Vec<u8>, bool)>,
    closed: std::sync::atomic::AtomicBool,
    done: Notify,
    stray: Arc<StrayLine>,
    /// Whose calls the process has served: what it printed may be about
    /// any of them.
    served: Mutex<Served>,
    /// Whether what it printed went to ptc's log instead of a call's error.
    pub(super) logged: std::sync::atomic::AtomicBool,
}

/// Who a call is for: the MCP session it came in (`ptc mcp`), or `None`
/// for a host that is not an MCP client (`ptc run`, `ptc serve`, a Rust
/// host), whose calls are all its own.
pub(super) type Audience = Option<u64>;

/// Whose calls a process has served.
#[derive(Default, Clone, Copy, PartialEq, Eq)]
enum Served {
    #[default]
    Nobody,
    Only(Audience),
    Several,
}

impl ServerOutput {
    fn follow(self: &Arc<Self>, mut stderr: impl AsyncRead + Unpin + Send + 'static) {
        let tail = Arc::clone(self);
        tokio::spawn(async move {
            let mut chunk = [0u8; 4096];
            while let Ok(n @ 1..) = stderr.read(&mut chunk).await {
                let mut kept = tail.bytes.lock().unwrap_or_else(PoisonError::into_inner);
                kept.0.extend_from_slice(&chunk[..n]);
                if kept.0.len() > STDERR_TAIL_BYTES {
                    let excess = kept.0.len() - STDERR_TAIL_BYTES;
                    kept.0.drain(..excess);
                    kept.1 = true;
                }
            }
            tail.closed
                .store(true, std::sync::atomic::Ordering::Release);
            tail.done.notify_waiters();
        });
    }

    /// Waits (briefly) until the process closed its stderr: a dead server's
    /// last words arrive after its pipe broke.
    pub(super) async fn settle(&self) {
        let done = self.done.notified();
        tokio::pin!(done);
        done.as_mut().enable();
        if !self.closed.load(std::sync::atomic::Ordering::Acquire) {
            let _ = tokio::time::timeout(STDERR_SETTLE, done).await;
        }
    }

    /// Notes that the process serves a call of `audience`'s.
    pub(super) fn serves(&self, audience: Audience) {
        let mut served = self.served.lock().unwrap_or_else(PoisonError::into_inner);
        *served = match *served {
            Served::Nobody => Served::Only(audience),
            Served::Only(only) if only == audience => Served::Only(audience),
            _ => Served::Several,
        };
    }

    /// Whether what the process printed may be told to a call of
    /// `audience`'s: it served no call of another's.
    pub(super) fn may_tell(&self, audience: Audience) -> bool {
        match *self.served.lock().unwrap_or_else(PoisonError::into_inner) {
            Served::Nobody => true,
            Served::Only(only) => only == audience,
            Served::Several => false,
        }
    }

    /// `; its first line on stdout was not a message: "…"` when it printed
    /// one, then `; its stderr:\n<last lines>` when it wrote any.
    pub(super) fn describe(&self) -> String {
        let stray = match self.stray.get() {
            Some(line) => format!("; its first line on stdout was not an MCP message: {line}"),
            None => String::new(),
        };
        stray + &self.describe_stderr()
    }

    fn describe_stderr(&self) -> String {
        let (bytes, dropped) = &*self.bytes.lock().unwrap_or_else(PoisonError::into_inner);
        let text = String::from_utf8_lossy(bytes);
        let lines: Vec<&str> = text.trim_end().lines().collect();
        let keep = lines.len().min(STDERR_TAIL_LINES);
        let shown = lines[lines.len() - keep..].join("\n");
        if shown.trim().is_empty() {
            String::new()
        } else if *dropped || keep < lines.len() {
            format!("; end of its stderr:\n…\n{shown}")
        } else {
            format!("; its stderr:\n{shown}")
        }
    }
}

/// ptc's side of a session: it says who it is, re-lists the server's
/// tools when they change, and hands what the server says during calls to
/// them.
pub(super) struct ClientSide {
    server: Weak<Server>,
    pub(super) notes: Arc<Notes>,
    /// Over HTTP, the answers to `tools/list` as the server sent them (and
    /// its log lines name the request whose stream they came on).
    pub(super) raw_lists: Option<Arc<RawLists>>,
    /// The server's name in the config, for the user to read.
    name: String,
    /// Whether ptc declared `elicitation` (its own client can elicit):
    /// then the server's requests are forwarded to it.
    elicits: bool,
    pub(super) elicitations: Arc<Elicitations>,
}

impl ClientHandler for ClientSide {
    fn get_info(&self) -> ClientConfig {
        // The `initialize` handshake, whose servers send list_changed
        // notifications as they are (later versions need a subscription).
        let mut capabilities = ClientCapabilities::default();
        if self.elicits {
            let mut elicitation = ElicitationCapability::default();
            elicitation.form = Some(FormElicitationCapability::default());
            capabilities.elicitation = Some(elicitation);
        }
        ClientConfig::new(
            capabilities,
            Implementation::new("ptc", env!("CARGO_PKG_VERSION")),
        )
        .with_protocol_version(ProtocolVersion::LATEST_WITH_INITIALIZE)
    }

    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        if !self.elicits {
            return Err(ErrorData::invalid_request(
                "ptc did not declare elicitation: its client cannot elicit",
                None,
            ));
        }
        self.notes.settled().await;
        // Over HTTP, rmcp notes the request whose response stream it came on.
        let related = match context.extensions.get::<InboundStreamOrigin>() {
            Some(InboundStreamOrigin::OutboundRequest(request)) => Some(request.clone()),
            _ => None,
        };
        self.elicitations
            .forward(&self.name, request, related.as_ref())
            .await
    }

    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        if let Some(server) = self.server.upgrade() {
            // Not inline: re-listing is a request, answered by the loop
            // that delivers this notification.
            tokio::spawn(async move { server.refresh().await });
        }
    }

    async fn on_progress(
        &self,
        params: ProgressNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        self.notes.settled().await;
        self.notes.progress(&params);
    }

    #[allow(deprecated)]
    async fn on_logging_message(
        &self,
        params: LoggingMessageNotificationParam,
        context: NotificationContext<RoleClient>,
    ) {
        // Only ptc's HTTP client sets the member (over stdio a server could
        // write it itself, naming another's call). rmcp 3.11 hands a
        // notification's `_meta` over among the context's extensions (it
        // moves them out before it takes `meta` from them), so both are read.
        let related = self.raw_lists.as_ref().and_then(|_| {
            [
                Some(&context.meta),
                context.extensions.get::<NotificationMetaObject>(),
            ]
            .into_iter()
            .flatten()
            .find_map(|meta| meta.get(RELATED_REQUEST))
            .and_then(|id| serde_json::from_value::<RequestId>(id.clone()).ok())
        });
        self.notes.settled().await;
        self.notes.log(&params, related.as_ref());
    }
}

/// Spawns or connects, then `initialize`s (declaring `elicitation` when
/// `elicits`); what a child prints beside the protocol goes to `stderr`.
/// Cancelling `stop` ends the session (and shuts a child down).
pub(super) async fn start(
    server: &Arc<Server>,
    (name, elicits): (&str, bool),
    transport: &McpTransport,
    stop: CancellationToken,
    stderr: &Arc<ServerOutput>,
) -> Result<Session, String> {
    let mut client = ClientSide {
        server: Arc::downgrade(server),
        notes: Arc::default(),
        raw_lists: None,
        name: name.to_owned(),
        elicits,
        elicitations: Arc::default(),
    };
    let session = match transport {
        McpTransport::Stdio {
            command,
            args,
            env,
            cwd,
        } => {
            let mut cmd = tokio::process::Command::new(command);
            cmd.args(args).envs(env);
            if let Some(cwd) = cwd {
                cmd.current_dir(cwd);
            }
            let (process, pipe) = child::spawn(cmd, Arc::clone(&stderr.stray))
                .map_err(|e| format!("cannot start `{command}`: {e}"))?;
            if let Some(pipe) = pipe {
                stderr.follow(pipe);
            }
            client.serve_with_ct(process, stop).await
        }
        McpTransport::Http { url, headers } => {
            let config = StreamableHttpClientTransportConfig::with_uri(url.as_str())
                .custom_headers(header_map(headers)?);
            // Its messages measured before they are parsed, as a child's.
            let measured = MeasuredHttp::new(limits::ANSWER)?;
            client.raw_lists = Some(measured.raw_lists());
            let transport = StreamableHttpClientTransport::with_client(measured, config);
            client.serve_with_ct(transport, stop).await
        }
    };
    session.map_err(|e| format!("cannot initialize: {}", without_type_names(&e.to_string())))
}

/// rmcp's transport errors name the transport's Rust type
/// (`Transport [rmcp::transport::worker::WorkerTransport<…>] error: `):
/// noise in a message for people.
fn without_type_names(message: &str) -> String {
    static TYPE: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    let pattern = TYPE.get_or_init(|| {
        regex::Regex::new(r"Transport \[[^\]]*\] error: ").expect("a valid pattern")
    });
    pattern.replace_all(message, "").into_owned()
}

fn header_map(
    headers: &std::collections::BTreeMap<String, String>,
) -> Result<HashMap<http::HeaderName, http::HeaderValue>, String> {
    headers
        .iter()
        .map(|(name, value)| {
            let bad = |e: &dyn std::fmt::Display| format!("header `{name}`: {e}");
            Ok((
                http::HeaderName::try_from(name.as_str()).map_err(|e| bad(&e))?,
                http::HeaderValue::try_from(value.as_str()).map_err(|e| bad(&e))?,
            ))
        })
        .collect()
}

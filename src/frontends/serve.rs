//! The host protocol (`ptc serve`, see `host-protocol.md`): JSON-RPC 2.0, one
//! JSON object per line, the host owning the tools and ptc the sandbox.
//!
//! Shape: one reader loop handles the host's lines in order. Quick requests
//! (`initialize`, `tools/*` bookkeeping, `presentation`) are answered inline,
//! so a `tools/register` is in effect for every later line; `run_code` and
//! `tools/invoke` each get their own task. Everything ptc writes goes through
//! one unbounded queue to one writer task, so emitting never blocks a sandbox
//! and a run's `run/event` and `$/cancel` lines, queued while it runs, are
//! written before its response, queued after it ends.

use std::collections::HashMap;
use std::fmt::Display;
use std::io;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError, RwLock};

use serde::Serialize;
use serde_json::{Map, Value, json};
use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncWrite, AsyncWriteExt, BufWriter};
use tokio::sync::{mpsc, oneshot};
use tokio_util::sync::CancellationToken;

use crate::engine::events::RunEvent;
use crate::engine::{Engine, Invocation, RunOptions, RunRequest};
use crate::json::json_type;
use crate::limits::{Limits, SETTINGS};
use crate::tool::call::{Call, ContentBlock, ErrorCode, ToolContext, ToolError, ToolOutput};
use crate::tool::handler::{BoxFuture, Tool, ToolHandler};
use crate::tool::pipeline::{Approval, ApprovalRequest, Approver, Denial, EscalationRequest};
use crate::tool::registry::{Mode, RegistrationError, Registry};
use crate::tool::wire::{EntryError, Strictness, path_in_list, read_tool};

/// The protocol version `initialize` reports.
const PROTOCOL_VERSION: u32 = 1;

const PARSE_ERROR: i64 = -32700;
const INVALID_REQUEST: i64 = -32600;
const METHOD_NOT_FOUND: i64 = -32601;
const INVALID_PARAMS: i64 = -32602;

/// Where `tools/register` params keep their tools, for error paths.
const TOOL_LIST: &str = "$.tools";

/// Serves the host protocol on `input` (host → ptc) and `output` (ptc →
/// host) until `input` ends or the host stops reading.
///
/// The session starts with no tools, mode `ptc` and default [`Limits`];
/// `initialize` may change the limits and the mode. At end of input every
/// request still in flight is cancelled and answered (a run as `cancelled`),
/// then the output is flushed and shut down, and this returns `Ok(())`.
/// Runs on the current tokio runtime (each `run_code` and `tools/invoke`
/// is a task of its own).
///
/// # Errors
/// Reading `input` fails, or writing `output` fails (a host that exits
/// mid-session gives [`io::ErrorKind::BrokenPipe`]); requests in flight are
/// cancelled and awaited first.
pub async fn serve<R, W>(input: R, output: W) -> io::Result<()>
where
    R: AsyncBufRead + Unpin,
    W: AsyncWrite + Unpin + Send + 'static,
{
    let (queue, lines) = mpsc::unbounded_channel();
    let host_gone = CancellationToken::new();
    let backlog = Arc::new(AtomicUsize::new(0));
    let writer = tokio::spawn(write_lines(
        output,
        lines,
        Arc::clone(&backlog),
        host_gone.clone(),
    ));
    let outbox = Outbox { queue, backlog };
    let (alive, mut all_done) = mpsc::channel::<()>(1);
    let session = Session::new(outbox.clone(), alive);

    let mut input = input;
    let mut line = Vec::new();
    let read_result = loop {
        line.clear();
        let read = tokio::select! {
            biased;
            _ = host_gone.cancelled() => break Ok(()),
            read = input.read_until(b'\n', &mut line) => read,
        };
        match read {
            Ok(0) => break Ok(()),
            Ok(_) => session.handle_line(&line),
            Err(e) => break Err(e),
        }
    };

    // Wind down: cancel what is in flight and wait for its answers.
    let in_flight = Arc::clone(&session.in_flight);
    for token in lock(&in_flight).values() {
        token.cancel();
    }
    drop(session);
    while all_done.recv().await.is_some() {}
    outbox.close();
    let write_result = writer
        .await
        .unwrap_or_else(|e| Err(io::Error::other(format!("the writer task failed: {e}"))));
    read_result.and(write_result)
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

/// What the writer task receives.
enum Outgoing {
    Line(String),
    /// Flush, shut the output down and stop.
    Close,
}

/// Writes queued lines in order; flushes whenever the queue runs dry.
async fn write_lines<W: AsyncWrite + Unpin>(
    output: W,
    mut lines: mpsc::UnboundedReceiver<Outgoing>,
    backlog: Arc<AtomicUsize>,
    host_gone: CancellationToken,
) -> io::Result<()> {
    let mut out = BufWriter::new(output);
    let result = async {
        while let Some(message) = lines.recv().await {
            match message {
                Outgoing::Line(line) => {
                    out.write_all(line.as_bytes()).await?;
                    out.write_all(b"\n").await?;
                    backlog.fetch_sub(line.len(), Ordering::AcqRel);
                    if lines.is_empty() {
                        out.flush().await?;
                    }
                }
                Outgoing::Close => break,
            }
        }
        out.flush().await?;
        out.shutdown().await
    }
    .await;
    if result.is_err() {
        host_gone.cancel();
    }
    result
}

/// The sending side of the writer's queue. Sending never blocks; after the
/// writer stopped, lines are dropped.
#[derive(Clone)]
struct Outbox {
    queue: mpsc::UnboundedSender<Outgoing>,
    /// Bytes queued and not yet written.
    backlog: Arc<AtomicUsize>,
}

/// How far behind a host may fall in reading before `run/event` lines are
/// dropped (and counted in the run's response): events are what a host
/// that does not read would otherwise pile up without bound. Responses and
/// requests are never dropped; each is bounded by what a run may hold.
const EVENT_BACKLOG: usize = 16 << 20;

#[derive(Serialize)]
struct Notification<'a, P: Serialize> {
    jsonrpc: &'static str,
    method: &'a str,
    params: P,
}

impl Outbox {
    fn send(&self, message: &impl Serialize) {
        if let Ok(line) = serde_json::to_string(message) {
            self.queue_line(line);
        }
    }

    fn queue_line(&self, line: String) {
        self.backlog.fetch_add(line.len(), Ordering::AcqRel);
        if let Err(mpsc::error::SendError(Outgoing::Line(line))) =
            self.queue.send(Outgoing::Line(line))
        {
            self.backlog.fetch_sub(line.len(), Ordering::AcqRel);
        }
    }

    /// Queues a `run/event` unless the host is too far behind; `false` if
    /// it was dropped.
    fn event(&self, event: &RunEvent) -> bool {
        if self.backlog.load(Ordering::Acquire) > EVENT_BACKLOG {
            return false;
        }
        self.notify("run/event", event);
        true
    }

    fn notify(&self, method: &str, params: impl Serialize) {
        self.send(&Notification {
            jsonrpc: "2.0",
            method,
            params,
        });
    }

    fn respond(&self, id: &Value, result: Value) {
        self.send(&json!({ "jsonrpc": "2.0", "id": id, "result": result }));
    }

    fn fail(&self, id: &Value, error: RpcError) {
        let mut body = json!({ "code": error.code, "message": error.message });
        if let Some(data) = error.data {
            body["data"] = data;
        }
        self.send(&json!({ "jsonrpc": "2.0", "id": id, "error": body }));
    }

    fn close(&self) {
        let _ = self.queue.send(Outgoing::Close);
    }
}

/// A JSON-RPC error, either side.
#[derive(Debug, Clone)]
struct RpcError {
    code: i64,
    message: String,
    data: Option<Value>,
}

impl RpcError {
    fn new(code: i64, message: impl Display) -> Self {
        Self {
            code,
            message: message.to_string(),
            data: None,
        }
    }

    fn params(message: impl Display) -> Self {
        Self::new(INVALID_PARAMS, message)
    }

    fn with_data(mut self, data: Value) -> Self {
        self.data = Some(data);
        self
    }

    /// The `error` member of a response from the host.
    fn from_host(error: Value) -> Self {
        let code = error.get("code").and_then(Value::as_i64).unwrap_or(0);
        let message = match error.get("message").and_then(Value::as_str) {
            Some(message) => message.to_owned(),
            None => format!("the host answered with a malformed error: {error}"),
        };
        Self {
            code,
            message,
            data: error.get("data").cloned(),
        }
    }
}

/// ptc's requests to the host and their pending answers.
struct Peer {
    outbox: Outbox,
    next_id: AtomicU64,
    pending: Mutex<HashMap<u64, oneshot::Sender<Result<Value, RpcError>>>>,
}

impl Peer {
    /// Sends a request; the answer arrives through the returned handle.
    fn request(self: &Arc<Self>, method: &str, params: Value) -> PendingRequest {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed) + 1;
        let (answer, answered) = oneshot::channel();
        lock(&self.pending).insert(id, answer);
        self.outbox.send(&json!({
            "jsonrpc": "2.0",
            "id": id,
            "method": method,
            "params": params,
        }));
        PendingRequest {
            peer: Arc::clone(self),
            id,
            answered,
        }
    }

    /// Routes a response from the host; unknown ids are ignored.
    fn answer(&self, id: &Value, reply: Result<Value, RpcError>) {
        let Some(id) = id.as_u64() else { return };
        if let Some(waiting) = lock(&self.pending).remove(&id) {
            let _ = waiting.send(reply);
        }
    }
}

/// A request to the host awaiting its answer. Dropped unanswered (ptc stopped
/// waiting), it forgets the request and sends `$/cancel` — synchronously, so
/// the notification is queued before whatever ends the wait is.
struct PendingRequest {
    peer: Arc<Peer>,
    id: u64,
    answered: oneshot::Receiver<Result<Value, RpcError>>,
}

impl PendingRequest {
    async fn answer(&mut self) -> Result<Value, RpcError> {
        (&mut self.answered)
            .await
            .unwrap_or_else(|_| Err(RpcError::new(0, "the session ended")))
    }
}

impl Drop for PendingRequest {
    fn drop(&mut self) {
        if lock(&self.peer.pending).remove(&self.id).is_some() {
            self.peer
                .outbox
                .notify("$/cancel", json!({ "id": self.id }));
        }
    }
}

/// The params shared by `tools/call` and `tools/approve`.
fn call_params(cx: &ToolContext, name: &str, arguments: Value) -> Value {
    let mut params = Map::new();
    if let Some(run_id) = cx.run_id() {
        params.insert("runId".into(), run_id.into());
    }
    params.insert("id".into(), cx.call_id().into());
    params.insert("name".into(), name.into());
    params.insert("arguments".into(), arguments);
    Value::Object(params)
}

/// The handler of a host-registered tool: a `tools/call` request to the host.
struct HostTool {
    name: String,
    peer: Arc<Peer>,
}

impl ToolHandler for HostTool {
    fn call(&self, arguments: Value, cx: ToolContext) -> BoxFuture<Result<ToolOutput, ToolError>> {
        let name = self.name.clone();
        let peer = Arc::clone(&self.peer);
        Box::pin(async move {
            let mut pending = peer.request("tools/call", call_params(&cx, &name, arguments));
            let reply = tokio::select! {
                biased;
                _ = cx.cancellation().cancelled() => {
                    drop(pending);
                    return Err(ToolError::new(
                        ErrorCode::Aborted,
                        format!("call to `{name}` was cancelled"),
                    ));
                }
                reply = pending.answer() => reply,
            };
            tool_result(&name, reply)
        })
    }
}

/// The host's answer to `tools/call` as a result.
fn tool_result(name: &str, reply: Result<Value, RpcError>) -> Result<ToolOutput, ToolError> {
    let result = match reply {
        Ok(result) => result,
        Err(error) => {
            let data = error.data.as_ref();
            let code = data
                .and_then(|d| d.get("code"))
                .and_then(Value::as_str)
                .and_then(ErrorCode::parse)
                .unwrap_or(ErrorCode::ToolError);
            let mut failure = ToolError::new(code, error.message);
            if let Some(detail) = data.and_then(|d| d.get("detail")).and_then(Value::as_str) {
                failure = failure.with_detail(detail);
            }
            return Err(failure);
        }
    };
    let malformed = |what: String| {
        ToolError::tool(format!(
            "the host's answer to the call of `{name}` is malformed: {what}"
        ))
    };
    let Value::Object(mut result) = result else {
        return Err(malformed(format!(
            "expected an object `{{ value, content? }}`, got {}",
            json_type(&result)
        )));
    };
    let Some(value) = result.remove("value") else {
        return Err(malformed("it has no `value`".to_owned()));
    };
    let mut output = ToolOutput::new(value);
    match result.remove("content") {
        None | Some(Value::Null) => {}
        Some(content) => {
            output.content = serde_json::from_value::<Vec<ContentBlock>>(content)
                .map_err(|e| malformed(format!("`content`: {e}")))?;
        }
    }
    for (index, block) in output.content.iter().enumerate() {
        if let Err(what) = check_image(block) {
            return Err(malformed(format!("`content[{index}]`: {what}")));
        }
    }
    Ok(output)
}

/// An image block must be what it says: an `image/…` type and base64
/// data, so a model or an MCP client never receives garbage as a picture.
fn check_image(block: &ContentBlock) -> Result<(), String> {
    use base64::Engine as _;
    let ContentBlock::Image { data, mime_type } = block else {
        return Ok(());
    };
    let subtype = mime_type.strip_prefix("image/").unwrap_or_default();
    if subtype.is_empty() || !subtype.bytes().all(|b| b.is_ascii_graphic() && b != b';') {
        return Err(format!(
            "`mimeType` must be an image type such as image/png, got {mime_type:?}"
        ));
    }
    base64::engine::general_purpose::STANDARD
        .decode(data)
        .map(drop)
        .map_err(|e| format!("`data` is not base64: {e}"))
}

/// Answers `ask` decisions with a `tools/approve` request to the host.
struct HostApprover {
    peer: Arc<Peer>,
}

impl Approver for HostApprover {
    fn approve(&self, request: ApprovalRequest) -> BoxFuture<Approval> {
        let peer = Arc::clone(&self.peer);
        Box::pin(async move {
            let ApprovalRequest {
                call,
                context,
                title,
                ..
            } = request;
            let name = call.name;
            let mut params = call_params(&context, &name, call.arguments);
            params["title"] = title.into();
            params["kind"] = json!("call");
            let refusal = format!("the host refused the call to `{name}`");
            ask_host(&peer, params, &context, &format!("`{name}`"), refusal).await
        })
    }

    fn escalate(&self, request: EscalationRequest) -> BoxFuture<Approval> {
        let peer = Arc::clone(&self.peer);
        Box::pin(async move {
            let params = json!({
                "runId": request.run_id,
                "kind": "escalation",
                "code": request.code,
                "description": request.description,
                "justification": request.justification,
                "grant": {
                    "tools": request.tools,
                    "timeoutMs": request.timeout_ms,
                    "memoryLimitBytes": request.memory_limit_bytes,
                    "outputCapBytes": request.output_cap_bytes,
                },
            });
            let refusal = "the host refused the escalation".to_owned();
            ask_host(&peer, params, &request.context, "the escalation", refusal).await
        })
    }
}

/// Sends `tools/approve` and reads the host's answer about `what` (`` `x` ``
/// or `the escalation`); anything but `approved: true` refuses, by default
/// with `refusal`.
async fn ask_host(
    peer: &Arc<Peer>,
    params: Value,
    context: &ToolContext,
    what: &str,
    refusal: String,
) -> Approval {
    let refused = |reason: String| Approval::Refused(Denial::new(reason));
    let mut pending = peer.request("tools/approve", params);
    let reply = tokio::select! {
        biased;
        _ = context.cancellation().cancelled() => {
            drop(pending);
            return refused(format!("the approval of {what} was abandoned"));
        }
        reply = pending.answer() => reply,
    };
    match reply {
        Ok(answer) => match answer.get("approved").and_then(Value::as_bool) {
            Some(true) => Approval::Approved,
            Some(false) => refused(
                answer
                    .get("reason")
                    .and_then(Value::as_str)
                    .map_or(refusal, str::to_owned),
            ),
            None => refused(format!(
                "the host's answer to the approval of {what} has no boolean `approved`"
            )),
        },
        Err(error) => refused(format!("the approval of {what} failed: {}", error.message)),
    }
}

/// A message's top-level members, each skipped over as text (serde skips
/// without recursing), for a line that cannot be read whole.
#[derive(serde::Deserialize)]
struct Envelope<'a> {
    #[serde(borrow, default)]
    id: Option<&'a serde_json::value::RawValue>,
    #[serde(borrow, default)]
    method: Option<&'a serde_json::value::RawValue>,
    #[serde(borrow, default)]
    result: Option<&'a serde_json::value::RawValue>,
    #[serde(borrow, default)]
    error: Option<&'a serde_json::value::RawValue>,
}

impl Envelope<'_> {
    fn answers(&self) -> bool {
        self.result.is_some() || self.error.is_some()
    }
}

/// Cancellation tokens of the host's requests in flight, by request id.
type InFlight = Arc<Mutex<HashMap<String, CancellationToken>>>;

/// One protocol session.
struct Session {
    outbox: Outbox,
    peer: Arc<Peer>,
    registry: Registry,
    engine: RwLock<Engine>,
    in_flight: InFlight,
    invocations: Arc<AtomicU64>,
    /// Cloned into every request task; serve waits until all are dropped.
    alive: mpsc::Sender<()>,
}

impl Session {
    fn new(outbox: Outbox, alive: mpsc::Sender<()>) -> Self {
        let peer = Arc::new(Peer {
            outbox: outbox.clone(),
            next_id: AtomicU64::new(0),
            pending: Mutex::new(HashMap::new()),
        });
        let registry = Registry::new();
        registry.set_approver(HostApprover {
            peer: Arc::clone(&peer),
        });
        let engine =
            Engine::new(registry.clone(), Limits::default()).expect("the default limits are valid");
        Self {
            outbox,
            peer,
            registry,
            engine: RwLock::new(engine),
            in_flight: Arc::default(),
            invocations: Arc::default(),
            alive,
        }
    }

    fn engine(&self) -> Engine {
        self.engine
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// Handles one line from the host.
    fn handle_line(&self, line: &[u8]) {
        let Ok(text) = std::str::from_utf8(line) else {
            return self.outbox.fail(
                &Value::Null,
                RpcError::new(PARSE_ERROR, "parse error: the line is not valid UTF-8"),
            );
        };
        let text = text.trim();
        if text.is_empty() {
            return;
        }
        let message: Value = match serde_json::from_str(text) {
            Ok(message) => message,
            Err(e) => return self.unreadable(text, &e),
        };
        match envelope(message) {
            Ok((id, message)) => self.route(id, message),
            Err(error) => self.outbox.fail(&Value::Null, error),
        }
    }

    /// A JSON-RPC message by its members: a request, a notification, or an
    /// answer to one of ptc's own requests.
    fn route(&self, id: Option<Value>, mut message: Map<String, Value>) {
        let invalid = |message: String| {
            if let Some(id) = &id {
                self.outbox.fail(
                    id,
                    RpcError::new(INVALID_REQUEST, format!("invalid request: {message}")),
                );
            }
        };
        if let Some(version) = message.get("jsonrpc")
            && version != "2.0"
        {
            return invalid(format!("`jsonrpc` must be \"2.0\", got {version}"));
        }
        match message.remove("method") {
            Some(Value::String(method)) => {
                let params = message.remove("params").unwrap_or(Value::Null);
                match id {
                    Some(id) => self.request(id, &method, params),
                    None => self.notification(&method, params),
                }
            }
            Some(other) => invalid(format!(
                "`method` must be a string, got {}",
                json_type(&other)
            )),
            None => self.answered(id, message.remove("result"), message.remove("error")),
        }
    }

    /// A message without `method`: the host's answer to a request of ptc's.
    fn answered(&self, id: Option<Value>, result: Option<Value>, error: Option<Value>) {
        match (id, result, error) {
            (Some(id), Some(result), None) => self.peer.answer(&id, Ok(result)),
            (Some(id), None, Some(error)) => self.peer.answer(&id, Err(RpcError::from_host(error))),
            (Some(id), Some(_), Some(_)) => self.peer.answer(
                &id,
                Err(RpcError::new(
                    0,
                    "the host answered with both `result` and `error`",
                )),
            ),
            (id, _, _) => self.outbox.fail(
                &id.unwrap_or(Value::Null),
                RpcError::new(
                    INVALID_REQUEST,
                    "invalid request: neither a request or notification (`method`) nor a response (`id` with `result` or `error`)",
                ),
            ),
        }
    }

    /// Notifications from the host: `$/cancel`; others are ignored.
    /// A line that is JSON in shape but not as a whole (nested deeper than
    /// serde reads, a lone surrogate escape, …) still gets an answer under
    /// its id, and an answer to ptc's own request still settles that
    /// request: a sub-call fails at once instead of waiting for its deadline.
    fn unreadable(&self, text: &str, error: &serde_json::Error) {
        let problem = format!("parse error: {error}");
        let envelope = serde_json::from_str::<Envelope>(text).ok();
        let id = envelope
            .as_ref()
            .and_then(|e| e.id)
            .and_then(|raw| serde_json::from_str::<Value>(raw.get()).ok())
            .filter(|id| matches!(id, Value::String(_) | Value::Number(_)));
        match (envelope, id) {
            (Some(envelope), Some(id)) if envelope.method.is_none() && envelope.answers() => {
                let why = format!("the host's answer could not be read: {error}");
                self.peer.answer(&id, Err(RpcError::new(PARSE_ERROR, why)));
            }
            (Some(_), Some(id)) => self.outbox.fail(&id, RpcError::new(PARSE_ERROR, problem)),
            _ => self
                .outbox
                .fail(&Value::Null, RpcError::new(PARSE_ERROR, problem)),
        }
    }

    fn notification(&self, method: &str, params: Value) {
        if method == "$/cancel"
            && let Some(id) = params.get("id")
            && let Some(token) = lock(&self.in_flight).get(&id.to_string())
        {
            token.cancel();
        }
    }

    fn request(&self, id: Value, method: &str, params: Value) {
        let params = match params {
            Value::Object(params) => Params::new(method, params),
            Value::Null => Params::new(method, Map::new()),
            other => {
                return self.outbox.fail(
                    &id,
                    RpcError::params(format!(
                        "invalid params for `{method}`: params must be an object, got {}",
                        json_type(&other)
                    )),
                );
            }
        };
        let answer = match method {
            "initialize" => self.initialize(params),
            "tools/register" => self.register(params),
            "tools/remove" => self.remove(params),
            "tools/list" => self.list(params),
            "presentation" => self.presentation(params),
            "run_code" => return self.run_code(id, params),
            "tools/invoke" => return self.invoke(id, params),
            _ => Err(RpcError::new(
                METHOD_NOT_FOUND,
                format!("method not found: `{method}`"),
            )),
        };
        match answer {
            Ok(result) => self.outbox.respond(&id, result),
            Err(error) => self.outbox.fail(&id, error),
        }
    }

    fn initialize(&self, mut params: Params) -> Result<Value, RpcError> {
        let config = params.optional_object("config")?;
        params.optional_u64("protocolVersion")?;
        params.reject_unknown()?;
        let mut config = Params::new("initialize", config.unwrap_or_default()).within("config");
        let mut limits = Limits::default();
        let mode = config.optional_mode("mode")?.unwrap_or_default();
        for setting in &SETTINGS {
            if let Some(value) = config.optional_u64(setting.name)? {
                setting.set(&mut limits, value);
            }
        }
        config.reject_unknown()?;
        let engine = Engine::new(self.registry.clone(), limits).map_err(|e| {
            RpcError::params(format!("invalid params for `initialize`: config: {e}"))
        })?;
        self.registry.set_mode(mode);
        *self.engine.write().unwrap_or_else(PoisonError::into_inner) = engine;
        Ok(json!({
            "name": "ptc",
            "version": env!("CARGO_PKG_VERSION"),
            "protocolVersion": PROTOCOL_VERSION,
        }))
    }

    fn register(&self, mut params: Params) -> Result<Value, RpcError> {
        let entries = params.required_array("tools")?;
        params.reject_unknown()?;
        let mut tools = Vec::with_capacity(entries.len());
        let mut names = indexmap::IndexSet::new();
        for (index, entry) in entries.into_iter().enumerate() {
            let definition = read_tool(index, entry, Strictness::Contract)
                .map_err(entry_error)?
                .definition;
            names.insert(definition.name.clone());
            let handler = HostTool {
                name: definition.name.clone(),
                peer: Arc::clone(&self.peer),
            };
            tools.push(Tool::new(definition, handler));
        }
        let warnings = self
            .registry
            .add_located(tools)
            .map_err(|(index, error)| registration_error(index, &error))?;
        let mut result = json!({ "registered": names, "count": self.registry.count() });
        if !warnings.is_empty() {
            result["warnings"] = json!(warnings);
        }
        Ok(result)
    }

    fn remove(&self, mut params: Params) -> Result<Value, RpcError> {
        let names = params.required_strings("names")?;
        params.reject_unknown()?;
        let removed = self.registry.remove_all(names.iter().map(String::as_str));
        Ok(json!({ "removed": removed }))
    }

    fn list(&self, params: Params) -> Result<Value, RpcError> {
        params.reject_unknown()?;
        Ok(json!({ "tools": self.registry.definitions() }))
    }

    fn presentation(&self, mut params: Params) -> Result<Value, RpcError> {
        let mode = params.optional_mode("mode")?;
        params.reject_unknown()?;
        let engine = self.engine();
        let presentation = engine.presentation(&self.registry.scope(), mode);
        Ok(serde_json::to_value(presentation).expect("a presentation serializes as JSON"))
    }

    /// Registers a cancellable request in flight; `None` (after answering)
    /// when its id is already in use by one.
    fn start(&self, id: &Value) -> Option<(String, CancellationToken)> {
        let key = id.to_string();
        let token = CancellationToken::new();
        let mut in_flight = lock(&self.in_flight);
        if in_flight.contains_key(&key) {
            drop(in_flight);
            self.outbox.fail(
                id,
                RpcError::new(
                    INVALID_REQUEST,
                    format!("invalid request: id {id} is already used by a request in flight"),
                ),
            );
            return None;
        }
        in_flight.insert(key.clone(), token.clone());
        Some((key, token))
    }

    /// An event sink writing `run/event` notifications, and the count of
    /// those it had to drop (see [`EVENT_BACKLOG`]).
    fn events(
        &self,
    ) -> (
        impl Fn(RunEvent) + Send + Sync + 'static + use<>,
        Arc<AtomicUsize>,
    ) {
        let outbox = self.outbox.clone();
        let dropped = Arc::new(AtomicUsize::new(0));
        let counter = Arc::clone(&dropped);
        let sink = move |event: RunEvent| {
            if !outbox.event(&event) {
                counter.fetch_add(1, Ordering::Relaxed);
            }
        };
        (sink, dropped)
    }

    fn run_code(&self, id: Value, mut params: Params) {
        let request = match RunRequest::from_host(params.take_all()) {
            Ok(request) => request,
            Err(what) => return self.outbox.fail(&id, params.invalid(what)),
        };
        let Some((key, cancel)) = self.start(&id) else {
            return;
        };
        let engine = self.engine();
        let (sink, dropped) = self.events();
        let options = RunOptions::default().events(sink).cancel(cancel);
        let (outbox, in_flight, alive) = (
            self.outbox.clone(),
            Arc::clone(&self.in_flight),
            self.alive.clone(),
        );
        tokio::spawn(async move {
            let _alive = alive;
            let result = engine.run_code(request, options).await;
            lock(&in_flight).remove(&key);
            match result {
                Ok(outcome) => outbox.respond(&id, with_dropped(outcome_json(&outcome), &dropped)),
                Err(error) => outbox.fail(
                    &id,
                    RpcError::params(format!("invalid params for `run_code`: {error}")),
                ),
            }
        });
    }

    fn invoke(&self, id: Value, mut params: Params) {
        let parsed = (|| {
            let name = params.required_string("name")?;
            let arguments = params.take("arguments").unwrap_or_else(|| json!({}));
            let call_id = params.optional_string("id")?;
            params.reject_unknown()?;
            Ok::<_, RpcError>((name, arguments, call_id))
        })();
        let (name, arguments, call_id) = match parsed {
            Ok(parsed) => parsed,
            Err(error) => return self.outbox.fail(&id, error),
        };
        let call_id = call_id.unwrap_or_else(|| {
            format!(
                "invoke-{}",
                self.invocations.fetch_add(1, Ordering::Relaxed) + 1
            )
        });
        let Some((key, cancel)) = self.start(&id) else {
            return;
        };
        let engine = self.engine();
        let (sink, dropped) = self.events();
        let options = RunOptions::default().events(sink).cancel(cancel);
        let (outbox, in_flight, alive) = (
            self.outbox.clone(),
            Arc::clone(&self.in_flight),
            self.alive.clone(),
        );
        tokio::spawn(async move {
            let _alive = alive;
            let invocation = engine
                .invoke(Call::new(call_id, name, arguments), options)
                .await;
            lock(&in_flight).remove(&key);
            outbox.respond(&id, with_dropped(invocation_json(&invocation), &dropped));
        });
    }
}

/// A response, with `droppedEvents` when the run's events did not all fit.
/// A line's message as a JSON-RPC object and its `id` (taken out), or the
/// error to answer it with (under a null id: its own id is not usable).
fn envelope(message: Value) -> Result<(Option<Value>, Map<String, Value>), RpcError> {
    let Value::Object(mut message) = message else {
        return Err(RpcError::new(
            INVALID_REQUEST,
            format!(
                "invalid request: expected one JSON-RPC object per line, got {}",
                json_type(&message)
            ),
        ));
    };
    let id = message.remove("id");
    if let Some(id) = &id
        && !matches!(id, Value::String(_) | Value::Number(_) | Value::Null)
    {
        return Err(RpcError::new(
            INVALID_REQUEST,
            format!(
                "invalid request: `id` must be a string, a number or null, got {}",
                json_type(id)
            ),
        ));
    }
    Ok((id, message))
}

/// An outcome as the `run_code` result (the serialized [`Outcome`]).
fn outcome_json(outcome: &crate::engine::Outcome) -> Value {
    serde_json::to_value(outcome).expect("an outcome serializes as JSON")
}

fn with_dropped(mut result: Value, dropped: &AtomicUsize) -> Value {
    let dropped = dropped.load(Ordering::Relaxed);
    if dropped > 0 {
        result["droppedEvents"] = json!(dropped);
    }
    result
}

/// The `tools/invoke` result.
fn invocation_json(invocation: &Invocation) -> Value {
    match invocation {
        Invocation::Run(outcome) => outcome_json(outcome),
        Invocation::Tool(Ok(output)) => json!({
            "isError": false,
            "content": invocation.content(),
            "value": output.value,
        }),
        Invocation::Tool(Err(error)) => json!({
            "isError": true,
            "content": invocation.content(),
            "error": error,
        }),
    }
}

/// A `tools/register` entry that could not be read, located in the request.
fn entry_error(error: EntryError) -> RpcError {
    let path = error.path_in(TOOL_LIST);
    let tool = error
        .name
        .as_deref()
        .map(|n| format!("tool `{n}`: "))
        .unwrap_or_default();
    let mut data = json!({ "path": path });
    if let Some(name) = error.name {
        data["tool"] = json!(name);
    }
    RpcError::params(format!(
        "invalid params for `tools/register`: {tool}{path}: {}",
        error.problem
    ))
    .with_data(data)
}

/// A registration failure of the tool at `$.tools[index]`.
fn registration_error(index: usize, error: &RegistrationError) -> RpcError {
    let at = |path: &str| path_in_list(TOOL_LIST, index, path);
    let (tool, path, message) = match error {
        RegistrationError::InvalidName { name } | RegistrationError::ReservedName { name, .. } => {
            (name.clone(), at("$.name"), error.to_string())
        }
        RegistrationError::NonObjectParameters { tool, path, reason } => (
            tool.clone(),
            at(path),
            format!("parameters must be an object schema ({reason})"),
        ),
        RegistrationError::InvalidSchema { tool, path, reason }
        | RegistrationError::InvalidTitle { tool, path, reason } => {
            (tool.clone(), at(path), reason.clone())
        }
    };
    RpcError::params(format!(
        "invalid params for `tools/register`: tool `{tool}`: {path}: {message}"
    ))
    .with_data(json!({ "tool": tool, "path": path }))
}

/// A request's params, taken member by member so each mistake is named.
struct Params {
    method: String,
    /// Where the members live, for messages: empty, or `config.` and so on.
    prefix: String,
    members: Map<String, Value>,
}

impl Params {
    fn new(method: &str, members: Map<String, Value>) -> Self {
        Self {
            method: method.to_owned(),
            prefix: String::new(),
            members,
        }
    }

    fn within(mut self, member: &str) -> Self {
        self.prefix = format!("{member}.");
        self
    }

    /// Every member, for a reader of its own (which names the member in
    /// what it says is wrong).
    fn take_all(&mut self) -> Map<String, Value> {
        std::mem::take(&mut self.members)
    }

    /// These params are wrong: `what` names the member.
    fn invalid(&self, what: impl Display) -> RpcError {
        RpcError::params(format!("invalid params for `{}`: {what}", self.method))
    }

    fn error(&self, key: &str, what: impl Display) -> RpcError {
        RpcError::params(format!(
            "invalid params for `{}`: `{}{key}` {what}",
            self.method, self.prefix
        ))
    }

    /// A member; `null` counts as absent.
    fn take(&mut self, key: &str) -> Option<Value> {
        self.members.remove(key).filter(|v| !v.is_null())
    }

    fn required_string(&mut self, key: &str) -> Result<String, RpcError> {
        match self.take(key) {
            Some(Value::String(s)) => Ok(s),
            Some(other) => {
                Err(self.error(key, format!("must be a string, got {}", json_type(&other))))
            }
            None => Err(self.error(key, "is required (a string)")),
        }
    }

    fn optional_string(&mut self, key: &str) -> Result<Option<String>, RpcError> {
        match self.take(key) {
            Some(Value::String(s)) => Ok(Some(s)),
            Some(other) => {
                Err(self.error(key, format!("must be a string, got {}", json_type(&other))))
            }
            None => Ok(None),
        }
    }

    fn optional_u64(&mut self, key: &str) -> Result<Option<u64>, RpcError> {
        match self.take(key) {
            Some(Value::Number(n)) => match crate::schema::integer(&n).map(u64::try_from) {
                Some(Ok(n)) => Ok(Some(n)),
                _ => Err(self.error(key, format!("must be a non-negative integer, got {n}"))),
            },
            Some(other) => Err(self.error(
                key,
                format!("must be a non-negative integer, got {}", json_type(&other)),
            )),
            None => Ok(None),
        }
    }

    fn optional_object(&mut self, key: &str) -> Result<Option<Map<String, Value>>, RpcError> {
        match self.take(key) {
            Some(Value::Object(map)) => Ok(Some(map)),
            Some(other) => {
                Err(self.error(key, format!("must be an object, got {}", json_type(&other))))
            }
            None => Ok(None),
        }
    }

    /// One of a few strings, read as `T`; `expected` lists them for the error.
    fn optional_choice<T: serde::de::DeserializeOwned>(
        &mut self,
        key: &str,
        expected: &str,
    ) -> Result<Option<T>, RpcError> {
        match self.take(key) {
            None => Ok(None),
            Some(value) => serde_json::from_value(value.clone())
                .map(Some)
                .map_err(|_| self.error(key, format!("must be {expected}, got {value}"))),
        }
    }

    fn optional_mode(&mut self, key: &str) -> Result<Option<Mode>, RpcError> {
        self.optional_choice(key, "\"ptc\", \"native\" or \"both\"")
    }

    fn required_array(&mut self, key: &str) -> Result<Vec<Value>, RpcError> {
        match self.take(key) {
            Some(Value::Array(items)) => Ok(items),
            Some(other) => {
                Err(self.error(key, format!("must be an array, got {}", json_type(&other))))
            }
            None => Err(self.error(key, "is required (an array)")),
        }
    }

    fn required_strings(&mut self, key: &str) -> Result<Vec<String>, RpcError> {
        let items = self.required_array(key)?;
        items
            .into_iter()
            .enumerate()
            .map(|(i, item)| match item {
                Value::String(s) => Ok(s),
                other => Err(self.error(
                    &format!("{key}[{i}]"),
                    format!("must be a string, got {}", json_type(&other)),
                )),
            })
            .collect()
    }

    /// Refuses members nobody took (a typo must not pass silently).
    fn reject_unknown(self) -> Result<(), RpcError> {
        match self.members.keys().next() {
            None => Ok(()),
            Some(key) => Err(self.error(key, "is not a known member")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::events::RunEventKind;

    #[test]
    fn image_blocks_are_checked() {
        let image = |data: &str, mime: &str| {
            tool_result(
                "t",
                Ok(json!({ "value": 1, "content": [
                    { "type": "text", "text": "a picture" },
                    { "type": "image", "data": data, "mimeType": mime }
                ] })),
            )
        };
        assert!(image("iVBORw0KGgo=", "image/png").is_ok());
        let bad = image("not base64!", "image/png").unwrap_err();
        assert!(
            bad.message.starts_with("the host's answer to the call of `t` is malformed: `content[1]`: `data` is not base64"),
            "{}",
            bad.message
        );
        let bad = image("iVBORw0KGgo=", "text/html").unwrap_err();
        assert!(
            bad.message.contains("`mimeType` must be an image type"),
            "{}",
            bad.message
        );
        assert!(image("iVBORw0KGgo=", "image/").is_err());
    }

    /// A host that stops reading costs at most the event backlog: events
    /// past it are dropped (and counted), responses never are.
    #[test]
    fn events_stop_at_the_backlog_responses_do_not() {
        let (queue, mut lines) = mpsc::unbounded_channel();
        let outbox = Outbox {
            queue,
            backlog: Arc::default(),
        };
        let event = RunEvent {
            run_id: "r".into(),
            kind: RunEventKind::Log {
                level: crate::LogLevel::Log,
                text: "x".repeat(1 << 20),
            },
        };
        let sent = (0..100).filter(|_| outbox.event(&event)).count();
        assert!((16..=18).contains(&sent), "{sent} events queued");
        outbox.respond(&json!(1), json!("still answered"));
        let queued = std::iter::from_fn(|| lines.try_recv().ok()).count();
        assert_eq!(queued, sent + 1);
        let dropped = AtomicUsize::new(100 - sent);
        assert_eq!(
            with_dropped(json!({}), &dropped)["droppedEvents"],
            100 - sent
        );
        assert_eq!(with_dropped(json!({}), &AtomicUsize::new(0)), json!({}));
    }
}

//! One protocol session: the host's lines read in order, each routed as a
//! request, a notification or an answer to ptc's own requests; the
//! methods' answers.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError, RwLock};

use serde_json::{Map, Value};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use super::approver::HostApprover;
use super::errors::{entry_error, registration_error};
use super::host_tool::HostTool;
use super::lock;
use super::outbox::{Outbox, with_dropped};
use super::peer::Peer;
use crate::contract::call::Call;
use crate::contract::events::RunEvent;
use crate::contract::host_protocol::methods::{
    Initialize, Initialized, Invoke, Invoked, List, Listed, Present, Register, Registered, Remove,
    Removed,
};
use crate::contract::host_protocol::params::Params;
use crate::contract::host_protocol::{INVALID_REQUEST, METHOD_NOT_FOUND, PARSE_ERROR, RpcError};
use crate::engine::{Engine, Invocation, RunOptions, RunRequest};
use crate::gate;
use crate::json::json_type;
use crate::limits::{ANSWER, Limits};
use crate::tool::handler::Tool;
use crate::tool::registry::Registry;
use crate::tool::wire::{Strictness, read_tool};

/// The protocol version `initialize` reports.
const PROTOCOL_VERSION: u64 = 1;

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
pub(super) struct Session {
    outbox: Outbox,
    peer: Arc<Peer>,
    registry: Registry,
    engine: RwLock<Engine>,
    pub(super) in_flight: InFlight,
    invocations: Arc<AtomicU64>,
    /// Cloned into every request task; serve waits until all are dropped.
    alive: mpsc::Sender<()>,
}

impl Session {
    pub(super) fn new(outbox: Outbox, alive: mpsc::Sender<()>) -> Self {
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
    pub(super) fn handle_line(&self, line: &[u8]) {
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
        match gate::json_text(text.as_bytes(), ANSWER) {
            Ok(_) => {}
            Err(gate::Refusal::Malformed(why)) => return self.unreadable(text, &why),
            Err(refusal) => return self.unreadable(text, &refusal.to_string()),
        }
        let message: Value = match serde_json::from_str(text) {
            Ok(message) => message,
            Err(e) => return self.unreadable(text, &e.to_string()),
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

    /// A line that is JSON in shape but not as a whole (nested deeper than
    /// serde reads, a lone surrogate escape, …) still gets an answer under
    /// its id, and an answer to ptc's own request still settles that
    /// request: a sub-call fails at once instead of waiting for its deadline.
    /// A line over the bound, passed over unread: an error without an id
    /// (whatever it was, its id is unknown).
    pub(super) fn too_long(&self, bytes: usize) {
        let why = gate::Refusal::TooLong {
            bytes,
            max: ANSWER.max_bytes,
        };
        self.outbox.fail(
            &Value::Null,
            RpcError::new(INVALID_REQUEST, format!("invalid request: {why}")),
        );
    }

    fn unreadable(&self, text: &str, error: &str) {
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

    /// Notifications from the host: `$/cancel`; others are ignored.
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

    fn initialize(&self, params: Params) -> Result<Value, RpcError> {
        let Initialize {
            mode,
            language,
            limits,
        } = Initialize::read(params)?;
        let engine = Engine::new(self.registry.clone(), limits).map_err(|e| {
            RpcError::params(format!("invalid params for `initialize`: config: {e}"))
        })?;
        // The host hears it now, not the model at its first run.
        if let Some(why) = engine.unavailable(language) {
            return Err(RpcError::params(format!(
                "invalid params for `initialize`: config.language is \"python\", but {why}"
            )));
        }
        self.registry.set_mode(mode);
        self.registry.set_language(language);
        *self.engine.write().unwrap_or_else(PoisonError::into_inner) = engine;
        Ok(result(Initialized {
            name: "ptc",
            version: env!("CARGO_PKG_VERSION"),
            protocol_version: PROTOCOL_VERSION,
        }))
    }

    fn register(&self, params: Params) -> Result<Value, RpcError> {
        let entries = Register::read(params)?.tools;
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
        Ok(result(Registered {
            registered: names.into_iter().collect(),
            count: self.registry.count(),
            warnings,
        }))
    }

    fn remove(&self, params: Params) -> Result<Value, RpcError> {
        let names = Remove::read(params)?.names;
        let removed = self.registry.remove_all(names.iter().map(String::as_str));
        Ok(result(Removed { removed }))
    }

    fn list(&self, params: Params) -> Result<Value, RpcError> {
        List::read(params)?;
        Ok(result(Listed {
            tools: self.registry.definitions(),
        }))
    }

    fn presentation(&self, params: Params) -> Result<Value, RpcError> {
        let mode = Present::read(params)?.mode;
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
            // The session's language: the one its presentation speaks.
            Ok(request) => request.language(self.registry.language()),
            Err(what) => return self.outbox.fail(&id, params.invalid(what)),
        };
        self.spawn(id, |engine, options| async move {
            match engine.run_code(request, options).await {
                Ok(outcome) => Ok(result(&outcome)),
                Err(error) => Err(RpcError::params(format!(
                    "invalid params for `run_code`: {error}"
                ))),
            }
        });
    }

    fn invoke(&self, id: Value, params: Params) {
        let Invoke {
            name,
            arguments,
            id: call_id,
        } = match Invoke::read(params) {
            Ok(invoke) => invoke,
            Err(error) => return self.outbox.fail(&id, error),
        };
        let call_id = call_id.unwrap_or_else(|| {
            format!(
                "invoke-{}",
                self.invocations.fetch_add(1, Ordering::Relaxed) + 1
            )
        });
        self.spawn(id, |engine, options| async move {
            let call = Call::new(call_id, name, arguments);
            Ok(invocation_json(&engine.invoke(call, options).await))
        });
    }

    /// Runs a cancellable request (`run_code`, `tools/invoke`) in a task of
    /// its own, with the session's engine and a sink for its events; answers
    /// with what `answer` gives (a result with `droppedEvents` when events
    /// had to be dropped).
    fn spawn<F, Fut>(&self, id: Value, answer: F)
    where
        F: FnOnce(Engine, RunOptions) -> Fut,
        Fut: Future<Output = Result<Value, RpcError>> + Send + 'static,
    {
        let Some((key, cancel)) = self.start(&id) else {
            return;
        };
        let (sink, dropped) = self.events();
        let options = RunOptions::default().events(sink).cancel(cancel);
        let answered = answer(self.engine(), options);
        let (outbox, in_flight, alive) = (
            self.outbox.clone(),
            Arc::clone(&self.in_flight),
            self.alive.clone(),
        );
        tokio::spawn(async move {
            let _alive = alive;
            let result = answered.await;
            lock(&in_flight).remove(&key);
            match result {
                Ok(result) => outbox.respond(&id, with_dropped(result, &dropped)),
                Err(error) => outbox.fail(&id, error),
            }
        });
    }
}

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

/// A method's result (or a run's [`Outcome`](crate::Outcome)) as the JSON
/// it is answered with.
fn result(shape: impl serde::Serialize) -> Value {
    serde_json::to_value(shape).expect("a result serializes as JSON")
}

/// The `tools/invoke` result.
fn invocation_json(invocation: &Invocation) -> Value {
    let (value, error) = match invocation {
        Invocation::Run(outcome) => return result(outcome),
        Invocation::Tool(Ok(output)) => (Some(&output.value), None),
        Invocation::Tool(Err(error)) => (None, Some(error)),
    };
    result(Invoked {
        is_error: error.is_some(),
        content: invocation.content(),
        value,
        error,
    })
}

//! One protocol session: the host's lines read in order, each routed as a
//! request, a notification or an answer to ptc's own requests; the
//! methods' answers.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError, RwLock};

use serde_json::Value;
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
use crate::contract::host_protocol::asks::Cancel;
use crate::contract::host_protocol::incoming::Incoming;
use crate::contract::host_protocol::methods::{
    Initialize, Initialized, Invoke, Invoked, List, Listed, OpenSession, Present, Register,
    Registered, Remove, Removed, SessionOpened,
};
use crate::contract::host_protocol::params::Params;
use crate::contract::host_protocol::{
    INVALID_REQUEST, METHOD_NOT_FOUND, Method, PARSE_ERROR, RpcError, UNAVAILABLE, to_json,
};
use crate::contract::run_code::RUN_CODE;
use crate::engine::{Engine, RunOptions, RunRequest};
use crate::gate;
use crate::limits::{ANSWER, Limits};
use crate::state::StateStore;
use crate::tool::handler::Tool;
use crate::tool::registry::Registry;
use crate::tool::wire::{Strictness, read_tool};

/// Cancellation tokens of the host's requests in flight, by request id.
type InFlight = Arc<Mutex<HashMap<String, CancellationToken>>>;

/// One protocol session.
pub(super) struct Session {
    outbox: Outbox,
    peer: Arc<Peer>,
    registry: Registry,
    engine: RwLock<Engine>,
    /// The state store, kept from one `initialize` to the next unless its
    /// URL or quotas change.
    state: Mutex<StateStore>,
    pub(super) in_flight: InFlight,
    invocations: Arc<AtomicU64>,
    /// Cloned into every request task; serve waits until all are dropped.
    alive: mpsc::Sender<()>,
}

impl Session {
    pub(super) fn new(outbox: Outbox, alive: mpsc::Sender<()>, state: StateStore) -> Self {
        let peer = Arc::new(Peer {
            outbox: outbox.clone(),
            next_id: AtomicU64::new(0),
            pending: Mutex::new(HashMap::new()),
        });
        let registry = Registry::new();
        registry.set_approver(HostApprover {
            peer: Arc::clone(&peer),
        });
        let engine = Engine::new(registry.clone(), Limits::default())
            .expect("the default limits are valid")
            .with_state(state.clone());
        Self {
            outbox,
            peer,
            registry,
            engine: RwLock::new(engine),
            state: Mutex::new(state),
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

    /// Handles one line from the host (awaited only for `initialize`,
    /// which may open a state store before the next line is read).
    pub(super) async fn handle_line(&self, line: &[u8]) {
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
        let incoming = match gate::json_text(text.as_bytes(), ANSWER) {
            Ok(_) => Incoming::read(text),
            Err(gate::Refusal::Malformed(why)) => Incoming::unreadable(text, &why),
            Err(refusal) => Incoming::unreadable(text, &refusal.to_string()),
        };
        match incoming {
            Incoming::Request { id, method, params } => self.request(id, &method, params).await,
            Incoming::Notification { method, params } => self.notification(&method, params),
            Incoming::Answer { id, reply } => self.peer.answer(&id, reply),
            Incoming::Invalid { id, error } => self.outbox.fail(&id, error),
            Incoming::Ignored => {}
        }
    }

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

    /// Notifications from the host: `$/cancel`; others are ignored.
    fn notification(&self, method: &str, params: Value) {
        if method == Cancel::<Value>::NAME
            && let Some(cancel) = Cancel::read(params)
            && let Some(token) = lock(&self.in_flight).get(&cancel.id.to_string())
        {
            token.cancel();
        }
    }

    async fn request(&self, id: Value, method: &str, params: Value) {
        let params = match Params::from_value(method, params) {
            Ok(params) => params,
            Err(error) => return self.outbox.fail(&id, error),
        };
        let answer = match method {
            Initialize::NAME => self.initialize(params).await,
            Register::NAME => self.register(params),
            Remove::NAME => self.remove(params),
            List::NAME => self.list(params),
            Present::NAME => self.presentation(params),
            RUN_CODE => return self.run_code(id, params),
            Invoke::NAME => return self.invoke(id, params),
            OpenSession::NAME => return self.open_session(id, params),
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

    async fn initialize(&self, params: Params) -> Result<Value, RpcError> {
        let Initialize {
            mode,
            language,
            limits,
            state,
        } = Initialize::read(params)?;
        let engine =
            Engine::new(self.registry.clone(), limits).map_err(Initialize::refused_limits)?;
        // The host hears it now, not the model at its first run.
        if let Some(why) = engine.unavailable(language) {
            return Err(Initialize::unavailable_language(&why));
        }
        let store = self.store_for(state, engine.limits()).await?;
        let engine = engine.with_state(store);
        self.registry.set_mode(mode);
        self.registry.set_language(language);
        *self.engine.write().unwrap_or_else(PoisonError::into_inner) = engine;
        Ok(to_json(Initialized::ptc()))
    }

    /// The store `initialize` asks for: the session's own while the URL
    /// and the quotas stay (a memory store's sessions live on), else one
    /// opened anew.
    async fn store_for(
        &self,
        url: Option<String>,
        limits: &Limits,
    ) -> Result<StateStore, RpcError> {
        let url = {
            let kept = lock(&self.state);
            let url = url.unwrap_or_else(|| kept.url.clone());
            if kept.is(&url, limits) {
                return Ok(kept.clone());
            }
            url
        };
        let store = StateStore::open(&url, limits)
            .await
            .map_err(Initialize::unavailable_state)?;
        *lock(&self.state) = store.clone();
        Ok(store)
    }

    /// `session/open`: a new session in the engine's store, as a task of
    /// its own (a store across the network may take its time).
    fn open_session(&self, id: Value, params: Params) {
        if let Err(error) = OpenSession::read(params) {
            return self.outbox.fail(&id, error);
        }
        self.spawn(id, |engine, _| async move {
            match engine.open_session().await {
                Ok(session) => Ok(to_json(SessionOpened { session })),
                Err(e) => Err(RpcError::new(UNAVAILABLE, e.to_string())),
            }
        });
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
        Ok(to_json(Registered {
            registered: names.into_iter().collect(),
            count: self.registry.count(),
            warnings,
        }))
    }

    fn remove(&self, params: Params) -> Result<Value, RpcError> {
        let names = Remove::read(params)?.names;
        let removed = self.registry.remove_all(names.iter().map(String::as_str));
        Ok(to_json(Removed { removed }))
    }

    fn list(&self, params: Params) -> Result<Value, RpcError> {
        List::read(params)?;
        Ok(to_json(Listed {
            tools: self.registry.definitions(),
        }))
    }

    fn presentation(&self, params: Params) -> Result<Value, RpcError> {
        let mode = Present::read(params)?.mode;
        let engine = self.engine();
        let presentation = engine.presentation(&self.registry.scope(), mode);
        Ok(to_json(presentation))
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
                Ok(outcome) => Ok(to_json(&outcome)),
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
            Ok(Invoked::of(&engine.invoke(call, options).await))
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

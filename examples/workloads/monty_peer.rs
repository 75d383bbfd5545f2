//! The peer of the Python rows: Monty used directly through its own crate
//! (`monty-pool`), without ptc. The same worker binary (`PTC_PYTHON_WORKER`,
//! else `monty` on `PATH`), the same pool configuration as ptc's (workers
//! started on demand, reused after a clean run; at most 1,024 here, where
//! ptc's ceiling is what fits in memory and it reaps idle workers past one
//! per core, neither of which the workloads reach: at most 100 live runs,
//! no idle pause), the same
//! limits in the worker (ptc's defaults: 64 MiB, a 120 s feed, suspensions
//! uncounted), and the same handlers ([`crate::Handlers`]) answering the
//! calls in this process, at most 10 in flight per run.
//!
//! What it leaves out is what ptc adds: `tools` is a host module Monty
//! passes in as an input (a function per tool of tools50.json, called by
//! name), not ptc's generated bindings fed as Python; arguments go to the
//! handler as they come, with no schema check, policy, sub-call ids,
//! events, output capture or outcome rendering.

use std::collections::VecDeque;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use monty_pool::{Pool, PoolConfig, ReplConfig, ResumeValue, TurnEvent, on_print_sync};
use monty_types::{MontyObject, MontyUuid, NameLookupResult, ObjectRef, ResourceLimits};
use serde_json::{Map, Value};
use tokio::task::JoinSet;

use crate::Handlers;
use crate::python::Ran;

/// Calls in flight per run, as ptc's default `maxParallelSubCalls`.
const MAX_PARALLEL: usize = 10;

/// Monty's pool, the session configuration and the `tools` module.
#[derive(Clone)]
pub(crate) struct Peer {
    pool: Arc<Pool>,
    config: ReplConfig,
    tools: MontyObject,
    handlers: Handlers,
}

/// The worker binary, found as ptc finds it.
fn worker_binary() -> PathBuf {
    if let Some(path) = std::env::var_os("PTC_PYTHON_WORKER") {
        return PathBuf::from(path);
    }
    std::env::var_os("PATH")
        .and_then(|paths| {
            std::env::split_paths(&paths)
                .map(|dir| dir.join("monty"))
                .find(|path| path.is_file())
        })
        .expect("`monty` on PATH (pip install pydantic-monty-runtime==1.4.0) or PTC_PYTHON_WORKER")
}

impl Peer {
    pub(crate) async fn new(handlers: Handlers) -> Self {
        let limits = ptc::Limits::default();
        let mut pool = PoolConfig::subprocess(worker_binary());
        pool.min_processes = 0;
        pool.max_processes = limits.max_concurrent_runs;
        let pool = Pool::new(pool).await.expect("Monty's pool");
        let config = ReplConfig {
            limits: Some(ResourceLimits {
                max_feed_duration: Some(Duration::from_millis(limits.default_timeout_ms)),
                max_memory: Some(limits.memory_limit_bytes),
                max_suspensions: usize::MAX,
                ..ResourceLimits::default()
            }),
            print_flush_interval: Some(Duration::ZERO),
            ..ReplConfig::default()
        };
        let names: Vec<String> = crate::load("tools50.json")
            .into_iter()
            .map(|def| def.name)
            .collect();
        let tools = MontyObject::module(
            "tools",
            MontyUuid::from_u128(0x7001),
            names.into_iter().map(|name| {
                (
                    MontyObject::string(name.as_str()),
                    MontyObject::function(name, None),
                )
            }),
        );
        Self {
            pool: Arc::new(pool),
            config,
            tools,
            handlers,
        }
    }

    /// One run: a worker from the pool, a session, the program with `tools`
    /// as an input, every call answered, the worker back in the pool.
    pub(crate) async fn run(&self, code: &str) -> Ran {
        let mut checkout = self.pool.checkout(&self.config).await.expect("a worker");
        let mut on_print = on_print_sync(|_, _| {});
        let inputs = vec![("tools".to_owned(), self.tools.clone())];
        let mut event = checkout
            .feed(code, inputs, vec![], false, &mut on_print)
            .await;
        let mut calls = Calls::new(self.handlers.clone());
        let value = loop {
            event = match event.expect("a turn") {
                TurnEvent::Complete(value) => break value,
                TurnEvent::FunctionCall {
                    function_name,
                    args,
                    call_id,
                    ..
                } => {
                    let arguments: Map<String, Value> = args
                        .kwargs()
                        .map(|(k, v)| (k.as_str().unwrap_or_default().to_owned(), to_json(v)))
                        .collect();
                    calls.submit(call_id, function_name, Value::Object(arguments));
                    checkout.resume(ResumeValue::Future, &mut on_print).await
                }
                TurnEvent::ResolveFutures { .. } => {
                    let settled = calls.settled().await;
                    checkout.resume_futures(settled, &mut on_print).await
                }
                TurnEvent::NameLookup { .. } => {
                    checkout
                        .resume_name_lookup(NameLookupResult::Undefined, &mut on_print)
                        .await
                }
                TurnEvent::OsCall { .. } => {
                    checkout
                        .resume(ResumeValue::NotHandled, &mut on_print)
                        .await
                }
            };
        };
        checkout
            .finish()
            .await
            .expect("the worker back in the pool");
        let value = value.as_ref();
        Ran {
            text: match value.type_name() {
                "NoneType" => String::new(),
                _ => value
                    .as_int()
                    .map_or_else(|| value.py_repr(), |i| i.to_string()),
            },
            sub_calls: calls.made,
            events: None,
        }
    }
}

/// A run's calls: at most [`MAX_PARALLEL`] in flight on tokio, the rest
/// queued in order.
struct Calls {
    handlers: Handlers,
    tasks: JoinSet<(u32, Value)>,
    queued: VecDeque<(u32, String, Value)>,
    made: u32,
}

impl Calls {
    fn new(handlers: Handlers) -> Self {
        Self {
            handlers,
            tasks: JoinSet::new(),
            queued: VecDeque::new(),
            made: 0,
        }
    }

    fn submit(&mut self, call_id: u32, name: String, arguments: Value) {
        self.made += 1;
        self.queued.push_back((call_id, name, arguments));
        self.pump();
    }

    fn pump(&mut self) {
        while self.tasks.len() < MAX_PARALLEL {
            let Some((call_id, name, arguments)) = self.queued.pop_front() else {
                return;
            };
            let call = self.handlers.call(&name, arguments);
            self.tasks.spawn(async move { (call_id, call.await) });
        }
    }

    /// At least one settled call, and every other one settled by now.
    async fn settled(&mut self) -> Vec<(u32, ResumeValue)> {
        let mut settled = Vec::new();
        let first = self.tasks.join_next().await.expect("a call in flight");
        for (call_id, value) in std::iter::once(first)
            .chain(std::iter::from_fn(|| self.tasks.try_join_next()))
            .map(|done| done.expect("a handler"))
        {
            settled.push((call_id, ResumeValue::Return(to_monty(&value))));
        }
        self.pump();
        settled
    }
}

/// A JSON value as a Python one.
fn to_monty(value: &Value) -> MontyObject {
    match value {
        Value::Null => MontyObject::none(),
        Value::Bool(b) => MontyObject::bool(*b),
        Value::Number(n) => match n.as_i64() {
            Some(i) => MontyObject::int(i),
            None => MontyObject::float(n.as_f64().unwrap_or(f64::NAN)),
        },
        Value::String(s) => MontyObject::string(s.as_str()),
        Value::Array(items) => MontyObject::list(items.iter().map(to_monty)),
        Value::Object(members) => MontyObject::dict(
            members
                .iter()
                .map(|(k, v)| (MontyObject::string(k.as_str()), to_monty(v))),
        ),
    }
}

/// A Python argument as JSON (the workloads pass ints; plain data in general).
fn to_json(value: ObjectRef<'_>) -> Value {
    match value.type_name() {
        "bool" => Value::Bool(value.as_bool().unwrap_or_default()),
        "int" => value.as_int().map_or(Value::Null, Value::from),
        "float" => value.as_float().map_or(Value::Null, Value::from),
        "str" => Value::String(value.as_str().unwrap_or_default().to_owned()),
        "list" | "tuple" => Value::Array(
            value
                .items()
                .unwrap_or_default()
                .into_iter()
                .map(to_json)
                .collect(),
        ),
        "dict" => Value::Object(
            value
                .pairs()
                .unwrap_or_default()
                .into_iter()
                .map(|(k, v)| (k.as_str().unwrap_or_default().to_owned(), to_json(v)))
                .collect(),
        ),
        _ => Value::Null,
    }
}

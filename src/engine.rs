//! The run_code engine: type-stripped TypeScript in a fresh QuickJS sandbox
//! with `tools.*` bound to the registry (contracts §6–§7).

pub(crate) mod convert;
pub(crate) mod events;
mod guards;
pub(crate) mod output;
mod position;
pub(crate) mod run;
pub(crate) mod sandbox;
pub(crate) mod scheduler;
pub(crate) mod strip;
pub(crate) mod text;
pub(crate) mod threads;

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use serde::Serialize;
use tokio::sync::Semaphore;
use tokio_util::sync::CancellationToken;

use crate::deadline::Deadline;
use crate::sdk::SdkOptions;
use crate::sdk::presentation::{Presentation, RUN_CODE, SdkCache, present};
use crate::tool::call::{Call, CallerContext, ContentBlock, ErrorCode, ToolError, ToolResult};
use crate::tool::pipeline::CallOptions;
use crate::tool::registry::{Mode, Registry, Scope};
use events::EventSink;
use output::{Capture, cap_text};
use run::{Run, RunSetup, StartError, Step};
use sandbox::{Interrupts, Sandbox};
use threads::{Abandoned, Retirements, SandboxThreads};

/// The limits of runs. Every field says its default and what happens at the limit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Limits {
    /// Sub-calls in flight per run; default 10, 1 = strictly serial. More wait, FIFO.
    pub max_parallel_sub_calls: usize,
    /// Run deadline when `timeoutMs` is absent; default 120,000 ms.
    pub default_timeout_ms: u64,
    /// Largest `timeoutMs` accepted; default 600,000 ms. More is `INVALID_ARGUMENTS`.
    pub max_timeout_ms: u64,
    /// Bytes of rendered text; default 32,768. Longer text keeps head and tail.
    pub output_cap_bytes: usize,
    /// JavaScript heap per run; default 64 MiB. Exhausting it ends the run as `memory`.
    pub memory_limit_bytes: usize,
    /// JavaScript stack per run; default 1 MiB. Overflow is a catchable `RangeError`.
    pub stack_limit_bytes: usize,
    /// Stack of the sandbox threads; default 16 MiB. Must leave 2 MiB above the JS stack.
    pub thread_stack_bytes: usize,
    /// Size of a program; default 1 MiB. Larger code is a `syntax` failure.
    pub max_code_bytes: usize,
    /// Runs executing at once; default 1,024. More wait in FIFO order within their deadline.
    pub max_concurrent_runs: usize,
    /// Images appended to one outcome; default 8. The rest are left out with a notice.
    pub max_images: usize,
    /// Total image bytes (decoded) in one outcome; default 8 MiB.
    pub max_image_bytes: usize,
    /// How long past its deadline (or cancellation) a run whose JavaScript
    /// no interrupt reaches may keep its caller waiting; default 1,000 ms.
    /// Then the caller gets the run's answer and the sandbox thread is
    /// retired (see [`Engine::retired_threads`]).
    pub grace_ms: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            max_parallel_sub_calls: 10,
            default_timeout_ms: 120_000,
            max_timeout_ms: 600_000,
            output_cap_bytes: 32_768,
            memory_limit_bytes: 64 << 20,
            stack_limit_bytes: 1 << 20,
            thread_stack_bytes: 16 << 20,
            max_code_bytes: 1 << 20,
            max_concurrent_runs: 1024,
            max_images: 8,
            max_image_bytes: 8 << 20,
            grace_ms: 1000,
        }
    }
}

/// Headroom the sandbox thread keeps above the JavaScript stack limit.
const STACK_HEADROOM: usize = 2 << 20;

/// A configuration that cannot work.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ConfigError {
    /// The JS stack limit does not fit in the sandbox thread's stack.
    #[error(
        "stack limit of {stack_limit} bytes does not fit: sandbox threads have {thread_stack} bytes and need {STACK_HEADROOM} bytes of headroom"
    )]
    StackLimit {
        /// The configured JS stack limit.
        stack_limit: usize,
        /// The sandbox thread stack.
        thread_stack: usize,
    },
    /// A limit that must be positive is zero, or defaults exceed maxima.
    #[error("invalid limit: {0}")]
    Invalid(&'static str),
}

impl Limits {
    /// Checks that the limits can work together.
    ///
    /// # Errors
    /// A stack limit without headroom in the thread stack, or a zero limit.
    pub fn validate(&self) -> Result<(), ConfigError> {
        if self.stack_limit_bytes.saturating_add(STACK_HEADROOM) > self.thread_stack_bytes {
            return Err(ConfigError::StackLimit {
                stack_limit: self.stack_limit_bytes,
                thread_stack: self.thread_stack_bytes,
            });
        }
        if self.max_parallel_sub_calls == 0 {
            return Err(ConfigError::Invalid(
                "maxParallelSubCalls must be at least 1",
            ));
        }
        if self.max_concurrent_runs == 0 {
            return Err(ConfigError::Invalid("maxConcurrentRuns must be at least 1"));
        }
        if self.default_timeout_ms == 0 || self.default_timeout_ms > self.max_timeout_ms {
            return Err(ConfigError::Invalid(
                "defaultTimeoutMs must be between 1 and maxTimeoutMs",
            ));
        }
        if self.max_timeout_ms > crate::deadline::MAX_DEADLINE_MS {
            return Err(ConfigError::Invalid(
                "maxTimeoutMs must be at most 2147483647",
            ));
        }
        if self.memory_limit_bytes < (1 << 20) {
            return Err(ConfigError::Invalid(
                "memoryLimitBytes must be at least 1 MiB",
            ));
        }
        if self.output_cap_bytes < 64 {
            return Err(ConfigError::Invalid("outputCapBytes must be at least 64"));
        }
        Ok(())
    }
}

/// `run_code`'s arguments.
#[derive(Debug, Clone, PartialEq, Eq, Default, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct RunRequest {
    /// The program: the body of an async TypeScript function.
    pub code: String,
    /// A short summary of what the program does.
    #[serde(default)]
    pub description: String,
    /// The run deadline in ms; by default the engine's `default_timeout_ms`.
    #[serde(default, deserialize_with = "integer")]
    pub timeout_ms: Option<i64>,
    /// The run's id; by default a fresh unique id. An id the host chooses
    /// must not belong to a run still going (`INVALID_ARGUMENTS`).
    #[serde(default)]
    pub run_id: Option<String>,
}

/// An optional integer in any JSON spelling (`1e3` is 1000).
fn integer<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<i64>, D::Error> {
    let Some(n) = <Option<serde_json::Number> as serde::Deserialize>::deserialize(d)? else {
        return Ok(None);
    };
    match crate::schema::integer(&n) {
        Some(i) => Ok(Some(i)),
        None => Err(serde::de::Error::custom(format_args!(
            "timeoutMs must be an integer, got {n}"
        ))),
    }
}

/// `run_code`'s arguments as the model sends them (contracts §4), and
/// nothing else: the run id is the host's to choose.
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct ModelArguments {
    code: String,
    description: String,
    #[serde(default, deserialize_with = "integer")]
    timeout_ms: Option<i64>,
}

impl RunRequest {
    /// A request to run `code`.
    pub fn new(code: impl Into<String>) -> Self {
        Self {
            code: code.into(),
            ..Self::default()
        }
    }

    /// Sets the deadline. By default, the engine's default timeout.
    pub fn timeout_ms(mut self, ms: i64) -> Self {
        self.timeout_ms = Some(ms);
        self
    }

    /// Sets the run id. By default, a fresh unique id.
    pub fn run_id(mut self, id: impl Into<String>) -> Self {
        self.run_id = Some(id.into());
        self
    }

    /// Sets the description. By default, empty.
    pub fn description(mut self, description: impl Into<String>) -> Self {
        self.description = description.into();
        self
    }
}

/// How one run is made.
#[derive(Clone, Default)]
#[non_exhaustive]
pub struct RunOptions {
    /// The agent's scope. By default, a fresh scope of the engine's registry.
    pub scope: Option<Scope>,
    /// Receives the run's events. By default, none.
    pub events: Option<Arc<dyn EventSink>>,
    /// Cancels the run (it ends as `cancelled`). By default, never fires.
    pub cancel: CancellationToken,
    /// Passed to every sub-call's handler. By default, none.
    pub caller: Option<CallerContext>,
}

impl RunOptions {
    /// Sets the scope. By default, a fresh scope of the registry.
    pub fn scope(mut self, scope: Scope) -> Self {
        self.scope = Some(scope);
        self
    }

    /// Sets the event sink. By default, none.
    pub fn events(mut self, sink: impl EventSink) -> Self {
        self.events = Some(Arc::new(sink));
        self
    }

    /// Sets the cancellation signal. By default, one that never fires.
    pub fn cancel(mut self, cancel: CancellationToken) -> Self {
        self.cancel = cancel;
        self
    }

    /// Sets the caller context. By default, none.
    pub fn caller(mut self, caller: CallerContext) -> Self {
        self.caller = Some(caller);
        self
    }
}

/// Why a run failed (contracts §7).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum FailureKind {
    /// The code did not parse (or was too large).
    Syntax,
    /// The program threw.
    Runtime,
    /// The run deadline expired.
    Timeout,
    /// The heap limit was exhausted.
    Memory,
    /// The host cancelled the run.
    Cancelled,
}

impl FailureKind {
    /// The kind as written in the model text.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Syntax => "syntax",
            Self::Runtime => "runtime",
            Self::Timeout => "timeout",
            Self::Memory => "memory",
            Self::Cancelled => "cancelled",
        }
    }
}

/// The result of a run: what the model sees plus facts for the host.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Outcome {
    /// The run's id.
    pub run_id: String,
    /// Whether the run failed.
    pub is_error: bool,
    /// Why it failed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kind: Option<FailureKind>,
    /// The rendered text first, then images.
    pub content: Vec<ContentBlock>,
    /// How many sub-calls the program made.
    pub sub_calls: u32,
    /// Wall time of the run, admission included (serialized as `elapsedMs`).
    #[serde(rename = "elapsedMs", serialize_with = "as_millis")]
    pub elapsed: Duration,
}

fn as_millis<S: serde::Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_f64(d.as_secs_f64() * 1000.0)
}

impl Outcome {
    /// The rendered text (the first content block).
    pub fn text(&self) -> &str {
        match self.content.first() {
            Some(ContentBlock::Text { text }) => text,
            _ => "",
        }
    }
}

/// The answer to a model-direct call ([`Engine::invoke`]).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Invocation {
    /// A tool's result (or a refused `run_code` call).
    Tool(ToolResult),
    /// A `run_code` program's outcome.
    Run(Outcome),
}

impl Invocation {
    /// Whether the model sees a failure.
    pub fn is_error(&self) -> bool {
        match self {
            Self::Tool(result) => result.is_err(),
            Self::Run(outcome) => outcome.is_error,
        }
    }

    /// What the model sees: a failed call is exactly `Error: <message>`; a
    /// value is its text (strings verbatim, other values as compact JSON),
    /// followed by the result's content blocks.
    pub fn content(&self) -> Vec<ContentBlock> {
        match self {
            Self::Run(outcome) => outcome.content.clone(),
            Self::Tool(Err(error)) => vec![ContentBlock::text(error.model_text())],
            Self::Tool(Ok(output)) => {
                let text = match &output.value {
                    serde_json::Value::String(s) => s.clone(),
                    value => value.to_string(),
                };
                let mut content = vec![ContentBlock::text(text)];
                content.extend(output.content.iter().cloned());
                content
            }
        }
    }
}

/// Sandbox threads the engine stopped waiting for (see [`Engine::retired_threads`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub struct RetiredThreads {
    /// Retired since the engine was made.
    pub total: u64,
    /// Of those, the ones whose JavaScript still runs.
    pub still_stuck: usize,
}

/// `run_code` itself was called wrongly (not a failure of the program).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum RunError {
    /// Bad `run_code` arguments, such as a `timeoutMs` out of range.
    #[error("{0}")]
    InvalidArguments(String),
}

struct EngineInner {
    registry: Registry,
    limits: Limits,
    threads: Arc<SandboxThreads>,
    retirements: Retirements,
    admission: Semaphore,
    runs: AtomicU64,
    id_prefix: String,
    sdk_cache: SdkCache,
    /// Fresh, never-used sandboxes built ahead of need, so building one
    /// (about a third of a short run) is off the run's path.
    warm: std::sync::Mutex<Vec<Sandbox>>,
    refilling: std::sync::atomic::AtomicBool,
    /// Run ids chosen by hosts, of the runs still going.
    host_run_ids: std::sync::Mutex<std::collections::HashSet<Arc<str>>>,
}

/// A run id a host chose, held while its run lives: two live runs never
/// share an id (their sub-call ids and events would mix).
struct RunIdClaim {
    inner: Arc<EngineInner>,
    id: Arc<str>,
}

impl RunIdClaim {
    fn new(inner: &Arc<EngineInner>, id: &Arc<str>) -> Result<Self, RunError> {
        let mut live = inner
            .host_run_ids
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if !live.insert(Arc::clone(id)) {
            return Err(RunError::InvalidArguments(format!(
                "runId `{id}` belongs to a run that has not ended"
            )));
        }
        Ok(Self {
            inner: Arc::clone(inner),
            id: Arc::clone(id),
        })
    }
}

impl Drop for RunIdClaim {
    fn drop(&mut self) {
        self.inner
            .host_run_ids
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .remove(&self.id);
    }
}

/// How many fresh sandboxes the engine keeps ready.
const WARM_SANDBOXES: usize = 2;

impl EngineInner {
    /// A fresh sandbox: a warm one if ready (then one is rebuilt in the
    /// background), else built now.
    fn take_sandbox(self: &Arc<Self>) -> rquickjs::Result<Sandbox> {
        let warm = self
            .warm
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .pop();
        if !self.refilling.swap(true, Ordering::AcqRel) {
            let inner = Arc::clone(self);
            self.threads.detach(move || inner.refill());
        }
        match warm {
            Some(sandbox) => Ok(sandbox),
            None => Sandbox::new(
                self.limits.memory_limit_bytes,
                self.limits.stack_limit_bytes,
            ),
        }
    }

    fn refill(&self) {
        loop {
            let count = self
                .warm
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .len();
            if count >= WARM_SANDBOXES {
                break;
            }
            match Sandbox::new(
                self.limits.memory_limit_bytes,
                self.limits.stack_limit_bytes,
            ) {
                Ok(sandbox) => self
                    .warm
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner)
                    .push(sandbox),
                Err(_) => break,
            }
        }
        self.refilling.store(false, Ordering::Release);
    }
}

/// The shared, cheap-to-clone engine: configuration, registry and sandbox
/// threads. Each run owns a fresh QuickJS runtime that dies with it.
#[derive(Clone)]
pub struct Engine {
    inner: Arc<EngineInner>,
}

impl std::fmt::Debug for Engine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Engine")
            .field("limits", &self.inner.limits)
            .finish_non_exhaustive()
    }
}

impl Engine {
    /// An engine over `registry` with these limits.
    ///
    /// # Errors
    /// Limits that cannot work (see [`Limits::validate`]).
    pub fn new(registry: Registry, limits: Limits) -> Result<Self, ConfigError> {
        limits.validate()?;
        let seed = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos() as u64);
        Ok(Self {
            inner: Arc::new(EngineInner {
                threads: SandboxThreads::shared(limits.thread_stack_bytes),
                retirements: Retirements::default(),
                admission: Semaphore::new(limits.max_concurrent_runs),
                registry,
                runs: AtomicU64::new(0),
                id_prefix: format!("run-{:x}{:x}", seed & 0xffff_ffff, std::process::id()),
                sdk_cache: SdkCache::default(),
                warm: std::sync::Mutex::new(Vec::new()),
                refilling: std::sync::atomic::AtomicBool::new(false),
                host_run_ids: std::sync::Mutex::default(),
                limits,
            }),
        })
    }

    /// Sandbox threads retired because a run's JavaScript went on past its
    /// deadline (or cancellation) plus its grace (`Limits::grace_ms`), where no
    /// interrupt reached it. The run was answered at the grace; each
    /// retirement is logged (`tracing`, warn), and so is each return.
    /// Zero unless QuickJS has a loop ptc does not know of: worth a report.
    pub fn retired_threads(&self) -> RetiredThreads {
        let (total, still_stuck) = self.inner.retirements.counts();
        RetiredThreads { total, still_stuck }
    }

    /// The registry behind this engine.
    pub fn registry(&self) -> &Registry {
        &self.inner.registry
    }

    /// The engine's limits.
    pub fn limits(&self) -> &Limits {
        &self.inner.limits
    }

    /// What the model sees in this scope: its mode unless `mode` overrides
    /// it. Byte-identical for the same visible tools and limits.
    pub fn presentation(&self, scope: &Scope, mode: Option<Mode>) -> Presentation {
        let (generation, tools) = scope.versioned_definitions();
        let options = SdkOptions {
            default_timeout_ms: self.inner.limits.default_timeout_ms,
            max_timeout_ms: self.inner.limits.max_timeout_ms,
        };
        present(
            &self.inner.sdk_cache,
            generation,
            &tools,
            mode.unwrap_or_else(|| scope.mode()),
            &options,
        )
    }

    /// A tool call exactly as the model made it: visibility under the
    /// scope's mode, then the pipeline (`run_code` runs a program).
    pub async fn invoke(&self, call: Call, options: RunOptions) -> Invocation {
        let scope = options
            .scope
            .clone()
            .unwrap_or_else(|| self.inner.registry.scope());
        let mode = scope.mode();
        // In `ptc` and `both` modes the name belongs to the engine.
        if call.name == RUN_CODE && mode != Mode::Native {
            let request = match serde_json::from_value::<ModelArguments>(call.arguments.clone()) {
                Ok(arguments) => RunRequest {
                    code: arguments.code,
                    description: arguments.description,
                    timeout_ms: arguments.timeout_ms,
                    run_id: None,
                },
                Err(e) => {
                    return Invocation::Tool(Err(ToolError::new(
                        ErrorCode::InvalidArguments,
                        format!("invalid arguments for `run_code`: {e}"),
                    )));
                }
            };
            return match self.run_code(request, options).await {
                Ok(outcome) => Invocation::Run(outcome),
                Err(RunError::InvalidArguments(message)) => Invocation::Tool(Err(ToolError::new(
                    ErrorCode::InvalidArguments,
                    format!("invalid arguments for `run_code`: {message}"),
                ))),
            };
        }
        if mode == Mode::Ptc {
            return Invocation::Tool(Err(ToolError::new(
                ErrorCode::UnknownTool,
                format!("unknown tool `{}`: only `run_code` is available", call.name),
            )));
        }
        let call_options = CallOptions {
            cancel: options.cancel,
            caller: options.caller,
            run_id: None,
        };
        Invocation::Tool(scope.call(call, call_options).await)
    }

    /// Runs one program and renders its outcome (contracts §6–§7). Every
    /// failure of the program is an [`Outcome`] with `is_error`.
    ///
    /// # Errors
    /// `run_code` arguments out of range (`timeoutMs`).
    pub async fn run_code(
        &self,
        request: RunRequest,
        options: RunOptions,
    ) -> Result<Outcome, RunError> {
        let started = Instant::now();
        let limits = &self.inner.limits;
        let timeout_ms = match request.timeout_ms {
            None => limits.default_timeout_ms,
            Some(ms) if ms >= 1 && ms as u64 <= limits.max_timeout_ms => ms as u64,
            Some(ms) => {
                return Err(RunError::InvalidArguments(format!(
                    "timeoutMs must be an integer from 1 to {}, got {ms}",
                    limits.max_timeout_ms
                )));
            }
        };
        let mut _claim = None;
        let run_id: Arc<str> = match request.run_id {
            Some(id) => {
                let id: Arc<str> = id.into();
                _claim = Some(RunIdClaim::new(&self.inner, &id)?);
                id
            }
            None => format!(
                "{}-{}",
                self.inner.id_prefix,
                self.inner.runs.fetch_add(1, Ordering::Relaxed) + 1
            )
            .into(),
        };
        let deadline = Deadline::new(i128::from(timeout_ms))
            .map_err(|e| RunError::InvalidArguments(e.to_string()))?;
        deadline.start();
        let mut report = Report {
            run_id: Arc::clone(&run_id),
            started,
            timeout_ms,
            memory_limit: limits.memory_limit_bytes,
            output_cap: limits.output_cap_bytes,
            max_images: limits.max_images,
            max_image_bytes: limits.max_image_bytes,
        };
        let (expired, cancel) = (deadline.signal(), options.cancel.clone());

        // Admission: FIFO, bounded by the run's own deadline.
        let _permit = tokio::select! {
            biased;
            _ = cancel.cancelled() => return Ok(report.failure(FailureKind::Cancelled, None, None, 0)),
            _ = expired.cancelled() => return Ok(report.failure(FailureKind::Timeout, None, None, 0)),
            permit = self.inner.admission.acquire() => permit.ok(),
        };

        let setup = RunSetup {
            run_id: Arc::clone(&run_id),
            scope: options
                .scope
                .clone()
                .unwrap_or_else(|| self.inner.registry.scope()),
            events: options.events.clone(),
            caller: options.caller.clone(),
            handle: tokio::runtime::Handle::current(),
            max_parallel: limits.max_parallel_sub_calls,
            output_cap: limits.output_cap_bytes,
        };
        let code = request.code;
        let max_code = limits.max_code_bytes;
        let inner = Arc::clone(&self.inner);
        let (start_expired, start_cancel) = (expired.clone(), cancel.clone());
        // Strip, take a sandbox and run until the program first waits: one
        // hop to a sandbox thread.
        let trip_slot = TripSlot::default();
        let grace = Duration::from_millis(limits.grace_ms);
        let give_up = || {
            past_grace(
                expired.clone(),
                cancel.clone(),
                Arc::clone(&trip_slot),
                grace,
            )
        };
        let first_trip = Arc::clone(&trip_slot);
        // The run's state, once started: what a retired first step printed
        // is still reported.
        let shared_slot: Arc<std::sync::OnceLock<Arc<run::Shared>>> = Arc::default();
        let first_shared = Arc::clone(&shared_slot);
        let first = self
            .inner
            .threads
            .run_or_abandon(
                move || {
                    let program = match strip::prepare(&code, max_code) {
                        Ok(program) => program,
                        Err(e) => {
                            return Err((
                                None,
                                StartError::Syntax(e.message, e.line.zip(e.column)),
                            ));
                        }
                    };
                    let sandbox = inner
                        .take_sandbox()
                        .map_err(|e| (None, StartError::Sandbox(e.to_string())))?;
                    let _ = first_trip.set(Arc::clone(&sandbox.trip));
                    // Stopped before the slot was filled: `past_grace` found
                    // nothing to halt.
                    if start_expired.is_cancelled() || start_cancel.is_cancelled() {
                        sandbox.trip.halt();
                    }
                    let interrupts = Arc::new(Interrupts {
                        trip: Arc::clone(&sandbox.trip),
                        deadline: start_expired,
                        cancel: start_cancel,
                    });
                    let announce = |shared: &Arc<run::Shared>| {
                        let _ = first_shared.set(Arc::clone(shared));
                    };
                    let mut run = Run::start(setup, program, sandbox, interrupts, announce)?;
                    let step = run.step();
                    Ok((run, step))
                },
                give_up(),
                &self.inner.retirements,
            )
            .await;
        let Ok(first) = first else {
            return Ok(match shared_slot.get() {
                Some(shared) => abandoned(shared, &report, stopped(&cancel)),
                None => report.failure(stopped(&cancel), None, None, 0),
            });
        };
        let (mut run, mut step) = match first {
            Ok(pair) => pair,
            Err((run, error)) => {
                let failure = match error {
                    StartError::Syntax(message, position) => Failure {
                        kind: FailureKind::Syntax,
                        message,
                        position,
                    },
                    StartError::Sandbox(message) => Failure {
                        kind: FailureKind::Runtime,
                        message,
                        position: None,
                    },
                };
                let outcome = match run {
                    Some(mut run) => {
                        let outcome = self.finish(&mut run, &mut report, Some(failure)).await;
                        self.dispose(*run);
                        outcome
                    }
                    None => {
                        report.failure(failure.kind, Some(failure.message), failure.position, 0)
                    }
                };
                return Ok(outcome);
            }
        };

        loop {
            if step != Step::Waiting {
                break;
            }
            let next_timer = run.next_timer();
            let timer = async {
                match next_timer {
                    Some(at) => tokio::time::sleep_until(at).await,
                    None => std::future::pending().await,
                }
            };
            tokio::pin!(timer);
            tokio::select! {
                biased;
                _ = cancel.cancelled() => break,
                _ = expired.cancelled() => break,
                settled = run.settled() => match settled {
                    true => {}
                    // Nothing in flight and no timer: the program can never
                    // finish (an unresolved promise). End it now.
                    false if next_timer.is_none() => break,
                    false => tokio::select! {
                        biased;
                        _ = cancel.cancelled() => break,
                        _ = expired.cancelled() => break,
                        _ = &mut timer => {}
                    },
                },
                _ = &mut timer => {}
            }
            let shared = Arc::clone(&run.shared);
            let stepped = self
                .inner
                .threads
                .run_or_abandon(
                    move || {
                        let mut run = run;
                        let step = run.step();
                        (run, step)
                    },
                    give_up(),
                    &self.inner.retirements,
                )
                .await;
            match stepped {
                Ok((next_run, next_step)) => (run, step) = (next_run, next_step),
                Err(Abandoned) => return Ok(abandoned(&shared, &report, stopped(&cancel))),
            }
        }
        let outcome = self.finish(&mut run, &mut report, None).await;
        self.dispose(run);
        Ok(outcome)
    }

    /// Closes the run and renders its outcome.
    async fn finish(
        &self,
        run: &mut Run,
        report: &mut Report,
        start_error: Option<Failure>,
    ) -> Outcome {
        let (cut_calls, cut_timers) = run.close().await;
        let interrupts = Arc::clone(&run.interrupts);
        let interrupted = if interrupts.trip.out_of_memory.load(Ordering::Acquire) {
            Some(FailureKind::Memory)
        } else if interrupts.deadline.is_cancelled() {
            Some(FailureKind::Timeout)
        } else if interrupts.cancel.is_cancelled() {
            Some(FailureKind::Cancelled)
        } else {
            None
        };
        let mut st = run.shared.lock();
        for line in st.rejections.lines() {
            st.capture.push(line);
        }
        if st.not_streamed > 0 {
            run.emit_truncated(st.not_streamed);
        }
        let sub_calls = st.submitted;
        let finish = st.finish.take();
        let images = std::mem::take(&mut st.images);
        let capture = &st.capture;
        let mut outcome = match (start_error, interrupted, finish) {
            (_, Some(FailureKind::Memory), _) if interrupts.trip.host_refused() => {
                let why = "tool arguments waiting or in flight count toward it".to_owned();
                report.render_failure(FailureKind::Memory, Some(why), None, capture, sub_calls)
            }
            (_, Some(kind), _) => report.render_failure(kind, None, None, capture, sub_calls),
            (Some(f), None, _) => {
                report.render_failure(f.kind, Some(f.message), f.position, capture, sub_calls)
            }
            (None, None, Some(finish)) if finish.ok => {
                report.render_success(finish.text, capture, cut_calls, cut_timers, sub_calls)
            }
            (None, None, Some(finish)) => {
                let message = finish.text.as_deref().unwrap_or_default();
                let position = run::position_in_stack(&finish.stack)
                    .map(|at| run.failure_position(at, message));
                report.render_failure(
                    FailureKind::Runtime,
                    finish.text,
                    position,
                    capture,
                    sub_calls,
                )
            }
            (None, None, None) => report.render_failure(
                FailureKind::Runtime,
                Some(
                    "the program never finished: it awaited a promise that can never settle".into(),
                ),
                None,
                capture,
                sub_calls,
            ),
        };
        drop(st);
        report.append_images(&mut outcome, images);
        outcome
    }

    /// Frees the sandbox on a sandbox thread, off the caller's path (a big
    /// heap takes a while to free).
    fn dispose(&self, run: Run) {
        self.inner.threads.detach(move || drop(run));
    }
}

/// The run's memory, once its sandbox is taken (see [`past_grace`]).
type TripSlot = Arc<std::sync::OnceLock<Arc<sandbox::Tripwires>>>;

/// Completes `grace` after the run's deadline or cancellation (see
/// [`Limits::grace_ms`]), and halts the run at the deadline (see
/// `Tripwires::halt`).
async fn past_grace(
    expired: CancellationToken,
    cancel: CancellationToken,
    trip: TripSlot,
    grace: Duration,
) {
    tokio::select! {
        () = expired.cancelled() => {}
        () = cancel.cancelled() => {}
    }
    if let Some(trip) = trip.get() {
        trip.halt();
    }
    tokio::time::sleep(grace).await;
}

/// Why a run was stopped from outside: cancelled, else its deadline.
fn stopped(cancel: &CancellationToken) -> FailureKind {
    if cancel.is_cancelled() {
        FailureKind::Cancelled
    } else {
        FailureKind::Timeout
    }
}

/// The outcome of a run whose sandbox thread was retired: its sub-calls are
/// cancelled and what it printed so far is kept (unless the stuck thread
/// holds the run's state).
fn abandoned(shared: &run::Shared, report: &Report, kind: FailureKind) -> Outcome {
    shared.cancel_calls();
    match shared.try_lock() {
        Some(st) => report.render_failure(kind, None, None, &st.capture, st.submitted),
        None => report.failure(kind, None, None, 0),
    }
}

/// A failure found before the program ran.
struct Failure {
    kind: FailureKind,
    message: String,
    position: Option<(u32, u32)>,
}

/// Renders outcomes for one run.
struct Report {
    run_id: Arc<str>,
    started: Instant,
    timeout_ms: u64,
    memory_limit: usize,
    output_cap: usize,
    max_images: usize,
    max_image_bytes: usize,
}

impl Report {
    fn outcome(&self, kind: Option<FailureKind>, text: String, sub_calls: u32) -> Outcome {
        Outcome {
            run_id: self.run_id.to_string(),
            is_error: kind.is_some(),
            kind,
            content: vec![ContentBlock::text(cap_text(text, self.output_cap))],
            sub_calls,
            elapsed: self.started.elapsed(),
        }
    }

    fn failure(
        &self,
        kind: FailureKind,
        message: Option<String>,
        position: Option<(u32, u32)>,
        sub_calls: u32,
    ) -> Outcome {
        self.render_failure(kind, message, position, &Capture::new(0), sub_calls)
    }

    fn render_failure(
        &self,
        kind: FailureKind,
        message: Option<String>,
        position: Option<(u32, u32)>,
        capture: &Capture,
        sub_calls: u32,
    ) -> Outcome {
        let message = match kind {
            FailureKind::Timeout => format!("the run exceeded its {} ms deadline", self.timeout_ms),
            FailureKind::Memory => {
                let mut m = format!(
                    "the run exceeded its memory limit of {}",
                    size(self.memory_limit)
                );
                if let Some(why) = message {
                    m.push_str(&format!(" ({why})"));
                }
                m
            }
            FailureKind::Cancelled => "the run was cancelled".into(),
            FailureKind::Syntax | FailureKind::Runtime => {
                let mut m = message.unwrap_or_else(|| "unknown error".into());
                if let Some((line, column)) = position {
                    m.push_str(&format!(" (line {line}, column {column})"));
                }
                m
            }
        };
        let mut text = format!("Error: code run failed ({}): {message}", kind.as_str());
        if !capture.is_empty() {
            text.push_str("\nCaptured output:\n");
            capture.render(&mut text);
            while text.ends_with('\n') {
                text.pop();
            }
        }
        self.outcome(Some(kind), text, sub_calls)
    }

    fn render_success(
        &self,
        value: Option<String>,
        capture: &Capture,
        cut_calls: usize,
        cut_timers: usize,
        sub_calls: u32,
    ) -> Outcome {
        let mut text = String::new();
        capture.render(&mut text);
        if let Some(value) = value {
            text.push_str(&value);
        }
        while text.ends_with('\n') {
            text.pop();
        }
        if cut_calls > 0 || cut_timers > 0 {
            let mut parts = Vec::new();
            if cut_calls > 0 {
                parts.push(
                    plural(cut_calls, "sub-call", "sub-calls") + " still running (cancelled)",
                );
            }
            if cut_timers > 0 {
                parts.push(plural(cut_timers, "timer", "timers") + " pending (dropped)");
            }
            if !text.is_empty() {
                text.push('\n');
            }
            text.push_str(&format!(
                "[run_code: the program returned with {}; did you forget an `await`?]",
                parts.join(" and ")
            ));
        }
        if text.is_empty() {
            text.push_str("(run_code completed with no output)");
        }
        self.outcome(None, text, sub_calls)
    }

    fn append_images(&self, outcome: &mut Outcome, images: Vec<run::Image>) {
        let mut count = 0usize;
        let mut bytes = 0usize;
        let mut left_out = 0usize;
        for image in images {
            let size = match &image.block {
                ContentBlock::Image { data, .. } => data.len() / 4 * 3,
                _ => 0,
            };
            if count >= self.max_images || bytes + size > self.max_image_bytes {
                left_out += 1;
                continue;
            }
            count += 1;
            bytes += size;
            outcome.content.push(ContentBlock::text(format!(
                "Image from `{}` (sub-call {}):",
                image.tool, image.id
            )));
            outcome.content.push(image.block);
        }
        if left_out > 0 {
            outcome.content.push(ContentBlock::text(format!(
                "[{} left out: at most {} images and {} per run]",
                plural(left_out, "image", "images"),
                self.max_images,
                size(self.max_image_bytes)
            )));
        }
    }
}

/// A size as people write it: `64 MiB`, `512 KiB`, or bytes when neither
/// is exact.
fn size(bytes: usize) -> String {
    match bytes {
        b if b >= 1 << 20 && b % (1 << 20) == 0 => format!("{} MiB", b >> 20),
        b if b >= 1 << 10 && b % (1 << 10) == 0 => format!("{} KiB", b >> 10),
        b => format!("{b} bytes"),
    }
}

fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

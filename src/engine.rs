//! The run_code engine (contracts §6–§7): one core for both languages.
//!
//! This file is the façade ([`Engine`]): presentations, model-direct calls
//! and runs. A run is admitted and driven by `driver`, which hands the
//! program to its language's room (`typescript/`, `python/`); its
//! sub-calls share one lifecycle (`subcall`) and its outcome is rendered by
//! `report`.

mod budget;
mod discovery;
mod driver;
mod escalation;
pub(crate) mod events;
pub(crate) mod output;
mod progress;
#[cfg(feature = "python")]
mod python;
mod report;
mod request;
mod run_ids;
pub(crate) mod scheduler;
mod session;
mod setup;
mod subcall;
pub(crate) mod typescript;

use std::sync::{Arc, Mutex, PoisonError};

use tokio::sync::Semaphore;

pub use self::request::{RunError, RunOptions, RunRequest};
pub use self::typescript::threads::RetiredThreads;
use crate::contract::call::{Call, ErrorCode, ToolError};
use crate::contract::outcome::{Invocation, Outcome};
use crate::contract::presentation::Mode;
use crate::contract::presentation::Presentation;
use crate::contract::run_code::Language;
use crate::contract::run_code::RUN_CODE;
use crate::limits::{ConfigError, Limits};
use crate::sdk::SdkOptions;
use crate::sdk::presentation::{SdkCache, present};
use crate::state::{MemoryStore, Quotas, StateError, StateStore, Store};
use crate::tool::context::ProgressSink;
use crate::tool::definition::ToolDefinition;
use crate::tool::pipeline::CallOptions;
use crate::tool::registered::shown;
use crate::tool::registry::{Registry, Scope};
use run_ids::RunIds;
use typescript::TypeScriptRuntime;

impl EngineInner {
    /// The store of runs' sessions (a memory store, unless one was chosen).
    fn store(&self) -> Result<Arc<dyn Store>, StateError> {
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(store) = &*state {
            return Ok(Arc::clone(store));
        }
        let store: Arc<dyn Store> = Arc::new(MemoryStore::new(Quotas::of(&self.limits))?);
        *state = Some(Arc::clone(&store));
        Ok(store)
    }
}

struct EngineInner {
    registry: Registry,
    limits: Limits,
    admission: Semaphore,
    run_ids: Arc<RunIds>,
    sdk_cache: SdkCache,
    /// Where runs keep their sessions' values: chosen with
    /// [`Engine::with_state`], else a memory store made at first use.
    state: Mutex<Option<Arc<dyn Store>>>,
    /// TypeScript programs' sandbox threads and warm sandboxes.
    typescript: TypeScriptRuntime,
    /// Python programs' workers, started on the first Python run.
    #[cfg(feature = "python")]
    python: python::PythonRuntime,
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
        Ok(Self {
            inner: Arc::new(EngineInner {
                admission: Semaphore::new(limits.max_concurrent_runs),
                registry,
                run_ids: Arc::new(RunIds::new()),
                sdk_cache: SdkCache::default(),
                state: Mutex::new(None),
                typescript: TypeScriptRuntime::new(&limits),
                #[cfg(feature = "python")]
                python: python::PythonRuntime::new(&limits),
                limits,
            }),
        })
    }

    /// The same engine, its Python programs run on the worker binary at
    /// `path` (Monty's `monty`, or a program that execs it). By default,
    /// `PTC_PYTHON_WORKER`, else `monty` beside the executable, else
    /// `monty` on `PATH` (contracts, Python programs). Set it before the
    /// engine's first Python run: the workers of a pool already started
    /// stay as they are.
    #[cfg(feature = "python")]
    #[must_use]
    pub fn python_worker(self, path: impl Into<std::path::PathBuf>) -> Self {
        self.inner.python.set_worker(path.into());
        self
    }

    /// The same engine, its runs' sessions kept in `store` (contracts §9);
    /// by default, a memory store of its own. Set it before the first run
    /// that uses `state`: the sessions of the store it replaces are no
    /// longer found.
    #[must_use]
    pub fn with_state(self, store: StateStore) -> Self {
        *self
            .inner
            .state
            .lock()
            .unwrap_or_else(PoisonError::into_inner) = Some(store.store);
        self
    }

    /// Opens a new, empty session in this engine's store: its handle, to
    /// pass as `run_code`'s `session` (one per conversation, say).
    ///
    /// # Errors
    /// The store is unavailable, or it keeps no more sessions.
    pub async fn open_session(&self) -> Result<String, StateError> {
        self.inner.store()?.open().await
    }

    /// Why this engine cannot run programs in `language`, if it cannot: a
    /// ptc built without Python programs, or no Monty worker to run them
    /// (said with how to install one). Front ends ask at launch, so the
    /// operator reads it and the model never does.
    pub fn unavailable(&self, language: Language) -> Option<String> {
        if let Some(why) = language.unavailable() {
            return Some(why.to_owned());
        }
        #[cfg(feature = "python")]
        if language == Language::Python {
            return self.inner.python.missing_worker();
        }
        None
    }

    /// Sandbox threads retired because a run's JavaScript went on past its
    /// deadline (or cancellation) plus its grace (`Limits::grace_ms`), where no
    /// interrupt reached it. The run was answered at the grace; each
    /// retirement is logged (`tracing`, warn), and so is each return.
    /// Zero unless QuickJS has a loop ptc does not know of: worth a report.
    pub fn retired_threads(&self) -> RetiredThreads {
        let (total, still_stuck) = self.inner.typescript.retirements();
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
    /// it, `run_code` in the registry's language ([`Registry::language`]).
    /// Byte-identical for the same visible tools, limits, language, working
    /// directory ([`Registry::set_working_directory`]) and tool sources
    /// still starting or failed (an MCP server's, with why: one line each in
    /// `run_code`'s description, none when all are up).
    pub fn presentation(&self, scope: &Scope, mode: Option<Mode>) -> Presentation {
        let (generation, tools, visible) = scope.versioned_visible();
        let shown: Vec<&ToolDefinition> = shown(&tools, &visible).collect();
        let mut options = SdkOptions::from(&self.inner.limits);
        options.working_directory = scope.registry().working_directory();
        options.language = scope.registry().language();
        options.unavailable_sources = scope.registry().absence_notes();
        present(
            &self.inner.sdk_cache,
            (generation, visible),
            &shown,
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
        if call.name == RUN_CODE && mode.offers_run_code() {
            let request = match RunRequest::from_model(call.arguments) {
                // The model writes in the language it was shown.
                Ok(request) => request.language(scope.registry().language()),
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
        if !mode.offers_tools() {
            return Invocation::Tool(Err(ToolError::new(
                ErrorCode::UnknownTool,
                format!("unknown tool `{}`: only `run_code` is available", call.name),
            )));
        }
        if let Some(tool) = scope.lookup(&call.name)
            && !mode.offers(tool.definition.escalation_only)
        {
            return Invocation::Tool(Err(ToolError::denied(format!(
                "tool `{}` is available only in an escalated run_code run, which this host does not offer (native mode)",
                call.name
            ))));
        }
        let call_options = CallOptions {
            cancel: options.cancel,
            caller: options.caller,
            run_id: None,
            escalated: false,
            progress: options.events.map(|sink| sink as Arc<dyn ProgressSink>),
        };
        Invocation::Tool(scope.call(call, call_options).await)
    }

    /// Runs one program and renders its outcome (contracts §6–§7). Every
    /// failure of the program is an [`Outcome`] with `is_error`.
    ///
    /// A request with `sandboxPermissions: "require_escalated"` is first put
    /// to the registry's approver ([`Approver::escalate`](crate::Approver::escalate));
    /// refused, the outcome is a `denied` failure and nothing ran.
    ///
    /// # Errors
    /// `run_code` arguments out of range (`timeoutMs`), an escalation
    /// without a justification, or a `runId` of a run still going.
    pub async fn run_code(
        &self,
        request: RunRequest,
        options: RunOptions,
    ) -> Result<Outcome, RunError> {
        driver::run_code(&self.inner, request, options).await
    }
}

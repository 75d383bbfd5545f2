//! What a run needs from the engine, whatever its language: its id, the
//! tools it may call, where its events go, and its limits.

use std::sync::Arc;

use tokio_util::sync::CancellationToken;

use super::budget::RunBudget;
use super::events::EventSink;
use super::session::RunSession;
use crate::contract::events::{RunEvent, RunEventKind};
use crate::tool::context::{CallerContext, ProgressSink};
use crate::tool::pipeline::CallOptions;
use crate::tool::registry::Scope;

/// What a run needs from the engine.
pub(crate) struct RunSetup {
    pub(crate) run_id: Arc<str>,
    pub(crate) scope: Scope,
    pub(crate) events: Option<Arc<dyn EventSink>>,
    pub(crate) caller: Option<CallerContext>,
    pub(crate) handle: tokio::runtime::Handle,
    pub(crate) max_parallel: usize,
    pub(crate) output_cap: usize,
    /// The run's heap limit (the escalated one in an escalated run).
    pub(crate) memory_limit: usize,
    /// In an approved escalated run, the escalation-only tools it may call:
    /// those the approver was shown. `None`: a standard run.
    pub(crate) granted: Option<Arc<[String]>>,
    /// Its session: the store and handle its `state` reads and writes.
    pub(crate) session: Arc<RunSession>,
    /// Its CPU and sub-call budgets.
    pub(crate) budget: Arc<RunBudget>,
}

impl RunSetup {
    /// Hands `kind` to whoever watches the run, if anyone does.
    pub(crate) fn emit(&self, kind: RunEventKind) {
        if let Some(sink) = &self.events {
            sink.emit(RunEvent {
                run_id: Arc::clone(&self.run_id),
                kind,
            });
        }
    }

    /// The options of a sub-call of `tool`, cancelled with `cancel`.
    pub(crate) fn call_options(&self, tool: &str, cancel: CancellationToken) -> CallOptions {
        CallOptions {
            cancel,
            caller: self.caller.clone(),
            run_id: Some(Arc::clone(&self.run_id)),
            // Only the escalation-only tools the approver was shown.
            escalated: (self.granted.as_ref())
                .is_some_and(|granted| granted.iter().any(|g| g == tool)),
            progress: self
                .events
                .clone()
                .map(|sink| sink as Arc<dyn ProgressSink>),
        }
    }
}

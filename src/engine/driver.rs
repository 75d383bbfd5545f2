//! The run driver: one program from request to outcome, whatever its
//! language. The escalation, the deadline, admission, the run's setup, and
//! the language's room (`typescript`, `python`), which runs the program
//! under the run's `Stop` (contracts §6–§7).

use std::future::Future;
use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio_util::sync::CancellationToken;

use super::EngineInner;
use super::budget::RunBudget;
use super::escalation::{self, Grant, Verdict};
use super::report::Report;
use super::request::{Language, RunError, RunOptions, RunRequest};
use super::session::RunSession;
use super::setup::RunSetup;
use crate::contract::outcome::{FailureKind, Outcome};
use crate::deadline::Deadline;
use crate::limits::Tier;
use crate::state::StateError;

/// Runs one program and renders its outcome, naming its session.
pub(super) async fn run_code(
    inner: &Arc<EngineInner>,
    request: RunRequest,
    options: RunOptions,
) -> Result<Outcome, RunError> {
    let started = Instant::now();
    let limits = &inner.limits;
    let admission = super::request::admit(&request, limits)?;
    let (timeout, tier) = (admission.timeout, admission.tier);
    let (run_id, _claim) = inner.run_ids.assign(request.run_id.clone())?;
    let budget = Arc::new(RunBudget::new(admission.cpu_time, admission.max_sub_calls));
    let report = Report::new(&run_id, started, timeout, limits, &tier, &budget);
    let session = match session(inner, request.session.clone(), timeout, &options).await {
        Ok(session) => Arc::new(session),
        Err(Opened::Refused(e)) => return Err(e),
        Err(Opened::Failed(kind, why)) => return Ok(report.failure(kind, why, None, 0)),
    };
    let admitted = Admitted {
        run_id,
        timeout,
        tier,
        session: Arc::clone(&session),
        budget,
    };
    let mut outcome = run_admitted(inner, request, options, admitted, &report).await;
    report.session(&mut outcome, &session);
    Ok(outcome)
}

/// What a run was given once its request was admitted.
struct Admitted {
    run_id: Arc<str>,
    timeout: Duration,
    tier: Tier,
    session: Arc<RunSession>,
    budget: Arc<RunBudget>,
}

/// The escalation, the deadline, admission, and the program in its
/// language.
async fn run_admitted(
    inner: &Arc<EngineInner>,
    request: RunRequest,
    options: RunOptions,
    admitted: Admitted,
    report: &Report,
) -> Outcome {
    let Admitted {
        run_id,
        timeout,
        tier,
        session,
        budget,
    } = admitted;
    let limits = &inner.limits;
    let scope = options
        .scope
        .clone()
        .unwrap_or_else(|| inner.registry.scope());
    // Code too large to run fails as `syntax` before anything runs: no
    // approver is asked about it.
    let mut granted = None;
    if request.escalated() && request.code.len() <= limits.max_code_bytes {
        let grant = Grant {
            run_id: &run_id,
            timeout,
            tier: &tier,
        };
        match escalation::ask(&scope, &request, grant, &options).await {
            Verdict::Granted(tools) => granted = Some(Arc::from(tools)),
            refused => {
                if let Some(outcome) = refused.outcome(report) {
                    return outcome;
                }
            }
        }
    }
    // The deadline starts once the run may start: a person's time to decide
    // on an escalation is not the program's.
    let deadline = Deadline::of(timeout, None);
    deadline.start();
    let stop = Stop {
        expired: deadline.signal(),
        cancel: options.cancel.clone(),
        grace: Duration::from_millis(limits.grace_ms),
    };

    // Admission: FIFO, bounded by the run's own deadline.
    let _permit = tokio::select! {
        biased;
        _ = stop.cancel.cancelled() => return report.failure(FailureKind::Cancelled, None, None, 0),
        _ = stop.expired.cancelled() => return report.failure(FailureKind::Timeout, None, None, 0),
        permit = inner.admission.acquire() => permit.ok(),
    };

    let setup = RunSetup {
        run_id,
        scope,
        events: options.events,
        caller: options.caller,
        handle: tokio::runtime::Handle::current(),
        max_parallel: limits.max_parallel_sub_calls,
        output_cap: tier.output_cap_bytes,
        memory_limit: tier.memory_limit_bytes,
        granted,
        session,
        budget,
    };
    if request.language == Language::Python {
        return python(inner, request.code, setup, timeout, &stop, report).await;
    }
    let typescript = &inner.typescript;
    typescript
        .run(limits, request.code, setup, &stop, report)
        .await
}

/// Why a run has no session to start with.
enum Opened {
    /// `run_code` named one the store does not have.
    Refused(RunError),
    /// The store could not say: the run fails (why), nothing ran.
    Failed(FailureKind, Option<String>),
}

/// The run's session: the one the request names, checked within the run's
/// deadline and cancellation, or none yet.
async fn session(
    inner: &Arc<EngineInner>,
    named: Option<String>,
    timeout: Duration,
    options: &RunOptions,
) -> Result<RunSession, Opened> {
    let unavailable = |e: StateError| Opened::Failed(FailureKind::Runtime, Some(e.to_string()));
    let store = inner.store().map_err(unavailable)?;
    let Some(handle) = named else {
        return Ok(RunSession::fresh(store));
    };
    let checked = tokio::select! {
        biased;
        () = options.cancel.cancelled() => return Err(Opened::Failed(FailureKind::Cancelled, None)),
        () = tokio::time::sleep(timeout) => return Err(Opened::Failed(FailureKind::Timeout, None)),
        checked = RunSession::named(store, handle) => checked,
    };
    checked.map_err(|e| match e {
        StateError::Unknown { .. } | StateError::Expired { .. } => {
            Opened::Refused(RunError::InvalidArguments(e.to_string()))
        }
        other => unavailable(other),
    })
}

/// A Python program (engine::python), or why it cannot run.
async fn python(
    inner: &Arc<EngineInner>,
    code: String,
    setup: RunSetup,
    timeout: Duration,
    stop: &Stop,
    report: &Report,
) -> Outcome {
    if code.len() > inner.limits.max_code_bytes {
        let message = format!(
            "code is {} bytes, over the {}-byte limit",
            code.len(),
            inner.limits.max_code_bytes
        );
        return report.failure(FailureKind::Syntax, Some(message), None, 0);
    }
    #[cfg(feature = "python")]
    {
        super::python::run(&inner.python, code, setup, timeout, stop.signals(), report).await
    }
    #[cfg(not(feature = "python"))]
    {
        let _ = (setup, timeout, stop);
        let message = Language::Python.unavailable().map(str::to_owned);
        report.failure(FailureKind::Runtime, message, None, 0)
    }
}

/// What ends a run from outside: its deadline and its cancellation, then
/// the grace after which the caller stops waiting for its thread.
pub(super) struct Stop {
    expired: CancellationToken,
    cancel: CancellationToken,
    grace: Duration,
}

impl Stop {
    /// The deadline's signal and the cancellation's.
    pub(super) fn signals(&self) -> (CancellationToken, CancellationToken) {
        (self.expired.clone(), self.cancel.clone())
    }

    /// Completes `grace` after the run's deadline or cancellation (see
    /// [`Limits::grace_ms`](crate::Limits::grace_ms)), calling `at_stop`
    /// when they come.
    pub(super) fn give_up(
        &self,
        at_stop: impl FnOnce() + Send + 'static,
    ) -> impl Future<Output = ()> + Send + 'static {
        let (expired, cancel) = self.signals();
        let grace = self.grace;
        async move {
            tokio::select! {
                () = expired.cancelled() => {}
                () = cancel.cancelled() => {}
            }
            at_stop();
            tokio::time::sleep(grace).await;
        }
    }

    /// Why the run was stopped from outside: cancelled, else its deadline.
    pub(super) fn reason(&self) -> FailureKind {
        if self.cancel.is_cancelled() {
            FailureKind::Cancelled
        } else {
            FailureKind::Timeout
        }
    }
}

//! The run driver: one program from request to outcome. Admission, the
//! first step on a sandbox thread, the loop that waits for sub-calls and
//! timers and steps again, and the closing render (contracts §6–§7).

use std::future::Future;
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use tokio_util::sync::CancellationToken;

use super::EngineInner;
use super::escalation::{self, Grant, Verdict};
use super::outcome::{FailureKind, Outcome};
use super::report::{Located, Report, StartFailure};
use super::request::{Language, RunError, RunOptions, RunRequest};
use super::run::{self, Run, RunSetup, StartError, Step};
use super::sandbox::{Interrupts, Sandbox, Tripwires};
use super::strip;
use super::threads::Abandoned;
use crate::deadline::Deadline;

/// Runs one program and renders its outcome.
pub(super) async fn run_code(
    inner: &Arc<EngineInner>,
    request: RunRequest,
    options: RunOptions,
) -> Result<Outcome, RunError> {
    let started = Instant::now();
    let limits = &inner.limits;
    let (timeout, tier) = request.admit(limits)?;
    let (run_id, _claim) = inner.run_ids.assign(request.run_id.clone())?;
    let report = Report::new(&run_id, started, timeout, limits, &tier);
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
                if let Some(outcome) = refused.outcome(&report) {
                    return Ok(outcome);
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
        trip: TripSlot::default(),
        grace: Duration::from_millis(limits.grace_ms),
    };

    // Admission: FIFO, bounded by the run's own deadline.
    let _permit = tokio::select! {
        biased;
        _ = stop.cancel.cancelled() => return Ok(report.failure(FailureKind::Cancelled, None, None, 0)),
        _ = stop.expired.cancelled() => return Ok(report.failure(FailureKind::Timeout, None, None, 0)),
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
    };
    if request.language == Language::Python {
        return Ok(python(inner, request.code, setup, timeout, &stop, &report).await);
    }
    let (run, step) = match first_step(inner, request.code, setup, &stop, &report).await {
        Ok(started) => started,
        Err(outcome) => return Ok(outcome),
    };
    let mut run = match drive(inner, run, step, &stop, &report).await {
        Ok(run) => run,
        Err(outcome) => return Ok(outcome),
    };
    let outcome = conclude(&mut run, &report, None).await;
    dispose(inner, run);
    Ok(outcome)
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
        let stopped = (stop.expired.clone(), stop.cancel.clone());
        super::python::run(&inner.python, code, setup, timeout, stopped, report).await
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
struct Stop {
    expired: CancellationToken,
    cancel: CancellationToken,
    /// The run's memory, once its sandbox is taken (see [`Stop::give_up`]).
    trip: TripSlot,
    grace: Duration,
}

type TripSlot = Arc<OnceLock<Arc<Tripwires>>>;

impl Stop {
    /// Completes `grace` after the run's deadline or cancellation (see
    /// [`Limits::grace_ms`](crate::Limits::grace_ms)), and halts the run at
    /// the deadline (see `Tripwires::halt`).
    fn give_up(&self) -> impl Future<Output = ()> + Send + 'static {
        let (expired, cancel) = (self.expired.clone(), self.cancel.clone());
        let (trip, grace) = (Arc::clone(&self.trip), self.grace);
        async move {
            tokio::select! {
                () = expired.cancelled() => {}
                () = cancel.cancelled() => {}
            }
            if let Some(trip) = trip.get() {
                trip.halt();
            }
            tokio::time::sleep(grace).await;
        }
    }

    /// Why the run was stopped from outside: cancelled, else its deadline.
    fn reason(&self) -> FailureKind {
        if self.cancel.is_cancelled() {
            FailureKind::Cancelled
        } else {
            FailureKind::Timeout
        }
    }
}

/// Strips the program, takes a sandbox and runs until the program first
/// waits: one hop to a sandbox thread. A program that never got going is
/// answered here.
async fn first_step(
    inner: &Arc<EngineInner>,
    code: String,
    setup: RunSetup,
    stop: &Stop,
    report: &Report,
) -> Result<(Run, Step), Outcome> {
    let inner_for_thread = Arc::clone(inner);
    let max_code = inner.limits.max_code_bytes;
    // An escalated heap limit needs a sandbox of its own; warm ones carry the standard one.
    let fresh = (setup.memory_limit != inner.limits.memory_limit_bytes)
        .then_some((setup.memory_limit, inner.limits.stack_limit_bytes));
    let interrupts = (stop.expired.clone(), stop.cancel.clone());
    let trip_slot = Arc::clone(&stop.trip);
    // The run's state, once started: what a retired first step printed is
    // still reported.
    let shared_slot: Arc<OnceLock<Arc<run::Shared>>> = Arc::default();
    let first_shared = Arc::clone(&shared_slot);
    let job = move || {
        let program = strip::prepare(&code, max_code)
            .map_err(|e| (None, StartError::Syntax(e.message, e.line.zip(e.column))))?;
        let sandbox = match fresh {
            Some((memory, stack)) => Sandbox::new(memory, stack, program.intrinsics),
            None => inner_for_thread
                .warm
                .take(program.intrinsics, &inner_for_thread.threads),
        }
        .map_err(|e| (None, StartError::Sandbox(e.to_string())))?;
        let _ = trip_slot.set(Arc::clone(&sandbox.trip));
        let (deadline, cancel) = interrupts;
        // Stopped before the slot was filled: `give_up` found nothing to halt.
        if deadline.is_cancelled() || cancel.is_cancelled() {
            sandbox.trip.halt();
        }
        let interrupts = Arc::new(Interrupts {
            trip: Arc::clone(&sandbox.trip),
            deadline,
            cancel,
        });
        let announce = |shared: &Arc<run::Shared>| {
            let _ = first_shared.set(Arc::clone(shared));
        };
        let mut run = Run::start(setup, program, sandbox, interrupts, announce)?;
        let step = run.step();
        Ok((run, step))
    };
    let first = inner
        .threads
        .run_or_abandon(job, stop.give_up(), &inner.retirements)
        .await;
    let Ok(first) = first else {
        return Err(match shared_slot.get() {
            Some(shared) => abandoned(shared, report, stop.reason()),
            None => report.failure(stop.reason(), None, None, 0),
        });
    };
    let (run, error) = match first {
        Ok(started) => return Ok(started),
        Err(failed) => failed,
    };
    let failure = match error {
        StartError::Syntax(message, position) => StartFailure {
            kind: FailureKind::Syntax,
            message,
            position,
        },
        StartError::Sandbox(message) => StartFailure {
            kind: FailureKind::Runtime,
            message,
            position: None,
        },
    };
    Err(match run {
        Some(mut run) => {
            let outcome = conclude(&mut run, report, Some(failure)).await;
            dispose(inner, *run);
            outcome
        }
        None => report.failure(failure.kind, Some(failure.message), failure.position, 0),
    })
}

/// Steps the run each time a sub-call settles or a timer is due, until the
/// program finishes, is stopped, or can never finish.
async fn drive(
    inner: &Arc<EngineInner>,
    mut run: Run,
    mut step: Step,
    stop: &Stop,
    report: &Report,
) -> Result<Run, Outcome> {
    while step == Step::Waiting {
        if !wake(&mut run, stop).await {
            break;
        }
        let shared = Arc::clone(&run.shared);
        let stepped = inner
            .threads
            .run_or_abandon(
                move || {
                    let mut run = run;
                    let step = run.step();
                    (run, step)
                },
                stop.give_up(),
                &inner.retirements,
            )
            .await;
        match stepped {
            Ok((next_run, next_step)) => (run, step) = (next_run, next_step),
            Err(Abandoned) => return Err(abandoned(&shared, report, stop.reason())),
        }
    }
    Ok(run)
}

/// Waits for the run's next reason to step: a settled sub-call or a due
/// timer. False when the run must end instead: stopped from outside, or
/// nothing in flight and no timer (an unresolved promise it awaits can
/// never settle).
async fn wake(run: &mut Run, stop: &Stop) -> bool {
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
        _ = stop.cancel.cancelled() => false,
        _ = stop.expired.cancelled() => false,
        settled = run.settled() => match settled {
            true => true,
            false if next_timer.is_none() => false,
            false => tokio::select! {
                biased;
                _ = stop.cancel.cancelled() => false,
                _ = stop.expired.cancelled() => false,
                _ = &mut timer => true,
            },
        },
        _ = &mut timer => true,
    }
}

/// Closes the run and renders its outcome.
async fn conclude(run: &mut Run, report: &Report, start_error: Option<StartFailure>) -> Outcome {
    let ending = run.end().await;
    let (capture, sub_calls) = (&ending.capture, ending.sub_calls);
    let mut outcome = match (start_error, ending.interrupted, ending.finish) {
        (_, Some(kind), _) => {
            let why = (kind == FailureKind::Memory && ending.host_refused_memory)
                .then(|| super::report::HELD_VALUES.to_owned());
            let progress = ending.progress.as_ref();
            report.limit_failure(kind, why, progress, capture, sub_calls, None)
        }
        (Some(f), None, _) => {
            report.render_failure(f.kind, Some(f.message), f.position, capture, sub_calls)
        }
        (None, None, Some(finish)) if finish.ok => {
            let (calls, timers) = (ending.cut_calls, ending.cut_timers);
            report.render_success(finish.text, capture, calls, timers, sub_calls)
        }
        (None, None, Some(finish)) => {
            let located = Located {
                position: ending.position,
                hint: ending.hint,
                excerpt: ending.excerpt,
            };
            report.runtime_failure(finish.text, located, capture, sub_calls)
        }
        (None, None, None) => {
            let never = "the program never finished: it awaited a promise that can never settle";
            let kind = FailureKind::Runtime;
            report.render_failure(kind, Some(never.into()), None, capture, sub_calls)
        }
    };
    report.append_images(&mut outcome, ending.images);
    outcome
}

/// Frees the sandbox on a sandbox thread, off the caller's path (a big heap
/// takes a while to free).
fn dispose(inner: &EngineInner, run: Run) {
    inner.threads.detach(move || drop(run));
}

/// The outcome of a run whose sandbox thread was retired: its sub-calls are
/// cancelled and what it printed so far is kept (unless the stuck thread
/// holds the run's state).
fn abandoned(shared: &run::Shared, report: &Report, kind: FailureKind) -> Outcome {
    match shared.abandon() {
        Some((capture, progress)) => {
            let (made, progress) = (
                progress.made,
                (kind != FailureKind::Cancelled).then_some(&progress),
            );
            report.limit_failure(kind, None, progress, &capture, made, None)
        }
        None => report.failure(kind, None, None, 0),
    }
}

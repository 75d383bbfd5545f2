//! TypeScript programs: the TypeScript room of the engine. A program is
//! stripped to a script (`strip`) and run in a fresh QuickJS sandbox
//! (`sandbox`, `guards`, `intrinsics`) on a sandbox thread (`threads`,
//! `warm`), one step at a time (`run/`): until it first waits, then each
//! time a sub-call settles or a timer is due. Values and text come out of
//! QuickJS through `convert` and `text`; a failure is placed and explained
//! by `position`, `excerpt`, `hint` and `returned`. What is
//! language-neutral comes from the engine: admission, the deadline and
//! cancellation (driver), the scheduler, sub-call ids, events, the capture
//! and the outcome's text.

pub(crate) mod convert;
mod excerpt;
mod guards;
mod hint;
pub(crate) mod intrinsics;
mod position;
mod returned;
pub(crate) mod run;
pub(crate) mod sandbox;
pub(crate) mod strip;
pub(crate) mod text;
pub(crate) mod threads;
mod warm;

use std::future::Future;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use super::budget::RunBudget;
use super::driver::Stop;
use super::report::{HELD_VALUES, Located, Report, StartFailure, never_finished};
use super::request::Language;
use super::setup::RunSetup;
use crate::contract::outcome::{FailureKind, Outcome};
use crate::limits::Limits;
use run::{Run, StartError, Step};
use sandbox::{Interrupts, Sandbox, Tripwires};
use threads::{Abandoned, Retirements, SandboxThreads};
use warm::WarmSandboxes;

/// What TypeScript runs share: the sandbox threads, the threads retired
/// from them, and the warm sandboxes (with the engine's standard heap and
/// stack limits).
pub(super) struct TypeScriptRuntime {
    threads: Arc<SandboxThreads>,
    retirements: Retirements,
    warm: Arc<WarmSandboxes>,
}

impl TypeScriptRuntime {
    pub(super) fn new(limits: &Limits) -> Self {
        Self {
            threads: SandboxThreads::shared(limits.thread_stack_bytes),
            retirements: Retirements::default(),
            warm: Arc::new(WarmSandboxes::new(
                limits.memory_limit_bytes,
                limits.stack_limit_bytes,
            )),
        }
    }

    /// Sandbox threads retired so far, and those still stuck.
    pub(super) fn retirements(&self) -> (u64, usize) {
        self.retirements.counts()
    }

    /// Runs one TypeScript program, admitted, under `stop` and the
    /// engine's `limits`.
    pub(super) async fn run(
        &self,
        limits: &Limits,
        code: String,
        setup: RunSetup,
        stop: &Stop,
        report: &Report,
    ) -> Outcome {
        let trip = TripSlot::default();
        let (run, step) = match self
            .first_step(limits, code, setup, stop, &trip, report)
            .await
        {
            Ok(started) => started,
            Err(outcome) => return outcome,
        };
        let mut run = match self.drive(run, step, stop, &trip, report).await {
            Ok(run) => run,
            Err(outcome) => return outcome,
        };
        let outcome = conclude(&mut run, report, None).await;
        self.dispose(run);
        outcome
    }

    /// Strips the program, takes a sandbox and runs until the program first
    /// waits: one hop to a sandbox thread. A program that never got going is
    /// answered here.
    async fn first_step(
        &self,
        limits: &Limits,
        code: String,
        setup: RunSetup,
        stop: &Stop,
        trip: &TripSlot,
        report: &Report,
    ) -> Result<(Run, Step), Outcome> {
        let (warm, threads) = (Arc::clone(&self.warm), Arc::clone(&self.threads));
        let max_code = limits.max_code_bytes;
        // An escalated heap limit needs a sandbox of its own; warm ones carry the standard one.
        let fresh = (setup.memory_limit != limits.memory_limit_bytes)
            .then_some((setup.memory_limit, limits.stack_limit_bytes));
        let interrupts = stop.signals();
        let trip_slot = Arc::clone(trip);
        // The run's state, once started: what a retired first step printed is
        // still reported.
        let shared_slot: Arc<OnceLock<Arc<run::Shared>>> = Arc::default();
        let first_shared = Arc::clone(&shared_slot);
        let budget = Arc::clone(&setup.budget);
        let step_budget = Arc::clone(&budget);
        let job = move || {
            let _stretch = budget.stretch();
            let program = strip::prepare(&code, max_code)
                .map_err(|e| (None, StartError::Syntax(e.message, e.line.zip(e.column))))?;
            let sandbox = match fresh {
                Some((memory, stack)) => Sandbox::new(memory, stack, program.intrinsics),
                None => warm.take(program.intrinsics, &threads),
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
                budget: Arc::clone(&budget),
            });
            let announce = |shared: &Arc<run::Shared>| {
                let _ = first_shared.set(Arc::clone(shared));
            };
            let mut run = Run::start(setup, program, sandbox, interrupts, announce)?;
            let step = run.step();
            Ok((run, step))
        };
        let watch = give_up(stop, trip, &step_budget);
        let first = self
            .threads
            .run_or_abandon(job, watch, &self.retirements)
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
        let failure = start_failure(error);
        Err(match run {
            Some(mut run) => {
                let outcome = conclude(&mut run, report, Some(failure)).await;
                self.dispose(*run);
                outcome
            }
            None => report.failure(failure.kind, Some(failure.message), failure.position, 0),
        })
    }

    /// Steps the run each time a sub-call settles or a timer is due, until
    /// the program finishes, is stopped, or can never finish.
    async fn drive(
        &self,
        mut run: Run,
        mut step: Step,
        stop: &Stop,
        trip: &TripSlot,
        report: &Report,
    ) -> Result<Run, Outcome> {
        while step == Step::Waiting {
            // A budget spent as a step ended stops the run as at once as a
            // deadline does: nothing more is awaited.
            if run.interrupts.budget.cpu_spent() || !wake(&mut run, stop).await {
                break;
            }
            let shared = Arc::clone(&run.shared);
            let watch = give_up(stop, trip, &run.interrupts.budget);
            let stepped = self
                .threads
                .run_or_abandon(
                    move || {
                        let mut run = run;
                        let budget = Arc::clone(&run.interrupts.budget);
                        let _stretch = budget.stretch();
                        let step = run.step();
                        (run, step)
                    },
                    watch,
                    &self.retirements,
                )
                .await;
            match stepped {
                Ok((next_run, next_step)) => (run, step) = (next_run, next_step),
                Err(Abandoned) => return Err(abandoned(&shared, report, stop.reason())),
            }
        }
        Ok(run)
    }

    /// Frees the sandbox on a sandbox thread, off the caller's path (a big
    /// heap takes a while to free).
    fn dispose(&self, run: Run) {
        self.threads.detach(move || drop(run));
    }
}

/// The run's memory, once its sandbox is taken: halted at the deadline.
type TripSlot = Arc<OnceLock<Arc<Tripwires>>>;

/// How a program that never got going failed.
fn start_failure(error: StartError) -> StartFailure {
    match error {
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
    }
}

/// Completes the grace after the run's deadline or cancellation, halting
/// its sandbox at the deadline (see `Tripwires::halt`): a loop whose every
/// turn is long native work is then asked at once. Until then it has the
/// interrupt handler asked whenever the step could have spent the run's
/// CPU budget, for the same loop.
fn give_up(
    stop: &Stop,
    trip: &TripSlot,
    budget: &Arc<RunBudget>,
) -> impl Future<Output = ()> + Send + 'static {
    let halt = Arc::clone(trip);
    let given_up = stop.give_up(move || {
        if let Some(trip) = halt.get() {
            trip.halt();
        }
    });
    let (trip, budget) = (Arc::clone(trip), Arc::clone(budget));
    async move {
        tokio::select! {
            () = given_up => {}
            never = ask_at_budget(&trip, &budget) => match never {},
        }
    }
}

/// The shortest wait between two asks for the CPU budget's sake.
const ASK_AT_MOST_EVERY: Duration = Duration::from_millis(1);

/// Has the sandbox's interrupt handler asked whenever the step could have
/// spent the run's CPU budget (it measures then; see
/// `RunBudget::spent_in_stretch`): QuickJS asks only once per up to
/// 10,000 polls, and a loop of long native calls makes few.
/// Once the budget is spent the handler has its answer: no more asks (a
/// step stuck in native work would otherwise be asked every millisecond).
async fn ask_at_budget(trip: &TripSlot, budget: &RunBudget) -> std::convert::Infallible {
    let ask = || {
        if let Some(trip) = trip.get() {
            trip.ask_soon();
        }
    };
    budget.look_when_due(ASK_AT_MOST_EVERY, ask).await;
    std::future::pending().await
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
    let (expired, cancel) = stop.signals();
    tokio::select! {
        biased;
        _ = cancel.cancelled() => false,
        _ = expired.cancelled() => false,
        settled = run.settled() => match settled {
            true => true,
            false if next_timer.is_none() => false,
            false => tokio::select! {
                biased;
                _ = cancel.cancelled() => false,
                _ = expired.cancelled() => false,
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
                .then(|| HELD_VALUES.to_owned());
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
            let never = never_finished(Language::TypeScript);
            let kind = FailureKind::Runtime;
            report.render_failure(kind, Some(never), None, capture, sub_calls)
        }
    };
    report.append_images(&mut outcome, ending.images);
    outcome
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

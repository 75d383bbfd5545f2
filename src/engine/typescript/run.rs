//! One run: its sandbox and state, and the step function that advances
//! the program until it waits or ends. The bridge to the program, sub-call
//! dispatch, timers and the description of errors and rejections each have
//! a room below.

mod bridge;
mod describe;
mod discovery;
mod dispatch;
mod rejections;
mod state;
mod timers;

use std::sync::{Arc, Mutex, MutexGuard, PoisonError, TryLockError, Weak};

use rquickjs::{Context, Ctx, Function, Object, Runtime, Value};
use tokio::sync::mpsc;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use super::convert;
use super::hint;
use super::position;
use super::returned::Returned;
use super::sandbox::{Interrupts, Poller, Sandbox, Tripwires, eval_named};
use super::strip::PreparedProgram;
use super::text;
use crate::contract::call::{ErrorCode, ToolResult};
use crate::contract::events::LogLevel;
use crate::contract::events::RunEventKind;
use crate::contract::outcome::FailureKind;
use crate::engine::output::Capture;
use crate::engine::progress::Progress;
use crate::engine::request::Language;
use crate::engine::setup::RunSetup;
use crate::engine::subcall::{Calls, Image};
use bridge::host;
use describe::{PROGRAM_FILE, describe_error, position_in_stack};
use dispatch::{Completion, Task};
use rejections::{Rejections, describe_rejections, track_rejection};
use state::{StateCalls, deliver_state};
use timers::Timers;

/// How the program ended, as the prelude reports it.
pub(crate) struct Finish {
    pub(crate) ok: bool,
    /// The rendered return value (success) or the error text (failure).
    pub(crate) text: Option<String>,
    /// The error's stack, for the model-code position.
    pub(crate) stack: String,
}

/// What a closed run leaves for its outcome.
pub(crate) struct Ending {
    /// What the program printed, unhandled rejections last.
    pub(crate) capture: Capture,
    pub(crate) sub_calls: u32,
    /// How the program ended; none if it never did.
    pub(crate) finish: Option<Finish>,
    /// The model-code position of the error the program ended with.
    pub(crate) position: Option<(u32, u32)>,
    /// What the error most likely came from, when the code shows a known slip.
    pub(crate) hint: Option<String>,
    /// The model's failing line with a caret under what failed.
    pub(crate) excerpt: Option<String>,
    pub(crate) images: Vec<Image>,
    /// Sub-calls cut off and timers dropped when the run closed.
    pub(crate) cut_calls: usize,
    pub(crate) cut_timers: usize,
    /// Why the run was stopped, if an interrupt stopped it.
    pub(crate) interrupted: Option<FailureKind>,
    /// How far it got, when its deadline or memory limit stopped it.
    pub(crate) progress: Option<Progress>,
    /// The memory limit was reached by the host's copies of arguments.
    pub(crate) host_refused_memory: bool,
}

/// Run state shared by the native functions, the run loop and the tasks of
/// its sub-calls. Held briefly; a task that finds it held hands its result
/// to the run loop instead of waiting.
pub(crate) struct RunState {
    calls: Calls<Task>,
    submitting: Option<u32>,
    inline: Option<ToolResult>,
    /// Settled sub-calls the program has not taken yet, each with the bytes
    /// its value is charged to the run until it does.
    ready: Vec<(u32, ToolResult, usize)>,
    closing: bool,
    capture: Capture,
    not_streamed: usize,
    timers: Timers,
    finish: Option<Finish>,
    rejections: Rejections,
    /// What each tool last returned, in outline (for a `TypeError`'s text).
    returned: Returned,
    /// The program's `state` calls not yet answered.
    state_calls: StateCalls,
}

pub(crate) struct Shared {
    setup: RunSetup,
    /// The run's memory, which copies of its arguments are charged to.
    memory: Arc<Tripwires>,
    /// Itself, for sub-call tasks: they must not keep a dropped run alive.
    this: Weak<Shared>,
    completions: mpsc::UnboundedSender<Completion>,
    /// Parent of every sub-call's signal: cancelled when the run ends.
    calls_cancel: CancellationToken,
    state: Mutex<RunState>,
}

/// A run's sandbox and state; moves between sandbox threads step by step.
pub(crate) struct Run {
    // Field order matters: the context must go before its runtime, which is
    // held only to keep it alive as long as the context.
    context: Context,
    _runtime: Runtime,
    pub(crate) shared: Arc<Shared>,
    pub(crate) interrupts: Arc<Interrupts>,
    inbox: mpsc::UnboundedReceiver<Completion>,
    program: PreparedProgram,
    /// The last step left the program waiting (on sub-calls or timers);
    /// otherwise a limit that strikes finds its JavaScript running.
    waiting: bool,
}

/// What a step left behind.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Step {
    /// Waiting for sub-calls or timers.
    Waiting,
    /// The program's function settled.
    Finished,
    /// The interrupt handler stopped it (deadline, memory or cancellation).
    Interrupted,
}

/// A failure before the program could start.
pub(crate) enum StartError {
    /// The sandbox could not be built (out of memory at start-up).
    Sandbox(String),
    /// QuickJS refused the program: message and model position.
    Syntax(String, Option<(u32, u32)>),
}

impl Drop for Run {
    /// Before the context is freed (its fields drop after this), so a late
    /// allocation or deadline cannot write into freed memory.
    fn drop(&mut self) {
        self.interrupts.trip.forget_countdown();
    }
}

impl Drop for Shared {
    /// A run dropped mid-way (its caller gave up) still stops its sub-calls.
    fn drop(&mut self) {
        self.calls_cancel.cancel();
        let st = self.state.get_mut().unwrap_or_else(PoisonError::into_inner);
        for task in st.calls.locals().flatten() {
            task.abort();
        }
        st.state_calls.cut_off();
    }
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, RunState> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The state, unless someone holds it.
    fn try_lock(&self) -> Option<MutexGuard<'_, RunState>> {
        match self.state.try_lock() {
            Ok(st) => Some(st),
            Err(TryLockError::Poisoned(e)) => Some(e.into_inner()),
            Err(TryLockError::WouldBlock) => None,
        }
    }

    /// Gives up on a run whose sandbox thread was retired: cancels every
    /// sub-call, in flight or not yet started, and takes what the program
    /// printed and how many sub-calls it made (unless the stuck thread holds
    /// the state).
    pub(crate) fn abandon(&self) -> Option<(Capture, Progress)> {
        self.calls_cancel.cancel();
        let mut st = self.try_lock()?;
        st.closing = true;
        st.state_calls.cut_off();
        let progress = Progress {
            running: true,
            ..st.calls.progress(Language::TypeScript, |_| Vec::new())
        };
        Some((
            std::mem::replace(&mut st.capture, Capture::new(0)),
            progress,
        ))
    }

    /// `log(level, text)` from the prelude: a console line.
    fn log(&self, level: i32, text: &Value<'_>) {
        let text = text::of_string(text).unwrap_or_default();
        let level = LogLevel::from_index(level);
        let mut st = self.lock();
        let line = format!("{}{text}", level.prefix());
        if st.capture.push(line) {
            self.setup.emit(RunEventKind::Log { level, text });
        } else {
            st.not_streamed += 1;
        }
    }

    /// `finish(ok, text, stack)` from the prelude: how the program ended.
    fn finished(&self, finish: Finish) {
        self.lock().finish = Some(finish);
    }
}

impl Run {
    /// Builds the sandbox, binds the globals and starts the program. The
    /// run's state is handed to `announce` before the program's first line,
    /// so what it prints can be reported even if this never returns.
    pub(crate) fn start(
        setup: RunSetup,
        program: PreparedProgram,
        sandbox: Sandbox,
        interrupts: Arc<Interrupts>,
        announce: impl FnOnce(&Arc<Shared>),
    ) -> Result<Run, (Option<Box<Run>>, StartError)> {
        let (completions, inbox) = mpsc::unbounded_channel();
        let shared = Arc::new_cyclic(|this| Shared {
            memory: Arc::clone(&sandbox.trip),
            this: Weak::clone(this),
            completions,
            calls_cancel: CancellationToken::new(),
            state: Mutex::new(RunState {
                calls: Calls::new(setup.max_parallel),
                submitting: None,
                inline: None,
                ready: Vec::new(),
                closing: false,
                capture: Capture::new(setup.output_cap),
                not_streamed: 0,
                timers: Timers::default(),
                finish: None,
                rejections: Rejections::default(),
                returned: Returned::default(),
                state_calls: StateCalls::default(),
            }),
            setup,
        });
        announce(&shared);
        let Sandbox {
            context, runtime, ..
        } = sandbox;
        let mut poller = context.with(|ctx| Poller::new(Arc::clone(&interrupts), &ctx));
        runtime.set_interrupt_handler(Some(Box::new(move || poller.poll())));
        let tracker_shared = Arc::clone(&shared);
        runtime.set_host_promise_rejection_tracker(Some(Box::new(
            move |ctx, promise, reason, is_handled| {
                track_rejection(&tracker_shared, &ctx, promise, &reason, is_handled);
            },
        )));
        let run = Run {
            context,
            _runtime: runtime,
            shared,
            interrupts,
            inbox,
            program,
            waiting: false,
        };
        let started = run.context.with(|ctx| -> Result<(), StartError> {
            let host = bridge::install(&ctx, &run.shared)?;
            let program = &run.program;
            let main = eval_named(&ctx, &program.script, PROGRAM_FILE).map_err(|e| {
                let (message, position) = describe_error(&ctx, e);
                let position = position.map(|(l, c)| program.to_model_position(l, c));
                StartError::Syntax(message, position)
            })?;
            let start: Function = host.get("start").map_err(|e| internal(&ctx, e))?;
            start.call::<_, ()>((main,)).map_err(|e| internal(&ctx, e))
        });
        match started {
            Ok(()) => Ok(run),
            Err(e) => Err((Some(Box::new(run)), e)),
        }
    }

    /// Advances the program until it waits, ends or is interrupted.
    pub(crate) fn step(&mut self) -> Step {
        let step = self.step_until_waiting();
        self.waiting = step == Step::Waiting;
        step
    }

    fn step_until_waiting(&mut self) -> Step {
        let shared = Arc::clone(&self.shared);
        let interrupts = Arc::clone(&self.interrupts);
        let inbox = &mut self.inbox;
        self.context.with(|ctx| {
            let Some(host) = host(&ctx) else {
                return Step::Interrupted;
            };
            loop {
                if interrupts.should_stop() {
                    return Step::Interrupted;
                }
                // JavaScript's order: the promise jobs already queued run
                // before any settled sub-call or timer is delivered, and
                // again after each timer callback (a microtask checkpoint).
                let Some(mut progressed) = run_jobs(&ctx, &interrupts) else {
                    return Step::Interrupted;
                };
                while let Ok(completion) = inbox.try_recv() {
                    shared.complete(completion);
                }
                if deliver(&shared, &ctx, &host) {
                    progressed = true;
                }
                match fire_timers(&shared, &ctx, &interrupts, &host) {
                    Some(true) => progressed = true,
                    Some(false) => {}
                    None => return Step::Interrupted,
                }
                match run_jobs(&ctx, &interrupts) {
                    Some(ran) => progressed |= ran,
                    None => return Step::Interrupted,
                }
                describe_rejections(&shared, &ctx);
                if shared.lock().finish.is_some() {
                    return Step::Finished;
                }
                if !progressed {
                    return Step::Waiting;
                }
            }
        })
    }

    /// Waits (holding no thread) until a settled sub-call awaits the
    /// program, or the run is ending (a settled answer it had no memory
    /// left to hold: the step then ends it); `false` when neither can come:
    /// nothing settled, nothing in flight.
    pub(crate) async fn settled(&mut self) -> bool {
        loop {
            {
                let st = self.shared.lock();
                let ready = !st.ready.is_empty() || st.state_calls.any_ready();
                if ready || self.shared.memory.ending() {
                    return true;
                }
                if !st.calls.any_in_flight() && !st.state_calls.any_in_flight() {
                    return false;
                }
            }
            match self.inbox.recv().await {
                Some(completion) => self.shared.complete(completion),
                None => return false,
            }
        }
    }

    /// When the next timer is due.
    pub(crate) fn next_timer(&self) -> Option<Instant> {
        self.shared.lock().timers.next_due()
    }

    /// Ends the run: queued sub-calls never start (settled
    /// `ABORTED_BEFORE_DISPATCH`), in-flight ones are cancelled and awaited
    /// (settled `ABORTED`). Returns (sub-calls cut off, timers dropped).
    async fn close(&mut self) -> (usize, usize) {
        let cut = {
            let mut st = self.shared.lock();
            st.closing = true;
            st.state_calls.cut_off();
            st.calls.close_queue(&self.shared.setup)
        };
        self.shared.calls_cancel.cancel();
        while self.shared.lock().calls.any_in_flight() {
            match self.inbox.recv().await {
                Some(completion) => self.shared.complete(completion),
                None => break,
            }
        }
        let timers = {
            let mut st = self.shared.lock();
            st.ready.clear();
            st.timers.drop_all()
        };
        (cut, timers)
    }

    /// Closes the run (see [`close`](Self::close)) and takes what its
    /// outcome is made of.
    pub(crate) async fn end(&mut self) -> Ending {
        let interrupted = self.interrupts.reason();
        let progress = matches!(
            interrupted,
            Some(FailureKind::Timeout | FailureKind::Memory)
        )
        .then(|| self.progress());
        let (cut_calls, cut_timers) = self.close().await;
        let mut st = self.shared.lock();
        for line in st.rejections.lines() {
            st.capture.push(line);
        }
        if st.not_streamed > 0 {
            self.emit_truncated(st.not_streamed);
        }
        let mut finish = st.finish.take();
        let (position, hint, excerpt) = match &mut finish {
            Some(finish) if !finish.ok => {
                let message = finish.text.as_deref().unwrap_or_default();
                let position =
                    position_in_stack(&finish.stack).map(|at| self.failure_position(at, message));
                let path = position.and_then(|at| self.program.callee(at));
                let failure = hint::Failure {
                    message,
                    line: position.map(|(line, _)| line),
                    path: path.as_deref(),
                    returned: &st.returned,
                };
                let hint = hint::hint(&self.program.script, &failure);
                if let Some(named) = position.and_then(|at| self.program.named(at, message)) {
                    finish.text = Some(named);
                }
                (
                    position,
                    hint,
                    position.and_then(|at| self.program.excerpt(at)),
                )
            }
            _ => (None, None, None),
        };
        Ending {
            capture: std::mem::replace(&mut st.capture, Capture::new(0)),
            sub_calls: st.calls.made(),
            finish,
            position,
            hint,
            excerpt,
            images: std::mem::take(&mut st.calls.images),
            cut_calls,
            cut_timers,
            interrupted,
            progress,
            host_refused_memory: self.interrupts.trip.host_refused(),
        }
    }

    /// How far the run got, before its sub-calls are cut off.
    fn progress(&self) -> Progress {
        let st = self.shared.lock();
        let lines = |tool: &str| self.program.call_lines(tool);
        Progress {
            timers: st.timers.pending(),
            running: !self.waiting,
            ..st.calls.progress(Language::TypeScript, lines)
        }
    }

    /// The model-code position of a runtime error QuickJS placed at `at`
    /// in the wrapped script (see `position`).
    fn failure_position(&self, at: (u32, u32), message: &str) -> (u32, u32) {
        // QuickJS counts line 1's columns from 0 (the others from 1);
        // `refine` counts every line's from 1.
        let shift = |(line, column): (u32, u32), by: i64| {
            let column = if line == 1 {
                (i64::from(column) + by).max(0)
            } else {
                i64::from(column)
            };
            (line, u32::try_from(column).unwrap_or(u32::MAX))
        };
        let (line, column) = position::refine(&self.program.script, shift(at, 1), message)
            .map_or(at, |found| shift(found, -1));
        self.program.to_model_position(line, column)
    }

    /// The final `log` event: how many lines were not streamed.
    fn emit_truncated(&self, lines: usize) {
        self.shared
            .setup
            .emit(RunEventKind::Truncated { truncated: lines });
    }
}

/// A QuickJS failure while setting the run up.
fn internal(ctx: &Ctx<'_>, error: rquickjs::Error) -> StartError {
    StartError::Sandbox(describe_error(ctx, error).0)
}

/// Delivers the sub-call results and state answers that are ready to the
/// program's promises (taken in one look at the run's state); whether
/// there were any.
fn deliver<'js>(shared: &Shared, ctx: &Ctx<'js>, host: &Object<'js>) -> bool {
    let (ready, answers) = {
        let mut st = shared.lock();
        (std::mem::take(&mut st.ready), st.state_calls.take_ready())
    };
    if ready.is_empty() && answers.is_empty() {
        return false;
    }
    deliver_state(shared, ctx, host, answers);
    let Ok(settle) = host.get::<_, Function>("settle") else {
        return true;
    };
    for (n, result, charged) in ready {
        // The heap counts the copy now made, so the host's no longer does.
        shared.memory.release(charged);
        let _ = match result.map(|output| convert::to_js(ctx, &output.value)) {
            Ok(Ok(value)) => settle.call::<_, ()>((n, true, value)),
            // Out of memory, in practice: the run is ending.
            Ok(Err(e)) => settle.call::<_, ()>((
                n,
                false,
                format!("the result could not be made: {}", describe_error(ctx, e).0),
                ErrorCode::ToolError.as_str(),
            )),
            Err(error) => settle.call::<_, ()>((n, false, error.message, error.code.as_str())),
        };
    }
    true
}

/// Runs the queued promise jobs until none is left; whether any ran, or
/// `None` when the run was stopped meanwhile.
fn run_jobs(ctx: &Ctx<'_>, interrupts: &Interrupts) -> Option<bool> {
    let mut ran = false;
    while ctx.execute_pending_job() {
        ran = true;
        if interrupts.should_stop() {
            return None;
        }
    }
    Some(ran)
}

/// Fires the timers that are due, each followed by the promise jobs it
/// queued (as JavaScript does: `setTimeout(a, 0); setTimeout(b, 0)` with
/// `a` queuing a microtask runs that microtask before `b`); whether any
/// fired, or `None` when the run was stopped meanwhile.
fn fire_timers(
    shared: &Shared,
    ctx: &Ctx<'_>,
    interrupts: &Interrupts,
    host: &Object<'_>,
) -> Option<bool> {
    let due = shared.lock().timers.take_due(Instant::now());
    if due.is_empty() {
        return Some(false);
    }
    if let Ok(fire) = host.get::<_, Function>("fire") {
        for id in due {
            let _ = fire.call::<_, ()>((id,));
            if interrupts.should_stop() {
                return None;
            }
            run_jobs(ctx, interrupts)?;
        }
    }
    Some(true)
}

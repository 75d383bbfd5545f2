//! Python programs (contracts, Python programs): the Python room of the
//! engine. The program runs on Monty in a worker process of Monty's pool
//! (why a process: the contract); this room answers the worker's
//! suspensions. What is language-neutral comes from the engine: admission,
//! the deadline and cancellation (driver), the scheduler, the tool pipeline
//! and its sub-call ids, events, the capture and the outcome's text.

mod convert;
mod discovery;
mod lines;
mod state;
mod workers;

pub(super) use workers::PythonRuntime;
use workers::WorkerCpu;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use monty_pool::{Checkout, OnPrint, PoolError, ReplConfig, ResumeValue, TurnEvent};
use monty_types::unstable::{self, MontyNode, NodeId};
use monty_types::{
    CallArgs, ExcType, MontyException, MontyObject, NameLookupResult, PrintStream, ResourceLimits,
};
use tokio::task::JoinSet;
use tokio_util::sync::CancellationToken;

use super::output::Capture;
use super::progress::Progress;
use super::report::{Located, Report};
use super::request::Language;
use super::setup::RunSetup;
use super::subcall::Calls;
use crate::contract::call::{ErrorCode, ToolError, ToolResult};
use crate::contract::events::LogLevel;
use crate::contract::events::RunEventKind;
use crate::contract::outcome::{FailureKind, Outcome};
use crate::gate;
use crate::limits::ARGUMENTS;
use crate::tool::definition::{ToolDefinition, quoted_name};
use crate::tool::registered::shown;

/// The file name the program's tracebacks and positions refer to.
const SCRIPT: &str = "main.py";

/// How Monty's session names the second feed, the model's program (the
/// first binds `tools`): its frames are the model's lines.
const PROGRAM_FEED: &str = "<python-input-1>";

/// The external function the bindings call: `_ptc_tool(name, arguments)`.
const HOST_CALL: &str = "_ptc_tool";

/// The functions the host answers, looked up by name.
const HOST_FUNCTIONS: [&str; 4] = [
    HOST_CALL,
    discovery::SEARCH,
    discovery::DESCRIBE,
    state::STATE,
];

/// The input the prelude binds `tools` from: [`crate::sdk::runtime_layout`].
const LAYOUT_INPUT: &str = "_ptc_layout";

/// What every run has before the program: how a call reaches the host,
/// `tools` bound from [`LAYOUT_INPUT`] (an attribute per tool, an object
/// per namespace, `tools["exact-name"]`), and `ToolCallError`. The same
/// text every run, so the worker parses no per-tool code. Monty has no
/// class inheritance and no attributes on exceptions, so a failed call
/// raises `RuntimeError` (`ToolCallError` names it) whose message carries
/// the code and the tool; it has no `del`, so the input is cleared.
const PRELUDE: &str = "\
import asyncio
ToolCallError = RuntimeError
async def _ptc_call(name, arguments):
    return await _ptc_tool(name, {k: v for k, v in arguments.items() if v is not None})
def _ptc_bind(name, renamed=None):
    async def call(*args, **arguments):
        if args:
            if len(args) > 1 or arguments:
                raise TypeError('tool `' + name + '` takes keyword arguments, or one dict holding them all')
            return await _ptc_tool(name, args[0])
        if renamed:
            arguments = {renamed.get(k, k): v for k, v in arguments.items()}
        return await _ptc_call(name, arguments)
    return call
class _Namespace:
    pass
class _Tools:
    def __getitem__(self, name):
        return _ptc_bind(name)
def _ptc_bound(layout, into):
    for attr, bound in layout.items():
        if isinstance(bound, str):
            bound = _ptc_bind(bound)
        elif isinstance(bound, list):
            bound = _ptc_bind(bound[0], bound[1])
        else:
            bound = _ptc_bound(bound, _Namespace())
        setattr(into, attr, bound)
    return into
tools = _ptc_bound(_ptc_layout, _Tools())
_ptc_layout = None
";

/// Runs one Python program, admitted, under its deadline and cancellation;
/// never outlives them (a worker still running at the deadline is killed).
pub(super) async fn run(
    runtime: &PythonRuntime,
    code: String,
    setup: RunSetup,
    timeout: Duration,
    (expired, cancel): (CancellationToken, CancellationToken),
    report: &Report,
) -> Outcome {
    let (tools, visible) = setup.scope.visible_snapshot();
    let shown: Vec<&ToolDefinition> = shown(&tools, &visible).collect();
    let bindings = Bindings {
        code: format!("{PRELUDE}{}{}", discovery::PRELUDE, state::PRELUDE),
        layout: convert::to_monty(&crate::sdk::runtime_layout(&shown)),
    };
    let mut run = PyRun::new(setup);
    let ended = {
        let driven = drive(runtime, &mut run, bindings, code, timeout);
        tokio::select! {
            biased;
            () = cancel.cancelled() => Err(Ended::Stopped(FailureKind::Cancelled)),
            () = expired.cancelled() => Err(Ended::Stopped(FailureKind::Timeout)),
            ended = driven => ended,
        }
    };
    // The worker is gone or back in the pool; what it started is cut off.
    let progress = run.progress();
    let cut = run.close().await;
    let capture = run.printed.take();
    let sub_calls = run.calls.made();
    let ended = ended.and_then(|value| rendered(&value, run.setup.memory_limit));
    let ran = Ran {
        progress: &progress,
        capture: &capture,
        sub_calls,
        code: &run.code,
    };
    let mut outcome = render(ended, cut, &ran, report);
    report.append_images(&mut outcome, std::mem::take(&mut run.calls.images));
    outcome
}

/// What a finished run leaves for its outcome besides how it ended.
struct Ran<'a> {
    progress: &'a Progress,
    capture: &'a Capture,
    sub_calls: u32,
    /// The program, for a failure's position and line.
    code: &'a str,
}

/// The outcome of a run that ended as `ended` (its value's text, or why
/// not), `cut` of its calls cut off when it closed.
fn render(
    ended: Result<Option<String>, Ended>,
    cut: usize,
    ran: &Ran<'_>,
    report: &Report,
) -> Outcome {
    let Ran {
        progress,
        capture,
        sub_calls,
        code,
    } = *ran;
    match ended {
        Ok(text) => report.render_success(text, capture, cut, 0, sub_calls),
        Err(Ended::HostMemory(why)) => report.limit_failure(
            FailureKind::Memory,
            Some(why),
            Some(progress),
            capture,
            sub_calls,
            None,
        ),
        Err(Ended::Stopped(kind)) => {
            let progress = (kind != FailureKind::Cancelled).then_some(progress);
            report.limit_failure(kind, None, progress, capture, sub_calls, None)
        }
        Err(Ended::Python(exc)) => python_failure(&exc, code, progress, capture, sub_calls, report),
        Err(Ended::Pool(e)) => match e {
            PoolError::Timeout { .. } => report.limit_failure(
                FailureKind::Timeout,
                None,
                Some(progress),
                capture,
                sub_calls,
                None,
            ),
            other => report.render_failure(
                FailureKind::Runtime,
                Some(format!("the Python worker failed: {other}")),
                None,
                capture,
                sub_calls,
            ),
        },
        Err(Ended::Start(message)) => report.render_failure(
            FailureKind::Runtime,
            Some(message),
            None,
            capture,
            sub_calls,
        ),
        Err(Ended::NeverFinishes) => report.render_failure(
            FailureKind::Runtime,
            Some(super::report::never_finished(
                super::request::Language::Python,
            )),
            None,
            capture,
            sub_calls,
        ),
    }
}

/// What a run's first feed binds: the prelude and the tools' layout.
struct Bindings {
    code: String,
    layout: MontyObject,
}

/// How a Python run ended, other than with a value.
enum Ended {
    /// Its deadline or cancellation.
    Stopped(FailureKind),
    /// The program raised (or the worker reported a limit as an exception).
    Python(MontyException),
    /// The pool failed: the worker crashed, timed out or broke protocol.
    Pool(PoolError),
    /// No worker could be had.
    Start(String),
    /// Every task waits and nothing is in flight.
    NeverFinishes,
    /// A value of the program would take more of the host's memory than
    /// the run may (why, in words).
    HostMemory(String),
}

impl From<PoolError> for Ended {
    fn from(e: PoolError) -> Self {
        match e {
            PoolError::Runtime(exc) => Self::Python(exc),
            other => Self::Pool(other),
        }
    }
}

/// Checks a worker out, binds `tools`, runs the program and answers its
/// suspensions until it completes, or until it used its CPU budget.
/// Dropped at the deadline: the checkout dropped mid-turn kills its
/// worker. While the worker is checked out, the watchdog kills it if ptc
/// dies ([`workers::watch`]), and its CPU is the run's ([`WorkerCpu`]).
async fn drive(
    runtime: &PythonRuntime,
    run: &mut PyRun,
    bindings: Bindings,
    code: String,
    timeout: Duration,
) -> Result<MontyObject, Ended> {
    let pool = runtime.pool().await.map_err(Ended::Start)?;
    let config = repl_config(timeout, run.setup.memory_limit);
    // Declared first, so dropped last: the worker leaves the watchdog's
    // table once it is killed or back in the pool.
    let _busy;
    let mut checkout = pool.checkout(&config).await.map_err(Ended::from)?;
    _busy = workers::watch(checkout.pid());
    // Dropped before the checkout: its last measure finds the worker alive.
    let cpu = WorkerCpu::start(checkout.pid(), &run.setup.budget);
    let ran = tokio::select! {
        ran = converse(run, &mut checkout, bindings, code) => ran,
        () = cpu.spent() => Err(Ended::Stopped(FailureKind::Timeout)),
    };
    cpu.end();
    if ran.is_ok() {
        // A clean worker goes back to the pool; one that cannot is dropped (killed).
        let _ = checkout.finish().await;
    }
    ran
}

/// Binds `tools` in the checked-out worker, runs the program and answers
/// its suspensions until it completes.
async fn converse(
    run: &mut PyRun,
    checkout: &mut Checkout,
    bindings: Bindings,
    code: String,
) -> Result<MontyObject, Ended> {
    let printed = Arc::clone(&run.printed);
    let mut on_print = move |_stream: PrintStream, text: &str| -> monty_pool::PrintFuture {
        printed.write(text);
        Box::pin(std::future::ready(()))
    };
    let layout = vec![(LAYOUT_INPUT.to_owned(), bindings.layout)];
    let bound = checkout.feed(bindings.code, layout, vec![], false, &mut on_print);
    if !matches!(bound.await?, TurnEvent::Complete(_)) {
        return Err(Ended::Start("the Python bindings did not load".into()));
    }
    run.code = code.clone();
    let mut event = checkout
        .feed(code, vec![], vec![], false, &mut on_print)
        .await?;
    loop {
        event = match event {
            TurnEvent::Complete(value) => return Ok(value),
            suspended => answer(run, checkout, suspended, &mut on_print).await?,
        };
    }
}

/// The worker's limits for a run: its own clock stops a busy program about
/// when the deadline does (the deadline is what ends the run regardless),
/// its heap is the run's, and each line goes out as printed.
fn repl_config(timeout: Duration, memory_limit: usize) -> ReplConfig {
    ReplConfig {
        script_name: SCRIPT.to_owned(),
        limits: Some(ResourceLimits {
            max_feed_duration: Some(timeout),
            max_memory: Some(memory_limit),
            // Sub-calls are bounded by the deadline, as in TypeScript, not by count.
            max_suspensions: usize::MAX,
            ..ResourceLimits::default()
        }),
        // Each line as printed: the capture and the events see it at once.
        print_flush_interval: Some(Duration::ZERO),
        ..ReplConfig::default()
    }
}

/// Answers one suspension of the program; the worker's next event.
async fn answer(
    run: &mut PyRun,
    checkout: &mut Checkout,
    event: TurnEvent,
    on_print: OnPrint<'_>,
) -> Result<TurnEvent, Ended> {
    Ok(match event {
        TurnEvent::FunctionCall {
            function_name,
            args,
            object_id: None,
            ..
        } if function_name == state::STATE => {
            let answer = state::answer(&run.setup.session, &args).await;
            checkout.resume(answer, on_print).await?
        }
        TurnEvent::FunctionCall {
            function_name,
            args,
            call_id,
            object_id,
            ..
        } => {
            let answer = match object_id {
                None => run.host_function(&function_name, call_id, &args)?,
                Some(_) => ResumeValue::NotFound,
            };
            checkout.resume(answer, on_print).await?
        }
        // No file, clock-free sleeping, environment or process access:
        // every OS call gets the sandbox's own refusal.
        TurnEvent::OsCall { .. } => checkout.resume(ResumeValue::NotHandled, on_print).await?,
        TurnEvent::NameLookup {
            name,
            object_id: None,
            ..
        } if HOST_FUNCTIONS.contains(&name.as_str()) => {
            let function = MontyObject::function(&name, None);
            let found = NameLookupResult::Value(function);
            checkout.resume_name_lookup(found, on_print).await?
        }
        TurnEvent::NameLookup { .. } => {
            let undefined = NameLookupResult::Undefined;
            checkout.resume_name_lookup(undefined, on_print).await?
        }
        TurnEvent::ResolveFutures { .. } => {
            let settled = run.settled().await?.ok_or(Ended::NeverFinishes)?;
            checkout.resume_futures(settled, on_print).await?
        }
        TurnEvent::Complete(value) => TurnEvent::Complete(value),
    })
}

/// A call's task, finished: its result, unless the run had no memory left
/// to hold it (then dropped at once), and the bytes it is charged in
/// [`PyRun::answered`].
struct Answered {
    n: u32,
    result: Option<ToolResult>,
    charged: usize,
}

/// One Python run's host side.
struct PyRun {
    setup: RunSetup,
    /// The run's sub-calls, each beside the id of the program's future.
    calls: Calls<u32>,
    tasks: JoinSet<Answered>,
    /// Host memory the results of finished tasks hold until the run loop
    /// takes them: a worker busy in a loop takes none, so each task counts
    /// its own, and past the run's memory drops it.
    answered: Arc<AtomicUsize>,
    /// A task dropped its result for want of memory: the run ends as `memory`.
    dropped: bool,
    /// Settled calls not yet handed to the program, by Monty call id.
    ready: Vec<(u32, ResumeValue)>,
    calls_cancel: CancellationToken,
    /// Host memory the run's values hold (arguments waiting or in
    /// flight), bounded by its memory limit with `results_held`.
    held: usize,
    /// Host memory the results settled and not yet handed to the program
    /// hold.
    results_held: usize,
    printed: Arc<Printed>,
    /// The program, for positions and the failing line.
    code: String,
}

impl PyRun {
    fn new(setup: RunSetup) -> Self {
        Self {
            calls: Calls::new(setup.max_parallel),
            tasks: JoinSet::new(),
            answered: Arc::new(AtomicUsize::new(0)),
            dropped: false,
            ready: Vec::new(),
            calls_cancel: CancellationToken::new(),
            held: 0,
            results_held: 0,
            printed: Arc::new(Printed::new(&setup)),
            code: String::new(),
            setup,
        }
    }

    /// A call of one of the host's functions: a sub-call, or discovery
    /// answered at once; any other name does not exist.
    fn host_function(
        &mut self,
        name: &str,
        call_id: u32,
        args: &CallArgs,
    ) -> Result<ResumeValue, Ended> {
        Ok(match name {
            HOST_CALL => self.submit(call_id, args)?,
            discovery::SEARCH | discovery::DESCRIBE => {
                discovery::answer(&self.setup.scope, name, args)
            }
            _ => ResumeValue::NotFound,
        })
    }

    /// `_ptc_tool(name, arguments)`: a sub-call through the pipeline, as
    /// the program's future, once its arguments passed the gate: plain
    /// data (else `TypeError`), within a call's bound (else a
    /// `ToolCallError`, `INVALID_ARGUMENTS`), and within what the run may
    /// hold in the host (else the run ends as `memory`).
    fn submit(&mut self, call_id: u32, args: &CallArgs) -> Result<ResumeValue, Ended> {
        let (graph, positional, _) = unstable::call_args_parts(args);
        let measured = convert::Measured::of(graph);
        let (Some(MontyNode::String(name)), Some(&arguments)) = (
            positional.first().map(|id| measured.node(*id)),
            positional.get(1),
        ) else {
            return Ok(raise(
                ExcType::TypeError,
                "a tool is called as `await tools.name(arg=...)`".into(),
            ));
        };
        let (arguments, charged) = match self.admit(&measured, name, arguments)? {
            Ok(admitted) => admitted,
            Err(raised) => return Ok(raised),
        };
        let submitted = (self.calls).submit(&self.setup, name.clone(), arguments, charged, call_id);
        if let Err(refused) = submitted {
            self.held -= charged;
            return Ok(ResumeValue::Error(tool_call_error(name, &refused)));
        }
        self.pump();
        Ok(ResumeValue::Future)
    }

    /// A call's arguments through the gate (contracts §6, "What enters the
    /// host"), measured as the copies they would become before they are
    /// built: the value and what it costs the run until the call settles;
    /// or what the program gets instead; or the run's end.
    fn admit(
        &mut self,
        measured: &convert::Measured<'_>,
        name: &str,
        arguments: NodeId,
    ) -> Result<Result<(serde_json::Value, usize), ResumeValue>, Ended> {
        let cost = measured.size(arguments).cost();
        if cost > ARGUMENTS.max_cost as u64 {
            let error = ToolError::new(
                ErrorCode::InvalidArguments,
                gate::arguments_too_large(Some(cost)),
            );
            return Ok(Err(ResumeValue::Error(tool_call_error(name, &error))));
        }
        let held = self
            .held
            .saturating_add(usize::try_from(cost).unwrap_or(usize::MAX));
        if held.saturating_add(self.results_held) > self.setup.memory_limit {
            return Err(Ended::HostMemory(super::report::HELD_VALUES.into()));
        }
        match measured.to_json(arguments) {
            Ok(json) => {
                let cost = held - self.held;
                self.held = held;
                Ok(Ok((json, cost)))
            }
            Err(convert::NotPlain(what)) => Ok(Err(raise(
                ExcType::TypeError,
                format!(
                    "arguments of {} must be plain data (dict, list, str, int, float, bool, None): got {what}",
                    quoted_name(name)
                ),
            ))),
        }
    }

    /// Starts every call the scheduler admits, each in a task of its own
    /// that counts its result's cost as soon as it has it.
    fn pump(&mut self) {
        while let Some((call, future)) = self.calls.start(&self.setup, &self.calls_cancel) {
            let n = call.n;
            let answered = Arc::clone(&self.answered);
            let limit = self.setup.memory_limit;
            let task = async move {
                let result = future.await;
                let charged = result
                    .as_ref()
                    .map_or(0, |output| gate::cost_of(&output.value));
                if answered
                    .fetch_add(charged, Ordering::AcqRel)
                    .saturating_add(charged)
                    > limit
                {
                    answered.fetch_sub(charged, Ordering::AcqRel);
                    return Answered {
                        n,
                        result: None,
                        charged: 0,
                    };
                }
                Answered {
                    n,
                    result: Some(result),
                    charged,
                }
            };
            self.tasks.spawn_on(task, &self.setup.handle);
            self.calls.fly(call);
        }
    }

    /// Takes a finished task's answer into the run (a dropped one ends the
    /// run as `memory` at the next look).
    fn take(&mut self, answered: Answered) {
        self.answered.fetch_sub(answered.charged, Ordering::AcqRel);
        let result = answered.result.unwrap_or_else(|| {
            self.dropped = true;
            Err(ToolError::new(
                ErrorCode::ToolError,
                "the result did not fit in the run's memory",
            ))
        });
        self.settle(answered.n, result);
    }

    /// Records a settled call (the lifecycle's settling: scheduler, event,
    /// images) and the answer the program gets.
    fn settle(&mut self, n: u32, result: ToolResult) {
        let Some(call) = self.calls.land(n) else {
            return;
        };
        self.held -= call.charged;
        let future = call.local;
        let landed = self.calls.settle(&self.setup, call, &result);
        let answer = match result {
            Ok(output) => {
                let value = convert::to_monty(&output.value);
                // Held for the program until it takes it, as its arguments were.
                self.results_held += unstable::graph_parts(&value).0.decoded_size();
                ResumeValue::Return(value)
            }
            Err(error) => ResumeValue::Error(tool_call_error(&landed.name, &error)),
        };
        self.ready.push((future, answer));
        self.pump();
    }

    /// Waits for at least one call to settle and takes every settled one;
    /// `None` when nothing is in flight (the program can never go on). The
    /// results waiting for the program count toward the run's memory with
    /// its arguments in flight: past it the run ends as `memory`.
    async fn settled(&mut self) -> Result<Option<Vec<(u32, ResumeValue)>>, Ended> {
        // The results handed over last time are the worker's now.
        self.results_held = 0;
        if self.ready.is_empty() {
            let Some(joined) = self.tasks.join_next().await else {
                return Ok(None);
            };
            match joined {
                Ok(answered) => self.take(answered),
                // A handler that panicked: the pipeline catches panics, so
                // this is a task aborted while the run closes.
                Err(_) => return Ok(None),
            }
        }
        while let Some(Ok(answered)) = self.tasks.try_join_next() {
            self.take(answered);
        }
        let held = self.held.saturating_add(self.results_held);
        if self.dropped || held > self.setup.memory_limit {
            return Err(Ended::HostMemory(super::report::HELD_VALUES.into()));
        }
        Ok(Some(std::mem::take(&mut self.ready)))
    }

    /// How far the run got (for a limit's failure text).
    fn progress(&self) -> Progress {
        let lines = |tool: &str| lines::call_lines(&self.code, tool);
        let progress = self.calls.progress(Language::Python, lines);
        // A program stopped for its CPU was computing, whatever it awaited.
        let computing = self.setup.budget.cpu_spent();
        Progress {
            running: computing || (progress.in_flight.is_empty() && progress.queued == 0),
            ..progress
        }
    }

    /// Ends the run's calls: queued ones never start, in-flight ones are
    /// cancelled and awaited (each settles `ABORTED`). How many were cut.
    async fn close(&mut self) -> usize {
        let cut = self.calls.close_queue(&self.setup);
        self.calls_cancel.cancel();
        while let Some(done) = self.tasks.join_next().await {
            if let Ok(answered) = done {
                self.take(answered);
            }
        }
        self.ready.clear();
        cut
    }
}

/// An exception for the program to catch.
fn raise(kind: ExcType, message: String) -> ResumeValue {
    ResumeValue::Error(MontyException::new(kind, Some(message)))
}

/// How the program's value reads to the model, through the gate: measured
/// as the copies it would become, and written out only when that text fits
/// the run's memory limit (else the run ends as `memory`).
fn rendered(value: &MontyObject, memory_limit: usize) -> Result<Option<String>, Ended> {
    let (graph, root) = unstable::graph_parts(value);
    let measured = convert::Measured::of(graph);
    let text = measured.size(root).text;
    if text > memory_limit as u64 {
        return Err(Ended::HostMemory(format!(
            "the program's value would be {text} bytes once written out"
        )));
    }
    Ok(measured.render(root))
}

/// What a failed call raises in the program: `ToolCallError` (Monty's
/// `RuntimeError`), its message carrying the code and the tool as the
/// TypeScript error's text does.
fn tool_call_error(tool: &str, error: &ToolError) -> MontyException {
    MontyException::new(
        ExcType::RuntimeError,
        Some(format!(
            "ToolCallError: {} (code {}, tool {})",
            error.message,
            error.code.as_str(),
            quoted_name(tool)
        )),
    )
}

/// The outcome of a program that raised: a limit the worker reported as an
/// exception, a syntax error, or the model's exception at its line.
fn python_failure(
    exc: &MontyException,
    code: &str,
    progress: &Progress,
    capture: &Capture,
    sub_calls: u32,
    report: &Report,
) -> Outcome {
    let frame = exc
        .traceback()
        .iter()
        .rev()
        .find(|frame| frame.filename == PROGRAM_FEED);
    let position = frame.map(|f| (f.start.line, f.start.column));
    match exc.exc_type() {
        ExcType::MemoryError => report.limit_failure(
            FailureKind::Memory,
            None,
            Some(progress),
            capture,
            sub_calls,
            None,
        ),
        ExcType::TimeoutError if exc.message().is_some_and(|m| m.contains("time limit")) => report
            .limit_failure(
                FailureKind::Timeout,
                None,
                Some(progress),
                capture,
                sub_calls,
                None,
            ),
        ExcType::SyntaxError => report.render_failure(
            FailureKind::Syntax,
            Some(exc.summary()),
            position,
            capture,
            sub_calls,
        ),
        _ => {
            let excerpt = frame.and_then(|f| {
                excerpt(code, f.start.line, f.start.column, f.end.line, f.end.column)
            });
            let located = Located {
                position,
                hint: None,
                excerpt,
            };
            // A failed call reads as in TypeScript: `ToolCallError: …`.
            let message = match exc.message() {
                Some(m) if m.starts_with("ToolCallError: ") => m.to_owned(),
                _ => exc.summary(),
            };
            report.runtime_failure(Some(message), located, capture, sub_calls)
        }
    }
}

/// The model's line with a caret under what failed (columns from 1, in
/// characters).
fn excerpt(code: &str, line: u32, column: u32, end_line: u32, end_column: u32) -> Option<String> {
    let text = code
        .lines()
        .nth(usize::try_from(line).ok()?.checked_sub(1)?)?;
    let start = usize::try_from(column.max(1) - 1).ok()?;
    let width = if end_line == line && end_column > column {
        usize::try_from(end_column - column).ok()?
    } else {
        1
    };
    let shown: String = text.chars().take(160).collect();
    Some(format!(
        "  {line} | {shown}\n  {} | {}{}",
        " ".repeat(line.to_string().len()),
        " ".repeat(start.min(shown.chars().count())),
        "^".repeat(width.min(160))
    ))
}

/// What the program printed: whole lines into the capture (and as `log`
/// events), the unfinished one held until its newline or the end. Each
/// text is scanned once for its newlines, and the unfinished line keeps at
/// most the output cap (the capture would cut it there anyway), so a
/// program printing one endless line costs linear time and bounded memory.
struct Printed {
    state: Mutex<PrintedState>,
    events: Option<Arc<dyn super::events::EventSink>>,
    run_id: Arc<str>,
}

struct PrintedState {
    capture: Capture,
    /// The start of the unfinished line, at most `cap` bytes.
    partial: String,
    /// The unfinished line's whole length in bytes.
    partial_bytes: usize,
    cap: usize,
    /// Lines captured but not streamed (the capture was past its head).
    not_streamed: usize,
}

impl PrintedState {
    /// Adds `text` to the unfinished line, keeping at most the cap of it.
    fn extend(&mut self, text: &str) {
        self.partial_bytes += text.len();
        let room = self.cap.saturating_sub(self.partial.len());
        if room > 0 {
            let mut end = room.min(text.len());
            while !text.is_char_boundary(end) {
                end -= 1;
            }
            self.partial.push_str(&text[..end]);
        }
    }

    /// Ends the unfinished line: into the capture, whether it was streamed.
    fn end_line(&mut self) -> Option<String> {
        let line = std::mem::take(&mut self.partial);
        let bytes = std::mem::replace(&mut self.partial_bytes, 0);
        let streamed = self.capture.push_started(line.clone(), bytes);
        if !streamed {
            self.not_streamed += 1;
        }
        streamed.then_some(line)
    }
}

impl Printed {
    fn new(setup: &RunSetup) -> Self {
        Self {
            state: Mutex::new(PrintedState {
                capture: Capture::new(setup.output_cap),
                partial: String::new(),
                partial_bytes: 0,
                cap: setup.output_cap,
                not_streamed: 0,
            }),
            events: setup.events.clone(),
            run_id: Arc::clone(&setup.run_id),
        }
    }

    fn write(&self, text: &str) {
        let mut st = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        let mut rest = text;
        while let Some(end) = rest.find('\n') {
            st.extend(&rest[..end]);
            rest = &rest[end + 1..];
            if let Some(line) = st.end_line()
                && let Some(sink) = &self.events
            {
                sink.emit(crate::contract::events::RunEvent {
                    run_id: Arc::clone(&self.run_id),
                    kind: RunEventKind::Log {
                        level: LogLevel::Log,
                        text: line,
                    },
                });
            }
        }
        st.extend(rest);
    }

    /// The capture, with an unfinished last line and the note of lines not
    /// streamed.
    fn take(&self) -> Capture {
        let mut st = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        if st.partial_bytes > 0 {
            st.end_line();
        }
        if st.not_streamed > 0
            && let Some(sink) = &self.events
        {
            sink.emit(crate::contract::events::RunEvent {
                run_id: Arc::clone(&self.run_id),
                kind: RunEventKind::Truncated {
                    truncated: st.not_streamed,
                },
            });
        }
        std::mem::replace(&mut st.capture, Capture::new(0))
    }
}

//! Python programs (contracts, Python programs): the Python room of the
//! engine. The program runs on Monty in a worker process of Monty's pool
//! (why a process: the contract); this room answers the worker's
//! suspensions. What is language-neutral comes from the engine: admission,
//! the deadline and cancellation (driver), the scheduler, the tool pipeline
//! and its sub-call ids, events, the capture and the outcome's text.

mod convert;
mod discovery;
mod lines;
mod workers;

pub(super) use workers::PythonRuntime;

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use monty_pool::{PoolError, ReplConfig, ResumeValue, TurnEvent};
use monty_types::unstable::{self, MontyNode, NodeId};
use monty_types::{
    CallArgs, ExcType, MontyException, MontyObject, NameLookupResult, PrintStream, ResourceLimits,
};
use tokio::task::JoinSet;
use tokio_util::sync::CancellationToken;

use super::events::RunEventKind;
use super::outcome::{FailureKind, Outcome};
use super::output::{Capture, LogLevel};
use super::progress::Progress;
use super::report::{Located, Report};
use super::scheduler::Scheduler;
use super::setup::RunSetup;
use super::subcall::{Image, sub_call_id};
use crate::gate;
use crate::limits::ARGUMENTS;
use crate::tool::call::{Call, ContentBlock, ErrorCode, ToolError, ToolResult};
use crate::tool::definition::{ToolDefinition, quoted_name};
use crate::tool::registry::RegisteredTool;
use crate::tool::title::default_title;

/// The file name the program's tracebacks and positions refer to.
const SCRIPT: &str = "main.py";

/// How Monty's session names the second feed, the model's program (the
/// first binds `tools`): its frames are the model's lines.
const PROGRAM_FEED: &str = "<python-input-1>";

/// The external function the bindings call: `_ptc_tool(name, arguments)`.
const HOST_CALL: &str = "_ptc_tool";

/// The functions the host answers, looked up by name.
const HOST_FUNCTIONS: [&str; 3] = [HOST_CALL, discovery::SEARCH, discovery::DESCRIBE];

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
    let (tools, visible) = {
        let (_, tools, visible) = setup.scope.versioned_visible();
        (tools, visible)
    };
    let shown: Vec<&ToolDefinition> = tools
        .values()
        .zip(&visible)
        .filter(|(_, v)| **v)
        .map(|(t, _)| &t.definition)
        .collect();
    let bindings = Bindings {
        code: format!("{PRELUDE}{}", discovery::PRELUDE),
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
    let sub_calls = run.submitted;
    let mut outcome = match ended.and_then(|value| rendered(&value, run.setup.memory_limit)) {
        Ok(text) => report.render_success(text, &capture, cut, 0, sub_calls),
        Err(Ended::HostMemory(why)) => report.limit_failure(
            FailureKind::Memory,
            Some(why),
            Some(&progress),
            &capture,
            sub_calls,
            None,
        ),
        Err(Ended::Stopped(kind)) => {
            let progress = (kind != FailureKind::Cancelled).then_some(&progress);
            report.limit_failure(kind, None, progress, &capture, sub_calls, None)
        }
        Err(Ended::Python(exc)) => {
            python_failure(&exc, &run.code, &progress, &capture, sub_calls, report)
        }
        Err(Ended::Pool(e)) => match e {
            PoolError::Timeout { .. } => report.limit_failure(
                FailureKind::Timeout,
                None,
                Some(&progress),
                &capture,
                sub_calls,
                None,
            ),
            other => report.render_failure(
                FailureKind::Runtime,
                Some(format!("the Python worker failed: {other}")),
                None,
                &capture,
                sub_calls,
            ),
        },
        Err(Ended::Start(message)) => report.render_failure(
            FailureKind::Runtime,
            Some(message),
            None,
            &capture,
            sub_calls,
        ),
        Err(Ended::NeverFinishes) => report.render_failure(
            FailureKind::Runtime,
            Some(super::report::never_finished(
                super::request::Language::Python,
            )),
            None,
            &capture,
            sub_calls,
        ),
    };
    report.append_images(&mut outcome, std::mem::take(&mut run.images));
    outcome
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
/// suspensions until it completes. Dropped at the deadline: the checkout
/// dropped mid-turn kills its worker. While the worker is checked out, the
/// watchdog kills it if ptc dies ([`workers::watch`]).
async fn drive(
    runtime: &PythonRuntime,
    run: &mut PyRun,
    bindings: Bindings,
    code: String,
    timeout: Duration,
) -> Result<MontyObject, Ended> {
    let pool = runtime.pool().await.map_err(Ended::Start)?;
    let config = ReplConfig {
        script_name: SCRIPT.to_owned(),
        limits: Some(ResourceLimits {
            // The worker's own clock stops a busy program about when the
            // deadline does; the deadline is what ends the run regardless.
            max_feed_duration: Some(timeout),
            max_memory: Some(run.setup.memory_limit),
            // Sub-calls are bounded by the deadline, as in TypeScript, not by count.
            max_suspensions: usize::MAX,
            ..ResourceLimits::default()
        }),
        // Each line as printed: the capture and the events see it at once.
        print_flush_interval: Some(Duration::ZERO),
        ..ReplConfig::default()
    };
    // Declared first, so dropped last: the worker leaves the watchdog's
    // table once it is killed or back in the pool.
    let _busy;
    let mut checkout = pool.checkout(&config).await.map_err(Ended::from)?;
    _busy = workers::watch(checkout.pid());
    let printed = Arc::clone(&run.printed);
    let mut on_print = move |_stream: PrintStream, text: &str| -> monty_pool::PrintFuture {
        printed.write(text);
        Box::pin(std::future::ready(()))
    };
    match checkout
        .feed(
            bindings.code,
            vec![(LAYOUT_INPUT.to_owned(), bindings.layout)],
            vec![],
            false,
            &mut on_print,
        )
        .await?
    {
        TurnEvent::Complete(_) => {}
        _ => return Err(Ended::Start("the Python bindings did not load".into())),
    }
    run.code = code.clone();
    let mut event = checkout
        .feed(code, vec![], vec![], false, &mut on_print)
        .await?;
    loop {
        event = match event {
            TurnEvent::Complete(value) => {
                // A clean worker goes back to the pool; one that cannot is dropped (killed).
                let _ = checkout.finish().await;
                return Ok(value);
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
                checkout.resume(answer, &mut on_print).await?
            }
            // No file, clock-free sleeping, environment or process access:
            // every OS call gets the sandbox's own refusal.
            TurnEvent::OsCall { .. } => {
                checkout
                    .resume(ResumeValue::NotHandled, &mut on_print)
                    .await?
            }
            TurnEvent::NameLookup {
                name,
                object_id: None,
                ..
            } if HOST_FUNCTIONS.contains(&name.as_str()) => {
                let function = MontyObject::function(&name, None);
                checkout
                    .resume_name_lookup(NameLookupResult::Value(function), &mut on_print)
                    .await?
            }
            TurnEvent::NameLookup { .. } => {
                checkout
                    .resume_name_lookup(NameLookupResult::Undefined, &mut on_print)
                    .await?
            }
            TurnEvent::ResolveFutures { .. } => {
                let settled = run.settled().await?.ok_or(Ended::NeverFinishes)?;
                checkout.resume_futures(settled, &mut on_print).await?
            }
        };
    }
}

/// A call the program made, waiting for the scheduler.
struct Queued {
    call_id: u32,
    /// Its number in the run (1, 2, …): its id's and its order.
    n: u32,
    id: Arc<str>,
    name: String,
    tool: Option<Arc<RegisteredTool>>,
    arguments: serde_json::Value,
    /// What its arguments cost the run until it settles.
    charged: usize,
    title: Option<String>,
}

/// A call handed to tokio.
struct Flight {
    n: u32,
    id: Arc<str>,
    name: String,
    tool: Option<Arc<RegisteredTool>>,
    arguments: Option<serde_json::Value>,
    charged: usize,
    title: Option<String>,
}

/// A call's task, finished: its result, unless the run had no memory left
/// to hold it (then dropped at once), and the bytes it is charged in
/// [`PyRun::answered`].
struct Answered {
    call_id: u32,
    result: Option<ToolResult>,
    charged: usize,
}

/// One Python run's host side.
struct PyRun {
    setup: RunSetup,
    scheduler: Scheduler<Queued>,
    tasks: JoinSet<Answered>,
    /// Host memory the results of finished tasks hold until the run loop
    /// takes them: a worker busy in a loop takes none, so each task counts
    /// its own, and past the run's memory drops it.
    answered: Arc<AtomicUsize>,
    /// A task dropped its result for want of memory: the run ends as `memory`.
    dropped: bool,
    flights: HashMap<u32, Flight>,
    /// Settled calls not yet handed to the program, by Monty call id.
    ready: Vec<(u32, ResumeValue)>,
    submitted: u32,
    last_tool: String,
    images: Vec<Image>,
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
            scheduler: Scheduler::new(setup.max_parallel),
            tasks: JoinSet::new(),
            answered: Arc::new(AtomicUsize::new(0)),
            dropped: false,
            flights: HashMap::new(),
            ready: Vec::new(),
            submitted: 0,
            last_tool: String::new(),
            images: Vec::new(),
            calls_cancel: CancellationToken::new(),
            held: 0,
            results_held: 0,
            printed: Arc::new(Printed::new(&setup)),
            code: String::new(),
            setup,
        }
    }

    fn emit(&self, kind: RunEventKind) {
        if let Some(sink) = &self.setup.events {
            sink.emit(super::events::RunEvent {
                run_id: Arc::clone(&self.setup.run_id),
                kind,
            });
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
        let name = name.clone();
        self.submitted += 1;
        self.last_tool.clone_from(&name);
        let n = self.submitted;
        let id = sub_call_id(&self.setup.run_id, n);
        let tool = self.setup.scope.lookup(&name);
        let title = self.setup.events.is_some().then(|| {
            let title = match &tool {
                Some(tool) => tool.definition.title_of_call(&arguments),
                None => default_title(&name, &arguments),
            };
            self.emit(RunEventKind::started(
                Arc::clone(&id),
                name.clone(),
                title.clone(),
                &arguments,
            ));
            title
        });
        let read_only = self
            .setup
            .scope
            .schedules_as_read_only(tool.as_ref(), &name);
        self.scheduler.submit(
            read_only,
            Queued {
                call_id,
                n,
                id,
                name,
                tool,
                arguments,
                charged,
                title,
            },
        );
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

    /// Starts every call the scheduler admits.
    fn pump(&mut self) {
        while let Some(call) = self.scheduler.admit() {
            let options = self
                .setup
                .call_options(&call.name, self.calls_cancel.child_token());
            // Kept for the settled event's result title only when shown.
            let titles_results = call.title.is_some()
                && call
                    .tool
                    .as_ref()
                    .is_some_and(|t| t.definition.titles.titles_results());
            let future = self.setup.scope.call_resolved(
                call.tool.clone(),
                Call::new(&*call.id, call.name.clone(), call.arguments.clone()),
                options,
            );
            let call_id = call.call_id;
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
                        call_id,
                        result: None,
                        charged: 0,
                    };
                }
                let result = Some(result);
                Answered {
                    call_id,
                    result,
                    charged,
                }
            };
            self.tasks.spawn_on(task, &self.setup.handle);
            self.flights.insert(
                call_id,
                Flight {
                    n: call.n,
                    id: call.id,
                    name: call.name,
                    tool: call.tool,
                    arguments: titles_results.then_some(call.arguments),
                    charged: call.charged,
                    title: call.title,
                },
            );
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
        self.settle(answered.call_id, result);
    }

    /// Records a settled call: scheduler, event, images, and the answer
    /// the program gets.
    fn settle(&mut self, call_id: u32, result: ToolResult) {
        let Some(flight) = self.flights.remove(&call_id) else {
            return;
        };
        self.scheduler.settled();
        self.held -= flight.charged;
        if let Some(title) = flight.title {
            let title = match (&flight.tool, &flight.arguments, &result) {
                (Some(tool), Some(arguments), Ok(output)) => {
                    tool.definition.title_of_result(arguments, &output.value)
                }
                _ => title,
            };
            self.emit(RunEventKind::settled(
                Arc::clone(&flight.id),
                title,
                result.as_ref().map(|output| &output.value),
            ));
        }
        let answer = match result {
            Ok(output) => {
                for block in output.content {
                    if matches!(block, ContentBlock::Image { .. }) {
                        self.images.push(Image {
                            tool: flight.name.clone(),
                            id: Arc::clone(&flight.id),
                            block,
                        });
                    }
                }
                let value = convert::to_monty(&output.value);
                // Held for the program until it takes it, as its arguments were.
                self.results_held += unstable::graph_parts(&value).0.decoded_size();
                ResumeValue::Return(value)
            }
            Err(error) => ResumeValue::Error(tool_call_error(&flight.name, &error)),
        };
        self.ready.push((call_id, answer));
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
        let mut in_flight: Vec<(&u32, &Flight)> = self.flights.iter().collect();
        in_flight.sort_unstable_by_key(|(_, f)| f.n);
        Progress {
            made: self.submitted,
            in_flight: in_flight.into_iter().map(|(_, f)| f.name.clone()).collect(),
            queued: self.scheduler.queued(),
            timers: 0,
            last: (!self.last_tool.is_empty()).then(|| {
                let lines = lines::call_lines(&self.code, &self.last_tool);
                (self.last_tool.clone(), lines)
            }),
            running: self.flights.is_empty() && self.scheduler.queued() == 0,
            language: super::request::Language::Python,
        }
    }

    /// Ends the run's calls: queued ones never start, in-flight ones are
    /// cancelled and awaited (each settles `ABORTED`). How many were cut.
    async fn close(&mut self) -> usize {
        let queued: Vec<Queued> = self.scheduler.drain_queue().collect();
        for call in &queued {
            if let Some(title) = &call.title {
                self.emit(RunEventKind::Settled {
                    id: Arc::clone(&call.id),
                    title: title.clone(),
                    ok: false,
                    value: None,
                    error: Some(ToolError::new(
                        ErrorCode::AbortedBeforeDispatch,
                        format!(
                            "call to {} was cancelled before it started",
                            quoted_name(&call.name)
                        ),
                    )),
                });
            }
        }
        let in_flight = self.flights.len();
        self.calls_cancel.cancel();
        while let Some(done) = self.tasks.join_next().await {
            if let Ok(answered) = done {
                self.take(answered);
            }
        }
        self.ready.clear();
        queued.len() + in_flight
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
                sink.emit(super::events::RunEvent {
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
            sink.emit(super::events::RunEvent {
                run_id: Arc::clone(&self.run_id),
                kind: RunEventKind::Truncated {
                    truncated: st.not_streamed,
                },
            });
        }
        std::mem::replace(&mut st.capture, Capture::new(0))
    }
}

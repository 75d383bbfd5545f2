//! One run: the sandbox, its native bindings, sub-call dispatch and the
//! step function that advances the program until it waits or ends.

use std::collections::{BTreeMap, HashMap};
use std::future::Future;
use std::sync::{Arc, Mutex, MutexGuard, OnceLock, PoisonError, TryLockError, Weak};
use std::task::{Context as TaskContext, Poll, Waker};

use indexmap::IndexMap;
use rquickjs::function::Func;
use rquickjs::{Array, Context, Ctx, Function, IntoJs, JsLifetime, Object, Runtime, Value};
use serde_json::Value as Json;
use tokio::sync::mpsc;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use super::convert::{self, MAX_ARGUMENT_DEPTH, NotPlain};
use super::events::{EventSink, RunEvent, RunEventKind};
use super::outcome::FailureKind;
use super::output::{Capture, LogLevel, floor_char_boundary};
use super::position;
use super::sandbox::{Bytecode, Interrupts, Poller, Sandbox, Tripwires, eval_named};
use super::scheduler::Scheduler;
use super::strip::PreparedProgram;
use super::text;
use crate::tool::call::{Call, CallerContext, ContentBlock, ErrorCode, ToolError, ToolResult};
use crate::tool::pipeline::CallOptions;
use crate::tool::registry::{RegisteredTool, Scope};

const PRELUDE: &str = include_str!("js/prelude.js");
const INSPECT: &str = include_str!("js/inspect.js");

/// The prelude and the console formatter, compiled once per process.
fn compiled(which: &'static str) -> Option<&'static Bytecode> {
    static PRELUDE_CODE: OnceLock<Option<Bytecode>> = OnceLock::new();
    static INSPECT_CODE: OnceLock<Option<Bytecode>> = OnceLock::new();
    let (cell, source, file) = match which {
        "prelude" => (&PRELUDE_CODE, PRELUDE, c"prelude.js"),
        _ => (&INSPECT_CODE, INSPECT, c"inspect.js"),
    };
    cell.get_or_init(|| Bytecode::compile(source, file).ok())
        .as_ref()
}
/// The prelude's entry points, and the rejected promises nothing handled
/// (kept alive, so the address that names one is never reused in the run).
/// Held by the runtime, out of the program's reach: a program that could
/// call `settle` would forge its own tool results.
struct Bridge<'js> {
    host: Object<'js>,
    /// `[promise, reason]` pairs, flat, by slot (see `Rejections`).
    unhandled: Array<'js>,
}

// SAFETY: `Bridge` holds only values of lifetime 'js, renamed as a whole.
unsafe impl<'js> JsLifetime<'js> for Bridge<'js> {
    type Changed<'to> = Bridge<'to>;
}

impl<'js> Bridge<'js> {
    /// Keeps a rejected promise and its reason alive in `slot` (letting go
    /// of what the slot held); `false` if that failed (out of memory).
    fn keep(&self, ctx: &Ctx<'js>, slot: u32, promise: Value<'js>, reason: &Value<'js>) -> bool {
        let raw = ctx.as_raw().as_ptr();
        let flags = rquickjs::qjs::JS_PROP_C_W_E as i32;
        // A definition (not a `set`): no setter of the program's can run.
        // SAFETY: the array and both values belong to `ctx`; each define
        // takes the reference it is given.
        let kept = [(slot * 2, promise.clone()), (slot * 2 + 1, reason.clone())]
            .into_iter()
            .all(|(index, value)| unsafe {
                let value = rquickjs::qjs::JS_DupValue(raw, value.as_raw());
                rquickjs::qjs::JS_DefinePropertyValueUint32(
                    raw,
                    self.unhandled.as_raw(),
                    index,
                    value,
                    flags,
                ) >= 0
            });
        if !kept {
            let _ = ctx.catch();
        }
        kept
    }
}

/// The prelude's entry points of the run in `ctx`.
fn host<'js>(ctx: &Ctx<'js>) -> Option<Object<'js>> {
    ctx.userdata::<Bridge>().map(|bridge| bridge.host.clone())
}

/// Unhandled rejections described by their message; past this they are counted.
const DESCRIBED_REJECTIONS: usize = 16;
/// Bytes of one rejection's description.
const DESCRIPTION_BYTES: usize = 1024;
/// The file name of the model's code in stack traces.
pub(crate) const PROGRAM_FILE: &std::ffi::CStr = c"program.ts";

/// What a sub-call's tokio task tells the run when it ends.
pub(crate) enum Completion {
    /// The task recorded the result itself (and started what the scheduler
    /// admitted next): the program has something to settle.
    Settled,
    /// The run's state was busy: the run records this result.
    Result(u32, ToolResult),
}

/// What a run needs from the engine.
pub(crate) struct RunSetup {
    pub(crate) run_id: Arc<str>,
    pub(crate) scope: Scope,
    pub(crate) events: Option<Arc<dyn EventSink>>,
    pub(crate) caller: Option<CallerContext>,
    pub(crate) handle: tokio::runtime::Handle,
    pub(crate) max_parallel: usize,
    pub(crate) output_cap: usize,
}

struct SubCall {
    n: u32,
    /// Looked up once, at submission: it decides scheduling and runs.
    tool: Option<Arc<RegisteredTool>>,
    id: Arc<str>,
    name: String,
    arguments: Json,
    /// Bytes of the arguments' copy, charged to the run until it settles.
    charged: usize,
}

/// A sub-call handed to tokio.
struct Spawned {
    id: Arc<str>,
    name: String,
    charged: usize,
    /// Aborted if the run is dropped before the call settles.
    task: tokio::task::AbortHandle,
}

/// Promise rejections nothing has handled (yet): the first few described,
/// the rest counted, so a flood of them costs the host nothing.
#[derive(Default)]
struct Rejections {
    /// By the promise's address (its promise is kept alive: see `Bridge`).
    described: IndexMap<usize, Rejection>,
    more: usize,
}

struct Rejection {
    /// Where the bridge keeps its promise and reason.
    slot: u32,
    /// Described after the step that recorded it.
    text: Option<String>,
}

impl Rejections {
    /// A slot no described rejection uses, if fewer than the limit are.
    /// Slots are reused, so the bridge keeps at most that many promises.
    fn free_slot(&self) -> Option<u32> {
        (0..DESCRIBED_REJECTIONS as u32)
            .find(|slot| self.described.values().all(|r| r.slot != *slot))
    }

    fn handled(&mut self, promise: usize) {
        if self.described.shift_remove(&promise).is_none() {
            self.more = self.more.saturating_sub(1);
        }
    }

    /// The captured lines, in the order the rejections happened.
    fn lines(&mut self) -> Vec<String> {
        let mut lines: Vec<String> = self
            .described
            .drain(..)
            .map(|(_, r)| {
                let text = r
                    .text
                    .as_deref()
                    .unwrap_or("(the run ended before it was described)");
                format!("[warn] unhandled rejection: {text}")
            })
            .collect();
        if self.more > 0 {
            lines.push(format!(
                "[warn] … and {} more unhandled {}",
                self.more,
                if self.more == 1 {
                    "rejection"
                } else {
                    "rejections"
                }
            ));
        }
        lines
    }
}

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
    pub(crate) images: Vec<Image>,
    /// Sub-calls cut off and timers dropped when the run closed.
    pub(crate) cut_calls: usize,
    pub(crate) cut_timers: usize,
    /// Why the run was stopped, if an interrupt stopped it.
    pub(crate) interrupted: Option<FailureKind>,
    /// The memory limit was reached by the host's copies of arguments.
    pub(crate) host_refused_memory: bool,
}

/// An image to append after the text.
pub(crate) struct Image {
    pub(crate) tool: String,
    pub(crate) id: Arc<str>,
    pub(crate) block: ContentBlock,
}

/// Run state shared by the native functions, the run loop and the tasks of
/// its sub-calls. Held briefly; a task that finds it held hands its result
/// to the run loop instead of waiting.
pub(crate) struct RunState {
    scheduler: Scheduler<SubCall>,
    submitted: u32,
    submitting: Option<u32>,
    inline: Option<ToolResult>,
    ready: Vec<(u32, ToolResult)>,
    /// Sub-calls handed to tokio, by number.
    spawned: HashMap<u32, Spawned>,
    closing: bool,
    capture: Capture,
    not_streamed: usize,
    timers: BTreeMap<(Instant, u32), ()>,
    timer_due: HashMap<u32, Instant>,
    next_timer: u32,
    finish: Option<Finish>,
    images: Vec<Image>,
    rejections: Rejections,
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
        for spawned in st.spawned.values() {
            spawned.task.abort();
        }
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
    pub(crate) fn abandon(&self) -> Option<(Capture, u32)> {
        self.calls_cancel.cancel();
        let mut st = self.try_lock()?;
        st.closing = true;
        Some((
            std::mem::replace(&mut st.capture, Capture::new(0)),
            st.submitted,
        ))
    }

    fn emit(&self, kind: RunEventKind) {
        if let Some(sink) = &self.setup.events {
            sink.emit(RunEvent {
                run_id: Arc::clone(&self.setup.run_id),
                kind,
            });
        }
    }

    /// `tools.x(args)`: a sub-call, if `args` are plain data (else the
    /// prelude's exact path names what JSON would lose, or makes them plain).
    /// Settles at once when the pipeline is ready on its first poll;
    /// otherwise it continues on tokio.
    fn submit(&self, name: &Value<'_>, args: &Value<'_>) -> Submitted {
        let name = text::of_string(name).unwrap_or_default();
        let (arguments, charged) = match convert::plain_from_js(args, self.memory.room()) {
            Ok(plain) => plain,
            Err(NotPlain::Lossy) => return Submitted::NotPlain,
            Err(NotPlain::TooDeep) => return Submitted::TooDeep,
            Err(NotPlain::TooLarge) => {
                // Refused: the run ends as `memory`, saying why.
                self.memory.charge(usize::MAX);
                return Submitted::NotPlain;
            }
        };
        if !self.memory.charge(charged) {
            return Submitted::NotPlain;
        }
        let mut st = self.lock();
        st.submitted += 1;
        let n = st.submitted;
        let id: Arc<str> = format!("{}:ptc:{n}", self.setup.run_id).into();
        if self.setup.events.is_some() {
            self.emit(RunEventKind::Started {
                id: Arc::clone(&id),
                name: name.clone(),
                arguments: arguments.clone(),
            });
        }
        let tool = self.setup.scope.lookup(&name);
        let read_only = tool.as_ref().is_none_or(|t| t.definition.read_only);
        st.scheduler.submit(
            read_only,
            SubCall {
                n,
                tool,
                id,
                name,
                arguments,
                charged,
            },
        );
        st.submitting = Some(n);
        self.pump(&mut st);
        st.submitting = None;
        match st.inline.take() {
            Some(Ok(output)) => Submitted::Value(output.value),
            Some(Err(error)) => Submitted::Error(error.code.as_str(), error.message),
            None => Submitted::Pending(n),
        }
    }

    /// Starts every sub-call the scheduler admits.
    fn pump(&self, st: &mut RunState) {
        if st.closing {
            return;
        }
        while let Some(call) = st.scheduler.admit() {
            let options = CallOptions {
                cancel: self.calls_cancel.child_token(),
                caller: self.setup.caller.clone(),
                run_id: Some(Arc::clone(&self.setup.run_id)),
            };
            let SubCall {
                n,
                tool,
                id,
                name,
                arguments,
                charged,
            } = call;
            let mut future = Box::pin(self.setup.scope.call_resolved(
                tool,
                Call::new(&*id, name.clone(), arguments),
                options,
            ));
            let polled = {
                let _runtime = self.setup.handle.enter();
                future
                    .as_mut()
                    .poll(&mut TaskContext::from_waker(Waker::noop()))
            };
            match polled {
                Poll::Ready(result) => {
                    self.memory.release(charged);
                    self.settle(st, n, &id, &name, result);
                }
                Poll::Pending => {
                    let completions = self.completions.clone();
                    let this = Weak::clone(&self.this);
                    let task = self.setup.handle.spawn(async move {
                        let result = future.await;
                        // Settle here, so the next admitted call starts now
                        // rather than when the run loop gets to it.
                        let Some(shared) = this.upgrade() else { return };
                        let completion = match shared.state.try_lock() {
                            Ok(mut st) => {
                                shared.complete_locked(&mut st, n, result);
                                Completion::Settled
                            }
                            Err(TryLockError::WouldBlock) => Completion::Result(n, result),
                            Err(TryLockError::Poisoned(e)) => {
                                shared.complete_locked(&mut e.into_inner(), n, result);
                                Completion::Settled
                            }
                        };
                        let _ = completions.send(completion);
                    });
                    let task = task.abort_handle();
                    let spawned = Spawned {
                        id,
                        name,
                        charged,
                        task,
                    };
                    st.spawned.insert(n, spawned);
                }
            }
        }
    }

    /// Records a settled sub-call: scheduler, events, images, delivery.
    fn settle(&self, st: &mut RunState, n: u32, id: &Arc<str>, name: &str, result: ToolResult) {
        st.scheduler.settled();
        if self.setup.events.is_some() {
            let (value, error) = match &result {
                Ok(output) => (Some(output.value.clone()), None),
                Err(error) => (None, Some(error.clone())),
            };
            self.emit(RunEventKind::Settled {
                id: Arc::clone(id),
                ok: result.is_ok(),
                value,
                error,
            });
        }
        if let Ok(output) = &result {
            for block in &output.content {
                if matches!(block, ContentBlock::Image { .. }) {
                    st.images.push(Image {
                        tool: name.to_owned(),
                        id: Arc::clone(id),
                        block: block.clone(),
                    });
                }
            }
        }
        if st.submitting == Some(n) {
            st.inline = Some(result);
        } else {
            st.ready.push((n, result));
        }
    }

    /// A sub-call that went to tokio has settled.
    fn complete(&self, completion: Completion) {
        if let Completion::Result(n, result) = completion {
            #[cfg(test)]
            tests::BUSY_SETTLEMENTS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            self.complete_locked(&mut self.lock(), n, result);
        }
    }

    fn complete_locked(&self, st: &mut RunState, n: u32, result: ToolResult) {
        let Some(spawned) = st.spawned.remove(&n) else {
            return;
        };
        self.memory.release(spawned.charged);
        self.settle(st, n, &spawned.id, &spawned.name, result);
        self.pump(st);
    }

    fn log(&self, level: i32, text: &Value<'_>) {
        let text = text::of_string(text).unwrap_or_default();
        let level = LogLevel::from_index(level);
        let mut st = self.lock();
        let line = format!("{}{text}", level.prefix());
        if st.capture.push(line) {
            self.emit(RunEventKind::Log {
                level: Some(level),
                text: Some(text),
                truncated: None,
            });
        } else {
            st.not_streamed += 1;
        }
    }

    fn set_timer(&self, delay_ms: f64) -> u32 {
        let mut st = self.lock();
        st.next_timer += 1;
        let id = st.next_timer;
        let delay = std::time::Duration::from_secs_f64((delay_ms / 1000.0).clamp(0.0, 1e9));
        let due = Instant::now() + delay;
        st.timers.insert((due, id), ());
        st.timer_due.insert(id, due);
        id
    }

    fn clear_timer(&self, id: u32) {
        let mut st = self.lock();
        if let Some(due) = st.timer_due.remove(&id) {
            st.timers.remove(&(due, id));
        }
    }
}

/// What `submit` hands back to the prelude.
enum Submitted {
    /// Not plain data: the prelude takes the exact path (`undefined`).
    NotPlain,
    /// Nested deeper than the limit (`false`).
    TooDeep,
    /// The call's number: `settle` delivers it later.
    Pending(u32),
    /// Settled at once: `[value]`.
    Value(Json),
    /// Failed at once: `[code, message]`.
    Error(&'static str, String),
}

impl<'js> IntoJs<'js> for Submitted {
    fn into_js(self, ctx: &Ctx<'js>) -> rquickjs::Result<Value<'js>> {
        match self {
            Submitted::NotPlain => Ok(Value::new_undefined(ctx.clone())),
            Submitted::TooDeep => Ok(Value::new_bool(ctx.clone(), false)),
            Submitted::Pending(n) => n.into_js(ctx),
            Submitted::Value(json) => {
                let array = rquickjs::Array::new(ctx.clone())?;
                array.set(0, convert::to_js(ctx, &json)?)?;
                Ok(array.into_value())
            }
            Submitted::Error(code, message) => {
                let array = rquickjs::Array::new(ctx.clone())?;
                array.set(0, code)?;
                array.set(1, message)?;
                Ok(array.into_value())
            }
        }
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
                scheduler: Scheduler::new(setup.max_parallel),
                submitted: 0,
                submitting: None,
                inline: None,
                ready: Vec::new(),
                spawned: HashMap::new(),
                closing: false,
                capture: Capture::new(setup.output_cap),
                not_streamed: 0,
                timers: BTreeMap::new(),
                timer_due: HashMap::new(),
                next_timer: 0,
                finish: None,
                images: Vec::new(),
                rejections: Rejections::default(),
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
        };
        let started = run.context.with(|ctx| -> Result<(), StartError> {
            let internal = |e: rquickjs::Error| StartError::Sandbox(describe_error(&ctx, e).0);
            let native = Object::new(ctx.clone()).map_err(internal)?;
            let s = Arc::clone(&run.shared);
            native
                .set(
                    "submit",
                    Func::from(move |name: Value<'_>, args: Value<'_>| s.submit(&name, &args)),
                )
                .map_err(internal)?;
            let s = Arc::clone(&run.shared);
            native
                .set(
                    "log",
                    Func::from(move |level: i32, text: Value<'_>| s.log(level, &text)),
                )
                .map_err(internal)?;
            let s = Arc::clone(&run.shared);
            native
                .set("setTimer", Func::from(move |delay: f64| s.set_timer(delay)))
                .map_err(internal)?;
            let s = Arc::clone(&run.shared);
            native
                .set("clearTimer", Func::from(move |id: u32| s.clear_timer(id)))
                .map_err(internal)?;
            let s = Arc::clone(&run.shared);
            native
                .set(
                    "finish",
                    Func::from(move |ok: bool, text: Value<'_>, stack: Value<'_>| {
                        let text = text::of_string(&text);
                        let stack = text::of_string(&stack).unwrap_or_default();
                        s.lock().finish = Some(Finish { ok, text, stack });
                    }),
                )
                .map_err(internal)?;
            native
                .set("maxDepth", MAX_ARGUMENT_DEPTH)
                .map_err(internal)?;
            native
                .set("loadInspect", Func::from(load_inspect))
                .map_err(internal)?;
            let prelude: Function = match compiled("prelude") {
                Some(code) => code.eval(&ctx).and_then(|v| v.get()),
                None => ctx.eval(PRELUDE),
            }
            .map_err(internal)?;
            let host: Object = prelude.call((native,)).map_err(internal)?;
            let bridge = Bridge {
                host: host.clone(),
                unhandled: Array::new(ctx.clone()).map_err(internal)?,
            };
            if ctx.store_userdata(bridge).is_err() {
                return Err(StartError::Sandbox("the sandbox bridge is in use".into()));
            }
            let program = &run.program;
            let main = match eval_named(&ctx, &program.script, PROGRAM_FILE) {
                Ok(main) => main,
                Err(e) => {
                    let (message, position) = describe_error(&ctx, e);
                    let position = position.map(|(l, c)| program.to_model_position(l, c));
                    return Err(StartError::Syntax(message, position));
                }
            };
            let start: Function = host.get("start").map_err(internal)?;
            start.call::<_, ()>((main,)).map_err(internal)?;
            Ok(())
        });
        match started {
            Ok(()) => Ok(run),
            Err(e) => Err((Some(Box::new(run)), e)),
        }
    }

    /// Advances the program until it waits, ends or is interrupted.
    pub(crate) fn step(&mut self) -> Step {
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
                let mut progressed = false;
                while let Ok(completion) = inbox.try_recv() {
                    shared.complete(completion);
                }
                let ready = std::mem::take(&mut shared.lock().ready);
                if !ready.is_empty() {
                    progressed = true;
                    let settle: Option<Function> = host.get("settle").ok();
                    for (n, result) in ready {
                        let Some(settle) = &settle else { break };
                        let _ = match result.map(|output| convert::to_js(&ctx, &output.value)) {
                            Ok(Ok(value)) => settle.call::<_, ()>((n, true, value)),
                            // Out of memory, in practice: the run is ending.
                            Ok(Err(e)) => settle.call::<_, ()>((
                                n,
                                false,
                                format!(
                                    "the result could not be made: {}",
                                    describe_error(&ctx, e).0
                                ),
                                ErrorCode::ToolError.as_str(),
                            )),
                            Err(error) => {
                                settle.call::<_, ()>((n, false, error.message, error.code.as_str()))
                            }
                        };
                    }
                }
                let due = shared.lock().take_due_timers(Instant::now());
                if !due.is_empty() {
                    progressed = true;
                    if let Ok(fire) = host.get::<_, Function>("fire") {
                        for id in due {
                            let _ = fire.call::<_, ()>((id,));
                            if interrupts.should_stop() {
                                return Step::Interrupted;
                            }
                        }
                    }
                }
                while ctx.execute_pending_job() {
                    progressed = true;
                    if interrupts.should_stop() {
                        return Step::Interrupted;
                    }
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
    /// program; `false` when none can: nothing settled, nothing in flight.
    pub(crate) async fn settled(&mut self) -> bool {
        loop {
            {
                let st = self.shared.lock();
                if !st.ready.is_empty() {
                    return true;
                }
                if st.spawned.is_empty() {
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
        self.shared.lock().timers.keys().next().map(|(due, _)| *due)
    }

    /// Ends the run: queued sub-calls never start (settled
    /// `ABORTED_BEFORE_DISPATCH`), in-flight ones are cancelled and awaited
    /// (settled `ABORTED`). Returns (sub-calls cut off, timers dropped).
    async fn close(&mut self) -> (usize, usize) {
        let queued: Vec<SubCall> = {
            let mut st = self.shared.lock();
            st.closing = true;
            st.scheduler.drain_queue().collect()
        };
        for call in &queued {
            self.shared.emit(RunEventKind::Settled {
                id: Arc::clone(&call.id),
                ok: false,
                value: None,
                error: Some(ToolError::new(
                    ErrorCode::AbortedBeforeDispatch,
                    format!("call to `{}` was cancelled before it started", call.name),
                )),
            });
        }
        let in_flight = self.shared.lock().spawned.len();
        self.shared.calls_cancel.cancel();
        while !self.shared.lock().spawned.is_empty() {
            match self.inbox.recv().await {
                Some(completion) => self.shared.complete(completion),
                None => break,
            }
        }
        let timers = {
            let mut st = self.shared.lock();
            st.ready.clear();
            st.timer_due.clear();
            std::mem::take(&mut st.timers).len()
        };
        (queued.len() + in_flight, timers)
    }

    /// Closes the run (see [`close`](Self::close)) and takes what its
    /// outcome is made of.
    pub(crate) async fn end(&mut self) -> Ending {
        let (cut_calls, cut_timers) = self.close().await;
        let interrupted = self.interrupts.reason();
        let mut st = self.shared.lock();
        for line in st.rejections.lines() {
            st.capture.push(line);
        }
        if st.not_streamed > 0 {
            self.emit_truncated(st.not_streamed);
        }
        let finish = st.finish.take();
        let position = match &finish {
            Some(finish) if !finish.ok => position_in_stack(&finish.stack)
                .map(|at| self.failure_position(at, finish.text.as_deref().unwrap_or_default())),
            _ => None,
        };
        Ending {
            capture: std::mem::replace(&mut st.capture, Capture::new(0)),
            sub_calls: st.submitted,
            finish,
            position,
            images: std::mem::take(&mut st.images),
            cut_calls,
            cut_timers,
            interrupted,
            host_refused_memory: self.interrupts.trip.host_refused(),
        }
    }

    /// The model-code position of a runtime error QuickJS placed at `at`
    /// in the wrapped script (see `position`).
    fn failure_position(&self, at: (u32, u32), message: &str) -> (u32, u32) {
        let (line, column) = position::refine(&self.program.script, at, message).unwrap_or(at);
        self.program.to_model_position(line, column)
    }

    /// The final `log` event: how many lines were not streamed.
    fn emit_truncated(&self, lines: usize) {
        self.shared.emit(RunEventKind::Log {
            level: None,
            text: None,
            truncated: Some(lines),
        });
    }
}

impl RunState {
    fn take_due_timers(&mut self, now: Instant) -> Vec<u32> {
        let mut due = Vec::new();
        while let Some(entry) = self.timers.first_entry() {
            let (at, id) = *entry.key();
            if at > now {
                break;
            }
            entry.remove();
            self.timer_due.remove(&id);
            due.push(id);
        }
        due
    }
}

/// Compiles the console formatter into the current context.
fn load_inspect<'js>(ctx: Ctx<'js>) -> rquickjs::Result<Value<'js>> {
    match compiled("inspect") {
        Some(code) => code.eval(&ctx),
        None => ctx.eval(INSPECT),
    }
}

/// Records a promise rejection nothing handles yet, or one handled late.
/// Runs inside QuickJS's promise machinery, so it runs no JavaScript (a
/// getter here could re-enter it): the reason is described after the step
/// (see `describe_rejections`). Its promise and reason are kept alive in the
/// bridge, so the promise's address names it for the whole run.
fn track_rejection<'js>(
    shared: &Shared,
    ctx: &Ctx<'js>,
    promise: Value<'js>,
    reason: &Value<'js>,
    is_handled: bool,
) {
    if shared.memory.ending() {
        return;
    }
    // SAFETY: reading the pointer of an object value.
    let key = unsafe { rquickjs::qjs::JS_VALUE_GET_PTR(promise.as_raw()) } as usize;
    let mut st = shared.lock();
    if is_handled {
        st.rejections.handled(key);
        return;
    }
    let slot = match (ctx.userdata::<Bridge>(), st.rejections.free_slot()) {
        (Some(bridge), Some(slot)) => bridge.keep(ctx, slot, promise, reason).then_some(slot),
        _ => None,
    };
    match slot {
        Some(slot) => {
            st.rejections
                .described
                .insert(key, Rejection { slot, text: None });
        }
        None => st.rejections.more += 1,
    }
}

/// Describes the rejections recorded since the last call that are still
/// unhandled. Runs the program's getters, so no lock is held meanwhile.
fn describe_rejections(shared: &Shared, ctx: &Ctx<'_>) {
    loop {
        let waiting: Vec<(usize, u32)> = shared
            .lock()
            .rejections
            .described
            .iter()
            .filter(|(_, r)| r.text.is_none())
            .map(|(key, r)| (*key, r.slot))
            .collect();
        if waiting.is_empty() {
            return;
        }
        for (key, slot) in waiting {
            let reason = ctx
                .userdata::<Bridge>()
                .and_then(|bridge| bridge.unhandled.get::<Value>(slot as usize * 2 + 1).ok());
            let text = reason.map_or_else(|| "undefined".into(), |r| describe_reason(&r));
            if let Some(rejection) = shared.lock().rejections.described.get_mut(&key) {
                rejection.text = Some(text);
            }
        }
    }
}

/// Text for a rejection reason: `name: message` of an object, else the
/// value itself; at most [`DESCRIPTION_BYTES`].
fn describe_reason(reason: &Value<'_>) -> String {
    let mut text = describe_value(reason);
    if text.len() > DESCRIPTION_BYTES {
        text.truncate(floor_char_boundary(&text, DESCRIPTION_BYTES));
        text.push('…');
    }
    text
}

fn describe_value(reason: &Value<'_>) -> String {
    if let Some(object) = reason.as_object() {
        let name = text_property(object, "name");
        let message = text_property(object, "message");
        return match (name, message) {
            (Some(n), Some(m)) if !m.is_empty() => format!("{n}: {m}"),
            (Some(n), _) => n,
            (None, Some(m)) => m,
            (None, None) => "[object]".into(),
        };
    }
    if let Some(s) = text::of_string(reason) {
        return s;
    }
    if let Some(n) = reason.as_number() {
        return n.to_string();
    }
    if let Some(b) = reason.as_bool() {
        return b.to_string();
    }
    if reason.is_null() {
        return "null".into();
    }
    "undefined".into()
}

/// A string property, read as the program left it (a getter may run; what
/// it throws is dropped).
fn text_property(object: &Object<'_>, key: &str) -> Option<String> {
    match object.get::<_, Value>(key) {
        Ok(value) => text::of_string(&value),
        Err(_) => {
            let _ = object.ctx().catch();
            None
        }
    }
}

/// Message and program position (as QuickJS reports it in the wrapped
/// script) of a caught error.
pub(crate) fn describe_error(
    ctx: &Ctx<'_>,
    error: rquickjs::Error,
) -> (String, Option<(u32, u32)>) {
    if !matches!(error, rquickjs::Error::Exception) {
        return (error.to_string(), None);
    }
    let caught = ctx.catch();
    let Some(object) = caught.as_object() else {
        return (format!("Uncaught {}", describe_reason(&caught)), None);
    };
    let message = describe_reason(&caught);
    let stack = text_property(object, "stack").unwrap_or_default();
    let position = position_in_stack(&stack).or_else(|| {
        // QuickJS puts a syntax error's position on the error object.
        let line: Option<u32> = object.get("lineNumber").ok();
        let column: Option<u32> = object.get("columnNumber").ok();
        line.zip(column)
    });
    (message, position)
}

/// The first `program.ts:L:C` frame of a stack trace.
fn position_in_stack(stack: &str) -> Option<(u32, u32)> {
    let file = PROGRAM_FILE.to_str().ok()?;
    stack.lines().find_map(|line| {
        let at = line.find(file)?;
        let mut rest = line[at + file.len()..].strip_prefix(':')?.split(':');
        let line_no = rest.next()?.parse().ok()?;
        let column = rest.next()?.trim_end_matches(')').parse().ok()?;
        Some((line_no, column))
    })
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
    use std::time::{Duration, Instant};

    use serde_json::{Value, json};

    use crate::{Engine, Limits, Registry, RunOptions, RunRequest, Tool, ToolContext};
    use crate::{ToolDefinition, ToolError};

    /// Results the run recorded because their task found its state busy.
    pub(super) static BUSY_SETTLEMENTS: AtomicUsize = AtomicUsize::new(0);

    /// `quick` settles while `hog`'s first poll holds the run's state: its
    /// task cannot record the result, so the run must (the fallback path).
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_result_whose_task_found_the_run_busy_is_recorded_by_the_run() {
        let quick_done = Arc::new(AtomicBool::new(false));
        let registry = Registry::new();
        let done = Arc::clone(&quick_done);
        let quick = Tool::new(
            ToolDefinition::new("quick").read_only(true),
            move |_: Value, _: ToolContext| {
                let done = Arc::clone(&done);
                async move {
                    tokio::time::sleep(Duration::from_millis(1)).await;
                    done.store(true, Ordering::SeqCst);
                    Ok::<_, ToolError>(json!(1))
                }
            },
        );
        let done = Arc::clone(&quick_done);
        let hog = Tool::new(
            ToolDefinition::new("hog").read_only(true),
            move |_: Value, _: ToolContext| {
                // Hold the run's state until `quick` has finished, then long
                // enough for its task to find the state busy.
                let since = Instant::now();
                while !done.load(Ordering::SeqCst) && since.elapsed() < Duration::from_secs(10) {
                    std::thread::sleep(Duration::from_millis(1));
                }
                std::thread::sleep(Duration::from_millis(100));
                async move { Ok::<_, ToolError>(json!(2)) }
            },
        );
        registry.add(quick).unwrap();
        registry.add(hog).unwrap();
        let engine = Engine::new(registry, Limits::default()).unwrap();
        let before = BUSY_SETTLEMENTS.load(Ordering::SeqCst);
        let code =
            "const q = tools.quick({}); const h = tools.hog({}); return (await q) + (await h)";
        let outcome = engine
            .run_code(RunRequest::new(code), RunOptions::default())
            .await
            .unwrap();
        assert_eq!(outcome.text(), "3");
        assert!(quick_done.load(Ordering::SeqCst));
        assert!(BUSY_SETTLEMENTS.load(Ordering::SeqCst) > before);
    }
}

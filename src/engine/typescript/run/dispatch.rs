//! Sub-calls: what `tools.x(args)` submits, how the scheduler's admitted
//! calls are started through the pipeline, and how their results come back
//! to the run (inline, from their task, or through the run loop).

use std::future::Future;
use std::pin::Pin;
use std::sync::{TryLockError, Weak};
use std::task::{Context as TaskContext, Poll, Waker};

use rquickjs::{Ctx, IntoJs, Value};
use serde_json::Value as Json;

use super::super::convert::{self, NotPlain};
use super::super::text;
use super::bridge::Bridge;
use super::{RunState, Shared};
use crate::contract::call::{ErrorCode, ToolResult};
use crate::engine::session::StateResult;
use crate::engine::subcall::Started;
use crate::gate;
use crate::limits::ARGUMENTS;

/// What a sub-call's tokio task tells the run when it ends.
pub(super) enum Completion {
    /// The task recorded the result itself (and started what the scheduler
    /// admitted next): the program has something to settle.
    Settled,
    /// The run's state was busy: the run records this result.
    Result(u32, ToolResult),
    /// A state call's answer, its state having been busy (with the bytes
    /// its value is charged).
    State(u32, StateResult, usize),
}

/// What a TypeScript run keeps beside a sub-call: its tokio task, once it
/// has one (aborted if the run is dropped before the call settles).
pub(super) type Task = Option<tokio::task::AbortHandle>;

impl Shared {
    /// `tools.x(args)`: a sub-call, if `args` are plain data (else the
    /// prelude's exact path names what JSON would lose, or makes them plain).
    /// Settles at once when the pipeline is ready on its first poll;
    /// otherwise it continues on tokio.
    pub(super) fn submit(&self, name: &Value<'_>, args: &Value<'_>) -> Submitted<Plain> {
        let name = text::of_string(name).unwrap_or_default();
        let (arguments, charged) = match self.gate_value(args) {
            Ok(admitted) => admitted,
            Err(Refused::TooLarge) => {
                let code = ErrorCode::InvalidArguments.as_str();
                return Submitted::Error(code, gate::arguments_too_large(None));
            }
            Err(refused) => return refused.into(),
        };
        let mut st = self.lock();
        let n = match st.calls.submit(&self.setup, name, arguments, charged, None) {
            Ok(n) => n,
            Err(refused) => {
                self.memory.release(charged);
                return Submitted::Error(refused.code.as_str(), refused.message);
            }
        };
        st.submitting = Some(n);
        self.pump(&mut st);
        st.submitting = None;
        match st.inline.take() {
            Some(Ok(output)) => Submitted::Value(Plain(output.value)),
            Some(Err(error)) => Submitted::Error(error.code.as_str(), error.message),
            None => Submitted::Pending(n),
        }
    }

    /// A program's value through the gate (contracts §6, "What enters the
    /// host"): plain data within a call's own bound and the memory the run
    /// has left, charged to the run. Past the run's memory the run ends as
    /// `memory` (refused as not plain: the limit strikes on the way).
    pub(super) fn gate_value(&self, value: &Value<'_>) -> Result<(Json, usize), Refused> {
        let object_proto = match value.ctx().userdata::<Bridge>() {
            Some(bridge) => bridge.object_proto.clone(),
            None => return Err(Refused::NotPlain),
        };
        let room = self.memory.room();
        let budget = room.min(ARGUMENTS.max_cost);
        let (plain, charged) = match convert::plain_from_js_with(value, object_proto, budget) {
            Ok(plain) => plain,
            Err(NotPlain::Lossy) => return Err(Refused::NotPlain),
            Err(NotPlain::TooDeep) => return Err(Refused::TooDeep),
            Err(NotPlain::TooLarge) if budget < room => return Err(Refused::TooLarge),
            Err(NotPlain::TooLarge) => {
                self.memory.charge(usize::MAX);
                return Err(Refused::NotPlain);
            }
        };
        if !self.memory.charge(charged) {
            return Err(Refused::NotPlain);
        }
        Ok((plain, charged))
    }

    /// Polls a call's future once where it is made, inside the runtime: a
    /// call answered at once (a refusal, a synchronous tool, the memory
    /// store) needs no task.
    pub(super) fn poll_once<F: Future + ?Sized>(&self, future: Pin<&mut F>) -> Poll<F::Output> {
        let _runtime = self.setup.handle.enter();
        future.poll(&mut TaskContext::from_waker(Waker::noop()))
    }

    /// Starts every sub-call the scheduler admits.
    pub(super) fn pump(&self, st: &mut RunState) {
        if st.closing {
            return;
        }
        while let Some((call, future)) = st.calls.start(&self.setup, &self.calls_cancel) {
            self.dispatch(st, call, future);
        }
    }

    /// Starts one sub-call: polled once here, so a call the pipeline answers
    /// at once (a refusal, a synchronous tool) settles without a task;
    /// otherwise it continues on tokio.
    fn dispatch(
        &self,
        st: &mut RunState,
        mut call: Started<Task>,
        future: impl Future<Output = ToolResult> + Send + 'static,
    ) {
        let mut future = Box::pin(future);
        match self.poll_once(future.as_mut()) {
            Poll::Ready(result) => self.settle(st, call, result),
            Poll::Pending => {
                call.local = Some(self.spawn(call.n, future));
                st.calls.fly(call);
            }
        }
    }

    /// Runs the rest of sub-call `n` on tokio. Its task records the result
    /// itself when the run's state is free, so the next admitted call starts
    /// at once; when the state is busy it hands the result to the run loop.
    fn spawn(
        &self,
        n: u32,
        future: impl Future<Output = ToolResult> + Send + 'static,
    ) -> tokio::task::AbortHandle {
        self.spawn_recorded(
            future,
            move |shared, st, result| shared.complete_locked(st, n, result),
            move |_shared, result| {
                #[cfg(test)]
                tests::note(&tests::BUSY_FOUND, &_shared.setup.run_id);
                Completion::Result(n, result)
            },
        )
    }

    /// Runs `future` on tokio: its answer is recorded by `record` when the
    /// run's state is free, else handed to the run loop as `busy` makes it
    /// (a task must never wait on the state the run loop may hold).
    pub(super) fn spawn_recorded<T: Send + 'static>(
        &self,
        future: impl Future<Output = T> + Send + 'static,
        record: impl FnOnce(&Shared, &mut RunState, T) + Send + 'static,
        busy: impl FnOnce(&Shared, T) -> Completion + Send + 'static,
    ) -> tokio::task::AbortHandle {
        let completions = self.completions.clone();
        let this = Weak::clone(&self.this);
        let task = self.setup.handle.spawn(async move {
            let answer = future.await;
            let Some(shared) = this.upgrade() else { return };
            let completion = match shared.state.try_lock() {
                Ok(mut st) => {
                    record(&shared, &mut st, answer);
                    Completion::Settled
                }
                Err(TryLockError::WouldBlock) => busy(&shared, answer),
                Err(TryLockError::Poisoned(e)) => {
                    record(&shared, &mut e.into_inner(), answer);
                    Completion::Settled
                }
            };
            let _ = completions.send(completion);
        });
        task.abort_handle()
    }

    /// Records a settled sub-call: the lifecycle's settling (scheduler,
    /// event, images), what it returned (for a `TypeError`'s hint), and
    /// its delivery.
    fn settle(&self, st: &mut RunState, call: Started<Task>, result: ToolResult) {
        self.memory.release(call.charged);
        let landed = st.calls.settle(&self.setup, call, &result);
        if let Ok(output) = &result {
            st.returned.record(&landed.name, &output.value);
        }
        if st.submitting == Some(landed.n) {
            st.inline = Some(result);
            return;
        }
        // Held for the program until it takes it, charged to the run: a
        // program that does not await would otherwise pile answers up in
        // the host. Past the run's memory the run ends as `memory`.
        let charged = result
            .as_ref()
            .map_or(0, |output| gate::cost_of(&output.value));
        if self.memory.charge(charged) {
            st.ready.push((landed.n, result, charged));
        }
    }

    /// A sub-call that went to tokio has settled.
    pub(super) fn complete(&self, completion: Completion) {
        match completion {
            Completion::Settled => {}
            Completion::Result(n, result) => {
                #[cfg(test)]
                tests::note(&tests::BUSY_SETTLEMENTS, &self.setup.run_id);
                self.complete_locked(&mut self.lock(), n, result);
            }
            Completion::State(n, result, charged) => {
                self.state_answered(&mut self.lock(), n, result, charged);
            }
        }
    }

    fn complete_locked(&self, st: &mut RunState, n: u32, result: ToolResult) {
        let Some(call) = st.calls.land(n) else {
            return;
        };
        self.settle(st, call, result);
        self.pump(st);
    }
}

/// Why the gate did not take a program's value.
pub(super) enum Refused {
    /// Not plain data (or the run's memory is spent): the prelude takes
    /// the exact path.
    NotPlain,
    /// Nested deeper than the limit.
    TooDeep,
    /// More than a call's own bound.
    TooLarge,
}

/// What a call (`submit`, `state`) hands back to the prelude; `V` is what
/// it answers with.
pub(super) enum Submitted<V> {
    /// Not plain data: the prelude takes the exact path (`undefined`).
    NotPlain,
    /// Nested deeper than the limit (`false`).
    TooDeep,
    /// The call's number: the prelude's `settle` delivers it later.
    Pending(u32),
    /// Settled at once: a promise resolved with the value.
    Value(V),
    /// Failed at once: `[code, message]`.
    Error(&'static str, String),
}

impl<V> From<Refused> for Submitted<V> {
    /// What the prelude gets for a refusal that is not the caller's to word.
    fn from(refused: Refused) -> Self {
        match refused {
            Refused::TooDeep => Self::TooDeep,
            Refused::NotPlain | Refused::TooLarge => Self::NotPlain,
        }
    }
}

/// A sub-call's value, made in the program's context as it is.
pub(super) struct Plain(pub(super) Json);

impl<'js> IntoJs<'js> for Plain {
    fn into_js(self, ctx: &Ctx<'js>) -> rquickjs::Result<Value<'js>> {
        convert::to_js(ctx, &self.0)
    }
}

impl<'js, V: IntoJs<'js>> IntoJs<'js> for Submitted<V> {
    fn into_js(self, ctx: &Ctx<'js>) -> rquickjs::Result<Value<'js>> {
        match self {
            Submitted::NotPlain => Ok(Value::new_undefined(ctx.clone())),
            Submitted::TooDeep => Ok(Value::new_bool(ctx.clone(), false)),
            Submitted::Pending(n) => n.into_js(ctx),
            // A promise already resolved with the value, as `Promise.resolve`
            // would make (a `then` the program put on `Object.prototype` is
            // honoured the same way): no array to carry it, nor a call back
            // into the prelude to wrap it.
            Submitted::Value(value) => {
                let value = value.into_js(ctx)?;
                let (promise, resolve, _reject) = ctx.promise()?;
                resolve.call::<_, ()>((value,))?;
                Ok(promise.into_value())
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

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::{Arc, Mutex, PoisonError};
    use std::time::{Duration, Instant};

    use serde_json::{Value, json};

    use crate::{Engine, Limits, Registry, RunOptions, RunRequest, Tool, ToolContext};
    use crate::{ToolDefinition, ToolError};

    /// The runs that recorded a result because its task found their state
    /// busy (by run id: other tests' runs take the same path at the same time).
    pub(super) static BUSY_SETTLEMENTS: Mutex<Vec<String>> = Mutex::new(Vec::new());
    /// The runs whose sub-call task found their state busy.
    pub(super) static BUSY_FOUND: Mutex<Vec<String>> = Mutex::new(Vec::new());

    pub(super) fn note(runs: &Mutex<Vec<String>>, run_id: &str) {
        runs.lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(run_id.to_owned());
    }

    fn noted(runs: &Mutex<Vec<String>>, run_id: &str) -> bool {
        runs.lock()
            .unwrap_or_else(PoisonError::into_inner)
            .iter()
            .any(|r| r == run_id)
    }

    /// `quick` settles while `hog`'s first poll holds the run's state: its
    /// task cannot record the result, so the run must (the fallback path).
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_result_whose_task_found_the_run_busy_is_recorded_by_the_run() {
        const RUN: &str = "busy-fallback";
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
                // Hold the run's state until `quick` has finished and its
                // task has found the state busy (or 3 s): no sleep that a
                // loaded machine could outlast.
                let since = Instant::now();
                while (!done.load(Ordering::SeqCst) || !noted(&BUSY_FOUND, RUN))
                    && since.elapsed() < Duration::from_secs(3)
                {
                    std::thread::sleep(Duration::from_millis(1));
                }
                async move { Ok::<_, ToolError>(json!(2)) }
            },
        );
        registry.add(quick).unwrap();
        registry.add(hog).unwrap();
        let engine = Engine::new(registry, Limits::default()).unwrap();
        let code =
            "const q = tools.quick({}); const h = tools.hog({}); return (await q) + (await h)";
        let outcome = engine
            .run_code(RunRequest::new(code).run_id(RUN), RunOptions::default())
            .await
            .unwrap();
        assert_eq!(outcome.text(), "3");
        assert!(quick_done.load(Ordering::SeqCst));
        // Whether the task found the state busy depends on the pipeline
        // reaching `hog`'s handler in its first poll; when it did, the run
        // recorded the result (and a lost result would have left `q`
        // unsettled: no "3" above).
        assert!(!noted(&BUSY_FOUND, RUN) || noted(&BUSY_SETTLEMENTS, RUN));
    }
}

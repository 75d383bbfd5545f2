//! The program's `state` (contracts §9): what `state.get/set/delete/keys`
//! hand the run's session, and how their answers come back. Not sub-calls:
//! no tool, policy, event or scheduler; a store call is polled once where
//! it is made (the memory store answers at once), else it goes on in a task
//! of its own, cut off with the run's sub-calls. At most [`MAX_GOING`] go
//! at once; more wait their turn in order, each charged to the run's
//! memory, so a program firing calls without awaiting them holds no more
//! of the host than its memory limit allows.

use std::collections::{HashMap, VecDeque};
use std::future::Future;
use std::pin::Pin;
use std::task::{Context as TaskContext, Poll, Waker};

use rquickjs::{Array, Ctx, Function, IntoJs, Object, Value};

use super::super::convert::{self, NotPlain};
use super::super::text;
use super::bridge::Bridge;
use super::dispatch::Completion;
use super::{RunState, Shared};
use crate::engine::session::{StateAnswer, StateOp, StateResult};
use crate::gate;
use crate::limits::ARGUMENTS;

/// The code of a value `state.set` cannot keep.
const INVALID_VALUE: &str = "INVALID_VALUE";

/// State calls one run may have going at once.
const MAX_GOING: usize = 16;

/// What a call not answered at once costs the run beyond its value: its
/// future and its task.
const PER_CALL: usize = 1024;

/// A state call's future, not yet polled.
type Unstarted = Pin<Box<dyn Future<Output = StateResult> + Send>>;

/// The state calls of one run that have not reached the program yet.
#[derive(Default)]
pub(super) struct StateCalls {
    made: u32,
    /// Calls gone to a task, by number.
    in_flight: HashMap<u32, tokio::task::AbortHandle>,
    /// Calls waiting for one going to end, in order, with their charge.
    waiting: VecDeque<(u32, usize, Unstarted)>,
    /// Answered calls, each with the bytes charged to the run until the
    /// program takes it.
    ready: Vec<(u32, StateResult, usize)>,
}

impl StateCalls {
    pub(super) fn any_in_flight(&self) -> bool {
        !self.in_flight.is_empty() || !self.waiting.is_empty()
    }

    fn next(&mut self) -> u32 {
        self.made += 1;
        self.made
    }

    pub(super) fn any_ready(&self) -> bool {
        !self.ready.is_empty()
    }

    /// The answers the program has yet to take.
    pub(super) fn take_ready(&mut self) -> Vec<(u32, StateResult, usize)> {
        std::mem::take(&mut self.ready)
    }

    /// Cuts off what is still going: a write in flight may or may not stay.
    pub(super) fn cut_off(&mut self) {
        for (_, task) in self.in_flight.drain() {
            task.abort();
        }
        self.waiting.clear();
        self.ready.clear();
    }
}

/// What `state(op, key, value)` hands back to the prelude.
pub(super) enum Asked {
    /// The value is not plain data: the prelude takes the exact path.
    NotPlain,
    /// The value nests deeper than the limit.
    TooDeep,
    /// The call's number: `settleState` delivers it later.
    Pending(u32),
    /// Answered at once: a promise resolved with the answer.
    Answered(StateAnswer),
    /// Failed at once: `[code, message]`.
    Failed(&'static str, String),
}

impl Shared {
    /// `state(op, key, value)` from the prelude (which checked that the key
    /// is a string of whole characters): `op` 0 `get`, 1 `set`, 2 `delete`,
    /// 3 `keys`.
    pub(super) fn state_call(&self, op: i32, key: &Value<'_>, value: &Value<'_>) -> Asked {
        let key = text::of_string(key).unwrap_or_default();
        let (op, charged) = match op {
            0 => (StateOp::Get(key), 0),
            1 => match self.state_value(value) {
                Ok((value, charged)) => (StateOp::Set(key, value), charged),
                Err(asked) => return asked,
            },
            2 => (StateOp::Delete(key), 0),
            _ => (StateOp::Keys, 0),
        };
        let mut future: Unstarted = Box::pin(self.setup.session.apply(op));
        {
            let mut st = self.lock();
            if st.state_calls.in_flight.len() >= MAX_GOING {
                if !self.memory.charge(PER_CALL) {
                    self.memory.release(charged);
                    return spent();
                }
                let n = st.state_calls.next();
                let charged = charged + PER_CALL;
                st.state_calls.waiting.push_back((n, charged, future));
                return Asked::Pending(n);
            }
        }
        let polled = {
            let _runtime = self.setup.handle.enter();
            future
                .as_mut()
                .poll(&mut TaskContext::from_waker(Waker::noop()))
        };
        match polled {
            Poll::Ready(result) => {
                self.memory.release(charged);
                match result {
                    Ok(answer) => Asked::Answered(answer),
                    Err(e) => Asked::Failed(e.code(), e.to_string()),
                }
            }
            Poll::Pending => {
                if !self.memory.charge(PER_CALL) {
                    self.memory.release(charged);
                    return spent();
                }
                // Held while the task is spawned: it cannot record its
                // answer before the call is known to be in flight.
                let mut st = self.lock();
                let n = st.state_calls.next();
                let task = self.spawn_state(n, charged + PER_CALL, future);
                st.state_calls.in_flight.insert(n, task);
                Asked::Pending(n)
            }
        }
    }

    /// `state.set`'s value through the gate, as a sub-call's arguments: the
    /// value and the bytes it is charged to the run until the write ends.
    fn state_value(&self, value: &Value<'_>) -> Result<(serde_json::Value, usize), Asked> {
        let object_proto = match value.ctx().userdata::<Bridge>() {
            Some(bridge) => bridge.object_proto.clone(),
            None => return Err(Asked::NotPlain),
        };
        let room = self.memory.room();
        let budget = room.min(ARGUMENTS.max_cost);
        let (value, charged) = match convert::plain_from_js_with(value, object_proto, budget) {
            Ok(plain) => plain,
            Err(NotPlain::Lossy) => return Err(Asked::NotPlain),
            Err(NotPlain::TooDeep) => return Err(Asked::TooDeep),
            Err(NotPlain::TooLarge) if budget < room => {
                let why = gate::arguments_too_large(None).replace("the arguments", "the value");
                return Err(Asked::Failed(INVALID_VALUE, why));
            }
            Err(NotPlain::TooLarge) => {
                // Refused: the run ends as `memory`, saying why.
                self.memory.charge(usize::MAX);
                return Err(Asked::NotPlain);
            }
        };
        if !self.memory.charge(charged) {
            return Err(Asked::NotPlain);
        }
        Ok((value, charged))
    }

    /// Runs the rest of state call `n` on tokio; its answer is recorded by
    /// the task when the run's state is free, else by the run loop.
    fn spawn_state(
        &self,
        n: u32,
        charged: usize,
        future: impl Future<Output = StateResult> + Send + 'static,
    ) -> tokio::task::AbortHandle {
        self.spawn_recorded(
            future,
            move |shared, st, result| shared.state_answered(st, n, result, charged),
            move |_, result| Completion::State(n, result, charged),
        )
    }

    /// Records state call `n`'s answer for the program. A value read is
    /// held for it charged to the run, as a sub-call's result is.
    pub(super) fn state_answered(
        &self,
        st: &mut RunState,
        n: u32,
        result: StateResult,
        charged: usize,
    ) {
        if st.state_calls.in_flight.remove(&n).is_none() {
            self.memory.release(charged);
            return;
        }
        // The next waiting call takes its place.
        if let Some((next, next_charged, future)) = st.state_calls.waiting.pop_front() {
            let task = self.spawn_state(next, next_charged, future);
            st.state_calls.in_flight.insert(next, task);
        }
        let held = match &result {
            Ok(StateAnswer::Value(Some(value))) => gate::cost_of(value),
            _ => 0,
        };
        if self.memory.charge(held) {
            st.state_calls.ready.push((n, result, charged + held));
        } else {
            self.memory.release(charged);
        }
    }
}

/// What a call gets when the run's memory is spent (the run is ending as
/// `memory`).
fn spent() -> Asked {
    let why = "the run's memory is spent".to_owned();
    Asked::Failed("UNAVAILABLE", why)
}

/// Delivers the state answers taken from the run's state to the
/// program's promises.
pub(super) fn deliver_state<'js>(
    shared: &Shared,
    ctx: &Ctx<'js>,
    host: &Object<'js>,
    ready: Vec<(u32, StateResult, usize)>,
) {
    if ready.is_empty() {
        return;
    }
    let Ok(settle) = host.get::<_, Function>("settleState") else {
        return;
    };
    for (n, result, charged) in ready {
        // The heap counts the copy now made, so the host's no longer does.
        shared.memory.release(charged);
        let _ = match result.map(|answer| answer.into_js(ctx)) {
            Ok(Ok(value)) => settle.call::<_, ()>((n, true, value)),
            // Out of memory, in practice: the run is ending.
            Ok(Err(_)) => {
                let _ = ctx.catch();
                let why = "the value read could not be made in the run's memory";
                settle.call::<_, ()>((n, false, why, "UNAVAILABLE"))
            }
            Err(e) => settle.call::<_, ()>((n, false, e.to_string(), e.code())),
        };
    }
}

impl<'js> IntoJs<'js> for StateAnswer {
    fn into_js(self, ctx: &Ctx<'js>) -> rquickjs::Result<Value<'js>> {
        match self {
            StateAnswer::Value(Some(json)) => convert::to_js(ctx, &json),
            StateAnswer::Value(None) | StateAnswer::Written => {
                Ok(Value::new_undefined(ctx.clone()))
            }
            StateAnswer::Deleted(was) => Ok(Value::new_bool(ctx.clone(), was)),
            StateAnswer::Keys(keys) => {
                let array = Array::new(ctx.clone())?;
                for (i, key) in keys.into_iter().enumerate() {
                    array.set(i, key)?;
                }
                Ok(array.into_value())
            }
        }
    }
}

impl<'js> IntoJs<'js> for Asked {
    fn into_js(self, ctx: &Ctx<'js>) -> rquickjs::Result<Value<'js>> {
        match self {
            Asked::NotPlain => Ok(Value::new_undefined(ctx.clone())),
            Asked::TooDeep => Ok(Value::new_bool(ctx.clone(), false)),
            Asked::Pending(n) => n.into_js(ctx),
            Asked::Answered(answer) => {
                let value = answer.into_js(ctx)?;
                let (promise, resolve, _reject) = ctx.promise()?;
                resolve.call::<_, ()>((value,))?;
                Ok(promise.into_value())
            }
            Asked::Failed(code, message) => {
                let array = Array::new(ctx.clone())?;
                array.set(0, code)?;
                array.set(1, message)?;
                Ok(array.into_value())
            }
        }
    }
}

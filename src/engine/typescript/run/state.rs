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
use std::task::Poll;

use rquickjs::{Array, Ctx, Function, IntoJs, Object, Value};

use super::super::convert;
use super::super::text;
use super::dispatch::{Completion, Refused, Submitted};
use super::{RunState, Shared};
use crate::engine::session::{StateAnswer, StateOp, StateResult};
use crate::gate;
use crate::state::StateError;

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
pub(super) type Asked = Submitted<StateAnswer>;

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
        match self.poll_once(future.as_mut()) {
            Poll::Ready(result) => {
                self.memory.release(charged);
                match result {
                    Ok(answer) => Asked::Value(answer),
                    Err(e) => Asked::Error(e.code(), e.to_string()),
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
        self.gate_value(value).map_err(|refused| match refused {
            Refused::TooLarge => {
                let e = StateError::Value(gate::value_too_large(None));
                Asked::Error(e.code(), e.to_string())
            }
            refused => refused.into(),
        })
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
    Asked::Error("UNAVAILABLE", why)
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

//! `state` in Python (contracts §9): the session's values, through a host
//! function the prelude's `state.get/set/delete/keys` call. The run loop
//! awaits the store before it resumes the program, under the run's
//! deadline and cancellation like everything the loop awaits; the
//! program's sub-calls go on meanwhile.

use monty_pool::ResumeValue;
use monty_types::unstable::{self, MontyNode};
use monty_types::{CallArgs, ExcType, MontyException, MontyObject};

use super::convert;
use crate::engine::session::{RunSession, StateAnswer, StateOp};
use crate::gate;
use crate::limits::ARGUMENTS;
use crate::state::StateError;

/// `_ptc_state(op, key, value)`, behind `state`.
pub(super) const STATE: &str = "_ptc_state";

/// What the run's prelude defines with it: `state` and `StateError`.
/// Monty has no exception classes of its own, so a failed call raises
/// `RuntimeError` (`StateError` names it) whose message carries the code.
pub(super) const PRELUDE: &str = "\
StateError = RuntimeError
class _State:
    async def get(self, key):
        return _ptc_state('get', key, None)
    async def set(self, key, value):
        return _ptc_state('set', key, value)
    async def delete(self, key):
        return _ptc_state('delete', key, None)
    async def keys(self):
        return _ptc_state('keys', '', None)
state = _State()
";

/// The answer to a call of [`STATE`], once the store has given it.
pub(super) async fn answer(session: &std::sync::Arc<RunSession>, args: &CallArgs) -> ResumeValue {
    let answered = match op(args) {
        Ok(op) => session.apply(op).await,
        Err(refused) => Err(refused),
    };
    match answered {
        Ok(answer) => ResumeValue::Return(to_monty(answer)),
        Err(e) => raised(e.code(), &e.to_string()),
    }
}

/// The call's op, its key a str and its value through the gate.
fn op(args: &CallArgs) -> Result<StateOp, StateError> {
    let (graph, positional, _) = unstable::call_args_parts(args);
    let measured = convert::Measured::of(graph);
    let node = |i: usize| positional.get(i).map(|id| (*id, measured.node(*id)));
    let (Some((_, MontyNode::String(op))), Some((key_id, key))) = (node(0), node(1)) else {
        let why = "state is called as `await state.get(key)`".into();
        return Err(StateError::Key(why));
    };
    let MontyNode::String(key) = key else {
        let got = graph.type_name(key_id);
        return Err(StateError::Key(format!("a key is a str, got {got}")));
    };
    let key = key.clone();
    Ok(match op.as_str() {
        "get" => StateOp::Get(key),
        "delete" => StateOp::Delete(key),
        "keys" => StateOp::Keys,
        _ => {
            let Some(&value) = positional.get(2) else {
                let why = "state.set takes a key and a value".into();
                return Err(StateError::Value(why));
            };
            let cost = measured.size(value).cost();
            if cost > ARGUMENTS.max_cost as u64 {
                return Err(StateError::Value(gate::value_too_large(Some(cost))));
            }
            let value = measured.to_json(value).map_err(|convert::NotPlain(what)| {
                StateError::Value(format!(
                    "the value of `{key}` must be plain data (dict, list, str, int, float, bool, None): got {what}"
                ))
            })?;
            StateOp::Set(key, value)
        }
    })
}

/// An answer as the program gets it.
fn to_monty(answer: StateAnswer) -> MontyObject {
    match answer {
        StateAnswer::Value(Some(value)) => convert::to_monty(&value),
        StateAnswer::Value(None) | StateAnswer::Written => MontyObject::none(),
        StateAnswer::Deleted(was) => MontyObject::bool(was),
        StateAnswer::Keys(keys) => {
            MontyObject::list(keys.iter().map(|k| MontyObject::string(k.as_str())))
        }
    }
}

/// `StateError` (Monty's `RuntimeError`), its message carrying the code
/// as the TypeScript error's text does.
fn raised(code: &str, message: &str) -> ResumeValue {
    let message = format!("StateError: {message} (code {code})");
    ResumeValue::Error(MontyException::new(ExcType::RuntimeError, Some(message)))
}

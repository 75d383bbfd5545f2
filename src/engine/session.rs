//! A run's session (contracts §9), whatever its language: the store its
//! `state` reads and writes, and its handle, the one the request named
//! (checked before the run starts) or one the store mints at the run's
//! first write. The languages turn a program's `state.*` into a
//! [`StateOp`] and its [`StateAnswer`] back into a value.

use std::future::Future;
use std::sync::Arc;

use serde_json::Value as Json;
use tokio::sync::OnceCell;

use crate::gate;
use crate::limits::ANSWER;
use crate::state::{StateError, Store, check_key};

/// What a program asks of its session.
#[derive(Debug)]
pub(crate) enum StateOp {
    Get(String),
    /// The key and the value, already through the gate.
    Set(String, Json),
    Delete(String),
    Keys,
}

/// What a state call answers.
#[derive(Debug)]
pub(crate) enum StateAnswer {
    /// `get`: the value, when the key is set.
    Value(Option<Json>),
    /// `set` wrote it.
    Written,
    /// `delete`: whether the key was set.
    Deleted(bool),
    /// `keys`, sorted.
    Keys(Vec<String>),
}

pub(crate) type StateResult = Result<StateAnswer, StateError>;

/// One run's session.
pub(crate) struct RunSession {
    store: Arc<dyn Store>,
    handle: OnceCell<String>,
    /// The request named the session (else any handle was minted by the run).
    named: bool,
}

impl RunSession {
    /// The session `handle` names in `store`, if the store has it.
    pub(crate) async fn named(store: Arc<dyn Store>, handle: String) -> Result<Self, StateError> {
        store.check(&handle).await?;
        Ok(Self {
            store,
            handle: OnceCell::new_with(Some(handle)),
            named: true,
        })
    }

    /// No session yet: one is opened at the run's first write.
    pub(crate) fn fresh(store: Arc<dyn Store>) -> Self {
        Self {
            store,
            handle: OnceCell::new(),
            named: false,
        }
    }

    /// The session's handle, once it has one.
    pub(crate) fn handle(&self) -> Option<&str> {
        self.handle.get().map(String::as_str)
    }

    /// Whether this run opened the session (the model has not seen its handle).
    pub(crate) fn minted(&self) -> bool {
        !self.named && self.handle.initialized()
    }

    /// Carries out `op`: a future the language awaits (or polls once: the
    /// memory store answers at once) under the run's deadline.
    pub(crate) fn apply(
        self: &Arc<Self>,
        op: StateOp,
    ) -> impl Future<Output = StateResult> + Send + 'static {
        let this = Arc::clone(self);
        async move { this.carry_out(op).await }
    }

    async fn carry_out(&self, op: StateOp) -> StateResult {
        let store = &self.store;
        // A run with no session yet reads an empty one: nothing is opened
        // until something is written.
        let Some(handle) = self.handle() else {
            return match op {
                StateOp::Set(key, value) => self.first_write(key, value).await,
                StateOp::Get(key) => check_key(&key).map(|()| StateAnswer::Value(None)),
                StateOp::Delete(key) => check_key(&key).map(|()| StateAnswer::Deleted(false)),
                StateOp::Keys => Ok(StateAnswer::Keys(Vec::new())),
            };
        };
        match op {
            StateOp::Get(key) => match store.get(handle, &key).await? {
                Some(text) => parsed(&text).map(|value| StateAnswer::Value(Some(value))),
                None => Ok(StateAnswer::Value(None)),
            },
            StateOp::Set(key, value) => {
                store.set(handle, &key, value.to_string()).await?;
                Ok(StateAnswer::Written)
            }
            StateOp::Delete(key) => store.delete(handle, &key).await.map(StateAnswer::Deleted),
            StateOp::Keys => store.keys(handle).await.map(StateAnswer::Keys),
        }
    }

    /// The run's first write: the session is opened for it, unless the
    /// write would be refused anyway (no session is minted for nothing).
    async fn first_write(&self, key: String, value: Json) -> StateResult {
        check_key(&key)?;
        let text = value.to_string();
        let quotas = self.store.quotas();
        let usage = crate::state::Usage::default();
        quotas.after_set(usage, &key, None, text.len())?;
        let store = &self.store;
        let handle = self.handle.get_or_try_init(|| store.open()).await?;
        store.set(handle, &key, text).await?;
        Ok(StateAnswer::Written)
    }
}

/// A stored value's text, through the gate like any JSON entering the
/// host: a store a fleet shares is another process's memory.
fn parsed(text: &str) -> Result<Json, StateError> {
    let unreadable =
        |why: String| StateError::Unavailable(format!("a stored value is unreadable: {why}"));
    gate::json_text(text.as_bytes(), ANSWER).map_err(|refused| unreadable(refused.to_string()))?;
    serde_json::from_str(text).map_err(|e| unreadable(e.to_string()))
}

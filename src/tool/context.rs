//! What a handler is given besides its arguments (contracts §3): the
//! call's [`ToolContext`], with its cancellation, its caller's data and
//! where its progress notes go.

use std::any::Any;
use std::fmt;
use std::sync::Arc;

use tokio_util::sync::CancellationToken;

/// Host data passed through to handlers by reference; never logged or serialized.
pub type CallerContext = Arc<dyn Any + Send + Sync>;

/// Where a call's progress notes go: in ptc, the run's events (every
/// [`EventSink`](crate::EventSink) is one). The tool's own type, so nothing
/// of a tool reaches up into the engine.
pub trait ProgressSink: Send + Sync + 'static {
    /// A note of call `call_id` of run `run_id`, already one line.
    fn progress(&self, run_id: Arc<str>, call_id: Arc<str>, message: String);
}

/// What a handler gets besides its arguments.
#[derive(Clone)]
pub struct ToolContext {
    pub(crate) call_id: Arc<str>,
    pub(crate) cancel: CancellationToken,
    pub(crate) caller: Option<CallerContext>,
    pub(crate) run_id: Option<Arc<str>>,
    /// Where its progress notes go, when someone watches the run.
    pub(crate) progress: Option<Arc<dyn ProgressSink>>,
}

impl ToolContext {
    /// A context for a call with this id, cancellation signal and caller data.
    pub fn new(
        call_id: impl Into<Arc<str>>,
        cancel: CancellationToken,
        caller: Option<CallerContext>,
    ) -> Self {
        Self {
            call_id: call_id.into(),
            cancel,
            caller,
            run_id: None,
            progress: None,
        }
    }

    /// The run this call belongs to (sub-calls only).
    pub fn run_id(&self) -> Option<&str> {
        self.run_id.as_deref()
    }

    /// The call's id.
    pub fn call_id(&self) -> &str {
        &self.call_id
    }

    /// Fires when the call is cancelled; handlers must observe it.
    pub fn cancellation(&self) -> &CancellationToken {
        &self.cancel
    }

    /// Whether [`report_progress`](Self::report_progress) reaches anyone:
    /// a handler may skip the work of making notes when not.
    pub fn reports_progress(&self) -> bool {
        self.progress.is_some()
    }

    /// Whether both calls report to the same watcher (the same event sink,
    /// one run's in every front end): whoever reads one's notes reads the
    /// other's too. `false` when either has no watcher.
    pub(crate) fn same_watcher(&self, other: &Self) -> bool {
        match (&self.progress, &other.progress) {
            (Some(one), Some(other)) => std::ptr::addr_eq(Arc::as_ptr(one), Arc::as_ptr(other)),
            _ => false,
        }
    }

    /// Tells whoever watches the run what the call is doing, as a
    /// `progress` run event: one line, escaped and cut as titles are
    /// (contracts §2); nothing when nobody watches. Does not block: it
    /// hands the note to the run's event sink.
    pub fn report_progress(&self, message: impl Into<String>) {
        if let Some(sink) = &self.progress
            && let Some(message) = crate::tool::title::as_line(message.into())
        {
            let run_id = Arc::clone(self.run_id.as_ref().unwrap_or(&self.call_id));
            sink.progress(run_id, Arc::clone(&self.call_id), message);
        }
    }

    /// The caller's context, if it is a `T`.
    pub fn caller<T: Any + Send + Sync>(&self) -> Option<&T> {
        self.caller.as_deref().and_then(|c| c.downcast_ref())
    }
}

impl fmt::Debug for ToolContext {
    // The caller context is the host's business: never print it.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ToolContext")
            .field("call_id", &self.call_id)
            .field("run_id", &self.run_id)
            .field("cancelled", &self.cancel.is_cancelled())
            .field("caller", &self.caller.as_ref().map(|_| "<opaque>"))
            .field("reports_progress", &self.progress.is_some())
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn debug_never_prints_the_caller_context() {
        let cx = ToolContext::new(
            "1",
            CancellationToken::new(),
            Some(Arc::new("api-key-123".to_string())),
        );
        assert!(!format!("{cx:?}").contains("api-key"));
        assert_eq!(
            cx.caller::<String>().map(String::as_str),
            Some("api-key-123")
        );
    }
}

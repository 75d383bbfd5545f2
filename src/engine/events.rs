//! Where a run's events go: an [`EventSink`] (their shapes are the
//! contract's, `contract/events.rs`).

use std::sync::Arc;

use crate::contract::events::{RunEvent, RunEventKind};
use crate::tool::context::ProgressSink;

/// Receives run events. Called on the sandbox thread: it must not block
/// (hand the event to a channel or a lock-free queue).
pub trait EventSink: ProgressSink + Send + Sync + 'static {
    /// Receives one event.
    fn emit(&self, event: RunEvent);
}

/// A handler's progress note is a `progress` event of its run.
impl<T: EventSink + ?Sized> ProgressSink for T {
    fn progress(&self, run_id: Arc<str>, id: Arc<str>, message: String) {
        self.emit(RunEvent {
            run_id,
            kind: RunEventKind::Progress { id, message },
        });
    }
}

impl<F: Fn(RunEvent) + Send + Sync + 'static> EventSink for F {
    fn emit(&self, event: RunEvent) {
        self(event)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_closure_is_a_sink_and_receives_each_event() {
        let got: Arc<std::sync::Mutex<Vec<RunEvent>>> = Arc::default();
        let kept = Arc::clone(&got);
        let sink: Arc<dyn EventSink> = Arc::new(move |e: RunEvent| kept.lock().unwrap().push(e));
        let event = |id: &str| RunEvent {
            run_id: id.into(),
            kind: RunEventKind::started("r:ptc:1".into(), "echo".into(), "echo".into(), &json!({})),
        };
        sink.emit(event("a"));
        sink.emit(event("b"));
        let ids: Vec<String> = got
            .lock()
            .unwrap()
            .iter()
            .map(|e| e.run_id.to_string())
            .collect();
        assert_eq!(ids, ["a", "b"]);
    }
}

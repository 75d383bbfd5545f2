//! Everything ptc writes to the host: one unbounded queue to one writer
//! task, so emitting never blocks a sandbox and a request's notifications,
//! queued while it runs, are written before its response.

use std::io;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use serde::Serialize;
use serde_json::Value;
use tokio::io::{AsyncWrite, AsyncWriteExt, BufWriter};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use crate::contract::events::RunEvent;
use crate::contract::host_protocol::methods::WithDropped;
use crate::contract::host_protocol::{Method, Notification, Response, RpcError};

/// What the writer task receives.
pub(super) enum Outgoing {
    Line(String),
    /// Flush, shut the output down and stop.
    Close,
}

/// Writes queued lines in order; flushes whenever the queue runs dry.
pub(super) async fn write_lines<W: AsyncWrite + Unpin>(
    output: W,
    mut lines: mpsc::UnboundedReceiver<Outgoing>,
    backlog: Arc<AtomicUsize>,
    host_gone: CancellationToken,
) -> io::Result<()> {
    let mut out = BufWriter::new(output);
    let result = async {
        while let Some(message) = lines.recv().await {
            match message {
                Outgoing::Line(line) => {
                    out.write_all(line.as_bytes()).await?;
                    out.write_all(b"\n").await?;
                    backlog.fetch_sub(line.len(), Ordering::AcqRel);
                    if lines.is_empty() {
                        out.flush().await?;
                    }
                }
                Outgoing::Close => break,
            }
        }
        out.flush().await?;
        out.shutdown().await
    }
    .await;
    if result.is_err() {
        host_gone.cancel();
    }
    result
}

/// The sending side of the writer's queue. Sending never blocks; after the
/// writer stopped, lines are dropped.
#[derive(Clone)]
pub(super) struct Outbox {
    pub(super) queue: mpsc::UnboundedSender<Outgoing>,
    /// Bytes queued and not yet written.
    pub(super) backlog: Arc<AtomicUsize>,
}

/// How far behind a host may fall in reading before `run/event` lines are
/// dropped (and counted in the run's response): events are what a host
/// that does not read would otherwise pile up without bound. Responses and
/// requests are never dropped; each is bounded by what a run may hold.
pub(super) const EVENT_BACKLOG: usize = 16 << 20;

impl Outbox {
    pub(super) fn send(&self, message: &impl Serialize) {
        if let Ok(line) = serde_json::to_string(message) {
            self.queue_line(line);
        }
    }

    fn queue_line(&self, line: String) {
        self.backlog.fetch_add(line.len(), Ordering::AcqRel);
        if let Err(mpsc::error::SendError(Outgoing::Line(line))) =
            self.queue.send(Outgoing::Line(line))
        {
            self.backlog.fetch_sub(line.len(), Ordering::AcqRel);
        }
    }

    /// Queues a `run/event` unless the host is too far behind; `false` if
    /// it was dropped.
    pub(super) fn event(&self, event: &RunEvent) -> bool {
        if self.backlog.load(Ordering::Acquire) > EVENT_BACKLOG {
            return false;
        }
        self.notify(event);
        true
    }

    pub(super) fn notify(&self, params: impl Serialize + Method) {
        self.send(&Notification::new(params));
    }

    pub(super) fn respond(&self, id: &Value, result: impl Serialize) {
        self.send(&Response::new(id, result));
    }

    pub(super) fn fail(&self, id: &Value, error: RpcError) {
        self.send(&error.response(id));
    }

    pub(super) fn close(&self) {
        let _ = self.queue.send(Outgoing::Close);
    }
}

/// A response, with `droppedEvents` when the run's events did not all fit.
pub(super) fn with_dropped<R: Serialize>(result: R, dropped: &AtomicUsize) -> WithDropped<R> {
    WithDropped {
        result,
        dropped_events: dropped.load(Ordering::Relaxed),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::contract::events::RunEventKind;
    use serde_json::json;

    /// A host that stops reading costs at most the event backlog: events
    /// past it are dropped (and counted), responses never are.
    #[test]
    fn events_stop_at_the_backlog_responses_do_not() {
        let (queue, mut lines) = mpsc::unbounded_channel();
        let outbox = Outbox {
            queue,
            backlog: Arc::default(),
        };
        let event = RunEvent {
            run_id: "r".into(),
            kind: RunEventKind::Log {
                level: crate::LogLevel::Log,
                text: "x".repeat(1 << 20),
            },
        };
        let sent = (0..100).filter(|_| outbox.event(&event)).count();
        assert!((16..=18).contains(&sent), "{sent} events queued");
        outbox.respond(&json!(1), json!("still answered"));
        let queued = std::iter::from_fn(|| lines.try_recv().ok()).count();
        assert_eq!(queued, sent + 1);
        let dropped = AtomicUsize::new(100 - sent);
        assert_eq!(
            serde_json::to_value(with_dropped(json!({}), &dropped)).unwrap()["droppedEvents"],
            100 - sent
        );
        let none = with_dropped(json!({}), &AtomicUsize::new(0));
        assert_eq!(serde_json::to_value(none).unwrap(), json!({}));
    }
}

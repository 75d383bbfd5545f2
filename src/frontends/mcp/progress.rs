//! A run's sub-calls as MCP progress notifications: one per settled
//! sub-call, `progress` the number settled so far (no `total`: a program's
//! calls are not known ahead), the message naming the tool and whether it
//! succeeded.

use std::collections::HashMap;
use std::future::Future;
use std::sync::Arc;

use rmcp::model::{ProgressNotificationParam, ProgressToken};
use rmcp::{Peer, RoleServer};
use tokio::sync::mpsc;

use crate::engine::events::{RunEvent, RunEventKind};

/// Where a run's events go: the sink for [`RunOptions`](crate::RunOptions)
/// and the receiving end [`forwarding`] reads.
pub(super) fn channel() -> (
    impl Fn(RunEvent) + Send + Sync + 'static,
    mpsc::UnboundedReceiver<RunEvent>,
) {
    let (sender, receiver) = mpsc::unbounded_channel();
    // Never blocks the sandbox thread; a closed receiver drops events.
    let sink = move |event: RunEvent| {
        let _ = sender.send(event);
    };
    (sink, receiver)
}

/// Runs `work`, sending a progress notification for each sub-call that
/// settles meanwhile. Every event emitted before `work` ends is sent before
/// this returns, so the notifications precede the call's response.
pub(super) async fn forwarding<F: Future>(
    work: F,
    mut events: mpsc::UnboundedReceiver<RunEvent>,
    token: Option<ProgressToken>,
    peer: Peer<RoleServer>,
) -> F::Output {
    let Some(token) = token else {
        return work.await;
    };
    let mut reporter = Reporter {
        token,
        peer,
        names: HashMap::new(),
        settled: 0,
    };
    tokio::pin!(work);
    loop {
        tokio::select! {
            biased;
            Some(event) = events.recv() => reporter.report(event).await,
            output = &mut work => {
                while let Ok(event) = events.try_recv() {
                    reporter.report(event).await;
                }
                return output;
            }
        }
    }
}

struct Reporter {
    token: ProgressToken,
    peer: Peer<RoleServer>,
    /// Tool names of sub-calls started and not yet settled.
    names: HashMap<Arc<str>, String>,
    settled: u64,
}

impl Reporter {
    async fn report(&mut self, event: RunEvent) {
        let message = match event.kind {
            RunEventKind::Started { id, name, .. } => {
                self.names.insert(id, name);
                return;
            }
            RunEventKind::Settled { id, ok, error, .. } => {
                let name = self.names.remove(&id).unwrap_or_default();
                match error {
                    _ if ok => format!("`{name}` ok"),
                    Some(error) => format!("`{name}` failed ({})", error.code),
                    None => format!("`{name}` failed"),
                }
            }
            _ => return,
        };
        self.settled += 1;
        let mut params = ProgressNotificationParam::new(self.token.clone(), self.settled as f64);
        params.message = Some(message);
        // A client that is gone loses its progress; the run goes on to its end.
        let _ = self.peer.notify_progress(params).await;
    }
}

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
use crate::tool::call::ErrorCode;

/// What progress needs of a run event: no arguments, values or console
/// lines, so a slow client costs little memory per sub-call.
pub(super) enum Step {
    Started {
        id: Arc<str>,
        name: String,
    },
    Settled {
        id: Arc<str>,
        failure: Option<Option<ErrorCode>>,
    },
}

/// Where a run's events go: the sink for [`RunOptions`](crate::RunOptions)
/// and the receiving end [`forwarding`] reads.
pub(super) fn channel() -> (
    impl Fn(RunEvent) + Send + Sync + 'static,
    mpsc::UnboundedReceiver<Step>,
) {
    let (sender, receiver) = mpsc::unbounded_channel();
    // Never blocks the sandbox thread; a closed receiver drops events.
    let sink = move |event: RunEvent| {
        let step = match event.kind {
            RunEventKind::Started { id, name, .. } => Step::Started { id, name },
            RunEventKind::Settled { id, ok, error, .. } => Step::Settled {
                id,
                failure: (!ok).then(|| error.map(|e| e.code)),
            },
            _ => return,
        };
        let _ = sender.send(step);
    };
    (sink, receiver)
}

/// Runs `work`, sending a progress notification for each sub-call that
/// settles meanwhile. Every event emitted before `work` ends is sent before
/// this returns, so the notifications precede the call's response.
pub(super) async fn forwarding<F: Future>(
    work: F,
    mut events: mpsc::UnboundedReceiver<Step>,
    token: Option<ProgressToken>,
    peer: Peer<RoleServer>,
) -> F::Output {
    let Some(token) = token else {
        // Nobody asked for progress: the sink's sends fail and cost nothing.
        drop(events);
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
    async fn report(&mut self, step: Step) {
        let message = match step {
            Step::Started { id, name } => {
                self.names.insert(id, name);
                return;
            }
            Step::Settled { id, failure } => {
                let name = self.names.remove(&id).unwrap_or_default();
                match failure {
                    None => format!("`{name}` ok"),
                    Some(Some(code)) => format!("`{name}` failed ({code})"),
                    Some(None) => format!("`{name}` failed"),
                }
            }
        };
        self.settled += 1;
        let mut params = ProgressNotificationParam::new(self.token.clone(), self.settled as f64);
        params.message = Some(message);
        // A client that is gone loses its progress; the run goes on to its end.
        let _ = self.peer.notify_progress(params).await;
    }
}

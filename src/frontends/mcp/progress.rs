//! A run's sub-calls as MCP progress notifications: one per settled
//! sub-call, `progress` the number settled so far (no `total`: a program's
//! calls are not known ahead), the message the `settled` event's title
//! (contracts §2, titles), followed by `: failed (CODE)` when it failed.

use std::future::Future;

use rmcp::model::{ProgressNotificationParam, ProgressToken};
use rmcp::{Peer, RoleServer};
use tokio::sync::mpsc;

use crate::engine::events::{RunEvent, RunEventKind};
use crate::tool::call::ErrorCode;

/// What progress needs of a run event: a settled sub-call's title and
/// failure, no arguments, values or console lines, so a slow client costs
/// little memory per sub-call.
pub(super) struct Step {
    title: String,
    failure: Option<Option<ErrorCode>>,
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
            RunEventKind::Settled {
                title, ok, error, ..
            } => Step {
                title,
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
    settled: u64,
}

impl Reporter {
    async fn report(&mut self, step: Step) {
        let Step { title, failure } = step;
        let message = match failure {
            None => title,
            Some(Some(code)) => format!("{title}: failed ({code})"),
            Some(None) => format!("{title}: failed"),
        };
        self.settled += 1;
        let mut params = ProgressNotificationParam::new(self.token.clone(), self.settled as f64);
        params.message = Some(message);
        // A client that is gone loses its progress; the run goes on to its end.
        let _ = self.peer.notify_progress(params).await;
    }
}

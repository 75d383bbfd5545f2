//! A run's sub-calls as MCP progress notifications: `progress` the number
//! of sub-calls settled so far (no `total`: a program's calls are not known
//! ahead), the message the `settled` event's title (contracts §2, titles),
//! followed by `: failed (CODE)` when it failed.
//!
//! Coalesced: a run may settle sub-calls far faster than a client reads
//! (a loop over failing calls settles hundreds of thousands a second), so
//! at most one notification waits per run, the latest. A newer sub-call
//! replaces an unsent one; `progress` still counts every sub-call, so the
//! client sees the numbers jump. Memory stays flat whatever the client
//! does, and the call's response waits behind at most one notification.

use std::convert::Infallible;
use std::future::Future;
use std::pin::pin;
use std::sync::{Arc, Mutex, PoisonError};

use rmcp::model::{ProgressNotificationParam, ProgressToken};
use rmcp::{Peer, RoleServer};
use tokio::sync::Notify;

use crate::engine::events::{RunEvent, RunEventKind};
use crate::tool::call::ErrorCode;

/// What progress needs of a run event: a settled sub-call's title and
/// failure, no arguments, values or console lines.
struct Step {
    /// How many sub-calls had settled with this one.
    settled: u64,
    title: String,
    failure: Option<Option<ErrorCode>>,
}

/// The latest settled sub-call not yet reported: the sandbox thread writes
/// it, the forwarding task takes it.
#[derive(Default)]
pub(super) struct Latest {
    slot: Mutex<Slot>,
    posted: Notify,
}

#[derive(Default)]
struct Slot {
    settled: u64,
    unsent: Option<Step>,
}

impl Latest {
    fn post(&self, title: String, failure: Option<Option<ErrorCode>>) {
        {
            let mut slot = self.slot.lock().unwrap_or_else(PoisonError::into_inner);
            slot.settled += 1;
            let settled = slot.settled;
            slot.unsent = Some(Step {
                settled,
                title,
                failure,
            });
        }
        // Stores a permit when the task is busy sending: it looks again.
        self.posted.notify_one();
    }

    fn take(&self) -> Option<Step> {
        self.slot
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .unsent
            .take()
    }
}

/// Where a run's events go: the sink for [`RunOptions`](crate::RunOptions)
/// and the slot [`forwarding`] reads.
pub(super) fn channel() -> (impl Fn(RunEvent) + Send + Sync + 'static, Arc<Latest>) {
    let latest = Arc::new(Latest::default());
    let posted = Arc::clone(&latest);
    // Never blocks the sandbox thread: it only replaces the slot's step.
    let sink = move |event: RunEvent| {
        if let RunEventKind::Settled {
            title, ok, error, ..
        } = event.kind
        {
            posted.post(title, (!ok).then(|| error.map(|e| e.code)));
        }
    };
    (sink, latest)
}

/// Runs `work`, meanwhile sending a progress notification for the latest
/// sub-call settled whenever the previous one has been sent. The last
/// sub-call settled before `work` ends is reported before this returns, so
/// the notifications precede the call's response.
pub(super) async fn forwarding<F: Future>(
    work: F,
    latest: Arc<Latest>,
    token: Option<ProgressToken>,
    peer: Peer<RoleServer>,
) -> F::Output {
    let Some(token) = token else {
        // Nobody asked for progress: the run makes no events.
        return work.await;
    };
    let mut reporter = Reporter { token, peer };
    let output = {
        let keeping_up = pin!(reporter.keep_up(&latest));
        tokio::select! {
            output = work => output,
            never = keeping_up => match never {},
        }
    };
    if let Some(step) = latest.take() {
        reporter.report(step).await;
    }
    output
}

struct Reporter {
    token: ProgressToken,
    peer: Peer<RoleServer>,
}

impl Reporter {
    /// Reports the latest step each time one is posted, one at a time: a
    /// send waits for the transport, and steps posted meanwhile coalesce.
    async fn keep_up(&mut self, latest: &Latest) -> Infallible {
        loop {
            latest.posted.notified().await;
            if let Some(step) = latest.take() {
                self.report(step).await;
            }
        }
    }

    async fn report(&mut self, step: Step) {
        let Step {
            settled,
            title,
            failure,
        } = step;
        let message = match failure {
            None => title,
            Some(Some(code)) => format!("{title}: failed ({code})"),
            Some(None) => format!("{title}: failed"),
        };
        let mut params = ProgressNotificationParam::new(self.token.clone(), settled as f64);
        params.message = Some(message);
        // A client that is gone loses its progress; the run goes on to its end.
        let _ = self.peer.notify_progress(params).await;
    }
}

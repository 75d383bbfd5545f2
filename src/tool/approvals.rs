//! The ceilings on approvals waiting for a person (contracts §6,
//! Approvals): at most so many at once per registry, each waited for at
//! most so long. A model asks faster than a person answers; without them
//! unanswered requests (an escalation carries up to a megabyte of code)
//! would pile up for as long as the process lives.

use std::future::Future;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use super::approval::{Approval, Denial};

/// How many approvals may wait at once and for how long.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct ApprovalLimits {
    /// Approvals (`ask` calls and escalations together) waiting for an
    /// answer at once; one more is refused at once as `DENIED` (`denied`
    /// for an escalated run). By default, 16.
    pub max_pending: usize,
    /// How long an approval is waited for; then it is refused as `DENIED`
    /// (`denied`) saying no answer came. By default, 600,000 ms (10
    /// minutes).
    pub wait_ms: u64,
}

impl Default for ApprovalLimits {
    fn default() -> Self {
        Self {
            max_pending: 16,
            wait_ms: 600_000,
        }
    }
}

/// The approvals of one registry waiting for an answer.
#[derive(Debug, Default)]
pub(crate) struct Gate {
    limits: ApprovalLimits,
    pending: AtomicUsize,
}

impl Gate {
    pub(crate) fn new(limits: ApprovalLimits) -> Arc<Self> {
        Arc::new(Self {
            limits,
            pending: AtomicUsize::new(0),
        })
    }

    /// Waits for `ask()`'s answer within the limits: refused at once when
    /// too many are waiting, refused when the wait runs out. `needs` says
    /// what needs approval (``tool `x` needs approval``). The approver is
    /// not called at all when refused at once.
    pub(crate) async fn wait<F>(self: &Arc<Self>, needs: &str, ask: impl FnOnce() -> F) -> Approval
    where
        F: Future<Output = Approval>,
    {
        let Some(_slot) = self.take_slot() else {
            let waiting = match self.limits.max_pending {
                1 => "1 approval is".to_owned(),
                n => format!("{n} approvals are"),
            };
            return refused(format!(
                "{needs} and {waiting} already waiting for an answer (the most at once): wait for their answers before asking for another"
            ));
        };
        let wait = Duration::from_millis(self.limits.wait_ms);
        match tokio::time::timeout(wait, ask()).await {
            Ok(answer) => answer,
            Err(_) => refused(format!(
                "{needs} and no answer came within {} (the approval wait limit)",
                duration(self.limits.wait_ms)
            )),
        }
    }

    fn take_slot(self: &Arc<Self>) -> Option<Slot> {
        let max = self.limits.max_pending;
        self.pending
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| {
                (n < max).then_some(n + 1)
            })
            .ok()?;
        Some(Slot(Arc::clone(self)))
    }
}

/// One waiting approval; its place is given back when it is dropped, also
/// when the wait is abandoned (the run cancelled or timed out).
struct Slot(Arc<Gate>);

impl Drop for Slot {
    fn drop(&mut self) {
        self.0.pending.fetch_sub(1, Ordering::AcqRel);
    }
}

fn refused(reason: String) -> Approval {
    Approval::Refused(Denial::new(reason))
}

/// `600000` as `10 minutes`, `1500` as `1500 ms`.
fn duration(ms: u64) -> String {
    match ms {
        ms if ms >= 60_000 && ms % 60_000 == 0 => match ms / 60_000 {
            1 => "1 minute".to_owned(),
            n => format!("{n} minutes"),
        },
        ms if ms >= 1000 && ms % 1000 == 0 => format!("{} s", ms / 1000),
        ms => format!("{ms} ms"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn waits_read_in_the_largest_whole_unit() {
        let read: Vec<String> = [1, 999, 1000, 1500, 2000, 59_000, 60_000, 90_000, 600_000]
            .into_iter()
            .map(duration)
            .collect();
        assert_eq!(
            read,
            [
                "1 ms",
                "999 ms",
                "1 s",
                "1500 ms",
                "2 s",
                "59 s",
                "1 minute",
                "90 s",
                "10 minutes"
            ]
        );
    }

    #[tokio::test(start_paused = true)]
    async fn too_many_or_too_long_is_refused() {
        let gate = Gate::new(ApprovalLimits {
            max_pending: 1,
            wait_ms: 600_000,
        });
        let (tx, rx) = tokio::sync::oneshot::channel::<()>();
        let first = {
            let gate = Arc::clone(&gate);
            tokio::spawn(async move {
                gate.wait("a needs approval", || async {
                    let _ = rx.await;
                    Approval::Approved
                })
                .await
            })
        };
        tokio::task::yield_now().await;
        let second = gate
            .wait("b needs approval", || async { Approval::Approved })
            .await;
        assert_eq!(
            second,
            refused("b needs approval and 1 approval is already waiting for an answer (the most at once): wait for their answers before asking for another".into())
        );
        drop(tx);
        assert_eq!(first.await.unwrap(), Approval::Approved);
        // The slot came back; a wait that outlasts the limit is refused.
        let never = gate
            .wait("c needs approval", std::future::pending::<Approval>)
            .await;
        assert_eq!(
            never,
            refused(
                "c needs approval and no answer came within 10 minutes (the approval wait limit)"
                    .into()
            )
        );
        assert_eq!(gate.pending.load(Ordering::Acquire), 0);
    }
}

//! A run's sub-calls as MCP progress notifications: `progress` a whole
//! number that grows with every notification, the number of sub-calls
//! settled so far plus the heartbeats and notes sent so far (no `total`: a
//! program's calls are not known ahead); the message the `settled` event's
//! title (contracts §2, titles), followed by `: failed (CODE)` when it
//! failed.
//!
//! Coalesced: a run may settle sub-calls far faster than a client reads
//! (a loop over failing calls settles hundreds of thousands a second), so
//! at most one notification waits per run, the latest. A newer sub-call
//! replaces an unsent one; `progress` still counts every sub-call, so the
//! client sees the numbers jump. Memory stays flat whatever the client
//! does, and the call's response waits behind at most one notification.
//!
//! A sub-call's own notes (an upstream MCP server's progress and log
//! messages, `progress` run events) go out the same way, coalesced with the
//! rest: `<tool>: <note>`, each adding one to `progress` as a heartbeat
//! does.
//!
//! A heartbeat: after [`HEARTBEAT`] without a notification (a slow
//! sub-call, a long computation, an approval waiting), one goes out saying
//! what the run is waiting on, `running (3 sub-calls settled, 1 in flight:
//! `x.y`)` (a direct call of a tool: ``calling `x` ``), so clients that
//! reset their request timeout on progress keep waiting. MCP wants
//! `progress` to increase with every notification: a heartbeat adds one,
//! and so does every settled sub-call (a client shows 3, 4, 5, never a
//! fraction).

use std::fmt::Write as _;
use std::future::Future;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use indexmap::IndexMap;
use rmcp::model::{ProgressNotificationParam, ProgressToken};
use rmcp::{Peer, RoleServer};
use tokio::sync::Notify;
use tokio::time::Instant;

use crate::contract::call::ErrorCode;
use crate::contract::events::{RunEvent, RunEventKind};

/// How long a run in flight goes without a progress notification before a
/// heartbeat is sent: well within the 5 s clients may count on, whatever
/// the time a send takes.
pub(super) const HEARTBEAT: Duration = Duration::from_secs(4);

/// How many in-flight sub-calls a heartbeat names; the rest are counted.
const NAMED: usize = 3;

/// What progress needs of a run event: a settled sub-call's title and
/// failure, no arguments, values or console lines.
struct Step {
    /// How many sub-calls had settled with this one.
    settled: u64,
    title: String,
    failure: Option<Option<ErrorCode>>,
}

/// What waits to be sent: the latest settled sub-call or sub-call's note.
enum Pending {
    Settled(Step),
    Note { settled: u64, message: String },
}

/// The latest settled sub-call (or note) not yet reported: the sandbox
/// thread (or a handler) writes it, the forwarding task takes it.
#[derive(Default)]
pub(super) struct Latest {
    slot: Mutex<Slot>,
    posted: Notify,
}

#[derive(Default)]
struct Slot {
    settled: u64,
    unsent: Option<Pending>,
    /// The sub-calls started and not settled, oldest first: id → name.
    /// As many as the run has submitted (the engine holds each anyway).
    in_flight: IndexMap<Arc<str>, String>,
    /// The tool, when the call is not a run but a direct call of it.
    direct: Option<String>,
}

/// What a heartbeat says: the sub-calls settled, those in flight (or the
/// tool called directly).
#[derive(Debug, PartialEq)]
struct Waiting {
    settled: u64,
    in_flight: usize,
    names: Vec<String>,
    direct: Option<String>,
}

impl Waiting {
    /// `running (3 sub-calls settled, 2 in flight: `a`, `b.c`)`, or
    /// `calling `x`` for a direct call.
    fn message(&self) -> String {
        if let Some(name) = &self.direct {
            return format!("calling `{name}`");
        }
        let plural = |n: u64| if n == 1 { "" } else { "s" };
        let mut text = format!(
            "running ({} sub-call{} settled, ",
            self.settled,
            plural(self.settled)
        );
        if self.in_flight == 0 {
            text.push_str("none in flight)");
            return text;
        }
        let _ = write!(text, "{} in flight: ", self.in_flight);
        for (i, name) in self.names.iter().enumerate() {
            let _ = write!(text, "{}`{name}`", if i == 0 { "" } else { ", " });
        }
        if self.in_flight > self.names.len() {
            text.push_str(", …");
        }
        text.push(')');
        text
    }
}

impl Latest {
    /// Marks the call as a direct call of `name` (no run, no sub-calls).
    pub(super) fn direct(&self, name: &str) {
        let mut slot = self.slot.lock().unwrap_or_else(PoisonError::into_inner);
        slot.direct = Some(name.to_owned());
    }

    fn start(&self, id: Arc<str>, name: String) {
        let mut slot = self.slot.lock().unwrap_or_else(PoisonError::into_inner);
        slot.in_flight.insert(id, name);
    }

    fn post(&self, id: &str, title: String, failure: Option<Option<ErrorCode>>) {
        {
            let mut slot = self.slot.lock().unwrap_or_else(PoisonError::into_inner);
            slot.in_flight.shift_remove(id);
            slot.settled += 1;
            let settled = slot.settled;
            slot.unsent = Some(Pending::Settled(Step {
                settled,
                title,
                failure,
            }));
        }
        // Stores a permit when the task is busy sending: it looks again.
        self.posted.notify_one();
    }

    /// A sub-call's note, `<tool>: <note>`, replacing what was unsent.
    fn note(&self, id: &str, note: String) {
        {
            let mut slot = self.slot.lock().unwrap_or_else(PoisonError::into_inner);
            let tool = slot.in_flight.get(id).or(slot.direct.as_ref());
            let message = match tool {
                Some(tool) => format!("{tool}: {note}"),
                None => note,
            };
            slot.unsent = Some(Pending::Note {
                settled: slot.settled,
                message,
            });
        }
        self.posted.notify_one();
    }

    fn take(&self) -> Option<Pending> {
        self.slot
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .unsent
            .take()
    }

    /// The unsent step if there is one, else what the run waits on; read
    /// at once, so a heartbeat never counts a step it has not reported.
    fn step_or_waiting(&self) -> Result<Pending, Waiting> {
        let mut slot = self.slot.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(step) = slot.unsent.take() {
            return Ok(step);
        }
        Err(Waiting {
            settled: slot.settled,
            in_flight: slot.in_flight.len(),
            names: slot.in_flight.values().take(NAMED).cloned().collect(),
            direct: slot.direct.clone(),
        })
    }
}

/// Where a run's events go: the sink for [`RunOptions`](crate::RunOptions)
/// and the slot [`forwarding`] reads.
pub(super) fn channel() -> (impl Fn(RunEvent) + Send + Sync + 'static, Arc<Latest>) {
    let latest = Arc::new(Latest::default());
    let posted = Arc::clone(&latest);
    // Never blocks the sandbox thread: it only updates the slot.
    let sink = move |event: RunEvent| match event.kind {
        RunEventKind::Started { id, name, .. } => posted.start(id, name),
        RunEventKind::Settled {
            id,
            title,
            ok,
            error,
            ..
        } => posted.post(&id, title, (!ok).then(|| error.map(|e| e.code))),
        RunEventKind::Progress { id, message } => posted.note(&id, message),
        _ => {}
    };
    (sink, latest)
}

/// Runs `work`, meanwhile sending a progress notification for the latest
/// sub-call settled whenever the previous one has been sent, and a
/// heartbeat after `heartbeat` without one. The last
/// sub-call settled before `work` ends is reported before this returns, so
/// the notifications precede the call's response.
pub(super) async fn forwarding<F: Future>(
    work: F,
    latest: Arc<Latest>,
    token: Option<ProgressToken>,
    peer: Peer<RoleServer>,
    heartbeat: Duration,
) -> F::Output {
    let Some(token) = token else {
        // Nobody asked for progress: the run makes no events.
        return work.await;
    };
    let mut reporter = Reporter {
        token,
        peer,
        heartbeat,
        beats: 0,
    };
    // The reporter is never cancelled mid-send (a dropped send would lose the
    // step it took): told that the work ended, it finishes the send under
    // way, reports the last step and returns.
    let ended = Notify::new();
    let work = async {
        let output = work.await;
        ended.notify_one();
        output
    };
    let (output, ()) = tokio::join!(work, reporter.keep_up(&latest, &ended));
    output
}

struct Reporter {
    token: ProgressToken,
    peer: Peer<RoleServer>,
    heartbeat: Duration,
    /// Heartbeats and notes sent so far, each one step of `progress`.
    beats: u64,
}

impl Reporter {
    /// Reports the latest step each time one is posted, one at a time: a
    /// send waits for the transport, and steps posted meanwhile coalesce.
    /// After `heartbeat` without a notification, sends a heartbeat. Once
    /// `ended` is notified, reports the last step and returns.
    async fn keep_up(&mut self, latest: &Latest, ended: &Notify) {
        let mut quiet_until = Instant::now() + self.heartbeat;
        loop {
            tokio::select! {
                biased;
                () = ended.notified() => break,
                () = latest.posted.notified() => {
                    if let Some(step) = latest.take() {
                        self.report(step).await;
                    }
                }
                () = tokio::time::sleep_until(quiet_until) => match latest.step_or_waiting() {
                    Ok(step) => self.report(step).await,
                    Err(waiting) => self.beat(&waiting).await,
                },
            }
            quiet_until = Instant::now() + self.heartbeat;
        }
        if let Some(step) = latest.take() {
            self.report(step).await;
        }
    }

    /// A heartbeat: the settled count plus a growing fraction below 1.
    async fn beat(&mut self, waiting: &Waiting) {
        self.between(waiting.settled, waiting.message()).await;
    }

    /// A notification between settled sub-calls (a heartbeat, a note):
    /// `progress` grows, staying below the next settled sub-call's.
    async fn between(&mut self, settled: u64, message: String) {
        self.beats = self.beats.saturating_add(1);
        self.send(progress(settled, self.beats), message).await;
    }

    async fn report(&mut self, pending: Pending) {
        match pending {
            Pending::Settled(step) => self.settled(step).await,
            Pending::Note { settled, message } => self.between(settled, message).await,
        }
    }

    async fn settled(&mut self, step: Step) {
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
        self.send(progress(settled, self.beats), message).await;
    }

    async fn send(&mut self, progress: f64, message: String) {
        let mut params = ProgressNotificationParam::new(self.token.clone(), progress);
        params.message = Some(message);
        // A client that is gone loses its progress; the run goes on to its end.
        let _ = self.peer.notify_progress(params).await;
    }
}

/// `progress` after `settled` sub-calls and `beats` heartbeats and notes:
/// their sum, which grows with every notification by a whole step.
fn progress(settled: u64, beats: u64) -> f64 {
    settled.saturating_add(beats) as f64
}

#[cfg(test)]
mod tests {
    use super::{Latest, Pending, Waiting, progress};

    #[test]
    fn progress_is_whole_and_grows_with_every_notification() {
        // Settled 1, two heartbeats, settled 2 and 3 at once (coalesced), a note.
        let sent = [(1, 0), (1, 1), (1, 2), (3, 2), (3, 3)].map(|(s, b)| progress(s, b));
        assert_eq!(sent, [1.0, 2.0, 3.0, 5.0, 6.0]);
    }

    #[test]
    fn a_heartbeat_names_what_the_run_waits_on() {
        let latest = Latest::default();
        let waiting = |latest: &Latest| latest.step_or_waiting().err().unwrap();
        assert_eq!(
            waiting(&latest).message(),
            "running (0 sub-calls settled, none in flight)"
        );
        latest.start("r:ptc:1".into(), "x.y".into());
        assert_eq!(
            waiting(&latest).message(),
            "running (0 sub-calls settled, 1 in flight: `x.y`)"
        );
        for (i, name) in ["a", "b", "c", "d"].into_iter().enumerate() {
            latest.start(format!("r:ptc:{}", i + 2).into(), name.into());
        }
        latest.post("r:ptc:1", "done".into(), None);
        let Ok(Pending::Settled(step)) = latest.step_or_waiting() else {
            panic!("a settled sub-call waits");
        };
        assert_eq!((step.settled, step.title.as_str()), (1, "done"));
        assert_eq!(
            waiting(&latest).message(),
            "running (1 sub-call settled, 4 in flight: `a`, `b`, `c`, …)"
        );
        assert_eq!(
            waiting(&latest),
            Waiting {
                settled: 1,
                in_flight: 4,
                names: vec!["a".into(), "b".into(), "c".into()],
                direct: None,
            }
        );
        let direct = Latest::default();
        direct.direct("read_file");
        assert_eq!(waiting(&direct).message(), "calling `read_file`");
    }

    #[test]
    fn a_note_names_its_tool_and_replaces_what_was_unsent() {
        let latest = Latest::default();
        latest.start("r:ptc:1".into(), "gh.search".into());
        latest.start("r:ptc:2".into(), "gh.fetch".into());
        latest.post("r:ptc:2", "fetched".into(), None);
        latest.note("r:ptc:1", "page 2 of 9".into());
        let Ok(Pending::Note { settled, message }) = latest.step_or_waiting() else {
            panic!("the note waits, latest");
        };
        assert_eq!((settled, message.as_str()), (1, "gh.search: page 2 of 9"));
        assert!(latest.step_or_waiting().is_err(), "one waits at most");
    }
}

//! The terminal side of `ptc run`: asking the user before `ask` calls, and a
//! progress line on stderr while a run takes long.
//!
//! Both write to stderr; they share one lock so a prompt never lands in the
//! middle of the progress line.

use std::fs::File;
use std::io::{self, BufRead, BufReader, IsTerminal, Write};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use ptc::{
    Approval, ApprovalRequest, Approver, BoxFuture, Denial, EscalationRequest, EventSink, RunEvent,
    RunEventKind,
};

/// The state of stderr's last line.
struct StatusLine {
    /// A progress line is on screen.
    shown: bool,
    /// Prompts waiting for an answer; no progress is drawn meanwhile.
    prompting: usize,
}

static STATUS: Mutex<StatusLine> = Mutex::new(StatusLine {
    shown: false,
    prompting: 0,
});

/// One prompt at a time, held by the thread that reads the answer (so an
/// abandoned prompt still keeps the next one from reading concurrently).
static PROMPT: Mutex<()> = Mutex::new(());

fn status() -> MutexGuard<'static, StatusLine> {
    STATUS.lock().unwrap_or_else(PoisonError::into_inner)
}

impl StatusLine {
    fn clear(&mut self) {
        if self.shown {
            let mut err = io::stderr().lock();
            let _ = write!(err, "\r\x1b[2K");
            let _ = err.flush();
            self.shown = false;
        }
    }
}

/// An [`Approver`] that asks on the terminal: it prints the tool's name and
/// its JSON arguments to stderr and reads `y`/`N` from `/dev/tty` (or from
/// stdin when that is a terminal). `y` or `yes` (any case) approves; anything
/// else, end of input included, refuses as `DENIED` ("the user refused …").
/// With no terminal to ask, the call is refused as `DENIED` with a reason
/// saying approval was needed and no terminal was available. One prompt at
/// a time; the blocking read runs on tokio's blocking pool.
///
/// A run asking for escalation is put the same way before it starts: the
/// justification and what the run would get, then `allow the escalated
/// run? [y/N]`.
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub(crate) struct TerminalApprover;

impl TerminalApprover {
    /// A terminal approver.
    pub(crate) fn new() -> Self {
        Self
    }
}

impl Approver for TerminalApprover {
    fn approve(&self, request: ApprovalRequest) -> BoxFuture<Approval> {
        Box::pin(async move {
            let name = request.call.name;
            let arguments = serde_json::to_string(&request.call.arguments)
                .unwrap_or_else(|_| "(unprintable)".to_owned());
            let asked = name.clone();
            let prompt = format!(
                "ptc: the program calls `{asked}` with {arguments}\nptc: allow this call? [y/N] "
            );
            let answer = tokio::task::spawn_blocking(move || ask(&prompt)).await;
            match answer {
                Ok(Some(true)) => Approval::Approved,
                Ok(Some(false)) => Approval::Refused(Denial::new(format!(
                    "the user refused the call to `{name}`"
                ))),
                Ok(None) | Err(_) => Approval::Refused(Denial::new(format!(
                    "tool `{name}` needs approval and no terminal was available to ask"
                ))),
            }
        })
    }

    fn escalate(&self, request: EscalationRequest) -> BoxFuture<Approval> {
        Box::pin(async move {
            let prompt = escalation_prompt(&request);
            let answer = tokio::task::spawn_blocking(move || ask(&prompt)).await;
            match answer {
                Ok(Some(true)) => Approval::Approved,
                Ok(Some(false)) => {
                    Approval::Refused(Denial::new("the user refused the escalation"))
                }
                Ok(None) | Err(_) => Approval::Refused(Denial::new(
                    "escalation needs approval and no terminal was available to ask",
                )),
            }
        })
    }
}

/// How much of the model's justification the prompt shows.
const SHOWN_JUSTIFICATION: usize = 1000;

/// The escalation prompt: the model's justification (its control
/// characters shown as `\u001b`, cut at 1,000 characters) and the grant.
fn escalation_prompt(request: &EscalationRequest) -> String {
    let mut justification: String = request
        .justification
        .chars()
        .take(SHOWN_JUSTIFICATION)
        .map(|c| match c.is_control() {
            true => format!("\\u{:04x}", c as u32),
            false => c.to_string(),
        })
        .collect();
    if request.justification.chars().count() > SHOWN_JUSTIFICATION {
        justification.push('…');
    }
    let tools = match request.tools.as_slice() {
        [] => "no escalation-only tools".to_owned(),
        names => format!("the tools {}", names.join(", ")),
    };
    format!(
        "ptc: the program asks for an escalated run: {justification}\nptc: it would get {tools}, a deadline of {} ms, {} of memory and {} of output\nptc: allow the escalated run? [y/N] ",
        request.timeout_ms,
        size(request.memory_limit_bytes),
        size(request.output_cap_bytes)
    )
}

/// A size in MiB or KiB when exact, else bytes.
fn size(bytes: usize) -> String {
    match bytes {
        b if b >= 1 << 20 && b % (1 << 20) == 0 => format!("{} MiB", b >> 20),
        b if b >= 1 << 10 && b % (1 << 10) == 0 => format!("{} KiB", b >> 10),
        b => format!("{b} bytes"),
    }
}

/// Shows `prompt` and reads a yes/no answer on the terminal; `None` when
/// there is none.
fn ask(prompt: &str) -> Option<bool> {
    let _turn = PROMPT.lock().unwrap_or_else(PoisonError::into_inner);
    let mut input: Box<dyn BufRead> = match File::options().read(true).write(true).open("/dev/tty")
    {
        Ok(tty) => Box::new(BufReader::new(tty)),
        Err(_) if io::stdin().is_terminal() => Box::new(io::stdin().lock()),
        Err(_) => return None,
    };
    {
        let mut status = status();
        status.clear();
        status.prompting += 1;
        let mut err = io::stderr().lock();
        let _ = write!(err, "{prompt}");
        let _ = err.flush();
    }
    let mut line = String::new();
    let read = input.read_line(&mut line);
    status().prompting -= 1;
    let yes = matches!(line.trim().to_ascii_lowercase().as_str(), "y" | "yes");
    Some(read.is_ok_and(|n| n > 0) && yes)
}

/// A progress line on stderr while a run goes on: after the first second,
/// `ptc: running… 3.2 s, 12 sub-calls`, redrawn in place every 100 ms and
/// cleared by [`finish`](Self::finish) (or when dropped). Drawn only when
/// stderr is a terminal, and never while an approval prompt waits.
#[derive(Debug)]
pub(crate) struct Progress {
    sub_calls: Arc<AtomicU64>,
    done: Arc<AtomicBool>,
    ticker: Option<tokio::task::JoinHandle<()>>,
}

impl Progress {
    /// Starts the clock (and the drawing task, when stderr is a terminal).
    /// Needs a tokio runtime.
    pub(crate) fn start() -> Self {
        let sub_calls = Arc::new(AtomicU64::new(0));
        let done = Arc::new(AtomicBool::new(false));
        let ticker = io::stderr().is_terminal().then(|| {
            let (sub_calls, done) = (Arc::clone(&sub_calls), Arc::clone(&done));
            let started = Instant::now();
            tokio::spawn(async move {
                tokio::time::sleep(Duration::from_secs(1)).await;
                loop {
                    draw(&done, started, sub_calls.load(Ordering::Relaxed));
                    tokio::time::sleep(Duration::from_millis(100)).await;
                }
            })
        });
        Self {
            sub_calls,
            done,
            ticker,
        }
    }

    /// An event sink that counts the run's sub-calls for the line.
    pub(crate) fn sink(&self) -> impl EventSink + use<> {
        let sub_calls = Arc::clone(&self.sub_calls);
        move |event: RunEvent| {
            if matches!(event.kind, RunEventKind::Started { .. }) {
                sub_calls.fetch_add(1, Ordering::Relaxed);
            }
        }
    }

    /// Stops drawing and clears the line.
    pub(crate) fn stop(self) {
        drop(self);
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        if let Some(ticker) = self.ticker.take() {
            ticker.abort();
        }
        let mut status = status();
        self.done.store(true, Ordering::Release);
        status.clear();
    }
}

fn draw(done: &AtomicBool, started: Instant, sub_calls: u64) {
    let mut status = status();
    if done.load(Ordering::Acquire) || status.prompting > 0 {
        return;
    }
    let mut err = io::stderr().lock();
    let _ = write!(
        err,
        "\r\x1b[2Kptc: running… {:.1} s, {sub_calls} sub-call{}",
        started.elapsed().as_secs_f64(),
        if sub_calls == 1 { "" } else { "s" }
    );
    let _ = err.flush();
    status.shown = true;
}

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

/// An [`Approver`] that asks on the terminal: it prints what the call
/// would do (the tool, its title and every argument) to stderr and reads `y`/`N` from
/// `/dev/tty` (or from stdin when that is a terminal). `y` or `yes` (any
/// case) approves; anything else, end of input included, refuses as
/// `DENIED` ("the user refused …"). With no terminal to ask, the call is
/// refused as `DENIED` with a reason saying approval was needed and no
/// terminal was available. One prompt at a time; the blocking read runs on
/// tokio's blocking pool.
///
/// A run asking for escalation is put the same way before it starts: what
/// the run would get, the justification, the description and the whole
/// program, then `allow the escalated run? [y/N]`.
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
            let prompt = prompt(&request.shown_text(), "allow this call?");
            let name = request.call.name;
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
            let prompt = prompt(&request.shown_text(), "allow the escalated run?");
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

/// The prompt: what the request would do, in full and escaped
/// ([`ApprovalRequest::shown_text`]: the grant first, every argument and
/// the whole program, each line of the model's marked `│`), each line
/// starting with `ptc: `, then the question.
fn prompt(shown: &str, question: &str) -> String {
    let mut prompt = String::with_capacity(shown.len() + 64);
    for line in shown.lines() {
        prompt.push_str("ptc: ");
        prompt.push_str(line);
        prompt.push('\n');
    }
    prompt.push_str(&format!("ptc: {question} [y/N] "));
    prompt
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
    // End of input reads nothing, so it is a no like any other line.
    let yes = matches!(line.trim().to_ascii_lowercase().as_str(), "y" | "yes");
    Some(read.is_ok() && yes)
}

/// The most characters of a call's title on the progress line, so the line
/// stays one terminal line.
const PROGRESS_TITLE_CHARS: usize = 60;

/// A progress line on stderr while a run goes on: after the first second,
/// `ptc: running… 3.2 s, 12 sub-calls: Read src/lib.rs` (the title of the
/// sub-call started last), redrawn in place every 100 ms and cleared by
/// [`stop`](Self::stop) (or when dropped). Drawn only when stderr is a
/// terminal, and never while an approval prompt waits.
#[derive(Debug)]
pub(crate) struct Progress {
    calls: Arc<Calls>,
    done: Arc<AtomicBool>,
    ticker: Option<tokio::task::JoinHandle<()>>,
}

/// What the line says of the sub-calls.
#[derive(Debug, Default)]
struct Calls {
    started: AtomicU64,
    /// The title of the sub-call started last.
    last: Mutex<String>,
}

impl Progress {
    /// Starts the clock (and the drawing task, when stderr is a terminal).
    /// Needs a tokio runtime.
    pub(crate) fn start() -> Self {
        let calls = Arc::new(Calls::default());
        let done = Arc::new(AtomicBool::new(false));
        let ticker = io::stderr().is_terminal().then(|| {
            let (calls, done) = (Arc::clone(&calls), Arc::clone(&done));
            let started = Instant::now();
            tokio::spawn(async move {
                tokio::time::sleep(Duration::from_secs(1)).await;
                loop {
                    draw(&done, started, &calls);
                    tokio::time::sleep(Duration::from_millis(100)).await;
                }
            })
        });
        Self {
            calls,
            done,
            ticker,
        }
    }

    /// An event sink that counts the run's sub-calls and keeps the title
    /// of the last one for the line.
    pub(crate) fn sink(&self) -> impl EventSink + use<> {
        let calls = Arc::clone(&self.calls);
        move |event: RunEvent| {
            if let RunEventKind::Started { title, .. } = event.kind {
                calls.started.fetch_add(1, Ordering::Relaxed);
                *calls.last.lock().unwrap_or_else(PoisonError::into_inner) = title;
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

fn draw(done: &AtomicBool, started: Instant, calls: &Calls) {
    let mut status = status();
    if done.load(Ordering::Acquire) || status.prompting > 0 {
        return;
    }
    let line = {
        let last = calls.last.lock().unwrap_or_else(PoisonError::into_inner);
        progress_line(
            started.elapsed().as_secs_f64(),
            calls.started.load(Ordering::Relaxed),
            &last,
        )
    };
    let mut err = io::stderr().lock();
    let _ = write!(err, "\r\x1b[2K{line}");
    let _ = err.flush();
    status.shown = true;
}

/// The progress line's text: time, sub-calls, and the last call's title
/// (already one line; cut to [`PROGRESS_TITLE_CHARS`]).
fn progress_line(seconds: f64, sub_calls: u64, title: &str) -> String {
    let mut line = format!(
        "ptc: running… {seconds:.1} s, {sub_calls} sub-call{}",
        if sub_calls == 1 { "" } else { "s" }
    );
    if !title.is_empty() {
        line.push_str(": ");
        match title.char_indices().nth(PROGRESS_TITLE_CHARS) {
            None => line.push_str(title),
            Some(_) => {
                let cut = title
                    .char_indices()
                    .nth(PROGRESS_TITLE_CHARS - 1)
                    .map_or(title.len(), |(at, _)| at);
                line.push_str(&title[..cut]);
                line.push('…');
            }
        }
    }
    line
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_progress_line_shows_the_last_title_cut_to_fit() {
        assert_eq!(
            progress_line(1.25, 0, ""),
            "ptc: running… 1.2 s, 0 sub-calls"
        );
        assert_eq!(
            progress_line(3.0, 1, "Read src/lib.rs"),
            "ptc: running… 3.0 s, 1 sub-call: Read src/lib.rs"
        );
        let line = progress_line(3.0, 2, &"é".repeat(200));
        assert!(
            line.ends_with(&format!("calls: {}…", "é".repeat(59))),
            "{line}"
        );
        assert_eq!(line.chars().filter(|&c| c == 'é').count(), 59);
    }

    /// Every line of what is shown starts with `ptc: ` (the model's lines
    /// are fenced inside it by `shown_text`), then the question.
    #[test]
    fn the_prompt_prefixes_every_line_then_asks() {
        assert_eq!(
            prompt("The program asks\n│ a\n│ b", "allow this call?"),
            "ptc: The program asks\nptc: │ a\nptc: │ b\nptc: allow this call? [y/N] "
        );
    }
}

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

/// An [`Approver`] that asks on the terminal: it prints the call's title,
/// the tool's name and its JSON arguments to stderr and reads `y`/`N` from
/// `/dev/tty` (or from stdin when that is a terminal). `y` or `yes` (any
/// case) approves; anything else, end of input included, refuses as
/// `DENIED` ("the user refused …"). With no terminal to ask, the call is
/// refused as `DENIED` with a reason saying approval was needed and no
/// terminal was available. One prompt at a time; the blocking read runs on
/// tokio's blocking pool.
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
            let prompt = prompt(&request.title, &name, &arguments);
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

/// The question: the title (one line, no control characters), then the
/// tool and its arguments as JSON (which escapes control characters; the
/// line and paragraph separators and bidirectional controls JSON leaves
/// as they are are shown as `\u202e`, so the arguments read as they are).
/// Arguments past [`SHOWN_ARGUMENTS`] characters are cut with `…`: a
/// megabyte of them would scroll the title and the tool's name off the
/// screen, leaving the model's text in their place.
fn prompt(title: &str, name: &str, arguments: &str) -> String {
    let arguments = shown(arguments, SHOWN_ARGUMENTS);
    format!(
        "ptc: the program asks for: {title}\nptc: (tool `{name}` with {arguments})\nptc: allow this call? [y/N] "
    )
}

/// `text` with the characters that could break a prompt's line, drive the
/// terminal or reorder what it shows (control characters, line and
/// paragraph separators, bidirectional controls: the characters titles
/// escape) written as `\u001b`.
fn visible(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if ptc::__private::is_hostile(c) {
            out.push_str(&format!("\\u{:04x}", c as u32));
        } else {
            out.push(c);
        }
    }
    out
}

/// How much of the model's justification the prompt shows.
const SHOWN_JUSTIFICATION: usize = 1000;
/// How much of a call's JSON arguments the prompt shows (as MCP's form).
const SHOWN_ARGUMENTS: usize = 2000;

/// The escalation prompt: the model's justification (see
/// [`shown_justification`]) and the grant.
fn escalation_prompt(request: &EscalationRequest) -> String {
    let justification = shown_justification(&request.justification);
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

/// The model's justification as the prompt shows it: cut at 1,000
/// characters, its control characters, line and paragraph separators and
/// bidirectional controls shown as `\u001b` ([`visible`]).
fn shown_justification(justification: &str) -> String {
    shown(justification, SHOWN_JUSTIFICATION)
}

/// `text` cut at `max_chars` characters (then ending with `…`), what is
/// left [`visible`].
fn shown(text: &str, max_chars: usize) -> String {
    let cut = text
        .char_indices()
        .nth(max_chars)
        .map_or(text, |(at, _)| &text[..at]);
    let mut shown = visible(cut);
    if cut.len() < text.len() {
        shown.push('…');
    }
    shown
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

    #[test]
    fn the_prompt_gives_the_title_then_the_tool_and_its_arguments() {
        assert_eq!(
            prompt("Write notes.md", "write_file", r#"{"path":"notes.md"}"#),
            "ptc: the program asks for: Write notes.md\n\
             ptc: (tool `write_file` with {\"path\":\"notes.md\"})\n\
             ptc: allow this call? [y/N] "
        );
    }

    /// serde_json leaves U+2028 and the bidirectional controls as they
    /// are: a right-to-left override in an argument would reorder what the
    /// person reads before answering.
    #[test]
    fn the_prompt_shows_separators_and_bidi_controls_in_arguments() {
        let arguments = serde_json::to_string(&serde_json::json!({
            "path": "invoice\u{202e}fdp.exe\u{2028}x\u{2066}"
        }))
        .unwrap();
        let text = prompt("t", "write_file", &arguments);
        assert!(
            text.contains(r#"{"path":"invoice\u202efdp.exe\u2028x\u2066"}"#),
            "{text}"
        );
        assert!(
            !text.contains(['\u{202e}', '\u{2028}', '\u{2066}']),
            "{text}"
        );
    }

    #[test]
    fn the_prompt_cuts_long_arguments() {
        let arguments = format!(r#"{{"text":"{}"}}"#, "é".repeat(100_000));
        let text = prompt("Write a", "write_file", &arguments);
        assert!(
            text.starts_with("ptc: the program asks for: Write a\n"),
            "{text}"
        );
        assert!(
            text.ends_with("éé…)\nptc: allow this call? [y/N] "),
            "{text}"
        );
        assert_eq!(text.chars().filter(|&c| c == 'é').count(), 2000 - 9);
    }

    #[test]
    fn the_justification_shows_bidi_controls_and_is_cut() {
        assert_eq!(
            shown_justification("ship \u{1b}[2J\u{202e}esaeler\u{2029}."),
            "ship \\u001b[2J\\u202eesaeler\\u2029."
        );
        let long = shown_justification(&format!("{}\u{202e}", "é".repeat(1000)));
        assert_eq!(long, format!("{}…", "é".repeat(1000)));
        assert_eq!(
            shown_justification(&"\u{7}".repeat(1001)).len(),
            6 * 1000 + 3
        );
    }
}

//! The host protocol (`ptc serve`, see `host-protocol.md`): JSON-RPC 2.0, one
//! JSON object per line, the host owning the tools and ptc the sandbox.
//!
//! Shape: one reader loop handles the host's lines in order. Quick requests
//! (`initialize`, `tools/*` bookkeeping, `presentation`) are answered inline,
//! so a `tools/register` is in effect for every later line; `run_code` and
//! `tools/invoke` each get their own task. Everything ptc writes goes through
//! one unbounded queue to one writer task, so emitting never blocks a sandbox
//! and a run's `run/event` and `$/cancel` lines, queued while it runs, are
//! written before its response, queued after it ends.
//!
//! Every message's shape, and the reading of every line the host sends,
//! is the contract's (`contract/host_protocol/`); these rooms act on them:
//! `outbox` (everything ptc writes, through one writer task), `errors`
//! (where in `tools/register`'s params an entry failed), `peer` (ptc's own
//! requests to the host and their pending answers), `session` (the host's
//! lines, routed, and each method), and `host_tool` and `approver` (the
//! host's tools and approvals as the engine's handler and approver).

mod approver;
mod errors;
mod host_tool;
mod outbox;
mod peer;
mod session;

use std::io;
use std::sync::atomic::AtomicUsize;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use tokio::io::{AsyncBufRead, AsyncWrite};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use outbox::{Outbox, write_lines};
use session::Session;

use crate::limits::{ANSWER, Limits};
use crate::state::StateStore;
use crate::transport::line_reader::{LineReader, Read};

/// Serves the host protocol on `input` (host → ptc) and `output` (ptc →
/// host) until `input` ends or the host stops reading. Every line is
/// measured before it is parsed (contracts §6, "What enters the host"): one
/// over 16 MiB is passed over unread, one costing more than 64 MiB once
/// parsed is refused unparsed (host-protocol.md, Robustness).
///
/// The session starts with no tools, mode `ptc` and default [`Limits`](crate::Limits);
/// `initialize` may change the limits and the mode. At end of input every
/// request still in flight is cancelled and answered (a run as `cancelled`),
/// then the output is flushed and shut down, and this returns `Ok(())`.
/// Runs on the current tokio runtime (each `run_code` and `tools/invoke`
/// is a task of its own).
///
/// # Errors
/// Reading `input` fails, or writing `output` fails (a host that exits
/// mid-session gives [`io::ErrorKind::BrokenPipe`]); requests in flight are
/// cancelled and awaited first.
pub async fn serve<R, W>(input: R, output: W) -> io::Result<()>
where
    R: AsyncBufRead + Unpin,
    W: AsyncWrite + Unpin + Send + 'static,
{
    let store = StateStore::open("memory", &Limits::default())
        .await
        .map_err(io::Error::other)?;
    serve_with_state(input, output, store).await
}

/// As [`serve`], the session's runs keeping their sessions' values in
/// `store` (contracts §9) unless `initialize` names another (its `state`).
///
/// # Errors
/// As [`serve`].
pub async fn serve_with_state<R, W>(input: R, output: W, store: StateStore) -> io::Result<()>
where
    R: AsyncBufRead + Unpin,
    W: AsyncWrite + Unpin + Send + 'static,
{
    let (queue, lines) = mpsc::unbounded_channel();
    let host_gone = CancellationToken::new();
    let backlog = Arc::new(AtomicUsize::new(0));
    let writer = tokio::spawn(write_lines(
        output,
        lines,
        Arc::clone(&backlog),
        host_gone.clone(),
    ));
    let outbox = Outbox { queue, backlog };
    let (alive, mut all_done) = mpsc::channel::<()>(1);
    let session = Session::new(outbox.clone(), alive, store);

    let mut input = LineReader::new(input, ANSWER.max_bytes);
    let read_result = loop {
        let read = tokio::select! {
            biased;
            _ = host_gone.cancelled() => break Ok(()),
            read = input.read() => read,
        };
        match read {
            Ok(Read::End) => break Ok(()),
            Ok(Read::Line) => session.handle_line(input.line()).await,
            Ok(Read::TooLong(bytes)) => session.too_long(bytes),
            Err(e) => break Err(e),
        }
    };

    // Wind down: cancel what is in flight and wait for its answers.
    let in_flight = Arc::clone(&session.in_flight);
    for token in lock(&in_flight).values() {
        token.cancel();
    }
    drop(session);
    while all_done.recv().await.is_some() {}
    outbox.close();
    let write_result = writer
        .await
        .unwrap_or_else(|e| Err(io::Error::other(format!("the writer task failed: {e}"))));
    read_result.and(write_result)
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

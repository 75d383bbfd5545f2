//! [`Lines`]: an rmcp [`Transport`] over newline-delimited JSON, bounded.
//!
//! - Every line is measured ([`gate::json_text`]) before it is parsed: one longer than
//!   the side's [`Bound`], or costlier once parsed, is never parsed.
//! - What cannot be read is answered rather than dropped: a request gets a
//!   JSON-RPC error under its id, an answer to one of ours becomes an error
//!   answer for rmcp (so the call fails at once instead of at its
//!   deadline). Only a message that cannot be tied to a request (not JSON,
//!   no id) is passed over, as rmcp does, so that two peers never trade
//!   errors forever.
//! - What may wait is bounded ([`BACKLOG`]). On the server side, reading
//!   stops while answers wait to be written (a client that does not read
//!   holds a bounded amount of ptc's memory, not one answer per request),
//!   and a request past the open ones allowed, or reusing an open one's
//!   id, is refused at once (reading goes on, so cancellations and answers
//!   to ptc's own requests still arrive). On the client side, reading never
//!   stops (the answers to ptc's calls must arrive); a server's request
//!   past the backlog is dropped unanswered.

use std::collections::{HashMap, VecDeque};
use std::marker::PhantomData;
use std::sync::{Arc, Mutex, PoisonError};

use rmcp::model::{
    CancelledNotification, ErrorCode, ErrorData, JsonRpcError, JsonRpcMessage, RequestId,
};
use rmcp::service::{RxJsonRpcMessage, ServiceRole, TxJsonRpcMessage};
use rmcp::transport::Transport;
use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::Notify;

use crate::gate::{self, Refusal};
use crate::json::envelope::envelope;
use crate::limits::Bound;
use crate::transport::line_reader::{LineReader, Read};

/// The code of the error answer made for an answer that arrived unreadable
/// (a JSON-RPC server error, in the range implementations may use).
pub(crate) const UNREADABLE_ANSWER: ErrorCode = ErrorCode(-32099);

/// Whether such an error answer also ended the session (its `data`).
pub(crate) fn ended_the_session(error: &ErrorData) -> bool {
    error.code == UNREADABLE_ANSWER
        && error
            .data
            .as_ref()
            .and_then(|d| d.get("sessionEnded"))
            .and_then(serde_json::Value::as_bool)
            == Some(true)
}

/// How much may wait on one pair of pipes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Backlog {
    /// Messages written to the peer and not yet taken by it.
    pub max_unwritten: usize,
    /// Their bytes.
    pub max_unwritten_bytes: usize,
    /// The peer's requests read and not yet answered.
    pub max_open: usize,
    /// Their cost once parsed ([`gate::json_text`]).
    pub max_open_cost: usize,
}

/// Both sides' (docs/mcp.md, "Transports and security").
pub(crate) const BACKLOG: Backlog = Backlog {
    max_unwritten: 64,
    max_unwritten_bytes: 4 << 20,
    max_open: 64,
    max_open_cost: 64 << 20,
};

/// How long closing waits for a write under way (a peer that stopped
/// reading holds one forever) before it lets go of the writer.
const CLOSE_WAIT: std::time::Duration = std::time::Duration::from_secs(2);

/// Which end of the pipes ptc is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Side {
    /// Serving a client.
    Server,
    /// The client of a server it started.
    Client,
}

/// Why a request of the peer is not handed to rmcp.
enum Refused {
    /// Its id is that of a request still open.
    IdInUse,
    /// The backlog is full.
    Busy,
}

/// An rmcp transport over a reader and a writer of JSON lines.
pub(crate) struct Lines<R: ServiceRole, In, Out> {
    input: LineReader<BufReader<In>>,
    out: Arc<Outbox<Out>>,
    side: Side,
    limits: Bound,
    /// Messages made here for rmcp, delivered before the next line.
    made: VecDeque<RxJsonRpcMessage<R>>,
    /// The session is over once `made` is delivered.
    ending: bool,
    /// Where a client notes the first line that was not a message.
    stray: Option<Arc<StrayLine>>,
    /// Changes what rmcp's typed reading of a line lost (see
    /// [`Lines::rereading`]).
    reread: Option<Reread<R>>,
    _role: PhantomData<fn() -> R>,
}

/// Given a line and rmcp's reading of it, the message to deliver.
pub(crate) type Reread<R> = fn(&[u8], RxJsonRpcMessage<R>) -> RxJsonRpcMessage<R>;

impl<R, In, Out> Lines<R, In, Out>
where
    R: ServiceRole,
    In: AsyncRead + Send + Unpin,
    Out: AsyncWrite + Send + Unpin + 'static,
{
    /// The server side of a session: requests of at most `limits`.
    pub(crate) fn server(input: In, output: Out, limits: Bound) -> Self {
        Self::new(input, output, limits, Side::Server)
    }

    /// The client side of a session: messages of at most `limits`.
    pub(crate) fn client(input: In, output: Out, limits: Bound) -> Self {
        Self::new(input, output, limits, Side::Client)
    }

    /// Notes in `stray` the first line the peer wrote that is not a
    /// message (a server's stray print), for messages about it.
    pub(crate) fn noting_stray_lines(mut self, stray: Arc<StrayLine>) -> Self {
        self.stray = Some(stray);
        self
    }

    fn new(input: In, output: Out, limits: Bound, side: Side) -> Self {
        Self {
            input: LineReader::new(BufReader::with_capacity(64 << 10, input), limits.max_bytes),
            out: Arc::new(Outbox {
                write: tokio::sync::Mutex::new(Some(output)),
                state: Mutex::default(),
                room: Notify::new(),
            }),
            side,
            limits,
            made: VecDeque::new(),
            ending: false,
            stray: None,
            reread: None,
            _role: PhantomData,
        }
    }

    /// Passes each message read, with its line, through `reread` (rmcp's
    /// typed results drop members they do not know).
    pub(crate) fn rereading(mut self, reread: Reread<R>) -> Self {
        self.reread = Some(reread);
        self
    }

    /// The message on the line just read, or what to do instead.
    fn take_line(&mut self) -> Option<RxJsonRpcMessage<R>> {
        let line = self.input.take_line();
        let message = self.message(trimmed(&line));
        self.input.give_back(line);
        message
    }

    /// The message `text` holds, or what to do instead.
    fn message(&mut self, text: &[u8]) -> Option<RxJsonRpcMessage<R>> {
        if text.is_empty() {
            return None;
        }
        let cost = match gate::json_text(text, self.limits) {
            Ok(cost) => cost,
            Err(refusal) => {
                self.unreadable(text, &Unreadable::Refused(refusal));
                return None;
            }
        };
        match serde_json::from_slice::<RxJsonRpcMessage<R>>(text) {
            Ok(message) => {
                let message = match self.reread {
                    Some(reread) => reread(text, message),
                    None => message,
                };
                self.admit(message, cost)
            }
            Err(e) => {
                self.unreadable(text, &Unreadable::Shape(e.to_string()));
                None
            }
        }
    }

    /// The message for rmcp, noted; or, for a request refused, nothing.
    fn admit(&mut self, message: RxJsonRpcMessage<R>, cost: usize) -> Option<RxJsonRpcMessage<R>> {
        let mut waiting = self.out.lock();
        if let JsonRpcMessage::Request(request) = &message {
            let refused = if waiting.theirs.contains_key(&request.id) {
                Some(Refused::IdInUse)
            } else if !waiting.has_open_room(&BACKLOG, cost)
                || (self.side == Side::Client && !waiting.has_unwritten_room(&BACKLOG))
            {
                Some(Refused::Busy)
            } else {
                None
            };
            if let Some(refused) = refused {
                drop(waiting);
                let id = request.id.clone();
                self.refuse(id, &refused);
                return None;
            }
        }
        waiting.received(&message, cost);
        Some(message)
    }

    /// Answers a request that is not handed to rmcp (a server side; a
    /// client side drops a server's request past its backlog, since a
    /// server that does not read would hold every answer).
    fn refuse(&mut self, id: RequestId, why: &Refused) {
        let message = match (self.side, why) {
            (Side::Client, _) => {
                tracing::debug!("a server's request {id} is dropped: the backlog is full");
                return;
            }
            (Side::Server, Refused::IdInUse) => {
                format!("ptc: the request id {id} is in use by a request not yet answered")
            }
            (Side::Server, Refused::Busy) => format!(
                "ptc: {} requests are open already (the limit); send this one again once one is answered",
                BACKLOG.max_open
            ),
        };
        let code = match why {
            Refused::IdInUse => ErrorCode::INVALID_REQUEST,
            Refused::Busy => ErrorCode(-32000),
        };
        self.send_error(Some(id), ErrorData::new(code, message, None));
    }

    /// Answers what the line it could not read was: a request of the peer
    /// (an error under its id), an answer to one of ours (an error answer
    /// for rmcp), or neither.
    fn unreadable(&mut self, text: &[u8], why: &Unreadable) {
        let (id, is_request) = envelope(text).map_or((None, false), |e| (e.id, e.has_method));
        tracing::debug!("an unreadable message ({why})");
        match (id, is_request) {
            (Some(id), true) => self.answer(Some(id), why),
            (Some(id), false) if self.out.lock().ours.remove(&id) => {
                self.made.push_back(unreadable_answer::<R>(id, why, false));
            }
            // Neither: not JSON (a server's stray print), an answer to
            // nothing open, a notification. A refusal is still answered
            // where a request might have been lost.
            _ => match (self.side, why) {
                (Side::Server, Unreadable::Refused(Refusal::Malformed(_))) => {}
                (Side::Server, Unreadable::Refused(_) | Unreadable::Shape(_)) => {
                    self.answer(None, why);
                }
                (Side::Client, Unreadable::Refused(Refusal::TooCostly { .. })) => {
                    self.end(why);
                }
                (Side::Client, _) => {
                    if let Some(stray) = &self.stray {
                        stray.note(text);
                    }
                }
            },
        }
    }

    /// A line longer than `limits.max_bytes`, which is not read: a server
    /// answers it with an error (its id unknown); a client cannot tell
    /// which call it answered, so it ends the session, failing them all.
    fn too_long(&mut self, bytes: usize) {
        let why = Unreadable::Refused(Refusal::TooLong {
            bytes,
            max: self.input.max_bytes(),
        });
        match self.side {
            Side::Server => self.answer(None, &why),
            Side::Client => self.end(&why),
        }
    }

    /// Fails every request of ours still open with `why`, then ends.
    fn end(&mut self, why: &Unreadable) {
        let ours: Vec<RequestId> = self.out.lock().ours.drain().collect();
        self.made.extend(
            ours.into_iter()
                .map(|id| unreadable_answer::<R>(id, why, true)),
        );
        self.ending = true;
    }

    /// Sends the peer a JSON-RPC error about a message it could not read.
    fn answer(&mut self, id: Option<RequestId>, why: &Unreadable) {
        let (code, what) = match why {
            Unreadable::Refused(Refusal::Malformed(_)) => (ErrorCode::PARSE_ERROR, "read"),
            _ => (ErrorCode::INVALID_REQUEST, "accepted"),
        };
        let error = ErrorData::new(
            code,
            format!("ptc: the message could not be {what}: {why}"),
            None,
        );
        self.send_error(id, error);
    }

    /// Sends an error about a request that was never admitted: it settles
    /// nothing open, even when the peer reused an open request's id.
    fn send_error(&mut self, id: Option<RequestId>, error: ErrorData) {
        let message: TxJsonRpcMessage<R> = JsonRpcMessage::Error(JsonRpcError::new(id, error));
        tokio::spawn(self.out.send(&message, Settles::Nothing));
    }
}

/// How much of a stray line is kept, in characters.
const STRAY_CHARS: usize = 200;

/// The first line a peer wrote that is not a message, cut to
/// [`STRAY_CHARS`] and escaped (quoted, control characters as escapes):
/// what a server that prints to stdout said, shown when it does not start.
#[derive(Debug, Default)]
pub(crate) struct StrayLine(std::sync::OnceLock<String>);

impl StrayLine {
    fn note(&self, line: &[u8]) {
        self.0.get_or_init(|| {
            // 4 bytes a character at most: enough for the kept part.
            let head = &line[..line.len().min(STRAY_CHARS * 4)];
            let text = String::from_utf8_lossy(head);
            let mut chars = text.chars();
            let kept: String = chars.by_ref().take(STRAY_CHARS).collect();
            let cut = chars.next().is_some() || head.len() < line.len();
            format!("{kept:?}{}", if cut { "…" } else { "" })
        });
    }

    /// The line noted, if any.
    pub(crate) fn get(&self) -> Option<&str> {
        self.0.get().map(String::as_str)
    }
}

/// Why a message was not read (a line here, an HTTP body or event in
/// `http`).
pub(crate) enum Unreadable {
    /// Measured and refused before parsing.
    Refused(Refusal),
    /// JSON, but not a message of this protocol.
    Shape(String),
}

impl std::fmt::Display for Unreadable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Refused(refusal) => refusal.fmt(f),
            Self::Shape(why) => write!(f, "it is not a JSON-RPC message of MCP: {why}"),
        }
    }
}

/// The error answer rmcp gets for an answer that arrived unreadable, and
/// whether the session ends with it.
pub(crate) fn unreadable_answer<R: ServiceRole>(
    id: RequestId,
    why: &Unreadable,
    ended: bool,
) -> RxJsonRpcMessage<R> {
    let data = ended.then(|| serde_json::json!({ "sessionEnded": true }));
    JsonRpcMessage::Error(JsonRpcError::new(
        Some(id),
        ErrorData::new(UNREADABLE_ANSWER, why.to_string(), data),
    ))
}

/// The line without its `\r`, and without a UTF-8 byte order mark (which
/// RFC 8259 lets a reader ignore).
fn trimmed(line: &[u8]) -> &[u8] {
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    let line = line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line);
    line.trim_ascii()
}

/// The writing half, shared with the send futures rmcp spawns, and the
/// bookkeeping of what waits.
struct Outbox<Out> {
    write: tokio::sync::Mutex<Option<Out>>,
    state: Mutex<Waiting>,
    /// Told whenever something waiting is done.
    room: Notify,
}

/// What waits: messages not yet written, requests not yet answered.
#[derive(Default)]
struct Waiting {
    unwritten: usize,
    unwritten_bytes: usize,
    /// The peer's requests read and not answered, with their cost.
    theirs: HashMap<RequestId, usize>,
    theirs_bytes: usize,
    /// Our requests sent and not answered.
    ours: std::collections::HashSet<RequestId>,
}

impl Waiting {
    fn has_unwritten_room(&self, backlog: &Backlog) -> bool {
        self.unwritten < backlog.max_unwritten && self.unwritten_bytes < backlog.max_unwritten_bytes
    }

    /// Whether one more request of the peer, costing `cost`, may be open
    /// (one always may, when none is).
    fn has_open_room(&self, backlog: &Backlog, cost: usize) -> bool {
        self.theirs.is_empty()
            || (self.theirs.len() < backlog.max_open
                && self.theirs_bytes + cost <= backlog.max_open_cost)
    }

    fn forget_theirs(&mut self, id: &RequestId) {
        if let Some(bytes) = self.theirs.remove(id) {
            self.theirs_bytes -= bytes;
        }
    }

    /// Notes a message read from the peer.
    fn received<Req, Resp, Not>(&mut self, message: &JsonRpcMessage<Req, Resp, Not>, bytes: usize)
    where
        Not: Clone + TryInto<CancelledNotification>,
    {
        match message {
            JsonRpcMessage::Request(request) => {
                self.forget_theirs(&request.id);
                self.theirs.insert(request.id.clone(), bytes);
                self.theirs_bytes += bytes;
            }
            JsonRpcMessage::Response(response) => {
                self.ours.remove(&response.id);
            }
            JsonRpcMessage::Error(error) => {
                if let Some(id) = &error.id {
                    self.ours.remove(id);
                }
            }
            // rmcp drops the answer of a request the peer cancelled.
            JsonRpcMessage::Notification(notification) => {
                if let Some(id) = cancelled(&notification.notification) {
                    self.forget_theirs(&id);
                }
            }
        }
    }

    /// Notes a message about to be written to the peer.
    fn sent<Req, Resp, Not>(
        &mut self,
        message: &JsonRpcMessage<Req, Resp, Not>,
        bytes: usize,
        settles: Settles,
    ) where
        Not: Clone + TryInto<CancelledNotification>,
    {
        self.unwritten += 1;
        self.unwritten_bytes += bytes;
        if settles == Settles::Nothing {
            return;
        }
        match message {
            JsonRpcMessage::Request(request) => {
                self.ours.insert(request.id.clone());
            }
            JsonRpcMessage::Response(response) => self.forget_theirs(&response.id),
            JsonRpcMessage::Error(error) => {
                if let Some(id) = &error.id {
                    self.forget_theirs(id);
                }
            }
            JsonRpcMessage::Notification(notification) => {
                if let Some(id) = cancelled(&notification.notification) {
                    self.ours.remove(&id);
                }
            }
        }
    }
}

/// Whether an answer written settles the peer's open request of its id:
/// rmcp's answers do; an error about a request never admitted does not.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Settles {
    OpenRequest,
    Nothing,
}

/// The request a `notifications/cancelled` names, if that is what this is.
fn cancelled<Not>(notification: &Not) -> Option<RequestId>
where
    Not: Clone + TryInto<CancelledNotification>,
{
    let cancelled: CancelledNotification = notification.clone().try_into().ok()?;
    cancelled.params.request_id
}

impl<Out: AsyncWrite + Send + Unpin + 'static> Outbox<Out> {
    fn lock(&self) -> std::sync::MutexGuard<'_, Waiting> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Waits until no more than `backlog` waits to be written.
    async fn room(&self, backlog: &Backlog) {
        loop {
            let told = self.room.notified();
            tokio::pin!(told);
            told.as_mut().enable();
            if self.lock().has_unwritten_room(backlog) {
                return;
            }
            told.await;
        }
    }

    /// Notes `message` as sent and returns the write of its line.
    fn send<Req, Resp, Not>(
        self: &Arc<Self>,
        message: &JsonRpcMessage<Req, Resp, Not>,
        settles: Settles,
    ) -> impl Future<Output = std::io::Result<()>> + Send + 'static + use<Req, Resp, Not, Out>
    where
        JsonRpcMessage<Req, Resp, Not>: serde::Serialize,
        Not: Clone + TryInto<CancelledNotification>,
    {
        let mut line = serde_json::to_vec(message).unwrap_or_default();
        line.push(b'\n');
        self.lock().sent(message, line.len(), settles);
        let pending = Pending {
            out: Arc::clone(self),
            bytes: line.len(),
        };
        async move {
            let mut write = pending.out.write.lock().await;
            let Some(write) = write.as_mut() else {
                return Err(std::io::Error::new(
                    std::io::ErrorKind::NotConnected,
                    "the transport is closed",
                ));
            };
            write.write_all(&line).await?;
            write.flush().await
        }
    }
}

/// One message on its way out; done (written, failed or dropped) when
/// this is dropped.
struct Pending<Out> {
    out: Arc<Outbox<Out>>,
    bytes: usize,
}

impl<Out> Drop for Pending<Out> {
    fn drop(&mut self) {
        let mut state = self
            .out
            .state
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        state.unwritten -= 1;
        state.unwritten_bytes -= self.bytes;
        drop(state);
        self.out.room.notify_waiters();
    }
}

impl<R, In, Out> Transport<R> for Lines<R, In, Out>
where
    R: ServiceRole,
    In: AsyncRead + Send + Unpin,
    Out: AsyncWrite + Send + Unpin + 'static,
{
    type Error = std::io::Error;

    fn name() -> std::borrow::Cow<'static, str> {
        "ptc JSON lines".into()
    }

    fn send(
        &mut self,
        item: TxJsonRpcMessage<R>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        self.out.send(&item, Settles::OpenRequest)
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<R>> {
        loop {
            if let Some(message) = self.made.pop_front() {
                return Some(message);
            }
            if self.ending {
                return None;
            }
            if self.side == Side::Server {
                self.out.room(&BACKLOG).await;
            }
            match self.input.read().await {
                Ok(Read::Line) => {
                    if let Some(message) = self.take_line() {
                        return Some(message);
                    }
                }
                Ok(Read::TooLong(bytes)) => self.too_long(bytes),
                Ok(Read::End) => return None,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => {
                    tracing::debug!("reading the peer's messages failed: {e}");
                    return None;
                }
            }
        }
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        let Ok(mut write) = tokio::time::timeout(CLOSE_WAIT, self.out.write.lock()).await else {
            // A write the peer never takes holds the writer; it goes with
            // the process, or with the transport.
            return Ok(());
        };
        if let Some(mut writer) = write.take() {
            let _ = tokio::time::timeout(CLOSE_WAIT, writer.shutdown()).await;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::StrayLine;

    #[test]
    fn a_stray_line_is_the_first_one_cut_and_escaped() {
        let stray = StrayLine::default();
        assert_eq!(stray.get(), None);
        stray.note(b"hello");
        stray.note(b"second");
        assert_eq!(stray.get(), Some("\"hello\""));

        let long = StrayLine::default();
        let line = format!("\x1b[2J{}", "é".repeat(10_000));
        long.note(line.as_bytes());
        let kept = long.get().unwrap();
        assert!(kept.starts_with("\"\\u{1b}[2Jéé"), "{kept}");
        assert!(kept.ends_with("é\"…"), "{kept}");
        assert_eq!(kept.chars().filter(|&c| c == 'é').count(), 196);
    }
}

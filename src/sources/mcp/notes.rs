//! What an upstream server says during a call, as progress notes of the
//! call ([`ToolContext::report_progress`]), each to the call it is about
//! and to no one else's:
//!
//! - `notifications/progress` goes to the call whose request carried its
//!   token (tokens are per request);
//! - `notifications/message` (a log line) names no request. Over HTTP, one
//!   that came on a request's response stream is that request's (ptc's
//!   HTTP client says which, `transport::http::RELATED_REQUEST`), so it goes to that call
//!   alone. One tied to nothing (stdio, or the stream ptc opens with
//!   `GET`) goes to the calls in flight only when they all report to the
//!   same watcher (one run's event sink: the reader of every note of
//!   theirs), else to nobody: one connection serves every MCP session of
//!   `ptc mcp --http` and every run of a host, and a line about one run's
//!   call must not reach another's reader.
//!
//! Only calls whose run is watched listen; the rest costs nothing.
// rmcp marks logging deprecated (SEP-2577, a protocol after 2025-11-25);
// the servers ptc speaks to, of the `initialize` era, still send it.
#![allow(deprecated)]

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use rmcp::model::{
    LoggingMessageNotificationParam, ProgressNotificationParam, ProgressToken, RequestId,
};
use serde_json::Value;

use crate::tool::context::ToolContext;

/// The calls of one session that listen, by the progress token rmcp gave
/// their request.
#[derive(Default)]
pub(super) struct Notes {
    listening: Mutex<HashMap<ProgressToken, Listener>>,
    /// Read while a call's request goes out, until the call listens (rmcp
    /// names the request's id and token only once it is on its way, and a
    /// server may speak about it at once).
    sending: tokio::sync::RwLock<()>,
}

struct Listener {
    /// The id of the call's request.
    request: RequestId,
    cx: ToolContext,
}

/// Stops a call's listening when dropped (the call ended or was cancelled).
pub(super) struct Listening {
    notes: Arc<Notes>,
    token: ProgressToken,
}

impl Drop for Listening {
    fn drop(&mut self) {
        self.notes.lock().remove(&self.token);
    }
}

impl Notes {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<ProgressToken, Listener>> {
        self.listening
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    /// Held while a call's request goes out, until it listens (and its id
    /// is noted for elicitation): what the server says meanwhile waits
    /// ([`Notes::settled`]) rather than finding nobody.
    pub(super) async fn sending(&self) -> tokio::sync::RwLockReadGuard<'_, ()> {
        self.sending.read().await
    }

    /// Waits until every call whose request has gone out listens: what the
    /// server says now may be about any of them.
    pub(super) async fn settled(&self) {
        drop(self.sending.write().await);
    }

    /// Hands what the server says about the request `request` (its
    /// progress token `token`) to `cx` until the returned guard is
    /// dropped; nothing when nobody watches the call's run.
    pub(super) fn listen(
        self: &Arc<Self>,
        request: RequestId,
        token: ProgressToken,
        cx: &ToolContext,
    ) -> Option<Listening> {
        if !cx.reports_progress() {
            return None;
        }
        let listener = Listener {
            request,
            cx: cx.clone(),
        };
        self.lock().insert(token.clone(), listener);
        Some(Listening {
            notes: Arc::clone(self),
            token,
        })
    }

    /// Under the lock, so no note follows the end of its call.
    pub(super) fn progress(&self, params: &ProgressNotificationParam) {
        if let Some(listener) = self.lock().get(&params.progress_token) {
            listener.cx.report_progress(progress_note(params));
        }
    }

    /// A log line: to the call of `related` (the request whose response
    /// stream it came on) alone; tied to none, to the calls in flight when
    /// they all report to one watcher, else to nobody.
    pub(super) fn log(
        &self,
        params: &LoggingMessageNotificationParam,
        related: Option<&RequestId>,
    ) {
        let listening = self.lock();
        let mut calls = listening.values();
        let Some(first) = calls.next() else {
            return;
        };
        let heard: Vec<&ToolContext> = match related {
            Some(request) => listening
                .values()
                .filter(|l| &l.request == request)
                .map(|l| &l.cx)
                .collect(),
            None if calls.all(|l| l.cx.same_watcher(&first.cx)) => {
                listening.values().map(|l| &l.cx).collect()
            }
            None => return,
        };
        if heard.is_empty() {
            return;
        }
        let note = log_note(params);
        for cx in heard {
            cx.report_progress(note.clone());
        }
    }
}

/// The server's message, else its numbers (`3 of 10`, `3`).
fn progress_note(params: &ProgressNotificationParam) -> String {
    match (&params.message, params.total) {
        (Some(message), _) => message.clone(),
        (None, Some(total)) => format!("{} of {total}", params.progress),
        (None, None) => params.progress.to_string(),
    }
}

/// `[info] text` (`[info] logger: text` when it names a logger); data
/// that is not a string as compact JSON.
fn log_note(params: &LoggingMessageNotificationParam) -> String {
    let level = serde_json::to_value(params.level).unwrap_or(Value::Null);
    let level = level.as_str().unwrap_or("log");
    let data = match &params.data {
        Value::String(text) => text.clone(),
        other => other.to_string(),
    };
    match &params.logger {
        Some(logger) => format!("[{level}] {logger}: {data}"),
        None => format!("[{level}] {data}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use tokio_util::sync::CancellationToken;

    /// A watcher: the notes it read, as `<call>: <note>`.
    type Read = Arc<Mutex<Vec<String>>>;

    struct Watcher(Read);

    impl crate::tool::context::ProgressSink for Watcher {
        fn progress(&self, _run: Arc<str>, id: Arc<str>, message: String) {
            self.0.lock().unwrap().push(format!("{id}: {message}"));
        }
    }

    fn watcher() -> (Arc<Watcher>, Read) {
        let read = Read::default();
        (Arc::new(Watcher(Arc::clone(&read))), read)
    }

    fn call(id: &str, watcher: &Arc<Watcher>) -> ToolContext {
        let mut cx = ToolContext::new(id, CancellationToken::new(), None);
        cx.progress = Some(Arc::clone(watcher) as _);
        cx
    }

    fn line(data: &str) -> LoggingMessageNotificationParam {
        serde_json::from_value(json!({ "level": "info", "data": data })).unwrap()
    }

    fn read(read: &Read) -> Vec<String> {
        std::mem::take(&mut *read.lock().unwrap())
    }

    /// rmcp names a request's id and token only once it is on its way, and
    /// a server may speak about it at once: what it says meanwhile waits
    /// for the call to listen instead of finding nobody.
    #[tokio::test]
    async fn what_comes_while_a_call_is_sent_waits_for_it_to_listen() {
        let notes = Arc::new(Notes::default());
        let (run, run_read) = watcher();
        let sending = notes.sending().await;
        let early = {
            let notes = Arc::clone(&notes);
            tokio::spawn(async move {
                notes.settled().await;
                notes.log(&line("at once"), None);
            })
        };
        tokio::task::yield_now().await;
        assert!(!early.is_finished(), "the line waits");
        let token = ProgressToken(RequestId::Number(1));
        let _a = notes.listen(RequestId::Number(1), token, &call("a", &run));
        drop(sending);
        early.await.unwrap();
        assert_eq!(read(&run_read), ["a: [info] at once"]);
    }

    #[test]
    fn a_log_line_reaches_only_the_call_it_is_about_or_no_one() {
        let notes = Arc::new(Notes::default());
        let (run, run_read) = watcher();
        let (other, other_read) = watcher();
        let token = |n: i64| ProgressToken(RequestId::Number(n));
        let _a1 = notes.listen(RequestId::Number(1), token(1), &call("a1", &run));
        let _a2 = notes.listen(RequestId::Number(2), token(2), &call("a2", &run));

        // Tied to nothing, with the calls of one run listening: to them.
        notes.log(&line("one run"), None);
        let mut heard = read(&run_read);
        heard.sort();
        assert_eq!(heard, ["a1: [info] one run", "a2: [info] one run"]);

        // Another run's call listens too: a line tied to nothing goes to
        // nobody; one tied to a request, to that call alone.
        let b = notes.listen(RequestId::Number(3), token(3), &call("b", &other));
        notes.log(&line("whose?"), None);
        notes.log(&line("b's secret"), Some(&RequestId::Number(3)));
        notes.log(&line("a2's secret"), Some(&RequestId::Number(2)));
        notes.log(&line("no call's"), Some(&RequestId::Number(9)));
        assert_eq!(read(&run_read), ["a2: [info] a2's secret"]);
        assert_eq!(read(&other_read), ["b: [info] b's secret"]);

        // Progress goes by its token, whoever else listens.
        let progress = |n: i64| -> ProgressNotificationParam {
            serde_json::from_value(json!({ "progressToken": n, "progress": 1, "message": "step" }))
                .unwrap()
        };
        notes.progress(&progress(3));
        assert_eq!(read(&other_read), ["b: step"]);
        assert!(read(&run_read).is_empty());

        // Once the other run's call has ended, the one run hears again.
        drop(b);
        notes.log(&line("again"), None);
        assert_eq!(read(&run_read).len(), 2);
        assert!(read(&other_read).is_empty());
    }

    fn progress(value: Value) -> String {
        progress_note(&serde_json::from_value(value).unwrap())
    }

    fn log(value: Value) -> String {
        log_note(&serde_json::from_value(value).unwrap())
    }

    #[test]
    fn notes_say_the_message_else_the_numbers() {
        let token = json!("t");
        assert_eq!(
            progress(
                json!({ "progressToken": token, "progress": 1, "total": 2, "message": "step 1" })
            ),
            "step 1"
        );
        assert_eq!(
            progress(json!({ "progressToken": token, "progress": 3, "total": 10 })),
            "3 of 10"
        );
        assert_eq!(
            progress(json!({ "progressToken": token, "progress": 0.5 })),
            "0.5"
        );
        assert_eq!(
            log(json!({ "level": "warning", "data": "disk low" })),
            "[warning] disk low"
        );
        assert_eq!(
            log(json!({ "level": "info", "logger": "db", "data": { "rows": 3 } })),
            "[info] db: {\"rows\":3}"
        );
    }
}

//! What an upstream server says during a call, as progress notes of the
//! call ([`ToolContext::report_progress`]): `notifications/progress` goes
//! to the call whose request carried its token; `notifications/message`
//! (a log line, tied to no request) to every call of the session in
//! flight. Only calls whose run is watched listen; the rest costs nothing.
// rmcp marks logging deprecated (SEP-2577, a protocol after 2025-11-25);
// the servers ptc speaks to, of the `initialize` era, still send it.
#![allow(deprecated)]

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use rmcp::model::{LoggingMessageNotificationParam, ProgressNotificationParam, ProgressToken};
use serde_json::Value;

use crate::tool::call::ToolContext;

/// The calls of one session that listen, by the progress token rmcp gave
/// their request.
#[derive(Default)]
pub(super) struct Notes {
    listening: Mutex<HashMap<ProgressToken, ToolContext>>,
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
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<ProgressToken, ToolContext>> {
        self.listening
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    /// Hands what the server says about `token` (and its log lines) to
    /// `cx` until the returned guard is dropped; nothing when nobody
    /// watches the call's run.
    pub(super) fn listen(
        self: &Arc<Self>,
        token: ProgressToken,
        cx: &ToolContext,
    ) -> Option<Listening> {
        if !cx.reports_progress() {
            return None;
        }
        self.lock().insert(token.clone(), cx.clone());
        Some(Listening {
            notes: Arc::clone(self),
            token,
        })
    }

    /// Under the lock, so no note follows the end of its call.
    pub(super) fn progress(&self, params: &ProgressNotificationParam) {
        if let Some(cx) = self.lock().get(&params.progress_token) {
            cx.report_progress(progress_note(params));
        }
    }

    pub(super) fn log(&self, params: &LoggingMessageNotificationParam) {
        let listening = self.lock();
        if listening.is_empty() {
            return;
        }
        let note = log_note(params);
        for cx in listening.values() {
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

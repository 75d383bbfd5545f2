//! Run events (contracts §6, events): what a host can watch while a run goes.

use std::sync::Arc;

use serde::Serialize;
use serde_json::Value;

use super::output::LogLevel;
use crate::tool::call::ToolError;

/// One event of a run. Serializes as the host protocol's `run/event` params.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct RunEvent {
    /// The run's id.
    #[serde(rename = "runId")]
    pub run_id: Arc<str>,
    /// What happened.
    #[serde(flatten)]
    pub kind: RunEventKind,
}

/// What happened in a run.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "event", rename_all = "lowercase")]
#[non_exhaustive]
pub enum RunEventKind {
    /// A sub-call was submitted (before policy).
    Started {
        /// `<runId>:ptc:<n>`.
        id: Arc<str>,
        /// The tool's name.
        name: String,
        /// How the call reads to a person: the tool's call title, else
        /// `name(key: value, …)` (contracts §2, titles). Never the model's.
        title: String,
        /// The arguments as the program passed them.
        arguments: Value,
    },
    /// A sub-call settled; exactly one per `started`.
    Settled {
        /// `<runId>:ptc:<n>`.
        id: Arc<str>,
        /// How the call and its result read to a person: on success the
        /// tool's result title, else (and on failure) the call's title.
        title: String,
        /// Whether it succeeded.
        ok: bool,
        /// The value, on success.
        #[serde(skip_serializing_if = "Option::is_none")]
        value: Option<Value>,
        /// The error, on failure.
        #[serde(skip_serializing_if = "Option::is_none")]
        error: Option<ToolError>,
    },
    /// A note from a sub-call's handler while it runs (an upstream MCP
    /// server's progress or log message), for people watching the run.
    Progress {
        /// `<runId>:ptc:<n>` (for a direct tool call, the call's id).
        id: Arc<str>,
        /// The note, one line.
        message: String,
    },
    /// A console line, streamed while the capture keeps lines.
    Log {
        /// The console level.
        level: LogLevel,
        /// The line (without the `[warn] ` / `[error] ` prefix).
        text: String,
    },
    /// The run's last `log` event when the capture was full: how many lines
    /// were not streamed. On the wire, `{"event": "log", "truncated": n}`.
    #[serde(rename = "log")]
    Truncated {
        /// Lines that were not streamed.
        truncated: usize,
    },
}

/// Receives run events. Called on the sandbox thread: it must not block
/// (hand the event to a channel or a lock-free queue).
pub trait EventSink: Send + Sync + 'static {
    /// Receives one event.
    fn emit(&self, event: RunEvent);
}

impl<F: Fn(RunEvent) + Send + Sync + 'static> EventSink for F {
    fn emit(&self, event: RunEvent) {
        self(event)
    }
}

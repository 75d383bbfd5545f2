//! Run events on the wire (contracts §6, events): what a host can watch
//! while a run goes, each event as the host protocol's `run/event` params
//! and the Rust API's [`RunEvent`] carry it, with a sub-call's values
//! [`Carried`] whole or as a bounded preview.

use std::io;
use std::sync::Arc;

use serde::Serialize;
use serde::ser::{SerializeMap, Serializer};
use serde_json::Value;

use super::call::ToolError;
use crate::limits::{EVENT_PREVIEW_BYTES, EVENT_VALUE_BYTES};

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
        /// The arguments as the program passed them (on the wire
        /// `arguments`, or `argumentsPreview` and `argumentsBytes`).
        #[serde(flatten, serialize_with = "as_arguments")]
        arguments: Carried,
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
        /// The value, on success (on the wire `value`, or `valuePreview`
        /// and `valueBytes`).
        #[serde(flatten, serialize_with = "as_value")]
        value: Option<Carried>,
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

impl RunEventKind {
    /// A sub-call's `started`, carrying its arguments as events do.
    pub(crate) fn started(id: Arc<str>, name: String, title: String, arguments: &Value) -> Self {
        Self::Started {
            id,
            name,
            title,
            arguments: Carried::of(arguments),
        }
    }

    /// A sub-call's `settled`: its value (as events carry it) or its error.
    pub(crate) fn settled(id: Arc<str>, title: String, result: Result<&Value, &ToolError>) -> Self {
        Self::Settled {
            id,
            title,
            ok: result.is_ok(),
            value: result.ok().map(Carried::of),
            error: result.err().cloned(),
        }
    }
}

/// A sub-call's arguments or value as an event carries it (contracts §6,
/// Events): whole when its JSON is at most 16 KiB, else the start of its
/// JSON text and its length, so no program can make an event a host
/// cannot read (or a watcher that much more to hold).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Carried {
    /// The whole value.
    Whole(Value),
    /// Too large to carry: the first kilobyte or so of its JSON text (cut
    /// at a character) and the text's whole length in bytes.
    Preview {
        /// The start of the JSON text.
        start: String,
        /// The JSON text's length in bytes.
        bytes: usize,
    },
}

impl Carried {
    /// `value` whole, or its preview when its JSON is over 16 KiB
    /// (written once, keeping only what a preview shows).
    pub fn of(value: &Value) -> Self {
        // Most values are small: counted first, keeping nothing, and the
        // count stops at the first byte past the bound.
        if serde_json::to_writer(&mut Within(0), value).is_ok() {
            return Self::Whole(value.clone());
        }
        let mut head = Head {
            kept: Vec::with_capacity(EVENT_PREVIEW_BYTES),
            keep: EVENT_PREVIEW_BYTES,
            total: 0,
        };
        // Writing JSON into `Head` cannot fail.
        let _ = serde_json::to_writer(&mut head, value);
        let start = match String::from_utf8(head.kept) {
            Ok(text) => text,
            Err(cut) => {
                let valid = cut.utf8_error().valid_up_to();
                let mut bytes = cut.into_bytes();
                bytes.truncate(valid);
                String::from_utf8(bytes).unwrap_or_default()
            }
        };
        Self::Preview {
            start,
            bytes: head.total,
        }
    }

    /// The value, when it was carried whole.
    pub fn whole(&self) -> Option<&Value> {
        match self {
            Self::Whole(value) => Some(value),
            Self::Preview { .. } => None,
        }
    }
}

/// Counts the bytes written, failing the write that takes them past
/// [`EVENT_VALUE_BYTES`] (which ends the writing).
struct Within(usize);

impl io::Write for Within {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0 += buf.len();
        if self.0 > EVENT_VALUE_BYTES {
            return Err(io::ErrorKind::FileTooLarge.into());
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// Keeps the first `keep` bytes written and counts them all.
struct Head {
    kept: Vec<u8>,
    keep: usize,
    total: usize,
}

impl io::Write for Head {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let room = self.keep.saturating_sub(self.kept.len()).min(buf.len());
        self.kept.extend_from_slice(&buf[..room]);
        self.total += buf.len();
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// `arguments`, or `argumentsPreview` and `argumentsBytes`.
fn as_arguments<S: Serializer>(carried: &Carried, s: S) -> Result<S::Ok, S::Error> {
    members(
        Some(carried),
        ["arguments", "argumentsPreview", "argumentsBytes"],
        s,
    )
}

/// `value`, or `valuePreview` and `valueBytes`; nothing without a value.
fn as_value<S: Serializer>(carried: &Option<Carried>, s: S) -> Result<S::Ok, S::Error> {
    members(carried.as_ref(), ["value", "valuePreview", "valueBytes"], s)
}

fn members<S: Serializer>(
    carried: Option<&Carried>,
    [whole, preview, bytes]: [&str; 3],
    s: S,
) -> Result<S::Ok, S::Error> {
    let mut map = s.serialize_map(None)?;
    match carried {
        Some(Carried::Whole(value)) => map.serialize_entry(whole, value)?,
        Some(Carried::Preview { start, bytes: n }) => {
            map.serialize_entry(preview, start)?;
            map.serialize_entry(bytes, n)?;
        }
        None => {}
    }
    map.end()
}

/// A console level, as the prelude numbers them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum LogLevel {
    /// `console.log`
    Log,
    /// `console.info`
    Info,
    /// `console.warn`, captured with a `[warn] ` prefix.
    Warn,
    /// `console.error`, captured with an `[error] ` prefix.
    Error,
    /// `console.debug`
    Debug,
}

impl LogLevel {
    pub(crate) fn from_index(i: i32) -> Self {
        match i {
            1 => Self::Info,
            2 => Self::Warn,
            3 => Self::Error,
            4 => Self::Debug,
            _ => Self::Log,
        }
    }

    pub(crate) fn prefix(self) -> &'static str {
        match self {
            Self::Warn => "[warn] ",
            Self::Error => "[error] ",
            _ => "",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn wire(kind: RunEventKind) -> Value {
        serde_json::to_value(RunEvent {
            run_id: "r".into(),
            kind,
        })
        .unwrap()
    }

    /// Whole up to 16 KiB of JSON, inclusive; one byte more is a preview.
    #[test]
    fn values_are_carried_whole_up_to_the_bound() {
        // `"xx…"`: the string's length plus its two quotes.
        let at = json!("x".repeat(EVENT_VALUE_BYTES - 2));
        assert_eq!(Carried::of(&at), Carried::Whole(at.clone()));
        let past = json!("x".repeat(EVENT_VALUE_BYTES - 1));
        assert_eq!(
            Carried::of(&past),
            Carried::Preview {
                start: format!("\"{}", "x".repeat(EVENT_PREVIEW_BYTES - 1)),
                bytes: EVENT_VALUE_BYTES + 1,
            }
        );
        assert_eq!(Carried::of(&past).whole(), None);
        assert_eq!(Carried::of(&at).whole(), Some(&at));
    }

    #[test]
    fn a_preview_is_cut_at_a_character() {
        // Three bytes a character: the first KiB ends inside one.
        let value = json!("日".repeat(10_000));
        let Carried::Preview { start, bytes } = Carried::of(&value) else {
            panic!("a preview")
        };
        assert_eq!(bytes, 30_002);
        assert_eq!(start, format!("\"{}", "日".repeat(341)));
    }

    #[test]
    fn events_carry_their_values_under_the_wire_names() {
        let big = json!({ "s": "y".repeat(20_000) });
        let started = wire(RunEventKind::started(
            "r:ptc:1".into(),
            "echo".into(),
            "echo".into(),
            &big,
        ));
        assert_eq!(started["argumentsBytes"], 20_008);
        assert!(
            started["argumentsPreview"]
                .as_str()
                .unwrap()
                .starts_with("{\"s\":\"yyy")
        );
        assert!(started.get("arguments").is_none());
        let small = wire(RunEventKind::started(
            "r:ptc:1".into(),
            "echo".into(),
            "echo".into(),
            &json!({ "a": 1 }),
        ));
        assert_eq!(small["arguments"], json!({ "a": 1 }));
        assert!(small.get("argumentsPreview").is_none());
        let settled = wire(RunEventKind::settled(
            "r:ptc:1".into(),
            "t".into(),
            Ok(&big),
        ));
        assert_eq!(
            (settled["ok"].clone(), settled["valueBytes"].clone()),
            (json!(true), json!(20_008))
        );
        let error = ToolError::new(crate::contract::call::ErrorCode::ToolError, "no");
        let failed = wire(RunEventKind::settled(
            "r:ptc:1".into(),
            "t".into(),
            Err(&error),
        ));
        assert_eq!(failed["ok"], false);
        assert_eq!(failed["error"]["message"], "no");
        assert!(failed.get("value").is_none() && failed.get("valuePreview").is_none());
    }
}

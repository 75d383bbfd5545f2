//! What a line from the host is (host-protocol.md, Messages): a request, a
//! notification, an answer to one of ptc's requests, or something to
//! answer with an error. The line has been measured before it gets here
//! (`gate`); reading it here decides only what it is.

use serde_json::{Map, Value};

use super::{INVALID_REQUEST, PARSE_ERROR, RpcError};
use crate::json::json_type;

/// A line from the host, read.
#[derive(Debug)]
pub(crate) enum Incoming {
    /// A request, answered under `id`.
    Request {
        id: Value,
        method: String,
        params: Value,
    },
    /// A notification: never answered.
    Notification { method: String, params: Value },
    /// The host's answer to ptc's request `id`: its result or its error.
    Answer {
        id: Value,
        reply: Result<Value, RpcError>,
    },
    /// Answered with `error` under `id` (`null` when its own id is not
    /// usable).
    Invalid { id: Value, error: RpcError },
    /// Not valid, and not answered: it had no id.
    Ignored,
}

impl Incoming {
    /// Reads one line's text (trimmed, not empty).
    pub(crate) fn read(text: &str) -> Self {
        match serde_json::from_str(text) {
            Ok(message) => Self::of(message),
            Err(e) => Self::unreadable(text, &e.to_string()),
        }
    }

    /// A line that is JSON in shape but cannot be read as a whole (nested
    /// deeper than serde reads, a lone surrogate escape, more than the gate
    /// admits, …) still gets an answer under its id, and an answer to ptc's
    /// own request still settles that request: a sub-call fails at once
    /// instead of waiting for its deadline.
    pub(crate) fn unreadable(text: &str, error: &str) -> Self {
        let envelope = serde_json::from_str::<Envelope>(text).ok();
        let id = envelope
            .as_ref()
            .and_then(|e| e.id)
            .and_then(|raw| serde_json::from_str::<Value>(raw.get()).ok())
            .filter(|id| matches!(id, Value::String(_) | Value::Number(_)));
        match (envelope, id) {
            (Some(envelope), Some(id)) if envelope.method.is_none() && envelope.answers() => {
                let why = format!("the host's answer could not be read: {error}");
                let reply = Err(RpcError::new(PARSE_ERROR, why));
                Self::Answer { id, reply }
            }
            (_, id) => Self::Invalid {
                id: id.unwrap_or(Value::Null),
                error: RpcError::new(PARSE_ERROR, format!("parse error: {error}")),
            },
        }
    }

    /// A parsed message by its members.
    fn of(message: Value) -> Self {
        let Value::Object(mut message) = message else {
            let got = json_type(&message);
            let why = format!("expected one JSON-RPC object per line, got {got}");
            return invalid(Value::Null, why);
        };
        let id = message.remove("id");
        if let Some(id) = &id
            && !matches!(id, Value::String(_) | Value::Number(_) | Value::Null)
        {
            let why = format!(
                "`id` must be a string, a number or null, got {}",
                json_type(id)
            );
            return invalid(Value::Null, why);
        }
        Self::by_members(id, message)
    }

    fn by_members(id: Option<Value>, mut message: Map<String, Value>) -> Self {
        let invalid_request = |why: String| match &id {
            Some(id) => invalid(id.clone(), why),
            None => Self::Ignored,
        };
        if let Some(version) = message.get("jsonrpc")
            && version != super::VERSION
        {
            return invalid_request(format!("`jsonrpc` must be \"2.0\", got {version}"));
        }
        match message.remove("method") {
            Some(Value::String(method)) => {
                let params = message.remove("params").unwrap_or(Value::Null);
                match id {
                    Some(id) => Self::Request { id, method, params },
                    None => Self::Notification { method, params },
                }
            }
            Some(other) => invalid_request(format!(
                "`method` must be a string, got {}",
                json_type(&other)
            )),
            None => Self::answer(id, message.remove("result"), message.remove("error")),
        }
    }

    /// A message without `method`: the host's answer to a request of ptc's.
    fn answer(id: Option<Value>, result: Option<Value>, error: Option<Value>) -> Self {
        match (id, result, error) {
            (Some(id), Some(result), None) => Self::Answer {
                id,
                reply: Ok(result),
            },
            (Some(id), None, Some(error)) => Self::Answer {
                id,
                reply: Err(RpcError::from_host(error)),
            },
            (Some(id), Some(_), Some(_)) => Self::Answer {
                id,
                reply: Err(RpcError::new(
                    0,
                    "the host answered with both `result` and `error`",
                )),
            },
            (id, _, _) => invalid(
                id.unwrap_or(Value::Null),
                "neither a request or notification (`method`) nor a response (`id` with `result` or `error`)".to_owned(),
            ),
        }
    }
}

fn invalid(id: Value, why: String) -> Incoming {
    let error = RpcError::new(INVALID_REQUEST, format!("invalid request: {why}"));
    Incoming::Invalid { id, error }
}

/// A message's top-level members, each skipped over as text (serde skips
/// without recursing), for a line that cannot be read whole.
#[derive(serde::Deserialize)]
struct Envelope<'a> {
    #[serde(borrow, default)]
    id: Option<&'a serde_json::value::RawValue>,
    #[serde(borrow, default)]
    method: Option<&'a serde_json::value::RawValue>,
    #[serde(borrow, default)]
    result: Option<&'a serde_json::value::RawValue>,
    #[serde(borrow, default)]
    error: Option<&'a serde_json::value::RawValue>,
}

impl Envelope<'_> {
    fn answers(&self) -> bool {
        self.result.is_some() || self.error.is_some()
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn kind(text: &str) -> String {
        match Incoming::read(text) {
            Incoming::Request { id, method, .. } => format!("request {id} {method}"),
            Incoming::Notification { method, .. } => format!("notification {method}"),
            Incoming::Answer { id, reply: Ok(v) } => format!("answer {id} {v}"),
            Incoming::Answer { id, reply: Err(e) } => format!("failed {id} {}", e.message),
            Incoming::Invalid { id, error } => format!("invalid {id} {}", error.code),
            Incoming::Ignored => "ignored".to_owned(),
        }
    }

    #[test]
    fn each_line_is_what_its_members_say() {
        let cases = [
            (
                json!({ "jsonrpc": "2.0", "id": 1, "method": "m" }),
                "request 1 m",
            ),
            (
                json!({ "id": "a", "method": "m", "params": {} }),
                "request \"a\" m",
            ),
            (json!({ "method": "$/cancel" }), "notification $/cancel"),
            (json!({ "id": 2, "result": 5 }), "answer 2 5"),
            (
                json!({ "id": 2, "error": { "message": "no" } }),
                "failed 2 no",
            ),
            (
                json!({ "id": 2, "result": 5, "error": {} }),
                "failed 2 the host answered with both `result` and `error`",
            ),
            (json!({ "id": 3 }), "invalid 3 -32600"),
            (json!({ "id": [3], "method": "m" }), "invalid null -32600"),
            (json!([1]), "invalid null -32600"),
            (
                json!({ "jsonrpc": "1.0", "id": 4, "method": "m" }),
                "invalid 4 -32600",
            ),
            (json!({ "jsonrpc": "1.0", "method": "m" }), "ignored"),
            (json!({ "id": 5, "method": 7 }), "invalid 5 -32600"),
        ];
        for (message, expected) in cases {
            assert_eq!(kind(&message.to_string()), expected, "{message}");
        }
    }

    #[test]
    fn an_unreadable_line_is_answered_under_its_id() {
        // A lone surrogate: JSON in shape, not as a whole.
        let request = r#"{"id": 7, "method": "m", "params": "\ud800"}"#;
        assert_eq!(kind(request), "invalid 7 -32700");
        let answer = r#"{"id": 8, "result": "\ud800"}"#;
        assert!(kind(answer).starts_with("failed 8 the host's answer could not be read"));
        assert_eq!(kind("not json"), "invalid null -32700");
    }
}

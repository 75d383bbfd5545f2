//! `ptc serve`'s host protocol ([host-protocol.md](../../docs/host-protocol.md)):
//! every message of a session, each shape once and both directions: what
//! the host asks and how ptc reads it, what ptc answers, and what ptc asks
//! the host and how it reads the answer.
//!
//! Its rooms: this file, the envelopes ptc writes (a response, an error, a
//! request, a notification, each params type naming its [`Method`]) and
//! the JSON-RPC error either side sends; `incoming` (what a line from the
//! host is: a request, a notification, an answer, or an error to answer);
//! `params` (a request's params, read member by member so each mistake is
//! named); `methods` (each of the host's methods: its params read, its
//! result written); `asks` (ptc's requests to the host: a call of a host
//! tool, an approval, a cancellation, each with the reading of its
//! answer). Run events and outcomes are the contract's own types
//! ([`RunEvent`](crate::RunEvent), [`Outcome`](crate::Outcome)). The
//! contract sits below the tools, so the two shapes that hold a tool's
//! type (`tools/list`'s definitions, an escalation's grant) take it as a
//! parameter: the shape is fixed here, the type is the tool's.

pub(crate) mod asks;
pub(crate) mod incoming;
pub(crate) mod methods;
pub(crate) mod params;

use std::fmt::Display;

use serde::Serialize;
use serde_json::Value;

pub(crate) const PARSE_ERROR: i64 = -32700;
pub(crate) const INVALID_REQUEST: i64 = -32600;
pub(crate) const METHOD_NOT_FOUND: i64 = -32601;
const INVALID_PARAMS: i64 = -32602;
/// A request ptc could not carry out for want of something outside it:
/// the state store was unreachable.
pub(crate) const UNAVAILABLE: i64 = -32000;

/// Every message's `jsonrpc`.
const VERSION: &str = "2.0";

/// A message's params whose type says which method it is.
pub(crate) trait Method {
    /// The method's name on the wire.
    const NAME: &'static str;
}

impl<T: Method> Method for &T {
    const NAME: &'static str = T::NAME;
}

/// A run's events are `run/event` notifications.
impl Method for crate::contract::events::RunEvent {
    const NAME: &'static str = "run/event";
}

/// A result or params as the JSON they are written as.
pub(crate) fn to_json(shape: impl Serialize) -> Value {
    serde_json::to_value(shape).expect("a protocol shape serializes as JSON")
}

/// A response to the host's request `id`.
#[derive(Serialize)]
pub(crate) struct Response<'a, R: Serialize> {
    jsonrpc: &'static str,
    id: &'a Value,
    result: R,
}

impl<'a, R: Serialize> Response<'a, R> {
    pub(crate) fn new(id: &'a Value, result: R) -> Self {
        Self {
            jsonrpc: VERSION,
            id,
            result,
        }
    }
}

/// An error answering the host's request `id` (`null` when its own id was
/// not usable).
#[derive(Serialize)]
pub(crate) struct ErrorResponse<'a> {
    jsonrpc: &'static str,
    id: &'a Value,
    error: ErrorBody<'a>,
}

/// A JSON-RPC error's body; `data` says where in the params, when known.
#[derive(Serialize)]
struct ErrorBody<'a> {
    code: i64,
    message: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    data: Option<&'a Value>,
}

impl<'a> ErrorResponse<'a> {
    fn new(id: &'a Value, code: i64, message: &'a str, data: Option<&'a Value>) -> Self {
        Self {
            jsonrpc: VERSION,
            id,
            error: ErrorBody {
                code,
                message,
                data,
            },
        }
    }
}

/// ptc's own request to the host (`tools/call`, `tools/approve`): its
/// params name the method.
#[derive(Serialize)]
pub(crate) struct Request<P: Serialize> {
    jsonrpc: &'static str,
    id: u64,
    method: &'static str,
    params: P,
}

impl<P: Serialize + Method> Request<P> {
    pub(crate) fn new(id: u64, params: P) -> Self {
        Self {
            jsonrpc: VERSION,
            id,
            method: P::NAME,
            params,
        }
    }
}

/// ptc's notification to the host (`run/event`, `$/cancel`): its params
/// name the method.
#[derive(Serialize)]
pub(crate) struct Notification<P: Serialize> {
    jsonrpc: &'static str,
    method: &'static str,
    params: P,
}

impl<P: Serialize + Method> Notification<P> {
    pub(crate) fn new(params: P) -> Self {
        Self {
            jsonrpc: VERSION,
            method: P::NAME,
            params,
        }
    }
}

/// An invalid-params error's `data`: where in the params, and the tool.
#[derive(Serialize)]
pub(crate) struct ErrorAt<'a> {
    pub(crate) path: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) tool: Option<&'a str>,
}

/// A JSON-RPC error, either side's: one ptc answers with, or the `error`
/// member of the host's answer to one of ptc's requests.
#[derive(Debug, Clone)]
pub(crate) struct RpcError {
    pub(crate) code: i64,
    pub(crate) message: String,
    pub(crate) data: Option<Value>,
}

impl RpcError {
    pub(crate) fn new(code: i64, message: impl Display) -> Self {
        Self {
            code,
            message: message.to_string(),
            data: None,
        }
    }

    /// Invalid params; `message` names the method and the member.
    pub(crate) fn params(message: impl Display) -> Self {
        Self::new(INVALID_PARAMS, message)
    }

    /// With where in the params it went wrong.
    pub(crate) fn at(mut self, data: ErrorAt<'_>) -> Self {
        self.data = serde_json::to_value(data).ok();
        self
    }

    /// The `error` member of a response from the host.
    pub(crate) fn from_host(error: Value) -> Self {
        let code = error.get("code").and_then(Value::as_i64).unwrap_or(0);
        let message = match error.get("message").and_then(Value::as_str) {
            Some(message) => message.to_owned(),
            None => format!("the host answered with a malformed error: {error}"),
        };
        Self {
            code,
            message,
            data: error.get("data").cloned(),
        }
    }

    /// The error response answering request `id` with this error.
    pub(crate) fn response<'a>(&'a self, id: &'a Value) -> ErrorResponse<'a> {
        ErrorResponse::new(id, self.code, &self.message, self.data.as_ref())
    }
}

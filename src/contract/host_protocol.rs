//! `ptc serve`'s host protocol ([host-protocol.md](../../docs/host-protocol.md)):
//! every message ptc writes to its host, each shape once. The envelopes
//! (a response, an error, ptc's own requests and notifications), the
//! results of the host's methods, and what ptc asks the host (a call of a
//! host tool, an approval, a cancellation). Run events and outcomes are
//! the engine's serialized types ([`RunEvent`](crate::RunEvent),
//! [`Outcome`](crate::Outcome)). The contract sits below the tools, so a
//! shape that holds a tool's type (a definition, a content block, an
//! error, an escalation's grant) takes it as a parameter: the shape is
//! fixed here, the type is the tool's.

use serde::Serialize;
use serde_json::Value;

/// Every message's `jsonrpc`.
const VERSION: &str = "2.0";

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
    pub(crate) fn new(id: &'a Value, code: i64, message: &'a str, data: Option<&'a Value>) -> Self {
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

/// ptc's own request to the host (`tools/call`, `tools/approve`).
#[derive(Serialize)]
pub(crate) struct Request<'a, P: Serialize> {
    jsonrpc: &'static str,
    id: u64,
    method: &'a str,
    params: P,
}

impl<'a, P: Serialize> Request<'a, P> {
    pub(crate) fn new(id: u64, method: &'a str, params: P) -> Self {
        Self {
            jsonrpc: VERSION,
            id,
            method,
            params,
        }
    }
}

/// ptc's notification to the host (`run/event`, `$/cancel`).
#[derive(Serialize)]
pub(crate) struct Notification<'a, P: Serialize> {
    jsonrpc: &'static str,
    method: &'a str,
    params: P,
}

impl<'a, P: Serialize> Notification<'a, P> {
    pub(crate) fn new(method: &'a str, params: P) -> Self {
        Self {
            jsonrpc: VERSION,
            method,
            params,
        }
    }
}

/// `initialize`'s result: who answers, and in which protocol version.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Initialized {
    pub(crate) name: &'static str,
    pub(crate) version: &'static str,
    pub(crate) protocol_version: u64,
}

/// `tools/register`'s result: the names registered, the registry's size,
/// and what could not be checked (left out when nothing).
#[derive(Serialize)]
pub(crate) struct Registered<W: Serialize> {
    pub(crate) registered: Vec<String>,
    pub(crate) count: usize,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub(crate) warnings: Vec<W>,
}

/// `tools/remove`'s result: whether every name was registered.
#[derive(Serialize)]
pub(crate) struct Removed {
    pub(crate) removed: bool,
}

/// `tools/list`'s result: the visible definitions, in registration order.
#[derive(Serialize)]
pub(crate) struct Listed<D: Serialize> {
    pub(crate) tools: Vec<D>,
}

/// `tools/invoke`'s result for a tool (a `run_code` call answers with the
/// run's outcome): its content, and its value or its error.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Invoked<'a, C: Serialize, E: Serialize> {
    pub(crate) is_error: bool,
    pub(crate) content: Vec<C>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) value: Option<&'a Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) error: Option<&'a E>,
}

/// A result of a request that carried run events, with how many of them
/// the host's backlog had no room for (left out when none).
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct WithDropped<R: Serialize> {
    #[serde(flatten)]
    pub(crate) result: R,
    #[serde(skip_serializing_if = "is_zero")]
    pub(crate) dropped_events: usize,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// `tools/call`'s params: a call of a tool the host registered (`runId`
/// for a program's sub-call).
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct CallParams<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) run_id: Option<&'a str>,
    pub(crate) id: &'a str,
    pub(crate) name: &'a str,
    pub(crate) arguments: Value,
}

/// `tools/approve`'s params for a call whose policy is `ask`.
#[derive(Serialize)]
pub(crate) struct ApproveCall<'a> {
    #[serde(flatten)]
    pub(crate) call: CallParams<'a>,
    pub(crate) title: String,
    pub(crate) kind: &'static str,
}

impl<'a> ApproveCall<'a> {
    pub(crate) fn new(call: CallParams<'a>, title: String) -> Self {
        Self {
            call,
            title,
            kind: "call",
        }
    }
}

/// `tools/approve`'s params for a run that asks for escalation.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ApproveEscalation<'a, G: Serialize> {
    pub(crate) run_id: &'a str,
    pub(crate) kind: &'static str,
    pub(crate) code: &'a str,
    pub(crate) description: &'a str,
    pub(crate) justification: &'a str,
    pub(crate) grant: &'a G,
}

/// `$/cancel`'s params: ptc no longer waits for its request `id`.
#[derive(Serialize)]
pub(crate) struct Cancel {
    pub(crate) id: u64,
}

/// An invalid-params error's `data`: where in the params, and the tool.
#[derive(Serialize)]
pub(crate) struct ErrorAt<'a> {
    pub(crate) path: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) tool: Option<&'a str>,
}

//! A host-registered tool: each call is a `tools/call` request to the host,
//! and its answer, checked, is the call's result.

use std::sync::Arc;

use serde_json::Value;

use super::peer::Peer;
use crate::contract::call::{ErrorCode, ToolError, ToolOutput};
use crate::contract::host_protocol::asks::{CallParams, call_answer};
use crate::tool::context::ToolContext;
use crate::tool::handler::{BoxFuture, ToolHandler};

/// The params shared by `tools/call` and `tools/approve`.
pub(super) fn call_params<'a>(
    cx: &'a ToolContext,
    name: &'a str,
    arguments: Value,
) -> CallParams<'a> {
    CallParams {
        run_id: cx.run_id(),
        id: cx.call_id(),
        name,
        arguments,
    }
}

/// The handler of a host-registered tool: a `tools/call` request to the host.
pub(super) struct HostTool {
    pub(super) name: String,
    pub(super) peer: Arc<Peer>,
}

impl ToolHandler for HostTool {
    fn call(&self, arguments: Value, cx: ToolContext) -> BoxFuture<Result<ToolOutput, ToolError>> {
        let name = self.name.clone();
        let peer = Arc::clone(&self.peer);
        Box::pin(async move {
            let mut pending = peer.request(call_params(&cx, &name, arguments));
            let reply = tokio::select! {
                biased;
                _ = cx.cancellation().cancelled() => {
                    drop(pending);
                    return Err(ToolError::new(
                        ErrorCode::Aborted,
                        format!("call to `{name}` was cancelled"),
                    ));
                }
                reply = pending.answer() => reply,
            };
            call_answer(&name, reply)
        })
    }
}

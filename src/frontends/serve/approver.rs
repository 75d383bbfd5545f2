//! Approvals through the host: `ask` calls and escalations become
//! `tools/approve` requests.

use std::sync::Arc;

use super::host_tool::call_params;
use super::peer::Peer;
use crate::contract::host_protocol::Method;
use crate::contract::host_protocol::asks::{ApproveCall, ApproveEscalation, approval_answer};
use crate::tool::approval::{Approval, ApprovalRequest, Approver, Denial, EscalationRequest};
use crate::tool::context::ToolContext;
use crate::tool::handler::BoxFuture;
use serde::Serialize;

/// Answers `ask` decisions with a `tools/approve` request to the host.
pub(super) struct HostApprover {
    pub(super) peer: Arc<Peer>,
}

impl Approver for HostApprover {
    fn approve(&self, request: ApprovalRequest) -> BoxFuture<Approval> {
        let peer = Arc::clone(&self.peer);
        Box::pin(async move {
            let ApprovalRequest {
                call,
                context,
                title,
                ..
            } = request;
            let name = call.name;
            let params = ApproveCall::new(call_params(&context, &name, call.arguments), title);
            let refusal = format!("the host refused the call to `{name}`");
            ask_host(&peer, params, &context, &format!("`{name}`"), refusal).await
        })
    }

    fn escalate(&self, request: EscalationRequest) -> BoxFuture<Approval> {
        let peer = Arc::clone(&self.peer);
        Box::pin(async move {
            let params = ApproveEscalation::new(
                &request.run_id,
                &request.code,
                &request.description,
                &request.justification,
                &request.grant,
            );
            let refusal = "the host refused the escalation".to_owned();
            ask_host(&peer, params, &request.context, "the escalation", refusal).await
        })
    }
}

/// Sends `tools/approve` and reads the host's answer about `what` (`` `x` ``
/// or `the escalation`; [`approval_answer`]: anything but `approved: true`
/// refuses, by default with `refusal`).
async fn ask_host(
    peer: &Arc<Peer>,
    params: impl Serialize + Method,
    context: &ToolContext,
    what: &str,
    refusal: String,
) -> Approval {
    let refused = |reason: String| Approval::Refused(Denial::new(reason));
    let mut pending = peer.request(params);
    let reply = tokio::select! {
        biased;
        _ = context.cancellation().cancelled() => {
            drop(pending);
            return refused(format!("the approval of {what} was abandoned"));
        }
        reply = pending.answer() => reply,
    };
    match approval_answer(reply, what, refusal) {
        Ok(()) => Approval::Approved,
        Err(reason) => refused(reason),
    }
}

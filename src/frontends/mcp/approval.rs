//! `ask` tools approved through MCP elicitation: the client shows the user a
//! form with no fields, whose message says what the call or escalation would
//! do, in full ([`ApprovalRequest::shown_text`]), and asks "Allow this
//! call?": Accept allows it, Decline (or Cancel) refuses. A run asking for
//! escalation is put to the user the same way, before it starts.

use std::collections::BTreeMap;

use rmcp::model::{ElicitRequestParams, ElicitResult, ElicitationAction, ElicitationSchema};
use rmcp::service::ElicitationMode;

use crate::sources::mcp::McpCaller;
use crate::tool::approval::{Approval, ApprovalRequest, Approver, Denial, EscalationRequest};
use crate::tool::context::ToolContext;
use crate::tool::handler::BoxFuture;

/// Answers `ask` decisions (and runs asking for escalation) by eliciting an
/// answer from the client that made the call; refuses as `DENIED`
/// when that client cannot be asked.
pub(super) struct ElicitingApprover;

/// The words of one approval's refusals.
struct Subject {
    /// `tool `x` needs approval`, `escalation needs approval`.
    needs: String,
    /// `` `x` ``, `the escalation`: what an approval is of.
    of: String,
    /// `the call to `x``, `the escalation`: what the user declines.
    declined: String,
}

impl Approver for ElicitingApprover {
    fn approve(&self, request: ApprovalRequest) -> BoxFuture<Approval> {
        Box::pin(async move {
            let name = &request.call.name;
            let message = format!("{}\nAllow this call?", request.shown_text());
            let subject = Subject {
                needs: format!("tool `{name}` needs approval"),
                of: format!("`{name}`"),
                declined: format!("the call to `{name}`"),
            };
            elicit(&request.context, message, subject).await
        })
    }

    fn escalate(&self, request: EscalationRequest) -> BoxFuture<Approval> {
        Box::pin(async move {
            let subject = Subject {
                needs: "escalation needs approval".to_owned(),
                of: "the escalation".to_owned(),
                declined: "the escalation".to_owned(),
            };
            let message = format!("{}\nAllow the escalated run?", request.shown_text());
            elicit(&request.context, message, subject).await
        })
    }
}

/// Asks the client behind `context` with a form showing `message`.
async fn elicit(context: &ToolContext, message: String, subject: Subject) -> Approval {
    let Subject {
        needs,
        of,
        declined,
    } = subject;
    let Some(caller) = context.caller::<McpCaller>() else {
        return refused(format!("{needs} and no approver is available"));
    };
    let peer = caller.peer.clone();
    if !peer
        .supported_elicitation_modes()
        .contains(&ElicitationMode::Form)
    {
        return refused(format!(
            "{needs}, which is not available from this MCP client (it does not support elicitation)"
        ));
    }
    let form = form(message);
    let cancel = context.cancellation().clone();
    let answer = tokio::select! {
        biased;
        _ = cancel.cancelled() => return refused(format!("the approval of {of} was abandoned")),
        answer = peer.create_elicitation(form) => answer,
    };
    match answer {
        Ok(answer) => decide(&of, &declined, &answer),
        Err(error) => refused(format!("the approval of {of} failed: {error}")),
    }
}

fn refused(reason: String) -> Approval {
    Approval::Refused(Denial::new(reason))
}

/// The form with this message and no fields (MCP allows a
/// `requestedSchema` without properties): the question is the message's
/// last line, and the client's Accept and Decline buttons answer it, with
/// nothing to fill in or tick.
fn form(message: String) -> ElicitRequestParams {
    ElicitRequestParams::FormElicitationParams {
        meta: None,
        message,
        requested_schema: ElicitationSchema::new(BTreeMap::new()),
    }
}

/// The user's answer: Accept allows (whatever content came with it),
/// Decline refuses, anything else (Cancel, the form dismissed) abandons.
fn decide(of: &str, declined: &str, answer: &ElicitResult) -> Approval {
    match answer.action {
        ElicitationAction::Accept => Approval::Approved,
        ElicitationAction::Decline => refused(format!("the user declined {declined}")),
        _ => refused(format!("the user cancelled the approval of {of}")),
    }
}

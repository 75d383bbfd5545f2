//! `ask` tools approved through MCP elicitation: the client shows the user a
//! yes/no form with what the call or escalation would do, in full
//! ([`ApprovalRequest::shown_text`]). A run asking for escalation is put to
//! the user the same way, before it starts.

use rmcp::model::{ElicitRequestParams, ElicitResult, ElicitationAction, ElicitationSchema};
use rmcp::service::ElicitationMode;
use rmcp::{Peer, RoleServer};
use serde_json::Value;

use crate::tool::call::ToolContext;
use crate::tool::handler::BoxFuture;
use crate::tool::pipeline::{Approval, ApprovalRequest, Approver, Denial, EscalationRequest};

/// The MCP client a call came from, passed as the run's caller context so
/// the approver asks the client that made the call.
pub(super) struct McpCaller {
    pub(super) peer: Peer<RoleServer>,
}

/// The form's one field: whether the user allows the call.
const APPROVE: &str = "approve";

/// Answers `ask` decisions (and runs asking for escalation) by eliciting a
/// yes/no answer from the client that made the call; refuses as `DENIED`
/// when that client cannot be asked.
pub(super) struct ElicitingApprover;

/// The words of one approval's refusals.
struct Subject {
    /// `tool `x` needs approval`, `escalation needs approval`.
    needs: String,
    /// `` `x` ``, `the escalation`: what an approval is of.
    of: String,
    /// `the call to `x``, `the escalation`: what the user refuses.
    refused: String,
}

impl Approver for ElicitingApprover {
    fn approve(&self, request: ApprovalRequest) -> BoxFuture<Approval> {
        Box::pin(async move {
            let name = &request.call.name;
            let message = format!("{}\nAllow this call?", request.shown_text());
            let subject = Subject {
                needs: format!("tool `{name}` needs approval"),
                of: format!("`{name}`"),
                refused: format!("the call to `{name}`"),
            };
            elicit(&request.context, message, subject).await
        })
    }

    fn escalate(&self, request: EscalationRequest) -> BoxFuture<Approval> {
        Box::pin(async move {
            let subject = Subject {
                needs: "escalation needs approval".to_owned(),
                of: "the escalation".to_owned(),
                refused: "the escalation".to_owned(),
            };
            let message = format!("{}\nAllow the escalated run?", request.shown_text());
            elicit(&request.context, message, subject).await
        })
    }
}

/// Asks the client behind `context` with a yes/no form showing `message`.
async fn elicit(context: &ToolContext, message: String, subject: Subject) -> Approval {
    let Subject {
        needs,
        of,
        refused: what,
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
    let Some(form) = form(message) else {
        return refused(format!("{needs} and no form could be made"));
    };
    let cancel = context.cancellation().clone();
    let answer = tokio::select! {
        biased;
        _ = cancel.cancelled() => return refused(format!("the approval of {of} was abandoned")),
        answer = peer.create_elicitation(form) => answer,
    };
    match answer {
        Ok(answer) => decide(&of, &what, answer),
        Err(error) => refused(format!("the approval of {of} failed: {error}")),
    }
}

fn refused(reason: String) -> Approval {
    Approval::Refused(Denial::new(reason))
}

/// The yes/no form with this message.
fn form(message: String) -> Option<ElicitRequestParams> {
    let schema = ElicitationSchema::builder()
        .required_bool(APPROVE)
        .build()
        .ok()?;
    Some(ElicitRequestParams::FormElicitationParams {
        meta: None,
        message,
        requested_schema: schema,
    })
}

/// The user's answer: only an accepted form with `approve: true` approves.
fn decide(of: &str, what: &str, answer: ElicitResult) -> Approval {
    match answer.action {
        ElicitationAction::Accept => {
            let approved = answer
                .content
                .as_ref()
                .and_then(|content| content.get(APPROVE))
                .and_then(Value::as_bool);
            match approved {
                Some(true) => Approval::Approved,
                _ => refused(format!("the user refused {what}")),
            }
        }
        ElicitationAction::Decline => refused(format!("the user declined {what}")),
        _ => refused(format!("the user cancelled the approval of {of}")),
    }
}

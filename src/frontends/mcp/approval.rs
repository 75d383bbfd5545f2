//! `ask` tools approved through MCP elicitation: the client shows the user a
//! yes/no form with the call's title, the tool's name and its arguments.

use rmcp::model::{ElicitRequestParams, ElicitResult, ElicitationAction, ElicitationSchema};
use rmcp::service::ElicitationMode;
use rmcp::{Peer, RoleServer};
use serde_json::Value;

use crate::tool::handler::BoxFuture;
use crate::tool::pipeline::{Approval, ApprovalRequest, Approver, Denial};

/// The MCP client a call came from, passed as the run's caller context so
/// the approver asks the client that made the call.
pub(super) struct McpCaller {
    pub(super) peer: Peer<RoleServer>,
}

/// The form's one field: whether the user allows the call.
const APPROVE: &str = "approve";

/// How much of the arguments the form shows.
const SHOWN_ARGUMENTS: usize = 2000;

/// Answers `ask` decisions by eliciting a yes/no answer from the client
/// that made the call; refuses as `DENIED` when that client cannot be asked.
pub(super) struct ElicitingApprover;

impl Approver for ElicitingApprover {
    fn approve(&self, request: ApprovalRequest) -> BoxFuture<Approval> {
        Box::pin(async move {
            let name = request.call.name.clone();
            let Some(caller) = request.context.caller::<McpCaller>() else {
                return refused(format!(
                    "tool `{name}` needs approval and no approver is available"
                ));
            };
            let peer = caller.peer.clone();
            if !peer
                .supported_elicitation_modes()
                .contains(&ElicitationMode::Form)
            {
                return refused(format!(
                    "tool `{name}` needs approval, which is not available from this MCP client (it does not support elicitation)"
                ));
            }
            let Some(form) = form(&name, &request.title, &request.call.arguments) else {
                return refused(format!(
                    "tool `{name}` needs approval and no form could be made"
                ));
            };
            let cancel = request.context.cancellation().clone();
            let answer = tokio::select! {
                biased;
                _ = cancel.cancelled() => {
                    return refused(format!("the approval of `{name}` was abandoned"));
                }
                answer = peer.create_elicitation(form) => answer,
            };
            match answer {
                Ok(answer) => decide(&name, answer),
                Err(error) => refused(format!("the approval of `{name}` failed: {error}")),
            }
        })
    }
}

fn refused(reason: String) -> Approval {
    Approval::Refused(Denial::new(reason))
}

/// The yes/no form: the message gives the call's title, names the tool
/// and shows its arguments.
fn form(name: &str, title: &str, arguments: &Value) -> Option<ElicitRequestParams> {
    let mut shown = arguments.to_string();
    if shown.len() > SHOWN_ARGUMENTS {
        let mut cut = SHOWN_ARGUMENTS;
        while !shown.is_char_boundary(cut) {
            cut -= 1;
        }
        shown.truncate(cut);
        shown.push('…');
    }
    let schema = ElicitationSchema::builder()
        .required_bool(APPROVE)
        .build()
        .ok()?;
    Some(ElicitRequestParams::FormElicitationParams {
        meta: None,
        message: format!("Allow {title}? (the tool call `{name}` with arguments {shown})"),
        requested_schema: schema,
    })
}

/// The user's answer: only an accepted form with `approve: true` approves.
fn decide(name: &str, answer: ElicitResult) -> Approval {
    match answer.action {
        ElicitationAction::Accept => {
            let approved = answer
                .content
                .as_ref()
                .and_then(|content| content.get(APPROVE))
                .and_then(Value::as_bool);
            match approved {
                Some(true) => Approval::Approved,
                _ => refused(format!("the user refused the call to `{name}`")),
            }
        }
        ElicitationAction::Decline => refused(format!("the user declined the call to `{name}`")),
        _ => refused(format!("the user cancelled the approval of `{name}`")),
    }
}

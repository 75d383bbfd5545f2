//! `ask` tools approved through MCP elicitation: the client shows the user a
//! yes/no form with the call's title, the tool's name and its arguments. A
//! run asking for escalation is put to the user the same way, before it
//! starts.

use rmcp::model::{ElicitRequestParams, ElicitResult, ElicitationAction, ElicitationSchema};
use rmcp::service::ElicitationMode;
use rmcp::{Peer, RoleServer};
use serde_json::Value;

use crate::limits::size;
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

/// How much of the arguments (or an escalated program) the form shows.
const SHOWN_ARGUMENTS: usize = 2000;

/// How much of an escalation's justification and description the form shows.
const SHOWN_JUSTIFICATION: usize = 1000;

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
            let message = format!(
                "Allow {}? (the tool call `{name}` with arguments {})",
                request.title,
                visible(&shortened(
                    request.call.arguments.to_string(),
                    SHOWN_ARGUMENTS
                ))
            );
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
            elicit(&request.context, escalation_message(&request), subject).await
        })
    }
}

/// The form's message for an escalation: the model's justification, what
/// the run would get, and the program.
fn escalation_message(request: &EscalationRequest) -> String {
    let tools = match request.tools.as_slice() {
        [] => "no escalation-only tools".to_owned(),
        names => format!("the tools {}", names.join(", ")),
    };
    format!(
        "Allow an escalated run? The model says: {}\nIt would get {tools}, a deadline of {} ms, {} of memory and {} of output.\nThe program ({}):\n{}",
        visible(&shortened(
            request.justification.clone(),
            SHOWN_JUSTIFICATION
        )),
        request.timeout_ms,
        size(request.memory_limit_bytes as u64),
        size(request.output_cap_bytes as u64),
        visible(&shortened(request.description.clone(), SHOWN_JUSTIFICATION)),
        visible(&shortened(request.code.clone(), SHOWN_ARGUMENTS)),
    )
}

/// The model's text as a form shows it: what a title escapes (control
/// characters — C1 ones like U+009B too, which JSON leaves —, line and
/// paragraph separators, bidirectional controls) written as `\u{1b}`,
/// except line breaks and tabs. Clients that draw the form on a terminal
/// would otherwise obey an escape sequence in it, or let a right-to-left
/// override reorder what the user approves.
fn visible(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if crate::tool::title::is_hostile(c) && c != '\n' && c != '\t' {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    out
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

/// `text` cut to at most `limit` bytes (at a character boundary), with `…`.
fn shortened(mut text: String, limit: usize) -> String {
    if text.len() > limit {
        let mut cut = limit;
        while !text.is_char_boundary(cut) {
            cut -= 1;
        }
        text.truncate(cut);
        text.push('…');
    }
    text
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tool::call::ToolContext;
    use tokio_util::sync::CancellationToken;

    #[test]
    fn the_escalation_form_shows_the_models_text_escaped() {
        let request = EscalationRequest {
            run_id: "run-1".to_owned(),
            code: "const a = 1\n\treturn '\u{1b}[2J\u{9b}31m'".to_owned(),
            description: "tidy \u{202e}gnp.exe".to_owned(),
            justification: "ship\u{2028}the release\u{7}".to_owned(),
            tools: vec!["deploy".to_owned()],
            timeout_ms: 1000,
            memory_limit_bytes: 1 << 20,
            output_cap_bytes: 1 << 10,
            context: ToolContext::new("run-1", CancellationToken::new(), None),
        };
        let message = escalation_message(&request);
        assert!(
            message.contains("The model says: ship\\u{2028}the release\\u{7}\n"),
            "{message}"
        );
        assert!(
            message.contains("The program (tidy \\u{202e}gnp.exe):"),
            "{message}"
        );
        assert!(
            message.ends_with("const a = 1\n\treturn '\\u{1b}[2J\\u{9b}31m'"),
            "{message}"
        );
        assert!(!message.contains(['\u{1b}', '\u{9b}', '\u{7}', '\u{202e}', '\u{2028}']));
    }
}

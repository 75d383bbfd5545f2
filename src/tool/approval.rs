//! What approving a call is, apart from how it is asked (`approvals`) and
//! worded (`approval_text`): the policy's decision, what an approver is
//! asked about (a call, or a run's escalation), its answer, and the
//! [`Approver`] that gives it.

use super::definition::ToolDefinition;
use super::handler::BoxFuture;
use crate::contract::call::{Call, ErrorCode, ToolError};
use crate::tool::context::ToolContext;

/// A refusal: a model-facing reason plus optional user-facing detail.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Denial {
    /// Shown to the model.
    pub reason: String,
    /// Shown to the user only.
    pub detail: Option<String>,
}

impl Denial {
    /// A denial with this model-facing reason.
    pub fn new(reason: impl Into<String>) -> Self {
        Self {
            reason: reason.into(),
            detail: None,
        }
    }

    /// Attaches user-facing detail. By default, none.
    pub fn with_detail(mut self, detail: impl Into<String>) -> Self {
        self.detail = Some(detail.into());
        self
    }

    pub(crate) fn into_error(self) -> ToolError {
        ToolError {
            code: ErrorCode::Denied,
            message: self.reason,
            detail: self.detail,
        }
    }
}

/// The pre-execute decision for one call.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Decision {
    /// Go on.
    Allow,
    /// Refuse with `DENIED`.
    Deny(Denial),
    /// Ask the host's approver and wait for its answer.
    Ask,
}

/// The approver's answer to an `ask` decision.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Approval {
    /// Run the call.
    Approved,
    /// Refuse it; the denial's reason is the model-facing message.
    Refused(Denial),
}

/// What an approver is asked about.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct ApprovalRequest {
    /// The call awaiting approval.
    pub call: Call,
    /// The tool's definition.
    pub definition: ToolDefinition,
    /// How the call reads to a person ([`ToolDefinition::title_of_call`]),
    /// for the prompt.
    pub title: String,
    /// The call's context (its cancellation signal fires when the wait ends).
    pub context: ToolContext,
}

/// What an approver is asked about when a run requests escalation
/// (`sandboxPermissions: "require_escalated"`), before the program starts.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct EscalationRequest {
    /// The run's id.
    pub run_id: String,
    /// The program, as the model wrote it.
    pub code: String,
    /// The model's summary of what the program does.
    pub description: String,
    /// The model's reason for escalation (never blank, nor only invisible
    /// format characters).
    pub justification: String,
    /// What would be granted.
    pub grant: EscalationGrant,
    /// The run's context: its id as call id and run id, the caller's
    /// context, and a cancellation signal that fires when the run is
    /// cancelled (then the answer is no longer awaited).
    pub context: ToolContext,
}

/// What an escalation would grant, shown to whoever decides it: in ptc's
/// words ([`sentence`](Self::sentence), the start of
/// [`EscalationRequest::shown_text`]) and, serialized, as `tools/approve`'s
/// `grant` (`tools`, `timeoutMs`, `memoryLimitBytes`, `outputCapBytes`).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct EscalationGrant {
    /// The escalation-only tools visible in the run's scope, in
    /// registration order.
    pub tools: Vec<String>,
    /// The run's deadline in ms.
    pub timeout_ms: u64,
    /// The escalated heap limit in bytes.
    pub memory_limit_bytes: usize,
    /// The escalated output cap in bytes.
    pub output_cap_bytes: usize,
}

/// Decides calls whose policy is `ask`, and runs that request escalation.
/// Implemented for closures `Fn(ApprovalRequest) -> impl Future<Output =
/// Approval>`, which refuse every escalation.
pub trait Approver: Send + Sync + 'static {
    /// Answers one request. The pipeline stops waiting when the call is cancelled.
    fn approve(&self, request: ApprovalRequest) -> BoxFuture<Approval>;

    /// Answers a run's request for escalation. The engine stops waiting
    /// when the run is cancelled. By default, refuses: an approver written
    /// for `ask` calls never grants escalation by accident.
    fn escalate(&self, request: EscalationRequest) -> BoxFuture<Approval> {
        let _ = request;
        Box::pin(std::future::ready(Approval::Refused(Denial::new(
            "escalation needs approval and this host's approver does not decide escalations",
        ))))
    }
}

impl<F, Fut> Approver for F
where
    F: Fn(ApprovalRequest) -> Fut + Send + Sync + 'static,
    Fut: std::future::Future<Output = Approval> + Send + 'static,
{
    fn approve(&self, request: ApprovalRequest) -> BoxFuture<Approval> {
        Box::pin(self(request))
    }
}

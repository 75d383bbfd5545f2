//! Escalation (contracts §6): a run that asks for `sandboxPermissions:
//! "require_escalated"` goes to the host's approver before anything of it
//! runs, with what would be granted.

use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use std::time::Duration;

use futures::FutureExt;

use super::report::Report;
use super::request::{RunOptions, RunRequest};
use crate::contract::outcome::{FailureKind, Outcome};
use crate::limits::Tier;
use crate::tool::approval::{Approval, Denial, EscalationGrant, EscalationRequest};
use crate::tool::approval_text::too_long_for_escalation;
use crate::tool::context::ToolContext;
use crate::tool::registry::Scope;

/// The approver's answer to a run's escalation.
pub(super) enum Verdict {
    /// Run it escalated, with the escalation-only tools the approver was
    /// shown (a tool registered while it decided was not approved).
    Granted(Vec<String>),
    /// Do not run it; the model-facing reason.
    Refused(String),
    /// The run was cancelled while the approver was deciding.
    Cancelled,
}

impl Verdict {
    /// The run's outcome if it may not start: `denied` with the reason, or
    /// `cancelled`.
    pub(super) fn outcome(self, report: &Report) -> Option<Outcome> {
        match self {
            Verdict::Granted(_) => None,
            Verdict::Refused(reason) => {
                Some(report.failure(FailureKind::Denied, Some(reason), None, 0))
            }
            Verdict::Cancelled => Some(report.failure(FailureKind::Cancelled, None, None, 0)),
        }
    }
}

/// What one escalated run would be granted.
pub(super) struct Grant<'a> {
    pub(super) run_id: &'a Arc<str>,
    pub(super) timeout: Duration,
    pub(super) tier: &'a Tier,
}

/// Asks the scope's approver to escalate `request`; no approver refuses.
/// A panicking approver refuses too, saying so.
pub(super) async fn ask(
    scope: &Scope,
    request: &RunRequest,
    grant: Grant<'_>,
    options: &RunOptions,
) -> Verdict {
    let Some(approver) = scope.registry().hooks().approver.clone() else {
        return Verdict::Refused("escalation needs approval and no approver is available".into());
    };
    // What cannot be shown to a person in full is not put to one.
    let (code, description) = (&request.code, &request.description);
    if let Some(reason) = too_long_for_escalation(code, description, &request.justification) {
        return Verdict::Refused(reason);
    }
    let tools: Vec<String> = scope
        .definitions()
        .into_iter()
        .filter(|d| d.escalation_only)
        .map(|d| d.name)
        .collect();
    let shown = tools.clone();
    let cancel = options.cancel.child_token();
    let context = ToolContext {
        call_id: Arc::clone(grant.run_id),
        cancel: cancel.clone(),
        caller: options.caller.clone(),
        run_id: Some(Arc::clone(grant.run_id)),
        progress: None,
    };
    let asked = EscalationRequest {
        run_id: grant.run_id.to_string(),
        code: request.code.clone(),
        description: request.description.clone(),
        justification: request.justification.clone(),
        grant: EscalationGrant {
            tools,
            timeout_ms: u64::try_from(grant.timeout.as_millis()).unwrap_or(u64::MAX),
            memory_limit_bytes: grant.tier.memory_limit_bytes,
            output_cap_bytes: grant.tier.output_cap_bytes,
        },
        context,
    };
    let gate = Arc::clone(&scope.registry().hooks().approvals);
    let answer = gate.wait("escalation needs approval", || async move {
        match std::panic::catch_unwind(AssertUnwindSafe(|| approver.escalate(asked))) {
            Ok(answer) => AssertUnwindSafe(answer)
                .catch_unwind()
                .await
                .unwrap_or_else(|_| panicked()),
            Err(_) => panicked(),
        }
    });
    let verdict = tokio::select! {
        biased;
        _ = options.cancel.cancelled() => Verdict::Cancelled,
        answer = answer => match answer {
            Approval::Refused(denial) => Verdict::Refused(denial.reason),
            _ => Verdict::Granted(shown),
        },
    };
    // The approver's signal fires once the answer is no longer awaited.
    cancel.cancel();
    verdict
}

fn panicked() -> Approval {
    Approval::Refused(Denial::new(
        "escalation needs approval and the approver failed (it panicked)",
    ))
}

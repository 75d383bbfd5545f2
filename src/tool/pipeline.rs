//! The call pipeline (contracts §3): unknown-name check → argument
//! validation → policy → guards → execute wrappers → handler (per-tool
//! timeout) → output validation → post-execute → result observers.

use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use futures::FutureExt;
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use super::approval::{Approval, ApprovalRequest, Approver, Decision, Denial};
use super::approval_text;
use super::approvals::Gate;
use super::definition::{Policy, ToolDefinition, quoted_name};
use super::handler::BoxFuture;
use super::registered::RegisteredTool;
use crate::contract::call::{Call, ErrorCode, ToolError, ToolResult};
use crate::json::json_type;
use crate::tool::context::{CallerContext, ProgressSink, ToolContext};

/// The rest of the pipeline, as seen by an execute wrapper. Cloneable, so a
/// wrapper may run it more than once (retries).
#[derive(Clone)]
pub struct Next {
    chain: Arc<Chain>,
    index: usize,
}

struct Chain {
    wrappers: Arc<[ExecuteWrapper]>,
    tool: Arc<RegisteredTool>,
    arguments: Value,
    cx: ToolContext,
    dispatched: Arc<AtomicBool>,
}

impl Next {
    /// Runs the remaining wrappers and then the handler.
    pub fn run(&self) -> BoxFuture<ToolResult> {
        let chain = Arc::clone(&self.chain);
        match chain.wrappers.get(self.index) {
            Some(wrapper) => {
                let next = Next {
                    chain: Arc::clone(&chain),
                    index: self.index + 1,
                };
                let call = Call::new(
                    chain.cx.call_id(),
                    chain.tool.definition.name.clone(),
                    chain.arguments.clone(),
                );
                wrapper(&call, next)
            }
            None => {
                chain.dispatched.store(true, Ordering::Release);
                Box::pin(dispatch(
                    Arc::clone(&chain.tool),
                    chain.arguments.clone(),
                    chain.cx.clone(),
                ))
            }
        }
    }
}

/// Overrides the tools' own `policy` for each call.
pub type PolicyHook = Arc<dyn Fn(&Call, &ToolDefinition) -> Decision + Send + Sync>;
/// A guard: may only deny, so a denial can never be turned back into permission.
pub type Guard = Arc<dyn Fn(&Call, &ToolDefinition) -> Result<(), Denial> + Send + Sync>;
/// Runs around dispatch (timeouts, retries, metrics); must call `next.run()` to dispatch.
pub type ExecuteWrapper = Arc<dyn Fn(&Call, Next) -> BoxFuture<ToolResult> + Send + Sync>;
/// Inspects or replaces a result after output validation.
pub type PostExecute = Arc<dyn Fn(&Call, ToolResult) -> ToolResult + Send + Sync>;
/// Sees the final, immutable result of every call.
pub type ResultObserver = Arc<dyn Fn(&Call, &ToolResult) + Send + Sync>;

/// The hooks of one registry, replaced as a whole when one changes.
#[derive(Clone, Default)]
pub(crate) struct Hooks {
    pub(crate) policy: Option<PolicyHook>,
    pub(crate) approver: Option<Arc<dyn Approver>>,
    /// The approvals waiting for an answer, within their limits.
    pub(crate) approvals: Arc<Gate>,
    pub(crate) guards: Vec<Guard>,
    pub(crate) wrappers: Arc<[ExecuteWrapper]>,
    pub(crate) post: Vec<PostExecute>,
    pub(crate) observers: Vec<ResultObserver>,
}

/// How one call is made: its cancellation signal and the caller's context.
#[derive(Clone, Default)]
#[non_exhaustive]
pub struct CallOptions {
    /// Cancels the call. By default, a signal that never fires.
    pub cancel: CancellationToken,
    /// Passed to handlers by reference, never logged. By default, none.
    pub caller: Option<CallerContext>,
    /// The run this call belongs to, for sub-calls. By default, none.
    pub run_id: Option<Arc<str>>,
    /// The call belongs to an approved escalated run: tools marked
    /// [`escalation_only`](ToolDefinition::escalation_only) may run (their
    /// policy still applies). By default, `false`: such a call is `DENIED`.
    pub escalated: bool,
    /// Where a handler's progress notes go
    /// ([`ToolContext::report_progress`]): the run's events, an
    /// [`EventSink`](crate::EventSink). By default, none.
    pub progress: Option<Arc<dyn ProgressSink>>,
}

impl CallOptions {
    /// Options with this cancellation signal.
    pub fn with_cancel(mut self, cancel: CancellationToken) -> Self {
        self.cancel = cancel;
        self
    }

    /// Options with this caller context.
    pub fn with_caller(mut self, caller: CallerContext) -> Self {
        self.caller = Some(caller);
        self
    }
}

/// Runs one call through the whole pipeline. `tool` is `None` when no visible
/// tool has the call's name; then `absent` says why, when the registry knows
/// (its source is starting or failed), instead of "unknown tool".
pub(crate) async fn execute(
    tool: Option<Arc<RegisteredTool>>,
    absent: Option<String>,
    hooks: Arc<Hooks>,
    call: Call,
    options: CallOptions,
) -> ToolResult {
    let dispatched = Arc::new(AtomicBool::new(false));
    let cancel = options.cancel.clone();
    let core = AssertUnwindSafe(pre_and_dispatch(
        tool,
        absent,
        &hooks,
        &call,
        options,
        Arc::clone(&dispatched),
    ))
    .catch_unwind();
    let result = tokio::select! {
        biased;
        _ = cancel.cancelled() => Err(aborted(&call.name, dispatched.load(Ordering::Acquire))),
        r = core => r.unwrap_or_else(|panic| Err(ToolError::tool(format!(
            "tool `{}` failed: the pipeline panicked: {}", call.name, panic_message(&panic)
        )))),
    };
    post_execute(&hooks, &call, result)
}

fn post_execute(hooks: &Hooks, call: &Call, mut result: ToolResult) -> ToolResult {
    for post in &hooks.post {
        // Monotonic, like the guards: a hook may reword a denial, never
        // turn it into a result the tool did not give.
        let denial = match &result {
            Err(e) if e.code == ErrorCode::Denied => Some(e.clone()),
            _ => None,
        };
        result = post(call, result);
        if let (Some(denial), Ok(_)) = (denial, &result) {
            result = Err(denial);
        }
    }
    for observer in &hooks.observers {
        observer(call, &result);
    }
    result
}

/// A call cancelled: `ABORTED` once its handler ran, else
/// `ABORTED_BEFORE_DISPATCH` (a run that closed before it started, too).
pub(crate) fn aborted(name: &str, dispatched: bool) -> ToolError {
    if dispatched {
        ToolError::new(
            ErrorCode::Aborted,
            format!("call to {} was cancelled", quoted_name(name)),
        )
    } else {
        ToolError::new(
            ErrorCode::AbortedBeforeDispatch,
            format!(
                "call to {} was cancelled before it started",
                quoted_name(name)
            ),
        )
    }
}

async fn pre_and_dispatch(
    tool: Option<Arc<RegisteredTool>>,
    absent: Option<String>,
    hooks: &Hooks,
    call: &Call,
    options: CallOptions,
    dispatched: Arc<AtomicBool>,
) -> ToolResult {
    let tool = checked(tool, absent, call)?;
    if tool.definition.escalation_only && !options.escalated {
        return Err(ToolError::denied(needs_escalation(&tool.definition.name)));
    }
    let cx = ToolContext {
        call_id: call.id.as_str().into(),
        cancel: options.cancel,
        caller: options.caller,
        run_id: options.run_id,
        progress: options.progress,
    };
    match decide(hooks, call, &tool) {
        Decision::Allow => {}
        Decision::Deny(denial) => return Err(denial.into_error()),
        Decision::Ask => ask(hooks, call, &tool, &cx).await?,
    }
    for guard in &hooks.guards {
        guard(call, &tool.definition).map_err(Denial::into_error)?;
    }

    let result = if hooks.wrappers.is_empty() {
        dispatched.store(true, Ordering::Release);
        dispatch(Arc::clone(&tool), call.arguments.clone(), cx).await
    } else {
        Next {
            chain: Arc::new(Chain {
                wrappers: Arc::clone(&hooks.wrappers),
                tool: Arc::clone(&tool),
                arguments: call.arguments.clone(),
                cx,
                dispatched,
            }),
            index: 0,
        }
        .run()
        .await
    };
    let output = result?;
    if let Some(Err(message)) = tool.output.as_ref().map(|s| s.check(&output.value)) {
        return Err(ToolError::new(
            ErrorCode::InvalidOutput,
            format!(
                "`{}` returned an invalid value: {message}",
                tool.definition.name
            ),
        ));
    }
    Ok(output)
}

/// The tool, if it exists and the call's arguments are valid for it.
fn checked(
    tool: Option<Arc<RegisteredTool>>,
    absent: Option<String>,
    call: &Call,
) -> Result<Arc<RegisteredTool>, ToolError> {
    let Some(tool) = tool else {
        let message = absent.unwrap_or_else(|| format!("unknown tool {}", quoted_name(&call.name)));
        return Err(ToolError::new(ErrorCode::UnknownTool, message));
    };
    let name = &tool.definition.name;
    if !call.arguments.is_object() {
        return Err(ToolError::new(
            ErrorCode::InvalidArguments,
            format!(
                "invalid arguments for `{name}`: expected a JSON object, got {}",
                json_type(&call.arguments)
            ),
        ));
    }
    if let Err(message) = tool.arguments.check(&call.arguments) {
        return Err(ToolError::new(
            ErrorCode::InvalidArguments,
            format!("invalid arguments for `{name}`: {message}"),
        ));
    }
    Ok(tool)
}

/// Why an escalation-only tool is refused outside an escalated run: what
/// the model can do about it.
pub(crate) fn needs_escalation(name: &str) -> String {
    format!(
        "tool `{name}` is available only in an escalated run: call run_code again with sandboxPermissions \"require_escalated\" and a justification saying why the task needs it (a person approves it before the program starts)"
    )
}

/// The policy's decision: the registry's policy hook, else the tool's own.
fn decide(hooks: &Hooks, call: &Call, tool: &RegisteredTool) -> Decision {
    match &hooks.policy {
        Some(policy) => policy(call, &tool.definition),
        None => match tool.definition.policy {
            Policy::Allow => Decision::Allow,
            Policy::Deny => Decision::Deny(Denial::new(format!(
                "tool `{}` is not allowed",
                tool.definition.name
            ))),
            Policy::Ask => Decision::Ask,
        },
    }
}

/// Asks the approver; a refusal (or no approver) is `DENIED`.
async fn ask(
    hooks: &Hooks,
    call: &Call,
    tool: &RegisteredTool,
    cx: &ToolContext,
) -> Result<(), ToolError> {
    let Some(approver) = &hooks.approver else {
        return Err(ToolError::denied(format!(
            "tool `{}` needs approval and no approver is available",
            tool.definition.name
        )));
    };
    let request = ApprovalRequest {
        call: call.clone(),
        definition: tool.definition.clone(),
        title: tool.definition.title_of_call(&call.arguments),
        context: cx.clone(),
    };
    // What cannot be shown to a person in full is not put to one.
    let arguments_bytes = serde_json::to_vec(&call.arguments).map_or(0, |json| json.len());
    if let Some(reason) = approval_text::too_long_for_call(&call.name, arguments_bytes) {
        return Err(ToolError::denied(reason));
    }
    let needs = format!("tool `{}` needs approval", tool.definition.name);
    match hooks
        .approvals
        .wait(&needs, || approver.approve(request))
        .await
    {
        Approval::Refused(denial) => Err(denial.into_error()),
        _ => Ok(()),
    }
}

/// Calls the handler under the tool's own timeout, containing panics.
async fn dispatch(tool: Arc<RegisteredTool>, arguments: Value, cx: ToolContext) -> ToolResult {
    let name = &tool.definition.name;
    let timeout = tool.definition.timeout_ms.map(Duration::from_millis);
    // The handler gets a child signal so a tool timeout cancels it too.
    let handler_cancel = cx.cancel.child_token();
    let handler_cx = ToolContext {
        cancel: handler_cancel.clone(),
        ..cx
    };
    let started = std::panic::catch_unwind(AssertUnwindSafe(|| {
        tool.handler.call(arguments, handler_cx)
    }));
    let future = match started {
        Ok(future) => AssertUnwindSafe(future).catch_unwind(),
        Err(panic) => return Err(panicked(name, &panic)),
    };
    let outcome = match timeout {
        None => future.await,
        Some(limit) => match tokio::time::timeout(limit, future).await {
            Ok(outcome) => outcome,
            Err(_) => {
                handler_cancel.cancel();
                return Err(ToolError::new(
                    ErrorCode::ToolTimeout,
                    format!("tool `{name}` timed out after {} ms", limit.as_millis()),
                ));
            }
        },
    };
    outcome.unwrap_or_else(|panic| Err(panicked(name, &panic)))
}

fn panicked(name: &str, panic: &Box<dyn std::any::Any + Send>) -> ToolError {
    ToolError::tool(format!("tool `{name}` panicked: {}", panic_message(panic)))
}

fn panic_message(panic: &Box<dyn std::any::Any + Send>) -> String {
    if let Some(s) = panic.downcast_ref::<&str>() {
        (*s).to_owned()
    } else if let Some(s) = panic.downcast_ref::<String>() {
        s.clone()
    } else {
        "unknown panic".to_owned()
    }
}

//! What a run is asked to do: a [`RunRequest`] (`run_code`'s arguments,
//! defined with its API in `contract::run_code`) checked against the
//! limits (`admit`), and the [`RunOptions`] a host runs it with.

use std::sync::Arc;
use std::time::Duration;

use tokio_util::sync::CancellationToken;

use super::events::EventSink;
pub use crate::contract::run_code::{Language, RunRequest};
use crate::limits::{Limits, MAX_SUB_CALLS, Tier};
use crate::tool::context::CallerContext;
use crate::tool::registry::Scope;

/// What a run may take once its request is admitted.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Admission {
    /// Its deadline.
    pub(crate) timeout: Duration,
    /// The CPU its program may use (contracts §6, "CPU budget").
    pub(crate) cpu_time: Duration,
    /// The sub-calls it may make.
    pub(crate) max_sub_calls: u32,
    /// Its limit tier.
    pub(crate) tier: Tier,
}

/// What a run is asked, checked against the limits: its deadline, CPU and
/// sub-call budgets, and limit tier.
///
/// # Errors
/// An escalation without a justification, a `timeoutMs` outside 1 … the
/// tier's maximum, a `cpuTimeMs` outside 1 … its maximum, or a
/// `maxSubCalls` outside 1 … 4,294,967,295.
pub(crate) fn admit(request: &RunRequest, limits: &Limits) -> Result<Admission, RunError> {
    if request.escalated() && !request.justification.chars().any(shows) {
        return Err(RunError::InvalidArguments(
            "justification is required with sandboxPermissions \"require_escalated\": say why the run needs escalation".to_owned(),
        ));
    }
    let tier = limits.tier(request.escalated());
    let ms = asked(
        request.timeout_ms,
        limits.default_timeout_ms,
        tier.max_timeout_ms,
    )
    .map_err(|ms| RunError::InvalidArguments(timeout_range(ms, limits, &tier)))?;
    let max_cpu = limits.max_cpu_time_ms;
    let cpu_ms = asked(request.cpu_time_ms, limits.default_cpu_time_ms, max_cpu).map_err(|ms| {
        RunError::InvalidArguments(format!(
            "cpuTimeMs must be an integer from 1 to {max_cpu}, got {ms}"
        ))
    })?;
    let default_calls = u64::try_from(limits.max_sub_calls).unwrap_or(u64::MAX);
    let most_calls = MAX_SUB_CALLS;
    let max_sub_calls =
        asked(request.max_sub_calls, default_calls, most_calls.into()).map_err(|n| {
            RunError::InvalidArguments(format!(
                "maxSubCalls must be an integer from 1 to {most_calls}, got {n}"
            ))
        })?;
    Ok(Admission {
        timeout: Duration::from_millis(ms),
        cpu_time: Duration::from_millis(cpu_ms),
        // Within `u32` (checked above, or by the limits' validation).
        max_sub_calls: u32::try_from(max_sub_calls).unwrap_or(most_calls),
        tier,
    })
}

/// What a request asked for a limit: `default` when it asked nothing, else
/// its value when within 1 … `max`; or the value refused.
fn asked(value: Option<i64>, default: u64, max: u64) -> Result<u64, i64> {
    match value {
        None => Ok(default),
        Some(n) => u64::try_from(n)
            .ok()
            .filter(|n| (1..=max).contains(n))
            .ok_or(n),
    }
}

/// Whether `c` shows in a prompt: not whitespace, and not one of the
/// invisible format characters (zero-width space, joiners, word joiner,
/// byte order mark, bidirectional marks and controls), so a justification
/// made only of them counts as blank.
fn shows(c: char) -> bool {
    !(c.is_whitespace()
        || matches!(
            c,
            '\u{200b}'..='\u{200f}'
                | '\u{202a}'..='\u{202e}'
                | '\u{2060}'..='\u{2064}'
                | '\u{2066}'..='\u{2069}'
                | '\u{061c}'
                | '\u{feff}'
        ))
}

/// Why a `timeoutMs` is refused: its range, and how to get the escalated
/// one when that is larger and the request did not ask for it.
fn timeout_range(ms: i64, limits: &Limits, tier: &Tier) -> String {
    let mut message = format!(
        "timeoutMs must be an integer from 1 to {}, got {ms}",
        tier.max_timeout_ms
    );
    let escalated = limits.tier(true).max_timeout_ms;
    if escalated > tier.max_timeout_ms && u64::try_from(ms).is_ok_and(|ms| ms <= escalated) {
        message.push_str(&format!(
            " (up to {escalated} with sandboxPermissions \"require_escalated\" and a justification)"
        ));
    } else if u64::try_from(ms).is_ok_and(|ms| ms > tier.max_timeout_ms) {
        message.push_str(&format!(
            ": no run may take longer, so split the work into runs that each end within {} ms, \
             each returning what the next needs",
            tier.max_timeout_ms
        ));
    }
    message
}

/// How one run is made.
#[derive(Clone, Default)]
#[non_exhaustive]
pub struct RunOptions {
    /// The agent's scope. By default, a fresh scope of the engine's registry.
    pub scope: Option<Scope>,
    /// Receives the run's events. By default, none.
    pub events: Option<Arc<dyn EventSink>>,
    /// Cancels the run (it ends as `cancelled`). By default, never fires.
    pub cancel: CancellationToken,
    /// Passed to every sub-call's handler. By default, none.
    pub caller: Option<CallerContext>,
}

impl RunOptions {
    /// Sets the scope. By default, a fresh scope of the registry.
    pub fn scope(mut self, scope: Scope) -> Self {
        self.scope = Some(scope);
        self
    }

    /// Sets the event sink. By default, none.
    pub fn events(mut self, sink: impl EventSink) -> Self {
        self.events = Some(Arc::new(sink));
        self
    }

    /// Sets the cancellation signal. By default, one that never fires.
    pub fn cancel(mut self, cancel: CancellationToken) -> Self {
        self.cancel = cancel;
        self
    }

    /// Sets the caller context. By default, none.
    pub fn caller(mut self, caller: CallerContext) -> Self {
        self.caller = Some(caller);
        self
    }
}

/// `run_code` itself was called wrongly (not a failure of the program).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum RunError {
    /// Bad `run_code` arguments, such as a `timeoutMs` out of range.
    #[error("{0}")]
    InvalidArguments(String),
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    /// An escalation needs a justification; its tier has the larger
    /// deadline, and a standard request over the standard maximum is told
    /// how to get more.
    #[test]
    fn escalation_is_checked_before_the_run() {
        use super::{RunError, RunRequest};
        use crate::contract::run_code::SandboxPermissions;
        let limits = crate::Limits::default();
        let escalated =
            RunRequest::new("").sandbox_permissions(SandboxPermissions::RequireEscalated);
        for blank in [
            "",
            "  \n",
            "\u{200b}\u{feff}\u{200d} \u{2060}\u{200e}\u{202e}",
        ] {
            let Err(RunError::InvalidArguments(message)) =
                super::admit(&escalated.clone().justification(blank), &limits)
            else {
                panic!("a blank justification is refused");
            };
            assert!(
                message.starts_with("justification is required"),
                "{message}"
            );
        }
        let asked = escalated.justification("big export").timeout_ms(1_800_000);
        let admitted = super::admit(&asked, &limits).unwrap();
        assert_eq!(admitted.timeout.as_millis(), 1_800_000);
        assert_eq!(admitted.tier.memory_limit_bytes, 256 << 20);
        let Err(RunError::InvalidArguments(message)) =
            super::admit(&RunRequest::new("").timeout_ms(700_000), &limits)
        else {
            panic!("over the standard maximum");
        };
        assert_eq!(
            message,
            "timeoutMs must be an integer from 1 to 600000, got 700000 (up to 1800000 with sandboxPermissions \"require_escalated\" and a justification)"
        );
        let parsed = RunRequest::from_model(json!({
            "code": "", "description": "d", "sandboxPermissions": "require_escalated", "justification": "j"
        }))
        .unwrap();
        assert!(parsed.escalated() && parsed.justification == "j");
        assert!(
            RunRequest::from_model(
                json!({ "code": "", "description": "d", "sandboxPermissions": "all" })
            )
            .is_err()
        );
    }

    /// The budgets default to the limits' and are checked against their
    /// ranges before anything runs.
    #[test]
    fn budgets_are_checked_before_the_run() {
        use super::{RunError, RunRequest};
        let limits = crate::Limits {
            default_cpu_time_ms: 40,
            max_cpu_time_ms: 50,
            max_sub_calls: 7,
            ..crate::Limits::default()
        };
        let plain = super::admit(&RunRequest::new(""), &limits).unwrap();
        assert_eq!((plain.cpu_time.as_millis(), plain.max_sub_calls), (40, 7));
        let asked = RunRequest::new("").cpu_time_ms(50).max_sub_calls(3);
        let asked = super::admit(&asked, &limits).unwrap();
        assert_eq!((asked.cpu_time.as_millis(), asked.max_sub_calls), (50, 3));
        for (request, message) in [
            (
                RunRequest::new("").cpu_time_ms(51),
                "cpuTimeMs must be an integer from 1 to 50, got 51",
            ),
            (
                RunRequest::new("").cpu_time_ms(0),
                "cpuTimeMs must be an integer from 1 to 50, got 0",
            ),
            (
                RunRequest::new("").max_sub_calls(0),
                "maxSubCalls must be an integer from 1 to 4294967295, got 0",
            ),
            (
                RunRequest::new("").max_sub_calls(-3),
                "maxSubCalls must be an integer from 1 to 4294967295, got -3",
            ),
            (
                RunRequest::new("").max_sub_calls(1 << 32),
                "maxSubCalls must be an integer from 1 to 4294967295, got 4294967296",
            ),
        ] {
            let Err(RunError::InvalidArguments(got)) = super::admit(&request, &limits) else {
                panic!("{message}");
            };
            assert_eq!(got, message);
        }
    }
}

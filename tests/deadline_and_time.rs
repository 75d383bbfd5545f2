//! The deadline primitive as a host uses it: a signal that cancels a call.

use std::time::Duration;

use ptc::{
    Call, CallOptions, Deadline, ErrorCode, Registry, Tool, ToolContext, ToolDefinition, ToolError,
};
use serde_json::{Value, json};

#[tokio::test(start_paused = true)]
async fn a_deadline_signal_cancels_a_call_in_flight() {
    let registry = Registry::new();
    registry
        .add(Tool::new(
            ToolDefinition::new("slow"),
            |_args: Value, cx: ToolContext| async move {
                cx.cancellation().cancelled().await;
                Ok::<_, ToolError>(json!("never"))
            },
        ))
        .unwrap();
    let started = tokio::time::Instant::now();
    let deadline = Deadline::new(50).unwrap();
    deadline.start();
    let result = registry
        .scope()
        .call(
            Call::new("1", "slow", json!({})),
            CallOptions::default().with_cancel(deadline.signal()),
        )
        .await;
    assert_eq!(result.unwrap_err().code, ErrorCode::Aborted);
    assert!(deadline.expired());
    // On the paused clock the call ends exactly when the deadline fires:
    // not before (the signal fired early) nor later (it was not obeyed).
    assert_eq!(started.elapsed(), Duration::from_millis(50));
}

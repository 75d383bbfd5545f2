//! The call pipeline: order, error codes, cancellation, timeouts, panics (contracts §3).

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use ptc::{
    Approval, Call, CallOptions, Decision, Denial, ErrorCode, Policy, Registry, Tool, ToolContext,
    ToolDefinition, ToolError, ToolOutput, ToolResult,
};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

use crate::common::{echo, with_query};

fn call(name: &str, args: Value) -> Call {
    Call::new("c1", name, args)
}

async fn run(r: &Registry, name: &str, args: Value) -> ToolResult {
    r.scope()
        .call(call(name, args), CallOptions::default())
        .await
}

fn code(result: &ToolResult) -> ErrorCode {
    result.as_ref().unwrap_err().code
}

#[tokio::test]
async fn success_returns_the_handlers_value() {
    let r = Registry::new();
    r.add(echo("echo")).unwrap();
    let out = run(&r, "echo", json!({ "x": [1, 2] })).await.unwrap();
    assert_eq!(out.value, json!({ "x": [1, 2] }));
}

#[tokio::test]
async fn unknown_and_hidden_tools_are_unknown() {
    let r = Registry::new();
    r.add(echo("a")).unwrap();
    let err = run(&r, "nope", json!({})).await.unwrap_err();
    assert_eq!(
        (err.code, err.message.as_str()),
        (ErrorCode::UnknownTool, "unknown tool `nope`")
    );
    let scope = r.scope();
    let _deny = scope.deny(["a"]);
    let result = scope
        .call(call("a", json!({})), CallOptions::default())
        .await;
    assert_eq!(code(&result), ErrorCode::UnknownTool);
}

#[tokio::test]
async fn invalid_arguments_name_the_path_and_rule() {
    let r = Registry::new();
    r.add(Tool::new(
        with_query("search").read_only(true),
        |a: Value, _: ToolContext| async move { Ok::<_, ToolError>(a) },
    ))
    .unwrap();
    let err = run(&r, "search", json!({ "q": 5 })).await.unwrap_err();
    assert_eq!(err.code, ErrorCode::InvalidArguments);
    assert!(
        err.message.contains("at $.q:") && err.message.contains("rule: type"),
        "{}",
        err.message
    );
    let err = run(&r, "search", json!([1])).await.unwrap_err();
    assert_eq!(err.code, ErrorCode::InvalidArguments);
    assert!(
        err.message.contains("expected a JSON object, got an array"),
        "{}",
        err.message
    );
}

#[tokio::test]
async fn stages_run_in_the_contract_order() {
    let r = Registry::new();
    let log = Arc::new(Mutex::new(Vec::<String>::new()));
    let l = Arc::clone(&log);
    r.add(Tool::new(
        with_query("t"),
        move |_a: Value, _: ToolContext| {
            let l = Arc::clone(&l);
            async move {
                l.lock().unwrap().push("handler".into());
                Ok::<_, ToolError>(json!("v"))
            }
        },
    ))
    .unwrap();
    let l = Arc::clone(&log);
    r.set_policy(move |_c, _d| {
        l.lock().unwrap().push("policy".into());
        Decision::Allow
    });
    let l = Arc::clone(&log);
    r.add_guard(move |_c, _d| {
        l.lock().unwrap().push("guard".into());
        Ok(())
    });
    for tag in ["outer", "inner"] {
        let l = Arc::clone(&log);
        r.add_wrapper(move |_c, next| {
            let l = Arc::clone(&l);
            l.lock().unwrap().push(format!("{tag} before"));
            Box::pin(async move {
                let result = next.run().await;
                l.lock().unwrap().push(format!("{tag} after"));
                result
            })
        });
    }
    let l = Arc::clone(&log);
    r.add_post_execute(move |_c, result| {
        l.lock().unwrap().push("post".into());
        result
    });
    let l = Arc::clone(&log);
    r.add_observer(move |_c, _r| l.lock().unwrap().push("observer".into()));

    run(&r, "t", json!({ "q": "x" })).await.unwrap();
    assert_eq!(
        *log.lock().unwrap(),
        [
            "policy",
            "guard",
            "outer before",
            "inner before",
            "handler",
            "inner after",
            "outer after",
            "post",
            "observer"
        ]
    );

    // Validation comes before policy: a bad call never reaches it.
    log.lock().unwrap().clear();
    assert_eq!(
        code(&run(&r, "t", json!({})).await),
        ErrorCode::InvalidArguments
    );
    assert_eq!(*log.lock().unwrap(), ["post", "observer"]);
}

#[tokio::test]
async fn policy_field_and_hook_decide() {
    let r = Registry::new();
    r.add(Tool::new(
        ToolDefinition::new("d").policy(Policy::Deny),
        |a: Value, _: ToolContext| async move { Ok::<_, ToolError>(a) },
    ))
    .unwrap();
    let err = run(&r, "d", json!({})).await.unwrap_err();
    assert_eq!(
        (err.code, err.message.as_str()),
        (ErrorCode::Denied, "tool `d` is not allowed")
    );

    r.add(echo("e")).unwrap();
    r.set_policy(|call, _| {
        if call.name == "e" {
            Decision::Deny(Denial::new("no echo today").with_detail("user-only detail"))
        } else {
            Decision::Allow
        }
    });
    let err = run(&r, "e", json!({})).await.unwrap_err();
    assert_eq!(err.code, ErrorCode::Denied);
    assert_eq!(err.model_text(), "Error: no echo today");
    assert_eq!(err.detail.as_deref(), Some("user-only detail"));
    assert!(
        run(&r, "d", json!({})).await.is_ok(),
        "the hook overrides the field"
    );
}

#[tokio::test]
async fn guards_can_only_deny_and_a_denial_stops_the_rest() {
    let r = Registry::new();
    let handled = Arc::new(AtomicUsize::new(0));
    let h = Arc::clone(&handled);
    r.add(Tool::new(
        ToolDefinition::new("t"),
        move |_a: Value, _: ToolContext| {
            h.fetch_add(1, Ordering::SeqCst);
            async { Ok::<_, ToolError>(json!(1)) }
        },
    ))
    .unwrap();
    let later_guard = Arc::new(AtomicUsize::new(0));
    r.add_guard(|_c, _d| Err(Denial::new("guard 1 says no")));
    let g = Arc::clone(&later_guard);
    r.add_guard(move |_c, _d| {
        g.fetch_add(1, Ordering::SeqCst);
        Ok(())
    });
    let err = run(&r, "t", json!({})).await.unwrap_err();
    assert_eq!(
        (err.code, err.message.as_str()),
        (ErrorCode::Denied, "guard 1 says no")
    );
    assert_eq!(
        later_guard.load(Ordering::SeqCst),
        0,
        "a later guard cannot undo the denial"
    );
    assert_eq!(handled.load(Ordering::SeqCst), 0);
}

#[tokio::test]
async fn ask_waits_for_the_approver() {
    let r = Registry::new();
    r.add(Tool::new(
        ToolDefinition::new("rm").policy(Policy::Ask),
        |_a: Value, _: ToolContext| async { Ok::<_, ToolError>(json!("removed")) },
    ))
    .unwrap();
    let err = run(&r, "rm", json!({ "path": "x" })).await.unwrap_err();
    assert_eq!(err.code, ErrorCode::Denied);
    assert!(err.message.contains("needs approval"), "{}", err.message);

    let seen = Arc::new(Mutex::new(Vec::new()));
    let s = Arc::clone(&seen);
    r.set_approver(move |req: ptc::ApprovalRequest| {
        s.lock().unwrap().push(req.call.arguments.clone());
        async move {
            if req.call.arguments["path"] == "ok" {
                Approval::Approved
            } else {
                Approval::Refused(Denial::new("the user said no"))
            }
        }
    });
    assert_eq!(
        run(&r, "rm", json!({ "path": "ok" })).await.unwrap().value,
        json!("removed")
    );
    let err = run(&r, "rm", json!({ "path": "/" })).await.unwrap_err();
    assert_eq!(
        (err.code, err.message.as_str()),
        (ErrorCode::Denied, "the user said no")
    );
    assert_eq!(
        *seen.lock().unwrap(),
        [json!({ "path": "ok" }), json!({ "path": "/" })]
    );
}

#[tokio::test(start_paused = true)]
async fn cancelling_an_approval_wait_is_aborted_before_dispatch() {
    let r = Registry::new();
    let handled = Arc::new(AtomicUsize::new(0));
    let h = Arc::clone(&handled);
    r.add(Tool::new(
        ToolDefinition::new("rm").policy(Policy::Ask),
        move |_a: Value, _: ToolContext| {
            h.fetch_add(1, Ordering::SeqCst);
            async { Ok::<_, ToolError>(json!(1)) }
        },
    ))
    .unwrap();
    r.set_approver(|_req| std::future::pending::<Approval>());
    let cancel = CancellationToken::new();
    let c = cancel.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(30)).await;
        c.cancel();
    });
    let result = r
        .scope()
        .call(
            call("rm", json!({})),
            CallOptions::default().with_cancel(cancel),
        )
        .await;
    assert_eq!(code(&result), ErrorCode::AbortedBeforeDispatch);
    assert_eq!(handled.load(Ordering::SeqCst), 0);
}

#[tokio::test]
async fn already_cancelled_calls_never_dispatch() {
    let r = Registry::new();
    r.add(echo("e")).unwrap();
    let cancel = CancellationToken::new();
    cancel.cancel();
    let result = r
        .scope()
        .call(
            call("e", json!({})),
            CallOptions::default().with_cancel(cancel),
        )
        .await;
    assert_eq!(code(&result), ErrorCode::AbortedBeforeDispatch);
}

#[tokio::test(start_paused = true)]
async fn a_handler_that_ignores_cancellation_does_not_hold_the_caller() {
    let r = Registry::new();
    r.add(Tool::new(
        ToolDefinition::new("stubborn"),
        |_a: Value, _: ToolContext| async {
            // Ignores its signal entirely.
            tokio::time::sleep(Duration::from_secs(3600)).await;
            Ok::<_, ToolError>(json!(1))
        },
    ))
    .unwrap();
    let cancel = CancellationToken::new();
    let c = cancel.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(10)).await;
        c.cancel();
    });
    let start = tokio::time::Instant::now();
    let result = r
        .scope()
        .call(
            call("stubborn", json!({})),
            CallOptions::default().with_cancel(cancel),
        )
        .await;
    let err = result.unwrap_err();
    assert_eq!(err.code, ErrorCode::Aborted);
    assert_eq!(start.elapsed(), Duration::from_millis(10));
    // The registry stays healthy.
    r.add(echo("e")).unwrap();
    assert!(run(&r, "e", json!({})).await.is_ok());
}

#[tokio::test(start_paused = true)]
async fn tool_timeout_is_enforced_and_cancels_the_handler() {
    let r = Registry::new();
    let saw_cancel = Arc::new(AtomicUsize::new(0));
    let s = Arc::clone(&saw_cancel);
    r.add(Tool::new(
        ToolDefinition::new("slow").timeout_ms(200),
        move |_a: Value, cx: ToolContext| {
            let s = Arc::clone(&s);
            async move {
                let token = cx.cancellation().clone();
                tokio::spawn(async move {
                    token.cancelled().await;
                    s.fetch_add(1, Ordering::SeqCst);
                });
                tokio::time::sleep(Duration::from_secs(10)).await;
                Ok::<_, ToolError>(json!(1))
            }
        },
    ))
    .unwrap();
    let start = tokio::time::Instant::now();
    let err = run(&r, "slow", json!({})).await.unwrap_err();
    assert_eq!(
        (err.code, err.message.as_str()),
        (ErrorCode::ToolTimeout, "tool `slow` timed out after 200 ms")
    );
    assert_eq!(start.elapsed(), Duration::from_millis(200));
    tokio::task::yield_now().await;
    assert_eq!(saw_cancel.load(Ordering::SeqCst), 1);

    // A fast call under the same timeout succeeds.
    r.add(Tool::new(
        ToolDefinition::new("fast").timeout_ms(200),
        |_a: Value, _: ToolContext| async {
            tokio::time::sleep(Duration::from_millis(199)).await;
            Ok::<_, ToolError>(json!("ok"))
        },
    ))
    .unwrap();
    assert_eq!(run(&r, "fast", json!({})).await.unwrap().value, json!("ok"));
}

#[tokio::test]
async fn panics_are_contained_sync_and_async() {
    let r = Registry::new();
    r.add(Tool::new(
        ToolDefinition::new("sync_panic"),
        |_a: Value, _: ToolContext| -> std::future::Ready<Result<Value, ToolError>> {
            panic!("boom at start")
        },
    ))
    .unwrap();
    r.add(Tool::new(
        ToolDefinition::new("async_panic"),
        |_a: Value, _: ToolContext| async {
            if true {
                panic!("boom inside");
            }
            Ok::<_, ToolError>(json!(1))
        },
    ))
    .unwrap();
    let err = run(&r, "sync_panic", json!({})).await.unwrap_err();
    assert_eq!(
        (err.code, err.message.as_str()),
        (
            ErrorCode::ToolError,
            "tool `sync_panic` panicked: boom at start"
        )
    );
    let err = run(&r, "async_panic", json!({})).await.unwrap_err();
    assert_eq!(
        (err.code, err.message.as_str()),
        (
            ErrorCode::ToolError,
            "tool `async_panic` panicked: boom inside"
        )
    );
    r.add(echo("e")).unwrap();
    assert!(
        run(&r, "e", json!({})).await.is_ok(),
        "registry healthy after panics"
    );
}

#[tokio::test]
async fn handler_errors_keep_their_message() {
    let r = Registry::new();
    r.add(Tool::new(
        ToolDefinition::new("f"),
        |_a: Value, _: ToolContext| async { Err::<Value, _>("disk full") },
    ))
    .unwrap();
    let err = run(&r, "f", json!({})).await.unwrap_err();
    assert_eq!(
        (err.code, err.model_text().as_str()),
        (ErrorCode::ToolError, "Error: disk full")
    );
}

#[tokio::test]
async fn output_is_validated_then_post_execute_may_replace() {
    let r = Registry::new();
    r.add(Tool::new(
        ToolDefinition::new("n").output(json!({ "type": "integer" })),
        |a: Value, _: ToolContext| async move { Ok::<_, ToolError>(a["v"].clone()) },
    ))
    .unwrap();
    assert_eq!(
        run(&r, "n", json!({ "v": 3 })).await.unwrap().value,
        json!(3)
    );
    let err = run(&r, "n", json!({ "v": "three" })).await.unwrap_err();
    assert_eq!(err.code, ErrorCode::InvalidOutput);
    assert!(err.message.contains("rule: type"), "{}", err.message);

    let observed = Arc::new(Mutex::new(Vec::new()));
    r.add_post_execute(|_c, result| match result {
        Err(e) if e.code == ErrorCode::InvalidOutput => Ok(ToolOutput::new(json!(0))),
        other => other,
    });
    let o = Arc::clone(&observed);
    r.add_observer(move |c, result| o.lock().unwrap().push((c.id.clone(), result.clone())));
    assert_eq!(
        run(&r, "n", json!({ "v": "three" })).await.unwrap().value,
        json!(0)
    );
    assert_eq!(
        observed.lock().unwrap()[0].1.as_ref().unwrap().value,
        json!(0),
        "observers see the final result"
    );
}

#[tokio::test]
async fn wrappers_may_retry() {
    let r = Registry::new();
    let attempts = Arc::new(AtomicUsize::new(0));
    let a = Arc::clone(&attempts);
    r.add(Tool::new(
        ToolDefinition::new("flaky"),
        move |_args: Value, _: ToolContext| {
            let n = a.fetch_add(1, Ordering::SeqCst);
            async move {
                if n < 2 {
                    Err(ToolError::tool("transient"))
                } else {
                    Ok(json!(n))
                }
            }
        },
    ))
    .unwrap();
    r.add_wrapper(|_c, next| {
        Box::pin(async move {
            let mut last = next.run().await;
            for _ in 0..3 {
                if last.is_ok() {
                    break;
                }
                last = next.run().await;
            }
            last
        })
    });
    assert_eq!(run(&r, "flaky", json!({})).await.unwrap().value, json!(2));
    assert_eq!(attempts.load(Ordering::SeqCst), 3);
}

#[tokio::test(start_paused = true)]
async fn batches_run_concurrently_and_answer_in_input_order() {
    let r = Registry::new();
    r.add(Tool::new(
        ToolDefinition::new("sleep").read_only(true),
        |a: Value, _: ToolContext| async move {
            let ms = a["ms"].as_u64().unwrap_or(0);
            tokio::time::sleep(Duration::from_millis(ms)).await;
            Ok::<_, ToolError>(json!(ms))
        },
    ))
    .unwrap();
    let start = tokio::time::Instant::now();
    let results = r
        .scope()
        .call_batch(
            vec![
                Call::new("1", "sleep", json!({ "ms": 30 })),
                Call::new("2", "nope", json!({})),
                Call::new("3", "sleep", json!({ "ms": 10 })),
            ],
            CallOptions::default(),
        )
        .await;
    assert_eq!(
        start.elapsed(),
        Duration::from_millis(30),
        "concurrent, not 40 ms"
    );
    assert_eq!(results[0].as_ref().unwrap().value, json!(30));
    assert_eq!(code(&results[1]), ErrorCode::UnknownTool);
    assert_eq!(results[2].as_ref().unwrap().value, json!(10));
}

#[tokio::test]
async fn caller_context_reaches_the_handler() {
    struct Session {
        user: &'static str,
    }
    let r = Registry::new();
    r.add(Tool::new(
        ToolDefinition::new("whoami"),
        |_a: Value, cx: ToolContext| async move {
            let user = cx.caller::<Session>().map(|s| s.user).unwrap_or("nobody");
            Ok::<_, ToolError>(json!(user))
        },
    ))
    .unwrap();
    let options = CallOptions::default().with_caller(Arc::new(Session { user: "ada" }));
    let out = r
        .scope()
        .call(call("whoami", json!({})), options)
        .await
        .unwrap();
    assert_eq!(out.value, json!("ada"));
}

#[tokio::test]
async fn typed_tools_derive_schemas_and_validate() {
    #[derive(serde::Deserialize, schemars::JsonSchema)]
    struct Params {
        a: i64,
        b: i64,
    }
    #[derive(serde::Serialize, schemars::JsonSchema)]
    struct Sum {
        sum: i64,
    }
    struct Add;
    impl ptc::TypedTool for Add {
        type Params = Params;
        type Output = Sum;
        fn definition(&self) -> ToolDefinition {
            ToolDefinition::new("add").read_only(true)
        }
        async fn call(&self, p: Params, _cx: ToolContext) -> Result<Sum, ToolError> {
            Ok(Sum { sum: p.a + p.b })
        }
    }
    let r = Registry::new();
    r.add(Tool::typed(Add)).unwrap();
    let def = r.definition("add").unwrap();
    assert_eq!(def.parameters["properties"]["a"]["type"], "integer");
    assert_eq!(
        def.output.as_ref().unwrap()["properties"]["sum"]["type"],
        "integer"
    );
    assert_eq!(
        run(&r, "add", json!({ "a": 2, "b": 3 }))
            .await
            .unwrap()
            .value,
        json!({ "sum": 5 })
    );
    assert_eq!(
        code(&run(&r, "add", json!({ "a": "2", "b": 3 })).await),
        ErrorCode::InvalidArguments
    );
}

/// A post-execute hook may reword a denial but never turn it into success.
#[tokio::test]
async fn post_execute_cannot_turn_a_denial_into_success() {
    let r = Registry::new();
    r.add(Tool::new(
        ToolDefinition::new("locked").policy(Policy::Deny),
        |a: Value, _: ToolContext| async move { Ok::<_, ToolError>(a) },
    ))
    .unwrap();
    r.add_post_execute(|_c, result| match result {
        Err(e) if e.code == ErrorCode::Denied => Ok(ToolOutput::new(json!("forged"))),
        other => other,
    });
    let err = run(&r, "locked", json!({})).await.unwrap_err();
    assert_eq!(err.code, ErrorCode::Denied);
    assert_eq!(err.message, "tool `locked` is not allowed");
    r.add_post_execute(|_c, result| {
        result.map_err(|e| ToolError::denied(format!("{} (policy 7)", e.message)))
    });
    let err = run(&r, "locked", json!({})).await.unwrap_err();
    assert_eq!(err.message, "tool `locked` is not allowed (policy 7)");
}

/// contracts §3: a tool's `timeoutMs` wraps the handler alone, so a
/// retrying wrapper gives each attempt a fresh timeout.
#[tokio::test(start_paused = true)]
async fn a_tools_timeout_applies_to_each_retry_of_a_wrapper() {
    let registry = Registry::new();
    let attempts = Arc::new(AtomicUsize::new(0));
    let counted = Arc::clone(&attempts);
    registry
        .add(Tool::new(
            ToolDefinition::new("flaky").timeout_ms(200),
            move |_: Value, _: ToolContext| {
                let attempt = counted.fetch_add(1, Ordering::SeqCst);
                async move {
                    // Each attempt takes 150 ms, within its 200 ms; the
                    // third succeeds, 450 ms after the first began.
                    tokio::time::sleep(Duration::from_millis(150)).await;
                    match attempt {
                        0 | 1 => Err(ToolError::tool("try again")),
                        _ => Ok(json!("third time")),
                    }
                }
            },
        ))
        .unwrap();
    registry.add_wrapper(|_call, next| {
        Box::pin(async move {
            let mut result = next.run().await;
            for _ in 0..2 {
                if result.is_ok() {
                    break;
                }
                result = next.run().await;
            }
            result
        })
    });
    let result = registry
        .scope()
        .call(Call::new("c", "flaky", json!({})), CallOptions::default())
        .await;
    assert_eq!(result.expect("the third attempt").value, "third time");
    assert_eq!(attempts.load(Ordering::SeqCst), 3);
}

/// contracts §3: an `INVALID_ARGUMENTS` message names at most three
/// failures, each at its JSON path with its rule, then "and N more".
#[tokio::test]
async fn invalid_arguments_name_three_failures_then_count_the_rest() {
    let registry = Registry::new();
    let properties: serde_json::Map<String, Value> = ["a", "b", "c", "d", "e"]
        .iter()
        .map(|name| (name.to_string(), json!({ "type": "string" })))
        .collect();
    registry
        .add(Tool::new(
            ToolDefinition::new("five").parameters(json!({
                "type": "object",
                "properties": properties,
            })),
            |a: Value, _: ToolContext| async move { Ok::<_, ToolError>(a) },
        ))
        .unwrap();
    let scope = registry.scope();
    let call =
        |arguments: Value| scope.call(Call::new("c", "five", arguments), CallOptions::default());
    let error = call(json!({ "a": 1, "b": 2, "c": 3, "d": 4, "e": 5 }))
        .await
        .expect_err("five wrong types");
    assert_eq!(error.code, ErrorCode::InvalidArguments, "{}", error.message);
    let message = &error.message;
    assert!(
        message.starts_with("invalid arguments for `five`: at $."),
        "{message}"
    );
    assert_eq!(message.matches("at $.").count(), 3, "{message}");
    assert_eq!(message.matches("(rule: type)").count(), 3, "{message}");
    assert!(message.ends_with("; and 2 more"), "{message}");
    // Three failures exactly: all named, nothing counted.
    let three = call(json!({ "a": 1, "b": 2, "c": 3 })).await.unwrap_err();
    assert_eq!(
        three.message.matches("at $.").count(),
        3,
        "{}",
        three.message
    );
    assert!(!three.message.contains("more"), "{}", three.message);
    // One more than three: "and 1 more".
    let four = call(json!({ "a": 1, "b": 2, "c": 3, "d": 4 }))
        .await
        .unwrap_err();
    assert!(four.message.ends_with("; and 1 more"), "{}", four.message);
}

/// contracts §3: an unknown name's message names at most three visible
/// tools near it, closest first, and never a hidden one.
#[tokio::test]
async fn an_unknown_tool_names_three_nearest_visible_tools_closest_first() {
    let registry = Registry::new();
    // Edits from `abcdefgh`: 3 (too far), 2, 1, 2, 2.
    for name in ["abcdexxx", "abcdefxx", "abcdefgx", "abcdxfgx", "abxdefgx"] {
        registry.add(crate::common::echo(name)).unwrap();
    }
    let scope = registry.scope();
    let unknown = || {
        scope.call(
            Call::new("c", "abcdefgh", json!({})),
            CallOptions::default(),
        )
    };
    let error = unknown().await.unwrap_err();
    assert_eq!(error.code, ErrorCode::UnknownTool);
    assert_eq!(
        error.message,
        "unknown tool `abcdefgh`; nearest visible tools: `abcdefgx`, `abcdefxx`, `abcdxfgx`"
    );
    let _hidden = scope.deny(["abcdefgx"]);
    let error = unknown().await.unwrap_err();
    assert_eq!(
        error.message,
        "unknown tool `abcdefgh`; nearest visible tools: `abcdefxx`, `abcdxfgx`, `abxdefgx`"
    );
}

//! A run's budgets beside its deadline (contracts §6, "Budgets"): the CPU
//! its program may use, counted apart from waiting on tools, and the
//! sub-calls it may make, in both languages; `cpuMs` in every outcome.

use std::time::Duration;

#[cfg(feature = "python")]
use ptc::Language;
use ptc::{Engine, FailureKind, Limits, Outcome, RunError, RunOptions, RunRequest};
use serde_json::{Value, json};

use crate::common::test_registry;

fn engine(limits: Limits) -> Engine {
    Engine::new(test_registry(), limits).unwrap()
}

async fn run(engine: &Engine, request: RunRequest) -> Outcome {
    engine
        .run_code(request, RunOptions::default())
        .await
        .expect("run_code's arguments are valid")
}

/// A program that spins ends at its CPU budget, long before its deadline,
/// and says how much it computed and waited; one that waits on a tool
/// longer than its CPU budget is not stopped.
async fn cpu_budget_ends_spinning_not_waiting(spin: RunRequest, wait: RunRequest) {
    let engine = engine(Limits::default());
    let spun = run(&engine, spin.cpu_time_ms(300).timeout_ms(60_000)).await;
    assert_eq!(spun.kind, Some(FailureKind::Timeout), "{}", spun.text());
    let text = spun.text();
    assert!(
        text.contains("the program used its CPU budget of 300 ms (")
            && text.contains(" ms computing, ")
            && text.contains(" ms waiting on tools, timers or a free core): do less work in the program, or pass a larger cpuTimeMs (at most 600000)"),
        "{text}"
    );
    assert!(spun.cpu >= Duration::from_millis(300), "{:?}", spun.cpu);
    assert!(spun.elapsed < Duration::from_secs(30), "{:?}", spun.elapsed);

    let waited = run(&engine, wait.cpu_time_ms(100).timeout_ms(60_000)).await;
    assert!(!waited.is_error, "{}", waited.text());
    assert!(waited.elapsed >= Duration::from_millis(600));
    assert!(waited.cpu < Duration::from_millis(100), "{:?}", waited.cpu);
}

#[tokio::test]
async fn the_cpu_budget_ends_a_spinning_program_and_not_a_waiting_one() {
    cpu_budget_ends_spinning_not_waiting(
        RunRequest::new("let n = 0\nwhile (true) { n++ }"),
        RunRequest::new("await tools.sleep({ ms: 600 })\nreturn 1"),
    )
    .await;
}

#[cfg(feature = "python")]
#[tokio::test]
async fn the_cpu_budget_ends_a_spinning_python_program_and_not_a_waiting_one() {
    cpu_budget_ends_spinning_not_waiting(
        RunRequest::new("n = 0\nwhile True:\n    n += 1").language(Language::Python),
        RunRequest::new("await tools.sleep(ms=600)\n1").language(Language::Python),
    )
    .await;
}

/// A loop of long native calls polls QuickJS's interrupt handler seldom
/// (after a fast loop, once per 10,000 polls): the budget has it asked
/// when the budget could be spent, as the deadline does, so the loop ends
/// at its budget and not at its deadline (red team, issue 44).
#[tokio::test]
async fn a_loop_of_long_native_calls_ends_at_its_cpu_budget() {
    let engine = engine(Limits::default());
    let code = "const o = Array.from({ length: 100000 }, (_, i) => ({ i, s: 'x'.repeat(10) }))\n\
                for (let i = 0; i < 9990; i++) {}\n\
                for (;;) JSON.stringify(o)";
    let spun = run(
        &engine,
        RunRequest::new(code).cpu_time_ms(300).timeout_ms(15_000),
    )
    .await;
    assert!(
        spun.text()
            .contains("the program used its CPU budget of 300 ms"),
        "{}",
        spun.text()
    );
    assert!(spun.cpu < Duration::from_secs(5), "{:?}", spun.cpu);
}

/// A Python program stopped for its CPU was computing, even with a call
/// in flight: the text says so, not that it was waiting on the call.
#[cfg(feature = "python")]
#[tokio::test]
async fn a_python_program_stopped_for_cpu_was_computing() {
    let engine = engine(Limits::default());
    let code = "import asyncio\n\
                async def spin():\n    \
                    n = 0\n    \
                    while True:\n        \
                        n += 1\n\
                await asyncio.gather(tools.sleep(ms=60000), spin())";
    let request = RunRequest::new(code).language(Language::Python);
    let spun = run(&engine, request.cpu_time_ms(300).timeout_ms(30_000)).await;
    let text = spun.text();
    assert!(
        text.contains("used its CPU budget of 300 ms")
            && text.contains("it was running Python when the limit struck"),
        "{text}"
    );
}

/// A Python worker killed at its deadline still counts what it computed
/// (measured before it is killed).
#[cfg(feature = "python")]
#[tokio::test]
async fn a_python_run_killed_at_its_deadline_counts_its_cpu() {
    let engine = engine(Limits::default());
    // A worker started first: the deadline is then all computing.
    let warm = run(&engine, RunRequest::new("1").language(Language::Python)).await;
    assert!(!warm.is_error, "{}", warm.text());
    let code = "n = 0\nwhile True:\n    n += 1";
    let request = RunRequest::new(code).language(Language::Python);
    let killed = run(&engine, request.timeout_ms(1500)).await;
    assert!(
        killed
            .text()
            .contains("the run exceeded its 1500 ms deadline"),
        "{}",
        killed.text()
    );
    assert!(killed.cpu >= Duration::from_millis(50), "{:?}", killed.cpu);
}

/// The deadline still speaks for itself when it comes first; a budget at
/// the maximum tells the model to split the work, not to ask for more.
#[tokio::test]
async fn the_deadline_and_the_largest_budget_say_what_they_are() {
    let engine = engine(Limits {
        max_cpu_time_ms: 300,
        default_cpu_time_ms: 300,
        ..Limits::default()
    });
    let late = run(
        &engine,
        RunRequest::new("await tools.sleep({ ms: 5000 })").timeout_ms(200),
    )
    .await;
    assert!(
        late.text()
            .starts_with("Error: code run failed (timeout): the run exceeded its 200 ms deadline."),
        "{}",
        late.text()
    );
    let spun = run(&engine, RunRequest::new("while (true) {}")).await;
    assert!(
        spun.text().contains(
            "or a free core): no run may compute longer: split the work into runs that each return what the next needs."
        ),
        "{}",
        spun.text()
    );
    let refused = engine
        .run_code(RunRequest::new("1").cpu_time_ms(301), RunOptions::default())
        .await;
    assert_eq!(
        refused,
        Err(RunError::InvalidArguments(
            "cpuTimeMs must be an integer from 1 to 300, got 301".into()
        ))
    );
}

/// Every outcome counts the CPU its program used, a failed one too.
#[tokio::test]
async fn every_outcome_counts_its_cpu() {
    let engine = engine(Limits::default());
    // A fixed amount of work: its CPU does not shrink on a loaded machine
    // (about 100 ms on an idle one, in a debug build).
    let busy = run(
        &engine,
        RunRequest::new("let x = 0; for (let i = 0; i < 2e6; i++) { x = (x + i) % 7 } return x"),
    )
    .await;
    assert!(!busy.is_error, "{}", busy.text());
    assert!(busy.cpu >= Duration::from_millis(10), "{:?}", busy.cpu);
    let failed = run(&engine, RunRequest::new("syntax error here (")).await;
    assert_eq!(failed.kind, Some(FailureKind::Syntax));
    let wire = serde_json::to_value(&failed).unwrap();
    assert!(wire["cpuMs"].as_f64().is_some_and(|ms| ms >= 0.0), "{wire}");
}

/// A step given up on past its deadline and grace (its thread retired,
/// still computing a BigInt's decimal digits) still counts what it
/// computed so far.
#[tokio::test]
async fn a_step_given_up_on_still_counts_its_cpu() {
    let engine = engine(Limits {
        grace_ms: 200,
        ..Limits::default()
    });
    // The number made first (its power is interrupted at a deadline, its
    // decimal digits are not), then the deadline lands in its conversion
    // (about a second), however loaded the machine.
    let code = "const start = Date.now()\n\
                const a = 7n ** 300000n\n\
                await new Promise((r) => setTimeout(r, Math.max(0, 2800 - (Date.now() - start))))\n\
                return String(a).length";
    let outcome = run(&engine, RunRequest::new(code).timeout_ms(3000)).await;
    assert_eq!(
        outcome.kind,
        Some(FailureKind::Timeout),
        "{}",
        outcome.text()
    );
    assert_eq!(engine.retired_threads().total, 1, "{}", outcome.text());
    assert!(
        outcome.cpu >= Duration::from_millis(50),
        "{:?}",
        outcome.cpu
    );
    crate::common::eventually("the thread to come back", || {
        engine.retired_threads().still_stuck == 0
    })
    .await;
}

/// The calls past the budget fail with a `ToolCallError` the program
/// catches; the ones within it ran, and the text says how many were refused.
async fn calls_past_the_budget_are_refused(code: &str, language: ptc::Language) {
    let engine = engine(Limits {
        max_sub_calls: 3,
        ..Limits::default()
    });
    let outcome = run(&engine, RunRequest::new(code).language(language)).await;
    assert!(!outcome.is_error, "{}", outcome.text());
    assert_eq!(outcome.sub_calls, 3);
    let mut lines = outcome.text().lines();
    let value: Value = serde_json::from_str(lines.next().unwrap()).unwrap();
    assert_eq!(value, json!([0, 1, 2, "DENIED", "DENIED"]));
    assert_eq!(
        lines.next(),
        Some("[run_code: the run made 3 sub-calls, its budget; 2 more calls were refused]")
    );
    // A host's budget for one run, over the engine's.
    let outcome = run(
        &engine,
        RunRequest::new(code).language(language).max_sub_calls(5),
    )
    .await;
    assert_eq!(outcome.sub_calls, 5, "{}", outcome.text());
    assert!(!outcome.text().contains("refused"), "{}", outcome.text());
}

#[tokio::test]
async fn calls_past_the_sub_call_budget_are_refused_and_counted() {
    let code = "const got = []\n\
                for (let i = 0; i < 5; i++) {\n\
                  try { got.push((await tools.echo({ i })).i) } catch (e) { got.push(e.code) }\n\
                }\n\
                return got";
    calls_past_the_budget_are_refused(code, ptc::Language::TypeScript).await;
}

#[cfg(feature = "python")]
#[tokio::test]
async fn python_calls_past_the_sub_call_budget_are_refused_and_counted() {
    let code = "got = []\n\
                for i in range(5):\n    \
                    try:\n        \
                        got.append((await tools.echo(i=i))['i'])\n    \
                    except ToolCallError as e:\n        \
                        got.append('DENIED' if 'DENIED' in str(e) else str(e))\n\
                got";
    calls_past_the_budget_are_refused(code, Language::Python).await;
}

/// A refused call gives back what its arguments were charged: a program
/// whose calls past the budget each carry a MiB does not run out of its
/// 64 MiB for them.
async fn refused_calls_keep_no_memory(code: &str, language: ptc::Language) {
    let engine = engine(Limits {
        max_sub_calls: 1,
        ..Limits::default()
    });
    let outcome = run(&engine, RunRequest::new(code).language(language)).await;
    assert!(!outcome.is_error, "{}", outcome.text());
    assert!(outcome.text().starts_with("199\n"), "{}", outcome.text());
}

#[tokio::test]
async fn refused_calls_keep_no_memory_in_typescript() {
    let code = "const big = 'x'.repeat(1 << 20)\n\
                let refused = 0\n\
                for (let i = 0; i < 200; i++) {\n\
                  try { await tools.echo({ big }) } catch (e) { refused++ }\n\
                }\n\
                return refused";
    refused_calls_keep_no_memory(code, ptc::Language::TypeScript).await;
}

#[cfg(feature = "python")]
#[tokio::test]
async fn refused_calls_keep_no_memory_in_python() {
    let code = "big = 'x' * (1 << 20)\n\
                refused = 0\n\
                for i in range(200):\n    \
                    try:\n        \
                        await tools.echo(big=big)\n    \
                    except ToolCallError:\n        \
                        refused += 1\n\
                refused";
    refused_calls_keep_no_memory(code, Language::Python).await;
}

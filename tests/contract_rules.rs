//! Contract rules that had no test of their own (contracts §3, §6, §7).

use std::collections::HashSet;
use std::sync::{Arc, Mutex};

use ptc::{
    Approval, ContentBlock, Denial, Engine, ErrorCode, FailureKind, Limits, Registry, RunOptions,
    RunRequest, Tool, ToolContext, ToolDefinition, ToolError, ToolOutput,
};
use serde_json::{Value, json};

use crate::common::test_registry;
use crate::engine::Events;

#[test]
fn default_limits_are_the_documented_ones() {
    let limits = Limits::default();
    assert_eq!(limits.max_parallel_sub_calls, 10);
    assert_eq!(limits.default_timeout_ms, 120_000);
    assert_eq!(limits.max_timeout_ms, 600_000);
    assert_eq!(limits.output_cap_bytes, 32_768);
    assert_eq!(limits.memory_limit_bytes, 64 << 20);
    assert_eq!(limits.stack_limit_bytes, 1 << 20);
    assert_eq!(limits.thread_stack_bytes, 16 << 20);
    assert_eq!(limits.max_code_bytes, 1 << 20);
    assert_eq!(limits.max_concurrent_runs, 1024);
    assert_eq!(limits.max_images, 8);
    assert_eq!(limits.max_image_bytes, 8 << 20);
    assert_eq!(limits.grace_ms, 1000);
    assert_eq!(limits.description_budget_bytes, 32 << 10);
    assert_eq!(limits.escalated_max_timeout_ms, 1_800_000);
    assert_eq!(limits.escalated_memory_limit_bytes, 256 << 20);
    assert_eq!(limits.escalated_output_cap_bytes, 128 << 10);
    // contracts §6, Budgets.
    assert_eq!(limits.default_cpu_time_ms, 30_000);
    assert_eq!(limits.max_cpu_time_ms, 600_000);
    assert_eq!(limits.max_sub_calls, 10_000);
    // contracts §6, Approvals waiting: 16 at once, each for 10 minutes.
    let approvals = ptc::ApprovalLimits::default();
    assert_eq!(approvals.max_pending, 16);
    assert_eq!(approvals.wait_ms, 600_000);
}

/// A schema-invalid call is a sub-call: it has an id, a `started` and a
/// `settled` event, and counts in `subCalls`.
#[tokio::test]
async fn schema_invalid_calls_are_sub_calls() {
    let engine = Engine::new(test_registry(), Limits::default()).unwrap();
    let events = Events::default();
    let outcome = engine
        .run_code(
            RunRequest::new(
                "try { await tools.sleep({ ms: 'soon' }) } catch (e: any) { return e.code }",
            )
            .run_id("r"),
            events.options(),
        )
        .await
        .unwrap();
    assert_eq!(outcome.text(), "INVALID_ARGUMENTS");
    assert_eq!(outcome.sub_calls, 1);
    let kinds = events.take();
    assert!(
        matches!(&kinds[..], [
            ptc::RunEventKind::Started { id, name, .. },
            ptc::RunEventKind::Settled { id: settled, ok: false, error: Some(e), .. },
        ] if &**id == "r:ptc:1" && name == "sleep" && settled == id && e.code == ErrorCode::InvalidArguments),
        "{kinds:?}"
    );
}

/// `started` comes at submission, before policy: also before an approver
/// is asked, and for a call the approver then refuses.
#[tokio::test]
async fn started_comes_before_policy_and_approval() {
    let registry = test_registry();
    registry
        .add(Tool::new(
            ToolDefinition::new("guarded").policy(ptc::Policy::Ask),
            |a: Value, _: ToolContext| async move { Ok::<_, ToolError>(a) },
        ))
        .unwrap();
    let timeline = Arc::new(Mutex::new(Vec::<String>::new()));
    let asked = Arc::clone(&timeline);
    registry.set_approver(move |_request: ptc::ApprovalRequest| {
        asked.lock().unwrap().push("asked".into());
        async { Approval::Refused(Denial::new("no")) }
    });
    let engine = Engine::new(registry, Limits::default()).unwrap();
    let seen = Arc::clone(&timeline);
    let options = RunOptions::default().events(move |e: ptc::RunEvent| {
        let what = match e.kind {
            ptc::RunEventKind::Started { .. } => "started",
            ptc::RunEventKind::Settled { .. } => "settled",
            _ => "other",
        };
        seen.lock().unwrap().push(what.into());
    });
    let outcome = engine
        .run_code(
            RunRequest::new("try { await tools.guarded({}) } catch (e: any) { return e.code + ': ' + e.message }"),
            options,
        )
        .await
        .unwrap();
    assert_eq!(outcome.text(), "DENIED: no");
    assert_eq!(*timeline.lock().unwrap(), ["started", "asked", "settled"]);
}

/// `INVALID_OUTPUT` reaches the program like any failure, and `settled`
/// carries the value of a call that succeeded.
#[tokio::test]
async fn invalid_output_and_settled_values() {
    let registry = Registry::new();
    registry
        .add(Tool::new(
            ToolDefinition::new("count")
                .read_only(true)
                .output(json!({ "type": "integer" })),
            |a: Value, _: ToolContext| async move { Ok::<_, ToolError>(a["give"].clone()) },
        ))
        .unwrap();
    let engine = Engine::new(registry, Limits::default()).unwrap();
    let events = Events::default();
    let outcome = engine
        .run_code(
            RunRequest::new(
                "const ok = await tools.count({ give: 3 }); \
                 try { await tools.count({ give: 'three' }) } catch (e: any) { return ok + ' ' + e.code }",
            ),
            events.options(),
        )
        .await
        .unwrap();
    assert_eq!(outcome.text(), "3 INVALID_OUTPUT");
    let settled: Vec<(bool, Option<Value>)> = events
        .take()
        .into_iter()
        .filter_map(|k| match k {
            ptc::RunEventKind::Settled { ok, value, .. } => {
                Some((ok, value.and_then(|v| v.whole().cloned())))
            }
            _ => None,
        })
        .collect();
    assert_eq!(settled, [(true, Some(json!(3))), (false, None)]);
}

/// Run ids the engine makes are unique, also across engines.
#[tokio::test]
async fn generated_run_ids_are_unique() {
    let mut ids = HashSet::new();
    for _ in 0..2 {
        let engine = Engine::new(Registry::new(), Limits::default()).unwrap();
        for _ in 0..50 {
            let outcome = engine
                .run_code(RunRequest::new("return 1"), RunOptions::default())
                .await
                .unwrap();
            assert!(
                ids.insert(outcome.run_id.clone()),
                "{} twice",
                outcome.run_id
            );
        }
    }
}

/// Images past `maxImageBytes` are left out with a notice; the text stays.
#[tokio::test]
async fn images_past_the_byte_limit_are_left_out() {
    let registry = Registry::new();
    registry
        .add(Tool::new(
            ToolDefinition::new("picture").read_only(true),
            |a: Value, _: ToolContext| async move {
                let bytes = a["bytes"].as_u64().unwrap_or(3) as usize;
                let mut output = ToolOutput::new(json!("drawn"));
                output.content.push(ContentBlock::Image {
                    data: "A".repeat(bytes / 3 * 4),
                    mime_type: "image/png".into(),
                });
                Ok::<_, ToolError>(output)
            },
        ))
        .unwrap();
    let limits = Limits {
        max_image_bytes: 1000,
        ..Limits::default()
    };
    let engine = Engine::new(registry, limits).unwrap();
    let outcome = engine
        .run_code(
            RunRequest::new(
                "await tools.picture({ bytes: 600 }); await tools.picture({ bytes: 600 }); return 'done'",
            ),
            RunOptions::default(),
        )
        .await
        .unwrap();
    let blocks: Vec<String> = outcome
        .content
        .iter()
        .map(|b| match b {
            ContentBlock::Text { text } => text.clone(),
            ContentBlock::Image { data, .. } => format!("image of {} base64 bytes", data.len()),
            _ => String::new(),
        })
        .collect();
    assert_eq!(blocks.len(), 4, "{blocks:?}");
    assert_eq!(blocks[0], "done");
    assert!(
        blocks[1].starts_with("Image from `picture` (sub-call "),
        "{blocks:?}"
    );
    assert_eq!(blocks[2], "image of 800 base64 bytes");
    assert_eq!(
        blocks[3],
        "[1 image left out: at most 8 images and 1000 bytes per run]"
    );
}

/// A tool result too large for the run's heap ends the run as `memory`.
#[tokio::test]
async fn a_huge_tool_result_ends_the_run_as_memory() {
    let registry = Registry::new();
    registry
        .add(Tool::new(
            ToolDefinition::new("flood").read_only(true),
            |_: Value, _: ToolContext| async move { Ok::<_, ToolError>(json!("x".repeat(12 << 20))) },
        ))
        .unwrap();
    let limits = Limits {
        memory_limit_bytes: 8 << 20,
        ..Limits::default()
    };
    let engine = Engine::new(registry, limits).unwrap();
    let outcome = engine
        .run_code(
            RunRequest::new("try { const s = await tools.flood({}); return s.length } catch { return 'caught' }"),
            RunOptions::default(),
        )
        .await
        .unwrap();
    assert_eq!(
        outcome.kind,
        Some(FailureKind::Memory),
        "{}",
        outcome.text()
    );
}

/// Waits until `notes` holds `count` entries. A run that ends before is the
/// test's failure, shown, not a hang: its calls never reached the tools.
async fn until_noted<T>(
    notes: &Mutex<Vec<String>>,
    count: usize,
    run: &tokio::task::JoinHandle<T>,
) {
    while notes.lock().unwrap().len() < count {
        assert!(
            !run.is_finished(),
            "the run ended with {:?} noted, before its calls reached the tools",
            notes.lock().unwrap()
        );
        tokio::task::yield_now().await;
    }
}

/// A registry with `gate` (records "gate", then waits until released) and
/// `note` (records its label), for ordering tests that need no clock.
fn gate_and_note() -> (Registry, Arc<tokio::sync::Notify>, Arc<Mutex<Vec<String>>>) {
    let registry = Registry::new();
    let release = Arc::new(tokio::sync::Notify::new());
    let notes = Arc::new(Mutex::new(Vec::new()));
    let (gate, entered) = (Arc::clone(&release), Arc::clone(&notes));
    registry
        .add(Tool::new(
            ToolDefinition::new("gate").read_only(true),
            move |_: Value, _: ToolContext| {
                let gate = Arc::clone(&gate);
                entered.lock().unwrap().push("gate".to_owned());
                async move {
                    gate.notified().await;
                    Ok::<_, ToolError>(json!(null))
                }
            },
        ))
        .unwrap();
    let log = Arc::clone(&notes);
    registry
        .add(Tool::new(
            ToolDefinition::new("note").read_only(true),
            move |a: Value, _: ToolContext| {
                log.lock()
                    .unwrap()
                    .push(a["l"].as_str().unwrap_or("?").to_owned());
                async move { Ok::<_, ToolError>(json!(null)) }
            },
        ))
        .unwrap();
    (registry, release, notes)
}

/// Runs past `maxConcurrentRuns` are admitted in the order they came.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn runs_waiting_for_admission_go_in_order() {
    let (registry, release, notes) = gate_and_note();
    let limits = Limits {
        max_concurrent_runs: 1,
        ..Limits::default()
    };
    let engine = Engine::new(registry, limits).unwrap();
    let first = {
        let engine = engine.clone();
        tokio::spawn(async move {
            let code = "await tools.note({ l: 'A' }); await tools.gate({}); return 'A'";
            engine
                .run_code(RunRequest::new(code), RunOptions::default())
                .await
        })
    };
    until_noted(&notes, 2, &first).await;
    let later = |label: &'static str| {
        let engine = engine.clone();
        async move {
            let code = format!("await tools.note({{ l: '{label}' }}); return '{label}'");
            engine
                .run_code(RunRequest::new(code), RunOptions::default())
                .await
        }
    };
    // `join!` polls B first: B queues for admission before C.
    let (b, c, ()) = tokio::join!(later("B"), later("C"), async {
        tokio::task::yield_now().await;
        release.notify_one();
    });
    assert_eq!(first.await.unwrap().unwrap().text(), "A");
    assert_eq!(
        (b.unwrap().text().to_owned(), c.unwrap().text().to_owned()),
        ("B".into(), "C".into())
    );
    assert_eq!(*notes.lock().unwrap(), ["A", "gate", "B", "C"]);
}

/// `maxParallelSubCalls` is per run: one run's waiting call takes no slot
/// of another's.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_run_has_its_own_sub_call_slots() {
    let (registry, release, notes) = gate_and_note();
    let limits = Limits {
        max_parallel_sub_calls: 1,
        ..Limits::default()
    };
    let engine = Engine::new(registry, limits).unwrap();
    let waiting = {
        let engine = engine.clone();
        tokio::spawn(async move {
            let code = "await Promise.all([tools.gate({}), tools.note({ l: 'queued behind the gate' })]); return 'released'";
            engine
                .run_code(RunRequest::new(code), RunOptions::default())
                .await
        })
    };
    until_noted(&notes, 1, &waiting).await;
    let other = engine
        .run_code(
            RunRequest::new("await tools.note({ l: 'other run' }); return 'other done'"),
            RunOptions::default(),
        )
        .await
        .unwrap();
    assert_eq!(other.text(), "other done");
    assert_eq!(
        *notes.lock().unwrap(),
        ["gate", "other run"],
        "the first run's second call still waits"
    );
    release.notify_one();
    assert_eq!(waiting.await.unwrap().unwrap().text(), "released");
}

/// A failure's text is capped like any output.
#[tokio::test]
async fn failure_text_is_capped() {
    let limits = Limits {
        output_cap_bytes: 200,
        ..Limits::default()
    };
    let engine = Engine::new(Registry::new(), limits).unwrap();
    let outcome = engine
        .run_code(
            RunRequest::new("console.log('z'.repeat(500)); throw new Error('x'.repeat(100000))"),
            RunOptions::default(),
        )
        .await
        .unwrap();
    assert_eq!(outcome.kind, Some(FailureKind::Runtime));
    assert!(outcome.text().len() <= 200, "{}", outcome.text().len());
    assert!(
        outcome
            .text()
            .starts_with("Error: code run failed (runtime): Error: xxx")
    );
    assert!(
        outcome.text().contains("bytes left out"),
        "{}",
        outcome.text()
    );
}

//! The adversarial corpus (`tests/hostile/*.ts`): programs that try to
//! outlive their deadline, outgrow their memory, send invalid text or mislead
//! the model (contracts §6–§7). Each file starts with its expectation:
//!
//! ```text
//! // expect: ok | syntax | runtime | timeout | memory | cancelled
//! // timeout-ms: 300   (the deadline; at least 120000 unless expecting timeout)
//! // output: text the outcome must contain   (any number of lines)
//! // not-output: text it must not contain     (any number of lines)
//! ```
//!
//! Every run must end as expected, and none may leave a sandbox thread stuck
//! (the engine retires a thread whose JavaScript outlives deadline + grace,
//! which would mean an interrupt never reached it).

use std::path::PathBuf;
use std::time::{Duration, Instant};

use futures::StreamExt;
use ptc::{Engine, FailureKind, Limits, Outcome, RunOptions, RunRequest};

use crate::common::test_registry;

struct Case {
    name: String,
    expect: Option<FailureKind>,
    timeout_ms: u64,
    outputs: Vec<String>,
    not_outputs: Vec<String>,
    code: String,
}

/// Limits whose grace a loaded test machine cannot outlast by being slow:
/// only JavaScript that no interrupt reaches needs a thread retired. (10 s
/// was outlasted by a turn of native work on two cores under `stress`.)
fn patient() -> Limits {
    Limits {
        grace_ms: 60_000,
        ..Limits::default()
    }
}

/// The deadline a case runs with: its `timeout-ms`, and for a case that
/// does not expect `timeout`, at least 120 s, since there the deadline is
/// only a liveness bound (a 200,000-turn loop outlasted 20 s under load).
fn deadline_ms(case: &Case) -> u64 {
    if case.expect == Some(FailureKind::Timeout) {
        case.timeout_ms
    } else {
        case.timeout_ms.max(120_000)
    }
}

fn kind(word: &str) -> Option<FailureKind> {
    match word {
        "ok" => None,
        "syntax" => Some(FailureKind::Syntax),
        "runtime" => Some(FailureKind::Runtime),
        "timeout" => Some(FailureKind::Timeout),
        "memory" => Some(FailureKind::Memory),
        "cancelled" => Some(FailureKind::Cancelled),
        other => panic!("unknown expectation `{other}`"),
    }
}

fn corpus() -> Vec<Case> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/hostile");
    let mut paths: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|e| e == "ts"))
        .collect();
    paths.sort();
    paths
        .into_iter()
        .map(|path| {
            let code = std::fs::read_to_string(&path).unwrap();
            let name = path.file_stem().unwrap().to_string_lossy().into_owned();
            let header = |key: &str| -> Vec<String> {
                let prefix = format!("// {key}: ");
                code.lines()
                    .take_while(|line| line.starts_with("// "))
                    .filter_map(|line| line.strip_prefix(&prefix).map(str::to_owned))
                    .collect()
            };
            let expect = header("expect");
            assert_eq!(expect.len(), 1, "{name}: one `// expect:` line");
            Case {
                expect: kind(&expect[0]),
                timeout_ms: header("timeout-ms")
                    .first()
                    .map_or(1000, |ms| ms.parse().unwrap()),
                outputs: header("output"),
                not_outputs: header("not-output"),
                code,
                name,
            }
        })
        .collect()
}

async fn run(engine: &Engine, case: &Case) -> (Outcome, Duration) {
    let started = Instant::now();
    let request = RunRequest::new(case.code.clone()).timeout_ms(deadline_ms(case) as i64);
    let outcome = engine
        .run_code(request, RunOptions::default())
        .await
        .unwrap();
    (outcome, started.elapsed())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_hostile_program_ends_as_its_file_says() {
    let engine = Engine::new(test_registry(), patient()).unwrap();
    let cases = corpus();
    assert!(cases.len() >= 40, "the corpus is in tests/hostile");
    let results: Vec<(&Case, Outcome, Duration)> = futures::stream::iter(&cases)
        .map(|case| {
            let engine = engine.clone();
            async move {
                let (outcome, elapsed) = run(&engine, case).await;
                (case, outcome, elapsed)
            }
        })
        .buffer_unordered(3)
        .collect()
        .await;
    let mut wrong = Vec::new();
    for (case, outcome, elapsed) in results {
        let text = outcome.text();
        if outcome.kind != case.expect {
            wrong.push(format!(
                "{}: expected {:?}, got {:?}: {}",
                case.name,
                case.expect,
                outcome.kind,
                text.chars().take(300).collect::<String>()
            ));
        }
        for output in &case.outputs {
            if !text.contains(output.as_str()) {
                wrong.push(format!(
                    "{}: no `{output}` in {}",
                    case.name,
                    text.chars().take(300).collect::<String>()
                ));
            }
        }
        for output in &case.not_outputs {
            if let Some(at) = text.find(output.as_str()) {
                wrong.push(format!(
                    "{}: `{}` at byte {at} of {}",
                    case.name,
                    output.chars().take(60).collect::<String>(),
                    text.chars().take(300).collect::<String>()
                ));
            }
        }
        // A run that no interrupt reached is answered at deadline + grace
        // by the watchdog, and counted below; later is a hang.
        let bound = Duration::from_millis(deadline_ms(case) + patient().grace_ms);
        if elapsed > bound {
            wrong.push(format!("{}: answered after {elapsed:?}", case.name));
        }
    }
    assert_eq!(
        engine.retired_threads().total,
        0,
        "a sandbox thread was retired"
    );
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// The last line of defence: a step that never polls the interrupt. A
/// tool's call title is made on the sandbox thread when a run has an event
/// sink; this one blocks until the test lets it go, so the step outlives
/// the deadline and the grace however fast the machine. The run is
/// answered a grace after its deadline, the thread is counted as retired
/// (and stuck), and it comes back once the title returns.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_watchdog_answers_at_the_grace_and_the_thread_comes_back() {
    let (release, held) = std::sync::mpsc::channel::<()>();
    let held = std::sync::Mutex::new(held);
    let entered = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let entering = std::sync::Arc::clone(&entered);
    let registry = test_registry();
    registry
        .add(ptc::Tool::new(
            ptc::ToolDefinition::new("stuck").call_title(move |_| {
                entering.store(true, std::sync::atomic::Ordering::SeqCst);
                let _ = held.lock().unwrap().recv();
                "stuck".into()
            }),
            |_: serde_json::Value, _: ptc::ToolContext| async {
                Ok::<_, ptc::ToolError>(serde_json::json!(1))
            },
        ))
        .unwrap();
    let limits = Limits {
        grace_ms: 200,
        ..Limits::default()
    };
    let engine = Engine::new(registry, limits).unwrap();
    let options = RunOptions::default().events(|_: ptc::RunEvent| {});
    let request = RunRequest::new("console.log('calling'); return await tools.stuck({})");
    // Deadline enough for a loaded machine to reach the call first (300 ms
    // was not, under a CI build beside it: the run timed out before it).
    let outcome = engine
        .run_code(request.timeout_ms(2000), options)
        .await
        .unwrap();
    assert!(
        entered.load(std::sync::atomic::Ordering::SeqCst),
        "the run reached the stuck call before its deadline"
    );
    assert_eq!(
        outcome.kind,
        Some(FailureKind::Timeout),
        "{}",
        outcome.text()
    );
    let retired = engine.retired_threads();
    assert_eq!(
        (retired.total, retired.still_stuck),
        (1, 1),
        "the stuck thread was retired and is still stuck"
    );
    release.send(()).unwrap();
    // Liveness only: the title returns as soon as it is let go.
    crate::common::eventually("the thread to come back", || {
        engine.retired_threads().still_stuck == 0
    })
    .await;
    // The engine kept serving.
    let again = engine
        .run_code(RunRequest::new("return 1"), RunOptions::default())
        .await
        .unwrap();
    assert_eq!(again.text(), "1");
}

/// Loops whose every turn is seconds of native work without a poll end at
/// the deadline: past it, allocations fail, turns get short and the
/// interrupt handler is reached.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn loops_of_long_native_turns_end_at_the_deadline() {
    let engine = Engine::new(test_registry(), patient()).unwrap();
    for code in [
        "const a = Array.from({ length: 300000 }, (_, i) => i); for (;;) a.slice().sort()",
        "const s = 'x'.repeat(1 << 24); for (;;) JSON.stringify(s)",
        "const s = 'y'.repeat(1 << 22); for (;;) try { s.replaceAll('y', 'z') } catch {}",
    ] {
        let outcome = engine
            .run_code(RunRequest::new(code).timeout_ms(200), RunOptions::default())
            .await
            .unwrap();
        assert_eq!(
            outcome.text(),
            "Error: code run failed (timeout): the run exceeded its 200 ms deadline. By then it had made no sub-call; it was running JavaScript when the limit struck.",
            "{code}"
        );
    }
    assert_eq!(
        engine.retired_threads().total,
        0,
        "no thread needed retiring"
    );
}

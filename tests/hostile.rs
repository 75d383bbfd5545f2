//! The adversarial corpus (`tests/hostile/*.ts`): programs that try to
//! outlive their deadline, outgrow their memory, send invalid text or mislead
//! the model (contracts §6–§7). Each file starts with its expectation:
//!
//! ```text
//! // expect: ok | syntax | runtime | timeout | memory | cancelled
//! // timeout-ms: 300
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
/// only JavaScript that no interrupt reaches needs a thread retired.
fn patient() -> Limits {
    Limits {
        grace_ms: 10_000,
        ..Limits::default()
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
    let request = RunRequest::new(case.code.clone()).timeout_ms(case.timeout_ms as i64);
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
        // Generous: a run that no interrupt reached would be answered at
        // deadline + grace by the watchdog, and counted below.
        let bound = Duration::from_millis(case.timeout_ms) + Duration::from_secs(10);
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

/// The last line of defence, on the one operation known to escape the
/// interrupt for seconds: converting the largest BigInt QuickJS allows to
/// a radix that is not a power of two — decimal (`String(a)`) or any other
/// (`a.toString(7)`): quadratic, seconds here, allocating only at its
/// start. The run is cancelled while the conversion runs: it is answered a
/// grace later, the thread is counted as retired, and it comes back once
/// the conversion ends (the next one fails at once: allocations are
/// refused).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_watchdog_answers_at_the_grace_and_the_thread_comes_back() {
    for convert in ["String(a)", "a.toString(7)"] {
        cancelled_while_converting(convert).await;
    }
}

async fn cancelled_while_converting(convert: &str) {
    let engine = Engine::new(test_registry(), Limits::default()).unwrap();
    let cancel = tokio_util::sync::CancellationToken::new();
    // Cancelled a while after the conversion starts (it allocates first:
    // cancelled before that, it would fail at once). The conversion takes
    // seconds, so the cancel lands inside it however loaded the machine.
    let converting = cancel.clone();
    let options = RunOptions::default()
        .cancel(cancel.clone())
        .events(move |_: ptc::RunEvent| {
            let converting = converting.clone();
            std::thread::spawn(move || {
                std::thread::sleep(Duration::from_millis(500));
                converting.cancel();
            });
        });
    let code = format!("const a = 7n ** 370000n; console.log('converting'); for (;;) {convert}");
    let outcome = engine
        .run_code(RunRequest::new(code), options)
        .await
        .unwrap();
    assert_eq!(
        outcome.kind,
        Some(FailureKind::Cancelled),
        "{}",
        outcome.text()
    );
    assert_eq!(
        outcome.text(),
        "Error: code run failed (cancelled): the run was cancelled\nCaptured output:\nconverting"
    );
    assert_eq!(
        engine.retired_threads().total,
        1,
        "the stuck thread was retired"
    );
    // Liveness only: the conversion ends within seconds.
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
            "Error: code run failed (timeout): the run exceeded its 200 ms deadline",
            "{code}"
        );
    }
    assert_eq!(
        engine.retired_threads().total,
        0,
        "no thread needed retiring"
    );
}

//! Python programs (contracts, Python programs): the same `RunRequest` →
//! outcome contract as TypeScript, on Monty in worker processes. Needs the
//! `python` feature and Monty's worker (`monty` on PATH, from PyPI's
//! `pydantic-monty-runtime`, or `PTC_PYTHON_WORKER`). Every test's workers
//! carry its `NoLeaks` tag, so a worker left behind fails the test.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use ptc::{
    Engine, FailureKind, Language, Limits, Outcome, Registry, RunEvent, RunEventKind, RunOptions,
    RunRequest, workspace_tools,
};
use tempfile::TempDir;

use crate::common::{NoLeaks, test_registry};

fn python(code: &str) -> RunRequest {
    RunRequest::new(code).language(Language::Python)
}

async fn run(engine: &Engine, request: RunRequest) -> Outcome {
    engine
        .run_code(request, RunOptions::default())
        .await
        .expect("a valid request")
}

/// An engine whose Python workers carry `no_leaks`'s tag.
fn engine_with(no_leaks: &NoLeaks, registry: Registry, limits: Limits) -> Engine {
    Engine::new(registry, limits)
        .unwrap()
        .python_worker(no_leaks.python_worker())
}

fn engine(no_leaks: &NoLeaks) -> Engine {
    engine_with(no_leaks, test_registry(), Limits::default())
}

/// Warms a worker of `engine` and returns the slack for a wall-time bound:
/// a second plus 25 times what a trivial run takes on it now, so a loaded
/// machine widens the bound and a quiet one keeps it tight.
async fn warm_slack(engine: &Engine) -> Duration {
    run(engine, python("1")).await;
    let started = Instant::now();
    run(engine, python("1")).await;
    Duration::from_secs(1) + started.elapsed() * 25
}

/// The workspace tools over a fresh directory holding `notes.txt`.
fn workspace(no_leaks: &NoLeaks) -> (TempDir, Engine) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("notes.txt"), "alpha\nbeta\n").unwrap();
    let registry = Registry::new();
    registry
        .add_all(workspace_tools(dir.path()).unwrap())
        .unwrap();
    (dir, engine_with(no_leaks, registry, Limits::default()))
}

#[tokio::test]
async fn the_last_expression_is_the_result_and_print_is_captured() {
    let no_leaks = NoLeaks::new();
    let outcome = run(&engine(&no_leaks), python("print('hi')\nx = 6 * 7\nx")).await;
    assert!(!outcome.is_error, "{}", outcome.text());
    assert_eq!(outcome.text(), "hi\n42");
    let outcome = run(
        &engine(&no_leaks),
        python("{'a': [1, 2.5, None, True], 'b': 'é'}"),
    )
    .await;
    assert_eq!(outcome.text(), r#"{"a":[1,2.5,null,true],"b":"é"}"#);
    let outcome = run(&engine(&no_leaks), python("'plain text'")).await;
    assert_eq!(outcome.text(), "plain text");
    let outcome = run(&engine(&no_leaks), python("x = 1")).await;
    assert!(!outcome.is_error);
    assert_eq!(outcome.text(), "(run_code completed with no output)");
}

#[tokio::test]
async fn workspace_tools_are_called_through_the_pipeline() {
    let no_leaks = NoLeaks::new();
    let (_dir, engine) = workspace(&no_leaks);
    let code = "\
text = await tools.read_file(path='notes.txt')
listing = await tools.list_dir(path='.')
print(type(text).__name__)
[text, listing]";
    let events: Arc<Mutex<Vec<RunEvent>>> = Arc::default();
    let sink = Arc::clone(&events);
    let outcome = engine
        .run_code(
            python(code).run_id("py-ws"),
            RunOptions::default().events(move |e: RunEvent| sink.lock().unwrap().push(e)),
        )
        .await
        .unwrap();
    assert!(!outcome.is_error, "{}", outcome.text());
    assert_eq!(outcome.sub_calls, 2);
    assert!(outcome.text().contains("alpha"), "{}", outcome.text());
    assert!(outcome.text().contains("notes.txt"), "{}", outcome.text());
    let events = events.lock().unwrap();
    let started: Vec<&str> = events
        .iter()
        .filter_map(|e| match &e.kind {
            RunEventKind::Started { id, .. } => Some(&**id),
            _ => None,
        })
        .collect();
    assert_eq!(started, ["py-ws:ptc:1", "py-ws:ptc:2"]);
    let settled = events
        .iter()
        .filter(|e| matches!(e.kind, RunEventKind::Settled { ok: true, .. }))
        .count();
    assert_eq!(settled, 2);
}

#[tokio::test]
async fn invalid_arguments_and_tool_failures_raise_tool_call_error() {
    let no_leaks = NoLeaks::new();
    let (_dir, engine) = workspace(&no_leaks);
    let code = "\
try:
    await tools.read_file(path=5)
except ToolCallError as e:
    print('caught', e)
try:
    await tools['no-such-tool'](x=1)
except ToolCallError as e:
    print('caught', e)
'done'";
    let outcome = run(&engine, python(code)).await;
    assert!(!outcome.is_error, "{}", outcome.text());
    let text = outcome.text();
    assert!(
        text.contains("code INVALID_ARGUMENTS, tool `read_file`"),
        "{text}"
    );
    assert!(
        text.contains("code UNKNOWN_TOOL, tool `no-such-tool`"),
        "{text}"
    );
    assert!(text.ends_with("done"), "{text}");
}

/// `search_tools` and `describe_tools` answer at once, without a sub-call,
/// from the visible tools; bad arguments raise `TypeError` naming the function.
#[tokio::test]
async fn search_and_describe_answer_at_once() {
    let no_leaks = NoLeaks::new();
    let (_dir, engine) = workspace(&no_leaks);
    let code = "\
found = search_tools('read a file', limit=2)
text = describe_tools(['read_file', 'nope'])
one = describe_tools('list_dir')
errors = []
for bad in [lambda: search_tools(5), lambda: search_tools('x', limit='3'), lambda: describe_tools(5), lambda: describe_tools(['a', 1])]:
    try:
        bad()
    except TypeError as e:
        errors.append(str(e))
none_is_the_default = search_tools('file', limit=None) == search_tools('file')
[len(found), found[0]['name'], text, one, errors, none_is_the_default]";
    let outcome = run(&engine, python(code)).await;
    assert!(!outcome.is_error, "{}", outcome.text());
    assert_eq!(outcome.sub_calls, 0);
    let value: serde_json::Value = serde_json::from_str(outcome.text()).unwrap();
    assert_eq!(value[0], 2);
    assert_eq!(value[1], "read_file");
    let text = value[2].as_str().unwrap();
    assert!(text.starts_with("class _Tools:\n"), "{text}");
    assert!(text.contains("    async def read_file(\n"), "{text}");
    assert!(text.ends_with("# unknown: nope\n"), "{text}");
    assert!(value[3].as_str().unwrap().contains("async def list_dir("));
    assert_eq!(
        value[4],
        serde_json::json!([
            "search_tools: the query must be a str",
            "search_tools: limit must be a number",
            "describe_tools: names must be a str or a list of str",
            "describe_tools: every name must be a str"
        ])
    );
    assert_eq!(value[5], true, "limit=None is the default limit");
}

/// A registry whose `run_code` speaks Python runs the model's programs as
/// Python: `Engine::invoke` as `ptc mcp` calls it.
#[tokio::test]
async fn invoke_runs_the_model_program_in_the_registry_language() {
    let no_leaks = NoLeaks::new();
    let (_dir, engine) = workspace(&no_leaks);
    engine.registry().set_language(Language::Python);
    let call = ptc::Call::new(
        "c1",
        "run_code",
        serde_json::json!({ "code": "n = len(await tools.list_dir(path='.'))\nf'{n} entries'", "description": "count" }),
    );
    match engine.invoke(call, RunOptions::default()).await {
        ptc::Invocation::Run(outcome) => {
            assert!(!outcome.is_error, "{}", outcome.text());
            assert!(outcome.text().ends_with(" entries"), "{}", outcome.text());
        }
        other => panic!("not a run: {other:?}"),
    }
}

/// `asyncio.gather` overlaps calls: all three are in the tool at once;
/// with one call at a time, one is. Counted in the tool, not read from a
/// clock a loaded machine slows.
#[tokio::test]
async fn gather_runs_calls_in_parallel_under_the_scheduler() {
    use std::sync::atomic::{AtomicUsize, Ordering};
    let no_leaks = NoLeaks::new();
    let code = "\
import asyncio
r = await asyncio.gather(tools.nap(), tools.nap(), tools.nap())
r";
    let most = |max_parallel_sub_calls: usize| {
        let (now, most) = (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0)));
        let (inside, seen) = (Arc::clone(&now), Arc::clone(&most));
        let registry = Registry::new();
        let nap = ptc::ToolDefinition::new("nap").read_only(true);
        registry
            .add(ptc::Tool::new(
                nap,
                move |_: serde_json::Value, _: ptc::ToolContext| {
                    let (inside, seen) = (Arc::clone(&inside), Arc::clone(&seen));
                    async move {
                        seen.fetch_max(inside.fetch_add(1, Ordering::SeqCst) + 1, Ordering::SeqCst);
                        tokio::time::sleep(Duration::from_millis(300)).await;
                        inside.fetch_sub(1, Ordering::SeqCst);
                        Ok::<_, ptc::ToolError>(serde_json::json!(1))
                    }
                },
            ))
            .unwrap();
        let limits = Limits {
            max_parallel_sub_calls,
            ..Limits::default()
        };
        (engine_with(&no_leaks, registry, limits), most)
    };
    for (parallel, at_once) in [(10, 3), (1, 1)] {
        let (engine, most) = most(parallel);
        let outcome = run(&engine, python(code)).await;
        assert_eq!(outcome.text(), "[1,1,1]");
        assert_eq!(
            most.load(Ordering::SeqCst),
            at_once,
            "at most {parallel} at once"
        );
    }
}

#[tokio::test]
async fn many_sub_calls_are_bounded_by_the_deadline_not_by_count() {
    let no_leaks = NoLeaks::new();
    let code = "n = 0\nfor i in range(1500):\n    n += (await tools.echo(i=i))['i']\nn";
    let outcome = run(&engine(&no_leaks), python(code)).await;
    assert!(!outcome.is_error, "{}", outcome.text());
    assert_eq!(outcome.text(), (0..1500).sum::<u32>().to_string());
    assert_eq!(outcome.sub_calls, 1500);
}

#[tokio::test]
async fn an_uncaught_failure_is_runtime_naming_the_line() {
    let no_leaks = NoLeaks::new();
    let code = "x = 1\ny = await tools.fail()\ny";
    let outcome = run(&engine(&no_leaks), python(code)).await;
    assert_eq!(
        outcome.kind,
        Some(FailureKind::Runtime),
        "{}",
        outcome.text()
    );
    let text = outcome.text();
    assert!(
        text.contains("ToolCallError: it broke (code TOOL_ERROR, tool `fail`)"),
        "{text}"
    );
    assert!(!text.contains("RuntimeError"), "{text}");
    assert!(text.contains("(line 2,"), "{text}");
    let outcome = run(&engine(&no_leaks), python("a = 1\nb = {}\nb['missing']")).await;
    assert_eq!(outcome.kind, Some(FailureKind::Runtime));
    assert!(outcome.text().contains("KeyError"), "{}", outcome.text());
    assert!(outcome.text().contains("(line 3,"), "{}", outcome.text());
    assert!(
        outcome.text().contains("b['missing']"),
        "{}",
        outcome.text()
    );
}

#[tokio::test]
async fn a_reused_worker_keeps_nothing_of_the_run_before() {
    let no_leaks = NoLeaks::new();
    let engine = engine(&no_leaks);
    let outcome = run(&engine, python("secret = 'first run'\nsecret")).await;
    assert_eq!(outcome.text(), "first run");
    for _ in 0..3 {
        let outcome = run(&engine, python("secret")).await;
        assert_eq!(
            outcome.kind,
            Some(FailureKind::Runtime),
            "{}",
            outcome.text()
        );
        assert!(outcome.text().contains("NameError"), "{}", outcome.text());
    }
}

#[tokio::test]
async fn a_syntax_error_is_syntax() {
    let no_leaks = NoLeaks::new();
    let outcome = run(&engine(&no_leaks), python("x = 1\ndef (:\n")).await;
    assert_eq!(
        outcome.kind,
        Some(FailureKind::Syntax),
        "{}",
        outcome.text()
    );
    assert!(outcome.text().contains("line 2"), "{}", outcome.text());
}

#[tokio::test]
async fn the_deadline_ends_a_waiting_program_as_timeout() {
    let no_leaks = NoLeaks::new();
    let code = "await tools.sleep(ms=60000)";
    let engine = engine(&no_leaks);
    // A warm worker: the 300 ms are the program's, not a worker's start.
    let slack = warm_slack(&engine).await;
    let started = Instant::now();
    let outcome = run(&engine, python(code).timeout_ms(300)).await;
    assert_eq!(
        outcome.kind,
        Some(FailureKind::Timeout),
        "{}",
        outcome.text()
    );
    assert!(outcome.text().contains("`sleep`"), "{}", outcome.text());
    let bound = Duration::from_millis(300 + Limits::default().grace_ms) + slack;
    assert!(started.elapsed() < bound, "{:?}", started.elapsed());
}

#[tokio::test]
async fn every_started_call_settles_once_also_when_the_run_times_out() {
    let no_leaks = NoLeaks::new();
    let events: Arc<Mutex<Vec<RunEvent>>> = Arc::default();
    let sink = Arc::clone(&events);
    let code = "\
import asyncio
await tools.echo(x=1)
await asyncio.gather(tools.sleep(ms=60000), tools.sleep(ms=60000))";
    let engine = engine(&no_leaks);
    // A warm worker: the 500 ms are the program's, not a worker's start.
    run(&engine, python("1")).await;
    let outcome = engine
        .run_code(
            python(code).timeout_ms(500),
            RunOptions::default().events(move |e: RunEvent| sink.lock().unwrap().push(e)),
        )
        .await
        .unwrap();
    assert_eq!(
        outcome.kind,
        Some(FailureKind::Timeout),
        "{}",
        outcome.text()
    );
    assert!(
        outcome.text().contains("waiting on `sleep`"),
        "{}",
        outcome.text()
    );
    let events = events.lock().unwrap();
    let ids = |started: bool| {
        let mut ids: Vec<String> = events
            .iter()
            .filter_map(|e| match (&e.kind, started) {
                (RunEventKind::Started { id, .. }, true) => Some(id.to_string()),
                (RunEventKind::Settled { id, .. }, false) => Some(id.to_string()),
                _ => None,
            })
            .collect();
        ids.sort();
        ids
    };
    assert_eq!(ids(true).len(), 3);
    assert_eq!(ids(true), ids(false));
}

#[tokio::test]
async fn a_cancelled_run_is_cancelled_at_once() {
    let no_leaks = NoLeaks::new();
    let cancel = tokio_util::sync::CancellationToken::new();
    let engine = engine(&no_leaks);
    let slack = warm_slack(&engine).await;
    let run = engine.run_code(
        python("while True:\n    pass"),
        RunOptions::default().cancel(cancel.clone()),
    );
    let started = Instant::now();
    let (outcome, ()) = tokio::join!(run, async {
        tokio::time::sleep(Duration::from_millis(300)).await;
        cancel.cancel();
    });
    let outcome = outcome.unwrap();
    assert_eq!(
        outcome.kind,
        Some(FailureKind::Cancelled),
        "{}",
        outcome.text()
    );
    let bound = Duration::from_millis(300) + slack;
    assert!(started.elapsed() < bound, "{:?}", started.elapsed());
}

#[tokio::test]
async fn output_is_capped_as_for_typescript() {
    let no_leaks = NoLeaks::new();
    let limits = Limits {
        output_cap_bytes: 200,
        ..Limits::default()
    };
    let engine = engine_with(&no_leaks, test_registry(), limits);
    let outcome = run(
        &engine,
        python("for i in range(1000):\n    print('line', i)\n'end'"),
    )
    .await;
    assert!(!outcome.is_error);
    assert!(outcome.text().len() <= 200, "{}", outcome.text().len());
    assert!(outcome.text().contains("line 0"), "{}", outcome.text());
}

/// Hostile Python (contracts, Python programs): every run ends by its
/// deadline plus the grace, memory exhaustion ends as `memory`, and the
/// program reaches no file, environment, process or network.
mod hostile {
    use super::*;

    const DEADLINE_MS: u64 = 1_000;

    /// Runs `code` under a 1 s deadline and a 64 MiB limit; asserts it ended
    /// by deadline + grace (and the slack a trivial run measures).
    async fn hostile(no_leaks: &NoLeaks, code: &str) -> Outcome {
        let limits = Limits {
            memory_limit_bytes: 64 << 20,
            ..Limits::default()
        };
        let grace = Duration::from_millis(limits.grace_ms);
        let engine = engine_with(no_leaks, test_registry(), limits);
        // A warm worker: the deadline is the program's, not a worker's start.
        let slack = warm_slack(&engine).await;
        let started = Instant::now();
        let outcome = run(&engine, python(code).timeout_ms(DEADLINE_MS as i64)).await;
        let took = started.elapsed();
        assert!(
            took < Duration::from_millis(DEADLINE_MS) + grace + slack,
            "{code:?} took {took:?}: {}",
            outcome.text()
        );
        outcome
    }

    fn assert_kind(outcome: &Outcome, kinds: &[FailureKind]) {
        assert!(
            outcome.kind.is_some_and(|k| kinds.contains(&k)),
            "expected one of {kinds:?}, got {:?}: {}",
            outcome.kind,
            outcome.text()
        );
    }

    /// `tests/hostile/*.py`: each file's first lines say how it ends
    /// (`# expect: timeout|memory|runtime|syntax|ok`) and what its text must
    /// (`# output: …`) and must not (`# not-output: …`) contain.
    #[tokio::test]
    async fn every_hostile_python_file_ends_as_it_says() {
        let no_leaks = NoLeaks::new();
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/hostile");
        let mut files: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|entry| entry.unwrap().path())
            .filter(|path| path.extension().is_some_and(|e| e == "py"))
            .collect();
        files.sort();
        assert!(files.len() >= 15, "the Python corpus is in tests/hostile");
        for file in files {
            let code = std::fs::read_to_string(&file).unwrap();
            let header = |key: &str| -> Vec<&str> {
                let prefix = format!("# {key}: ");
                code.lines()
                    .take_while(|line| line.starts_with('#'))
                    .filter_map(|line| line.strip_prefix(prefix.as_str()))
                    .collect()
            };
            let expect = header("expect");
            assert_eq!(expect.len(), 1, "{}: one `# expect:` line", file.display());
            // `timeout or memory`: what a loaded machine reaches first.
            let expect: Vec<Option<FailureKind>> = expect[0]
                .split(" or ")
                .map(|word| match word {
                    "ok" => None,
                    "timeout" => Some(FailureKind::Timeout),
                    "memory" => Some(FailureKind::Memory),
                    "runtime" => Some(FailureKind::Runtime),
                    "syntax" => Some(FailureKind::Syntax),
                    other => panic!("{}: unknown expectation {other:?}", file.display()),
                })
                .collect();
            let outcome = hostile(&no_leaks, &code).await;
            let text = outcome.text();
            assert!(expect.contains(&outcome.kind), "{}: {text}", file.display());
            for wanted in header("output") {
                assert!(
                    text.contains(wanted),
                    "{}: no {wanted:?} in {text}",
                    file.display()
                );
            }
            for unwanted in header("not-output") {
                assert!(
                    !text.contains(unwanted),
                    "{}: {unwanted:?} in {text}",
                    file.display()
                );
            }
        }
    }

    #[tokio::test]
    async fn long_computations_end_at_the_deadline() {
        let no_leaks = NoLeaks::new();
        for code in [
            "while True:\n    pass",
            "sum(range(10**12))",
            "x = 0\nfor i in range(10**12):\n    x += i\nx",
            "n = 0\nwhile True:\n    n = (n * 7 + 3) % 1000003",
        ] {
            let outcome = hostile(&no_leaks, code).await;
            assert_kind(&outcome, &[FailureKind::Timeout]);
            assert!(
                outcome
                    .text()
                    .contains("it was running Python when the limit struck"),
                "{}",
                outcome.text()
            );
        }
    }

    #[tokio::test]
    async fn huge_data_ends_at_the_deadline_or_the_memory_limit() {
        let no_leaks = NoLeaks::new();
        for code in [
            "a = sorted(list(range(10**9)))\nlen(a)",
            "x = 2**10**8\n1",
            "x = 2**10**9\n1",
            "s = 'a' * 10**10\nlen(s)",
        ] {
            let outcome = hostile(&no_leaks, code).await;
            assert_kind(&outcome, &[FailureKind::Timeout, FailureKind::Memory]);
        }
    }

    #[tokio::test]
    async fn growing_memory_ends_as_memory() {
        let no_leaks = NoLeaks::new();
        for code in [
            "a = []\nwhile True:\n    a.append('x' * 10000)",
            "d = {}\ni = 0\nwhile True:\n    d[i] = [i] * 100\n    i += 1",
        ] {
            let outcome = hostile(&no_leaks, code).await;
            assert_kind(&outcome, &[FailureKind::Memory]);
            assert!(
                outcome.text().contains("memory limit of 64 MiB"),
                "{}",
                outcome.text()
            );
        }
    }

    #[tokio::test]
    async fn deep_recursion_is_a_runtime_error() {
        let no_leaks = NoLeaks::new();
        let outcome = hostile(&no_leaks, "def f(n):\n    return f(n + 1)\nf(0)").await;
        assert_kind(&outcome, &[FailureKind::Runtime]);
        assert!(
            outcome.text().contains("RecursionError"),
            "{}",
            outcome.text()
        );
    }

    /// Each way out is refused on its own, with the sandbox's own error at
    /// the line that tried: one escape that worked, or a run that never
    /// reached a worker, fails the test.
    #[tokio::test]
    async fn no_file_environment_process_or_network() {
        let no_leaks = NoLeaks::new();
        for (code, refused) in [
            (
                "open('/etc/passwd').read()",
                "PermissionError: Permission denied: '/etc/passwd' (line 1,",
            ),
            (
                "from pathlib import Path\nPath('/etc/passwd').read_text()",
                "PermissionError: Permission denied: '/etc/passwd' (line 2,",
            ),
            (
                "import os\nos.listdir('/')",
                "PermissionError: Permission denied: '/' (line 2,",
            ),
            (
                "import os\nos.getenv('HOME')",
                "RuntimeError: 'os.getenv' is not supported in this environment (line 2,",
            ),
            (
                "import os\nos.environ['HOME']",
                "RuntimeError: 'os.environ' is not supported in this environment (line 2,",
            ),
            (
                "import os\nos.system('touch /tmp/ptc-python-escaped')",
                "AttributeError: module 'os' has no attribute 'system' (line 2,",
            ),
            (
                "import subprocess\nsubprocess.run(['id'])",
                "ModuleNotFoundError: No module named 'subprocess' (line 1,",
            ),
            (
                "import socket\nsocket.create_connection(('127.0.0.1', 22))",
                "ModuleNotFoundError: No module named 'socket' (line 1,",
            ),
            (
                "import sys\nsys.modules['os'].getenv('HOME')",
                "AttributeError: module 'sys' has no attribute 'modules' (line 2,",
            ),
            (
                "__import__('os').getenv('HOME')",
                "NameError: name '__import__' is not defined (line 1,",
            ),
            (
                "import ctypes",
                "ModuleNotFoundError: No module named 'ctypes' (line 1,",
            ),
            (
                "eval(\"__import__('os')\")",
                "NameError: name '__import__' is not defined (line 1,",
            ),
            (
                "exec(\"import os\\nos.getenv('HOME')\")",
                "RuntimeError: 'os.getenv' is not supported in this environment (line 1,",
            ),
            (
                "type(1).__subclasses__()",
                "AttributeError: type object 'int' has no attribute '__subclasses__' (line 1,",
            ),
        ] {
            let outcome = hostile(&no_leaks, code).await;
            assert_eq!(
                outcome.kind,
                Some(FailureKind::Runtime),
                "{code:?}: {}",
                outcome.text()
            );
            let text = outcome.text();
            assert!(
                text.starts_with(&format!("Error: code run failed (runtime): {refused}")),
                "{code:?} was not refused with {refused:?}: {text}"
            );
        }
        assert!(!std::path::Path::new("/tmp/ptc-python-escaped").exists());
    }

    #[tokio::test]
    async fn text_out_is_valid_utf8_and_capped() {
        let no_leaks = NoLeaks::new();
        let outcome = hostile(&no_leaks, "print('\\udcff' + 'é' + '\\x00')\n'\\ud800'").await;
        // A `String` is UTF-8 by construction; what matters is that the run ended.
        assert!(outcome.text().is_char_boundary(outcome.text().len()));
        let outcome = hostile(&no_leaks, "print('x' * 10**6)\n'y' * 10**6").await;
        assert!(!outcome.is_error, "{}", outcome.text());
        assert!(outcome.text().len() <= Limits::default().output_cap_bytes);
    }
}

/// The Python example of docs/cli.md, run as written through the binary.
#[test]
fn the_cli_docs_python_example_runs() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = std::fs::read_to_string(root.join("docs/cli.md")).unwrap();
    let start = readme.find("```python\n# list.py\n").expect("the example") + 10;
    let program = &readme[start..start + readme[start..].find("```").unwrap()];
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("list.py"), program).unwrap();
    std::fs::write(dir.path().join("b.txt"), "").unwrap();
    std::fs::write(dir.path().join("a.txt"), "").unwrap();
    let output = crate::common::output(
        std::process::Command::new(env!("CARGO_BIN_EXE_ptc"))
            .args(["run", "list.py"])
            .current_dir(dir.path())
            .stdin(std::process::Stdio::null()),
    );
    let out = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{out}{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert_eq!(
        out.trim_end(),
        "3 entries\n[\"a.txt\",\"b.txt\",\"list.py\"]"
    );
}

/// A call is made as the stubs declare it: mangled arguments (`from_`,
/// `user_id`, `self_`) reach the tool under their JSON names, `None` is not
/// sent, and a tool whose stub takes one positional `args` (a schema that is
/// no plain object) takes it, in a namespace as at the top. One dict of the
/// arguments works for any tool; more is a `TypeError` naming the tool.
#[tokio::test]
async fn calls_reach_tools_as_their_stubs_declare() {
    let no_leaks = NoLeaks::new();
    use ptc::{Tool, ToolContext, ToolDefinition, ToolError, render_python};
    let echo = |a: serde_json::Value, _: ToolContext| async move { Ok::<_, ToolError>(a) };
    let keywords = ToolDefinition::new("kw").read_only(true).parameters(serde_json::json!({
        "type": "object",
        "properties": { "from": { "type": "string" }, "user-id": { "type": "integer" }, "self": {} },
        "required": ["from"]
    }));
    let positional = ToolDefinition::new("ns.either").read_only(true).parameters(serde_json::json!({
        "anyOf": [
            { "type": "object", "properties": { "a": { "type": "integer" } }, "required": ["a"] },
            { "type": "object", "properties": { "b": { "type": "integer" } }, "required": ["b"] }
        ]
    }));
    let stubs = render_python(&[&keywords, &positional]);
    let stubs = stubs.split_whitespace().collect::<Vec<_>>().join(" ");
    for declared in [
        "async def kw( self, *, from_: str, user_id: int | None = None, self_: Any = None, )",
        "async def either(self, args: NsEitherArgs1 | NsEitherArgs2, /)",
    ] {
        assert!(stubs.contains(declared), "{declared} in {stubs}");
    }
    let registry = Registry::new();
    registry.add(Tool::new(keywords, echo)).unwrap();
    registry.add(Tool::new(positional, echo)).unwrap();
    let engine = engine_with(&no_leaks, registry, Limits::default());
    let code = "\
print(await tools.kw(from_='x', user_id=3, self_=[1]))
print(await tools.kw(from_='x', user_id=None))
print(await tools.ns.either({'b': 2}))
print(await tools['ns.either']({'a': 1}))
print(await tools.kw({'from': 'y', 'user-id': 4}))
print(await tools['kw'](**{'from': 'z'}))
try:
    await tools.kw({'from': 'y'}, user_id=2)
except TypeError as e:
    print('TypeError:', e)
'done'";
    let outcome = run(&engine, python(code)).await;
    assert!(!outcome.is_error, "{}", outcome.text());
    assert_eq!(
        outcome.text(),
        "{'from': 'x', 'user-id': 3, 'self': [1]}\n\
         {'from': 'x'}\n\
         {'b': 2}\n\
         {'a': 1}\n\
         {'from': 'y', 'user-id': 4}\n\
         {'from': 'z'}\n\
         TypeError: tool `kw` takes keyword arguments, or one dict holding them all\n\
         done"
    );
}

/// Images a Python program's sub-calls returned follow its text, as in
/// TypeScript, under the same `max_images`.
#[tokio::test]
async fn images_of_sub_calls_follow_the_text() {
    let no_leaks = NoLeaks::new();
    use ptc::{ContentBlock, Tool, ToolContext, ToolDefinition, ToolError, ToolOutput};
    let registry = test_registry();
    let shot = |_a: serde_json::Value, _: ToolContext| async {
        let image = ContentBlock::Image {
            data: "iVBORw0KGgo=".into(),
            mime_type: "image/png".into(),
        };
        Ok::<_, ToolError>(ToolOutput::new(serde_json::json!("taken")).with_content(image))
    };
    registry
        .add(Tool::new(ToolDefinition::new("shot").read_only(true), shot))
        .unwrap();
    let limits = Limits {
        max_images: 2,
        ..Limits::default()
    };
    let engine = engine_with(&no_leaks, registry, limits);
    let code = "for i in range(3):\n    await tools.shot()\n'ok'";
    let o = run(&engine, python(code).run_id("pyimg")).await;
    assert!(!o.is_error, "{}", o.text());
    assert_eq!(o.content.len(), 1 + 2 * 2 + 1, "{:?}", o.content);
    assert_eq!(
        o.content[1],
        ContentBlock::text("Image from `shot` (sub-call pyimg:ptc:1):")
    );
    assert!(matches!(o.content[2], ContentBlock::Image { .. }));
}

/// Workers die with their run and with ptc (contracts, Python programs,
/// "Workers"): each test finds its worker by its `NoLeaks` tag.
mod workers {
    use std::sync::atomic::{AtomicBool, Ordering};

    use super::*;
    use crate::common::tagged;

    /// CPU time `pid` has used, in clock ticks (0 once it is gone).
    fn cpu_ticks(pid: i32) -> u64 {
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
        let fields: Vec<&str> = stat
            .rsplit(')')
            .next()
            .unwrap_or("")
            .split_whitespace()
            .collect();
        let field = |n: usize| fields.get(n).and_then(|f| f.parse::<u64>().ok());
        field(11).unwrap_or(0) + field(12).unwrap_or(0)
    }

    /// Whether `process` is a Monty worker (`monty subprocess`), not a
    /// shell a launcher runs on the way (pyenv's shim forks a few).
    fn is_worker(process: &crate::common::Leak) -> bool {
        let mut words = process.command_line.split(' ');
        words
            .next()
            .is_some_and(|program| program.ends_with("/monty"))
            && words.next() == Some("subprocess")
    }

    /// The worker carrying `tag` once it has used `ticks` of CPU (20: it
    /// runs the program); a liveness bound only.
    pub(crate) fn worker(tag: &str, ticks: u64) -> i32 {
        let start = Instant::now();
        loop {
            let busy = tagged(tag)
                .into_iter()
                .find(|p| is_worker(p) && cpu_ticks(p.pid) >= ticks);
            if let Some(worker) = busy {
                return worker.pid;
            }
            assert!(
                start.elapsed() < Duration::from_secs(60),
                "no busy worker tagged {tag}: {:?}",
                tagged(tag)
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Whether `pid` is gone (or a zombie) within `bound`.
    pub(crate) fn gone_within(pid: i32, bound: Duration) -> bool {
        let start = Instant::now();
        while start.elapsed() < bound {
            let state = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok();
            let alive = state.is_some_and(|stat| {
                !stat
                    .rsplit(')')
                    .next()
                    .unwrap_or("")
                    .trim_start()
                    .starts_with(['Z', 'X'])
            });
            if !alive {
                return true;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        false
    }

    /// A busy program's worker is killed when its run ends, at the deadline
    /// or on cancel, not left to run or to idle in the pool (which keeps at
    /// least one warm worker, so a worker handed back would stay). The
    /// cancelled run's deadline is 60 s, as is the worker's own clock: gone
    /// within 20 s, it was killed.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_busy_worker_is_killed_at_the_deadline_and_on_cancel() {
        let no_leaks = NoLeaks::new();
        let engine = engine(&no_leaks);
        let tag = no_leaks.tag().to_owned();
        // Found as soon as it is there: a loaded machine may not give it
        // much of the 5 s.
        let finding = tokio::task::spawn_blocking(move || worker(&tag, 0));
        let outcome = run(&engine, python("while True:\n    pass").timeout_ms(5_000)).await;
        assert_eq!(
            outcome.kind,
            Some(FailureKind::Timeout),
            "{}",
            outcome.text()
        );
        let pid = finding.await.unwrap();
        assert!(
            gone_within(pid, Duration::from_secs(20)),
            "the worker {pid} outlived its run's deadline"
        );

        let cancel = tokio_util::sync::CancellationToken::new();
        let tag = no_leaks.tag().to_owned();
        let stop = cancel.clone();
        let finding = tokio::task::spawn_blocking(move || {
            let pid = worker(&tag, 20);
            stop.cancel();
            pid
        });
        let outcome = engine
            .run_code(
                python("while True:\n    pass").timeout_ms(60_000),
                RunOptions::default().cancel(cancel),
            )
            .await
            .unwrap();
        assert_eq!(
            outcome.kind,
            Some(FailureKind::Cancelled),
            "{}",
            outcome.text()
        );
        let pid = finding.await.unwrap();
        assert!(
            gone_within(pid, Duration::from_secs(20)),
            "the worker {pid} outlived its cancelled run"
        );
        assert!(
            tagged(no_leaks.tag()).is_empty(),
            "{:?}",
            tagged(no_leaks.tag())
        );
    }

    /// The workers carrying `tag` alive now.
    fn workers_of(tag: &str) -> usize {
        tagged(tag).iter().filter(|p| is_worker(p)).count()
    }

    /// Counts this test's workers until told to stop: the most seen at
    /// once.
    fn most_workers(tag: &str) -> (Arc<AtomicBool>, tokio::task::JoinHandle<usize>) {
        let done = Arc::new(AtomicBool::new(false));
        let (watching, tag) = (Arc::clone(&done), tag.to_owned());
        let most = tokio::task::spawn_blocking(move || {
            let mut most = 0;
            while !watching.load(Ordering::Relaxed) {
                most = most.max(workers_of(&tag));
                std::thread::sleep(Duration::from_millis(10));
            }
            most
        });
        (done, most)
    }

    /// After a burst, idle workers beyond one per core are reaped, and
    /// those are kept: a burst of two more runs at once than cores (each
    /// waiting 3 s on a tool, so each has a worker of its own), then the
    /// workers go down to the cores' number and stay there.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn idle_workers_past_one_per_core_are_reaped() {
        let no_leaks = NoLeaks::new();
        let engine = engine(&no_leaks);
        let warm = std::thread::available_parallelism().map_or(1, std::num::NonZero::get);
        let (done, most) = most_workers(no_leaks.tag());
        let runs = (0..warm + 2).map(|_| run(&engine, python("await tools.sleep(ms=3000)\n'ok'")));
        for outcome in futures::future::join_all(runs).await {
            assert_eq!(outcome.text(), "ok");
        }
        done.store(true, Ordering::Relaxed);
        let most = most.await.unwrap();
        assert!(most > warm, "the burst had {most} workers at most");
        crate::common::eventually("idle workers reaped to one per core", || {
            workers_of(no_leaks.tag()) <= warm
        })
        .await;
        // Three looks of the reaper later, the warm ones are still there.
        tokio::time::sleep(Duration::from_secs(3)).await;
        assert_eq!(workers_of(no_leaks.tag()), warm);
    }

    /// At most the ceiling of workers at once: with a memory limit the
    /// machine can hold only once, one worker serves runs in turn, and a
    /// run that gets no worker before its deadline ends as `timeout`.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn the_ceiling_of_workers_holds() {
        let no_leaks = NoLeaks::new();
        let limits = Limits {
            memory_limit_bytes: 1 << 60,
            ..Limits::default()
        };
        let engine = engine_with(&no_leaks, test_registry(), limits);
        let (done, most) = most_workers(no_leaks.tag());
        let runs = (0..3).map(|_| run(&engine, python("await tools.sleep(ms=300)\n'ok'")));
        for outcome in futures::future::join_all(runs).await {
            assert_eq!(outcome.text(), "ok");
        }
        // One run holds the worker (its call has started); another waits.
        let started = Arc::new(tokio::sync::Notify::new());
        let notify = Arc::clone(&started);
        let held = engine.run_code(
            python("await tools.sleep(ms=6000)\n'held'"),
            RunOptions::default().events(move |e: RunEvent| {
                if matches!(e.kind, RunEventKind::Started { .. }) {
                    notify.notify_one();
                }
            }),
        );
        let waiting = async {
            started.notified().await;
            run(&engine, python("'never'").timeout_ms(1_000)).await
        };
        let (held, waiting) = tokio::join!(held, waiting);
        done.store(true, Ordering::Relaxed);
        assert_eq!(held.unwrap().text(), "held");
        assert_eq!(
            waiting.kind,
            Some(FailureKind::Timeout),
            "{}",
            waiting.text()
        );
        assert_eq!(most.await.unwrap(), 1);
    }

    /// A worker that dies under its run (here killed from outside) fails
    /// that run as `runtime`, "the Python worker failed: …"; the next run
    /// gets another worker.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_worker_that_dies_fails_its_run_and_the_next_gets_another() {
        let no_leaks = NoLeaks::new();
        let engine = engine(&no_leaks);
        let tag = no_leaks.tag().to_owned();
        let killing = tokio::task::spawn_blocking(move || {
            let pid = worker(&tag, 20);
            // SAFETY: kill has no memory effects.
            unsafe { libc::kill(pid, libc::SIGKILL) };
            pid
        });
        let outcome = run(&engine, python("while True:\n    pass").timeout_ms(60_000)).await;
        let killed = killing.await.unwrap();
        assert_eq!(
            outcome.kind,
            Some(FailureKind::Runtime),
            "{}",
            outcome.text()
        );
        assert!(
            outcome.text().starts_with(
                "Error: code run failed (runtime): the Python worker failed: monty worker crashed while "
            ),
            "{}",
            outcome.text()
        );
        let outcome = run(&engine, python("6 * 7")).await;
        assert_eq!(outcome.text(), "42");
        let workers: Vec<i32> = tagged(no_leaks.tag()).iter().map(|p| p.pid).collect();
        assert!(!workers.contains(&killed), "{workers:?}");
    }

    /// A worker binary that is not there, or that no one may execute,
    /// fails the run as `runtime`, naming it; with none to be found at all,
    /// `ptc run` says how to install one.
    #[tokio::test]
    async fn a_missing_worker_is_a_runtime_failure_saying_so() {
        let dir = tempfile::tempdir().unwrap();
        let not_executable = dir.path().join("not-executable");
        std::fs::write(&not_executable, "#!/bin/sh\n").unwrap();
        let engine = Engine::new(test_registry(), Limits::default())
            .unwrap()
            .python_worker(&not_executable);
        let why = engine.unavailable(Language::Python).unwrap_or_default();
        assert!(
            why.ends_with("not-executable, which is not an executable file"),
            "{why}"
        );
        let missing = dir.path().join("monty");
        let engine = Engine::new(test_registry(), Limits::default())
            .unwrap()
            .python_worker(&missing);
        let outcome = run(&engine, python("6 * 7")).await;
        assert_eq!(
            outcome.kind,
            Some(FailureKind::Runtime),
            "{}",
            outcome.text()
        );
        let why = format!(
            "Python programs need Monty's worker, and the host named {}, which is not an executable file",
            missing.display()
        );
        assert_eq!(
            outcome.text(),
            format!("Error: code run failed (runtime): {why}")
        );
        assert_eq!(engine.unavailable(Language::Python), Some(why));
        assert_eq!(engine.unavailable(Language::TypeScript), None);

        let no_leaks = NoLeaks::new();
        let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_ptc"));
        command
            .args(["run", "--language", "python", "-e", "6 * 7"])
            .current_dir(dir.path())
            .env("PATH", dir.path())
            // Empty counts as unset.
            .env("PTC_PYTHON_WORKER", "")
            .stdin(std::process::Stdio::null());
        let out = no_leaks.tag_command(&mut command).output().unwrap();
        assert_eq!(out.status.code(), Some(1));
        assert_eq!(
            String::from_utf8_lossy(&out.stdout).trim_end(),
            "Error: code run failed (runtime): Python programs need Monty's worker: install it (`pip install pydantic-monty-runtime==1.4.0`) so `monty` is on PATH, or set PTC_PYTHON_WORKER to its path"
        );
    }

    /// `PTC_PYTHON_WORKER` may name the worker bare, looked up on `PATH` as
    /// spawning it would; a bare name not there says so.
    #[test]
    fn a_worker_named_bare_is_found_on_path() {
        let no_leaks = NoLeaks::new();
        let tagged = no_leaks.python_worker();
        let folder = tagged.parent().unwrap();
        let run = |worker: &str| {
            let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_ptc"));
            command
                .args(["run", "--language", "python", "-e", "6 * 7"])
                .env("PATH", format!("{}:/usr/bin:/bin", folder.display()))
                .env("PTC_PYTHON_WORKER", worker)
                .stdin(std::process::Stdio::null());
            let out = command.output().unwrap();
            String::from_utf8_lossy(&out.stdout).trim_end().to_owned()
        };
        assert_eq!(run(tagged.file_name().unwrap().to_str().unwrap()), "42");
        assert_eq!(
            run("no-such-monty"),
            "Error: code run failed (runtime): Python programs need Monty's worker, and PTC_PYTHON_WORKER named no-such-monty, which is not on PATH"
        );
    }

    /// Issue 41: a front end serving Python programs without a worker
    /// tells its operator at launch (`ptc mcp`: exit 2) or its host at
    /// `initialize` (`ptc serve`), so no model reads install instructions.
    #[test]
    fn front_ends_without_a_worker_say_so_before_any_run() {
        let dir = tempfile::tempdir().unwrap();
        let ptc = |args: &[&str], stdin: &str| {
            use std::io::Write;
            let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_ptc"))
                .args(args)
                .current_dir(dir.path())
                .env("PATH", dir.path())
                .env_remove("PTC_PYTHON_WORKER")
                .stdin(std::process::Stdio::piped())
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap();
            child
                .stdin
                .take()
                .unwrap()
                .write_all(stdin.as_bytes())
                .unwrap();
            child.wait_with_output().unwrap()
        };
        let workspace = dir.path().to_str().unwrap();
        let out = ptc(
            &["mcp", "--language", "python", "--workspace", workspace],
            "",
        );
        assert_eq!(out.status.code(), Some(2));
        assert_eq!(
            String::from_utf8_lossy(&out.stderr),
            "ptc: --language python: Python programs need Monty's worker: install it (`pip install pydantic-monty-runtime==1.4.0`) so `monty` is on PATH, or set PTC_PYTHON_WORKER to its path\n"
        );

        let initialize = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"config":{"language":"python"}}}"#;
        let out = ptc(&["serve"], &format!("{initialize}\n"));
        let answer: serde_json::Value =
            serde_json::from_str(String::from_utf8_lossy(&out.stdout).lines().next().unwrap())
                .unwrap();
        assert_eq!(answer["error"]["code"], -32602, "{answer}");
        let message = answer["error"]["message"].as_str().unwrap();
        assert!(
            message.starts_with(
                "invalid params for `initialize`: config.language is \"python\", but Python programs need Monty's worker: install it"
            ),
            "{message}"
        );
    }

    /// ptc killed while a Python program is busy (SIGKILL, as a host
    /// library does when its loop ends without `close()`), as `ptc run` and
    /// as `ptc serve`: its worker and watchdog are gone, and a reader of
    /// ptc's stderr (which the worker inherits) sees its end, well before
    /// the run's 60 s deadline, when the worker's own clock would stop it.
    #[test]
    fn a_killed_ptc_leaves_no_worker_and_no_pipe_held() {
        use std::io::{Read, Write};
        use std::process::{Command, Stdio};
        const BOUND: Duration = Duration::from_secs(30);
        for how in ["run", "serve"] {
            let no_leaks = NoLeaks::new();
            let mut command = Command::new(env!("CARGO_BIN_EXE_ptc"));
            match how {
                "run" => command.args([
                    "run",
                    "--language",
                    "python",
                    "--timeout-ms",
                    "60000",
                    "-e",
                    "while True:\n    pass",
                ]),
                _ => command.arg("serve"),
            };
            command
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped());
            let mut ptc = no_leaks.tag_command(&mut command).spawn().unwrap();
            let mut stdin = ptc.stdin.take().unwrap();
            if how == "serve" {
                let lines = [
                    serde_json::json!({ "jsonrpc": "2.0", "id": 1, "method": "initialize",
                        "params": { "config": { "language": "python" } } }),
                    serde_json::json!({ "jsonrpc": "2.0", "id": 2, "method": "run_code",
                        "params": { "code": "while True:\n    pass", "description": "busy",
                                    "timeoutMs": 60000 } }),
                ];
                for line in lines {
                    writeln!(stdin, "{line}").unwrap();
                }
            }
            let worker = worker(no_leaks.tag(), 20);
            let others: Vec<i32> = tagged(no_leaks.tag())
                .iter()
                .map(|p| p.pid)
                .filter(|&pid| u32::try_from(pid).ok() != Some(ptc.id()))
                .collect();
            assert!(
                others.contains(&worker) && others.len() >= 2,
                "{how}: worker and watchdog: {:?}",
                tagged(no_leaks.tag())
            );
            let mut stderr = ptc.stderr.take().unwrap();
            let (eof, ended) = std::sync::mpsc::channel();
            std::thread::spawn(move || {
                let mut rest = Vec::new();
                let _ = stderr.read_to_end(&mut rest);
                let _ = eof.send(rest);
            });
            ptc.kill().unwrap();
            ptc.wait().unwrap();
            assert!(
                ended.recv_timeout(BOUND).is_ok(),
                "{how}: ptc's stderr still held {BOUND:?} after ptc was killed"
            );
            for pid in others {
                assert!(
                    gone_within(pid, BOUND),
                    "{how}: {pid} outlived ptc by {BOUND:?}: {:?}",
                    tagged(no_leaks.tag())
                );
            }
            drop(stdin);
        }
    }
}

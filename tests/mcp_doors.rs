//! The pipes ptc reads from other processes, tried as an attacker would:
//! an MCP server's answers (unreadable, costly, too long), its process
//! group, and `ptc mcp`'s stdin (oversized and costly requests, a client
//! that does not read). Each must end at once or stay within a bound
//! (docs/mcp.md, contracts §6 "Messages").

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{ChildStdin, ChildStdout, Command, Stdio};
use std::time::{Duration, Instant};

use crate::common::Spawned;
use ptc::{Engine, Limits, McpConfig, McpOptions, Registry, RunOptions, RunRequest};
use serde_json::{Value, json};

use crate::common::{NoLeaks, eventually, run_measured, status_mib, tag_servers};

fn hostile(mode: &str, log: &Path) -> Value {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/hostile_mcp_server.py");
    json!({ "command": "python3", "args": [script, mode, log] })
}

async fn connect_answers(log: &Path) -> (Registry, ptc::McpServers) {
    let config = McpConfig::parse(
        &json!({ "mcpServers": tag_servers(json!({ "h": hostile("answers", log) })) }).to_string(),
    )
    .unwrap();
    let registry = Registry::new();
    let (servers, problems) = ptc::connect(&config, &registry, McpOptions::default()).await;
    assert!(problems.is_empty(), "{problems:?}");
    (registry, servers)
}

/// How soon a call must fail "at once": a liveness bound (the calls take
/// well under a second), well within the runs' 120 s deadline, which a
/// call left waiting would reach.
const AT_ONCE: Duration = Duration::from_secs(60);

/// The program's text and how long the run took.
async fn run(registry: &Registry, code: &str) -> (String, Duration) {
    let engine = Engine::new(registry.clone(), Limits::default()).unwrap();
    let started = Instant::now();
    let outcome = engine
        .run_code(
            RunRequest::new(code).timeout_ms(120_000),
            RunOptions::default(),
        )
        .await
        .unwrap();
    (outcome.text().to_owned(), started.elapsed())
}

/// A call of `h.<tool>` whose failure the program returns.
fn catching(tool: &str) -> String {
    format!(
        "try {{ await tools['h.{tool}']({{}}); return 'no error' }} catch (e) {{ return e.code + ': ' + e.message }}"
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unreadable_answers_fail_their_call_at_once() {
    let _no_leaks = NoLeaks::for_this_test();
    let dir = tempfile::tempdir().unwrap();
    let (registry, servers) = connect_answers(&dir.path().join("log")).await;
    for (tool, says) in [
        ("bad_utf8", "not JSON"),
        ("surrogate", "hex escape"),
        // A fault in a key, where the answer's id is still found.
        ("bad_utf8_key", "not JSON"),
        ("surrogate_key", "hex escape"),
        ("zeros", "more than 64 MiB of memory"),
    ] {
        let (text, took) = run(&registry, &catching(tool)).await;
        assert!(
            text.contains("TOOL_ERROR: mcp server `h` sent an answer ptc cannot read")
                && text.contains(says),
            "{tool}: {text}"
        );
        assert!(took < AT_ONCE, "{tool} took {took:?}");
    }
    // A text block of JSON too costly to parse: the gate refuses the text.
    let (text, _) = run(&registry, &catching("zeros_text")).await;
    assert!(
        text.starts_with("TOOL_ERROR: the tool answered with JSON text ptc cannot take: it holds so many values that parsing it would take more than 64 MiB of memory (the limit)"),
        "{text}"
    );
    // The session survived each of them.
    let (text, _) = run(&registry, "return await tools['h.fine']({})").await;
    assert!(text.contains("ok"), "{text}");
    servers.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_line_too_long_to_read_ends_the_session_and_the_next_call_restarts_it() {
    let _no_leaks = NoLeaks::for_this_test();
    let dir = tempfile::tempdir().unwrap();
    let (registry, servers) = connect_answers(&dir.path().join("log")).await;
    let (text, took) = run(&registry, &catching("huge_line")).await;
    assert!(
        text.contains("sent an answer ptc cannot read")
            && text.contains("more than the 16777216 bytes ptc reads"),
        "{text}"
    );
    assert!(took < AT_ONCE, "took {took:?}");
    let (text, _) = run(&registry, "return await tools['h.fine']({})").await;
    assert!(text.contains("ok"), "{text}");
    servers.shutdown().await;
}

fn alive(pid: i32) -> bool {
    // A zombie has been killed; only its reaping is left.
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
        !stat
            .rsplit(')')
            .next()
            .unwrap_or("")
            .trim_start()
            .starts_with('Z')
    })
}

fn grandchild(log: &Path) -> i32 {
    std::fs::read_to_string(log)
        .unwrap_or_default()
        .lines()
        .find_map(|l| l.strip_prefix("grandchild "))
        .and_then(|pid| pid.parse().ok())
        .expect("the server logged its grandchild")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stopping_a_server_ends_what_it_started() {
    let _no_leaks = NoLeaks::for_this_test();
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("log");
    let (registry, servers) = connect_answers(&log).await;
    run(&registry, "await tools['h.forks']({})").await;
    let pid = grandchild(&log);
    assert!(alive(pid));
    servers.shutdown().await;
    eventually("the grandchild is gone after a clean shutdown", || {
        !alive(pid)
    })
    .await;

    // Dropped rather than shut down: the same.
    std::fs::remove_file(&log).unwrap();
    let (registry, servers) = connect_answers(&log).await;
    run(&registry, "await tools['h.forks']({})").await;
    let pid = grandchild(&log);
    drop(servers);
    drop(registry);
    eventually("the grandchild is gone after a drop", || !alive(pid)).await;
}

// ------------------------------------------------------------ ptc mcp's stdin

fn ptc_mcp(dir: &Path) -> Spawned {
    crate::common::spawn(
        Command::new(env!("CARGO_BIN_EXE_ptc"))
            .args(["mcp", "--workspace"])
            .arg(dir)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null()),
    )
}

const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}
{"jsonrpc":"2.0","method":"notifications/initialized"}
"#;

/// `ptc mcp` over `dir`, past `initialize`: the process and its pipes.
fn initialized(dir: &Path) -> (Spawned, ChildStdin, BufReader<ChildStdout>) {
    let mut ptc = ptc_mcp(dir);
    let mut stdin = ptc.stdin.take().unwrap();
    let mut stdout = BufReader::new(ptc.stdout.take().unwrap());
    stdin.write_all(INITIALIZE.as_bytes()).unwrap();
    answer_for(&mut stdout, &json!(0));
    (ptc, stdin, stdout)
}

/// A process's resident memory, and its peak, in MiB.
fn memory_mib(pid: u32) -> (f64, f64) {
    let field = |name| status_mib(pid, name).expect("the field in /proc/<pid>/status");
    (field("VmRSS:"), field("VmHWM:"))
}

/// Waits until a process stops using CPU (half a second without a tick),
/// at most 60 s.
fn settle(pid: u32) {
    let ticks = || {
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
        let fields: Vec<&str> = stat
            .rsplit(')')
            .next()
            .unwrap()
            .split_whitespace()
            .collect();
        // utime and stime: fields 14 and 15 of stat, 12 and 13 after the name.
        fields[11].parse::<u64>().unwrap() + fields[12].parse::<u64>().unwrap()
    };
    let started = Instant::now();
    let mut last = ticks();
    while started.elapsed() < Duration::from_secs(60) {
        std::thread::sleep(Duration::from_millis(500));
        let now = ticks();
        if now == last {
            return;
        }
        last = now;
    }
}

/// Reads answers until one has `id`; that one.
fn answer_for(lines: &mut impl BufRead, id: &Value) -> Value {
    let mut line = String::new();
    loop {
        line.clear();
        assert!(lines.read_line(&mut line).unwrap() > 0, "ptc mcp ended");
        let message: Value = serde_json::from_str(&line).unwrap();
        if &message["id"] == id {
            return message;
        }
    }
}

#[test]
fn oversized_and_costly_requests_are_answered_without_being_parsed() {
    let dir = tempfile::tempdir().unwrap();
    let (mut ptc, mut stdin, mut stdout) = initialized(dir.path());

    // 1,600,000 zeros in `_meta`: 3.2 MB of text, under the 4 MiB a line
    // may have, but more than 16 MiB once parsed.
    let zeros = format!("[{}0]", "0,".repeat(1_599_999));
    let costly = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{{"_meta":{{"z":{zeros}}}}}}}"#
    );
    writeln!(stdin, "{costly}").unwrap();
    let refused = answer_for(&mut stdout, &json!(1));
    assert_eq!(refused["error"]["code"], -32600, "{refused}");
    let message = refused["error"]["message"].as_str().unwrap();
    assert!(message.contains("more than 16 MiB of memory"), "{message}");

    let long = format!(
        r#"{{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{{"_meta":{{"s":"{}"}}}}}}"#,
        "x".repeat(5 << 20)
    );
    writeln!(stdin, "{long}").unwrap();
    let refused = answer_for(&mut stdout, &Value::Null);
    assert_eq!(refused["error"]["code"], -32600, "{refused}");
    assert!(
        refused["error"]["message"]
            .as_str()
            .unwrap()
            .contains("more than the 4194304 bytes ptc reads"),
        "{refused}"
    );

    let lone = r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"run_code","arguments":{"code":"\ud800","description":"x"}}}"#;
    writeln!(stdin, "{lone}").unwrap();
    let refused = answer_for(&mut stdout, &json!(3));
    assert_eq!(refused["error"]["code"], -32700, "{refused}");
    // A fault in a key: the id is still found and answered.
    let lone_key = r#"{"jsonrpc":"2.0","id":5,"method":"tools/list","params":{"\udc00":1}}"#;
    writeln!(stdin, "{lone_key}").unwrap();
    assert_eq!(answer_for(&mut stdout, &json!(5))["error"]["code"], -32700);
    stdin
        .write_all(b"{\"jsonrpc\":\"2.0\",\"\xff\":0,\"id\":6,\"method\":\"tools/list\"}\n")
        .unwrap();
    assert_eq!(answer_for(&mut stdout, &json!(6))["error"]["code"], -32700);

    // Still serving.
    writeln!(stdin, r#"{{"jsonrpc":"2.0","id":4,"method":"tools/list"}}"#).unwrap();
    assert!(answer_for(&mut stdout, &json!(4))["result"]["tools"].is_array());
    let (_, peak) = memory_mib(ptc.id());
    assert!(peak < 200.0, "peak RSS {peak:.0} MiB");
    drop(stdin);
    assert!(ptc.wait().unwrap().success());
}

#[test]
fn a_client_that_does_not_read_holds_a_bounded_backlog() {
    const REQUESTS: usize = 20_000;
    let dir = tempfile::tempdir().unwrap();
    let (mut ptc, mut stdin, mut stdout) = initialized(dir.path());
    writeln!(
        stdin,
        r#"{{"jsonrpc":"2.0","id":"warm","method":"tools/list"}}"#
    )
    .unwrap();
    let one = serde_json::to_string(&answer_for(&mut stdout, &json!("warm"))).unwrap();
    let (before, _) = memory_mib(ptc.id());
    let writer = std::thread::spawn(move || {
        for id in 1..=REQUESTS {
            let request =
                format!("{{\"jsonrpc\":\"2.0\",\"id\":{id},\"method\":\"tools/list\"}}\n");
            if stdin.write_all(request.as_bytes()).is_err() {
                return;
            }
        }
        // Closing stdin ends the session once every answer is written.
    });
    // Nobody reads: ptc stops reading once its backlog is full, and the
    // writer blocks on a full pipe. Wait until ptc has done what it will.
    settle(ptc.id());
    let (after, _) = memory_mib(ptc.id());
    let unbounded = (REQUESTS * one.len()) as f64 / f64::from(1 << 20);
    assert!(
        after - before < 40.0 && unbounded > 100.0,
        "RSS grew by {:.0} MiB with answers unread (unbounded: {unbounded:.0} MiB)",
        after - before
    );
    // A client that reads gets an answer to every request: the list, or,
    // for one past the 64 open at once, a refusal to send it again.
    let (mut answered, mut refused) = (0, 0);
    for line in stdout.lines() {
        let message: Value = serde_json::from_str(&line.unwrap()).unwrap();
        if message["result"]["tools"].is_array() {
            answered += 1;
        } else if message["error"]["code"] == -32000 {
            refused += 1;
        }
    }
    writer.join().unwrap();
    assert_eq!(answered + refused, REQUESTS);
    assert!(
        answered > REQUESTS / 4,
        "{answered} answered, {refused} refused"
    );
    assert!(ptc.wait().unwrap().success());
}

#[test]
fn cancelled_requests_leave_no_backlog_behind() {
    // More cancelled runs than requests may be open at once (64): each
    // cancelled one must free its place, or reading would stop for good.
    const RUNS: usize = 100;
    let dir = tempfile::tempdir().unwrap();
    let (mut ptc, mut stdin, mut stdout) = initialized(dir.path());
    for id in 1..=RUNS {
        let call = json!({ "jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {
            "name": "run_code",
            "arguments": { "code": "await new Promise(r => setTimeout(r, 50000))", "description": "waits" } } });
        let cancel = json!({ "jsonrpc": "2.0", "method": "notifications/cancelled",
            "params": { "requestId": id } });
        writeln!(stdin, "{call}\n{cancel}").unwrap();
    }
    writeln!(
        stdin,
        r#"{{"jsonrpc":"2.0","id":"last","method":"tools/list"}}"#
    )
    .unwrap();
    let started = Instant::now();
    assert!(answer_for(&mut stdout, &json!("last"))["result"]["tools"].is_array());
    assert!(started.elapsed() < Duration::from_secs(30));
    drop(stdin);
    assert!(ptc.wait().unwrap().success());
}

#[test]
fn a_costly_answer_costs_ptc_a_small_multiple_of_its_size() {
    let dir = tempfile::tempdir().unwrap();
    // The 16 MB answer, then a pause in which the peak is read.
    let code = format!(
        "const e = await (async () => {{ {} }})(); await new Promise(r => setTimeout(r, 1500)); return e",
        catching("zeros")
    );
    let (_, out, peak) = run_measured(ptc_run_with(dir.path(), "answers", &code));
    assert!(out.contains("sent an answer ptc cannot read"), "{out}");
    // Parsed, the 16 MB would have taken over a gigabyte.
    assert!(peak > 0.0 && peak < 250.0, "peak RSS {peak:.0} MiB");
}

/// The same zeros as JSON text in a text block: measured by the gate
/// before the text is parsed (issue 39: 1.15 GB).
#[test]
fn a_costly_text_block_costs_ptc_a_small_multiple_of_its_size() {
    let dir = tempfile::tempdir().unwrap();
    let code = format!(
        "const e = await (async () => {{ {} }})(); await new Promise(r => setTimeout(r, 1500)); return e",
        catching("zeros_text")
    );
    let (_, out, peak) = run_measured(ptc_run_with(dir.path(), "answers", &code));
    assert!(out.contains("JSON text ptc cannot take"), "{out}");
    assert!(peak > 0.0 && peak < 250.0, "peak RSS {peak:.0} MiB");
}

/// Answers in flight are parsed before any run is charged for them: twenty
/// gathered calls, each answered with a message just under the cost bound,
/// keep ptc under the memory bar (3 × the 64 MiB heap + 100 MB) while they
/// pass through it.
#[test]
fn gathered_answers_at_the_cost_bound_keep_ptc_under_the_memory_bar() {
    let dir = tempfile::tempdir().unwrap();
    let code = "const r = await Promise.all(Array.from({ length: 20 }, () => \
        tools['h.near_bound']({}).then(v => v.z.length, e => e.message))); \
        return [...new Set(r)]";
    let (_, out, peak) = run_measured(ptc_run_with(dir.path(), "answers", code));
    assert_eq!(out.trim(), "[455000]", "every answer passed the gate");
    assert!(peak > 0.0 && peak < 292.0, "peak RSS {peak:.0} MiB");
}

#[test]
fn a_signal_to_ptc_ends_its_servers_process_groups() {
    let dir = tempfile::tempdir().unwrap();
    let pidfile = dir.path().join("sleep.pid");
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/hostile_mcp_server.py");
    let server = format!(
        "sleep 999 & echo $! > '{}'; exec python3 '{}' answers '{}'",
        pidfile.display(),
        script.display(),
        dir.path().join("log").display()
    );
    let config = dir.path().join("mcp.json");
    let servers = json!({ "mcpServers": { "h": { "command": "sh", "args": ["-c", server] } } });
    std::fs::write(&config, servers.to_string()).unwrap();
    for (signal, number) in [(libc::SIGTERM, 15), (libc::SIGINT, 2), (libc::SIGHUP, 1)] {
        let _ = std::fs::remove_file(&pidfile);
        let mut ptc = crate::common::spawn(
            Command::new(env!("CARGO_BIN_EXE_ptc"))
                .args(["mcp", "--mcp-config"])
                .arg(&config)
                .stdin(Stdio::piped())
                .stdout(Stdio::null())
                .stderr(Stdio::piped()),
        );
        // The servers start once the client has initialized (docs/mcp.md,
        // "Elicitation from upstream servers").
        let mut stdin = ptc.stdin.take().unwrap();
        stdin.write_all(INITIALIZE.as_bytes()).unwrap();
        ptc.stdin = Some(stdin);
        let started = Instant::now();
        let sleep = loop {
            if let Some(pid) = std::fs::read_to_string(&pidfile)
                .ok()
                .and_then(|p| p.trim().parse::<i32>().ok())
            {
                break pid;
            }
            assert!(started.elapsed() < Duration::from_secs(60), "no server");
            std::thread::sleep(Duration::from_millis(20));
        };
        assert!(alive(sleep));
        // Held open: waiting would close it, and ptc would end on that
        // instead of on the signal.
        let stdin = ptc.stdin.take();
        // SAFETY: a signal to the child this test started.
        unsafe { libc::kill(ptc.id() as i32, signal) };
        let output = ptc.wait_with_output().unwrap();
        drop(stdin);
        assert_eq!(
            output.status.code(),
            Some(128 + number),
            "{:?}: {}",
            output.status,
            String::from_utf8_lossy(&output.stderr)
        );
        let gone = Instant::now();
        while alive(sleep) {
            assert!(
                gone.elapsed() < Duration::from_secs(10),
                "sleep {sleep} outlived ptc"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

// ------------------------------------------------- what the red team found

fn ptc_run_with(dir: &Path, mode: &str, code: &str) -> Spawned {
    let config = dir.join("mcp.json");
    let servers = json!({ "mcpServers": { "h": hostile(mode, &dir.join("log")) } });
    std::fs::write(&config, servers.to_string()).unwrap();
    crate::common::spawn(
        Command::new(env!("CARGO_BIN_EXE_ptc"))
            .args(["run", "--mcp-config"])
            .arg(&config)
            .args(["-e", code])
            .stdout(Stdio::piped())
            .stderr(Stdio::null()),
    )
}

#[test]
fn a_server_flooding_requests_it_never_reads_holds_a_bounded_backlog() {
    // 300,000 pings, none of whose answers the server reads while it
    // sends them: unbounded, each answer waited in a task of its own (1M
    // reached 1.7 GB). The program's call is answered only once the
    // server is done (it reads its stdin again then), so ptc lives through
    // the whole flood however fast the machine is.
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("log");
    let child = ptc_run_with(dir.path(), "pingflood", "return await tools['h.fine']({})");
    let (status, out, peak) = run_measured(child);
    assert!(status.success(), "{status:?}");
    assert!(out.contains("ok"), "the call after the flood: {out}");
    assert!(
        std::fs::read_to_string(&log)
            .unwrap_or_default()
            .contains("flooded"),
        "the server sent its flood"
    );
    assert!(peak < 150.0, "peak RSS {peak:.0} MiB");
}

#[test]
fn a_server_that_ignores_sigterm_does_not_outlive_ptc() {
    let dir = tempfile::tempdir().unwrap();
    let (status, _, _) = run_measured(ptc_run_with(dir.path(), "stubborn", "return 1"));
    assert!(status.success(), "{status:?}");
    let pid: i32 = std::fs::read_to_string(dir.path().join("log"))
        .unwrap()
        .lines()
        .find_map(|l| l.strip_prefix("pid "))
        .and_then(|p| p.parse().ok())
        .expect("the server logged its pid");
    let gone = Instant::now();
    while alive(pid) {
        assert!(
            gone.elapsed() < Duration::from_secs(5),
            "server {pid} outlived ptc"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn open_requests_past_the_limit_are_refused_at_once_and_ids_are_not_reused() {
    let dir = tempfile::tempdir().unwrap();
    let (mut ptc, mut stdin, mut stdout) = initialized(dir.path());
    let waits = |id: usize| {
        json!({ "jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {
        "name": "run_code",
        "arguments": { "code": "await new Promise(r => setTimeout(r, 50000))", "description": "waits" } } })
    };
    for id in 1..=64 {
        writeln!(stdin, "{}", waits(id)).unwrap();
    }
    // The 65th is refused at once, not left unread.
    writeln!(stdin, "{}", waits(65)).unwrap();
    let refused = answer_for(&mut stdout, &json!(65));
    assert_eq!(refused["error"]["code"], -32000, "{refused}");
    // A request reusing an open one's id is refused; the open one goes on.
    writeln!(
        stdin,
        "{}",
        json!({ "jsonrpc": "2.0", "id": 1, "method": "tools/list" })
    )
    .unwrap();
    let reused = answer_for(&mut stdout, &json!(1));
    assert_eq!(reused["error"]["code"], -32600, "{reused}");
    assert!(
        reused["error"]["message"]
            .as_str()
            .unwrap()
            .contains("in use")
    );
    // Cancellations are still read: they free the places.
    for id in 1..=64 {
        let cancel = json!({ "jsonrpc": "2.0", "method": "notifications/cancelled",
            "params": { "requestId": id } });
        writeln!(stdin, "{cancel}").unwrap();
    }
    writeln!(stdin, "{}", waits(66)).unwrap();
    let cancel = json!({ "jsonrpc": "2.0", "method": "notifications/cancelled", "params": { "requestId": 66 } });
    writeln!(stdin, "{cancel}").unwrap();
    writeln!(
        stdin,
        r#"{{"jsonrpc":"2.0","id":"last","method":"tools/list"}}"#
    )
    .unwrap();
    assert!(answer_for(&mut stdout, &json!("last"))["result"]["tools"].is_array());
    drop(stdin);
    assert!(ptc.wait().unwrap().success());
}

#[test]
fn repeated_initialized_notifications_cost_nothing() {
    // Each used to start a watcher of the registry for the session's life
    // (500,000 held 784 MiB).
    let dir = tempfile::tempdir().unwrap();
    let (mut ptc, mut stdin, mut stdout) = initialized(dir.path());
    writeln!(
        stdin,
        r#"{{"jsonrpc":"2.0","id":"warm","method":"tools/list"}}"#
    )
    .unwrap();
    answer_for(&mut stdout, &json!("warm"));
    let (before, _) = memory_mib(ptc.id());
    let line = "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n".repeat(1000);
    for _ in 0..100 {
        stdin.write_all(line.as_bytes()).unwrap();
    }
    writeln!(
        stdin,
        r#"{{"jsonrpc":"2.0","id":"after","method":"tools/list"}}"#
    )
    .unwrap();
    answer_for(&mut stdout, &json!("after"));
    let (after, _) = memory_mib(ptc.id());
    assert!(
        after - before < 40.0,
        "RSS grew by {:.0} MiB",
        after - before
    );
    drop(stdin);
    assert!(ptc.wait().unwrap().success());
}

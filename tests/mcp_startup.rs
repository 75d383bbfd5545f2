//! Issue 25, items 2 and 3: MCP servers start in the background, in a
//! deterministic order, and the model is told which are still starting or
//! failed. `ptc mcp` is driven line by line over stdio (timings are
//! measured from the first byte sent); the servers are
//! `tests/data/startup_mcp_server.py` and `sleep`, which never answers.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use crate::common::Spawned;
use ptc::{
    Engine, Limits, McpConfig, McpOptions, McpServers, Registry, RunOptions, RunRequest, Tool,
    ToolContext, ToolError,
};
use serde_json::{Value, json};

use crate::common::{NoLeaks, eventually, tag_servers};

/// How long anything may take before the test gives up.
const LIVENESS: Duration = Duration::from_secs(30);

/// A config entry that runs the startup server in `mode`.
fn startup_server(mode: &str) -> Value {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/startup_mcp_server.py");
    json!({ "command": "python3", "args": [script, mode] })
}

/// `sleep` with an argument no other process has, so the test can tell it
/// is gone: a server that never answers `initialize`. Its startup timeout
/// is ten minutes, so whatever waits for it outlasts any liveness bound.
fn hanging_server() -> (Value, String) {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .subsec_nanos();
    let seconds = format!("1000.{:09}", nanos ^ std::process::id());
    let entry = json!({ "command": "sleep", "args": [seconds], "startupTimeoutMs": 600_000 });
    (entry, seconds)
}

/// Whether a process with `argument` on its command line still exists.
fn process_with_argument(argument: &str) -> bool {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return false;
    };
    entries.flatten().any(|entry| {
        std::fs::read(entry.path().join("cmdline"))
            .is_ok_and(|cmdline| cmdline.split(|b| *b == 0).any(|a| a == argument.as_bytes()))
    })
}

fn write_config(dir: &Path, servers: Value) -> PathBuf {
    let path = dir.join("mcp.json");
    std::fs::write(&path, json!({ "mcpServers": servers }).to_string()).unwrap();
    path
}

fn parse_config(servers: Value) -> McpConfig {
    McpConfig::parse(&json!({ "mcpServers": tag_servers(servers) }).to_string()).unwrap()
}

// ------------------------------------------------ `ptc mcp`, line by line

/// `ptc mcp` over stdio; its lines are read on a thread.
struct PtcMcp {
    child: Spawned,
    stdin: Option<ChildStdin>,
    lines: Receiver<Value>,
    next_id: i64,
    /// `notifications/tools/list_changed` seen and not yet waited for.
    changes: usize,
}

impl PtcMcp {
    fn start(args: &[&str]) -> Self {
        let mut child = crate::common::spawn(
            Command::new(env!("CARGO_BIN_EXE_ptc"))
                .arg("mcp")
                .args(args)
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .stderr(Stdio::null()),
        );
        let stdout = BufReader::new(child.stdout.take().unwrap());
        let (tx, lines) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in stdout.lines().map_while(Result::ok) {
                if tx.send(serde_json::from_str(&line).unwrap()).is_err() {
                    break;
                }
            }
        });
        Self {
            stdin: child.stdin.take(),
            child,
            lines,
            next_id: 0,
            changes: 0,
        }
    }

    fn send(&mut self, message: &Value) {
        let stdin = self.stdin.as_mut().unwrap();
        writeln!(stdin, "{message}").unwrap();
        stdin.flush().unwrap();
    }

    /// The next line, counting the list_changed it may be.
    fn next(&mut self, within: Duration) -> Option<Value> {
        match self.lines.recv_timeout(within) {
            Ok(line) => {
                if line["method"] == "notifications/tools/list_changed" {
                    self.changes += 1;
                }
                Some(line)
            }
            Err(RecvTimeoutError::Timeout) => None,
            Err(RecvTimeoutError::Disconnected) => panic!("ptc mcp exited"),
        }
    }

    /// Sends a request; its result, and how long the answer took.
    fn request(&mut self, method: &str, params: Value) -> (Value, Duration) {
        self.next_id += 1;
        let id = self.next_id;
        let sent = Instant::now();
        self.send(&json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params }));
        loop {
            let line = self.next(LIVENESS).expect("ptc answers");
            if line["id"] == id {
                assert!(line.get("error").is_none(), "{line}");
                return (line["result"].clone(), sent.elapsed());
            }
        }
    }

    /// `initialize`, then `notifications/initialized`; how long the answer
    /// took.
    fn initialize(&mut self) -> Duration {
        let (_, took) = self.request(
            "initialize",
            json!({ "protocolVersion": "2025-11-25", "capabilities": {},
                    "clientInfo": { "name": "startup-test", "version": "0" } }),
        );
        self.send(&json!({ "jsonrpc": "2.0", "method": "notifications/initialized" }));
        took
    }

    fn list(&mut self) -> (Value, Duration) {
        self.request("tools/list", json!({}))
    }

    /// Waits for a `notifications/tools/list_changed` (or uses one seen
    /// meanwhile); `false` when none came within `LIVENESS`.
    fn changed(&mut self) -> bool {
        let deadline = Instant::now() + LIVENESS;
        while self.changes == 0 {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() || self.next(left).is_none() {
                return false;
            }
        }
        self.changes = 0;
        true
    }
}

impl Drop for PtcMcp {
    /// Ends the session as a client does (stdin closed), so ptc stops its
    /// servers; killed if it does not exit.
    fn drop(&mut self) {
        self.stdin.take();
        let deadline = Instant::now() + Duration::from_secs(10);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn description(listing: &Value) -> String {
    let tools = listing["tools"].as_array().unwrap();
    assert_eq!(tools.len(), 1, "only run_code: {listing}");
    tools[0]["description"].as_str().unwrap().to_owned()
}

fn names(listing: &Value) -> Vec<String> {
    listing["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_owned())
        .collect()
}

/// `run_code` with `code` under a deadline of `timeout_ms`: its text and
/// whether it is an error.
fn run_code(ptc: &mut PtcMcp, code: &str, timeout_ms: u64) -> (String, bool) {
    let (result, _) = ptc.request(
        "tools/call",
        json!({ "name": "run_code",
                "arguments": { "code": code, "description": "d", "timeoutMs": timeout_ms } }),
    );
    let text = result["content"][0]["text"].as_str().unwrap().to_owned();
    (text, result["isError"] == true)
}

#[test]
fn a_hanging_server_delays_tools_list_by_the_startup_wait_alone() {
    let dir = tempfile::tempdir().unwrap();
    let (hang, argument) = hanging_server();
    let config = write_config(
        dir.path(),
        json!({ "hang": hang, "ok": startup_server("ready") }),
    );
    let mut ptc = PtcMcp::start(&[
        "--mcp-config",
        config.to_str().unwrap(),
        "--startup-wait-ms",
        "1500",
    ]);
    let initialize = ptc.initialize();
    let (listing, list) = ptc.list();
    // Answered at all: waiting for `hang` would take its ten minutes, past
    // the requests' liveness bound. `initialize` is aimed at milliseconds.
    eprintln!("with a hanging server: initialize {initialize:?}, tools/list {list:?}");
    assert!(list >= Duration::from_millis(1500), "{list:?}");
    let text = description(&listing);
    assert!(
        text.contains(
            "\n- MCP server `hang` is still starting: its tools (`hang.*`) are not declared yet.\n"
        ),
        "{text}"
    );
    assert!(
        text.contains("\"ok.mid\"("),
        "ready within the wait: {text}"
    );

    // A call to it waits for it: here until the run's deadline.
    let (said, is_error) = run_code(&mut ptc, r#"return await tools["hang.zeta"]({})"#, 1000);
    assert!(is_error, "{said}");
    assert!(said.contains("(timeout)"), "{said}");
    assert!(said.contains("waiting on `hang.zeta`"), "{said}");

    assert!(process_with_argument(&argument), "sleep runs meanwhile");
    drop(ptc);
    let gone = Instant::now();
    while process_with_argument(&argument) {
        assert!(
            gone.elapsed() < Duration::from_secs(10),
            "sleep {argument} outlived ptc"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Issue 41: a client that lists once, or calls at once, right after
/// `initialize` finds the tools of a server that is ready a moment later.
#[test]
fn the_first_listing_and_the_first_call_find_a_server_still_starting() {
    let dir = tempfile::tempdir().unwrap();
    let config = write_config(dir.path(), json!({ "slow": startup_server("slow:1500") }));
    let mut ptc = PtcMcp::start(&["--mcp-config", config.to_str().unwrap()]);
    ptc.initialize();
    let (listing, _) = ptc.list();
    let text = description(&listing);
    assert!(text.contains("\"slow.mid\"("), "{text}");
    assert!(!text.contains("is still starting"), "{text}");
    drop(ptc);

    let mut ptc = PtcMcp::start(&["--mcp-config", config.to_str().unwrap()]);
    ptc.initialize();
    let code = r#"return await tools["slow.alpha"]({})"#;
    let (said, is_error) = run_code(&mut ptc, code, 30_000);
    assert!(!is_error, "{said}");
    assert_eq!(said, "alpha");
    drop(ptc);

    // In native mode the client calls the tool itself.
    let mut ptc = PtcMcp::start(&["--mode", "native", "--mcp-config", config.to_str().unwrap()]);
    ptc.initialize();
    let (result, _) = ptc.request(
        "tools/call",
        json!({ "name": "slow.alpha", "arguments": {} }),
    );
    assert_eq!(result["content"][0]["text"], "alpha", "{result}");
}

#[test]
fn a_slow_server_joins_later_at_its_place_with_list_changed() {
    let dir = tempfile::tempdir().unwrap();
    // First in the config, ready last: its tools still come first.
    let config = write_config(
        dir.path(),
        json!({ "slow": startup_server("slow:1500"), "fast": startup_server("ready") }),
    );
    // Listed at once, without waiting for the slow server.
    let mut ptc = PtcMcp::start(&[
        "--mode",
        "native",
        "--mcp-config",
        config.to_str().unwrap(),
        "--startup-wait-ms",
        "0",
    ]);
    ptc.initialize();
    let (first, _) = ptc.list();
    assert!(
        !names(&first).iter().any(|n| n.starts_with("slow.")),
        "listed before the slow server is ready: {first}"
    );
    let all = [
        "slow.zeta",
        "slow.alpha",
        "slow.mid",
        "fast.zeta",
        "fast.alpha",
        "fast.mid",
    ];
    loop {
        assert!(ptc.changed(), "tools/list_changed as servers come up");
        let (listing, _) = ptc.list();
        if names(&listing).len() == all.len() {
            assert_eq!(
                names(&listing),
                all,
                "config order, each server's own order"
            );
            break;
        }
    }
}

/// Issue 25: five launches over three servers gave two different
/// `tools/list` answers, since a server's `list_changed` at start moved
/// its tools. Now twenty give one.
#[test]
fn twenty_launches_over_servers_that_announce_changes_give_one_listing() {
    let dir = tempfile::tempdir().unwrap();
    let config = write_config(
        dir.path(),
        json!({
            "a": startup_server("jitter"),
            "b": startup_server("jitter"),
            "c": startup_server("jitter"),
        }),
    );
    let mut answers = std::collections::BTreeMap::<String, usize>::new();
    for _ in 0..20 {
        let mut ptc = PtcMcp::start(&["--mcp-config", config.to_str().unwrap()]);
        ptc.initialize();
        let complete = loop {
            let (listing, _) = ptc.list();
            let text = description(&listing);
            let every = ["a", "b", "c"]
                .iter()
                .all(|s| text.contains(&format!("\"{s}.mid\"(")));
            if every && !text.contains("is still starting") {
                break listing;
            }
            assert!(ptc.changed(), "tools/list_changed as servers come up");
        };
        *answers.entry(complete.to_string()).or_default() += 1;
    }
    assert_eq!(answers.len(), 1, "{} different answers", answers.len());
    let text = description(&serde_json::from_str(answers.keys().next().unwrap()).unwrap());
    let at = |s: &str| text.find(s).unwrap_or_else(|| panic!("{s} in {text}"));
    assert!(at("// a: 3 tools") < at("// b: 3 tools") && at("// b: 3 tools") < at("// c: 3 tools"));
    assert!(at("\"a.zeta\"(") < at("\"a.alpha\"(") && at("\"a.alpha\"(") < at("\"a.mid\"("));
}

/// `ptc mcp` with `args`, driven over stdio: `lines` written one a line,
/// then its stdout read up to the answer with `id`, returned with the
/// process and its stdin (still open; dropping it ends `ptc mcp`).
fn drive_mcp(args: &[&str], lines: &[Value], id: u64) -> (Spawned, ChildStdin, Value) {
    let mut child = crate::common::spawn(
        Command::new(env!("CARGO_BIN_EXE_ptc"))
            .arg("mcp")
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped()),
    );
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    for line in lines {
        writeln!(stdin, "{line}").unwrap();
    }
    let answer = loop {
        let mut line = String::new();
        assert!(stdout.read_line(&mut line).unwrap() > 0, "ptc mcp answers");
        let message: Value = serde_json::from_str(&line).unwrap();
        if message["id"] == id {
            break message;
        }
    };
    (child, stdin, answer)
}

/// `initialize` of a client that declares nothing, and its
/// `notifications/initialized`.
fn initialize() -> [Value; 2] {
    [
        json!({ "jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": { "name": "t", "version": "0" } } }),
        json!({ "jsonrpc": "2.0", "method": "notifications/initialized" }),
    ]
}

/// What `child` wrote on stderr, once it has ended (its stdin dropped).
fn stderr_at_exit(mut child: Spawned, stdin: ChildStdin) -> String {
    drop(stdin);
    let mut stderr = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut stderr).unwrap();
    let status = child.wait().unwrap();
    assert!(status.success(), "{status}: {stderr}");
    stderr
}

/// Issue 41: a problem with a server's tools is told once a launch, in
/// the one format of ptc's warnings, though the server is listed twice
/// (its `list_changed` at start).
#[test]
fn a_skipped_tool_is_told_once_as_a_warning_line() {
    let dir = tempfile::tempdir().unwrap();
    let config = write_config(dir.path(), json!({ "s": startup_server("skips") }));
    let [init, initialized] = initialize();
    let list = json!({ "jsonrpc": "2.0", "id": 2, "method": "tools/list" });
    let (child, stdin, _) = drive_mcp(
        &["--mcp-config", config.to_str().unwrap()],
        &[init, initialized, list],
        2,
    );
    // The re-listing after the server's list_changed, and its warning if
    // it made one, come within this.
    std::thread::sleep(Duration::from_millis(1500));
    let warning = "ptc: warning: mcp server `s`: skipped tool \"has space\": `s.` and the name must make 1-128 characters of A-Z a-z 0-9 _ . -\n";
    assert_eq!(stderr_at_exit(child, stdin), warning);
}

/// A client that never sends `notifications/initialized` (not as MCP
/// says, but seen) still gets the servers' tools: its first request tells
/// ptc what it declared, and the servers start then.
#[test]
fn a_client_that_never_says_initialized_still_gets_the_servers_tools() {
    let dir = tempfile::tempdir().unwrap();
    let config = write_config(dir.path(), json!({ "s": startup_server("ready") }));
    let [init, _] = initialize();
    let list = json!({ "jsonrpc": "2.0", "id": 2, "method": "tools/list" });
    let (child, stdin, answer) = drive_mcp(
        &["--mode", "both", "--mcp-config", config.to_str().unwrap()],
        &[init, list],
        2,
    );
    let names: Vec<&str> = answer["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|tool| tool["name"].as_str())
        .collect();
    // Without the start, the listing would come at the startup wait's end,
    // without them.
    assert!(
        names.contains(&"s.zeta") && names.contains(&"run_code"),
        "{answer}"
    );
    stderr_at_exit(child, stdin);
}

/// A client that leaves while a healthy server is still starting hears
/// nothing about it: stopping the server was no problem of the server's.
#[test]
fn leaving_while_a_server_starts_is_no_warning() {
    let dir = tempfile::tempdir().unwrap();
    let config = write_config(dir.path(), json!({ "s": startup_server("slow:3000") }));
    let (child, stdin, _) = drive_mcp(
        &["--mcp-config", config.to_str().unwrap()],
        &initialize(),
        1,
    );
    assert_eq!(stderr_at_exit(child, stdin), "");
}

/// A direct call (`--mode native`) of a tool whose server failed to start
/// is refused saying why, as a run's call is, not as an unknown name.
#[test]
fn a_direct_call_to_a_failed_server_says_why() {
    let dir = tempfile::tempdir().unwrap();
    let config = write_config(dir.path(), json!({ "s": startup_server("broken") }));
    let [init, initialized] = initialize();
    let call = json!({ "jsonrpc": "2.0", "id": 2, "method": "tools/call",
                       "params": { "name": "s.zeta", "arguments": {} } });
    let (child, stdin, answer) = drive_mcp(
        &["--mode", "native", "--mcp-config", config.to_str().unwrap()],
        &[init, initialized, call],
        2,
    );
    let message = answer["error"]["message"].as_str().unwrap_or_default();
    assert!(
        message.starts_with("tool `s.zeta` is not available: MCP server `s` failed to start:"),
        "{answer}"
    );
    drop(stdin);
    drop(child);
}

/// A server's stderr is quoted in the warning about its failed start and
/// in the error a program's call to it gets: each stays one line, its line
/// breaks and escape sequences escaped, so the server can neither forge a
/// line of ptc's nor drive the terminal or the model's text.
#[test]
fn a_servers_stderr_cannot_forge_a_warning_or_reach_the_model_raw() {
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("forger.sh");
    std::fs::write(
        &script,
        "#!/bin/sh\nprintf 'first\\nptc: warning: mcp server `other`: forged\\n\\033[2Kwiped\\n' >&2\nexit 1\n",
    )
    .unwrap();
    std::fs::set_permissions(&script, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let config = write_config(dir.path(), json!({ "f": { "command": script } }));
    let output = crate::common::output(Command::new(env!("CARGO_BIN_EXE_ptc")).args([
        "run",
        "--mcp-config",
        config.to_str().unwrap(),
        "-e",
        "return await tools['f.x']({})",
    ]));
    let stderr = String::from_utf8_lossy(&output.stderr);
    let stdout = String::from_utf8_lossy(&output.stdout);
    let lines: Vec<&str> = stderr.lines().collect();
    assert_eq!(lines.len(), 1, "{stderr}");
    assert!(
        lines[0].starts_with("ptc: warning: mcp server `f`: not started"),
        "{stderr}"
    );
    assert!(
        lines[0].contains(r"\nptc: warning: mcp server `other`: forged\n\u{1b}[2Kwiped"),
        "{stderr}"
    );
    assert!(
        stdout.contains("failed to start") && stdout.contains(r"\u{1b}[2Kwiped"),
        "{stdout}"
    );
    assert!(
        !stdout.contains('\u{1b}') && !stdout.contains("\nptc: warning"),
        "{stdout}"
    );
}

// ---------------------------------------------------- the library

fn engine(registry: &Registry) -> Engine {
    Engine::new(registry.clone(), Limits::default()).unwrap()
}

fn run_code_description(registry: &Registry) -> String {
    let presentation = engine(registry).presentation(&registry.scope(), None);
    presentation.tools[0].description.clone().unwrap()
}

async fn run(registry: &Registry, code: &str) -> String {
    let outcome = engine(registry)
        .run_code(RunRequest::new(code), RunOptions::default())
        .await
        .unwrap();
    outcome.text().to_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failed_server_is_described_and_its_calls_say_why() {
    let _no_leaks = NoLeaks::for_this_test();
    let config = parse_config(json!({
        "broken": startup_server("broken"),
        "ok": startup_server("ready"),
    }));
    let registry = Registry::new();
    let (servers, problems) = ptc::connect(&config, &registry, McpOptions::default()).await;
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert!(
        problems[0].to_string().contains("missing API token"),
        "{}",
        problems[0]
    );

    let text = run_code_description(&registry);
    let line = text
        .lines()
        .find(|l| l.starts_with("- MCP server `broken`"))
        .unwrap_or_else(|| panic!("no line for `broken`: {text}"));
    assert!(
        line.starts_with(
            "- MCP server `broken` failed to start, so its tools (`broken.*`) are missing: "
        ),
        "{line}"
    );
    assert!(line.contains("missing API token PTC_TEST_TOKEN"), "{line}");
    assert!(
        !text.contains("MCP server `ok`"),
        "a server that is up gets no line"
    );

    let said = run(
        &registry,
        r#"try { await tools["broken.zeta"]({}) } catch (e) { return e.code + " " + e.message }"#,
    )
    .await;
    assert!(
        said.starts_with(
            "UNKNOWN_TOOL tool `broken.zeta` is not available: MCP server `broken` failed to start: "
        ),
        "{said}"
    );
    assert!(said.contains("missing API token PTC_TEST_TOKEN"), "{said}");
    assert!(said.contains("; it is retried in "), "{said}");
    assert_eq!(
        run(&registry, r#"return await tools["ok.mid"]({})"#).await,
        "mid",
        "the other server works"
    );

    servers.shutdown().await;
    let said = run(
        &registry,
        r#"try { await tools["broken.zeta"]({}) } catch (e) { return e.message }"#,
    )
    .await;
    assert!(!said.contains("retried"), "no retry once stopped: {said}");
}

/// A server that does not start is reported with what it printed: the
/// first line of its stdout that is not a message (cut and escaped) and its
/// stderr, in the warning, the description and its tools' call errors.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_that_does_not_start_says_what_it_printed() {
    let _no_leaks = NoLeaks::for_this_test();
    let config = parse_config(json!({
        "chatty": { "command": "sh", "args": ["-c", "echo hello; echo again; exec sleep 1000"],
                    "startupTimeoutMs": 500 },
        "quits": { "command": "sh", "args": ["-c", "echo 'no config in /etc/q' >&2; exit 3"] },
    }));
    let registry = Registry::new();
    let (servers, problems) = ptc::connect(&config, &registry, McpOptions::default()).await;
    let problems: Vec<String> = problems.iter().map(ToString::to_string).collect();
    let chatty =
        "did not start within 500 ms; its first line on stdout was not an MCP message: \"hello\"";
    let quits = "no config in /etc/q";
    assert_eq!(problems.len(), 2, "{problems:?}");
    assert!(problems[0].contains(chatty), "{problems:?}");
    assert!(!problems[0].contains("again"), "{problems:?}");
    assert!(problems[1].contains(quits), "{problems:?}");

    let text = run_code_description(&registry);
    for (server, says) in [("chatty", chatty), ("quits", quits)] {
        let line = text
            .lines()
            .find(|l| l.starts_with(&format!("- MCP server `{server}` failed to start")))
            .unwrap_or_else(|| panic!("no line for `{server}`: {text}"));
        assert!(line.contains(says), "{line}");
        let said = run(
            &registry,
            &format!(
                r#"try {{ await tools["{server}.x"]({{}}) }} catch (e) {{ return e.message }}"#
            ),
        )
        .await;
        assert!(said.contains(says), "{said}");
    }
    servers.shutdown().await;
}

/// Healthy setups describe exactly as before: no line about servers.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn servers_that_are_up_add_nothing_to_the_description() {
    let _no_leaks = NoLeaks::for_this_test();
    let config = parse_config(json!({ "ok": startup_server("ready") }));
    let registry = Registry::new();
    let (servers, problems) = ptc::connect(&config, &registry, McpOptions::default()).await;
    assert!(problems.is_empty(), "{problems:?}");
    let plain = Registry::new();
    let same = registry.definitions().into_iter().map(|definition| {
        Tool::new(definition, |_: Value, _: ToolContext| async {
            Ok::<_, ToolError>(Value::Null)
        })
    });
    plain.add_all(same).unwrap();
    assert_eq!(
        run_code_description(&registry),
        run_code_description(&plain)
    );
    servers.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_that_failed_at_start_comes_up_on_a_retry() {
    let _no_leaks = NoLeaks::for_this_test();
    let dir = tempfile::tempdir().unwrap();
    let mut entry = startup_server("fail-once");
    entry["args"]
        .as_array_mut()
        .unwrap()
        .push(json!(dir.path().join("started-once")));
    let config = parse_config(json!({ "h": entry }));
    let registry = Registry::new();
    let options =
        McpOptions::default().restart_delays(Duration::from_millis(200), Duration::from_secs(1));
    let (servers, problems) = ptc::connect(&config, &registry, options).await;
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert!(
        problems[0].message.contains("first start fails on purpose"),
        "{}",
        problems[0]
    );
    let mut changes = registry.changes();
    changes.mark_unchanged();
    eventually("h's tools after a retry", || {
        registry.definition("h.zeta").is_some()
    })
    .await;
    assert!(changes.has_changed().unwrap(), "the change feed fired");
    assert!(!run_code_description(&registry).contains("MCP server `h`"));
    assert_eq!(
        run(&registry, r#"return await tools["h.zeta"]({})"#).await,
        "zeta"
    );
    servers.shutdown().await;
}

/// `McpServers::start` returns at once; `ready` waits, no longer than the
/// startup timeout; meanwhile the description follows.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn start_returns_at_once_and_ready_is_bounded_by_the_startup_timeout() {
    let _no_leaks = NoLeaks::for_this_test();
    let (mut hang, argument) = hanging_server();
    hang["startupTimeoutMs"] = json!(300);
    let config = parse_config(json!({ "hang": hang }));
    let registry = Registry::new();
    let started = Instant::now();
    let servers = McpServers::start(&config, &registry, McpOptions::default());
    // At once: had `start` waited for the first attempt, the server would
    // be described as failed already.
    assert!(run_code_description(&registry).contains("- MCP server `hang` is still starting"));

    let problems = servers.ready().await;
    let waited = started.elapsed();
    assert!(
        waited >= Duration::from_millis(300) && waited < LIVENESS,
        "{waited:?}"
    );
    let problems: Vec<String> = problems.iter().map(ToString::to_string).collect();
    assert_eq!(
        problems,
        ["mcp server `hang`: not started: did not start within 300 ms"]
    );
    assert!(
        run_code_description(&registry).contains(
            "- MCP server `hang` failed to start, so its tools (`hang.*`) are missing: did not start within 300 ms\n"
        ),
        "{}",
        run_code_description(&registry)
    );
    servers.shutdown().await;
    eventually("no sleep left behind", || !process_with_argument(&argument)).await;
}

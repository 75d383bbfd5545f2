//! `ptc mcp`'s wire rules (mcp.md), one test each: the `Host` check on
//! loopback, `--stateless` refusing escalations, a cancelled request
//! answered with nothing and its loop stopped, and a line that is not JSON
//! passed over.

use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Command, Stdio};
use std::time::Duration;

use serde_json::{Value, json};

use crate::common::{RawServe, Spawned, sandbox_running};

/// `ptc mcp --http 127.0.0.1:0` with `extra` flags; its endpoint's
/// authority (`127.0.0.1:PORT`).
struct HttpMcp {
    child: Spawned,
    authority: String,
    _workspace: tempfile::TempDir,
}

impl HttpMcp {
    fn start(extra: &[&str]) -> Self {
        let workspace = tempfile::tempdir().unwrap();
        let mut child = crate::common::spawn(
            Command::new(env!("CARGO_BIN_EXE_ptc"))
                .args(["mcp", "--http", "127.0.0.1:0", "--workspace"])
                .arg(workspace.path())
                .args(extra)
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::piped()),
        );
        let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
        let authority = loop {
            let line = lines.next().expect("ptc announces its endpoint").unwrap();
            if let Some(url) = line.strip_prefix("ptc: MCP endpoint ") {
                break url
                    .trim_start_matches("http://")
                    .trim_end_matches("/mcp")
                    .to_owned();
            }
        };
        std::thread::spawn(move || lines.for_each(drop));
        Self {
            child,
            authority,
            _workspace: workspace,
        }
    }

    /// POSTs `body` with this `Host` header; the status and the body.
    fn post(&self, host: &str, body: &Value) -> (u16, String) {
        let body = body.to_string();
        let mut stream = std::net::TcpStream::connect(&self.authority).unwrap();
        stream
            .set_read_timeout(Some(Duration::from_secs(60)))
            .unwrap();
        write!(
            stream,
            "POST /mcp HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        )
        .unwrap();
        // Bounded in all (heartbeats would keep a plain read waiting): a
        // response not complete within 60 s fails the test, never hangs it.
        stream
            .set_read_timeout(Some(Duration::from_secs(1)))
            .unwrap();
        let started = std::time::Instant::now();
        let mut bytes = Vec::new();
        let mut chunk = [0u8; 4096];
        loop {
            match stream.read(&mut chunk) {
                Ok(0) => break,
                Ok(n) => bytes.extend_from_slice(&chunk[..n]),
                Err(e)
                    if e.kind() == std::io::ErrorKind::WouldBlock
                        || e.kind() == std::io::ErrorKind::TimedOut => {}
                Err(e) => panic!("reading the response: {e}"),
            }
            assert!(
                started.elapsed() < Duration::from_secs(60),
                "no complete response within 60 s: {}",
                String::from_utf8_lossy(&bytes)
            );
        }
        let response = String::from_utf8_lossy(&bytes).into_owned();
        let status = response
            .get(9..12)
            .and_then(|s| s.parse().ok())
            .unwrap_or_else(|| panic!("an HTTP response: {response:?}"));
        (status, response)
    }
}

impl Drop for HttpMcp {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn initialize() -> Value {
    json!({ "jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": { "elicitation": {} },
        "clientInfo": { "name": "raw", "version": "1" } } })
}

/// mcp.md: on loopback, rmcp's check of `Host` against DNS rebinding stays
/// on; `--allow-remote` accepts any `Host`.
#[test]
fn the_host_header_is_checked_on_loopback() {
    let server = HttpMcp::start(&[]);
    let own = server.authority.clone();
    assert_eq!(server.post(&own, &initialize()).0, 200);
    let (status, response) = server.post("evil.example", &initialize());
    assert!(
        (400..500).contains(&status),
        "a foreign Host is refused: {response}"
    );
    drop(server);
    let open = HttpMcp::start(&["--allow-remote"]);
    assert_eq!(open.post("evil.example", &initialize()).0, 200);
}

/// mcp.md: under `--stateless` there is no elicitation, so escalations are
/// refused (the client here even says it supports elicitation).
#[test]
fn stateless_http_refuses_escalations() {
    let server = HttpMcp::start(&["--stateless"]);
    let own = server.authority.clone();
    assert_eq!(server.post(&own, &initialize()).0, 200);
    let call = json!({ "jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
        "name": "run_code", "arguments": {
            "code": "return 'ran'", "description": "d",
            "sandboxPermissions": "require_escalated", "justification": "j" } } });
    let (status, response) = server.post(&own, &call);
    assert_eq!(status, 200, "{response}");
    assert!(response.contains("denied"), "{response}");
    // Refused at once for the reason, not after waiting for a form that
    // cannot come.
    assert!(
        response.contains("does not support elicitation"),
        "{response}"
    );
    assert!(
        !response.contains("\\\"ran\\\"") && !response.contains("\"text\":\"ran\""),
        "{response}"
    );
}

/// Waits (a minute at most, else fails with `why`) until a sandbox thread
/// of process `pid` runs, or until none does: ten quiet samples in a row,
/// since a spinning thread is in state R in every one, however loaded the
/// machine.
fn until_sandbox(pid: u32, running: bool, why: &str) {
    let since = std::time::Instant::now();
    let mut quiet = 0;
    loop {
        assert!(since.elapsed() < Duration::from_secs(60), "{why}");
        let now = sandbox_running(pid);
        quiet = if now { 0 } else { quiet + 1 };
        if (running && now) || (!running && quiet == 10) {
            return;
        }
        std::thread::sleep(Duration::from_millis(if running { 10 } else { 20 }));
    }
}

/// mcp.md, Cancellation: no response is sent for a cancelled request, and
/// its busy loop is interrupted (its sandbox thread stops running), the
/// server serving on.
#[test]
#[cfg(target_os = "linux")]
fn a_cancelled_mcp_request_gets_no_response_and_its_loop_stops() {
    // Killed on drop, so a failing assertion leaves no process behind.
    let workspace = tempfile::tempdir().unwrap();
    let mut mcp = RawServe {
        child: crate::common::spawn(
            Command::new(env!("CARGO_BIN_EXE_ptc"))
                .args([
                    "mcp",
                    "--timeout-ms",
                    "600000",
                    "--client-timeout-ms",
                    "3600000",
                    "--workspace",
                ])
                .arg(workspace.path())
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .stderr(Stdio::null()),
        ),
    };
    let pid = mcp.child.id();
    let mut stdin = mcp.child.stdin.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel::<Value>();
    let stdout = mcp.child.stdout.take().unwrap();
    let reader = std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            let _ = tx.send(serde_json::from_str(&line).expect("JSON from ptc mcp"));
        }
    });
    let mut send = |message: Value| {
        writeln!(stdin, "{message}").unwrap();
        stdin.flush().unwrap();
    };
    let mut seen: Vec<Value> = Vec::new();
    let response = |id: u64, seen: &mut Vec<Value>| loop {
        let message = rx.recv_timeout(Duration::from_secs(60)).expect("an answer");
        seen.push(message.clone());
        if message["id"] == id && message.get("method").is_none() {
            return message;
        }
    };
    send(initialize());
    response(1, &mut seen);
    send(json!({ "jsonrpc": "2.0", "method": "notifications/initialized" }));
    let run = |id: u64, code: &str| {
        json!({ "jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {
            "name": "run_code", "arguments": { "code": code, "description": "d" } } })
    };
    send(run(2, "for (;;) {}"));
    until_sandbox(pid, true, "the loop never ran");
    send(
        json!({ "jsonrpc": "2.0", "method": "notifications/cancelled",
                 "params": { "requestId": 2, "reason": "the user stopped it" } }),
    );
    // Liveness only: the loop is interrupted within moments.
    until_sandbox(pid, false, "the cancelled loop still runs");
    send(run(3, "return 'still serving'"));
    let after = response(3, &mut seen);
    assert_eq!(
        after["result"]["content"][0]["text"], "still serving",
        "{after}"
    );
    drop(stdin);
    let _ = mcp.child.wait();
    reader.join().unwrap();
    seen.extend(rx.try_iter());
    assert!(
        !seen.iter().any(|m| m["id"] == 2),
        "a cancelled request got a response: {seen:#?}"
    );
}

/// mcp.md, Transports (stdio): a line that is not JSON at all is passed
/// over, not answered (answering garbage with errors can make two peers
/// trade them forever); the next request is served.
#[test]
fn ptc_mcp_passes_over_a_line_that_is_not_json() {
    let workspace = tempfile::tempdir().unwrap();
    let mut mcp = RawServe {
        child: crate::common::spawn(
            Command::new(env!("CARGO_BIN_EXE_ptc"))
                .args(["mcp", "--workspace"])
                .arg(workspace.path())
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .stderr(Stdio::null()),
        ),
    };
    let mut stdin = mcp.child.stdin.take().unwrap();
    let mut lines = BufReader::new(mcp.child.stdout.take().unwrap()).lines();
    writeln!(stdin, "{}", initialize()).unwrap();
    let answer: Value = serde_json::from_str(&lines.next().unwrap().unwrap()).unwrap();
    assert_eq!(answer["id"], 1, "{answer}");
    writeln!(
        stdin,
        r#"{{"jsonrpc":"2.0","method":"notifications/initialized"}}"#
    )
    .unwrap();
    writeln!(stdin, "this is not json").unwrap();
    writeln!(stdin, "{{\"unclosed\": ").unwrap();
    writeln!(stdin, r#"{{"jsonrpc":"2.0","id":7,"method":"tools/list"}}"#).unwrap();
    drop(stdin);
    let rest: Vec<Value> = lines
        .map(|line| serde_json::from_str(&line.unwrap()).unwrap())
        // Notifications aside, every message is an answer (an error about
        // a line might carry no id at all).
        .filter(|m: &Value| m.get("method").is_none() || m.get("id").is_some())
        .collect();
    assert_eq!(rest.len(), 1, "only the request is answered: {rest:#?}");
    assert_eq!(rest[0]["id"], 7, "{rest:#?}");
    assert!(rest[0]["result"]["tools"].is_array(), "{rest:#?}");
}

/// contracts §9: two `--stateless` processes sharing one Redis serve one
/// session; `structuredContent` names it, and an unknown one is refused as
/// `run_code`'s arguments.
#[test]
fn stateless_processes_sharing_redis_serve_one_session() {
    let redis = crate::common::RedisServer::start();
    let (a, b) = (
        HttpMcp::start(&["--stateless", "--state", &redis.url]),
        HttpMcp::start(&["--stateless", "--state", &redis.url]),
    );
    let call = |server: &HttpMcp, arguments: Value| {
        let own = server.authority.clone();
        let request = json!({ "jsonrpc": "2.0", "id": 2, "method": "tools/call",
            "params": { "name": "run_code", "arguments": arguments } });
        let (status, response) = server.post(&own, &request);
        assert_eq!(status, 200, "{response}");
        response
    };
    let wrote = call(
        &a,
        json!({ "code": "await state.set('seen', ['a']); return 'ok'" }),
    );
    let at = wrote
        .find("\"session\":\"ptc_")
        .expect("structuredContent names the session");
    let session = &wrote[at + 11..at + 11 + 52];
    assert!(
        wrote.contains(&format!("pass session \\\"{session}\\\" to use them")),
        "{wrote}"
    );
    let read = call(
        &b,
        json!({ "code": "const seen = await state.get('seen'); seen.push('b'); await state.set('seen', seen); return seen.join()", "session": session }),
    );
    assert!(read.contains("\"text\":\"a,b\""), "{read}");
    assert!(
        read.contains(&format!("\"session\":\"{session}\"")),
        "{read}"
    );
    let unknown = call(
        &a,
        json!({ "code": "return 1", "session": format!("ptc_{}", "0".repeat(48)) }),
    );
    assert!(unknown.contains("\"isError\":true"), "{unknown}");
    assert!(
        unknown.contains("INVALID_ARGUMENTS")
            || unknown.contains("invalid arguments for `run_code`"),
        "{unknown}"
    );
    assert!(
        unknown.contains("was not opened by this ptc's state store"),
        "{unknown}"
    );
}

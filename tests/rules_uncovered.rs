//! Rules of `docs/` that had no test (issue 23), one test each: a reused
//! in-flight request id, `data.detail` kept from the model, `tools.then`,
//! a manifest command's stdout past 16 MiB, a line that is not UTF-8, a
//! wrapper's retries each under the tool's timeout, and `ptc mcp` over
//! HTTP: the `Host` check on loopback and `--stateless` refusing
//! escalations.

use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use crate::common::Spawned;
use ptc::{
    Call, CallOptions, Engine, ErrorCode, Limits, Registry, RunOptions, RunRequest, Tool,
    ToolContext, ToolDefinition, ToolError, load_manifest,
};
use serde_json::{Value, json};

use crate::serve::Host;

/// host-protocol: "While a request is in flight its id may not be reused
/// (-32600)"; the first request is still answered.
#[tokio::test]
async fn a_reused_in_flight_request_id_is_invalid() {
    let mut host = Host::start();
    host.call(
        "tools/register",
        json!({ "tools": [{ "name": "hang", "readOnly": true }] }),
    )
    .await;
    let run = host
        .request(
            "run_code",
            json!({ "code": "return await tools.hang({})", "description": "waits" }),
        )
        .await;
    let call = host.incoming_request("tools/call").await;
    host.send(json!({ "jsonrpc": "2.0", "id": run, "method": "run_code",
                      "params": { "code": "return 2", "description": "again" } }))
        .await;
    let error = host.response(run).await;
    assert_eq!(error["error"]["code"], -32600, "{error}");
    host.reply(&call, json!({ "value": "first" })).await;
    let first = host.response(run).await;
    assert_eq!(first["result"]["content"][0]["text"], "first", "{first}");
    let (status, stderr) = host.finish().await;
    assert_eq!(status, 0, "{stderr}");
}

/// host-protocol: a string `data.detail` is the failure's user-facing
/// detail: it reaches `tools/invoke` errors, never the model's text.
#[tokio::test]
async fn data_detail_never_reaches_the_model() {
    let mut host = Host::start();
    host.call(
        "tools/register",
        json!({ "tools": [{ "name": "guarded" }] }),
    )
    .await;
    let error = json!({ "code": -32000, "message": "not allowed",
                        "data": { "code": "DENIED", "detail": "SECRET-DETAIL for the user" } });
    let run = host
        .request(
            "run_code",
            json!({ "code": "try { await tools.guarded({}) } catch (e: any) { return JSON.stringify(e) + e.message + e.code }", "description": "d" }),
        )
        .await;
    let call = host.incoming_request("tools/call").await;
    host.send(json!({ "jsonrpc": "2.0", "id": call["id"], "error": error }))
        .await;
    let result = host.response(run).await["result"].clone();
    let text = result["content"][0]["text"].as_str().unwrap().to_owned();
    assert!(text.contains("DENIED"), "{text}");
    assert!(!result.to_string().contains("SECRET"), "{result}");

    // Called directly (native mode), the result carries the detail beside
    // the model's text, not in it.
    host.call("initialize", json!({ "config": { "mode": "native" } }))
        .await;
    host.call(
        "tools/register",
        json!({ "tools": [{ "name": "guarded" }] }),
    )
    .await;
    let invoke = host
        .request(
            "tools/invoke",
            json!({ "name": "guarded", "arguments": {} }),
        )
        .await;
    let call = host.incoming_request("tools/call").await;
    host.send(json!({ "jsonrpc": "2.0", "id": call["id"], "error": error }))
        .await;
    let answer = host.response(invoke).await["result"].clone();
    assert_eq!(
        answer["error"]["detail"], "SECRET-DETAIL for the user",
        "the detail is kept for the user: {answer}"
    );
    assert_eq!(answer["error"]["code"], "DENIED", "{answer}");
    assert!(
        !answer["content"].to_string().contains("SECRET"),
        "{answer}"
    );
    let (status, stderr) = host.finish().await;
    assert_eq!(status, 0, "{stderr}");
}

/// contracts §6: `tools.then` is `undefined`, so `await tools` does not
/// call a tool (and `then` cannot be registered).
#[tokio::test]
async fn tools_then_is_undefined() {
    let registry = crate::common::test_registry();
    assert!(registry.add(crate::common::echo("then")).is_err());
    let engine = Engine::new(registry, Limits::default()).unwrap();
    let outcome = engine
        .run_code(
            RunRequest::new(
                "const t = await tools\nreturn `${typeof tools.then} ${t === tools} ${typeof tools.echo}`",
            ),
            RunOptions::default(),
        )
        .await
        .unwrap();
    assert_eq!(outcome.text(), "undefined true function");
}

/// contracts §8: more than 16 MiB of a manifest command's stdout is a
/// `TOOL_ERROR` (16 MiB exactly is read).
#[tokio::test]
#[cfg(unix)]
async fn manifest_stdout_past_16_mib_is_a_tool_error() {
    let _no_leaks = crate::common::NoLeaks::for_this_test();
    let dir = tempfile::tempdir().unwrap();
    // A JSON string of `n` bytes: a quote, n - 2 spaces, a quote.
    let script =
        "#!/bin/sh\nprintf '\"'; head -c $(($1 - 2)) /dev/zero | tr '\\0' ' '; printf '\"'\n";
    let path = dir.path().join("big.sh");
    std::fs::write(&path, script).unwrap();
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let manifest = json!([
        { "name": "fits", "command": ["./big.sh", (16 << 20).to_string()] },
        { "name": "over", "command": ["./big.sh", ((16 << 20) + 1).to_string()] }
    ]);
    let manifest_path = dir.path().join("tools.json");
    let manifest = crate::common::tag_manifest(manifest);
    std::fs::write(&manifest_path, manifest.to_string()).unwrap();
    let registry = Registry::new();
    registry
        .add_all(load_manifest(&manifest_path).unwrap())
        .unwrap();
    let scope = registry.scope();
    let call = |name: &str| scope.call(Call::new("c", name, json!({})), CallOptions::default());
    let fits = call("fits").await.expect("16 MiB is read");
    assert_eq!(fits.value.as_str().unwrap().len(), (16 << 20) - 2);
    let over = call("over").await.expect_err("past 16 MiB");
    assert_eq!(over.code, ErrorCode::ToolError, "{}", over.message);
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

/// `ptc serve` or `ptc mcp` spawned by hand (for bytes `Host` cannot
/// send), killed on drop.
struct RawServe {
    child: Spawned,
}

impl Drop for RawServe {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// host-protocol: a line that is not UTF-8 gets -32700 with `id: null`, and
/// the server keeps serving.
#[test]
fn a_line_that_is_not_utf8_gets_a_parse_error() {
    let mut serve = RawServe {
        child: crate::common::spawn(
            Command::new(env!("CARGO_BIN_EXE_ptc"))
                .arg("serve")
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .stderr(Stdio::null()),
        ),
    };
    let mut stdin = serve.child.stdin.take().unwrap();
    stdin
        .write_all(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\",\"params\":{\"x\":\"\xff\xfe\"}}\n")
        .unwrap();
    stdin
        .write_all(b"{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\",\"params\":{}}\n")
        .unwrap();
    drop(stdin);
    let mut lines = BufReader::new(serve.child.stdout.take().unwrap()).lines();
    let first: Value = serde_json::from_str(&lines.next().unwrap().unwrap()).unwrap();
    assert_eq!(first["error"]["code"], -32700, "{first}");
    assert_eq!(first["id"], Value::Null, "{first}");
    let second: Value = serde_json::from_str(&lines.next().unwrap().unwrap()).unwrap();
    assert_eq!(second["id"], 2, "{second}");
    assert!(second.get("result").is_some(), "{second}");
}

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

/// Whether a `ptc-sandbox` thread of process `pid` is running (state R).
#[cfg(target_os = "linux")]
fn sandbox_running(pid: u32) -> bool {
    std::fs::read_dir(format!("/proc/{pid}/task"))
        .unwrap()
        .filter_map(|task| {
            let path = task.ok()?.path();
            let comm = std::fs::read_to_string(path.join("comm")).ok()?;
            let stat = std::fs::read_to_string(path.join("stat")).ok()?;
            Some((comm, stat))
        })
        .any(|(comm, stat)| {
            comm.trim() == "ptc-sandbox"
                && stat
                    .rsplit_once(") ")
                    .is_some_and(|(_, rest)| rest.starts_with('R'))
        })
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
                .args(["mcp", "--timeout-ms", "600000", "--workspace"])
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
    let spinning = std::time::Instant::now();
    while !sandbox_running(pid) {
        assert!(
            spinning.elapsed() < Duration::from_secs(60),
            "the loop never ran"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
    send(
        json!({ "jsonrpc": "2.0", "method": "notifications/cancelled",
                 "params": { "requestId": 2, "reason": "the user stopped it" } }),
    );
    // Liveness only: the loop is interrupted within moments. Ten quiet
    // samples in a row: a spinning thread is in state R in every one,
    // however loaded the machine.
    let stopping = std::time::Instant::now();
    let mut quiet = 0;
    while quiet < 10 {
        assert!(
            stopping.elapsed() < Duration::from_secs(60),
            "the cancelled loop still runs"
        );
        quiet = if sandbox_running(pid) { 0 } else { quiet + 1 };
        std::thread::sleep(Duration::from_millis(20));
    }
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

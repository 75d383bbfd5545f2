//! Rules of `docs/` that had no test (issue 23), one test each: a reused
//! in-flight request id, `data.detail` kept from the model, `tools.then`,
//! a manifest command's stdout past 16 MiB, a line that is not UTF-8, a
//! wrapper's retries each under the tool's timeout, and `ptc mcp` over
//! HTTP: the `Host` check on loopback and `--stateless` refusing
//! escalations, an `INVALID_ARGUMENTS` message's three failures and a
//! count, an unknown name's three nearest tools, and `droppedEvents` when
//! a host does not read.

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

/// The names of what `presentation` shows the model.
fn presented(presentation: &Value) -> Vec<String> {
    presentation["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_owned())
        .collect()
}

/// host-protocol, Details: `initialize` sent again sets the whole config,
/// members left out taking their defaults (the mode back to `ptc`).
#[tokio::test]
async fn initialize_again_resets_what_it_leaves_out() {
    let mut host = Host::start();
    host.call(
        "initialize",
        json!({ "config": { "mode": "native", "outputCapBytes": 100 } }),
    )
    .await;
    host.call(
        "tools/register",
        json!({ "tools": [{ "name": "t", "readOnly": true }] }),
    )
    .await;
    assert_eq!(
        presented(&host.call("presentation", json!({})).await),
        ["t"]
    );
    host.call("initialize", json!({})).await;
    assert_eq!(
        presented(&host.call("presentation", json!({})).await),
        ["run_code"],
        "the mode is back to ptc"
    );
    let long = host
        .call(
            "run_code",
            json!({ "code": "return 'y'.repeat(1000)", "description": "d" }),
        )
        .await;
    assert_eq!(
        long["content"][0]["text"],
        "y".repeat(1000),
        "the output cap is back to its default"
    );
    let (status, stderr) = host.finish().await;
    assert_eq!(status, 0, "{stderr}");
}

/// host-protocol, Details: ptc numbers its own requests 1, 2, … whatever
/// the host's ids; a `tools/invoke` without `id` is `invoke-<n>`, and its
/// `tools/call` has no `runId` (a sub-call of a run has one).
#[tokio::test]
async fn ptc_numbers_its_requests_and_invocations_of_its_own() {
    let mut host = Host::start();
    // Host ids 1 … 5 go by before ptc sends its first request.
    for _ in 0..3 {
        host.call("tools/list", json!({})).await;
    }
    host.call("initialize", json!({ "config": { "mode": "both" } }))
        .await;
    host.call(
        "tools/register",
        json!({ "tools": [{ "name": "t", "readOnly": true }] }),
    )
    .await;
    for n in 1..=2 {
        let invoke = host
            .request("tools/invoke", json!({ "name": "t", "arguments": {} }))
            .await;
        let call = host.incoming_request("tools/call").await;
        assert_eq!(call["id"], n, "{call}");
        assert_eq!(
            call["params"],
            json!({ "id": format!("invoke-{n}"), "name": "t", "arguments": {} }),
            "no runId for a direct call"
        );
        host.reply(&call, json!({ "value": n })).await;
        assert_eq!(host.response(invoke).await["result"]["value"], n);
    }
    let run = host
        .request(
            "run_code",
            json!({ "code": "return await tools.t({})", "description": "d", "runId": "r" }),
        )
        .await;
    let call = host.incoming_request("tools/call").await;
    assert_eq!(call["id"], 3, "{call}");
    assert_eq!(call["params"]["runId"], "r", "{call}");
    assert_eq!(call["params"]["id"], "r:ptc:1", "{call}");
    host.reply(&call, json!({ "value": "ran" })).await;
    assert_eq!(
        host.response(run).await["result"]["content"][0]["text"],
        "ran"
    );
    let (status, stderr) = host.finish().await;
    assert_eq!(status, 0, "{stderr}");
}

/// host-protocol, Malformed input: blank lines are skipped, responses to
/// ids ptc never used and notifications other than `$/cancel` (and a
/// `$/cancel` of an unknown id) are ignored: none gets an answer; a
/// request without `jsonrpc` is served.
#[tokio::test]
async fn lines_that_ask_nothing_get_no_answer() {
    let mut host = Host::start();
    for line in [
        "",
        "   \t ",
        r#"{"jsonrpc":"2.0","id":999,"result":{"value":1}}"#,
        r#"{"jsonrpc":"2.0","id":"x","error":{"code":1,"message":"m"}}"#,
        r#"{"jsonrpc":"2.0","method":"something/else","params":{}}"#,
        r#"{"jsonrpc":"2.0","method":"$/cancel","params":{"id":12345}}"#,
    ] {
        host.send_line(line).await;
    }
    // Answered in order, after all of the above.
    host.send_line(r#"{"id":"last","method":"tools/list"}"#)
        .await;
    let last = host
        .expect("the answer to `last`", |m| m["id"] == "last")
        .await;
    assert_eq!(last["result"], json!({ "tools": [] }), "{last}");
    assert_eq!(host.seen.len(), 1, "{:#?}", host.seen);
    let (status, stderr) = host.finish().await;
    assert_eq!(status, 0, "{stderr}");
}

/// host-protocol, Answering `tools/approve`: at most 16 approvals wait at
/// once per session; one more is refused as `DENIED` without a
/// `tools/approve` being sent.
#[tokio::test]
async fn a_seventeenth_approval_is_refused_without_asking_the_host() {
    let mut host = Host::start();
    host.call(
        "initialize",
        json!({ "config": { "maxParallelSubCalls": 32 } }),
    )
    .await;
    host.call(
        "tools/register",
        json!({ "tools": [{ "name": "ask", "policy": "ask", "readOnly": true }] }),
    )
    .await;
    // Read-only, so the 17 calls are in flight together (a mutating call
    // runs alone).
    let run = host
        .request(
            "run_code",
            json!({ "code": "const r = await Promise.allSettled(Array.from({ length: 17 }, (_, i) => tools.ask({ i })))\nreturn r.map((x: any) => x.reason.code + ': ' + x.reason.message)", "description": "d" }),
        )
        .await;
    let mut approvals = Vec::new();
    for _ in 0..16 {
        approvals.push(host.incoming_request("tools/approve").await);
    }
    // The seventeenth settles while the sixteen still wait.
    let refused = host
        .expect("the seventeenth call refused", |m| {
            m["method"] == "run/event"
                && m["params"]["event"] == "settled"
                && m["params"]["error"]["code"] == "DENIED"
        })
        .await;
    assert!(
        refused["params"]["error"]["message"]
            .as_str()
            .unwrap()
            .contains("16 approvals are already waiting for an answer"),
        "{refused}"
    );
    for approval in &approvals {
        host.reply(approval, json!({ "approved": false, "reason": "no" }))
            .await;
    }
    let response = host.response(run).await;
    let reasons: Vec<String> =
        serde_json::from_str(response["result"]["content"][0]["text"].as_str().unwrap()).unwrap();
    assert_eq!(
        reasons.iter().filter(|r| *r == "DENIED: no").count(),
        16,
        "{reasons:?}"
    );
    assert_eq!(
        host.seen
            .iter()
            .filter(|m| m["method"] == "tools/approve")
            .count(),
        16,
        "one tools/approve per waiting approval, none for the refused one"
    );
    let (status, stderr) = host.finish().await;
    assert_eq!(status, 0, "{stderr}");
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

/// host-protocol, Backpressure: a host that does not read ptc's output
/// loses `run/event` lines past 16 MiB of backlog, not memory, and the
/// run's response says how many in `droppedEvents`: the events that
/// arrive and the ones counted as dropped are all the run emitted.
#[test]
#[cfg(target_os = "linux")]
fn a_host_that_does_not_read_gets_dropped_events_counted() {
    const LINES: usize = 24;
    let mut serve = RawServe {
        child: crate::common::spawn(
            Command::new(env!("CARGO_BIN_EXE_ptc"))
                .arg("serve")
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .stderr(Stdio::null()),
        ),
    };
    let pid = serve.child.id();
    let mut stdin = serve.child.stdin.take().unwrap();
    // The capture holds every line, so each console.log is an event.
    let initialize = json!({ "jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": { "config": { "outputCapBytes": 64 << 20 } } });
    let code = format!(
        "const line = 'x'.repeat(1 << 20)\nfor (let i = 0; i < {LINES}; i++) console.log(line)\nreturn 'done'"
    );
    let run = json!({ "jsonrpc": "2.0", "id": 2, "method": "run_code",
        "params": { "code": code, "description": "logs 1 MiB lines" } });
    writeln!(stdin, "{initialize}").unwrap();
    writeln!(stdin, "{run}").unwrap();
    // Read nothing until the program is done: its sandbox thread ran and
    // has been idle for a second (or was never seen running within 30 s,
    // time enough for a loaded machine to start it).
    let start = std::time::Instant::now();
    let (mut seen, mut quiet_since) = (false, std::time::Instant::now());
    while start.elapsed() < Duration::from_secs(120) {
        if sandbox_running(pid) {
            seen = true;
            quiet_since = std::time::Instant::now();
        } else if (seen && quiet_since.elapsed() > Duration::from_secs(1))
            || (!seen && start.elapsed() > Duration::from_secs(30))
        {
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    drop(stdin);
    let mut events = 0;
    let mut response = None;
    for line in BufReader::new(serve.child.stdout.take().unwrap()).lines() {
        let message: Value = serde_json::from_str(&line.unwrap()).unwrap();
        if message["method"] == "run/event" {
            assert_eq!(message["params"]["event"], "log", "{}", head(&message));
            events += 1;
        } else if message["id"] == 2 {
            response = Some(message);
        }
    }
    let response = response.expect("the run is answered");
    let result = &response["result"];
    assert_eq!(result["isError"], false, "{}", head(&response));
    let dropped = result["droppedEvents"].as_u64().unwrap_or_else(|| {
        panic!(
            "no droppedEvents, {events} events came: {}",
            head(&response)
        )
    });
    assert!(dropped >= 1, "{dropped}");
    assert!(
        events >= 16,
        "16 MiB of events are kept before any is dropped: {events}"
    );
    assert_eq!(
        events + dropped as usize,
        LINES,
        "{events} came, {dropped} dropped"
    );
}

/// The start of a message too long to print whole.
fn head(message: &Value) -> String {
    message.to_string().chars().take(300).collect()
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

//! `ptc serve`'s wire rules (host-protocol.md), one test each: a reused
//! in-flight request id, `data.detail` kept from the model, a line that is
//! not UTF-8, `initialize` sent again, ptc's own request and invocation
//! ids, lines that ask nothing, and `droppedEvents` when a host does not
//! read.

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::time::Duration;

use serde_json::{Value, json};

use crate::common::{RawServe, head, sandbox_running};
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

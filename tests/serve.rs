//! `ptc serve`: the host protocol, spoken by a test host over the real
//! binary's stdin and stdout.

use std::collections::VecDeque;
use std::process::Stdio;
use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, ChildStdin, Command};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

/// How long to wait for one expected message: generous, never relied upon.
const PATIENCE: Duration = Duration::from_secs(60);

/// A test host driving `ptc serve`.
pub(crate) struct Host {
    child: Child,
    stdin: Option<ChildStdin>,
    reader: JoinHandle<()>,
    incoming: mpsc::UnboundedReceiver<Value>,
    /// Every message received, in arrival order.
    pub(crate) seen: Vec<Value>,
    /// Received but not yet taken by `expect`.
    backlog: VecDeque<Value>,
    next_id: u64,
    /// Last: checks, after the child is killed, that nothing it started is left.
    _no_leaks: crate::common::NoLeaks,
}

impl Host {
    pub(crate) fn start() -> Self {
        let no_leaks = crate::common::NoLeaks::new();
        let mut child = Command::new(env!("CARGO_BIN_EXE_ptc"))
            .arg("serve")
            .env(crate::common::TAG_VAR, no_leaks.tag())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .expect("ptc serve starts");
        let stdout = child.stdout.take().unwrap();
        let stdin = child.stdin.take();
        let (tx, incoming) = mpsc::unbounded_channel();
        let reader = tokio::spawn(async move {
            let mut lines = BufReader::new(stdout).lines();
            while let Ok(Some(line)) = lines.next_line().await {
                let message =
                    serde_json::from_str(&line).unwrap_or_else(|_| json!({ "notJson": line }));
                if tx.send(message).is_err() {
                    break;
                }
            }
        });
        Self {
            child,
            stdin,
            reader,
            incoming,
            seen: Vec::new(),
            backlog: VecDeque::new(),
            next_id: 0,
            _no_leaks: no_leaks,
        }
    }

    pub(crate) async fn send_line(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().expect("stdin is open");
        stdin.write_all(line.as_bytes()).await.unwrap();
        stdin.write_all(b"\n").await.unwrap();
        stdin.flush().await.unwrap();
    }

    pub(crate) async fn send(&mut self, message: Value) {
        self.send_line(&message.to_string()).await;
    }

    /// Sends a request; returns its id.
    pub(crate) async fn request(&mut self, method: &str, params: Value) -> u64 {
        self.next_id += 1;
        let id = self.next_id;
        self.send(json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params }))
            .await;
        id
    }

    pub(crate) async fn notify(&mut self, method: &str, params: Value) {
        self.send(json!({ "jsonrpc": "2.0", "method": method, "params": params }))
            .await;
    }

    /// Answers a request from ptc.
    pub(crate) async fn reply(&mut self, request: &Value, result: Value) {
        let id = request["id"].clone();
        self.send(json!({ "jsonrpc": "2.0", "id": id, "result": result }))
            .await;
    }

    pub(crate) async fn reply_error(&mut self, request: &Value, error: Value) {
        let id = request["id"].clone();
        self.send(json!({ "jsonrpc": "2.0", "id": id, "error": error }))
            .await;
    }

    /// The first message, old or new, that `matches`; the others wait in
    /// the backlog.
    pub(crate) async fn expect(&mut self, what: &str, matches: impl Fn(&Value) -> bool) -> Value {
        if let Some(i) = self.backlog.iter().position(&matches) {
            return self.backlog.remove(i).unwrap();
        }
        let deadline = tokio::time::Instant::now() + PATIENCE;
        loop {
            match tokio::time::timeout_at(deadline, self.incoming.recv()).await {
                Ok(Some(message)) => {
                    assert!(
                        message.get("notJson").is_none(),
                        "ptc wrote a line that is not JSON: {message}"
                    );
                    assert_eq!(message["jsonrpc"], "2.0", "{message}");
                    self.seen.push(message.clone());
                    if matches(&message) {
                        return message;
                    }
                    self.backlog.push_back(message);
                }
                Ok(None) => panic!(
                    "ptc closed stdout; waiting for {what}; seen {:#?}",
                    self.seen
                ),
                Err(_) => panic!("no {what} within {PATIENCE:?}; backlog {:#?}", self.backlog),
            }
        }
    }

    /// The response to our request `id`.
    pub(crate) async fn response(&mut self, id: u64) -> Value {
        self.expect(&format!("the response to {id}"), |m| {
            m["id"] == id && m.get("method").is_none()
        })
        .await
    }

    /// The result of a request that must succeed.
    pub(crate) async fn call(&mut self, method: &str, params: Value) -> Value {
        let id = self.request(method, params).await;
        let response = self.response(id).await;
        assert!(
            response.get("error").is_none(),
            "{method} failed: {response}"
        );
        response["result"].clone()
    }

    /// The error of a request that must fail.
    pub(crate) async fn call_error(&mut self, method: &str, params: Value) -> Value {
        let id = self.request(method, params).await;
        let response = self.response(id).await;
        assert!(
            response.get("result").is_none(),
            "{method} succeeded: {response}"
        );
        response["error"].clone()
    }

    /// A request from ptc with this method.
    pub(crate) async fn incoming_request(&mut self, method: &str) -> Value {
        self.expect(method, |m| m["method"] == method && m.get("id").is_some())
            .await
    }

    /// Whether any message that arrived so far `matches`.
    pub(crate) fn seen_any(&self, matches: impl Fn(&Value) -> bool) -> bool {
        self.seen.iter().any(matches)
    }

    /// Where a message sits in the arrival order.
    fn position(&self, message: &Value) -> usize {
        self.seen
            .iter()
            .position(|m| m == message)
            .expect("a message that arrived")
    }

    /// The `run/event` params of run `run_id`, each of which must have
    /// come before `response`.
    pub(crate) fn events_before(&self, response: &Value, run_id: &str) -> Vec<Value> {
        let response_at = self.position(response);
        let events = self.seen.iter().filter(|m| m["method"] == "run/event");
        events
            .inspect(|message| {
                assert_eq!(message["params"]["runId"], run_id);
                let at = self.position(message);
                assert!(at < response_at, "{message} after the response");
            })
            .map(|message| message["params"].clone())
            .collect()
    }

    /// Closes ptc's stdin and returns its exit status and stderr.
    pub(crate) async fn finish(mut self) -> (i32, String) {
        drop(self.stdin.take());
        self.wait().await
    }

    async fn wait(&mut self) -> (i32, String) {
        let status = tokio::time::timeout(PATIENCE, self.child.wait())
            .await
            .expect("ptc exits")
            .unwrap();
        let mut stderr = String::new();
        if let Some(mut pipe) = self.child.stderr.take() {
            tokio::io::AsyncReadExt::read_to_string(&mut pipe, &mut stderr)
                .await
                .unwrap();
        }
        (status.code().expect("ptc exits, not killed"), stderr)
    }
}

/// The `tools/call` requests of two `lookup` calls of run `run_id`, which
/// must both be in flight at once.
async fn two_lookups_in_flight(host: &mut Host, run_id: &str) -> (Value, Value) {
    let first = host.incoming_request("tools/call").await;
    let second = host.incoming_request("tools/call").await;
    for call in [&first, &second] {
        assert_eq!(call["params"]["runId"], run_id);
        assert_eq!(call["params"]["name"], "lookup");
        let id = call["params"]["id"].as_str().unwrap();
        assert!(id.starts_with(&format!("{run_id}:ptc:")), "{id}");
    }
    (first, second)
}

/// A `lookup` call's key, upper-cased.
fn upper_key(call: &Value) -> Value {
    let key = call["params"]["arguments"]["key"].as_str().unwrap();
    json!(key.to_uppercase())
}

/// A read-only tool taking a string `key`.
fn lookup_tool() -> Value {
    json!({
        "name": "lookup",
        "description": "Looks a key up.",
        "readOnly": true,
        "parameters": {
            "type": "object",
            "properties": { "key": { "type": "string" } },
            "required": ["key"]
        }
    })
}

fn wait_tool(name: &str) -> Value {
    json!({ "name": name, "description": "Waits for the host.", "readOnly": true })
}

#[tokio::test]
async fn a_session_runs_code_against_host_tools() {
    let mut host = Host::start();
    let init = host
        .call(
            "initialize",
            json!({ "config": { "maxParallelSubCalls": 4, "outputCapBytes": 4096 } }),
        )
        .await;
    assert_eq!(init["name"], "ptc");
    assert_eq!(init["version"], env!("CARGO_PKG_VERSION"));
    assert_eq!(init["protocolVersion"], 1);

    let registered = host
        .call("tools/register", json!({ "tools": [lookup_tool()] }))
        .await;
    assert_eq!(registered, json!({ "registered": ["lookup"], "count": 1 }));

    let run = host
        .request(
            "run_code",
            json!({
                "code": "console.log('start');\n\
                         const [a, b] = await Promise.all([tools.lookup({ key: 'x' }), tools.lookup({ key: 'y' })]);\n\
                         return a + b",
                "description": "Looks two keys up",
                "runId": "r1"
            }),
        )
        .await;
    // Both calls are in flight at once (read-only, parallel).
    let (first, second) = two_lookups_in_flight(&mut host, "r1").await;
    // Answer in reverse order, one with an image.
    let (v2, v1) = (upper_key(&second), upper_key(&first));
    host.reply(
        &second,
        json!({ "value": v2, "content": [{ "type": "image", "data": "AAAA", "mimeType": "image/png" }] }),
    )
    .await;
    host.reply(&first, json!({ "value": v1 })).await;

    let response = host.response(run).await;
    let result = &response["result"];
    assert_eq!(result["runId"], "r1");
    assert_eq!(result["isError"], false);
    assert!(result.get("kind").is_none());
    assert_eq!(result["subCalls"], 2);
    assert!(result["elapsedMs"].as_f64().unwrap() >= 0.0);
    assert_eq!(
        result["content"][0],
        json!({ "type": "text", "text": "start\nXY" })
    );
    assert_eq!(
        result["content"][1]["text"],
        format!(
            "Image from `lookup` (sub-call {}):",
            second["params"]["id"].as_str().unwrap()
        )
    );
    assert_eq!(result["content"][2]["type"], "image");

    let events = host.events_before(&response, "r1");
    let kinds: Vec<&str> = events
        .iter()
        .map(|e| e["event"].as_str().unwrap())
        .collect();
    let count = |kind: &str| kinds.iter().filter(|k| **k == kind).count();
    assert_eq!((count("started"), count("settled")), (2, 2), "{kinds:?}");
    assert!(kinds.contains(&"log"), "{kinds:?}");
    let log = events.iter().find(|e| e["event"] == "log").unwrap();
    assert_eq!(log["text"], "start");
    let started = events.iter().find(|e| e["event"] == "started").unwrap();
    assert_eq!(started["name"], "lookup");
    assert!(started["arguments"]["key"].is_string());
    let settled = events.iter().find(|e| e["event"] == "settled").unwrap();
    assert_eq!(settled["ok"], true);

    let (status, stderr) = host.finish().await;
    assert_eq!(status, 0, "{stderr}");
}

#[tokio::test]
async fn approvals_and_failures_come_from_the_host() {
    let mut host = Host::start();
    host.call(
        "tools/register",
        json!({ "tools": [
            { "name": "risky", "policy": "ask" },
            { "name": "boom" },
            { "name": "forbidden", "policy": "deny" }
        ] }),
    )
    .await;
    let run = host
        .request(
            "run_code",
            json!({
                "code": r#"
                    const out: string[] = [];
                    const attempt = async (f: () => Promise<unknown>) => {
                        try { out.push(String(await f())) } catch (e: any) { out.push(`${e.code}: ${e.message}`) }
                    };
                    await attempt(() => tools.risky({ n: 1 }));
                    await attempt(() => tools.risky({ n: 2 }));
                    await attempt(() => tools.boom({ with: 'code' }));
                    await attempt(() => tools.boom({ with: 'nothing' }));
                    await attempt(() => tools.boom({ with: 'both' }));
                    await attempt(() => tools.forbidden());
                    return out.join('\n')
                "#,
                "description": "Tries the tools",
                "runId": "r2"
            }),
        )
        .await;

    let approve = host.incoming_request("tools/approve").await;
    assert_eq!(
        approve["params"],
        json!({ "runId": "r2", "id": "r2:ptc:1", "name": "risky", "arguments": { "n": 1 }, "title": "risky(n: 1)", "kind": "call" })
    );
    host.reply(&approve, json!({ "approved": true })).await;
    let call = host.incoming_request("tools/call").await;
    assert_eq!(call["params"]["id"], "r2:ptc:1");
    host.reply(&call, json!({ "value": "done" })).await;

    let approve = host.incoming_request("tools/approve").await;
    assert_eq!(approve["params"]["arguments"], json!({ "n": 2 }));
    host.reply(
        &approve,
        json!({ "approved": false, "reason": "not today" }),
    )
    .await;

    let call = host.incoming_request("tools/call").await;
    assert_eq!(call["params"]["name"], "boom");
    host.reply_error(
        &call,
        json!({ "code": -32000, "message": "no such thing", "data": { "code": "INVALID_ARGUMENTS" } }),
    )
    .await;
    let call = host.incoming_request("tools/call").await;
    host.reply_error(&call, json!({ "code": -32000, "message": "it broke" }))
        .await;
    let call = host.incoming_request("tools/call").await;
    host.send(json!({ "jsonrpc": "2.0", "id": call["id"], "result": { "value": 1 }, "error": { "code": 1, "message": "m" } }))
        .await;

    let result = host.response(run).await["result"].clone();
    assert_eq!(result["isError"], false, "{result}");
    assert_eq!(
        result["content"][0]["text"],
        "done\nDENIED: not today\nINVALID_ARGUMENTS: no such thing\nTOOL_ERROR: it broke\n\
         TOOL_ERROR: the host answered with both `result` and `error`\n\
         DENIED: tool `forbidden` is not allowed"
    );
    assert_eq!(result["subCalls"], 6);
    let (status, stderr) = host.finish().await;
    assert_eq!(status, 0, "{stderr}");
}

/// A session with `tools` registered.
async fn host_with(tools: Value) -> Host {
    let mut host = Host::start();
    host.call("tools/register", json!({ "tools": tools })).await;
    host
}

/// ptc's `$/cancel` of its `request`, which must come before `response`.
async fn cancelled_before(host: &mut Host, request: &Value, response: &Value) {
    let cancel = host
        .expect("$/cancel of ptc's request", |m| {
            m["method"] == "$/cancel" && m["params"]["id"] == request["id"]
        })
        .await;
    assert!(host.position(&cancel) < host.position(response));
}

#[tokio::test]
async fn cancelling_a_run_abandons_its_calls_first() {
    let mut host = host_with(json!([wait_tool("wait")])).await;
    // `$/cancel` from the host ends the run as cancelled.
    let run = host
        .request(
            "run_code",
            json!({ "code": "return await tools.wait({})", "description": "Waits" }),
        )
        .await;
    let call = host.incoming_request("tools/call").await;
    host.notify("$/cancel", json!({ "id": run })).await;
    let response = host.response(run).await;
    cancelled_before(&mut host, &call, &response).await;
    assert_eq!(response["result"]["isError"], true);
    assert_eq!(response["result"]["kind"], "cancelled");
    assert_eq!(
        response["result"]["content"][0]["text"],
        "Error: code run failed (cancelled): the run was cancelled"
    );
    let settled = host
        .seen
        .iter()
        .find(|m| m["method"] == "run/event" && m["params"]["event"] == "settled")
        .unwrap()
        .clone();
    assert_eq!(settled["params"]["error"]["code"], "ABORTED");
    assert!(host.position(&settled) < host.position(&response));
    // A late answer is ignored: nothing answers it, and the session goes on.
    let seen = host.seen.len();
    host.reply(&call, json!({ "value": 1 })).await;
    let listed = host.call("tools/list", json!({})).await;
    assert!(listed["tools"].is_array());
    assert_eq!(
        host.seen.len(),
        seen + 1,
        "only the tools/list answer came: {:?}",
        &host.seen[seen..]
    );
    let (status, stderr) = host.finish().await;
    assert_eq!(status, 0, "{stderr}");
}

#[tokio::test]
async fn a_tool_timeout_abandons_the_call_and_the_run_goes_on() {
    let mut host = host_with(json!([{ "name": "slow", "timeoutMs": 100 }])).await;
    let run = host
        .request(
            "run_code",
            json!({
                "code": "try { await tools.slow({}) } catch (e: any) { return e.code }",
                "description": "Times a tool out"
            }),
        )
        .await;
    let call = host.incoming_request("tools/call").await;
    let response = host.response(run).await;
    cancelled_before(&mut host, &call, &response).await;
    assert_eq!(response["result"]["content"][0]["text"], "TOOL_TIMEOUT");
    let (status, stderr) = host.finish().await;
    assert_eq!(status, 0, "{stderr}");
}

#[tokio::test]
async fn the_run_deadline_abandons_the_call_in_flight_first() {
    let mut host = host_with(json!([wait_tool("wait")])).await;
    let from = host.seen.len();
    let run = host
        .request(
            "run_code",
            json!({ "code": "await tools.wait({})", "description": "Times out", "timeoutMs": 200 }),
        )
        .await;
    // Whether the call went out before the deadline depends on the machine;
    // what must hold either way: a call that went out was cancelled first.
    let response = host.response(run).await;
    assert_eq!(response["result"]["kind"], "timeout");
    let sent = host.seen[from..]
        .iter()
        .find(|m| m["method"] == "tools/call" && m["params"]["name"] == "wait")
        .cloned();
    if let Some(call) = sent {
        let cancel = host.seen[from..]
            .iter()
            .find(|m| m["method"] == "$/cancel" && m["params"]["id"] == call["id"])
            .cloned()
            .expect("a $/cancel for the call in flight at the deadline");
        assert!(host.position(&cancel) < host.position(&response));
    }
    let (status, stderr) = host.finish().await;
    assert_eq!(status, 0, "{stderr}");
}

#[tokio::test]
async fn cancelling_a_run_abandons_its_pending_approval_first() {
    let mut host = host_with(json!([{ "name": "asks", "policy": "ask" }])).await;
    let run = host
        .request(
            "run_code",
            json!({ "code": "await tools.asks({})", "description": "Asks" }),
        )
        .await;
    let approve = host.incoming_request("tools/approve").await;
    host.notify("$/cancel", json!({ "id": run })).await;
    let response = host.response(run).await;
    cancelled_before(&mut host, &approve, &response).await;
    assert_eq!(response["result"]["kind"], "cancelled");
    let (status, stderr) = host.finish().await;
    assert_eq!(status, 0, "{stderr}");
}

/// `echo` (an MCP-spelled read-only tool taking an integer `a`) and `note`.
fn echo_and_note() -> Value {
    json!([
        {
            "name": "echo",
            "description": "Echoes.",
            "inputSchema": { "type": "object", "properties": { "a": { "type": "integer" } } },
            "annotations": { "readOnlyHint": true }
        },
        { "name": "note", "summary": "Short.", "description": "Long." }
    ])
}

#[tokio::test]
async fn tools_list_and_presentation_show_the_registered_tools() {
    let mut host = host_with(echo_and_note()).await;
    let listed = host.call("tools/list", json!({})).await;
    let tools = listed["tools"].as_array().unwrap();
    assert_eq!(tools.len(), 2);
    assert_eq!(tools[0]["name"], "echo");
    assert_eq!(tools[0]["readOnly"], true);
    assert_eq!(tools[0]["description"], "Echoes.");
    assert_eq!(tools[0]["parameters"]["properties"]["a"]["type"], "integer");
    assert_eq!(tools[1]["readOnly"], false);

    let p = host.call("presentation", json!({})).await;
    let names: Vec<&str> = p["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["run_code"]);
    let sdk = p["sdk"].as_str().unwrap();
    assert!(
        sdk.contains("echo(") && sdk.contains("declare const tools"),
        "{sdk}"
    );
    assert!(p["tools"][0]["description"].as_str().unwrap().contains(sdk));
    let native = host.call("presentation", json!({ "mode": "native" })).await;
    assert_eq!(
        native["tools"][1],
        json!({ "name": "note", "description": "Short.", "parameters": { "type": "object" } })
    );

    let (status, stderr) = host.finish().await;
    assert_eq!(status, 0, "{stderr}");
}

#[tokio::test]
async fn invoke_in_mode_ptc_offers_only_run_code() {
    let mut host = host_with(echo_and_note()).await;
    // Mode ptc: only run_code exists for the model.
    let refused = host
        .call(
            "tools/invoke",
            json!({ "name": "echo", "arguments": { "a": 1 } }),
        )
        .await;
    assert_eq!(refused["isError"], true);
    assert_eq!(refused["error"]["code"], "UNKNOWN_TOOL");
    assert_eq!(
        refused["content"][0]["text"],
        "Error: unknown tool `echo`: only `run_code` is available"
    );

    let id = host
        .request(
            "tools/invoke",
            json!({ "name": "run_code", "arguments": { "code": "return await tools.echo({ a: 2 })", "description": "Echo" } }),
        )
        .await;
    let call = host.incoming_request("tools/call").await;
    let value = call["params"]["arguments"].clone();
    host.reply(&call, json!({ "value": value })).await;
    let ran = host.response(id).await["result"].clone();
    assert_eq!(ran["isError"], false);
    assert_eq!(ran["subCalls"], 1);
    assert!(ran["runId"].is_string());
    assert_eq!(ran["content"][0]["text"], r#"{"a":2}"#);

    let (status, stderr) = host.finish().await;
    assert_eq!(status, 0, "{stderr}");
}

#[tokio::test]
async fn invoke_in_mode_native_calls_the_tools_themselves() {
    let mut host = host_with(echo_and_note()).await;
    // Mode native: the tools themselves.
    host.call("initialize", json!({ "config": { "mode": "native" } }))
        .await;
    let id = host
        .request(
            "tools/invoke",
            json!({ "name": "echo", "arguments": { "a": 3 }, "id": "call-7" }),
        )
        .await;
    let call = host.incoming_request("tools/call").await;
    assert_eq!(
        call["params"],
        json!({ "id": "call-7", "name": "echo", "arguments": { "a": 3 } })
    );
    host.reply(&call, json!({ "value": { "echoed": 3 } })).await;
    let invoked = host.response(id).await["result"].clone();
    assert_eq!(
        invoked,
        json!({ "isError": false, "content": [{ "type": "text", "text": "{\"echoed\":3}" }], "value": { "echoed": 3 } })
    );
    let invalid = host
        .call(
            "tools/invoke",
            json!({ "name": "echo", "arguments": { "a": "x" } }),
        )
        .await;
    assert_eq!(invalid["error"]["code"], "INVALID_ARGUMENTS");
    assert!(
        invalid["content"][0]["text"]
            .as_str()
            .unwrap()
            .starts_with("Error: invalid arguments for `echo`")
    );

    let (status, stderr) = host.finish().await;
    assert_eq!(status, 0, "{stderr}");
}

#[tokio::test]
async fn remove_says_whether_every_name_was_registered() {
    let mut host = host_with(echo_and_note()).await;
    let removed = host
        .call("tools/remove", json!({ "names": ["echo", "ghost"] }))
        .await;
    assert_eq!(removed, json!({ "removed": false }));
    let removed = host
        .call("tools/remove", json!({ "names": ["note"] }))
        .await;
    assert_eq!(removed, json!({ "removed": true }));
    let listed = host.call("tools/list", json!({})).await;
    assert_eq!(listed, json!({ "tools": [] }));
    let (status, stderr) = host.finish().await;
    assert_eq!(status, 0, "{stderr}");
}

/// Asks `method` with `params`, which must fail as invalid params with a
/// message that mentions `needle`; gives the error.
async fn refused_params(host: &mut Host, method: &str, params: Value, needle: &str) -> Value {
    let error = host.call_error(method, params.clone()).await;
    assert_eq!(error["code"], -32602, "{method} {params}: {error}");
    let message = error["message"].as_str().unwrap();
    assert!(message.contains(needle), "{method} {params}: {message}");
    error
}

#[tokio::test]
async fn lines_that_are_not_requests_get_errors_and_the_server_keeps_serving() {
    let mut host = Host::start();

    host.send_line("this is not json").await;
    let error = host
        .expect("a parse error", |m| m["error"]["code"] == -32700)
        .await;
    assert_eq!(error["id"], Value::Null);

    host.send_line("[1, 2]").await;
    let error = host
        .expect("an invalid request", |m| m["error"]["code"] == -32600)
        .await;
    assert_eq!(error["id"], Value::Null);

    let error = host.call_error("no/such/method", json!({})).await;
    assert_eq!(error["code"], -32601);
    assert!(
        error["message"]
            .as_str()
            .unwrap()
            .contains("no/such/method")
    );

    // Answers to requests ptc never sent are ignored; unknown notifications too.
    host.send(json!({ "jsonrpc": "2.0", "id": 999, "result": { "value": 1 } }))
        .await;
    host.send(json!({ "jsonrpc": "2.0", "id": "x", "error": { "code": 1, "message": "m" } }))
        .await;
    host.notify("$/cancel", json!({ "id": 12345 })).await;
    host.notify("something/else", json!({})).await;

    // Still serving.
    let result = host
        .call(
            "run_code",
            json!({ "code": "return 'still here'", "description": "d" }),
        )
        .await;
    assert_eq!(result["content"][0]["text"], "still here");
    let (status, stderr) = host.finish().await;
    assert_eq!(status, 0, "{stderr}");
    assert_eq!(stderr, "");
}

#[tokio::test]
async fn run_code_params_are_checked_member_by_member() {
    let mut host = Host::start();
    let run = |extra: Value| {
        let mut params = json!({ "code": "1", "description": "d" });
        params
            .as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        params
    };
    for (params, needle) in [
        (json!({ "description": "d" }), "`code` is required"),
        (run(json!({ "code": 1 })), "`code` must be a string"),
        (
            run(json!({ "description": 2 })),
            "`description` must be a string",
        ),
        (run(json!({ "timeoutMs": 0 })), "timeoutMs"),
        (run(json!({ "timeoutMs": 600001 })), "timeoutMs"),
        (
            run(json!({ "timeoutMs": "soon" })),
            "`timeoutMs` must be an integer",
        ),
        (
            run(json!({ "timeout": 5 })),
            "`timeout` is not a known member",
        ),
        (json!([1]), "params must be an object"),
    ] {
        refused_params(&mut host, "run_code", params, needle).await;
    }
    let (status, stderr) = host.finish().await;
    assert_eq!(status, 0, "{stderr}");
}

#[tokio::test]
async fn registration_is_all_or_nothing_and_says_which_tool_and_where() {
    let mut host = Host::start();
    let tools = |tools: Value| json!({ "tools": tools });
    let bad_parameters = tools(json!([
        { "name": "good" },
        { "name": "bad", "parameters": { "type": "string" } }
    ]));
    let error = refused_params(&mut host, "tools/register", bad_parameters, "`bad`").await;
    assert!(
        error["message"]
            .as_str()
            .unwrap()
            .contains("$.tools[1].parameters.type")
    );
    assert_eq!(
        error["data"],
        json!({ "tool": "bad", "path": "$.tools[1].parameters.type" })
    );
    let typo = json!([{ "name": "typo", "parameters": { "type": "object", "properties": { "a": { "type": "strin" } } } }]);
    let error = refused_params(&mut host, "tools/register", tools(typo), "`typo`").await;
    assert!(
        error["message"]
            .as_str()
            .unwrap()
            .contains("$.tools[0].parameters.properties.a")
    );
    for (entries, needle) in [
        (
            json!([{ "name": "r", "readOnly": "yes" }]),
            "$.tools[0].readOnly",
        ),
        (json!([{ "name": "has space" }]), "$.tools[0].name"),
    ] {
        refused_params(&mut host, "tools/register", tools(entries), needle).await;
    }
    refused_params(
        &mut host,
        "tools/register",
        json!({}),
        "`tools` is required",
    )
    .await;
    // Nothing of a refused registration was registered.
    assert_eq!(
        host.call("tools/list", json!({})).await,
        json!({ "tools": [] })
    );
    let (status, stderr) = host.finish().await;
    assert_eq!(status, 0, "{stderr}");
}

#[tokio::test]
async fn other_methods_name_the_member_in_error() {
    let mut host = Host::start();
    for (method, params, needle) in [
        (
            "initialize",
            json!({ "config": { "maxParalel": 2 } }),
            "config.maxParalel",
        ),
        (
            "initialize",
            json!({ "config": { "maxParallelSubCalls": 0 } }),
            "maxParallelSubCalls",
        ),
        ("presentation", json!({ "mode": "everything" }), "`mode`"),
        (
            "tools/remove",
            json!({ "names": [1] }),
            "`names[0]` must be a string",
        ),
        (
            "tools/invoke",
            json!({ "arguments": {} }),
            "`name` is required",
        ),
    ] {
        refused_params(&mut host, method, params, needle).await;
    }
    let (status, stderr) = host.finish().await;
    assert_eq!(status, 0, "{stderr}");
}

#[tokio::test]
async fn end_of_input_answers_runs_in_flight_as_cancelled() {
    let mut host = Host::start();
    host.call("tools/register", json!({ "tools": [wait_tool("wait")] }))
        .await;
    let waiting = host
        .request(
            "run_code",
            json!({ "code": "return await tools.wait({})", "description": "Waits" }),
        )
        .await;
    let call = host.incoming_request("tools/call").await;
    let busy = host
        .request(
            "run_code",
            json!({ "code": "console.log('spinning'); while (true) {}", "description": "Spins" }),
        )
        .await;
    host.expect("the busy run's log", |m| {
        m["method"] == "run/event" && m["params"]["text"] == "spinning"
    })
    .await;

    drop(host.stdin.take());
    let mut responses = Vec::new();
    for id in [waiting, busy] {
        let response = host.response(id).await;
        assert_eq!(response["result"]["kind"], "cancelled", "{response}");
        responses.push(response);
    }
    let cancel = host
        .expect("$/cancel of the pending call", |m| {
            m["method"] == "$/cancel" && m["params"]["id"] == call["id"]
        })
        .await;
    assert!(host.position(&cancel) < host.position(&responses[0]));
    let (status, stderr) = host.wait().await;
    assert_eq!(status, 0, "{stderr}");
}

#[tokio::test]
async fn a_host_that_stops_reading_ends_the_session_quietly() {
    let mut host = Host::start();
    host.call("tools/register", json!({ "tools": [wait_tool("wait")] }))
        .await;
    host.request(
        "run_code",
        json!({ "code": "return await tools.wait({})", "description": "Waits" }),
    )
    .await;
    host.incoming_request("tools/call").await;

    // The host's reading side goes away; ptc's next write fails.
    host.reader.abort();
    let _ = (&mut host.reader).await;
    host.request("tools/list", json!({})).await;
    let (status, stderr) = host.wait().await;
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert_eq!(status, 0, "{stderr}");
}

#[tokio::test]
async fn serve_works_in_process_over_any_streams() {
    let (host_side, ptc_side) = tokio::io::duplex(1 << 16);
    let (ptc_read, ptc_write) = tokio::io::split(ptc_side);
    let server = tokio::spawn(ptc::serve(BufReader::new(ptc_read), ptc_write));
    let (host_read, mut host_write) = tokio::io::split(host_side);
    let mut lines = BufReader::new(host_read).lines();

    let request = json!({
        "jsonrpc": "2.0", "id": "a", "method": "run_code",
        "params": { "code": "console.log('in process'); return 1 + 1", "description": "Adds" }
    });
    host_write
        .write_all(format!("{request}\n").as_bytes())
        .await
        .unwrap();
    let mut messages = Vec::new();
    loop {
        let line = lines.next_line().await.unwrap().expect("a line");
        let message: Value = serde_json::from_str(&line).unwrap();
        let done = message["id"] == "a";
        messages.push(message);
        if done {
            break;
        }
    }
    assert_eq!(messages.len(), 2, "{messages:?}");
    assert_eq!(messages[0]["method"], "run/event");
    assert_eq!(messages[0]["params"]["text"], "in process");
    assert_eq!(messages[1]["result"]["content"][0]["text"], "in process\n2");

    host_write.shutdown().await.unwrap();
    server
        .await
        .unwrap()
        .expect("end of input ends the session cleanly");
    assert_eq!(
        lines.next_line().await.unwrap(),
        None,
        "the output is shut down"
    );
}

/// A line nested past what serde reads still gets its answer under its id,
/// and a too-deep answer to `tools/call` fails that sub-call at once.
#[tokio::test]
async fn lines_too_deep_to_read_are_answered_under_their_id() {
    let mut host = Host::start();
    let deep = format!("{}1{}", "[".repeat(200), "]".repeat(200));
    host.send_line(&format!(
        r#"{{"jsonrpc":"2.0","id":"deep","method":"tools/list","params":{{"x":{deep}}}}}"#
    ))
    .await;
    let error = host
        .expect("an error for the deep request", |m| m["id"] == "deep")
        .await;
    assert_eq!(error["error"]["code"], -32700);
    assert!(
        error["error"]["message"]
            .as_str()
            .unwrap()
            .contains("recursion limit"),
        "{error}"
    );

    host.call(
        "tools/register",
        json!({ "tools": [{ "name": "deep", "readOnly": true }] }),
    )
    .await;
    let run = host
        .request(
            "run_code",
            json!({
                "code": "try { await tools.deep({}) } catch (e: any) { return e.code + ': ' + e.message }",
                "description": "a deep answer",
            }),
        )
        .await;
    let call = host.incoming_request("tools/call").await;
    host.send_line(&format!(
        r#"{{"jsonrpc":"2.0","id":{},"result":{{"value":{deep}}}}}"#,
        call["id"]
    ))
    .await;
    let response = host.response(run).await;
    let text = response["result"]["content"][0]["text"].as_str().unwrap();
    assert!(
        text.starts_with(
            "TOOL_ERROR: the host's answer could not be read: recursion limit exceeded"
        ),
        "{text}"
    );
    host.finish().await;
}

/// A host that initializes again and again, each time leaving a run
/// waiting, does not multiply ptc's threads: engines share one pool.
#[tokio::test]
#[cfg(target_os = "linux")]
async fn reinitialized_sessions_share_their_threads() {
    let mut host = Host::start();
    host.call(
        "tools/register",
        json!({ "tools": [{ "name": "hang", "readOnly": true }] }),
    )
    .await;
    for _ in 0..100 {
        host.call("initialize", json!({})).await;
        host.request(
            "run_code",
            json!({ "code": "return await tools.hang({})", "description": "waits" }),
        )
        .await;
        // The run is in its tool call: its engine has run a step.
        host.incoming_request("tools/call").await;
    }
    let pid = host.child.id().expect("ptc serve is running");
    // Sandbox threads only: tokio's workers follow the core count (or
    // `TOKIO_WORKER_THREADS`), not the sessions. With an engine's pool per
    // initialize there were at least 100 (each engine ran a step); one
    // shared pool keeps to its ceiling, below 100 on every machine.
    let sandbox = std::fs::read_dir(format!("/proc/{pid}/task"))
        .unwrap()
        .filter_map(|task| std::fs::read_to_string(task.ok()?.path().join("comm")).ok())
        .filter(|name| name.trim() == "ptc-sandbox")
        .count();
    let ceiling = crate::engine::sandbox_ceiling();
    assert!(
        (1..=ceiling).contains(&sandbox),
        "{sandbox} sandbox threads for 100 sessions (ceiling {ceiling})"
    );
    host.finish().await;
}

/// Registering and removing many tools takes time linear in their number
/// (100,000 once took 43 s, answering nothing else meanwhile). Liveness
/// only: the host's patience is far above the linear time, far below the
/// quadratic one.
#[tokio::test]
async fn a_hundred_thousand_tools_register_and_go() {
    let mut host = Host::start();
    let tools: Vec<Value> = (0..100_000)
        .map(|i| json!({ "name": format!("t{i}") }))
        .collect();
    let registered = host.call("tools/register", json!({ "tools": tools })).await;
    assert_eq!(registered["count"], 100_000);
    assert_eq!(registered["registered"].as_array().unwrap().len(), 100_000);
    let names: Vec<String> = (0..100_000).map(|i| format!("t{i}")).collect();
    let removed = host.call("tools/remove", json!({ "names": names })).await;
    assert_eq!(removed, json!({ "removed": true }));
    host.finish().await;
}

/// Registration warnings, log events on the wire, and an error whose
/// `data.code` is no contract code.
#[tokio::test]
async fn warnings_logs_and_unknown_error_codes_as_the_protocol_says() {
    let mut host = Host::start();
    let registered = host
        .call(
            "tools/register",
            json!({ "tools": [
                wait_tool("w"),
                { "name": "remote", "parameters": { "type": "object", "properties": {
                    "a": { "$ref": "https://example.com/a.json" } } } }
            ] }),
        )
        .await;
    let warnings = registered["warnings"].as_array().expect("warnings");
    assert!(
        warnings[0]
            .as_str()
            .unwrap()
            .starts_with("tool `remote`: parameters has parts that cannot be checked"),
        "{registered}"
    );

    // An error whose data.code is no contract code fails as TOOL_ERROR.
    let run = host
        .request(
            "run_code",
            json!({ "code": "console.warn('careful'); try { await tools.w({}) } catch (e: any) { return e.code + ': ' + e.message }", "description": "d" }),
        )
        .await;
    let log = host
        .expect("the warn line", |m| {
            m["method"] == "run/event" && m["params"]["event"] == "log"
        })
        .await;
    assert_eq!(log["params"]["level"], "warn");
    assert_eq!(log["params"]["text"], "careful");
    let call = host.incoming_request("tools/call").await;
    host.reply_error(
        &call,
        json!({ "code": -32000, "message": "odd", "data": { "code": "NOPE" } }),
    )
    .await;
    let response = host.response(run).await;
    assert_eq!(
        response["result"]["content"][0]["text"],
        "[warn] careful\nTOOL_ERROR: odd"
    );

    host.finish().await;
}

/// The default refusal, and `tools/invoke` under `ask` and `deny`.
#[tokio::test]
async fn refusals_as_the_protocol_says() {
    let tools = json!([{ "name": "asks", "policy": "ask" }, { "name": "never", "policy": "deny" }]);
    let mut host = host_with(tools).await;
    // A refusal without a reason gets the default one.
    let run = host
        .request(
            "run_code",
            json!({ "code": "try { await tools.asks({}) } catch (e: any) { return e.code + ': ' + e.message }", "description": "d" }),
        )
        .await;
    let approve = host.incoming_request("tools/approve").await;
    host.reply(&approve, json!({ "approved": false })).await;
    let response = host.response(run).await;
    assert_eq!(
        response["result"]["content"][0]["text"],
        "DENIED: the host refused the call to `asks`"
    );

    // tools/invoke goes through the same policy (mode native).
    host.call("initialize", json!({ "config": { "mode": "native" } }))
        .await;
    let invoke = host
        .request("tools/invoke", json!({ "name": "asks", "arguments": {} }))
        .await;
    let approve = host.incoming_request("tools/approve").await;
    host.reply(&approve, json!({ "approved": false, "reason": "not now" }))
        .await;
    let response = host.response(invoke).await;
    assert_eq!(response["result"]["error"]["code"], "DENIED");
    assert_eq!(response["result"]["content"][0]["text"], "Error: not now");
    let denied = host
        .call("tools/invoke", json!({ "name": "never", "arguments": {} }))
        .await;
    assert_eq!(denied["error"]["code"], "DENIED");
    assert_eq!(
        denied["content"][0]["text"],
        "Error: tool `never` is not allowed"
    );

    host.finish().await;
}

/// A call still in flight when its run returns gets a `$/cancel` first.
#[tokio::test]
async fn a_call_the_run_left_behind_is_cancelled_first() {
    let mut host = host_with(json!([wait_tool("w")])).await;
    let run = host
        .request(
            "run_code",
            json!({ "code": "tools.w({}); return 'left'", "description": "d" }),
        )
        .await;
    let response = host.response(run).await;
    let text = response["result"]["content"][0]["text"].as_str().unwrap();
    assert!(
        text.starts_with("left\n[run_code: the program returned with 1 sub-call still running"),
        "{text}"
    );
    let from = host.seen.iter().position(|m| {
        m["method"] == "tools/call"
            && m["params"]["name"] == "w"
            && m["params"]["runId"] == response["result"]["runId"]
    });
    if let Some(at) = from {
        let call_id = host.seen[at]["id"].clone();
        let cancel = host.seen[at..]
            .iter()
            .find(|m| m["method"] == "$/cancel" && m["params"]["id"] == call_id)
            .cloned()
            .expect("a $/cancel for the call the run left behind");
        assert!(host.position(&cancel) < host.position(&response));
    }
    host.finish().await;
}

/// Every `initialize` member takes effect.
#[tokio::test]
async fn initialize_members_take_effect() {
    let mut host = Host::start();
    host.call(
        "initialize",
        json!({ "config": {
            "mode": "both",
            "defaultTimeoutMs": 300,
            "maxTimeoutMs": 400,
            "outputCapBytes": 100,
            "memoryLimitBytes": 2 << 20,
            "maxParallelSubCalls": 1
        } }),
    )
    .await;
    host.call("tools/register", json!({ "tools": [wait_tool("w")] }))
        .await;
    // mode both: the tools and run_code.
    let presented = host.call("presentation", json!({})).await;
    let names: Vec<&str> = presented["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["w", "run_code"]);
    // defaultTimeoutMs: a busy program ends at 300 ms.
    let busy = host
        .call(
            "run_code",
            json!({ "code": "for (;;) {}", "description": "d" }),
        )
        .await;
    // The failure text is cut to the 100-byte output cap.
    let text = busy["content"][0]["text"].as_str().unwrap();
    assert!(
        text.starts_with("Error: code run failed (timeo")
            && text.ends_with("Script when the limit struck."),
        "{text}"
    );
    // maxTimeoutMs: 401 is out of range.
    let error = host
        .call_error(
            "run_code",
            json!({ "code": "1", "description": "d", "timeoutMs": 401 }),
        )
        .await;
    assert!(
        error["message"].as_str().unwrap().contains("from 1 to 400"),
        "{error}"
    );
    // outputCapBytes: the text is cut to 100 bytes.
    let long = host
        .call(
            "run_code",
            json!({ "code": "return 'y'.repeat(1000)", "description": "d" }),
        )
        .await;
    assert!(
        long["content"][0]["text"].as_str().unwrap().len() <= 100,
        "{long}"
    );
    // memoryLimitBytes: 2 MiB.
    let bomb = host
        .call("run_code", json!({ "code": "const a = []; for (;;) a.push('z'.repeat(1000))", "description": "d" }))
        .await;
    let text = bomb["content"][0]["text"].as_str().unwrap();
    assert!(
        text.starts_with("Error: code run failed (memor") && text.ends_with("limit struck."),
        "{text}"
    );
    host.finish().await;
}

/// `maxParallelSubCalls`: 1, so the second read-only call waits for the
/// first.
#[tokio::test]
async fn initialize_max_parallel_sub_calls_takes_effect() {
    let mut host = Host::start();
    let config = json!({ "config": { "maxParallelSubCalls": 1 } });
    host.call("initialize", config).await;
    host.call("tools/register", json!({ "tools": [wait_tool("w")] }))
        .await;
    let run = host
        .request("run_code", json!({ "code": "await Promise.all([tools.w({ n: 1 }), tools.w({ n: 2 })]); return 'both'", "description": "d" }))
        .await;
    let first = host.incoming_request("tools/call").await;
    assert_eq!(first["params"]["arguments"]["n"], 1);
    // Both were submitted together; had the second been admitted too, its
    // request would be queued before the answer to a later request.
    host.call("tools/list", json!({})).await;
    let calls = |host: &Host| {
        host.seen
            .iter()
            .filter(|m| m["method"] == "tools/call")
            .count()
    };
    assert_eq!(calls(&host), 1, "the second call waits for the first");
    host.reply(&first, json!({ "value": 1 })).await;
    let second = host.incoming_request("tools/call").await;
    assert_eq!(second["params"]["arguments"]["n"], 2);
    host.reply(&second, json!({ "value": 2 })).await;
    let response = host.response(run).await;
    assert_eq!(response["result"]["content"][0]["text"], "both");
    host.finish().await;
}

/// End of input while a `tools/invoke` waits on the host: it is answered
/// (`ABORTED`), its call cancelled first, and ptc exits 0.
#[tokio::test]
async fn end_of_input_answers_an_invocation_in_flight() {
    let mut host = Host::start();
    host.call("initialize", json!({ "config": { "mode": "native" } }))
        .await;
    host.call("tools/register", json!({ "tools": [wait_tool("w")] }))
        .await;
    let invoke = host
        .request("tools/invoke", json!({ "name": "w", "arguments": {} }))
        .await;
    let call = host.incoming_request("tools/call").await;
    drop(host.stdin.take());
    let response = host.response(invoke).await;
    assert_eq!(response["result"]["isError"], true);
    assert_eq!(response["result"]["error"]["code"], "ABORTED");
    let cancel = host
        .expect("the $/cancel of the call", |m| {
            m["method"] == "$/cancel" && m["params"]["id"] == call["id"]
        })
        .await;
    assert!(host.position(&cancel) < host.position(&response));
    let (code, _) = host.wait().await;
    assert_eq!(code, 0);
}

/// Every kind of invalid request gets -32600, under its id when it has a
/// usable one; the session goes on after each.
#[tokio::test]
async fn every_invalid_request_gets_its_error() {
    let mut host = Host::start();
    for (line, id) in [
        (
            r#"{"jsonrpc":"1.0","id":"v","method":"tools/list"}"#,
            json!("v"),
        ),
        (r#"{"jsonrpc":"2.0","id":"m","method":5}"#, json!("m")),
        (
            r#"{"jsonrpc":"2.0","id":{"a":1},"method":"tools/list"}"#,
            Value::Null,
        ),
        (
            r#"{"jsonrpc":"2.0","id":[1],"method":"tools/list"}"#,
            Value::Null,
        ),
        (r#"{"jsonrpc":"2.0","id":"n"}"#, json!("n")),
        (
            r#"[{"jsonrpc":"2.0","id":1,"method":"tools/list"}]"#,
            Value::Null,
        ),
        (r#""just a string""#, Value::Null),
    ] {
        let seen = host.seen.len();
        host.send_line(line).await;
        let error = host
            .expect(&format!("the error for {line}"), |m| {
                m.get("error").is_some()
            })
            .await;
        assert_eq!(error["error"]["code"], -32600, "{line}: {error}");
        assert_eq!(error["id"], id, "{line}");
        // A barrier: `tools/list` is answered in order, after everything
        // the bad line caused, so a second answer to it would be here by
        // now; between the two, only the one error.
        assert!(host.call("tools/list", json!({})).await["tools"].is_array());
        assert_eq!(
            host.seen.len(),
            seen + 2,
            "one answer for {line}: {:#?}",
            &host.seen[seen..]
        );
    }
    host.finish().await;
}

/// `INVALID_OUTPUT` through the protocol, a replaced tool's new schema in
/// the SDK, and the final `truncated` log event on the wire.
#[tokio::test]
async fn output_checks_replacement_and_truncation_on_the_wire() {
    let mut host = Host::start();
    host.call("initialize", json!({ "config": { "outputCapBytes": 200 } }))
        .await;
    host.call(
        "tools/register",
        json!({ "tools": [{ "name": "count", "readOnly": true, "output": { "type": "integer" } }] }),
    )
    .await;
    let run = host
        .request(
            "run_code",
            json!({ "code": "try { await tools.count({}) } catch (e: any) { return e.code }", "description": "d" }),
        )
        .await;
    let call = host.incoming_request("tools/call").await;
    host.reply(&call, json!({ "value": "three" })).await;
    let response = host.response(run).await;
    assert_eq!(response["result"]["content"][0]["text"], "INVALID_OUTPUT");

    // Replacing the tool in place changes what the model sees.
    let before = host.call("presentation", json!({})).await["sdk"].clone();
    assert!(
        before.as_str().unwrap().contains("Promise<number>;"),
        "{before}"
    );
    host.call(
        "tools/register",
        json!({ "tools": [{ "name": "count", "readOnly": true, "output": { "type": "string" } }] }),
    )
    .await;
    let after = host.call("presentation", json!({})).await["sdk"].clone();
    assert!(
        after.as_str().unwrap().contains("Promise<string>;"),
        "{after}"
    );

    // Past the capture's head, one final log event says how many lines
    // were not streamed.
    let run = host
        .request(
            "run_code",
            json!({ "code": "for (let i = 0; i < 100; i++) console.log('line ' + i)", "description": "d" }),
        )
        .await;
    let response = host.response(run).await;
    let truncated = host.seen.iter().find(|m| {
        m["method"] == "run/event"
            && m["params"]["runId"] == response["result"]["runId"]
            && m["params"].get("truncated").is_some()
    });
    let streamed = host
        .seen
        .iter()
        .filter(|m| {
            m["method"] == "run/event"
                && m["params"]["runId"] == response["result"]["runId"]
                && m["params"].get("text").is_some()
        })
        .count() as u64;
    let truncated = truncated.expect("a truncated event")["params"]["truncated"]
        .as_u64()
        .unwrap();
    assert_eq!(streamed + truncated, 100);
    assert!(truncated > 0);
    host.finish().await;
}

/// Templates registered by the host title its events and its approvals
/// (contracts §2, titles); a broken one is refused at its member.
#[tokio::test]
async fn registered_title_templates_reach_events_and_approvals() {
    let mut host = Host::start();
    let error = host
        .call_error(
            "tools/register",
            json!({ "tools": [{ "name": "bad", "callTitle": "Read {path" }] }),
        )
        .await;
    assert_eq!(error["data"]["path"], "$.tools[0].callTitle", "{error}");
    host.call(
        "tools/register",
        json!({ "tools": [{
            "name": "write", "policy": "ask",
            "callTitle": "Write {path}",
            "resultTitle": "Write {path} ({result.bytes} bytes)"
        }] }),
    )
    .await;
    let run = host
        .request(
            "run_code",
            json!({
                "code": "return await tools.write({ path: 'notes.md', text: '\\u001b[2J' })",
                "description": "Writes",
                "runId": "t1"
            }),
        )
        .await;
    let approve = host.incoming_request("tools/approve").await;
    assert_eq!(approve["params"]["title"], "Write notes.md");
    host.reply(&approve, json!({ "approved": true })).await;
    let call = host.incoming_request("tools/call").await;
    assert_eq!(call["params"].get("title"), None, "only approvals carry it");
    host.reply(&call, json!({ "value": { "bytes": 12 } })).await;
    let response = host.response(run).await;
    assert_eq!(response["result"]["isError"], false, "{response}");
    let titles: Vec<(&str, &str)> = host
        .seen
        .iter()
        .filter(|m| m["method"] == "run/event" && m["params"]["title"].is_string())
        .map(|m| {
            let p = &m["params"];
            (p["event"].as_str().unwrap(), p["title"].as_str().unwrap())
        })
        .collect();
    assert_eq!(
        titles,
        [
            ("started", "Write notes.md"),
            ("settled", "Write notes.md (12 bytes)")
        ]
    );
    let (status, stderr) = host.finish().await;
    assert_eq!(status, 0, "{stderr}");
}

#[tokio::test]
async fn a_mode_that_is_not_one_of_the_three_is_invalid_params() {
    let mut host = Host::start();
    let error = host
        .call_error("presentation", json!({ "mode": "all" }))
        .await;
    assert_eq!(error["code"], -32602);
    assert_eq!(
        error["message"],
        "invalid params for `presentation`: `mode` must be \"ptc\", \"native\" or \"both\", got \"all\""
    );
    let error = host
        .call_error("initialize", json!({ "config": { "mode": 3 } }))
        .await;
    assert!(
        error["message"]
            .as_str()
            .unwrap()
            .contains("must be \"ptc\", \"native\" or \"both\", got 3"),
        "{error}"
    );
}

/// `initialize { config: { language: "python" } }`: the presentation speaks
/// Python and `run_code` runs Python, its sub-calls going to the host as
/// TypeScript's do.
#[cfg(feature = "python")]
#[tokio::test]
async fn a_python_session_runs_python_against_host_tools() {
    let mut host = Host::start();
    host.call("initialize", json!({ "config": { "language": "python" } }))
        .await;
    let tool = json!({ "name": "lookup", "description": "Looks a key up.", "readOnly": true,
        "parameters": { "type": "object", "properties": { "key": { "type": "string" } }, "required": ["key"] } });
    host.call("tools/register", json!({ "tools": [tool] }))
        .await;
    let presentation = host.call("presentation", json!({})).await;
    let description = presentation["tools"][0]["description"].as_str().unwrap();
    assert!(
        description.starts_with("Run a Python program"),
        "{description}"
    );
    assert!(
        presentation["sdk"]
            .as_str()
            .unwrap()
            .contains("    async def lookup(self, *, key: str) -> Any:"),
        "{presentation}"
    );
    let code = "import asyncio\nprint('start')\na, b = await asyncio.gather(tools.lookup(key='x'), tools.lookup(key='y'))\na + b";
    let run = host
        .request(
            "run_code",
            json!({ "code": code, "description": "Looks two keys up", "runId": "p1" }),
        )
        .await;
    // Both calls are in flight at once (read-only, parallel).
    let first = host.incoming_request("tools/call").await;
    let second = host.incoming_request("tools/call").await;
    for call in [&second, &first] {
        assert!(
            call["params"]["id"]
                .as_str()
                .unwrap()
                .starts_with("p1:ptc:")
        );
        let key = call["params"]["arguments"]["key"].as_str().unwrap();
        host.reply(call, json!({ "value": key.to_uppercase() }))
            .await;
    }
    let result = host.response(run).await["result"].clone();
    assert_eq!(result["isError"], false, "{result}");
    assert_eq!(result["subCalls"], 2);
    assert_eq!(result["content"][0]["text"], "start\nXY");
    let (status, stderr) = host.finish().await;
    assert_eq!(status, 0, "{stderr}");
}

/// A language other than the two is invalid params, naming them.
#[tokio::test]
async fn a_language_that_is_not_one_of_the_two_is_invalid_params() {
    let mut host = Host::start();
    let error = host
        .call_error("initialize", json!({ "config": { "language": "ruby" } }))
        .await;
    assert_eq!(error["code"], -32602);
    assert_eq!(
        error["message"],
        "invalid params for `initialize`: `config.language` must be \"typescript\" or \"python\", got \"ruby\""
    );
}

impl Host {
    /// The peak resident memory of `ptc serve` so far, in MiB.
    fn peak_mib(&self) -> f64 {
        let pid = self.child.id().expect("ptc serve runs");
        let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
        let kib: f64 = status
            .lines()
            .find_map(|l| l.strip_prefix("VmHWM:"))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
            .unwrap();
        kib / 1024.0
    }
}

/// A line is read through the gate (contracts §6, "What enters the
/// host"): 1 GiB without a newline is passed over as it streams by, never
/// held (issue 39: 1.5 GB sent held 1.48 GB), and the session goes on.
#[tokio::test]
async fn a_line_past_the_bound_is_passed_over_unheld() {
    let mut host = Host::start();
    let chunk = vec![b'x'; 1 << 20];
    {
        let stdin = host.stdin.as_mut().unwrap();
        for _ in 0..1024 {
            stdin.write_all(&chunk).await.unwrap();
        }
        stdin.write_all(b"\n").await.unwrap();
    }
    let error = host.expect("the error", |m| m["id"].is_null()).await;
    assert_eq!(
        error["error"]["message"],
        "invalid request: the message is 1073741824 bytes long, more than the 16777216 bytes ptc reads",
        "{error}"
    );
    let listed = host.call("tools/list", json!({})).await;
    assert!(listed["tools"].is_array(), "{listed}");
    let peak = host.peak_mib();
    assert!(peak < 128.0, "ptc serve peaked at {peak:.0} MiB");
    host.finish().await;
}

/// A host's answer costing more than an answer may once parsed fails its
/// call at once, unparsed (issue 39: 16 MB of zeros took 1.16 GB).
#[tokio::test]
async fn a_costly_answer_of_the_host_fails_its_call_unparsed() {
    let mut host = Host::start();
    host.call(
        "tools/register",
        json!({ "tools": [{ "name": "zeros", "readOnly": true }] }),
    )
    .await;
    let run = host
        .request(
            "run_code",
            json!({
                "code": "try { await tools.zeros({}) } catch (e: any) { return e.code + ': ' + e.message }",
                "description": "a costly answer",
            }),
        )
        .await;
    let call = host.incoming_request("tools/call").await;
    let zeros = format!("[{}0]", "0,".repeat(7_999_999));
    host.send_line(&format!(
        r#"{{"jsonrpc":"2.0","id":{},"result":{{"value":{zeros}}}}}"#,
        call["id"]
    ))
    .await;
    let response = host.response(run).await;
    let text = response["result"]["content"][0]["text"].as_str().unwrap();
    assert!(
        text.starts_with("TOOL_ERROR: the host's answer could not be read: the message holds so many values that parsing it would take more than 64 MiB of memory (the limit)"),
        "{text}"
    );
    let peak = host.peak_mib();
    assert!(peak < 250.0, "ptc serve peaked at {peak:.0} MiB");
    host.finish().await;
}

/// Events carry a sub-call's arguments and value whole up to 16 KiB of
/// JSON, and past it their start and length (contracts §6, Events), so a
/// program cannot make an event a host cannot read.
#[tokio::test]
async fn events_carry_large_values_as_a_preview() {
    let mut host = Host::start();
    host.call(
        "tools/register",
        json!({ "tools": [{ "name": "echo", "readOnly": true }] }),
    )
    .await;
    let run = host
        .request(
            "run_code",
            json!({
                "code": "const big = 'é'.repeat(20000); await tools.echo({ big }); await tools.echo({ small: 1 }); return 'done'",
                "description": "large and small",
            }),
        )
        .await;
    for _ in 0..2 {
        let call = host.incoming_request("tools/call").await;
        let arguments = call["params"]["arguments"].clone();
        host.reply(&call, json!({ "value": arguments })).await;
    }
    let response = host.response(run).await;
    assert_eq!(response["result"]["content"][0]["text"], "done");
    let events: Vec<Value> = host
        .seen
        .iter()
        .filter(|m| m["method"] == "run/event")
        .map(|m| m["params"].clone())
        .collect();
    let started: Vec<&Value> = events.iter().filter(|e| e["event"] == "started").collect();
    let settled: Vec<&Value> = events.iter().filter(|e| e["event"] == "settled").collect();
    // `{"big":"éé…"}`: 40,010 bytes of JSON; the preview is its first KiB
    // (each `é` is two bytes).
    let expected_start = format!("{{\"big\":\"{}", "é".repeat(508));
    for (event, whole, preview, bytes) in [
        (
            started[0],
            "arguments",
            "argumentsPreview",
            "argumentsBytes",
        ),
        (settled[0], "value", "valuePreview", "valueBytes"),
    ] {
        assert!(event.get(whole).is_none(), "{event:.300}");
        assert_eq!(event[bytes], 40_010, "{event:.300}");
        assert_eq!(event[preview], expected_start.as_str());
    }
    assert_eq!(started[1]["arguments"], json!({ "small": 1 }));
    assert_eq!(settled[1]["value"], json!({ "small": 1 }));
    assert!(started[1].get("argumentsPreview").is_none());
    host.finish().await;
}

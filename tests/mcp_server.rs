//! `ptc mcp` and the MCP front end: driven by the official MCP Python SDK
//! (`tests/mcp_client/drive.py`, a client this project did not write) over
//! stdio and streamable HTTP, and by rmcp's own client over an in-memory
//! duplex for what needs the server's insides (list_changed, cancellation
//! reaching a tool).

use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use crate::common::Spawned;
use ptc::{
    Engine, ErrorCode, Limits, McpServer, Mode, Registry, Tool, ToolContext, ToolDefinition,
    ToolError,
};
use rmcp::model::{CallToolRequest, CallToolRequestParams, ClientRequest};
use rmcp::service::{NotificationContext, PeerRequestOptions};
use rmcp::{ClientHandler, RoleClient, ServiceExt};
use serde_json::{Value, json};
use tokio::sync::mpsc;

/// Generous: only a hang should ever reach it.
const LIVENESS: Duration = Duration::from_secs(60);

fn driver() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/mcp_client/drive.py")
}

/// Runs the Python driver with `plan` and returns the JSON it printed.
pub(crate) fn drive(plan: Value) -> Value {
    let output = crate::common::output(Command::new("python3").arg(driver()).arg(plan.to_string()));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.code() != Some(3),
        "{stderr}\nrun `pip install -r tests/requirements.txt`"
    );
    assert!(output.status.success(), "the driver failed:\n{stderr}");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let last = stdout.lines().last().unwrap_or_default();
    serde_json::from_str(last).unwrap_or_else(|e| panic!("{e}: {stdout}\n{stderr}"))
}

/// A workspace with a file, and a manifest with an `ask` tool (its command
/// echoes the arguments) and a tool with an object output schema.
struct Fixture {
    dir: tempfile::TempDir,
}

impl Fixture {
    fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("notes.txt"), "hello from notes").unwrap();
        let manifest = json!([
            { "name": "risky", "policy": "ask",
              "parameters": { "type": "object", "properties": { "target": { "type": "string" } } },
              "command": ["sh", "-c", "cat"] },
            { "name": "hang", "readOnly": true,
              "command": ["sh", "-c", format!("echo $$ > '{}/hang.pid'; exec sleep 600", dir.path().display())] },
            { "name": "stat", "readOnly": true,
              "output": { "type": "object", "properties": { "size": { "type": "integer" } }, "required": ["size"] },
              "command": ["sh", "-c", "echo '{\"size\": 5}'"] }
        ]);
        std::fs::write(dir.path().join("manifest.json"), manifest.to_string()).unwrap();
        Self { dir }
    }

    fn path(&self) -> &str {
        self.dir.path().to_str().unwrap()
    }

    /// `ptc mcp` over stdio with the workspace and manifest tools.
    fn stdio(&self, extra: &[&str]) -> Value {
        let manifest = format!("{}/manifest.json", self.path());
        let mut args = vec!["mcp", "--workspace", self.path(), "--tools", &manifest];
        args.extend_from_slice(extra);
        json!({ "command": env!("CARGO_BIN_EXE_ptc"), "args": args, "cwd": self.path() })
    }
}

fn with(mut plan: Value, server: (&str, Value)) -> Value {
    plan[server.0] = server.1;
    plan
}

fn run_code(code: &str) -> Value {
    json!({ "code": code, "description": "test" })
}

/// The progress notifications of settled sub-calls, without the heartbeats
/// a slow machine may add (`running (…)`, after 4 s without progress).
fn settled_progress(answer: &Value) -> Vec<&Value> {
    answer["progress"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| {
            !p["message"]
                .as_str()
                .unwrap_or_default()
                .starts_with("running (")
        })
        .collect()
}

pub(crate) fn texts(result: &Value) -> Vec<&str> {
    result["content"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|block| block["text"].as_str())
        .collect()
}

#[test]
fn python_client_sees_only_run_code_in_ptc_mode() {
    let fixture = Fixture::new();
    let listed = drive(with(
        json!({ "scenario": "list" }),
        ("stdio", fixture.stdio(&[])),
    ));
    assert_eq!(listed["protocolVersion"], "2025-11-25");
    assert_eq!(listed["listChanged"], true);
    let tools = listed["tools"].as_array().unwrap();
    assert_eq!(tools.len(), 1, "{tools:?}");
    let run_code = &tools[0];
    assert_eq!(run_code["name"], "run_code");
    let description = run_code["description"].as_str().unwrap();
    assert!(
        description.contains("declare const tools"),
        "the SDK is in the description"
    );
    assert!(description.contains("read_file") && description.contains("risky"));
    assert_eq!(run_code["inputSchema"]["required"], json!(["code"]));
    assert_eq!(
        run_code["outputSchema"]["required"],
        json!(["runId", "subCalls", "elapsedMs", "cpuMs"])
    );
}

/// A thousand tools: the client sees `run_code` within the default budget,
/// as namespaces, and a program finds and describes a tool.
#[test]
fn python_client_sees_a_large_tool_set_within_the_budget() {
    let tools1000 = crate::common::fixture("workloads/tools1000.json");
    let server = json!({
        "command": env!("CARGO_BIN_EXE_ptc"),
        "args": ["mcp", "--tools", tools1000.to_str().unwrap(), "--description-budget", "16KiB"],
    });
    let listed = drive(with(
        json!({ "scenario": "list" }),
        ("stdio", server.clone()),
    ));
    let description = listed["tools"][0]["description"].as_str().unwrap();
    assert!(description.len() <= 16 << 10, "{} bytes", description.len());
    assert!(description.contains("There are 1000 tools, too many to list here"));
    let code = "const found = tools.$search('github create issue', { limit: 1 }); \
                return tools.$describe(found.map((t) => t.name));";
    let result = drive(with(
        json!({ "scenario": "call", "name": "run_code", "arguments": run_code(code) }),
        ("stdio", server),
    ));
    let result = &result["result"];
    let text = texts(result).join("\n");
    assert!(text.contains(r#""github.create-issue"(args: {"#), "{text}");
}

#[test]
fn python_client_sees_the_tools_in_native_and_both_modes() {
    let fixture = Fixture::new();
    let names = |listed: &Value| -> Vec<String> {
        listed["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["name"].as_str().unwrap().to_owned())
            .collect()
    };
    let native = drive(with(
        json!({ "scenario": "list" }),
        ("stdio", fixture.stdio(&["--mode", "native"])),
    ));
    assert_eq!(
        names(&native),
        [
            "read_file",
            "write_file",
            "list_dir",
            "search_files",
            "risky",
            "hang",
            "stat"
        ]
    );
    let tool = |name: &str| {
        native["tools"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["name"] == name)
            .unwrap()
            .clone()
    };
    assert_eq!(tool("read_file")["readOnlyHint"], true);
    assert_eq!(tool("write_file")["readOnlyHint"], false);
    assert_eq!(tool("stat")["outputSchema"]["required"], json!(["size"]));
    assert_eq!(
        tool("read_file")["outputSchema"],
        Value::Null,
        "a string output is not an MCP outputSchema"
    );

    let both = drive(with(
        json!({ "scenario": "list" }),
        ("stdio", fixture.stdio(&["--mode", "both"])),
    ));
    assert_eq!(
        names(&both),
        [
            "read_file",
            "write_file",
            "list_dir",
            "search_files",
            "risky",
            "hang",
            "stat",
            "run_code"
        ]
    );
}

/// `structuredContent` has exactly what the advertised `outputSchema` allows.
fn assert_matches_run_code_schema(structured: &Value) {
    let members = structured.as_object().unwrap();
    for required in ["runId", "subCalls", "elapsedMs", "cpuMs"] {
        assert!(members.contains_key(required), "{required} in {structured}");
    }
    for key in members.keys() {
        assert!(
            ["runId", "kind", "subCalls", "elapsedMs", "cpuMs"].contains(&key.as_str()),
            "{key}"
        );
    }
    assert!(
        structured["runId"].is_string()
            && structured["subCalls"].is_u64()
            && structured["elapsedMs"].is_number()
            && structured["cpuMs"].as_f64().is_some_and(|ms| ms >= 0.0)
    );
}

#[test]
fn python_client_runs_a_program_and_gets_text_and_structured_content() {
    let fixture = Fixture::new();
    let code = "const text = await tools.read_file({ path: 'notes.txt' })\nconsole.log('read', text.length)\nreturn text.toUpperCase()";
    let answer = drive(with(
        json!({ "scenario": "call", "name": "run_code", "arguments": run_code(code) }),
        ("stdio", fixture.stdio(&[])),
    ));
    let result = &answer["result"];
    assert_eq!(result["isError"], false);
    assert_eq!(texts(result), ["read 16\nHELLO FROM NOTES"]);
    let structured = &result["structuredContent"];
    assert_matches_run_code_schema(structured);
    assert_eq!(structured["subCalls"], 1);
    assert_eq!(structured.get("kind"), None);

    let failed = drive(with(
        json!({ "scenario": "call", "name": "run_code", "arguments": run_code("throw new Error('boom')") }),
        ("stdio", fixture.stdio(&[])),
    ));
    assert_eq!(failed["result"]["isError"], true);
    assert!(
        texts(&failed["result"])[0].starts_with("Error: code run failed (runtime): Error: boom")
    );
    assert_matches_run_code_schema(&failed["result"]["structuredContent"]);
    assert_eq!(failed["result"]["structuredContent"]["kind"], "runtime");
}

#[test]
fn python_client_gets_progress_notifications_of_settled_sub_calls() {
    let fixture = Fixture::new();
    let code = "await tools.list_dir({ path: '.' })\nawait tools.read_file({ path: 'notes.txt' })\ntry { await tools.read_file({}) } catch {}\nreturn 'done'";
    let answer = drive(with(
        json!({ "scenario": "call", "name": "run_code", "arguments": run_code(code) }),
        ("stdio", fixture.stdio(&[])),
    ));
    assert_eq!(texts(&answer["result"]), ["done"]);
    let progress: Vec<(f64, &str)> = settled_progress(&answer)
        .into_iter()
        .map(|p| {
            (
                p["progress"].as_f64().unwrap(),
                p["message"].as_str().unwrap(),
            )
        })
        .collect();
    // Coalesced: a sub-call that settles while the previous notification
    // is being sent (or before the forwarder first looks, on a loaded
    // machine) may be replaced by the next one, never reordered. A
    // heartbeat (a machine slow enough for one) adds one to what follows.
    let beats_before = |value: f64| {
        answer["progress"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|p| p["message"].as_str().unwrap().starts_with("running ("))
            .filter(|p| p["progress"].as_f64().unwrap() < value)
            .count() as f64
    };
    let all = [
        (1.0, "List . (2 entries)"),
        (2.0, "Read notes.txt (1 line)"),
        (3.0, "read_file(): failed (INVALID_ARGUMENTS)"),
    ];
    for (value, message) in &progress {
        let settled = value - beats_before(*value);
        assert!(all.contains(&(settled, *message)), "{progress:?}");
    }
    assert_eq!(progress.last().unwrap().1, all[2].1, "{progress:?}");
    assert!(progress.windows(2).all(|w| w[0].0 < w[1].0), "{progress:?}");
}

#[test]
fn python_client_cancels_a_looping_run_and_the_server_goes_on() {
    let fixture = Fixture::new();
    let answer = drive(with(
        json!({
            "scenario": "cancel",
            "code": "await tools.list_dir({ path: '.' })\nfor (;;) {}",
            "after": "return 'still serving'"
        }),
        (
            "stdio",
            fixture.stdio(&["--timeout-ms", "600000", "--client-timeout-ms", "3600000"]),
        ),
    ));
    // `abandoned` is the client's own flag: it says only that the call
    // was in flight when the client cancelled it (it never finished). That
    // the server sends no response and interrupts the loop is checked on
    // the wire, where the thread can be watched:
    // `rules_uncovered::a_cancelled_mcp_request_gets_no_response_and_its_loop_stops`.
    assert_eq!(answer["abandoned"], true, "{answer}");
    assert!(answer.get("finished").is_none(), "{answer}");
    assert_eq!(texts(&answer["after"]), ["still serving"]);
    assert!(answer["afterSeconds"].as_f64().unwrap() < LIVENESS.as_secs_f64());
}

#[test]
fn python_client_cancelling_a_run_kills_the_tool_command_it_waits_on() {
    let fixture = Fixture::new();
    let answer = drive(with(
        json!({
            "scenario": "cancel",
            "code": "return await tools.hang({})",
            "pidFile": format!("{}/hang.pid", fixture.path()),
            "after": "return 'next'"
        }),
        (
            "stdio",
            fixture.stdio(&["--timeout-ms", "600000", "--client-timeout-ms", "3600000"]),
        ),
    ));
    assert_eq!(answer["abandoned"], true, "{answer}");
    assert_eq!(
        answer["childGone"], true,
        "the cancelled run's sub-call was cancelled: {answer}"
    );
    assert_eq!(texts(&answer["after"]), ["next"]);
}

fn elicit(fixture: &Fixture, answer: Option<&str>) -> Value {
    let mut plan = json!({
        "scenario": "elicit",
        "name": "run_code",
        "arguments": run_code("return await tools.risky({ target: 'prod' })"),
    });
    if let Some(answer) = answer {
        plan["answer"] = json!(answer);
    }
    drive(with(plan, ("stdio", fixture.stdio(&[]))))
}

#[test]
fn python_client_approves_an_ask_tool_through_elicitation() {
    let fixture = Fixture::new();
    let answer = elicit(&fixture, Some("accept"));
    assert_eq!(answer["result"]["isError"], false, "{answer}");
    assert_eq!(texts(&answer["result"]), [r#"{"target":"prod"}"#]);
    let asked = answer["elicitations"].as_array().unwrap();
    assert_eq!(asked.len(), 1);
    let message = asked[0]["message"].as_str().unwrap();
    assert_eq!(
        message,
        "The program asks to call the tool `risky` (needs approval).\nIts title (the model's, escaped): risky(target: \"prod\")\nIts arguments, in full (3 lines, each marked │):\n│ {\n│   \"target\": \"prod\"\n│ }\nAllow this call?"
    );
    assert_eq!(
        asked[0]["schema"],
        json!({ "type": "object", "properties": {} }),
        "nothing to fill in or tick: Accept allows"
    );
}

#[test]
fn python_client_declining_or_cancelling_denies_the_call() {
    let fixture = Fixture::new();
    for (answer, reason) in [
        ("decline", "the user declined the call to `risky`"),
        ("cancel", "the user cancelled the approval of `risky`"),
    ] {
        let answered = elicit(&fixture, Some(answer));
        assert_eq!(answered["result"]["isError"], true);
        let text = texts(&answered["result"])[0];
        assert!(
            text.contains(reason) && text.contains("code DENIED"),
            "{text}"
        );
        assert_eq!(answered["elicitations"].as_array().unwrap().len(), 1);
    }
}

#[test]
fn a_client_without_elicitation_gets_a_denial_saying_so() {
    let fixture = Fixture::new();
    let answer = elicit(&fixture, None);
    let text = texts(&answer["result"])[0];
    assert!(
        text.contains("not available from this MCP client") && text.contains("code DENIED"),
        "{text}"
    );
    assert_eq!(answer.get("elicitations"), None);
}

#[test]
fn python_client_calls_tools_natively() {
    let fixture = Fixture::new();
    let native = || ("stdio", fixture.stdio(&["--mode", "native"]));
    let call = |name: &str, arguments: Value| {
        drive(with(
            json!({ "scenario": "call", "name": name, "arguments": arguments }),
            native(),
        ))
    };

    let read = call("read_file", json!({ "path": "notes.txt" }));
    assert_eq!(read["result"]["isError"], false);
    assert_eq!(
        texts(&read["result"]),
        ["hello from notes"],
        "strings verbatim"
    );
    assert_eq!(read["result"]["structuredContent"], Value::Null);

    let stat = call("stat", json!({}));
    assert_eq!(
        texts(&stat["result"]),
        [r#"{"size":5}"#],
        "other values as compact JSON"
    );
    assert_eq!(stat["result"]["structuredContent"], json!({ "size": 5 }));

    let invalid = call("read_file", json!({ "path": 5 }));
    assert_eq!(invalid["result"]["isError"], true);
    assert!(texts(&invalid["result"])[0].starts_with("Error: invalid arguments for `read_file`"));

    let unknown = call("run_code", run_code("return 1"));
    assert_eq!(unknown["mcpError"]["code"], -32602, "{unknown}");
    assert!(
        unknown["mcpError"]["message"]
            .as_str()
            .unwrap()
            .contains("unknown tool `run_code`")
    );
}

/// `ptc mcp --http 127.0.0.1:0` with extra flags, killed when dropped.
struct HttpServer {
    child: Spawned,
    url: String,
}

impl HttpServer {
    fn start(fixture: &Fixture, extra: &[&str], env: &[(&str, &str)]) -> Self {
        let mut command = Command::new(env!("CARGO_BIN_EXE_ptc"));
        command
            .args([
                "mcp",
                "--workspace",
                fixture.path(),
                "--http",
                "127.0.0.1:0",
            ])
            .args(extra)
            .envs(env.iter().copied())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        let mut child = crate::common::spawn(&mut command);
        let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
        let url = loop {
            let line = lines.next().expect("ptc announces its endpoint").unwrap();
            if let Some(url) = line.strip_prefix("ptc: MCP endpoint ") {
                break url.to_owned();
            }
        };
        // Keep reading, so a later line on stderr never meets a closed pipe.
        std::thread::spawn(move || lines.for_each(drop));
        Self { child, url }
    }

    /// The HTTP status of an `initialize` POST with these extra header lines.
    fn status(&self, headers: &str) -> u16 {
        let authority = self
            .url
            .trim_start_matches("http://")
            .trim_end_matches("/mcp");
        let body = json!({ "jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": { "name": "raw", "version": "1" } } })
        .to_string();
        let mut stream = std::net::TcpStream::connect(authority).unwrap();
        stream.set_read_timeout(Some(LIVENESS)).unwrap();
        write!(
            stream,
            "POST /mcp HTTP/1.1\r\nHost: {authority}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n{headers}Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        )
        .unwrap();
        let mut status_line = [0u8; 12];
        stream.read_exact(&mut status_line).unwrap();
        std::str::from_utf8(&status_line[9..12])
            .unwrap()
            .parse()
            .unwrap()
    }
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn python_client_over_http_needs_the_bearer_token() {
    let fixture = Fixture::new();
    let server = HttpServer::start(
        &fixture,
        &["--token-env", "PTC_TEST_TOKEN"],
        &[("PTC_TEST_TOKEN", "s3cret-token")],
    );
    let call = json!({ "scenario": "call", "name": "run_code", "arguments": run_code("return (await tools.read_file({ path: 'notes.txt' })).length") });

    let mut with_token = with(call.clone(), ("http", json!(server.url)));
    with_token["token"] = json!("s3cret-token");
    let answer = drive(with_token);
    assert_eq!(texts(&answer["result"]), ["16"]);
    assert_eq!(settled_progress(&answer).len(), 1, "progress over HTTP too");

    let without = drive(with(call.clone(), ("http", json!(server.url))));
    assert!(
        without.get("failed").is_some() || without.get("mcpError").is_some(),
        "{without}"
    );
    let mut wrong = with(call, ("http", json!(server.url)));
    wrong["token"] = json!("s3cret-tokem");
    let wrong = drive(wrong);
    assert!(wrong.get("result").is_none(), "{wrong}");

    assert_eq!(server.status(""), 401);
    assert_eq!(server.status("Authorization: Bearer nope\r\n"), 401);
    assert_eq!(server.status("Authorization: Bearer s3cret-token\r\n"), 200);
}

#[test]
fn a_browser_origin_that_is_not_local_is_refused() {
    let fixture = Fixture::new();
    let server = HttpServer::start(&fixture, &[], &[]);
    assert_eq!(server.status("Origin: https://evil.example\r\n"), 403);
    assert_eq!(
        server.status("Origin: http://localhost.evil.example:8080\r\n"),
        403
    );
    assert_eq!(server.status("Origin: http://localhost:6274\r\n"), 200);
    assert_eq!(server.status(""), 200, "no Origin: not a browser");

    let list = json!({ "scenario": "list", "http": server.url });
    let mut evil = list.clone();
    evil["origin"] = json!("https://evil.example");
    assert!(drive(evil).get("tools").is_none());
    let mut local = list;
    local["origin"] = json!("http://127.0.0.1:3000");
    assert_eq!(drive(local)["tools"][0]["name"], "run_code");
}

#[test]
fn python_client_elicitation_works_over_http_sessions() {
    let fixture = Fixture::new();
    let manifest = format!("{}/manifest.json", fixture.path());
    let server = HttpServer::start(&fixture, &["--tools", &manifest], &[]);
    let answer = drive(json!({
        "scenario": "elicit", "answer": "accept", "http": server.url,
        "name": "run_code", "arguments": run_code("return await tools.risky({ target: 'staging' })"),
    }));
    assert_eq!(
        texts(&answer["result"]),
        [r#"{"target":"staging"}"#],
        "{answer}"
    );
}

fn ptc_mcp_exit(args: &[&str]) -> (i32, String) {
    let output = crate::common::output(
        Command::new(env!("CARGO_BIN_EXE_ptc"))
            .arg("mcp")
            .args(args)
            .env_remove("PTC_UNSET_TOKEN")
            .stdin(Stdio::null()),
    );
    (
        output.status.code().unwrap(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

#[test]
fn bad_mcp_flags_are_usage_errors() {
    let (code, stderr) = ptc_mcp_exit(&["--workspace", ".", "--http", "0.0.0.0:0"]);
    assert_eq!(code, 2);
    assert!(
        stderr.starts_with("ptc: refusing to listen on 0.0.0.0:0") && stderr.lines().count() == 1,
        "{stderr}"
    );
    let (code, stderr) = ptc_mcp_exit(&["--http", "127.0.0.1:0", "--token-env", "PTC_UNSET_TOKEN"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("PTC_UNSET_TOKEN is not set"), "{stderr}");
    let (code, stderr) = ptc_mcp_exit(&["--allow-remote"]);
    assert_eq!(code, 2, "{stderr}");
    let (code, stderr) = ptc_mcp_exit(&["--http", "localhost"]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.starts_with("ptc: "), "{stderr}");
}

/// An rmcp client that reports `tools/list_changed`.
struct ListWatcher(mpsc::UnboundedSender<()>);

impl ClientHandler for ListWatcher {
    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        let _ = self.0.send(());
    }
}

/// `server` on one end of an in-memory duplex, an rmcp client on the other.
async fn connect<H: ClientHandler>(
    server: McpServer,
    handler: H,
) -> rmcp::service::RunningService<RoleClient, H> {
    let (server_side, client_side) = tokio::io::duplex(1 << 16);
    tokio::spawn(async move {
        if let Ok(running) = server.serve(server_side).await {
            let _ = running.waiting().await;
        }
    });
    handler
        .serve(client_side)
        .await
        .expect("the handshake succeeds")
}

fn engine(registry: Registry) -> Engine {
    Engine::new(registry, Limits::default()).unwrap()
}

#[tokio::test]
async fn a_registry_change_sends_tools_list_changed() {
    let registry = Registry::new();
    registry.add(common_echo("first")).unwrap();
    let (tx, mut changed) = mpsc::unbounded_channel();
    let client = connect(
        McpServer::new(engine(registry.clone()), Mode::Native),
        ListWatcher(tx),
    )
    .await;
    let names = |tools: Vec<rmcp::model::Tool>| {
        tools
            .into_iter()
            .map(|t| t.name.to_string())
            .collect::<Vec<_>>()
    };
    assert_eq!(names(client.list_all_tools().await.unwrap()), ["first"]);

    // Another part of the program (an MCP tool source re-listing) adds a tool.
    registry.add(common_echo("second")).unwrap();
    tokio::time::timeout(LIVENESS, changed.recv())
        .await
        .expect("list_changed arrives")
        .unwrap();
    assert_eq!(
        names(client.list_all_tools().await.unwrap()),
        ["first", "second"]
    );

    registry.remove("first");
    tokio::time::timeout(LIVENESS, changed.recv())
        .await
        .expect("list_changed arrives")
        .unwrap();
    assert_eq!(names(client.list_all_tools().await.unwrap()), ["second"]);
    let _ = client.cancel().await;
}

fn common_echo(name: &str) -> Tool {
    Tool::new(
        ToolDefinition::new(name).read_only(true),
        |args: Value, _cx: ToolContext| async move { Ok::<_, ToolError>(args) },
    )
}

#[tokio::test]
async fn notifications_cancelled_cancels_the_run_and_its_tool_calls() {
    let registry = Registry::new();
    let (started_tx, mut started) = mpsc::unbounded_channel();
    registry
        .add(Tool::new(
            ToolDefinition::new("wait").read_only(true),
            move |_args: Value, cx: ToolContext| {
                let started_tx = started_tx.clone();
                async move {
                    let _ = started_tx.send(());
                    cx.cancellation().cancelled().await;
                    Err::<Value, _>(ToolError::tool("cancelled"))
                }
            },
        ))
        .unwrap();
    let (ended_tx, mut ended) = mpsc::unbounded_channel();
    registry.add_observer(move |call, result| {
        let _ = ended_tx.send((call.name.clone(), result.as_ref().err().map(|e| e.code)));
    });
    let client = connect(
        McpServer::new(engine(registry), Mode::Ptc),
        ListWatcher(mpsc::unbounded_channel().0),
    )
    .await;

    let params = CallToolRequestParams::new("run_code").with_arguments(
        serde_json::from_value(run_code("await tools.wait({})\nreturn 'never'")).unwrap(),
    );
    let request = ClientRequest::CallToolRequest(CallToolRequest::new(params));
    let handle = client
        .peer()
        .send_cancellable_request(request, PeerRequestOptions::no_options())
        .await
        .unwrap();
    tokio::time::timeout(LIVENESS, started.recv())
        .await
        .expect("the tool starts")
        .unwrap();
    handle
        .cancel(Some("the user pressed stop".into()))
        .await
        .unwrap();
    let (name, code) = tokio::time::timeout(LIVENESS, ended.recv())
        .await
        .expect("the call ends")
        .unwrap();
    assert_eq!((name.as_str(), code), ("wait", Some(ErrorCode::Aborted)));

    // The server goes on serving.
    let after = client
        .call_tool(
            CallToolRequestParams::new("run_code")
                .with_arguments(serde_json::from_value(run_code("return 2")).unwrap()),
        )
        .await
        .unwrap();
    assert_eq!(after.is_error, Some(false));
    let _ = client.cancel().await;
}

/// `size` (read-only, with an output schema, answers `{ n: 3 }`) and
/// `fail` (fails with "it broke").
fn size_and_fail() -> Registry {
    let registry = Registry::new();
    registry
        .add(Tool::new(
            ToolDefinition::new("size")
                .read_only(true)
                .output(json!({ "type": "object", "properties": { "n": { "type": "integer" } } })),
            |_args: Value, _cx: ToolContext| async move { Ok::<_, ToolError>(json!({ "n": 3 })) },
        ))
        .unwrap();
    registry
        .add(Tool::new(ToolDefinition::new("fail"), |_args: Value, _cx: ToolContext| async move {
            Err::<Value, _>(ToolError::tool("it broke"))
        }))
        .unwrap();
    registry
}

#[tokio::test]
async fn results_map_to_mcp_shapes() {
    let client = connect(
        McpServer::new(engine(size_and_fail()), Mode::Both),
        ListWatcher(mpsc::unbounded_channel().0),
    )
    .await;

    let tools = client.list_all_tools().await.unwrap();
    let names: Vec<_> = tools.iter().map(|t| t.name.to_string()).collect();
    assert_eq!(names, ["size", "fail", "run_code"]);
    assert_eq!(
        tools[0].annotations.as_ref().unwrap().read_only_hint,
        Some(true)
    );
    assert_eq!(
        tools[1].annotations.as_ref().unwrap().read_only_hint,
        Some(false)
    );
    assert!(tools[0].output_schema.is_some() && tools[1].output_schema.is_none());
    let run_code_schema = Value::Object((*tools[2].output_schema.clone().unwrap()).clone());

    let call = |name: &'static str, arguments: Value| {
        let params = CallToolRequestParams::new(name)
            .with_arguments(serde_json::from_value(arguments).unwrap());
        client.call_tool(params)
    };
    let size = call("size", json!({})).await.unwrap();
    assert_eq!(
        (size.is_error, size.structured_content),
        (Some(false), Some(json!({ "n": 3 })))
    );
    let fail = call("fail", json!({})).await.unwrap();
    assert_eq!(fail.is_error, Some(true));
    assert_eq!(fail.content[0].as_text().unwrap().text, "Error: it broke");
    assert_eq!(fail.structured_content, None);

    // A run's structuredContent validates against the advertised outputSchema.
    let validator = jsonschema_validator(&run_code_schema);
    for code in [
        "return await tools.size({})",
        "while (true) {}",
        "syntax error here(",
    ] {
        let mut arguments = run_code(code);
        arguments["timeoutMs"] = json!(200);
        let result = call("run_code", arguments).await.unwrap();
        let structured = result.structured_content.clone().unwrap();
        assert!(
            validator(&structured),
            "{structured} against {run_code_schema}"
        );
        assert_eq!(
            result.is_error,
            Some(structured.get("kind").is_some()),
            "{structured}"
        );
    }
    let refused = call(
        "run_code",
        json!({ "code": "return 1", "timeoutMs": "soon" }),
    )
    .await
    .unwrap();
    assert_eq!(
        refused.is_error,
        Some(true),
        "a timeoutMs that is no number is the model's mistake"
    );
    assert!(
        refused.content[0]
            .as_text()
            .unwrap()
            .text
            .starts_with("Error: invalid arguments for `run_code`")
    );
    let _ = client.cancel().await;
}

/// A schema check through ptc's own registration (which compiles schemas
/// with `jsonschema`): a tool whose output schema is `schema` accepts the
/// value only if it validates.
fn jsonschema_validator(schema: &Value) -> impl Fn(&Value) -> bool {
    let schema = schema.clone();
    move |value: &Value| {
        let registry = Registry::new();
        let value = value.clone();
        registry
            .add(Tool::new(
                ToolDefinition::new("check").output(schema.clone()),
                move |_a: Value, _cx: ToolContext| {
                    let value = value.clone();
                    async move { Ok::<_, ToolError>(value) }
                },
            ))
            .unwrap();
        let call = registry
            .scope()
            .call(ptc::Call::new("1", "check", json!({})), Default::default());
        futures::executor::block_on(call).is_ok()
    }
}

#[test]
fn stateless_http_answers_calls_with_progress_and_refuses_ask_tools() {
    let fixture = Fixture::new();
    let manifest = format!("{}/manifest.json", fixture.path());
    let server = HttpServer::start(&fixture, &["--tools", &manifest, "--stateless"], &[]);
    let call = |code: &str| {
        drive(json!({
            "scenario": "elicit", "answer": "accept", "http": server.url,
            "name": "run_code", "arguments": run_code(code),
        }))
    };
    let listed = call("return (await tools.read_file({ path: 'notes.txt' })).length");
    assert_eq!(texts(&listed["result"]), ["16"]);
    assert_eq!(listed["progress"][0]["message"], "Read notes.txt (1 line)");
    let asked = call("return await tools.risky({ target: 'prod' })");
    assert!(
        texts(&asked["result"])[0].contains("not available from this MCP client"),
        "{asked}"
    );
    assert_eq!(
        asked.get("elicitations"),
        None,
        "no session, no elicitation"
    );
}

#[test]
fn python_client_cancels_over_http_sessions_too() {
    let fixture = Fixture::new();
    let manifest = format!("{}/manifest.json", fixture.path());
    let server = HttpServer::start(
        &fixture,
        &[
            "--tools",
            &manifest,
            "--timeout-ms",
            "600000",
            "--client-timeout-ms",
            "3600000",
        ],
        &[],
    );
    let answer = drive(json!({
        "scenario": "cancel", "http": server.url,
        "code": "return await tools.hang({})",
        "pidFile": format!("{}/hang.pid", fixture.path()),
        "after": "return 'next'"
    }));
    assert_eq!(answer["childGone"], true, "{answer}");
    assert_eq!(texts(&answer["after"]), ["next"]);
}

#[tokio::test]
async fn a_run_returns_its_text_then_the_images_of_its_sub_calls() {
    let registry = Registry::new();
    registry
        .add(Tool::new(
            ToolDefinition::new("snapshot").read_only(true),
            |_args: Value, _cx: ToolContext| async move {
                Ok::<_, ToolError>(ptc::ToolOutput::new(json!("taken")).with_content(
                    ptc::ContentBlock::Image {
                        data: "iVBORw0KGgo=".into(),
                        mime_type: "image/png".into(),
                    },
                ))
            },
        ))
        .unwrap();
    let client = connect(
        McpServer::new(engine(registry), Mode::Ptc),
        ListWatcher(mpsc::unbounded_channel().0),
    )
    .await;
    let params = CallToolRequestParams::new("run_code").with_arguments(
        serde_json::from_value(run_code("return await tools.snapshot({})")).unwrap(),
    );
    let result = client.call_tool(params).await.unwrap();
    let content = serde_json::to_value(&result.content).unwrap();
    let kinds: Vec<&str> = content
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["type"].as_str().unwrap())
        .collect();
    assert_eq!(kinds.first(), Some(&"text"));
    assert_eq!(kinds.last(), Some(&"image"));
    assert_eq!(content[0]["text"], "taken");
    let image = content.as_array().unwrap().last().unwrap();
    assert_eq!(
        (image["data"].as_str(), image["mimeType"].as_str()),
        (Some("iVBORw0KGgo="), Some("image/png"))
    );
    let _ = client.cancel().await;
}

/// The whole chain a desktop client sets up: the official Python client
/// drives `ptc mcp --mcp-config`, whose upstream servers are the real
/// `memory` and `filesystem` servers. The client sees only `run_code`, whose
/// SDK covers both servers' tools, and one program uses both.
#[test]
fn a_client_drives_code_mode_over_real_upstream_servers() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    std::fs::write(root.join("a.txt"), "alpha").unwrap();
    std::fs::write(root.join("b.txt"), "beta").unwrap();
    let config = json!({ "mcpServers": {
        "memory": { "command": crate::mcp_sources::npm_server("mcp-server-memory"),
                    "env": { "MEMORY_FILE_PATH": root.join("memory.jsonl") } },
        "fs": { "command": crate::mcp_sources::npm_server("mcp-server-filesystem"), "args": [root] },
    } });
    let config_path = root.join("mcp.json");
    std::fs::write(&config_path, config.to_string()).unwrap();
    let server = json!({
        "command": env!("CARGO_BIN_EXE_ptc"),
        "args": ["mcp", "--mcp-config", config_path],
        "cwd": root,
    });

    // The servers start in the background: their tools join when ready.
    let ready = json!(["memory.create_entities", "fs.read_text_file"]);
    let listed = drive(with(
        json!({ "scenario": "list", "untilListed": ready }),
        ("stdio", server.clone()),
    ));
    let tools = listed["tools"].as_array().unwrap();
    assert_eq!(tools.len(), 1, "only run_code: {tools:?}");
    let sdk = tools[0]["description"].as_str().unwrap();
    assert!(sdk.contains(r#""memory.create_entities"("#), "{sdk}");
    assert!(sdk.contains(r#""fs.read_text_file"("#), "{sdk}");
    assert!(
        sdk.contains("// memory: ") && sdk.contains("// fs: "),
        "grouped: {sdk}"
    );
    assert!(
        !sdk.contains("write_file("),
        "no workspace tools with --mcp-config alone"
    );

    let (a, b) = (root.join("a.txt"), root.join("b.txt"));
    let code = format!(
        r#"await tools["memory.create_entities"]({{ entities: [
               {{ name: "ptc", entityType: "project", observations: ["code mode"] }} ] }})
           const [graph, a, b] = await Promise.all([
               tools["memory.read_graph"]({{}}),
               tools["fs.read_text_file"]({{ path: {a:?} }}),
               tools["fs.read_text_file"]({{ path: {b:?} }}),
           ])
           return [graph.entities.map(e => e.name).join(), a.content, b.content].join(" ")"#
    );
    let called = drive(with(
        json!({ "scenario": "call", "name": "run_code", "arguments": run_code(&code),
                "untilListed": ready }),
        ("stdio", server),
    ));
    let result = &called["result"];
    assert_eq!(result["isError"], false, "{result}");
    assert_eq!(texts(result), ["ptc alpha beta"]);
    assert_eq!(result["structuredContent"]["subCalls"], 4);
    let progress = settled_progress(&called);
    // One per settled sub-call, but for those coalesced: the three in
    // `Promise.all` may settle while one is being sent (contracts: at most
    // one waits per call, the latest).
    let counts: Vec<f64> = progress
        .iter()
        .filter_map(|p| p["progress"].as_f64())
        .collect();
    assert!(
        counts.windows(2).all(|w| w[0] < w[1])
            && counts.iter().all(|c| c.fract() == 0.0)
            && counts.last() >= Some(&4.0),
        "whole and increasing, past the 4 settled: {progress:?}"
    );
    assert!(
        progress[0]["message"]
            .as_str()
            .unwrap()
            .contains("memory.create_entities")
    );
}

/// A model's Python program over every kind of tool source at once (the
/// workspace, a manifest, a real upstream MCP server), through `ptc mcp
/// --language python` and the official client, and through `ptc run`.
#[cfg(feature = "python")]
#[test]
fn python_programs_run_over_every_tool_source() {
    let no_leaks = crate::common::NoLeaks::new();
    let fixture = Fixture::new();
    let root = fixture.dir.path().canonicalize().unwrap();
    let config = json!({ "mcpServers": {
        "memory": { "command": crate::mcp_sources::npm_server("mcp-server-memory"),
                    "env": { "MEMORY_FILE_PATH": root.join("memory.jsonl") } },
    } });
    std::fs::write(root.join("mcp.json"), config.to_string()).unwrap();
    let sources = [
        "--workspace",
        fixture.path(),
        "--tools",
        &format!("{}/manifest.json", fixture.path()),
        "--mcp-config",
        &format!("{}/mcp.json", fixture.path()),
    ]
    .map(str::to_owned);
    let code = r#"import asyncio
await tools.memory.create_entities(entities=[{"name": "ptc", "entityType": "project", "observations": ["python"]}])
graph, notes, stat = await asyncio.gather(tools.memory.read_graph(), tools.read_file(path="notes.txt"), tools.stat())
[[e["name"] for e in graph["entities"]], notes, stat["size"]]"#;
    let expected = r#"[["ptc"],"hello from notes",5]"#;

    let mut args = vec!["mcp".to_owned(), "--language".into(), "python".into()];
    args.extend(sources.iter().cloned());
    // The client passes its default environment and this: ptc, its
    // workers and its servers carry the tag.
    let env = json!({ crate::common::TAG_VAR: no_leaks.tag(),
                      "PTC_PYTHON_WORKER": no_leaks.python_worker() });
    let server = json!({ "command": env!("CARGO_BIN_EXE_ptc"), "args": args,
                         "cwd": fixture.path(), "env": env });
    // The memory server's tools are in the stubs once it is up.
    let ready = json!(["class _Tools_memory:"]);
    let listed = drive(with(
        json!({ "scenario": "list", "untilListed": ready }),
        ("stdio", server.clone()),
    ));
    let description = listed["tools"][0]["description"].as_str().unwrap();
    assert!(
        description.starts_with("Run a Python program"),
        "{description}"
    );
    assert!(
        description.contains("class _Tools_memory:"),
        "{description}"
    );
    let called = drive(with(
        json!({ "scenario": "call", "name": "run_code", "arguments": run_code(code),
                "untilListed": ready }),
        ("stdio", server),
    ));
    let result = &called["result"];
    assert_eq!(result["isError"], false, "{result}");
    assert_eq!(texts(result), [expected]);
    assert_eq!(result["structuredContent"]["subCalls"], 4);

    std::fs::remove_file(root.join("memory.jsonl")).ok();
    let out = crate::common::output(
        Command::new(env!("CARGO_BIN_EXE_ptc"))
            .args(["run", "--language", "python", "-e", code])
            .args(&sources)
            .current_dir(fixture.path()),
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(stdout.trim_end(), expected);
}

// ------------------------------------------- a client that may not read

/// `ptc mcp` over stdio driven line by line, as a hostile client would:
/// it may write without reading. Lines are read on a thread, once asked
/// after `initialize` (whose answer is read a byte at a time, so nothing
/// more is taken from the pipe).
struct RawStdio {
    child: Spawned,
    stdin: Option<std::process::ChildStdin>,
    stdout: Option<std::process::ChildStdout>,
    lines: Option<std::sync::mpsc::Receiver<Value>>,
}

impl RawStdio {
    /// Spawned with `args` after `ptc mcp`, initialized.
    fn start(args: &[&str]) -> Self {
        let mut child = crate::common::spawn(
            Command::new(env!("CARGO_BIN_EXE_ptc"))
                .arg("mcp")
                .args(args)
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .stderr(Stdio::null()),
        );
        let mut raw = Self {
            stdin: child.stdin.take(),
            stdout: child.stdout.take(),
            child,
            lines: None,
        };
        raw.send(
            &json!({ "jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": { "name": "hostile", "version": "0" } } }),
        );
        let mut line = Vec::new();
        let stdout = raw.stdout.as_mut().unwrap();
        let mut byte = [0u8];
        while line.last() != Some(&b'\n') {
            assert_eq!(stdout.read(&mut byte).unwrap(), 1, "ptc answers initialize");
            line.push(byte[0]);
        }
        let answer: Value = serde_json::from_slice(&line).unwrap();
        assert_eq!(answer["id"], 0, "{answer}");
        raw.send(&json!({ "jsonrpc": "2.0", "method": "notifications/initialized" }));
        raw
    }

    fn send(&mut self, message: &Value) {
        let stdin = self.stdin.as_mut().unwrap();
        stdin.write_all(message.to_string().as_bytes()).unwrap();
        stdin.write_all(b"\n").unwrap();
        stdin.flush().unwrap();
    }

    /// The next line ptc writes (reading starts with the first call).
    fn next(&mut self) -> Value {
        let stdout = self.stdout.take();
        let lines = self.lines.get_or_insert_with(|| {
            let (tx, rx) = std::sync::mpsc::channel();
            let stdout = BufReader::new(stdout.unwrap());
            std::thread::spawn(move || {
                for line in stdout.lines().map_while(Result::ok) {
                    if tx.send(serde_json::from_str(&line).unwrap()).is_err() {
                        break;
                    }
                }
            });
            rx
        });
        lines.recv_timeout(LIVENESS).expect("ptc answers")
    }

    /// The response to request `id`, and how many notifications came first.
    fn answer_after(&mut self, id: i64) -> (Value, usize) {
        let mut notifications = 0;
        loop {
            let line = self.next();
            if line["id"] == id {
                return (line, notifications);
            }
            notifications += usize::from(line.get("method").is_some());
        }
    }

    /// `VmRSS` (or another `/proc` status field) of the ptc process, in MiB.
    fn memory_mib(&self, field: &str) -> f64 {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id())).unwrap();
        let kib: f64 = status
            .lines()
            .find_map(|l| l.strip_prefix(field)?.strip_prefix(':'))
            .and_then(|v| v.trim().trim_end_matches(" kB").parse().ok())
            .unwrap();
        kib / 1024.0
    }
}

impl Drop for RawStdio {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Issue 22, part 3: a program looping over failing sub-calls with a
/// progress token grew RSS ~20 MB/s for a client that did not read, and a
/// reading client got a 5 s run's answer after 20-34 s behind 138k-288k
/// notifications. Now at most one notification waits per run.
///
/// Nothing here depends on the machine's speed: the run says it has ended
/// by writing a file (so the test neither reads early nor sleeps and
/// hopes); the unread client's answer is checked by what comes before it
/// (a count, which is what catches a pile-up: 30,000 notifications queued
/// by a debug build cost only ~10 MiB), and the reading client's by how
/// long after the program's own end it arrives, against the same measure
/// of a run that makes no sub-calls (a pile-up shows there only where
/// ptc's writes fall behind the sub-calls, as in a release build).
#[test]
fn progress_of_a_busy_run_neither_piles_up_nor_delays_the_answer() {
    let fixture = Fixture::new();
    let ended = fixture.dir.path().join("ended");
    // A flood of sub-calls is the point here, not the budget that stops one.
    let flags = [
        "--workspace",
        fixture.path(),
        "--max-sub-calls",
        "100000000",
    ];
    let mut raw = RawStdio::start(&flags);
    let busy = |ms: u64| {
        format!(
            "const end = Date.now() + {ms}; let n = 0;\n\
             while (Date.now() < end) {{ try {{ await tools.nope({{}}) }} catch {{ n++ }} }}\n\
             await tools.write_file({{ path: 'ended', content: String(n) }});\n\
             return Date.now()"
        )
    };
    let call = |id: i64, code: &str, token: &str| {
        json!({ "jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {
            "name": "run_code", "arguments": run_code(code), "_meta": { "progressToken": token } } })
    };
    let before = raw.memory_mib("VmRSS");
    raw.send(&call(1, &busy(3000), "p"));
    let started = std::time::Instant::now();
    while !ended.exists() {
        assert!(started.elapsed() < LIVENESS, "the run never ended");
        std::thread::sleep(Duration::from_millis(20));
    }
    let grown = raw.memory_mib("VmRSS") - before;
    assert!(grown < 16.0, "RSS grew by {grown:.1} MiB while unread");
    // The run has ended: its answer comes behind what the pipe held (its
    // 64 KiB take about 450 of these lines), ptc's own queue (at most 64
    // messages) and at most one notification more; not one a sub-call.
    let (answer, notifications) = raw.answer_after(1);
    let subcalls = answer["result"]["structuredContent"]["subCalls"]
        .as_u64()
        .unwrap();
    assert!(subcalls > 1000, "{answer}");
    assert!(
        notifications < 1000,
        "{notifications} notifications for {subcalls} sub-calls"
    );

    // A client that reads gets the answer of a busy run at its end, not
    // later: how long after the program returned the answer is read, for
    // a run that makes no sub-calls and then for a busy one.
    let late = |raw: &mut RawStdio, id: i64, code: &str| {
        raw.send(&call(id, code, &format!("t{id}")));
        let (answer, _) = raw.answer_after(id);
        let read = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_secs_f64()
            * 1000.0;
        assert_eq!(answer["result"]["isError"], false, "{answer}");
        let returned: f64 = texts(&answer["result"])[0].parse().unwrap();
        Duration::from_secs_f64((read - returned).max(0.0) / 1000.0)
    };
    let quiet = late(&mut raw, 2, "return Date.now()");
    let busy = late(&mut raw, 3, &busy(2000));
    eprintln!(
        "grown {grown:.1} MiB; {notifications} notifications for {subcalls} sub-calls unread; \
         answered {quiet:?} after a quiet run's end, {busy:?} after a busy one's"
    );
    // Behind every notification, the answer came seconds after the end.
    assert!(
        busy < quiet + Duration::from_secs(2),
        "a busy run's answer came {busy:?} after it ended, a quiet one's {quiet:?}"
    );
}

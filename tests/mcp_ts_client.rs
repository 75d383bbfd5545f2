//! `ptc mcp` driven by the official MCP TypeScript SDK client
//! (`tests/mcp_client/drive.mjs`), the second real client beside the Python
//! one (`mcp_server.rs`). The SDK checks every `structuredContent` against
//! the tool's `outputSchema` and fails the call when they disagree, so a
//! result here is an answer the SDK accepted.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};

use crate::common::Spawned;
use serde_json::{Value, json};

/// Runs the Node driver with `plan` and returns the JSON it printed.
pub(crate) fn drive_ts(plan: &Value) -> Value {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/mcp_client/drive.mjs");
    let output = crate::common::output(Command::new("node").arg(script).arg(plan.to_string()));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.code() != Some(3), "{stderr}\nrun `npm ci`");
    assert!(output.status.success(), "the driver failed:\n{stderr}");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let last = stdout.lines().last().unwrap_or_default();
    let answer: Value =
        serde_json::from_str(last).unwrap_or_else(|e| panic!("{e}: {stdout}\n{stderr}"));
    assert!(answer.get("failed").is_none(), "{answer}\n{stderr}");
    answer
}

/// A workspace with a file, and a manifest with a tool that sleeps.
pub(crate) struct Fixture {
    dir: tempfile::TempDir,
}

impl Fixture {
    pub(crate) fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("notes.txt"), "hello from notes").unwrap();
        let manifest = json!([
            { "name": "nap", "readOnly": true,
              "parameters": { "type": "object", "properties": { "seconds": { "type": "number" } } },
              "command": ["sh", "-c", "sleep \"$(sed 's/[^0-9.]//g')\"; echo '\"rested\"'"] },
            { "name": "risky", "policy": "ask", "command": ["sh", "-c", "echo '\"done\"'"] }
        ]);
        std::fs::write(dir.path().join("manifest.json"), manifest.to_string()).unwrap();
        Self { dir }
    }

    pub(crate) fn path(&self) -> &str {
        self.dir.path().to_str().unwrap()
    }

    /// `ptc mcp`'s arguments for the workspace and the manifest, then `extra`.
    pub(crate) fn args(&self, extra: &[&str]) -> Vec<String> {
        let mut args = vec![
            "mcp".to_owned(),
            "--workspace".to_owned(),
            self.path().to_owned(),
            "--tools".to_owned(),
            format!("{}/manifest.json", self.path()),
        ];
        args.extend(extra.iter().map(|&a| a.to_owned()));
        args
    }

    /// The plan's `server` for `ptc mcp` over stdio.
    pub(crate) fn stdio(&self, extra: &[&str]) -> Value {
        json!({ "stdio": { "command": env!("CARGO_BIN_EXE_ptc"), "args": self.args(extra), "cwd": self.path() } })
    }
}

/// `ptc mcp --http 127.0.0.1:0`, its endpoint read from the line it
/// announces on stderr; killed when dropped.
pub(crate) struct HttpPtc {
    child: Spawned,
    pub(crate) url: String,
}

impl HttpPtc {
    pub(crate) fn start(args: &[String]) -> Self {
        let mut child = crate::common::spawn(
            Command::new(env!("CARGO_BIN_EXE_ptc"))
                .args(args)
                .args(["--http", "127.0.0.1:0"])
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::piped()),
        );
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

    pub(crate) fn server(&self) -> Value {
        json!({ "http": self.url })
    }
}

impl Drop for HttpPtc {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn run_code(label: &str, code: &str) -> Value {
    json!({ "label": label, "name": "run_code", "arguments": { "code": code, "description": label } })
}

/// One call of each outcome kind, then one showing the server goes on.
fn every_outcome() -> Vec<Value> {
    let mut timeout = run_code("timeout", "for (;;) {}");
    timeout["arguments"]["timeoutMs"] = json!(300);
    let mut cancelled = run_code(
        "cancelled",
        "await tools.list_dir({ path: '.' })\nfor (;;) {}",
    );
    cancelled["cancelAtProgress"] = json!(true);
    let mut denied = run_code("denied", "return 'never runs'");
    denied["arguments"]["sandboxPermissions"] = json!("require_escalated");
    denied["arguments"]["justification"] = json!("a larger heap");
    vec![
        run_code(
            "success",
            "return (await tools.read_file({ path: 'notes.txt' })).length",
        ),
        run_code("syntax", "syntax error here("),
        run_code("runtime", "throw new Error('boom')"),
        timeout,
        run_code(
            "memory",
            "const kept = []\nfor (;;) kept.push('x'.repeat(1 << 20) + kept.length)",
        ),
        cancelled,
        denied,
        run_code("after", "return 'still serving'"),
        // A run that opened a session, failing after its write: `kind` and
        // `session` together (contracts §9).
        run_code(
            "stateful",
            "await state.set('k', 1)\nthrow new Error('after the write')",
        ),
    ]
}

fn texts(result: &Value) -> Vec<&str> {
    result["content"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|block| block["text"].as_str())
        .collect()
}

/// What the TypeScript client got for every outcome kind: each a result it
/// accepted (a cancelled call: its own abort, as MCP sends no response).
fn check_every_outcome(answer: &Value) {
    let kinds = &answer["tools"][0]["outputSchema"]["properties"]["kind"];
    assert!(kinds.to_string().contains("\"denied\""), "{kinds}");
    let calls = answer["calls"].as_array().unwrap();
    let call = |label: &str| {
        calls
            .iter()
            .find(|c| c["label"] == label)
            .unwrap_or_else(|| panic!("no {label} in {answer}"))
    };
    let success = &call("success")["result"];
    assert_eq!(success["isError"], false, "{answer}");
    assert_eq!(texts(success), ["16"]);
    assert_eq!(success["structuredContent"].get("kind"), None);
    assert_eq!(success["structuredContent"]["subCalls"], 1);
    for kind in ["syntax", "runtime", "timeout", "memory", "denied"] {
        let called = call(kind);
        let result = &called["result"];
        assert_eq!(result["isError"], true, "{kind}: {called}");
        assert_eq!(result["structuredContent"]["kind"], kind, "{called}");
        assert!(
            texts(result)[0].starts_with(&format!("Error: code run failed ({kind})")),
            "{called}"
        );
    }
    // The SDK rejects an aborted call with its abort reason; ptc sends no
    // response to a cancelled request, so there is nothing to validate.
    let cancelled = call("cancelled");
    let message = cancelled["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("the user pressed stop"), "{cancelled}");
    assert_eq!(texts(&call("after")["result"]), ["still serving"]);
    let stateful = &call("stateful")["result"];
    let session = stateful["structuredContent"]["session"]
        .as_str()
        .unwrap_or_default();
    assert!(session.starts_with("ptc_"), "{answer}");
    assert_eq!(stateful["structuredContent"]["kind"], "runtime", "{answer}");
    assert!(
        texts(stateful)[0].ends_with(&format!("pass session \"{session}\" to use them")),
        "{answer}"
    );
}

#[test]
fn typescript_client_accepts_every_outcome_over_stdio() {
    let fixture = Fixture::new();
    let answer = drive_ts(&json!({
        "server": fixture.stdio(&["--memory-limit", "16MiB"]),
        "answer": "decline",
        "calls": every_outcome(),
    }));
    check_every_outcome(&answer);
    assert_eq!(
        answer["elicitations"].as_array().unwrap().len(),
        1,
        "the escalation was put to the user: {answer}"
    );
}

#[test]
fn typescript_client_accepts_every_outcome_over_http() {
    let fixture = Fixture::new();
    let server = HttpPtc::start(&fixture.args(&["--memory-limit", "16MiB"]));
    let answer = drive_ts(&json!({
        "server": server.server(),
        "answer": "decline",
        "calls": every_outcome(),
    }));
    check_every_outcome(&answer);
}

/// A run longer than the client's request timeout: heartbeats (after 4 s
/// without progress) say what it waits on, and a client that resets its
/// timeout on progress gets the answer instead of `-32001 Request timed
/// out`. `progress` increases with every notification, as MCP asks.
#[test]
fn typescript_client_keeps_waiting_on_heartbeats() {
    let fixture = Fixture::new();
    let mut nap = run_code("nap", "return await tools.nap({ seconds: 10 })");
    nap["timeoutMs"] = json!(7000);
    nap["resetTimeoutOnProgress"] = json!(true);
    let answer = drive_ts(&json!({ "server": fixture.stdio(&[]), "calls": [nap] }));
    let call = &answer["calls"][0];
    assert!(call.get("result").is_some(), "the call timed out: {call}");
    assert_eq!(texts(&call["result"]), ["rested"], "{call}");
    let progress = call["progress"].as_array().unwrap();
    let beats: Vec<&Value> = progress
        .iter()
        .filter(|p| p["message"] == "running (0 sub-calls settled, 1 in flight: `nap`)")
        .collect();
    assert!(beats.len() >= 2, "{call}");
    let values: Vec<f64> = progress
        .iter()
        .map(|p| p["progress"].as_f64().unwrap())
        .collect();
    // Whole numbers, one more per notification (issue 41: no fractions).
    let counted: Vec<f64> = (1..=values.len()).map(|n| n as f64).collect();
    assert_eq!(values, counted, "{call}");
    // The settled sub-call's is sent before the answer, but the TypeScript
    // SDK handles a notification in a microtask and an answer at once: when
    // both arrive in one read, it drops the notification. So it may be
    // missing here; the Python client checks that it comes
    // (`mcp_server::python_client_gets_progress_notifications_of_settled_sub_calls`).
    let settled: Vec<&Value> = progress
        .iter()
        .filter(|p| !p["message"].as_str().unwrap().starts_with("running ("))
        .collect();
    assert!(
        settled.is_empty() || settled.len() == 1 && Some(settled[0]) == progress.last(),
        "the settled sub-call is the last notification: {call}"
    );
}

/// Issue 41: the TypeScript SDK with its default options (a 60 s request
/// timeout) is never offered a deadline it would cut: `run_code`'s
/// description and schema stop at 55 s, and a longer `timeoutMs` is
/// refused with advice the model can act on. An operator whose client
/// waits longer says so.
#[test]
fn ptc_mcp_offers_no_deadline_the_client_would_cut() {
    let fixture = Fixture::new();
    let mut long = run_code("long", "return 'never runs'");
    long["arguments"]["timeoutMs"] = json!(90_000);
    let answer = drive_ts(&json!({ "server": fixture.stdio(&[]), "calls": [long] }));
    let tool = &answer["tools"][0];
    let description = tool["description"].as_str().unwrap();
    assert!(
        description
            .contains("`timeoutMs` bounds the whole run: 55000 ms by default, at most 55000 ms."),
        "{description}"
    );
    let schema = &tool["inputSchema"]["properties"]["timeoutMs"];
    assert_eq!(schema["maximum"], 55_000, "{schema}");
    // Nor CPU it cannot have: no run computes past its deadline.
    let cpu = &tool["inputSchema"]["properties"]["cpuTimeMs"];
    assert_eq!(
        (&cpu["maximum"], &cpu["default"]),
        (&json!(55_000), &json!(30_000)),
        "{cpu}"
    );
    let result = &answer["calls"][0]["result"];
    assert_eq!(result["isError"], true, "{answer}");
    let said = texts(result).join("\n");
    assert!(
        said.contains("timeoutMs must be an integer from 1 to 55000, got 90000")
            && said.contains("split the work into runs that each end within 55000 ms"),
        "{said}"
    );

    let answer =
        drive_ts(&json!({ "server": fixture.stdio(&["--timeout-ms", "20000"]), "calls": [] }));
    let description = answer["tools"][0]["description"].as_str().unwrap();
    assert!(
        description.contains("20000 ms by default, at most 55000 ms."),
        "{description}"
    );
    let waits_long = ["--client-timeout-ms", "3600000"];
    let answer = drive_ts(&json!({ "server": fixture.stdio(&waits_long), "calls": [] }));
    let description = answer["tools"][0]["description"].as_str().unwrap();
    assert!(
        description.contains("55000 ms by default, at most 600000 ms."),
        "{description}"
    );
}

/// Approval through elicitation, as the TypeScript SDK's form handler sees
/// it: a form with no fields asking "Allow this call?"; Accept (with empty
/// content) allows, Decline and Cancel refuse.
#[test]
fn typescript_client_approves_with_accept_and_refuses_with_decline() {
    let fixture = Fixture::new();
    let call = || vec![run_code("approval", "return await tools.risky({})")];
    let accepted =
        drive_ts(&json!({ "server": fixture.stdio(&[]), "answer": "accept", "calls": call() }));
    let result = &accepted["calls"][0]["result"];
    assert_eq!(result["isError"], false, "{accepted}");
    assert_eq!(texts(result), ["done"]);
    let asked = &accepted["elicitations"][0];
    assert!(
        asked["message"]
            .as_str()
            .unwrap()
            .ends_with("\nAllow this call?"),
        "{asked}"
    );
    assert_eq!(
        asked["schema"],
        json!({ "type": "object", "properties": {} })
    );
    for (answer, reason) in [
        ("decline", "the user declined the call to `risky`"),
        ("cancel", "the user cancelled the approval of `risky`"),
    ] {
        let refused =
            drive_ts(&json!({ "server": fixture.stdio(&[]), "answer": answer, "calls": call() }));
        let text = texts(&refused["calls"][0]["result"])[0].to_owned();
        assert!(
            text.contains(reason) && text.contains("code DENIED"),
            "{text}"
        );
    }
}

/// Issue 41: a one-shot client (as the Inspector CLI's `tools/call`) calls
/// `run_code` the moment it has connected, before the real memory server
/// behind `ptc mcp` is ready: the run's call waits for the server.
#[test]
fn a_one_shot_call_finds_a_real_server_still_starting() {
    let dir = tempfile::tempdir().unwrap();
    let config = json!({ "mcpServers": {
        "memory": { "command": crate::mcp_sources::npm_server("mcp-server-memory"),
                    "env": { "MEMORY_FILE_PATH": dir.path().join("memory.jsonl") } },
    } });
    let config_path = dir.path().join("mcp.json");
    std::fs::write(&config_path, config.to_string()).unwrap();
    let code = "const graph = await tools['memory.read_graph']({}); return graph.entities.length";
    let answer = drive_ts(&json!({
        "server": { "stdio": { "command": env!("CARGO_BIN_EXE_ptc"),
                               "args": ["mcp", "--mcp-config", config_path] } },
        "list": false,
        "calls": [run_code("first", code)],
    }));
    let result = &answer["calls"][0]["result"];
    assert_eq!(result["isError"], false, "{answer}");
    assert_eq!(texts(result), ["0"], "{answer}");
}

/// Issue 41: the MCP Inspector's CLI, one `tools/call` and out, against
/// `ptc mcp` in front of the README's own config (`npx -y` servers,
/// resolved from the repository's `node_modules`): the run's calls wait
/// for both servers, which are still starting when the call arrives.
#[test]
fn the_inspector_clis_first_call_works_with_the_readmes_config() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let block = readme
        .split("```json\n")
        .skip(1)
        .map(|rest| rest.split("\n```").next().unwrap())
        .find(|block| block.contains("\"npx\""))
        .expect("the README shows an MCP config of npx servers");
    let dir = tempfile::tempdir().unwrap();
    let notes = dir.path().join("notes");
    std::fs::create_dir(&notes).unwrap();
    std::fs::write(notes.join("todo.txt"), "write the tests").unwrap();
    let config = block.replace("/home/me/notes", notes.to_str().unwrap());
    let config_path = dir.path().join("ptc-mcp.json");
    std::fs::write(&config_path, config).unwrap();
    let code = "const [graph, listing] = await Promise.all([tools['memory.read_graph']({}), \
                tools['fs.list_directory']({ path: '/NOTES' })]); \
                return { entities: graph.entities.length, listing: listing.content }"
        .replace("/NOTES", notes.to_str().unwrap());
    let memory = format!(
        "MEMORY_FILE_PATH={}",
        dir.path().join("memory.jsonl").display()
    );
    let inspector =
        root.join("node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js");
    let output = crate::common::output(
        Command::new("node")
            .arg(inspector)
            .args(["--cli", env!("CARGO_BIN_EXE_ptc"), "mcp", "--mcp-config"])
            .arg(&config_path)
            .args([
                "-e",
                &memory,
                "--method",
                "tools/call",
                "--tool-name",
                "run_code",
            ])
            .arg(format!("--tool-arg=code={code}"))
            .current_dir(root),
    );
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "the Inspector CLI failed:\n{stdout}\n{stderr}\n(run `npm ci`)"
    );
    let result: Value = serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{e}: {stdout}"));
    assert_eq!(result["isError"], false, "{result}");
    assert_eq!(
        texts(&result),
        [r#"{"entities":0,"listing":"[FILE] todo.txt"}"#],
        "{result}"
    );
}

//! MCP servers as tool sources, against real servers: the public ones
//! installed by `npm ci` (`memory`, `filesystem`, `everything`) and a
//! hermetic server written with rmcp for what those do not reach.
//!
//! The hermetic server is this test binary again: `hermetic_server` is an
//! ignored test that serves MCP when `PTC_MCP_TEST_SERVER` names a mode.
//! libtest writes its own lines to stdout, so the server speaks on fd 3,
//! which `sh` points at the pipe while stdout goes to /dev/null. It needs
//! no extra build target, so filtered runs (`cargo test --test tests mcp`)
//! build everything they use.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use ptc::{
    Engine, ErrorCode, Limits, McpConfig, McpOptions, McpServerConfig, McpServers, McpTransport,
    Outcome, Policy, Registry, RunOptions, RunRequest,
};
use serde_json::{Value, json};

use crate::common::{NoLeaks, eventually, tag_servers};

// ---------------------------------------------------------------- helpers

/// A server installed by `npm ci` in `node_modules/.bin`.
pub(crate) fn npm_server(name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("node_modules/.bin")
        .join(name);
    assert!(
        path.exists(),
        "{} is missing: run `npm ci` in the repository first",
        path.display()
    );
    path.display().to_string()
}

/// A config entry that runs the hermetic server in `mode`, logging to `log`.
fn hermetic(mode: &str, log: &Path) -> Value {
    let exe = std::env::current_exe().expect("the test binary");
    json!({
        "command": "sh",
        "args": [
            "-c",
            "exec \"$0\" --exact mcp_sources::hermetic_server --ignored --nocapture --test-threads 1 3>&1 1>/dev/null",
            exe,
        ],
        "env": { "PTC_MCP_TEST_SERVER": mode, "PTC_MCP_TEST_LOG": log },
    })
}

/// What the hermetic server logged so far, one event a line.
fn log_lines(log: &Path) -> Vec<String> {
    std::fs::read_to_string(log)
        .unwrap_or_default()
        .lines()
        .map(str::to_owned)
        .collect()
}

async fn connect(servers: Value, options: McpOptions) -> (Registry, McpServers, Vec<String>) {
    let servers = tag_servers(servers);
    let config = McpConfig::parse(&json!({ "mcpServers": servers }).to_string()).unwrap();
    let registry = Registry::new();
    let (handle, problems) = ptc::connect(&config, &registry, options).await;
    let problems = problems.iter().map(ToString::to_string).collect();
    (registry, handle, problems)
}

/// One hermetic server, `h`, in `mode`, logging to a file in a fresh
/// directory (kept alive by the returned guard).
async fn connect_hermetic(
    mode: &str,
) -> (
    tempfile::TempDir,
    PathBuf,
    Registry,
    McpServers,
    Vec<String>,
) {
    let dir = temp_dir();
    let log = dir.path().join("log");
    let (registry, servers, problems) =
        connect(json!({ "h": hermetic(mode, &log) }), McpOptions::default()).await;
    (dir, log, registry, servers, problems)
}

async fn run(registry: &Registry, code: &str) -> Outcome {
    let engine = Engine::new(registry.clone(), Limits::default()).unwrap();
    engine
        .run_code(RunRequest::new(code), RunOptions::default())
        .await
        .unwrap()
}

fn temp_dir() -> tempfile::TempDir {
    tempfile::tempdir().unwrap()
}

// ---------------------------------------------------------- the public servers

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn real_servers_serve_one_program() {
    let _no_leaks = NoLeaks::for_this_test();
    let dir = temp_dir();
    std::fs::write(dir.path().join("a.txt"), "alpha").unwrap();
    std::fs::write(dir.path().join("b.txt"), "beta").unwrap();
    let root = dir.path().canonicalize().unwrap();
    let (registry, servers, problems) = connect(
        json!({
            "memory": { "command": npm_server("mcp-server-memory"),
                        "env": { "MEMORY_FILE_PATH": root.join("memory.jsonl") } },
            "fs": { "command": npm_server("mcp-server-filesystem"), "args": [root] },
            "everything": { "command": npm_server("mcp-server-everything") },
        }),
        McpOptions::default(),
    )
    .await;
    // Its one tool that must run as an MCP task is left out, not offered
    // to fail on every call.
    assert_eq!(
        problems,
        [
            "mcp server `everything`: skipped tool `simulate-research-query`: it can only be called \
          as an MCP task (execution.taskSupport: \"required\"), which ptc does not do"
        ]
    );
    assert!(
        registry
            .definition("everything.simulate-research-query")
            .is_none()
    );
    let structured = registry
        .definition("everything.get-structured-content")
        .expect("everything's structured tool");
    assert!(structured.read_only && structured.output.is_some());
    let a = root.join("a.txt").display().to_string();
    let b = root.join("b.txt").display().to_string();
    let code = format!(
        r#"
        await tools["memory.create_entities"]({{ entities: [
            {{ name: "ptc", entityType: "project", observations: ["runs programs"] }} ] }})
        const graph = await tools["memory.read_graph"]({{}})
        const [a, b] = await Promise.all([
            tools["fs.read_text_file"]({{ path: {a:?} }}),
            tools["fs.read_text_file"]({{ path: {b:?} }}),
        ])
        const weather = await tools["everything.get-structured-content"]({{ location: "Chicago" }})
        await tools["everything.get-tiny-image"]({{}})
        return {{ names: graph.entities.map(e => e.name), a: a.content, b: b.content, weather }}
        "#
    );
    let outcome = run(&registry, &code).await;
    assert!(!outcome.is_error, "{}", outcome.text());
    let value: Value = serde_json::from_str(outcome.text().lines().last().unwrap()).unwrap();
    assert_eq!(value["names"], json!(["ptc"]));
    assert_eq!(
        (&value["a"], &value["b"]),
        (&json!("alpha"), &json!("beta"))
    );
    assert_eq!(value["weather"]["conditions"], "Light rain / drizzle");
    let json = serde_json::to_value(&outcome).unwrap();
    let images: Vec<&Value> = json["content"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|b| b["type"] == "image")
        .collect();
    assert_eq!(images.len(), 1, "{json}");
    assert_eq!(images[0]["mimeType"], "image/png");
    servers.shutdown().await;
}

/// Sub-call `n`'s events of run `run_id`, in order: each kind, with a
/// progress event's message (which must have nothing else besides).
fn call_events(events: &[Value], run_id: &str, n: u32) -> Vec<String> {
    let id = format!("{run_id}:ptc:{n}");
    let of_call = events.iter().filter(|e| e["id"] == id.as_str());
    of_call
        .map(|e| {
            assert_eq!(e["runId"], run_id, "{e}");
            match e["event"].as_str().unwrap() {
                "progress" => {
                    let mut keys: Vec<&String> = e.as_object().unwrap().keys().collect();
                    keys.sort();
                    assert_eq!(keys, ["event", "id", "message", "runId"], "{e}");
                    format!("progress {}", e["message"].as_str().unwrap())
                }
                other => other.to_owned(),
            }
        })
        .collect()
}

/// contracts §6, Events: what an upstream server says while a call of
/// its tool runs (its progress for the call, its log lines) reaches a
/// watched run as `progress` events of that sub-call, between its
/// `started` and its `settled`; a note for a token ptc did not send is
/// dropped. The servers: the real `everything` (its long-running
/// operation reports each step) and the relay of `tests/data`, which
/// also logs. The events are what `ptc serve` writes as `run/event`
/// params, so their JSON is checked too.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn upstream_progress_and_logs_are_progress_events_of_the_sub_call() {
    let _no_leaks = NoLeaks::for_this_test();
    let relay = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/relay_mcp_server.py");
    let (registry, servers, _) = connect(
        json!({
            "everything": { "command": npm_server("mcp-server-everything") },
            "relay": { "command": "python3", "args": [relay] },
        }),
        McpOptions::default(),
    )
    .await;
    let engine = Engine::new(registry, Limits::default()).unwrap();
    let events: Arc<std::sync::Mutex<Vec<ptc::RunEvent>>> = Arc::default();
    let sink = Arc::clone(&events);
    let code = r#"
        await tools["everything.trigger-long-running-operation"]({ duration: 1.5, steps: 3 })
        return await tools["relay.report"]({})
    "#;
    let outcome = engine
        .run_code(
            RunRequest::new(code),
            RunOptions::default().events(move |e: ptc::RunEvent| sink.lock().unwrap().push(e)),
        )
        .await
        .unwrap();
    assert_eq!(outcome.text(), r#"{"token":true}"#);
    servers.shutdown().await;

    // Each sub-call's events in order, as `ptc serve` writes them.
    let events: Vec<Value> = events
        .lock()
        .unwrap()
        .iter()
        .map(|e| serde_json::to_value(e).unwrap())
        .collect();
    let of_call = |n: u32| call_events(&events, &outcome.run_id, n);
    // `everything` sends its last step right before its answer, and rmcp
    // hands each notification to a task of its own while the answer goes
    // straight to the call: on a loaded machine the answer may be taken
    // first, the call ends, and that last note is dropped (never shown
    // after `settled`). The steps before it come 0.5 s ahead of the next
    // message, as do all the relay's.
    let mut expected = vec!["started", "progress 1 of 3", "progress 2 of 3"];
    let everything = of_call(1);
    if everything.len() == 5 {
        expected.push("progress 3 of 3");
    }
    expected.push("settled");
    assert_eq!(everything, expected, "{events:#?}");
    assert_eq!(
        of_call(2),
        [
            "started",
            "progress step 1 of 2",
            "progress 2 of 2",
            "progress [info] relay: indexing 40 files",
            "settled"
        ],
        "{events:#?}"
    );
    let progress = events.iter().filter(|e| e["event"] == "progress").count();
    assert_eq!(
        progress,
        expected.len() - 2 + 3,
        "none for the token ptc did not send"
    );
}

// ---------------------------------------------------------- the hermetic server

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn structured_results_images_and_errors_map() {
    let _no_leaks = NoLeaks::for_this_test();
    let (_log_dir, _, registry, servers, problems) = connect_hermetic("tools").await;
    assert!(problems.is_empty(), "{problems:?}");
    let weather = registry.definition("h.weather").unwrap();
    assert_eq!(
        weather.output.as_ref().unwrap()["required"],
        json!(["temp"])
    );
    assert_eq!(weather.description.as_deref(), Some("Weather, structured."));
    let outcome = run(
        &registry,
        r#"
        const w = await tools["h.weather"]({ city: "Oslo" })
        const e = await tools["h.echo"]({ text: "hi" })
        const t = await tools["h.text"]({})
        const img = await tools["h.image"]({})
        let failure
        try { await tools["h.fails"]({}) } catch (err) { failure = [err.code, err.message] }
        return { w, e, t, img, failure }
        "#,
    )
    .await;
    assert!(!outcome.is_error, "{}", outcome.text());
    let value: Value = serde_json::from_str(outcome.text().lines().last().unwrap()).unwrap();
    assert_eq!(value["w"], json!({ "temp": 21, "city": "Oslo" }));
    assert_eq!(
        value["e"],
        json!({ "text": "hi" }),
        "one JSON text block is parsed"
    );
    assert_eq!(value["t"], json!("line one\nline two"), "texts are joined");
    assert_eq!(value["img"], json!("a red dot"));
    assert_eq!(value["failure"], json!(["TOOL_ERROR", "it went wrong"]));
    let json = serde_json::to_value(&outcome).unwrap();
    assert!(
        json["content"]
            .to_string()
            .contains("\"mimeType\":\"image/png\"")
    );
    servers.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn read_only_calls_overlap_on_the_server() {
    let _no_leaks = NoLeaks::for_this_test();
    let (_log_dir, _, registry, servers, _) = connect_hermetic("tools").await;
    assert!(registry.definition("h.meet").unwrap().read_only);
    // Each `meet` call waits on the server until the other one arrives.
    let outcome = run(
        &registry,
        r#"return await Promise.all([tools["h.meet"]({}), tools["h.meet"]({})])"#,
    )
    .await;
    assert_eq!(outcome.text(), "[\"met\",\"met\"]");
    servers.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_that_exits_mid_call_fails_the_call_and_restarts_on_the_next() {
    let _no_leaks = NoLeaks::for_this_test();
    let (_log_dir, log, registry, servers, _) = connect_hermetic("tools").await;
    let outcome = run(
        &registry,
        r#"
        let failure
        try { await tools["h.crash"]({}) } catch (err) { failure = [err.code, err.message] }
        const again = await tools["h.echo"]({ text: "back" })
        return { failure, again }
        "#,
    )
    .await;
    assert!(!outcome.is_error, "{}", outcome.text());
    let value: Value = serde_json::from_str(outcome.text().lines().last().unwrap()).unwrap();
    assert_eq!(value["failure"][0], "TOOL_ERROR");
    let message = value["failure"][1].as_str().unwrap();
    assert!(
        message.starts_with("mcp server `h` failed during the call"),
        "{message}"
    );
    assert!(
        message.contains("crashing on purpose"),
        "the stderr tail: {message}"
    );
    assert_eq!(value["again"], json!({ "text": "back" }));
    let starts = log_lines(&log).iter().filter(|l| *l == "started").count();
    assert_eq!(starts, 2, "restarted once");
    servers.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_that_never_answers_is_cancelled_when_the_run_ends() {
    let _no_leaks = NoLeaks::for_this_test();
    let (_log_dir, log, registry, servers, _) = connect_hermetic("tools").await;
    let engine = Engine::new(registry.clone(), Limits::default()).unwrap();
    let request = RunRequest::new(r#"await tools["h.hang"]({})"#).timeout_ms(1000);
    let outcome = engine
        .run_code(request, RunOptions::default())
        .await
        .unwrap();
    assert!(outcome.is_error, "the deadline ends the run");
    eventually("notifications/cancelled at the server", || {
        log_lines(&log).iter().any(|l| l.starts_with("cancelled "))
    })
    .await;
    let hung = log_lines(&log)
        .into_iter()
        .find_map(|l| l.strip_prefix("hang ").map(str::to_owned))
        .expect("the server saw the call");
    assert!(
        log_lines(&log).contains(&format!("cancelled {hung}")),
        "the cancelled request is the hanging one: {:?}",
        log_lines(&log)
    );
    servers.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn list_changed_updates_the_registry_and_the_sdk() {
    let _no_leaks = NoLeaks::for_this_test();
    let (_log_dir, _, registry, servers, _) = connect_hermetic("tools").await;
    let engine = Engine::new(registry.clone(), Limits::default()).unwrap();
    let sdk = || engine.presentation(&registry.scope(), None).sdk.to_string();
    assert!(!sdk().contains("h.late"));
    let outcome = engine
        .run_code(
            RunRequest::new(r#"await tools["h.add_tool"]({ name: "late" }); await tools["h.remove_tool"]({ name: "text" })"#),
            RunOptions::default(),
        )
        .await
        .unwrap();
    assert!(!outcome.is_error, "{}", outcome.text());
    eventually("h.late registered", || {
        registry.definition("h.late").is_some()
    })
    .await;
    eventually("h.text removed", || registry.definition("h.text").is_none()).await;
    let text = sdk();
    assert!(text.contains("\"h.late\"(args"), "{text}");
    assert!(!text.contains("\"h.text\""));
    let outcome = run(
        &registry,
        r#"return await tools["h.late"]({ text: "new" })"#,
    )
    .await;
    assert_eq!(outcome.text(), "{\"text\":\"new\"}");
    servers.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hostile_names_and_schemas_are_skipped_with_a_warning_each() {
    let _no_leaks = NoLeaks::for_this_test();
    let (_log_dir, _, registry, servers, problems) = connect_hermetic("hostile").await;
    let names: Vec<String> = registry.definitions().into_iter().map(|d| d.name).collect();
    assert_eq!(names, ["h.fine", "h.comment"]);
    assert_eq!(problems.len(), 4, "{problems:?}");
    assert!(problems[0].starts_with("mcp server `h`: skipped tool \"has space\""));
    assert!(problems[1].contains("1-128 characters"));
    assert!(problems[2].starts_with("mcp server `h`: skipped tool \"slash/name\""));
    assert!(
        problems[3].starts_with("mcp server `h`: skipped tool `h.bad_schema`"),
        "{}",
        problems[3]
    );
    let engine = Engine::new(registry.clone(), Limits::default()).unwrap();
    let text = engine.presentation(&registry.scope(), None).sdk.to_string();
    assert!(
        !text.contains("*/ declare"),
        "a description cannot end its comment"
    );
    servers.shutdown().await;
}

/// A registry holding the operator's own `h.echo` and `h.late`:
/// escalation-only and `ask`, as a manifest would configure them.
fn registry_with_operator_tools() -> Registry {
    let tools = ptc::parse_manifest(
        r#"[ { "name": "h.echo", "requiresEscalation": true, "policy": "ask" },
             { "name": "h.late", "requiresEscalation": true, "policy": "ask" } ]"#,
        Path::new("."),
    )
    .unwrap();
    let registry = Registry::new();
    registry.add_all(tools).unwrap();
    registry
}

/// The operator's tool is still the one registered: escalation-only, so
/// an unescalated run is denied without the server being asked.
async fn assert_operator_tool_kept(registry: &Registry, name: &str, log: &Path) {
    let tool = registry.definition(name).unwrap();
    assert!(
        tool.escalation_only && tool.policy == Policy::Ask,
        "{tool:?}"
    );
    let code = format!(
        r#"try {{ await tools["{name}"]({{ text: "x" }}) }} catch (err) {{ return err.code }}"#
    );
    let outcome = run(registry, &code).await;
    assert_eq!(outcome.text(), "DENIED");
    assert!(!log_lines(log).iter().any(|l| l.starts_with("call ")));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_cannot_take_over_a_name_at_start() {
    let _no_leaks = NoLeaks::for_this_test();
    let dir = temp_dir();
    let log = dir.path().join("log");
    let registry = registry_with_operator_tools();
    let config = json!({ "mcpServers": tag_servers(json!({ "h": hermetic("tools", &log) })) });
    let config = McpConfig::parse(&config.to_string()).unwrap();
    let (servers, problems) = ptc::connect(&config, &registry, McpOptions::default()).await;
    let problems: Vec<String> = problems.iter().map(ToString::to_string).collect();
    assert_eq!(
        problems,
        [
            "mcp server `h`: skipped tool `h.echo`: the name is taken by the host (its own tools, \
          a manifest's or the workspace tools), and a tool source cannot replace another's tools"
        ]
    );
    assert!(
        registry.definition("h.weather").is_some(),
        "its other tools are there"
    );
    assert_operator_tool_kept(&registry, "h.echo", &log).await;
    servers.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_cannot_take_over_a_name_by_list_changed() {
    let _no_leaks = NoLeaks::for_this_test();
    let dir = temp_dir();
    let log = dir.path().join("log");
    let registry = registry_with_operator_tools();
    let config = json!({ "mcpServers": tag_servers(json!({ "h": hermetic("tools", &log) })) });
    let config = McpConfig::parse(&config.to_string()).unwrap();
    let (servers, _) = ptc::connect(&config, &registry, McpOptions::default()).await;
    let outcome = run(
        &registry,
        r#"await tools["h.add_tool"]({ name: "late" }); await tools["h.remove_tool"]({ name: "text" })"#,
    )
    .await;
    assert!(!outcome.is_error, "{}", outcome.text());
    // The re-list that removes `h.text` sees `late` too.
    eventually("h.text removed", || registry.definition("h.text").is_none()).await;
    assert_operator_tool_kept(&registry, "h.late", &log).await;
    assert_operator_tool_kept(&registry, "h.echo", &log).await;
    servers.shutdown().await;
}

/// A config entry that runs the hostile Python server in `mode`.
fn hostile(mode: &str, log: &Path) -> Value {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/hostile_mcp_server.py");
    json!({ "command": "python3", "args": [script, mode, log] })
}

/// The process's resident memory now, in MiB.
fn rss_mib() -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").expect("/proc/self/status");
    let kib: f64 = status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .expect("VmRSS in /proc/self/status");
    kib / 1024.0
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_that_pages_forever_is_cut_off_at_a_cap() {
    let _no_leaks = NoLeaks::for_this_test();
    let dir = temp_dir();
    let log = dir.path().join("log");
    let before = rss_mib();
    let started = std::time::Instant::now();
    let (registry, servers, problems) = connect(
        json!({ "h": hostile("endless", &log) }),
        McpOptions::default(),
    )
    .await;
    assert_eq!(
        problems,
        ["mcp server `h`: not started: tools/list has more than 100 pages (the limit)"]
    );
    assert_eq!(registry.count(), 0);
    assert!(
        started.elapsed() < Duration::from_secs(20),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(
        log_lines(&log).len(),
        100,
        "no page past the cap is asked for"
    );
    let grown = rss_mib() - before;
    assert!(grown < 200.0, "RSS grew by {grown:.0} MiB");
    servers.shutdown().await;
    let limited = McpOptions::default().list_limits(100, 250, 16 << 20);
    let (_, servers, problems) = connect(json!({ "h": hostile("endless", &log) }), limited).await;
    assert_eq!(
        problems,
        ["mcp server `h`: not started: tools/list has more than 250 tools (the limit)"]
    );
    servers.shutdown().await;
    let limited = McpOptions::default().list_limits(100, 10_000, 50_000);
    let (_, servers, problems) = connect(json!({ "h": hostile("endless", &log) }), limited).await;
    assert_eq!(
        problems,
        ["mcp server `h`: not started: tools/list is longer than 50000 bytes (the limit)"]
    );
    servers.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_flood_of_list_changed_makes_one_relisting_at_a_time() {
    let _no_leaks = NoLeaks::for_this_test();
    let dir = temp_dir();
    let log = dir.path().join("log");
    let mut entry = hostile("flood", &log);
    entry["startupTimeoutMs"] = json!(20_000);
    let (registry, servers, problems) = connect(json!({ "h": entry }), McpOptions::default()).await;
    assert!(problems.is_empty(), "{problems:?}");
    assert!(registry.definition("h.only").is_some());
    eventually("the 10,000 notifications handled", || {
        log_lines(&log).iter().any(|l| l == "flood consumed")
    })
    .await;
    let lists = log_lines(&log)
        .iter()
        .filter(|l| l.starts_with("list "))
        .count();
    // The first listing, the re-listing left hanging, and at most one due
    // after it: not one per notification.
    assert!(lists <= 3, "{lists} listings");
    servers.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_malformed_entry_costs_only_its_tool() {
    let _no_leaks = NoLeaks::for_this_test();
    let dir = temp_dir();
    let log = dir.path().join("log");
    let (registry, servers, problems) = connect(
        json!({ "h": hostile("malformed", &log) }),
        McpOptions::default(),
    )
    .await;
    let names: Vec<String> = registry.definitions().into_iter().map(|d| d.name).collect();
    // An entry without `inputSchema` takes ptc's default, `{ "type": "object" }`.
    assert_eq!(names, ["h.first", "h.no_schema", "h.last"]);
    assert_eq!(problems.len(), 2, "{problems:#?}");
    assert_eq!(
        problems[0],
        "mcp server `h`: skipped tool entry 1 (`array_schema`): $.inputSchema: must be an object schema, got an array"
    );
    assert!(
        problems[1].starts_with(
            "mcp server `h`: skipped tool entry 2 (`number_description`): $.description"
        ),
        "{}",
        problems[1]
    );
    servers.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn broken_servers_do_not_keep_the_others_from_working() {
    let _no_leaks = NoLeaks::for_this_test();
    let dir = temp_dir();
    let log = dir.path().join("log");
    let not_executable = dir.path().join("server.sh");
    std::fs::write(&not_executable, "#!/bin/sh\n").unwrap();
    let refused = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.local_addr().unwrap().port()
    };
    let mut slow = hermetic("never-starts", &log);
    slow["startupTimeoutMs"] = json!(1500);
    let (registry, servers, problems) = connect(
        json!({
            "dies": hermetic("exit-at-start", &log),
            "noexec": { "command": not_executable },
            "web": { "url": format!("http://127.0.0.1:{refused}/mcp") },
            "slow": slow,
            "h": hermetic("tools", &log),
        }),
        McpOptions::default(),
    )
    .await;
    assert_eq!(problems.len(), 4, "{problems:#?}");
    assert!(problems[0].starts_with("mcp server `dies`: not started: "));
    assert!(
        problems[0].contains("no tools for you"),
        "the stderr tail: {}",
        problems[0]
    );
    assert!(problems[1].starts_with("mcp server `noexec`: not started: cannot start"));
    assert!(problems[1].contains("ermission denied"), "{}", problems[1]);
    assert!(problems[2].starts_with("mcp server `web`: not started: cannot initialize"));
    assert!(
        problems[2].contains("error sending request for url"),
        "{}",
        problems[2]
    );
    assert!(
        !problems[2].contains("rmcp::"),
        "no Rust type names: {}",
        problems[2]
    );
    assert_eq!(
        problems[3],
        "mcp server `slow`: not started: did not start within 1500 ms"
    );
    assert!(
        registry
            .definitions()
            .iter()
            .all(|d| d.name.starts_with("h."))
    );
    let outcome = run(&registry, r#"return await tools["h.echo"]({ text: "ok" })"#).await;
    assert_eq!(outcome.text(), "{\"text\":\"ok\"}");
    servers.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn destructive_tools_ask_when_the_config_says_so() {
    let _no_leaks = NoLeaks::for_this_test();
    let log = temp_dir();
    let log = log.path().join("log");
    let mut entry = hermetic("tools", &log);
    entry["askDestructive"] = json!(true);
    entry["callTimeoutMs"] = json!(60000);
    let (registry, servers, _) = connect(json!({ "h": entry }), McpOptions::default()).await;
    let wipe = registry.definition("h.wipe").unwrap();
    assert_eq!((wipe.policy, wipe.timeout_ms), (Policy::Ask, Some(60000)));
    assert_eq!(
        registry.definition("h.weather").unwrap().policy,
        Policy::Allow
    );
    let outcome = run(
        &registry,
        r#"try { await tools["h.wipe"]({}) } catch (err) { return err.code }"#,
    )
    .await;
    assert_eq!(
        outcome.text(),
        ErrorCode::Denied.as_str(),
        "no approver: asking is refused"
    );
    assert!(!log_lines(&log).iter().any(|l| l == "wiped"));
    servers.shutdown().await;
}

/// Issue 41: the operator says per tool (by name or pattern) what ptc does
/// with an upstream server's tools, whatever their hints; a denied tool is
/// not offered at all, and the SDK marks the tools that will ask.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_config_sets_each_tools_policy_and_the_sdk_says_which_ask() {
    let _no_leaks = NoLeaks::for_this_test();
    let log = temp_dir();
    let log = log.path().join("log");
    let mut entry = hermetic("tools", &log);
    entry["askDestructive"] = json!(true);
    entry["policy"] = json!({ "wipe": "allow", "e*o": "ask", "*_tool": "deny" });
    let (registry, servers, _) = connect(json!({ "h": entry }), McpOptions::default()).await;
    let policy = |name: &str| registry.definition(name).map(|d| d.policy);
    assert_eq!(
        policy("h.wipe"),
        Some(Policy::Allow),
        "the config over the hint"
    );
    assert_eq!(policy("h.echo"), Some(Policy::Ask));
    assert_eq!(policy("h.weather"), Some(Policy::Allow));
    assert_eq!(policy("h.add_tool"), None, "denied: not offered");
    assert_eq!(policy("h.remove_tool"), None);

    let engine = Engine::new(registry.clone(), Limits::default()).unwrap();
    let sdk = engine.presentation(&registry.scope(), None).sdk;
    assert!(
        sdk.contains(
            " /** Echoes its arguments.\n  * Call: tools[\"h.echo\"](args)\n  * Asks the user to approve each call first.\n  * @readonly"
        ),
        "{sdk}"
    );
    assert!(!sdk.contains("add_tool"), "{sdk}");
    registry.set_language(ptc::Language::Python);
    let stubs = engine.presentation(&registry.scope(), None).sdk;
    assert!(
        stubs
            .contains("Echoes its arguments.\n\n        Asks the user to approve each call first."),
        "{stubs}"
    );
    let outcome = run(
        &registry,
        r#"try { await tools["h.echo"]({}) } catch (err) { return err.code }"#,
    )
    .await;
    assert_eq!(
        outcome.text(),
        ErrorCode::Denied.as_str(),
        "no approver: asking is refused"
    );
    servers.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_that_cannot_restart_fails_calls_and_backs_off() {
    let _no_leaks = NoLeaks::for_this_test();
    let log = temp_dir();
    let log = log.path().join("log");
    let options =
        McpOptions::default().restart_delays(Duration::from_secs(600), Duration::from_secs(600));
    let (registry, servers, _) = connect(json!({ "h": hermetic("once", &log) }), options).await;
    let outcome = run(
        &registry,
        r#"
        const messages = []
        for (const tool of ["h.crash", "h.echo", "h.echo"]) {
            try { await tools[tool]({}) } catch (err) { messages.push(err.code + " " + err.message) }
        }
        return messages.join("\n---\n")
        "#,
    )
    .await;
    let text = outcome.text();
    let messages: Vec<&str> = text.split("\n---\n").collect();
    assert_eq!(messages.len(), 3, "{text}");
    assert!(
        messages[0].starts_with("TOOL_ERROR mcp server `h` failed during the call"),
        "{text}"
    );
    assert!(
        messages[1].starts_with("TOOL_ERROR mcp server `h` cannot be restarted: cannot initialize"),
        "{text}"
    );
    assert!(
        messages[1].contains("no second life"),
        "the stderr tail: {text}"
    );
    assert!(
        messages[2].starts_with("TOOL_ERROR mcp server `h` is down (cannot initialize"),
        "{text}"
    );
    assert!(messages[2].ends_with("next restart in 600 s"), "{text}");
    servers.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_streamable_http_server_serves_with_its_headers() {
    let _no_leaks = NoLeaks::for_this_test();
    let url = server::serve_http().await;
    // Built in code, as a host would.
    let mut config = McpConfig::default();
    let headers = [("X-Test".to_owned(), "sent".to_owned())].into();
    let web = McpServerConfig::new(McpTransport::Http { url, headers });
    config.servers.insert("web".to_owned(), web);
    let registry = Registry::new();
    let (servers, problems) = ptc::connect(&config, &registry, McpOptions::default()).await;
    assert!(problems.is_empty(), "{problems:?}");
    let outcome = run(
        &registry,
        r#"return [await tools["web.weather"]({ city: "Lima" }), await tools["web.header"]({})]"#,
    )
    .await;
    assert_eq!(outcome.text(), "[{\"temp\":21,\"city\":\"Lima\"},\"sent\"]");
    servers.shutdown().await;
}

/// A listener on loopback that answers every request with `status` and
/// `Location: <to>`; its address.
async fn redirecting(status: &'static str, to: String) -> std::net::SocketAddr {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        while let Ok((mut stream, _)) = listener.accept().await {
            let to = to.clone();
            tokio::spawn(async move {
                // The head, then as much body as it announces.
                let mut read = Vec::new();
                let mut chunk = [0u8; 4096];
                loop {
                    let Ok(n) = stream.read(&mut chunk).await else {
                        return;
                    };
                    if n == 0 {
                        return;
                    }
                    read.extend_from_slice(&chunk[..n]);
                    let text = String::from_utf8_lossy(&read).to_ascii_lowercase();
                    if let Some(end) = text.find("\r\n\r\n") {
                        let length: usize = text[..end]
                            .lines()
                            .find_map(|l| l.strip_prefix("content-length:"))
                            .map_or(0, |v| v.trim().parse().unwrap());
                        if read.len() >= end + 4 + length {
                            break;
                        }
                    }
                }
                let answer = format!(
                    "HTTP/1.1 {status}\r\nLocation: {to}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
                );
                let _ = stream.write_all(answer.as_bytes()).await;
            });
        }
    });
    addr
}

/// docs/mcp.md, Errors: over HTTP, ptc does not follow redirects; a `3xx`
/// fails the request with its status. A server whose URL answers 307 or
/// 302 to a second listener is not started, and the second listener is
/// never reached.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn http_redirects_are_not_followed() {
    for status in ["307 Temporary Redirect", "302 Found"] {
        let elsewhere = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let target = format!("http://{}/mcp", elsewhere.local_addr().unwrap());
        let reached = Arc::new(AtomicUsize::new(0));
        let counter = Arc::clone(&reached);
        let second = tokio::spawn(async move {
            while let Ok((stream, _)) = elsewhere.accept().await {
                counter.fetch_add(1, Ordering::SeqCst);
                drop(stream);
            }
        });
        let first = redirecting(status, target).await;
        let url = format!("http://{first}/mcp");
        let mut config = McpConfig::default();
        let web = McpServerConfig::new(McpTransport::Http {
            url,
            headers: Default::default(),
        });
        config.servers.insert("web".to_owned(), web);
        let registry = Registry::new();
        let (servers, problems) = ptc::connect(&config, &registry, McpOptions::default()).await;
        servers.shutdown().await;
        assert_eq!(
            reached.load(Ordering::SeqCst),
            0,
            "{status}: the redirect was followed"
        );
        let problems: Vec<String> = problems.iter().map(ToString::to_string).collect();
        let code = &status[..3];
        assert!(
            problems.len() == 1
                && problems[0].starts_with("mcp server `web`: not started: ")
                && problems[0].contains(&format!("HTTP {code}")),
            "{status}: {problems:?}"
        );
        assert_eq!(registry.count(), 0);
        second.abort();
    }
}

// ---------------------------------------------------------- the binary

fn ptc(args: &[&str]) -> std::process::Output {
    crate::common::output(
        std::process::Command::new(env!("CARGO_BIN_EXE_ptc"))
            .args(args)
            .current_dir(env!("CARGO_MANIFEST_DIR")),
    )
}

fn write_config(dir: &Path, servers: Value) -> PathBuf {
    let path = dir.join("mcp.json");
    let mut file = std::fs::File::create(&path).unwrap();
    write!(file, "{}", json!({ "mcpServers": servers })).unwrap();
    path
}

#[test]
fn ptc_run_with_mcp_config_end_to_end() {
    let dir = temp_dir();
    let log = dir.path().join("log");
    let config = write_config(
        dir.path(),
        json!({ "h": hermetic("tools", &log), "gone": { "command": "/nonexistent/server" } }),
    );
    let out = ptc(&[
        "run",
        "--mcp-config",
        config.to_str().unwrap(),
        "-e",
        r#"let code
           try { await tools.read_file({ path: "README.md" }) } catch (err) { code = err.code }
           return [await tools["h.echo"]({ text: "via ptc" }), code]"#,
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).trim(),
        "[{\"text\":\"via ptc\"},\"UNKNOWN_TOOL\"]",
        "no workspace tools without --workspace"
    );
    assert_eq!(
        stderr.trim(),
        "ptc: warning: mcp server `gone`: not started: cannot start `/nonexistent/server`: No such file or directory (os error 2)"
    );
    eventually_sync("the server's clean exit", || {
        log_lines(&log).iter().any(|l| l == "stdin closed")
    });
}

fn eventually_sync(what: &str, mut check: impl FnMut() -> bool) {
    let start = std::time::Instant::now();
    while !check() {
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "timed out waiting for {what}"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
}

#[test]
fn bad_configs_say_what_is_wrong_one_line_each() {
    let dir = temp_dir();
    let config = write_config(
        dir.path(),
        json!({
            "a": { "command": "x", "cwdd": "/" },
            "b": { "url": "http://x", "command": "y" },
            "c d": { "command": "z" },
        }),
    );
    let out = ptc(&["sdk", "--mcp-config", config.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "ptc: mcp config: server `a`: unknown key `cwdd`\n\
         ptc: mcp config: server `b`: give either `command` or `url`, not both\n\
         ptc: mcp config: server `c d`: the name must be 1-32 characters of A-Z a-z 0-9 _ -\n"
    );
}

#[test]
fn ptc_sdk_shows_the_servers_tools_grouped() {
    let dir = temp_dir();
    let log = dir.path().join("log");
    let config = write_config(
        dir.path(),
        json!({ "h": hermetic("tools", &log), "odd": hermetic("hostile", &log) }),
    );
    let out = ptc(&[
        "sdk",
        "--format",
        "ts",
        "--mcp-config",
        config.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let golden = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden/sdk/mcp-hermetic.d.ts");
    let text = String::from_utf8(out.stdout).unwrap();
    if std::env::var("UPDATE_EXPECT").as_deref() == Ok("1") {
        std::fs::write(&golden, &text).unwrap();
    }
    let expected =
        std::fs::read_to_string(&golden).expect("the golden (UPDATE_EXPECT=1 writes it)");
    assert!(
        expected == text,
        "ptc sdk differs from {}:\n{text}",
        golden.display()
    );
    assert!(text.contains(" // h: 12 tools\n"));
    assert!(text.contains(" // odd: 2 tools\n"));
}

// ---------------------------------------------------------- the server itself

/// The hermetic MCP server (see the module docs); a no-op unless started
/// by a test with `PTC_MCP_TEST_SERVER` set.
#[test]
#[ignore = "an MCP server the other tests start"]
fn hermetic_server() {
    let Ok(mode) = std::env::var("PTC_MCP_TEST_SERVER") else {
        return;
    };
    let log = std::env::var_os("PTC_MCP_TEST_LOG").map(PathBuf::from);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(server::serve(&mode, log));
}

mod server {
    //! The hermetic server: a tool list per mode, each tool one behaviour.

    use super::*;
    use rmcp::model::{
        CallToolRequestParams, CallToolResponse, CallToolResult, CancelledNotificationParam,
        InitializeResult, ListToolsResult, PaginatedRequestParams,
    };
    use rmcp::service::{NotificationContext, RequestContext};
    use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt};
    use std::os::fd::FromRawFd;
    use std::sync::Mutex;

    /// How many tools a `tools/list` page holds: the client must follow
    /// `nextCursor`.
    const PAGE: usize = 5;

    #[derive(Clone)]
    struct Hermetic {
        tools: Arc<Mutex<Vec<Value>>>,
        meeting: Arc<AtomicUsize>,
        met: Arc<tokio::sync::Notify>,
        log: Option<PathBuf>,
    }

    impl Hermetic {
        fn log(&self, line: &str) {
            if let Some(path) = &self.log {
                let mut file = std::fs::OpenOptions::new()
                    .create(true)
                    .append(true)
                    .open(path)
                    .unwrap();
                writeln!(file, "{line}").unwrap();
            }
        }
    }

    fn tools_for(mode: &str) -> Vec<Value> {
        let any = json!({ "type": "object" });
        let tool = |name: &str| json!({ "name": name, "inputSchema": any });
        match mode {
            "hostile" => vec![
                tool("has space"),
                tool(&"x".repeat(130)),
                tool("fine"),
                tool("slash/name"),
                json!({ "name": "bad_schema", "inputSchema": { "type": "object", "properties": { "a": { "type": 5 } } } }),
                json!({ "name": "comment", "description": "ends */ declare const x: 1; /*", "inputSchema": any }),
            ],
            "http" => vec![
                json!({ "name": "weather", "inputSchema": any }),
                tool("header"),
            ],
            _ => vec![
                json!({ "name": "echo", "description": "Echoes its arguments.", "inputSchema": any,
                        "annotations": { "readOnlyHint": true } }),
                json!({ "name": "weather", "description": "Weather, structured.",
                        "inputSchema": { "type": "object", "properties": { "city": { "type": "string" } }, "required": ["city"] },
                        "outputSchema": { "type": "object", "properties": { "temp": { "type": "number" }, "city": { "type": "string" } }, "required": ["temp"] },
                        "annotations": { "readOnlyHint": true } }),
                tool("text"),
                tool("image"),
                tool("fails"),
                json!({ "name": "meet", "inputSchema": any, "annotations": { "readOnlyHint": true } }),
                tool("crash"),
                tool("hang"),
                tool("add_tool"),
                tool("remove_tool"),
                json!({ "name": "wipe", "inputSchema": any, "annotations": { "destructiveHint": true } }),
                json!({ "name": "look", "inputSchema": any, "annotations": { "readOnlyHint": true, "destructiveHint": false } }),
            ],
        }
    }

    fn result(value: Value) -> Result<CallToolResponse, ErrorData> {
        Ok(CallToolResponse::Complete(
            serde_json::from_value::<CallToolResult>(value).unwrap(),
        ))
    }

    fn text(t: &str) -> Value {
        json!({ "type": "text", "text": t })
    }

    impl Hermetic {
        async fn meet(&self) -> Result<CallToolResponse, ErrorData> {
            let met = self.met.notified();
            tokio::pin!(met);
            met.as_mut().enable();
            let arrived = self.meeting.fetch_add(1, Ordering::SeqCst) + 1;
            if arrived == 2 {
                self.met.notify_waiters();
            } else {
                // A liveness bound: serialized calls would never meet.
                if tokio::time::timeout(Duration::from_secs(30), met)
                    .await
                    .is_err()
                {
                    return result(json!({ "content": [text("\"alone\"")] }));
                }
            }
            result(json!({ "content": [text("\"met\"")] }))
        }

        async fn change_tools(
            &self,
            args: &Value,
            add: bool,
            cx: &RequestContext<RoleServer>,
        ) -> Result<CallToolResponse, ErrorData> {
            let name = args["name"].as_str().unwrap_or_default().to_owned();
            {
                let mut tools = self.tools.lock().unwrap();
                tools.retain(|t| t["name"] != name.as_str());
                if add {
                    tools.push(json!({ "name": name, "inputSchema": { "type": "object" } }));
                }
            }
            cx.peer.notify_tool_list_changed().await.unwrap();
            result(json!({ "content": [] }))
        }
    }

    impl ServerHandler for Hermetic {
        fn get_info(&self) -> InitializeResult {
            serde_json::from_value(json!({
                "protocolVersion": "2025-11-25",
                "capabilities": { "tools": { "listChanged": true } },
                "serverInfo": { "name": "hermetic", "version": "1" }
            }))
            .unwrap()
        }

        async fn list_tools(
            &self,
            request: Option<PaginatedRequestParams>,
            _cx: RequestContext<RoleServer>,
        ) -> Result<ListToolsResult, ErrorData> {
            let tools = self.tools.lock().unwrap().clone();
            let from: usize = request
                .and_then(|r| r.cursor)
                .map_or(0, |c| c.parse().unwrap());
            let to = (from + PAGE).min(tools.len());
            let mut page = json!({ "tools": tools[from..to] });
            if to < tools.len() {
                page["nextCursor"] = json!(to.to_string());
            }
            Ok(serde_json::from_value(page).unwrap())
        }

        async fn call_tool(
            &self,
            request: CallToolRequestParams,
            cx: RequestContext<RoleServer>,
        ) -> Result<CallToolResponse, ErrorData> {
            let args = Value::Object(request.arguments.clone().unwrap_or_default());
            match &*request.name {
                "echo" | "late" => {
                    self.log(&format!("call {}", request.name));
                    result(json!({ "content": [text(&args.to_string())] }))
                }
                "weather" => result(json!({ "content": [text("21 degrees")],
                    "structuredContent": { "temp": 21, "city": args["city"] } })),
                "text" => result(json!({ "content": [text("line one"), text("line two")] })),
                "image" => result(json!({ "content": [text("a red dot"),
                    { "type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png" }] })),
                "fails" => result(json!({ "content": [text("it went wrong")], "isError": true })),
                "meet" => self.meet().await,
                "crash" => {
                    eprintln!("hermetic: crashing on purpose");
                    std::process::exit(3);
                }
                "hang" => {
                    self.log(&format!("hang {}", cx.id));
                    std::future::pending().await
                }
                "header" => {
                    let parts = cx.extensions.get::<http::request::Parts>();
                    let value = parts.and_then(|p| p.headers.get("x-test")?.to_str().ok());
                    result(json!({ "content": [text(&json!(value).to_string())] }))
                }
                "add_tool" => self.change_tools(&args, true, &cx).await,
                "remove_tool" => self.change_tools(&args, false, &cx).await,
                "wipe" => {
                    self.log("wiped");
                    result(json!({ "content": [] }))
                }
                _ => result(json!({ "content": [text("null")] })),
            }
        }

        async fn on_cancelled(
            &self,
            notification: CancelledNotificationParam,
            _cx: NotificationContext<RoleServer>,
        ) {
            let id = notification.request_id.map(|id| id.to_string());
            self.log(&format!("cancelled {}", id.unwrap_or_default()));
        }
    }

    fn hermetic(mode: &str, log: Option<PathBuf>) -> Hermetic {
        Hermetic {
            tools: Arc::new(Mutex::new(tools_for(mode))),
            meeting: Arc::new(AtomicUsize::new(0)),
            met: Arc::new(tokio::sync::Notify::new()),
            log,
        }
    }

    /// The server on streamable HTTP, in this process; its URL.
    pub(super) async fn serve_http() -> String {
        use rmcp::transport::StreamableHttpService;
        use rmcp::transport::streamable_http_server::StreamableHttpServerConfig;
        use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
        let server = hermetic("http", None);
        let service = StreamableHttpService::new(
            move || Ok(server.clone()),
            Arc::new(LocalSessionManager::default()),
            StreamableHttpServerConfig::default(),
        );
        let router = axum::Router::new().nest_service("/mcp", service);
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}/mcp", listener.local_addr().unwrap());
        tokio::spawn(async move { axum::serve(listener, router).await });
        url
    }

    pub(super) async fn serve(mode: &str, log: Option<PathBuf>) {
        let server = hermetic(mode, log);
        let earlier = server
            .log
            .as_ref()
            .and_then(|l| std::fs::read_to_string(l).ok())
            .is_some_and(|l| l.contains("started"));
        match mode {
            "once" if earlier => {
                eprintln!("hermetic: no second life");
                std::process::exit(1);
            }
            "exit-at-start" => {
                eprintln!("hermetic: no tools for you");
                std::process::exit(1);
            }
            "never-starts" => std::future::pending::<()>().await,
            _ => {}
        }
        server.log("started");
        // SAFETY: the test that started this process opened fd 3 for it.
        let out = unsafe { std::fs::File::from_raw_fd(3) };
        let transport = (tokio::io::stdin(), tokio::fs::File::from(out));
        let running = server.clone().serve(transport).await.unwrap();
        let _ = running.waiting().await;
        server.log("stdin closed");
    }
}

//! `ptc mcp` between the official MCP Python client (`tests/mcp_client/
//! drive.py`) and an upstream server (`tests/data/relay_mcp_server.py`):
//! what an upstream server says reaches the program or the client.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{Value, json};

use crate::mcp_server::{drive, texts};

fn relay_server() -> Value {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/relay_mcp_server.py");
    json!({ "command": "python3", "args": [script] })
}

/// A config with the relay server as `relay`, in a fresh directory.
fn relay_config() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("mcp.json");
    let config = json!({ "mcpServers": { "relay": relay_server() } });
    std::fs::write(&path, config.to_string()).unwrap();
    (dir, path)
}

/// `ptc mcp --mcp-config <relay>` as the driver's server, the plan's
/// scenario starting once `relay.report` is listed.
fn plan(config: &Path, mut scenario: Value) -> Value {
    scenario["stdio"] = json!({
        "command": env!("CARGO_BIN_EXE_ptc"),
        "args": ["mcp", "--mcp-config", config],
    });
    if scenario.get("untilListed").is_none() {
        scenario["untilListed"] = json!(["relay.report"]);
    }
    scenario
}

/// `run_code` of `code` by a client that answers elicitations `answer`
/// (with `content`, after `delay` seconds), once `relay.ask` is listed.
fn eliciting(code: &str, timeout_ms: u64, answer: &str, content: Value, delay: f64) -> Value {
    json!({ "scenario": "elicit", "name": "run_code",
            "arguments": { "code": code, "description": "test", "timeoutMs": timeout_ms },
            "answer": answer, "content": content, "answerDelay": delay,
            "untilListed": ["relay.ask"] })
}

fn run_code(code: &str) -> Value {
    json!({ "scenario": "call", "name": "run_code",
            "arguments": { "code": code, "description": "test" } })
}

/// The one text the program returned, as JSON.
fn returned(answer: &Value) -> Value {
    let result = &answer["result"];
    assert_eq!(result["isError"], false, "{answer}");
    serde_json::from_str(texts(result)[0]).unwrap_or_else(|e| panic!("{e}: {answer}"))
}

#[test]
fn resource_links_reach_the_program() {
    let (_dir, config) = relay_config();
    let code = r#"return JSON.stringify(await tools["relay.links"]({}))"#;
    let answer = drive(plan(&config, run_code(code)));
    assert_eq!(
        returned(&answer),
        json!({ "text": "2 matches", "resourceLinks": [
            { "uri": "file:///docs/a.md", "name": "a.md", "mimeType": "text/markdown" },
            { "uri": "file:///docs/b.md", "name": "b.md" }
        ] })
    );
}

/// Blocks of the wrong shape among good ones (a link without a `uri`, one
/// whose `uri` is a number, a text block without text) are passed over:
/// the call keeps its text and its other links.
#[test]
fn a_malformed_resource_link_is_passed_over_and_the_others_kept() {
    let (_dir, config) = relay_config();
    let code = r#"return JSON.stringify(await tools["relay.odd_links"]({}))"#;
    let answer = drive(plan(&config, run_code(code)));
    assert_eq!(
        returned(&answer),
        json!({ "text": "2 matches", "resourceLinks": [
            { "uri": "file:///docs/a.md", "name": "a.md" },
            { "uri": "file:///docs/b.md", "name": "b.md" }
        ] })
    );
}

#[test]
fn tools_that_require_tasks_are_left_out_with_a_warning() {
    let (_dir, config) = relay_config();
    let answer = drive(plan(&config, json!({ "scenario": "list" })));
    let description = answer["tools"][0]["description"].as_str().unwrap();
    assert!(description.contains("relay.may_task"), "{description}");
    assert!(!description.contains("needs_task"), "{description}");
    // This client cannot elicit, so ptc does not declare elicitation
    // upstream: a tool offered only to clients that can stays hidden.
    assert!(!description.contains("relay.ask"), "{description}");

    let sdk = crate::common::output(
        Command::new(env!("CARGO_BIN_EXE_ptc"))
            .args(["sdk", "--mcp-config"])
            .arg(&config),
    );
    let (stdout, stderr) = (
        String::from_utf8_lossy(&sdk.stdout),
        String::from_utf8_lossy(&sdk.stderr),
    );
    assert!(sdk.status.success(), "{stderr}");
    assert!(stdout.contains("relay.may_task") && !stdout.contains("needs_task"));
    assert!(
        stderr.contains(
            "mcp server `relay`: skipped tool `needs_task`: it can only be called as an MCP task \
             (execution.taskSupport: \"required\"), which ptc does not do"
        ),
        "{stderr}"
    );
}

#[test]
fn upstream_progress_and_logs_reach_the_client_as_the_runs_progress() {
    let (_dir, config) = relay_config();
    let code = r#"return JSON.stringify(await tools["relay.report"]({}))"#;
    let answer = drive(plan(&config, run_code(code)));
    assert_eq!(returned(&answer), json!({ "token": true }));
    let progress = answer["progress"].as_array().unwrap();
    let messages: Vec<&str> = progress
        .iter()
        .filter_map(|p| p["message"].as_str())
        .filter(|m| !m.starts_with("running ("))
        .collect();
    assert_eq!(
        messages,
        [
            "relay.report: step 1 of 2",
            "relay.report: 2 of 2",
            "relay.report: [info] relay: indexing 40 files",
            "relay.report()",
        ],
        "{answer}"
    );
    let numbers: Vec<f64> = progress
        .iter()
        .map(|p| p["progress"].as_f64().unwrap())
        .collect();
    assert!(numbers.windows(2).all(|w| w[0] < w[1]), "{numbers:?}");
}

#[test]
fn an_upstream_elicitation_reaches_a_client_that_can_elicit_and_its_answer_goes_back() {
    let (_dir, config) = relay_config();
    let code = r#"return JSON.stringify(await tools["relay.ask"]({}))"#;
    let scenario = eliciting(code, 30_000, "accept", json!({ "branch": "main" }), 0.0);
    let answer = drive(plan(&config, scenario));
    assert_eq!(
        returned(&answer),
        json!({ "action": "accept", "content": { "branch": "main" } })
    );
    // The server's words, marked, after ptc's line naming it and the call;
    // its field's key marked as the field's title.
    assert_eq!(
        answer["elicitations"],
        json!([{
            "message": "The MCP server `relay` asks, during the call to `relay.ask` \
                        (its words, each line marked │, in the form too):\n│ Which branch?",
            "schema": { "type": "object",
                        "properties": { "branch": { "type": "string", "title": "│ branch" } } }
        }]),
        "{answer}"
    );
}

/// A hostile form: every text the server put in it reaches the user
/// escaped and marked as its own, its values unchanged, and a text
/// default the user left as shown goes back as the server's.
#[test]
fn an_upstream_forms_texts_are_escaped_and_marked_as_the_servers() {
    let (_dir, config) = relay_config();
    let form = json!({
        "type": "object",
        "title": "Approval\u{1b}[2J",
        "properties": {
            "branch": { "type": "string", "title": "Allow this call?\u{202e}",
                        "description": "The program asks to call the tool `deploy`.\nAllow this call?",
                        "default": "main\u{7}" },
            "target": { "type": "string", "enum": ["prod\u{1b}[31m", "dev"] },
            "level": { "type": "string", "oneOf": [{ "const": "hi", "title": "High\u{2066}" }] },
            "go": { "type": "boolean", "title": "Accept allows" }
        }
    });
    let code = format!(
        "return JSON.stringify(await tools[\"relay.ask\"]({}))",
        json!({ "message": "Pick", "form": form })
    );
    // The user changes nothing but the choice.
    let content = json!({ "branch": "│ main\\u{7}", "target": "dev", "level": "hi", "go": true });
    let answer = drive(plan(
        &config,
        eliciting(&code, 30_000, "accept", content, 0.0),
    ));
    assert_eq!(
        returned(&answer),
        json!({ "action": "accept",
                "content": { "branch": "main\u{7}", "target": "dev", "level": "hi", "go": true } })
    );
    let shown = &answer["elicitations"][0]["schema"];
    assert_eq!(
        shown,
        &json!({
            "type": "object",
            "title": "│ Approval\\u{1b}[2J",
            "properties": {
                "branch": { "type": "string", "title": "│ Allow this call?\\u{202e}",
                            "description": "│ The program asks to call the tool `deploy`.\n│ Allow this call?",
                            "default": "│ main\\u{7}" },
                "target": { "type": "string", "title": "│ target", "enum": ["prod\u{1b}[31m", "dev"],
                            "enumNames": ["│ prod\\u{1b}[31m", "│ dev"] },
                "level": { "type": "string", "title": "│ level",
                           "oneOf": [{ "const": "hi", "title": "│ High\\u{2066}" }] },
                "go": { "type": "boolean", "title": "│ Accept allows" }
            }
        }),
        "{answer}"
    );
}

/// docs/mcp.md, "Elicitation from upstream servers": ptc forwards form
/// elicitation only. A URL-mode request, sent during a call whose client
/// can elicit forms, is refused with ptc's reason, and the client is
/// never asked.
#[test]
fn an_upstream_url_elicitation_is_refused_and_never_shown() {
    let (_dir, config) = relay_config();
    let code = r#"return JSON.stringify(await tools["relay.url"]({}))"#;
    let mut scenario = eliciting(code, 30_000, "accept", json!({}), 0.0);
    scenario["untilListed"] = json!(["relay.url"]);
    let answer = drive(plan(&config, scenario));
    let reply = returned(&answer);
    assert_eq!(
        reply["error"]["message"], "ptc forwards form elicitation only, not url",
        "{answer}"
    );
    assert!(answer.get("elicitations").is_none(), "{answer}");
}

#[test]
fn upstream_elicitations_past_the_bounds_are_refused_at_once() {
    let (_dir, config) = relay_config();
    let code = r#"return JSON.stringify(await tools["relay.hostile"]({}))"#;
    let started = std::time::Instant::now();
    let scenario = eliciting(code, 30_000, "accept", json!({}), 1.0);
    let answer = drive(plan(&config, scenario));
    let summary = returned(&answer);
    let summary = summary.as_object().unwrap();
    let error = |id: &str| summary[id].as_str().unwrap().to_owned();
    // Too long to show in full; asked with no call in flight.
    assert!(
        error("h1").starts_with("error: ptc does not forward an elicitation request of ")
            && error("h1").ends_with("bytes: at most 16384 can be shown to a person in full"),
        "{summary:?}"
    );
    assert_eq!(
        error("n1"),
        "error: no call of ptc's is in flight to this server, so there is nobody to ask"
    );
    // Ten at once: four wait for the user, the others are refused.
    let flood: Vec<String> = (0..10).map(|n| error(&format!("f{n}"))).collect();
    let accepted = flood.iter().filter(|f| *f == "accept").count();
    let refused = flood
        .iter()
        .filter(|f| *f == "error: 4 elicitation requests of this server already wait for the user")
        .count();
    assert_eq!((accepted, refused), (4, 6), "{flood:?}");
    assert_eq!(answer["elicitations"].as_array().unwrap().len(), 4);
    assert!(started.elapsed() < std::time::Duration::from_secs(25));
}

#[test]
fn a_pending_upstream_elicitation_ends_with_the_runs_deadline() {
    let (_dir, config) = relay_config();
    let code = r#"return JSON.stringify(await tools["relay.ask"]({}))"#;
    // The user would answer after a minute.
    let mut scenario = eliciting(code, 1_500, "accept", json!({}), 60.0);
    scenario["after"] = json!(r#"return JSON.stringify(await tools["relay.replies"]({}))"#);
    let answer = drive(plan(&config, scenario));
    assert_eq!(
        answer["result"]["structuredContent"]["kind"], "timeout",
        "{answer}"
    );
    // The answer came at the deadline, not when the user answered (a
    // liveness bound, half the user's minute).
    let seconds = answer["seconds"].as_f64().unwrap();
    assert!(seconds < 30.0, "the run waited for the user: {seconds} s");
    // And the server was told then, not left waiting for the user.
    assert_eq!(answer["after"]["isError"], false, "{answer}");
    let replies: Value = serde_json::from_str(texts(&answer["after"])[0]).unwrap();
    let e1 = replies["e1"].as_str().unwrap_or_default();
    assert!(
        e1.starts_with("error: the call to `relay.ask` "),
        "{replies}"
    );
}

/// The official `everything` server offers `trigger-elicitation-request`
/// only to clients that declared elicitation: through ptc, to a client
/// that can elicit, it is listed, and the user's answer reaches it.
#[test]
fn the_everything_servers_elicitation_tool_works_through_ptc() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("mcp.json");
    let everything = crate::mcp_sources::npm_server("mcp-server-everything");
    let servers = json!({ "mcpServers": { "everything": { "command": everything } } });
    std::fs::write(&config, servers.to_string()).unwrap();
    let code = r#"return await tools["everything.trigger-elicitation-request"]({})"#;
    let mut scenario = eliciting(
        code,
        30_000,
        "accept",
        json!({ "name": "Ada Lovelace", "check": true }),
        0.0,
    );
    scenario["untilListed"] = json!(["everything.trigger-elicitation-request"]);
    let answer = drive(plan(&config, scenario));
    let result = &answer["result"];
    assert_eq!(result["isError"], false, "{answer}");
    let text = texts(result).join("\n");
    assert!(
        text.contains("User provided the requested information")
            && text.contains("- Name: Ada Lovelace")
            && text.contains("- Agreed to terms: true"),
        "{text}"
    );
    let asked = answer["elicitations"][0]["message"].as_str().unwrap();
    assert!(
        asked.starts_with("The MCP server `everything` asks, during the call to `everything.trigger-elicitation-request`"),
        "{asked}"
    );
}

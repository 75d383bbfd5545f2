//! How calls read to people (contracts §2, titles): templates and Rust
//! title functions in `started`/`settled` events and approval requests,
//! the default title, hostile values, and titles that never fail a call.

use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use ptc::{
    Approval, ApprovalRequest, Engine, Limits, Policy, RegistrationError, Registry, RunEvent,
    RunEventKind, RunOptions, RunRequest, Tool, ToolContext, ToolDefinition, ToolError,
    parse_manifest, workspace_tools,
};
use serde_json::{Value, json};

/// A tool that answers `{ echo: <arguments>, lines: <their `n`, if any> }`.
fn tool(definition: ToolDefinition) -> Tool {
    Tool::new(
        definition.read_only(true),
        |args: Value, _: ToolContext| async move {
            let mut answer = json!({ "echo": args });
            if let Some(n) = answer["echo"].get("n").cloned() {
                answer["lines"] = n;
            }
            Ok::<_, ToolError>(answer)
        },
    )
}

fn engine(tools: Vec<Tool>) -> Engine {
    let registry = Registry::new();
    registry.add_all(tools).unwrap();
    Engine::new(registry, Limits::default()).unwrap()
}

/// Runs `code`, returning its text and the `(started, settled)` titles in
/// the order the events came.
async fn titles(engine: &Engine, code: &str) -> (String, Vec<(String, String)>) {
    let events: Arc<Mutex<Vec<RunEvent>>> = Arc::default();
    let sink = Arc::clone(&events);
    let options = RunOptions::default().events(move |e: RunEvent| sink.lock().unwrap().push(e));
    let outcome = engine
        .run_code(RunRequest::new(code), options)
        .await
        .unwrap();
    let mut started = Vec::new();
    let mut pairs = Vec::new();
    for event in events.lock().unwrap().drain(..) {
        match event.kind {
            RunEventKind::Started { id, title, .. } => started.push((id, title)),
            RunEventKind::Settled { id, title, .. } => {
                let (_, call) = started.iter().find(|(s, _)| *s == id).unwrap().clone();
                pairs.push((call, title));
            }
            _ => {}
        }
    }
    (outcome.text().to_owned(), pairs)
}

fn pair(call: &str, result: &str) -> (String, String) {
    (call.to_owned(), result.to_owned())
}

#[tokio::test]
async fn templates_title_calls_and_results_and_missing_fields_fall_back() {
    let engine = engine(vec![
        tool(
            ToolDefinition::new("read")
                .call_title_template("Read {path}")
                .result_title_template("Read {path} ({result.lines} lines) {{ok}}"),
        ),
        tool(ToolDefinition::new("plain")),
    ]);
    let code = r#"
        await tools.read({ path: "src/lib.rs", n: 412 })
        await tools.read({ path: "a.md" })
        await tools.read({ file: "b.md", n: 1 })
        await tools.plain({ query: "bug", limit: 5 })
        try { await tools.nope({ x: [1] }) } catch {}
        return "done""#;
    let (text, titles) = titles(&engine, code).await;
    assert_eq!(text, "done");
    assert_eq!(
        titles,
        [
            pair("Read src/lib.rs", "Read src/lib.rs (412 lines) {ok}"),
            // `result.lines` is missing: the result reads as its call.
            pair("Read a.md", "Read a.md"),
            // `path` is missing: the default title.
            pair(r#"read(file: "b.md", n: 1)"#, "read(file: \"b.md\", n: 1)"),
            pair(
                r#"plain(query: "bug", limit: 5)"#,
                r#"plain(query: "bug", limit: 5)"#
            ),
            pair("nope(x: [1])", "nope(x: [1])"),
        ]
    );
}

#[tokio::test]
async fn hostile_values_are_escaped_and_cut_and_the_call_still_succeeds() {
    let engine = engine(vec![tool(
        ToolDefinition::new("read")
            .call_title_template("Read {path}")
            .result_title(|args, _| format!("\u{1b}[2J\nDone {}", args["n"])),
    )]);
    let code = r#"
        const path = "evil\n\u001b[31mred\u202e" + "é".repeat(100000)
        const value = await tools.read({ path, n: 1 })
        await tools.read({ path: 5, n: "x".repeat(1000000), ["k\u0007".repeat(50)]: 1 })
        return value.echo.path.length"#;
    let (text, titles) = titles(&engine, code).await;
    assert_eq!(text, "100014");
    for title in titles.iter().flat_map(|(a, b)| [a, b]) {
        assert!(title.chars().count() <= 200, "{title}");
        assert!(!title.chars().any(char::is_control), "{title:?}");
        assert!(!title.contains('\u{202e}'), "{title:?}");
    }
    let (call, result) = &titles[0];
    assert!(
        call.starts_with(r"Read evil\n\u{1b}[31mred\u{202e}ééé"),
        "{call}"
    );
    assert!(call.ends_with('…'), "{call}");
    assert_eq!(result, r"\u{1b}[2J\nDone 1");
    let (call, _) = &titles[1];
    assert!(call.starts_with(r#"Read 5"#), "{call}");
}

#[tokio::test]
async fn a_panicking_title_function_never_breaks_a_call() {
    let engine = engine(vec![tool(
        ToolDefinition::new("fragile")
            .call_title(|_| panic!("no title today"))
            .result_title(|_, _| panic!("nor for results")),
    )]);
    let (text, titles) = titles(
        &engine,
        "const r = await tools.fragile({ n: 2 }); return r.lines",
    )
    .await;
    assert_eq!(text, "2");
    assert_eq!(titles, [pair("fragile(n: 2)", "fragile(n: 2)")]);
}

#[tokio::test]
async fn an_empty_title_falls_back_to_the_default() {
    let engine = engine(vec![tool(
        ToolDefinition::new("quiet")
            .call_title(|_| " \n ".to_owned())
            .result_title(|_, _| String::new()),
    )]);
    let (_, titles) = titles(&engine, "await tools.quiet({})").await;
    assert_eq!(titles, [pair("quiet()", "quiet()")]);
}

#[tokio::test]
async fn titles_are_made_only_when_someone_reads_them() {
    let made = Arc::new(AtomicUsize::new(0));
    let counter = Arc::clone(&made);
    let engine = engine(vec![tool(ToolDefinition::new("counted").call_title(
        move |_| {
            counter.fetch_add(1, Ordering::SeqCst);
            "Counted".to_owned()
        },
    ))]);
    let code = "await tools.counted({}); await tools.counted({}); return 1";
    let outcome = engine
        .run_code(RunRequest::new(code), RunOptions::default())
        .await
        .unwrap();
    assert_eq!(outcome.text(), "1");
    assert_eq!(made.load(Ordering::SeqCst), 0, "no event sink, no titles");
    let (_, titles) = titles(&engine, code).await;
    assert_eq!(titles[0], pair("Counted", "Counted"));
    assert_eq!(made.load(Ordering::SeqCst), 2);
}

#[tokio::test]
async fn titles_never_reach_the_model() {
    let engine = engine(vec![tool(
        ToolDefinition::new("read")
            .description("Reads.")
            .call_title_template("TITLE-MARK {path}"),
    )]);
    let scope = engine.registry().scope();
    for mode in [ptc::Mode::Ptc, ptc::Mode::Native, ptc::Mode::Both] {
        let shown = serde_json::to_string(&engine.presentation(&scope, Some(mode))).unwrap();
        assert!(!shown.contains("TITLE-MARK"), "{shown}");
    }
}

#[tokio::test]
async fn the_approver_is_asked_with_the_title() {
    let asked: Arc<Mutex<Vec<String>>> = Arc::default();
    let registry = Registry::new();
    registry
        .add(tool(
            ToolDefinition::new("deploy")
                .policy(Policy::Ask)
                .call_title_template("Deploy {target} to {env}"),
        ))
        .unwrap();
    let seen = Arc::clone(&asked);
    registry.set_approver(move |request: ApprovalRequest| {
        seen.lock().unwrap().push(request.title);
        async { Approval::Approved }
    });
    let engine = Engine::new(registry, Limits::default()).unwrap();
    let code =
        "await tools.deploy({ target: 'api', env: 'prod' }); await tools.deploy({ target: 'web' })";
    engine
        .run_code(RunRequest::new(code), RunOptions::default())
        .await
        .unwrap();
    assert_eq!(
        *asked.lock().unwrap(),
        ["Deploy api to prod", r#"deploy(target: "web")"#]
    );
}

#[test]
fn broken_templates_are_refused_at_registration_with_their_member() {
    let registry = Registry::new();
    let refused = |definition: ToolDefinition| {
        let error = registry.add(tool(definition)).unwrap_err();
        let RegistrationError::InvalidTitle { path, reason, .. } = &error else {
            panic!("{error:?}")
        };
        (path.clone(), reason.clone(), error.to_string())
    };
    let (path, reason, message) =
        refused(ToolDefinition::new("t").call_title_template("Read {path"));
    assert_eq!(path, "$.callTitle");
    assert!(reason.contains("is not closed"), "{reason}");
    assert!(message.starts_with("tool `t`: $.callTitle: "), "{message}");
    let (path, ..) = refused(ToolDefinition::new("t").result_title_template("{result..n}"));
    assert_eq!(path, "$.resultTitle");
    let (path, ..) = refused(ToolDefinition::new("t").call_title_template("x".repeat(1001)));
    assert_eq!(path, "$.callTitle");
    assert_eq!(registry.count(), 0);
}

#[test]
fn manifests_carry_templates_and_name_a_broken_one() {
    let tools = parse_manifest(
        r#"{ "tools": [{ "name": "read", "command": ["cat"],
            "callTitle": "Read {path}", "resultTitle": "Read {path} ({result.n})" }] }"#,
        Path::new("."),
    )
    .unwrap();
    let definition = tools[0].definition();
    assert_eq!(definition.title_of_call(&json!({ "path": "x" })), "Read x");
    assert_eq!(
        definition.title_of_result(&json!({ "path": "x" }), &json!({ "n": 3 })),
        "Read x (3)"
    );
    let serialized = serde_json::to_value(definition).unwrap();
    assert_eq!(serialized["callTitle"], "Read {path}");
    assert_eq!(serialized["resultTitle"], "Read {path} ({result.n})");
    let wrong = parse_manifest(
        r#"{ "tools": [{ "name": "r", "command": ["cat"], "callTitle": 5 }] }"#,
        Path::new("."),
    )
    .unwrap_err()
    .to_string();
    assert!(wrong.contains("expected a string"), "{wrong}");
}

#[tokio::test]
async fn workspace_tools_read_well() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("notes.txt"), "one\ntwo\nthree\n").unwrap();
    let engine = engine(workspace_tools(dir.path()).unwrap());
    let code = r#"
        await tools.read_file({ path: "notes.txt" })
        await tools.read_file({ path: "notes.txt", offset: 2 })
        await tools.write_file({ path: "notes.md", content: "twelve bytes" })
        await tools.list_dir({})
        await tools.search_files({ pattern: "t", path: "." })
        try { await tools.read_file({ path: "absent.txt" }) } catch {}
        try { await tools.read_file({}) } catch {}
        return "ok""#;
    let (text, titles) = titles(&engine, code).await;
    assert_eq!(text, "ok");
    assert_eq!(
        titles,
        [
            pair("Read notes.txt", "Read notes.txt (3 lines)"),
            pair(
                "Read notes.txt from line 2",
                "Read notes.txt from line 2 (2 lines)"
            ),
            pair("Write notes.md", "Write notes.md (12 bytes)"),
            pair("List .", "List . (2 entries)"),
            pair(r#"Search "t" in ."#, r#"Search "t" in . (3 matches)"#),
            pair("Read absent.txt", "Read absent.txt"),
            pair("read_file()", "read_file()"),
        ]
    );
}

/// contracts §2, Titles: each field of a template is cut to 100
/// characters (the last of them `…`); a field of 100 is kept whole.
#[test]
fn a_template_field_is_cut_to_100_characters() {
    let definition = ToolDefinition::new("t").call_title_template("Read {path}!");
    let long = definition.title_of_call(&json!({ "path": "é".repeat(101) }));
    assert_eq!(long, format!("Read {}…!", "é".repeat(99)));
    let fits = definition.title_of_call(&json!({ "path": "é".repeat(100) }));
    assert_eq!(fits, format!("Read {}!", "é".repeat(100)));
}

//! Discovery inside the program (contracts §5): `tools.$search` and
//! `tools.$describe` answer from the run's side, within the run's scope.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use ptc::{
    Engine, Limits, Outcome, Registry, RunOptions, RunRequest, Tool, ToolContext, ToolDefinition,
    ToolError,
};
use serde_json::{Value, json};

use crate::common::{fixture, fixture_union};
use crate::engine::Events;

fn tool(definition: ToolDefinition) -> Tool {
    Tool::new(definition, |args: Value, _cx: ToolContext| async move {
        Ok::<_, ToolError>(args)
    })
}

/// A few tools; `github.create_issue` references named types.
fn registry() -> Registry {
    let registry = Registry::new();
    let issue = json!({
        "type": "object",
        "properties": {
            "title": { "type": "string", "description": "Issue title" },
            "labels": { "type": "array", "items": { "$ref": "#/$defs/Label" } }
        },
        "required": ["title"],
        "$defs": { "Label": { "type": "object", "properties": { "name": { "type": "string" } } } }
    });
    let defs = [
        ToolDefinition::new("github.create_issue")
            .description("Open a new issue in a repository. Markdown allowed.")
            .parameters(issue),
        ToolDefinition::new("github.list_issues").description("List the issues of a repository."),
        ToolDefinition::new("send_email").description("Send an email message."),
        ToolDefinition::new("secret_admin_reset").description("Reset the issue tracker (admin)."),
    ];
    registry.add_all(defs.into_iter().map(tool)).unwrap();
    registry
}

async fn run_in(engine: &Engine, options: RunOptions, code: &str) -> Outcome {
    engine
        .run_code(RunRequest::new(code).timeout_ms(10_000), options)
        .await
        .unwrap()
}

async fn json_of(engine: &Engine, options: RunOptions, code: &str) -> Value {
    let outcome = run_in(engine, options, code).await;
    assert!(!outcome.is_error, "{}", outcome.text());
    serde_json::from_str(outcome.text()).unwrap_or_else(|_| json!(outcome.text()))
}

fn hiding(registry: &Registry) -> (ptc::Scope, ptc::Restriction) {
    let scope = registry.scope();
    let hidden = scope.deny(["secret_admin_reset"]);
    (scope, hidden)
}

#[tokio::test]
async fn search_ranks_visible_tools_best_first() {
    let registry = registry();
    let engine = Engine::new(registry.clone(), Limits::default()).unwrap();
    let (scope, _hidden) = hiding(&registry);
    let code = "const r = tools.$search('new issue in a repository'); \
                return { plain: Array.isArray(r), awaited: await tools.$search('new issue in a repository'), r }";
    let v = json_of(&engine, RunOptions::default().scope(scope), code).await;
    assert_eq!(v["plain"], json!(true), "plain values, not promises");
    assert_eq!(v["awaited"], v["r"]);
    let names: Vec<&str> = v["r"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["github.create_issue", "github.list_issues"], "{v}");
    assert_eq!(v["r"][0]["summary"], "Open a new issue in a repository.");
    assert!(v["r"][0]["score"].as_f64().unwrap() > v["r"][1]["score"].as_f64().unwrap());
    // Unrestricted, the hidden tool is found.
    let v = json_of(
        &engine,
        RunOptions::default(),
        "return tools.$search('tracker admin')",
    )
    .await;
    assert_eq!(v[0]["name"], "secret_admin_reset");
}

#[tokio::test]
async fn hidden_tools_are_never_found_nor_described() {
    let registry = registry();
    let engine = Engine::new(registry.clone(), Limits::default()).unwrap();
    let (scope, _hidden) = hiding(&registry);
    let options = || RunOptions::default().scope(scope.clone());
    let v = json_of(
        &engine,
        options(),
        "return tools.$search('secret admin reset tracker')",
    )
    .await;
    assert_eq!(v, json!([]));
    let hidden = json_of(
        &engine,
        options(),
        "return [tools.$describe('secret_admin_reset')]",
    )
    .await;
    let absent = json_of(
        &engine,
        options(),
        "return [tools.$describe(['no_such_tool'])]",
    )
    .await;
    assert_eq!(hidden, json!(["// unknown: secret_admin_reset\n"]));
    assert_eq!(absent, json!(["// unknown: no_such_tool\n"]));
}

#[tokio::test]
async fn describe_equals_the_sdk_for_those_tools() {
    let registry = registry();
    let engine = Engine::new(registry.clone(), Limits::default()).unwrap();
    let sdk = engine.presentation(&registry.scope(), None).sdk;
    // In an array: the outcome trims a returned string's last newline.
    let code = "return [tools.$describe(['github.create_issue', 'nope'])]";
    let text = json_of(&engine, RunOptions::default(), code).await;
    let text = text[0].as_str().unwrap();
    let (types, rest) = text.split_once("declare const tools: {\n").unwrap();
    let (methods, unknown) = rest.split_once("};\n").unwrap();
    assert!(types.contains("type Label = "), "{text}");
    assert!(sdk.contains(types), "{types}\nnot in\n{sdk}");
    assert!(
        methods.contains("\"github.create_issue\"(") && !methods.contains("list_issues"),
        "{text}"
    );
    assert!(sdk.contains(methods), "{methods}\nnot in\n{sdk}");
    assert_eq!(unknown, "// unknown: nope\n");
}

#[tokio::test]
async fn discovery_is_no_sub_call() {
    let registry = registry();
    let calls = Arc::new(AtomicUsize::new(0));
    let counted = Arc::clone(&calls);
    registry.add_observer(move |_, _| {
        counted.fetch_add(1, Ordering::SeqCst);
    });
    let engine = Engine::new(registry, Limits::default()).unwrap();
    let events = Events::default();
    let code = "tools.$search('email'); await tools.$describe('send_email'); return 'ok'";
    let outcome = run_in(&engine, events.options(), code).await;
    assert_eq!((outcome.text(), outcome.sub_calls), ("ok", 0));
    assert!(events.take().is_empty(), "no events");
    assert_eq!(calls.load(Ordering::SeqCst), 0, "no pipeline");
}

#[tokio::test]
async fn limit_is_clamped() {
    let engine = Engine::new(registry(), Limits::default()).unwrap();
    let code = "return [0, -5, 1, 1.9, 2, 1000, Infinity].map((limit) => tools.$search('issue repository tracker', { limit }).length)";
    let v = json_of(&engine, RunOptions::default(), code).await;
    assert_eq!(v, json!([1, 1, 1, 1, 2, 3, 3]));
    let v = json_of(
        &engine,
        RunOptions::default(),
        "return [tools.$search(''), tools.$search(' \\n ')]",
    )
    .await;
    assert_eq!(v, json!([[], []]));
}

#[tokio::test]
async fn bad_input_is_a_catchable_type_error() {
    let engine = Engine::new(registry(), Limits::default()).unwrap();
    let code = "const bad = [() => tools.$search(5), () => tools.$search(), () => tools.$search('x', { limit: 'a' }), \
                () => tools.$search('x', { limit: NaN }), () => tools.$search('x', 3), () => tools.$describe(5), \
                () => tools.$describe(['a', 1]), () => tools.$describe()]; \
                return bad.map((f) => { try { f(); return 'no error'; } catch (e) { return e instanceof TypeError; } })";
    let v = json_of(&engine, RunOptions::default(), code).await;
    assert_eq!(v, json!([true, true, true, true, true, true, true, true]));
}

#[tokio::test]
async fn discovery_names_stay_out_of_the_tools() {
    let engine = Engine::new(registry(), Limits::default()).unwrap();
    let code = "return [Object.keys(tools).length, '$search' in tools, typeof tools.$search, typeof tools.$describe]";
    let v = json_of(&engine, RunOptions::default(), code).await;
    assert_eq!(v, json!([0, false, "function", "function"]));
}

#[tokio::test]
async fn search_over_tools1000_finds_the_expected_tool_first() {
    let text = std::fs::read_to_string(fixture("workloads/tools1000.json")).unwrap();
    let defs: Vec<ToolDefinition> = serde_json::from_str(&text).unwrap();
    let registry = Registry::new();
    registry.add_all(defs.into_iter().map(tool)).unwrap();
    let engine = Engine::new(registry, Limits::default()).unwrap();
    let code = "return [tools.$search('github create issue', { limit: 3 }), tools.$search('export pull request postgres')[0].name]";
    let v = json_of(&engine, RunOptions::default(), code).await;
    assert_eq!(v[0][0]["name"], "github.create-issue", "{v}");
    assert_eq!(v[0].as_array().unwrap().len(), 3);
    assert_eq!(v[1], "postgres_exportPullRequest", "{v}");
}

/// Hostile arguments cost the host a bounded copy: a query is cut to 1,024
/// characters (so a huge one still finds what its start asks for), at most
/// 256 names are described at once, a name longer than any tool's is
/// listed as unknown by its length, and lone surrogates read as U+FFFD.
#[tokio::test]
async fn hostile_discovery_arguments_stay_bounded() {
    let engine = Engine::new(registry(), Limits::default()).unwrap();
    let code = r#"
        const huge = "email " + "x".repeat(20_000_000)
        const found = tools.$search(huge).map(t => t.name)
        const lone = tools.$search("\ud800 email").map(t => t.name)
        let refused = ""
        try { tools.$describe(new Array(257).fill("send_email")) } catch (e) { refused = e.name + ": " + e.message }
        const long = tools.$describe(["send_email", "y".repeat(10_000_000)])
        return { found, lone, refused, unknown: long.trimEnd().split("\n").pop() }
    "#;
    let value = json_of(&engine, RunOptions::default(), code).await;
    assert_eq!(value["found"], json!(["send_email"]));
    assert_eq!(value["lone"], json!(["send_email"]));
    assert_eq!(
        value["refused"],
        "RangeError: tools.$describe: at most 256 names at once"
    );
    assert_eq!(
        value["unknown"],
        r#"// unknown: "(a name of 10000000 characters)""#
    );
}

/// 256 names of 32 MB each are answered by their lengths, without copying
/// 8 GB of text no interrupt reaches: within the run's deadline (a copy
/// would outlast it, and be answered at the grace as `timeout`), and no
/// sandbox thread is retired. The deadline is 20 times what building the
/// names alone takes, timed first in the same test, and at least 1 s.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn huge_names_to_describe_are_not_read() {
    let engine = Engine::new(registry(), Limits::default()).unwrap();
    let names = r#"const names = new Array(256).fill("y".repeat(32 << 20))"#;
    let started = std::time::Instant::now();
    let baseline = engine
        .run_code(
            RunRequest::new(format!("{names}\nreturn names.length")).timeout_ms(120_000),
            RunOptions::default(),
        )
        .await
        .unwrap();
    assert_eq!(baseline.text(), "256");
    let deadline = (started.elapsed() * 20).max(std::time::Duration::from_secs(1));
    let outcome = engine
        .run_code(
            RunRequest::new(format!("{names}\nreturn tools.$describe(names)"))
                .timeout_ms(i64::try_from(deadline.as_millis()).unwrap()),
            RunOptions::default(),
        )
        .await
        .unwrap();
    assert_eq!(
        outcome.text(),
        r#"// unknown: "(a name of 33554432 characters)""#
    );
    assert_eq!(engine.retired_threads().total, 0);
}

/// Requests in people's words that found their tool in `$search`'s top 3
/// over the fixture union, out of the 42 in `tests/search/requests.json`.
/// docs/testing.md quotes it; a change in ranking must update both.
const TOP3_HITS: usize = 40;

#[tokio::test]
async fn natural_requests_find_their_tool_in_the_top_three() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/search/requests.json");
    let requests: Vec<Value> =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let registry = Registry::new();
    registry
        .add_all(fixture_union().into_iter().map(tool))
        .unwrap();
    let engine = Engine::new(registry, Limits::default()).unwrap();
    let queries = Value::from(
        requests
            .iter()
            .map(|r| r["request"].clone())
            .collect::<Vec<_>>(),
    );
    let code =
        format!("return {queries}.map((q) => tools.$search(q, {{ limit: 3 }}).map((t) => t.name))");
    let found = json_of(&engine, RunOptions::default(), &code).await;
    let mut misses = Vec::new();
    for (request, top3) in requests.iter().zip(found.as_array().unwrap()) {
        let intended = request["intended"].as_array().unwrap();
        if !top3
            .as_array()
            .unwrap()
            .iter()
            .any(|name| intended.contains(name))
        {
            misses.push(format!("{} → {top3}", request["request"]));
        }
    }
    let hits = requests.len() - misses.len();
    assert!(requests.len() >= 30);
    assert!(
        hits * 10 >= requests.len() * 9,
        "{hits}/{}; missed:\n{}",
        requests.len(),
        misses.join("\n")
    );
    assert_eq!(
        hits,
        TOP3_HITS,
        "the score moved (update TOP3_HITS and docs/testing.md); missed:\n{}",
        misses.join("\n")
    );
}

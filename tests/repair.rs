//! The corpus of model mistakes (`tests/repair/cases.json`): programs with
//! the slips models make, each with the facts its outcome's text must hold
//! (and must not), checked as data, so adding a case is one entry.

use ptc::{
    Engine, FailureKind, Limits, Registry, RunOptions, RunRequest, Tool, ToolContext,
    ToolDefinition, ToolError,
};
use serde::Deserialize;
use serde_json::{Value, json};

const CASES: &str = include_str!("repair/cases.json");

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Case {
    /// What the model did wrong.
    name: String,
    code: String,
    /// The failure kind (`runtime`, `syntax`, …), or absent for a success.
    #[serde(default)]
    kind: Option<String>,
    /// Text the outcome must hold.
    #[serde(default)]
    contains: Vec<String>,
    /// Regular expressions the outcome must match.
    #[serde(default)]
    matches: Vec<String>,
    /// Text the outcome must not hold.
    #[serde(default)]
    absent: Vec<String>,
    /// Tools hidden from the run's scope.
    #[serde(default)]
    hidden: Vec<String>,
    /// The output cap, when not the default.
    #[serde(default)]
    output_cap: Option<usize>,
    /// The run's deadline, when not 10 s.
    #[serde(default)]
    timeout_ms: Option<i64>,
}

fn tool(name: &str, params: Value, answer: Result<Value, &'static str>) -> Tool {
    Tool::new(
        ToolDefinition::new(name).read_only(true).parameters(params),
        move |_args: Value, _cx: ToolContext| {
            let answer = answer.clone();
            async move { answer.map_err(ToolError::tool) }
        },
    )
}

/// The tools the corpus calls: a workspace-like set, a dotted MCP-like
/// group, one that fails, one that never answers, and one the cases may
/// hide.
fn registry() -> Registry {
    let path = json!({
        "type": "object",
        "properties": { "path": { "type": "string" } },
        "required": ["path"]
    });
    let registry = Registry::new();
    for t in [
        tool(
            "read_file",
            path.clone(),
            Ok(json!({ "content": "alpha\nbeta\ngamma" })),
        ),
        tool(
            "list_dir",
            path.clone(),
            Ok(json!([{ "name": "a.txt" }, { "name": "b.txt" }])),
        ),
        tool("search_files", json!({ "type": "object" }), Ok(json!([]))),
        tool(
            "fs.read_text_file",
            path.clone(),
            Ok(json!("line 1\nline 2")),
        ),
        tool(
            "fs.write_file",
            json!({ "type": "object" }),
            Ok(json!(null)),
        ),
        tool(
            "fetch_page",
            json!({ "type": "object" }),
            Err("no such file: /nope"),
        ),
        tool("read_secrets", json!({ "type": "object" }), Ok(json!({}))),
    ] {
        registry.add(t).unwrap();
    }
    let never = Tool::new(
        ToolDefinition::new("wait_forever").read_only(true),
        |_args: Value, _cx: ToolContext| std::future::pending::<Result<Value, ToolError>>(),
    );
    registry.add(never).unwrap();
    registry
}

#[tokio::test]
async fn every_mistake_gets_the_facts_its_fix_needs() {
    let cases: Vec<Case> = serde_json::from_str(CASES).expect("cases.json");
    assert!(cases.len() >= 30, "{} cases", cases.len());
    let registry = registry();
    let mut failures = Vec::new();
    for case in &cases {
        let mut limits = Limits::default();
        if let Some(cap) = case.output_cap {
            limits.output_cap_bytes = cap;
        }
        let engine = Engine::new(registry.clone(), limits).unwrap();
        let scope = registry.scope();
        let _hidden = (!case.hidden.is_empty()).then(|| scope.deny(case.hidden.clone()));
        let outcome = engine
            .run_code(
                RunRequest::new(case.code.as_str()).timeout_ms(case.timeout_ms.unwrap_or(10_000)),
                RunOptions::default().scope(scope.clone()),
            )
            .await
            .unwrap();
        let text = outcome.text();
        let kind = outcome.kind.map(FailureKind::as_str);
        let mut wrong = Vec::new();
        if kind != case.kind.as_deref() {
            wrong.push(format!("kind {kind:?}, expected {:?}", case.kind));
        }
        for fact in &case.contains {
            if !text.contains(fact.as_str()) {
                wrong.push(format!("lacks {fact:?}"));
            }
        }
        for pattern in &case.matches {
            let re = regex::Regex::new(pattern).expect("a valid pattern");
            if !re.is_match(text) {
                wrong.push(format!("does not match {pattern:?}"));
            }
        }
        for fact in &case.absent {
            if text.contains(fact.as_str()) {
                wrong.push(format!("holds {fact:?}"));
            }
        }
        if !wrong.is_empty() {
            failures.push(format!(
                "{}: {}\n--- text ---\n{text}\n",
                case.name,
                wrong.join("; ")
            ));
        }
    }
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}

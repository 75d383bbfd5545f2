//! Presentation and model-direct calls (contracts §3–§4).

use ptc::{Call, Engine, ErrorCode, Invocation, Limits, Mode, RunError, RunOptions, RunRequest};
use serde_json::json;

use crate::common::test_registry;

#[test]
fn presentation_follows_the_mode_and_the_scope() {
    let engine = Engine::new(test_registry(), Limits::default()).unwrap();
    let scope = engine.registry().scope();
    let names = |mode| {
        engine
            .presentation(&scope, Some(mode))
            .tools
            .into_iter()
            .map(|t| t.name)
            .collect::<Vec<_>>()
    };
    assert_eq!(names(Mode::Native), ["echo", "sleep", "fail"]);
    assert_eq!(names(Mode::Ptc), ["run_code"]);
    assert_eq!(names(Mode::Both), ["echo", "sleep", "fail", "run_code"]);

    let _only = scope.allow(["sleep"]);
    let p = engine.presentation(&scope, None);
    assert_eq!(p.tools.len(), 1);
    assert!(
        p.sdk.contains("sleep(") && !p.sdk.contains("echo("),
        "{}",
        p.sdk
    );
    let description = p.tools[0].description.as_deref().unwrap();
    assert!(description.contains(&*p.sdk));
    // The largest deadline accepted at all: an escalated run's.
    assert_eq!(
        p.tools[0].parameters["properties"]["timeoutMs"]["maximum"],
        1_800_000
    );
}

#[test]
fn presentation_is_byte_identical_across_engines() {
    let a = Engine::new(test_registry(), Limits::default()).unwrap();
    let b = Engine::new(test_registry(), Limits::default()).unwrap();
    let pa = a.presentation(&a.registry().scope(), Some(Mode::Both));
    let pb = b.presentation(&b.registry().scope(), Some(Mode::Both));
    assert_eq!(
        serde_json::to_string(&pa).unwrap(),
        serde_json::to_string(&pb).unwrap()
    );
}

#[tokio::test]
async fn model_direct_calls_respect_the_mode() {
    let engine = Engine::new(test_registry(), Limits::default()).unwrap();
    let call = || Call::new("c", "echo", json!({ "x": 1 }));

    // ptc: only run_code exists for the model.
    let i = engine.invoke(call(), RunOptions::default()).await;
    assert!(matches!(&i, Invocation::Tool(Err(e)) if e.code == ErrorCode::UnknownTool));
    assert_eq!(
        i.content(),
        [ptc::ContentBlock::text(
            "Error: unknown tool `echo`: only `run_code` is available"
        )]
    );
    let run = engine
        .invoke(
            Call::new(
                "r",
                "run_code",
                json!({ "code": "return 7", "description": "seven" }),
            ),
            RunOptions::default(),
        )
        .await;
    assert!(matches!(&run, Invocation::Run(o) if o.text() == "7"));
    let bad = engine
        .invoke(
            Call::new("r", "run_code", json!({ "return": 7 })),
            RunOptions::default(),
        )
        .await;
    assert_eq!(
        bad.content(),
        [ptc::ContentBlock::text(
            "Error: invalid arguments for `run_code`: `code` is required (a string)"
        )]
    );
    let bad = engine
        .invoke(
            Call::new(
                "r",
                "run_code",
                json!({ "code": "1", "description": "d", "timeoutMs": 0 }),
            ),
            RunOptions::default(),
        )
        .await;
    assert!(matches!(&bad, Invocation::Tool(Err(e)) if e.code == ErrorCode::InvalidArguments));

    // native: the tools, not run_code.
    let scope = engine.registry().scope();
    scope.set_mode(Some(Mode::Native));
    let i = engine
        .invoke(call(), RunOptions::default().scope(scope.clone()))
        .await;
    assert_eq!(i.content(), [ptc::ContentBlock::text(r#"{"x":1}"#)]);
    let i = engine
        .invoke(
            Call::new("f", "fail", json!({})),
            RunOptions::default().scope(scope.clone()),
        )
        .await;
    assert_eq!(i.content(), [ptc::ContentBlock::text("Error: it broke")]);
    let i = engine
        .invoke(
            Call::new("r", "run_code", json!({ "code": "1", "description": "d" })),
            RunOptions::default().scope(scope),
        )
        .await;
    assert!(matches!(&i, Invocation::Tool(Err(e)) if e.code == ErrorCode::UnknownTool));
}

/// The model's `run_code` arguments are exactly its schema's: no `runId` (the
/// host's to choose), nothing unknown; integers in any JSON spelling.
#[tokio::test]
async fn run_code_takes_only_what_its_schema_allows() {
    let engine = Engine::new(test_registry(), Limits::default()).unwrap();
    let invoke = |arguments: serde_json::Value| {
        let engine = engine.clone();
        async move {
            let i = engine
                .invoke(Call::new("r", "run_code", arguments), RunOptions::default())
                .await;
            let text = match i.content().first() {
                Some(ptc::ContentBlock::Text { text }) => text.clone(),
                _ => String::new(),
            };
            (i, text)
        }
    };
    let (i, text) =
        invoke(json!({ "code": "return 1", "description": "d", "runId": "mine" })).await;
    assert!(matches!(&i, Invocation::Tool(Err(e)) if e.code == ErrorCode::InvalidArguments));
    assert!(text.contains("`runId` is not a known member"), "{text}");
    let (_, text) = invoke(json!({ "code": "1", "description": "d", "extra": true })).await;
    assert!(text.contains("`extra` is not a known member"), "{text}");
    let (i, text) =
        invoke(json!({ "code": "return 2", "description": "d", "timeoutMs": 1e5 })).await;
    assert!(matches!(&i, Invocation::Run(_)), "{text}");
    assert_eq!(text, "2");
    let (_, text) = invoke(json!({ "code": "1", "description": "d", "timeoutMs": 1.5 })).await;
    assert!(
        text.contains("`timeoutMs` must be an integer, got 1.5"),
        "{text}"
    );
}

#[tokio::test]
async fn a_host_chosen_run_id_belongs_to_one_live_run() {
    let engine = Engine::new(test_registry(), Limits::default()).unwrap();
    let slow = engine.run_code(
        RunRequest::new("await tools.sleep({ ms: 200 }); return 'first'").run_id("same"),
        RunOptions::default(),
    );
    let clash = async {
        // Starts while the first run is still sleeping.
        tokio::task::yield_now().await;
        engine
            .run_code(
                RunRequest::new("return 'second'").run_id("same"),
                RunOptions::default(),
            )
            .await
    };
    let (first, second) = tokio::join!(slow, clash);
    assert_eq!(first.unwrap().text(), "first");
    assert_eq!(
        second.unwrap_err(),
        RunError::InvalidArguments("runId `same` belongs to a run that has not ended".into())
    );
    // Once it ended, the id is free again.
    let again = engine
        .run_code(
            RunRequest::new("return 'again'").run_id("same"),
            RunOptions::default(),
        )
        .await;
    assert_eq!(again.unwrap().text(), "again");
    let empty = engine
        .run_code(
            RunRequest::new("return 1").run_id(""),
            RunOptions::default(),
        )
        .await;
    assert_eq!(
        empty.unwrap_err(),
        RunError::InvalidArguments(
            "runId must not be empty: leave it out and the run gets a fresh one".into()
        )
    );
}

#[test]
fn run_code_and_then_are_not_tool_names() {
    let registry = ptc::Registry::new();
    for name in ["run_code", "then"] {
        let err =
            registry
                .add(ptc::Tool::new(
                    ptc::ToolDefinition::new(name),
                    |a: serde_json::Value, _: ptc::ToolContext| async move {
                        Ok::<_, ptc::ToolError>(a)
                    },
                ))
                .unwrap_err();
        assert!(
            matches!(err, ptc::RegistrationError::ReservedName { .. }),
            "{err}"
        );
    }
}

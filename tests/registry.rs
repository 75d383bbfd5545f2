//! Registry and scopes (contracts §2, §4).

use ptc::{Mode, RegistrationError, Registry, Tool, ToolDefinition};
use serde_json::json;

use crate::common::echo;

fn names(registry: &Registry) -> Vec<String> {
    registry.definitions().into_iter().map(|d| d.name).collect()
}

#[test]
fn keeps_registration_order_and_replaces_in_place() {
    let r = Registry::new();
    for n in ["a", "b", "c"] {
        r.add(echo(n)).unwrap();
    }
    // Replace b in place with a new description.
    let replaced = Tool::from_arc(
        ToolDefinition::new("b").description("new b"),
        std::sync::Arc::new(|_a: serde_json::Value, _c: ptc::ToolContext| async {
            Ok::<_, ptc::ToolError>(json!(1))
        }),
    );
    r.add(replaced).unwrap();
    assert_eq!(names(&r), ["a", "b", "c"]);
    assert_eq!(
        r.definition("b").unwrap().description.as_deref(),
        Some("new b")
    );
    assert_eq!(r.count(), 3);

    assert!(r.remove("a"));
    assert!(!r.remove("a"));
    r.add(echo("a")).unwrap();
    assert_eq!(names(&r), ["b", "c", "a"], "remove then add goes last");
}

#[test]
fn batch_add_is_all_or_nothing_and_later_wins() {
    let r = Registry::new();
    r.add_all([
        echo("x"),
        Tool::from_arc(
            ToolDefinition::new("x").description("second"),
            std::sync::Arc::new(|a: serde_json::Value, _c: ptc::ToolContext| async move {
                Ok::<_, ptc::ToolError>(a)
            }),
        ),
        echo("y"),
    ])
    .unwrap();
    assert_eq!(names(&r), ["x", "y"]);
    assert_eq!(
        r.definition("x").unwrap().description.as_deref(),
        Some("second")
    );

    let err = r.add_all([echo("z"), echo("bad name")]).unwrap_err();
    assert!(matches!(err, RegistrationError::InvalidName { .. }));
    assert_eq!(
        names(&r),
        ["x", "y"],
        "nothing from a failed batch is registered"
    );
}

#[test]
fn batch_remove_is_true_only_when_all_were_present() {
    let r = Registry::new();
    r.add_all([echo("a"), echo("b"), echo("c")]).unwrap();
    assert!(!r.remove_all(["a", "missing"]));
    assert_eq!(names(&r), ["b", "c"], "present names are still removed");
    assert!(r.remove_all(["b", "c"]));
    assert_eq!(r.count(), 0);
}

#[test]
fn definitions_are_fresh_copies() {
    let r = Registry::new();
    r.add(echo("a")).unwrap();
    let mut defs = r.definitions();
    defs[0].description = Some("mutated".into());
    assert_eq!(r.definition("a").unwrap().description, None);
}

#[test]
fn registration_errors_name_the_tool_and_the_path() {
    let r = Registry::new();
    let bad_root = Tool::from_arc(
        ToolDefinition::new("t1").parameters(json!({ "type": "string" })),
        echo_handler(),
    );
    let err = r.add(bad_root).unwrap_err();
    assert_eq!(
        err.to_string(),
        "tool `t1`: $.parameters.type: parameters must be an object schema (type is \"string\")"
    );
    let not_object = Tool::from_arc(
        ToolDefinition::new("t2").parameters(json!([1])),
        echo_handler(),
    );
    assert!(matches!(
        r.add(not_object).unwrap_err(),
        RegistrationError::NonObjectParameters { .. }
    ));
    // A list of types is an object schema when it names "object".
    let listed = |name: &str, types| {
        Tool::from_arc(
            ToolDefinition::new(name).parameters(json!({ "type": types })),
            echo_handler(),
        )
    };
    r.add(listed("t_listed", json!(["null", "object"])))
        .unwrap();
    assert!(r.remove("t_listed"));
    assert_eq!(
        r.add(listed("t_unlisted", json!(["string", "null"])))
            .unwrap_err()
            .to_string(),
        "tool `t_unlisted`: $.parameters.type: parameters must be an object schema (type is [\"string\",\"null\"])"
    );

    let bad_schema = Tool::from_arc(
        ToolDefinition::new("t3").parameters(json!({
            "type": "object", "properties": { "n": { "type": "integer", "minimum": "zero" } }
        })),
        echo_handler(),
    );
    let err = r.add(bad_schema).unwrap_err();
    let RegistrationError::InvalidSchema { tool, path, .. } = &err else {
        panic!("{err:?}")
    };
    assert_eq!(
        (tool.as_str(), path.as_str()),
        ("t3", "$.parameters.properties.n.minimum")
    );

    let bad_output = Tool::from_arc(
        ToolDefinition::new("t4").output(json!({ "type": "nope" })),
        echo_handler(),
    );
    let err = r.add(bad_output).unwrap_err();
    assert!(
        err.to_string().starts_with("tool `t4`: $.output.type:"),
        "{err}"
    );
    assert_eq!(r.count(), 0);
}

/// A schema that cannot be checked as written is refused, never treated as
/// always valid: each class of build error, and a schema whose checking
/// could blow up.
#[test]
fn schemas_that_cannot_be_checked_are_refused() {
    let refused = |parameters: serde_json::Value| {
        let tool = Tool::from_arc(
            ToolDefinition::new("t").parameters(parameters),
            echo_handler(),
        );
        match Registry::new().add(tool) {
            Err(RegistrationError::InvalidSchema { path, reason, .. }) => (path, reason),
            other => panic!("{other:?}"),
        }
    };
    let (path, reason) = refused(json!({
        "type": "object", "required": ["n"],
        "properties": { "n": { "$ref": "#/$defs/missing" } }
    }));
    assert!(path.starts_with("$.parameters"), "{path}");
    assert!(reason.contains("cannot be checked"), "{reason}");
    let (path, reason) = refused(json!({
        "type": "object", "properties": { "n": { "$ref": "#/properties/n" } }
    }));
    assert_eq!(path, "$.parameters.properties.n");
    assert!(reason.contains("leads back to itself"), "{reason}");
    // Wrong keyword types are not JSON Schema at all.
    let (path, _) = refused(json!({ "type": "object", "required": "n" }));
    assert_eq!(path, "$.parameters.required");

    // The red team's 1 KB schema: ten `$defs`, each an `anyOf` of six
    // `$ref`s to the next.
    let mut defs = serde_json::Map::new();
    for i in 0..10 {
        let refs = vec![json!({ "$ref": format!("#/$defs/a{}", i + 1) }); 6];
        defs.insert(format!("a{i}"), json!({ "anyOf": refs }));
    }
    defs.insert("a10".into(), json!({ "type": "string" }));
    let ladder = json!({
        "type": "object", "properties": { "p": { "$ref": "#/$defs/a0" } }, "$defs": defs
    });
    let (path, reason) = refused(ladder.clone());
    assert_eq!(path, "$.parameters");
    assert!(
        reason.contains("more than 1000 subschemas at one place"),
        "{reason}"
    );
    let output = Tool::from_arc(ToolDefinition::new("o").output(ladder), echo_handler());
    let err = Registry::new().add(output).unwrap_err().to_string();
    assert!(err.starts_with("tool `o`: $.output:"), "{err}");
}

/// A `pattern` the regex engine rejects is the one part dropped (with a
/// warning) rather than refused; the rest of the schema still holds.
#[tokio::test]
async fn a_rejected_pattern_alone_is_dropped() {
    let r = Registry::new();
    let warnings = r
        .add(Tool::from_arc(
            ToolDefinition::new("p").parameters(json!({
                "type": "object", "required": ["n"],
                "properties": { "s": { "type": "string", "pattern": "(?<=x)\\p{Foo}[" }, "n": { "type": "number" } }
            })),
            echo_handler(),
        ))
        .unwrap();
    assert!(
        warnings[0].contains("/properties/s/pattern dropped"),
        "{warnings:?}"
    );
    let call = ptc::Call::new("c", "p", json!({ "s": "anything" }));
    let result = r.scope().call(call, Default::default()).await;
    assert_eq!(result.unwrap_err().code, ptc::ErrorCode::InvalidArguments);
}

#[test]
fn unresolvable_parts_are_warnings_and_the_rest_is_enforced() {
    let r = Registry::new();
    let warnings = r
        .add(Tool::from_arc(
            ToolDefinition::new("remote").parameters(json!({
                "type": "object",
                "properties": {
                    "a": { "$ref": "https://example.com/a.json" },
                    "n": { "type": "number" }
                }
            })),
            echo_handler(),
        ))
        .unwrap();
    assert_eq!(warnings.len(), 1);
    assert!(
        warnings[0].starts_with(
            "tool `remote`: parameters has parts that cannot be checked here: $ref https://example.com/a.json"
        ),
        "{warnings:?}"
    );
    let scope = r.scope();
    let call = |args: serde_json::Value| {
        let scope = scope.clone();
        async move {
            scope
                .call(ptc::Call::new("c", "remote", args), Default::default())
                .await
        }
    };
    let rt = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    assert!(rt.block_on(call(json!({ "a": [1], "n": 1 }))).is_ok());
    let refused = rt.block_on(call(json!({ "n": "one" }))).unwrap_err();
    assert_eq!(refused.code, ptc::ErrorCode::InvalidArguments);
}

fn echo_handler() -> std::sync::Arc<dyn ptc::ToolHandler> {
    std::sync::Arc::new(|a: serde_json::Value, _c: ptc::ToolContext| async move {
        Ok::<_, ptc::ToolError>(a)
    })
}

#[test]
fn scope_masks_intersect_and_lift_on_drop() {
    let r = Registry::new();
    r.add_all(["a", "b", "c", "d"].map(echo)).unwrap();
    let scope = r.scope();
    let visible = |s: &ptc::Scope| {
        s.definitions()
            .into_iter()
            .map(|d| d.name)
            .collect::<Vec<_>>()
    };
    assert_eq!(visible(&scope), ["a", "b", "c", "d"]);
    let allow = scope.allow(["a", "b", "c"]);
    let deny = scope.deny(["b"]);
    assert_eq!(visible(&scope), ["a", "c"]);
    assert!(!scope.is_visible("b") && !scope.is_visible("d") && scope.is_visible("a"));
    let allow2 = scope.allow(["c", "d"]);
    assert_eq!(visible(&scope), ["c"], "masks intersect");
    drop(allow);
    assert_eq!(visible(&scope), ["c", "d"]);
    drop(deny);
    drop(allow2);
    assert_eq!(visible(&scope), ["a", "b", "c", "d"]);
    // Another scope of the same registry is unaffected by this one's masks.
    let _only_a = scope.allow(["a"]);
    assert_eq!(visible(&r.scope()), ["a", "b", "c", "d"]);
}

#[test]
fn mode_is_a_registry_default_with_a_scope_override() {
    let r = Registry::new();
    assert_eq!(r.mode(), Mode::Ptc);
    let s = r.scope();
    r.set_mode(Mode::Both);
    assert_eq!(s.mode(), Mode::Both);
    s.set_mode(Some(Mode::Native));
    assert_eq!(s.mode(), Mode::Native);
    assert_eq!(r.scope().mode(), Mode::Both);
    s.set_mode(None);
    assert_eq!(s.mode(), Mode::Both);
}

/// Every real MCP tool list registers (MCP spellings, draft-07 and 2020-12
/// schemas alike), and each tool then validates: `{}` against its schema
/// is refused exactly when the schema has a `required`.
#[test]
fn real_mcp_tool_lists_register_and_validate() {
    let dir = crate::common::fixture("mcp-tools");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    assert!(files.len() >= 5, "the fixtures in {}", dir.display());
    let rt = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    for file in files {
        let list: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
        let registry = Registry::new();
        for tool in list["tools"].as_array().unwrap() {
            let definition: ToolDefinition = serde_json::from_value(tool.clone())
                .unwrap_or_else(|e| panic!("{}: {e}", file.display()));
            let name = definition.name.clone();
            registry
                .add(Tool::from_arc(definition, echo_handler()))
                .unwrap_or_else(|e| panic!("{}: {name}: {e}", file.display()));
            let required = tool["inputSchema"]["required"]
                .as_array()
                .is_some_and(|r| !r.is_empty());
            let call = ptc::Call::new("c", name.clone(), json!({}));
            let result = rt.block_on(registry.scope().call(call, Default::default()));
            let refused = matches!(&result, Err(e) if e.code == ptc::ErrorCode::InvalidArguments);
            assert_eq!(
                refused,
                required,
                "{}: {name}: {{}} against a schema that requires {}",
                file.display(),
                tool["inputSchema"]["required"]
            );
        }
    }
}

/// `$schema` picks the draft: draft-07's array `items` is a tuple.
#[test]
fn the_schema_uri_picks_the_draft() {
    let registry = Registry::new();
    registry
        .add(Tool::from_arc(
            ToolDefinition::new("pair").parameters(json!({
                "$schema": "http://json-schema.org/draft-07/schema#",
                "type": "object",
                "properties": { "t": { "type": "array", "items": [{ "type": "string" }, { "type": "number" }] } }
            })),
            echo_handler(),
        ))
        .unwrap();
    let rt = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    let call = |args: serde_json::Value| {
        rt.block_on(
            registry
                .scope()
                .call(ptc::Call::new("c", "pair", args), Default::default()),
        )
    };
    assert!(call(json!({ "t": ["a", 1] })).is_ok());
    assert_eq!(
        call(json!({ "t": [1, "a"] })).unwrap_err().code,
        ptc::ErrorCode::InvalidArguments
    );
    // Under 2020-12 the same `items` is not a schema at all.
    let strict = Registry::new().add(Tool::from_arc(
        ToolDefinition::new("pair").parameters(json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "type": "object",
            "properties": { "t": { "type": "array", "items": [{ "type": "string" }] } }
        })),
        echo_handler(),
    ));
    assert!(
        matches!(strict, Err(RegistrationError::InvalidSchema { .. })),
        "{strict:?}"
    );
}

#[tokio::test]
async fn changes_follow_adds_replacements_and_removals() {
    let registry = Registry::new();
    let mut changes = registry.changes();
    assert!(!changes.has_changed().unwrap());
    registry.add(echo("a")).unwrap();
    changes.changed().await.unwrap();
    let added = *changes.borrow_and_update();

    registry.set_mode(Mode::Native);
    assert!(
        !changes.has_changed().unwrap(),
        "the mode is not a change of the tools"
    );
    assert!(registry.add(Tool::new(ToolDefinition::new("bad name"), |v: serde_json::Value, _cx: ptc::ToolContext| async move {
        Ok::<_, ptc::ToolError>(v)
    }))
    .is_err());
    assert!(
        !changes.has_changed().unwrap(),
        "a refused registration changes nothing"
    );

    registry.add(echo("a")).unwrap();
    changes.changed().await.unwrap();
    let replaced = *changes.borrow_and_update();
    assert!(replaced > added, "a replacement in place is a change");

    registry.remove("a");
    changes.changed().await.unwrap();
    assert!(*changes.borrow_and_update() > replaced);
    assert_eq!(registry.count(), 0);
}

//! A registry of 1,000 generated tools validates every tool's arguments.

use ptc::{Call, CallOptions, ErrorCode, Registry, Tool, ToolContext, ToolDefinition, ToolError};
use serde_json::{Map, Value, json};

use crate::common::fixture;

/// A minimal instance that satisfies `schema` (for the shapes tools1000 uses).
fn valid_instance(schema: &Value) -> Value {
    if let Some(c) = schema.get("const") {
        return c.clone();
    }
    if let Some(e) = schema.get("enum").and_then(Value::as_array) {
        return e[0].clone();
    }
    if let Some(first) = schema
        .get("oneOf")
        .or(schema.get("anyOf"))
        .and_then(|v| v.get(0))
    {
        return valid_instance(first);
    }
    let ty = match schema.get("type") {
        Some(Value::Array(types)) => types[0].as_str().unwrap_or("null"),
        Some(Value::String(t)) => t.as_str(),
        _ => return json!("anything"),
    };
    match ty {
        "object" => {
            let mut out = Map::new();
            let props = schema.get("properties").and_then(Value::as_object);
            for name in schema
                .get("required")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                let name = name.as_str().unwrap();
                let sub = props
                    .and_then(|p| p.get(name))
                    .cloned()
                    .unwrap_or(json!({}));
                out.insert(name.to_owned(), valid_instance(&sub));
            }
            Value::Object(out)
        }
        "array" => json!([]),
        "string" => {
            let text = match schema.get("format").and_then(Value::as_str) {
                Some("email") => "a@example.com",
                Some("uri") => "https://example.com",
                Some("uuid") => "123e4567-e89b-12d3-a456-426614174000",
                Some("date-time") => "2026-01-01T00:00:00Z",
                Some("date") => "2026-01-01",
                _ => "x",
            };
            let max = schema
                .get("maxLength")
                .and_then(Value::as_u64)
                .unwrap_or(u64::MAX);
            if text.len() as u64 > max {
                json!("x")
            } else {
                json!(text)
            }
        }
        "integer" | "number" => schema.get("minimum").cloned().unwrap_or(json!(0)),
        "boolean" => json!(true),
        _ => Value::Null,
    }
}

#[tokio::test]
async fn every_tool_accepts_a_valid_call_and_refuses_an_invalid_one() {
    let text = std::fs::read_to_string(fixture("workloads/tools1000.json")).unwrap();
    let defs: Vec<ToolDefinition> = serde_json::from_str(&text).unwrap();
    assert_eq!(defs.len(), 1000);
    let registry = Registry::new();
    let warnings = registry
        .add_all(defs.iter().cloned().map(|d| {
            // Answers with a value its output schema accepts.
            let answer = d.output.as_ref().map(valid_instance).unwrap_or(Value::Null);
            Tool::new(d, move |_args: Value, _cx: ToolContext| {
                let answer = answer.clone();
                async move { Ok::<_, ToolError>(answer) }
            })
        }))
        .unwrap();
    assert!(warnings.is_empty(), "{warnings:?}");
    assert_eq!(registry.count(), 1000);
    let scope = registry.scope();
    for def in &defs {
        let good = valid_instance(&def.parameters);
        let result = scope
            .call(Call::new("v", &def.name, good), CallOptions::default())
            .await;
        let answer = def
            .output
            .as_ref()
            .map(valid_instance)
            .unwrap_or(Value::Null);
        assert_eq!(
            result.map(|o| o.value).map_err(|e| e.message),
            Ok(answer),
            "{}",
            def.name
        );

        // Invalid: a wrong type for the first typed property (or a non-object).
        let typed = def.parameters["properties"].as_object().and_then(|p| {
            p.iter()
                .find(|(_, s)| s.get("type").is_some())
                .map(|(k, _)| k)
        });
        let bad = match typed {
            Some(first) => {
                let mut bad = valid_instance(&def.parameters);
                bad[first] = json!({ "definitely": ["not", "valid"] });
                bad
            }
            None => json!("not an object"),
        };
        let err = scope
            .call(Call::new("i", &def.name, bad), CallOptions::default())
            .await
            .unwrap_err();
        assert_eq!(
            err.code,
            ErrorCode::InvalidArguments,
            "{}: {}",
            def.name,
            err.message
        );
    }
}

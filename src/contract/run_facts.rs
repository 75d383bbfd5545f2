//! `run_code`'s `structuredContent` in MCP (mcp.md): facts about the run
//! for the client (the model's text is in `content`), and the
//! `outputSchema` derived from the same type, so the two cannot disagree.

use schemars::generate::{Contract, SchemaSettings};
use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::Serialize;
use serde_json::{Map, Value};

use super::outcome::{FailureKind, Outcome};

/// `run_code`'s `structuredContent`: facts about the run for the client
/// (the model's text is in `content`). Its `outputSchema` is derived from
/// this type, so the two cannot disagree: `kind` is every
/// [`FailureKind`] the engine has.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schemars(description = "Facts about the run; the model's text is in `content`.")]
pub(crate) struct RunFacts {
    /// The run's id.
    run_id: String,
    /// Why the run failed; absent when it succeeded (never null).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "FailureKind")]
    kind: Option<FailureKind>,
    /// Tool calls the program made.
    #[schemars(schema_with = "count")]
    sub_calls: u32,
    /// Wall time of the run in milliseconds.
    #[schemars(schema_with = "milliseconds")]
    elapsed_ms: f64,
    /// CPU time the program used in milliseconds, waiting on tools not
    /// counted.
    #[schemars(schema_with = "milliseconds")]
    cpu_ms: f64,
    /// The session the run read and wrote: pass it as `session` to use its
    /// values again; absent when the run had none.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "String")]
    session: Option<String>,
}

impl RunFacts {
    fn of(outcome: &Outcome) -> Self {
        Self {
            run_id: outcome.run_id.clone(),
            kind: outcome.kind,
            sub_calls: outcome.sub_calls,
            elapsed_ms: outcome.elapsed.as_secs_f64() * 1000.0,
            cpu_ms: outcome.cpu.as_secs_f64() * 1000.0,
            session: outcome.session.clone(),
        }
    }
}

// Plain JSON Schema for the numbers: schemars would add `format: "uint32"`
// and `"double"`, which validators that know no such format (the
// TypeScript SDK's Ajv) warn about.
fn count(_: &mut SchemaGenerator) -> Schema {
    json_schema!({ "type": "integer", "minimum": 0 })
}

fn milliseconds(_: &mut SchemaGenerator) -> Schema {
    json_schema!({ "type": "number", "minimum": 0 })
}

/// The schema of `run_code`'s `structuredContent`, [`RunFacts`]'s: one
/// self-contained object schema (no `$schema`, `title` or `$defs`), which
/// every validator reads alike.
pub(crate) fn run_code_output_schema() -> Map<String, Value> {
    let mut settings = SchemaSettings::draft2020_12();
    settings.inline_subschemas = true;
    settings.meta_schema = None;
    // What is serialized: `kind` is skipped when absent, so not required.
    settings.contract = Contract::Serialize;
    let root = settings.into_generator().into_root_schema_for::<RunFacts>();
    let mut schema = match root.to_value() {
        Value::Object(schema) => schema,
        _ => Map::new(),
    };
    // The title is the Rust type's name: nothing for a client.
    schema.remove("title");
    schema
}

/// `run_code`'s `structuredContent`, per [`run_code_output_schema`].
pub(crate) fn run_facts(outcome: &Outcome) -> Value {
    serde_json::to_value(RunFacts::of(outcome)).unwrap_or(Value::Null)
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::{FailureKind, RunFacts, run_code_output_schema};

    /// Every kind, listed where the compiler checks the list: a new
    /// [`FailureKind`] fails to compile `position` until it is added here.
    const KINDS: [FailureKind; 6] = [
        FailureKind::Syntax,
        FailureKind::Runtime,
        FailureKind::Timeout,
        FailureKind::Memory,
        FailureKind::Cancelled,
        FailureKind::Denied,
    ];

    fn position(kind: FailureKind) -> usize {
        match kind {
            FailureKind::Syntax => 0,
            FailureKind::Runtime => 1,
            FailureKind::Timeout => 2,
            FailureKind::Memory => 3,
            FailureKind::Cancelled => 4,
            FailureKind::Denied => 5,
        }
    }

    fn facts(kind: Option<FailureKind>) -> Value {
        serde_json::to_value(RunFacts {
            run_id: "run-1".into(),
            kind,
            sub_calls: 3,
            elapsed_ms: 12.5,
            cpu_ms: 3.25,
            session: kind.map(|_| "ptc_00".into()),
        })
        .unwrap()
    }

    #[test]
    fn every_outcome_validates_against_the_advertised_schema() {
        let schema = Value::Object(run_code_output_schema());
        let validator = jsonschema::validator_for(&schema).unwrap();
        assert!(validator.is_valid(&facts(None)), "{schema}");
        for (i, kind) in KINDS.into_iter().enumerate() {
            assert_eq!(position(kind), i);
            let facts = facts(Some(kind));
            assert_eq!(facts["kind"], kind.as_str());
            assert!(validator.is_valid(&facts), "{facts} against {schema}");
        }
        for wrong in [
            json!({ "runId": "r", "kind": "exploded", "subCalls": 0, "elapsedMs": 1, "cpuMs": 0 }),
            json!({ "runId": "r", "subCalls": -1, "elapsedMs": 1, "cpuMs": 0 }),
            json!({ "runId": "r", "subCalls": 0, "elapsedMs": 1, "cpuMs": 0, "extra": true }),
            json!({ "subCalls": 0, "elapsedMs": 1, "cpuMs": 0 }),
            json!({ "runId": "r", "subCalls": 0, "elapsedMs": 1, "cpuMs": 0, "session": 5 }),
            json!({ "runId": "r", "subCalls": 0, "elapsedMs": 1 }),
            json!({ "runId": "r", "subCalls": 0, "elapsedMs": 1, "cpuMs": -1 }),
        ] {
            assert!(!validator.is_valid(&wrong), "{wrong} passed {schema}");
        }
    }

    /// Plain enough for any validator: an object schema with no meta
    /// schema, references or formats.
    #[test]
    fn the_schema_is_one_self_contained_object_schema() {
        let schema = Value::Object(run_code_output_schema());
        assert_eq!(schema["type"], "object");
        assert_eq!(
            schema["required"],
            json!(["runId", "subCalls", "elapsedMs", "cpuMs"])
        );
        assert_eq!(schema["additionalProperties"], false);
        let text = schema.to_string();
        for absent in [
            "$schema",
            "$ref",
            "$defs",
            "\"format\"",
            "\"title\"",
            "\"null\"",
        ] {
            assert!(!text.contains(absent), "{absent} in {text}");
        }
    }
}

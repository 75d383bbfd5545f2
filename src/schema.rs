//! JSON Schema handling: compiling validators once at registration and
//! turning validation failures into messages that name the path and the rule.

use std::sync::{Arc, Mutex, PoisonError};

use jsonschema::error::ValidationErrorKind;
use jsonschema::{Draft, Validator};
use serde_json::Value;

mod cost;

/// A schema compiled for validation. What cannot be checked here (a remote
/// `$ref`, a `pattern` the regex engine rejects) accepts anything; every
/// other keyword is enforced, `format` under every draft (a format the
/// validator does not know accepts anything).
#[derive(Debug)]
pub(crate) struct CompiledSchema {
    validator: Validator,
    /// What explaining why one place of a value fails can cost, in
    /// subschema evaluations (see [`cost::check`]).
    explaining: u64,
}

/// Why a schema was refused: the JSON pointer inside the schema and the reason.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SchemaProblem {
    pub(crate) pointer: String,
    pub(crate) message: String,
}

impl CompiledSchema {
    /// Compiles `schema`. A schema that is not valid JSON Schema, one the
    /// validator cannot build (a `$ref` to nothing, a bad `format` option),
    /// and one whose checking could cost more than [`cost::MAX_EVALUATIONS`]
    /// subschemas at one place of a value are `Err`: a schema never turns
    /// into "always valid". What only cannot be checked here — a remote
    /// `$ref` (there is no network: it accepts anything) or a `pattern` the
    /// regex engine rejects (that keyword is dropped) — is named in the
    /// warning.
    pub(crate) fn compile(schema: &Value) -> Result<(Self, Option<String>), SchemaProblem> {
        let draft = meta_check(schema)?;
        let remote = Arc::new(Mutex::new(Vec::new()));
        let build = |schema: &Value| {
            jsonschema::options()
                .with_draft(draft)
                // 2019-09 and 2020-12 only annotate `format` by default;
                // ptc checks it under every draft. Formats it does not know
                // (`int32`, `json`, a vendor's own) accept anything.
                .should_validate_formats(true)
                .should_ignore_unknown_formats(true)
                .with_retriever(Unreachable(Arc::clone(&remote)))
                .build(schema)
        };
        let mut unchecked = Vec::new();
        let mut trimmed: Option<Value> = None;
        for _ in 0..MAX_UNCHECKABLE {
            let checked = trimmed.as_ref().unwrap_or(schema);
            let error = match build(checked) {
                Ok(validator) => {
                    let explaining = cost::check(checked).map_err(too_costly)?;
                    let remote = remote.lock().unwrap_or_else(PoisonError::into_inner);
                    for uri in remote.iter() {
                        unchecked.push(format!("$ref {uri} (not fetched: it accepts anything)"));
                    }
                    let warning = (!unchecked.is_empty()).then(|| {
                        format!(
                            "has parts that cannot be checked here: {}",
                            unchecked.join("; ")
                        )
                    });
                    return Ok((
                        Self {
                            validator,
                            explaining,
                        },
                        warning,
                    ));
                }
                Err(error) => error,
            };
            let pointer = error.schema_path().as_str().to_owned();
            let target = trimmed.get_or_insert_with(|| schema.clone());
            if !is_bad_pattern(&error, &pointer) || !remove(target, &pointer) {
                let message = format!("cannot be checked: {error}");
                return Err(SchemaProblem { pointer, message });
            }
            unchecked.push(format!("{pointer} dropped ({error})"));
        }
        Err(SchemaProblem {
            pointer: String::new(),
            message: format!(
                "cannot be checked: more than {MAX_UNCHECKABLE} patterns the regex engine rejects"
            ),
        })
    }

    /// Validates `instance`; the error message names the JSON path and rule of
    /// the first few failures.
    pub(crate) fn check(&self, instance: &Value) -> Result<(), String> {
        let validator = &self.validator;
        if validator.is_valid(instance) {
            return Ok(());
        }
        // The validator explains every failure at once, and an `anyOf`
        // checks each branch again to say why it failed, at every level of
        // the value above the failure: past the budget, only that it fails.
        let (nodes, depth) = size_of(instance);
        let explaining = self.explaining.saturating_mul(nodes).saturating_mul(depth);
        if explaining > EXPLAIN_BUDGET {
            return Err(format!(
                "at $: does not match the schema (a value of {nodes} nodes is too large for this schema to say where)"
            ));
        }
        let mut parts = Vec::new();
        let mut more = 0usize;
        for err in validator.iter_errors(instance) {
            if parts.len() == 3 {
                more += 1;
                continue;
            }
            let path = json_path(err.instance_path().as_str());
            let rule = rule_of(err.schema_path().as_str());
            parts.push(format!("at {path}: {err} (rule: {rule})"));
        }
        let mut message = parts.join("; ");
        if more > 0 {
            message.push_str(&format!("; and {more} more"));
        }
        Err(message)
    }
}

/// The most subschema evaluations spent saying where a value fails: some
/// 50 ms. Real schemas and arguments stay far below it.
const EXPLAIN_BUDGET: u64 = 10_000_000;

/// How many nodes (objects, arrays and scalars) `value` has, and how deeply
/// they nest.
fn size_of(value: &Value) -> (u64, u64) {
    let (mut nodes, mut deepest) = (0u64, 0u64);
    let mut stack = vec![(value, 1u64)];
    while let Some((value, depth)) = stack.pop() {
        nodes += 1;
        deepest = deepest.max(depth);
        match value {
            Value::Array(items) => stack.extend(items.iter().map(|item| (item, depth + 1))),
            Value::Object(members) => {
                stack.extend(members.values().map(|member| (member, depth + 1)))
            }
            _ => {}
        }
    }
    (nodes, deepest)
}

/// How many rejected patterns one schema may have before it is refused.
const MAX_UNCHECKABLE: usize = 64;

/// Whether the build failed on a regex the engine rejects, a `pattern` or a
/// `patternProperties` key (the one part dropped rather than refused).
fn is_bad_pattern(error: &jsonschema::ValidationError<'_>, pointer: &str) -> bool {
    let mut segments = pointer.rsplit('/');
    let (last, parent) = (segments.next(), segments.next());
    matches!(error.kind(), ValidationErrorKind::Format { .. })
        && (last == Some("pattern") || parent == Some("patternProperties"))
}

fn too_costly(problem: cost::TooCostly) -> SchemaProblem {
    let pointer = match &problem {
        cost::TooCostly::Cycle { pointer } => pointer.clone(),
        cost::TooCostly::Fanout { .. } => String::new(),
    };
    SchemaProblem {
        pointer,
        message: problem.to_string(),
    }
}

/// Resolves every external `$ref` to a schema that accepts anything, and
/// remembers which: there is no network here.
struct Unreachable(Arc<Mutex<Vec<String>>>);

impl jsonschema::Retrieve for Unreachable {
    fn retrieve(
        &self,
        uri: &jsonschema::Uri<String>,
    ) -> Result<Value, Box<dyn std::error::Error + Send + Sync>> {
        let mut seen = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        seen.push(uri.as_str().to_owned());
        Ok(Value::Object(serde_json::Map::new()))
    }
}

/// Removes the member at `pointer` (a JSON pointer into `schema`).
fn remove(schema: &mut Value, pointer: &str) -> bool {
    let Some((parent, key)) = pointer.rsplit_once('/') else {
        return false;
    };
    let key = key.replace("~1", "/").replace("~0", "~");
    schema
        .pointer_mut(parent)
        .and_then(Value::as_object_mut)
        .is_some_and(|object| object.remove(&key).is_some())
}

/// Picks the draft named by `$schema` (draft-07 and 2020-12 are what MCP
/// servers send; unnamed schemas may be either) and checks the schema
/// against that draft's meta-schema.
fn meta_check(schema: &Value) -> Result<Draft, SchemaProblem> {
    let named = schema
        .get("$schema")
        .and_then(Value::as_str)
        .map(draft_from_uri);
    let candidates: &[Draft] = match named {
        Some(Some(draft)) => &[draft][..],
        _ => &[Draft::Draft202012, Draft::Draft7],
    };
    let mut first_problem = None;
    for &draft in candidates {
        match meta_validate(draft, schema) {
            Ok(()) => return Ok(draft),
            Err(problem) => {
                first_problem.get_or_insert(problem);
            }
        }
    }
    Err(first_problem.unwrap_or_else(|| SchemaProblem {
        pointer: String::new(),
        message: "not a valid JSON Schema".into(),
    }))
}

fn draft_from_uri(uri: &str) -> Option<Draft> {
    if uri.contains("draft-04") {
        Some(Draft::Draft4)
    } else if uri.contains("draft-06") {
        Some(Draft::Draft6)
    } else if uri.contains("draft-07") {
        Some(Draft::Draft7)
    } else if uri.contains("2019-09") {
        Some(Draft::Draft201909)
    } else if uri.contains("2020-12") {
        Some(Draft::Draft202012)
    } else {
        None
    }
}

fn meta_validate(draft: Draft, schema: &Value) -> Result<(), SchemaProblem> {
    let result = match draft {
        Draft::Draft4 => jsonschema::draft4::meta::validate(schema),
        Draft::Draft6 => jsonschema::draft6::meta::validate(schema),
        Draft::Draft7 => jsonschema::draft7::meta::validate(schema),
        Draft::Draft201909 => jsonschema::draft201909::meta::validate(schema),
        _ => jsonschema::draft202012::meta::validate(schema),
    };
    result.map_err(|err| SchemaProblem {
        pointer: err.instance_path().as_str().to_owned(),
        message: err.to_string(),
    })
}

/// `/items/0/a~1b` → `$.items[0]["a/b"]`.
pub(crate) fn json_path(pointer: &str) -> String {
    let mut out = String::from("$");
    for raw in pointer.split('/').skip(1) {
        let segment = raw.replace("~1", "/").replace("~0", "~");
        if !segment.is_empty() && segment.bytes().all(|b| b.is_ascii_digit()) {
            out.push('[');
            out.push_str(&segment);
            out.push(']');
        } else if is_identifier(&segment) {
            out.push('.');
            out.push_str(&segment);
        } else {
            out.push('[');
            out.push_str(&Value::String(segment).to_string());
            out.push(']');
        }
    }
    out
}

fn is_identifier(s: &str) -> bool {
    let mut chars = s.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_' || c == '$')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$')
}

/// The keyword that failed: the last segment of the schema path.
fn rule_of(schema_path: &str) -> &str {
    schema_path.rsplit('/').next().unwrap_or("schema")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn paths_read_like_javascript() {
        assert_eq!(json_path(""), "$");
        assert_eq!(json_path("/a/0/b"), "$.a[0].b");
        assert_eq!(json_path("/x-request-id"), "$[\"x-request-id\"]");
        assert_eq!(json_path("/a~1b/c~0d"), "$[\"a/b\"][\"c~d\"]");
        // `_` and `$` go anywhere in an identifier; a digit not first.
        assert_eq!(json_path("/_a_b/$c$d/e1"), "$._a_b.$c$d.e1");
        assert_eq!(json_path("/1e"), "$[\"1e\"]");
    }

    /// Whether `value` passes `schema` (compiled without a warning), and
    /// the rule it fails.
    fn checked(schema: &Value, value: Value) -> Result<(), String> {
        let (compiled, warning) = CompiledSchema::compile(schema).unwrap();
        assert!(warning.is_none(), "{warning:?}");
        compiled.check(&value)
    }

    #[test]
    fn format_is_enforced_under_every_draft() {
        let drafts = [
            None,
            Some("http://json-schema.org/draft-04/schema#"),
            Some("http://json-schema.org/draft-06/schema#"),
            Some("http://json-schema.org/draft-07/schema#"),
            Some("https://json-schema.org/draft/2019-09/schema"),
            Some("https://json-schema.org/draft/2020-12/schema"),
        ];
        // The formats every draft names, each with a value it allows and
        // one it does not.
        let cases = [
            ("date-time", "2026-01-31T10:00:00Z", "2026-01-31 10:00"),
            ("email", "a@example.com", "not an address"),
            ("hostname", "example.com", "-bad-.com"),
            ("ipv4", "192.0.2.1", "192.0.2.256"),
            ("ipv6", "2001:db8::1", "2001:db8::g"),
            ("uri", "https://example.com/a?b", "example.com/no scheme"),
        ];
        for draft in drafts {
            for (format, good, bad) in cases {
                let mut schema = json!({ "type": "object",
                    "properties": { "v": { "type": "string", "format": format } } });
                if let Some(draft) = draft {
                    schema["$schema"] = json!(draft);
                }
                assert_eq!(
                    checked(&schema, json!({ "v": good })),
                    Ok(()),
                    "{draft:?} {format}"
                );
                let refused = checked(&schema, json!({ "v": bad })).unwrap_err();
                assert!(
                    refused.contains("at $.v:") && refused.contains("(rule: format)"),
                    "{draft:?} {format}: {refused}"
                );
            }
        }
    }

    #[test]
    fn formats_of_later_drafts_and_unknown_formats() {
        let of = |draft: Option<&str>, format: &str| {
            let mut schema = json!({ "type": "object",
                "properties": { "v": { "type": "string", "format": format } } });
            if let Some(draft) = draft {
                schema["$schema"] = json!(draft);
            }
            schema
        };
        let draft7 = Some("http://json-schema.org/draft-07/schema#");
        // 2020-12, the draft of a schema that names none.
        for (format, good, bad) in [
            (
                "uuid",
                "0b7e3a4c-1f2d-4e5f-8a9b-0c1d2e3f4a5b",
                "0b7e3a4c1f2d4e5f8a9b0c1d2e3f4a5b",
            ),
            ("duration", "P3DT4H", "3 days"),
            ("date", "2026-02-28", "2026-02-30"),
            ("time", "10:00:00Z", "25:00:00Z"),
            ("uri-reference", "../a/b", "\\\\share"),
            ("json-pointer", "/a/0", "a/0"),
            ("regex", "^a(b|c)$", "(unclosed"),
            ("idn-email", "rené@example.com", "rené"),
            ("idn-hostname", "bücher.example", "-bücher-"),
        ] {
            assert_eq!(
                checked(&of(None, format), json!({ "v": good })),
                Ok(()),
                "{format}"
            );
            assert!(
                checked(&of(None, format), json!({ "v": bad })).is_err(),
                "{format} {bad}"
            );
        }
        // Draft-07 names no `uuid`: there it is a format ptc does not know.
        let hyphenless = json!({ "v": "0b7e3a4c1f2d4e5f8a9b0c1d2e3f4a5b" });
        assert_eq!(checked(&of(draft7, "uuid"), hyphenless), Ok(()));
        // Formats no draft names (MCP servers send `int32`, `json`,
        // their own) accept anything, under every draft.
        for draft in [None, draft7] {
            for format in ["int32", "json", "x-vendor"] {
                assert_eq!(
                    checked(&of(draft, format), json!({ "v": "anything" })),
                    Ok(())
                );
            }
        }
        // Only strings have a format: other types pass it.
        let schema = json!({ "type": "object", "properties": { "v": { "format": "email" } } });
        assert_eq!(checked(&schema, json!({ "v": 5 })), Ok(()));
    }

    /// The real tools with a `format` (fixtures/mcp-tools) take the values
    /// their servers take: a URL or a data URI for `everything`'s `uri`,
    /// anything for notion's `int32` and `json` (no draft names them).
    /// Notion's `uuid` ids are checked as JSON Schema defines a uuid, with
    /// its hyphens: the 32 hex digits of a Notion URL are refused, saying so.
    #[test]
    fn real_tools_take_their_real_values() {
        let fixtures = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/mcp-tools");
        let tool = |file: &str, name: &str| -> Value {
            let text = std::fs::read_to_string(fixtures.join(file)).unwrap();
            let list: Value = serde_json::from_str(&text).unwrap();
            let tools = list["tools"].as_array().unwrap();
            let tool = tools.iter().find(|t| t["name"] == name).unwrap();
            tool["inputSchema"].clone()
        };
        let gzip = tool("server-everything.json", "gzip-file-as-resource");
        for data in [
            "https://raw.githubusercontent.com/modelcontextprotocol/servers/refs/heads/main/README.md",
            "data:text/plain;base64,SGVsbG8=",
            "file:///tmp/notes.txt",
        ] {
            assert_eq!(checked(&gzip, json!({ "data": data })), Ok(()), "{data}");
        }
        let id = "59833787-2cf9-4fdf-8782-e53db20768a5";
        let moved = tool("notion.json", "API-move-page");
        let parent = json!({ "type": "page_id", "page_id": id });
        assert_eq!(
            checked(&moved, json!({ "page_id": id, "parent": parent })),
            Ok(())
        );
        let search = tool("notion.json", "API-post-search");
        assert_eq!(
            checked(&search, json!({ "query": "q", "page_size": 100 })),
            Ok(())
        );
        let page = tool("notion.json", "API-post-page");
        let icon =
            json!({ "parent": { "page_id": id }, "properties": {}, "icon": "{\"emoji\":\"🎉\"}" });
        assert_eq!(checked(&page, icon), Ok(()));
        let user = tool("notion.json", "API-get-user");
        let refused = checked(&user, json!({ "user_id": id.replace('-', "") })).unwrap_err();
        assert!(
            refused.contains("at $.user_id:") && refused.contains("is not a \"uuid\""),
            "{refused}"
        );
    }

    #[test]
    fn failures_name_path_and_rule() {
        let (s, warning) = CompiledSchema::compile(&json!({
            "type": "object",
            "properties": { "q": { "type": "string" }, "n": { "type": "integer", "minimum": 1 } },
            "required": ["q"]
        }))
        .unwrap();
        assert!(warning.is_none());
        assert!(s.check(&json!({ "q": "x", "n": 2 })).is_ok());
        let err = s.check(&json!({ "q": 5 })).unwrap_err();
        assert!(
            err.contains("at $.q:") && err.contains("rule: type"),
            "{err}"
        );
        let err = s.check(&json!({ "q": "x", "n": 0 })).unwrap_err();
        assert!(
            err.contains("at $.n:") && err.contains("rule: minimum"),
            "{err}"
        );
        let err = s.check(&json!({})).unwrap_err();
        assert!(
            err.contains("at $:") && err.contains("rule: required"),
            "{err}"
        );
    }

    #[test]
    fn structural_errors_are_refused_with_a_pointer() {
        let problem = CompiledSchema::compile(&json!({
            "type": "object",
            "properties": { "a": { "type": 5 } }
        }))
        .unwrap_err();
        assert_eq!(problem.pointer, "/properties/a/type");
    }

    /// Only a regex the engine rejects is dropped: any other failure to
    /// build, even one at a `pattern` or under `patternProperties`, is
    /// refused (no build error found today is one, so the rule is held
    /// here, against the validator's next version).
    #[test]
    fn only_a_rejected_regex_is_a_bad_pattern() {
        let other = jsonschema::ValidationError::custom("not a regex problem");
        for pointer in ["/properties/s/pattern", "/patternProperties/^a", ""] {
            assert!(!is_bad_pattern(&other, pointer), "{pointer}");
        }
        let (_, warning) = CompiledSchema::compile(&json!({
            "properties": { "s": { "pattern": "\\p{Foo}[" } }
        }))
        .unwrap();
        assert!(
            warning.is_some_and(|w| w.contains("/properties/s/pattern dropped")),
            "an unknown class is a regex the engine rejects"
        );
    }

    /// A schema's `$schema` picks the meta-schema it is checked against,
    /// and a schema not valid in its draft is refused at the member that
    /// is wrong (contracts §2: the error names the JSON path). Each is
    /// valid 2020-12; the validator's own check of them would name a place
    /// in the meta-schema instead (`/definitions/stringArray/minItems`).
    #[test]
    fn the_named_draft_is_checked_and_the_member_named() {
        for (uri, schema, pointer) in [
            (
                "http://json-schema.org/draft-04/schema#",
                json!({ "required": [] }),
                "/required",
            ),
            (
                "http://json-schema.org/draft-06/schema#",
                json!({ "additionalItems": 5 }),
                "/additionalItems",
            ),
            (
                "https://json-schema.org/draft/2019-09/schema",
                json!({ "additionalItems": 5 }),
                "/additionalItems",
            ),
        ] {
            let mut named = schema.clone();
            named["$schema"] = json!(uri);
            let Err(problem) = CompiledSchema::compile(&named) else {
                panic!("{uri}: accepted")
            };
            assert_eq!(problem.pointer, pointer, "{uri}: {}", problem.message);
            assert!(CompiledSchema::compile(&schema).is_ok(), "valid 2020-12");
        }
    }

    #[test]
    fn draft07_tuple_items_are_accepted_without_schema_uri() {
        let (s, warning) = CompiledSchema::compile(&json!({
            "type": "object",
            "properties": { "t": { "type": "array", "items": [{ "type": "string" }, { "type": "number" }] } }
        }))
        .unwrap();
        assert!(warning.is_none());
        assert!(s.check(&json!({ "t": ["a", 1] })).is_ok());
        assert!(s.check(&json!({ "t": [1, "a"] })).is_err());
    }

    /// What cannot be checked is named and accepts anything; every other
    /// keyword of the same schema is still enforced.
    #[test]
    fn only_what_cannot_be_checked_goes_unchecked() {
        let (s, warning) = CompiledSchema::compile(&json!({
            "type": "object",
            "properties": {
                "a": { "$ref": "https://example.com/schema.json" },
                "b": { "type": "string", "pattern": "(?<=x)\\p{Foo}[", "maxLength": 3 },
                "m": { "type": "object", "patternProperties": { "(?<=x)\\p{Foo}[": {} } },
                "c": { "type": "integer", "minimum": 1 }
            },
            "required": ["c"]
        }))
        .unwrap();
        let warning = warning.expect("the unchecked parts are named");
        assert!(
            warning.contains("/properties/b/pattern dropped")
                && warning.contains("/properties/m/patternProperties/(?<=x)\\p{Foo}[ dropped"),
            "{warning}"
        );
        assert!(
            warning.contains("$ref https://example.com/schema.json (not fetched"),
            "{warning}"
        );
        assert!(
            s.check(&json!({ "a": { "any": 1 }, "b": "zz", "c": 2 }))
                .is_ok()
        );
        assert!(
            s.check(&json!({ "a": 1, "c": 0 })).is_err(),
            "minimum still holds"
        );
        assert!(s.check(&json!({ "a": 1 })).is_err(), "required still holds");
        assert!(
            s.check(&json!({ "b": "long", "c": 1 })).is_err(),
            "maxLength still holds"
        );
        assert!(
            s.check(&json!({ "b": 5, "c": 1 })).is_err(),
            "type still holds"
        );
    }

    #[test]
    fn local_refs_validate() {
        let (s, _) = CompiledSchema::compile(&json!({
            "type": "object",
            "$defs": { "node": { "type": "object", "properties": { "next": { "$ref": "#/$defs/node" }, "v": { "type": "number" } } } },
            "properties": { "root": { "$ref": "#/$defs/node" } }
        }))
        .unwrap();
        assert!(
            s.check(&json!({ "root": { "v": 1, "next": { "v": 2 } } }))
                .is_ok()
        );
        assert!(
            s.check(&json!({ "root": { "next": { "v": "x" } } }))
                .is_err()
        );
    }

    /// Saying where a value fails costs the schema's nesting again at every
    /// failing place (2.6 s for 1,000 failing elements under a chain of 500
    /// `anyOf`s): past the budget the message only says that it fails.
    #[test]
    fn failures_are_explained_within_a_budget() {
        let link = |i| format!("#/$defs/a{i}");
        let defs: serde_json::Map<String, Value> = (0..400)
            .map(|i| {
                (
                    format!("a{i}"),
                    json!({ "anyOf": [{ "$ref": link(i + 1) }] }),
                )
            })
            .chain([("a400".to_owned(), json!({ "type": "string" }))])
            .collect();
        let schema = json!({ "type": "array", "items": { "$ref": link(0) }, "$defs": defs });
        let (deep, _) = CompiledSchema::compile(&schema).unwrap();
        assert_eq!(deep.explaining, 802 * 802);
        assert!(deep.check(&json!(vec!["x"; 1000])).is_ok());
        // One failing element: explained.
        let one = deep.check(&json!([5])).unwrap_err();
        assert!(one.starts_with("at $[0]: "), "{one}");
        let many = deep.check(&json!(vec![5; 1000])).unwrap_err();
        assert_eq!(
            many,
            "at $: does not match the schema (a value of 1001 nodes is too large for this schema to say where)"
        );
        // The same value under a plain schema: every failure counted.
        let (plain, _) =
            CompiledSchema::compile(&json!({ "type": "array", "items": { "type": "string" } }))
                .unwrap();
        let all = plain.check(&json!(vec![5; 1000])).unwrap_err();
        assert!(all.ends_with("; and 997 more"), "{all}");
    }

    /// The budget is 10 million evaluations, inclusive: a chain of 100
    /// references costs 100 × 100 per failing place, and 499 failing
    /// elements (500 nodes, 2 deep) are exactly the budget.
    #[test]
    fn the_explaining_budget_is_inclusive() {
        let link = |i| format!("#/$defs/a{i}");
        let defs: serde_json::Map<String, Value> = (0..98)
            .map(|i| (format!("a{i}"), json!({ "$ref": link(i + 1) })))
            .chain([("a98".to_owned(), json!({ "type": "string" }))])
            .collect();
        let schema = json!({ "type": "array", "items": { "$ref": link(0) }, "$defs": defs });
        let (chain, _) = CompiledSchema::compile(&schema).unwrap();
        assert_eq!(chain.explaining, 100 * 100);
        let at_the_budget = chain.check(&json!(vec![5; 499])).unwrap_err();
        assert!(at_the_budget.starts_with("at $[0]: "), "{at_the_budget}");
        let past_it = chain.check(&json!(vec![5; 500])).unwrap_err();
        assert!(past_it.contains("too large for this schema"), "{past_it}");
    }

    /// Three failures are named; a fourth is counted.
    #[test]
    fn more_than_three_failures_are_counted() {
        let (strings, _) =
            CompiledSchema::compile(&json!({ "type": "array", "items": { "type": "string" } }))
                .unwrap();
        let three = strings.check(&json!([1, 2, 3])).unwrap_err();
        assert_eq!(three.matches("(rule: type)").count(), 3, "{three}");
        assert!(!three.contains("more"), "{three}");
        let four = strings.check(&json!([1, 2, 3, 4])).unwrap_err();
        assert!(four.ends_with("(rule: type); and 1 more"), "{four}");
    }

    #[test]
    fn a_value_is_measured_in_nodes_and_depth() {
        assert_eq!(size_of(&json!(1)), (1, 1));
        assert_eq!(size_of(&json!([])), (1, 1));
        assert_eq!(size_of(&json!({ "a": [1, { "b": null }], "c": 2 })), (6, 4));
    }
}

/// A JSON number as an integer, as JSON Schema counts them: `1000`, `1e3`
/// and `1000.0` alike. Integers past `i64` saturate (a range check then
/// refuses them with its own message); `None` for a fraction.
pub(crate) fn integer(n: &serde_json::Number) -> Option<i64> {
    if let Some(i) = n.as_i64() {
        return Some(i);
    }
    if n.as_u64().is_some() {
        return Some(i64::MAX);
    }
    let f = n.as_f64()?;
    // `as` saturates, which is what a range check wants.
    (f.fract() == 0.0).then_some(f as i64)
}

#[cfg(test)]
mod integer_tests {
    use super::integer;
    use serde_json::json;

    #[test]
    fn integral_numbers_in_any_spelling() {
        let of = |v: serde_json::Value| integer(v.as_number().unwrap());
        assert_eq!(of(json!(1000)), Some(1000));
        assert_eq!(of(json!(1e3)), Some(1000));
        assert_eq!(of(json!(-2.0)), Some(-2));
        assert_eq!(of(json!(u64::MAX)), Some(i64::MAX));
        assert_eq!(of(json!(1e300)), Some(i64::MAX));
        assert_eq!(of(json!(1.5)), None);
    }
}

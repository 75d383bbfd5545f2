//! A tool definition as JSON: ptc's spelling and MCP's (`inputSchema`,
//! `outputSchema`, `annotations.readOnlyHint`), decoded by
//! `Deserialize for ToolDefinition`, and [`read_tool`], the one reader of
//! tool entries that says which entry failed and where — `tools/register`
//! entries, manifest entries, and each tool of an MCP `tools/list` result.
//!
//! Reading checks member types only, in a fixed order; the name's spelling
//! and the schemas themselves are judged at registration (`registered.rs`).

use serde::de::DeserializeOwned;
use serde::{Deserialize, Deserializer};
use serde_json::{Map, Value};

use super::definition::{Policy, ToolDefinition, default_parameters};
use crate::deadline::MAX_DEADLINE_MS;
use crate::json::json_type;

/// How far [`read_tool`] judges member values beyond what decoding needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Strictness {
    /// What decoding needs, as `Deserialize for ToolDefinition`: a schema
    /// member may hold any value (`null` is absent) for registration to
    /// judge, and `timeoutMs` any `u64`. Manifests are read so.
    Decoding,
    /// Also the limits of contracts §2, each reported at its member: schema
    /// members are objects, `timeoutMs` is 1 … 2147483647. The host
    /// protocol is read so (and MCP results, which promise object schemas).
    Contract,
}

/// A tool entry, read.
#[derive(Debug)]
pub(crate) struct ToolEntry {
    pub(crate) definition: ToolDefinition,
    /// The members a definition has no place for, in order: a manifest's
    /// `command`, MCP's `title` or `_meta`.
    pub(crate) rest: Map<String, Value>,
}

/// Why one tool entry could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("tool entry {index}{}: {path}: {problem}", named(.name.as_deref()))]
pub(crate) struct EntryError {
    /// The entry's position in its list, from 0.
    pub(crate) index: usize,
    /// The entry's `name`, when it is a string.
    pub(crate) name: Option<String>,
    /// The failing member's JSON path inside the entry: `$` (the entry
    /// itself) or `$.readOnly`, as registration errors' paths are.
    pub(crate) path: String,
    pub(crate) problem: Problem,
}

fn named(name: Option<&str>) -> String {
    name.map(|n| format!(" (`{n}`)")).unwrap_or_default()
}

impl EntryError {
    /// The failing member's path in a document whose tool list is at
    /// `list`: `$.tools` gives `$.tools[1].readOnly`.
    pub(crate) fn path_in(&self, list: &str) -> String {
        path_in_list(list, self.index, &self.path)
    }
}

/// A path inside one tool (from `$`, as [`EntryError::path`] and
/// registration errors give it) as a path into the list at `list`.
pub(crate) fn path_in_list(list: &str, index: usize, path: &str) -> String {
    format!("{list}[{index}]{}", path.strip_prefix('$').unwrap_or(path))
}

/// What is wrong with an entry. Displayed in the host protocol's words;
/// a caller with words of its own matches on it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum Problem {
    /// The entry is not a JSON object.
    #[error("expected a tool object, got {got}")]
    NotAnObject { got: &'static str },
    /// The entry has no `name` member.
    #[error("the tool has no `name`")]
    NoName,
    /// A member's value is not one the member takes (boxed, so errors stay
    /// small).
    #[error("{}", member.refusal(got))]
    Mistyped { member: Member, got: Box<Value> },
    /// Each member is fine but they do not decode together: two spellings
    /// of one member (serde's "duplicate field `parameters`").
    #[error("{0}")]
    Undecodable(String),
}

/// The members [`read_tool`] checks, in the order it checks them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Member {
    Name,
    Description,
    Summary,
    Parameters,
    InputSchema,
    ReadOnly,
    Annotations,
    TimeoutMs,
    Policy,
    CallTitle,
    ResultTitle,
    RequiresEscalation,
}

impl Member {
    const CHECKED: [Member; 12] = [
        Member::Name,
        Member::Description,
        Member::Summary,
        Member::Parameters,
        Member::InputSchema,
        Member::ReadOnly,
        Member::Annotations,
        Member::TimeoutMs,
        Member::Policy,
        Member::CallTitle,
        Member::ResultTitle,
        Member::RequiresEscalation,
    ];

    fn key(self) -> &'static str {
        match self {
            Member::Name => "name",
            Member::Description => "description",
            Member::Summary => "summary",
            Member::Parameters => "parameters",
            Member::InputSchema => "inputSchema",
            Member::ReadOnly => "readOnly",
            Member::Annotations => "annotations",
            Member::TimeoutMs => "timeoutMs",
            Member::Policy => "policy",
            Member::CallTitle => "callTitle",
            Member::ResultTitle => "resultTitle",
            Member::RequiresEscalation => "requiresEscalation",
        }
    }

    fn accepts(self, value: &Value, strictness: Strictness) -> bool {
        let contract = strictness == Strictness::Contract;
        match self {
            Member::Name => value.is_string(),
            Member::Description | Member::Summary | Member::CallTitle | Member::ResultTitle => {
                value.is_string() || value.is_null()
            }
            Member::Parameters | Member::InputSchema => !contract || value.is_object(),
            Member::ReadOnly | Member::RequiresEscalation => value.is_boolean() || value.is_null(),
            Member::Annotations => value.is_object() || value.is_null(),
            Member::TimeoutMs => {
                value.is_null()
                    || value
                        .as_u64()
                        .is_some_and(|ms| !contract || (1..=MAX_DEADLINE_MS).contains(&ms))
            }
            Member::Policy => value.is_null() || Policy::deserialize(value).is_ok(),
        }
    }

    /// Why `got` is refused, in the host protocol's words.
    fn refusal(self, got: &Value) -> String {
        let kind = json_type(got);
        match self {
            Member::Name
            | Member::Description
            | Member::Summary
            | Member::CallTitle
            | Member::ResultTitle => {
                format!("must be a string, got {kind}")
            }
            Member::Parameters | Member::InputSchema => {
                format!("must be an object schema, got {kind}")
            }
            Member::ReadOnly | Member::RequiresEscalation => {
                format!("must be a boolean, got {kind}")
            }
            Member::Annotations => format!("must be an object, got {kind}"),
            Member::TimeoutMs => {
                format!("must be an integer from 1 to {MAX_DEADLINE_MS}, got {got}")
            }
            Member::Policy => format!("must be \"allow\", \"ask\" or \"deny\", got {got}"),
        }
    }

    /// Why `got` is refused, in serde's words: what decoding the entry as a
    /// [`ToolDefinition`] says (manifests have always said it so).
    pub(crate) fn serde_refusal(self, got: &Value) -> String {
        let error = match self {
            Member::Name => decode_error::<String>(got),
            Member::Description | Member::Summary | Member::CallTitle | Member::ResultTitle => {
                decode_error::<Option<String>>(got)
            }
            Member::Parameters | Member::InputSchema => decode_error::<Option<Value>>(got),
            Member::ReadOnly | Member::RequiresEscalation => decode_error::<Option<bool>>(got),
            Member::Annotations => decode_error::<Option<Map<String, Value>>>(got),
            Member::TimeoutMs => decode_error::<Option<u64>>(got),
            Member::Policy => decode_error::<Option<Policy>>(got),
        };
        // Serde takes what only the contract refuses: say it the protocol's way.
        error.unwrap_or_else(|| self.refusal(got))
    }
}

fn decode_error<T: DeserializeOwned>(value: &Value) -> Option<String> {
    T::deserialize(value).err().map(|e| e.to_string())
}

/// Every member the decoded definition is made of, aliases included.
const DEFINITION_MEMBERS: [&str; 14] = [
    "name",
    "description",
    "summary",
    "parameters",
    "inputSchema",
    "output",
    "outputSchema",
    "readOnly",
    "annotations",
    "timeoutMs",
    "policy",
    "callTitle",
    "resultTitle",
    "requiresEscalation",
];

/// Reads the tool entry at position `index` (from 0) of a list: checks its
/// members' types in [`Member`] order, stopping at the first mistake, then
/// decodes the definition. Members a definition has no place for are
/// returned as they are.
///
/// # Errors
/// The entry is not an object, has no `name`, has a member of the wrong
/// type (or, under [`Strictness::Contract`], outside the contract's
/// limits), or gives one member in two spellings.
pub(crate) fn read_tool(
    index: usize,
    entry: Value,
    strictness: Strictness,
) -> Result<ToolEntry, EntryError> {
    let Value::Object(object) = entry else {
        let got = json_type(&entry);
        return Err(EntryError {
            index,
            name: None,
            path: "$".to_owned(),
            problem: Problem::NotAnObject { got },
        });
    };
    let name = object
        .get("name")
        .and_then(Value::as_str)
        .map(str::to_owned);
    let fail = |path: String, problem: Problem| EntryError {
        index,
        name: name.clone(),
        path,
        problem,
    };
    if !object.contains_key("name") {
        return Err(fail("$".to_owned(), Problem::NoName));
    }
    for member in Member::CHECKED {
        if let Some(got) = object.get(member.key())
            && !member.accepts(got, strictness)
        {
            let got = Box::new(got.clone());
            let path = format!("$.{}", member.key());
            return Err(fail(path, Problem::Mistyped { member, got }));
        }
    }
    let (known, rest): (Map<String, Value>, Map<String, Value>) = object
        .into_iter()
        .partition(|(key, _)| DEFINITION_MEMBERS.contains(&key.as_str()));
    let definition = ToolDefinition::deserialize(Value::Object(known))
        .map_err(|e| fail("$".to_owned(), Problem::Undecodable(e.to_string())))?;
    Ok(ToolEntry { definition, rest })
}

/// The decoded shape: ptc's own member names plus the MCP spellings.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct WireDefinition {
    name: String,
    #[serde(default)]
    description: Option<String>,
    #[serde(default)]
    summary: Option<String>,
    #[serde(default, alias = "inputSchema")]
    parameters: Option<Value>,
    #[serde(default, alias = "outputSchema")]
    output: Option<Value>,
    #[serde(default)]
    read_only: Option<bool>,
    #[serde(default)]
    annotations: Option<Map<String, Value>>,
    #[serde(default)]
    timeout_ms: Option<u64>,
    #[serde(default)]
    policy: Option<Policy>,
    #[serde(default)]
    call_title: Option<String>,
    #[serde(default)]
    result_title: Option<String>,
    #[serde(default)]
    requires_escalation: Option<bool>,
}

impl<'de> Deserialize<'de> for ToolDefinition {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let wire = WireDefinition::deserialize(deserializer)?;
        let read_only_hint = wire
            .annotations
            .as_ref()
            .and_then(|a| a.get("readOnlyHint"))
            .and_then(Value::as_bool);
        let mut definition = Self::new(wire.name);
        definition.description = wire.description;
        definition.summary = wire.summary;
        definition.parameters = wire.parameters.unwrap_or_else(default_parameters);
        definition.output = wire.output;
        definition.read_only = wire.read_only.or(read_only_hint).unwrap_or(false);
        definition.timeout_ms = wire.timeout_ms;
        definition.policy = wire.policy.unwrap_or_default();
        definition.escalation_only = wire.requires_escalation.unwrap_or(false);
        if let Some(template) = wire.call_title {
            definition = definition.call_title_template(template);
        }
        if let Some(template) = wire.result_title {
            definition = definition.result_title_template(template);
        }
        Ok(definition)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn read(entry: Value) -> Result<ToolEntry, EntryError> {
        read_tool(3, entry, Strictness::Contract)
    }

    fn refusal(entry: Value) -> EntryError {
        read(entry).unwrap_err()
    }

    #[test]
    fn mcp_spellings_are_accepted() {
        let def: ToolDefinition = serde_json::from_value(json!({
            "name": "read",
            "inputSchema": { "type": "object", "properties": { "p": { "type": "string" } } },
            "outputSchema": { "type": "string" },
            "annotations": { "readOnlyHint": true }
        }))
        .unwrap();
        assert_eq!(def.parameters["properties"]["p"]["type"], "string");
        assert_eq!(def.output, Some(json!({ "type": "string" })));
        assert!(def.read_only);
        assert_eq!(def.policy, Policy::Allow);
    }

    #[test]
    fn own_spelling_wins_over_the_hint_and_defaults_apply() {
        let def: ToolDefinition = serde_json::from_value(json!({
            "name": "w", "readOnly": false, "annotations": { "readOnlyHint": true },
            "policy": "ask", "timeoutMs": 50
        }))
        .unwrap();
        assert!(!def.read_only);
        assert_eq!(def.policy, Policy::Ask);
        assert_eq!(def.timeout_ms, Some(50));
        assert_eq!(def.parameters, json!({ "type": "object" }));
    }

    #[test]
    fn an_mcp_tools_list_entry_reads_whole() {
        let entry = read(json!({
            "name": "search",
            "title": "Search",
            "description": "Finds things",
            "inputSchema": { "type": "object", "properties": { "q": { "type": "string" } } },
            "outputSchema": { "type": "object" },
            "annotations": { "readOnlyHint": true, "destructiveHint": false },
            "_meta": { "x": 1 }
        }))
        .unwrap();
        let def = &entry.definition;
        assert_eq!(def.name, "search");
        assert_eq!(def.description.as_deref(), Some("Finds things"));
        assert_eq!(def.parameters["properties"]["q"]["type"], "string");
        assert_eq!(def.output, Some(json!({ "type": "object" })));
        assert!(def.read_only);
        let rest: Vec<&str> = entry.rest.keys().map(String::as_str).collect();
        assert_eq!(
            rest,
            ["title", "_meta"],
            "unknown members are kept, in order"
        );
    }

    #[test]
    fn errors_carry_the_index_the_name_and_the_member_path() {
        let error = refusal(json!({ "name": "r", "readOnly": "yes" }));
        assert_eq!((error.index, error.name.as_deref()), (3, Some("r")));
        assert_eq!(error.path, "$.readOnly");
        assert_eq!(error.path_in("$.tools"), "$.tools[3].readOnly");
        assert_eq!(error.problem.to_string(), "must be a boolean, got a string");
        assert_eq!(
            error.to_string(),
            "tool entry 3 (`r`): $.readOnly: must be a boolean, got a string"
        );
        assert_eq!(
            path_in_list("$.tools", 0, "$.parameters.type"),
            "$.tools[0].parameters.type"
        );
    }

    #[test]
    fn requires_escalation_is_a_boolean_member() {
        let def = read(json!({ "name": "d", "requiresEscalation": true }))
            .unwrap()
            .definition;
        assert!(def.escalation_only);
        let serialized = serde_json::to_value(&def).unwrap();
        assert_eq!(serialized["requiresEscalation"], true);
        let plain = serde_json::to_value(ToolDefinition::new("p")).unwrap();
        assert_eq!(plain.get("requiresEscalation"), None, "left out when false");
        let error = refusal(json!({ "name": "d", "requiresEscalation": "yes" }));
        assert_eq!(error.path, "$.requiresEscalation");
        assert_eq!(error.problem.to_string(), "must be a boolean, got a string");
    }

    #[test]
    fn entry_level_problems_are_at_the_entry() {
        let error = refusal(json!(["x"]));
        assert_eq!((error.name, error.path.as_str()), (None, "$"));
        assert_eq!(
            error.problem.to_string(),
            "expected a tool object, got an array"
        );
        let error = refusal(json!({ "description": "no name" }));
        assert_eq!((error.path.as_str(), error.problem), ("$", Problem::NoName));
        let error = refusal(json!({ "name": 5 }));
        assert_eq!((error.name, error.path.as_str()), (None, "$.name"));
        assert_eq!(error.problem.to_string(), "must be a string, got a number");
        let error = refusal(json!({ "name": "d", "parameters": {}, "inputSchema": {} }));
        assert_eq!(error.path, "$");
        assert_eq!(
            error.problem,
            Problem::Undecodable("duplicate field `parameters`".to_owned())
        );
    }

    #[test]
    fn members_are_checked_in_a_fixed_order() {
        let error = refusal(json!({ "policy": "maybe", "readOnly": 1, "name": "o" }));
        assert_eq!(error.path, "$.readOnly");
        let error = refusal(json!({ "timeoutMs": 0, "policy": "maybe", "name": "o" }));
        assert_eq!(error.path, "$.timeoutMs");
        assert_eq!(
            error.problem.to_string(),
            "must be an integer from 1 to 2147483647, got 0"
        );
    }

    #[test]
    fn null_counts_as_absent_except_for_names_and_contract_schemas() {
        let entry = read(json!({
            "name": "n", "description": null, "summary": null, "readOnly": null,
            "annotations": null, "timeoutMs": null, "policy": null,
            "callTitle": null, "resultTitle": null, "requiresEscalation": null
        }))
        .unwrap();
        assert_eq!(entry.definition, ToolDefinition::new("n"));
        assert_eq!(refusal(json!({ "name": null })).path, "$.name");
        let error = refusal(json!({ "name": "n", "inputSchema": null }));
        assert_eq!(error.path, "$.inputSchema");
        assert_eq!(
            error.problem.to_string(),
            "must be an object schema, got null"
        );
    }

    #[test]
    fn decoding_strictness_leaves_schemas_and_timeouts_to_others() {
        let lenient = |entry: Value| read_tool(0, entry, Strictness::Decoding);
        let def = lenient(json!({ "name": "n", "parameters": null, "timeoutMs": 0 }))
            .unwrap()
            .definition;
        assert_eq!(
            (def.parameters, def.timeout_ms),
            (json!({ "type": "object" }), Some(0))
        );
        let def = lenient(json!({ "name": "n", "inputSchema": 5 }))
            .unwrap()
            .definition;
        assert_eq!(
            def.parameters,
            json!(5),
            "registration refuses it, with its path"
        );
        assert!(lenient(json!({ "name": "n", "timeoutMs": -1 })).is_err());
    }

    /// Under `Decoding`, a refusal is exactly where decoding fails, and
    /// `serde_refusal` is decoding's own message.
    #[test]
    fn serde_refusals_are_what_decoding_says() {
        let wrong = [
            json!(null),
            json!(true),
            json!(-1),
            json!(1.5),
            json!(7),
            json!("maybe"),
            json!([1]),
            json!({ "allow": null }),
            json!({ "a": 1, "b": 2 }),
        ];
        for member in Member::CHECKED {
            for got in &wrong {
                let entry = match member {
                    Member::Name => json!({ "name": got }),
                    _ => json!({ "name": "n", member.key(): got }),
                };
                let decoded = serde_json::from_value::<ToolDefinition>(entry.clone());
                let read = read_tool(0, entry, Strictness::Decoding);
                match (decoded, read) {
                    (Ok(_), Ok(_)) => {}
                    (
                        Err(decoding),
                        Err(EntryError {
                            problem: Problem::Mistyped { member: m, got },
                            ..
                        }),
                    ) => {
                        assert_eq!(m, member);
                        assert_eq!(member.serde_refusal(&got), decoding.to_string());
                    }
                    (decoded, read) => panic!("{member:?} {got}: {decoded:?} vs {read:?}"),
                }
            }
        }
    }

    #[test]
    fn every_serialized_member_is_a_definition_member() {
        let def = ToolDefinition::new("t")
            .description("d")
            .summary("s")
            .output(json!({}))
            .timeout_ms(5)
            .call_title_template("c")
            .result_title_template("r")
            .escalation_only(true);
        let Value::Object(members) = serde_json::to_value(def).unwrap() else {
            panic!("a definition serializes as an object")
        };
        for key in members.keys() {
            assert!(DEFINITION_MEMBERS.contains(&key.as_str()), "{key}");
        }
    }
}

//! A server's `tools/list` as ptc definitions: each entry read by the one
//! reader of tool entries, named `<server>.<tool>`, its hints mapped.

use serde_json::{Value, json};

use super::config::{McpServerConfig, ToolPolicy};
use crate::tool::definition::{Policy, ToolDefinition, is_valid_tool_name};
use crate::tool::wire::{Strictness, read_tool};

/// What a tool without `outputSchema` returns (see `results.rs`), as the
/// description of the output schema it gets: the SDK's `@returns`.
pub(crate) const UNTYPED_OUTPUT: &str = "The server's JSON value, or its text as a string";

/// One usable tool of a server.
#[derive(Debug, Clone)]
pub(super) struct ListedTool {
    /// The tool's name on the server, sent in `tools/call`.
    pub(super) remote: String,
    /// The definition registered, named `<server>.<remote>`.
    pub(super) definition: ToolDefinition,
}

/// The name a server's tool is registered under.
pub(super) fn qualified(server: &str, tool: &str) -> String {
    format!("{server}.{tool}")
}

/// The usable tools of a `tools/list` result's entries (each an MCP `Tool`
/// as JSON), and why the others are skipped, one line each.
pub(super) fn map_tools(
    server: &str,
    config: &McpServerConfig,
    entries: Vec<Value>,
) -> (Vec<ListedTool>, Vec<String>) {
    let mut tools = Vec::new();
    let mut skipped = Vec::new();
    if !config.policies.is_empty() {
        let names: Vec<&str> = entries
            .iter()
            .filter_map(|entry| entry.get("name")?.as_str())
            .collect();
        skipped.extend(unused_policies(server, config, &names));
    }
    for (index, entry) in entries.into_iter().enumerate() {
        if let Some(name) = task_only(&entry) {
            skipped.push(format!(
                "skipped tool `{}`: it can only be called as an MCP task (execution.taskSupport: \"required\"), which ptc does not do",
                name.escape_debug()
            ));
            continue;
        }
        let destructive = is_destructive(&entry);
        let mut definition = match read_tool(index, entry, Strictness::Contract) {
            Ok(read) => read.definition,
            Err(error) => {
                skipped.push(format!("skipped {error}"));
                continue;
            }
        };
        let remote = std::mem::take(&mut definition.name);
        definition.name = qualified(server, &remote);
        if !is_valid_tool_name(&definition.name) {
            skipped.push(format!(
                "skipped tool {remote:?}: `{server}.` and the name must make 1-128 characters of A-Z a-z 0-9 _ . -"
            ));
            continue;
        }
        match config.policy_of(&remote) {
            Some(ToolPolicy::Deny) => continue,
            Some(ToolPolicy::Ask) => definition.policy = Policy::Ask,
            Some(ToolPolicy::Allow) => definition.policy = Policy::Allow,
            None if destructive && config.ask_destructive => definition.policy = Policy::Ask,
            None => {}
        }
        definition.timeout_ms = config.call_timeout_ms;
        // Without `outputSchema`, the SDK says what the value is (results.rs).
        definition
            .output
            .get_or_insert_with(|| json!({ "description": UNTYPED_OUTPUT }));
        // Escalation is the host's to decide, not the server's.
        definition.escalation_only = false;
        tools.push(ListedTool { remote, definition });
    }
    (tools, skipped)
}

/// A warning for each `policy` entry that names none of the server's tools
/// (`names`, as it lists them): a typo there would otherwise leave the tool
/// it meant to deny or ask about allowed, silently.
fn unused_policies(server: &str, config: &McpServerConfig, names: &[&str]) -> Vec<String> {
    let prefix = format!("{server}.");
    config
        .policies
        .iter()
        .filter(|(entry, _)| !names.iter().any(|name| super::config::covers(entry, name)))
        .map(|(entry, _)| {
            let hint = match entry.strip_prefix(&prefix) {
                Some(bare) => {
                    format!(" (the server's own names go there, without `{prefix}`: `{bare}`)")
                }
                None => String::new(),
            };
            format!(
                "policy `{}` names none of its tools{hint}",
                entry.escape_debug()
            )
        })
        .collect()
}

/// The name of a tool that must be called as a task (MCP's
/// `execution.taskSupport: "required"`): a plain `tools/call` of it always
/// fails, so it is not offered at all.
fn task_only(entry: &Value) -> Option<&str> {
    let support = entry.get("execution")?.get("taskSupport")?.as_str()?;
    (support == "required").then(|| entry.get("name").and_then(Value::as_str).unwrap_or("?"))
}

/// MCP's `destructiveHint`, with MCP's default: a tool that is not
/// read-only and says nothing may be destructive.
fn is_destructive(entry: &Value) -> bool {
    let hint = |key: &str| entry.get("annotations")?.get(key)?.as_bool();
    match hint("destructiveHint") {
        Some(destructive) => destructive,
        None => hint("readOnlyHint") != Some(true),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sources::mcp::config::McpConfig;
    use serde_json::json;

    fn config(extra: &str) -> McpServerConfig {
        let text = format!(r#"{{ "mcpServers": {{ "s": {{ "command": "x"{extra} }} }} }}"#);
        McpConfig::parse(&text).unwrap().servers["s"].clone()
    }

    #[test]
    fn entries_map_to_prefixed_definitions() {
        let (tools, skipped) = map_tools(
            "gh",
            &config(r#", "callTimeoutMs": 900"#),
            vec![json!({
                "name": "search", "description": "Finds",
                "inputSchema": { "type": "object", "properties": { "q": { "type": "string" } } },
                "outputSchema": { "type": "object" },
                "annotations": { "readOnlyHint": true }
            })],
        );
        assert!(skipped.is_empty());
        let def = &tools[0].definition;
        assert_eq!(
            (tools[0].remote.as_str(), def.name.as_str()),
            ("search", "gh.search")
        );
        assert_eq!(def.description.as_deref(), Some("Finds"));
        assert_eq!(def.parameters["properties"]["q"]["type"], "string");
        assert_eq!(def.output, Some(json!({ "type": "object" })));
        assert!(def.read_only);
        assert_eq!((def.policy, def.timeout_ms), (Policy::Allow, Some(900)));
    }

    #[test]
    fn a_tool_without_an_output_schema_says_what_it_returns() {
        let entry = json!({ "name": "fetch", "inputSchema": {} });
        let (tools, _) = map_tools("s", &config(""), vec![entry]);
        assert_eq!(
            tools[0].definition.output,
            Some(json!({ "description": UNTYPED_OUTPUT }))
        );
    }

    #[test]
    fn a_policy_that_names_no_tool_is_told() {
        let policy = r#", "policy": { "f.write": "deny", "Write": "ask", "read*": "allow", "*ite": "deny", "gone": "deny" }"#;
        let entries = ["write", "read_file"].map(|name| json!({ "name": name, "inputSchema": {} }));
        let (tools, skipped) = map_tools("f", &config(policy), entries.to_vec());
        assert_eq!(tools.len(), 1, "`*ite` denies write");
        assert_eq!(
            skipped,
            [
                "policy `f.write` names none of its tools (the server's own names go there, without `f.`: `write`)",
                "policy `Write` names none of its tools",
                "policy `gone` names none of its tools",
            ]
        );
    }

    #[test]
    fn a_server_cannot_mark_its_tools_escalation_only() {
        let entry = json!({ "name": "ship", "inputSchema": {}, "requiresEscalation": true });
        let (tools, skipped) = map_tools("s", &config(""), vec![entry]);
        assert!(skipped.is_empty());
        assert!(!tools[0].definition.escalation_only);
    }

    #[test]
    fn destructive_tools_ask_only_when_the_config_says_so() {
        let entries = || {
            vec![
                json!({ "name": "rm", "inputSchema": {}, "annotations": { "destructiveHint": true } }),
                json!({ "name": "add", "inputSchema": {}, "annotations": { "destructiveHint": false } }),
                json!({ "name": "silent", "inputSchema": {} }),
                json!({ "name": "look", "inputSchema": {}, "annotations": { "readOnlyHint": true } }),
            ]
        };
        let policies = |config: &McpServerConfig| -> Vec<Policy> {
            let (tools, _) = map_tools("s", config, entries());
            tools.iter().map(|t| t.definition.policy).collect()
        };
        assert_eq!(policies(&config("")), [Policy::Allow; 4]);
        assert_eq!(
            policies(&config(r#", "askDestructive": true"#)),
            [Policy::Ask, Policy::Allow, Policy::Ask, Policy::Allow]
        );
    }

    #[test]
    fn the_configs_policy_overrides_hints_and_leaves_denied_tools_out() {
        let entries = vec![
            json!({ "name": "rm", "inputSchema": {}, "annotations": { "destructiveHint": true } }),
            json!({ "name": "create_x", "inputSchema": {}, "annotations": { "destructiveHint": false } }),
            json!({ "name": "drop_all", "inputSchema": {} }),
            json!({ "name": "look", "inputSchema": {}, "annotations": { "readOnlyHint": true } }),
        ];
        let extra = r#", "askDestructive": true, "policy": { "rm": "allow", "create_*": "ask", "drop_*": "deny" }"#;
        let (tools, skipped) = map_tools("s", &config(extra), entries);
        let got: Vec<(&str, Policy)> = tools
            .iter()
            .map(|t| (t.definition.name.as_str(), t.definition.policy))
            .collect();
        assert_eq!(
            got,
            [
                ("s.rm", Policy::Allow),
                ("s.create_x", Policy::Ask),
                ("s.look", Policy::Allow)
            ]
        );
        assert!(
            skipped.is_empty(),
            "left out by the operator, not skipped: {skipped:?}"
        );
    }

    #[test]
    fn tools_that_require_tasks_are_skipped_and_others_kept() {
        let entry = |name: &str, execution: Value| json!({ "name": name, "inputSchema": {}, "execution": execution });
        let (tools, skipped) = map_tools(
            "s",
            &config(""),
            vec![
                entry("must", json!({ "taskSupport": "required" })),
                entry("may", json!({ "taskSupport": "optional" })),
                entry("never", json!({ "taskSupport": "forbidden" })),
                entry("plain", json!({})),
            ],
        );
        let names: Vec<&str> = tools.iter().map(|t| t.definition.name.as_str()).collect();
        assert_eq!(names, ["s.may", "s.never", "s.plain"]);
        assert_eq!(
            skipped,
            [
                "skipped tool `must`: it can only be called as an MCP task (execution.taskSupport: \"required\"), which ptc does not do"
            ]
        );
    }

    #[test]
    fn unusable_entries_are_skipped_with_a_reason() {
        let (tools, skipped) = map_tools(
            "s",
            &config(""),
            vec![
                json!({ "name": "has space", "inputSchema": {} }),
                json!({ "name": "x".repeat(127), "inputSchema": {} }),
                json!({ "name": "bad", "inputSchema": [] }),
                json!({ "name": "ok", "inputSchema": {} }),
            ],
        );
        let names: Vec<&str> = tools.iter().map(|t| t.definition.name.as_str()).collect();
        assert_eq!(names, ["s.ok"]);
        assert!(skipped[0].starts_with("skipped tool \"has space\": `s.` and the name"));
        assert!(skipped[1].contains("1-128 characters"));
        assert_eq!(
            skipped[2],
            "skipped tool entry 2 (`bad`): $.inputSchema: must be an object schema, got an array"
        );
    }
}

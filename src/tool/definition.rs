//! Tool definitions: what a tool is, as the host describes it (contracts §2).

use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::title::Titles;

/// The default pre-execute decision for a tool (contracts §2, `policy`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Policy {
    /// Run the call without asking. The default.
    #[default]
    Allow,
    /// Pause the call until the host's approver answers.
    Ask,
    /// Refuse every call with `DENIED`.
    Deny,
}

/// A tool as the host describes it: name, schemas and execution hints.
///
/// Build one with [`ToolDefinition::new`] and the setters, or deserialize it
/// from JSON (`inputSchema`, `outputSchema` and `annotations.readOnlyHint`, the
/// MCP spellings, are accepted too). A definition carries no handler: pair it
/// with one through [`Tool`](crate::Tool).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ToolDefinition {
    /// 1–128 characters of `A-Z a-z 0-9 _ . -`, unique in a registry.
    pub name: String,
    /// Shown to the model unless [`summary`](Self::summary) is set.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// When present, advertised instead of the description.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub summary: Option<String>,
    /// JSON Schema of the arguments; its root is an object schema.
    pub parameters: Value,
    /// JSON Schema of the value the handler returns, any root.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub output: Option<Value>,
    /// `true` marks the tool parallel-safe (its calls may overlap).
    pub read_only: bool,
    /// Per-call deadline in milliseconds, enforced by the pipeline.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub timeout_ms: Option<u64>,
    /// The default pre-execute decision.
    pub policy: Policy,
    /// How calls and results read to a person; as JSON, the templates'
    /// `callTitle` and `resultTitle` members.
    #[serde(flatten)]
    pub(crate) titles: Titles,
    /// `true` keeps the tool back unless the run is escalated (contracts
    /// §6, Escalation): outside an approved `sandboxPermissions:
    /// "require_escalated"` run a call is `DENIED`. Written
    /// `requiresEscalation`, left out when `false`.
    #[serde(rename = "requiresEscalation", skip_serializing_if = "is_false")]
    pub escalation_only: bool,
}

fn is_false(b: &bool) -> bool {
    !*b
}

impl ToolDefinition {
    /// A definition with the given name, no description, parameters
    /// `{ "type": "object" }`, mutating, no timeout, policy `allow`, and
    /// callable without escalation.
    pub fn new(name: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            description: None,
            summary: None,
            parameters: default_parameters(),
            output: None,
            read_only: false,
            timeout_ms: None,
            policy: Policy::Allow,
            titles: Titles::default(),
            escalation_only: false,
        }
    }

    /// Sets the description. By default, none.
    pub fn description(mut self, description: impl Into<String>) -> Self {
        self.description = Some(description.into());
        self
    }

    /// Sets the summary, advertised instead of the description. By default, none.
    pub fn summary(mut self, summary: impl Into<String>) -> Self {
        self.summary = Some(summary.into());
        self
    }

    /// Sets the argument schema. By default, `{ "type": "object" }`.
    pub fn parameters(mut self, schema: Value) -> Self {
        self.parameters = schema;
        self
    }

    /// Sets the output schema. By default, none (the SDK says `unknown`).
    pub fn output(mut self, schema: Value) -> Self {
        self.output = Some(schema);
        self
    }

    /// Marks the tool read-only (parallel-safe). By default, mutating.
    pub fn read_only(mut self, read_only: bool) -> Self {
        self.read_only = read_only;
        self
    }

    /// Sets the per-call deadline. By default, none (the run deadline still holds).
    pub fn timeout_ms(mut self, timeout_ms: u64) -> Self {
        self.timeout_ms = Some(timeout_ms);
        self
    }

    /// Sets the default pre-execute decision. By default, [`Policy::Allow`].
    pub fn policy(mut self, policy: Policy) -> Self {
        self.policy = policy;
        self
    }

    /// Sets how a call reads to a person, from its arguments: "Read
    /// src/lib.rs" rather than the default `read_file(path: "src/lib.rs")`.
    /// Shown in run events, progress lines and approval prompts, never to
    /// the model. A panic or an empty title gives the default title; the
    /// title is made one line and cut to 200 characters (contracts §2,
    /// titles). By default, the default title. Replaces a template.
    pub fn call_title(mut self, title: impl Fn(&Value) -> String + Send + Sync + 'static) -> Self {
        self.titles.set_call_function(Arc::new(title));
        self
    }

    /// Sets how a call reads to a person as a template over its arguments,
    /// such as `"Read {path}"`: `{a.b}` is the argument `a`'s member `b`
    /// (an array item by its index), a string as it is and other values as
    /// compact JSON; `{{` and `}}` are braces. When a field is missing the
    /// default title is shown. A template that does not parse is refused at
    /// registration. By default, the default title. Replaces a function.
    pub fn call_title_template(mut self, template: impl Into<String>) -> Self {
        self.titles.set_call_template(template.into());
        self
    }

    /// Sets how a successful result reads to a person, from the call's
    /// arguments and the result's value: "Read src/lib.rs (412 lines)". A
    /// panic or an empty title gives the call's title. By default, a result
    /// reads as its call. Replaces a template.
    pub fn result_title(
        mut self,
        title: impl Fn(&Value, &Value) -> String + Send + Sync + 'static,
    ) -> Self {
        self.titles.set_result_function(Arc::new(title));
        self
    }

    /// Sets how a successful result reads to a person as a template, as
    /// [`call_title_template`](Self::call_title_template), where a path
    /// starting at `result` reads the result's value: `"Read {path}
    /// ({result.lines} lines)"`. When a field is missing the call's title is
    /// shown. By default, a result reads as its call. Replaces a function.
    pub fn result_title_template(mut self, template: impl Into<String>) -> Self {
        self.titles.set_result_template(template.into());
        self
    }

    /// How a call with these arguments reads to a person (see
    /// [`call_title`](Self::call_title)). Never fails, never panics.
    pub fn title_of_call(&self, arguments: &Value) -> String {
        self.titles.call(&self.name, arguments)
    }

    /// How the successful result `value` of a call with these arguments
    /// reads to a person (see [`result_title`](Self::result_title)). Never
    /// fails, never panics.
    pub fn title_of_result(&self, arguments: &Value, value: &Value) -> String {
        self.titles.result(&self.name, arguments, value)
    }

    /// Keeps the tool for escalated runs only. By default, `false`
    /// (callable in every run).
    pub fn escalation_only(mut self, escalation_only: bool) -> Self {
        self.escalation_only = escalation_only;
        self
    }

    /// The text shown to the model: the summary when present, else the description.
    pub fn advertised_description(&self) -> Option<&str> {
        self.summary.as_deref().or(self.description.as_deref())
    }
}

/// `{ "type": "object" }`: parameters when none are given.
pub(super) fn default_parameters() -> Value {
    serde_json::json!({ "type": "object" })
}

/// Whether `name` is a valid tool name: 1–128 characters of `A-Z a-z 0-9 _ . -`.
pub fn is_valid_tool_name(name: &str) -> bool {
    (1..=128).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-'))
}

/// A name a program made, as a message quotes it: `` `x` `` when it could
/// be a tool's (at most 128 bytes), else `a name of N characters`, so no
/// program can fill a message (or a model's context) with a name.
pub(crate) fn quoted_name(name: &str) -> String {
    if name.len() <= 128 {
        format!("`{name}`")
    } else {
        format!("a name of {} characters", name.chars().count())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_past_any_tools_are_quoted_by_their_length() {
        assert_eq!(quoted_name("fs.read"), "`fs.read`");
        assert_eq!(
            quoted_name(&"x".repeat(128)),
            format!("`{}`", "x".repeat(128))
        );
        assert_eq!(quoted_name(&"é".repeat(100)), "a name of 100 characters");
        assert_eq!(
            quoted_name(&"x".repeat(8 << 20)),
            "a name of 8388608 characters"
        );
    }

    #[test]
    fn names_follow_the_contract() {
        assert!(is_valid_tool_name("a"));
        assert!(is_valid_tool_name("github.create-issue_2"));
        assert!(is_valid_tool_name(&"x".repeat(128)));
        assert!(!is_valid_tool_name(""));
        assert!(!is_valid_tool_name(&"x".repeat(129)));
        assert!(!is_valid_tool_name("has space"));
        assert!(!is_valid_tool_name("slash/name"));
        assert!(!is_valid_tool_name("ümlaut"));
    }

    #[test]
    fn summary_is_advertised_over_description() {
        let def = ToolDefinition::new("t").description("long");
        assert_eq!(def.advertised_description(), Some("long"));
        assert_eq!(def.summary("short").advertised_description(), Some("short"));
    }
}

//! What a run and a model-direct call answer: [`Outcome`], [`FailureKind`]
//! and [`Invocation`].

use std::time::Duration;

use serde::Serialize;

use super::call::{ContentBlock, ToolResult};

/// Why a run failed (contracts §7). Its JSON Schema (the wire names, one
/// `const` each) is what MCP clients are told `kind` may be.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum FailureKind {
    /// The code did not parse (or was too large).
    Syntax,
    /// The program threw.
    Runtime,
    /// The run deadline expired.
    Timeout,
    /// The heap limit was exhausted.
    Memory,
    /// The host cancelled the run.
    Cancelled,
    /// The run asked for escalation and the approver refused it: nothing ran.
    Denied,
}

impl FailureKind {
    /// The kind as written in the model text.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Syntax => "syntax",
            Self::Runtime => "runtime",
            Self::Timeout => "timeout",
            Self::Memory => "memory",
            Self::Cancelled => "cancelled",
            Self::Denied => "denied",
        }
    }
}

/// The result of a run: what the model sees plus facts for the host.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Outcome {
    /// The run's id.
    pub run_id: String,
    /// Whether the run failed.
    pub is_error: bool,
    /// Why it failed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kind: Option<FailureKind>,
    /// The rendered text first, then images.
    pub content: Vec<ContentBlock>,
    /// How many sub-calls the program made.
    pub sub_calls: u32,
    /// The session the run read and wrote (contracts §9): the one it named,
    /// or one its first write opened; none when it had neither.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub session: Option<String>,
    /// Wall time of the run, admission included (serialized as `elapsedMs`).
    #[serde(rename = "elapsedMs", serialize_with = "as_millis")]
    pub elapsed: Duration,
    /// CPU time the program's sandbox used, waiting on tools not counted
    /// (contracts §6, "Budgets"; serialized as `cpuMs`).
    #[serde(rename = "cpuMs", serialize_with = "as_millis")]
    pub cpu: Duration,
}

fn as_millis<S: serde::Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_f64(d.as_secs_f64() * 1000.0)
}

impl Outcome {
    /// The rendered text (the first content block).
    pub fn text(&self) -> &str {
        match self.content.first() {
            Some(ContentBlock::Text { text }) => text,
            _ => "",
        }
    }
}

/// The answer to a model-direct call ([`Engine::invoke`](crate::Engine::invoke)).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Invocation {
    /// A tool's result (or a refused `run_code` call).
    Tool(ToolResult),
    /// A `run_code` program's outcome.
    Run(Outcome),
}

impl Invocation {
    /// Whether the model sees a failure.
    pub fn is_error(&self) -> bool {
        match self {
            Self::Tool(result) => result.is_err(),
            Self::Run(outcome) => outcome.is_error,
        }
    }

    /// What the model sees: a failed call is exactly `Error: <message>`; a
    /// value is its text (strings verbatim, other values as compact JSON),
    /// followed by the result's content blocks.
    pub fn content(&self) -> Vec<ContentBlock> {
        match self {
            Self::Run(outcome) => outcome.content.clone(),
            Self::Tool(Err(error)) => vec![ContentBlock::text(error.model_text())],
            Self::Tool(Ok(output)) => {
                let text = match &output.value {
                    serde_json::Value::String(s) => s.clone(),
                    value => value.to_string(),
                };
                let mut content = vec![ContentBlock::text(text)];
                content.extend(output.content.iter().cloned());
                content
            }
        }
    }
}

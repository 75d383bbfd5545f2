//! What a run is asked to do: the host's [`RunRequest`], the model's
//! `run_code` arguments, and the [`RunOptions`] a host runs it with.

use std::sync::Arc;
use std::time::Duration;

use tokio_util::sync::CancellationToken;

use super::events::EventSink;
use crate::limits::Limits;
use crate::tool::call::CallerContext;
use crate::tool::registry::Scope;

/// `run_code`'s arguments.
#[derive(Debug, Clone, PartialEq, Eq, Default, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct RunRequest {
    /// The program: the body of an async TypeScript function.
    pub code: String,
    /// A short summary of what the program does.
    #[serde(default)]
    pub description: String,
    /// The run deadline in ms; by default the engine's `default_timeout_ms`.
    #[serde(default, deserialize_with = "integer")]
    pub timeout_ms: Option<i64>,
    /// The run's id; by default a fresh unique id. An id the host chooses
    /// must not belong to a run still going (`INVALID_ARGUMENTS`).
    #[serde(default)]
    pub run_id: Option<String>,
}

/// An optional integer in any JSON spelling (`1e3` is 1000).
fn integer<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<i64>, D::Error> {
    let Some(n) = <Option<serde_json::Number> as serde::Deserialize>::deserialize(d)? else {
        return Ok(None);
    };
    match crate::schema::integer(&n) {
        Some(i) => Ok(Some(i)),
        None => Err(serde::de::Error::custom(format_args!(
            "timeoutMs must be an integer, got {n}"
        ))),
    }
}

/// `run_code`'s arguments as the model sends them (contracts §4), and
/// nothing else: the run id is the host's to choose. The schema the model
/// is shown ([`run_code_parameters`](crate::run_code_parameters)) is pinned
/// to this struct by a test.
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub(crate) struct ModelArguments {
    code: String,
    description: String,
    #[serde(default, deserialize_with = "integer")]
    timeout_ms: Option<i64>,
}

impl ModelArguments {
    /// Reads a model's `run_code` arguments.
    ///
    /// # Errors
    /// A member missing, of the wrong type, or unknown.
    pub(crate) fn parse(arguments: serde_json::Value) -> Result<RunRequest, serde_json::Error> {
        let arguments: Self = serde_json::from_value(arguments)?;
        Ok(RunRequest {
            code: arguments.code,
            description: arguments.description,
            timeout_ms: arguments.timeout_ms,
            run_id: None,
        })
    }
}

impl RunRequest {
    /// A request to run `code`.
    pub fn new(code: impl Into<String>) -> Self {
        Self {
            code: code.into(),
            ..Self::default()
        }
    }

    /// Sets the deadline. By default, the engine's default timeout.
    pub fn timeout_ms(mut self, ms: i64) -> Self {
        self.timeout_ms = Some(ms);
        self
    }

    /// Sets the run id. By default, a fresh unique id.
    pub fn run_id(mut self, id: impl Into<String>) -> Self {
        self.run_id = Some(id.into());
        self
    }

    /// Sets the description. By default, empty.
    pub fn description(mut self, description: impl Into<String>) -> Self {
        self.description = description.into();
        self
    }
    /// The run's deadline: `timeoutMs`, or the default, within the limits.
    ///
    /// # Errors
    /// A `timeoutMs` outside 1 … `max_timeout_ms`.
    pub(crate) fn timeout(&self, limits: &Limits) -> Result<Duration, RunError> {
        let ms = match self.timeout_ms {
            None => limits.default_timeout_ms,
            Some(ms) => u64::try_from(ms)
                .ok()
                .filter(|ms| (1..=limits.max_timeout_ms).contains(ms))
                .ok_or_else(|| {
                    RunError::InvalidArguments(format!(
                        "timeoutMs must be an integer from 1 to {}, got {ms}",
                        limits.max_timeout_ms
                    ))
                })?,
        };
        Ok(Duration::from_millis(ms))
    }
}

/// How one run is made.
#[derive(Clone, Default)]
#[non_exhaustive]
pub struct RunOptions {
    /// The agent's scope. By default, a fresh scope of the engine's registry.
    pub scope: Option<Scope>,
    /// Receives the run's events. By default, none.
    pub events: Option<Arc<dyn EventSink>>,
    /// Cancels the run (it ends as `cancelled`). By default, never fires.
    pub cancel: CancellationToken,
    /// Passed to every sub-call's handler. By default, none.
    pub caller: Option<CallerContext>,
}

impl RunOptions {
    /// Sets the scope. By default, a fresh scope of the registry.
    pub fn scope(mut self, scope: Scope) -> Self {
        self.scope = Some(scope);
        self
    }

    /// Sets the event sink. By default, none.
    pub fn events(mut self, sink: impl EventSink) -> Self {
        self.events = Some(Arc::new(sink));
        self
    }

    /// Sets the cancellation signal. By default, one that never fires.
    pub fn cancel(mut self, cancel: CancellationToken) -> Self {
        self.cancel = cancel;
        self
    }

    /// Sets the caller context. By default, none.
    pub fn caller(mut self, caller: CallerContext) -> Self {
        self.caller = Some(caller);
        self
    }
}

/// `run_code` itself was called wrongly (not a failure of the program).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum RunError {
    /// Bad `run_code` arguments, such as a `timeoutMs` out of range.
    #[error("{0}")]
    InvalidArguments(String),
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::ModelArguments;
    use crate::sdk::SdkOptions;

    /// The schema the model is shown and the struct its arguments are read
    /// with agree: every property is read, the required ones are required,
    /// and nothing else is accepted.
    #[test]
    fn the_advertised_schema_is_the_one_arguments_are_read_with() {
        let schema = crate::run_code_parameters(&SdkOptions::default());
        assert_eq!(schema["additionalProperties"], false);
        let properties = schema["properties"].as_object().unwrap();
        let sample = |property: &Value| match property["type"].as_str() {
            Some("string") => json!("x"),
            Some("integer") => json!(5),
            other => panic!("no sample for {other:?}"),
        };
        let full: serde_json::Map<String, Value> = properties
            .iter()
            .map(|(name, property)| (name.clone(), sample(property)))
            .collect();
        assert!(ModelArguments::parse(Value::Object(full.clone())).is_ok());
        let required = schema["required"].as_array().unwrap();
        for name in properties.keys() {
            let mut without = full.clone();
            without.remove(name);
            let parsed = ModelArguments::parse(Value::Object(without));
            assert_eq!(parsed.is_err(), required.contains(&json!(name)), "{name}");
        }
        let mut extra = full;
        extra.insert("runId".into(), json!("r"));
        assert!(ModelArguments::parse(Value::Object(extra)).is_err());
    }
}

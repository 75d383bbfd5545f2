//! A request's params, taken member by member so each mistake is named.

use std::fmt::Display;

use serde_json::{Map, Value};

use super::RpcError;
use crate::contract::presentation::Mode;
use crate::contract::run_code::Language;
use crate::json::json_type;

/// A request's params, taken member by member so each mistake is named.
pub(crate) struct Params {
    method: String,
    /// Where the members live, for messages: empty, or `config.` and so on.
    prefix: String,
    members: Map<String, Value>,
}

impl Params {
    pub(crate) fn new(method: &str, members: Map<String, Value>) -> Self {
        Self {
            method: method.to_owned(),
            prefix: String::new(),
            members,
        }
    }

    /// A request's params as they came: an object, or `null` for none.
    pub(crate) fn from_value(method: &str, params: Value) -> Result<Self, RpcError> {
        match params {
            Value::Object(members) => Ok(Self::new(method, members)),
            Value::Null => Ok(Self::new(method, Map::new())),
            other => Err(Self::new(method, Map::new()).invalid(format_args!(
                "params must be an object, got {}",
                json_type(&other)
            ))),
        }
    }

    pub(crate) fn within(mut self, member: &str) -> Self {
        self.prefix = format!("{member}.");
        self
    }

    /// Every member, for a reader of its own (which names the member in
    /// what it says is wrong).
    pub(crate) fn take_all(&mut self) -> Map<String, Value> {
        std::mem::take(&mut self.members)
    }

    /// These params are wrong: `what` names the member.
    pub(crate) fn invalid(&self, what: impl Display) -> RpcError {
        RpcError::params(format!("invalid params for `{}`: {what}", self.method))
    }

    fn error(&self, key: &str, what: impl Display) -> RpcError {
        RpcError::params(format!(
            "invalid params for `{}`: `{}{key}` {what}",
            self.method, self.prefix
        ))
    }

    /// A member; `null` counts as absent.
    pub(crate) fn take(&mut self, key: &str) -> Option<Value> {
        self.members.remove(key).filter(|v| !v.is_null())
    }

    pub(crate) fn required_string(&mut self, key: &str) -> Result<String, RpcError> {
        match self.take(key) {
            Some(Value::String(s)) => Ok(s),
            Some(other) => {
                Err(self.error(key, format!("must be a string, got {}", json_type(&other))))
            }
            None => Err(self.error(key, "is required (a string)")),
        }
    }

    pub(crate) fn optional_string(&mut self, key: &str) -> Result<Option<String>, RpcError> {
        match self.take(key) {
            Some(Value::String(s)) => Ok(Some(s)),
            Some(other) => {
                Err(self.error(key, format!("must be a string, got {}", json_type(&other))))
            }
            None => Ok(None),
        }
    }

    pub(crate) fn optional_u64(&mut self, key: &str) -> Result<Option<u64>, RpcError> {
        match self.take(key) {
            Some(Value::Number(n)) => match crate::schema::integer(&n).map(u64::try_from) {
                Some(Ok(n)) => Ok(Some(n)),
                _ => Err(self.error(key, format!("must be a non-negative integer, got {n}"))),
            },
            Some(other) => Err(self.error(
                key,
                format!("must be a non-negative integer, got {}", json_type(&other)),
            )),
            None => Ok(None),
        }
    }

    pub(crate) fn optional_object(
        &mut self,
        key: &str,
    ) -> Result<Option<Map<String, Value>>, RpcError> {
        match self.take(key) {
            Some(Value::Object(map)) => Ok(Some(map)),
            Some(other) => {
                Err(self.error(key, format!("must be an object, got {}", json_type(&other))))
            }
            None => Ok(None),
        }
    }

    /// One of a few strings, read as `T`; `expected` lists them for the error.
    fn optional_choice<T: serde::de::DeserializeOwned>(
        &mut self,
        key: &str,
        expected: &str,
    ) -> Result<Option<T>, RpcError> {
        match self.take(key) {
            None => Ok(None),
            Some(value) => serde_json::from_value(value.clone())
                .map(Some)
                .map_err(|_| self.error(key, format!("must be {expected}, got {value}"))),
        }
    }

    pub(crate) fn optional_mode(&mut self, key: &str) -> Result<Option<Mode>, RpcError> {
        self.optional_choice(key, "\"ptc\", \"native\" or \"both\"")
    }

    pub(crate) fn optional_language(&mut self, key: &str) -> Result<Option<Language>, RpcError> {
        let language = self.optional_choice(key, "\"typescript\" or \"python\"")?;
        match language.and_then(Language::unavailable) {
            Some(why) => Err(self.error(key, format!("is \"python\", but {why}"))),
            None => Ok(language),
        }
    }

    pub(crate) fn required_array(&mut self, key: &str) -> Result<Vec<Value>, RpcError> {
        match self.take(key) {
            Some(Value::Array(items)) => Ok(items),
            Some(other) => {
                Err(self.error(key, format!("must be an array, got {}", json_type(&other))))
            }
            None => Err(self.error(key, "is required (an array)")),
        }
    }

    pub(crate) fn required_strings(&mut self, key: &str) -> Result<Vec<String>, RpcError> {
        let items = self.required_array(key)?;
        items
            .into_iter()
            .enumerate()
            .map(|(i, item)| match item {
                Value::String(s) => Ok(s),
                other => Err(self.error(
                    &format!("{key}[{i}]"),
                    format!("must be a string, got {}", json_type(&other)),
                )),
            })
            .collect()
    }

    /// Refuses members nobody took (a typo must not pass silently).
    pub(crate) fn reject_unknown(self) -> Result<(), RpcError> {
        match self.members.keys().next() {
            None => Ok(()),
            Some(key) => Err(self.error(key, "is not a known member")),
        }
    }
}

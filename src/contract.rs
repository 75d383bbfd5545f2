//! What crosses a wire, each shape defined once: the type a front end reads
//! is the one its schema and its error messages come from.
//!
//! Its rooms: `run_code` (the arguments of `run_code`: the model's schema,
//! the host's and the model's reader, every wording of their mistakes);
//! `call` (a call, its output, its content blocks and its typed error);
//! `events` (what a host watches while a run goes) and `outcome` (what a
//! run answers), with `run_facts` (an outcome as MCP's structured content
//! and its schema); `presentation` (the mode and what the model sees); and
//! `host_protocol` (every message of `ptc serve`, read or written).

pub(crate) mod call;
pub(crate) mod events;
pub(crate) mod host_protocol;
pub(crate) mod outcome;
pub(crate) mod presentation;
pub(crate) mod run_code;
pub(crate) mod run_facts;

use serde_json::{Map, Value};

use crate::json::json_type;

/// Checks an object's members against the flat object schema `schema`
/// (properties of `"type"` string or integer, or an `"enum"` of strings;
/// `required`; `additionalProperties: false`), so that every mistake names
/// its member the same way whoever reads it: `` `timeoutMs` must be an
/// integer, got 1.5``. `null` members count as absent and are removed.
///
/// # Errors
/// The first mistake, properties in the schema's order first, then a
/// member the schema does not name.
pub(crate) fn check_members(
    schema: &Value,
    members: &mut Map<String, Value>,
) -> Result<(), String> {
    members.retain(|_, value| !value.is_null());
    let properties = schema["properties"].as_object();
    let required = schema["required"].as_array();
    let is_required = |name: &str| required.is_some_and(|r| r.iter().any(|n| n == name));
    for (name, property) in properties.into_iter().flatten() {
        match members.get(name) {
            Some(value) => {
                check_member(property, value).map_err(|what| format!("`{name}` {what}"))?
            }
            None if is_required(name) => {
                return Err(format!("`{name}` is required ({})", expected(property)));
            }
            None => {}
        }
    }
    let known = |name: &String| properties.is_some_and(|p| p.contains_key(name));
    match members.keys().find(|name| !known(name)) {
        Some(name) => Err(format!("`{name}` is not a known member")),
        None => Ok(()),
    }
}

/// What `property` takes, in words: `a string`, `an integer`, or its choices.
fn expected(property: &Value) -> String {
    if let Some(choices) = property["enum"].as_array() {
        let words: Vec<String> = choices.iter().map(Value::to_string).collect();
        return match words.split_last() {
            Some((last, [])) => last.clone(),
            Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
            None => "nothing".to_owned(),
        };
    }
    match property["type"].as_str() {
        Some("integer") => "an integer".to_owned(),
        Some("string") => "a string".to_owned(),
        other => format!("of type {}", other.unwrap_or("any")),
    }
}

/// Why `value` does not fit `property`, as ``must be …, got …``.
fn check_member(property: &Value, value: &Value) -> Result<(), String> {
    let fits = match property["enum"].as_array() {
        Some(choices) => choices.contains(value),
        None => match (property["type"].as_str(), value) {
            (Some("string"), Value::String(_)) => true,
            (Some("integer"), Value::Number(n)) => crate::schema::integer(n).is_some(),
            (Some("string" | "integer"), _) => false,
            _ => true,
        },
    };
    if fits {
        return Ok(());
    }
    // A choice or a number is shown as given; anything else by its type.
    let as_given =
        property["enum"].is_array() || (property["type"] == "integer" && value.is_number());
    let got = match as_given {
        true => value.to_string(),
        false => json_type(value).to_owned(),
    };
    Err(format!("must be {}, got {got}", expected(property)))
}

//! JSON values in words, for messages that say what was given instead;
//! what a JSON message costs in host memory before it is parsed (`cost`);
//! and the id of a message that is not parsed whole (`envelope`).

pub(crate) mod cost;
pub(crate) mod envelope;

use serde_json::Value;

/// A value's JSON type as a message says it: `a string`, `an array`, `null`.
pub(crate) fn json_type(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use super::json_type;
    use serde_json::json;

    #[test]
    fn every_type_has_its_article() {
        let said: Vec<_> = [
            json!(null),
            json!(true),
            json!(1.5),
            json!("x"),
            json!([]),
            json!({}),
        ]
        .iter()
        .map(json_type)
        .collect();
        assert_eq!(
            said,
            [
                "null",
                "a boolean",
                "a number",
                "a string",
                "an array",
                "an object"
            ]
        );
    }
}
